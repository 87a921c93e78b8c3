/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-astra: ASTRA-sim 2's input files read as they are: the analytical network YAML and the
 * flat JSON files (system, comm-group, remote memory). What each key becomes in training-net
 * is decided by the program that runs them (examples/astra-sim-compat.cc); this reader only
 * checks the grammar and the values, so an error names the file, the line and the key.
 * doc/astra-sim-migration.rst is the migration page.
 *
 * Network YAML (the subset ASTRA-sim's examples use): one `key: value` per line, '#' starts a
 * comment, blank lines are skipped, '\r' is ignored. A value is a flow list `[a, b, c]` (one
 * item per dimension) or a single item (one dimension). The keys, each exactly once:
 *   topology    Ring, FullyConnected or Switch per dimension
 *   npus_count  NPUs per dimension, >= 2
 *   bandwidth   GB/s (10^9 bytes per second) per dimension, > 0
 *   latency     ns per dimension, >= 0
 * All four lists have the same length, 1 .. TN_ASTRA_MAX_DIMS. Any other key, a missing key,
 * a bad item: one TN_EPARSE error "net.yml:3: bandwidth: ...".
 *
 * Flat JSON: one object whose values are strings, numbers, true/false or lists of those (no
 * nested objects, no string escapes: ASTRA-sim's files hold none). A key given twice is
 * refused. Each entry keeps its line (the key's) for the messages of the caller. The entries'
 * spans point into the text, which must outlive the tn_astra_json.
 *
 * Nothing here keeps state or reads globals; tn_astra_json_parse allocates (free it with
 * tn_astra_json_destroy).
 */
#ifndef TN_ASTRA_H
#define TN_ASTRA_H

#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** Dimensions of a network YAML (ASTRA-sim's analytical back end has no set limit). */
#define TN_ASTRA_MAX_DIMS 8

    /** The kind of one dimension. */
    typedef enum tn_astra_kind
    {
        TN_ASTRA_RING,
        TN_ASTRA_FULLY_CONNECTED,
        TN_ASTRA_SWITCH
    } tn_astra_kind;

    /** One dimension of the network. */
    typedef struct tn_astra_dim
    {
        tn_astra_kind kind;
        uint32_t npus;
        double bandwidth_gbs; /**< GB/s, 10^9 bytes per second */
        double latency_ns;
    } tn_astra_dim;

    /** A network YAML. */
    typedef struct tn_astra_network
    {
        uint32_t dims;
        tn_astra_dim dim[TN_ASTRA_MAX_DIMS];
    } tn_astra_network;

    /** Parse a network YAML's text; `path` names it in errors. */
    tn_status tn_astra_network_parse(const char* text,
                                     size_t len,
                                     const char* path,
                                     tn_astra_network* out,
                                     tn_error* err);

    /** Read and parse a network YAML file. */
    tn_status tn_astra_network_read(const char* path, tn_astra_network* out, tn_error* err);

    /**
     * The hier topology spec of the network (tn_topology_from_spec): one dimension per
     * dimension, ring / fc / switch. ASTRA-sim's bandwidth is per link and direction; hier's
     * rate is the NPU's in the dimension, its cables' sum: 2 x bandwidth on a ring (1 x on a
     * ring of 2 NPUs), (npus - 1) x on fc, 1 x on a switch. In bps (a link's rounded to the
     * bit per second), the latency rounded to the ns (the spec's units; ASTRA-sim's examples
     * give whole ns but for HGX-H100's 936.25). TN_EINVAL if it does not fit in size.
     */
    tn_status tn_astra_network_spec(const tn_astra_network* net,
                                    char* buf,
                                    size_t size,
                                    tn_error* err);

    /** The kind of a JSON value. */
    typedef enum tn_astra_json_kind
    {
        TN_ASTRA_JSON_STRING,
        TN_ASTRA_JSON_NUMBER,
        TN_ASTRA_JSON_BOOL
    } tn_astra_json_kind;

    /** Text inside the parsed text: [s, s + n), not NUL-terminated. */
    typedef struct tn_astra_text
    {
        const char* s;
        size_t n;
    } tn_astra_text;

    /** One value (a string without its quotes, a number's text, true or false). */
    typedef struct tn_astra_json_value
    {
        tn_astra_json_kind kind;
        tn_astra_text text;
    } tn_astra_json_value;

    /** One key of the object: a value, or a list of values (is_list). */
    typedef struct tn_astra_json_entry
    {
        tn_astra_text key;
        unsigned line;
        int is_list;
        uint32_t count; /**< values (1 unless is_list) */
        tn_astra_json_value* values;
    } tn_astra_json_entry;

    /** A flat JSON object. */
    typedef struct tn_astra_json
    {
        uint32_t count;
        tn_astra_json_entry* entries;
    } tn_astra_json;

    /**
     * Parse a flat JSON object; `path` names it in errors ("sys.json:4: ..."). On failure
     * *out is empty.
     */
    tn_status tn_astra_json_parse(const char* text,
                                  size_t len,
                                  const char* path,
                                  tn_astra_json* out,
                                  tn_error* err);

    /** 1 if t holds exactly the characters of the NUL-terminated lit. */
    int tn_astra_text_eq(tn_astra_text t, const char* lit);

    /** Free what tn_astra_json_parse allocated (not the text); NULL-safe. */
    void tn_astra_json_destroy(tn_astra_json* json);

#ifdef __cplusplus
}
#endif

#endif /* TN_ASTRA_H */
