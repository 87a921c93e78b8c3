/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-program-impl: PRIVATE header of the rank-local programs (tn-program.c, the builder
 * and the rank-local phases; tn-program-gen.c, the generators; tn-cost-program.c, the
 * estimate, tn-cost-walk.c its walk and tn-cost-bound.c its lower bound). Not installed for users.
 */
#ifndef TN_PROGRAM_IMPL_H
#define TN_PROGRAM_IMPL_H

#include "tn-algorithm-impl.h"
#include "tn-program.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

/** Ranks the estimate samples (tn_cost_program) when it does not take them all. */
#define TN_PROGRAM_COST_SAMPLES 64

/** The estimate takes every rank, and so every link's load (tn-cost.h), up to this many ranks
 *  and this many ops over all of them: every generated algorithm at 1,024 NPUs (direct's and
 *  ring's 4.2 M ops: direct meets hash collisions on a fat-tree's core links, +29 % over the
 *  mean load on fattree:k=8; hierarchical with one level is direct). */
#define TN_PROGRAM_COST_EXACT_RANKS 1024
#define TN_PROGRAM_COST_EXACT_OPS (UINT64_C(1) << 22)

    /** Ranks tn_cost_program evaluates by default: all of them up to TN_PROGRAM_COST_SAMPLES, or
     *  within the limits above; TN_PROGRAM_COST_SAMPLES otherwise. */
    uint32_t tn_program_cost_ranks(const tn_program* p);

    struct tn_cost_options; /* tn-cost.h */

    /** Wire bytes of a transfer of len bytes in packets of mtu payload bytes with ovh bytes of
     *  headers each (mtu 0: no packets, len), as tn_cost_options says. */
    static inline uint64_t tn_cost_wire_bytes(uint32_t mtu, uint32_t ovh, uint64_t len)
    {
        if (mtu == 0)
            return len;
        uint64_t packets = len == 0 ? 1 : (len + mtu - 1) / mtu;
        return len + packets * ovh;
    }

/** The walk (tn_cost_walk) takes programs of up to this many ops over every rank (rhd and
 *  swing at 1,024 NPUs: about 41,000; direct's 2.1 M are beyond: its one step is no walk). */
#define TN_COST_WALK_OPS (UINT64_C(1) << 20)
/** The walk's fluid budget: it gives up (the step sum answers) once the engine's rate refills
 *  have visited this many times (transfers + path links) flows, or are on their way to it
 *  (from a sixteenth of the transfers done on, the visits so far per transfer done). */
#define TN_COST_WALK_WORK 8.0

    /**
     * The dependency walk of a generated collective across every rank, for the algorithms
     * whose steps overlap in time (tn_cost_program uses it for rhd, swing and dbt when it
     * evaluates every rank): every rank's program is generated, each send paired with its
     * receive (a transfer), and the transfers run as tn_cost_estimate's fluid model runs the
     * materialised schedule: posted when the ops both sides list as deps are done (with
     * options->completion_messages, as the executor learns of them: the ACK of its own send,
     * the receiver's notification), one at a time per (sender, receiver) queue pair, sharing
     * the links of their routed paths (flow hash (src << 32) | dst) max-min fairly, each ending
     * its latency and one packet's store and forward per hop after its bits. So a pair away
     * from a step's hot links goes on to its next step, and a later step's transfers share a
     * link with an earlier step's that still run. *answered is false (and *out_ns untouched)
     * without a topology, beyond TN_COST_WALK_OPS ops or TN_COST_WALK_WORK.
     */
    tn_status tn_cost_walk(const tn_program* p,
                           const struct tn_cost_options* options,
                           double* out_ns,
                           bool* answered,
                           tn_error* err);

    struct tn_program
    {
        const tn_topology* topo;
        const tn_algorithm* algo;
        tn_plan_request req;         /* rank order not kept (see order) */
        tn_algorithm_generator kind; /* algo->generator, never NONE */
        tn_collective coll;
        uint32_t N, C, root;
        uint64_t S;
        uint32_t* order;  /* ring, ring-bidir: rank at ring position k (N) */
        uint32_t* pos_of; /* its inverse (N) */
        uint32_t D;       /* dims of the topology (ring2d, hierarchical) */
        uint32_t* dsize;
        uint32_t* dstride;
        tn_dim_kind* dkind;
        uint32_t** line;     /* per dim: ring position -> coordinate (line order on mesh) */
        uint32_t** line_pos; /* per dim: coordinate -> ring position */
        /* swing (one part), swing-torus (2 D parts): per part, its peers (L x N, by ring
         * position), block slots (pos) and their inverse (at), from tn_algo_swing_layout */
        uint32_t sw_L, sw_parts;
        uint32_t* sw_peers;
        uint32_t* sw_pos;
        uint32_t* sw_at;
    };

    int tn_cmp_u64(const void* a, const void* b);

    /** Fields of a new op. */
    typedef struct tn_rp_spec
    {
        bool send;
        tn_op op;
        uint32_t peer;
        uint64_t src_offset;
        uint64_t dst_offset;
        uint64_t length;
        uint32_t step;
        int32_t dim;
        uint32_t chunk;
    } tn_rp_spec;

