/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An ordinary ns-3 study recorded into the results database: two TCP senders share a
 * 10 Mb/s bottleneck to one receiver (a dumbbell of PointToPointNetDevices with ns-3's
 * internet stack and its default queue discs). One StatsHelper::Install call records the
 * nodes, the links and every device's port samples (bytes, utilisation, queue bytes of the
 * device queue plus its queue disc, drops) into the same tables the RoCE fabric uses, so the
 * views and the query cookbook of doc/results-database.rst work on it:
 *
 *   p2p-study-stats --db=study.db --bytes=2MB
 *   sqlite3 study.db "SELECT node_id, port, peer_node, mean_utilisation, peak_queue_bytes
 *                     FROM hottest_ports WHERE run_id = 1 AND hot_rank <= 3"
 */
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/program-options.h"
#include "ns3/stats-helper.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string dbPath = "results.db";
    uint64_t bytes = 2000000;
    ProgramOptions options("p2p-study-stats", __FILE__);
    options.AddString("db", "results database (SQLite) to append this run to", &dbPath);
    options.AddBytes("bytes", "bytes each TCP sender sends", &bytes);
    if (!options.Parse(argc, argv))
    {
        return 2;
    }

    // senders 0 and 1 -> router 2 -> receiver 3
    NodeContainer nodes;
    nodes.Create(4);
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("5ms"));
    NetDeviceContainer a0 = access.Install(nodes.Get(0), nodes.Get(2));
    NetDeviceContainer a1 = access.Install(nodes.Get(1), nodes.Get(2));
    NetDeviceContainer b = bottleneck.Install(nodes.Get(2), nodes.Get(3));
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.1.0", "255.255.255.0");
    addresses.Assign(a0);
    addresses.SetBase("10.1.2.0", "255.255.255.0");
    addresses.Assign(a1);
    addresses.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer receiver = addresses.Assign(b);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 9;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinks = sink.Install(nodes.Get(3));
    BulkSendHelper send("ns3::TcpSocketFactory", InetSocketAddress(receiver.GetAddress(1), port));
    send.SetAttribute("MaxBytes", UintegerValue(bytes));
    send.Install(nodes.Get(0));
    send.Install(nodes.Get(1));

    StatsHelper stats;
    std::string error;
    const std::string params = "{\"study\":\"dumbbell\",\"bytes\":" + std::to_string(bytes) + "}";
    if (!stats.Install(dbPath, "p2p-study-stats", params, nodes, &error))
    {
        std::cerr << "p2p-study-stats: --db: " << error << std::endl;
        return 1;
    }
    // TCP's timers never let the event list run dry: stop when everything has arrived
    Ptr<PacketSink> packetSink = DynamicCast<PacketSink>(sinks.Get(0));
    packetSink->TraceConnectWithoutContext(
        "Rx",
        MakeBoundCallback(
            +[](Ptr<PacketSink> s, uint64_t total, Ptr<const Packet>, const Address&) {
                if (s->GetTotalRx() >= total)
                {
                    Simulator::Stop();
                }
            },
            packetSink,
            2 * bytes));
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    const uint64_t received = packetSink->GetTotalRx();
    const bool complete = received == 2 * bytes;
    const std::string recorded =
        stats.Finish(complete ? "ok" : "error", Simulator::Now().GetNanoSeconds());
    std::cout << "received " << received << " of " << 2 * bytes << " bytes by "
              << Simulator::Now().GetSeconds() << " s; run " << stats.GetRecorder()->GetRunId()
              << " recorded in " << dbPath << " (" << recorded << ")" << std::endl;
    Simulator::Destroy();
    return complete && recorded == "ok" ? 0 : 1;
}
