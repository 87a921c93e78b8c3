/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-net quickstart: the program `make run` runs.
 *
 * One collective, end to end: the C core builds a topology, plans the
 * collective with the chosen algorithm, proves the schedule correct with the
 * verifier and estimates its time with the alpha-beta cost model; the ns-3
 * layer builds the RoCE fabric of that topology (devices, PFC, switches,
 * RDMA NICs with DCQCN) and runs the schedule with the collective executor
 * (CollectiveHelper): every transfer becomes an RDMA WRITE with immediate,
 * posted by its sender when the data it depends on has arrived there. The
 * packet-level time is printed beside the cost model's estimate of the same
 * plan. The run is recorded in the results database (results.db by default):
 *   sqlite3 results.db 'SELECT run_id, name, status, simulated_ns, params_json FROM run'
 *
 *   training-net-quickstart --topology=torus:4x4 --algorithm=multitree --bytes=4194304
 *   training-net-quickstart --topology=bigraph:4x8 --algorithm=hdrm --routing=ecmp
 *
 * Under mpirun (an ns-3 built with its mpi module) the same run is spread over the ranks
 * (DistributedHelper): each simulates its part of the fabric, all record into one run of the
 * database, rank 0 prints.
 *   mpirun -np 2 training-net-quickstart --topology=torus:4x4 --algorithm=multitree
 */
#include "ns3/collective-helper.h"
#include "ns3/distributed-helper.h"
#include "ns3/program-options.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-db.h"
#include "ns3/tn-huge-pages.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"
#include "ns3/tn-verify.h"
#include "ns3/tn-version.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/** Fails the program with the core's message (every rank: each reads the same input). */
void
Check(tn_status status, const tn_error& err, const char* what)
{
    DistributedHelper::ExitUnlessAll(status == TN_OK,
                                     std::string("training-net-quickstart: ") + what + ": " +
                                         err.message);
}

} // namespace

