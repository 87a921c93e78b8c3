/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Ring orders of ranks (contract in tn-rank-order.h): cycles of neighbours on
 * grids (snake with a return column), switch-local orders on switched networks,
 * a bounded cycle search elsewhere.
 */
#include "tn-rank-order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char*
tn_ring_order_kind_name(tn_ring_order_kind kind)
{
    switch (kind)
    {
    case TN_RING_ORDER_IDENTITY:
        return "identity";
    case TN_RING_ORDER_GRID:
        return "grid";
    case TN_RING_ORDER_SWITCH_LOCAL:
        return "switch-local";
    case TN_RING_ORDER_SEARCH:
        return "search";
    case TN_RING_ORDER_GIVEN:
        return "given";
    }
    return "?";
}

void
tn_ring_order_line(uint32_t count, uint32_t* order)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < count; i += 2)
    {
        order[k++] = i;
    }
    if (count >= 2)
    {
        uint32_t i = (count - 1) % 2 == 1 ? count - 1 : count - 2;
        for (;; i -= 2)
        {
            order[k++] = i;
            if (i == 1)
            {
                break;
            }
        }
    }
}

/* ---- grids -------------------------------------------------------------------------- */

/* Output of a grid walk: element (i, j) = row[i] + col[j]. */
typedef struct grid_walk
{
    const uint32_t* row;
    const uint32_t* col;
    uint32_t* out;
    size_t k;
} grid_walk;

static void
put(grid_walk* g, uint32_t i, uint32_t j)
{
    g->out[g->k++] = g->row[i] + g->col[j];
}

/* Snake of row i over columns 1..C-1: left to right for even i, else right to left. */
static void
snake_row(grid_walk* g, uint32_t i, uint32_t C)
{
    if (i % 2 == 0)
    {
        for (uint32_t j = 1; j < C; j++)
        {
            put(g, i, j);
        }
    }
    else
    {
        for (uint32_t j = C - 1; j >= 1; j--)
        {
            put(g, i, j);
        }
    }
}

/* R even >= 2, C >= 2: Hamiltonian cycle (0,0), snake over columns 1..C-1, return
 * along column 0. Uses only (i, i+1) and (j, j+1) neighbours. */
static void
grid_even(grid_walk* g, uint32_t R, uint32_t C)
{
    put(g, 0, 0);
    for (uint32_t i = 0; i < R; i++)
    {
        snake_row(g, i, C);
    }
    for (uint32_t i = R - 1; i >= 1; i--)
    {
        put(g, i, 0);
    }
}

/* R odd >= 3, C odd >= 3, columns wrap (C-1 and 0 are neighbours): the cycle of
 * rows 0..R-2 (grid_even) with row R-1 spliced in between (R-2, 2) and (R-2, 1):
 * (R-1, 2), (R-1, 3), ..., (R-1, C-1), (R-1, 0), (R-1, 1). */
static void
grid_odd_wrap(grid_walk* g, uint32_t R, uint32_t C)
{
    put(g, 0, 0);
    for (uint32_t i = 0; i + 1 < R; i++)
    {
        if (i + 2 != R)
        {
            snake_row(g, i, C);
            continue;
        }
        /* last row of the even part (odd index): right to left with the splice */
        for (uint32_t j = C - 1; j >= 1; j--)
        {
            put(g, i, j);
            if (j == 2)
            {
                for (uint32_t x = 2; x < C; x++)
                {
                    put(g, R - 1, x);
                }
                put(g, R - 1, 0);
                put(g, R - 1, 1);
            }
        }
    }
    for (uint32_t i = R - 2; i >= 1; i--)
    {
        put(g, i, 0);
    }
}

/* R odd >= 3, C odd >= 3, no wrap: a Hamiltonian path from (R-3, 0) to (R-1, 0)
 * (two cables apart): up column 0, snake rows 0..R-3 over columns 1..C-1, zigzag
 * rows column by column from C-1 down to 1, then (R-2, 0), (R-1, 0). */
