/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-simai: SimAI / AICB workload files read as they are, and the program of every rank of
 * one training iteration generated from them as Chakra-shaped traces (tn-chakra.h), which
 * the NPUs run as any Chakra trace (TrainingHelper::LoadSimai). doc/simai.rst is the
 * migration page.
 *
 * Format (the grammar of SimAI's astra-sim-alibabacloud Workload::initialize_workload)
 * ------
 * Fields are separated by runs of spaces or tabs; '\r' is ignored.
 *  - line 1: POLICY then keys with their values, in any order, each once:
 *      model_parallel_NPU_group: T   ep: E   pp: P   vpp: V   ga: G   all_gpus: N
 *      checkpoints: K l1 .. lK   checkpoint_initiates: M i1 .. iM   pp_comm B (or pp_comm: B)
 *    POLICY: HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD or HYBRID_CUSTOMIZED (the
 *    ASTRA-sim 1.0 policies without these keys are read by tn-workload.h). The six sizes are
 *    required and >= 1. pp_comm (bytes of one pipeline transfer) is required when P > 1 and
 *    refused when P = 1 (SimAI warns of a "format mismatch" for both). checkpoints and
 *    checkpoint_initiates must list no layer (K = M = 0): activation recomputation is
 *    refused. Any other token is refused.
 *  - line 2: the number of layer lines L >= 1.
 *  - L layer lines of 12 fields (13 for HYBRID_CUSTOMIZED):
 *      1 name  2 dependency (ignored)  3 fwd_compute  4 fwd_comm_type  5 fwd_comm_bytes
 *      6 ig_compute  7 ig_comm_type  8 ig_comm_bytes  9 wg_compute  10 wg_comm_type
 *      11 wg_comm_bytes  12 update_time  [13 the layer's policy, any ASTRA-sim 1.0 name but
 *      HYBRID_CUSTOMIZED: checked and kept; SimAI's groups come from the comm type alone]
 *    Comm types: NONE, or ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, ALLREDUCEALLTOALL,
 *    each bare or with the suffix _EP or _DP_EP. A bare type runs in the TP group in the
 *    forward and input-gradient passes and in the DP group in the weight-gradient pass; _EP
 *    in the EP group, _DP_EP in the DP_EP group (SimAI's MockNccl group types).
 *  Times are in nanoseconds: SimAI's Tick is one CLOCK_PERIOD of 1 ns (system/Common.hh) and
 *  the compute columns are Ticks; it prints Tick / FREQ (FREQ = 1000) as microseconds.
 *  Each compute or update time is at most TN_WORKLOAD_MAX_CYCLES; bytes at most TN_BYTES_MAX.
 *
 * Errors: ONE TN_EPARSE error naming the file, the line and the token:
 * "gpt.txt:1: 'vpp:' is missing", "gpt.txt:7: field 4 'ALLGATHER_XP': unknown comm type".
 *
 * Ranks and groups
 * ----------------
 * N = all_gpus; D = N / (T * P) data-parallel ranks, of which E form an expert group
 * (E divides D). Rank r = t + T * (p + P * d), d = e + E * x: TP groups are T consecutive
 * ranks, the DP group of r the D ranks with its t and p (stride T * P), EP the E ranks with
 * its t, p and x, DP_EP the D / E ranks with its t, p and e. With P = 1 these are the groups
 * SimAI's MockNcclGroup builds; SimAI itself never builds PP groups (it adds the pipeline
 * as a formula), here stage p's neighbours are the ranks with its t and d and p +- 1.
 * A collective in a group of one rank is left out (SimAI has no communicator for it).
 *
 * Program of a rank (one iteration): the file's layer lines are the rank's stage for one
 * micro-batch, split into V chunks of consecutive lines (chunk c holds lines
 * [c*L/V, (c+1)*L/V); virtual stage c*P + p). G micro-batches run forward then backward
 * (all forwards, then all backwards, as GPipe): a forward of chunk c first receives the
 * activation (pp_comm bytes) from the previous virtual stage, runs per line the fwd compute
 * then its fwd collective (blocking), then sends to the next virtual stage; a backward
 * receives the gradient from the next virtual stage, runs per line (last first) the ig
 * compute, the ig collective (blocking), the wg compute, then sends to the previous. The wg
 * collectives (non-blocking, as SimAI issues them) and the update time (after its layer's
 * wg collective) belong to the last micro-batch's backward. Receives are posted when the
 * kernel before them ends; sends do not block. Nodes are tagged TP, PP, DP (DP and DP_EP
 * groups) or EP (tn_chakra_node.serves).
 *
 * Ownership: the caller owns a workload (tn_simai_destroy) and a program
 * (tn_simai_program_destroy); accessors' pointers stay valid until then. No global state.
 */
#ifndef TN_SIMAI_H
#define TN_SIMAI_H

#include "tn-chakra.h"
#include "tn-error.h"
#include "tn-workload.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** The group a comm type names (its suffix and pass). */
    typedef enum tn_simai_group
    {
        TN_SIMAI_GROUP_NONE = 0,
        TN_SIMAI_GROUP_TP,
        TN_SIMAI_GROUP_DP,
        TN_SIMAI_GROUP_EP,
        TN_SIMAI_GROUP_DP_EP
    } tn_simai_group;

    /** "none", "tp", "dp", "ep", "dp_ep". */
    const char* tn_simai_group_name(tn_simai_group g);

    /** One pass of a layer line. */
    typedef struct tn_simai_pass
    {
        uint64_t compute_ns;
        tn_comm_type comm;    /**< TN_COMM_NONE: no collective */
        tn_simai_group group; /**< NONE when comm is NONE */
        uint64_t bytes;
    } tn_simai_pass;

    enum
    {
        TN_SIMAI_FWD = 0,
        TN_SIMAI_IG,
        TN_SIMAI_WG,
        TN_SIMAI_PASSES
    };

    typedef struct tn_simai_layer
    {
        const char* name;
        tn_simai_pass pass[TN_SIMAI_PASSES];
        uint64_t update_ns;
        tn_parallelism policy; /**< HYBRID_CUSTOMIZED's field 13, else the file's */
        unsigned line;
    } tn_simai_layer;

    /** Line 1. */
    typedef struct tn_simai_header
    {
        tn_parallelism policy;
        uint32_t tp, ep, pp, vpp, ga, all_gpus;
        uint64_t pp_comm; /**< 0 when pp is 1 */
    } tn_simai_header;

    typedef struct tn_simai_workload tn_simai_workload;

    /** Parse text (NUL-terminated); `name` names it in messages. */
    tn_status tn_simai_parse(const char* text,
                             const char* name,
                             tn_simai_workload** out,
                             tn_error* err);

    /** Read and parse a file named by `path` in messages. */
    tn_status tn_simai_load_file(const char* path, tn_simai_workload** out, tn_error* err);

    void tn_simai_destroy(tn_simai_workload* wl);

    const char* tn_simai_name(const tn_simai_workload* wl);
    const tn_simai_header* tn_simai_header_of(const tn_simai_workload* wl);
    uint32_t tn_simai_layer_count(const tn_simai_workload* wl);
    const tn_simai_layer* tn_simai_layer_at(const tn_simai_workload* wl, uint32_t i);

    /**
     * Check the workload against a system of `npus` NPUs: all_gpus equal to it, T * P
     * dividing it, E dividing D, V at most L. TN_EPARSE naming the file, line 1 and the key.
     */
    tn_status tn_simai_check(const tn_simai_workload* wl, uint32_t npus, tn_error* err);

    /** The rank holding TP index t, stage p and DP index d (see the contract). */
    uint32_t tn_simai_rank_of(const tn_simai_header* h, uint32_t t, uint32_t p, uint32_t d);

    typedef struct tn_simai_program tn_simai_program;

    /** Generate every rank's program (the workload must pass tn_simai_check for npus). */
    tn_status tn_simai_program_create(const tn_simai_workload* wl,
                                      uint32_t npus,
                                      tn_simai_program** out,
                                      tn_error* err);
    void tn_simai_program_destroy(tn_simai_program* program);
    uint32_t tn_simai_program_ranks(const tn_simai_program* program);

    /** The traces in rank order, for tn_chakra_check and the runner (owned by the program). */
    tn_chakra_trace* const* tn_simai_program_traces(const tn_simai_program* program);

#ifdef __cplusplus
}
#endif

#endif /* TN_SIMAI_H */
