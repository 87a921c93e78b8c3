/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Direct algorithms: every rank sends to every other rank in one step (all-to-all,
 * reduce-scatter, all-gather, all-reduce = reduce-scatter + all-gather, broadcast
 * and reduce from/to the root). Also the direct phases used by hierarchical and
 * Themis on fully connected and switch dimensions.
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>

/*
 * One direct step. Default: for every part owner j (outer) and every other member k
 * (inner), reduce-scatter sends part j from k to the owner (REDUCE), all-gather
 * sends it from the owner to k (COPY). chain: for every offset t (outer) and member
 * j (inner), j sends to j+1+t (part of the destination in a reduce-scatter, its own
 * part in an all-gather), so that every member's t-th send goes to a different
 * destination. Deps: the sender's frontier (RAW at the sender; in the all-gather the
 * destination's earlier reads of part j, its reduce-scatter sends to j, are
 * ancestors through the owner's frontier). Out: see tn_phase.
 */
static tn_status
direct_phase(const tn_phase* ph, bool rs, uint32_t* steps_used, tn_error* err)
{
    uint32_t P = ph->count;
    if (steps_used)
        *steps_used = P > 1 ? 1 : 0;
    tn_ids deps = {NULL, 0, 0};
    uint32_t* last = ph->chain ? malloc(((size_t)P + 1) * sizeof(uint32_t)) : NULL;
    tn_status st = TN_OK;
    if (ph->chain && !last)
        st = tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    else if (!ph->chain)
        st = tn_phase_keep_front(ph, err);
    for (uint32_t o = 0; o < P && !st; o++)
    {
        for (uint32_t i = 0; i < P && !st; i++)
        {
            /* (o, i) = (offset, sender): sender i sends to member (i + 1 + o) % P. With
             * chain o is a position in i's chain; without, the P-1 rounds o are shifts,
             * so every round is a permutation (no incast when a switch serves it). */
            if (o + 1 == P)
                continue;
            uint32_t ks = i;
            uint32_t kd = (i + 1 + o) % P;
            uint32_t part = rs ? kd : ks;
            uint32_t src = ph->members[ks], dst = ph->members[kd];
            uint32_t id;
            deps.n = 0;
            st = tn_ids_push_front(&deps, ph->in, src, err);
            if (!st)
                st = tn_algo_add(ph->s,
                                 src,
                                 dst,
                                 ph->parts[part].offset,
                                 ph->parts[part].offset,
                                 ph->parts[part].length,
                                 rs ? TN_OP_REDUCE : TN_OP_COPY,
                                 ph->step,
                                 tn_phase_dim(ph, src, dst),
                                 ph->chunk,
                                 deps.ids,
                                 deps.n,
                                 &id,
                                 err);
            if (!st)
                st = tn_front_push(ph->out, dst, id, err);
            if (!st && last)
                last[ks] = id;
        }
    }
    /* chain: out[m] ends with m's last send */
    for (uint32_t k = 0; k < P && !st && last && P > 1; k++)
        st = tn_front_push(ph->out, ph->members[k], last[k], err);
    free(last);
    tn_ids_free(&deps);
    return st;
}

tn_status
tn_phase_direct_rs(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    return direct_phase(ph, true, steps_used, err);
}

tn_status
tn_phase_direct_ag(const tn_phase* ph, uint32_t* steps_used, tn_error* err)
{
    return direct_phase(ph, false, steps_used, err);
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
            for (uint32_t k = 1; k < N && !st; k++) /* shifts: each round a permutation */
                for (uint32_t i = 0; i < N && !st; i++)
                {
                    uint32_t j = (i + k) % N;
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
        return tn_algo_flat_plan(topo, s, NULL, tn_phase_direct_rs, tn_phase_direct_ag, err);
    }
}
