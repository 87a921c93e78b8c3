/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-routing: per-destination BFS distance tables and ECMP next hops.
 */
#include "tn-routing.h"

#include "tn-shape.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct tn_routes
{
    const tn_topology* topo;
    uint32_t nodes;
    uint32_t ndest;
    uint32_t* dest_node;  /* per destination index */
    uint32_t* dest_index; /* per node: destination index or TN_TOPO_NONE */
    uint8_t* transit;     /* per node: may be passed through */
    uint32_t* level;      /* per node: hops to the nearest NPU (up/down order) */
    bool npus_forward;
    tn_route_order order;
    /* ndest x nodes distances, `width` bytes each: the narrowest of 1, 2, 4 that holds the
     * largest distance, its all-ones value meaning unreachable (a 16,384-NPU torus, whose
     * distances are below 255, takes 256 MiB and not 512 or 1,024) */
    void* dist;
    unsigned width;
    /* a regular topology's distances come from node ids instead (dist NULL): a 65,536-NPU
     * torus would need 4 GiB of table */
    bool computed;
    tn_shape shape;
    /* a node with more than TN_ROUTES_SCAN_DEGREE ports finds its hops to a neighbour by a
     * binary search of its out-links sorted by (destination node, port), not by looking at
     * every port: a 660-NPU fc plan asks 870,000 times, 659 ports each. near_off has
     * nodes + 1 offsets into near_link; an empty range means "scan the ports". */
    uint32_t* near_off;
    uint32_t* near_link;
};

/* Ports a node may have before its neighbours are indexed (a scan is as fast below). */
#define TN_ROUTES_SCAN_DEGREE 16

/* The unreachable mark of a table entry of `width` bytes. */
static inline uint32_t
tn_dist_inf(unsigned width)
{
    return width == 1 ? UINT8_MAX : width == 2 ? UINT16_MAX : TN_ROUTES_UNREACHABLE;
}

/* Entry `at` of a table of `width` bytes, as stored. */
static inline uint32_t
tn_dist_raw(const void* table, unsigned width, size_t at)
{
    return width == 1   ? ((const uint8_t*)table)[at]
           : width == 2 ? ((const uint16_t*)table)[at]
                        : ((const uint32_t*)table)[at];
}

static inline void
tn_dist_put(void* table, unsigned width, size_t at, uint32_t d)
{
    if (width == 1)
        ((uint8_t*)table)[at] = (uint8_t)d;
    else if (width == 2)
        ((uint16_t*)table)[at] = (uint16_t)d;
    else
        ((uint32_t*)table)[at] = d;
}

void
tn_routes_destroy(tn_routes* routes)
{
    if (!routes)
    {
        return;
    }
    free(routes->dest_node);
    free(routes->dest_index);
    free(routes->transit);
    free(routes->level);
    free(routes->dist);
    free(routes->near_off);
    free(routes->near_link);
    free(routes);
}

/* Distance from node v to destination index di (TN_ROUTES_UNREACHABLE if none). */
static inline uint32_t
tn_dist(const tn_routes* r, uint32_t di, uint32_t v)
{
    if (r->computed)
    {
        return tn_shape_distance(&r->shape, v, r->dest_node[di]);
    }
    uint32_t x = tn_dist_raw(r->dist, r->width, (size_t)di * r->nodes + v);
    return x == tn_dist_inf(r->width) ? TN_ROUTES_UNREACHABLE : x;
}

/* Widen the table to `width` bytes per entry, keeping its first `rows` rows. */
static tn_status
tn_dist_widen(tn_routes* r, unsigned width, uint32_t rows, tn_error* err)
{
    size_t cells = (size_t)r->ndest * r->nodes;
    void* wide = malloc((cells ? cells : 1) * width);
    if (!wide)
    {
        return tn_error_set(err,
                            TN_ENOMEM,
                            "tn_routes_create: out of memory for a %u x %u distance table of "
                            "%u-byte entries (pass options.dest_nodes to route fewer "
                            "destinations)",
                            r->ndest,
                            r->nodes,
                            width);
    }
    const uint32_t inf = tn_dist_inf(r->width);
    for (size_t at = 0; at < (size_t)rows * r->nodes; at++)
    {
        uint32_t x = tn_dist_raw(r->dist, r->width, at);
        tn_dist_put(wide, width, at, x == inf ? tn_dist_inf(width) : x);
    }
    free(r->dist);
    r->dist = wide;
    r->width = width;
    return TN_OK;
}

