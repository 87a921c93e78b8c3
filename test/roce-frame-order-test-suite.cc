/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFrameScheduler against its contract: whichever ns-3 scheduler keeps the other events,
 * it hands events out in the total order (time, frame arrival before any other event, frame
 * key (node, interface, sequence), uid), also after Remove of frames and of other events. The
 * reference is that order sorted out of the same random events: the order with which one
 * process and any number of MPI ranks give the same rows (doc/distributed.rst).
 */
#include "ns3/attribute-settings.h"
#include "ns3/event-impl.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-event-buckets.h"
#include "ns3/roce-frame-order.h"
#include "ns3/roce-net-device.h"
#include "ns3/scheduler.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

namespace
{

/** An event that is not a frame arrival (never run here). */
class OtherEvent : public EventImpl
{
  private:
    void Notify() override
    {
    }
};

/** One event as the reference orders it. */
struct Entry
{
    Scheduler::Event ev; //!< the event
    bool frame;          //!< a frame arrival
    RoceFrameKey key;    //!< its key (frames)

    /** \return the contract's sort key */
    std::tuple<uint64_t, uint32_t, uint32_t, uint32_t, uint64_t, uint32_t> Sort() const
    {
        return std::make_tuple(ev.key.m_ts,
                               frame ? 0U : 1U,
                               frame ? key.node : 0U,
                               frame ? key.ifIndex : 0U,
                               frame ? key.seq : 0ULL,
                               ev.key.m_uid);
    }
};

/**
 * A test of a scheduler against a reference order: what every case does with each event it
 * takes out.
 */
class SchedulerTestCase : public TestCase
{
  public:
    /// \param name the case's name
    explicit SchedulerTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * Take the next event out and check it against the reference: PeekNext shows it,
     * RemoveNext hands it out with its own event; the event is freed.
     * \param scheduler the scheduler \param expected the reference's next event
     * \param order the order's name in a failure's message
     * \return the event's time, or UINT64_MAX after a failure (reported)
     */
    uint64_t TakeNext(Scheduler& scheduler,
                      const Scheduler::Event& expected,
                      const std::string& order)
    {
        NS_TEST_EXPECT_MSG_EQ(scheduler.IsEmpty(), false, "events left");
        if (scheduler.IsEmpty())
        {
            return UINT64_MAX;
        }
        const uint32_t peeked = scheduler.PeekNext().key.m_uid;
        const Scheduler::Event next = scheduler.RemoveNext();
        NS_TEST_EXPECT_MSG_EQ(peeked, expected.key.m_uid, "PeekNext in " << order);
        NS_TEST_EXPECT_MSG_EQ(next.key.m_uid, expected.key.m_uid, order);
        NS_TEST_EXPECT_MSG_EQ(next.impl, expected.impl, "with its own event");
        next.impl->Unref();
        return IsStatusFailure() ? UINT64_MAX : next.key.m_ts;
    }
};

/**
 * Random events in few time stamps (so that many are equal), half of them frame arrivals with
 * keys drawn from few nodes and interfaces, inserted in uid order; a fifth removed again; the
 * rest must come out of PeekNext and RemoveNext in the reference order.
 */
class FrameOrderTestCase : public SchedulerTestCase
{
  public:
    /**
     * \param others the ns-3 scheduler of the other events
     * \param remove whether to remove events too
     */
    FrameOrderTestCase(const std::string& others, bool remove)
        : SchedulerTestCase("frame arrivals first by key, others by uid, with " + others +
                            (remove ? ", some removed" : "")),
          m_others(others),
          m_remove(remove)
    {
    }

