/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_IDEAL_FCT_H
#define ROCE_IDEAL_FCT_H

#include "roce-wire.h"

#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Ideal flow completion time of an RDMA WRITE on the RoCE model: the FCT of the flow
 * alone in the network, a lower bound of the measured one (fct.txt's last column, the
 * results database's flow slowdown).
 *
 * Ideal FCT = base RTT + data serialisation, where
 *  - base RTT = sum over the path of 2 x link latency + the wire time of one ACK on each hop
 *    back (ACK wire bytes 86);
 *  - data serialisation = the store-and-forward pipeline at the link rates: all data packets
 *    through the slowest hop, the first packet through the hops before it and the last packet
 *    through the hops after it; wire bytes per packet = payload + RoceWire::DATA_OVERHEAD
 *    (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, preamble/SFD 8, IFG 12) +
 *    RoceWire::RETH_BYTES on the first packet. Under the HPCC family's framing
 *    (RoceWire::HPCC_FAMILY) a packet counts payload + 48 (Ethernet 14, IPv4 20, UDP 8, sequence 6:
 *    what the family's own ideal FCT counts) and an ACK RoceWire::FAMILY_ACK_MIN (48), no RETH, so
 *    that slowdowns compare with the family's over the same ideal.
 * Each wire time is rounded down to whole ns: RoceNetDevice carries each frame's rounding
 * error to the next, so a run of frames takes at least that long.
 * The path is the one tn_routes_path picks with flow hash 0 (symmetric shortest paths have
 * the same rates and latencies on every ECMP choice).
 *
 * \param topo topology
 * \param routes its routes; they must reach dst from src (aborts otherwise)
 * \param src source node
 * \param dst destination node
 * \param bytes message size
 * \param mtu payload bytes per packet
 * \param framing how the links count a packet's bytes (RoceNetDevice::Framing)
 * \return ideal FCT in ns
 */
uint64_t RoceIdealFctNs(const tn_topology* topo,
                        const tn_routes* routes,
                        uint32_t src,
                        uint32_t dst,
                        uint64_t bytes,
                        uint32_t mtu,
                        RoceWire::Framing framing = RoceWire::ETHERNET);

} // namespace ns3

#endif // ROCE_IDEAL_FCT_H
