/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RoCE traffic across MPI ranks, and the same traffic in one process.
//
//   roce-distributed --case=write     NPU 0 writes to NPU 1 over one cable; with 2 ranks each
//                                     NPU is on its own rank, so data frames go one way and
//                                     ACKs the other way through MPI
//   roce-distributed --case=incast    8 NPUs write to a ninth through one switch (PFC on, DCQCN);
//                                     with 2 ranks the senders are on rank 0 and the switch and
//                                     receiver on rank 1, so data, ACKs, CNPs and PFC PAUSE
//                                     frames all cross ranks
//   roce-distributed --case=collective --topology=torus:8x8 --algorithm=multitree
//                                     one all-reduce planned by the C core and run by
//                                     CollectiveHelper; nodes placed by tn_partition_auto (or
//                                     --partition); every transfer's issue time (at its
//                                     sender's rank) and arrival and ready times (at its
//                                     receiver's rank), and the collective's time joined over
//                                     the ranks (DistributedHelper::MergeCollective);
//                                     --timing adds each rank's events and the wall and CPU
//                                     time of Simulator::Run (bench/bench-mpi.sh), --stop=NS a stop
//                                     time (the null-message engine needs one)
//   roce-distributed --case=training --workload=Resnet50_DataParallel.txt --topology=fattree:k=4
//                                     one iteration of a training workload (TrainingJob);
//                                     --slow=8-15 runs those NPUs' clocks 4x slower, so that
//                                     the others reach each collective first and their
//                                     messages reach another rank before its NPUs created the
//                                     collective; every transfer's lines as above, every NPU's
//                                     iteration (at its rank), and per rank the collectives
//                                     created for a message
//
// Run it as `mpirun -np 2 roce-distributed ...` (ns-3 built with --enable-mpi) or alone. Every
// rank prints the messages its own NICs completed or received and the PFC frames and CNPs its
// own devices sent: the sorted union of all ranks' lines is the same for one process and for
// two ranks (test/mpi-test.sh checks it). The program checks what it can alone: every byte
// delivered, no drop on the lossless class, the write's arrival time against its closed form,
// and exits non-zero when one fails.

#include "ns3/core-module.h"
#include "ns3/tn-huge-pages.h"
#include "ns3/training-net-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <time.h>
#include <vector>

using namespace ns3;

namespace
{

const uint64_t RATE = 100000000000ULL; // 100 Gb/s
const uint64_t LATENCY_NS = 1000;

/// CPU time of this thread in s: with other load on the machine, the work a rank did
double
ThreadCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// What this rank saw, as text lines.
struct Log
{
    std::vector<std::string> lines;
    uint64_t bytesReceived{0};
    uint64_t pfcFrames{0};
    Time lastReceived; //!< end of the last message received here

    void Sent(const RdmaMessageRecord& r)
    {
        std::ostringstream s;
        s << "complete src=" << r.src << " dst=" << r.dst << " bytes=" << r.bytes
          << " start=" << r.start.GetNanoSeconds() << " end=" << r.end.GetNanoSeconds()
          << " status=" << unsigned(r.status);
        lines.push_back(s.str());
    }

    void Received(const RdmaMessageRecord& r)
    {
        std::ostringstream s;
        s << "received src=" << r.src << " dst=" << r.dst << " bytes=" << r.bytes
          << " start=" << r.start.GetNanoSeconds() << " end=" << r.end.GetNanoSeconds();
        lines.push_back(s.str());
        bytesReceived += r.bytes;
        lastReceived = r.end;
    }

    void Issued(const CollectiveTransferRecord& r)
    {
        std::ostringstream s;
        s << "issued collective=" << r.collective << " transfer=" << r.transfer
          << " src=" << r.srcNode << " dst=" << r.dstNode << " bytes=" << r.bytes
          << " lane=" << r.lane << " at=" << r.issue.GetNanoSeconds();
        lines.push_back(s.str());
    }

