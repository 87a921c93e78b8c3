/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Swing all-reduce (D. De Sensi, T. Bonato, D. Saam, T. Hoefler, "Swing: Short-cutting
 * Rings for Higher Bandwidth Allreduce", NSDI 2024), bandwidth-optimal variant, on a
 * power-of-two number of ranks p = 2^L placed on a ring (the request's ring order, else
 * tn_ring_order: a cycle of neighbours on tori and rings).
 *
 * Peers: at step s the rank at ring position v exchanges with pi(v, s) = v + rho(s) if v
 * is even, v - rho(s) if odd (mod p), rho(s) = sum_{i=0..s} (-2)^i = 1, -1, 3, -5, 11, ...
 * rho(s) is odd, so pi pairs an even position with an odd one and is an involution.
 *
 * Blocks: reduce-scatter runs s = 0..L-1 like recursive halving, each step halving the
 * range a rank still reduces. Which blocks go to the peer: those the peer and the ranks it
 * meets in the later steps end with, i.e. the set T(q, s+1) of positions reachable from
 * q = pi(v, s) through steps s+1..L-1 (T(x, L) = {x}, T(x, t) = T(x, t+1) + T(pi(x, t), t+1)).
 * Listing T(0, 0) depth first gives every position a slot pos(v) such that every T(x, t) is
 * an aligned run of 2^(L-t) slots; position v ends the reduce-scatter owning block pos(v),
 * so each step's blocks are one contiguous range: v keeps the half of its run holding
 * pos(v) and sends the half holding pos(q). plan() checks the run property (the peer's
 * slot is in the other half of the run at every step) before planning, and the verifier
 * proves the result. All-gather mirrors it (s = L-1..0, copies). Per rank
 * 2 (p-1)/p S bytes, 2 L steps, 2 L p transfers per chunk.
 *
 * The block a rank owns in between is not its own slice, which all-reduce does not mind.
 * Reduce-scatter (the first L steps) and all-gather (the last L) fix each rank's slice, so
 * there slot pos(v) holds the slice of the rank at position v: the slots of a run are then
 * scattered over the buffer, and a step sends one transfer per run of consecutive slices
 * (up to p - 1 per rank and phase instead of L).
 *
 * swing-torus is the paper's multi-dimensional, multiport version on a torus (or ring)
 * whose every dim size is a power of two: rank = coordinates; step s of a part moves
 * along dim (first + s) mod D, skipping dims that have made their log2(P_d) steps, and the
 * k-th step in dim d pairs coordinate c with c + rho(k) (c even) or c - rho(k) (c odd)
 * mod P_d. Each chunk is split into 2D parts (tn_slice_of) that run concurrently without
 * deps between them: part j starts on dim j mod D, and parts j >= D use -rho (the mirror
 * direction), so every node sends on all 2D of its links in every step. The blocks of a
 * part follow from its peer sequence the same way (the slot check covers any sequence).
 *
 * swing-lat is the latency-optimal variant: L steps with the same peers, and at each step
 * both ranks of a pair send their whole current sum, so after L steps every rank holds the
 * full sum. A network reduce cannot add the peer's vector into the bytes the rank reads to
 * send its own, so the vector arrives by copy in scratch and a local reduce (tn-schedule.h)
 * adds the rank's sum into it, out of place: scratch slot t (at (t + 1) S) receives step
 * t's copy and then holds the rank's sum after step t, which step t + 1 sends and adds from.
 * A copy lands in a slot nothing used before, so it waits only for the sum it sends (no
 * dependency on the peer, nor on the ACK of a send); a final local copy puts slot L - 1 into
 * [0, S), after the rank's step-0 send read the vector. Per rank L S bytes, L S of scratch.
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>

static int64_t
swing_rho(uint32_t s)
{
    /* (1 - (-2)^(s+1)) / 3, exact in int64 for s < 62 */
    int64_t pow = 1;
    for (uint32_t i = 0; i <= s; i++)
    {
        pow *= -2;
    }
    return (1 - pow) / 3;
}

static uint32_t
swing_peer(uint32_t v, uint32_t s, uint32_t p)
{
    int64_t rho = swing_rho(s) % (int64_t)p;
    int64_t q = (v % 2 == 0) ? (int64_t)v + rho : (int64_t)v - rho;
    q %= (int64_t)p;
    if (q < 0)
    {
        q += p;
    }
    return (uint32_t)q;
}

tn_status
tn_algo_swing_check(const tn_topology* topo,
                    const tn_plan_request* request,
                    uint32_t ranks,
                    tn_error* err)
{
    (void)topo;
    if (ranks & (ranks - 1))
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: needs a power-of-two number of ranks, got %u (supported: 1, 2, "
                            "4, 8, ... ranks on any topology)",
                            request->algorithm,
                            ranks);
    }
    return TN_OK;
}

