/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-db: the results database writer (contract in tn-db.h). Over 1,000 lines for a
 * reason: the schema, the prepared statement of every table, the batches and the writer
 * thread share the private tn_db state and its locking; signals are in tn-signal.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "tn-db.h"

#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- schema ------------------------------------------------------------------------------ */

/* Tables of schema 1 (kept as they were: a schema-1 file is upgraded in place). */
static const char* const SCHEMA_1 =
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS run ("
    " run_id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " params_json TEXT NOT NULL,"
    " seed INTEGER NOT NULL,"
    " run_number INTEGER NOT NULL,"
    " ns3_version TEXT,"
    " module_version TEXT,"
    " started_at TEXT NOT NULL,"
    " finished_at TEXT,"
    " status TEXT NOT NULL"
    " CHECK (status IN ('running','ok','aborted','error','deadlock','stalled')),"
    " wall_seconds REAL,"
    " simulated_ns INTEGER,"
    " error TEXT);";

/* The table added by schema 5: which NPU holds which rank of a generated LLM program. */
#define SCHEMA_5_TABLES                                                                            \
    "CREATE TABLE IF NOT EXISTS llm_rank ("                                                        \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " node_id INTEGER NOT NULL, rank INTEGER NOT NULL,"                                            \
    " tp INTEGER NOT NULL, ep INTEGER NOT NULL, dp INTEGER NOT NULL, pp INTEGER NOT NULL,"         \
    " PRIMARY KEY (run_id, node_id));"

/* The table added by schema 6: the cycle of a PFC deadlock (PfcDeadlockWatch). */
#define SCHEMA_6_TABLES                                                                            \
    "CREATE TABLE IF NOT EXISTS deadlock ("                                                        \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " hop INTEGER NOT NULL, detected_ns INTEGER NOT NULL,"                                         \
    " node_id INTEGER NOT NULL, port INTEGER NOT NULL, priority INTEGER NOT NULL,"                 \
    " peer_node_id INTEGER NOT NULL, peer_port INTEGER NOT NULL,"                                  \
    " paused_since_ns INTEGER NOT NULL, queue_bytes INTEGER NOT NULL, flows TEXT,"                 \
    " PRIMARY KEY (run_id, hop));"

/* The tables added by schema 8 (job_port.tx_bytes by schema 9): several jobs on one fabric
 * ([[job]]), and the ports each job's
 * traffic may cross. */
#define SCHEMA_8_TABLES                                                                            \
    "CREATE TABLE IF NOT EXISTS job ("                                                             \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " job_id INTEGER NOT NULL, name TEXT NOT NULL, npus TEXT NOT NULL,"                            \
    " placement TEXT NOT NULL, start_ns INTEGER NOT NULL, alone_run_id INTEGER,"                   \
    " PRIMARY KEY (run_id, job_id));"                                                              \
    "CREATE TABLE IF NOT EXISTS job_port ("                                                        \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " job_id INTEGER NOT NULL, node_id INTEGER NOT NULL, port INTEGER NOT NULL,"                   \
    " tx_bytes INTEGER,"                                                                           \
    " PRIMARY KEY (run_id, job_id, node_id, port));"

/* The tables added by schema 10: congestion-control events, counted per NIC and sampling
 * interval (cc_sample) and per queue pair over the run (cc_qp). */
#define SCHEMA_10_TABLES                                                                           \
    "CREATE TABLE IF NOT EXISTS cc_sample ("                                                       \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " time_ns INTEGER NOT NULL, interval_ns INTEGER NOT NULL, node_id INTEGER NOT NULL,"           \
    " cnps_sent INTEGER NOT NULL, cnps_received INTEGER NOT NULL,"                                 \
    " ce_received INTEGER NOT NULL, ecn_echoes INTEGER NOT NULL,"                                  \
    " rate_cuts INTEGER NOT NULL, rate_raises INTEGER NOT NULL,"                                   \
    " window_updates INTEGER NOT NULL, min_rate_bps REAL);"                                        \
    "CREATE TABLE IF NOT EXISTS cc_qp ("                                                           \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " node_id INTEGER NOT NULL, qpn INTEGER NOT NULL, peer_node INTEGER NOT NULL,"                 \
    " priority INTEGER NOT NULL, lane INTEGER NOT NULL, control TEXT NOT NULL,"                    \
    " line_rate_bps INTEGER NOT NULL,"                                                             \
    " cnps_sent INTEGER NOT NULL, cnps_received INTEGER NOT NULL,"                                 \
    " ce_received INTEGER NOT NULL, ecn_echoes INTEGER NOT NULL,"                                  \
    " rate_cuts INTEGER NOT NULL, rate_raises INTEGER NOT NULL,"                                   \
    " window_updates INTEGER NOT NULL,"                                                            \
    " min_rate_bps REAL, final_rate_bps REAL, final_window_bytes INTEGER,"                         \
    " PRIMARY KEY (run_id, node_id, qpn));"

/* The view added by schema 10: a run's congestion-control events per control, so that
 * comparing controls (one run each) is one query. */
#define SCHEMA_10_VIEWS                                                                            \
    "CREATE VIEW IF NOT EXISTS cc_per_control AS"                                                  \
    " SELECT run_id, control, count(*) AS qps, sum(cnps_sent) AS cnps_sent,"                       \
    "  sum(cnps_received) AS cnps_received, sum(ce_received) AS ce_received,"                      \
    "  sum(ecn_echoes) AS ecn_echoes, sum(rate_cuts) AS rate_cuts,"                                \
    "  sum(rate_raises) AS rate_raises, sum(window_updates) AS window_updates,"                    \
    "  min(min_rate_bps) AS min_rate_bps"                                                          \
    " FROM cc_qp GROUP BY run_id, control;"

/* The views added by schema 8. A job's iteration spans its NPUs: from the first start to the
 * last end of that iteration among them. */
#define SCHEMA_8_VIEWS                                                                             \
    "CREATE VIEW IF NOT EXISTS job_iteration AS"                                                   \
    " SELECT run_id, job_id, iteration, min(start_ns) AS start_ns, max(end_ns) AS end_ns,"         \
    "  max(end_ns) - min(start_ns) AS iteration_ns"                                                \
    " FROM iteration WHERE job_id IS NOT NULL GROUP BY run_id, job_id, iteration;"                 \
    "CREATE VIEW IF NOT EXISTS job_slowdown AS"                                                    \
    " SELECT j.run_id, j.job_id, j.name, j.npus, j.placement, j.start_ns,"                         \
    "  (SELECT avg(i.iteration_ns) FROM job_iteration i"                                           \
    "   WHERE i.run_id = j.run_id AND i.job_id = j.job_id) AS iteration_ns,"                       \
    "  j.alone_run_id,"                                                                            \
    "  (SELECT avg(a.iteration_ns) FROM job_iteration a"                                           \
    "   WHERE a.run_id = j.alone_run_id AND a.job_id = j.job_id) AS alone_iteration_ns,"           \
    "  (SELECT avg(i.iteration_ns) FROM job_iteration i"                                           \
    "   WHERE i.run_id = j.run_id AND i.job_id = j.job_id) * 1.0 /"                                \
    "  (SELECT avg(a.iteration_ns) FROM job_iteration a"                                           \
    "   WHERE a.run_id = j.alone_run_id AND a.job_id = j.job_id) AS slowdown"                      \
    " FROM job j;"                                                                                 \
    "CREATE VIEW IF NOT EXISTS shared_ports AS"                                                    \
    " SELECT p.run_id, p.node_id, p.port, count(*) AS jobs,"                                       \
    "  group_concat(p.job_id, ',') AS job_ids, s.peer_node, s.dim, s.tx_bytes,"                    \
    "  s.mean_utilisation, s.peak_utilisation, s.paused_ns"                                        \
    " FROM job_port p LEFT JOIN port_summary s"                                                    \
    "  ON s.run_id = p.run_id AND s.node_id = p.node_id AND s.port = p.port"                       \
    " GROUP BY p.run_id, p.node_id, p.port HAVING count(*) > 1;"

/* Schema 6 widened run.status; SQLite changes a CHECK only by rebuilding the table (run with
 * legacy_alter_table on: the rename then leaves the views that name run as they are). */
#define SCHEMA_6_RUN_REBUILD                                                                       \
    "CREATE TABLE run_schema_6 ("                                                                  \
    " run_id INTEGER PRIMARY KEY, name TEXT NOT NULL, params_json TEXT NOT NULL,"                  \
    " seed INTEGER NOT NULL, run_number INTEGER NOT NULL, ns3_version TEXT,"                       \
    " module_version TEXT, started_at TEXT NOT NULL, finished_at TEXT,"                            \
    " status TEXT NOT NULL"                                                                        \
    " CHECK (status IN ('running','ok','aborted','error','deadlock','stalled')),"                  \
    " wall_seconds REAL, simulated_ns INTEGER, error TEXT);"                                       \
    "INSERT INTO run_schema_6 SELECT run_id, name, params_json, seed, run_number, ns3_version,"    \
    " module_version, started_at, finished_at, status, wall_seconds, simulated_ns, error"          \
    " FROM run;"                                                                                   \
    "DROP TABLE run;"                                                                              \
    "ALTER TABLE run_schema_6 RENAME TO run;"

/* The views added by schema 5. */
#define SCHEMA_5_VIEWS                                                                             \
    "CREATE VIEW IF NOT EXISTS iteration_breakdown AS"                                             \
    " SELECT i.run_id, i.iteration, i.node_id, r.rank, r.tp, r.ep, r.dp, r.pp,"                    \
    "  i.end_ns - i.start_ns AS iteration_ns, i.compute_ns, i.bubble_ns, i.exposed_tp_ns,"         \
    "  i.exposed_pp_ns, i.exposed_dp_ns, i.exposed_ep_ns, i.exposed_comm_ns"                       \
    " FROM iteration i LEFT JOIN llm_rank r ON r.run_id = i.run_id AND r.node_id = i.node_id;"     \
    "CREATE VIEW IF NOT EXISTS communication_per_parallelism AS"                                   \
    " SELECT run_id, parallelism, op, count(*) AS collectives, sum(bytes) AS bytes,"               \
    "  sum(end_ns - start_ns) AS busy_ns"                                                          \
    " FROM collective WHERE parallelism IS NOT NULL GROUP BY run_id, parallelism, op;"

/*
 * The transfer and flow tables, one row per transfer and per message: most of a large run's
 * rows. Since schema 11 their keys are not PRIMARY KEYs but the unique indexes of
 * SCHEMA_11_KEYS (a table rebuilt without its PRIMARY KEY keeps its rows' order). The rows come
 * in completion order, which is random in the keys: the indexes are written with the rows, in
 * batches large enough (TN_DB_DEFAULT_BATCH_ROWS) that a batch adds many keys to each index
 * page it dirties.
 */
#define TRANSFER_COLUMNS                                                                           \
    "("                                                                                            \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " collective_id INTEGER NOT NULL, transfer_id INTEGER NOT NULL,"                               \
    " chunk INTEGER NOT NULL, step INTEGER NOT NULL, dim INTEGER NOT NULL,"                        \
    " src_rank INTEGER NOT NULL, dst_rank INTEGER NOT NULL,"                                       \
    " src_node INTEGER NOT NULL, dst_node INTEGER NOT NULL,"                                       \
    " bytes INTEGER NOT NULL, reduce INTEGER NOT NULL, lane INTEGER NOT NULL,"                     \
    " issue_ns INTEGER, first_byte_ns INTEGER, last_byte_ns INTEGER, ready_ns INTEGER,"            \
    " job_id INTEGER)"
#define FLOW_COLUMNS                                                                               \
    "("                                                                                            \
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"                                             \
    " src_node INTEGER NOT NULL, message_id INTEGER NOT NULL, dst_node INTEGER NOT NULL,"          \
    " qpn INTEGER NOT NULL, priority INTEGER NOT NULL, udp_sport INTEGER NOT NULL,"                \
    " lane INTEGER NOT NULL, bytes INTEGER NOT NULL,"                                              \
    " start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, fct_ns INTEGER NOT NULL,"                \
    " ideal_fct_ns INTEGER, slowdown REAL, retx_bytes INTEGER NOT NULL, collective_id INTEGER)"
