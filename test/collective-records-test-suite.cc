/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A receive's transfer record names its send: the transfer number, ranks, bytes and issue time
 * the sender posted, which the receiver of a generated collective looks up in the sender's
 * window (Collective::TakeSend), at flow and at packet level; and the executors' transfer
 * traces, which ask for a receive's number without a ready trace connected.
 */
#include "roce-test-util.h"

#include "ns3/collective-executor.h"
#include "ns3/collective-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-program-window.h"
#include "ns3/uinteger.h"

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

using roce_test::Topology;

/** The TransferIssued and TransferReady records of one run. */
struct SendsAndReceives
{
    std::map<uint32_t, CollectiveTransferRecord> issued; //!< by transfer number
    std::vector<CollectiveTransferRecord> ready;         //!< in the order they came
    uint32_t issuedTwice{0};                             //!< transfer numbers issued again

    void Issued(const CollectiveTransferRecord& r)
    {
        issuedTwice += !issued.emplace(r.transfer, r).second;
    }

    void Ready(const CollectiveTransferRecord& r)
    {
        ready.push_back(r);
    }
};

/** An all-reduce of rank-local programs (generated), run at one level and window. */
struct GeneratedRun
{
    std::string check; //!< the collective's Check() after the run, or why it did not run
    uint64_t transfers{0};

    /**
     * \param spec topology \param algorithm algorithm \param bytes size \param mode flow or
     * packet \param window ProgramWindow \param connect called with the fabric and the
     * collective before it starts (to connect traces) \return false when the collective could
     * not be created (check says why)
     */
    bool Run(const std::string& spec,
             const std::string& algorithm,
             uint64_t bytes,
             const std::string& mode,
             uint32_t window,
             const std::function<void(RoceHelper&, Ptr<Collective>)>& connect)
    {
        Topology t(spec);
        if (!t.topo)
        {
            check = t.error;
            return false;
        }
        RoceHelper roce;
        roce.SetMode(mode);
        roce.Install(t.topo);
        CollectiveHelper helper;
        helper.SetServiceAttribute("Program", StringValue("generated"));
        helper.SetServiceAttribute("ProgramWindow", UintegerValue(window));
        helper.Install(t.topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = algorithm.c_str();
        request.bytes = bytes;
        Ptr<Collective> c = helper.Create(request, {}, &check);
        if (!c || !c->GetProgram())
        {
            check = c ? "no rank-local programs" : check;
            return false;
        }
        connect(roce, c);
        helper.Start(c);
        Simulator::Run();
        check = c->Check();
        transfers = c->GetTransferCount();
        Simulator::Destroy();
        return true;
    }

    /** The ring2d case of the tests below: torus:4x4, 1 MiB. \param mode flow or packet
     * \param window ProgramWindow \param connect as above \return as above */
    bool RunRing2d(const std::string& mode,
                   uint32_t window,
                   const std::function<void(RoceHelper&, Ptr<Collective>)>& connect)
    {
        return Run("torus:4x4", "ring2d", 1 << 20, mode, window, connect);
    }
};
} // namespace

/**
 * \ingroup training-net-tests
 * Generated collectives (rank-local programs), at flow and at packet level, where the receiver
 * looks its send up in the sender's window: with whole programs and with windows of the
 * program's least width, every transfer is issued once and is ready once, and each ready
 * record has its send's number, ranks, nodes, bytes and issue time (the issued record's), a
 * first byte no earlier than the issue, and a ready time no earlier than its last byte.
 */
