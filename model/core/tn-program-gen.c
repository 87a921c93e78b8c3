/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The generators of the rank-local programs (contract in tn-program.h). Each one is the
 * twin of the algorithm's materialised plan in tn-algo-*.c: the same
 * loops over chunks, parts, phases and steps in the same order, restricted to the ops of
 * one rank, so that the ops of an ordered rank pair come in the order of their transfer
 * ids. A frontier holds the rank's own ops the next phase depends on (the rank's entry of
 * the global tn_front), so nothing is kept for the other ranks. Over 1,000 lines for a
 * reason: one generator per algorithm (flat, chain, direct, rhd, dbt, hierarchical, swing),
 * all on the frontier and phase machinery at the top of this file, which splitting would
 * expose.
 */
#include "tn-program-impl.h"
#include "tn-rank-order.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Working memory of one tn_program_rank call. */
typedef struct gen
{
    const tn_program* p;
    uint32_t r;
    tn_rank_program* rp;
    tn_ids a, b;       /* frontier in / out */
    tn_ids scratch[3]; /* tn_rphase scratch */
    tn_ids t;          /* receives kept by a generator (chain, dbt, rhd) */
    tn_ids u;
    uint32_t* members; /* N */
    uint32_t* rmembers;
    tn_slice* parts; /* N: parts by position */
    tn_slice* h0;
    tn_slice* h1;
    uint32_t phase; /* phases begun (phase_begin) */
} gen;

/* A phase begins (ring2d, the flat ring, ring-bidir and direct, hierarchical: the generators
 * whose state between phases is their frontier and match counters; the others run from the
 * rank's first op every window). A run resumed from the cursor (tn_program_rank_advance)
 * skips the phases before it (true) and restores the state at it; otherwise the cursor moves
 * here while the window is not full, so that the next window resumes from this phase. */
static bool
phase_begin(gen* g, tn_status* st, tn_error* err)
{
    tn_rank_program* rp = g->rp;
    uint32_t ph = g->phase++;
    if (rp->resumed && ph < rp->cur_phase)
        return true;
    if (rp->resumed && ph == rp->cur_phase)
    {
        g->b.n = 0;
        *st = tn_rp_cursor_restore(rp, &g->a, err);
    }
    else if (rp->next_index <= rp->window_end)
        *st = tn_rp_cursor_save(rp, ph, &g->a, err);
    return false;
}

static void
swap_ids(tn_ids* x, tn_ids* y)
{
    tn_ids t = *x;
    *x = *y;
    *y = t;
}

/* After a phase: ranks that wrote nothing keep their frontier (tn_front_carry), then
 * out becomes in. */
static tn_status
carry_swap(gen* g, tn_error* err)
{
    tn_status st = g->b.n == 0 ? tn_ids_copy(&g->b, &g->a, err) : TN_OK;
    swap_ids(&g->a, &g->b);
    g->b.n = 0;
    return st;
}

static tn_rphase
rphase(gen* g, const uint32_t* members, uint32_t count, uint32_t k, const tn_slice* parts)
{
    tn_rphase ph = {g->p->topo,
                    g->rp,
                    &g->a,
                    &g->b,
                    members,
                    count,
                    k,
                    parts,
                    0,
                    0,
                    TN_DIM_AUTO,
                    false,
                    g->scratch,
                    NULL,
                    NULL};
    return ph;
}

/* ---- ring, ring-bidir, direct: one group of all ranks (tn_algo_flat_plan) ------------ */

static tn_status
flat_phase(gen* g, tn_rphase* ph, bool rs, tn_error* err)
{
    const tn_program* p = g->p;
    if (p->kind == TN_GENERATOR_RING)
        return tn_rphase_ring(ph, 1, rs, err);
    if (p->kind == TN_GENERATOR_DIRECT)
        return tn_rphase_direct(ph, rs, err);
    /* ring-bidir: half 0 forward, half 1 on the reversed ring (ring_bidir) */
    uint32_t P = ph->count;
    for (uint32_t k = 0; k < P; k++)
    {
        tn_slice a = tn_slice_of(ph->parts[k].length, 2, 0);
        tn_slice b = tn_slice_of(ph->parts[k].length, 2, 1);
        a.offset += ph->parts[k].offset;
        b.offset += ph->parts[k].offset;
        g->h0[k] = a;
        g->rmembers[P - 1 - k] = ph->members[k];
        g->h1[P - 1 - k] = b;
    }
    tn_rphase f = *ph;
    f.parts = g->h0;
    tn_status st = tn_rphase_ring(&f, 1, rs, err);
    f.members = g->rmembers;
    f.parts = g->h1;
    f.k = P - 1 - ph->k;
    if (!st)
        st = tn_rphase_ring(&f, 1, rs, err);
    return st;
}

/* A flat phase's parts, computed per position (tn_rphase.part_of). */
typedef struct flat_parts
{
    const tn_program* p;
    uint32_t chunk;
} flat_parts;

static tn_slice
flat_part(const void* ctx, size_t position)
{
    const flat_parts* f = ctx;
    const tn_program* p = f->p;
    uint32_t rank = p->order ? p->order[position] : (uint32_t)position;
    return tn_chunk_block(p->coll, p->S, p->N, p->C, f->chunk, rank);
}

static tn_status
gen_flat(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t N = p->N;
    const uint32_t* members = p->order ? p->order : g->members;
    uint32_t k = p->order ? p->pos_of[g->r] : g->r;
    /* the ring (always in a ring order) reads the parts of the steps it emits: a window of
     * the 16,384-rank ring costs its steps, not N (tn_program_gen_rank allocates no scratch
     * of N for it) */
    const bool on_demand = p->kind == TN_GENERATOR_RING;
    if (!p->order)
        for (uint32_t i = 0; i < N; i++)
            g->members[i] = i;
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < p->C && !st; c++)
    {
        flat_parts parts = {p, c};
        if (!on_demand)
            for (uint32_t i = 0; i < N; i++)
                g->parts[i] = flat_part(&parts, i);
        g->a.n = g->b.n = 0;
        tn_rphase ph = rphase(g, members, N, k, on_demand ? NULL : g->parts);
        ph.part_of = flat_part;
        ph.part_ctx = &parts;
        ph.chunk = c;
        uint32_t used = 0;
        if (p->coll == TN_COLL_ALL_REDUCE || p->coll == TN_COLL_REDUCE_SCATTER)
        {
            if (!phase_begin(g, &st, err) && !st)
            {
                st = flat_phase(g, &ph, true, err);
                if (!st)
                    st = carry_swap(g, err);
            }
            used = N > 1 ? (p->kind == TN_GENERATOR_DIRECT ? 1 : N - 1) : 0;
        }
        if (!st && (p->coll == TN_COLL_ALL_REDUCE || p->coll == TN_COLL_ALL_GATHER))
        {
            ph.step = used;
            if (!phase_begin(g, &st, err) && !st)
                st = flat_phase(g, &ph, false, err);
        }
    }
    return st;
}

