/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The results database: runs and rows are recorded, survive reopening, batches
 * are written in transactions, two processes appending to one file lose no
 * row, a signal ends a run as 'aborted' with its rows, the views answer from
 * the rows, and bad input is refused with a message that names the file.
 * Over 1,000 lines for a reason: one suite per concept (the database file and its writer),
 * its cases sharing the fresh-file and query helpers at the top.
 */
#define _POSIX_C_SOURCE 200809L

#include "tn-test-db.h"
#include "tn-test.h"

#include "ns3/tn-db.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 1 when the query's first column is NULL */
static int
query_null(sqlite3* sql, const char* query)
{
    sqlite3_stmt* stmt = NULL;
    int value = -1;
    if (sqlite3_prepare_v2(sql, query, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
        value = sqlite3_column_type(stmt, 0) == SQLITE_NULL;
    sqlite3_finalize(stmt);
    return value;
}

static int
integrity_ok(const char* path)
{
    sqlite3* sql = NULL;
    int ok = 0;
    if (sqlite3_open_v2(path, &sql, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
    {
        sqlite3_stmt* stmt = NULL;
        if (sqlite3_prepare_v2(sql, "PRAGMA integrity_check", -1, &stmt, NULL) == SQLITE_OK &&
            sqlite3_step(stmt) == SQLITE_ROW)
            ok = strcmp((const char*)sqlite3_column_text(stmt, 0), "ok") == 0;
        sqlite3_finalize(stmt);
    }
    sqlite3_close(sql);
    return ok;
}

static tn_db_port_sample
sample(int64_t t, uint32_t node, uint32_t port, uint64_t tx, double util)
{
    tn_db_port_sample s;
    memset(&s, 0, sizeof(s));
    s.time_ns = t;
    s.interval_ns = 1000;
    s.node = node;
    s.port = port;
    s.tx_bytes = tx;
    s.tx_packets = tx / 1000;
    s.utilisation = util;
    return s;
}

static void
test_runs_are_recorded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-runs.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
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
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM run"), 2);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT simulated_ns FROM run WHERE status='ok'"),
                123456789012LL);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status='running'"),
                1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM schema_version"), 1);
    tn_db_close(db);
    TN_CHECK(ctx, integrity_ok(path));
}

static void
test_schema_has_every_table(tn_test_ctx* ctx)
{
    char path[512];
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-schema.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    sqlite3* sql = tn_db_handle(db);
    static const char* const tables[] = {"schema_version",
                                         "run",
                                         "node",
                                         "link",
                                         "collective",
                                         "transfer",
                                         "flow",
                                         "port_sample",
                                         "pfc_event",
                                         "drop_event",
                                         "iteration",
                                         "layer",
                                         "llm_rank",
                                         "deadlock",
                                         "job",
                                         "job_port",
                                         "cc_sample",
                                         "cc_qp"};
    static const char* const views[] = {"port_summary",
                                        "hottest_ports",
                                        "pause_per_port",
                                        "utilisation_per_dim",
                                        "collective_summary",
                                        "fct_slowdown_percentiles",
                                        "iteration_breakdown",
                                        "communication_per_parallelism",
                                        "job_iteration",
                                        "job_slowdown",
                                        "shared_ports",
                                        "cc_per_control"};
    char q[256];
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); ++i)
    {
        snprintf(q,
                 sizeof(q),
                 "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='%s'",
                 tables[i]);
        TN_CHECK_MSG(ctx, tn_test_db_query_int(sql, q) == 1, "table %s missing", tables[i]);
        if (strcmp(tables[i], "schema_version") != 0)
        {
            /* every row carries run_id */
            snprintf(q,
                     sizeof(q),
                     "SELECT count(*) FROM pragma_table_info('%s') WHERE name='run_id'",
                     tables[i]);
            TN_CHECK_MSG(ctx,
                         tn_test_db_query_int(sql, q) == 1,
                         "table %s has no run_id",
                         tables[i]);
        }
    }
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); ++i)
    {
        snprintf(q, sizeof(q), "SELECT count(*) FROM %s", views[i]);
        TN_CHECK_MSG(ctx, tn_test_db_query_int(sql, q) == 0, "view %s not queryable", views[i]);
    }
    tn_db_close(db);
}

static void
test_schema_1_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_test_db_fresh_path(ctx, "tn-test-v1.db", path, sizeof(path));
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    /* the schema training-net wrote before the results database grew */
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            "CREATE TABLE schema_version (version INTEGER NOT NULL);"
                            "INSERT INTO schema_version VALUES (1);"
                            "CREATE TABLE run (run_id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                            " params_json TEXT NOT NULL, seed INTEGER NOT NULL,"
                            " run_number INTEGER NOT NULL, ns3_version TEXT,"
                            " module_version TEXT, started_at TEXT NOT NULL, finished_at TEXT,"
                            " status TEXT NOT NULL, wall_seconds REAL, simulated_ns INTEGER);"
                            "INSERT INTO run VALUES (1,'old','{}',1,1,NULL,NULL,'t',NULL,"
                            "'ok',NULL,NULL);",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    sqlite3_close(sql);
    tn_error err = {0};
    tn_db* db = NULL;
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE name='old'"), 1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE error IS NULL"), 1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM port_sample"), 0);
    tn_db_close(db);
}

/* Schema 3's collective had no tuner columns: the file is upgraded in place, its rows kept (the
 * new columns NULL), collective_summary shows the new columns, and new rows carry them. */
static void
test_schema_3_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v3.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            "DROP VIEW collective_summary; DROP TABLE collective;"
                            "CREATE TABLE collective ("
                            " run_id INTEGER NOT NULL REFERENCES run(run_id),"
                            " collective_id INTEGER NOT NULL,"
                            " op TEXT NOT NULL, algorithm TEXT NOT NULL, scheduler TEXT,"
                            " bytes INTEGER NOT NULL, participants INTEGER NOT NULL,"
                            " transfers INTEGER NOT NULL, priority INTEGER NOT NULL,"
                            " start_ns INTEGER, end_ns INTEGER, estimated_ns INTEGER,"
                            " algbw_Bps REAL, busbw_Bps REAL,"
                            " PRIMARY KEY (run_id, collective_id));"
                            "INSERT INTO run VALUES (1,'old','{}',1,1,NULL,NULL,'t',NULL,"
                            "'ok',NULL,NULL,NULL);"
                            "INSERT INTO collective VALUES (1,0,'all-reduce','ring',NULL,64,4,"
                            "24,3,0,100,90,1.0,1.5);"
                            "UPDATE schema_version SET version = 3;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM collective_summary WHERE algorithm = 'ring' AND "
                             "duration_ns = 100 AND requested_algorithm IS NULL AND runner_up IS "
                             "NULL"),
        1);
    int64_t run = -1;
    tn_run_info info = {"new", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_collective c = {1, "all-reduce", "ring2d", NULL, 1 << 20, 16,   96,   3, 0, 500, 400, 0,
                          0, NULL,         0,        NULL, 0,       NULL, NULL, 0, 0};
    c.requested_algorithm = "auto";
    c.choice_estimated_ns = 400;
    c.runner_up = "multitree";
    c.runner_up_estimated_ns = 450;
    TN_CHECK(ctx, tn_db_add_collective(db, run, &c, &err) == TN_OK);
    c.collective = 2;
    c.requested_algorithm = "ring";
    c.choice_estimated_ns = 0;
    c.runner_up = NULL;
    c.runner_up_estimated_ns = 450; /* without a runner-up: NULL */
    TN_CHECK(ctx, tn_db_add_collective(db, run, &c, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 0.1, 500, &err) == TN_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(
                    sql,
                    "SELECT count(*) FROM collective WHERE requested_algorithm = 'auto' AND "
                    "algorithm = 'ring2d' AND choice_estimated_ns = 400 AND runner_up = "
                    "'multitree' AND runner_up_estimated_ns = 450"),
                1);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM collective_summary WHERE requested_algorithm = "
                             "'ring' AND runner_up IS NULL AND runner_up_estimated_ns IS NULL"),
        1);
    TN_CHECK(ctx,
             query_null(sql,
                        "SELECT choice_estimated_ns FROM collective WHERE "
                        "collective_id = 2") == 1);
    tn_db_close(db);
}