static int
tn_cmp_u64(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

/* The neighbour index of the struct's comment: (destination << 32 | port) keys sorted per
 * node (a generator's ports are usually in order already, so the sort is mostly skipped). */
static tn_status
tn_near_index(tn_routes* r, tn_error* err)
{
    const tn_topology* t = r->topo;
    r->near_off = malloc(((size_t)r->nodes + 1) * sizeof(*r->near_off));
    if (!r->near_off)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_routes_create: out of memory");
    }
    size_t total = 0;
    uint32_t widest = 0;
    for (uint32_t v = 0; v < r->nodes; v++)
    {
        uint32_t deg;
        tn_topology_out_links(t, v, &deg);
        r->near_off[v] = (uint32_t)total;
        if (deg > TN_ROUTES_SCAN_DEGREE)
        {
            total += deg;
            widest = deg > widest ? deg : widest;
        }
    }
    r->near_off[r->nodes] = (uint32_t)total;
    if (total == 0)
    {
        return TN_OK;
    }
    r->near_link = malloc(total * sizeof(*r->near_link));
    uint64_t* keys = malloc((size_t)widest * sizeof(*keys));
    if (!r->near_link || !keys)
    {
        free(keys);
        return tn_error_set(err, TN_ENOMEM, "tn_routes_create: out of memory");
    }
    for (uint32_t v = 0; v < r->nodes; v++)
    {
        uint32_t deg;
        const uint32_t* outl = tn_topology_out_links(t, v, &deg);
        if (r->near_off[v + 1] == r->near_off[v])
        {
            continue;
        }
        bool sorted = true;
        for (uint32_t p = 0; p < deg; p++)
        {
            keys[p] = (uint64_t)tn_topology_link(t, outl[p])->dst << 32 | p;
            sorted &= p == 0 || keys[p] > keys[p - 1];
        }
        if (!sorted)
        {
            qsort(keys, deg, sizeof(*keys), tn_cmp_u64);
        }
        for (uint32_t p = 0; p < deg; p++)
        {
            r->near_link[r->near_off[v] + p] = outl[(uint32_t)keys[p]];
        }
    }
    free(keys);
    return TN_OK;
}

/* Hops from every node to its nearest NPU: one BFS from all NPUs at once. */
static void
tn_levels(const tn_topology* topo, uint32_t* level, uint32_t* queue)
{
    uint32_t nodes = tn_topology_node_count(topo);
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < nodes; v++)
    {
        level[v] = TN_ROUTES_UNREACHABLE;
        if (tn_topology_node_kind(topo, v) == TN_NODE_NPU)
        {
            level[v] = 0;
            queue[tail++] = v;
        }
    }
    while (head < tail)
    {
        uint32_t v = queue[head++];
        uint32_t deg;
        const uint32_t* outl = tn_topology_out_links(topo, v, &deg);
        for (uint32_t p = 0; p < deg; p++)
        {
            uint32_t w = tn_topology_link(topo, outl[p])->dst;
            if (level[w] == TN_ROUTES_UNREACHABLE)
            {
                level[w] = level[v] + 1;
                queue[tail++] = w;
            }
        }
    }
}

/* The options' enums are known values. */
static tn_status
tn_routes_options_check(const tn_routes_options* opt, tn_error* err)
{
    if (!tn_route_order_name(opt->order))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_routes_create: options.order %d is unknown",
                            (int)opt->order);
    }
    if (opt->transit != TN_TRANSIT_TOPOLOGY && opt->transit != TN_TRANSIT_ALL_NODES &&
        opt->transit != TN_TRANSIT_SWITCHES_ONLY)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_routes_create: options.transit %d is unknown",
                            (int)opt->transit);
    }
    return TN_OK;
}

/* r's destinations (opt->dest_nodes, or every NPU) into r->dest_node and r->dest_index
 * (TN_TOPO_NONE everywhere before): each a node, none twice. */
