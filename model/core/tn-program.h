/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-program: rank-local programs, the operations of ONE rank of a collective computed from
 * (rank, algorithm, topology) without the global schedule.
 *
 * Contract
 * --------
 * A tn_program describes one collective request (tn_plan_request) of an algorithm that has
 * a generator: ring, ring-bidir, direct, rhd, dbt, ring2d, hierarchical, swing and swing-torus
 * (its registry entry's generator, tn_algorithm.generator; tn_program_supports). MultiTree and HDRM
 * have no closed form and Themis' global schedule is not generated yet (its run-time scheduler,
 * ThemisCollective, runs ring and direct chunk-phases, which are): they stay materialised
 * (tn_plan). Creating a program runs the same checks as tn_plan (tn_plan_check) and keeps only what
 * every rank shares: the request, the topology pointer (the topology must outlive the program and
 * not change), the ring order (ring, ring-bidir: N ranks) and the dims. Nothing grows with N^2.
 *
 * tn_program_rank(p, rank, &rp) computes the program of one rank: its operations in
 * program order, each a send (this rank -> peer) or a receive (peer -> this rank) of one
 * transfer of the materialised schedule (tn_plan with the same request), with that
 * transfer's src/dst offsets, length, op (copy or reduce at the receiver), step, dim and
 * chunk. Memory and time are O(operations of that rank + the size of its largest group):
 * O(steps) per rank for ring-like algorithms.
 *
 * Matching. The k-th send of rank a to rank b in program order (op.match == k) and the
 * k-th receive of rank b from rank a are the same transfer; both programs list the
 * transfers of one ordered pair in the order of their ids in the materialised schedule,
 * so op.match is the transfer's position among the pair's transfers (by id).
 *
 * Dependencies. A transfer starts once every transfer it depends on has completed. Every
 * dependency of every transfer of these algorithms is a transfer of its sender or of its
 * receiver (data the sender must have received or sent before, or data the receiver must
 * have received before it takes more). A send op lists the dependencies that are ops of
 * its own rank (sends or receives of the sender), a receive op lists the ones that are
 * ops of the receiver and not of the sender. Dep lists hold indices of EARLIER ops of the
 * same rank program, ascending and without repeats; the union over the two sides of a
 * transfer is exactly its dependency set in the materialised schedule. Ops with equal dep
 * lists share one copy (equal dep_start): when the sends of a phase all wait for the same
 * frontier (every gather send of a direct phase waits for all its reduce-scatter receives),
 * the deps take O(ops) and not O(ops x frontier); a consumer that keeps one counter per
 * distinct list (dep_start) stays O(ops) as well.
 *
 * Equivalence (test/core/test-program.c): for every generator, on torus, mesh, switch,
 * fat-tree, BiGraph and hierarchical topologies up to a few hundred NPUs, every collective
 * and chunk count the algorithm supports, the programs of all ranks equal the materialised,
 * verified schedule transfer for transfer: peers, bytes, offsets, op, step, dim, chunk and
 * dependencies, and every transfer appears once as a send and once as a receive.
 *
 * Memory guard: tn_program_create estimates what a planning run of the generated path
 * takes (tn_program_memory_estimate) and refuses beyond request->memory_limit (0 = the
 * default of tn-memory.h, UINT64_MAX = none) with TN_ENOMEM and a message saying how large
 * and what to change, like tn_plan.
 *
 * Ownership: create/destroy pairs; tn_rank_program_free releases the arrays of a rank
 * program (the struct itself is the caller's). Errors name the algorithm.
 */
#ifndef TN_PROGRAM_H
#define TN_PROGRAM_H

#include "tn-algorithm.h"
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

    /** One operation of a rank program (see contract). */
    typedef struct tn_program_op
    {
        uint8_t send;        /**< 1: this rank sends to peer; 0: it receives from peer */
        tn_op op;            /**< copy or reduce at the receiver */
        uint32_t peer;       /**< the other rank */
        uint32_t match;      /**< position among this direction's ops with peer */
        uint64_t src_offset; /**< address in the sender's buffer */
        uint64_t dst_offset; /**< address in the receiver's buffer */
        uint64_t length;     /**< bytes (0 = synchronisation only) */
        uint32_t step;       /**< logical step, as in the schedule */
        int32_t dim;         /**< topology dimension or -1 */
        uint32_t chunk;      /**< chunk index */
        uint32_t dep_start;  /**< first of this op's deps in tn_rank_program.deps */
        uint32_t dep_count;  /**< number of deps (indices of earlier ops of this rank) */
    } tn_program_op;

    /** The program of one rank, or a window of it (tn_program_rank_window). */
    typedef struct tn_rank_program
    {
        uint32_t rank;
        uint32_t count; /**< ops */
        uint32_t sends; /**< ops with send == 1 */
        uint32_t first; /**< program index of ops[0] (0 unless a window) */
        bool complete;  /**< ops reach the end of the rank's program */
        tn_program_op* ops;
        uint32_t* deps; /**< all ops' deps, op i's at deps[ops[i].dep_start ...] */
        size_t dep_total;
        size_t shared_start;   /**< the last dep list stored (ops with an equal one share it) */
        uint32_t shared_count; /**< its length */
        size_t op_cap;         /**< allocation sizes (reused by the next tn_program_rank) */
        size_t dep_cap;
        /* the builder's state (tn-program.c): the next op's program index, the end of the
         * window being filled, and the match counter of each (direction, peer) so far */
        uint32_t next_index;
        uint32_t window_end;
        uint64_t* match_keys; /**< open addressing, UINT64_MAX = empty */
        uint32_t* match_next;
        size_t match_cap;
        size_t match_used;
        /* the generator's cursor (tn_program_rank_advance): its state at the start of the
         * last phase it began at or before the window's end, from which a later window of
         * the same rank resumes instead of running the rank's program from its first op */
        bool cur_valid;
        bool resumed;        /**< the last fill resumed from the cursor (tests) */
        uint32_t cur_phase;  /**< phases begun before it */
        uint32_t cur_index;  /**< program index of its first op */
        uint32_t* cur_front; /**< the frontier entering it */
        size_t cur_front_n;
        size_t cur_front_cap;
        uint64_t* cur_keys; /**< the match counters then (a copy of match_*) */
        uint32_t* cur_next;
        size_t cur_keys_cap; /**< allocation sizes */
        size_t cur_next_cap;
        size_t cur_match_cap; /**< match_cap and match_used then */
        size_t cur_match_used;
    } tn_rank_program;

    typedef struct tn_program tn_program;

    /** Whether the named algorithm (name or alias) has a generator (its registry entry's
     *  generator is not TN_GENERATOR_NONE). */
    bool tn_program_supports(const char* algorithm);

    /**
     * Memory (bytes) a planning run of the generated path takes at its peak besides the
     * topology: the program (ring order, dims), one rank program of `ops_per_rank`
     * ops, and the working memory of the estimate (tn_cost_program: routes to `samples`
     * destinations over `nodes` nodes). Saturates at UINT64_MAX.
     */
    uint64_t tn_program_memory_estimate(uint32_t ranks,
                                        uint64_t ops_per_rank,
                                        uint32_t samples,
                                        uint32_t nodes);

    /**
     * Check the request like tn_plan (algorithm, collective, ranks, root, rank order, the
     * algorithm's own check), refuse algorithms without a generator (TN_EUNSUPPORTED naming
     * them and saying to use tn_plan) and plans beyond the memory limit (TN_ENOMEM), and
     * create the program. topo may be NULL for ring, ring-bidir, direct, rhd and dbt (as
     * tn_plan). The request's strings and rank order are copied.
     */
    tn_status tn_program_create(const tn_topology* topo,
                                const tn_plan_request* request,
                                tn_program** out,
                                tn_error* err);

    /** Free a program; NULL is ignored. */
    void tn_program_destroy(tn_program* p);

    const char* tn_program_algorithm(const tn_program* p); /**< registry name */
    tn_collective tn_program_collective(const tn_program* p);
    uint32_t tn_program_ranks(const tn_program* p);
    uint64_t tn_program_bytes(const tn_program* p);
    uint32_t tn_program_chunks(const tn_program* p);
    uint32_t tn_program_root(const tn_program* p);
    const tn_topology* tn_program_topology(const tn_program* p);

    /** Largest number of ops of one rank's program (a closed form per algorithm, exact or
     *  an upper bound): sizes the buffers of tn_program_rank and the memory guard. */
    uint64_t tn_program_max_ops(const tn_program* p);

    /** Transfers of the whole collective (closed form; *exact says whether it is the
     *  exact count or an upper estimate). */
    uint64_t tn_program_transfers(const tn_program* p, bool* exact);

    /**
     * The program of `rank` (< ranks) into *rp (see contract). rp must be zeroed before
     * its first use; its arrays are reused and grown by later calls.
     */
    tn_status tn_program_rank(const tn_program* p,
                              uint32_t rank,
                              tn_rank_program* rp,
                              tn_error* err);

    /**
     * A window of the program of `rank`: its ops first, first + 1, ... (at most max_ops >= 1;
     * fewer at the end of the program) into *rp, as tn_program_rank gives them, except that
     * rp->first = first and that dep lists hold PROGRAM indices: an op of the window may wait
     * for ops before it. rp->complete says whether the window reaches the program's end.
     * Windows laid end to end are tn_program_rank's program, matches included, so a consumer
     * can stream a rank's program in memory bounded by max_ops (plus the generator's
     * frontiers and one match counter per peer) instead of the rank's ops. The generator
     * runs from the rank's first op and keeps only the window: a window costs O(first +
     * max_ops) time (tn_program_rank_advance moves a window on without that cost). rp must be
     * zeroed before its first use; its arrays are reused.
     */
    tn_status tn_program_rank_window(const tn_program* p,
                                     uint32_t rank,
                                     uint32_t first,
                                     uint32_t max_ops,
                                     tn_rank_program* rp,
                                     tn_error* err);

    /**
     * Move a window of `rank` on: afterwards *rp is what tn_program_rank_window(p, rank, first,
     * max_ops) gives (the same ops, dep lists and sharing of equal lists), but only the ops
     * past the window's old end are generated, and the generator resumes from its cursor (the
     * start of the phase it stopped in) rather than from the rank's first op: a renewal costs
     * O(new ops + one phase's set-up), not O(first). rp holds a window of rank from
     * tn_program_rank_window, tn_program_rank_advance or tn_rank_program_copy_cursor with
     * rp->first <= first, or is zeroed with rp->first <= first (then the generator runs from
     * the rank's first op, as tn_program_rank_window).
     */
    tn_status tn_program_rank_advance(const tn_program* p,
                                      uint32_t rank,
                                      uint32_t first,
                                      uint32_t max_ops,
                                      tn_rank_program* rp,
                                      tn_error* err);

    /**
     * Make dst an empty window of src's rank at src's cursor, so that a window of a later
     * stretch of the same rank's program (tn_program_rank_advance on dst from an index at or
     * after src's window's end) resumes where src's generator stopped. dst must be zeroed
     * or a rank program of its own (its arrays are reused).
     */
    tn_status tn_rank_program_copy_cursor(tn_rank_program* dst,
                                          const tn_rank_program* src,
                                          tn_error* err);

    /**
     * Release what the builder holds beyond the program: the spare capacity of ops and deps
     * (arrays grow by doubling, so up to half of them) and the match counters. For a
     * consumer that keeps many rank programs at once; the program reads as before, and a
     * later tn_program_rank on rp grows the arrays again.
     */
    void tn_rank_program_compact(tn_rank_program* rp);

    /** Free the arrays of a rank program (the struct stays the caller's). */
    void tn_rank_program_free(tn_rank_program* rp);

    /** Deps of ops[i]: *count program indices of earlier ops of the same rank. */
    const uint32_t* tn_rank_program_deps(const tn_rank_program* rp, uint32_t i, uint32_t* count);

#ifdef __cplusplus
}
#endif

#endif /* TN_PROGRAM_H */
