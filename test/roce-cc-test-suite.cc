/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion controls beside DCQCN (HPCC, HPCC-PINT, TIMELY, DCTCP) and the INT header:
 * each algorithm against its paper on a single bottleneck, fairness, refused parameters.
 */
#include "roce-nic-test-util.h"
#include "roce-test-util.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/rdma-dctcp.h"
#include "ns3/rdma-hpcc.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-timely.h"
#include "ns3/roce-header.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::roce_test;

namespace
{

constexpr uint64_t RATE = 100000000000ULL; // 100 Gb/s
constexpr uint64_t LATENCY_NS = 1000;      // 1 us per link
constexpr uint32_t MTU = 1000;             // the HPCC family's payload size

/**
 * An all-reduce of `bytes` with `algorithm` on a fabric `roce` installed on `t`, run to the
 * end; the simulator is destroyed after.
 * \return its time (ns), or -1 when it did not complete as planned
 */
int64_t
RunAllReduce(const Topology& t, RoceHelper& roce, uint64_t bytes, const std::string& algorithm)
{
    CollectiveHelper collectives;
    collectives.Install(t.topo, roce);
    Ptr<Collective> c = collectives.AllReduce(bytes, algorithm);
    Simulator::Run();
    const int64_t ns = c->IsComplete() && c->Check().empty()
                           ? (c->GetEndTime() - c->GetStartTime()).GetNanoSeconds()
                           : -1;
    Simulator::Destroy();
    return ns;
}

/**
 * N senders into one receiver through one switch (a star of N + 1 NPUs), each sender one
 * endless RDMA WRITE at priority 3; samples the bottleneck (the switch port toward the
 * receiver) every SAMPLE from `from` to `to`.
 */
class Bottleneck
{
  public:
    static constexpr uint64_t SAMPLE_NS = 1000;

    Bottleneck(uint32_t flows, Time from, Time to)
        : m_flows(flows),
          m_from(from),
          m_to(to)
    {
    }

    /// Run with the Config defaults in force; the caller destroys the simulator.
    void Run()
    {
        tn_topology* topo = MakeStar(m_flows + 1, RATE, LATENCY_NS);
        m_fabric = m_helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RoceSwitch> sw = m_fabric.switches.Get(0)->GetObject<RoceSwitch>();
        Ptr<Node> rxNode = m_helper.GetNode(m_flows);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            if (sw->GetPort(p)->GetPeer()->GetNode() == rxNode)
            {
                m_port = sw->GetPort(p);
            }
        }
        NS_ABORT_IF(!m_port);
        for (uint32_t s = 0; s < m_flows; ++s)
        {
            m_helper.GetNic(s)->PostWrite(m_flows, 100000000000ULL, 3);
        }
        Simulator::Schedule(m_from, &Bottleneck::Mark, this, true);
        Simulator::Schedule(m_from, &Bottleneck::Sample, this);
        Simulator::Schedule(m_to, &Bottleneck::Mark, this, false);
        Simulator::Stop(m_to + NanoSeconds(1));
        Simulator::Run();
    }

    /// \return wire bits the bottleneck sent / its capacity over the window
    double Utilisation() const
    {
        return (m_wire[1] - m_wire[0]) * 8.0 / (RATE * (m_to - m_from).GetSeconds());
    }

    /// \param s sender \return its share of the goodput over the window
    double Goodput(uint32_t s) const
    {
        return (m_rx[1][s] - m_rx[0][s]) * 8.0 / (m_to - m_from).GetSeconds();
    }

    RoceHelper m_helper;
    RoceFabricNodes m_fabric;
    Ptr<RoceNetDevice> m_port;
    std::vector<double> m_queue; //!< bottleneck queue bytes per sample
    std::vector<double> m_rtt;   //!< TIMELY: each sender's last RTT per sample (us)

  private:
    uint64_t WireBytes() const
    {
        return m_port->GetTxBytes() +
               m_port->GetTxPackets() * uint64_t(RoceNetDevice::WIRE_OVERHEAD);
    }

    void Mark(bool start)
    {
        m_wire[start ? 0 : 1] = WireBytes();
        m_rx[start ? 0 : 1].resize(m_flows);
        for (uint32_t s = 0; s < m_flows; ++s)
        {
            m_rx[start ? 0 : 1][s] =
                m_helper.GetNic(m_flows)->GetQueuePair(s, 3)->GetReceivedBytes();
        }
    }

    void Sample()
    {
        uint64_t q = 0;
        for (uint8_t k = 0; k <= RoceNetDevice::CONTROL_QUEUE; ++k)
        {
            q += m_port->GetQueueBytes(k);
        }
        m_queue.push_back(static_cast<double>(q));
        for (uint32_t s = 0; s < m_flows; ++s)
        {
            Ptr<RdmaQueuePair> qp = m_helper.GetNic(s)->GetQueuePair(m_flows, 3);
            Ptr<RdmaTimely> t = DynamicCast<RdmaTimely>(qp->GetCongestionControl());
            if (t)
            {
                m_rtt.push_back(t->GetLastRtt().GetSeconds() * 1e6);
            }
        }
        if (Simulator::Now() + NanoSeconds(SAMPLE_NS) < m_to)
        {
            Simulator::Schedule(NanoSeconds(SAMPLE_NS), &Bottleneck::Sample, this);
        }
    }

    uint32_t m_flows;
    Time m_from;
    Time m_to;
    uint64_t m_wire[2]{};
    std::vector<uint64_t> m_rx[2];
};

double
Mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
    {
        s += x;
    }
    return v.empty() ? 0 : s / v.size();
}

