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

RoceFrameKey
RoceChannel::NextKey(Ptr<const RoceNetDevice> src)
{
    const std::size_t end = PeekPointer(m_dev[0]) == PeekPointer(src) ? 0 : 1;
    return RoceFrameKey{src->GetNode()->GetId(), src->GetIfIndex(), m_sent[end]++};
}

bool
RoceChannel::TransmitStart(Ptr<Packet> frame, Ptr<RoceNetDevice> src, Time txTime, bool ethernet)
{
    NS_LOG_FUNCTION(this << frame << src << txTime << ethernet);
    if (m_n < 2)
    {
        return false;
    }
    RoceNetDevice* dst = (m_dev[0] == src) ? PeekPointer(m_dev[1]) : PeekPointer(m_dev[0]);
    const RoceFrameKey key = NextKey(src);
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + m_delay,
                                   new RoceFrameArrival(key, dst, frame, ethernet));
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
    Channel::DoDispose();
}

} // namespace ns3
