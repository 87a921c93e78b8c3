/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Cost model: ring all-reduce closed form 2(N-1)(a + S/(N B)), serialisation on a
 * shared link, algbw/busbw conventions, lower bound.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"

/* A collective of 0 bytes is only synchronisation: each step costs its latency, and the
 * estimate must not fail (it said "out of memory" when no transfer had bytes). */
static void
test_zero_bytes(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("ring:4,latency=1us", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "ring";
    req.bytes = 0;
    tn_schedule* s = NULL;
    TN_REQUIRE(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
    tn_cost_result* r = NULL;
    TN_CHECK_MSG(ctx,
                 tn_cost_estimate(s, t, NULL, NULL, &r, &err) == TN_OK,
                 "estimate of 0 bytes: %s",
                 err.message);
    if (r)
    {
        /* 2(N-1) steps of one hop each, latency only (sync transfers carry no routes) */
        TN_CHECK(ctx, r->time_ns >= 0 && r->time_ns <= 2.0 * 3 * 1000);
        TN_CHECK_EQ(ctx, r->total_bytes, 0u);
    }
    tn_cost_result_destroy(r);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

static void
test_ring_closed_form(tn_test_ctx* ctx)
{
    static const uint32_t ns[] = {2, 3, 4, 8, 16, 64};
    static const uint64_t rates[] = {8000000000ULL, 100000000000ULL, 128000000000ULL};
    static const uint64_t lats[] = {0, 150, 1000};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        for (size_t r = 0; r < 3; r++)
            for (size_t l = 0; l < 3; l++)
            {
                uint32_t N = ns[i];
                uint64_t S = (uint64_t)N * 1000 * (r + 1) * 64; /* divisible by N */
                tn_link_params lp = {rates[r], lats[l]};
                tn_topology* t = NULL;
                tn_error err;
                TN_REQUIRE(ctx, tn_topology_ring(N, &lp, &t, &err) == TN_OK);
                tn_plan_request req;
                tn_plan_request_init(&req);
                req.bytes = S;
                tn_schedule* s = NULL;
                TN_REQUIRE(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
                tn_cost_result* res = NULL;
                TN_CHECK_EQ(ctx, tn_cost_estimate(s, t, NULL, NULL, &res, &err), TN_OK);
                /* independent closed form, B in bytes per ns */
                double B = (double)rates[r] / 8e9;
                double expect = 2.0 * (N - 1) * ((double)lats[l] + (double)S / (N * B));
                if (res)
                {
                    TN_CHECK_NEAR(ctx, res->time_ns, expect, expect * 1e-12);
                    TN_CHECK_NEAR(ctx,
                                  tn_cost_ring_allreduce_ns(N, S, (double)lats[l], rates[r]),
                                  expect,
                                  expect * 1e-12);
                    /* every directed link of the ring direction carries 2(N-1) S/N bytes */
                    uint64_t per_link = 2 * (N - 1) * (S / N);
                    uint64_t l01 = res->link_bytes[tn_topology_find_link(t, 0, 1)];
                    TN_CHECK_EQ(ctx, l01, per_link);
                    TN_CHECK_EQ(ctx, res->link_bytes_sum, 2ULL * (N - 1) * S);
                }
                /* the same without a topology (private links) */
                tn_cost_result* res2 = NULL;
                tn_cost_options opt = {rates[r], lats[l], 0, 0, 0};
                TN_CHECK_EQ(ctx, tn_cost_estimate(s, NULL, NULL, &opt, &res2, &err), TN_OK);
                if (res2)
                    TN_CHECK_NEAR(ctx, res2->time_ns, expect, expect * 1e-12);
                tn_cost_result_destroy(res);
                tn_cost_result_destroy(res2);
                tn_schedule_destroy(s);
                tn_topology_destroy(t);
            }
}

static void
test_serialisation(tn_test_ctx* ctx)
{
    /* two independent 1000-byte transfers on the same link at 8 Gbit/s (1 B/ns), 100 ns */
    tn_topology* t = NULL;
    tn_error err;
    tn_link_params lp = {8000000000ULL, 100};
    TN_REQUIRE(ctx, tn_topology_ring(2, &lp, &t, &err) == TN_OK);
    tn_schedule* s = NULL;
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_BROADCAST, 2, 2000, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec a = {0, 1, 0, 0, 1000, TN_OP_COPY, 0, -1, 0};
    tn_transfer_spec b = {0, 1, 1000, 1000, 1000, TN_OP_COPY, 0, -1, 0};
    tn_schedule_add(s, &a, NULL, 0, NULL, &err);
    tn_schedule_add(s, &b, NULL, 0, NULL, &err);
    TN_REQUIRE(ctx, tn_schedule_finalize(s, &err) == TN_OK);
    tn_cost_options opt = {0, 0, 1, 0, 0};
    tn_cost_result* r = NULL;
    TN_CHECK_EQ(ctx, tn_cost_estimate(s, t, NULL, &opt, &r, &err), TN_OK);
    if (r)
    {
        /* second waits for the first's serialisation: 1000 + 1000 + 100 */
        TN_CHECK_NEAR(ctx, r->time_ns, 2100.0, 1e-9);
        TN_CHECK_NEAR(ctx, r->start_ns[1], 1000.0, 1e-9);
        TN_CHECK_NEAR(ctx, r->end_ns[0], 1100.0, 1e-9);
        TN_CHECK_NEAR(ctx, r->max_link_busy_ns, 2000.0, 1e-9);
    }
    tn_cost_result_destroy(r);
    /* with a dependency: b after a completes: 1100 + 1100 */
    tn_schedule_add_dep(s, 1, 0, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_cost_estimate(s, t, NULL, NULL, &r, &err), TN_OK);
    if (r)
        TN_CHECK_NEAR(ctx, r->time_ns, 2200.0, 1e-9);
    tn_cost_result_destroy(r);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

static void
test_bandwidths(tn_test_ctx* ctx)
{
    /* 1 GB in 1 s: algbw 1e9 B/s */
    TN_CHECK_NEAR(ctx, tn_algbw(1000000000ULL, 1e9), 1e9, 1e-3);
    TN_CHECK_NEAR(ctx, tn_busbw(TN_COLL_ALL_REDUCE, 8, 1000000000ULL, 1e9), 1e9 * 2 * 7 / 8, 1e-3);
    TN_CHECK_NEAR(ctx, tn_busbw(TN_COLL_ALL_GATHER, 8, 1000000000ULL, 1e9), 1e9 * 7 / 8, 1e-3);
    TN_CHECK_NEAR(ctx, tn_busbw(TN_COLL_REDUCE_SCATTER, 4, 1000000000ULL, 1e9), 1e9 * 3 / 4, 1e-3);
    TN_CHECK_NEAR(ctx, tn_busbw(TN_COLL_BROADCAST, 4, 1000000000ULL, 1e9), 1e9, 1e-3);
    TN_CHECK_EQ(ctx, tn_algbw(100, 0), 0);
    /* lower bound 2(N-1)/N S / B: N=4, 8 MB, 8 Gbit/s = 1 B/ns -> 1.5 * 8e6 ns */
    TN_CHECK_NEAR(ctx, tn_cost_allreduce_lower_bound_ns(4, 8000000, 8000000000ULL), 12e6, 1e-3);
    /* the ring closed form meets the bound when latency is 0 and B_inj = one link */
    TN_CHECK_NEAR(ctx, tn_cost_ring_allreduce_ns(4, 8000000, 0, 8000000000ULL), 12e6, 1e-3);
}

void
tn_suite_cost(tn_test_suite* suite)
{
    tn_test_add(suite, "zero-bytes", test_zero_bytes);
    tn_test_add(suite, "ring-closed-form", test_ring_closed_form);
    tn_test_add(suite, "serialisation", test_serialisation);
    tn_test_add(suite, "bandwidths", test_bandwidths);
}
