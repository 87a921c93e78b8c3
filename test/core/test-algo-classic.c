/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Classic algorithms (ring, ring-bidir, direct, rhd, dbt, ring2d, hierarchical):
 * every algorithm x every collective it supports x many N x sizes that do not
 * divide evenly must pass the verifier; transfer counts match closed forms; the
 * cost model never beats the all-reduce bandwidth lower bound.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-program.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-verify.h"

#include <stdio.h>
#include <string.h>

static const tn_collective all_colls[] = {TN_COLL_ALL_REDUCE,
                                          TN_COLL_REDUCE_SCATTER,
                                          TN_COLL_ALL_GATHER,
                                          TN_COLL_ALL_TO_ALL,
                                          TN_COLL_BROADCAST,
                                          TN_COLL_REDUCE};

/* Plan and verify; returns the schedule (caller destroys) or NULL after a failed check. */
static tn_schedule*
plan_verified(tn_test_ctx* ctx,
              const tn_topology* topo,
              const char* algo,
              tn_collective coll,
              uint32_t ranks,
              uint64_t bytes,
              uint32_t chunks,
              uint32_t root)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.collective = coll;
    req.ranks = ranks;
    req.bytes = bytes;
    req.chunks = chunks;
    req.root = root;
    tn_schedule* s = NULL;
    tn_error err;
    err.message[0] = 0;
    tn_status st = tn_plan(topo, &req, &s, &err);
    if (!TN_CHECK_MSG(ctx,
                      st == TN_OK,
                      "%s %s N=%u S=%llu C=%u: plan failed: %s",
                      algo,
                      tn_collective_name(coll),
                      ranks,
                      (unsigned long long)bytes,
                      chunks,
                      err.message))
    {
        return NULL;
    }
    st = tn_verify(s, &err);
    if (!TN_CHECK_MSG(ctx,
                      st == TN_OK,
                      "%s %s N=%u S=%llu C=%u: %s",
                      algo,
                      tn_collective_name(coll),
                      ranks,
                      (unsigned long long)bytes,
                      chunks,
                      err.message))
    {
        tn_schedule_destroy(s);
        return NULL;
    }
    return s;
}

static void
sweep(tn_test_ctx* ctx, const char* algo, const uint32_t* ns, size_t nn)
{
    const tn_algorithm* a = tn_algorithm_find(algo);
    TN_REQUIRE(ctx, a != NULL);
    for (size_t ci = 0; ci < sizeof(all_colls) / sizeof(all_colls[0]); ci++)
    {
        tn_collective coll = all_colls[ci];
        if (!(a->collectives & TN_COLL_BIT(coll)))
            continue;
        for (size_t i = 0; i < nn; i++)
        {
            uint32_t N = ns[i];
            uint64_t sizes[4] = {(uint64_t)N * 1000 + 7, N > 1 ? N - 1 : 3, 1, (uint64_t)N * 64};
            for (int k = 0; k < 4; k++)
            {
                /* large N: one uneven size and S = 1 keep the suite fast */
                if (N > 100 && (k == 1 || k == 3))
                    continue;
                uint32_t chunks = (k == 3) ? 3 : 1;
                uint32_t root = (coll == TN_COLL_BROADCAST || coll == TN_COLL_REDUCE) ? N / 3 : 0;
                tn_schedule* s = plan_verified(ctx, NULL, algo, coll, N, sizes[k], chunks, root);
                if (s)
                {
                    TN_CHECK_EQ(ctx, tn_schedule_ranks(s), N);
                    TN_CHECK(ctx, strcmp(tn_schedule_algorithm(s), a->name) == 0);
                }
                tn_schedule_destroy(s);
            }
        }
    }
}

static const uint32_t small_ns[] =
    {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 48, 64, 100};

static void
test_ring(tn_test_ctx* ctx)
{
    static const uint32_t big[] = {127, 128, 255, 256};
    sweep(ctx, "ring", small_ns, sizeof(small_ns) / sizeof(small_ns[0]));
    sweep(ctx, "ring", big, 4);
}