/* Transfers a position received, with the slots [lo, hi) each one wrote. */
typedef struct received
{
    tn_ids id, lo, hi;
} received;

typedef struct swing
{
    const tn_topology* topo;
    tn_schedule* s;
    uint32_t p, L, chunk;
    const uint32_t* order; /* ring position -> rank */
    const uint32_t* peers; /* peers[s * p + v]: the peer of position v at step s */
    uint32_t* pos;         /* ring position -> block slot */
    uint32_t* at;          /* block slot -> ring position (pos inverted) */
    tn_slice* blocks;      /* slot -> bytes of the chunk (part) */
    received* last;        /* per position: transfers it received in the steps before */
    received* next;        /* per position: transfers it receives in this step */
    tn_ids scratch;        /* the deps of the transfer being added */
} swing;

/* Depth-first listing of T(x, t) into slots [*k, *k + 2^(L-t)). */
static void
list_tree(swing* w, uint32_t x, uint32_t t, uint32_t* k)
{
    if (t == w->L)
    {
        w->pos[x] = (*k)++;
        return;
    }
    list_tree(w, x, t + 1, k);
    list_tree(w, w->peers[(size_t)t * w->p + x], t + 1, k);
}

/* pos must be a permutation and at step s the peer's slot must lie in the other half of
 * the aligned run of 2^(L-s) slots holding v's slot. */
static tn_status
check_slots(const swing* w, tn_error* err)
{
    uint8_t* seen = calloc(w->p, 1);
    if (!seen)
    {
        return tn_error_set(err, TN_ENOMEM, "swing: out of memory");
    }
    tn_status st = TN_OK;
    for (uint32_t v = 0; v < w->p && !st; v++)
    {
        if (w->pos[v] >= w->p || seen[w->pos[v]]++)
        {
            st = tn_error_set(err,
                              TN_EUNSUPPORTED,
                              "swing: the peers of %u ranks do not form a binomial tree",
                              w->p);
        }
    }
    for (uint32_t s = 0; s < w->L && !st; s++)
    {
        uint32_t shift = w->L - 1 - s;
        for (uint32_t v = 0; v < w->p && !st; v++)
        {
            uint32_t a = w->pos[v], b = w->pos[w->peers[(size_t)s * w->p + v]];
            if ((a >> (shift + 1)) != (b >> (shift + 1)) || ((a ^ b) >> shift) != 1)
            {
                st = tn_error_set(err,
                                  TN_EUNSUPPORTED,
                                  "swing: step %u of %u ranks: position %u and its peer do not "
                                  "split one block range",
                                  s,
                                  w->p,
                                  v);
            }
        }
    }
    free(seen);
    return st;
}

static tn_status
received_push(received* r, uint32_t id, uint32_t lo, uint32_t hi, tn_error* err)
{
    tn_status st = tn_ids_push(&r->id, id, err);
    st = st ? st : tn_ids_push(&r->lo, lo, err);
    return st ? st : tn_ids_push(&r->hi, hi, err);
}

static void
received_clear(received* r)
{
    r->id.n = r->lo.n = r->hi.n = 0;
}

static void
received_free(received* r)
{
    tn_ids_free(&r->id);
    tn_ids_free(&r->lo);
    tn_ids_free(&r->hi);
}

/* The receives of a step join those before it. */
static tn_status
rotate(swing* w, tn_error* err)
{
    tn_status st = TN_OK;
    for (uint32_t i = 0; i < w->p && !st; i++)
    {
        const received* r = &w->next[i];
        for (uint32_t k = 0; k < r->id.n && !st; k++)
        {
            st = received_push(&w->last[i], r->id.ids[k], r->lo.ids[k], r->hi.ids[k], err);
        }
        received_clear(&w->next[i]);
    }
    return st;
}