#define TRANSFER_KEY_COLUMNS "run_id, collective_id, transfer_id"
#define FLOW_KEY_COLUMNS "run_id, src_node, message_id"
#define TRANSFER_KEY                                                                               \
    "CREATE UNIQUE INDEX IF NOT EXISTS transfer_key ON transfer(" TRANSFER_KEY_COLUMNS ");"
#define FLOW_KEY "CREATE UNIQUE INDEX IF NOT EXISTS flow_key ON flow(" FLOW_KEY_COLUMNS ");"
#define SCHEMA_11_KEYS TRANSFER_KEY FLOW_KEY

/* Schema 11 rebuilt transfer and flow without their PRIMARY KEY clause (SQLite drops a table
 * constraint only by rebuilding), rowids kept so the rows keep their order; legacy renames
 * leave the views that name them alone. */
#define SCHEMA_11_REBUILD(table, columns)                                                          \
    "CREATE TABLE " table "_schema_11 " columns ";"                                                \
    "INSERT INTO " table "_schema_11 SELECT * FROM " table " ORDER BY rowid;"                      \
    "DROP TABLE " table ";"                                                                        \
    "ALTER TABLE " table "_schema_11 RENAME TO " table ";"

/* Tables and views added by schema 2 (documented in doc/results-database.rst). */
static const char* const SCHEMA_2_TABLES =
    "CREATE TABLE IF NOT EXISTS node ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " node_id INTEGER NOT NULL,"
    " kind TEXT NOT NULL,"
    " rank INTEGER,"
    " ports INTEGER NOT NULL,"
    " PRIMARY KEY (run_id, node_id));"
    "CREATE TABLE IF NOT EXISTS link ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " link_id INTEGER NOT NULL,"
    " src_node INTEGER NOT NULL, src_port INTEGER NOT NULL,"
    " dst_node INTEGER NOT NULL, dst_port INTEGER NOT NULL,"
    " rate_bps INTEGER NOT NULL, delay_ns INTEGER NOT NULL, dim INTEGER NOT NULL,"
    " PRIMARY KEY (run_id, link_id));"
    "CREATE TABLE IF NOT EXISTS collective ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " collective_id INTEGER NOT NULL,"
    " op TEXT NOT NULL, algorithm TEXT NOT NULL, scheduler TEXT,"
    " bytes INTEGER NOT NULL, participants INTEGER NOT NULL, transfers INTEGER NOT NULL,"
    " priority INTEGER NOT NULL,"
    " start_ns INTEGER, end_ns INTEGER, estimated_ns INTEGER,"
    " algbw_Bps REAL, busbw_Bps REAL,"
    " requested_algorithm TEXT, choice_estimated_ns INTEGER,"
    " runner_up TEXT, runner_up_estimated_ns INTEGER,"
    " parallelism TEXT, protocol TEXT, channels INTEGER, job_id INTEGER,"
    " PRIMARY KEY (run_id, collective_id));"
    "CREATE TABLE IF NOT EXISTS transfer " TRANSFER_COLUMNS ";"
    "CREATE TABLE IF NOT EXISTS flow " FLOW_COLUMNS ";"
    "CREATE TABLE IF NOT EXISTS port_sample ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " time_ns INTEGER NOT NULL, interval_ns INTEGER NOT NULL,"
    " node_id INTEGER NOT NULL, port INTEGER NOT NULL,"
    " tx_bytes INTEGER NOT NULL, tx_packets INTEGER NOT NULL, utilisation REAL NOT NULL,"
    " q0_bytes INTEGER NOT NULL, q1_bytes INTEGER NOT NULL, q2_bytes INTEGER NOT NULL,"
    " q3_bytes INTEGER NOT NULL, q4_bytes INTEGER NOT NULL, q5_bytes INTEGER NOT NULL,"
    " q6_bytes INTEGER NOT NULL, q7_bytes INTEGER NOT NULL, qctl_bytes INTEGER NOT NULL,"
    " paused_ns INTEGER NOT NULL, ecn_marks INTEGER NOT NULL, drops INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS pfc_event ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " time_ns INTEGER NOT NULL, node_id INTEGER NOT NULL, port INTEGER NOT NULL,"
    " priority INTEGER NOT NULL,"
    " kind TEXT NOT NULL CHECK (kind IN ('pause','resume')),"
    " direction TEXT NOT NULL CHECK (direction IN ('sent','received')));"
    "CREATE TABLE IF NOT EXISTS drop_event ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " time_ns INTEGER NOT NULL, node_id INTEGER NOT NULL, port INTEGER,"
    " priority INTEGER, location TEXT NOT NULL, reason TEXT NOT NULL, bytes INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS iteration ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " iteration INTEGER NOT NULL, node_id INTEGER NOT NULL,"
    " start_ns INTEGER NOT NULL, end_ns INTEGER, compute_ns INTEGER, exposed_comm_ns INTEGER,"
    " bubble_ns INTEGER, exposed_tp_ns INTEGER, exposed_pp_ns INTEGER, exposed_dp_ns INTEGER,"
    " exposed_ep_ns INTEGER, job_id INTEGER,"
    " PRIMARY KEY (run_id, iteration, node_id));"
    "CREATE TABLE IF NOT EXISTS layer ("
    " run_id INTEGER NOT NULL REFERENCES run(run_id),"
    " iteration INTEGER NOT NULL, layer INTEGER NOT NULL, node_id INTEGER NOT NULL,"
    " name TEXT, phase TEXT, start_ns INTEGER NOT NULL, end_ns INTEGER,"
    " compute_ns INTEGER, exposed_comm_ns INTEGER, job_id INTEGER,"
    " PRIMARY KEY (run_id, iteration, layer, node_id, phase));" SCHEMA_5_TABLES SCHEMA_6_TABLES
        SCHEMA_8_TABLES SCHEMA_10_TABLES;

/* The views of schema 2 (kept apart: check_tables compares tables only). */
static const char* const SCHEMA_2_VIEWS =
    "CREATE VIEW IF NOT EXISTS port_summary AS"
    " SELECT s.run_id, s.node_id, s.port, l.link_id, l.dst_node AS peer_node, l.dim,"
    "  l.rate_bps, sum(s.tx_bytes) AS tx_bytes, sum(s.tx_packets) AS tx_packets,"
    "  sum(s.interval_ns) AS sampled_ns,"
    "  sum(s.utilisation * s.interval_ns) / max(sum(s.interval_ns), 1) AS mean_utilisation,"
    "  max(s.utilisation) AS peak_utilisation,"
    "  max(s.q0_bytes + s.q1_bytes + s.q2_bytes + s.q3_bytes + s.q4_bytes + s.q5_bytes"
    "      + s.q6_bytes + s.q7_bytes) AS peak_queue_bytes,"
    "  sum(s.paused_ns) AS paused_ns, sum(s.ecn_marks) AS ecn_marks, sum(s.drops) AS drops"
    " FROM port_sample s LEFT JOIN link l"
    "  ON l.run_id = s.run_id AND l.src_node = s.node_id AND l.src_port = s.port"
    " GROUP BY s.run_id, s.node_id, s.port;"
    "CREATE VIEW IF NOT EXISTS hottest_ports AS"
    " SELECT rank() OVER (PARTITION BY run_id ORDER BY mean_utilisation DESC, tx_bytes DESC)"
    "  AS hot_rank, * FROM port_summary;"
    "CREATE VIEW IF NOT EXISTS pause_per_port AS"
    " SELECT p.run_id, p.node_id, p.port, p.peer_node, p.dim, p.paused_ns,"
    "  CAST(p.paused_ns AS REAL) / max(p.sampled_ns, 1) AS paused_fraction,"
    "  (SELECT count(*) FROM pfc_event e WHERE e.run_id = p.run_id AND e.node_id = p.node_id"
    "   AND e.port = p.port AND e.kind = 'pause' AND e.direction = 'received') AS pauses_received,"
    "  (SELECT count(*) FROM pfc_event e WHERE e.run_id = p.run_id AND e.node_id = p.node_id"
    "   AND e.port = p.port AND e.kind = 'pause' AND e.direction = 'sent') AS pauses_sent"
    " FROM port_summary p;"
    "CREATE VIEW IF NOT EXISTS utilisation_per_dim AS"
    " SELECT run_id, dim, count(*) AS ports, sum(tx_bytes) AS tx_bytes,"
    "  avg(mean_utilisation) AS mean_utilisation, max(peak_utilisation) AS peak_utilisation,"
    "  sum(paused_ns) AS paused_ns"
    " FROM port_summary GROUP BY run_id, dim;"
    "CREATE VIEW IF NOT EXISTS collective_summary AS"
    " SELECT c.run_id, c.collective_id, c.op, c.algorithm, c.scheduler, c.bytes,"
    "  c.participants, c.transfers, c.start_ns, c.end_ns, c.end_ns - c.start_ns AS duration_ns,"
    "  c.estimated_ns, CAST(c.end_ns - c.start_ns AS REAL) / c.estimated_ns AS vs_estimate,"
    "  c.algbw_Bps, c.busbw_Bps,"
    "  (SELECT count(*) FROM transfer t WHERE t.run_id = c.run_id"
    "   AND t.collective_id = c.collective_id) AS transfers_done,"
    "  (SELECT sum(t.bytes) FROM transfer t WHERE t.run_id = c.run_id"
    "   AND t.collective_id = c.collective_id) AS transfer_bytes,"
    "  (SELECT avg(t.ready_ns - t.issue_ns) FROM transfer t WHERE t.run_id = c.run_id"
    "   AND t.collective_id = c.collective_id) AS mean_transfer_ns,"
    "  c.requested_algorithm, c.runner_up, c.runner_up_estimated_ns, c.protocol, c.channels"
    " FROM collective c;" SCHEMA_5_VIEWS "CREATE VIEW IF NOT EXISTS fct_slowdown_percentiles AS"
    " WITH b AS (SELECT run_id, slowdown,"
    "   CASE WHEN bytes <= 4096 THEN 0 WHEN bytes <= 65536 THEN 1"
    "   WHEN bytes <= 1048576 THEN 2 WHEN bytes <= 16777216 THEN 3 ELSE 4 END AS bucket"
    "   FROM flow WHERE slowdown IS NOT NULL),"
    " r AS (SELECT run_id, bucket, slowdown,"
    "   row_number() OVER (PARTITION BY run_id, bucket ORDER BY slowdown) AS k,"
    "   count(*) OVER (PARTITION BY run_id, bucket) AS n FROM b)"
    " SELECT run_id, bucket,"
    "  CASE bucket WHEN 0 THEN '0-4KiB' WHEN 1 THEN '4KiB-64KiB' WHEN 2 THEN '64KiB-1MiB'"
    "  WHEN 3 THEN '1MiB-16MiB' ELSE '>16MiB' END AS size_bucket,"
    "  n AS flows,"
    "  min(CASE WHEN k >= (n * 50 + 99) / 100 THEN slowdown END) AS p50,"
    "  min(CASE WHEN k >= (n * 90 + 99) / 100 THEN slowdown END) AS p90,"
    "  min(CASE WHEN k >= (n * 99 + 99) / 100 THEN slowdown END) AS p99,"
    "  max(slowdown) AS max_slowdown, avg(slowdown) AS mean_slowdown"
    " FROM r GROUP BY run_id, bucket;" SCHEMA_8_VIEWS SCHEMA_10_VIEWS;