    /// Log the transfers of a collective a training job created.
    void Follow(Ptr<Collective> c)
    {
        c->TraceConnectWithoutContext("TransferIssued", MakeCallback(&Log::Issued, this));
        c->TraceConnectWithoutContext("TransferReady", MakeCallback(&Log::Ready, this));
    }

    void Ready(const CollectiveTransferRecord& r)
    {
        std::ostringstream s;
        s << "ready collective=" << r.collective << " transfer=" << r.transfer
          << " first=" << r.firstByte.GetNanoSeconds() << " last=" << r.lastByte.GetNanoSeconds()
          << " ready=" << r.ready.GetNanoSeconds();
        lines.push_back(s.str());
    }

    void Pfc(std::string where, uint8_t priority, bool pause, uint16_t quanta)
    {
        std::ostringstream s;
        s << "pfc " << where << " t=" << Simulator::Now().GetNanoSeconds()
          << " priority=" << unsigned(priority) << (pause ? " pause" : " resume")
          << " quanta=" << quanta;
        lines.push_back(s.str());
        ++pfcFrames;
    }
};

tn_topology*
MakeTopology(const std::string& which)
{
    tn_topology* t = nullptr;
    tn_error err;
    tn_link_params lp{RATE, LATENCY_NS};
    if (which == "write")
    {
        NS_ABORT_IF(tn_topology_create(&t, &err) != TN_OK);
        NS_ABORT_IF(tn_topology_add_nodes(t, TN_NODE_NPU, 2, nullptr, &err) != TN_OK);
        NS_ABORT_IF(tn_topology_add_link(t, 0, 1, RATE, LATENCY_NS, -1, nullptr, nullptr, &err) !=
                    TN_OK);
    }
    else
    {
        NS_ABORT_IF(tn_topology_switch(9, &lp, &t, &err) != TN_OK);
    }
    return t;
}

/// Where each rank's lines go: stdout, or the file PREFIX.RANK (--out=PREFIX), since the
/// launcher may interleave long outputs of several ranks.
std::string g_out;

void
Emit(const std::string& text)
{
    if (g_out.empty())
    {
        std::cout << text << std::flush;
        return;
    }
    const std::string path = g_out + "." + std::to_string(DistributedHelper::GetRank());
    std::ofstream file(path);
    file << text;
    DistributedHelper::ExitUnlessAll(file.good(), "error: --out: cannot write " + path);
}

/**
 * Puts the nodes on ranks (--partition if given, else what `roce` holds), checks and installs
 * the fabric and fixes its random streams from 0 (the same numbers on every rank: ECN marks,
 * HPCC-PINT's samples); every rank exits with one line when the partition or the fabric is bad.
 */
RoceFabricNodes
InstallOrExit(RoceHelper& roce, const tn_topology* topo, const std::string& partitionText)
{
    if (!partitionText.empty())
    {
        std::vector<uint32_t> partition;
        const std::string bad = RoceHelper::ParsePartition(partitionText,
                                                           tn_topology_node_count(topo),
                                                           DistributedHelper::GetSize(),
                                                           &partition);
        DistributedHelper::ExitUnlessAll(bad.empty(), "error: --partition: " + bad);
        roce.SetPartition(partition);
    }
    const std::string bad = roce.Check(topo);
    DistributedHelper::ExitUnlessAll(bad.empty(), "error: " + bad);
    RoceFabricNodes fabric = roce.Install(topo);
    roce.AssignStreams(0);
    return fabric;
}

/**
 * The collective case: one all-reduce, lines of every transfer this rank sees.
 * \return exit status
 */
int
RunCollective(const std::string& spec,
              const std::string& algorithm,
              const std::string& routing,
              uint64_t bytes,
              const std::string& partitionText,
              bool timing,
              uint64_t stopNs,
              const std::string& db)
{
    const uint32_t ranks = DistributedHelper::GetSize();
    tn_topology* topo = nullptr;
    tn_error err;
    const bool parsed = tn_topology_from_spec(spec.c_str(), &topo, &err) == TN_OK;
    DistributedHelper::ExitUnlessAll(parsed, std::string("error: --topology: ") + err.message);
    RoceHelper roce;
    InstallOrExit(roce, topo, partitionText);
    CollectiveHelper collectives;
    DistributedHelper::ExitUnlessAll(collectives.SetRouting(routing),
                                     "error: --routing: " + routing + ": use planned or ecmp");
    collectives.Install(topo, roce);
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = TN_COLL_ALL_REDUCE;
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    std::string error;
    Ptr<Collective> c = collectives.Create(request, {}, &error);
    DistributedHelper::ExitUnlessAll(c != nullptr, "error: " + error);
    StatsHelper stats;
    if (!db.empty())
    {
        // every rank records its own nodes; rank 0 joins the parts into db at Finish
        stats.SetRecorderAttribute("SampleInterval", TimeValue(MicroSeconds(1)));
        const bool recording =
            stats.Install(db, "roce-distributed", "{}", topo, roce, &error) != nullptr;
        DistributedHelper::ExitUnlessAll(recording, "error: --db: " + error);
    }
    Log log;
    c->TraceConnectWithoutContext("TransferIssued", MakeCallback(&Log::Issued, &log));
    c->TraceConnectWithoutContext("TransferReady", MakeCallback(&Log::Ready, &log));
    collectives.Start(c);
    if (stopNs == 0 && DistributedHelper::GetEngine() == "null")
    {
        // the null-message engine ends a rank's run only at a stop time: its null messages
        // keep every queue busy, and no rank knows when the others are idle
        stopNs = 10 * c->GetEstimatedTime().GetNanoSeconds() + 1000000;
    }
    if (stopNs > 0)
    {
        Simulator::Stop(NanoSeconds(stopNs));
    }
    const auto runStart = std::chrono::steady_clock::now();
    const double cpuStart = ThreadCpuSeconds();
    Simulator::Run();
    const double runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    const double cpuSeconds = ThreadCpuSeconds() - cpuStart;
    const uint64_t events = Simulator::GetEventCount();
    const int64_t lastEvent = Simulator::Now().GetNanoSeconds();
    DistributedHelper::MergeCollective(c);
    const std::string mismatch = c->Check();
    const std::string recorded =
        db.empty() ? "ok"
                   : stats.Finish(c->IsComplete() && mismatch.empty() ? "ok" : "error",
                                  Simulator::Now().GetNanoSeconds(),
                                  mismatch);
    std::sort(log.lines.begin(), log.lines.end());
    std::ostringstream out;
    for (const auto& line : log.lines)
    {
        out << line << "\n";
    }
    if (DistributedHelper::GetRank() == 0)
    {
        out << "collective " << c->GetCollectiveName() << " " << c->GetAlgorithm() << " on " << spec
            << " (" << routing << "): " << c->GetDuration().GetNanoSeconds() << " ns, estimate "
            << c->GetEstimatedTime().GetNanoSeconds() << " ns\n";
    }
    out << "rank " << DistributedHelper::GetRank() << " of " << ranks << ": lookahead "
        << roce.GetLookahead().GetNanoSeconds() << " ns\n";
    if (timing)
    {
        // wall time of Simulator::Run alone: every rank builds the whole fabric, so set-up
        // does not shrink with ranks and is left out of the speed-up (bench/bench-mpi.sh)
        out << "timing rank " << DistributedHelper::GetRank() << " of " << ranks << ": events "
            << events << ", run " << runSeconds << " s, cpu " << cpuSeconds << " s, last event "
            << lastEvent << " ns, collective end "
            << (c->IsComplete() ? c->GetEndTime().GetNanoSeconds() : -1) << " ns\n";
    }
    Emit(out.str());
    Simulator::Destroy();
    tn_topology_destroy(topo);
    DistributedHelper::ExitUnlessAll(recorded != "aborted",
                                     "error: interrupted: the run is "
                                     "recorded as aborted");
    DistributedHelper::ExitUnlessAll(c->IsComplete() && mismatch.empty() && recorded == "ok",
                                     "error: the collective did not complete: " + mismatch);
    DistributedHelper::Disable();
    return 0;
}

/**
 * The training case: one iteration of a workload, lines of every transfer and NPU iteration
 * this rank sees.
 * \return exit status
 */
int
RunTraining(const std::string& spec,
            const std::string& workload,
            const std::string& slowText,
            const std::string& partitionText)
{
    const uint32_t ranks = DistributedHelper::GetSize();
    tn_topology* topo = nullptr;
    tn_error err;
    const bool parsed = tn_topology_from_spec(spec.c_str(), &topo, &err) == TN_OK;
    DistributedHelper::ExitUnlessAll(parsed, std::string("error: --topology: ") + err.message);
    uint32_t slowFirst = 1;
    uint32_t slowLast = 0;
    char rest = 0;
    DistributedHelper::ExitUnlessAll(
        slowText.empty() ||
            std::sscanf(slowText.c_str(), "%u-%u%c", &slowFirst, &slowLast, &rest) == 2,
        "error: --slow: '" + slowText + "' is not FIRST-LAST (NPU ranks)");
    RoceHelper roce;
    InstallOrExit(roce, topo, partitionText);
    CollectiveHelper collectives;
    collectives.SetKeepCollectives(false);
    collectives.Install(topo, roce);
    NpuHelper npus;
    npus.Install(roce.GetFabric().npus);
    for (uint32_t r = slowFirst; r <= slowLast && r < npus.GetEndpoints().size(); r++)
    {
        npus.GetEndpoint(r)->SetAttribute("ClockRate", UintegerValue(250000000));
    }
    TrainingHelper training;
    // the flat ring, whose rows are the same on any number of ranks: auto (the default) may
    // pick MultiTree, whose equal-time events order differently across ranks (issue 42)
    training.SetAlgorithm(TN_COLL_ALL_REDUCE, "ring");
    std::string error;
    Ptr<TrainingJob> job;
    if (training.Load(workload, &error))
    {
        job = training.Install(collectives, npus, 0, &error);
    }
    DistributedHelper::ExitUnlessAll(job != nullptr, "error: --workload: " + error);
    Log log;
    job->TraceConnectWithoutContext("CollectiveCreated", MakeCallback(&Log::Follow, &log));
    job->Start();
    Simulator::Run();
    std::ostringstream out;
    int64_t end = 0;
    for (uint32_t r = 0; r < npus.GetEndpoints().size(); r++)
    {
        for (const TrainingIterationRecord& it : job->GetIterations(r))
        {
            std::ostringstream s;
            s << "iteration npu=" << r << " it=" << it.iteration
              << " start=" << it.start.GetNanoSeconds() << " end=" << it.end.GetNanoSeconds()
              << " compute=" << it.compute.GetNanoSeconds()
              << " exposed=" << it.exposed.GetNanoSeconds();
            log.lines.push_back(s.str());
            end = std::max(end, it.end.GetNanoSeconds());
        }
    }
    end = int64_t(DistributedHelper::MaxAll(double(end)));
    const bool complete = DistributedHelper::AllOf(job->IsComplete());
    const uint64_t held = DistributedHelper::SumAll(job->GetHeldMessages());
    std::sort(log.lines.begin(), log.lines.end());
    for (const auto& line : log.lines)
    {
        out << line << "\n";
    }
    if (DistributedHelper::GetRank() == 0)
    {
        out << "training " << workload.substr(workload.find_last_of('/') + 1) << " on " << spec
            << ": " << end << " ns\n";
    }
    out << "rank " << DistributedHelper::GetRank() << " of " << ranks << ": lookahead "
        << roce.GetLookahead().GetNanoSeconds() << " ns, " << job->GetCollectiveCount()
        << " collectives, " << job->GetCreatedForMessages() << " created for a message\n";
    Emit(out.str());
    Simulator::Destroy();
    tn_topology_destroy(topo);
    DistributedHelper::ExitUnlessAll(complete && held == 0,
                                     "error: the training job did not complete (" +
                                         std::to_string(held) + " messages held)");
    DistributedHelper::Disable();
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    tn_huge_pages_prefer(argv); // a large run's memory in huge pages: may start again
    DistributedHelper::Enable(&argc, &argv);
    std::string which = "write";
    uint64_t bytes = 0;
    std::string partitionText;
    std::string topologySpec = "torus:8x8";
    std::string algorithm = "multitree";
    std::string routing = "planned";
    bool timing = false;
    uint64_t stopNs = 0;
    std::string db;
    std::string workload;
    std::string slow;
    const std::string program = "roce-distributed";
    ProgramOptions options(program, __FILE__);
    options.AddString("case",
                      "write (2 NPUs, one cable), incast (8 to 1 through a switch), "
                      "collective or training",
                      &which);
    options.AddBytes("bytes",
                     "message size (0: 1 MB for write, 2 MB per sender for incast)",
                     &bytes);
    options.AddString("partition",
                      "nodes of each rank, e.g. 0-7;8-9 (default: write one NPU per rank, "
                      "incast senders on rank 0)",
                      &partitionText);
    options.AddString("out", "write each rank's lines to OUT.RANK instead of stdout", &g_out);
    options.AddString("topology", "collective: topology spec", &topologySpec);
    options.AddString("algorithm", "collective: all-reduce algorithm", &algorithm);
    options.AddString("routing", "collective: planned or ecmp", &routing);
    options.AddFlag("timing",
                    "collective: print each rank's events and the wall time of Simulator::Run",
                    &timing);
    options.AddCount("stop",
                     "collective: stop the run at this simulated time in ns (0: none; the "
                     "null-message engine then stops at 10 x the estimate + 1 ms)",
                     uint64_t(0),
                     uint64_t(INT64_MAX),
                     &stopNs);
    options.AddString("workload", "training: an ASTRA-sim workload file", &workload);
    options.AddString("slow", "training: NPU ranks FIRST-LAST whose clocks run 4x slower", &slow);
    options.AddString("db",
                      "collective and incast: record the run into this results database (each "
                      "rank its own nodes, joined by rank 0)",
                      &db);
    DistributedHelper::HoldErrors(); // every rank reads the same options: rank 0 says
    const bool parsed = options.Parse(argc, argv);
    DistributedHelper::ExitUnlessAll(parsed, DistributedHelper::ReleaseErrors(), 2);
    DistributedHelper::ExitUnlessAll(
        which == "write" || which == "incast" || which == "collective" || which == "training",
        ProgramOptions::ErrorLine(program,
                                  "--case: '" + which +
                                      "' is not write, incast, collective or training"),
        2);
    for (const char* name : {"algorithm", "routing", "timing", "stop", "db"})
    {
        // the write and the incast have their own fabric; the incast alone of them records
        DistributedHelper::ExitUnlessAll(which == "collective" || !options.IsGiven(name) ||
                                             (which == "incast" && std::string(name) == "db"),
                                         ProgramOptions::ErrorLine(program,
                                                                   std::string("--") + name +
                                                                       ": only --case=collective "
                                                                       "takes it, not --case=" +
                                                                       which),
                                         2);
    }
    for (const char* name : {"workload", "slow"})
    {
        DistributedHelper::ExitUnlessAll(which == "training" || !options.IsGiven(name),
                                         ProgramOptions::ErrorLine(program,
                                                                   std::string("--") + name +
                                                                       ": only --case=training "
                                                                       "takes it, not --case=" +
                                                                       which),
                                         2);
    }
    DistributedHelper::ExitUnlessAll(
        (which == "collective" || which == "training") || !options.IsGiven("topology"),
        ProgramOptions::ErrorLine(program,
                                  "--topology: only --case=collective and --case=training take "
                                  "it, not --case=" +
                                      which),
        2);
    DistributedHelper::ExitUnlessAll(
        which != "training" || !workload.empty(),
        ProgramOptions::ErrorLine(program, "--case=training needs --workload"),
        2);
    DistributedHelper::ExitUnlessAll(!options.IsGiven("db") || !db.empty(),
                                     ProgramOptions::ErrorLine(program, "--db: an empty path"),
                                     2);
    const uint32_t ranks = DistributedHelper::GetSize();
    const uint32_t me = DistributedHelper::GetRank();
    const bool incast = which == "incast";
    if (bytes == 0)
    {
        bytes = incast ? 2000000 : 1000000;
    }
    if (which == "training")
    {
        return RunTraining(options.IsGiven("topology") ? topologySpec : "fattree:k=4",
                           workload,
                           slow,
                           partitionText);
    }
    if (which == "collective")
    {
        return RunCollective(topologySpec,
                             algorithm,
                             routing,
                             bytes,
                             partitionText,
                             timing,
                             stopNs,
                             db);
    }

    RngSeedManager::SetSeed(3);
    Config::SetDefault("ns3::RoceSwitchMmu::BufferSize", UintegerValue(1000000));
    // marks well below the PFC threshold of a 1 MB buffer, so DCQCN and PFC both act
    Config::SetDefault("ns3::RoceSwitchMmu::EcnEnabled", BooleanValue(incast));
    Config::SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(5000));
    Config::SetDefault("ns3::RoceSwitchMmu::EcnKmax", UintegerValue(20000));
    tn_topology* topo = MakeTopology(which);
    RoceHelper roce;
    if (partitionText.empty() && ranks == 2)
    {
        // write: one NPU per rank; incast: the senders on rank 0, switch and receiver on 1
        std::vector<uint32_t> partition(tn_topology_node_count(topo), 1);
        for (uint32_t v = 0; v < (incast ? 8u : 1u); ++v)
        {
            partition[v] = 0;
        }
        roce.SetPartition(partition);
    }
    RoceFabricNodes fabric = InstallOrExit(roce, topo, partitionText);
    StatsHelper stats;
    if (!db.empty())
    {
        // a tick every 1,013 ns: ticks meet frames of the same instant, whose order must not
        // depend on the ranks (RoceFrameScheduler)
        stats.SetRecorderAttribute("SampleInterval", TimeValue(NanoSeconds(1013)));
        std::string error;
        const bool recording =
            stats.Install(db, "roce-distributed", "{}", topo, roce, &error) != nullptr;
        DistributedHelper::ExitUnlessAll(recording, "error: --db: " + error);
    }

