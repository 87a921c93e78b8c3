/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of tn-topology: builder invariants, every generator's node/link/degree
 * counts against closed forms, per-dimension bandwidths, parameter errors, the
 * spec parser, unit parsing and the HPCC-style file loader. Over 1,000 lines for a reason:
 * one test per generator and per malformed spec, unit and file, all sharing the consistency
 * checks at the top (ports, mirrors, degrees).
 */
#include "tn-test.h"

#include "ns3/tn-routing.h"
#include "ns3/tn-shape.h"
#include "ns3/tn-topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE TN_TOPO_DEFAULT_RATE_BPS
#define LAT TN_TOPO_DEFAULT_LATENCY_NS

/* Every node's out_links[p] has src_port p, in_links[p] has dst_port p, the
   reverse link mirrors it, and link ids are increasing in port order. Returns 1
   when everything holds. */
static int
ports_consistent(const tn_topology* t)
{
    uint32_t nodes = tn_topology_node_count(t);
    uint64_t total = 0;
    for (uint32_t v = 0; v < nodes; v++)
    {
        uint32_t no, ni;
        const uint32_t* out = tn_topology_out_links(t, v, &no);
        const uint32_t* in = tn_topology_in_links(t, v, &ni);
        if (no != ni || no != tn_topology_degree(t, v))
        {
            return 0;
        }
        for (uint32_t p = 0; p < no; p++)
        {
            const tn_link* o = tn_topology_link(t, out[p]);
            const tn_link* i = tn_topology_link(t, in[p]);
            const tn_link* r = tn_topology_link(t, o->reverse);
            if (o->src != v || o->src_port != p || i->dst != v || i->dst_port != p)
            {
                return 0;
            }
            if (r->reverse != o->id || r->src != o->dst || r->dst != v || r->dst_port != p ||
                r->src_port != o->dst_port || r->id != in[p])
            {
                return 0;
            }
            if (p > 0 && out[p] <= out[p - 1])
            {
                return 0;
            }
        }
        total += no;
    }
    return total == tn_topology_link_count(t);
}

/* Sum of the rates of NPU `rank`'s outgoing links in dim d. */
static uint64_t
npu_dim_bw(const tn_topology* t, uint32_t rank, int d)
{
    uint32_t deg;
    const uint32_t* out = tn_topology_out_links(t, tn_topology_npu_node(t, rank), &deg);
    uint64_t sum = 0;
    for (uint32_t p = 0; p < deg; p++)
    {
        const tn_link* l = tn_topology_link(t, out[p]);
        if (l->dim == d)
        {
            sum += l->rate_bps;
        }
    }
    return sum;
}

static int
contains(const char* text, const char* part)
{
    return strstr(text, part) != NULL;
}

static void
test_builder(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    uint32_t a, b, s, first;
    TN_CHECK_EQ(ctx, tn_topology_add_node(t, TN_NODE_NPU, &a, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_add_node(t, TN_NODE_SWITCH, &s, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_add_nodes(t, TN_NODE_NPU, 3, &first, &err), TN_OK);
    b = first;
    TN_CHECK_EQ(ctx, a, 0);
    TN_CHECK_EQ(ctx, s, 1);
    TN_CHECK_EQ(ctx, first, 2);
    TN_CHECK_EQ(ctx, tn_topology_node_count(t), 5);
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), 4);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), 1);
    /* ranks: NPUs in increasing id order, the switch has none */
    TN_CHECK_EQ(ctx, tn_topology_node_rank(t, 0), 0);
    TN_CHECK_EQ(ctx, tn_topology_node_rank(t, 1), TN_TOPO_NONE);
    TN_CHECK_EQ(ctx, tn_topology_node_rank(t, 2), 1);
    TN_CHECK_EQ(ctx, tn_topology_node_rank(t, 4), 3);
    TN_CHECK_EQ(ctx, tn_topology_npu_node(t, 3), 4);
    TN_CHECK_EQ(ctx, tn_topology_npu_node(t, 4), TN_TOPO_NONE);
    TN_CHECK_EQ(ctx, tn_topology_node_kind(t, 1), TN_NODE_SWITCH);
    /* no switch... there is one: NPUs do not forward by default */
    TN_CHECK(ctx, !tn_topology_npus_forward(t));

    uint32_t ab, ba;
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, a, s, 1000, 5, -1, &ab, &ba, &err), TN_OK);
    TN_CHECK_EQ(ctx, ab, 0);
    TN_CHECK_EQ(ctx, ba, 1);
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, b, s, 2000, 6, -1, NULL, NULL, &err), TN_OK);
    /* two parallel cables a - b */
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, a, b, 3000, 7, -1, &ab, &ba, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, b, a, 4000, 8, -1, NULL, NULL, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 8);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, a), 3);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, s), 2);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, 3), 0);
    const tn_link* l = tn_topology_link(t, ab);
    TN_CHECK_EQ(ctx, l->src, a);
    TN_CHECK_EQ(ctx, l->dst, b);
    TN_CHECK_EQ(ctx, l->src_port, 1);
    TN_CHECK_EQ(ctx, l->dst_port, 1);
    TN_CHECK_EQ(ctx, l->rate_bps, 3000);
    TN_CHECK_EQ(ctx, l->latency_ns, 7);
    TN_CHECK_EQ(ctx, l->dim, -1);
    TN_CHECK_NEAR(ctx, l->error_rate, 0.0, 0.0);
    TN_CHECK(ctx, ports_consistent(t));
    TN_CHECK_EQ(ctx, tn_topology_find_link(t, a, b), 4);
    TN_CHECK_EQ(ctx, tn_topology_find_link(t, b, a), 5);
    TN_CHECK_EQ(ctx, tn_topology_find_link(t, a, 3), TN_TOPO_NONE);
    uint32_t ids[4];
    TN_CHECK_EQ(ctx, tn_topology_links_between(t, a, b, ids, 4), 2);
    TN_CHECK_EQ(ctx, ids[0], 4);
    TN_CHECK_EQ(ctx, ids[1], 7); /* b->a cable: its reverse a->b is 6+1 */
    TN_CHECK_EQ(ctx, tn_topology_links_between(t, a, b, ids, 1), 2);
    TN_CHECK_EQ(ctx, tn_topology_links_between(t, b, a, NULL, 0), 2);

    TN_CHECK_EQ(ctx, tn_topology_set_link_error_rate(t, 3, 0.25, &err), TN_OK);
    TN_CHECK_NEAR(ctx, tn_topology_link(t, 3)->error_rate, 0.25, 0.0);
    TN_CHECK_EQ(ctx, tn_topology_set_link_error_rate(t, 3, 1.5, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "error_rate"));

    /* errors name the argument */
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, a, a, 1, 1, -1, NULL, NULL, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "self loop"));
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, a, 99, 1, 1, -1, NULL, NULL, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "node b = 99"));
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, a, b, 0, 1, -1, NULL, NULL, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "rate_bps"));
    TN_CHECK_EQ(ctx, tn_topology_add_link(t, a, b, 1, 1, -2, NULL, NULL, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "dim"));
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 8);

    /* dims: the product must equal the NPU count */
    tn_dim_info dims[2] = {{TN_DIM_CUSTOM, 2, 1, 1}, {TN_DIM_CUSTOM, 3, 1, 1}};
    TN_CHECK_EQ(ctx, tn_topology_set_dims(t, 2, dims, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "product"));
    dims[1].size = 2;
    TN_CHECK_EQ(ctx, tn_topology_set_dims(t, 2, dims, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_dim_count(t), 2);
    tn_topology_set_npus_forward(t, true);
    TN_CHECK(ctx, tn_topology_npus_forward(t));
    TN_CHECK(ctx, strcmp(tn_topology_name(t), "custom") == 0);
    TN_CHECK_EQ(ctx, tn_topology_set_name(t, "mine", &err), TN_OK);
    TN_CHECK(ctx, strcmp(tn_topology_name(t), "mine") == 0);
    tn_topology_destroy(t);

    /* a topology without switches forwards through NPUs */
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_add_nodes(t, TN_NODE_NPU, 2, NULL, &err), TN_OK);
    TN_CHECK(ctx, tn_topology_npus_forward(t));
    tn_topology_destroy(t);
    tn_topology_destroy(NULL);
}

