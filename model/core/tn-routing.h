/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-routing: shortest-path routes and ECMP next-hop sets over a tn_topology.
 *
 * Contract
 * --------
 *  - Distances are hop counts over the directed links. On a topology with a shape
 *    (tn-shape.h: the tori, meshes, rings, fc, switch, hier systems, fat-trees,
 *    leaf-spines and BiGraphs of the generators), routed to all its NPUs under a
 *    transit rule the shape allows (tn_shape_routes_valid), they are computed from node
 *    ids on each query: no table, O(nodes) memory and creation time
 *    (tn_routes_computed() is true). Otherwise (files, presets, hand-built graphs, a
 *    destination list, options.force_tables) tn_routes_create() runs one BFS per
 *    destination node. Destinations are all NPU nodes by default, or the node
 *    list given in tn_routes_options (any nodes, switches included). Memory is one
 *    distance table of destinations x nodes (1 byte per entry while every distance is
 *    below 255, 2 bytes below 65535, 4 bytes otherwise) plus O(nodes); nothing is
 *    N_nodes^2 unless every node is a destination. 4096 destinations x 16k nodes =
 *    64 MiB: pass a destination subset when only some are needed. Both give the same
 *    distances, hence the same next hops and paths (test/core/test-routing.c compares
 *    them on every pair of small instances of every shape).
 *  - Transit rule: a path may pass THROUGH an NPU (an NPU that is neither its first
 *    nor its last node) only when transit through NPUs is allowed. By default
 *    (TN_TRANSIT_TOPOLOGY) that is tn_topology_npus_forward(): allowed in direct
 *    networks (no switch), forbidden in switched networks (switch, leaf-spine,
 *    fat-tree, BiGraph, files with switches: hosts do not forward), allowed in
 *    multi-dim hierarchical systems. Switches are always transit nodes. Distances
 *    are shortest hop counts among the paths that obey the rule.
 *  - ECMP next hops of (node v, destination d): the out-links v->w, in the order of
 *    tn_topology_out_links(v) (= port order, deterministic), such that
 *    dist(w, d) == dist(v, d) - 1 and w is d or may be transited. Parallel cables are
 *    separate next hops. Empty when v == d or d is unreachable from v.
 *  - Dimension order (options.order = TN_ROUTE_DIMENSION_ORDER): of those out-links,
 *    only the ones whose link dim is the lowest dim among them (links of dim -1 only
 *    when no candidate has a dim). On tori, meshes and hier ring/fc dims every
 *    shortest path corrects each coordinate inside its own dim, so this corrects dim 0
 *    first, then dim 1, ...: X before Y. Two paths can then no longer wait on each
 *    other's dims in a cycle (X-then-Y against Y-then-X, the PFC deadlock of a mesh
 *    that routes through NPUs). The cycle left inside each torus ring is not the
 *    routes' to break: a fabric needs a second priority past a dateline for it. The
 *    paths stay shortest; there are fewer of them (one per pair on a mesh).
 *  - Every path made of next hops is a shortest path obeying the rule, and with the
 *    default order every such shortest path is made of next hops.
 *  - Up/down (tn_routes_up_down_turn): nodes are ordered by (level, id), level = hops
 *    to the nearest NPU (hosts 0, leaves or edges 1, spines or aggregation 2, cores 3);
 *    a hop is "up" toward a higher node in that order, "down" toward a lower one. A
 *    path with no up hop after a down hop is up/down; routes that are all up/down
 *    cannot close a cycle of buffer dependencies (each dependency goes from a link to
 *    the next of one path, and no path returns up once down), so PFC cannot deadlock on
 *    them. Shortest paths of fat-trees and leaf-spines (ECMP) are up/down; a planned
 *    route need not be. Meaningful where NPUs do not forward (switched topologies).
 *  - The routes keep a pointer to the topology: the topology must outlive the routes
 *    and must not be modified while they exist. Queries are const and thread-safe.
 *  - Node arguments of the uint32_t-returning queries must be valid node ids; a
 *    destination that is not in the routed set gives TN_ROUTES_UNREACHABLE / 0
 *    (use tn_routes_is_dest to tell the cases apart).
 */
#ifndef TN_ROUTING_H
#define TN_ROUTING_H

