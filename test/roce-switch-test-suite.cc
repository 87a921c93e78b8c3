/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RoceSwitch and RoceSwitchMmu: ECN marking curve at fixed queue depths, lossless incast
// (no drops, PAUSE, buffer bound), lossy incast (drops with reason), 2048-port forwarding,
// ECMP spreading and determinism per seed, the forwarding rule's order (RoceForwarding),
// identical traces for identical seeds. Over 1,000 lines for a reason: one suite per concept
// (the switch and its MMU), its cases sharing the star fabric and the ECN run builders at the
// top.

#include "roce-test-util.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-forwarding.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <map>
#include <vector>

using namespace ns3;
using namespace ns3::roce_test;

namespace
{

/**
 * A star: one switch, n hosts, all links at `rate` with 1 us delay. Switch port i leads to
 * host i; hosts have local addresses and sinks.
 */
struct Star
{
    Ptr<Node> sw;                            //!< switch node
    Ptr<RoceSwitch> fwd;                     //!< its RoceSwitch
    std::vector<Ptr<Node>> hosts;            //!< hosts
    std::vector<Ptr<RoceNetDevice>> hostDev; //!< host side devices
    std::vector<Ptr<TestSink>> sinks;        //!< host sinks

    /**
     * \param n hosts \param rate link rate \param pfcMask lossless priorities
     * \param bufferSize switch buffer (0 = default)
     * \param mmuAttrs further integer MMU attributes, set before the ports are added
     */
    Star(uint32_t n,
         std::string rate,
         uint8_t pfcMask = 0x08,
         uint64_t bufferSize = 0,
         const std::map<std::string, uint64_t>& mmuAttrs = {})
    {
        sw = CreateObject<Node>();
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue(rate));
        link.SetDeviceAttribute("PfcEnableMask", UintegerValue(pfcMask));
        link.SetChannelAttribute("Delay", StringValue("1us"));
        fwd = link.GetOrInstallSwitch(sw);
        if (bufferSize)
        {
            fwd->GetMmu()->SetAttribute("BufferSize", UintegerValue(bufferSize));
        }
        for (const auto& kv : mmuAttrs)
        {
            fwd->GetMmu()->SetAttribute(kv.first, UintegerValue(kv.second));
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Node> h = CreateObject<Node>();
            NetDeviceContainer d = link.Install(sw, h);
            hosts.push_back(h);
            hostDev.push_back(DynamicCast<RoceNetDevice>(d.Get(1)));
            Ptr<RoceSwitch> hs = h->GetObject<RoceSwitch>();
            hs->SetLocalAddress(RoceAddress::FromNodeId(h->GetId()));
            Ptr<TestSink> sink = Create<TestSink>();
            hs->SetLocalReceiveCallback(MakeCallback(&TestSink::Receive, sink));
            sinks.push_back(sink);
            fwd->SetRoute(h->GetId(), {i});
        }
    }
};

/** closed-form ECN probability at 25 Gb/s defaults (Kmin 100 KB, Kmax 400 KB, Pmax 0.2) */
double
EcnP(uint64_t q)
{
    if (q <= 100000)
    {
        return 0;
    }
    if (q > 400000)
    {
        return 1;
    }
    return 0.2 * double(q - 100000) / 300000.0;
}

/** Result of one fixed-depth ECN run. */
struct EcnRun
{
    std::vector<uint64_t> q;     //!< egress queue bytes at each dequeue of a measured packet
    std::vector<uint8_t> ce;     //!< CE flag of each measured packet at the receiver
    std::vector<int64_t> markNs; //!< times of EcnMark trace calls
};

/** Dequeue trace sink: queue bytes seen at dequeue of the measured flow. */
void
RecordDequeue(EcnRun* run, Ptr<RoceNetDevice> dev, Ptr<const Packet> p, uint8_t queue)
{
    RoceIpUdpHeader ip;
    p->PeekHeader(ip);
    if (ip.GetSourcePort() == 1000)
    {
        run->q.push_back(dev->GetQueueBytes(queue));
    }
}

/** EcnMark sink */
void
RecordMark(EcnRun* run, Ptr<const Packet>, uint32_t, uint8_t, uint64_t)
{
    run->markNs.push_back(Simulator::Now().GetNanoSeconds());
}

/**
 * Host 0 sends `count` packets at line rate through the switch to host 1, whose egress queue
 * was pre-filled with `prefill` packets: arrival rate = departure rate keeps the depth fixed.
 */
EcnRun
RunFixedDepth(uint32_t prefill, uint32_t count, int64_t stream)
{
    EcnRun run;
    Star star(2, "25Gbps");
    star.fwd->AssignStreams(stream);
    Ptr<RoceNetDevice> egress = star.fwd->GetPort(1);
    const uint32_t dst = star.hosts[1]->GetId();
    for (uint32_t k = 0; k < prefill; ++k)
    {
        egress->Enqueue(BuildPacket(star.hosts[0]->GetId(),
                                    dst,
                                    999,
                                    3,
                                    RoceBthHeader::RC_WRITE_MIDDLE,
                                    0x22,
                                    k,
                                    4096,
                                    RoceIpUdpHeader::NOT_ECT),
                        3,
                        RoceNetDevice::NO_INGRESS);
    }
    Ptr<TestSource> src = Create<TestSource>();
    src->srcNode = star.hosts[0]->GetId();
    src->dstNode = dst;
    src->count = count;
    src->Install(star.hostDev[0]);
    egress->TraceConnectWithoutContext("Dequeue", MakeBoundCallback(&RecordDequeue, &run, egress));
    star.fwd->TraceConnectWithoutContext("EcnMark", MakeBoundCallback(&RecordMark, &run));
    Simulator::Run();
    for (const RxRecord& r : star.sinks[1]->rx)
    {
        if (r.sport == 1000)
        {
            run.ce.push_back(r.ecn == RoceIpUdpHeader::CE ? 1 : 0);
        }
    }
    Simulator::Destroy();
    return run;
}

} // namespace

