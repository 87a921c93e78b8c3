/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Ring algorithms: unidirectional and bidirectional ring reduce-scatter, all-gather
 * and all-reduce (Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for
 * clusters of workstations", JPDC 2009), and pipelined chain broadcast / reduce.
 * Also the ring phases used by ring2d, hierarchical and Themis.
 * ring and ring-bidir place the ranks in the request's rank order or the
 * automatic ring order of tn-rank-order.h (a cycle of neighbours on a torus or
 * mesh, switch-local on switched networks, identity without a topology).
 */
#include "tn-algorithm-impl.h"
#include "tn-rank-order.h"

#include <stdlib.h>
#include <string.h>

/*
 * One ring direction over members m and `parts` (already oriented: member k owns
 * parts[k*nr .. k*nr+nr-1], nr >= 1 ranges); member k sends to member k+1, P-1
 * steps, one transfer per range, and range j of a part has its own dep chain (nr
 * independent rings that share the steps). Deps and out as documented at tn_phase
 * (tn-algorithm-impl.h): reduce-scatter = RAW at the sender; all-gather step 0 = the
 * owner's complete part, later steps = the copy that brought the range (earlier
 * reads/writes of the range at dst are ancestors through the part's reduce-scatter
 * chain).
 */
static tn_status
ring_one(const tn_phase* ph,
         const uint32_t* m,
         const tn_slice* parts,
         uint32_t nr,
         bool rs,
         tn_error* err)
{
    uint32_t P = ph->count;
    tn_status st = ph->chain ? TN_OK : tn_phase_keep_front(ph, err);
    if (P < 2 || nr == 0 || st)
        return st;
    size_t n = (size_t)P * nr;
    uint32_t* prev = malloc(n * sizeof(uint32_t));
    uint32_t* cur = malloc(n * sizeof(uint32_t));
    tn_ids deps = {NULL, 0, 0};
    if (!prev || !cur)
    {
        st = tn_error_set(err, TN_ENOMEM, "plan: out of memory");
        goto done;
    }
    for (uint32_t s = 0; s + 1 < P && !st; s++)
    {
        for (uint32_t k = 0; k < P && !st; k++)
        {
            uint32_t part = rs ? (uint32_t)(((uint64_t)k + 2 * (uint64_t)P - s - 1) % P)
                               : (uint32_t)(((uint64_t)k + P - s) % P);
            uint32_t src = m[k], dst = m[(k + 1) % P];
            size_t before = (size_t)((k + P - 1) % P) * nr; /* what k received last step */
            for (uint32_t j = 0; j < nr && !st; j++)
            {
                const tn_slice* r = &parts[(size_t)part * nr + j];
                size_t at = (size_t)k * nr + j;
                deps.n = 0;
                if (s == 0 || (rs && !ph->chain))
                    st = tn_ids_push_front(&deps, ph->in, src, err);
                if (!st && s > 0)
                    st = tn_ids_push(&deps, prev[before + j], err);
                if (!st && s > 0 && ph->chain)
                    st = tn_ids_push(&deps, prev[at], err); /* own previous send */
                if (!st)
                    st = tn_algo_add(ph->s,
                                     src,
                                     dst,
                                     r->offset,
                                     r->offset,
                                     r->length,
                                     rs ? TN_OP_REDUCE : TN_OP_COPY,
                                     ph->step + s,
                                     tn_phase_dim(ph, src, dst),
                                     ph->chunk,
                                     deps.ids,
                                     deps.n,
                                     &cur[at],
                                     err);
                if (!st && !ph->chain && (!rs || s + 2 == P))
                    st = tn_front_push(ph->out, dst, cur[at], err);
            }
        }
        uint32_t* t = prev;
        prev = cur;
        cur = t;
    }
    /* chain: out[m] = m's last receives, then its last sends */
    for (uint32_t k = 0; k < P && !st && ph->chain; k++)
    {
        size_t before = (size_t)((k + P - 1) % P) * nr;
        for (uint32_t j = 0; j < nr && !st; j++)
            st = tn_front_push(ph->out, m[k], prev[before + j], err);
        for (uint32_t j = 0; j < nr && !st; j++)
            st = tn_front_push(ph->out, m[k], prev[(size_t)k * nr + j], err);
    }
done:
    free(prev);
    free(cur);
    tn_ids_free(&deps);
    return st;
}

tn_status
tn_phase_ring_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    if (steps_used)
        *steps_used = ph->count > 1 ? ph->count - 1 : 0;
    return ring_one(ph, ph->members, ph->parts, 1, true, err);
}

