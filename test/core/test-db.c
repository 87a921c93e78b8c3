/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The results database: runs are recorded, survive reopening, and bad input
 * is refused with a message that names the file.
 */
#include "tn-test.h"

#include "ns3/tn-db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static void
fresh_path(tn_test_ctx* ctx, const char* name, char* buf, size_t size)
{
    tn_test_temp_path(ctx, name, buf, size);
    remove(buf);
    char side[600];
    snprintf(side, sizeof(side), "%s-wal", buf);
    remove(side);
    snprintf(side, sizeof(side), "%s-shm", buf);
    remove(side);
}

static long long
query_int(sqlite3* sql, const char* query)
{
    sqlite3_stmt* stmt = NULL;
    long long value = -1;
    if (sqlite3_prepare_v2(sql, query, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
        value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

static void
test_runs_are_recorded(tn_test_ctx* ctx)
{
    char path[512];
    fresh_path(ctx, "tn-test-runs.db", path, sizeof(path));
    tn_error err = {0};
    tn_db* db = NULL;
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    tn_run_info info = {"unit", "{\"n\":4}", 7, 2, "3.37", "0.1.0"};
    int64_t first = 0, second = 0;
    TN_CHECK(ctx, tn_db_run_begin(db, &info, &first, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_begin(db, &info, &second, &err) == TN_OK);
    TN_CHECK_EQ(ctx, second, first + 1);
    TN_CHECK(ctx, tn_db_run_finish(db, first, "ok", 1.5, 123456789012ULL, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, first + 100, "ok", 0, 0, &err) == TN_EINVAL);
    TN_CHECK(ctx, strstr(err.message, "no run") != NULL);
    TN_CHECK(ctx, tn_db_run_finish(db, second, "bogus", 0, 0, &err) == TN_EDB);
    tn_db_close(db);

    /* reopen: the rows are there, 64-bit simulated time intact */
    TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, query_int(sql, "SELECT count(*) FROM run"), 2);
    TN_CHECK_EQ(ctx,
                query_int(sql, "SELECT simulated_ns FROM run WHERE status='ok'"),
                123456789012LL);
    TN_CHECK_EQ(ctx, query_int(sql, "SELECT count(*) FROM run WHERE status='running'"), 1);
    TN_CHECK_EQ(ctx, query_int(sql, "SELECT version FROM schema_version"), TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(ctx, query_int(sql, "SELECT count(*) FROM schema_version"), 1);
    tn_db_close(db);
}

static void
test_newer_schema_refused(tn_test_ctx* ctx)
{
    char path[512];
    fresh_path(ctx, "tn-test-newer.db", path, sizeof(path));
    tn_error err = {0};
    tn_db* db = NULL;
    TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
    sqlite3_exec(tn_db_handle(db), "UPDATE schema_version SET version = 999", NULL, NULL, NULL);
    tn_db_close(db);
    TN_CHECK(ctx, tn_db_open(path, &db, &err) == TN_EDB);
    TN_CHECK(ctx, db == NULL);
    TN_CHECK(ctx, strstr(err.message, path) != NULL && strstr(err.message, "999") != NULL);
}

static void
test_unwritable_path(tn_test_ctx* ctx)
{
    tn_error err = {0};
    tn_db* db = NULL;
    TN_CHECK(ctx, tn_db_open("/nonexistent-dir/x.db", &db, &err) == TN_EDB);
    TN_CHECK(ctx, strstr(err.message, "/nonexistent-dir/x.db") != NULL);
}

void
tn_suite_db(tn_test_suite* suite)
{
    tn_test_add(suite, "runs-are-recorded", test_runs_are_recorded);
    tn_test_add(suite, "newer-schema-refused", test_newer_schema_refused);
    tn_test_add(suite, "unwritable-path", test_unwritable_path);
}
