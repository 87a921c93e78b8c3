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

/**
 * \ingroup training-net
 * \brief The wire format of RoCEv2 data as the NICs of both levels send it.
 */
struct RoceWire
{
    /**
     * Per-packet header bytes on the wire besides the payload: Ethernet 14, IPv4 20, UDP 8,
     * BTH 12, ICRC 4, FCS 4, preamble/SFD 8, IFG 12 = 82 (the first packet of a message
     * carries 16 more: RETH).
     */
    static constexpr uint32_t DATA_OVERHEAD = 82;
    /// RETH bytes on the first packet of a message.
    static constexpr uint32_t RETH_BYTES = 16;
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
