/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-db: the results database (SQLite), written by the C core.
 *
 * Contract: tn_db_open() opens or creates a database file, creates the schema
 * when missing (schema_version, run) and refuses a file whose schema_version
 * is newer than this code knows. One database holds many runs; every row of
 * a run carries its run_id. tn_db_run_begin() records a run as 'running' and
 * returns its id; tn_db_run_finish() sets its final status ('ok', 'aborted',
 * 'error'), wall time and simulated time. Each call is one transaction, so a
 * crash loses nothing already recorded. The tn_db is owned by the caller and
 * released by tn_db_close(); it is not thread-safe.
 *
 * The schema is documented in doc/training-net.rst (Output).
 */
#ifndef TN_DB_H
#define TN_DB_H

#include "tn-error.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** Schema version written by this code. */
#define TN_DB_SCHEMA_VERSION 1

    typedef struct tn_db tn_db;

    /** What a run records about itself when it starts. */
    typedef struct tn_run_info
    {
        const char* name;           /**< scenario or program name */
        const char* params_json;    /**< parameters as a JSON object ("{}" if none) */
        uint64_t seed;              /**< RngSeedManager seed */
        uint64_t run_number;        /**< RngSeedManager run number */
        const char* ns3_version;    /**< e.g. "3.37" */
        const char* module_version; /**< training-net VERSION */
    } tn_run_info;

    tn_status tn_db_open(const char* path, tn_db** db, tn_error* err);
    void tn_db_close(tn_db* db);

    tn_status tn_db_run_begin(tn_db* db, const tn_run_info* info, int64_t* run_id, tn_error* err);
    tn_status tn_db_run_finish(tn_db* db,
                               int64_t run_id,
                               const char* status,
                               double wall_seconds,
                               uint64_t simulated_ns,
                               tn_error* err);

    /** The open sqlite3 handle, for writers of later tables (typed void* to keep sqlite3.h out). */
    void* tn_db_handle(tn_db* db);

#ifdef __cplusplus
}
#endif

#endif /* TN_DB_H */
