/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3's internet stack on the RoCE fabric (RoceHelper::InstallInternetStack): TCP and UDP
 * between NPUs beside RDMA collectives. The senders and sinks are small socket users written
 * here, so that these tests run in every build; ns-3's own applications (BulkSend, OnOff,
 * PacketSink) are tested by roce-apps where the applications module is built.
 */
#include "roce-ip-test-util.h"
#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/stats-helper.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/tn-topology.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sqlite3.h>
#include <string>

namespace ns3
{

using namespace roce_test;

namespace
{

const uint64_t RATE = 100000000000ULL; //!< 100 Gb/s links
const uint32_t SEGMENT = 4096;         //!< TCP payload per segment
/// Bytes on the wire per TCP segment besides its payload: TCP 20 + timestamps 12, IPv4 20,
/// Ethernet 14, FCS + preamble + IFG 24.
const uint32_t TCP_WIRE_OVERHEAD = 32 + 20 + 14 + 24;

/**
 * Sends `bytes` over one TCP connection as fast as the socket takes them (what
 * BulkSendApplication does), and a sink that counts what arrives.
 */
class TcpBulk : public SimpleRefCount<TcpBulk>
{
  public:
    /**
     * \param from sender node \param to receiver node \param toAddress its address
     * \param port TCP port \param bytes to send \param tos IP TOS of the sender's packets
     * \param sourcePort the sender's TCP port (0: an ephemeral one)
     */
    TcpBulk(Ptr<Node> from,
            Ptr<Node> to,
            Ipv4Address toAddress,
            uint16_t port,
            uint64_t bytes,
            uint8_t tos,
            uint16_t sourcePort = 0)
        : m_bytes(bytes)
    {
        m_listener = Socket::CreateSocket(to, TcpSocketFactory::GetTypeId());
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&TcpBulk::Accepted, this));
        m_sender = Socket::CreateSocket(from, TcpSocketFactory::GetTypeId());
        if (sourcePort == 0)
        {
            m_sender->Bind();
        }
        else
        {
            m_sender->Bind(InetSocketAddress(Ipv4Address::GetAny(), sourcePort));
        }
        m_sender->SetConnectCallback(MakeCallback(&TcpBulk::Connected, this),
                                     MakeCallback(&TcpBulk::ConnectFailed, this));
        m_sender->SetSendCallback(MakeCallback(&TcpBulk::Space, this));
        m_start = Simulator::Now();
        m_sender->Connect(InetSocketAddress(toAddress, port));
        m_sender->SetIpTos(tos); // after Connect, which takes the address's TOS
    }

    /** \return bytes received */
    uint64_t Received() const
    {
        return m_received;
    }

    /** \return true when every byte arrived */
    bool Done() const
    {
        return m_received == m_bytes;
    }

    /** \return goodput from the connect call to the last byte, bit/s */
    double Goodput() const
    {
        return m_received * 8.0 / (m_last - m_start).GetSeconds();
    }

    /** \return time of the last byte received */
    Time Last() const
    {
        return m_last;
    }

  private:
    void Connected(Ptr<Socket> s)
    {
        Push();
    }

    void ConnectFailed(Ptr<Socket> s)
    {
        NS_FATAL_ERROR("TcpBulk: connection refused");
    }

    void Space(Ptr<Socket> s, uint32_t available)
    {
        Push();
    }

    void Push()
    {
        while (m_sent < m_bytes)
        {
            const uint64_t want = std::min<uint64_t>(m_bytes - m_sent, 65536);
            const uint32_t room = m_sender->GetTxAvailable();
            if (room == 0)
            {
                return;
            }
            const int n = m_sender->Send(Create<Packet>(std::min<uint64_t>(want, room)));
            if (n <= 0)
            {
                return;
            }
            m_sent += n;
        }
        m_sender->Close();
    }

    void Accepted(Ptr<Socket> s, const Address& from)
    {
        s->SetRecvCallback(MakeCallback(&TcpBulk::Read, this));
        m_accepted = s;
    }

    void Read(Ptr<Socket> s)
    {
        while (Ptr<Packet> p = s->Recv())
        {
            if (p->GetSize() == 0)
            {
                break;
            }
            m_received += p->GetSize();
            m_last = Simulator::Now();
        }
    }

    uint64_t m_bytes;
    uint64_t m_sent{0};
    uint64_t m_received{0};
    Time m_start;
    Time m_last;
    Ptr<Socket> m_listener;
    Ptr<Socket> m_sender;
    Ptr<Socket> m_accepted;
};