/**
 * \ingroup training-net-tests
 * ECN marking frequency at fixed egress queue depths follows the Kmin/Kmax/Pmax curve.
 */
class RoceEcnCurveTestCase : public TestCase
{
  public:
    RoceEcnCurveTestCase()
        : TestCase("ECN marking frequency follows the RED-like curve")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t count = 4000;
        // 4140-byte packets: depths about 20, 45, 70, 90 and 110 packets
        for (uint32_t prefill : {20u, 45u, 70u, 90u, 110u})
        {
            EcnRun run = RunFixedDepth(prefill, count, 7);
            NS_TEST_ASSERT_MSG_EQ(run.ce.size(), count, "all packets arrived");
            NS_TEST_ASSERT_MSG_EQ(run.q.size(), count, "all packets dequeued");
            // the depth is fixed (within 2 packets) until the source stops
            uint64_t qmin = run.q[0];
            uint64_t qmax = run.q[0];
            double expected = 0;
            double variance = 0;
            uint32_t marks = 0;
            uint32_t wrong = 0; // marks where p = 0 or no mark where p = 1
            for (uint32_t k = 0; k < count; ++k)
            {
                if (k + prefill + 5 < count) // the tail drains once the source stops
                {
                    qmin = std::min(qmin, run.q[k]);
                    qmax = std::max(qmax, run.q[k]);
                }
                const double p = EcnP(run.q[k]);
                expected += p;
                variance += p * (1 - p);
                marks += run.ce[k];
                wrong += (p == 0 && run.ce[k]) || (p == 1 && !run.ce[k]);
            }
            NS_TEST_EXPECT_MSG_LT(qmax - qmin, 2 * 4140u + 1, "depth stays fixed");
            NS_TEST_EXPECT_MSG_EQ(wrong, 0u, "deterministic parts of the curve");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(std::fabs(marks - expected),
                                        4 * std::sqrt(variance) + 1,
                                        "marks at depth " << qmin << " B: " << marks << " expected "
                                                          << expected);
            NS_TEST_EXPECT_MSG_EQ(run.markNs.size(), marks, "EcnMark trace count");
            if (prefill == 70)
            {
                NS_TEST_EXPECT_MSG_GT(marks, 100u, "middle of the curve marks");
            }
        }
    }
};

/**
 * \ingroup training-net-tests
 * Same seed and run: identical traces; another run number: different marks.
 */
class RoceSeedTestCase : public TestCase
{
  public:
    RoceSeedTestCase()
        : TestCase("same seed gives identical traces")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard guard;
        guard.SetSeed(3, 1);
        EcnRun a = RunFixedDepth(70, 1000, 5);
        EcnRun b = RunFixedDepth(70, 1000, 5);
        RngSeedManager::SetRun(2);
        EcnRun c = RunFixedDepth(70, 1000, 5);
        NS_TEST_ASSERT_MSG_GT(a.markNs.size(), 10u, "some marks");
        NS_TEST_EXPECT_MSG_EQ((a.markNs == b.markNs), true, "identical mark times");
        NS_TEST_EXPECT_MSG_EQ((a.ce == b.ce), true, "identical CE pattern");
        NS_TEST_EXPECT_MSG_EQ((a.q == b.q), true, "identical queue trace");
        NS_TEST_EXPECT_MSG_EQ((a.ce != c.ce), true, "another run number differs");
    }
};

