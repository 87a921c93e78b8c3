/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Themis (tn-themis.c): per-chunk dimension orders against hand-computed loads,
 * baseline behaviour on load-balanced systems, verified schedules for FIFO and
 * SCF, and an estimate no worse than the hierarchical baseline.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-themis.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <string.h>

/* 3D switch system 4x4x4, 200/100/50 GB/s per NPU (heterogeneous) */
#define HET "hier:switch4@1600Gbps+switch4@800Gbps+switch4@400Gbps"
/* The Themis paper's heterogeneous 3D switch system (200/100/50 GB/s per dim) at 8x8x8:
 * the first dimension carries most of the baseline's load. On HET, where the baseline
 * order is already balanced, the per-link cost model (and packet level: 129 vs 162 us at
 * 16 MiB) finds the fixed order faster than Themis's chunked plan. */
#define PAPER_HET "hier:switch8@200Gbps+switch8@100Gbps+switch8@50Gbps"

static tn_themis_plan*
th_plan(tn_test_ctx* ctx, const char* spec, uint64_t bytes, uint32_t chunks, tn_collective coll)
{
    tn_error err;
    tn_topology* t = NULL;
    if (!TN_CHECK_MSG(ctx,
                      tn_topology_from_spec(spec, &t, &err) == TN_OK,
                      "%s: %s",
                      spec,
                      err.message))
    {
        return NULL;
    }
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "themis";
    req.collective = coll;
    req.bytes = bytes;
    req.chunks = chunks;
    tn_themis_plan* p = NULL;
    TN_CHECK_MSG(ctx,
                 tn_themis_plan_create(t, &req, &p, &err) == TN_OK,
                 "%s: %s",
                 spec,
                 err.message);
    tn_topology_destroy(t);
    return p;
}

static void
test_heterogeneous_orders_differ(tn_test_ctx* ctx)
{
    tn_themis_plan* p = th_plan(ctx, HET, 64ULL << 20, 64, TN_COLL_ALL_REDUCE);
    TN_REQUIRE(ctx, p != NULL);
    TN_CHECK_EQ(ctx, tn_themis_plan_chunks(p), 64);
    TN_CHECK_EQ(ctx, tn_themis_plan_dims(p), 3);
    uint32_t differ = 0;
    const uint32_t* o0 = tn_themis_plan_order(p, 0);
    for (uint32_t c = 1; c < 64; c++)
    {
        differ += memcmp(o0, tn_themis_plan_order(p, c), 3 * sizeof(uint32_t)) != 0;
        /* every order is a permutation */
        const uint32_t* o = tn_themis_plan_order(p, c);
        TN_CHECK(ctx,
                 o[0] != o[1] && o[1] != o[2] && o[0] != o[2] && o[0] < 3 && o[1] < 3 && o[2] < 3);
    }
    TN_CHECK(ctx, differ > 0);
    TN_CHECK(ctx, tn_themis_plan_is_baseline(p, 0)); /* zero loads: baseline */
    /* balancing: after 64 chunks the loads are within the threshold-ish spread of
     * one chunk's largest increment (s * 3/4 / 50 bytes/ns on the 50 GB/s dim) */
    const double* l = tn_themis_plan_loads(p, 63);
    double s = (double)(1 << 20);
    double lo = l[0] < l[1] ? (l[0] < l[2] ? l[0] : l[2]) : (l[1] < l[2] ? l[1] : l[2]);
    double hi = l[0] > l[1] ? (l[0] > l[2] ? l[0] : l[2]) : (l[1] > l[2] ? l[1] : l[2]);
    TN_CHECK_MSG(ctx, hi - lo <= s * 0.75 / 50, "loads %.0f %.0f %.0f", l[0], l[1], l[2]);
    tn_themis_plan_destroy(p);
}

