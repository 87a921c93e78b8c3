/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a RoCE queue pair puts on the wire, shared by packet level (RdmaNic), flow level
 * (FlowNic) and the npu layer's estimates: header bytes per packet, and the queue pair
 * numbers and UDP source ports that the ECMP hash sees (so that a flow of flow level takes
 * the path the packets of its queue pair take).
 */
#ifndef ROCE_WIRE_H
#define ROCE_WIRE_H

#include <cstdint>

namespace ns3
{

class Packet;

/**
 * \ingroup training-net
 * \brief The wire format of RoCEv2 data as the NICs of both levels send it.
 */
struct RoceWire
{
    /**
     * How a link counts the bytes of a frame it carries (RoceNetDevice::Framing). The frames
     * themselves (headers, pcap) are RoCEv2 on Ethernet under both; only their time on the
     * wire, the bytes a port reports to INT and PINT, and the NICs' pacing follow the choice.
     */
    enum Framing : uint8_t
    {
        /// RoCEv2 on Ethernet: the L3 packet + Ethernet header 14, FCS 4, preamble/SFD 8,
        /// IFG 12.
        ETHERNET = 0,
        /// The HPCC family's simulators' packets (alibaba-edu HPCC, inet-tub
        /// ns3-datacenter): PPP 2 + IPv4 20 + UDP 8 + the family's sequence header 6 + its
        /// INT header + payload, an ACK PPP 2 + IPv4 20 + its 12-byte header + the echoed
        /// INT header padded to 48, no RoCE transport headers, no FCS, preamble or gap
        /// (WireBytes).
        HPCC_FAMILY = 1,
    };

    /**
     * Per-packet header bytes on the wire besides the payload: Ethernet 14, IPv4 20, UDP 8,
     * BTH 12, ICRC 4, FCS 4, preamble/SFD 8, IFG 12 = 82 (the first packet of a message
     * carries 16 more: RETH).
     */
    static constexpr uint32_t DATA_OVERHEAD = 82;
    /// RETH bytes on the first packet of a message.
    static constexpr uint32_t RETH_BYTES = 16;
    /// Ethernet framing around an L3 packet: header 14, FCS 4, preamble/SFD 8, IFG 12.
    static constexpr uint32_t ETHERNET_FRAMING = 38;
    /// The HPCC family's data packet besides payload and INT: PPP 2, IPv4 20, UDP 8, its
    /// sequence header (SeqTsHeader: sequence 4, priority group 2) 6.
    static constexpr uint32_t FAMILY_DATA_HEADERS = 36;
    /// The HPCC family's ACK or NACK besides the echoed INT: PPP 2, IPv4 20, its qbbHeader
    /// (ports 2 + 2, flags 2, priority group 2, sequence 4) 12.
    static constexpr uint32_t FAMILY_ACK_HEADERS = 34;
    /// The family pads an ACK's IPv4 payload to 60 - 14 - 20 = 26 bytes: PPP 2 + IPv4 20 + 26.
    static constexpr uint32_t FAMILY_ACK_MIN = 48;
    /// The family's CNP: PPP 2, IPv4 20, its CnHeader 8.
    static constexpr uint32_t FAMILY_CNP = 30;
    /// The family's PFC frame: PPP 2, IPv4 20, its PauseHeader 9.
    static constexpr uint32_t FAMILY_PFC = 31;
    /// The family's INT header (IntHeader) in HPCC's mode: 5 hops of 8 bytes + a 2-byte count,
    /// whatever the path's length.
    static constexpr uint32_t FAMILY_INT_HOPS = 42;

    /**
     * \param mode a telemetry mode (RoceIntHeader::Mode)
     * \return the bytes of the HPCC family's INT header in that mode: HPCC's hops 42
     * (FAMILY_INT_HOPS, also for HOPS_WIDE), TIMELY's timestamp 8, PINT's 2, none 0
     */
    static uint32_t FamilyTelemetryBytes(uint8_t mode);

    /**
     * Bytes an L3 packet of this model (IPv4 header .. ICRC) takes on a link under a framing.
     * Ethernet: its size + ETHERNET_FRAMING. The HPCC family's: a RoCE data packet its
     * payload + FAMILY_DATA_HEADERS + FamilyTelemetryBytes (no BTH, RETH, immediate or
     * ICRC; this model's INT header replaced by the family's), an ACK or NACK
     * max(FAMILY_ACK_HEADERS + FamilyTelemetryBytes, FAMILY_ACK_MIN), a CNP FAMILY_CNP, any
     * other IPv4 packet its size + 2 (PPP).
     * \param framing the framing \param l3 the packet \return wire bytes
     */
    static uint32_t WireBytes(Framing framing, const Packet& l3);

    /**
     * \param framing the framing \param frameBytes a PFC frame's bytes (Ethernet header
     * .. padding, no FCS) \return its wire bytes: + FCS, preamble and IFG on Ethernet,
     * FAMILY_PFC under the family's
     */
    static uint32_t PfcWireBytes(Framing framing, uint32_t frameBytes);

    /// Lanes per (peer, priority): the lane takes the 24-bit QP number's bits above node and
    /// priority.
    static constexpr uint32_t MAX_LANES = 31;

    /**
     * QP numbers are 24 bits: 1 + peer * 8 + priority + lane * 2^19 (peer < 65536).
     * \param peer node id of the peer \param priority 0..7 \param lane 0..MAX_LANES-1
     * \return the QP number of a node's QP toward (peer, priority, lane)
     */
    static constexpr uint32_t Qpn(uint32_t peer, uint8_t priority, uint32_t lane = 0)
    {
        return 1 + peer * 8 + priority + (lane << 19);
    }

    /**
     * \param local node id of the NIC \param qpn queue pair number
     * \return the UDP source port hashed from them (49152..65535, splitmix64)
     */
    static uint16_t SourcePort(uint32_t local, uint32_t qpn)
    {
        uint64_t x = ((static_cast<uint64_t>(local) << 32) | qpn) + 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        x ^= x >> 31;
        return static_cast<uint16_t>(49152 + (x % 16384));
    }

    /**
     * UDP source port of the queue pair of node `local` toward (peer, priority, lane): lane 0
     * has the port hashed from the queue pair number of lane 0, lane k the k-th port after it,
     * so the lanes of a (peer, priority) never share a port and a flow route can tell them
     * apart.
     * \param local node id of the NIC \param peer peer node id \param priority 0..7
     * \param lane lane \return the port (49152..65535)
     */
    static uint16_t LaneSourcePort(uint32_t local, uint32_t peer, uint8_t priority, uint32_t lane)
    {
        const uint32_t base = SourcePort(local, Qpn(peer, priority & 7)) - 49152u;
        return static_cast<uint16_t>(49152 + (base + lane) % 16384);
    }
};

} // namespace ns3

#endif // ROCE_WIRE_H
