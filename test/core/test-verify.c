/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Verifier: correct schedules pass; deliberately broken ones (missing dep, dropped
 * transfer, duplicated reduce, wrong offset, reading nothing, races) are rejected
 * with a message naming the problem; contention report.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-verify.h"

#include <string.h>

enum mutation
{
    M_NONE,
    M_DROP_DEPS, /* target loses all its deps */
    M_DROP,      /* target removed (deps on it dropped) */
    M_DUPLICATE, /* target added twice */
    M_SHIFT_SRC, /* target's src and dst offsets moved by `delta` */
    M_SHIFT_DST  /* target's dst offset moved by `delta` */
};

/* Copy s with one mutation applied to transfer `target`. */
static tn_schedule*
mutate(const tn_schedule* s, enum mutation m, uint32_t target, uint64_t delta)
{
    tn_schedule* o = NULL;
    tn_error err;
    if (tn_schedule_create(tn_schedule_collective(s),
                           tn_schedule_ranks(s),
                           tn_schedule_bytes(s),
                           tn_schedule_root(s),
                           tn_schedule_chunks(s),
                           &o,
                           &err))
        return NULL;
    uint32_t n = tn_schedule_count(s);
    uint32_t map[4096];
    uint32_t next = 0;
    for (uint32_t i = 0; i < n && i < 4096; i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        tn_transfer_spec sp = {t->src,
                               t->dst,
                               t->src_offset,
                               t->dst_offset,
                               t->length,
                               t->op,
                               t->step,
                               t->dim,
                               t->chunk};
        uint32_t nd;
        const uint32_t* d = tn_schedule_deps(s, i, &nd);
        uint32_t deps[64];
        uint32_t k2 = 0;
        for (uint32_t k = 0; k < nd && k2 < 64; k++)
            if (map[d[k]] != UINT32_MAX)
                deps[k2++] = map[d[k]];
        if (i == target && m == M_DROP)
        {
            map[i] = UINT32_MAX;
            continue;
        }
        if (i == target && m == M_DROP_DEPS)
            k2 = 0;
        if (i == target && m == M_SHIFT_SRC)
        {
            sp.src_offset += delta;
            sp.dst_offset += delta;
        }
        if (i == target && m == M_SHIFT_DST)
            sp.dst_offset += delta;
        tn_schedule_add(o, &sp, deps, k2, &map[i], &err);
        if (i == target && m == M_DUPLICATE)
            tn_schedule_add(o, &sp, deps, k2, NULL, &err);
        next++;
    }
    if (tn_schedule_finalize(o, &err))
    {
        tn_schedule_destroy(o);
        return NULL;
    }
    return o;
}

static tn_schedule*
plan(const char* algo, tn_collective coll, uint32_t N, uint64_t S)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.collective = coll;
    req.ranks = N;
    req.bytes = S;
    tn_schedule* s = NULL;
    tn_error err;
    tn_plan(NULL, &req, &s, &err);
    return s;
}

static void
expect_reject(tn_test_ctx* ctx, tn_schedule* s, const char* what, const char* needle)
{
    tn_error err;
    err.message[0] = 0;
    TN_REQUIRE_MSG(ctx, s != NULL, "%s: mutation failed", what);
    tn_status st = tn_verify(s, &err);
    TN_CHECK_MSG(ctx, st == TN_EVERIFY, "%s: accepted (status %d)", what, (int)st);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, needle) != NULL,
                 "%s: message '%s' lacks '%s'",
                 what,
                 err.message,
                 needle);
    tn_schedule_destroy(s);
}

static void
test_ring_mutations(tn_test_ctx* ctx)
{
    /* ring all-reduce, N = 4, S = 4007: transfers 0..11 reduce-scatter, 12..23 all-gather */
    tn_schedule* s = plan("ring", TN_COLL_ALL_REDUCE, 4, 4007);
    TN_REQUIRE(ctx, s != NULL);
    tn_error err;
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_OK);
    tn_schedule* same = mutate(s, M_NONE, 0, 0);
    TN_CHECK_EQ(ctx, tn_verify(same, &err), TN_OK);
    tn_schedule_destroy(same);
    /* missing dep: step 1 of the reduce-scatter no longer waits for step 0 */
    expect_reject(ctx, mutate(s, M_DROP_DEPS, 5, 0), "missing dep (rs)", "not an ancestor");
    /* missing dep in the all-gather (the forwarded copy) */
    expect_reject(ctx, mutate(s, M_DROP_DEPS, 18, 0), "missing dep (ag)", "not an ancestor");
    /* dropped transfer: last reduce-scatter step */
    expect_reject(ctx, mutate(s, M_DROP, 9, 0), "dropped rs transfer", "rank");
    /* dropped all-gather transfer */
    expect_reject(ctx, mutate(s, M_DROP, 23, 0), "dropped ag transfer", "final state");
    /* duplicated reduce */
    expect_reject(ctx, mutate(s, M_DUPLICATE, 4, 0), "duplicated reduce", "counted twice");
    /* wrong offset: a reduce-scatter transfer moves the wrong block */
    expect_reject(ctx, mutate(s, M_SHIFT_SRC, 6, 1002), "wrong offset", "transfer");
    tn_schedule_destroy(s);
}

