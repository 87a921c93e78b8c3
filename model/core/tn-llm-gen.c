/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-llm-gen: the program of every rank of a transformer training iteration (tn-llm.h has
 * the contract; doc/llm-training.rst the formulas).
 */
#include "tn-array.h"
#include "tn-llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tn_llm_program
{
    tn_llm_layout layout;
    uint32_t ranks;
    tn_chakra_trace** traces;
};

/* One step of a stage's schedule: a forward or backward of (chunk, micro-batch). */
typedef struct
{
    int forward;
    uint32_t chunk;
    uint32_t mb;
} step;

/* The groups a rank communicates in (ascending ranks, as tn_chakra_check wants). */
typedef struct
{
    uint32_t* ranks;
    uint32_t count;
} group;

/* What generating one rank's program needs. */
typedef struct
{
    const tn_llm_model* model;
    const tn_llm_training* training;
    const tn_llm_layout* layout;
    double flops_per_second;
    uint32_t m;         /* micro-batches */
    uint32_t per_chunk; /* layers per model chunk */
    uint32_t rank;
    uint32_t coord[TN_LLM_DIMS];
    group tp, ep, dp_dense, dp_expert;
    tn_chakra_trace* trace;
    int64_t last;       /* the last blocking node (kernel or blocking collective); -1 none */
    uint32_t step;      /* 1 + the schedule step being generated; 0 outside one */
    uint32_t* dp_nodes; /* DP collectives issued (the optimizer waits for them) */
    size_t dp_count;
    size_t dp_cap;
    tn_error* err;
} gen;

static void
group_free(group* g)
{
    free(g->ranks);
    g->ranks = NULL;
    g->count = 0;
}

