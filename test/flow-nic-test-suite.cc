/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowNic's send queue: messages queued behind a flow keep their fields and their own
 * completion callbacks (a queued message names its callback by a slot shared by the messages
 * of one callback object). A transport's message listener, at flow and at packet level; the
 * flow level's scheduler asks hinted events for their prefetch stages before their turn.
 */
#include "roce-test-util.h"

#include "ns3/rdma-transport.h"
#include "ns3/roce-event-buckets.h"
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

/// A transport's listener that logs what it hears, beside the MessageReceived trace's log.
struct LoggingListener : public RdmaMessageListener
{
    void MessageReceived(const RdmaMessageRecord& r) override
    {
        log->push_back("listener received " + std::to_string(r.immediate));
    }

    void MessageComplete(const RdmaMessageRecord& r) override
    {
        log->push_back("listener complete " + std::to_string(r.wrId));
    }

    static void Traced(std::vector<std::string>* log, const RdmaMessageRecord& r)
    {
        log->push_back("trace received " + std::to_string(r.immediate));
    }

    static void Called(std::vector<std::string>* log, const RdmaMessageRecord& r)
    {
        log->push_back("callback complete " + std::to_string(r.wrId));
    }

    std::vector<std::string>* log{nullptr};
};

/**
 * \ingroup training-net-tests
 * RdmaMessageListener at flow and at packet level: three messages from node 0 to node 1, the
 * first and third posted toListener (the first with a callback too, which is not called), the
 * second with a callback only. The receiver's listener hears each delivery just before the
 * MessageReceived trace; the sender's hears the completions of the first and third, the
 * callback only the second's; in order of delivery.
 */
class TransportListenerTestCase : public TestCase
{
  public:
    TransportListenerTestCase()
        : TestCase("a transport's listener hears deliveries and completions asked of it")
    {
    }

  private:
    void DoRun() override
    {
        for (const RoceHelper::Mode mode : {RoceHelper::FLOW, RoceHelper::PACKET})
        {
            const std::string what = mode == RoceHelper::FLOW ? "flow" : "packet";
            Topology t("switch:2,rate=100Gbps,latency=1us");
            NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, t.error);
            RoceHelper roce;
            roce.SetMode(mode);
            roce.Install(t.topo);
            Ptr<RdmaTransport> sender = roce.GetTransport(0);
            Ptr<RdmaTransport> receiver = roce.GetTransport(1);
            std::vector<std::string> log;
            LoggingListener atSender;
            LoggingListener atReceiver;
            atSender.log = &log;
            atReceiver.log = &log;
            sender->SetMessageListener(&atSender);
            receiver->SetMessageListener(&atReceiver);
            receiver->TraceConnectWithoutContext("MessageReceived",
                                                 MakeBoundCallback(&LoggingListener::Traced, &log));
            const RdmaTransport::CompletionCallback called =
                MakeBoundCallback(&LoggingListener::Called, &log);
            for (uint32_t k = 1; k <= 3; k++)
            {
                RdmaWriteRequest w;
                w.dst = tn_topology_npu_node(t.topo, 1);
                w.bytes = 4096;
                w.wrId = k;
                w.hasImmediate = true;
                w.immediate = k;
                w.toListener = k != 2;
                sender->Post(w, k == 3 ? RdmaTransport::CompletionCallback() : called);
                // one at a time: each delivered and acknowledged before the next goes
                Simulator::Run();
            }
            const std::vector<std::string> expected = {"listener received 1",
                                                       "trace received 1",
                                                       "listener complete 1",
                                                       "listener received 2",
                                                       "trace received 2",
                                                       "callback complete 2",
                                                       "listener received 3",
                                                       "trace received 3",
                                                       "listener complete 3"};
            NS_TEST_EXPECT_MSG_EQ(log.size(), expected.size(), what);
            for (size_t k = 0; k < expected.size() && k < log.size(); k++)
            {
                NS_TEST_EXPECT_MSG_EQ(log[k], expected[k], what << " entry " << k);
            }
            sender->SetMessageListener(nullptr);
            receiver->SetMessageListener(nullptr);
            Simulator::Destroy();
        }
    }
};

/// A hinted event that logs the prefetch stages it is asked for, and its own run.
class StagedEvent : public RoceHintedEvent
{
  public:
    StagedEvent(std::vector<std::string>* log, uint32_t index)
        : m_log(log),
          m_index(index)
    {
    }

    void Prefetch(uint32_t stage) const override
    {
        m_log->push_back(std::to_string(m_index) + " stage " + std::to_string(stage));
    }

  protected:
    void Notify() override
    {
    }

  private:
    std::vector<std::string>* m_log;
    uint32_t m_index;
};

/// An event of another kind (no stages).
class PlainEvent : public EventImpl
{
  protected:
    void Notify() override
    {
    }
};

/**
 * \ingroup training-net-tests
 * RoceEventBuckets asks a hinted event for its stages 0, 1 and 2 three, two and one events
 * before its turn (what follows in its bucket), and asks no other kind of event: eight events
 * of one time, hinted but for the second and fifth, removed one by one. Event j (from 0) is
 * asked for stage s when j - 3 + s >= 1, at the removal of event j - 4 + s.
 */
class EventBucketsStagesTestCase : public TestCase
{
  public:
    EventBucketsStagesTestCase()
        : TestCase("the flow level's scheduler asks hinted events for their stages, in turn")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<std::string> log;
        std::vector<Ptr<EventImpl>> events;
        Ptr<RoceEventBuckets> buckets = CreateObject<RoceEventBuckets>();
        const uint32_t n = 8;
        for (uint32_t j = 0; j < n; j++)
        {
            const bool plain = j == 1 || j == 4;
            events.push_back(plain ? Ptr<EventImpl>(Create<PlainEvent>())
                                   : Ptr<EventImpl>(Create<StagedEvent>(&log, j)));
            Scheduler::Event ev;
            ev.impl = PeekPointer(events.back());
            ev.key.m_ts = 100;
            ev.key.m_uid = 10 + j;
            ev.key.m_context = 0;
            buckets->Insert(ev);
        }
        std::vector<std::string> expected;
        for (uint32_t i = 0; i < n; i++)
        {
            // removing event i asks event i + 1 + 3 - s for stage s
            for (uint32_t stage = 0; stage < 3; stage++)
            {
                const uint32_t j = i + 4 - stage;
                if (j < n && j != 1 && j != 4)
                {
                    expected.push_back(std::to_string(j) + " stage " + std::to_string(stage));
                }
            }
            expected.push_back("removed " + std::to_string(i));
        }
        for (uint32_t i = 0; i < n; i++)
        {
            const Scheduler::Event ev = buckets->RemoveNext();
            NS_TEST_EXPECT_MSG_EQ(ev.key.m_uid, 10 + i, "in uid order");
            log.push_back("removed " + std::to_string(i));
        }
        NS_TEST_EXPECT_MSG_EQ(buckets->IsEmpty(), true, "all removed");
        NS_TEST_ASSERT_MSG_EQ(log.size(), expected.size(), "the stages asked");
        for (size_t k = 0; k < expected.size(); k++)
        {
            NS_TEST_EXPECT_MSG_EQ(log[k], expected[k], "entry " << k);
        }
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
        AddTestCase(new TransportListenerTestCase, TestCase::QUICK);
        AddTestCase(new EventBucketsStagesTestCase, TestCase::QUICK);
    }
};

static FlowNicTestSuite g_flowNicTestSuite; //!< static instance

} // namespace ns3
