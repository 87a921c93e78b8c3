/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-shape: the regular structure a generator built, and the hop distances it implies, so
 * that routes on regular topologies need no destinations x nodes table (tn-routing.h).
 *
 * Contract
 * --------
 *  - A tn_shape is a plain value. kind TN_SHAPE_NONE (a zeroed struct) means "no known
 *    structure": files, presets, hand-built graphs. The generators of tn-topology.h set
 *    one, with the node id layouts documented there:
 *      GRID       ring, fc, switch, torus, mesh and hier: NPU ids mixed radix over the
 *                 axes (axis 0 fastest); an axis is a ring (wrapping; size 2 is one
 *                 cable), a line (mesh), fc (a cable to every NPU of the group) or a
 *                 switch (one switch per group of NPUs that differ only on that axis,
 *                 switch ids after the NPUs, axes in order, groups in rank order).
 *                 At most TN_SHAPE_MAX_AXES axes.
 *      FATTREE    fattree:k (a = k).
 *      LEAFSPINE  leafspine (a = leaves, b = spines, c = hosts per leaf).
 *      BIGRAPH    bigraph:NxM (a = switches N, b = NPUs per switch M).
 *  - A topology's shape is cleared by any later tn_topology_add_node(s) or
 *    tn_topology_add_link: it describes the generator's graph and no other. Names, dims,
 *    error rates and the NPU transit flag do not clear it.
 *  - tn_topology_set_shape() lets a faithful copy of a generated topology (same nodes and
 *    cables, same ids: the flow level's copy) keep the shape of its original. It checks
 *    the NPU and switch counts and nothing else: the caller vouches for the cables.
 *  - tn_shape_distance(shape, node, dst) is the hop count of a shortest path from `node`
 *    (any node) to the NPU node `dst`, exactly what a BFS over the directed links finds
 *    under the transit rule of tn_shape_routes_valid(); test/core/test-routing.c checks
 *    it against the BFS tables on every (node, destination) pair of small instances.
 *  - tn_shape_routes_valid(shape, npus_forward): whether those distances hold when NPUs
 *    may (npus_forward) or may not be transited. Switched shapes (fat-tree, leaf-spine,
 *    BiGraph) never need NPU transit; a grid needs it unless it is one fc or switch axis.
 *  - tn_shape_max_npu_distance: the largest distance between two distinct NPUs.
 *  - Everything is O(axes) time and no memory.
 */
#ifndef TN_SHAPE_H
#define TN_SHAPE_H

#include "tn-error.h"
#include "tn-topology.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** Largest number of axes a GRID shape records (more: no shape). */
#define TN_SHAPE_MAX_AXES 16

    /** Which regular structure. */
    typedef enum tn_shape_kind
    {
        TN_SHAPE_NONE = 0,
        TN_SHAPE_GRID,
        TN_SHAPE_FATTREE,
        TN_SHAPE_LEAFSPINE,
        TN_SHAPE_BIGRAPH
    } tn_shape_kind;

    /** Kind of one axis of a GRID. */
    typedef enum tn_axis_kind
    {
        TN_AXIS_RING = 0,
        TN_AXIS_LINE,
        TN_AXIS_FC,
        TN_AXIS_SWITCH
    } tn_axis_kind;

    /** The structure (see contract). */
    typedef struct tn_shape
    {
        tn_shape_kind kind;
        uint32_t axes;                        /**< GRID: number of axes */
        uint32_t size[TN_SHAPE_MAX_AXES];     /**< GRID: NPUs along each axis (>= 2) */
        tn_axis_kind axis[TN_SHAPE_MAX_AXES]; /**< GRID: kind of each axis */
        uint32_t a, b, c;                     /**< FATTREE, LEAFSPINE, BIGRAPH parameters */
    } tn_shape;

    /** The shape of a topology (kind TN_SHAPE_NONE when it has none). */
    const tn_shape* tn_topology_shape(const tn_topology* topo);

    /**
     * Give a topology a shape (NULL or kind NONE clears it). TN_EINVAL when the shape's NPU
     * or switch count differs from the topology's, or a parameter is out of range.
     */
    tn_status tn_topology_set_shape(tn_topology* topo, const tn_shape* shape, tn_error* err);

    /** NPUs and switches a shape has (false for NONE or a count beyond uint32_t). */
    bool tn_shape_counts(const tn_shape* shape, uint32_t* npus, uint32_t* switches);

    /** Whether tn_shape_distance is the BFS distance under that transit rule. */
    bool tn_shape_routes_valid(const tn_shape* shape, bool npus_forward);

    /** Hops from node `node` to NPU node `dst` (both valid ids of the shape). */
    uint32_t tn_shape_distance(const tn_shape* shape, uint32_t node, uint32_t dst);

    /**
     * The port of a GRID switch node toward NPU node dst: its only next hop, the NPU of its
     * group at dst's coordinate on the switch's axis (the generator cables a group in rank
     * order, so that is the port number). UINT32_MAX when node is not a grid switch.
     */
    uint32_t tn_shape_switch_port(const tn_shape* shape, uint32_t node, uint32_t dst);

    /** Largest distance between two distinct NPUs (0 with one NPU). */
    uint32_t tn_shape_max_npu_distance(const tn_shape* shape);

#ifdef __cplusplus
}
#endif

#endif /* TN_SHAPE_H */
