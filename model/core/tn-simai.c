/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-simai: reader of SimAI / AICB workload files and the programs generated from them
 * (tn-simai.h has the contract and the sources).
 */
#include "tn-simai.h"

#include "tn-text.h"
#include "tn-units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest piece of input text quoted in messages. */
#define TN_SIMAI_SHOWN 40

/* Most fields a layer line has (HYBRID_CUSTOMIZED); one more is kept to quote it. */
#define TN_SIMAI_MAX_FIELDS 13

struct tn_simai_workload
{
    char* name;
    tn_simai_header header;
    tn_simai_layer* layers;
    uint32_t count;
    char* names; /* the layers' names, NUL-separated */
};

const char*
tn_simai_group_name(tn_simai_group g)
{
    static const char* const names[] = {"none", "tp", "dp", "ep", "dp_ep"};
    return (unsigned)g < sizeof(names) / sizeof(names[0]) ? names[g] : "?";
}

/* The six sizes of line 1, in the order of the header struct. */
static const char* const size_keys[6] = {
    "model_parallel_NPU_group:",
    "ep:",
    "pp:",
    "vpp:",
    "ga:",
    "all_gpus:",
};

static uint32_t*
size_slot(tn_simai_header* h, int k)
{
    uint32_t* const slots[6] = {&h->tp, &h->ep, &h->pp, &h->vpp, &h->ga, &h->all_gpus};
    return slots[k];
}

static tn_status
fail(tn_error* err, const char* file, unsigned line, tn_span token, const char* why)
{
    return tn_error_set(err,
                        TN_EPARSE,
                        "%s:%u: '%.*s': %s",
                        file,
                        line,
                        tn_span_shown_width(token, TN_SIMAI_SHOWN),
                        token.s,
                        why);
}

/* The value after a key of line 1: a count >= min. */
static tn_status
header_value(tn_span* rest,
             tn_span key,
             uint64_t min,
             uint64_t max,
             uint64_t* out,
             const char* file,
             tn_error* err)
{
    tn_span v;
    char buf[96];
    if (!tn_span_next_field(rest, &v))
    {
        return fail(err, file, 1, key, "has no value");
    }
    if (!tn_span_uint(v, max, out))
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:1: %.*s '%.*s' %s",
                            file,
                            tn_span_shown_width(key, TN_SIMAI_SHOWN),
                            key.s,
                            tn_span_shown_width(v, TN_SIMAI_SHOWN),
                            v.s,
                            tn_span_uint_problem(v, max, buf, sizeof(buf)));
    }
    if (*out < min)
    {
        return fail(err, file, 1, v, min ? "must be at least 1" : "must be 0");
    }
    return TN_OK;
}

