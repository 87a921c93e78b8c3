/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's model in the registry (tn-nccl.h): the choice of NCCL's tuner, planned as the
 * registry's ring or double binary tree with one chunk per channel. The protocol's costs are
 * not in the plan: the cost model and the executor take them from tn_nccl_choose.
 */
#include "tn-algorithm-impl.h"
#include "tn-nccl.h"

#include <stdlib.h>

tn_status
tn_algo_nccl_check(const tn_topology* topo,
                   const tn_plan_request* request,
                   uint32_t ranks,
                   tn_error* err)
{
    tn_nccl_choice choice;
    return tn_nccl_choose(topo, request, ranks, &choice, err);
}

tn_status
tn_algo_nccl_prepare(const tn_topology* topo,
                     const tn_plan_request* request,
                     uint32_t ranks,
                     tn_plan_request* out,
                     tn_error* err)
{
    tn_nccl_choice choice;
    tn_status st = tn_nccl_choose(topo, request, ranks, &choice, err);
    if (st)
    {
        return st;
    }
    *out = *request;
    out->chunks = choice.channels;
    return TN_OK;
}

bool
tn_algo_nccl_is_tree(const tn_topology* topo, const tn_plan_request* request, uint32_t ranks)
{
    tn_nccl_choice choice;
    tn_error err;
    return tn_nccl_choose(topo, request, ranks, &choice, &err) == TN_OK &&
           choice.algo == TN_NCCL_TREE;
}

/*
 * NCCL's rings across servers, one per channel, each crossing between servers on a rail (the
 * same GPU, and so the same leaf, on both sides): channel c enters a server at GPU a = c mod
 * g and leaves it from b = a + 1 (mod g) through a, a+2, ..., a+g-1, a+1; the next server is
 * walked backwards, entered at b and left from a; so with an even number of servers every
 * crossing stays on rail a or b, the wrap included (an odd number wraps over a spine). The C
 * channels spread over the g NICs of a server (2C / g crossings each), as NCCL's rings do,
 * where one ring order would send every channel through one NIC. Needs the ranks to be every
 * NPU of a topology of >= 2 dims, dim 0 the server's GPUs (the presets); *orders NULL
 * otherwise (the registry's ring order then).
 */
static tn_status
rail_orders(const tn_topology* topo, uint32_t N, uint32_t C, uint32_t** orders, tn_error* err)
{
    *orders = NULL;
    if (!topo || tn_topology_dim_count(topo) < 2 || N != tn_topology_npu_count(topo))
        return TN_OK;
    uint32_t g = tn_topology_dim(topo, 0)->size;
    if (g < 2 || N % g != 0 || N / g < 2)
        return TN_OK;
    uint32_t servers = N / g;
    uint32_t* o = malloc((size_t)N * C * sizeof(uint32_t));
    if (!o)
        return tn_error_set(err, TN_ENOMEM, "nccl: out of memory");
    for (uint32_t c = 0; c < C; c++)
    {
        uint32_t a = c % g;
        for (uint32_t sv = 0; sv < servers; sv++)
        {
            uint32_t* at = o + (size_t)c * N + (size_t)sv * g;
            for (uint32_t k = 0; k < g; k++)
            {
                /* forward: a, a+2, ..., a+g-1, a+1 */
                uint32_t f = k == 0 ? 0 : k == g - 1 ? 1 : k + 1;
                at[sv % 2 == 0 ? k : g - 1 - k] = sv * g + (a + f) % g;
            }
        }
    }
    *orders = o;
    return TN_OK;
}

tn_status
tn_algo_nccl_plan(const tn_topology* topo,
                  const tn_plan_request* request,
                  tn_schedule* s,
                  tn_error* err)
{
    tn_nccl_choice choice;
    tn_status st = tn_nccl_choose(topo, request, tn_schedule_ranks(s), &choice, err);
    if (st)
    {
        return st;
    }
    tn_plan_request r = *request;
    r.algorithm = choice.planner;
    tn_collective coll = tn_schedule_collective(s);
    uint32_t* orders = NULL;
    if (choice.algo == TN_NCCL_RING && choice.system.servers > 1 &&
        (coll == TN_COLL_ALL_REDUCE || coll == TN_COLL_REDUCE_SCATTER ||
         coll == TN_COLL_ALL_GATHER))
        st = rail_orders(topo, tn_schedule_ranks(s), tn_schedule_chunks(s), &orders, err);
    if (st)
        return st;
    if (orders)
        st = tn_algo_flat_plan_orders(topo,
                                      s,
                                      orders,
                                      tn_schedule_chunks(s),
                                      tn_phase_ring_rs,
                                      tn_phase_ring_ag,
                                      err);
    else
        st = choice.algo == TN_NCCL_TREE ? tn_algo_dbt_plan(topo, &r, s, err)
                                         : tn_algo_ring_plan(topo, &r, s, err);
    free(orders);
    return st ? st : tn_schedule_set_algorithm(s, choice.name, err);
}
