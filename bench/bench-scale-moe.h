/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-scale's MoE rows (--moe-sizes, default 256): one MoE layer's dispatch all-to-all of
 * --moe-model (deepseek-v3-like) with EP over all n GPUs, its bytes per rank the generator's
 * (tn_llm_ep_all_to_all_bytes) for a micro-batch of --moe-tokens tokens (256; the model's
 * 4,096 are 16 times the packets), direct as the LLM programs run EP, at packet level on
 * n/8 DGX H100 servers with the rail-optimized fabric (a leaf per rail, 8 spines: a change of
 * rail has 8 equal-cost paths; --moe-oversub thins the uplinks): "moe ecmp" (the switches'
 * hash) beside "moe planned" (the plan's paths, the baseline), both against the line-rate
 * bound and the planned paths' busiest link. Goal: each under 3 minutes and 512 MiB.
 */
#ifndef BENCH_SCALE_MOE_H
#define BENCH_SCALE_MOE_H

#include "ns3/collective-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-llm.h"
#include "ns3/tn-topology.h"
#include "ns3/training-helper.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ns3
{
namespace bench
{

/// The MoE rows' all-to-all: one MoE layer's dispatch, EP over every GPU of the system.
struct MoeCase
{
    std::string spec;    //!< the topology
    std::string model;   //!< the model preset
    uint32_t tokens{0};  //!< tokens of the micro-batch the row runs
    uint32_t seqLen{0};  //!< the model's own sequence (a micro-batch of 1)
    uint32_t hidden{0};  //!< h
    uint32_t topK{0};    //!< experts per token
    uint64_t bytes{0};   //!< per rank (tn_llm_ep_all_to_all_bytes)
    double boundUs{0};   //!< payload over the GPU's busier link (the NIC) at line rate
    double busiestUs{0}; //!< busiest link of the planned paths, payload at line rate
    std::string error;   //!< why the case could not be described
};

/**
 * The all-to-all of `model` with EP = all n GPUs of n/8 DGX H100 servers (TP, DP and PP 1),
 * its micro-batch `tokens` long (0: the model's sequence), on the rail-optimized fabric: a
 * leaf per rail and 8 spines, so that a change of rail has 8 equal-cost paths (`oversub`:
 * the leaves' uplinks carry their NICs' rate over it).
 */
inline MoeCase
DescribeMoe(uint32_t n, const std::string& model, uint32_t tokens, const std::string& oversub)
{
    MoeCase c;
    c.spec = "dgx-h100:servers=" + std::to_string(n / 8) + ",fabric=rail-optimized";
    if (oversub != "1")
    {
        c.spec += ",oversub=" + oversub;
    }
    c.model = model;
    TrainingHelper::LlmSettings settings;
    settings.model = model;
    settings.size[TN_LLM_DIM_EP] = n;
    settings.globalBatch = n;
    TrainingHelper::LlmDescription desc;
    if (!TrainingHelper::DescribeLlm(settings, "", &desc, &c.error))
    {
        return c;
    }
    c.seqLen = desc.model.seq_len;
    c.tokens = tokens > 0 ? tokens : c.seqLen;
    // fewer tokens, fewer bytes: the packet level's wall time follows the packets
    desc.model.seq_len = c.tokens;
    c.hidden = desc.model.hidden;
    c.topK = desc.model.top_k;
    c.bytes = tn_llm_ep_all_to_all_bytes(&desc.model, &desc.training, &desc.layout);
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(c.spec.c_str(), &topo, &err) != TN_OK)
    {
        c.error = err.message;
        return c;
    }
    // every rank sends 1/n of its bytes to each rank: its server's over NVLink (dim 0), the
    // others' over its NIC (dim 1, absent on one server), each link at its line rate
    const tn_dim_info* nvlink = tn_topology_dim(topo, 0);
    const double part = static_cast<double>(c.bytes) / n * 8 * 1e6;
    c.boundUs = part * (nvlink->size - 1) / static_cast<double>(nvlink->bandwidth_bps);
    if (tn_topology_dim_count(topo) > 1)
    {
        const double nic = part * (n - nvlink->size) /
                           static_cast<double>(tn_topology_dim(topo, 1)->bandwidth_bps);
        c.boundUs = std::max(c.boundUs, nic);
    }
    // the planned paths' busiest link, its bytes (the cost model's, no headers) at its own
    // rate: above the NIC bound where the paths pile more on an uplink than it carries in
    // that time (the result's link_busy_ns counts every hop at its path's slowest rate)
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.collective = TN_COLL_ALL_TO_ALL;
    req.algorithm = "direct";
    req.bytes = c.bytes;
    req.memory_limit = UINT64_MAX;
    tn_schedule* s = nullptr;
    tn_cost_result* cost = nullptr;
    if (tn_plan(topo, &req, &s, &err) == TN_OK &&
        tn_cost_estimate(s, topo, nullptr, nullptr, &cost, &err) == TN_OK)
    {
        for (uint32_t k = 0; k < cost->link_count; k++)
        {
            const double us = static_cast<double>(cost->link_bytes[k]) * 8 /
                              static_cast<double>(tn_topology_link(topo, k)->rate_bps) * 1e6;
            c.busiestUs = std::max(c.busiestUs, us);
        }
    }
    else
    {
        c.error = err.message;
    }
    tn_cost_result_destroy(cost);
    tn_schedule_destroy(s);
    tn_topology_destroy(topo);
    return c;
}

/**
 * The MoE case's all-to-all (algorithm direct, as the LLM programs run EP) at packet level,
 * routed as `routing` says ("planned" or "ecmp"), without a database.
 */
inline int
SimulateMoe(const MoeCase& c, const std::string& routing, std::string* line)
{
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(c.spec.c_str(), &topo, &err) != TN_OK)
    {
        *line = err.message;
        return 1;
    }
    RoceHelper roce;
    roce.SetMode(RoceHelper::PACKET);
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.SetRouting(routing);
    collectives.Install(topo, roce);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.collective = TN_COLL_ALL_TO_ALL;
    req.algorithm = "direct";
    req.bytes = c.bytes;
    std::string error;
    Ptr<Collective> coll = collectives.Create(req, {}, &error);
    int code = 1;
    if (coll)
    {
        collectives.Start(coll);
        Simulator::Run();
        const std::string mismatch = coll->Check();
        if (coll->IsComplete() && mismatch.empty())
        {
            const double us = coll->GetDuration().GetNanoSeconds() / 1e3;
            char b[200];
            std::snprintf(b,
                          sizeof(b),
                          "packet level %.3f us (%.3f x bound; cost model %.1f us), %llu "
                          "transfers",
                          us,
                          us / c.boundUs,
                          coll->GetEstimatedTime().GetNanoSeconds() / 1e3,
                          static_cast<unsigned long long>(coll->GetTransferCount()));
            *line = b;
            code = 0;
        }
        else
        {
            *line = "incomplete: " + mismatch;
        }
    }
    else
    {
        *line = error;
    }
    coll = nullptr;
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return code;
}

} // namespace bench
} // namespace ns3

#endif /* BENCH_SCALE_MOE_H */
