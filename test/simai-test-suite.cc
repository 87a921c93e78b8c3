/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * SimAI / AICB workload files (tn-simai.h) run by a training job at flow level: every TP, DP
 * and PP collective the run creates has the size and the group the file gives, as many of
 * them as the groups and micro-batches make, and a file for another number of NPUs is
 * refused naming all_gpus.
 */
#include "tn-test-data.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/scenario-config.h"
#include "ns3/scenario-runner.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/training-helper.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sqlite3.h>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

namespace
{

/** What a collective is: what it serves, its operation, size and number of ranks. */
using Kind = std::tuple<std::string, int, uint64_t, uint32_t>;

/**
 * test/data/simai/pipeline.txt (tp 2, pp 2, dp 2, ga 2, pp_comm 4096) on 8 NPUs: per TP
 * group (4 of them) and micro-batch the attn all-reduce (1000 B, fwd), all-gather (2000 B,
 * ig) and the mlp reduce-scatter (1500 B, fwd); per DP group (T * P = 4) the mlp's wg
 * all-reduce (5000 B) once; per pipeline (T * D = 4) and micro-batch an activation and a
 * gradient, each a broadcast of pp_comm bytes from sender to receiver.
 */
class SimaiSizesTestCase : public TnDataTestCase
{
  public:
    SimaiSizesTestCase()
        : TnDataTestCase("a SimAI workload's collectives have the file's sizes at flow level")
    {
    }

  private:
    std::map<Kind, uint32_t> m_seen;

    void Created(Ptr<Collective> c)
    {
        m_seen[Kind(c->GetParallelism(), int(c->GetOperation()), c->GetBytes(), c->GetRanks())]++;
    }

    /** Run pipeline.txt on switch:8 at flow level; rank 0's first iteration. */
    TrainingIterationRecord Run(bool network)
    {
        TrainingIterationRecord out;
        tn_error err;
        tn_topology* topo = nullptr;
        tn_topology_from_spec("switch:8", &topo, &err);
        RoceHelper roce;
        roce.SetMode("flow");
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        NpuHelper npus;
        npus.Install(roce.GetFabric().npus);
        TrainingHelper training;
        training.SetJobAttribute("Network", BooleanValue(network));
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(training.LoadSimai(DataFile("simai/pipeline.txt"), &error),
                              true,
                              error);
        Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &error);
        NS_TEST_EXPECT_MSG_NE(job, nullptr, error);
        if (job)
        {
            job->TraceConnectWithoutContext("CollectiveCreated",
                                            MakeCallback(&SimaiSizesTestCase::Created, this));
            job->Start();
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(job->IsComplete(), true, "the iteration completes");
            if (!job->GetIterations(0).empty())
            {
                out = job->GetIterations(0)[0];
            }
        }
        Simulator::Destroy();
        tn_topology_destroy(topo);
        return out;
    }

