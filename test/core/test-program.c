/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Rank-local programs (tn-program.h): on torus, mesh, switch, fat-tree, BiGraph and
 * hierarchical topologies up to a few hundred NPUs, for every generator and every
 * collective it supports, the programs of all ranks equal the materialised schedule
 * (which passes the verifier) transfer for transfer: peers, offsets, bytes, op, step, dim,
 * chunk and dependencies; every transfer is one send and one receive. The comparison is
 * shown to catch a generator that is off by one in any field or dependency.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-program.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The programs of every rank of a request. */
typedef struct progs
{
    uint32_t n;
    tn_rank_program* rp;
} progs;

static void
progs_free(progs* g)
{
    for (uint32_t r = 0; g->rp && r < g->n; r++)
        tn_rank_program_free(&g->rp[r]);
    free(g->rp);
    g->rp = NULL;
}

static tn_status
progs_build(const tn_topology* topo, const tn_plan_request* req, progs* g, tn_error* err)
{
    tn_program* p = NULL;
    memset(g, 0, sizeof(*g));
    tn_status st = tn_program_create(topo, req, &p, err);
    if (st)
        return st;
    g->n = tn_program_ranks(p);
    g->rp = calloc(g->n, sizeof(*g->rp));
    for (uint32_t r = 0; r < g->n && !st; r++)
        st = tn_program_rank(p, r, &g->rp[r], err);
    tn_program_destroy(p);
    return st;
}