/** UDP datagrams of `size` bytes every `gap` until `stop`, and a sink counting them. */
class UdpFlood : public SimpleRefCount<UdpFlood>
{
  public:
    /**
     * \param from sender \param to receiver \param toAddress its address \param port UDP port
     * \param size datagram payload \param gap between datagrams \param stop last send before
     * \param tos IP TOS
     */
    UdpFlood(Ptr<Node> from,
             Ptr<Node> to,
             Ipv4Address toAddress,
             uint16_t port,
             uint32_t size,
             Time gap,
             Time stop,
             uint8_t tos)
        : m_size(size),
          m_gap(gap),
          m_stop(stop)
    {
        m_sink = Socket::CreateSocket(to, UdpSocketFactory::GetTypeId());
        m_sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        m_sink->SetRecvCallback(MakeCallback(&UdpFlood::Read, this));
        m_sender = Socket::CreateSocket(from, UdpSocketFactory::GetTypeId());
        m_sender->Bind();
        m_sender->Connect(InetSocketAddress(toAddress, port));
        m_sender->SetIpTos(tos); // after Connect, which takes the address's TOS
        Simulator::ScheduleNow(&UdpFlood::Send, this);
    }

    uint64_t m_sent{0};     //!< datagrams sent
    uint64_t m_received{0}; //!< datagrams received

  private:
    void Send()
    {
        m_sender->Send(Create<Packet>(m_size));
        ++m_sent;
        if (Simulator::Now() + m_gap < m_stop)
        {
            Simulator::Schedule(m_gap, &UdpFlood::Send, this);
        }
    }

    void Read(Ptr<Socket> s)
    {
        while (Ptr<Packet> p = s->Recv())
        {
            ++m_received;
        }
    }

    uint32_t m_size;
    Time m_gap;
    Time m_stop;
    Ptr<Socket> m_sink;
    Ptr<Socket> m_sender;
};

/** \return the integer a query of the database at `path` gives (-1 on any error) */
int64_t
QueryInt(const std::string& path, const std::string& query)
{
    sqlite3* db = nullptr;
    int64_t value = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK)
    {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
            sqlite3_step(stmt) == SQLITE_ROW)
        {
            value = sqlite3_column_int64(stmt, 0);
        }
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
    return value;
}

/** Socket defaults of these tests: 4096-byte segments, no Nagle wait at the end. */
void
SetTcpDefaults(DefaultsGuard& defaults)
{
    defaults.SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(SEGMENT));
    defaults.SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    defaults.SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 20));
}

/** The goodput a TCP flow of SEGMENT-byte segments can reach alone on a RATE link. */
double
TcpLineGoodput()
{
    return static_cast<double>(RATE) * SEGMENT / (SEGMENT + TCP_WIRE_OVERHEAD);
}

/** The IP packets one switch sent, by egress port, and those not sent where it routes them. */
struct EgressRecord
{
    Ptr<RoceSwitch> sw;                            //!< the switch
    std::map<uint32_t, uint64_t> tcpPackets;       //!< TCP data packets by egress port
    std::map<uint16_t, std::set<uint32_t>> byFlow; //!< egress ports of each source port
    uint64_t misrouted{0};                         //!< sent on another port than GetEgressPort
};

/** Dequeue trace of a switch port: checks the packet against the switch's routing. */
void
RecordIpEgress(EgressRecord* r, uint32_t port, Ptr<const Packet> p, uint8_t queue)
{
    RoceIpUdpHeader ip;
    p->PeekHeader(ip);
    if (ip.GetProtocol() != 6 || p->GetSize() <= 1000) // TCP data segments, not ACKs
    {
        return;
    }
    ++r->tcpPackets[port];
    r->byFlow[ip.GetSourcePort()].insert(port);
    if (r->sw->GetEgressPort(ip.GetSourceRaw(),
                             ip.GetDestinationRaw(),
                             ip.GetSourcePort(),
                             ip.GetDestinationPort(),
                             ip.GetQueue()) != port)
    {
        ++r->misrouted;
    }
}

} // namespace

/**
 * \ingroup training-net-tests
 * TCP across a leaf-spine fabric (2 leaves, 4 spines): eight connections between the same
 * two NPUs are spread over the spines by ECMP on their ports (more than one uplink carries
 * them, each connection stays on one), every segment leaves the first leaf on the port its
 * routing names, and a flow route pins one connection (source port 40000) to the uplink the
 * test chooses, one ECMP would not pick; all connections complete.
 */
