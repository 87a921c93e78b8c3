/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn_array_grow: capacities double from the initial size, a block that is
 * large enough is returned as it is, and impossible sizes fail without
 * touching the caller's block or capacity (no silent wrap-around).
 */
#include "../../model/core/tn-array.h"
#include "tn-test.h"

#include <stdint.h>
#include <stdlib.h>

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

void
tn_suite_array(tn_test_suite* suite)
{
    tn_test_add(suite, "doubles-from-initial", test_doubles_from_initial);
    tn_test_add(suite, "overflow-fails-cleanly", test_overflow_fails_cleanly);
}
