/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3's own applications on the RoCE fabric: BulkSendApplication over TCP, OnOffApplication
 * over UDP and PacketSink on NPUs given the internet stack by RoceHelper, alone and beside an
 * RDMA all-reduce. Built only where the ns-3 in use has its applications module (the
 * standalone build on Debian's ns-3.37, an ns-3.36+ tree); the other IP tests (roce-ip) use
 * small socket users so that they run in every build.
 */
#include "roce-ip-test-util.h"
#include "roce-test-util.h"

#include "ns3/application-container.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/collective-helper.h"
#include "ns3/data-rate.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/on-off-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdint>

namespace ns3
{

using namespace roce_test;

namespace
{

const uint32_t UDP_SIZE = 1000; //!< OnOff datagram payload
const uint16_t TCP_PORT = 5001; //!< BulkSend's sink
const uint16_t UDP_PORT = 6000; //!< OnOff's sink

/** Bytes an application's "Tx" trace reports. */
void
CountTx(uint64_t* bytes, Ptr<const Packet> p)
{
    *bytes += p->GetSize();
}

/**
 * Bytes an OnOffApplication with a constant rate (always on) sends between its start and stop:
 * its first packet leaves one packet time after the start, then one every packet time, so
 * floor(rate x time / packet size) packets (time not a multiple of the packet time).
 */
uint64_t
OnOffBytes(DataRate rate, Time duration, uint32_t size)
{
    const double packets = rate.GetBitRate() * duration.GetSeconds() / (size * 8.0);
    return static_cast<uint64_t>(std::floor(packets)) * size;
}

/** An always-on UDP OnOffApplication from `from` to `to`'s UDP_PORT; its Tx bytes counted. */
ApplicationContainer
InstallOnOff(Ptr<Node> from, Ipv4Address to, DataRate rate, Time stop, uint64_t* txBytes)
{
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(to, UDP_PORT));
    onoff.SetConstantRate(rate, UDP_SIZE);
    ApplicationContainer app = onoff.Install(from);
    app.Start(Seconds(0));
    app.Stop(stop);
    app.Get(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountTx, txBytes));
    return app;
}

/** A UDP PacketSink on UDP_PORT of `node`. */
Ptr<PacketSink>
InstallUdpSink(Ptr<Node> node)
{
    PacketSinkHelper sink("ns3::UdpSocketFactory",
                          InetSocketAddress(Ipv4Address::GetAny(), UDP_PORT));
    return DynamicCast<PacketSink>(sink.Install(node).Get(0));
}

} // namespace

/**
 * \ingroup training-net-tests
 * On an idle fabric (switch:4), BulkSend over TCP (NPU 0 -> 1, 2 MiB) and OnOff over UDP
 * (NPU 2 -> 3, 40 Gb/s for 100.1 us): BulkSend's sink receives exactly MaxBytes, OnOff sends
 * rate x time (500 datagrams) and its sink receives all of it; nothing is dropped.
 */
class RoceAppsIdleTestCase : public TestCase
{
  public:
    RoceAppsIdleTestCase()
        : TestCase("BulkSend and OnOff on an idle fabric: every byte, OnOff at rate x time")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard defaults;
        Topology t("switch:4,rate=100Gbps,latency=1us");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "topology");
        const tn_topology* topo = t.topo;
        // snippet: roce-apps-bulk-send
        RoceHelper roce;
        RoceFabricNodes fabric = roce.Install(topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ip.GetAddress(1), 5001));
        bulk.SetAttribute("MaxBytes", UintegerValue(2 << 20));
        ApplicationContainer senders = bulk.Install(fabric.npus.Get(0));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), 5001));
        ApplicationContainer sinks = sink.Install(fabric.npus.Get(1));
        // end snippet: roce-apps-bulk-send
        FabricCounters counters(fabric);
        uint64_t bulkTx = 0;
        senders.Get(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountTx, &bulkTx));
        const DataRate rate("40Gbps");
        const Time stop = NanoSeconds(100100);
        uint64_t udpTx = 0;
        InstallOnOff(fabric.npus.Get(2), ip.GetAddress(3), rate, stop, &udpTx);
        Ptr<PacketSink> udpSink = InstallUdpSink(fabric.npus.Get(3));
        Simulator::Run();

        const uint64_t tcpRx = DynamicCast<PacketSink>(sinks.Get(0))->GetTotalRx();
        NS_TEST_EXPECT_MSG_EQ(bulkTx, uint64_t(2 << 20), "BulkSend sends MaxBytes");
        NS_TEST_EXPECT_MSG_EQ(tcpRx, uint64_t(2 << 20), "its sink receives every byte");
        const uint64_t expected = OnOffBytes(rate, stop, UDP_SIZE);
        NS_TEST_EXPECT_MSG_EQ(expected, 500 * UDP_SIZE, "the closed form: 500 datagrams");
        NS_TEST_EXPECT_MSG_EQ(udpTx, expected, "OnOff sends rate x time");
        NS_TEST_EXPECT_MSG_EQ(udpSink->GetTotalRx(), expected, "its sink receives all of it");
        uint64_t drops = 0;
        for (uint64_t d : counters.switchDrops)
        {
            drops += d;
        }
        NS_TEST_EXPECT_MSG_EQ(drops, 0, "an idle fabric drops nothing");
        NS_TEST_EXPECT_MSG_EQ(counters.deviceDrops.size(), 0, "no device drop");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * A ring all-reduce on the lossless priority 3 while, on the lossy priority 0, BulkSend sends
 * 1 MiB over TCP from NPU 0 to NPU 2 and two OnOffs send UDP at line rate from NPUs 1 and 3
 * to NPU 2 for 200.1 us (an incast on the switch port toward NPU 2):
 *   - the switch drops UDP datagrams and never pauses priority 0;
 *   - each OnOff sends rate x time, and the UDP sink receives exactly what was sent less the
 *     datagrams dropped (switch and sender queue);
 *   - TCP recovers its losses: BulkSend's sink receives exactly MaxBytes;
 *   - the lossless class drops nothing and the all-reduce's data is what its plan says.
 */
