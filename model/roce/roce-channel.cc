/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-channel.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceChannel")
                            .SetParent<Channel>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the link",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&RoceChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

RoceChannel::RoceChannel()
{
    NS_LOG_FUNCTION(this);
}

void
RoceChannel::Attach(Ptr<RoceNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_n >= 2, "RoceChannel: a point-to-point link has only two ends");
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!dev->GetNode(), "RoceChannel: set the device's node before attaching");
    m_dev[m_n++] = dev;
    // equal-time frame arrivals in the order of their keys, whatever the number of ranks
    RoceFrameScheduler::Use();
}

const RoceFrameKey&
RoceChannel::EndKey(std::size_t end)
{
    if (!m_endKnown[end])
    {
        m_end[end] = RoceFrameKey{m_dev[end]->GetNode()->GetId(), m_dev[end]->GetIfIndex(), 0};
        m_endKnown[end] = true;
    }
    return m_end[end];
}

RoceFrameKey
RoceChannel::NextKey(const RoceNetDevice* src)
{
    const std::size_t end = PeekPointer(m_dev[0]) == src ? 0 : 1;
    const RoceFrameKey& e = EndKey(end);
    return RoceFrameKey{e.node, e.ifIndex, m_sent[end]++};
}

bool
RoceChannel::TransmitStart(const Ptr<Packet>& frame, RoceNetDevice* src, Time txTime, bool ethernet)
{
    NS_LOG_FUNCTION(this << frame << src << txTime << ethernet);
    if (m_n < 2)
    {
        return false;
    }
    const std::size_t to = PeekPointer(m_dev[0]) == src ? 1 : 0;
    const RoceFrameKey key = NextKey(src);
    Simulator::ScheduleWithContext(EndKey(to).node,
                                   txTime + m_delay,
                                   new RoceFrameArrival(key, m_dev[to], frame, ethernet));
    return true;
}

Ptr<RoceNetDevice>
RoceChannel::GetPeer(Ptr<const RoceNetDevice> dev) const
{
    if (m_n < 2)
    {
        return nullptr;
    }
    return (PeekPointer(m_dev[0]) == PeekPointer(dev)) ? m_dev[1] : m_dev[0];
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_n;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    NS_ASSERT(i < m_n);
    return m_dev[i];
}

void
RoceChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    m_n = 0;
    m_endKnown[0] = false;
    m_endKnown[1] = false;
    Channel::DoDispose();
}

} // namespace ns3