namespace
{

/** Result of an incast run. */
struct IncastResult
{
    uint64_t received{0};                //!< packets at the receiver
    uint64_t switchDrops{0};             //!< RoceSwitch drops
    uint64_t mmuDrops{0};                //!< MMU drops
    uint64_t lossyReason{0};             //!< drops traced with "LossyThreshold"
    uint64_t headroomReason{0};          //!< drops traced with "HeadroomOverflow"
    uint64_t otherReason{0};             //!< drops with another reason
    uint64_t pausesSent{0};              //!< PAUSE state changes by the switch
    uint64_t resumesSent{0};             //!< RESUME by the switch
    uint64_t maxUsed{0};                 //!< MMU peak
    uint64_t maxTraced{0};               //!< peak seen on BufferOccupancy
    uint64_t bufferSize{0};              //!< MMU size
    uint64_t overflows{0};               //!< headroom overflows
    uint64_t lastRxNs{0};                //!< last arrival
    bool inOrder{true};                  //!< per-sender PSNs consecutive
    uint64_t freeAtStart{0};             //!< free shared buffer of the empty switch
    uint64_t minFreeAtPause{UINT64_MAX}; //!< smallest free buffer when a PAUSE was sent
    uint64_t maxPauseGap{0};     //!< largest |shared bytes - threshold| when a PAUSE was sent
    uint64_t thresholdErrors{0}; //!< PAUSEs where T != Alpha * (buffer - layout - sum shared)
    uint64_t badResumes{0};      //!< RESUMEs with shared + offset > T or headroom in use
    uint64_t maxPoolUsed{0};     //!< peak headroom pool use
    std::vector<uint64_t> firstPauseShared; //!< shared bytes of each port at its first PAUSE
    Ptr<RoceSwitchMmu> mmu;                 //!< the MMU during the run
    double alpha{0};                        //!< Alpha
};

/** drop sink */
void
IncastDrop(IncastResult* r, Ptr<const Packet>, uint32_t, uint8_t, const std::string& reason)
{
    if (reason == "LossyThreshold")
    {
        r->lossyReason++;
    }
    else if (reason == "HeadroomOverflow")
    {
        r->headroomReason++;
    }
    else
    {
        r->otherReason++;
    }
}

/**
 * PAUSE sink: the threshold against its closed form from independent sums (every port's
 * shared bytes, not the MMU's running total), and the gap between the port's shared bytes and
 * the threshold.
 */
void
IncastPause(IncastResult* r, uint32_t port, uint8_t priority, bool sent)
{
    if (!sent)
    {
        return;
    }
    r->pausesSent++;
    Ptr<RoceSwitchMmu> mmu = r->mmu;
    uint64_t sharedSum = 0;
    for (uint32_t p = 0; p < mmu->GetNPorts(); ++p)
    {
        for (uint8_t q = 0; q < RoceSwitchMmu::NUM_PRIORITIES; ++q)
        {
            sharedSum += mmu->GetSharedBytes(p, q);
        }
    }
    const uint64_t taken = mmu->GetTotalReserve() + mmu->GetTotalHeadroom() + sharedSum;
    const uint64_t freeBytes = taken >= r->bufferSize ? 0 : r->bufferSize - taken;
    const uint64_t t = static_cast<uint64_t>(r->alpha * double(freeBytes));
    r->thresholdErrors += t == mmu->GetThreshold() ? 0 : 1;
    r->minFreeAtPause = std::min(r->minFreeAtPause, freeBytes);
    const uint64_t shared = mmu->GetSharedBytes(port, priority);
    r->maxPauseGap = std::max(r->maxPauseGap, shared > t ? shared - t : t - shared);
    if (r->firstPauseShared[port] == UINT64_MAX)
    {
        r->firstPauseShared[port] = shared;
    }
}

/** resume sink */
void
IncastResume(IncastResult* r, uint32_t port, uint8_t priority, bool sent)
{
    if (!sent)
    {
        return;
    }
    r->resumesSent++;
    Ptr<RoceSwitchMmu> mmu = r->mmu;
    const uint64_t offset = 2 * (4096 + RoceSwitchMmu::PACKET_OVERHEAD);
    const bool ok = mmu->GetHeadroomBytes(port, priority) == 0 &&
                    (mmu->GetSharedBytes(port, priority) == 0 ||
                     mmu->GetSharedBytes(port, priority) + offset <= mmu->GetThreshold());
    r->badResumes += ok ? 0 : 1;
}

/** occupancy sink */
void
IncastOccupancy(IncastResult* r, uint64_t, uint64_t now)
{
    r->maxTraced = std::max(r->maxTraced, now);
    r->maxPoolUsed = std::max(r->maxPoolUsed, r->mmu->GetHeadroomPoolUsed());
}

/** An incast: `n` senders (hosts 1..n) to host 0 of a star of `hosts` hosts. */
struct IncastConfig
{
    uint32_t n{8};                            //!< senders
    uint32_t count{200};                      //!< packets per sender
    uint8_t prio{3};                          //!< priority
    uint64_t bufferSize{0};                   //!< switch buffer (0 = default)
    std::string rate{"25Gbps"};               //!< link rate
    uint32_t hosts{0};                        //!< hosts on the switch (0 = n + 1)
    std::map<std::string, uint64_t> mmuAttrs; //!< further MMU attributes
};

/** n senders -> 1 receiver, `count` packets each. */
IncastResult
RunIncast(const IncastConfig& cfg)
{
    IncastResult res;
    const uint32_t n = cfg.n;
    Star star(std::max(cfg.hosts, n + 1), cfg.rate, 0x08, cfg.bufferSize, cfg.mmuAttrs);
    res.mmu = star.fwd->GetMmu();
    DoubleValue alpha;
    res.mmu->GetAttribute("Alpha", alpha);
    res.alpha = alpha.Get();
    res.bufferSize = res.mmu->GetBufferSize();
    res.freeAtStart = res.mmu->GetFreeBuffer();
    res.firstPauseShared.assign(star.fwd->GetNPorts(), UINT64_MAX);
    star.fwd->TraceConnectWithoutContext("Drop", MakeBoundCallback(&IncastDrop, &res));
    star.fwd->TraceConnectWithoutContext("PfcPause", MakeBoundCallback(&IncastPause, &res));
    star.fwd->TraceConnectWithoutContext("PfcResume", MakeBoundCallback(&IncastResume, &res));
    res.mmu->TraceConnectWithoutContext("BufferOccupancy",
                                        MakeBoundCallback(&IncastOccupancy, &res));
    std::vector<Ptr<TestSource>> srcs;
    for (uint32_t i = 1; i <= n; ++i)
    {
        Ptr<TestSource> s = Create<TestSource>();
        s->srcNode = star.hosts[i]->GetId();
        s->dstNode = star.hosts[0]->GetId();
        s->sport = static_cast<uint16_t>(1000 + i);
        s->priority = cfg.prio;
        s->count = cfg.count;
        s->Install(star.hostDev[i]);
        srcs.push_back(s);
    }
    Simulator::Run();
    const auto& rx = star.sinks[0]->rx;
    res.received = rx.size();
    std::map<uint32_t, uint32_t> next;
    for (const RxRecord& r : rx)
    {
        res.inOrder = res.inOrder && r.psn == next[r.src];
        next[r.src] = r.psn + 1;
        res.lastRxNs = std::max<uint64_t>(res.lastRxNs, r.timeNs);
    }
    Ptr<RoceSwitchMmu> mmu = res.mmu;
    res.switchDrops = star.fwd->GetDrops();
    res.mmuDrops = mmu->GetDrops();
    res.maxUsed = mmu->GetMaxBufferUsed();
    res.overflows = mmu->GetHeadroomOverflows();
    NS_ASSERT(mmu->GetBufferUsed() == 0);
    NS_ASSERT(mmu->GetHeadroomPoolUsed() == 0);
    res.mmu = nullptr;
    Simulator::Destroy();
    return res;
}

/** The old signature: 8-to-1 style incast at 25 Gb/s. */
IncastResult
RunIncast(uint32_t n, uint32_t count, uint8_t prio, uint64_t bufferSize)
{
    IncastConfig cfg;
    cfg.n = n;
    cfg.count = count;
    cfg.prio = prio;
    cfg.bufferSize = bufferSize;
    return RunIncast(cfg);
}

} // namespace

/**
 * \ingroup training-net-tests
 * Lossless incast into a small buffer: no drop, PAUSE, buffer bound, line rate kept.
 */