static void
test_two_chunks_closed_form(tn_test_ctx* ctx)
{
    /* S = 2 MiB, 2 chunks of s = 1 MiB; BW 200, 100, 50 bytes/ns; P = 4 each.
     * chunk 0 (loads 0): baseline 0,1,2:
     *   d0 = s*3/4/200, d1 = (s/4)*3/4/100, d2 = (s/16)*3/4/50
     * chunk 1: ascending = 2,1,0; d0-d2 = s*(0.00375-0.0009375) > (s/16)*3/4/50 = s*0.0009375
     *   -> order 2,1,0: d2 += s*3/4/50, d1 += (s/4)*3/4/100, d0 += (s/16)*3/4/200 */
    double s = 1048576.0;
    tn_themis_plan* p = th_plan(ctx, HET, 2 * 1048576ULL, 2, TN_COLL_ALL_REDUCE);
    TN_REQUIRE(ctx, p != NULL);
    const uint32_t* o0 = tn_themis_plan_order(p, 0);
    const uint32_t* o1 = tn_themis_plan_order(p, 1);
    TN_CHECK(ctx, o0[0] == 0 && o0[1] == 1 && o0[2] == 2);
    TN_CHECK(ctx, o1[0] == 2 && o1[1] == 1 && o1[2] == 0);
    TN_CHECK(ctx, tn_themis_plan_is_baseline(p, 0));
    TN_CHECK(ctx, !tn_themis_plan_is_baseline(p, 1));
    const double* l0 = tn_themis_plan_loads(p, 0);
    TN_CHECK_NEAR(ctx, l0[0], s * 0.75 / 200, 1e-6);
    TN_CHECK_NEAR(ctx, l0[1], s / 4 * 0.75 / 100, 1e-6);
    TN_CHECK_NEAR(ctx, l0[2], s / 16 * 0.75 / 50, 1e-6);
    const double* l1 = tn_themis_plan_loads(p, 1);
    TN_CHECK_NEAR(ctx, l1[0], s * 0.75 / 200 + s / 16 * 0.75 / 200, 1e-6);
    TN_CHECK_NEAR(ctx, l1[1], 2 * (s / 4 * 0.75 / 100), 1e-6);
    TN_CHECK_NEAR(ctx, l1[2], s / 16 * 0.75 / 50 + s * 0.75 / 50, 1e-6);
    tn_themis_plan_destroy(p);
}

static void
test_balanced_system_uses_baseline(tn_test_ctx* ctx)
{
    /* BW_d proportional to the data each dim sees in the baseline order
     * (1600, 400, 100 Gbps with P = 4): every chunk adds the same load to every
     * dim, the spread stays 0 and every chunk keeps the baseline order. */
    tn_themis_plan* p = th_plan(ctx,
                                "hier:switch4@1600Gbps+switch4@400Gbps+switch4@100Gbps",
                                64ULL << 20,
                                64,
                                TN_COLL_ALL_REDUCE);
    TN_REQUIRE(ctx, p != NULL);
    for (uint32_t c = 0; c < 64; c++)
    {
        TN_CHECK_MSG(ctx, tn_themis_plan_is_baseline(p, c), "chunk %u", c);
    }
    tn_themis_plan_destroy(p);
}

