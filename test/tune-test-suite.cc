/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Algorithm "auto" in the CollectiveService (tn-tune.h), at packet level:
 *  - a small matrix (torus:4x4, fattree:k=4, switch:16 x 32 KiB, 256 KiB, 2 MiB all-reduce):
 *    auto runs, then every other algorithm the tuner ranks there; auto's measured time is
 *    within 5% of the best measured in its cell and at most 5% above ring (the issue's
 *    acceptance), every collective ends with its postcondition checked (Collective::Check);
 *    the choice and runner-up are the C core's ranking with the service's cost options, and
 *    the collective rows record them (requested_algorithm 'auto', choice_estimated_ns equal to
 *    estimated_ns, runner_up and its estimate), a named algorithm's row has requested_algorithm
 *    its name and no runner-up;
 *  - the decision cache: one ranking per (operation, group, size bucket), the bucket rule
 *    floor(log2(bytes));
 *  - an unknown name is refused naming it; a group without the topology is ranked too.
 */
#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <map>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// One packet-level all-reduce, recorded into db.
struct Measured
{
    double us{-1};         //!< simulated time, -1 if it did not complete
    std::string check;     //!< Collective::Check()
    std::string algorithm; //!< the plan's algorithm
    Collective::Tuning tuning;
    int64_t estimatedNs{0};
};

Measured
RunOne(const tn_topology* topo, const std::string& algorithm, uint64_t bytes, const std::string& db)
{
    Measured m;
    RoceHelper roce;
    roce.Install(topo);
    CollectiveHelper helper;
    helper.Install(topo, roce);
    StatsHelper stats;
    std::string error;
    if (!stats.Install(db, "auto-test", "{}", topo, roce, &error))
    {
        m.check = "database: " + error;
        Simulator::Destroy();
        return m;
    }
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    Ptr<Collective> c = helper.Create(request, {}, &error);
    if (!c)
    {
        m.check = error;
        stats.Finish("error", 0, error);
        Simulator::Destroy();
        return m;
    }
    helper.Start(c);
    Simulator::Run();
    m.check = c->Check();
    m.us = c->IsComplete() ? c->GetDuration().GetNanoSeconds() / 1e3 : -1;
    m.algorithm = c->GetAlgorithm();
    m.tuning = c->GetTuning();
    m.estimatedNs = c->GetEstimatedTime().GetNanoSeconds();
    stats.Finish(m.check.empty() ? "ok" : "error", c->GetDuration().GetNanoSeconds(), m.check);
    Simulator::Destroy();
    return m;
}

