/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Ring orders (tn-rank-order.h) and the ring algorithms that use them. Checks
 * against the graph, never against recorded orders:
 *  - every cyclic pair of the automatic order on tori and even meshes is joined
 *    by a cable (tn_topology_links_between), odd-odd meshes have exactly one pair
 *    that is not, and it is two cables apart;
 *  - the ring all-reduce on such orders uses no (directed link, step) twice
 *    (tn_verify_contention), while the identity order on the 4x4 torus does;
 *  - the cost model of the ring on the 8x8 torus matches the closed form
 *    2(N-1)(a + S/(N*B)) of doc/design.rst (Reference figures) within 3 %;
 *  - switched networks keep each switch's NPUs contiguous;
 *  - explicit orders are validated and used; schedules verify for any order.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-rank-order.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tn_topology*
ro_topo(tn_test_ctx* ctx, const char* spec)
{
    tn_topology* t = NULL;
    tn_error err;
    err.message[0] = 0;
    TN_CHECK_MSG(ctx, tn_topology_from_spec(spec, &t, &err) == TN_OK, "%s: %s", spec, err.message);
    return t;
}

/* Graph oracle: a cable joins the NPUs of ranks a and b. */
static bool
cabled(const tn_topology* t, uint32_t a, uint32_t b)
{
    return tn_topology_links_between(t,
                                     tn_topology_npu_node(t, a),
                                     tn_topology_npu_node(t, b),
                                     NULL,
                                     0) > 0;
}

/* ... or both are cabled to one switch. */
static bool
adjacent(const tn_topology* t, uint32_t a, uint32_t b)
{
    if (cabled(t, a, b))
        return true;
    uint32_t na = tn_topology_npu_node(t, a);
    uint32_t nb = tn_topology_npu_node(t, b);
    for (uint32_t v = 0; v < tn_topology_node_count(t); v++)
    {
        if (tn_topology_node_kind(t, v) == TN_NODE_SWITCH &&
            tn_topology_links_between(t, na, v, NULL, 0) > 0 &&
            tn_topology_links_between(t, nb, v, NULL, 0) > 0)
            return true;
    }
    return false;
}

/* Two cables apart through some NPU. */
static bool
two_apart(const tn_topology* t, uint32_t a, uint32_t b)
{
    for (uint32_t x = 0; x < tn_topology_npu_count(t); x++)
        if (x != a && x != b && cabled(t, a, x) && cabled(t, x, b))
            return true;
    return false;
}

static bool
is_permutation(const uint32_t* order, uint32_t n)
{
    uint8_t* seen = calloc(n ? n : 1, 1);
    bool ok = seen != NULL;
    for (uint32_t k = 0; k < n && ok; k++)
    {
        ok = order[k] < n && !seen[order[k]];
        if (ok)
            seen[order[k]] = 1;
    }
    free(seen);
    return ok;
}

/* The automatic order of a topology (every NPU); NULL after a failed check. */
static uint32_t*
auto_order(tn_test_ctx* ctx, const tn_topology* t, const char* spec, tn_ring_order_info* info)
{
    uint32_t n = tn_topology_npu_count(t);
    uint32_t* order = malloc((size_t)n * sizeof(*order));
    tn_error err;
    err.message[0] = 0;
    if (!TN_CHECK_MSG(ctx,
                      order && tn_ring_order(t, n, order, info, &err) == TN_OK,
                      "%s: ring order: %s",
                      spec,
                      err.message))
    {
        free(order);
        return NULL;
    }
    if (!TN_CHECK_MSG(ctx, is_permutation(order, n), "%s: order is not a permutation", spec))
    {
        free(order);
        return NULL;
    }
    return order;
}

/* Cyclic pairs not joined by a cable (cables_only) or not adjacent. */
static uint32_t
far_pairs(const tn_topology* t, const uint32_t* order, uint32_t n, bool cables_only)
{
    uint32_t far = 0;
    for (uint32_t k = 0; k < n && n > 2; k++)
    {
        uint32_t a = order[k], b = order[(k + 1) % n];
        if (cables_only ? !cabled(t, a, b) : !adjacent(t, a, b))
            far++;
    }
    return far;
}

