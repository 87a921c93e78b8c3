/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-wire.h"

#include "roce-header.h"

#include "ns3/packet.h"

#include <algorithm>

namespace ns3
{

uint32_t
RoceWire::FamilyTelemetryBytes(uint8_t mode)
{
    switch (mode)
    {
    case RoceIntHeader::HOPS:
    case RoceIntHeader::HOPS_WIDE:
        return FAMILY_INT_HOPS;
    case RoceIntHeader::TIMESTAMP:
        return 8;
    case RoceIntHeader::PINT:
        return 2;
    default:
        return 0;
    }
}

uint32_t
RoceWire::WireBytes(Framing framing, const Packet& l3)
{
    const uint32_t size = l3.GetSize();
    if (framing == RoceWire::ETHERNET)
    {
        return size + ETHERNET_FRAMING;
    }
    // IPv4 20 + UDP 8 (RoceIpUdpHeader), BTH 12, then RETH 16 / immediate 4 by the opcode,
    // then the INT header, whose slot count (HOPS modes) is in its second byte
    constexpr uint32_t IP_UDP = RoceIpUdpHeader::SIZE;
    constexpr uint32_t HEAD = IP_UDP + RoceBthHeader::SIZE + RoceRethHeader::SIZE + 4 + 2;
    uint8_t b[HEAD] = {};
    const uint32_t have = l3.CopyData(b, HEAD);
    const uint32_t other = size + 2; // PPP
    if (have < IP_UDP + RoceBthHeader::SIZE || b[9] != 17 ||
        ((b[22] << 8) | b[23]) != RoceIpUdpHeader::ROCE_UDP_PORT)
    {
        return other;
    }
    const uint8_t op = b[IP_UDP];
    const uint8_t w1 = b[IP_UDP + 4];
    const uint8_t mode = static_cast<uint8_t>(((w1 >> 4) & 3) | (((w1 >> 3) & 1) << 2));
    if (op == RoceBthHeader::RC_ACK)
    {
        return std::max(FAMILY_ACK_HEADERS + FamilyTelemetryBytes(mode), FAMILY_ACK_MIN);
    }
    if (op == RoceBthHeader::CNP)
    {
        return FAMILY_CNP;
    }
    uint32_t at = IP_UDP + RoceBthHeader::SIZE;
    at += RoceBthHeader::HasReth(op) ? RoceRethHeader::SIZE : 0;
    at += RoceBthHeader::HasImmediate(op) ? RoceImmHeader::SIZE : 0;
    uint32_t ours = 0;
    switch (mode)
    {
    case RoceIntHeader::HOPS:
    case RoceIntHeader::HOPS_WIDE: {
        if (have < at + 2)
        {
            return other;
        }
        const uint32_t slots = b[at + 1] >> 4;
        ours = 2 + slots * (RoceIntHeader::HOP_SIZE +
                            (mode == RoceIntHeader::HOPS_WIDE ? RoceIntHeader::WIDE_RATE_SIZE : 0));
        break;
    }
    case RoceIntHeader::TIMESTAMP:
        ours = 8;
        break;
    case RoceIntHeader::PINT:
        ours = 2;
        break;
    default:
        break;
    }
    const uint32_t headers = at + ours + RoceIcrcTrailer::SIZE;
    if (size < headers)
    {
        return other;
    }
    return size - headers + FAMILY_DATA_HEADERS + FamilyTelemetryBytes(mode);
}

uint32_t
RoceWire::PfcWireBytes(Framing framing, uint32_t frameBytes)
{
    return framing == RoceWire::ETHERNET ? frameBytes + ETHERNET_FRAMING - 14 : FAMILY_PFC;
}

} // namespace ns3
