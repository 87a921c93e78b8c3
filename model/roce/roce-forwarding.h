/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The forwarding rule of RoCE nodes, one for both levels: RoceSwitch forwards packets by it
 * and FlowNetwork builds its flows' paths by it, so that a flow crosses the links the packets
 * of its queue pair cross.
 */
#ifndef ROCE_FORWARDING_H
#define ROCE_FORWARDING_H

#include "roce-hash.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Which way a flow (source and destination addresses, UDP ports) leaves a node.
 */
struct RoceForwarding
{
    static constexpr uint32_t NONE = 0xffffffff; //!< "no route"

    /**
     * The ECMP hash of a flow: MurmurHash3's finaliser chained over the seed, the addresses
     * and the ports.
     * \param seed the fabric's EcmpSeed \param srcIp source address \param dstIp destination
     * address \param sport UDP source port \param dport UDP destination port
     * \return the hash
     */
    static uint32_t EcmpHash(uint32_t seed,
                             uint32_t srcIp,
                             uint32_t dstIp,
                             uint16_t sport,
                             uint16_t dport)
    {
        uint32_t h = RoceMurmur3Finalize(seed ^ 0x9e3779b9u);
        h = RoceMurmur3Finalize(h ^ srcIp);
        h = RoceMurmur3Finalize(h ^ dstIp);
        return RoceMurmur3Finalize(h ^ ((uint32_t(sport) << 16) | dport));
    }

    /**
     * The next hop of a flow at a node: its flow route if one pins it, else the node's only
     * port (a host's single cable is its default route: hosts need no table), else the entry
     * EcmpHash % count of the node's ECMP next hops toward the destination. Hops are the
     * caller's: ports (RoceSwitch) or directed links (FlowNetwork), the same kind for all three.
     * \param pinned the flow route's hop, or NONE \param only the hop of a node with one port,
     * or NONE \param hops the ECMP next hops, in port order \param count their number
     * \param seed EcmpSeed \param srcIp source address \param dstIp destination address
     * \param sport UDP source port \param dport UDP destination port
     * \return the hop, or NONE when the node has no route
     */
    static uint32_t NextHop(uint32_t pinned,
                            uint32_t only,
                            const uint32_t* hops,
                            std::size_t count,
                            uint32_t seed,
                            uint32_t srcIp,
                            uint32_t dstIp,
                            uint16_t sport,
                            uint16_t dport)
    {
        if (pinned != NONE)
        {
            return pinned;
        }
        if (only != NONE)
        {
            return only;
        }
        if (count <= 1)
        {
            return count == 1 ? hops[0] : NONE;
        }
        return hops[EcmpHash(seed, srcIp, dstIp, sport, dport) % count];
    }
};

} // namespace ns3

#endif // ROCE_FORWARDING_H