/* A run its process left 'running' is closed with a status and an error text; a run its
 * process finished is left as it is. */
/* A schema-4 file (no parallelism, no iteration breakdown, no llm_rank) is upgraded in place;
 * the new columns and table then round-trip. */
/* A file of this schema taken back to schema 9's tables (no congestion-control tables). */
#define SCHEMA_9_DOWN "DROP VIEW cc_per_control; DROP TABLE cc_sample; DROP TABLE cc_qp;"

/* A file of this schema taken back to schema 7's tables (no jobs): what the older upgrade tests
 * start from, before taking it further back. */
#define SCHEMA_7_DOWN                                                                              \
    SCHEMA_9_DOWN "DROP VIEW job_slowdown; DROP VIEW job_iteration;"                               \
                  "DROP VIEW shared_ports; DROP TABLE job; DROP TABLE job_port;"                   \
                  "ALTER TABLE collective DROP COLUMN job_id;"                                     \
                  "ALTER TABLE transfer DROP COLUMN job_id;"                                       \
                  "ALTER TABLE iteration DROP COLUMN job_id;"                                      \
                  "ALTER TABLE layer DROP COLUMN job_id;"

static void
test_schema_4_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v4.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            SCHEMA_7_DOWN
                            "DROP VIEW iteration_breakdown; DROP VIEW collective_summary;"
                            "DROP VIEW communication_per_parallelism; DROP TABLE llm_rank;"
                            "ALTER TABLE collective DROP COLUMN protocol;"
                            "ALTER TABLE collective DROP COLUMN channels;"
                            "ALTER TABLE collective DROP COLUMN parallelism;"
                            "ALTER TABLE iteration DROP COLUMN bubble_ns;"
                            "ALTER TABLE iteration DROP COLUMN exposed_tp_ns;"
                            "ALTER TABLE iteration DROP COLUMN exposed_pp_ns;"
                            "ALTER TABLE iteration DROP COLUMN exposed_dp_ns;"
                            "ALTER TABLE iteration DROP COLUMN exposed_ep_ns;"
                            "UPDATE schema_version SET version = 4;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    int64_t run = -1;
    tn_run_info info = {"llm", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_collective c = {0};
    c.collective = 7;
    c.op = "all-reduce";
    c.algorithm = "ring";
    c.bytes = 64;
    c.participants = 8;
    c.start_ns = 10;
    c.end_ns = 30;
    c.parallelism = "tp";
    TN_CHECK(ctx, tn_db_add_collective(db, run, &c, &err) == TN_OK);
    tn_db_iteration it = {0, 3, 0, 100, 60, 40, 1, {10, 5, 15, 6, 4}, 0};
    TN_CHECK(ctx, tn_db_add_iteration(db, run, &it, &err) == TN_OK);
    tn_db_llm_rank rank = {3, 1, 1, 0, 0, 0};
    TN_CHECK(ctx, tn_db_add_llm_rank(db, run, &rank, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_flush(db, &err) == TN_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM communication_per_parallelism WHERE "
                                     "parallelism = 'tp' AND busy_ns = 20"),
                1);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT bubble_ns + exposed_tp_ns + exposed_pp_ns + exposed_dp_ns + "
                             "exposed_ep_ns FROM iteration_breakdown WHERE tp = 1 AND "
                             "iteration_ns = 100"),
        40);
    tn_db_close(db);
}

/* Schema 5's run.status knew no 'deadlock' nor 'stalled': the run table is rebuilt in place,
 * its rows kept, the views still answer, and the new statuses and the deadlock table work. */
static void
test_schema_5_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v5.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    int64_t old = -1;
    tn_run_info info = {"old", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &old, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_finish(db, old, "ok", 1.0, 42, &err) == TN_OK);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            "PRAGMA legacy_alter_table=ON; DROP TABLE deadlock;"
                            "CREATE TABLE run5 (run_id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                            " params_json TEXT NOT NULL, seed INTEGER NOT NULL,"
                            " run_number INTEGER NOT NULL, ns3_version TEXT,"
                            " module_version TEXT, started_at TEXT NOT NULL, finished_at TEXT,"
                            " status TEXT NOT NULL CHECK (status IN"
                            " ('running','ok','aborted','error')),"
                            " wall_seconds REAL, simulated_ns INTEGER, error TEXT);"
                            "INSERT INTO run5 SELECT * FROM run; DROP TABLE run;"
                            "ALTER TABLE run5 RENAME TO run;"
                            "UPDATE schema_version SET version = 5;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    /* the schema-5 file refuses the new status: what the upgrade must change */
    TN_CHECK(ctx,
             sqlite3_exec(sql, "UPDATE run SET status = 'deadlock'", NULL, NULL, NULL) ==
                 SQLITE_CONSTRAINT);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM run WHERE name = 'old' AND simulated_ns = 42"),
        1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM collective_summary"), 0);
    int64_t run = -1;
    info.name = "mesh";
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_deadlock_hop hop = {1, 900, 3, 2, 3, 7, 1, 800, 4096, "3->7:49152 4096"};
    TN_CHECK(ctx, tn_db_add_deadlock_hop(db, run, &hop, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "deadlock", 1.0, 900, &err) == TN_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(
                    sql,
                    "SELECT count(*) FROM run r JOIN deadlock d USING (run_id) WHERE"
                    " r.status = 'deadlock' AND d.peer_node_id = 7 AND d.queue_bytes = 4096"),
                1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'stalled'"),
                0);
    TN_CHECK(ctx, tn_db_run_finish(db, old, "stalled", 1.0, 42, &err) == TN_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'stalled'"),
                1);
    tn_db_close(db);
}

static void
test_run_abandoned(tn_test_ctx* ctx)
{
    char path[512];
    tn_test_db_fresh_path(ctx, "tn-test-abandon.db", path, sizeof(path));
    tn_error err = {0};
    tn_db* db = NULL;
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    tn_db* none = NULL;
    TN_CHECK(ctx, tn_db_open("", &none, &err) == TN_EDB && none == NULL); /* not a temp file */
    tn_run_info info = {"dead", "{}", 1, 1, "3.37", "x"};
    int64_t dead = -1;
    int64_t done = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &dead, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &done, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_finish(db, done, "ok", 1.0, 5, &err) == TN_OK);
    int changed = -1;
    TN_CHECK(ctx,
             tn_db_run_abandon(db, dead, "aborted", "killed by signal 9", &changed, &err) == TN_OK);
    TN_CHECK_EQ(ctx, changed, 1);
    TN_CHECK(ctx, tn_db_run_abandon(db, done, "aborted", "late", &changed, &err) == TN_OK);
    TN_CHECK_EQ(ctx, changed, 0);
    TN_CHECK(ctx, tn_db_run_set_error(db, done, "a note", &err) == TN_OK);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM run WHERE status = 'aborted' AND "
                                     "error = 'killed by signal 9' AND finished_at IS NOT NULL"),
                1);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM run WHERE status = 'ok' AND error = 'a note'"),
        1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'running'"),
                0);
    tn_db_close(db);
}