/* chain_plan of tn-algo-ring.c: pipelined chain along the ring order */
static tn_status
gen_chain(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t N = p->N;
    if (N < 2)
        return TN_OK;
    bool bcast = p->coll == TN_COLL_BROADCAST;
    uint32_t at = p->pos_of[p->root];
    uint32_t pos = p->pos_of[g->r];
    /* hop h goes from chain member h to h+1; this rank is member m */
    uint32_t m = bcast ? (pos + N - at) % N : (pos + 2 * N - at - 1) % N;
    uint32_t src = p->order[bcast ? (at + m + N - 1) % N : (at + m) % N];
    uint32_t dst = p->order[bcast ? (at + m + 1) % N : (at + m + 2) % N];
    tn_op op = bcast ? TN_OP_COPY : TN_OP_REDUCE;
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < p->C && !st; c++)
    {
        tn_slice region = tn_chunk_region(p->S, p->C, c);
        g->t.n = 0;
        for (uint32_t i = 0; i < N && m > 0 && !st; i++)
        {
            tn_slice sg = tn_slice_of(region.length, N, i);
            sg.offset += region.offset;
            tn_rp_spec o = {false,
                            op,
                            src,
                            sg.offset,
                            sg.offset,
                            sg.length,
                            m - 1 + i,
                            tn_algo_rank_dim(p->topo, src, g->r),
                            c};
            uint32_t id = 0;
            st = tn_rp_emit(g->rp, &o, NULL, NULL, &id, err);
            if (!st)
                st = tn_ids_push(&g->t, id, err);
        }
        for (uint32_t i = 0; i < N && m + 1 < N && !st; i++)
        {
            tn_slice sg = tn_slice_of(region.length, N, i);
            sg.offset += region.offset;
            tn_rp_spec o = {true,
                            op,
                            dst,
                            sg.offset,
                            sg.offset,
                            sg.length,
                            m + i,
                            tn_algo_rank_dim(p->topo, g->r, dst),
                            c};
            g->u.n = 0;
            if (m > 0)
                st = tn_ids_push(&g->u, g->t.ids[i], err);
            if (!st)
                st = tn_rp_emit(g->rp, &o, &g->u, NULL, NULL, err);
        }
    }
    return st;
}

/* tn_algo_direct_plan: all-to-all, broadcast and reduce */
static tn_status
gen_direct_one_step(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t N = p->N, r = g->r;
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < p->C && !st; c++)
    {
        if (p->coll == TN_COLL_ALL_TO_ALL)
        {
            for (uint32_t k = 1; k < N && !st; k++)
            {
                uint32_t j = (r + k) % N, i = (r + N - k) % N;
                tn_slice b = tn_chunk_block(p->coll, p->S, N, p->C, c, j);
                tn_rp_spec so = {true,
                                 TN_OP_COPY,
                                 j,
                                 b.offset,
                                 tn_alltoall_recv_offset(p->S, N, p->C, c, r, j),
                                 b.length,
                                 0,
                                 tn_algo_rank_dim(p->topo, r, j),
                                 c};
                st = tn_rp_emit(g->rp, &so, NULL, NULL, NULL, err);
                tn_slice rb = tn_chunk_block(p->coll, p->S, N, p->C, c, r);
                tn_rp_spec ro = {false,
                                 TN_OP_COPY,
                                 i,
                                 rb.offset,
                                 tn_alltoall_recv_offset(p->S, N, p->C, c, i, r),
                                 rb.length,
                                 0,
                                 tn_algo_rank_dim(p->topo, i, r),
                                 c};
                if (!st)
                    st = tn_rp_emit(g->rp, &ro, NULL, NULL, NULL, err);
            }
            continue;
        }
        bool b = p->coll == TN_COLL_BROADCAST;
        tn_slice reg = tn_chunk_region(p->S, p->C, c);
        for (uint32_t o = 0; o < N && !st; o++)
        {
            uint32_t other = r == p->root ? o : p->root;
            if (other == r || (r != p->root && o > 0))
                continue;
            bool send = (r == p->root) == b;
            uint32_t src = send ? r : other, dst = send ? other : r;
            tn_rp_spec so = {send,
                             b ? TN_OP_COPY : TN_OP_REDUCE,
                             other,
                             reg.offset,
                             reg.offset,
                             reg.length,
                             0,
                             tn_algo_rank_dim(p->topo, src, dst),
                             c};
            st = tn_rp_emit(g->rp, &so, NULL, NULL, NULL, err);
        }
    }
    return st;
}

/* ---- rhd (tn-algo-rhd.c) ---------------------------------------------------------------- */

typedef struct rhd_g
{
    uint32_t N, p, e, c;
} rhd_g;

static uint32_t
rhd_lo(const rhd_g* h, uint32_t i)
{
    return i < h->e ? 2 * i : i + h->e;
}

static uint32_t
rhd_hi(const rhd_g* h, uint32_t i)
{
    return i < h->e ? 2 * i + 2 : i + h->e + 1;
}

static uint32_t
rhd_rank(const rhd_g* h, uint32_t i)
{
    return i < h->e ? 2 * i : i + h->e;
}

/* send_blocks of tn-algo-rhd.c seen from one side: the merged ranges of blocks [blo, bhi)
 * of the transfers a -> b, as sends (me == a) or receives (me == b); their ids to keep */
static tn_status
rhd_blocks(gen* g,
           const rhd_g* h,
           bool send,
           uint32_t peer,
           uint32_t blo,
           uint32_t bhi,
           tn_op op,
           uint32_t step,
           const tn_ids* deps,
           tn_ids* keep,
           tn_error* err)
{
    const tn_program* p = g->p;
    tn_status st = TN_OK;
    uint32_t k = blo;
    while (k < bhi && !st)
    {
        tn_slice bk = tn_chunk_block(p->coll, p->S, h->N, p->C, h->c, k);
        uint64_t off = bk.offset, end = bk.offset + bk.length;
        uint32_t j = k + 1;
        while (j < bhi)
        {
            tn_slice bj = tn_chunk_block(p->coll, p->S, h->N, p->C, h->c, j);
            if (bj.offset != end)
                break;
            end += bj.length;
            j++;
        }
        uint32_t a = send ? g->r : peer, b = send ? peer : g->r;
        tn_rp_spec o =
            {send, op, peer, off, off, end - off, step, tn_algo_rank_dim(p->topo, a, b), h->c};
        uint32_t id = 0;
        st = tn_rp_emit(g->rp, &o, deps, NULL, &id, err);
        if (!st && keep)
            st = tn_ids_push(keep, id, err);
        k = j;
    }
    return st;
}

