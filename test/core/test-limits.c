/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Limits of the core (issue 11): bad or huge input fails early with a message that
 * names the limit, never by taking the machine's memory.
 *  - topology files: the header's counts are bounded by what the text holds;
 *  - numbers that are only too large say so and give the limit;
 *  - tn_plan estimates a plan's size (closed forms checked against built plans)
 *    and refuses beyond the memory limit or the schedule's id space;
 *  - the schedule refuses to grow past its memory limit;
 *  - Themis' --active beyond the chunk count costs nothing;
 *  - a large run's memory in huge pages: when a program starts again with glibc's malloc
 *    asking for them, and when it goes on as it is.
 */
#define _POSIX_C_SOURCE 200809L
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-huge-pages.h"
#include "ns3/tn-memory.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
test_file_header_bounded_by_text(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    /* 14 bytes claiming 200 million nodes: was 4.2 GB of nodes before failing */
    TN_CHECK_EQ(ctx, tn_topology_load_text("200000000 0 0\n", "big", &t, &err), TN_EPARSE);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "big:1: N_nodes 200000000") &&
                     strstr(err.message, "can name at most 0 nodes"),
                 "message: %s",
                 err.message);
    /* 4e9 switch ids on a line that holds none: was a 64 GB allocation */
    TN_CHECK_EQ(ctx,
                tn_topology_load_text("4000000000 4000000000 0\n", "big2", &t, &err),
                TN_EPARSE);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "big2:2: missing the line of 4000000000 switch ids") != NULL,
                 "message: %s",
                 err.message);
    /* more links claimed than lines */
    TN_CHECK_EQ(ctx,
                tn_topology_load_text("2 0 2000000000\n0 1 1Gbps 1us 0\n", "links", &t, &err),
                TN_EPARSE);
    TN_CHECK_MSG(ctx,
                 strstr(err.message,
                        "links:3: unexpected end of file: N_links = 2000000000 "
                        "but only 1 link lines") != NULL,
                 "message: %s",
                 err.message);
    /* what the text holds still loads */
    TN_CHECK_EQ(
        ctx,
        tn_topology_load_text("3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "ok", &t, &err),
        TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_node_count(t), 3);
    tn_topology_destroy(t);
}