    void DoRun() override
    {
        const TrainingIterationRecord it = Run(true);
        const uint32_t ga = 2;
        const std::map<Kind, uint32_t> want = {
            {Kind("tp", TN_COLL_ALL_REDUCE, 1000, 2), 4 * ga},
            {Kind("tp", TN_COLL_ALL_GATHER, 2000, 2), 4 * ga},
            {Kind("tp", TN_COLL_REDUCE_SCATTER, 1500, 2), 4 * ga},
            {Kind("dp", TN_COLL_ALL_REDUCE, 5000, 2), 4},
            {Kind("pp", TN_COLL_BROADCAST, 4096, 2), 4 * ga * 2},
        };
        for (const auto& [kind, n] : want)
        {
            NS_TEST_EXPECT_MSG_EQ(m_seen[kind],
                                  n,
                                  std::get<0>(kind)
                                      << " " << tn_collective_name(tn_collective(std::get<1>(kind)))
                                      << " of " << std::get<2>(kind) << " B");
        }
        NS_TEST_EXPECT_MSG_EQ(m_seen.size(), want.size(), "no other collective");
        NS_TEST_EXPECT_MSG_EQ(it.split, true, "the program tags its nodes");
        NS_TEST_EXPECT_MSG_GT(it.exposedBy[TN_SERVES_PP] + it.bubble, Time(0), "PP waits");
        // with the network off, rank 0's (stage 0) compute is the file's: per micro-batch
        // the fwd, ig and wg columns (1000 + 1500 + 2000 + 3000 + 2000 + 3000 ns) and the
        // update (10 ns) once; with it on the NPU's reductions may stretch the kernels
        NS_TEST_EXPECT_MSG_EQ(Run(false).compute, NanoSeconds(ga * 12500 + 10), "compute");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(it.compute, NanoSeconds(ga * 12500 + 10), "compute");

        tn_error err;
        tn_topology* topo = nullptr;
        std::string error;
        Ptr<TrainingJob> job;
        // all_gpus 8 on 4 NPUs
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("switch:4", &topo, &err), TN_OK, "topology");
        RoceHelper roce4;
        roce4.SetMode("flow");
        roce4.Install(topo);
        CollectiveHelper collectives4;
        collectives4.Install(topo, roce4);
        NpuHelper npus4;
        npus4.Install(roce4.GetFabric().npus);
        TrainingHelper training4;
        training4.LoadSimai(DataFile("simai/pipeline.txt"), &error);
        job = training4.Install(collectives4, npus4, 0, &error);
        NS_TEST_EXPECT_MSG_EQ(job, nullptr, "refused");
        NS_TEST_EXPECT_MSG_NE(error.find("pipeline.txt:1: 'all_gpus:' 8 does not match the "
                                         "topology's 4 NPUs"),
                              std::string::npos,
                              error);
        Simulator::Destroy();
        tn_topology_destroy(topo);
    }
};

/**
 * [training] simai = FILE: the point runs (one iteration row per NPU), and a file for another
 * number of NPUs, or simai beside workload, is refused naming the key.
 */
class SimaiScenarioTestCase : public TnDataTestCase
{
  public:
    SimaiScenarioTestCase()
        : TnDataTestCase("[training] simai runs, and is refused naming the key")
    {
    }

  private:
    static std::vector<ScenarioPoint> Points(const std::string& text, std::string* error)
    {
        ScenarioConfig config;
        std::vector<ScenarioPoint> points;
        if (!config.LoadText(text, "s.toml", error) || !config.Expand(&points, error))
        {
            points.clear();
        }
        return points;
    }

    void DoRun() override
    {
        const std::string file = DataFile("simai/pipeline.txt");
        const std::string head = "mode = \"flow\"\n[topology]\nspec = \"switch:8\"\n[training]\n";
        const std::string path = CreateTempDirFilename("simai.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        std::string error;
        std::vector<ScenarioPoint> points = Points(head + "simai = \"" + file + "\"\n", &error);
        NS_TEST_ASSERT_MSG_EQ(points.size(), 1, error);
        ScenarioRunner runner;
        ScenarioResult r = runner.Run(points[0], db);
        NS_TEST_EXPECT_MSG_EQ(r.status, "ok", r.error);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(static_cast<sqlite3*>(tn_db_handle(db)),
                           "SELECT count(*) FROM iteration WHERE run_id = ?1 AND end_ns IS NOT "
                           "NULL",
                           -1,
                           &st,
                           nullptr);
        sqlite3_bind_int64(st, 1, r.runId);
        const int rows = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
        sqlite3_finalize(st);
        NS_TEST_EXPECT_MSG_EQ(rows, 8, "one iteration row per NPU");
        tn_db_close(db);

        Points("[topology]\nspec = \"switch:4\"\n[training]\nsimai = \"" + file + "\"\n", &error);
        NS_TEST_EXPECT_MSG_NE(error.find("s.toml:4:9: training.simai: " + file +
                                         ":1: 'all_gpus:' 8 does not match the topology's 4 NPUs"),
                              std::string::npos,
                              error);
        Points(head + "workload = \"w.txt\"\nsimai = \"" + file + "\"\n", &error);
        NS_TEST_EXPECT_MSG_NE(error.find("s.toml:6:9: training.simai: give workload, chakra or "
                                         "simai, one of them"),
                              std::string::npos,
                              error);
    }
};

/**
 * A SimAI topology file (test/data/simai/topo-2x2.txt: 2 servers of 2 H100, one NVSwitch
 * each at 2400 Gb/s, rail switches at 100 Gb/s) runs megatron-gpt-small.txt at packet and
 * flow level: its 9 TP collectives per server (fwd and ig, 65536 B) stay on the NVSwitches,
 * each far faster than over a 100 Gb/s rail, and the two levels agree.
 */
class SimaiTopologyTestCase : public TnDataTestCase
{
  public:
    SimaiTopologyTestCase()
        : TnDataTestCase("a SimAI topology file runs at packet and flow level")
    {
    }