    Log log;
    const uint32_t npus = tn_topology_npu_count(topo);
    const uint32_t receiver = npus - 1;
    for (uint32_t d = 0; d < fabric.devices.GetN(); ++d)
    {
        Ptr<NetDevice> dev = fabric.devices.Get(d);
        if (!roce.IsLocal(dev->GetNode()->GetId()))
        {
            continue;
        }
        std::ostringstream where;
        where << "node=" << dev->GetNode()->GetId() << " if=" << dev->GetIfIndex();
        dev->TraceConnectWithoutContext("PfcTx", MakeCallback(&Log::Pfc, &log).Bind(where.str()));
    }
    if (roce.GetNic(receiver))
    {
        roce.GetNic(receiver)->TraceConnectWithoutContext("MessageReceived",
                                                          MakeCallback(&Log::Received, &log));
    }
    for (uint32_t s = 0; s < receiver; ++s)
    {
        if (roce.GetNic(s))
        {
            // posted from an event in the sender's context (the null-message engine sets up
            // its links to other ranks when the run starts); the senders start 7 ns apart, so
            // that no two frames reach the switch at the same instant: events of equal time
            // run in the order they were scheduled, which differs when one comes from
            // another rank
            Simulator::ScheduleWithContext(fabric.npus.Get(s)->GetId(),
                                           NanoSeconds(7 * s),
                                           &RdmaNic::PostWrite,
                                           roce.GetNic(s),
                                           receiver,
                                           bytes,
                                           uint8_t(3),
                                           MakeCallback(&Log::Sent, &log));
        }
    }
    // recorded: the samplers tick until the stop, so it comes at 4 x the receiver's bytes at
    // the line rate (every message is long done; the checks below see it) instead of 1 s
    const double received = double(bytes) * receiver * 8.0 / RATE;
    Simulator::Stop(db.empty() ? Seconds(1) : Seconds(std::max(4 * received, 1e-3)));
    Simulator::Run();

