/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * MultiTree (tn-algo-multitree.c): every schedule must verify (data and deps),
 * use no (directed link, step) twice, respect T >= ceil((N-1)/ports), move
 * exactly 2(N-1)S bytes for an all-reduce (each slice crosses N-1 tree edges
 * twice), and beat the ring on a 4x4 torus in the cost model.
 * The test "t-table" (includes the 1024-node 32x32 torus) writes the measured T per topology to
 * <temp>/multitree-steps.txt (copied into doc/core-algorithms.rst). The test "t-bounds"
 * asserts, per topology and port budget, the bound T >= ceil((N-1)/ports), T = N-1 on
 * one-NIC BiGraphs (the bound: one receive per NPU and step), and no regression above
 * the T measured before the nearest-parent search through switches (an upper limit).
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* S not divisible by any N used here */
#define MT_BYTES 1000003ULL

/* Effective ports: the smallest per-NPU budget min(ports, cables) (0 = cables). */
static uint32_t
mt_ports(const tn_topology* t, uint32_t ports)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t r = 0; r < tn_topology_npu_count(t); r++)
    {
        uint32_t deg = tn_topology_degree(t, tn_topology_npu_node(t, r));
        uint32_t p = ports && ports < deg ? ports : deg;
        best = p < best ? p : best;
    }
    return best;
}

/* Plan, verify and check the invariants; returns T (0 on failure). */
static uint32_t
mt_check(tn_test_ctx* ctx, const char* spec, tn_collective coll, uint32_t ports)
{
    tn_error err;
    tn_topology* t = NULL;
    if (!TN_CHECK_MSG(ctx,
                      tn_topology_from_spec(spec, &t, &err) == TN_OK,
                      "%s: %s",
                      spec,
                      err.message))
    {
        return 0;
    }
    uint32_t n = tn_topology_npu_count(t);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "multitree";
    req.collective = coll;
    req.bytes = MT_BYTES;
    req.ports_per_node = ports;
    tn_schedule* s = NULL;
    uint32_t T = 0;
    tn_status rc = tn_plan(t, &req, &s, &err);
    if (TN_CHECK_MSG(ctx, rc == TN_OK, "%s ports %u: plan: %s", spec, ports, err.message))
    {
        TN_CHECK(ctx, tn_schedule_contention_free(s));
        rc = tn_verify_schedule(s, t, NULL, &err);
        TN_CHECK_MSG(ctx, rc == TN_OK, "%s ports %u: verify: %s", spec, ports, err.message);
        tn_contention_report* rep = NULL;
        rc = tn_verify_contention(s, t, NULL, &rep, &err);
        if (TN_CHECK_MSG(ctx, rc == TN_OK, "%s: contention: %s", spec, err.message))
        {
            TN_CHECK_MSG(ctx,
                         rep->conflicts == 0,
                         "%s ports %u: %llu conflicts",
                         spec,
                         ports,
                         (unsigned long long)rep->conflicts);
        }
        tn_contention_report_destroy(rep);
        uint32_t phases = coll == TN_COLL_ALL_REDUCE ? 2 : 1;
        uint32_t steps = tn_schedule_steps(s);
        TN_CHECK_EQ(ctx, steps % phases, 0);
        T = steps / phases;
        uint32_t p = mt_ports(t, ports);
        uint32_t bound = (n - 1 + p - 1) / p;
        TN_CHECK_MSG(ctx,
                     T >= bound,
                     "%s ports %u: T = %u < ceil((N-1)/%u) = %u",
                     spec,
                     ports,
                     T,
                     p,
                     bound);
        /* each slice crosses N-1 edges per phase; all slices non-empty (S > N) */
        TN_CHECK_EQ(ctx, tn_schedule_count(s), (uint64_t)phases * n * (n - 1));
        TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), (uint64_t)phases * (n - 1) * MT_BYTES);
    }
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
    return T;
}

static void
test_torus(tn_test_ctx* ctx)
{
    mt_check(ctx, "torus:4x4", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "torus:4x4", TN_COLL_ALL_REDUCE, 1);
    mt_check(ctx, "torus:4x4", TN_COLL_ALL_REDUCE, 2);
    mt_check(ctx, "torus:8x8", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "torus:8x8", TN_COLL_ALL_REDUCE, 1);
    mt_check(ctx, "torus:8x8", TN_COLL_ALL_REDUCE, 2);
    mt_check(ctx, "torus:16x16", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "torus:4x4,ports=2", TN_COLL_ALL_REDUCE, 0);
}

static void
test_mesh(tn_test_ctx* ctx)
{
    mt_check(ctx, "mesh:4x4", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "mesh:4x4", TN_COLL_ALL_REDUCE, 1);
    mt_check(ctx, "mesh:8x8", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "mesh:8x8", TN_COLL_ALL_REDUCE, 2);
}

