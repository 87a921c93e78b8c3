/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Schedule IR: slicing rule, chunk layout, builder validation, finalize (dedupe,
 * cycles, topological order), accessors.
 */
#include "tn-test.h"

#include "ns3/tn-schedule.h"

#include <string.h>

static void
test_slicing_rule(tn_test_ctx* ctx)
{
    static const uint64_t sizes[] = {0, 1, 2, 7, 999, 1000, 1001, 1234567, 64ULL << 20};
    static const uint32_t parts[] = {1, 2, 3, 7, 8, 64, 1000, 1024};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    {
        for (size_t j = 0; j < sizeof(parts) / sizeof(parts[0]); j++)
        {
            uint64_t S = sizes[i];
            uint32_t P = parts[j];
            uint64_t sum = 0, next = 0;
            int ok = 1;
            for (uint32_t k = 0; k < P; k++)
            {
                tn_slice sl = tn_slice_of(S, P, k);
                ok &= sl.offset == next;                        /* consecutive */
                ok &= sl.length == S / P + (k < S % P ? 1 : 0); /* first S%P longer */
                next = sl.offset + sl.length;
                sum += sl.length;
            }
            TN_CHECK_MSG(ctx, ok && sum == S, "slices of S=%llu into %u", (unsigned long long)S, P);
        }
    }
    tn_slice sl = tn_slice_of(10, 4, 2); /* 3,3,2,2 */
    TN_CHECK_EQ(ctx, sl.offset, 6);
    TN_CHECK_EQ(ctx, sl.length, 2);
}

static void
test_chunk_layout(tn_test_ctx* ctx)
{
    /* chunking conserves bytes: every byte of every block is in exactly one chunk piece */
    uint64_t S = 10007;
    uint32_t N = 7, C = 5;
    tn_collective colls[3] = {TN_COLL_ALL_REDUCE, TN_COLL_REDUCE_SCATTER, TN_COLL_ALL_TO_ALL};
    for (int c = 0; c < 3; c++)
    {
        static unsigned char seen[10007];
        memset(seen, 0, sizeof(seen));
        uint64_t total = 0;
        for (uint32_t ch = 0; ch < C; ch++)
            for (uint32_t b = 0; b < N; b++)
            {
                tn_slice sl = tn_chunk_block(colls[c], S, N, C, ch, b);
                total += sl.length;
                for (uint64_t x = sl.offset; x < sl.offset + sl.length && x < S; x++)
                    seen[x]++;
            }
        TN_CHECK_EQ(ctx, total, S);
        int once = 1;
        for (uint64_t x = 0; x < S; x++)
            once &= seen[x] == 1;
        TN_CHECK(ctx, once);
    }
    /* reduce-scatter pieces of chunk c lie inside slice b */
    for (uint32_t b = 0; b < N; b++)
    {
        tn_slice whole = tn_slice_of(S, N, b);
        tn_slice p = tn_chunk_block(TN_COLL_REDUCE_SCATTER, S, N, C, 2, b);
        TN_CHECK(ctx,
                 p.offset >= whole.offset && p.offset + p.length <= whole.offset + whole.length);
    }
    /* all-to-all receive blocks: rank 3 receives from 6 after S + 6*len_3 */
    uint64_t len3 = tn_slice_of(S, N, 3).length;
    TN_CHECK_EQ(ctx, tn_alltoall_recv_offset(S, N, 1, 0, 6, 3), S + 6 * len3);
}