    uint64_t drops = 0;
    uint64_t cnpsSent = 0;
    for (uint32_t v = 0; v < fabric.nodes.GetN(); ++v)
    {
        Ptr<RoceSwitch> sw = fabric.nodes.Get(v)->GetObject<RoceSwitch>();
        if (roce.IsLocal(v) && sw)
        {
            drops += sw->GetDrops();
        }
    }
    for (uint32_t r = 0; r < npus; ++r)
    {
        if (roce.GetNic(r))
        {
            cnpsSent += roce.GetNic(r)->GetCnpsSent();
            std::ostringstream s;
            s << "nic " << r << " cnps_sent=" << roce.GetNic(r)->GetCnpsSent()
              << " cnps_received=" << roce.GetNic(r)->GetCnpsReceived()
              << " retransmitted=" << roce.GetNic(r)->GetRetransmittedBytes();
            log.lines.push_back(s.str());
        }
    }

    // checks over all ranks
    const uint64_t delivered = DistributedHelper::SumAll(log.bytesReceived);
    const uint64_t allDrops = DistributedHelper::SumAll(drops);
    const uint64_t allPfc = DistributedHelper::SumAll(log.pfcFrames);
    const uint64_t allCnps = DistributedHelper::SumAll(cnpsSent);
    std::string failure;
    if (delivered != bytes * receiver)
    {
        failure = "delivered " + std::to_string(delivered) + " bytes, posted " +
                  std::to_string(bytes * receiver);
    }
    else if (allDrops != 0)
    {
        failure = std::to_string(allDrops) + " drops on the lossless class";
    }
    else if (incast && (allPfc == 0 || allCnps == 0))
    {
        failure = "the incast sent no PFC frame or no CNP";
    }
    if (!incast && roce.GetNic(receiver) && failure.empty())
    {
        // the receiver's last byte: every frame back to back at the line rate, one latency
        const uint32_t mtu = roce.GetNic(receiver)->GetMtu();
        const uint64_t packets = (bytes + mtu - 1) / mtu;
        const double wire = (bytes + packets * RdmaNic::DATA_WIRE_OVERHEAD + RdmaNic::RETH_BYTES) *
                            8.0 / RATE * 1e9;
        const int64_t end = log.lastReceived.GetNanoSeconds();
        if (std::fabs(end - (wire + LATENCY_NS)) > 2)
        {
            failure = "the last byte arrived at " + std::to_string(end) + " ns; closed form " +
                      std::to_string(wire + LATENCY_NS) + " ns";
        }
    }

    const std::string recorded = db.empty() ? "ok"
                                            : stats.Finish(failure.empty() ? "ok" : "error",
                                                           Simulator::Now().GetNanoSeconds(),
                                                           failure);
    if (failure.empty() && recorded != "ok")
    {
        failure = "the run is recorded as " + recorded;
    }

    std::sort(log.lines.begin(), log.lines.end());
    std::ostringstream out;
    for (const auto& line : log.lines)
    {
        out << line << "\n";
    }
    out << "rank " << me << " of " << ranks << ": lookahead "
        << roce.GetLookahead().GetNanoSeconds() << " ns\n";
    Emit(out.str());
    tn_topology_destroy(topo);
    Simulator::Destroy();
    DistributedHelper::ExitUnlessAll(failure.empty(), "error: " + failure);
    DistributedHelper::Disable();
    return 0;
}
