/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A run the program did not finish: the recorder finishes it at Simulator::Destroy ('ok', or
 * 'error' naming the collective that did not complete), and a process that exits without
 * Destroy leaves it 'aborted', its rows written and the file intact.
 */
#include "roce-test-util.h"
#include "tn-test-data.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/stats-recorder.h"
#include "ns3/test.h"
#include "ns3/tn-db.h"
#include "ns3/tn-topology.h"
#include "ns3/training-helper.h"
#include "ns3/training-job.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sqlite3.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// One all-reduce on torus:4x4 recorded into a database, the way a script does.
struct Study
{
    tn_topology* topo{nullptr};
    RoceHelper roce;
    CollectiveHelper collectives;
    StatsHelper stats;
    Ptr<StatsRecorder> recorder;
    Ptr<Collective> collective;
    std::string error;

    /** \param path database \param bytes all-reduce size */
    Study(const std::string& path, uint64_t bytes)
    {
        std::remove(path.c_str());
        tn_error err{};
        if (tn_topology_from_spec("torus:4x4", &topo, &err) != TN_OK)
        {
            error = err.message;
            return;
        }
        roce.Install(topo);
        collectives.Install(topo, roce);
        // the tn_error overload: one error variable for the core and the helper
        recorder = stats.Install(path, "no-finish", "{}", topo, roce, &err);
        if (!recorder)
        {
            error = err.message;
            return;
        }
        collective = collectives.AllReduce(bytes, "multitree");
    }

    ~Study()
    {
        tn_topology_destroy(topo);
    }
};

/// The rows of one query as text (NULL as "NULL"), one string per row, columns joined by '|'.
std::vector<std::string>
Query(const std::string& path, const std::string& sql)
{
    std::vector<std::string> rows;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK)
    {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK)
        {
            while (sqlite3_step(stmt) == SQLITE_ROW)
            {
                std::string row;
                for (int c = 0; c < sqlite3_column_count(stmt); ++c)
                {
                    const unsigned char* text = sqlite3_column_text(stmt, c);
                    row += (c ? "|" : "") + (text ? std::string((const char*)text) : "NULL");
                }
                rows.push_back(row);
            }
        }
        else
        {
            rows.push_back("SQL error: " + std::string(sqlite3_errmsg(db)));
        }
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
    return rows;
}

/// The one value of a query ("" when it has no row).
std::string
Value(const std::string& path, const std::string& sql)
{
    const std::vector<std::string> rows = Query(path, sql);
    return rows.empty() ? "" : rows[0];
}

} // namespace

/**
 * \ingroup training-net-tests
 * A script that forgets Finish: Simulator::Destroy finishes its run 'ok', with the simulated
 * time at Destroy, a run.error that says the recorder finished it, the collective's row with
 * its end, and every port's samples tiling the whole run (the closing sample of the last
 * tick), as Finish would have written them.
 */
class StatsFinishAtDestroyTestCase : public TestCase
{
  public:
    StatsFinishAtDestroyTestCase()
        : TestCase("no Finish: ok at Simulator::Destroy, with the simulated time")
    {
    }

