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
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <tuple>
#include <typeinfo>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFrameScheduler");

NS_OBJECT_ENSURE_REGISTERED(RoceFrameScheduler);

RoceFrameScheduler* RoceFrameScheduler::s_current = nullptr;

RoceFrameArrival::RoceFrameArrival(const RoceFrameKey& key,
                                   Ptr<RoceNetDevice> device,
                                   Ptr<Packet> frame)
    : m_key(key),
      m_device(device),
      m_frame(frame)
{
}

RoceFrameArrival::~RoceFrameArrival() = default;

void
RoceFrameArrival::Notify()
{
    m_device->Receive(m_frame);
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
                          StringValue("ns3::MapScheduler"),
                          MakeStringAccessor(&RoceFrameScheduler::SetOtherEvents),
                          MakeStringChecker());
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
    // internal invariant: the queue is empty while the simulation sets its scheduler up
    NS_ABORT_MSG_IF(m_others && !m_others->IsEmpty(),
                    "RoceFrameScheduler: OtherEvents set while events wait");
    TypeId tid;
    // a name that is no other ns-3 scheduler (this one included) falls back to ns-3's default
    if (!TypeId::LookupByNameFailSafe(type, &tid) || !tid.IsChildOf(Scheduler::GetTypeId()) ||
        tid == GetTypeId())
    {
        tid = TypeId::LookupByName("ns3::MapScheduler");
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    m_others = factory.Create<Scheduler>();
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
        factory.Set("OtherEvents", chosen);
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
    return m_others->IsEmpty() || m_frames.begin()->first.ts <= m_others->PeekNext().key.m_ts;
}

void
RoceFrameScheduler::Insert(const Scheduler::Event& ev)
{
    // typeid of a final class: one comparison, no walk of a class hierarchy
    if (typeid(*ev.impl) == typeid(RoceFrameArrival))
    {
        const auto* arrival = static_cast<const RoceFrameArrival*>(ev.impl);
        m_frames.emplace(Order{ev.key.m_ts, arrival->GetKey(), ev.key.m_uid}, ev);
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
    return FrameFirst() ? m_frames.begin()->second : m_others->PeekNext();
}

Scheduler::Event
RoceFrameScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (!FrameFirst())
    {
        return m_others->RemoveNext();
    }
    auto first = m_frames.begin();
    Scheduler::Event ev = first->second;
    m_frames.erase(first);
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
    const auto* arrival = static_cast<const RoceFrameArrival*>(ev.impl);
    auto it = m_frames.find(Order{ev.key.m_ts, arrival->GetKey(), ev.key.m_uid});
    NS_ASSERT(it != m_frames.end());
    m_frames.erase(it);
}

} // namespace ns3
