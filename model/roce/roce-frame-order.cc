/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-frame-order.h"

#include "roce-net-device.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/predicate-checker.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <tuple>
#include <typeinfo>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFrameScheduler");

NS_OBJECT_ENSURE_REGISTERED(RoceFrameScheduler);
NS_OBJECT_ENSURE_REGISTERED(RoceEventHeap);

namespace
{

/// \return whether name is the TypeId of an ns-3 scheduler that can hold the other events
bool
IsOtherScheduler(const std::string& name)
{
    TypeId tid;
    return TypeId::LookupByNameFailSafe(name, &tid) && tid.IsChildOf(Scheduler::GetTypeId()) &&
           name != "ns3::RoceFrameScheduler";
}

/**
 * OtherEvents' checker: a string that names another ns-3 scheduler, so that a mistyped name
 * is refused where the value is given (a program's option, Config::SetDefault) instead of
 * running on a scheduler the user did not ask for.
 */
Ptr<const AttributeChecker>
MakeOtherSchedulerChecker()
{
    return MakePredicateChecker<StringValue, StringChecker>(
        "ns3::StringValue",
        [](const StringValue& text) { return IsOtherScheduler(text.Get()); },
        [] {
            return std::string("the TypeId name of another ns-3 scheduler: ns3::RoceEventHeap, "
                               "ns3::MapScheduler, ns3::ListScheduler, ns3::CalendarScheduler "
                               "or ns3::PriorityQueueScheduler");
        });
}

} // namespace

RoceFrameScheduler* RoceFrameScheduler::s_current = nullptr;

RoceFrameArrival::RoceFrameArrival(const RoceFrameKey& key,
                                   const Ptr<RoceNetDevice>& device,
                                   const Ptr<Packet>& frame,
                                   bool ethernet)
    : m_key(key),
      m_device(device),
      m_frame(frame),
      m_ethernet(ethernet)
{
}

RoceFrameArrival::~RoceFrameArrival() = default;

RoceFrameArrival::Free* RoceFrameArrival::s_free = nullptr;

void*
RoceFrameArrival::operator new(std::size_t size)
{
    static_assert(sizeof(RoceFrameArrival) >= sizeof(Free), "an arrival holds a list link");
    // the class is final: every allocation is of its size, so any freed one fits
    if (!s_free)
    {
        return ::operator new(size);
    }
    Free* f = s_free;
    s_free = f->next;
    return f;
}

void
RoceFrameArrival::operator delete(void* p)
{
    if (!p)
    {
        return;
    }
    Free* f = static_cast<Free*>(p);
    f->next = s_free;
    s_free = f;
}

void
RoceFrameArrival::Notify()
{
    m_device->Receive(m_frame, m_ethernet);
}

TypeId
RoceFrameScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceFrameScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RoceFrameScheduler>()
            .AddAttribute("OtherEvents",
                          "The ns-3 scheduler of every event but frame arrivals (TypeId name)",
                          StringValue("ns3::RoceEventHeap"),
                          MakeStringAccessor(&RoceFrameScheduler::SetOtherEvents),
                          MakeOtherSchedulerChecker());
    return tid;
}

RoceFrameScheduler::RoceFrameScheduler()
{
    s_current = this;
}

RoceFrameScheduler::~RoceFrameScheduler()
{
    if (s_current == this)
    {
        s_current = nullptr;
    }
}

void
RoceFrameScheduler::SetOtherEvents(const std::string& type)
{
    // the checker refused any other name where it was given
    const TypeId tid = TypeId::LookupByName(IsOtherScheduler(type) ? type : "ns3::MapScheduler");
    ObjectFactory factory;
    factory.SetTypeId(tid);
    Ptr<Scheduler> others = factory.Create<Scheduler>();
    // set at construction the queue is empty; set later, the events waiting move over in their
    // order (every ns-3 scheduler orders by time, then uid), so none is lost
    while (m_others && !m_others->IsEmpty())
    {
        others->Insert(m_others->RemoveNext());
    }
    m_others = others;
    m_othersType = tid.GetName();
}

void
RoceFrameScheduler::Use()
{
    if (!s_current)
    {
        StringValue chosen;
        GlobalValue::GetValueByName("SchedulerType", chosen);
        ObjectFactory factory;
        factory.SetTypeId(GetTypeId());
        // the program's SchedulerType, unless it is this scheduler (DistributedHelper names
        // it there) or ns-3's default map: then the heap, which orders events the same way
        // (time, then uid) at a fraction of the map's cost in a packet-level run
        const bool other = IsOtherScheduler(chosen.Get()) && chosen.Get() != "ns3::MapScheduler";
        factory.Set("OtherEvents", StringValue(other ? chosen.Get() : "ns3::RoceEventHeap"));
        Simulator::SetScheduler(factory);
    }
}