static tn_status
tn_routes_dests(tn_routes* r, const tn_routes_options* opt, tn_error* err)
{
    for (uint32_t i = 0; i < r->ndest; i++)
    {
        uint32_t d = opt->dest_nodes ? opt->dest_nodes[i] : tn_topology_npu_node(r->topo, i);
        if (d >= r->nodes)
        {
            return tn_error_set(
                err,
                TN_EINVAL,
                "tn_routes_create: options.dest_nodes[%u] = %u is not a node (%u nodes)",
                i,
                d,
                r->nodes);
        }
        if (r->dest_index[d] != TN_TOPO_NONE)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "tn_routes_create: options.dest_nodes[%u] = %u is a duplicate of "
                                "dest_nodes[%u]",
                                i,
                                d,
                                r->dest_index[d]);
        }
        r->dest_node[i] = d;
        r->dest_index[d] = i;
    }
    return TN_OK;
}

/* Reverse BFS from destination d over in-links (in_off, in_src: CSR): row[v] is v's distance
 * to d, or TN_ROUTES_UNREACHABLE; non-transit nodes get a distance (they may start a path) but
 * are not expanded. queue has room for every node. Returns the largest distance. */
static uint32_t
tn_reverse_bfs(const tn_routes* r,
               const uint32_t* in_off,
               const uint32_t* in_src,
               uint32_t d,
               uint32_t* row,
               uint32_t* queue)
{
    for (uint32_t v = 0; v < r->nodes; v++)
    {
        row[v] = TN_ROUTES_UNREACHABLE;
    }
    row[d] = 0;
    uint32_t head = 0, tail = 0, far = 0;
    queue[tail++] = d;
    while (head < tail)
    {
        uint32_t v = queue[head++];
        if (v != d && !r->transit[v])
        {
            continue;
        }
        uint32_t dv = row[v];
        for (uint32_t p = in_off[v]; p < in_off[v + 1]; p++)
        {
            uint32_t u = in_src[p];
            if (row[u] == TN_ROUTES_UNREACHABLE)
            {
                row[u] = dv + 1;
                far = dv + 1;
                queue[tail++] = u;
            }
        }
    }
    return far;
}

/* The distance table r->dist (r->ndest x r->nodes, one byte per entry until a distance needs
 * more: tn_dist_widen), by a reverse BFS from each destination; queue has room for every
 * node. */
static tn_status
tn_routes_tables(tn_routes* r, uint32_t* queue, tn_error* err)
{
    const tn_topology* topo = r->topo;
    const uint32_t nodes = r->nodes;
    size_t cells = (size_t)r->ndest * nodes;
    if (r->ndest && cells / r->ndest != nodes)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_routes_create: distance table too large");
    }
    r->width = 1;
    r->dist = malloc(cells ? cells : 1);
    uint32_t* row = malloc((size_t)nodes * sizeof(*row));
    if (!r->dist || !row)
    {
        free(row);
        return tn_error_set(err,
                            TN_ENOMEM,
                            "tn_routes_create: out of memory for a %u x %u distance table (pass "
                            "options.dest_nodes to route fewer destinations)",
                            r->ndest,
                            nodes);
    }
    /* in-neighbours of every node in one flat array (CSR), for a tight BFS loop */
    uint32_t links = tn_topology_link_count(topo);
    uint32_t* in_off = malloc(((size_t)nodes + 1) * sizeof(*in_off));
    uint32_t* in_src = malloc(((size_t)links + 1) * sizeof(*in_src));
    if (!in_off || !in_src)
    {
        free(in_off);
        free(in_src);
        free(row);
        return tn_error_set(err, TN_ENOMEM, "tn_routes_create: out of memory");
    }
    in_off[0] = 0;
    for (uint32_t v = 0; v < nodes; v++)
    {
        uint32_t deg;
        const uint32_t* in = tn_topology_in_links(topo, v, &deg);
        for (uint32_t p = 0; p < deg; p++)
        {
            in_src[in_off[v] + p] = tn_topology_link(topo, in[p])->src;
        }
        in_off[v + 1] = in_off[v] + deg;
    }
    tn_status st = TN_OK;
    for (uint32_t di = 0; di < r->ndest && !st; di++)
    {
        uint32_t far = tn_reverse_bfs(r, in_off, in_src, r->dest_node[di], row, queue);
        while (far >= tn_dist_inf(r->width) && !st)
        {
            st = tn_dist_widen(r, r->width * 2, di, err);
        }
        const uint32_t inf = tn_dist_inf(r->width);
        for (uint32_t v = 0; v < nodes && !st; v++)
        {
            tn_dist_put(r->dist,
                        r->width,
                        (size_t)di * nodes + v,
                        row[v] == TN_ROUTES_UNREACHABLE ? inf : row[v]);
        }
    }
    free(row);
    free(in_off);
    free(in_src);
    return st;
}