static tn_status
gen_rhd(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    rhd_g h = {p->N, 1, 0, 0};
    while (h.p * 2 <= h.N)
        h.p *= 2;
    h.e = h.N - h.p;
    if (h.N < 2)
        return TN_OK;
    uint32_t r = g->r;
    bool folded = r < 2 * h.e && r % 2 == 1;
    uint32_t i = folded ? UINT32_MAX : (r < 2 * h.e ? r / 2 : r - h.e);
    bool reduce = p->coll != TN_COLL_ALL_GATHER;
    tn_ids* last = &g->t;
    tn_ids* next = &g->u;
    tn_ids* sent = &g->scratch[0]; /* my sends of the step before, to prev_peer */
    tn_ids* sent_now = &g->scratch[1];
    tn_ids* deps = &g->scratch[2];
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < p->C && !st; c++)
    {
        h.c = c;
        uint32_t step = 0;
        uint32_t prev_peer = UINT32_MAX; /* partner of the step before */
        last->n = next->n = 0;
        sent->n = 0;
        if (h.e > 0)
        {
            if (folded)
                st = reduce ? rhd_blocks(g,
                                         &h,
                                         true,
                                         r - 1,
                                         0,
                                         h.N,
                                         TN_OP_REDUCE,
                                         step,
                                         NULL,
                                         NULL,
                                         err)
                            : rhd_blocks(g,
                                         &h,
                                         true,
                                         r - 1,
                                         r,
                                         r + 1,
                                         TN_OP_COPY,
                                         step,
                                         NULL,
                                         NULL,
                                         err);
            else if (i < h.e)
                st = reduce ? rhd_blocks(g,
                                         &h,
                                         false,
                                         r + 1,
                                         0,
                                         h.N,
                                         TN_OP_REDUCE,
                                         step,
                                         NULL,
                                         next,
                                         err)
                            : rhd_blocks(g,
                                         &h,
                                         false,
                                         r + 1,
                                         r + 1,
                                         r + 2,
                                         TN_OP_COPY,
                                         step,
                                         NULL,
                                         next,
                                         err);
            prev_peer = folded ? r - 1 : (i < h.e ? r + 1 : UINT32_MAX);
            swap_ids(last, next);
            next->n = 0;
            step++;
        }
        for (uint32_t pass = 0; pass < 2 && !st; pass++)
        {
            if ((pass == 0 && !reduce) || (pass == 1 && p->coll == TN_COLL_REDUCE_SCATTER))
                continue;
            for (uint32_t mask = pass == 0 ? h.p / 2 : 1; pass == 0 ? mask >= 1 : mask < h.p;
                 mask = pass == 0 ? mask / 2 : mask * 2)
            {
                if (!folded && !st)
                {
                    uint32_t j = i ^ mask;
                    /* halving: i sends j's half, receives its own; doubling: the other way */
                    uint32_t gs = (pass == 0 ? j : i) & ~(mask - 1);
                    uint32_t gr = (pass == 0 ? i : j) & ~(mask - 1);
                    tn_op op = pass == 0 ? TN_OP_REDUCE : TN_OP_COPY;
                    uint32_t peer = rhd_rank(&h, j);
                    /* exchange(i, j) comes before exchange(j, i) when i < j; the pair's
                     * order only matters per direction, so sends first is as good. The
                     * transfer i -> j waits for i's and j's receives of the step before;
                     * when j's came from i (the same partner two steps running), they are
                     * i's own sends: the send side lists them, the receive side nothing. */
                    bool again = peer == prev_peer;
                    st = tn_ids_copy(deps, last, err);
                    if (!st && again)
                        st = tn_ids_append(deps, sent, err);
                    sent_now->n = 0;
                    if (!st)
                        st = rhd_blocks(g,
                                        &h,
                                        true,
                                        peer,
                                        rhd_lo(&h, gs),
                                        rhd_hi(&h, gs + mask - 1),
                                        op,
                                        step,
                                        deps,
                                        sent_now,
                                        err);
                    if (!st)
                        st = rhd_blocks(g,
                                        &h,
                                        false,
                                        peer,
                                        rhd_lo(&h, gr),
                                        rhd_hi(&h, gr + mask - 1),
                                        op,
                                        step,
                                        again ? NULL : last,
                                        next,
                                        err);
                    swap_ids(sent, sent_now);
                    prev_peer = peer;
                }
                swap_ids(last, next);
                next->n = 0;
                step++;
                if (pass == 0 && mask == 1)
                    break;
            }
        }
        if (st || h.e == 0)
            continue;
        /* unfold */
        if (!folded && i < h.e)
        {
            uint32_t b = r + 1;
            if (p->coll == TN_COLL_REDUCE_SCATTER)
                st = rhd_blocks(g, &h, true, b, b, b + 1, TN_OP_COPY, step, last, NULL, err);
            else if (p->coll == TN_COLL_ALL_REDUCE)
                st = rhd_blocks(g, &h, true, b, 0, h.N, TN_OP_COPY, step, last, NULL, err);
            else
            {
                st = rhd_blocks(g, &h, true, b, 0, b, TN_OP_COPY, step, last, NULL, err);
                if (!st && b + 1 < h.N)
                    st = rhd_blocks(g, &h, true, b, b + 1, h.N, TN_OP_COPY, step, last, NULL, err);
            }
        }
        else if (folded)
        {
            if (p->coll == TN_COLL_REDUCE_SCATTER)
                st = rhd_blocks(g, &h, false, r - 1, r, r + 1, TN_OP_COPY, step, NULL, NULL, err);
            else if (p->coll == TN_COLL_ALL_REDUCE)
                st = rhd_blocks(g, &h, false, r - 1, 0, h.N, TN_OP_COPY, step, NULL, NULL, err);
            else
            {
                st = rhd_blocks(g, &h, false, r - 1, 0, r, TN_OP_COPY, step, NULL, NULL, err);
                if (!st && r + 1 < h.N)
                    st = rhd_blocks(g,
                                    &h,
                                    false,
                                    r - 1,
                                    r + 1,
                                    h.N,
                                    TN_OP_COPY,
                                    step,
                                    NULL,
                                    NULL,
                                    err);
            }
        }
    }
    return st;
}