#include "tn-error.h"
#include "tn-topology.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** Distance of an unreachable (or not routed) destination. */
#define TN_ROUTES_UNREACHABLE UINT32_MAX

    typedef struct tn_routes tn_routes;

    /** Which nodes a path may pass through (besides its ends). */
    typedef enum tn_transit
    {
        TN_TRANSIT_TOPOLOGY = 0, /**< tn_topology_npus_forward() decides (default) */
        TN_TRANSIT_ALL_NODES,    /**< NPUs and switches forward */
        TN_TRANSIT_SWITCHES_ONLY /**< only switches forward */
    } tn_transit;

    /** Which of the shortest paths are routes. */
    typedef enum tn_route_order
    {
        TN_ROUTE_SHORTEST = 0,   /**< every shortest path obeying the transit rule (default) */
        TN_ROUTE_DIMENSION_ORDER /**< only those that correct the lowest dim first */
    } tn_route_order;

    /** Options of tn_routes_create(); a zeroed struct (or NULL) = defaults. */
    typedef struct tn_routes_options
    {
        const uint32_t* dest_nodes; /**< destination node ids; NULL = all NPUs */
        uint32_t dest_count;        /**< number of dest_nodes (ignored when NULL) */
        tn_transit transit;         /**< transit rule */
        tn_route_order order;       /**< which shortest paths are routes */
        bool force_tables;          /**< BFS tables even where the shape computes (tests) */
    } tn_routes_options;

    /** "shortest" or "dimension-order"; NULL for an unknown value. */
    const char* tn_route_order_name(tn_route_order order);

    /** Parse a tn_route_order_name(); false (and *order untouched) for an unknown name. */
    bool tn_route_order_parse(const char* name, tn_route_order* order);

    /**
     * Compute the routes of `topo` (must have at least one node). Duplicate or
     * invalid destination ids give TN_EINVAL naming dest_nodes[i].
     */
    tn_status tn_routes_create(const tn_topology* topo,
                               const tn_routes_options* options,
                               tn_routes** out,
                               tn_error* err);

    /** Free the routes; NULL is ignored. */
    void tn_routes_destroy(tn_routes* routes);

    const tn_topology* tn_routes_topology(const tn_routes* routes);

    /** Whether NPUs may be transited in these routes (the resolved rule). */
    bool tn_routes_npus_forward(const tn_routes* routes);

    /** The order the routes were made with. */
    tn_route_order tn_routes_order(const tn_routes* routes);

    /** Number of routed destinations and the i-th one (in the order given). */
    uint32_t tn_routes_dest_count(const tn_routes* routes);
    uint32_t tn_routes_dest_node(const tn_routes* routes, uint32_t i);
    bool tn_routes_is_dest(const tn_routes* routes, uint32_t node);

    /** Hop count from node `from` to destination node `to`, or TN_ROUTES_UNREACHABLE. */
    uint32_t tn_routes_distance(const tn_routes* routes, uint32_t from, uint32_t to);

    /** Same between NPU ranks. */
    uint32_t tn_routes_distance_rank(const tn_routes* routes, uint32_t from_rank, uint32_t to_rank);

    /** Level of a node: hops to the nearest NPU (TN_ROUTES_UNREACHABLE if none). */
    uint32_t tn_routes_level(const tn_routes* routes, uint32_t node);

    /**
     * The first hop of a path (links[0..len-1]) that goes up after a down hop (see
     * contract), or UINT32_MAX when the path is up/down. Link ids must be valid.
     */
    uint32_t tn_routes_up_down_turn(const tn_routes* routes, const uint32_t* links, uint32_t len);

    /**
     * ECMP next hops of node toward destination node `to`: writes up to cap out-link
     * ids (links may be NULL when cap == 0) and returns the total count, which is at
     * most tn_topology_degree(node).
     */
    uint32_t tn_routes_next_hops(const tn_routes* routes,
                                 uint32_t node,
                                 uint32_t to,
                                 uint32_t* links,
                                 uint32_t cap);

    /** Whether distances come from the topology's shape (no table, see contract). */
    bool tn_routes_computed(const tn_routes* routes);

    /** Largest finite distance between two distinct NPUs among the routed dests. */
    uint32_t tn_routes_max_npu_distance(const tn_routes* routes);

    /**
     * Choose one shortest path from node src to destination node dst,
     * deterministically from flow_hash: at hop h, standing at node v with c next hops,
     * take next hop number tn_routes_hash_pick(flow_hash, v, c). Writes the link ids
     * (in order) to links and the hop count to *len. src == dst gives *len = 0.
     * TN_EINVAL if dst is not a routed destination, is unreachable from src, or
     * cap < distance (the message gives the distance).
     */
    tn_status tn_routes_path(const tn_routes* routes,
                             uint32_t src,
                             uint32_t dst,
                             uint64_t flow_hash,
                             uint32_t* links,
                             uint32_t cap,
                             uint32_t* len,
                             tn_error* err);

    /**
     * Number of distinct shortest paths (as link sequences) from src to destination
     * dst, saturating at UINT64_MAX; 0 if unreachable, 1 if src == dst.
     */
    tn_status tn_routes_path_count(const tn_routes* routes,
                                   uint32_t src,
                                   uint32_t dst,
                                   uint64_t* count,
                                   tn_error* err);

    /**
     * The ECMP choice used by tn_routes_path: a 64-bit mix (splitmix64 finaliser) of
     * flow_hash and node, modulo count (count > 0). Exposed so the ns-3 forwarding
     * layer can make the same choice.
     */
    uint32_t tn_routes_hash_pick(uint64_t flow_hash, uint32_t node, uint32_t count);

#ifdef __cplusplus
}
#endif

#endif /* TN_ROUTING_H */
