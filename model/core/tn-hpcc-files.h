/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-hpcc-files: readers of the input files of the HPCC family of ns-3 simulators (HPCC,
 * SimAI): topology files with either header, flow files and `KEY value...` config files.
 *
 * Contract:
 *  - Topology file: the core's HPCC-style format (tn_topology_load_file) with either header,
 *    `N_nodes N_switches N_links` or `N_nodes N_switches N_ToRs N_links` (the first N_ToRs
 *    switch ids are the top-of-rack switches; the count is checked, N_ToRs <= N_switches,
 *    and returned; routing does not need it).
 *  - Flow file: the first non-blank line holds the number of flows, then one line per flow
 *    `src dst priority dst_port size_bytes start_seconds`; blank lines are skipped. src and
 *    dst are NPU node ids of the topology, different; priority 0..7, dst_port 0..65535,
 *    size_bytes 0..TN_BYTES_MAX, start_seconds a real in [0, 1e6] (rounded to whole ns).
 *  - Config file: one `KEY value...` per line; blank lines and lines whose first field
 *    starts with '#' are skipped; a key given twice is an error. What the keys mean is the
 *    caller's (the RoCE model maps them to attributes).
 *  - HPCC reads only the links and flows its headers announce. With ignore_trailing the
 *    non-blank lines after them are skipped and described in *trailing; without it they are
 *    an error. trailing->first_line == 0 means none were skipped.
 *  - Every error is TN_EIO (cannot open, read error) or TN_EPARSE with "file:line: what"
 *    (config files: "file:line: KEY: what"), one line. Nothing is returned on failure.
 *  - Numbers are read as tn-text reads them (C locale, the whole field, no silent
 *    overflow); leading zeros are allowed, as HPCC's scanf reads them.
 *  - Every load has its destroy; destroy(NULL) does nothing. No globals, no state.
 */
#ifndef TN_HPCC_FILES_H
#define TN_HPCC_FILES_H

#include "tn-error.h"
#include "tn-topology.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** Lines after the announced count that were skipped (first_line 0 = none). */
    typedef struct tn_hpcc_trailing
    {
        uint32_t first_line; /**< first skipped non-blank line (1-based) */
        uint32_t last_line;  /**< last line of the file */
        uint64_t announced;  /**< the count the header announced */
    } tn_hpcc_trailing;

    /** One flow of a flow file. */
    typedef struct tn_hpcc_flow
    {
        uint32_t src;      /**< source NPU node id */
        uint32_t dst;      /**< destination NPU node id */
        uint8_t priority;  /**< traffic class 0..7 */
        uint16_t dport;    /**< destination port as written (reported, not used) */
        uint64_t bytes;    /**< size */
        uint64_t start_ns; /**< start time */
        uint32_t line;     /**< its line in the file */
    } tn_hpcc_flow;

    /** The flows of a flow file. */
    typedef struct tn_hpcc_flows
    {
        size_t count;              /**< number of flows (= the announced count) */
        tn_hpcc_flow* flow;        /**< count flows in file order */
        tn_hpcc_trailing trailing; /**< lines skipped after them */
    } tn_hpcc_flows;

    /** Read a flow file against topo (node range and kinds). */
    tn_status tn_hpcc_flows_load(const char* path,
                                 const tn_topology* topo,
                                 int ignore_trailing,
                                 tn_hpcc_flows** out,
                                 tn_error* err);

    /** Same from text in memory; name is used in messages. */
    tn_status tn_hpcc_flows_load_text(const char* text,
                                      const char* name,
                                      const tn_topology* topo,
                                      int ignore_trailing,
                                      tn_hpcc_flows** out,
                                      tn_error* err);

    /** Free what tn_hpcc_flows_load returned. */
    void tn_hpcc_flows_destroy(tn_hpcc_flows* flows);

    /**
     * Load a topology file with either header. *tor_count is N_ToRs of a 4-number header,
     * 0 for a 3-number one. Errors of the body are the core's (same lines as the file).
     */
    tn_status tn_hpcc_topology_load(const char* path,
                                    int ignore_trailing,
                                    tn_topology** out,
                                    uint32_t* tor_count,
                                    tn_hpcc_trailing* trailing,
                                    tn_error* err);

    /** Same from text in memory; name is used in messages and as the topology's name. */
    tn_status tn_hpcc_topology_load_text(const char* text,
                                         const char* name,
                                         int ignore_trailing,
                                         tn_topology** out,
                                         uint32_t* tor_count,
                                         tn_hpcc_trailing* trailing,
                                         tn_error* err);

    /** One line of a config file. */
    typedef struct tn_hpcc_entry
    {
        const char* key;           /**< first field */
        const char* const* values; /**< the fields after it */
        size_t value_count;        /**< how many */
        uint32_t line;             /**< its line */
    } tn_hpcc_entry;

    /** The entries of a config file, in file order. */
    typedef struct tn_hpcc_config
    {
        size_t count;         /**< number of entries */
        tn_hpcc_entry* entry; /**< the entries */
        char* storage;        /**< the fields' text (owned) */
        const char** fields;  /**< the value pointers (owned) */
    } tn_hpcc_config;

    /** Read a config file; a key on two lines is "file:line: KEY: given twice (first on line N)".
     */
    tn_status tn_hpcc_config_load(const char* path, tn_hpcc_config** out, tn_error* err);

    /** Same from text in memory; name is used in messages. */
    tn_status tn_hpcc_config_load_text(const char* text,
                                       const char* name,
                                       tn_hpcc_config** out,
                                       tn_error* err);

    /** Free what tn_hpcc_config_load returned. */
    void tn_hpcc_config_destroy(tn_hpcc_config* config);

    /** A field of these files as an unsigned integer <= max (leading zeros allowed); 1 if so. */
    int tn_hpcc_parse_uint(const char* field, uint64_t max, uint64_t* out);

    /** A field as a finite real in [lo, hi] (tn-text's grammar: no hex, inf or nan); 1 if so. */
    int tn_hpcc_parse_real(const char* field, double lo, double hi, double* out);

#ifdef __cplusplus
}
#endif

#endif /* TN_HPCC_FILES_H */
