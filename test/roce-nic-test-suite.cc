/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RDMA NIC tests: goodput against the closed form, QP reuse and ordering, random loss,
 * retransmission timeout, determinism.
 */
#include "roce-nic-test-util.h"

#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

namespace ns3
{

using namespace roce_test;

namespace
{

const uint64_t RATE = 100000000000ULL; // 100 Gb/s
const uint64_t LATENCY_NS = 1000;      // 1 us per link

/// Exact wire time of `bytes` at RATE, rounded to ns like the device.
double
WireSeconds(uint64_t bytes)
{
    return static_cast<double>(bytes) * 8.0 / static_cast<double>(RATE);
}

/// Posts a write on priority 3 when its event runs (ns-3.35 schedules no lambdas).
void
PostWriteLater(Ptr<RdmaNic> nic, uint32_t dst, uint64_t bytes, Completions* done)
{
    nic->PostWrite(dst, bytes, 3, MakeCallback(&Completions::Done, done));
}

/// Posts a write on priority 3 with a work request id.
void
PostTagged(Ptr<RdmaNic> nic, uint32_t dst, uint64_t bytes, uint64_t wrId, Completions* done)
{
    RdmaWriteRequest w;
    w.dst = dst;
    w.bytes = bytes;
    w.priority = 3;
    w.wrId = wrId;
    nic->Post(w, MakeCallback(&Completions::Done, done));
}

/// A work request id that no counter of the NIC would give by chance.
const uint64_t WR_ID = 0x5eed0000beefULL;

} // namespace

/**
 * \ingroup training-net-tests
 * One flow across 1 or 3 hops reaches the line rate minus header overhead
 * (goodput = rate * MTU / (MTU + 82)), and its FCT equals the store-and-forward closed form.
 */
class RoceNicGoodputTestCase : public TestCase
{
  public:
    RoceNicGoodputTestCase(uint32_t hops, uint32_t mtu, std::string cc)
        : TestCase("goodput " + std::to_string(hops) + " hop(s), MTU " + std::to_string(mtu) +
                   ", cc " + cc),
          m_hops(hops),
          m_mtu(mtu),
          m_cc(cc)
    {
    }

  private:
    void DoRun() override
    {
        tn_topology* topo = MakeChain(m_hops, RATE, LATENCY_NS);
        RoceHelper helper;
        helper.SetNicAttribute("Mtu", UintegerValue(m_mtu));
        helper.SetNicAttribute("CongestionControl", StringValue(m_cc));
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RdmaNic> tx = helper.GetNic(0);
        Ptr<RdmaNic> rx = helper.GetNic(1);
        Completions sent;
        Completions received;
        rx->TraceConnectWithoutContext("MessageReceived",
                                       MakeCallback(&Completions::Done, &received));
        const uint64_t packets = 1024;
        const uint64_t bytes = packets * m_mtu;
        Simulator::Schedule(MicroSeconds(10), &PostTagged, tx, 1, bytes, WR_ID, &sent);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 1, "message not completed");
        NS_TEST_ASSERT_MSG_EQ(received.records.size(), 1, "message not received");
        NS_TEST_EXPECT_MSG_EQ(sent.records[0].wrId, WR_ID, "the sender gets its wrId back");
        NS_TEST_EXPECT_MSG_EQ(received.records[0].wrId, 0, "the responder never sees it");
        const RdmaMessageRecord& r = received.records[0];
        NS_TEST_ASSERT_MSG_EQ(r.bytes, bytes, "received bytes");
        // receiver: packets 2..n arrive back to back at the bottleneck rate
        double goodput = static_cast<double>(bytes - m_mtu) * 8.0 / (r.end - r.start).GetSeconds();
        double expected = static_cast<double>(RATE) * m_mtu / (m_mtu + RdmaNic::DATA_WIRE_OVERHEAD);
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput / expected, 1.0, 0.01, "goodput vs closed form");
        NS_TEST_ASSERT_MSG_GT(goodput,
                              (m_mtu >= 4096 ? 0.97 : 0.9) * RATE,
                              "goodput far below line rate");

        // sender FCT: all packets at the line rate, first packet store-and-forward through the
        // other hops, propagation both ways, one ACK serialisation per hop back
        const RdmaMessageRecord& s = sent.records[0];
        double allWire =
            WireSeconds(bytes + packets * RdmaNic::DATA_WIRE_OVERHEAD + RdmaNic::RETH_BYTES);
        double firstWire = WireSeconds(m_mtu + RdmaNic::DATA_WIRE_OVERHEAD + RdmaNic::RETH_BYTES);
        double closed = allWire + (m_hops - 1) * firstWire + 2.0 * m_hops * LATENCY_NS * 1e-9 +
                        m_hops * WireSeconds(86);
        double fct = (s.end - s.start).GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(fct / closed, 1.0, 0.01, "FCT vs closed form");
        NS_TEST_ASSERT_MSG_EQ(tx->GetRetransmittedBytes(), 0, "no retransmission expected");
        NS_TEST_ASSERT_MSG_EQ(rx->GetCnpsSent(), 0, "no congestion expected");
        NS_TEST_ASSERT_MSG_EQ(tx->GetNQueuePairs(), 1, "one QP");
        Simulator::Destroy();
    }

    uint32_t m_hops;
    uint32_t m_mtu;
    std::string m_cc;
};