tn_status
tn_routes_create(const tn_topology* topo,
                 const tn_routes_options* options,
                 tn_routes** out,
                 tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_routes_create: out is NULL");
    }
    *out = NULL;
    if (!topo)
    {
        return tn_error_set(err, TN_EINVAL, "tn_routes_create: topo is NULL");
    }
    uint32_t nodes = tn_topology_node_count(topo);
    if (nodes == 0)
    {
        return tn_error_set(err, TN_EINVAL, "tn_routes_create: topology has no node");
    }
    tn_routes_options opt;
    memset(&opt, 0, sizeof(opt));
    if (options)
    {
        opt = *options;
    }
    tn_status st = tn_routes_options_check(&opt, err);
    if (st)
    {
        return st;
    }
    tn_routes* r = calloc(1, sizeof(*r));
    if (!r)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_routes_create: out of memory");
    }
    r->topo = topo;
    r->nodes = nodes;
    r->order = opt.order;
    r->npus_forward = opt.transit == TN_TRANSIT_ALL_NODES       ? true
                      : opt.transit == TN_TRANSIT_SWITCHES_ONLY ? false
                                                                : tn_topology_npus_forward(topo);
    r->ndest = opt.dest_nodes ? opt.dest_count : tn_topology_npu_count(topo);
    r->dest_node = malloc(((size_t)r->ndest + 1) * sizeof(*r->dest_node));
    r->dest_index = malloc((size_t)nodes * sizeof(*r->dest_index));
    r->transit = malloc(nodes);
    r->level = malloc((size_t)nodes * sizeof(*r->level));
    uint32_t* queue = malloc((size_t)nodes * sizeof(*queue));
    if (!r->dest_node || !r->dest_index || !r->transit || !r->level || !queue)
    {
        free(queue);
        tn_routes_destroy(r);
        return tn_error_set(err, TN_ENOMEM, "tn_routes_create: out of memory");
    }
    for (uint32_t v = 0; v < nodes; v++)
    {
        r->dest_index[v] = TN_TOPO_NONE;
        r->transit[v] = tn_topology_node_kind(topo, v) == TN_NODE_SWITCH || r->npus_forward;
    }
    tn_levels(topo, r->level, queue);
    st = tn_near_index(r, err);
    if (!st)
    {
        st = tn_routes_dests(r, &opt, err);
    }
    if (!st && !opt.dest_nodes && !opt.force_tables &&
        tn_shape_routes_valid(tn_topology_shape(topo), r->npus_forward))
    {
        /* the shape answers distances from node ids: no table */
        r->computed = true;
        r->shape = *tn_topology_shape(topo);
    }
    else if (!st)
    {
        st = tn_routes_tables(r, queue, err);
    }
    free(queue);
    if (st)
    {
        tn_routes_destroy(r);
        return st;
    }
    *out = r;
    return TN_OK;
}

const tn_topology*
tn_routes_topology(const tn_routes* routes)
{
    return routes->topo;
}

bool
tn_routes_npus_forward(const tn_routes* routes)
{
    return routes->npus_forward;
}

uint32_t
tn_routes_level(const tn_routes* routes, uint32_t node)
{
    return node < routes->nodes ? routes->level[node] : TN_ROUTES_UNREACHABLE;
}

/* Whether a hop from u to w goes up: to a higher (level, id). */
static inline bool
tn_hop_up(const tn_routes* r, uint32_t u, uint32_t w)
{
    return r->level[w] != r->level[u] ? r->level[w] > r->level[u] : w > u;
}

uint32_t
tn_routes_up_down_turn(const tn_routes* routes, const uint32_t* links, uint32_t len)
{
    bool down = false;
    for (uint32_t h = 0; h < len; h++)
    {
        const tn_link* l = tn_topology_link(routes->topo, links[h]);
        bool up = tn_hop_up(routes, l->src, l->dst);
        if (up && down)
        {
            return h;
        }
        down |= !up;
    }
    return UINT32_MAX;
}

tn_route_order
tn_routes_order(const tn_routes* routes)
{
    return routes->order;
}

