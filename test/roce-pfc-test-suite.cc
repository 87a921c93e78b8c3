/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// IEEE 802.1Qbb PFC on RoceNetDevice: exact pause time (quanta * 512 / rate), XON, expiry of a
// pause whose RESUME is lost, refresh of a pause kept by the receiver, and the wire time.

#include "roce-test-util.h"

#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/node-container.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;
using namespace ns3::roce_test;

namespace
{

/**
 * Drops received PFC frames that carry quanta 0 (RESUME) for an enabled class.
 */
class DropResumeErrorModel : public ErrorModel
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceTestDropResumeErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<DropResumeErrorModel>();
        return tid;
    }

    uint32_t dropped{0}; //!< RESUME frames dropped

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        EthernetHeader eth(false);
        c->RemoveHeader(eth);
        if (eth.GetLengthType() != RocePfcHeader::ETHERTYPE)
        {
            return false;
        }
        RocePfcHeader pfc;
        c->RemoveHeader(pfc);
        for (uint8_t k = 0; k < 8; ++k)
        {
            if (pfc.IsEnabled(k) && pfc.GetQuanta(k) == 0)
            {
                ++dropped;
                return true;
            }
        }
        return false;
    }

    void DoReset() override
    {
    }
};

/** A two-node link A -> B with a line-rate source on A, priority 3, 100 Gb/s, 1 us. */
struct PfcFixture
{
    Ptr<Node> a;                     //!< sender
    Ptr<Node> b;                     //!< receiver
    Ptr<RoceNetDevice> devA;         //!< A's port
    Ptr<RoceNetDevice> devB;         //!< B's port
    Ptr<TestSource> src;             //!< source
    Ptr<TestSink> sink;              //!< sink
    std::vector<int64_t> txBegin;    //!< A's frame start times (ns)
    std::vector<int64_t> pauseRxNs;  //!< A's PAUSE receive times
    std::vector<int64_t> resumeRxNs; //!< A's RESUME receive times
    std::vector<std::string> drops;  //!< A's drop reasons

    /** \param pauseQuanta B's PauseQuanta attribute */
    explicit PfcFixture(uint16_t pauseQuanta = 0xffff)
    {
        NodeContainer nodes;
        nodes.Create(2);
        a = nodes.Get(0);
        b = nodes.Get(1);
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        link.SetDeviceAttribute("PauseQuanta", UintegerValue(pauseQuanta));
        link.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer d = link.Install(a, b);
        devA = DynamicCast<RoceNetDevice>(d.Get(0));
        devB = DynamicCast<RoceNetDevice>(d.Get(1));
        Ptr<RoceSwitch> swB = b->GetObject<RoceSwitch>();
        swB->SetLocalAddress(RoceAddress::FromNodeId(b->GetId()));
        sink = Create<TestSink>();
        swB->SetLocalReceiveCallback(MakeCallback(&TestSink::Receive, sink));
        src = Create<TestSource>();
        src->srcNode = a->GetId();
        src->dstNode = b->GetId();
        src->count = 1000000;
        src->Install(devA);
        devA->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PfcFixture::TxBegin, this));
        devA->TraceConnectWithoutContext("PfcRx", MakeCallback(&PfcFixture::PfcRx, this));
        devA->TraceConnectWithoutContext("Drop", MakeCallback(&PfcFixture::Drop, this));
    }

    /** \param p frame */
    void TxBegin(Ptr<const Packet> p)
    {
        txBegin.push_back(Simulator::Now().GetNanoSeconds());
    }

    /** PFC receive sink */
    void PfcRx(uint8_t priority, bool pause, uint16_t quanta)
    {
        (pause ? pauseRxNs : resumeRxNs).push_back(Simulator::Now().GetNanoSeconds());
    }

    /** drop sink */
    void Drop(Ptr<const Packet> p, const std::string& reason)
    {
        drops.push_back(reason);
    }

    /** \param t time \return first frame start strictly after t (-1 if none) */
    int64_t FirstTxAfter(int64_t t) const
    {
        for (int64_t x : txBegin)
        {
            if (x > t)
            {
                return x;
            }
        }
        return -1;
    }

    /** \param t0 \param t1 \return frame starts in (t0, t1) */
    uint32_t TxBetween(int64_t t0, int64_t t1) const
    {
        uint32_t n = 0;
        for (int64_t x : txBegin)
        {
            n += (x > t0 && x < t1) ? 1 : 0;
        }
        return n;
    }
};

} // namespace

/**
 * \ingroup training-net-tests
 * A PAUSE of q quanta stops the priority for exactly q*512/rate; wire time per frame.
 */
class RocePfcPauseTimeTestCase : public TestCase
{
  public:
    RocePfcPauseTimeTestCase()
        : TestCase("PAUSE lasts quanta x 512 bit times exactly")
    {
    }

