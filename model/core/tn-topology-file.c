/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-topology-file: reader and writer of the HPCC-style topology text format
 * (format in tn-topology.h).
 */
#include "tn-array.h"
#include "tn-text.h"
#include "tn-topology.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Longest piece of input text quoted in messages. */
#define TN_FILE_SHOWN 40

/** Line cursor over the text. */
typedef struct tn_reader
{
    const char* name;
    tn_span rest;  /* text after the line last returned */
    unsigned line; /* number of the line last returned */
} tn_reader;

static const char* const tn_link_field_names[5] = {"src", "dst", "rate", "delay", "error_rate"};

/** A checked link line, kept until the graph is built. */
typedef struct tn_file_link
{
    uint32_t a, b;
    uint64_t rate;
    uint64_t delay;
    double error_rate;
    unsigned line;
} tn_file_link;

/* GPU types of a SimAI topology file's header (SimAI's GPUType). */
static const char* const tn_simai_gpu_types[] = {"A100", "A800", "H100", "H800", "H20"};

/* Insert id into the set (size a power of two > its count); 0 if it was there. */
static int
tn_id_set_insert(uint32_t* set, size_t size, uint32_t id)
{
    size_t h = ((size_t)id * 2654435761u) & (size - 1);
    while (set[h] != UINT32_MAX)
    {
        if (set[h] == id)
        {
            return 0;
        }
        h = (h + 1) & (size - 1);
    }
    set[h] = id;
    return 1;
}

/*
 * A SimAI file's NVSwitches (is_switch 2) are its servers' intra-server switches: the GPUs
 * (the other nodes, in id order) fill servers of per_server, and an NVSwitch links GPUs of
 * one server only, so no path between servers crosses one.
 */
static tn_status
tn_check_nvswitches(const char* name,
                    unsigned header_line,
                    uint32_t n_nodes,
                    uint32_t n_switches,
                    uint32_t per_server,
                    const uint8_t* is_switch,
                    const tn_file_link* lk,
                    uint32_t n_links,
                    tn_error* err)
{
    const uint32_t gpus = n_nodes - n_switches;
    if (gpus % per_server != 0)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: %u GPUs (nodes - nvswitch_num - switch_num) do not fill "
                            "servers of gpus_per_server = %u",
                            name,
                            header_line,
                            gpus,
                            per_server);
    }
    uint32_t* rank = malloc((size_t)n_nodes * sizeof(*rank));
    uint32_t* server_of = malloc((size_t)n_nodes * sizeof(*server_of));
    if (!rank || !server_of)
    {
        free(rank);
        free(server_of);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    for (uint32_t v = 0, k = 0; v < n_nodes; v++)
    {
        rank[v] = is_switch[v] ? UINT32_MAX : k++;
        server_of[v] = UINT32_MAX;
    }
    tn_status s = TN_OK;
    for (uint32_t i = 0; i < n_links && !s; i++)
    {
        for (int e = 0; e < 2 && !s; e++)
        {
            const uint32_t nvs = e ? lk[i].b : lk[i].a;
            const uint32_t gpu = e ? lk[i].a : lk[i].b;
            if (is_switch[nvs] != 2)
            {
                continue;
            }
            if (is_switch[gpu])
            {
                s = tn_error_set(err,
                                 TN_EPARSE,
                                 "%s:%u: link %u: NVSwitch %u links switch %u (an NVSwitch links "
                                 "the GPUs of its server only)",
                                 name,
                                 lk[i].line,
                                 i,
                                 nvs,
                                 gpu);
                break;
            }
            const uint32_t server = rank[gpu] / per_server;
            if (server_of[nvs] != UINT32_MAX && server_of[nvs] != server)
            {
                s = tn_error_set(err,
                                 TN_EPARSE,
                                 "%s:%u: link %u: NVSwitch %u links GPUs of servers %u and %u "
                                 "(gpus_per_server = %u)",
                                 name,
                                 lk[i].line,
                                 i,
                                 nvs,
                                 server_of[nvs],
                                 server,
                                 per_server);
            }
            server_of[nvs] = server;
        }
    }
    free(rank);
    free(server_of);
    return s;
}