/* ---- buffered rows ----------------------------------------------------------------------- */

enum
{
    T_NODE,
    T_LINK,
    T_COLLECTIVE,
    T_TRANSFER,
    T_FLOW,
    T_PORT_SAMPLE,
    T_PFC_EVENT,
    T_DROP,
    T_ITERATION,
    T_LAYER,
    T_LLM_RANK,
    T_DEADLOCK,
    T_JOB,
    T_JOB_PORT,
    T_CC_SAMPLE,
    T_CC_QP,
    T_COUNT
};

/* INSERT of each table; the buffered row's values are bound in order. */
static const char* const INSERTS[T_COUNT] = {
    "INSERT INTO node VALUES (?,?,?,?,?)",
    "INSERT INTO link VALUES (?,?,?,?,?,?,?,?,?)",
    "INSERT INTO collective VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    /* a second row of a key is left out and counted (write_rows), not the batch failed */
    "INSERT OR IGNORE INTO transfer VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT OR IGNORE INTO flow VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO port_sample VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO pfc_event VALUES (?,?,?,?,?,?,?)",
    "INSERT INTO drop_event VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO iteration VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO layer VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO llm_rank VALUES (?,?,?,?,?,?,?)",
    "INSERT INTO deadlock VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO job VALUES (?,?,?,?,?,?,?)",
    "INSERT INTO job_port VALUES (?,?,?,?,?)",
    "INSERT INTO cc_sample VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO cc_qp VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
};

/* A transfer between processes is added by both (tn_db_set_shared_keys): one row of both rows'
 * times. The conflict needs the key index while the run writes. */
static const char* const UPSERT_TRANSFER =
    "INSERT INTO transfer VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT (" TRANSFER_KEY_COLUMNS ") DO UPDATE SET"
    " issue_ns = coalesce(transfer.issue_ns, excluded.issue_ns),"
    " first_byte_ns = coalesce(transfer.first_byte_ns, excluded.first_byte_ns),"
    " last_byte_ns = coalesce(transfer.last_byte_ns, excluded.last_byte_ns),"
    " ready_ns = coalesce(transfer.ready_ns, excluded.ready_ns)";

static const char* const TABLES[T_COUNT] = {"node",
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

enum
{
    V_NULL,
    V_INT,
    V_REAL,
    V_TEXT
};

typedef struct value
{
    int type;

    union {
        int64_t i;
        double d;
        char* s;
    } u;
} value;

/*
 * A row's values are `columns` consecutive entries of its buffer's value array, from `first`
 * (as many as its table's INSERT binds, so no table is too wide). `v` points at them while the
 * row is filled, right after new_row: the next row may move the array. A raw row (`raw` set)
 * has no values yet: `first` indexes its caller's struct in the buffer's raw array.
 */
typedef struct row
{
    int table;
    int raw;
    int count;   /* values put so far */
    int columns; /* the table's: a put beyond them is counted, not stored */
    size_t first;
    value* v;
} row;

/*
 * A row of the tables written once per transfer, message or port sample, as its caller gave
 * it: the writer puts its values (raw_values), so the simulation's thread only copies it.
 */
typedef struct raw_row
{
    int64_t run_id;

    union {
        tn_db_transfer transfer;
        tn_db_flow flow;
        tn_db_port_sample port_sample;
    } u;
} raw_row;

/*
 * Rows one statement of write_rows inserts where a batch holds that many rows of a table in a
 * row: SQLite's cost of a step and its reset is paid once for all of them (an INSERT of 18
 * integers with a unique index: 1.96 us a row one at a time, 1.51 us 32 at a time, measured with
 * 4 M rows; about 0.4 us of each row either way).
 */
#define MULTI_ROWS 32

/* The most values a raw row's table binds (port_sample: 20). */
#define RAW_COLUMNS 32

/* Rows waiting to be written, in the order they were added, and their values. */
typedef struct row_buffer
{
    row* rows;
    size_t count;
    size_t capacity;
    value* values;
    size_t value_count;
    size_t value_capacity;
    raw_row* raws;
    size_t raw_count;
    size_t raw_capacity;
} row_buffer;

struct tn_db
{
    sqlite3* sql;
    char* path;
    sqlite3_stmt* insert[T_COUNT];
    int columns[T_COUNT]; /* parameters of each INSERT */
    /* each INSERT of MULTI_ROWS rows (write_rows), prepared when first used; `many_failed`
     * marks one that could not be (its rows are then written one at a time) */
    sqlite3_stmt* insert_many[T_COUNT];
    int many_failed[T_COUNT];
    row_buffer buffer; /* filled by tn_db_add_* */
    size_t batch;
    uint64_t written;
    /*
     * The writer thread (tn_db_set_writer_thread): it writes `handed`, a full batch, while
     * the caller fills `buffer`. Only one thread uses `sql` at a time: every use from the
     * caller's side joins the writer first (join_writer).
     */
    int threaded;
    int writing; /* a writer thread runs: join before touching sql or handed */
    pthread_t writer;
    row_buffer handed;
    tn_status handed_status; /* the writer's first failure not collected yet */
    tn_error handed_err;
    uint64_t handed_failed_batch; /* its batch */
    uint64_t handed_batch;        /* the batch `handed` holds (batches are numbered from 1) */
    uint64_t handed_written;
    uint64_t batches_handed; /* batches handed over so far (the caller's) */
    /* a failed batch collected from the writer, reported when due (report_failure) */
    tn_status late_status;
    tn_error late_err;
    uint64_t late_batch;
    /*
     * A full batch may wait in `queued` while the writer writes `handed`: its batches take
     * longer now and then (a checkpoint copies the WAL into the file), and without a place to
     * wait the simulation waited for them (11 s of a 138 s run of the 1,024-NPU ResNet-50).
     * The lock guards queued, queued_rows, handed_rows, handed_status and handed_err, and
     * writer_done while a writer runs.
     */
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_taken; /* the writer took the queued batch, or ended */
    row_buffer queued;
    size_t queued_rows;
    uint64_t queued_batch;
    int writer_done;    /* the writer thread found nothing queued and ends */
    size_t handed_rows; /* rows handed over (the writer empties `handed` as it goes) */
    tn_status failed;   /* a failed batch not reported yet, and its error */
    tn_error failed_err;
    /*
     * The key indexes of transfer and flow (SCHEMA_11_KEYS), written with the rows. A run
     * shared by processes merges a transfer's two rows on its key (`upsert`). `duplicates`
     * counts the rows of transfer [0] and flow [1] left out as a second row of a key since the
     * run began (reported when it finishes): written by the writer thread, read after the join.
     * `keys_deferred`: the indexes were dropped while this tn_db writes (keys_defer) and are
     * built when its run finishes (keys_build); set and cleared by the thread that holds the
     * connection.
     */
    int shared_keys;
    int keys_deferred;
    sqlite3_stmt* upsert;
    uint64_t duplicates[2];
    struct keyed_row* order; /* write_rows' order of a batch (one thread at a time) */
    size_t order_capacity;
};

/* ---- errors and retries ------------------------------------------------------------------ */

static tn_status
sql_error(tn_db* db, tn_error* err, const char* what)
{
    int code = sqlite3_errcode(db->sql);
    if (code == SQLITE_NOTADB)
    {
        return tn_error_set(err, TN_EDB, "%s: %s: not an SQLite database", db->path, what);
    }
    return tn_error_set(err, TN_EDB, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->sql));
}

/* SQLite's page cache while rows are written: 128 MiB (a bound; see tn_db_open). */
#define PAGE_CACHE "-131072"

/* Attempts of a statement that meets a lock after the busy timeout (5 s each). */
#define LOCK_ATTEMPTS 8

