/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TACOS (tn-algo-tacos.c): verified, contention-free schedules for all-gather,
 * reduce-scatter and all-reduce on every topology kind (ring, torus, mesh, fc, switch,
 * fat-tree, BiGraph, leaf-spine, hierarchical, an HPCC file); one transfer per (rank,
 * chunk it lacks) and phase, bytes per rank against the closed forms; cost-model time
 * between the in-degree bound and steps x link delay on homogeneous direct networks, equal
 * to steps x link delay on a ring where every match is forced; same seed, same plan; the
 * operations and rank counts it refuses, by name.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tn_schedule*
plan(tn_test_ctx* ctx,
     const tn_topology* t,
     tn_collective coll,
     uint64_t S,
     uint32_t C,
     uint64_t seed)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "tacos";
    req.collective = coll;
    req.bytes = S;
    req.chunks = C;
    req.seed = seed;
    tn_schedule* s = NULL;
    tn_error err;
    err.message[0] = 0;
    const char* what = tn_collective_name(coll);
    if (!TN_CHECK_MSG(ctx,
                      tn_plan(t, &req, &s, &err) == TN_OK,
                      "tacos %s %s S=%llu C=%u: %s",
                      what,
                      tn_topology_name(t),
                      (unsigned long long)S,
                      C,
                      err.message))
    {
        return NULL;
    }
    /* the symbolic execution and, as the plan claims it, the contention check */
    TN_CHECK(ctx, tn_schedule_contention_free(s));
    if (!TN_CHECK_MSG(ctx,
                      tn_verify_schedule(s, t, NULL, &err) == TN_OK,
                      "tacos %s %s S=%llu C=%u: %s",
                      what,
                      tn_topology_name(t),
                      (unsigned long long)S,
                      C,
                      err.message))
    {
        tn_schedule_destroy(s);
        return NULL;
    }
    return s;
}

/* Counts and bytes: every rank receives every chunk it lacks exactly once per phase. */
static void
check_counts(tn_test_ctx* ctx, const tn_topology* t, tn_collective coll, uint64_t S, uint32_t C)
{
    tn_schedule* s = plan(ctx, t, coll, S, C, 0);
    if (!s)
    {
        return;
    }
    uint32_t n = tn_schedule_ranks(s);
    uint32_t phases = coll == TN_COLL_ALL_REDUCE ? 2 : 1;
    uint64_t live = 0; /* chunks of nonzero length */
    for (uint32_t r = 0; r < n; r++)
    {
        for (uint32_t c = 0; c < C; c++)
        {
            live += tn_chunk_block(coll, S, n, C, c, r).length > 0;
        }
    }
    TN_CHECK_EQ(ctx, tn_schedule_count(s), phases * live * (n - 1));
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), phases * (uint64_t)(n - 1) * S);
    /* all-gather: rank r receives S minus its own slice; reduce-scatter: sends it */
    uint64_t* got = calloc(n, sizeof(uint64_t));
    for (uint32_t i = 0; got && i < tn_schedule_count(s); i++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, i);
        if (x->op == TN_OP_COPY)
        {
            got[x->dst] += x->length;
        }
        TN_CHECK(ctx, x->op == (coll == TN_COLL_ALL_GATHER ? TN_OP_COPY : x->op));
    }
    for (uint32_t r = 0; got && coll != TN_COLL_REDUCE_SCATTER && r < n; r++)
    {
        TN_CHECK_EQ(ctx, got[r], S - tn_slice_of(S, n, r).length);
    }
    free(got);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "tacos";
    req.collective = coll;
    req.chunks = C;
    tn_plan_size size;
    tn_error err;
    if (TN_CHECK_MSG(ctx, tn_plan_estimate(t, &req, &size, &err) == TN_OK, "%s", err.message))
    {
        /* the closed form counts every chunk as live */
        TN_CHECK_EQ(ctx, size.transfers, (uint64_t)phases * n * (n - 1) * C);
    }
    tn_schedule_destroy(s);
}

