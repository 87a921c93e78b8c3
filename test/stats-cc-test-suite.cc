/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion-control events in the results database (RdmaCcProbe: tables cc_sample, cc_qp,
 * view cc_per_control), checked against the NICs' own counters and the controls' invariants:
 * every CNP sent by a receiver is received by its sender, DCQCN cuts a rate at most once per
 * notification, no ECN mark means no event at all, HPCC moves its windows and sends no CNP,
 * the samples add up to the queue pairs' totals, without a control only the marks are
 * counted, a flow-level run writes none, and the same seed gives the same rows.
 */
#include "roce-test-util.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/stats-recorder.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-db.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// An incast-heavy fabric: 8 NPUs on two leaves, the leaves' uplinks 4:1 oversubscribed.
const char* const SPEC = "leafspine:leaves=2,spines=1,hosts=4,oversub=4,rate=100Gbps,latency=1us";

/// What one recorded all-to-all run left: the NICs' own counters and the database's rows.
struct CcRun
{
    std::string error;              //!< "" when the run went as planned
    uint64_t cnpsSent{0};           //!< RdmaNic::GetCnpsSent, summed over the NICs
    uint64_t cnpsReceived{0};       //!< GetCnpsReceived
    uint64_t ecnEchoes{0};          //!< GetEcnEchoesReceived
    uint64_t qpsWithControl{0};     //!< queue pairs with a congestion control
    std::vector<std::string> dump;  //!< every cc_sample and cc_qp row, in order, as text
    std::vector<int64_t> qpTotals;  //!< sums over cc_qp (the columns of TOTALS)
    std::vector<int64_t> sampleSum; //!< the same sums over cc_sample
    int64_t cutsAboveCnps{-1};      //!< queue pairs with more rate cuts than CNPs received
    std::string controls;           //!< the controls cc_qp names, comma-separated
    int64_t viewCnps{-1};           //!< cc_per_control's cnps_received of the run
};

/// The counters summed over both tables.
const char* const TOTALS = "sum(cnps_sent), sum(cnps_received), sum(ce_received), "
                           "sum(ecn_echoes), sum(rate_cuts), sum(rate_raises), "
                           "sum(window_updates), count(*)";