class RoceLosslessIncastTestCase : public TestCase
{
  public:
    RoceLosslessIncastTestCase()
        : TestCase("lossless incast: zero drops, PAUSE sent, buffer bounded")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        const uint32_t count = 200;
        // reserves 9 ports * 8 * 4166 B (a quarter of the buffer) + headrooms 9 * 20942 B
        IncastResult r = RunIncast(n, count, 3, 1200000);
        NS_TEST_EXPECT_MSG_EQ(r.received, uint64_t(n) * count, "every packet delivered");
        NS_TEST_EXPECT_MSG_EQ(r.switchDrops, 0u, "no drop on a lossless priority");
        NS_TEST_EXPECT_MSG_EQ(r.mmuDrops, 0u, "no MMU drop");
        NS_TEST_EXPECT_MSG_EQ(r.overflows, 0u, "headroom was enough");
        NS_TEST_EXPECT_MSG_GT(r.pausesSent, 0u, "PAUSE generated");
        NS_TEST_EXPECT_MSG_EQ(r.resumesSent, r.pausesSent, "every PAUSE was released");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.maxUsed, r.bufferSize, "buffer never exceeds its size");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.maxTraced, r.bufferSize, "traced occupancy bounded");
        // beyond the reserves and headrooms of the 8 ingress ports: the shared pool was used
        NS_TEST_EXPECT_MSG_GT(r.maxTraced, n * (4166u + 20942u), "the shared buffer was used");
        NS_TEST_EXPECT_MSG_EQ(r.inOrder, true, "per-flow order kept");
        // the bottleneck stays busy: n*count frames of 1337 ns (25 Gb/s) + a few us
        const double ideal = double(n) * count * 4178 * 8 / 25e9 * 1e9;
        NS_TEST_EXPECT_MSG_LT(double(r.lastRxNs), ideal * 1.01 + 5000, "line rate kept");
    }
};

/**
 * \ingroup training-net-tests
 * A headroom smaller than the bytes in flight after a PAUSE overflows: the packets that do not
 * fit are dropped with reason HeadroomOverflow, counted and traced. The computed headroom
 * (2 frames + PFC response + 2 x rate x delay) does not overflow in the same incast.
 */
class RoceHeadroomOverflowTestCase : public TestCase
{
  public:
    RoceHeadroomOverflowTestCase()
        : TestCase("undersized headroom overflows and drops, the computed one does not")
    {
    }

  private:
    void DoRun() override
    {
        IncastConfig cfg;
        cfg.n = 8;
        cfg.count = 200;
        cfg.bufferSize = 1200000;
        // one frame: after a PAUSE, 2 x 25 Gb/s x 1 us = 6250 B are still on the wire
        cfg.mmuAttrs["Headroom"] = 4200;
        IncastResult small = RunIncast(cfg);
        const uint64_t sent = uint64_t(cfg.n) * cfg.count;
        NS_TEST_EXPECT_MSG_GT(small.overflows, 0u, "the undersized headroom overflows");
        NS_TEST_EXPECT_MSG_EQ(small.headroomReason, small.overflows, "traced as HeadroomOverflow");
        NS_TEST_EXPECT_MSG_EQ(small.switchDrops, small.overflows, "counted by the switch");
        NS_TEST_EXPECT_MSG_EQ(small.mmuDrops, small.overflows, "counted by the MMU");
        NS_TEST_EXPECT_MSG_EQ(small.received + small.switchDrops, sent, "dropped, not admitted");
        NS_TEST_EXPECT_MSG_EQ(small.lossyReason + small.otherReason, 0u, "no other reason");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(small.maxUsed, small.bufferSize, "buffer bound");

        cfg.mmuAttrs.clear();
        IncastResult computed = RunIncast(cfg);
        NS_TEST_EXPECT_MSG_EQ(computed.overflows, 0u, "the computed headroom holds");
        NS_TEST_EXPECT_MSG_EQ(computed.switchDrops, 0u, "no drop");
        NS_TEST_EXPECT_MSG_EQ(computed.received, sent, "every packet delivered");
        NS_TEST_EXPECT_MSG_GT(computed.pausesSent, 0u, "PAUSE generated");
    }
};

/**
 * \ingroup training-net-tests
 * Incast into a buffer whose shared pool is in use (free > 0): at every PAUSE the threshold is
 * Alpha x free buffer (free recomputed from every port's shared bytes) and the paused port's
 * shared bytes are within one frame of it; the first PAUSE of each port comes at the
 * symmetric fixed point s = Alpha F0 / (1 + N Alpha) (F0 = buffer - reserves - headrooms);
 * every RESUME has an empty headroom and shared + ResumeOffset <= T; nothing is dropped.
 */
class RoceSharedPoolTestCase : public TestCase
{
  public:
    RoceSharedPoolTestCase()
        : TestCase("shared pool in use: PAUSE at Alpha x free, RESUME below it, no drop")
    {
    }

  private:
    void DoRun() override
    {
        IncastConfig cfg;
        cfg.n = 8;
        cfg.count = 400;
        cfg.bufferSize = 2000000;
        IncastResult r = RunIncast(cfg);
        const uint64_t frame = 4096 + RoceSwitchMmu::PACKET_OVERHEAD;
        const uint64_t sent = uint64_t(cfg.n) * cfg.count;
        NS_TEST_ASSERT_MSG_GT(r.freeAtStart, 0u, "the layout leaves a shared pool");
        NS_TEST_EXPECT_MSG_GT(r.pausesSent, 0u, "PAUSE generated");
        NS_TEST_EXPECT_MSG_EQ(r.resumesSent, r.pausesSent, "every PAUSE released");
        NS_TEST_EXPECT_MSG_GT(r.minFreeAtPause, 0u, "free buffer > 0 at every PAUSE");
        NS_TEST_EXPECT_MSG_EQ(r.thresholdErrors, 0u, "T = Alpha x free at every PAUSE");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.maxPauseGap, frame, "PAUSE within one frame of T");
        NS_TEST_EXPECT_MSG_EQ(r.badResumes, 0u, "RESUME only below T - ResumeOffset");
        const double fixedPoint = r.alpha * double(r.freeAtStart) / (1 + cfg.n * r.alpha);
        uint32_t paused = 0;
        for (uint32_t port = 1; port <= cfg.n; ++port)
        {
            if (r.firstPauseShared[port] == UINT64_MAX)
            {
                continue;
            }
            ++paused;
            NS_TEST_EXPECT_MSG_LT_OR_EQ(std::fabs(double(r.firstPauseShared[port]) - fixedPoint),
                                        double(frame),
                                        "first PAUSE of port " << port << " at the fixed point "
                                                               << fixedPoint);
        }
        NS_TEST_EXPECT_MSG_EQ(paused, cfg.n, "every sender's port paused");
        NS_TEST_EXPECT_MSG_EQ(r.switchDrops, 0u, "no drop");
        NS_TEST_EXPECT_MSG_EQ(r.overflows, 0u, "no headroom overflow");
        NS_TEST_EXPECT_MSG_EQ(r.received, sent, "every packet delivered");
        NS_TEST_EXPECT_MSG_EQ(r.inOrder, true, "per-flow order kept");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.maxUsed, r.bufferSize, "buffer bound");
    }
};