static void
test_line(tn_test_ctx* ctx)
{
    for (uint32_t P = 1; P <= 21; P++)
    {
        uint32_t order[21];
        tn_ring_order_line(P, order);
        TN_CHECK_MSG(ctx, is_permutation(order, P), "line %u: not a permutation", P);
        TN_CHECK_EQ(ctx, order[0], 0);
        /* crossings of the unit segment (i, i+1) in each direction over one ring turn */
        uint32_t fwd[21] = {0}, bwd[21] = {0};
        uint32_t longest = 0;
        for (uint32_t k = 0; k < P && P >= 2; k++)
        {
            uint32_t a = order[k], b = order[(k + 1) % P];
            uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            longest = hi - lo > longest ? hi - lo : longest;
            for (uint32_t i = lo; i < hi; i++)
                (a < b ? fwd : bwd)[i]++;
        }
        TN_CHECK_MSG(ctx, longest <= 2, "line %u: a hop spans %u positions", P, longest);
        for (uint32_t i = 0; i + 1 < P; i++)
            TN_CHECK_MSG(ctx,
                         fwd[i] == 1 && bwd[i] == 1,
                         "line %u: segment %u crossed %u/%u times",
                         P,
                         i,
                         fwd[i],
                         bwd[i]);
    }
}

/* Tori and meshes with an even node count: a cycle of neighbours. */
static void
test_grid_cycles(tn_test_ctx* ctx)
{
    static const char* specs[] = {"torus:4x4",
                                  "torus:8x8",
                                  "mesh:4x4",
                                  "mesh:8x8",
                                  "torus:4x4x4",
                                  "mesh:4x4x4",
                                  "torus:3x3",
                                  "torus:3x5",
                                  "torus:5x5x3",
                                  "torus:2x3x3",
                                  "torus:2x2",
                                  "mesh:2x3",
                                  "mesh:3x4",
                                  "mesh:4x6",
                                  "mesh:3x3x2",
                                  "torus:4x4,ports=2",
                                  "ring:7",
                                  "fc:5"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = ro_topo(ctx, specs[i]);
        if (!t)
            continue;
        tn_ring_order_info info = {TN_RING_ORDER_GIVEN, 99};
        uint32_t* order = auto_order(ctx, t, specs[i], &info);
        if (order)
        {
            uint32_t n = tn_topology_npu_count(t);
            uint32_t far = far_pairs(t, order, n, true);
            TN_CHECK_MSG(ctx, far == 0, "%s: %u ring hops are not cables", specs[i], far);
            TN_CHECK_EQ(ctx, info.non_adjacent, far);
            TN_CHECK_EQ(ctx, info.kind, TN_RING_ORDER_GRID);
        }
        free(order);
        tn_topology_destroy(t);
    }
}

/* No Hamiltonian cycle (odd-odd meshes): exactly one hop is not a cable, and it
 * spans two cables; a mesh line: every hop at most two cables. */
static void
test_grid_near_cycles(tn_test_ctx* ctx)
{
    static const char* specs[] = {"mesh:3x3", "mesh:5x5", "mesh:3x5", "mesh:5x7", "mesh:3x3x3"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = ro_topo(ctx, specs[i]);
        if (!t)
            continue;
        tn_ring_order_info info;
        uint32_t* order = auto_order(ctx, t, specs[i], &info);
        uint32_t n = tn_topology_npu_count(t);
        for (uint32_t k = 0; order && k < n; k++)
        {
            uint32_t a = order[k], b = order[(k + 1) % n];
            if (!cabled(t, a, b))
                TN_CHECK_MSG(ctx, two_apart(t, a, b), "%s: hop %u->%u too long", specs[i], a, b);
        }
        if (order)
        {
            TN_CHECK_EQ(ctx, far_pairs(t, order, n, true), 1);
            TN_CHECK_EQ(ctx, info.non_adjacent, 1);
        }
        free(order);
        tn_topology_destroy(t);
    }
    tn_topology* t = ro_topo(ctx, "mesh:8");
    TN_REQUIRE(ctx, t != NULL);
    uint32_t* order = auto_order(ctx, t, "mesh:8", NULL);
    for (uint32_t k = 0; order && k < 8; k++)
    {
        uint32_t a = order[k], b = order[(k + 1) % 8];
        TN_CHECK_MSG(ctx, cabled(t, a, b) || two_apart(t, a, b), "mesh:8: hop %u->%u", a, b);
    }
    free(order);
    tn_topology_destroy(t);
}