/* Schema 6's collective had no protocol nor channels: the columns are added, the rows kept,
 * collective_summary shows them, and a row of NCCL's model records them (NULL elsewhere). */
static void
test_schema_6_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v6.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    int64_t old = -1;
    tn_run_info info = {"old", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &old, &err) == TN_OK);
    tn_db_collective ring = {0};
    ring.collective = 1;
    ring.op = "all-reduce";
    ring.algorithm = "ring";
    ring.end_ns = 100;
    TN_CHECK(ctx, tn_db_add_collective(db, old, &ring, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_finish(db, old, "ok", 1.0, 42, &err) == TN_OK);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            SCHEMA_7_DOWN "DROP VIEW collective_summary;"
                                          "ALTER TABLE collective DROP COLUMN protocol;"
                                          "ALTER TABLE collective DROP COLUMN channels;"
                                          "UPDATE schema_version SET version = 6;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM collective_summary WHERE algorithm = 'ring' AND "
                             "protocol IS NULL AND channels IS NULL"),
        1);
    int64_t run = -1;
    info.name = "nccl";
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_collective c = ring;
    c.algorithm = "nccl:ring:ll128";
    c.requested_algorithm = "nccl";
    c.protocol = "ll128";
    c.channels = 16;
    TN_CHECK(ctx, tn_db_add_collective(db, run, &c, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 1.0, 100, &err) == TN_OK);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT channels FROM collective_summary WHERE protocol = 'll128' AND "
                             "algorithm = 'nccl:ring:ll128' AND requested_algorithm = 'nccl'"),
        16);
    tn_db_close(db);
}

/* Schema 7 had no jobs: the job_id columns and the job tables are added, the rows kept (their
 * job NULL); a run of two jobs then names them, and job_slowdown compares each with its run
 * alone: (300 - 100) / (200 - 100) = 2 for job 1, and the port both may cross is shared. */
static void
test_schema_7_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v7.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    int64_t old = -1;
    tn_run_info info = {"old", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &old, &err) == TN_OK);
    tn_db_iteration it = {0};
    it.node = 3;
    it.start_ns = 100;
    it.end_ns = 200;
    TN_CHECK(ctx, tn_db_add_iteration(db, old, &it, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_finish(db, old, "ok", 1.0, 200, &err) == TN_OK);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            SCHEMA_7_DOWN "UPDATE schema_version SET version = 7;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM pragma_table_info('iteration') WHERE "
                                     "name = 'job_id'"),
                0);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM iteration WHERE job_id IS NULL AND "
                                     "end_ns = 200"),
                1);
    static const char* const tables[] = {"collective", "transfer", "iteration", "layer"};
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
    {
        char q[160];
        snprintf(q,
                 sizeof(q),
                 "SELECT count(*) FROM pragma_table_info('%s') WHERE name = 'job_id'",
                 tables[i]);
        TN_CHECK_MSG(ctx, tn_test_db_query_int(sql, q) == 1, "%s has no job_id", tables[i]);
    }
    /* the alone run of job 1 (100 ns an iteration), then both jobs together */
    int64_t alone = -1;
    int64_t both = -1;
    info.name = "alone";
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &alone, &err) == TN_OK);
    tn_db_job job = {1, "a", "0,1", "list", 0, 0};
    TN_CHECK(ctx, tn_db_add_job(db, alone, &job, &err) == TN_OK);
    it.job = 1;
    it.node = 0;
    TN_CHECK(ctx, tn_db_add_iteration(db, alone, &it, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, alone, "ok", 1.0, 200, &err) == TN_OK);
    info.name = "both";
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &both, &err) == TN_OK);
    job.alone_run_id = alone;
    TN_CHECK(ctx, tn_db_add_job(db, both, &job, &err) == TN_OK);
    tn_db_job other = {2, "b", "2,3", "packed", 50, 0};
    TN_CHECK(ctx, tn_db_add_job(db, both, &other, &err) == TN_OK);
    it.end_ns = 250;
    TN_CHECK(ctx, tn_db_add_iteration(db, both, &it, &err) == TN_OK);
    it.node = 1;
    it.end_ns = 300; /* the job's iteration ends with its last NPU */
    TN_CHECK(ctx, tn_db_add_iteration(db, both, &it, &err) == TN_OK);
    tn_db_job_port ports[] = {{1, 8, 0, -1}, {2, 8, 0, -1}, {2, 9, 1, -1}};
    for (size_t i = 0; i < 3; i++)
        TN_CHECK(ctx, tn_db_add_job_port(db, both, &ports[i], &err) == TN_OK);
    tn_db_collective c = {0};
    c.collective = 1;
    c.op = "all-reduce";
    c.algorithm = "ring";
    c.end_ns = 100;
    c.job = 2;
    TN_CHECK(ctx, tn_db_add_collective(db, both, &c, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, both, "ok", 1.0, 300, &err) == TN_OK);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT iteration_ns FROM job_iteration WHERE run_id = 3"),
        200);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT CAST(slowdown * 1000 AS INTEGER) FROM job_slowdown"
                                     " WHERE run_id = 3 AND job_id = 1"),
                2000);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM job_slowdown WHERE run_id = 3 AND"
                                     " job_id = 2 AND slowdown IS NULL AND start_ns = 50"),
                1);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM shared_ports WHERE node_id = 8 AND port = 0"
                             " AND jobs = 2"),
        1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM shared_ports"), 1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT job_id FROM collective WHERE run_id = 3"),
                2);
    tn_db_close(db);
}

/* A schema-8 file (job_port without tx_bytes) is upgraded in place: its rows keep NULL bytes,
 * and new rows carry bytes or NULL (not measured). */
static void
test_schema_8_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v8.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    int64_t old = -1;
    tn_run_info info = {"old", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &old, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_finish(db, old, "ok", 1.0, 200, &err) == TN_OK);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            SCHEMA_9_DOWN "INSERT INTO job_port VALUES (1, 1, 8, 0, NULL);"
                                          "ALTER TABLE job_port DROP COLUMN tx_bytes;"
                                          "UPDATE schema_version SET version = 8;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM pragma_table_info('job_port')"
                                     " WHERE name = 'tx_bytes'"),
                0);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM job_port WHERE tx_bytes IS NULL"),
                1);
    int64_t run = -1;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_job_port ports[] = {{1, 8, 0, 1000}, {2, 8, 0, -1}};
    for (size_t i = 0; i < 2; i++)
        TN_CHECK(ctx, tn_db_add_job_port(db, run, &ports[i], &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 1.0, 300, &err) == TN_OK);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT tx_bytes FROM job_port WHERE run_id = 2 AND job_id = 1"),
        1000);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM job_port WHERE run_id = 2 AND job_id = 2"
                                     " AND tx_bytes IS NULL"),
                1);
    tn_db_close(db);
}

/* A schema-9 file (no congestion-control tables) is upgraded in place, its rows kept; the new
 * rows then round-trip, and cc_per_control sums each run's queue pairs per control. */