/// The first row of a query, every column as text ("NULL" for null).
std::vector<std::string>
Row(const std::string& db, const std::string& query)
{
    std::vector<std::string> row;
    sqlite3* sql = nullptr;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_open_v2(db.c_str(), &sql, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(sql, query.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
    {
        for (int k = 0; k < sqlite3_column_count(stmt); ++k)
        {
            const unsigned char* text = sqlite3_column_text(stmt, k);
            row.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
        }
    }
    sqlite3_finalize(stmt);
    sqlite3_close(sql);
    return row;
}

/// The service's cost options (CollectiveService::Tune): packets of the NIC's MTU, the
/// executor's ACKs and notifications.
tn_cost_options
ServiceCostOptions()
{
    tn_cost_options cost{};
    cost.latency_ns = TN_TOPO_DEFAULT_LATENCY_NS;
    TypeId::AttributeInformation mtu;
    TypeId::LookupByName("ns3::RdmaNic").LookupAttributeByName("Mtu", &mtu);
    cost.mtu = static_cast<uint32_t>(DynamicCast<const UintegerValue>(mtu.initialValue)->Get());
    cost.packet_overhead = RdmaNic::DATA_WIRE_OVERHEAD;
    cost.completion_messages = 1;
    return cost;
}

} // namespace

/**
 * \ingroup training-net-tests
 * The acceptance matrix, small: auto within 5% of the best measured, never 5% above ring.
 */
class TuneMatrixTestCase : public TestCase
{
  public:
    TuneMatrixTestCase()
        : TestCase("auto: within 5% of the best algorithm measured per cell, rows recorded")
    {
    }

  private:
    void DoRun() override
    {
        roce_test::DefaultsGuard guard;
        const std::string db = CreateTempDirFilename("auto-matrix.db");
        std::remove(db.c_str());
        for (const char* spec : {"torus:4x4", "fattree:k=4", "switch:16"})
        {
            tn_topology* topo = nullptr;
            tn_error err;
            NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec(spec, &topo, &err), TN_OK, err.message);
            for (uint64_t bytes : {32ull << 10, 256ull << 10, 2ull << 20})
            {
                const std::string cell = std::string(spec) + " " + std::to_string(bytes) + " B";
                // the C core's ranking with the service's options: what auto must pick
                tn_plan_request request;
                tn_plan_request_init(&request);
                request.algorithm = TN_TUNE_AUTO;
                request.bytes = bytes;
                tn_cost_options cost = ServiceCostOptions();
                tn_tune_options options;
                tn_tune_options_init(&options);
                options.cost = &cost;
                tn_tune_ranking* ranking = nullptr;
                NS_TEST_ASSERT_MSG_EQ(tn_tune_rank(topo, &request, &options, &ranking, &err),
                                      TN_OK,
                                      cell << ": " << err.message);
                const Measured a = RunOne(topo, TN_TUNE_AUTO, bytes, db);
                NS_TEST_EXPECT_MSG_EQ(a.check, "", cell << ": auto's postcondition");
                NS_TEST_EXPECT_MSG_EQ(a.algorithm,
                                      tn_tune_best(ranking)->algorithm,
                                      cell << ": the ranking's choice");
                NS_TEST_EXPECT_MSG_EQ(a.tuning.requested, "auto", cell);
                NS_TEST_EXPECT_MSG_EQ(a.tuning.choiceEstimate.GetNanoSeconds(),
                                      a.estimatedNs,
                                      cell << ": the choice's estimate is the plan's");
                NS_TEST_ASSERT_MSG_NE(tn_tune_runner_up(ranking), nullptr, cell);
                NS_TEST_EXPECT_MSG_EQ(a.tuning.runnerUp,
                                      tn_tune_runner_up(ranking)->algorithm,
                                      cell << ": runner-up");
                const std::vector<std::string> row =
                    Row(db,
                        "SELECT algorithm, choice_estimated_ns = estimated_ns, runner_up, "
                        "runner_up_estimated_ns, estimated_ns <= runner_up_estimated_ns FROM "
                        "collective WHERE requested_algorithm = 'auto' AND run_id = (SELECT "
                        "max(run_id) FROM run)");
                NS_TEST_ASSERT_MSG_EQ(row.size(), 5u, cell << ": auto's row");
                NS_TEST_EXPECT_MSG_EQ(row[0], a.algorithm, cell << ": row's algorithm");
                NS_TEST_EXPECT_MSG_EQ(row[1], "1", cell << ": row's choice estimate");
                NS_TEST_EXPECT_MSG_EQ(row[2], a.tuning.runnerUp, cell << ": row's runner-up");
                NS_TEST_EXPECT_MSG_EQ(row[3],
                                      std::to_string(a.tuning.runnerUpEstimate.GetNanoSeconds()),
                                      cell << ": row's runner-up estimate");
                NS_TEST_EXPECT_MSG_EQ(row[4], "1", cell << ": the choice ranks first");
                // every other algorithm the tuner ranks, measured the same way
                double best = a.us;
                std::string bestName = "auto:" + a.algorithm;
                double ring = -1;
                for (uint32_t k = 0; k < tn_tune_ranked(ranking); k++)
                {
                    const std::string name = tn_tune_candidate_at(ranking, k)->algorithm;
                    const Measured m = name == a.algorithm ? a : RunOne(topo, name, bytes, db);
                    NS_TEST_EXPECT_MSG_EQ(m.check, "", cell << ": " << name);
                    if (m.us > 0 && m.us < best)
                    {
                        best = m.us;
                        bestName = name;
                    }
                    ring = name == "ring" ? m.us : ring;
                }
                tn_tune_ranking_destroy(ranking);
                NS_TEST_EXPECT_MSG_LT_OR_EQ(a.us,
                                            1.05 * best,
                                            cell << ": auto (" << a.algorithm << ") " << a.us
                                                 << " us, best " << bestName << " " << best
                                                 << " us");
                NS_TEST_ASSERT_MSG_GT(ring, 0, cell << ": ring ran");
                NS_TEST_EXPECT_MSG_LT_OR_EQ(a.us,
                                            1.05 * ring,
                                            cell << ": auto " << a.us << " us, ring " << ring);
            }
            tn_topology_destroy(topo);
        }
        // a named algorithm's row: requested as named, no runner-up
        const std::vector<std::string> named =
            Row(db,
                "SELECT count(*), sum(runner_up IS NOT NULL OR choice_estimated_ns IS NOT NULL "
                "OR requested_algorithm != algorithm) FROM collective WHERE requested_algorithm "
                "!= 'auto'");
        NS_TEST_ASSERT_MSG_EQ(named.size(), 2u, "named algorithms' rows");
        NS_TEST_EXPECT_MSG_GT(std::stoi(named[0]), 20, "named algorithms' rows");
        NS_TEST_EXPECT_MSG_EQ(named[1], "0", "named rows: as named, no tuner columns");
    }
};

