/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of tn-routing: distances and ECMP next-hop/path counts against closed
 * forms (torus wraparound, mesh Manhattan, fat-tree tiers, leaf-spine, BiGraph),
 * the no-transit-through-hosts rule, chosen paths, and large builds.
 */
#include "tn-test.h"

#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
ring_dist(uint32_t a, uint32_t b, uint32_t k)
{
    uint32_t d = a > b ? a - b : b - a;
    return d < k - d ? d : k - d;
}

static uint64_t
binom(uint32_t n, uint32_t k)
{
    uint64_t r = 1;
    for (uint32_t i = 1; i <= k; i++)
    {
        r = r * (n - k + i) / i;
    }
    return r;
}

static uint64_t
ipow(uint64_t b, uint32_t e)
{
    uint64_t r = 1;
    while (e--)
    {
        r *= b;
    }
    return r;
}

/* Every next hop of every (node, dest) pair reduces the distance by one and only
   enters a non-transit NPU when it is the destination. */
static int
next_hops_sound(const tn_routes* r)
{
    const tn_topology* t = tn_routes_topology(r);
    uint32_t nodes = tn_topology_node_count(t);
    uint32_t* buf = malloc(sizeof(*buf) * (nodes + 1));
    int ok = 1;
    for (uint32_t di = 0; di < tn_routes_dest_count(r) && ok; di++)
    {
        uint32_t d = tn_routes_dest_node(r, di);
        for (uint32_t v = 0; v < nodes && ok; v++)
        {
            uint32_t dv = tn_routes_distance(r, v, d);
            uint32_t n = tn_routes_next_hops(r, v, d, buf, nodes);
            ok &= (dv == 0 || dv == TN_ROUTES_UNREACHABLE) == (n == 0);
            for (uint32_t i = 0; i < n; i++)
            {
                const tn_link* l = tn_topology_link(t, buf[i]);
                ok &= l->src == v && tn_routes_distance(r, l->dst, d) == dv - 1;
                if (!tn_routes_npus_forward(r))
                {
                    ok &= l->dst == d || tn_topology_node_kind(t, l->dst) == TN_NODE_SWITCH;
                }
                ok &= i == 0 || buf[i] > buf[i - 1];
            }
        }
    }
    free(buf);
    return ok;
}

static void
check_torus(tn_test_ctx* ctx, int wrap, uint32_t nd, const uint32_t* k, uint32_t ports)
{
    tn_error err;
    tn_topology* t = NULL;
    tn_status s = wrap ? tn_topology_torus(nd, k, ports, NULL, &t, &err)
                       : tn_topology_mesh(nd, k, ports, NULL, &t, &err);
    TN_REQUIRE(ctx, s == TN_OK);
    tn_routes* r = NULL;
    TN_REQUIRE_MSG(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK, "%s", err.message);
    uint32_t n = tn_topology_npu_count(t);
    uint32_t ca[8], cb[8];
    int ok_dist = 1, ok_nh = 1, ok_paths = 1;
    uint32_t* buf = malloc(sizeof(*buf) * 64);
    uint32_t maxd = 0;
    for (uint32_t a = 0; a < n; a++)
    {
        tn_topology_npu_coords(t, a, ca, &err);
        for (uint32_t b = 0; b < n; b++)
        {
            tn_topology_npu_coords(t, b, cb, &err);
            uint32_t want = 0;
            uint32_t nh = 0;
            uint64_t paths_mult = 1;
            for (uint32_t d = 0; d < nd; d++)
            {
                uint32_t dd = wrap ? ring_dist(ca[d], cb[d], k[d])
                                   : (ca[d] > cb[d] ? ca[d] - cb[d] : cb[d] - ca[d]);
                want += dd;
                if (dd)
                {
                    /* both directions are shortest when the offset is exactly k/2 (k > 2) */
                    uint32_t dirs = (wrap && k[d] > 2 && 2 * dd == k[d]) ? 2 : 1;
                    nh += dirs * ports;
                    paths_mult *= dirs;
                }
            }
            uint32_t got = tn_routes_distance(r, a, b);
            ok_dist &= got == want;
            ok_dist &= tn_routes_distance_rank(r, a, b) == want;
            maxd = want > maxd ? want : maxd;
            ok_nh &= tn_routes_next_hops(r, a, b, buf, 64) == nh;
            {
                /* multinomial over the moves, times ports choices per hop */
                uint64_t paths = 1;
                uint32_t left = want;
                for (uint32_t d = 0; d < nd; d++)
                {
                    uint32_t dd = wrap ? ring_dist(ca[d], cb[d], k[d])
                                       : (ca[d] > cb[d] ? ca[d] - cb[d] : cb[d] - ca[d]);
                    paths *= binom(left, dd);
                    left -= dd;
                }
                paths *= paths_mult * ipow(ports, want);
                uint64_t cnt = 0;
                TN_CHECK_EQ(ctx, tn_routes_path_count(r, a, b, &cnt, &err), TN_OK);
                ok_paths &= cnt == paths;
            }
        }
    }
    free(buf);
    TN_CHECK_MSG(ctx, ok_dist, "%s distances", wrap ? "torus wraparound" : "mesh Manhattan");
    TN_CHECK_MSG(ctx, ok_nh, "%s next-hop counts", wrap ? "torus" : "mesh");
    TN_CHECK_MSG(ctx, ok_paths, "%s path counts", wrap ? "torus" : "mesh");
    uint32_t diam = 0;
    for (uint32_t d = 0; d < nd; d++)
    {
        diam += wrap ? k[d] / 2 : k[d] - 1;
    }
    TN_CHECK_EQ(ctx, maxd, diam);
    TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(r), diam);
    TN_CHECK(ctx, tn_routes_npus_forward(r));
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

