/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FAMILY_H
#define ROCE_HPCC_FAMILY_H

#include "ns3/node-container.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/tn-hpcc-files.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * The HPCC family's ECMP hash, its switches' EcmpHash: MurmurHash3 (x86, 32-bit, RoceMurmur3)
 * of the 12 bytes source IP, destination IP, UDP source port | destination port << 16 (each a
 * little-endian word), seeded by the switch's node id. The family takes it modulo the number of
 * next hops toward the destination, listed in the order its breadth-first search from the
 * destination found them.
 * \param sip source IPv4 address \param dip destination IPv4 address
 * \param sport UDP source port \param dport UDP destination port \param seed switch node id
 * \return the hash
 */
uint32_t RoceHpccFamilyEcmpHash(uint32_t sip,
                                uint32_t dip,
                                uint16_t sport,
                                uint16_t dport,
                                uint32_t seed);

/**
 * \ingroup training-net
 * The HPCC family's BDP of a base RTT at a rate, as its integers compute it: rtt x bw / 1e9 / 8,
 * each division rounding down (52000 bytes for 4160 ns at 100 Gb/s, 20250 for 6480 ns at
 * 25 Gb/s). Its pairBdp is this at the pair's slowest link (RoceHpccBaseRttNs), its maxBdp the
 * largest pairBdp (RoceHpccMaxBaseRttNs); a window equal to this at the NIC's line rate is the
 * line rate x T that the congestion controls take by default. rttNs x bps must stay below
 * 2^64 (about 23 s at 800 Gb/s).
 * \param rttNs base RTT in ns \param bps rate in bit/s
 * \return the BDP in bytes
 */
uint64_t RoceHpccFamilyBdp(uint64_t rttNs, uint64_t bps);

/**
 * \ingroup training-net
 * The HPCC family's base RTT of a (source, destination) pair, its pairRtt: 2 x the propagation
 * delay + the wire time of one payload (no headers) on each hop, in whole ns per hop as the
 * family computes it; and its pairBdp, the window the family gives the pair's flows with
 * GLOBAL_T 0: that RTT x the slowest link rate on the path (its pairBw) / 8, in whole bytes as
 * the family computes it (rtt x bw / 1e9 / 8).
 * \param topo the topology \param routes its routes toward dst
 * \param src source node \param dst destination node \param mtu payload bytes per packet
 * \param bdp if not null, set to the pair's BDP in bytes (0 when the pair has no path)
 * \return the base RTT in ns; 0 when the pair has no path
 */
uint64_t RoceHpccBaseRttNs(const tn_topology* topo,
                           const tn_routes* routes,
                           uint32_t src,
                           uint32_t dst,
                           uint32_t mtu,
                           uint64_t* bdp = nullptr);

/**
 * \ingroup training-net
 * The HPCC family's maxRtt: the largest base RTT (as RoceHpccBaseRttNs) over every pair of
 * hosts of the topology, whether or not a flow joins them, as the family computes it: a
 * breadth-first search from each host through switches (neighbours in node id order), each
 * node's delay and wire time those of the path that reached it first. A fabric whose flows
 * stay inside a pod still takes the T of the longest path (a k = 4 fat tree: 12240 ns at
 * 1000-byte payloads and 1 us links, where the pod's own paths give 8200 ns).
 * Its maxBdp, the window it gives every flow with GLOBAL_T 1, comes from the same search: the
 * largest pairBdp over every pair of hosts (each pair's base RTT and slowest link those of the
 * path found first). It is maxRtt x the hosts' rate / 8 when no path is slower than its hosts'
 * links, and can be smaller otherwise: the pair of the largest RTT need not be the pair of the
 * largest BDP.
 * \param topo the topology \param mtu payload bytes per packet
 * \param maxBdp if not null, set to the largest BDP in bytes
 * \return the largest base RTT in ns; 0 with fewer than two connected hosts (maxBdp 0 too)
 */
uint64_t RoceHpccMaxBaseRttNs(const tn_topology* topo, uint32_t mtu, uint64_t* maxBdp = nullptr);

/**
 * \ingroup training-net
 * \brief The HPCC family's paths (RoceHpccConfig::familyEcmp): each flow's hops where a switch
 * has more than one next hop toward the destination, chosen as the family's switches choose
 * them, and the flow routes that pin the flow's queue pair to them when the flow starts (its
 * lane, hence its UDP source port, is known only then).
 *
 * The family numbers each (source, destination)'s flows' UDP source ports from 10000 in file
 * order. Connect FlowStart to RoceFlowApplication's FlowStart trace source before the run.
 */
class RoceHpccFamilyPaths
{
  public:
    /**
     * \param topo the topology \param flows the flows in file order
     * \param nodes the fabric's nodes (node id order)
     */
    RoceHpccFamilyPaths(const tn_topology* topo,
                        const std::vector<tn_hpcc_flow>& flows,
                        const NodeContainer& nodes);

    /**
     * FlowStart of the flows' applications: pins flow `i`'s queue pair on its path.
     * \param i the flow's index in file order \param request its write
     */
    void FlowStart(uint64_t i, const RdmaWriteRequest& request);

    /** \return per flow, file order: (switch node, egress port) where the switch chose */
    const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& GetPaths() const
    {
        return m_paths;
    }

  private:
    /**
     * Next-hop links of every node toward `dst` in the family's order: its breadth-first
     * search from the destination visits neighbours in node id order (its map of neighbours
     * is ordered by node pointer, which follows creation, that is id, order), expands
     * switches only, and lists a node's next hops in the order it reached them.
     * \param topo the topology \param dst the destination
     * \return per node, its next-hop links
     */
    static std::vector<std::vector<uint32_t>> NextHops(const tn_topology* topo, uint32_t dst);

    std::vector<tn_hpcc_flow> m_flows;                               //!< file order
    NodeContainer m_nodes;                                           //!< node id order
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_paths; //!< GetPaths
};

} // namespace ns3

#endif // ROCE_HPCC_FAMILY_H
