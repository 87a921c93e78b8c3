/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of routes computed from a topology's shape (tn-shape.h): on small instances of
 * every generated kind, every (node, destination) pair has the distance, the next hops
 * (both orders) and the path count of the BFS tables; shapes are dropped where they would
 * be wrong (a cable added, NPU transit forbidden on a grid, a destination list). Nodes with
 * many ports find their hops to a neighbour through an index: the next hops are every
 * shortest hop a scan of the ports finds, in port order.
 */
#include "tn-test.h"

#include "ns3/tn-routing.h"
#include "ns3/tn-shape.h"
#include "ns3/tn-topology.h"

#include <stdlib.h>
#include <string.h>

/* Compare computed routes with BFS tables on every (node, NPU destination) pair. */
static void
check_same_routes(tn_test_ctx* ctx, const tn_topology* t, tn_route_order order)
{
    tn_error err;
    tn_routes_options computed;
    memset(&computed, 0, sizeof(computed));
    computed.order = order;
    tn_routes_options tables = computed;
    tables.force_tables = true;
    tn_routes *rc = NULL, *rt = NULL;
    TN_REQUIRE_MSG(ctx, tn_routes_create(t, &computed, &rc, &err) == TN_OK, "%s", err.message);
    TN_REQUIRE_MSG(ctx, tn_routes_create(t, &tables, &rt, &err) == TN_OK, "%s", err.message);
    TN_CHECK_MSG(ctx, tn_routes_computed(rc), "%s: no shape routes", tn_topology_name(t));
    TN_CHECK(ctx, !tn_routes_computed(rt));
    uint32_t nodes = tn_topology_node_count(t);
    uint32_t* a = malloc(sizeof(*a) * (nodes + 1) * 4);
    uint32_t* b = a + (nodes + 1) * 2;
    uint32_t bad = 0, pairs = 0, hops = 0;
    for (uint32_t rank = 0; rank < tn_topology_npu_count(t); rank++)
    {
        uint32_t d = tn_topology_npu_node(t, rank);
        for (uint32_t v = 0; v < nodes; v++)
        {
            pairs++;
            uint32_t na = tn_routes_next_hops(rc, v, d, a, nodes * 2);
            uint32_t nb = tn_routes_next_hops(rt, v, d, b, nodes * 2);
            hops += nb;
            if (tn_routes_distance(rc, v, d) != tn_routes_distance(rt, v, d) || na != nb ||
                memcmp(a, b, sizeof(*a) * nb) != 0)
            {
                if (bad++ == 0)
                {
                    TN_CHECK_MSG(ctx,
                                 0,
                                 "%s (%s): node %u to %u: distance %u, %u next hops computed; "
                                 "%u, %u from the table",
                                 tn_topology_name(t),
                                 tn_route_order_name(order),
                                 v,
                                 d,
                                 tn_routes_distance(rc, v, d),
                                 na,
                                 tn_routes_distance(rt, v, d),
                                 nb);
                }
            }
            uint64_t ca = 0, cb = 0;
            if (tn_topology_node_kind(t, v) == TN_NODE_NPU &&
                (tn_routes_path_count(rc, v, d, &ca, &err) != TN_OK ||
                 tn_routes_path_count(rt, v, d, &cb, &err) != TN_OK || ca != cb))
            {
                bad++;
            }
        }
    }
    TN_CHECK_EQ(ctx, bad, 0);
    TN_CHECK(ctx, pairs > 0 && hops > 0);
    TN_CHECK_EQ(ctx, tn_routes_max_npu_distance(rc), tn_routes_max_npu_distance(rt));
    free(a);
    tn_routes_destroy(rc);
    tn_routes_destroy(rt);
}

