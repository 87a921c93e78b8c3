/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-llm: the descriptions' files and checks, the placement of ranks, and the generated
 * programs against Megatron's closed forms (Narayanan et al., SC'21; Korthikanti et al.,
 * 2022): collectives per layer and micro-batch, their sizes, the pipeline's transfers, the
 * data-parallel reductions, the MoE all-to-alls and the schedule's order.
 */
#include "tn-test.h"

#include "ns3/tn-llm.h"

#include <stdio.h>
#include <string.h>

static const char* SMALL_MODEL = "# a small GPT for the tests\n"
                                 "[model]\n"
                                 "name = \"small\"\n"
                                 "layers = 8\n"
                                 "hidden = 256   # h\n"
                                 "ffn_hidden = 1024\n"
                                 "heads = 8\n"
                                 "seq_len = 128\n"
                                 "vocab = 0\n";

static const char* H100 = "[gpu]\nname = \"h100\"\ntflops_bf16 = 989\nmemory_gbps = 3350\n"
                          "flops_efficiency = 0.5\nmemory_efficiency = 0.8\n";

typedef struct
{
    tn_llm_model model;
    tn_llm_gpu gpu;
    tn_llm_training training;
    tn_llm_layout layout;
} setup;

static void
small_setup(tn_test_ctx* ctx, setup* s, uint32_t tp, uint32_t pp, uint32_t dp, uint32_t m)
{
    tn_error err;
    TN_CHECK_EQ(ctx, tn_llm_model_parse(SMALL_MODEL, "small.toml", &s->model, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_llm_gpu_parse(H100, "h100.toml", &s->gpu, &err), TN_OK);
    tn_llm_training_init(&s->training);
    tn_llm_layout_init(&s->layout);
    s->layout.size[TN_LLM_DIM_TP] = tp;
    s->layout.size[TN_LLM_DIM_PP] = pp;
    s->layout.size[TN_LLM_DIM_DP] = dp;
    s->training.global_batch = (uint64_t)m * dp;
}

/* Collectives of type c serving `serves` in rank r's program, and their bytes. */
static uint32_t
count_nodes(const tn_chakra_trace* t, tn_chakra_kind kind, int c, uint32_t serves, uint64_t* bytes)
{
    uint32_t n = 0;
    *bytes = 0;
    for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
    {
        const tn_chakra_node* node = tn_chakra_node_at(t, i);
        if (node->kind == kind && (c < 0 || (int)node->collective == c) && node->serves == serves)
        {
            n++;
            *bytes += node->comm_bytes;
        }
    }
    return n;
}

static void
test_files(tn_test_ctx* ctx)
{
    tn_llm_model model;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_llm_model_parse(SMALL_MODEL, "small.toml", &model, &err), TN_OK);
    TN_CHECK_EQ(ctx, model.layers, 8);
    TN_CHECK_EQ(ctx, model.hidden, 256);
    TN_CHECK(ctx, strcmp(model.name, "small") == 0);
    TN_CHECK_EQ(ctx, model.bytes_per_element, 2);

    struct
    {
        const char* text;
        const char* message;
    } bad[] = {
        {"layers = 8\nhiden = 3\n", "m.toml:2: unknown key 'hiden'"},
        {"layers = 8x\n", "m.toml:1: key layers: '8x' is not a positive integer below 2^32"},
        {"layers = 0\n", "m.toml:1: key layers: '0' is not a positive integer"},
        {"layers = 8\nhidden = 256\nffn_hidden = 1024\nheads = 8\nseq_len = 128\n",
         "m.toml: key vocab: missing (required)"},
        {"layers = 8\nlayers = 8\n", "m.toml:2: key layers: given twice"},
        {"[gpu]\n", "m.toml:1: '[gpu]': only [model] may head this file"},
        {"layers 8\n", "m.toml:1: 'layers 8' is not key = value"},
        {"layers = 8\nhidden = 256\nffn_hidden = 1024\nheads = 8\nseq_len = 128\nvocab = 0\n"
         "experts = 8\n",
         "m.toml: key top_k: missing (an MoE model, experts 8, needs it)"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        TN_CHECK_EQ(ctx, tn_llm_model_parse(bad[i].text, "m.toml", &model, &err), TN_EPARSE);
        TN_CHECK_MSG(ctx,
                     strncmp(err.message, bad[i].message, strlen(bad[i].message)) == 0,
                     "case %zu: got '%s', want '%s'",
                     i,
                     err.message,
                     bad[i].message);
    }
    tn_llm_gpu gpu;
    TN_CHECK_EQ(ctx, tn_llm_gpu_parse(H100, "h100.toml", &gpu, &err), TN_OK);
    TN_CHECK_NEAR(ctx, tn_llm_gpu_flops(&gpu, 2), 989e12 * 0.5, 1);
    TN_CHECK_NEAR(ctx, tn_llm_gpu_bytes_per_second(&gpu), 3350e9 * 0.8, 1);
    TN_CHECK_EQ(ctx,
                tn_llm_gpu_parse("tflops_bf16 = 1\nmemory_gbps = 1\nflops_efficiency = 1.5\n",
                                 "g.toml",
                                 &gpu,
                                 &err),
                TN_EPARSE);
    TN_CHECK(ctx, strstr(err.message, "flops_efficiency") != NULL);
    char path[512];
    TN_CHECK_EQ(ctx,
                tn_llm_model_load(tn_test_temp_path(ctx, "absent-model.toml", path, sizeof(path)),
                                  &model,
                                  &err),
                TN_EIO);
}

static void
test_checks(tn_test_ctx* ctx)
{
    setup s;
    tn_error err;
    small_setup(ctx, &s, 2, 2, 2, 4);
    TN_CHECK_EQ(ctx, tn_llm_check(&s.model, &s.gpu, &s.training, &s.layout, 8, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_llm_micro_batches(&s.training, &s.layout), 4);

    struct
    {
        const char* what;
        uint32_t npus;
        const char* message;
    } bad[] = {
        {"npus", 16, "tp: tp 2 x pp 2 x dp 2 x ep 1 = 8 ranks, but the system has 16 NPUs"},
        {"pp3", 12, "pp: 8 layers are not divisible by pp 3 x vpp 1"},
        {"vpp3", 8, "vpp: 8 layers are not divisible by pp 2 x vpp 3"},
        {"tp3", 12, "tp: 8 heads are not divisible by tp 3"},
        {"ep3", 24, "ep: 8 experts are not divisible by ep 3"},
        {"ep-dense", 16, "ep: ep 2 needs an MoE model"},
        {"batch", 8, "global_batch: 9 is not a positive multiple of micro_batch 1 x dp 2 x ep 1"},
        {"vpp-m", 8, "vpp: the interleaved schedule needs pp >= 2 and micro-batches (3)"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        setup b;
        small_setup(ctx, &b, 2, 2, 2, 4);
        if (strcmp(bad[i].what, "pp3") == 0)
        {
            b.layout.size[TN_LLM_DIM_PP] = 3;
        }
        else if (strcmp(bad[i].what, "vpp3") == 0)
        {
            b.layout.vpp = 3;
        }
        else if (strcmp(bad[i].what, "tp3") == 0)
        {
            b.layout.size[TN_LLM_DIM_TP] = 3;
        }
        else if (strcmp(bad[i].what, "ep3") == 0)
        {
            b.model.experts = 8;
            b.model.top_k = 2;
            b.model.expert_ffn_hidden = 512;
            b.layout.size[TN_LLM_DIM_EP] = 3;
            b.training.global_batch = 24;
        }
        else if (strcmp(bad[i].what, "ep-dense") == 0)
        {
            b.layout.size[TN_LLM_DIM_EP] = 2;
            b.training.global_batch = 16;
        }
        else if (strcmp(bad[i].what, "batch") == 0)
        {
            b.training.global_batch = 9;
        }
        else if (strcmp(bad[i].what, "vpp-m") == 0)
        {
            b.layout.vpp = 2;
            b.training.global_batch = 6;
        }
        TN_CHECK_EQ(ctx,
                    tn_llm_check(&b.model, &b.gpu, &b.training, &b.layout, bad[i].npus, &err),
                    TN_EINVAL);
        TN_CHECK_MSG(ctx,
                     strncmp(err.message, bad[i].message, strlen(bad[i].message)) == 0,
                     "%s: got '%s', want '%s'",
                     bad[i].what,
                     err.message,
                     bad[i].message);
    }
}

static void
test_placement(tn_test_ctx* ctx)
{
    tn_llm_layout layout;
    tn_llm_layout_init(&layout);
    layout.size[TN_LLM_DIM_TP] = 4;
    layout.size[TN_LLM_DIM_EP] = 2;
    layout.size[TN_LLM_DIM_DP] = 3;
    layout.size[TN_LLM_DIM_PP] = 2;
    // Megatron's order: tp innermost, pp outermost
    for (uint32_t r = 0; r < 48; r++)
    {
        uint32_t c[TN_LLM_DIMS];
        tn_llm_coord(&layout, r, c);
        TN_CHECK_EQ(ctx,
                    c[TN_LLM_DIM_TP] +
                        4 * (c[TN_LLM_DIM_EP] + 2 * (c[TN_LLM_DIM_DP] + 3 * c[TN_LLM_DIM_PP])),
                    r);
        TN_CHECK_EQ(ctx, tn_llm_rank_of(&layout, c), r);
    }
    tn_error err;
    TN_CHECK_EQ(ctx, tn_llm_parse_order("pp-dp,tp,ep", layout.order, &err), TN_OK);
    uint32_t c[TN_LLM_DIMS];
    tn_llm_coord(&layout, 7, c); // 7 = pp 1 + 2 * (dp 0 + 3 * (tp 1 + 4 * ep 0))
    TN_CHECK_EQ(ctx, c[TN_LLM_DIM_PP], 1);
    TN_CHECK_EQ(ctx, c[TN_LLM_DIM_DP], 0);
    TN_CHECK_EQ(ctx, c[TN_LLM_DIM_TP], 1);
    TN_CHECK_EQ(ctx, c[TN_LLM_DIM_EP], 0);
    TN_CHECK_EQ(ctx, tn_llm_rank_of(&layout, c), 7);
    TN_CHECK_EQ(ctx, tn_llm_parse_order("tp,tp,dp,pp", layout.order, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_llm_parse_order("tp,ep,dp", layout.order, &err), TN_EINVAL);
}

static void
test_flops(tn_test_ctx* ctx)
{
    tn_llm_model model;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_llm_model_parse(SMALL_MODEL, "small.toml", &model, &err), TN_OK);
    // GPT (FFN 4h, no GQA): 24 b s h^2 + 4 b s^2 h per layer forward (Narayanan et al.)
    const double b = 2, s = 128, h = 256;
    TN_CHECK_NEAR(ctx,
                  tn_llm_layer_forward_flops(&model, 0, 2),
                  24 * b * s * h * h + 4 * b * s * s * h,
                  1e-6);
    uint64_t dense, expert;
    tn_llm_layer_params(&model, 0, &dense, &expert);
    TN_CHECK_EQ(ctx, dense, 12 * 256 * 256);
    TN_CHECK_EQ(ctx, expert, 0);
    // GQA with 2 KV heads of 8 and a gated FFN: K and V shrink by 4, the FFN has 3 matrices
    model.kv_heads = 2;
    model.gated_ffn = 1;
    TN_CHECK_NEAR(ctx,
                  tn_llm_layer_forward_flops(&model, 0, 1),
                  2 * s * h * (2 * h + 2 * h / 4) + 4 * s * s * h + 2 * s * h * 1024 * 3,
                  1e-6);
}

/* A program's counts of each kind per rank against the closed forms of the contract. */
static void
check_dense_program(tn_test_ctx* ctx, int sp, int dist)
{
    setup s;
    tn_error err;
    small_setup(ctx, &s, 2, 2, 2, 4);
    s.layout.sequence_parallel = sp;
    s.training.distributed_optimizer = dist;
    tn_llm_program* prog = NULL;
    TN_CHECK_EQ(ctx,
                tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &prog, &err),
                TN_OK);
    if (!prog)
    {
        return;
    }
    TN_CHECK_EQ(ctx,
                tn_chakra_check((tn_chakra_trace**)tn_llm_program_traces(prog), 8, &err),
                TN_OK);
    const uint64_t m = 4, layers_per_stage = 4, bsh = 1 * 128 * 256 * 2;
    for (uint32_t r = 0; r < 8; r++)
    {
        const tn_chakra_trace* t = tn_llm_program_trace(prog, r);
        uint64_t bytes;
        // TP: 2 all-reduces forward and 2 backward of b s h per layer and micro-batch
        const uint64_t tp_per_kind = layers_per_stage * m * 4;
        if (!sp)
        {
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_ALL_REDUCE, TN_SERVES_TP, &bytes),
                tp_per_kind);
            TN_CHECK_EQ(ctx, bytes, tp_per_kind * bsh);
        }
        else
        {
            // sequence parallelism: an all-gather and a reduce-scatter in place of each
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_ALL_REDUCE, TN_SERVES_TP, &bytes),
                0);
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_ALL_GATHER, TN_SERVES_TP, &bytes),
                tp_per_kind);
            TN_CHECK_EQ(ctx, bytes, tp_per_kind * bsh);
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_REDUCE_SCATTER, TN_SERVES_TP, &bytes),
                tp_per_kind);
            TN_CHECK_EQ(ctx, bytes, tp_per_kind * bsh);
        }
        // PP: one activation each way per micro-batch and stage boundary
        uint32_t coord[TN_LLM_DIMS];
        tn_llm_coord(&s.layout, r, coord);
        TN_CHECK_EQ(ctx, count_nodes(t, TN_CHAKRA_SEND, -1, TN_SERVES_PP, &bytes), m);
        TN_CHECK_EQ(ctx, bytes, m * bsh);
        TN_CHECK_EQ(ctx, count_nodes(t, TN_CHAKRA_RECV, -1, TN_SERVES_PP, &bytes), m);
        // DP: the stage's parameters (its TP shard) once, in buckets of a layer
        const uint64_t params = layers_per_stage * 12 * 256 * 256 / 2 * 2;
        if (!dist)
        {
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_ALL_REDUCE, TN_SERVES_DP, &bytes),
                layers_per_stage);
            TN_CHECK_EQ(ctx, bytes, params);
        }
        else
        {
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_REDUCE_SCATTER, TN_SERVES_DP, &bytes),
                layers_per_stage);
            TN_CHECK_EQ(ctx, bytes, params);
            TN_CHECK_EQ(
                ctx,
                count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_ALL_GATHER, TN_SERVES_DP, &bytes),
                layers_per_stage);
            TN_CHECK_EQ(ctx, bytes, params);
        }
        // the DP group: the other replica of this (tp, pp) coordinate
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            if (n->kind == TN_CHAKRA_COLLECTIVE && n->serves == TN_SERVES_DP)
            {
                TN_CHECK_EQ(ctx, n->group_count, 2);
                TN_CHECK_EQ(ctx, n->group[1] - n->group[0], 2); // dp stride: tp 2 x ep 1
            }
            if (n->kind == TN_CHAKRA_COLLECTIVE && n->serves == TN_SERVES_TP)
            {
                TN_CHECK_EQ(ctx, n->group[1] - n->group[0], 1); // TP innermost
            }
        }
    }
    tn_llm_program_destroy(prog);
}