/* Position v sends the bytes [off, off + len) of slots [lo, hi) to position q at `step`,
 * after every transfer that wrote one of those slots into v in the steps before. Not after
 * v's own sends: the executor learns of a send's end from its ACK, a path latency after the
 * data arrives, and no later transfer needs it (v sends one half of its run and keeps
 * reducing into the other; a copy into a range a rank sent from comes from the peer that
 * reduced that send, so the send is its ancestor). Not after q's receives: reduces into one
 * range commute. tn_verify proves this order suffices. */
static tn_status
send_range(swing* w,
           uint32_t v,
           uint32_t q,
           uint32_t lo,
           uint32_t hi,
           uint64_t off,
           uint64_t len,
           tn_op op,
           uint32_t step,
           tn_error* err)
{
    const received* r = &w->last[v];
    tn_status st = TN_OK;
    w->scratch.n = 0;
    for (uint32_t k = 0; k < r->id.n && !st; k++)
    {
        if (r->lo.ids[k] < hi && r->hi.ids[k] > lo)
        {
            st = tn_ids_push(&w->scratch, r->id.ids[k], err);
        }
    }
    uint32_t a = w->order[v], b = w->order[q], id = 0;
    if (!st)
    {
        st = tn_algo_add(w->s,
                         a,
                         b,
                         off,
                         off,
                         len,
                         op,
                         step,
                         tn_algo_rank_dim(w->topo, a, b),
                         w->chunk,
                         w->scratch.ids,
                         w->scratch.n,
                         &id,
                         err);
    }
    return st ? st : received_push(&w->next[q], id, lo, hi, err);
}

/* Position v sends slots [lo, lo + n) to position q at `step`: one transfer per run of
 * slots whose bytes are contiguous (all-reduce: the whole range; reduce-scatter and
 * all-gather, whose slots hold the ranks' own slices: one per run of consecutive slices),
 * one empty transfer when the slots hold no byte. */
static tn_status
send_run(swing* w,
         uint32_t v,
         uint32_t q,
         uint32_t lo,
         uint32_t n,
         tn_op op,
         uint32_t step,
         tn_error* err)
{
    tn_status st = TN_OK;
    bool sent = false;
    uint32_t k = lo;
    while (k < lo + n && !st)
    {
        if (w->blocks[k].length == 0)
        {
            k++;
            continue;
        }
        uint32_t first = k;
        uint64_t off = w->blocks[k].offset, end = off + w->blocks[k].length;
        for (k++; k < lo + n && (w->blocks[k].length == 0 || w->blocks[k].offset == end); k++)
        {
            end += w->blocks[k].length;
        }
        st = send_range(w, v, q, first, k, off, end - off, op, step, err);
        sent = true;
    }
    if (!sent && !st)
    {
        st = send_range(w, v, q, lo, lo + n, w->blocks[lo].offset, 0, op, step, err);
    }
    return st;
}

static tn_status
swing_chunk(swing* w, tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t step = 0;
    tn_collective coll = tn_schedule_collective(w->s);
    /* reduce-scatter: at step s, v's run has 2^(L-s) slots; the peer gets its half */
    for (uint32_t s = 0; s < w->L && coll != TN_COLL_ALL_GATHER && !st; s++, step++)
    {
        uint32_t half = 1u << (w->L - 1 - s);
        for (uint32_t v = 0; v < w->p && !st; v++)
        {
            uint32_t q = w->peers[(size_t)s * w->p + v];
            uint32_t lo = w->pos[q] & ~(half - 1);
            st = send_run(w, v, q, lo, half, TN_OP_REDUCE, step, err);
        }
        st = st ? st : rotate(w, err);
    }
    /* all-gather: the mirror, v hands the peer the run it completed */
    for (uint32_t s = w->L; coll != TN_COLL_REDUCE_SCATTER && s-- > 0 && !st; step++)
    {
        uint32_t half = 1u << (w->L - 1 - s);
        for (uint32_t v = 0; v < w->p && !st; v++)
        {
            uint32_t q = w->peers[(size_t)s * w->p + v];
            uint32_t lo = w->pos[v] & ~(half - 1);
            st = send_run(w, v, q, lo, half, TN_OP_COPY, step, err);
        }
        st = st ? st : rotate(w, err);
    }
    return st;
}