static void
test_torus_mesh(tn_test_ctx* ctx)
{
    uint32_t k44[] = {4, 4};
    uint32_t k55[] = {5, 5};
    uint32_t k88[] = {8, 8};
    uint32_t k444[] = {4, 4, 4};
    uint32_t k46[] = {4, 6};
    uint32_t k23[] = {2, 3};
    check_torus(ctx, 1, 2, k44, 1);
    check_torus(ctx, 1, 2, k55, 1);
    check_torus(ctx, 1, 2, k88, 1);
    check_torus(ctx, 1, 3, k444, 2);
    check_torus(ctx, 1, 2, k23, 1);
    check_torus(ctx, 0, 2, k44, 1);
    check_torus(ctx, 0, 2, k46, 2);
    check_torus(ctx, 0, 3, k444, 1);
}

static void
test_ring_and_fc(tn_test_ctx* ctx)
{
    tn_error err;
    for (uint32_t n = 2; n <= 9; n++)
    {
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_ring(n, NULL, &t, &err) == TN_OK);
        tn_routes* r = NULL;
        TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
        int ok = 1;
        for (uint32_t a = 0; a < n; a++)
        {
            for (uint32_t b = 0; b < n; b++)
            {
                uint32_t d = ring_dist(a, b, n);
                ok &= tn_routes_distance(r, a, b) == d;
                uint32_t want = d == 0 ? 0 : (n > 2 && 2 * d == n ? 2 : 1);
                ok &= tn_routes_next_hops(r, a, b, NULL, 0) == want;
            }
        }
        TN_CHECK_MSG(ctx, ok, "ring:%u distances and next hops", n);
        TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(r), n / 2);
        tn_routes_destroy(r);
        tn_topology_destroy(t);

        TN_REQUIRE(ctx, tn_topology_fully_connected(n, NULL, &t, &err) == TN_OK);
        TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(r), 1);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, 0, n - 1, NULL, 0), 1);
        tn_routes_destroy(r);
        tn_topology_destroy(t);
    }
}

static void
test_fat_tree(tn_test_ctx* ctx)
{
    static const uint32_t ks[] = {4, 6, 8};
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
    {
        uint32_t k = ks[i];
        uint32_t h = k / 2;
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_fat_tree(k, NULL, &t, &err) == TN_OK);
        tn_routes* r = NULL;
        TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
        TN_CHECK(ctx, !tn_routes_npus_forward(r));
        uint32_t hosts = k * k * k / 4;
        uint32_t per_pod = k * k / 4;
        int ok = 1;
        for (uint32_t a = 0; a < hosts; a++)
        {
            for (uint32_t b = 0; b < hosts; b++)
            {
                uint32_t want;
                uint64_t paths;
                if (a == b)
                {
                    want = 0;
                    paths = 1;
                }
                else if (a / h == b / h)
                {
                    want = 2;
                    paths = 1;
                }
                else if (a / per_pod == b / per_pod)
                {
                    want = 4;
                    paths = h;
                }
                else
                {
                    want = 6;
                    paths = (uint64_t)h * h;
                }
                ok &= tn_routes_distance(r, a, b) == want;
                uint64_t cnt = 0;
                ok &= tn_routes_path_count(r, a, b, &cnt, &err) == TN_OK && cnt == paths;
            }
        }
        TN_CHECK_MSG(ctx, ok, "fattree k=%u distances 2/4/6 and path counts 1, k/2, (k/2)^2", k);
        /* next hops per tier for host 0 -> a host in the last pod */
        uint32_t dst = hosts - 1;
        uint32_t edge0 = hosts;             /* host 0's edge switch */
        uint32_t agg0 = hosts + k * h;      /* first aggregation switch of pod 0 */
        uint32_t core0 = hosts + 2 * k * h; /* first core switch */
        uint32_t agg_last = agg0 + (k - 1) * h;
        uint32_t edge_last = hosts + k * h - 1;
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, 0, dst, NULL, 0), 1);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, edge0, dst, NULL, 0), h);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, agg0, dst, NULL, 0), h);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, core0, dst, NULL, 0), 1);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, agg_last, dst, NULL, 0), 1);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, edge_last, dst, NULL, 0), 1);
        /* same pod, other edge: up k/2 ways at the edge, then down one way */
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, edge0, h, NULL, 0), h);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, agg0, h, NULL, 0), 1);
        TN_CHECK_EQ(ctx, tn_routes_distance(r, core0, dst), 3);
        TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(r), 6);
        TN_CHECK(ctx, next_hops_sound(r));
        tn_routes_destroy(r);
        tn_topology_destroy(t);
    }
}