static int
cmp_u32(const void* a, const void* b)
{
    const uint32_t x = *(const uint32_t*)a;
    const uint32_t y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* The ranks whose coordinate differs from g->coord only in the dims of `vary`. */
static tn_status
make_group(gen* g, const int* vary, int nvary, group* out)
{
    uint64_t count = 1;
    for (int i = 0; i < nvary; i++)
    {
        count *= g->layout->size[vary[i]];
    }
    out->ranks = malloc(count * sizeof(*out->ranks));
    if (!out->ranks)
    {
        return tn_error_set(g->err, TN_ENOMEM, "llm: out of memory");
    }
    out->count = (uint32_t)count;
    for (uint64_t k = 0; k < count; k++)
    {
        uint32_t c[TN_LLM_DIMS];
        memcpy(c, g->coord, sizeof(c));
        uint64_t rest = k;
        for (int i = 0; i < nvary; i++)
        {
            c[vary[i]] = (uint32_t)(rest % g->layout->size[vary[i]]);
            rest /= g->layout->size[vary[i]];
        }
        out->ranks[k] = tn_llm_rank_of(g->layout, c);
    }
    qsort(out->ranks, out->count, sizeof(*out->ranks), cmp_u32);
    return TN_OK;
}

/* Append a node whose deps are `deps` (data) then the last blocking node (control). */
static tn_status
append(gen* g, tn_chakra_node* node, const uint32_t* deps, uint32_t ndeps, int after_last)
{
    uint32_t all[4];
    uint32_t n = 0;
    for (uint32_t k = 0; k < ndeps; k++)
    {
        all[n++] = deps[k];
    }
    node->data_dep_count = n;
    if (after_last && g->last >= 0)
    {
        int dup = 0;
        for (uint32_t k = 0; k < n; k++)
        {
            dup |= all[k] == (uint32_t)g->last;
        }
        if (!dup)
        {
            all[n++] = (uint32_t)g->last;
        }
    }
    node->deps = all;
    node->dep_count = n;
    return tn_chakra_add(g->trace, node, g->err);
}

static uint32_t
last_index(const gen* g)
{
    return tn_chakra_node_count(g->trace) - 1;
}

/* A kernel after the last blocking node (and `dep`, when >= 0): it becomes the last. */
static tn_status
kernel(gen* g, const char* name, double flops, double bytes, int64_t dep)
{
    tn_chakra_node n;
    memset(&n, 0, sizeof(n));
    n.name = name;
    n.kind = flops > 0 ? TN_CHAKRA_COMPUTE : TN_CHAKRA_MEMORY;
    n.type = flops > 0 ? TN_CHAKRA_COMP_NODE : TN_CHAKRA_MEM_LOAD_NODE;
    n.has_num_ops = flops > 0;
    n.num_ops = flops > 0 ? (uint64_t)(flops + 0.5) : 0;
    n.step = g->step;
    n.tensor_size = (uint64_t)(bytes + 0.5);
    if (n.kind == TN_CHAKRA_MEMORY && n.tensor_size == 0)
    {
        n.tensor_size = 1; // a memory node moves at least a byte (the reader's rule)
    }
    uint32_t d = (uint32_t)dep;
    tn_status s = append(g, &n, &d, dep >= 0 ? 1 : 0, 1);
    if (!s)
    {
        g->last = last_index(g);
    }
    return s;
}

/* A collective of `grp` after `dep` (-1: after the last blocking node). */
static tn_status
collective(gen* g,
           const char* name,
           tn_collective type,
           uint64_t bytes,
           const group* grp,
           uint32_t serves,
           int64_t dep,
           int blocking)
{
    if (grp->count < 2 || bytes == 0)
    {
        return TN_OK; // nothing to exchange
    }
    tn_chakra_node n;
    memset(&n, 0, sizeof(n));
    n.name = name;
    n.kind = TN_CHAKRA_COLLECTIVE;
    n.type = TN_CHAKRA_COMM_COLL_NODE;
    n.collective = type;
    n.comm_bytes = bytes;
    n.group = grp->ranks;
    n.group_count = grp->count;
    n.serves = serves;
    uint32_t d = (uint32_t)(dep >= 0 ? dep : g->last);
    tn_status s = append(g, &n, &d, (dep >= 0 || g->last >= 0) ? 1 : 0, 0);
    if (!s && blocking)
    {
        g->last = last_index(g);
    }
    return s;
}

/* A send to or receive from `peer` (pipeline neighbours), after `dep`. */
static tn_status
transfer(gen* g,
         const char* name,
         int send,
         uint32_t peer,
         uint64_t bytes,
         uint64_t tag,
         int64_t dep)
{
    tn_chakra_node n;
    memset(&n, 0, sizeof(n));
    n.name = name;
    n.kind = send ? TN_CHAKRA_SEND : TN_CHAKRA_RECV;
    n.type = send ? TN_CHAKRA_COMM_SEND_NODE : TN_CHAKRA_COMM_RECV_NODE;
    n.comm_bytes = bytes;
    n.peer = peer;
    n.tag = tag;
    n.serves = TN_SERVES_PP;
    uint32_t d = (uint32_t)dep;
    return append(g, &n, &d, dep >= 0 ? 1 : 0, 0);
}

/* ---- one layer ------------------------------------------------------------------- */

static double
bsh_bytes(const gen* g)
{
    return (double)g->training->micro_batch * g->model->seq_len * g->model->hidden *
           g->model->bytes_per_element;
}

/*
 * TP around a kernel: without sequence parallelism the kernel, then an all-reduce of b*s*h;
 * with it an all-gather before and a reduce-scatter after, of the same size.
 */
static tn_status
tp_kernel(gen* g, const char* name, double flops, double bytes)
{
    const int tp = g->tp.count > 1;
    const uint64_t size = (uint64_t)bsh_bytes(g);
    char label[96];
    tn_status s = TN_OK;
    if (tp && g->layout->sequence_parallel)
    {
        snprintf(label, sizeof(label), "%s.tp-ag", name);
        s = collective(g, label, TN_COLL_ALL_GATHER, size, &g->tp, TN_SERVES_TP, -1, 1);
    }
    s = s ? s : kernel(g, name, flops, bytes, -1);
    if (!s && tp)
    {
        const int sp = g->layout->sequence_parallel;
        snprintf(label, sizeof(label), "%s.tp-%s", name, sp ? "rs" : "ar");
        s = collective(g,
                       label,
                       sp ? TN_COLL_REDUCE_SCATTER : TN_COLL_ALL_REDUCE,
                       size,
                       &g->tp,
                       TN_SERVES_TP,
                       -1,
                       1);
    }
    return s;
}

/* The EP all-to-all of an MoE layer's tokens (dispatch or combine), blocking. */
static tn_status
ep_all_to_all(gen* g, const char* name)
{
    const uint64_t bytes = tn_llm_ep_all_to_all_bytes(g->model, g->training, g->layout);
    return collective(g, name, TN_COLL_ALL_TO_ALL, bytes, &g->ep, TN_SERVES_EP, -1, 1);
}

/* Parameters of attention's four projections. */
static double
attention_params(const gen* g)
{
    const tn_llm_model* m = g->model;
    const double kvw = (double)m->hidden / m->heads * (m->kv_heads ? m->kv_heads : m->heads);
    return (double)m->hidden * (2.0 * m->hidden + 2.0 * kvw);
}

/* Forward FLOPs of a layer split into its attention and its MLP (or experts) kernels. */
static void
layer_split(const gen* g, uint32_t layer, double* attention, double* mlp, double* core)
{
    const double b = g->training->micro_batch;
    const double s = g->model->seq_len;
    const double h = g->model->hidden;
    const double total = tn_llm_layer_forward_flops(g->model, layer, g->training->micro_batch);
    *core = 4 * b * s * s * h;
    *attention = 2 * b * s * attention_params(g) + *core;
    *mlp = total - *attention;
}

/* Memory a kernel moves: its weights' share and its activations in and out. */
static double
kernel_bytes(const gen* g, double params)
{
    const uint32_t tp = g->layout->size[TN_LLM_DIM_TP];
    return params * g->model->bytes_per_element / tp + 2 * bsh_bytes(g);
}

static tn_status
layer_forward(gen* g, uint32_t layer, uint32_t mb, const char* pass)
{
    const uint32_t tp = g->layout->size[TN_LLM_DIM_TP];
    double attention, mlp, core;
    layer_split(g, layer, &attention, &mlp, &core);
    uint64_t dense, per_expert;
    tn_llm_layer_params(g->model, layer, &dense, &per_expert);
    const double attn_params = attention_params(g);
    char name[64];
    snprintf(name, sizeof(name), "%s%u.L%u.attn", pass, mb, layer);
    tn_status s = tp_kernel(g, name, attention / tp, kernel_bytes(g, attn_params));
    if (s)
    {
        return s;
    }
    const int moe = tn_llm_layer_is_moe(g->model, layer);
    if (moe)
    {
        snprintf(name, sizeof(name), "%s%u.L%u.ep-dispatch", pass, mb, layer);
        s = ep_all_to_all(g, name);
    }
    snprintf(name, sizeof(name), "%s%u.L%u.%s", pass, mb, layer, moe ? "experts" : "mlp");
    s = s ? s : tp_kernel(g, name, mlp / tp, kernel_bytes(g, (double)dense - attn_params));
    if (!s && moe)
    {
        snprintf(name, sizeof(name), "%s%u.L%u.ep-combine", pass, mb, layer);
        s = ep_all_to_all(g, name);
    }
    return s;
}

/* The DP reduction of a layer's gradients (or of the embedding/output: params given). */
static tn_status
dp_bucket(gen* g, const char* what, double dense, double expert_params)
{
    const int dist = g->training->distributed_optimizer;
    const uint32_t tp = g->layout->size[TN_LLM_DIM_TP];
    const tn_collective type = dist ? TN_COLL_REDUCE_SCATTER : TN_COLL_ALL_REDUCE;
    char name[64];
    const uint32_t before = tn_chakra_node_count(g->trace);
    snprintf(name, sizeof(name), "dp.%s.dense", what);
    tn_status s = collective(g,
                             name,
                             type,
                             (uint64_t)(dense / tp * g->model->bytes_per_element),
                             &g->dp_dense,
                             TN_SERVES_DP,
                             -1,
                             0);
    snprintf(name, sizeof(name), "dp.%s.experts", what);
    s = s ? s
          : collective(g,
                       name,
                       type,
                       (uint64_t)(expert_params / tp * g->model->bytes_per_element),
                       &g->dp_expert,
                       TN_SERVES_DP,
                       -1,
                       0);
    for (uint32_t i = before; !s && i < tn_chakra_node_count(g->trace); i++)
    {
        uint32_t* nodes =
            tn_array_grow(g->dp_nodes, &g->dp_cap, g->dp_count + 1, sizeof(*nodes), 16);
        if (!nodes)
        {
            return tn_error_set(g->err, TN_ENOMEM, "llm: out of memory");
        }
        g->dp_nodes = nodes;
        g->dp_nodes[g->dp_count++] = i;
    }
    return s;
}

static tn_status
layer_backward(gen* g, uint32_t layer, uint32_t mb)
{
    const uint32_t tp = g->layout->size[TN_LLM_DIM_TP];
    tn_status s = TN_OK;
    char name[64];
    double attention, mlp, core;
    layer_split(g, layer, &attention, &mlp, &core);
    if (g->training->recompute == TN_LLM_RECOMPUTE_FULL)
    {
        s = layer_forward(g, layer, mb, "R");
    }
    else if (g->training->recompute == TN_LLM_RECOMPUTE_SELECTIVE)
    {
        snprintf(name, sizeof(name), "R%u.L%u.attn-core", mb, layer);
        s = kernel(g, name, core / tp, 2 * bsh_bytes(g), -1);
    }
    uint64_t dense, per_expert;
    tn_llm_layer_params(g->model, layer, &dense, &per_expert);
    const int moe = tn_llm_layer_is_moe(g->model, layer);
    if (!s && moe)
    {
        snprintf(name, sizeof(name), "B%u.L%u.ep-combine", mb, layer);
        s = ep_all_to_all(g, name);
    }
    snprintf(name, sizeof(name), "B%u.L%u.%s", mb, layer, moe ? "experts" : "mlp");
    s = s ? s
          : tp_kernel(g,
                      name,
                      2 * mlp / tp,
                      2 * kernel_bytes(g, (double)dense - attention_params(g)));
    if (!s && moe)
    {
        snprintf(name, sizeof(name), "B%u.L%u.ep-dispatch", mb, layer);
        s = ep_all_to_all(g, name);
    }
    snprintf(name, sizeof(name), "B%u.L%u.attn", mb, layer);
    s = s ? s : tp_kernel(g, name, 2 * attention / tp, 2 * kernel_bytes(g, attention_params(g)));
    if (!s && mb + 1 == g->m)
    {
        // the last micro-batch's gradients of the layer are complete: reduce its bucket
        char what[32];
        snprintf(what, sizeof(what), "L%u", layer);
        const double experts_here = (double)g->model->experts / g->layout->size[TN_LLM_DIM_EP];
        s = dp_bucket(g, what, (double)dense, (double)per_expert * experts_here);
    }
    return s;
}

/* ---- the schedule ---------------------------------------------------------------- */

/*
 * Virtual micro-batch k of the interleaved schedule (Megatron): groups of pp micro-batches go
 * through chunk 0, then chunk 1, ...; the backward walks the chunks from the last.
 */
static step
virtual_step(int forward, uint32_t k, uint32_t pp, uint32_t v)
{
    const uint32_t chunk = (k % (pp * v)) / pp;
    step st = {forward, forward ? chunk : v - 1 - chunk, (k / (pp * v)) * pp + k % pp};
    return st;
}

/* The steps of stage p in order (1F1B, interleaved 1F1B, GPipe): 2 m v of them. */
static void
schedule_steps(const gen* g, uint32_t p, step* out)
{
    const uint32_t pp = g->layout->size[TN_LLM_DIM_PP];
    const uint32_t v = g->layout->vpp;
    const uint32_t total = g->m * v;
    size_t n = 0;
    uint32_t warmup = v == 1 ? pp - p - 1 : (pp - p - 1) * 2 + (v - 1) * pp;
    if (g->layout->schedule == TN_LLM_SCHEDULE_GPIPE)
    {
        warmup = total; // every forward, then every backward
    }
    warmup = warmup < total ? warmup : total;
    uint32_t f = 0;
    uint32_t b = 0;
    while (f < warmup)
    {
        out[n++] = virtual_step(1, f++, pp, v);
    }
    while (f < total)
    {
        out[n++] = virtual_step(1, f++, pp, v);
        out[n++] = virtual_step(0, b++, pp, v);
    }
    while (b < total)
    {
        out[n++] = virtual_step(0, b++, pp, v);
    }
}

/* The rank at the same coordinate on stage p. */
static uint32_t
stage_peer(const gen* g, uint32_t p)
{
    uint32_t c[TN_LLM_DIMS];
    memcpy(c, g->coord, sizeof(c));
    c[TN_LLM_DIM_PP] = p;
    return tn_llm_rank_of(g->layout, c);
}

/* Tag of the activation (grad 0) or gradient (grad 1) leaving virtual stage vs for mb. */
static uint64_t
pp_tag(const gen* g, int grad, uint32_t vs, uint32_t mb)
{
    const uint64_t stages = (uint64_t)g->layout->size[TN_LLM_DIM_PP] * g->layout->vpp;
    return ((uint64_t)grad * stages + vs) * g->m + mb;
}

static tn_status
run_step(gen* g, const step* st)
{
    const uint32_t pp = g->layout->size[TN_LLM_DIM_PP];
    const uint32_t p = g->coord[TN_LLM_DIM_PP];
    const uint32_t tp = g->layout->size[TN_LLM_DIM_TP];
    const uint32_t vs = st->chunk * pp + p;
    const uint32_t stages = pp * g->layout->vpp;
    const int first = vs == 0;
    const int last = vs + 1 == stages;
    const uint32_t next = p + 1 < pp ? p + 1 : 0; // stage of virtual stage vs + 1
    const uint32_t prev = p > 0 ? p - 1 : pp - 1;
    const uint64_t act = (uint64_t)bsh_bytes(g);
    const double b = g->training->micro_batch;
    const double s = g->model->seq_len;
    const double h = g->model->hidden;
    const double vocab = g->model->vocab;
    const uint32_t layer0 = vs * g->per_chunk;
    char name[64];
    tn_status status = TN_OK;
    if (st->forward)
    {
        if (!first)
        {
            snprintf(name, sizeof(name), "F%u.pp-recv", st->mb);
            status = transfer(g,
                              name,
                              0,
                              stage_peer(g, prev),
                              act,
                              pp_tag(g, 0, vs - 1, st->mb),
                              g->last);
            int64_t recv = last_index(g);
            for (uint32_t l = 0; !status && l < g->per_chunk; l++)
            {
                if (l == 0)
                {
                    // the first kernel waits for the activation too: make it the last node
                    g->last = recv;
                }
                status = layer_forward(g, layer0 + l, st->mb, "F");
            }
        }
        else
        {
            if (vocab > 0)
            {
                snprintf(name, sizeof(name), "F%u.embedding", st->mb);
                status = kernel(g, name, 0, b * s * h * g->model->bytes_per_element * 2, -1);
            }
            for (uint32_t l = 0; !status && l < g->per_chunk; l++)
            {
                status = layer_forward(g, layer0 + l, st->mb, "F");
            }
        }
        if (!status && last && vocab > 0)
        {
            snprintf(name, sizeof(name), "F%u.output", st->mb);
            status = kernel(g,
                            name,
                            2 * b * s * h * vocab / tp,
                            (h * vocab / tp + b * s * vocab / tp) * g->model->bytes_per_element,
                            -1);
        }
        if (!status && !last)
        {
            snprintf(name, sizeof(name), "F%u.pp-send", st->mb);
            status =
                transfer(g, name, 1, stage_peer(g, next), act, pp_tag(g, 0, vs, st->mb), g->last);
        }
        return status;
    }
    if (!last)
    {
        snprintf(name, sizeof(name), "B%u.pp-recv", st->mb);
        status =
            transfer(g, name, 0, stage_peer(g, next), act, pp_tag(g, 1, vs + 1, st->mb), g->last);
        g->last = status ? g->last : last_index(g);
    }
    else if (vocab > 0)
    {
        snprintf(name, sizeof(name), "B%u.output", st->mb);
        status = kernel(g,
                        name,
                        4 * b * s * h * vocab / tp,
                        2 * (h * vocab / tp + b * s * vocab / tp) * g->model->bytes_per_element,
                        -1);
        if (!status && st->mb + 1 == g->m)
        {
            status = dp_bucket(g, "output", h * vocab, 0);
        }
    }
    for (uint32_t l = g->per_chunk; !status && l-- > 0;)
    {
        status = layer_backward(g, layer0 + l, st->mb);
    }
    if (!status && first && vocab > 0)
    {
        snprintf(name, sizeof(name), "B%u.embedding", st->mb);
        status = kernel(g, name, 0, b * s * h * g->model->bytes_per_element * 2, -1);
        if (!status && st->mb + 1 == g->m)
        {
            status = dp_bucket(g, "embedding", h * vocab, 0);
        }
    }
    if (!status && !first)
    {
        snprintf(name, sizeof(name), "B%u.pp-send", st->mb);
        status = transfer(g, name, 1, stage_peer(g, prev), act, pp_tag(g, 1, vs, st->mb), g->last);
    }
    return status;
}

/* The rank's parameters: dense and expert (its TP and EP shard). */
static void
rank_params(const gen* g, double* dense, double* expert)
{
    const uint32_t pp = g->layout->size[TN_LLM_DIM_PP];
    const uint32_t p = g->coord[TN_LLM_DIM_PP];
    const uint32_t tp = g->layout->size[TN_LLM_DIM_TP];
    const double experts_here = (double)g->model->experts / g->layout->size[TN_LLM_DIM_EP];
    *dense = 0;
    *expert = 0;
    for (uint32_t c = 0; c < g->layout->vpp; c++)
    {
        const uint32_t vs = c * pp + p;
        for (uint32_t l = 0; l < g->per_chunk; l++)
        {
            uint64_t d, e;
            tn_llm_layer_params(g->model, vs * g->per_chunk + l, &d, &e);
            *dense += (double)d / tp;
            *expert += (double)e * experts_here / tp;
        }
        if (vs == 0 || vs + 1 == pp * g->layout->vpp)
        {
            *dense += (double)g->model->hidden * g->model->vocab / tp;
        }
    }
}

static tn_status
optimizer(gen* g)
{
    double dense, expert;
    rank_params(g, &dense, &expert);
    if (g->training->distributed_optimizer)
    {
        dense /= g->dp_dense.count;
        expert /= g->dp_expert.count;
    }
    // the step waits for every gradient reduction of the rank
    uint32_t before = tn_chakra_node_count(g->trace);
    tn_chakra_node n;
    memset(&n, 0, sizeof(n));
    n.name = "optimizer";
    n.kind = TN_CHAKRA_MEMORY;
    n.type = TN_CHAKRA_MEM_LOAD_NODE;
    n.tensor_size = (uint64_t)((dense + expert) * TN_LLM_OPTIMIZER_BYTES_PER_PARAM + 0.5);
    n.tensor_size = n.tensor_size ? n.tensor_size : 1;
    uint32_t* deps = malloc((g->dp_count + 1) * sizeof(*deps));
    if (!deps)
    {
        return tn_error_set(g->err, TN_ENOMEM, "llm: out of memory");
    }
    uint32_t k = 0;
    for (size_t i = 0; i < g->dp_count; i++)
    {
        deps[k++] = g->dp_nodes[i];
    }
    if (g->last >= 0)
    {
        deps[k++] = (uint32_t)g->last;
    }
    n.deps = deps;
    n.dep_count = k;
    n.data_dep_count = k;
    tn_status s = tn_chakra_add(g->trace, &n, g->err);
    free(deps);
    if (s)
    {
        return s;
    }
    g->last = before;
    if (!g->training->distributed_optimizer)
    {
        return TN_OK;
    }
    // the updated parameters' shards gathered back, one bucket per reduction
    const uint32_t reductions = (uint32_t)g->dp_count;
    for (uint32_t i = 0; !s && i < reductions; i++)
    {
        const tn_chakra_node* rs = tn_chakra_node_at(g->trace, g->dp_nodes[i]);
        char name[80];
        snprintf(name, sizeof(name), "%s.ag", rs->name);
        group grp = {(uint32_t*)rs->group, rs->group_count};
        s = collective(g, name, TN_COLL_ALL_GATHER, rs->comm_bytes, &grp, TN_SERVES_DP, before, 0);
    }
    return s;
}

static tn_status
generate_rank(gen* g)
{
    static const int TP[] = {TN_LLM_DIM_TP};
    static const int EP[] = {TN_LLM_DIM_EP};
    static const int DP_DENSE[] = {TN_LLM_DIM_EP, TN_LLM_DIM_DP};
    static const int DP_EXPERT[] = {TN_LLM_DIM_DP};
    tn_llm_coord(g->layout, g->rank, g->coord);
    tn_status s = make_group(g, TP, 1, &g->tp);
    s = s ? s : make_group(g, EP, 1, &g->ep);
    s = s ? s : make_group(g, DP_DENSE, 2, &g->dp_dense);
    s = s ? s : make_group(g, DP_EXPERT, 1, &g->dp_expert);
    const size_t steps = (size_t)2 * g->m * g->layout->vpp;
    step* order = s ? NULL : malloc(steps * sizeof(*order));
    if (!s && !order)
    {
        s = tn_error_set(g->err, TN_ENOMEM, "llm: out of memory");
    }
    if (!s)
    {
        schedule_steps(g, g->coord[TN_LLM_DIM_PP], order);
    }
    g->last = -1;
    for (size_t i = 0; !s && i < steps; i++)
    {
        g->step = (uint32_t)i + 1;
        s = run_step(g, &order[i]);
    }
    g->step = 0;
    s = s ? s : optimizer(g);
    free(order);
    group_free(&g->tp);
    group_free(&g->ep);
    group_free(&g->dp_dense);
    group_free(&g->dp_expert);
    g->dp_count = 0;
    return s;
}

tn_status
tn_llm_program_create(const tn_llm_model* model,
                      const tn_llm_gpu* gpu,
                      const tn_llm_training* training,
                      const tn_llm_layout* layout,
                      tn_llm_program** out,
                      tn_error* err)
{
    return tn_llm_program_create_some(model, gpu, training, layout, 0, out, err);
}

tn_status
tn_llm_program_create_some(const tn_llm_model* model,
                           const tn_llm_gpu* gpu,
                           const tn_llm_training* training,
                           const tn_llm_layout* layout,
                           uint32_t generated,
                           tn_llm_program** out,
                           tn_error* err)
{
    *out = NULL;
    tn_status s = tn_llm_check(model, gpu, training, layout, 0, err);
    if (s)
    {
        return s;
    }
    tn_llm_program* prog = calloc(1, sizeof(*prog));
    const uint32_t ranks = (uint32_t)tn_llm_ranks(layout);
    if (!prog || !(prog->traces = calloc(ranks, sizeof(*prog->traces))))
    {
        free(prog);
        return tn_error_set(err, TN_ENOMEM, "llm: out of memory");
    }
    prog->ranks = ranks;
    prog->layout = *layout;
    gen g;
    memset(&g, 0, sizeof(g));
    g.model = model;
    g.training = training;
    g.layout = layout;
    g.m = (uint32_t)tn_llm_micro_batches(training, layout);
    g.per_chunk = model->layers / (layout->size[TN_LLM_DIM_PP] * layout->vpp);
    g.err = err;
    const uint32_t count = generated == 0 || generated > ranks ? ranks : generated;
    for (uint32_t r = 0; !s && r < count; r++)
    {
        char name[48];
        snprintf(name, sizeof(name), "llm.%u", r);
        s = tn_chakra_create(name, &prog->traces[r], err);
        g.rank = r;
        g.trace = prog->traces[r];
        s = s ? s : generate_rank(&g);
    }
    free(g.dp_nodes);
    if (s)
    {
        tn_llm_program_destroy(prog);
        return s;
    }
    *out = prog;
    return TN_OK;
}

void
tn_llm_program_destroy(tn_llm_program* program)
{
    if (!program)
    {
        return;
    }
    for (uint32_t r = 0; r < program->ranks; r++)
    {
        tn_chakra_destroy(program->traces[r]);
    }
    free(program->traces);
    free(program);
}

const tn_llm_layout*
tn_llm_program_layout(const tn_llm_program* program)
{
    return &program->layout;
}

uint32_t
tn_llm_program_ranks(const tn_llm_program* program)
{
    return program->ranks;
}

tn_chakra_trace*
tn_llm_program_trace(const tn_llm_program* program, uint32_t rank)
{
    return program->traces[rank];
}

tn_chakra_trace* const*
tn_llm_program_traces(const tn_llm_program* program)
{
    return program->traces;
}