static void
test_many_ports(tn_test_ctx* ctx)
{
    /* 2048+ ports on one switch and 16k nodes: no fixed capacity */
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_switch(4096, NULL, &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, 4096), 4096);
    TN_CHECK(ctx, ports_consistent(t));
    tn_topology_destroy(t);

    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_add_nodes(t, TN_NODE_NPU, 16384, NULL, &err), TN_OK);
    uint32_t sw;
    TN_CHECK_EQ(ctx, tn_topology_add_node(t, TN_NODE_SWITCH, &sw, &err), TN_OK);
    int ok = 1;
    for (uint32_t i = 0; i < 16384 && ok; i++)
    {
        ok = tn_topology_add_link(t, i, sw, RATE, LAT, -1, NULL, NULL, &err) == TN_OK;
    }
    TN_CHECK(ctx, ok);
    TN_CHECK_EQ(ctx, tn_topology_node_count(t), 16385);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, sw), 16384);
    TN_CHECK_EQ(ctx, tn_topology_link(t, tn_topology_out_links(t, sw, NULL)[16383])->dst, 16383);
    tn_topology_destroy(t);
}

static void
test_ring(tn_test_ctx* ctx)
{
    static const uint32_t sizes[] = {2, 3, 8, 17};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    {
        uint32_t n = sizes[i];
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_ring(n, NULL, &t, &err) == TN_OK);
        uint32_t cables = n == 2 ? 1 : n;
        TN_CHECK_EQ(ctx, tn_topology_node_count(t), n);
        TN_CHECK_EQ(ctx, tn_topology_npu_count(t), n);
        TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * cables);
        TN_CHECK(ctx, ports_consistent(t));
        TN_CHECK(ctx, tn_topology_npus_forward(t));
        int ok = 1;
        for (uint32_t v = 0; v < n; v++)
        {
            ok &= tn_topology_degree(t, v) == (n == 2 ? 1u : 2u);
            ok &= tn_topology_find_link(t, v, (v + 1) % n) != TN_TOPO_NONE;
            ok &= tn_topology_find_link(t, v, (v + n - 1) % n) != TN_TOPO_NONE;
            ok &= npu_dim_bw(t, v, 0) == tn_topology_dim(t, 0)->bandwidth_bps;
        }
        TN_CHECK_MSG(ctx, ok, "ring:%u neighbours/degrees", n);
        TN_CHECK_EQ(ctx, tn_topology_dim_count(t), 1);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->kind, TN_DIM_RING);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->size, n);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, (n == 2 ? 1 : 2) * RATE);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->latency_ns, LAT);
        TN_CHECK_EQ(ctx, tn_topology_link(t, 0)->rate_bps, 128000000000ULL);
        TN_CHECK_EQ(ctx, tn_topology_link(t, 0)->latency_ns, 150);
        tn_topology_destroy(t);
    }
}

static void
test_fully_connected(tn_test_ctx* ctx)
{
    static const uint32_t sizes[] = {2, 5, 8};
    tn_link_params lp = {100000000000ULL, 500};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    {
        uint32_t n = sizes[i];
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_fully_connected(n, &lp, &t, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_topology_node_count(t), n);
        TN_CHECK_EQ(ctx, tn_topology_link_count(t), n * (n - 1));
        TN_CHECK(ctx, ports_consistent(t));
        int ok = 1;
        for (uint32_t v = 0; v < n; v++)
        {
            ok &= tn_topology_degree(t, v) == n - 1;
            for (uint32_t w = 0; w < n; w++)
            {
                ok &= (v == w) == (tn_topology_links_between(t, v, w, NULL, 0) == 0);
            }
        }
        TN_CHECK(ctx, ok);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->kind, TN_DIM_FC);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, (n - 1) * 100000000000ULL);
        TN_CHECK_EQ(ctx, npu_dim_bw(t, n - 1, 0), (n - 1) * 100000000000ULL);
        TN_CHECK_EQ(ctx, tn_topology_link(t, 0)->latency_ns, 500);
        tn_topology_destroy(t);
    }
}

static void
test_switch(tn_test_ctx* ctx)
{
    static const uint32_t sizes[] = {2, 16, 2048};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    {
        uint32_t n = sizes[i];
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_switch(n, NULL, &t, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_topology_node_count(t), n + 1);
        TN_CHECK_EQ(ctx, tn_topology_npu_count(t), n);
        TN_CHECK_EQ(ctx, tn_topology_switch_count(t), 1);
        TN_CHECK_EQ(ctx, tn_topology_node_kind(t, n), TN_NODE_SWITCH);
        TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * n);
        TN_CHECK_EQ(ctx, tn_topology_degree(t, n), n);
        TN_CHECK(ctx, !tn_topology_npus_forward(t));
        TN_CHECK(ctx, ports_consistent(t));
        int ok = 1;
        for (uint32_t v = 0; v < n; v++)
        {
            uint32_t l = tn_topology_find_link(t, v, n);
            ok &= l != TN_TOPO_NONE && tn_topology_link(t, l)->dst_port == v;
            ok &= tn_topology_degree(t, v) == 1;
        }
        TN_CHECK(ctx, ok);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->kind, TN_DIM_SWITCH);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, RATE);
        tn_topology_destroy(t);
    }
}

/* Check a k-ary n-cube: counts, degrees and that every link joins coordinates
   that differ by +-1 (mod k for the torus) in exactly its own dim. */
static void
check_cube(tn_test_ctx* ctx, int wrap, uint32_t nd, const uint32_t* k, uint32_t ports)
{
    tn_error err;
    tn_topology* t = NULL;
    tn_status s = wrap ? tn_topology_torus(nd, k, ports, NULL, &t, &err)
                       : tn_topology_mesh(nd, k, ports, NULL, &t, &err);
    TN_REQUIRE_MSG(ctx, s == TN_OK, "%s", err.message);
    uint64_t n = 1;
    for (uint32_t d = 0; d < nd; d++)
    {
        n *= k[d];
    }
    uint64_t links = 0;
    for (uint32_t d = 0; d < nd; d++)
    {
        /* directed links along dim d: torus 2N (N if k == 2), mesh 2 N (k-1)/k */
        links += wrap ? (k[d] > 2 ? 2 * n : n) : 2 * (n / k[d]) * (k[d] - 1);
    }
    links *= ports;
    TN_CHECK_EQ(ctx, tn_topology_node_count(t), n);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), links);
    TN_CHECK_EQ(ctx, tn_topology_dim_count(t), nd);
    TN_CHECK(ctx, ports_consistent(t));
    uint32_t* c = malloc(nd * sizeof(*c));
    uint32_t* c2 = malloc(nd * sizeof(*c2));
    int ok = 1;
    for (uint32_t v = 0; v < n && ok; v++)
    {
        TN_CHECK_EQ(ctx, tn_topology_npu_coords(t, v, c, &err), TN_OK);
        uint32_t deg = 0;
        for (uint32_t d = 0; d < nd; d++)
        {
            uint32_t nb = wrap ? (k[d] > 2 ? 2 : 1) : (c[d] > 0) + (c[d] + 1 < k[d]);
            deg += nb * ports;
        }
        ok &= tn_topology_degree(t, v) == deg;
        uint32_t cnt;
        const uint32_t* out = tn_topology_out_links(t, v, &cnt);
        for (uint32_t p = 0; p < cnt; p++)
        {
            const tn_link* l = tn_topology_link(t, out[p]);
            tn_topology_npu_coords(t, l->dst, c2, &err);
            for (uint32_t d = 0; d < nd; d++)
            {
                uint32_t diff = (c2[d] + k[d] - c[d]) % k[d];
                if ((int)d == l->dim)
                {
                    ok &= diff == 1 || diff == k[d] - 1;
                    if (!wrap)
                    {
                        ok &= c2[d] == c[d] + 1 || c2[d] + 1 == c[d];
                    }
                }
                else
                {
                    ok &= diff == 0;
                }
            }
        }
        for (uint32_t d = 0; d < nd; d++)
        {
            uint64_t full = (uint64_t)ports * (k[d] > 2 ? 2 : 1) * RATE;
            if (wrap)
            {
                ok &= npu_dim_bw(t, v, (int)d) == full;
            }
            else
            {
                ok &= npu_dim_bw(t, v, (int)d) <= full;
            }
        }
    }
    TN_CHECK_MSG(ctx,
                 ok,
                 "%s nd=%u ports=%u: degrees, neighbours, bandwidths",
                 wrap ? "torus" : "mesh",
                 nd,
                 ports);
    for (uint32_t d = 0; d < nd; d++)
    {
        TN_CHECK_EQ(ctx, tn_topology_dim(t, d)->kind, wrap ? TN_DIM_TORUS : TN_DIM_MESH);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, d)->size, k[d]);
        TN_CHECK_EQ(ctx,
                    tn_topology_dim(t, d)->bandwidth_bps,
                    (uint64_t)ports * (k[d] > 2 ? 2 : 1) * RATE);
    }
    /* row-major ids, dim 0 fastest: node id == rank == x + k0*(y + k1*z) */
    if (nd >= 2)
    {
        for (uint32_t d = 0; d < nd; d++)
        {
            c[d] = k[d] - 1;
        }
        c[0] = 1;
        uint32_t rank;
        TN_CHECK_EQ(ctx, tn_topology_coords_rank(t, c, &rank, &err), TN_OK);
        TN_CHECK_EQ(ctx, rank, n - k[0] + 1);
    }
    free(c);
    free(c2);
    tn_topology_destroy(t);
}