static void
test_homogeneous(tn_test_ctx* ctx)
{
    /* 100/100/100: the baseline order loads dim 0 most (x shrinks by P per dim), so
     * the literal rule balances: chunk 0 baseline, chunk 1 ascending order 2,1,0
     * (d0 - d2 = s*3/4/B*(1 - 1/16) > threshold s/16*3/4/B). */
    tn_themis_plan* p = th_plan(ctx,
                                "hier:switch4@800Gbps+switch4@800Gbps+switch4@800Gbps",
                                64ULL << 20,
                                64,
                                TN_COLL_ALL_REDUCE);
    TN_REQUIRE(ctx, p != NULL);
    TN_CHECK(ctx, tn_themis_plan_is_baseline(p, 0));
    const uint32_t* o1 = tn_themis_plan_order(p, 1);
    TN_CHECK(ctx, o1[0] == 2 && o1[1] == 1 && o1[2] == 0);
    /* forced baseline: every chunk baseline, loads = 64 x the per-chunk closed form */
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx,
               tn_topology_from_spec("hier:switch4@800Gbps+switch4@800Gbps+switch4@800Gbps",
                                     &t,
                                     &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "themis";
    req.bytes = 64ULL << 20;
    req.chunks = 64;
    req.themis.baseline = true;
    tn_themis_plan* b = NULL;
    TN_CHECK(ctx, tn_themis_plan_create(t, &req, &b, &err) == TN_OK);
    if (b)
    {
        for (uint32_t c = 0; c < 64; c++)
        {
            TN_CHECK(ctx, tn_themis_plan_is_baseline(b, c));
        }
        const double* l = tn_themis_plan_loads(b, 63);
        double S = (double)(64ULL << 20);
        TN_CHECK_NEAR(ctx, l[0], S * 0.75 / 100, 1e-3);
        TN_CHECK_NEAR(ctx, l[2], S / 16 * 0.75 / 100, 1e-3);
    }
    tn_themis_plan_destroy(b);
    tn_topology_destroy(t);
    tn_themis_plan_destroy(p);
}

static void
test_all_gather_rule(tn_test_ctx* ctx)
{
    /* all-gather alone: chunk 0 baseline AG order 2,1,0; x grows from s/N */
    tn_themis_plan* p = th_plan(ctx, HET, 2 * 1048576ULL, 2, TN_COLL_ALL_GATHER);
    TN_REQUIRE(ctx, p != NULL);
    const uint32_t* o0 = tn_themis_plan_order(p, 0);
    TN_CHECK(ctx, o0[0] == 2 && o0[1] == 1 && o0[2] == 0);
    double s = 1048576.0;
    const double* l0 = tn_themis_plan_loads(p, 0);
    /* dim 2 first: x = s/64*4, then dim 1: x = s/4, then dim 0: x = s */
    TN_CHECK_NEAR(ctx, l0[2], s / 16 * 0.75 / 50, 1e-6);
    TN_CHECK_NEAR(ctx, l0[1], s / 4 * 0.75 / 100, 1e-6);
    TN_CHECK_NEAR(ctx, l0[0], s * 0.75 / 200, 1e-6);
    tn_themis_plan_destroy(p);
}

static double
th_estimate(tn_test_ctx* ctx, const tn_topology* t, const tn_plan_request* req, bool verify)
{
    tn_error err;
    tn_schedule* s = NULL;
    double time = -1;
    if (!TN_CHECK_MSG(ctx,
                      tn_plan(t, req, &s, &err) == TN_OK,
                      "%s: %s",
                      req->algorithm,
                      err.message))
    {
        return time;
    }
    if (verify)
    {
        TN_CHECK_MSG(ctx,
                     tn_verify_schedule(s, t, NULL, &err) == TN_OK,
                     "%s: %s",
                     req->algorithm,
                     err.message);
    }
    tn_cost_result* res = NULL;
    if (TN_CHECK_MSG(ctx,
                     tn_cost_estimate(s, t, NULL, NULL, &res, &err) == TN_OK,
                     "%s",
                     err.message))
    {
        time = res->time_ns;
    }
    tn_cost_result_destroy(res);
    tn_schedule_destroy(s);
    return time;
}

static void
test_policies_verify(tn_test_ctx* ctx)
{
    static const char* specs[] = {"hier:ring4@800Gbps+switch4@400Gbps+switch2@200Gbps",
                                  "hier:fc3@600Gbps+ring4@400Gbps+switch2@200Gbps",
                                  "torus:4x4"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        if (!TN_CHECK(ctx, tn_topology_from_spec(specs[i], &t, &err) == TN_OK))
        {
            continue;
        }
        for (int pol = 0; pol < 2; pol++)
        {
            for (uint32_t a = 1; a <= 2; a++)
            {
                tn_plan_request req;
                tn_plan_request_init(&req);
                req.algorithm = "themis";
                req.bytes = 1000003;
                req.chunks = 8;
                req.themis.policy = pol ? TN_THEMIS_SCF : TN_THEMIS_FIFO;
                req.themis.active_chunks_per_dim = a;
                double time = th_estimate(ctx, t, &req, true);
                TN_CHECK(ctx, time > 0);
            }
        }
        tn_topology_destroy(t);
    }
}

static void
test_beats_baseline(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec(PAPER_HET, &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.bytes = 16ULL << 20;
    req.chunks = 16;
    req.algorithm = "themis";
    double themis = th_estimate(ctx, t, &req, false);
    req.themis.policy = TN_THEMIS_SCF;
    double scf = th_estimate(ctx, t, &req, false);
    req.algorithm = "hierarchical";
    double base = th_estimate(ctx, t, &req, false);
    TN_CHECK_MSG(ctx,
                 themis > 0 && themis <= base,
                 "themis %.0f ns vs hierarchical %.0f ns",
                 themis,
                 base);
    TN_CHECK_MSG(ctx,
                 scf > 0 && scf <= base,
                 "themis-scf %.0f ns vs hierarchical %.0f ns",
                 scf,
                 base);
    tn_topology_destroy(t);
}

static void
test_errors(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("bigraph:4x8", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "themis";
    req.bytes = 4096;
    tn_schedule* s = NULL;
    TN_CHECK(ctx, tn_plan(t, &req, &s, &err) != TN_OK);
    TN_CHECK(ctx, strstr(err.message, "themis") != NULL);
    tn_topology_destroy(t);
    tn_themis_balancer* b = NULL;
    uint32_t sizes[2] = {4, 0};
    uint64_t bw[2] = {1, 1};
    TN_CHECK_EQ(ctx, tn_themis_balancer_create(2, sizes, bw, &b, &err), TN_EINVAL);
    TN_CHECK(ctx, b == NULL);
}

/* The policies' names: each parses back to its policy; an unknown one is refused naming both. */
static void
test_policy_names(tn_test_ctx* ctx)
{
    tn_error err;
    const tn_themis_policy all[] = {TN_THEMIS_FIFO, TN_THEMIS_SCF};
    for (size_t i = 0; i < 2; i++)
    {
        tn_themis_policy back = all[1 - i];
        TN_CHECK_EQ(ctx, tn_themis_policy_parse(tn_themis_policy_name(all[i]), &back, &err), TN_OK);
        TN_CHECK_EQ(ctx, back, all[i]);
    }
    TN_CHECK(ctx, strcmp(tn_themis_policy_name(TN_THEMIS_FIFO), "fifo") == 0);
    TN_CHECK(ctx, strcmp(tn_themis_policy_name(TN_THEMIS_SCF), "scf") == 0);
    TN_CHECK(ctx, strcmp(tn_themis_policy_name((tn_themis_policy)7), "?") == 0);
    tn_themis_policy p = TN_THEMIS_SCF;
    TN_CHECK_EQ(ctx, tn_themis_policy_parse("SCF", &p, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, p, TN_THEMIS_SCF);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "'SCF'") && strstr(err.message, "fifo or scf"),
                 "%s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_themis_policy_parse(NULL, &p, &err), TN_EINVAL);
}

void
tn_suite_themis(tn_test_suite* suite)
{
    tn_test_add(suite, "heterogeneous-orders-differ", test_heterogeneous_orders_differ);
    tn_test_add(suite, "two-chunks-closed-form", test_two_chunks_closed_form);
    tn_test_add(suite, "balanced-system-baseline", test_balanced_system_uses_baseline);
    tn_test_add(suite, "homogeneous", test_homogeneous);
    tn_test_add(suite, "all-gather-rule", test_all_gather_rule);
    tn_test_add(suite, "policies-verify", test_policies_verify);
    tn_test_add(suite, "beats-baseline", test_beats_baseline);
    tn_test_add(suite, "errors", test_errors);
    tn_test_add(suite, "policy-names", test_policy_names);
}
