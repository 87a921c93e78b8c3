/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra: a trace file read and parsed, and the comm-group table of pg_name (tn-chakra.h).
 * Apart from tn-chakra.c, which decodes the messages: these work without protobuf-c.
 */
#include "tn-chakra.h"
#include "tn-text.h"

#include <stdlib.h>
#include <string.h>

int64_t
tn_chakra_groups_find(const tn_chakra_groups* groups, const char* name)
{
    for (uint32_t g = 0; groups && name && g < groups->count; g++)
    {
        if (strcmp(groups->names[g], name) == 0)
        {
            return g;
        }
    }
    return -1;
}

tn_status
tn_chakra_load_file_groups(const char* path,
                           const tn_chakra_groups* groups,
                           tn_chakra_trace** out,
                           tn_error* err)
{
    if (!out || !path)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_chakra_load_file: %s is NULL",
                            out ? "path" : "out");
    }
    *out = NULL;
    char* buf = NULL;
    size_t len = 0;
    tn_status s = tn_text_read_file(path, &buf, &len, err);
    if (!s)
    {
        s = tn_chakra_parse_groups((const uint8_t*)buf, len, path, groups, out, err);
    }
    free(buf);
    return s;
}

tn_status
tn_chakra_load_file(const char* path, tn_chakra_trace** out, tn_error* err)
{
    return tn_chakra_load_file_groups(path, NULL, out, err);
}
