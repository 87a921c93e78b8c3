/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Recording benchmark: the cost of the results database on one scenario.
 *
 *   bench-stats [--topology=torus:8x8] [--algorithm=multitree] [--bytes=4MiB,16MiB]
 *               [--repeat=3] [--interval=10us] [--db=FILE]
 *
 * For each size of --bytes, runs the same all-reduce `repeat` times without recording and
 * `repeat` times recorded by StatsHelper (every table, port samples at --interval, the default
 * of StatsRecorder::SampleInterval), alternating, and prints the best wall time of each, the
 * rows written and the ratio recorded / bare. The goal: ratio <= 1.10 at the default
 * sampling interval. Two sizes, because opening, checking and closing the database cost about
 * the same in any run: at 4 MiB (a 0.2 s simulation) they weigh more than at 16 MiB.
 *
 * The recorder writes its batches on a thread of their own (StatsRecorder::WriterThread), so
 * the wall time hides SQLite's work when a second core is free. The benchmark therefore also
 * prints the CPU time of all threads, and the wall time of the same recorded run with the
 * writer thread off: what recording costs on one core.
 */
#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/command-line.h"
#include "ns3/nstime.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-db.h"
#include "ns3/tn-topology.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <sqlite3.h>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/** CPU seconds of the process: every thread, the writer thread included. */
double
ProcessCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/** Wall and CPU seconds of a run. */
struct Cost
{
    double wall{1e300}; //!< set-up, simulation and recording
    double cpu{1e300};  //!< of all threads

    /** Keep the best of each. \param other another run */
    void Best(const Cost& other)
    {
        wall = std::min(wall, other.wall);
        cpu = std::min(cpu, other.cpu);
    }
};

/** One run; returns its costs. */
Cost
RunOnce(const tn_topology* topo,
        const std::string& algorithm,
        uint64_t bytes,
        const std::string& db,
        Time interval,
        bool writerThread,
        int64_t* simulatedNs)
{
    const double cpuStart = ProcessCpuSeconds();
    auto start = std::chrono::steady_clock::now();
    RoceHelper roce;
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    StatsHelper stats;
    if (!db.empty())
    {
        stats.SetRecorderAttribute("SampleInterval", TimeValue(interval));
        stats.SetRecorderAttribute("WriterThread", BooleanValue(writerThread));
        std::string error;
        if (!stats.Install(db, "bench-stats", "{}", topo, roce, &error))
        {
            std::fprintf(stderr, "bench-stats: %s\n", error.c_str());
            exit(1);
        }
    }
    Ptr<Collective> c = collectives.AllReduce(bytes, algorithm);
    Simulator::Run();
    *simulatedNs = c->GetDuration().GetNanoSeconds();
    if (!db.empty())
    {
        stats.Finish(c->IsComplete() ? "ok" : "error", *simulatedNs);
    }
    Simulator::Destroy();
    Cost cost;
    cost.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cost.cpu = ProcessCpuSeconds() - cpuStart;
    return cost;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string spec = "torus:8x8";
    std::string algorithm = "multitree";
    std::string bytesList = "4MiB,16MiB";
    uint32_t repeat = 5;
    Time interval = MicroSeconds(10);
    std::string db = "bench-stats.db";
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology spec", spec);
    cmd.AddValue("algorithm", "all-reduce algorithm", algorithm);
    cmd.AddValue("bytes", "all-reduce sizes, comma-separated", bytesList);
    cmd.AddValue("repeat", "runs of each kind (best wall time counts)", repeat);
    cmd.AddValue("interval", "port sampling interval", interval);
    cmd.AddValue("db", "scratch database (removed first)", db);
    cmd.Parse(argc, argv);

    tn_error err{};
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "bench-stats: --topology: %s\n", err.message);
        return 2;
    }
    std::stringstream sizes(bytesList);
    std::string bytesText;
    while (std::getline(sizes, bytesText, ','))
    {
        uint64_t bytes = 0;
        if (tn_units_parse_bytes(bytesText.c_str(), SIZE_MAX, "--bytes", &bytes, &err) != TN_OK)
        {
            std::fprintf(stderr, "bench-stats: %s\n", err.message);
            tn_topology_destroy(topo);
            return 2;
        }
        for (const char* suffix : {"", "-wal", "-shm"})
        {
            std::remove((db + suffix).c_str());
        }
        Cost bare;
        Cost recorded;
        Cost oneThread;
        int64_t simulatedNs = 0;
        for (uint32_t i = 0; i < std::max(repeat, 1u); ++i)
        {
            bare.Best(RunOnce(topo, algorithm, bytes, "", interval, true, &simulatedNs));
            recorded.Best(RunOnce(topo, algorithm, bytes, db, interval, true, &simulatedNs));
            oneThread.Best(RunOnce(topo, algorithm, bytes, db, interval, false, &simulatedNs));
        }
        sqlite3* sql = nullptr;
        long long samples = 0;
        long long rows = 0;
        if (sqlite3_open(db.c_str(), &sql) == SQLITE_OK)
        {
            sqlite3_stmt* stmt = nullptr;
            const char* q = "SELECT (SELECT count(*) FROM port_sample WHERE run_id = 1),"
                            " (SELECT count(*) FROM port_sample WHERE run_id = 1)"
                            " + (SELECT count(*) FROM flow WHERE run_id = 1)"
                            " + (SELECT count(*) FROM transfer WHERE run_id = 1)"
                            " + (SELECT count(*) FROM pfc_event WHERE run_id = 1)";
            if (sqlite3_prepare_v2(sql, q, -1, &stmt, nullptr) == SQLITE_OK &&
                sqlite3_step(stmt) == SQLITE_ROW)
            {
                samples = sqlite3_column_int64(stmt, 0);
                rows = sqlite3_column_int64(stmt, 1);
            }
            sqlite3_finalize(stmt);
        }
        sqlite3_close(sql);
        std::printf("all-reduce %s of %llu bytes on %s: %.1f us simulated\n",
                    algorithm.c_str(),
                    static_cast<unsigned long long>(bytes),
                    spec.c_str(),
                    simulatedNs / 1e3);
        std::printf("  bare      %.3f s wall, %.3f s CPU (best of %u)\n",
                    bare.wall,
                    bare.cpu,
                    repeat);
        std::printf("  recorded  %.3f s wall, %.3f s CPU (best of %u), sampling every %s: %lld "
                    "port samples, %lld rows per run\n",
                    recorded.wall,
                    recorded.cpu,
                    repeat,
                    std::to_string(interval.GetNanoSeconds()).append(" ns").c_str(),
                    samples,
                    rows);
        std::printf(
            "  recorded on the simulation's thread alone (WriterThread false): %.3f s wall\n",
            oneThread.wall);
        std::printf("recording overhead ratio %.3f (goal <= 1.10); CPU of all threads %.3f; "
                    "one thread %.3f\n",
                    recorded.wall / bare.wall,
                    recorded.cpu / bare.cpu,
                    oneThread.wall / bare.wall);
    }
    tn_topology_destroy(topo);
    return 0;
}
