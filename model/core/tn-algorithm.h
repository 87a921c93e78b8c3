/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-algorithm: the registry of collective algorithms and the planning entry point.
 *
 * Contract
 * --------
 * tn_plan(topo, request, &schedule, err) builds a finalized tn_schedule for one
 * collective with the named algorithm:
 *  - ranks: request->ranks, or (when 0) the topology's NPU count. topo may be NULL
 *    for algorithms that need no topology (ring, ring-bidir, direct, rhd, dbt):
 *    then request->ranks must be > 0 and every transfer has dim -1. With a
 *    topology every transfer gets the dim of the links it uses where the topology
 *    has dims (dim of the first link of its default path; -1 if mixed/none).
 *  - The algorithm is looked up by name (tn_algorithm_find, exact match or alias);
 *    its applicability check runs first and its error names the algorithm and why
 *    ("ring2d: needs a 2D torus (topology 'ring:8' has 1 dim)").
 *  - bytes may be any value >= 0 (slices follow tn_slice_of; zero-length pieces
 *    become zero-length synchronisation transfers or are omitted, per algorithm);
 *    chunks (0 = 1) must be >= 1; root < ranks for broadcast/reduce (else ignored).
 *  - rank_order (ring orders): ring, ring-bidir, swing (and the ring's chain broadcast /
 *    reduce) place the ranks on the ring in request->rank_order when it is given
 *    (rank_order_count entries: a permutation of 0..ranks-1, else TN_EINVAL
 *    "ring: rank order: ..."), else in the automatic order of tn_ring_order()
 *    (tn-rank-order.h: a cycle of neighbours on tori and meshes, switch-local on
 *    switched networks, identity without a topology). Giving an order to an
 *    algorithm that takes none (tn_algorithm.takes_rank_order false) is
 *    TN_EUNSUPPORTED naming the algorithm. The order never changes what a rank
 *    holds at the end, only who sends to whom. hierarchical and ring2d order each
 *    ring group of a mesh dim with tn_ring_order_line (torus and ring dims are
 *    cycles in coordinate order already).
 *  - The returned schedule is finalized, carries the algorithm's name and passes
 *    tn_verify (every registered algorithm is tested with it).
 *  - On failure *out is NULL.
 *
 * Registry: a static const table in tn-algorithm.c (one entry per algorithm, with its
 * properties: collectives, default chunks, rank-local generator, applicability check,
 * estimate and plan).
 * Algorithm implementations live in tn-algo-<name>.c and declare their entry
 * points in the private header tn-algorithm-impl.h. Registered names:
 *   ring          unidirectional ring: AR, RS, AG; broadcast/reduce as a pipelined
 *                 chain along the ring from the root (segments = ranks); ranks in
 *                 the ring order (rank_order above)
 *   ring-bidir    bidirectional ring: half the data each direction (AR, RS, AG)
 *   direct        every rank to every rank in one step: A2A, RS, AG, AR (RS+AG),
 *                 broadcast, reduce
 *   rhd           recursive halving-doubling (Rabenseifner / Thakur): AR, RS, AG;
 *                 any N (non-power-of-two: the extra ranks fold into partners first)
 *   dbt           double binary tree (NCCL): AR (two complementary trees, half each)
 *   ring2d        2D ring on a 2D torus/mesh or 2-dim hierarchical topology: AR, RS, AG
 *                 (any chunks); 4 concurrent parts: x-first and y-first, each on the
 *                 rings and on the reversed rings, so every link of a torus node is busy
 *   hierarchical  multi-dimensional baseline over the topology dims: RS dim 0..D-1
 *                 then AG D-1..0; ring dims use ring, fc/switch dims use direct
 *   multitree, hdrm, themis: added by core-trees.
 *   swing         Swing all-reduce, bandwidth-optimal (De Sensi et al., NSDI 2024):
 *                 recursive halving-doubling whose step-s peer is r + rho(s) (r even) or
 *                 r - rho(s) (r odd) on the ring order, rho = 1, -1, 3, -5, 11, ...;
 *                 power-of-two ranks only; takes a rank order like ring
 *   swing-lat     Swing all-reduce, latency-optimal: log2 p steps with swing's peers, each
 *                 rank copies its whole sum into the peer's scratch and adds the peer's in
 *                 with a local reduce (tn-schedule.h, local ops); AR only, power-of-two
 *                 ranks; takes a rank order like ring
 *   swing-torus   Swing multiport on a torus/ring of power-of-two dims: 2D concurrent
 *                 parts, each stepping through the dims from its own first dim, parts
 *                 D..2D-1 mirrored (-rho); every NPU a rank
 *   nccl          NCCL's model (tn-nccl.h): "nccl" plans what NCCL's tuner picks for the
 *                 size, ranks and system, "nccl:ring", "nccl:tree:ll128" force a choice;
 *                 planned as rings on rails or NCCL's tree (a chain per server, a binary
 *                 tree between servers), one chunk per channel, the protocol's wire
 *                 bytes and per-hop latency carried by the cost model and the executor
 *                 (tn_nccl_choose); AR, RS, AG, broadcast, reduce; not a candidate of auto
 *   tacos         TACOS (Won et al., MICRO 2024): all-gather synthesized by greedy
 *                 link-chunk matching on a time-expanded network (random choices from
 *                 request->seed), reduce-scatter its reverse, all-reduce both; any
 *                 topology, every NPU a rank; chunks = pieces per NPU matched together
 *   custom        "custom:PREFIX": the schedule of ASTRA-sim's Collective API traces
 *                 (its *-implementation-custom), PREFIX.<r>.et for rank r of the
 *                 collective, read when planned (tn-chakra.h): COMM_SEND_NODE,
 *                 COMM_RECV_NODE and COMP_NODE only (another type is refused); a
 *                 message carries msg_chunk_idx, msg_chunk_cnt and total_chunk_cnt, the
 *                 chunks of the collective's S bytes (chunk i = tn_slice_of(S, total, i);
 *                 an all-to-all receives into its receive vector at S + the chunks), so
 *                 the collective's size scales the schedule as in ASTRA-sim; a message
 *                 with only a fixed comm_size (ASTRA-sim's deprecated form) is refused, as
 *                 its bytes cannot be checked. The k-th send from s to d with tag t and
 *                 the k-th receive of d from s with tag t are one transfer (tn_chakra_check);
 *                 it reduces when the receive has is_rrc or a COMP_NODE takes it as data
 *                 (MSCCL's receive-reduce-copy), else copies. It starts once the
 *                 nearest receives its send depends on have completed (through sends and
 *                 compute nodes, which cost nothing: a send is posted, not waited for), so
 *                 a message may arrive before its receive is posted, as in ASTRA-sim; only
 *                 when that plan does not verify (a message would overwrite or add into
 *                 data the receiver has not taken yet) does a transfer also wait for the
 *                 receives its receive depends on. The plan is verified (tn_verify) before it
 *                 is returned: traces that do not perform the collective are refused
 *                 (TN_EVERIFY naming the transfer's files and nodes), as are a missing
 *                 file, a PREFIX.<ranks>.et (traces for more ranks), unpaired messages,
 *                 chunk counts that differ between a send and its receive, and a cycle.
 *                 Not a candidate of auto (family); no topology needed.
 */
#ifndef TN_ALGORITHM_H
#define TN_ALGORITHM_H

#include "tn-error.h"
#include "tn-schedule.h"
#include "tn-topology.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** Themis intra-dimension policy. */
    typedef enum tn_themis_policy
    {
        TN_THEMIS_FIFO = 0, /**< chunks in creation order */
        TN_THEMIS_SCF = 1   /**< smallest pending chunk first */
    } tn_themis_policy;

    /** Stable name of a policy: "fifo", "scf"; "?" for an invalid value. The one home of
     *  these names: tn-plan's --policy and a scenario file's collective scheduler use it. */
    const char* tn_themis_policy_name(tn_themis_policy policy);

    /** Parse a policy name ("fifo" or "scf"); TN_EINVAL with the valid names otherwise. */
    tn_status tn_themis_policy_parse(const char* name, tn_themis_policy* policy, tn_error* err);

    /** Themis options (doc/core-algorithms.rst). */
    typedef struct tn_themis_options
    {
        tn_themis_policy policy;
        uint32_t active_chunks_per_dim; /**< A, default 1 */
        bool baseline;                  /**< fixed order dim 0..D-1 (no load balancing) */
    } tn_themis_options;

    /** A planning request; initialise with tn_plan_request_init(). */
    typedef struct tn_plan_request
    {
        tn_collective collective;
        const char* algorithm;   /**< registry name, e.g. "ring" */
        uint64_t bytes;          /**< S, see tn-schedule.h */
        uint32_t root;           /**< broadcast / reduce root */
        uint32_t chunks;         /**< C >= 1 (0 = the algorithm's default_chunks) */
        uint32_t ranks;          /**< 0 = every NPU of the topology */
        uint32_t ports_per_node; /**< MultiTree ports (0 = from the topology) */
        tn_themis_options themis;
        uint64_t seed; /**< for algorithms with randomised choices (tacos) */
        /** Ring order for ring / ring-bidir: rank_order[k] = the rank at ring
         *  position k (a permutation of 0..ranks-1, rank_order_count == ranks);
         *  NULL and 0 = automatic (tn_ring_order). Not copied: must stay valid
         *  during tn_plan / tn_plan_check. */
        const uint32_t* rank_order;
        uint32_t rank_order_count;
        /** Memory limit in bytes for the plan (tn-memory.h): 0 = the default (half of
         *  physical memory or TN_MEMORY_LIMIT), UINT64_MAX = none. */
        uint64_t memory_limit;
    } tn_plan_request;

    /** Size of a plan before it is built (tn_plan_estimate). */
    typedef struct tn_plan_size
    {
        uint64_t transfers;   /**< transfers the algorithm creates (closed form) */
        uint64_t deps;        /**< dependencies (upper estimate) */
        uint64_t route_bytes; /**< routes the cost model and verifier build (tables, or O(nodes)
                                 where computed) */
        uint64_t bytes;       /**< total memory estimate of a planning run */
        bool exact_transfers; /**< transfers is the algorithm's exact count */
    } tn_plan_size;

    /** Defaults: all-reduce, "ring", 0 bytes, root 0, chunks 1, ranks 0, ports 0,
     *  themis {FIFO, 1, false}, seed 0, rank_order NULL (automatic). */
    void tn_plan_request_init(tn_plan_request* request);

    /**
     * Applicability check: TN_OK if the algorithm can serve the request on topo
     * (topo may be NULL), else TN_EUNSUPPORTED / TN_EINVAL with a reason starting
     * with the algorithm's name. `ranks` is the resolved rank count.
     */
    typedef tn_status (*tn_algorithm_check_fn)(const tn_topology* topo,
                                               const tn_plan_request* request,
                                               uint32_t ranks,
                                               tn_error* err);

    /**
     * Plan: add the transfers of the request to `s` (already created with the
     * request's collective, ranks, bytes, root and chunks; not finalized).
     * tn_plan finalizes it afterwards. Called only after check succeeded.
     */
    typedef tn_status (*tn_algorithm_plan_fn)(const tn_topology* topo,
                                              const tn_plan_request* request,
                                              tn_schedule* s,
                                              tn_error* err);

    /**
     * Estimate: the closed form of the algorithm's transfer count (and an upper estimate
     * of its dependencies) for `ranks` ranks and `chunks` chunks (the request's, or the
     * algorithm's default); fills size->transfers, deps and exact_transfers only.
     */
    typedef void (*tn_algorithm_estimate_fn)(const tn_topology* topo,
                                             const tn_plan_request* request,
                                             uint32_t ranks,
                                             uint64_t chunks,
                                             tn_plan_size* size);

    /** The rank-local generator of an algorithm (tn-program.h), or none. */
    typedef enum tn_algorithm_generator
    {
        TN_GENERATOR_NONE = 0, /**< tn_plan only: no rank programs */
        TN_GENERATOR_RING,
        TN_GENERATOR_RING_BIDIR,
        TN_GENERATOR_DIRECT,
        TN_GENERATOR_RHD,
        TN_GENERATOR_DBT,
        TN_GENERATOR_RING2D,
        TN_GENERATOR_HIERARCHICAL,
        TN_GENERATOR_SWING,
        TN_GENERATOR_SWING_TORUS
    } tn_algorithm_generator;

    /** Themis's default chunk-phases, the registry's default chunks for themis and the
     *  chunks of the run-time scheduler (npu layer) when a request leaves them 0. */
#define TN_THEMIS_DEFAULT_CHUNKS 64u

    /** A registry entry: everything the core knows of an algorithm, so that a request
     *  looks its name up once (tn_algorithm_find) and asks the entry afterwards. */
    typedef struct tn_algorithm
    {
        const char* name;            /**< registry name */
        const char* aliases;         /**< comma separated other names, or "" */
        unsigned collectives;        /**< mask of TN_COLL_BIT(collective) */
        bool needs_topology;         /**< topo must not be NULL */
        const char* description;     /**< one line, with the reference */
        tn_algorithm_check_fn check; /**< applicability; NULL = always applicable */
        tn_algorithm_plan_fn plan;
        bool takes_rank_order;             /**< uses tn_plan_request.rank_order (ring orders) */
        uint32_t default_chunks;           /**< chunks planned when the request leaves them 0 */
        tn_algorithm_generator generator;  /**< rank-local generator, or NONE */
        tn_algorithm_estimate_fn estimate; /**< closed form of the plan's size */
        /** A rank's next transfer waits only for the one it has just received from a
         *  neighbour (rings, ring2d, the phases of hierarchical): the chain of dependencies
         *  walks the ring, so the per-step estimate (tn_cost_program) charges a step the
         *  mean latency of its edges and its slowest serialisation, not its slowest edge. */
        bool pipelined;
        /** A family of plans under one name: "NAME:..." answers it too, and algorithm "auto"
         *  leaves it out (tn-tune.h). A library's model (nccl, tn-nccl.h: the forced choices
         *  after the colon) plans as the library's own tuner chooses, and its time includes
         *  the library's costs the others do not pay; custom plans the user's traces named
         *  after the colon. */
        bool family;
        /** Rewrites the request before it is estimated and planned (the library's channels
         *  as chunks); NULL = none. Called after check succeeded. */
        tn_status (*prepare)(const tn_topology* topo,
                             const tn_plan_request* request,
                             uint32_t ranks,
                             tn_plan_request* out,
                             tn_error* err);
    } tn_algorithm;

    /** The registry table; count in *count. */
    const tn_algorithm* tn_algorithms(size_t* count);

    /** Entry by name or alias (exact, case-sensitive); NULL if unknown. */
    const tn_algorithm* tn_algorithm_find(const char* name);

    /** The chunks an algorithm plans when the request leaves them 0: its entry's
     *  default_chunks (TN_THEMIS_DEFAULT_CHUNKS for themis, 1 for every other; 1 for
     *  NULL); the tuner ranks each candidate with its own. */
    uint32_t tn_algorithm_default_chunks(const tn_algorithm* algorithm);

    /** The chunks a request plans with the algorithm: `chunks`, or when 0 the default. */
    uint32_t tn_algorithm_chunks(const tn_algorithm* algorithm, uint32_t chunks);

    /**
     * Whether the request can be planned on topo: algorithm known, collective
     * supported, topology present if needed, ranks/root/chunks valid, rank order
     * valid (or absent), then the algorithm's own check. The message names the
     * algorithm and the reason.
     */
    tn_status tn_plan_check(const tn_topology* topo, const tn_plan_request* request, tn_error* err);

    /**
     * tn_plan_check that also returns what it resolved: the registry entry of
     * request->algorithm and the rank count (request->ranks, or the topology's NPUs).
     * Callers that go on with the request use the entry instead of looking the name up
     * again. On failure *algorithm is NULL and *ranks 0.
     */
    tn_status tn_plan_resolve(const tn_topology* topo,
                              const tn_plan_request* request,
                              const tn_algorithm** algorithm,
                              uint32_t* ranks,
                              tn_error* err);

    /**
     * Estimate a plan's size from closed forms of each algorithm's transfer count
     * (ring, direct, MultiTree: N(N-1) per chunk and phase; Themis, hierarchical, ring2d:
     * N * sum(P_d - 1); rhd, dbt, hdrm: N log2 N), without building it. Same checks as
     * tn_plan_check first.
     */
    tn_status tn_plan_estimate(const tn_topology* topo,
                               const tn_plan_request* request,
                               tn_plan_size* size,
                               tn_error* err);

    /**
     * Plan a collective (see contract); the caller owns *out (tn_schedule_destroy).
     * Before building, the plan's size is estimated (tn_plan_estimate); beyond
     * request->memory_limit, or beyond the 4294967294 transfers a schedule can hold, it
     * fails with TN_ENOMEM / TN_EUNSUPPORTED and a message that says how large the plan
     * would be and what to change. The schedule also refuses to grow past the limit
     * while it is built (tn_schedule_set_memory_limit), for plans the estimate misjudges.
     */
    tn_status tn_plan(const tn_topology* topo,
                      const tn_plan_request* request,
                      tn_schedule** out,
                      tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_ALGORITHM_H */