/** What a file's header claims; every count is checked against the text that follows. */
typedef struct tn_file_header
{
    uint32_t n_nodes;
    uint32_t n_switches; /* SimAI: nvswitch_num + switch_num */
    uint32_t n_links;
    uint32_t per_server; /* SimAI's gpus_per_server; 0 in the HPCC format */
    uint32_t n_nvswitch; /* SimAI: the first n_nvswitch switch ids are NVSwitches */
    int simai;
    unsigned line;
} tn_file_header;

/* The SimAI header's own fields (hv: nodes gpus_per_server nvswitch_num switch_num links,
 * gpu_type the sixth field) into *h. */
static tn_status
tn_read_simai_header(const char* name,
                     const uint32_t hv[5],
                     tn_span gpu_type,
                     tn_file_header* h,
                     tn_error* err)
{
    size_t g = 0;
    while (g < sizeof(tn_simai_gpu_types) / sizeof(tn_simai_gpu_types[0]) &&
           !tn_span_eq(gpu_type, tn_simai_gpu_types[g]))
    {
        g++;
    }
    if (g == sizeof(tn_simai_gpu_types) / sizeof(tn_simai_gpu_types[0]))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: gpu_type '%.*s' is not A100, A800, H100, H800 or H20",
                            name,
                            h->line,
                            tn_span_shown_width(gpu_type, TN_FILE_SHOWN),
                            gpu_type.s);
    }
    if (hv[1] == 0)
    {
        return tn_error_set(err, TN_EPARSE, "%s:%u: gpus_per_server must be >= 1", name, h->line);
    }
    if (hv[2] > UINT32_MAX - 1 - hv[3])
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: nvswitch_num + switch_num is too large",
                            name,
                            h->line);
    }
    h->per_server = hv[1];
    h->n_nvswitch = hv[2];
    h->n_switches = hv[2] + hv[3];
    h->n_links = hv[4];
    return TN_OK;
}

/* The header line ('N_nodes N_switches N_links', or SimAI's six fields) into *h, its counts
 * checked against each other. */
static tn_status
tn_read_header(tn_reader* r, tn_file_header* h, tn_error* err)
{
    tn_span f[7]; /* a SimAI header has 6 fields; one more to quote an extra one */
    size_t n;
    const char* name = r->name;
    if (!tn_span_next_fields(&r->rest, &r->line, f, 7, &n))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: empty file: expected 'N_nodes N_switches N_links'",
                            name,
                            r->line + 1);
    }
    static const char* const head[3] = {"N_nodes", "N_switches", "N_links"};
    static const char* const simai_head[5] = {"nodes",
                                              "gpus_per_server",
                                              "nvswitch_num",
                                              "switch_num",
                                              "links"};
    const int simai = n == 6;
    if (n != 3 && !simai)
    {
        if (n < 3)
        {
            return tn_error_set(
                err,
                TN_EPARSE,
                "%s:%u: header: missing %s (expected 'N_nodes N_switches N_links', got "
                "%zu fields)",
                name,
                r->line,
                head[n],
                n);
        }
        return tn_error_set(
            err,
            TN_EPARSE,
            "%s:%u: header: extra field '%.*s' (expected 'N_nodes N_switches N_links', or "
            "SimAI's 'nodes gpus_per_server nvswitch_num switch_num links gpu_type')",
            name,
            r->line,
            tn_span_shown_width(f[n > 6 ? 6 : 3], TN_FILE_SHOWN),
            f[n > 6 ? 6 : 3].s);
    }
    uint32_t hv[5];
    for (int i = 0; i < (simai ? 5 : 3); i++)
    {
        if (!tn_span_u32(f[i], &hv[i]))
        {
            char why[64];
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: %s '%.*s' %s",
                                name,
                                r->line,
                                simai ? simai_head[i] : head[i],
                                tn_span_shown_width(f[i], TN_FILE_SHOWN),
                                f[i].s,
                                tn_span_u32_problem(f[i], why, sizeof(why)));
        }
    }
    memset(h, 0, sizeof(*h));
    h->n_nodes = hv[0];
    h->n_switches = hv[1];
    h->n_links = hv[2];
    h->simai = simai;
    h->line = r->line;
    if (simai)
    {
        tn_status s = tn_read_simai_header(name, hv, f[5], h, err);
        if (s)
        {
            return s;
        }
    }
    if (h->n_nodes == 0)
    {
        return tn_error_set(err, TN_EPARSE, "%s:%u: N_nodes must be >= 1", name, h->line);
    }
    if (h->n_switches > h->n_nodes)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: N_switches %u is larger than N_nodes %u",
                            name,
                            h->line,
                            h->n_switches,
                            h->n_nodes);
    }
    if (h->n_links > (UINT32_MAX - 2) / 2)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: N_links %u is too large (at most %u cables)",
                            name,
                            h->line,
                            h->n_links,
                            (UINT32_MAX - 2) / 2);
    }
    return TN_OK;
}

