/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-scale's LLM rows (--llm-sizes, default 1024): one iteration of a generated transformer
 * training program (tn-llm.h) at flow level, beside the same program with the network off (Network
 * false: the generator and the runner alone, the baseline). 1,024 GPUs: GPT-3 175B, TP 8,
 * PP 8, DP 16, global batch 1,536, on 8-GPU servers (3,600 Gb/s NVSwitch) and 400 Gb/s
 * rails; goal 5 minutes and 4 GiB. 16,384 GPUs: a Llama-3 405B-like model (128 layers), TP 8,
 * PP 16, DP 128; goal 30 minutes and 16 GiB. Ranks in order tp, ep, pp, dp (dp outermost), so
 * that the replicas are translates: a "llm flow symmetric" row runs the first replica for all
 * (FlowNetwork::SymmetricPeriod), its iteration the flow row's to the ns; goal at 16,384 GPUs
 * one minute. --llm-flow=false skips the flow rows with every GPU simulated.
 */
#ifndef BENCH_SCALE_LLM_H
#define BENCH_SCALE_LLM_H

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/tn-llm.h"
#include "ns3/tn-topology.h"
#include "ns3/training-helper.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace ns3
{
namespace bench
{

/**
 * One iteration of a generated LLM program at flow level (network false: without the
 * network), without a database.
 */
inline int
SimulateLlm(const std::string& spec,
            const TrainingHelper::LlmSettings& settings,
            bool network,
            bool symmetric,
            std::string* line)
{
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        *line = err.message;
        return 1;
    }
    TrainingHelper::LlmDescription desc;
    if (!TrainingHelper::DescribeLlm(settings, "", &desc, line))
    {
        tn_topology_destroy(topo);
        return 1;
    }
    RoceHelper roce;
    roce.SetMode(symmetric ? RoceHelper::FLOW_SYMMETRIC : RoceHelper::FLOW);
    // the first data-parallel replica's NPUs stand for the others (dp outermost)
    roce.SetSymmetricPeriod(tn_topology_npu_count(topo) / settings.size[TN_LLM_DIM_DP]);
    if (std::string why = roce.Check(topo); !why.empty())
    {
        *line = why;
        tn_topology_destroy(topo);
        return 1;
    }
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.SetKeepCollectives(false);
    collectives.Install(topo, roce);
    NpuHelper npus;
    npus.Install(roce.GetFabric().npus);
    TrainingHelper training;
    training.SetJobAttribute("Network", BooleanValue(network));
    training.LoadLlm(desc.model, desc.gpu, desc.training, desc.layout);
    std::string error;
    Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &error);
    int code = 1;
    if (job)
    {
        job->Start();
        Simulator::Run();
        Time end;
        for (uint32_t r = 0; r < npus.GetEndpoints().size(); r++)
        {
            for (const auto& it : job->GetIterations(r))
            {
                end = std::max(end, it.end);
            }
        }
        if (job->IsComplete())
        {
            char b[200];
            std::snprintf(b,
                          sizeof(b),
                          "iteration %.1f ms, %llu collectives",
                          end.GetNanoSeconds() / 1e6,
                          static_cast<unsigned long long>(job->GetCollectiveCount()));
            *line = b;
            code = 0;
        }
        else
        {
            *line = "the iteration did not complete";
        }
    }
    else
    {
        *line = error;
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return code;
}

} // namespace bench
} // namespace ns3

#endif // BENCH_SCALE_LLM_H