/* One instance: every chunk's region (or part `part` of `parts` of it) with the peers
 * in w->peers; the slots are listed and checked first. All-reduce lays the slots out in
 * slot order over the region; reduce-scatter and all-gather give slot pos(v) the slice of
 * the rank at position v (its piece of the chunk), the block v ends or starts with. */
static tn_status
plan_instance(swing* w, uint32_t part, uint32_t parts, tn_error* err)
{
    uint32_t k = 0;
    list_tree(w, 0, 0, &k);
    tn_status st = check_slots(w, err);
    uint32_t C = tn_schedule_chunks(w->s);
    uint64_t S = tn_schedule_bytes(w->s);
    tn_collective coll = tn_schedule_collective(w->s);
    for (uint32_t v = 0; v < w->p && !st; v++)
    {
        w->at[w->pos[v]] = v;
    }
    for (uint32_t c = 0; c < C && !st; c++)
    {
        w->chunk = c;
        tn_slice region = tn_chunk_region(S, C, c);
        tn_slice piece = tn_slice_of(region.length, parts, part);
        for (uint32_t b = 0; b < w->p; b++)
        {
            if (coll == TN_COLL_ALL_REDUCE)
            {
                w->blocks[b] = tn_slice_of(piece.length, w->p, b);
                w->blocks[b].offset += region.offset + piece.offset;
            }
            else
            {
                tn_slice own = tn_chunk_block(coll, S, w->p, C, c, w->order[w->at[b]]);
                w->blocks[b] = tn_slice_of(own.length, parts, part);
                w->blocks[b].offset += own.offset;
            }
        }
        for (uint32_t i = 0; i < w->p; i++)
        {
            received_clear(&w->last[i]);
            received_clear(&w->next[i]);
        }
        st = swing_chunk(w, err);
    }
    return st;
}

static tn_status
swing_alloc(swing* w, const tn_topology* topo, tn_schedule* s, const char* name, tn_error* err)
{
    w->topo = topo;
    w->s = s;
    w->p = tn_schedule_ranks(s);
    while ((1u << w->L) < w->p)
    {
        w->L++;
    }
    w->pos = malloc((size_t)w->p * sizeof(uint32_t));
    w->at = malloc((size_t)w->p * sizeof(uint32_t));
    w->blocks = malloc((size_t)w->p * sizeof(tn_slice));
    w->last = calloc(w->p, sizeof(received));
    w->next = calloc(w->p, sizeof(received));
    uint32_t* peers = malloc((size_t)(w->L ? w->L : 1) * w->p * sizeof(uint32_t));
    w->peers = peers;
    if (!w->pos || !w->at || !w->blocks || !w->last || !w->next || !peers)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    return TN_OK;
}

static void
swing_free(swing* w)
{
    for (uint32_t i = 0; w->last && w->next && i < w->p; i++)
    {
        received_free(&w->last[i]);
        received_free(&w->next[i]);
    }
    tn_ids_free(&w->scratch);
    free(w->last);
    free(w->next);
    free(w->blocks);
    free(w->at);
    free(w->pos);
    free((void*)w->peers);
}

tn_status
tn_algo_swing_plan(const tn_topology* topo,
                   const tn_plan_request* request,
                   tn_schedule* s,
                   tn_error* err)
{
    swing w = {0};
    if (tn_schedule_ranks(s) < 2)
    {
        return TN_OK;
    }
    uint32_t* order = NULL;
    tn_status st = swing_alloc(&w, topo, s, "swing", err);
    if (!st)
    {
        st = tn_algo_ring_order(topo, request, w.p, &order, err);
    }
    if (!st)
    {
        w.order = order;
        uint32_t* peers = (uint32_t*)w.peers;
        for (uint32_t t = 0; t < w.L; t++)
        {
            for (uint32_t v = 0; v < w.p; v++)
            {
                peers[(size_t)t * w.p + v] = swing_peer(v, t, w.p);
            }
        }
        st = plan_instance(&w, 0, 1, err);
    }
    swing_free(&w);
    free(order);
    return st;
}

