/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fluid engine against closed forms: N flows on one link get C/N; the max-min rates of
 * parking lots (a long flow across links each shared with short ones); flows that end give
 * their share back; every bit started crosses every link of its path; only the flows whose
 * rates may change are recomputed, stopping where rates stop changing, held flows left without
 * a bottleneck are filled again, and links that cannot be filled do not join flows; bad flows
 * are refused without changing anything. Random instances against a straightforward progressive
 * filling kept here (the reference): every active flow's rate after every update, no link over its
 * capacity, every bit carried.
 */
#include "tn-test.h"

#include "ns3/tn-fluid.h"

#include <math.h>
#include <string.h>

static tn_fluid*
make(tn_test_ctx* ctx, uint32_t links, const double* cap)
{
    tn_fluid* f = NULL;
    tn_error err;
    TN_CHECK(ctx, tn_fluid_create(links, cap, &f, &err) == TN_OK);
    return f;
}

static uint32_t
start(tn_test_ctx* ctx, tn_fluid* f, const uint32_t* links, uint32_t n, double bits, uint32_t tag)
{
    uint32_t id = UINT32_MAX;
    tn_error err;
    TN_CHECK_MSG(ctx,
                 tn_fluid_start(f, links, n, bits, 0.0, tag, &id, &err) == TN_OK,
                 "start: %s",
                 err.message);
    return id;
}

/* N flows of B bits on one link of capacity C: each gets C/N and all end at N B / C,
 * reported in tag order (the tags are given in reverse). The link carried bits never before
 * the first update, at any instant while the flows cross it, and last when they end; it holds
 * the flows started (before their first rate too) until each ends. */
static void
test_one_link_equal_shares(tn_test_ctx* ctx)
{
    for (uint32_t n = 1; n <= 7; n++)
    {
        const double cap = 10.0;
        tn_fluid* f = make(ctx, 1, &cap);
        TN_REQUIRE(ctx, f != NULL);
        const uint32_t link = 0;
        uint32_t ids[7];
        for (uint32_t i = 0; i < n; i++)
            ids[i] = start(ctx, f, &link, 1, 300.0, n - i);
        TN_CHECK(ctx, tn_fluid_dirty(f));
        TN_CHECK_EQ(ctx, tn_fluid_link_flows(f, 0), n);
        TN_CHECK_EQ(ctx, tn_fluid_link_flows(f, 1), 0); /* out of range */
        TN_CHECK_EQ(ctx, tn_fluid_link_active_at(f, 0, 0.0), -1.0);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
        TN_CHECK(ctx, !tn_fluid_dirty(f));
        TN_CHECK_EQ(ctx, tn_fluid_link_active_at(f, 0, 5.0), 5.0);
        for (uint32_t i = 0; i < n; i++)
            TN_CHECK_NEAR(ctx, tn_fluid_rate(f, ids[i]), cap / n, 1e-12);
        for (uint32_t k = 1; k <= n; k++)
        {
            double t = 0;
            uint32_t id = 0, tag = 0;
            TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, &tag));
            TN_CHECK_NEAR(ctx, t, n * 300.0 / cap, 1e-9);
            TN_CHECK_EQ(ctx, tag, k);
            tn_fluid_end(f, id, t, t);
            TN_CHECK_EQ(ctx, tn_fluid_link_flows(f, 0), n - k);
        }
        TN_CHECK(ctx, !tn_fluid_next(f, NULL, NULL, NULL));
        TN_CHECK_EQ(ctx, tn_fluid_active(f), 0);
        TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, 1e6), n * 300.0, 1e-6);
        TN_CHECK_NEAR(ctx, tn_fluid_link_active_at(f, 0, 1e6), n * 300.0 / cap, 1e-9);
        tn_fluid_destroy(f);
    }
}

/* Two links in a row, a long flow A over both, short flows on each: with capacities 1 and 2,
 * B (link 0) and A split link 0 at 1/2, C gets what A leaves of link 1: 3/2. With two short
 * flows on link 1 (capacity 1): link 1 is the bottleneck at 1/3 for A, C, D and B gets the
 * 2/3 A leaves on link 0. */
