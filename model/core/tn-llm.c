/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-llm: the descriptions (model, GPU, training, layout), their files, their checks, and the
 * per-layer arithmetic. The programs are generated in tn-llm-gen.c.
 */
#include "tn-llm.h"

#include "tn-text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const DIM_NAMES[TN_LLM_DIMS] = {"tp", "ep", "dp", "pp"};

void
tn_llm_model_init(tn_llm_model* model)
{
    memset(model, 0, sizeof(*model));
    model->bytes_per_element = 2;
    model->moe_layer_interval = 1;
}

void
tn_llm_gpu_init(tn_llm_gpu* gpu)
{
    memset(gpu, 0, sizeof(*gpu));
    gpu->flops_efficiency = 1.0;
    gpu->memory_efficiency = 1.0;
}

void
tn_llm_training_init(tn_llm_training* training)
{
    memset(training, 0, sizeof(*training));
    training->micro_batch = 1;
}

void
tn_llm_layout_init(tn_llm_layout* layout)
{
    memset(layout, 0, sizeof(*layout));
    for (int d = 0; d < TN_LLM_DIMS; d++)
    {
        layout->size[d] = 1;
        layout->order[d] = (uint8_t)d;
    }
    layout->vpp = 1;
    layout->schedule = TN_LLM_SCHEDULE_1F1B;
}

const char*
tn_llm_dim_name(int dim)
{
    return dim >= 0 && dim < TN_LLM_DIMS ? DIM_NAMES[dim] : "?";
}

tn_status
tn_llm_parse_recompute(const char* s, tn_llm_recompute* out, tn_error* err)
{
    static const char* const names[] = {"none", "selective", "full"};
    for (int i = 0; i < 3; i++)
    {
        if (strcmp(s, names[i]) == 0)
        {
            *out = (tn_llm_recompute)i;
            return TN_OK;
        }
    }
    return tn_error_set(err, TN_EINVAL, "recompute: '%s' is not none, selective or full", s);
}

const char*
tn_llm_recompute_name(tn_llm_recompute r)
{
    return r == TN_LLM_RECOMPUTE_FULL        ? "full"
           : r == TN_LLM_RECOMPUTE_SELECTIVE ? "selective"
                                             : "none";
}

tn_status
tn_llm_parse_schedule(const char* s, tn_llm_schedule* out, tn_error* err)
{
    if (strcmp(s, "1f1b") == 0 || strcmp(s, "interleaved") == 0)
    {
        *out = TN_LLM_SCHEDULE_1F1B;
        return TN_OK;
    }
    if (strcmp(s, "gpipe") == 0)
    {
        *out = TN_LLM_SCHEDULE_GPIPE;
        return TN_OK;
    }
    return tn_error_set(err, TN_EINVAL, "schedule: '%s' is not 1f1b, interleaved or gpipe", s);
}

const char*
tn_llm_schedule_name(const tn_llm_layout* layout)
{
    if (layout->schedule == TN_LLM_SCHEDULE_GPIPE)
    {
        return "gpipe";
    }
    return layout->vpp > 1 ? "interleaved" : "1f1b";
}

tn_status
tn_llm_parse_order(const char* s, uint8_t order[TN_LLM_DIMS], tn_error* err)
{
    tn_span rest = tn_span_make(s, SIZE_MAX);
    int seen[TN_LLM_DIMS] = {0};
    int n = 0;
    tn_span piece;
    while (rest.n > 0)
    {
        size_t cut = 0;
        while (cut < rest.n && rest.s[cut] != ',' && rest.s[cut] != '-')
        {
            cut++;
        }
        piece = tn_span_trim(tn_span_make(rest.s, cut));
        rest = cut < rest.n ? tn_span_make(rest.s + cut + 1, rest.n - cut - 1)
                            : tn_span_make(rest.s + cut, 0);
        int dim = -1;
        for (int d = 0; d < TN_LLM_DIMS; d++)
        {
            if (tn_span_eq(piece, DIM_NAMES[d]))
            {
                dim = d;
            }
        }
        if (dim < 0 || seen[dim] || n >= TN_LLM_DIMS)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "order: '%s' must name tp, ep, dp and pp once each, innermost "
                                "first (e.g. tp,ep,dp,pp)",
                                s);
        }
        seen[dim] = 1;
        order[n++] = (uint8_t)dim;
    }
    if (n != TN_LLM_DIMS)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "order: '%s' must name tp, ep, dp and pp once each, innermost first "
                            "(e.g. tp,ep,dp,pp)",
                            s);
    }
    return TN_OK;
}

