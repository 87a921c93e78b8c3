/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's model in the registry (tn-nccl.h): the choice of NCCL's tuner, planned as the
 * registry's ring or double binary tree with one chunk per channel. The protocol's costs are
 * not in the plan: the cost model and the executor take them from tn_nccl_choose.
 */
#include "tn-algorithm-impl.h"
#include "tn-nccl.h"

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
    st = choice.algo == TN_NCCL_TREE ? tn_algo_dbt_plan(topo, &r, s, err)
                                     : tn_algo_ring_plan(topo, &r, s, err);
    return st ? st : tn_schedule_set_algorithm(s, choice.name, err);
}