static void
test_verified(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"ring:8",
                                        "torus:4x4",
                                        "torus:4x8",
                                        "torus:4x4x4",
                                        "mesh:4x4",
                                        "fc:8",
                                        "switch:8",
                                        "fattree:k=4",
                                        "bigraph:4x8",
                                        "leafspine:leaves=4,spines=2,hosts=4",
                                        "hier:ring4@250Gbps+switch4@200Gbps",
                                        "@hpcc-leafspine-topo.txt"};
    static const tn_collective colls[] = {TN_COLL_ALL_GATHER,
                                          TN_COLL_REDUCE_SCATTER,
                                          TN_COLL_ALL_REDUCE};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, specs[i]);
        if (!t)
        {
            continue;
        }
        for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        {
            check_counts(ctx, t, colls[c], 1u << 20, 1); /* equal chunks */
            check_counts(ctx, t, colls[c], 1000003, 1);  /* chunks one byte apart */
            check_counts(ctx, t, colls[c], 5, 1);        /* fewer bytes than ranks */
            check_counts(ctx, t, colls[c], 3u << 20, 3); /* three chunks per NPU */
        }
        tn_topology_destroy(t);
    }
}

/* On homogeneous direct networks every match takes one link delay d = alpha + chunk / rate,
 * and the executor never starts a transfer later than its TEN time: the cost model's time is
 * at most steps x d, and at least the in-degree bound, ceil((N-1) C / degree) chunk
 * serialisations per phase plus one alpha (transfers of one queue pair follow each other
 * without a dep, so their latencies overlap). On a ring every match is forced (the one chunk
 * src has and dst lacks) and each waits for its chunk's arrival: the all-gather takes
 * ceil((N-1)/2) steps of d. */
static void
test_time(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"ring:8", "torus:4x4", "torus:8x8", "mesh:4x4", "fc:8"};
    static const tn_collective colls[] = {TN_COLL_ALL_GATHER,
                                          TN_COLL_REDUCE_SCATTER,
                                          TN_COLL_ALL_REDUCE};
    char path[512];
    FILE* f = fopen(tn_test_temp_path(ctx, "tacos-time.txt", path, sizeof(path)), "w");
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, specs[i]);
        if (!t)
        {
            continue;
        }
        uint32_t n = tn_topology_npu_count(t);
        uint32_t deg = 0; /* the smallest NPU degree bounds the receive rate */
        for (uint32_t r = 0; r < n; r++)
        {
            uint32_t d = tn_topology_degree(t, tn_topology_npu_node(t, r));
            deg = (r == 0 || d < deg) ? d : deg;
        }
        const tn_link* l = tn_topology_link(t, 0);
        for (uint32_t C = 1; C <= 4; C *= 4)
        {
            uint64_t S = (uint64_t)n * C * 65536;
            double wire = 65536.0 * 8e9 / (double)l->rate_bps;
            double d = (double)l->latency_ns + wire;
            for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
            {
                tn_schedule* s = plan(ctx, t, colls[c], S, C, 0);
                tn_cost_result* r = NULL;
                tn_error err;
                if (!s || !TN_CHECK_MSG(ctx,
                                        tn_cost_estimate(s, t, NULL, NULL, &r, &err) == TN_OK,
                                        "%s",
                                        err.message))
                {
                    tn_schedule_destroy(s);
                    continue;
                }
                uint32_t phases = colls[c] == TN_COLL_ALL_REDUCE ? 2 : 1;
                uint32_t bound = ((n - 1) * C + deg - 1) / deg;
                double steps = tn_schedule_steps(s);
                TN_CHECK_MSG(ctx,
                             r->time_ns <= steps * d * (1 + 1e-9) &&
                                 r->time_ns >=
                                     (phases * bound * wire + (double)l->latency_ns) * (1 - 1e-9),
                             "%s %s C=%u: %.1f ns, bound %u x %.1f + alpha, %.0f steps",
                             specs[i],
                             tn_collective_name(colls[c]),
                             C,
                             r->time_ns,
                             phases * bound,
                             wire,
                             steps);
                if (i == 0 && C == 1)
                {
                    TN_CHECK_EQ(ctx, tn_schedule_steps(s), phases * (n / 2));
                    TN_CHECK_NEAR(ctx, r->time_ns, phases * (n / 2) * d, 1e-6 * d);
                }
                if (f)
                {
                    fprintf(f,
                            "%s %s C=%u: %u steps, %.1f ns = %.3f x steps x link delay\n",
                            specs[i],
                            tn_collective_name(colls[c]),
                            C,
                            tn_schedule_steps(s),
                            r->time_ns,
                            r->time_ns / (steps * d));
                }
                tn_cost_result_destroy(r);
                tn_schedule_destroy(s);
            }
        }
        tn_topology_destroy(t);
    }
    if (f)
    {
        fclose(f);
    }
}

