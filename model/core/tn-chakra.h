/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra: Chakra execution traces (the format ASTRA-sim 2.x reads) as workloads: a reader
 * with its checks, a writer, and a converter from ASTRA-sim 1.0 text workloads (tn-workload.h).
 * doc/core-workload.rst lists the subset supported.
 *
 * Format
 * ------
 * One file per rank (ASTRA-sim's prefix.<rank>.et): a GlobalMetadata message, then Node
 * messages, each message preceded by its length as a base-128 varint. The schema is
 * model/core/chakra/tn-chakra.proto (Chakra's field numbers and types). A node:
 *   id, name, type, data_deps and ctrl_deps (ids of nodes of the same file), duration_micros,
 *   attributes (AttributeProto, any integer value type for the integers below):
 *   COMP_NODE       num_ops (cycles at OpsPerCycle of the runner; absent: duration_micros is
 *                   the time, at most TN_CHAKRA_MAX_DURATION_MICROS), tensor_size (bytes of
 *                   memory the kernel moves; roofline)
 *   MEM_LOAD_NODE,  tensor_size: bytes moved at the NPU's memory bandwidth
 *   MEM_STORE_NODE
 *   COMM_COLL_NODE  comm_type (CollectiveCommType: ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST,
 *                   ALL_TO_ALL, REDUCE_SCATTER), comm_size (bytes), comm_group (a list of
 *                   ranks: the collective's group; absent: all ranks; root of REDUCE and
 *                   BROADCAST: the group's first rank)
 *   COMM_SEND_NODE  comm_dst, comm_size, comm_tag (absent: 0); comm_src is the file's rank
 *   COMM_RECV_NODE  comm_src, comm_size, comm_tag (absent: 0); comm_dst is the file's rank
 *   SEND, RECV of a custom collective (ASTRA-sim's Collective API, chakra's msccl converter;
 *                   tn-algorithm.h's custom): msg_chunk_idx, msg_chunk_cnt and total_chunk_cnt
 *                   (all three or none; then comm_size may be absent), is_rrc (a receive that
 *                   reduces; bool)
 * Other attributes (is_cpu_op, ...) and fields are ignored.
 *
 * Errors: every refusal is ONE error naming the file, the node id (or the message's byte
 * offset when the node cannot be decoded) and the reason: "r.0.et: node 7: data dependency 99
 * names no node". Refused: a truncated file (length prefix or message), a message that does
 * not decode (a known field with another wire type), no GlobalMetadata, an unknown node type
 * or one outside the subset (STORAGE_NODE, ...), an unsupported comm_type, a missing
 * attribute, a negative or too large integer, a duplicate node id, a dependency naming no
 * node, a dependency cycle; and, across the files of a job (tn_chakra_check), a peer or group
 * rank out of range, a group without the rank, sends and receives that do not pair, and the
 * k-th collectives of a group that differ in type or size at its members.
 *
 * Matching across ranks (tn_chakra_check, node.match): the k-th COMM_COLL_NODE of a group
 * (file order) at each member is one collective; the k-th COMM_SEND_NODE from s to d with tag
 * t at s and the k-th COMM_RECV_NODE from s with tag t at d are one transfer.
 *
 * Built without protobuf-c (TN_CHAKRA undefined), tn_chakra_supported() is 0 and reading or
 * writing a trace fails with TN_EUNSUPPORTED and a message saying what to install.
 *
 * Ownership: the caller owns a trace (tn_chakra_destroy); pointers from the accessors stay
 * valid until then. Memory is O(file size); no fixed limits, no global state.
 */
#ifndef TN_CHAKRA_H
#define TN_CHAKRA_H

#include "tn-error.h"
#include "tn-schedule.h"
#include "tn-units.h"
#include "tn-workload.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** duration_micros of a COMP_NODE without num_ops, at most: one second, a text workload's
    TN_WORKLOAD_MAX_CYCLES at 1 GHz. (num_ops is capped where OpsPerCycle is known: a kernel's
    cycles, ChakraRunner, at most TN_WORKLOAD_MAX_CYCLES.) */
#define TN_CHAKRA_MAX_DURATION_MICROS (TN_WORKLOAD_MAX_CYCLES / 1000)

    /** Chakra NodeType values (tn-chakra.proto). */
    enum
    {
        TN_CHAKRA_MEM_LOAD_NODE = 2,
        TN_CHAKRA_MEM_STORE_NODE = 3,
        TN_CHAKRA_COMP_NODE = 4,
        TN_CHAKRA_COMM_SEND_NODE = 5,
        TN_CHAKRA_COMM_RECV_NODE = 6,
        TN_CHAKRA_COMM_COLL_NODE = 7
    };

    /** What a node does. */
    typedef enum tn_chakra_kind
    {
        TN_CHAKRA_COMPUTE = 0, /**< COMP_NODE */
        TN_CHAKRA_MEMORY,      /**< MEM_LOAD_NODE, MEM_STORE_NODE */
        TN_CHAKRA_SEND,        /**< COMM_SEND_NODE */
        TN_CHAKRA_RECV,        /**< COMM_RECV_NODE */
        TN_CHAKRA_COLLECTIVE   /**< COMM_COLL_NODE */
    } tn_chakra_kind;

    /**
     * The parallelism a node serves, for the breakdown of an iteration: set by generated
     * programs (tn-llm.h); a trace read from a file serves none.
     */
    typedef enum tn_chakra_serves
    {
        TN_SERVES_NONE = 0,
        TN_SERVES_TP,
        TN_SERVES_PP,
        TN_SERVES_DP,
        TN_SERVES_EP,
        TN_SERVES_COUNT /**< number of values (not a value) */
    } tn_chakra_serves;

    /** "", "tp", "pp", "dp", "ep"; "?" if invalid. */
    const char* tn_chakra_serves_name(uint32_t serves);

    /** One node as read. */
    typedef struct tn_chakra_node
    {
        uint64_t id;
        const char* name;
        uint32_t type; /**< Chakra NodeType */
        tn_chakra_kind kind;
        int has_num_ops;          /**< num_ops was given */
        uint64_t num_ops;         /**< COMPUTE */
        uint64_t tensor_size;     /**< COMPUTE, MEMORY: bytes of memory */
        uint64_t duration_micros; /**< the node's duration_micros */
        tn_collective collective; /**< COLLECTIVE */
        uint64_t comm_bytes;      /**< SEND, RECV, COLLECTIVE: comm_size */
        uint32_t peer;            /**< SEND: comm_dst; RECV: comm_src */
        uint64_t tag;             /**< SEND, RECV: comm_tag */
        const uint32_t* group;    /**< COLLECTIVE: its ranks, ascending (NULL: all ranks) */
        uint32_t group_count;     /**< 0: all ranks */
        const uint32_t* deps;     /**< indexes of the nodes it waits for: data, then ctrl */
        uint32_t dep_count;
        uint32_t data_dep_count; /**< deps[0..data_dep_count) are data dependencies */
        uint32_t match;          /**< SEND, RECV, COLLECTIVE: k of the contract (tn_chakra_check) */
        /** SEND, RECV of a custom collective: the message is chunks [chunk_index, chunk_index +
         *  chunk_count) of the collective's chunk_total; chunk_total 0: not given */
        uint32_t chunk_index;
        uint32_t chunk_count;
        uint32_t chunk_total;
        int reduces;     /**< RECV: is_rrc (the receiver adds the message in) */
        uint32_t serves; /**< tn_chakra_serves */
        /** Generated programs: 1 + the schedule step (a forward or backward of a micro-batch)
         *  a kernel belongs to; 0: none (traces read from files) */
        uint32_t step;
    } tn_chakra_node;

    typedef struct tn_chakra_trace tn_chakra_trace;

    /** 1 when built with protobuf-c (traces can be read and written), else 0. */
    int tn_chakra_supported(void);

    /**
     * Parse len bytes of one rank's trace; `name` (NULL: "<trace>") names it in messages.
     * Nodes keep the file's order; dependencies are resolved and acyclic. On failure *out is
     * NULL.
     */
    tn_status tn_chakra_parse(const uint8_t* data,
                              size_t len,
                              const char* name,
                              tn_chakra_trace** out,
                              tn_error* err);

    /** Read and parse a file; messages name it by `path`. */
    tn_status tn_chakra_load_file(const char* path, tn_chakra_trace** out, tn_error* err);

    /**
     * Communicator groups by name, as ASTRA-sim's comm-group file gives them ({"1": [0, 1]}):
     * a COLL_COMM_NODE without comm_group whose pg_name is names[i] is a collective of
     * ranks[i] (sizes[i] ranks, any order, no duplicate: checked here). pg_name "" and "0"
     * are all ranks, as in ASTRA-sim. The caller keeps the table while it parses.
     */
    typedef struct tn_chakra_groups
    {
        uint32_t count;
        const char* const* names;
        const uint32_t* const* ranks;
        const uint32_t* sizes;
    } tn_chakra_groups;

    /**
     * tn_chakra_parse resolving pg_name through `groups` (NULL: a node with pg_name and no
     * comm_group is refused, as tn_chakra_parse does). A pg_name not in the table, or not a
     * string, is refused with the node and the name.
     */
    tn_status tn_chakra_parse_groups(const uint8_t* data,
                                     size_t len,
                                     const char* name,
                                     const tn_chakra_groups* groups,
                                     tn_chakra_trace** out,
                                     tn_error* err);

    /** tn_chakra_load_file with tn_chakra_parse_groups's table. */
    tn_status tn_chakra_load_file_groups(const char* path,
                                         const tn_chakra_groups* groups,
                                         tn_chakra_trace** out,
                                         tn_error* err);

    /** The index of the group named `name` in groups, -1 if none (or groups is NULL). */
    int64_t tn_chakra_groups_find(const tn_chakra_groups* groups, const char* name);

    /**
     * An empty trace to fill with tn_chakra_add (generated programs, tn-llm.h): works
     * without protobuf-c. `name` names it in messages.
     */
    tn_status tn_chakra_create(const char* name, tn_chakra_trace** out, tn_error* err);

    /**
     * Append a copy of `node` (its name and group copied; its deps are indexes of nodes
     * already added, so the graph stays acyclic; data_dep_count of them are data
     * dependencies). Its id is its index. TN_EINVAL for a dependency not below the count.
     */
    tn_status tn_chakra_add(tn_chakra_trace* trace, const tn_chakra_node* node, tn_error* err);

    /** Free a trace; NULL is ignored. */
    void tn_chakra_destroy(tn_chakra_trace* trace);

    const char* tn_chakra_name(const tn_chakra_trace* trace);

    /** GlobalMetadata's version ("" if absent). */
    const char* tn_chakra_version(const tn_chakra_trace* trace);

    uint32_t tn_chakra_node_count(const tn_chakra_trace* trace);

    /** Node i (< count; asserts). */
    const tn_chakra_node* tn_chakra_node_at(const tn_chakra_trace* trace, uint32_t i);

    /**
     * Check the traces of ranks 0..ranks-1 together (traces[r] is rank r's) and set each
     * communication node's match (see the contract). TN_EINVAL naming the file and node.
     */
    tn_status tn_chakra_check(tn_chakra_trace* const* traces, uint32_t ranks, tn_error* err);

    /**
     * tn_chakra_check where traces[r] may be NULL for r > 0: rank r is absent (a symmetric
     * run's translate, simulated by its representative). Nodes of the present ranks are
     * checked and numbered as by tn_chakra_check; a transfer to or from an absent rank and a
     * collective of a group with an absent rank are not matched across ranks.
     */
    tn_status tn_chakra_check_present(tn_chakra_trace* const* traces,
                                      uint32_t ranks,
                                      tn_error* err);

    /**
     * Whether trace b is trace a with every rank it names (a peer, a group member) x moved to
     * image[x] (image has `ranks` entries): the same nodes in the same order, with equal kind,
     * type, FLOPs, tensor size, duration, communication type, bytes and tag, dependencies,
     * parallelism served and step. TN_OK if so; TN_EINVAL naming b's first node that differs
     * and the field, its index in *differs (when differs is not NULL). A node count that
     * differs leaves *differs as it was.
     */
    tn_status tn_chakra_compare_translate(const tn_chakra_trace* a,
                                          const tn_chakra_trace* b,
                                          const uint32_t* image,
                                          uint32_t ranks,
                                          uint32_t* differs,
                                          tn_error* err);

    /** A node to write: ids of dependencies, attributes by value (unused ones ignored). */
    typedef struct tn_chakra_node_spec
    {
        uint64_t id;
        const char* name;
        uint32_t type; /**< Chakra NodeType (written as given, even if unknown) */
        const uint64_t* data_deps;
        uint32_t data_dep_count;
        const uint64_t* ctrl_deps;
        uint32_t ctrl_dep_count;
        uint64_t duration_micros;
        int has_num_ops;
        uint64_t num_ops;
        uint64_t tensor_size;  /**< written when not 0 */
        uint32_t comm_type;    /**< CollectiveCommType (COLL) */
        uint64_t comm_size;    /**< SEND, RECV, COLL */
        uint32_t comm_src;     /**< RECV (and SEND) */
        uint32_t comm_dst;     /**< SEND (and RECV) */
        uint64_t comm_tag;     /**< SEND, RECV */
        const uint32_t* group; /**< COLL: comm_group (NULL: not written) */
        uint32_t group_count;
        /** SEND, RECV: msg_chunk_idx, msg_chunk_cnt, total_chunk_cnt (written when chunk_total
         *  is not 0, then comm_size only when not 0) and is_rrc (written when reduces) */
        uint32_t chunk_index;
        uint32_t chunk_count;
        uint32_t chunk_total;
        int reduces;
    } tn_chakra_node_spec;

    /** Zero a spec. */
    void tn_chakra_node_spec_init(tn_chakra_node_spec* spec);

    /** Write the GlobalMetadata message (length-prefixed) with this version. */
    tn_status tn_chakra_write_metadata(FILE* file, const char* version, tn_error* err);

    /** Write one Node message (length-prefixed). */
    tn_status tn_chakra_write_node(FILE* file, const tn_chakra_node_spec* spec, tn_error* err);

    /** The CollectiveCommType of a collective. */
    uint32_t tn_chakra_comm_type_of(tn_collective c);

    /**
     * Write rank's trace of one iteration of a text workload on `npus` NPUs (model-parallel
     * group size `group` when the file gives none, as tn_workload_validate): the passes as
     * TrainingJob runs them (doc/core-workload.rst): forward layers 0..L-1 (compute, then its
     * blocking collectives), backward L-1..0 (ig compute and blocking collectives, wg
     * compute, wg collectives that the next ig does not wait for, then the update). A compute
     * node's num_ops is its cycles (duration_micros: rounded microseconds at 1 GHz). Refused:
     * activation recomputation (HYBRID_TRANSFORMER_FWD_IN_BCKWD), invalid group sizes.
     */
    tn_status tn_chakra_convert(const tn_workload* wl,
                                uint32_t npus,
                                uint32_t group,
                                uint32_t rank,
                                FILE* file,
                                tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_CHAKRA_H */