  private:
    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId("ns3::RoceFrameScheduler");
        factory.Set("OtherEvents", StringValue(m_others));
        Ptr<Scheduler> scheduler = factory.Create<Scheduler>();
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(42);
        const uint32_t n = 4000;
        std::vector<Entry> entries;
        uint32_t frames = 0;
        for (uint32_t uid = 0; uid < n; ++uid)
        {
            Entry e;
            e.frame = rng->GetInteger(0, 1) == 1;
            e.key =
                RoceFrameKey{rng->GetInteger(0, 7), rng->GetInteger(1, 3), rng->GetInteger(0, 5)};
            e.ev.key.m_ts = rng->GetInteger(0, 40) * 1000;
            e.ev.key.m_uid = uid;
            e.ev.key.m_context = 0;
            e.ev.impl = e.frame
                            ? static_cast<EventImpl*>(new RoceFrameArrival(e.key, nullptr, nullptr))
                            : new OtherEvent;
            frames += e.frame ? 1 : 0;
            scheduler->Insert(e.ev);
            entries.push_back(e);
        }
        NS_TEST_ASSERT_MSG_GT(frames, n / 3, "a fair share of frame arrivals");
        NS_TEST_ASSERT_MSG_LT(frames, 2 * n / 3, "and of other events");
        std::vector<Entry> kept;
        uint32_t removedFrames = 0;
        for (const Entry& e : entries)
        {
            if (m_remove && rng->GetInteger(0, 4) == 0)
            {
                scheduler->Remove(e.ev);
                removedFrames += e.frame ? 1 : 0;
                e.ev.impl->Unref();
            }
            else
            {
                kept.push_back(e);
            }
        }
        NS_TEST_ASSERT_MSG_EQ((removedFrames > 0), m_remove, "frames removed too");
        std::sort(kept.begin(), kept.end(), [](const Entry& a, const Entry& b) {
            return a.Sort() < b.Sort();
        });
        uint32_t inOrder = 0;
        for (const Entry& e : kept)
        {
            if (TakeNext(*scheduler, e.ev, "the contract's order") == UINT64_MAX)
            {
                return;
            }
            ++inOrder;
        }
        NS_TEST_ASSERT_MSG_EQ(inOrder, static_cast<uint32_t>(kept.size()), "every kept event");
        NS_TEST_ASSERT_MSG_EQ(scheduler->IsEmpty(), true, "nothing more");
    }

    std::string m_others; //!< the scheduler of the other events
    bool m_remove;        //!< whether to remove events too
};

/**
 * \ingroup training-net-tests
 * RoceEventBuckets::SetBetweenEvents: the hook runs once every `every` events removed, between
 * two events (after the removal), until cleared; with no scheduler of this kind alive it is
 * not set.
 */
class BetweenEventsTestCase : public TestCase
{
  public:
    BetweenEventsTestCase()
        : TestCase("RoceEventBuckets: a hook every N events, between events, until cleared")
    {
    }

  private:
    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId("ns3::RoceEventBuckets");
        Ptr<Scheduler> scheduler = factory.Create<Scheduler>();
        for (uint32_t uid = 0; uid < 20; ++uid)
        {
            Scheduler::Event ev;
            ev.impl = new OtherEvent;
            ev.key.m_ts = uid / 4 * 1000; // four events per time
            ev.key.m_uid = uid;
            ev.key.m_context = 0;
            scheduler->Insert(ev);
        }
        uint32_t removed = 0;
        std::vector<uint32_t> calls;
        NS_TEST_ASSERT_MSG_EQ(
            RoceEventBuckets::SetBetweenEvents([&removed, &calls]() { calls.push_back(removed); },
                                               3),
            true,
            "set on the scheduler alive");
        auto take = [&scheduler, &removed](uint32_t n) {
            for (uint32_t k = 0; k < n && !scheduler->IsEmpty(); ++k)
            {
                Scheduler::Event ev = scheduler->RemoveNext();
                ev.impl->Unref();
                ++removed;
            }
        };
        take(10);
        // called inside the 3rd, 6th and 9th removal, before the caller counted it
        NS_TEST_EXPECT_MSG_EQ(calls.size(), 3, "every third event");
        for (uint32_t i = 0; i < calls.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(calls[i], 3 * i + 2, "call " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(RoceEventBuckets::SetBetweenEvents(nullptr, 3), false, "cleared");
        take(10);
        NS_TEST_EXPECT_MSG_EQ(calls.size(), 3, "no call once cleared");
        NS_TEST_EXPECT_MSG_EQ(removed, 20, "every event out");
        scheduler = nullptr;
        NS_TEST_EXPECT_MSG_EQ(RoceEventBuckets::SetBetweenEvents([]() {}, 1),
                              false,
                              "no scheduler of this kind alive: not set");
    }
};

/**
 * \ingroup training-net-tests
 * OtherEvents set again while events wait moves them to the new scheduler in their order: none
 * is lost (it used to abort).
 */
class OtherEventsMoveTestCase : public TestCase
{
  public:
    OtherEventsMoveTestCase()
        : TestCase("OtherEvents set while events wait keeps them, in order")
    {
    }