/* ---- description files ------------------------------------------------------------- */

typedef enum
{
    KEY_U32,
    KEY_DOUBLE,
    KEY_BOOL,
    KEY_TEXT
} key_kind;

typedef struct
{
    const char* key;
    key_kind kind;
    size_t offset;
    int required;
    double min; /* numbers: smallest value allowed */
} key_spec;

#define MODEL_KEY(k, kind, req, min)                                                               \
    {                                                                                              \
#k, kind, offsetof(tn_llm_model, k), req, min                                              \
    }
static const key_spec MODEL_KEYS[] = {
    MODEL_KEY(name, KEY_TEXT, 0, 0),
    MODEL_KEY(layers, KEY_U32, 1, 1),
    MODEL_KEY(hidden, KEY_U32, 1, 1),
    MODEL_KEY(ffn_hidden, KEY_U32, 1, 1),
    MODEL_KEY(heads, KEY_U32, 1, 1),
    MODEL_KEY(kv_heads, KEY_U32, 0, 1),
    MODEL_KEY(seq_len, KEY_U32, 1, 1),
    MODEL_KEY(vocab, KEY_U32, 1, 0),
    MODEL_KEY(bytes_per_element, KEY_U32, 0, 1),
    MODEL_KEY(gated_ffn, KEY_BOOL, 0, 0),
    MODEL_KEY(experts, KEY_U32, 0, 0),
    MODEL_KEY(top_k, KEY_U32, 0, 1),
    MODEL_KEY(expert_ffn_hidden, KEY_U32, 0, 1),
    MODEL_KEY(shared_experts, KEY_U32, 0, 0),
    MODEL_KEY(moe_layer_interval, KEY_U32, 0, 1),
    MODEL_KEY(first_dense_layers, KEY_U32, 0, 0),
};

#define GPU_KEY(k, kind, req, min)                                                                 \
    {                                                                                              \
#k, kind, offsetof(tn_llm_gpu, k), req, min                                                \
    }
static const key_spec GPU_KEYS[] = {
    GPU_KEY(name, KEY_TEXT, 0, 0),
    GPU_KEY(tflops_fp32, KEY_DOUBLE, 0, 0),
    GPU_KEY(tflops_bf16, KEY_DOUBLE, 1, 0),
    GPU_KEY(tflops_fp8, KEY_DOUBLE, 0, 0),
    GPU_KEY(memory_gbps, KEY_DOUBLE, 1, 0),
    GPU_KEY(flops_efficiency, KEY_DOUBLE, 0, 0),
    GPU_KEY(memory_efficiency, KEY_DOUBLE, 0, 0),
};

/* Parse one value into the field of spec; 0 when its form is wrong. */
static int
parse_value(const key_spec* spec, tn_span value, void* base)
{
    char* field = (char*)base + spec->offset;
    switch (spec->kind)
    {
    case KEY_TEXT: {
        if (value.n < 2 || value.s[0] != '"' || value.s[value.n - 1] != '"' || value.n - 2 >= 64)
        {
            return 0;
        }
        memcpy(field, value.s + 1, value.n - 2);
        field[value.n - 2] = '\0';
        return memchr(field, '"', value.n - 2) == NULL;
    }
    case KEY_BOOL:
        if (tn_span_eq(value, "true") || tn_span_eq(value, "false"))
        {
            *(int*)field = tn_span_eq(value, "true");
            return 1;
        }
        return 0;
    case KEY_U32: {
        uint64_t v = 0;
        if (!tn_span_u64(value, &v) || v > UINT32_MAX || (double)v < spec->min)
        {
            return 0;
        }
        *(uint32_t*)field = (uint32_t)v;
        return 1;
    }
    case KEY_DOUBLE: {
        double v = 0;
        if (!tn_span_double(value, &v) || !isfinite(v) || v < spec->min)
        {
            return 0;
        }
        *(double*)field = v;
        return 1;
    }
    }
    return 0;
}

