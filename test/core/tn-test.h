/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-test: the unit-test harness of the C core.
 *
 * A test is a function `void test_x(tn_test_ctx *ctx)` that checks with the
 * TN_CHECK* macros; a failed check records file:line and a message and the
 * test goes on (like NS_TEST_EXPECT_*); TN_REQUIRE* return from the test.
 * Each test file defines one suite function listing its tests:
 *
 *     void tn_suite_topology(tn_test_suite *suite)
 *     {
 *         tn_test_add(suite, "ring", test_ring);
 *     }
 *
 * and tn-test-list.h names the suite once (TN_TEST_SUITE(topology)). The same
 * suites run from the standalone runner (tn-core-tests, one ctest per suite)
 * and inside ns-3's test-runner (suite "training-net-core", one TestCase per
 * C suite), so the C tests run in-tree too.
 */
#ifndef TN_TEST_H
#define TN_TEST_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    typedef struct tn_test_ctx tn_test_ctx;
    typedef void (*tn_test_fn)(tn_test_ctx* ctx);

    /** The collected tests of one suite (filled by its suite function). */
    typedef struct tn_test_suite
    {
        const char* name;
        size_t count;
        size_t capacity;

        struct tn_test_entry
        {
            const char* name;
            tn_test_fn fn;
        } * tests;
    } tn_test_suite;

    /** State of one running test. */
    struct tn_test_ctx
    {
        const char* suite;
        const char* test;
        const char* data_dir; /**< test/data of the source tree */
        const char* temp_dir; /**< a writable folder for scratch files */
        unsigned checks;
        unsigned failures;
        /** Where failure lines go (stderr standalone, a buffer under ns-3). */
        void (*report)(void* sink, const char* line);
        void* sink;
    };

    void tn_test_add(tn_test_suite* suite, const char* name, tn_test_fn fn);

    /** Record the outcome of one check; returns cond. */
    int tn_test_check(tn_test_ctx* ctx,
                      int cond,
                      const char* file,
                      int line,
                      const char* format,
                      ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 5, 6)))
#endif
        ;

    /** Path of a file in test/data (static buffer per ctx is not used: caller's buffer). */
    const char* tn_test_data_path(tn_test_ctx* ctx, const char* name, char* buf, size_t size);

    /**
     * A topology from a spec (tn_topology_from_spec), or from the file of test/data named
     * after an '@' ("@hpcc-topology.txt"); NULL, with a failed check naming the error, if it
     * cannot be made. The caller destroys it.
     */
    struct tn_topology* tn_test_topology(tn_test_ctx* ctx, const char* spec);
    /** Path of a scratch file in the temp folder. */
    const char* tn_test_temp_path(tn_test_ctx* ctx, const char* name, char* buf, size_t size);

/** Declare every suite function listed in tn-test-list.h. */
#define TN_TEST_SUITE(name) void tn_suite_##name(tn_test_suite* suite);
#include "tn-test-list.h"
#undef TN_TEST_SUITE

    /** One registered C suite: its name and the function that fills it. */
    typedef struct tn_test_suite_ref
    {
        const char* name;
        void (*fill)(tn_test_suite* suite);
    } tn_test_suite_ref;

    /** The suites of tn-test-list.h; count in *count. */
    const tn_test_suite_ref* tn_test_suites(size_t* count);

    /**
     * Run every test of the named suite (test == NULL) or one test; returns the
     * number of failed tests, or -1 when the suite or test does not exist.
     */
    int tn_test_run_suite(const char* suite,
                          const char* test,
                          const char* data_dir,
                          const char* temp_dir,
                          void (*report)(void* sink, const char* line),
                          void* sink);

#define TN_CHECK(ctx, cond)                                                                        \
    tn_test_check((ctx), (cond) ? 1 : 0, __FILE__, __LINE__, "check failed: %s", #cond)

#define TN_CHECK_MSG(ctx, cond, ...)                                                               \
    tn_test_check((ctx), (cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

#define TN_CHECK_EQ(ctx, actual, expected)                                                         \
    do                                                                                             \
    {                                                                                              \
        long long tn_a_ = (long long)(actual);                                                     \
        long long tn_e_ = (long long)(expected);                                                   \
        tn_test_check((ctx),                                                                       \
                      tn_a_ == tn_e_,                                                              \
                      __FILE__,                                                                    \
                      __LINE__,                                                                    \
                      "%s == %lld, expected %s == %lld",                                           \
                      #actual,                                                                     \
                      tn_a_,                                                                       \
                      #expected,                                                                   \
                      tn_e_);                                                                      \
    } while (0)

#define TN_CHECK_NEAR(ctx, actual, expected, tolerance)                                            \
    do                                                                                             \
    {                                                                                              \
        double tn_a_ = (double)(actual);                                                           \
        double tn_e_ = (double)(expected);                                                         \
        double tn_d_ = tn_a_ > tn_e_ ? tn_a_ - tn_e_ : tn_e_ - tn_a_;                              \
        tn_test_check((ctx),                                                                       \
                      tn_d_ <= (double)(tolerance),                                                \
                      __FILE__,                                                                    \
                      __LINE__,                                                                    \
                      "%s == %.9g, expected %.9g within %.3g",                                     \
                      #actual,                                                                     \
                      tn_a_,                                                                       \
                      tn_e_,                                                                       \
                      (double)(tolerance));                                                        \
    } while (0)

/** Like TN_CHECK but ends the test when the condition fails. */
#define TN_REQUIRE(ctx, cond)                                                                      \
    do                                                                                             \
    {                                                                                              \
        if (!TN_CHECK(ctx, cond))                                                                  \
            return;                                                                                \
    } while (0)

#define TN_REQUIRE_MSG(ctx, cond, ...)                                                             \
    do                                                                                             \
    {                                                                                              \
        if (!TN_CHECK_MSG(ctx, cond, __VA_ARGS__))                                                 \
            return;                                                                                \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* TN_TEST_H */
