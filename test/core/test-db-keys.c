/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The keys of the results database's transfer and flow tables (schema 11): the unique indexes
 * are written with the rows, so that while a run writes and after it no two rows share a key
 * and the indexes serve queries (no index is built when the run ends); a second row of a key
 * is left out and fails the run; runs appended to one file keep their keys apart by run_id; a
 * run shared by processes merges a transfer's two rows; a file whose indexes were dropped gets
 * them at the next run's end; a file of schema 10 (inline PRIMARY KEYs) is rebuilt with its
 * rows in their order.
 */
#include "tn-test-db.h"
#include "tn-test.h"

#include "ns3/tn-db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* 1 when query's first column of its first row is the text `expected`. */
static int
query_text_is(sqlite3* sql, const char* query, const char* expected)
{
    sqlite3_stmt* stmt = NULL;
    int same = 0;
    if (sqlite3_prepare_v2(sql, query, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
        same = strcmp((const char*)sqlite3_column_text(stmt, 0), expected) == 0;
    sqlite3_finalize(stmt);
    return same;
}

/* 1 when table has the unique index `name` on exactly `columns` (comma-separated), else 0. */
static int
has_unique_key(sqlite3* sql, const char* table, const char* name, const char* columns)
{
    char query[256];
    snprintf(query,
             sizeof(query),
             "SELECT count(*) FROM pragma_index_list('%s') WHERE name = '%s' AND \"unique\" = 1",
             table,
             name);
    if (tn_test_db_query_int(sql, query) != 1)
        return 0;
    snprintf(query,
             sizeof(query),
             "SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info('%s')"
             " ORDER BY seqno)",
             name);
    return query_text_is(sql, query, columns);
}

/* 1 when SQLite's plan for query searches with index `name`. */
static int
plan_uses(sqlite3* sql, const char* query, const char* name)
{
    char explain[512];
    snprintf(explain, sizeof(explain), "EXPLAIN QUERY PLAN %s", query);
    sqlite3_stmt* stmt = NULL;
    int uses = 0;
    if (sqlite3_prepare_v2(sql, explain, -1, &stmt, NULL) == SQLITE_OK)
    {
        while (sqlite3_step(stmt) == SQLITE_ROW)
        {
            const char* detail = (const char*)sqlite3_column_text(stmt, 3);
            uses |= detail && strstr(detail, "USING INDEX") && strstr(detail, name);
        }
    }
    sqlite3_finalize(stmt);
    return uses;
}

static int
keys_present(sqlite3* sql)
{
    return has_unique_key(sql, "transfer", "transfer_key", "run_id,collective_id,transfer_id") &&
           has_unique_key(sql, "flow", "flow_key", "run_id,src_node,message_id");
}

/* No two rows of transfer, nor of flow, share a key (counted, not trusted to the index). */
static long long
duplicate_keys(sqlite3* sql)
{
    return tn_test_db_query_int(
        sql,
        "SELECT (SELECT count(*) FROM (SELECT 1 FROM transfer"
        "  GROUP BY run_id, collective_id, transfer_id HAVING count(*) > 1))"
        " + (SELECT count(*) FROM (SELECT 1 FROM flow"
        "  GROUP BY run_id, src_node, message_id HAVING count(*) > 1))");
}

/* `n` transfers of collective 1 and n flows of node 3, the i-th with key (i * stride) % n
 * (stride prime to n: every key once): stride 1 is key order, a large stride spreads a batch's
 * keys over the whole range. */
static void
add_strided_rows(tn_test_ctx* ctx, tn_db* db, int64_t run, int n, int stride)
{
    tn_error err = {0};
    for (int i = 0; i < n; ++i)
    {
        const int id = (int)(((long long)i * stride) % n);
        tn_db_transfer t = {1, id, 0, id, 0, 0, 1, 0, 1, 64, 0, 0, 10, 20, 30, 40 + i, 0};
        tn_db_flow f = {3, (uint64_t)id, 4, 1, 3, 1, 0, 64, 10, 50 + i, 0, 0, 1};
        TN_CHECK(ctx, tn_db_add_transfer(db, run, &t, &err) == TN_OK);
        TN_CHECK(ctx, tn_db_add_flow(db, run, &f, &err) == TN_OK);
    }
}

/* `n` transfers of collective 1 and n flows of node 3, added in an order random in the keys
 * (n prime to 7). */
static void
add_rows(tn_test_ctx* ctx, tn_db* db, int64_t run, int n)
{
    add_strided_rows(ctx, db, run, n, 7);
}

/* Batches of 4 rows: the indexes stay while the rows are written (a query of the run's first
 * batches uses them) and after; a second and a third run of the same keys stay apart by
 * run_id; the rows follow their batches, and within a batch their keys. */
static void
test_keys_after_runs(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-keys.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK(ctx, keys_present(sql)); /* a new file has them */
    tn_db_set_batch_rows(db, 4);
    tn_run_info info = {"keys", "{}", 1, 1, "3.37", "x"};
    for (int k = 0; k < 3; ++k)
    {
        int64_t run = -1;
        TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
        add_rows(ctx, db, run, 10);
        TN_REQUIRE(ctx, tn_db_flush(db, &err) == TN_OK);
        sql = tn_db_handle(db);
        TN_CHECK_MSG(ctx, keys_present(sql), "run %d: key indexes while it writes", k);
        TN_CHECK(ctx, plan_uses(sql, "SELECT * FROM flow WHERE run_id = 1", "flow_key"));
        TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
        TN_CHECK_MSG(ctx,
                     tn_db_run_finish(db, run, "ok", 0.1, 100, &err) == TN_OK,
                     "finish: %s",
                     err.message);
        sql = tn_db_handle(db);
        TN_CHECK_MSG(ctx, keys_present(sql), "run %d: key indexes after the run", k);
    }
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 30);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM flow"), 30);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(DISTINCT run_id) FROM transfer"), 3);
    TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    /* ids added (i * 7) % 10: 0 7 4 1 8 5 2 9 6 3, a batch of 4 rows holding two of each
     * table: each pair in key order, the pairs in the order added */
    for (int64_t run = 1; run <= 3; ++run)
    {
        char query[160];
        snprintf(query,
                 sizeof(query),
                 "SELECT group_concat(transfer_id, ' ') FROM (SELECT transfer_id FROM transfer"
                 " WHERE run_id = %lld ORDER BY rowid)",
                 (long long)run);
        TN_CHECK_MSG(ctx,
                     query_text_is(sql, query, "0 7 1 4 5 8 2 9 3 6"),
                     "run %lld: transfer rows in batch and key order",
                     (long long)run);
        snprintf(query,
                 sizeof(query),
                 "SELECT group_concat(message_id, ' ') FROM (SELECT message_id FROM flow"
                 " WHERE run_id = %lld ORDER BY rowid)",
                 (long long)run);
        TN_CHECK_MSG(ctx,
                     query_text_is(sql, query, "0 7 1 4 5 8 2 9 3 6"),
                     "run %lld: flow rows in batch and key order",
                     (long long)run);
    }
    /* the key index serves a run's transfers */
    TN_CHECK(ctx,
             plan_uses(sql,
                       "SELECT * FROM transfer WHERE run_id = 2 AND collective_id = 1",
                       "transfer_key"));
    TN_CHECK(ctx, plan_uses(sql, "SELECT * FROM flow WHERE run_id = 2", "flow_key"));
    tn_db_close(db);
}

