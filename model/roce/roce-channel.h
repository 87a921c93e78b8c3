/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "roce-frame-order.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup training-net
 * Full-duplex point-to-point channel between two RoceNetDevices with a propagation Delay.
 * A frame handed over at the start of its transmission arrives at the peer after its wire
 * time plus Delay (the Packet object itself is passed on, not copied).
 */
class RoceChannel : public Channel
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceChannel();

    /**
     * \param dev device to attach (at most two)
     */
    void Attach(Ptr<RoceNetDevice> dev);
    /**
     * Deliver a frame to the peer of src.
     * \param frame full frame (Ethernet header on), or the IPv4 packet alone if !ethernet
     * \param src sending device
     * \param txTime wire time of the frame
     * \param ethernet whether the frame carries its Ethernet header
     * \return false if there is no peer
     */
    virtual bool TransmitStart(const Ptr<Packet>& frame,
                               RoceNetDevice* src,
                               Time txTime,
                               bool ethernet);

    /**
     * \return whether frames may cross without their Ethernet header (true here: the peer
     * receives the Packet object itself; a cable to another rank needs the real bytes)
     */
    virtual bool CarriesBareFrames() const
    {
        return true;
    }

    /**
     * \param dev one end
     * \return the other end (0 if none)
     */
    Ptr<RoceNetDevice> GetPeer(Ptr<const RoceNetDevice> dev) const;

    /**
     * GetPeer without a Ptr's reference count (at every frame).
     * \param dev one end \return the other end (0 if none)
     */
    RoceNetDevice* PeekPeer(const RoceNetDevice* dev) const
    {
        if (m_n < 2)
        {
            return nullptr;
        }
        return PeekPointer(m_dev[0]) == dev ? PeekPointer(m_dev[1]) : PeekPointer(m_dev[0]);
    }

    /** \return propagation delay */
    Time GetDelay() const
    {
        return m_delay;
    }

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

    /**
     * \param src the sending end
     * \return the tie-break key of the frame src sends now (RoceFrameScheduler); counts it
     */
    RoceFrameKey NextKey(const RoceNetDevice* src);

  private:
    /**
     * \param end 0 or 1 \return the node id and interface index of that end, read once (the
     * frames' keys and the arrivals' context need them at every frame)
     */
    const RoceFrameKey& EndKey(std::size_t end);

    Time m_delay;                     //!< propagation delay
    Ptr<RoceNetDevice> m_dev[2];      //!< the two ends (a point-to-point link has exactly two)
    std::size_t m_n{0};               //!< attached devices
    uint64_t m_sent[2]{0, 0};         //!< frames each end sent (the sequence of RoceFrameKey)
    RoceFrameKey m_end[2];            //!< EndKey: node and interface of each end (seq unused)
    bool m_endKnown[2]{false, false}; //!< m_end read
};

} // namespace ns3

#endif // ROCE_CHANNEL_H