tn_status
tn_algo_swing_torus_check(const tn_topology* topo,
                          const tn_plan_request* request,
                          uint32_t ranks,
                          tn_error* err)
{
    (void)request;
    uint32_t D = tn_topology_dim_count(topo);
    if (D == 0)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "swing-torus: needs a torus or ring (topology '%s' has no dimensions)",
                            tn_topology_name(topo));
    }
    for (uint32_t d = 0; d < D; d++)
    {
        const tn_dim_info* di = tn_topology_dim(topo, d);
        if (di->kind != TN_DIM_TORUS && di->kind != TN_DIM_RING)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "swing-torus: needs a torus or ring: dim %u of topology '%s' has "
                                "no wraparound links",
                                d,
                                tn_topology_name(topo));
        }
        if (di->size & (di->size - 1))
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "swing-torus: needs power-of-two dims: dim %u of topology '%s' "
                                "has %u NPUs (supported: 2, 4, 8, ... per dim)",
                                d,
                                tn_topology_name(topo),
                                di->size);
        }
    }
    if (ranks != tn_topology_npu_count(topo))
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "swing-torus: needs every NPU of the topology (ranks %u, NPUs %u)",
                            ranks,
                            tn_topology_npu_count(topo));
    }
    return TN_OK;
}

/* Peers of part j: step t moves along dim (j + t) mod D, skipping finished dims. */
static void
torus_peers(const tn_topology* topo, uint32_t part, uint32_t p, uint32_t L, uint32_t* peers)
{
    uint32_t D = tn_topology_dim_count(topo);
    uint32_t used[64] = {0}, steps[64] = {0}, stride[64];
    uint32_t pa = 1;
    for (uint32_t d = 0; d < D; d++)
    {
        uint32_t size = tn_topology_dim(topo, d)->size;
        while ((1u << steps[d]) < size)
        {
            steps[d]++;
        }
        stride[d] = pa;
        pa *= size;
    }
    uint32_t d = part % D;
    int64_t sign = part < D ? 1 : -1;
    for (uint32_t t = 0; t < L; t++)
    {
        while (used[d] == steps[d])
        {
            d = (d + 1) % D;
        }
        uint32_t size = tn_topology_dim(topo, d)->size;
        int64_t rho = sign * (swing_rho(used[d]) % (int64_t)size);
        for (uint32_t v = 0; v < p; v++)
        {
            uint32_t c = (v / stride[d]) % size;
            int64_t q = (c % 2 == 0 ? (int64_t)c + rho : (int64_t)c - rho) % (int64_t)size;
            q = q < 0 ? q + size : q;
            peers[(size_t)t * p + v] = v + ((uint32_t)q - c) * stride[d];
        }
        used[d]++;
        d = (d + 1) % D;
    }
}

tn_status
tn_algo_swing_layout(const tn_topology* topo,
                     bool torus,
                     uint32_t part,
                     uint32_t p,
                     uint32_t* peers,
                     uint32_t* pos,
                     uint32_t* at,
                     tn_error* err)
{
    swing w = {0};
    w.topo = topo;
    w.p = p;
    while ((1u << w.L) < p)
    {
        w.L++;
    }
    if (torus && tn_topology_dim_count(topo) > 64)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "swing-torus: %u dims, at most 64",
                            tn_topology_dim_count(topo));
    }
    if (torus)
    {
        torus_peers(topo, part, p, w.L, peers);
    }
    else
    {
        for (uint32_t t = 0; t < w.L; t++)
        {
            for (uint32_t v = 0; v < p; v++)
            {
                peers[(size_t)t * p + v] = swing_peer(v, t, p);
            }
        }
    }
    w.peers = peers;
    w.pos = pos;
    uint32_t k = 0;
    list_tree(&w, 0, 0, &k);
    tn_status st = check_slots(&w, err);
    for (uint32_t v = 0; v < p && !st; v++)
    {
        at[pos[v]] = v;
    }
    return st;
}

