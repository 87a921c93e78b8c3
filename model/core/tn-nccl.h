/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-nccl: a model of NCCL's collectives: its algorithms (ring, double binary tree, NVLS,
 * NVLS-tree, CollNet Direct), its protocols (LL, LL128, Simple), its channels, and the choice its
 * tuner makes for a size, a GPU count and a system. Facts from NCCL's public source
 * (src/graph/tuning.cc, the tuning tables; src/include/device.h, the protocols' lines;
 * src/enqueue.cc, the channel count); the figures are in tn-nccl.c and doc/core-algorithms.rst.
 *
 * Contract
 * --------
 * Names. The algorithm family "nccl" (tn-algorithm.h registers it): "nccl" asks for the
 * tuner's choice; "nccl:ALGO" forces the algorithm and lets the tuner pick the protocol;
 * "nccl:ALGO:PROTO" forces both (algorithms ring, tree, nvls, nvlstree, collnet; protocols ll,
 * ll128, simple). tn_nccl_parse reads a name; anything else is TN_EINVAL naming the part and
 * the valid words.
 *
 * NVLS (NVLink SHARP: the NVSwitch reduces and multicasts) runs all-reduce, Simple only, on
 * the presets whose switch does it (sys.nvls: dgx-h100, gb200-nvl72; not dgx-a100, nor a
 * topology that is not a preset: nothing says its switch is an NVSwitch). NVLS inside one
 * server; NVLS-tree (NCCL_ALGO_NVLS_TREE) across servers: NVLS inside each server, a tree
 * of the servers between them (NCCL runs NVLS itself across servers only with CollNet, not
 * modelled). Forcing either where it does not run is TN_EUNSUPPORTED with the reason.
 * Data flow (NCCL's all-reduce of NVLS): GPU i owns slice i (1/n of the data, n GPUs of a
 * server); it loads slice i of every GPU through the switch, reduced there (multimem
 * load-reduce), and stores the result once to the switch, which multicasts it to every GPU:
 * per GPU link and direction S + S/n = S(1 + 1/n). The plan (tn-algo-nvls.c) moves the same
 * data as direct transfers, GPU j to i (reduce) then i to j (copy), 2S(n - 1)/n per link and
 * direction, so the protocol's intra_scale (n + 1) / (2(n - 1)) puts NVLS's bytes on the
 * GPU<->switch links; NVLS-tree reduces slice i between the servers' GPU i (a tree of the
 * servers on rail i, the trees alternating per channel as the double binary tree's) between
 * the two intra-server halves. NVLS's rate of an NVLink (intra_efficiency) is NCCL's rate of
 * the link (nvlink_efficiency) x NCCL's nvlsEfficiency (0.85 Hopper, 0.74 Blackwell) at every
 * GPU count: busbw 2(n - 1)/(n + 1) x line x that. NCCL's tuning formula (below) is that
 * curve with bwIntra rounded down to the search's steps and capped by bwInter, which leaves
 * it 13 to 30 % under measured NVLS on 5 to 7 H100: the tuner keeps it, the links do not.
 * NVLS-tree: the tuning model's algorithm bandwidth of the tree (busBw with its
 * perChMaxNVLSTreeBw x N / (2(N - 1)), N all the ranks) x (n + 1) / n / the line rate (0.62
 * on two dgx-h100, 0.47 on four), at most NVLS's: the cap is NCCL's figure for the tree's
 * kernel, which no link bounds. Latency: NVLS's hwLat once as the launch (the switch's pass
 * is one operation, not hops), and the NVLS-tree's network hwLat per hop between servers.
 * With 2 GPUs or fewer a server NCCL turns NVLS off (NCCL 2.19 to 2.28.3, whose NVLS tuning
 * this is): no NVLS graph, neither algorithm enabled, a forced one TN_EUNSUPPORTED.
 *
 * CollNet (NCCL_ALGO_COLLNET_DIRECT, "collnet": the fabric's switches reduce, InfiniBand
 * SHARP) runs all-reduce, Simple only, on a topology that says its fabric reduces
 * (tn_topology_sharp: a preset with sharp=1), across 2 servers or more of at most 8 GPUs
 * on an NVSwitch (NCCL_MAX_DIRECT_ARITY + 1; not gb200-nvl72's 72). CollNet Chain (servers
 * without an NVSwitch) is not modelled: every SHARP fabric here joins NVSwitch servers.
 * Data flow (NCCL's CollNet Direct): GPU i of a server is the head of slice i; every other
 * GPU sends it its slice i over NVLink (reduce-scatter), head i sends the server's sum
 * through its NIC into the SHARP tree once, the switches reduce the servers' sums and
 * multicast the total back to every server's head i, which sends it to the server's other
 * GPUs (all-gather). The plan (tn-algo-collnet.c) moves the switch's part as direct
 * transfers between the servers' heads i (slice i in s parts, part k reduced at server k's
 * head then copied back: 2S(s - 1)/s per NIC and direction, S the slice), so the
 * protocol's inter_scale s / (2(s - 1)) puts SHARP's bytes, S once each way, on the NIC
 * links; on the presets' fabrics every head i sits on rail i's leaf, which is the
 * reduction point (the switches' own reduction time is not modelled). Latency: the
 * per-hop NVLink hwLat (3.7 us) inside a server, half of CollNet's network hwLat (31 us)
 * on each of the two hops between servers (the switch's pass up and down is one
 * operation in NCCL's model), and the arity serialisation 2 (g - 1) x 0.4 us as the launch.
 * Tuning model (tuning.cc): the CollNet Direct graph has nc = g heads (one NIC per GPU)
 * of bwIntra GB/s: bwInter the fastest inter speed (NCCL's search arrays; Ampere and
 * before: the generic one) a NIC takes and bwIntra raised a speed at a time while below
 * 2 bwInter, a head's NVLink carrying 2 bwIntra at most; busBw = nc x bwIntra / factor
 * (factor = g / nc less half its excess over 1: 1 here), x 0.85 on Hopper and later;
 * algorithm bandwidth busBw / 2; latency 2 (min(1, g - 1) x 3.7 + (g - 1) x 0.4) + 31 us
 * (14 with one GPU a server). Channels (enqueue.cc): from 16, one less while S < nc x 640
 * threads x heads x threshold (512, halved at nc = 12, 6, 3), down to 1.
 *
 * Protocols (tn_nccl_protocol_wire): LL sends 8-byte lines of 4 data bytes and a 4-byte flag
 * (efficiency 1/2), LL128 128-byte lines of 120 data bytes and an 8-byte flag (15/16),
 * Simple the data itself (1). wire(L) = ceil(L / data) x line.
 *
 * System (tn_nccl_system_of): from a preset topology (dgx-a100: Ampere, dgx-h100: Hopper,
 * gb200-nvl72: Blackwell; tn-topology.h) its servers, GPUs per server, NVLink and NIC
 * rates; from another topology with dims, dim 0 the server (NVLink) and the others between
 * servers; without dims or without a topology one server of every rank on NVLink, Hopper.
 * On a preset a GPU's NVLink carries what NCCL's topology model rates it at (topo.h's
 * SMxx_NVLINK_BW per link: 20, 20.6 and 40.1 GB/s for Ampere, Hopper and Blackwell, 0.8,
 * 0.824 and 0.802 of the line rate): the tuner's intra_GBps, and the simulation's hops
 * inside a server put wire / efficiency bytes on the link (tn_cost_protocol.intra_efficiency).
 * Other topologies keep their links' rates (efficiency 1).
 * Channels: NCCL_CHANNELS_DEFAULT (16 rings or trees: 2 per NIC of an 8-NIC server).
 *
 * Tuning model (tn_nccl_model), per collective, algorithm and protocol, as NCCL's:
 *  - bus bandwidth busBw = channels x per-channel bandwidth = the GPU's NVLink rate in one
 *    server, min(NVLink, the server's NICs) across servers; ring LL: min(llMaxBw, busBw/2);
 *    ring LL128: min(0.92 busBw, channels x perChMaxRingLL128Bw); tree all-reduce:
 *    min(0.92 busBw, channels x perChMaxTreeBw), then LL: min(busBw / 3.8, llMaxBw), LL128:
 *    min(busBw x (7/9 in a server, 120/128 across), channels x perChMaxTreeLL128Bw);
 *    algorithm bandwidth = busBw x nRanks / nsteps (ring), busBw / 2 (tree);
 *  - latency = baseLat[algo][proto] + ring: (nsteps - nInterSteps) x intraLat + nInterSteps
 *    x interLat (nsteps 2(n-1) all-reduce, n-1 reduce-scatter / all-gather, n broadcast /
 *    reduce; nInterSteps 2(servers-1) or servers-1; across servers intraLat is at least the
 *    network overhead, 1 us, 3 us for Simple); tree: 2((n/servers - 1) intraLat +
 *    log2(servers) interLat), with intraLat = hwLat[NVLINK or PCI][algo][proto] and
 *    interLat = hwLat[NET][algo][proto];
 *  - time(S) = lat + S / (1000 bw) us (S bytes, bw GB/s), the tree's bw times
 *    treeCorrectionFactor[proto][log2(S / 64)] (all-reduce, 64 B to 256 MiB), the ring's
 *    Simple all-reduce latency across servers times 1.4 (1.9 before Ampere) when S /
 *    (channels x n) >= 64.
 *  - NVLS and NVLS-tree (tuning.cc): NCCL's NVLS graph has nc = min(n, 32) channels (one
 *    head GPU each) of bwIntra GB/s, the fastest of the architecture's search speeds (intra
 *    on one server, inter across) with (nc + 1) bwIntra <= the GPU's NVLink rate (a head
 *    GPU's link carries every channel and its own twice) and, across servers, <= a NIC's
 *    rate (the server's NICs / n); bwInter starts at bwIntra and the search's second pass
 *    raises it a speed at a time while below 2 bwIntra (across servers: while the NIC takes
 *    it). Per channel: intraBw = bwIntra x nvlsEfficiency (Hopper 0.85, Blackwell 0.74) x
 *    (nc - 1)/nc x 2 (all-reduce pipelines two operations); NVLS: min(intraBw, bwInter);
 *    NVLS-tree: min(intraBw, bwInter x (2 on two servers), perChMaxNVLSTreeBw); busBw = nc x
 *    that, algorithm bandwidth busBw x nRanks / (2(nRanks - 1)); latency: NVLS hwLat[NVLINK]
 *    (25 us), NVLS-tree 25 us + 2 log2(servers) x hwLat[NET][NVLS_TREE] (20.9 us); NVLS-tree's
 *    bandwidth times treeCorrectionFactor on Blackwell (x86 hosts).
 * The tuner (tn_nccl_choose) takes the enabled (algorithm, protocol) of the smallest time
 * (ties: NCCL's order, tree before ring, LL before LL128 before Simple, then NVLS, NVLS-tree,
 * then CollNet, which NCCL puts before NVLS: an exact tie between them is not expected).
 * NVLS and NVLS-tree are enabled for all-reduce where sys.nvls with 3 GPUs or more a
 * server (one server, several); CollNet where sys.sharp (above). Enabled: tree for all-reduce
 * only, ring for every collective but all-to-all (which the family refuses); LL128
 * on NVLink systems only (NCCL enables it by default where the GPUs talk over NVLink). Channels of
 * a size: C, less one while S < C x threads x threshold (threads 512, 640 for LL128; threshold 64
 * Simple, 8 LL128, 8 LL and 8 x n for the ring's LL), at least 1. NVLS and NVLS-tree run NCCL's
 * nvlsChannels at every size: 16 on Hopper, on Blackwell 24 in one server and 32 across servers.
 *
 * Simulation (tn_nccl_choice.protocol, tn-cost.h's tn_cost_protocol): the chosen algorithm is
 * planned with one chunk per channel (rings on rails, NCCL's tree in NCCL's tree chunks with 8
 * in flight a connection: tn-algo-nccl.c); every
 * transfer carries the protocol's wire bytes and waits what intraLat or interLat (its hop) adds
 * to the links' own latency of that hop before it is posted (NCCL's latencies are end to end:
 * a hop costs max(hwLat, path latency)), and baseLat more when it has no deps (the launch).
 * The tuning model's own bandwidth refinements (the 0.92, 1/3.8 and per-channel caps) stay in
 * the tuner: the network model gives the bandwidth; but NVLS's share of an NVLink is NCCL's
 * nvlsEfficiency and NVLS-tree's the model's (above: perChMaxNVLSTreeBw included), a switch's
 * reduction having no link of its own to model.
 */
#ifndef TN_NCCL_H
#define TN_NCCL_H

#include "tn-algorithm.h"
#include "tn-cost.h"
#include "tn-error.h"
#include "tn-topology.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** The family's name (and the prefix "nccl:" of its forced choices). */
#define TN_NCCL_FAMILY "nccl"

/** Channels NCCL opens on the modelled systems (2 per NIC of an 8-NIC server). */
#define TN_NCCL_CHANNELS_DEFAULT 16u

    /** NCCL's algorithms (NCCL's order: tree, ring, then the others). */
    typedef enum tn_nccl_algo
    {
        TN_NCCL_TREE = 0,
        TN_NCCL_RING = 1,
        TN_NCCL_NVLS = 2,
        TN_NCCL_NVLS_TREE = 3,
        TN_NCCL_COLLNET = 4, /**< CollNet Direct (NCCL's order puts it before NVLS) */
        TN_NCCL_ALGO_COUNT
    } tn_nccl_algo;

    /** NCCL's protocols, in NCCL's order. */
    typedef enum tn_nccl_proto
    {
        TN_NCCL_LL = 0,
        TN_NCCL_LL128 = 1,
        TN_NCCL_SIMPLE = 2,
        TN_NCCL_PROTO_COUNT,
        TN_NCCL_PROTO_ANY = TN_NCCL_PROTO_COUNT /**< tn_nccl_force: the tuner's choice */
    } tn_nccl_proto;

    /** GPU generations of the tuning tables. */
    typedef enum tn_nccl_arch
    {
        TN_NCCL_VOLTA = 0,
        TN_NCCL_AMPERE,
        TN_NCCL_HOPPER,
        TN_NCCL_BLACKWELL
    } tn_nccl_arch;

    /** "tree", "ring", "nvls", "nvlstree", "collnet"; "?" beyond. */
    const char* tn_nccl_algo_name(tn_nccl_algo algo);
    /** "ll", "ll128", "simple"; "?" beyond. */
    const char* tn_nccl_proto_name(tn_nccl_proto proto);

    /** What a family name forces (TN_NCCL_ALGO_COUNT / TN_NCCL_PROTO_ANY: the tuner's). */
    typedef struct tn_nccl_force
    {
        tn_nccl_algo algo;
        tn_nccl_proto proto;
    } tn_nccl_force;

    /** Whether name is "nccl" or starts with "nccl:". */
    bool tn_nccl_is_family(const char* name);

    /** Parse a family name (contract). */
    tn_status tn_nccl_parse(const char* name, tn_nccl_force* force, tn_error* err);

    /** The system a collective runs on (contract). */
    typedef struct tn_nccl_system
    {
        tn_nccl_arch arch;
        uint32_t servers;  /**< >= 1 */
        uint32_t ranks;    /**< GPUs of the collective */
        bool nvlink;       /**< GPUs of a server on NVLink (else PCI) */
        double intra_GBps; /**< a GPU's NVLink (or PCI) rate NCCL counts on, one direction, GB/s */
        /** NCCL's rate of an NVLink against its line rate (presets; 1 elsewhere) */
        double nvlink_efficiency;
        double inter_GBps; /**< a server's NICs together, one direction, GB/s (0: one server) */
        uint32_t channels;
        /** the links' latency of a hop inside a server and between servers (ns; 0 without a
         *  topology): NCCL's per-hop latency includes it (tn_cost_protocol) */
        double intra_path_ns;
        double inter_path_ns;
        /** the servers' switch reduces and multicasts (NVLS: a preset of Hopper or later) */
        bool nvls;
        /** the fabric's switches reduce (SHARP: tn_topology_sharp; CollNet) */
        bool sharp;
    } tn_nccl_system;

    /** The system of topo (NULL: one NVLink server of `ranks` Hopper GPUs). */
    void tn_nccl_system_of(const tn_topology* topo, uint32_t ranks, tn_nccl_system* sys);

    /** NCCL's tuning model for one (collective, algorithm, protocol); bw_GBps 0 when it does
     *  not apply (disabled or not implemented). */
    typedef struct tn_nccl_estimate
    {
        double lat_us;  /**< latency */
        double bw_GBps; /**< algorithm bandwidth (0: not applicable) */
        double busbw_GBps;
    } tn_nccl_estimate;

    tn_nccl_estimate tn_nccl_model(const tn_nccl_system* sys,
                                   tn_collective coll,
                                   tn_nccl_algo algo,
                                   tn_nccl_proto proto);

    /** time(S) of the model in us (contract); -1 when not applicable. */
    double tn_nccl_time_us(const tn_nccl_system* sys,
                           tn_collective coll,
                           tn_nccl_algo algo,
                           tn_nccl_proto proto,
                           uint64_t bytes);

    /** Channels NCCL runs a size with (contract). */
    uint32_t tn_nccl_channels(const tn_nccl_system* sys,
                              tn_nccl_algo algo,
                              tn_nccl_proto proto,
                              uint64_t bytes);

    /** The wire form of a protocol: line bytes and data bytes per line (Simple: 0, 0). */
    void tn_nccl_protocol_wire(tn_nccl_proto proto, uint32_t* line_bytes, uint32_t* line_data);

    /** The simulation's per-hop costs of an (algorithm, protocol) on sys (contract). */
    tn_cost_protocol tn_nccl_protocol_cost(const tn_nccl_system* sys,
                                           tn_nccl_algo algo,
                                           tn_nccl_proto proto);

    /** A resolved choice. */
    typedef struct tn_nccl_choice
    {
        tn_nccl_algo algo;
        tn_nccl_proto proto;
        uint32_t channels;
        double time_us;      /**< the tuning model's time for the size */
        const char* planner; /**< the registry's name of its algorithm: "ring", "dbt" (NCCL's
                                  tree, NVLS and CollNet are planned by tn-algo-nccl.c,
                                  tn-algo-nvls.c and tn-algo-collnet.c themselves) */
        char name[32];       /**< "nccl:ring:simple" */
        tn_cost_protocol protocol;
        tn_nccl_system system;
    } tn_nccl_choice;

    /**
     * The choice for a request whose algorithm is a family name on topo (may be NULL) for
     * `ranks` ranks: forced parts as named, the rest as NCCL's tuner picks. TN_EINVAL for a
     * bad name, TN_EUNSUPPORTED for a collective the family does not run, or a forced pair
     * NCCL does not run (tree for anything but all-reduce, LL128 off NVLink, NVLS off a
     * switch that reduces or with 2 GPUs or fewer a server, NVLS across servers, NVLS-tree
     * in one, NVLS with LL or LL128,
     * CollNet without a fabric that reduces, in one server, with LL or LL128, or for
     * another collective).
     */
    tn_status tn_nccl_choose(const tn_topology* topo,
                             const tn_plan_request* request,
                             uint32_t ranks,
                             tn_nccl_choice* choice,
                             tn_error* err);

    /** NCCL's NVLS graph on sys (contract): channels, bwIntra and bwInter per channel (GB/s);
     *  channels 0 when !sys->nvls. */
    void tn_nccl_nvls_graph(const tn_nccl_system* sys,
                            uint32_t* channels,
                            double* bw_intra,
                            double* bw_inter);

    /** NCCL's CollNet Direct graph on sys (contract): channels (heads), bwIntra and bwInter
     *  per channel (GB/s); channels 0 where CollNet does not run. */
    void tn_nccl_collnet_graph(const tn_nccl_system* sys,
                               uint32_t* channels,
                               double* bw_intra,
                               double* bw_inter);

    /** The simulation's NVLS share of an NVLink and wire scale (contract; 0, 0 without NVLS). */
    void tn_nccl_nvls_wire(const tn_nccl_system* sys, double* efficiency, double* scale);

#ifdef __cplusplus
}
#endif

#endif /* TN_NCCL_H */