/** \return the rows of a query, each row's columns joined by '|' */
std::vector<std::string>
Rows(sqlite3* sql, const std::string& query)
{
    std::vector<std::string> rows;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(sql, query.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
    {
        return {"query failed: " + query};
    }
    while (sqlite3_step(stmt) == SQLITE_ROW)
    {
        std::string row;
        for (int c = 0; c < sqlite3_column_count(stmt); ++c)
        {
            const unsigned char* text = sqlite3_column_text(stmt, c);
            row += (c ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "");
        }
        rows.push_back(row);
    }
    sqlite3_finalize(stmt);
    return rows;
}

/** \return the integer columns of a one-row query (0 for NULL) */
std::vector<int64_t>
Ints(sqlite3* sql, const std::string& query)
{
    std::vector<int64_t> out;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(sql, query.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
    {
        for (int c = 0; c < sqlite3_column_count(stmt); ++c)
        {
            out.push_back(sqlite3_column_int64(stmt, c));
        }
    }
    sqlite3_finalize(stmt);
    return out;
}

/// How a run is set up.
struct CcSetup
{
    std::string cc{"dcqcn"}; //!< RdmaNic::CongestionControl
    bool flowLevel{false};   //!< RoceHelper mode "flow"
    bool noMarks{false};     //!< ECN thresholds above any queue: nothing is marked
    bool record{true};       //!< StatsRecorder::CcEvents
};

/** Run a 1 MiB all-to-all on SPEC, recorded into a fresh database at path. */
CcRun
RunCc(const std::string& path, const CcSetup& setup)
{
    CcRun out;
    std::remove(path.c_str());
    roce_test::DefaultsGuard guard;
    guard.SetSeed(3, 1);
    guard.SetDefault("ns3::StatsRecorder::CcEvents", BooleanValue(setup.record));
    if (setup.noMarks)
    {
        // KMIN/KMAX far above any queue the switch can hold
        guard.SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(1u << 30));
        guard.SetDefault("ns3::RoceSwitchMmu::EcnKmax", UintegerValue(1u << 31));
    }
    tn_topology* topo = nullptr;
    tn_error err{};
    if (tn_topology_from_spec(SPEC, &topo, &err) != TN_OK)
    {
        out.error = err.message;
        return out;
    }
    RoceHelper roce;
    if (setup.flowLevel)
    {
        roce.SetMode("flow");
    }
    else
    {
        roce.SetCongestionControl(setup.cc);
    }
    roce.Install(topo);
    roce.AssignStreams(1);
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = TN_COLL_ALL_TO_ALL;
    request.algorithm = "direct";
    request.bytes = 1 << 20;
    Ptr<Collective> c = collectives.Create(request, {}, &out.error);
    StatsHelper stats;
    if (!c || !stats.Install(path, "stats-cc-test", "{}", topo, roce, &out.error))
    {
        out.error = "setup: " + out.error;
        Simulator::Destroy();
        tn_topology_destroy(topo);
        return out;
    }
    collectives.Start(c);
    Simulator::Run();
    out.error = c->IsComplete() ? c->Check() : "the all-to-all did not complete";
    for (uint32_t r = 0; !setup.flowLevel && r < tn_topology_npu_count(topo); ++r)
    {
        Ptr<RdmaNic> nic = roce.GetNic(r);
        out.cnpsSent += nic->GetCnpsSent();
        out.cnpsReceived += nic->GetCnpsReceived();
        out.ecnEchoes += nic->GetEcnEchoesReceived();
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            out.qpsWithControl += nic->GetQueuePairByIndex(q)->GetCongestionControl() ? 1 : 0;
        }
    }
    const std::string status = stats.Finish(out.error.empty() ? "ok" : "error", 0, out.error);
    Simulator::Destroy();
    tn_topology_destroy(topo);
    if (status != "ok" && out.error.empty())
    {
        out.error = "recorded as " + status;
    }
    sqlite3* sql = nullptr;
    if (sqlite3_open_v2(path.c_str(), &sql, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    {
        out.error = "cannot read " + path;
        sqlite3_close(sql);
        return out;
    }
    out.dump = Rows(sql, "SELECT * FROM cc_sample ORDER BY rowid");
    for (const std::string& row : Rows(sql, "SELECT * FROM cc_qp ORDER BY rowid"))
    {
        out.dump.push_back(row);
    }
    out.qpTotals = Ints(sql, std::string("SELECT ") + TOTALS + " FROM cc_qp");
    out.sampleSum = Ints(sql, std::string("SELECT ") + TOTALS + " FROM cc_sample");
    out.cutsAboveCnps =
        Ints(sql, "SELECT count(*) FROM cc_qp WHERE rate_cuts > cnps_received").at(0);
    const std::vector<std::string> controls = Rows(sql, "SELECT DISTINCT control FROM cc_qp");
    for (const std::string& name : controls)
    {
        out.controls += (out.controls.empty() ? "" : ",") + name;
    }
    const std::vector<int64_t> view = Ints(sql, "SELECT cnps_received FROM cc_per_control");
    out.viewCnps = view.empty() ? -1 : view[0];
    sqlite3_close(sql);
    return out;
}

/// Columns of TOTALS.
enum Total
{
    CNPS_SENT,
    CNPS_RECEIVED,
    CE_RECEIVED,
    ECN_ECHOES,
    RATE_CUTS,
    RATE_RAISES,
    WINDOW_UPDATES,
    ROWS
};

} // namespace

/**
 * \ingroup training-net-tests
 * DCQCN on an oversubscribed all-to-all: the rows agree with the NICs' counters, every CNP
 * sent is received (CNPs take the lossless control class), each received CNP was answered to a
 * CE-marked arrival, a queue pair cuts its rate at most once per CNP (one cut per
 * RateDecreasePeriod, and CNPs are its only notification), the per-NIC samples add up to the
 * per-QP totals, the view agrees, and the same seed writes the same rows.
 */
class StatsCcDcqcnTestCase : public TestCase
{
  public:
    StatsCcDcqcnTestCase()
        : TestCase("stats-cc: DCQCN's CNPs, marks and rate cuts agree with the NICs")
    {
    }

  private:
    void DoRun() override
    {
        const std::string path = CreateTempDirFilename("stats-cc-dcqcn.db");
        const CcRun run = RunCc(path, CcSetup());
        NS_TEST_ASSERT_MSG_EQ(run.error, "", "the run");
        NS_TEST_ASSERT_MSG_EQ(run.qpTotals.size(), size_t(ROWS + 1), "cc_qp sums");
        NS_TEST_ASSERT_MSG_GT(run.cnpsSent, 0u, "the fabric is congested: CNPs are sent");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[CNPS_SENT], int64_t(run.cnpsSent), "CNPs sent");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[CNPS_RECEIVED],
                              int64_t(run.cnpsReceived),
                              "CNPs received");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[ECN_ECHOES], int64_t(run.ecnEchoes), "ECN echoes");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[CNPS_RECEIVED],
                              run.qpTotals[CNPS_SENT],
                              "every CNP sent arrives at its sender");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(run.qpTotals[CE_RECEIVED],
                                    run.qpTotals[CNPS_SENT],
                                    "a CNP answers a CE-marked arrival");
        NS_TEST_EXPECT_MSG_GT(run.qpTotals[RATE_CUTS], 0, "DCQCN cuts its rates");
        NS_TEST_EXPECT_MSG_EQ(run.cutsAboveCnps, 0, "no queue pair cuts more often than told");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[WINDOW_UPDATES], 0, "DCQCN has no window by default");
        for (int t = CNPS_SENT; t < ROWS; ++t)
        {
            NS_TEST_EXPECT_MSG_EQ(run.sampleSum.at(t),
                                  run.qpTotals[t],
                                  "column " << t << ": the samples add up to the totals");
        }
        NS_TEST_EXPECT_MSG_EQ(run.controls, "dcqcn", "the control named");
        NS_TEST_EXPECT_MSG_EQ(run.viewCnps, run.qpTotals[CNPS_RECEIVED], "cc_per_control");
        const CcRun again = RunCc(CreateTempDirFilename("stats-cc-dcqcn-2.db"), CcSetup());
        NS_TEST_EXPECT_MSG_EQ(again.dump.size(), run.dump.size(), "same seed, same rows");
        NS_TEST_EXPECT_MSG_EQ((again.dump == run.dump), true, "same seed, same rows");
    }
};

