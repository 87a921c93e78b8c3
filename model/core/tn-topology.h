/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-topology: the network graph of the training-net C core.
 *
 * Contract
 * --------
 * A tn_topology is an opaque graph of nodes and DIRECTED links.
 *  - Nodes have ids 0..node_count-1 in creation order and a kind (NPU or switch).
 *  - NPU ranks: collectives address NPUs by rank 0..npu_count-1. The rank of an NPU
 *    is its position among the NPU nodes in increasing node id order. Every
 *    generator creates the NPUs first, so there node id == rank for NPUs and the
 *    switches come after; in a loaded file the ranks are the non-switch nodes in
 *    increasing id order.
 *  - Links are only added as cables: tn_topology_add_link() adds two directed links
 *    a->b and b->a with consecutive ids (a->b first), same rate, latency and
 *    dimension. Each cable takes the next free port at each end: the ports of a
 *    node are 0..degree-1 in cable creation order, and both directions of a cable
 *    use the same port number at a given end. Hence, for every node v and port p,
 *    out_links(v)[p] has src_port == p and in_links(v)[p] has dst_port == p, and
 *    both lists are in increasing link id order (deterministic).
 *  - Parallel cables between the same two nodes are allowed (torus ports > 1);
 *    self loops are not.
 *  - Rates are in bit/s (uint64_t), latencies in ns (uint64_t).
 *  - Dimensions (tn_dim_info) describe the logical structure used by
 *    multi-dimensional algorithms (Themis, hierarchical, 2D ring). Every NPU has a
 *    mixed-radix coordinate over the dims (dim 0 varies fastest):
 *    rank = c0 + P0*(c1 + P1*(c2 + ...)). The product of the dim sizes equals
 *    npu_count whenever dim_count > 0. A link's `dim` is the index of the dimension
 *    it belongs to, or -1.
 *    dim bandwidth_bps = the per-NPU bandwidth of that dimension = the sum of the
 *    rates of the NPU's OUTGOING links in that dim (bit/s; divide by 8 for bytes/s).
 *    For mesh axes (NPUs at the ends have fewer links) it is the value of an
 *    interior NPU (the largest). dim latency_ns = the latency of one link of the dim.
 *  - NPU transit (tn_topology_npus_forward): whether routes may pass THROUGH an NPU.
 *    Default rule: allowed iff the topology has no switch (direct networks); in
 *    switched networks (single switch, leaf-spine, fat-tree, BiGraph, files with
 *    switches) hosts do not forward. The hierarchical generator sets it to true
 *    when it has more than one dim or a ring/fc dim (NPUs relay between dims, as in
 *    Themis systems). tn_topology_set_npus_forward() overrides it.
 *  - Pointers returned by accessors (links, link id arrays, dim info, name) stay
 *    valid until the topology is modified or destroyed. Accessors taking an id
 *    require a valid id (checked with assert in debug builds); functions that
 *    return tn_status validate their arguments.
 *  - No fixed capacity: node, link and port counts are bounded only by uint32_t
 *    and memory. Memory is O(nodes + links).
 *
 * Ownership: the caller owns the topology returned through `out` and frees it with
 * tn_topology_destroy(). On failure *out is set to NULL and nothing leaks.
 *
 * Generator defaults (tn_link_params NULL): 16 GB/s = 128 Gbit/s per link and
 * 150 ns latency, the MultiTree paper setup (doc/design.rst, Sources).
 *
 * Generated node ids
 * ------------------
 *  ring:N        NPUs 0..N-1, cable i <-> i+1 mod N (N == 2: a single cable).
 *  fc:N          NPUs 0..N-1, one cable per pair (i < j), created in (i, j) order.
 *  switch:N      NPUs 0..N-1, switch N; NPU i uses port i of the switch.
 *  torus/mesh    k-ary n-cube, NPU id row-major with dim 0 fastest
 *                (id = x + kx*(y + ky*z)); `ports` parallel cables per neighbour
 *                pair; a torus axis of size 2 has ONE neighbour pair (not two),
 *                like a ring of 2. Links carry dim = axis index.
 *  leafspine     hosts 0..L*H-1 (host h on leaf h/H), leaves N..N+L-1, spines
 *                after; every leaf cabled to every spine; host links run at `rate`,
 *                leaf-spine links at round(H*rate / (oversub*S)) so the uplink
 *                capacity of a leaf is its host capacity / oversub.
 *  fattree:k     3-tier k-ary fat-tree (k even >= 2): hosts 0..k^3/4-1 (host h on
 *                edge switch h/(k/2)), then k^2/2 edge switches (pod p: edges
 *                p*k/2..), k^2/2 aggregation switches, (k/2)^2 core switches;
 *                aggregation switch a of a pod (0 <= a < k/2) connects to cores
 *                a*k/2 .. a*k/2+k/2-1. All links at `rate`.
 *  bigraph:nxm   n switches (n even), m NPUs per switch: NPU id = s*m + position,
 *                switch s has node id n*m + s; switches 0..n/2-1 are the upper half,
 *                n/2..n-1 the lower half, every upper cabled to every lower with
 *                `ports` parallel cables (default max(1, ceil(2m/n)): non-blocking,
 *                as in EFLOPS). NPU cables first (NPU order), then upper u, lower l,
 *                parallel cable q. All links at `rate`.
 *  hier          NPU id mixed-radix over the dims (dim 0 fastest); for each dim in
 *                order: ring dim of size P: cable to the next NPU along that dim
 *                (wrapping), each of the 2 cables of an NPU at B/2 (P == 2: one cable
 *                at B); fc dim: cables to every other NPU of the group at B/(P-1);
 *                switch dim: one switch per group of NPUs that differ only in that
 *                dim (switch ids after all NPUs, dims in order, groups in rank order
 *                of their first NPU), each NPU-switch cable at B. B must be divisible
 *                by the number of links so the per-NPU bandwidth is exactly B.
 *                Every link of the dim has the dim's latency.
 *
 * Spec grammar (tn_topology_from_spec; used by the CLI and scenario files)
 * -----------------------------------------------------------------------
 *   spec      := kind ':' body { ',' key '=' value }
 *   ring:N | fc:N | switch:N
 *   torus:AxB[xC...] | mesh:AxB[xC...]          key ports=P (default 1)
 *   leafspine:leaves=L,spines=S,hosts=H[,oversub=R]   (hosts = per leaf; R >= 0,
 *                                                       real, default 1)
 *   fattree:k=K                                 (also fattree:K)
 *   bigraph:NxM                                 (N switches x M NPUs per switch)
 *                                               key ports=P (default non-blocking)
 *   hier:dim{+dim}   dim := (ring|fc|switch) SIZE '@' RATE [ '/' TIME ]
 *                    e.g. hier:ring4@250Gbps/150ns+switch8@100Gbps/500ns
 *                    (a missing '/TIME' uses latency= or the default 150 ns)
 *   dgx-a100|dgx-h100|gb200-nvl72:servers=N[,gpus=G][,fabric=F][,oversub=R][,sharp=1]
 *                    a system preset (below), e.g. dgx-h100:servers=4,fabric=rail-optimized
 *   common keys: rate=RATE, latency=TIME (not rate= for hier nor presets).
 *   RATE, TIME: numbers with units, grammar in tn-units.h (250Gbps, 150ns).
 *   Whitespace is not allowed inside a spec. Errors name the key and the value.
 *
 * HPCC-style topology file (tn_topology_load_file)
 * ------------------------------------------------
 *   line 1: N_nodes N_switches N_links
 *   line 2: N_switches switch ids (may be absent or blank when N_switches == 0)
 *   then N_links lines: src dst rate delay error_rate
 *   rates as RATE above (100Gbps, 25Gbps), delays as TIME above (0.001ms, 1us,
 *   500ns), error_rate a real in [0, 1]. Fields separated by spaces/tabs; trailing
 *   whitespace and CRLF tolerated; blank lines skipped; nothing else (no comments).
 *   Each link line is one cable (two directed links, both with that error rate).
 *   The loaded topology has one dim of kind TN_DIM_CUSTOM of size npu_count whose
 *   bandwidth is the smallest per-NPU outgoing capacity and whose latency is the
 *   largest link latency (no dim if there is no NPU); links get dim 0.
 *   The header's counts never decide an allocation: the text is checked first, and
 *   N_nodes may exceed 1 only up to 2 * N_links + N_switches (every node must be named by
 *   a link line or the switch line; "N_nodes X but the file can name at most Y nodes").
 *   Errors: TN_EIO (cannot open), TN_EPARSE "file:line: <field>: ..." otherwise.
 *   SimAI's topology files (its gen_Topo_Template.py) load too: line 1 is then
 *   "nodes gpus_per_server nvswitch_num switch_num links gpu_type" (gpu_type A100, A800,
 *   H100, H800 or H20), line 2 lists the NVSwitches first. The GPUs (the non-switch
 *   nodes, in id order) must fill servers of gpus_per_server, and an NVSwitch may link only
 *   GPUs of one server (an intra-server switch: paths between servers never cross one).
 */
