/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EFLOPS HDRM (tn-algo-hdrm.c) on BiGraph: verified, contention-free, 2 log2(N)
 * steps, every pair of a step sits on an upper and a lower switch (path =
 * NPU->switch->switch->NPU), clear errors otherwise.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <string.h>

static void
hdrm_check(tn_test_ctx* ctx, const char* spec, uint32_t chunks)
{
    tn_error err;
    tn_topology* t = NULL;
    if (!TN_CHECK_MSG(ctx, tn_topology_from_spec(spec, &t, &err) == TN_OK, "%s", err.message))
    {
        return;
    }
    uint32_t n = tn_topology_npu_count(t);
    uint32_t log2n = 0;
    while ((1u << log2n) < n)
    {
        log2n++;
    }
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "hdrm";
    req.bytes = 1000003;
    req.chunks = chunks;
    tn_schedule* s = NULL;
    if (TN_CHECK_MSG(ctx, tn_plan(t, &req, &s, &err) == TN_OK, "%s: %s", spec, err.message))
    {
        TN_CHECK(ctx, tn_schedule_contention_free(s));
        TN_CHECK_MSG(ctx,
                     tn_verify_schedule(s, t, NULL, &err) == TN_OK,
                     "%s: %s",
                     spec,
                     err.message);
        tn_contention_report* rep = NULL;
        if (TN_CHECK(ctx, tn_verify_contention(s, t, NULL, &rep, &err) == TN_OK))
        {
            TN_CHECK_EQ(ctx, rep->conflicts, 0);
        }
        tn_contention_report_destroy(rep);
        TN_CHECK_EQ(ctx, tn_schedule_steps(s), 2 * log2n * chunks);
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * log2n * n * chunks);
        /* halving-doubling volume: at the step of bit b every block is sent by 2^b
         * ranks, so each phase moves (1 + 2 + ... + N/2) S = (N-1) S bytes */
        TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 2ULL * (n - 1) * 1000003ULL);
        uint32_t cross = 0;
        for (uint32_t i = 0; i < tn_schedule_count(s); i++)
        {
            uint32_t len = 0;
            tn_schedule_path(s, i, &len);
            cross += len == 3;
        }
        /* the EFLOPS mapping puts every pair of every step on opposite halves */
        TN_CHECK_EQ(ctx, cross, tn_schedule_count(s));
    }
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

static void
test_bigraph(tn_test_ctx* ctx)
{
    hdrm_check(ctx, "bigraph:4x8", 1);
    hdrm_check(ctx, "bigraph:4x16", 1);
    hdrm_check(ctx, "bigraph:8x8", 1);
    hdrm_check(ctx, "bigraph:8x4", 1);
    hdrm_check(ctx, "bigraph:4x8", 3);
}

static void
test_errors(tn_test_ctx* ctx)
{
    static const char* bad[] = {"torus:4x4",
                                "bigraph:6x4",
                                "switch:8",
                                "leafspine:leaves=4,spines=2,hosts=4"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        tn_error err;
        tn_topology* t = NULL;
        if (!TN_CHECK(ctx, tn_topology_from_spec(bad[i], &t, &err) == TN_OK))
        {
            continue;
        }
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = "hdrm";
        req.bytes = 4096;
        tn_schedule* s = NULL;
        tn_status rc = tn_plan(t, &req, &s, &err);
        TN_CHECK_MSG(ctx, rc != TN_OK && s == NULL, "%s: hdrm must fail", bad[i]);
        TN_CHECK_MSG(ctx,
                     strstr(err.message, "hdrm") != NULL,
                     "%s: message '%s'",
                     bad[i],
                     err.message);
        if (i == 1)
        {
            TN_CHECK_MSG(ctx,
                         strstr(err.message, "power of two") != NULL,
                         "message '%s'",
                         err.message);
        }
        else
        {
            TN_CHECK_MSG(ctx, strstr(err.message, "BiGraph") != NULL, "message '%s'", err.message);
        }
        tn_schedule_destroy(s);
        tn_topology_destroy(t);
    }
}

static void
test_blocking_bigraph_contends(tn_test_ctx* ctx)
{
    /* one cable per switch pair: 4 flows share each cable, the claim must fail */
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("bigraph:4x8,ports=1", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "hdrm";
    req.bytes = 4096;
    tn_schedule* s = NULL;
    TN_CHECK(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
    if (s)
    {
        TN_CHECK(ctx, tn_verify(s, &err) == TN_OK);
        TN_CHECK_EQ(ctx, tn_verify_schedule(s, t, NULL, &err), TN_EVERIFY);
    }
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

void
tn_suite_hdrm(tn_test_suite* suite)
{
    tn_test_add(suite, "bigraph", test_bigraph);
    tn_test_add(suite, "errors", test_errors);
    tn_test_add(suite, "blocking-bigraph-contends", test_blocking_bigraph_contends);
}
