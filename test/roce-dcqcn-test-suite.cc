/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN and fabric-level NIC tests: the DCQCN state machine against its recurrences (timer
 * and byte-counter increase paths), two-flow convergence and fairness, ECN off -> PFC, 8-to-1
 * incast lossless and lossy, the incast rate collapse of DCQCN, the defaults guard.
 */
#include "roce-nic-test-util.h"
#include "roce-test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
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
#include <map>
#include <memory>
#include <string>
#include <utility>
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
 * The reaction point with periodicDecrease and the HPCC family's settings (alpha period 1 us,
 * decrease period 4 us, F = 1, one additive stage, no byte counter): from the first CNP on,
 * cuts fall on the grid 4, 8, 12, ... us after it, only at the end of a period that saw a CNP,
 * the first period included. Every rate and time is checked against the recurrences.
 */
class RoceDcqcnPeriodicTestCase : public TestCase
{
  public:
    RoceDcqcnPeriodicTestCase()
        : TestCase("DCQCN periodic decrease (the HPCC family's reaction point) vs recurrences")
    {
    }

  private:
    void OnRate(double rate)
    {
        m_times.push_back(Simulator::Now());
        m_rates.push_back(rate);
    }

    void DoRun() override
    {
        RdmaDcqcnConfig cfg;
        cfg.periodicDecrease = true;
        cfg.byteCounter = 0;
        cfg.fastRecoveryStages = 1;
        cfg.additiveStages = 1;
        const double line = 100e9;
        cfg.aiBps = 50e6;
        cfg.haiBps = 100e6;
        RdmaDcqcn cc(&cfg, line, MakeCallback(&RoceDcqcnPeriodicTestCase::OnRate, this));
        // CNPs off the grid points: 0 (first), 2.5 (same period), 9.5 (after a quiet period:
        // no cut at once), 30.5 us
        for (int64_t ns : {0, 2500, 9500, 30500})
        {
            Simulator::Schedule(NanoSeconds(ns), &RdmaDcqcn::ReceiveCnp, &cc);
        }
        Simulator::Stop(MicroSeconds(32 + 300 * 3 + 1));
        Simulator::Run();

        const double g = cfg.g;
        const double k = 1 - g;
        std::vector<Time> times;
        std::vector<double> rates;
        // alpha 1 at 0; periods ending at 1 and 2 us without CNP, at 3 us with the CNP of
        // 2.5 us, at 4 us without
        double alpha = (std::pow(k, 3) + g) * k;
        double rate = line * (1 - alpha / 2);
        double target = line; // no timer increase before the cut: the target keeps its value
        times.push_back(MicroSeconds(4));
        rates.push_back(rate);
        // 9.5 us: the cut waits for the grid point 12 us; alpha: 5 quiet periods to 9 us,
        // the CNP's period to 10 us, 2 quiet periods to 12 us
        alpha = (std::pow(k, 6) * alpha + g) * k * k;
        rate = rate * (1 - alpha / 2);
        times.push_back(MicroSeconds(12));
        rates.push_back(rate);
        // 30.5 us: cut at 32 us; 18 quiet periods to 30 us, the CNP's, one quiet
        alpha = (std::pow(k, 19) * alpha + g) * k;
        rate = rate * (1 - alpha / 2);
        times.push_back(MicroSeconds(32));
        rates.push_back(rate);
        // the increase timer from 32 us: fast recovery, one additive step, hyper
        for (int stage = 1; stage <= 3; ++stage)
        {
            target += stage == 2 ? cfg.aiBps : stage == 3 ? cfg.haiBps : 0.0;
            target = std::min(target, line);
            rate = (rate + target) / 2;
            times.push_back(MicroSeconds(32 + 300 * stage));
            rates.push_back(rate);
        }
        NS_TEST_ASSERT_MSG_EQ(m_times.size(), times.size(), "number of rate changes");
        for (size_t i = 0; i < times.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(m_times[i], times[i], "time of change " << i);
            NS_TEST_ASSERT_MSG_EQ_TOL(m_rates[i] / rates[i], 1.0, 1e-12, "rate of change " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(cc.GetDecreases(), 3, "one cut per period with a CNP");
        cc.Stop();
        Simulator::Destroy();
    }

    std::vector<Time> m_times;
    std::vector<double> m_rates;
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
        DefaultsGuard guard;
        guard.SetDefault("ns3::RoceSwitchMmu::EcnEnabled", BooleanValue(m_ecn));
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
        DefaultsGuard guard;
        guard.SetSeed(3, 1);
        guard.SetDefault("ns3::RoceSwitchMmu::BufferSize", UintegerValue(1000000));
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
    }

    bool m_lossless;
};

/**
 * \ingroup training-net-tests
 * The default byte-counter increase path (ByteCounter = 32767 x 64 bytes) of the reaction
 * point, driven by CNPs and by NotifySent at chosen times, against the DCQCN stages worked
 * out by hand: B counts byte-counter events, T timer events, F = 1; max(T,B) <= F fast
 * recovery, min(T,B) > F hyper, else additive. The byte counter restarts at each decrease,
 * and the target follows the ConnectX rule (clamped only after a timer increase).
 */
class RoceDcqcnByteCounterTestCase : public TestCase
{
  public:
    RoceDcqcnByteCounterTestCase()
        : TestCase("DCQCN byte-counter increase path vs the state machine by hand")
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