static void
test_torus(tn_test_ctx* ctx)
{
    uint32_t k44[] = {4, 4};
    uint32_t k88[] = {8, 8};
    uint32_t k35[] = {3, 5};
    uint32_t k444[] = {4, 4, 4};
    uint32_t k24[] = {2, 4};
    uint32_t k8[] = {8};
    check_cube(ctx, 1, 2, k44, 1);
    check_cube(ctx, 1, 2, k88, 1);
    check_cube(ctx, 1, 2, k35, 1);
    check_cube(ctx, 1, 3, k444, 2);
    check_cube(ctx, 1, 2, k24, 1);
    check_cube(ctx, 1, 1, k8, 3);
    /* closed form 2n * k^n * ports for k >= 3 */
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_torus(3, k444, 2, NULL, &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * 3 * 64 * 2);
    TN_CHECK(ctx, strcmp(tn_topology_name(t), "torus:4x4x4,ports=2") == 0);
    tn_topology_destroy(t);
}

static void
test_mesh(tn_test_ctx* ctx)
{
    uint32_t k44[] = {4, 4};
    uint32_t k46[] = {4, 6};
    uint32_t k333[] = {3, 3, 3};
    uint32_t k2[] = {2, 2};
    check_cube(ctx, 0, 2, k44, 1);
    check_cube(ctx, 0, 2, k46, 2);
    check_cube(ctx, 0, 3, k333, 1);
    check_cube(ctx, 0, 2, k2, 1);
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_mesh(2, k44, 1, NULL, &t, &err) == TN_OK);
    /* 2D mesh k x k: 2 * 2k(k-1) directed links; corner degree 2, centre 4 */
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * 2 * 4 * 3);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, 0), 2);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, 1), 3);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, 5), 4);
    tn_topology_destroy(t);
}

static void
test_leaf_spine(tn_test_ctx* ctx)
{
    struct
    {
        uint32_t l, s, h;
        double o;
    } cases[] = {{4, 2, 8, 2.0}, {8, 4, 16, 1.0}, {1, 1, 3, 3.0}, {3, 5, 2, 0.5}};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        uint32_t L = cases[i].l, S = cases[i].s, H = cases[i].h;
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_leaf_spine(L, S, H, cases[i].o, NULL, &t, &err) == TN_OK);
        uint32_t N = L * H;
        TN_CHECK_EQ(ctx, tn_topology_node_count(t), N + L + S);
        TN_CHECK_EQ(ctx, tn_topology_npu_count(t), N);
        TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * (N + L * S));
        TN_CHECK(ctx, ports_consistent(t));
        TN_CHECK(ctx, !tn_topology_npus_forward(t));
        int ok = 1;
        for (uint32_t h = 0; h < N; h++)
        {
            ok &= tn_topology_degree(t, h) == 1;
            ok &= tn_topology_find_link(t, h, N + h / H) != TN_TOPO_NONE;
        }
        uint64_t up = (uint64_t)((double)H * (double)RATE / (cases[i].o * S) + 0.5);
        for (uint32_t l = 0; l < L; l++)
        {
            ok &= tn_topology_degree(t, N + l) == H + S;
            /* uplink capacity = host capacity / oversubscription */
            uint64_t upcap = 0;
            for (uint32_t s = 0; s < S; s++)
            {
                uint32_t id = tn_topology_find_link(t, N + l, N + L + s);
                ok &= id != TN_TOPO_NONE && tn_topology_link(t, id)->rate_bps == up;
                upcap += up;
            }
            TN_CHECK_NEAR(ctx, (double)H * RATE / (double)upcap, cases[i].o, 1e-6 * cases[i].o);
        }
        for (uint32_t s = 0; s < S; s++)
        {
            ok &= tn_topology_degree(t, N + L + s) == L;
            ok &= tn_topology_node_kind(t, N + L + s) == TN_NODE_SWITCH;
        }
        TN_CHECK_MSG(ctx, ok, "leafspine %u/%u/%u", L, S, H);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->kind, TN_DIM_FATTREE);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->size, N);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, RATE);
        tn_topology_destroy(t);
    }
}

static void
test_fat_tree(tn_test_ctx* ctx)
{
    static const uint32_t ks[] = {2, 4, 6, 8, 16};
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
    {
        uint32_t k = ks[i];
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_fat_tree(k, NULL, &t, &err) == TN_OK);
        uint32_t hosts = k * k * k / 4;
        uint32_t sw = 5 * k * k / 4;
        TN_CHECK_EQ(ctx, tn_topology_npu_count(t), hosts);
        TN_CHECK_EQ(ctx, tn_topology_switch_count(t), sw);
        TN_CHECK_EQ(ctx, tn_topology_node_count(t), hosts + sw);
        /* cables: hosts + edge-agg k*(k/2)^2 + agg-core k*(k/2)^2 = 3k^3/4 */
        TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * 3 * hosts);
        TN_CHECK(ctx, ports_consistent(t));
        int ok = 1;
        for (uint32_t v = 0; v < hosts + sw; v++)
        {
            ok &= tn_topology_degree(t, v) == (v < hosts ? 1 : k);
            ok &= tn_topology_node_kind(t, v) == (v < hosts ? TN_NODE_NPU : TN_NODE_SWITCH);
        }
        /* core switches connect to exactly one aggregation switch of every pod */
        uint32_t c0 = hosts + k * k;
        for (uint32_t c = c0; c < hosts + sw; c++)
        {
            uint32_t cnt;
            const uint32_t* out = tn_topology_out_links(t, c, &cnt);
            uint32_t* pods = calloc(k, sizeof(*pods));
            for (uint32_t p = 0; p < cnt; p++)
            {
                uint32_t a = tn_topology_link(t, out[p])->dst;
                ok &= a >= hosts + k * k / 2 && a < c0;
                pods[(a - hosts - k * k / 2) / (k / 2)]++;
            }
            for (uint32_t p = 0; p < k; p++)
            {
                ok &= pods[p] == 1;
            }
            free(pods);
        }
        TN_CHECK_MSG(ctx, ok, "fattree k=%u degrees/kinds/core wiring", k);
        tn_topology_destroy(t);
    }
}

static void
test_bigraph(tn_test_ctx* ctx)
{
    struct
    {
        uint32_t n, m, ports, expect_ports;
    } cases[] = {{4, 8, 0, 4},
                 {4, 16, 0, 8},
                 {8, 8, 0, 2},
                 {8, 4, 0, 1},
                 {4, 8, 1, 1},
                 {2, 3, 0, 3},
                 {6, 4, 0, 2}};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        uint32_t n = cases[i].n, m = cases[i].m, P = cases[i].expect_ports;
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_bigraph(n, m, cases[i].ports, NULL, &t, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_topology_npu_count(t), n * m);
        TN_CHECK_EQ(ctx, tn_topology_switch_count(t), n);
        TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * (n * m + (n / 2) * (n / 2) * P));
        TN_CHECK(ctx, ports_consistent(t));
        int ok = 1;
        for (uint32_t s = 0; s < n; s++)
        {
            uint32_t sid = n * m + s;
            ok &= tn_topology_degree(t, sid) == m + (n / 2) * P;
            for (uint32_t p = 0; p < m; p++)
            {
                ok &= tn_topology_find_link(t, s * m + p, sid) != TN_TOPO_NONE;
            }
            for (uint32_t s2 = 0; s2 < n; s2++)
            {
                uint32_t want = ((s < n / 2) != (s2 < n / 2)) ? P : 0;
                ok &= tn_topology_links_between(t, sid, n * m + s2, NULL, 0) == want;
            }
        }
        /* non-blocking default: cables to the other half >= NPUs per switch */
        if (cases[i].ports == 0)
        {
            ok &= (n / 2) * P >= m;
        }
        TN_CHECK_MSG(ctx, ok, "bigraph %ux%u ports %u", n, m, P);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->kind, TN_DIM_BIGRAPH);
        TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->size, n * m);
        tn_topology_destroy(t);
    }
}