static void
test_builder(tn_test_ctx* ctx)
{
    tn_schedule* s = NULL;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_schedule_create(TN_COLL_ALL_REDUCE, 0, 10, 0, 1, &s, &err), TN_EINVAL);
    TN_CHECK(ctx, s == NULL);
    TN_CHECK_EQ(ctx, tn_schedule_create(TN_COLL_BROADCAST, 4, 10, 4, 1, &s, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "root") != NULL);
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_ALL_TO_ALL, 4, 10, 0, 2, &s, &err) == TN_OK);
    /* all-to-all buffers: S + N * len_r */
    TN_CHECK_EQ(ctx, tn_schedule_buffer_size(s, 0), 10 + 4 * 3);
    TN_CHECK_EQ(ctx, tn_schedule_buffer_size(s, 3), 10 + 4 * 2);
    tn_transfer_spec sp = {0, 1, 0, 10, 3, TN_OP_COPY, 0, -1, 0};
    uint32_t id = 99;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_OK);
    TN_CHECK_EQ(ctx, id, 0);
    sp.src = 1;
    sp.dst = 1;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_EINVAL); /* src == dst */
    sp.dst = 4;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_EINVAL); /* rank */
    sp.dst = 2;
    sp.chunk = 2;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_EINVAL); /* chunk */
    TN_CHECK(ctx, strstr(err.message, "chunk") != NULL);
    sp.chunk = 1;
    sp.dst_offset = 20;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_EINVAL); /* 20+3 > 18 */
    sp.dst_offset = UINT64_MAX - 1;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_EINVAL); /* overflow */
    sp.dst_offset = 15;
    uint32_t deps[3] = {0, 0, 2};
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, deps, 3, &id, &err), TN_OK);
    TN_CHECK_EQ(ctx, id, 1);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 2);
    /* dep 2 does not exist */
    TN_CHECK_EQ(ctx, tn_schedule_finalize(s, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "2") != NULL);
    sp.step = 4;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, NULL, 0, &id, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_schedule_finalize(s, &err), TN_OK);
    uint32_t nd;
    const uint32_t* d = tn_schedule_deps(s, 1, &nd);
    TN_CHECK_EQ(ctx, nd, 2); /* duplicates removed */
    TN_CHECK(ctx, d[0] == 0 && d[1] == 2);
    const uint32_t* su = tn_schedule_succs(s, 0, &nd);
    TN_CHECK(ctx, nd == 1 && su[0] == 1);
    const uint32_t* order = tn_schedule_topo_order(s);
    TN_CHECK(ctx, order[0] == 0 && order[1] == 2 && order[2] == 1);
    TN_CHECK_EQ(ctx, tn_schedule_steps(s), 5);
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 9);
    /* explicit paths */
    uint32_t links[3] = {7, 8, 9};
    TN_CHECK_EQ(ctx, tn_schedule_set_path(s, 2, links, 3, &err), TN_OK);
    const uint32_t* p = tn_schedule_path(s, 2, &nd);
    TN_CHECK(ctx, nd == 3 && p[2] == 9);
    TN_CHECK(ctx, tn_schedule_path(s, 0, &nd) == NULL && nd == 0);
    /* added after finalize: the deps held in the CSR alone come back with the new ones */
    sp.step = 5;
    const uint32_t dep1 = 1;
    TN_CHECK_EQ(ctx, tn_schedule_add(s, &sp, &dep1, 1, &id, &err), TN_OK);
    TN_CHECK(ctx, id == 3 && !tn_schedule_is_finalized(s));
    TN_CHECK_EQ(ctx, tn_schedule_add_dep(s, 3, 0, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_schedule_finalize(s, &err), TN_OK);
    d = tn_schedule_deps(s, 1, &nd);
    TN_CHECK(ctx, nd == 2 && d[0] == 0 && d[1] == 2);
    d = tn_schedule_deps(s, 3, &nd);
    TN_CHECK(ctx, nd == 2 && d[0] == 0 && d[1] == 1);
    su = tn_schedule_succs(s, 0, &nd);
    TN_CHECK(ctx, nd == 2 && su[0] == 1 && su[1] == 3);
    order = tn_schedule_topo_order(s);
    TN_CHECK(ctx, order[0] == 0 && order[1] == 2 && order[2] == 1 && order[3] == 3);
    TN_CHECK(ctx, tn_schedule_path(s, 2, &nd) != NULL && nd == 3);
    /* a cycle */
    TN_CHECK_EQ(ctx, tn_schedule_add_dep(s, 0, 1, &err), TN_OK);
    TN_CHECK(ctx, !tn_schedule_is_finalized(s));
    TN_CHECK_EQ(ctx, tn_schedule_finalize(s, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "cycle") != NULL);
    TN_CHECK_EQ(ctx, tn_schedule_set_algorithm(s, "hand", &err), TN_OK);
    TN_CHECK(ctx, strcmp(tn_schedule_algorithm(s), "hand") == 0);
    tn_schedule_destroy(s);
}

/* Equal dep (and succ) lists share their storage once finalized: transfers 2, 3 and 4 wait on
 * 0 and 1 (given in other orders, with a repeat), 5 on 0 alone; 0 and 1 are then both waited
 * on by 2, 3 and 4. The lists read back sorted and whole, and again after a later add. */