static void
test_parking_lot(tn_test_ctx* ctx)
{
    const uint32_t both[] = {0, 1};
    const uint32_t l0 = 0, l1 = 1;
    {
        const double cap[] = {1.0, 2.0};
        tn_fluid* f = make(ctx, 2, cap);
        TN_REQUIRE(ctx, f != NULL);
        uint32_t a = start(ctx, f, both, 2, 1e3, 0);
        uint32_t b = start(ctx, f, &l0, 1, 1e3, 1);
        uint32_t c = start(ctx, f, &l1, 1, 1e3, 2);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 0.5, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 0.5, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, c), 1.5, 1e-12);
        tn_fluid_destroy(f);
    }
    {
        const double cap[] = {1.0, 1.0};
        tn_fluid* f = make(ctx, 2, cap);
        TN_REQUIRE(ctx, f != NULL);
        uint32_t a = start(ctx, f, both, 2, 1e3, 0);
        uint32_t b = start(ctx, f, &l0, 1, 1e3, 1);
        uint32_t c = start(ctx, f, &l1, 1, 1e3, 2);
        uint32_t d = start(ctx, f, &l1, 1, 1e3, 3);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 1.0 / 3, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 2.0 / 3, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, c), 1.0 / 3, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, d), 1.0 / 3, 1e-12);
        /* no link is over its capacity and each is full */
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a) + tn_fluid_rate(f, b), 1.0, 1e-12);
        tn_fluid_destroy(f);
    }
}

/* A link listed twice counts the flow twice: alone on it, the flow gets half of it. */
static void
test_link_listed_twice(tn_test_ctx* ctx)
{
    const double cap = 4.0;
    tn_fluid* f = make(ctx, 1, &cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t twice[] = {0, 0};
    uint32_t a = start(ctx, f, twice, 2, 100.0, 0);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 2.0, 1e-12);
    tn_fluid_end(f, a, 50.0, 50.0);
    TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, 80.0), 200.0, 1e-9);
    tn_fluid_destroy(f);
}

/* A (100 bits) and B (300 bits) share a link of capacity 1: A ends at 200, then B alone at
 * rate 1 ends at 200 + 200 = 400. Both ends are found by the engine, not given. */
static void
test_end_reshares(tn_test_ctx* ctx)
{
    const double cap = 1.0;
    tn_fluid* f = make(ctx, 1, &cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t link = 0;
    uint32_t a = start(ctx, f, &link, 1, 100.0, 7);
    uint32_t b = start(ctx, f, &link, 1, 300.0, 8);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    double t = 0;
    uint32_t id = 0, tag = 0;
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, &tag));
    TN_CHECK_EQ(ctx, id, a);
    TN_CHECK_EQ(ctx, tag, 7);
    TN_CHECK_NEAR(ctx, t, 200.0, 1e-9);
    tn_fluid_end(f, id, t, t);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, t, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 1.0, 1e-12);
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, &tag));
    TN_CHECK_EQ(ctx, id, b);
    TN_CHECK_NEAR(ctx, t, 400.0, 1e-9);
    /* halfway B has carried 100 bits at 1/2 and 100 at 1: the link counts both flows */
    TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, 300.0), 300.0, 1e-9);
    tn_fluid_destroy(f);
}

/* A ring of 6 links, flows of 1..3 hops started and ended in waves: at the end every link
 * has carried exactly the bits of the flows crossing it, and between events no link carries
 * more than its capacity. */
