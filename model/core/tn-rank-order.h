/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-rank-order: the order in which ring-based algorithms visit the ranks.
 *
 * Contract
 * --------
 * A ring order of N ranks is a permutation order[0..N-1] of 0..N-1: position k
 * sends to position k+1 (mod N). Algorithms keep their per-rank semantics under
 * any order (rank r still owns slice r, tn-schedule.h); the order only decides
 * who sends to whom, and so which links a ring step uses.
 *
 * tn_ring_order(topo, ranks, order, info, err) picks the order the ring
 * algorithms use when the request gives none (tn_plan_request.rank_order NULL),
 * like NCCL's ring search: a cycle of neighbours where the topology has one.
 *  - topo NULL: identity 0..N-1.
 *  - Grid-structured networks: every rank of the topology is planned (ranks ==
 *    npu_count), the topology has dims (their product == N) and every dim is a
 *    ring, torus, mesh, fc or switch dim (ring:N, fc:N, torus, mesh, hier:...).
 *    The order is built axis by axis, dim 0 first, as a sequence of NPUs in which
 *    consecutive entries differ by one step along one axis (a cable, or a shared
 *    switch for switch dims; fc dims and torus/ring axes wrap):
 *      - one axis: identity when it wraps (ring, torus, fc, switch; also any
 *        axis of size 2); a mesh line of P >= 3 has no cycle: the near-cycle
 *        0, 2, 4, ..., (odds descending) ..., 3, 1 (every hop at most 2 cables,
 *        every directed link used once per ring step; see tn_ring_order_line);
 *      - a sequence of length L joined with the next axis of size P (an L x P
 *        grid): snake (boustrophedon) over columns 1..P-1 and return along
 *        column 0 when L or P is even (a grid R x C with R*C even and both >= 2
 *        has a Hamiltonian cycle); when both are odd and one side wraps (a torus
 *        axis, or a sequence that is itself a cycle), the last row is spliced in
 *        through the wrap, again a cycle; odd x odd without a wrap (an odd-odd
 *        mesh) has no Hamiltonian cycle (bipartite with an odd node count): the
 *        order is a Hamiltonian path whose ends are two cables apart, so the ring
 *        has exactly ONE non-neighbour hop (from the last position back to the
 *        first, length 2).
 *    So a 2D/3D torus always gets a cycle of neighbours, a mesh gets one unless
 *    all its sizes are odd (one hop of length 2), and a ring keeps the identity.
 *  - Switched networks (the topology has switches and is not structured as
 *    above: single switch, leaf-spine, fat-tree, BiGraph, HPCC files): switch-
 *    local order. Each rank's NPU hangs off the switch of its lowest-port switch
 *    cable; ranks of one switch are consecutive (ascending within the group), so
 *    only one ring hop leaves and one enters each switch. Groups follow a
 *    depth-first walk over the switches (ports in order) from the switch of rank
 *    0, so switches that share a parent (a pod of a fat-tree) are consecutive;
 *    unreached switches follow by smallest rank, NPUs without a switch last.
 *  - Other direct networks (files without switches, or ranks < npu_count): a
 *    bounded depth-first search for a cycle of neighbours among the ranks
 *    (Warnsdorff's rule: fewest free neighbours first, 64 N expansions at
 *    most); when none is found, the identity.
 *  - info (may be NULL) reports what was chosen and how many of the N cyclic
 *    pairs (order[k], order[k+1 mod N]) are NOT adjacent, where two ranks are
 *    adjacent when a cable joins their NPUs or both are cabled to one switch
 *    (N <= 2: 0). A cycle of neighbours has 0; an odd-odd mesh 1; a switch-local
 *    order on G > 1 switches G.
 * Cost: O(nodes + links) plus O(N * degree^2) for info; the cycle search at most
 * O(64 N * degree^2). Deterministic.
 */
#ifndef TN_RANK_ORDER_H
#define TN_RANK_ORDER_H

#include "tn-error.h"
#include "tn-topology.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** How a ring order was built. */
    typedef enum tn_ring_order_kind
    {
        TN_RING_ORDER_IDENTITY = 0, /**< 0..N-1 (no topology, or nothing better found) */
        TN_RING_ORDER_GRID,         /**< axis by axis over ring/torus/mesh/fc/switch dims */
        TN_RING_ORDER_SWITCH_LOCAL, /**< ranks grouped by the switch they hang off */
        TN_RING_ORDER_SEARCH,       /**< cycle of neighbours found by the bounded search */
        TN_RING_ORDER_GIVEN         /**< given by the caller (tn_plan_request.rank_order) */
    } tn_ring_order_kind;

    /** Stable lowercase name: "identity", "grid", "switch-local", "search", "given". */
    const char* tn_ring_order_kind_name(tn_ring_order_kind kind);

    /** What tn_ring_order chose. */
    typedef struct tn_ring_order_info
    {
        tn_ring_order_kind kind;
        uint32_t non_adjacent; /**< cyclic pairs whose NPUs are not adjacent (contract) */
    } tn_ring_order_info;

    /**
     * The automatic ring order (contract above) of ranks 0..ranks-1: order must
     * hold `ranks` entries. ranks >= 1; with a topology ranks <= its NPU count.
     */
    tn_status tn_ring_order(const tn_topology* topo,
                            uint32_t ranks,
                            uint32_t* order,
                            tn_ring_order_info* info,
                            tn_error* err);

    /**
     * Ring order of the positions 0..count-1 of a line (mesh axis): 0, 2, 4, ...
     * then the odd positions descending; every hop spans at most 2 positions and
     * each directed link of the line is crossed exactly once per ring step
     * (count 1: {0}; 2: {0, 1}; 3: {0, 2, 1}).
     */
    void tn_ring_order_line(uint32_t count, uint32_t* order);

    /**
     * Number of cyclic pairs of `order` (count entries, ranks of topo) whose NPUs
     * are not adjacent (cable, or a common switch). topo NULL or count <= 2: 0.
     */
    uint32_t tn_ring_order_non_adjacent(const tn_topology* topo,
                                        const uint32_t* order,
                                        uint32_t count);

    /**
     * Check a caller's order: order != NULL, count == ranks and a permutation of
     * 0..ranks-1. `who` starts the message ("ring: rank order: entry 3 is 9, not a
     * rank (< 8)"; "... rank 2 appears twice (entries 1 and 4)"; "... has 7
     * entries, expected one per rank (8)"). TN_EINVAL on failure.
     */
    tn_status tn_rank_order_validate(const char* who,
                                     const uint32_t* order,
                                     uint32_t count,
                                     uint32_t ranks,
                                     tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_RANK_ORDER_H */