/**
 * \ingroup training-net-tests
 * Decisions cached per (operation, group, size bucket); unknown names refused.
 */
class TuneCacheTestCase : public TestCase
{
  public:
    TuneCacheTestCase()
        : TestCase("auto: one ranking per (operation, group, size bucket)")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(CollectiveService::SizeBucket(0), 0u, "bucket of 0");
        NS_TEST_EXPECT_MSG_EQ(CollectiveService::SizeBucket(1), 0u, "bucket of 1");
        NS_TEST_EXPECT_MSG_EQ(CollectiveService::SizeBucket(1023), 9u, "bucket of 1023");
        NS_TEST_EXPECT_MSG_EQ(CollectiveService::SizeBucket(1024), 10u, "bucket of 1024");
        NS_TEST_EXPECT_MSG_EQ(CollectiveService::SizeBucket(uint64_t(1) << 62), 62u, "2^62");
        tn_topology* topo = nullptr;
        tn_error err;
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("torus:4x4", &topo, &err), TN_OK, "topo");
        RoceHelper roce;
        roce.Install(topo);
        CollectiveHelper helper;
        Ptr<CollectiveService> service = helper.Install(topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = TN_TUNE_AUTO;
        std::string error;

        struct Step
        {
            tn_collective op;
            uint64_t bytes;
            std::vector<uint32_t> group;
            uint64_t rankings; //!< GetTuningsRun after it
        };

        const std::vector<Step> steps = {
            {TN_COLL_ALL_REDUCE, 1 << 20, {}, 1},
            {TN_COLL_ALL_REDUCE, (1 << 20) + (1 << 19), {}, 1}, // same bucket: cached
            {TN_COLL_ALL_REDUCE, (2 << 20) - 1, {}, 1},
            {TN_COLL_ALL_REDUCE, 2 << 20, {}, 2},           // the next bucket
            {TN_COLL_REDUCE_SCATTER, 1 << 20, {}, 3},       // another operation
            {TN_COLL_ALL_REDUCE, 1 << 20, {0, 1, 2, 3}, 4}, // another group
            {TN_COLL_ALL_REDUCE, 1 << 20, {0, 1, 2, 3}, 4},
        };
        std::map<uint64_t, std::string> choice; // by bucket, whole topology all-reduce
        for (const Step& s : steps)
        {
            request.collective = s.op;
            request.bytes = s.bytes;
            Ptr<Collective> c = helper.Create(request, s.group, &error);
            NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
            NS_TEST_EXPECT_MSG_EQ(service->GetTuningsRun(), s.rankings, s.bytes << " B");
            NS_TEST_EXPECT_MSG_EQ(c->GetTuning().requested, "auto", "requested");
            NS_TEST_EXPECT_MSG_NE(c->GetAlgorithm(), "auto", "an algorithm of the registry");
            if (s.op == TN_COLL_ALL_REDUCE && s.group.empty())
            {
                const uint64_t b = CollectiveService::SizeBucket(s.bytes);
                if (choice.count(b))
                {
                    NS_TEST_EXPECT_MSG_EQ(c->GetAlgorithm(), choice[b], "the cached decision");
                }
                choice[b] = c->GetAlgorithm();
            }
            if (!s.group.empty())
            {
                // ranked without the topology, as the group is planned: no torus algorithm
                NS_TEST_EXPECT_MSG_EQ(tn_algorithm_find(c->GetAlgorithm().c_str())->needs_topology,
                                      false,
                                      "a group's choice needs no topology");
            }
        }
        request.algorithm = "rign";
        NS_TEST_EXPECT_MSG_EQ(helper.Create(request, {}, &error), nullptr, "unknown name");
        NS_TEST_EXPECT_MSG_NE(error.find("'rign'"), std::string::npos, error);
        Simulator::Destroy();
        tn_topology_destroy(topo);
    }
};

/**
 * \ingroup training-net-tests
 * The suite of algorithm "auto".
 */
class TuneTestSuite : public TestSuite
{
  public:
    TuneTestSuite()
        : TestSuite("training-net-auto", UNIT)
    {
        AddTestCase(new TuneCacheTestCase, TestCase::QUICK);
        AddTestCase(new TuneMatrixTestCase, TestCase::QUICK);
    }
};

static TuneTestSuite g_tuneTestSuite; //!< the suite's instance