static void
test_bits_conserved(tn_test_ctx* ctx)
{
    enum
    {
        L = 6,
        N = 24
    };

    double cap[L];
    for (uint32_t l = 0; l < L; l++)
        cap[l] = 1.0 + l;
    tn_fluid* f = make(ctx, L, cap);
    TN_REQUIRE(ctx, f != NULL);
    double expect[L] = {0};
    uint32_t path[N][3];
    uint32_t hops[N];
    uint32_t ids[N];
    int done[N] = {0};
    double now = 0;
    uint32_t started = 0;
    uint32_t ended = 0;
    while (ended < N)
    {
        /* a wave of up to 5 starts whenever fewer than 4 flows are active */
        for (uint32_t w = 0; w < 5 && started < N && tn_fluid_active(f) < 4; w++)
        {
            uint32_t i = started++;
            hops[i] = 1 + i % 3;
            for (uint32_t k = 0; k < hops[i]; k++)
            {
                path[i][k] = (i * 5 + k) % L;
                expect[path[i][k]] += 100.0 * (1 + i % 4);
            }
            uint32_t id = 0;
            TN_REQUIRE(
                ctx,
                tn_fluid_start(f, path[i], hops[i], 100.0 * (1 + i % 4), now, i, &id, NULL) ==
                    TN_OK);
            ids[i] = id;
        }
        TN_REQUIRE(ctx, tn_fluid_update(f, now, NULL) == TN_OK);
        double load[L] = {0};
        for (uint32_t i = 0; i < started; i++)
        {
            if (done[i])
                continue;
            for (uint32_t k = 0; k < hops[i]; k++)
                load[path[i][k]] += tn_fluid_rate(f, ids[i]);
        }
        for (uint32_t l = 0; l < L; l++)
            TN_CHECK_MSG(ctx, load[l] <= cap[l] * (1 + 1e-12), "link %u over capacity", l);
        double t = 0;
        uint32_t id = 0, tag = 0;
        TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, &tag));
        TN_CHECK(ctx, t >= now);
        now = t;
        tn_fluid_end(f, id, t, t);
        /* rates of the ended flow are 0 from now on */
        TN_CHECK_EQ(ctx, tn_fluid_rate(f, id), 0);
        TN_REQUIRE(ctx, tag < N && !done[tag] && ids[tag] == id);
        done[tag] = 1;
        ended++;
    }
    for (uint32_t l = 0; l < L; l++)
        TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, l, now + 1e3), expect[l], 1e-6 * expect[l]);
    tn_fluid_destroy(f);
}

/* Flows on links nobody else uses: ending one recomputes no other flow, and the other keeps
 * its finish time; ending a flow late (at now > end) stops its link counting at end. */
static void
test_incremental(tn_test_ctx* ctx)
{
    const double cap[] = {1.0, 1.0};
    tn_fluid* f = make(ctx, 2, cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t l0 = 0, l1 = 1;
    uint32_t a = start(ctx, f, &l0, 1, 10.0, 0);
    uint32_t b = start(ctx, f, &l1, 1, 50.0, 1);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_EQ(ctx, tn_fluid_updates(f), 1);
    TN_CHECK_EQ(ctx, tn_fluid_visited(f), 2);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK); /* nothing touched */
    TN_CHECK_EQ(ctx, tn_fluid_updates(f), 1);
    double t = 0;
    uint32_t id = 0;
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, NULL));
    TN_CHECK_EQ(ctx, id, a);
    tn_fluid_end(f, a, 10.0, 12.0);
    TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, 20.0), 10.0, 1e-12);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 12.0, NULL), TN_OK);
    TN_CHECK_EQ(ctx, tn_fluid_visited(f), 2); /* link 0 is empty: b is not visited */
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, NULL));
    TN_CHECK_EQ(ctx, id, b);
    TN_CHECK_NEAR(ctx, t, 50.0, 1e-12);
    tn_fluid_destroy(f);
}

/* Only flows whose rates may change are recomputed: nine flows on link 0 and X across links
 * 0 and 1 get 1/10 (link 0 of capacity 1), b alone beside X on link 1 gets 9/10. When b ends
 * nothing below its rate changes: no flow is visited (tn_fluid_set_whole visits the ten left in
 * the component), X keeps 1/10. When a flow of link 0 ends, the other nine get 1/9. */