tn_status
tn_phase_ring_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    if (steps_used)
        *steps_used = ph->count > 1 ? ph->count - 1 : 0;
    return ring_one(ph, ph->members, ph->parts, 1, false, err);
}

tn_status
tn_phase_ring_ranges(const tn_phase* ph, uint32_t ranges, bool rs, tn_error* err)
{
    return ring_one(ph, ph->members, ph->parts, ranges, rs, err);
}

/* Both halves: half 0 forward, half 1 on the reversed ring. */
static tn_status
ring_bidir(const tn_phase* ph, bool rs, uint32_t* steps_used, tn_error* err)
{
    uint32_t P = ph->count;
    if (steps_used)
        *steps_used = P > 1 ? P - 1 : 0;
    uint32_t* rm = malloc(((size_t)P + 1) * sizeof(uint32_t));
    tn_slice* h0 = malloc(((size_t)P + 1) * sizeof(tn_slice));
    tn_slice* h1 = malloc(((size_t)P + 1) * sizeof(tn_slice));
    tn_status st = TN_OK;
    if (!rm || !h0 || !h1)
    {
        st = tn_error_set(err, TN_ENOMEM, "plan: out of memory");
        goto done;
    }
    for (uint32_t k = 0; k < P; k++)
    {
        tn_slice a = tn_slice_of(ph->parts[k].length, 2, 0);
        tn_slice b = tn_slice_of(ph->parts[k].length, 2, 1);
        a.offset += ph->parts[k].offset;
        b.offset += ph->parts[k].offset;
        h0[k] = a;
        rm[P - 1 - k] = ph->members[k];
        h1[P - 1 - k] = b;
    }
    st = ring_one(ph, ph->members, h0, 1, rs, err);
    if (!st)
        st = ring_one(ph, rm, h1, 1, rs, err);
done:
    free(rm);
    free(h0);
    free(h1);
    return st;
}

tn_status
tn_phase_ring_bidir_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    return ring_bidir(ph, true, steps_used, err);
}

tn_status
tn_phase_ring_bidir_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    return ring_bidir(ph, false, steps_used, err);
}

/* ---- flat single-group planning shared by ring, ring-bidir and direct ------------- */

tn_status
tn_algo_ring_order(const tn_topology* topo,
                   const tn_plan_request* request,
                   uint32_t ranks,
                   uint32_t** order,
                   tn_error* err)
{
    *order = malloc((size_t)(ranks ? ranks : 1) * sizeof(uint32_t));
    if (!*order)
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    if (request && request->rank_order)
    {
        memcpy(*order, request->rank_order, (size_t)ranks * sizeof(uint32_t));
        return TN_OK;
    }
    tn_status st = tn_ring_order(topo, ranks, *order, NULL, err);
    if (st)
    {
        free(*order);
        *order = NULL;
    }
    return st;
}

tn_status
tn_algo_flat_plan(const tn_topology* topo,
                  tn_schedule* s,
                  const uint32_t* order,
                  tn_phase_fn rs,
                  tn_phase_fn ag,
                  tn_error* err)
{
    return tn_algo_flat_plan_orders(topo, s, order, order ? 1 : 0, rs, ag, err);
}