static void
test_too_large_is_not_malformed(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_CHECK_EQ(ctx, tn_topology_from_spec("ring:4294967295", &t, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "N '4294967295' is too large (at most 4294967294)") != NULL,
                 "message: %s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_topology_from_spec("torus:4x99999999999", &t, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "is too large") != NULL, "message: %s", err.message);
    TN_CHECK_EQ(ctx, tn_topology_from_spec("ring:-4", &t, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "is negative") != NULL, "message: %s", err.message);
    TN_CHECK_EQ(ctx, tn_topology_from_spec("ring:4x", &t, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "is not a non-negative integer") != NULL,
                 "message: %s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_topology_load_text("4294967295 0 0\n", "f", &t, &err), TN_EPARSE);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "f:1: N_nodes '4294967295' is too large") != NULL,
                 "message: %s",
                 err.message);
}

/* Built schedules against tn_plan_estimate: exact where the estimate says so. */
static void
test_estimate_matches_plans(tn_test_ctx* ctx)
{
    static const char* const algos[] = {"ring",
                                        "ring-bidir",
                                        "direct",
                                        "rhd",
                                        "dbt",
                                        "multitree",
                                        "themis",
                                        "hierarchical",
                                        "ring2d"};
    static const char* const specs[] = {"torus:4x4", "torus:2x4", "torus:4x2x2"};
    unsigned compared = 0;
    for (size_t si = 0; si < sizeof(specs) / sizeof(specs[0]); si++)
    {
        tn_error err;
        tn_topology* t = NULL;
        TN_REQUIRE(ctx, tn_topology_from_spec(specs[si], &t, &err) == TN_OK);
        for (size_t ai = 0; ai < sizeof(algos) / sizeof(algos[0]); ai++)
        {
            for (int coll = 0; coll < TN_COLL_COUNT; coll++)
            {
                for (uint32_t chunks = 1; chunks <= 3; chunks += 2)
                {
                    tn_plan_request req;
                    tn_plan_request_init(&req);
                    req.algorithm = algos[ai];
                    req.collective = (tn_collective)coll;
                    req.bytes = 1 << 20;
                    req.chunks = chunks;
                    tn_plan_size size;
                    tn_schedule* s = NULL;
                    if (tn_plan(t, &req, &s, &err) != TN_OK)
                    {
                        continue; /* not applicable */
                    }
                    TN_CHECK(ctx, tn_plan_estimate(t, &req, &size, &err) == TN_OK);
                    uint64_t n = tn_schedule_count(s);
                    if (size.exact_transfers)
                    {
                        TN_CHECK_MSG(ctx,
                                     size.transfers == n,
                                     "%s %s on %s, %u chunks: estimate %llu, built %llu",
                                     algos[ai],
                                     tn_collective_name(req.collective),
                                     specs[si],
                                     chunks,
                                     (unsigned long long)size.transfers,
                                     (unsigned long long)n);
                    }
                    else
                    {
                        /* an estimate, but the right order of magnitude */
                        TN_CHECK_MSG(ctx,
                                     size.transfers <= 4 * n && n <= 4 * size.transfers,
                                     "%s %s on %s, %u chunks: estimate %llu, built %llu",
                                     algos[ai],
                                     tn_collective_name(req.collective),
                                     specs[si],
                                     chunks,
                                     (unsigned long long)size.transfers,
                                     (unsigned long long)n);
                    }
                    compared++;
                    tn_schedule_destroy(s);
                }
            }
        }
        tn_topology_destroy(t);
    }
    TN_CHECK_MSG(ctx, compared >= 60, "only %u plans compared", compared);
}

static void
test_plan_refused_beyond_limits(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("ring:64", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "ring";
    req.bytes = 1 << 20;
    /* 2*63*64 = 8064 transfers: about 2 MB by tn_schedule_memory_estimate */
    uint64_t need = tn_schedule_memory_estimate(8064, 2 * 8064, 0);
    req.memory_limit = need - 1;
    tn_schedule* s = NULL;
    TN_CHECK_EQ(ctx, tn_plan(t, &req, &s, &err), TN_ENOMEM);
    TN_CHECK(ctx, s == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message,
                        "ring all-reduce on 64 ranks with 1 chunk(s) (8064 "
                        "transfers) would take about") &&
                     strstr(err.message, "plan fewer ranks or chunks"),
                 "message: %s",
                 err.message);
    req.memory_limit = need + (UINT64_C(1) << 20); /* plus routing tables */
    TN_CHECK_MSG(ctx, tn_plan(t, &req, &s, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 8064);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);

    /* 65536 ranks: 2*65535*65536 transfers do not fit 32-bit ids (was 9.6 GB, then ENOMEM) */
    tn_plan_request_init(&req);
    req.algorithm = "ring";
    req.ranks = 65536;
    req.bytes = 65536;
    req.memory_limit = UINT64_MAX;
    TN_CHECK_EQ(ctx, tn_plan(NULL, &req, &s, &err), TN_EUNSUPPORTED);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "8589803520 transfers") &&
                     strstr(err.message, "at most 4294967294"),
                 "message: %s",
                 err.message);
}

static void
test_schedule_growth_guard(tn_test_ctx* ctx)
{
    tn_error err;
    tn_schedule* s = NULL;
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_ALL_GATHER, 4, 4096, 0, 1, &s, &err) == TN_OK);
    tn_schedule_set_memory_limit(s, tn_schedule_memory_estimate(10, 0, 0));
    tn_transfer_spec sp = {0, 1, 0, 0, 16, TN_OP_COPY, 0, -1, 0};
    uint32_t added = 0;
    tn_status st = TN_OK;
    while (added < 100 && (st = tn_schedule_add(s, &sp, NULL, 0, NULL, &err)) == TN_OK)
    {
        added++;
    }
    TN_CHECK_EQ(ctx, added, 10);
    TN_CHECK_EQ(ctx, st, TN_ENOMEM);
    TN_CHECK_MSG(ctx, strstr(err.message, "memory limit") != NULL, "message: %s", err.message);
    tn_schedule_destroy(s);
}