static void
grid_odd_path(grid_walk* g, uint32_t R, uint32_t C)
{
    for (uint32_t i = R - 3;; i--)
    {
        put(g, i, 0);
        if (i == 0)
        {
            break;
        }
    }
    for (uint32_t i = 0; i + 2 < R; i++)
    {
        snake_row(g, i, C);
    }
    uint32_t q = 0;
    for (uint32_t j = C - 1; j >= 1; j--, q++)
    {
        put(g, q % 2 == 0 ? R - 2 : R - 1, j);
        put(g, q % 2 == 0 ? R - 1 : R - 2, j);
    }
    put(g, R - 2, 0);
    put(g, R - 1, 0);
}

static bool
grid_dims(const tn_topology* topo, uint32_t ranks)
{
    uint32_t D = tn_topology_dim_count(topo);
    if (D == 0 || ranks != tn_topology_npu_count(topo))
    {
        return false;
    }
    for (uint32_t d = 0; d < D; d++)
    {
        tn_dim_kind k = tn_topology_dim(topo, d)->kind;
        if (k != TN_DIM_RING && k != TN_DIM_TORUS && k != TN_DIM_MESH && k != TN_DIM_FC &&
            k != TN_DIM_SWITCH)
        {
            return false;
        }
    }
    return true;
}

/* Axis by axis (contract); seq/tmp/axis hold N entries each. */
static void
grid_order(const tn_topology* topo,
           uint32_t n,
           uint32_t* order,
           uint32_t* tmp,
           uint32_t* axis,
           uint32_t* seq)
{
    uint32_t D = tn_topology_dim_count(topo);
    uint32_t L = 0;
    bool closed = false;
    uint32_t axes = 0;
    bool lone_mesh = false;
    uint32_t stride = 1;
    for (uint32_t d = 0; d < D; d++)
    {
        const tn_dim_info* di = tn_topology_dim(topo, d);
        uint32_t P = di->size;
        if (P <= 1)
        {
            continue;
        }
        bool wraps = di->kind != TN_DIM_MESH || P == 2;
        for (uint32_t j = 0; j < P; j++)
        {
            axis[j] = j * stride;
        }
        if (axes++ == 0)
        {
            memcpy(seq, axis, (size_t)P * sizeof(*seq));
            L = P;
            closed = wraps;
            lone_mesh = !wraps;
        }
        else
        {
            grid_walk g = {NULL, NULL, tmp, 0};
            bool now_closed = true;
            if (L % 2 == 0)
            {
                g.row = seq;
                g.col = axis;
                grid_even(&g, L, P);
            }
            else if (P % 2 == 0)
            {
                g.row = axis;
                g.col = seq;
                grid_even(&g, P, L);
            }
            else if (wraps)
            {
                g.row = seq;
                g.col = axis;
                grid_odd_wrap(&g, L, P);
            }
            else if (closed)
            {
                g.row = axis;
                g.col = seq;
                grid_odd_wrap(&g, P, L);
            }
            else
            {
                g.row = seq;
                g.col = axis;
                grid_odd_path(&g, L, P);
                now_closed = false;
            }
            L *= P;
            memcpy(seq, tmp, (size_t)L * sizeof(*seq));
            closed = now_closed;
        }
        stride *= P;
    }
    if (axes == 0)
    {
        for (uint32_t r = 0; r < n; r++)
        {
            order[r] = r;
        }
        return;
    }
    if (axes == 1 && lone_mesh)
    {
        tn_ring_order_line(L, tmp);
        for (uint32_t k = 0; k < L; k++)
        {
            order[k] = seq[tmp[k]];
        }
        return;
    }
    memcpy(order, seq, (size_t)n * sizeof(*order));
}

/* ---- switched networks ------------------------------------------------------------ */

/* Switch an NPU hangs off: its lowest-port cable to a switch, TN_TOPO_NONE if none. */
static uint32_t
home_switch(const tn_topology* topo, uint32_t node)
{
    uint32_t cnt = 0;
    const uint32_t* out = tn_topology_out_links(topo, node, &cnt);
    for (uint32_t i = 0; i < cnt; i++)
    {
        uint32_t x = tn_topology_link(topo, out[i])->dst;
        if (tn_topology_node_kind(topo, x) == TN_NODE_SWITCH)
        {
            return x;
        }
    }
    return TN_TOPO_NONE;
}