static int
cmp_pair(const void* a, const void* b)
{
    const uint64_t* x = a;
    const uint64_t* y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static int
cmp_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/*
 * Compare the programs with the schedule; returns the number of differences and the
 * first one in `why`.
 */
static uint64_t
compare(const tn_schedule* s, const progs* g, char* why, size_t size)
{
    uint32_t T = tn_schedule_count(s);
    uint32_t N = tn_schedule_ranks(s);
    uint64_t bad = 0;
    why[0] = 0;
#define DIFF(...)                                                                                  \
    do                                                                                             \
    {                                                                                              \
        if (bad++ == 0)                                                                            \
            snprintf(why, size, __VA_ARGS__);                                                      \
    } while (0)
    if (g->n != N)
    {
        DIFF("programs for %u ranks, schedule has %u", g->n, N);
        return bad;
    }
    /* transfers by (src, dst), then id: the pair's list in id order */
    uint64_t(*key)[2] = malloc((size_t)(T ? T : 1) * sizeof(*key));
    for (uint32_t t = 0; t < T; t++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, t);
        key[t][0] = ((uint64_t)x->src << 32) | x->dst;
        key[t][1] = t;
    }
    qsort(key, T, sizeof(*key), cmp_pair);
    uint8_t* seen = calloc((size_t)T + 1, 2);
    uint32_t** tid = calloc(N, sizeof(uint32_t*)); /* per rank: op -> transfer id */
    uint32_t* send_op = malloc(((size_t)T + 1) * sizeof(uint32_t));
    uint32_t* recv_op = malloc(((size_t)T + 1) * sizeof(uint32_t));
    for (uint32_t r = 0; r < N; r++)
    {
        const tn_rank_program* rp = &g->rp[r];
        tid[r] = malloc(((size_t)rp->count + 1) * sizeof(uint32_t));
        for (uint32_t i = 0; i < rp->count; i++)
        {
            const tn_program_op* o = &rp->ops[i];
            uint32_t src = o->send ? r : o->peer, dst = o->send ? o->peer : r;
            uint64_t k = ((uint64_t)src << 32) | dst;
            /* first entry of the pair by binary search */
            size_t lo = 0, hi = T;
            while (lo < hi)
            {
                size_t mid = (lo + hi) / 2;
                if (key[mid][0] < k)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            tid[r][i] = UINT32_MAX;
            if (lo + o->match >= T || key[lo + o->match][0] != k)
            {
                DIFF("rank %u op %u: %s %u #%u has no transfer",
                     r,
                     i,
                     o->send ? "send to" : "receive from",
                     o->peer,
                     o->match);
                continue;
            }
            uint32_t t = (uint32_t)key[lo + o->match][1];
            const tn_transfer* x = tn_schedule_transfer(s, t);
            tid[r][i] = t;
            if (x->src_offset != o->src_offset || x->dst_offset != o->dst_offset ||
                x->length != o->length || x->op != o->op || x->step != o->step ||
                x->dim != o->dim || x->chunk != o->chunk)
                DIFF("rank %u op %u (transfer %u %u->%u): offsets %llu/%llu length %llu op %d "
                     "step %u dim %d chunk %u, schedule %llu/%llu %llu %d %u %d %u",
                     r,
                     i,
                     t,
                     src,
                     dst,
                     (unsigned long long)o->src_offset,
                     (unsigned long long)o->dst_offset,
                     (unsigned long long)o->length,
                     (int)o->op,
                     o->step,
                     o->dim,
                     o->chunk,
                     (unsigned long long)x->src_offset,
                     (unsigned long long)x->dst_offset,
                     (unsigned long long)x->length,
                     (int)x->op,
                     x->step,
                     x->dim,
                     x->chunk);
            if (seen[2 * (size_t)t + (o->send ? 0 : 1)]++)
                DIFF("transfer %u appears twice as a %s", t, o->send ? "send" : "receive");
            (o->send ? send_op : recv_op)[t] = i;
        }
    }
    for (uint32_t t = 0; t < T; t++)
        if (!seen[2 * (size_t)t] || !seen[2 * (size_t)t + 1])
        {
            const tn_transfer* x = tn_schedule_transfer(s, t);
            DIFF("transfer %u (%u->%u step %u) has no %s",
                 t,
                 x->src,
                 x->dst,
                 x->step,
                 seen[2 * (size_t)t] ? "receive" : "send");
        }
    /* dependencies: the two sides together are the transfer's deps */
    uint32_t* got = NULL;
    size_t cap = 0;
    for (uint32_t t = 0; t < T && bad == 0; t++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, t);
        uint32_t n = 0, nd = 0;
        const uint32_t* want = tn_schedule_deps(s, t, &nd);
        for (int side = 0; side < 2; side++)
        {
            uint32_t r = side == 0 ? x->src : x->dst;
            const tn_rank_program* rp = &g->rp[r];
            uint32_t op = side == 0 ? send_op[t] : recv_op[t];
            uint32_t c = 0;
            const uint32_t* d = tn_rank_program_deps(rp, op, &c);
            if (n + c > cap)
            {
                cap = (n + c) * 2;
                got = realloc(got, cap * sizeof(uint32_t));
            }
            for (uint32_t i = 0; i < c; i++)
            {
                if (d[i] >= op)
                    DIFF("rank %u op %u depends on a later op %u", r, op, d[i]);
                got[n] = tid[r][d[i] < rp->count ? d[i] : 0];
                /* the contract: a receive lists only deps that are not the sender's ops */
                const tn_transfer* y = got[n] < T ? tn_schedule_transfer(s, got[n]) : NULL;
                if (side == 1 && y && (y->src == x->src || y->dst == x->src))
                    DIFF("transfer %u (%u->%u step %u): the receive lists dep %u (%u->%u), an "
                         "op of the sender",
                         t,
                         x->src,
                         x->dst,
                         x->step,
                         got[n],
                         y->src,
                         y->dst);
                n++;
            }
        }
        if (n > 1)
            qsort(got, n, sizeof(uint32_t), cmp_u32);
        uint32_t u = 0;
        for (uint32_t i = 0; i < n; i++)
            if (u == 0 || got[u - 1] != got[i])
                got[u++] = got[i];
        bool same = u == nd;
        for (uint32_t i = 0; i < u && same; i++)
            same = got[i] == want[i];
        if (!same)
            DIFF("transfer %u (%u->%u step %u): %u deps from the programs (first %u), %u in the "
                 "schedule (first %u)",
                 t,
                 x->src,
                 x->dst,
                 x->step,
                 u,
                 u ? got[0] : 0,
                 nd,
                 nd ? want[0] : 0);
    }
#undef DIFF
    free(got);
    for (uint32_t r = 0; r < N; r++)
        free(tid[r]);
    free(tid);
    free(send_op);
    free(recv_op);
    free(seen);
    free(key);
    return bad;
}

typedef struct tally
{
    unsigned cases;
    uint64_t transfers;
} tally;

/* Plan (verified), generate, compare. */
static void
check_equal(tn_test_ctx* ctx,
            const tn_topology* topo,
            const char* algo,
            tn_collective coll,
            uint32_t ranks,
            uint64_t bytes,
            uint32_t chunks,
            tally* t)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.collective = coll;
    req.ranks = ranks;
    req.bytes = bytes;
    req.chunks = chunks;
    req.root = (coll == TN_COLL_BROADCAST || coll == TN_COLL_REDUCE)
                   ? (ranks ? ranks : tn_topology_npu_count(topo)) / 3
                   : 0;
    char what[160];
    snprintf(what,
             sizeof(what),
             "%s %s on %s ranks=%u S=%llu C=%u",
             algo,
             tn_collective_name(coll),
             topo ? tn_topology_name(topo) : "(none)",
             ranks,
             (unsigned long long)bytes,
             chunks);
    tn_schedule* s = NULL;
    tn_error err;
    err.message[0] = 0;
    tn_status st = tn_plan(topo, &req, &s, &err);
    if (st == TN_EUNSUPPORTED)
        return; /* the algorithm does not apply here: no program either */
    if (!TN_CHECK_MSG(ctx, st == TN_OK, "%s: plan: %s", what, err.message))
        return;
    st = tn_verify_schedule(s, topo, NULL, &err);
    TN_CHECK_MSG(ctx, st == TN_OK, "%s: verify: %s", what, err.message);
    progs g;
    st = progs_build(topo, &req, &g, &err);
    if (TN_CHECK_MSG(ctx, st == TN_OK, "%s: program: %s", what, err.message))
    {
        char why[512];
        uint64_t bad = compare(s, &g, why, sizeof(why));
        TN_CHECK_MSG(ctx,
                     bad == 0,
                     "%s: %llu differences, first: %s",
                     what,
                     (unsigned long long)bad,
                     why);
        t->cases++;
        t->transfers += tn_schedule_count(s);
    }
    progs_free(&g);
    tn_schedule_destroy(s);
}