/* Two rows of one key (no recorder writes them), the second in a later batch: the run ends
 * 'error' naming the table and the count, the first row of the key is kept, the index
 * stays. */
static void
test_duplicate_key_found(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-keys-dup.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"dup", "{}", 1, 1, "3.37", "x"};
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_set_batch_rows(db, 4);
    add_rows(ctx, db, run, 5);
    tn_db_transfer again = {1, 2, 0, 2, 0, 0, 1, 0, 1, 64, 0, 0, 11, 21, 31, 999, 0};
    TN_CHECK(ctx, tn_db_add_transfer(db, run, &again, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_transfer(db, run, &again, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_db_run_finish(db, run, "ok", 0.1, 100, &err), TN_EDB);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "table transfer had 2 rows of a key") != NULL,
                 "message: %s",
                 err.message);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'error'"),
                1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM transfer WHERE ready_ns = 999"),
                0);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 5);
    TN_CHECK(ctx, keys_present(sql));
    TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    /* the next run of the file is not held back by it */
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    add_rows(ctx, db, run, 5);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 0.1, 100, &err) == TN_OK);
    tn_db_close(db);
}

/* A file whose key indexes were dropped (a run of an earlier version dropped them while it
 * wrote and was killed) gets them when the next run finishes, the rows of both runs kept. */
