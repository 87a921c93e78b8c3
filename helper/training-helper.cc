/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-helper.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/npu-helper.h"
#include "ns3/stats-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace ns3
{

TrainingHelper::TrainingHelper()
{
    m_factory.SetTypeId(TrainingJob::GetTypeId());
}

TrainingHelper::~TrainingHelper()
{
    tn_workload_destroy(m_workload);
    DestroyTraces();
    tn_simai_destroy(m_simai);
}

void
TrainingHelper::DestroyTraces()
{
    for (tn_chakra_trace* t : m_traces)
    {
        if (!m_llmProgram && !m_simaiProgram)
        {
            tn_chakra_destroy(t);
        }
    }
    m_traces.clear();
    tn_llm_program_destroy(m_llmProgram);
    m_llmProgram = nullptr;
    tn_simai_program_destroy(m_simaiProgram);
    m_simaiProgram = nullptr;
}

void
TrainingHelper::LoadLlm(const tn_llm_model& model,
                        const tn_llm_gpu& gpu,
                        const tn_llm_training& training,
                        const tn_llm_layout& layout)
{
    m_llm = true;
    m_llmModel = model;
    m_llmGpu = gpu;
    m_llmTraining = training;
    m_llmLayout = layout;
}

std::string
TrainingHelper::FindLlmFile(const std::string& kind,
                            const std::string& name,
                            const std::string& baseDir,
                            std::string* error)
{
    std::vector<std::string> tried{name};
    if (name.find('/') == std::string::npos && !name.empty())
    {
        if (!baseDir.empty())
        {
            tried.push_back(baseDir + "/" + kind + "/" + name + ".toml");
        }
        tried.push_back("scenarios/" + kind + "/" + name + ".toml");
#ifdef TN_MODULE_DIR
        tried.push_back(std::string(TN_MODULE_DIR) + "/scenarios/" + kind + "/" + name + ".toml");
#endif
    }
    std::string where;
    for (const std::string& path : tried)
    {
        if (FILE* f = std::fopen(path.c_str(), "r"))
        {
            std::fclose(f);
            return path;
        }
        where += (where.empty() ? "" : ", ") + path;
    }
    *error = "'" + name + "' is no file and no preset (looked for " + where + ")";
    return "";
}

bool
TrainingHelper::DescribeLlm(const LlmSettings& settings,
                            const std::string& baseDir,
                            LlmDescription* out,
                            std::string* error)
{
    tn_error err;
    std::string where;
    const std::string modelPath = FindLlmFile("models", settings.model, baseDir, &where);
    if (modelPath.empty())
    {
        *error = "model: " + where;
        return false;
    }
    if (tn_llm_model_load(modelPath.c_str(), &out->model, &err) != TN_OK)
    {
        *error = std::string("model: ") + err.message;
        return false;
    }
    const std::string gpuPath = FindLlmFile("gpus", settings.gpu, baseDir, &where);
    if (gpuPath.empty())
    {
        *error = "gpu: " + where;
        return false;
    }
    if (tn_llm_gpu_load(gpuPath.c_str(), &out->gpu, &err) != TN_OK)
    {
        *error = std::string("gpu: ") + err.message;
        return false;
    }
    tn_llm_training_init(&out->training);
    tn_llm_layout_init(&out->layout);
    for (int d = 0; d < TN_LLM_DIMS; d++)
    {
        out->layout.size[d] = settings.size[d];
    }
    out->layout.vpp = settings.vpp;
    out->layout.sequence_parallel = settings.sequenceParallel;
    out->training.micro_batch = settings.microBatch;
    out->training.global_batch = settings.globalBatch;
    out->training.distributed_optimizer = settings.distributedOptimizer;
    if (tn_llm_parse_schedule(settings.schedule.c_str(), &out->layout.schedule, &err) ||
        tn_llm_parse_recompute(settings.recompute.c_str(), &out->training.recompute, &err) ||
        tn_llm_parse_order(settings.order.c_str(), out->layout.order, &err) ||
        tn_llm_check(&out->model, &out->gpu, &out->training, &out->layout, 0, &err))
    {
        *error = err.message;
        return false;
    }
    return true;
}

void
TrainingHelper::SetRankPlacement(const std::vector<uint32_t>& npuOfRank)
{
    m_npuOfRank = npuOfRank;
}

void
TrainingHelper::SetNpus(const std::vector<uint32_t>& npus)
{
    m_npus = npus;
}

void
TrainingHelper::SetCommGroups(
    const std::vector<std::pair<std::string, std::vector<uint32_t>>>& groups)
{
    m_commGroups = groups;
}

bool
TrainingHelper::JobEndpoints(const NpuHelper& npus,
                             std::vector<Ptr<NpuEndpoint>>* out,
                             std::string* error) const
{
    const std::vector<Ptr<NpuEndpoint>>& all = npus.GetEndpoints();
    if (m_npus.empty())
    {
        *out = all;
        return true;
    }
    std::vector<bool> taken(all.size(), false);
    for (uint32_t npu : m_npus)
    {
        if (npu >= all.size() || taken[npu])
        {
            *error = "npus: NPU " + std::to_string(npu) +
                     (npu >= all.size() ? " is not an NPU of the system" : " is listed twice");
            return false;
        }
        taken[npu] = true;
        out->push_back(all[npu]);
    }
    return true;
}

bool
TrainingHelper::InstallLlm(Ptr<TrainingJob> job,
                           CollectiveHelper& collectives,
                           const std::vector<Ptr<NpuEndpoint>>& all,
                           std::string* error)
{
    tn_error err;
    BooleanValue network;
    if (tn_llm_check(&m_llmModel, &m_llmGpu, &m_llmTraining, &m_llmLayout, all.size(), &err) !=
        TN_OK)
    {
        *error = err.message;
        return false;
    }
    if (m_npuOfRank.empty())
    {
        for (uint32_t r = 0; r < all.size(); r++)
        {
            m_npuOfRank.push_back(r);
        }
    }
    std::vector<bool> taken(all.size(), false);
    if (m_npuOfRank.size() != all.size())
    {
        *error = "placement: " + std::to_string(m_npuOfRank.size()) + " NPUs listed for " +
                 std::to_string(all.size()) + " ranks";
        return false;
    }
    std::vector<Ptr<NpuEndpoint>> endpoints;
    for (uint32_t npu : m_npuOfRank)
    {
        if (npu >= all.size() || taken[npu])
        {
            *error = "placement: NPU " + std::to_string(npu) +
                     (npu >= all.size() ? " is not an NPU of the system" : " is listed twice");
            return false;
        }
        taken[npu] = true;
        endpoints.push_back(all[npu]);
    }
    {
        // the collectives name the NPU of each rank: a placed rank's, not the rank itself
        // (identity NPUs ran rank 0's collective on another rank's endpoint, which never
        // added it)
        std::vector<uint32_t> npuOfRank;
        for (uint32_t i : m_npuOfRank)
        {
            npuOfRank.push_back(m_npus.empty() ? i : m_npus[i]);
        }
        job->SetNpuRanks(npuOfRank);
    }
    // on a symmetric flow network one data-parallel replica runs for all: generate it alone
    const uint32_t period = collectives.GetService()->GetSymmetricPeriod();
    const bool symmetric =
        period > 0 && job->GetAttributeFailSafe("Network", network) && network.Get();
    if (symmetric)
    {
        *error = CheckLlmSymmetric(period, all.size());
        if (!error->empty())
        {
            return false;
        }
    }
    DestroyTraces();
    if (tn_llm_program_create_some(&m_llmModel,
                                   &m_llmGpu,
                                   &m_llmTraining,
                                   &m_llmLayout,
                                   symmetric ? period : 0,
                                   &m_llmProgram,
                                   &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    const double flops = tn_llm_gpu_flops(&m_llmGpu, m_llmModel.bytes_per_element);
    const double bytes = tn_llm_gpu_bytes_per_second(&m_llmGpu);
    for (const Ptr<NpuEndpoint>& e : endpoints)
    {
        e->SetAttribute("ClockRate", UintegerValue(uint64_t(flops)));
        e->SetAttribute("MemoryBandwidth", DataRateValue(DataRate(uint64_t(bytes * 8))));
        // The endpoint's interference model charges a running collective its NIC's line rate
        // both ways (x BaselineMemoryPerNetworkByte) of memory: at NVLink rates that is more
        // than an H100's HBM, which floored every overlapped kernel at 1 % of its bandwidth
        // (a GPT-3 backward step 10x slower). Generated programs run without it until it
        // counts the bytes actually moved.
        e->SetAttribute("BaselineMemoryPerNetworkByte", DoubleValue(0.0));
        e->SetAttribute("BaselineComputeShare", DoubleValue(0.0));
    }
    job->SetAttribute("OpsPerCycle", UintegerValue(1));
    tn_chakra_trace* const* traces = tn_llm_program_traces(m_llmProgram);
    m_traces.assign(traces, traces + tn_llm_program_ranks(m_llmProgram));
    return job->SetupChakra(m_traces, collectives.GetService(), endpoints, error);
}

std::string
TrainingHelper::CheckLlmSymmetric(uint32_t period, uint32_t npus) const
{
    // the replicas are translates when data parallelism is outermost and rank r is on NPU r
    // (test/core/test-llm.c, "replicas"): then the first replica's NPUs stand for the others
    const uint32_t replica = npus / m_llmLayout.size[TN_LLM_DIM_DP];
    const std::string why = "mode flow-symmetric runs one data-parallel replica for all: ";
    if (m_llmLayout.order[TN_LLM_DIMS - 1] != TN_LLM_DIM_DP)
    {
        return "order: " + why + "dp must be the outermost (order = \"tp,ep,pp,dp\")";
    }
    for (uint32_t r = 0; r < m_npuOfRank.size(); r++)
    {
        if (m_npuOfRank[r] != r)
        {
            return "placement: " + why + "rank " + std::to_string(r) + " must be on NPU " +
                   std::to_string(r) + " (no placement list)";
        }
    }
    if (period != replica)
    {
        return "mode: " + why + "FlowNetwork::SymmetricPeriod is " + std::to_string(period) +
               ", a replica has " + std::to_string(replica) +
               " NPUs (RoceHelper::SetSymmetricPeriod)";
    }
    return "";
}

std::string
TrainingHelper::ExtraTraces(const std::string& prefix, uint32_t npus)
{
    // a trace set for more ranks than the NPUs would run only its first ranks: their
    // collectives would wait for ranks that are not there, or the job is not the one traced
    const std::string extra = prefix + "." + std::to_string(npus) + ".et";
    if (!std::ifstream(extra).good())
    {
        return "";
    }
    return extra + ": the trace set has more ranks than the " + std::to_string(npus) +
           " NPUs of the topology (one trace file per NPU)";
}

bool
TrainingHelper::LoadSimai(const std::string& path, std::string* error)
{
    tn_error err;
    tn_simai_workload* wl = nullptr;
    if (tn_simai_load_file(path.c_str(), &wl, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    tn_simai_destroy(m_simai);
    m_simai = wl;
    return true;
}

bool
TrainingHelper::InstallSimai(Ptr<TrainingJob> job,
                             CollectiveHelper& collectives,
                             const std::vector<Ptr<NpuEndpoint>>& all,
                             std::string* error)
{
    DestroyTraces();
    tn_error err;
    if (tn_simai_program_create(m_simai, uint32_t(all.size()), &m_simaiProgram, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    // SimAI's Tick is 1 ns: a kernel's num_ops are cycles at 1 GHz
    for (const Ptr<NpuEndpoint>& e : all)
    {
        e->SetAttribute("ClockRate", UintegerValue(1000000000));
    }
    job->SetAttribute("OpsPerCycle", UintegerValue(1));
    tn_chakra_trace* const* traces = tn_simai_program_traces(m_simaiProgram);
    m_traces.assign(traces, traces + tn_simai_program_ranks(m_simaiProgram));
    return job->SetupChakra(m_traces, collectives.GetService(), all, error);
}

bool
TrainingHelper::LoadChakra(const std::string& prefix, std::string* error)
{
    if (!tn_chakra_supported())
    {
        *error = prefix + ": Chakra traces need protobuf-c, and training-net was built without it "
                          "(apt-get install libprotobuf-c-dev, then configure again)";
        return false;
    }
    m_chakraPrefix = prefix;
    return true;
}

void
TrainingHelper::SetJobAttribute(std::string name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
TrainingHelper::SetAlgorithm(tn_collective collective, const std::string& algorithm)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(collective >= TN_COLL_COUNT, "TrainingHelper::SetAlgorithm: no collective");
    m_algorithm[collective] = algorithm;
}

void
TrainingHelper::SetAlgorithms(const std::string& algorithm)
{
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        if (c != TN_COLL_ALL_TO_ALL)
        {
            m_algorithm[c] = algorithm;
        }
    }
}

void
TrainingHelper::SetParallelismAlgorithm(tn_chakra_serves serves, const std::string& algorithm)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(serves == TN_SERVES_NONE || serves >= TN_SERVES_COUNT,
                    "TrainingHelper::SetParallelismAlgorithm: no parallelism");
    m_servesAlgorithm[serves] = algorithm;
}

bool
TrainingHelper::Load(const std::string& path, std::string* error)
{
    tn_error err;
    tn_workload* wl = nullptr;
    if (tn_workload_load_file(path.c_str(), &wl, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    tn_workload_destroy(m_workload);
    m_workload = wl;
    return true;
}

Time
TrainingHelper::GetCostBound(const tn_topology* topo,
                             const NpuHelper& npus,
                             uint32_t iterations) const
{
    uint64_t clock = UINT64_MAX;
    std::vector<Ptr<NpuEndpoint>> endpoints;
    std::string bad;
    if (!JobEndpoints(npus, &endpoints, &bad))
    {
        endpoints = npus.GetEndpoints(); // Install refused the job: any bound will do
    }
    for (const Ptr<NpuEndpoint>& e : endpoints)
    {
        clock = std::min(clock, e->GetClockRate());
    }
    double cycles = 0;
    uint64_t bytes = 0;
    double micros = 0;
    // Chakra: the largest rank's compute (num_ops as cycles at one op per cycle, else its
    // duration; memory nodes not counted) and communication bytes
    for (const tn_chakra_trace* t : m_traces)
    {
        if (!t)
        {
            continue; // absent: a symmetric run's translate of a trace here
        }
        double c = 0;
        double us = 0;
        uint64_t b = 0;
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            c += n->kind == TN_CHAKRA_COMPUTE && n->has_num_ops ? double(n->num_ops) : 0;
            us += n->kind == TN_CHAKRA_COMPUTE && !n->has_num_ops ? double(n->duration_micros) : 0;
            b = std::min<uint64_t>(b + n->comm_bytes, UINT64_MAX / 4);
        }
        cycles = std::max(cycles, c);
        micros = std::max(micros, us);
        bytes = std::max(bytes, b);
    }
    if (!m_workload && m_traces.empty())
    {
        return Seconds(0);
    }
    for (uint32_t l = 0; m_workload && l < tn_workload_layer_count(m_workload); ++l)
    {
        const tn_workload_layer* layer = tn_workload_layer_at(m_workload, l);
        for (int p = 0; p < TN_PASS_COUNT; ++p)
        {
            cycles += double(layer->pass[p].compute_cycles) * (p == TN_PASS_FWD ? 2 : 1);
            bytes = std::min<uint64_t>(bytes + layer->pass[p].comm_bytes, UINT64_MAX / 4);
        }
        cycles += double(layer->update_delay);
    }
    const double computeNs = clock == UINT64_MAX ? 0 : cycles * 1e9 / double(clock);
    const double ns =
        double(iterations) * (computeNs + micros * 1e3 +
                              double(StatsHelper::TransferBound(topo, bytes).GetNanoSeconds()));
    return NanoSeconds(int64_t(std::min(ns, 9e18)));
}

Ptr<TrainingJob>
TrainingHelper::Install(CollectiveHelper& collectives,
                        const NpuHelper& npus,
                        uint32_t modelGroup,
                        std::string* error)
{
    if (!m_workload && m_chakraPrefix.empty() && !m_llm && !m_simai)
    {
        *error = "no workload (TrainingHelper::Load, LoadChakra, LoadLlm or LoadSimai)";
        return nullptr;
    }
    std::vector<Ptr<NpuEndpoint>> endpoints;
    if (!JobEndpoints(npus, &endpoints, error))
    {
        return nullptr;
    }
    Ptr<TrainingJob> job = m_factory.Create<TrainingJob>();
    job->SetNpuRanks(m_npus);
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        if (!m_algorithm[c].empty())
        {
            job->SetAlgorithm(static_cast<tn_collective>(c), m_algorithm[c]);
        }
    }
    for (int serves = TN_SERVES_NONE + 1; serves < TN_SERVES_COUNT; serves++)
    {
        if (!m_servesAlgorithm[serves].empty())
        {
            job->SetParallelismAlgorithm(tn_chakra_serves(serves), m_servesAlgorithm[serves]);
        }
    }
    if (m_llm)
    {
        return InstallLlm(job, collectives, endpoints, error) ? job : nullptr;
    }
    if (m_simai)
    {
        return InstallSimai(job, collectives, endpoints, error) ? job : nullptr;
    }
    if (!m_chakraPrefix.empty())
    {
        DestroyTraces();
        // the comm-group table as the reader takes it: views of m_commGroups
        std::vector<const char*> names;
        std::vector<const uint32_t*> ranks;
        std::vector<uint32_t> sizes;
        for (const auto& [name, members] : m_commGroups)
        {
            names.push_back(name.c_str());
            ranks.push_back(members.data());
            sizes.push_back(uint32_t(members.size()));
        }
        const tn_chakra_groups groups{uint32_t(names.size()),
                                      names.data(),
                                      ranks.data(),
                                      sizes.data()};
        for (uint32_t r = 0; r < endpoints.size(); r++)
        {
            const std::string path = m_chakraPrefix + "." + std::to_string(r) + ".et";
            tn_error err;
            tn_chakra_trace* t = nullptr;
            if (tn_chakra_load_file_groups(path.c_str(),
                                           m_commGroups.empty() ? nullptr : &groups,
                                           &t,
                                           &err) != TN_OK)
            {
                *error = err.message;
                return nullptr;
            }
            m_traces.push_back(t);
        }
        *error = ExtraTraces(m_chakraPrefix, endpoints.size());
        if (!error->empty())
        {
            DestroyTraces();
            return nullptr;
        }
        if (!job->SetupChakra(m_traces, collectives.GetService(), endpoints, error))
        {
            return nullptr;
        }
        return job;
    }
    if (!job->Setup(m_workload, collectives.GetService(), endpoints, modelGroup, error))
    {
        return nullptr;
    }
    return job;
}

} // namespace ns3