static const char* const flat_algos[] = {"ring", "ring-bidir", "direct", "rhd", "dbt", "swing"};

static const tn_collective colls[] = {TN_COLL_ALL_REDUCE,
                                      TN_COLL_REDUCE_SCATTER,
                                      TN_COLL_ALL_GATHER,
                                      TN_COLL_ALL_TO_ALL,
                                      TN_COLL_BROADCAST,
                                      TN_COLL_REDUCE};

static void
sweep_topology(tn_test_ctx* ctx, const char* spec, bool small, tally* t)
{
    tn_topology* topo = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_topology_from_spec(spec, &topo, &err) == TN_OK);
    uint32_t N = tn_topology_npu_count(topo);
    const char* algos[] = {"ring",
                           "ring-bidir",
                           "direct",
                           "rhd",
                           "dbt",
                           "ring2d",
                           "hierarchical",
                           "swing",
                           "swing-torus"};
    for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
    {
        const tn_algorithm* al = tn_algorithm_find(algos[a]);
        for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        {
            if (!(al->collectives & TN_COLL_BIT(colls[c])))
                continue;
            /* direct is N^2 transfers: the large topologies keep it to one case */
            bool quadratic = strcmp(algos[a], "direct") == 0 || strcmp(algos[a], "ring") == 0 ||
                             strcmp(algos[a], "ring-bidir") == 0;
            if (!small && quadratic && colls[c] != TN_COLL_ALL_REDUCE)
                continue;
            /* uneven sizes, and a tiny one whose pieces are mostly empty */
            check_equal(ctx, topo, algos[a], colls[c], 0, (uint64_t)N * 1000 + 7, 1, t);
            if (small)
            {
                check_equal(ctx, topo, algos[a], colls[c], 0, (uint64_t)N * 64 + 3, 3, t);
                check_equal(ctx, topo, algos[a], colls[c], 0, 5, 2, t);
            }
        }
    }
    tn_topology_destroy(topo);
}

/* Every topology of specs swept; fails when fewer than min_cases were compared. */
static void
sweep_specs(tn_test_ctx* ctx,
            const char* const* specs,
            size_t count,
            bool small,
            uint32_t min_cases,
            const char* label)
{
    tally t = {0, 0};
    for (size_t i = 0; i < count; i++)
        sweep_topology(ctx, specs[i], small, &t);
    if (small)
    {
        /* a subset of ranks without a topology (flat algorithms) */
        for (size_t a = 0; a < sizeof(flat_algos) / sizeof(flat_algos[0]); a++)
            for (uint32_t n = 1; n <= 9; n++)
                check_equal(ctx, NULL, flat_algos[a], TN_COLL_ALL_REDUCE, n, 1000 * n + 1, 2, &t);
    }
    TN_CHECK_MSG(ctx, t.cases > min_cases, "only %u cases compared", t.cases);
    printf("program equivalence%s: %u cases, %llu transfers\n",
           label,
           t.cases,
           (unsigned long long)t.transfers);
}

static void
test_small_topologies(tn_test_ctx* ctx)
{
    const char* specs[] = {"torus:4x4",
                           "torus:3x5",
                           "torus:2x3",
                           "mesh:4x3",
                           "mesh:5x2",
                           "switch:6",
                           "switch:11",
                           "fattree:k=4",
                           "bigraph:4x4",
                           "ring:7",
                           "ring:8",
                           "torus:4x2x2",
                           "torus:8x4",
                           "fc:5",
                           "hier:ring4@200Gbps+switch3@100Gbps",
                           "hier:switch4@400Gbps+ring2@100Gbps+fc3@300Gbps"};
    sweep_specs(ctx, specs, sizeof(specs) / sizeof(specs[0]), true, 600, "");
}