/**
 * \ingroup training-net-tests
 * One QP per (peer, priority) reused by all messages; messages complete in order with their
 * exact sizes (0, 1, MTU+1, ... bytes).
 */
class RoceNicQpReuseTestCase : public TestCase
{
  public:
    RoceNicQpReuseTestCase()
        : TestCase("QP reuse, in-order completion, odd sizes")
    {
    }

  private:
    void DoRun() override
    {
        tn_topology* topo = MakeStar(3, RATE, LATENCY_NS);
        RoceHelper helper;
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RdmaNic> tx = helper.GetNic(0);
        Completions sent;
        Completions received;
        helper.GetNic(1)->TraceConnectWithoutContext("MessageReceived",
                                                     MakeCallback(&Completions::Done, &received));
        std::vector<uint64_t> sizes = {100000, 0, 1, 4097, 4096, 3 * 4096 - 1, 1000000};
        std::vector<uint64_t> ids;
        for (uint64_t s : sizes)
        {
            ids.push_back(tx->PostWrite(1, s, 3, MakeCallback(&Completions::Done, &sent)));
        }
        // another priority and another peer: two more QPs
        tx->PostWrite(1, 5000, 1, MakeCallback(&Completions::Done, &sent));
        tx->PostWrite(2, 5000, 3, MakeCallback(&Completions::Done, &sent));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(tx->GetNQueuePairs(), 3, "one QP per (peer, priority)");
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), sizes.size() + 2, "all messages complete");
        // messages of the (1, 3) QP complete in posting order
        std::vector<RdmaMessageRecord> q;
        for (const auto& r : sent.records)
        {
            if (r.dst == 1 && r.priority == 3)
            {
                q.push_back(r);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(q.size(), sizes.size(), "messages on QP (1,3)");
        for (size_t i = 0; i < q.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(q[i].id, ids[i], "completion order");
            NS_TEST_ASSERT_MSG_EQ(q[i].bytes, sizes[i], "size");
            NS_TEST_ASSERT_MSG_EQ(q[i].qpn, q[0].qpn, "same QP");
            if (i > 0)
            {
                NS_TEST_ASSERT_MSG_GT_OR_EQ(q[i].end, q[i - 1].end, "in-order completion");
            }
        }
        // the receiver saw the same messages with the same sizes, in order
        std::vector<RdmaMessageRecord> rq;
        for (const auto& r : received.records)
        {
            if (r.priority == 3)
            {
                rq.push_back(r);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(rq.size(), sizes.size(), "received messages");
        for (size_t i = 0; i < rq.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(rq[i].id, ids[i], "receiver message id");
            NS_TEST_ASSERT_MSG_EQ(rq[i].bytes, sizes[i], "receiver size");
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The NIC's queue-pair table: 2 peers x 2 priorities x 8 lanes = 32 queue pairs on the sender
 * (the table grows from 16 slots to 64 on the way) and 32 on each receiver's side for the
 * sender. Every (peer, priority, lane) finds its own queue pair by its fields and by its QPN,
 * a combination never used finds none, and every message completes (each received packet
 * found its queue pair in the receiver's table).
 */
class RoceNicQpTableTestCase : public TestCase
{
  public:
    RoceNicQpTableTestCase()
        : TestCase("queue pairs found by (peer, priority, lane) and by QPN, table grown")
    {
    }

  private:
    void DoRun() override
    {
        tn_topology* topo = MakeStar(3, RATE, LATENCY_NS);
        RoceHelper helper;
        helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RdmaNic> tx = helper.GetNic(0);
        Completions sent;
        const std::vector<uint8_t> priorities = {1, 3};
        const uint32_t lanes = 8;
        uint32_t posted = 0;
        for (uint32_t peer = 1; peer <= 2; ++peer)
        {
            for (uint8_t prio : priorities)
            {
                for (uint32_t lane = 0; lane < lanes; ++lane)
                {
                    RdmaWriteRequest w;
                    w.dst = peer;
                    w.bytes = 5000 + 100 * lane;
                    w.priority = prio;
                    w.lane = lane;
                    tx->Post(w, MakeCallback(&Completions::Done, &sent));
                    ++posted;
                }
            }
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(tx->GetNQueuePairs(), posted, "one QP per (peer, priority, lane)");
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), posted, "every message completes");
        std::set<uint32_t> qpns;
        for (uint32_t peer = 1; peer <= 2; ++peer)
        {
            NS_TEST_ASSERT_MSG_EQ(helper.GetNic(peer)->GetNQueuePairs(),
                                  priorities.size() * lanes,
                                  "the receiver's QPs for the sender");
            for (uint8_t prio : priorities)
            {
                for (uint32_t lane = 0; lane < lanes; ++lane)
                {
                    Ptr<RdmaQueuePair> qp = tx->GetQueuePair(peer, prio, lane);
                    NS_TEST_ASSERT_MSG_EQ(bool(qp), true, "found by its fields");
                    NS_TEST_ASSERT_MSG_EQ(qp->GetPeer(), peer, "its peer");
                    NS_TEST_ASSERT_MSG_EQ(unsigned(qp->GetPriority()), unsigned(prio), "priority");
                    NS_TEST_ASSERT_MSG_EQ(qp->GetLane(), lane, "its lane");
                    NS_TEST_ASSERT_MSG_EQ(qp->GetQpn(),
                                          RdmaQueuePair::MakeQpn(peer, prio, lane),
                                          "its QPN");
                    NS_TEST_ASSERT_MSG_EQ(PeekPointer(tx->GetQueuePairByQpn(qp->GetQpn())),
                                          PeekPointer(qp),
                                          "by QPN");
                    qpns.insert(qp->GetQpn());
                    Ptr<RdmaQueuePair> back = helper.GetNic(peer)->GetQueuePair(0, prio, lane);
                    NS_TEST_ASSERT_MSG_EQ(bool(back), true, "the receiver's QP for the sender");
                    NS_TEST_ASSERT_MSG_EQ(back->GetPeer(), 0u, "the receiver's peer");
                    NS_TEST_ASSERT_MSG_EQ(back->GetLane(), lane, "the receiver's lane");
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(qpns.size(), posted, "32 distinct queue pairs");
        NS_TEST_ASSERT_MSG_EQ(bool(tx->GetQueuePair(1, 2, 0)), false, "priority 2 never used");
        NS_TEST_ASSERT_MSG_EQ(bool(tx->GetQueuePair(1, 3, lanes)), false, "lane 8 never used");
        NS_TEST_ASSERT_MSG_EQ(bool(tx->GetQueuePairByQpn(RdmaQueuePair::MakeQpn(0, 3))),
                              false,
                              "no QP to itself");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * Random packet loss (RateErrorModel, 1e-3 per packet on every link, from the topology's
 * error rate): every message completes with all its bytes, retransmissions are counted.
 */
class RoceNicRandomLossTestCase : public TestCase
{
  public:
    RoceNicRandomLossTestCase()
        : TestCase("random loss 1e-3: go-back-N delivers everything")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard guard;
        guard.SetSeed(7, 1);
        tn_topology* topo = MakeStar(5, RATE, LATENCY_NS);
        tn_error err;
        for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
        {
            NS_TEST_ASSERT_MSG_EQ(tn_topology_set_link_error_rate(topo, l, 1e-3, &err),
                                  TN_OK,
                                  "error rate");
        }
        RoceHelper helper;
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        helper.AssignStreams(100);
        Completions sent;
        Completions received;
        helper.GetNic(4)->TraceConnectWithoutContext("MessageReceived",
                                                     MakeCallback(&Completions::Done, &received));
        const uint64_t bytes = 2000000;
        for (uint32_t s = 0; s < 4; ++s)
        {
            for (int k = 0; k < 2; ++k)
            {
                helper.GetNic(s)->PostWrite(4, bytes, 3, MakeCallback(&Completions::Done, &sent));
            }
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 8, "every message completes");
        NS_TEST_ASSERT_MSG_EQ(received.records.size(), 8, "every message received");
        uint64_t retx = 0;
        uint64_t recvBytes = 0;
        for (uint32_t s = 0; s < 4; ++s)
        {
            retx += helper.GetNic(s)->GetRetransmittedBytes();
        }
        for (const auto& r : received.records)
        {
            NS_TEST_ASSERT_MSG_EQ(r.bytes, bytes, "message size at the receiver");
            recvBytes += r.bytes;
        }
        NS_TEST_ASSERT_MSG_EQ(recvBytes, 8 * bytes, "all bytes delivered");
        NS_TEST_ASSERT_MSG_GT(retx, 0, "losses must cause retransmissions");
        uint64_t retxRecords = 0;
        for (const auto& r : sent.records)
        {
            retxRecords += r.retransmittedBytes;
        }
        NS_TEST_ASSERT_MSG_EQ(retxRecords, retx, "per-message retransmitted bytes add up");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * Drops selected RoCE packets on receive: data packets with given PSNs (once each) and every
 * ACK until a given time.
 */
class RoceSelectiveDropModel : public ErrorModel
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceSelectiveDropModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<RoceSelectiveDropModel>();
        return tid;
    }

    std::set<uint32_t> dataPsns; //!< data PSNs to drop once
    Time ackDropUntil;           //!< drop ACKs before this time
    uint32_t dataDrops{0};       //!< data packets dropped
    uint32_t ackDrops{0};        //!< ACKs dropped

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        EthernetHeader eth(false);
        c->RemoveHeader(eth);
        if (eth.GetLengthType() != 0x0800)
        {
            return false;
        }
        RoceIpUdpHeader ip;
        c->RemoveHeader(ip);
        RoceBthHeader bth;
        c->RemoveHeader(bth);
        if (bth.GetOpcode() == RoceBthHeader::RC_ACK)
        {
            if (Simulator::Now() < ackDropUntil)
            {
                ++ackDrops;
                return true;
            }
            return false;
        }
        if (bth.GetOpcode() <= RoceBthHeader::RC_WRITE_ONLY && dataPsns.count(bth.GetPsn()))
        {
            dataPsns.erase(bth.GetPsn());
            ++dataDrops;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }
};

NS_OBJECT_ENSURE_REGISTERED(RoceSelectiveDropModel);

/**
 * \ingroup training-net-tests
 * The tail packet and the ACKs are lost: no gap is visible to the receiver, so only the
 * retransmission timeout (RetransmitTimeout = 1 ms here) can finish the message; it goes back
 * to PSN 0 and resends the whole message (closed form: retransmitted bytes = message size).
 */
class RoceNicTimeoutTestCase : public TestCase
{
  public:
    RoceNicTimeoutTestCase()
        : TestCase("retransmission timeout recovers a lost tail and lost ACKs")
    {
    }

  private:
    void CountTimeout(uint32_t qpn, uint64_t psn)
    {
        ++m_timeouts;
        m_timeoutPsn = psn;
        m_timeoutAt = Simulator::Now();
    }

    void DoRun() override
    {
        tn_topology* topo = MakeChain(1, RATE, LATENCY_NS);
        RoceHelper helper;
        helper.SetNicAttribute("RetransmitTimeout", TimeValue(MilliSeconds(1)));
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RdmaNic> tx = helper.GetNic(0);
        Ptr<RdmaNic> rx = helper.GetNic(1);
        Ptr<RoceSelectiveDropModel> dataLoss = CreateObject<RoceSelectiveDropModel>();
        dataLoss->dataPsns.insert(9); // the tail of a 10-packet message
        rx->GetPort(0)->SetReceiveErrorModel(dataLoss);
        Ptr<RoceSelectiveDropModel> ackLoss = CreateObject<RoceSelectiveDropModel>();
        ackLoss->ackDropUntil = MicroSeconds(500);
        tx->GetPort(0)->SetReceiveErrorModel(ackLoss);
        tx->TraceConnectWithoutContext("Timeout",
                                       MakeCallback(&RoceNicTimeoutTestCase::CountTimeout, this));
        tx->TraceConnectWithoutContext(
            "Retransmit",
            MakeCallback(&RoceNicTimeoutTestCase::CountRetransmit, this));
        Completions sent;
        Completions received;
        rx->TraceConnectWithoutContext("MessageReceived",
                                       MakeCallback(&Completions::Done, &received));
        const uint64_t bytes = 10 * 4096;
        tx->PostWrite(1, bytes, 3, MakeCallback(&Completions::Done, &sent));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(dataLoss->dataDrops, 1, "tail dropped once");
        NS_TEST_ASSERT_MSG_GT(ackLoss->ackDrops, 0, "ACKs dropped");
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 1, "message completes through the timeout");
        NS_TEST_ASSERT_MSG_EQ(received.records.size(), 1, "received once");
        NS_TEST_ASSERT_MSG_EQ(received.records[0].bytes, bytes, "all bytes");
        NS_TEST_ASSERT_MSG_EQ(m_timeouts, 1, "exactly one timeout");
        NS_TEST_ASSERT_MSG_EQ(m_timeoutPsn, 0, "nothing acknowledged before the timeout");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(m_timeoutAt, MilliSeconds(1), "timeout after RTO");
        NS_TEST_ASSERT_MSG_LT(m_timeoutAt, MilliSeconds(1) + MicroSeconds(10), "timeout at RTO");
        Time fct = sent.records[0].end - sent.records[0].start;
        NS_TEST_ASSERT_MSG_GT(fct, MilliSeconds(1), "completion after the timeout");
        NS_TEST_ASSERT_MSG_LT(fct, MilliSeconds(1) + MicroSeconds(20), "completion soon after");
        // go back to PSN 0; the re-ACKs of the duplicates let the sender skip what the
        // receiver has, but the tail must be sent again
        NS_TEST_ASSERT_MSG_GT_OR_EQ(tx->GetRetransmittedBytes(), 4096, "tail resent");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(tx->GetRetransmittedBytes(), bytes, "at most everything");
        NS_TEST_ASSERT_MSG_EQ(tx->GetRetransmittedBytes(), 4096 * m_retransmits, "trace count");
        NS_TEST_ASSERT_MSG_EQ(m_firstRetransmitPsn, 0, "go-back-N restarts at PSN 0");
        NS_TEST_ASSERT_MSG_EQ(tx->GetTimeouts(), 1, "timeout counter");
        Simulator::Destroy();
    }

    void CountRetransmit(uint32_t qpn, uint64_t psn)
    {
        if (m_retransmits++ == 0)
        {
            m_firstRetransmitPsn = psn;
        }
    }

    uint32_t m_timeouts{0};
    uint32_t m_retransmits{0};
    uint64_t m_firstRetransmitPsn{99};
    uint64_t m_timeoutPsn{99};
    Time m_timeoutAt;
};

/**
 * \ingroup training-net-tests
 * A link that loses every data packet: the retransmission timer doubles at each timeout
 * (1, 2, 4, 8 ms apart) and after RetryLimit = 3 retries the QP fails its messages: the first
 * with RETRY_EXCEEDED, the one queued behind it and one posted later with FLUSHED. The
 * simulation then ends by itself, having resent a bounded number of packets.
 */
class RoceNicRetryLimitTestCase : public TestCase
{
  public:
    RoceNicRetryLimitTestCase()
        : TestCase("retry limit: exponential back-off, then the QP fails its messages")
    {
    }

  private:
    void CountTimeout(uint32_t qpn, uint64_t psn)
    {
        m_timeoutAt.push_back(Simulator::Now());
    }

    void DoRun() override
    {
        tn_topology* topo = MakeChain(1, RATE, LATENCY_NS);
        RoceHelper helper;
        helper.SetNicAttribute("RetransmitTimeout", TimeValue(MilliSeconds(1)));
        helper.SetNicAttribute("RetryLimit", UintegerValue(3));
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RdmaNic> tx = helper.GetNic(0);
        Ptr<RdmaNic> rx = helper.GetNic(1);
        Ptr<RateErrorModel> loseAll = CreateObject<RateErrorModel>();
        loseAll->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        loseAll->SetRate(1.0);
        rx->GetPort(0)->SetReceiveErrorModel(loseAll);
        tx->TraceConnectWithoutContext(
            "Timeout",
            MakeCallback(&RoceNicRetryLimitTestCase::CountTimeout, this));
        Completions sent;
        Completions failed;
        tx->TraceConnectWithoutContext("MessageFailed", MakeCallback(&Completions::Done, &failed));
        tx->PostWrite(1, 2 * 4096, 3, MakeCallback(&Completions::Done, &sent));
        tx->PostWrite(1, 4096, 3, MakeCallback(&Completions::Done, &sent));
        Simulator::Schedule(MilliSeconds(20), &PostWriteLater, tx, 1, 100, &sent);
        Simulator::Run(); // no Stop: a QP that retried forever would never return
        NS_TEST_ASSERT_MSG_EQ(m_timeoutAt.size(), 4, "RetryLimit retries, then the failure");
        for (size_t k = 1; k < m_timeoutAt.size(); k++)
        {
            const Time gap = m_timeoutAt[k] - m_timeoutAt[k - 1];
            const Time expected = MilliSeconds(1 << k);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(gap, expected, "back-off doubles (timeout " << k << ")");
            NS_TEST_ASSERT_MSG_LT(gap, expected + MicroSeconds(10), "back-off doubles");
        }
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 3, "every message completes, with an error");
        NS_TEST_ASSERT_MSG_EQ(failed.records.size(), 3, "MessageFailed for each");
        NS_TEST_ASSERT_MSG_EQ(tx->GetFailedMessages(), 3, "failed counter");
        NS_TEST_ASSERT_MSG_EQ(tx->GetCompletedMessages(), 0, "nothing succeeded");
        NS_TEST_ASSERT_MSG_EQ(+sent.records[0].status,
                              +RdmaMessageRecord::RETRY_EXCEEDED,
                              "the head message exceeded the retries");
        NS_TEST_ASSERT_MSG_EQ(+sent.records[1].status,
                              +RdmaMessageRecord::FLUSHED,
                              "the message behind it is flushed");
        NS_TEST_ASSERT_MSG_EQ(+sent.records[2].status,
                              +RdmaMessageRecord::FLUSHED,
                              "a message posted to the failed QP is flushed");
        NS_TEST_ASSERT_MSG_EQ(sent.records[0].end, m_timeoutAt.back(), "fails at the last timeout");
        NS_TEST_ASSERT_MSG_EQ(sent.records[2].end, MilliSeconds(20), "flushed when posted");
        // three go-back-N rewinds of at most the three packets outstanding
        NS_TEST_ASSERT_MSG_LT_OR_EQ(tx->GetRetransmittedBytes(), 3 * 3 * 4096, "bounded resends");
        NS_TEST_ASSERT_MSG_GT(tx->GetRetransmittedBytes(), 0, "it did retry");
        Simulator::Destroy();
    }

    std::vector<Time> m_timeoutAt;
};

/**
 * \ingroup training-net-tests
 * Two queue pairs of one NIC (priorities 3 and 4) lose their tails: their retransmission
 * timers share the NIC's one event, armed when each message started, yet each expires
 * RetransmitTimeout (1 ms) after its own last progress (hundreds of microseconds later), in
 * that order, and goes back to its own unacknowledged PSN.
 */
class RoceNicTimersTestCase : public TestCase
{
  public:
    RoceNicTimersTestCase()
        : TestCase("each queue pair's retransmission timer expires at its own deadline")
    {
    }

  private:
    void CountTimeout(uint32_t qpn, uint64_t psn)
    {
        m_timeouts.push_back({qpn, psn, Simulator::Now()});
    }

    void PostSecond()
    {
        m_tx->PostWrite(1, SECOND * 4096, 4, MakeCallback(&Completions::Done, &m_sent));
    }

    void DoRun() override
    {
        tn_topology* topo = MakeChain(1, RATE, LATENCY_NS);
        RoceHelper helper;
        helper.SetNicAttribute("RetransmitTimeout", TimeValue(MilliSeconds(1)));
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        m_tx = helper.GetNic(0);
        Ptr<RdmaNic> rx = helper.GetNic(1);
        Ptr<RoceSelectiveDropModel> loss = CreateObject<RoceSelectiveDropModel>();
        // each PSN once: the first message's tail, then the second's (the first sends its own
        // PSN SECOND - 1 before the second starts)
        loss->dataPsns = {FIRST - 1, SECOND - 1};
        rx->GetPort(0)->SetReceiveErrorModel(loss);
        m_tx->TraceConnectWithoutContext("Timeout",
                                         MakeCallback(&RoceNicTimersTestCase::CountTimeout, this));
        m_tx->PostWrite(1, FIRST * 4096, 3, MakeCallback(&Completions::Done, &m_sent));
        Simulator::Schedule(MicroSeconds(300), &RoceNicTimersTestCase::PostSecond, this);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(loss->dataDrops, 2, "both tails dropped");
        NS_TEST_ASSERT_MSG_EQ(m_sent.records.size(), 2, "both complete through their timeouts");
        NS_TEST_ASSERT_MSG_EQ(m_timeouts.size(), 2, "one timeout each");
        const Timeout& first = m_timeouts[0];
        const Timeout& second = m_timeouts[1];
        NS_TEST_ASSERT_MSG_NE(first.qpn, second.qpn, "two queue pairs");
        // each one's last progress is the ACK of its packets but the tail's: at least that
        // many packets' wire time after its start (the timers were armed at the starts)
        const Time packet = Seconds(WireSeconds(DataWire(4096)));
        const Time firstDeadline = packet * (FIRST - 1) + MilliSeconds(1);
        const Time secondDeadline = MicroSeconds(300) + packet * (SECOND - 1) + MilliSeconds(1);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(first.at, firstDeadline, "first: RTO after its progress");
        NS_TEST_ASSERT_MSG_LT(first.at, firstDeadline + MicroSeconds(10), "first: at RTO");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(second.at, secondDeadline, "second: after its own progress");
        NS_TEST_ASSERT_MSG_LT(second.at, secondDeadline + MicroSeconds(10), "second: at RTO");
        NS_TEST_ASSERT_MSG_GT(first.psn, 0, "first: back to its unacknowledged PSN");
        NS_TEST_ASSERT_MSG_LT(first.psn, FIRST, "first: not past its tail");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(second.psn, FIRST, "second: back to its own PSN");
        NS_TEST_ASSERT_MSG_LT(second.psn, SECOND, "second: not past its tail");
        NS_TEST_EXPECT_MSG_EQ(Simulator::Now(),
                              std::max(m_sent.records[0].end, m_sent.records[1].end),
                              "no timer outlives the messages");
        Simulator::Destroy();
        m_tx = nullptr;
    }

    /** a Timeout trace call */
    struct Timeout
    {
        uint32_t qpn; //!< queue pair
        uint64_t psn; //!< its oldest unacknowledged PSN
        Time at;      //!< when
    };

    static const uint32_t FIRST = 600;  //!< packets of the first message (about 200 us)
    static const uint32_t SECOND = 700; //!< of the second, started at 300 us
    Ptr<RdmaNic> m_tx;                  //!< the sender
    Completions m_sent;                 //!< its completions
    std::vector<Timeout> m_timeouts;    //!< in order
};

/**
 * \ingroup training-net-tests
 * The simulation ends with the last acknowledgement: a queue pair whose messages are all
 * acknowledged leaves no retransmission timer in the scheduler (it used to keep the
 * simulation running for RetransmitTimeout, 4 ms, after the work was done).
 */
class RoceNicNoTimerLeftTestCase : public TestCase
{
  public:
    RoceNicNoTimerLeftTestCase()
        : TestCase("no retransmission timer outlives the last message")
    {
    }

  private:
    void DoRun() override
    {
        tn_topology* topo = MakeChain(2, RATE, LATENCY_NS);
        RoceHelper helper;
        helper.Install(topo);
        tn_topology_destroy(topo);
        Completions sent;
        helper.GetNic(0)->PostWrite(1, 100000, 3, MakeCallback(&Completions::Done, &sent));
        Simulator::Schedule(MicroSeconds(50), &PostWriteLater, helper.GetNic(0), 1, 5000, &sent);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 2, "both complete");
        NS_TEST_EXPECT_MSG_EQ(Simulator::Now(), sent.records[1].end, "nothing runs after it");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * Same seed twice: identical completion times and rate changes (FNV hash); another seed
 * (different random losses) gives a different hash.
 */
class RoceNicDeterminismTestCase : public TestCase
{
  public:
    RoceNicDeterminismTestCase()
        : TestCase("same seed, same trace")
    {
    }

  private:
    void Mix(uint64_t v)
    {
        for (int i = 0; i < 8; ++i)
        {
            m_hash ^= (v >> (8 * i)) & 0xff;
            m_hash *= 1099511628211ULL;
        }
    }

    void OnComplete(const RdmaMessageRecord& r)
    {
        Mix(r.id);
        Mix(r.src);
        Mix(static_cast<uint64_t>(r.end.GetTimeStep()));
        ++m_completions;
    }

    void OnRate(uint32_t qpn, double rate)
    {
        Mix(static_cast<uint64_t>(Simulator::Now().GetTimeStep()));
        Mix(qpn);
        Mix(static_cast<uint64_t>(rate));
        ++m_rateChanges;
    }

    uint64_t RunOnce(uint32_t seed)
    {
        m_hash = 1469598103934665603ULL;
        m_completions = 0;
        m_rateChanges = 0;
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(1);
        tn_topology* topo = MakeStar(5, RATE, LATENCY_NS);
        tn_error err;
        for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
        {
            tn_topology_set_link_error_rate(topo, l, 1e-3, &err);
        }
        RoceHelper helper;
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        helper.AssignStreams(0);
        for (uint32_t s = 0; s < 4; ++s)
        {
            Ptr<RdmaNic> nic = helper.GetNic(s);
            nic->TraceConnectWithoutContext(
                "MessageComplete",
                MakeCallback(&RoceNicDeterminismTestCase::OnComplete, this));
            nic->TraceConnectWithoutContext(
                "RateChange",
                MakeCallback(&RoceNicDeterminismTestCase::OnRate, this));
            nic->PostWrite(4, 3000000, 3);
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        Simulator::Destroy();
        return m_hash;
    }

    void DoRun() override
    {
        DefaultsGuard guard; // RunOnce sets the seed
        uint64_t a = RunOnce(1);
        uint64_t ca = m_completions;
        uint64_t ra = m_rateChanges;
        uint64_t b = RunOnce(1);
        NS_TEST_ASSERT_MSG_EQ(ca, 4, "all complete");
        NS_TEST_ASSERT_MSG_GT(ra, 0, "the incast must trigger DCQCN");
        NS_TEST_ASSERT_MSG_EQ(a, b, "same seed, different trace");
        NS_TEST_ASSERT_MSG_EQ(m_rateChanges, ra, "same number of rate changes");
        uint64_t c = RunOnce(2);
        NS_TEST_ASSERT_MSG_NE(a, c, "another seed should change the random losses");
    }

    uint64_t m_hash{0};
    uint64_t m_completions{0};
    uint64_t m_rateChanges{0};
};

/**
 * \ingroup training-net-tests
 * Direct topology (ring of 6 NPUs, two ports per NIC, NPUs relay): all-to-all messages
 * complete with their sizes and both ports of a NIC carry traffic.
 */
class RoceNicRingTestCase : public TestCase
{
  public:
    RoceNicRingTestCase()
        : TestCase("ring of 6 NPUs: multi-port NICs, NPU transit")
    {
    }

  private:
    void DoRun() override
    {
        tn_topology* topo = nullptr;
        tn_error err;
        tn_link_params lp{RATE, LATENCY_NS};
        NS_TEST_ASSERT_MSG_EQ(tn_topology_ring(6, &lp, &topo, &err), TN_OK, "ring");
        RoceHelper helper;
        RoceFabricNodes f = helper.Install(topo);
        tn_topology_destroy(topo);
        Completions sent;
        Completions received;
        const uint64_t bytes = 300000;
        for (uint32_t s = 0; s < 6; ++s)
        {
            NS_TEST_ASSERT_MSG_EQ(helper.GetNic(s)->GetNPorts(), 2, "two ports per NPU");
            helper.GetNic(s)->TraceConnectWithoutContext(
                "MessageReceived",
                MakeCallback(&Completions::Done, &received));
            for (uint32_t d = 0; d < 6; ++d)
            {
                if (d != s)
                {
                    helper.GetNic(s)->PostWrite(d,
                                                bytes,
                                                3,
                                                MakeCallback(&Completions::Done, &sent));
                }
            }
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sent.records.size(), 30, "all messages complete");
        NS_TEST_ASSERT_MSG_EQ(received.records.size(), 30, "all messages received");
        for (const auto& r : received.records)
        {
            NS_TEST_ASSERT_MSG_EQ(r.bytes, bytes, "size");
        }
        Ptr<RdmaNic> nic = helper.GetNic(0);
        Ptr<RdmaQueuePair> left = nic->GetQueuePair(5, 3);
        Ptr<RdmaQueuePair> right = nic->GetQueuePair(1, 3);
        NS_TEST_ASSERT_MSG_EQ((left && right), true, "QPs exist");
        // ring:6 cables 0-1 (port 0 of node 0) ... 5-0 (port 1 of node 0)
        NS_TEST_ASSERT_MSG_GT(nic->GetPort(0)->GetTxPackets(), 0, "port 0 used");
        NS_TEST_ASSERT_MSG_GT(nic->GetPort(1)->GetTxPackets(), 0, "port 1 used");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * RoceHelper::EnablePcapAll writes one pcap per device with full Ethernet frames: the data
 * frames of a 3-packet message are there with the RoCE sizes (14 + 28 + 12 [+16] + payload + 4).
 */
class RoceNicPcapTestCase : public TestCase
{
  public:
    RoceNicPcapTestCase()
        : TestCase("pcap through RoceHelper")
    {
    }

  private:
    void DoRun() override
    {
        std::string file;
        {
            // the pcap files are flushed when the devices holding them are destroyed
            tn_topology* topo = MakeChain(1, RATE, LATENCY_NS);
            RoceHelper helper;
            RoceFabricNodes f = helper.Install(topo);
            tn_topology_destroy(topo);
            std::string prefix = CreateTempDirFilename("roce-nic-pcap");
            helper.EnablePcapAll(prefix);
            helper.GetNic(0)->PostWrite(1, 2 * 4096 + 100, 3);
            Simulator::Run();
            file = prefix + "-" + std::to_string(f.nodes.Get(0)->GetId()) + "-" +
                   std::to_string(f.devices.Get(0)->GetIfIndex()) + ".pcap";
            Simulator::Destroy();
        }
        std::ifstream in(file, std::ios::binary);
        NS_TEST_ASSERT_MSG_EQ(in.good(), true, "pcap file " << file);
        std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
        NS_TEST_ASSERT_MSG_GT(bytes.size(), 24u, "pcap global header");
        // walk the records: 16-byte record headers, original length at offset 12
        std::vector<uint32_t> lengths;
        size_t pos = 24;
        while (pos + 16 <= bytes.size())
        {
            uint32_t incl = bytes[pos + 8] | bytes[pos + 9] << 8 | bytes[pos + 10] << 16 |
                            uint32_t(bytes[pos + 11]) << 24;
            uint32_t orig = bytes[pos + 12] | bytes[pos + 13] << 8 | bytes[pos + 14] << 16 |
                            uint32_t(bytes[pos + 15]) << 24;
            lengths.push_back(orig);
            pos += 16 + incl;
        }
        std::vector<uint32_t> expected = {14 + 28 + 12 + 16 + 4096 + 4,
                                          14 + 28 + 12 + 4096 + 4,
                                          14 + 28 + 12 + 100 + 4};
        // the sender's device sees its 3 data frames (and receives ACK frames)
        uint32_t found = 0;
        for (uint32_t len : lengths)
        {
            for (uint32_t e : expected)
            {
                found += len == e ? 1 : 0;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(found, 3, "the three data frames with their RoCE sizes");
    }
};

/**
 * \ingroup training-net-tests
 * RDMA NIC test suite.
 */
class RoceNicTestSuite : public TestSuite
{
  public:
    RoceNicTestSuite()
        : TestSuite("training-net-roce-nic", UNIT)
    {
        AddTestCase(new RoceNicGoodputTestCase(1, 4096, "dcqcn"), TestCase::QUICK);
        AddTestCase(new RoceNicGoodputTestCase(3, 4096, "dcqcn"), TestCase::QUICK);
        AddTestCase(new RoceNicGoodputTestCase(3, 1024, "none"), TestCase::QUICK);
        AddTestCase(new RoceNicQpReuseTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicQpTableTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicRandomLossTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicTimeoutTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicRetryLimitTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicTimersTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicNoTimerLeftTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicDeterminismTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicPcapTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicRingTestCase, TestCase::QUICK);
    }
};

static RoceNicTestSuite g_roceNicTestSuite; //!< static instance

} // namespace ns3
