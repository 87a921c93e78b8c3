/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The same collective under each congestion control of the RDMA NIC (DCQCN, HPCC, HPCC-PINT,
 * TIMELY, DCTCP, none):
 *
 *   cc-comparison --topology=leafspine:leaves=2,spines=1,hosts=4,oversub=4,rate=100Gbps,latency=1us
 *                 --collective=all-to-all --algorithm=direct --bytes=4MiB
 *
 * One line per congestion control: collective time, median and 99th-percentile FCT slowdown of
 * its messages (FCT over the FCT of the message alone in the fabric), the largest queue any port
 * held at a sample (StatsRecorder interval), the time ports spent paused by PFC (all ports
 * and priorities together), the CNPs the senders received and the rate cuts of their queue
 * pairs (the tables cc_qp and cc_sample hold these per queue pair and over time). Before the
 * table, what is compared: each control's class and the parameters its queue pairs were made
 * with, and the settings every control shares (packet size, ACK interval, ECN marking), as
 * ns-3 attribute defaults of this run (--ns3::RdmaTimely::AdditiveIncrease=50Mbps changes
 * one). Each run is appended to the results database (--db, default results.db) with the
 * congestion control and those parameters in its params_json; training-net-report draws
 * them side by side.
 */
#include "ns3/attribute-settings.h"
#include "ns3/collective-helper.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-db.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"

#include <cstdio>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// What the results database says about one run.
struct CcFigures
{
    double p50{0};       //!< median FCT slowdown
    double p99{0};       //!< 99th-percentile FCT slowdown
    double peakQueue{0}; //!< largest sampled port queue (bytes)
    double pausedUs{0};  //!< time ports were paused (us, summed)
    double cnps{0};      //!< CNPs received by the senders (table cc_qp)
    double rateCuts{0};  //!< rate cuts of the queue pairs (table cc_qp)
    bool ok{false};      //!< the queries ran
};

/// \return one number from a query with the run id as its only parameter
double
QueryNumber(sqlite3* db, const char* sql, int64_t run, bool* ok)
{
    sqlite3_stmt* s = nullptr;
    double v = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
    {
        *ok = false;
        return 0;
    }
    sqlite3_bind_int64(s, 1, run);
    if (sqlite3_step(s) == SQLITE_ROW)
    {
        v = sqlite3_column_double(s, 0);
    }
    sqlite3_finalize(s);
    return v;
}

CcFigures
Figures(tn_db* tdb, int64_t run)
{
    CcFigures f;
    sqlite3* db = static_cast<sqlite3*>(tn_db_handle(tdb));
    f.ok = true;
    // the k-th smallest slowdown, k = ceil(q n) - 1 (nearest rank)
    const char* quantile = "SELECT slowdown FROM flow WHERE run_id = ?1 AND slowdown IS NOT NULL "
                           "ORDER BY slowdown LIMIT 1 OFFSET (SELECT MAX(0, CAST((COUNT(*) * %s "
                           "+ 0.999999) AS INTEGER) - 1) FROM flow WHERE run_id = ?1 AND "
                           "slowdown IS NOT NULL)";
    char sql[512];
    std::snprintf(sql, sizeof sql, quantile, "0.5");
    f.p50 = QueryNumber(db, sql, run, &f.ok);
    std::snprintf(sql, sizeof sql, quantile, "0.99");
    f.p99 = QueryNumber(db, sql, run, &f.ok);
    f.peakQueue = QueryNumber(db,
                              "SELECT MAX(q0_bytes + q1_bytes + q2_bytes + q3_bytes + q4_bytes + "
                              "q5_bytes + q6_bytes + q7_bytes) FROM port_sample WHERE run_id = ?1",
                              run,
                              &f.ok);
    f.pausedUs = QueryNumber(db,
                             "SELECT COALESCE(SUM(paused_ns), 0) / 1e3 FROM port_sample "
                             "WHERE run_id = ?1",
                             run,
                             &f.ok);
    f.cnps = QueryNumber(db,
                         "SELECT COALESCE(SUM(cnps_received), 0) FROM cc_qp WHERE run_id = ?1",
                         run,
                         &f.ok);
    f.rateCuts = QueryNumber(db,
                             "SELECT COALESCE(SUM(rate_cuts), 0) FROM cc_qp WHERE run_id = ?1",
                             run,
                             &f.ok);
    return f;
}