const char*
tn_route_order_name(tn_route_order order)
{
    switch (order)
    {
    case TN_ROUTE_SHORTEST:
        return "shortest";
    case TN_ROUTE_DIMENSION_ORDER:
        return "dimension-order";
    }
    return NULL;
}

bool
tn_route_order_parse(const char* name, tn_route_order* order)
{
    for (int o = TN_ROUTE_SHORTEST; o <= TN_ROUTE_DIMENSION_ORDER; o++)
    {
        if (name && strcmp(name, tn_route_order_name((tn_route_order)o)) == 0)
        {
            *order = (tn_route_order)o;
            return true;
        }
    }
    return false;
}

uint32_t
tn_routes_dest_count(const tn_routes* routes)
{
    return routes->ndest;
}

uint32_t
tn_routes_dest_node(const tn_routes* routes, uint32_t i)
{
    return i < routes->ndest ? routes->dest_node[i] : TN_TOPO_NONE;
}

bool
tn_routes_is_dest(const tn_routes* routes, uint32_t node)
{
    return node < routes->nodes && routes->dest_index[node] != TN_TOPO_NONE;
}

uint32_t
tn_routes_distance(const tn_routes* routes, uint32_t from, uint32_t to)
{
    if (from >= routes->nodes || to >= routes->nodes || routes->dest_index[to] == TN_TOPO_NONE)
    {
        return TN_ROUTES_UNREACHABLE;
    }
    return tn_dist(routes, routes->dest_index[to], from);
}

uint32_t
tn_routes_distance_rank(const tn_routes* routes, uint32_t from_rank, uint32_t to_rank)
{
    uint32_t a = tn_topology_npu_node(routes->topo, from_rank);
    uint32_t b = tn_topology_npu_node(routes->topo, to_rank);
    if (a == TN_TOPO_NONE || b == TN_TOPO_NONE)
    {
        return TN_ROUTES_UNREACHABLE;
    }
    return tn_routes_distance(routes, a, b);
}

/* Whether out-link `link` of a node at distance dv from destination index di starts a
 * shortest path that obeys the transit rule. */
static inline bool
tn_shortest_hop(const tn_routes* r, uint32_t di, uint32_t dv, uint32_t link)
{
    uint32_t w = tn_topology_link(r->topo, link)->dst;
    return (w == r->dest_node[di] || r->transit[w]) && tn_dist(r, di, w) == dv - 1;
}

/* The dim a next hop of node must have: the lowest dim among its shortest hops in
 * dimension order (-1 when none has a dim, so that dim -1 hops pass), INT_MAX (any)
 * otherwise. */
static int
tn_hop_dim(const tn_routes* r, uint32_t node, uint32_t di, uint32_t dv)
{
    if (r->order != TN_ROUTE_DIMENSION_ORDER)
    {
        return INT_MAX;
    }
    uint32_t deg;
    const uint32_t* outl = tn_topology_out_links(r->topo, node, &deg);
    int lowest = INT_MAX;
    for (uint32_t p = 0; p < deg; p++)
    {
        int dim = tn_topology_link(r->topo, outl[p])->dim;
        if (dim >= 0 && dim < lowest && tn_shortest_hop(r, di, dv, outl[p]))
        {
            lowest = dim;
        }
    }
    return lowest == INT_MAX ? -1 : lowest;
}

static inline bool
tn_dim_passes(const tn_routes* r, uint32_t link, int dim)
{
    return dim == INT_MAX || tn_topology_link(r->topo, link)->dim == dim;
}

/* tn_next_hops for an indexed node one hop from destination index di: its hops are its
 * links to the destination (the only node at distance 0), found by binary search. */
static uint32_t
tn_near_hops(const tn_routes* r,
             uint32_t node,
             uint32_t di,
             uint32_t* links,
             uint32_t cap,
             uint32_t pick,
             uint32_t* picked)
{
    const uint32_t* near = r->near_link;
    uint32_t dest = r->dest_node[di];
    uint32_t lo = r->near_off[node], hi = r->near_off[node + 1];
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tn_topology_link(r->topo, near[mid])->dst < dest)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    uint32_t end = lo;
    int lowest = INT_MAX;
    for (; end < r->near_off[node + 1] && tn_topology_link(r->topo, near[end])->dst == dest; end++)
    {
        int d = tn_topology_link(r->topo, near[end])->dim;
        lowest = d >= 0 && d < lowest ? d : lowest;
    }
    /* as tn_hop_dim: in dimension order the lowest dim (-1 if none has one), else any */
    int dim = r->order != TN_ROUTE_DIMENSION_ORDER ? INT_MAX : lowest == INT_MAX ? -1 : lowest;
    uint32_t n = 0;
    for (uint32_t k = lo; k < end; k++)
    {
        if (tn_dim_passes(r, near[k], dim))
        {
            if (n < cap)
            {
                links[n] = near[k];
            }
            if (n == pick)
            {
                *picked = near[k];
            }
            n++;
        }
    }
    return n;
}