static const char*
kind_wanted(const key_spec* spec)
{
    switch (spec->kind)
    {
    case KEY_TEXT:
        return "a quoted string of at most 63 characters";
    case KEY_BOOL:
        return "true or false";
    case KEY_U32:
        return spec->min >= 1 ? "a positive integer below 2^32" : "an integer below 2^32";
    case KEY_DOUBLE:
        return "a non-negative number";
    }
    return "?";
}

/* Read `key = value` lines into base by the key table; `header` is the allowed [table]. */
static tn_status
parse_keys(const char* text,
           const char* name,
           const char* header,
           const key_spec* keys,
           size_t key_count,
           void* base,
           tn_error* err)
{
    int seen[32] = {0};
    tn_span rest = tn_span_make(text, SIZE_MAX);
    tn_span line;
    unsigned number = 0;
    while (tn_span_next_line(&rest, &line))
    {
        number++;
        size_t n = 0;
        int quoted = 0;
        while (n < line.n && (quoted || line.s[n] != '#'))
        {
            quoted ^= line.s[n] == '"';
            n++;
        }
        tn_span content = tn_span_trim(tn_span_make(line.s, n));
        if (content.n == 0)
        {
            continue;
        }
        if (content.s[0] == '[')
        {
            if (!tn_span_eq(content, header))
            {
                return tn_error_set(err,
                                    TN_EPARSE,
                                    "%s:%u: '%.*s': only %s may head this file",
                                    name,
                                    number,
                                    tn_span_shown_width(content, 60),
                                    content.s,
                                    header);
            }
            continue;
        }
        tn_span key;
        tn_span value = content;
        if (!tn_span_cut(&value, '=', &key))
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: '%.*s' is not key = value",
                                name,
                                number,
                                tn_span_shown_width(content, 60),
                                content.s);
        }
        key = tn_span_trim(key);
        value = tn_span_trim(value);
        size_t k = 0;
        while (k < key_count && !tn_span_eq(key, keys[k].key))
        {
            k++;
        }
        if (k == key_count)
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: unknown key '%.*s'",
                                name,
                                number,
                                tn_span_shown_width(key, 60),
                                key.s);
        }
        if (seen[k])
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: key %s: given twice",
                                name,
                                number,
                                keys[k].key);
        }
        seen[k] = 1;
        if (!parse_value(&keys[k], value, base))
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s:%u: key %s: '%.*s' is not %s",
                                name,
                                number,
                                keys[k].key,
                                tn_span_shown_width(value, 60),
                                value.s,
                                kind_wanted(&keys[k]));
        }
    }
    for (size_t k = 0; k < key_count; k++)
    {
        if (keys[k].required && !seen[k])
        {
            return tn_error_set(err,
                                TN_EPARSE,
                                "%s: key %s: missing (required)",
                                name,
                                keys[k].key);
        }
    }
    return TN_OK;
}

tn_status
tn_llm_model_parse(const char* text, const char* name, tn_llm_model* model, tn_error* err)
{
    tn_llm_model_init(model);
    tn_status s = parse_keys(text,
                             name,
                             "[model]",
                             MODEL_KEYS,
                             sizeof(MODEL_KEYS) / sizeof(MODEL_KEYS[0]),
                             model,
                             err);
    if (!s && model->experts > 0 && (model->top_k == 0 || model->expert_ffn_hidden == 0))
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s: key %s: missing (an MoE model, experts %u, needs it)",
                         name,
                         model->top_k == 0 ? "top_k" : "expert_ffn_hidden",
                         model->experts);
    }
    return s;
}

