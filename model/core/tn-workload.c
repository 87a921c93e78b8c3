/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-workload: reader and writer of ASTRA-sim 1.0 text workloads (contract and
 * sources in tn-workload.h; the groups of their parallelisms in tn-workload-group.c).
 */
#include "tn-workload.h"

#include "tn-array.h"
#include "tn-text.h"
#include "tn-topology.h"
#include "tn-workload-impl.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Longest piece of input text quoted in messages. */
#define TN_WL_SHOWN 40

/* Most fields a line may have (HYBRID_CUSTOMIZED layers); one more is stored to
   quote the first extra field. */
#define TN_WL_MAX_FIELDS 13

/* Fields of line 1 kept (more is an error anyway). */
#define TN_WL_HEADER_FIELDS 16

static const char* const tn_parallelism_names[TN_PARALLELISM_COUNT] = {
    "DATA",
    "HYBRID_TRANSFORMER",
    "HYBRID_DLRM",
    "MODEL",
    "HYBRID_DATA_MODEL",
    "HYBRID_MODEL_DATA",
    "HYBRID_CUSTOMIZED",
    "MICRO",
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
};

#define TN_PARALLELISM_LIST                                                                        \
    "DATA, HYBRID_TRANSFORMER, HYBRID_DLRM, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, "         \
    "HYBRID_CUSTOMIZED, MICRO or HYBRID_TRANSFORMER_FWD_IN_BCKWD"

/* The keys of line 1 that introduce a list of layers (HYBRID_TRANSFORMER_FWD_IN_BCKWD). */
static const char* const tn_wl_list_keys[2] = {"checkpoints:", "checkpoint_initiates:"};
static const char* const tn_wl_list_names[2] = {"checkpoints", "checkpoint_initiates"};

static const char* const tn_comm_names[TN_COMM_TYPE_COUNT] = {
    "NONE",
    "ALLREDUCE",
    "ALLGATHER",
    "REDUCESCATTER",
    "ALLTOALL",
    "ALLREDUCEALLTOALL",
};

#define TN_COMM_LIST "NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL or ALLREDUCEALLTOALL"

/* Names of the layer fields, index = field number - 1. */
static const char* const tn_layer_field_names[TN_WL_MAX_FIELDS] = {
    "name",
    "reserved",
    "fwd_compute",
    "fwd_comm_type",
    "fwd_comm_bytes",
    "ig_compute",
    "ig_comm_type",
    "ig_comm_bytes",
    "wg_compute",
    "wg_comm_type",
    "wg_comm_bytes",
    "update_delay",
    "parallelism",
};

/* ---- names ------------------------------------------------------------------------ */

const char*
tn_parallelism_name(tn_parallelism p)
{
    return (unsigned)p < TN_PARALLELISM_COUNT ? tn_parallelism_names[p] : "?";
}

static int
tn_parallelism_find(tn_span s, tn_parallelism* p)
{
    for (int i = 0; i < TN_PARALLELISM_COUNT; i++)
    {
        if (tn_span_eq(s, tn_parallelism_names[i]))
        {
            *p = (tn_parallelism)i;
            return 1;
        }
    }
    return 0;
}

tn_status
tn_parallelism_parse(const char* name, tn_parallelism* p, tn_error* err)
{
    if (!name || !p)
    {
        return tn_error_set(err, TN_EINVAL, "parallelism: %s is NULL", name ? "p" : "name");
    }
    if (!tn_parallelism_find(tn_span_make(name, SIZE_MAX), p))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "parallelism: unknown name '%s' (expected " TN_PARALLELISM_LIST ")",
                            name);
    }
    return TN_OK;
}

const char*
tn_comm_type_name(tn_comm_type t)
{
    return (unsigned)t < TN_COMM_TYPE_COUNT ? tn_comm_names[t] : "?";
}

static int
tn_comm_find(tn_span s, tn_comm_type* t)
{
    for (int i = 0; i < TN_COMM_TYPE_COUNT; i++)
    {
        if (tn_span_eq(s, tn_comm_names[i]))
        {
            *t = (tn_comm_type)i;
            return 1;
        }
    }
    return 0;
}