static tn_status
parse_header(tn_span line, const char* file, tn_simai_header* h, tn_error* err)
{
    tn_span rest = line;
    tn_span tok;
    memset(h, 0, sizeof(*h));
    if (!tn_span_next_field(&rest, &tok))
    {
        return tn_error_set(err, TN_EPARSE, "%s:1: no policy (the file is empty)", file);
    }
    char pol[48];
    snprintf(pol, sizeof(pol), "%.*s", (int)(tok.n < 47 ? tok.n : 47), tok.s);
    tn_error ignored;
    if (tok.n > 47 || tn_parallelism_parse(pol, &h->policy, &ignored) != TN_OK ||
        (h->policy != TN_PARALLELISM_HYBRID_TRANSFORMER &&
         h->policy != TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD &&
         h->policy != TN_PARALLELISM_HYBRID_CUSTOMIZED))
    {
        return fail(err,
                    file,
                    1,
                    tok,
                    "a SimAI workload's policy is HYBRID_TRANSFORMER, "
                    "HYBRID_TRANSFORMER_FWD_IN_BCKWD or HYBRID_CUSTOMIZED (other ASTRA-sim "
                    "1.0 files: --workload)");
    }
    int seen[9] = {0};
    int pp_comm_seen = 0;
    while (tn_span_next_field(&rest, &tok))
    {
        int k = 0;
        while (k < 6 && !tn_span_eq(tok, size_keys[k]))
        {
            k++;
        }
        uint64_t v = 0;
        tn_status st;
        if (k < 6)
        {
            if (seen[k]++)
            {
                return fail(err, file, 1, tok, "is given twice");
            }
            st = header_value(&rest, tok, 1, UINT32_MAX - 1, &v, file, err);
            *size_slot(h, k) = (uint32_t)v;
        }
        else if (tn_span_eq(tok, "pp_comm") || tn_span_eq(tok, "pp_comm:"))
        {
            if (pp_comm_seen++)
            {
                return fail(err, file, 1, tok, "is given twice");
            }
            st = header_value(&rest, tok, 0, TN_BYTES_MAX, &h->pp_comm, file, err);
        }
        else if (tn_span_eq(tok, "checkpoints:") || tn_span_eq(tok, "checkpoint_initiates:"))
        {
            const int which = tn_span_eq(tok, "checkpoints:") ? 6 : 7;
            if (seen[which]++)
            {
                return fail(err, file, 1, tok, "is given twice");
            }
            st = header_value(&rest, tok, 0, 0, &v, file, err);
            if (st != TN_OK && v == 0)
            {
                return tn_error_set(err,
                                    TN_EPARSE,
                                    "%s:1: '%.*s': activation recomputation is not supported "
                                    "(only an empty list, 0)",
                                    file,
                                    (int)tok.n,
                                    tok.s);
            }
        }
        else
        {
            return fail(err, file, 1, tok, "unknown key of a SimAI workload's first line");
        }
        if (st != TN_OK)
        {
            return st;
        }
    }
    for (int k = 0; k < 6; k++)
    {
        if (!seen[k])
        {
            return fail(err, file, 1, tn_span_make(size_keys[k], SIZE_MAX), "is missing");
        }
    }
    if (h->pp > 1 && h->pp_comm == 0)
    {
        return fail(err,
                    file,
                    1,
                    tn_span_make("pp_comm", SIZE_MAX),
                    "is missing or 0, and pp > 1 needs the bytes of a pipeline transfer");
    }
    if (h->pp == 1 && h->pp_comm != 0)
    {
        return fail(err, file, 1, tn_span_make("pp_comm", SIZE_MAX), "is given but pp is 1");
    }
    return TN_OK;
}

static const char* const comm_bases[] = {
    "ALLREDUCEALLTOALL",
    "ALLREDUCE",
    "ALLGATHER",
    "REDUCESCATTER",
    "ALLTOALL",
};
static const tn_comm_type comm_base_types[] = {
    TN_COMM_ALLREDUCE_ALLTOALL,
    TN_COMM_ALLREDUCE,
    TN_COMM_ALLGATHER,
    TN_COMM_REDUCESCATTER,
    TN_COMM_ALLTOALL,
};

/* A comm type field of pass `pass`; 0 if it is not one. */
static int
parse_comm(tn_span f, int pass, tn_simai_pass* out)
{
    if (tn_span_eq(f, "NONE"))
    {
        out->comm = TN_COMM_NONE;
        out->group = TN_SIMAI_GROUP_NONE;
        return 1;
    }
    for (size_t b = 0; b < sizeof(comm_bases) / sizeof(comm_bases[0]); b++)
    {
        const size_t n = strlen(comm_bases[b]);
        if (f.n < n || memcmp(f.s, comm_bases[b], n) != 0)
        {
            continue;
        }
        const tn_span suffix = tn_span_make(f.s + n, f.n - n);
        out->comm = comm_base_types[b];
        if (suffix.n == 0)
        {
            out->group = pass == TN_SIMAI_WG ? TN_SIMAI_GROUP_DP : TN_SIMAI_GROUP_TP;
            return 1;
        }
        if (tn_span_eq(suffix, "_EP"))
        {
            out->group = TN_SIMAI_GROUP_EP;
            return 1;
        }
        if (tn_span_eq(suffix, "_DP_EP"))
        {
            out->group = TN_SIMAI_GROUP_DP_EP;
            return 1;
        }
    }
    return 0;
}

static const char* const field_names[TN_SIMAI_MAX_FIELDS] = {
    "name",
    "dependency",
    "fwd_compute",
    "fwd_comm_type",
    "fwd_comm_bytes",
    "ig_compute",
    "ig_comm_type",
    "ig_comm_bytes",
    "wg_compute",
    "wg_comm_type",
    "wg_comm_bytes",
    "update_time",
    "policy",
};

static tn_status
field_fail(tn_error* err, const char* file, unsigned line, int i, tn_span f, const char* why)
{
    return tn_error_set(err,
                        TN_EPARSE,
                        "%s:%u: field %d (%s) '%.*s': %s",
                        file,
                        line,
                        i + 1,
                        field_names[i < TN_SIMAI_MAX_FIELDS ? i : TN_SIMAI_MAX_FIELDS - 1],
                        tn_span_shown_width(f, TN_SIMAI_SHOWN),
                        f.s,
                        why);
}

