/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-event-buckets.h"

#include "roce-frame-order.h"

#include "ns3/assert.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceEventBuckets);

RoceEventBuckets* RoceEventBuckets::s_current = nullptr;

TypeId
RoceEventBuckets::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceEventBuckets")
                            .SetParent<Scheduler>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceEventBuckets>();
    return tid;
}

RoceEventBuckets::RoceEventBuckets()
{
    s_current = this;
}

RoceEventBuckets::~RoceEventBuckets()
{
    if (s_current == this)
    {
        s_current = nullptr;
    }
}

void
RoceEventBuckets::Use()
{
    if (s_current || RoceFrameScheduler::InUse() || !RoceFrameScheduler::SchedulerTypeIsDefault())
    {
        return;
    }
    ObjectFactory factory;
    factory.SetTypeId(GetTypeId());
    Simulator::SetScheduler(factory);
}

bool
RoceEventBuckets::InUse()
{
    return s_current != nullptr;
}

bool
RoceEventBuckets::SetBetweenEvents(std::function<void()> hook, uint32_t every)
{
    if (!s_current)
    {
        return false;
    }
    const bool set = hook && every > 0;
    s_current->m_between = set ? std::move(hook) : nullptr;
    s_current->m_betweenEvery = set ? every : 0;
    s_current->m_betweenLeft = s_current->m_betweenEvery;
    return set;
}

RoceEventBuckets::Bucket&
RoceEventBuckets::BucketOf(uint64_t ts)
{
    if (m_last != UINT32_MAX && m_lastTs == ts)
    {
        return m_buckets[m_last];
    }
    auto it = m_byTime.lower_bound(ts);
    if (it == m_byTime.end() || it->first != ts)
    {
        uint32_t index;
        if (m_free.empty())
        {
            index = static_cast<uint32_t>(m_buckets.size());
            m_buckets.emplace_back();
        }
        else
        {
            index = m_free.back();
            m_free.pop_back();
        }
        it = m_byTime.emplace_hint(it, ts, index);
    }
    m_lastTs = ts;
    m_last = it->second;
    return m_buckets[m_last];
}

void
RoceEventBuckets::Insert(const Scheduler::Event& ev)
{
    Bucket& b = BucketOf(ev.key.m_ts);
    if (b.events.size() > b.head && ev.key.m_uid < b.events.back().key.m_uid)
    {
        auto at = std::upper_bound(b.events.begin() + static_cast<std::ptrdiff_t>(b.head),
                                   b.events.end(),
                                   ev,
                                   [](const Scheduler::Event& a, const Scheduler::Event& e) {
                                       return a.key.m_uid < e.key.m_uid;
                                   });
        b.events.insert(at, ev);
    }
    else
    {
        b.events.push_back(ev);
    }
    ++m_count;
}

bool
RoceEventBuckets::IsEmpty() const
{
    return m_count == 0;
}

Scheduler::Event
RoceEventBuckets::PeekNext() const
{
    NS_ASSERT(m_count > 0);
    const Bucket& b = m_buckets[m_byTime.begin()->second];
    return b.events[b.head];
}

void
RoceEventBuckets::Release(std::map<uint64_t, uint32_t>::iterator it)
{
    Bucket& b = m_buckets[it->second];
    b.events.clear(); // its capacity serves a later time
    b.head = 0;
    m_free.push_back(it->second);
    if (m_last == it->second)
    {
        m_last = UINT32_MAX;
    }
    m_byTime.erase(it);
}

const RoceHintedEvent*
RoceEventBuckets::AsHinted(const EventImpl* impl)
{
    const std::type_info* kind = &typeid(*impl);
    for (uint32_t k = 0; k < 4; k++)
    {
        if (m_kinds[k] == kind)
        {
            return m_kindHinted[k] ? static_cast<const RoceHintedEvent*>(impl) : nullptr;
        }
    }
    const RoceHintedEvent* hinted = dynamic_cast<const RoceHintedEvent*>(impl);
    m_kinds[m_nextKind] = kind;
    m_kindHinted[m_nextKind] = hinted != nullptr;
    m_nextKind = (m_nextKind + 1) % 4;
    return hinted;
}

Scheduler::Event
RoceEventBuckets::RemoveNext()
{
    NS_ASSERT(m_count > 0);
    Bucket& b = m_buckets[m_byTime.begin()->second];
    const Scheduler::Event ev = b.events[b.head++];
    --m_count;
    // a flow-level event is a cache miss away (its object, then what it names): the ones a few
    // places on are asked for now, to be in cache when their turn comes
    if (b.head + PREFETCH_DISTANCE < b.events.size())
    {
        __builtin_prefetch(b.events[b.head + PREFETCH_DISTANCE].impl);
    }
    if (b.head + HINT_DISTANCE < b.events.size())
    {
        if (const RoceHintedEvent* hinted = AsHinted(b.events[b.head + HINT_DISTANCE].impl))
        {
            for (const void* hint : hinted->hints)
            {
                if (hint)
                {
                    __builtin_prefetch(hint);
                }
            }
        }
    }
    for (uint32_t stage = 0; stage < 3; stage++)
    {
        if (b.head + STAGE_DISTANCE[stage] < b.events.size())
        {
            if (const RoceHintedEvent* hinted =
                    AsHinted(b.events[b.head + STAGE_DISTANCE[stage]].impl))
            {
                hinted->Prefetch(stage);
            }
        }
    }
    if (b.head == b.events.size())
    {
        Release(m_byTime.begin());
    }
    if (m_betweenEvery > 0 && --m_betweenLeft == 0)
    {
        m_betweenLeft = m_betweenEvery;
        m_between();
    }
    return ev;
}

void
RoceEventBuckets::Remove(const Scheduler::Event& ev)
{
    auto it = m_byTime.find(ev.key.m_ts);
    NS_ASSERT_MSG(it != m_byTime.end(), "the removed event's time has no bucket");
    Bucket& b = m_buckets[it->second];
    auto at =
        std::lower_bound(b.events.begin() + static_cast<std::ptrdiff_t>(b.head),
                         b.events.end(),
                         ev.key.m_uid,
                         [](const Scheduler::Event& a, uint32_t uid) { return a.key.m_uid < uid; });
    NS_ASSERT_MSG(at != b.events.end() && at->key.m_uid == ev.key.m_uid,
                  "the removed event waits in its time's bucket");
    b.events.erase(at);
    --m_count;
    if (b.head == b.events.size())
    {
        Release(it);
    }
}

} // namespace ns3
