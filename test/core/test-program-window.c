/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Windows moved on (tn_program_rank_advance) and windows opened at another's cursor
 * (tn_rank_program_copy_cursor) are the windows tn_program_rank_window gives afresh: the same
 * ops, the same program-index deps and the same sharing of equal dep lists (which the
 * collective turns into its joins), for every generator; and the generators with a cursor
 * resume from it.
 */
#include "tn-test.h"

#include "ns3/tn-program-window.h"
#include "ns3/tn-program.h"
#include "ns3/tn-topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Differences between two windows of one rank (0: none); the first one in why. */
static int
window_diff(const tn_rank_program* a, const tn_rank_program* b, char* why, size_t size)
{
    if (a->first != b->first || a->count != b->count || a->sends != b->sends ||
        a->complete != b->complete)
    {
        snprintf(why,
                 size,
                 "first %u/%u, %u/%u ops, %u/%u sends, complete %d/%d",
                 a->first,
                 b->first,
                 a->count,
                 b->count,
                 a->sends,
                 b->sends,
                 a->complete,
                 b->complete);
        return 1;
    }
    for (uint32_t i = 0; i < a->count; i++)
    {
        const tn_program_op* x = &a->ops[i];
        const tn_program_op* y = &b->ops[i];
        uint32_t nx = 0, ny = 0;
        const uint32_t* dx = tn_rank_program_deps(a, i, &nx);
        const uint32_t* dy = tn_rank_program_deps(b, i, &ny);
        /* equal lists are shared alike: an op shares the previous op's list in both or in
         * neither (the collective's joins are the runs of shared lists) */
        bool sx = i > 0 && nx > 0 && a->ops[i - 1].dep_count > 0 &&
                  x->dep_start == a->ops[i - 1].dep_start;
        bool sy = i > 0 && ny > 0 && b->ops[i - 1].dep_count > 0 &&
                  y->dep_start == b->ops[i - 1].dep_start;
        if (x->send != y->send || x->op != y->op || x->peer != y->peer || x->match != y->match ||
            x->src_offset != y->src_offset || x->dst_offset != y->dst_offset ||
            x->length != y->length || x->step != y->step || x->dim != y->dim ||
            x->chunk != y->chunk || nx != ny || (nx > 0 && memcmp(dx, dy, nx * sizeof(*dx))) ||
            sx != sy)
        {
            snprintf(why,
                     size,
                     "op %u: peer %u/%u match %u/%u deps %u/%u shared %d/%d",
                     a->first + i,
                     x->peer,
                     y->peer,
                     x->match,
                     y->match,
                     nx,
                     ny,
                     sx,
                     sy);
            return 1;
        }
    }
    return 0;
}