/* Plan; NULL after a failed check. */
static tn_schedule*
ro_plan(tn_test_ctx* ctx,
        const tn_topology* t,
        const char* algo,
        tn_collective coll,
        uint64_t bytes,
        const uint32_t* order,
        uint32_t count)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.collective = coll;
    req.bytes = bytes;
    req.rank_order = order;
    req.rank_order_count = count;
    if (!t)
        req.ranks = count;
    req.root = count > 2 ? count / 2 : 0;
    tn_schedule* s = NULL;
    tn_error err;
    err.message[0] = 0;
    if (!TN_CHECK_MSG(ctx,
                      tn_plan(t, &req, &s, &err) == TN_OK,
                      "%s %s on %s: %s",
                      algo,
                      tn_collective_name(coll),
                      t ? tn_topology_name(t) : "(none)",
                      err.message))
        return NULL;
    if (!TN_CHECK_MSG(ctx,
                      tn_verify(s, &err) == TN_OK,
                      "%s %s on %s: verify: %s",
                      algo,
                      tn_collective_name(coll),
                      t ? tn_topology_name(t) : "(none)",
                      err.message))
    {
        tn_schedule_destroy(s);
        return NULL;
    }
    return s;
}

/* Conflicting (link, step) pairs of a schedule; UINT64_MAX after a failed check. */
static uint64_t
conflicts(tn_test_ctx* ctx, const tn_schedule* s, const tn_topology* t)
{
    tn_contention_report* rep = NULL;
    tn_error err;
    err.message[0] = 0;
    uint64_t c = UINT64_MAX;
    if (TN_CHECK_MSG(ctx,
                     tn_verify_contention(s, t, NULL, &rep, &err) == TN_OK,
                     "contention: %s",
                     err.message))
        c = rep->conflicts;
    tn_contention_report_destroy(rep);
    return c;
}

