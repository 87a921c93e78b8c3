/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Partitions of a topology over MPI ranks (tn-partition.h), checked against the graph:
 *  - every node on exactly one rank, every rank with a node;
 *  - fattree:k=8 on 2 ranks: no host or pod cable cut, only core cables: each of the 16 core
 *    switches keeps the 4 pods of its own rank and cuts the other 4 (64 cables); node counts
 *    equal;
 *  - torus:8x8 on 2 ranks: two slices of 4 rows, cut = 2 boundaries x 8 cables; on 4 ranks
 *    4 boundaries x 8;
 *  - leaf-spine: every host with its leaf;
 *  - the lookahead is the smallest latency of a cut cable; no cut: UINT64_MAX;
 *  - user lists: a node named twice, a node left out, an id beyond the topology, more ranks
 *    than nodes and an empty rank are refused with the node or rank in the message.
 */
#include "tn-test.h"

#include "ns3/tn-partition.h"
#include "ns3/tn-topology.h"

#include <stdlib.h>
#include <string.h>

static tn_topology*
pt_topo(tn_test_ctx* ctx, const char* spec)
{
    tn_topology* t = NULL;
    tn_error err;
    err.message[0] = 0;
    TN_CHECK_MSG(ctx, tn_topology_from_spec(spec, &t, &err) == TN_OK, "%s: %s", spec, err.message);
    return t;
}

/* Cables between ranks whose ends are an NPU (host cables). */
static uint32_t
cut_host_cables(const tn_topology* t, const uint32_t* rank)
{
    uint32_t cut = 0;
    for (uint32_t l = 0; l < tn_topology_link_count(t); l++)
    {
        const tn_link* k = tn_topology_link(t, l);
        if (k->reverse > l && rank[k->src] != rank[k->dst] &&
            (tn_topology_node_kind(t, k->src) == TN_NODE_NPU ||
             tn_topology_node_kind(t, k->dst) == TN_NODE_NPU))
            cut++;
    }
    return cut;
}

static void
count_nodes(const tn_topology* t, const uint32_t* rank, uint32_t ranks, uint32_t* per_rank)
{
    memset(per_rank, 0, sizeof(uint32_t) * ranks);
    for (uint32_t v = 0; v < tn_topology_node_count(t); v++)
        per_rank[rank[v]]++;
}

static void
test_fat_tree(tn_test_ctx* ctx)
{
    tn_topology* t = pt_topo(ctx, "fattree:k=8,latency=500ns");
    if (!t)
        return;
    const uint32_t n = tn_topology_node_count(t);
    uint32_t* rank = malloc(sizeof(uint32_t) * n);
    tn_error err;
    TN_CHECK(ctx, tn_partition_auto(t, 2, rank, &err) == TN_OK);
    uint32_t per[2];
    count_nodes(t, rank, 2, per);
    TN_CHECK_EQ(ctx, per[0], n / 2);
    TN_CHECK_EQ(ctx, per[1], n / 2);
    TN_CHECK_EQ(ctx, cut_host_cables(t, rank), 0);
    uint32_t cut = 0;
    uint64_t lookahead = 0;
    tn_partition_cut(t, rank, &cut, &lookahead);
    /* (k/2)^2 core switches, each cabled once to each of k pods, k/2 of them elsewhere */
    TN_CHECK_EQ(ctx, cut, 16 * 4);
    TN_CHECK_EQ(ctx, lookahead, 500);
    /* cut cables are core cables only: one end has no NPU within one hop... an edge switch
       (a switch cabled to an NPU) is never cut */
    for (uint32_t l = 0; l < tn_topology_link_count(t); l++)
    {
        const tn_link* k = tn_topology_link(t, l);
        if (rank[k->src] == rank[k->dst])
            continue;
        uint32_t count = 0;
        const uint32_t* out = tn_topology_out_links(t, k->src, &count);
        for (uint32_t i = 0; i < count; i++)
            TN_CHECK_MSG(ctx,
                         tn_topology_node_kind(t, tn_topology_link(t, out[i])->dst) != TN_NODE_NPU,
                         "cut cable %u leaves an edge switch",
                         l);
    }
    free(rank);
    tn_topology_destroy(t);
}