  private:
    void DoRun() override
    {
        const std::string path = CreateTempDirFilename("finish-destroy.db");
        int64_t now = -1;
        int64_t endNs = -1;
        {
            Study s(path, 1 << 20);
            NS_TEST_ASSERT_MSG_EQ(s.error, "", "study");
            Simulator::Run();
            now = Simulator::Now().GetNanoSeconds();
            NS_TEST_ASSERT_MSG_EQ(s.collective->IsComplete(), true, "the all-reduce ends");
            endNs = s.collective->GetEndTime().GetNanoSeconds();
            NS_TEST_EXPECT_MSG_EQ(s.recorder->IsFinished(), false, "open until Destroy");
            Simulator::Destroy();
            NS_TEST_ASSERT_MSG_EQ(s.recorder->IsFinishedByItself(), true, "finished itself");
            // Finish after Destroy (the wrong order) returns what was recorded
            const std::string late = s.stats.Finish("error", 1);
            NS_TEST_EXPECT_MSG_EQ(late, "ok", "recorded status");
        }
        NS_TEST_EXPECT_MSG_GT(now, endNs, "the last tick comes after the collective");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "SELECT status || '|' || simulated_ns FROM run"),
                              "ok|" + std::to_string(now),
                              "status and simulated time");
        NS_TEST_EXPECT_MSG_EQ(Value(path,
                                    "SELECT count(*) FROM run WHERE error LIKE "
                                    "'finished at Simulator::Destroy: the program did not "
                                    "call StatsHelper::Finish%'"),
                              "1",
                              "run.error says the recorder finished it");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "SELECT end_ns FROM collective"),
                              std::to_string(endNs),
                              "the collective's row");
        // every port: rows from 0 to the end, no gap, no overlap
        const std::vector<std::string> ports =
            Query(path,
                  "SELECT node_id, port, sum(interval_ns), max(time_ns) FROM port_sample "
                  "GROUP BY node_id, port");
        NS_TEST_EXPECT_MSG_GT(ports.size(), 0u, "port samples");
        for (const std::string& p : ports)
        {
            const std::string tail = p.substr(p.find('|', p.find('|') + 1) + 1);
            NS_TEST_EXPECT_MSG_EQ(tail,
                                  std::to_string(now) + "|" + std::to_string(now),
                                  "port " << p << " covers the run");
        }
        NS_TEST_EXPECT_MSG_EQ(Value(path, "PRAGMA integrity_check"), "ok", "integrity");
    }
};

/**
 * \ingroup training-net-tests
 * The same stopped (Simulator::Stop) at half the cost model's estimate, before the all-reduce
 * ends: Destroy finishes the run 'error', its error naming the collective, simulated_ns the
 * stop time, the collective's row without an end.
 */
class StatsFinishStoppedTestCase : public TestCase
{
  public:
    StatsFinishStoppedTestCase()
        : TestCase("no Finish, stopped early: error naming the collective")
    {
    }

  private:
    void DoRun() override
    {
        const std::string path = CreateTempDirFilename("finish-stopped.db");
        int64_t stopNs = 0;
        uint32_t id = 0;
        {
            Study s(path, 1 << 20);
            NS_TEST_ASSERT_MSG_EQ(s.error, "", "study");
            stopNs = s.collective->GetEstimatedTime().GetNanoSeconds() / 2;
            id = s.collective->GetId();
            Simulator::Stop(NanoSeconds(stopNs));
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(s.collective->IsComplete(), false, "stopped before its end");
            Simulator::Destroy();
        }
        NS_TEST_EXPECT_MSG_EQ(Value(path, "SELECT status || '|' || simulated_ns FROM run"),
                              "error|" + std::to_string(stopNs),
                              "status and simulated time");
        const std::string why = "collective " + std::to_string(id) +
                                " (all-reduce, multitree, 1048576 bytes) did not complete; "
                                "finished at Simulator::Destroy";
        NS_TEST_EXPECT_MSG_EQ(
            Value(path, "SELECT substr(error, 1, " + std::to_string(why.size()) + ") FROM run"),
            why,
            "run.error names the collective");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "SELECT ifnull(end_ns, 'NULL') FROM collective"),
                              "NULL",
                              "no end");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "PRAGMA integrity_check"), "ok", "integrity");
    }
};

/**
 * \ingroup training-net-tests
 * A process that exits without Simulator::Destroy: the run is 'aborted', "not finished", and
 * the rows recorded up to then are in the file, which passes integrity_check. A child process
 * runs the study (small batches on the writer thread, so batches are written while it runs)
 * and leaves either by returning from its study function without Destroy and calling exit(),
 * as a main() that returns does, or by exit() inside an event in the middle of the all-reduce;
 * it writes how many transfers were ready, the rows the run must hold.
 */
class StatsFinishExitTestCase : public TestCase
{
  public:
    /** \param midRun exit() inside an event at half the estimate, else after Run() */
    explicit StatsFinishExitTestCase(bool midRun)
        : TestCase(midRun ? "exit() during the run: aborted, its rows written"
                          : "return without Simulator::Destroy: aborted, its rows written"),
          m_midRun(midRun)
    {
    }