bool
RoceFrameScheduler::HasEvents()
{
    return s_current && !s_current->IsEmpty();
}

bool
RoceFrameScheduler::FrameFirst() const
{
    if (m_frames.empty())
    {
        return false;
    }
    // on equal time the arrival runs first
    return m_others->IsEmpty() || m_frames.front().ts <= m_others->PeekNext().key.m_ts;
}

void
RoceFrameScheduler::Insert(const Scheduler::Event& ev)
{
    // typeid of a final class: one comparison, no walk of a class hierarchy
    if (typeid(*ev.impl) == typeid(RoceFrameArrival))
    {
        const auto* arrival = static_cast<const RoceFrameArrival*>(ev.impl);
        const RoceFrameKey& key = arrival->GetKey();
        m_frames.push_back(Frame{ev.key.m_ts,
                                 key.seq,
                                 key.node,
                                 key.ifIndex,
                                 ev.key.m_uid,
                                 ev.key.m_context,
                                 ev.impl});
        std::push_heap(m_frames.begin(), m_frames.end(), Later());
        return;
    }
    m_others->Insert(ev);
}

bool
RoceFrameScheduler::IsEmpty() const
{
    return m_frames.empty() && m_others->IsEmpty();
}

Scheduler::Event
RoceFrameScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    return FrameFirst() ? m_frames.front().Event() : m_others->PeekNext();
}

Scheduler::Event
RoceFrameScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (!FrameFirst())
    {
        return m_others->RemoveNext();
    }
    std::pop_heap(m_frames.begin(), m_frames.end(), Later());
    const Scheduler::Event ev = m_frames.back().Event();
    m_frames.pop_back();
    return ev;
}

void
RoceFrameScheduler::Remove(const Scheduler::Event& ev)
{
    if (typeid(*ev.impl) != typeid(RoceFrameArrival))
    {
        m_others->Remove(ev);
        return;
    }
    // the uid is unique: it finds the one entry
    auto it = std::find_if(m_frames.begin(), m_frames.end(), [&ev](const Frame& f) {
        return f.uid == ev.key.m_uid;
    });
    NS_ASSERT(it != m_frames.end());
    m_frames.erase(it);
    std::make_heap(m_frames.begin(), m_frames.end(), Later());
}

TypeId
RoceEventHeap::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceEventHeap")
                            .SetParent<Scheduler>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceEventHeap>();
    return tid;
}

RoceEventHeap::RoceEventHeap() = default;

RoceEventHeap::~RoceEventHeap() = default;

void
RoceEventHeap::Insert(const Scheduler::Event& ev)
{
    m_heap.push_back(ev);
    std::push_heap(m_heap.begin(), m_heap.end(), Later());
}

bool
RoceEventHeap::IsEmpty() const
{
    return m_heap.size() == m_marked.size();
}

Scheduler::Event
RoceEventHeap::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    return m_heap.front();
}

void
RoceEventHeap::DropMarkedHead()
{
    // both heaps order by (time, uid): a marked head is the first of the marked ones too, so
    // one comparison of uids tells, with no look-up
    while (!m_marked.empty() && m_heap.front().key.m_uid == m_marked.front().m_uid)
    {
        std::pop_heap(m_heap.begin(), m_heap.end(), Later());
        m_heap.pop_back();
        std::pop_heap(m_marked.begin(), m_marked.end(), LaterKey());
        m_marked.pop_back();
    }
}

Scheduler::Event
RoceEventHeap::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    std::pop_heap(m_heap.begin(), m_heap.end(), Later());
    const Scheduler::Event ev = m_heap.back();
    m_heap.pop_back();
    DropMarkedHead();
    return ev;
}

void
RoceEventHeap::Remove(const Scheduler::Event& ev)
{
    // the caller releases the event's implementation: a marked entry is never dereferenced
    m_marked.push_back(ev.key);
    std::push_heap(m_marked.begin(), m_marked.end(), LaterKey());
    if (2 * m_marked.size() > m_heap.size())
    {
        // uids are unique: each marked one matches exactly one entry
        std::vector<uint32_t> uids;
        uids.reserve(m_marked.size());
        for (const Scheduler::EventKey& k : m_marked)
        {
            uids.push_back(k.m_uid);
        }
        std::sort(uids.begin(), uids.end());
        auto live = std::remove_if(m_heap.begin(), m_heap.end(), [&uids](const Event& e) {
            return std::binary_search(uids.begin(), uids.end(), e.key.m_uid);
        });
        m_heap.erase(live, m_heap.end());
        m_marked.clear();
        std::make_heap(m_heap.begin(), m_heap.end(), Later());
        return;
    }
    DropMarkedHead();
}

} // namespace ns3
