/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-tune: the algorithm tuner behind algorithm "auto": every registered algorithm that
 * applies to a request, ranked by the cost model's estimate (like NCCL's tuner).
 *
 * Contract
 * --------
 * tn_tune_rank(topo, request, options, &ranking, err) considers every algorithm of the
 * registry (tn_algorithms(), each once under its registry name, in registry order) that
 * implements request->collective and is not a library's model (tn_algorithm.family: nccl,
 * whose time includes costs the others do not pay); request->algorithm is ignored. For each
 * candidate the request is copied with the candidate's name (and, when request->chunks is 0, the
 * candidate's tn_algorithm_default_chunks: Themis ranks with its 64 chunk-phases) and
 *  - skipped (not an error) when tn_plan_check refuses it (swing needs power-of-two ranks,
 *    ring2d a 2D torus, hdrm a BiGraph, anything needing a topology when topo is NULL, a
 *    rank order given to an algorithm that takes none), when options->path is
 *    TN_TUNE_GENERATED and it has no rank-local generator, when it has none and its
 *    materialised schedule would exceed options->schedule_transfers (tn_plan_estimate), or
 *    when planning or estimating it fails (the memory guard of tn_plan / tn_program_create),
 *    or, once estimated on its programs, when they would hold more than options->held_limit
 *    while it runs (its estimate kept); the reason is kept (tn_tune_candidate.skipped,
 *    starting with the algorithm's name);
 *  - otherwise estimated on the path the programs take: with TN_TUNE_AUTO the materialised
 *    schedule (tn_plan, then tn_cost_estimate: the DAG, links shared by the fluid model) up
 *    to options->schedule_transfers transfers or when the algorithm has no generator, the
 *    rank-local programs and the per-step estimate (tn_program_create, tn_cost_program) beyond
 *    it; TN_TUNE_GENERATED the programs wherever a generator exists; TN_TUNE_SCHEDULE the
 *    schedule always. These are the estimates tn-plan prints and the ns-3 CollectiveService
 *    records as estimated_ns for the same path, cost options and routes. One exception
 *    keeps the ranking fast: with TN_TUNE_AUTO an algorithm with a generator whose schedule
 *    has more than options->estimate_transfers transfers (default
 *    TN_TUNE_ESTIMATE_TRANSFERS) is ranked on its programs even below schedule_transfers
 *    (generated true): building and simulating its DAG would take seconds (rhd on ring:32,
 *    64 KiB in 1000 chunks, 640,000 transfers: 9.9 s against 0.1 s), and the programs'
 *    estimate suffices to rank it; the chosen algorithm is then planned on its own path.
 * The ranked candidates are ordered by estimate, ascending; equal estimates keep registry
 * order (deterministic). tn_tune_best is the first (the choice), tn_tune_runner_up the second
 * (NULL with one candidate). The skipped candidates follow the ranked ones, in registry order.
 * When no candidate is ranked the call fails with TN_EUNSUPPORTED and a message that starts
 * "auto: no algorithm applies to" and lists each candidate's reason (truncated at the error
 * buffer's size).
 *
 * Names: TN_TUNE_AUTO ("auto") is the algorithm name that asks for the tuner wherever an
 * algorithm is named. tn_tune_algorithm_check is the one check of a user's algorithm name:
 * a registry name or alias, or "auto"; anything else is TN_EINVAL with the known names.
 * tn_tune_plan_check is tn_plan_check that also takes "auto" (TN_OK when at least one
 * candidate passes tn_plan_check; no planning, no estimate) and refuses an unknown name with
 * tn_tune_algorithm_check's message. tn_plan itself refuses "auto".
 *
 * Ownership: tn_tune_rank allocates the ranking; tn_tune_ranking_destroy frees it (NULL is
 * ignored). Candidates' names are the registry's static strings; reasons are owned by the
 * ranking. On failure *out is NULL.
 */
#ifndef TN_TUNE_H
#define TN_TUNE_H

#include "tn-algorithm.h"
#include "tn-cost.h"
#include "tn-error.h"
#include "tn-routing.h"
#include "tn-topology.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** The algorithm name that asks for the tuner. */
#define TN_TUNE_AUTO "auto"

/** Default of tn_tune_options.schedule_transfers: the materialised schedule up to this many
 *  transfers (the threshold of tn-plan's and the CollectiveService's program path "auto"). */
#define TN_TUNE_SCHEDULE_TRANSFERS 1000000

/** Default of tn_tune_options.estimate_transfers: an algorithm with a generator is ranked on
 *  its programs beyond this many transfers (see contract). */
#define TN_TUNE_ESTIMATE_TRANSFERS 65536

    /** first_two: candidates whose programs' estimate walks at least this many ops (direct on
     *  1,024 NPUs: 2 M ops, 1.4 s of a 2.7 s ranking on torus:32x32) are bounded first. */
#define TN_TUNE_DEFER_OPS (UINT64_C(1) << 20)

    /** Which path estimates a candidate (see contract). */
    typedef enum tn_tune_path
    {
        TN_TUNE_AUTO_PATH = 0, /**< schedule up to schedule_transfers, programs beyond */
        TN_TUNE_GENERATED = 1, /**< rank-local programs only (others skipped) */
        TN_TUNE_SCHEDULE = 2   /**< the materialised schedule always */
    } tn_tune_path;

    /** Options of the ranking; tn_tune_options_init sets the defaults. */
    typedef struct tn_tune_options
    {
        const tn_cost_options* cost; /**< packets, rates (NULL = tn_cost defaults) */
        const tn_routes* routes;     /**< routes of topo for the DAG estimate (NULL: built) */
        tn_tune_path path;           /**< default TN_TUNE_AUTO_PATH */
        uint64_t schedule_transfers; /**< default TN_TUNE_SCHEDULE_TRANSFERS */
        uint64_t estimate_transfers; /**< default TN_TUNE_ESTIMATE_TRANSFERS */
        uint32_t sample_ranks;       /**< tn_cost_program's max_ranks (0 = its default) */
        /** keep the choice's schedule and cost result when it was ranked on its schedule
         *  (tn_tune_take_choice): a caller that plans the choice next (tn-plan) need not
         *  build and estimate it again. Costs the memory of one more schedule while ranking.
         *  Default false. */
        bool keep_choice;
        /** the caller needs the choice and the runner-up only (the CollectiveService): a
         *  candidate that would be ranked on its programs with every rank evaluated and at
         *  least TN_TUNE_DEFER_OPS ops over them is estimated after the others, and skipped
         *  ("NAME: cannot be among the first two: ...") when its lower bound
         *  (tn_cost_program_lower_bound) exceeds the runner-up's estimate. The choice and
         *  the runner-up, with their estimates, are those of the whole ranking; the others
         *  may be missing. Default false (tn-plan prints every candidate). */
        bool first_two;
        /** The bytes a candidate's rank-local programs may hold while it runs (0, the default:
         *  no limit). A candidate ranked on its programs that would hold more is skipped with
         *  its estimate kept (tn_tune_candidate.held_bytes): the run could not hold it, however
         *  fast (hierarchical on 16,384 NPUs of 2,048 servers: 8,220 ops a rank, 24 GiB), and
         *  the next fastest that fits is chosen. What a candidate holds follows its consumer
         *  (CollectiveService): whole programs, two ops a transfer, when they fit; else, with
         *  held_window > 0, windows of max(held_window, held_margin x tn_program_min_window)
         *  ops on each rank (a rank's whole program where it has fewer: the first windows,
         *  where later streams may add some); held_op_bytes each. */
        uint64_t held_limit;
        uint64_t held_op_bytes; /**< bytes of one held op (held_limit > 0) */
        uint32_t held_window;   /**< ops a window holds at least; 0: whole programs only */
        uint32_t held_margin;   /**< times the least window a window holds at least */
    } tn_tune_options;

    /** One candidate of a ranking. */
    typedef struct tn_tune_candidate
    {
        const char* algorithm; /**< registry name */
        double estimate_ns;    /**< the estimate (ranked ones, held_bytes > 0; else -1) */
        bool generated;        /**< estimated on the rank-local programs (else the DAG) */
        const char* skipped;   /**< NULL when ranked, else why it was skipped */
        /** skipped for holding this many bytes, more than options->held_limit (estimate_ns
         *  then kept); else 0 */
        uint64_t held_bytes;
    } tn_tune_candidate;

    typedef struct tn_tune_ranking tn_tune_ranking;

    /** Defaults: cost NULL, routes NULL, TN_TUNE_AUTO_PATH, TN_TUNE_SCHEDULE_TRANSFERS,
     *  TN_TUNE_ESTIMATE_TRANSFERS, 0, no held limit. */
    void tn_tune_options_init(tn_tune_options* options);

    /** Whether name asks for the tuner ("auto"). */
    bool tn_tune_is_auto(const char* algorithm);

    /** A user's algorithm name: a registry name or alias, or "auto" (see contract). */
    tn_status tn_tune_algorithm_check(const char* algorithm, tn_error* err);

    /** tn_plan_check that also takes "auto" (see contract). */
    tn_status tn_tune_plan_check(const tn_topology* topo,
                                 const tn_plan_request* request,
                                 tn_error* err);

    /** Rank the algorithms for the request (see contract); options NULL = defaults. */
    tn_status tn_tune_rank(const tn_topology* topo,
                           const tn_plan_request* request,
                           const tn_tune_options* options,
                           tn_tune_ranking** out,
                           tn_error* err);

    void tn_tune_ranking_destroy(tn_tune_ranking* ranking);

    /** Candidates: ranked ones first (by estimate), then skipped ones. */
    uint32_t tn_tune_count(const tn_tune_ranking* ranking);
    /** How many of them are ranked (>= 1). */
    uint32_t tn_tune_ranked(const tn_tune_ranking* ranking);
    /** Candidate i < tn_tune_count (NULL beyond). */
    const tn_tune_candidate* tn_tune_candidate_at(const tn_tune_ranking* ranking, uint32_t i);
    /** The choice: the candidate of the smallest estimate. */
    const tn_tune_candidate* tn_tune_best(const tn_tune_ranking* ranking);
    /** The second-ranked candidate, NULL when only one is ranked. */
    const tn_tune_candidate* tn_tune_runner_up(const tn_tune_ranking* ranking);

    /**
     * With options->keep_choice: hand the choice's schedule and its estimate's cost result
     * (the caller destroys them) when the choice was ranked on its schedule, else set both
     * NULL (ranked on its programs, or keep_choice false). The schedule is what tn_plan makes
     * of the request with the choice's name and chunks (the tuner's candidate request), the
     * cost result what tn_cost_estimate gives it with the ranking's cost options and routes.
     */
    void tn_tune_take_choice(tn_tune_ranking* ranking,
                             tn_schedule** schedule,
                             tn_cost_result** cost);

    /**
     * Write the ranking, one line per candidate, as tn-plan prints it: "  1 NAME  EST us
     * DAG|programs  chosen" (runner-up on the second line), "  - NAME  skipped: REASON".
     * The caller checks the stream for errors.
     */
    void tn_tune_write(const tn_tune_ranking* ranking, FILE* file);

#ifdef __cplusplus
}
#endif

#endif /* TN_TUNE_H */