/*
 * Visit the next hops of node toward destination index di: calls are made in
 * port order; returns the count. If pick < count, *picked gets that next hop.
 */
static uint32_t
tn_next_hops(const tn_routes* r,
             uint32_t node,
             uint32_t di,
             uint32_t* links,
             uint32_t cap,
             uint32_t pick,
             uint32_t* picked)
{
    uint32_t dv = tn_dist(r, di, node);
    if (dv == TN_ROUTES_UNREACHABLE || dv == 0)
    {
        return 0;
    }
    uint32_t deg;
    const uint32_t* outl = tn_topology_out_links(r->topo, node, &deg);
    /* a grid switch has one next hop, known without looking at its (8,192) ports */
    uint32_t port =
        r->computed ? tn_shape_switch_port(&r->shape, node, r->dest_node[di]) : UINT32_MAX;
    if (port < deg)
    {
        if (cap > 0)
        {
            links[0] = outl[port];
        }
        if (pick == 0)
        {
            *picked = outl[port];
        }
        return 1;
    }
    if (dv == 1 && r->near_off[node + 1] > r->near_off[node])
    {
        return tn_near_hops(r, node, di, links, cap, pick, picked);
    }
    int dim = tn_hop_dim(r, node, di, dv);
    uint32_t n = 0;
    for (uint32_t p = 0; p < deg; p++)
    {
        if (tn_shortest_hop(r, di, dv, outl[p]) && tn_dim_passes(r, outl[p], dim))
        {
            if (n < cap)
            {
                links[n] = outl[p];
            }
            if (n == pick)
            {
                *picked = outl[p];
            }
            n++;
        }
    }
    return n;
}

uint32_t
tn_routes_next_hops(const tn_routes* routes,
                    uint32_t node,
                    uint32_t to,
                    uint32_t* links,
                    uint32_t cap)
{
    if (node >= routes->nodes || to >= routes->nodes || routes->dest_index[to] == TN_TOPO_NONE)
    {
        return 0;
    }
    return tn_next_hops(routes, node, routes->dest_index[to], links, cap, UINT32_MAX, NULL);
}

bool
tn_routes_computed(const tn_routes* routes)
{
    return routes->computed;
}

uint32_t
tn_routes_max_npu_distance(const tn_routes* routes)
{
    if (routes->computed)
    {
        return tn_shape_max_npu_distance(&routes->shape);
    }
    uint32_t best = 0;
    const tn_topology* t = routes->topo;
    uint32_t npus = tn_topology_npu_count(t);
    for (uint32_t di = 0; di < routes->ndest; di++)
    {
        for (uint32_t rank = 0; rank < npus; rank++)
        {
            uint32_t v = tn_topology_npu_node(t, rank);
            uint32_t d = tn_dist(routes, di, v);
            if (v != routes->dest_node[di] && d != TN_ROUTES_UNREACHABLE && d > best &&
                tn_topology_node_kind(t, routes->dest_node[di]) == TN_NODE_NPU)
            {
                best = d;
            }
        }
    }
    return best;
}

uint32_t
tn_routes_hash_pick(uint64_t flow_hash, uint32_t node, uint32_t count)
{
    if (count == 0)
    {
        return 0;
    }
    uint64_t x = flow_hash ^ ((uint64_t)node * 0x9E3779B97F4A7C15ULL);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return (uint32_t)(x % count);
}

static tn_status
tn_check_pair(const tn_routes* r,
              const char* fn,
              uint32_t src,
              uint32_t dst,
              uint32_t* dist,
              tn_error* err)
{
    if (src >= r->nodes)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: src %u is not a node (%u nodes)",
                            fn,
                            src,
                            r->nodes);
    }
    if (dst >= r->nodes || r->dest_index[dst] == TN_TOPO_NONE)
    {
        return tn_error_set(err, TN_EINVAL, "%s: dst %u is not a routed destination", fn, dst);
    }
    *dist = tn_dist(r, r->dest_index[dst], src);
    return TN_OK;
}

