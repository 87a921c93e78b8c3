/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-test-data.h"

#include "ns3/scenario-config.h"
#include "ns3/scenario-runner.h"
#include "ns3/test.h"
#include "ns3/tn-db.h"
#include "ns3/type-id.h"

#include <cstdio>
#include <sqlite3.h>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const char* RING_SCENARIO = "name = \"t\"\n"
                            "[topology]\n"
                            "spec = \"ring:4\"\n"
                            "[[collective]]\n"
                            "algorithm = [\"ring\", \"rhd\", \"direct\"]\n"
                            "bytes = [\"64KiB\", 1024]\n";

} // namespace

/**
 * \ingroup training-net-tests
 * \brief A point's random streams are its own: an incast (15 senders into one port, ECN
 * marking at random between the thresholds) gives the same time and the same marks run first
 * in a process and run again after another packet-level point, whose switches took random
 * streams of their own (ScenarioRunner assigns each point's streams; ns-3 numbers unassigned
 * ones in creation order across the process's simulations).
 */
class ScenarioStreamsTestCase : public TestCase
{
  public:
    ScenarioStreamsTestCase()
        : TestCase("a point's random streams do not depend on the runs before it")
    {
    }

  private:
    /// The point of `text`, run into a fresh database: its time and its ECN marks.
    std::pair<int64_t, int64_t> RunPoint(ScenarioRunner& runner, const char* text)
    {
        ScenarioConfig config;
        std::string error;
        std::vector<ScenarioPoint> points;
        if (!config.LoadText(text, "streams.toml", &error) || !config.Expand(&points, &error))
        {
            NS_TEST_EXPECT_MSG_EQ(error, "", "the scenario reads");
            return {-1, -1};
        }
        const std::string path = CreateTempDirFilename("streams.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        if (tn_db_open(path.c_str(), &db, &err) != TN_OK)
        {
            NS_TEST_EXPECT_MSG_EQ(err.message, std::string(), "the database opens");
            return {-1, -1};
        }
        ScenarioResult r = runner.Run(points[0], db);
        tn_db_close(db);
        NS_TEST_EXPECT_MSG_EQ(r.status, "ok", r.error);
        sqlite3* sql = nullptr;
        int64_t marks = -1;
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_open(path.c_str(), &sql) == SQLITE_OK &&
            sqlite3_prepare_v2(sql,
                               "SELECT SUM(ecn_marks) FROM port_summary",
                               -1,
                               &stmt,
                               nullptr) == SQLITE_OK &&
            sqlite3_step(stmt) == SQLITE_ROW)
        {
            marks = sqlite3_column_int64(stmt, 0);
        }
        sqlite3_finalize(stmt);
        sqlite3_close(sql);
        std::remove(path.c_str());
        return {r.simulatedNs, marks};
    }

    void DoRun() override
    {
        const char* incast = "name = \"incast\"\n"
                             "seed = 3\n"
                             "routing = \"ecmp\"\n"
                             "[topology]\n"
                             "spec = \"switch:16,rate=100Gbps,latency=1us\"\n"
                             "[[collective]]\n"
                             "op = \"reduce\"\n"
                             "algorithm = \"direct\"\n"
                             "bytes = \"1MiB\"\n";
        const char* other = "name = \"other\"\n"
                            "[topology]\n"
                            "spec = \"fattree:k=4\"\n"
                            "[[collective]]\n"
                            "algorithm = \"direct\"\n"
                            "bytes = \"64KiB\"\n";
        ScenarioRunner runner;
        const auto first = RunPoint(runner, incast);
        NS_TEST_ASSERT_MSG_GT(first.second, 0, "the incast marks packets");
        RunPoint(runner, other);
        const auto again = RunPoint(runner, incast);
        NS_TEST_EXPECT_MSG_EQ(again.first, first.first, "the same time after another run");
        NS_TEST_EXPECT_MSG_EQ(again.second, first.second, "the same marks after another run");
    }
};

/**
 * \ingroup training-net-tests
 * \brief A list sweeps: the cartesian product in file order, the last list fastest, each
 * point's values in its params; --set replaces a list by a value or adds one.
 */
class ScenarioSweepTestCase : public TestCase
{
  public:
    ScenarioSweepTestCase()
        : TestCase("sweep expansion and overrides")
    {
    }

