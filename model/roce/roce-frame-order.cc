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
    // the next arrival takes the list's new head: asked for now, its link is no cache miss
    // then (a list grown while frames queued holds arrivals freed long ago)
    if (s_free)
    {
        __builtin_prefetch(s_free, 1);
    }
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
        std::string chosen;
        const bool byDefault = SchedulerTypeIsDefault(&chosen);
        ObjectFactory factory;
        factory.SetTypeId(GetTypeId());
        // the program's SchedulerType, unless it is this scheduler (DistributedHelper names
        // it there) or ns-3's default map: then the heap, which orders events the same way
        // (time, then uid) at a fraction of the map's cost in a packet-level run
        const bool other = IsOtherScheduler(chosen) && !byDefault;
        factory.Set("OtherEvents", StringValue(other ? chosen : "ns3::RoceEventHeap"));
        Simulator::SetScheduler(factory);
    }
}

bool
RoceFrameScheduler::SchedulerTypeIsDefault(std::string* name)
{
    StringValue chosen;
    GlobalValue::GetValueByName("SchedulerType", chosen);
    if (name)
    {
        *name = chosen.Get();
    }
    return chosen.Get() == "ns3::MapScheduler";
}

bool
RoceFrameScheduler::HasEvents()
{
    return s_current && !s_current->IsEmpty();
}

bool
RoceFrameScheduler::InUse()
{
    return s_current != nullptr;
}

size_t
RoceFrameScheduler::GetFrameHeapSize() const
{
    return m_heads.size() + m_frames.size();
}

void
RoceFrameScheduler::Lane::PushBack(const Frame& f)
{
    if (count == ring.size())
    {
        std::vector<Frame> bigger(ring.empty() ? 8 : 2 * ring.size());
        for (uint32_t i = 0; i < count; ++i)
        {
            bigger[i] = At(i);
        }
        ring.swap(bigger);
        first = 0;
    }
    ring[(first + count) & (ring.size() - 1)] = f;
    ++count;
    lastTs = f.ts;
    lastSeq = f.seq;
}

void
RoceFrameScheduler::Lane::PopFront()
{
    first = (first + 1) & (ring.size() - 1);
    --count;
}

void
RoceFrameScheduler::Lane::Erase(uint32_t i)
{
    for (; i + 1 < count; ++i)
    {
        At(i) = At(i + 1);
    }
    --count;
    if (count > 0)
    {
        lastTs = At(count - 1).ts;
        lastSeq = At(count - 1).seq;
    }
}

uint32_t
RoceFrameScheduler::LaneOf(uint32_t node, uint32_t ifIndex)
{
    const uint64_t end = static_cast<uint64_t>(node) << 32 | ifIndex;
    if (2 * (m_lanes.size() + 1) > m_laneSlots.size())
    {
        // at most half full, so that a look-up ends within a few slots
        std::vector<LaneSlot> old(m_laneSlots.empty() ? 64 : 2 * m_laneSlots.size());
        old.swap(m_laneSlots);
        for (const LaneSlot& s : old)
        {
            if (s.lane != UINT32_MAX)
            {
                size_t j = (s.end * 0x9E3779B97F4A7C15ULL) >> 32 & (m_laneSlots.size() - 1);
                while (m_laneSlots[j].lane != UINT32_MAX)
                {
                    j = (j + 1) & (m_laneSlots.size() - 1);
                }
                m_laneSlots[j] = s;
            }
        }
    }
    size_t j = (end * 0x9E3779B97F4A7C15ULL) >> 32 & (m_laneSlots.size() - 1);
    while (m_laneSlots[j].lane != UINT32_MAX)
    {
        if (m_laneSlots[j].end == end)
        {
            return m_laneSlots[j].lane;
        }
        j = (j + 1) & (m_laneSlots.size() - 1);
    }
    m_laneSlots[j].end = end;
    m_laneSlots[j].lane = static_cast<uint32_t>(m_lanes.size());
    m_lanes.emplace_back();
    return m_laneSlots[j].lane;
}

bool
RoceFrameScheduler::LaneFirst() const
{
    // the uid is unique: two arrivals are never equal
    return !m_heads.empty() && (m_frames.empty() || RunsFirst(m_heads.front(), m_frames.front()));
}

uint64_t
RoceFrameScheduler::NextFrameTime() const
{
    return LaneFirst() ? m_heads.front().ts : m_frames.front().ts;
}