  private:
    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId("ns3::RoceFrameScheduler");
        factory.Set("OtherEvents", StringValue("ns3::ListScheduler"));
        Ptr<Scheduler> scheduler = factory.Create<Scheduler>();
        const uint32_t n = 50;
        for (uint32_t uid = 0; uid < n; ++uid)
        {
            Scheduler::Event ev;
            ev.impl = new OtherEvent;
            ev.key.m_ts = (n - uid) % 7 * 1000; // out of order, equal times
            ev.key.m_uid = uid;
            ev.key.m_context = 0;
            scheduler->Insert(ev);
        }
        scheduler->SetAttribute("OtherEvents", StringValue("ns3::MapScheduler"));
        uint64_t lastTs = 0;
        uint32_t lastUid = 0;
        uint32_t out = 0;
        while (!scheduler->IsEmpty())
        {
            Scheduler::Event ev = scheduler->RemoveNext();
            const bool ordered = out == 0 || ev.key.m_ts > lastTs ||
                                 (ev.key.m_ts == lastTs && ev.key.m_uid > lastUid);
            NS_TEST_EXPECT_MSG_EQ(ordered, true, "event " << ev.key.m_uid << " out of order");
            lastTs = ev.key.m_ts;
            lastUid = ev.key.m_uid;
            ev.impl->Unref();
            ++out;
        }
        NS_TEST_EXPECT_MSG_EQ(out, n, "every waiting event kept");
    }
};

/**
 * \ingroup training-net-tests
 * OtherEvents takes only the name of another ns-3 scheduler: a program's option or
 * Config::SetDefault with any other name is refused where it is given, naming the attribute and
 * what it expects (before, the scheduler silently fell back to MapScheduler).
 */
class OtherEventsNameTestCase : public TestCase
{
  public:
    OtherEventsNameTestCase()
        : TestCase("OtherEvents refuses a name that is no other scheduler")
    {
    }

  private:
    void DoRun() override
    {
        const std::string attribute = "ns3::RoceFrameScheduler::OtherEvents";
        for (const char* bad : {"nope", "ns3::RoceFrameScheduler", "ns3::RdmaNic", ""})
        {
            std::string why;
            NS_TEST_EXPECT_MSG_EQ(AttributeSettings::CheckDefault(attribute, bad, &why),
                                  false,
                                  "'" << bad << "' accepted");
            NS_TEST_EXPECT_MSG_NE(why.find("is not a valid value for " + attribute +
                                           " (expected the TypeId name of another ns-3 "
                                           "scheduler"),
                                  std::string::npos,
                                  why);
        }
        for (const char* good :
             {"ns3::MapScheduler", "ns3::ListScheduler", "ns3::CalendarScheduler"})
        {
            std::string why;
            NS_TEST_EXPECT_MSG_EQ(AttributeSettings::CheckDefault(attribute, good, &why),
                                  true,
                                  why);
        }
    }
};

/**
 * \ingroup training-net-tests
 * RoceEventHeap alone: events removed in the heap's middle, at its head and then most of them
 * (the one-pass purge), interleaved with RemoveNext; what is left comes out in (time, uid)
 * order, every kept event once, and IsEmpty holds only at the end.
 */