static void
test_ring_contention(tn_test_ctx* ctx)
{
    static const char* specs[] =
        {"torus:4x4", "torus:8x8", "mesh:4x4", "mesh:8x8", "torus:4x4x4", "mesh:3x5", "torus:3x5"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = ro_topo(ctx, specs[i]);
        if (!t)
            continue;
        uint32_t n = tn_topology_npu_count(t);
        tn_schedule* s =
            ro_plan(ctx, t, "ring", TN_COLL_ALL_REDUCE, (uint64_t)n * 1000 + 7, NULL, 0);
        if (s)
        {
            uint64_t c = conflicts(ctx, s, t);
            TN_CHECK_MSG(ctx,
                         c == 0,
                         "ring on %s: %llu conflicts",
                         specs[i],
                         (unsigned long long)c);
        }
        tn_schedule_destroy(s);
        /* bidirectional: the reverse ring uses the reverse links (cycles only) */
        if (strncmp(specs[i], "mesh:3x5", 8) != 0)
        {
            s = ro_plan(ctx, t, "ring-bidir", TN_COLL_ALL_REDUCE, (uint64_t)n * 1000 + 7, NULL, 0);
            if (s)
            {
                uint64_t c = conflicts(ctx, s, t);
                TN_CHECK_MSG(ctx,
                             c == 0,
                             "ring-bidir on %s: %llu conflicts",
                             specs[i],
                             (unsigned long long)c);
            }
            tn_schedule_destroy(s);
        }
        tn_topology_destroy(t);
    }
    /* the identity order on the 4x4 torus is not a cycle of neighbours: the same
     * check finds conflicts (so the checks above can fail) */
    tn_topology* t = ro_topo(ctx, "torus:4x4");
    TN_REQUIRE(ctx, t != NULL);
    uint32_t id[16];
    for (uint32_t r = 0; r < 16; r++)
        id[r] = r;
    TN_CHECK(ctx, far_pairs(t, id, 16, true) > 0);
    tn_schedule* s = ro_plan(ctx, t, "ring", TN_COLL_ALL_REDUCE, 16007, id, 16);
    if (s)
    {
        uint64_t c = conflicts(ctx, s, t);
        TN_CHECK_MSG(ctx,
                     c > 0 && c != UINT64_MAX,
                     "identity ring on torus:4x4: %llu conflicts, expected some",
                     (unsigned long long)c);
    }
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

/* doc/design.rst, Reference figures: t = 2(N-1)(a + S/(N*B)), a and B of the topology's links. */
static void
test_ring_cost(tn_test_ctx* ctx)
{
    tn_topology* t = ro_topo(ctx, "torus:8x8");
    TN_REQUIRE(ctx, t != NULL);
    const uint32_t N = 64;
    const uint64_t S = 64ULL << 20;
    const tn_link* l = tn_topology_link(t, 0);
    double a = (double)l->latency_ns;
    double B = (double)l->rate_bps / 8e9; /* bytes per ns */
    double closed = 2.0 * (N - 1) * (a + (double)S / (N * B));
    double time[2] = {0, 0};
    uint32_t id[64];
    for (uint32_t r = 0; r < N; r++)
        id[r] = r;
    for (int k = 0; k < 2; k++)
    {
        tn_schedule* s = ro_plan(ctx, t, "ring", TN_COLL_ALL_REDUCE, S, k ? id : NULL, k ? N : 0);
        if (!s)
            continue;
        tn_cost_result* res = NULL;
        tn_error err;
        if (TN_CHECK(ctx, tn_cost_estimate(s, t, NULL, NULL, &res, &err) == TN_OK))
            time[k] = res->time_ns;
        tn_cost_result_destroy(res);
        tn_schedule_destroy(s);
    }
    TN_CHECK_MSG(ctx,
                 time[0] >= closed * 0.97 && time[0] <= closed * 1.03,
                 "ring on torus:8x8: %.0f ns, closed form %.0f ns",
                 time[0],
                 closed);
    /* the identity order shares links: clearly slower than the closed form */
    TN_CHECK_MSG(ctx,
                 time[1] > closed * 1.5,
                 "identity ring on torus:8x8: %.0f ns, closed form %.0f ns",
                 time[1],
                 closed);
    tn_topology_destroy(t);
}

/* Home switch of a rank as the test sees it: the switch its first cable reaches. */
static uint32_t
home_of(const tn_topology* t, uint32_t rank)
{
    uint32_t cnt = 0;
    const uint32_t* out = tn_topology_out_links(t, tn_topology_npu_node(t, rank), &cnt);
    for (uint32_t i = 0; i < cnt; i++)
    {
        uint32_t x = tn_topology_link(t, out[i])->dst;
        if (tn_topology_node_kind(t, x) == TN_NODE_SWITCH)
            return x;
    }
    return TN_TOPO_NONE;
}

/* Each switch's NPUs are one contiguous run of the cyclic order: the number of
 * switch changes along the ring equals the number of switches (when > 1). */
static void
check_switch_local(tn_test_ctx* ctx, const tn_topology* t, const char* name, bool no_conflicts)
{
    tn_ring_order_info info;
    uint32_t* order = auto_order(ctx, t, name, &info);
    if (!order)
        return;
    uint32_t n = tn_topology_npu_count(t);
    uint32_t changes = 0;
    uint32_t* seen = calloc(tn_topology_node_count(t), sizeof(*seen));
    uint32_t groups = 0;
    for (uint32_t k = 0; k < n && seen; k++)
    {
        uint32_t h = home_of(t, order[k]);
        if (!seen[h]++)
            groups++;
        if (h != home_of(t, order[(k + 1) % n]))
            changes++;
    }
    TN_CHECK_MSG(ctx,
                 changes == (groups > 1 ? groups : 0),
                 "%s: %u switch changes along the ring for %u switches",
                 name,
                 changes,
                 groups);
    TN_CHECK_EQ(ctx, info.kind, TN_RING_ORDER_SWITCH_LOCAL);
    TN_CHECK_EQ(ctx, info.non_adjacent, changes);
    free(seen);
    free(order);
    tn_schedule* s = ro_plan(ctx, t, "ring", TN_COLL_ALL_REDUCE, (uint64_t)n * 999 + 1, NULL, 0);
    if (s && no_conflicts)
    {
        uint64_t c = conflicts(ctx, s, t);
        TN_CHECK_MSG(ctx, c == 0, "ring on %s: %llu conflicts", name, (unsigned long long)c);
    }
    tn_schedule_destroy(s);
}

static void
test_switch_local(tn_test_ctx* ctx)
{
    static const char* specs[] = {"leafspine:leaves=4,spines=2,hosts=4",
                                  "leafspine:leaves=8,spines=8,hosts=8",
                                  "fattree:k=4",
                                  "fattree:k=6",
                                  "bigraph:4x8",
                                  "bigraph:4x16",
                                  "switch:8"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = ro_topo(ctx, specs[i]);
        if (t && strncmp(specs[i], "switch:", 7) == 0)
        {
            /* one switch = one group; the grid rule gives the identity */
            uint32_t* order = auto_order(ctx, t, specs[i], NULL);
            TN_CHECK(ctx, order && far_pairs(t, order, 8, false) == 0);
            free(order);
        }
        else if (t)
        {
            check_switch_local(ctx, t, specs[i], true);
        }
        tn_topology_destroy(t);
    }
    /* NPUs interleaved over two switches (file): identity crosses at every hop */
    const char* text = "10 2 9\n8 9\n"
                       "0 8 100Gbps 1us 0\n1 9 100Gbps 1us 0\n2 8 100Gbps 1us 0\n"
                       "3 9 100Gbps 1us 0\n4 8 100Gbps 1us 0\n5 9 100Gbps 1us 0\n"
                       "6 8 100Gbps 1us 0\n7 9 100Gbps 1us 0\n8 9 400Gbps 1us 0\n";
    tn_topology* t = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_topology_load_text(text, "interleaved", &t, &err) == TN_OK);
    uint32_t id[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    TN_CHECK_EQ(ctx, far_pairs(t, id, 8, false), 8);
    check_switch_local(ctx, t, "interleaved", true);
    tn_topology_destroy(t);
}

/* Direct networks without grid dims: the bounded search finds a cycle. */
static void
test_search(tn_test_ctx* ctx)
{
    /* a 6-cycle with scrambled ids: 0-3-1-4-2-5-0, plus a chord 0-1 */
    const char* text = "6 0 7\n\n"
                       "0 3 100Gbps 1us 0\n3 1 100Gbps 1us 0\n1 4 100Gbps 1us 0\n"
                       "4 2 100Gbps 1us 0\n2 5 100Gbps 1us 0\n5 0 100Gbps 1us 0\n"
                       "0 1 100Gbps 1us 0\n";
    tn_topology* t = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_topology_load_text(text, "scrambled", &t, &err) == TN_OK);
    tn_ring_order_info info;
    uint32_t* order = auto_order(ctx, t, "scrambled", &info);
    if (order)
    {
        TN_CHECK_EQ(ctx, far_pairs(t, order, 6, true), 0);
        TN_CHECK_EQ(ctx, info.kind, TN_RING_ORDER_SEARCH);
    }
    free(order);
    tn_topology_destroy(t);
    /* part of a torus (ranks < NPUs): the first two rows of a 4x4 torus */
    t = ro_topo(ctx, "torus:4x4");
    TN_REQUIRE(ctx, t != NULL);
    uint32_t part[8];
    TN_CHECK(ctx, tn_ring_order(t, 8, part, &info, &err) == TN_OK);
    TN_CHECK(ctx, is_permutation(part, 8));
    TN_CHECK_EQ(ctx, far_pairs(t, part, 8, true), 0);
    TN_CHECK_EQ(ctx, info.non_adjacent, 0);
    /* no topology: identity */
    uint32_t none[5];
    TN_CHECK(ctx, tn_ring_order(NULL, 5, none, &info, &err) == TN_OK);
    for (uint32_t r = 0; r < 5; r++)
        TN_CHECK_EQ(ctx, none[r], r);
    TN_CHECK_EQ(ctx, info.kind, TN_RING_ORDER_IDENTITY);
    TN_CHECK_EQ(ctx, tn_ring_order(t, 17, part, NULL, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_ring_order(t, 0, part, NULL, &err), TN_EINVAL);
    tn_topology_destroy(t);
}

/* hierarchical and ring2d on meshes: no hop longer than two cables, verified, and no
 * (link, step) conflict where the algorithm's phases line up: ring2d runs its x-first
 * and y-first halves concurrently, which on a non-square grid reach the longer dim at
 * different steps (mesh:3x5: both are in dim 1 at steps 2 and 3), so there the logical
 * steps overlap by construction. */
static void
test_hier_mesh(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* spec;
        const char* algo;
        int conflict_free;
    } cases[] = {{"mesh:4x4", "ring2d", 1},
                 {"mesh:3x5", "ring2d", 0},
                 {"mesh:8x8", "ring2d", 1},
                 {"mesh:4x4x4", "hierarchical", 1},
                 {"mesh:5x3x2", "hierarchical", 1}};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        tn_topology* t = ro_topo(ctx, cases[i].spec);
        if (!t)
            continue;
        tn_routes* routes = NULL;
        tn_error err;
        TN_CHECK(ctx, tn_routes_create(t, NULL, &routes, &err) == TN_OK);
        uint32_t n = tn_topology_npu_count(t);
        tn_collective colls[3] = {TN_COLL_ALL_REDUCE, TN_COLL_REDUCE_SCATTER, TN_COLL_ALL_GATHER};
        for (int c = 0; c < 3 && routes; c++)
        {
            tn_schedule* s =
                ro_plan(ctx, t, cases[i].algo, colls[c], (uint64_t)n * 1000 + 3, NULL, 0);
            uint32_t longest = 0;
            for (uint32_t j = 0; s && j < tn_schedule_count(s); j++)
            {
                uint32_t links[8];
                uint32_t len = 0;
                if (tn_transfer_links(s, j, t, routes, links, 8, &len, &err) == TN_OK)
                    longest = len > longest ? len : longest;
            }
            if (s)
            {
                TN_CHECK_MSG(ctx,
                             longest <= 2,
                             "%s on %s: a transfer crosses %u links",
                             cases[i].algo,
                             cases[i].spec,
                             longest);
                if (c == 0 && cases[i].conflict_free)
                {
                    uint64_t k = conflicts(ctx, s, t);
                    TN_CHECK_MSG(ctx,
                                 k == 0,
                                 "%s on %s: %llu conflicts",
                                 cases[i].algo,
                                 cases[i].spec,
                                 (unsigned long long)k);
                }
            }
            tn_schedule_destroy(s);
        }
        tn_routes_destroy(routes);
        tn_topology_destroy(t);
    }
}