tn_status
tn_comm_type_parse(const char* name, tn_comm_type* t, tn_error* err)
{
    if (!name || !t)
    {
        return tn_error_set(err, TN_EINVAL, "comm type: %s is NULL", name ? "t" : "name");
    }
    if (!tn_comm_find(tn_span_make(name, SIZE_MAX), t))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "comm type: unknown name '%s' (expected " TN_COMM_LIST ")",
                            name);
    }
    return TN_OK;
}

uint32_t
tn_comm_type_collectives(tn_comm_type t, tn_collective out[2])
{
    switch (t)
    {
    case TN_COMM_ALLREDUCE:
        out[0] = TN_COLL_ALL_REDUCE;
        return 1;
    case TN_COMM_ALLGATHER:
        out[0] = TN_COLL_ALL_GATHER;
        return 1;
    case TN_COMM_REDUCESCATTER:
        out[0] = TN_COLL_REDUCE_SCATTER;
        return 1;
    case TN_COMM_ALLTOALL:
        out[0] = TN_COLL_ALL_TO_ALL;
        return 1;
    case TN_COMM_ALLREDUCE_ALLTOALL:
        out[0] = TN_COLL_ALL_REDUCE;
        out[1] = TN_COLL_ALL_TO_ALL;
        return 2;
    default:
        return 0;
    }
}

const char*
tn_pass_name(tn_pass pass)
{
    static const char* const names[TN_PASS_COUNT] = {"fwd", "ig", "wg"};
    return (unsigned)pass < TN_PASS_COUNT ? names[pass] : "?";
}

const char*
tn_group_name(tn_group g)
{
    static const char* const names[4] = {"none", "all", "inner", "outer"};
    return (unsigned)g < 4 ? names[g] : "?";
}

/* ---- accessors -------------------------------------------------------------------- */

void
tn_workload_destroy(tn_workload* wl)
{
    if (!wl)
    {
        return;
    }
    for (uint32_t i = 0; i < wl->count; i++)
    {
        free((char*)wl->layers[i].name);
    }
    free(wl->layers);
    free(wl->list[0]);
    free(wl->list[1]);
    free(wl->recompute);
    free(wl->is_checkpoint);
    free(wl->name);
    free(wl);
}

const char*
tn_workload_name(const tn_workload* wl)
{
    return wl->name;
}

tn_parallelism
tn_workload_parallelism(const tn_workload* wl)
{
    return wl->parallelism;
}

uint32_t
tn_workload_model_parallel_group(const tn_workload* wl)
{
    return wl->group;
}

uint32_t
tn_workload_dlrm_last_bottom_layer(const tn_workload* wl)
{
    return wl->dlrm_bottom;
}

int
tn_workload_is_checkpoint(const tn_workload* wl, uint32_t layer)
{
    assert(wl && layer < wl->count);
    return wl->is_checkpoint[layer];
}

uint32_t
tn_workload_recompute_from(const tn_workload* wl, uint32_t layer)
{
    assert(wl && layer < wl->count);
    return wl->recompute[layer];
}

uint32_t
tn_workload_layer_count(const tn_workload* wl)
{
    return wl->count;
}

const tn_workload_layer*
tn_workload_layer_at(const tn_workload* wl, uint32_t i)
{
    assert(wl && i < wl->count);
    return &wl->layers[i];
}

/* ---- reader ----------------------------------------------------------------------- */

/** Line cursor over the text. */
typedef struct tn_wl_reader
{
    const char* name;
    tn_span rest;  /* text after the line last returned */
    unsigned line; /* number of the line last returned */
    tn_error* err;
} tn_wl_reader;

/* "NAME:LINE: field K (FIELD): " + the message; field_name NULL: no "(FIELD)"; field 0:
   "NAME:LINE: FIELD: " (a key of line 1 as a whole). */
static tn_status
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    tn_wl_fail(const tn_wl_reader* r,
               unsigned line,
               size_t field,
               const char* field_name,
               const char* format,
               ...)
{
    char what[TN_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, format);
    vsnprintf(what, sizeof(what), format, ap);
    va_end(ap);
    if (field == 0) /* a key of line 1 as a whole */
    {
        return tn_error_set(r->err, TN_EPARSE, "%s:%u: %s: %s", r->name, line, field_name, what);
    }
    return tn_error_set(r->err,
                        TN_EPARSE,
                        "%s:%u: field %zu%s%s%s: %s",
                        r->name,
                        line,
                        field,
                        field_name ? " (" : "",
                        field_name ? field_name : "",
                        field_name ? ")" : "",
                        what);
}