/**
 * \ingroup training-net-tests
 * A 2048-port switch with a 32 MiB buffer (the former fixed default; the default now scales
 * with the ports): dedicated headroom leaves no shared pool (the free buffer is 0), pooled
 * headroom does; a 16-to-1 incast then pauses at the threshold with
 * no drop. A pool smaller than the bytes in flight of the paused ports overflows.
 */
class RoceManyPortsPoolTestCase : public TestCase
{
  public:
    RoceManyPortsPoolTestCase()
        : TestCase("2048-port switch: pooled headroom keeps a shared pool in a 32 MiB buffer")
    {
    }

  private:
    void DoRun() override
    {
        {
            Star dedicated(2048, "100Gbps", 0x08, 32 * 1024 * 1024);
            Ptr<RoceSwitchMmu> mmu = dedicated.fwd->GetMmu();
            NS_TEST_EXPECT_MSG_EQ(mmu->GetFreeBuffer(), 0u, "dedicated headroom takes it all");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(mmu->GetTotalReserve(),
                                        mmu->GetBufferSize() / 4,
                                        "reserves capped at a quarter of the buffer");
            Simulator::Destroy();
        }
        IncastConfig cfg;
        cfg.n = 16;
        cfg.count = 400;
        cfg.rate = "100Gbps";
        cfg.hosts = 2048;
        cfg.mmuAttrs["HeadroomPoolSize"] = 4 * 1024 * 1024;
        cfg.mmuAttrs["BufferSize"] = 32 * 1024 * 1024;
        IncastResult r = RunIncast(cfg);
        const uint64_t sent = uint64_t(cfg.n) * cfg.count;
        NS_TEST_EXPECT_MSG_EQ(r.bufferSize, 32u * 1024 * 1024, "BufferSize");
        NS_TEST_ASSERT_MSG_GT(r.freeAtStart, r.bufferSize / 2, "a shared pool exists");
        NS_TEST_EXPECT_MSG_GT(r.pausesSent, 0u, "PAUSE generated");
        NS_TEST_EXPECT_MSG_GT(r.minFreeAtPause, 0u, "free buffer > 0 at every PAUSE");
        NS_TEST_EXPECT_MSG_EQ(r.thresholdErrors, 0u, "T = Alpha x free at every PAUSE");
        NS_TEST_EXPECT_MSG_EQ(r.badResumes, 0u, "RESUME below the threshold");
        NS_TEST_EXPECT_MSG_GT(r.maxPoolUsed, 0u, "the headroom pool was used");
        NS_TEST_EXPECT_MSG_EQ(r.switchDrops, 0u, "no drop");
        NS_TEST_EXPECT_MSG_EQ(r.received, sent, "every packet delivered");

        // 16 paused ports hold ~16 x 25 KB in flight: a 64 KB pool cannot
        cfg.mmuAttrs["HeadroomPoolSize"] = 64 * 1024;
        IncastResult tiny = RunIncast(cfg);
        NS_TEST_EXPECT_MSG_GT(tiny.overflows, 0u, "a too small pool overflows");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(tiny.maxPoolUsed, 64u * 1024, "pool use bounded");
        NS_TEST_EXPECT_MSG_EQ(tiny.received + tiny.switchDrops, sent, "conservation");
    }
};

/**
 * \ingroup training-net-tests
 * Lossy incast: drops counted with their reason, no PAUSE.
 */
class RoceLossyIncastTestCase : public TestCase
{
  public:
    RoceLossyIncastTestCase()
        : TestCase("lossy incast: drops counted with reason")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        const uint32_t count = 200;
        IncastResult r = RunIncast(n, count, 1, 1200000);
        NS_TEST_EXPECT_MSG_GT(r.switchDrops, 0u, "drops on a lossy priority");
        NS_TEST_EXPECT_MSG_EQ(r.switchDrops, r.mmuDrops, "switch and MMU agree");
        NS_TEST_EXPECT_MSG_EQ(r.lossyReason, r.switchDrops, "reason LossyThreshold traced");
        NS_TEST_EXPECT_MSG_EQ(r.otherReason, 0u, "no other reason");
        NS_TEST_EXPECT_MSG_EQ(r.received + r.switchDrops, uint64_t(n) * count, "conservation");
        NS_TEST_EXPECT_MSG_EQ(r.pausesSent, 0u, "no PAUSE for a lossy class");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.maxUsed, r.bufferSize, "buffer bound");
    }
};

/**
 * \ingroup training-net-tests
 * A 2048-port switch forwards to the right ports.
 */