void
RoceFrameScheduler::SiftDownHead()
{
    // the top's place below: one pass down instead of std::pop_heap and std::push_heap
    const size_t n = m_heads.size();
    if (n == 0)
    {
        return;
    }
    const Head moving = m_heads.front();
    size_t i = 0;
    for (;;)
    {
        size_t c = 2 * i + 1;
        if (c >= n)
        {
            break;
        }
        if (c + 1 < n && RunsFirst(m_heads[c + 1], m_heads[c]))
        {
            ++c;
        }
        if (!RunsFirst(m_heads[c], moving))
        {
            break;
        }
        m_heads[i] = m_heads[c];
        i = c;
    }
    m_heads[i] = moving;
}

void
RoceFrameScheduler::PrefetchAround(const Frame& out) const
{
    // the arrival handed out was the next one at the last call, when its memory was asked for
    static_cast<const RoceFrameArrival*>(out.impl)->Prefetch();
    if (!m_heads.empty())
    {
        // the next lane's first arrival: its device and frame (the arrival was asked for at
        // an earlier call, as one of the candidates below) and its lane, which RemoveNext reads
        static_cast<const RoceFrameArrival*>(m_heads.front().impl)->Prefetch();
        __builtin_prefetch(&m_lanes[m_heads.front().lane]);
        // the candidates for the one after: the heap's second and third
        for (size_t i = 1; i < 3 && i < m_heads.size(); ++i)
        {
            __builtin_prefetch(m_heads[i].impl);
        }
    }
}

void
RoceFrameScheduler::RebuildHeads()
{
    m_heads.clear();
    for (uint32_t l = 0; l < m_lanes.size(); ++l)
    {
        if (m_lanes[l].count > 0)
        {
            m_heads.emplace_back(m_lanes[l].Front(), l);
        }
    }
    std::make_heap(m_heads.begin(), m_heads.end(), Later());
}

bool
RoceFrameScheduler::FrameFirst() const
{
    if (m_heads.empty() && m_frames.empty())
    {
        return false;
    }
    // on equal time the arrival runs first
    return m_others->IsEmpty() || NextFrameTime() <= m_others->PeekNext().key.m_ts;
}

void
RoceFrameScheduler::Insert(const Scheduler::Event& ev)
{
    // typeid of a final class: one comparison, no walk of a class hierarchy
    if (typeid(*ev.impl) == typeid(RoceFrameArrival))
    {
        const auto* arrival = static_cast<const RoceFrameArrival*>(ev.impl);
        const RoceFrameKey& key = arrival->GetKey();
        const Frame
            f{ev.key.m_ts, key.seq, key.node, key.ifIndex, ev.key.m_uid, ev.key.m_context, ev.impl};
        const uint32_t l = LaneOf(key.node, key.ifIndex);
        Lane& lane = m_lanes[l];
        if (lane.count == 0)
        {
            lane.PushBack(f);
            m_heads.emplace_back(f, l);
            std::push_heap(m_heads.begin(), m_heads.end(), Later());
        }
        else if (lane.lastTs < f.ts || (lane.lastTs == f.ts && lane.lastSeq < f.seq))
        {
            lane.PushBack(f); // the lane's first, and so the heap, stay as they are
        }
        else
        {
            m_frames.push_back(f);
            std::push_heap(m_frames.begin(), m_frames.end(), Later());
        }
        return;
    }
    m_others->Insert(ev);
}

bool
RoceFrameScheduler::IsEmpty() const
{
    return m_heads.empty() && m_frames.empty() && m_others->IsEmpty();
}

Scheduler::Event
RoceFrameScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    if (!FrameFirst())
    {
        return m_others->PeekNext();
    }
    return LaneFirst() ? m_lanes[m_heads.front().lane].Front().Event() : m_frames.front().Event();
}

Scheduler::Event
RoceFrameScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (!FrameFirst())
    {
        return m_others->RemoveNext();
    }
    if (LaneFirst())
    {
        Lane& lane = m_lanes[m_heads.front().lane];
        const Frame out = lane.Front();
        lane.PopFront();
        if (lane.count > 0)
        {
            m_heads.front() = Head(lane.Front(), m_heads.front().lane);
        }
        else
        {
            m_heads.front() = m_heads.back();
            m_heads.pop_back();
        }
        SiftDownHead();
        PrefetchAround(out);
        return out.Event();
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
    if (it != m_frames.end())
    {
        m_frames.erase(it);
        std::make_heap(m_frames.begin(), m_frames.end(), Later());
        return;
    }
    const auto* arrival = static_cast<const RoceFrameArrival*>(ev.impl);
    Lane& lane = m_lanes[LaneOf(arrival->GetKey().node, arrival->GetKey().ifIndex)];
    for (uint32_t i = 0; i < lane.count; ++i)
    {
        if (lane.At(i).uid == ev.key.m_uid)
        {
            lane.Erase(i);
            RebuildHeads();
            return;
        }
    }
    NS_ASSERT_MSG(false, "the removed arrival waits in no heap and no lane");
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