static tn_status
switch_local_order(const tn_topology* topo, uint32_t n, uint32_t* order, tn_error* err)
{
    uint32_t nodes = tn_topology_node_count(topo);
    uint32_t* home = malloc((size_t)n * sizeof(*home));
    uint32_t* group = malloc((size_t)nodes * sizeof(*group)); /* per switch node */
    uint32_t* stack_node = malloc((size_t)nodes * sizeof(*stack_node));
    uint32_t* stack_port = malloc((size_t)nodes * sizeof(*stack_port));
    uint32_t* count = NULL;
    if (!home || !group || !stack_node || !stack_port)
    {
        free(home);
        free(group);
        free(stack_node);
        free(stack_port);
        return tn_error_set(err, TN_ENOMEM, "ring order: out of memory");
    }
    for (uint32_t v = 0; v < nodes; v++)
    {
        group[v] = TN_TOPO_NONE;
    }
    uint32_t start = TN_TOPO_NONE;
    for (uint32_t r = 0; r < n; r++)
    {
        home[r] = home_switch(topo, tn_topology_npu_node(topo, r));
        if (start == TN_TOPO_NONE)
        {
            start = home[r];
        }
    }
    /* depth-first preorder over switches from the switch of the first rank */
    uint32_t groups = 0;
    if (start != TN_TOPO_NONE)
    {
        uint32_t top = 0;
        group[start] = groups++;
        stack_node[top] = start;
        stack_port[top++] = 0;
        while (top > 0)
        {
            uint32_t v = stack_node[top - 1];
            uint32_t cnt = 0;
            const uint32_t* out = tn_topology_out_links(topo, v, &cnt);
            uint32_t p = stack_port[top - 1];
            while (p < cnt)
            {
                uint32_t x = tn_topology_link(topo, out[p])->dst;
                p++;
                if (tn_topology_node_kind(topo, x) == TN_NODE_SWITCH && group[x] == TN_TOPO_NONE)
                {
                    group[x] = groups++;
                    stack_port[top - 1] = p;
                    stack_node[top] = x;
                    stack_port[top++] = 0;
                    break;
                }
            }
            if (p >= cnt && stack_node[top - 1] == v)
            {
                top--;
            }
        }
    }
    for (uint32_t r = 0; r < n; r++)
    {
        if (home[r] != TN_TOPO_NONE && group[home[r]] == TN_TOPO_NONE)
        {
            group[home[r]] = groups++;
        }
    }
    /* counting sort of the ranks by group (stable: ascending ranks inside a group);
     * NPUs without a switch form the last group */
    count = calloc((size_t)groups + 2, sizeof(*count));
    if (!count)
    {
        free(home);
        free(group);
        free(stack_node);
        free(stack_port);
        return tn_error_set(err, TN_ENOMEM, "ring order: out of memory");
    }
    for (uint32_t r = 0; r < n; r++)
    {
        uint32_t g = home[r] == TN_TOPO_NONE ? groups : group[home[r]];
        count[g + 1]++;
    }
    for (uint32_t g = 0; g <= groups; g++)
    {
        count[g + 1] += count[g];
    }
    for (uint32_t r = 0; r < n; r++)
    {
        uint32_t g = home[r] == TN_TOPO_NONE ? groups : group[home[r]];
        order[count[g]++] = r;
    }
    free(home);
    free(group);
    free(stack_node);
    free(stack_port);
    free(count);
    return TN_OK;
}

/* ---- adjacency and the bounded search ------------------------------------------------- */

static bool
npus_adjacent(const tn_topology* topo, uint32_t a, uint32_t b)
{
    uint32_t ca = 0;
    uint32_t cb = 0;
    const uint32_t* oa = tn_topology_out_links(topo, a, &ca);
    const uint32_t* ob = tn_topology_out_links(topo, b, &cb);
    for (uint32_t i = 0; i < ca; i++)
    {
        uint32_t x = tn_topology_link(topo, oa[i])->dst;
        if (x == b)
        {
            return true;
        }
        if (tn_topology_node_kind(topo, x) != TN_NODE_SWITCH)
        {
            continue;
        }
        for (uint32_t k = 0; k < cb; k++)
        {
            if (tn_topology_link(topo, ob[k])->dst == x)
            {
                return true;
            }
        }
    }
    return false;
}