static int
tn_wl_all_digits(tn_span a)
{
    for (size_t i = 0; i < a.n; i++)
    {
        if (a.s[i] < '0' || a.s[i] > '9')
        {
            return 0;
        }
    }
    return a.n > 0;
}

/* Unsigned value <= max of field `field` (1-based) of the current line. */
static tn_status
tn_wl_uint(const tn_wl_reader* r,
           size_t field,
           const char* field_name,
           tn_span a,
           uint64_t max,
           uint64_t* out)
{
    if (tn_span_uint(a, max, out))
    {
        return TN_OK;
    }
    int w = tn_span_shown_width(a, TN_WL_SHOWN);
    if (a.n > 1 && a.s[0] == '-' && tn_wl_all_digits(tn_span_make(a.s + 1, a.n - 1)))
    {
        return tn_wl_fail(r,
                          r->line,
                          field,
                          field_name,
                          "'%.*s' is negative: expected a non-negative integer",
                          w,
                          a.s);
    }
    if (tn_wl_all_digits(a))
    {
        return tn_wl_fail(r,
                          r->line,
                          field,
                          field_name,
                          "'%.*s' is too large (at most %llu)",
                          w,
                          a.s,
                          (unsigned long long)max);
    }
    return tn_wl_fail(r,
                      r->line,
                      field,
                      field_name,
                      "'%.*s' is not a non-negative integer",
                      w,
                      a.s);
}

/* Signed 64-bit value of field `field`. */
static tn_status
tn_wl_int(const tn_wl_reader* r, size_t field, const char* field_name, tn_span a, int64_t* out)
{
    int neg = a.n > 0 && a.s[0] == '-';
    tn_span digits = neg ? tn_span_make(a.s + 1, a.n - 1) : a;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v;
    if (tn_span_uint(digits, limit, &v))
    {
        *out = !neg ? (int64_t)v : v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
        return TN_OK;
    }
    int w = tn_span_shown_width(a, TN_WL_SHOWN);
    if (tn_wl_all_digits(digits))
    {
        return tn_wl_fail(r,
                          r->line,
                          field,
                          field_name,
                          "'%.*s' is out of the signed 64-bit range",
                          w,
                          a.s);
    }
    return tn_wl_fail(r, r->line, field, field_name, "'%.*s' is not an integer", w, a.s);
}