/* The line of switch ids into sw (room for min(n_switches, fields of the line) + 1 ids), each
 * in range and listed once; set (size a power of two >= 2 x that, all UINT32_MAX) finds the
 * repeated ones. cap is the number of fields the line holds (bounded by the text). */
static tn_status
tn_read_switch_ids(tn_reader* r,
                   const tn_file_header* h,
                   size_t cap,
                   uint32_t* sw,
                   uint32_t* set,
                   size_t set_size,
                   tn_error* err)
{
    const char* name = r->name;
    const uint32_t n_switches = h->n_switches;
    size_t n;
    /* at most the fields the line really has (plus one to quote an extra one) */
    tn_span* ids = malloc((cap + 1) * sizeof(*ids));
    if (!ids)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    tn_status s = TN_OK;
    if (!tn_span_next_fields(&r->rest, &r->line, ids, cap + 1, &n))
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s:%u: missing the line of %u switch ids",
                         name,
                         r->line + 1,
                         n_switches);
    }
    else if (n != n_switches)
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s:%u: switch ids: expected N_switches = %u ids, got %zu%s%.*s%s",
                         name,
                         r->line,
                         n_switches,
                         n,
                         n > n_switches ? " (extra field '" : "",
                         n > n_switches ? tn_span_shown_width(ids[n_switches], TN_FILE_SHOWN) : 0,
                         n > n_switches ? ids[n_switches].s : "",
                         n > n_switches ? "')" : "");
    }
    for (uint32_t i = 0; i < n_switches && !s; i++)
    {
        uint32_t id;
        if (!tn_span_u32(ids[i], &id))
        {
            char why[64];
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s:%u: switch id %u '%.*s' %s",
                             name,
                             r->line,
                             i,
                             tn_span_shown_width(ids[i], TN_FILE_SHOWN),
                             ids[i].s,
                             tn_span_u32_problem(ids[i], why, sizeof(why)));
        }
        else if (id >= h->n_nodes)
        {
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s:%u: switch id %u '%.*s' is out of range [0, N_nodes = %u)",
                             name,
                             r->line,
                             i,
                             tn_span_shown_width(ids[i], TN_FILE_SHOWN),
                             ids[i].s,
                             h->n_nodes);
        }
        else if (!tn_id_set_insert(set, set_size, id))
        {
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s:%u: switch id %u '%.*s' is listed twice",
                             name,
                             r->line,
                             i,
                             tn_span_shown_width(ids[i], TN_FILE_SHOWN),
                             ids[i].s);
        }
        else
        {
            sw[i] = id;
        }
    }
    free(ids);
    return s;
}

/* A units parser's failure at a link field, reported as a parse error. */
static tn_status
tn_link_units_error(tn_error* err)
{
    if (err)
    {
        err->code = TN_EPARSE;
    }
    return TN_EPARSE;
}

/* Link line i (fields f, n of them, on line r->line) into *out: two ends in range and
 * distinct, a rate > 0, a delay and an error rate in [0, 1]. */
