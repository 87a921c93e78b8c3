/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-symmetry: which topologies' coordinate translations are automorphisms (tori, rings,
 * single switches, hier systems yes; meshes, fat-trees, leaf-spines no, naming what breaks
 * them); for every translation and link, the image is a link of the same rate, latency and
 * dim between the images of its ends; orbits of links have npu_count links each and their
 * representative is invariant under every translation; rank programs are translates for the
 * ring-like generators on symmetric topologies and not for rhd, dbt on a torus, or a ring
 * whose parts differ in length, each refusal naming the field.
 */
#include "tn-test.h"

#include "ns3/tn-program.h"
#include "ns3/tn-symmetry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const symmetric[] = {
    "torus:4x4",
    "torus:2x3",
    "torus:4x4,ports=2",
    "ring:7",
    "switch:8",
    "fc:5",
    "hier:switch4@100Gbps+switch4@400Gbps",
    "hier:ring4@200Gbps+switch8@100Gbps",
};

static void
test_translations(tn_test_ctx* ctx)
{
    for (size_t i = 0; i < sizeof(symmetric) / sizeof(symmetric[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, symmetric[i]);
        TN_REQUIRE(ctx, t);
        tn_symmetry* s = NULL;
        tn_error err;
        if (!TN_CHECK_MSG(ctx,
                          tn_symmetry_create(t, &s, &err) == TN_OK,
                          "%s: %s",
                          symmetric[i],
                          err.message))
        {
            tn_topology_destroy(t);
            continue;
        }
        const uint32_t npus = tn_topology_npu_count(t);
        const uint32_t links = tn_topology_link_count(t);
        uint32_t* orbit = calloc(links, sizeof(*orbit));
        uint32_t bad = 0;
        for (uint32_t l = 0; l < links; l++)
        {
            orbit[tn_symmetry_canonical_link(s, l)]++;
            const tn_link* a = tn_topology_link(t, l);
            for (uint32_t g = 0; g < npus; g++)
            {
                const uint32_t m = tn_symmetry_link_image(s, g, l);
                const tn_link* b = m == TN_TOPO_NONE ? NULL : tn_topology_link(t, m);
                bad += !b || b->src != tn_symmetry_node_image(s, g, a->src) ||
                       b->dst != tn_symmetry_node_image(s, g, a->dst) ||
                       b->rate_bps != a->rate_bps || b->latency_ns != a->latency_ns ||
                       b->dim != a->dim ||
                       tn_symmetry_canonical_link(s, m) != tn_symmetry_canonical_link(s, l);
            }
        }
        TN_CHECK_MSG(ctx, bad == 0, "%s: %u link images wrong", symmetric[i], bad);
        /* the group acts freely on links: every orbit has npu_count links */
        uint32_t orbits = 0, uneven = 0;
        for (uint32_t l = 0; l < links; l++)
        {
            orbits += orbit[l] > 0;
            uneven += orbit[l] > 0 && orbit[l] != npus;
        }
        TN_CHECK_MSG(ctx, uneven == 0, "%s: %u orbits not of %u links", symmetric[i], uneven, npus);
        TN_CHECK_EQ(ctx, orbits * npus, links);
        /* a translation and its inverse: t_g moves rank a to shift(g, a), translation finds g */
        for (uint32_t a = 0; a < npus; a++)
        {
            const uint32_t g = (a * 5 + 3) % npus;
            TN_CHECK_EQ(ctx, tn_symmetry_translation(s, a, tn_symmetry_shift_rank(s, g, a)), g);
        }
        free(orbit);
        tn_symmetry_destroy(s);
        tn_topology_destroy(t);
    }
}

static void
test_refused(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* spec;
        const char* says;
    } cases[] = {
        {"mesh:4x4", "maps link"},
        {"fattree:k=4", "no NPU"},
        {"leafspine:leaves=2,spines=2,hosts=2", "no NPU"},
        {"bigraph:4x2", "to no link"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, cases[i].spec);
        TN_REQUIRE(ctx, t);
        tn_symmetry* s = (tn_symmetry*)&cases[i];
        tn_error err;
        err.message[0] = 0;
        const tn_status st = tn_symmetry_create(t, &s, &err);
        TN_CHECK_MSG(ctx,
                     st == TN_EUNSUPPORTED && s == NULL && strstr(err.message, cases[i].says),
                     "%s: status %d, message '%s'",
                     cases[i].spec,
                     (int)st,
                     err.message);
        tn_topology_destroy(t);
    }
}