tn_status
tn_algo_flat_plan_orders(const tn_topology* topo,
                         tn_schedule* s,
                         const uint32_t* orders,
                         uint32_t norders,
                         tn_phase_fn rs,
                         tn_phase_fn ag,
                         tn_error* err)
{
    tn_collective coll = tn_schedule_collective(s);
    uint32_t N = tn_schedule_ranks(s);
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    uint32_t* members = malloc((size_t)N * sizeof(uint32_t));
    tn_slice* parts = malloc((size_t)N * sizeof(tn_slice));
    tn_front a, b;
    tn_status st = TN_OK;
    bool fa = false, fb = false;
    if (!members || !parts)
    {
        st = tn_error_set(err, TN_ENOMEM, "plan: out of memory");
        goto done;
    }
    st = tn_front_init(&a, N, err);
    fa = !st;
    if (!st)
    {
        st = tn_front_init(&b, N, err);
        fb = !st;
    }
    for (uint32_t c = 0; c < C && !st; c++)
    {
        const uint32_t* order = norders ? orders + (size_t)(c % norders) * N : NULL;
        for (uint32_t k = 0; k < N; k++)
            members[k] = order ? order[k] : k;
        for (uint32_t k = 0; k < N; k++)
            parts[k] = tn_chunk_block(coll, S, N, C, c, members[k]);
        tn_front_clear(&a);
        tn_front_clear(&b);
        tn_phase ph = {topo, s, &a, &b, members, N, parts, 0, c, TN_DIM_AUTO, false};
        uint32_t used = 0;
        if (coll == TN_COLL_ALL_REDUCE || coll == TN_COLL_REDUCE_SCATTER)
        {
            st = rs(&ph, &used, err);
            if (!st)
                st = tn_front_carry(&a, &b, err);
            tn_front_swap(&a, &b);
            tn_front_clear(&b);
        }
        if (!st && (coll == TN_COLL_ALL_REDUCE || coll == TN_COLL_ALL_GATHER))
        {
            ph.step = used;
            st = ag(&ph, &used, err);
        }
    }
done:
    if (fa)
        tn_front_free(&a);
    if (fb)
        tn_front_free(&b);
    free(members);
    free(parts);
    return st;
}

/* Pipelined chain along the ring order: broadcast root -> next -> ...; reduce
 * (root's successor) -> ... -> root. */
static tn_status
chain_plan(const tn_topology* topo, tn_schedule* s, const uint32_t* order, tn_error* err)
{
    tn_collective coll = tn_schedule_collective(s);
    uint32_t N = tn_schedule_ranks(s);
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    uint32_t root = tn_schedule_root(s);
    bool bcast = coll == TN_COLL_BROADCAST;
    if (N < 2)
        return TN_OK;
    uint32_t* prev = malloc((size_t)N * sizeof(uint32_t));
    if (!prev)
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    uint32_t at = 0; /* ring position of the root */
    while (order[at] != root)
        at++;
    tn_status st = TN_OK;
    for (uint32_t c = 0; c < C && !st; c++)
    {
        tn_slice region = tn_chunk_region(S, C, c);
        uint32_t segs = N;
        for (uint32_t h = 0; h + 1 < N && !st; h++)
        {
            /* member h -> member h+1 of the chain */
            uint32_t src = order[bcast ? (at + h) % N : (at + 1 + h) % N];
            uint32_t dst = order[bcast ? (at + h + 1) % N : (at + 2 + h) % N];
            for (uint32_t i = 0; i < segs && !st; i++)
            {
                tn_slice sg = tn_slice_of(region.length, segs, i);
                sg.offset += region.offset;
                uint32_t id;
                st = tn_algo_add(s,
                                 src,
                                 dst,
                                 sg.offset,
                                 sg.offset,
                                 sg.length,
                                 bcast ? TN_OP_COPY : TN_OP_REDUCE,
                                 h + i,
                                 tn_algo_rank_dim(topo, src, dst),
                                 c,
                                 h ? &prev[i] : NULL,
                                 h ? 1 : 0,
                                 &id,
                                 err);
                prev[i] = id;
            }
        }
    }
    free(prev);
    return st;
}

tn_status
tn_algo_ring_plan(const tn_topology* topo,
                  const tn_plan_request* request,
                  tn_schedule* s,
                  tn_error* err)
{
    tn_collective coll = tn_schedule_collective(s);
    uint32_t* order = NULL;
    tn_status st = tn_algo_ring_order(topo, request, tn_schedule_ranks(s), &order, err);
    if (st)
        return st;
    if (coll == TN_COLL_BROADCAST || coll == TN_COLL_REDUCE)
        st = chain_plan(topo, s, order, err);
    else
        st = tn_algo_flat_plan(topo, s, order, tn_phase_ring_rs, tn_phase_ring_ag, err);
    free(order);
    return st;
}

tn_status
tn_algo_ring_bidir_plan(const tn_topology* topo,
                        const tn_plan_request* request,
                        tn_schedule* s,
                        tn_error* err)
{
    uint32_t* order = NULL;
    tn_status st = tn_algo_ring_order(topo, request, tn_schedule_ranks(s), &order, err);
    if (st)
        return st;
    st = tn_algo_flat_plan(topo, s, order, tn_phase_ring_bidir_rs, tn_phase_ring_bidir_ag, err);
    free(order);
    return st;
}