class EventHeapRemoveTestCase : public SchedulerTestCase
{
  public:
    EventHeapRemoveTestCase()
        : SchedulerTestCase(
              "RoceEventHeap: removed events never come out, the rest in (time, uid) order")
    {
    }

  private:
    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId("ns3::RoceEventHeap");
        Ptr<Scheduler> heap = factory.Create<Scheduler>();
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(7);
        const uint32_t n = 2000;
        std::vector<Scheduler::Event> events;
        for (uint32_t uid = 0; uid < n; ++uid)
        {
            Scheduler::Event ev;
            ev.impl = new OtherEvent;
            ev.key.m_ts = rng->GetInteger(0, 50) * 1000;
            ev.key.m_uid = uid;
            ev.key.m_context = 0;
            heap->Insert(ev);
            events.push_back(ev);
        }
        std::vector<Scheduler::Event> kept;
        std::vector<bool> gone(n, false);
        // the head itself first: the next head must be a live event
        const Scheduler::Event head = heap->PeekNext();
        heap->Remove(head);
        gone[head.key.m_uid] = true;
        head.impl->Unref();
        for (const Scheduler::Event& ev : events)
        {
            // three in four: past half of the heap, so the purge runs
            if (!gone[ev.key.m_uid] && rng->GetInteger(0, 3) != 0)
            {
                heap->Remove(ev);
                gone[ev.key.m_uid] = true;
                ev.impl->Unref();
            }
        }
        for (const Scheduler::Event& ev : events)
        {
            if (!gone[ev.key.m_uid])
            {
                kept.push_back(ev);
            }
        }
        NS_TEST_ASSERT_MSG_GT(kept.size(), n / 8, "some kept");
        NS_TEST_ASSERT_MSG_LT(kept.size(), n / 2, "most removed");
        std::sort(kept.begin(), kept.end());
        for (const Scheduler::Event& e : kept)
        {
            // PeekNext: the head is live
            if (TakeNext(*heap, e, "(time, uid) order") == UINT64_MAX)
            {
                return;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(heap->IsEmpty(), true, "nothing more");
    }
};

/**
 * \ingroup training-net-tests
 * A scheduler as a simulation drives it: events moved in first in no uid order (as
 * Simulator::SetScheduler moves the waiting ones), then RemoveNext interleaved with inserts at
 * now or a few steps later (increasing uids, many at one time, as a flow-level run's deliveries
 * and ACKs) and with Remove of waiting events, the earliest among them. Every event comes out
 * once, in (time, uid) order, against a sorted reference.
 */
class SchedulerRunOrderTestCase : public SchedulerTestCase
{
  public:
    /// \param scheduler the TypeId name of the scheduler
    explicit SchedulerRunOrderTestCase(const std::string& scheduler)
        : SchedulerTestCase(scheduler +
                            ": (time, uid) order as a run schedules, removes and moves"),
          m_scheduler(scheduler)
    {
    }