class RoceManyPortsTestCase : public TestCase
{
  public:
    RoceManyPortsTestCase()
        : TestCase("2048-port switch forwards to the right ports")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 2048;
        // pooled headroom: with 2048 dedicated headrooms there is no shared pool and a single
        // packet beyond the (capped) reserve would PAUSE its sender
        Star star(n, "100Gbps", 0x08, 0, {{"HeadroomPoolSize", 4 * 1024 * 1024}});
        NS_TEST_ASSERT_MSG_EQ(star.fwd->GetNPorts(), n, "ports");
        Ptr<RoceSwitch> h0 = star.hosts[0]->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> hl = star.hosts[n - 1]->GetObject<RoceSwitch>();
        for (uint32_t j = 0; j < n; ++j)
        {
            h0->SetRoute(star.hosts[j]->GetId(), {0});
            hl->SetRoute(star.hosts[j]->GetId(), {0});
        }
        for (uint32_t j = 1; j < n; ++j)
        {
            h0->SendLocal(BuildPacket(star.hosts[0]->GetId(),
                                      star.hosts[j]->GetId(),
                                      2000,
                                      3,
                                      RoceBthHeader::RC_WRITE_ONLY,
                                      j,
                                      j,
                                      1024));
        }
        hl->SendLocal(BuildPacket(star.hosts[n - 1]->GetId(),
                                  star.hosts[1]->GetId(),
                                  2001,
                                  3,
                                  RoceBthHeader::RC_WRITE_ONLY,
                                  77,
                                  5,
                                  1024));
        Simulator::Run();
        uint32_t ok = 0;
        for (uint32_t j = 1; j < n; ++j)
        {
            const auto& rx = star.sinks[j]->rx;
            const uint32_t expect = (j == 1) ? 2 : 1;
            bool good = rx.size() == expect && rx[0].qp == j && rx[0].psn == j &&
                        rx[0].src == star.hosts[0]->GetId();
            good = good && star.fwd->GetPort(j)->GetTxPackets() == expect;
            ok += good ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(ok, n - 1, "each host got its packet through its port");
        NS_TEST_EXPECT_MSG_EQ(star.sinks[0]->rx.size(), 0u, "nothing back to the sender");
        NS_TEST_EXPECT_MSG_EQ(star.fwd->GetForwardedPackets(), uint64_t(n), "forwarded");
        const auto& rx1 = star.sinks[1]->rx;
        NS_TEST_EXPECT_MSG_EQ(
            (rx1.size() == 2 && rx1[1].src == star.hosts[n - 1]->GetId() && rx1[1].qp == 77),
            true,
            "last port to port 1");
        NS_TEST_EXPECT_MSG_EQ(star.fwd->GetDrops(), 0u, "no drops");
        Simulator::Destroy();
    }
};

namespace
{

/** MacRx sink on next hop i: count flows and check the predicted port. */
struct EcmpCount
{
    std::vector<uint32_t> perPort;     //!< packets per next hop
    std::vector<uint16_t> portOfSport; //!< observed next hop of each flow (index sport-3000)
};

/** sink */
void
EcmpRx(EcmpCount* c, uint32_t hop, Ptr<const Packet> p)
{
    RoceIpUdpHeader ip;
    p->PeekHeader(ip);
    c->perPort[hop]++;
    c->portOfSport[ip.GetSourcePort() - 3000] = static_cast<uint16_t>(hop + 1);
}

/**
 * Switch: port 0 from host A, ports 1..k to next hops; destination node D is behind all of
 * them. A sends one packet per flow (UDP sport 3000 + f).
 */
EcmpCount
RunEcmp(uint32_t seed, uint32_t k, uint32_t flows, Ptr<RoceSwitch>* keep = nullptr)
{
    EcmpCount c;
    c.perPort.assign(k, 0);
    c.portOfSport.assign(flows, 0);
    Ptr<Node> sw = CreateObject<Node>();
    Ptr<Node> a = CreateObject<Node>();
    RoceLinkHelper link;
    link.SetSwitchAttribute("EcmpSeed", UintegerValue(seed));
    link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    link.Install(sw, a);
    std::vector<uint32_t> hops;
    for (uint32_t i = 0; i < k; ++i)
    {
        Ptr<Node> b = CreateObject<Node>();
        NetDeviceContainer d = link.Install(sw, b);
        d.Get(1)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&EcmpRx, &c, i));
        hops.push_back(i + 1);
    }
    const uint32_t dstNode = 60000;
    Ptr<RoceSwitch> fwd = sw->GetObject<RoceSwitch>();
    fwd->SetRoute(dstNode, hops);
    Ptr<RoceSwitch> as = a->GetObject<RoceSwitch>();
    as->SetRoute(dstNode, {0});
    for (uint32_t f = 0; f < flows; ++f)
    {
        as->SendLocal(BuildPacket(a->GetId(),
                                  dstNode,
                                  static_cast<uint16_t>(3000 + f),
                                  1,
                                  RoceBthHeader::RC_WRITE_ONLY,
                                  1,
                                  f,
                                  64));
    }
    Simulator::Run();
    if (keep)
    {
        // prediction of the live switch for each flow
        std::vector<uint16_t> predicted(flows);
        for (uint32_t f = 0; f < flows; ++f)
        {
            predicted[f] =
                static_cast<uint16_t>(fwd->GetEgressPort(RoceAddress::FromNodeId(a->GetId()).Get(),
                                                         RoceAddress::FromNodeId(dstNode).Get(),
                                                         static_cast<uint16_t>(3000 + f),
                                                         RoceIpUdpHeader::ROCE_UDP_PORT));
        }
        c.perPort.push_back(predicted == c.portOfSport ? 1 : 0); // last entry: prediction ok
    }
    Simulator::Destroy();
    return c;
}

} // namespace

/**
 * \ingroup training-net-tests
 * ECMP spreads flows over the next hops, deterministically for a seed.
 */