tn_status
tn_algo_swing_torus_plan(const tn_topology* topo,
                         const tn_plan_request* request,
                         tn_schedule* s,
                         tn_error* err)
{
    (void)request;
    swing w = {0};
    if (tn_schedule_ranks(s) < 2)
    {
        return TN_OK;
    }
    uint32_t D = tn_topology_dim_count(topo);
    if (D > 64)
    {
        return tn_error_set(err, TN_EUNSUPPORTED, "swing-torus: %u dims, at most 64", D);
    }
    uint32_t* order = malloc((size_t)tn_schedule_ranks(s) * sizeof(uint32_t));
    tn_status st = order ? swing_alloc(&w, topo, s, "swing-torus", err)
                         : tn_error_set(err, TN_ENOMEM, "swing-torus: out of memory");
    if (!st)
    {
        for (uint32_t v = 0; v < w.p; v++)
        {
            order[v] = v;
        }
        w.order = order;
    }
    for (uint32_t part = 0; part < 2 * D && !st; part++)
    {
        torus_peers(topo, part, w.p, w.L, (uint32_t*)w.peers);
        st = plan_instance(&w, part, 2 * D, err);
    }
    swing_free(&w);
    free(order);
    return st;
}

tn_status
tn_algo_swing_lat_plan(const tn_topology* topo,
                       const tn_plan_request* request,
                       tn_schedule* s,
                       tn_error* err)
{
    uint32_t p = tn_schedule_ranks(s), L = 0;
    if (p < 2)
    {
        return TN_OK;
    }
    while ((1u << L) < p)
    {
        L++;
    }
    uint64_t S = tn_schedule_bytes(s);
    uint32_t C = tn_schedule_chunks(s);
    if (S > UINT64_MAX / (L + 1))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "swing-lat: %llu bytes and %u steps: the scratch (steps x bytes) "
                            "overflows",
                            (unsigned long long)S,
                            L);
    }
    tn_schedule_set_scratch(s, (uint64_t)L * S);
    uint32_t* order = NULL;
    /* per position: its last local reduce (the sum it sends next), its step-0 send and what it
     * received in this step */
    uint32_t* sum = malloc((size_t)p * sizeof(uint32_t));
    uint32_t* first = malloc((size_t)p * sizeof(uint32_t));
    uint32_t* got = malloc((size_t)p * sizeof(uint32_t));
    tn_status st = sum && first && got ? tn_algo_ring_order(topo, request, p, &order, err)
                                       : tn_error_set(err, TN_ENOMEM, "swing-lat: out of memory");
    for (uint32_t c = 0; c < C && !st; c++)
    {
        tn_slice region = tn_chunk_region(S, C, c);
        for (uint32_t t = 0; t < L && !st; t++)
        {
            /* the sum after step t - 1: the vector itself before step 0 */
            uint64_t from = (uint64_t)t * S + region.offset;
            uint64_t slot = (uint64_t)(t + 1) * S + region.offset;
            for (uint32_t v = 0; v < p && !st; v++)
            {
                uint32_t q = swing_peer(v, t, p), a = order[v], b = order[q];
                st = tn_algo_add(s,
                                 a,
                                 b,
                                 from,
                                 slot,
                                 region.length,
                                 TN_OP_COPY,
                                 t,
                                 tn_algo_rank_dim(topo, a, b),
                                 c,
                                 &sum[v],
                                 t > 0,
                                 &got[q],
                                 err);
                first[v] = t == 0 ? got[q] : first[v];
            }
            for (uint32_t v = 0; v < p && !st; v++)
            {
                uint32_t deps[2] = {got[v], sum[v]};
                st = tn_algo_add(s,
                                 order[v],
                                 order[v],
                                 from,
                                 slot,
                                 region.length,
                                 TN_OP_LOCAL_REDUCE,
                                 t,
                                 -1,
                                 c,
                                 deps,
                                 t > 0 ? 2 : 1,
                                 &sum[v],
                                 err);
            }
        }
        for (uint32_t v = 0; v < p && !st; v++)
        {
            uint32_t deps[2] = {sum[v], first[v]};
            st = tn_algo_add(s,
                             order[v],
                             order[v],
                             (uint64_t)L * S + region.offset,
                             region.offset,
                             region.length,
                             TN_OP_LOCAL_COPY,
                             L - 1,
                             -1,
                             c,
                             deps,
                             2,
                             NULL,
                             err);
        }
    }
    free(order);
    free(sum);
    free(first);
    free(got);
    return st;
}