static int
is_busy(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

static tn_status
exec(tn_db* db, const char* sql, const char* what, tn_error* err)
{
    for (int attempt = 0;; ++attempt)
    {
        int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return TN_OK;
        if (!is_busy(rc) || attempt + 1 >= LOCK_ATTEMPTS)
            return sql_error(db, err, what);
        sqlite3_sleep(10 << attempt);
    }
}

/* BEGIN IMMEDIATE: take the write lock now, so no statement of the batch meets a lock. */
static tn_status
begin(tn_db* db, const char* what, tn_error* err)
{
    return exec(db, "BEGIN IMMEDIATE", what, err);
}

static void
rollback(tn_db* db)
{
    if (!sqlite3_get_autocommit(db->sql))
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- open / schema ----------------------------------------------------------------------- */

/*
 * The tables and views of schema 2 that are missing (a file of schema 1 has none), and with
 * `keys` the key indexes. A file of this schema is opened without them: a run of an earlier
 * version dropped them while it wrote, and one killed then left them out; the run that ends
 * next builds them (keys_build).
 */
static tn_status
exec_schema_2(tn_db* db, const char* what, int keys, tn_error* err)
{
    tn_status status = exec(db, SCHEMA_2_TABLES, what, err);
    if (!status && keys)
        status = exec(db, SCHEMA_11_KEYS, what, err);
    return status ? status : exec(db, SCHEMA_2_VIEWS, what, err);
}

/* Add a column to a table of an older schema, unless it has it ("NAME TYPE"). */
static tn_status
add_column(tn_db* db, const char* table, const char* column, tn_error* err)
{
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(column, " "), column);
    char query[160];
    snprintf(query,
             sizeof(query),
             "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
             table,
             name);
    sqlite3_stmt* stmt = NULL;
    if (sqlite3_prepare_v2(db->sql, query, -1, &stmt, NULL) != SQLITE_OK)
    {
        return sql_error(db, err, "upgrading schema");
    }
    const int has = sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_int(stmt, 0) > 0;
    sqlite3_finalize(stmt);
    if (has)
    {
        return TN_OK;
    }
    char alter[160];
    snprintf(alter, sizeof(alter), "ALTER TABLE %s ADD COLUMN %s", table, column);
    return exec(db, alter, "upgrading schema", err);
}

static tn_status
check_schema_version(tn_db* db, tn_error* err)
{
    sqlite3_stmt* stmt = NULL;
    if (sqlite3_prepare_v2(db->sql,
                           "SELECT max(version), count(*) FROM schema_version",
                           -1,
                           &stmt,
                           NULL) != SQLITE_OK)
    {
        return sql_error(db, err, "reading schema_version");
    }
    tn_status status = TN_OK;
    int version = -1;
    int rows = 0;
    int null_version = 1;
    int integer_version = 1;
    char shown[64] = "";
    if (sqlite3_step(stmt) == SQLITE_ROW)
    {
        null_version = sqlite3_column_type(stmt, 0) == SQLITE_NULL;
        integer_version = sqlite3_column_type(stmt, 0) == SQLITE_INTEGER;
        version = sqlite3_column_int(stmt, 0);
        rows = sqlite3_column_int(stmt, 1);
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        snprintf(shown, sizeof(shown), "%s", text ? (const char*)text : "");
    }
    sqlite3_finalize(stmt);
    if (rows > 0 && !null_version && !integer_version)
    {
        return tn_error_set(err,
                            TN_EDB,
                            "%s: schema_version '%s' is not a version number: not a "
                            "training-net results database",
                            db->path,
                            shown);
    }
    if (rows == 0 || null_version)
    {
        /* a new file: the whole schema */
        status = exec_schema_2(db, "creating schema", 1, err);
        if (!status)
        {
            char insert[96];
            snprintf(insert,
                     sizeof(insert),
                     "INSERT INTO schema_version VALUES (%d)",
                     TN_DB_SCHEMA_VERSION);
            status = exec(db, insert, "writing schema_version", err);
        }
        return status;
    }
    if (version >= 1 && version <= 10 && rows == 1)
    {
        /* schema 1 had schema_version and run only: add the new tables (of this schema);
         * schema 2's run had no error text; schema 3's collective had no tuner columns and
         * its collective_summary view not their columns */
        status = version == 1 ? exec_schema_2(db, "upgrading schema 1", 0, err) : TN_OK;
        if (!status && version <= 2)
            status = exec(db, "ALTER TABLE run ADD COLUMN error TEXT", "upgrading schema", err);
        if (!status && version >= 2 && version <= 3)
            status = exec(db,
                          "ALTER TABLE collective ADD COLUMN requested_algorithm TEXT;"
                          "ALTER TABLE collective ADD COLUMN choice_estimated_ns INTEGER;"
                          "ALTER TABLE collective ADD COLUMN runner_up TEXT;"
                          "ALTER TABLE collective ADD COLUMN runner_up_estimated_ns INTEGER;"
                          "DROP VIEW IF EXISTS collective_summary;",
                          "upgrading schema",
                          err);
        /* schema 4's collective had no parallelism and its iteration no breakdown; schema 5
         * adds llm_rank and the views over them; schema 7 the collective's protocol and
         * channels (the nccl family); schema 8 the job of every iteration, layer, collective
         * and transfer row, and the job tables; schema 10 the congestion-control tables */
        static const char* const added[][2] = {{"collective", "parallelism TEXT"},
                                               {"iteration", "bubble_ns INTEGER"},
                                               {"iteration", "exposed_tp_ns INTEGER"},
                                               {"iteration", "exposed_pp_ns INTEGER"},
                                               {"iteration", "exposed_dp_ns INTEGER"},
                                               {"iteration", "exposed_ep_ns INTEGER"},
                                               {"collective", "protocol TEXT"},
                                               {"collective", "channels INTEGER"},
                                               {"collective", "job_id INTEGER"},
                                               {"transfer", "job_id INTEGER"},
                                               {"iteration", "job_id INTEGER"},
                                               {"layer", "job_id INTEGER"}};
        for (size_t i = 0; !status && version >= 2 && i < sizeof(added) / sizeof(added[0]); i++)
            status = add_column(db, added[i][0], added[i][1], err);
        if (!status && version >= 2)
            status = exec(db,
                          "DROP VIEW IF EXISTS collective_summary;" SCHEMA_5_TABLES SCHEMA_8_TABLES
                              SCHEMA_10_TABLES,
                          "upgrading schema",
                          err);
        /* schema 9: the bytes each job sent through a port (a schema-8 job_port has none) */
        if (!status && version >= 2)
            status = add_column(db, "job_port", "tx_bytes INTEGER", err);
        /* schema 6 widened run.status and added deadlock; the legacy rename leaves the views
         * (which name run) alone */
        if (!status && version <= 5)
            status = exec(db,
                          "PRAGMA legacy_alter_table=ON;" SCHEMA_6_RUN_REBUILD
                          "PRAGMA legacy_alter_table=OFF;" SCHEMA_6_TABLES,
                          "upgrading schema",
                          err);
        /* schema 11: transfer and flow keyed by indexes, not PRIMARY KEYs */
        if (!status)
            status =
                exec(db,
                     "PRAGMA legacy_alter_table=ON;" SCHEMA_11_REBUILD("transfer", TRANSFER_COLUMNS)
                         SCHEMA_11_REBUILD("flow", FLOW_COLUMNS) SCHEMA_11_KEYS
                     "PRAGMA legacy_alter_table=OFF;",
                     "upgrading schema",
                     err);
        if (!status)
            status = exec(db, SCHEMA_2_VIEWS, "upgrading schema", err);
        if (!status)
            status = exec(db, "UPDATE schema_version SET version = 11", "upgrading schema", err);
        return status;
    }
    if (version != TN_DB_SCHEMA_VERSION || rows != 1)
    {
        return tn_error_set(err,
                            TN_EDB,
                            "%s: schema_version %d is not the schema of this training-net (%d)%s",
                            db->path,
                            version,
                            TN_DB_SCHEMA_VERSION,
                            version > TN_DB_SCHEMA_VERSION ? ": written by a newer training-net"
                                                           : "");
    }
    return exec_schema_2(db, "checking schema", 0, err);
}

/* The column names of table in sql, comma-separated, into out (empty if no such table). */
static void
table_columns(sqlite3* sql, const char* table, char* out, size_t size)
{
    char query[96];
    snprintf(query, sizeof(query), "PRAGMA table_info(%s)", table);
    out[0] = 0;
    sqlite3_stmt* stmt = NULL;
    if (sqlite3_prepare_v2(sql, query, -1, &stmt, NULL) != SQLITE_OK)
        return;
    size_t used = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW)
    {
        const unsigned char* name = sqlite3_column_text(stmt, 1);
        int n = snprintf(out + used,
                         size - used,
                         "%s%s",
                         used ? "," : "",
                         name ? (const char*)name : "");
        if (n < 0 || (size_t)n >= size - used)
            break; /* truncated: still compared, and a mismatch is still found */
        used += (size_t)n;
    }
    sqlite3_finalize(stmt);
}