static void
test_shared_rows(tn_test_ctx* ctx)
{
    tn_schedule* s = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_ALL_TO_ALL, 4, 8, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec sp = {0, 1, 0, 8, 2, TN_OP_COPY, 0, -1, 0};
    const uint32_t lists[6][3] = {{0}, {0}, {0, 1}, {1, 0}, {1, 0, 1}, {0}};
    const uint32_t counts[6] = {0, 0, 2, 2, 3, 1};
    for (uint32_t t = 0; t < 6; t++)
    {
        sp.src = t % 4;
        sp.dst = (t + 1) % 4;
        TN_REQUIRE(ctx, tn_schedule_add(s, &sp, lists[t], counts[t], NULL, &err) == TN_OK);
    }
    for (int round = 0; round < 2; round++)
    {
        TN_REQUIRE(ctx, tn_schedule_finalize(s, &err) == TN_OK);
        uint32_t n2, n3, n4, n5;
        const uint32_t* d2 = tn_schedule_deps(s, 2, &n2);
        const uint32_t* d3 = tn_schedule_deps(s, 3, &n3);
        const uint32_t* d4 = tn_schedule_deps(s, 4, &n4);
        const uint32_t* d5 = tn_schedule_deps(s, 5, &n5);
        TN_CHECK(ctx, n2 == 2 && n3 == 2 && n4 == 2 && d2[0] == 0 && d2[1] == 1);
        TN_CHECK(ctx, d3 == d2 && d4 == d2); /* one list */
        TN_CHECK(ctx, n5 == 1 && d5[0] == 0);
        uint32_t a, b;
        const uint32_t* s0 = tn_schedule_succs(s, 0, &a);
        const uint32_t* s1 = tn_schedule_succs(s, 1, &b);
        TN_CHECK(ctx, a == 4 && s0[0] == 2 && s0[1] == 3 && s0[2] == 4 && s0[3] == 5);
        TN_CHECK(ctx, b == 3 && s1[0] == 2 && s1[1] == 3 && s1[2] == 4);
        TN_CHECK(ctx, tn_schedule_deps(s, 0, &a) != NULL && a == 0);
        if (round == 0) /* a sixth transfer on 5 rebuilds the list from the shared rows */
        {
            const uint32_t on5 = 5;
            TN_REQUIRE(ctx, tn_schedule_add(s, &sp, &on5, 1, NULL, &err) == TN_OK);
        }
    }
    uint32_t n6;
    const uint32_t* d6 = tn_schedule_deps(s, 6, &n6);
    TN_CHECK(ctx, n6 == 1 && d6[0] == 5);
    TN_CHECK(ctx, tn_schedule_topo_order(s)[6] == 6);
    tn_schedule_destroy(s);
}

/* n transfers, 2..n-1 each on two earlier ones: {0, 1} for all (shared) or {i-2, i-1} */
static tn_schedule*
two_dep_schedule(tn_test_ctx* ctx, uint32_t n, bool shared)
{
    tn_schedule* s = NULL;
    tn_error err;
    if (tn_schedule_create(TN_COLL_ALL_TO_ALL, 4, 8, 0, 1, &s, &err) != TN_OK)
    {
        return NULL;
    }
    tn_transfer_spec sp = {0, 1, 0, 8, 2, TN_OP_COPY, 0, -1, 0};
    for (uint32_t t = 0; t < n; t++)
    {
        sp.src = t % 4;
        sp.dst = (t + 1) % 4;
        const uint32_t deps[2] = {shared ? 0 : t - 2, shared ? 1 : t - 1};
        TN_CHECK(ctx, tn_schedule_add(s, &sp, deps, t >= 2 ? 2 : 0, NULL, &err) == TN_OK);
    }
    return s;
}

static void
test_held_bytes(tn_test_ctx* ctx)
{
    const uint32_t n = 10;
    tn_schedule* shared = two_dep_schedule(ctx, n, true);
    tn_schedule* chain = two_dep_schedule(ctx, n, false);
    TN_REQUIRE(ctx, shared && chain);
    const uint64_t added = tn_schedule_held_bytes(shared);
    TN_CHECK(ctx, added == tn_schedule_held_bytes(chain)); /* as many transfers and deps */
    TN_CHECK(ctx, added >= n * sizeof(tn_transfer) + 2 * (n - 2) * 2 * sizeof(uint32_t));
    tn_error err;
    TN_REQUIRE(ctx, tn_schedule_finalize(shared, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_schedule_finalize(chain, &err) == TN_OK);
    /* ids kept: chain 2(n-2) deps + 2(n-2) succs, all rows distinct; shared the dep row {0, 1}
     * once and the succ row {2 .. n-1} of 0 and 1 once */
    const uint64_t chainIds = 4 * (n - 2);
    const uint64_t sharedIds = 2 + (n - 2);
    TN_CHECK(ctx,
             tn_schedule_held_bytes(chain) - tn_schedule_held_bytes(shared) ==
                 (chainIds - sharedIds) * sizeof(uint32_t));
    tn_schedule_destroy(shared);
    tn_schedule_destroy(chain);
}

static void
test_collective_names(tn_test_ctx* ctx)
{
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        tn_collective back;
        tn_error err;
        TN_CHECK_EQ(ctx,
                    tn_collective_parse(tn_collective_name((tn_collective)c), &back, &err),
                    TN_OK);
        TN_CHECK_EQ(ctx, back, c);
    }
    tn_collective x;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_collective_parse("ALLREDUCE", &x, &err), TN_OK);
    TN_CHECK_EQ(ctx, x, TN_COLL_ALL_REDUCE);
    TN_CHECK_EQ(ctx, tn_collective_parse("allsum", &x, &err), TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "allsum") != NULL);
}

void
tn_suite_schedule(tn_test_suite* suite)
{
    tn_test_add(suite, "slicing-rule", test_slicing_rule);
    tn_test_add(suite, "chunk-layout", test_chunk_layout);
    tn_test_add(suite, "builder", test_builder);
    tn_test_add(suite, "shared-rows", test_shared_rows);
    tn_test_add(suite, "held-bytes", test_held_bytes);
    tn_test_add(suite, "collective-names", test_collective_names);
}
