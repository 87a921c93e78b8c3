/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ASTRA-sim 2's analytical network YAML (tn-astra.h holds the contract) and its hier spec.
 */
#include "tn-astra.h"

#include "tn-text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
    KEY_TOPOLOGY,
    KEY_NPUS,
    KEY_BANDWIDTH,
    KEY_LATENCY,
    KEY_COUNT
};

static const char* const key_names[KEY_COUNT] = {"topology", "npus_count", "bandwidth", "latency"};

/* The line without its comment and '\r', trimmed. */
static tn_span
strip_line(tn_span line)
{
    for (size_t i = 0; i < line.n; i++)
    {
        if (line.s[i] == '#')
        {
            line.n = i;
            break;
        }
    }
    while (line.n > 0 && line.s[line.n - 1] == '\r')
    {
        line.n--;
    }
    return tn_span_trim(line);
}

/* One item of `key` into dimension d of out. */
static tn_status
read_item(int key,
          tn_span item,
          uint32_t d,
          const char* path,
          unsigned line,
          tn_astra_network* out,
          tn_error* err)
{
    tn_astra_dim* dim = &out->dim[d];
    const char* name = key_names[key];
    const int w = tn_span_shown_width(item, 40);
    if (item.n == 0)
    {
        return tn_error_set(err, TN_EPARSE, "%s:%u: %s: item %u is empty", path, line, name, d);
    }
    if (key == KEY_TOPOLOGY)
    {
        if (tn_span_eq(item, "Ring"))
        {
            dim->kind = TN_ASTRA_RING;
        }
        else if (tn_span_eq(item, "FullyConnected"))
        {
            dim->kind = TN_ASTRA_FULLY_CONNECTED;
        }
        else if (tn_span_eq(item, "Switch"))
        {
            dim->kind = TN_ASTRA_SWITCH;
        }
        else
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: topology: '%.*s' is not Ring, FullyConnected or Switch",
                                path,
                                line,
                                w,
                                item.s);
        }
        return TN_OK;
    }
    if (key == KEY_NPUS)
    {
        uint32_t n = 0;
        if (!tn_span_u32(item, &n) || n < 2)
        {
            char why[64];
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: npus_count: '%.*s' %s",
                                path,
                                line,
                                w,
                                item.s,
                                tn_span_u32(item, &n)
                                    ? "is below 2 (a dimension of one NPU "
                                      "has no link)"
                                    : tn_span_u32_problem(item, why, sizeof(why)));
        }
        dim->npus = n;
        return TN_OK;
    }
    double v = 0;
    if (!tn_span_double(item, &v) || !(v >= 0) || (key == KEY_BANDWIDTH && !(v > 0)) || v > 1e9)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: %s: '%.*s' is not a number %s",
                            path,
                            line,
                            name,
                            w,
                            item.s,
                            key == KEY_BANDWIDTH ? "of GB/s in (0, 1e9]" : "of ns in [0, 1e9]");
    }
    if (key == KEY_BANDWIDTH)
    {
        dim->bandwidth_gbs = v;
    }
    else
    {
        dim->latency_ns = v;
    }
    return TN_OK;
}

/* The value of `key`: "[a, b]" or one item; sets *count. */
static tn_status
read_value(int key,
           tn_span value,
           const char* path,
           unsigned line,
           tn_astra_network* out,
           uint32_t* count,
           tn_error* err)
{
    const char* name = key_names[key];
    *count = 0;
    if (value.n == 0)
    {
        return tn_error_set(err, TN_EPARSE, "%s:%u: %s: no value", path, line, name);
    }
    if (value.s[0] != '[')
    {
        *count = 1;
        return read_item(key, value, 0, path, line, out, err);
    }
    if (value.s[value.n - 1] != ']')
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: %s: a list opened with '[' must close with ']' on its line",
                            path,
                            line,
                            name);
    }
    tn_span rest = tn_span_trim(tn_span_make(value.s + 1, value.n - 2));
    if (rest.n == 0)
    {
        return tn_error_set(err, TN_EPARSE, "%s:%u: %s: an empty list", path, line, name);
    }
    tn_span item;
    int more = 1;
    while (more)
    {
        more = tn_span_cut(&rest, ',', &item);
        if (*count == TN_ASTRA_MAX_DIMS)
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s: more than %d dimensions",
                                path,
                                line,
                                name,
                                TN_ASTRA_MAX_DIMS);
        }
        tn_status s = read_item(key, tn_span_trim(item), *count, path, line, out, err);
        if (s != TN_OK)
        {
            return s;
        }
        (*count)++;
    }
    return TN_OK;
}