/**
 * \ingroup training-net-tests
 * With ECN marking off (KMIN and KMAX above any queue) DCQCN hears nothing: no CE mark, no CNP,
 * no echo, no rate change, so no row at all.
 */
class StatsCcNoMarksTestCase : public TestCase
{
  public:
    StatsCcNoMarksTestCase()
        : TestCase("stats-cc: no ECN marks, no congestion-control event")
    {
    }

  private:
    void DoRun() override
    {
        CcSetup setup;
        setup.noMarks = true;
        const CcRun run = RunCc(CreateTempDirFilename("stats-cc-nomarks.db"), setup);
        NS_TEST_ASSERT_MSG_EQ(run.error, "", "the run");
        NS_TEST_EXPECT_MSG_GT(run.qpsWithControl, 0u, "the queue pairs run DCQCN");
        NS_TEST_EXPECT_MSG_EQ(run.cnpsSent + run.cnpsReceived + run.ecnEchoes, 0u, "NICs");
        NS_TEST_EXPECT_MSG_EQ(run.dump.size(), 0u, "no cc_sample or cc_qp row");
    }
};

/**
 * \ingroup training-net-tests
 * HPCC: its windows follow its rates (VariableWindow), so every queue pair that reacts updates
 * its window more than once (the first is the start's), and it asks for no CNP.
 */
class StatsCcHpccTestCase : public TestCase
{
  public:
    StatsCcHpccTestCase()
        : TestCase("stats-cc: HPCC updates its windows and sends no CNP")
    {
    }