/// Common defaults: the HPCC family's 1000-byte payload, ACK per packet, PFC never needed.
void
BottleneckDefaults(DefaultsGuard& g, const std::string& cc)
{
    g.SetDefault("ns3::RdmaNic::Mtu", UintegerValue(MTU));
    g.SetDefault("ns3::RoceSwitchMmu::Mtu", UintegerValue(MTU));
    g.SetDefault("ns3::RdmaNic::AckInterval", UintegerValue(1));
    g.SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
}

/// Base RTT of the star: 4 link latencies, a data frame through 2 hops, an ACK back through 2.
Time
StarBaseRtt(uint32_t dataWire)
{
    const double frame = dataWire * 8.0 / RATE;
    const double ack = 90 * 8.0 / RATE;
    return NanoSeconds(4 * LATENCY_NS) + Seconds(2 * frame + 2 * ack);
}

/// The law's fixture of the HPCC unit tests: B 100 Gb/s, eta 0.95, R_AI 50 Mb/s, T 4200 ns,
/// MaxStage 0 (the family's MI_THRESH 0), no fast reaction.
const double LAW_B = 100e9;
const double LAW_ETA = 0.95;
const double LAW_AI = 50e6;
const int64_t LAW_T_NS = 4200;

/// An RdmaHpcc started at LAW_B with the law's fixture and U starting at u0.
Ptr<RdmaHpcc>
StartLawHpcc(double u0)
{
    Ptr<RdmaHpcc> f = CreateObject<RdmaHpcc>();
    f->SetAttribute("TargetUtilization", DoubleValue(LAW_ETA));
    f->SetAttribute("AdditiveIncrease", DataRateValue(DataRate(uint64_t(LAW_AI))));
    f->SetAttribute("MaxStage", UintegerValue(0));
    f->SetAttribute("FastReact", BooleanValue(false));
    f->SetAttribute("BaseRtt", TimeValue(NanoSeconds(LAW_T_NS)));
    f->SetAttribute("MinRate", DataRateValue(DataRate("100Mbps")));
    f->SetAttribute("InitialUtilization", DoubleValue(u0));
    f->Start(LAW_B, 1000, nullptr);
    return f;
}

} // namespace

/// Quantile of samples (sorted copy).
double
Quantile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

/**
 * \ingroup training-net-tests
 * One algorithm on the single bottleneck (N flows into one receiver, 1000-byte payloads, ACK
 * per packet, 100 Gb/s, 1 us links), measured from 3 to 6 ms, against its paper:
 * - HPCC and HPCC-PINT: bottleneck utilisation (wire bits) near eta and a near-empty queue;
 * - TIMELY: the RTT stays below T_high and around T_low (median between T_low / 2 and T_high);
 * - DCTCP: the queue oscillates around K with the amplitude of DCTCP's analysis,
 *   A = sqrt(N delta (C RTT + K) / 2) with delta the window increase per round trip;
 * - fairness (every algorithm): each flow within 10% of the fair share (HPCC with the paper's
 *   W_AI = W_init (1 - eta) / N).
 * Also: no drop on the lossless class.
 */
class RoceCcBottleneckTestCase : public TestCase
{
  public:
    enum Check
    {
        PAPER,   //!< the paper's claim with the defaults (HPCC: the family's R_AI)
        FAIRNESS //!< fairness (HPCC: the paper's W_AI)
    };