static void
test_schema_9_upgraded(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-v9.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    int64_t old = -1;
    tn_run_info info = {"old", "{}", 1, 1, "3.37", "x"};
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &old, &err) == TN_OK);
    tn_db_pfc_event pfc = {500, 2, 1, 3, 1, 1};
    TN_CHECK(ctx, tn_db_add_pfc_event(db, old, &pfc, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_db_run_finish(db, old, "ok", 1.0, 600, &err) == TN_OK);
    tn_db_close(db);
    sqlite3* sql = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(sql,
                            SCHEMA_9_DOWN "UPDATE schema_version SET version = 9;",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM sqlite_master WHERE name LIKE 'cc\\_%' "
                                     "ESCAPE '\\'"),
                0);
    sqlite3_close(sql);
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT version FROM schema_version"),
                TN_DB_SCHEMA_VERSION);
    TN_CHECK_EQ(ctx, TN_DB_SCHEMA_VERSION, 11);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM pfc_event WHERE time_ns = 500"),
                1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM sqlite_master WHERE name IN "
                                     "('cc_sample','cc_qp','cc_per_control')"),
                3);
    /* two runs, one control each: DCQCN on two queue pairs, HPCC on one */
    int64_t runs[2] = {-1, -1};
    const char* controls[2] = {"dcqcn", "hpcc"};
    for (int r = 0; r < 2; r++)
    {
        info.name = controls[r];
        TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &runs[r], &err) == TN_OK);
    }
    tn_db_cc_sample sample = {1000, 1000, 4, {2, 3, 5, 0, 3, 1, 0, 2.5e10}};
    TN_CHECK(ctx, tn_db_add_cc_sample(db, runs[0], &sample, &err) == TN_OK);
    tn_db_cc_sample quiet = {2000, 1000, 4, {0, 0, 0, 1, 0, 0, 7, -1}};
    TN_CHECK(ctx, tn_db_add_cc_sample(db, runs[1], &quiet, &err) == TN_OK);
    tn_db_cc_qp a =
        {4, 17, 5, 3, 0, "dcqcn", 100000000000ULL, {2, 1, 5, 0, 1, 1, 0, 2.5e10}, 5e10, -1};
    tn_db_cc_qp b = a;
    b.qpn = 18;
    b.counts.cnps_sent = 0;
    b.counts.cnps_received = 2;
    b.counts.rate_cuts = 2;
    b.counts.min_rate_bps = 1e10;
    tn_db_cc_qp h = {4, 17, 5, 3, 0, "hpcc", 100000000000ULL, {0, 0, 0, 1, 0, 0, 7, -1}, -1, 52000};
    TN_CHECK(ctx, tn_db_add_cc_qp(db, runs[0], &a, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_cc_qp(db, runs[0], &b, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_cc_qp(db, runs[1], &h, &err) == TN_OK);
    for (int r = 0; r < 2; r++)
        TN_CHECK(ctx, tn_db_run_finish(db, runs[r], "ok", 1.0, 3000, &err) == TN_OK);
    char q[256];
    snprintf(q,
             sizeof(q),
             "SELECT qps * 1000000 + cnps_sent * 10000 + cnps_received * 100 + rate_cuts"
             " FROM cc_per_control WHERE run_id = %lld AND control = 'dcqcn'",
             (long long)runs[0]);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, q), 2000000 + 20000 + 300 + 3);
    snprintf(q,
             sizeof(q),
             "SELECT CAST(min_rate_bps AS INTEGER) FROM cc_per_control WHERE run_id = %lld",
             (long long)runs[0]);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, q), 10000000000LL);
    snprintf(q,
             sizeof(q),
             "SELECT window_updates * 10 + ecn_echoes FROM cc_per_control WHERE run_id = %lld"
             " AND control = 'hpcc' AND min_rate_bps IS NULL",
             (long long)runs[1]);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, q), 71);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT final_window_bytes FROM cc_qp WHERE control = 'hpcc'"
                                     " AND final_rate_bps IS NULL"),
                52000);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM cc_qp WHERE control = 'dcqcn'"
                                     " AND final_window_bytes IS NULL AND peer_node = 5"),
                2);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT cnps_sent * 1000 + ce_received * 10 + rate_cuts"
                                     " FROM cc_sample WHERE time_ns = 1000 AND interval_ns = 1000"),
                2053);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT window_updates FROM cc_sample WHERE min_rate_bps IS NULL"),
        7);
    tn_db_close(db);
}

static void
test_other_schema_refused(tn_test_ctx* ctx)
{
    static const int versions[] = {999, TN_DB_SCHEMA_VERSION + 1, 0};
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); ++i)
    {
        char path[512];
        tn_test_db_fresh_path(ctx, "tn-test-other.db", path, sizeof(path));
        tn_error err = {0};
        tn_db* db = NULL;
        TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
        char update[64];
        snprintf(update, sizeof(update), "UPDATE schema_version SET version = %d", versions[i]);
        sqlite3_exec(tn_db_handle(db), update, NULL, NULL, NULL);
        tn_db_close(db);
        TN_CHECK(ctx, tn_db_open(path, &db, &err) == TN_EDB);
        TN_CHECK(ctx, db == NULL);
        char number[16];
        snprintf(number, sizeof(number), "%d", versions[i]);
        TN_CHECK_MSG(ctx,
                     strstr(err.message, path) != NULL && strstr(err.message, number) != NULL,
                     "message: %s",
                     err.message);
    }
}

/* tn_db_open refuses the file at path (case i) with one line naming it and holding `said`. */
static void
check_refused(tn_test_ctx* ctx, const char* path, const char* said, size_t i)
{
    tn_error err = {0};
    tn_db* db = NULL;
    TN_CHECK_MSG(ctx, tn_db_open(path, &db, &err) == TN_EDB, "case %zu opened", i);
    TN_CHECK(ctx, db == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, path) != NULL && strstr(err.message, said),
                 "case %zu message: %s",
                 i,
                 err.message);
    TN_CHECK_MSG(ctx, strchr(err.message, '\n') == NULL, "two lines: %s", err.message);
}

