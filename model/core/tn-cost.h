/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-cost: estimate of a schedule's time on a topology: the fluid model by default (links
 * shared max-min fair among the transfers crossing them), or the list model.
 *
 * Contract
 * --------
 * Model (event driven over the DAG, deterministic):
 *  - A transfer t with path links l_1..l_h (explicit path, or tn_routes_path with
 *    tn_transfer_flow_hash, see tn-path.h) has
 *        latency(t)   = sum of latency_ns(l_i)
 *        serial(t)    = wire(length) * 8e9 / min rate_bps(l_i)   [ns]
 *    where wire(L) = L without packets, L + packets(L) * overhead with them
 *    (options->mtu), and with packets the head of t crosses link l_i in
 *    latency(l_i) + (min(L, mtu) + overhead) * 8e9 / rate_bps(l_i) before it
 *    enters l_(i+1) (store and forward of one packet).
 *  - t becomes ready when all its deps have finished (time 0 without deps) and is
 *    posted then, in order of ready time (ties: smaller step, then smaller id). With
 *    step order (tn_schedule_step_ordered: MultiTree, HDRM) the transfers of one
 *    (src, dst, path) are posted in (step, id) order: one ready before its
 *    predecessor waits until that one is posted (as the ns-3 executor posts them on
 *    one queue pair). Without contention end(t) = ready(t) + latency(t) + serial(t)
 *    (+ one packet's store and forward per hop after the first) in both models:
 *  - TN_COST_FLUID (default; the list model answers where it would exceed
 *    TN_COST_FLUID_WORK, result->model says which), as NICs and switches interleave packets: the
 *    transfers of one queue pair (src, dst, path) are sent one after the other in
 *    posting order; the sending ones of all queue pairs share every link of their
 *    paths max-min fairly (progressive filling, recomputed for the flows connected
 *    to the links whose flows changed). t starts when its queue pair sends it and
 *    ends when its wire bytes have crossed, plus latency(t) and the store and
 *    forward. A host port with many ready tree edges serves them at once, as packet
 *    level does, instead of letting early-ready transfers hold back the critical ones.
 *  - TN_COST_LIST: every link is its own FIFO server (a switch buffers what waits)
 *    and serves transfers in the order their heads reach it: t's head enters link
 *    l_1 at s_1 = max(posted(t), free(l_1)) and link l_k at
 *    s_k = max(s_(k-1) + head(l_(k-1)), free(l_k)) (head = latency, plus one
 *    packet's store-and-forward with packets); t holds each link for serial(t)
 *    from then on: free(l_k) = s_k + serial(t), and ends at
 *    end(t) = s_h + latency(l_h) + serial(t); start(t) = s_1. A link a transfer
 *    has left serves the next one while the transfer still waits downstream.
 *    Faster than the fluid model (1.5-2.1x at 1024 NPUs) but pessimistic where many
 *    transfers are ready at once on one port (MultiTree on a leaf-spine: 13% above
 *    packet level, the fluid model 0.4%).
 *  - Length 0 transfers cost their latency and occupy no link.
 *  - Local ops (tn_op_is_local: a rank copies or reduces into its own buffer) cross no
 *    link and take no time: end(t) = ready(t). The cost model has no memory or compute
 *    time (the ns-3 executor charges a local reduce the NPU's reduction time when an
 *    NPU endpoint sets one, as it does for a network reduce).
 *  - Total time = max end(t) (0 for an empty schedule).
 *  - Without a topology (topo == NULL) every ordered rank pair (src, dst) has its
 *    own private link with options->rate_bps / options->latency_ns (a fully
 *    connected network with one link per direction; link id = src*N + dst).
 * Consequence (tested): the unidirectional ring all-reduce on a ring of N nodes
 * with links of latency a and rate B, S divisible by N, takes exactly
 * 2(N-1)(a + S/(N*B)) (B in bytes/ns), tn_cost_ring_allreduce_ns().
 *
 * Bandwidth conventions (doc/design.rst, Reference figures; nccl-tests): algbw = S / t;
 * busbw = algbw * 2(N-1)/N for all-reduce, * (N-1)/N for reduce-scatter,
 * all-gather and all-to-all, * 1 for broadcast and reduce. Rates in bytes/s.
 */
#ifndef TN_COST_H
#define TN_COST_H

#include "tn-error.h"
#include "tn-program.h"
#include "tn-routing.h"
#include "tn-schedule.h"
#include "tn-topology.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** How links are shared (see the contract). */
    typedef enum tn_cost_model
    {
        TN_COST_FLUID = 0, /**< max-min fair sharing of links (default) */
        TN_COST_LIST = 1   /**< per-link FIFO list schedule (faster) */
    } tn_cost_model;

    /** The fluid model's budget: it gives up and the list model answers once its rate
     *  refills have visited TN_COST_FLUID_WORK x (transfers + path links) flows. The
     *  contention-free plans measured visit 0.2-1.2x, rhd on fattree:k=16 5.5x, direct on
     *  fattree:k=8 230x (48 s where the list model takes 0.06 s). */
#define TN_COST_FLUID_WORK 4.0

    /** The per-step model keeps every link's load per step (when it evaluates every rank) up
     *  to this many step x link entries (8 bytes each); beyond, the mean load bounds a step. */
#define TN_COST_EXACT_LOADS (UINT64_C(1) << 21)

    /**
     * A communication library's protocol on the wire (tn-nccl.h fills one for NCCL's LL, LL128
     * and Simple). A transfer of L > 0 bytes puts wire(L) = ceil(L / line_data) x line_bytes
     * bytes on the wire (line_data = 0: L, the full line), times intra_scale (when > 0) and
     * divided by intra_efficiency (when in (0, 1)) on a hop inside a server, times
     * inter_scale (when > 0) on a hop between servers, rounded up, and
     * waits before it is posted:
     * launch_ns when it has no deps (the collective's launch), plus what the hop's latency
     * adds to the network's own: intra_hop_ns - intra_path_ns for a hop inside a server (dim 0,
     * or any dim when `servers` <= 1), inter_hop_ns - inter_path_ns for a hop between servers
     * (any other dim, -1 included), 0 when the path is slower (a library's per-hop latency is
     * measured end to end: a hop costs max(hop, path latency)). The ns-3 executor posts it that
     * much later with
     * wire(L) bytes; the cost model adds the delay to its latency and counts wire(L) in its
     * serialisation.
     */
    typedef struct tn_cost_protocol
    {
        uint32_t line_bytes;  /**< bytes of a line on the wire */
        uint32_t line_data;   /**< data bytes in a line (0: no lines, wire = L) */
        double launch_ns;     /**< before a transfer without deps */
        double intra_hop_ns;  /**< per hop inside a server */
        double inter_hop_ns;  /**< per hop between servers */
        double intra_path_ns; /**< the links' latency of a hop inside a server */
        double inter_path_ns; /**< the links' latency of a hop between servers */
        uint32_t servers;     /**< servers of the system (<= 1: every hop is intra) */
        /** the share of a hop inside a server the library's data gets (NCCL's rate of an
         *  NVLink against its line rate); 0 or 1: all of it */
        double intra_efficiency;
        /** wire bytes on a hop inside a server per byte the plan moves there; 0 or 1: one.
         *  NVLS (tn-nccl.h): the switch's reduction and multicast put S(1 + 1/n) on a GPU's
         *  link where the plan's direct transfers move 2S(n - 1)/n */
        double intra_scale;
        /** the same on a hop between servers. CollNet (tn-nccl.h): the fabric's switches
         *  reduce and multicast, a NIC sends its slice S once and receives the total once,
         *  where the plan's direct exchange between the servers moves 2S(s - 1)/s */
        double inter_scale;
    } tn_cost_protocol;

    /** wire(L) of the protocol for a hop of `dim` (NULL: L); saturates at UINT64_MAX. */
    uint64_t tn_cost_protocol_wire(const tn_cost_protocol* protocol, int32_t dim, uint64_t length);

    /** The delay before a transfer of `dim` with `deps` deps is posted (NULL: 0). */
    double tn_cost_protocol_delay_ns(const tn_cost_protocol* protocol, int32_t dim, uint32_t deps);

    /** Options of the estimate; NULL = defaults. */
    typedef struct tn_cost_options
    {
        /** Without a topology: rate (bit/s; 0 = TN_TOPO_DEFAULT_RATE_BPS) and latency
         *  (ns, used as given; options == NULL: TN_TOPO_DEFAULT_LATENCY_NS) of every
         *  rank pair's link. */
        uint64_t rate_bps;
        uint64_t latency_ns;
        /** Keep per-transfer start/end times in the result (default 0: no). */
        int keep_transfer_times;
        /** Packets (default 0: none, a transfer without headers): with mtu > 0 a transfer
         *  of L bytes is ceil(L/mtu) packets (1 when L = 0) of packet_overhead extra wire
         *  bytes each, and every hop after the first adds the store-and-forward time of
         *  one packet (min(L, mtu) + packet_overhead bytes at that hop's rate). The ns-3
         *  layer passes its MTU and header bytes (RoceWire::DATA_OVERHEAD). */
        uint32_t mtu;
        uint32_t packet_overhead;
        /** Link sharing model (default TN_COST_FLUID). */
        tn_cost_model model;
        /** Dependencies as the ns-3 executor meets them (default 0: when the data arrives):
         *  with 1, a transfer's sender learns that a dependency is done at once for data it
         *  received, one path latency later for a send of its own (the ACK) or for data its
         *  receiver received (the clear-to-send notification), two for a send of its
         *  receiver. tn_cost_estimate and tn_cost_program (its walk the same way; its step
         *  sum adds to a step of a non-pipelined algorithm the longest such wait of its
         *  ops). */
        int completion_messages;
        /** A library protocol's wire bytes and per-hop latency (NULL: none); not copied.
         *  tn_cost_estimate only. */
        const tn_cost_protocol* protocol;
    } tn_cost_options;

    /** Result of an estimate (owned by the caller, tn_cost_result_destroy). */
    typedef struct tn_cost_result
    {
        double time_ns;          /**< completion time of the last transfer */
        uint32_t link_count;     /**< entries in link_bytes / link_busy_ns */
        uint64_t* link_bytes;    /**< bytes carried per directed link id */
        double* link_busy_ns;    /**< serialisation time per directed link */
        uint64_t total_bytes;    /**< sum of transfer lengths */
        uint64_t link_bytes_sum; /**< sum of link_bytes (bytes x hops) */
        double max_link_busy_ns; /**< busiest link's busy time (a lower bound of time) */
        uint32_t transfer_count; /**< entries in start_ns / end_ns (0 if not kept) */
        double* start_ns;        /**< per transfer id, when keep_transfer_times */
        double* end_ns;
        tn_cost_model model; /**< the model that gave the times (the list model when the
                                  fluid one exceeded TN_COST_FLUID_WORK) */
    } tn_cost_result;

    /**
     * Estimate a finalized schedule (see contract). topo may be NULL (logical fully
     * connected model); routes may be NULL (computed internally when a transfer has
     * no explicit path). Fails with TN_EINVAL when the schedule has more ranks than
     * the topology has NPUs or a path is invalid.
     */
    tn_status tn_cost_estimate(const tn_schedule* s,
                               const tn_topology* topo,
                               const tn_routes* routes,
                               const tn_cost_options* options,
                               tn_cost_result** out,
                               tn_error* err);

    void tn_cost_result_destroy(tn_cost_result* result);

    /** algbw in bytes/s: bytes / time (0 when time_ns <= 0). */
    double tn_algbw(uint64_t bytes, double time_ns);

    /** busbw in bytes/s for a collective on `ranks` (conventions above). */
    double tn_busbw(tn_collective coll, uint32_t ranks, uint64_t bytes, double time_ns);

    /** Closed form 2(N-1)(a + S/(N*B)) in ns, B = rate_bps/8 bytes/s. */
    double tn_cost_ring_allreduce_ns(uint32_t ranks,
                                     uint64_t bytes,
                                     double latency_ns,
                                     uint64_t rate_bps);

    /** Lower bound 2(N-1)/N * S / B_inj in ns for any all-reduce (B_inj bit/s). */
    double tn_cost_allreduce_lower_bound_ns(uint32_t ranks, uint64_t bytes, uint64_t injection_bps);

    /**
     * Estimate of a generated collective (tn-program.h) without its DAG: the per-step
     * model. Ranks evaluated: all when ranks <= max_ranks (0: up to 64, or all of them up to
     * 1,024 ranks and 2^22 ops, tn-program-impl.h), else one rank of each of
     * max_ranks equal blocks, at a place in its block that varies with i (the golden ratio's
     * multiples, so that the samples do not all sit first of their switch). For each
     * evaluated rank r its program is
     * generated; the transfers of one step (all chunks and parts that share the step
     * number) run at once: those r receives take their routed path (tn_routes_path with
     * the flow hash of tn_transfer_flow_hash), those it sends the reverse of the path from
     * the peer to r (the routes are built only to the evaluated ranks: O(evaluated x
     * nodes) memory), and they share the links they have in common. A transfer then takes
     *     latency(path) + store and forward + max over its links of load(link) / rate(link)
     * with the packet rules of tn_cost_options (wire bytes, one packet's store and forward
     * per hop after the first), and the step takes its slowest transfer over the evaluated
     * ranks, or for a pipelined algorithm (tn_algorithm.pipelined) the mean over the ranks of
     * their slowest received transfer's latency and store and forward plus the step's
     * slowest serialisation; either at least the fabric's mean link load (the samples'
     * receives' link busy time times N / evaluated over the topology's links), and when every
     * rank is evaluated at least the mean latency of the step's receiving edges plus its
     * busiest link's busy time over all receives of the step (TN_COST_EXACT_LOADS). The time is
     * the sum over steps; for a pipelined algorithm with every rank's loads kept, its chain of
     * dependencies instead: each receive costs its latency, store and forward and the busiest
     * link of its path in its step, averaged over the ranks per op (the chain walks every
     * edge; the slowest rank's where the step receives from more than two peers, a fan-in),
     * the longest chain through that mean program (a receive follows the rank's send of
     * the same step to another peer), and at least the busiest link's and the fabric's mean
     * busy time over the collective. Exact where ranks are symmetric and each
     * link of a step carries only the transfers of one rank's sends or receives (ring on
     * a ring order of neighbours, hierarchical and ring2d on uniform dims: the unidirectional
     * ring all-reduce gives 2(N-1)(a + S/(N*B)) like tn_cost_estimate); it sees two ranks'
     * transfers meeting on a link of the fabric (fat-tree cores, transit on a torus) only
     * through the fabric's mean load, and overlaps a fast rank's next step with a slow
     * rank's current one only for pipelined algorithms. With completion_messages a step of a
     * non-pipelined algorithm also waits the longest delay after which one of its ops' senders
     * learns of a dependency (the ACK of its own send, the receiver's notification).
     * rhd, swing and dbt with every rank evaluated are walked instead (tn_cost_walk, private:
     * every rank's program, sends paired with receives, the transfers run as
     * tn_cost_estimate's fluid model runs the materialised schedule, so equal to it): their
     * steps overlap in time (pairs away from a step's hot links run ahead; a later step's
     * transfers share links with an earlier step's that still run), which no step sum sees. The
     * step sum answers beyond 2^20 ops or when the walk's fluid refills exceed, or are projected
     * from the transfers done to exceed, 8 x (transfers + path links) visited flows (swing on
     * torus:32x32 at 64 MiB).
     * Without a topology every rank pair has a private link (options->rate_bps and
     * latency_ns, as tn_cost_estimate).
     */
    typedef struct tn_cost_program_result
    {
        double time_ns;     /**< the estimate */
        uint32_t evaluated; /**< ranks whose programs were evaluated */
        uint32_t steps;     /**< steps of the evaluated programs (1 + largest step) */
        uint64_t ops;       /**< ops evaluated */
    } tn_cost_program_result;

    tn_status tn_cost_program(const tn_program* p,
                              const tn_cost_options* options,
                              uint32_t max_ranks,
                              tn_cost_program_result* out,
                              tn_error* err);

    /**
     * A lower bound of tn_cost_program(p, options, max_ranks) without its paths: when that
     * evaluates every rank (and p has a topology), the sum over steps of the larger of the
     * step's mean link load (every receive's wire bytes times its hops, at the fastest
     * link's rate, over the topology's links) and its shortest op's latency (hops times the
     * smallest link latency); 0 otherwise (samples). Each term is one the estimate's step
     * takes at least, so *bound_ns <= the estimate up to rounding. It generates every rank's
     * program but routes none: O(ops) against the estimate's O(ops x hops) (direct on
     * torus:32x32, 2 M ops: ~0.1 s against 1.4 s). The tuner skips a candidate whose bound
     * cannot make it one of the first two (tn_tune_options.first_two).
     */
    tn_status tn_cost_program_lower_bound(const tn_program* p,
                                          const tn_cost_options* options,
                                          uint32_t max_ranks,
                                          double* bound_ns,
                                          tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_COST_H */