static void
test_ring_1024(tn_test_ctx* ctx)
{
    /* ring all-reduce on 1024 ranks: 2 * 1023 * 1024 transfers, verified */
    tn_schedule* s =
        plan_verified(ctx, NULL, "ring", TN_COLL_ALL_REDUCE, 1024, 1024 * 1000 + 7, 1, 0);
    TN_REQUIRE(ctx, s != NULL);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * 1023 * 1024);
    TN_CHECK_EQ(ctx, tn_schedule_steps(s), 2 * 1023);
    /* each rank sends 2(N-1) slices: total bytes 2(N-1) * S */
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 2ULL * 1023 * (1024 * 1000 + 7));
    tn_schedule_destroy(s);
    s = plan_verified(ctx, NULL, "ring", TN_COLL_ALL_GATHER, 1024, 1024 * 3 + 5, 1, 0);
    tn_schedule_destroy(s);
}

static void
test_ring_bidir(tn_test_ctx* ctx)
{
    static const uint32_t big[] = {255, 256};
    sweep(ctx, "ring-bidir", small_ns, sizeof(small_ns) / sizeof(small_ns[0]));
    sweep(ctx, "ring-bidir", big, 2);
}

static void
test_direct(tn_test_ctx* ctx)
{
    static const uint32_t big[] = {255, 256};
    sweep(ctx, "direct", small_ns, sizeof(small_ns) / sizeof(small_ns[0]));
    sweep(ctx, "direct", big, 2);
    /* all-to-all: N(N-1) transfers of one block each */
    tn_schedule* s = plan_verified(ctx, NULL, "direct", TN_COLL_ALL_TO_ALL, 10, 10007, 1, 0);
    TN_REQUIRE(ctx, s != NULL);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 90);
    /* every rank sends S minus its own block: N*S - S */
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 9 * 10007);
    tn_schedule_destroy(s);
}

static void
test_rhd(tn_test_ctx* ctx)
{
    static const uint32_t big[] = {255, 256};
    sweep(ctx, "rhd", small_ns, sizeof(small_ns) / sizeof(small_ns[0]));
    sweep(ctx, "rhd", big, 2);
    /* power of two: log2(N) halving + log2(N) doubling steps, N transfers per step */
    tn_schedule* s = plan_verified(ctx, NULL, "rhd", TN_COLL_ALL_REDUCE, 64, 64 * 100, 1, 0);
    TN_REQUIRE(ctx, s != NULL);
    TN_CHECK_EQ(ctx, tn_schedule_steps(s), 12);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 12 * 64);
    /* bytes per rank 2(N-1)/N S -> total 2(N-1) S */
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 2ULL * 63 * 6400);
    tn_schedule_destroy(s);
    /* N = 6: fold (2 transfers) + 2+2 steps of 4 + unfold (2) */
    s = plan_verified(ctx, NULL, "rhd", TN_COLL_ALL_REDUCE, 6, 6000, 1, 0);
    TN_REQUIRE(ctx, s != NULL);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 + 4 * 4 + 2);
    tn_schedule_destroy(s);
}

static void
test_dbt(tn_test_ctx* ctx)
{
    static const uint32_t big[] = {255, 256};
    sweep(ctx, "dbt", small_ns, sizeof(small_ns) / sizeof(small_ns[0]));
    sweep(ctx, "dbt", big, 2);
    /* two trees x (N-1) edges x (reduce + broadcast) */
    tn_schedule* s = plan_verified(ctx, NULL, "dbt", TN_COLL_ALL_REDUCE, 33, 33001, 1, 0);
    TN_REQUIRE(ctx, s != NULL);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * 32 * 2);
    /* each tree moves half the vector over 2(N-1) edges: 2(N-1) S in total */
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 2ULL * 32 * 33001);
    tn_schedule_destroy(s);
}

static tn_topology*
make_topo(tn_test_ctx* ctx, const char* spec)
{
    tn_topology* t = NULL;
    tn_error err;
    err.message[0] = 0;
    tn_status st = tn_topology_from_spec(spec, &t, &err);
    TN_CHECK_MSG(ctx, st == TN_OK, "topology %s: %s", spec, err.message);
    return t;
}