static void
test_large_topologies(tn_test_ctx* ctx)
{
    const char* specs[] = {"torus:16x16",
                           "ring:64",
                           "mesh:12x10",
                           "switch:200",
                           "fattree:k=8",
                           "bigraph:8x16",
                           "hier:switch8@2880Gbps+switch32@400Gbps",
                           "hier:ring6@200Gbps+ring5@100Gbps+switch4@100Gbps"};
    sweep_specs(ctx, specs, sizeof(specs) / sizeof(specs[0]), false, 60, " (up to 256 NPUs)");
}

/* Ring orders given by the request are followed. */
static void
test_rank_order(tn_test_ctx* ctx)
{
    tn_topology* topo = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:3x3", &topo, &err) == TN_OK);
    uint32_t order[9] = {4, 0, 8, 2, 6, 1, 3, 7, 5};
    const char* algos[] = {"ring", "ring-bidir"};
    for (int a = 0; a < 2; a++)
        for (size_t c = 0; c < 3; c++)
        {
            tn_plan_request req;
            tn_plan_request_init(&req);
            req.algorithm = algos[a];
            req.collective = colls[c];
            req.bytes = 9001;
            req.chunks = 2;
            req.rank_order = order;
            req.rank_order_count = 9;
            tn_schedule* s = NULL;
            TN_REQUIRE(ctx, tn_plan(topo, &req, &s, &err) == TN_OK);
            progs g;
            TN_CHECK(ctx, progs_build(topo, &req, &g, &err) == TN_OK);
            char why[512];
            uint64_t bad = compare(s, &g, why, sizeof(why));
            TN_CHECK_MSG(ctx, bad == 0, "%s order: %s", algos[a], why);
            progs_free(&g);
            tn_schedule_destroy(s);
        }
    tn_topology_destroy(topo);
}

/*
 * The comparison catches a generator off by one: shift one field or dependency of one op
 * by one and the programs no longer match.
 */
static void
test_off_by_one_is_caught(tn_test_ctx* ctx)
{
    tn_topology* topo = NULL;
    tn_error err;
    TN_REQUIRE(ctx,
               tn_topology_from_spec("hier:ring4@200Gbps+switch3@100Gbps", &topo, &err) == TN_OK);
    const char* algos[] = {"ring", "rhd", "dbt", "hierarchical"};
    for (int a = 0; a < 4; a++)
    {
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = algos[a];
        req.bytes = 12007;
        req.chunks = 2;
        tn_schedule* s = NULL;
        TN_REQUIRE(ctx, tn_plan(topo, &req, &s, &err) == TN_OK);
        progs g;
        TN_REQUIRE(ctx, progs_build(topo, &req, &g, &err) == TN_OK);
        char why[512];
        TN_CHECK_MSG(ctx, compare(s, &g, why, sizeof(why)) == 0, "%s: %s", algos[a], why);
        /* every kind of mutation on an op in the middle of rank 8's program */
        tn_rank_program* rp = &g.rp[8];
        uint32_t i = rp->count / 2;
        while (i < rp->count && rp->ops[i].dep_count == 0)
            i++;
        TN_CHECK_MSG(ctx, i < rp->count, "%s: no op with deps on rank 8", algos[a]);
        for (int m = 0; m < 9 && i < rp->count; m++)
        {
            tn_program_op saved = rp->ops[i];
            uint32_t dep0 = rp->deps[saved.dep_start];
            switch (m)
            {
            case 0:
                rp->ops[i].src_offset++;
                break;
            case 1:
                rp->ops[i].dst_offset++;
                break;
            case 2:
                rp->ops[i].length--;
                break;
            case 3:
                rp->ops[i].step++;
                break;
            case 4:
                rp->ops[i].chunk ^= 1;
                break;
            case 5:
                rp->ops[i].peer = (rp->ops[i].peer + 1) % g.n;
                break;
            case 6:
                rp->ops[i].match++;
                break;
            case 7:
                rp->deps[saved.dep_start] = dep0 > 0 ? dep0 - 1 : dep0 + 1;
                break;
            default:
                rp->ops[i].dep_count--;
                break;
            }
            TN_CHECK_MSG(ctx,
                         compare(s, &g, why, sizeof(why)) > 0,
                         "%s: mutation %d of rank 8 op %u not caught",
                         algos[a],
                         m,
                         i);
            rp->ops[i] = saved;
            rp->deps[saved.dep_start] = dep0;
        }
        progs_free(&g);
        tn_schedule_destroy(s);
    }
    tn_topology_destroy(topo);
}

/* Memory per rank stays O(its ops): a rank program of the ring on 4096 ranks has 4(N-1)
 * ops for all-reduce, and 2 ops per step. */