    RoceCcBottleneckTestCase(std::string cc, uint32_t flows, Check check, double eta = 0.95)
        : TestCase(cc + ", " + std::to_string(flows) + " flows, " +
                   (check == PAPER ? "its paper's claim" : "fairness") +
                   (eta != 0.95 ? ", eta " + std::to_string(eta) : std::string())),
          m_cc(cc),
          m_flows(flows),
          m_check(check),
          m_eta(eta)
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard g;
        BottleneckDefaults(g, m_cc);
        const uint32_t intBytes = m_cc == "hpcc"        ? 42
                                  : m_cc == "hpcc-pint" ? 2
                                  : m_cc == "timely"    ? 8
                                                        : 0;
        // T: the base RTT rounded up to 100 ns (HPCC's window R T must cover it)
        const Time baseRtt = StarBaseRtt(MTU + RdmaNic::DATA_WIRE_OVERHEAD + intBytes);
        const Time t = NanoSeconds((baseRtt.GetNanoSeconds() / 100 + 1) * 100);
        g.SetDefault("ns3::RdmaHpcc::BaseRtt", TimeValue(t));
        g.SetDefault("ns3::RdmaHpcc::TargetUtilization", DoubleValue(m_eta));
        g.SetDefault("ns3::RoceSwitch::TelemetryBaseRtt", TimeValue(t));
        g.SetDefault("ns3::RdmaDctcp::BaseRtt", TimeValue(t));
        const double rai = RATE * (1 - m_eta) / m_flows;
        if (m_check == FAIRNESS)
        {
            g.SetDefault("ns3::RdmaHpcc::AdditiveIncrease", DataRateValue(DataRate(uint64_t(rai))));
        }
        // TIMELY's thresholds and steps for a 100 Gb/s fabric with a 4 us base RTT (the paper's
        // 50 / 500 us and 10 Mb/s are for 10 Gb/s and 20 us)
        const Time tLow = MicroSeconds(20);
        const Time tHigh = MicroSeconds(100);
        g.SetDefault("ns3::RdmaTimely::LowThreshold", TimeValue(tLow));
        g.SetDefault("ns3::RdmaTimely::HighThreshold", TimeValue(tHigh));
        g.SetDefault("ns3::RdmaTimely::AdditiveIncrease", DataRateValue(DataRate("100Mbps")));
        g.SetDefault("ns3::RdmaTimely::HyperIncrease", DataRateValue(DataRate("500Mbps")));
        const uint64_t k = 30000; // DCTCP's marking threshold: a step at K
        g.SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(k));
        g.SetDefault("ns3::RoceSwitchMmu::EcnKmax", UintegerValue(k));
        g.SetDefault("ns3::RoceSwitchMmu::EcnScaleWithRate", BooleanValue(false));
        if (m_cc != "dctcp" && m_cc != "dcqcn")
        {
            g.SetDefault("ns3::RoceSwitchMmu::EcnEnabled", BooleanValue(false));
        }
        if (m_cc == "dcqcn")
        {
            // DCQCN with its own (ConnectX-scaled) thresholds, as today
            g.SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(100000));
            g.SetDefault("ns3::RoceSwitchMmu::EcnKmax", UintegerValue(400000));
            g.SetDefault("ns3::RoceSwitchMmu::EcnScaleWithRate", BooleanValue(true));
        }
        // DCQCN's timers converge slower: measure later
        const Time from = MilliSeconds(m_cc == "dcqcn" ? 15 : 3);
        Bottleneck b(m_flows, from, from + MilliSeconds(3));
        b.Run();
        const double util = b.Utilisation();
        double total = 0;
        for (uint32_t s = 0; s < m_flows; ++s)
        {
            total += b.Goodput(s);
        }
        double worst = 0;
        for (uint32_t s = 0; s < m_flows; ++s)
        {
            worst = std::max(worst, std::fabs(b.Goodput(s) / (total / m_flows) - 1));
        }
        const double qMean = Mean(b.m_queue);
        const double q1 = Quantile(b.m_queue, 0.01);
        const double q99 = Quantile(b.m_queue, 0.99);
        std::cout << GetName() << ": utilisation " << util << ", largest share deviation " << worst
                  << ", queue mean " << qMean << " B, p1 " << q1 << " B, p99 " << q99 << " B";
        if (!b.m_rtt.empty())
        {
            std::cout << ", RTT p0 " << Quantile(b.m_rtt, 0) << " us, p50 "
                      << Quantile(b.m_rtt, 0.5) << " us, p100 " << Quantile(b.m_rtt, 1.0) << " us";
        }
        NS_TEST_ASSERT_MSG_EQ(TotalSwitchDrops(b.m_fabric), 0, "no loss on the lossless class");
        if (m_check == FAIRNESS)
        {
            std::cout << std::endl;
            NS_TEST_EXPECT_MSG_LT(worst, 0.10, "every flow within 10% of its fair share");
        }
        else if (m_cc == "hpcc")
        {
            std::cout << std::endl;
            NS_TEST_EXPECT_MSG_EQ_TOL(util, m_eta, 0.01, "HPCC holds the bottleneck at eta");
            const double frame = MTU + RdmaNic::DATA_WIRE_OVERHEAD + intBytes;
            NS_TEST_EXPECT_MSG_LT(qMean, frame, "near-empty queue: less than a frame on average");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(q99, 2 * frame, "at most two frames 99% of the time");
        }
        else if (m_cc == "hpcc-pint")
        {
            std::cout << std::endl;
            // one log-coded value (base 1.05: +-2.5%) instead of the hops
            NS_TEST_EXPECT_MSG_EQ_TOL(util, m_eta, 0.03, "HPCC-PINT holds the bottleneck near eta");
            const double frame = MTU + RdmaNic::DATA_WIRE_OVERHEAD + intBytes;
            NS_TEST_EXPECT_MSG_LT(qMean, frame, "near-empty queue: less than a frame on average");
        }
        else if (m_cc == "timely")
        {
            std::cout << std::endl;
            NS_TEST_EXPECT_MSG_LT_OR_EQ(Quantile(b.m_rtt, 1.0),
                                        tHigh.GetMicroSeconds(),
                                        "the RTT never exceeds T_high");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(Quantile(b.m_rtt, 0.5),
                                        tLow.GetMicroSeconds() / 2.0,
                                        "the RTT stays around T_low");
            NS_TEST_EXPECT_MSG_GT(util, 0.9, "and the link busy");
        }
        else if (m_cc == "dctcp")
        {
            // window increase per round trip: DCTCP_RATE_AI over one T
            const double delta = 1e9 * t.GetSeconds() / 8;
            const double a = std::sqrt(m_flows * delta * (RATE / 8.0 * t.GetSeconds() + k) / 2);
            std::cout << ", predicted amplitude " << a << " B" << std::endl;
            NS_TEST_EXPECT_MSG_LT(std::fabs(qMean - k), a, "the queue oscillates around K");
            NS_TEST_EXPECT_MSG_GT(q99 - q1, 0.5 * a, "amplitude >= half the predicted");
            NS_TEST_EXPECT_MSG_LT(q99 - q1, 2 * a, "amplitude <= twice the predicted");
            NS_TEST_EXPECT_MSG_GT(util, 0.99, "the queue never empties: full link");
        }
        else
        {
            std::cout << std::endl;
        }
        Simulator::Destroy();
    }

    std::string m_cc;
    uint32_t m_flows;
    Check m_check;
    double m_eta;
};

/**
 * \ingroup training-net-tests
 * The INT header: sizes on the wire, round trip of every layout, hop fields and their
 * wrap-around deltas, rate codes, PINT coding; the BTH's telemetry bits.
 */
class RoceIntHeaderTestCase : public TestCase
{
  public:
    RoceIntHeaderTestCase()
        : TestCase("INT header: layouts, sizes, fields, wrap-around")
    {
    }