static void
topo_sweep(tn_test_ctx* ctx, const char* algo, const char* const* specs, size_t nspecs)
{
    for (size_t i = 0; i < nspecs; i++)
    {
        tn_topology* t = make_topo(ctx, specs[i]);
        if (!t)
            continue;
        uint32_t N = tn_topology_npu_count(t);
        tn_collective colls[3] = {TN_COLL_ALL_REDUCE, TN_COLL_REDUCE_SCATTER, TN_COLL_ALL_GATHER};
        for (int c = 0; c < 3; c++)
        {
            uint64_t sizes[3] = {(uint64_t)N * 1000 + 7, N - 1, 1};
            for (int k = 0; k < 3; k++)
            {
                tn_schedule* s = plan_verified(ctx, t, algo, colls[c], 0, sizes[k], 1, 0);
                if (s)
                {
                    /* every transfer travels in one dim of the topology */
                    uint32_t bad = 0;
                    for (uint32_t j = 0; j < tn_schedule_count(s); j++)
                    {
                        int32_t d = tn_schedule_transfer(s, j)->dim;
                        if (d < 0 || (uint32_t)d >= tn_topology_dim_count(t))
                            bad++;
                    }
                    TN_CHECK_MSG(ctx,
                                 bad == 0,
                                 "%s on %s: %u transfers without dim",
                                 algo,
                                 specs[i],
                                 bad);
                }
                tn_schedule_destroy(s);
            }
        }
        /* all-reduce in chunks */
        tn_schedule* s =
            plan_verified(ctx, t, algo, TN_COLL_ALL_REDUCE, 0, (uint64_t)N * 333 + 5, 4, 0);
        tn_schedule_destroy(s);
        tn_topology_destroy(t);
    }
}

static void
test_ring2d(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"torus:4x4",
                                        "torus:8x8",
                                        "torus:4x8",
                                        "torus:3x5",
                                        "torus:5x5",
                                        "torus:2x4",
                                        "torus:4x4,ports=2",
                                        "mesh:4x4",
                                        "mesh:3x5",
                                        "torus:16x16",
                                        "hier:ring4@200Gbps+switch8@100Gbps",
                                        "hier:ring3@300Gbps+fc5@200Gbps",
                                        "hier:switch4@200Gbps+switch4@100Gbps"};
    topo_sweep(ctx, "ring2d", specs, sizeof(specs) / sizeof(specs[0]));
    /* reduce-scatter and all-gather in chunks (their parts are several ranges per member)
     * and sizes that divide by nothing, on even, odd and non-square grids */
    static const char* const chunked[] = {"torus:4x4", "torus:3x5", "torus:4x8", "mesh:3x5"};
    for (size_t i = 0; i < sizeof(chunked) / sizeof(chunked[0]); i++)
    {
        tn_topology* t = make_topo(ctx, chunked[i]);
        if (!t)
            continue;
        uint32_t N = tn_topology_npu_count(t);
        tn_collective colls[3] = {TN_COLL_ALL_REDUCE, TN_COLL_REDUCE_SCATTER, TN_COLL_ALL_GATHER};
        uint64_t sizes[4] = {(uint64_t)N * 1001 + 13, 4ULL * N + 3, 7, 1};
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 4; k++)
                for (uint32_t C = 2; C <= 3; C++)
                    tn_schedule_destroy(
                        plan_verified(ctx, t, "ring2d", colls[c], 0, sizes[k], C, 0));
        tn_topology_destroy(t);
    }
    /* closed form: the 4 parts of an X x Y torus all-reduce each take 2(X-1) + 2(Y-1)
     * steps (x-first and y-first alike) with 2N(X-1) + 2N(Y-1) transfers */
    tn_topology* t = make_topo(ctx, "torus:4x8");
    TN_REQUIRE(ctx, t != NULL);
    tn_schedule* s = plan_verified(ctx, t, "ring2d", TN_COLL_ALL_REDUCE, 0, 32000, 1, 0);
    if (s)
    {
        TN_CHECK_EQ(ctx, tn_schedule_steps(s), 2 * 3 + 2 * 7);
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 4 * (2 * 32 * 3 + 2 * 32 * 7));
    }
    tn_schedule_destroy(s);
    /* reduce-scatter: part q's first phase along dim a sends one range per rank of the
     * member's column: N (P_a - 1) P_b + N (P_b - 1) transfers per part */
    s = plan_verified(ctx, t, "ring2d", TN_COLL_REDUCE_SCATTER, 0, 32000, 1, 0);
    if (s)
    {
        TN_CHECK_EQ(ctx, tn_schedule_steps(s), 3 + 7);
        TN_CHECK_EQ(ctx,
                    tn_schedule_count(s),
                    2 * (32 * 3 * 8 + 32 * 7) + 2 * (32 * 7 * 4 + 32 * 3));
    }
    tn_schedule_destroy(s);
    /* mesh: reversed line rings use the same links, so 2 parts (x-first, y-first) */
    tn_topology* m = make_topo(ctx, "mesh:4x4");
    s = m ? plan_verified(ctx, m, "ring2d", TN_COLL_ALL_REDUCE, 0, 16000, 1, 0) : NULL;
    if (s)
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * (2 * 16 * 3 + 2 * 16 * 3));
    tn_schedule_destroy(s);
    tn_topology_destroy(m);
    /* not applicable on a 1D ring, with a message naming the algorithm */
    tn_topology* r = make_topo(ctx, "ring:8");
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "ring2d";
    req.bytes = 100;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_plan_check(r, &req, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strncmp(err.message, "ring2d:", 7) == 0);
    tn_topology_destroy(r);
    tn_topology_destroy(t);
}