static void
test_keeps_slower_flows(tn_test_ctx* ctx)
{
    for (int whole = 0; whole < 2; whole++)
    {
        const double cap[] = {1.0, 1.0};
        tn_fluid* f = make(ctx, 2, cap);
        TN_REQUIRE(ctx, f != NULL);
        tn_fluid_set_whole(f, whole);
        const uint32_t l0 = 0, l1 = 1, both[] = {0, 1};
        uint32_t a[9];
        for (uint32_t i = 0; i < 9; i++)
            a[i] = start(ctx, f, &l0, 1, 1e3, i);
        uint32_t x = start(ctx, f, both, 2, 1e3, 9);
        uint32_t b = start(ctx, f, &l1, 1, 1e3, 10);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
        TN_CHECK_EQ(ctx, tn_fluid_visited(f), 11);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, x), 0.1, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 0.9, 1e-12);
        tn_fluid_end(f, b, 1.0, 1.0);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 1.0, NULL), TN_OK);
        TN_CHECK_EQ(ctx, tn_fluid_visited(f), whole ? 21 : 11);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, x), 0.1, 1e-12);
        tn_fluid_end(f, a[0], 2.0, 2.0);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 2.0, NULL), TN_OK);
        TN_CHECK_EQ(ctx, tn_fluid_visited(f), whole ? 30 : 20);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, x), 1.0 / 9, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a[8]), 1.0 / 9, 1e-12);
        tn_fluid_destroy(f);
    }
}

/* A link whose flows' slowest links sum below its capacity cannot be filled: a and b share
 * the fat link 2 (capacity 2.2) but each is held to 1 by its own link, so a flow starting
 * beside b on link 1 visits b and itself, not a. d joining link 2 makes it a bottleneck
 * (bounds 3 > 2.2): b is held to 1/2 by link 1, a and d share the 1.7 left. When c ends, link
 * 2 holds a, b and d at 2.2 / 3; when d ends it is slack again and a and b run at 1. */
static void
test_slack_link(tn_test_ctx* ctx)
{
    const double cap[] = {1.0, 1.0, 2.2, 1.0};
    tn_fluid* f = make(ctx, 4, cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t pa[] = {0, 2}, pb[] = {1, 2}, pc[] = {1}, pd[] = {2, 3};
    uint32_t a = start(ctx, f, pa, 2, 1e3, 0);
    uint32_t b = start(ctx, f, pb, 2, 1e3, 1);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 1.0, 1e-12);
    uint64_t visited = tn_fluid_visited(f);
    uint32_t c = start(ctx, f, pc, 1, 1e3, 2);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_EQ(ctx, tn_fluid_visited(f) - visited, 2); /* b and c: not a */
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 0.5, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, c), 0.5, 1e-12);
    uint32_t d = start(ctx, f, pd, 2, 1e3, 3);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 0.85, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 0.5, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, d), 0.85, 1e-12);
    tn_fluid_end(f, c, 1.0, 1.0);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 1.0, NULL), TN_OK);
    for (uint32_t i = 0; i < 3; i++)
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, (uint32_t[]){a, b, d}[i]), 2.2 / 3, 1e-12);
    tn_fluid_end(f, d, 2.0, 2.0);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 2.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 1.0, 1e-12);
    tn_fluid_destroy(f);
}

/* A recomputation stops where rates stop changing: 63 flows in a chain of 64 links of
 * capacity 1, flow i across links i and i + 1, all run at 1/2 (each inner link holds two).
 * When flow 0 ends, flow 1 is alone on link 1 but still shares link 2 with flow 2 at 1/2:
 * nothing changes, and only flow 1 is visited (tn_fluid_set_whole visits the 62 left, all one
 * component); so for flow 62's end. A flow x on link 2 alone takes 1/3 of it with flows 1 and
 * 2; flow 3 is still held to 1/2 by link 4: three flows visited (whole: 62). */