static tn_status
check_program(const char* spec,
              const char* algo,
              uint64_t bytes,
              tn_error* err,
              uint32_t exhaustive,
              uint64_t slack)
{
    tn_topology* t = NULL;
    tn_status st = tn_topology_from_spec(spec, &t, err);
    tn_symmetry* s = NULL;
    tn_program* p = NULL;
    if (st == TN_OK)
    {
        st = tn_symmetry_create(t, &s, err);
    }
    if (st == TN_OK)
    {
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = algo;
        req.ranks = tn_topology_npu_count(t);
        req.bytes = bytes;
        st = tn_program_create(t, &req, &p, err);
    }
    if (st == TN_OK)
    {
        st = tn_symmetry_check_program(s, p, NULL, exhaustive, 8, slack, err);
    }
    tn_program_destroy(p);
    tn_symmetry_destroy(s);
    tn_topology_destroy(t);
    return st;
}

static void
test_programs(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* spec;
        const char* algo;
        uint64_t bytes;
        const char* field; /* NULL: translates */
    } cases[] = {
        {"torus:4x4", "ring2d", 16u << 20, NULL},
        {"torus:8x8", "ring2d", 1u << 20, NULL},
        {"ring:8", "ring", 1u << 20, NULL},
        {"switch:8", "ring", 1u << 20, NULL},
        {"switch:8", "direct", 1u << 20, NULL},
        {"hier:switch4@100Gbps+switch4@400Gbps", "hierarchical", 1u << 20, NULL},
        {"hier:switch8@2880Gbps+switch16@400Gbps", "hierarchical", 64u << 20, NULL},
        {"torus:4x4", "rhd", 1u << 20, "peer"},
        {"switch:8", "dbt", 1u << 20, "ops"},
        /* 1000 bytes in 6 parts: 167 and 166 bytes, so ranks differ in length */
        {"ring:6", "ring", 1000, "length"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        for (uint32_t exhaustive = 0; exhaustive <= 1024; exhaustive += 1024)
        {
            tn_error err;
            err.message[0] = 0;
            const tn_status st =
                check_program(cases[i].spec, cases[i].algo, cases[i].bytes, &err, exhaustive, 0);
            if (!cases[i].field)
            {
                TN_CHECK_MSG(ctx,
                             st == TN_OK,
                             "%s %s (exhaustive %u): %s",
                             cases[i].spec,
                             cases[i].algo,
                             exhaustive,
                             err.message);
            }
            else
            {
                TN_CHECK_MSG(ctx,
                             st == TN_EUNSUPPORTED && strstr(err.message, cases[i].field) &&
                                 strstr(err.message, "not translates"),
                             "%s %s (exhaustive %u): status %d '%s'",
                             cases[i].spec,
                             cases[i].algo,
                             exhaustive,
                             (int)st,
                             err.message);
            }
        }
    }
}

/* parts that differ by the remainder's byte: translates up to a slack of 1, not of 0; the
 * other fields still have to agree */
static void
test_slack(tn_test_ctx* ctx)
{
    tn_error err;
    TN_CHECK_EQ(ctx, check_program("ring:6", "ring", 1000, &err, 1024, 0), TN_EUNSUPPORTED);
    TN_CHECK_MSG(ctx,
                 check_program("ring:6", "ring", 1000, &err, 1024, 1) == TN_OK,
                 "%s",
                 err.message);
    TN_CHECK_MSG(ctx,
                 check_program("hier:switch4@100Gbps+switch4@400Gbps",
                               "hierarchical",
                               1000003,
                               &err,
                               1024,
                               2) == TN_OK,
                 "%s",
                 err.message);
    TN_CHECK_EQ(ctx, check_program("torus:4x4", "rhd", 1000, &err, 1024, 1000), TN_EUNSUPPORTED);
    TN_CHECK_MSG(ctx, strstr(err.message, "peer") != NULL, "%s", err.message);
}

/* a ring over `count` ranks placed on the NPUs `npus` of the 32-NPU hier system, checked
 * with period 8: the replicas of 8 NPUs are translates of one another */
static tn_status
check_placed_ring(const uint32_t* npus, uint32_t count, uint32_t exhaustive, tn_error* err)
{
    tn_topology* t = NULL;
    tn_topology* ring = NULL;
    tn_symmetry* s = NULL;
    tn_program* p = NULL;
    char spec[32];
    snprintf(spec, sizeof(spec), "switch:%u", count);
    tn_status st = tn_topology_from_spec("hier:switch4@100Gbps+switch8@400Gbps", &t, err);
    if (st == TN_OK)
    {
        st = tn_topology_from_spec(spec, &ring, err);
    }
    if (st == TN_OK)
    {
        st = tn_symmetry_create(t, &s, err);
    }
    if (st == TN_OK)
    {
        st = tn_symmetry_set_period(s, 8, err);
    }
    if (st == TN_OK)
    {
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = "ring";
        req.bytes = 1u << 20;
        st = tn_program_create(ring, &req, &p, err);
    }
    uint32_t nodes[8];
    for (uint32_t r = 0; r < count; r++)
    {
        nodes[r] = tn_topology_npu_node(t, npus[r]);
    }
    if (st == TN_OK)
    {
        st = tn_symmetry_check_program(s, p, nodes, exhaustive, 8, 0, err);
    }
    tn_program_destroy(p);
    tn_symmetry_destroy(s);
    tn_topology_destroy(ring);
    tn_topology_destroy(t);
    return st;
}

