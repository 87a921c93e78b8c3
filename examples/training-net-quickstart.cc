/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-net quickstart: the program `make run` runs.
 *
 * One collective, end to end: the C core builds a topology, plans the
 * collective with the chosen algorithm, proves the schedule correct with the
 * verifier and estimates its time with the alpha-beta cost model; the ns-3
 * layer builds the RoCE fabric of that topology (devices, PFC, switches,
 * RDMA NICs with DCQCN) and runs the schedule: every transfer becomes an RDMA
 * WRITE posted when the transfers it depends on have completed. The run is
 * recorded in the results database (results.db by default):
 *   sqlite3 results.db 'SELECT run_id, name, status, simulated_ns, params_json FROM run'
 *
 *   training-net-quickstart --topology=torus:4x4 --algorithm=multitree --bytes=4194304
 *
 * The dependency-driven executor below is deliberately small: the NPU layer
 * (model/npu) will own collective execution, with compute and memory models.
 */
#include "ns3/command-line.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-db.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"
#include "ns3/tn-version.h"

#include <chrono>
#include <iostream>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/** Fails the program with the core's message. */
void
Check(tn_status status, const tn_error& err, const char* what)
{
    if (status != TN_OK)
    {
        std::cerr << "training-net-quickstart: " << what << ": " << err.message << std::endl;
        exit(1);
    }
}

/** Posts each transfer of a schedule as an RDMA WRITE once its deps completed. */
class ScheduleRunner
{
  public:
    ScheduleRunner(const tn_schedule* schedule, const tn_topology* topo, RoceHelper& roce)
        : m_schedule(schedule),
          m_topo(topo),
          m_roce(roce)
    {
        uint32_t count = tn_schedule_count(schedule);
        m_pendingDeps.resize(count);
        for (uint32_t id = 0; id < count; id++)
        {
            tn_schedule_deps(schedule, id, &m_pendingDeps[id]);
        }
    }

    void Start()
    {
        for (uint32_t id = 0; id < m_pendingDeps.size(); id++)
        {
            if (m_pendingDeps[id] == 0)
            {
                Post(id);
            }
        }
    }

    uint32_t Completed() const
    {
        return m_completed;
    }

    Time LastCompletion() const
    {
        return m_last;
    }

  private:
    void Post(uint32_t id)
    {
        const tn_transfer* transfer = tn_schedule_transfer(m_schedule, id);
        uint32_t dstNode = tn_topology_npu_node(m_topo, transfer->dst);
        m_roce.GetNic(transfer->src)
            ->PostWrite(dstNode,
                        transfer->length,
                        3, // the lossless priority (RoceNetDevice PfcEnableMask default)
                        MakeCallback(&ScheduleRunner::Done, this).Bind(id));
    }

    void Done(uint32_t id, const RdmaMessageRecord& record)
    {
        m_completed++;
        m_last = record.end;
        uint32_t count = 0;
        const uint32_t* successors = tn_schedule_succs(m_schedule, id, &count);
        for (uint32_t i = 0; i < count; i++)
        {
            if (--m_pendingDeps[successors[i]] == 0)
            {
                Post(successors[i]);
            }
        }
    }

    const tn_schedule* m_schedule;
    const tn_topology* m_topo;
    RoceHelper& m_roce;
    std::vector<uint32_t> m_pendingDeps;
    uint32_t m_completed{0};
    Time m_last;
};

} // namespace

int
main(int argc, char* argv[])
{
    std::string dbPath = "results.db";
    std::string topologySpec = "switch:8,rate=100Gbps,latency=1us";
    std::string collectiveName = "all-reduce";
    std::string algorithm = "ring";
    uint64_t bytes = 8 << 20;
    uint32_t chunks = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("db", "results database (SQLite) to append this run to", dbPath);
    cmd.AddValue("topology", "topology spec (see tn-topology.h), e.g. torus:4x4", topologySpec);
    cmd.AddValue("collective",
                 "all-reduce, reduce-scatter, all-gather, all-to-all, ...",
                 collectiveName);
    cmd.AddValue("algorithm",
                 "planning algorithm: ring, direct, rhd, dbt, multitree, ...",
                 algorithm);
    cmd.AddValue("bytes", "collective size in bytes (per rank, see tn-schedule.h)", bytes);
    cmd.AddValue("chunks", "chunks the collective is split into", chunks);
    cmd.Parse(argc, argv);

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
    tn_schedule* schedule = nullptr;
    Check(tn_plan(topo, &request, &schedule, &err), err, "planning");
    Check(tn_verify(schedule, &err), err, "verifying the schedule");

    tn_routes* routes = nullptr;
    Check(tn_routes_create(topo, nullptr, &routes, &err), err, "routing");
    tn_cost_result* estimate = nullptr;
    Check(tn_cost_estimate(schedule, topo, routes, nullptr, &estimate, &err), err, "cost model");

    tn_db* db = nullptr;
    Check(tn_db_open(dbPath.c_str(), &db, &err), err, "--db");
    std::ostringstream params;
    params << "{\"topology\":\"" << topologySpec << "\",\"collective\":\""
           << tn_collective_name(request.collective) << "\",\"algorithm\":\"" << algorithm
           << "\",\"bytes\":" << bytes << ",\"chunks\":" << chunks << "}";
    std::string paramsText = params.str();
    tn_run_info info{"training-net-quickstart",
                     paramsText.c_str(),
                     RngSeedManager::GetSeed(),
                     RngSeedManager::GetRun(),
                     TN_NS3_VERSION,
                     TN_VERSION};
    int64_t runId = 0;
    Check(tn_db_run_begin(db, &info, &runId, &err), err, "recording the run");

    auto wallStart = std::chrono::steady_clock::now();
    RoceHelper roce;
    roce.Install(topo);
    ScheduleRunner runner(schedule, topo, roce);
    Simulator::ScheduleNow(&ScheduleRunner::Start, &runner);
    Simulator::Run();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    uint32_t transfers = tn_schedule_count(schedule);
    bool complete = runner.Completed() == transfers;
    uint64_t simulatedNs = runner.LastCompletion().GetNanoSeconds();
    Simulator::Destroy();

    uint32_t ranks = tn_schedule_ranks(schedule);
    std::cout << tn_collective_name(request.collective) << " of " << bytes << " bytes on "
              << topologySpec << " (" << ranks << " NPUs) with " << algorithm << ": " << transfers
              << " transfers in " << tn_schedule_steps(schedule) << " steps, verified\n"
              << "  simulated " << simulatedNs / 1e3 << " us (cost model "
              << estimate->time_ns / 1e3 << " us), busbw "
              << tn_busbw(request.collective, ranks, bytes, double(simulatedNs)) / 1e9
              << " GB/s, wall " << wall << " s\n";
    if (!complete)
    {
        std::cerr << "training-net-quickstart: only " << runner.Completed() << " of " << transfers
                  << " transfers completed" << std::endl;
    }
    Check(tn_db_run_finish(db, runId, complete ? "ok" : "error", wall, simulatedNs, &err),
          err,
          "recording the run");
    std::cout << "run " << runId << " recorded in " << dbPath << std::endl;

    tn_db_close(db);
    tn_cost_result_destroy(estimate);
    tn_routes_destroy(routes);
    tn_schedule_destroy(schedule);
    tn_topology_destroy(topo);
    return complete ? 0 : 1;
}