static void
test_dense(tn_test_ctx* ctx)
{
    check_dense_program(ctx, 0, 0);
    check_dense_program(ctx, 1, 0);
    check_dense_program(ctx, 0, 1);
}

static void
test_moe(tn_test_ctx* ctx)
{
    setup s;
    tn_error err;
    small_setup(ctx, &s, 1, 1, 1, 2);
    s.model.experts = 8;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 512;
    s.model.moe_layer_interval = 2; // layers 0, 2, 4, 6
    s.layout.size[TN_LLM_DIM_EP] = 4;
    s.layout.size[TN_LLM_DIM_DP] = 2;
    s.training.global_batch = 2 * 8;
    tn_llm_program* prog = NULL;
    TN_CHECK_EQ(ctx, tn_llm_check(&s.model, &s.gpu, &s.training, &s.layout, 8, &err), TN_OK);
    TN_CHECK_EQ(ctx,
                tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &prog, &err),
                TN_OK);
    if (!prog)
    {
        return;
    }
    TN_CHECK_EQ(ctx,
                tn_chakra_check((tn_chakra_trace**)tn_llm_program_traces(prog), 8, &err),
                TN_OK);
    const uint64_t m = 2, moe_layers = 4, bsh = 128 * 256 * 2;
    for (uint32_t r = 0; r < 8; r++)
    {
        const tn_chakra_trace* t = tn_llm_program_trace(prog, r);
        uint64_t bytes;
        // dispatch and combine, forward and backward, of b s h top-k per MoE layer and mb
        TN_CHECK_EQ(ctx,
                    count_nodes(t, TN_CHAKRA_COLLECTIVE, TN_COLL_ALL_TO_ALL, TN_SERVES_EP, &bytes),
                    moe_layers * m * 4);
        TN_CHECK_EQ(ctx, bytes, moe_layers * m * 4 * bsh * 2);
        // DP: dense parameters over ep x dp = 8 ranks, experts (2 per rank) over dp = 2
        uint64_t dense_bytes = 0, expert_bytes = 0;
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            if (n->kind == TN_CHAKRA_COLLECTIVE && n->serves == TN_SERVES_DP)
            {
                TN_CHECK(ctx, n->group_count == 8 || n->group_count == 2);
                *(n->group_count == 8 ? &dense_bytes : &expert_bytes) += n->comm_bytes;
            }
        }
        const uint64_t attention = 4 * 256 * 256;
        const uint64_t dense = 8 * attention + 4 * 256 * 1024 * 2 + 4 * 256 * 8;
        TN_CHECK_EQ(ctx, dense_bytes, dense * 2);
        TN_CHECK_EQ(ctx, expert_bytes, 4 * (256 * 512 * 2) * 2 * 2);
    }
    tn_llm_program_destroy(prog);
    // the size the all-to-alls above carry, for callers that run one alone (bench-scale)
    TN_CHECK_EQ(ctx, tn_llm_ep_all_to_all_bytes(&s.model, &s.training, &s.layout), bsh * 2);
    s.layout.size[TN_LLM_DIM_TP] = 4; // without sequence parallelism every TP rank sends s
    TN_CHECK_EQ(ctx, tn_llm_ep_all_to_all_bytes(&s.model, &s.training, &s.layout), bsh * 2);
    s.layout.sequence_parallel = 1; // with it, s / tp
    TN_CHECK_EQ(ctx, tn_llm_ep_all_to_all_bytes(&s.model, &s.training, &s.layout), bsh * 2 / 4);
    s.model.experts = 0;
    TN_CHECK_EQ(ctx, tn_llm_ep_all_to_all_bytes(&s.model, &s.training, &s.layout), 0);
}