static void
test_every_kind(tn_test_ctx* ctx)
{
    static const char* specs[] = {
        "ring:2",
        "ring:5",
        "fc:4",
        "switch:5",
        "torus:4x3",
        "torus:2x3x4",
        "torus:3x3,ports=2",
        "torus:6",
        "mesh:4x3",
        "mesh:2x5x2",
        "leafspine:leaves=3,spines=2,hosts=2",
        "leafspine:leaves=1,spines=2,hosts=3",
        "fattree:k=2",
        "fattree:k=4",
        "fattree:k=6",
        "bigraph:2x3",
        "bigraph:4x2",
        "bigraph:6x1,ports=2",
        "hier:switch4@100Gbps",
        "hier:fc3@300Gbps",
        "hier:ring5@200Gbps",
        "hier:ring4@200Gbps+switch3@100Gbps",
        "hier:switch2@100Gbps+switch4@100Gbps",
        "hier:switch3@100Gbps+ring2@100Gbps+fc3@200Gbps",
        "hier:fc3@200Gbps+switch2@100Gbps+ring3@200Gbps",
    };
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE_MSG(ctx,
                       tn_topology_from_spec(specs[i], &t, &err) == TN_OK,
                       "%s: %s",
                       specs[i],
                       err.message);
        TN_CHECK_MSG(ctx, tn_topology_shape(t)->kind != TN_SHAPE_NONE, "%s: no shape", specs[i]);
        check_same_routes(ctx, t, TN_ROUTE_SHORTEST);
        check_same_routes(ctx, t, TN_ROUTE_DIMENSION_ORDER);
        tn_topology_destroy(t);
    }
}

/* Where a shape's distances would be wrong, the routes take tables. */
static void
test_fallbacks(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:4x4", &t, &err) == TN_OK);
    tn_routes* r = NULL;
    /* hosts that do not forward: a grid's distances need NPU transit */
    tn_routes_options opt;
    memset(&opt, 0, sizeof(opt));
    opt.transit = TN_TRANSIT_SWITCHES_ONLY;
    TN_REQUIRE(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK);
    TN_CHECK(ctx, !tn_routes_computed(r));
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 5), TN_ROUTES_UNREACHABLE);
    tn_routes_destroy(r);
    /* a destination list */
    uint32_t dests[] = {3, 7};
    memset(&opt, 0, sizeof(opt));
    opt.dest_nodes = dests;
    opt.dest_count = 2;
    TN_REQUIRE(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK);
    TN_CHECK(ctx, !tn_routes_computed(r));
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 7), 2);
    tn_routes_destroy(r);
    /* a cable the generator did not make: the shape is gone, the shortcut counts */
    TN_REQUIRE(ctx, tn_topology_add_link(t, 0, 10, 1000, 1, -1, NULL, NULL, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_shape(t)->kind, TN_SHAPE_NONE);
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &r, &err) == TN_OK);
    TN_CHECK(ctx, !tn_routes_computed(r));
    TN_CHECK_EQ(ctx, tn_routes_distance(r, 0, 10), 1);
    tn_routes_destroy(r);
    tn_topology_destroy(t);
    /* a shape whose counts are not the topology's is refused */
    TN_REQUIRE(ctx, tn_topology_from_spec("fattree:k=4", &t, &err) == TN_OK);
    tn_shape wrong = *tn_topology_shape(t);
    wrong.a = 6;
    TN_CHECK_EQ(ctx, tn_topology_set_shape(t, &wrong, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "the shape has 54 NPUs then 45 switches") != NULL);
    TN_CHECK_EQ(ctx, tn_topology_shape(t)->a, 4);
    tn_topology_destroy(t);
}

/* The next hops a scan of node v's ports gives toward NPU node d (tn-routing.h's rule:
 * every hop one closer that enters an NPU only if it transits or is d; in dimension order
 * only the lowest dim among them, -1 when none has a dim). */
static uint32_t
scan_hops(const tn_routes* r, uint32_t v, uint32_t d, tn_route_order order, uint32_t* out)
{
    const tn_topology* t = tn_routes_topology(r);
    uint32_t dv = tn_routes_distance(r, v, d);
    if (dv == 0 || dv == TN_ROUTES_UNREACHABLE)
    {
        return 0;
    }
    uint32_t deg, n = 0;
    const uint32_t* outl = tn_topology_out_links(t, v, &deg);
    int lowest = -1;
    for (uint32_t p = 0; p < deg; p++)
    {
        const tn_link* l = tn_topology_link(t, outl[p]);
        bool transit = l->dst == d || tn_routes_npus_forward(r) ||
                       tn_topology_node_kind(t, l->dst) == TN_NODE_SWITCH;
        if (transit && tn_routes_distance(r, l->dst, d) == dv - 1)
        {
            out[n++] = outl[p];
            if (l->dim >= 0 && (lowest < 0 || l->dim < lowest))
            {
                lowest = l->dim;
            }
        }
    }
    if (order != TN_ROUTE_DIMENSION_ORDER)
    {
        return n;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        if (tn_topology_link(t, out[i])->dim == lowest)
        {
            out[kept++] = out[i];
        }
    }
    return kept;
}

