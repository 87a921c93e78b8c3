/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-runner.h"

#include "ns3/attribute-settings.h"
#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/config.h"
#include "ns3/distributed-helper.h"
#include "ns3/log.h"
#include "ns3/npu-helper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-event-buckets.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/string.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sqlite3.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioRunner");

namespace
{

/**
 * Reports progress from inside the simulation. It ticks in simulated time but reports
 * only every `period` wall seconds. It must not keep the simulation alive: the stats
 * recorder's sampling tick keeps going while any other event is pending, so two tickers
 * would keep each other alive forever. This one stops when its last window executed no
 * event but the tickers' own: common at flow level (flows in flight, none ending; a 64 MiB
 * run's view stopped at 100 us of its 9 ms), where it also looks at the wall clock between
 * events (RoceEventBuckets::SetBetweenEvents).
 */
class ProgressTicker
{
  public:
    typedef std::function<double()> FractionFn;
    typedef std::function<int64_t()> PausedFn;

    ProgressTicker(ScenarioRunner::ProgressCallback cb,
                   double period,
                   Time tick,
                   uint64_t statsTicksPerTick,
                   FractionFn fraction,
                   PausedFn paused)
        : m_cb(std::move(cb)),
          m_period(period),
          m_tick(tick),
          m_idleEvents(statsTicksPerTick + 2),
          m_fraction(std::move(fraction)),
          m_paused(std::move(paused)),
          m_start(std::chrono::steady_clock::now())
    {
        m_lastReport = m_start;
    }

    ~ProgressTicker()
    {
        // the hook names this ticker (its event is the simulator's, which may be gone)
        RoceEventBuckets::SetBetweenEvents(nullptr, 0);
    }

    void Start()
    {
        m_event = Simulator::Schedule(m_tick, &ProgressTicker::Tick, this);
        // one flow-level event may take seconds (a recomputation over a million flows)
        RoceEventBuckets::SetBetweenEvents([this]() { ReportIfDue(); }, WALL_CHECK_EVENTS);
    }

    void Report(bool last)
    {
        auto now = std::chrono::steady_clock::now();
        ScenarioProgress p;
        p.simulatedSeconds = Simulator::Now().GetSeconds();
        p.wallSeconds = std::chrono::duration<double>(now - m_start).count();
        p.eventsPerSecond =
            p.wallSeconds > 0 ? double(Simulator::GetEventCount() - m_events0) / p.wallSeconds : 0;
        p.fractionDone = last ? 1.0 : m_fraction();
        p.remainingSeconds =
            p.fractionDone > 0 ? p.wallSeconds * (1 - p.fractionDone) / p.fractionDone : -1;
        p.pausedPorts = m_paused ? m_paused() : -1;
        p.last = last;
        m_lastReport = now;
        m_cb(p);
    }

    void Cancel()
    {
        m_event.Cancel();
        RoceEventBuckets::SetBetweenEvents(nullptr, 0);
    }

  private:
    static constexpr uint32_t WALL_CHECK_EVENTS = 64; //!< events between two looks at the clock

    void ReportIfDue()
    {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - m_lastReport)
                .count() >= m_period)
        {
            Report(false);
        }
    }

    void Tick()
    {
        uint64_t events = Simulator::GetEventCount();
        ReportIfDue();
        bool busy = events - m_lastEvents > m_idleEvents;
        m_lastEvents = events;
        if (busy && !Simulator::IsFinished())
        {
            m_event = Simulator::Schedule(m_tick, &ProgressTicker::Tick, this);
        }
    }

    ScenarioRunner::ProgressCallback m_cb;
    double m_period;
    Time m_tick;
    uint64_t m_idleEvents;
    FractionFn m_fraction;
    PausedFn m_paused;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastReport;
    uint64_t m_events0{Simulator::GetEventCount()};
    uint64_t m_lastEvents{Simulator::GetEventCount()};
    EventId m_event;
};

} // namespace

void
ScenarioRunner::SetRunStartedCallback(RunStartedCallback callback)
{
    m_runStarted = std::move(callback);
}

void
ScenarioRunner::SetProgressCallback(ProgressCallback callback, double period)
{
    m_progress = std::move(callback);
    m_period = period;
}