static void
check_hier(tn_test_ctx* ctx, uint32_t nd, const tn_dim_info* dims)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE_MSG(ctx, tn_topology_hierarchical(nd, dims, &t, &err) == TN_OK, "%s", err.message);
    uint64_t n = 1;
    uint64_t switches = 0;
    uint64_t cables = 0;
    for (uint32_t d = 0; d < nd; d++)
    {
        n *= dims[d].size;
    }
    for (uint32_t d = 0; d < nd; d++)
    {
        uint64_t P = dims[d].size;
        uint64_t groups = n / P;
        if (dims[d].kind == TN_DIM_SWITCH)
        {
            switches += groups;
            cables += n;
        }
        else if (dims[d].kind == TN_DIM_RING)
        {
            cables += groups * (P == 2 ? 1 : P);
        }
        else
        {
            cables += groups * P * (P - 1) / 2;
        }
    }
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), n);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), switches);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * cables);
    TN_CHECK_EQ(ctx, tn_topology_dim_count(t), nd);
    TN_CHECK(ctx, ports_consistent(t));
    int ok = 1;
    uint32_t* c = malloc(nd * sizeof(*c));
    uint32_t* c2 = malloc(nd * sizeof(*c2));
    for (uint32_t r = 0; r < n; r++)
    {
        tn_topology_npu_coords(t, r, c, &err);
        for (uint32_t d = 0; d < nd; d++)
        {
            /* per-NPU bandwidth of every dim is exactly the given value */
            ok &= npu_dim_bw(t, r, (int)d) == dims[d].bandwidth_bps;
        }
        uint32_t cnt;
        const uint32_t* out = tn_topology_out_links(t, r, &cnt);
        for (uint32_t p = 0; p < cnt; p++)
        {
            const tn_link* l = tn_topology_link(t, out[p]);
            ok &= l->dim >= 0 && l->dim < (int)nd && l->latency_ns == dims[l->dim].latency_ns;
            if (tn_topology_node_kind(t, l->dst) == TN_NODE_NPU)
            {
                /* NPU-NPU links join NPUs that differ only in the link's dim */
                tn_topology_npu_coords(t, l->dst, c2, &err);
                for (uint32_t d = 0; d < nd; d++)
                {
                    ok &= ((int)d == l->dim) == (c[d] != c2[d]);
                }
            }
            else
            {
                /* a switch of dim d serves exactly the P_d NPUs that differ only in d */
                ok &= dims[l->dim].kind == TN_DIM_SWITCH;
                uint32_t sc;
                const uint32_t* so = tn_topology_out_links(t, l->dst, &sc);
                ok &= sc == dims[l->dim].size;
                for (uint32_t q = 0; q < sc; q++)
                {
                    tn_topology_npu_coords(t, tn_topology_link(t, so[q])->dst, c2, &err);
                    for (uint32_t d = 0; d < nd; d++)
                    {
                        ok &= (int)d == l->dim || c[d] == c2[d];
                    }
                }
            }
        }
    }
    free(c);
    free(c2);
    TN_CHECK_MSG(ctx, ok, "hier: per-dim bandwidth, wiring");
    for (uint32_t d = 0; d < nd; d++)
    {
        const tn_dim_info* di = tn_topology_dim(t, d);
        TN_CHECK(ctx,
                 di->kind == dims[d].kind && di->size == dims[d].size &&
                     di->bandwidth_bps == dims[d].bandwidth_bps &&
                     di->latency_ns == dims[d].latency_ns);
    }
    TN_CHECK(ctx, tn_topology_npus_forward(t) == !(nd == 1 && dims[0].kind == TN_DIM_SWITCH));
    tn_topology_destroy(t);
}

#define GBYTES(x) ((uint64_t)(x)*8000000000ULL)

static void
test_hierarchical(tn_test_ctx* ctx)
{
    /* Themis 4D ring/FC/ring/switch 4x8x4x8 (375/175/150/100 GB/s) */
    tn_dim_info d4[] = {{TN_DIM_RING, 4, GBYTES(375), 20},
                        {TN_DIM_FC, 8, GBYTES(175), 50},
                        {TN_DIM_RING, 4, GBYTES(150), 100},
                        {TN_DIM_SWITCH, 8, GBYTES(100), 500}};
    check_hier(ctx, 4, d4);
    /* 3D FC/ring/switch 8x16x8 */
    tn_dim_info d3[] = {{TN_DIM_FC, 8, GBYTES(175), 20},
                        {TN_DIM_RING, 16, GBYTES(100), 50},
                        {TN_DIM_SWITCH, 8, GBYTES(50), 500}};
    check_hier(ctx, 3, d3);
    /* ring of 2 is one cable carrying the whole bandwidth; switch-only */
    tn_dim_info d2[] = {{TN_DIM_RING, 2, 1000, 10}, {TN_DIM_SWITCH, 3, 700, 20}};
    check_hier(ctx, 2, d2);
    tn_dim_info d1[] = {{TN_DIM_SWITCH, 5, 999, 7}};
    check_hier(ctx, 1, d1);
    /* switch dims before other dims: groups are strided */
    tn_dim_info d5[] = {{TN_DIM_SWITCH, 3, 300, 1},
                        {TN_DIM_RING, 4, 400, 2},
                        {TN_DIM_SWITCH, 2, 200, 3},
                        {TN_DIM_FC, 3, 600, 4}};
    check_hier(ctx, 4, d5);

    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_hierarchical(4, d4, &t, &err) == TN_OK);
    uint32_t coords[4] = {3, 7, 2, 5};
    uint32_t rank;
    TN_CHECK_EQ(ctx, tn_topology_coords_rank(t, coords, &rank, &err), TN_OK);
    TN_CHECK_EQ(ctx, rank, 3 + 4 * (7 + 8 * (2 + 4 * 5)));
    uint32_t back[4];
    TN_CHECK_EQ(ctx, tn_topology_npu_coords(t, rank, back, &err), TN_OK);
    TN_CHECK(ctx, memcmp(back, coords, sizeof(coords)) == 0);
    coords[1] = 8;
    TN_CHECK_EQ(ctx, tn_topology_coords_rank(t, coords, &rank, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "coords[1] = 8"));
    TN_CHECK_EQ(ctx, tn_topology_npu_coords(t, 1024, back, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "rank 1024"));
    tn_topology_destroy(t);
}

/* Expect TN_EINVAL, a NULL *out, and all `parts` in the message. */
#define EXPECT_EINVAL(ctx, call, part)                                                             \
    do                                                                                             \
    {                                                                                              \
        tn_topology* bad_ = (tn_topology*)&bad_;                                                   \
        tn_error e_;                                                                               \
        e_.message[0] = '\0';                                                                      \
        tn_status s_ = call(&bad_, &e_);                                                           \
        TN_CHECK_MSG(ctx,                                                                          \
                     s_ == TN_EINVAL && bad_ == NULL && contains(e_.message, part),                \
                     "%s: status %d, message '%s', expected '%s'",                                 \
                     #call,                                                                        \
                     (int)s_,                                                                      \
                     e_.message,                                                                   \
                     part);                                                                        \
        tn_topology_destroy(bad_);                                                                 \
    } while (0)

static const tn_link_params zero_rate = {0, 10};
static const uint32_t sizes_bad[] = {4, 1};
static const uint32_t sizes_ok[] = {4, 4};
static const tn_dim_info hier_kind[] = {{TN_DIM_TORUS, 4, 100, 1}};
static const tn_dim_info hier_size[] = {{TN_DIM_RING, 4, 100, 1}, {TN_DIM_FC, 1, 100, 1}};
static const tn_dim_info hier_bw0[] = {{TN_DIM_SWITCH, 4, 0, 1}};
static const tn_dim_info hier_div[] = {{TN_DIM_FC, 4, 100, 1}};

