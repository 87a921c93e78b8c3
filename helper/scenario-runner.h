/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_RUNNER_H
#define SCENARIO_RUNNER_H

#include "ns3/scenario-config.h"
#include "ns3/tn-db.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Progress of a running scenario point (ScenarioRunner::SetProgressCallback).
 */
struct ScenarioProgress
{
    double simulatedSeconds; //!< simulated time so far
    double wallSeconds;      //!< wall time since the simulation started
    double eventsPerSecond;  //!< simulator events per wall second, since the start
    double remainingSeconds; //!< wall time still needed (estimate), or < 0 when unknown
    double fractionDone;     //!< 0..1, or < 0 when unknown
    /// (port, priority) pairs paused by their peer now, over the fabric (PfcDeadlockWatch::
    /// GetPausedPorts): a count that stays up while nothing else moves is a deadlock forming;
    /// < 0 when unknown (flow level, no packets)
    int64_t pausedPorts{-1};
    bool last; //!< the simulation is over
};

/**
 * \ingroup training-net
 * \brief What a scenario point's run gave.
 */
struct ScenarioResult
{
    int64_t runId{-1};       //!< run_id in the database (-1: no run row)
    std::string status;      //!< ok, error or aborted
    std::string error;       //!< why, when not ok
    uint64_t simulatedNs{0}; //!< recorded simulated time
    double wallSeconds{0};   //!< wall time of the run
};

/**
 * \ingroup training-net
 * \brief Runs one validated scenario point (ScenarioConfig::Expand) with the module's
 * helpers and records it in the results database.
 *
 * \code
 *   tn_db* db = ...;                    // tn_db_open(point.database)
 *   ScenarioRunner runner;
 *   ScenarioResult r = runner.Run(points[0], db);
 * \endcode
 *
 * Run() wires the run as the examples do: Config defaults from [roce], the topology
 * (tn_topology_from_spec or tn_topology_load_file), RoceHelper, CollectiveHelper (routing),
 * NpuHelper ([npu]), the collectives (CollectiveHelper::Create and Start) or a training job
 * (TrainingHelper), then StatsHelper (sampling), Simulator::Run, StatsHelper::Finish and
 * Simulator::Destroy. A plan or job that cannot be made fails before the run row is
 * written. The run's simulated time is the end of its last collective (or training job).
 * Several jobs ([[job]]) each get a TrainingHelper on their NPUs (SetNpus), start at their
 * start and are recorded with StatsHelper::AddJob; with isolate, Run first runs each job alone
 * as a run of its own (the run-started callback is called for each, in order) and returns the
 * result of the jobs together, whose job rows name the runs alone (or the first run that
 * failed, its error naming the job).
 */
class ScenarioRunner
{
  public:
    /// Called about every `period` wall seconds while simulating, and once at the end.
    typedef std::function<void(const ScenarioProgress&)> ProgressCallback;

    /**
     * \param callback progress callback (null: none)
     * \param period wall seconds between calls
     */
    void SetProgressCallback(ProgressCallback callback, double period = 0.5);

    /**
     * The live view's line of a progress report: "simulated 1234.5 us, wall 2.0 s,
     * 1.23 M events/s, 3 ports paused, 40% done, remaining ~3.0 s" (the paused count only
     * when known, "remaining ?" and no share done when the work is not known).
     * \param p a report \return the line, without a newline
     */
    static std::string FormatProgress(const ScenarioProgress& p);

    /**
     * \param s seconds \return "12.3 s", "4.5 min" or "1.2 h" ("?" when s < 0)
     */
    static std::string FormatDuration(double s);

    /// Called with the run's id as soon as its row ('running') is in the database.
    typedef std::function<void(int64_t)> RunStartedCallback;

    /**
     * \param callback called with each new run_id, once per Run (and once per job alone
     * before it, with isolate): a process running points tells its parent, which closes the
     * run if the process dies (training-net-run)
     */
    void SetRunStartedCallback(RunStartedCallback callback);

    /**
     * Run one point. A SIGINT or SIGTERM caught (tn_signal_watch) before the run row is
     * written ends it as 'aborted' without a row; during the simulation it stops the run,
     * which is recorded as 'aborted' with what it recorded so far.
     * \param point a point of ScenarioConfig::Expand \param db the database (open)
     * \return the result
     */
    ScenarioResult Run(const ScenarioPoint& point, tn_db* db);

    /**
     * Run one point into the database file `path` (StatsHelper::Install(path, ...)). This is
     * the form a distributed run needs (DistributedHelper, more than one MPI rank): every
     * rank calls it with the same point; the nodes go on ranks by the point's partition (or
     * tn_partition_auto), every rank records its own nodes into the same run, and each
     * collective's parts are joined over the ranks after the simulation
     * (DistributedHelper::MergeCollective), so every rank returns the same result. There is no
     * progress display over ranks: its ticks would be events of one rank's own.
     * \param point a point of ScenarioConfig::Expand \param path the database file
     * \return the result
     */
    ScenarioResult Run(const ScenarioPoint& point, const std::string& path);

    /**
     * Print the summary tables of runs from a results database, from its views: per run
     * (status, simulated and wall time, hottest port's mean utilisation, total pause time,
     * drops) and per collective (time, algbw, busbw, time over the cost model's estimate).
     * \param path the database \param runIds the runs (in this order)
     * \param labels a label per run (the sweep values), or empty
     * \param out where to print \param error set on failure \return true when printed
     */
    static bool Summarize(const std::string& path,
                          const std::vector<int64_t>& runIds,
                          const std::vector<std::string>& labels,
                          std::ostream& out,
                          std::string* error);

  private:
    /// Run with an open database, or (db null) into the file `path`.
    ScenarioResult DoRun(const ScenarioPoint& point, tn_db* db, const std::string& path);

    ProgressCallback m_progress;
    RunStartedCallback m_runStarted;
    double m_period{0.5};
};

} // namespace ns3

#endif // SCENARIO_RUNNER_H