static void
test_torus(tn_test_ctx* ctx)
{
    tn_topology* t = pt_topo(ctx, "torus:8x8,latency=700ns");
    if (!t)
        return;
    uint32_t rank[64];
    tn_error err;
    uint32_t ranks_list[2] = {2, 4};
    for (int i = 0; i < 2; i++)
    {
        const uint32_t k = ranks_list[i];
        TN_CHECK(ctx, tn_partition_auto(t, k, rank, &err) == TN_OK);
        uint32_t per[4];
        count_nodes(t, rank, k, per);
        for (uint32_t r = 0; r < k; r++)
            TN_CHECK_EQ(ctx, per[r], 64 / k);
        uint32_t cut = 0;
        uint64_t lookahead = 0;
        tn_partition_cut(t, rank, &cut, &lookahead);
        TN_CHECK_EQ(ctx, cut, k * 8);
        TN_CHECK_EQ(ctx, lookahead, 700);
    }
    TN_CHECK(ctx, tn_partition_auto(t, 65, rank, &err) == TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "65 ranks for 64 NPUs") != NULL);
    TN_CHECK(ctx, tn_partition_auto(t, 0, rank, &err) == TN_EINVAL);
    /* one rank: nothing cut */
    TN_CHECK(ctx, tn_partition_auto(t, 1, rank, &err) == TN_OK);
    uint32_t cut = 1;
    uint64_t lookahead = 0;
    tn_partition_cut(t, rank, &cut, &lookahead);
    TN_CHECK_EQ(ctx, cut, 0);
    TN_CHECK(ctx, lookahead == UINT64_MAX);
    tn_topology_destroy(t);
}

static void
test_leaf_spine(tn_test_ctx* ctx)
{
    tn_topology* t = pt_topo(ctx, "leafspine:leaves=4,spines=2,hosts=8");
    if (!t)
        return;
    const uint32_t n = tn_topology_node_count(t);
    uint32_t* rank = malloc(sizeof(uint32_t) * n);
    tn_error err;
    TN_CHECK(ctx, tn_partition_auto(t, 2, rank, &err) == TN_OK);
    TN_CHECK_EQ(ctx, cut_host_cables(t, rank), 0);
    uint32_t per[2];
    count_nodes(t, rank, 2, per);
    TN_CHECK(ctx, per[0] > 0 && per[1] > 0);
    free(rank);
    tn_topology_destroy(t);
}

static void
test_lists(tn_test_ctx* ctx)
{
    uint32_t rank[4];
    tn_error err;
    const uint32_t good[] = {0, 2, 1, 3};
    const uint32_t sizes[] = {2, 2};
    TN_CHECK(ctx, tn_partition_from_lists(4, 2, good, sizes, rank, &err) == TN_OK);
    TN_CHECK_EQ(ctx, rank[0], 0);
    TN_CHECK_EQ(ctx, rank[1], 1);
    TN_CHECK_EQ(ctx, rank[2], 0);
    TN_CHECK_EQ(ctx, rank[3], 1);

    const uint32_t twice[] = {0, 1, 1, 3};
    TN_CHECK(ctx, tn_partition_from_lists(4, 2, twice, sizes, rank, &err) == TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "node 1 is named twice (rank 0 and rank 1)"),
                 "%s",
                 err.message);
    const uint32_t missing[] = {0, 1, 2};
    const uint32_t sizes3[] = {2, 1};
    TN_CHECK(ctx, tn_partition_from_lists(4, 2, missing, sizes3, rank, &err) == TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "node 3 is on no rank"), "%s", err.message);
    const uint32_t beyond[] = {0, 1, 2, 9};
    TN_CHECK(ctx, tn_partition_from_lists(4, 2, beyond, sizes, rank, &err) == TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "node 9"), "%s", err.message);
    const uint32_t sizes5[] = {1, 1, 1, 1, 0};
    TN_CHECK(ctx, tn_partition_from_lists(4, 5, good, sizes5, rank, &err) == TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "5 ranks for 4 nodes"), "%s", err.message);
    const uint32_t sizes_empty[] = {4, 0};
    TN_CHECK(ctx, tn_partition_from_lists(4, 2, good, sizes_empty, rank, &err) == TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "rank 1 has no node"), "%s", err.message);
}

void
tn_suite_partition(tn_test_suite* suite)
{
    tn_test_add(suite, "fat-tree-pods", test_fat_tree);
    tn_test_add(suite, "torus-slices", test_torus);
    tn_test_add(suite, "leaf-spine-hosts", test_leaf_spine);
    tn_test_add(suite, "user-lists", test_lists);
}