static void
test_rank_program_size(tn_test_ctx* ctx)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "ring";
    req.ranks = 4096;
    req.bytes = 64 << 20;
    tn_program* p = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_program_create(NULL, &req, &p, &err) == TN_OK);
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    TN_REQUIRE(ctx, tn_program_rank(p, 17, &rp, &err) == TN_OK);
    TN_CHECK_EQ(ctx, rp.count, 4 * 4095);
    TN_CHECK_EQ(ctx, rp.sends, 2 * 4095);
    TN_CHECK(ctx, rp.count <= tn_program_max_ops(p));
    /* a send waits for the receive of the step before it */
    uint32_t n = 0;
    const uint32_t* d = tn_rank_program_deps(&rp, 2, &n);
    TN_CHECK_EQ(ctx, n, 1);
    TN_CHECK(ctx, n == 1 && rp.ops[d[0]].send == 0 && rp.ops[d[0]].step == 0);
    tn_rank_program_free(&rp);
    tn_program_destroy(p);
}

/* Dep lists stay O(ops) per rank where many sends wait for the same frontier: the gather
 * sends of a direct phase all wait for its reduce-scatter receives (direct all-reduce on a
 * switch; the hierarchical phase across 32 servers). Stored once per send, the hierarchical
 * rank program of 1024 NPUs held 20 M deps for 0.5 M ops; shared, each distinct list is
 * stored once (tn-program.h), and the ops still read their full lists. */
static void
test_shared_dep_lists(tn_test_ctx* ctx)
{
    const char* specs[] = {"switch:64", "hier:switch8@2880Gbps+switch32@400Gbps"};
    const char* algos[] = {"direct", "hierarchical"};
    for (int c = 0; c < 2; c++)
    {
        tn_error err;
        tn_topology* topo = NULL;
        TN_REQUIRE(ctx, tn_topology_from_spec(specs[c], &topo, &err) == TN_OK);
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = algos[c];
        req.bytes = 64 << 20;
        tn_program* p = NULL;
        TN_REQUIRE(ctx, tn_program_create(topo, &req, &p, &err) == TN_OK);
        tn_rank_program rp;
        memset(&rp, 0, sizeof(rp));
        TN_REQUIRE(ctx, tn_program_rank(p, 5, &rp, &err) == TN_OK);
        uint64_t listed = 0; /* deps as the ops read them */
        uint32_t widest = 0;
        for (uint32_t i = 0; i < rp.count; i++)
        {
            uint32_t n = 0;
            tn_rank_program_deps(&rp, i, &n);
            listed += n;
            widest = n > widest ? n : widest;
        }
        TN_CHECK_MSG(ctx, widest >= 31, "%s: widest list %u", algos[c], widest);
        TN_CHECK_MSG(ctx,
                     listed >= 8 * (uint64_t)rp.count,
                     "%s: %llu deps listed for %u ops (the case must have wide frontiers)",
                     algos[c],
                     (unsigned long long)listed,
                     rp.count);
        TN_CHECK_MSG(ctx,
                     rp.dep_total <= 2 * (size_t)rp.count,
                     "%s: %zu deps stored for %u ops (%llu listed)",
                     algos[c],
                     rp.dep_total,
                     rp.count,
                     (unsigned long long)listed);
        tn_rank_program_free(&rp);
        tn_program_destroy(p);
        tn_topology_destroy(topo);
    }
}

/* Stream rank's program in windows of w ops and compare each op (fields, match, program-
 * index deps) with the whole program; returns the differences, the first one in why. */
static uint64_t
compare_windows(const tn_program* p,
                uint32_t rank,
                const tn_rank_program* whole,
                uint32_t w,
                size_t* widest_cap,
                char* why,
                size_t size)
{
    uint64_t bad = 0;
    tn_rank_program win;
    memset(&win, 0, sizeof(win));
    tn_error err;
    uint32_t first = 0;
    bool complete = false;
    while (!complete && bad == 0)
    {
        if (tn_program_rank_window(p, rank, first, w, &win, &err) != TN_OK)
        {
            snprintf(why, size, "window at %u: %.160s", first, err.message);
            bad++;
            break;
        }
        complete = win.complete;
        if (win.first != first || (!complete && win.count != w) || win.count > w)
        {
            snprintf(why, size, "window at %u: first %u, %u ops", first, win.first, win.count);
            bad++;
        }
        for (uint32_t i = 0; i < win.count && bad == 0; i++)
        {
            const tn_program_op* a = &win.ops[i];
            if (first + i >= whole->count)
            {
                snprintf(why, size, "op %u beyond the program's %u", first + i, whole->count);
                bad++;
                break;
            }
            const tn_program_op* b = &whole->ops[first + i];
            uint32_t na = 0, nb = 0;
            const uint32_t* da = tn_rank_program_deps(&win, i, &na);
            const uint32_t* db = tn_rank_program_deps(whole, first + i, &nb);
            if (a->send != b->send || a->op != b->op || a->peer != b->peer ||
                a->match != b->match || a->src_offset != b->src_offset ||
                a->dst_offset != b->dst_offset || a->length != b->length || a->step != b->step ||
                a->dim != b->dim || a->chunk != b->chunk || na != nb ||
                (na > 0 && memcmp(da, db, na * sizeof(*da)) != 0))
            {
                snprintf(why,
                         size,
                         "rank %u op %u (window of %u at %u): peer %u/%u match %u/%u deps %u/%u",
                         rank,
                         first + i,
                         w,
                         first,
                         a->peer,
                         b->peer,
                         a->match,
                         b->match,
                         na,
                         nb);
                bad++;
            }
        }
        first += win.count;
        *widest_cap = win.op_cap > *widest_cap ? win.op_cap : *widest_cap;
    }
    if (bad == 0 && first != whole->count)
    {
        snprintf(why, size, "rank %u: windows gave %u ops of %u", rank, first, whole->count);
        bad++;
    }
    tn_rank_program_free(&win);
    return bad;
}