static tn_status
tn_read_link(const tn_reader* r,
             const tn_file_header* h,
             uint32_t i,
             const tn_span* f,
             size_t n,
             tn_file_link* out,
             tn_error* err)
{
    const char* name = r->name;
    if (n < 5)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: link %u: missing field %s (expected 'src dst rate delay "
                            "error_rate', got %zu fields)",
                            name,
                            r->line,
                            i,
                            tn_link_field_names[n],
                            n);
    }
    if (n > 5)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: link %u: extra field '%.*s' after error_rate (expected 'src "
                            "dst rate delay error_rate')",
                            name,
                            r->line,
                            i,
                            tn_span_shown_width(f[5], TN_FILE_SHOWN),
                            f[5].s);
    }
    uint32_t ends[2];
    for (int k = 0; k < 2; k++)
    {
        if (!tn_span_u32(f[k], &ends[k]))
        {
            char why[64];
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: link %u: %s '%.*s' %s",
                                name,
                                r->line,
                                i,
                                tn_link_field_names[k],
                                tn_span_shown_width(f[k], TN_FILE_SHOWN),
                                f[k].s,
                                tn_span_u32_problem(f[k], why, sizeof(why)));
        }
        if (ends[k] >= h->n_nodes)
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: link %u: %s %u is out of range [0, N_nodes = %u)",
                                name,
                                r->line,
                                i,
                                tn_link_field_names[k],
                                ends[k],
                                h->n_nodes);
        }
    }
    if (ends[0] == ends[1])
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: link %u: src == dst == %u (self loop)",
                            name,
                            r->line,
                            i,
                            ends[0]);
    }
    char what[256];
    uint64_t rate, delay;
    snprintf(what, sizeof(what), "%s:%u: link %u: rate", name, r->line, i);
    if (tn_units_parse_rate(f[2].s, f[2].n, what, &rate, err))
    {
        return tn_link_units_error(err);
    }
    if (rate == 0)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: link %u: rate '%.*s' must be > 0",
                            name,
                            r->line,
                            i,
                            tn_span_shown_width(f[2], TN_FILE_SHOWN),
                            f[2].s);
    }
    snprintf(what, sizeof(what), "%s:%u: link %u: delay", name, r->line, i);
    if (tn_units_parse_time(f[3].s, f[3].n, what, &delay, err))
    {
        return tn_link_units_error(err);
    }
    double er;
    if (!tn_span_double(f[4], &er) || !(er >= 0.0 && er <= 1.0))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: link %u: error_rate '%.*s' is not a number in [0, 1]",
                            name,
                            r->line,
                            i,
                            tn_span_shown_width(f[4], TN_FILE_SHOWN),
                            f[4].s);
    }
    tn_file_link one = {ends[0], ends[1], rate, delay, er, r->line};
    *out = one;
    return TN_OK;
}

/* The N_links link lines into *lk (grown here; the caller frees it, also on failure), then
 * nothing but blank lines and comments to the end. */
static tn_status
tn_read_links(tn_reader* r, const tn_file_header* h, tn_file_link** lk, tn_error* err)
{
    const char* name = r->name;
    tn_span f[6];
    size_t n;
    size_t lk_cap = 0;
    for (uint32_t i = 0; i < h->n_links; i++)
    {
        if (!tn_span_next_fields(&r->rest, &r->line, f, 6, &n))
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: unexpected end of file: N_links = %u but only %u link "
                                "lines",
                                name,
                                r->line + 1,
                                h->n_links,
                                i);
        }
        tn_file_link one;
        tn_status s = tn_read_link(r, h, i, f, n, &one, err);
        if (s)
        {
            return s;
        }
        tn_file_link* grown = tn_array_grow(*lk, &lk_cap, (size_t)i + 1, sizeof(**lk), 64);
        if (!grown)
        {
            return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
        }
        *lk = grown;
        (*lk)[i] = one;
    }
    if (tn_span_next_fields(&r->rest, &r->line, f, 6, &n))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: extra content '%.*s' after the N_links = %u link lines",
                            name,
                            r->line,
                            tn_span_shown_width(f[0], TN_FILE_SHOWN),
                            f[0].s,
                            h->n_links);
    }
    return TN_OK;
}