/* Files that look like results databases but are not refused when opened, with what is wrong. */
static void
test_other_shapes_refused(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* sql;  /* turns a fresh database into another shape */
        const char* said; /* in the message */
    } cases[] = {
        {"UPDATE schema_version SET version = 'abc'", "'abc'"},
        {"DROP TABLE run; CREATE TABLE run (x INTEGER)", "table run has columns (x)"},
        {"DROP TABLE port_sample; CREATE TABLE port_sample (run_id INTEGER, a, b, c, d, e, f, "
         "g, h, i, j, k, l, m, n, o, p, q, r, s)",
         "table port_sample"},
        {"DROP VIEW port_summary; DROP VIEW hottest_ports; DROP VIEW pause_per_port; DROP VIEW "
         "utilisation_per_dim; DROP TABLE layer; CREATE TABLE layer (run_id INTEGER)",
         "table layer"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    {
        char path[512];
        tn_test_db_fresh_path(ctx, "tn-test-shape.db", path, sizeof(path));
        tn_error err = {0};
        tn_db* db = NULL;
        TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
        TN_REQUIRE(ctx,
                   sqlite3_exec(tn_db_handle(db), cases[i].sql, NULL, NULL, NULL) == SQLITE_OK);
        tn_db_close(db);
        check_refused(ctx, path, cases[i].said, i);
    }
    tn_error err = {0};
    tn_db* db = NULL;
    TN_CHECK(ctx, tn_db_open("/dev/null", &db, &err) == TN_EDB);
    TN_CHECK_MSG(ctx, strstr(err.message, "not a regular file") != NULL, "%s", err.message);
}

static void
test_unwritable_path(tn_test_ctx* ctx)
{
    tn_error err = {0};
    tn_db* db = NULL;
    TN_CHECK(ctx, tn_db_open("/nonexistent-dir/x.db", &db, &err) == TN_EDB);
    TN_CHECK(ctx, strstr(err.message, "/nonexistent-dir/x.db") != NULL);
}

/* The whole file into a malloc'd buffer (*size bytes); NULL if it cannot be read. */
static unsigned char*
read_whole(const char* path, size_t* size)
{
    FILE* f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char* data = NULL;
    size_t used = 0;
    size_t cap = 0;
    for (;;)
    {
        if (used == cap)
        {
            unsigned char* grown = realloc(data, cap = cap ? 2 * cap : 65536);
            if (!grown)
                break;
            data = grown;
        }
        size_t n = fread(data + used, 1, cap - used, f);
        used += n;
        if (n == 0)
            break;
    }
    fclose(f);
    *size = used;
    return data;
}

/*
 * Databases of another program are refused with the file and what is foreign, and left byte
 * for byte as they were (no WAL switch, no table added); an index on a training-net table is
 * not foreign.
 */
static void
test_foreign_schema_refused(tn_test_ctx* ctx)
{
    static const struct
    {
        int training_net; /* 1: start from a training-net database */
        const char* sql;  /* then this */
        const char* said; /* in the message */
    } cases[] = {
        {0, "CREATE TABLE notes (a TEXT); INSERT INTO notes VALUES ('keep me')", "table 'notes'"},
        {0, "PRAGMA user_version = 7", "user_version is 7"},
        {0, "CREATE VIEW v AS SELECT 1", "view 'v'"},
        {1, "CREATE TABLE notes (a TEXT); INSERT INTO notes VALUES ('keep me')", "table 'notes'"},
        {1,
         "DROP VIEW port_summary; CREATE TABLE port_summary (run_id INTEGER)",
         "'port_summary' is a table where a training-net results database has a view"},
        {1, "PRAGMA user_version = 42", "user_version is 42"},
        {1, "CREATE TRIGGER t AFTER INSERT ON run BEGIN SELECT 1; END", "trigger 't'"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    {
        char path[512];
        tn_test_db_fresh_path(ctx, "tn-test-foreign.db", path, sizeof(path));
        tn_error err = {0};
        tn_db* db = NULL;
        if (cases[i].training_net)
        {
            TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
            tn_db_close(db);
            db = NULL;
        }
        sqlite3* sql = NULL;
        TN_REQUIRE(ctx, sqlite3_open(path, &sql) == SQLITE_OK);
        TN_REQUIRE_MSG(ctx,
                       sqlite3_exec(sql, cases[i].sql, NULL, NULL, NULL) == SQLITE_OK,
                       "case %zu: %s",
                       i,
                       sqlite3_errmsg(sql));
        /* checkpointed into the main file: the bytes compared below are the whole database */
        sqlite3_exec(sql, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
        sqlite3_close(sql);
        size_t before_size = 0;
        unsigned char* before = read_whole(path, &before_size);
        TN_REQUIRE(ctx, before != NULL);

        check_refused(ctx, path, cases[i].said, i);
        size_t after_size = 0;
        unsigned char* after = read_whole(path, &after_size);
        TN_CHECK_MSG(ctx,
                     after && after_size == before_size && memcmp(before, after, before_size) == 0,
                     "case %zu: the file changed (%zu bytes, then %zu)",
                     i,
                     before_size,
                     after_size);
        free(before);
        free(after);
    }

    /* an index on a training-net table is the user's, and harmless: accepted and kept */
    char path[512];
    tn_test_db_fresh_path(ctx, "tn-test-foreign.db", path, sizeof(path));
    tn_error err = {0};
    tn_db* db = NULL;
    TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
    TN_REQUIRE(ctx,
               sqlite3_exec(tn_db_handle(db),
                            "CREATE INDEX flow_by_node ON flow (src_node)",
                            NULL,
                            NULL,
                            NULL) == SQLITE_OK);
    tn_db_close(db);
    TN_CHECK_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "with an index: %s", err.message);
    if (db)
    {
        TN_CHECK_EQ(
            ctx,
            tn_test_db_query_int(tn_db_handle(db),
                                 "SELECT count(*) FROM sqlite_master WHERE name = 'flow_by_node'"),
            1);
        tn_db_close(db);
    }
}

static void
test_not_a_database(tn_test_ctx* ctx)
{
    char path[512];
    tn_test_db_fresh_path(ctx, "tn-test-text.db", path, sizeof(path));
    const char* text = "this is a text file that happens to end in .db, not SQLite\n";
    FILE* f = fopen(path, "w");
    TN_REQUIRE(ctx, f != NULL);
    for (int i = 0; i < 100; ++i)
        fputs(text, f);
    fclose(f);
    tn_error err = {0};
    tn_db* db = NULL;
    TN_CHECK(ctx, tn_db_open(path, &db, &err) == TN_EDB);
    TN_CHECK(ctx, db == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, path) && strstr(err.message, "not an SQLite database"),
                 "message: %s",
                 err.message);
    /* left as it was */
    f = fopen(path, "r");
    TN_REQUIRE(ctx, f != NULL);
    char line[128];
    TN_CHECK(ctx, fgets(line, sizeof(line), f) && strcmp(line, text) == 0);
    fclose(f);
}

static void
test_rows_round_trip(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-rows.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"rows", "{}", 1, 1, "3.37", "x"};
    int64_t run = 0;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_node node = {5, "switch", -1, 12};
    tn_db_link link = {3, 5, 2, 7, 0, 100000000000ULL, 1000, 1};
    tn_db_collective coll = {9,
                             "all-reduce",
                             "ring'; DROP TABLE run; --",
                             "ready",
                             1 << 20,
                             8,
                             56,
                             3,
                             10,
                             -1,
                             0,
                             0,
                             0,
                             NULL,
                             0,
                             NULL,
                             0,
                             NULL,
                             NULL,
                             0,
                             0};
    tn_db_transfer tr = {9, 4, 1, 2, -1, 0, 1, 10, 11, 4096, 1, 2, 100, 200, 300, -1, 0};
    tn_db_flow flow = {10, 77, 11, 3, 3, 49999, 1, 65536, 1000, 5000, 2000, 4096, 9};
    tn_db_port_sample s = sample(10000, 5, 2, 125000, 0.25);
    for (int q = 0; q <= TN_DB_PRIORITIES; ++q)
        s.queue_bytes[q] = 100 + q;
    s.paused_ns = 333;
    s.ecn_marks = 4;
    s.drops = 1;
    tn_db_pfc_event pfc = {1234, 5, 2, 3, 1, 0};
    tn_db_drop drop = {999, 5, -1, 3, "switch", "BufferFull", 1100};
    TN_CHECK(ctx, tn_db_add_node(db, run, &node, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_link(db, run, &link, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_collective(db, run, &coll, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_transfer(db, run, &tr, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_flow(db, run, &flow, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &s, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_pfc_event(db, run, &pfc, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_drop(db, run, &drop, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_db_pending_rows(db), 8);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 0.1, 10000, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_db_pending_rows(db), 0);
    TN_CHECK_EQ(ctx, tn_db_rows_written(db), 8);
    tn_db_close(db);

    TN_REQUIRE(ctx, tn_db_open(path, &db, &err) == TN_OK);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM run"), 1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT ports FROM node WHERE kind='switch'"), 12);
    TN_CHECK(ctx, query_null(sql, "SELECT rank FROM node") == 1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT rate_bps FROM link WHERE dim=1"),
                100000000000LL);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM collective WHERE algorithm="
                                     "'ring''; DROP TABLE run; --'"),
                1);
    TN_CHECK(ctx, query_null(sql, "SELECT end_ns FROM collective") == 1);
    TN_CHECK(ctx, query_null(sql, "SELECT busbw_Bps FROM collective") == 1);
    TN_CHECK(ctx, query_null(sql, "SELECT estimated_ns FROM collective") == 1);
    TN_CHECK(ctx, query_null(sql, "SELECT ready_ns FROM transfer") == 1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT last_byte_ns FROM transfer"), 300);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT fct_ns FROM flow"), 4000);
    TN_CHECK_NEAR(ctx, tn_test_db_query_real(sql, "SELECT slowdown FROM flow"), 2.0, 1e-12);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT collective_id FROM flow"), 9);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT q0_bytes + q7_bytes + qctl_bytes FROM port_sample"),
        100 + 107 + 108);
    TN_CHECK_NEAR(ctx,
                  tn_test_db_query_real(sql, "SELECT utilisation FROM port_sample"),
                  0.25,
                  1e-12);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM pfc_event WHERE kind='pause' AND "
                                     "direction='received'"),
                1);
    TN_CHECK(ctx, query_null(sql, "SELECT port FROM drop_event") == 1);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT bytes FROM drop_event WHERE reason='BufferFull'"),
                1100);
    /* every row of every table carries the run's id */
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT (SELECT count(*) FROM node WHERE run_id=1)"
                                     " + (SELECT count(*) FROM link WHERE run_id=1)"
                                     " + (SELECT count(*) FROM collective WHERE run_id=1)"
                                     " + (SELECT count(*) FROM transfer WHERE run_id=1)"
                                     " + (SELECT count(*) FROM flow WHERE run_id=1)"
                                     " + (SELECT count(*) FROM port_sample WHERE run_id=1)"
                                     " + (SELECT count(*) FROM pfc_event WHERE run_id=1)"
                                     " + (SELECT count(*) FROM drop_event WHERE run_id=1)"),
                8);
    tn_db_close(db);
    TN_CHECK(ctx, integrity_ok(path));
}

