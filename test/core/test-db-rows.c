/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The rows the results database buffers as their caller's struct (transfer, flow, port_sample:
 * their values are put by the writer) between rows buffered as values (node, collective):
 * every column reads back as the struct gave it, NULLs included, in the order the rows were
 * added, over many batches written by the writer thread.
 */
#include "tn-test-db.h"
#include "tn-test.h"

#include "ns3/tn-db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

enum
{
    ROWS = 50 /* of each table: batches of 7 rows cut the kinds at every place */
};

static void
test_struct_rows_between_value_rows(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err = {0};
    tn_db* db = tn_test_db_open_fresh(ctx, "tn-test-rows.db", path, sizeof(path));
    TN_REQUIRE(ctx, db != NULL);
    tn_run_info info = {"rows", "{}", 1, 1, "3.37", "x"};
    int64_t run = 0;
    TN_REQUIRE(ctx, tn_db_run_begin(db, &info, &run, &err) == TN_OK);
    tn_db_set_batch_rows(db, 7);
    tn_db_set_writer_thread(db, 1);
    long long bytes = 0, fct = 0, queued = 0, ideal_rows = 0, job_rows = 0, ready_rows = 0;
    double slowdown = 0, utilisation = 0;
    for (int i = 0; i < ROWS; ++i)
    {
        tn_db_node node = {(uint32_t)i, i % 2 ? "npu" : "switch", i % 2 ? i : -1, 4};
        TN_CHECK(ctx, tn_db_add_node(db, run, &node, &err) == TN_OK);
        tn_db_transfer t = {1,
                            (uint32_t)i,
                            0,
                            (uint32_t)i,
                            -1,
                            0,
                            1,
                            (uint32_t)i,
                            100,
                            (uint64_t)(1000 + i),
                            i % 2,
                            0,
                            10 * i,
                            10 * i + 1,
                            10 * i + 2,
                            i % 3 ? 10 * i + 3 : -1,    /* not ready: NULL */
                            (uint32_t)(i % 2 ? 3 : 0)}; /* 0: NULL */
        bytes += 1000 + i;
        ready_rows += i % 3 != 0;
        job_rows += i % 2;
        TN_CHECK(ctx, tn_db_add_transfer(db, run, &t, &err) == TN_OK);
        tn_db_flow f = {(uint32_t)i,
                        (uint64_t)(7 * i),
                        100,
                        1,
                        3,
                        49152,
                        0,
                        4096,
                        100,
                        100 + 50 * i + 10,
                        i % 4 ? 25 * i + 5 : 0, /* 0: ideal and slowdown NULL */
                        0,
                        i % 5 ? 1 : -1};
        fct += 50 * i + 10;
        if (i % 4)
        {
            ++ideal_rows;
            slowdown += (double)(50 * i + 10) / (double)(25 * i + 5);
        }
        TN_CHECK(ctx, tn_db_add_flow(db, run, &f, &err) == TN_OK);
        tn_db_port_sample s;
        memset(&s, 0, sizeof(s));
        s.time_ns = 1000 * (i + 1);
        s.interval_ns = 1000;
        s.node = (uint32_t)i;
        s.utilisation = 1.0 / (i + 1);
        utilisation += s.utilisation;
        for (int q = 0; q <= TN_DB_PRIORITIES; ++q)
            s.queue_bytes[q] = (uint64_t)(q * ROWS + i);
        queued += (long long)(TN_DB_PRIORITIES * ROWS + i); /* qctl_bytes */
        TN_CHECK(ctx, tn_db_add_port_sample(db, run, &s, &err) == TN_OK);
    }
    TN_CHECK(ctx, tn_db_run_finish(db, run, "ok", 0.1, 1000, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_db_rows_written(db), 4 * ROWS);
    sqlite3* sql = tn_db_handle(db);
    for (const char* const* table =
             (const char* const[]){"node", "transfer", "flow", "port_sample", NULL};
         *table;
         ++table)
    {
        char query[128];
        snprintf(query, sizeof(query), "SELECT count(*) FROM %s WHERE run_id = 1", *table);
        TN_CHECK_MSG(ctx, tn_test_db_query_int(sql, query) == ROWS, "%s rows", *table);
    }
    /* in the order added: each table's i-th row is row i */
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM node WHERE rowid != node_id + 1"),
                0);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM transfer WHERE rowid != transfer_id + 1"
                                     " OR step != transfer_id OR src_node != transfer_id"),
                0);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM flow WHERE rowid != src_node + 1"
                                     " OR message_id != 7 * src_node"),
                0);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM port_sample WHERE rowid != node_id + 1"
                                     " OR time_ns != 1000 * (node_id + 1)"),
                0);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(*) FROM node WHERE kind = 'npu'"),
                ROWS / 2);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT sum(bytes) FROM transfer"), bytes);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(ready_ns) FROM transfer"), ready_rows);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(job_id) FROM transfer"), job_rows);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM transfer WHERE dim != -1"
                                     " OR last_byte_ns != 10 * transfer_id + 2"),
                0);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT sum(fct_ns) FROM flow"), fct);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(slowdown) FROM flow"), ideal_rows);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT count(ideal_fct_ns) FROM flow"), ideal_rows);
    TN_CHECK_NEAR(ctx,
                  tn_test_db_query_real(sql, "SELECT sum(slowdown) FROM flow"),
                  slowdown,
                  1e-9);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql, "SELECT count(collective_id) FROM flow"),
                ROWS - ROWS / 5);
    TN_CHECK_EQ(ctx, tn_test_db_query_int(sql, "SELECT sum(qctl_bytes) FROM port_sample"), queued);
    TN_CHECK_EQ(ctx,
                tn_test_db_query_int(sql,
                                     "SELECT count(*) FROM port_sample WHERE q3_bytes !="
                                     " 3 * 50 + node_id"),
                0);
    TN_CHECK_NEAR(ctx,
                  tn_test_db_query_real(sql, "SELECT sum(utilisation) FROM port_sample"),
                  utilisation,
                  1e-12);
    tn_db_close(db);
}

void
tn_suite_db_rows(tn_test_suite* suite)
{
    tn_test_add(suite, "struct-rows-between-value-rows", test_struct_rows_between_value_rows);
}