/* The order of forward (F) and backward (B) steps of a stage, read off its kernels. */
static void
step_order(const tn_chakra_trace* t, char* out, size_t size)
{
    size_t n = 0;
    for (uint32_t i = 0; i < tn_chakra_node_count(t) && n + 1 < size; i++)
    {
        const char* name = tn_chakra_node_at(t, i)->name;
        // the first kernel of a step: attention of the step's first layer (F) or MLP (B)
        if ((name[0] == 'F' && strstr(name, ".attn") && !strstr(name, ".attn.")) ||
            (name[0] == 'B' && strstr(name, ".mlp") && !strstr(name, ".mlp.")))
        {
            const char* dot = strchr(name, '.');
            uint32_t layer = 0;
            sscanf(dot, ".L%u", &layer);
            if ((name[0] == 'F' && layer % 2 == 0) || (name[0] == 'B' && layer % 2 == 1))
            {
                out[n++] = name[0];
            }
        }
    }
    out[n] = '\0';
}

static void
test_schedules(tn_test_ctx* ctx)
{
    setup s;
    tn_error err;
    small_setup(ctx, &s, 1, 4, 1, 8);
    s.model.layers = 8;
    tn_llm_program* prog = NULL;
    TN_CHECK_EQ(ctx,
                tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &prog, &err),
                TN_OK);
    // 1F1B: stage p runs pp - p - 1 forwards first, then alternates, then drains
    const char* want[4] = {"FFFFBFBFBFBFBBBB",
                           "FFFBFBFBFBFBFBBB",
                           "FFBFBFBFBFBFBFBB",
                           "FBFBFBFBFBFBFBFB"};
    for (uint32_t p = 0; prog && p < 4; p++)
    {
        char got[64];
        step_order(tn_llm_program_trace(prog, p), got, sizeof(got));
        TN_CHECK_MSG(ctx, strcmp(got, want[p]) == 0, "stage %u: %s, want %s", p, got, want[p]);
    }
    tn_llm_program_destroy(prog);
    // GPipe: every forward, then every backward
    s.layout.schedule = TN_LLM_SCHEDULE_GPIPE;
    TN_CHECK_EQ(ctx,
                tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &prog, &err),
                TN_OK);
    if (prog)
    {
        char got[64];
        step_order(tn_llm_program_trace(prog, 1), got, sizeof(got));
        TN_CHECK(ctx, strcmp(got, "FFFFFFFFBBBBBBBB") == 0);
        TN_CHECK_EQ(ctx,
                    tn_chakra_check((tn_chakra_trace**)tn_llm_program_traces(prog), 4, &err),
                    TN_OK);
    }
    tn_llm_program_destroy(prog);
    // interleaved, vpp 2: (pp - p - 1) * 2 + (vpp - 1) * pp forwards of warm-up
    s.layout.schedule = TN_LLM_SCHEDULE_1F1B;
    s.layout.vpp = 2;
    TN_CHECK_EQ(ctx,
                tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &prog, &err),
                TN_OK);
    if (prog)
    {
        TN_CHECK_EQ(ctx,
                    tn_chakra_check((tn_chakra_trace**)tn_llm_program_traces(prog), 4, &err),
                    TN_OK);
        for (uint32_t p = 0; p < 4; p++)
        {
            // one layer per chunk: every forward and backward kernel is a step
            uint32_t warm = 0;
            const tn_chakra_trace* t = tn_llm_program_trace(prog, p);
            for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
            {
                const char* name = tn_chakra_node_at(t, i)->name;
                if (name[0] == 'B')
                {
                    break;
                }
                warm += name[0] == 'F' && strstr(name, ".attn") && !strstr(name, ".attn.");
            }
            TN_CHECK_EQ(ctx, warm, (4 - p - 1) * 2 + 4 + 1);
        }
    }
    tn_llm_program_destroy(prog);
}

