/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-partition: which MPI rank (ns-3 system id) simulates each node of a topology.
 *
 * Contract
 * --------
 * A partition of a topology over K ranks is an array rank_of_node[0..nodes-1] with values
 * in 0..K-1, every rank holding at least one node.
 *
 * tn_partition_auto(topo, K, rank_of_node, err) cuts few cables:
 *  - NPUs go to ranks in contiguous blocks of NPU rank order (block r holds NPU ranks
 *    floor(r N / K) .. floor((r+1) N / K) - 1), so the pods of a fat-tree, slices of a torus
 *    (rows of an 8x8 torus) and the servers of a hierarchical system stay together;
 *  - then each switch, in breadth-first order from the NPUs, joins the rank on which most of
 *    its already placed neighbours are (ties: the rank with fewer nodes, then the lower
 *    rank): a leaf goes with its hosts, an aggregation switch with its pod, the core switches
 *    of a fat-tree are spread evenly; switches no NPU reaches go to the rank with fewest
 *    nodes.
 *  Deterministic. Fails (TN_EINVAL) if K is 0 or exceeds the NPU count (a rank without NPUs).
 *
 * tn_partition_from_lists(node_count, K, nodes, sizes, rank_of_node, err): a user-given
 * partition, K lists of node ids (list r = the nodes of rank r) concatenated in nodes[],
 * sizes[r] ids each. Fails (TN_EINVAL, the message names the node and the ranks) when a
 * node is named twice, a node is in no list, an id is not a node, a list is empty, or K
 * exceeds the node count.
 *
 * tn_partition_cut(topo, rank_of_node, cut, min_latency_ns): the number of cables whose ends
 * are on different ranks, and the smallest latency among them (UINT64_MAX when none): the
 * lookahead of ns-3's distributed engines.
 */
#ifndef TN_PARTITION_H
#define TN_PARTITION_H

#include "tn-error.h"
#include "tn-topology.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    tn_status tn_partition_auto(const tn_topology* topo,
                                uint32_t ranks,
                                uint32_t* rank_of_node,
                                tn_error* err);

    tn_status tn_partition_from_lists(uint32_t node_count,
                                      uint32_t ranks,
                                      const uint32_t* nodes,
                                      const uint32_t* sizes,
                                      uint32_t* rank_of_node,
                                      tn_error* err);

    void tn_partition_cut(const tn_topology* topo,
                          const uint32_t* rank_of_node,
                          uint32_t* cut,
                          uint64_t* min_latency_ns);

#ifdef __cplusplus
}
#endif

#endif /* TN_PARTITION_H */
