/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of routes computed from a topology's shape (tn-shape.h): on small instances of
 * every generated kind, every (node, destination) pair has the distance, the next hops
 * (both orders) and the path count of the BFS tables; shapes are dropped where they would
 * be wrong (a cable added, NPU transit forbidden on a grid, a destination list).
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

void
tn_suite_routing_shape(tn_test_suite* suite)
{
    tn_test_add(suite, "every-kind", test_every_kind);
    tn_test_add(suite, "fallbacks", test_fallbacks);
}
