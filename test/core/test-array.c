/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn_array_grow: capacities double from the initial size, a block that is
 * large enough is returned as it is, and impossible sizes fail without
 * touching the caller's block or capacity (no silent wrap-around). The id list
 * keeps order through push, append and copy; the size arithmetic saturates.
 */
#include "../../model/core/tn-array.h"
#include "tn-test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void
test_doubles_from_initial(tn_test_ctx* ctx)
{
    uint32_t* items = NULL;
    size_t cap = 0;
    items = tn_array_grow(items, &cap, 1, sizeof(*items), 16);
    TN_REQUIRE(ctx, items != NULL);
    TN_CHECK_EQ(ctx, cap, 16);
    uint32_t* same = tn_array_grow(items, &cap, 16, sizeof(*items), 16);
    TN_CHECK(ctx, same == items);
    TN_CHECK_EQ(ctx, cap, 16);
    items = tn_array_grow(items, &cap, 17, sizeof(*items), 16);
    TN_REQUIRE(ctx, items != NULL);
    TN_CHECK_EQ(ctx, cap, 32);
    items = tn_array_grow(items, &cap, 1000, sizeof(*items), 16);
    TN_REQUIRE(ctx, items != NULL);
    TN_CHECK_EQ(ctx, cap, 1024);
    for (uint32_t i = 0; i < 1000; i++)
    {
        items[i] = i; /* the whole capacity asked for is writable (ASan checks it) */
    }
    TN_CHECK_EQ(ctx, items[999], 999);
    free(items);
}

static void
test_overflow_fails_cleanly(tn_test_ctx* ctx)
{
    uint64_t* items = NULL;
    size_t cap = 0;
    items = tn_array_grow(items, &cap, 4, sizeof(*items), 4);
    TN_REQUIRE(ctx, items != NULL);
    items[0] = 42;
    /* more elements than size_t bytes can hold: must fail, not wrap */
    uint64_t* grown = tn_array_grow(items, &cap, SIZE_MAX / 4, sizeof(*items), 4);
    TN_CHECK(ctx, grown == NULL);
    TN_CHECK_EQ(ctx, cap, 4);
    TN_CHECK_EQ(ctx, items[0], 42);
    /* past half of SIZE_MAX elements, doubling the capacity would wrap a size_t */
    grown = tn_array_grow(items, &cap, SIZE_MAX / 2 + 2, 2, 4);
    TN_CHECK(ctx, grown == NULL);
    TN_CHECK_EQ(ctx, cap, 4);
    free(items);
}

/* the one growable id list: push, append and copy keep order; copy replaces */
static void
test_id_list(tn_test_ctx* ctx)
{
    tn_ids a = {0}, b = {0};
    for (uint32_t i = 0; i < 100; i++)
    {
        TN_REQUIRE(ctx, tn_ids_push(&a, 3 * i, NULL) == TN_OK);
    }
    TN_CHECK_EQ(ctx, a.n, 100);
    TN_CHECK(ctx, a.cap >= 100);
    TN_CHECK_EQ(ctx, a.ids[99], 297);
    TN_REQUIRE(ctx, tn_ids_push(&b, 7, NULL) == TN_OK);
    TN_REQUIRE(ctx, tn_ids_append(&b, &a, NULL) == TN_OK);
    TN_CHECK_EQ(ctx, b.n, 101);
    TN_CHECK_EQ(ctx, b.ids[0], 7);
    TN_CHECK_EQ(ctx, b.ids[1], 0);
    TN_CHECK_EQ(ctx, b.ids[100], 297);
    tn_ids empty = {0}, c = {0};
    TN_CHECK_EQ(ctx, tn_ids_append(&c, &empty, NULL), TN_OK); /* nothing into nothing */
    TN_CHECK_EQ(ctx, c.n, 0);
    TN_REQUIRE(ctx, tn_ids_copy(&b, &a, NULL) == TN_OK);
    TN_CHECK_EQ(ctx, b.n, 100);
    TN_CHECK_EQ(ctx, b.ids[0], 0);
    TN_CHECK_EQ(ctx, b.ids[50], 150);
    tn_ids_free(&a);
    TN_CHECK(ctx, a.ids == NULL && a.n == 0 && a.cap == 0);
    tn_ids_free(&b);
}

/* estimates saturate instead of wrapping to a small number a memory limit would accept */
static void
test_saturating(tn_test_ctx* ctx)
{
    TN_CHECK_EQ(ctx, tn_sat_mul(UINT64_C(1) << 32, UINT64_C(1) << 31), UINT64_C(1) << 63);
    TN_CHECK_EQ(ctx, tn_sat_mul(UINT64_C(1) << 32, UINT64_C(1) << 32), UINT64_MAX);
    TN_CHECK_EQ(ctx, tn_sat_mul(0, UINT64_MAX), 0);
    TN_CHECK_EQ(ctx, tn_sat_add(UINT64_MAX - 1, 1), UINT64_MAX);
    TN_CHECK_EQ(ctx, tn_sat_add(UINT64_MAX - 1, 2), UINT64_MAX);
    TN_CHECK_EQ(ctx, tn_sat_add(40, 2), 42);
}

/* The arena's blocks are aligned, keep their bytes while later ones come (no chunk moves),
 * a block larger than a chunk gets its own, and free leaves it empty and reusable. */
static void
test_arena(tn_test_ctx* ctx)
{
    tn_arena a = {0};
    unsigned char* blocks[3000];
    size_t sizes[3000];
    for (size_t i = 0; i < 3000; i++)
    {
        sizes[i] = i == 1500 ? 3 * TN_ARENA_CHUNK : 1 + i % 37;
        blocks[i] = tn_arena_alloc(&a, sizes[i]);
        TN_REQUIRE(ctx, blocks[i] != NULL);
        TN_CHECK_EQ(ctx, (uintptr_t)blocks[i] % TN_ARENA_ALIGN, 0u);
        memset(blocks[i], (int)(i % 251), sizes[i]);
    }
    size_t wrong = 0;
    for (size_t i = 0; i < 3000; i++)
    {
        for (size_t k = 0; k < sizes[i]; k++)
        {
            wrong += blocks[i][k] != (unsigned char)(i % 251);
        }
    }
    TN_CHECK_EQ(ctx, wrong, 0u);
    const uint32_t ids[] = {7, 8, 9};
    const uint32_t* copy = tn_arena_copy(&a, ids, sizeof(ids));
    TN_REQUIRE(ctx, copy != NULL);
    TN_CHECK(ctx, copy != ids && memcmp(copy, ids, sizeof(ids)) == 0);
    tn_arena_free(&a);
    TN_CHECK(ctx, a.chunks == NULL && a.used == 0 && a.cap == 0);
    TN_CHECK(ctx, tn_arena_alloc(&a, 16) != NULL);
    tn_arena_free(&a);
}

void
tn_suite_array(tn_test_suite* suite)
{
    tn_test_add(suite, "doubles-from-initial", test_doubles_from_initial);
    tn_test_add(suite, "overflow-fails-cleanly", test_overflow_fails_cleanly);
    tn_test_add(suite, "id-list", test_id_list);
    tn_test_add(suite, "saturating", test_saturating);
    tn_test_add(suite, "arena", test_arena);
}