/* ---- dbt (tn-algo-dbt.c) ----------------------------------------------------------------- */

/* height of the balanced in-order tree over n positions: its bit length */
static uint32_t
dbt_height(uint32_t n)
{
    uint32_t h = 0;
    while (n)
    {
        h++;
        n >>= 1;
    }
    return h;
}

static tn_status
gen_dbt(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t N = p->N, r = g->r;
    if (N < 2)
        return TN_OK;
    uint32_t height = dbt_height(N);
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < p->C && !st; c++)
    {
        tn_slice region = tn_chunk_region(p->S, p->C, c);
        for (uint32_t tree = 0; tree < 2 && !st; tree++)
        {
            tn_slice data = tn_slice_of(region.length, 2, tree);
            data.offset += region.offset;
            uint32_t pos = (r + N - tree) % N;
            /* find the rank's subtree [lo, hi), its parent and depth */
            uint32_t lo = 0, hi = N, depth = 0, parent = UINT32_MAX;
            for (;;)
            {
                uint32_t mid = lo + (hi - lo) / 2;
                if (mid == pos)
                    break;
                parent = (mid + tree) % N;
                if (pos < mid)
                    hi = mid;
                else
                    lo = mid + 1;
                depth++;
            }
            uint32_t mid = lo + (hi - lo) / 2;
            uint32_t kids[2][2] = {{lo, mid}, {mid + 1, hi}};
            /* reduce: the children's sends (post-order), then this rank's */
            g->t.n = 0;
            for (int k = 0; k < 2 && !st; k++)
            {
                uint32_t a = kids[k][0], b = kids[k][1];
                if (a >= b)
                    continue;
                uint32_t child = (a + (b - a) / 2 + tree) % N;
                tn_rp_spec o = {false,
                                TN_OP_REDUCE,
                                child,
                                data.offset,
                                data.offset,
                                data.length,
                                dbt_height(b - a) - 1,
                                tn_algo_rank_dim(p->topo, child, r),
                                c};
                uint32_t id = 0;
                st = tn_rp_emit(g->rp, &o, NULL, NULL, &id, err);
                if (!st)
                    st = tn_ids_push(&g->t, id, err);
            }
            if (!st && parent != UINT32_MAX)
            {
                tn_rp_spec o = {true,
                                TN_OP_REDUCE,
                                parent,
                                data.offset,
                                data.offset,
                                data.length,
                                dbt_height(hi - lo) - 1,
                                tn_algo_rank_dim(p->topo, r, parent),
                                c};
                st = tn_rp_emit(g->rp, &o, &g->t, NULL, NULL, err);
            }
            /* broadcast (pre-order): from the parent, then to the children */
            if (!st && parent != UINT32_MAX)
            {
                tn_rp_spec o = {false,
                                TN_OP_COPY,
                                parent,
                                data.offset,
                                data.offset,
                                data.length,
                                height - 2 + depth,
                                tn_algo_rank_dim(p->topo, parent, r),
                                c};
                uint32_t id = 0;
                st = tn_rp_emit(g->rp, &o, NULL, NULL, &id, err);
                g->t.n = 0;
                if (!st)
                    st = tn_ids_push(&g->t, id, err);
            }
            for (int k = 0; k < 2 && !st; k++)
            {
                uint32_t a = kids[k][0], b = kids[k][1];
                if (a >= b)
                    continue;
                uint32_t child = (a + (b - a) / 2 + tree) % N;
                tn_rp_spec o = {true,
                                TN_OP_COPY,
                                child,
                                data.offset,
                                data.offset,
                                data.length,
                                height - 1 + depth,
                                tn_algo_rank_dim(p->topo, r, child),
                                c};
                st = tn_rp_emit(g->rp, &o, &g->t, NULL, NULL, err);
            }
        }
    }
    return st;
}

/* ---- hierarchical (hier_run of tn-algo-hierarchical.c) ------------------------------------ */

static uint32_t
coord(const tn_program* p, uint32_t rank, uint32_t d)
{
    return (rank / p->dstride[d]) % p->dsize[d];
}

static bool
ring_dim(const tn_program* p, uint32_t d)
{
    return p->dkind[d] == TN_DIM_RING || p->dkind[d] == TN_DIM_TORUS || p->dkind[d] == TN_DIM_MESH;
}

static tn_status
gen_hier(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t D = p->D, N = p->N, r = g->r;
    bool ar = p->coll == TN_COLL_ALL_REDUCE;
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < p->C && !st; c++)
    {
        g->a.n = g->b.n = 0;
        uint32_t step = 0;
        for (uint32_t pass = 0; pass < 2 && !st; pass++)
        {
            if ((pass == 0 && p->coll == TN_COLL_ALL_GATHER) ||
                (pass == 1 && p->coll == TN_COLL_REDUCE_SCATTER))
                continue;
            for (uint32_t li = 0; li < D && !st; li++)
            {
                uint32_t l = pass == 0 ? li : D - 1 - li;
                uint32_t d = ar ? l : D - 1 - l; /* rs_order */
                uint32_t P = p->dsize[d], sd = p->dstride[d];
                const uint32_t* pos = p->line[d];
                if (phase_begin(g, &st, err) || st)
                {
                    step += P > 1 ? (ring_dim(p, d) ? P - 1 : 1) : 0;
                    continue;
                }
                uint32_t v0 = r - coord(p, r, d) * sd;
                for (uint32_t k = 0; k < P; k++)
                    g->members[k] = v0 + pos[k] * sd;
                if (ar)
                {
                    tn_slice reg = tn_chunk_region(p->S, p->C, c);
                    for (uint32_t l2 = 0; l2 < l; l2++)
                    {
                        uint32_t d2 = l2; /* rs_order of all-reduce */
                        tn_slice x = tn_slice_of(reg.length, p->dsize[d2], coord(p, v0, d2));
                        reg.offset += x.offset;
                        reg.length = x.length;
                    }
                    for (uint32_t k = 0; k < P; k++)
                    {
                        g->parts[k] = tn_slice_of(reg.length, P, pos[k]);
                        g->parts[k].offset += reg.offset;
                    }
                }
                else
                {
                    for (uint32_t k = 0; k < P; k++)
                    {
                        uint32_t base = (g->members[k] / sd) * sd;
                        tn_slice first = tn_slice_of(p->S, N, base);
                        tn_slice last = tn_slice_of(p->S, N, base + sd - 1);
                        g->parts[k].offset = first.offset;
                        g->parts[k].length = last.offset + last.length - first.offset;
                    }
                }
                tn_rphase ph = rphase(g, g->members, P, p->line_pos[d][coord(p, r, d)], g->parts);
                ph.step = step;
                ph.chunk = c;
                ph.dim = (int32_t)d;
                st = ring_dim(p, d) ? tn_rphase_ring(&ph, 1, pass == 0, err)
                                    : tn_rphase_direct(&ph, pass == 0, err);
                if (!st)
                    st = carry_swap(g, err);
                step += P > 1 ? (ring_dim(p, d) ? P - 1 : 1) : 0;
            }
        }
    }
    return st;
}

