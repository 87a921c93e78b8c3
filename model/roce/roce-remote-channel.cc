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

#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceRemoteChannel);

namespace
{
/// frames sent to other ranks minus frames received from them (one simulation per process)
int64_t g_framesInFlight = 0;

/// bytes appended to a frame between ranks: its RoceFrameKey and whether it comes early
constexpr uint32_t kTrailer = 4 + 4 + 8 + 1;
} // namespace

void
RoceRemoteChannel::ReceiveFromRank(Ptr<RoceNetDevice> device, Ptr<Packet> frame)
{
    --g_framesInFlight;
    uint8_t trailer[kTrailer];
    frame->CreateFragment(frame->GetSize() - kTrailer, kTrailer)->CopyData(trailer, kTrailer);
    frame->RemoveAtEnd(kTrailer);
    RoceFrameKey key;
    std::memcpy(&key.node, trailer, 4);
    std::memcpy(&key.ifIndex, trailer + 4, 4);
    std::memcpy(&key.seq, trailer + 8, 8);
    if (trailer[16] == 0)
    {
        // shorter on the wire than one time step: it arrives now, where the engine put it
        device->Receive(frame);
        return;
    }
    // one time step early: the arrival is in this rank's queue before any event of its instant
    // runs, ordered by its key as in one process
    RoceFrameScheduler::Arrival arrival(key);
    Simulator::ScheduleWithContext(device->GetNode()->GetId(),
                                   TimeStep(1),
                                   &RoceNetDevice::Receive,
                                   device,
                                   frame);
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
    // Handed over one time step before it arrives when that is still at least one delay after
    // now (so within the engines' lookahead: the receiving rank has not reached that instant),
    // with the key the receiver orders it by (ReceiveFromRank)
    const RoceFrameKey key = NextKey(src);
    const Time arrival = Simulator::Now() + txTime + GetDelay();
    const bool early = txTime.GetTimeStep() >= 1;
    uint8_t trailer[kTrailer];
    std::memcpy(trailer, &key.node, 4);
    std::memcpy(trailer + 4, &key.ifIndex, 4);
    std::memcpy(trailer + 8, &key.seq, 8);
    trailer[16] = early ? 1 : 0;
    // a copy, serialised now: the sender keeps its frame for its own traces
    Ptr<Packet> sent = frame->Copy();
    sent->AddAtEnd(Create<Packet>(trailer, kTrailer));
    MpiInterface::SendPacket(sent,
                             early ? arrival - TimeStep(1) : arrival,
                             node->GetId(),
                             dst->GetIfIndex());
    ++g_framesInFlight;
    return true;
}

} // namespace ns3