  private:
    /// Write how many transfers of c are ready into `ready`, then exit() if `leave`.
    static void Ready(std::string ready, Ptr<Collective> c, bool leave)
    {
        std::ofstream(ready) << c->GetReadyTransfers() << "\n";
        if (leave)
        {
            std::exit(0);
        }
    }

    /// The child's study: returns (or exits) without Simulator::Destroy.
    static void Child(const std::string& path, bool midRun)
    {
        Study s(path, 1 << 20);
        if (!s.error.empty())
        {
            std::_Exit(3);
        }
        if (midRun)
        {
            Simulator::Schedule(s.collective->GetEstimatedTime() / 2,
                                &StatsFinishExitTestCase::Ready,
                                path + ".ready",
                                s.collective,
                                true);
        }
        Simulator::Run();
        Ready(path + ".ready", s.collective, false);
    }

    void DoRun() override
    {
        const std::string path = CreateTempDirFilename(m_midRun ? "exit-mid.db" : "exit.db");
        roce_test::DefaultsGuard guard;
        guard.SetDefault("ns3::StatsRecorder::BatchRows", UintegerValue(16));
        guard.SetDefault("ns3::StatsRecorder::WriterThread", BooleanValue(true));
        std::cout.flush(); // the child's exit() flushes what it inherits: nothing
        std::cerr.flush();
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid == 0)
        {
            Child(path, m_midRun);
            std::exit(0); // as main() returning: its locals are gone, the simulator is not
        }
        NS_TEST_ASSERT_MSG_GT(pid, 0, "fork");
        int status = 0;
        waitpid(pid, &status, 0);
        NS_TEST_ASSERT_MSG_EQ(WIFEXITED(status) && WEXITSTATUS(status) == 0, true, "child exit");
        std::ifstream in(path + ".ready");
        uint64_t ready = 0;
        NS_TEST_ASSERT_MSG_EQ(bool(in >> ready), true, "the child's count");
        NS_TEST_EXPECT_MSG_GT(ready, 0u, "transfers before the exit");
        NS_TEST_EXPECT_MSG_EQ(Value(path,
                                    "SELECT status || '|' || ifnull(simulated_ns, 'NULL') || '|' "
                                    "|| (finished_at IS NOT NULL) FROM run"),
                              "aborted|NULL|1",
                              "status");
        NS_TEST_EXPECT_MSG_EQ(Value(path,
                                    "SELECT count(*) FROM run WHERE error LIKE 'not finished: "
                                    "the process exited before StatsHelper::Finish%'"),
                              "1",
                              "run.error");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "SELECT count(*) FROM transfer"),
                              std::to_string(ready),
                              "a row per transfer ready before the exit, none lost");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "PRAGMA integrity_check"), "ok", "integrity");
        std::remove((path + ".ready").c_str());
    }

    bool m_midRun; //!< exit() inside an event
};

/**
 * \ingroup training-net-tests
 * A training job stopped at its first iteration's end (of two) without Finish: Destroy
 * finishes the run 'error', its error saying the training job did not complete.
 */
class StatsFinishTrainingTestCase : public TnDataTestCase
{
  public:
    StatsFinishTrainingTestCase()
        : TnDataTestCase("no Finish, training job stopped: error naming the job")
    {
    }

  private:
    /// Stop the simulation (at NPU 0's first iteration end).
    static void Stop(const TrainingIterationRecord& /* record */)
    {
        Simulator::Stop();
    }