static void
test_local_recomputation(tn_test_ctx* ctx)
{
    for (int whole = 0; whole < 2; whole++)
    {
        double cap[64];
        for (uint32_t l = 0; l < 64; l++)
            cap[l] = 1.0;
        tn_fluid* f = make(ctx, 64, cap);
        TN_REQUIRE(ctx, f != NULL);
        tn_fluid_set_whole(f, whole);
        uint32_t id[63];
        for (uint32_t i = 0; i < 63; i++)
            id[i] = start(ctx, f, (uint32_t[]){i, i + 1}, 2, 1e3, i);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
        for (uint32_t i = 0; i < 63; i++)
            TN_CHECK_NEAR(ctx, tn_fluid_rate(f, id[i]), 0.5, 1e-12);
        uint64_t visited = tn_fluid_visited(f);
        tn_fluid_end(f, id[0], 1.0, 1.0);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 1.0, NULL), TN_OK);
        TN_CHECK_EQ(ctx, tn_fluid_visited(f) - visited, whole ? 62 : 1);
        visited = tn_fluid_visited(f);
        tn_fluid_end(f, id[62], 1.0, 1.0);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 1.0, NULL), TN_OK);
        TN_CHECK_EQ(ctx, tn_fluid_visited(f) - visited, whole ? 61 : 1);
        for (uint32_t i = 1; i < 62; i++)
            TN_CHECK_NEAR(ctx, tn_fluid_rate(f, id[i]), 0.5, 1e-12);
        visited = tn_fluid_visited(f);
        const uint32_t l2 = 2;
        uint32_t x = start(ctx, f, &l2, 1, 1e3, 63);
        TN_CHECK_EQ(ctx, tn_fluid_update(f, 1.0, NULL), TN_OK);
        TN_CHECK_EQ(ctx, tn_fluid_visited(f) - visited, whole ? 62 : 3);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, x), 1.0 / 3, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, id[1]), 1.0 / 3, 1e-12);
        TN_CHECK_NEAR(ctx, tn_fluid_rate(f, id[2]), 1.0 / 3, 1e-12);
        for (uint32_t i = 3; i < 62; i++)
            TN_CHECK_NEAR(ctx, tn_fluid_rate(f, id[i]), 0.5, 1e-12);
        tn_fluid_destroy(f);
    }
}

/* A flow held at its rate is filled again when the fill of the others makes it wrong. Links
 * A (0) and B (1). (1) A of 1, B of 0.5: p on A, q on A and B, r on B; q and r get 0.25 (B),
 * p 0.75. When r ends, q alone is filled first and gets 0.25 of A beside p held at 0.75, so A
 * is q's neck with p faster on it: p joins, and both run at 1/2. (2) A and B of 1, B of 0.6
 * in a second engine: p and q share A at 1/2 (A's id is smaller); n starting on B holds q to
 * 0.3, which leaves p's neck A unsaturated: p joins and rises to 0.7. */
static void
test_held_flows_join(tn_test_ctx* ctx)
{
    const uint32_t a = 0, b = 1, ab[] = {0, 1};
    const double cap1[] = {1.0, 0.5};
    tn_fluid* f = make(ctx, 2, cap1);
    TN_REQUIRE(ctx, f != NULL);
    uint32_t p = start(ctx, f, &a, 1, 1e3, 0);
    uint32_t q = start(ctx, f, ab, 2, 1e3, 1);
    uint32_t r = start(ctx, f, &b, 1, 1e3, 2);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, p), 0.75, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, q), 0.25, 1e-12);
    uint64_t visited = tn_fluid_visited(f);
    tn_fluid_end(f, r, 1.0, 1.0);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 1.0, NULL), TN_OK);
    TN_CHECK_EQ(ctx, tn_fluid_visited(f) - visited, 2);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, p), 0.5, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, q), 0.5, 1e-12);
    tn_fluid_destroy(f);

    const double cap2[] = {1.0, 0.6};
    f = make(ctx, 2, cap2);
    TN_REQUIRE(ctx, f != NULL);
    p = start(ctx, f, &a, 1, 1e3, 0);
    q = start(ctx, f, ab, 2, 1e3, 1);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, p), 0.5, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, q), 0.5, 1e-12);
    visited = tn_fluid_visited(f);
    uint32_t n = start(ctx, f, &b, 1, 1e3, 2);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    TN_CHECK_EQ(ctx, tn_fluid_visited(f) - visited, 3);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, p), 0.7, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, q), 0.3, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, n), 0.3, 1e-12);
    tn_fluid_destroy(f);
}

