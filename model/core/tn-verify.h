/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-verify: symbolic execution of a collective schedule (tn-schedule.h).
 *
 * Contract
 * --------
 * tn_verify() proves that a finalized schedule performs its collective:
 *  - State: every rank's address space (tn_schedule_buffer_size) is an interval
 *    map (never per byte: 64 MiB schedules verify as fast as 64-byte ones). Each
 *    interval holds either "no data" or a value {contribution set, origin shift}:
 *    the set of ranks whose input is summed in it (a single rank for gathered /
 *    broadcast / all-to-all data) and the difference between the address the
 *    data had at its origin and its current address (0 except after
 *    all-to-all-like moves). Sets are exact (sorted runs of rank ids), so a
 *    1024-rank set costs a few bytes when contiguous.
 *  - Initial state: the collective's precondition (tn-schedule.h contract).
 *  - Execution: transfers run in the schedule's topological order. A transfer may
 *    only read bytes its source holds ("no data" is an error); a copy overwrites
 *    the destination; a reduce requires the destination to hold data of the same
 *    origin shift and a DISJOINT contribution set (a contribution counted twice
 *    is an error) and stores the union.
 *  - Dependency sufficiency (the key check): each interval also remembers which
 *    transfers wrote it (the last copy and the reduces since) and which read it
 *    since the last copy. Then:
 *      read  (source range of any transfer): every writer must be an ancestor of
 *            the reader in the DAG (else the reader may run before its producer);
 *      copy  into a range: every earlier writer and reader must be an ancestor
 *            (else an unordered transfer may see or clobber the new data);
 *      reduce into a range: the last copy writer and every reader must be
 *            ancestors (reduces among themselves commute and need no order).
 *    With these conditions every topological order gives the same final state,
 *    so checking one order is enough. "Ancestor" = reachable through deps.
 *    A local op (tn_op_is_local) reads and writes ranges of one rank under the
 *    same rules (a local reduce as a reduce, a local copy as a copy).
 *  - Final state: every rank must hold exactly the postcondition on the ranges
 *    the collective defines ("don't care" ranges are not checked).
 *  - On the first violation tn_verify returns TN_EVERIFY with a message naming the
 *    transfer id (with src, dst and step), the rank, the byte range and what was
 *    missing, extra or unordered, e.g.
 *      "transfer 17 (3->4 step 2): rank 3 [1000,2000) holds no data"
 *      "transfer 9 (1->2 step 0) reads rank 1 [0,250) written by transfer 5
 *       which is not an ancestor"
 *      "final state: rank 2 [750,1000) holds {0-1,3}, expected {0-3}".
 *    Other status codes: TN_EINVAL (schedule not finalized), TN_ENOMEM.
 *  - Cost: O((transfers + intervals touched) * log) plus, for reads whose writer
 *    is not a direct dep, a backward search pruned by topological position.
 *
 * tn_verify_contention(): for schedules (claiming contention freedom or not)
 * maps every transfer of length > 0 to its directed links (explicit path, or
 * tn_routes_path between the NPU nodes of src and dst with
 * tn_transfer_flow_hash()) and reports every (directed link, step) used by more
 * than one transfer. Returns TN_OK with the report even when conflicts exist;
 * TN_EINVAL when a path is invalid (wrong link chain, unreachable). When the
 * schedule claims contention freedom, tn_verify_schedule() turns a non-empty
 * report into TN_EVERIFY.
 */
#ifndef TN_VERIFY_H
#define TN_VERIFY_H

#include "tn-error.h"
#include "tn-path.h" /* the links of a transfer, which the contention report uses */
#include "tn-routing.h"
#include "tn-schedule.h"
#include "tn-topology.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** Data correctness and dependency sufficiency (see contract). */
    tn_status tn_verify(const tn_schedule* s, tn_error* err);

    /** One (directed link, step) shared by two transfers. */
    typedef struct tn_conflict
    {
        uint32_t link;       /**< directed link id */
        uint32_t step;       /**< logical step */
        uint32_t transfer_a; /**< first transfer (smaller id) using the link in the step */
        uint32_t transfer_b; /**< another transfer using it */
    } tn_conflict;

    /** Contention report: every conflict, sorted by (step, link, transfer_b). */
    typedef struct tn_contention_report
    {
        uint64_t conflicts; /**< number of (link, step, extra transfer) conflicts */
        uint64_t stored;    /**< entries in `list` (all of them) */
        tn_conflict* list;
        uint64_t link_steps_used; /**< distinct (link, step) pairs used */
    } tn_contention_report;

    /**
     * Contention report (see contract). routes may be NULL: computed internally.
     * The schedule must be finalized and its ranks <= the topology's NPU count.
     * The caller frees *out with tn_contention_report_destroy.
     */
    tn_status tn_verify_contention(const tn_schedule* s,
                                   const tn_topology* topo,
                                   const tn_routes* routes,
                                   tn_contention_report** out,
                                   tn_error* err);

    void tn_contention_report_destroy(tn_contention_report* report);

    /**
     * tn_verify(), then, when topo != NULL and the schedule claims contention
     * freedom, tn_verify_contention(); a conflict gives TN_EVERIFY naming the first
     * (link with its nodes, step, both transfers). routes may be NULL.
     */
    tn_status tn_verify_schedule(const tn_schedule* s,
                                 const tn_topology* topo,
                                 const tn_routes* routes,
                                 tn_error* err);

/**
 * What one segment of a rank's map costs the verifier, in bytes: the segment, its start, its
 * share of the arrays' doubling and its lists of writers and readers (measured: 4,096 ranks of
 * rhd's all-reduce hold 16.8 M segments in about 2.1 GB at the end).
 */
#define TN_VERIFY_SEGMENT_BYTES 128u

    /**
     * tn_verify_schedule() within a memory budget. The verifier's state grows with the ranks
     * times the pieces each rank holds with their own writers (an all-reduce's all-gather
     * leaves every rank P pieces: P^2 segments, 34 GB at 16,384 ranks). Its rank maps'
     * segments are counted at TN_VERIFY_SEGMENT_BYTES each; once they pass budget_bytes the
     * verifier stops and returns TN_EUNSUPPORTED naming the budget and the transfer reached:
     * the schedule is neither proven nor refuted. budget_bytes 0 = no budget
     * (tn_verify_schedule).
     */
    tn_status tn_verify_schedule_within(const tn_schedule* s,
                                        const tn_topology* topo,
                                        const tn_routes* routes,
                                        uint64_t budget_bytes,
                                        tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_VERIFY_H */