/* The fields f[0..n) of line 1 (see tn_wl_header). */
static tn_status
tn_wl_header_fields(tn_wl_reader* r, tn_workload* wl, const tn_span* f, size_t n)
{
    if (!tn_parallelism_find(f[0], &wl->parallelism))
    {
        return tn_wl_fail(r,
                          r->line,
                          1,
                          "parallelism",
                          "unknown parallelism '%.*s' (expected " TN_PARALLELISM_LIST ")",
                          tn_span_shown_width(f[0], TN_WL_SHOWN),
                          f[0].s);
    }
    const int lists = wl->parallelism == TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
    size_t k = 1;
    if (wl->parallelism == TN_PARALLELISM_HYBRID_DLRM && k < n &&
        !tn_span_eq(f[k], "model_parallel_NPU_group:"))
    {
        uint64_t v;
        tn_status s = tn_wl_uint(r, k + 1, "LAST_BOTTOM_LAYER", f[k], UINT32_MAX - 1, &v);
        if (s)
        {
            return s;
        }
        wl->dlrm_bottom = (uint32_t)v;
        k++;
    }
    while (k < n)
    {
        int list = -1;
        for (int i = 0; lists && i < 2; i++)
        {
            list = tn_span_eq(f[k], tn_wl_list_keys[i]) ? i : list;
        }
        if (list < 0 && !tn_span_eq(f[k], "model_parallel_NPU_group:"))
        {
            return tn_wl_fail(r,
                              r->line,
                              k + 1,
                              NULL,
                              "unexpected '%.*s' after %s (expected 'model_parallel_NPU_group: "
                              "N'%s)",
                              tn_span_shown_width(f[k], TN_WL_SHOWN),
                              f[k].s,
                              tn_parallelism_name(wl->parallelism),
                              wl->parallelism == TN_PARALLELISM_HYBRID_DLRM
                                  ? " or the last bottom layer, before it"
                              : lists ? ", 'checkpoints: K LAYER...' or 'checkpoint_initiates: M "
                                        "LAYER...'"
                                      : "");
        }
        const char* key = list < 0 ? "model_parallel_NPU_group" : tn_wl_list_names[list];
        if (list < 0 ? wl->group != 0 : wl->list_given[list])
        {
            return tn_wl_fail(r, r->line, k + 1, key, "given twice");
        }
        if (k + 1 >= n)
        {
            return tn_wl_fail(r, r->line, k + 2, key, "missing value after '%s:'", key);
        }
        uint64_t v;
        tn_status s = tn_wl_uint(r, k + 2, key, f[k + 1], UINT32_MAX - 1, &v);
        if (s)
        {
            return s;
        }
        if (list < 0)
        {
            if (v == 0)
            {
                return tn_wl_fail(r, r->line, k + 2, key, "must be >= 1");
            }
            wl->group = (uint32_t)v;
            k += 2;
            continue;
        }
        /* a count, then that many layer indices (checked against the layer count later) */
        if (v > n - k - 2)
        {
            return tn_wl_fail(r,
                              r->line,
                              k + 2,
                              key,
                              "announces %llu layers, line 1 has %zu more fields",
                              (unsigned long long)v,
                              n - k - 2);
        }
        wl->list_given[list] = 1;
        wl->list_count[list] = (uint32_t)v;
        wl->list[list] = malloc((v ? v : 1) * sizeof(uint32_t));
        if (!wl->list[list])
        {
            return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->name);
        }
        for (uint32_t i = 0; i < v; i++)
        {
            uint64_t layer;
            if ((s = tn_wl_uint(r, k + 3 + i, key, f[k + 2 + i], UINT32_MAX - 1, &layer)))
            {
                return s;
            }
            wl->list[list][i] = (uint32_t)layer;
        }
        k += 2 + (size_t)v;
    }
    return TN_OK;
}

/* Per layer: is it a checkpoint, and which layers are recomputed before its ig
   (ASTRA-sim's Forward_In_BackPass). Refuses the inputs where ASTRA-sim would read
   before layer 0 or skip layers. */
static tn_status
tn_wl_recompute(tn_wl_reader* r, tn_workload* wl, unsigned header_line)
{
    wl->recompute = malloc(wl->count * sizeof(*wl->recompute));
    wl->is_checkpoint = calloc(wl->count, 1);
    if (!wl->recompute || !wl->is_checkpoint)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->name);
    }
    for (int list = 0; list < 2; list++)
    {
        for (uint32_t i = 0; i < wl->list_count[list]; i++)
        {
            if (wl->list[list][i] >= wl->count)
            {
                return tn_wl_fail(r,
                                  header_line,
                                  0,
                                  tn_wl_list_names[list],
                                  "%u is not a layer index (the workload has %u layers)",
                                  wl->list[list][i],
                                  wl->count);
            }
        }
    }
    for (uint32_t i = 0; i < wl->list_count[0]; i++)
    {
        wl->is_checkpoint[wl->list[0][i]] = 1;
    }
    for (uint32_t i = 0; i < wl->count; i++)
    {
        wl->recompute[i] = TN_WORKLOAD_NONE;
    }
    for (uint32_t i = 0; i < wl->list_count[1]; i++)
    {
        const uint32_t layer = wl->list[1][i];
        uint32_t from = layer;
        while (from > 0 && !wl->is_checkpoint[from])
        {
            from--;
        }
        const char* why = !wl->is_checkpoint[from] ? "has no checkpoint at or below it"
                          : from == layer
                              ? "is itself a checkpoint: its forward pass is kept, nothing to "
                                "recompute"
                              : NULL;
        if (why)
        {
            return tn_wl_fail(r, header_line, 0, "checkpoint_initiates", "layer %u %s", layer, why);
        }
        wl->recompute[layer] = from;
    }
    /* ASTRA-sim's recomputation stops at the next initiating layer: one between a
       layer and its checkpoint would end it early and skip the layers above it */
    for (uint32_t layer = 0; layer < wl->count; layer++)
    {
        for (uint32_t j = wl->recompute[layer] + 1;
             wl->recompute[layer] != TN_WORKLOAD_NONE && j < layer;
             j++)
        {
            if (wl->recompute[j] != TN_WORKLOAD_NONE)
            {
                return tn_wl_fail(r,
                                  header_line,
                                  0,
                                  "checkpoint_initiates",
                                  "layers %u and %u both recompute from checkpoint %u (ASTRA-sim "
                                  "would skip layers %u..%u)",
                                  j,
                                  layer,
                                  wl->recompute[layer],
                                  j + 1,
                                  layer);
            }
        }
    }
    return TN_OK;
}