/* With data parallelism outermost the replicas are translates: rank r's program is that of
 * r mod R (R ranks per replica) with every rank it names shifted by r - r mod R; a symmetric
 * run generates the first replica alone (tn_llm_program_create_some). */
static void
test_replicas(tn_test_ctx* ctx)
{
    setup s;
    tn_error err;
    small_setup(ctx, &s, 2, 2, 3, 4);
    s.model.experts = 4;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 512;
    s.model.moe_layer_interval = 2;
    s.layout.size[TN_LLM_DIM_EP] = 2;
    s.layout.sequence_parallel = 1;
    s.training.distributed_optimizer = 1;
    TN_REQUIRE(ctx, tn_llm_parse_order("tp,ep,pp,dp", s.layout.order, &err) == TN_OK);
    const uint32_t n = 24, per_replica = 8;
    tn_llm_program* prog = NULL;
    tn_llm_program* some = NULL;
    TN_REQUIRE(ctx,
               tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &prog, &err) ==
                   TN_OK);
    TN_CHECK_EQ(ctx,
                tn_llm_program_create_some(&s.model,
                                           &s.gpu,
                                           &s.training,
                                           &s.layout,
                                           per_replica,
                                           &some,
                                           &err),
                TN_OK);
    uint32_t image[24];
    for (uint32_t r = 0; r < n; r++)
    {
        for (uint32_t x = 0; x < n; x++)
        {
            image[x] = (x + r - r % per_replica) % n;
        }
        TN_CHECK_MSG(ctx,
                     tn_chakra_compare_translate(tn_llm_program_trace(prog, r % per_replica),
                                                 tn_llm_program_trace(prog, r),
                                                 image,
                                                 n,
                                                 NULL,
                                                 &err) == TN_OK,
                     "rank %u: %s",
                     r,
                     err.message);
        /* the representatives' traces alone, the same as the whole program's */
        const tn_chakra_trace* t = some ? tn_llm_program_trace(some, r) : NULL;
        TN_CHECK(ctx, (t != NULL) == (r < per_replica));
        for (uint32_t x = 0; x < n; x++)
        {
            image[x] = x;
        }
        TN_CHECK(ctx,
                 !t || tn_chakra_compare_translate(tn_llm_program_trace(prog, r),
                                                   t,
                                                   image,
                                                   n,
                                                   NULL,
                                                   &err) == TN_OK);
    }
    /* the present ranks check together; the whole set would miss them */
    TN_CHECK_MSG(ctx,
                 some && tn_chakra_check_present((tn_chakra_trace**)tn_llm_program_traces(some),
                                                 n,
                                                 &err) == TN_OK,
                 "%s",
                 err.message);
    TN_CHECK(ctx,
             some && tn_chakra_check((tn_chakra_trace**)tn_llm_program_traces(some), n, &err) ==
                         TN_EINVAL);
    /* Megatron's order (dp inside pp) is not a shift by a replica: the last stage's peers */
    tn_llm_program* inner = NULL;
    TN_REQUIRE(ctx, tn_llm_parse_order("tp,ep,dp,pp", s.layout.order, &err) == TN_OK);
    TN_REQUIRE(ctx,
               tn_llm_program_create(&s.model, &s.gpu, &s.training, &s.layout, &inner, &err) ==
                   TN_OK);
    uint32_t differ = 0;
    for (uint32_t r = per_replica; r < n; r++)
    {
        for (uint32_t x = 0; x < n; x++)
        {
            image[x] = (x + r - r % per_replica) % n;
        }
        differ += tn_chakra_compare_translate(tn_llm_program_trace(inner, r % per_replica),
                                              tn_llm_program_trace(inner, r),
                                              image,
                                              n,
                                              NULL,
                                              &err) != TN_OK;
    }
    TN_CHECK_MSG(ctx, differ > 0, "dp inside pp: every rank a shift by %u", per_replica);
    tn_llm_program_destroy(inner);
    tn_llm_program_destroy(some);
    tn_llm_program_destroy(prog);
}

