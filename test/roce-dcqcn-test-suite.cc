/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN and fabric-level NIC tests: the DCQCN state machine against its recurrences,
 * two-flow convergence and fairness, ECN off -> PFC, 8-to-1 incast lossless and lossy.
 */
#include "roce-nic-test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/rdma-dcqcn.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ns3
{

using namespace roce_test;

namespace
{
const uint64_t RATE = 100000000000ULL; // 100 Gb/s
const uint64_t LATENCY_NS = 1000;      // 1 us
} // namespace

/**
 * \ingroup training-net-tests
 * The DCQCN reaction point alone, driven by CNPs at chosen times; every rate is checked
 * against the DCQCN recurrences with the ConnectX defaults (g = 1/256, alpha period 1 us,
 * decrease period 4 us, increase timer 300 us, F = 1, AI 5 Mb/s and HAI 50 Mb/s per 25 Gb/s).
 */
class RoceDcqcnStateMachineTestCase : public TestCase
{
  public:
    explicit RoceDcqcnStateMachineTestCase(bool clamp)
        : TestCase(std::string("DCQCN state machine vs recurrences, ") +
                   (clamp ? "clamp_tgt_rate" : "ConnectX target rule")),
          m_clamp(clamp)
    {
    }

  private:
    struct Change
    {
        Time t;
        double rate;
    };

    void OnRate(double rate)
    {
        m_changes.push_back(Change{Simulator::Now(), rate});
    }

    void DoRun() override
    {
        RdmaDcqcnConfig cfg; // defaults = ConnectX
        cfg.byteCounter = 0; // timer only: stages follow the 300 us timer
        cfg.clampTargetRate = m_clamp;
        const double line = 100e9;
        cfg.aiBps = 5e6 * line / 25e9;
        cfg.haiBps = 50e6 * line / 25e9;
        RdmaDcqcn cc(&cfg, line, MakeCallback(&RoceDcqcnStateMachineTestCase::OnRate, this));
        for (double us : {0.0, 10.0, 11.0, 12.0, 13.0})
        {
            Simulator::Schedule(NanoSeconds(static_cast<int64_t>(us * 1000)),
                                &RdmaDcqcn::ReceiveCnp,
                                &cc);
        }
        Simulator::Stop(MicroSeconds(14 + 300 * 9 + 1));
        Simulator::Run();

        const double g = 1.0 / 256;
        std::vector<Change> exp;
        // t = 0: first CNP, alpha = 1: rate halves, target = line rate
        double rate = line * (1 - 1.0 / 2);
        double target = line; // first CNP: the target stays at the line rate in both modes
        exp.push_back(Change{Time(0), rate});
        // t = 10 us: alpha decayed for 10 periods without CNP; without clamp the target keeps
        // the line rate (no timer increase happened since the previous decrease)
        double alpha = std::pow(1 - g, 10);
        target = m_clamp ? rate : target;
        rate = rate * (1 - alpha / 2);
        exp.push_back(Change{MicroSeconds(10), rate});
        // CNPs at 11, 12, 13 us fold into one decrease at 14 us; alpha had a CNP in each of
        // the periods ending at 11, 12, 13 and 14 us
        for (int k = 0; k < 4; ++k)
        {
            alpha = (1 - g) * alpha + g;
        }
        target = m_clamp ? rate : target;
        rate = rate * (1 - alpha / 2);
        exp.push_back(Change{MicroSeconds(14), rate});
        // increase timer from 14 us: 1 fast recovery, 5 additive, then hyper
        for (int stage = 1; stage <= 9; ++stage)
        {
            if (stage > 1 && stage <= 6)
            {
                target += cfg.aiBps;
            }
            else if (stage > 6)
            {
                target += cfg.haiBps;
            }
            target = std::min(target, line); // the target never exceeds the line rate
            rate = (rate + target) / 2;
            exp.push_back(Change{MicroSeconds(14 + 300 * stage), rate});
        }
        NS_TEST_ASSERT_MSG_EQ(m_changes.size(), exp.size(), "number of rate changes");
        for (size_t i = 0; i < exp.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(m_changes[i].t, exp[i].t, "time of change " << i);
            NS_TEST_ASSERT_MSG_EQ_TOL(m_changes[i].rate / exp[i].rate,
                                      1.0,
                                      1e-12,
                                      "rate of change " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(cc.GetDecreases(), 3, "decreases (CNPs within 4 us folded)");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc.GetTargetRate() / target, 1.0, 1e-12, "target");
        cc.Stop();
        Simulator::Destroy();

        // floor: many decreases cannot go below MinRate
        RdmaDcqcnConfig low;
        low.minRateBps = 1e9;
        m_changes.clear();
        RdmaDcqcn cc2(&low, line, MakeCallback(&RoceDcqcnStateMachineTestCase::OnRate, this));
        for (int k = 0; k < 40; ++k)
        {
            Simulator::Schedule(MicroSeconds(5 * k), &RdmaDcqcn::ReceiveCnp, &cc2);
        }
        Simulator::Stop(MicroSeconds(200));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(cc2.GetRate(), 1e9, "rate floor");
        cc2.Stop();
        Simulator::Destroy();
    }

    std::vector<Change> m_changes;
    bool m_clamp;
};

/**
 * \ingroup training-net-tests
 * Two DCQCN flows share one 100 Gb/s bottleneck, the second starting 1 ms later: over the
 * second half of the run Jain's fairness > 0.95 and utilisation > 90 % of the goodput
 * capacity rate * MTU / (MTU + 82). With ECN marking disabled the queue grows until PFC
 * pauses the senders (no CNP at all).
 */
class RoceDcqcnConvergenceTestCase : public TestCase
{
  public:
    explicit RoceDcqcnConvergenceTestCase(bool ecn)
        : TestCase(ecn ? "two DCQCN flows converge (fairness, utilisation)"
                       : "ECN off: no CNP, the queue reaches the PFC limit"),
          m_ecn(ecn)
    {
    }

  private:
    void Sample(Ptr<RdmaNic> rx, int idx)
    {
        for (uint32_t s = 0; s < 2; ++s)
        {
            Ptr<RdmaQueuePair> qp = rx->GetQueuePair(s, 3);
            m_bytes[idx][s] = qp ? qp->GetReceivedBytes() : 0;
        }
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::RoceSwitchMmu::EcnEnabled", BooleanValue(m_ecn));
        tn_topology* topo = MakeStar(3, RATE, LATENCY_NS);
        RoceHelper helper;
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        PfcCounter pfc;
        pfc.Connect(f);
        Ptr<RdmaNic> rx = helper.GetNic(2);
        const Time end = m_ecn ? MilliSeconds(21) : MilliSeconds(3);
        const Time half = m_ecn ? MilliSeconds(11) : MilliSeconds(2);
        helper.GetNic(0)->PostWrite(2, 1000000000ULL, 3);
        Simulator::Schedule(MilliSeconds(1),
                            &RdmaNic::PostWrite,
                            helper.GetNic(1),
                            2,
                            1000000000ULL,
                            3,
                            RdmaNic::CompletionCallback());
        Simulator::Schedule(half, &RoceDcqcnConvergenceTestCase::Sample, this, rx, 0);
        Simulator::Schedule(end, &RoceDcqcnConvergenceTestCase::Sample, this, rx, 1);
        Simulator::Stop(end + NanoSeconds(1));
        Simulator::Run();

        double secs = (end - half).GetSeconds();
        double x[2];
        for (int s = 0; s < 2; ++s)
        {
            x[s] = (m_bytes[1][s] - m_bytes[0][s]) * 8.0 / secs;
        }
        double capacity = RATE * 4096.0 / (4096 + RdmaNic::DATA_WIRE_OVERHEAD);
        double jain = (x[0] + x[1]) * (x[0] + x[1]) / (2 * (x[0] * x[0] + x[1] * x[1]));
        double util = (x[0] + x[1]) / capacity;
        uint64_t cnps = helper.GetNic(2)->GetCnpsSent();
        Ptr<RoceSwitchMmu> mmu = f.switches.Get(0)->GetObject<RoceSwitch>()->GetMmu();
        if (m_ecn)
        {
            NS_TEST_ASSERT_MSG_GT(cnps, 0, "congestion must produce CNPs");
            NS_TEST_ASSERT_MSG_GT(jain, 0.95, "Jain fairness over the second half");
            NS_TEST_ASSERT_MSG_GT(util, 0.90, "bottleneck utilisation");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(util, 1.0 + 1e-3, "cannot exceed capacity");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(cnps, 0, "no ECN, no CNP");
            NS_TEST_ASSERT_MSG_GT(pfc.pauses, 0, "the queue must reach the PFC threshold");
            NS_TEST_ASSERT_MSG_EQ(TotalSwitchDrops(f), 0, "lossless: no drop");
            NS_TEST_ASSERT_MSG_GT(util, 0.95, "PFC keeps the bottleneck busy");
        }
        if (m_ecn)
        {
            // DCQCN keeps the queue well below what PFC alone lets it reach (> 5 MB here)
            NS_TEST_ASSERT_MSG_LT(mmu->GetMaxBufferUsed(), 3000000, "DCQCN bounds the queue");
        }
        else
        {
            NS_TEST_ASSERT_MSG_GT(mmu->GetMaxBufferUsed(), 3000000, "queue grows to the PFC limit");
        }
        Simulator::Destroy();
        Config::Reset();
    }

    bool m_ecn;
    uint64_t m_bytes[2][2]{};
};

/**
 * \ingroup training-net-tests
 * 8-to-1 incast through one switch with a 1 MB buffer.
 * Lossless (priority 3 PFC-enabled): zero drops, PFC pauses, every byte delivered, nothing
 * retransmitted. Lossy (PFC off): the switch drops, go-back-N still delivers every byte.
 */
class RoceIncastTestCase : public TestCase
{
  public:
    explicit RoceIncastTestCase(bool lossless)
        : TestCase(lossless ? "8-to-1 incast, lossless: PFC, no drop"
                            : "8-to-1 incast, PFC off: drops, go-back-N delivers"),
          m_lossless(lossless)
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(3);
        RngSeedManager::SetRun(1);
        Config::SetDefault("ns3::RoceSwitchMmu::BufferSize", UintegerValue(1000000));
        tn_topology* topo = MakeStar(9, RATE, LATENCY_NS);
        RoceHelper helper;
        if (!m_lossless)
        {
            helper.SetDeviceAttribute("PfcEnableMask", UintegerValue(0));
        }
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        helper.AssignStreams(0);
        PfcCounter pfc;
        pfc.Connect(f);
        Completions sent;
        Completions received;
        helper.GetNic(8)->TraceConnectWithoutContext("MessageReceived",
                                                     MakeCallback(&Completions::Done, &received));
        const uint64_t bytes = m_lossless ? 2000000 : 500000;
        for (uint32_t s = 0; s < 8; ++s)
        {
            helper.GetNic(s)->PostWrite(8, bytes, 3, MakeCallback(&Completions::Done, &sent));
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        uint64_t delivered = 0;
        for (const auto& r : received.records)
        {
            NS_TEST_ASSERT_MSG_EQ(r.bytes, bytes, "message size");
            delivered += r.bytes;
        }
        uint64_t retx = 0;
        uint64_t nacks = 0;
        for (uint32_t s = 0; s < 8; ++s)
        {
            retx += helper.GetNic(s)->GetRetransmittedBytes();
            nacks += helper.GetNic(s)->GetNacksReceived();
        }
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 8, "all messages complete");
        NS_TEST_ASSERT_MSG_EQ(delivered, 8 * bytes, "all bytes delivered");
        uint64_t drops = TotalSwitchDrops(f);
        if (m_lossless)
        {
            NS_TEST_ASSERT_MSG_EQ(drops, 0, "lossless priority must not drop");
            NS_TEST_ASSERT_MSG_GT(pfc.pauses, 0, "PFC pauses expected");
            NS_TEST_ASSERT_MSG_EQ(retx, 0, "no retransmission without loss");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(pfc.pauses, 0, "PFC is off");
            NS_TEST_ASSERT_MSG_GT(drops, 0, "small lossy buffer must drop");
            NS_TEST_ASSERT_MSG_GT(nacks, 0, "drops seen as gaps");
            NS_TEST_ASSERT_MSG_GT(retx, 0, "drops repaired by retransmission");
        }
        Simulator::Destroy();
        Config::Reset();
    }

    bool m_lossless;
};

/**
 * \ingroup training-net-tests
 * DCQCN and fabric-level NIC test suite.
 */
class RoceDcqcnTestSuite : public TestSuite
{
  public:
    RoceDcqcnTestSuite()
        : TestSuite("training-net-roce-dcqcn", UNIT)
    {
        AddTestCase(new RoceDcqcnStateMachineTestCase(false), TestCase::QUICK);
        AddTestCase(new RoceDcqcnStateMachineTestCase(true), TestCase::QUICK);
        AddTestCase(new RoceIncastTestCase(true), TestCase::QUICK);
        AddTestCase(new RoceIncastTestCase(false), TestCase::QUICK);
        AddTestCase(new RoceDcqcnConvergenceTestCase(false), TestCase::QUICK);
        AddTestCase(new RoceDcqcnConvergenceTestCase(true), TestCase::QUICK);
    }
};

static RoceDcqcnTestSuite g_roceDcqcnTestSuite; //!< static instance

} // namespace ns3