/* ---- ring2d (tn_algo_ring2d_plan) --------------------------------------------------------- */

typedef struct r2
{
    uint32_t size[2];
    uint32_t a, b, nparts, q, ch;
    tn_slice part; /* all-reduce: part q of the chunk region */
} r2;

static uint32_t
r2_rank(const r2* c, uint32_t d, uint32_t x, uint32_t g)
{
    return d == 0 ? x + c->size[0] * g : g + c->size[0] * x;
}

/* the final block of a rank in part q (ring2d's c.blk) */
static tn_slice
r2_blk(const tn_program* p, const r2* c, uint32_t rank)
{
    if (p->coll == TN_COLL_ALL_REDUCE)
    {
        uint32_t xa = c->a == 0 ? rank % c->size[0] : rank / c->size[0];
        uint32_t xb = c->b == 0 ? rank % c->size[0] : rank / c->size[0];
        tn_slice u = tn_slice_of(c->part.length, c->size[c->a], xa);
        u.offset += c->part.offset;
        tn_slice v = tn_slice_of(u.length, c->size[c->b], xb);
        v.offset += u.offset;
        return v;
    }
    tn_slice piece = tn_chunk_block(p->coll, p->S, p->N, p->C, c->ch, rank);
    tn_slice v = tn_slice_of(piece.length, c->nparts, c->q);
    v.offset += piece.offset;
    return v;
}

static bool
r2_two_way(const tn_program* p, uint32_t d)
{
    return p->dsize[d] >= 3 &&
           (p->dkind[d] == TN_DIM_RING || p->dkind[d] == TN_DIM_TORUS || p->dkind[d] == TN_DIM_FC);
}

/* ring2d_phase for this rank: level 0 builds the member table (into g->h0, stride nr) */
static tn_status
r2_phase(gen* g,
         const r2* c,
         uint32_t d,
         bool level0,
         bool rs,
         bool reverse,
         uint32_t step,
         tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t P = c->size[d], Q = c->size[1 - d];
    uint32_t r = g->r;
    uint32_t xd = d == 0 ? r % c->size[0] : r / c->size[0];
    uint32_t grp = d == 0 ? r / c->size[0] : r % c->size[0];
    uint32_t nr = 1;
    tn_status st = TN_OK;
    if (phase_begin(g, &st, err) || st)
        return st;
    tn_slice* table = g->h0;
    if (level0 && p->coll == TN_COLL_ALL_REDUCE)
    {
        /* level 0 runs on dim a, whose coordinate slices the part first (r2_blk): the
         * blocks of one coordinate x are contiguous over the other dim and make up slice x
         * of the part, so the table needs no look at the N blocks */
        assert(d == c->a);
        nr = 1;
        for (uint32_t x = 0; x < P; x++)
        {
            table[x] = tn_slice_of(c->part.length, P, x);
            table[x].offset += c->part.offset;
        }
    }
    else if (level0)
    {
        bool contiguous = true;
        for (uint32_t x = 0; x < P && contiguous; x++)
            for (uint32_t y = 1; y < Q && contiguous; y++)
            {
                tn_slice a = r2_blk(p, c, r2_rank(c, d, x, y - 1));
                contiguous = a.offset + a.length == r2_blk(p, c, r2_rank(c, d, x, y)).offset;
            }
        nr = 0;
        if (contiguous)
        {
            nr = 1;
            for (uint32_t x = 0; x < P; x++)
            {
                tn_slice first = r2_blk(p, c, r2_rank(c, d, x, 0));
                tn_slice last = r2_blk(p, c, r2_rank(c, d, x, Q - 1));
                table[x].offset = first.offset;
                table[x].length = last.offset + last.length - first.offset;
            }
        }
        else
        {
            for (uint32_t y = 0; y < Q; y++)
            {
                bool used = false;
                for (uint32_t x = 0; x < P && !used; x++)
                    used = r2_blk(p, c, r2_rank(c, d, x, y)).length > 0;
                if (!used)
                    continue;
                for (uint32_t x = 0; x < P; x++)
                    table[(size_t)x * Q + nr] = r2_blk(p, c, r2_rank(c, d, x, y));
                nr++;
            }
            for (uint32_t x = 1; x < P && nr > 0; x++)
                for (uint32_t j = 0; j < nr; j++)
                    table[(size_t)x * nr + j] = table[(size_t)x * Q + j];
        }
    }
    if (nr > 0)
    {
        bool any = false;
        uint32_t k_me = 0;
        for (uint32_t k = 0; k < P; k++)
        {
            uint32_t x = p->line[d][reverse ? P - 1 - k : k];
            g->members[k] = r2_rank(c, d, x, grp);
            if (x == xd)
                k_me = k;
            for (uint32_t j = 0; j < nr; j++)
            {
                tn_slice s = level0 ? table[(size_t)x * nr + j] : r2_blk(p, c, g->members[k]);
                g->parts[(size_t)k * nr + j] = s;
                any = any || s.length > 0;
            }
        }
        if (any)
        {
            tn_rphase ph = rphase(g, g->members, P, k_me, g->parts);
            ph.step = step;
            ph.chunk = c->ch;
            ph.dim = (int32_t)d;
            st = tn_rphase_ring(&ph, nr, rs, err);
        }
    }
    if (!st)
        st = carry_swap(g, err);
    return st;
}

