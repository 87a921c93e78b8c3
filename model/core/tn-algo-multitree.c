/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * MultiTree (Huang et al., "Communication Algorithm-Architecture Co-Design for
 * Distributed Deep Learning", ISCA 2021): one spanning tree per rank, built
 * top-down one time step at a time so that the trees of a step never share a
 * directed link (doc/core-algorithms.rst; the paper's construction is followed except for
 * the choice of parent through switches, see step 2 below).
 *
 * Tree building (tn_mt_build)
 *  - tree r starts as {r}; t = 0. Each step starts with every directed link
 *    available and inj[v] = ej[v] = ports (request->ports_per_node, or the
 *    NPU's cable count when 0). frozen[r] = the nodes of tree r at the start of
 *    the step: only they may be parents during step t.
 *  - Rounds: trees r = 0..N-1 in turn; a tree adds at most one node per turn
 *    and the step ends after a round in which no tree grew. In its turn a tree
 *    takes the nearest free parent-child pair:
 *      1. direct cables first: the first frozen node p (BFS insertion order)
 *         with inj[p] > 0 that has a direct candidate c, in "dimension order":
 *         p's cables sorted by (dim, -/+ direction, port), i.e. -x, +x, -y,
 *         +y, ... A cable to an NPU q is a candidate when q is not in the tree,
 *         the link p->q is available and ej[q] > 0;
 *      2. else through switches: ONE breadth-first search over available links
 *         through switches only (NPUs never forward here) that starts from the
 *         switch cables of EVERY frozen node with inj > 0 at once (frozen order);
 *         the first NPU reached that is not in the tree and has ej > 0 is the
 *         child and the node the path starts from is the parent. So a child is
 *         reached over the fewest links from any node already in the tree
 *         (same switch, then one switch-to-switch hop, ...).
 *    The edge's links are removed from the step's set and the path is kept as
 *    the transfer's explicit path.
 *    Why 2. searches from every frozen node (and not from the first frozen node
 *    that finds anything, as a literal reading of the paper's construction): on BiGraph with one
 *    port per NPU the first-node rule let a tree whose root sits on an upper
 *    switch reach the other upper switch's NPUs from the root, over two
 *    switch-to-switch hops, although the tree already had members on the lower
 *    switches one hop away. Those 2-hop paths took every uplink of a switch, so
 *    in the last third of the steps only half the NPUs could receive:
 *    T = 39 on bigraph:4x8 and 79 on bigraph:4x16. With the nearest pair every
 *    step uses all NPUs and T = N-1 (31, 63), the bound with one port; leaf-spine
 *    with oversubscription and fat-trees gain too (doc/core-algorithms.rst).
 *    Direct networks (torus, mesh, ring) only use step 1 and are unchanged.
 *  - Speed (same result as the literal loop): within a step resources only
 *    shrink and trees only grow, so a frozen node without a direct candidate
 *    has none for the rest of the step (a cursor per tree into its frozen list),
 *    and a tree whose switch search failed once skips it for the rest of the
 *    step; a tree with neither left leaves the step's active list. A node whose
 *    direct neighbours are all in the tree (and that has no switch cable) can
 *    never be a parent again: it is dropped from the tree's frontier list (kept
 *    in insertion order) at the next step. 1024 ranks plan in about a second.
 *
 * Schedule: T = number of steps. Tree r carries slice r (tn_chunk_block).
 *  - all-reduce: edge (c, p, t) -> reduce c->p at step T-1-t (deps: the reduces
 *    of c's children in tree r), then copy p->c at step T+t (deps: the copy into
 *    p, or for the root the reduces into it).
 *  - reduce-scatter: the reduce phase only (root r ends with slice r).
 *  - all-gather: the broadcast phase only, at step t (root r starts with slice r).
 *  - chunks C > 1: each chunk is planned alike with its steps shifted by
 *    c * (steps per chunk), so the contention-freedom claim holds across chunks.
 *  - zero-length slices (S < N) are omitted.
 *  - every transfer has an explicit path (the tree edge's links; reduces use the
 *    reverse links in reverse order) and the schedule claims contention freedom.
 */
#include "tn-algorithm-impl.h"
#include "tn-array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mt_cand
{
    uint32_t link; /* out-link of the rank's node */
    uint64_t key;  /* sort key (dim, direction, port) */
} mt_cand;

typedef struct mt_state
{
    const tn_topology* topo;
    uint32_t n;      /* ranks */
    uint32_t nodes;  /* topology nodes */
    uint32_t nlinks; /* directed links */
    uint32_t* rank_node;
    uint32_t* node_rank;
    /* candidate out-links of each rank in dimension order (CSR) */
    uint32_t* cand_index; /* n + 1 */
    uint32_t* cand_link;
    uint8_t* has_switch; /* rank has a switch cable */
    bool any_switch;     /* some rank has a switch cable */
    uint32_t* ports;     /* budget per rank */

    /* trees: row r of each n x n array belongs to tree r */
    uint32_t* order;     /* insertion (BFS) order of tree r */
    uint32_t* size;      /* nodes in tree r */
    uint32_t* parent;    /* parent rank of q in tree r */
    uint32_t* edge_step; /* build step of the edge into q */
    uint32_t* edge_path; /* first link of the edge's path in path_links */
    uint16_t* edge_plen; /* path length */
    uint8_t* in_tree;    /* q in tree r */
    uint32_t* front;     /* frontier list of tree r (insertion order) */
    uint32_t* front_len;
    uint32_t* path_links;
    size_t path_count;
    size_t path_cap;
    uint32_t steps; /* T */

    /* per-step scratch */
    uint8_t* avail; /* per directed link */
    uint32_t* inj;
    uint32_t* ej;
    uint32_t* cursor;
    uint8_t* sw_failed;
    uint32_t* frozen_len;
    uint32_t* active; /* trees still able to grow in this step */
    /* BFS scratch over nodes */
    uint32_t* bfs_stamp;
    uint32_t* bfs_via; /* link used to reach the node */
    uint32_t* bfs_queue;
    uint32_t stamp;
    uint32_t* tmp_path;
} mt_state;

static void
mt_free(mt_state* st)
{
    free(st->rank_node);
    free(st->node_rank);
    free(st->cand_index);
    free(st->cand_link);
    free(st->has_switch);
    free(st->ports);
    free(st->order);
    free(st->size);
    free(st->parent);
    free(st->edge_step);
    free(st->edge_path);
    free(st->edge_plen);
    free(st->in_tree);
    free(st->front);
    free(st->front_len);
    free(st->path_links);
    free(st->avail);
    free(st->inj);
    free(st->ej);
    free(st->cursor);
    free(st->sw_failed);
    free(st->frozen_len);
    free(st->active);
    free(st->bfs_stamp);
    free(st->bfs_via);
    free(st->bfs_queue);
    free(st->tmp_path);
    memset(st, 0, sizeof(*st));
}

static int
mt_cand_cmp(const void* a, const void* b)
{
    const mt_cand* x = (const mt_cand*)a;
    const mt_cand* y = (const mt_cand*)b;
    return x->key < y->key ? -1 : (x->key > y->key ? 1 : 0);
}

/* Sort key of out-link l of rank p: dim (unknown dims last), then -/+ neighbour
 * along that dim, then the other coordinate, then port. */
static uint64_t
mt_link_key(const mt_state* st, const tn_link* l, const uint32_t* pc, const uint32_t* qc)
{
    uint32_t ndims = tn_topology_dim_count(st->topo);
    uint64_t dim = 0xffff;
    uint64_t dir = 0xffff;
    if (l->dim >= 0 && (uint32_t)l->dim < ndims && qc != NULL)
    {
        uint32_t d = (uint32_t)l->dim;
        uint32_t size = tn_topology_dim(st->topo, d)->size;
        dim = d;
        if (qc[d] == (pc[d] + size - 1) % size)
        {
            dir = 0; /* minus neighbour */
        }
        else if (qc[d] == (pc[d] + 1) % size)
        {
            dir = 1; /* plus neighbour */
        }
        else
        {
            dir = 2 + (uint64_t)qc[d];
        }
    }
    else if (l->dim >= 0)
    {
        dim = (uint64_t)l->dim < 0xfffe ? (uint64_t)l->dim : 0xfffe;
    }
    return (dim << 48) | ((dir & 0xffffffULL) << 24) | (l->src_port & 0xffffffULL);
}

static tn_status
mt_alloc_array(void** p, size_t count, size_t size, tn_error* err)
{
    *p = calloc(count ? count : 1, size);
    if (*p == NULL)
    {
        return tn_error_set(err,
                            TN_ENOMEM,
                            "multitree: out of memory (%zu x %zu bytes)",
                            count,
                            size);
    }
    return TN_OK;
}

static tn_status
mt_init(mt_state* st, const tn_topology* topo, uint32_t n, uint32_t ports, tn_error* err)
{
    memset(st, 0, sizeof(*st));
    st->topo = topo;
    st->n = n;
    st->nodes = tn_topology_node_count(topo);
    st->nlinks = tn_topology_link_count(topo);
    size_t nn = (size_t)n * n;
    uint32_t ndims = tn_topology_dim_count(topo);
    tn_status rc = TN_OK;
#define MT_ALLOC(field, count)                                                                     \
    do                                                                                             \
    {                                                                                              \
        rc = mt_alloc_array((void**)&st->field, (count), sizeof(*st->field), err);                 \
        if (rc)                                                                                    \
            return rc;                                                                             \
    } while (0)
    MT_ALLOC(rank_node, n);
    MT_ALLOC(node_rank, st->nodes);
    MT_ALLOC(cand_index, (size_t)n + 1);
    MT_ALLOC(has_switch, n);
    MT_ALLOC(ports, n);
    MT_ALLOC(order, nn);
    MT_ALLOC(size, n);
    MT_ALLOC(parent, nn);
    MT_ALLOC(edge_step, nn);
    MT_ALLOC(edge_path, nn);
    MT_ALLOC(edge_plen, nn);
    MT_ALLOC(in_tree, nn);
    MT_ALLOC(front, nn);
    MT_ALLOC(front_len, n);
    MT_ALLOC(avail, st->nlinks);
    MT_ALLOC(inj, n);
    MT_ALLOC(ej, n);
    MT_ALLOC(cursor, n);
    MT_ALLOC(sw_failed, n);
    MT_ALLOC(frozen_len, n);
    MT_ALLOC(active, n);
    MT_ALLOC(bfs_stamp, st->nodes);
    MT_ALLOC(bfs_via, st->nodes);
    MT_ALLOC(bfs_queue, st->nodes);
    MT_ALLOC(tmp_path, st->nodes);
    uint32_t* pc = NULL;
    uint32_t* qc = NULL;
    mt_cand* cands = NULL;
    if (ndims > 0)
    {
        pc = calloc(ndims, sizeof(*pc));
        qc = calloc(ndims, sizeof(*qc));
        if (pc == NULL || qc == NULL)
        {
            free(pc);
            free(qc);
            return tn_error_set(err, TN_ENOMEM, "multitree: out of memory");
        }
    }
    for (uint32_t v = 0; v < st->nodes; v++)
    {
        st->node_rank[v] = tn_topology_node_rank(topo, v);
    }
    size_t total = 0;
    uint32_t maxdeg = 0;
    for (uint32_t r = 0; r < n; r++)
    {
        st->rank_node[r] = tn_topology_npu_node(topo, r);
        uint32_t deg = tn_topology_degree(topo, st->rank_node[r]);
        total += deg;
        maxdeg = deg > maxdeg ? deg : maxdeg;
    }
    MT_ALLOC(cand_link, total);
#undef MT_ALLOC
    cands = calloc(maxdeg ? maxdeg : 1, sizeof(*cands));
    if (cands == NULL)
    {
        free(pc);
        free(qc);
        return tn_error_set(err, TN_ENOMEM, "multitree: out of memory");
    }
    size_t pos = 0;
    for (uint32_t r = 0; r < n && rc == TN_OK; r++)
    {
        uint32_t node = st->rank_node[r];
        uint32_t cnt = 0;
        const uint32_t* out = tn_topology_out_links(topo, node, &cnt);
        if (ndims > 0)
        {
            rc = tn_topology_npu_coords(topo, r, pc, err);
        }
        uint32_t ncable = 0;
        for (uint32_t i = 0; i < cnt && rc == TN_OK; i++)
        {
            const tn_link* l = tn_topology_link(topo, out[i]);
            uint32_t q = st->node_rank[l->dst];
            bool to_npu = tn_topology_node_kind(topo, l->dst) == TN_NODE_NPU;
            if (to_npu && q >= n)
            {
                continue; /* NPU outside the planned ranks */
            }
            if (!to_npu)
            {
                st->has_switch[r] = 1;
                st->any_switch = true;
            }
            if (to_npu && ndims > 0)
            {
                rc = tn_topology_npu_coords(topo, q, qc, err);
            }
            cands[ncable].link = out[i];
            cands[ncable].key = mt_link_key(st,
                                            l,
                                            ndims > 0 ? pc : NULL,
                                            (to_npu && ndims > 0) ? qc : (ndims > 0 ? pc : NULL));
            ncable++;
        }
        qsort(cands, ncable, sizeof(*cands), mt_cand_cmp);
        st->cand_index[r] = (uint32_t)pos;
        for (uint32_t i = 0; i < ncable; i++)
        {
            st->cand_link[pos++] = cands[i].link;
        }
        st->ports[r] = ports ? ports : cnt;
    }
    st->cand_index[n] = (uint32_t)pos;
    free(cands);
    free(pc);
    free(qc);
    return rc;
}

static tn_status
mt_push_path(mt_state* st, const uint32_t* links, uint32_t len, uint32_t* first, tn_error* err)
{
    uint32_t* path_links = tn_array_grow(st->path_links,
                                         &st->path_cap,
                                         st->path_count + len,
                                         sizeof(*path_links),
                                         1024);
    if (path_links == NULL)
    {
        return tn_error_set(err, TN_ENOMEM, "multitree: out of memory for paths");
    }
    st->path_links = path_links;
    *first = (uint32_t)st->path_count;
    memcpy(st->path_links + st->path_count, links, len * sizeof(*links));
    st->path_count += len;
    return TN_OK;
}

/* Multi-source BFS from every frozen node of tree r with budget left, through
 * available links and switches only: the nearest eligible NPU (fewest links) is the
 * child; *parent = the frozen node the path starts at. */
static uint32_t
mt_switch_search_multi(mt_state* st, uint32_t r, uint32_t* parent, uint32_t* plen)
{
    const tn_topology* topo = st->topo;
    const uint8_t* in_tree = st->in_tree + (size_t)r * st->n;
    size_t row = (size_t)r * st->n;
    st->stamp++;
    if (st->stamp == 0)
    {
        memset(st->bfs_stamp, 0, st->nodes * sizeof(*st->bfs_stamp));
        st->stamp = 1;
    }
    uint32_t head = 0;
    uint32_t tail = 0;
    for (uint32_t i = 0; i < st->frozen_len[r]; i++)
    {
        uint32_t p = st->front[row + i];
        if (!st->has_switch[p] || st->inj[p] == 0)
        {
            continue;
        }
        for (uint32_t k = st->cand_index[p]; k < st->cand_index[p + 1]; k++)
        {
            uint32_t lid = st->cand_link[k];
            if (!st->avail[lid])
            {
                continue;
            }
            uint32_t x = tn_topology_link(topo, lid)->dst;
            if (tn_topology_node_kind(topo, x) == TN_NODE_NPU || st->bfs_stamp[x] == st->stamp)
            {
                continue;
            }
            st->bfs_stamp[x] = st->stamp;
            st->bfs_via[x] = lid;
            st->bfs_queue[tail++] = x;
        }
    }
    uint32_t found = TN_TOPO_NONE;
    uint32_t found_node = TN_TOPO_NONE;
    while (head < tail && found == TN_TOPO_NONE)
    {
        uint32_t w = st->bfs_queue[head++];
        uint32_t cnt = 0;
        const uint32_t* out = tn_topology_out_links(topo, w, &cnt);
        for (uint32_t i = 0; i < cnt; i++)
        {
            uint32_t lid = out[i];
            if (!st->avail[lid])
            {
                continue;
            }
            uint32_t x = tn_topology_link(topo, lid)->dst;
            if (st->bfs_stamp[x] == st->stamp)
            {
                continue;
            }
            if (tn_topology_node_kind(topo, x) == TN_NODE_NPU)
            {
                uint32_t q = st->node_rank[x];
                if (q < st->n && !in_tree[q] && st->ej[q] > 0)
                {
                    st->bfs_via[x] = lid;
                    found = q;
                    found_node = x;
                    break;
                }
                continue; /* NPUs do not forward */
            }
            st->bfs_stamp[x] = st->stamp;
            st->bfs_via[x] = lid;
            st->bfs_queue[tail++] = x;
        }
    }
    if (found == TN_TOPO_NONE)
    {
        return found;
    }
    uint32_t len = 0;
    uint32_t v = found_node;
    do
    {
        uint32_t lid = st->bfs_via[v];
        st->tmp_path[len++] = lid;
        v = tn_topology_link(topo, lid)->src;
    } while (tn_topology_node_kind(topo, v) != TN_NODE_NPU);
    for (uint32_t i = 0; i < len / 2; i++)
    {
        uint32_t x = st->tmp_path[i];
        st->tmp_path[i] = st->tmp_path[len - 1 - i];
        st->tmp_path[len - 1 - i] = x;
    }
    *parent = st->node_rank[v];
    *plen = len;
    return found;
}

/* First direct (NPU-to-NPU cable) candidate child of p in tree r. */
static uint32_t
mt_find_direct(mt_state* st, uint32_t r, uint32_t p, uint32_t* plen)
{
    const uint8_t* in_tree = st->in_tree + (size_t)r * st->n;
    for (uint32_t i = st->cand_index[p]; i < st->cand_index[p + 1]; i++)
    {
        uint32_t lid = st->cand_link[i];
        if (!st->avail[lid])
        {
            continue;
        }
        uint32_t q = st->node_rank[tn_topology_link(st->topo, lid)->dst];
        if (q != TN_TOPO_NONE && !in_tree[q] && st->ej[q] > 0)
        {
            st->tmp_path[0] = lid;
            *plen = 1;
            return q;
        }
    }
    return TN_TOPO_NONE;
}

/* Whether p can never again be a parent in tree r (all direct neighbours in the
 * tree and no switch cable, or the tree is complete). */
static bool
mt_exhausted(const mt_state* st, uint32_t r, uint32_t p)
{
    if (st->size[r] == st->n)
    {
        return true;
    }
    if (st->has_switch[p])
    {
        return false;
    }
    const uint8_t* in_tree = st->in_tree + (size_t)r * st->n;
    for (uint32_t i = st->cand_index[p]; i < st->cand_index[p + 1]; i++)
    {
        uint32_t q = st->node_rank[tn_topology_link(st->topo, st->cand_link[i])->dst];
        if (!in_tree[q])
        {
            return false;
        }
    }
    return true;
}

static tn_status
mt_build(mt_state* st, tn_error* err)
{
    uint32_t n = st->n;
    for (uint32_t r = 0; r < n; r++)
    {
        size_t row = (size_t)r * n;
        st->order[row] = r;
        st->size[r] = 1;
        st->in_tree[row + r] = 1;
        st->parent[row + r] = TN_TOPO_NONE;
        st->front[row] = r;
        st->front_len[r] = 1;
    }
    uint32_t incomplete = n > 1 ? n : 0;
    uint32_t t = 0;
    while (incomplete > 0)
    {
        memset(st->avail, 1, st->nlinks);
        uint32_t nactive = 0;
        for (uint32_t v = 0; v < n; v++)
        {
            st->inj[v] = st->ports[v];
            st->ej[v] = st->ports[v];
        }
        for (uint32_t r = 0; r < n; r++)
        {
            st->cursor[r] = 0;
            st->sw_failed[r] = st->any_switch ? 0 : 1;
            st->frozen_len[r] = st->front_len[r];
            if (st->size[r] < n)
            {
                st->active[nactive++] = r;
            }
        }
        bool any = false;
        bool grew = true;
        while (grew)
        {
            grew = false;
            uint32_t keep = 0;
            for (uint32_t a = 0; a < nactive; a++)
            {
                uint32_t r = st->active[a];
                size_t row = (size_t)r * n;
                bool added = false;
                while (st->cursor[r] < st->frozen_len[r] || !st->sw_failed[r])
                {
                    uint32_t p = TN_TOPO_NONE;
                    uint32_t plen = 0;
                    uint32_t c = TN_TOPO_NONE;
                    if (st->cursor[r] < st->frozen_len[r])
                    {
                        p = st->front[row + st->cursor[r]];
                        c = st->inj[p] ? mt_find_direct(st, r, p, &plen) : TN_TOPO_NONE;
                        if (c == TN_TOPO_NONE)
                        {
                            st->cursor[r]++;
                            continue;
                        }
                    }
                    else
                    {
                        c = mt_switch_search_multi(st, r, &p, &plen);
                        if (c == TN_TOPO_NONE)
                        {
                            st->sw_failed[r] = 1;
                            continue;
                        }
                    }
                    uint32_t first = 0;
                    tn_status rc = mt_push_path(st, st->tmp_path, plen, &first, err);
                    if (rc)
                    {
                        return rc;
                    }
                    for (uint32_t i = 0; i < plen; i++)
                    {
                        st->avail[st->tmp_path[i]] = 0;
                    }
                    st->inj[p]--;
                    st->ej[c]--;
                    st->order[row + st->size[r]] = c;
                    st->size[r]++;
                    st->in_tree[row + c] = 1;
                    st->parent[row + c] = p;
                    st->edge_step[row + c] = t;
                    st->edge_path[row + c] = first;
                    st->edge_plen[row + c] = (uint16_t)plen;
                    added = true;
                    break;
                }
                if (added)
                {
                    grew = true;
                    any = true;
                    if (st->size[r] == n)
                    {
                        incomplete--;
                        continue; /* complete: leaves the active list */
                    }
                }
                if (st->cursor[r] < st->frozen_len[r] || !st->sw_failed[r])
                {
                    st->active[keep++] = r;
                }
            }
            nactive = keep;
        }
        if (!any)
        {
            uint32_t r = 0;
            while (r < n && st->size[r] == n)
            {
                r++;
            }
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "multitree: topology '%s' is not connected: tree %u stuck at %u "
                                "of %u ranks",
                                tn_topology_name(st->topo),
                                r,
                                r < n ? st->size[r] : n,
                                n);
        }
        /* next frontier: surviving frozen nodes then the nodes added in step t */
        for (uint32_t r = 0; r < n; r++)
        {
            size_t row = (size_t)r * n;
            uint32_t len = 0;
            for (uint32_t i = 0; i < st->frozen_len[r]; i++)
            {
                uint32_t p = st->front[row + i];
                if (!mt_exhausted(st, r, p))
                {
                    st->front[row + len++] = p;
                }
            }
            /* nodes added in step t are at the end of order[] */
            uint32_t i0 = st->size[r];
            while (i0 > 1 && st->edge_step[row + st->order[row + i0 - 1]] == t)
            {
                i0--;
            }
            for (uint32_t i = i0; i < st->size[r] && i >= 1; i++)
            {
                uint32_t q = st->order[row + i];
                if (!mt_exhausted(st, r, q))
                {
                    st->front[row + len++] = q;
                }
            }
            st->front_len[r] = len;
        }
        t++;
    }
    st->steps = t;
    return TN_OK;
}

/* ---- schedule ------------------------------------------------------------------ */

static tn_status
mt_add(tn_schedule* s,
       const mt_state* st,
       uint32_t src,
       uint32_t dst,
       tn_slice sl,
       tn_op op,
       uint32_t step,
       uint32_t chunk,
       const uint32_t* links,
       uint32_t nlinks,
       bool reverse,
       const uint32_t* deps,
       uint32_t ndeps,
       uint32_t* rev_buf,
       uint32_t* id,
       tn_error* err)
{
    const uint32_t* path = links;
    if (reverse)
    {
        for (uint32_t i = 0; i < nlinks; i++)
        {
            rev_buf[i] = tn_topology_link(st->topo, links[nlinks - 1 - i])->reverse;
        }
        path = rev_buf;
    }
    int32_t dim = tn_topology_link(st->topo, path[0])->dim;
    tn_status rc = tn_algo_add(s,
                               src,
                               dst,
                               sl.offset,
                               sl.offset,
                               sl.length,
                               op,
                               step,
                               dim,
                               chunk,
                               deps,
                               ndeps,
                               id,
                               err);
    if (rc == TN_OK)
    {
        rc = tn_schedule_set_path(s, *id, path, nlinks, err);
    }
    return rc;
}

static tn_status
mt_emit(const mt_state* st, const tn_plan_request* req, tn_schedule* s, tn_error* err)
{
    uint32_t n = st->n;
    uint32_t T = st->steps;
    tn_collective coll = req->collective;
    uint32_t chunks = tn_schedule_chunks(s);
    bool do_reduce = coll == TN_COLL_ALL_REDUCE || coll == TN_COLL_REDUCE_SCATTER;
    bool do_bcast = coll == TN_COLL_ALL_REDUCE || coll == TN_COLL_ALL_GATHER;
    uint32_t per_chunk = (do_reduce ? T : 0) + (do_bcast ? T : 0);
    size_t nn = (size_t)n * n;
    uint32_t* red_head = malloc(nn * sizeof(*red_head)); /* last child reduce into q */
    uint32_t* red_id = malloc(nn * sizeof(*red_id));     /* reduce q->parent */
    uint32_t* bc_id = malloc(nn * sizeof(*bc_id));       /* copy parent->q */
    uint32_t* next = NULL;                               /* sibling chain by reduce id */
    size_t next_cap = 0;
    uint32_t* pos = malloc((size_t)n * sizeof(*pos));
    uint32_t* deps = malloc(((size_t)n + 1) * sizeof(*deps));
    uint32_t* rev = malloc(((size_t)st->nodes + 1) * sizeof(*rev));
    tn_status rc = TN_OK;
    if (!red_head || !red_id || !bc_id || !pos || !deps || !rev)
    {
        rc = tn_error_set(err, TN_ENOMEM, "multitree: out of memory for the schedule");
        goto done;
    }
    for (uint32_t c = 0; c < chunks && rc == TN_OK; c++)
    {
        uint32_t base = c * per_chunk;
        for (size_t i = 0; i < nn; i++)
        {
            red_head[i] = TN_TRANSFER_NONE;
            red_id[i] = TN_TRANSFER_NONE;
            bc_id[i] = TN_TRANSFER_NONE;
        }
        if (do_reduce)
        {
            /* reduce step T-1-t for t = T-1 .. 0: walk each tree's order backwards */
            for (uint32_t r = 0; r < n; r++)
            {
                pos[r] = st->size[r];
            }
            for (uint32_t tt = T; tt-- > 0 && rc == TN_OK;)
            {
                for (uint32_t r = 0; r < n && rc == TN_OK; r++)
                {
                    size_t row = (size_t)r * n;
                    tn_slice sl = tn_chunk_block(coll, tn_schedule_bytes(s), n, chunks, c, r);
                    while (pos[r] > 1 && rc == TN_OK)
                    {
                        uint32_t q = st->order[row + pos[r] - 1];
                        if (st->edge_step[row + q] != tt)
                        {
                            break;
                        }
                        pos[r]--;
                        if (sl.length == 0)
                        {
                            continue;
                        }
                        uint32_t nd = 0;
                        for (uint32_t d = red_head[row + q]; d != TN_TRANSFER_NONE; d = next[d])
                        {
                            deps[nd++] = d;
                        }
                        uint32_t p = st->parent[row + q];
                        uint32_t id = 0;
                        rc = mt_add(s,
                                    st,
                                    q,
                                    p,
                                    sl,
                                    TN_OP_REDUCE,
                                    base + T - 1 - tt,
                                    c,
                                    st->path_links + st->edge_path[row + q],
                                    st->edge_plen[row + q],
                                    true,
                                    deps,
                                    nd,
                                    rev,
                                    &id,
                                    err);
                        if (rc)
                        {
                            break;
                        }
                        uint32_t* grown =
                            tn_array_grow(next, &next_cap, (size_t)id + 1, sizeof(*grown), 4096);
                        if (grown == NULL)
                        {
                            rc = tn_error_set(err, TN_ENOMEM, "multitree: out of memory");
                            break;
                        }
                        next = grown;
                        next[id] = red_head[row + p];
                        red_head[row + p] = id;
                        red_id[row + q] = id;
                    }
                }
            }
        }
        if (do_bcast && rc == TN_OK)
        {
            uint32_t bstep = do_reduce ? T : 0;
            for (uint32_t r = 0; r < n; r++)
            {
                pos[r] = 1;
            }
            for (uint32_t tt = 0; tt < T && rc == TN_OK; tt++)
            {
                for (uint32_t r = 0; r < n && rc == TN_OK; r++)
                {
                    size_t row = (size_t)r * n;
                    tn_slice sl = tn_chunk_block(coll, tn_schedule_bytes(s), n, chunks, c, r);
                    while (pos[r] < st->size[r] && rc == TN_OK)
                    {
                        uint32_t q = st->order[row + pos[r]];
                        if (st->edge_step[row + q] != tt)
                        {
                            break;
                        }
                        pos[r]++;
                        if (sl.length == 0)
                        {
                            continue;
                        }
                        uint32_t p = st->parent[row + q];
                        uint32_t nd = 0;
                        if (p != r)
                        {
                            deps[nd++] = bc_id[row + p];
                        }
                        else if (do_reduce)
                        {
                            for (uint32_t d = red_head[row + p]; d != TN_TRANSFER_NONE; d = next[d])
                            {
                                deps[nd++] = d;
                            }
                        }
                        uint32_t id = 0;
                        rc = mt_add(s,
                                    st,
                                    p,
                                    q,
                                    sl,
                                    TN_OP_COPY,
                                    base + bstep + tt,
                                    c,
                                    st->path_links + st->edge_path[row + q],
                                    st->edge_plen[row + q],
                                    false,
                                    deps,
                                    nd,
                                    rev,
                                    &id,
                                    err);
                        bc_id[row + q] = id;
                    }
                }
            }
        }
    }
done:
    free(red_head);
    free(red_id);
    free(bc_id);
    free(next);
    free(pos);
    free(deps);
    free(rev);
    return rc;
}

tn_status
tn_algo_multitree_check(const tn_topology* topo,
                        const tn_plan_request* request,
                        uint32_t ranks,
                        tn_error* err)
{
    if (topo == NULL)
    {
        return tn_error_set(err, TN_EINVAL, "multitree: needs a topology");
    }
    tn_collective c = request->collective;
    if (c != TN_COLL_ALL_REDUCE && c != TN_COLL_REDUCE_SCATTER && c != TN_COLL_ALL_GATHER)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "multitree: collective '%s' not supported (all-reduce, "
                            "reduce-scatter, all-gather)",
                            tn_collective_name(c));
    }
    uint32_t npus = tn_topology_npu_count(topo);
    if (ranks != npus)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "multitree: ranks %u must equal the NPU count %u of topology '%s'",
                            ranks,
                            npus,
                            tn_topology_name(topo));
    }
    if (ranks > 65535)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "multitree: %u NPUs, at most 65535 (one tree per NPU, N^2 tree "
                            "entries); use rhd, dbt or hierarchical for larger systems",
                            ranks);
    }
    return TN_OK;
}

tn_status
tn_algo_multitree_plan(const tn_topology* topo,
                       const tn_plan_request* request,
                       tn_schedule* s,
                       tn_error* err)
{
    uint32_t n = tn_schedule_ranks(s);
    mt_state st;
    tn_status rc = mt_init(&st, topo, n, request->ports_per_node, err);
    if (rc == TN_OK)
    {
        rc = mt_build(&st, err);
    }
    if (rc == TN_OK)
    {
        rc = mt_emit(&st, request, s, err);
    }
    if (rc == TN_OK)
    {
        tn_schedule_set_contention_free(s, true);
    }
    mt_free(&st);
    return rc;
}