/* Windows laid end to end are the rank's program (tn_program_rank_window): every generator,
 * chunked and not, windows of 1, 3 and 64 ops, with memory bounded by the window. */
static void
test_windows(tn_test_ctx* ctx)
{
    const struct
    {
        const char* spec;
        const char* algo;
        tn_collective coll;
        uint32_t chunks;
    } cases[] = {
        {"torus:4x4", "ring", TN_COLL_ALL_REDUCE, 1},
        {"torus:4x4", "ring", TN_COLL_BROADCAST, 3},
        {"torus:4x4", "ring-bidir", TN_COLL_ALL_GATHER, 2},
        {"switch:9", "direct", TN_COLL_ALL_TO_ALL, 1},
        {"switch:9", "direct", TN_COLL_ALL_REDUCE, 2},
        {"bigraph:4x4", "rhd", TN_COLL_ALL_REDUCE, 1},
        {"switch:11", "dbt", TN_COLL_ALL_REDUCE, 2},
        {"torus:4x6", "ring2d", TN_COLL_ALL_REDUCE, 2},
        {"mesh:5x3", "ring2d", TN_COLL_REDUCE_SCATTER, 1},
        {"hier:switch8@2880Gbps+switch6@400Gbps", "hierarchical", TN_COLL_ALL_REDUCE, 2},
        {"hier:ring4@200Gbps+switch3@100Gbps", "hierarchical", TN_COLL_ALL_GATHER, 1},
    };

    const uint32_t widths[] = {1, 3, 64};
    unsigned compared = 0;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
    {
        tn_error err;
        tn_topology* topo = NULL;
        TN_REQUIRE(ctx, tn_topology_from_spec(cases[c].spec, &topo, &err) == TN_OK);
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = cases[c].algo;
        req.collective = cases[c].coll;
        req.chunks = cases[c].chunks;
        req.bytes = 1000003;
        req.root = cases[c].coll == TN_COLL_BROADCAST ? 5 : 0;
        tn_program* p = NULL;
        TN_REQUIRE_MSG(ctx,
                       tn_program_create(topo, &req, &p, &err) == TN_OK,
                       "%s on %s: %s",
                       cases[c].algo,
                       cases[c].spec,
                       err.message);
        tn_rank_program whole;
        memset(&whole, 0, sizeof(whole));
        for (uint32_t r = 0; r < tn_program_ranks(p); r += 5)
        {
            TN_REQUIRE(ctx, tn_program_rank(p, r, &whole, &err) == TN_OK);
            TN_CHECK(ctx, whole.complete && whole.first == 0);
            for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++)
            {
                char why[256] = "";
                size_t cap = 0;
                uint64_t bad = compare_windows(p, r, &whole, widths[k], &cap, why, sizeof(why));
                TN_CHECK_MSG(ctx,
                             bad == 0,
                             "%s %s on %s: %s",
                             cases[c].algo,
                             tn_collective_name(cases[c].coll),
                             cases[c].spec,
                             why);
                /* the window's arrays follow the window, not the program */
                TN_CHECK_MSG(ctx,
                             cap <= 2 * (size_t)widths[k] + 64,
                             "%s: %zu ops allocated for windows of %u",
                             cases[c].algo,
                             cap,
                             widths[k]);
                compared++;
            }
        }
        tn_rank_program_free(&whole);
        tn_program_destroy(p);
        tn_topology_destroy(topo);
    }
    TN_CHECK(ctx, compared >= 3 * 11);
    /* refusals: no empty window; a window past the end is empty and complete */
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "ring";
    req.ranks = 4;
    req.bytes = 4000;
    tn_program* p = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_program_create(NULL, &req, &p, &err) == TN_OK);
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    TN_CHECK_EQ(ctx, tn_program_rank_window(p, 1, 0, 0, &rp, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_program_rank_window(p, 1, 1000, 8, &rp, &err), TN_OK);
    TN_CHECK(ctx, rp.count == 0 && rp.complete);
    tn_rank_program_free(&rp);
    tn_program_destroy(p);
}