/* Deterministic permutation of 0..n-1 (Fisher-Yates with an LCG). */
static void
shuffle(uint32_t* order, uint32_t n, uint64_t seed)
{
    for (uint32_t r = 0; r < n; r++)
        order[r] = r;
    for (uint32_t i = n; i > 1; i--)
    {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t j = (uint32_t)((seed >> 33) % i);
        uint32_t x = order[i - 1];
        order[i - 1] = order[j];
        order[j] = x;
    }
}

static uint32_t
position(const uint32_t* order, uint32_t n, uint32_t rank)
{
    for (uint32_t k = 0; k < n; k++)
        if (order[k] == rank)
            return k;
    return UINT32_MAX;
}

static void
test_explicit(tn_test_ctx* ctx)
{
    tn_topology* t = ro_topo(ctx, "torus:4x4");
    TN_REQUIRE(ctx, t != NULL);
    uint32_t order[17];
    shuffle(order, 16, 7);
    tn_plan_request req;
    tn_plan_request_init(&req);
    TN_CHECK(ctx, req.rank_order == NULL && req.rank_order_count == 0);
    req.algorithm = "ring";
    req.bytes = 16000;
    tn_error err;
    /* wrong length */
    req.rank_order = order;
    req.rank_order_count = 15;
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "ring: rank order") && strstr(err.message, "15 entries"));
    /* out of range */
    req.rank_order_count = 16;
    uint32_t keep = order[5];
    order[5] = 16;
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "entry 5 is 16, not a rank"));
    /* duplicate */
    order[5] = order[9];
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "appears twice") && strstr(err.message, "entries 5 and 9"));
    order[5] = keep;
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_OK);
    /* a count without an array */
    req.rank_order = NULL;
    tn_schedule* s = (tn_schedule*)&req;
    TN_CHECK_EQ(ctx, tn_plan(t, &req, &s, &err), TN_EINVAL);
    TN_CHECK(ctx, s == NULL);
    TN_CHECK(ctx, strstr(err.message, "rank order") != NULL);
    /* an algorithm that takes no order */
    req.rank_order = order;
    req.algorithm = "rhd";
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strncmp(err.message, "rhd:", 4) == 0 && strstr(err.message, "rank order"));

    /* a given order is used: every ring transfer goes to the next position */
    s = ro_plan(ctx, t, "ring", TN_COLL_ALL_REDUCE, 16001, order, 16);
    if (s)
    {
        const tn_transfer* x = tn_schedule_transfer(s, 0);
        TN_CHECK_EQ(ctx, x->src, order[0]);
        TN_CHECK_EQ(ctx, x->dst, order[1]);
        uint32_t bad = 0;
        for (uint32_t j = 0; j < tn_schedule_count(s); j++)
        {
            x = tn_schedule_transfer(s, j);
            bad += position(order, 16, x->dst) != (position(order, 16, x->src) + 1) % 16;
        }
        TN_CHECK_EQ(ctx, bad, 0);
    }
    tn_schedule_destroy(s);
    /* bidirectional: next or previous position */
    s = ro_plan(ctx, t, "ring-bidir", TN_COLL_ALL_REDUCE, 16001, order, 16);
    if (s)
    {
        uint32_t bad = 0;
        for (uint32_t j = 0; j < tn_schedule_count(s); j++)
        {
            const tn_transfer* x = tn_schedule_transfer(s, j);
            uint32_t ps = position(order, 16, x->src), pd = position(order, 16, x->dst);
            bad += pd != (ps + 1) % 16 && ps != (pd + 1) % 16;
        }
        TN_CHECK_EQ(ctx, bad, 0);
    }
    tn_schedule_destroy(s);
    /* broadcast: the chain starts at the root and follows the order */
    s = ro_plan(ctx, t, "ring", TN_COLL_BROADCAST, 16001, order, 16);
    if (s)
    {
        const tn_transfer* x = tn_schedule_transfer(s, 0);
        TN_CHECK_EQ(ctx, x->src, 8); /* root = count / 2 in ro_plan */
        TN_CHECK_EQ(ctx, x->dst, order[(position(order, 16, 8) + 1) % 16]);
    }
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

