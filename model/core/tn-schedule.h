/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-schedule: the collective schedule IR of the training-net C core.
 *
 * Contract
 * --------
 * A tn_schedule is a DAG of transfers that together perform ONE collective
 * among N ranks (rank r = NPU rank r of the topology, see tn-topology.h).
 *
 * Buffers and the meaning of S (tn_schedule_bytes). Every rank owns one byte
 * address space [0, tn_schedule_buffer_size(s, rank)); transfer offsets are
 * addresses in it. Slices use the single slicing rule tn_slice_of() below;
 * "slice i" means tn_slice_of(S, N, i).
 *  - all-reduce      S = vector per rank, addresses [0,S). In: rank r holds its
 *                    contribution {r} on [0,S). Out: every rank holds the sum of
 *                    all N contributions on [0,S).
 *  - reduce-scatter  S = input vector per rank, [0,S). In: as all-reduce. Out:
 *                    rank r holds the full sum on slice r (same addresses);
 *                    the rest of its buffer is "don't care".
 *  - all-gather      S = output vector per rank, [0,S). In: rank r holds its own
 *                    data on slice r (nothing elsewhere). Out: every rank holds
 *                    on every slice i the data of rank i (same addresses).
 *  - all-to-all      S = send vector per rank, [0,S), split into N blocks
 *                    (block j = slice j, destined to rank j). The receive vector
 *                    of rank j follows at address S: it holds N blocks of
 *                    len_j = tn_slice_of(S,N,j).length bytes, block i at
 *                    S + i*len_j (tn_alltoall_recv_offset). Out: rank j's
 *                    receive block i (i != j) holds rank i's send block j; a
 *                    rank's own block j stays in its send vector (slice j) and
 *                    its receive block j is "don't care", as is the rest of the
 *                    send vector. Buffer size of rank j =
 *                    S + N*len_j.
 *  - broadcast       S = vector, [0,S). In: root holds its data on [0,S). Out:
 *                    every rank holds root's data on [0,S).
 *  - reduce          S = vector per rank, [0,S). In: as all-reduce. Out: root
 *                    holds the full sum on [0,S); other ranks "don't care".
 * Data never changes address except through a transfer whose dst_offset differs
 * from its src_offset (all-to-all-like moves). Algorithms needing scratch space
 * reserve it with tn_schedule_set_scratch(): it follows the buffers above and is
 * "don't care" at the end.
 *
 * Transfers: {id, src rank, dst rank (src != dst but for local ops), src_offset,
 * dst_offset, length, op, deps, step, dim, chunk, path}. Semantics: when every dep has completed,
 * the bytes [src_offset, src_offset+length) of src are sent to dst and either
 * overwrite (TN_OP_COPY) or are added element-wise to (TN_OP_REDUCE)
 * [dst_offset, dst_offset+length) of dst. Length 0 is allowed: no data, a pure
 * synchronisation message (the cost model charges the path latency).
 *  - ids are 0..count-1 in creation order.
 *  - deps: ids of transfers that must complete before this one starts. Stored
 *    in one shared array (CSR) built by tn_schedule_finalize(); there is no
 *    per-transfer fixed array and no bound on the number of deps.
 *  - step: logical time step, used by contention claims (two transfers of the
 *    same step are meant to run at the same time) and for reporting.
 *  - dim: topology dimension the transfer travels in, -1 if none / unknown.
 *  - chunk: index of the chunk (0..chunks-1) the transfer belongs to.
 *  - path: optional explicit list of directed link ids of the topology from
 *    src's NPU node to dst's NPU node; empty = use the routing (deterministic
 *    shortest path of tn-routing.h).
 *
 * Local ops (TN_OP_LOCAL_COPY, TN_OP_LOCAL_REDUCE; tn_op_is_local): src == dst, and
 * the two ranges of the rank do not overlap; the rank overwrites or adds its own
 * [src_offset, +length) into [dst_offset, +length) with no network: no path (none may
 * be set), no link, no packet. They exist for algorithms that reduce a received copy
 * out of place (swing-lat: the peer's vector arrives in scratch by TN_OP_COPY and a
 * local reduce adds it in), which a network reduce cannot express when the rank reads
 * the same bytes to send them. Every consumer treats them as a transfer whose sender
 * and receiver are the rank: ids, deps, steps, chunks and total_bytes count them; the
 * cost model (tn-cost.h) gives them no time, the ns-3 executor completes one when its
 * deps are met (a local reduce after the NPU's reduction time) and sends nothing. No
 * algorithm but swing-lat emits them.
 *
 * Chunking: a collective of S bytes planned with C chunks is C independent
 * collectives on sub-ranges (tn_chunk_block gives the layout every algorithm
 * uses); chunks have no deps between each other unless an algorithm pipelines
 * them explicitly, so they share the network concurrently.
 *
 * Life cycle: create -> add transfers / deps / paths -> tn_schedule_finalize()
 * (checks ids, ranges, acyclicity; builds the dep CSR and a topological order)
 * -> read-only use (accessors, tn_verify, tn_cost). Adding anything after
 * finalize un-finalizes the schedule (finalize again). A finalized schedule holds
 * its deps once, in the CSR: the list as added goes (cached plans hold many
 * schedules), and adding after finalize rebuilds it from the CSR. Accessors marked
 * "finalized" require a finalized schedule (assert); pointers they return stay
 * valid until the schedule is modified or destroyed.
 *
 * Ownership: the caller owns the schedule and frees it with tn_schedule_destroy().
 * Memory is O(transfers + deps + path links).
 */
#ifndef TN_SCHEDULE_H
#define TN_SCHEDULE_H

#include "tn-error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** "No transfer" marker. */
#define TN_TRANSFER_NONE UINT32_MAX

    /** Collective operations. */
    typedef enum tn_collective
    {
        TN_COLL_ALL_REDUCE = 0,
        TN_COLL_REDUCE_SCATTER,
        TN_COLL_ALL_GATHER,
        TN_COLL_ALL_TO_ALL,
        TN_COLL_BROADCAST,
        TN_COLL_REDUCE,
        TN_COLL_COUNT /**< number of collectives (not a collective) */
    } tn_collective;

/** Bit of a collective in a mask (tn_algorithm.collectives). */
#define TN_COLL_BIT(c) (1u << (unsigned)(c))

    /** Stable name: "all-reduce", "reduce-scatter", "all-gather", "all-to-all",
     *  "broadcast", "reduce"; "?" for an invalid value. */
    const char* tn_collective_name(tn_collective coll);

    /** Parse a collective name (the names above; also "allreduce", "reducescatter",
     *  "allgather", "alltoall" and the upper-case ASTRA-sim spellings). */
    tn_status tn_collective_parse(const char* name, tn_collective* coll, tn_error* err);

    /** Operation of a transfer at its destination. */
    typedef enum tn_op
    {
        TN_OP_COPY = 0,        /**< overwrite the destination range */
        TN_OP_REDUCE = 1,      /**< add into the destination range */
        TN_OP_LOCAL_COPY = 2,  /**< src == dst: overwrite, inside the rank (no network) */
        TN_OP_LOCAL_REDUCE = 3 /**< src == dst: add, inside the rank (no network) */
    } tn_op;

    /** Whether an op runs inside one rank (src == dst, no network). */
    static inline bool tn_op_is_local(tn_op op)
    {
        return op == TN_OP_LOCAL_COPY || op == TN_OP_LOCAL_REDUCE;
    }

    /** Whether an op adds into its destination (TN_OP_REDUCE, TN_OP_LOCAL_REDUCE). */
    static inline bool tn_op_is_reduce(tn_op op)
    {
        return op == TN_OP_REDUCE || op == TN_OP_LOCAL_REDUCE;
    }

    /** "copy", "reduce", "local-copy", "local-reduce"; "?" for an invalid value. */
    const char* tn_op_name(tn_op op);

    /** A byte range. */
    typedef struct tn_slice
    {
        uint64_t offset;
        uint64_t length;
    } tn_slice;

    /**
     * THE slicing rule, used by every algorithm: split `size` bytes into `parts`
     * (>= 1) consecutive slices; the first size % parts slices are one byte
     * longer. Slice i: length = size/parts + (i < size%parts), offset = i*(size/parts)
     * + min(i, size%parts). Slices are disjoint, in order, and sum to size.
     */
    tn_slice tn_slice_of(uint64_t size, uint32_t parts, uint32_t index);

    /** One transfer (read-only view; deps and path through the accessors). */
    typedef struct tn_transfer
    {
        uint32_t id;
        uint32_t src;        /**< source rank */
        uint32_t dst;        /**< destination rank */
        uint64_t src_offset; /**< address in src's buffer */
        uint64_t dst_offset; /**< address in dst's buffer */
        uint64_t length;     /**< bytes (0 = synchronisation only) */
        tn_op op;
        uint32_t step;  /**< logical step */
        int32_t dim;    /**< topology dimension or -1 */
        uint32_t chunk; /**< chunk index */
    } tn_transfer;

    /** Parameters of a new transfer (tn_schedule_add). */
    typedef struct tn_transfer_spec
    {
        uint32_t src;
        uint32_t dst;
        uint64_t src_offset;
        uint64_t dst_offset;
        uint64_t length;
        tn_op op;
        uint32_t step;
        int32_t dim;
        uint32_t chunk;
    } tn_transfer_spec;

    typedef struct tn_schedule tn_schedule;

    /* ---- create / destroy / build ----------------------------------------------- */

    /**
     * Create an empty schedule: collective, ranks >= 1, bytes, root (< ranks; used
     * by broadcast/reduce, 0 otherwise), chunks >= 1. The algorithm name is "".
     */
    tn_status tn_schedule_create(tn_collective coll,
                                 uint32_t ranks,
                                 uint64_t bytes,
                                 uint32_t root,
                                 uint32_t chunks,
                                 tn_schedule** out,
                                 tn_error* err);

    /** Free a schedule; NULL is ignored. */
    void tn_schedule_destroy(tn_schedule* s);

    /** Set the algorithm name (copied) recorded with the schedule ("ring", ...). */
    tn_status tn_schedule_set_algorithm(tn_schedule* s, const char* name, tn_error* err);

    /**
     * Memory (bytes) a schedule of this size takes at its peak in a planning run:
     * the schedule, its finalized CSR arrays and the working memory of the verifier
     * and the cost model (the constants are measured peaks of tn-plan, rounded up).
     * Saturates at UINT64_MAX.
     */
    uint64_t tn_schedule_memory_estimate(uint64_t transfers, uint64_t deps, uint64_t path_links);

    /**
     * Refuse growth past `bytes` (by tn_schedule_memory_estimate; 0 = no limit): an add
     * that would pass it fails with TN_ENOMEM naming the size and the limit (tn-memory.h).
     * tn_plan sets the request's limit before the algorithm runs.
     */
    void tn_schedule_set_memory_limit(tn_schedule* s, uint64_t bytes);

    /** Reserve `bytes` of scratch per rank after the collective's buffers. */
    void tn_schedule_set_scratch(tn_schedule* s, uint64_t bytes);

    /** Mark whether the schedule claims that no (directed link, step) is used twice. */
    void tn_schedule_set_contention_free(tn_schedule* s, bool claims);

    /**
     * Append a transfer; its id (== previous count) in *id (may be NULL).
     * deps: ndeps ids of existing or later transfers (checked at finalize).
     * Validates src/dst < ranks, src != dst (src == dst and disjoint ranges for a
     * local op), chunk < chunks, ranges inside the buffers (tn_schedule_buffer_size)
     * without overflow.
     */
    tn_status tn_schedule_add(tn_schedule* s,
                              const tn_transfer_spec* spec,
                              const uint32_t* deps,
                              uint32_t ndeps,
                              uint32_t* id,
                              tn_error* err);

    /** Add one dependency: `id` starts only after `dep` completed. */
    tn_status tn_schedule_add_dep(tn_schedule* s, uint32_t id, uint32_t dep, tn_error* err);

    /** Set the explicit path (directed link ids, copied) of transfer id; 0 links clears.
     *  A local op takes no path (TN_EINVAL for nlinks > 0). */
    tn_status tn_schedule_set_path(tn_schedule* s,
                                   uint32_t id,
                                   const uint32_t* links,
                                   uint32_t nlinks,
                                   tn_error* err);

    /**
     * Check and freeze: every dep id < count, no self dep, no cycle (the error names
     * a transfer on the cycle); duplicate deps are removed. Builds the dep CSR, the
     * successor CSR and a deterministic topological order (Kahn, smallest id first
     * among ready transfers). Idempotent.
     */
    tn_status tn_schedule_finalize(tn_schedule* s, tn_error* err);

    /* ---- accessors ---------------------------------------------------------------- */

    tn_collective tn_schedule_collective(const tn_schedule* s);
    uint32_t tn_schedule_ranks(const tn_schedule* s);
    uint64_t tn_schedule_bytes(const tn_schedule* s);
    uint32_t tn_schedule_root(const tn_schedule* s);
    uint32_t tn_schedule_chunks(const tn_schedule* s);
    const char* tn_schedule_algorithm(const tn_schedule* s);
    bool tn_schedule_contention_free(const tn_schedule* s);

    /**
     * Whether the steps are time slots to keep (finalized schedules): the schedule claims
     * contention freedom per step and every dep has a smaller step than its dependent.
     * Then each sender posts the transfers it sends to one receiver on one path in (step,
     * id) order, so that a later step that is ready first cannot delay an earlier one on
     * their shared link; the cost model (tn-cost.h) and the ns-3 executor both do.
     * Deadlock-free since deps point to earlier steps.
     */
    bool tn_schedule_step_ordered(const tn_schedule* s);
    uint64_t tn_schedule_scratch(const tn_schedule* s);
    bool tn_schedule_is_finalized(const tn_schedule* s);

    /**
     * Bytes the schedule's arrays hold now: its transfers, paths and name, and its deps as
     * added or, once finalized, their shared rows (tn-csr.h) and the order; what destroying
     * it returns, malloc's own overhead aside. A cache of plans weighs them by it.
     */
    uint64_t tn_schedule_held_bytes(const tn_schedule* s);

    /** Address-space size of a rank: collective buffers (see contract) + scratch. */
    uint64_t tn_schedule_buffer_size(const tn_schedule* s, uint32_t rank);

    /** Number of transfers. */
    uint32_t tn_schedule_count(const tn_schedule* s);

    /** Number of steps = 1 + largest step (0 when empty). */
    uint32_t tn_schedule_steps(const tn_schedule* s);

    /** Total bytes over all transfers (sum of lengths, local ops included). */
    uint64_t tn_schedule_total_bytes(const tn_schedule* s);

    /** Local ops among the transfers (tn_op_is_local; 0 for every algorithm but swing-lat). */
    uint32_t tn_schedule_local_count(const tn_schedule* s);

    /** Transfer by id (id < count); pointer invalidated by tn_schedule_add. */
    const tn_transfer* tn_schedule_transfer(const tn_schedule* s, uint32_t id);

    /** Deps of a transfer (finalized): array of *count ids, sorted ascending. */
    const uint32_t* tn_schedule_deps(const tn_schedule* s, uint32_t id, uint32_t* count);

    /** Successors of a transfer (finalized): ids that list `id` as a dep, ascending. */
    const uint32_t* tn_schedule_succs(const tn_schedule* s, uint32_t id, uint32_t* count);

    /** Explicit path of a transfer (any time): *count links, NULL/0 when none. */
    const uint32_t* tn_schedule_path(const tn_schedule* s, uint32_t id, uint32_t* count);

    /** Topological order (finalized): an array of count ids; deps come first. */
    const uint32_t* tn_schedule_topo_order(const tn_schedule* s);

    /* ---- layout helpers shared by all algorithms ---------------------------------- */

    /**
     * Byte range of chunk `chunk` (< chunks) of block `block` (< ranks) of a
     * collective with `bytes` and `ranks`, as every algorithm uses it:
     *  - all-reduce, broadcast, reduce: the chunk's region is
     *    R = tn_slice_of(S, C, chunk); block b = tn_slice_of(R.length, N, b) + R.offset
     *    (broadcast/reduce use the region; blocks are a convenience).
     *  - reduce-scatter, all-gather, all-to-all (send side): slice b = tn_slice_of(S,N,b)
     *    is split into C pieces: piece `chunk` of slice b.
     * So a reduce-scatter / all-gather chunk moves piece `chunk` of every slice, and
     * the union over chunks of a rank's final pieces is exactly its slice.
     */
    tn_slice tn_chunk_block(tn_collective coll,
                            uint64_t bytes,
                            uint32_t ranks,
                            uint32_t chunks,
                            uint32_t chunk,
                            uint32_t block);

    /** Region of chunk `chunk` for all-reduce/broadcast/reduce: tn_slice_of(S, C, chunk). */
    tn_slice tn_chunk_region(uint64_t bytes, uint32_t chunks, uint32_t chunk);

    /**
     * All-to-all: address in rank `dst`'s buffer where the piece `chunk` of the block
     * sent by rank `src` lands: S + src*len_dst + tn_slice_of(len_dst, C, chunk).offset
     * with len_dst = tn_slice_of(S, N, dst).length.
     */
    uint64_t tn_alltoall_recv_offset(uint64_t bytes,
                                     uint32_t ranks,
                                     uint32_t chunks,
                                     uint32_t chunk,
                                     uint32_t src,
                                     uint32_t dst);

#ifdef __cplusplus
}
#endif

#endif /* TN_SCHEDULE_H */