static tn_status
gen_ring2d(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    r2 c;
    memset(&c, 0, sizeof(c));
    c.size[0] = p->dsize[0];
    c.size[1] = p->dsize[1];
    bool two_way[2] = {r2_two_way(p, 0), r2_two_way(p, 1)};
    c.nparts = (two_way[0] || two_way[1]) ? 4 : 2;
    bool do_rs = p->coll != TN_COLL_ALL_GATHER;
    bool do_ag = p->coll != TN_COLL_REDUCE_SCATTER;
    tn_status st = TN_OK;
    for (uint32_t ch = 0; ch < p->C && !st; ch++)
    {
        for (uint32_t q = 0; q < c.nparts && !st; q++)
        {
            c.ch = ch;
            c.q = q;
            c.a = q / (c.nparts / 2);
            c.b = 1 - c.a;
            bool rev = c.nparts == 4 && q % 2 == 1;
            uint64_t total = 0;
            if (p->coll == TN_COLL_ALL_REDUCE)
            {
                tn_slice reg = tn_chunk_region(p->S, p->C, ch);
                c.part = tn_slice_of(reg.length, c.nparts, q);
                c.part.offset += reg.offset;
                total = c.part.length;
            }
            else
            {
                for (uint32_t rr = 0; rr < p->N && total == 0; rr++)
                    total += r2_blk(p, &c, rr).length;
            }
            if (total == 0)
                continue;
            g->a.n = g->b.n = 0;
            uint32_t step = 0;
            uint32_t a = c.a, b = c.b;
            if (do_rs)
            {
                st = r2_phase(g, &c, a, true, true, rev && two_way[a], step, err);
                step += c.size[a] - 1;
                if (!st)
                    st = r2_phase(g, &c, b, false, true, rev && two_way[b], step, err);
                step += c.size[b] - 1;
            }
            if (do_ag && !st)
            {
                st = r2_phase(g, &c, b, false, false, rev && two_way[b], step, err);
                step += c.size[b] - 1;
                if (!st)
                    st = r2_phase(g, &c, a, true, false, rev && two_way[a], step, err);
            }
        }
    }
    return st;
}

/* ---- swing, swing-torus (tn-algo-swing.c) ------------------------------------------------ */

/* Bytes of block slot b of chunk c in part `part` (plan_instance of tn-algo-swing.c). */
static tn_slice
swing_block(const tn_program* p, const uint32_t* at, uint32_t c, uint32_t part, uint32_t b)
{
    tn_slice out;
    if (p->coll == TN_COLL_ALL_REDUCE)
    {
        tn_slice region = tn_chunk_region(p->S, p->C, c);
        tn_slice piece = tn_slice_of(region.length, p->sw_parts, part);
        out = tn_slice_of(piece.length, p->N, b);
        out.offset += region.offset + piece.offset;
        return out;
    }
    tn_slice own = tn_chunk_block(p->coll, p->S, p->N, p->C, c, p->order[at[b]]);
    out = tn_slice_of(own.length, p->sw_parts, part);
    out.offset += own.offset;
    return out;
}

/* One transfer of slots [lo, hi) between this rank and the rank at ring position q: a send
 * waits for this rank's receives of the chunk that wrote one of those slots (send_range of
 * tn-algo-swing.c: a swing transfer has no other deps), a receive waits for nothing here
 * and is kept with its slots (g->t ids, g->u lo, scratch[0] hi). */
static tn_status
swing_one(gen* g,
          bool send,
          uint32_t q,
          uint32_t lo,
          uint32_t hi,
          tn_slice bytes,
          tn_op op,
          uint32_t step,
          uint32_t c,
          tn_error* err)
{
    const tn_program* p = g->p;
    tn_ids* deps = &g->scratch[1];
    deps->n = 0;
    tn_status st = TN_OK;
    for (size_t k = 0; send && k < g->t.n && !st; k++)
    {
        if (g->u.ids[k] < hi && g->scratch[0].ids[k] > lo)
            st = tn_ids_push(deps, g->t.ids[k], err);
    }
    uint32_t peer = p->order[q];
    uint32_t a = send ? g->r : peer, b = send ? peer : g->r;
    tn_rp_spec o = {send,
                    op,
                    peer,
                    bytes.offset,
                    bytes.offset,
                    bytes.length,
                    step,
                    tn_algo_rank_dim(p->topo, a, b),
                    c};
    uint32_t id = 0;
    st = st ? st : tn_rp_emit(g->rp, &o, send ? deps : NULL, NULL, &id, err);
    if (!st && !send)
    {
        st = tn_ids_push(&g->t, id, err);
        st = st ? st : tn_ids_push(&g->u, lo, err);
        st = st ? st : tn_ids_push(&g->scratch[0], hi, err);
    }
    return st;
}

/* send_run of tn-algo-swing.c seen from this rank: slots [lo, lo + n) sent to (or received
 * from) position q, one transfer per run of contiguous bytes, one empty one if none. An
 * all-reduce's slots lay the part out in order, their empty ones last: one transfer. */
static tn_status
swing_run(gen* g,
          const uint32_t* at,
          uint32_t part,
          uint32_t c,
          bool send,
          uint32_t q,
          uint32_t lo,
          uint32_t n,
          tn_op op,
          uint32_t step,
          tn_error* err)
{
    const tn_program* p = g->p;
    if (p->coll == TN_COLL_ALL_REDUCE)
    {
        tn_slice a = swing_block(p, at, c, part, lo), z = swing_block(p, at, c, part, lo + n - 1);
        tn_slice all = {a.offset, z.offset + z.length - a.offset};
        return swing_one(g, send, q, lo, lo + n, all, op, step, c, err);
    }
    tn_status st = TN_OK;
    bool sent = false;
    uint32_t k = lo;
    while (k < lo + n && !st)
    {
        tn_slice bk = swing_block(p, at, c, part, k);
        if (bk.length == 0)
        {
            k++;
            continue;
        }
        uint32_t first = k;
        uint64_t end = bk.offset + bk.length;
        for (k++; k < lo + n; k++)
        {
            tn_slice bj = swing_block(p, at, c, part, k);
            if (bj.length != 0 && bj.offset != end)
                break;
            end += bj.length;
        }
        tn_slice run = {bk.offset, end - bk.offset};
        st = swing_one(g, send, q, first, k, run, op, step, c, err);
        sent = true;
    }
    if (!sent && !st)
    {
        tn_slice none = {swing_block(p, at, c, part, lo).offset, 0};
        st = swing_one(g, send, q, lo, lo + n, none, op, step, c, err);
    }
    return st;
}

/* swing_chunk of tn-algo-swing.c for this rank, part by part: reduce-scatter steps 0..L-1,
 * all-gather L-1..0, sends before receives in a step (a pair's order matters per direction
 * only). */