  private:
    void DoRun() override
    {
        CcSetup setup;
        setup.cc = "hpcc";
        const CcRun run = RunCc(CreateTempDirFilename("stats-cc-hpcc.db"), setup);
        NS_TEST_ASSERT_MSG_EQ(run.error, "", "the run");
        NS_TEST_ASSERT_MSG_EQ(run.qpTotals.size(), size_t(ROWS + 1), "cc_qp sums");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[CNPS_SENT] + run.qpTotals[CNPS_RECEIVED], 0, "CNPs");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[ROWS],
                              int64_t(run.qpsWithControl),
                              "one row per queue pair (each set its window at its start)");
        NS_TEST_EXPECT_MSG_GT(run.qpTotals[WINDOW_UPDATES],
                              run.qpTotals[ROWS],
                              "windows updated after the start");
        NS_TEST_EXPECT_MSG_GT(run.qpTotals[RATE_CUTS], 0, "HPCC cuts rates on this incast");
        NS_TEST_EXPECT_MSG_EQ(run.controls, "hpcc", "the control named");
        for (int t = CNPS_SENT; t < ROWS; ++t)
        {
            NS_TEST_EXPECT_MSG_EQ(run.sampleSum.at(t), run.qpTotals[t], "column " << t);
        }
    }
};

/**
 * \ingroup training-net-tests
 * Without a congestion control the switches still mark: the CE marks and their echoes are
 * counted, and nothing reacts (no CNP, no rate change, no window).
 */
class StatsCcNoneTestCase : public TestCase
{
  public:
    StatsCcNoneTestCase()
        : TestCase("stats-cc: without a control the marks arrive and nothing reacts")
    {
    }

  private:
    void DoRun() override
    {
        CcSetup setup;
        setup.cc = "none";
        const CcRun run = RunCc(CreateTempDirFilename("stats-cc-none.db"), setup);
        NS_TEST_ASSERT_MSG_EQ(run.error, "", "the run");
        NS_TEST_ASSERT_MSG_EQ(run.qpTotals.size(), size_t(ROWS + 1), "cc_qp sums");
        NS_TEST_EXPECT_MSG_EQ(run.qpsWithControl, 0u, "no queue pair has a control");
        NS_TEST_EXPECT_MSG_GT(run.qpTotals[CE_RECEIVED], 0, "the switches mark");
        NS_TEST_EXPECT_MSG_EQ(run.qpTotals[ECN_ECHOES], int64_t(run.ecnEchoes), "ECN echoes");
        for (int t : {CNPS_SENT, CNPS_RECEIVED, RATE_CUTS, RATE_RAISES, WINDOW_UPDATES})
        {
            NS_TEST_EXPECT_MSG_EQ(run.qpTotals[t], 0, "column " << t << ": nothing reacts");
        }
        NS_TEST_EXPECT_MSG_EQ(run.controls, "none", "the control named");
    }
};

/**
 * \ingroup training-net-tests
 * No row where there is nothing to count or nothing asked: a flow-level run (FlowNic: no
 * packets, no control) and a packet-level one with CcEvents false.
 */
class StatsCcNoRowsTestCase : public TestCase
{
  public:
    StatsCcNoRowsTestCase()
        : TestCase("stats-cc: flow level and CcEvents false write no row")
    {
    }

  private:
    void DoRun() override
    {
        CcSetup flow;
        flow.flowLevel = true;
        const CcRun f = RunCc(CreateTempDirFilename("stats-cc-flow.db"), flow);
        NS_TEST_ASSERT_MSG_EQ(f.error, "", "the flow-level run");
        NS_TEST_EXPECT_MSG_EQ(f.dump.size(), 0u, "flow level: no congestion-control row");
        CcSetup off;
        off.record = false;
        const CcRun o = RunCc(CreateTempDirFilename("stats-cc-off.db"), off);
        NS_TEST_ASSERT_MSG_EQ(o.error, "", "the run without CcEvents");
        NS_TEST_EXPECT_MSG_GT(o.cnpsSent, 0u, "CNPs were sent");
        NS_TEST_EXPECT_MSG_EQ(o.dump.size(), 0u, "CcEvents false: no row");
    }
};

/**
 * \ingroup training-net-tests
 * The congestion-control events of RdmaNic in the results database.
 */
class StatsCcTestSuite : public TestSuite
{
  public:
    StatsCcTestSuite()
        : TestSuite("training-net-stats-cc", UNIT)
    {
        AddTestCase(new StatsCcDcqcnTestCase, TestCase::QUICK);
        AddTestCase(new StatsCcNoMarksTestCase, TestCase::QUICK);
        AddTestCase(new StatsCcHpccTestCase, TestCase::QUICK);
        AddTestCase(new StatsCcNoneTestCase, TestCase::QUICK);
        AddTestCase(new StatsCcNoRowsTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static StatsCcTestSuite g_statsCcTestSuite;