#define RING1(o, e) tn_topology_ring(1, NULL, o, e)
#define RINGR(o, e) tn_topology_ring(4, &zero_rate, o, e)
#define FC1(o, e) tn_topology_fully_connected(1, NULL, o, e)
#define SW0(o, e) tn_topology_switch(0, NULL, o, e)
#define TOR_SIZE(o, e) tn_topology_torus(2, sizes_bad, 1, NULL, o, e)
#define TOR_PORTS(o, e) tn_topology_torus(2, sizes_ok, 0, NULL, o, e)
#define TOR_ND(o, e) tn_topology_torus(0, sizes_ok, 1, NULL, o, e)
#define MESH_SIZE(o, e) tn_topology_mesh(2, sizes_bad, 1, NULL, o, e)
#define LS_L(o, e) tn_topology_leaf_spine(0, 2, 8, 1.0, NULL, o, e)
#define LS_S(o, e) tn_topology_leaf_spine(4, 0, 8, 1.0, NULL, o, e)
#define LS_H(o, e) tn_topology_leaf_spine(4, 2, 0, 1.0, NULL, o, e)
#define LS_O(o, e) tn_topology_leaf_spine(4, 2, 8, -1.0, NULL, o, e)
#define FT_ODD(o, e) tn_topology_fat_tree(5, NULL, o, e)
#define FT_0(o, e) tn_topology_fat_tree(0, NULL, o, e)
#define BG_N(o, e) tn_topology_bigraph(3, 4, 0, NULL, o, e)
#define BG_M(o, e) tn_topology_bigraph(4, 0, 0, NULL, o, e)
#define H_KIND(o, e) tn_topology_hierarchical(1, hier_kind, o, e)
#define H_SIZE(o, e) tn_topology_hierarchical(2, hier_size, o, e)
#define H_BW(o, e) tn_topology_hierarchical(1, hier_bw0, o, e)
#define H_DIV(o, e) tn_topology_hierarchical(1, hier_div, o, e)
#define H_ND(o, e) tn_topology_hierarchical(0, hier_div, o, e)

static void
test_parameter_errors(tn_test_ctx* ctx)
{
    EXPECT_EINVAL(ctx, RING1, "n = 1");
    EXPECT_EINVAL(ctx, RINGR, "rate");
    EXPECT_EINVAL(ctx, FC1, "n = 1");
    EXPECT_EINVAL(ctx, SW0, "n = 0");
    EXPECT_EINVAL(ctx, TOR_SIZE, "sizes[1] = 1");
    EXPECT_EINVAL(ctx, TOR_PORTS, "ports = 0");
    EXPECT_EINVAL(ctx, TOR_ND, "ndims = 0");
    EXPECT_EINVAL(ctx, MESH_SIZE, "mesh: sizes[1] = 1");
    EXPECT_EINVAL(ctx, LS_L, "leaves = 0");
    EXPECT_EINVAL(ctx, LS_S, "spines = 0");
    EXPECT_EINVAL(ctx, LS_H, "hosts (per leaf) = 0");
    EXPECT_EINVAL(ctx, LS_O, "oversub = -1");
    EXPECT_EINVAL(ctx, FT_ODD, "k = 5");
    EXPECT_EINVAL(ctx, FT_0, "k = 0");
    EXPECT_EINVAL(ctx, BG_N, "switches n = 3");
    EXPECT_EINVAL(ctx, BG_M, "m = 0");
    EXPECT_EINVAL(ctx, H_KIND, "dims[0].kind torus");
    EXPECT_EINVAL(ctx, H_SIZE, "dims[1].size = 1");
    EXPECT_EINVAL(ctx, H_BW, "dims[0].bandwidth = 0");
    EXPECT_EINVAL(ctx, H_DIV, "dims[0].bandwidth = 100 bit/s is not divisible by the 3 links");
    EXPECT_EINVAL(ctx, H_ND, "ndims = 0");
}

static void
test_units(tn_test_ctx* ctx)
{
    struct
    {
        const char* text;
        uint64_t value;
    } rates[] = {{"100Gbps", 100000000000ULL},
                 {"25Gbps", 25000000000ULL},
                 {"16GBps", 128000000000ULL},
                 {"250G", 250000000000ULL},
                 {"1.5Gbps", 1500000000ULL},
                 {"400", 400},
                 {"10Mb/s", 10000000ULL},
                 {"2KBps", 16000},
                 {"1Tbps", 1000000000000ULL},
                 {"0.5kbps", 500},
                 {"12.5GB/s", 100000000000ULL}};

    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
    {
        uint64_t v = 0;
        tn_error err;
        TN_CHECK_MSG(ctx,
                     tn_units_parse_rate(rates[i].text, SIZE_MAX, "rate", &v, &err) == TN_OK &&
                         v == rates[i].value,
                     "rate '%s' -> %llu",
                     rates[i].text,
                     (unsigned long long)v);
    }

    struct
    {
        const char* text;
        uint64_t value;
    } times[] = {{"0.001ms", 1000},
                 {"1us", 1000},
                 {"500ns", 500},
                 {"1s", 1000000000ULL},
                 {"1.5us", 1500},
                 {"0ns", 0},
                 {"2.0004ns", 2},
                 {"0.0015us", 2}};

    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
    {
        uint64_t v = 12345;
        tn_error err;
        TN_CHECK_MSG(ctx,
                     tn_units_parse_time(times[i].text, SIZE_MAX, "delay", &v, &err) == TN_OK &&
                         v == times[i].value,
                     "time '%s' -> %llu",
                     times[i].text,
                     (unsigned long long)v);
    }
    const char* bad_rates[] =
        {"", "Gbps", "100Xbps", "1e9", "-5Gbps", "100 Gbps", "99999999999999999999T"};
    for (size_t i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++)
    {
        uint64_t v;
        tn_error err;
        TN_CHECK_MSG(ctx,
                     tn_units_parse_rate(bad_rates[i], SIZE_MAX, "linkrate", &v, &err) ==
                             TN_EINVAL &&
                         contains(err.message, "linkrate"),
                     "bad rate '%s'",
                     bad_rates[i]);
    }
    const char* bad_times[] = {"1", "1h", "ms", "1.2.3us", "-1ns"};
    for (size_t i = 0; i < sizeof(bad_times) / sizeof(bad_times[0]); i++)
    {
        uint64_t v;
        tn_error err;
        TN_CHECK_MSG(ctx,
                     tn_units_parse_time(bad_times[i], SIZE_MAX, "lat", &v, &err) == TN_EINVAL &&
                         contains(err.message, "lat '"),
                     "bad time '%s'",
                     bad_times[i]);
    }
    /* length-limited parse */
    uint64_t v;
    TN_CHECK_EQ(ctx, tn_units_parse_rate("25Gbps,rest", 6, "r", &v, NULL), TN_OK);
    TN_CHECK_EQ(ctx, v, 25000000000ULL);

    /* byte sizes: exact, decimal and binary units, fractions only when whole */
    struct
    {
        const char* text;
        uint64_t bytes;
    } sizes[] = {{"0", 0},
                 {"1", 1},
                 {"17B", 17},
                 {"1KB", 1000},
                 {"8MB", 8000000},
                 {"1.5KiB", 1536},
                 {"0.25KiB", 256},
                 {"8MiB", 8388608},
                 {"16M", 16777216},
                 {"2.5GB", 2500000000ULL},
                 {"4TiB", 4398046511104ULL},
                 {"4194304TiB", TN_BYTES_MAX}};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    {
        tn_error err;
        uint64_t b = 0;
        TN_CHECK_MSG(ctx,
                     tn_units_parse_bytes(sizes[i].text, SIZE_MAX, "size", &b, &err) == TN_OK &&
                         b == sizes[i].bytes,
                     "size '%s' gave %llu",
                     sizes[i].text,
                     (unsigned long long)b);
    }
    const char* bad_sizes[] = {"",
                               "-1",
                               "+1",
                               " 1",
                               "1 ",
                               "1e3",
                               "0x10",
                               "nan",
                               "inf",
                               "1.5B",
                               "0.3KiB",
                               "8XB",
                               "8mib",
                               "1.2.3",
                               "1,5",
                               "4194305TiB",
                               "9999999TB",
                               "18446744073709551616"};
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++)
    {
        tn_error err;
        uint64_t b = 12345;
        TN_CHECK_MSG(ctx,
                     tn_units_parse_bytes(bad_sizes[i], SIZE_MAX, "--bytes", &b, &err) ==
                             TN_EINVAL &&
                         b == 12345 && strstr(err.message, "--bytes") != NULL,
                     "bad size '%s'",
                     bad_sizes[i]);
    }
}

