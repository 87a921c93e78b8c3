/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-workload: reader of ASTRA-sim 1.0 text workloads (doc/core-workload.rst) and
 * the communication groups their parallelism implies.
 *
 * Format
 * ------
 * Columns are separated by any run of spaces or tabs; '\r' (CRLF files) and
 * trailing space are ignored; blank lines are skipped but counted (messages give
 * the real line numbers).
 *  - line 1: PARALLELISM [HYBRID_DLRM only: LAST_BOTTOM_LAYER]
 *            [model_parallel_NPU_group: N]
 *            [HYBRID_TRANSFORMER_FWD_IN_BCKWD only: checkpoints: K L1 .. LK
 *             checkpoint_initiates: M I1 .. IM]
 *    PARALLELISM is one of DATA, HYBRID_TRANSFORMER, HYBRID_DLRM, MODEL,
 *    HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, MICRO,
 *    HYBRID_TRANSFORMER_FWD_IN_BCKWD.
 *    LAST_BOTTOM_LAYER (HYBRID_DLRM): index of the last bottom-MLP layer, < the
 *    layer count. N >= 1: the model-parallel group size. The keys come in any
 *    order, each once; line 1 may have any number of fields.
 *    Activation recomputation (HYBRID_TRANSFORMER_FWD_IN_BCKWD, ASTRA-sim 1.0
 *    Workload::iterate_hybrid_parallel_Transformer_fwd_in_bckwd): the layers L are
 *    checkpoints (their activations are kept); when the backward pass reaches a
 *    layer I of checkpoint_initiates, before I's input-gradient pass it runs again
 *    the forward passes (compute and blocking forward collective) of the layers
 *    C..I-1, C the nearest checkpoint <= I (tn_workload_recompute_from). Refused
 *    (what ASTRA-sim does there reads before layer 0 or skips layers): an index
 *    not below the layer count, an I without a checkpoint at or below it, an I that
 *    is itself a checkpoint, and two I sharing the same checkpoint. Groups as
 *    HYBRID_TRANSFORMER.
 *  - line 2: the number of layers L (>= 1).
 *  - then exactly L layer lines of 12 fields (13 for HYBRID_CUSTOMIZED):
 *      1 name  2 reserved  3 fwd_compute  4 fwd_comm_type  5 fwd_comm_bytes
 *      6 ig_compute  7 ig_comm_type  8 ig_comm_bytes  9 wg_compute
 *      10 wg_comm_type  11 wg_comm_bytes  12 update_delay  [13 parallelism]
 *    name: any token; reserved: a signed 64-bit integer (-1 in practice; ASTRA-sim
 *    reads it as a dependency and ignores it); compute times and update_delay in
 *    cycles (1 GHz: cycles = ns), at most TN_WORKLOAD_MAX_CYCLES (10^9, one second)
 *    each; comm types NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL,
 *    ALLREDUCEALLTOALL; bytes at most TN_BYTES_MAX (2^62, what a plan takes).
 *    Field 13 (HYBRID_CUSTOMIZED only) is the layer's own parallelism (any name
 *    above except HYBRID_CUSTOMIZED).
 *  Nothing but blank lines may follow the L layer lines.
 *
 * Errors: every malformed input gives ONE TN_EPARSE error whose message names the
 * file, the line and the field: "Resnet50.txt:5: field 8 (ig_comm_bytes): '12x' is
 * not a non-negative integer". Covered: empty file, unknown parallelism or comm
 * type, wrong column count (missing or extra field), non-numeric, negative or
 * too large (> 64 bits) values, a layer count that does not match the layer lines
 * (truncated file or extra lines), unexpected tokens on line 1, a NUL byte.
 *
 * Memory: the layers array grows with the lines actually read; the declared layer
 * count is never used to size an allocation. Memory is O(file size).
 *
 * Groups (tn_parallelism_group, tn_workload_layer_group). With N NPUs (ranks
 * 0..N-1, dim 0 fastest as in tn-topology.h) and a model-parallel group size G
 * that divides N, a collective of a pass runs in the group of each rank r:
 *   TN_GROUP_NONE   no collective in this pass (whatever the file's comm type);
 *   TN_GROUP_ALL    all N NPUs;
 *   TN_GROUP_INNER  the G consecutive ranks with the same r / G;
 *   TN_GROUP_OUTER  the N / G ranks with the same r % G (stride G).
 * Per parallelism (fwd, ig, wg):
 *   DATA, MICRO, HYBRID_DLRM   NONE,  NONE,  ALL   (HYBRID_DLRM layer 0: ALL, ALL, ALL)
 *   MODEL                      ALL,   ALL,   NONE
 *   HYBRID_TRANSFORMER         INNER, INNER, OUTER
 *   HYBRID_TRANSFORMER_FWD_IN_BCKWD  INNER, INNER, OUTER
 *   HYBRID_DATA_MODEL          INNER, INNER, OUTER
 *   HYBRID_MODEL_DATA          OUTER, OUTER, INNER
 *   HYBRID_CUSTOMIZED          per layer: the row of the layer's field 13
 * Source: ASTRA-sim 1.0, workload/Workload.cc (github.com/astra-sim/astra-sim,
 * Workload::decode_involved_dimensions and Workload::initialize_workload), which
 * gives each pass a mask of network dimensions: DATA/DLRM/MICRO wg on all dims,
 * MODEL fwd+ig on all dims, HYBRID_DATA_MODEL model (fwd, ig) on dim 0 and data
 * (wg) on dims 1.., HYBRID_MODEL_DATA the reverse, HYBRID_TRANSFORMER model on the
 * dims up to the one where model_parallel_NPU_group is reached
 * (Sys::break_dimension), data on the rest; DLRM's layer 0 uses all dims in every
 * pass; HYBRID_CUSTOMIZED reads a 13th token per layer. Dims 0..k span blocks of
 * consecutive ranks, hence INNER = the low dims (G = their product), OUTER = the
 * others. For HYBRID_DATA_MODEL / HYBRID_MODEL_DATA ASTRA-sim takes G from the
 * topology (size of dim 0); here the file's model_parallel_NPU_group wins and the
 * caller supplies the fallback (tn_workload_validate).
 *
 * Ownership: the caller owns the workload (tn_workload_destroy). Pointers returned
 * by the accessors stay valid until it is destroyed. No global state.
 */
#ifndef TN_WORKLOAD_H
#define TN_WORKLOAD_H

#include "tn-error.h"
#include "tn-schedule.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** "Absent" value of tn_workload_dlrm_last_bottom_layer(). */
#define TN_WORKLOAD_NONE UINT32_MAX

/**
 * Largest compute time or update delay of one pass in a workload file, in cycles (10^9: one
 * second at 1 GHz). Longer ones are refused when the file is read: they are no layer of a
 * real model, and the run would sample for hours or overflow ns-3's time.
 */
#define TN_WORKLOAD_MAX_CYCLES UINT64_C(1000000000)

    /** Parallelism of a workload (line 1). */
    typedef enum tn_parallelism
    {
        TN_PARALLELISM_DATA = 0,
        TN_PARALLELISM_HYBRID_TRANSFORMER,
        TN_PARALLELISM_HYBRID_DLRM,
        TN_PARALLELISM_MODEL,
        TN_PARALLELISM_HYBRID_DATA_MODEL,
        TN_PARALLELISM_HYBRID_MODEL_DATA,
        TN_PARALLELISM_HYBRID_CUSTOMIZED,
        TN_PARALLELISM_MICRO,
        TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD, /**< HYBRID_TRANSFORMER + recomputation */
        TN_PARALLELISM_COUNT /**< number of parallelisms (not a parallelism) */
    } tn_parallelism;

    /** File spelling ("DATA", "HYBRID_TRANSFORMER", ...); "?" if invalid. */
    const char* tn_parallelism_name(tn_parallelism p);

    /** Parse a file spelling (exact, upper case). */
    tn_status tn_parallelism_parse(const char* name, tn_parallelism* p, tn_error* err);

    /** Communication type of a pass (a layer column). */
    typedef enum tn_comm_type
    {
        TN_COMM_NONE = 0,
        TN_COMM_ALLREDUCE,
        TN_COMM_ALLGATHER,
        TN_COMM_REDUCESCATTER,
        TN_COMM_ALLTOALL,
        TN_COMM_ALLREDUCE_ALLTOALL, /**< an all-reduce and an all-to-all (DLRM) */
        TN_COMM_TYPE_COUNT          /**< number of types (not a type) */
    } tn_comm_type;

    /** File spelling ("NONE", "ALLREDUCE", ..., "ALLREDUCEALLTOALL"); "?" if invalid. */
    const char* tn_comm_type_name(tn_comm_type t);

    /** Parse a file spelling (exact, upper case). */
    tn_status tn_comm_type_parse(const char* name, tn_comm_type* t, tn_error* err);

    /**
     * The collectives a comm type issues, in order, in out[0..n-1]; returns n (0
     * for NONE, 2 for ALLREDUCEALLTOALL: all-reduce then all-to-all; ASTRA-sim 1.0
     * sizes that all-to-all with its own lookup-table size, not the file's bytes).
     */
    uint32_t tn_comm_type_collectives(tn_comm_type t, tn_collective out[2]);

    /** The three passes of a layer. */
    typedef enum tn_pass
    {
        TN_PASS_FWD = 0, /**< forward pass */
        TN_PASS_IG,      /**< input gradient (backward) */
        TN_PASS_WG,      /**< weight gradient (backward) */
        TN_PASS_COUNT
    } tn_pass;

    /** "fwd", "ig", "wg"; "?" if invalid. */
    const char* tn_pass_name(tn_pass pass);

    /** Group a pass communicates in (see the contract above). */
    typedef enum tn_group
    {
        TN_GROUP_NONE = 0,
        TN_GROUP_ALL,
        TN_GROUP_INNER,
        TN_GROUP_OUTER
    } tn_group;

    /** "none", "all", "inner", "outer"; "?" if invalid. */
    const char* tn_group_name(tn_group g);

    /** One pass of a layer. */
    typedef struct tn_workload_pass_spec
    {
        uint64_t compute_cycles; /**< compute time in cycles */
        tn_comm_type comm;       /**< collective issued after the compute */
        uint64_t comm_bytes;     /**< its size in bytes */
    } tn_workload_pass_spec;

    /** One layer line. */
    typedef struct tn_workload_layer
    {
        const char* name;                          /**< field 1 (NUL-terminated copy) */
        int64_t reserved;                          /**< field 2 */
        tn_workload_pass_spec pass[TN_PASS_COUNT]; /**< fields 3-11 */
        uint64_t update_delay;                     /**< field 12, cycles */
        tn_parallelism parallelism; /**< field 13 (HYBRID_CUSTOMIZED) or the workload's */
        uint32_t line;              /**< line number in the file */
    } tn_workload_layer;

    typedef struct tn_workload tn_workload;

    /**
     * Parse len bytes of text (not necessarily NUL-terminated); `name` (NULL:
     * "<text>") is the file name used in messages. On success *out is the new
     * workload; on failure *out is NULL.
     */
    tn_status tn_workload_parse(const char* text,
                                size_t len,
                                const char* name,
                                tn_workload** out,
                                tn_error* err);

    /** Read and parse a file; messages name it by `path`. */
    tn_status tn_workload_load_file(const char* path, tn_workload** out, tn_error* err);

    /** Free a workload; NULL is ignored. */
    void tn_workload_destroy(tn_workload* wl);

    /** The name given to tn_workload_parse, or the path. */
    const char* tn_workload_name(const tn_workload* wl);

    tn_parallelism tn_workload_parallelism(const tn_workload* wl);

    /** model_parallel_NPU_group of line 1, 0 if absent. */
    uint32_t tn_workload_model_parallel_group(const tn_workload* wl);

    /** LAST_BOTTOM_LAYER of a HYBRID_DLRM line 1, TN_WORKLOAD_NONE if absent. */
    uint32_t tn_workload_dlrm_last_bottom_layer(const tn_workload* wl);

    /** Layer i (< layer count; asserts) is in checkpoints: of line 1. */
    int tn_workload_is_checkpoint(const tn_workload* wl, uint32_t layer);

    /**
     * The first layer whose forward pass is recomputed before the input-gradient pass
     * of `layer` (< layer count; asserts): the nearest checkpoint below a layer of
     * checkpoint_initiates; layers from..layer-1 are recomputed. TN_WORKLOAD_NONE when
     * `layer` initiates nothing.
     */
    uint32_t tn_workload_recompute_from(const tn_workload* wl, uint32_t layer);

    uint32_t tn_workload_layer_count(const tn_workload* wl);

    /** Layer i (< layer count; asserts). */
    const tn_workload_layer* tn_workload_layer_at(const tn_workload* wl, uint32_t i);

    /**
     * Group of a pass under a parallelism (table above). HYBRID_CUSTOMIZED has no
     * row of its own: TN_GROUP_NONE (use tn_workload_layer_group).
     */
    tn_group tn_parallelism_group(tn_parallelism p, tn_pass pass);

    /**
     * Group of pass `pass` of layer i: the row of the layer's parallelism, ALL for
     * every pass of layer 0 under HYBRID_DLRM, and NONE when the pass's comm type
     * is NONE (a comm type with 0 bytes keeps its group: a synchronisation).
     */
    tn_group tn_workload_layer_group(const tn_workload* wl, uint32_t i, tn_pass pass);

    /**
     * Check that the workload can run on `npus` NPUs and give the model-parallel
     * group size G in *group (may be NULL). G is the file's
     * model_parallel_NPU_group, else `default_group` (ASTRA-sim: the size of the
     * topology's first dimension; 0 = none), else 1 when no layer uses INNER or
     * OUTER. Errors (TN_EINVAL, message naming the workload): npus == 0; a layer
     * needs INNER/OUTER and there is no G; G > npus; npus % G != 0; G == npus or
     * G == 1 are allowed (one of the two groups is then a single NPU).
     */
    tn_status tn_workload_validate(const tn_workload* wl,
                                   uint32_t npus,
                                   uint32_t default_group,
                                   uint32_t* group,
                                   tn_error* err);

    /**
     * Members of rank's group: ranks first + k * stride for k < count. Requires
     * rank < npus, group_size >= 1 dividing npus (tn_workload_validate); NONE gives
     * the rank alone (count 1). TN_EINVAL otherwise.
     */
    tn_status tn_group_members(tn_group g,
                               uint32_t npus,
                               uint32_t group_size,
                               uint32_t rank,
                               uint32_t* first,
                               uint32_t* stride,
                               uint32_t* count,
                               tn_error* err);

    /**
     * Write the workload in the format above, one space between fields: parsing the
     * output gives the same workload (blank lines and column alignment of the
     * original are not kept).
     */
    tn_status tn_workload_write(const tn_workload* wl, FILE* file, tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_WORKLOAD_H */