/* tn_rank_program_compact leaves the program as it was in exactly sized arrays, and the
 * compacted struct can be filled again. */
static void
test_compact(tn_test_ctx* ctx)
{
    tn_topology* topo = NULL;
    tn_error err;
    TN_REQUIRE(ctx,
               tn_topology_from_spec("hier:switch8@2880Gbps+switch6@400Gbps", &topo, &err) ==
                   TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "hierarchical";
    req.bytes = 1 << 20;
    req.chunks = 3;
    tn_program* p = NULL;
    TN_REQUIRE(ctx, tn_program_create(topo, &req, &p, &err) == TN_OK);
    tn_rank_program whole, rp;
    memset(&whole, 0, sizeof(whole));
    memset(&rp, 0, sizeof(rp));
    TN_REQUIRE(ctx, tn_program_rank(p, 9, &whole, &err) == TN_OK);
    for (int round = 0; round < 2; round++)
    {
        TN_REQUIRE(ctx, tn_program_rank(p, 9, &rp, &err) == TN_OK);
        TN_CHECK_MSG(ctx,
                     round > 0 || rp.op_cap > rp.count,
                     "the case must leave spare capacity (%zu for %u ops)",
                     rp.op_cap,
                     rp.count);
        tn_rank_program_compact(&rp);
        TN_CHECK_EQ(ctx, rp.op_cap, rp.count);
        TN_CHECK_EQ(ctx, rp.dep_cap, rp.dep_total);
        TN_CHECK(ctx, rp.match_keys == NULL && rp.match_cap == 0);
        TN_REQUIRE(ctx, rp.count == whole.count && rp.dep_total == whole.dep_total);
        uint32_t differ = 0; /* field by field: the struct has padding */
        for (uint32_t i = 0; i < rp.count; i++)
        {
            const tn_program_op *a = &rp.ops[i], *b = &whole.ops[i];
            differ += a->send != b->send || a->op != b->op || a->peer != b->peer ||
                      a->match != b->match || a->src_offset != b->src_offset ||
                      a->dst_offset != b->dst_offset || a->length != b->length ||
                      a->step != b->step || a->dim != b->dim || a->chunk != b->chunk ||
                      a->dep_start != b->dep_start || a->dep_count != b->dep_count;
        }
        TN_CHECK_EQ(ctx, differ, 0);
        TN_CHECK(ctx, memcmp(rp.deps, whole.deps, rp.dep_total * sizeof(*rp.deps)) == 0);
    }
    tn_rank_program_free(&rp);
    tn_rank_program_free(&whole);
    tn_program_destroy(p);
    tn_topology_destroy(topo);
}

static void
test_refusals(tn_test_ctx* ctx)
{
    tn_topology* topo = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:4x4", &topo, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "multitree";
    req.bytes = 1000;
    tn_program* p = NULL;
    TN_CHECK_EQ(ctx, tn_program_create(topo, &req, &p, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strstr(err.message, "multitree") != NULL);
    TN_CHECK(ctx, p == NULL);
    TN_CHECK(ctx,
             !tn_program_supports("hdrm") && tn_program_supports("hier") &&
                 tn_program_supports("2d-ring"));
    req.algorithm = "ring2d";
    req.collective = TN_COLL_ALL_TO_ALL;
    TN_CHECK_EQ(ctx, tn_program_create(topo, &req, &p, &err), TN_EUNSUPPORTED);
    /* the memory guard covers generated plans */
    req.collective = TN_COLL_ALL_REDUCE;
    req.algorithm = "ring";
    req.ranks = 0;
    req.memory_limit = 1000;
    TN_CHECK_EQ(ctx, tn_program_create(topo, &req, &p, &err), TN_ENOMEM);
    TN_CHECK_MSG(ctx, strstr(err.message, "generated plan") != NULL, "%s", err.message);
    tn_topology_destroy(topo);
}

/* The per-step estimate against the DAG estimate (tn_cost_estimate, fluid model) of the
 * materialised plan, and against the ring's closed form. */
typedef struct cost_case
{
    const char* spec;
    const char* algo;
    tn_collective coll;
    uint64_t bytes;
    uint32_t chunks;
    uint32_t mtu;
    double tolerance; /* relative */
} cost_case;

static void
test_cost_matches_dag(tn_test_ctx* ctx)
{
    const cost_case cases[] = {
        {"ring:8", "ring", TN_COLL_ALL_REDUCE, 8 << 20, 1, 0, 1e-9},
        {"torus:8x8", "ring", TN_COLL_ALL_REDUCE, 64 << 20, 1, 0, 0.01},
        {"torus:8x8", "ring", TN_COLL_ALL_REDUCE, 64 << 20, 4, 4096, 0.01},
        {"torus:8x8", "ring2d", TN_COLL_ALL_REDUCE, 64 << 20, 1, 0, 0.01},
        {"torus:8x4", "ring2d", TN_COLL_ALL_REDUCE, 16 << 20, 2, 4096, 0.05},
        {"torus:4x4x4", "hierarchical", TN_COLL_ALL_REDUCE, 64 << 20, 1, 0, 0.01},
        {"hier:switch8@2880Gbps+switch16@400Gbps",
         "hierarchical",
         TN_COLL_ALL_REDUCE,
         64 << 20,
         1,
         4096,
         0.01},
        {"hier:switch8@2880Gbps+switch16@400Gbps",
         "ring",
         TN_COLL_ALL_REDUCE,
         64 << 20,
         1,
         0,
         0.03},
        {"switch:16", "direct", TN_COLL_ALL_REDUCE, 16 << 20, 1, 0, 0.01},
        {"switch:16", "ring-bidir", TN_COLL_ALL_GATHER, 16 << 20, 1, 0, 0.01},
        {"switch:16", "rhd", TN_COLL_ALL_REDUCE, 16 << 20, 1, 0, 0.05},
        {"fattree:k=4", "ring", TN_COLL_REDUCE_SCATTER, 16 << 20, 1, 0, 0.02},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        const cost_case* k = &cases[i];
        tn_topology* topo = NULL;
        tn_error err;
        TN_REQUIRE(ctx, tn_topology_from_spec(k->spec, &topo, &err) == TN_OK);
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = k->algo;
        req.collective = k->coll;
        req.bytes = k->bytes;
        req.chunks = k->chunks;
        tn_schedule* s = NULL;
        tn_program* p = NULL;
        TN_REQUIRE(ctx, tn_plan(topo, &req, &s, &err) == TN_OK);
        TN_REQUIRE(ctx, tn_program_create(topo, &req, &p, &err) == TN_OK);
        tn_cost_options opt;
        memset(&opt, 0, sizeof(opt));
        opt.mtu = k->mtu;
        opt.packet_overhead = k->mtu ? 78 : 0;
        tn_cost_result* dag = NULL;
        tn_cost_program_result gen;
        TN_REQUIRE(ctx, tn_cost_estimate(s, topo, NULL, &opt, &dag, &err) == TN_OK);
        tn_status st = tn_cost_program(p, &opt, 0, &gen, &err);
        TN_CHECK_MSG(ctx, st == TN_OK, "%s: %s", k->spec, err.message);
        double rel = (gen.time_ns - dag->time_ns) / dag->time_ns;
        char line[256];
        snprintf(line,
                 sizeof(line),
                 "%-12s %-14s %-40s C=%u mtu=%-4u per-step %12.1f DAG %12.1f  %+.3f%%",
                 k->algo,
                 tn_collective_name(k->coll),
                 k->spec,
                 k->chunks,
                 k->mtu,
                 gen.time_ns,
                 dag->time_ns,
                 100 * rel);
        TN_CHECK_MSG(ctx, rel <= k->tolerance && rel >= -k->tolerance, "cost %s", line);
        printf("cost %s\n", line);
        if (i == 0)
        {
            /* the ring's closed form 2(N-1)(a + S/(N B)) */
            double closed = tn_cost_ring_allreduce_ns(8, k->bytes, 150, TN_TOPO_DEFAULT_RATE_BPS);
            TN_CHECK_NEAR(ctx, gen.time_ns, closed, closed * 1e-9);
        }
        tn_cost_result_destroy(dag);
        tn_program_destroy(p);
        tn_schedule_destroy(s);
        tn_topology_destroy(topo);
    }
}

void
tn_suite_program(tn_test_suite* suite)
{
    tn_test_add(suite, "cost_matches_dag", test_cost_matches_dag);
    tn_test_add(suite, "small_topologies", test_small_topologies);
    tn_test_add(suite, "large_topologies", test_large_topologies);
    tn_test_add(suite, "rank_order", test_rank_order);
    tn_test_add(suite, "off_by_one_is_caught", test_off_by_one_is_caught);
    tn_test_add(suite, "rank_program_size", test_rank_program_size);
    tn_test_add(suite, "shared_dep_lists", test_shared_dep_lists);
    tn_test_add(suite, "windows", test_windows);
    tn_test_add(suite, "compact", test_compact);
    tn_test_add(suite, "refusals", test_refusals);
}