static void
test_switched(tn_test_ctx* ctx)
{
    mt_check(ctx, "leafspine:leaves=8,spines=8,hosts=8", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "bigraph:4x8", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "bigraph:4x16", TN_COLL_ALL_REDUCE, 0);
    mt_check(ctx, "switch:8", TN_COLL_ALL_REDUCE, 0);
    /* one NIC cable: T >= N-1 = 7, and a single switch reaches it */
    TN_CHECK_EQ(ctx, mt_check(ctx, "switch:8", TN_COLL_ALL_REDUCE, 2), 7);
}

static void
test_ring_sizes(tn_test_ctx* ctx)
{
    for (uint32_t n = 2; n <= 64; n++)
    {
        char spec[32];
        snprintf(spec, sizeof(spec), "ring:%u", n);
        /* on a ring the tree of r grows one node each way per step: T = ceil((N-1)/2),
         * ring:2 has a single cable: T = 1 */
        uint32_t expect = n == 2 ? 1 : n / 2;
        TN_CHECK_EQ(ctx, mt_check(ctx, spec, TN_COLL_ALL_REDUCE, 0), expect);
        if (n % 8 == 1)
        {
            TN_CHECK_EQ(ctx, mt_check(ctx, spec, TN_COLL_ALL_REDUCE, 1), n - 1);
        }
    }
}

static void
test_rs_ag(tn_test_ctx* ctx)
{
    uint32_t t_ar = mt_check(ctx, "torus:4x4", TN_COLL_ALL_REDUCE, 0);
    TN_CHECK_EQ(ctx, mt_check(ctx, "torus:4x4", TN_COLL_REDUCE_SCATTER, 0), t_ar);
    TN_CHECK_EQ(ctx, mt_check(ctx, "torus:4x4", TN_COLL_ALL_GATHER, 0), t_ar);
    mt_check(ctx, "bigraph:4x8", TN_COLL_REDUCE_SCATTER, 0);
    mt_check(ctx, "mesh:4x4", TN_COLL_ALL_GATHER, 0);
}