class CollectiveRecordsTestCase : public TestCase
{
  public:
    CollectiveRecordsTestCase()
        : TestCase("a receive's record names its send, at flow and at packet level")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string spec;
            std::string algorithm;
            uint64_t bytes;
        };

        const std::vector<Case> cases = {
            {"torus:4x4", "ring2d", 1 << 20},
            {"switch:8", "rhd", 1 << 20}, // its sends wait for the receiver's clear-to-send
            {"hier:ring4@200Gbps+switch4@100Gbps", "hierarchical", 1 << 20},
        };
        for (const Case& c : cases)
        {
            for (const std::string mode : {"flow", "packet"})
            {
                uint32_t least = 0;
                for (bool windowed : {false, true})
                {
                    std::ostringstream what;
                    what << c.spec << " " << c.algorithm << " " << mode
                         << (windowed ? " window " + std::to_string(least) : " whole");
                    Check(c.spec,
                          c.algorithm,
                          c.bytes,
                          mode,
                          windowed ? least : 0,
                          &least,
                          what.str());
                }
            }
        }
    }

    /// Run one all-reduce and check its records; `least` gets the program's least window.
    void Check(const std::string& spec,
               const std::string& algorithm,
               uint64_t bytes,
               const std::string& mode,
               uint32_t window,
               uint32_t* least,
               const std::string& what)
    {
        SendsAndReceives log;
        tn_error err;
        tn_status minWindow = TN_OK;
        GeneratedRun run;
        const bool ran =
            run.Run(spec, algorithm, bytes, mode, window, [&](RoceHelper&, Ptr<Collective> c) {
                minWindow = tn_program_min_window(c->GetProgram(), least, &err);
                c->TraceConnectWithoutContext("TransferIssued",
                                              MakeCallback(&SendsAndReceives::Issued, &log));
                c->TraceConnectWithoutContext("TransferReady",
                                              MakeCallback(&SendsAndReceives::Ready, &log));
            });
        NS_TEST_ASSERT_MSG_EQ(ran, true, what << ": " << run.check);
        NS_TEST_ASSERT_MSG_EQ(minWindow, TN_OK, what << ": " << err.message);
        NS_TEST_EXPECT_MSG_EQ(run.check, "", what);
        const uint64_t transfers = run.transfers;

        NS_TEST_EXPECT_MSG_GT(transfers, 0, what);
        NS_TEST_EXPECT_MSG_EQ(log.issuedTwice, 0, what << ": a transfer number issued twice");
        NS_TEST_EXPECT_MSG_EQ(log.issued.size(), transfers, what << ": every send issued");
        NS_TEST_EXPECT_MSG_EQ(log.ready.size(), transfers, what << ": every receive ready");
        std::set<uint32_t> readyOnce;
        for (const CollectiveTransferRecord& r : log.ready)
        {
            NS_TEST_EXPECT_MSG_EQ(readyOnce.insert(r.transfer).second,
                                  true,
                                  what << ": transfer " << r.transfer << " ready twice");
            auto send = log.issued.find(r.transfer);
            NS_TEST_ASSERT_MSG_EQ((send != log.issued.end()),
                                  true,
                                  what << ": ready transfer " << r.transfer << " never issued");
            const CollectiveTransferRecord& s = send->second;
            NS_TEST_EXPECT_MSG_EQ(r.src, s.src, what << ": transfer " << r.transfer);
            NS_TEST_EXPECT_MSG_EQ(r.dst, s.dst, what << ": transfer " << r.transfer);
            NS_TEST_EXPECT_MSG_EQ(r.srcNode, s.srcNode, what << ": transfer " << r.transfer);
            NS_TEST_EXPECT_MSG_EQ(r.dstNode, s.dstNode, what << ": transfer " << r.transfer);
            NS_TEST_EXPECT_MSG_EQ(r.bytes, s.bytes, what << ": transfer " << r.transfer);
            NS_TEST_EXPECT_MSG_EQ(r.issue, s.issue, what << ": transfer " << r.transfer);
            NS_TEST_EXPECT_MSG_EQ((r.firstByte >= r.issue),
                                  true,
                                  what << ": transfer " << r.transfer << " before its issue");
            NS_TEST_EXPECT_MSG_EQ((r.ready >= r.lastByte),
                                  true,
                                  what << ": transfer " << r.transfer << " ready early");
        }
    }
};

/** The transfer numbers of the executors' Sent and Received traces of one run. */
struct TracedNumbers
{
    std::multiset<uint32_t> sent;     //!< each send's number
    std::multiset<uint32_t> received; //!< each receive's number (its send's)

    static void Sent(TracedNumbers* t, Ptr<const Collective>, uint32_t transfer, uint64_t, bool)
    {
        t->sent.insert(transfer);
    }

    static void Received(TracedNumbers* t, Ptr<const Collective>, uint32_t transfer, uint64_t, bool)
    {
        t->received.insert(transfer);
    }
};

/**
 * \ingroup training-net-tests
 * A receive's transfer number when no TransferReady trace is connected: the receiver looks
 * its send up only when asked (Collective::GetOpTransfer, which the executor's Received trace
 * asks when the receive arrives). The executors' Sent and Received traces name the same
 * numbers, each once, none unknown; a lookup skipped, not done on demand, gives UINT32_MAX.
 */