static void
test_leaf_spine_bigraph(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    uint32_t L = 4, S = 3, H = 5;
    TN_REQUIRE(ctx, tn_topology_leaf_spine(L, S, H, 1.0, NULL, &t, &err) == TN_OK);
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    int ok = 1;
    for (uint32_t a = 0; a < L * H; a++)
    {
        for (uint32_t b = 0; b < L * H; b++)
        {
            uint32_t want = a == b ? 0 : a / H == b / H ? 2 : 4;
            uint64_t paths = a / H == b / H ? 1 : S;
            uint64_t cnt = 0;
            ok &= tn_routes_distance(r, a, b) == want;
            ok &= tn_routes_path_count(r, a, b, &cnt, &err) == TN_OK && cnt == paths;
        }
    }
    TN_CHECK_MSG(ctx, ok, "leafspine distances 2/4, S paths across leaves");
    TN_CHECK_EQ(ctx, tn_routes_next_hops(r, L * H, L * H - 1, NULL, 0), S);
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);
    tn_topology_destroy(t);

    /* BiGraph n x m with P cables per pair: same switch 2 hops / 1 path; upper-lower
       3 hops / P paths; same half 4 hops / (n/2) P^2 paths */
    uint32_t n = 4, m = 8;
    TN_REQUIRE(ctx, tn_topology_bigraph(n, m, 2, NULL, &t, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    uint32_t P = 2;
    ok = 1;
    for (uint32_t a = 0; a < n * m; a++)
    {
        for (uint32_t b = 0; b < n * m; b++)
        {
            uint32_t sa = a / m, sb = b / m;
            uint32_t want;
            uint64_t paths;
            if (a == b)
            {
                want = 0;
                paths = 1;
            }
            else if (sa == sb)
            {
                want = 2;
                paths = 1;
            }
            else if ((sa < n / 2) != (sb < n / 2))
            {
                want = 3;
                paths = P;
            }
            else
            {
                want = 4;
                paths = (uint64_t)(n / 2) * P * P;
            }
            uint64_t cnt = 0;
            ok &= tn_routes_distance(r, a, b) == want;
            ok &= tn_routes_path_count(r, a, b, &cnt, &err) == TN_OK && cnt == paths;
        }
    }
    TN_CHECK_MSG(ctx, ok, "bigraph distances 2/3/4 and path counts");
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

static void
test_no_host_transit(tn_test_ctx* ctx)
{
    /* y - A - x - B - z with a longer switch chain A - C - D - B: hosts do not
       forward, so y -> z takes the 5-hop switch path, not the 4-hop path via x */
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    uint32_t x, y, z, A, B, C, D;
    uint64_t cnt = 0;
    tn_topology_add_node(t, TN_NODE_NPU, &x, &err);
    tn_topology_add_node(t, TN_NODE_NPU, &y, &err);
    tn_topology_add_node(t, TN_NODE_NPU, &z, &err);
    tn_topology_add_node(t, TN_NODE_SWITCH, &A, &err);
    tn_topology_add_node(t, TN_NODE_SWITCH, &B, &err);
    tn_topology_add_node(t, TN_NODE_SWITCH, &C, &err);
    tn_topology_add_node(t, TN_NODE_SWITCH, &D, &err);
    uint32_t pairs[][2] = {{y, A}, {A, x}, {x, B}, {B, z}, {A, C}, {C, D}, {D, B}};
    for (size_t i = 0; i < 7; i++)
    {
        TN_CHECK_EQ(
            ctx,
            tn_topology_add_link(t, pairs[i][0], pairs[i][1], 1000, 1, -1, NULL, NULL, &err),
            TN_OK);
    }
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK(ctx, !tn_routes_npus_forward(r));
    TN_CHECK_EQ(ctx, tn_routes_distance(r, y, z), 5);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, y, x), 2);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, x, z), 2);
    TN_CHECK_EQ(ctx, tn_routes_next_hops(r, A, z, NULL, 0), 1);
    uint32_t link;
    TN_CHECK_EQ(ctx, tn_routes_next_hops(r, A, z, &link, 1), 1);
    TN_CHECK_EQ(ctx, tn_topology_link(t, link)->dst, C);
    uint32_t path[8], len = 0;
    TN_CHECK_EQ(ctx, tn_routes_path(r, y, z, 7, path, 8, &len, &err), TN_OK);
    TN_CHECK_EQ(ctx, len, 5);
    int ok = 1;
    for (uint32_t i = 0; i + 1 < len; i++)
    {
        ok &= tn_topology_node_kind(t, tn_topology_link(t, path[i])->dst) == TN_NODE_SWITCH;
    }
    TN_CHECK(ctx, ok);
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);

    /* the same graph with NPU forwarding allowed takes the path through x */
    tn_routes_options opt = {NULL, 0, TN_TRANSIT_ALL_NODES, TN_ROUTE_SHORTEST, false};
    TN_REQUIRE(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, y, z), 4);
    tn_routes_destroy(r);
    tn_topology_set_npus_forward(t, true);
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, y, z), 4);
    tn_routes_destroy(r);
    opt.transit = TN_TRANSIT_SWITCHES_ONLY;
    TN_REQUIRE(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, y, z), 5);
    tn_routes_destroy(r);
    tn_topology_destroy(t);

    /* equal length: y - A - x - B - z and y - A - C - B - z; only the switch
       path counts when hosts do not forward */
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    tn_topology_add_nodes(t, TN_NODE_NPU, 3, &x, &err);
    y = x + 1;
    z = x + 2;
    tn_topology_add_nodes(t, TN_NODE_SWITCH, 3, &A, &err);
    B = A + 1;
    C = A + 2;
    uint32_t pairs2[][2] = {{y, A}, {A, x}, {x, B}, {B, z}, {A, C}, {C, B}};
    for (size_t i = 0; i < 6; i++)
    {
        TN_CHECK_EQ(
            ctx,
            tn_topology_add_link(t, pairs2[i][0], pairs2[i][1], 1000, 1, -1, NULL, NULL, &err),
            TN_OK);
    }
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, y, z), 4);
    TN_CHECK_EQ(ctx, tn_routes_next_hops(r, A, z, &link, 1), 1);
    TN_CHECK_EQ(ctx, tn_topology_link(t, link)->dst, C);
    TN_CHECK_EQ(ctx, tn_routes_path_count(r, y, z, &cnt, &err), TN_OK);
    TN_CHECK_EQ(ctx, cnt, 1);
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);
    opt.transit = TN_TRANSIT_ALL_NODES;
    TN_REQUIRE(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_next_hops(r, A, z, NULL, 0), 2);
    TN_CHECK_EQ(ctx, tn_routes_path_count(r, y, z, &cnt, &err), TN_OK);
    TN_CHECK_EQ(ctx, cnt, 2);
    tn_routes_destroy(r);
    tn_topology_destroy(t);

    /* a host linked to two leaves of a switched net is never a transit node */
    TN_REQUIRE(
        ctx,
        tn_topology_load_text("5 2 4\n3 4\n0 3 1Gbps 1us 0\n0 4 1Gbps 1us 0\n1 3 1Gbps 1us 0\n"
                              "2 4 1Gbps 1us 0\n",
                              "dual",
                              &t,
                              &err) == TN_OK);
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 1, 2), TN_ROUTES_UNREACHABLE);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 1, 0), 2);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 2), 2);
    cnt = 5;
    TN_CHECK_EQ(ctx, tn_routes_path_count(r, 1, 2, &cnt, &err), TN_OK);
    TN_CHECK_EQ(ctx, cnt, 0);
    TN_CHECK_EQ(ctx, tn_routes_path(r, 1, 2, 0, path, 8, &len, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "unreachable") != NULL);
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

