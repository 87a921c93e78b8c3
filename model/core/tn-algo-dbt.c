/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Double binary tree all-reduce (Sanders, Speck & Traeff, "Two-tree algorithms for
 * full bandwidth broadcast, reduction and scan", Parallel Computing 2009; used by
 * NCCL since 2.4). Tree 0 is the balanced in-order binary tree over ranks 0..N-1
 * (root = middle rank, children = middles of the two halves); tree 1 is tree 0 with
 * every rank shifted by one (r -> r+1 mod N), so most leaves of one tree are inner
 * nodes of the other. Each tree carries half of every chunk
 * (tn_slice_of(len, 2, tree)): reduce towards the root (a node sends once all its
 * children arrived), then broadcast from the root back down.
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>

typedef struct dbt
{
    const tn_topology* topo;
    tn_schedule* s;
    uint32_t N;
    uint32_t shift;
    uint32_t chunk;
    tn_slice data;
    uint32_t height;
} dbt;

static uint32_t
node_of(const dbt* t, uint32_t pos)
{
    return (pos + t->shift) % t->N;
}

static uint32_t
tree_height(uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return 0;
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t a = tree_height(lo, mid), b = tree_height(mid + 1, hi);
    return 1 + (a > b ? a : b);
}

/* Reduce the subtree on positions [lo, hi) into its root; its root's send ids are
 * pushed to `up` (none for the tree root: its children's ids go to `up`). */
static tn_status
reduce_up(dbt* t,
          uint32_t lo,
          uint32_t hi,
          uint32_t parent,
          bool is_root,
          tn_ids* up,
          tn_error* err)
{
    if (lo >= hi)
        return TN_OK;
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t v = node_of(t, mid);
    tn_ids kids = {NULL, 0, 0};
    tn_status st = reduce_up(t, lo, mid, v, false, &kids, err);
    if (!st)
        st = reduce_up(t, mid + 1, hi, v, false, &kids, err);
    if (!st && is_root)
    {
        for (uint32_t k = 0; k < kids.n && !st; k++)
            st = tn_ids_push(up, kids.ids[k], err);
    }
    else if (!st)
    {
        uint32_t id;
        uint32_t h = tree_height(lo, hi);
        st = tn_algo_add(t->s,
                         v,
                         parent,
                         t->data.offset,
                         t->data.offset,
                         t->data.length,
                         TN_OP_REDUCE,
                         h - 1,
                         tn_algo_rank_dim(t->topo, v, parent),
                         t->chunk,
                         kids.ids,
                         kids.n,
                         &id,
                         err);
        if (!st)
            st = tn_ids_push(up, id, err);
    }
    tn_ids_free(&kids);
    return st;
}

static tn_status
bcast_down(dbt* t, uint32_t lo, uint32_t hi, uint32_t depth, const tn_ids* deps, tn_error* err)
{
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t v = node_of(t, mid);
    uint32_t ranges[2][2] = {{lo, mid}, {mid + 1, hi}};
    tn_status st = TN_OK;
    for (int k = 0; k < 2 && !st; k++)
    {
        uint32_t a = ranges[k][0], b = ranges[k][1];
        if (a >= b)
            continue;
        uint32_t c = node_of(t, a + (b - a) / 2);
        uint32_t id;
        st = tn_algo_add(t->s,
                         v,
                         c,
                         t->data.offset,
                         t->data.offset,
                         t->data.length,
                         TN_OP_COPY,
                         t->height - 1 + depth,
                         tn_algo_rank_dim(t->topo, v, c),
                         t->chunk,
                         deps->ids,
                         deps->n,
                         &id,
                         err);
        if (!st)
        {
            tn_ids d = {&id, 1, 1};
            st = bcast_down(t, a, b, depth + 1, &d, err);
        }
    }
    return st;
}

tn_status
tn_algo_dbt_plan(const tn_topology* topo,
                 const tn_plan_request* request,
                 tn_schedule* s,
                 tn_error* err)
{
    (void)request;
    dbt t;
    t.topo = topo;
    t.s = s;
    t.N = tn_schedule_ranks(s);
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    if (t.N < 2)
        return TN_OK;
    t.height = tree_height(0, t.N);
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < C && !st; c++)
    {
        tn_slice region = tn_chunk_region(S, C, c);
        for (uint32_t tree = 0; tree < 2 && !st; tree++)
        {
            t.chunk = c;
            t.shift = tree;
            t.data = tn_slice_of(region.length, 2, tree);
            t.data.offset += region.offset;
            tn_ids root = {NULL, 0, 0};
            st = reduce_up(&t, 0, t.N, 0, true, &root, err);
            if (!st)
                st = bcast_down(&t, 0, t.N, 0, &root, err);
            tn_ids_free(&root);
        }
    }
    return st;
}
