/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-ideal-fct.h"

#include "roce-wire.h"

#include "ns3/abort.h"

#include <algorithm>
#include <vector>

namespace ns3
{

namespace
{

/// Header bytes a packet of the HPCC family's ideal FCT (its standalone_fct) counts: its
/// CustomHeader's Ethernet 14, IPv4 20, UDP 8 and sequence header 6, without INT (though its
/// links carry RoceWire::FAMILY_DATA_HEADERS).
constexpr uint64_t FAMILY_IDEAL_HEADERS = 48;

/// Wire time in whole ns of wireBytes sent back to back at rateBps, rounded down.
uint64_t
WireNs(uint64_t wireBytes, uint64_t rateBps)
{
    unsigned __int128 steps = static_cast<unsigned __int128>(wireBytes) * 8 * 1000000000ULL;
    return static_cast<uint64_t>(steps / rateBps);
}

} // namespace

uint64_t
RoceIdealFctNs(const tn_topology* topo,
               const tn_routes* routes,
               uint32_t src,
               uint32_t dst,
               uint64_t bytes,
               uint32_t mtu,
               RoceWire::Framing framing)
{
    uint32_t dist = tn_routes_distance(routes, src, dst);
    // internal invariant: validated topologies are connected
    NS_ABORT_MSG_IF(dist == TN_ROUTES_UNREACHABLE, "no route from " << src << " to " << dst);
    std::vector<uint32_t> path(dist);
    uint32_t len = 0;
    tn_error err;
    if (tn_routes_path(routes, src, dst, 0, path.data(), dist, &len, &err) != TN_OK)
    {
        NS_FATAL_ERROR("ideal FCT: " << err.message);
    }
    const bool family = framing == RoceWire::HPCC_FAMILY;
    const uint64_t overhead = family ? FAMILY_IDEAL_HEADERS : RoceWire::DATA_OVERHEAD;
    const uint64_t reth = family ? 0 : RoceWire::RETH_BYTES;
    const uint64_t packets = bytes == 0 ? 1 : (bytes - 1) / mtu + 1;
    const uint64_t firstPayload = std::min<uint64_t>(bytes, mtu);
    const uint64_t lastPayload = bytes - (packets - 1) * mtu;
    const uint64_t ackWire = family ? RoceWire::FAMILY_ACK_MIN : 86;
    uint64_t base = 0;
    std::vector<uint64_t> tFirst(len);
    std::vector<uint64_t> tLast(len);
    std::vector<uint64_t> tAll(len);
    for (uint32_t h = 0; h < len; ++h)
    {
        const tn_link* l = tn_topology_link(topo, path[h]);
        const tn_link* back = tn_topology_link(topo, l->reverse);
        base += l->latency_ns + back->latency_ns + WireNs(ackWire, back->rate_bps);
        uint64_t r = l->rate_bps;
        tFirst[h] = WireNs(firstPayload + overhead + reth, r);
        if (packets == 1)
        {
            tLast[h] = tFirst[h];
            tAll[h] = tFirst[h];
        }
        else
        {
            tLast[h] = WireNs(lastPayload + overhead, r);
            tAll[h] = WireNs(firstPayload + reth + lastPayload + (packets - 2) * uint64_t(mtu) +
                                 packets * overhead,
                             r);
        }
    }
    uint64_t pipeline = 0;
    for (uint32_t b = 0; b < len; ++b)
    {
        uint64_t t = tAll[b];
        for (uint32_t h = 0; h < b; ++h)
        {
            t += tFirst[h];
        }
        for (uint32_t h = b + 1; h < len; ++h)
        {
            t += tLast[h];
        }
        pipeline = std::max(pipeline, t);
    }
    return base + pipeline;
}

} // namespace ns3