/* The graph of checked text: nodes (sw the switch ids), links lk, SimAI's NVSwitches checked. */
static tn_status
tn_build_file_graph(const char* name,
                    const tn_file_header* h,
                    const uint32_t* sw,
                    const tn_file_link* lk,
                    tn_topology** out,
                    tn_error* err)
{
    tn_topology* t = NULL;
    uint8_t* is_switch = calloc(h->n_nodes, 1);
    tn_status s = is_switch ? tn_topology_create(&t, err)
                            : tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    for (uint32_t k = 0; k < h->n_switches && !s; k++)
    {
        is_switch[sw[k]] = k < h->n_nvswitch ? 2 : 1;
    }
    if (!s && h->simai)
    {
        s = tn_check_nvswitches(name,
                                h->line,
                                h->n_nodes,
                                h->n_switches,
                                h->per_server,
                                is_switch,
                                lk,
                                h->n_links,
                                err);
    }
    for (uint32_t v = 0; v < h->n_nodes && !s; v++)
    {
        s = tn_topology_add_node(t, is_switch[v] ? TN_NODE_SWITCH : TN_NODE_NPU, NULL, err);
    }
    for (uint32_t i = 0; i < h->n_links && !s; i++)
    {
        uint32_t ab, ba;
        s = tn_topology_add_link(t, lk[i].a, lk[i].b, lk[i].rate, lk[i].delay, 0, &ab, &ba, err);
        if (!s)
        {
            s = tn_topology_set_link_error_rate(t, ab, lk[i].error_rate, err);
        }
        if (!s)
        {
            s = tn_topology_set_link_error_rate(t, ba, lk[i].error_rate, err);
        }
    }
    free(is_switch);
    *out = t;
    return s;
}

/* One custom dimension: the smallest per-NPU outgoing capacity, the largest link latency. */
static tn_status
tn_set_file_dim(tn_topology* t, tn_error* err)
{
    uint64_t bw = UINT64_MAX;
    uint64_t lat = 0;
    for (uint32_t rank = 0; rank < tn_topology_npu_count(t); rank++)
    {
        uint32_t deg;
        const uint32_t* outl = tn_topology_out_links(t, tn_topology_npu_node(t, rank), &deg);
        uint64_t sum = 0;
        for (uint32_t p = 0; p < deg; p++)
        {
            uint64_t rt = tn_topology_link(t, outl[p])->rate_bps;
            sum = sum > UINT64_MAX - rt ? UINT64_MAX : sum + rt;
        }
        bw = sum < bw ? sum : bw;
    }
    for (uint32_t l = 0; l < tn_topology_link_count(t); l++)
    {
        uint64_t x = tn_topology_link(t, l)->latency_ns;
        lat = x > lat ? x : lat;
    }
    tn_dim_info dim = {TN_DIM_CUSTOM, tn_topology_npu_count(t), bw, lat};
    return tn_topology_set_dims(t, 1, &dim, err);
}

/* Parse; on success *out is the new topology. The text is read and checked whole (header,
 * switch ids, link lines) before the graph is built. */
static tn_status
tn_load(tn_reader* r, tn_topology** out, tn_error* err)
{
    const char* name = r->name;
    tn_file_header h;
    tn_status s = tn_read_header(r, &h, err);
    if (s)
    {
        return s;
    }
    /* The header only claims sizes (a 14-byte file may claim 4e9 switches or nodes):
     * every allocation below is bounded by what the text holds. */
    tn_span look = r->rest;
    unsigned look_line = r->line;
    size_t first_fields = 0;
    if (!tn_span_next_fields(&look, &look_line, NULL, 0, &first_fields))
    {
        first_fields = 0;
    }
    /* switch ids: a list and an open-addressing set (UINT32_MAX = empty, never an id) */
    size_t held = first_fields < h.n_switches ? first_fields : h.n_switches;
    uint32_t* sw = malloc((held + 1) * sizeof(*sw));
    size_t set_size = 2;
    while (set_size < 2 * held)
    {
        set_size *= 2;
    }
    uint32_t* set = malloc(set_size * sizeof(*set));
    tn_file_link* lk = NULL;
    if (!sw || !set)
    {
        free(sw);
        free(set);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    memset(set, 0xff, set_size * sizeof(*set));
    if (h.n_switches > 0)
    {
        s = tn_read_switch_ids(r, &h, held, sw, set, set_size, err);
    }
    free(set);
    if (!s)
    {
        /* the link lines, checked and kept; the graph is built once the text is known good */
        s = tn_read_links(r, &h, &lk, err);
    }
    /* every node must be named by the text: a header alone must not decide the
     * allocation (a 14-byte "200000000 0 0" took 4.2 GB before) */
    uint64_t named = 2 * (uint64_t)h.n_links + h.n_switches;
    if (!s && h.n_nodes > 1 && h.n_nodes > named)
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s:%u: N_nodes %u but the file can name at most %" PRIu64
                         " nodes (2 per link line of N_links = %u, plus %u switch ids): every "
                         "node needs a link",
                         name,
                         h.line,
                         h.n_nodes,
                         named,
                         h.n_links,
                         h.n_switches);
    }
    tn_topology* t = NULL;
    if (!s)
    {
        s = tn_build_file_graph(name, &h, sw, lk, &t, err);
    }
    free(sw);
    free(lk);
    if (!s && tn_topology_npu_count(t) > 0)
    {
        s = tn_set_file_dim(t, err);
    }
    if (!s)
    {
        s = tn_topology_set_name(t, name, err);
    }
    if (s)
    {
        tn_topology_destroy(t);
        return s;
    }
    *out = t;
    return TN_OK;
}

