/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/scenario-config.h"
#include "ns3/scenario-runner.h"
#include "ns3/test.h"
#include "ns3/tn-db.h"

#include <cstdio>
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
               "e.toml:5:13: collective[0].scheduler: 'lifo' is not one of fifo, scf");
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
        NS_TEST_ASSERT_MSG_EQ(config.Expand(&points, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(points.size(), 1, "no sweep left");
        const std::string path = CreateTempDirFilename("scenario.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        ScenarioRunner runner;
        int reports = 0;
        runner.SetProgressCallback([&reports](const ScenarioProgress&) { reports++; }, 0);
        ScenarioResult r = runner.Run(points[0], db);
        tn_db_close(db);
        NS_TEST_ASSERT_MSG_EQ(r.status, "ok", r.error);
        NS_TEST_EXPECT_MSG_EQ(r.runId, 1, "first run of a new database");
        NS_TEST_EXPECT_MSG_GT(reports, 0, "progress reported");
        // Ring on 4 NPUs: 2(N-1) steps of S/N bytes on 128 Gb/s links of 150 ns, each packet
        // of 4096 B carrying 82 B of headers, FCS, preamble and gap.
        double expected = 2 * 3 * (150 + 65536 / 4 * (4096.0 + 82) / 4096 / 16);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(r.simulatedNs), expected, 0.02 * expected, "ring time");
        std::remove(path.c_str());
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
        AddTestCase(new ScenarioRunTestCase, TestCase::QUICK);
    }
};

static ScenarioTestSuite g_scenarioTestSuite; //!< the suite