static void
test_dropped_keys_built(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-keys-dropped.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"dropped", "{}", 1, 1, "3.37", "x"};
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    add_rows(ctx, db, run, 5);
    TN_REQUIRE(ctx, tn_db_flush(db, &err) == TN_OK);
    sqlite3* sql = tn_db_handle(db);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            "DROP INDEX IF EXISTS transfer_key; DROP INDEX IF EXISTS flow_key;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    tn_db_close(db);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    TN_CHECK_EQ(ctx, keys_present(tn_db_handle(db)), 0);
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    add_rows(ctx, db, run, 5);
    TN_CHECK_MSG(ctx,
                 tn_db_run_finish(db, run, "ok", 0.1, 100, &err) == TN_OK,
                 "finish: %s",
                 err.message);
    sql = tn_db_handle(db);
    TN_CHECK(ctx, keys_present(sql));
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 10);
    TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    tn_db_close(db);
}

/* A run shared by processes keeps the indexes while it writes and merges a transfer's two
 * rows (the sender's issue time, the receiver's arrival), here from two tn_db of one file. */
static void
test_shared_run_merges(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* first = tn_test_db_open_fresh(ctx, "tn-test-keys-shared.db", path, sizeof(path));
    TN_REQUIRE(ctx, first != NULL);
    tn_db* second = NULL;
    TN_REQUIRE(ctx, tn_db_open(path, &second, &err) == TN_OK);
    tn_db_set_shared_keys(first, 1);
    tn_db_set_shared_keys(second, 1);
    tn_db_set_batch_rows(first, 1);
    tn_run_info info = {"shared", "{}", 1, 1, "3.37", "x"};
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(first, &info, &run, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_join(second, &err) == TN_OK);
    tn_db_transfer sent = {1, 0, 0, 0, 0, 0, 1, 0, 1, 64, 0, 0, 10, -1, -1, -1, 0};
    tn_db_transfer received = {1, 0, 0, 0, 0, 0, 1, 0, 1, 64, 0, 0, -1, 20, 30, 40, 0};
    TN_CHECK(ctx, tn_db_add_transfer(first, run, &sent, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_flush(first, &err) == TN_OK);
    TN_CHECK(ctx, keys_present(tn_db_handle(first))); /* kept while it writes */
    TN_CHECK_MSG(ctx,
                 tn_db_add_transfer(second, run, &received, &err) == TN_OK &&
                     tn_db_flush(second, &err) == TN_OK,
                 "second: %s",
                 err.message);
    TN_CHECK(ctx, tn_db_run_finish(first, run, "ok", 0.1, 100, &err) == TN_OK);
    sqlite3* sql = tn_db_handle(first);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 1);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM transfer WHERE issue_ns = 10 AND first_byte_ns"
                             " = 20 AND last_byte_ns = 30 AND ready_ns = 40"),
        1);
    tn_db_close(second);
    tn_db_close(first);
}

