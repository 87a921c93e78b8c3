/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An ordinary ns-3 point-to-point study recorded into the results database: two senders
 * offer constant-bit-rate traffic through ns-3's own PointToPointNetDevices, one of them
 * more than its 10 Mb/s link carries, so its device queue fills and drops. One
 * StatsHelper::Install call records the nodes, the links and every device's port samples
 * (bytes, utilisation, queue bytes, drops) into the same tables the RoCE fabric uses, so the
 * views and the query cookbook of doc/results-database.rst work on it. A study on ns-3's
 * internet stack records the same way (the queue disc's bytes and drops are included).
 *
 *   p2p-study-stats --db=study.db --offered=12Mbps --seconds=1
 *   sqlite3 study.db "SELECT node_id, port, peer_node, mean_utilisation, peak_queue_bytes,
 *                     drops FROM hottest_ports WHERE run_id = 1"
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/program-options.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-signal.h"

#include <iostream>

using namespace ns3;

namespace
{

/// Sends a packet of `bytes` on `dev` every `gap` until `stop` (constant bit rate).
void
SendCbr(Ptr<NetDevice> dev, Address to, uint32_t bytes, Time gap, Time stop)
{
    dev->Send(Create<Packet>(bytes), to, 0x0800);
    if (Simulator::Now() + gap < stop)
    {
        Simulator::Schedule(gap, &SendCbr, dev, to, bytes, gap, stop);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string dbPath = "results.db";
    uint64_t offeredBps = 12000000;
    uint64_t seconds = 1;
    ProgramOptions options("p2p-study-stats", __FILE__);
    options.AddString("db", "results database (SQLite) to append this run to", &dbPath);
    options.AddRate("offered", "rate node 0 offers to its 10 Mb/s link", &offeredBps);
    options.AddCount("seconds", "how long the senders send", uint64_t(1), uint64_t(3600), &seconds);
    // from here to the exit: a signal aborts the run it comes before, or ends the program
    // after the last run is recorded, never kills it midway
    options.WatchSignals();
    if (!options.Parse(argc, argv))
    {
        return 2;
    }

    // node 0 -> node 2 over 10 Mb/s (overloaded), node 1 -> node 2 over 10 Mb/s (half load)
    NodeContainer nodes;
    nodes.Create(3);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("2ms"));
    NetDeviceContainer a = p2p.Install(nodes.Get(0), nodes.Get(2));
    NetDeviceContainer b = p2p.Install(nodes.Get(1), nodes.Get(2));

    StatsHelper stats;
    stats.SetRecorderAttribute("SampleInterval", TimeValue(MilliSeconds(10)));
    std::string error;
    const std::string params =
        "{\"study\":\"p2p-cbr\",\"offered_bps\":" + std::to_string(offeredBps) +
        ",\"seconds\":" + std::to_string(seconds) + "}";
    if (!stats.Install(dbPath, "p2p-study-stats", params, nodes, &error))
    {
        std::cerr << "p2p-study-stats: --db: " << error << std::endl;
        return 1;
    }
    const uint32_t bytes = 1000;
    const Time stop = Seconds(seconds);
    const Time gap0 = Seconds(bytes * 8.0 / offeredBps);
    const Time gap1 = Seconds(bytes * 8.0 / 5e6);
    Simulator::ScheduleNow(&SendCbr, a.Get(0), a.Get(1)->GetAddress(), bytes, gap0, stop);
    Simulator::ScheduleNow(&SendCbr, b.Get(0), b.Get(1)->GetAddress(), bytes, gap1, stop);
    Simulator::Run();
    const std::string recorded = stats.Finish("ok", Simulator::Now().GetNanoSeconds());
    options.Recorded(stats.GetRecorder()->GetRunId(), recorded);
    std::cout << "run " << stats.GetRecorder()->GetRunId() << " recorded in " << dbPath << " ("
              << recorded << "), " << Simulator::Now().GetSeconds() << " s simulated" << std::endl;
    Simulator::Destroy();
    if (recorded == "aborted")
    {
        std::cerr << "p2p-study-stats: interrupted; run recorded as aborted" << std::endl;
        return tn_signal_exit_status(stats.GetRecorder()->GetSignal());
    }
    if (recorded != "ok")
    {
        const std::string& why = stats.GetRecorder()->GetError().empty()
                                     ? stats.GetRecorder()->GetRunError()
                                     : "--db: " + stats.GetRecorder()->GetError();
        std::cerr << "p2p-study-stats: " << why << std::endl;
        return 1;
    }
    return options.ExitStatus(0);
}