static void
test_hier(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("hier:ring4@200Gbps+switch8@100Gbps", &t, &err) == TN_OK);
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK(ctx, tn_routes_npus_forward(r));
    int ok = 1;
    for (uint32_t a = 0; a < 32; a++)
    {
        for (uint32_t b = 0; b < 32; b++)
        {
            /* ring hops (wraparound) + 2 hops through the switch when the switch coordinate differs
             */
            uint32_t want = ring_dist(a % 4, b % 4, 4) + (a / 4 != b / 4 ? 2 : 0);
            ok &= tn_routes_distance(r, a, b) == want;
        }
    }
    TN_CHECK_MSG(ctx, ok, "hier ring4+switch8 distances");
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

static void
test_paths(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_fat_tree(4, NULL, &t, &err) == TN_OK);
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    uint32_t path[8], again[8], len = 0, len2 = 0;
    int ok = 1;
    uint32_t distinct_second_hop = 0;
    uint32_t seen[64] = {0};
    for (uint64_t hash = 0; hash < 64; hash++)
    {
        TN_CHECK_EQ(ctx, tn_routes_path(r, 0, 15, hash, path, 8, &len, &err), TN_OK);
        TN_CHECK_EQ(ctx, tn_routes_path(r, 0, 15, hash, again, 8, &len2, &err), TN_OK);
        ok &= len == 6 && len2 == 6 && memcmp(path, again, sizeof(path[0]) * 6) == 0;
        uint32_t v = 0;
        for (uint32_t i = 0; i < len; i++)
        {
            const tn_link* l = tn_topology_link(t, path[i]);
            ok &= l->src == v && tn_routes_distance(r, l->dst, 15) == 5 - i;
            v = l->dst;
        }
        ok &= v == 15;
        /* link 2 of the path is agg -> core: 4 (k/2)^2 choices overall */
        uint32_t core = tn_topology_link(t, path[2])->dst;
        if (core < 64 && !seen[core])
        {
            seen[core] = 1;
            distinct_second_hop++;
        }
    }
    TN_CHECK_MSG(ctx, ok, "paths are contiguous shortest paths and deterministic");
    /* the hash spreads flows over every core switch (k/2)^2 = 4 */
    TN_CHECK_EQ(ctx, distinct_second_hop, 4);
    TN_CHECK_EQ(ctx, tn_routes_path(r, 3, 3, 1, NULL, 0, &len, &err), TN_OK);
    TN_CHECK_EQ(ctx, len, 0);
    TN_CHECK_EQ(ctx, tn_routes_path(r, 0, 15, 1, path, 5, &len, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "cap 5 < path length 6") != NULL);
    TN_CHECK_EQ(ctx, tn_routes_path(r, 0, 16, 1, path, 8, &len, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "dst 16 is not a routed destination") != NULL);
    uint32_t pick_hist[3] = {0, 0, 0};
    for (uint64_t hsh = 0; hsh < 3000; hsh++)
    {
        pick_hist[tn_routes_hash_pick(hsh, 7, 3)]++;
    }
    TN_CHECK(ctx, pick_hist[0] > 900 && pick_hist[1] > 900 && pick_hist[2] > 900);
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