static void
test_batches(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-batch.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"batch", "{}", 1, 1, "3.37", "x"};
    int64_t run = 0;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_set_batch_rows(db, 10);
    /* a second connection sees only whole batches */
    sqlite3* reader = NULL;
    TN_REQUIRE(ctx, sqlite3_open(path, &reader) == SQLITE_OK);
    uint64_t sum = 0;
    for (int i = 0; i < 25; ++i)
    {
        tn_db_port_sample s = sample(1000 * (i + 1), 1, 0, 1000 + i, 0.5);
        sum += s.tx_bytes;
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, &s, &err) == TN_OK);
        long long seen = tn_test_db_query_int(reader, "SELECT count(*) FROM port_sample");
        TN_CHECK_MSG(ctx,
                     seen == (i + 1) / 10 * 10,
                     "after %d rows the reader sees %lld",
                     i + 1,
                     seen);
    }
    TN_CHECK_EQ(ctx, tn_db_pending_rows(db), 5);
    TN_CHECK(ctx, tn_db_flush(db, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(reader, "SELECT count(*) FROM port_sample"), 25);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(reader, "SELECT sum(tx_bytes) FROM port_sample"),
                (long long)sum);
    /* a failed batch is rolled back and reported, and the next one works */
    sqlite3_exec(tn_db_handle(db),
                 "CREATE TRIGGER refuse BEFORE INSERT ON port_sample WHEN NEW.node_id = 66"
                 " BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
                 NULL,
                 NULL,
                 NULL);
    tn_db_port_sample good = sample(99000, 1, 0, 1, 0);
    tn_db_port_sample bad = sample(99000, 66, 0, 1, 0);
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &bad, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_flush(db, &err) == TN_EDB);
    TN_CHECK_MSG(ctx, strstr(err.message, "refused by test") != NULL, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(reader, "SELECT count(*) FROM port_sample"), 25);
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_flush(db, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(reader, "SELECT count(*) FROM port_sample"), 26);
    sqlite3_close(reader);
    tn_db_close(db);
    TN_CHECK(ctx, integrity_ok(path));
}

/*
 * The writer thread: the same rows in the same order as without it; at most the batch being
 * written, one queued behind it and the one being filled wait; a batch that fails is reported
 * by the second hand-over after it, whatever the thread's speed
 * (its rows are dropped, the next batch is written); run_finish reports a failure of the last
 * batch and marks the run 'error'.
 */
static void
test_writer_thread(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-writer-thread.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_db_set_writer_thread(db, 1);
    tn_db_set_batch_rows(db, 10);
    tn_run_info info = {"threaded", "{}", 1, 1, "3.37", "x"};
    int64_t run = 0;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    uint64_t sum = 0;
    for (int i = 0; i < 1005; ++i)
    {
        tn_db_port_sample s = sample(1000 * (i + 1), 1, 0, 1000 + (uint64_t)i, 0.5);
        sum += s.tx_bytes;
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, &s, &err) == TN_OK);
        TN_CHECK_MSG(ctx,
                     tn_db_pending_rows(db) <= 30,
                     "after %d rows %zu wait",
                     i + 1,
                     tn_db_pending_rows(db));
    }
    TN_CHECK(ctx, tn_db_flush(db, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_db_pending_rows(db), 0);
    TN_CHECK_EQ(ctx, tn_db_rows_written(db), 1005);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM port_sample"), 1005);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT sum(tx_bytes) FROM port_sample"),
                (long long)sum);
    /* in the order added: rowid k holds the k-th row */
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql,
                             "SELECT count(*) FROM (SELECT tx_bytes - 1000 AS k,"
                             " row_number() OVER (ORDER BY rowid) - 1 AS r FROM port_sample)"
                             " WHERE k <> r"),
        0);

    /* a refused row fails its batch in the writer thread: reported at the second hand-over
     * after it (the first may find it queued or written: it says nothing either way) */
    sqlite3_exec(sql,
                 "CREATE TRIGGER refuse BEFORE INSERT ON port_sample WHEN NEW.node_id = 66"
                 " BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
                 NULL,
                 NULL,
                 NULL);
    tn_db_port_sample good = sample(99000, 1, 0, 1, 0);
    tn_db_port_sample bad = sample(99000, 66, 0, 1, 0);
    for (int i = 0; i < 9; ++i)
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &bad, &err) == TN_OK); /* handed over */
    for (int i = 0; i < 9; ++i)
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_OK);
    /* the failed batch is written (nothing but the 9 rows waits) before the next hand-over,
     * which still says nothing: the failure is due at the second */
    struct timespec pause = {0, 1000000};
    for (int ms = 0; ms < 10000 && tn_db_pending_rows(db) > 9; ++ms)
        nanosleep(&pause, NULL);
    TN_CHECK_EQ(ctx, tn_db_pending_rows(db), 9);
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_OK); /* the next */
    for (int i = 0; i < 9; ++i)
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_OK);
    err.message[0] = 0;
    TN_CHECK(ctx, tn_db_add_port_sample(db, run, &good, &err) == TN_EDB);
    TN_CHECK_MSG(ctx, strstr(err.message, "refused by test") != NULL, "%s", err.message);
    TN_CHECK(ctx, tn_db_flush(db, &err) == TN_OK); /* the batches after the failure are written */
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(tn_db_handle(db), "SELECT count(*) FROM port_sample"),
                1025);

    /* the last batch fails: run_finish says so and the run is 'error' */
    for (int i = 0; i < 10; ++i)
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, i == 4 ? &bad : &good, &err) == TN_OK);
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 0, 0, &err) == TN_EDB);
    TN_CHECK_MSG(ctx, strstr(err.message, "refused by test") != NULL, "%s", err.message);
    sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'error'"),
                1);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM port_sample"), 1025);
    tn_db_close(db);
    TN_CHECK(ctx, integrity_ok(path));
}