class RoceIpEcmpTestCase : public TestCase
{
  public:
    RoceIpEcmpTestCase()
        : TestCase("TCP on a leaf-spine: spread by ECMP, a flow route pins a connection")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard defaults;
        SetTcpDefaults(defaults);
        Topology t("leafspine:leaves=2,spines=4,hosts=2,rate=100Gbps,latency=1us");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "topology");
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(t.topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        // node ids: NPUs 0..3, leaves 4 and 5 (NPUs 0, 1 on leaf 4), spines 6..9
        EgressRecord leaf;
        leaf.sw = f.nodes.Get(4)->GetObject<RoceSwitch>();
        for (uint32_t port = 0; port < leaf.sw->GetNPorts(); ++port)
        {
            leaf.sw->GetPort(port)->TraceConnectWithoutContext(
                "Dequeue",
                MakeBoundCallback(&RecordIpEgress, &leaf, port));
        }
        const uint16_t pinnedPort = 40000;
        const uint32_t src = ip.GetAddress(0).Get();
        const uint32_t dst = ip.GetAddress(2).Get();
        const uint32_t hashed = leaf.sw->GetEgressPort(src, dst, pinnedPort, 5000, 0);
        // an uplink (ports 2..5: the host cables come first) other than the hashed one
        const uint32_t pinned = hashed == 2 ? 3 : 2;
        leaf.sw->SetFlowRoute(0, 2, pinnedPort, 0, pinned);
        const uint64_t bytes = 1 << 20;
        std::vector<Ptr<TcpBulk>> flows;
        for (uint16_t i = 0; i < 8; ++i)
        {
            flows.push_back(Create<TcpBulk>(f.npus.Get(0),
                                            f.npus.Get(2),
                                            ip.GetAddress(2),
                                            5001 + i,
                                            bytes,
                                            0));
        }
        flows.push_back(Create<TcpBulk>(f.npus.Get(0),
                                        f.npus.Get(2),
                                        ip.GetAddress(2),
                                        5000,
                                        bytes,
                                        0,
                                        pinnedPort));
        Simulator::Run();
        for (const Ptr<TcpBulk>& flow : flows)
        {
            NS_TEST_EXPECT_MSG_EQ(flow->Received(), bytes, "every connection completes");
        }
        NS_TEST_EXPECT_MSG_EQ(leaf.misrouted, 0, "each segment leaves where the leaf routes it");
        NS_TEST_EXPECT_MSG_EQ(leaf.tcpPackets.count(0) + leaf.tcpPackets.count(1),
                              0,
                              "nothing toward NPU 2 goes back down to a host");
        std::set<uint32_t> ecmpUplinks;
        for (const auto& [sport, ports] : leaf.byFlow)
        {
            NS_TEST_EXPECT_MSG_EQ(ports.size(), 1, "connection " << sport << " on one uplink");
            if (sport != pinnedPort)
            {
                ecmpUplinks.insert(ports.begin(), ports.end());
            }
        }
        NS_TEST_EXPECT_MSG_EQ(leaf.byFlow.size(), 9, "nine connections seen on the leaf");
        NS_TEST_EXPECT_MSG_GT(ecmpUplinks.size(), 1, "ECMP spreads the connections by port");
        NS_TEST_ASSERT_MSG_EQ(leaf.byFlow.count(pinnedPort), 1, "the pinned connection");
        NS_TEST_EXPECT_MSG_EQ(*leaf.byFlow[pinnedPort].begin(),
                              pinned,
                              "the flow route, not the hash, picks its uplink");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * A TCP transfer between two NPUs of an idle fabric reaches the line rate less the TCP/IP
 * and Ethernet header bytes of each segment (within 5%: the handshake and slow start), and
 * never exceeds it.
 */
class RoceIpTcpGoodputTestCase : public TestCase
{
  public:
    RoceIpTcpGoodputTestCase()
        : TestCase("TCP between two NPUs: line-rate goodput less headers")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard defaults;
        SetTcpDefaults(defaults);
        Topology t("switch:2,rate=100Gbps,latency=1us");
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(t.topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        NS_TEST_ASSERT_MSG_EQ(ip.GetN(), 2, "one interface per NPU");
        NS_TEST_ASSERT_MSG_EQ(ip.GetAddress(1), RoceAddress::FromNodeId(1), "RoCE address");
        FabricCounters counters(f);
        const uint64_t bytes = 8 << 20;
        Ptr<TcpBulk> tcp =
            Create<TcpBulk>(f.npus.Get(0), f.npus.Get(1), ip.GetAddress(1), 5001, bytes, 0);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(tcp->Received(), bytes, "every byte arrives");
        const double ideal = TcpLineGoodput();
        NS_TEST_EXPECT_MSG_LT_OR_EQ(tcp->Goodput(), ideal, "no faster than the wire");
        NS_TEST_EXPECT_MSG_GT(tcp->Goodput(), 0.95 * ideal, "close to the line rate");
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
 * A ring all-reduce on the lossless class and a TCP flow on priority 0 that shares the
 * ring's first link (NPU 0 -> NPU 1) for the whole collective: both complete, the collective's
 * data is what its plan says (Collective::Check), the lossless class drops nothing, and the
 * collective takes about twice as long as alone: its slowest link is shared packet by packet
 * (round robin between the priorities, segments as large as RDMA packets), so the ring runs
 * at half its rate.
 */
class RoceIpBesideCollectiveTestCase : public TestCase
{
  public:
    RoceIpBesideCollectiveTestCase()
        : TestCase("TCP beside a ring all-reduce: both complete, the ring slows by the share")
    {
    }

  private:
    /** \param withTcp run the TCP flow too \param tcp set to it \return collective ns */
    double Run(bool withTcp, Ptr<TcpBulk>* tcp, std::string* check, uint64_t* losslessDrops)
    {
        Topology t("switch:4,rate=100Gbps,latency=1us");
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(t.topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        FabricCounters counters(f);
        CollectiveHelper collectives;
        collectives.Install(t.topo, roce);
        const uint64_t bytes = 16 << 20;
        Ptr<Collective> c = collectives.AllReduce(bytes, "ring");
        if (withTcp)
        {
            // long enough to outlast the collective at half the line rate
            *tcp = Create<TcpBulk>(f.npus.Get(0),
                                   f.npus.Get(1),
                                   ip.GetAddress(1),
                                   5001,
                                   uint64_t(24) << 20,
                                   0);
        }
        Simulator::Run();
        *check = c->Check();
        *losslessDrops = counters.switchDrops[3];
        const double ns = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : -1;
        Simulator::Destroy();
        return ns;
    }

    void DoRun() override
    {
        DefaultsGuard defaults;
        SetTcpDefaults(defaults);
        Ptr<TcpBulk> none;
        Ptr<TcpBulk> tcp;
        std::string check;
        uint64_t drops = 0;
        const double alone = Run(false, &none, &check, &drops);
        NS_TEST_ASSERT_MSG_GT(alone, 0, "the collective completes alone");
        NS_TEST_ASSERT_MSG_EQ(check, "", "its data as planned");
        const double shared = Run(true, &tcp, &check, &drops);
        NS_TEST_ASSERT_MSG_GT(shared, 0, "the collective completes beside TCP");
        NS_TEST_EXPECT_MSG_EQ(check, "", "its data as planned");
        NS_TEST_EXPECT_MSG_EQ(drops, 0, "no drop on the lossless class");
        NS_TEST_ASSERT_MSG_EQ(tcp->Done(), true, "the TCP flow completes");
        NS_TEST_EXPECT_MSG_GT(tcp->Last().GetNanoSeconds(), shared, "TCP outlasts the ring");
        const double slowdown = shared / alone;
        NS_TEST_EXPECT_MSG_GT(slowdown, 1.7, "the ring gets about half of its shared link");
        NS_TEST_EXPECT_MSG_LT(slowdown, 2.2, "the ring gets about half of its shared link");
    }
};

/**
 * \ingroup training-net-tests
 * Two NPUs send UDP at line rate to a third on priority 0 (lossy) while a fourth writes to it
 * by RDMA on priority 3 (lossless): the switch drops UDP datagrams when its buffer fills, no
 * PFC frame is ever sent for priority 0, and the lossless class drops nothing and completes.
 * The results database holds one drop_event row per switch drop, and the port samples of the
 * switch port toward the receiver count at least the bytes it delivered.
 */
class RoceIpLossyDropTestCase : public TestCase
{
  public:
    RoceIpLossyDropTestCase()
        : TestCase("UDP incast on a lossy class: dropped, never paused")
    {
    }

  private:
    void Done(const RdmaMessageRecord& r)
    {
        m_rdmaDone = true;
    }

    void DoRun() override
    {
        Topology t("switch:4,rate=100Gbps,latency=1us");
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(t.topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        FabricCounters counters(f);
        const std::string db = CreateTempDirFilename("roce-ip-lossy.db");
        std::remove(db.c_str());
        StatsHelper stats;
        std::string error;
        NS_TEST_ASSERT_MSG_EQ(bool(stats.Install(db, "roce-ip-lossy", "{}", t.topo, roce, &error)),
                              true,
                              error);
        const uint32_t size = 4000;
        // one datagram per wire time at 100 Gb/s: each sender alone fills its link
        const Time gap = NanoSeconds((size + 28 + 14 + 24) * 8 / 100);
        const Time stop = MicroSeconds(500);
        Ptr<UdpFlood> a = Create<UdpFlood>(f.npus.Get(0),
                                           f.npus.Get(2),
                                           ip.GetAddress(2),
                                           6000,
                                           size,
                                           gap,
                                           stop,
                                           0);
        Ptr<UdpFlood> b = Create<UdpFlood>(f.npus.Get(1),
                                           f.npus.Get(2),
                                           ip.GetAddress(2),
                                           6001,
                                           size,
                                           gap,
                                           stop,
                                           0);
        roce.GetNic(3)->PostWrite(2,
                                  4 << 20,
                                  3,
                                  MakeCallback(&RoceIpLossyDropTestCase::Done, this));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(stats.Finish("ok", Simulator::Now().GetNanoSeconds()), "ok", "db");
        NS_TEST_EXPECT_MSG_GT(counters.switchDrops[0], 0, "the switch drops lossy IP traffic");
        NS_TEST_EXPECT_MSG_EQ(counters.pfcFrames[0], 0, "and never pauses its class");
        NS_TEST_EXPECT_MSG_EQ(counters.switchDrops[3], 0, "no drop on the lossless class");
        NS_TEST_EXPECT_MSG_EQ(m_rdmaDone, true, "the RDMA write completes");
        const uint64_t received = a->m_received + b->m_received;
        NS_TEST_EXPECT_MSG_EQ(received + counters.switchDrops[0],
                              a->m_sent + b->m_sent,
                              "every datagram is received or dropped by the switch");
        NS_TEST_EXPECT_MSG_EQ(QueryInt(db,
                                       "SELECT count(*) FROM drop_event WHERE location = "
                                       "'switch' AND priority = 0"),
                              int64_t(counters.switchDrops[0]),
                              "each switch drop of IP traffic is a drop_event row");
        // the switch (node 4) sends toward NPU 2 on its port 2: every datagram received
        // (IPv4 + UDP + Ethernet header bytes besides the payload) and the RDMA write's payload
        const int64_t toReceiver =
            QueryInt(db, "SELECT sum(tx_bytes) FROM port_sample WHERE node_id = 4 AND port = 2");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(toReceiver,
                                    int64_t(received * (size + 28 + 14) + (4 << 20)),
                                    "port samples count the datagrams' bytes");
        Simulator::Destroy();
    }

    bool m_rdmaDone{false};
};

/**
 * \ingroup training-net-tests
 * IP traffic whose precedence maps to the lossless priority (DSCP 24, CS3 -> priority 3) is
 * refused at the sender with the drop reason "IpOnLossless"; nothing of it enters the fabric.
 */
class RoceIpLosslessRefusedTestCase : public TestCase
{
  public:
    RoceIpLosslessRefusedTestCase()
        : TestCase("IP on the lossless priority is refused")
    {
    }

  private:
    void DoRun() override
    {
        Topology t("switch:2,rate=100Gbps,latency=1us");
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(t.topo);
        Ipv4InterfaceContainer ip = roce.InstallInternetStack();
        FabricCounters counters(f);
        Ptr<UdpFlood> u = Create<UdpFlood>(f.npus.Get(0),
                                           f.npus.Get(1),
                                           ip.GetAddress(1),
                                           6000,
                                           1000,
                                           MicroSeconds(1),
                                           MicroSeconds(10),
                                           24 << 2);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(u->m_sent, 10, "ten datagrams offered");
        NS_TEST_EXPECT_MSG_EQ(counters.deviceDrops["IpOnLossless"], 10, "each refused");
        NS_TEST_EXPECT_MSG_EQ(u->m_received, 0, "none arrives");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * ns-3's internet stack on the RoCE fabric.
 */
class RoceIpTestSuite : public TestSuite
{
  public:
    RoceIpTestSuite()
        : TestSuite("training-net-roce-ip", UNIT)
    {
        AddTestCase(new RoceIpTcpGoodputTestCase, TestCase::QUICK);
        AddTestCase(new RoceIpBesideCollectiveTestCase, TestCase::QUICK);
        AddTestCase(new RoceIpLossyDropTestCase, TestCase::QUICK);
        AddTestCase(new RoceIpLosslessRefusedTestCase, TestCase::QUICK);
        AddTestCase(new RoceIpEcmpTestCase, TestCase::QUICK);
    }
};

static RoceIpTestSuite g_roceIpTestSuite; //!< the suite

} // namespace ns3
