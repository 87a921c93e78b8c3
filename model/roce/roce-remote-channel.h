/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_REMOTE_CHANNEL_H
#define ROCE_REMOTE_CHANNEL_H

#include "roce-channel.h"

namespace ns3
{

/**
 * \ingroup training-net
 * A RoCE link whose two ends are on different MPI ranks (nodes with different system ids),
 * as ns-3's PointToPointRemoteChannel is for point-to-point links. A frame sent toward the
 * other rank is serialised and handed to ns-3's MpiInterface with its arrival time (start of
 * transmission + wire time + Delay), so every frame (data, ACK, NAK, CNP, PFC PAUSE) arrives at
 * the same simulated time as on a local RoceChannel. The receiving device gets the frame
 * through the MpiReceiver aggregated to it (RoceLinkHelper does this).
 *
 * The frame carries its RoceFrameKey and reaches the other rank one time step before it
 * arrives (when its wire time is at least one step, so that is still a delay after now): that
 * rank then schedules the arrival with its key before running any event of the arrival's
 * instant, and RoceFrameScheduler orders it among that instant's events as in one process.
 *
 * Delay is the lookahead of ns-3's distributed engines: it must be positive.
 * Built only where ns-3 has its mpi module.
 */
class RoceRemoteChannel : public RoceChannel
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    bool TransmitStart(const Ptr<Packet>& frame,
                       RoceNetDevice* src,
                       Time txTime,
                       bool ethernet) override;

    /** \return false: a frame to another rank goes as its bytes */
    bool CarriesBareFrames() const override
    {
        return false;
    }

    /**
     * Hand a frame that came from another rank (the MpiReceiver's callback) to its device,
     * counted as received.
     * \param device the receiving device \param frame the frame
     */
    static void ReceiveFromRank(Ptr<RoceNetDevice> device, Ptr<Packet> frame);

    /**
     * \return frames this process sent to other ranks minus those it received from them: summed
     * over the ranks, the frames still on their way between ranks (in MPI, or queued and not
     * yet received), which a rank's own event queue does not show
     */
    static int64_t GetFramesInFlight();
};

} // namespace ns3

#endif // ROCE_REMOTE_CHANNEL_H