static void
test_small_and_errors(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:4x4", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "multitree";
    req.bytes = 5; /* fewer bytes than ranks: empty slices are omitted */
    tn_schedule* s = NULL;
    TN_CHECK(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
    if (s)
    {
        TN_CHECK(ctx, tn_verify_schedule(s, t, NULL, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * 5 * 15);
    }
    tn_schedule_destroy(s);
    s = NULL;
    req.collective = TN_COLL_ALL_TO_ALL;
    TN_CHECK(ctx, tn_plan(t, &req, &s, &err) != TN_OK);
    TN_CHECK(ctx, s == NULL);
    TN_CHECK(ctx, strstr(err.message, "multitree") != NULL);
    tn_topology_destroy(t);
}

static void
test_cost_vs_ring(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:4x4", &t, &err) == TN_OK);
    double time[2] = {0, 0};
    const char* algs[2] = {"multitree", "ring"};
    for (int i = 0; i < 2; i++)
    {
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = algs[i];
        req.bytes = 64ULL << 20;
        tn_schedule* s = NULL;
        if (!TN_CHECK_MSG(ctx, tn_plan(t, &req, &s, &err) == TN_OK, "%s: %s", algs[i], err.message))
        {
            continue;
        }
        tn_cost_result* res = NULL;
        if (TN_CHECK_MSG(ctx,
                         tn_cost_estimate(s, t, NULL, NULL, &res, &err) == TN_OK,
                         "%s",
                         err.message))
        {
            time[i] = res->time_ns;
        }
        tn_cost_result_destroy(res);
        tn_schedule_destroy(s);
    }
    TN_CHECK_MSG(ctx,
                 time[0] > 0 && time[1] >= 1.8 * time[0],
                 "ring %.0f ns vs multitree %.0f ns: speedup %.2f < 1.8",
                 time[1],
                 time[0],
                 time[0] > 0 ? time[1] / time[0] : 0.0);
    /* and no all-reduce beats the injection bound 2(N-1)/N S / (4 links x 16 GB/s) */
    double bound = tn_cost_allreduce_lower_bound_ns(16, 64ULL << 20, 4 * TN_TOPO_DEFAULT_RATE_BPS);
    TN_CHECK(ctx, time[0] >= bound * 0.999);
    tn_topology_destroy(t);
}

static void
test_t_table(tn_test_ctx* ctx)
{
    static const char* specs[] = {"ring:8",
                                  "ring:16",
                                  "ring:64",
                                  "torus:4x4",
                                  "torus:8x8",
                                  "torus:16x16",
                                  "torus:32x32",
                                  "mesh:4x4",
                                  "mesh:8x8",
                                  "torus:4x4x4",
                                  "leafspine:leaves=8,spines=8,hosts=8",
                                  "leafspine:leaves=8,spines=4,hosts=8,oversub=2",
                                  "fattree:k=4",
                                  "fattree:k=6",
                                  "bigraph:4x8",
                                  "bigraph:4x16",
                                  "bigraph:8x8",
                                  "switch:16",
                                  "hier:ring4@200Gbps+switch8@100Gbps"};
    char path[1024];
    FILE* f = fopen(tn_test_temp_path(ctx, "multitree-steps.txt", path, sizeof(path)), "w");
    TN_CHECK(ctx, f != NULL);
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        if (!TN_CHECK(ctx, tn_topology_from_spec(specs[i], &t, &err) == TN_OK))
        {
            continue;
        }
        uint32_t n = tn_topology_npu_count(t);
        uint32_t row[3] = {0, 0, 0};
        uint32_t pv[3] = {0, 1, 2};
        for (int k = 0; k < 3; k++)
        {
            row[k] = n <= 256 || k == 0 ? mt_check(ctx, specs[i], TN_COLL_ALL_REDUCE, pv[k]) : 0;
        }
        if (f)
        {
            fprintf(f, "%s %u %u %u %u %u\n", specs[i], n, mt_ports(t, 0), row[0], row[1], row[2]);
        }
        tn_topology_destroy(t);
    }
    if (f)
    {
        fclose(f);
    }
}

/* Per topology and port budget: the bound, exactness where it is reachable, and an
 * upper limit = the T of the first-frozen-node search (before the change). */
static void
test_t_bounds(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* spec;
        uint32_t ports;
        uint32_t old_t; /* T before: the result must not be larger */
        bool exact;     /* T must equal the bound ceil((N-1)/ports) */
    } rows[] = {
        {"ring:8", 0, 4, true},
        {"ring:16", 1, 15, true},
        {"torus:4x4", 0, 5, false},
        {"torus:4x4", 1, 15, true},
        {"torus:4x4", 2, 8, true},
        {"torus:8x8", 0, 17, false},
        {"torus:4x4x4", 0, 12, false},
        {"mesh:4x4", 0, 9, false},
        {"mesh:8x8", 0, 32, false},
        {"mesh:8x8", 2, 39, false},
        {"fattree:k=4", 0, 15, true},
        {"fattree:k=6", 0, 61, false},
        {"leafspine:leaves=8,spines=8,hosts=8", 0, 63, true},
        {"leafspine:leaves=8,spines=4,hosts=8,oversub=2", 0, 98, false},
        {"leafspine:leaves=4,spines=2,hosts=4", 0, 24, false},
        {"switch:16", 0, 15, true},
        {"hier:ring4@200Gbps+switch8@100Gbps", 0, 11, false},
        /* BiGraph, one NIC cable per NPU: the bound N-1 is reached */
        {"bigraph:4x8", 0, 39, true},
        {"bigraph:4x8", 1, 39, true},
        {"bigraph:4x16", 0, 79, true},
        {"bigraph:4x16", 1, 79, true},
        {"bigraph:8x8", 0, 87, true},
        {"bigraph:8x4", 0, 43, true},
        {"bigraph:2x8", 0, 15, true},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        if (!TN_CHECK(ctx, tn_topology_from_spec(rows[i].spec, &t, &err) == TN_OK))
        {
            continue;
        }
        uint32_t n = tn_topology_npu_count(t);
        uint32_t p = mt_ports(t, rows[i].ports);
        uint32_t bound = (n - 1 + p - 1) / p;
        uint32_t T = mt_check(ctx, rows[i].spec, TN_COLL_ALL_REDUCE, rows[i].ports);
        TN_CHECK_MSG(ctx,
                     T >= bound && T <= rows[i].old_t,
                     "%s ports %u: T = %u, bound %u, before %u",
                     rows[i].spec,
                     rows[i].ports,
                     T,
                     bound,
                     rows[i].old_t);
        if (rows[i].exact)
        {
            TN_CHECK_MSG(ctx,
                         T == bound,
                         "%s ports %u: T = %u, expected the bound ceil((N-1)/%u) = %u",
                         rows[i].spec,
                         rows[i].ports,
                         T,
                         p,
                         bound);
        }
        tn_topology_destroy(t);
    }
}

void
tn_suite_multitree(tn_test_suite* suite)
{
    tn_test_add(suite, "torus", test_torus);
    tn_test_add(suite, "mesh", test_mesh);
    tn_test_add(suite, "switched", test_switched);
    tn_test_add(suite, "ring-sizes", test_ring_sizes);
    tn_test_add(suite, "rs-ag", test_rs_ag);
    tn_test_add(suite, "small-and-errors", test_small_and_errors);
    tn_test_add(suite, "cost-vs-ring", test_cost_vs_ring);
    tn_test_add(suite, "t-table", test_t_table);
    tn_test_add(suite, "t-bounds", test_t_bounds);
}
