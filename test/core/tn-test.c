/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-test.h"

#include "ns3/tn-topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
tn_test_add(tn_test_suite* suite, const char* name, tn_test_fn fn)
{
    if (suite->count == suite->capacity)
    {
        size_t capacity = suite->capacity ? 2 * suite->capacity : 16;
        struct tn_test_entry* tests = realloc(suite->tests, capacity * sizeof(*tests));
        if (!tests)
        {
            abort(); /* a test harness without memory cannot report anything useful */
        }
        suite->tests = tests;
        suite->capacity = capacity;
    }
    suite->tests[suite->count].name = name;
    suite->tests[suite->count].fn = fn;
    suite->count++;
}

int
tn_test_check(tn_test_ctx* ctx, int cond, const char* file, int line, const char* format, ...)
{
    ctx->checks++;
    if (cond)
    {
        return 1;
    }
    ctx->failures++;
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    char report[1400];
    snprintf(report,
             sizeof(report),
             "%s:%d: %s/%s: %s",
             file,
             line,
             ctx->suite,
             ctx->test,
             message);
    ctx->report(ctx->sink, report);
    return 0;
}

static const char*
join_path(const char* dir, const char* name, char* buf, size_t size)
{
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

const char*
tn_test_data_path(tn_test_ctx* ctx, const char* name, char* buf, size_t size)
{
    return join_path(ctx->data_dir, name, buf, size);
}

const char*
tn_test_temp_path(tn_test_ctx* ctx, const char* name, char* buf, size_t size)
{
    return join_path(ctx->temp_dir, name, buf, size);
}

tn_topology*
tn_test_topology(tn_test_ctx* ctx, const char* spec)
{
    tn_topology* t = NULL;
    tn_error err;
    err.message[0] = 0;
    tn_status st;
    if (spec[0] == '@')
    {
        char path[512];
        tn_test_data_path(ctx, spec + 1, path, sizeof(path));
        st = tn_topology_load_file(path, &t, &err);
    }
    else
    {
        st = tn_topology_from_spec(spec, &t, &err);
    }
    return tn_test_check(ctx, st == TN_OK, __FILE__, __LINE__, "%s: %s", spec, err.message) ? t
                                                                                            : NULL;
}

#define TN_TEST_SUITE(name) {#name, tn_suite_##name},
static const tn_test_suite_ref g_suites[] = {
#include "tn-test-list.h"
};
#undef TN_TEST_SUITE

const tn_test_suite_ref*
tn_test_suites(size_t* count)
{
    *count = sizeof(g_suites) / sizeof(g_suites[0]);
    return g_suites;
}

int
tn_test_run_suite(const char* suite_name,
                  const char* test_name,
                  const char* data_dir,
                  const char* temp_dir,
                  void (*report)(void* sink, const char* line),
                  void* sink)
{
    size_t count = 0;
    const tn_test_suite_ref* refs = tn_test_suites(&count);
    for (size_t i = 0; i < count; i++)
    {
        if (strcmp(refs[i].name, suite_name) != 0)
        {
            continue;
        }
        tn_test_suite suite = {refs[i].name, 0, 0, NULL};
        refs[i].fill(&suite);
        int failed = 0;
        int ran = 0;
        for (size_t t = 0; t < suite.count; t++)
        {
            if (test_name && strcmp(test_name, suite.tests[t].name) != 0)
            {
                continue;
            }
            tn_test_ctx ctx =
                {suite.name, suite.tests[t].name, data_dir, temp_dir, 0, 0, report, sink};
            suite.tests[t].fn(&ctx);
            if (ctx.checks == 0)
            {
                /* a test that asserts nothing cannot fail: refuse it */
                tn_test_check(&ctx, 0, __FILE__, __LINE__, "test made no checks");
            }
            failed += ctx.failures > 0;
            ran++;
        }
        free(suite.tests);
        return ran ? failed : -1;
    }
    return -1;
}