static void
test_dest_subset(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_fat_tree(4, NULL, &t, &err) == TN_OK);
    uint32_t dests[] = {5, 20, 0}; /* 20 is an edge switch */
    tn_routes_options opt = {dests, 3, TN_TRANSIT_TOPOLOGY, TN_ROUTE_SHORTEST, false};
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_routes_dest_count(r), 3);
    TN_CHECK_EQ(ctx, tn_routes_dest_node(r, 1), 20);
    TN_CHECK(ctx, tn_routes_is_dest(r, 20));
    TN_CHECK(ctx, !tn_routes_is_dest(r, 1));
    /* hosts 5 (pod 1) and 0 (pod 0): 6 hops both ways */
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 5, 0), 6);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 5), 6);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 1), TN_ROUTES_UNREACHABLE);
    TN_CHECK_EQ(ctx, tn_routes_next_hops(r, 0, 1, NULL, 0), 0);
    /* edge switch 20 = pod 2 edge 0: host 0 reaches it via edge, agg, core, agg */
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 20), 5);
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 8, 20), 1);
    tn_routes_destroy(r);

    uint32_t dup[] = {1, 2, 1};
    opt.dest_nodes = dup;
    tn_routes* bad = (tn_routes*)&bad;
    TN_CHECK_EQ(ctx, tn_routes_create(t, &opt, &bad, &err), TN_EINVAL);
    TN_CHECK(ctx, bad == NULL);
    TN_CHECK(ctx, strstr(err.message, "dest_nodes[2] = 1 is a duplicate") != NULL);
    uint32_t out_of_range[] = {999};
    opt.dest_nodes = out_of_range;
    opt.dest_count = 1;
    TN_CHECK_EQ(ctx, tn_routes_create(t, &opt, &bad, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "dest_nodes[0] = 999") != NULL);
    TN_CHECK_EQ(ctx, tn_routes_create(NULL, NULL, &bad, &err), TN_EINVAL);
    tn_routes_destroy(NULL);
    tn_topology_destroy(t);
}