#ifndef TN_TOPOLOGY_H
#define TN_TOPOLOGY_H

#include "tn-error.h"
#include "tn-units.h" /* RATE and TIME of specs and files */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** "No such node/link/rank" marker returned by lookups. */
#define TN_TOPO_NONE UINT32_MAX

/** Default generator link rate: 16 GB/s in bit/s. */
#define TN_TOPO_DEFAULT_RATE_BPS 128000000000ULL
/** Default generator link latency in ns. */
#define TN_TOPO_DEFAULT_LATENCY_NS 150ULL

    typedef struct tn_topology tn_topology;

    /** Kind of a node. */
    typedef enum tn_node_kind
    {
        TN_NODE_NPU = 0,
        TN_NODE_SWITCH = 1
    } tn_node_kind;

    /** Kind of a dimension. */
    typedef enum tn_dim_kind
    {
        TN_DIM_RING = 0, /**< bidirectional ring */
        TN_DIM_FC,       /**< fully connected */
        TN_DIM_SWITCH,   /**< one switch per group */
        TN_DIM_TORUS,    /**< torus axis (wraparound) */
        TN_DIM_MESH,     /**< mesh axis (no wraparound) */
        TN_DIM_FATTREE,  /**< leaf-spine or 3-tier fat-tree (one dim) */
        TN_DIM_BIGRAPH,  /**< EFLOPS BiGraph (one dim) */
        TN_DIM_CUSTOM    /**< built by hand or loaded from a file */
    } tn_dim_kind;

    /** One directed link. */
    typedef struct tn_link
    {
        uint32_t id;         /**< link id */
        uint32_t src;        /**< source node */
        uint32_t dst;        /**< destination node */
        uint32_t src_port;   /**< port at src */
        uint32_t dst_port;   /**< port at dst */
        uint32_t reverse;    /**< id of the opposite direction of the same cable */
        uint64_t rate_bps;   /**< bit/s */
        uint64_t latency_ns; /**< propagation latency, ns */
        int dim;             /**< dimension index or -1 */
        double error_rate;   /**< packet error rate (HPCC files), 0 by default */
    } tn_link;

    /** One dimension (see contract above for bandwidth and latency). */
    typedef struct tn_dim_info
    {
        tn_dim_kind kind;
        uint32_t size;          /**< P_d: NPUs along this dim */
        uint64_t bandwidth_bps; /**< per-NPU outgoing bandwidth in this dim, bit/s */
        uint64_t latency_ns;    /**< latency of one link of this dim, ns */
    } tn_dim_info;

    /** Rate and latency used by a generator for its links. */
    typedef struct tn_link_params
    {
        uint64_t rate_bps;   /**< > 0 */
        uint64_t latency_ns; /**< >= 0 */
    } tn_link_params;

    /** The defaults: TN_TOPO_DEFAULT_RATE_BPS, TN_TOPO_DEFAULT_LATENCY_NS. */
    tn_link_params tn_link_params_default(void);

    /** Stable lowercase name of a dim kind ("ring", "fc", "switch", "torus", ...). */
    const char* tn_dim_kind_name(tn_dim_kind kind);

    /* ---- create / destroy / build ------------------------------------------------ */

    /** Create an empty topology (no nodes, no dims, name "custom"). */
    tn_status tn_topology_create(tn_topology** out, tn_error* err);

    /** Free a topology and everything it owns; NULL is ignored. */
    void tn_topology_destroy(tn_topology* topo);

    /** A new topology equal to `src` (name, nodes, cables with their ids, dims, shape, the
     *  NPU transit rule, SHARP), owned by the caller: for users that outlive the original. */
    tn_status tn_topology_copy(const tn_topology* src, tn_topology** out, tn_error* err);

    /** Add one node; its id (== previous node count) is stored in *id if id != NULL. */
    tn_status tn_topology_add_node(tn_topology* topo,
                                   tn_node_kind kind,
                                   uint32_t* id,
                                   tn_error* err);

    /** Add `count` nodes of one kind with consecutive ids; first id in *first_id. */
    tn_status tn_topology_add_nodes(tn_topology* topo,
                                    tn_node_kind kind,
                                    uint32_t count,
                                    uint32_t* first_id,
                                    tn_error* err);

    /**
     * Add a cable between nodes a and b (a != b): directed links a->b (id in *ab) and
     * b->a (id in *ba = *ab + 1), both with rate_bps (> 0), latency_ns and dim (-1 or
     * an index < dim count once dims are set). The ports are the next free port of
     * each node. ab/ba may be NULL. Invalidates tn_link pointers and link arrays.
     */
    tn_status tn_topology_add_link(tn_topology* topo,
                                   uint32_t a,
                                   uint32_t b,
                                   uint64_t rate_bps,
                                   uint64_t latency_ns,
                                   int dim,
                                   uint32_t* ab,
                                   uint32_t* ba,
                                   tn_error* err);

    /** Set the error rate (in [0, 1]) of one directed link. */
    tn_status tn_topology_set_link_error_rate(tn_topology* topo,
                                              uint32_t link,
                                              double error_rate,
                                              tn_error* err);

    /**
     * Set the dimensions (copied). Requires count == 0 or the product of the sizes
     * == npu_count (each size >= 1). Replaces previous dims.
     */
    tn_status tn_topology_set_dims(tn_topology* topo,
                                   uint32_t count,
                                   const tn_dim_info* dims,
                                   tn_error* err);

    /** Set the descriptive name (copied), e.g. the spec string. */
    tn_status tn_topology_set_name(tn_topology* topo, const char* name, tn_error* err);

    /** Override the NPU transit rule (see contract). */
    void tn_topology_set_npus_forward(tn_topology* topo, bool npus_forward);

    /** Whether the fabric's switches reduce (SHARP: NCCL's CollNet runs on it). Only what
     *  the topology declares: the presets' `sharp=1` (default false). */
    void tn_topology_set_sharp(tn_topology* topo, bool sharp);
    bool tn_topology_sharp(const tn_topology* topo);

    /* ---- accessors ---------------------------------------------------------------- */

    const char* tn_topology_name(const tn_topology* topo);
    uint32_t tn_topology_node_count(const tn_topology* topo);
    uint32_t tn_topology_link_count(const tn_topology* topo); /**< directed links */
    uint32_t tn_topology_npu_count(const tn_topology* topo);
    uint32_t tn_topology_switch_count(const tn_topology* topo);
    tn_node_kind tn_topology_node_kind(const tn_topology* topo, uint32_t node);

    /** Whether routes may pass through NPUs (see contract). */
    bool tn_topology_npus_forward(const tn_topology* topo);

    /** Node id of NPU `rank`, TN_TOPO_NONE if rank >= npu_count. */
    uint32_t tn_topology_npu_node(const tn_topology* topo, uint32_t rank);

    /** Rank of NPU node `node`, TN_TOPO_NONE for a switch or an invalid id. */
    uint32_t tn_topology_node_rank(const tn_topology* topo, uint32_t node);

    /** Number of ports (cables) of a node = out-degree = in-degree. */
    uint32_t tn_topology_degree(const tn_topology* topo, uint32_t node);

    /** Link by id (id < link_count). */
    const tn_link* tn_topology_link(const tn_topology* topo, uint32_t link);

    /** Out-links of a node, index = port; count in *count (may be NULL). */
    const uint32_t* tn_topology_out_links(const tn_topology* topo, uint32_t node, uint32_t* count);

    /** In-links of a node, index = port; count in *count (may be NULL). */
    const uint32_t* tn_topology_in_links(const tn_topology* topo, uint32_t node, uint32_t* count);

    /** First (lowest id) directed link a->b, TN_TOPO_NONE if none. */
    uint32_t tn_topology_find_link(const tn_topology* topo, uint32_t a, uint32_t b);

    /**
     * All directed links a->b (parallel cables) in increasing id order: writes up to
     * `cap` ids to `ids` (may be NULL when cap == 0) and returns the total number.
     */
    uint32_t tn_topology_links_between(const tn_topology* topo,
                                       uint32_t a,
                                       uint32_t b,
                                       uint32_t* ids,
                                       uint32_t cap);

    /* ---- dimensions --------------------------------------------------------------- */

    uint32_t tn_topology_dim_count(const tn_topology* topo);

    /** Dim d (d < dim_count). */
    const tn_dim_info* tn_topology_dim(const tn_topology* topo, uint32_t d);

    /** Coordinate of NPU `rank` in every dim: coords[dim_count]. */
    tn_status tn_topology_npu_coords(const tn_topology* topo,
                                     uint32_t rank,
                                     uint32_t* coords,
                                     tn_error* err);

    /** Rank of a coordinate coords[dim_count] (each coords[d] < size of dim d). */
    tn_status tn_topology_coords_rank(const tn_topology* topo,
                                      const uint32_t* coords,
                                      uint32_t* rank,
                                      tn_error* err);

    /**
     * A set of NPUs as a grid of its own: the dims a run-time scheduler (Themis) splits a
     * collective of those NPUs over, e.g. a training job on part of the topology.
     * The set must be a sub-grid: the product of one set of coordinates per dim, every
     * combination once (whole servers of a hier: system are one). The sub-grid keeps, in the
     * topology's order, the dims where the set holds more than one coordinate: size = the
     * coordinates held; bandwidth_bps = the per-NPU bandwidth towards the set's own NPUs (a
     * switch dim's whole; a fully connected dim's links to the k-1 peers held, k-1 of P-1);
     * kind and latency the topology's. A ring, torus or mesh axis must be held whole or at one
     * coordinate: part of a ring is not a ring (its ends' links lead out of the set).
     * order[i] = the NPU of sub-grid rank i (mixed radix over the kept dims, first fastest): the
     * NPUs in ascending order, since both ranks are mixed radix. One NPU keeps no dims.
     * dims: room for tn_topology_dim_count(topo); order: room for count.
     * TN_EINVAL with the reason (a sentence without the function's name: callers show it to
     * users) when the topology has no dims, an NPU is out of range or twice, or the set is not a
     * sub-grid a scheduler can split over.
     */
    tn_status tn_topology_subgrid(const tn_topology* topo,
                                  const uint32_t* npus,
                                  uint32_t count,
                                  tn_dim_info* dims,
                                  uint32_t* dim_count,
                                  uint32_t* order,
                                  tn_error* err);

    /* ---- generators (lp NULL = defaults; *out NULL on failure) -------------------- */

    tn_status tn_topology_ring(uint32_t n,
                               const tn_link_params* lp,
                               tn_topology** out,
                               tn_error* err);

    tn_status tn_topology_fully_connected(uint32_t n,
                                          const tn_link_params* lp,
                                          tn_topology** out,
                                          tn_error* err);

    /** Single switch with n NPUs (star). */
    tn_status tn_topology_switch(uint32_t n,
                                 const tn_link_params* lp,
                                 tn_topology** out,
                                 tn_error* err);

    /** k-ary n-cube with wraparound: ndims >= 1 axes, sizes[i] >= 2, ports >= 1. */
    tn_status tn_topology_torus(uint32_t ndims,
                                const uint32_t* sizes,
                                uint32_t ports,
                                const tn_link_params* lp,
                                tn_topology** out,
                                tn_error* err);

    /** Same as torus without wraparound. */
    tn_status tn_topology_mesh(uint32_t ndims,
                               const uint32_t* sizes,
                               uint32_t ports,
                               const tn_link_params* lp,
                               tn_topology** out,
                               tn_error* err);

    /**
     * 2-tier leaf-spine: leaves >= 1, spines >= 1, hosts_per_leaf >= 1,
     * oversub > 0 (host capacity / uplink capacity of a leaf).
     */
    tn_status tn_topology_leaf_spine(uint32_t leaves,
                                     uint32_t spines,
                                     uint32_t hosts_per_leaf,
                                     double oversub,
                                     const tn_link_params* lp,
                                     tn_topology** out,
                                     tn_error* err);

    /** 3-tier k-ary fat-tree, k even >= 2: k^3/4 hosts, 5k^2/4 switches. */
    tn_status tn_topology_fat_tree(uint32_t k,
                                   const tn_link_params* lp,
                                   tn_topology** out,
                                   tn_error* err);

    /**
     * BiGraph: n_switches even >= 2, npus_per_switch (m) >= 1, `ports` parallel cables
     * per upper-lower switch pair; ports == 0 selects the non-blocking default
     * max(1, ceil(2m/n)) (every switch has at least m cables to the other half).
     */
    tn_status tn_topology_bigraph(uint32_t n_switches,
                                  uint32_t npus_per_switch,
                                  uint32_t ports,
                                  const tn_link_params* lp,
                                  tn_topology** out,
                                  tn_error* err);

    /**
     * Multi-dimensional hierarchical system: dims[i].kind in {RING, FC, SWITCH},
     * size >= 2, bandwidth_bps > 0 divisible by the links per NPU of that dim,
     * latency_ns any. The resulting dims equal the given ones.
     */
    tn_status tn_topology_hierarchical(uint32_t ndims,
                                       const tn_dim_info* dims,
                                       tn_topology** out,
                                       tn_error* err);

    /* ---- system presets (tn-topology-preset.c) ------------------------------------
     * A server (or rack) of `gpus` GPUs on one NVSwitch (dim 0, each GPU at nvlink_bps per
     * direction) and one scale-out NIC per GPU at nic_bps (dim 1, one group per rail: GPU g
     * of every server). Figures from the vendors' data sheets (doc/core-topology.rst):
     *   dgx-a100     8 GPUs, NVLink3 300 GB/s = 2400 Gbit/s, 8 ConnectX-6 HDR 200 Gbit/s
     *   dgx-h100     8 GPUs, NVLink4 450 GB/s = 3600 Gbit/s, 8 ConnectX-7 NDR 400 Gbit/s
     *   gb200-nvl72  72 GPUs, NVLink5 900 GB/s = 7200 Gbit/s, 72 ConnectX-7 400 Gbit/s
     * Fabrics (servers >= 2; one server is its NVSwitch alone, 1 switch):
     *   rail-optimized  a leaf per rail (node ids: NPUs, NVSwitches by server, leaves by
     *                   rail, `gpus` spines), every leaf cabled to every spine at
     *                   servers x nic_bps / (oversub x gpus): the 2-tier Clos of DGX
     *                   SuperPODs; oversub >= 1 (1: non-blocking). GPUs do not forward, so
     *                   a change of rail crosses a spine.
     *   rail-only       a switch per rail and no spine (tn_topology_hierarchical of the two
     *                   dims): a change of rail relays over NVLink.
     * Spec: PRESET:servers=N[,gpus=G][,fabric=F][,oversub=R][,sharp=0|1] (defaults 1, all
     * GPUs, rail-optimized, 1, 0). sharp=1 (servers >= 2) declares that the fabric's switches
     * reduce (InfiniBand SHARP; tn_topology_sharp): NCCL's CollNet runs on it (tn-nccl.h).
     * The topology's name is the spec. */
    typedef struct tn_system_preset
    {
        const char* name;           /**< "dgx-h100" */
        uint32_t gpus;              /**< GPUs per server (NVLink domain) */
        uint64_t nvlink_bps;        /**< per GPU per direction through the NVSwitch */
        uint64_t nic_bps;           /**< per NIC, one NIC per GPU */
        uint64_t nvlink_latency_ns; /**< one GPU-NVSwitch link */
        uint64_t nic_latency_ns;    /**< one NIC-leaf or leaf-spine link */
    } tn_system_preset;

    /** Scale-out fabric of a preset (contract above). */
    typedef enum tn_fabric
    {
        TN_FABRIC_RAIL_OPTIMIZED = 0,
        TN_FABRIC_RAIL_ONLY
    } tn_fabric;

    /** \return the i-th preset, NULL past the last */
    const tn_system_preset* tn_system_preset_at(size_t i);
    /** \return the preset named by [name, name+len), or NULL */
    const tn_system_preset* tn_system_preset_find(const char* name, size_t len);
    /** \return "rail-optimized" or "rail-only" */
    const char* tn_fabric_name(tn_fabric fabric);

    /** Build a preset system (contract above); gpus 0 = all of the preset's. */
    tn_status tn_topology_system(const tn_system_preset* preset,
                                 uint32_t servers,
                                 uint32_t gpus,
                                 tn_fabric fabric,
                                 double oversub,
                                 tn_topology** out,
                                 tn_error* err);

    /** Build from a spec string (grammar above); the topology name is the spec. */
    tn_status tn_topology_from_spec(const char* spec, tn_topology** out, tn_error* err);

    /* ---- files (units: tn-units.h) ----------------------------------------------- */

    /** Load an HPCC-style topology file (format above); name = path. */
    tn_status tn_topology_load_file(const char* path, tn_topology** out, tn_error* err);

    /** Same from text in memory; `name` is used in error messages ("file:line"). */
    tn_status tn_topology_load_text(const char* text,
                                    const char* name,
                                    tn_topology** out,
                                    tn_error* err);

    /**
     * Write the topology in the HPCC-style format (one line per cable, in cable
     * order, written as its lower directed link id: src dst rate delay error_rate;
     * rate and delay exact, in the largest unit that divides them: 100Gbps, 1500ns,
     * 2us). Loading the output gives the same nodes, links, ports, rates, latencies
     * and error rates. Dims and names are not written.
     */
    tn_status tn_topology_write(const tn_topology* topo, FILE* file, tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_TOPOLOGY_H */