static tn_status
gen_swing(gen* g, tn_error* err)
{
    const tn_program* p = g->p;
    uint32_t N = p->N, L = p->sw_L;
    if (N < 2)
        return TN_OK;
    uint32_t v = p->pos_of[g->r];
    tn_status st = TN_OK;
    for (uint32_t part = 0; part < p->sw_parts && !st; part++)
    {
        const uint32_t* peers = p->sw_peers + (size_t)part * L * N;
        const uint32_t* pos = p->sw_pos + (size_t)part * N;
        const uint32_t* at = p->sw_at + (size_t)part * N;
        for (uint32_t c = 0; c < p->C && !st; c++)
        {
            g->t.n = g->u.n = g->scratch[0].n = 0;
            uint32_t step = 0;
            for (uint32_t s = 0; s < L && p->coll != TN_COLL_ALL_GATHER && !st; s++, step++)
            {
                uint32_t half = 1u << (L - 1 - s), q = peers[(size_t)s * N + v];
                st = swing_run(g,
                               at,
                               part,
                               c,
                               true,
                               q,
                               pos[q] & ~(half - 1),
                               half,
                               TN_OP_REDUCE,
                               step,
                               err);
                st = st ? st
                        : swing_run(g,
                                    at,
                                    part,
                                    c,
                                    false,
                                    q,
                                    pos[v] & ~(half - 1),
                                    half,
                                    TN_OP_REDUCE,
                                    step,
                                    err);
            }
            for (uint32_t s = L; p->coll != TN_COLL_REDUCE_SCATTER && s-- > 0 && !st; step++)
            {
                uint32_t half = 1u << (L - 1 - s), q = peers[(size_t)s * N + v];
                st = swing_run(g,
                               at,
                               part,
                               c,
                               true,
                               q,
                               pos[v] & ~(half - 1),
                               half,
                               TN_OP_COPY,
                               step,
                               err);
                st = st ? st
                        : swing_run(g,
                                    at,
                                    part,
                                    c,
                                    false,
                                    q,
                                    pos[q] & ~(half - 1),
                                    half,
                                    TN_OP_COPY,
                                    step,
                                    err);
            }
        }
    }
    return st;
}

/* ---- set-up ------------------------------------------------------------------------------ */

/* swing: the ring order and one part; swing-torus: rank = position and 2 D parts; the layout
 * of every part (a few words per rank and step). */
static tn_status
swing_init(tn_program* p, const tn_plan_request* req, tn_error* err)
{
    uint32_t N = p->N;
    bool torus = p->kind == TN_GENERATOR_SWING_TORUS;
    tn_status st = TN_OK;
    if (torus)
    {
        p->order = malloc((size_t)(N ? N : 1) * sizeof(uint32_t));
        for (uint32_t k = 0; p->order && k < N; k++)
            p->order[k] = k;
    }
    else
        st = tn_algo_ring_order(p->topo, req, N, &p->order, err);
    if (st)
        return st;
    p->sw_parts = torus ? 2 * tn_topology_dim_count(p->topo) : 1;
    while ((1u << p->sw_L) < N)
        p->sw_L++;
    size_t per = (size_t)(N ? N : 1);
    p->pos_of = malloc(per * sizeof(uint32_t));
    p->sw_peers = malloc((size_t)p->sw_parts * (p->sw_L ? p->sw_L : 1) * per * sizeof(uint32_t));
    p->sw_pos = malloc((size_t)p->sw_parts * per * sizeof(uint32_t));
    p->sw_at = malloc((size_t)p->sw_parts * per * sizeof(uint32_t));
    if (!p->order || !p->pos_of || !p->sw_peers || !p->sw_pos || !p->sw_at)
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", p->algo->name);
    for (uint32_t k = 0; k < N; k++)
        p->pos_of[p->order[k]] = k;
    for (uint32_t part = 0; part < p->sw_parts && N >= 2 && !st; part++)
        st = tn_algo_swing_layout(p->topo,
                                  torus,
                                  part,
                                  N,
                                  p->sw_peers + (size_t)part * p->sw_L * N,
                                  p->sw_pos + (size_t)part * N,
                                  p->sw_at + (size_t)part * N,
                                  err);
    return st;
}

tn_status
tn_program_gen_init(tn_program* p, const tn_plan_request* req, tn_error* err)
{
    uint32_t N = p->N;
    if (p->kind == TN_GENERATOR_RING || p->kind == TN_GENERATOR_RING_BIDIR)
    {
        tn_status st = tn_algo_ring_order(p->topo, req, N, &p->order, err);
        if (st)
            return st;
        p->pos_of = malloc((size_t)(N ? N : 1) * sizeof(uint32_t));
        if (!p->pos_of)
            return tn_error_set(err, TN_ENOMEM, "%s: out of memory", p->algo->name);
        for (uint32_t k = 0; k < N; k++)
            p->pos_of[p->order[k]] = k;
    }
    if (p->kind == TN_GENERATOR_SWING || p->kind == TN_GENERATOR_SWING_TORUS)
    {
        tn_status st = swing_init(p, req, err);
        if (st)
            return st;
    }
    if (p->kind == TN_GENERATOR_RING2D || p->kind == TN_GENERATOR_HIERARCHICAL)
    {
        uint32_t D = tn_topology_dim_count(p->topo);
        p->D = D;
        p->dsize = calloc(D, sizeof(uint32_t));
        p->dstride = calloc(D, sizeof(uint32_t));
        p->dkind = calloc(D, sizeof(tn_dim_kind));
        p->line = calloc(D, sizeof(uint32_t*));
        p->line_pos = calloc(D, sizeof(uint32_t*));
        if (!p->dsize || !p->dstride || !p->dkind || !p->line || !p->line_pos)
            return tn_error_set(err, TN_ENOMEM, "%s: out of memory", p->algo->name);
        uint32_t stride = 1;
        for (uint32_t d = 0; d < D; d++)
        {
            const tn_dim_info* di = tn_topology_dim(p->topo, d);
            p->dsize[d] = di->size;
            p->dkind[d] = di->kind;
            p->dstride[d] = stride;
            stride *= di->size;
            p->line[d] = malloc((size_t)di->size * sizeof(uint32_t));
            p->line_pos[d] = malloc((size_t)di->size * sizeof(uint32_t));
            if (!p->line[d] || !p->line_pos[d])
                return tn_error_set(err, TN_ENOMEM, "%s: out of memory", p->algo->name);
            if (di->kind == TN_DIM_MESH)
                tn_ring_order_line(di->size, p->line[d]);
            else
                for (uint32_t k = 0; k < di->size; k++)
                    p->line[d][k] = k;
            for (uint32_t k = 0; k < di->size; k++)
                p->line_pos[d][p->line[d][k]] = k;
        }
    }
    return TN_OK;
}