/* A file of schema 10 (transfer and flow keyed by inline PRIMARY KEYs) is rebuilt: its rows
 * kept in their order, the PRIMARY KEY clauses gone, the key indexes built, the views
 * answering. */
static void
test_schema_10_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-keys-v10.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE_MSG(
        ctx,
        sqlite3_exec(sql,
                     "PRAGMA legacy_alter_table=ON;"
                     "DROP INDEX transfer_key; DROP INDEX flow_key;"
                     "CREATE TABLE t10 (run_id INTEGER NOT NULL REFERENCES run(run_id),"
                     " collective_id INTEGER NOT NULL, transfer_id INTEGER NOT NULL,"
                     " chunk INTEGER NOT NULL, step INTEGER NOT NULL, dim INTEGER NOT NULL,"
                     " src_rank INTEGER NOT NULL, dst_rank INTEGER NOT NULL,"
                     " src_node INTEGER NOT NULL, dst_node INTEGER NOT NULL,"
                     " bytes INTEGER NOT NULL, reduce INTEGER NOT NULL, lane INTEGER NOT NULL,"
                     " issue_ns INTEGER, first_byte_ns INTEGER, last_byte_ns INTEGER,"
                     " ready_ns INTEGER, job_id INTEGER,"
                     " PRIMARY KEY (run_id, collective_id, transfer_id));"
                     "DROP TABLE transfer; ALTER TABLE t10 RENAME TO transfer;"
                     "CREATE TABLE f10 (run_id INTEGER NOT NULL REFERENCES run(run_id),"
                     " src_node INTEGER NOT NULL, message_id INTEGER NOT NULL,"
                     " dst_node INTEGER NOT NULL, qpn INTEGER NOT NULL,"
                     " priority INTEGER NOT NULL, udp_sport INTEGER NOT NULL,"
                     " lane INTEGER NOT NULL, bytes INTEGER NOT NULL,"
                     " start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,"
                     " fct_ns INTEGER NOT NULL, ideal_fct_ns INTEGER, slowdown REAL,"
                     " retx_bytes INTEGER NOT NULL, collective_id INTEGER,"
                     " PRIMARY KEY (run_id, src_node, message_id));"
                     "DROP TABLE flow; ALTER TABLE f10 RENAME TO flow;"
                     "INSERT INTO run (name, params_json, seed, run_number, started_at, status)"
                     " VALUES ('old', '{}', 1, 1, 'x', 'ok');"
                     "INSERT INTO transfer VALUES (1,1,5,0,5,0,0,1,0,1,64,0,0,1,2,3,4,NULL),"
                     " (1,1,2,0,2,0,0,1,0,1,64,0,0,1,2,3,5,NULL),"
                     " (1,1,9,0,9,0,0,1,0,1,64,0,0,1,2,3,6,NULL);"
                     "INSERT INTO flow VALUES (1,3,7,4,1,3,1,0,64,0,10,10,5,2.0,0,1),"
                     " (1,3,1,4,1,3,1,0,64,0,20,20,NULL,NULL,0,1);"
                     "UPDATE schema_version SET version = 10;",
                     NULL,
                     NULL,
                     NULL) == SQLITE_OK,
        "making a schema-10 file: %s",
        sqlite3_errmsg(sql));
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT version FROM schema_version"), 11);
    TN_CHECK_EQ(ctx, TN_DB_SCHEMA_VERSION, 11);
    TN_CHECK(ctx, keys_present(sql));
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM sqlite_master WHERE name IN ('transfer','flow')"
                             " AND sql NOT LIKE '%PRIMARY KEY%'"),
        2);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM sqlite_master WHERE name LIKE"
                             " 'sqlite_autoindex_transfer%' OR name LIKE 'sqlite_autoindex_flow%'"),
        0);
    /* the rows in their order (5, 2, 9 and 7, 1) */
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT sum(transfer_id * CASE rowid WHEN 1 THEN 100 WHEN 2 THEN 10"
                             " ELSE 1 END) FROM transfer"),
        529);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT message_id FROM flow WHERE rowid = 1"), 7);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT sum(ready_ns) FROM transfer"), 15);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT flows FROM fct_slowdown_percentiles WHERE run_id = 1"),
        1);
    /* and a new run of the upgraded file */
    tn_run_info info = {"new", "{}", 1, 1, "3.37", "x"};
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    add_rows(ctx, db, run, 3);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 0.1, 100, &err) == TN_OK);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 6);
    TN_CHECK(ctx, keys_present(sql));
    TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    tn_db_close(db);
}

