/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra-convert: an ASTRA-sim 1.0 text workload as Chakra execution traces, one file per
 * rank (tn_chakra_convert), and a check of trace files (--check).
 *
 *   tn-chakra-convert WORKLOAD.txt NPUS PREFIX [--group G]
 *       writes PREFIX.0.et .. PREFIX.<NPUS-1>.et: one iteration of the workload as the
 *       training job runs it (G: the model-parallel group size when the file gives none)
 *   tn-chakra-convert --check PREFIX NPUS
 *       reads PREFIX.0.et .. PREFIX.<NPUS-1>.et, checks them together (tn_chakra_check) and
 *       prints one line per rank: its nodes by kind
 * Exit codes: 0 ok; 1 a file cannot be read or written, or a trace is refused; 2 bad
 * arguments. Errors go to stderr as one "tn-chakra-convert: ..." line.
 */
#include "ns3/tn-chakra.h"
#include "ns3/tn-workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* usage_text = "usage: tn-chakra-convert WORKLOAD.txt NPUS PREFIX [--group G]\n"
                                "       tn-chakra-convert --check PREFIX NPUS\n";

static int
fail(int code, const char* message)
{
    fprintf(stderr, "tn-chakra-convert: %s\n", message);
    return code;
}

static int
parse_count(const char* text, uint32_t* out)
{
    char* end = NULL;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || !end || *end || end == text || text[0] == '-' || v == 0 || v > UINT32_MAX)
    {
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

static char*
rank_path(const char* prefix, uint32_t rank)
{
    size_t n = strlen(prefix) + 16;
    char* path = malloc(n);
    if (path)
    {
        snprintf(path, n, "%s.%u.et", prefix, rank);
    }
    return path;
}

static int
check(const char* prefix, uint32_t npus)
{
    tn_chakra_trace** traces = calloc(npus, sizeof(*traces));
    if (!traces)
    {
        return fail(1, "out of memory");
    }
    tn_error err;
    int code = 0;
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        char* path = rank_path(prefix, r);
        if (!path || tn_chakra_load_file(path, &traces[r], &err))
        {
            code = fail(1, path ? err.message : "out of memory");
        }
        free(path);
    }
    if (!code && tn_chakra_check(traces, npus, &err))
    {
        code = fail(1, err.message);
    }
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        uint32_t kinds[5] = {0, 0, 0, 0, 0};
        uint32_t deps = 0;
        for (uint32_t i = 0; i < tn_chakra_node_count(traces[r]); i++)
        {
            kinds[tn_chakra_node_at(traces[r], i)->kind]++;
            deps += tn_chakra_node_at(traces[r], i)->dep_count;
        }
        printf("%s: %u nodes: %u compute, %u memory, %u send, %u recv, %u collective; %u "
               "dependencies\n",
               tn_chakra_name(traces[r]),
               tn_chakra_node_count(traces[r]),
               kinds[TN_CHAKRA_COMPUTE],
               kinds[TN_CHAKRA_MEMORY],
               kinds[TN_CHAKRA_SEND],
               kinds[TN_CHAKRA_RECV],
               kinds[TN_CHAKRA_COLLECTIVE],
               deps);
    }
    for (uint32_t r = 0; r < npus; r++)
    {
        tn_chakra_destroy(traces[r]);
    }
    free(traces);
    return code;
}

int
main(int argc, char** argv)
{
    uint32_t npus = 0;
    if (argc == 4 && strcmp(argv[1], "--check") == 0)
    {
        if (!parse_count(argv[3], &npus))
        {
            return fail(2, "NPUS must be a positive integer");
        }
        return check(argv[2], npus);
    }
    uint32_t group = 0;
    if (argc != 4 && !(argc == 6 && strcmp(argv[4], "--group") == 0))
    {
        fputs(usage_text, stderr);
        return 2;
    }
    if (!parse_count(argv[2], &npus) || (argc == 6 && !parse_count(argv[5], &group)))
    {
        return fail(2,
                    argc == 6 ? "NPUS and --group must be positive integers"
                              : "NPUS must be a positive integer");
    }
    if (!tn_chakra_supported())
    {
        tn_error err;
        tn_chakra_write_metadata(stdout, "", &err);
        return fail(1, err.message);
    }
    tn_error err;
    tn_workload* wl = NULL;
    if (tn_workload_load_file(argv[1], &wl, &err))
    {
        return fail(1, err.message);
    }
    int code = 0;
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        char* path = rank_path(argv[3], r);
        FILE* file = path ? fopen(path, "wb") : NULL;
        if (!file)
        {
            char message[600];
            snprintf(message,
                     sizeof(message),
                     "%s: %s",
                     path ? path : "output",
                     path ? strerror(errno) : "out of memory");
            code = fail(1, message);
        }
        else if (tn_chakra_convert(wl, npus, group, r, file, &err))
        {
            code = fail(1, err.message);
        }
        if (file && fclose(file) != 0 && !code)
        {
            code = fail(1, "closing an output file failed");
        }
        free(path);
    }
    tn_workload_destroy(wl);
    return code;
}