static void
test_large(tn_test_ctx* ctx)
{
    tn_error err;
    /* a 2048-port single switch */
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_switch(2048, NULL, &t, &err) == TN_OK);
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    int ok = 1;
    for (uint32_t a = 0; a < 2048; a += 37)
    {
        for (uint32_t b = 0; b < 2048; b++)
        {
            ok &= tn_routes_distance(r, a, b) == (a == b ? 0u : 2u);
        }
    }
    uint32_t link;
    ok &= tn_routes_next_hops(r, 2048, 1234, &link, 1) == 1;
    ok &= tn_topology_link(t, link)->dst == 1234 && tn_topology_link(t, link)->src_port == 1234;
    TN_CHECK_MSG(ctx, ok, "2048-port switch");
    TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(r), 2);
    tn_routes_destroy(r);
    tn_topology_destroy(t);

    /* 16x16x16 torus, all 4096 destinations */
    uint32_t k[] = {16, 16, 16};
    TN_REQUIRE(ctx, tn_topology_torus(3, k, 1, NULL, &t, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    ok = 1;
    uint32_t ca[3], cb[3];
    for (uint32_t a = 0; a < 4096; a += 101)
    {
        tn_topology_npu_coords(t, a, ca, &err);
        for (uint32_t b = 0; b < 4096; b += 7)
        {
            tn_topology_npu_coords(t, b, cb, &err);
            uint32_t want = ring_dist(ca[0], cb[0], 16) + ring_dist(ca[1], cb[1], 16) +
                            ring_dist(ca[2], cb[2], 16);
            ok &= tn_routes_distance(r, a, b) == want;
        }
    }
    TN_CHECK_MSG(ctx, ok, "16x16x16 torus distances");
    TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(r), 24);
    uint64_t cnt = 0;
    /* opposite corner (8,8,8): 2 directions in each dim; 24!/(8!)^3 * 2^3 paths */
    TN_CHECK_EQ(ctx, tn_routes_path_count(r, 0, 8 + 16 * 8 + 256 * 8, &cnt, &err), TN_OK);
    TN_CHECK_EQ(ctx, cnt, binom(24, 8) * binom(16, 8) * 8);
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

/* The distance table starts at one byte per entry and widens when a search finds a path of
 * 255 hops or more, and again at 65535: ring:600 has distances up to 300 (every destination
 * widens, the rows before the first long one are converted), a ring of 140,000 routed to 3
 * destinations has 70,000. Every distance is checked against the closed form, unreachable
 * ones included (a destination subset). */
static void
test_wide_distances(tn_test_ctx* ctx)
{
    tn_error err;
    const uint32_t sizes[] = {254, 600, 140000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    {
        const uint32_t n = sizes[i];
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_ring(n, NULL, &t, &err) == TN_OK);
        uint32_t dest[] = {0, n / 3, n - 1};
        tn_routes_options opt;
        memset(&opt, 0, sizeof(opt));
        opt.dest_nodes = dest;
        opt.dest_count = 3;
        tn_routes* r = NULL;
        TN_REQUIRE(ctx, tn_routes_create(t, n > 1000 ? &opt : NULL, &r, &err) == TN_OK);
        int ok = 1;
        uint32_t far = 0;
        for (uint32_t a = 0; a < n; a += (n > 1000 ? 7 : 1))
        {
            for (uint32_t b = 0; b < n; b++)
            {
                const bool routed = n <= 1000 || b == dest[0] || b == dest[1] || b == dest[2];
                if (n > 1000 && !routed)
                {
                    continue;
                }
                const uint32_t d = tn_routes_distance(r, a, b);
                ok &= d == ring_dist(a, b, n);
                far = d > far ? d : far;
            }
        }
        TN_CHECK_MSG(ctx, ok, "ring:%u distances past the table's narrow widths", n);
        TN_CHECK_MSG(ctx,
                     n < 510 || far >= (n > 131070 ? 65535u : 255u),
                     "ring:%u: longest distance checked %u",
                     n,
                     far);
        TN_CHECK_EQ(ctx, tn_routes_next_hops(r, 1, 0, NULL, 0), 1);
        tn_routes_destroy(r);
        tn_topology_destroy(t);
    }
}

/* Dimension order on a torus or mesh: every path corrects dim 0, then dim 1, ..., each by
   its shortest offset; at a node the next hops all lie in the lowest dim still to correct;
   the number of paths is the number of tied directions (2 per dim whose ring offset is
   exactly k/2) times the parallel cables, not the multinomial of the default order. */
static void
check_dimension_order(tn_test_ctx* ctx, int wrap, uint32_t nd, const uint32_t* k, uint32_t ports)
{
    tn_error err;
    tn_topology* t = NULL;
    tn_status s = wrap ? tn_topology_torus(nd, k, ports, NULL, &t, &err)
                       : tn_topology_mesh(nd, k, ports, NULL, &t, &err);
    TN_REQUIRE(ctx, s == TN_OK);
    tn_routes_options o;
    memset(&o, 0, sizeof(o));
    o.order = TN_ROUTE_DIMENSION_ORDER;
    tn_routes* r = NULL;
    TN_REQUIRE_MSG(ctx, tn_routes_create(t, &o, &r, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_routes_order(r), TN_ROUTE_DIMENSION_ORDER);
    uint32_t n = tn_topology_npu_count(t);
    uint32_t ca[8], cb[8];
    uint32_t path[64], hops[64];
    int ok_count = 1, ok_order = 1, ok_next = 1, ok_len = 1;
    for (uint32_t a = 0; a < n; a++)
    {
        tn_topology_npu_coords(t, a, ca, &err);
        for (uint32_t b = 0; b < n; b++)
        {
            tn_topology_npu_coords(t, b, cb, &err);
            uint32_t want = 0, first = nd;
            uint64_t paths = 1;
            uint32_t per_dim[8];
            for (uint32_t d = 0; d < nd; d++)
            {
                uint32_t dd = wrap ? ring_dist(ca[d], cb[d], k[d])
                                   : (ca[d] > cb[d] ? ca[d] - cb[d] : cb[d] - ca[d]);
                per_dim[d] = dd;
                want += dd;
                first = dd && first == nd ? d : first;
                paths *= (wrap && k[d] > 2 && dd && 2 * dd == k[d]) ? 2 : 1;
            }
            paths *= ipow(ports, want);
            uint64_t cnt = 0;
            TN_CHECK_EQ(ctx, tn_routes_path_count(r, a, b, &cnt, &err), TN_OK);
            ok_count &= cnt == paths;
            uint32_t c = tn_routes_next_hops(r, a, b, hops, 64);
            ok_next &= (c == 0) == (a == b);
            for (uint32_t h = 0; h < c && h < 64; h++)
            {
                ok_next &= (uint32_t)tn_topology_link(t, hops[h])->dim == first;
            }
            for (uint64_t hash = 0; hash < 4; hash++)
            {
                uint32_t len = 0;
                TN_CHECK_EQ(ctx,
                            tn_routes_path(r, a, b, hash * 0x9E37u, path, 64, &len, &err),
                            TN_OK);
                ok_len &= len == want;
                uint32_t seen[8] = {0};
                int last = -1;
                for (uint32_t h = 0; h < len; h++)
                {
                    int dim = tn_topology_link(t, path[h])->dim;
                    ok_order &= dim >= last && dim >= 0 && (uint32_t)dim < nd;
                    last = dim;
                    if (dim >= 0 && (uint32_t)dim < nd)
                    {
                        seen[dim]++;
                    }
                }
                for (uint32_t d = 0; d < nd; d++)
                {
                    ok_order &= seen[d] == per_dim[d];
                }
                ok_order &= len == 0 || tn_topology_link(t, path[len - 1])->dst == b;
            }
        }
    }
    TN_CHECK_MSG(ctx, ok_count, "%s dimension-order path counts", wrap ? "torus" : "mesh");
    TN_CHECK_MSG(ctx,
                 ok_next,
                 "%s next hops in the lowest dim to correct",
                 wrap ? "torus" : "mesh");
    TN_CHECK_MSG(ctx, ok_len, "%s dimension-order paths are shortest", wrap ? "torus" : "mesh");
    TN_CHECK_MSG(ctx, ok_order, "%s paths correct dim 0 first", wrap ? "torus" : "mesh");
    TN_CHECK(ctx, next_hops_sound(r));
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

static void
test_dimension_order(tn_test_ctx* ctx)
{
    uint32_t k44[] = {4, 4};
    uint32_t k55[] = {5, 5};
    uint32_t k444[] = {4, 4, 4};
    uint32_t k46[] = {4, 6};
    check_dimension_order(ctx, 0, 2, k44, 1);
    check_dimension_order(ctx, 0, 2, k46, 2);
    check_dimension_order(ctx, 0, 3, k444, 1);
    check_dimension_order(ctx, 1, 2, k44, 1);
    check_dimension_order(ctx, 1, 2, k55, 1);
    check_dimension_order(ctx, 1, 3, k444, 2);

    /* the default order keeps every shortest path: a mesh corner to corner has C(6,3) */
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("mesh:4x4", &t, &err) == TN_OK);
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    uint64_t cnt = 0;
    TN_CHECK_EQ(ctx, tn_routes_path_count(r, 0, 15, &cnt, &err), TN_OK);
    TN_CHECK_EQ(ctx, cnt, 20);
    TN_CHECK_EQ(ctx, tn_routes_order(r), TN_ROUTE_SHORTEST);
    tn_routes_destroy(r);

    /* names and a bad value */
    tn_route_order order = TN_ROUTE_SHORTEST;
    TN_CHECK(ctx, tn_route_order_parse("dimension-order", &order));
    TN_CHECK_EQ(ctx, order, TN_ROUTE_DIMENSION_ORDER);
    TN_CHECK(ctx, !tn_route_order_parse("xy", &order));
    TN_CHECK(ctx, strcmp(tn_route_order_name(TN_ROUTE_SHORTEST), "shortest") == 0);
    tn_routes_options o;
    memset(&o, 0, sizeof(o));
    o.order = (tn_route_order)7;
    r = NULL;
    TN_CHECK_EQ(ctx, tn_routes_create(t, &o, &r, &err), TN_EINVAL);
    TN_CHECK(ctx, r == NULL && strstr(err.message, "options.order 7") != NULL);
    tn_topology_destroy(t);
}

/* Up/down: every ECMP path of a fat-tree and a leaf-spine is up/down; a hand-built
   fat-tree route that goes down to an edge and up again, and the planned routes of a ring
   of three switches that all turn the same way (the PFC deadlock of a switch ring), are
   not, and the turn is the hop that goes up after the down. */
static void
test_up_down(tn_test_ctx* ctx)
{
    tn_error err;
    const char* specs[] = {"fattree:4", "leafspine:leaves=4,spines=2,hosts=4"};
    for (int i = 0; i < 2; i++)
    {
        tn_topology* t = NULL;
        TN_REQUIRE_MSG(ctx, tn_topology_from_spec(specs[i], &t, &err) == TN_OK, "%s", err.message);
        tn_routes* r = NULL;
        TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
        uint32_t n = tn_topology_npu_count(t), path[16], len = 0;
        int ok = 1;
        for (uint32_t a = 0; a < n; a++)
        {
            for (uint32_t b = 0; b < n; b++)
            {
                for (uint64_t hash = 0; hash < 3; hash++)
                {
                    uint32_t sa = tn_topology_npu_node(t, a), sb = tn_topology_npu_node(t, b);
                    ok &= tn_routes_path(r, sa, sb, hash * 7919, path, 16, &len, &err) == TN_OK;
                    ok &= tn_routes_up_down_turn(r, path, len) == UINT32_MAX;
                }
            }
        }
        TN_CHECK_MSG(ctx, ok, "%s: ECMP paths are up/down", specs[i]);
        TN_CHECK_EQ(ctx, tn_routes_level(r, tn_topology_npu_node(t, 0)), 0);
        if (i == 0)
        {
            /* NPU 0 -> its edge -> an aggregation switch -> down to the other edge of the pod
               -> up again to the aggregation switch: the fourth hop turns */
            uint32_t npu = tn_topology_npu_node(t, 0), deg, deg2, deg3;
            const uint32_t* o = tn_topology_out_links(t, npu, &deg);
            uint32_t edge = tn_topology_link(t, o[0])->dst;
            TN_CHECK_EQ(ctx, tn_routes_level(r, edge), 1);
            const uint32_t* oe = tn_topology_out_links(t, edge, &deg2);
            uint32_t up = TN_TOPO_NONE;
            for (uint32_t p = 0; p < deg2 && up == TN_TOPO_NONE; p++)
            {
                up = tn_routes_level(r, tn_topology_link(t, oe[p])->dst) == 2 ? oe[p] : up;
            }
            TN_REQUIRE(ctx, up != TN_TOPO_NONE);
            uint32_t agg = tn_topology_link(t, up)->dst;
            TN_CHECK_EQ(ctx, tn_routes_level(r, agg), 2);
            const uint32_t* oa = tn_topology_out_links(t, agg, &deg3);
            uint32_t down = TN_TOPO_NONE;
            for (uint32_t p = 0; p < deg3 && down == TN_TOPO_NONE; p++)
            {
                uint32_t w = tn_topology_link(t, oa[p])->dst;
                down = w != edge && tn_routes_level(r, w) == 1 ? oa[p] : down;
            }
            TN_REQUIRE(ctx, down != TN_TOPO_NONE);
            uint32_t back = TN_TOPO_NONE;
            const uint32_t* ob = tn_topology_out_links(t, tn_topology_link(t, down)->dst, &deg2);
            for (uint32_t p = 0; p < deg2 && back == TN_TOPO_NONE; p++)
            {
                back = tn_topology_link(t, ob[p])->dst == agg ? ob[p] : back;
            }
            uint32_t bad[] = {o[0], up, down, back};
            TN_CHECK_EQ(ctx, tn_routes_up_down_turn(r, bad, 4), 3);
            TN_CHECK_EQ(ctx, tn_routes_up_down_turn(r, bad, 3), UINT32_MAX);
        }
        tn_routes_destroy(r);
        tn_topology_destroy(t);
    }

    /* three switches in a ring, one NPU on each; every route goes clockwise two hops */
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    uint32_t npu[3], sw[3], ring[3], host[3];
    for (int i = 0; i < 3; i++)
    {
        tn_topology_add_node(t, TN_NODE_NPU, &npu[i], &err);
    }
    for (int i = 0; i < 3; i++)
    {
        tn_topology_add_node(t, TN_NODE_SWITCH, &sw[i], &err);
    }
    for (int i = 0; i < 3; i++)
    {
        TN_REQUIRE(
            ctx,
            tn_topology_add_link(t, sw[i], sw[(i + 1) % 3], 1000, 1, -1, &ring[i], NULL, &err) ==
                TN_OK);
        TN_REQUIRE(ctx,
                   tn_topology_add_link(t, npu[i], sw[i], 1000, 1, -1, &host[i], NULL, &err) ==
                       TN_OK);
    }
    tn_routes* r = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK(ctx, !tn_routes_npus_forward(r));
    uint32_t turns = 0;
    for (int i = 0; i < 3; i++)
    {
        /* NPU i -> S_i -> S_(i+1) -> S_(i+2) -> NPU i+2 */
        uint32_t path[] = {host[i], ring[i], ring[(i + 1) % 3], host[(i + 2) % 3] + 1};
        uint32_t turn = tn_routes_up_down_turn(r, path, 4);
        turns += turn != UINT32_MAX;
        /* the ring hop S2 -> S0 goes down (same level, lower id); only the route of NPU 2
           goes up after it (S0 -> S1), which is what closes the ring's cycle */
        TN_CHECK_EQ(ctx, turn, i == 2 ? 2u : UINT32_MAX);
    }
    TN_CHECK_EQ(ctx, turns, 1);
    tn_routes_destroy(r);
    tn_topology_destroy(t);
}

void
tn_suite_routing(tn_test_suite* suite)
{
    tn_test_add(suite, "torus-mesh", test_torus_mesh);
    tn_test_add(suite, "ring-fc", test_ring_and_fc);
    tn_test_add(suite, "fat-tree", test_fat_tree);
    tn_test_add(suite, "leafspine-bigraph", test_leaf_spine_bigraph);
    tn_test_add(suite, "no-host-transit", test_no_host_transit);
    tn_test_add(suite, "hier", test_hier);
    tn_test_add(suite, "paths", test_paths);
    tn_test_add(suite, "dest-subset", test_dest_subset);
    tn_test_add(suite, "large", test_large);
    tn_test_add(suite, "wide-distances", test_wide_distances);
    tn_test_add(suite, "dimension-order", test_dimension_order);
    tn_test_add(suite, "up-down", test_up_down);
}