/*
 * A batch of many rows of each raw table is written a statement of several rows at a time
 * (write_rows): every row arrives with its values, the rows of a batch in key order (rowid),
 * and a second row of a key inside such a statement is left out and counted like one alone.
 * 101 transfers (added in reverse key order, the 50th twice), 77 flows: no multiple of a
 * statement's rows, so single rows end each table.
 */
static void
test_rows_many_at_a_time(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-keys-many.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"many", "{}", 1, 1, "3.37", "x"};
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    const uint32_t transfers = 101, flows = 77;
    for (uint32_t i = transfers; i-- > 0;)
    {
        tn_db_transfer t = {3, i, 0, i, 0, 0, 1, 0, 1, 64 + i, 0, 0, 10, 20, 30, 40 + i, 0};
        TN_CHECK(ctx, tn_db_add_transfer(db, run, &t, &err) == TN_OK);
        if (i == 50)
        {
            t.ready_ns = 999; /* the second row of key 50: left out */
            TN_CHECK(ctx, tn_db_add_transfer(db, run, &t, &err) == TN_OK);
        }
    }
    for (uint32_t i = 0; i < flows; ++i)
    {
        tn_db_flow f = {i % 7, i, 1, 1, 3, 4791, 0, 1000 + i, 5, 50 + i, 0, 0, 3};
        TN_CHECK(ctx, tn_db_add_flow(db, run, &f, &err) == TN_OK);
    }
    TN_CHECK_EQ(ctx, tn_db_run_finish(db, run, "ok", 0.1, 100, &err), TN_EDB);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "table transfer had 1 rows of a key") != NULL,
                 "message: %s",
                 err.message);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), transfers);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM transfer WHERE ready_ns = 999"),
                0);
    /* bytes 64 + i and ready 40 + i: sums of 0..100 */
    const int64_t sum = (int64_t)transfers * (transfers - 1) / 2;
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT sum(bytes) + sum(ready_ns) FROM transfer"),
                (64 + 40) * (int64_t)transfers + 2 * sum);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM transfer WHERE step != transfer_id"
                                     " OR bytes != 64 + transfer_id"),
                0);
    /* rowids in key order within the batch */
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM transfer a JOIN transfer b ON"
                                     " a.rowid < b.rowid WHERE a.transfer_id > b.transfer_id"),
                0);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM flow"), flows);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM flow WHERE bytes != 1000 + message_id"
                                     " OR end_ns != 50 + message_id OR src_node != message_id % 7"),
                0);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM flow a JOIN flow b ON a.rowid < b.rowid"
                             " WHERE (a.src_node, a.message_id) > (b.src_node, b.message_id)"),
        0);
    TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    tn_db_close(db);
}

/* Keys random in indexes larger than the page cache (8 pages here, 128 MiB in a run): each
 * batch's rows read and write an index page each, so the indexes are dropped while the run
 * writes and built when it finishes; the same rows in key order keep them, and so does a run
 * shared by processes. Every way the file ends with its indexes, every row, and a second row of
 * a key deleted and reported. */