class RoceEcmpTestCase : public TestCase
{
  public:
    RoceEcmpTestCase()
        : TestCase("ECMP spreads flows deterministically per seed")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t k = 8;
        const uint32_t flows = 800;
        Ptr<RoceSwitch> keep;
        EcmpCount a = RunEcmp(11, k, flows, &keep);
        EcmpCount b = RunEcmp(11, k, flows);
        EcmpCount c = RunEcmp(12, k, flows);
        NS_TEST_ASSERT_MSG_EQ(a.perPort.size(), k + 1, "size");
        NS_TEST_EXPECT_MSG_EQ(a.perPort[k], 1u, "forwarding follows GetEgressPort");
        uint32_t total = 0;
        for (uint32_t i = 0; i < k; ++i)
        {
            total += a.perPort[i];
            // binomial(800, 1/8): mean 100, sd 9.4
            NS_TEST_EXPECT_MSG_GT(a.perPort[i], 60u, "next hop " << i << " used");
            NS_TEST_EXPECT_MSG_LT(a.perPort[i], 140u, "next hop " << i << " not overloaded");
        }
        NS_TEST_EXPECT_MSG_EQ(total, flows, "every flow forwarded once");
        NS_TEST_EXPECT_MSG_EQ((a.portOfSport == b.portOfSport), true, "same seed, same paths");
        uint32_t differ = 0;
        for (uint32_t f = 0; f < flows; ++f)
        {
            differ += a.portOfSport[f] != c.portOfSport[f] ? 1 : 0;
        }
        // another seed re-draws: 7/8 of the flows move on average
        NS_TEST_EXPECT_MSG_GT(differ, flows / 2, "another seed gives other paths");
        // the flows of one destination stay on one path (hash excludes the PSN)
        NS_TEST_EXPECT_MSG_EQ((a.portOfSport[0] != 0), true, "flow 0 seen");
    }
};

/**
 * \ingroup training-net-tests
 * The forwarding rule of both levels (RoceForwarding::NextHop), in its order: a flow route
 * wins over everything, a single cable over the ECMP set, one next hop needs no hash, none is
 * no route; with several, the hash of the flow's fields picks, the same for the same fields,
 * spread over the set as the source port changes.
 */
class RoceForwardingRuleTestCase : public TestCase
{
  public:
    RoceForwardingRuleTestCase()
        : TestCase("forwarding rule: flow route, single cable, then ECMP hash")
    {
    }

  private:
    void DoRun() override
    {
        using R = RoceForwarding;
        const uint32_t hops[] = {5, 6, 7};
        const uint32_t src = 0x0b000001;
        const uint32_t dst = 0x0b000002;
        NS_TEST_EXPECT_MSG_EQ(R::NextHop(9, 4, hops, 3, 1, src, dst, 50000, 4791), 9u, "pinned");
        NS_TEST_EXPECT_MSG_EQ(R::NextHop(R::NONE, 4, hops, 3, 1, src, dst, 50000, 4791),
                              4u,
                              "single cable");
        NS_TEST_EXPECT_MSG_EQ(R::NextHop(R::NONE, R::NONE, hops, 1, 1, src, dst, 50000, 4791),
                              5u,
                              "one next hop");
        NS_TEST_EXPECT_MSG_EQ(R::NextHop(R::NONE, R::NONE, hops, 0, 1, src, dst, 50000, 4791),
                              R::NONE,
                              "no route");
        uint32_t seen[3] = {0, 0, 0};
        for (uint16_t sport = 49152; sport < 49152 + 300; ++sport)
        {
            const uint32_t h = R::NextHop(R::NONE, R::NONE, hops, 3, 1, src, dst, sport, 4791);
            NS_TEST_ASSERT_MSG_EQ(h, hops[R::EcmpHash(1, src, dst, sport, 4791) % 3], "the hash");
            NS_TEST_ASSERT_MSG_EQ(h,
                                  R::NextHop(R::NONE, R::NONE, hops, 3, 1, src, dst, sport, 4791),
                                  "deterministic");
            ++seen[h - 5];
        }
        for (uint32_t i = 0; i < 3; ++i)
        {
            // binomial(300, 1/3): mean 100, sd 8.2
            NS_TEST_EXPECT_MSG_GT(seen[i], 60u, "next hop " << hops[i] << " used");
        }
    }
};

/**
 * \ingroup training-net-tests
 * Compact routes of a RoceHelper fabric (fat-tree k=8, 128 hosts, 80 switches): hosts hold no
 * table; each switch stores each distinct next-hop set once (at most ports + 1 of them) and
 * 4 bytes per destination; every switch's set toward every host is the tn_routes ECMP set in
 * port order (so ECMP picks as before); a message crosses the 5-switch path.
 */
class RoceCompactRoutesTestCase : public TestCase
{
  public:
    RoceCompactRoutesTestCase()
        : TestCase("routes: no host table, one set index per destination, tn_routes sets")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t k = 8;
        tn_topology* topo = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_topology_fat_tree(k, nullptr, &topo, &err), TN_OK, "topology");
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(topo);
        tn_routes* routes = nullptr;
        NS_TEST_ASSERT_MSG_EQ(tn_routes_create(topo, nullptr, &routes, &err), TN_OK, "routes");
        const uint32_t hosts = tn_topology_npu_count(topo);
        uint32_t hostTables = 0;
        uint32_t mismatches = 0;
        uint32_t tooManySets = 0;
        uint64_t tableBytes = 0;
        std::vector<uint32_t> hops(k);
        for (uint32_t v = 0; v < f.nodes.GetN(); ++v)
        {
            Ptr<RoceSwitch> sw = f.nodes.Get(v)->GetObject<RoceSwitch>();
            if (tn_topology_node_kind(topo, v) == TN_NODE_NPU)
            {
                hostTables += sw->GetRouteTableBytes() > 0 ? 1 : 0;
                continue;
            }
            tooManySets += sw->GetNRouteSets() > sw->GetNPorts() + 1 ? 1 : 0;
            tableBytes += sw->GetRouteTableBytes();
            for (uint32_t r = 0; r < hosts; ++r)
            {
                const uint32_t d = tn_topology_npu_node(topo, r);
                const uint32_t c = tn_routes_next_hops(routes, v, d, hops.data(), hops.size());
                std::vector<uint32_t> want;
                for (uint32_t h = 0; h < c; ++h)
                {
                    want.push_back(tn_topology_link(topo, hops[h])->src_port);
                }
                mismatches += sw->GetRoute(d) == want ? 0 : 1;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(hostTables, 0u, "hosts hold no route table");
        NS_TEST_EXPECT_MSG_EQ(mismatches, 0u, "every set is tn_routes' set in port order");
        NS_TEST_EXPECT_MSG_EQ(tooManySets, 0u, "at most ports + 1 distinct sets per switch");
        // 4 bytes per destination node id (hosts are 0..127) + the sets: far below a vector
        // per destination (24 bytes + its heap block)
        const uint32_t switches = f.switches.GetN();
        NS_TEST_EXPECT_MSG_LT(tableBytes / switches, 4u * hosts + 4096, "route bytes per switch");
        Done done;
        const uint32_t last = tn_topology_npu_node(topo, hosts - 1);
        roce.GetNic(0)->PostWrite(last, 100000, 3, MakeCallback(&Done::Complete, &done));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(done.count, 1u, "message across the fat-tree");
        Simulator::Destroy();
        tn_routes_destroy(routes);
        tn_topology_destroy(topo);
    }

    /// counts completions
    struct Done
    {
        uint32_t count{0}; //!< completions

        /** completion sink */
        void Complete(const RdmaMessageRecord&)
        {
            ++count;
        }
    };
};

