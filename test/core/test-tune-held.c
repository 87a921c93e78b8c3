/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The tuner's held limit (tn_tune_options.held_limit, tn-tune.h): a candidate whose rank-local
 * programs would hold more than the limit while it runs is skipped with its estimate kept, and
 * the choice is the fastest that fits; the bytes are checked against the rule computed here
 * from each program (whole programs, or windows of max(window, margin x least) a rank).
 */
#include "tn-test.h"

#include "ns3/tn-program-window.h"
#include "ns3/tn-program.h"
#include "ns3/tn-tune.h"

#include <string.h>

/* The bytes candidate `algo` would hold by tn_tune_options' rule, computed here from its
 * program: whole (two ops a transfer) when it fits `limit`, else windows of max(window,
 * margin x least) on each rank (whole where a rank has fewer). */
static uint64_t
held_reference(tn_test_ctx* ctx,
               const tn_topology* t,
               tn_plan_request req,
               const char* algo,
               uint64_t limit,
               uint32_t window,
               uint32_t margin)
{
    req.algorithm = algo;
    tn_program* p = NULL;
    tn_error err;
    if (tn_program_create(t, &req, &p, &err) != TN_OK)
    {
        TN_CHECK_MSG(ctx, 0, "%s: %s", algo, err.message);
        return 0;
    }
    uint64_t ops = 2 * tn_program_transfers(p, NULL);
    if (ops > limit && window > 0)
    {
        uint32_t least = 0;
        TN_CHECK(ctx, tn_program_min_window(p, &least, &err) == TN_OK);
        uint64_t w = (uint64_t)margin * least > window ? (uint64_t)margin * least : window;
        uint64_t per_rank = tn_program_max_ops(p);
        ops = tn_program_ranks(p) * (per_rank < w ? per_rank : w);
    }
    tn_program_destroy(p);
    return ops;
}

/* options.held_limit: a candidate whose programs would hold more is skipped with its
 * estimate kept and the bytes in held_bytes; the choice is the fastest that fits. On
 * switch:64 at 64 KiB direct is the fastest (one step) and holds a whole program on each rank
 * even in windows (its least window is its whole program), the ring's windows hold 2 x 5 ops
 * of its 252. Ops of one byte each, so the limits read in ops. */
