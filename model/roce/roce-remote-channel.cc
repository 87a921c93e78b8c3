/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-remote-channel.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceRemoteChannel);

namespace
{
/// frames sent to other ranks minus frames received from them (one simulation per process)
int64_t g_framesInFlight = 0;
} // namespace

void
RoceRemoteChannel::ReceiveFromRank(Ptr<RoceNetDevice> device, Ptr<Packet> frame)
{
    --g_framesInFlight;
    device->Receive(frame);
}

int64_t
RoceRemoteChannel::GetFramesInFlight()
{
    return g_framesInFlight;
}

TypeId
RoceRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRemoteChannel")
                            .SetParent<RoceChannel>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceRemoteChannel>();
    return tid;
}

bool
RoceRemoteChannel::TransmitStart(Ptr<Packet> frame, Ptr<RoceNetDevice> src, Time txTime)
{
    NS_LOG_FUNCTION(this << frame << src << txTime);
    Ptr<RoceNetDevice> dst = GetPeer(src);
    if (!dst)
    {
        return false;
    }
    Ptr<Node> node = dst->GetNode();
    if (node->GetSystemId() == MpiInterface::GetSystemId())
    {
        return RoceChannel::TransmitStart(frame, src, txTime);
    }
    // serialised now: the sender keeps its frame for its own traces
    MpiInterface::SendPacket(frame,
                             Simulator::Now() + txTime + GetDelay(),
                             node->GetId(),
                             dst->GetIfIndex());
    ++g_framesInFlight;
    return true;
}

} // namespace ns3
