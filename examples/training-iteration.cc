/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A training iteration of an ASTRA-sim workload with baseline and ACE NPU endpoints.
 *
 *   training-iteration --workload=test/data/workloads/Resnet50_DataParallel.txt
 *                      --topology=switch:16,rate=100Gbps --memory=200Gbps [--algorithm=auto]
 *
 * One line per engine: iteration time, compute, exposed communication (the time the NPU
 * waited for collectives), and the memory bytes the collectives moved per network byte.
 *
 * A transformer trained with tensor, pipeline, data and expert parallelism instead of a
 * workload file (tn-llm.h, doc/llm-training.rst):
 *
 *   training-iteration --model=gpt3-175b --gpu=h100 --tp=8 --pp=8 --dp=16 --global_batch=1536
 *                      --topology=hier:switch8@2880Gbps+switch128@400Gbps --mode=flow
 *
 * prints, per pipeline stage (its first rank), the iteration split into compute, pipeline
 * bubble and exposed TP, PP, DP and EP communication.
 * A SimAI / AICB workload file as SimAI reads it (tn-simai.h, doc/simai.rst):
 *
 *   training-iteration --simai=test/data/simai/megatron-gpt-small.txt --topology=switch:4
 *
 * Each engine's run is appended to the results database (--db, default results.db), with
 * its fabric, collectives and iterations.
 */
#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/program-options.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/string.h"
#include "ns3/tn-db.h"
#include "ns3/tn-huge-pages.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-tune.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// The LLM options: a model and its training and layout (the scenario's [training] keys).
struct LlmOptions
{
    std::string model; //!< a preset name or a file ("" : a workload file runs)
    std::string gpu = "h100";
    uint32_t size[TN_LLM_DIMS] = {1, 1, 1, 1};
    uint32_t vpp = 1;
    bool sequenceParallel = false;
    uint32_t microBatch = 1;
    uint64_t globalBatch = 0;
    std::string schedule = "1f1b";
    std::string recompute = "none";
    bool distributedOptimizer = false;
    std::string order = "tp,ep,dp,pp";
    TrainingHelper::LlmDescription desc;

    void Add(ProgramOptions& options)
    {
        options.AddString("model",
                          "an LLM to train instead of --workload: a preset of scenarios/models "
                          "(gpt3-175b, llama3-8b, ...) or a model file",
                          &model);
        options.AddString("gpu", "the GPU: a preset of scenarios/gpus or a file", &gpu);
        for (int d = 0; d < TN_LLM_DIMS; d++)
        {
            options.AddCount(tn_llm_dim_name(d),
                             std::string(tn_llm_dim_name(d)) + " parallel size",
                             1u,
                             UINT32_MAX - 1,
                             &size[d]);
        }
        options.AddCount("vpp", "model chunks per pipeline stage", 1u, UINT32_MAX - 1, &vpp);
        options.AddFlag("sequence_parallel", "sequence parallelism", &sequenceParallel);
        options.AddCount("micro_batch", "micro-batch size", 1u, UINT32_MAX - 1, &microBatch);
        options.AddCount("global_batch",
                         "global batch (0: pp x vpp micro-batches per replica)",
                         uint64_t(0),
                         UINT64_MAX - 1,
                         &globalBatch);
        options.AddString("schedule", "1f1b (interleaved with vpp > 1) or gpipe", &schedule);
        options.AddString("recompute",
                          "activation recomputation: none, selective, full",
                          &recompute);
        options.AddFlag("distributed_optimizer",
                        "reduce-scatter the gradients and all-gather the parameters",
                        &distributedOptimizer);
        options.AddString("order", "rank order, innermost first", &order);
    }

    /// Read the files and parse the names; prints the error. \return true when valid
    bool Resolve()
    {
        TrainingHelper::LlmSettings settings;
        settings.model = model;
        settings.gpu = gpu;
        for (int d = 0; d < TN_LLM_DIMS; d++)
        {
            settings.size[d] = size[d];
        }
        settings.vpp = vpp;
        settings.sequenceParallel = sequenceParallel;
        settings.microBatch = microBatch;
        settings.globalBatch = globalBatch ? globalBatch
                                           : uint64_t(microBatch) * size[TN_LLM_DIM_DP] *
                                                 size[TN_LLM_DIM_EP] * size[TN_LLM_DIM_PP] * vpp;
        settings.schedule = schedule;
        settings.recompute = recompute;
        settings.distributedOptimizer = distributedOptimizer;
        settings.order = order;
        std::string error;
        if (!TrainingHelper::DescribeLlm(settings, "", &desc, &error))
        {
            std::fprintf(stderr, "training-iteration: --%s\n", error.c_str());
            return false;
        }
        return true;
    }