  private:
    void DoRun() override
    {
        RoceIntHeader h;
        h.InitHops(5, 2);
        NS_TEST_ASSERT_MSG_EQ(h.GetSerializedSize(), 42u, "HPCC's 5 hops: 2 + 5 x 8 bytes");
        const uint64_t t0 = (UINT64_C(1) << 24) - 100; // 100 ns before the timestamp wraps
        NS_TEST_ASSERT_MSG_EQ(h.PushHop(t0, 1000000, 4000, RoceIntHeader::RateCode(RATE)),
                              true,
                              "");
        NS_TEST_ASSERT_MSG_EQ(h.PushHop(t0, 5, 160, RoceIntHeader::RateCode(400000000000ULL)),
                              true,
                              "");
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(h);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 42u, "serialized size");
        RoceIntHeader r(RoceIntHeader::HOPS);
        p->RemoveHeader(r);
        NS_TEST_ASSERT_MSG_EQ(unsigned(r.GetHopCount()), 2u, "two hops stamped");
        NS_TEST_ASSERT_MSG_EQ(unsigned(r.GetSlots()), 5u, "five slots");
        NS_TEST_ASSERT_MSG_EQ(r.GetHopRate(0), RATE, "rate of hop 0");
        NS_TEST_ASSERT_MSG_EQ(r.GetHopRate(1), 400000000000ULL, "rate of hop 1");
        NS_TEST_ASSERT_MSG_EQ(r.GetHopQueueBytes(0), 4000u, "queue in units of 80 m bytes");
        NS_TEST_ASSERT_MSG_EQ(r.GetHopQueueBytes(1), 160u, "queue of hop 1");
        // a later stamp across the wraps of the time (24 bits) and byte (20 bits) fields
        RoceIntHeader later;
        later.InitHops(5, 2);
        const uint64_t bytesLater = 1000000 + (UINT64_C(1) << 20) * 256 / 2 + 25600;
        later.PushHop(t0 + 300, bytesLater, 0, RoceIntHeader::RateCode(RATE));
        NS_TEST_ASSERT_MSG_EQ(later.GetTimeDelta(0, r), 300u, "time delta across the wrap");
        NS_TEST_ASSERT_MSG_EQ(later.GetBytesDelta(0, r),
                              (bytesLater / 256 - 1000000 / 256) % (1u << 20) * 256,
                              "byte delta in units of 128 m");
        // a path longer than the slots: counted, not recorded
        RoceIntHeader one;
        one.InitHops(1, 1);
        NS_TEST_ASSERT_MSG_EQ(one.PushHop(1, 1, 1, 0), true, "");
        NS_TEST_ASSERT_MSG_EQ(one.PushHop(2, 2, 2, 0), false, "no slot left");
        NS_TEST_ASSERT_MSG_EQ(unsigned(one.GetHopCount()), 2u, "the hop is counted");
        NS_TEST_ASSERT_MSG_EQ(RoceIntHeader::RateCode(12500000000ULL),
                              RoceIntHeader::NO_RATE_CODE,
                              "12.5 Gb/s has no code");
        // HOPS_WIDE: any rate, 12 bytes a hop; the BTH's telemetry bits say which layout
        RoceIntHeader wide;
        wide.InitHops(3, 1, true);
        NS_TEST_ASSERT_MSG_EQ(wide.GetMode(), RoceIntHeader::HOPS_WIDE, "wide layout");
        NS_TEST_ASSERT_MSG_EQ(wide.GetSerializedSize(), 38u, "2 + 3 x 12 bytes");
        wide.PushHopRate(t0, 1000000, 4000, 128000000000ULL); // the default switch's NVLink-like
        wide.PushHopRate(t0, 5, 160, 3600000000000ULL);
        RoceBthHeader wideBth;
        wideBth.SetTelemetry(RoceIntHeader::HOPS_WIDE);
        Ptr<Packet> wp = Create<Packet>();
        wp->AddHeader(wide);
        wp->AddHeader(wideBth);
        RoceBthHeader bthBack;
        wp->RemoveHeader(bthBack);
        NS_TEST_ASSERT_MSG_EQ(unsigned(bthBack.GetTelemetry()),
                              unsigned(RoceIntHeader::HOPS_WIDE),
                              "the BTH carries the wide layout");
        RoceIntHeader wideBack(static_cast<RoceIntHeader::Mode>(bthBack.GetTelemetry()));
        wp->RemoveHeader(wideBack);
        NS_TEST_ASSERT_MSG_EQ(wideBack.GetHopRate(0), 128000000000ULL, "128 Gb/s carried");
        NS_TEST_ASSERT_MSG_EQ(wideBack.GetHopRate(1), 3600000000000ULL, "3.6 Tb/s carried");
        NS_TEST_ASSERT_MSG_EQ(wideBack.GetHopQueueBytes(0), 4000u, "queue as in HOPS");
        NS_TEST_ASSERT_MSG_EQ(unsigned(wideBack.GetHopCount()), 2u, "two hops stamped");
        // PINT: 2 bytes, log coding within half a step
        RoceIntHeader pint(RoceIntHeader::PINT);
        NS_TEST_ASSERT_MSG_EQ(pint.GetSerializedSize(), 2u, "PINT: 2 bytes");
        for (double u : {0.01, 0.5, 0.95, 1.0, 3.0})
        {
            const double d =
                RoceIntHeader::DecodeUtilisation(RoceIntHeader::EncodeUtilisation(u, 1.05), 1.05);
            NS_TEST_ASSERT_MSG_EQ_TOL(d / u, 1.0, 0.025, "within half a log step, u " << u);
        }
        NS_TEST_ASSERT_MSG_EQ(RoceIntHeader::EncodeUtilisation(0, 1.05), 0, "0: no value");
        // TIMESTAMP: 8 bytes
        RoceIntHeader ts(RoceIntHeader::TIMESTAMP);
        ts.SetTimestamp(0x0123456789abcdefULL);
        Ptr<Packet> q = Create<Packet>();
        q->AddHeader(ts);
        NS_TEST_ASSERT_MSG_EQ(q->GetSize(), 8u, "TIMELY: 8 bytes");
        RoceIntHeader ts2(RoceIntHeader::TIMESTAMP);
        q->RemoveHeader(ts2);
        NS_TEST_ASSERT_MSG_EQ(ts2.GetTimestamp(), 0x0123456789abcdefULL, "timestamp");
        // BTH: bits 5,4 of byte 4, next to FECN and BECN
        RoceBthHeader bth;
        bth.SetTelemetry(RoceIntHeader::TIMESTAMP);
        bth.SetBecn(true);
        bth.SetDestQp(0x123456);
        Ptr<Packet> b = Create<Packet>();
        b->AddHeader(bth);
        uint8_t bytes[12];
        b->CopyData(bytes, 12);
        NS_TEST_ASSERT_MSG_EQ(unsigned(bytes[4]), 0x70u, "BECN (0x40) + telemetry 3 (0x30)");
        RoceBthHeader bth2;
        b->RemoveHeader(bth2);
        NS_TEST_ASSERT_MSG_EQ(unsigned(bth2.GetTelemetry()), 3u, "telemetry bits");
        NS_TEST_ASSERT_MSG_EQ(bth2.GetDestQp(), 0x123456u, "QP untouched");
    }
};