static void
test_advance(tn_test_ctx* ctx)
{
    const struct
    {
        const char* spec;
        const char* algo;
        tn_collective coll;
        uint32_t chunks;
        bool cursor; /* the generator keeps a cursor */
    } cases[] = {
        {"torus:4x4", "ring", TN_COLL_ALL_REDUCE, 2, true},
        {"torus:4x4", "ring", TN_COLL_BROADCAST, 3, false},
        {"torus:4x4", "ring-bidir", TN_COLL_ALL_GATHER, 2, true},
        {"switch:9", "direct", TN_COLL_ALL_REDUCE, 2, true},
        {"bigraph:4x4", "rhd", TN_COLL_ALL_REDUCE, 1, false},
        {"switch:11", "dbt", TN_COLL_ALL_REDUCE, 2, false},
        {"torus:4x6", "ring2d", TN_COLL_ALL_REDUCE, 2, true},
        {"torus:8x8", "ring2d", TN_COLL_ALL_REDUCE, 1, true},
        {"mesh:5x3", "ring2d", TN_COLL_REDUCE_SCATTER, 1, true},
        {"hier:switch8@2880Gbps+switch6@400Gbps", "hierarchical", TN_COLL_ALL_REDUCE, 2, true},
        {"hier:ring4@200Gbps+switch3@100Gbps", "hierarchical", TN_COLL_ALL_GATHER, 1, true},
    };

    const uint32_t widths[] = {1, 4, 32};
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
        tn_rank_program moved, fresh, opened;
        memset(&moved, 0, sizeof(moved));
        memset(&fresh, 0, sizeof(fresh));
        memset(&opened, 0, sizeof(opened));
        for (uint32_t r = 0; r < tn_program_ranks(p); r += 3)
        {
            for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++)
            {
                const uint32_t w = widths[k];
                uint32_t first = 0, resumed = 0, steps = 0;
                char why[256] = "";
                int bad = 0;
                tn_rank_program_free(&moved);
                /* the collective's pattern: move on by half a window and a bit, more or
                 * less (a stream's first op not done), until the program's end */
                while (!bad)
                {
                    TN_REQUIRE(ctx, tn_program_rank_advance(p, r, first, w, &moved, &err) == TN_OK);
                    TN_REQUIRE(ctx, tn_program_rank_window(p, r, first, w, &fresh, &err) == TN_OK);
                    resumed += moved.resumed;
                    bad = window_diff(&moved, &fresh, why, sizeof(why));
                    /* a window opened at this one's cursor for a later stretch (the next
                     * stream) is that stretch's window too */
                    if (!bad && !moved.complete)
                    {
                        const uint32_t later = moved.first + moved.count + steps % 3;
                        TN_REQUIRE(ctx, tn_rank_program_copy_cursor(&opened, &moved, &err) == 0);
                        TN_REQUIRE(ctx,
                                   tn_program_rank_advance(p, r, later, w, &opened, &err) == TN_OK);
                        TN_REQUIRE(ctx,
                                   tn_program_rank_window(p, r, later, w, &fresh, &err) == TN_OK);
                        bad = window_diff(&opened, &fresh, why, sizeof(why));
                        resumed += opened.resumed;
                    }
                    if (moved.complete || moved.count == 0)
                        break;
                    first += w / 2 + (steps++ % 3 == 0 ? 1 : 0);
                    first = first > moved.first + moved.count ? moved.first + moved.count : first;
                    compared++;
                }
                TN_CHECK_MSG(ctx,
                             !bad,
                             "%s %s on %s, rank %u, windows of %u at %u: %s",
                             cases[c].algo,
                             tn_collective_name(cases[c].coll),
                             cases[c].spec,
                             r,
                             w,
                             first,
                             why);
                /* the generators with a cursor resume from it once the program has more
                 * than one phase in windows */
                if (cases[c].cursor && steps > 4)
                    TN_CHECK_MSG(ctx,
                                 resumed > 0,
                                 "%s on %s: no window resumed from the cursor",
                                 cases[c].algo,
                                 cases[c].spec);
                if (!cases[c].cursor)
                    TN_CHECK(ctx, resumed == 0);
            }
        }
        tn_rank_program_free(&moved);
        tn_rank_program_free(&fresh);
        tn_rank_program_free(&opened);
        tn_program_destroy(p);
        tn_topology_destroy(topo);
    }
    TN_CHECK(ctx, compared >= 200);
}

/* A window moved on past the program's end is empty and complete; a zeroed one is filled as
 * tn_program_rank_window fills it; refusals as tn_program_rank_window. */