  private:
    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId(m_scheduler);
        Ptr<Scheduler> scheduler = factory.Create<Scheduler>();
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(11);
        std::map<std::pair<uint64_t, uint32_t>, Scheduler::Event> waiting;
        auto insert = [&](uint64_t ts, uint32_t uid) {
            Scheduler::Event ev;
            ev.impl = new OtherEvent;
            ev.key.m_ts = ts;
            ev.key.m_uid = uid;
            ev.key.m_context = 0;
            scheduler->Insert(ev);
            waiting.emplace(std::make_pair(ts, uid), ev);
        };
        // moved in: uids 0..299 in a random order, over few times
        std::vector<uint32_t> uids(300);
        for (uint32_t i = 0; i < uids.size(); ++i)
        {
            uids[i] = i;
        }
        for (uint32_t i = static_cast<uint32_t>(uids.size()) - 1; i > 0; --i)
        {
            std::swap(uids[i], uids[rng->GetInteger(0, i)]);
        }
        for (uint32_t uid : uids)
        {
            insert(rng->GetInteger(0, 20) * 1000, uid);
        }
        uint32_t nextUid = static_cast<uint32_t>(uids.size());
        uint64_t now = 0;
        uint32_t out = 0;
        uint32_t removed = 0;
        uint32_t removedFirst = 0;
        const uint64_t steps[] = {0, 1000, 1000, 2000, 5000};
        for (uint32_t round = 0; round < 3000; ++round)
        {
            for (uint32_t k = rng->GetInteger(0, 3); k > 0 && !waiting.empty(); --k)
            {
                auto first = waiting.begin();
                now = TakeNext(*scheduler, first->second, "(time, uid) order");
                if (now == UINT64_MAX)
                {
                    return;
                }
                waiting.erase(first);
                ++out;
            }
            for (uint32_t k = rng->GetInteger(0, 3); k > 0; --k)
            {
                insert(now + steps[rng->GetInteger(0, 4)], nextUid++);
            }
            if (!waiting.empty() && rng->GetInteger(0, 9) == 0)
            {
                auto victim = waiting.begin();
                std::advance(victim, rng->GetInteger(0, std::min<uint32_t>(3, waiting.size() - 1)));
                removedFirst += victim == waiting.begin() ? 1 : 0;
                scheduler->Remove(victim->second);
                victim->second.impl->Unref();
                waiting.erase(victim);
                ++removed;
            }
        }
        NS_TEST_ASSERT_MSG_GT(out, 3000U, "most taken out in order");
        NS_TEST_ASSERT_MSG_GT(removed, 100U, "some removed");
        NS_TEST_ASSERT_MSG_GT(removedFirst, 10U, "some of them the earliest");
        for (auto& w : waiting)
        {
            if (TakeNext(*scheduler, w.second, "the rest's order") == UINT64_MAX)
            {
                return;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(scheduler->IsEmpty(), true, "nothing more");
    }

    std::string m_scheduler; //!< the scheduler's TypeId name
};

/**
 * \ingroup training-net-tests
 * Arrivals as cables make them, interleaved with RemoveNext as a run does: each sending end's
 * frames later than the one before (equal times across ends), some other events, now and then
 * an arrival earlier than the last of its end (an order no cable makes) and a Remove of a waiting
 * arrival. Every event comes out in the contract's order, and the heap the next arrival is
 * chosen from holds one entry per busy sending end (and the out-of-order ones), not one per
 * waiting arrival.
 */
class FrameLaneTestCase : public SchedulerTestCase
{
  public:
    FrameLaneTestCase()
        : SchedulerTestCase(
              "arrivals in their sending end's order: a heap entry per end, the same order")
    {
    }

