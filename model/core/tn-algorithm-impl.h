/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-algorithm-impl: PRIVATE header of the algorithm implementations
 * (model/core/tn-algo-*.c, tn-algorithm.c). Not installed for users.
 *
 * Each algorithm declares here its check (may be omitted: NULL in the table)
 * and plan functions with the signatures of tn_algorithm_check_fn /
 * tn_algorithm_plan_fn (tn-algorithm.h), and adds ONE line to the table in
 * tn-algorithm.c. Shared helpers below are implemented in tn-algorithm.c.
 *
 * Conventions for plan functions:
 *  - use tn_chunk_block / tn_chunk_region / tn_alltoall_recv_offset for layout,
 *    and plan every chunk independently (no deps between chunks) unless the
 *    algorithm pipelines chunks on purpose;
 *  - steps of chunk c may be offset (c * steps per chunk) when the algorithm
 *    claims contention freedom, so that the claim holds chunk after chunk;
 *  - set dim with tn_algo_rank_dim (or the dim the algorithm knows).
 */
#ifndef TN_ALGORITHM_IMPL_H
#define TN_ALGORITHM_IMPL_H

#include "tn-algorithm.h"
#include "tn-array.h"
#include "tn-schedule.h"
#include "tn-topology.h"

#ifdef __cplusplus
extern "C"
{
#endif

    /* ---- shared helpers (tn-algorithm.c) ------------------------------------------ */

    /**
     * Dimension of a transfer between ranks a and b: the single dim in which their
     * coordinates differ; -1 if topo is NULL, has no dims, or they differ in more
     * than one dim (or in none).
     */
    int32_t tn_algo_rank_dim(const tn_topology* topo, uint32_t a, uint32_t b);

    /** Shorthand for tn_schedule_add with the spec fields as arguments. */
    tn_status tn_algo_add(tn_schedule* s,
                          uint32_t src,
                          uint32_t dst,
                          uint64_t src_offset,
                          uint64_t dst_offset,
                          uint64_t length,
                          tn_op op,
                          uint32_t step,
                          int32_t dim,
                          uint32_t chunk,
                          const uint32_t* deps,
                          uint32_t ndeps,
                          uint32_t* id,
                          tn_error* err);

    /* ---- per-rank dependency frontier and group phases ------------------------------ */

    /**
     * Dependency frontier: per rank, the transfers a later phase touching that rank
     * must depend on (the last writes into the rank's live data). A phase reads
     * `in` and appends to `out`; after a phase call tn_front_carry(in, out) so that
     * ranks the phase did not write keep their old frontier.
     */
    typedef struct tn_front
    {
        uint32_t ranks;
        uint32_t** ids;
        uint32_t* count;
        size_t* cap;
    } tn_front;

    tn_status tn_front_init(tn_front* f, uint32_t ranks, tn_error* err);
    void tn_front_free(tn_front* f);
    void tn_front_clear(tn_front* f);
    tn_status tn_front_push(tn_front* f, uint32_t rank, uint32_t id, tn_error* err);
    /** Append the frontier of `rank` to a dep list. */
    tn_status tn_ids_push_front(tn_ids* d, const tn_front* f, uint32_t rank, tn_error* err);
    /** For every rank whose out list is empty, copy in's list. */
    tn_status tn_front_carry(const tn_front* in, tn_front* out, tn_error* err);
    /** out := in (copy). */
    tn_status tn_front_copy(const tn_front* in, tn_front* out, tn_error* err);
    /** Swap contents. */
    void tn_front_swap(tn_front* a, tn_front* b);

    /**
     * One reduce-scatter or all-gather phase among a group of ranks (members in ring
     * order; member k owns parts[k] at the end of a reduce-scatter / the start of an
     * all-gather; parts have the same addresses on every member).
     * Transfers carry `chunk`, steps from `step` on (*steps_used returned), and dim
     * `dim` (or tn_algo_rank_dim when dim == TN_DIM_AUTO).
     *
     * Deps, default (chain == false): a phase first keeps the frontier
     * (tn_phase_keep_front); a send depends on its sender's `in` frontier (ring
     * all-gather after step 0: only on the copy that brought the part; ring
     * reduce-scatter after step 0: also on the reduce into the sender); out gets the
     * member's last receive (ring reduce-scatter) or all its receives.
     * chain == true (Themis, ring and direct phases only): no keep-front; a member's
     * first send depends on its `in` frontier, each later ring send on the member's
     * previous receive and its own previous send; out[m] = m's last receive (ring) or
     * all its receives (direct), then m's last send. Direct sends go offset-outer
     * (member j sends to j+1+t for t = 0..P-2, members inner) instead of owner-outer.
     */
#define TN_DIM_AUTO (-2)

    typedef struct tn_phase
    {
        const tn_topology* topo;
        tn_schedule* s;
        const tn_front* in;
        tn_front* out;
        const uint32_t* members;
        uint32_t count;
        const tn_slice* parts;
        uint32_t step;
        uint32_t chunk;
        int32_t dim;
        bool chain;
    } tn_phase;

    /** Unidirectional ring: P-1 steps, member k sends to member k+1. */
    tn_status tn_phase_ring_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err);
    tn_status tn_phase_ring_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err);
    /**
     * Unidirectional ring (P-1 steps) whose parts are `ranges` >= 1 byte ranges each:
     * ph->parts has count * ranges entries, member k owns parts[k*ranges + j] for
     * j < ranges (not necessarily contiguous, e.g. ring2d's reduce-scatter whose
     * member owns a piece of every slice of a row). Every range travels as its own
     * transfer with its own dep chain (`ranges` rings sharing the steps); deps and out
     * as tn_phase_ring_rs (rs) / tn_phase_ring_ag, with every range's transfer in out.
     * ranges = 1 is tn_phase_ring_rs / tn_phase_ring_ag.
     */
    tn_status tn_phase_ring_ranges(const tn_phase* ph, uint32_t ranges, bool rs, tn_error* err);
    /** Bidirectional ring: each part split in two halves (tn_slice_of(len, 2, h)),
     *  half 0 travels k -> k+1, half 1 travels k -> k-1. */
    tn_status tn_phase_ring_bidir_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err);
    tn_status tn_phase_ring_bidir_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err);
    /** Direct: one step, every member to every other member. */
    tn_status tn_phase_direct_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err);
    tn_status tn_phase_direct_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err);

    /** A phase function (the six above). */
    typedef tn_status (*tn_phase_fn)(const tn_phase* ph, uint32_t* steps_used, tn_error* err);

    /** Dim of a transfer a -> b of the phase: ph->dim, or tn_algo_rank_dim(a, b) when
     *  ph->dim == TN_DIM_AUTO (tn-algorithm.c). */
    int32_t tn_phase_dim(const tn_phase* ph, uint32_t a, uint32_t b);

    /** First thing every phase does: out[m] += in[m] for every member m (data written
     *  by earlier phases stays live; in and out must not alias) (tn-algorithm.c). */
    tn_status tn_phase_keep_front(const tn_phase* ph, tn_error* err);

    /**
     * Single group of all ranks, every chunk independently: reduce-scatter = rs;
     * all-gather = ag; all-reduce = rs then ag (tn-algo-ring.c). The group's
     * members are order[0..N-1] (NULL = 0..N-1); member k owns the block of rank
     * order[k], so every rank still ends with its own slice.
     */
    tn_status tn_algo_flat_plan(const tn_topology* topo,
                                tn_schedule* s,
                                const uint32_t* order,
                                tn_phase_fn rs,
                                tn_phase_fn ag,
                                tn_error* err);

    /** tn_algo_flat_plan with an order per chunk: chunk c's members are orders[(c mod
     *  norders) N ...] (norders 0 or orders NULL: 0..N-1), each order a permutation. */
    tn_status tn_algo_flat_plan_orders(const tn_topology* topo,
                                       tn_schedule* s,
                                       const uint32_t* orders,
                                       uint32_t norders,
                                       tn_phase_fn rs,
                                       tn_phase_fn ag,
                                       tn_error* err);

    /**
     * The ring order of a request with `ranks` ranks (tn-algo-ring.c): a malloc'ed
     * copy of request->rank_order when given (validated by tn_plan), else
     * tn_ring_order(topo, ranks). The caller frees *order.
     */
    tn_status tn_algo_ring_order(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 uint32_t ranks,
                                 uint32_t** order,
                                 tn_error* err);

    /* ---- classic algorithms (core-sched) ----------------------------------------- */

    tn_status tn_algo_ring_plan(const tn_topology* topo,
                                const tn_plan_request* request,
                                tn_schedule* s,
                                tn_error* err);
    tn_status tn_algo_ring_bidir_plan(const tn_topology* topo,
                                      const tn_plan_request* request,
                                      tn_schedule* s,
                                      tn_error* err);
    tn_status tn_algo_direct_plan(const tn_topology* topo,
                                  const tn_plan_request* request,
                                  tn_schedule* s,
                                  tn_error* err);
    tn_status tn_algo_rhd_plan(const tn_topology* topo,
                               const tn_plan_request* request,
                               tn_schedule* s,
                               tn_error* err);
    tn_status tn_algo_dbt_plan(const tn_topology* topo,
                               const tn_plan_request* request,
                               tn_schedule* s,
                               tn_error* err);
    tn_status tn_algo_ring2d_check(const tn_topology* topo,
                                   const tn_plan_request* request,
                                   uint32_t ranks,
                                   tn_error* err);
    tn_status tn_algo_ring2d_plan(const tn_topology* topo,
                                  const tn_plan_request* request,
                                  tn_schedule* s,
                                  tn_error* err);
    tn_status tn_algo_hierarchical_check(const tn_topology* topo,
                                         const tn_plan_request* request,
                                         uint32_t ranks,
                                         tn_error* err);
    tn_status tn_algo_hierarchical_plan(const tn_topology* topo,
                                        const tn_plan_request* request,
                                        tn_schedule* s,
                                        tn_error* err);

    /* ---- core-trees algorithms (their .c files; add the table line when built) ----- */

    tn_status tn_algo_multitree_check(const tn_topology* topo,
                                      const tn_plan_request* request,
                                      uint32_t ranks,
                                      tn_error* err);
    tn_status tn_algo_multitree_plan(const tn_topology* topo,
                                     const tn_plan_request* request,
                                     tn_schedule* s,
                                     tn_error* err);
    tn_status tn_algo_hdrm_check(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 uint32_t ranks,
                                 tn_error* err);
    tn_status tn_algo_hdrm_plan(const tn_topology* topo,
                                const tn_plan_request* request,
                                tn_schedule* s,
                                tn_error* err);
    tn_status tn_algo_themis_check(const tn_topology* topo,
                                   const tn_plan_request* request,
                                   uint32_t ranks,
                                   tn_error* err);
    tn_status tn_algo_themis_plan(const tn_topology* topo,
                                  const tn_plan_request* request,
                                  tn_schedule* s,
                                  tn_error* err);

    /* ---- Swing (tn-algo-swing.c) ------------------------------------------------- */

    tn_status tn_algo_swing_check(const tn_topology* topo,
                                  const tn_plan_request* request,
                                  uint32_t ranks,
                                  tn_error* err);
    tn_status tn_algo_swing_plan(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 tn_schedule* s,
                                 tn_error* err);
    tn_status tn_algo_swing_lat_plan(const tn_topology* topo,
                                     const tn_plan_request* request,
                                     tn_schedule* s,
                                     tn_error* err);
    tn_status tn_algo_swing_torus_check(const tn_topology* topo,
                                        const tn_plan_request* request,
                                        uint32_t ranks,
                                        tn_error* err);
    /**
     * The layout of one swing instance for the rank-local generator (tn-program-gen.c), as
     * the plan computes it: peers (steps x p, by ring position) of swing (torus false, part
     * 0) or of part `part` of swing-torus, the block slot of each position (pos) and its
     * inverse (at); the plan's slot check refuses a layout the same way. p a power of two.
     */
    tn_status tn_algo_swing_layout(const tn_topology* topo,
                                   bool torus,
                                   uint32_t part,
                                   uint32_t p,
                                   uint32_t* peers,
                                   uint32_t* pos,
                                   uint32_t* at,
                                   tn_error* err);
    tn_status tn_algo_swing_torus_plan(const tn_topology* topo,
                                       const tn_plan_request* request,
                                       tn_schedule* s,
                                       tn_error* err);

    /* ---- TACOS (tn-algo-tacos.c) ------------------------------------------------- */

    tn_status tn_algo_tacos_check(const tn_topology* topo,
                                  const tn_plan_request* request,
                                  uint32_t ranks,
                                  tn_error* err);
    tn_status tn_algo_tacos_plan(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 tn_schedule* s,
                                 tn_error* err);

    /* ---- NCCL's model (tn-algo-nccl.c, tn-nccl.h) ---------------------------------- */

    tn_status tn_algo_nccl_check(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 uint32_t ranks,
                                 tn_error* err);
    tn_status tn_algo_nccl_prepare(const tn_topology* topo,
                                   const tn_plan_request* request,
                                   uint32_t ranks,
                                   tn_plan_request* out,
                                   tn_error* err);
    tn_status tn_algo_nccl_plan(const tn_topology* topo,
                                const tn_plan_request* request,
                                tn_schedule* s,
                                tn_error* err);
    /** The size of the plan of the request's choice (tn_algorithm_estimate_fn). */
    void tn_algo_nccl_estimate(const tn_topology* topo,
                               const tn_plan_request* request,
                               uint32_t ranks,
                               uint64_t chunks,
                               tn_plan_size* size);
    /** NVLS (one server, tree false) or NVLS-tree (tree true: servers of g GPUs, rank
     *  server x g + i) all-reduce as tn-nccl.h's contract plans it, a channel per chunk. */
    tn_status tn_algo_nvls_plan(const tn_topology* topo,
                                tn_schedule* s,
                                uint32_t g,
                                bool tree,
                                tn_error* err);
    /** Transfers of tn_algo_nvls_plan for N ranks, servers of g, C chunks of S bytes. */
    uint64_t tn_algo_nvls_transfers(uint32_t N, uint32_t g, bool tree, uint32_t C, uint64_t S);

    /** CollNet Direct all-reduce (tn-nccl.h's contract) across servers of g GPUs (rank
     *  server x g + i, 2 servers or more), a channel per chunk. */
    tn_status tn_algo_collnet_plan(const tn_topology* topo,
                                   tn_schedule* s,
                                   uint32_t g,
                                   tn_error* err);
    /** Transfers of tn_algo_collnet_plan for N ranks, servers of g, C chunks. */
    uint64_t tn_algo_collnet_transfers(uint32_t N, uint32_t g, uint32_t C);

    /* ---- custom: ASTRA-sim's Collective API traces (tn-algo-custom.c) ------------------ */

    tn_status tn_algo_custom_check(const tn_topology* topo,
                                   const tn_plan_request* request,
                                   uint32_t ranks,
                                   tn_error* err);
    tn_status tn_algo_custom_plan(const tn_topology* topo,
                                  const tn_plan_request* request,
                                  tn_schedule* s,
                                  tn_error* err);
    void tn_algo_custom_estimate(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 uint32_t ranks,
                                 uint64_t chunks,
                                 tn_plan_size* size);

#ifdef __cplusplus
}
#endif

#endif /* TN_ALGORITHM_IMPL_H */
