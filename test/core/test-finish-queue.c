/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fluid engine's finish queue: entries come out in (time, tag, id) order across batches
 * sealed at different times (sorted, of one time in any order, or at random), with stale
 * entries filtered out.
 */
#include "../../model/core/tn-finish-queue.h"
#include "tn-test.h"

#include <stdlib.h>

enum
{
    FQ_MAX = 4096 /* entries of one instance */
};

static uint64_t
fq_rnd(uint64_t* s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int
fq_cmp(const void* pa, const void* pb)
{
    const tn_finish* a = pa;
    const tn_finish* b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static bool
fq_odd_ver(const tn_finish* e, const void* ctx)
{
    (void)ctx;
    return e->ver % 2 == 1;
}

/* Batches of random size, of the three kinds above, sealed between removals of a random number of
 * entries; every removal is the smallest of what was sealed and not removed (checked against a
 * sorted copy), and after a filter that keeps odd versions, the rest come out in order, only those.
 */
static void
fq_instance(tn_test_ctx* ctx, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
    tn_finish_queue q = {0};
    tn_finish* waiting = malloc(FQ_MAX * sizeof(*waiting)); /* sealed, not removed */
    TN_REQUIRE(ctx, waiting != NULL);
    size_t n = 0;
    uint32_t next_id = 0;
    double now = 0;
    bool filtered = false;
    while (next_id < FQ_MAX / 2 || n > 0)
    {
        if (next_id < FQ_MAX / 2)
        {
            const uint32_t batch = 1 + (uint32_t)(fq_rnd(&s) % 64);
            /* 0: one time, tags ascending; 1: one time, tags in any order over three
             * bytes, some equal (ids then decide); 2: times and tags at random */
            const uint32_t kind = (uint32_t)(fq_rnd(&s) % 3);
            const double at = now + (double)(1 + fq_rnd(&s) % 4);
            for (uint32_t k = 0; k < batch && next_id < FQ_MAX / 2; k++)
            {
                const uint32_t tag = kind == 0   ? k
                                     : kind == 1 ? (uint32_t)(fq_rnd(&s) % 40) * 1777
                                                 : (uint32_t)(fq_rnd(&s) % 16);
                const uint32_t id = kind == 1 && k % 2 ? FQ_MAX - next_id : next_id;
                next_id++;
                tn_finish e = {kind < 2 ? at : now + (double)(fq_rnd(&s) % 8),
                               tag,
                               id,
                               (uint32_t)(fq_rnd(&s) % 4)};
                TN_REQUIRE(ctx, tn_finish_queue_add(&q, e));
                waiting[n++] = e;
            }
            TN_REQUIRE(ctx, tn_finish_queue_seal(&q));
        }
        if (!filtered && next_id >= FQ_MAX / 4)
        {
            tn_finish_queue_filter(&q, fq_odd_ver, NULL);
            size_t kept = 0;
            for (size_t k = 0; k < n; k++)
            {
                if (waiting[k].ver % 2 == 1)
                    waiting[kept++] = waiting[k];
            }
            n = kept;
            filtered = true;
        }
        TN_CHECK_EQ(ctx, q.entries, n);
        qsort(waiting, n, sizeof(*waiting), fq_cmp);
        size_t out = n == 0 ? 0 : 1 + (size_t)(fq_rnd(&s) % (n < 48 ? n : 48));
        for (size_t k = 0; k < out; k++)
        {
            const tn_finish* top = tn_finish_queue_top(&q);
            TN_REQUIRE(ctx, top != NULL);
            TN_CHECK_MSG(ctx,
                         fq_cmp(top, &waiting[k]) == 0,
                         "seed %llu: removed id %u, expected id %u",
                         (unsigned long long)seed,
                         top->id,
                         waiting[k].id);
            now = top->time;
            tn_finish_queue_pop(&q);
        }
        for (size_t k = out; k < n; k++)
            waiting[k - out] = waiting[k];
        n -= out;
    }
    TN_CHECK(ctx, tn_finish_queue_top(&q) == NULL);
    TN_CHECK(ctx, tn_finish_queue_seal(&q)); /* nothing open: nothing happens */
    TN_CHECK(ctx, tn_finish_queue_top(&q) == NULL);
    free(waiting);
    tn_finish_queue_free(&q);
}

static void
test_order(tn_test_ctx* ctx)
{
    for (uint64_t seed = 1; seed <= 40; seed++)
        fq_instance(ctx, seed);
}

void
tn_suite_finish_queue(tn_test_suite* suite)
{
    tn_test_add(suite, "order", test_order);
}
