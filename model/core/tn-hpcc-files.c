/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-hpcc-files: readers of HPCC-family input files (contract in tn-hpcc-files.h).
 */
#include "tn-hpcc-files.h"

#include "tn-text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* tn_span_uint refuses padding zeros; HPCC's files may have them ("007" is 7). */
static int
tn_hpcc_span_uint(tn_span a, uint64_t max, uint64_t* out)
{
    while (a.n > 1 && a.s[0] == '0')
    {
        a.s++;
        a.n--;
    }
    return tn_span_uint(a, max, out);
}

static int
tn_hpcc_span_real(tn_span a, double lo, double hi, double* out)
{
    double v;
    if (!tn_span_double(a, &v) || !isfinite(v) || v < lo || v > hi)
    {
        return 0;
    }
    *out = v;
    return 1;
}

int
tn_hpcc_parse_uint(const char* field, uint64_t max, uint64_t* out)
{
    return field && tn_hpcc_span_uint(tn_span_make(field, SIZE_MAX), max, out);
}

int
tn_hpcc_parse_real(const char* field, double lo, double hi, double* out)
{
    return field && tn_hpcc_span_real(tn_span_make(field, SIZE_MAX), lo, hi, out);
}

/* Number of lines of text as the line readers count them. */
static uint32_t
tn_hpcc_line_count(tn_span text)
{
    uint32_t n = 0;
    tn_span line;
    while (tn_span_next_line(&text, &line))
    {
        n++;
    }
    return n;
}

/* Read path into *text, refusing a NUL byte (not a text file). */
static tn_status
tn_hpcc_read(const char* path, char** text, size_t* len, tn_error* err)
{
    tn_status s = tn_text_read_file(path, text, len, err);
    if (!s && memchr(*text, '\0', *len))
    {
        free(*text);
        *text = NULL;
        return tn_error_set(err, TN_EPARSE, "%s: contains a NUL byte (not a text file)", path);
    }
    return s;
}

/* ---- flow files ---------------------------------------------------------------- */

#define TN_HPCC_FIELD(f) tn_span_shown_width(f, 64), (f).s

static tn_status
tn_hpcc_flow_line(const char* name,
                  unsigned line,
                  const tn_span* f,
                  const tn_topology* topo,
                  tn_hpcc_flow* flow,
                  tn_error* err)
{
    uint32_t nodes = tn_topology_node_count(topo);
    static const char* const names[2] = {"src", "dst"};
    uint32_t ends[2];
    uint64_t v;
    for (int k = 0; k < 2; k++)
    {
        if (!tn_hpcc_span_uint(f[k], UINT32_MAX, &v))
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s '%.*s' is not a node id",
                                name,
                                line,
                                names[k],
                                TN_HPCC_FIELD(f[k]));
        }
        if (v >= nodes)
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s node %.*s out of range (%u nodes)",
                                name,
                                line,
                                names[k],
                                TN_HPCC_FIELD(f[k]),
                                nodes);
        }
        if (tn_topology_node_kind(topo, (uint32_t)v) != TN_NODE_NPU)
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s node %.*s is a switch",
                                name,
                                line,
                                names[k],
                                TN_HPCC_FIELD(f[k]));
        }
        ends[k] = (uint32_t)v;
    }
    if (ends[0] == ends[1])
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: src and dst are the same node %.*s",
                            name,
                            line,
                            TN_HPCC_FIELD(f[0]));
    }
    flow->src = ends[0];
    flow->dst = ends[1];
    flow->line = line;
    if (!tn_hpcc_span_uint(f[2], 7, &v))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: priority '%.*s' is not an integer in 0..7",
                            name,
                            line,
                            TN_HPCC_FIELD(f[2]));
    }
    flow->priority = (uint8_t)v;
    if (!tn_hpcc_span_uint(f[3], 65535, &v))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: dst_port '%.*s' is not an integer in 0..65535",
                            name,
                            line,
                            TN_HPCC_FIELD(f[3]));
    }
    flow->dport = (uint16_t)v;
    if (!tn_hpcc_span_uint(f[4], TN_BYTES_MAX, &v))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: size_bytes '%.*s' is not an integer in 0..2^62",
                            name,
                            line,
                            TN_HPCC_FIELD(f[4]));
    }
    flow->bytes = v;
    double start;
    if (!tn_hpcc_span_real(f[5], 0, 1e6, &start))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: start_seconds '%.*s' is not a time in seconds (0..1e6)",
                            name,
                            line,
                            TN_HPCC_FIELD(f[5]));
    }
    flow->start_ns = (uint64_t)llround(start * 1e9);
    return TN_OK;
}

