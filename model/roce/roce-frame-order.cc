/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-frame-order.h"

#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFrameScheduler");

NS_OBJECT_ENSURE_REGISTERED(RoceFrameScheduler);

RoceFrameScheduler* RoceFrameScheduler::s_current = nullptr;
const RoceFrameKey* RoceFrameScheduler::s_next = nullptr;

bool
RoceFrameScheduler::Order::operator<(const Order& o) const
{
    return std::tie(ts, other, key.node, key.ifIndex, key.seq, uid) <
           std::tie(o.ts, o.other, o.key.node, o.key.ifIndex, o.key.seq, o.uid);
}

TypeId
RoceFrameScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceFrameScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceFrameScheduler>();
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
RoceFrameScheduler::Use()
{
    if (!s_current)
    {
        ObjectFactory factory;
        factory.SetTypeId(GetTypeId());
        Simulator::SetScheduler(factory);
    }
}

bool
RoceFrameScheduler::HasEvents()
{
    return s_current && !s_current->IsEmpty();
}

RoceFrameScheduler::Arrival::Arrival(const RoceFrameKey& key)
{
    s_next = &key;
}

RoceFrameScheduler::Arrival::~Arrival()
{
    s_next = nullptr;
}

void
RoceFrameScheduler::Insert(const Scheduler::Event& ev)
{
    Order order{ev.key.m_ts, 1, RoceFrameKey{}, ev.key.m_uid};
    if (s_next)
    {
        order.other = 0;
        order.key = *s_next;
        s_next = nullptr;
    }
    m_events.emplace(order, ev);
}

bool
RoceFrameScheduler::IsEmpty() const
{
    return m_events.empty();
}

Scheduler::Event
RoceFrameScheduler::PeekNext() const
{
    NS_ASSERT(!m_events.empty());
    return m_events.begin()->second;
}

Scheduler::Event
RoceFrameScheduler::RemoveNext()
{
    NS_ASSERT(!m_events.empty());
    auto first = m_events.begin();
    Scheduler::Event ev = first->second;
    m_events.erase(first);
    return ev;
}

void
RoceFrameScheduler::Remove(const Scheduler::Event& ev)
{
    auto it = m_events.find(Order{ev.key.m_ts, 1, RoceFrameKey{}, ev.key.m_uid});
    if (it == m_events.end())
    {
        for (it = m_events.begin(); it != m_events.end(); ++it)
        {
            if (it->second.key.m_uid == ev.key.m_uid)
            {
                break;
            }
        }
    }
    NS_ASSERT(it != m_events.end());
    m_events.erase(it);
}

} // namespace ns3