tn_status
tn_llm_gpu_parse(const char* text, const char* name, tn_llm_gpu* gpu, tn_error* err)
{
    tn_llm_gpu_init(gpu);
    tn_status s =
        parse_keys(text, name, "[gpu]", GPU_KEYS, sizeof(GPU_KEYS) / sizeof(GPU_KEYS[0]), gpu, err);
    if (!s && (gpu->flops_efficiency <= 0 || gpu->flops_efficiency > 1 ||
               gpu->memory_efficiency <= 0 || gpu->memory_efficiency > 1))
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s: key %s: must be in (0, 1]",
                         name,
                         gpu->flops_efficiency <= 0 || gpu->flops_efficiency > 1
                             ? "flops_efficiency"
                             : "memory_efficiency");
    }
    if (!s && (gpu->tflops_bf16 <= 0 || gpu->memory_gbps <= 0))
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s: key %s: must be above 0",
                         name,
                         gpu->tflops_bf16 <= 0 ? "tflops_bf16" : "memory_gbps");
    }
    return s;
}

/* Read a whole file and hand it to parse. */
static tn_status
load(const char* path,
     tn_status (*parse)(const char*, const char*, void*, tn_error*),
     void* out,
     tn_error* err)
{
    char* text = NULL;
    size_t len = 0;
    tn_status s = tn_text_read_file(path, &text, &len, err);
    if (s)
    {
        return s;
    }
    if (memchr(text, '\0', len))
    {
        free(text);
        return tn_error_set(err, TN_EPARSE, "%s: holds a NUL byte (not a text file)", path);
    }
    s = parse(text, path, out, err);
    free(text);
    return s;
}

static tn_status
parse_model_any(const char* text, const char* name, void* out, tn_error* err)
{
    return tn_llm_model_parse(text, name, out, err);
}

static tn_status
parse_gpu_any(const char* text, const char* name, void* out, tn_error* err)
{
    return tn_llm_gpu_parse(text, name, out, err);
}

tn_status
tn_llm_model_load(const char* path, tn_llm_model* model, tn_error* err)
{
    return load(path, parse_model_any, model, err);
}

tn_status
tn_llm_gpu_load(const char* path, tn_llm_gpu* gpu, tn_error* err)
{
    return load(path, parse_gpu_any, gpu, err);
}

/* ---- checks -------------------------------------------------------------------------- */

uint64_t
tn_llm_ranks(const tn_llm_layout* layout)
{
    uint64_t n = 1;
    for (int d = 0; d < TN_LLM_DIMS; d++)
    {
        n *= layout->size[d];
    }
    return n;
}

uint64_t
tn_llm_micro_batches(const tn_llm_training* training, const tn_llm_layout* layout)
{
    const uint64_t replicas =
        (uint64_t)training->micro_batch * layout->size[TN_LLM_DIM_DP] * layout->size[TN_LLM_DIM_EP];
    return replicas ? training->global_batch / replicas : 0;
}