    /// `chunks` sends of CHUNK bytes, 10 ns apart, from `start`.
    void Burst(RdmaDcqcn* cc, Time start, uint32_t chunks)
    {
        for (uint32_t i = 0; i < chunks; ++i)
        {
            Simulator::Schedule(start + NanoSeconds(10 * i), &RdmaDcqcn::NotifySent, cc, CHUNK);
        }
    }

    void DoRun() override
    {
        RdmaDcqcnConfig cfg; // ConnectX defaults, byte counter on
        const double line = 100e9;
        cfg.aiBps = 5e6 * line / 25e9;
        cfg.haiBps = 50e6 * line / 25e9;
        const uint64_t bc = cfg.byteCounter;
        NS_TEST_ASSERT_MSG_EQ(bc, 32767ULL * 64, "default byte counter");
        RdmaDcqcn cc(&cfg, line, MakeCallback(&RoceDcqcnByteCounterTestCase::OnRate, this));

        // bursts: start (us), chunks, first burst after the decrease at 320 us; the one at
        // 315 us is counted, then discarded by that decrease
        struct BurstSpec
        {
            double us;
            uint32_t chunks;
            bool restart;
        };

        const std::vector<BurstSpec> bursts{{20, 512, false},
                                            {315, 256, false},
                                            {330, 512, true},
                                            {340, 512, false},
                                            {350, 512, false},
                                            {630, 512, false},
                                            {930, 512, false}};
        Simulator::Schedule(Time(0), &RdmaDcqcn::ReceiveCnp, &cc);
        Simulator::Schedule(MicroSeconds(320), &RdmaDcqcn::ReceiveCnp, &cc);
        for (const auto& b : bursts)
        {
            Burst(&cc, NanoSeconds(static_cast<int64_t>(b.us * 1000)), b.chunks);
        }
        Simulator::Stop(MicroSeconds(1000));
        Simulator::Run();

        // byte events: the chunk at which the bytes counted since the last decrease cross a
        // multiple of bc (integer arithmetic, independent of the model's running remainder)
        std::vector<Time> byteEvents;
        uint64_t counted = 0;
        for (const auto& b : bursts)
        {
            if (b.restart)
            {
                counted = 0;
            }
            for (uint32_t i = 0; i < b.chunks; ++i)
            {
                const uint64_t before = counted / bc;
                counted += CHUNK;
                if (counted / bc > before)
                {
                    byteEvents.push_back(NanoSeconds(static_cast<int64_t>(b.us * 1000)) +
                                         NanoSeconds(10 * i));
                }
            }
        }
        // one event per full burst, none from the cut-short one
        NS_TEST_ASSERT_MSG_EQ(byteEvents.size(), 6, "byte events");

        const double g = 1.0 / 256;
        std::vector<Change> exp;
        // 0 us: alpha = 1, rate halves; no timer increase yet, so the target stays at line
        double rate = line / 2;
        double target = line;
        exp.push_back(Change{Time(0), rate});
        // B = 1, T = 0: fast recovery
        rate = (rate + target) / 2;
        exp.push_back(Change{byteEvents[0], rate});
        // timer at 300 us: T = 1, B = 1: still fast recovery
        rate = (rate + target) / 2;
        exp.push_back(Change{MicroSeconds(300), rate});
        // 320 us: a timer increase happened, so target = rate; alpha decayed 320 periods
        double alpha = std::pow(1 - g, 320);
        target = rate;
        rate = rate * (1 - alpha / 2);
        exp.push_back(Change{MicroSeconds(320), rate});
        // B = 1, T = 0: fast recovery
        rate = (rate + target) / 2;
        exp.push_back(Change{byteEvents[1], rate});
        // B = 2, 3 with T = 0: additive
        for (int k = 2; k <= 3; ++k)
        {
            target += cfg.aiBps;
            rate = (rate + target) / 2;
            exp.push_back(Change{byteEvents[k], rate});
        }
        // timer at 620 us: T = 1, B = 3: min(T, B) = 1 = F: additive
        target += cfg.aiBps;
        rate = (rate + target) / 2;
        exp.push_back(Change{MicroSeconds(620), rate});
        // B = 4, T = 1: additive
        target += cfg.aiBps;
        rate = (rate + target) / 2;
        exp.push_back(Change{byteEvents[4], rate});
        // timer at 920 us: T = 2, B = 4: hyper
        target += cfg.haiBps;
        rate = (rate + target) / 2;
        exp.push_back(Change{MicroSeconds(920), rate});
        // B = 5, T = 2: hyper
        target += cfg.haiBps;
        rate = (rate + target) / 2;
        exp.push_back(Change{byteEvents[5], rate});

        NS_TEST_ASSERT_MSG_EQ(m_changes.size(), exp.size(), "number of rate changes");
        for (size_t i = 0; i < exp.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(m_changes[i].t, exp[i].t, "time of change " << i);
            NS_TEST_ASSERT_MSG_EQ_TOL(m_changes[i].rate / exp[i].rate,
                                      1.0,
                                      1e-12,
                                      "rate of change " << i);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(cc.GetTargetRate() / target, 1.0, 1e-12, "target");
        cc.Stop();
        Simulator::Destroy();
    }

    static constexpr uint64_t CHUNK = 4096; //!< bytes per NotifySent
    std::vector<Change> m_changes;
};

/**
 * \ingroup training-net-tests
 * Why an 8-to-1 incast of line-rate flows idles the bottleneck under DCQCN with the
 * ConnectX defaults: CNPs keep coming while the queue built before the first CNP drains
 * above Kmin, so every QP is cut again every CNP interval down to MinRate; nothing raises
 * the rate before the 300 us timer, and its first fast-recovery step goes halfway to the
 * target, which is still the line rate (no timer increase happened before the cuts). With
 * the DCQCN paper's CNP interval (50 us) the cuts stop near the fair share and the incast
 * completes within 3 % of the closed form 8 x bytes x (MTU + 82) / MTU / C.
 */
class RoceDcqcnIncastCollapseTestCase : public TestCase
{
  public:
    explicit RoceDcqcnIncastCollapseTestCase(bool paperCnpInterval)
        : TestCase(paperCnpInterval ? "8-to-1 DCQCN incast, 50 us CNP interval: near line rate"
                                    : "8-to-1 DCQCN incast, ConnectX defaults: rates collapse "
                                      "to MinRate, timer recovers halfway to line"),
          m_paper(paperCnpInterval)
    {
    }