/* Line 1: PARALLELISM [LAST_BOTTOM_LAYER] [model_parallel_NPU_group: N]
   [checkpoints: K l1..lK] [checkpoint_initiates: M l1..lM] (the lists for
   HYBRID_TRANSFORMER_FWD_IN_BCKWD only). The line has as many fields as it likes. */
static tn_status
tn_wl_header(tn_wl_reader* r, tn_workload* wl)
{
    tn_span save = r->rest;
    unsigned save_line = r->line;
    size_t n;
    if (!tn_span_next_fields(&r->rest, &r->line, NULL, 0, &n))
    {
        return tn_wl_fail(r,
                          1,
                          1,
                          "parallelism",
                          "empty file: expected a parallelism (" TN_PARALLELISM_LIST ") on line 1");
    }
    tn_span* f = malloc(n * sizeof(*f));
    if (!f)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->name);
    }
    r->rest = save;
    r->line = save_line;
    tn_span_next_fields(&r->rest, &r->line, f, n, &n);
    tn_status s = tn_wl_header_fields(r, wl, f, n);
    free(f);
    return s;
}

/* Fill layer from the fields f[0..nfields) of the current line. */
static tn_status
tn_wl_layer(tn_wl_reader* r, const tn_workload* wl, const tn_span* f, tn_workload_layer* layer)
{
    tn_status s;
    memset(layer, 0, sizeof(*layer));
    layer->line = r->line;
    layer->parallelism = wl->parallelism;
    if ((s = tn_wl_int(r, 2, tn_layer_field_names[1], f[1], &layer->reserved)))
    {
        return s;
    }
    for (int p = 0; p < TN_PASS_COUNT; p++)
    {
        size_t base = 2 + 3 * (size_t)p; /* index of the compute field */
        tn_workload_pass_spec* ps = &layer->pass[p];
        s = tn_wl_uint(r,
                       base + 1,
                       tn_layer_field_names[base],
                       f[base],
                       TN_WORKLOAD_MAX_CYCLES,
                       &ps->compute_cycles);
        if (s)
        {
            return s;
        }
        if (!tn_comm_find(f[base + 1], &ps->comm))
        {
            return tn_wl_fail(r,
                              r->line,
                              base + 2,
                              tn_layer_field_names[base + 1],
                              "unknown collective '%.*s' (expected " TN_COMM_LIST ")",
                              tn_span_shown_width(f[base + 1], TN_WL_SHOWN),
                              f[base + 1].s);
        }
        s = tn_wl_uint(r,
                       base + 3,
                       tn_layer_field_names[base + 2],
                       f[base + 2],
                       TN_BYTES_MAX,
                       &ps->comm_bytes);
        if (s)
        {
            return s;
        }
    }
    s = tn_wl_uint(r,
                   12,
                   tn_layer_field_names[11],
                   f[11],
                   TN_WORKLOAD_MAX_CYCLES,
                   &layer->update_delay);
    if (s)
    {
        return s;
    }
    if (wl->parallelism == TN_PARALLELISM_HYBRID_CUSTOMIZED)
    {
        if (!tn_parallelism_find(f[12], &layer->parallelism) ||
            layer->parallelism == TN_PARALLELISM_HYBRID_CUSTOMIZED ||
            layer->parallelism == TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD)
        {
            return tn_wl_fail(r,
                              r->line,
                              13,
                              tn_layer_field_names[12],
                              "'%.*s' is not a layer parallelism (expected DATA, "
                              "HYBRID_TRANSFORMER, HYBRID_DLRM, MODEL, HYBRID_DATA_MODEL, "
                              "HYBRID_MODEL_DATA or MICRO)",
                              tn_span_shown_width(f[12], TN_WL_SHOWN),
                              f[12].s);
        }
    }
    char* name = malloc(f[0].n + 1);
    if (!name)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->name);
    }
    memcpy(name, f[0].s, f[0].n);
    name[f[0].n] = '\0';
    layer->name = name;
    return TN_OK;
}