  private:
    std::vector<Ptr<Collective>> m_tp; //!< the TP collectives of the run

    void Created(Ptr<Collective> c)
    {
        if (c->GetParallelism() == "tp")
        {
            m_tp.push_back(c);
        }
    }

    /** The longest TP collective of the last run. */
    Time LongestTp()
    {
        Time t(0);
        for (const Ptr<Collective>& c : m_tp)
        {
            t = std::max(t, c->GetDuration());
        }
        m_tp.clear();
        return t;
    }

    Time Run(const std::string& mode, Time* tp)
    {
        tn_error err;
        tn_topology* topo = nullptr;
        NS_TEST_EXPECT_MSG_EQ(
            tn_topology_load_file(DataFile("simai/topo-2x2.txt").c_str(), &topo, &err),
            TN_OK,
            err.message);
        if (!topo)
        {
            return Time(0);
        }
        RoceHelper roce;
        roce.SetMode(mode);
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        NpuHelper npus;
        npus.Install(roce.GetFabric().npus);
        TrainingHelper training;
        std::string error;
        training.LoadSimai(DataFile("simai/megatron-gpt-small.txt"), &error);
        Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &error);
        NS_TEST_EXPECT_MSG_NE(job, nullptr, error);
        Time t(0);
        if (job)
        {
            job->TraceConnectWithoutContext("CollectiveCreated",
                                            MakeCallback(&SimaiTopologyTestCase::Created, this));
            job->Start();
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(job->IsComplete(), true, mode << ": the iteration completes");
            NS_TEST_EXPECT_MSG_EQ(m_tp.size(), 9 * 2, mode << ": 9 TP collectives per server");
            *tp = LongestTp();
            const auto& log = job->GetIterations(0);
            t = log.empty() ? Time(0) : log[0].end - log[0].start;
        }
        Simulator::Destroy();
        tn_topology_destroy(topo);
        return t;
    }

    void DoRun() override
    {
        Time tpPacket;
        Time tpFlow;
        const Time packet = Run("packet", &tpPacket);
        const Time flow = Run("flow", &tpFlow);
        NS_TEST_EXPECT_MSG_GT(packet, Time(0), "packet ran");
        NS_TEST_EXPECT_MSG_GT(flow, Time(0), "flow ran");
        NS_TEST_EXPECT_MSG_EQ_TOL(flow.GetSeconds(),
                                  packet.GetSeconds(),
                                  0.25 * packet.GetSeconds(),
                                  "flow and packet level agree");
        // a TP collective of 65536 B on 2 ranks sends 32 KiB per rank: 0.1 us on the
        // 2400 Gb/s NVSwitch, 2.6 us on a 100 Gb/s rail
        const Time overRail = Seconds(32768 * 8 / 100e9);
        NS_TEST_EXPECT_MSG_GT(tpPacket, Time(0), "TP collectives ran");
        NS_TEST_EXPECT_MSG_LT(tpPacket, overRail / 2, "packet: TP stays on the NVSwitches");
        NS_TEST_EXPECT_MSG_LT(tpFlow, overRail / 2, "flow: TP stays on the NVSwitches");
    }
};

/**
 * \ingroup training-net-tests
 * SimAI workload files run as they are.
 */
class SimaiTestSuite : public TestSuite
{
  public:
    SimaiTestSuite()
        : TestSuite("training-net-simai", UNIT)
    {
        AddTestCase(new SimaiSizesTestCase, TestCase::QUICK);
        AddTestCase(new SimaiScenarioTestCase, TestCase::QUICK);
        AddTestCase(new SimaiTopologyTestCase, TestCase::QUICK);
    }
};

static SimaiTestSuite g_simaiTestSuite;

} // namespace

} // namespace ns3