  private:
    /// \param sender the sender's node id (trace context: each sender has one QP)
    void OnRate(std::string sender, uint32_t qpn, double rate)
    {
        m_rates[sender].push_back(rate);
    }

    void Done(const RdmaMessageRecord& r)
    {
        m_last = std::max(m_last, Simulator::Now());
        ++m_done;
    }

    void DoRun() override
    {
        DefaultsGuard guard;
        guard.SetSeed(5, 1);
        if (m_paper)
        {
            guard.SetDefault("ns3::RdmaNic::CnpInterval", TimeValue(MicroSeconds(50)));
        }
        tn_topology* topo = MakeStar(9, RATE, LATENCY_NS);
        RoceHelper helper;
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        helper.AssignStreams(0);
        const uint64_t bytes = 10000000;
        for (uint32_t s = 0; s < 8; ++s)
        {
            helper.GetNic(s)->TraceConnect(
                "RateChange",
                std::to_string(s),
                MakeCallback(&RoceDcqcnIncastCollapseTestCase::OnRate, this));
            helper.GetNic(s)->PostWrite(8,
                                        bytes,
                                        3,
                                        MakeCallback(&RoceDcqcnIncastCollapseTestCase::Done, this));
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_done, 8, "every flow completes");
        const double ideal = 8.0 * bytes * (4096.0 + RdmaNic::DATA_WIRE_OVERHEAD) / 4096.0 * 8 /
                             static_cast<double>(RATE);
        DataRateValue minRateValue;
        CreateObject<RdmaDcqcnControl>()->GetAttribute("MinRate", minRateValue);
        const double minRate = static_cast<double>(minRateValue.Get().GetBitRate());
        NS_TEST_ASSERT_MSG_EQ(m_rates.size(), 8, "every QP changed its rate");
        if (m_paper)
        {
            NS_TEST_ASSERT_MSG_LT(m_last.GetSeconds(), ideal * 1.03, "near line rate");
            for (const auto& q : m_rates)
            {
                NS_TEST_ASSERT_MSG_GT(*std::min_element(q.second.begin(), q.second.end()),
                                      minRate,
                                      "cuts stop above MinRate");
            }
        }
        else
        {
            for (const auto& q : m_rates)
            {
                const std::vector<double>& v = q.second;
                auto low = std::find(v.begin(), v.end(), minRate);
                const bool hit = low != v.end();
                NS_TEST_ASSERT_MSG_EQ(hit, true, "sender " << q.first << " hit MinRate");
                const bool recovers = hit && low + 1 != v.end();
                NS_TEST_ASSERT_MSG_EQ(recovers, true, "sender " << q.first << " recovers");
                if (recovers)
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(*(low + 1) / ((minRate + RATE) / 2.0),
                                              1.0,
                                              1e-12,
                                              "first increase: halfway to the line-rate target");
                }
            }
            // the idle link: at least one timer period lost against the closed form
            NS_TEST_ASSERT_MSG_GT(m_last.GetSeconds(), ideal + 300e-6, "bottleneck idles");
        }
        Simulator::Destroy();
    }