  private:
    void DoRun() override
    {
        PfcFixture f;
        Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfcFrame, f.devB, 3, 1000);
        Simulator::Stop(MicroSeconds(40));
        Simulator::Run();
        // wire time: (4096 + 12 BTH + 4 ICRC + 28 IP/UDP + 14 Eth + 24) * 8 / 100G = 334.24 ns
        NS_TEST_ASSERT_MSG_GT(f.txBegin.size(), 10u, "traffic flowed");
        NS_TEST_EXPECT_MSG_EQ(f.txBegin[1] - f.txBegin[0], 334, "wire time of a 4096 B packet");
        NS_TEST_EXPECT_MSG_EQ(f.devA->GetWireTime(4140), NanoSeconds(334), "GetWireTime");
        NS_TEST_ASSERT_MSG_EQ(f.pauseRxNs.size(), 1u, "one PAUSE received");
        const int64_t tRx = f.pauseRxNs[0];
        // PFC frame: 60 B + 24 overhead = 84 B = 6.72 ns -> 7 ns on the wire, + 1 us
        NS_TEST_EXPECT_MSG_EQ(tRx, 10000 + 7 + 1000, "PAUSE arrival time");
        const int64_t pauseNs = 1000 * 512 / 100; // 1000 quanta at 100 Gb/s = 5120 ns
        NS_TEST_EXPECT_MSG_EQ(f.FirstTxAfter(tRx), tRx + pauseNs, "resumes after exactly 5.12 us");
        NS_TEST_EXPECT_MSG_EQ(f.devA->GetPausedTime(3), NanoSeconds(pauseNs), "paused time");
        NS_TEST_EXPECT_MSG_EQ(f.devA->IsPaused(3), false, "not paused at the end");
        // receiver: PSNs consecutive, nothing lost
        bool consecutive = true;
        for (std::size_t k = 0; k < f.sink->rx.size(); ++k)
        {
            consecutive = consecutive && f.sink->rx[k].psn == k;
        }
        NS_TEST_EXPECT_MSG_EQ(consecutive, true, "PSNs consecutive at the receiver");
        NS_TEST_EXPECT_MSG_GT(f.sink->rx.size(), 50u, "packets received");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * XON (quanta 0) resumes immediately.
 */
class RocePfcResumeTestCase : public TestCase
{
  public:
    RocePfcResumeTestCase()
        : TestCase("XON resumes at once")
    {
    }

  private:
    void DoRun() override
    {
        PfcFixture f;
        Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfcFrame, f.devB, 3, 0xffff);
        Simulator::Schedule(MicroSeconds(20), &RoceNetDevice::SendPfcFrame, f.devB, 3, 0);
        // while priority 3 is paused: a control-class packet (never paused) and a packet of
        // lossy priority 1 still go out
        Ptr<RoceSwitch> swA = f.a->GetObject<RoceSwitch>();
        swA->SetRoute(f.b->GetId(), {0});
        Ptr<Packet> ctl = BuildPacket(f.a->GetId(),
                                      f.b->GetId(),
                                      7,
                                      RoceIpUdpHeader::CONTROL_DSCP,
                                      RoceBthHeader::RC_ACK,
                                      0x55,
                                      1,
                                      4);
        Ptr<Packet> lossy = BuildPacket(f.a->GetId(),
                                        f.b->GetId(),
                                        8,
                                        1,
                                        RoceBthHeader::RC_WRITE_ONLY,
                                        0x66,
                                        1,
                                        1000);
        Simulator::Schedule(MicroSeconds(15), &RoceSwitch::SendLocal, swA, ctl);
        Simulator::Schedule(MicroSeconds(16), &RoceSwitch::SendLocal, swA, lossy);
        Simulator::Stop(MicroSeconds(40));
        Simulator::Run();
        int64_t ctlRx = -1;
        int64_t lossyRx = -1;
        for (const RxRecord& r : f.sink->rx)
        {
            ctlRx = r.qp == 0x55 ? r.timeNs : ctlRx;
            lossyRx = r.qp == 0x66 ? r.timeNs : lossyRx;
        }
        // control: 4 + 12 + 4 + 28 + 14 + 24 = 86 B = 6.88 ns -> 7 ns, + 1 us
        NS_TEST_EXPECT_MSG_EQ(ctlRx, 15000 + 7 + 1000, "control packet not paused");
        NS_TEST_EXPECT_MSG_GT(lossyRx, 16000, "lossy packet sent");
        NS_TEST_EXPECT_MSG_LT(lossyRx, 18000, "lossy packet not paused");
        NS_TEST_ASSERT_MSG_EQ(f.pauseRxNs.size(), 1u, "one PAUSE");
        NS_TEST_ASSERT_MSG_EQ(f.resumeRxNs.size(), 1u, "one RESUME");
        const int64_t tP = f.pauseRxNs[0];
        const int64_t tR = f.resumeRxNs[0];
        // the two 84-byte PFC frames take 6.72 ns each: 7 ns, then 6 ns with the 0.28 ns the
        // first one was rounded up (the device carries its rounding error to the next frame)
        NS_TEST_EXPECT_MSG_EQ(tR - tP, 10000 - 1, "RESUME 10 us after PAUSE");
        NS_TEST_EXPECT_MSG_EQ(f.TxBetween(tP + 334, tR), 2u, "only control and lossy while paused");
        NS_TEST_EXPECT_MSG_EQ(f.FirstTxAfter(18000), tR, "first data frame at the RESUME");
        NS_TEST_EXPECT_MSG_EQ(f.devA->IsPaused(3), false, "not paused");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * A lost RESUME never stalls: the pause expires after its time.
 */
class RocePfcExpiryTestCase : public TestCase
{
  public:
    RocePfcExpiryTestCase()
        : TestCase("pause expires when the RESUME is lost")
    {
    }