static void
test_random_keys_deferred(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-keys-deferred.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_db_set_batch_rows(db, 128);
    tn_run_info info = {"deferred", "{}", 1, 1, "3.37", "x"};
    const int n = 20000;

    static const struct
    {
        int stride;
        int shared; /* a run shared by processes merges on its keys: it keeps them */
        int keys_while_writing;
    } runs[] = {{1, 0, 1}, {7919, 0, 0}, {7919, 1, 1}};

    for (int k = 0; k < 3; ++k)
    {
        tn_db_set_shared_keys(db, runs[k].shared);
        TN_REQUIRE(ctx,
                   sqlite3_exec(tn_db_handle(db), "PRAGMA cache_size=8", NULL, NULL, NULL) ==
                       SQLITE_OK);
        int64_t run = -1;
        TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
        add_strided_rows(ctx, db, run, n, runs[k].stride);
        TN_REQUIRE(ctx, tn_db_flush(db, &err) == TN_OK);
        TN_CHECK_MSG(ctx,
                     keys_present(tn_db_handle(db)) == runs[k].keys_while_writing,
                     "stride %d: key indexes while the run writes: %d",
                     runs[k].stride,
                     keys_present(tn_db_handle(db)));
        TN_CHECK_MSG(ctx,
                     tn_db_run_finish(db, run, "ok", 0.1, 100, &err) == TN_OK,
                     "finish: %s",
                     err.message);
        sqlite3* sql = tn_db_handle(db);
        TN_CHECK_MSG(ctx, keys_present(sql), "stride %d: key indexes after", runs[k].stride);
        TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    }
    tn_db_set_shared_keys(db, 0);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 3 * n);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM flow"), 3 * n);
    /* a third run, spread again, with a second row of one key: built, it keeps the first */
    TN_REQUIRE(ctx, sqlite3_exec(sql, "PRAGMA cache_size=8", NULL, NULL, NULL) == SQLITE_OK);
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    add_strided_rows(ctx, db, run, n, 7919);
    tn_db_transfer again = {1, 2, 0, 2, 0, 0, 1, 0, 1, 64, 0, 0, 11, 21, 31, 999, 0};
    TN_CHECK(ctx, tn_db_add_transfer(db, run, &again, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_flush(db, &err) == TN_OK);
    TN_CHECK_EQ(ctx, keys_present(tn_db_handle(db)), 0);
    TN_CHECK_EQ(ctx, tn_db_run_finish(db, run, "ok", 0.1, 100, &err), TN_EDB);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "table transfer had 1 rows of a key") != NULL,
                 "message: %s",
                 err.message);
    sql = tn_db_handle(db);
    TN_CHECK(ctx, keys_present(sql));
    TN_CHECK_EQ(ctx, duplicate_keys(sql), 0);
    char query[160];
    snprintf(query,
             sizeof(query),
             "SELECT group_concat(ready_ns) FROM transfer WHERE run_id = %lld AND"
             " transfer_id = 2",
             (long long)run);
    /* the first row of key 2 is the i-th added with (i * 7919) % n == 2: i = 15358 */
    TN_CHECK_MSG(ctx, query_text_is(sql, query, "15398"), "the first row of key 2 is kept");
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM transfer"), 4 * n);
    tn_db_close(db);
}

void
tn_suite_db_keys(tn_test_suite* suite)
{
    tn_test_add(suite, "keys-after-runs", test_keys_after_runs);
    tn_test_add(suite, "duplicate-key-found", test_duplicate_key_found);
    tn_test_add(suite, "dropped-keys-built", test_dropped_keys_built);
    tn_test_add(suite, "shared-run-merges", test_shared_run_merges);
    tn_test_add(suite, "schema-10-upgraded", test_schema_10_upgraded);
    tn_test_add(suite, "rows-many-at-a-time", test_rows_many_at_a_time);
    tn_test_add(suite, "random-keys-deferred", test_random_keys_deferred);
}