    /// The LLM keys of the run's params_json ("" without --model)
    std::string Params() const
    {
        if (model.empty())
        {
            return "";
        }
        std::ostringstream json;
        json << ",\"gpu\":\"" << gpu << "\"";
        for (int d = 0; d < TN_LLM_DIMS; d++)
        {
            json << ",\"" << tn_llm_dim_name(d) << "\":" << size[d];
        }
        json << ",\"vpp\":" << vpp
             << ",\"sequence_parallel\":" << (sequenceParallel ? "true" : "false")
             << ",\"micro_batch\":" << microBatch
             << ",\"global_batch\":" << desc.training.global_batch << ",\"schedule\":\""
             << tn_llm_schedule_name(&desc.layout) << "\",\"recompute\":\"" << recompute
             << "\",\"distributed_optimizer\":" << (distributedOptimizer ? "true" : "false")
             << ",\"order\":\"" << order << "\"";
        return json.str();
    }
};

/// Per pipeline stage, its first rank's iteration split by what it waited for.
void
PrintStages(const TrainingHelper& training, const TrainingJob& job)
{
    const tn_llm_layout* layout = tn_llm_program_layout(training.GetLlmProgram());
    std::printf("%-6s %6s %13s %13s %13s %11s %11s %11s %11s\n",
                "stage",
                "rank",
                "iteration us",
                "compute us",
                "bubble us",
                "TP us",
                "PP us",
                "DP us",
                "EP us");
    for (uint32_t p = 0; p < layout->size[TN_LLM_DIM_PP]; p++)
    {
        const uint32_t coord[TN_LLM_DIMS] = {0, 0, 0, p};
        const uint32_t rank = tn_llm_rank_of(layout, coord);
        for (const TrainingIterationRecord& it : job.GetIterations(rank))
        {
            std::printf("%-6u %6u %13.1f %13.1f %13.1f %11.1f %11.1f %11.1f %11.1f\n",
                        p,
                        rank,
                        (it.end - it.start).GetNanoSeconds() / 1e3,
                        it.compute.GetNanoSeconds() / 1e3,
                        it.bubble.GetNanoSeconds() / 1e3,
                        it.exposedBy[TN_SERVES_TP].GetNanoSeconds() / 1e3,
                        it.exposedBy[TN_SERVES_PP].GetNanoSeconds() / 1e3,
                        it.exposedBy[TN_SERVES_DP].GetNanoSeconds() / 1e3,
                        it.exposedBy[TN_SERVES_EP].GetNanoSeconds() / 1e3);
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    tn_huge_pages_prefer(argv); // a large run's memory in huge pages: may start again
    std::string workload = "test/data/workloads/Resnet50_DataParallel.txt";
    std::string spec = "switch:16,rate=100Gbps,latency=1us";
    std::vector<std::string> engineNames = {"baseline", "ace"};
    uint64_t memoryBps = 7200000000000ull; // 900 GB/s
    uint32_t iterations = 1;
    bool overlap = true;
    uint32_t modelGroup = 0;
    std::string dbPath = "results.db";
    ProgramOptions options("training-iteration", __FILE__);
    options.AddString("db", "results database (SQLite) to append the runs to", &dbPath);
    options.AddString("workload", "ASTRA-sim 1.0 workload file", &workload);
    options.AddString("topology", "topology spec", &spec);
    options.AddList("engines", "NPU engines: baseline, ace", &engineNames);
    options.AddRate("memory", "NPU memory bandwidth (7200Gbps = 900 GB/s)", &memoryBps);
    options.AddCount("iterations", "iterations", 1u, UINT32_MAX - 1, &iterations);
    options.AddFlag("overlap", "weight-gradient collectives overlap the backward pass", &overlap);
    options.AddCount("modelGroup",
                     "model-parallel group size when the workload gives none (0, the default: "
                     "the size of the topology's first dimension, as ASTRA-sim does)",
                     0u,
                     UINT32_MAX - 1,
                     &modelGroup);
    std::string algorithm;
    options.AddString("algorithm",
                      "the jobs' all-reduce algorithm: a registry name (tn-plan --list) or auto "
                      "(the best by the cost model, per operation, group and size; the default, "
                      "but for an LLM or SimAI program's data-parallel groups: --dpAlgorithm)",
                      &algorithm);
    std::string dpAlgorithm;
    options.AddString("dpAlgorithm",
                      "an LLM or SimAI program's data-parallel algorithm (default ring, as "
                      "NCCL runs it, unless --algorithm is given)",
                      &dpAlgorithm);
    std::string mode = "packet";
    options.AddMode(&mode);
    LlmOptions llm;
    llm.Add(options);
    std::string simai;
    options.AddString("simai",
                      "a SimAI / AICB workload file to run instead of --workload (its times in "
                      "ns, its all_gpus the topology's NPUs)",
                      &simai);
    // from here to the exit: a signal aborts the run it comes before, or ends the program
    // after the last run is recorded, never kills it midway
    options.WatchSignals();
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    tn_error err;
    if (!simai.empty() && !llm.model.empty())
    {
        std::fprintf(stderr, "training-iteration: --simai: give --simai or --model, not both\n");
        return 2;
    }
    if (!llm.model.empty() && !llm.Resolve())
    {
        return 2;
    }
    if ((!llm.model.empty() || !simai.empty()) &&
        engineNames == std::vector<std::string>{"baseline", "ace"})
    {
        engineNames = {"baseline"}; // an LLM study compares layouts, not engines, by default
    }
    for (const auto& [option, value] :
         {std::pair<const char*, std::string*>{"algorithm", &algorithm},
          std::pair<const char*, std::string*>{"dpAlgorithm", &dpAlgorithm}})
    {
        if (!value->empty() && tn_tune_algorithm_check(value->c_str(), &err) != TN_OK)
        {
            std::fprintf(stderr, "training-iteration: --%s: %s\n", option, err.message);
            return 2;
        }
    }
    if (memoryBps < RoceNetDevice::MIN_DATA_RATE_BPS)
    {
        std::fprintf(stderr,
                     "training-iteration: --memory %llubps is below the lowest rate a fabric "
                     "takes (%llubps, 1Gbps)\n",
                     static_cast<unsigned long long>(memoryBps),
                     static_cast<unsigned long long>(RoceNetDevice::MIN_DATA_RATE_BPS));
        return 2;
    }
    const std::string memory = std::to_string(memoryBps) + "bps";
    {
        // the other endpoint attributes (--ns3::NpuEndpoint::...) before anything runs
        NpuHelper npus;
        npus.SetEndpointAttribute("MemoryBandwidth", DataRateValue(DataRate(memoryBps)));
        const std::string npuError = npus.Check();
        if (!npuError.empty())
        {
            std::fprintf(stderr, "training-iteration: %s\n", npuError.c_str());
            return 2;
        }
    }
    for (const std::string& name : engineNames)
    {
        if (name != "baseline" && name != "ace")
        {
            std::fprintf(stderr,
                         "training-iteration: --engines: '%s' is not an NPU engine "
                         "(baseline, ace)\n",
                         name.c_str());
            return 2;
        }
    }

    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "training-iteration: --topology: %s\n", err.message);
        return 2;
    }
    if (modelGroup == 0 && tn_topology_dim_count(topo) > 0)
    {
        modelGroup = tn_topology_dim(topo, 0)->size;
    }
    const std::string fabricError = RoceHelper().Check(topo);
    if (!fabricError.empty())
    {
        std::fprintf(stderr, "training-iteration: %s\n", fabricError.c_str());
        tn_topology_destroy(topo);
        return 2;
    }
    tn_db* db = nullptr;
    if (tn_db_open(dbPath.c_str(), &db, &err) != TN_OK)
    {
        std::fprintf(stderr, "training-iteration: --db: %s\n", err.message);
        tn_topology_destroy(topo);
        return 2;
    }
    bool headed = false; // the table header comes once a job runs, never after an error
    for (const std::string& engine : engineNames)
    {
        RoceHelper roce;
        roce.SetMode(mode);
        roce.Install(topo);
        // ECN marks, PINT samples: the same draws in every run and on every rank
        roce.AssignStreams(0);
        CollectiveHelper collectives;
        collectives.SetKeepCollectives(false); // iterations hold only the collectives in flight
        collectives.Install(topo, roce);
        NpuHelper npus;
        npus.SetEndpointAttribute("Engine", StringValue(engine));
        npus.SetEndpointAttribute("MemoryBandwidth", DataRateValue(DataRate(memoryBps)));
        npus.Install(roce.GetFabric().npus);
        TrainingHelper training;
        training.SetJobAttribute("Iterations", UintegerValue(iterations));
        training.SetJobAttribute("Overlap", BooleanValue(overlap));
        if (!algorithm.empty())
        {
            training.SetAlgorithm(TN_COLL_ALL_REDUCE, algorithm);
        }
        if (!dpAlgorithm.empty())
        {
            training.SetParallelismAlgorithm(TN_SERVES_DP, dpAlgorithm);
        }
        std::string error;
        Ptr<TrainingJob> job;
        if (!llm.model.empty())
        {
            training.LoadLlm(llm.desc.model, llm.desc.gpu, llm.desc.training, llm.desc.layout);
            job = training.Install(collectives, npus, 0, &error);
        }
        else if (!simai.empty())
        {
            if (training.LoadSimai(simai, &error))
            {
                job = training.Install(collectives, npus, 0, &error);
            }
        }
        else if (training.Load(workload, &error))
        {
            job = training.Install(collectives, npus, modelGroup, &error);
        }
        if (!job)
        {
            std::fflush(stdout);
            std::fprintf(stderr, "training-iteration: %s\n", error.c_str());
            tn_db_close(db);
            Simulator::Destroy();
            tn_topology_destroy(topo);
            return 1;
        }
        const std::string what =
            !llm.model.empty() ? llm.model : (!simai.empty() ? simai : workload);
        std::string params =
            "{\"workload\":\"" + what + "\",\"topology\":\"" + spec + "\",\"engine\":\"" + engine +
            "\",\"memory\":\"" + memory + "\",\"overlap\":" + (overlap ? "true" : "false") +
            ",\"algorithm\":\"" + job->GetParallelismAlgorithm(TN_SERVES_NONE, TN_COLL_ALL_REDUCE) +
            "\",\"dp_algorithm\":\"" +
            job->GetParallelismAlgorithm(TN_SERVES_DP, TN_COLL_ALL_REDUCE) + "\"" + llm.Params() +
            "}";
        StatsHelper stats; // the run, the fabric, its collectives and the iterations
        Ptr<StatsRecorder> recorder =
            stats.Install(db, "training-iteration", params, topo, roce, &error);
        if (!recorder)
        {
            std::fflush(stdout);
            std::fprintf(stderr, "training-iteration: --db: %s\n", error.c_str());
            return 1;
        }
        if (!headed)
        {
            std::printf("%s on %s, %s %s, %s\n",
                        what.c_str(),
                        spec.c_str(),
                        llm.model.empty() ? "memory" : "gpu",
                        llm.model.empty() ? memory.c_str() : llm.gpu.c_str(),
                        overlap ? "overlap" : "no overlap");
            std::printf("%-9s %14s %14s %14s %18s\n",
                        "engine",
                        "iteration (us)",
                        "compute (us)",
                        "exposed (us)",
                        "memory B/net B");
            headed = true;
        }
        stats.AddTrainingJob(job);
        stats.AddLlmPlacement(training, npus);
        stats.LimitSimulatedTime(training.GetCostBound(topo, npus, iterations),
                                 "the workload's compute and collective bytes");
        job->Start();
        Simulator::Run();
        // the job's end, its last iteration on any NPU (the simulator's clock may have gone
        // on to the next sample tick, which finds the work done)
        uint64_t endNs = 0;
        for (uint32_t r = 0; r < npus.GetEndpoints().size(); r++)
        {
            for (const auto& it : job->GetIterations(r))
            {
                endNs = std::max<uint64_t>(endNs, it.end.GetNanoSeconds());
            }
        }
        const std::string recorded = stats.Finish(
            job->IsComplete() ? "ok" : "error",
            job->IsComplete() ? endNs : 0,
            job->GetError().empty() ? "the training job did not complete"
                                    : "the training job did not complete: " + job->GetError());
        options.Recorded(recorder->GetRunId(), recorded);
        // the rows of a recorded run: a signal that comes while they are printed ends the
        // program at ExitStatus and leaves the run as it is
        const auto& log = job->GetIterations(0);
        for (const auto& it : log)
        {
            Ptr<NpuEndpoint> e = npus.GetEndpoint(0);
            std::printf("%-9s %14.1f %14.1f %14.1f %18.2f\n",
                        engine.c_str(),
                        (it.end - it.start).GetMicroSeconds() * 1.0,
                        it.compute.GetNanoSeconds() / 1e3,
                        it.exposed.GetNanoSeconds() / 1e3,
                        e->GetNetworkBytesSent()
                            ? double(e->GetMemoryBytes()) / e->GetNetworkBytesSent()
                            : 0.0);
        }
        if (training.GetLlmProgram())
        {
            PrintStages(training, *job);
        }
        Simulator::Destroy();
        if (recorded == "ok" && job->IsComplete())
        {
            continue;
        }
        // one error line, the last thing printed (no later engine runs): the interruption,
        // else why the recorder stopped the run (a stall, a deadlock, the time limit), else
        // the database's failure, else the job's own error, else what was recorded
        const std::string& limit = recorder->GetStopError();
        const std::string line = recorded == "aborted" ? "interrupted; run recorded as aborted"
                                 : !limit.empty()      ? limit
                                 : !recorder->GetError().empty() ? "--db: " + recorder->GetError()
                                 : !job->GetError().empty()      ? job->GetError()
                                 : !recorder->GetRunError().empty()
                                     ? recorder->GetRunError()
                                     : "the run was recorded as " + recorded;
        std::fflush(stdout);
        std::fprintf(stderr, "training-iteration: %s\n", line.c_str());
        tn_db_close(db);
        tn_topology_destroy(topo);
        return recorded == "aborted" ? tn_signal_exit_status(recorder->GetSignal()) : 1;
    }
    tn_db_close(db);
    tn_topology_destroy(topo);
    return options.ExitStatus(0);
}