class RoceAppsBesideCollectiveTestCase : public TestCase
{
  public:
    RoceAppsBesideCollectiveTestCase()
        : TestCase("BulkSend and an OnOff incast beside a ring all-reduce: lossy drops, "
                   "lossless intact")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard defaults;
        // a 4 MiB switch buffer (its lossy share about 0.5 MB) fills within the incast
        defaults.SetDefault("ns3::RoceSwitchMmu::BufferSize", UintegerValue(4 << 20));
        Topology t("switch:4,rate=100Gbps,latency=1us");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "topology");
        RoceHelper roce;
        RoceFabricNodes fabric = roce.Install(t.topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        FabricCounters counters(fabric);
        CollectiveHelper collectives;
        collectives.Install(t.topo, roce);
        Ptr<Collective> c = collectives.AllReduce(4 << 20, "ring");

        const uint64_t tcpBytes = 1 << 20;
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ip.GetAddress(2), TCP_PORT));
        bulk.SetAttribute("MaxBytes", UintegerValue(tcpBytes));
        bulk.Install(fabric.npus.Get(0));
        PacketSinkHelper tcpSinkHelper("ns3::TcpSocketFactory",
                                       InetSocketAddress(Ipv4Address::GetAny(), TCP_PORT));
        Ptr<PacketSink> tcpSink =
            DynamicCast<PacketSink>(tcpSinkHelper.Install(fabric.npus.Get(2)).Get(0));
        const DataRate rate("100Gbps");
        const Time stop = NanoSeconds(200100);
        uint64_t udpTx[2] = {0, 0};
        InstallOnOff(fabric.npus.Get(1), ip.GetAddress(2), rate, stop, &udpTx[0]);
        InstallOnOff(fabric.npus.Get(3), ip.GetAddress(2), rate, stop, &udpTx[1]);
        Ptr<PacketSink> udpSink = InstallUdpSink(fabric.npus.Get(2));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(c->IsComplete(), true, "the all-reduce completes");
        NS_TEST_EXPECT_MSG_EQ(c->Check(), "", "its data as planned");
        NS_TEST_EXPECT_MSG_EQ(counters.switchDrops[3], 0, "no drop on the lossless class");
        NS_TEST_EXPECT_MSG_EQ(counters.pfcFrames[0], 0, "the lossy class is never paused");
        const uint64_t udpSwitchDrops = counters.switchDropsByProtocol[17];
        NS_TEST_EXPECT_MSG_GT(udpSwitchDrops, 0, "the incast drops datagrams at the switch");
        NS_TEST_EXPECT_MSG_EQ(udpSwitchDrops + counters.switchDropsByProtocol[6],
                              counters.switchDrops[0],
                              "every switch drop is IP traffic of priority 0");
        const uint64_t expected = OnOffBytes(rate, stop, UDP_SIZE);
        NS_TEST_EXPECT_MSG_EQ(expected, 2501 * UDP_SIZE, "the closed form: 2,501 datagrams");
        NS_TEST_EXPECT_MSG_EQ(udpTx[0], expected, "OnOff on NPU 1 sends rate x time");
        NS_TEST_EXPECT_MSG_EQ(udpTx[1], expected, "OnOff on NPU 3 sends rate x time");
        // a sender's own queue may drop too (IpQueueFull): counted per packet, UDP or TCP
        const uint64_t senderDrops = counters.deviceDrops["IpQueueFull"];
        NS_TEST_EXPECT_MSG_EQ(udpSink->GetTotalRx() + (udpSwitchDrops + senderDrops) * UDP_SIZE,
                              2 * expected,
                              "received + dropped datagrams = sent");
        NS_TEST_EXPECT_MSG_EQ(tcpSink->GetTotalRx(), tcpBytes, "TCP recovers every byte");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * ns-3's applications module (BulkSend, OnOff, PacketSink) on the RoCE fabric.
 */
class RoceAppsTestSuite : public TestSuite
{
  public:
    RoceAppsTestSuite()
        : TestSuite("training-net-roce-apps", UNIT)
    {
        AddTestCase(new RoceAppsIdleTestCase, TestCase::QUICK);
        AddTestCase(new RoceAppsBesideCollectiveTestCase, TestCase::QUICK);
    }
};

static RoceAppsTestSuite g_roceAppsTestSuite; //!< the suite

} // namespace ns3