static tn_status
tn_wl_load(tn_wl_reader* r, tn_workload* wl)
{
    tn_status s = tn_wl_header(r, wl);
    if (s)
    {
        return s;
    }
    unsigned header_line = r->line;

    tn_span f[TN_WL_MAX_FIELDS + 1];
    size_t n;
    if (!tn_span_next_fields(&r->rest, &r->line, f, 2, &n))
    {
        return tn_wl_fail(r,
                          r->line + 1,
                          1,
                          "layer count",
                          "missing: the file ends after line %u",
                          header_line);
    }
    if (n > 1)
    {
        return tn_wl_fail(r,
                          r->line,
                          2,
                          NULL,
                          "unexpected '%.*s' after the layer count (one field expected)",
                          tn_span_shown_width(f[1], TN_WL_SHOWN),
                          f[1].s);
    }
    uint64_t declared;
    if ((s = tn_wl_uint(r, 1, "layer count", f[0], UINT32_MAX - 1, &declared)))
    {
        return s;
    }
    if (declared == 0)
    {
        return tn_wl_fail(r, r->line, 1, "layer count", "must be >= 1");
    }
    unsigned count_line = r->line;
    if (wl->dlrm_bottom != TN_WORKLOAD_NONE && wl->dlrm_bottom >= declared)
    {
        return tn_wl_fail(r,
                          header_line,
                          2,
                          "LAST_BOTTOM_LAYER",
                          "%u is not a layer index (the layer count on line %u is %llu)",
                          wl->dlrm_bottom,
                          count_line,
                          (unsigned long long)declared);
    }

    size_t want = wl->parallelism == TN_PARALLELISM_HYBRID_CUSTOMIZED ? 13 : 12;
    while (wl->count < declared)
    {
        if (!tn_span_next_fields(&r->rest, &r->line, f, TN_WL_MAX_FIELDS + 1, &n))
        {
            return tn_wl_fail(r,
                              r->line + 1,
                              1,
                              tn_layer_field_names[0],
                              "unexpected end of file: line %u declares %llu layers, the file "
                              "has %u",
                              count_line,
                              (unsigned long long)declared,
                              wl->count);
        }
        if (n < want)
        {
            return tn_wl_fail(r,
                              r->line,
                              n + 1,
                              tn_layer_field_names[n],
                              "missing: layer line has %zu fields, expected %zu",
                              n,
                              want);
        }
        if (n > want)
        {
            tn_parallelism dummy;
            int looks_custom = want == 12 && tn_parallelism_find(f[12], &dummy);
            return tn_wl_fail(
                r,
                r->line,
                want + 1,
                NULL,
                "extra field '%.*s': layer line has %zu fields, expected %zu%s",
                tn_span_shown_width(f[want], TN_WL_SHOWN),
                f[want].s,
                n,
                want,
                looks_custom ? " (a per-layer parallelism needs HYBRID_CUSTOMIZED on line 1)" : "");
        }
        tn_workload_layer* layers =
            tn_array_grow(wl->layers, &wl->cap, (size_t)wl->count + 1, sizeof(*layers), 16);
        if (!layers)
        {
            return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->name);
        }
        wl->layers = layers;
        if ((s = tn_wl_layer(r, wl, f, &wl->layers[wl->count])))
        {
            return s;
        }
        wl->count++;
    }
    if (tn_span_next_fields(&r->rest, &r->line, f, 1, &n))
    {
        return tn_wl_fail(r,
                          r->line,
                          1,
                          tn_layer_field_names[0],
                          "extra line '%.*s' after the %u layers declared on line %u",
                          tn_span_shown_width(f[0], TN_WL_SHOWN),
                          f[0].s,
                          wl->count,
                          count_line);
    }
    return tn_wl_recompute(r, wl, header_line);
}