tn_status
tn_llm_check(const tn_llm_model* model,
             const tn_llm_gpu* gpu,
             const tn_llm_training* training,
             const tn_llm_layout* layout,
             uint32_t npus,
             tn_error* err)
{
    const uint32_t tp = layout->size[TN_LLM_DIM_TP];
    const uint32_t ep = layout->size[TN_LLM_DIM_EP];
    const uint32_t dp = layout->size[TN_LLM_DIM_DP];
    const uint32_t pp = layout->size[TN_LLM_DIM_PP];
    const uint32_t vpp = layout->vpp;
    for (int d = 0; d < TN_LLM_DIMS; d++)
    {
        if (layout->size[d] == 0)
        {
            return tn_error_set(err, TN_EINVAL, "%s: must be at least 1", DIM_NAMES[d]);
        }
    }
    if (vpp == 0)
    {
        return tn_error_set(err, TN_EINVAL, "vpp: must be at least 1");
    }
    const uint64_t ranks = tn_llm_ranks(layout);
    if (ranks > UINT32_MAX || (npus && ranks != npus))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tp: tp %u x pp %u x dp %u x ep %u = %llu ranks, but the system has "
                            "%u NPUs",
                            tp,
                            pp,
                            dp,
                            ep,
                            (unsigned long long)ranks,
                            npus);
    }
    if (model->layers == 0 || model->hidden == 0 || model->heads == 0 || model->seq_len == 0 ||
        model->ffn_hidden == 0 || model->bytes_per_element == 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "model: layers, hidden, ffn_hidden, heads, seq_len and "
                            "bytes_per_element must be at least 1");
    }
    if (model->layers % ((uint64_t)pp * vpp) != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: %u layers are not divisible by pp %u x vpp %u",
                            vpp > 1 ? "vpp" : "pp",
                            model->layers,
                            pp,
                            vpp);
    }
    if (model->hidden % model->heads != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "model: hidden %u is not divisible by its %u heads",
                            model->hidden,
                            model->heads);
    }
    const uint32_t kv = model->kv_heads ? model->kv_heads : model->heads;
    if (model->heads % tp != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tp: %u heads are not divisible by tp %u",
                            model->heads,
                            tp);
    }
    if (kv > model->heads || model->heads % kv != 0 || (kv % tp != 0 && tp % kv != 0))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tp: %u KV heads do not split over tp %u (one must divide the "
                            "other, and they must divide the %u heads)",
                            kv,
                            tp,
                            model->heads);
    }
    if (model->experts == 0 && ep > 1)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "ep: ep %u needs an MoE model (model %s has no experts)",
                            ep,
                            model->name[0] ? model->name : "<model>");
    }
    if (model->experts > 0 && model->experts % ep != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "ep: %u experts are not divisible by ep %u",
                            model->experts,
                            ep);
    }
    if (model->experts > 0 && (model->top_k == 0 || model->top_k > model->experts))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "model: top_k %u must be in 1..experts (%u)",
                            model->top_k,
                            model->experts);
    }
    if (layout->sequence_parallel && model->seq_len % tp != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "sequence_parallel: sequence %u is not divisible by tp %u",
                            model->seq_len,
                            tp);
    }
    if (training->micro_batch == 0)
    {
        return tn_error_set(err, TN_EINVAL, "micro_batch: must be at least 1");
    }
    const uint64_t replicas = (uint64_t)training->micro_batch * dp * ep;
    if (training->global_batch == 0 || training->global_batch % replicas != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "global_batch: %llu is not a positive multiple of micro_batch %u x "
                            "dp %u x ep %u",
                            (unsigned long long)training->global_batch,
                            training->micro_batch,
                            dp,
                            ep);
    }
    const uint64_t m = training->global_batch / replicas;
    if (m > UINT32_MAX / vpp)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "global_batch: %llu micro-batches per replica are too many",
                            (unsigned long long)m);
    }
    if (vpp > 1 && layout->schedule == TN_LLM_SCHEDULE_GPIPE)
    {
        return tn_error_set(err, TN_EINVAL, "vpp: %u needs the 1f1b (interleaved) schedule", vpp);
    }
    if (vpp > 1 && (pp < 2 || m % pp != 0))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "vpp: the interleaved schedule needs pp >= 2 and micro-batches "
                            "(%llu) divisible by pp %u",
                            (unsigned long long)m,
                            pp);
    }
    if (gpu && (tn_llm_gpu_flops(gpu, model->bytes_per_element) <= 0 ||
                tn_llm_gpu_bytes_per_second(gpu) <= 0))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "gpu: %s has no peak FLOP/s for %u-byte elements, or no memory "
                            "bandwidth",
                            gpu->name[0] ? gpu->name : "<gpu>",
                            model->bytes_per_element);
    }
    int seen[TN_LLM_DIMS] = {0};
    for (int d = 0; d < TN_LLM_DIMS; d++)
    {
        if (layout->order[d] >= TN_LLM_DIMS || seen[layout->order[d]]++)
        {
            return tn_error_set(err, TN_EINVAL, "order: must name tp, ep, dp and pp once each");
        }
    }
    return TN_OK;
}

/* ---- ranks --------------------------------------------------------------------------- */

