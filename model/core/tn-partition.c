/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-partition.h"

#include <stdlib.h>

#define TN_UNPLACED UINT32_MAX

tn_status
tn_partition_auto(const tn_topology* topo, uint32_t ranks, uint32_t* rank_of_node, tn_error* err)
{
    const uint32_t n = tn_topology_node_count(topo);
    const uint32_t npus = tn_topology_npu_count(topo);
    if (ranks == 0)
    {
        return tn_error_set(err, TN_EINVAL, "partition: 0 ranks");
    }
    if (ranks > npus)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "partition: %u ranks for %u NPUs (every rank needs an NPU)",
                            ranks,
                            npus);
    }
    uint32_t* queue = malloc(sizeof(uint32_t) * (n ? n : 1));
    uint32_t* load = calloc(ranks, sizeof(uint32_t));
    uint32_t* votes = calloc(ranks, sizeof(uint32_t));
    if (!queue || !load || !votes)
    {
        free(queue);
        free(load);
        free(votes);
        return tn_error_set(err, TN_ENOMEM, "partition: out of memory for %u nodes", n);
    }
    for (uint32_t v = 0; v < n; ++v)
    {
        rank_of_node[v] = TN_UNPLACED;
    }
    uint32_t head = 0;
    uint32_t tail = 0;
    for (uint32_t r = 0; r < npus; ++r)
    {
        const uint32_t v = tn_topology_npu_node(topo, r);
        const uint32_t block = (uint32_t)(((uint64_t)r * ranks) / npus);
        rank_of_node[v] = block;
        ++load[block];
        queue[tail++] = v;
    }
    // breadth-first from the NPUs: a switch is placed when first reached, by the ranks of
    // its neighbours placed so far
    while (head < tail)
    {
        const uint32_t u = queue[head++];
        uint32_t count = 0;
        const uint32_t* out = tn_topology_out_links(topo, u, &count);
        for (uint32_t i = 0; i < count; ++i)
        {
            const uint32_t w = tn_topology_link(topo, out[i])->dst;
            if (rank_of_node[w] != TN_UNPLACED)
            {
                continue;
            }
            for (uint32_t r = 0; r < ranks; ++r)
            {
                votes[r] = 0;
            }
            uint32_t wcount = 0;
            const uint32_t* wout = tn_topology_out_links(topo, w, &wcount);
            for (uint32_t j = 0; j < wcount; ++j)
            {
                const uint32_t x = tn_topology_link(topo, wout[j])->dst;
                if (rank_of_node[x] != TN_UNPLACED)
                {
                    ++votes[rank_of_node[x]];
                }
            }
            uint32_t best = 0;
            for (uint32_t r = 1; r < ranks; ++r)
            {
                if (votes[r] > votes[best] || (votes[r] == votes[best] && load[r] < load[best]))
                {
                    best = r;
                }
            }
            rank_of_node[w] = best;
            ++load[best];
            queue[tail++] = w;
        }
    }
    for (uint32_t v = 0; v < n; ++v)
    {
        if (rank_of_node[v] == TN_UNPLACED)
        {
            uint32_t best = 0;
            for (uint32_t r = 1; r < ranks; ++r)
            {
                if (load[r] < load[best])
                {
                    best = r;
                }
            }
            rank_of_node[v] = best;
            ++load[best];
        }
    }
    free(queue);
    free(load);
    free(votes);
    return TN_OK;
}

tn_status
tn_partition_from_lists(uint32_t node_count,
                        uint32_t ranks,
                        const uint32_t* nodes,
                        const uint32_t* sizes,
                        uint32_t* rank_of_node,
                        tn_error* err)
{
    if (ranks == 0)
    {
        return tn_error_set(err, TN_EINVAL, "partition: no rank lists");
    }
    if (ranks > node_count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "partition: %u ranks for %u nodes (more ranks than nodes)",
                            ranks,
                            node_count);
    }
    for (uint32_t v = 0; v < node_count; ++v)
    {
        rank_of_node[v] = TN_UNPLACED;
    }
    uint64_t k = 0;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (sizes[r] == 0)
        {
            return tn_error_set(err, TN_EINVAL, "partition: rank %u has no node", r);
        }
        for (uint32_t i = 0; i < sizes[r]; ++i, ++k)
        {
            const uint32_t v = nodes[k];
            if (v >= node_count)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "partition: rank %u names node %u, but the topology has "
                                    "%u nodes (0..%u)",
                                    r,
                                    v,
                                    node_count,
                                    node_count - 1);
            }
            if (rank_of_node[v] != TN_UNPLACED)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "partition: node %u is named twice (rank %u and rank %u)",
                                    v,
                                    rank_of_node[v],
                                    r);
            }
            rank_of_node[v] = r;
        }
    }
    for (uint32_t v = 0; v < node_count; ++v)
    {
        if (rank_of_node[v] == TN_UNPLACED)
        {
            return tn_error_set(err, TN_EINVAL, "partition: node %u is on no rank", v);
        }
    }
    return TN_OK;
}

void
tn_partition_cut(const tn_topology* topo,
                 const uint32_t* rank_of_node,
                 uint32_t* cut,
                 uint64_t* min_latency_ns)
{
    uint32_t cables = 0;
    uint64_t lookahead = UINT64_MAX;
    const uint32_t links = tn_topology_link_count(topo);
    for (uint32_t l = 0; l < links; ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        if (link->reverse < l || rank_of_node[link->src] == rank_of_node[link->dst])
        {
            continue;
        }
        ++cables;
        if (link->latency_ns < lookahead)
        {
            lookahead = link->latency_ns;
        }
    }
    if (cut)
    {
        *cut = cables;
    }
    if (min_latency_ns)
    {
        *min_latency_ns = lookahead;
    }
}