/// \return the settings every congestion control of the run shares, as attribute defaults
std::string
SharedParameters()
{
    return "ns3::RdmaNic " +
           AttributeSettings::DescribeDefaults(RdmaNic::GetTypeId(), {"Mtu", "AckInterval"}) +
           "; ns3::RoceSwitchMmu " +
           AttributeSettings::DescribeDefaults(
               RoceSwitchMmu::GetTypeId(),
               {"EcnEnabled", "EcnKmin", "EcnKmax", "EcnPmax", "EcnScaleWithRate"});
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string spec = "leafspine:leaves=2,spines=1,hosts=4,oversub=4,rate=100Gbps,latency=1us";
    std::string collective = "all-to-all";
    std::string algorithm = "direct";
    std::vector<std::string> list = {"dcqcn", "hpcc", "hpcc-pint", "timely", "dctcp", "none"};
    uint64_t bytes = 4 << 20;
    std::string dbPath = "results.db";
    ProgramOptions options("cc-comparison", __FILE__);
    options.AddString("db", "results database (SQLite) to append the runs to", &dbPath);
    options.AddString("topology", "topology spec", &spec);
    options.AddString("collective", "all-reduce, all-to-all, all-gather, ...", &collective);
    options.AddString("algorithm", "collective algorithm", &algorithm);
    options.AddList("cc",
                    "comma-separated congestion controls: " + RdmaCcRegistry::ListNames(),
                    &list);
    options.AddBytes("bytes", "collective size", &bytes);
    // from here to the exit: a signal aborts the run it comes before, or ends the program
    // after the last run is recorded, never kills it midway
    options.WatchSignals();
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    for (const std::string& cc : list)
    {
        if (!RdmaCcRegistry::Find(cc))
        {
            std::fprintf(stderr,
                         "cc-comparison: --cc: '%s' is not a congestion control (%s)\n",
                         cc.c_str(),
                         RdmaCcRegistry::ListNames().c_str());
            return 2;
        }
    }
    tn_error err;
    tn_collective op;
    if (tn_collective_parse(collective.c_str(), &op, &err) != TN_OK)
    {
        std::fprintf(stderr, "cc-comparison: --collective: %s\n", err.message);
        return 2;
    }
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "cc-comparison: --topology: %s\n", err.message);
        return 2;
    }
    // the plan is checked before anything is printed or recorded: a request no algorithm can
    // plan is one error line, not a table header followed by it
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = op;
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    if (tn_tune_plan_check(topo, &request, &err) != TN_OK)
    {
        std::fprintf(stderr, "cc-comparison: --algorithm: %s\n", err.message);
        tn_topology_destroy(topo);
        return 2;
    }
    for (const std::string& cc : list)
    {
        RoceHelper check;
        check.SetCongestionControl(cc);
        const std::string fabricError = check.Check(topo);
        if (!fabricError.empty())
        {
            std::fprintf(stderr, "cc-comparison: %s\n", fabricError.c_str());
            tn_topology_destroy(topo);
            return 2;
        }
    }
    tn_db* db = nullptr;
    if (tn_db_open(dbPath.c_str(), &db, &err) != TN_OK)
    {
        std::fprintf(stderr, "cc-comparison: --db: %s\n", err.message);
        tn_topology_destroy(topo);
        return 2;
    }
    std::printf("%s (%s) of %llu bytes on %s (%u NPUs)\n",
                collective.c_str(),
                algorithm.c_str(),
                static_cast<unsigned long long>(bytes),
                spec.c_str(),
                tn_topology_npu_count(topo));
    // what the rows compare, before them (an error or interruption line stays the last):
    // each control as its queue pairs were made, and what they share
    std::printf("parameters (ns-3 attribute defaults of this run):\n");
    for (const std::string& cc : list)
    {
        std::printf("  %-10s %s\n", cc.c_str(), RdmaCcRegistry::DescribeParameters(cc).c_str());
    }
    std::printf("  %-10s %s\n", "shared", SharedParameters().c_str());
    std::printf("%-10s %14s %10s %10s %14s %12s %8s %10s\n",
                "cc",
                "collective us",
                "FCT p50",
                "FCT p99",
                "peak queue KB",
                "paused us",
                "CNPs",
                "rate cuts");
    int status = 0;
    // the first run that did not go as planned, and how many did not: one error line at the
    // end, after the table (a row's "NOT AS PLANNED" is on stdout)
    std::string firstFailure;
    unsigned failures = 0;
    for (const std::string& cc : list)
    {
        RoceHelper roce;
        roce.SetCongestionControl(cc);
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        std::string error;
        Ptr<Collective> c = collectives.Create(request, {}, &error);
        if (!c)
        {
            std::fflush(stdout); // the rows so far, then the error line last
            std::fprintf(stderr, "cc-comparison: %s: %s\n", algorithm.c_str(), error.c_str());
            Simulator::Destroy();
            status = 2;
            break;
        }
        const std::string params =
            "{\"topology\":\"" + spec + "\",\"collective\":\"" + collective +
            "\",\"algorithm\":\"" + algorithm + "\",\"bytes\":" + std::to_string(bytes) +
            ",\"cc\":\"" + cc + "\",\"cc_parameters\":\"" + RdmaCcRegistry::DescribeParameters(cc) +
            "\",\"shared_parameters\":\"" + SharedParameters() + "\"}";
        StatsHelper stats;
        if (!stats.Install(db, "cc-comparison", params, topo, roce, &error))
        {
            std::fflush(stdout);
            std::fprintf(stderr, "cc-comparison: --db: %s\n", error.c_str());
            Simulator::Destroy();
            status = 1;
            break;
        }
        stats.LimitSimulatedTime(c->GetEstimatedTime(), "the cost model's estimate of the plan");
        collectives.Start(c);
        Simulator::Run();
        const std::string limit = stats.GetRecorder()->GetStopError();
        const std::string result = limit.empty() ? c->Check() : limit;
        const double us = c->IsComplete() ? c->GetDuration().GetNanoSeconds() / 1e3 : -1;
        const int64_t run = stats.GetRecorder()->GetRunId();
        const std::string recorded =
            stats.Finish(result.empty() ? "ok" : "error",
                         us > 0 ? static_cast<uint64_t>(us * 1e3) : 0,
                         result.empty() ? "" : "the collective did not run as planned: " + result);
        options.Recorded(run, recorded);
        Simulator::Destroy();
        if (recorded == "aborted")
        {
            std::fflush(stdout);
            std::fprintf(stderr, "cc-comparison: interrupted; run recorded as aborted\n");
            status = tn_signal_exit_status(stats.GetRecorder()->GetSignal());
            break;
        }
        const CcFigures f = Figures(db, run);
        std::printf("%-10s %14.1f %10.3f %10.3f %14.1f %12.1f %8.0f %10.0f%s%s\n",
                    cc.c_str(),
                    us,
                    f.p50,
                    f.p99,
                    f.peakQueue / 1e3,
                    f.pausedUs,
                    f.cnps,
                    f.rateCuts,
                    result.empty() ? "" : "  NOT AS PLANNED: ",
                    result.c_str());
        status |= result.empty() && f.ok ? 0 : 1;
        if (!(result.empty() && f.ok) && failures++ == 0)
        {
            firstFailure =
                cc + ": " + (result.empty() ? "its figures could not be read back" : result);
        }
    }
    if (failures && status == 1)
    {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "cc-comparison: %u run(s) did not run as planned; the first, %s\n",
                     failures,
                     firstFailure.c_str());
    }
    tn_db_close(db);
    tn_topology_destroy(topo);
    return options.ExitStatus(status);
}
