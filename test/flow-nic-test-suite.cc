/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowNic's send queue: messages queued behind a flow keep their fields and their own
 * completion callbacks (a queued message names its callback by a slot shared by the messages
 * of one callback object).
 */
#include "roce-test-util.h"

#include "ns3/rdma-transport.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/tn-topology.h"

#include <string>
#include <vector>

namespace ns3
{

namespace
{

using roce_test::Topology;

/// What one callback object saw: the work request ids and message ids of its completions.
struct Completions
{
    void Done(const RdmaMessageRecord& r)
    {
        wrIds.push_back(r.wrId);
        ids.push_back(r.id);
        ok = ok && r.status == RdmaMessageRecord::SUCCESS && r.bytes == 1000 + r.wrId;
    }

    std::vector<uint64_t> wrIds;
    std::vector<uint64_t> ids;
    bool ok{true}; //!< every record had its own size
};

/**
 * \ingroup training-net-tests
 * Five messages on one queue pair, posted at once (four wait behind the first flow): callbacks
 * a, a, none, b, a; each callback object hears exactly its own messages, in order, with their
 * sizes and ids; a callback slot freed once its messages left is reused by a later post.
 */
class FlowNicQueuedCallbacksTestCase : public TestCase
{
  public:
    FlowNicQueuedCallbacksTestCase()
        : TestCase("queued messages keep their own fields and completion callbacks")
    {
    }

  private:
    void DoRun() override
    {
        Topology t("switch:2,rate=100Gbps,latency=1us");
        NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, t.error);
        RoceHelper roce;
        roce.SetMode(RoceHelper::FLOW);
        roce.Install(t.topo);
        Ptr<RdmaTransport> nic = roce.GetTransport(0);
        Completions a;
        Completions b;
        const RdmaTransport::CompletionCallback toA = MakeCallback(&Completions::Done, &a);
        const RdmaTransport::CompletionCallback toB = MakeCallback(&Completions::Done, &b);
        std::vector<uint64_t> posted;
        auto post = [&](uint64_t wrId, const RdmaTransport::CompletionCallback& done) {
            RdmaWriteRequest w;
            w.dst = tn_topology_npu_node(t.topo, 1);
            w.bytes = 1000 + wrId;
            w.wrId = wrId;
            posted.push_back(nic->Post(w, done));
        };
        post(1, toA);
        post(2, toA);
        post(3, RdmaTransport::CompletionCallback());
        post(4, toB);
        post(5, toA);
        Simulator::Run();
        // b's slot was freed when message 4 left its queue: a post now takes a slot again
        post(6, toB);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(nic->GetCompletedMessages(), 6u, "all completed");
        NS_TEST_ASSERT_MSG_EQ(a.wrIds.size(), 3u, "a heard its three");
        NS_TEST_ASSERT_MSG_EQ(b.wrIds.size(), 2u, "b heard its two");
        NS_TEST_EXPECT_MSG_EQ(a.wrIds[0], 1u, "a first");
        NS_TEST_EXPECT_MSG_EQ(a.wrIds[1], 2u, "a second");
        NS_TEST_EXPECT_MSG_EQ(a.wrIds[2], 5u, "a third");
        NS_TEST_EXPECT_MSG_EQ(b.wrIds[0], 4u, "b first");
        NS_TEST_EXPECT_MSG_EQ(b.wrIds[1], 6u, "b after its slot was freed");
        NS_TEST_EXPECT_MSG_EQ(a.ids[2], posted[4], "the id Post returned");
        NS_TEST_EXPECT_MSG_EQ(b.ids[0], posted[3], "the id Post returned");
        NS_TEST_EXPECT_MSG_EQ(a.ok && b.ok, true, "each record its own size and status");
        Simulator::Destroy();
    }
};

} // namespace

/**
 * \ingroup training-net-tests
 * FlowNic's suite.
 */
class FlowNicTestSuite : public TestSuite
{
  public:
    FlowNicTestSuite()
        : TestSuite("training-net-flow-nic", UNIT)
    {
        AddTestCase(new FlowNicQueuedCallbacksTestCase, TestCase::QUICK);
    }
};

static FlowNicTestSuite g_flowNicTestSuite; //!< static instance

} // namespace ns3