class CollectiveReceivedNumberTestCase : public TestCase
{
  public:
    CollectiveReceivedNumberTestCase()
        : TestCase("a receive's transfer number without a ready trace, looked up when asked")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string mode : {"flow", "packet"})
        {
            for (uint32_t window : {0u, 8u})
            {
                TracedNumbers numbers;
                const std::string what =
                    "torus:4x4 ring2d " + mode + " window " + std::to_string(window);
                GeneratedRun run;
                const bool ran =
                    run.RunRing2d(mode, window, [&](RoceHelper& roce, Ptr<Collective>) {
                        for (uint32_t i = 0; i < roce.GetFabric().npus.GetN(); ++i)
                        {
                            Ptr<CollectiveExecutor> exec =
                                roce.GetFabric().npus.Get(i)->GetObject<CollectiveExecutor>();
                            exec->TraceConnectWithoutContext(
                                "Sent",
                                MakeBoundCallback(&TracedNumbers::Sent, &numbers));
                            exec->TraceConnectWithoutContext(
                                "Received",
                                MakeBoundCallback(&TracedNumbers::Received, &numbers));
                        }
                    });
                NS_TEST_ASSERT_MSG_EQ(ran, true, what << ": " << run.check);
                NS_TEST_EXPECT_MSG_EQ(run.check, "", what);
                NS_TEST_EXPECT_MSG_GT(run.transfers, 0, what);
                NS_TEST_EXPECT_MSG_EQ(numbers.sent.size(), run.transfers, what << ": sends traced");
                NS_TEST_EXPECT_MSG_EQ(numbers.received.count(UINT32_MAX),
                                      0,
                                      what << ": a receive's number unknown");
                NS_TEST_EXPECT_MSG_EQ((numbers.received == numbers.sent),
                                      true,
                                      what << ": every send received once, by its number");
            }
        }
    }
};

/**
 * \ingroup training-net-tests
 * A send's completion names its op by a cookie (Collective::GetOpCookie, the work request id)
 * that carries the op's stream: each completed send's cookie gives back an op of the sending
 * rank with the message's peer and match, equal to the cookie of that op, and with windows
 * the cookies of a rank name more than one stream. A cookie with another stream (a stale hint)
 * gives the same op: the stream is only where the look-up starts.
 */
class CollectiveOpCookieTestCase : public TestCase
{
  public:
    CollectiveOpCookieTestCase()
        : TestCase("a send's completion finds its op and stream from the cookie it carries")
    {
    }

  private:
    struct Seen
    {
        Ptr<Collective> c;
        uint64_t completions{0};
        uint64_t wrong{0};
        std::set<uint32_t> streams; //!< rank 0's
    };

    static void Complete(Seen* seen, const RdmaMessageRecord& record)
    {
        Collective* c = PeekPointer(seen->c);
        if (!c || !record.hasImmediate || record.remoteKey != c->GetId())
        {
            return; // a clear-to-send or another collective's
        }
        ++seen->completions;
        const uint32_t rank = c->GetRankOfNode(record.src);
        const uint32_t op = c->TakeOpCookie(rank, record.wrId);
        const tn_program_op o = c->GetOp(rank, op);
        const bool named =
            o.send && o.match == record.immediate && c->GetNode(o.peer) == record.dst;
        const bool same = c->GetOpCookie(rank, op) == record.wrId;
        // the same op through a stale stream (stream 0): found by a search
        const uint32_t stale = c->TakeOpCookie(rank, static_cast<uint64_t>(op));
        const bool staleSame = stale == op && c->GetOp(rank, stale).match == o.match;
        seen->wrong += !(named && same && staleSame);
        if (rank == 0)
        {
            seen->streams.insert(static_cast<uint32_t>(record.wrId >> 32));
        }
    }

    void DoRun() override
    {
        for (const std::string mode : {"flow", "packet"})
        {
            for (uint32_t window : {0u, 8u})
            {
                Seen seen;
                const std::string what =
                    "torus:4x4 ring2d " + mode + " window " + std::to_string(window);
                GeneratedRun run;
                const bool ran =
                    run.RunRing2d(mode, window, [&](RoceHelper& roce, Ptr<Collective> c) {
                        seen.c = c;
                        for (uint32_t i = 0; i < roce.GetFabric().npus.GetN(); ++i)
                        {
                            roce.GetTransport(i)->TraceConnectWithoutContext(
                                "MessageComplete",
                                MakeBoundCallback(&CollectiveOpCookieTestCase::Complete, &seen));
                        }
                    });
                seen.c = nullptr;
                NS_TEST_ASSERT_MSG_EQ(ran, true, what << ": " << run.check);
                NS_TEST_EXPECT_MSG_EQ(run.check, "", what);
                NS_TEST_EXPECT_MSG_EQ(seen.completions, run.transfers, what << ": sends completed");
                NS_TEST_EXPECT_MSG_EQ(seen.wrong, 0, what << ": completions named another op");
                if (window > 0)
                {
                    // a window per stream: whole programs are one stream a rank
                    NS_TEST_EXPECT_MSG_GT(seen.streams.size(), 1, what << ": rank 0's streams");
                }
            }
        }
    }
};

/**
 * \ingroup training-net-tests
 * The records of generated collectives.
 */
class CollectiveRecordsTestSuite : public TestSuite
{
  public:
    CollectiveRecordsTestSuite()
        : TestSuite("training-net-collective-records", UNIT)
    {
        AddTestCase(new CollectiveRecordsTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveReceivedNumberTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveOpCookieTestCase, TestCase::QUICK);
    }
};

/// the suite's instance, registered with ns-3's test runner
static CollectiveRecordsTestSuite g_collectiveRecordsTestSuite;

} // namespace ns3