static void
test_spec(tn_test_ctx* ctx)
{
    struct
    {
        const char* spec;
        uint32_t nodes, npus, links;
    } cases[] = {
        {"ring:8", 8, 8, 16},
        {"fc:8", 8, 8, 56},
        {"switch:16", 17, 16, 32},
        {"torus:8x8", 64, 64, 256},
        {"torus:4x4x4,ports=2", 64, 64, 768},
        {"mesh:4x4", 16, 16, 48},
        {"leafspine:leaves=4,spines=2,hosts=8,oversub=2", 38, 32, 2 * (32 + 8)},
        {"fattree:k=4", 36, 16, 96},
        {"fattree:4", 36, 16, 96},
        {"bigraph:4x8", 36, 32, 2 * (32 + 4 * 4)},
        {"bigraph:4x8,ports=1", 36, 32, 2 * (32 + 4)},
        {"hier:ring4@250Gbps/150ns+switch8@100Gbps/500ns", 32 + 4, 32, 2 * (32 + 32)},
        {"hier:fc4@300G+ring2@1Tbps,latency=1us", 8, 8, 2 * (2 * 6 + 4)},
        {" ring:4,rate=100Gbps,latency=1us ", 4, 4, 8},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        tn_status s = tn_topology_from_spec(cases[i].spec, &t, &err);
        TN_CHECK_MSG(ctx, s == TN_OK, "spec '%s': %s", cases[i].spec, s ? err.message : "");
        if (s)
        {
            continue;
        }
        TN_CHECK_MSG(ctx,
                     tn_topology_node_count(t) == cases[i].nodes &&
                         tn_topology_npu_count(t) == cases[i].npus &&
                         tn_topology_link_count(t) == cases[i].links,
                     "spec '%s': %u nodes %u npus %u links",
                     cases[i].spec,
                     tn_topology_node_count(t),
                     tn_topology_npu_count(t),
                     tn_topology_link_count(t));
        tn_topology_destroy(t);
    }
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("ring:4,rate=100Gbps,latency=1us", &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_link(t, 0)->rate_bps, 100000000000ULL);
    TN_CHECK_EQ(ctx, tn_topology_link(t, 0)->latency_ns, 1000);
    TN_CHECK(ctx, strcmp(tn_topology_name(t), "ring:4,rate=100Gbps,latency=1us") == 0);
    tn_topology_destroy(t);
    TN_REQUIRE(ctx,
               tn_topology_from_spec("hier:ring4@250Gbps/150ns+switch8@100GBps", &t, &err) ==
                   TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, 250000000000ULL);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->latency_ns, 150);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 1)->bandwidth_bps, 800000000000ULL);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 1)->latency_ns, TN_TOPO_DEFAULT_LATENCY_NS);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 1)->kind, TN_DIM_SWITCH);
    tn_topology_destroy(t);
    TN_REQUIRE(ctx,
               tn_topology_from_spec("leafspine:leaves=4,spines=2,hosts=8,oversub=2", &t, &err) ==
                   TN_OK);
    /* uplink = 8 * 128G / (2 * 2) */
    TN_CHECK_EQ(ctx,
                tn_topology_link(t, tn_topology_find_link(t, 32, 36))->rate_bps,
                256000000000ULL);
    tn_topology_destroy(t);

    struct
    {
        const char* spec;
        const char* part;
    } bad[] = {
        {"ring", "expected KIND:PARAMETERS"},
        {"ring:x", "N 'x'"},
        {"ring:1", "n = 1"},
        {"ring:8,foo=1", "unknown key 'foo'"},
        {"ring:8,rate=fast", "rate 'fast'"},
        {"ring:8,latency=5", "latency '5'"},
        {"ring:8,rate=1G,rate=2G", "key 'rate' given twice"},
        {"star:8", "unknown kind 'star'"},
        {"torus:4xx4", "size 1 ''"},
        {"torus:4x4,ports=zero", "ports 'zero'"},
        {"torus:4x1", "sizes[1] = 1"},
        {"leafspine:leaves=4,spines=2", "missing key 'hosts'"},
        {"leafspine:leaves=4,spines=2,hosts=8,oversub=abc", "oversub 'abc'"},
        {"leafspine:leaves=4,spines=2,hosts=8,ports=2", "unknown key 'ports'"},
        {"fattree:k=5", "k = 5"},
        {"fattree:k=four", "k 'four'"},
        {"bigraph:4", "bigraph '4' must be NxM"},
        {"bigraph:4x8,ports=0", "ports '0'"},
        {"hier:ring4", "missing '@RATE'"},
        {"hier:tree4@1G", "kind must be ring, fc or switch"},
        {"hier:ringX@1G", "size 'X'"},
        {"hier:ring4@1Q/1us", "hier dim 0 rate '1Q'"},
        {"hier:ring4@1G+fc3@100Gbps/1xs", "hier dim 1 latency '1xs'"},
        {"hier:ring4@1G,rate=1G", "key 'rate' is not allowed for hier"},
        {"ring:8,", "empty parameter"},
        {"ring:8,a b=1", "whitespace"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        tn_topology* tb = (tn_topology*)&tb;
        err.message[0] = '\0';
        tn_status s = tn_topology_from_spec(bad[i].spec, &tb, &err);
        TN_CHECK_MSG(ctx,
                     s == TN_EINVAL && tb == NULL && contains(err.message, bad[i].part),
                     "spec '%s': status %d message '%s', expected '%s'",
                     bad[i].spec,
                     (int)s,
                     err.message,
                     bad[i].part);
        if (s == TN_OK)
        {
            tn_topology_destroy(tb);
        }
    }

    /* a long spec is quoted by its first 80 bytes: the message names the rest's length */
    char* huge = (char*)malloc(100001);
    TN_REQUIRE(ctx, huge != NULL);
    memset(huge, 'x', 100000);
    huge[100000] = '\0';
    tn_topology* th = NULL;
    TN_CHECK(ctx, tn_topology_from_spec(huge, &th, &err) == TN_EINVAL && th == NULL);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "...(99920 more bytes)': expected KIND:PARAMETERS") &&
                     strlen(err.message) < 400,
                 "message '%s'",
                 err.message);
    free(huge);
}

