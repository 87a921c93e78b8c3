/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the test harness and of tn-error: a check that fails must be
 * counted, or every other suite could pass vacuously.
 */
#include "tn-test.h"

#include "ns3/tn-error.h"
#include "ns3/tn-version.h"

#include <stdio.h>
#include <string.h>

static void
collect_line(void* sink, const char* line)
{
    (void)line;
    (*(int*)sink)++;
}

static void
test_failed_check_is_counted(tn_test_ctx* ctx)
{
    int lines = 0;
    tn_test_ctx inner =
        {"inner", "inner", ctx->data_dir, ctx->temp_dir, 0, 0, collect_line, &lines};
    TN_CHECK(&inner, 1 == 1);
    TN_CHECK_EQ(&inner, 2 + 2, 5);
    TN_CHECK_NEAR(&inner, 1.0, 1.5, 0.1);
    TN_CHECK_EQ(ctx, inner.checks, 3);
    TN_CHECK_EQ(ctx, inner.failures, 2);
    TN_CHECK_EQ(ctx, lines, 2);
}

static void
test_error_message(tn_test_ctx* ctx)
{
    tn_error err;
    tn_status status = tn_error_set(&err, TN_EPARSE, "%s:%d: key '%s'", "topo.txt", 12, "rate");
    TN_CHECK_EQ(ctx, status, TN_EPARSE);
    TN_CHECK_EQ(ctx, err.code, TN_EPARSE);
    TN_CHECK(ctx, strcmp(err.message, "topo.txt:12: key 'rate'") == 0);
    TN_CHECK(ctx, strcmp(tn_status_name(TN_OK), "ok") == 0);
    TN_CHECK_EQ(ctx, tn_error_set(NULL, TN_EINVAL, "ignored"), TN_EINVAL);
    /* quoted input with control bytes stays one line: each byte written \xNN */
    tn_error_set(&err, TN_EPARSE, "w.txt:4: '%s': unknown", "ALL\x1dRE\nDUCE\x7f\t");
    TN_CHECK_MSG(ctx,
                 strcmp(err.message, "w.txt:4: 'ALL\\x1dRE\\x0aDUCE\\x7f\\x09': unknown") == 0,
                 "got '%s'",
                 err.message);
    /* a message longer than the buffer: cut, terminated, no control byte and no cut escape */
    char lot[2 * TN_ERROR_MESSAGE_SIZE];
    memset(lot, '\n', sizeof(lot) - 1);
    lot[sizeof(lot) - 1] = '\0';
    tn_error_set(&err, TN_EPARSE, "x%s", lot);
    size_t len = strlen(err.message);
    TN_CHECK(ctx, len < TN_ERROR_MESSAGE_SIZE && len % 4 == 1);
    TN_CHECK(ctx, strncmp(err.message + len - 4, "\\x0a", 4) == 0);
}

static void
test_version_matches_version_file(tn_test_ctx* ctx)
{
    char path[512];
    tn_test_data_path(ctx, "../../VERSION", path, sizeof(path));
    FILE* file = fopen(path, "r");
    TN_REQUIRE_MSG(ctx, file != NULL, "cannot open %s", path);
    char line[64] = "";
    TN_CHECK(ctx, fgets(line, sizeof(line), file) != NULL);
    fclose(file);
    line[strcspn(line, "\r\n")] = 0;
    TN_CHECK_MSG(ctx,
                 strcmp(line, TN_VERSION) == 0,
                 "VERSION says '%s', tn-version.h '%s'",
                 line,
                 TN_VERSION);
}

void
tn_suite_harness(tn_test_suite* suite)
{
    tn_test_add(suite, "failed-check-is-counted", test_failed_check_is_counted);
    tn_test_add(suite, "error-message", test_error_message);
    tn_test_add(suite, "version-matches-version-file", test_version_matches_version_file);
}