void
tn_llm_coord(const tn_llm_layout* layout, uint32_t rank, uint32_t coord[TN_LLM_DIMS])
{
    for (int i = 0; i < TN_LLM_DIMS; i++)
    {
        const int d = layout->order[i];
        coord[d] = rank % layout->size[d];
        rank /= layout->size[d];
    }
}

uint32_t
tn_llm_rank_of(const tn_llm_layout* layout, const uint32_t coord[TN_LLM_DIMS])
{
    uint32_t rank = 0;
    for (int i = TN_LLM_DIMS - 1; i >= 0; i--)
    {
        const int d = layout->order[i];
        rank = rank * layout->size[d] + coord[d];
    }
    return rank;
}

/* ---- arithmetic ---------------------------------------------------------------------- */

double
tn_llm_gpu_flops(const tn_llm_gpu* gpu, uint32_t bytes_per_element)
{
    const double peak = bytes_per_element >= 4   ? gpu->tflops_fp32
                        : bytes_per_element == 1 ? gpu->tflops_fp8
                                                 : gpu->tflops_bf16;
    return peak * 1e12 * gpu->flops_efficiency;
}

double
tn_llm_gpu_bytes_per_second(const tn_llm_gpu* gpu)
{
    return gpu->memory_gbps * 1e9 * gpu->memory_efficiency;
}

int
tn_llm_layer_is_moe(const tn_llm_model* model, uint32_t layer)
{
    if (model->experts == 0 || layer < model->first_dense_layers)
    {
        return 0;
    }
    const uint32_t every = model->moe_layer_interval ? model->moe_layer_interval : 1;
    return (layer - model->first_dense_layers) % every == 0;
}

/* Attention's projections' width: the queries' and output's h, the keys' and values' h_kv. */
static double
kv_width(const tn_llm_model* model)
{
    const uint32_t kv = model->kv_heads ? model->kv_heads : model->heads;
    return (double)model->hidden / model->heads * kv;
}

static double
ffn_matrices(const tn_llm_model* model)
{
    return model->gated_ffn ? 3.0 : 2.0;
}

double
tn_llm_layer_forward_flops(const tn_llm_model* model, uint32_t layer, uint32_t micro_batch)
{
    const double b = micro_batch;
    const double s = model->seq_len;
    const double h = model->hidden;
    // Q, K, V and output projections, then scores and the weighted sum (Narayanan et al.)
    const double attention = 2 * b * s * h * (2 * h + 2 * kv_width(model)) + 4 * b * s * s * h;
    double mlp = 0;
    if (tn_llm_layer_is_moe(model, layer))
    {
        const double f = model->expert_ffn_hidden;
        mlp = 2 * b * s * h * model->experts // the router
              + 2 * b * s * h * f * ffn_matrices(model) * (model->top_k + model->shared_experts);
    }
    else
    {
        mlp = 2 * b * s * h * model->ffn_hidden * ffn_matrices(model);
    }
    return attention + mlp;
}

void
tn_llm_layer_params(const tn_llm_model* model,
                    uint32_t layer,
                    uint64_t* dense,
                    uint64_t* per_expert)
{
    const uint64_t h = model->hidden;
    const uint64_t attention = h * (2 * h + 2 * (uint64_t)kv_width(model));
    const uint64_t m = model->gated_ffn ? 3 : 2;
    if (tn_llm_layer_is_moe(model, layer))
    {
        *per_expert = h * model->expert_ffn_hidden * m;
        *dense = attention + h * model->experts + *per_expert * model->shared_experts;
    }
    else
    {
        *per_expert = 0;
        *dense = attention + h * model->ffn_hidden * m;
    }
}

uint64_t
tn_llm_ep_all_to_all_bytes(const tn_llm_model* model,
                           const tn_llm_training* training,
                           const tn_llm_layout* layout)
{
    if (model->experts == 0)
    {
        return 0;
    }
    const double bsh =
        (double)training->micro_batch * model->seq_len * model->hidden * model->bytes_per_element;
    const double tokens_share = layout->sequence_parallel ? 1.0 / layout->size[TN_LLM_DIM_TP] : 1.0;
    return (uint64_t)(bsh * tokens_share * model->top_k);
}
