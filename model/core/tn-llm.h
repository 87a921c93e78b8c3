/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-llm: transformer training as clusters run it (Megatron-LM's tensor, pipeline, data and
 * expert parallelism), generated from a model, a training and a layout description into one
 * Chakra-shaped program per rank (tn-chakra.h), which the NPUs run as any Chakra trace.
 * doc/llm-training.rst gives the formulas, what is modelled and what is omitted.
 *
 * Descriptions
 * ------------
 * A model (layers, hidden, FFN hidden, heads, KV heads, sequence, vocabulary, bytes per
 * element; for MoE: experts, top-k, expert FFN hidden, shared experts, which layers are MoE)
 * and a GPU (peak FLOP/s per data type, memory bandwidth, achievable fractions) are read from
 * plain `key = value` files (a TOML subset: `#` comments, integers, decimals, booleans,
 * quoted strings; a `[model]` or `[gpu]` header is allowed), which are the presets users copy
 * and edit. An unknown key, a value of the wrong form or a missing required key is ONE error
 * naming the file, the line and the key. The training (micro-batch, global batch, activation
 * recomputation, distributed optimizer) and the layout (tp, pp, vpp, dp, ep, sequence
 * parallelism, schedule, rank order) are set by the caller (scenario `[training]` table,
 * command-line options) and checked by tn_llm_check, which names the key at fault.
 *
 * Ranks
 * -----
 * N = tp * ep * dp * pp ranks. Expert parallelism is a factor of its own: the dense
 * parameters are replicated over the ep * dp ranks of a (tp, pp) coordinate and the expert
 * parameters over its dp ranks (Megatron carves EP out of its data-parallel size: its DP is
 * ep * dp here). Rank r's coordinate follows the order (innermost first, default
 * "tp,ep,dp,pp", as Megatron orders ranks): r = tp + TP * (ep + EP * (dp + DP * pp)) for the
 * default. Groups of a rank: TP (its tp varies), EP (ep varies), DP of the dense parameters
 * (ep and dp vary), DP of the expert parameters (dp varies), and its pipeline neighbours.
 *
 * Program of a rank (one iteration)
 * ---------------------------------
 * m = global_batch / (micro_batch * dp * ep) micro-batches; stage p holds the layers of its
 * vpp model chunks (chunk c is virtual stage c * pp + p, layers / (pp * vpp) layers each).
 * Every node is tagged with the parallelism it serves (tn_chakra_node.serves).
 *  - Compute kernels carry FLOPs (num_ops) and memory bytes (tensor_size): the NPU runs them
 *    at its roofline, ClockRate = achievable FLOP/s (tn_llm_gpu_flops), MemoryBandwidth =
 *    achievable bytes/s. Per layer and micro-batch the forward is two kernels (attention,
 *    then MLP or experts), the backward two at twice the FLOPs; recomputation adds the
 *    forward (full) or the attention core (selective) before a layer's backward.
 *  - TP: after each forward kernel an all-reduce of b*s*h elements in the TP group, and the
 *    same after each backward kernel (with sequence parallelism an all-gather before and a
 *    reduce-scatter after each kernel, the same volume); full recomputation repeats the
 *    forward's.
 *  - PP: the activation of a chunk's last layer goes to the next virtual stage (b*s*h
 *    elements per micro-batch, each TP rank to its counterpart) and the gradient comes back,
 *    as sends and receives ordered by the schedule: 1F1B, interleaved 1F1B (vpp > 1) or
 *    GPipe. Every kernel of a rank follows the previous one in schedule order; a receive is
 *    posted when the kernel before it in that order ends, and sends do not block.
 *  - DP: once the last micro-batch's backward of a layer is done, its gradients are reduced
 *    (one bucket per layer): an all-reduce in the DP group, or with the distributed
 *    optimizer a reduce-scatter, then after the optimizer step an all-gather of the
 *    parameters. Dense parameters over ep * dp ranks, expert parameters over dp ranks.
 *  - EP: an MoE layer's experts run between an all-to-all dispatch and an all-to-all combine
 *    in the EP group, each of b*s'*h*top_k elements per rank (s' = s / tp with sequence
 *    parallelism, else s), and both again in the backward.
 *  - The optimizer step is one memory kernel over the rank's parameters (its shard with the
 *    distributed optimizer), TN_LLM_OPTIMIZER_BYTES_PER_PARAM bytes each.
 *  - vocab > 0: the first stage's first chunk starts each micro-batch with the embedding
 *    lookup and the last stage's last chunk ends it with the output layer (logits GEMM).
 *    vocab = 0 leaves both out (the transformer blocks alone).
 *
 * Ownership: tn_llm_program_create returns the programs (tn_llm_program_destroy frees them);
 * the traces it holds stay valid until then. No global state; memory is O(nodes).
 */