/* Every shipped preset reads, and the published figures come through. */
static void
test_presets(tn_test_ctx* ctx)
{
    static const char* const models[] = {"gpt3-175b",
                                         "llama3-8b",
                                         "llama3-70b",
                                         "llama3-405b",
                                         "llama3-405b-like",
                                         "mixtral-8x7b",
                                         "deepseek-v3-like"};
    static const char* const gpus[] = {"a100", "h100", "b200"};
    char name[128];
    char path[512];
    tn_error err;
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
    {
        tn_llm_model model;
        snprintf(name, sizeof(name), "../../scenarios/models/%s.toml", models[i]);
        TN_CHECK_MSG(ctx,
                     tn_llm_model_load(tn_test_data_path(ctx, name, path, sizeof(path)),
                                       &model,
                                       &err) == TN_OK,
                     "%s: %s",
                     models[i],
                     err.message);
        TN_CHECK_MSG(ctx, strcmp(model.name, models[i]) == 0, "%s: name %s", models[i], model.name);
        // 175B parameters: 12 h^2 per layer and the embedding
        if (i == 0)
        {
            uint64_t dense, expert;
            tn_llm_layer_params(&model, 0, &dense, &expert);
            const double total = 96.0 * dense + (double)model.vocab * model.hidden;
            TN_CHECK_MSG(ctx, total > 174e9 && total < 176e9, "GPT-3: %.3g parameters", total);
        }
    }
    for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
    {
        tn_llm_gpu gpu;
        snprintf(name, sizeof(name), "../../scenarios/gpus/%s.toml", gpus[i]);
        TN_CHECK_MSG(
            ctx,
            tn_llm_gpu_load(tn_test_data_path(ctx, name, path, sizeof(path)), &gpu, &err) == TN_OK,
            "%s: %s",
            gpus[i],
            err.message);
        TN_CHECK(ctx, tn_llm_gpu_flops(&gpu, 2) > 100e12);
    }
}

void
tn_suite_llm(tn_test_suite* suite)
{
    tn_test_add(suite, "files", test_files);
    tn_test_add(suite, "checks", test_checks);
    tn_test_add(suite, "placement", test_placement);
    tn_test_add(suite, "flops", test_flops);
    tn_test_add(suite, "dense", test_dense);
    tn_test_add(suite, "moe", test_moe);
    tn_test_add(suite, "schedules", test_schedules);
    tn_test_add(suite, "presets", test_presets);
    tn_test_add(suite, "replicas", test_replicas);
}