/* Cost-model estimate of a verified plan on topo; -1 after a failed check. */
static double
estimate_ns(tn_test_ctx* ctx,
            const tn_topology* topo,
            const char* algo,
            tn_collective coll,
            uint64_t bytes,
            tn_cost_result** keep)
{
    tn_schedule* s = plan_verified(ctx, topo, algo, coll, 0, bytes, 1, 0);
    if (!s)
        return -1;
    tn_error err;
    err.message[0] = 0;
    TN_CHECK_MSG(ctx,
                 tn_verify_schedule(s, topo, NULL, &err) == TN_OK,
                 "%s: %s",
                 algo,
                 err.message);
    tn_cost_result* r = NULL;
    double t = -1;
    if (TN_CHECK_MSG(ctx,
                     tn_cost_estimate(s, topo, NULL, NULL, &r, &err) == TN_OK,
                     "%s: %s",
                     algo,
                     err.message))
        t = r->time_ns;
    if (keep)
        *keep = r;
    else
        tn_cost_result_destroy(r);
    tn_schedule_destroy(s);
    return t;
}

/*
 * ring2d is the best version of a 2D ring: on a torus its four concurrent parts keep
 * all four links of a node busy, so a bandwidth-bound all-reduce (64 MiB) is within 10%
 * of the 4-link bound 2(N-1)/N * S / (4 B) and strictly faster than the bidirectional
 * ring (2 links). The one-order, one-direction 2D ring took 4.0x the bound on 4x4 and
 * failed this test; reduce-scatter and all-gather are within 10% of (N-1)/N * S / (4 B).
 * Every directed link of the 4x4 torus carries the same bytes.
 */
static void
test_ring2d_bound(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"torus:4x4", "torus:8x8"};
    const uint64_t S = 64ULL << 20;
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = make_topo(ctx, specs[i]);
        if (!t)
            continue;
        uint32_t N = tn_topology_npu_count(t);
        uint32_t n_links;
        const uint32_t* out = tn_topology_out_links(t, tn_topology_npu_node(t, 0), &n_links);
        TN_CHECK_EQ(ctx, n_links, 4);
        uint64_t inj = 0;
        for (uint32_t k = 0; k < n_links; k++)
            inj += tn_topology_link(t, out[k])->rate_bps;
        double bound = tn_cost_allreduce_lower_bound_ns(N, S, inj);
        tn_cost_result* r = NULL;
        double t2d = estimate_ns(ctx, t, "ring2d", TN_COLL_ALL_REDUCE, S, &r);
        double tbi = estimate_ns(ctx, t, "ring-bidir", TN_COLL_ALL_REDUCE, S, NULL);
        TN_CHECK_MSG(ctx,
                     t2d >= bound * (1 - 1e-12) && t2d <= 1.10 * bound,
                     "ring2d on %s: %.1f us, 4-link bound %.1f us (x%.3f)",
                     specs[i],
                     t2d / 1e3,
                     bound / 1e3,
                     t2d / bound);
        TN_CHECK_MSG(ctx,
                     t2d > 0 && t2d < tbi,
                     "ring2d on %s: %.1f us, not faster than ring-bidir %.1f us",
                     specs[i],
                     t2d / 1e3,
                     tbi / 1e3);
        /* every directed link busy with the same load (S divides evenly) */
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint32_t l = 0; r && l < r->link_count; l++)
        {
            lo = r->link_bytes[l] < lo ? r->link_bytes[l] : lo;
            hi = r->link_bytes[l] > hi ? r->link_bytes[l] : hi;
        }
        TN_CHECK_MSG(ctx,
                     r && lo > 0 && lo == hi,
                     "ring2d on %s: link bytes from %llu to %llu",
                     specs[i],
                     (unsigned long long)lo,
                     (unsigned long long)hi);
        tn_cost_result_destroy(r);
        /* reduce-scatter and all-gather: half the all-reduce bound */
        tn_collective halves[2] = {TN_COLL_REDUCE_SCATTER, TN_COLL_ALL_GATHER};
        for (int h = 0; h < 2; h++)
        {
            double th = estimate_ns(ctx, t, "ring2d", halves[h], S, NULL);
            double tb = estimate_ns(ctx, t, "ring-bidir", halves[h], S, NULL);
            TN_CHECK_MSG(ctx,
                         th >= bound / 2 * (1 - 1e-12) && th <= 1.10 * bound / 2 && th < tb,
                         "ring2d %s on %s: %.1f us, bound %.1f us, ring-bidir %.1f us",
                         tn_collective_name(halves[h]),
                         specs[i],
                         th / 1e3,
                         bound / 2e3,
                         tb / 1e3);
        }
        tn_topology_destroy(t);
    }
}