tn_status
tn_hpcc_flows_load_text(const char* text,
                        const char* name,
                        const tn_topology* topo,
                        int ignore_trailing,
                        tn_hpcc_flows** out,
                        tn_error* err)
{
    if (!out || !text || !topo)
    {
        return tn_error_set(err, TN_EINVAL, "tn_hpcc_flows_load_text: NULL argument");
    }
    *out = NULL;
    name = name ? name : "<text>";
    tn_span all = tn_span_make(text, SIZE_MAX);
    tn_span rest = all;
    unsigned line = 0;
    tn_span f[6];
    size_t n = 0;
    if (!tn_span_next_fields(&rest, &line, f, 6, &n))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: empty flow file (no flow count)",
                            name,
                            line == 0 ? 1 : line);
    }
    if (n != 1)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: first line must hold the number of flows only, found %zu "
                            "fields",
                            name,
                            line,
                            n);
    }
    uint64_t count;
    if (!tn_hpcc_span_uint(f[0], UINT32_MAX, &count))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: number of flows '%.*s' is not a non-negative integer",
                            name,
                            line,
                            TN_HPCC_FIELD(f[0]));
    }
    tn_hpcc_flows* flows = calloc(1, sizeof(*flows));
    /* the count never decides an allocation: every flow has a line of at least 11 bytes */
    size_t room = count < all.n / 11 + 1 ? (size_t)count : all.n / 11 + 1;
    flows->flow = malloc((room ? room : 1) * sizeof(*flows->flow));
    if (!flows->flow)
    {
        free(flows);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    tn_status s = TN_OK;
    while (!s && tn_span_next_fields(&rest, &line, f, 6, &n))
    {
        if (flows->count == count)
        {
            if (ignore_trailing)
            {
                flows->trailing.first_line = line;
                flows->trailing.last_line = tn_hpcc_line_count(all);
                flows->trailing.announced = count;
                break;
            }
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s:%u: more flow lines than the %llu announced",
                             name,
                             line,
                             (unsigned long long)count);
            break;
        }
        if (n != 6)
        {
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s:%u: expected 6 fields 'src dst priority dst_port size_bytes "
                             "start_seconds', found %zu",
                             name,
                             line,
                             n);
            break;
        }
        if (flows->count == room)
        {
            room *= 2;
            tn_hpcc_flow* grown = realloc(flows->flow, room * sizeof(*grown));
            if (!grown)
            {
                s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
                break;
            }
            flows->flow = grown;
        }
        s = tn_hpcc_flow_line(name, line, f, topo, &flows->flow[flows->count], err);
        flows->count += s ? 0 : 1;
    }
    if (!s && flows->count != count)
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s:%u: file ends after %zu flows, %llu announced",
                         name,
                         line,
                         flows->count,
                         (unsigned long long)count);
    }
    if (s)
    {
        tn_hpcc_flows_destroy(flows);
        return s;
    }
    *out = flows;
    return TN_OK;
}

tn_status
tn_hpcc_flows_load(const char* path,
                   const tn_topology* topo,
                   int ignore_trailing,
                   tn_hpcc_flows** out,
                   tn_error* err)
{
    if (!out || !path)
    {
        return tn_error_set(err, TN_EINVAL, "tn_hpcc_flows_load: NULL argument");
    }
    *out = NULL;
    char* text = NULL;
    size_t len = 0;
    tn_status s = tn_hpcc_read(path, &text, &len, err);
    if (!s)
    {
        s = tn_hpcc_flows_load_text(text, path, topo, ignore_trailing, out, err);
    }
    free(text);
    return s;
}