#ifndef TN_LLM_H
#define TN_LLM_H

#include "tn-chakra.h"
#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** Optimizer state bytes read and written per parameter in the step (Adam, fp32 state). */
#define TN_LLM_OPTIMIZER_BYTES_PER_PARAM 16u

    /** A transformer (one line per key in its file; doc/llm-training.rst). */
    typedef struct tn_llm_model
    {
        char name[64];
        uint32_t layers;
        uint32_t hidden;
        uint32_t ffn_hidden;
        uint32_t heads;
        uint32_t kv_heads; /**< 0: as heads (no GQA) */
        uint32_t seq_len;
        uint32_t vocab; /**< 0: no embedding or output layer */
        uint32_t bytes_per_element;
        int gated_ffn; /**< SwiGLU: three FFN matrices instead of two */
        /* MoE: experts 0 is a dense model */
        uint32_t experts;
        uint32_t top_k;
        uint32_t expert_ffn_hidden;
        uint32_t shared_experts;
        uint32_t moe_layer_interval; /**< every n-th layer (from first_dense_layers) is MoE */
        uint32_t first_dense_layers;
    } tn_llm_model;

    /** A GPU: peak FLOP/s by data type and memory bandwidth, and achievable fractions. */
    typedef struct tn_llm_gpu
    {
        char name[64];
        double tflops_fp32;
        double tflops_bf16;
        double tflops_fp8;
        double memory_gbps; /**< GB/s (10^9 bytes) */
        double flops_efficiency;
        double memory_efficiency;
    } tn_llm_gpu;

    typedef enum tn_llm_recompute
    {
        TN_LLM_RECOMPUTE_NONE = 0,
        TN_LLM_RECOMPUTE_SELECTIVE,
        TN_LLM_RECOMPUTE_FULL
    } tn_llm_recompute;

    typedef enum tn_llm_schedule
    {
        TN_LLM_SCHEDULE_1F1B = 0, /**< interleaved when vpp > 1 */
        TN_LLM_SCHEDULE_GPIPE
    } tn_llm_schedule;

    /** The training run. */
    typedef struct tn_llm_training
    {
        uint32_t micro_batch;
        uint64_t global_batch;
        tn_llm_recompute recompute;
        int distributed_optimizer;
    } tn_llm_training;

    /** Coordinates of a rank: indexes into TN_LLM_DIM_*. */
    enum
    {
        TN_LLM_DIM_TP = 0,
        TN_LLM_DIM_EP,
        TN_LLM_DIM_DP,
        TN_LLM_DIM_PP,
        TN_LLM_DIMS
    };

    /** How the ranks are laid out. */
    typedef struct tn_llm_layout
    {
        uint32_t size[TN_LLM_DIMS]; /**< tp, ep, dp, pp */
        uint32_t vpp;
        int sequence_parallel;
        tn_llm_schedule schedule;
        uint8_t order[TN_LLM_DIMS]; /**< dims innermost first (tn_llm_parse_order) */
    } tn_llm_layout;

    /** Defaults: GPT-style dense model fields zero; training micro 1; layout all 1, 1F1B. */
    void tn_llm_model_init(tn_llm_model* model);
    void tn_llm_gpu_init(tn_llm_gpu* gpu);
    void tn_llm_training_init(tn_llm_training* training);
    void tn_llm_layout_init(tn_llm_layout* layout);

    /** "tp", "ep", "dp", "pp". */
    const char* tn_llm_dim_name(int dim);

    /** Parse "none", "selective", "full" / "1f1b", "interleaved", "gpipe" (interleaved: 1F1B). */
    tn_status tn_llm_parse_recompute(const char* s, tn_llm_recompute* out, tn_error* err);
    tn_status tn_llm_parse_schedule(const char* s, tn_llm_schedule* out, tn_error* err);
    const char* tn_llm_recompute_name(tn_llm_recompute r);
    const char* tn_llm_schedule_name(const tn_llm_layout* layout);

    /**
     * Parse a rank order: the four dims innermost first, separated by ',' or '-'
     * ("tp,ep,dp,pp"); each exactly once.
     */
    tn_status tn_llm_parse_order(const char* s, uint8_t order[TN_LLM_DIMS], tn_error* err);

    /** Read a model / GPU file (see the contract); messages name `path`, line and key. */
    tn_status tn_llm_model_load(const char* path, tn_llm_model* model, tn_error* err);
    tn_status tn_llm_gpu_load(const char* path, tn_llm_gpu* gpu, tn_error* err);

    /** The same from text in memory; `name` names it in messages. */
    tn_status tn_llm_model_parse(const char* text,
                                 const char* name,
                                 tn_llm_model* model,
                                 tn_error* err);
    tn_status tn_llm_gpu_parse(const char* text, const char* name, tn_llm_gpu* gpu, tn_error* err);

    /**
     * Check the four descriptions together for `npus` NPUs (0: not checked); the error names
     * the key at fault and why ("tp: 48 heads are not divisible by tp 5").
     */
    tn_status tn_llm_check(const tn_llm_model* model,
                           const tn_llm_gpu* gpu,
                           const tn_llm_training* training,
                           const tn_llm_layout* layout,
                           uint32_t npus,
                           tn_error* err);

    /** Ranks of the layout: the product of its four sizes. */
    uint64_t tn_llm_ranks(const tn_llm_layout* layout);

    /** Micro-batches per iteration: global_batch / (micro_batch * dp * ep). */
    uint64_t tn_llm_micro_batches(const tn_llm_training* training, const tn_llm_layout* layout);

    /** The coordinate of rank r (tn_llm_rank_of is its inverse). */
    void tn_llm_coord(const tn_llm_layout* layout, uint32_t rank, uint32_t coord[TN_LLM_DIMS]);
    uint32_t tn_llm_rank_of(const tn_llm_layout* layout, const uint32_t coord[TN_LLM_DIMS]);

    /** Achievable FLOP/s for the model's element size, and achievable memory bytes/s. */
    double tn_llm_gpu_flops(const tn_llm_gpu* gpu, uint32_t bytes_per_element);
    double tn_llm_gpu_bytes_per_second(const tn_llm_gpu* gpu);

    /** 1 when layer l (0-based) is an MoE layer. */
    int tn_llm_layer_is_moe(const tn_llm_model* model, uint32_t layer);

    /** Forward FLOPs of layer l for one micro-batch, the whole layer (before TP splits it). */
    double tn_llm_layer_forward_flops(const tn_llm_model* model,
                                      uint32_t layer,
                                      uint32_t micro_batch);

    /** Parameters of layer l: dense (attention, dense MLP, shared experts) and per expert. */
    void tn_llm_layer_params(const tn_llm_model* model,
                             uint32_t layer,
                             uint64_t* dense,
                             uint64_t* per_expert);

    /**
     * Bytes per rank of one EP all-to-all (an MoE layer's dispatch or combine, per
     * micro-batch): b*s'*h*top_k elements (s' = s / tp with sequence parallelism, else s).
     * The generator's all-to-alls carry this size; 0 for a dense model (experts 0).
     */
    uint64_t tn_llm_ep_all_to_all_bytes(const tn_llm_model* model,
                                        const tn_llm_training* training,
                                        const tn_llm_layout* layout);

    /** The programs of every rank for one iteration. */
    typedef struct tn_llm_program tn_llm_program;

    /** Generate them (the descriptions must pass tn_llm_check). */
    tn_status tn_llm_program_create(const tn_llm_model* model,
                                    const tn_llm_gpu* gpu,
                                    const tn_llm_training* training,
                                    const tn_llm_layout* layout,
                                    tn_llm_program** out,
                                    tn_error* err);

    /**
     * Generate the traces of the ranks below `generated` only (0: all); the others are NULL
     * (tn_llm_program_trace): ranks a symmetric run's representatives stand for, whose
     * programs are the representatives' translated (test/core/test-llm.c checks it for data
     * parallelism outermost).
     */
    tn_status tn_llm_program_create_some(const tn_llm_model* model,
                                         const tn_llm_gpu* gpu,
                                         const tn_llm_training* training,
                                         const tn_llm_layout* layout,
                                         uint32_t generated,
                                         tn_llm_program** out,
                                         tn_error* err);
    void tn_llm_program_destroy(tn_llm_program* program);

    uint32_t tn_llm_program_ranks(const tn_llm_program* program);

    /** The layout the program was generated for (a copy it holds). */
    const tn_llm_layout* tn_llm_program_layout(const tn_llm_program* program);

    /** Rank r's trace (< ranks); owned by the program. */
    tn_chakra_trace* tn_llm_program_trace(const tn_llm_program* program, uint32_t rank);

    /** The traces in rank order (ranks of them), for tn_chakra_check and the runner. */
    tn_chakra_trace* const* tn_llm_program_traces(const tn_llm_program* program);

#ifdef __cplusplus
}
#endif

#endif /* TN_LLM_H */