static void
test_hierarchical(tn_test_ctx* ctx)
{
    static const char* const specs[] = {
        "hier:ring4@200Gbps+switch8@100Gbps",
        "hier:fc4@150Gbps+ring4@100Gbps+switch4@50Gbps",
        "hier:switch4@200Gbps+switch4@100Gbps+switch4@100Gbps+ring4@50Gbps",
        "hier:ring3@300Gbps+fc5@200Gbps",
        "torus:4x4x4",
        "switch:12",
        "ring:9",
        "hier:switch16@200Gbps+switch16@100Gbps",
    };
    topo_sweep(ctx, "hierarchical", specs, sizeof(specs) / sizeof(specs[0]));
    /* chunks > 1 for reduce-scatter is refused with a reason */
    tn_topology* t = make_topo(ctx, "torus:4x4");
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "hierarchical";
    req.collective = TN_COLL_REDUCE_SCATTER;
    req.chunks = 2;
    req.bytes = 100;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strstr(err.message, "hierarchical") != NULL);
    tn_topology_destroy(t);
}

static void
test_registry(tn_test_ctx* ctx)
{
    size_t count = 0;
    const tn_algorithm* table = tn_algorithms(&count);
    TN_CHECK(ctx, count >= 7);
    for (size_t i = 0; i < count; i++)
    {
        TN_CHECK(ctx, tn_algorithm_find(table[i].name) == &table[i]);
        TN_CHECK(ctx, table[i].plan != NULL);
        TN_CHECK(ctx, table[i].collectives != 0);
        /* every entry carries its properties: estimate, default chunks, generator */
        TN_CHECK(ctx, table[i].estimate != NULL);
        TN_CHECK(ctx, table[i].default_chunks >= 1);
        TN_CHECK_EQ(ctx, tn_algorithm_chunks(&table[i], 0), table[i].default_chunks);
        TN_CHECK_EQ(ctx, tn_algorithm_chunks(&table[i], 3), 3);
        TN_CHECK_EQ(ctx,
                    tn_program_supports(table[i].name),
                    table[i].generator != TN_GENERATOR_NONE);
    }
    /* Themis plans its chunk-phases when the request leaves chunks 0, every other one 1 */
    TN_CHECK_EQ(ctx, tn_algorithm_default_chunks(tn_algorithm_find("themis")), 64);
    TN_CHECK_EQ(ctx, tn_algorithm_default_chunks(tn_algorithm_find("ring")), 1);
    TN_CHECK_EQ(ctx, tn_algorithm_default_chunks(NULL), 1);
    TN_CHECK_EQ(ctx, tn_algorithm_find("hier")->generator, TN_GENERATOR_HIERARCHICAL);
    TN_CHECK_EQ(ctx, tn_algorithm_find("themis")->generator, TN_GENERATOR_NONE);
    /* a request resolves its name once: the entry of the alias and the rank count */
    tn_plan_request rr;
    tn_plan_request_init(&rr);
    rr.algorithm = "halving-doubling";
    rr.ranks = 6;
    const tn_algorithm* resolved = NULL;
    uint32_t resolved_ranks = 0;
    tn_error rerr;
    TN_CHECK_EQ(ctx, tn_plan_resolve(NULL, &rr, &resolved, &resolved_ranks, &rerr), TN_OK);
    TN_CHECK(ctx, resolved == tn_algorithm_find("rhd"));
    TN_CHECK_EQ(ctx, resolved_ranks, 6);
    rr.algorithm = "nope";
    TN_CHECK_EQ(ctx, tn_plan_resolve(NULL, &rr, &resolved, &resolved_ranks, &rerr), TN_EINVAL);
    TN_CHECK(ctx, resolved == NULL && resolved_ranks == 0);
    TN_CHECK(ctx, tn_algorithm_find("halving-doubling") == tn_algorithm_find("rhd"));
    TN_CHECK(ctx, tn_algorithm_find("nope") == NULL);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.ranks = 4;
    req.algorithm = "nope";
    tn_schedule* s = (tn_schedule*)&req; /* must be reset to NULL */
    tn_error err;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_EINVAL);
    TN_CHECK(ctx, s == NULL);
    TN_CHECK(ctx, strstr(err.message, "nope") != NULL);
    req.algorithm = "dbt";
    req.collective = TN_COLL_ALL_GATHER;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strstr(err.message, "dbt") != NULL && strstr(err.message, "all-gather") != NULL);
    req.algorithm = "ring";
    req.collective = TN_COLL_BROADCAST;
    req.root = 4;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "root") != NULL);
    req.ranks = 0;
    req.root = 0;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_EINVAL);
    req.algorithm = "hierarchical";
    req.collective = TN_COLL_ALL_REDUCE;
    req.ranks = 4;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "topology") != NULL);
    /* one rank: no transfers, still a valid collective */
    req.algorithm = "ring";
    req.collective = TN_COLL_ALL_REDUCE;
    req.ranks = 1;
    req.bytes = 1000;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_OK);
    if (s)
    {
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 0);
        TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_OK);
    }
    tn_schedule_destroy(s);
}