static void
test_views(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-views.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"views", "{}", 1, 1, "3.37", "x"};
    int64_t run = 0;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    /* ports 0 (dim 0) and 1 (dim 1) of node 0; port 1 busier and paused */
    tn_db_link l0 = {0, 0, 0, 1, 0, 8000000000ULL, 100, 0};
    tn_db_link l1 = {1, 0, 1, 2, 0, 8000000000ULL, 100, 1};
    tn_db_add_link(db, run, &l0, &err);
    tn_db_add_link(db, run, &l1, &err);
    for (int i = 0; i < 4; ++i)
    {
        tn_db_port_sample a = sample(1000 * (i + 1), 0, 0, 100, 0.1 * i);
        tn_db_port_sample b = sample(1000 * (i + 1), 0, 1, 900, 0.9);
        b.paused_ns = 250;
        tn_db_add_port_sample(db, run, &a, &err);
        tn_db_add_port_sample(db, run, &b, &err);
    }
    for (int i = 0; i < 3; ++i)
    {
        tn_db_pfc_event e = {100 * i, 0, 1, 3, 1, 0};
        tn_db_add_pfc_event(db, run, &e, &err);
    }
    /* 100 flows of 1 KiB with slowdown 1..100, 10 of 1 MiB with slowdown 2 */
    for (int i = 1; i <= 110; ++i)
    {
        tn_db_flow f = {0, (uint64_t)i, 1, 1, 3, 1, 0, i <= 100 ? 1024 : 1 << 20, 0, 0, 0, 0, -1};
        f.end_ns = i <= 100 ? 1000 * i : 2000;
        f.ideal_fct_ns = 1000;
        tn_db_add_flow(db, run, &f, &err);
    }
    tn_db_collective c = {1,    "all-reduce", "ring", "ready", 1000, 4, 2,    3,    0, 1000, 800,
                          1e12, 1.5e12,       NULL,   0,       NULL, 0, NULL, NULL, 0, 0};
    tn_db_add_collective(db, run, &c, &err);
    tn_db_transfer t1 = {1, 0, 0, 0, 0, 0, 1, 0, 1, 500, 0, 0, 0, 10, 20, 30, 0};
    tn_db_transfer t2 = {1, 1, 0, 1, 0, 1, 0, 1, 0, 500, 1, 0, 30, 40, 50, 90, 0};
    tn_db_add_transfer(db, run, &t1, &err);
    tn_db_add_transfer(db, run, &t2, &err);
    TN_REQUIRE_MSG(ctx, tn_db_flush(db, &err) == TN_OK, "%s", err.message);
    sqlite3* sql = tn_db_handle(db);

    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT port FROM hottest_ports WHERE hot_rank = 1"),
                1);
    TN_CHECK_NEAR(
        ctx,
        tn_test_db_query_real(sql, "SELECT mean_utilisation FROM hottest_ports WHERE port = 0"),
        (0.0 + 0.1 + 0.2 + 0.3) / 4,
        1e-12);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT tx_bytes FROM hottest_ports WHERE port = 1"),
                3600);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT peer_node FROM hottest_ports WHERE port = 1"),
                2);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT paused_ns FROM pause_per_port WHERE port = 1"),
                1000);
    TN_CHECK_NEAR(
        ctx,
        tn_test_db_query_real(sql, "SELECT paused_fraction FROM pause_per_port WHERE port = 1"),
        0.25,
        1e-12);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT pauses_received FROM pause_per_port WHERE port = 1"),
        3);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT pauses_received FROM pause_per_port WHERE port = 0"),
        0);
    TN_CHECK_NEAR(
        ctx,
        tn_test_db_query_real(sql,
                              "SELECT mean_utilisation FROM utilisation_per_dim WHERE dim = 1"),
        0.9,
        1e-12);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM utilisation_per_dim"), 2);
    /* nearest-rank percentiles of 1..100 */
    TN_CHECK_NEAR(
        ctx,
        tn_test_db_query_real(sql, "SELECT p50 FROM fct_slowdown_percentiles WHERE bucket = 0"),
        50,
        1e-9);
    TN_CHECK_NEAR(
        ctx,
        tn_test_db_query_real(sql, "SELECT p99 FROM fct_slowdown_percentiles WHERE bucket = 0"),
        99,
        1e-9);
    TN_CHECK_EQ(
        ctx,
        tn_test_db_query_int(sql, "SELECT flows FROM fct_slowdown_percentiles WHERE bucket = 2"),
        10);
    TN_CHECK_NEAR(
        ctx,
        tn_test_db_query_real(sql, "SELECT p90 FROM fct_slowdown_percentiles WHERE bucket = 2"),
        2,
        1e-9);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT transfers_done FROM collective_summary"), 2);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT transfer_bytes FROM collective_summary"),
                1000);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT duration_ns FROM collective_summary"), 1000);
    TN_CHECK_NEAR(ctx,
                  tn_test_db_query_real(sql, "SELECT mean_transfer_ns FROM collective_summary"),
                  45,
                  1e-9);
    TN_CHECK_NEAR(ctx,
                  tn_test_db_query_real(sql, "SELECT vs_estimate FROM collective_summary"),
                  1.25,
                  1e-9);
    tn_db_close(db);
}

/* ---- two processes ------------------------------------------------------------------------ */

#define WRITER_ROWS 20000

/*
 * A child process: one run of WRITER_ROWS port samples in batches, written by the writer
 * thread when id is even; exit status 0 when ok.
 */
static int
writer_process(const char* path, int id)
{
    tn_error err = {0};
    tn_db* db = NULL;
    if (tn_db_open(path, &db, &err) != TN_OK)
    {
        fprintf(stderr, "writer %d: %s\n", id, err.message);
        return 1;
    }
    tn_db_set_batch_rows(db, 500);
    tn_db_set_writer_thread(db, id % 2 == 0);
    char name[32];
    snprintf(name, sizeof(name), "writer-%d", id);
    tn_run_info info = {name, "{}", (uint64_t)id, 1, "3.37", "x"};
    int64_t run = 0;
    int failed = tn_db_run_begin(db, &info, &run, &err) != TN_OK;
    for (int i = 0; !failed && i < WRITER_ROWS; ++i)
    {
        tn_db_port_sample s = sample(i, (uint32_t)id, 0, (uint64_t)i, 0.5);
        failed = tn_db_add_port_sample(db, run, &s, &err) != TN_OK;
    }
    if (!failed)
        failed = tn_db_run_finish(db, run, "ok", 0, 0, &err) != TN_OK;
    if (failed)
        fprintf(stderr, "writer %d: %s\n", id, err.message);
    tn_db_close(db);
    return failed;
}