static void
test_memory_limit_environment(tn_test_ctx* ctx)
{
    tn_error err;
    uint64_t limit = 0;
    const char* old = getenv("TN_MEMORY_LIMIT");
    char* saved = old ? strdup(old) : NULL;
    unsetenv("TN_MEMORY_LIMIT");
    TN_CHECK_EQ(ctx, tn_memory_default_limit(&limit, &err), TN_OK);
    uint64_t phys = tn_memory_physical();
    TN_CHECK_EQ(ctx, limit, phys ? phys / 2 : UINT64_C(4) << 30);
    setenv("TN_MEMORY_LIMIT", "3MiB", 1);
    TN_CHECK_EQ(ctx, tn_memory_default_limit(&limit, &err), TN_OK);
    TN_CHECK_EQ(ctx, limit, 3 << 20);
    TN_CHECK_EQ(ctx, tn_memory_check(4 << 20, 0, "it", "change it", &err), TN_ENOMEM);
    TN_CHECK_MSG(ctx,
                 strstr(err.message,
                        "it would take about 4.00 MiB, more than the memory limit "
                        "3.00 MiB (set by TN_MEMORY_LIMIT or --memory-limit); change it") != NULL,
                 "message: %s",
                 err.message);
    /* generators check their node and cable counts against the limit before allocating */
    tn_topology* t = NULL;
    TN_CHECK_EQ(ctx, tn_topology_from_spec("ring:100000", &t, &err), TN_ENOMEM);
    TN_CHECK(ctx, t == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "ring: 100000 nodes and 100000 cables would take about") &&
                     strstr(err.message, "choose a smaller topology"),
                 "message: %s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_topology_from_spec("ring:1000", &t, &err), TN_OK);
    tn_topology_destroy(t);
    setenv("TN_MEMORY_LIMIT", "0", 1);
    TN_CHECK_EQ(ctx, tn_memory_default_limit(&limit, &err), TN_OK);
    TN_CHECK(ctx, limit == UINT64_MAX);
    setenv("TN_MEMORY_LIMIT", "lots", 1);
    TN_CHECK_EQ(ctx, tn_memory_default_limit(&limit, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "TN_MEMORY_LIMIT") != NULL, "message: %s", err.message);
    if (saved)
    {
        setenv("TN_MEMORY_LIMIT", saved, 1);
        free(saved);
    }
    else
    {
        unsetenv("TN_MEMORY_LIMIT");
    }
}

static void
test_themis_active_beyond_chunks(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:4x4", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "themis";
    req.bytes = 1 << 20;
    req.chunks = 8;
    req.themis.active_chunks_per_dim = 8;
    tn_schedule* a = NULL;
    tn_schedule* b = NULL;
    TN_REQUIRE(ctx, tn_plan(t, &req, &a, &err) == TN_OK);
    /* was 64 GB of idle slots and "out of memory (8 chunks)" */
    req.themis.active_chunks_per_dim = UINT32_MAX;
    TN_CHECK_MSG(ctx, tn_plan(t, &req, &b, &err) == TN_OK, "%s", err.message);
    if (b)
    {
        TN_CHECK_EQ(ctx, tn_schedule_count(b), tn_schedule_count(a));
        TN_CHECK_EQ(ctx, tn_schedule_steps(b), tn_schedule_steps(a));
    }
    tn_schedule_destroy(a);
    tn_schedule_destroy(b);
    tn_topology_destroy(t);
}

/*
 * The verifier's missing-dep search grew with the chunk count (a depth-first walk into
 * earlier chunks): Themis on torus:4x4, 1000 chunks took 20 s of CPU, now well under 1 s.
 * The bound leaves room for slow and loaded machines.
 */