/* On real topologies no algorithm beats 2(N-1)/N * S / B_inj. */
static void
test_lower_bound(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"ring:8",
                                        "switch:8",
                                        "torus:4x4",
                                        "fc:6",
                                        "hier:ring4@200Gbps+switch4@100Gbps"};
    static const char* const algos[] =
        {"ring", "ring-bidir", "direct", "rhd", "dbt", "ring2d", "hierarchical"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = make_topo(ctx, specs[i]);
        if (!t)
            continue;
        uint32_t N = tn_topology_npu_count(t);
        uint32_t n_links;
        const uint32_t* out = tn_topology_out_links(t, tn_topology_npu_node(t, 0), &n_links);
        uint64_t inj = 0;
        for (uint32_t k = 0; k < n_links; k++)
            inj += tn_topology_link(t, out[k])->rate_bps;
        uint64_t S = (uint64_t)N * 1000000;
        double bound = tn_cost_allreduce_lower_bound_ns(N, S, inj);
        for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
        {
            tn_plan_request req;
            tn_plan_request_init(&req);
            req.algorithm = algos[a];
            req.bytes = S;
            tn_error err;
            if (tn_plan_check(t, &req, &err) != TN_OK)
                continue;
            tn_schedule* s = plan_verified(ctx, t, algos[a], TN_COLL_ALL_REDUCE, 0, S, 1, 0);
            if (!s)
                continue;
            tn_cost_result* r = NULL;
            TN_CHECK_EQ(ctx, tn_cost_estimate(s, t, NULL, NULL, &r, &err), TN_OK);
            if (r)
            {
                TN_CHECK_MSG(ctx,
                             r->time_ns >= bound * (1 - 1e-12),
                             "%s on %s: %.1f ns beats the bound %.1f ns",
                             algos[a],
                             specs[i],
                             r->time_ns,
                             bound);
                TN_CHECK(ctx, r->time_ns >= r->max_link_busy_ns);
                TN_CHECK_EQ(ctx, r->total_bytes, tn_schedule_total_bytes(s));
            }
            tn_cost_result_destroy(r);
            tn_schedule_destroy(s);
        }
        tn_topology_destroy(t);
    }
}

void
tn_suite_algo_classic(tn_test_suite* suite)
{
    tn_test_add(suite, "registry", test_registry);
    tn_test_add(suite, "ring", test_ring);
    tn_test_add(suite, "ring-1024", test_ring_1024);
    tn_test_add(suite, "ring-bidir", test_ring_bidir);
    tn_test_add(suite, "direct", test_direct);
    tn_test_add(suite, "rhd", test_rhd);
    tn_test_add(suite, "dbt", test_dbt);
    tn_test_add(suite, "ring2d", test_ring2d);
    tn_test_add(suite, "ring2d-bound", test_ring2d_bound);
    tn_test_add(suite, "hierarchical", test_hierarchical);
    tn_test_add(suite, "lower-bound", test_lower_bound);
}