    bool m_paper;
    std::map<std::string, std::vector<double>> m_rates;
    Time m_last;
    uint32_t m_done{0};
};

/**
 * \ingroup training-net-tests
 * DefaultsGuard restores attribute defaults and the RNG seed and run, also when the scope is
 * left early as by a failed NS_TEST_ASSERT.
 */
class RoceDefaultsGuardTestCase : public TestCase
{
  public:
    RoceDefaultsGuardTestCase()
        : TestCase("DefaultsGuard restores defaults and seeds on an early return")
    {
    }

  private:
    static uint64_t Kmin()
    {
        TypeId::AttributeInformation info;
        TypeId tid = TypeId::LookupByName("ns3::RoceSwitchMmu");
        NS_ABORT_IF(!tid.LookupAttributeByName("EcnKmin", &info));
        return DynamicCast<const UintegerValue>(info.initialValue)->Get();
    }

    /// Changes defaults through a guard, then leaves early as a failed assertion does.
    static bool ChangeAndLeave(uint64_t kmin)
    {
        DefaultsGuard guard;
        guard.SetSeed(12345, 77);
        guard.SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(kmin));
        guard.SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(kmin + 1));
        if (Kmin() == kmin + 1)
        {
            return true;
        }
        return false;
    }

    void DoRun() override
    {
        const uint64_t kmin0 = Kmin();
        const uint32_t seed0 = RngSeedManager::GetSeed();
        const uint64_t run0 = RngSeedManager::GetRun();
        NS_TEST_ASSERT_MSG_EQ(ChangeAndLeave(kmin0 + 1000), true, "default changed in scope");
        NS_TEST_ASSERT_MSG_EQ(Kmin(), kmin0, "default restored");
        NS_TEST_ASSERT_MSG_EQ(RngSeedManager::GetSeed(), seed0, "seed restored");
        NS_TEST_ASSERT_MSG_EQ(RngSeedManager::GetRun(), run0, "run restored");
    }
};

/**
 * \ingroup training-net-tests
 * The control builds its state machine at the first CNP, not at Start: a QP's rate, window
 * and alpha are those of a machine built at Start and driven by the same calls (the
 * reference, an RdmaDcqcn on the control's own parameters), at every instant, and the control
 * tells its listener each change. Before the first CNP the machine does not exist (a QP that
 * never hears of congestion carries none), sends count nothing and alpha is the initial one.
 */
class RoceDcqcnLazyMachineTestCase : public TestCase, private RdmaCongestionControl::Listener
{
  public:
    RoceDcqcnLazyMachineTestCase()
        : TestCase("DCQCN: the state machine built at the first CNP acts as one built at Start")
    {
    }

  private:
    void RateChanged(double bps) override
    {
        m_heard.push_back(std::make_pair(Simulator::Now(), bps));
    }

    void WindowChanged(uint64_t bytes) override
    {
        ++m_windows;
    }

    void OnReferenceRate(double bps)
    {
        m_reference.push_back(std::make_pair(Simulator::Now(), bps));
    }

    /// Both get the same call at the same instant; their rates are compared after it.
    void Sent(uint32_t bytes)
    {
        m_control->OnSent(0, bytes);
        m_machine->NotifySent(bytes);
        Compare("send");
    }

    void Cnp()
    {
        m_control->OnCnp();
        m_machine->ReceiveCnp();
        Compare("CNP");
    }