/**
 * Not an error: tn_rp_emit's answer when the window being built is full. Generators pass
 * it up like an error status (they stop at the first non-zero one); tn_program_rank_window
 * turns it into TN_OK with rp->complete false.
 */
#define TN_PROGRAM_WINDOW_FULL ((tn_status)(TN_EDB + 1))

    /**
     * Append an op whose deps are deps_a + deps_b (either may be NULL; sorted, unique), and
     * give its program index in *index. An op before rp's window is only counted (its
     * index and match); past the window's end nothing is emitted and the answer is
     * TN_PROGRAM_WINDOW_FULL.
     */
    tn_status tn_rp_emit(tn_rank_program* rp,
                         const tn_rp_spec* o,
                         const tn_ids* deps_a,
                         const tn_ids* deps_b,
                         uint32_t* index,
                         tn_error* err);

    /** The generator's cursor (tn_program_rank_advance): save its state at the start of phase
     *  `phase` (the next op's index, the match counters, the frontier `front` entering it). */
    tn_status tn_rp_cursor_save(tn_rank_program* rp,
                                uint32_t phase,
                                const tn_ids* front,
                                tn_error* err);
    /** Restore the state saved by tn_rp_cursor_save into rp and front. */
    tn_status tn_rp_cursor_restore(tn_rank_program* rp, tn_ids* front, tn_error* err);

    /** Count `count` ops of (send, peer) before rp's window without emitting them (their
     *  match numbers); the caller moves rp->next_index past them. */
    tn_status tn_rp_skip(tn_rank_program* rp,
                         bool send,
                         uint32_t peer,
                         uint32_t count,
                         tn_error* err);

    /**
     * A phase seen by one member (the twin of tn_phase): members by ring position, the
     * member's position k, parts by position (count * ranges), the member's entry frontier
     * `in` and exit frontier `out` (op indices of its own program), three scratch lists.
     */
    typedef struct tn_rphase
    {
        const tn_topology* topo;
        tn_rank_program* rp;
        const tn_ids* in;
        tn_ids* out;
        const uint32_t* members;
        uint32_t count;
        uint32_t k;
        const tn_slice* parts;
        uint32_t step;
        uint32_t chunk;
        int32_t dim;
        bool chain;
        tn_ids* scratch;
        /* parts computed on demand when `parts` is NULL: the flat ring's window would
         * otherwise fill all N parts of its chunk on every renewal */
        tn_slice (*part_of)(const void* ctx, size_t index);
        const void* part_ctx;
    } tn_rphase;

    /** Part `index` (position * ranges per part + range) of a phase. */
    static inline tn_slice tn_rphase_part(const tn_rphase* ph, size_t index)
    {
        return ph->parts ? ph->parts[index] : ph->part_of(ph->part_ctx, index);
    }

    int32_t tn_rphase_dim(const tn_rphase* ph, uint32_t a, uint32_t b);
    /** ring_one of tn-algo-ring.c for member k; nr ranges per part. */
    tn_status tn_rphase_ring(const tn_rphase* ph, uint32_t nr, bool rs, tn_error* err);
    /** direct_phase of tn-algo-direct.c for member k. */
    tn_status tn_rphase_direct(const tn_rphase* ph, bool rs, tn_error* err);

    /* tn-program-gen.c */
    tn_status tn_program_gen_init(tn_program* p, const tn_plan_request* req, tn_error* err);
    void tn_program_gen_free(tn_program* p);
    tn_status tn_program_gen_rank(const tn_program* p,
                                  uint32_t rank,
                                  tn_rank_program* rp,
                                  tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_PROGRAM_IMPL_H */