static void
test_advance_edges(tn_test_ctx* ctx)
{
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
    TN_CHECK_EQ(ctx, tn_program_rank_advance(p, 1, 0, 0, &rp, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_program_rank_advance(p, 9, 0, 4, &rp, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_program_rank_advance(p, 1, 2, 4, &rp, &err), TN_OK);
    TN_CHECK(ctx, rp.first == 2 && rp.count == 4 && !rp.complete);
    TN_CHECK_EQ(ctx, tn_program_rank_advance(p, 1, 1000, 8, &rp, &err), TN_OK);
    TN_CHECK(ctx, rp.count == 0 && rp.complete);
    tn_rank_program_free(&rp);
    tn_program_destroy(p);
}

/* tn_program_min_window of a request (UINT32_MAX if it is refused). */
static uint32_t
min_window_of(tn_test_ctx* ctx,
              const char* spec,
              const char* algo,
              tn_collective coll,
              uint32_t ranks,
              uint32_t chunks,
              uint64_t* max_ops)
{
    tn_error err;
    tn_topology* topo = NULL;
    if (spec && tn_topology_from_spec(spec, &topo, &err) != TN_OK)
    {
        TN_CHECK_MSG(ctx, false, "%s: %s", spec, err.message);
        return UINT32_MAX;
    }
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.collective = coll;
    req.ranks = spec ? 0 : ranks;
    req.chunks = chunks;
    req.bytes = 1000003;
    req.root = coll == TN_COLL_BROADCAST ? 2 : 0;
    tn_program* p = NULL;
    uint32_t w = UINT32_MAX;
    if (tn_program_create(topo, &req, &p, &err) != TN_OK)
    {
        TN_CHECK_MSG(ctx, false, "%s on %s: %s", algo, spec ? spec : "ranks", err.message);
        tn_topology_destroy(topo);
        return UINT32_MAX;
    }
    TN_CHECK_MSG(ctx,
                 tn_program_min_window(p, &w, &err) == TN_OK,
                 "%s on %s: %s",
                 algo,
                 spec ? spec : "ranks",
                 err.message);
    if (max_ops)
        *max_ops = tn_program_max_ops(p);
    tn_program_destroy(p);
    tn_topology_destroy(topo);
    return w;
}

/* The narrowest window against closed forms of the model (tn-program-window.h), derived from each
 * generator's program: per op u of step t, the reach R to the last op of its stream of a step up
 * to t + 1, needing min(R + 1 + (u's distance from the stream's start), max(R + 1, 2 R - 1)), and,
 * where the consumer may cut a stream d ops after u within R (no op from there on waits for an op
 * before), min(2 d, the ops up to the cut + 1). Groups of more than 64 ranks (1,024 for rhd and
 * swing) take the sampled path. */
static void
test_min_window(tn_test_ctx* ctx)
{
    const uint32_t sizes[] = {2, 3, 5, 9, 100, 2048};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
    {
        const uint32_t P = sizes[k];
        for (uint32_t chunks = 1; chunks <= 3; chunks += 2)
        {
            /* direct all-reduce: every op of a chunk has step 0 (reduce-scatter) or 1 (gather),
             * so from its first send, which starts the chunk's stream, the reach is the chunk's
             * last op: the window holds the chunk's 4 (P - 1) ops */
            TN_CHECK_EQ(ctx,
                        min_window_of(ctx, NULL, "direct", TN_COLL_ALL_REDUCE, P, chunks, NULL),
                        4 * (P - 1));
            /* one phase only: each send waits for nothing and nothing waits for an op before
             * it, so each send and the receive after it are a stream of their own */
            TN_CHECK_EQ(ctx,
                        min_window_of(ctx, NULL, "direct", TN_COLL_ALL_GATHER, P, chunks, NULL),
                        2);
            TN_CHECK_EQ(ctx,
                        min_window_of(ctx, NULL, "direct", TN_COLL_ALL_TO_ALL, P, chunks, NULL),
                        2);
            /* the flat ring, step s = send s, receive s: from send s the reach is receive s + 1,
             * 3 ops on: min(4 + 2 s, max(4, 5)) = 5 from send 1 on (3 steps or more); the
             * receive s after it may start a stream 1 op on: 2. Two steps: 4 (from send 0);
             * one: 2 (its send, its receive) */
            const uint32_t ar_steps = 2 * (P - 1), rs_steps = P - 1;
            TN_CHECK_EQ(ctx,
                        min_window_of(ctx, NULL, "ring", TN_COLL_ALL_REDUCE, P, chunks, NULL),
                        ar_steps >= 3 ? 5 : 2 * ar_steps);
            TN_CHECK_EQ(ctx,
                        min_window_of(ctx, NULL, "ring", TN_COLL_REDUCE_SCATTER, P, chunks, NULL),
                        rs_steps >= 3 ? 5 : 2 * rs_steps);
        }
        /* the chain broadcast in one chunk: a middle member receives P pieces (steps m - 1 +
         * i), then sends them (steps m + i, each after its receive); from receive i the reach
         * is send i, P ops on: min(P + 1 + i, 2 P - 1), 2 P - 1 at i = P - 1 (P >= 3: a middle
         * member) */
        if (P >= 3)
            TN_CHECK_EQ(ctx,
                        min_window_of(ctx, NULL, "ring", TN_COLL_BROADCAST, P, 1, NULL),
                        2 * P - 1);
    }

    /* hierarchical over two switch dims of P0 and P1 members (3 or more): direct phases of a =
     * 2 (P0 - 1) and b = 2 (P1 - 1) ops, in the order a, b, b, a (steps 0 to 3); at the first op
     * of a phase with L ops before it and S ops in it and the next (the reach R = S - 1):
     * min(S + L, 2 S - 3), 2 (a + b) - 3 at the third phase, whose reach is the program's last
     * receive, where a stream may start (nothing waits for it), a + b - 1 ops on: 2 (a + b) - 2 */
    const struct
    {
        const char* spec;
        uint32_t p0, p1;
    } hier[] = {
        {"hier:switch5@200Gbps+switch3@100Gbps", 5, 3},
        {"hier:switch4@200Gbps+switch8@100Gbps", 4, 8},
        {"hier:switch9@200Gbps+switch9@100Gbps", 9, 9},
        {"hier:switch33@200Gbps+switch33@100Gbps", 33, 33}, /* 1,089 ranks: sampled */
    };

    for (size_t k = 0; k < sizeof(hier) / sizeof(hier[0]); k++)
    {
        const uint32_t a = 2 * (hier[k].p0 - 1), b = 2 * (hier[k].p1 - 1);
        TN_CHECK_EQ(
            ctx,
            min_window_of(ctx, hier[k].spec, "hierarchical", TN_COLL_ALL_REDUCE, 0, 1, NULL),
            2 * (a + b) - 2);
    }
    /* rhd all-reduce on a power of two: a send and a receive per step, each send after the
     * step before's receive; from the last reduce-scatter send, the first gather receive, 3 ops
     * on, may start a stream (nothing after it waits for an op before it): 2 x 3 = 6 (sampled
     * at 2,048 ranks) */
    const uint32_t pow2[] = {8, 64, 2048};
    for (size_t k = 0; k < sizeof(pow2) / sizeof(pow2[0]); k++)
    {
        char spec[32];
        snprintf(spec, sizeof(spec), "switch:%u", pow2[k]);
        TN_CHECK_EQ(ctx, min_window_of(ctx, spec, "rhd", TN_COLL_ALL_REDUCE, 0, 1, NULL), 6);
    }

    /* every generator: at least 1, at most a rank's whole program (which never stalls) */
    const struct
    {
        const char* spec;
        const char* algo;
        tn_collective coll;
    } any[] = {
        {"torus:4x4", "ring-bidir", TN_COLL_ALL_REDUCE},
        {"bigraph:4x4", "rhd", TN_COLL_ALL_REDUCE},
        {"switch:6", "rhd", TN_COLL_ALL_GATHER},
        {"switch:11", "dbt", TN_COLL_ALL_REDUCE},
        {"torus:4x6", "ring2d", TN_COLL_ALL_REDUCE},
        {"mesh:5x3", "ring2d", TN_COLL_REDUCE_SCATTER},
        {"hier:ring4@200Gbps+switch3@100Gbps", "hierarchical", TN_COLL_ALL_REDUCE},
        {"switch:16", "swing", TN_COLL_ALL_REDUCE},
        {"torus:4x4", "swing-torus", TN_COLL_ALL_REDUCE},
    };

    for (size_t k = 0; k < sizeof(any) / sizeof(any[0]); k++)
    {
        uint64_t max_ops = 0;
        const uint32_t w =
            min_window_of(ctx, any[k].spec, any[k].algo, any[k].coll, 0, 2, &max_ops);
        TN_CHECK_MSG(ctx,
                     w >= 1 && w <= max_ops,
                     "%s on %s: %u of at most %llu ops",
                     any[k].algo,
                     any[k].spec,
                     w,
                     (unsigned long long)max_ops);
    }
}

/* A consumer's own width: the floor for narrow programs (a ring's 5), the margin over a wide
 * least (ring-bidir's 764 on fattree:k=8), a user's window as set (margin 1), never past
 * UINT32_MAX. */
static void
test_window_width(tn_test_ctx* ctx)
{
    TN_CHECK_EQ(ctx, tn_program_window_width(5, 64, 2), 64u);
    TN_CHECK_EQ(ctx, tn_program_window_width(764, 64, 2), 1528u);
    TN_CHECK_EQ(ctx, tn_program_window_width(28, 28, 1), 28u);
    TN_CHECK_EQ(ctx, tn_program_window_width(UINT32_MAX, 64, 2), UINT32_MAX);
}

void
tn_suite_program_window(tn_test_suite* suite)
{
    tn_test_add(suite, "min_window", test_min_window);
    tn_test_add(suite, "advance", test_advance);
    tn_test_add(suite, "advance_edges", test_advance_edges);
    tn_test_add(suite, "window_width", test_window_width);
}