std::string
ScenarioRunner::FormatDuration(double s)
{
    char buf[32];
    if (s < 0)
    {
        return "?";
    }
    if (s < 100)
    {
        std::snprintf(buf, sizeof(buf), "%.1f s", s);
    }
    else if (s < 6000)
    {
        std::snprintf(buf, sizeof(buf), "%.1f min", s / 60);
    }
    else
    {
        std::snprintf(buf, sizeof(buf), "%.1f h", s / 3600);
    }
    return buf;
}

std::string
ScenarioRunner::FormatProgress(const ScenarioProgress& p)
{
    char buf[160];
    std::snprintf(buf,
                  sizeof(buf),
                  "simulated %.1f us, wall %s, %.2f M events/s",
                  p.simulatedSeconds * 1e6,
                  FormatDuration(p.wallSeconds).c_str(),
                  p.eventsPerSecond / 1e6);
    std::string line = buf;
    if (p.pausedPorts >= 0)
    {
        line += ", " + std::to_string(p.pausedPorts) + (p.pausedPorts == 1 ? " port" : " ports") +
                " paused";
    }
    if (p.fractionDone >= 0)
    {
        line += ", " + std::to_string(int(p.fractionDone * 100)) + "% done";
    }
    return line + ", remaining " +
           (p.remainingSeconds < 0 ? "?" : "~" + FormatDuration(p.remainingSeconds));
}

ScenarioResult
ScenarioRunner::Run(const ScenarioPoint& p, tn_db* db)
{
    return DoRun(p, db, "");
}

ScenarioResult
ScenarioRunner::Run(const ScenarioPoint& p, const std::string& path)
{
    return DoRun(p, nullptr, path);
}

namespace
{

/// One point's run: what the steps of DoRun build, in the order they build it.
struct PointRun
{
    explicit PointRun(const ScenarioPoint& point)
        : p(point),
          made(point.collectives.size()),
          scheduled(point.collectives.size())
    {
    }

    const ScenarioPoint& p;
    tn_topology* topo{nullptr};
    RoceHelper roce;
    CollectiveHelper collectives;
    NpuHelper npus;
    /// By [[collective]] index: a planned collective or one scheduled at run time.
    std::vector<Ptr<Collective>> made;
    std::vector<Ptr<ThemisCollective>> scheduled;

    /// A training job of the run: the [training] table's, or one of several [[job]]s.
    struct Job
    {
        const ScenarioPoint* what{nullptr}; //!< its training keys
        const ScenarioJob* placed{nullptr}; //!< [[job]]: its NPUs and start (null: [training])
        std::unique_ptr<TrainingHelper> training{std::make_unique<TrainingHelper>()};
        Ptr<TrainingJob> job;
    };

    std::vector<Job> jobs;
    StatsHelper stats;
    Ptr<StatsRecorder> recorder;
    Time estimatedEnd{Seconds(0)}; //!< the cost model's end of the planned collectives