static void
test_alltoall_offsets(tn_test_ctx* ctx)
{
    tn_schedule* s = plan("direct", TN_COLL_ALL_TO_ALL, 5, 5003);
    TN_REQUIRE(ctx, s != NULL);
    tn_error err;
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_OK);
    /* block lands 1 byte off: the data is right but at the wrong place */
    expect_reject(ctx, mutate(s, M_SHIFT_DST, 3, 1), "a2a dst offset", "rank");
    /* dropped block */
    expect_reject(ctx, mutate(s, M_DROP, 7, 0), "a2a dropped", "no data");
    tn_schedule_destroy(s);
}

static void
test_hand_made(tn_test_ctx* ctx)
{
    tn_error err;
    tn_schedule* s = NULL;
    /* all-gather on 2 ranks sending a slice the source does not hold */
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_ALL_GATHER, 2, 100, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec a = {0, 1, 50, 50, 50, TN_OP_COPY, 0, -1, 0};
    tn_schedule_add(s, &a, NULL, 0, NULL, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_EVERIFY);
    TN_CHECK(ctx, strstr(err.message, "holds no data") != NULL);
    TN_CHECK(ctx, strstr(err.message, "transfer 0") != NULL);
    tn_schedule_destroy(s);
    /* reduce into a range holding nothing (all-gather buffers are empty) */
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_ALL_GATHER, 2, 100, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec b = {0, 1, 0, 0, 50, TN_OP_REDUCE, 0, -1, 0};
    tn_schedule_add(s, &b, NULL, 0, NULL, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_EVERIFY);
    TN_CHECK(ctx, strstr(err.message, "holds no data") != NULL);
    tn_schedule_destroy(s);
    /* write-after-read race: rank 1 sends its data to 2 while 0 overwrites it, unordered */
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_BROADCAST, 3, 100, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec c0 = {0, 1, 0, 0, 100, TN_OP_COPY, 0, -1, 0};
    tn_transfer_spec c1 = {1, 2, 0, 0, 100, TN_OP_COPY, 1, -1, 0};
    tn_transfer_spec c2 = {0, 1, 0, 0, 100, TN_OP_COPY, 1, -1, 0};
    uint32_t d0 = 0;
    tn_schedule_add(s, &c0, NULL, 0, NULL, &err);
    tn_schedule_add(s, &c1, &d0, 1, NULL, &err);
    tn_schedule_add(s, &c2, &d0, 1, NULL, &err); /* not after transfer 1 */
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_EVERIFY);
    TN_CHECK(ctx, strstr(err.message, "not an ancestor") != NULL);
    /* ordered: fine */
    uint32_t one = 1;
    tn_schedule_add_dep(s, 2, one, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_OK);
    /* not finalized */
    tn_schedule_add(s, &c2, NULL, 0, NULL, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_EINVAL);
    tn_schedule_destroy(s);
    /* reduce: every contribution, exactly once, at the root only */
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_REDUCE, 3, 64ULL << 20, 2, 1, &s, &err) == TN_OK);
    tn_transfer_spec r0 = {0, 2, 0, 0, 64ULL << 20, TN_OP_REDUCE, 0, -1, 0};
    tn_transfer_spec r1 = {1, 2, 0, 0, 32ULL << 20, TN_OP_REDUCE, 0, -1, 0};
    tn_schedule_add(s, &r0, NULL, 0, NULL, &err);
    tn_schedule_add(s, &r1, NULL, 0, NULL, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_EVERIFY);
    TN_CHECK(ctx,
             strstr(err.message, "rank 2 [33554432,67108864) holds {0,2}, expected {0-2}") != NULL);
    tn_transfer_spec r2 = {1, 2, 32ULL << 20, 32ULL << 20, 32ULL << 20, TN_OP_REDUCE, 0, -1, 0};
    tn_schedule_add(s, &r2, NULL, 0, NULL, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify(s, &err), TN_OK);
    tn_schedule_destroy(s);
}