/* Refused: no links, a link out of range, no bits. Nothing is added by a refusal. */
static void
test_refused(tn_test_ctx* ctx)
{
    const double cap = 1.0;
    tn_fluid* f = make(ctx, 1, &cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t ok = 0, bad = 1;
    uint32_t id = 0;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_fluid_start(f, &ok, 0, 1.0, 0, 0, &id, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_fluid_start(f, &bad, 1, 1.0, 0, 0, &id, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "link 1 out of range") != NULL);
    TN_CHECK_EQ(ctx, tn_fluid_start(f, &ok, 1, 0.0, 0, 0, &id, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_fluid_active(f), 0);
    TN_CHECK(ctx, !tn_fluid_dirty(f));
    tn_fluid_destroy(f);
}

/* ---- random instances against a reference ---- */

enum
{
    RL_MAX = 16, /* links */
    RF_MAX = 96, /* flows per instance */
    RH_MAX = 5   /* hops */
};

typedef struct rflow
{
    uint32_t links[RH_MAX];
    uint32_t hops;
    double bits;
    uint32_t id;
    int state; /* 0 not started, 1 active, 2 ended */
} rflow;

static uint64_t
rnd(uint64_t* s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Max-min fair rates by the textbook progressive filling: the link of the smallest share
 * left / (flows not frozen, a flow counted once per time it lists the link) freezes its
 * flows at that share; repeat. */
static void
reference_rates(const rflow* fl, uint32_t n, const double* cap, uint32_t links, double* rate)
{
    double left[RL_MAX];
    uint32_t count[RL_MAX] = {0};
    int frozen[RF_MAX] = {0};
    for (uint32_t l = 0; l < links; l++)
        left[l] = cap[l];
    for (uint32_t i = 0; i < n; i++)
    {
        rate[i] = 0;
        frozen[i] = fl[i].state != 1;
        for (uint32_t k = 0; k < fl[i].hops && !frozen[i]; k++)
            count[fl[i].links[k]]++;
    }
    for (;;)
    {
        uint32_t best = links;
        for (uint32_t l = 0; l < links; l++)
        {
            if (count[l] > 0 && (best == links || left[l] / count[l] < left[best] / count[best]))
                best = l;
        }
        if (best == links)
            return;
        const double share = left[best] / count[best];
        for (uint32_t i = 0; i < n; i++)
        {
            int on = 0;
            for (uint32_t k = 0; k < fl[i].hops; k++)
                on |= fl[i].links[k] == best;
            if (frozen[i] || !on)
                continue;
            frozen[i] = 1;
            rate[i] = share;
            for (uint32_t k = 0; k < fl[i].hops; k++)
            {
                left[fl[i].links[k]] -= share;
                count[fl[i].links[k]]--;
            }
        }
    }
}

/* One random instance: flows start in waves (several at one instant), end when the engine
 * says, as FlowNetwork drives it (all ends and starts of an instant, then one update). Few
 * capacities and sizes, so that shares and finish times tie often. */
static void
random_instance(tn_test_ctx* ctx, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    const uint32_t links = 2 + (uint32_t)(rnd(&s) % (RL_MAX - 1));
    const uint32_t n = 8 + (uint32_t)(rnd(&s) % (RF_MAX - 7));
    double cap[RL_MAX];
    for (uint32_t l = 0; l < links; l++)
        cap[l] = (double)(1 + rnd(&s) % 4) * (rnd(&s) % 3 == 0 ? 0.5 : 1.0);
    rflow fl[RF_MAX];
    double expect[RL_MAX] = {0};
    for (uint32_t i = 0; i < n; i++)
    {
        fl[i].hops = 1 + (uint32_t)(rnd(&s) % RH_MAX);
        for (uint32_t k = 0; k < fl[i].hops; k++)
            fl[i].links[k] = (uint32_t)(rnd(&s) % links);
        fl[i].bits = 100.0 * (double)(1 + rnd(&s) % 5);
        fl[i].state = 0;
        for (uint32_t k = 0; k < fl[i].hops; k++)
            expect[fl[i].links[k]] += fl[i].bits;
    }
    tn_fluid* f = make(ctx, links, cap);
    TN_REQUIRE(ctx, f != NULL);
    double now = 0;
    double next_wave = 0;
    uint32_t started = 0;
    uint32_t ended = 0;
    uint32_t checks = 0;
    while (ended < n)
    {
        double t = 0;
        uint32_t id = 0, tag = 0;
        while (tn_fluid_next(f, &t, &id, &tag) && t <= now + 1e-9)
        {
            TN_REQUIRE_MSG(ctx,
                           tag < n && fl[tag].state == 1 && fl[tag].id == id,
                           "seed %llu: flow %u reported again after its end",
                           (unsigned long long)seed,
                           tag);
            tn_fluid_end(f, id, t, now);
            fl[tag].state = 2;
            ended++;
        }
        if (started < n && now >= next_wave)
        {
            uint32_t wave = 1 + (uint32_t)(rnd(&s) % 8);
            for (uint32_t w = 0; w < wave && started < n; w++)
            {
                rflow* r = &fl[started];
                TN_REQUIRE(
                    ctx,
                    tn_fluid_start(f, r->links, r->hops, r->bits, now, started, &r->id, NULL) ==
                        TN_OK);
                r->state = 1;
                started++;
            }
            next_wave = now + (double)(rnd(&s) % 4) * 50.0;
        }
        TN_REQUIRE(ctx, tn_fluid_update(f, now, NULL) == TN_OK);
        double ref[RF_MAX];
        reference_rates(fl, n, cap, links, ref);
        double load[RL_MAX] = {0};
        for (uint32_t i = 0; i < n; i++)
        {
            if (fl[i].state != 1)
                continue;
            const double r = tn_fluid_rate(f, fl[i].id);
            TN_CHECK_MSG(ctx,
                         fabs(r - ref[i]) <= 1e-9 * ref[i],
                         "seed %llu, t %g: flow %u rate %.17g, reference %.17g",
                         (unsigned long long)seed,
                         now,
                         i,
                         r,
                         ref[i]);
            for (uint32_t k = 0; k < fl[i].hops; k++)
                load[fl[i].links[k]] += r;
            checks++;
        }
        for (uint32_t l = 0; l < links; l++)
            TN_CHECK_MSG(ctx, load[l] <= cap[l] * (1 + 1e-12), "link %u over capacity", l);
        bool any = tn_fluid_next(f, &t, NULL, NULL);
        TN_REQUIRE(ctx, any || started < n || ended == n);
        now = any && (started == n || t < next_wave) ? t : (next_wave > now ? next_wave : now);
    }
    TN_CHECK(ctx, checks > 0);
    for (uint32_t l = 0; l < links; l++)
        TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, l, now + 1e3), expect[l], 1e-9 * expect[l] + 1e-9);
    tn_fluid_destroy(f);
}

/* A flow ended before its end (a caller's window of ends, FlowNetwork::EndWindow): its bits left
 * are carried at once, so the link still carries every bit, and the flow left beside it takes
 * the whole link from then on. Two flows of 10 and 11 bits on a link of 1 bit/ns share it
 * (1/2 each): the first ends at 20 ns, the second then has 1 bit left; ended with it at 20 ns,
 * the link has carried 21 bits at 20 ns and no more after. */
static void
test_ended_early(tn_test_ctx* ctx)
{
    const double cap[] = {1.0};
    tn_fluid* f = make(ctx, 1, cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t l0 = 0;
    uint32_t a = start(ctx, f, &l0, 1, 10.0, 0);
    uint32_t b = start(ctx, f, &l0, 1, 11.0, 1);
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 0.0, NULL), TN_OK);
    double t = 0;
    uint32_t id = 0;
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, NULL));
    TN_CHECK_EQ(ctx, id, a);
    TN_CHECK_NEAR(ctx, t, 20.0, 1e-12);
    tn_fluid_end(f, a, t, t);
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, NULL));
    TN_CHECK_EQ(ctx, id, b); /* still at its old rate: its end is 22 ns until the update */
    TN_CHECK_NEAR(ctx, t, 22.0, 1e-12);
    tn_fluid_end(f, b, t, 20.0); /* 2 ns early: its last bit carried now */
    TN_CHECK_EQ(ctx, tn_fluid_update(f, 20.0, NULL), TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, 20.0), 21.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, 40.0), 21.0, 1e-12);
    TN_CHECK(ctx, !tn_fluid_next(f, &t, &id, NULL));
    tn_fluid_destroy(f);
}