    /// A run that stops before it ran: the simulator's objects go, then the topology.
    void Abandon()
    {
        Simulator::Destroy();
        tn_topology_destroy(topo);
        topo = nullptr;
    }
};

/// The topology, the fabric at the point's level, the collective service and the NPUs.
bool
BuildFabric(PointRun& run, bool distributed, std::string* error)
{
    const ScenarioPoint& p = run.p;
    tn_error err{};
    tn_status st = p.topologyFile.empty()
                       ? tn_topology_from_spec(p.topologySpec.c_str(), &run.topo, &err)
                       : tn_topology_load_file(p.topologyFile.c_str(), &run.topo, &err);
    if (st != TN_OK)
    {
        *error = std::string("topology: ") + err.message;
        return false;
    }
    run.roce.SetMode(p.mode.empty() ? "packet" : p.mode);
    run.roce.SetSymmetricPeriod(p.symmetricPeriod);
    // internal invariant: the reader refused any other order
    NS_ABORT_MSG_IF(!run.roce.SetRouting(p.routeOrder), "[roce] routing " << p.routeOrder);
    run.roce.SetDateline(p.dateline);
    if (distributed && !p.partition.empty())
    {
        run.roce.SetPartition(p.partition);
    }
    run.roce.Install(run.topo);
    run.roce.AssignStreams(0); // ECN marks, link errors: not the streams earlier runs left
    run.collectives.SetRouting(p.routing);
    run.collectives.SetVerify(p.verify);
    // `made` keeps the scenario's own; a job's go when done
    run.collectives.SetKeepCollectives(false);
    run.collectives.Install(run.topo, run.roce);
    if (p.installNpus)
    {
        for (const auto& kv : p.npu)
        {
            run.npus.SetEndpointAttribute(kv.first, StringValue(kv.second));
        }
        run.npus.Install(run.roce.GetFabric().npus);
    }
    return true;
}

/// The [[collective]]s, planned or scheduled at run time. Planned ones first: the ids after
/// the first scheduled one are then its and its successors' sub-collectives, which is how
/// Summarize tells them apart.
bool
MakeCollectives(PointRun& run, std::string* error)
{
    const ScenarioPoint& p = run.p;
    for (size_t k = 0; k < 2 * p.collectives.size(); k++)
    {
        const size_t i = k % p.collectives.size();
        const ScenarioCollective& sc = p.collectives[i];
        if (sc.IsScheduled() != (k >= p.collectives.size()))
        {
            continue;
        }
        tn_plan_request request = sc.ToRequest();
        request.seed = p.seed;
        if (sc.IsScheduled())
        {
            run.collectives.SetScheduler(sc.scheduler);
            run.scheduled[i] = run.collectives.CreateScheduled(request, error);
        }
        else
        {
            run.made[i] = run.collectives.Create(request, {}, error);
        }
        if (!run.made[i] && !run.scheduled[i])
        {
            *error = "collective[" + std::to_string(i) + "]: " + *error;
            return false;
        }
    }
    return true;
}

/// Install one training job: the [training] table's (npus empty: every NPU, an LLM's own
/// placement) or a [[job]]'s on its NPUs.
bool
InstallJob(PointRun& run, PointRun::Job& j, std::string* error)
{
    const ScenarioPoint& p = *j.what;
    TrainingHelper& training = *j.training;
    training.SetJobAttribute("Iterations", UintegerValue(p.iterations));
    training.SetJobAttribute("Overlap", BooleanValue(p.overlap));
    if (!p.trainingAlgorithm.empty())
    {
        training.SetAlgorithm(TN_COLL_ALL_REDUCE, p.trainingAlgorithm);
    }
    if (!p.trainingDpAlgorithm.empty())
    {
        training.SetParallelismAlgorithm(TN_SERVES_DP, p.trainingDpAlgorithm);
    }
    training.SetJobAttribute("Scheduler", StringValue(p.trainingScheduler));
    training.SetJobAttribute("ThemisChunks", UintegerValue(p.trainingChunks));
    training.SetJobAttribute("ThemisActive", UintegerValue(p.trainingActive));
    const uint32_t npus =
        j.placed ? uint32_t(j.placed->npus.size()) : tn_topology_npu_count(run.topo);
    if (j.placed)
    {
        training.SetNpus(j.placed->npus);
    }
    // the model-parallel group: the first dimension's size (a [[job]]'s when it divides its NPUs)
    uint32_t group = p.modelGroup;
    if (group == 0 && tn_topology_dim_count(run.topo) > 0 &&
        (!j.placed || npus % tn_topology_dim(run.topo, 0)->size == 0))
    {
        group = tn_topology_dim(run.topo, 0)->size;
    }
    if (p.llm)
    {
        TrainingHelper::LlmDescription desc;
        if (TrainingHelper::DescribeLlm(p.llmSettings, p.llmBaseDir, &desc, error))
        {
            training.LoadLlm(desc.model, desc.gpu, desc.training, desc.layout);
            training.SetRankPlacement(p.llmPlacement);
            j.job = training.Install(run.collectives, run.npus, 0, error);
        }
    }
    else if (!p.simai.empty())
    {
        if (training.LoadSimai(p.simai, error))
        {
            j.job = training.Install(run.collectives, run.npus, 0, error);
        }
    }
    else if (p.chakra.empty() ? training.Load(p.workload, error)
                              : training.LoadChakra(p.chakra, error))
    {
        j.job = training.Install(run.collectives, run.npus, group, error);
    }
    if (!j.job)
    {
        *error = (j.placed ? "job " + j.placed->name : std::string("training")) + ": " + *error;
        return false;
    }
    return true;
}

/// The [training] job or the [[job]]s, when the point has them.
bool
MakeTrainingJobs(PointRun& run, std::string* error)
{
    const ScenarioPoint& p = run.p;
    if (!p.jobs.empty())
    {
        run.jobs.resize(p.jobs.size());
        for (size_t k = 0; k < p.jobs.size(); k++)
        {
            run.jobs[k].what = p.jobs[k].training.get();
            run.jobs[k].placed = &p.jobs[k];
        }
    }
    else if (!p.workload.empty() || !p.chakra.empty() || !p.simai.empty() || p.llm)
    {
        run.jobs.resize(1);
        run.jobs[0].what = &p;
    }
    for (PointRun::Job& j : run.jobs)
    {
        if (!InstallJob(run, j, error))
        {
            return false;
        }
    }
    return true;
}

/// The recorder into the open database, or (db null) into the file `path`: the run row.
bool
StartRecording(PointRun& run, tn_db* db, const std::string& path, std::string* error)
{
    const ScenarioPoint& p = run.p;
    StatsHelper& stats = run.stats;
    stats.SetRecorderAttribute("SampleInterval", TimeValue(NanoSeconds(p.sampleIntervalNs)));
    stats.SetRecorderAttribute("PortSamples", BooleanValue(p.portSamples));
    stats.SetRecorderAttribute("PortSampling", StringValue(p.portSampling));
    stats.SetRecorderAttribute("Flows", BooleanValue(p.flows));
    stats.SetRecorderAttribute("Transfers", BooleanValue(p.transfers));
    stats.SetRecorderAttribute("PfcEvents", BooleanValue(p.pfcEvents));
    stats.SetRecorderAttribute("Drops", BooleanValue(p.drops));
    run.recorder = db ? stats.Install(db, p.name, p.paramsJson, run.topo, run.roce, error)
                      : stats.Install(path, p.name, p.paramsJson, run.topo, run.roce, error);
    if (!run.recorder)
    {
        *error = "database: " + *error;
        return false;
    }
    return true;
}

/// The plan's cost, the simulated time a run gets (times a margin): the cost model's end of the
/// planned collectives, a bound of the bytes of those scheduled at run time and of the
/// training job; origin says which.
Time
RunCost(const PointRun& run, std::string* origin)
{
    const ScenarioPoint& p = run.p;
    Time cost = Seconds(0);
    *origin = "the cost model's estimate of the plan";
    for (size_t i = 0; i < run.made.size(); i++)
    {
        const Time start = NanoSeconds(p.collectives[i].startNs);
        if (run.scheduled[i])
        {
            cost = std::max(cost,
                            start + StatsHelper::TransferBound(run.topo, p.collectives[i].bytes));
            *origin = "the plan's cost (the cost model, or bytes twice over the slowest link)";
        }
        else if (run.made[i])
        {
            cost = std::max(cost, start + run.made[i]->GetEstimatedTime());
        }
    }
    for (const PointRun::Job& j : run.jobs)
    {
        const Time start = NanoSeconds(j.placed ? j.placed->startNs : 0);
        cost = std::max(cost,
                        start + j.training->GetCostBound(run.topo, run.npus, j.what->iterations));
        *origin = "the plan's cost (the workload's compute and collective bytes)";
    }
    return cost;
}

/// Start the job and the collectives at their times, and limit the simulated time to the
/// plan's cost: the cost model's end of the planned collectives, a bound of the bytes of
/// those scheduled at run time and of the training job.
void
StartWork(PointRun& run, const std::vector<int64_t>& aloneRuns)
{
    const ScenarioPoint& p = run.p;
    for (const Ptr<ThemisCollective>& c : run.scheduled)
    {
        if (c)
        {
            run.stats.AddScheduledCollective(c); // its row: scheduler 'run-time'
        }
    }
    for (size_t k = 0; k < run.jobs.size(); k++)
    {
        const PointRun::Job& j = run.jobs[k];
        if (j.placed)
        {
            std::string npus;
            for (uint32_t n : j.placed->npus)
            {
                npus += (npus.empty() ? "" : ",") + std::to_string(n);
            }
            tn_db_job row{};
            row.job = j.placed->id;
            row.name = j.placed->name.c_str();
            row.npus = npus.c_str();
            row.placement = j.placed->placement.c_str();
            row.start_ns = int64_t(j.placed->startNs);
            row.alone_run_id = k < aloneRuns.size() ? aloneRuns[k] : 0;
            run.stats.AddJob(row, j.placed->npus, run.topo);
        }
        run.stats.AddTrainingJob(j.job);
        run.stats.AddLlmPlacement(*j.training, run.npus);
        if (!j.placed || j.placed->startNs == 0)
        {
            j.job->Start(); // its NPUs' first steps now, as a [training] job always did
        }
        else
        {
            Simulator::Schedule(NanoSeconds(j.placed->startNs), &TrainingJob::Start, j.job);
        }
    }
    for (size_t i = 0; i < run.made.size(); i++)
    {
        if (run.scheduled[i])
        {
            // no cost model for run-time scheduling: the progress fraction stays unknown
            run.collectives.Start(run.scheduled[i], NanoSeconds(p.collectives[i].startNs));
            continue;
        }
        run.collectives.Start(run.made[i], NanoSeconds(p.collectives[i].startNs));
        run.estimatedEnd =
            std::max(run.estimatedEnd,
                     NanoSeconds(p.collectives[i].startNs) + run.made[i]->GetEstimatedTime());
    }
    std::string origin;
    const Time cost = RunCost(run, &origin);
    run.stats.LimitSimulatedTime(cost, origin);
}

/// The fraction of the run done, for the progress display; -1 when unknown.
double
FractionDone(const PointRun& run)
{
    if (!run.jobs.empty())
    {
        double done = 1;
        for (const PointRun::Job& j : run.jobs)
        {
            done = std::min(done, double(j.job->GetIterations(0).size()) / j.what->iterations);
        }
        return std::min(0.99, done);
    }
    const bool scheduledNone = std::none_of(run.scheduled.begin(),
                                            run.scheduled.end(),
                                            [](const Ptr<ThemisCollective>& c) { return bool(c); });
    if (run.estimatedEnd.IsZero() && !scheduledNone)
    {
        // only run-time scheduled collectives: their share of the bytes delivered
        uint64_t delivered = 0;
        uint64_t planned = 0;
        for (const Ptr<ThemisCollective>& c : run.scheduled)
        {
            if (c)
            {
                delivered += c->GetDeliveredBytes();
                planned += c->GetPlannedBytes();
            }
        }
        return planned ? std::min(0.99, double(delivered) / planned) : -1;
    }
    if (run.estimatedEnd.IsZero() || !scheduledNone)
    {
        return -1;
    }
    // Past the cost model's estimate (contention) the end is unknown.
    double f = Simulator::Now().GetSeconds() / run.estimatedEnd.GetSeconds();
    return f < 0.99 ? f : -1;
}

/// Whether every collective and the job ran as planned (the first failure in *error), and
/// the simulated end of the last of them in *endNs.
bool
CheckResults(PointRun& run, uint64_t* endNs, std::string* error)
{
    const ScenarioPoint& p = run.p;
    bool complete = true;
    for (size_t i = 0; i < run.made.size(); i++)
    {
        if (run.scheduled[i])
        {
            const Ptr<ThemisCollective>& c = run.scheduled[i];
            if (std::string mismatch = c->Check(); !c->IsComplete() || !mismatch.empty())
            {
                complete = false;
                if (error->empty())
                {
                    *error =
                        "collective[" + std::to_string(i) + "] (" + p.collectives[i].scheduler +
                        ") did not run as planned: " + (mismatch.empty() ? "incomplete" : mismatch);
                }
            }
            else
            {
                *endNs =
                    std::max<uint64_t>(*endNs,
                                       (c->GetStartTime() + c->GetDuration()).GetNanoSeconds());
            }
            continue;
        }
        std::string mismatch = run.made[i]->Check();
        if (!run.made[i]->IsComplete() || !mismatch.empty())
        {
            complete = false;
            if (error->empty())
            {
                *error =
                    "collective[" + std::to_string(i) + "] (" + p.collectives[i].algorithm +
                    ") did not run as planned: " + (mismatch.empty() ? "incomplete" : mismatch);
            }
            continue;
        }
        *endNs = std::max<uint64_t>(*endNs, run.made[i]->GetEndTime().GetNanoSeconds());
    }
    for (const PointRun::Job& j : run.jobs)
    {
        // over MPI ranks each rank ran its own NPUs: the job is complete when it is on
        // every rank, and ends at the last iteration end of any rank
        const std::string which =
            j.placed ? "the training job " + j.placed->name : std::string("the training job");
        const bool jobComplete = DistributedHelper::AllOf(j.job->IsComplete());
        complete = complete && jobComplete;
        if (!jobComplete && error->empty())
        {
            // the job stopped the run (a collective it could not create), else it ran out
            *error = j.job->GetError().empty() ? which + " did not complete"
                                               : which + ": " + j.job->GetError();
        }
        if (const uint64_t held = DistributedHelper::SumAll(j.job->GetHeldMessages()))
        {
            complete = false;
            if (error->empty())
            {
                *error = which + ": " + std::to_string(held) +
                         " messages named collectives never created at their receivers";
            }
        }
        const uint32_t ranks =
            j.placed ? uint32_t(j.placed->npus.size()) : uint32_t(run.npus.GetEndpoints().size());
        for (uint32_t r = 0; r < ranks; r++)
        {
            for (const auto& it : j.job->GetIterations(r))
            {
                *endNs = std::max<uint64_t>(*endNs, it.end.GetNanoSeconds());
            }
        }
        *endNs = uint64_t(DistributedHelper::MaxAll(double(*endNs)));
    }
    return complete;
}

} // namespace

