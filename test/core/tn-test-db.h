/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Helpers of the results database's tests (test-db.c, test-db-keys.c, test-db-rows.c): a fresh
 * file at a test's temporary path, without the WAL and shared-memory files a former run left,
 * and one integer or real asked of a connection.
 */
#ifndef TN_TEST_DB_H
#define TN_TEST_DB_H

#include "tn-test.h"

#include "ns3/tn-db.h"

#include <sqlite3.h>
#include <stdio.h>

/* The test's temporary path `name` in buf, the file and its -wal and -shm removed. */
static inline void
tn_test_db_fresh_path(tn_test_ctx* ctx, const char* name, char* buf, size_t size)
{
    tn_test_temp_path(ctx, name, buf, size);
    remove(buf);
    char side[600];
    snprintf(side, sizeof(side), "%s-wal", buf);
    remove(side);
    snprintf(side, sizeof(side), "%s-shm", buf);
    remove(side);
}

/* A new database at the test's temporary path `name` (path receives it); NULL on failure. */
static inline tn_db*
tn_test_db_open_fresh(tn_test_ctx* ctx, const char* name, char* path, size_t size)
{
    tn_test_db_fresh_path(ctx, name, path, size);
    tn_error err = {0};
    tn_db* db = NULL;
    TN_CHECK_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open %s: %s", path, err.message);
    return db;
}

/* The first column of the first row of `query`, or -1 when it gives none. */
static inline long long
tn_test_db_query_int(sqlite3* sql, const char* query)
{
    sqlite3_stmt* stmt = NULL;
    long long value = -1;
    if (sqlite3_prepare_v2(sql, query, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
        value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

/* The first column of the first row of `query` as a double, or -1 when it gives none. */
static inline double
tn_test_db_query_real(sqlite3* sql, const char* query)
{
    sqlite3_stmt* stmt = NULL;
    double value = -1;
    if (sqlite3_prepare_v2(sql, query, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
        value = sqlite3_column_double(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

#endif /* TN_TEST_DB_H */