/**
 * \ingroup training-net-tests
 * Congestion-control choices and parameters a NIC refuses before anything runs, each naming
 * the attribute; names parsed both ways.
 */
class RoceCcConfigTestCase : public TestCase
{
  public:
    RoceCcConfigTestCase()
        : TestCase("bad congestion-control input is refused, naming the key")
    {
    }

  private:
    static std::string Error(const std::string& cc,
                             const std::string& attr,
                             const AttributeValue& v)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetAttribute("CongestionControl", StringValue(cc));
        nic->SetCongestionControlAttribute(attr, v);
        return nic->GetConfigError();
    }

    void Refused(const std::string& cc,
                 const std::string& attr,
                 const AttributeValue& v,
                 const std::string& key)
    {
        const std::string e = Error(cc, attr, v);
        NS_TEST_EXPECT_MSG_NE(e.find(key),
                              std::string::npos,
                              cc << " " << attr << ": '" << e << "'");
    }

    void DoRun() override
    {
        for (const char* n : {"none", "dcqcn", "hpcc", "hpcc-pint", "timely", "dctcp"})
        {
            TypeId t;
            NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Resolve(n, &t), true, n);
            NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::GetName(t), n, "round trip");
        }
        TypeId t;
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Resolve("hpc", &t), false, "unknown name");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Resolve("ns3::RdmaNic", &t), false, "not a control");
        // the registry: one row per congestion control; its TypeId name is an alias of its short
        // name, and its value is the HPCC family's CC_MODE
        const TypeId base = TypeId::LookupByName("ns3::RdmaCongestionControl");
        for (const RdmaCcEntry& e : RdmaCcRegistry::GetAll())
        {
            NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Find(e.name), &e, e.name);
            if (!*e.typeName)
            {
                NS_TEST_ASSERT_MSG_EQ(std::string(e.name), "none", "only none has no class");
                NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::FindByTypeId(base), &e, "none is the base");
                continue;
            }
            TypeId tid;
            NS_TEST_ASSERT_MSG_EQ(TypeId::LookupByNameFailSafe(e.typeName, &tid), true, e.typeName);
            NS_TEST_ASSERT_MSG_EQ(tid.IsChildOf(base), true, e.typeName);
            NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Find(e.typeName), &e, e.typeName);
            NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::FindByTypeId(tid), &e, e.typeName);
            NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::FindByCcMode(e.ccMode), &e, e.name);
            // the NIC's attribute takes the TypeId name and prints the short one
            Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
            nic->SetAttribute("CongestionControl", StringValue(e.typeName));
            NS_TEST_ASSERT_MSG_EQ(nic->GetCongestionControl(), tid, e.typeName);
            StringValue printed;
            nic->GetAttribute("CongestionControl", printed);
            NS_TEST_ASSERT_MSG_EQ(printed.Get(), e.name, e.typeName);
        }
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::ListNames(),
                              "dcqcn, hpcc, hpcc-pint, timely, dctcp, none",
                              "the names messages list");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::ListCcModes(),
                              "1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP, 10 HPCC-PINT",
                              "the family's CC_MODE numbers");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::FindByCcMode(0), nullptr, "none is no CC_MODE");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::FindByCcMode(2), nullptr, "no CC_MODE 2");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::CcModeName("hpcc-pint"),
                              "CC_MODE 10 (HPCC-PINT)",
                              "a family message");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Find("ns3::RdmaNic"), nullptr, "not a control");
        NS_TEST_ASSERT_MSG_EQ(Error("hpcc", "TargetUtilization", DoubleValue(0.95)), "", "usable");
        Refused("hpcc", "TargetUtilization", DoubleValue(0.0), "RdmaHpcc::TargetUtilization");
        Refused("hpcc", "TargetUtilization", DoubleValue(1.2), "RdmaHpcc::TargetUtilization");
        Refused("hpcc-pint",
                "TargetUtilization",
                DoubleValue(-1),
                "RdmaHpccPint::TargetUtilization");
        Refused("hpcc-pint", "LogBase", DoubleValue(1.0), "RdmaHpccPint::LogBase");
        Refused("hpcc-pint", "SampleProbability", DoubleValue(0), "SampleProbability");
        Refused("timely", "LowThreshold", TimeValue(MicroSeconds(500)), "LowThreshold");
        Refused("timely", "Beta", DoubleValue(-0.8), "RdmaTimely::Beta");
        Refused("timely", "EwmaWeight", DoubleValue(-0.1), "RdmaTimely::EwmaWeight");
        Refused("dctcp", "G", DoubleValue(-0.0625), "RdmaDctcp::G");
        Refused("dctcp", "G", DoubleValue(0), "RdmaDctcp::G");
        Refused("dctcp", "BaseRtt", TimeValue(NanoSeconds(-1)), "RdmaDctcp::BaseRtt");
        Refused("hpcc", "BaseRtt", TimeValue(Seconds(0)), "RdmaHpcc::BaseRtt");
        Refused("timely", "MinRtt", TimeValue(Seconds(0)), "RdmaTimely::MinRtt");
        // the checks of all congestion controls and the NIC phrase a range the same way
        NS_TEST_EXPECT_MSG_EQ(
            Error("dctcp", "MinRate", DataRateValue(DataRate(0))),
            "ns3::RdmaDctcp::MinRate must be > 0 (a queue pair at rate 0 never sends again)",
            "dctcp MinRate 0");
        NS_TEST_EXPECT_MSG_EQ(Error("timely", "Beta", DoubleValue(1.5)),
                              "ns3::RdmaTimely::Beta must be in (0, 1], not 1.500000",
                              "timely Beta 1.5");
        // a floor below 1 Mbit/s: a queue pair cut to it crawls for simulated hours
        for (const char* cc : {"hpcc", "hpcc-pint", "timely", "dctcp"})
        {
            Refused(cc, "MinRate", DataRateValue(DataRate(999999)), "MinRate 999999bps is below");
            NS_TEST_EXPECT_MSG_EQ(Error(cc, "MinRate", DataRateValue(DataRate("1Mbps"))),
                                  "",
                                  cc << ": 1 Mbit/s is allowed");
        }
        // DCQCN's floor, an attribute of its class, is checked through the NIC as the others
        NS_TEST_EXPECT_MSG_EQ(Error("dcqcn", "MinRate", DataRateValue(DataRate(999999))),
                              "ns3::RdmaDcqcnControl::MinRate 999999bps is below the lowest "
                              "floor a queue pair takes (at least 1000000bps, 1Mbps: a queue "
                              "pair at its floor waits MTU x 8 / MinRate per frame, so a lower "
                              "floor only makes the run last simulated hours)",
                              "DCQCN MinRate below 1 Mbit/s");
        NS_TEST_EXPECT_MSG_EQ(Error("dcqcn", "MinRate", DataRateValue(DataRate("1Mbps"))),
                              "",
                              "DCQCN MinRate 1 Mbit/s is allowed");
        NS_TEST_EXPECT_MSG_EQ(
            Error("dcqcn", "MinRate", DataRateValue(DataRate(0))),
            "ns3::RdmaDcqcnControl::MinRate must be > 0 (a queue pair at rate 0 never sends again)",
            "DCQCN MinRate 0");
        Refused("dcqcn", "ReferenceRate", DataRateValue(DataRate(0)), "ReferenceRate must be > 0");

        // HPCC's INT carries the family's rate code per switch port: with IntRates = codes a
        // rate without one is refused by RoceHelper::Check before anything runs (it used to
        // abort at the first stamp); auto (the default) and wide carry any rate
        for (const char* rate : {"30Gbps", "100Gbps"})
        {
            tn_topology* topo = nullptr;
            tn_error err;
            const std::string spec =
                std::string("leafspine:leaves=2,spines=1,hosts=2,rate=") + rate + ",latency=1us";
            NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec(spec.c_str(), &topo, &err),
                                  TN_OK,
                                  err.message);
            for (const char* cc : {"hpcc", "hpcc-pint", "dcqcn", "hpcc codes", "hpcc wide"})
            {
                const std::string name(cc);
                RoceHelper helper;
                helper.SetCongestionControl(name.substr(0, name.find(' ')));
                if (name.find(' ') != std::string::npos)
                {
                    helper.SetCongestionControlAttribute("IntRates",
                                                         EnumValue(name == "hpcc codes"
                                                                       ? RdmaHpcc::INT_RATES_CODES
                                                                       : RdmaHpcc::INT_RATES_WIDE));
                }
                const std::string e = helper.Check(topo);
                const bool refused = name == "hpcc codes" && std::string(rate) == "30Gbps";
                NS_TEST_EXPECT_MSG_EQ(e.empty(), !refused, cc << " at " << rate << ": " << e);
                if (refused)
                {
                    NS_TEST_EXPECT_MSG_NE(e.find("port rate 30000000000 bit/s"),
                                          std::string::npos,
                                          e);
                    NS_TEST_EXPECT_MSG_NE(e.find("(node "), std::string::npos, e);
                }
            }
            tn_topology_destroy(topo);
        }
    }
};

