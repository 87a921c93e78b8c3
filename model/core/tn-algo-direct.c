/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Direct algorithms: every rank sends to every other rank in one step (all-to-all,
 * reduce-scatter, all-gather, all-reduce = reduce-scatter + all-gather, broadcast
 * and reduce from/to the root). Also the direct phases used by hierarchical and
 * Themis on fully connected and switch dimensions.
 */
#include "tn-algorithm-impl.h"

static int32_t
phase_dim(const tn_phase* ph, uint32_t a, uint32_t b)
{
    return ph->dim == TN_DIM_AUTO ? tn_algo_rank_dim(ph->topo, a, b) : ph->dim;
}

tn_status
tn_phase_direct_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    uint32_t P = ph->count;
    if (steps_used)
        *steps_used = P > 1 ? 1 : 0;
    tn_deps deps = {NULL, 0, 0};
    tn_status st = TN_OK;
    /* earlier phases' writes stay live: out[m] += in[m] */
    for (uint32_t k = 0; k < P && !st; k++)
    {
        st = tn_deps_push_front(&deps, ph->in, ph->members[k], err);
        for (uint32_t i = 0; i < deps.n && !st; i++)
            st = tn_front_push(ph->out, ph->members[k], deps.ids[i], err);
        deps.n = 0;
    }
    for (uint32_t j = 0; j < P && !st; j++)
    {
        for (uint32_t k = 0; k < P && !st; k++)
        {
            if (k == j)
                continue;
            uint32_t src = ph->members[k], dst = ph->members[j];
            uint32_t id;
            deps.n = 0;
            st = tn_deps_push_front(&deps, ph->in, src, err);
            if (!st)
                st = tn_algo_add(ph->s,
                                 src,
                                 dst,
                                 ph->parts[j].offset,
                                 ph->parts[j].offset,
                                 ph->parts[j].length,
                                 TN_OP_REDUCE,
                                 ph->step,
                                 phase_dim(ph, src, dst),
                                 ph->chunk,
                                 deps.ids,
                                 deps.n,
                                 &id,
                                 err);
            if (!st)
                st = tn_front_push(ph->out, dst, id, err);
        }
    }
    tn_deps_free(&deps);
    return st;
}

tn_status
tn_phase_direct_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    uint32_t P = ph->count;
    if (steps_used)
        *steps_used = P > 1 ? 1 : 0;
    tn_deps deps = {NULL, 0, 0};
    tn_status st = TN_OK;
    for (uint32_t k = 0; k < P && !st; k++)
    {
        st = tn_deps_push_front(&deps, ph->in, ph->members[k], err);
        for (uint32_t i = 0; i < deps.n && !st; i++)
            st = tn_front_push(ph->out, ph->members[k], deps.ids[i], err);
        deps.n = 0;
    }
    for (uint32_t j = 0; j < P && !st; j++)
    {
        for (uint32_t k = 0; k < P && !st; k++)
        {
            if (k == j)
                continue;
            uint32_t src = ph->members[j], dst = ph->members[k];
            uint32_t id;
            deps.n = 0;
            /* RAW at the owner; the destination's earlier reads of part j (its
             * reduce-scatter sends to j) are ancestors through the owner's frontier */
            st = tn_deps_push_front(&deps, ph->in, src, err);
            if (!st)
                st = tn_algo_add(ph->s,
                                 src,
                                 dst,
                                 ph->parts[j].offset,
                                 ph->parts[j].offset,
                                 ph->parts[j].length,
                                 TN_OP_COPY,
                                 ph->step,
                                 phase_dim(ph, src, dst),
                                 ph->chunk,
                                 deps.ids,
                                 deps.n,
                                 &id,
                                 err);
            if (!st)
                st = tn_front_push(ph->out, dst, id, err);
        }
    }
    tn_deps_free(&deps);
    return st;
}

tn_status
tn_algo_direct_plan(const tn_topology* topo,
                    const tn_plan_request* request,
                    tn_schedule* s,
                    tn_error* err)
{
    (void)request;
    tn_collective coll = tn_schedule_collective(s);
    uint32_t N = tn_schedule_ranks(s);
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    uint32_t root = tn_schedule_root(s);
    tn_status st = TN_OK;
    switch (coll)
    {
    case TN_COLL_ALL_TO_ALL:
        for (uint32_t c = 0; c < C && !st; c++)
            for (uint32_t i = 0; i < N && !st; i++)
                for (uint32_t j = 0; j < N && !st; j++)
                {
                    if (i == j)
                        continue;
                    tn_slice b = tn_chunk_block(coll, S, N, C, c, j);
                    st = tn_algo_add(s,
                                     i,
                                     j,
                                     b.offset,
                                     tn_alltoall_recv_offset(S, N, C, c, i, j),
                                     b.length,
                                     TN_OP_COPY,
                                     0,
                                     tn_algo_rank_dim(topo, i, j),
                                     c,
                                     NULL,
                                     0,
                                     NULL,
                                     err);
                }
        return st;
    case TN_COLL_BROADCAST:
    case TN_COLL_REDUCE:
        for (uint32_t c = 0; c < C && !st; c++)
        {
            tn_slice reg = tn_chunk_region(S, C, c);
            for (uint32_t r = 0; r < N && !st; r++)
            {
                if (r == root)
                    continue;
                bool b = coll == TN_COLL_BROADCAST;
                uint32_t src = b ? root : r, dst = b ? r : root;
                st = tn_algo_add(s,
                                 src,
                                 dst,
                                 reg.offset,
                                 reg.offset,
                                 reg.length,
                                 b ? TN_OP_COPY : TN_OP_REDUCE,
                                 0,
                                 tn_algo_rank_dim(topo, src, dst),
                                 c,
                                 NULL,
                                 0,
                                 NULL,
                                 err);
            }
        }
        return st;
    default:
        return tn_algo_flat_plan(topo, s, tn_phase_direct_rs, tn_phase_direct_ag, err);
    }
}