static tn_status
parse_layer(tn_simai_workload* wl,
            const tn_span* f,
            size_t n,
            unsigned line,
            tn_simai_layer* out,
            tn_error* err)
{
    const char* file = wl->name;
    const size_t want = wl->header.policy == TN_PARALLELISM_HYBRID_CUSTOMIZED ? 13 : 12;
    char buf[96];
    if (n != want)
    {
        if (n > want)
        {
            return field_fail(err, file, line, (int)want, f[want], "extra field");
        }
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: %zu fields, a layer line has %zu (field %zu, %s, is missing)",
                            file,
                            line,
                            n,
                            want,
                            n + 1,
                            field_names[n]);
    }
    memset(out, 0, sizeof(*out));
    out->line = line;
    out->policy = wl->header.policy;
    tn_span dep = f[1];
    uint64_t unused;
    if (dep.n > 1 && dep.s[0] == '-')
    {
        dep = tn_span_make(dep.s + 1, dep.n - 1);
    }
    if (!tn_span_u64(dep, &unused))
    {
        return field_fail(err, file, line, 1, f[1], "is not an integer");
    }
    for (int p = 0; p < TN_SIMAI_PASSES; p++)
    {
        const int c = 2 + 3 * p;
        tn_simai_pass* pass = &out->pass[p];
        if (!tn_span_uint(f[c], TN_WORKLOAD_MAX_CYCLES, &pass->compute_ns))
        {
            return field_fail(err,
                              file,
                              line,
                              c,
                              f[c],
                              tn_span_uint_problem(f[c], TN_WORKLOAD_MAX_CYCLES, buf, sizeof(buf)));
        }
        if (!parse_comm(f[c + 1], p, pass))
        {
            return field_fail(err,
                              file,
                              line,
                              c + 1,
                              f[c + 1],
                              "unknown comm type (NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, "
                              "ALLTOALL or ALLREDUCEALLTOALL, bare or with _EP or _DP_EP)");
        }
        if (!tn_span_uint(f[c + 2], TN_BYTES_MAX, &pass->bytes))
        {
            return field_fail(err,
                              file,
                              line,
                              c + 2,
                              f[c + 2],
                              tn_span_uint_problem(f[c + 2], TN_BYTES_MAX, buf, sizeof(buf)));
        }
    }
    if (!tn_span_uint(f[11], TN_WORKLOAD_MAX_CYCLES, &out->update_ns))
    {
        return field_fail(err,
                          file,
                          line,
                          11,
                          f[11],
                          tn_span_uint_problem(f[11], TN_WORKLOAD_MAX_CYCLES, buf, sizeof(buf)));
    }
    if (want == 13)
    {
        char pol[48];
        tn_error ignored;
        snprintf(pol, sizeof(pol), "%.*s", (int)(f[12].n < 47 ? f[12].n : 47), f[12].s);
        if (f[12].n > 47 || tn_parallelism_parse(pol, &out->policy, &ignored) != TN_OK ||
            out->policy == TN_PARALLELISM_HYBRID_CUSTOMIZED)
        {
            return field_fail(err,
                              file,
                              line,
                              12,
                              f[12],
                              "unknown layer policy (an ASTRA-sim 1.0 parallelism but "
                              "HYBRID_CUSTOMIZED)");
        }
    }
    return TN_OK;
}

