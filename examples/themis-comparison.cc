/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Themis at run time against the fixed-order baseline on a heterogeneous 3D system, at
 * packet level (Rashidi et al., ISCA 2022):
 *
 *   themis-comparison --topology=hier:switch4@1600Gbps+switch4@800Gbps+switch4@400Gbps
 *                     --bytes=64MiB
 *
 * One line per scheduler: "fixed" (every chunk in dim order 0..D-1), "themis-fifo" and
 * "themis-scf" run chunk-phases at run time (ThemisCollective); the static plans
 * "hierarchical" and "themis" (the Themis DAG the core builds from its alpha-beta
 * simulation) run as single schedules beside them. Columns: simulated time (the column names
 * the mode), speed-up over the first line, the core's estimate where there is one, and
 * whether the run executed as planned. Every line is also a run appended to the results database
 * (--db, default results.db): the run-time operations as collectives of scheduler 'run-time' beside
 * their chunk-phase sub-collectives, the static plans as planned collectives.
 */
#include "ns3/collective-helper.h"
#include "ns3/program-options.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/stats-recorder.h"
#include "ns3/tn-db.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-themis.h"
#include "ns3/tn-topology.h"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string spec = "hier:switch4@1600Gbps+switch4@800Gbps+switch4@400Gbps";
    std::vector<std::string> schedulers = {"fixed",
                                           "themis-fifo",
                                           "themis-scf",
                                           "hierarchical",
                                           "themis"};
    uint64_t bytes = 64 << 20;
    uint32_t chunks = 64;
    uint32_t active = 1;
    std::string dbPath = "results.db";
    ProgramOptions options("themis-comparison", __FILE__);
    options.AddString("db", "results database (SQLite) to append the runs to", &dbPath);
    options.AddString("topology", "topology spec (a system with dims)", &spec);
    options.AddList("schedulers",
                    "comma-separated: fixed, themis-fifo, themis-scf (run time), "
                    "hierarchical, themis (static plans); the first is the reference",
                    &schedulers);
    options.AddBytes("bytes", "all-reduce size", &bytes);
    options.AddCount("chunks", "chunks per collective", 1u, 1u << 20, &chunks);
    options.AddCount("active", "active chunk-phases per dim and group (A)", 1u, 1u << 20, &active);
    std::string mode = "packet";
    options.AddMode(&mode);
    // from here to the exit: a signal aborts the run it comes before, or ends the program
    // after the last run is recorded, never kills it midway
    options.WatchSignals();
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    for (const std::string& name : schedulers)
    {
        if (!CollectiveHelper::IsScheduler(name) && name != "hierarchical" && name != "themis")
        {
            std::fprintf(stderr,
                         "themis-comparison: --schedulers: '%s' is not fixed, themis-fifo, "
                         "themis-scf, hierarchical or themis\n",
                         name.c_str());
            return 2;
        }
    }
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "themis-comparison: --topology: %s\n", err.message);
        return 2;
    }
    if (tn_topology_npu_count(topo) < 2)
    {
        // nothing to reduce: the schedulers would wait for chunk-phases that never start
        std::fprintf(stderr,
                     "themis-comparison: --topology: '%s' has %u NPU: an all-reduce needs at "
                     "least 2\n",
                     spec.c_str(),
                     tn_topology_npu_count(topo));
        tn_topology_destroy(topo);
        return 2;
    }
    const std::string fabricError = RoceHelper().Check(topo);
    if (!fabricError.empty())
    {
        std::fprintf(stderr, "themis-comparison: %s\n", fabricError.c_str());
        tn_topology_destroy(topo);
        return 2;
    }
    tn_db* db = nullptr;
    if (tn_db_open(dbPath.c_str(), &db, &err) != TN_OK)
    {
        std::fprintf(stderr, "themis-comparison: --db: %s\n", err.message);
        tn_topology_destroy(topo);
        return 2;
    }
    std::printf("all-reduce of %llu bytes on %s (%u NPUs), %u chunks, A = %u\n",
                static_cast<unsigned long long>(bytes),
                spec.c_str(),
                tn_topology_npu_count(topo),
                chunks,
                active);
    std::printf("%-13s %12s %9s %12s  %s\n",
                "scheduler",
                (mode + " (us)").c_str(),
                "speed-up",
                "model (us)",
                "check");
    int status = 0;
    double reference = 0;
    // the first run that did not go as planned, and how many did not: one error line at the
    // end, after the table (a row's check is on stdout)
    std::string firstFailure;
    unsigned failures = 0;
    for (const std::string& name : schedulers)
    {
        RoceHelper roce;
        roce.SetMode(mode);
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.bytes = bytes;
        request.chunks = chunks;
        request.themis.active_chunks_per_dim = active;
        std::string error;
        double us = -1;
        double model = 0;
        std::string check;
        const std::string params = "{\"topology\":\"" + spec + "\",\"scheduler\":\"" + name +
                                   "\",\"bytes\":" + std::to_string(bytes) +
                                   ",\"chunks\":" + std::to_string(chunks) +
                                   ",\"active\":" + std::to_string(active) + "}";
        StatsHelper stats; // the run, the fabric, the collectives
        Ptr<StatsRecorder> recorder =
            stats.Install(db, "themis-comparison", params, topo, roce, &error);
        if (!recorder)
        {
            std::fflush(stdout);
            std::fprintf(stderr, "themis-comparison: --db: %s\n", error.c_str());
            Simulator::Destroy();
            tn_db_close(db);
            tn_topology_destroy(topo);
            return 1;
        }
        if (name == "hierarchical" || name == "themis")
        {
            request.algorithm = name.c_str();
            request.themis.policy = TN_THEMIS_SCF;
            Ptr<Collective> c = collectives.Create(request, {}, &error);
            if (c)
            {
                stats.LimitSimulatedTime(c->GetEstimatedTime(),
                                         "the cost model's estimate of the plan");
                collectives.Start(c);
                Simulator::Run();
                check = c->Check();
                us = c->IsComplete() ? c->GetDuration().GetNanoSeconds() / 1e3 : -1;
                model = c->GetEstimatedTime().GetNanoSeconds() / 1e3;
            }
        }
        else if (collectives.SetScheduler(name))
        {
            Ptr<ThemisCollective> c = collectives.CreateScheduled(request, &error);
            if (c)
            {
                stats.AddScheduledCollective(c);
                // scheduled at run time: no cost model estimate
                stats.LimitSimulatedTime(StatsHelper::TransferBound(topo, bytes),
                                         "its bytes twice over the slowest link");
                collectives.Start(c);
                Simulator::Run();
                check = c->Check();
                us = c->IsComplete() ? c->GetDuration().GetNanoSeconds() / 1e3 : -1;
            }
        }
        else
        {
            error = "unknown scheduler (fixed, themis-fifo, themis-scf, hierarchical, themis)";
        }
        if (!recorder->GetStopError().empty())
        {
            check = recorder->GetStopError();
        }
        if (check.empty() && error.empty() && us < 0)
        {
            check = "the collective did not complete";
        }
        const std::string recorded =
            stats.Finish(error.empty() && check.empty() && us >= 0 ? "ok" : "error",
                         us > 0 ? static_cast<uint64_t>(us * 1e3) : 0,
                         !error.empty()   ? name + ": " + error
                         : !check.empty() ? name + " did not run as planned: " + check
                                          : name + " did not complete");
        options.Recorded(recorder->GetRunId(), recorded);
        Simulator::Destroy();
        if (recorded == "aborted")
        {
            std::fflush(stdout);
            std::fprintf(stderr, "themis-comparison: interrupted; run recorded as aborted\n");
            tn_db_close(db);
            tn_topology_destroy(topo);
            return tn_signal_exit_status(recorder->GetSignal());
        }
        if (!error.empty() || (recorded == "error" && !recorder->GetError().empty()))
        {
            // the rows so far, then the error line: nothing follows it
            std::fflush(stdout);
            if (!error.empty())
            {
                std::fprintf(stderr, "themis-comparison: %s: %s\n", name.c_str(), error.c_str());
            }
            else
            {
                std::fprintf(stderr, "themis-comparison: --db: %s\n", recorder->GetError().c_str());
            }
            tn_db_close(db);
            tn_topology_destroy(topo);
            return 1;
        }
        if (reference == 0 && us > 0)
        {
            reference = us;
        }
        std::printf("%-13s %12.1f %9.3f %12.1f  %s\n",
                    name.c_str(),
                    us,
                    us > 0 ? reference / us : 0,
                    model,
                    check.empty() ? "as planned" : check.c_str());
        status |= check.empty() ? 0 : 1;
        if (!check.empty() && failures++ == 0)
        {
            firstFailure = name + ": " + check;
        }
    }
    tn_db_close(db);
    tn_topology_destroy(topo);
    if (failures)
    {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "themis-comparison: %u run(s) did not run as planned; the first, %s\n",
                     failures,
                     firstFailure.c_str());
    }
    return options.ExitStatus(status);
}
