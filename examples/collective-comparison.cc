/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Compare collective algorithms on one topology, simulated (packet level, or flow level with
 * --mode=flow) beside the cost model, in both routing modes. The two comparisons of the papers
 * behind the module:
 *
 *   MultiTree vs ring on a torus (Huang et al., ISCA 2021):
 *     collective-comparison --topology=torus:4x4 --algorithms=multitree,ring,ring2d
 *                           --bytes=67108864
 *   HDRM vs ring on BiGraph, planned and ECMP routing (Dong et al., HPCA 2020):
 *     collective-comparison --topology=bigraph:4x8 --algorithms=hdrm,ring
 *                           --routing=planned,ecmp --bytes=1048576
 *
 * An algorithm may be auto (the tuner's choice, shown as auto:CHOICE).
 * One line per (routing, algorithm): simulated time (its column names the mode), cost-model
 * estimate, their ratio, bus bandwidth, and the speed-up over the first algorithm of the list. Each
 * run is appended to the results database (--db, default results.db).
 *
 * Under mpirun (an ns-3 built with its mpi module) each run is spread over the ranks
 * (DistributedHelper), which record into one run of the database; rank 0 prints.
 */
#include "ns3/collective-helper.h"
#include "ns3/distributed-helper.h"
#include "ns3/program-options.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-db.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-version.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const bool mpi = DistributedHelper::Enable(&argc, &argv);
    if (mpi)
    {
        std::atexit(&DistributedHelper::Disable);
        DistributedHelper::QuietUnlessRoot();
    }
    std::string spec = "torus:4x4";
    std::vector<std::string> algorithms = {"multitree", "ring"};
    std::vector<std::string> routings = {"planned"};
    uint64_t bytes = 16 << 20;
    std::string dbPath = "results.db";
    ProgramOptions options("collective-comparison", __FILE__);
    options.AddString("db", "results database (SQLite) to append the runs to", &dbPath);
    options.AddString("topology", "topology spec", &spec);
    options.AddList("algorithms", "algorithms (the first is the reference)", &algorithms);
    options.AddList("routing", "routing modes: planned, ecmp", &routings);
    options.AddBytes("bytes", "all-reduce size", &bytes);
    std::string routeOrder = "shortest";
    options.AddString("route-order",
                      "the fabric's routes: shortest (ECMP over every shortest path) or "
                      "dimension-order (dim 0 first: no cycle between a mesh's dims)",
                      &routeOrder);
    bool dateline = true;
    options.AddFlag("dateline",
                    "with dimension-order on a torus, packets past a ring's wrap cable move to "
                    "priority 4 (a second lossless priority: no PFC cycle inside a ring)",
                    &dateline);
    std::string mode = "packet";
    options.AddMode(&mode);
    // every rank reads the same input and comes to the same verdict: rank 0 prints it
    DistributedHelper::HoldErrors();
    // from here to the exit: a signal aborts the run it comes before, or ends the program
    // after the last run is recorded, never kills it midway
    options.WatchSignals();
    const bool parsed = options.Parse(argc, argv);
    DistributedHelper::ExitUnlessAll(parsed, DistributedHelper::ReleaseErrors(), 2);

    tn_error err{};
    tn_topology* topo = nullptr;
    const bool parsedTopology = tn_topology_from_spec(spec.c_str(), &topo, &err) == TN_OK;
    DistributedHelper::ExitUnlessAll(parsedTopology,
                                     std::string("collective-comparison: --topology: ") +
                                         err.message,
                                     2);
    RoceHelper checker;
    checker.SetMode(mode);
    DistributedHelper::ExitUnlessAll(checker.SetRouting(routeOrder),
                                     "collective-comparison: --route-order: '" + routeOrder +
                                         "' is not shortest or dimension-order",
                                     2);
    const std::string fabricError = checker.Check(topo);
    DistributedHelper::ExitUnlessAll(fabricError.empty(),
                                     "collective-comparison: " + fabricError,
                                     2);
    for (const std::string& routing : routings)
    {
        DistributedHelper::ExitUnlessAll(CollectiveHelper().SetRouting(routing),
                                         "collective-comparison: --routing: '" + routing +
                                             "' is not planned or ecmp",
                                         2);
    }
    // under mpirun every rank opens the file itself (StatsHelper::Install(path, ...))
    tn_db* db = nullptr;
    if (!mpi && tn_db_open(dbPath.c_str(), &db, &err) != TN_OK)
    {
        std::fprintf(stderr, "collective-comparison: --db: %s\n", err.message);
        tn_topology_destroy(topo);
        return 2;
    }
    std::printf("all-reduce of %llu bytes on %s (%u NPUs)\n",
                static_cast<unsigned long long>(bytes),
                spec.c_str(),
                tn_topology_npu_count(topo));
    std::printf("%-8s %-13s %12s %12s %7s %10s %8s\n",
                "routing",
                "algorithm",
                (mode + " (us)").c_str(),
                "model (us)",
                "ratio",
                "busbw GB/s",
                "speed-up");
    int status = 0;
    // the first run that did not go as planned, and how many did not: one error line at the
    // end, after the table (a row's "NOT AS PLANNED" is on stdout)
    std::string firstFailure;
    unsigned failures = 0;
    for (const std::string& routing : routings)
    {
        double reference = 0;
        for (const std::string& algorithm : algorithms)
        {
            RoceHelper roce;
            roce.SetMode(mode);
            roce.SetRouting(routeOrder);
            roce.SetDateline(dateline);
            roce.Install(topo);
            // ECN marks, PINT samples: the same draws in every run and on every rank
            roce.AssignStreams(0);
            CollectiveHelper collectives;
            collectives.SetRouting(routing);
            collectives.Install(topo, roce);
            tn_plan_request request;
            tn_plan_request_init(&request);
            request.algorithm = algorithm.c_str();
            request.bytes = bytes;
            std::string error;
            Ptr<Collective> c = collectives.Create(request, {}, &error);
            if (!c && mpi)
            {
                // every rank plans the same
                Simulator::Destroy();
                DistributedHelper::ExitUnlessAll(false,
                                                 "collective-comparison: " + algorithm + ": " +
                                                     error);
            }
            if (!c)
            {
                // the rows so far, then the error line: nothing follows it
                std::fflush(stdout);
                std::fprintf(stderr,
                             "collective-comparison: %s: %s\n",
                             algorithm.c_str(),
                             error.c_str());
                Simulator::Destroy();
                tn_db_close(db);
                tn_topology_destroy(topo);
                return 1;
            }
            std::string params =
                "{\"topology\":\"" + spec + "\",\"algorithm\":\"" + algorithm +
                "\",\"routing\":\"" + routing +
                (routeOrder == "shortest" ? std::string() : "\",\"route_order\":\"" + routeOrder) +
                "\",\"bytes\":" + std::to_string(bytes) +
                (dateline || routeOrder == "shortest" ? "" : ",\"dateline\":false") + "}";
            StatsHelper stats; // records the run, the fabric and the collective
            const bool recording =
                (db ? stats.Install(db, "collective-comparison", params, topo, roce, &error)
                    : stats.Install(dbPath, "collective-comparison", params, topo, roce, &error)) !=
                nullptr;
            if (mpi)
            {
                DistributedHelper::ExitUnlessAll(recording,
                                                 "collective-comparison: --db: " + error);
            }
            if (!recording)
            {
                std::fflush(stdout);
                std::fprintf(stderr, "collective-comparison: --db: %s\n", error.c_str());
                return 1;
            }
            stats.LimitSimulatedTime(c->GetEstimatedTime(),
                                     "the cost model's estimate of the plan");
            collectives.Start(c);
            Simulator::Run();
            // each MPI rank ran its own NPUs' part: joined, it answers for all of them
            DistributedHelper::MergeCollective(c);
            std::string check = stats.GetRecorder()->GetStopError();
            check = check.empty() ? c->Check() : check;
            double us = c->IsComplete() ? c->GetDuration().GetNanoSeconds() / 1e3 : -1;
            double model = c->GetEstimatedTime().GetNanoSeconds() / 1e3;
            if (reference == 0 && us > 0)
            {
                reference = us;
            }
            // auto: the tuner's choice beside it
            const std::string shown =
                algorithm == c->GetAlgorithm() ? algorithm : algorithm + ":" + c->GetAlgorithm();
            const std::string recorded = stats.Finish(
                check.empty() ? "ok" : "error",
                us > 0 ? static_cast<uint64_t>(us * 1e3) : Simulator::Now().GetNanoSeconds(),
                check.empty() ? "" : "the collective did not run as planned: " + check);
            options.Recorded(stats.GetRecorder()->GetRunId(), recorded);
            // the row of a recorded run: a signal while it is printed leaves the run as it is
            std::printf("%-8s %-13s %12.1f %12.1f %7.3f %10.2f %8.2f%s%s\n",
                        routing.c_str(),
                        shown.c_str(),
                        us,
                        model,
                        model > 0 ? us / model : 0,
                        tn_busbw(TN_COLL_ALL_REDUCE, c->GetRanks(), bytes, us * 1e3) / 1e9,
                        us > 0 ? reference / us : 0,
                        check.empty() ? "" : "  NOT AS PLANNED: ",
                        check.c_str());
            status |= check.empty() ? 0 : 1;
            if (!check.empty() && failures++ == 0)
            {
                firstFailure = routing + " " + shown + ": " + check;
            }
            Simulator::Destroy();
            // under mpirun: ns-3's MPI interface again for the next run (not after a run that
            // left frames between ranks: it stopped early and is reported below)
            const bool next = DistributedHelper::NextSimulation();
            if (recorded == "aborted")
            {
                std::fflush(stdout);
                if (DistributedHelper::GetRank() == 0)
                {
                    std::fprintf(stderr,
                                 "collective-comparison: interrupted; run recorded as aborted\n");
                }
                tn_db_close(db);
                tn_topology_destroy(topo);
                return tn_signal_exit_status(stats.GetRecorder()->GetSignal());
            }
            if (recorded == "error" && !stats.GetRecorder()->GetError().empty())
            {
                std::fflush(stdout);
                std::fprintf(stderr,
                             "collective-comparison: --db: %s\n",
                             stats.GetRecorder()->GetError().c_str());
                tn_db_close(db);
                tn_topology_destroy(topo);
                return 1;
            }
            if (!next)
            {
                std::fflush(stdout);
                if (DistributedHelper::GetRank() == 0)
                {
                    std::fprintf(stderr,
                                 "collective-comparison: %s left frames between ranks on their "
                                 "way (it stopped early): no other run can follow\n",
                                 algorithm.c_str());
                }
                tn_topology_destroy(topo);
                return 1;
            }
        }
    }
    tn_db_close(db);
    tn_topology_destroy(topo);
    if (failures && DistributedHelper::GetRank() == 0)
    {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "collective-comparison: %u run(s) did not run as planned; the first, %s\n",
                     failures,
                     firstFailure.c_str());
    }
    return options.ExitStatus(status);
}