tn_status
tn_simai_parse(const char* text, const char* name, tn_simai_workload** out, tn_error* err)
{
    *out = NULL;
    name = name ? name : "<simai>";
    tn_simai_workload* wl = calloc(1, sizeof(*wl));
    const size_t len = strlen(text);
    if (!wl || !(wl->name = malloc(strlen(name) + 1)) || !(wl->names = malloc(len + 1)))
    {
        tn_simai_destroy(wl);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    strcpy(wl->name, name);
    tn_span rest = tn_span_make(text, len);
    tn_span line;
    tn_status st = TN_OK;
    if (!tn_span_next_line(&rest, &line))
    {
        st = tn_error_set(err, TN_EPARSE, "%s:1: the file is empty", name);
    }
    if (st == TN_OK)
    {
        st = parse_header(line, name, &wl->header, err);
    }
    uint64_t declared = 0;
    tn_span f[TN_SIMAI_MAX_FIELDS + 1];
    size_t n = 0;
    unsigned lineno = 2;
    if (st == TN_OK)
    {
        tn_span l2;
        if (!tn_span_next_line(&rest, &l2))
        {
            st = tn_error_set(err, TN_EPARSE, "%s:2: the layer count is missing", name);
        }
        else if (!tn_span_uint(tn_span_trim(l2), UINT32_MAX - 1, &declared) || declared == 0)
        {
            st = fail(err, name, 2, tn_span_trim(l2), "the layer count is not an integer >= 1");
        }
    }
    size_t used = 0;
    while (st == TN_OK && tn_span_next_fields(&rest, &lineno, f, TN_SIMAI_MAX_FIELDS + 1, &n))
    {
        if (wl->count == declared)
        {
            st = tn_error_set(err,
                              TN_EPARSE,
                              "%s:%u: more layer lines than the %llu line 2 declares",
                              name,
                              lineno,
                              (unsigned long long)declared);
            break;
        }
        tn_simai_layer* grown = realloc(wl->layers, (wl->count + 1) * sizeof(*grown));
        if (!grown)
        {
            st = tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
            break;
        }
        wl->layers = grown;
        st =
            parse_layer(wl, f, n > TN_SIMAI_MAX_FIELDS + 1 ? 0 : n, lineno, &grown[wl->count], err);
        if (st == TN_OK)
        {
            memcpy(wl->names + used, f[0].s, f[0].n);
            wl->names[used + f[0].n] = '\0';
            grown[wl->count].name = (const char*)(uintptr_t)used;
            used += f[0].n + 1;
            wl->count++;
        }
    }
    if (st == TN_OK && wl->count != declared)
    {
        st = tn_error_set(err,
                          TN_EPARSE,
                          "%s:%u: %u layer lines, line 2 declares %llu",
                          name,
                          lineno,
                          wl->count,
                          (unsigned long long)declared);
    }
    if (st != TN_OK)
    {
        tn_simai_destroy(wl);
        return st;
    }
    for (uint32_t i = 0; i < wl->count; i++)
    {
        wl->layers[i].name = wl->names + (uintptr_t)wl->layers[i].name;
    }
    *out = wl;
    return TN_OK;
}

tn_status
tn_simai_load_file(const char* path, tn_simai_workload** out, tn_error* err)
{
    char* text = NULL;
    size_t len = 0;
    *out = NULL;
    tn_status st = tn_text_read_file(path, &text, &len, err);
    if (st != TN_OK)
    {
        return st;
    }
    if (strlen(text) != len)
    {
        free(text);
        return tn_error_set(err, TN_EPARSE, "%s: the file holds a NUL byte", path);
    }
    st = tn_simai_parse(text, path, out, err);
    free(text);
    return st;
}

void
tn_simai_destroy(tn_simai_workload* wl)
{
    if (wl)
    {
        free(wl->name);
        free(wl->names);
        free(wl->layers);
        free(wl);
    }
}

const char*
tn_simai_name(const tn_simai_workload* wl)
{
    return wl->name;
}

const tn_simai_header*
tn_simai_header_of(const tn_simai_workload* wl)
{
    return &wl->header;
}

uint32_t
tn_simai_layer_count(const tn_simai_workload* wl)
{
    return wl->count;
}

const tn_simai_layer*
tn_simai_layer_at(const tn_simai_workload* wl, uint32_t i)
{
    return i < wl->count ? &wl->layers[i] : NULL;
}

tn_status
tn_simai_check(const tn_simai_workload* wl, uint32_t npus, tn_error* err)
{
    const tn_simai_header* h = &wl->header;
    if (h->all_gpus != npus)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:1: 'all_gpus:' %u does not match the topology's %u NPUs",
                            wl->name,
                            h->all_gpus,
                            npus);
    }
    if ((uint64_t)h->tp * h->pp > h->all_gpus || h->all_gpus % (h->tp * h->pp) != 0)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:1: 'all_gpus:' %u is not a multiple of "
                            "model_parallel_NPU_group %u * pp %u",
                            wl->name,
                            h->all_gpus,
                            h->tp,
                            h->pp);
    }
    const uint32_t d = h->all_gpus / (h->tp * h->pp);
    if (d % h->ep != 0)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:1: 'ep:' %u does not divide the %u data-parallel ranks",
                            wl->name,
                            h->ep,
                            d);
    }
    if (h->vpp > wl->count)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:1: 'vpp:' %u chunks of %u layer lines",
                            wl->name,
                            h->vpp,
                            wl->count);
    }
    return TN_OK;
}

uint32_t
tn_simai_rank_of(const tn_simai_header* h, uint32_t t, uint32_t p, uint32_t d)
{
    return t + h->tp * (p + h->pp * d);
}