static void
test_contention(tn_test_ctx* ctx)
{
    tn_topology* t = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_topology_ring(8, NULL, &t, &err) == TN_OK);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.bytes = 8000;
    tn_schedule* s = NULL;
    TN_REQUIRE(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
    /* the unidirectional ring uses each directed link once per step */
    tn_contention_report* rep = NULL;
    TN_CHECK_EQ(ctx, tn_verify_contention(s, t, NULL, &rep, &err), TN_OK);
    if (rep)
    {
        TN_CHECK_EQ(ctx, rep->conflicts, 0);
        TN_CHECK_EQ(ctx, rep->link_steps_used, 8 * 14);
    }
    tn_contention_report_destroy(rep);
    tn_schedule_set_contention_free(s, true);
    TN_CHECK_EQ(ctx, tn_verify_schedule(s, t, NULL, &err), TN_OK);
    tn_schedule_destroy(s);
    /* direct all-to-all on a ring: many transfers share links in step 0 */
    req.algorithm = "direct";
    req.collective = TN_COLL_ALL_TO_ALL;
    TN_REQUIRE(ctx, tn_plan(t, &req, &s, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_verify_contention(s, t, NULL, &rep, &err), TN_OK);
    if (rep)
    {
        TN_CHECK(ctx, rep->conflicts > 0);
        TN_CHECK_EQ(ctx, rep->stored, rep->conflicts);
        int sorted = 1;
        for (uint64_t k = 1; k < rep->stored; k++)
            sorted &= rep->list[k - 1].step < rep->list[k].step ||
                      (rep->list[k - 1].step == rep->list[k].step &&
                       rep->list[k - 1].link <= rep->list[k].link);
        TN_CHECK(ctx, sorted);
    }
    tn_contention_report_destroy(rep);
    TN_CHECK_EQ(ctx, tn_verify_schedule(s, t, NULL, &err), TN_OK); /* no claim, no check */
    tn_schedule_set_contention_free(s, true);
    TN_CHECK_EQ(ctx, tn_verify_schedule(s, t, NULL, &err), TN_EVERIFY);
    TN_CHECK(ctx, strstr(err.message, "contention") != NULL);
    tn_schedule_destroy(s);
    /* explicit path checks */
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_BROADCAST, 8, 10, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec sp = {0, 2, 0, 0, 10, TN_OP_COPY, 0, -1, 0};
    tn_schedule_add(s, &sp, NULL, 0, NULL, &err);
    uint32_t l01 = tn_topology_find_link(t, 0, 1), l12 = tn_topology_find_link(t, 1, 2);
    uint32_t good[2] = {l01, l12}, bad[2] = {l12, l01};
    tn_schedule_set_path(s, 0, bad, 2, &err);
    tn_schedule_finalize(s, &err);
    TN_CHECK_EQ(ctx, tn_verify_contention(s, t, NULL, &rep, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "explicit path") != NULL);
    tn_schedule_set_path(s, 0, good, 2, &err);
    uint32_t links[4], len = 0;
    TN_CHECK_EQ(ctx, tn_transfer_links(s, 0, t, NULL, links, 4, &len, &err), TN_OK);
    TN_CHECK(ctx, len == 2 && links[0] == l01 && links[1] == l12);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

/*
 * A budget stops the verifier without a verdict once its state passes it; the state of an
 * all-reduce by recursive halving and doubling ends with every rank holding P pieces of their
 * own writers (P^2 segments), so a budget of a few segments a rank cannot hold it and one of
 * 2 P^2 segments can. A broken schedule is still refused as broken when the break comes first.
 */
static void
test_budget(tn_test_ctx* ctx)
{
    const uint32_t ranks = 64;
    tn_schedule* s = plan("rhd", TN_COLL_ALL_REDUCE, ranks, 1 << 20);
    TN_REQUIRE(ctx, s != NULL);
    tn_error err;
    const uint64_t square = (uint64_t)ranks * ranks * TN_VERIFY_SEGMENT_BYTES;
    TN_CHECK_EQ(ctx, tn_verify_schedule_within(s, NULL, NULL, 0, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_verify_schedule_within(s, NULL, NULL, 2 * square, &err), TN_OK);
    const uint64_t few = (uint64_t)ranks * 4 * TN_VERIFY_SEGMENT_BYTES;
    TN_CHECK_EQ(ctx, tn_verify_schedule_within(s, NULL, NULL, few, &err), TN_EUNSUPPORTED);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "budget") && strstr(err.message, "over 64 ranks"),
                 "message '%s'",
                 err.message);
    /* the budget just under the final state's P^2 segments is passed before the end */
    TN_CHECK_EQ(ctx,
                tn_verify_schedule_within(s, NULL, NULL, square - TN_VERIFY_SEGMENT_BYTES, &err),
                TN_EUNSUPPORTED);
    tn_schedule* broken = mutate(s, M_DROP_DEPS, 70, 0);
    TN_REQUIRE(ctx, broken != NULL);
    TN_CHECK_EQ(ctx, tn_verify_schedule_within(broken, NULL, NULL, 2 * square, &err), TN_EVERIFY);
    tn_schedule_destroy(broken);
    tn_schedule_destroy(s);
}

void
tn_suite_verify(tn_test_suite* suite)
{
    tn_test_add(suite, "budget", test_budget);
    tn_test_add(suite, "ring-mutations", test_ring_mutations);
    tn_test_add(suite, "alltoall-offsets", test_alltoall_offsets);
    tn_test_add(suite, "hand-made", test_hand_made);
    tn_test_add(suite, "contention", test_contention);
}