ScenarioResult
ScenarioRunner::DoRun(const ScenarioPoint& p, tn_db* db, const std::string& path)
{
    NS_LOG_FUNCTION(this << p.name << p.index);
    const bool distributed = DistributedHelper::GetSize() > 1;
    ScenarioResult result;
    result.status = "error";
    auto wallStart = std::chrono::steady_clock::now();
    // isolate = true: each job alone first, as runs of their own in the same database, so
    // that the jobs' rows name the run that is their baseline (view job_slowdown)
    std::vector<int64_t> aloneRuns;
    for (size_t k = 0; p.isolate && k < p.jobs.size(); k++)
    {
        ScenarioPoint alone = p;
        alone.jobs = {p.jobs[k]};
        alone.isolate = false;
        alone.alone = p.jobs[k].id;
        alone.name = p.name + ":" + p.jobs[k].name + "-alone";
        alone.paramsJson.insert(alone.paramsJson.size() - 1,
                                ",\"alone\":" + std::to_string(p.jobs[k].id));
        ScenarioResult baseline = DoRun(alone, db, path);
        if (baseline.status != "ok")
        {
            baseline.error = "job " + p.jobs[k].name + " alone: " + baseline.error;
            return baseline;
        }
        aloneRuns.push_back(baseline.runId);
    }

    RngSeedManager::SetSeed(p.seed);
    RngSeedManager::SetRun(p.run);
    // [roce] holds for this run only: the next run of the process starts from ns-3's defaults.
    ScopedDefaults defaults;
    for (const auto& kv : p.roce)
    {
        if (!defaults.Set(kv.first, kv.second, &result.error))
        {
            result.error = "roce." + kv.first + ": " + result.error;
            return result;
        }
    }
    PointRun run(p);
    if (!BuildFabric(run, distributed, &result.error))
    {
        return result;
    }
    // Plans and jobs first: one that cannot be made leaves no run row.
    if (!MakeCollectives(run, &result.error) || !MakeTrainingJobs(run, &result.error))
    {
        run.Abandon();
        return result;
    }
    // every rank takes the same way: a signal one rank caught stops them all
    if (int sig = int(DistributedHelper::MaxAll(tn_signal_pending())))
    {
        // interrupted while planning (a worker watches signals from its start): no run row
        result.status = "aborted";
        result.error = "interrupted by signal " + std::to_string(sig) + " before the run began";
        run.Abandon();
        return result;
    }
    // a size the readers take (up to 2^62 bytes) may still need more simulated time than a
    // run can get through: refused before it is recorded
    std::string origin;
    const Time cost = RunCost(run, &origin);
    result.error = StatsHelper::CheckRunLength(cost, NanoSeconds(p.sampleIntervalNs), origin);
    if (!result.error.empty() || !StartRecording(run, db, path, &result.error))
    {
        run.Abandon();
        return result;
    }
    result.runId = run.recorder->GetRunId();
    if (m_runStarted)
    {
        m_runStarted(result.runId);
    }
    StartWork(run, aloneRuns);

    std::unique_ptr<ProgressTicker> ticker;
    if (m_progress && !distributed)
    {
        ticker = std::make_unique<ProgressTicker>(
            m_progress,
            m_period,
            NanoSeconds(10 * p.sampleIntervalNs),
            10,
            [&run]() { return FractionDone(run); },
            [&run]() -> int64_t {
                // no watch (flow level): -1, not the count's unsigned type wrapping it
                Ptr<PfcDeadlockWatch> w = run.roce.GetDeadlockWatch();
                return w ? static_cast<int64_t>(w->GetPausedPorts()) : int64_t{-1};
            });
        ticker->Start();
    }
    Simulator::Run();
    if (ticker)
    {
        ticker->Report(true);
        ticker->Cancel();
    }
    // each rank ran its own NPUs' part: join them (every rank, the same collectives in the
    // same order), so that times and checks below answer for the whole collective
    for (const Ptr<Collective>& c : run.made)
    {
        if (c)
        {
            DistributedHelper::MergeCollective(c);
        }
    }
    uint64_t endNs = 0;
    const bool complete = CheckResults(run, &endNs, &result.error);
    result.simulatedNs = complete ? endNs : 0;
    result.status = run.stats.Finish(complete ? "ok" : "error", result.simulatedNs, result.error);
    if (result.status != "ok")
    {
        result.error = run.recorder->GetRunError();
    }
    run.Abandon(); // the run is over: the same teardown
    result.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

namespace
{

/// Runs with more collectives get one summary line (training jobs).
const int64_t MAX_LISTED_COLLECTIVES = 16;

/// A read-only query over the results database; closes itself.
class Query
{
  public:
    Query(sqlite3* db, const char* sql)
    {
        m_ok = sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) == SQLITE_OK;
    }

    ~Query()
    {
        sqlite3_finalize(m_stmt);
    }

    bool Ok() const
    {
        return m_ok;
    }

    sqlite3_stmt* Get() const
    {
        return m_stmt;
    }

  private:
    sqlite3_stmt* m_stmt{nullptr};
    bool m_ok{false};
};

std::string
Text(sqlite3_stmt* s, int col)
{
    const unsigned char* t = sqlite3_column_text(s, col);
    return t ? reinterpret_cast<const char*>(t) : "-";
}

std::string
Number(sqlite3_stmt* s, int col, double scale, const char* format)
{
    if (sqlite3_column_type(s, col) == SQLITE_NULL)
    {
        return "-";
    }
    char buf[64];
    std::snprintf(buf, sizeof(buf), format, sqlite3_column_double(s, col) * scale);
    return buf;
}

} // namespace