tn_status
tn_topology_load_text(const char* text, const char* name, tn_topology** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_load_text: out is NULL");
    }
    *out = NULL;
    if (!text)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_load_text: text is NULL");
    }
    tn_reader r = {name ? name : "<text>", tn_span_make(text, SIZE_MAX), 0};
    return tn_load(&r, out, err);
}

tn_status
tn_topology_load_file(const char* path, tn_topology** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_load_file: out is NULL");
    }
    *out = NULL;
    if (!path)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_load_file: path is NULL");
    }
    char* buf = NULL;
    size_t len = 0;
    tn_status s = tn_text_read_file(path, &buf, &len, err);
    if (s)
    {
        return s;
    }
    if (memchr(buf, '\0', len))
    {
        free(buf);
        return tn_error_set(err, TN_EPARSE, "%s: contains a NUL byte (not a text file)", path);
    }
    tn_reader r = {path, tn_span_make(buf, len), 0};
    s = tn_load(&r, out, err);
    free(buf);
    return s;
}

/* Print v with the largest unit of `units` that divides it exactly. */
static int
tn_print_scaled(FILE* file, uint64_t v, const char* const* units, const uint64_t* scales, int n)
{
    for (int i = 0; i < n; i++)
    {
        if (v != 0 && v % scales[i] == 0)
        {
            return fprintf(file, "%llu%s", (unsigned long long)(v / scales[i]), units[i]);
        }
    }
    return fprintf(file, "%llu%s", (unsigned long long)v, units[n - 1]);
}

tn_status
tn_topology_write(const tn_topology* topo, FILE* file, tn_error* err)
{
    if (!topo || !file)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_write: %s is NULL",
                            topo ? "file" : "topo");
    }
    static const char* const rate_units[5] = {"Tbps", "Gbps", "Mbps", "Kbps", "bps"};
    static const uint64_t rate_scales[5] = {1000000000000ULL,
                                            1000000000ULL,
                                            1000000ULL,
                                            1000ULL,
                                            1ULL};
    static const char* const time_units[3] = {"ms", "us", "ns"};
    static const uint64_t time_scales[3] = {1000000ULL, 1000ULL, 1ULL};
    uint32_t nodes = tn_topology_node_count(topo);
    uint32_t links = tn_topology_link_count(topo);
    int bad = fprintf(file, "%u %u %u\n", nodes, tn_topology_switch_count(topo), links / 2) < 0;
    int first = 1;
    for (uint32_t v = 0; v < nodes && !bad; v++)
    {
        if (tn_topology_node_kind(topo, v) == TN_NODE_SWITCH)
        {
            bad |= fprintf(file, first ? "%u" : " %u", v) < 0;
            first = 0;
        }
    }
    bad |= fputc('\n', file) == EOF;
    for (uint32_t l = 0; l < links && !bad; l += 2)
    {
        const tn_link* k = tn_topology_link(topo, l);
        bad |= fprintf(file, "%u %u ", k->src, k->dst) < 0;
        bad |= tn_print_scaled(file, k->rate_bps, rate_units, rate_scales, 5) < 0;
        bad |= fputc(' ', file) == EOF;
        bad |= tn_print_scaled(file, k->latency_ns, time_units, time_scales, 3) < 0;
        bad |= fprintf(file, " %.17g\n", k->error_rate) < 0;
    }
    if (bad || ferror(file))
    {
        return tn_error_set(err, TN_EIO, "tn_topology_write: write error");
    }
    return TN_OK;
}