static void
test_verify_many_chunks(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("torus:4x4", &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "themis";
    req.bytes = 1 << 20;
    req.chunks = 1000;
    tn_schedule* s = NULL;
    TN_REQUIRE(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 192000);
    clock_t start = clock();
    TN_CHECK_MSG(ctx, tn_verify(s, &err) == TN_OK, "%s", err.message);
    double cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
#ifdef __OPTIMIZE__
    /* unoptimised (sanitizer) builds run several times slower: correctness only there */
    TN_CHECK_MSG(ctx, cpu < 6.0, "verifying 192000 transfers took %.1f s of CPU", cpu);
#else
    (void)cpu;
#endif
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

/* tn_huge_pages_tunables: restart only when the kernel gives huge pages on request and
 * glibc can ask, keep the user's tunables, never twice, never against TN_HUGE_PAGES=0 */
static void
test_huge_pages_decision(tn_test_ctx* ctx)
{
    tn_huge_pages_process p;
    memset(&p, 0, sizeof(p));
    p.thp_enabled = "always [madvise] never\n";
    p.libc_version = "2.36";
    char* t = tn_huge_pages_tunables(&p);
    TN_CHECK_MSG(ctx, t && strcmp(t, "glibc.malloc.hugetlb=1") == 0, "fresh: %s", t ? t : "NULL");
    free(t);
    p.tunables = "glibc.malloc.tcache_count=4";
    t = tn_huge_pages_tunables(&p);
    TN_CHECK_MSG(ctx,
                 t && strcmp(t, "glibc.malloc.tcache_count=4:glibc.malloc.hugetlb=1") == 0,
                 "the user's tunables kept: %s",
                 t ? t : "NULL");
    /* the restarted program sees its own tunable and goes on */
    p.tunables = t;
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    free(t);
    p.tunables = "glibc.malloc.hugetlb=0";
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL); /* the user decided */
    p.tunables = NULL;
    p.libc_version = "2.35";
    t = tn_huge_pages_tunables(&p);
    TN_CHECK(ctx, t != NULL);
    free(t);
    p.libc_version = "2.34"; /* no such tunable */
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    p.libc_version = NULL; /* not glibc */
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    p.libc_version = "2.36";
    p.thp_enabled = "[always] madvise never\n"; /* huge pages anyway */
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    p.thp_enabled = "always madvise [never]\n";
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    p.thp_enabled = NULL; /* no such file */
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    p.thp_enabled = "always [madvise] never\n";
    p.opt = "0";
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
    p.opt = "1";
    t = tn_huge_pages_tunables(&p);
    TN_CHECK(ctx, t != NULL);
    free(t);
    p.under_valgrind = 1; /* /proc/self/exe would be valgrind's tool */
    TN_CHECK(ctx, tn_huge_pages_tunables(&p) == NULL);
}

/* tn_huge_pages_restart when starting again fails: Linux refuses an argument longer than
 * MAX_ARG_STRLEN (32 pages) with E2BIG, so execv returns; the error names the reason and
 * GLIBC_TUNABLES is as it was, set or unset. A description that asks for nothing runs
 * nothing. */
static void
test_huge_pages_restart_fails(tn_test_ctx* ctx)
{
    const size_t long_arg = 32 * 4096 * 2;
    char* arg = malloc(long_arg + 1);
    TN_REQUIRE(ctx, arg != NULL);
    memset(arg, 'x', long_arg);
    arg[long_arg] = '\0';
    char name[] = "test-limits";
    char* argv[] = {name, arg, NULL};
    const char* before = getenv("GLIBC_TUNABLES");
    char* saved = before ? strdup(before) : NULL;

    tn_huge_pages_process p;
    memset(&p, 0, sizeof(p));
    p.thp_enabled = "always madvise [never]\n";
    p.libc_version = "2.36";
    tn_error err;
    memset(&err, 0, sizeof(err));
    TN_CHECK(ctx, tn_huge_pages_restart(&p, argv, &err) == TN_OK); /* nothing to gain */

    p.thp_enabled = "always [madvise] never\n";
    const char* const user_values[] = {NULL, "glibc.malloc.tcache_count=4"};
    for (size_t i = 0; i < sizeof(user_values) / sizeof(user_values[0]); i++)
    {
        if (user_values[i])
        {
            setenv("GLIBC_TUNABLES", user_values[i], 1);
        }
        else
        {
            unsetenv("GLIBC_TUNABLES");
        }
        p.tunables = user_values[i];
        memset(&err, 0, sizeof(err));
        TN_CHECK_EQ(ctx, tn_huge_pages_restart(&p, argv, &err), TN_EIO);
        TN_CHECK_MSG(ctx,
                     strstr(err.message, "/proc/self/exe") && strstr(err.message, strerror(E2BIG)),
                     "the reason: %s",
                     err.message);
        const char* after = getenv("GLIBC_TUNABLES");
        TN_CHECK_MSG(ctx,
                     user_values[i] ? after && strcmp(after, user_values[i]) == 0 : after == NULL,
                     "GLIBC_TUNABLES as it was (%s): %s",
                     user_values[i] ? user_values[i] : "unset",
                     after ? after : "unset");
    }
    if (saved)
    {
        setenv("GLIBC_TUNABLES", saved, 1);
    }
    else
    {
        unsetenv("GLIBC_TUNABLES");
    }
    free(saved);
    free(arg);
}

void
tn_suite_limits(tn_test_suite* suite)
{
    tn_test_add(suite, "verify-many-chunks", test_verify_many_chunks);
    tn_test_add(suite, "file-header-bounded-by-text", test_file_header_bounded_by_text);
    tn_test_add(suite, "too-large-is-not-malformed", test_too_large_is_not_malformed);
    tn_test_add(suite, "estimate-matches-plans", test_estimate_matches_plans);
    tn_test_add(suite, "plan-refused-beyond-limits", test_plan_refused_beyond_limits);
    tn_test_add(suite, "schedule-growth-guard", test_schedule_growth_guard);
    tn_test_add(suite, "memory-limit-environment", test_memory_limit_environment);
    tn_test_add(suite, "themis-active-beyond-chunks", test_themis_active_beyond_chunks);
    tn_test_add(suite, "huge-pages-decision", test_huge_pages_decision);
    tn_test_add(suite, "huge-pages-restart-fails", test_huge_pages_restart_fails);
}