  private:
    void DoRun() override
    {
        ScenarioConfig config;
        std::string error;
        NS_TEST_ASSERT_MSG_EQ(config.LoadText(RING_SCENARIO, "t.toml", &error), true, error);
        std::vector<ScenarioPoint> points;
        NS_TEST_ASSERT_MSG_EQ(config.Expand(&points, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(points.size(), 6, "3 algorithms x 2 sizes");
        const char* algorithms[] = {"ring", "ring", "rhd", "rhd", "direct", "direct"};
        const uint64_t sizes[] = {65536, 1024};
        for (uint32_t i = 0; i < points.size(); i++)
        {
            NS_TEST_ASSERT_MSG_EQ(points[i].index, i, "point index");
            NS_TEST_ASSERT_MSG_EQ(points[i].collectives.size(), 1, "one collective");
            NS_TEST_EXPECT_MSG_EQ(points[i].collectives[0].algorithm, algorithms[i], "point " << i);
            NS_TEST_EXPECT_MSG_EQ(points[i].collectives[0].bytes, sizes[i % 2], "point " << i);
            NS_TEST_EXPECT_MSG_NE(points[i].paramsJson.find("\"collective[0].bytes\":" +
                                                            std::to_string(sizes[i % 2])),
                                  std::string::npos,
                                  points[i].paramsJson);
        }
        NS_TEST_EXPECT_MSG_EQ(points[3].label,
                              "collective[0].algorithm=rhd collective[0].bytes=1024",
                              "label");
        NS_TEST_EXPECT_MSG_EQ(config.CountPoints(), 6, "count");

        NS_TEST_ASSERT_MSG_EQ(config.Set("collective.algorithm=ring", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Set("seed=[3, 4, 5]", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Expand(&points, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(points.size(), 6, "2 sizes x 3 seeds");
        NS_TEST_EXPECT_MSG_EQ(points[5].seed, 5, "seed of the last point");
        NS_TEST_EXPECT_MSG_EQ(points[5].collectives[0].bytes, 1024, "size of the last point");
        NS_TEST_EXPECT_MSG_EQ(points[0].collectives[0].algorithm, "ring", "--set value");

        // Lazily: one point at a time gives the same points, and the count.
        uint64_t count = 0;
        std::vector<std::string> databases;
        NS_TEST_ASSERT_MSG_EQ(config.Validate(&count, &error, &databases), true, error);
        NS_TEST_EXPECT_MSG_EQ(count, 6, "count");
        NS_TEST_EXPECT_MSG_EQ(databases.size(), 1, "one database");
        for (uint64_t i = 0; i < count; i++)
        {
            ScenarioPoint p;
            NS_TEST_ASSERT_MSG_EQ(config.GetPoint(i, &p, &error), true, error);
            NS_TEST_EXPECT_MSG_EQ(p.label, points[i].label, "point " << i);
            NS_TEST_EXPECT_MSG_EQ(p.paramsJson, points[i].paramsJson, "point " << i);
        }
        ScenarioPoint none;
        NS_TEST_EXPECT_MSG_EQ(config.GetPoint(count, &none, &error), false, "past the end");
        // A sweep past MAX_POINTS is refused up front, with its count (27 million points
        // here, which used to be expanded until memory ran out).
        std::string list = "[1";
        for (int v = 2; v <= 300; v++)
        {
            list += "," + std::to_string(v);
        }
        list += "]";
        NS_TEST_ASSERT_MSG_EQ(config.Set("collective.bytes=" + list, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Set("collective.chunks=" + list, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Set("seed=" + list, &error), true, error);
        NS_TEST_EXPECT_MSG_EQ(config.Validate(&count, &error), false, "27 M points");
        NS_TEST_EXPECT_MSG_NE(error.find("27000000 points"), std::string::npos, error);
        NS_TEST_EXPECT_MSG_EQ(config.Expand(&points, &error), false, "27 M points");
    }
};

/**
 * \ingroup training-net-tests
 * \brief Each mistake gets one message naming the file, line, column and key.
 */
class ScenarioErrorTestCase : public TestCase
{
  public:
    ScenarioErrorTestCase()
        : TestCase("errors name file, line and key")
    {
    }

  private:
    void Expect(const std::string& text, const std::string& set, const std::string& expected)
    {
        ScenarioConfig config;
        std::string error;
        std::vector<ScenarioPoint> points;
        bool ok = config.LoadText(text, "e.toml", &error) &&
                  (set.empty() || config.Set(set, &error)) && config.Expand(&points, &error);
        NS_TEST_EXPECT_MSG_EQ(ok, false, "accepted: " << text);
        NS_TEST_EXPECT_MSG_EQ(points.size(), 0, "no point for a bad scenario");
        NS_TEST_EXPECT_MSG_EQ(error.rfind(expected, 0),
                              0,
                              "'" << error << "' does not start with '" << expected << "'");
    }

    void DoRun() override
    {
        const std::string coll = "[[collective]]\nbytes = 1\n";
        Expect("[topology]\nspec = \"ring:4\"\nrat = 1\n" + coll,
               "",
               "e.toml:3:1: topology.rat: unknown key");
        Expect("[topology]\nspec = \"ring:4\"\n[[collective]]\nbytes = \"1MB\"\nchunks = -1\n",
               "",
               "e.toml:5:10: collective[0].chunks: -1 is out of range");
        Expect("[topology]\nspec = \"ring:1\"\n" + coll, "", "e.toml:2:8: topology.spec: ");
        Expect("[topology]\nspec = 8\n" + coll,
               "",
               "e.toml:2:8: topology.spec: expected a string, got an integer");
        Expect("[topology]\nspec = \"ring:4\"\n[[collective]]\nbytes = [1, []]\n",
               "",
               "e.toml:4:13: collective[0].bytes: a sweep lists plain values");
        Expect("[topology]\nspec = \"ring:4\"\n" + coll,
               "sampling.interval=0us",
               "e.toml: --set sampling.interval=0us: sampling.interval: must be > 0");
        Expect("[topology]\nspec = \"ring:4\"\n" + coll,
               "roce.ns3::NoSuchClass::X=1",
               "e.toml: --set roce.ns3::NoSuchClass::X=1: roce.ns3::NoSuchClass::X: no ns-3 "
               "class 'ns3::NoSuchClass'");
        Expect("[topology]\nspec = \"ring:4\"\n[training]\nworkload = \"/nonexistent/w.txt\"\n",
               "",
               "e.toml:4:12: training.workload: /nonexistent/w.txt");
        Expect("[topology]\nspec = \"ring:4\"\n[[collective]]\nbytes = 1\nscheduler = \"lifo\"\n",
               "",
               "e.toml:5:13: collective[0].scheduler: 'lifo' is not one of fifo, scf, "
               "themis-scf, themis-fifo, fixed");
        const std::string hier = "[topology]\nspec = \"hier:switch2@800Gbps+switch2@400Gbps\"\n"
                                 "[[collective]]\nbytes = 1024\n";
        Expect(hier + "scheduler = \"fixed\"\nalgorithm = \"ring\"\n",
               "",
               "e.toml:6:13: collective[0].algorithm: scheduler 'fixed' schedules Themis");
        Expect(hier + "scheduler = \"themis-scf\"\nbaseline = true\n",
               "",
               "e.toml:6:12: collective[0].baseline: the run-time baseline is scheduler = "
               "\"fixed\"");
        Expect(hier + "scheduler = \"themis-fifo\"\nop = \"broadcast\"\n",
               "",
               "e.toml:5:13: collective[0].scheduler: scheduler 'themis-fifo' runs all-reduce, "
               "reduce-scatter and all-gather, not broadcast");
        Expect("mode = \"fluid\"\n[topology]\nspec = \"ring:4\"\n" + coll,
               "",
               "e.toml:1:8: mode: 'fluid' is not one of packet, flow");
        Expect("mode = \"flow-symmetric\"\n[topology]\nspec = \"mesh:4x4\"\n" + coll,
               "",
               "e.toml:3:8: topology.spec: mode flow-symmetric: symmetry: the shift along dim 0 "
               "maps link");
        Expect("mode = \"flow\"\n[topology]\nspec = \"ring:4\"\n[roce]\n"
               "\"ns3::RoceSwitchMmu::BufferSize\" = \"67108864\"\n" +
                   coll,
               "",
               "e.toml:5:36: roce.ns3::RoceSwitchMmu::BufferSize: needs packet level, but mode = "
               "\"flow\"");
        Expect("[topology]\nspec = \"ring:4\"\n[sampling]\nports = \"busiest:0\"\n" + coll,
               "",
               "e.toml:4:9: sampling.ports: 'busiest:0': K of busiest:K must be a whole number "
               "from 1 to 4294967295");
        Expect("[topology]\nspec = \"ring:4\"\n[sampling]\nports = \"some\"\n" + coll,
               "",
               "e.toml:4:9: sampling.ports: 'some' is not all, none, per-dimension or busiest:K");
        Expect("[topology]\nspec = \"ring:4\"\n[sampling]\nport_samples = false\n"
               "ports = \"all\"\n" +
                   coll,
               "",
               "e.toml:5:9: sampling.ports: 'all' contradicts port_samples = false");
        Expect("[topology]\nspec = \"mesh:2x2\"\n[roce]\nrouting = \"xy\"\n" + coll,
               "",
               "e.toml:4:11: roce.routing: expected a route order: shortest or dimension-order");
    }
};

/**
 * \ingroup training-net-tests
 * \brief A point runs and records one ok run whose time is the ring's closed form.
 */
class ScenarioRunTestCase : public TestCase
{
  public:
    ScenarioRunTestCase()
        : TestCase("a point runs and is recorded")
    {
    }

  private:
    void DoRun() override
    {
        ScenarioConfig config;
        std::string error;
        std::vector<ScenarioPoint> points;
        NS_TEST_ASSERT_MSG_EQ(config.LoadText(RING_SCENARIO, "t.toml", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Set("collective.algorithm=ring", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Set("collective.bytes=64KiB", &error), true, error);
        // [roce] holds for the run only (ScopedDefaults): a value the run cannot notice
        NS_TEST_ASSERT_MSG_EQ(config.Set("roce.ns3::RdmaNic::RetryLimit=5", &error), true, error);
        // a ring has one dim: dimension order keeps every route, and the time below
        NS_TEST_ASSERT_MSG_EQ(config.Set("roce.routing=dimension-order", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Expand(&points, &error), true, error);
        NS_TEST_EXPECT_MSG_EQ(points[0].routeOrder, "dimension-order", "[roce] routing read");
        NS_TEST_ASSERT_MSG_EQ(points.size(), 1, "no sweep left");
        const std::string path = CreateTempDirFilename("scenario.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        ScenarioRunner runner;
        int reports = 0;
        ScenarioProgress last{};
        runner.SetProgressCallback(
            [&reports, &last](const ScenarioProgress& p) {
                reports++;
                last = p;
            },
            0);
        int64_t started = -1;
        runner.SetRunStartedCallback([&started](int64_t id) { started = id; });
        ScenarioResult r = runner.Run(points[0], db);
        tn_db_close(db);
        NS_TEST_ASSERT_MSG_EQ(r.status, "ok", r.error);
        NS_TEST_EXPECT_MSG_EQ(r.runId, 1, "first run of a new database");
        NS_TEST_EXPECT_MSG_EQ(started, r.runId, "the run's id was told when its row was made");
        TypeId::AttributeInformation info;
        TypeId::LookupByName("ns3::RdmaNic").LookupAttributeByName("RetryLimit", &info);
        NS_TEST_EXPECT_MSG_EQ(info.initialValue->SerializeToString(info.checker),
                              "7",
                              "the run's [roce] default is restored after it");
        NS_TEST_EXPECT_MSG_GT(reports, 0, "progress reported");
        // the live view at the end of a packet-level ring: all done, no port paused now (a
        // 64 KiB ring on ring:4 pauses nothing), the simulator's clock
        NS_TEST_EXPECT_MSG_EQ(last.last, true, "the last report is the end");
        NS_TEST_EXPECT_MSG_EQ(last.pausedPorts, 0, "packet level: paused ports are counted");
        NS_TEST_EXPECT_MSG_EQ(last.fractionDone, 1.0, "all done");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(last.simulatedSeconds * 1e9,
                                    double(r.simulatedNs),
                                    "the simulated time, at least the run's");
        // flow level has no pause to count: the live view shows none (it showed 4294967295)
        ScenarioConfig flowConfig;
        NS_TEST_ASSERT_MSG_EQ(flowConfig.LoadText(RING_SCENARIO, "t.toml", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(flowConfig.Set("mode=flow", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(flowConfig.Set("collective.algorithm=ring", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(flowConfig.Set("collective.bytes=64KiB", &error), true, error);
        std::vector<ScenarioPoint> flowPoints;
        NS_TEST_ASSERT_MSG_EQ(flowConfig.Expand(&flowPoints, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(flowPoints.size(), 1, "one point");
        const std::string flowPath = CreateTempDirFilename("scenario-flow.db");
        std::remove(flowPath.c_str());
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(flowPath.c_str(), &db, &err), TN_OK, err.message);
        last = ScenarioProgress{};
        last.pausedPorts = 7;
        ScenarioResult flow = runner.Run(flowPoints[0], db);
        tn_db_close(db);
        std::remove(flowPath.c_str());
        NS_TEST_ASSERT_MSG_EQ(flow.status, "ok", flow.error);
        NS_TEST_EXPECT_MSG_EQ(last.last, true, "flow level: the end reported");
        NS_TEST_EXPECT_MSG_EQ(last.pausedPorts, -1, "flow level: no paused count");
        ScenarioProgress shown{};
        shown.simulatedSeconds = 1234.5e-6;
        shown.wallSeconds = 2;
        shown.eventsPerSecond = 1.234e6;
        shown.fractionDone = 0.4;
        shown.remainingSeconds = 3;
        shown.pausedPorts = 45;
        NS_TEST_EXPECT_MSG_EQ(ScenarioRunner::FormatProgress(shown),
                              "simulated 1234.5 us, wall 2.0 s, 1.23 M events/s, 45 ports paused, "
                              "40% done, remaining ~3.0 s",
                              "the live view's line");
        shown.pausedPorts = -1;
        shown.fractionDone = -1;
        shown.remainingSeconds = -1;
        shown.wallSeconds = 150;
        NS_TEST_EXPECT_MSG_EQ(ScenarioRunner::FormatProgress(shown),
                              "simulated 1234.5 us, wall 2.5 min, 1.23 M events/s, remaining ?",
                              "flow level and unknown work: no count, no estimate");
        // Ring on 4 NPUs: 2(N-1) steps of S/N bytes on 128 Gb/s links of 150 ns, each packet
        // of 4096 B carrying 82 B of headers, FCS, preamble and gap.
        double expected = 2 * 3 * (150 + 65536 / 4 * (4096.0 + 82) / 4096 / 16);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(r.simulatedNs), expected, 0.02 * expected, "ring time");
        std::remove(path.c_str());
    }
};

namespace
{

/// \return the first column of the first row of `sql` on the run (bound to ?1), or -1
double
QueryValue(tn_db* db, const std::string& sql, int64_t run)
{
    sqlite3* h = static_cast<sqlite3*>(tn_db_handle(db));
    sqlite3_stmt* st = nullptr;
    double v = -1;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    {
        sqlite3_bind_int64(st, 1, run);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        {
            v = sqlite3_column_double(st, 0);
        }
    }
    sqlite3_finalize(st);
    return v;
}

} // namespace

/**
 * \ingroup training-net-tests
 * \brief A collective scheduled at run time is recorded as one operation row over its
 * chunk-phase sub-collectives, and the summary lists that row only.
 */
class ScenarioScheduledTestCase : public TestCase
{
  public:
    ScenarioScheduledTestCase()
        : TestCase("a run-time scheduled collective is recorded as one operation")
    {
    }

  private:
    void DoRun() override
    {
        // 4 NPUs in 2 x 2, a planned ring before the scheduled all-reduce of 4 chunks.
        const char* text = "name = \"s\"\n"
                           "[topology]\n"
                           "spec = \"hier:switch2@800Gbps/500ns+switch2@400Gbps/500ns\"\n"
                           "[[collective]]\n"
                           "bytes = \"64KiB\"\n"
                           "[[collective]]\n"
                           "scheduler = \"themis-scf\"\n"
                           "bytes = \"256KiB\"\n"
                           "chunks = 4\n"
                           "active = 2\n";
        ScenarioConfig config;
        std::string error;
        std::vector<ScenarioPoint> points;
        NS_TEST_ASSERT_MSG_EQ(config.LoadText(text, "s.toml", &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(config.Expand(&points, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(points.size(), 1, "one point");
        NS_TEST_EXPECT_MSG_EQ(points[0].collectives[1].IsScheduled(), true, "run time");
        NS_TEST_EXPECT_MSG_EQ(points[0].collectives[1].algorithm, "themis", "default algorithm");
        const std::string path = CreateTempDirFilename("scheduled.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        ScenarioRunner runner;
        ScenarioResult r = runner.Run(points[0], db);
        NS_TEST_ASSERT_MSG_EQ(r.status, "ok", r.error);
        const std::string op = "FROM collective WHERE run_id = ?1 AND scheduler = 'run-time'";
        const std::string phases =
            "FROM collective WHERE run_id = ?1 AND collective_id > (SELECT collective_id " + op +
            ")";
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db, "SELECT count(*) " + op, r.runId), 1, "one op row");
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                         "SELECT count(*) " + op +
                                             " AND algorithm = 'themis-scf' AND op = 'all-reduce'"
                                             " AND participants = 4 AND bytes = 262144",
                                         r.runId),
                              1,
                              "op row fields");
        // 4 chunks x 2D = 4 phases x 2 groups per dimension
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db, "SELECT count(*) " + phases, r.runId), 32, "phases");
        NS_TEST_EXPECT_MSG_EQ(
            QueryValue(db, "SELECT count(*) " + phases + " AND participants = 2", r.runId),
            32,
            "each phase runs in a group of 2");
        const double start = QueryValue(db, "SELECT start_ns " + op, r.runId);
        const double end = QueryValue(db, "SELECT end_ns " + op, r.runId);
        // The op ends when the last member learns its last phase ended: at most a control
        // message after it (two 500 ns links and a switch; measured 1.0 us).
        const double lastPhase = QueryValue(db, "SELECT max(end_ns) " + phases, r.runId);
        NS_TEST_EXPECT_MSG_LT_OR_EQ(lastPhase, end, "the op ends after its last phase");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(end, lastPhase + 2000, "and soon after it");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(start,
                                    QueryValue(db, "SELECT min(start_ns) " + phases, r.runId),
                                    "the op starts before its first phase");
        NS_TEST_EXPECT_MSG_GT(end - start, 0, "the op took time");
        NS_TEST_EXPECT_MSG_EQ(double(r.simulatedNs), end, "the run ends with the op");
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db, "SELECT transfers " + op, r.runId),
                              QueryValue(db, "SELECT sum(transfers) " + phases, r.runId),
                              "transfers of the op");
        NS_TEST_EXPECT_MSG_EQ_TOL(QueryValue(db, "SELECT algbw_Bps " + op, r.runId),
                                  262144 / ((end - start) * 1e-9),
                                  1,
                                  "algbw = S / time");
        tn_db_close(db);
        std::ostringstream out;
        NS_TEST_ASSERT_MSG_EQ(ScenarioRunner::Summarize(path, {r.runId}, {}, out, &error),
                              true,
                              error);
        const std::string summary = out.str();
        NS_TEST_EXPECT_MSG_NE(summary.find(" all-reduce      themis-scf "),
                              std::string::npos,
                              summary);
        NS_TEST_EXPECT_MSG_NE(summary.find(" all-reduce      ring "), std::string::npos, summary);
        NS_TEST_EXPECT_MSG_EQ(summary.find("reduce-scatter"), std::string::npos, summary);
        NS_TEST_EXPECT_MSG_NE(summary.find("+ 32 chunk-phase sub-collectives"),
                              std::string::npos,
                              summary);
        std::remove(path.c_str());
    }
};

/**
 * \ingroup training-net-tests
 * A training job with Themis at run time ([training] scheduler): each iteration's all-reduce
 * is one operation of scheduler 'run-time' in the database; a bad scheduler is refused with
 * file, line and key.
 */
class ScenarioTrainingThemisTestCase : public TnDataTestCase
{
  public:
    ScenarioTrainingThemisTestCase()
        : TnDataTestCase("a training scenario with Themis at run time")
    {
    }

  private:
    /// \return the points of text, or none with *error set
    static std::vector<ScenarioPoint> Points(const std::string& text, std::string* error)
    {
        ScenarioConfig config;
        std::vector<ScenarioPoint> points;
        if (!config.LoadText(text, "t.toml", error) || !config.Expand(&points, error))
        {
            points.clear();
        }
        return points;
    }

    void DoRun() override
    {
        const std::string training = "[training]\nworkload = \"" +
                                     DataFile("workloads/microAllReduce.txt") +
                                     "\"\niterations = 2\nchunks = 8\n";
        const std::string hier = "[topology]\nspec = \"hier:switch4@400Gbps+switch4@100Gbps\"\n";
        std::string error;
        std::vector<ScenarioPoint> points =
            Points(hier + training + "scheduler = \"themis-scf\"\n", &error);
        NS_TEST_ASSERT_MSG_EQ(points.size(), 1, error);
        NS_TEST_EXPECT_MSG_EQ(points[0].trainingScheduler, "themis-scf", "scheduler");
        NS_TEST_EXPECT_MSG_EQ(points[0].trainingChunks, 8u, "chunks");
        const std::string path = CreateTempDirFilename("training-themis.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        ScenarioRunner runner;
        ScenarioResult r = runner.Run(points[0], db);
        NS_TEST_EXPECT_MSG_EQ(r.status, "ok", r.error);
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                         "SELECT count(*) FROM collective WHERE run_id = ?1 AND "
                                         "scheduler = 'run-time' AND algorithm = 'themis-scf' "
                                         "AND end_ns IS NOT NULL",
                                         r.runId),
                              2,
                              "one operation per iteration");
        tn_db_close(db);

        Points(hier + training + "scheduler = \"lifo\"\n", &error);
        NS_TEST_EXPECT_MSG_EQ(error.rfind("t.toml:7:13: training.scheduler: 'lifo' is not one of "
                                          "planned, themis-scf, themis-fifo, fixed",
                                          0),
                              0,
                              error);
    }
};

/**
 * \ingroup training-net-tests
 * \brief mode = "flow": the same scenario runs on fluid flows and records the same tables:
 * its run says the mode, its collective and transfer rows are there, its port samples carry
 * the fluid utilisation (the busiest interval near 1) with queue and pause columns 0, and its
 * time is the packet-level one within 3%.
 */
class ScenarioFlowModeTestCase : public TestCase
{
  public:
    ScenarioFlowModeTestCase()
        : TestCase("mode = flow records the same tables from fluid flows")
    {
    }

  private:
    void DoRun() override
    {
        const std::string path = CreateTempDirFilename("flow-mode.db");
        std::remove(path.c_str());
        int64_t ns[2] = {0, 0};
        int64_t run[2] = {0, 0};
        for (int flow = 0; flow < 2; flow++)
        {
            ScenarioConfig config;
            std::string error;
            std::vector<ScenarioPoint> points;
            NS_TEST_ASSERT_MSG_EQ(config.LoadText(RING_SCENARIO, "t.toml", &error), true, error);
            NS_TEST_ASSERT_MSG_EQ(config.Set("collective.algorithm=ring", &error), true, error);
            NS_TEST_ASSERT_MSG_EQ(config.Set("collective.bytes=4MiB", &error), true, error);
            NS_TEST_ASSERT_MSG_EQ(config.Set(flow ? "mode=\"flow\"" : "mode=\"packet\"", &error),
                                  true,
                                  error);
            NS_TEST_ASSERT_MSG_EQ(config.Expand(&points, &error), true, error);
            tn_db* db = nullptr;
            tn_error err{};
            NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
            ScenarioRunner runner;
            ScenarioResult r = runner.Run(points[0], db);
            tn_db_close(db);
            NS_TEST_ASSERT_MSG_EQ(r.status, "ok", r.error);
            ns[flow] = r.simulatedNs;
            run[flow] = r.runId;
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(double(ns[1]) / ns[0], 1.0, 0.03, "flow vs packet time");
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                         "SELECT count(*) FROM run WHERE run_id = ?1 AND "
                                         "json_extract(params_json, '$.mode') = 'flow'",
                                         run[1]),
                              1,
                              "the run says flow");
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                         "SELECT count(*) FROM run WHERE run_id = ?1 AND "
                                         "json_extract(params_json, '$.mode') = 'packet'",
                                         run[0]),
                              1,
                              "the packet run says packet");
        for (const char* table : {"collective", "transfer", "node", "link"})
        {
            const std::string q =
                std::string("SELECT count(*) FROM ") + table + " WHERE run_id = ?1";
            NS_TEST_EXPECT_MSG_GT(QueryValue(db, q, run[1]), 0, table << " rows at flow level");
            NS_TEST_EXPECT_MSG_EQ(QueryValue(db, q, run[1]),
                                  QueryValue(db, q, run[0]),
                                  table << " rows as at packet level");
        }
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                         "SELECT count(*) FROM node WHERE run_id = ?1 AND "
                                         "kind = 'npu'",
                                         run[1]),
                              4,
                              "the NPUs are NPUs");
        NS_TEST_EXPECT_MSG_GT(
            QueryValue(db, "SELECT count(*) FROM port_sample WHERE run_id = ?1", run[1]),
            0,
            "port samples at flow level");
        const double busiest = QueryValue(db,
                                          "SELECT max(utilisation) FROM port_sample WHERE "
                                          "run_id = ?1 AND interval_ns >= 10000",
                                          run[1]);
        NS_TEST_EXPECT_MSG_EQ_TOL(busiest, 1.0, 0.02, "a ring link is busy at line rate");
        NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                         "SELECT count(*) FROM port_sample WHERE run_id = ?1 AND "
                                         "(paused_ns != 0 OR ecn_marks != 0 OR drops != 0)",
                                         run[1]),
                              0,
                              "no pause, mark or drop at flow level");
        // bytes conserved: what the NPUs' ports sent is what the ring moved, headers included
        const double sent = QueryValue(db,
                                       "SELECT sum(tx_bytes + 24 * tx_packets) FROM port_sample "
                                       "WHERE run_id = ?1",
                                       run[1]);
        const double packetSent = QueryValue(db,
                                             "SELECT sum(tx_bytes + 24 * tx_packets) FROM "
                                             "port_sample WHERE run_id = ?1",
                                             run[0]);
        NS_TEST_EXPECT_MSG_EQ_TOL(sent / packetSent, 1.0, 0.01, "wire bytes as at packet level");
        tn_db_close(db);
        std::remove(path.c_str());
    }
};

/**
 * \ingroup training-net-tests
 * \brief [sampling] ports: the default is all, port_samples = false is none, a mode given is
 * the point's and its parameters'.
 */
class ScenarioPortSamplingTestCase : public TestCase
{
  public:
    ScenarioPortSamplingTestCase()
        : TestCase("[sampling] ports chooses the sampled ports; port_samples = false is none")
    {
    }

  private:
    std::string Ports(const std::string& sampling, std::string* params)
    {
        ScenarioConfig config;
        std::string error;
        std::vector<ScenarioPoint> points;
        const std::string text = "[topology]\nspec = \"ring:4\"\n[sampling]\n" + sampling +
                                 "[[collective]]\nbytes = 1\n";
        if (!config.LoadText(text, "s.toml", &error) || !config.Expand(&points, &error) ||
            points.size() != 1)
        {
            return "error: " + error;
        }
        *params = points[0].paramsJson;
        return points[0].portSampling;
    }

    void DoRun() override
    {
        std::string params;
        NS_TEST_EXPECT_MSG_EQ(Ports("", &params), "all", "default");
        NS_TEST_EXPECT_MSG_NE(params.find("\"sampling.ports\":\"all\""), std::string::npos, params);
        NS_TEST_EXPECT_MSG_EQ(Ports("port_samples = false\n", &params), "none", "port_samples");
        NS_TEST_EXPECT_MSG_EQ(Ports("port_samples = false\nports = \"none\"\n", &params),
                              "none",
                              "both");
        NS_TEST_EXPECT_MSG_EQ(Ports("ports = \"per-dimension\"\n", &params), "per-dimension", "");
        NS_TEST_EXPECT_MSG_EQ(Ports("ports = \"busiest:8\"\n", &params), "busiest:8", "");
        NS_TEST_EXPECT_MSG_NE(params.find("\"sampling.ports\":\"busiest:8\""),
                              std::string::npos,
                              params);
    }
};

/**
 * \ingroup training-net-tests
 * \brief Scenario files: parsing, sweeps, errors and a run.
 */
class ScenarioTestSuite : public TestSuite
{
  public:
    ScenarioTestSuite()
        : TestSuite("training-net-scenario", UNIT)
    {
        AddTestCase(new ScenarioSweepTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioErrorTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioPortSamplingTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioRunTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioStreamsTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioFlowModeTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioScheduledTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioTrainingThemisTestCase, TestCase::QUICK);
    }
};

static ScenarioTestSuite g_scenarioTestSuite; //!< the suite