uint32_t
tn_ring_order_non_adjacent(const tn_topology* topo, const uint32_t* order, uint32_t count)
{
    if (!topo || count <= 2)
    {
        return 0;
    }
    uint32_t far = 0;
    for (uint32_t k = 0; k < count; k++)
    {
        uint32_t a = tn_topology_npu_node(topo, order[k]);
        uint32_t b = tn_topology_npu_node(topo, order[(k + 1) % count]);
        if (a == TN_TOPO_NONE || b == TN_TOPO_NONE || !npus_adjacent(topo, a, b))
        {
            far++;
        }
    }
    return far;
}

/* Cycle of direct neighbours among ranks 0..n-1 by depth-first search with
 * Warnsdorff's rule and at most 64 n expansions; true when found (in order). */
static tn_status
search_cycle(const tn_topology* topo, uint32_t n, uint32_t* order, bool* found, tn_error* err)
{
    *found = false;
    if (n < 3)
    {
        return TN_OK;
    }
    /* neighbour lists (CSR), deduplicated */
    uint32_t* index = calloc((size_t)n + 1, sizeof(*index));
    uint32_t* seen = calloc(n, sizeof(*seen));
    if (!index || !seen)
    {
        free(index);
        free(seen);
        return tn_error_set(err, TN_ENOMEM, "ring order: out of memory");
    }
    size_t total = 0;
    uint32_t maxdeg = 0;
    for (uint32_t r = 0; r < n; r++)
    {
        uint32_t cnt = 0;
        tn_topology_out_links(topo, tn_topology_npu_node(topo, r), &cnt);
        total += cnt;
        maxdeg = cnt > maxdeg ? cnt : maxdeg;
    }
    if (maxdeg == 0 || (uint64_t)n * maxdeg > (1ULL << 24))
    {
        free(index);
        free(seen);
        return TN_OK;
    }
    uint32_t* adj = malloc((total ? total : 1) * sizeof(*adj));
    uint32_t* cand = malloc((size_t)n * maxdeg * sizeof(*cand)); /* per depth */
    uint32_t* ncand = calloc(n, sizeof(*ncand));
    uint32_t* next = calloc(n, sizeof(*next));
    uint8_t* used = calloc(n, 1);
    uint32_t* free_deg = malloc((size_t)maxdeg * sizeof(*free_deg));
    tn_status st = TN_OK;
    if (!adj || !cand || !ncand || !next || !used || !free_deg)
    {
        st = tn_error_set(err, TN_ENOMEM, "ring order: out of memory");
        goto done;
    }
    size_t pos = 0;
    for (uint32_t r = 0; r < n; r++)
    {
        index[r] = (uint32_t)pos;
        uint32_t cnt = 0;
        const uint32_t* out = tn_topology_out_links(topo, tn_topology_npu_node(topo, r), &cnt);
        for (uint32_t i = 0; i < cnt; i++)
        {
            uint32_t q = tn_topology_node_rank(topo, tn_topology_link(topo, out[i])->dst);
            if (q < n && q != r && seen[q] != r + 1)
            {
                seen[q] = r + 1;
                adj[pos++] = q;
            }
        }
    }
    index[n] = (uint32_t)pos;
    uint64_t budget = 64ULL * n;
    uint32_t depth = 1;
    order[0] = 0;
    used[0] = 1;
    ncand[0] = UINT32_MAX; /* candidates of depth 1 not built yet */
    while (depth > 0 && budget > 0)
    {
        uint32_t v = order[depth - 1];
        if (depth == n)
        {
            bool closes = false;
            for (uint32_t i = index[v]; i < index[v + 1]; i++)
            {
                closes = closes || adj[i] == order[0];
            }
            if (closes)
            {
                *found = true;
                break;
            }
        }
        uint32_t* c = cand + (size_t)(depth - 1) * maxdeg;
        if (ncand[depth - 1] == UINT32_MAX)
        {
            /* free neighbours of v sorted by their own free degree (insertion sort) */
            uint32_t m = 0;
            for (uint32_t i = index[v]; i < index[v + 1] && depth < n; i++)
            {
                uint32_t q = adj[i];
                if (used[q])
                {
                    continue;
                }
                uint32_t fd = 0;
                for (uint32_t k = index[q]; k < index[q + 1]; k++)
                {
                    fd += !used[adj[k]];
                }
                uint32_t at = m++;
                while (at > 0 && free_deg[at - 1] > fd)
                {
                    free_deg[at] = free_deg[at - 1];
                    c[at] = c[at - 1];
                    at--;
                }
                free_deg[at] = fd;
                c[at] = q;
            }
            ncand[depth - 1] = m;
            next[depth - 1] = 0;
        }
        if (next[depth - 1] < ncand[depth - 1])
        {
            uint32_t q = c[next[depth - 1]++];
            order[depth] = q;
            used[q] = 1;
            ncand[depth] = UINT32_MAX;
            depth++;
            budget--;
        }
        else
        {
            /* backtrack */
            depth--;
            if (depth > 0)
            {
                used[order[depth]] = 0;
            }
        }
    }
done:
    free(index);
    free(seen);
    free(adj);
    free(cand);
    free(ncand);
    free(next);
    free(used);
    free(free_deg);
    return st;
}

