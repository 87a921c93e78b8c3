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
#include "ns3/tag.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceRemoteChannel);

namespace
{
/// frames sent to other ranks minus frames received from them (one simulation per process)
int64_t g_framesInFlight = 0;

} // namespace

/**
 * \ingroup training-net
 * The RoceFrameKey of a frame between ranks and whether it is handed over one time step early.
 * A packet tag: ns-3 serialises tags with the packet and keeps the payload's zero-filled bytes
 * virtual (bytes appended to the frame would make MPI's message as long as the payload).
 * Registered when the program starts, so that every rank gives it the same TypeId uid.
 */
class RoceFrameKeyTag : public Tag
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceFrameKeyTag")
                                .SetParent<Tag>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<RoceFrameKeyTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 4 + 4 + 8 + 1;
    }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU32(key.node);
        i.WriteU32(key.ifIndex);
        i.WriteU64(key.seq);
        i.WriteU8(early ? 1 : 0);
    }

    void Deserialize(TagBuffer i) override
    {
        key.node = i.ReadU32();
        key.ifIndex = i.ReadU32();
        key.seq = i.ReadU64();
        early = i.ReadU8() != 0;
    }

    void Print(std::ostream& os) const override
    {
        os << "node=" << key.node << " if=" << key.ifIndex << " seq=" << key.seq
           << " early=" << early;
    }

    RoceFrameKey key;  //!< the frame's key
    bool early{false}; //!< handed over one time step before it arrives
};

NS_OBJECT_ENSURE_REGISTERED(RoceFrameKeyTag);

void
RoceRemoteChannel::ReceiveFromRank(Ptr<RoceNetDevice> device, Ptr<Packet> frame)
{
    --g_framesInFlight;
    RoceFrameKeyTag tag;
    const bool tagged = frame->RemovePacketTag(tag);
    if (!tagged || !tag.early)
    {
        // shorter on the wire than one time step: it arrives now, where the engine put it
        device->Receive(frame);
        return;
    }
    // one time step early: the arrival is in this rank's queue before any event of its instant
    // runs, ordered by its key as in one process
    Simulator::ScheduleWithContext(device->GetNode()->GetId(),
                                   TimeStep(1),
                                   new RoceFrameArrival(tag.key, device, frame));
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
RoceRemoteChannel::TransmitStart(const Ptr<Packet>& frame,
                                 RoceNetDevice* src,
                                 Time txTime,
                                 bool ethernet)
{
    NS_LOG_FUNCTION(this << frame << src << txTime << ethernet);
    // internal invariant: CarriesBareFrames is false, so every frame comes with its header
    NS_ASSERT(ethernet);
    Ptr<RoceNetDevice> dst = GetPeer(src);
    if (!dst)
    {
        return false;
    }
    Ptr<Node> node = dst->GetNode();
    if (node->GetSystemId() == MpiInterface::GetSystemId())
    {
        return RoceChannel::TransmitStart(frame, src, txTime, ethernet);
    }
    // Handed over one time step before it arrives when that is still at least one delay after
    // now (so within the engines' lookahead: the receiving rank has not reached that instant),
    // with the key the receiver orders it by (ReceiveFromRank)
    const RoceFrameKey key = NextKey(src);
    const Time arrival = Simulator::Now() + txTime + GetDelay();
    const bool early = txTime.GetTimeStep() >= 1;
    RoceFrameKeyTag tag;
    tag.key = key;
    tag.early = early;
    // a copy, serialised now: the sender keeps its frame for its own traces
    Ptr<Packet> sent = frame->Copy();
    sent->AddPacketTag(tag);
    MpiInterface::SendPacket(sent,
                             early ? arrival - TimeStep(1) : arrival,
                             node->GetId(),
                             dst->GetIfIndex());
    ++g_framesInFlight;
    return true;
}

} // namespace ns3