/* a period narrows the group to a subgroup: its orbits, its refusals, and the programs of
 * collectives across the representative sets (data-parallel groups) */
static void
test_period(tn_test_ctx* ctx)
{
    tn_topology* t = tn_test_topology(ctx, "hier:switch4@100Gbps+switch8@400Gbps");
    TN_REQUIRE(ctx, t);
    tn_symmetry* s = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_symmetry_create(t, &s, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_symmetry_period(s), 1u);
    /* 3 and 64 divide nothing; 12 = 4 x 3 but 3 does not divide 8 */
    static const uint32_t bad[] = {0, 3, 6, 12, 64};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        TN_CHECK_MSG(ctx,
                     tn_symmetry_set_period(s, bad[i], &err) == TN_EINVAL &&
                         strstr(err.message, "period"),
                     "period %u accepted",
                     bad[i]);
    }
    static const uint32_t good[] = {2, 4, 8, 16, 32};
    const uint32_t npus = tn_topology_npu_count(t);
    const uint32_t links = tn_topology_link_count(t);
    uint32_t* orbit = calloc(links, sizeof(*orbit));
    TN_REQUIRE(ctx, orbit);
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
    {
        const uint32_t period = good[i];
        TN_REQUIRE(ctx, tn_symmetry_set_period(s, period, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_symmetry_period(s), period);
        memset(orbit, 0, links * sizeof(*orbit));
        uint32_t wrong = 0;
        for (uint32_t l = 0; l < links; l++)
        {
            const uint32_t c = tn_symmetry_canonical_link(s, l);
            orbit[c]++;
            /* the canonical link's NPU end is the representative of the link's NPU end */
            const tn_link* a = tn_topology_link(t, l);
            const tn_link* b = tn_topology_link(t, c);
            const bool src = tn_topology_node_kind(t, a->src) == TN_NODE_NPU;
            const uint32_t x = tn_topology_node_rank(t, src ? a->src : a->dst);
            const uint32_t y = tn_topology_node_rank(t, src ? b->src : b->dst);
            wrong += y != x % period || tn_symmetry_canonical_link(s, c) != c;
        }
        TN_CHECK_MSG(ctx, wrong == 0, "period %u: %u canonical links wrong", period, wrong);
        uint32_t uneven = 0, orbits = 0;
        for (uint32_t l = 0; l < links; l++)
        {
            orbits += orbit[l] > 0;
            uneven += orbit[l] > 0 && orbit[l] != npus / period;
        }
        TN_CHECK_MSG(ctx,
                     uneven == 0,
                     "period %u: %u orbits not of %u",
                     period,
                     uneven,
                     npus / period);
        TN_CHECK_EQ(ctx, orbits * (npus / period), links);
    }
    free(orbit);
    tn_symmetry_destroy(s);
    tn_topology_destroy(t);

    static const uint32_t replicas[] = {0, 8, 16, 24};
    static const uint32_t shifted[] = {1, 9, 17, 25};
    static const uint32_t inside[] = {0, 1, 2, 3};
    static const uint32_t misplaced[] = {0, 8, 24, 16};
    static const uint32_t unrepresented[] = {0, 8, 16, 25};
    static const uint32_t partial[] = {0, 16};
    for (uint32_t exhaustive = 0; exhaustive <= 1024; exhaustive += 1024)
    {
        TN_CHECK_MSG(ctx,
                     check_placed_ring(replicas, 4, exhaustive, &err) == TN_OK,
                     "%s",
                     err.message);
        TN_CHECK_MSG(ctx,
                     check_placed_ring(shifted, 4, exhaustive, &err) == TN_OK,
                     "%s",
                     err.message);
        TN_CHECK_MSG(ctx,
                     check_placed_ring(inside, 4, exhaustive, &err) == TN_OK,
                     "%s",
                     err.message);
        TN_CHECK_MSG(ctx,
                     check_placed_ring(misplaced, 4, exhaustive, &err) == TN_EUNSUPPORTED &&
                         strstr(err.message, "peer"),
                     "%s",
                     err.message);
        TN_CHECK_MSG(ctx,
                     check_placed_ring(unrepresented, 4, exhaustive, &err) == TN_EUNSUPPORTED &&
                         strstr(err.message, "representative NPU 1"),
                     "%s",
                     err.message);
        TN_CHECK_MSG(ctx,
                     check_placed_ring(partial, 2, exhaustive, &err) == TN_EUNSUPPORTED &&
                         strstr(err.message, "outside"),
                     "%s",
                     err.message);
    }
}

void
tn_suite_symmetry(tn_test_suite* suite)
{
    tn_test_add(suite, "translations", test_translations);
    tn_test_add(suite, "refused", test_refused);
    tn_test_add(suite, "programs", test_programs);
    tn_test_add(suite, "slack", test_slack);
    tn_test_add(suite, "period", test_period);
}