static void
test_two_processes(tn_test_ctx* ctx)
{
    char path[512];
    tn_test_db_fresh_path(ctx, "tn-test-two.db", path, sizeof(path));
    fflush(NULL);
    pid_t pids[2];
    for (int id = 0; id < 2; ++id)
    {
        pids[id] = fork();
        TN_REQUIRE(ctx, pids[id] >= 0);
        if (pids[id] == 0)
            _exit(writer_process(path, id + 1));
    }
    for (int id = 0; id < 2; ++id)
    {
        int status = 0;
        TN_CHECK(ctx, waitpid(pids[id], &status, 0) == pids[id]);
        TN_CHECK_MSG(ctx,
                     WIFEXITED(status) && WEXITSTATUS(status) == 0,
                     "writer %d failed (status %d)",
                     id + 1,
                     status);
    }
    tn_error err = {0};
    tn_db* db = NULL;
    TN_REQUIRE_MSG(ctx, tn_db_open(path, &db, &err) == TN_OK, "open: %s", err.message);
    sqlite3* sql = tn_db_handle(db);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'ok'"), 2);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM port_sample"),
                2 * WRITER_ROWS);
    for (int id = 1; id <= 2; ++id)
    {
        char q[200];
        snprintf(q,
                 sizeof(q),
                 "SELECT count(DISTINCT s.time_ns) FROM port_sample s JOIN run r"
                 " ON r.run_id = s.run_id WHERE r.name = 'writer-%d' AND s.node_id = %d",
                 id,
                 id);
        TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, q), WRITER_ROWS);
    }
    tn_db_close(db);
    TN_CHECK(ctx, integrity_ok(path));
}

/* ---- signals ------------------------------------------------------------------------------ */

/* The child: records samples until a signal comes, then finishes its run as 'aborted'. */
static int
recording_process(const char* path)
{
    tn_error err = {0};
    if (tn_signal_watch(&err) != TN_OK)
        return 2;
    tn_db* db = NULL;
    if (tn_db_open(path, &db, &err) != TN_OK)
        return 3;
    tn_db_set_batch_rows(db, 100000);
    tn_run_info info = {"interrupted", "{}", 1, 1, "3.37", "x"};
    int64_t run = 0;
    if (tn_db_run_begin(db, &info, &run, &err) != TN_OK)
        return 4;
    /* bounded: the parent sends its signal long before */
    for (int64_t i = 0; i < 50000000; ++i)
    {
        tn_db_port_sample s = sample(i, 0, 0, 1, 0.5);
        if (tn_db_add_port_sample(db, run, &s, &err) != TN_OK)
            return 5;
        if (i % 100 == 99 && tn_db_flush(db, &err) != TN_OK)
            return 6;
        if (tn_signal_pending())
        {
            tn_db_run_finish(db, run, "aborted", 0, (uint64_t)i, &err);
            tn_db_close(db);
            return 0;
        }
        if (i % 100 == 99)
        {
            struct timespec pause = {0, 200000};
            nanosleep(&pause, NULL);
        }
    }
    return 7;
}

static void
test_signal_aborts_run(tn_test_ctx* ctx)
{
    char path[512];
    tn_db* db =
        tn_test_db_open_fresh(ctx, "tn-test-signal.db", path, sizeof(path)); /* schema in place */
    TN_REQUIRE(ctx, db != NULL);
    sqlite3* sql = tn_db_handle(db);
    fflush(NULL);
    pid_t pid = fork();
    TN_REQUIRE(ctx, pid >= 0);
    if (pid == 0)
        _exit(recording_process(path));
    /* wait until the child has committed some rows, then interrupt it */
    long long seen = 0;
    for (int i = 0; i < 1000 && seen < 1000; ++i)
    {
        struct timespec pause = {0, 10000000};
        nanosleep(&pause, NULL);
        seen = tn_test_db_query_int(sql, "SELECT count(*) FROM port_sample");
    }
    TN_CHECK_MSG(ctx, seen >= 1000, "the child recorded %lld rows", seen);
    kill(pid, SIGINT);
    int status = 0;
    TN_CHECK(ctx, waitpid(pid, &status, 0) == pid);
    TN_CHECK_MSG(ctx, WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM run WHERE status = 'aborted'"),
                1);
    long long rows = tn_test_db_query_int(sql, "SELECT count(*) FROM port_sample");
    TN_CHECK(ctx, rows >= seen);
    /* the rows recorded before the signal, none lost: the run says how many it made */
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT simulated_ns + 1 FROM run"), rows);
    tn_db_close(db);
    TN_CHECK(ctx, integrity_ok(path));
    /* the flag is off in a process that does not watch */
    TN_CHECK_EQ(ctx, tn_signal_pending(), 0);
}

/* A watch inside a watch keeps a signal the outer one caught (a worker caught it before its
 * recorder started); only the outermost unwatch clears it. */
static void
test_signal_watch_nests(tn_test_ctx* ctx)
{
    tn_error err = {0};
    TN_REQUIRE(ctx, tn_signal_watch(&err) == TN_OK);
    raise(SIGTERM);
    TN_CHECK_EQ(ctx, tn_signal_pending(), SIGTERM);
    TN_REQUIRE(ctx, tn_signal_watch(&err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_signal_pending(), SIGTERM);
    tn_signal_unwatch();
    TN_CHECK_EQ(ctx, tn_signal_pending(), SIGTERM);
    tn_signal_unwatch();
    TN_CHECK_EQ(ctx, tn_signal_pending(), 0);
}

void
tn_suite_db(tn_test_suite* suite)
{
    tn_test_add(suite, "runs-are-recorded", test_runs_are_recorded);
    tn_test_add(suite, "schema-has-every-table", test_schema_has_every_table);
    tn_test_add(suite, "schema-1-upgraded", test_schema_1_upgraded);
    tn_test_add(suite, "schema-3-upgraded", test_schema_3_upgraded);
    tn_test_add(suite, "schema-4-upgraded", test_schema_4_upgraded);
    tn_test_add(suite, "schema-5-upgraded", test_schema_5_upgraded);
    tn_test_add(suite, "schema-6-upgraded", test_schema_6_upgraded);
    tn_test_add(suite, "schema-7-upgraded", test_schema_7_upgraded);
    tn_test_add(suite, "schema-8-upgraded", test_schema_8_upgraded);
    tn_test_add(suite, "schema-9-upgraded", test_schema_9_upgraded);
    tn_test_add(suite, "run-abandoned", test_run_abandoned);
    tn_test_add(suite, "other-schema-refused", test_other_schema_refused);
    tn_test_add(suite, "other-shapes-refused", test_other_shapes_refused);
    tn_test_add(suite, "unwritable-path", test_unwritable_path);
    tn_test_add(suite, "not-a-database", test_not_a_database);
    tn_test_add(suite, "foreign-schema-refused", test_foreign_schema_refused);
    tn_test_add(suite, "rows-round-trip", test_rows_round_trip);
    tn_test_add(suite, "batches", test_batches);
    tn_test_add(suite, "writer-thread", test_writer_thread);
    tn_test_add(suite, "views", test_views);
    tn_test_add(suite, "two-processes", test_two_processes);
    tn_test_add(suite, "signal-aborts-run", test_signal_aborts_run);
    tn_test_add(suite, "signal-watch-nests", test_signal_watch_nests);
}