void
tn_hpcc_flows_destroy(tn_hpcc_flows* flows)
{
    if (flows)
    {
        free(flows->flow);
        free(flows);
    }
}

/* ---- topology files ------------------------------------------------------------ */

tn_status
tn_hpcc_topology_load_text(const char* text,
                           const char* name,
                           int ignore_trailing,
                           tn_topology** out,
                           uint32_t* tor_count,
                           tn_hpcc_trailing* trailing,
                           tn_error* err)
{
    if (!out || !text || !tor_count || !trailing)
    {
        return tn_error_set(err, TN_EINVAL, "tn_hpcc_topology_load_text: NULL argument");
    }
    *out = NULL;
    *tor_count = 0;
    memset(trailing, 0, sizeof(*trailing));
    name = name ? name : "<text>";
    const tn_span all = tn_span_make(text, SIZE_MAX);
    tn_span rest = all;
    unsigned line = 0;
    tn_span f[4];
    size_t n = 0;
    uint64_t counts[4] = {0, 0, 0, 0};
    int parsed = tn_span_next_fields(&rest, &line, f, 4, &n) && (n == 3 || n == 4);
    for (size_t i = 0; parsed && i < n; i++)
    {
        parsed = tn_hpcc_span_uint(f[i], UINT32_MAX - 1, &counts[i]);
    }
    /* the core reads the 3-number header: the 4-number one is rewritten to it on its own
     * line, and the text after the announced links is cut off, so the core's errors keep
     * their line numbers */
    const char* header_end = text;
    const char* body = text;
    const char* cut = text + all.n;
    if (parsed)
    {
        header_end = f[n - 1].s + f[n - 1].n;
        body = header_end;
        if (n == 4)
        {
            if (counts[2] > counts[1])
            {
                return tn_error_set(err,
                                    TN_EPARSE,
                                    "%s:%u: N_ToRs %.*s is more than N_switches %.*s",
                                    name,
                                    line,
                                    TN_HPCC_FIELD(f[2]),
                                    TN_HPCC_FIELD(f[1]));
            }
            *tor_count = (uint32_t)counts[2];
            header_end = f[1].s + f[1].n; /* keep "N_nodes N_switches", then " N_links" */
            counts[2] = counts[3];
        }
    }
    if (parsed && ignore_trailing)
    {
        /* HPCC reads the switch line and N_links link lines, nothing after them */
        uint64_t wanted = counts[2] + (counts[1] > 0 ? 1 : 0);
        tn_span scan = rest;
        unsigned scan_line = line;
        size_t m;
        while (wanted > 0 && tn_span_next_fields(&scan, &scan_line, NULL, 0, &m))
        {
            wanted--;
        }
        const char* end_of_needed = scan.s;
        unsigned first = scan_line;
        if (wanted == 0 && tn_span_next_fields(&scan, &first, NULL, 0, &m))
        {
            trailing->first_line = first;
            trailing->last_line = tn_hpcc_line_count(all);
            trailing->announced = counts[2];
            cut = end_of_needed;
        }
    }
    size_t before = (size_t)(header_end - text);
    tn_span links = {"", 0};
    if (parsed && n == 4)
    {
        links = f[3];
    }
    size_t after = (size_t)(cut - body);
    char* copy = malloc(before + 1 + links.n + after + 1);
    if (!copy)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    char* p = copy;
    memcpy(p, text, before);
    p += before;
    if (links.n)
    {
        *p++ = ' ';
        memcpy(p, links.s, links.n);
        p += links.n;
    }
    memcpy(p, body, after);
    p[after] = '\0';
    tn_status s = tn_topology_load_text(copy, name, out, err);
    free(copy);
    if (s)
    {
        *tor_count = 0;
        memset(trailing, 0, sizeof(*trailing));
    }
    return s;
}