static void
test_held_limit(tn_test_ctx* ctx)
{
    tn_topology* t = tn_test_topology(ctx, "switch:64");
    TN_REQUIRE(ctx, t != NULL);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = TN_TUNE_AUTO;
    req.bytes = 64 << 10;
    tn_tune_options o;
    tn_tune_options_init(&o);
    o.path = TN_TUNE_GENERATED;
    tn_tune_ranking* free_rank = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_tune_rank(t, &req, &o, &free_rank, &err) == TN_OK);
    const tn_tune_candidate* fastest = tn_tune_best(free_rank);
    TN_REQUIRE(ctx, fastest && strcmp(fastest->algorithm, "direct") == 0);
    const uint64_t direct_ops = held_reference(ctx, t, req, "direct", UINT64_MAX, 0, 1);
    TN_CHECK_EQ(ctx, direct_ops, 2ull * 64 * 63 * 2); /* RS and AG: 63 sends, 63 receives */

    /* whole programs only: a limit one op below direct's */
    o.held_op_bytes = 1;
    o.held_limit = direct_ops - 1;
    tn_tune_ranking* rk = NULL;
    TN_REQUIRE(ctx, tn_tune_rank(t, &req, &o, &rk, &err) == TN_OK);
    const tn_tune_candidate* best = tn_tune_best(rk);
    for (uint32_t k = 0; k < tn_tune_count(rk); k++)
    {
        const tn_tune_candidate* c = tn_tune_candidate_at(rk, k);
        const tn_tune_candidate* same = NULL;
        for (uint32_t j = 0; j < tn_tune_count(free_rank); j++)
        {
            const tn_tune_candidate* f = tn_tune_candidate_at(free_rank, j);
            same = strcmp(f->algorithm, c->algorithm) == 0 ? f : same;
        }
        TN_REQUIRE(ctx, same != NULL);
        if (same->skipped)
        {
            TN_CHECK_MSG(ctx, c->skipped && !c->held_bytes, "%s", c->algorithm);
            continue;
        }
        /* every estimate as without the limit; skipped exactly those over it */
        TN_CHECK_MSG(ctx, c->estimate_ns == same->estimate_ns, "%s", c->algorithm);
        const uint64_t held = held_reference(ctx, t, req, c->algorithm, o.held_limit, 0, 1);
        TN_CHECK_MSG(ctx,
                     (held > o.held_limit) == (c->skipped != NULL) &&
                         c->held_bytes == (held > o.held_limit ? held : 0),
                     "%s: holds %llu of %llu, held_bytes %llu, %s",
                     c->algorithm,
                     (unsigned long long)held,
                     (unsigned long long)o.held_limit,
                     (unsigned long long)c->held_bytes,
                     c->skipped ? c->skipped : "ranked");
        TN_CHECK_MSG(ctx,
                     c->skipped || c->estimate_ns >= best->estimate_ns,
                     "%s is ranked and faster than the choice %s",
                     c->algorithm,
                     best->algorithm);
    }
    TN_CHECK_MSG(ctx,
                 strcmp(best->algorithm, "direct") != 0 && best->estimate_ns > fastest->estimate_ns,
                 "choice %s",
                 best->algorithm);
    const tn_tune_candidate* direct = tn_tune_candidate_at(rk, tn_tune_ranked(rk));
    for (uint32_t k = tn_tune_ranked(rk); k < tn_tune_count(rk); k++)
    {
        const tn_tune_candidate* c = tn_tune_candidate_at(rk, k);
        direct = strcmp(c->algorithm, "direct") == 0 ? c : direct;
    }
    TN_CHECK_MSG(ctx,
                 strcmp(direct->algorithm, "direct") == 0 && direct->held_bytes == direct_ops &&
                     strstr(direct->skipped, "direct: estimated ") &&
                     strstr(direct->skipped, "whole programs: 16128 ops on 64 ranks"),
                 "%s",
                 direct->skipped ? direct->skipped : "direct ranked");
    tn_tune_ranking_destroy(rk);

    /* windows: the ring holds 64 x 10 ops (its least, 5, twice), direct still its whole
     * program; a limit between the two keeps the ring and skips direct */
    const uint64_t ring_windows = held_reference(ctx, t, req, "ring", 0, 8, 2);
    TN_CHECK_EQ(ctx, ring_windows, 64ull * 10);
    TN_CHECK_EQ(ctx, held_reference(ctx, t, req, "direct", 0, 8, 2), direct_ops);
    o.held_limit = ring_windows;
    o.held_window = 8;
    o.held_margin = 2;
    TN_REQUIRE(ctx, tn_tune_rank(t, &req, &o, &rk, &err) == TN_OK);
    bool ring_ranked = false;
    for (uint32_t k = 0; k < tn_tune_count(rk); k++)
    {
        const tn_tune_candidate* c = tn_tune_candidate_at(rk, k);
        ring_ranked = ring_ranked || (strcmp(c->algorithm, "ring") == 0 && !c->skipped);
        if (strcmp(c->algorithm, "direct") == 0)
        {
            TN_CHECK_MSG(ctx,
                         c->held_bytes == direct_ops && strstr(c->skipped, "windows: 16128 ops"),
                         "%s",
                         c->skipped ? c->skipped : "direct ranked");
        }
    }
    TN_CHECK_MSG(ctx, ring_ranked, "the ring's windows fit %llu", (unsigned long long)o.held_limit);
    tn_tune_ranking_destroy(rk);

    /* nothing fits: refused, each reason listed */
    o.held_limit = 1;
    TN_CHECK(ctx, tn_tune_rank(t, &req, &o, &rk, &err) == TN_EUNSUPPORTED && rk == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "auto: no algorithm applies") &&
                     strstr(err.message, "would hold about"),
                 "%s",
                 err.message);
    tn_tune_ranking_destroy(free_rank);
    tn_topology_destroy(t);
}

void
tn_suite_tune_held(tn_test_suite* suite)
{
    tn_test_add(suite, "held-limit", test_held_limit);
}