/* ---- entry points ------------------------------------------------------------------- */

tn_status
tn_ring_order(const tn_topology* topo,
              uint32_t ranks,
              uint32_t* order,
              tn_ring_order_info* info,
              tn_error* err)
{
    if (!order || ranks == 0)
    {
        return tn_error_set(err, TN_EINVAL, "ring order: needs ranks >= 1 and an output array");
    }
    if (topo && ranks > tn_topology_npu_count(topo))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "ring order: ranks %u > %u NPUs of topology '%s'",
                            ranks,
                            tn_topology_npu_count(topo),
                            tn_topology_name(topo));
    }
    tn_ring_order_kind kind = TN_RING_ORDER_IDENTITY;
    tn_status st = TN_OK;
    if (topo && grid_dims(topo, ranks))
    {
        uint32_t* buf = malloc((size_t)ranks * 3 * sizeof(*buf));
        if (!buf)
        {
            return tn_error_set(err, TN_ENOMEM, "ring order: out of memory");
        }
        grid_order(topo, ranks, order, buf, buf + ranks, buf + 2 * (size_t)ranks);
        free(buf);
        kind = TN_RING_ORDER_GRID;
    }
    else if (topo && tn_topology_switch_count(topo) > 0)
    {
        st = switch_local_order(topo, ranks, order, err);
        kind = TN_RING_ORDER_SWITCH_LOCAL;
    }
    else if (topo)
    {
        bool found = false;
        st = search_cycle(topo, ranks, order, &found, err);
        kind = found ? TN_RING_ORDER_SEARCH : TN_RING_ORDER_IDENTITY;
    }
    if (st)
    {
        return st;
    }
    if (kind == TN_RING_ORDER_IDENTITY)
    {
        for (uint32_t r = 0; r < ranks; r++)
        {
            order[r] = r;
        }
    }
    if (info)
    {
        info->kind = kind;
        info->non_adjacent = tn_ring_order_non_adjacent(topo, order, ranks);
    }
    return TN_OK;
}

tn_status
tn_rank_order_validate(const char* who,
                       const uint32_t* order,
                       uint32_t count,
                       uint32_t ranks,
                       tn_error* err)
{
    if (!who)
    {
        who = "rank order";
    }
    if (!order)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: rank order: %u entries given but no array",
                            who,
                            count);
    }
    if (count != ranks)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: rank order: has %u entries, expected one per rank (%u)",
                            who,
                            count,
                            ranks);
    }
    uint32_t* where = malloc((size_t)(ranks ? ranks : 1) * sizeof(*where));
    if (!where)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: rank order: out of memory", who);
    }
    for (uint32_t r = 0; r < ranks; r++)
    {
        where[r] = UINT32_MAX;
    }
    tn_status st = TN_OK;
    for (uint32_t k = 0; k < count && !st; k++)
    {
        uint32_t r = order[k];
        if (r >= ranks)
        {
            st = tn_error_set(err,
                              TN_EINVAL,
                              "%s: rank order: entry %u is %u, not a rank (< %u)",
                              who,
                              k,
                              r,
                              ranks);
        }
        else if (where[r] != UINT32_MAX)
        {
            st = tn_error_set(err,
                              TN_EINVAL,
                              "%s: rank order: rank %u appears twice (entries %u and %u)",
                              who,
                              r,
                              where[r],
                              k);
        }
        else
        {
            where[r] = k;
        }
    }
    free(where);
    return st;
}