/**
 * \ingroup training-net-tests
 * HPCC at any link rate: a ring all-reduce on the default switch (128 Gb/s, no INT code)
 * runs with every hop's rate carried wide and costs HPCC's eta, not more (within 12 % of no
 * congestion control); at 100 Gb/s (a code) the wide layout gives the codes' time within the
 * 20 extra INT bytes a packet (3 %). A hop rate carried wrong would have HPCC misjudge its
 * utilisation by the same factor.
 */
class RoceHpccAnyRateTestCase : public TestCase
{
  public:
    RoceHpccAnyRateTestCase()
        : TestCase("HPCC runs at any link rate: INT hops carry the rate wide where it has no code")
    {
    }

  private:
    /** the all-reduce's time (ns), or -1 when it did not complete as planned */
    static int64_t Run(const std::string& spec, const std::string& cc, const std::string& rates)
    {
        Topology t(spec);
        if (!t.error.empty())
        {
            return -1;
        }
        RoceHelper roce;
        roce.SetCongestionControl(cc);
        if (!rates.empty())
        {
            roce.SetCongestionControlAttribute(
                "IntRates",
                EnumValue(rates == "codes" ? RdmaHpcc::INT_RATES_CODES : RdmaHpcc::INT_RATES_WIDE));
        }
        if (!roce.Check(t.topo).empty())
        {
            return -1;
        }
        roce.Install(t.topo);
        return RunAllReduce(t, roce, 4 << 20, "ring");
    }