    void DoRun() override
    {
        const std::string path = CreateTempDirFilename("finish-training.db");
        tn_error err{};
        tn_topology* topo = nullptr;
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("switch:4", &topo, &err), TN_OK, "topology");
        bool complete = true;
        {
            RoceHelper roce;
            roce.Install(topo);
            CollectiveHelper collectives;
            collectives.Install(topo, roce);
            NpuHelper npus;
            npus.Install(roce.GetFabric().npus);
            StatsHelper stats;
            NS_TEST_ASSERT_MSG_NE(stats.Install(path, "training", "{}", topo, roce, &err),
                                  nullptr,
                                  err.message);
            TrainingHelper training;
            // pinned: the figures checked here are the flat ring's (a job's default is auto)
            training.SetAlgorithms("ring");
            training.SetJobAttribute("Iterations", UintegerValue(2));
            std::string error;
            NS_TEST_ASSERT_MSG_EQ(training.Load(DataFile("workloads/microAllReduce.txt"), &error),
                                  true,
                                  error);
            Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &error);
            NS_TEST_ASSERT_MSG_NE(job, nullptr, error);
            stats.AddTrainingJob(job);
            job->TraceConnectWithoutContext("IterationEnd",
                                            MakeCallback(&StatsFinishTrainingTestCase::Stop));
            job->Start();
            Simulator::Run();
            complete = job->IsComplete();
            Simulator::Destroy();
        }
        tn_topology_destroy(topo);
        NS_TEST_EXPECT_MSG_EQ(complete, false, "stopped after one iteration of two");
        NS_TEST_EXPECT_MSG_EQ(Value(path, "SELECT status FROM run"), "error", "status");
        NS_TEST_EXPECT_MSG_EQ(Value(path,
                                    "SELECT count(*) FROM run WHERE error LIKE "
                                    "'%the training job did not complete%finished at "
                                    "Simulator::Destroy%'"),
                              "1",
                              "run.error names the job");
    }
};

/**
 * \ingroup training-net-tests
 * StatsHelper::Install's tn_error overload reports what the std::string one does, with code
 * TN_EDB, and leaves the tn_error untouched on success (the core's contract).
 */
class StatsInstallCoreErrorTestCase : public TestCase
{
  public:
    StatsInstallCoreErrorTestCase()
        : TestCase("Install reports in a tn_error as in a std::string")
    {
    }

  private:
    void DoRun() override
    {
        const std::string bad = CreateTempDirFilename("no-such-folder") + "/x.db";
        tn_topology* topo = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("switch:4", &topo, &err), TN_OK, "topology");
        RoceHelper roce;
        roce.Install(topo);
        StatsHelper stats;
        std::string why;
        NS_TEST_EXPECT_MSG_EQ(bool(stats.Install(bad, "x", "{}", topo, roce, &why)),
                              false,
                              "std::string: refused");
        NS_TEST_EXPECT_MSG_EQ(bool(stats.Install(bad, "x", "{}", topo, roce, &err)),
                              false,
                              "tn_error: refused");
        NS_TEST_EXPECT_MSG_EQ(err.code, TN_EDB, "code");
        NS_TEST_EXPECT_MSG_EQ(std::string(err.message), why, "the same message");
        NS_TEST_EXPECT_MSG_NE(why.find(bad), std::string::npos, "it names the file");
        err.code = TN_EINVAL; // a success leaves it as it is
        const std::string good = CreateTempDirFilename("core-error.db");
        Ptr<StatsRecorder> recorder = stats.Install(good, "x", "{}", topo, roce, &err);
        NS_TEST_EXPECT_MSG_EQ(bool(recorder), true, "installed");
        NS_TEST_EXPECT_MSG_EQ(err.code, TN_EINVAL, "untouched on success");
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(stats.Finish("ok", Simulator::Now().GetNanoSeconds()), "ok", "ok");
        Simulator::Destroy();
        tn_topology_destroy(topo);
        NS_TEST_EXPECT_MSG_EQ(Value(good, "SELECT status || '|' || ifnull(error, 'NULL') FROM run"),
                              "ok|NULL",
                              "Finish: no text from the recorder");
    }
};

/**
 * \ingroup training-net-tests
 * Runs the recorder's own ends of a run.
 */
class StatsFinishTestSuite : public TestSuite
{
  public:
    StatsFinishTestSuite()
        : TestSuite("training-net-stats-finish", UNIT)
    {
        AddTestCase(new StatsFinishAtDestroyTestCase, TestCase::QUICK);
        AddTestCase(new StatsFinishStoppedTestCase, TestCase::QUICK);
        AddTestCase(new StatsFinishExitTestCase(false), TestCase::QUICK);
        AddTestCase(new StatsFinishExitTestCase(true), TestCase::QUICK);
        AddTestCase(new StatsFinishTrainingTestCase, TestCase::QUICK);
        AddTestCase(new StatsInstallCoreErrorTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static StatsFinishTestSuite g_statsFinishTestSuite;