/* Every (node, NPU) pair's next hops equal the scan's, in both orders and both route kinds;
 * *wide counts the pairs one hop apart from a node with more than 16 ports (indexed). */
static void
check_every_hop(tn_test_ctx* ctx, const tn_topology* t, uint32_t* wide)
{
    uint32_t nodes = tn_topology_node_count(t);
    uint32_t* a = malloc(sizeof(*a) * (nodes + 1) * 8);
    uint32_t* b = a + (nodes + 1) * 4;
    uint32_t bad = 0;
    *wide = 0;
    for (int k = 0; k < 4; k++)
    {
        tn_routes_options opt;
        memset(&opt, 0, sizeof(opt));
        opt.order = k % 2 ? TN_ROUTE_DIMENSION_ORDER : TN_ROUTE_SHORTEST;
        opt.force_tables = k >= 2;
        tn_routes* r = NULL;
        tn_error err;
        TN_REQUIRE_MSG(ctx, tn_routes_create(t, &opt, &r, &err) == TN_OK, "%s", err.message);
        for (uint32_t rank = 0; rank < tn_topology_npu_count(t); rank++)
        {
            uint32_t d = tn_topology_npu_node(t, rank);
            for (uint32_t v = 0; v < nodes; v++)
            {
                uint32_t deg;
                tn_topology_out_links(t, v, &deg);
                *wide += deg > 16 && tn_routes_distance(r, v, d) == 1;
                uint32_t na = tn_routes_next_hops(r, v, d, a, nodes * 4);
                uint32_t nb = scan_hops(r, v, d, opt.order, b);
                if (na != nb || memcmp(a, b, sizeof(*a) * nb) != 0)
                {
                    if (bad++ == 0)
                    {
                        TN_CHECK_MSG(ctx,
                                     0,
                                     "%s (%s, %s): node %u to %u: %u next hops, the scan %u",
                                     tn_topology_name(t),
                                     tn_route_order_name(opt.order),
                                     k >= 2 ? "tables" : "computed",
                                     v,
                                     d,
                                     na,
                                     nb);
                    }
                }
            }
        }
        tn_routes_destroy(r);
    }
    TN_CHECK_EQ(ctx, bad, 0);
    free(a);
}

static void
test_wide_nodes(tn_test_ctx* ctx)
{
    static const char* specs[] = {"fc:40",
                                  "hier:fc18@170Gbps+ring2@100Gbps",
                                  "switch:24",
                                  "bigraph:2x20"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE_MSG(ctx,
                       tn_topology_from_spec(specs[i], &t, &err) == TN_OK,
                       "%s: %s",
                       specs[i],
                       err.message);
        uint32_t wide = 0;
        check_every_hop(ctx, t, &wide);
        TN_CHECK_MSG(ctx, wide > 0, "%s: no wide node", specs[i]);
        tn_topology_destroy(t);
    }
    /* a hand-built graph whose wide nodes list their neighbours out of order, some twice:
     * a switch cabled to 24 NPUs from the last to the first, every third one twice, and
     * NPU 0 cabled to every other NPU in the same order */
    tn_topology* t = NULL;
    tn_error err;
    uint32_t first = 0, sw = 0;
    TN_REQUIRE(ctx, tn_topology_create(&t, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_topology_add_nodes(t, TN_NODE_NPU, 24, &first, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_topology_add_node(t, TN_NODE_SWITCH, &sw, &err) == TN_OK);
    for (uint32_t k = 24; k-- > 0;)
    {
        for (uint32_t c = 0; c < (k % 3 == 0 ? 2u : 1u); c++)
        {
            TN_REQUIRE(ctx, tn_topology_add_link(t, sw, k, 1000, 1, -1, NULL, NULL, &err) == TN_OK);
        }
        if (k > 0)
        {
            TN_REQUIRE(ctx, tn_topology_add_link(t, 0, k, 1000, 1, -1, NULL, NULL, &err) == TN_OK);
        }
    }
    uint32_t wide = 0;
    check_every_hop(ctx, t, &wide);
    TN_CHECK(ctx, wide > 0);
    tn_topology_destroy(t);
}

void
tn_suite_routing_shape(tn_test_suite* suite)
{
    tn_test_add(suite, "every-kind", test_every_kind);
    tn_test_add(suite, "fallbacks", test_fallbacks);
    tn_test_add(suite, "wide-nodes", test_wide_nodes);
}