    void DoRun() override
    {
        const std::string fast = "switch:8,rate=128Gbps,latency=1us";
        const int64_t none = Run(fast, "none", "");
        const int64_t hpcc = Run(fast, "hpcc", "");
        NS_TEST_ASSERT_MSG_GT(none, 0, "no congestion control completes");
        NS_TEST_ASSERT_MSG_GT(hpcc, 0, "HPCC at 128 Gb/s completes as planned");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(hpcc, none, "HPCC is not faster than the line rate");
        NS_TEST_EXPECT_MSG_LT(double(hpcc), 1.12 * none, "HPCC at 128 Gb/s costs about eta");
        NS_TEST_EXPECT_MSG_EQ(Run(fast, "hpcc", "codes"), -1, "codes refuse 128 Gb/s");
        const std::string coded = "switch:8,rate=100Gbps,latency=1us";
        const int64_t codes = Run(coded, "hpcc", "codes");
        const int64_t wide = Run(coded, "hpcc", "wide");
        NS_TEST_ASSERT_MSG_GT(codes, 0, "codes at 100 Gb/s");
        NS_TEST_ASSERT_MSG_GT(wide, 0, "wide at 100 Gb/s");
        NS_TEST_EXPECT_MSG_LT(double(std::max(codes, wide)),
                              1.03 * double(std::min(codes, wide)),
                              "wide gives the codes' time at a coded rate");
    }
};

/**
 * \ingroup training-net-tests
 * HPCC-PINT samples ACKs (SampleProbability 1/2) with a control made per queue pair at run
 * time. After RoceHelper::AssignStreams a run draws the same whatever the process made before
 * (here five random variables that take ns-3's next automatic streams): each NIC gives a
 * queue pair's control a stream of its own by QPN. Another first stream draws otherwise.
 */
class RoceHpccPintStreamsTestCase : public TestCase
{
  public:
    RoceHpccPintStreamsTestCase()
        : TestCase("HPCC-PINT's queue pairs draw from the streams AssignStreams fixed")
    {
    }

  private:
    /** a direct all-reduce's time on a torus (contended), -1 when not complete as planned */
    static int64_t Run(int madeBefore, int64_t stream)
    {
        std::vector<Ptr<UniformRandomVariable>> before;
        for (int i = 0; i < madeBefore; i++)
        {
            before.push_back(CreateObject<UniformRandomVariable>());
        }
        Topology t("torus:4x4");
        RoceHelper roce;
        roce.SetCongestionControl("hpcc-pint");
        roce.SetCongestionControlAttribute("SampleProbability", DoubleValue(0.5));
        roce.Install(t.topo);
        roce.AssignStreams(stream);
        return RunAllReduce(t, roce, 1 << 20, "direct");
    }

    void DoRun() override
    {
        const int64_t first = Run(0, 0);
        NS_TEST_ASSERT_MSG_GT(first, 0, "the all-reduce completes as planned");
        NS_TEST_EXPECT_MSG_EQ(Run(5, 0), first, "the same draws after other random variables");
        NS_TEST_EXPECT_MSG_NE(Run(0, 1000), first, "other streams, other draws");
    }
};

/**
 * \ingroup training-net-tests
 * HPCC's control law alone (no fabric): two RdmaHpcc objects fed the same INT feedback of one
 * 100 Gb/s link that carries both their rates, one update per base RTT T (MaxStage 0, as the
 * HPCC family's MI_THRESH 0). With the same U every update is R_i <- R_i / k + R_AI for both,
 * so the difference of the rates shrinks by 1/k per update and at equilibrium k = 1 + N R_AI /
 * (eta B): with the family's R_AI = 50 Mb/s, eta 0.95 and N = 2 that is 1/1.001053 per round
 * trip, a time constant eta B T / (N R_AI) = 3.99 ms. The test checks the decay of the
 * difference over 1000 updates against that closed form (within 2 %) and the sum of the rates
 * against its equilibrium eta B + N R_AI: the law converges, slowly, and treats the flows
 * alike; a drift between flows on a fabric comes from the flows seeing different feedback.
 */
class RoceHpccConvergenceTestCase : public TestCase
{
  public:
    RoceHpccConvergenceTestCase()
        : TestCase("HPCC's control law: two flows on one link converge at the closed-form rate")
    {
    }