/* Any order, every collective of ring and ring-bidir, with and without topology:
 * the schedule still verifies (the order changes who sends, not what ranks hold). */
static void
test_any_order_verifies(tn_test_ctx* ctx)
{
    static const tn_collective colls[] = {TN_COLL_ALL_REDUCE,
                                          TN_COLL_REDUCE_SCATTER,
                                          TN_COLL_ALL_GATHER,
                                          TN_COLL_BROADCAST,
                                          TN_COLL_REDUCE};
    static const uint32_t ns[] = {2, 3, 5, 8, 13};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
    {
        uint32_t n = ns[i];
        uint32_t order[13];
        for (uint64_t seed = 1; seed <= 3; seed++)
        {
            shuffle(order, n, seed * 977 + n);
            for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
            {
                uint64_t sizes[2] = {(uint64_t)n * 100 + 3, n > 1 ? n - 1 : 1};
                for (int k = 0; k < 2; k++)
                {
                    tn_schedule* s = ro_plan(ctx, NULL, "ring", colls[c], sizes[k], order, n);
                    tn_schedule_destroy(s);
                    if (c < 3)
                    {
                        s = ro_plan(ctx, NULL, "ring-bidir", colls[c], sizes[k], order, n);
                        tn_schedule_destroy(s);
                    }
                }
            }
        }
    }
    /* automatic orders on topologies, every collective */
    static const char* specs[] = {"torus:4x4",
                                  "mesh:3x5",
                                  "fattree:k=4",
                                  "hier:ring4@200Gbps+switch4@100Gbps"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = ro_topo(ctx, specs[i]);
        if (!t)
            continue;
        uint32_t n = tn_topology_npu_count(t);
        for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        {
            tn_plan_request req;
            tn_plan_request_init(&req);
            req.algorithm = "ring";
            req.collective = colls[c];
            req.bytes = (uint64_t)n * 77 + 5;
            req.chunks = 2;
            req.root = n - 1;
            tn_schedule* s = NULL;
            tn_error err;
            err.message[0] = 0;
            TN_CHECK_MSG(ctx,
                         tn_plan(t, &req, &s, &err) == TN_OK && tn_verify(s, &err) == TN_OK,
                         "ring %s on %s: %s",
                         tn_collective_name(colls[c]),
                         specs[i],
                         err.message);
            tn_schedule_destroy(s);
        }
        tn_topology_destroy(t);
    }
}

void
tn_suite_rank_order(tn_test_suite* suite)
{
    tn_test_add(suite, "line", test_line);
    tn_test_add(suite, "grid-cycles", test_grid_cycles);
    tn_test_add(suite, "grid-near-cycles", test_grid_near_cycles);
    tn_test_add(suite, "ring-contention", test_ring_contention);
    tn_test_add(suite, "ring-cost", test_ring_cost);
    tn_test_add(suite, "switch-local", test_switch_local);
    tn_test_add(suite, "search", test_search);
    tn_test_add(suite, "hier-mesh", test_hier_mesh);
    tn_test_add(suite, "explicit", test_explicit);
    tn_test_add(suite, "any-order-verifies", test_any_order_verifies);
}