static void
test_file_ok(tn_test_ctx* ctx)
{
    char path[512];
    tn_test_data_path(ctx, "topo-ok.txt", path, sizeof(path));
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE_MSG(ctx, tn_topology_load_file(path, &t, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_topology_node_count(t), 10);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), 2);
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), 8);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 18);
    TN_CHECK_EQ(ctx, tn_topology_node_kind(t, 8), TN_NODE_SWITCH);
    TN_CHECK_EQ(ctx, tn_topology_node_kind(t, 9), TN_NODE_SWITCH);
    TN_CHECK_EQ(ctx, tn_topology_npu_node(t, 7), 7);
    TN_CHECK(ctx, !tn_topology_npus_forward(t));
    TN_CHECK(ctx, ports_consistent(t));
    /* link line k -> directed links 2k (src->dst) and 2k+1 */
    const tn_link* l = tn_topology_link(t, 0);
    TN_CHECK(ctx,
             l->src == 0 && l->dst == 8 && l->rate_bps == 100000000000ULL && l->latency_ns == 1000);
    l = tn_topology_link(t, 3);
    TN_CHECK(ctx, l->src == 8 && l->dst == 1 && l->latency_ns == 1000);
    l = tn_topology_link(t, 4);
    TN_CHECK(ctx, l->rate_bps == 25000000000ULL && l->latency_ns == 500);
    TN_CHECK_NEAR(ctx, l->error_rate, 0.001, 1e-15);
    TN_CHECK_NEAR(ctx, tn_topology_link(t, 5)->error_rate, 0.001, 1e-15);
    l = tn_topology_link(t, 16);
    TN_CHECK(ctx,
             l->src == 8 && l->dst == 9 && l->rate_bps == 400000000000ULL && l->latency_ns == 2000);
    TN_CHECK_EQ(ctx, tn_topology_degree(t, 8), 5);
    TN_CHECK_EQ(ctx, tn_topology_dim_count(t), 1);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->kind, TN_DIM_CUSTOM);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->size, 8);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, 25000000000ULL);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->latency_ns, 2000);
    TN_CHECK(ctx, strcmp(tn_topology_name(t), path) == 0);
    tn_topology_destroy(t);

    /* switches need not be last: ranks skip them; CRLF and no switch line */
    TN_REQUIRE(ctx,
               tn_topology_load_text("3 1 2\r\n0\r\n1 0 10Gbps 1us 0\r\n2 0 10Gbps 1us 0\r\n",
                                     "crlf",
                                     &t,
                                     &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_node_rank(t, 0), TN_TOPO_NONE);
    TN_CHECK_EQ(ctx, tn_topology_node_rank(t, 1), 0);
    TN_CHECK_EQ(ctx, tn_topology_npu_node(t, 1), 2);
    tn_topology_destroy(t);
    TN_REQUIRE(ctx,
               tn_topology_load_text("2 0 1\n0 1 10Gbps 1us 0.5\n", "direct", &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2);
    TN_CHECK(ctx, tn_topology_npus_forward(t));
    tn_topology_destroy(t);
    TN_REQUIRE(ctx,
               tn_topology_load_text("2 0 1\n\n0 1 10Gbps 1us 0.5\n", "blank", &t, &err) == TN_OK);
    tn_topology_destroy(t);
}

static void
test_file_errors(tn_test_ctx* ctx)
{
    struct
    {
        const char* file;
        const char* parts[3];
    } cases[] = {
        {"topo-bad-count.txt", {"topo-bad-count.txt:1:", "N_links", NULL}},
        {"topo-bad-rate.txt", {"topo-bad-rate.txt:4:", "rate '100Xbps'", NULL}},
        {"topo-bad-delay.txt", {"topo-bad-delay.txt:5:", "link 1: delay '1'", NULL}},
        {"topo-missing-field.txt", {"topo-missing-field.txt:5:", "missing field error_rate", NULL}},
        {"topo-switch-range.txt",
         {"topo-switch-range.txt:2:", "switch id 0 '7' is out of range", NULL}},
        {"topo-extra-field.txt", {"topo-extra-field.txt:3:", "extra field 'junk'", NULL}},
        {"topo-extra-line.txt", {"topo-extra-line.txt:6:", "extra content '#'", NULL}},
        {"topo-short.txt", {"topo-short.txt:5:", "unexpected end of file", "only 2"}},
        {"topo-node-range.txt", {"topo-node-range.txt:4:", "dst 9 is out of range", NULL}},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        char path[512];
        tn_test_data_path(ctx, cases[i].file, path, sizeof(path));
        tn_error err;
        err.message[0] = '\0';
        tn_topology* t = (tn_topology*)&t;
        tn_status s = tn_topology_load_file(path, &t, &err);
        int ok = s == TN_EPARSE && t == NULL && err.code == TN_EPARSE;
        for (int k = 0; k < 3 && cases[i].parts[k]; k++)
        {
            ok &= contains(err.message, cases[i].parts[k]);
        }
        TN_CHECK_MSG(ctx, ok, "%s: status %d message '%s'", cases[i].file, (int)s, err.message);
        if (s == TN_OK)
        {
            tn_topology_destroy(t);
        }
    }

    struct
    {
        const char* text;
        const char* part;
    } texts[] = {
        {"", "t:1: empty file"},
        {"4 x 3\n", "t:1: N_switches 'x'"},
        {"4 1 3 9\n", "t:1: header: extra field '9'"},
        {"0 0 0\n", "t:1: N_nodes must be >= 1"},
        {"4 5 0\n", "N_switches 5 is larger than N_nodes 4"},
        {"4 2 0\n3\n", "t:2: switch ids: expected N_switches = 2 ids, got 1"},
        {"4 2 0\n3 3\n", "t:2: switch id 1 '3' is listed twice"},
        {"4 1 1\n3\n3 3 1Gbps 1us 0\n", "t:3: link 0: src == dst"},
        {"4 1 1\n3\nx 3 1Gbps 1us 0\n", "t:3: link 0: src 'x'"},
        {"4 1 1\n3\n0 3 1Gbps 1us 2\n", "t:3: link 0: error_rate '2'"},
        {"4 1 1\n3\n0 3 0Gbps 1us 0\n", "t:3: link 0: rate '0Gbps' must be > 0"},
        {"4 1 1\n3\n0 3\n", "t:3: link 0: missing field rate"},
    };

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
    {
        tn_error err;
        err.message[0] = '\0';
        tn_topology* t = NULL;
        tn_status s = tn_topology_load_text(texts[i].text, "t", &t, &err);
        TN_CHECK_MSG(ctx,
                     s == TN_EPARSE && contains(err.message, texts[i].part),
                     "text %zu: status %d message '%s', expected '%s'",
                     i,
                     (int)s,
                     err.message,
                     texts[i].part);
        tn_topology_destroy(t);
    }
    tn_error err;
    tn_topology* t = NULL;
    TN_CHECK_EQ(ctx, tn_topology_load_file("/nonexistent/topo.txt", &t, &err), TN_EIO);
    TN_CHECK(ctx, contains(err.message, "/nonexistent/topo.txt"));
}

static void
test_file_roundtrip(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* a = NULL;
    tn_link_params lp = {25000000000ULL, 1500};
    TN_REQUIRE(ctx, tn_topology_leaf_spine(3, 2, 4, 1.5, &lp, &a, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_set_link_error_rate(a, 0, 0.125, &err), TN_OK);
    char path[512];
    tn_test_temp_path(ctx, "topo-roundtrip.txt", path, sizeof(path));
    FILE* f = fopen(path, "w");
    TN_REQUIRE(ctx, f != NULL);
    TN_CHECK_EQ(ctx, tn_topology_write(a, f, &err), TN_OK);
    fclose(f);
    tn_topology* b = NULL;
    TN_REQUIRE_MSG(ctx, tn_topology_load_file(path, &b, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_topology_node_count(b), tn_topology_node_count(a));
    TN_CHECK_EQ(ctx, tn_topology_link_count(b), tn_topology_link_count(a));
    TN_CHECK_EQ(ctx, tn_topology_switch_count(b), tn_topology_switch_count(a));
    int same = 1;
    for (uint32_t i = 0; i < tn_topology_link_count(a); i += 2)
    {
        const tn_link* x = tn_topology_link(a, i);
        const tn_link* y = tn_topology_link(b, i);
        same &= x->src == y->src && x->dst == y->dst && x->src_port == y->src_port &&
                x->dst_port == y->dst_port && x->rate_bps == y->rate_bps &&
                x->latency_ns == y->latency_ns && x->error_rate == y->error_rate;
    }
    TN_CHECK(ctx, same);
    remove(path);
    tn_topology_destroy(a);
    tn_topology_destroy(b);
}

/* tn_topology_subgrid: the dims of part of a hier: system, against the coordinates' closed forms */
static void
test_subgrid(tn_test_ctx* ctx)
{
    tn_topology* t = NULL;
    tn_error err;
    TN_REQUIRE(ctx,
               tn_topology_from_spec("hier:ring4@100Gbps+fc4@300Gbps+switch2@50Gbps", &t, &err) ==
                   TN_OK);
    const tn_dim_info* fc = tn_topology_dim(t, 1);
    tn_dim_info dims[3];
    uint32_t count = 0;
    uint32_t order[32];
    uint32_t npus[32];
    /* every NPU, listed backwards: the topology's dims, ranks in NPU order */
    for (uint32_t i = 0; i < 32; i++)
    {
        npus[i] = 31 - i;
    }
    TN_REQUIRE(ctx, tn_topology_subgrid(t, npus, 32, dims, &count, order, &err) == TN_OK);
    TN_CHECK_EQ(ctx, count, 3);
    int same = 1;
    for (uint32_t d = 0; d < 3; d++)
    {
        same &= dims[d].size == tn_topology_dim(t, d)->size &&
                dims[d].bandwidth_bps == tn_topology_dim(t, d)->bandwidth_bps &&
                dims[d].kind == tn_topology_dim(t, d)->kind;
    }
    for (uint32_t i = 0; i < 32; i++)
    {
        same &= order[i] == i;
    }
    TN_CHECK_MSG(ctx, same, "every NPU: the topology's own grid");
    /* the second switch place (NPUs 16..31): whole servers of a ring and a full fc */
    for (uint32_t i = 0; i < 16; i++)
    {
        npus[i] = 16 + (i * 7) % 16; /* 7 is prime to 16: each once, out of order */
    }
    TN_REQUIRE(ctx, tn_topology_subgrid(t, npus, 16, dims, &count, order, &err) == TN_OK);
    TN_CHECK_EQ(ctx, count, 2);
    TN_CHECK_EQ(ctx, dims[0].kind, TN_DIM_RING);
    TN_CHECK_EQ(ctx, dims[1].size, 4);
    TN_CHECK_EQ(ctx, dims[1].bandwidth_bps, fc->bandwidth_bps);
    TN_CHECK_EQ(ctx, order[0], 16);
    TN_CHECK_EQ(ctx, order[15], 31);
    /* fc places 1 and 3 of both switch places: ring 4 x fc 2 x switch 2, and the fc's
     * bandwidth is its link to the one peer held, 1 of 3: rank a + 4 (b + 2 c) is NPU
     * a + 4 {1, 3}[b] + 16 c */
    uint32_t n = 0;
    for (uint32_t r = 0; r < 32; r++)
    {
        if ((r / 4) % 4 == 1 || (r / 4) % 4 == 3)
        {
            npus[n++] = r;
        }
    }
    TN_REQUIRE(ctx, tn_topology_subgrid(t, npus, n, dims, &count, order, &err) == TN_OK);
    TN_CHECK_EQ(ctx, count, 3);
    TN_CHECK_EQ(ctx, dims[1].size, 2);
    TN_CHECK_EQ(ctx, dims[1].bandwidth_bps, fc->bandwidth_bps / 3);
    TN_CHECK_EQ(ctx, dims[2].kind, TN_DIM_SWITCH);
    int radix = 1;
    for (uint32_t i = 0; i < 16; i++)
    {
        radix &= order[i] == i % 4 + 4 * ((i / 4) % 2 == 0 ? 1 : 3) + 16 * (i / 8);
    }
    TN_CHECK_MSG(ctx, radix, "sub-grid rank a + 4 (b + 2 c) is NPU a + 4 {1, 3}[b] + 16 c");
    /* one NPU: no dims */
    TN_REQUIRE(ctx, tn_topology_subgrid(t, npus, 1, dims, &count, order, &err) == TN_OK);
    TN_CHECK_EQ(ctx, count, 0);
    /* half a ring is not a ring */
    const uint32_t half[] = {0, 1, 16, 17};
    TN_CHECK_EQ(ctx, tn_topology_subgrid(t, half, 4, dims, &count, order, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "dim 0 is a ring of 4 NPUs of which they hold 2") != NULL,
                 "%s",
                 err.message);
    /* a server and one more NPU: no product of coordinates */
    const uint32_t five[] = {0, 1, 2, 3, 4};
    TN_CHECK_EQ(ctx, tn_topology_subgrid(t, five, 5, dims, &count, order, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "take 4 x 2 x 1 places per dim (8 NPUs in a grid)") != NULL,
                 "%s",
                 err.message);
    const uint32_t twice[] = {4, 5, 4};
    TN_CHECK_EQ(ctx, tn_topology_subgrid(t, twice, 3, dims, &count, order, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "NPU 4 is listed twice") != NULL);
    const uint32_t outside[] = {4, 32};
    TN_CHECK_EQ(ctx, tn_topology_subgrid(t, outside, 2, dims, &count, order, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "NPU 32 is not one of the 32") != NULL);
    tn_topology_destroy(t);
    /* a topology without dims */
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_subgrid(t, half, 1, dims, &count, order, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "no dimensions") != NULL);
    tn_topology_destroy(t);
}

/* A copy holds everything its original does, and outlives it. */
static void
test_copy(tn_test_ctx* ctx)
{
    const char* specs[] = {"torus:4x4",
                           "fattree:k=4",
                           "hier:switch4@400Gbps+switch4@100Gbps",
                           "dgx-h100:servers=2,sharp=1",
                           "mesh:3x2",
                           "@error-rates"};
    tn_error err;
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology *t = NULL, *c = NULL;
        if (specs[i][0] == '@')
        {
            /* a builder's topology: per-link error rates, a name set by hand */
            uint32_t first = 0, a = 0, b = 0;
            TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
            TN_REQUIRE(ctx, tn_topology_add_nodes(t, TN_NODE_NPU, 2, &first, &err) == TN_OK);
            TN_REQUIRE(ctx, tn_topology_add_nodes(t, TN_NODE_SWITCH, 1, NULL, &err) == TN_OK);
            TN_REQUIRE(ctx, tn_topology_add_link(t, 0, 2, 1000, 10, -1, &a, &b, &err) == TN_OK);
            TN_REQUIRE(ctx, tn_topology_add_link(t, 1, 2, 2000, 20, -1, &a, &b, &err) == TN_OK);
            TN_REQUIRE(ctx, tn_topology_set_link_error_rate(t, b, 0.25, &err) == TN_OK);
            TN_REQUIRE(ctx, tn_topology_set_name(t, specs[i], &err) == TN_OK);
        }
        else
            TN_REQUIRE_MSG(ctx,
                           tn_topology_from_spec(specs[i], &t, &err) == TN_OK,
                           "%s",
                           err.message);
        TN_REQUIRE_MSG(ctx, tn_topology_copy(t, &c, &err) == TN_OK, "%s", err.message);
        TN_CHECK_MSG(ctx, strcmp(tn_topology_name(c), specs[i]) == 0, "%s", tn_topology_name(c));
        TN_CHECK_EQ(ctx, tn_topology_node_count(c), tn_topology_node_count(t));
        TN_CHECK_EQ(ctx, tn_topology_npu_count(c), tn_topology_npu_count(t));
        TN_CHECK_EQ(ctx, tn_topology_link_count(c), tn_topology_link_count(t));
        TN_CHECK_EQ(ctx, tn_topology_npus_forward(c), tn_topology_npus_forward(t));
        TN_CHECK_EQ(ctx, tn_topology_sharp(c), tn_topology_sharp(t));
        TN_CHECK_EQ(ctx, tn_topology_shape(c)->kind, tn_topology_shape(t)->kind);
        TN_CHECK(ctx, memcmp(tn_topology_shape(c), tn_topology_shape(t), sizeof(tn_shape)) == 0);
        TN_CHECK_EQ(ctx, tn_topology_dim_count(c), tn_topology_dim_count(t));
        for (uint32_t d = 0; d < tn_topology_dim_count(t); d++)
            TN_CHECK(ctx,
                     memcmp(tn_topology_dim(c, d), tn_topology_dim(t, d), sizeof(tn_dim_info)) ==
                         0);
        int same = 1;
        for (uint32_t v = 0; v < tn_topology_node_count(t); v++)
            same &= tn_topology_node_kind(c, v) == tn_topology_node_kind(t, v) &&
                    tn_topology_node_rank(c, v) == tn_topology_node_rank(t, v);
        for (uint32_t l = 0; l < tn_topology_link_count(t); l++)
        {
            const tn_link *x = tn_topology_link(c, l), *y = tn_topology_link(t, l);
            same &= x->id == y->id && x->src == y->src && x->dst == y->dst &&
                    x->src_port == y->src_port && x->dst_port == y->dst_port &&
                    x->reverse == y->reverse && x->rate_bps == y->rate_bps &&
                    x->latency_ns == y->latency_ns && x->dim == y->dim &&
                    x->error_rate == y->error_rate;
        }
        TN_CHECK_MSG(ctx, same, "%s: nodes and links as the original's", specs[i]);
        tn_topology_destroy(t);
        /* the copy stands alone: routes are built on it after the original is gone */
        tn_routes* routes = NULL;
        TN_CHECK_EQ(ctx, tn_routes_create(c, NULL, &routes, &err), TN_OK);
        tn_routes_destroy(routes);
        tn_topology_destroy(c);
    }
    TN_CHECK_EQ(ctx, tn_topology_copy(NULL, NULL, &err), TN_EINVAL);
}

void
tn_suite_topology(tn_test_suite* suite)
{
    tn_test_add(suite, "builder", test_builder);
    tn_test_add(suite, "many-ports", test_many_ports);
    tn_test_add(suite, "ring", test_ring);
    tn_test_add(suite, "fully-connected", test_fully_connected);
    tn_test_add(suite, "switch", test_switch);
    tn_test_add(suite, "torus", test_torus);
    tn_test_add(suite, "mesh", test_mesh);
    tn_test_add(suite, "leaf-spine", test_leaf_spine);
    tn_test_add(suite, "fat-tree", test_fat_tree);
    tn_test_add(suite, "bigraph", test_bigraph);
    tn_test_add(suite, "hierarchical", test_hierarchical);
    tn_test_add(suite, "parameter-errors", test_parameter_errors);
    tn_test_add(suite, "units", test_units);
    tn_test_add(suite, "spec", test_spec);
    tn_test_add(suite, "file-ok", test_file_ok);
    tn_test_add(suite, "file-errors", test_file_errors);
    tn_test_add(suite, "file-roundtrip", test_file_roundtrip);
    tn_test_add(suite, "subgrid", test_subgrid);
    tn_test_add(suite, "copy", test_copy);
}