/* The schema this training-net writes, in an in-memory database: the reference to compare with. */
static tn_status
open_reference(tn_db* db, sqlite3** ref, tn_error* err)
{
    *ref = NULL;
    if (sqlite3_open(":memory:", ref) != SQLITE_OK ||
        sqlite3_exec(*ref, SCHEMA_1, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(*ref, SCHEMA_2_TABLES, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(*ref, SCHEMA_2_VIEWS, NULL, NULL, NULL) != SQLITE_OK)
    {
        sqlite3_close(*ref);
        *ref = NULL;
        return tn_error_set(err, TN_ENOMEM, "%s: building the reference schema", db->path);
    }
    return TN_OK;
}

/* The type ("table", "view") of name in the reference schema, or NULL. */
static const char*
reference_type(sqlite3* ref, const char* name, char* out, size_t size)
{
    sqlite3_stmt* stmt = NULL;
    const char* found = NULL;
    if (sqlite3_prepare_v2(ref, "SELECT type FROM sqlite_master WHERE name = ?", -1, &stmt, NULL) ==
        SQLITE_OK)
    {
        sqlite3_bind_text(stmt, 1, name, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(stmt) == SQLITE_ROW)
        {
            snprintf(out, size, "%s", (const char*)sqlite3_column_text(stmt, 0));
            found = out;
        }
    }
    sqlite3_finalize(stmt);
    return found;
}

/*
 * A file another program owns is refused before anything is written to it (not even the
 * journal mode): a PRAGMA user_version other than 0 (training-net never sets it), a table,
 * view or trigger that is not of this schema, or one of its names with the other type (a
 * table where the schema has a view). Indexes are allowed (they change no row written), and
 * SQLite's own sqlite_* tables.
 */
static tn_status
check_foreign(tn_db* db, tn_error* err)
{
    sqlite3_stmt* stmt = NULL;
    int user_version = 0;
    if (sqlite3_prepare_v2(db->sql, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK)
        return sql_error(db, err, "reading user_version");
    if (sqlite3_step(stmt) == SQLITE_ROW)
        user_version = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
    if (user_version != 0)
    {
        return tn_error_set(err,
                            TN_EDB,
                            "%s: PRAGMA user_version is %d (training-net leaves it 0): the file "
                            "belongs to another program; nothing written, use another database "
                            "file",
                            db->path,
                            user_version);
    }
    sqlite3* ref = NULL;
    tn_status status = open_reference(db, &ref, err);
    if (status)
        return status;
    if (sqlite3_prepare_v2(db->sql,
                           "SELECT type, name FROM sqlite_master WHERE type IN "
                           "('table','view','trigger') AND name NOT LIKE 'sqlite\\_%' ESCAPE "
                           "'\\' ORDER BY rowid",
                           -1,
                           &stmt,
                           NULL) != SQLITE_OK)
    {
        sqlite3_close(ref);
        return sql_error(db, err, "reading the schema");
    }
    while (!status && sqlite3_step(stmt) == SQLITE_ROW)
    {
        const char* type = (const char*)sqlite3_column_text(stmt, 0);
        const char* name = (const char*)sqlite3_column_text(stmt, 1);
        char want[16];
        const char* ours = name ? reference_type(ref, name, want, sizeof(want)) : NULL;
        if (!ours || strcmp(type, "trigger") == 0)
        {
            status = tn_error_set(err,
                                  TN_EDB,
                                  "%s: %s '%.80s' is not part of a training-net results "
                                  "database: nothing written, use another database file",
                                  db->path,
                                  type,
                                  name ? name : "");
        }
        else if (strcmp(ours, type) != 0)
        {
            status = tn_error_set(err,
                                  TN_EDB,
                                  "%s: '%s' is a %s where a training-net results database has a "
                                  "%s: nothing written, use another database file",
                                  db->path,
                                  name,
                                  type,
                                  ours);
        }
    }
    sqlite3_finalize(stmt);
    sqlite3_close(ref);
    return status;
}

/*
 * Every table of this schema in the file has the columns this training-net writes, in order:
 * a table of another shape is refused now, not when the first batch is written after the
 * simulation. The reference is the schema itself, created in memory.
 */
static tn_status
check_tables(tn_db* db, tn_error* err)
{
    sqlite3* ref = NULL;
    tn_status ref_status = open_reference(db, &ref, err);
    if (ref_status)
        return ref_status;
    const char* extra[] = {"schema_version", "run"};
    tn_status status = TN_OK;
    for (int t = 0; !status && t < T_COUNT + 2; ++t)
    {
        const char* table = t < T_COUNT ? TABLES[t] : extra[t - T_COUNT];
        char want[1024];
        char have[1024];
        table_columns(ref, table, want, sizeof(want));
        table_columns(db->sql, table, have, sizeof(have));
        if (strcmp(want, have) != 0)
            status = tn_error_set(err,
                                  TN_EDB,
                                  "%s: table %s has columns (%s), this training-net writes (%s): "
                                  "not a training-net results database of schema %d",
                                  db->path,
                                  table,
                                  have,
                                  want,
                                  TN_DB_SCHEMA_VERSION);
    }
    sqlite3_close(ref);
    return status;
}

tn_status
tn_db_open(const char* path, tn_db** out, tn_error* err)
{
    *out = NULL;
    if (path[0] == '\0')
    {
        /* SQLite would open a private temporary database: the rows would vanish */
        return tn_error_set(err, TN_EDB, "the database path is empty");
    }
    tn_db* db = calloc(1, sizeof(*db));
    if (!db || !(db->path = malloc(strlen(path) + 1)))
    {
        free(db);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", path);
    }
    pthread_mutex_init(&db->queue_lock, NULL);
    pthread_cond_init(&db->queue_taken, NULL);
    strcpy(db->path, path);
    db->batch = TN_DB_DEFAULT_BATCH_ROWS;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    {
        tn_status status =
            tn_error_set(err, TN_EDB, "%s: not a regular file: a results database is a file", path);
        tn_db_close(db);
        return status;
    }
    /* one thread uses the connection at a time (the writer thread is joined first): no mutex
     * around every bind and step */
    if (sqlite3_open_v2(path,
                        &db->sql,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
    {
        tn_status status = sql_error(db, err, "cannot open or create the database");
        tn_db_close(db);
        return status;
    }
    sqlite3_busy_timeout(db->sql, 5000);
    /* a file that is not a database fails here, before anything is written */
    tn_status status = exec(db, "SELECT count(*) FROM sqlite_master", "reading", err);
    if (!status)
        status = check_foreign(db, err);
    if (!status)
        status = exec(db, "PRAGMA journal_mode=WAL", "enabling WAL", err);
    if (!status)
        status = exec(db, "PRAGMA synchronous=NORMAL", "setting synchronous", err);
    /*
     * The flow and transfer keys grow at one place per source node, so every batch dirties about
     * one index page per node: with SQLite's 2 MB default cache those pages were read back and
     * written again for each batch (the kernel's page-cache copies of the profile in
     * doc/scale.rst). The cache is a bound, not an allocation: a small run uses what it touches.
     * A larger checkpoint interval copies each page from the WAL once per interval, not once
     * per 1,000 frames.
     */
    if (!status)
        status = exec(db, "PRAGMA cache_size=" PAGE_CACHE, "setting the page cache", err);
    if (!status)
        status =
            exec(db, "PRAGMA wal_autocheckpoint=16384", "setting the checkpoint interval", err);
    if (!status)
        status = begin(db, "starting schema transaction", err);
    if (!status)
    {
        status = exec(db, SCHEMA_1, "creating schema", err);
        if (!status)
            status = check_schema_version(db, err);
        if (!status)
            status = check_tables(db, err);
        if (!status)
            status = exec(db, "COMMIT", "committing schema", err);
        else
            rollback(db);
    }
    for (int t = 0; !status && t < T_COUNT; ++t)
    {
        if (sqlite3_prepare_v3(db->sql,
                               INSERTS[t],
                               -1,
                               SQLITE_PREPARE_PERSISTENT,
                               &db->insert[t],
                               NULL) != SQLITE_OK)
            status = sql_error(db, err, "preparing inserts");
        else
            db->columns[t] = sqlite3_bind_parameter_count(db->insert[t]);
    }
    if (status)
    {
        tn_db_close(db);
        return status;
    }
    *out = db;
    return TN_OK;
}

static void
clear_rows(row_buffer* b)
{
    for (size_t i = 0; i < b->value_count; ++i)
    {
        if (b->values[i].type == V_TEXT)
            free(b->values[i].u.s);
    }
    b->count = 0;
    b->value_count = 0;
    b->raw_count = 0;
}

static void
free_rows(row_buffer* b)
{
    clear_rows(b);
    free(b->rows);
    free(b->values);
    free(b->raws);
}

static void join_writer(tn_db* db);

void
tn_db_close(tn_db* db)
{
    if (db)
    {
        join_writer(db);
        tn_error ignored;
        if (db->sql && db->buffer.count)
            tn_db_flush(db, &ignored);
        free_rows(&db->buffer);
        free_rows(&db->handed);
        free_rows(&db->queued);
        pthread_cond_destroy(&db->queue_taken);
        pthread_mutex_destroy(&db->queue_lock);
        free(db->order);
        for (int t = 0; t < T_COUNT; ++t)
        {
            sqlite3_finalize(db->insert[t]);
            sqlite3_finalize(db->insert_many[t]);
        }
        sqlite3_finalize(db->upsert);
        sqlite3_close(db->sql);
        free(db->path);
        free(db);
    }
}

void*
tn_db_handle(tn_db* db)
{
    join_writer(db); /* the caller may use the connection now */
    return db->sql;
}

void
tn_db_set_batch_rows(tn_db* db, size_t rows)
{
    db->batch = rows ? rows : 1;
}

size_t
tn_db_pending_rows(const tn_db* db)
{
    if (!db->writing)
        return db->buffer.count;
    pthread_mutex_t* lock = (pthread_mutex_t*)&db->queue_lock; /* the count is read, not changed */
    pthread_mutex_lock(lock);
    size_t rows = db->buffer.count + db->handed_rows + db->queued_rows;
    pthread_mutex_unlock(lock);
    return rows;
}

uint64_t
tn_db_rows_written(const tn_db* db)
{
    return db->written;
}

/* ---- batches ----------------------------------------------------------------------------- */

static void raw_values(row* r, const raw_row* in);

/* Binds a buffered row's values to stmt's parameters first + 1, first + 2, ... */
static tn_status
bind_row(tn_db* db,
         sqlite3_stmt* stmt,
         int first,
         const row_buffer* b,
         const row* buffered,
         tn_error* err)
{
    const row* r = buffered;
    const value* values = b->values + buffered->first;
    value put[RAW_COLUMNS];
    row filled;
    if (buffered->raw)
    {
        filled = *buffered;
        filled.count = 0;
        if (filled.columns > RAW_COLUMNS)
            filled.columns = RAW_COLUMNS; /* a wider table is refused below, not overrun */
        filled.v = put;
        raw_values(&filled, &b->raws[buffered->first]);
        r = &filled;
        values = put;
    }
    if (r->count != r->columns)
    {
        /* internal invariant: each tn_db_add_* puts its table's columns */
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: a %s row of %d values for %d columns",
                            db->path,
                            TABLES[r->table],
                            r->count,
                            r->columns);
    }
    for (int c = 0; c < r->count; ++c)
    {
        const value* v = &values[c];
        const int param = first + c + 1;
        int rc;
        switch (v->type)
        {
        case V_INT:
            rc = sqlite3_bind_int64(stmt, param, v->u.i);
            break;
        case V_REAL:
            rc = sqlite3_bind_double(stmt, param, v->u.d);
            break;
        case V_TEXT:
            rc = sqlite3_bind_text(stmt, param, v->u.s, -1, SQLITE_STATIC);
            break;
        default:
            rc = sqlite3_bind_null(stmt, param);
            break;
        }
        if (rc != SQLITE_OK)
            return sql_error(db, err, "binding a row");
    }
    return TN_OK;
}

/* Rows of a key left out or deleted after its first row: the run's error. */
static tn_status
duplicates_error(tn_db* db, const char* table, uint64_t rows, const char* key, tn_error* err)
{
    return tn_error_set(err,
                        TN_EDB,
                        "%s: table %s had %llu rows of a key (%s) written before: the first "
                        "row of each key is kept",
                        db->path,
                        table,
                        (unsigned long long)rows,
                        key);
}

/*
 * Build the key indexes of transfer and flow that are missing (a run of an earlier version
 * dropped them while it wrote and was killed, or still writes in another process), each in a
 * transaction of its own; none is missing, nothing is written. Two rows of one key (none is
 * written by the recorders) keep the first row written: the later ones are deleted so that the
 * index, and the next runs of the file, are built, and the error names the table and count.
 */
static tn_status
keys_build(tn_db* db, tn_error* err)
{
    static const char* const keys[][3] = {{TRANSFER_KEY, "transfer", TRANSFER_KEY_COLUMNS},
                                          {FLOW_KEY, "flow", FLOW_KEY_COLUMNS}};
    /*
     * CREATE INDEX sorts in memory up to the page cache's size: 128 MiB of records took a
     * cache miss per list step of its merge sort, where runs of 2 MiB sort in the CPU's
     * cache and are merged from temporary files (3.3 s instead of 5.2 s of CPU for the
     * 4.2 M keys of a 1,024-NPU ring, measured with the sqlite3 shell).
     */
    tn_status status = exec(db, "PRAGMA cache_size=-2048", "building the key indexes", err);
    tn_status duplicates = TN_OK;
    for (int k = 0; !status && k < 2; ++k)
    {
        status = begin(db, "building the key indexes", err);
        int rc = status ? SQLITE_OK : sqlite3_exec(db->sql, keys[k][0], NULL, NULL, NULL);
        if (!status && (rc & 0xff) == SQLITE_CONSTRAINT)
        {
            char sql[512];
            snprintf(sql,
                     sizeof(sql),
                     "DELETE FROM %s WHERE rowid IN (SELECT rowid FROM (SELECT rowid,"
                     " row_number() OVER (PARTITION BY %s ORDER BY rowid) AS k FROM %s)"
                     " WHERE k > 1)",
                     keys[k][1],
                     keys[k][2],
                     keys[k][1]);
            rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
            if (rc == SQLITE_OK && !duplicates)
                duplicates = duplicates_error(db,
                                              keys[k][1],
                                              (uint64_t)sqlite3_changes(db->sql),
                                              keys[k][2],
                                              err);
            if (rc == SQLITE_OK)
                rc = sqlite3_exec(db->sql, keys[k][0], NULL, NULL, NULL);
        }
        if (!status && rc != SQLITE_OK)
            status = sql_error(db, err, "building the key indexes");
        if (!status)
            status = exec(db, "COMMIT", "building the key indexes", err);
        if (status)
            rollback(db);
    }
    tn_error ignored; /* the cache's size changes no row */
    exec(db, "PRAGMA cache_size=" PAGE_CACHE, "restoring the page cache", &ignored);
    if (!status)
        db->keys_deferred = 0;
    return status ? status : duplicates;
}

/*
 * Rows in an order random in a key whose index outgrows the page cache make each row of a batch
 * read and write an index page of its own: the 16,384-NPU ring2d all-reduce (33 M transfers of
 * one collective) spent 364 s of system time in the page cache's copies for 477 s of user
 * time (42 s after this rule). A batch that read or wrote more pages than half its rows
 * (SQLite's pager counts, reset at the batch's start) drops the key indexes for the rest of
 * the run, which builds them when it finishes (keys_build: one sort, 0.8 us a key). Runs
 * whose keys stay near each other (a training job's collectives are a few hundred thousand
 * transfers each) or are small never meet it and end with their indexes written. A run
 * shared by processes keeps its indexes: it merges transfer rows on them.
 */
#define KEYS_DEFER_MIN_ROWS 64

/* Pages the pager read (cache misses) and wrote since the last call; counts from zero again. */
static uint64_t
pager_pages_moved(tn_db* db)
{
    int misses = 0, writes = 0, highest = 0;
    sqlite3_db_status(db->sql, SQLITE_DBSTATUS_CACHE_MISS, &misses, &highest, 1);
    sqlite3_db_status(db->sql, SQLITE_DBSTATUS_CACHE_WRITE, &writes, &highest, 1);
    return (uint64_t)misses + (uint64_t)writes;
}

/* After a batch of `rows` rows, whose pages pager_pages_moved counted from its start. */
static void
keys_defer(tn_db* db, size_t rows)
{
    const uint64_t pages = pager_pages_moved(db);
    if (db->shared_keys || db->keys_deferred || rows < KEYS_DEFER_MIN_ROWS || pages <= rows / 2)
        return;
    tn_error ignored; /* kept, the indexes still serve: only slower */
    if (exec(db,
             "DROP INDEX IF EXISTS transfer_key; DROP INDEX IF EXISTS flow_key;",
             "deferring the key indexes",
             &ignored) == TN_OK)
        db->keys_deferred = 1;
}

/*
 * A buffered row's place in its batch's order: its table, its key (transfer and flow: run_id
 * and the two key columns; the other tables none) and its place in the buffer.
 */
typedef struct keyed_row
{
    int64_t run;
    uint64_t first, second;
    uint32_t table, index;
} keyed_row;

static int
keyed_row_compare(const void* a, const void* b)
{
    const keyed_row* x = a;
    const keyed_row* y = b;
    if (x->table != y->table)
        return x->table < y->table ? -1 : 1;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The order write_rows writes b's rows in: a table's rows together, transfer and flow rows by
 * their key, the others (and rows of one key) in the order they were added. The key indexes
 * are written with the rows, which come in completion order, random in the keys: in key order
 * the rows of a batch that fall in one index page follow each other, so the page and the path
 * to it are in the CPU's cache (ResNet-50 on torus:16x16, 7 M rows of each table, 65,536 of
 * each a batch: 15.3 s of CPU in the sqlite3 shell in key order, 20.4 s in completion order).
 * A table's rowids therefore follow its batches, and within a batch its keys.
 */
static keyed_row*
batch_order(tn_db* db, const row_buffer* b)
{
    if (b->count > db->order_capacity)
    {
        keyed_row* order = realloc(db->order, b->count * sizeof(keyed_row));
        if (!order)
            return NULL;
        db->order = order;
        db->order_capacity = b->count;
    }
    for (size_t r = 0; r < b->count; ++r)
    {
        const row* w = &b->rows[r];
        keyed_row k = {0, 0, 0, (uint32_t)w->table, (uint32_t)r};
        if (w->raw && (w->table == T_TRANSFER || w->table == T_FLOW))
        {
            const raw_row* raw = &b->raws[w->first];
            k.run = raw->run_id;
            k.first = w->table == T_TRANSFER ? raw->u.transfer.collective : raw->u.flow.src_node;
            k.second = w->table == T_TRANSFER ? raw->u.transfer.transfer : raw->u.flow.message;
        }
        db->order[r] = k;
    }
    qsort(db->order, b->count, sizeof(keyed_row), keyed_row_compare);
    return db->order;
}

/*
 * The INSERT of MULTI_ROWS rows of `table` (INSERTS[table] with its tuple of parameters
 * repeated), or NULL when it cannot be prepared: the rows then go one at a time, as they did.
 */
static sqlite3_stmt*
many_insert(tn_db* db, int table)
{
    if (db->insert_many[table] || db->many_failed[table])
        return db->insert_many[table];
    const char* one = INSERTS[table];
    const char* tuple = strstr(one, " VALUES (");
    size_t head = tuple ? (size_t)(tuple - one) + strlen(" VALUES ") : 0;
    size_t width = strlen(one) - head;
    char* sql = tuple ? malloc(head + MULTI_ROWS * (width + 1) + 1) : NULL;
    if (sql)
    {
        memcpy(sql, one, head);
        char* at = sql + head;
        for (int r = 0; r < MULTI_ROWS; ++r)
        {
            if (r)
                *at++ = ',';
            memcpy(at, one + head, width);
            at += width;
        }
        *at = 0;
        if (sqlite3_prepare_v3(db->sql,
                               sql,
                               -1,
                               SQLITE_PREPARE_PERSISTENT,
                               &db->insert_many[table],
                               NULL) != SQLITE_OK)
            db->insert_many[table] = NULL;
        free(sql);
    }
    db->many_failed[table] = db->insert_many[table] == NULL;
    return db->insert_many[table];
}

/*
 * Write the rows of b in one transaction and empty b; a failed batch is rolled back. Counts
 * the rows into *written (db->written is the caller thread's: the writer thread's count is
 * added when it is joined).
 */
static tn_status
write_rows(tn_db* db, row_buffer* b, uint64_t* written, tn_error* err)
{
    if (b->count == 0)
        return TN_OK;
    const keyed_row* order = batch_order(db, b);
    pager_pages_moved(db); /* the pager's counts from here are the batch's (keys_defer) */
    tn_status status = order ? begin(db, "starting a batch", err)
                             : tn_error_set(err, TN_ENOMEM, "%s: ordering a batch", db->path);
    uint64_t duplicates[2] = {0, 0}; /* counted once the batch is committed */
    for (size_t i = 0; !status && i < b->count;)
    {
        const int table = b->rows[order[i].index].table;
        const int merged = table == T_TRANSFER && db->shared_keys;
        sqlite3_stmt* stmt = merged ? db->upsert : db->insert[table];
        /* MULTI_ROWS rows of the table follow (the order keeps a table's rows together) */
        size_t rows = 1;
        while (!merged && rows < MULTI_ROWS && i + rows < b->count &&
               b->rows[order[i + rows].index].table == table)
            ++rows;
        sqlite3_stmt* many = rows == MULTI_ROWS ? many_insert(db, table) : NULL;
        if (many)
            stmt = many;
        else
            rows = 1;
        for (size_t k = 0; !status && k < rows; ++k)
            status = bind_row(db,
                              stmt,
                              (int)k * db->columns[table],
                              b,
                              &b->rows[order[i + k].index],
                              err);
        if (!status && sqlite3_step(stmt) != SQLITE_DONE)
        {
            char what[64];
            snprintf(what, sizeof(what), "writing a %s row", TABLES[table]);
            status = sql_error(db, err, what);
        }
        else if (!status && !merged && (table == T_TRANSFER || table == T_FLOW))
            duplicates[table == T_FLOW] += rows - (uint64_t)sqlite3_changes(db->sql);
        sqlite3_reset(stmt);
        i += rows;
    }
    if (!status)
        status = exec(db, "COMMIT", "committing a batch", err);
    if (status)
        rollback(db);
    else
    {
        *written += b->count;
        db->duplicates[0] += duplicates[0];
        db->duplicates[1] += duplicates[1];
        keys_defer(db, b->count);
    }
    clear_rows(b);
    return status;
}

/* Keep the first failure until a caller is told (take_failure). */
static void
note_failure(tn_db* db, tn_status status, const tn_error* err)
{
    if (status && !db->failed)
    {
        db->failed = status;
        db->failed_err = *err;
    }
}

static tn_status
take_failure(tn_db* db, tn_error* err)
{
    tn_status status = db->failed;
    if (status)
        *err = db->failed_err;
    db->failed = TN_OK;
    return status;
}

/* Keep the writer's first failure, of batch `batch` (with the lock held, or no writer). */
static void
keep_handed_failure(tn_db* db, tn_status status, const tn_error* err, uint64_t batch)
{
    if (status && !db->handed_status)
    {
        db->handed_status = status;
        db->handed_err = *err;
        db->handed_failed_batch = batch;
    }
}

/* The writer thread: writes `handed`, then each batch queued meanwhile, and ends. */
static void*
writer_main(void* arg)
{
    tn_db* db = arg;
    pthread_mutex_lock(&db->queue_lock);
    for (;;)
    {
        const uint64_t batch = db->handed_batch;
        pthread_mutex_unlock(&db->queue_lock);
        tn_error here;
        tn_status status = write_rows(db, &db->handed, &db->handed_written, &here);
        pthread_mutex_lock(&db->queue_lock);
        keep_handed_failure(db, status, &here, batch);
        db->handed_rows = 0;
        if (db->queued_rows == 0)
            break;
        row_buffer next = db->queued;
        db->queued = db->handed; /* written: empty */
        db->handed = next;
        db->handed_rows = db->queued_rows;
        db->handed_batch = db->queued_batch;
        db->queued_rows = 0;
        pthread_cond_signal(&db->queue_taken);
    }
    db->writer_done = 1;
    pthread_cond_signal(&db->queue_taken);
    pthread_mutex_unlock(&db->queue_lock);
    return NULL;
}

/* The writer's first failure, kept (with its batch) until it is due (report_failure); with the
 * lock held or the writer joined. */
static void
collect_failure(tn_db* db)
{
    if (db->handed_status && !db->late_status)
    {
        db->late_status = db->handed_status;
        db->late_err = db->handed_err;
        db->late_batch = db->handed_failed_batch;
    }
    db->handed_status = TN_OK;
}

/*
 * A failed batch numbered below `before` is reported (db->failed). Hand-over n reports a failure
 * of batch n - 2 or earlier, which is written by then whether it waited in the queue or not: the
 * run stops at the same batch whatever the threads' speed.
 */
static void
report_failure(tn_db* db, uint64_t before)
{
    if (db->late_status && db->late_batch < before)
    {
        note_failure(db, db->late_status, &db->late_err);
        db->late_status = TN_OK;
    }
}

/* Wait for the writer thread's batches, keeping a failure (collect_failure). */
static void
join_thread(tn_db* db)
{
    if (!db->writing)
        return;
    pthread_join(db->writer, NULL);
    db->writing = 0;
    db->written += db->handed_written;
    db->handed_written = 0;
    collect_failure(db);
}

/* Wait for the writer thread's batches; a failure waits in db->failed for the next report. */
static void
join_writer(tn_db* db)
{
    join_thread(db);
    report_failure(db, UINT64_MAX);
}

/*
 * Queue the full buffer (batch `batch`) behind the running writer's and go on with an empty
 * one, once the batch queued before was taken; 0 when no writer runs (it ended) and none was
 * queued.
 */
static int
queue_batch(tn_db* db, uint64_t batch)
{
    if (!db->writing)
        return 0;
    pthread_mutex_lock(&db->queue_lock);
    while (db->queued_rows > 0 && !db->writer_done)
        pthread_cond_wait(&db->queue_taken, &db->queue_lock);
    int queued = !db->writer_done;
    collect_failure(db);
    if (queued)
    {
        row_buffer full = db->buffer;
        db->buffer = db->queued; /* empty: its rows were taken */
        db->queued = full;
        db->queued_rows = full.count;
        db->queued_batch = batch;
    }
    pthread_mutex_unlock(&db->queue_lock);
    return queued;
}

/* Start the writer thread on `handed`; without a thread, write it here. */
static void
start_writer(tn_db* db)
{
    /* signals go to the caller's thread, which watches them (tn_signal_watch) */
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&db->writer, NULL, writer_main, db);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        db->writing = 1;
    else
    {
        tn_error here;
        tn_status status = write_rows(db, &db->handed, &db->written, &here);
        keep_handed_failure(db, status, &here, db->handed_batch);
        collect_failure(db);
    }
}

/*
 * Give the full buffer to the writer thread and go on with an empty one: it is queued behind
 * the batch being written, or a new writer thread starts with it. At most three batches are in
 * memory (written, queued, filled). A batch that failed is reported two hand-overs later
 * (report_failure). Without a thread (pthread_create failed) the batch is written here.
 */
static tn_status
hand_off(tn_db* db, tn_error* err)
{
    const uint64_t batch = ++db->batches_handed;
    if (!queue_batch(db, batch))
    {
        join_thread(db);
        db->writer_done = 0;
        row_buffer full = db->buffer;
        db->buffer = db->handed;
        db->handed = full;
        db->handed_rows = full.count;
        db->handed_batch = batch;
        start_writer(db);
    }
    report_failure(db, batch - 1);
    return take_failure(db, err);
}

tn_status
tn_db_flush(tn_db* db, tn_error* err)
{
    join_writer(db);
    tn_error here;
    tn_status status = write_rows(db, &db->buffer, &db->written, &here);
    note_failure(db, status, &here);
    return take_failure(db, err);
}

void
tn_db_set_writer_thread(tn_db* db, int on)
{
    if (!on)
        join_writer(db);
    db->threaded = on != 0;
}

/* Room for one more row in the buffer's row array; 0 when out of memory. */
static int
room_for_row(tn_db* db, tn_error* err)
{
    row_buffer* b = &db->buffer;
    if (b->count < b->capacity)
        return 1;
    size_t capacity = b->capacity ? b->capacity * 2 : 256;
    row* rows = realloc(b->rows, capacity * sizeof(row));
    if (!rows)
    {
        tn_error_set(err, TN_ENOMEM, "%s: out of memory for rows", db->path);
        return 0;
    }
    b->rows = rows;
    b->capacity = capacity;
    return 1;
}

/*
 * A new row of `table` at the end of the buffer, with room for its columns (the buffer grows
 * to the batch size).
 */
static row*
new_row(tn_db* db, int table, tn_error* err)
{
    row_buffer* b = &db->buffer;
    const int columns = db->columns[table];
    if (!room_for_row(db, err))
        return NULL;
    if (b->value_count + (size_t)columns > b->value_capacity)
    {
        size_t capacity = b->value_capacity ? b->value_capacity * 2 : 4096;
        while (capacity < b->value_count + (size_t)columns)
            capacity *= 2;
        value* values = realloc(b->values, capacity * sizeof(value));
        if (!values)
        {
            tn_error_set(err, TN_ENOMEM, "%s: out of memory for rows", db->path);
            return NULL;
        }
        b->values = values;
        b->value_capacity = capacity;
    }
    row* r = &b->rows[b->count++];
    r->table = table;
    r->raw = 0;
    r->count = 0;
    r->columns = columns;
    r->first = b->value_count;
    r->v = b->values + r->first;
    for (int c = 0; c < columns; ++c)
        r->v[c].type = V_NULL;
    b->value_count += (size_t)columns;
    return r;
}

/*
 * A new raw row of `table` (transfer, flow or port_sample) at the end of the buffer: the
 * caller copies its struct in.
 */
static raw_row*
new_raw_row(tn_db* db, int table, int64_t run_id, tn_error* err)
{
    row_buffer* b = &db->buffer;
    if (!room_for_row(db, err))
        return NULL;
    if (b->raw_count == b->raw_capacity)
    {
        size_t capacity = b->raw_capacity ? b->raw_capacity * 2 : 256;
        raw_row* raws = realloc(b->raws, capacity * sizeof(raw_row));
        if (!raws)
        {
            tn_error_set(err, TN_ENOMEM, "%s: out of memory for rows", db->path);
            return NULL;
        }
        b->raws = raws;
        b->raw_capacity = capacity;
    }
    row* r = &b->rows[b->count++];
    r->table = table;
    r->raw = 1;
    r->count = db->columns[table];
    r->columns = db->columns[table];
    r->first = b->raw_count;
    r->v = NULL;
    raw_row* raw = &b->raws[b->raw_count++];
    raw->run_id = run_id;
    return raw;
}

/* The next value of r, or NULL past its columns (bind_row then refuses the row). */
static value*
next_value(row* r)
{
    return r->count++ < r->columns ? &r->v[r->count - 1] : NULL;
}

static void
put_int(row* r, int64_t v)
{
    value* x = next_value(r);
    if (x)
    {
        x->type = V_INT;
        x->u.i = v;
    }
}

static void
put_real(row* r, double v)
{
    value* x = next_value(r);
    if (x)
    {
        x->type = V_REAL;
        x->u.d = v;
    }
}

static void
put_null(row* r)
{
    value* x = next_value(r);
    if (x)
        x->type = V_NULL;
}

/* Copies the text; NULL text is stored as NULL. Returns 0 when out of memory. */
static int
put_text(row* r, const char* s)
{
    if (!s)
    {
        put_null(r);
        return 1;
    }
    size_t n = strlen(s) + 1;
    char* copy = malloc(n);
    if (!copy)
    {
        put_null(r);
        return 0;
    }
    memcpy(copy, s, n);
    value* x = next_value(r);
    if (!x)
    {
        free(copy);
        return 1;
    }
    x->type = V_TEXT;
    x->u.s = copy;
    return 1;
}

static void
put_time(row* r, int64_t ns)
{
    if (ns < 0)
        put_null(r);
    else
        put_int(r, ns);
}

/* A job id: 0 is no job (NULL). */
static void
put_job(row* r, uint32_t job)
{
    if (job == 0)
        put_null(r);
    else
        put_int(r, job);
}

static tn_status
row_done(tn_db* db, int text_ok, tn_error* err)
{
    if (!text_ok)
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory for row text", db->path);
    if (db->buffer.count >= db->batch)
        return db->threaded ? hand_off(db, err) : tn_db_flush(db, err);
    return TN_OK;
}

tn_status
tn_db_add_node(tn_db* db, int64_t run_id, const tn_db_node* in, tn_error* err)
{
    row* r = new_row(db, T_NODE, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->node);
    int ok = put_text(r, in->kind ? in->kind : "");
    if (in->rank < 0)
        put_null(r);
    else
        put_int(r, in->rank);
    put_int(r, in->ports);
    return row_done(db, ok, err);
}

tn_status
tn_db_add_link(tn_db* db, int64_t run_id, const tn_db_link* in, tn_error* err)
{
    row* r = new_row(db, T_LINK, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->link);
    put_int(r, in->src_node);
    put_int(r, in->src_port);
    put_int(r, in->dst_node);
    put_int(r, in->dst_port);
    put_int(r, (int64_t)in->rate_bps);
    put_int(r, (int64_t)in->delay_ns);
    put_int(r, in->dim);
    return row_done(db, 1, err);
}

tn_status
tn_db_add_collective(tn_db* db, int64_t run_id, const tn_db_collective* in, tn_error* err)
{
    row* r = new_row(db, T_COLLECTIVE, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->collective);
    int ok = put_text(r, in->op ? in->op : "");
    ok &= put_text(r, in->algorithm ? in->algorithm : "");
    ok &= put_text(r, in->scheduler);
    put_int(r, (int64_t)in->bytes);
    put_int(r, in->participants);
    put_int(r, in->transfers);
    put_int(r, in->priority);
    put_time(r, in->start_ns);
    put_time(r, in->end_ns);
    if (in->estimated_ns > 0)
        put_int(r, in->estimated_ns);
    else
        put_null(r);
    if (in->end_ns >= 0)
    {
        put_real(r, in->algbw_Bps);
        put_real(r, in->busbw_Bps);
    }
    else
    {
        put_null(r);
        put_null(r);
    }
    if (in->requested_algorithm)
        ok &= put_text(r, in->requested_algorithm);
    else
        put_null(r);
    if (in->choice_estimated_ns > 0)
        put_int(r, in->choice_estimated_ns);
    else
        put_null(r);
    if (in->runner_up)
        ok &= put_text(r, in->runner_up);
    else
        put_null(r);
    if (in->runner_up && in->runner_up_estimated_ns > 0)
        put_int(r, in->runner_up_estimated_ns);
    else
        put_null(r);
    if (in->parallelism && in->parallelism[0])
        ok &= put_text(r, in->parallelism);
    else
        put_null(r);
    if (in->protocol && in->protocol[0])
        ok &= put_text(r, in->protocol);
    else
        put_null(r);
    if (in->channels > 0)
        put_int(r, in->channels);
    else
        put_null(r);
    put_job(r, in->job);
    return row_done(db, ok, err);
}

static void
transfer_values(row* r, int64_t run_id, const tn_db_transfer* in)
{
    put_int(r, run_id);
    put_int(r, in->collective);
    put_int(r, in->transfer);
    put_int(r, in->chunk);
    put_int(r, in->step);
    put_int(r, in->dim);
    put_int(r, in->src_rank);
    put_int(r, in->dst_rank);
    put_int(r, in->src_node);
    put_int(r, in->dst_node);
    put_int(r, (int64_t)in->bytes);
    put_int(r, in->reduce ? 1 : 0);
    put_int(r, in->lane);
    put_time(r, in->issue_ns);
    put_time(r, in->first_ns);
    put_time(r, in->last_ns);
    put_time(r, in->ready_ns);
    put_job(r, in->job);
}

static void
flow_values(row* r, int64_t run_id, const tn_db_flow* in)
{
    const int64_t fct = in->end_ns - in->start_ns;
    put_int(r, run_id);
    put_int(r, in->src_node);
    put_int(r, (int64_t)in->message);
    put_int(r, in->dst_node);
    put_int(r, in->qpn);
    put_int(r, in->priority);
    put_int(r, in->udp_sport);
    put_int(r, in->lane);
    put_int(r, (int64_t)in->bytes);
    put_int(r, in->start_ns);
    put_int(r, in->end_ns);
    put_int(r, fct);
    if (in->ideal_fct_ns > 0)
    {
        put_int(r, in->ideal_fct_ns);
        put_real(r, (double)fct / (double)in->ideal_fct_ns);
    }
    else
    {
        put_null(r);
        put_null(r);
    }
    put_int(r, (int64_t)in->retx_bytes);
    if (in->collective < 0)
        put_null(r);
    else
        put_int(r, in->collective);
}

static void
port_sample_values(row* r, int64_t run_id, const tn_db_port_sample* in)
{
    put_int(r, run_id);
    put_int(r, in->time_ns);
    put_int(r, in->interval_ns);
    put_int(r, in->node);
    put_int(r, in->port);
    put_int(r, (int64_t)in->tx_bytes);
    put_int(r, (int64_t)in->tx_packets);
    put_real(r, in->utilisation);
    for (int q = 0; q <= TN_DB_PRIORITIES; ++q)
        put_int(r, (int64_t)in->queue_bytes[q]);
    put_int(r, in->paused_ns);
    put_int(r, (int64_t)in->ecn_marks);
    put_int(r, (int64_t)in->drops);
}

/* Puts a raw row's values (the writer's side of new_raw_row). */
static void
raw_values(row* r, const raw_row* in)
{
    if (r->table == T_TRANSFER)
        transfer_values(r, in->run_id, &in->u.transfer);
    else if (r->table == T_FLOW)
        flow_values(r, in->run_id, &in->u.flow);
    else
        port_sample_values(r, in->run_id, &in->u.port_sample);
}

tn_status
tn_db_add_transfer(tn_db* db, int64_t run_id, const tn_db_transfer* in, tn_error* err)
{
    raw_row* r = new_raw_row(db, T_TRANSFER, run_id, err);
    if (!r)
        return TN_ENOMEM;
    r->u.transfer = *in;
    return row_done(db, 1, err);
}

tn_status
tn_db_add_flow(tn_db* db, int64_t run_id, const tn_db_flow* in, tn_error* err)
{
    raw_row* r = new_raw_row(db, T_FLOW, run_id, err);
    if (!r)
        return TN_ENOMEM;
    r->u.flow = *in;
    return row_done(db, 1, err);
}

tn_status
tn_db_add_port_sample(tn_db* db, int64_t run_id, const tn_db_port_sample* in, tn_error* err)
{
    raw_row* r = new_raw_row(db, T_PORT_SAMPLE, run_id, err);
    if (!r)
        return TN_ENOMEM;
    r->u.port_sample = *in;
    return row_done(db, 1, err);
}

tn_status
tn_db_add_pfc_event(tn_db* db, int64_t run_id, const tn_db_pfc_event* in, tn_error* err)
{
    row* r = new_row(db, T_PFC_EVENT, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->time_ns);
    put_int(r, in->node);
    put_int(r, in->port);
    put_int(r, in->priority);
    int ok = put_text(r, in->pause ? "pause" : "resume");
    ok &= put_text(r, in->sent ? "sent" : "received");
    return row_done(db, ok, err);
}

tn_status
tn_db_add_drop(tn_db* db, int64_t run_id, const tn_db_drop* in, tn_error* err)
{
    row* r = new_row(db, T_DROP, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->time_ns);
    put_int(r, in->node);
    if (in->port < 0)
        put_null(r);
    else
        put_int(r, in->port);
    if (in->priority < 0)
        put_null(r);
    else
        put_int(r, in->priority);
    int ok = put_text(r, in->where ? in->where : "");
    ok &= put_text(r, in->reason ? in->reason : "");
    put_int(r, in->bytes);
    return row_done(db, ok, err);
}

tn_status
tn_db_add_iteration(tn_db* db, int64_t run_id, const tn_db_iteration* in, tn_error* err)
{
    row* r = new_row(db, T_ITERATION, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->iteration);
    put_int(r, in->node);
    put_int(r, in->start_ns);
    put_int(r, in->end_ns);
    put_int(r, in->compute_ns);
    put_int(r, in->exposed_comm_ns);
    for (int k = 0; k < 5; k++)
    {
        if (in->breakdown)
            put_int(r, in->breakdown_ns[k]);
        else
            put_null(r);
    }
    put_job(r, in->job);
    return row_done(db, 1, err);
}

tn_status
tn_db_add_deadlock_hop(tn_db* db, int64_t run_id, const tn_db_deadlock_hop* in, tn_error* err)
{
    row* r = new_row(db, T_DEADLOCK, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->hop);
    put_int(r, in->detected_ns);
    put_int(r, in->node);
    put_int(r, in->port);
    put_int(r, in->priority);
    put_int(r, in->peer_node);
    put_int(r, in->peer_port);
    put_int(r, in->paused_since_ns);
    put_int(r, (int64_t)in->queue_bytes);
    int ok = 1;
    if (in->flows)
        ok = put_text(r, in->flows);
    else
        put_null(r);
    return row_done(db, ok, err);
}

tn_status
tn_db_add_llm_rank(tn_db* db, int64_t run_id, const tn_db_llm_rank* in, tn_error* err)
{
    row* r = new_row(db, T_LLM_RANK, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->node);
    put_int(r, in->rank);
    put_int(r, in->tp);
    put_int(r, in->ep);
    put_int(r, in->dp);
    put_int(r, in->pp);
    return row_done(db, 1, err);
}

tn_status
tn_db_add_layer(tn_db* db, int64_t run_id, const tn_db_layer* in, tn_error* err)
{
    row* r = new_row(db, T_LAYER, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->iteration);
    put_int(r, in->layer);
    put_int(r, in->node);
    int ok = put_text(r, in->name ? in->name : "");
    ok &= put_text(r, in->phase ? in->phase : "");
    put_int(r, in->start_ns);
    put_int(r, in->end_ns);
    put_int(r, in->compute_ns);
    put_int(r, in->exposed_comm_ns);
    put_job(r, in->job);
    return row_done(db, ok, err);
}

tn_status
tn_db_add_job(tn_db* db, int64_t run_id, const tn_db_job* in, tn_error* err)
{
    row* r = new_row(db, T_JOB, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->job);
    int ok = put_text(r, in->name ? in->name : "");
    ok &= put_text(r, in->npus ? in->npus : "");
    ok &= put_text(r, in->placement ? in->placement : "");
    put_int(r, in->start_ns);
    if (in->alone_run_id > 0)
        put_int(r, in->alone_run_id);
    else
        put_null(r);
    return row_done(db, ok, err);
}

tn_status
tn_db_add_job_port(tn_db* db, int64_t run_id, const tn_db_job_port* in, tn_error* err)
{
    row* r = new_row(db, T_JOB_PORT, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->job);
    put_int(r, in->node);
    put_int(r, in->port);
    if (in->tx_bytes >= 0)
        put_int(r, in->tx_bytes);
    else
        put_null(r);
    return row_done(db, 1, err);
}

/* An integer counter of a row (SQLite's integers are signed: a count never reaches 2^63). */
static void
put_count(row* r, uint64_t v)
{
    put_int(r, (int64_t)v);
}

/* A rate or size that is NULL when negative (none). */
static void
put_real_or_null(row* r, double v)
{
    if (v < 0)
        put_null(r);
    else
        put_real(r, v);
}

static void
put_cc_counts(row* r, const tn_db_cc_counts* c)
{
    put_count(r, c->cnps_sent);
    put_count(r, c->cnps_received);
    put_count(r, c->ce_received);
    put_count(r, c->ecn_echoes);
    put_count(r, c->rate_cuts);
    put_count(r, c->rate_raises);
    put_count(r, c->window_updates);
    put_real_or_null(r, c->min_rate_bps);
}

tn_status
tn_db_add_cc_sample(tn_db* db, int64_t run_id, const tn_db_cc_sample* in, tn_error* err)
{
    row* r = new_row(db, T_CC_SAMPLE, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->time_ns);
    put_int(r, in->interval_ns);
    put_int(r, in->node);
    put_cc_counts(r, &in->counts);
    return row_done(db, 1, err);
}

tn_status
tn_db_add_cc_qp(tn_db* db, int64_t run_id, const tn_db_cc_qp* in, tn_error* err)
{
    row* r = new_row(db, T_CC_QP, err);
    if (!r)
        return TN_ENOMEM;
    put_int(r, run_id);
    put_int(r, in->node);
    put_int(r, in->qpn);
    put_int(r, in->peer_node);
    put_int(r, in->priority);
    put_int(r, in->lane);
    int ok = put_text(r, in->control ? in->control : "");
    put_count(r, in->line_rate_bps);
    put_cc_counts(r, &in->counts);
    put_real_or_null(r, in->final_rate_bps);
    if (in->final_window_bytes < 0)
        put_null(r);
    else
        put_int(r, in->final_window_bytes);
    return row_done(db, ok, err);
}

/* ---- runs -------------------------------------------------------------------------------- */

/*
 * The rows this run left out as a second row of a key (INSERTS: none is written by the
 * recorders): the run is not 'ok', and the error names the table and the count, as keys_build
 * does for a key index built over such rows. Counted again from zero.
 */
static tn_status
keys_report(tn_db* db, tn_error* err)
{
    static const char* const tables[][2] = {{"transfer", TRANSFER_KEY_COLUMNS},
                                            {"flow", FLOW_KEY_COLUMNS}};
    tn_status status = TN_OK;
    for (int k = 0; k < 2; ++k)
    {
        if (db->duplicates[k] && !status)
            status = duplicates_error(db, tables[k][0], db->duplicates[k], tables[k][1], err);
        db->duplicates[k] = 0;
    }
    return status;
}

/* A run begins (or is joined): no duplicate key counted yet; a shared run needs the key
 * indexes to merge its transfer rows on. */
static tn_status
keys_begin(tn_db* db, tn_error* err)
{
    db->duplicates[0] = db->duplicates[1] = 0;
    if (!db->shared_keys)
        return TN_OK;
    tn_status status = keys_build(db, err);
    if (!status && !db->upsert &&
        sqlite3_prepare_v3(db->sql,
                           UPSERT_TRANSFER,
                           -1,
                           SQLITE_PREPARE_PERSISTENT,
                           &db->upsert,
                           NULL) != SQLITE_OK)
        status = sql_error(db, err, "preparing inserts");
    return status;
}

void
tn_db_set_shared_keys(tn_db* db, int on)
{
    join_writer(db);
    db->shared_keys = on != 0;
}

tn_status
tn_db_run_join(tn_db* db, tn_error* err)
{
    join_writer(db);
    return keys_begin(db, err);
}

/* One statement in its own write transaction, retried when the file is locked. */
static tn_status
step_alone(tn_db* db, sqlite3_stmt* stmt, const char* what, tn_error* err)
{
    tn_status status = begin(db, what, err);
    if (status)
        return status;
    if (sqlite3_step(stmt) != SQLITE_DONE)
    {
        status = sql_error(db, err, what);
        rollback(db);
        return status;
    }
    status = exec(db, "COMMIT", what, err);
    if (status)
        rollback(db);
    return status;
}

tn_status
tn_db_run_begin(tn_db* db, const tn_run_info* info, int64_t* run_id, tn_error* err)
{
    join_writer(db);
    sqlite3_stmt* stmt = NULL;
    const char* sql = "INSERT INTO run (name, params_json, seed, run_number, ns3_version,"
                      " module_version, started_at, status)"
                      " VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), 'running')";
    if (sqlite3_prepare_v2(db->sql, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
        return sql_error(db, err, "preparing run insert");
    }
    sqlite3_bind_text(stmt, 1, info->name ? info->name : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 2, info->params_json ? info->params_json : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)info->seed);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)info->run_number);
    sqlite3_bind_text(stmt, 5, info->ns3_version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 6, info->module_version, -1, SQLITE_TRANSIENT);
    tn_status status = step_alone(db, stmt, "inserting run", err);
    if (!status)
        *run_id = sqlite3_last_insert_rowid(db->sql);
    sqlite3_finalize(stmt);
    return status ? status : keys_begin(db, err);
}

tn_status
tn_db_run_set_error(tn_db* db, int64_t run_id, const char* error_text, tn_error* err)
{
    sqlite3_stmt* stmt = NULL;
    if (sqlite3_prepare_v2(db->sql, "UPDATE run SET error = ? WHERE run_id = ?", -1, &stmt, NULL) !=
        SQLITE_OK)
    {
        return sql_error(db, err, "preparing run error update");
    }
    sqlite3_bind_text(stmt, 1, error_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 2, run_id);
    tn_status status = step_alone(db, stmt, "updating run error", err);
    sqlite3_finalize(stmt);
    return status;
}

tn_status
tn_db_run_abandon(tn_db* db,
                  int64_t run_id,
                  const char* status_text,
                  const char* error_text,
                  int* changed,
                  tn_error* err)
{
    sqlite3_stmt* stmt = NULL;
    const char* sql = "UPDATE run SET status = ?, error = ?,"
                      " finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')"
                      " WHERE run_id = ? AND status = 'running'";
    *changed = 0;
    if (sqlite3_prepare_v2(db->sql, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
        return sql_error(db, err, "preparing run update");
    }
    sqlite3_bind_text(stmt, 1, status_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 2, error_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 3, run_id);
    tn_status status = step_alone(db, stmt, "marking run", err);
    if (!status)
        *changed = sqlite3_changes(db->sql);
    sqlite3_finalize(stmt);
    return status;
}

tn_status
tn_db_run_finish(tn_db* db,
                 int64_t run_id,
                 const char* status_text,
                 double wall_seconds,
                 uint64_t simulated_ns,
                 tn_error* err)
{
    tn_status flushed = tn_db_flush(db, err);
    if (!flushed)
        flushed = keys_build(db, err); /* two rows of one key: the run is not 'ok' */
    if (!flushed)
        flushed = keys_report(db, err);
    tn_error flush_err = *err;
    if (flushed)
        status_text = "error"; /* rows were lost: the run cannot be 'ok' */
    sqlite3_stmt* stmt = NULL;
    const char* sql = "UPDATE run SET status = ?, wall_seconds = ?, simulated_ns = ?,"
                      " finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE run_id = ?";
    if (sqlite3_prepare_v2(db->sql, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
        return sql_error(db, err, "preparing run update");
    }
    sqlite3_bind_text(stmt, 1, status_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(stmt, 2, wall_seconds);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)simulated_ns);
    sqlite3_bind_int64(stmt, 4, run_id);
    tn_status status = step_alone(db, stmt, "updating run", err);
    if (!status && sqlite3_changes(db->sql) != 1)
        status = tn_error_set(err,
                              TN_EINVAL,
                              "%s: no run with run_id %lld",
                              db->path,
                              (long long)run_id);
    sqlite3_finalize(stmt);
    if (flushed)
    {
        *err = flush_err;
        return flushed;
    }
    return status;
}