int
main(int argc, char* argv[])
{
    tn_huge_pages_prefer(argv); // a large run's memory in huge pages: may start again
    if (DistributedHelper::Enable(&argc, &argv))
    {
        std::atexit(&DistributedHelper::Disable);
        DistributedHelper::QuietUnlessRoot();
    }
    std::string dbPath = "results.db";
    std::string topologySpec = "switch:8,rate=100Gbps,latency=1us";
    std::string collectiveName = "all-reduce";
    std::string algorithm = "ring";
    uint64_t bytes = 8 << 20;
    uint32_t chunks = 1;
    std::string routing = "planned";
    std::string pcapPrefix;
    ProgramOptions options("training-net-quickstart", __FILE__);
    options.AddString("db", "results database (SQLite) to append this run to", &dbPath);
    options.AddString("topology",
                      "topology spec (see tn-topology.h), e.g. torus:4x4",
                      &topologySpec);
    options.AddString("collective",
                      "all-reduce, reduce-scatter, all-gather, all-to-all, ...",
                      &collectiveName);
    options.AddString("algorithm",
                      "planning algorithm: ring, direct, rhd, dbt, multitree, ..., or auto (the "
                      "best by the cost model)",
                      &algorithm);
    options.AddBytes("bytes", "collective size (per rank, see tn-schedule.h)", &bytes);
    options.AddCount("chunks", "chunks the collective is split into", 1u, UINT32_MAX - 1, &chunks);
    options.AddString("routing", "planned (transfers take their planned links) or ecmp", &routing);
    options.AddString("pcap", "pcap of every device: PREFIX-node-device.pcap", &pcapPrefix);
    std::string mode = "packet";
    options.AddMode(&mode, {"pcap"});
    // from the start to the exit: a SIGINT or SIGTERM aborts the run, or, once the run is
    // recorded, ends the program with 130 (143) and one line; it never kills it midway (a
    // second one does). The recorder's own watch nests inside this one.
    options.WatchSignals();
    DistributedHelper::HoldErrors(); // every rank reads the same options: rank 0 says
    const bool parsed = options.Parse(argc, argv);
    DistributedHelper::ExitUnlessAll(parsed, DistributedHelper::ReleaseErrors(), 2);
    DistributedHelper::ExitUnlessAll(pcapPrefix.empty() || DistributedHelper::GetSize() == 1,
                                     "training-net-quickstart: --pcap: runs in one process, not "
                                     "over MPI ranks",
                                     2);

    tn_error err{};
    tn_topology* topo = nullptr;
    Check(tn_topology_from_spec(topologySpec.c_str(), &topo, &err), err, "--topology");

    tn_plan_request request;
    tn_plan_request_init(&request);
    Check(tn_collective_parse(collectiveName.c_str(), &request.collective, &err),
          err,
          "--collective");
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    request.chunks = chunks;
    Check(tn_tune_plan_check(topo, &request, &err), err, "planning");

    std::ostringstream params;
    params << "{\"topology\":\"" << topologySpec << "\",\"collective\":\""
           << tn_collective_name(request.collective) << "\",\"algorithm\":\"" << algorithm
           << "\",\"bytes\":" << bytes << ",\"chunks\":" << chunks << ",\"routing\":\"" << routing
           << "\"}";

    auto wallStart = std::chrono::steady_clock::now();
    RoceHelper roce;
    roce.SetMode(mode);
    const std::string fabricError = roce.Check(topo);
    DistributedHelper::ExitUnlessAll(fabricError.empty(),
                                     "training-net-quickstart: " + fabricError,
                                     2);
    roce.Install(topo);
    // ECN marks, PINT samples: the same draws in every run and on every rank
    roce.AssignStreams(0);
    RocePcapFiles pcap;
    std::string pcapError;
    if (!pcapPrefix.empty() && !pcap.Open(pcapPrefix, roce.GetFabric().devices, &pcapError))
    {
        std::cerr << "training-net-quickstart: --pcap: " << pcapError << std::endl;
        return 1;
    }
    CollectiveHelper collectives;
    DistributedHelper::ExitUnlessAll(collectives.SetRouting(routing),
                                     "training-net-quickstart: --routing: '" + routing +
                                         "' is not a routing mode (planned, ecmp)",
                                     2);
    collectives.Install(topo, roce);
    // One call records the run, every node and link, port samples, PFC events, drops, RDMA
    // flows, the collective and its transfers (StatsRecorder attributes: --ns3::StatsRecorder::...)
    StatsHelper stats;
    std::string error;
    const bool recording =
        stats.Install(dbPath, "training-net-quickstart", params.str(), topo, roce, &error) !=
        nullptr;
    DistributedHelper::ExitUnlessAll(recording, "training-net-quickstart: --db: " + error);
    Ptr<Collective> collective = collectives.Create(request, {}, &error);
    if (!collective)
    {
        // every rank plans the same, so every rank is here
        stats.Finish("error", 0, error);
        Simulator::Destroy();
        DistributedHelper::ExitUnlessAll(false, "training-net-quickstart: " + error);
    }
    stats.LimitSimulatedTime(collective->GetEstimatedTime(),
                             "the cost model's estimate of the plan");
    collectives.Start(collective);
    Simulator::Run();
    // each MPI rank ran its own NPUs' part: joined, the collective answers for all of them
    DistributedHelper::MergeCollective(collective);
    const bool pcapOk = pcap.Close(&pcapError);
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    // a generated collective (CollectiveService attribute Program) has no global schedule
    const tn_schedule* schedule = collective->GetSchedule();
    const uint64_t transfers = collective->GetTransferCount();
    std::string mismatch = collective->Check();
    bool complete = collective->IsComplete() && mismatch.empty();
    uint64_t simulatedNs = complete ? collective->GetDuration().GetNanoSeconds() : 0;
    uint32_t ranks = collective->GetRanks();
    // Verify off, or the plan too large for the verifier's share of the memory limit
    const bool verified = collectives.GetService()->GetVerify() &&
                          collectives.GetService()->GetPlansUnverified() == 0;
    double estimateNs = collective->GetEstimatedTime().GetNanoSeconds();
    std::cout << tn_collective_name(request.collective) << " of " << bytes << " bytes on "
              << topologySpec << " (" << ranks << " NPUs) with " << collective->GetAlgorithm()
              << (collective->GetTuning().runnerUp.empty() && algorithm != TN_TUNE_AUTO
                      ? ""
                      : " (auto; runner-up " +
                            (collective->GetTuning().runnerUp.empty()
                                 ? std::string("none")
                                 : collective->GetTuning().runnerUp) +
                            ")")
              << ": " << transfers << " transfers"
              << (schedule ? " in " + std::to_string(tn_schedule_steps(schedule)) + " steps, " +
                                 (verified ? "verified" : "not verified")
                           : ", rank-local programs (each generator is proven equal to its "
                             "verified schedule)")
              << "\n"
              << "  " << mode << " level " << simulatedNs / 1e3 << " us, cost model of the plan "
              << estimateNs / 1e3 << " us (ratio "
              << (estimateNs > 0 ? simulatedNs / estimateNs : 0) << "), routing " << routing
              << ", busbw " << tn_busbw(request.collective, ranks, bytes, double(simulatedNs)) / 1e9
              << " GB/s, wall " << wall << " s\n";
    const std::string failure = complete
                                    ? ""
                                    : "the collective did not run as planned: " +
                                          (mismatch.empty() ? std::string("incomplete") : mismatch);
    const std::string recorded = stats.Finish(complete ? "ok" : "error", simulatedNs, failure);
    Simulator::Destroy();
    // what was recorded, then the error lines: nothing follows an error line
    std::cout << "run " << stats.GetRecorder()->GetRunId() << " recorded in " << dbPath << " ("
              << recorded << ")" << std::endl;
    const bool interrupted = recorded == "aborted";
    if (DistributedHelper::GetRank() == 0 && stats.GetRecorder()->GetError().empty())
    {
        // one line: the interruption, else the recorder's reason when it stopped the run
        // (its simulated time limit, a stall), else why the collective failed
        const std::string& limit = stats.GetRecorder()->GetStopError();
        if (interrupted)
        {
            std::cerr << "training-net-quickstart: interrupted; run recorded as aborted"
                      << std::endl;
        }
        else if (!limit.empty() || !complete || recorded != "ok")
        {
            std::cerr << "training-net-quickstart: "
                      << (!limit.empty()     ? limit
                          : !failure.empty() ? failure
                          : !stats.GetRecorder()->GetRunError().empty()
                              ? stats.GetRecorder()->GetRunError()
                              : "the run was recorded as " + recorded)
                      << std::endl;
        }
    }
    if (!stats.GetRecorder()->GetError().empty())
    {
        std::cerr << "training-net-quickstart: --db: " << stats.GetRecorder()->GetError()
                  << std::endl;
    }
    const int signal = stats.GetRecorder()->GetSignal();
    tn_topology_destroy(topo);
    if (!pcapOk)
    {
        std::cerr << "training-net-quickstart: --pcap: " << pcapError << std::endl;
    }
    if (interrupted)
    {
        return tn_signal_exit_status(signal);
    }
    // a signal after the run was recorded: the run keeps its status, the exit says the user
    // interrupted (one line, unless the failure's line is already out)
    options.Recorded(stats.GetRecorder()->GetRunId(), recorded);
    return options.ExitStatus(complete && recorded == "ok" && pcapOk ? 0 : 1);
}