    void Compare(const char* what)
    {
        NS_TEST_EXPECT_MSG_EQ(m_control->GetRate(),
                              m_machine->GetRate(),
                              what << " at " << Simulator::Now());
        NS_TEST_EXPECT_MSG_EQ(m_control->GetAlpha(),
                              m_machine->GetAlpha(),
                              what << " at " << Simulator::Now());
    }

    void CheckNoMachine()
    {
        NS_TEST_EXPECT_MSG_EQ((m_control->GetStateMachine() == nullptr),
                              true,
                              "sends alone build no machine");
    }

    void DoRun() override
    {
        const double line = 100e9;
        m_control = CreateObject<RdmaDcqcnControl>();
        m_control->SetAttribute("WindowRtt", TimeValue(MicroSeconds(8)));
        m_control->Start(line, 1000, this);
        NS_TEST_ASSERT_MSG_EQ(m_windows, 1U, "the listener hears the window set at Start");
        NS_TEST_ASSERT_MSG_EQ((m_control->GetStateMachine() == nullptr),
                              true,
                              "no state machine before a CNP");
        DoubleValue initialAlpha;
        m_control->GetAttribute("InitialAlpha", initialAlpha);
        NS_TEST_ASSERT_MSG_EQ(m_control->GetAlpha(), initialAlpha.Get(), "alpha before a CNP");
        m_machine = std::make_unique<RdmaDcqcn>(
            &m_control->GetConfig(),
            line,
            MakeCallback(&RoceDcqcnLazyMachineTestCase::OnReferenceRate, this));
        // sends before the first CNP (counted by neither: both at line rate), a CNP, sends
        // that pass the byte counter, CNPs inside and after a decrease period, and the timers'
        // recovery in between
        const uint32_t mb = 1 << 20;
        for (uint32_t i = 0; i < 8; ++i)
        {
            Simulator::Schedule(MicroSeconds(1 + i), &RoceDcqcnLazyMachineTestCase::Sent, this, mb);
        }
        for (double us : {20.0, 21.0, 90.0, 700.0, 2500.0})
        {
            Simulator::Schedule(MicroSeconds(us), &RoceDcqcnLazyMachineTestCase::Cnp, this);
        }
        for (uint32_t i = 0; i < 400; ++i)
        {
            Simulator::Schedule(MicroSeconds(30 + 10 * i),
                                &RoceDcqcnLazyMachineTestCase::Sent,
                                this,
                                mb);
        }
        Simulator::Schedule(MicroSeconds(19), &RoceDcqcnLazyMachineTestCase::CheckNoMachine, this);
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ((m_control->GetStateMachine() != nullptr),
                              true,
                              "the first CNP built the machine");
        NS_TEST_EXPECT_MSG_GT(m_reference.size(), 10U, "the reference changed rate often");
        NS_TEST_EXPECT_MSG_EQ(m_heard.size(), m_reference.size(), "as many changes heard");
        for (size_t i = 0; i < std::min(m_heard.size(), m_reference.size()); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(m_heard[i].first,
                                  m_reference[i].first,
                                  "change " << i << " time");
            NS_TEST_EXPECT_MSG_EQ(m_heard[i].second, m_reference[i].second, "change " << i);
        }
        Compare("end");
        m_machine.reset();
        m_control->Stop();
        m_control = nullptr;
        Simulator::Destroy();
    }

    Ptr<RdmaDcqcnControl> m_control;
    std::unique_ptr<RdmaDcqcn> m_machine;             //!< the reference, built at Start
    std::vector<std::pair<Time, double>> m_heard;     //!< the control's listener
    std::vector<std::pair<Time, double>> m_reference; //!< the reference's callback
    uint32_t m_windows{0};                            //!< window changes heard
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
        AddTestCase(new RoceDcqcnByteCounterTestCase, TestCase::QUICK);
        AddTestCase(new RoceDcqcnPeriodicTestCase, TestCase::QUICK);
        AddTestCase(new RoceDcqcnLazyMachineTestCase, TestCase::QUICK);
        AddTestCase(new RoceDefaultsGuardTestCase, TestCase::QUICK);
        AddTestCase(new RoceIncastTestCase(true), TestCase::QUICK);
        AddTestCase(new RoceIncastTestCase(false), TestCase::QUICK);
        AddTestCase(new RoceDcqcnConvergenceTestCase(false), TestCase::QUICK);
        AddTestCase(new RoceDcqcnConvergenceTestCase(true), TestCase::QUICK);
        AddTestCase(new RoceDcqcnIncastCollapseTestCase(false), TestCase::QUICK);
        AddTestCase(new RoceDcqcnIncastCollapseTestCase(true), TestCase::QUICK);
    }
};

static RoceDcqcnTestSuite g_roceDcqcnTestSuite; //!< static instance

} // namespace ns3