void
tn_program_gen_free(tn_program* p)
{
    free(p->order);
    free(p->pos_of);
    free(p->sw_peers);
    free(p->sw_pos);
    free(p->sw_at);
    for (uint32_t d = 0; d < p->D; d++)
    {
        if (p->line)
            free(p->line[d]);
        if (p->line_pos)
            free(p->line_pos[d]);
    }
    free(p->line);
    free(p->line_pos);
    free(p->dsize);
    free(p->dstride);
    free(p->dkind);
}

uint64_t
tn_program_max_ops(const tn_program* p)
{
    uint64_t N = p->N, C = p->C;
    uint64_t phases = p->coll == TN_COLL_ALL_REDUCE ? 2 : 1;
    uint64_t peers = 0;
    switch (p->kind)
    {
    case TN_GENERATOR_RING:
        if (p->coll == TN_COLL_BROADCAST || p->coll == TN_COLL_REDUCE)
            return 2 * N * C;
        return 2 * phases * (N > 0 ? N - 1 : 0) * C;
    case TN_GENERATOR_RING_BIDIR:
        return 4 * phases * (N > 0 ? N - 1 : 0) * C;
    case TN_GENERATOR_DIRECT:
        return 2 * phases * (N > 0 ? N - 1 : 0) * C;
    case TN_GENERATOR_RHD: {
        uint64_t lg = 0;
        while ((UINT64_C(1) << lg) < N)
            lg++;
        /* a step's blocks merge into one range for all-reduce; up to N ranges otherwise */
        uint64_t per = p->coll == TN_COLL_ALL_REDUCE ? 2 * (lg + 2) : 2 * (lg + 2) * N;
        return phases * per * C;
    }
    case TN_GENERATOR_DBT:
        return 12 * C;
    case TN_GENERATOR_SWING:
    case TN_GENERATOR_SWING_TORUS:
        /* per part and chunk: a send and a receive per step and phase for all-reduce; for
         * reduce-scatter and all-gather one per run of slices, up to 2 N */
        return (uint64_t)p->sw_parts * C * (p->coll == TN_COLL_ALL_REDUCE ? 4 * p->sw_L : 2 * N);
    case TN_GENERATOR_RING2D:
        for (uint32_t d = 0; d < p->D; d++)
            peers += p->dsize[d] - 1;
        /* level-0 ranges: up to the other dim's size per transfer for reduce-scatter and
         * all-gather */
        return 4 * 2 * phases * peers * C *
               (p->coll == TN_COLL_ALL_REDUCE ? 1 : (p->D == 2 ? p->dsize[0] + p->dsize[1] : 1));
    default:
        for (uint32_t d = 0; d < p->D; d++)
            peers += p->dsize[d] - 1;
        return 2 * phases * peers * C + 2 * C * p->D;
    }
}

uint64_t
tn_program_transfers(const tn_program* p, bool* exact)
{
    tn_plan_size size;
    tn_error e;
    if (tn_plan_estimate(p->topo, &p->req, &size, &e) != TN_OK)
    {
        if (exact)
            *exact = false;
        return 0;
    }
    if (exact)
        *exact = size.exact_transfers;
    return size.transfers;
}

tn_status
tn_program_gen_rank(const tn_program* p, uint32_t rank, tn_rank_program* rp, tn_error* err)
{
    gen g;
    memset(&g, 0, sizeof(g));
    g.p = p;
    g.r = rank;
    g.rp = rp;
    /* scratch by the largest group a phase can have: hierarchical phases and ring2d's
     * all-reduce (its level-0 table in closed form) work on one dim at a time, and a
     * streamed rank (tn_program_rank_window) runs this once per window */
    size_t n = (size_t)(p->N ? p->N : 1) + 1;
    if (p->kind == TN_GENERATOR_RING && p->coll != TN_COLL_BROADCAST && p->coll != TN_COLL_REDUCE)
        n = 2; /* gen_flat: members in the ring order, parts on demand */
    else if (p->kind == TN_GENERATOR_HIERARCHICAL ||
             (p->kind == TN_GENERATOR_RING2D && p->coll == TN_COLL_ALL_REDUCE))
    {
        n = 2;
        for (uint32_t d = 0; d < p->D; d++)
            n = p->dsize[d] + (size_t)1 > n ? p->dsize[d] + (size_t)1 : n;
    }
    g.members = malloc(n * sizeof(uint32_t));
    g.rmembers = malloc(n * sizeof(uint32_t));
    g.parts = malloc(n * sizeof(tn_slice));
    g.h0 = malloc(n * sizeof(tn_slice));
    g.h1 = malloc(n * sizeof(tn_slice));
    tn_status st = TN_OK;
    if (!g.members || !g.rmembers || !g.parts || !g.h0 || !g.h1)
        st = tn_error_set(err, TN_ENOMEM, "%s: out of memory", p->algo->name);
    if (!st)
    {
        switch (p->kind)
        {
        case TN_GENERATOR_RING:
            st = (p->coll == TN_COLL_BROADCAST || p->coll == TN_COLL_REDUCE) ? gen_chain(&g, err)
                                                                             : gen_flat(&g, err);
            break;
        case TN_GENERATOR_RING_BIDIR:
            st = gen_flat(&g, err);
            break;
        case TN_GENERATOR_DIRECT:
            st = (p->coll == TN_COLL_ALL_REDUCE || p->coll == TN_COLL_REDUCE_SCATTER ||
                  p->coll == TN_COLL_ALL_GATHER)
                     ? gen_flat(&g, err)
                     : gen_direct_one_step(&g, err);
            break;
        case TN_GENERATOR_RHD:
            st = gen_rhd(&g, err);
            break;
        case TN_GENERATOR_DBT:
            st = gen_dbt(&g, err);
            break;
        case TN_GENERATOR_RING2D:
            st = gen_ring2d(&g, err);
            break;
        case TN_GENERATOR_HIERARCHICAL:
            st = gen_hier(&g, err);
            break;
        case TN_GENERATOR_SWING:
        case TN_GENERATOR_SWING_TORUS:
            st = gen_swing(&g, err);
            break;
        default:
            st = tn_error_set(err, TN_EUNSUPPORTED, "%s: no generator", p->algo->name);
        }
    }
    tn_ids_free(&g.a);
    tn_ids_free(&g.b);
    for (int i = 0; i < 3; i++)
        tn_ids_free(&g.scratch[i]);
    tn_ids_free(&g.t);
    tn_ids_free(&g.u);
    free(g.members);
    free(g.rmembers);
    free(g.parts);
    free(g.h0);
    free(g.h1);
    return st;
}
