/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-themis: Themis dimension load balancing (Rashidi et al., "Themis: A Network
 * Bandwidth-Aware Collective Scheduling Policy for Distributed Training of DL
 * Models", ISCA 2022) for multi-dimensional topologies.
 *
 * Contract
 * --------
 * Balancer (tn_themis_balancer): the per-collective state of the paper's balancer
 * (doc/npu-themis.rst, doc/core-algorithms.rst).
 * Loads are in ns, one per dimension, starting at 0. For a chunk of s bytes
 * (reduce-scatter / all-reduce rule):
 *     L = dims sorted by load ascending (stable: equal loads keep dim order)
 *     if load[L.last] - load[L.first] < rs_time(L.first, s/16): order = 0..D-1
 *     else order = L
 *     x = s; for d in order: load[d] += rs_time(d, x); x = x / P_d
 *   with rs_time(d, x) = x * (P_d - 1) / P_d / BW_d (BW_d = the topology's per-NPU
 *   bandwidth of dim d, tn_dim_info.bandwidth_bps / 8 bytes/s) in ns; x is real
 *   (no rounding). The chunk runs RS on order[0..D-1], then AG on order[D-1..0].
 * Stand-alone all-gather rule: L = dims sorted by load DESCENDING (stable); if
 *   load[L.first] - load[L.last] < ag_time(L.last, s/16) the baseline AG order
 *   D-1..0 is used, else L; x = s / N; for d in order: x = x * P_d,
 *   load[d] += x * (P_d - 1) / P_d / BW_d.
 * `baseline` forces the fixed order (loads are still accumulated).
 *
 * Plan (tn_themis_plan): the orders of all C chunks of one collective (chunk c
 * has tn_chunk_region(S, C, c).length bytes), the loads after each chunk, and
 * the timing of the event-driven simulation used to build the schedule:
 *  - chunk-phase = one RS or AG phase of one chunk on one dim; phase k of chunk
 *    c runs on dim order_c[k] (k < D, RS) or order_c[2D-1-k] (AG).
 *  - each dim has A slots (request->themis.active_chunks_per_dim, 0 = 1) and a
 *    ready queue; at time 0 every chunk queues its phase 0 in chunk order; when
 *    a phase ends, the chunk queues its next phase on that phase's dim.
 *  - a free slot takes from its queue: FIFO = earliest arrival, then smaller
 *    chunk (creation order); SCF = smallest pending phase size x, then arrival,
 *    then chunk.
 *  - phase duration = the alpha-beta time of the dim's algorithm on x bytes,
 *    with the link rates and latencies of the topology (the terms tn-cost
 *    charges): ring (unidirectional, one cable of rate r): (P-1)(lat + x/P/r);
 *    switch: (P-1) x/P / r + 2 lat; fully connected: x/P / r + lat.
 *  - events at equal times are processed by (time, dim, chunk).
 * Schedule (tn_themis_schedule, all-reduce): every chunk-phase is the dim's
 * own algorithm on every group of that dim (ranks differing only in that
 * coordinate): ring for ring/torus dims, direct for fc/switch dims. A member's
 * range is split with tn_slice_of into P_d parts, member j keeps part j (RS) and
 * the AG phases mirror it. Deps: the first transfers of a member in a phase
 * depend on that member's last receives in the chunk's previous phase AND in
 * the phase that previously held the same dim slot in the simulation (this
 * realises the A-per-dim limit and the FIFO/SCF order in the DAG). Steps:
 * phases get consecutive step ranges in simulation start order. The schedule
 * does not claim contention freedom (ring dims of different chunks may overlap
 * in time by design).
 *
 * Ownership: create/destroy pairs; the caller owns what it creates. Arrays
 * returned by accessors stay valid until the object is destroyed.
 */
#ifndef TN_THEMIS_H
#define TN_THEMIS_H

#include "tn-algorithm.h"
#include "tn-error.h"
#include "tn-schedule.h"
#include "tn-topology.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    typedef struct tn_themis_balancer tn_themis_balancer;

    /**
     * Balancer over explicit dims: sizes[d] >= 1 NPUs, bandwidth_bps[d] > 0
     * (per-NPU bandwidth). ndims >= 1.
     */
    tn_status tn_themis_balancer_create(uint32_t ndims,
                                        const uint32_t* sizes,
                                        const uint64_t* bandwidth_bps,
                                        tn_themis_balancer** out,
                                        tn_error* err);

    /** Balancer over the dims of a topology (at least one dim). */
    tn_status tn_themis_balancer_from_topology(const tn_topology* topo,
                                               tn_themis_balancer** out,
                                               tn_error* err);

    void tn_themis_balancer_destroy(tn_themis_balancer* b);

    /** Loads back to 0 (a new collective). */
    void tn_themis_balancer_reset(tn_themis_balancer* b);

    uint32_t tn_themis_balancer_dims(const tn_themis_balancer* b);

    /** Current loads in ns, one per dim. */
    const double* tn_themis_balancer_loads(const tn_themis_balancer* b);

    /**
     * Order of the next chunk of `bytes` (writes dims entries to order) and
     * update the loads. all_gather selects the stand-alone all-gather rule (order
     * is then the AG order); baseline forces the fixed order.
     */
    void tn_themis_balancer_next(tn_themis_balancer* b,
                                 double bytes,
                                 bool all_gather,
                                 bool baseline,
                                 uint32_t* order);

    typedef struct tn_themis_plan tn_themis_plan;

    /**
     * Orders, loads and simulated timing of a request on a multi-dimensional
     * topology (collective all-reduce, reduce-scatter or all-gather; chunks 0 =
     * the Themis default 64).
     */
    tn_status tn_themis_plan_create(const tn_topology* topo,
                                    const tn_plan_request* request,
                                    tn_themis_plan** out,
                                    tn_error* err);

    void tn_themis_plan_destroy(tn_themis_plan* p);

    uint32_t tn_themis_plan_chunks(const tn_themis_plan* p);
    uint32_t tn_themis_plan_dims(const tn_themis_plan* p);

    /** Dim order of chunk c (dims entries): RS order, or AG order for all-gather. */
    const uint32_t* tn_themis_plan_order(const tn_themis_plan* p, uint32_t chunk);

    /** Whether chunk c uses the baseline order. */
    bool tn_themis_plan_is_baseline(const tn_themis_plan* p, uint32_t chunk);

    /** Loads (ns, dims entries) right after chunk c was balanced. */
    const double* tn_themis_plan_loads(const tn_themis_plan* p, uint32_t chunk);

    /** Simulated start / end (ns) of phase k (< 2D, or D for RS/AG alone) of chunk c. */
    double tn_themis_plan_phase_start(const tn_themis_plan* p, uint32_t chunk, uint32_t phase);
    double tn_themis_plan_phase_end(const tn_themis_plan* p, uint32_t chunk, uint32_t phase);

    /** End of the last phase in the simulation (ns). */
    double tn_themis_plan_makespan(const tn_themis_plan* p);

    /**
     * Build the Themis schedule of the request into s (created, not finalized;
     * all-reduce). When plan_out is not NULL the plan used is returned (caller
     * destroys it).
     */
    tn_status tn_themis_schedule(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 tn_schedule* s,
                                 tn_themis_plan** plan_out,
                                 tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_THEMIS_H */
