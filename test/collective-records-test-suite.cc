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
        Topology t(spec);
        NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, what << ": " << t.error);
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
        std::string error;
        Ptr<Collective> c = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(c, nullptr, what << ": " << error);
        NS_TEST_ASSERT_MSG_NE(c->GetProgram(), nullptr, what << ": rank-local programs");
        tn_error err;
        NS_TEST_ASSERT_MSG_EQ(tn_program_min_window(c->GetProgram(), least, &err),
                              TN_OK,
                              what << ": " << err.message);
        SendsAndReceives log;
        c->TraceConnectWithoutContext("TransferIssued",
                                      MakeCallback(&SendsAndReceives::Issued, &log));
        c->TraceConnectWithoutContext("TransferReady",
                                      MakeCallback(&SendsAndReceives::Ready, &log));
        helper.Start(c);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(c->Check(), "", what);
        const uint64_t transfers = c->GetTransferCount();
        Simulator::Destroy();

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
                const std::string what =
                    "torus:4x4 ring2d " + mode + " window " + std::to_string(window);
                Topology t("torus:4x4");
                NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, what << ": " << t.error);
                RoceHelper roce;
                roce.SetMode(mode);
                roce.Install(t.topo);
                CollectiveHelper helper;
                helper.SetServiceAttribute("Program", StringValue("generated"));
                helper.SetServiceAttribute("ProgramWindow", UintegerValue(window));
                helper.Install(t.topo, roce);
                TracedNumbers numbers;
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
                tn_plan_request request;
                tn_plan_request_init(&request);
                request.algorithm = "ring2d";
                request.bytes = 1 << 20;
                std::string error;
                Ptr<Collective> c = helper.Create(request, {}, &error);
                NS_TEST_ASSERT_MSG_NE(c, nullptr, what << ": " << error);
                NS_TEST_ASSERT_MSG_NE(c->GetProgram(), nullptr, what << ": rank-local programs");
                helper.Start(c);
                Simulator::Run();
                NS_TEST_EXPECT_MSG_EQ(c->Check(), "", what);
                const uint64_t transfers = c->GetTransferCount();
                Simulator::Destroy();
                NS_TEST_EXPECT_MSG_GT(transfers, 0, what);
                NS_TEST_EXPECT_MSG_EQ(numbers.sent.size(), transfers, what << ": sends traced");
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
    }
};

/// the suite's instance, registered with ns-3's test runner
static CollectiveRecordsTestSuite g_collectiveRecordsTestSuite;

} // namespace ns3