/* Flows alone on their links (a step of a collective on a torus: one flow per link) take their
 * slowest link's capacity without a fill of shared links; beside them two flows share a link.
 * Links of 4, 2, 1, 3 and 3 bit/ns: a alone on the 4 gets 4, b over the 2 and the 1 gets 1,
 * c and d on one 3 get 1.5 each, e alone on the other 3 gets 3. When a ends, g starts over
 * the 4 (now alone) and the shared 3: c, d and g get 1 each, b and e keep theirs. */
static void
test_flows_alone(tn_test_ctx* ctx)
{
    const double cap[] = {4.0, 2.0, 1.0, 3.0, 3.0};
    tn_fluid* f = make(ctx, 5, cap);
    TN_REQUIRE(ctx, f != NULL);
    const uint32_t pa[] = {0}, pb[] = {1, 2}, pc[] = {3}, pe[] = {4}, pg[] = {0, 3};
    const uint32_t a = start(ctx, f, pa, 1, 400.0, 0);
    const uint32_t b = start(ctx, f, pb, 2, 1e6, 1);
    const uint32_t c = start(ctx, f, pc, 1, 1e6, 2);
    const uint32_t d = start(ctx, f, pc, 1, 1e6, 3);
    const uint32_t e = start(ctx, f, pe, 1, 1e6, 4);
    TN_REQUIRE(ctx, tn_fluid_update(f, 0.0, NULL) == TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, a), 4.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, c), 1.5, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, d), 1.5, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, e), 3.0, 1e-12);
    double t = 0;
    uint32_t id = UINT32_MAX;
    TN_REQUIRE(ctx, tn_fluid_next(f, &t, &id, NULL));
    TN_CHECK_EQ(ctx, id, a);
    TN_CHECK_NEAR(ctx, t, 100.0, 1e-9);
    tn_fluid_end(f, a, t, t);
    uint32_t g = UINT32_MAX;
    TN_REQUIRE(ctx, tn_fluid_start(f, pg, 2, 1e6, t, 5, &g, NULL) == TN_OK);
    TN_REQUIRE(ctx, tn_fluid_update(f, t, NULL) == TN_OK);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, g), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, c), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, d), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, b), 1.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_rate(f, e), 3.0, 1e-12);
    TN_CHECK_NEAR(ctx, tn_fluid_link_bits(f, 0, t), 400.0, 1e-9);
    tn_fluid_destroy(f);
}

static void
test_random_against_reference(tn_test_ctx* ctx)
{
    for (uint64_t seed = 1; seed <= 300; seed++)
        random_instance(ctx, seed);
}

void
tn_suite_fluid(tn_test_suite* suite)
{
    tn_test_add(suite, "one-link-equal-shares", test_one_link_equal_shares);
    tn_test_add(suite, "parking-lot", test_parking_lot);
    tn_test_add(suite, "link-listed-twice", test_link_listed_twice);
    tn_test_add(suite, "end-reshares", test_end_reshares);
    tn_test_add(suite, "bits-conserved", test_bits_conserved);
    tn_test_add(suite, "incremental", test_incremental);
    tn_test_add(suite, "ended-early", test_ended_early);
    tn_test_add(suite, "refused", test_refused);
    tn_test_add(suite, "keeps-slower-flows", test_keeps_slower_flows);
    tn_test_add(suite, "slack-link", test_slack_link);
    tn_test_add(suite, "local-recomputation", test_local_recomputation);
    tn_test_add(suite, "held-flows-join", test_held_flows_join);
    tn_test_add(suite, "flows-alone", test_flows_alone);
    tn_test_add(suite, "random-against-reference", test_random_against_reference);
}
