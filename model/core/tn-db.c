/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tn_db
{
    sqlite3* sql;
    char* path;
};

static const char* const SCHEMA =
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
    " status TEXT NOT NULL CHECK (status IN ('running','ok','aborted','error')),"
    " wall_seconds REAL,"
    " simulated_ns INTEGER);";

static tn_status
sql_error(tn_db* db, tn_error* err, const char* what)
{
    return tn_error_set(err, TN_EDB, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->sql));
}

static tn_status
exec(tn_db* db, const char* sql, const char* what, tn_error* err)
{
    if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
    {
        return sql_error(db, err, what);
    }
    return TN_OK;
}

static tn_status
check_schema_version(tn_db* db, tn_error* err)
{
    sqlite3_stmt* stmt = NULL;
    if (sqlite3_prepare_v2(db->sql, "SELECT max(version) FROM schema_version", -1, &stmt, NULL) !=
        SQLITE_OK)
    {
        return sql_error(db, err, "reading schema_version");
    }
    tn_status status = TN_OK;
    if (sqlite3_step(stmt) == SQLITE_ROW)
    {
        if (sqlite3_column_type(stmt, 0) == SQLITE_NULL)
        {
            sqlite3_finalize(stmt);
            char insert[96];
            snprintf(insert,
                     sizeof(insert),
                     "INSERT INTO schema_version VALUES (%d)",
                     TN_DB_SCHEMA_VERSION);
            return exec(db, insert, "writing schema_version", err);
        }
        int version = sqlite3_column_int(stmt, 0);
        if (version > TN_DB_SCHEMA_VERSION)
        {
            status = tn_error_set(err,
                                  TN_EDB,
                                  "%s: schema_version %d is newer than this training-net (%d)",
                                  db->path,
                                  version,
                                  TN_DB_SCHEMA_VERSION);
        }
    }
    sqlite3_finalize(stmt);
    return status;
}

tn_status
tn_db_open(const char* path, tn_db** out, tn_error* err)
{
    *out = NULL;
    tn_db* db = calloc(1, sizeof(*db));
    if (!db || !(db->path = malloc(strlen(path) + 1)))
    {
        free(db);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", path);
    }
    strcpy(db->path, path);
    if (sqlite3_open(path, &db->sql) != SQLITE_OK)
    {
        tn_status status = sql_error(db, err, "cannot open");
        tn_db_close(db);
        return status;
    }
    sqlite3_busy_timeout(db->sql, 10000);
    tn_status status = exec(db, "PRAGMA journal_mode=WAL", "enabling WAL", err);
    if (!status)
        status = exec(db, "BEGIN IMMEDIATE", "starting schema transaction", err);
    if (!status)
    {
        status = exec(db, SCHEMA, "creating schema", err);
        if (!status)
            status = check_schema_version(db, err);
        if (!status)
            status = exec(db, "COMMIT", "committing schema", err);
        else
            sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    }
    if (status)
    {
        tn_db_close(db);
        return status;
    }
    *out = db;
    return TN_OK;
}

void
tn_db_close(tn_db* db)
{
    if (db)
    {
        sqlite3_close(db->sql);
        free(db->path);
        free(db);
    }
}

void*
tn_db_handle(tn_db* db)
{
    return db->sql;
}

tn_status
tn_db_run_begin(tn_db* db, const tn_run_info* info, int64_t* run_id, tn_error* err)
{
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
    tn_status status = TN_OK;
    if (sqlite3_step(stmt) != SQLITE_DONE)
        status = sql_error(db, err, "inserting run");
    else
        *run_id = sqlite3_last_insert_rowid(db->sql);
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
    tn_status status = TN_OK;
    if (sqlite3_step(stmt) != SQLITE_DONE)
        status = sql_error(db, err, "updating run");
    else if (sqlite3_changes(db->sql) != 1)
        status = tn_error_set(err,
                              TN_EINVAL,
                              "%s: no run with run_id %lld",
                              db->path,
                              (long long)run_id);
    sqlite3_finalize(stmt);
    return status;
}