namespace
{
/** drop-reason sink */
void
RecordReason(std::vector<std::string>* reasons,
             Ptr<const Packet>,
             uint32_t,
             uint8_t,
             const std::string& reason)
{
    reasons->push_back(reason);
}
} // namespace

/**
 * \ingroup training-net-tests
 * Every switch hop decrements the IPv4 TTL (with a valid header checksum); a packet whose TTL
 * would reach 0 is dropped with TtlExpired; a host forwards nothing it receives for others.
 */
class RoceTtlTestCase : public TestCase
{
  public:
    RoceTtlTestCase()
        : TestCase("TTL decremented per switch hop, expired packets dropped")
    {
    }

  private:
    void DoRun() override
    {
        // A - S1 - S2 - B
        NodeContainer n;
        n.Create(4);
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        link.Install(n.Get(0), n.Get(1));
        link.Install(n.Get(1), n.Get(2));
        link.Install(n.Get(2), n.Get(3));
        const uint32_t a = n.Get(0)->GetId();
        const uint32_t b = n.Get(3)->GetId();
        Ptr<RoceSwitch> swA = n.Get(0)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> s1 = n.Get(1)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> s2 = n.Get(2)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> swB = n.Get(3)->GetObject<RoceSwitch>();
        swA->SetLocalAddress(RoceAddress::FromNodeId(a));
        swB->SetLocalAddress(RoceAddress::FromNodeId(b));
        s1->SetRoute(b, {1});
        s2->SetRoute(b, {1});
        s1->SetRoute(60000, {1});
        s2->SetRoute(60000, {1}); // B is a host: it must not send this back
        std::vector<uint8_t> ttls;
        std::vector<bool> checksums;
        swB->SetLocalReceiveCallback(MakeBoundCallback(
            +[](std::vector<uint8_t>* t, std::vector<bool>* c, Ptr<Packet> p, uint32_t) {
                RoceIpUdpHeader ip;
                p->PeekHeader(ip);
                t->push_back(ip.GetTtl());
                c->push_back(ip.IsChecksumOk());
            },
            &ttls,
            &checksums));
        std::vector<std::string> s2Drops;
        std::vector<std::string> bDrops;
        s2->TraceConnectWithoutContext("Drop", MakeBoundCallback(&RecordReason, &s2Drops));
        swB->TraceConnectWithoutContext("Drop", MakeBoundCallback(&RecordReason, &bDrops));
        // no route table on A: its single port is the default route
        for (uint8_t ttl : {64, 3, 2})
        {
            Ptr<Packet> p = BuildPacket(a, b, 1000, 3, RoceBthHeader::RC_WRITE_ONLY, 1, ttl, 64);
            RoceIpUdpHeader ip;
            p->RemoveHeader(ip);
            ip.SetTtl(ttl);
            p->AddHeader(ip);
            NS_TEST_EXPECT_MSG_EQ(swA->SendLocal(p), true, "A sends without a route table");
        }
        swA->SendLocal(BuildPacket(a, 60000, 1000, 3, RoceBthHeader::RC_WRITE_ONLY, 1, 9, 64));
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(ttls.size(), 2u, "TTL 64 and 3 arrive");
        NS_TEST_EXPECT_MSG_EQ(unsigned(ttls[0]), 62u, "64 - 2 hops");
        NS_TEST_EXPECT_MSG_EQ(unsigned(ttls[1]), 1u, "3 - 2 hops");
        NS_TEST_EXPECT_MSG_EQ((checksums[0] && checksums[1]), true, "checksum recomputed");
        NS_TEST_EXPECT_MSG_EQ((s2Drops == std::vector<std::string>{"TtlExpired"}),
                              true,
                              "TTL 2 expires at the second switch");
        NS_TEST_EXPECT_MSG_EQ((bDrops == std::vector<std::string>{"NoRoute"}),
                              true,
                              "the host drops a packet for another node");
    }
};

/**
 * \ingroup training-net-tests
 * Switch and MMU suite.
 */
class RoceSwitchTestSuite : public TestSuite
{
  public:
    RoceSwitchTestSuite()
        : TestSuite("training-net-roce-switch", UNIT)
    {
        AddTestCase(new RoceEcnCurveTestCase, TestCase::QUICK);
        AddTestCase(new RoceSeedTestCase, TestCase::QUICK);
        AddTestCase(new RoceLosslessIncastTestCase, TestCase::QUICK);
        AddTestCase(new RoceLossyIncastTestCase, TestCase::QUICK);
        AddTestCase(new RoceHeadroomOverflowTestCase, TestCase::QUICK);
        AddTestCase(new RoceSharedPoolTestCase, TestCase::QUICK);
        AddTestCase(new RoceManyPortsPoolTestCase, TestCase::QUICK);
        AddTestCase(new RoceManyPortsTestCase, TestCase::QUICK);
        AddTestCase(new RoceEcmpTestCase, TestCase::QUICK);
        AddTestCase(new RoceForwardingRuleTestCase, TestCase::QUICK);
        AddTestCase(new RoceCompactRoutesTestCase, TestCase::QUICK);
        AddTestCase(new RoceTtlTestCase, TestCase::QUICK);
    }
};

static RoceSwitchTestSuite g_roceSwitchTestSuite; //!< registers the suite