tn_status
tn_routes_path(const tn_routes* routes,
               uint32_t src,
               uint32_t dst,
               uint64_t flow_hash,
               uint32_t* links,
               uint32_t cap,
               uint32_t* len,
               tn_error* err)
{
    if (!routes || !len)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_routes_path: %s is NULL",
                            routes ? "len" : "routes");
    }
    uint32_t dist = TN_ROUTES_UNREACHABLE;
    tn_status s = tn_check_pair(routes, "tn_routes_path", src, dst, &dist, err);
    if (s)
    {
        return s;
    }
    if (dist == TN_ROUTES_UNREACHABLE)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_routes_path: dst %u is unreachable from src %u",
                            dst,
                            src);
    }
    if (cap < dist || (dist > 0 && !links))
    {
        return tn_error_set(err, TN_EINVAL, "tn_routes_path: cap %u < path length %u", cap, dist);
    }
    uint32_t di = routes->dest_index[dst];
    uint32_t v = src;
    for (uint32_t h = 0; h < dist; h++)
    {
        uint32_t count = tn_next_hops(routes, v, di, NULL, 0, UINT32_MAX, NULL);
        uint32_t pick = tn_routes_hash_pick(flow_hash, v, count);
        uint32_t link = TN_TOPO_NONE;
        tn_next_hops(routes, v, di, NULL, 0, pick, &link);
        links[h] = link;
        v = tn_topology_link(routes->topo, link)->dst;
    }
    *len = dist;
    return TN_OK;
}

tn_status
tn_routes_path_count(const tn_routes* routes,
                     uint32_t src,
                     uint32_t dst,
                     uint64_t* count,
                     tn_error* err)
{
    if (!routes || !count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_routes_path_count: %s is NULL",
                            routes ? "count" : "routes");
    }
    uint32_t dist = TN_ROUTES_UNREACHABLE;
    tn_status s = tn_check_pair(routes, "tn_routes_path_count", src, dst, &dist, err);
    if (s)
    {
        return s;
    }
    if (dist == TN_ROUTES_UNREACHABLE)
    {
        *count = 0;
        return TN_OK;
    }
    if (dist == 0)
    {
        *count = 1;
        return TN_OK;
    }
    /* forward DP layer by layer along next hops; every node of a layer has the
       same distance, so counts of a layer are final before it is expanded */
    uint32_t n = routes->nodes;
    uint64_t* cnt = calloc(n, sizeof(*cnt));
    uint32_t* layer = malloc((size_t)n * sizeof(*layer));
    uint32_t* next = malloc((size_t)n * sizeof(*next));
    if (!cnt || !layer || !next)
    {
        free(cnt);
        free(layer);
        free(next);
        return tn_error_set(err, TN_ENOMEM, "tn_routes_path_count: out of memory");
    }
    uint32_t di = routes->dest_index[dst];
    uint32_t nl = 1;
    layer[0] = src;
    cnt[src] = 1;
    for (uint32_t h = 0; h < dist; h++)
    {
        uint32_t nn = 0;
        for (uint32_t i = 0; i < nl; i++)
        {
            uint32_t v = layer[i];
            uint32_t deg;
            const uint32_t* outl = tn_topology_out_links(routes->topo, v, &deg);
            uint32_t dv = tn_dist(routes, di, v);
            int dim = tn_hop_dim(routes, v, di, dv);
            for (uint32_t p = 0; p < deg; p++)
            {
                uint32_t w = tn_topology_link(routes->topo, outl[p])->dst;
                if (tn_shortest_hop(routes, di, dv, outl[p]) && tn_dim_passes(routes, outl[p], dim))
                {
                    if (cnt[w] == 0)
                    {
                        next[nn++] = w;
                    }
                    cnt[w] = cnt[w] > UINT64_MAX - cnt[v] ? UINT64_MAX : cnt[w] + cnt[v];
                }
            }
        }
        uint32_t* tmp = layer;
        layer = next;
        next = tmp;
        nl = nn;
    }
    *count = cnt[dst];
    free(cnt);
    free(layer);
    free(next);
    return TN_OK;
}