  private:
    void DoRun() override
    {
        const double b = LAW_B;
        const double eta = LAW_ETA;
        const double ai = LAW_AI;
        const Time t = NanoSeconds(LAW_T_NS);
        Ptr<RdmaHpcc> flows[2] = {StartLawHpcc(0), StartLawHpcc(0)};
        const uint8_t code = RoceIntHeader::RateCode(uint64_t(b));
        double txBytes = 0;
        double queue = 0;
        double diffStart = 0;
        const uint32_t from = 300;
        const uint32_t steps = 1300;
        // flow 1 joins after flow 0 has settled alone: the flows start far apart
        const uint32_t join = 100;
        for (uint32_t n = 0; n <= steps; ++n)
        {
            const double r0 = flows[0]->GetRate();
            const double r1 = n >= join ? flows[1]->GetRate() : 0;
            // the link over the last round trip: sends up to B, queues the rest
            const double offered = (r0 + r1) * t.GetSeconds() / 8;
            const double capacity = b * t.GetSeconds() / 8;
            const double sent = std::min(offered + queue, capacity);
            queue = queue + offered - sent;
            txBytes += sent;
            RoceIntHeader ih(RoceIntHeader::HOPS);
            ih.InitHops(5, 1);
            ih.PushHop(n * t.GetNanoSeconds(), uint64_t(txBytes), uint64_t(queue), code);
            RdmaCcFeedback fb;
            fb.ackedPsn = n + 1;
            fb.nextPsn = n + 1;
            fb.telemetry = &ih;
            flows[0]->OnAck(fb);
            if (n >= join)
            {
                flows[1]->OnAck(fb);
            }
            if (n == from)
            {
                diffStart = flows[0]->GetRate() - flows[1]->GetRate();
            }
        }
        const double diffEnd = flows[0]->GetRate() - flows[1]->GetRate();
        const double predicted = std::pow(1 + 2 * ai / (eta * b), -double(steps - from));
        const double measured = diffEnd / diffStart;
        const double sum = flows[0]->GetRate() + flows[1]->GetRate();
        std::cout << GetName() << ": difference " << diffStart / 1e9 << " -> " << diffEnd / 1e9
                  << " Gb/s over " << steps - from << " round trips, decay " << measured
                  << " (closed form " << predicted << "), sum " << sum / 1e9 << " Gb/s\n";
        NS_TEST_ASSERT_MSG_GT(std::fabs(diffStart), 1e9, "the flows start apart");
        NS_TEST_EXPECT_MSG_EQ_TOL(measured, predicted, 0.02 * predicted, "decay per round trip");
        NS_TEST_EXPECT_MSG_EQ_TOL(sum, eta * b + 2 * ai, 0.005 * b, "equilibrium");
        for (auto& f : flows)
        {
            f->Stop();
        }
    }
};

/**
 * \ingroup training-net-tests
 * RdmaHpcc::InitialUtilization, the smoothed U before the first sample. The second ACK comes
 * T / 2 after the first and reports the link busy at its rate B with no queue (u = 1): U =
 * (U0 (T - T/2) + u T/2) / T. With U0 = 1 (the HPCC family's start) U = 1 > eta and the rate
 * is cut to B eta / U + R_AI; with U0 = 0 (the default) U = 0.5 < eta and the rate stays at B.
 */
class RoceHpccInitialUtilizationTestCase : public TestCase
{
  public:
    RoceHpccInitialUtilizationTestCase()
        : TestCase("HPCC's smoothed utilisation starts at InitialUtilization")
    {
    }

  private:
    void DoRun() override
    {
        for (double u0 : {0.0, 1.0})
        {
            Ptr<RdmaHpcc> f = StartLawHpcc(u0);
            const uint8_t code = RoceIntHeader::RateCode(uint64_t(LAW_B));
            const uint64_t half = LAW_T_NS / 2;
            RoceIntHeader sample[2] = {RoceIntHeader(RoceIntHeader::HOPS),
                                       RoceIntHeader(RoceIntHeader::HOPS)};
            for (uint64_t n = 0; n < 2; ++n)
            {
                sample[n].InitHops(5, 1);
                // B over T / 2: the link sent at its rate since the first sample
                sample[n].PushHop(n * half, uint64_t(n * LAW_B * half * 1e-9 / 8), 0, code);
                RdmaCcFeedback fb;
                fb.ackedPsn = n + 1;
                fb.nextPsn = n + 1;
                fb.telemetry = &sample[n];
                f->OnAck(fb);
            }
            // the sample as the header codes it (its byte and rate fields are rounded): 1 within
            // 0.1 %
            const double sampled = static_cast<double>(sample[1].GetBytesDelta(0, sample[0])) *
                                   8e9 / static_cast<double>(sample[1].GetTimeDelta(0, sample[0])) /
                                   static_cast<double>(sample[1].GetHopRate(0));
            NS_TEST_EXPECT_MSG_EQ_TOL(sampled, 1.0, 1e-3, "the link at its rate");
            const double u = (u0 + sampled) / 2;
            const double expected = u >= LAW_ETA ? LAW_B * LAW_ETA / u + LAW_AI : LAW_B;
            NS_TEST_EXPECT_MSG_EQ_TOL(f->GetUtilisation(), u, 1e-9, "U0 " << u0);
            NS_TEST_EXPECT_MSG_EQ_TOL(f->GetRate(), expected, 1e-6 * LAW_B, "U0 " << u0);
            f->Stop();
        }
    }
};

/**
 * \ingroup training-net-tests
 * The suite.
 */
class RoceCcTestSuite : public TestSuite
{
  public:
    RoceCcTestSuite()
        : TestSuite("training-net-roce-cc", UNIT)
    {
        AddTestCase(new RoceIntHeaderTestCase, TestCase::QUICK);
        AddTestCase(new RoceCcConfigTestCase, TestCase::QUICK);
        AddTestCase(new RoceHpccAnyRateTestCase, TestCase::QUICK);
        AddTestCase(new RoceHpccPintStreamsTestCase, TestCase::QUICK);
        AddTestCase(new RoceHpccConvergenceTestCase, TestCase::QUICK);
        AddTestCase(new RoceHpccInitialUtilizationTestCase, TestCase::QUICK);
        using C = RoceCcBottleneckTestCase;
        AddTestCase(new C("hpcc", 2, C::PAPER), TestCase::QUICK);
        AddTestCase(new C("hpcc", 2, C::PAPER, 0.9), TestCase::QUICK);
        AddTestCase(new C("hpcc-pint", 2, C::PAPER), TestCase::QUICK);
        AddTestCase(new C("timely", 2, C::PAPER), TestCase::QUICK);
        AddTestCase(new C("dctcp", 2, C::PAPER), TestCase::QUICK);
        AddTestCase(new C("dctcp", 4, C::PAPER), TestCase::QUICK);
        for (const char* cc : {"hpcc", "hpcc-pint", "timely", "dctcp", "dcqcn"})
        {
            AddTestCase(new C(cc, 4, C::FAIRNESS), TestCase::QUICK);
        }
    }
};

static RoceCcTestSuite g_roceCcTestSuite; //!< the suite