bool
ScenarioRunner::Summarize(const std::string& path,
                          const std::vector<int64_t>& runIds,
                          const std::vector<std::string>& labels,
                          std::ostream& out,
                          std::string* error)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    {
        *error = path + ": " + (db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return false;
    }
    sqlite3_busy_timeout(db, 5000);
    Query runs(db,
               "SELECT r.status, r.simulated_ns, r.wall_seconds,"
               // Busy time of the busiest port over the run's simulated time: the samples
               // go on after the last collective while timers are pending, so the views'
               // mean over the sampled time would understate it.
               " (SELECT max(busy) FROM (SELECT sum(utilisation * interval_ns) AS busy"
               "   FROM port_sample p WHERE p.run_id = r.run_id"
               "   AND p.time_ns - p.interval_ns < r.simulated_ns"
               "   GROUP BY node_id, port)) / nullif(r.simulated_ns, 0),"
               // pause_per_port's paused_ns summed, from its table: the view is not
               // narrowed to the run inside a correlated subquery (minutes on big sweeps).
               " (SELECT sum(paused_ns) FROM port_sample p WHERE p.run_id = r.run_id),"
               " (SELECT count(*) FROM drop_event d WHERE d.run_id = r.run_id)"
               " FROM run r WHERE r.run_id = ?");
    // A run-time scheduled operation (scheduler 'run-time', StatsHelper::AddScheduledCollective)
    // is listed, its chunk-phase sub-collectives are not: Run creates the planned collectives
    // first, so every other row after the first scheduled operation's id is a sub-collective.
    // The first such id is looked up once per run (?1, not c.run_id: a correlated subquery
    // scanned the run's rows for each row, an hour for an LLM run's 324,624 collectives).
    const std::string notPhase =
        " AND (c.scheduler IS 'run-time' OR c.collective_id < coalesce((SELECT"
        " min(o.collective_id) FROM collective o WHERE o.run_id = ?1"
        " AND o.scheduler = 'run-time'), c.collective_id + 1))";
    Query colls(db,
                ("SELECT collective_id, op, algorithm, bytes, participants, duration_ns,"
                 " algbw_Bps, busbw_Bps, vs_estimate FROM collective_summary c"
                 " WHERE run_id = ?1" +
                 notPhase + " ORDER BY collective_id")
                    .c_str());
    if (!runs.Ok() || !colls.Ok())
    {
        *error = path + ": " + sqlite3_errmsg(db);
        sqlite3_close(db);
        return false;
    }
    char line[512];
    std::snprintf(line,
                  sizeof(line),
                  "%5s %-7s %12s %9s %9s %11s %7s  %s\n",
                  "run",
                  "status",
                  "sim (us)",
                  "wall (s)",
                  "max util",
                  "pause (us)",
                  "drops",
                  "sweep point");
    out << line;
    for (size_t i = 0; i < runIds.size(); i++)
    {
        sqlite3_reset(runs.Get());
        sqlite3_bind_int64(runs.Get(), 1, runIds[i]);
        if (sqlite3_step(runs.Get()) != SQLITE_ROW)
        {
            continue;
        }
        sqlite3_stmt* s = runs.Get();
        std::snprintf(line,
                      sizeof(line),
                      "%5lld %-7s %12s %9s %9s %11s %7s  %s\n",
                      static_cast<long long>(runIds[i]),
                      Text(s, 0).c_str(),
                      Number(s, 1, 1e-3, "%.2f").c_str(),
                      Number(s, 2, 1, "%.2f").c_str(),
                      Number(s, 3, 1, "%.3f").c_str(),
                      Number(s, 4, 1e-3, "%.2f").c_str(),
                      Number(s, 5, 1, "%.0f").c_str(),
                      i < labels.size() ? labels[i].c_str() : "");
        out << line;
    }
    std::snprintf(line,
                  sizeof(line),
                  "\n%5s %3s %-15s %-13s %12s %6s %12s %11s %11s %9s\n",
                  "run",
                  "id",
                  "collective",
                  "algorithm",
                  "bytes",
                  "ranks",
                  "time (us)",
                  "algbw GB/s",
                  "busbw GB/s",
                  "vs model");
    out << line;
    Query count(db,
                ("SELECT count(*), (SELECT count(*) FROM collective WHERE run_id = ?1)"
                 " FROM collective c WHERE run_id = ?1" +
                 notPhase)
                    .c_str());
    for (int64_t id : runIds)
    {
        // A training run has one collective per layer and iteration: one line says enough.
        sqlite3_reset(count.Get());
        sqlite3_bind_int64(count.Get(), 1, id);
        const bool row = sqlite3_step(count.Get()) == SQLITE_ROW;
        const int64_t n = row ? sqlite3_column_int64(count.Get(), 0) : 0;
        const int64_t phases = row ? sqlite3_column_int64(count.Get(), 1) - n : 0;
        if (n > MAX_LISTED_COLLECTIVES)
        {
            out << std::string(5 - std::min<size_t>(5, std::to_string(id).size()), ' ') << id
                << "   " << n
                << " collectives (SELECT * FROM collective_summary WHERE run_id = " << id << ")\n";
            continue;
        }
        sqlite3_reset(colls.Get());
        sqlite3_bind_int64(colls.Get(), 1, id);
        while (sqlite3_step(colls.Get()) == SQLITE_ROW)
        {
            sqlite3_stmt* s = colls.Get();
            std::snprintf(line,
                          sizeof(line),
                          "%5lld %3s %-15s %-13s %12s %6s %12s %11s %11s %9s\n",
                          static_cast<long long>(id),
                          Text(s, 0).c_str(),
                          Text(s, 1).c_str(),
                          Text(s, 2).c_str(),
                          Text(s, 3).c_str(),
                          Text(s, 4).c_str(),
                          Number(s, 5, 1e-3, "%.2f").c_str(),
                          Number(s, 6, 1e-9, "%.2f").c_str(),
                          Number(s, 7, 1e-9, "%.2f").c_str(),
                          Number(s, 8, 1, "%.3f").c_str());
            out << line;
        }
        if (phases > 0)
        {
            out << std::string(5 - std::min<size_t>(5, std::to_string(id).size()), ' ') << id
                << "   + " << phases << " chunk-phase sub-collectives of the run-time scheduled"
                << " ones (collective_summary)\n";
        }
    }
    sqlite3_close(db);
    return true;
}

} // namespace ns3
