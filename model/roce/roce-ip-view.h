/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_IP_VIEW_H
#define ROCE_IP_VIEW_H

#include "roce-header.h"

#include "ns3/packet.h"

#include <cstdint>
#include <cstring>

/**
 * \file
 * \ingroup training-net
 * The IPv4/UDP header at the front of a packet read as its 28 bytes (RoceIpView), and its
 * rewrite with a new TTL, DSCP or ECN written back as one header (RoceIpRewrite).
 *
 * A switch reads the front of every packet it receives: a RoceIpUdpHeader peeked costs a
 * Header's construction and destruction (the ns-3 libraries' log checks) and its
 * deserialization, about 300 instructions; the bytes copied and read where they are, about 80.
 * The view reads the fields where RoceIpUdpHeader::Deserialize reads them, so that both agree
 * on every packet, RoCE or other IPv4.
 */

namespace ns3
{

/**
 * \ingroup training-net
 * The first 28 bytes of an L3 packet: IPv4 without options, then the UDP (or TCP) ports.
 */
class RoceIpView
{
  public:
    /**
     * \param p an L3 packet (at least 28 bytes, as every packet a RoceNetDevice sends)
     */
    explicit RoceIpView(const Packet& p)
    {
        p.CopyData(m_b, RoceIpUdpHeader::SIZE);
    }

    /** \return source address, host order */
    uint32_t GetSourceRaw() const
    {
        return U32(12);
    }

    /** \return destination address, host order */
    uint32_t GetDestinationRaw() const
    {
        return U32(16);
    }

    /** \return UDP source port */
    uint16_t GetSourcePort() const
    {
        return U16(20);
    }

    /** \return UDP destination port */
    uint16_t GetDestinationPort() const
    {
        return U16(22);
    }

    /** \return DSCP */
    uint8_t GetDscp() const
    {
        return m_b[1] >> 2;
    }

    /** \return ECN codepoint */
    uint8_t GetEcn() const
    {
        return m_b[1] & 3;
    }

    /** \return time to live */
    uint8_t GetTtl() const
    {
        return m_b[8];
    }

    /** \return as RoceIpUdpHeader::IsRoce: UDP to the RoCEv2 port */
    bool IsRoce() const
    {
        return m_b[9] == 17 && GetDestinationPort() == RoceIpUdpHeader::ROCE_UDP_PORT;
    }

    /** \return as RoceIpUdpHeader::GetQueue */
    uint8_t GetQueue() const
    {
        const uint8_t dscp = GetDscp();
        if (IsRoce())
        {
            return dscp >= 8 ? 8 : dscp;
        }
        return dscp >> 3;
    }

    /** \return the 28 bytes */
    const uint8_t* GetBytes() const
    {
        return m_b;
    }

  private:
    /** \param at offset \return the big-endian 16 bits there */
    uint16_t U16(uint32_t at) const
    {
        return static_cast<uint16_t>((m_b[at] << 8) | m_b[at + 1]);
    }

    /** \param at offset \return the big-endian 32 bits there */
    uint32_t U32(uint32_t at) const
    {
        return (uint32_t(m_b[at]) << 24) | (uint32_t(m_b[at + 1]) << 16) |
               (uint32_t(m_b[at + 2]) << 8) | m_b[at + 3];
    }

    uint8_t m_b[RoceIpUdpHeader::SIZE]; //!< the bytes
};

/**
 * \ingroup training-net
 * A RoCE packet's IPv4/UDP header with a new TTL, DSCP and ECN, to replace the one read
 * (cut with Packet::RemoveAtStart, then added). Its bytes are those RoceIpUdpHeader writes for
 * the fields the NICs' packets carry (the other bytes as read, the IPv4 checksum computed
 * again), and its TypeId is RoceIpUdpHeader's, so that the packet metadata (Packet::
 * EnablePrinting) lists the same header. Write-only: the packet is read as a RoceIpUdpHeader.
 */
class RoceIpRewrite : public Header
{
  public:
    /**
     * \param view the header read \param ttl new TTL \param dscp new DSCP
     * \param ecn new ECN codepoint
     */
    RoceIpRewrite(const RoceIpView& view, uint8_t ttl, uint8_t dscp, uint8_t ecn)
    {
        std::memcpy(m_b, view.GetBytes(), RoceIpUdpHeader::SIZE);
        m_b[1] = static_cast<uint8_t>(((dscp & 0x3f) << 2) | (ecn & 3));
        m_b[8] = ttl;
        m_b[10] = 0;
        m_b[11] = 0;
        const uint16_t sum = RoceIpUdpHeader::Ipv4Checksum(m_b);
        m_b[10] = static_cast<uint8_t>(sum >> 8);
        m_b[11] = static_cast<uint8_t>(sum);
    }

    TypeId GetInstanceTypeId() const override
    {
        return RoceIpUdpHeader::GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        os << "IPv4/UDP rewritten: TTL " << unsigned(m_b[8]);
    }

    uint32_t GetSerializedSize() const override
    {
        return RoceIpUdpHeader::SIZE;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.Write(m_b, RoceIpUdpHeader::SIZE);
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        i.Read(m_b, RoceIpUdpHeader::SIZE);
        return RoceIpUdpHeader::SIZE;
    }

  private:
    uint8_t m_b[RoceIpUdpHeader::SIZE]; //!< the bytes
};

} // namespace ns3

#endif // ROCE_IP_VIEW_H