tn_status
tn_astra_network_parse(const char* text,
                       size_t len,
                       const char* path,
                       tn_astra_network* out,
                       tn_error* err)
{
    tn_astra_network net;
    memset(&net, 0, sizeof(net));
    uint32_t counts[KEY_COUNT] = {0};
    unsigned lines[KEY_COUNT] = {0};
    tn_span rest = tn_span_make(text, len);
    tn_span raw;
    unsigned line = 0;
    while (tn_span_next_line(&rest, &raw))
    {
        line++;
        tn_span l = strip_line(raw);
        if (l.n == 0 || tn_span_eq(l, "---"))
        {
            continue;
        }
        for (size_t i = 0; i < l.n; i++)
        {
            const unsigned char c = (unsigned char)l.s[i];
            if ((c < 0x20 && c != '\t') || c == 0x7f)
            {
                /* printed in a message, it would break the one error line */
                return tn_error_set(err,
                                    TN_EPARSE,
                                    "%s:%u: control byte 0x%02x (the file is text)",
                                    path,
                                    line,
                                    c);
            }
        }
        tn_span key;
        if (!tn_span_cut(&l, ':', &key))
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: '%.*s': expected 'key: value'",
                                path,
                                line,
                                tn_span_shown_width(key, 40),
                                key.s);
        }
        key = tn_span_trim(key);
        int k = 0;
        while (k < KEY_COUNT && !tn_span_eq(key, key_names[k]))
        {
            k++;
        }
        if (k == KEY_COUNT)
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %.*s: unknown key (the analytical network has topology, "
                                "npus_count, bandwidth and latency)",
                                path,
                                line,
                                tn_span_shown_width(key, 40),
                                key.s);
        }
        if (lines[k])
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s: given twice (first on line %u)",
                                path,
                                line,
                                key_names[k],
                                lines[k]);
        }
        lines[k] = line;
        tn_status s = read_value(k, tn_span_trim(l), path, line, &net, &counts[k], err);
        if (s != TN_OK)
        {
            return s;
        }
    }
    for (int k = 0; k < KEY_COUNT; k++)
    {
        if (!lines[k])
        {
            return tn_error_set(err, TN_EPARSE, "%s: %s: missing", path, key_names[k]);
        }
        if (counts[k] != counts[KEY_TOPOLOGY])
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s: %u items, topology has %u dimensions",
                                path,
                                lines[k],
                                key_names[k],
                                counts[k],
                                counts[KEY_TOPOLOGY]);
        }
    }
    net.dims = counts[KEY_TOPOLOGY];
    *out = net;
    return TN_OK;
}

tn_status
tn_astra_network_read(const char* path, tn_astra_network* out, tn_error* err)
{
    char* text = NULL;
    size_t len = 0;
    tn_status s = tn_text_read_file(path, &text, &len, err);
    if (s == TN_OK)
    {
        s = tn_astra_network_parse(text, len, path, out, err);
    }
    free(text);
    return s;
}

tn_status
tn_astra_network_spec(const tn_astra_network* net, char* buf, size_t size, tn_error* err)
{
    static const char* const kinds[] = {"ring", "fc", "switch"};
    size_t used = (size_t)snprintf(buf, size, "hier:");
    for (uint32_t d = 0; d < net->dims && used < size; d++)
    {
        const tn_astra_dim* dim = &net->dim[d];
        /*
         * ASTRA-sim's bandwidth is per link and direction, hier's the NPU's in the dim: a
         * ring NPU has 2 cables (1 on a ring of 2), an fc NPU P - 1, a switch NPU 1. GB/s
         * to whole bits per second first, so the NPU's rate divides by its cables exactly.
         */
        unsigned long long link = (unsigned long long)llround(dim->bandwidth_gbs * 8e9);
        unsigned long long cables = dim->kind == TN_ASTRA_SWITCH ? 1
                                    : dim->kind == TN_ASTRA_RING ? (dim->npus > 2 ? 2 : 1)
                                                                 : dim->npus - 1ull;
        if (link > (1ull << 62) / cables)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "dimension %u: %g GB/s on %llu links is more than a rate can be",
                                d,
                                dim->bandwidth_gbs,
                                cables);
        }
        const unsigned long long bps = (link ? link : 1ull) * cables;
        used += (size_t)snprintf(buf + used,
                                 size - used,
                                 "%s%s%u@%llubps/%lluns",
                                 d ? "+" : "",
                                 kinds[dim->kind],
                                 dim->npus,
                                 bps,
                                 (unsigned long long)llround(dim->latency_ns));
    }
    if (used >= size)
    {
        return tn_error_set(err, TN_EINVAL, "network spec: more than %zu characters", size - 1);
    }
    return TN_OK;
}