  private:
    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId("ns3::RoceFrameScheduler");
        Ptr<RoceFrameScheduler> scheduler = factory.Create<RoceFrameScheduler>();
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(11);
        const uint32_t ends = 12; // nodes 0 to 5, interfaces 1 and 2
        std::vector<uint64_t> lastTs(ends, 0);
        std::vector<uint64_t> seq(ends, 0);
        std::vector<Entry> waiting; // the reference: what the scheduler holds
        uint64_t now = 0;
        uint32_t uid = 0;
        uint32_t outOfOrder = 0;
        uint32_t removed = 0;
        uint32_t out = 0;
        size_t mostWaiting = 0;
        for (uint32_t round = 0; round < 3000; ++round)
        {
            for (uint32_t k = rng->GetInteger(0, 4); k > 0; --k)
            {
                Entry e;
                e.frame = rng->GetInteger(0, 5) != 0;
                const uint32_t end = rng->GetInteger(0, ends - 1);
                e.key = RoceFrameKey{end / 2, end % 2 + 1, seq[end]++};
                uint64_t ts = std::max(lastTs[end], now) + rng->GetInteger(0, 3) * 100;
                if (e.frame && ts > now + 100 && rng->GetInteger(0, 19) == 0)
                {
                    ts = now + 100; // before the last of its end
                    ++outOfOrder;
                }
                else if (e.frame)
                {
                    lastTs[end] = ts;
                }
                e.ev.key.m_ts = ts;
                e.ev.key.m_uid = uid++;
                e.ev.key.m_context = 0;
                e.ev.impl =
                    e.frame ? static_cast<EventImpl*>(new RoceFrameArrival(e.key, nullptr, nullptr))
                            : new OtherEvent;
                scheduler->Insert(e.ev);
                waiting.push_back(e);
            }
            mostWaiting = std::max(mostWaiting, waiting.size());
            NS_TEST_ASSERT_MSG_LT_OR_EQ(scheduler->GetFrameHeapSize(),
                                        ends + outOfOrder,
                                        "a heap entry per busy end and per out-of-order arrival");
            if (!waiting.empty() && rng->GetInteger(0, 29) == 0)
            {
                const size_t i = rng->GetInteger(0, waiting.size() - 1);
                scheduler->Remove(waiting[i].ev);
                waiting[i].ev.impl->Unref();
                waiting.erase(waiting.begin() + i);
                ++removed;
            }
            for (uint32_t k = rng->GetInteger(0, 4); k > 0 && !waiting.empty(); --k)
            {
                auto first = std::min_element(
                    waiting.begin(),
                    waiting.end(),
                    [](const Entry& a, const Entry& b) { return a.Sort() < b.Sort(); });
                now = TakeNext(*scheduler, first->ev, "the contract's order");
                if (now == UINT64_MAX)
                {
                    return;
                }
                waiting.erase(first);
                ++out;
            }
        }
        NS_TEST_ASSERT_MSG_GT(mostWaiting, 4 * ends, "far more arrivals waited than ends");
        NS_TEST_ASSERT_MSG_GT(outOfOrder, 10U, "some arrivals out of their end's order");
        NS_TEST_ASSERT_MSG_GT(removed, 10U, "some removed");
        NS_TEST_ASSERT_MSG_GT(out, 1000U, "most taken out in order");
        std::sort(waiting.begin(), waiting.end(), [](const Entry& a, const Entry& b) {
            return a.Sort() < b.Sort();
        });
        for (const Entry& e : waiting)
        {
            if (TakeNext(*scheduler, e.ev, "the rest's order") == UINT64_MAX)
            {
                return;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(scheduler->IsEmpty(), true, "nothing more");
    }
};

/** The suite. */
class RoceFrameOrderTestSuite : public TestSuite
{
  public:
    RoceFrameOrderTestSuite()
        : TestSuite("training-net-roce-frame-order", UNIT)
    {
        AddTestCase(new OtherEventsNameTestCase, TestCase::QUICK);
        AddTestCase(new OtherEventsMoveTestCase, TestCase::QUICK);
        AddTestCase(new BetweenEventsTestCase, TestCase::QUICK);
        AddTestCase(new FrameOrderTestCase("ns3::RoceEventHeap", true), TestCase::QUICK);
        AddTestCase(new EventHeapRemoveTestCase, TestCase::QUICK);
        AddTestCase(new SchedulerRunOrderTestCase("ns3::RoceEventBuckets"), TestCase::QUICK);
        AddTestCase(new SchedulerRunOrderTestCase("ns3::RoceEventHeap"), TestCase::QUICK);
        AddTestCase(new FrameLaneTestCase, TestCase::QUICK);
        AddTestCase(new FrameOrderTestCase("ns3::MapScheduler", true), TestCase::QUICK);
        AddTestCase(new FrameOrderTestCase("ns3::CalendarScheduler", true), TestCase::QUICK);
        AddTestCase(new FrameOrderTestCase("ns3::ListScheduler", true), TestCase::QUICK);
        // not with Remove: ns-3's HeapScheduler::Remove (3.37 to 3.39 at least) moves the last
        // event into the hole and sifts it down only, so one smaller than the hole's parent
        // breaks its heap; the same happens with HeapScheduler alone
        AddTestCase(new FrameOrderTestCase("ns3::HeapScheduler", false), TestCase::QUICK);
    }
};

RoceFrameOrderTestSuite g_roceFrameOrderTestSuite; //!< static instance

} // namespace

} // namespace ns3