tn_status
tn_workload_parse(const char* text, size_t len, const char* name, tn_workload** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_workload_parse: out is NULL");
    }
    *out = NULL;
    if (!text && len > 0)
    {
        return tn_error_set(err, TN_EINVAL, "tn_workload_parse: text is NULL");
    }
    name = name ? name : "<text>";
    const char* nul = len ? memchr(text, '\0', len) : NULL;
    if (nul)
    {
        unsigned line = 1 + (unsigned)tn_span_count(tn_span_make(text, (size_t)(nul - text)), '\n');
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: contains a NUL byte (not a text file)",
                            name,
                            line);
    }
    tn_workload* wl = calloc(1, sizeof(*wl));
    if (!wl || !(wl->name = malloc(strlen(name) + 1)))
    {
        free(wl);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    strcpy(wl->name, name);
    wl->dlrm_bottom = TN_WORKLOAD_NONE;
    tn_error local;
    tn_wl_reader r = {wl->name, tn_span_make(text ? text : "", len), 0, err ? err : &local};
    tn_status s = tn_wl_load(&r, wl);
    if (s)
    {
        tn_workload_destroy(wl);
        return s;
    }
    *out = wl;
    return TN_OK;
}

tn_status
tn_workload_load_file(const char* path, tn_workload** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_workload_load_file: out is NULL");
    }
    *out = NULL;
    if (!path)
    {
        return tn_error_set(err, TN_EINVAL, "tn_workload_load_file: path is NULL");
    }
    char* buf = NULL;
    size_t len = 0;
    tn_status s = tn_text_read_file(path, &buf, &len, err);
    if (!s)
    {
        s = tn_workload_parse(buf, len, path, out, err);
    }
    free(buf);
    return s;
}

/* ---- writer ----------------------------------------------------------------------- */

tn_status
tn_workload_write(const tn_workload* wl, FILE* file, tn_error* err)
{
    if (!wl || !file)
    {
        return tn_error_set(err, TN_EINVAL, "tn_workload_write: %s is NULL", wl ? "file" : "wl");
    }
    int bad = fputs(tn_parallelism_name(wl->parallelism), file) == EOF;
    if (wl->dlrm_bottom != TN_WORKLOAD_NONE)
    {
        bad |= fprintf(file, " %u", wl->dlrm_bottom) < 0;
    }
    if (wl->group)
    {
        bad |= fprintf(file, " model_parallel_NPU_group: %u", wl->group) < 0;
    }
    for (int list = 0; list < 2; list++)
    {
        if (wl->list_given[list])
        {
            bad |= fprintf(file, " %s %u", tn_wl_list_keys[list], wl->list_count[list]) < 0;
            for (uint32_t i = 0; i < wl->list_count[list]; i++)
            {
                bad |= fprintf(file, " %u", wl->list[list][i]) < 0;
            }
        }
    }
    bad |= fprintf(file, "\n%u\n", wl->count) < 0;
    for (uint32_t i = 0; i < wl->count && !bad; i++)
    {
        const tn_workload_layer* l = &wl->layers[i];
        bad |= fprintf(file, "%s %lld", l->name, (long long)l->reserved) < 0;
        for (int p = 0; p < TN_PASS_COUNT; p++)
        {
            bad |= fprintf(file,
                           " %llu %s %llu",
                           (unsigned long long)l->pass[p].compute_cycles,
                           tn_comm_type_name(l->pass[p].comm),
                           (unsigned long long)l->pass[p].comm_bytes) < 0;
        }
        bad |= fprintf(file, " %llu", (unsigned long long)l->update_delay) < 0;
        if (wl->parallelism == TN_PARALLELISM_HYBRID_CUSTOMIZED)
        {
            bad |= fprintf(file, " %s", tn_parallelism_name(l->parallelism)) < 0;
        }
        bad |= fputc('\n', file) == EOF;
    }
    if (bad || ferror(file))
    {
        return tn_error_set(err, TN_EIO, "tn_workload_write: write error");
    }
    return TN_OK;
}