tn_status
tn_hpcc_topology_load(const char* path,
                      int ignore_trailing,
                      tn_topology** out,
                      uint32_t* tor_count,
                      tn_hpcc_trailing* trailing,
                      tn_error* err)
{
    if (!out || !path)
    {
        return tn_error_set(err, TN_EINVAL, "tn_hpcc_topology_load: NULL argument");
    }
    *out = NULL;
    char* text = NULL;
    size_t len = 0;
    tn_status s = tn_hpcc_read(path, &text, &len, err);
    if (!s)
    {
        s = tn_hpcc_topology_load_text(text, path, ignore_trailing, out, tor_count, trailing, err);
    }
    free(text);
    return s;
}

/* ---- config files -------------------------------------------------------------- */

tn_status
tn_hpcc_config_load_text(const char* text, const char* name, tn_hpcc_config** out, tn_error* err)
{
    if (!out || !text)
    {
        return tn_error_set(err, TN_EINVAL, "tn_hpcc_config_load_text: NULL argument");
    }
    *out = NULL;
    name = name ? name : "<text>";
    const size_t len = strlen(text);
    /* every field ends at a space or at the end: a copy with NULs there holds them all */
    tn_hpcc_config* c = calloc(1, sizeof(*c));
    size_t most = len / 2 + 1; /* fields and lines: each takes two bytes at least */
    if (c)
    {
        c->storage = malloc(len + 1);
        c->fields = malloc(most * sizeof(*c->fields));
        c->entry = malloc(most * sizeof(*c->entry));
    }
    if (!c || !c->storage || !c->fields || !c->entry)
    {
        tn_hpcc_config_destroy(c);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    memcpy(c->storage, text, len + 1);
    tn_span rest = tn_span_make(c->storage, len);
    tn_span line_text;
    unsigned line = 0;
    size_t used = 0;
    while (tn_span_next_line(&rest, &line_text))
    {
        line++;
        tn_span field;
        tn_span key = {NULL, 0};
        size_t first = used;
        while (tn_span_next_field(&line_text, &field))
        {
            if (!key.s)
            {
                key = field;
            }
            else
            {
                c->fields[used++] = field.s;
            }
        }
        /* end each field with a NUL where its space is (a space, the '\n' or the final NUL),
         * once the line is split: the splitter would not skip a NUL */
        if (key.s)
        {
            ((char*)key.s)[key.n] = '\0';
        }
        for (size_t i = first; i < used; i++)
        {
            char* p = (char*)c->fields[i];
            while (*p && !tn_text_is_space(*p))
            {
                p++;
            }
            *p = '\0';
        }
        if (!key.s || key.s[0] == '#')
        {
            used = first;
            continue;
        }
        for (size_t i = 0; i < c->count; i++)
        {
            if (strcmp(c->entry[i].key, key.s) == 0)
            {
                tn_status s = tn_error_set(err,
                                           TN_EPARSE,
                                           "%s:%u: %s: given twice (first on line %u)",
                                           name,
                                           line,
                                           key.s,
                                           c->entry[i].line);
                tn_hpcc_config_destroy(c);
                return s;
            }
        }
        tn_hpcc_entry* e = &c->entry[c->count++];
        e->key = key.s;
        e->values = c->fields + first; /* c->fields never moves: sized for the text */
        e->value_count = used - first;
        e->line = line;
    }
    *out = c;
    return TN_OK;
}

tn_status
tn_hpcc_config_load(const char* path, tn_hpcc_config** out, tn_error* err)
{
    if (!out || !path)
    {
        return tn_error_set(err, TN_EINVAL, "tn_hpcc_config_load: NULL argument");
    }
    *out = NULL;
    char* text = NULL;
    size_t len = 0;
    tn_status s = tn_hpcc_read(path, &text, &len, err);
    if (!s)
    {
        s = tn_hpcc_config_load_text(text, path, out, err);
    }
    free(text);
    return s;
}

void
tn_hpcc_config_destroy(tn_hpcc_config* config)
{
    if (config)
    {
        free(config->entry);
        free((void*)config->fields);
        free(config->storage);
        free(config);
    }
}