static bool
same_plan(const tn_schedule* a, const tn_schedule* b)
{
    if (tn_schedule_count(a) != tn_schedule_count(b))
    {
        return false;
    }
    for (uint32_t i = 0; i < tn_schedule_count(a); i++)
    {
        const tn_transfer* x = tn_schedule_transfer(a, i);
        const tn_transfer* y = tn_schedule_transfer(b, i);
        if (x->src != y->src || x->dst != y->dst || x->src_offset != y->src_offset ||
            x->step != y->step)
        {
            return false;
        }
    }
    return true;
}

/* The random choices come from the request's seed only. */
static void
test_seed(tn_test_ctx* ctx)
{
    tn_topology* t = tn_test_topology(ctx, "torus:8x8");
    if (!t)
    {
        return;
    }
    tn_schedule* a = plan(ctx, t, TN_COLL_ALL_REDUCE, 1u << 20, 2, 7);
    tn_schedule* b = plan(ctx, t, TN_COLL_ALL_REDUCE, 1u << 20, 2, 7);
    tn_schedule* c = plan(ctx, t, TN_COLL_ALL_REDUCE, 1u << 20, 2, 8);
    if (a && b && c)
    {
        TN_CHECK(ctx, same_plan(a, b));
        TN_CHECK(ctx, !same_plan(a, c));
    }
    tn_schedule_destroy(a);
    tn_schedule_destroy(b);
    tn_schedule_destroy(c);
    tn_topology_destroy(t);
}

static void
test_errors(tn_test_ctx* ctx)
{
    tn_topology* t = tn_test_topology(ctx, "torus:4x4");
    if (!t)
    {
        return;
    }
    static const tn_collective refused[] = {TN_COLL_ALL_TO_ALL, TN_COLL_BROADCAST, TN_COLL_REDUCE};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
    {
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = "tacos";
        req.collective = refused[i];
        tn_error err;
        TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EUNSUPPORTED);
        TN_CHECK_MSG(ctx,
                     strstr(err.message, "tacos") &&
                         strstr(err.message, tn_collective_name(refused[i])),
                     "'%s'",
                     err.message);
    }
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "tacos";
    req.ranks = 8;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EUNSUPPORTED);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "tacos") && strstr(err.message, "16"),
                 "'%s'",
                 err.message);
    req.ranks = 0;
    TN_CHECK_EQ(ctx, tn_plan_check(NULL, &req, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "tacos") != NULL, "'%s'", err.message);
    tn_topology_destroy(t);
}

void
tn_suite_tacos(tn_test_suite* suite)
{
    tn_test_add(suite, "verified", test_verified);
    tn_test_add(suite, "time", test_time);
    tn_test_add(suite, "seed", test_seed);
    tn_test_add(suite, "errors", test_errors);
}