  private:
    void DoRun() override
    {
        PfcFixture f;
        Ptr<DropResumeErrorModel> em = CreateObject<DropResumeErrorModel>();
        f.devA->SetReceiveErrorModel(em);
        Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfcFrame, f.devB, 3, 2000);
        Simulator::Schedule(MicroSeconds(12), &RoceNetDevice::SendPfcFrame, f.devB, 3, 0);
        Simulator::Stop(MicroSeconds(40));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(em->dropped, 1u, "the RESUME was dropped");
        NS_TEST_EXPECT_MSG_EQ(f.resumeRxNs.size(), 0u, "no RESUME seen");
        NS_TEST_EXPECT_MSG_EQ((f.drops.size() == 1 && f.drops[0] == "ErrorModel"),
                              true,
                              "drop traced with its reason");
        NS_TEST_ASSERT_MSG_EQ(f.pauseRxNs.size(), 1u, "one PAUSE");
        const int64_t tP = f.pauseRxNs[0];
        NS_TEST_EXPECT_MSG_EQ(f.FirstTxAfter(tP), tP + 10240, "expiry after 2000 quanta");
        NS_TEST_EXPECT_MSG_GT(f.TxBetween(tP + 10240, 40000), 50u, "traffic continues");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * A receiver that stays congested refreshes its PAUSE at half the pause time.
 */
class RocePfcRefreshTestCase : public TestCase
{
  public:
    RocePfcRefreshTestCase()
        : TestCase("PAUSE refreshed while congested")
    {
    }

  private:
    void DoRun() override
    {
        PfcFixture f(1000); // B pauses with 1000 quanta = 5.12 us, refresh every 2.56 us
        Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SetPfcPauseState, f.devB, 3, true);
        Simulator::Schedule(MicroSeconds(40), &RoceNetDevice::SetPfcPauseState, f.devB, 3, false);
        Simulator::Stop(MicroSeconds(60));
        Simulator::Run();
        // PAUSE at 10 us, refreshes at 10 + k*2.56 us for k = 1..11 (< 40 us), RESUME at 40 us
        NS_TEST_EXPECT_MSG_EQ(f.pauseRxNs.size(), 12u, "1 PAUSE + 11 refreshes");
        NS_TEST_ASSERT_MSG_EQ(f.resumeRxNs.size(), 1u, "one RESUME");
        NS_TEST_ASSERT_MSG_GT(f.pauseRxNs.size(), 1u, "refreshes");
        // 2560 ns, less the 0.28 ns the first PFC frame (6.72 ns -> 7) was rounded up: the
        // device carries the rounding error to the next frame, which takes 6 ns
        NS_TEST_EXPECT_MSG_EQ(f.pauseRxNs[1] - f.pauseRxNs[0], 2560 - 1, "refresh period");
        const int64_t tP = f.pauseRxNs[0];
        const int64_t tR = f.resumeRxNs[0];
        NS_TEST_EXPECT_MSG_EQ(f.TxBetween(tP + 334, tR), 0u, "silent for 30 us (> 5.12 us)");
        NS_TEST_EXPECT_MSG_EQ(f.FirstTxAfter(tP + 334), tR, "resumes at the RESUME");
        NS_TEST_EXPECT_MSG_EQ(f.devB->IsPauseRequested(3), false, "B released the pause");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * PFC suite.
 */
class RocePfcTestSuite : public TestSuite
{
  public:
    RocePfcTestSuite()
        : TestSuite("training-net-roce-pfc", UNIT)
    {
        AddTestCase(new RocePfcPauseTimeTestCase, TestCase::QUICK);
        AddTestCase(new RocePfcResumeTestCase, TestCase::QUICK);
        AddTestCase(new RocePfcExpiryTestCase, TestCase::QUICK);
        AddTestCase(new RocePfcRefreshTestCase, TestCase::QUICK);
    }
};

static RocePfcTestSuite g_rocePfcTestSuite; //!< registers the suite
