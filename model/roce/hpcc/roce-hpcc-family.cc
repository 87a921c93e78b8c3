/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-family.h"

#include "ns3/rdma-nic.h"
#include "ns3/roce-hash.h"
#include "ns3/roce-header.h"
#include "ns3/roce-switch.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ns3
{

uint32_t
RoceHpccFamilyEcmpHash(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport, uint32_t seed)
{
    const uint32_t key[3] = {sip, dip, uint32_t(sport) | (uint32_t(dport) << 16)};
    return RoceMurmur3(key, 3, seed);
}

uint64_t
RoceHpccFamilyBdp(uint64_t rttNs, uint64_t bps)
{
    return rttNs * bps / 1000000000ULL / 8;
}

namespace
{

/// The family's maxRtt and maxBdp over every pair of hosts.
struct FamilyMaxima
{
    uint64_t rttNs{0}; //!< maxRtt
    uint64_t bdp{0};   //!< maxBdp
};

FamilyMaxima
FamilyMax(const tn_topology* topo, uint32_t mtu)
{
    // the family's BFS from every host (CalculateRoute): hosts are reached but not passed
    // through, neighbours in node id order, and a node's delay, wire time and bottleneck rate
    // are those of the path it was first reached by
    const uint32_t n = tn_topology_node_count(topo);
    std::vector<std::vector<uint32_t>> out(n);
    std::vector<bool> isSwitch(n);
    for (uint32_t v = 0; v < n; ++v)
    {
        uint32_t count = 0;
        const uint32_t* links = tn_topology_out_links(topo, v, &count);
        out[v].assign(links, links + count);
        std::sort(out[v].begin(), out[v].end(), [topo](uint32_t a, uint32_t b) {
            return tn_topology_link(topo, a)->dst < tn_topology_link(topo, b)->dst;
        });
        isSwitch[v] = tn_topology_node_kind(topo, v) == TN_NODE_SWITCH;
    }
    // 2 x the link's delay (there and back) + one payload's wire time (one way)
    auto hop = [topo, mtu](uint32_t id) -> uint64_t {
        const tn_link* l = tn_topology_link(topo, id);
        return 2 * l->latency_ns + uint64_t(mtu) * 8 * 1000000000ULL / l->rate_bps;
    };
    std::vector<uint64_t> rtt(n);
    std::vector<uint64_t> rate(n);
    std::vector<bool> seen(n);
    std::vector<uint32_t> queue;

    // the two farthest hosts from a node (RTT, host), of different hosts
    struct Farthest
    {
        uint64_t rtt[2]{0, 0};
        uint32_t host[2]{UINT32_MAX, UINT32_MAX};
    };

    // per bottleneck rate of the paths (a few distinct link rates), so that the largest BDP
    // is among the farthest hosts of each rate
    using FarthestByRate = std::map<uint64_t, Farthest>;

    auto search = [&](uint32_t from) {
        FarthestByRate byRate;
        std::fill(seen.begin(), seen.end(), false);
        queue.assign(1, from);
        seen[from] = true;
        rtt[from] = 0;
        rate[from] = UINT64_MAX;
        for (size_t head = 0; head < queue.size(); ++head)
        {
            const uint32_t now = queue[head];
            for (uint32_t id : out[now])
            {
                const tn_link* l = tn_topology_link(topo, id);
                const uint32_t next = l->dst;
                if (seen[next])
                {
                    continue;
                }
                seen[next] = true;
                rtt[next] = rtt[now] + hop(id);
                rate[next] = std::min<uint64_t>(rate[now], l->rate_bps);
                if (isSwitch[next])
                {
                    queue.push_back(next);
                    continue;
                }
                Farthest& far = byRate[rate[next]];
                if (rtt[next] > far.rtt[1] || far.host[1] == UINT32_MAX)
                {
                    const int k = rtt[next] > far.rtt[0] || far.host[0] == UINT32_MAX ? 0 : 1;
                    if (k == 0)
                    {
                        far.rtt[1] = far.rtt[0];
                        far.host[1] = far.host[0];
                    }
                    far.rtt[k] = rtt[next];
                    far.host[k] = next;
                }
            }
        }
        return byRate;
    };
    FamilyMaxima largest;
    auto take = [&largest](uint64_t rttNs, uint64_t bps) {
        largest.rttNs = std::max(largest.rttNs, rttNs);
        largest.bdp = std::max(largest.bdp, RoceHpccFamilyBdp(rttNs, bps));
    };
    // a host with one link to a switch reaches the others as that switch does, one hop
    // later: one search per such switch instead of one per host
    std::unordered_map<uint32_t, FarthestByRate> fromSwitch;
    for (uint32_t host = 0; host < n; ++host)
    {
        if (isSwitch[host])
        {
            continue;
        }
        if (out[host].size() == 1 && isSwitch[tn_topology_link(topo, out[host][0])->dst])
        {
            const tn_link* up = tn_topology_link(topo, out[host][0]);
            auto it = fromSwitch.find(up->dst);
            if (it == fromSwitch.end())
            {
                it = fromSwitch.emplace(up->dst, search(up->dst)).first;
            }
            for (const auto& [bps, far] : it->second)
            {
                const int k = far.host[0] == host ? 1 : 0;
                if (far.host[k] != UINT32_MAX)
                {
                    take(hop(out[host][0]) + far.rtt[k], std::min<uint64_t>(bps, up->rate_bps));
                }
            }
            continue;
        }
        for (const auto& [bps, far] : search(host))
        {
            take(far.rtt[0], bps);
        }
    }
    return largest;
}

} // namespace

uint64_t
RoceHpccBaseRttNs(const tn_topology* topo,
                  const tn_routes* routes,
                  uint32_t src,
                  uint32_t dst,
                  uint32_t mtu,
                  uint64_t* bdp)
{
    if (bdp)
    {
        *bdp = 0;
    }
    const uint32_t dist = tn_routes_distance(routes, src, dst);
    if (dist == 0 || dist == TN_ROUTES_UNREACHABLE)
    {
        return 0;
    }
    std::vector<uint32_t> path(dist);
    uint32_t len = 0;
    tn_error err;
    if (tn_routes_path(routes, src, dst, 0, path.data(), dist, &len, &err) != TN_OK)
    {
        return 0;
    }
    uint64_t delay = 0;
    uint64_t tx = 0;
    uint64_t slowest = UINT64_MAX;
    for (uint32_t h = 0; h < len; ++h)
    {
        const tn_link* l = tn_topology_link(topo, path[h]);
        delay += l->latency_ns;
        tx += uint64_t(mtu) * 8 * 1000000000ULL / l->rate_bps;
        slowest = std::min<uint64_t>(slowest, l->rate_bps);
    }
    if (bdp)
    {
        *bdp = RoceHpccFamilyBdp(2 * delay + tx, slowest);
    }
    return 2 * delay + tx;
}

uint64_t
RoceHpccMaxBaseRttNs(const tn_topology* topo, uint32_t mtu, uint64_t* maxBdp)
{
    // one search for both: it visits every host pair (1.2 s on an 8,192-host fat tree)
    const FamilyMaxima largest = FamilyMax(topo, mtu);
    if (maxBdp)
    {
        *maxBdp = largest.bdp;
    }
    return largest.rttNs;
}

RoceHpccFamilyPaths::RoceHpccFamilyPaths(const tn_topology* topo,
                                         const std::vector<tn_hpcc_flow>& flows,
                                         const NodeContainer& nodes)
    : m_flows(flows),
      m_nodes(nodes)
{
    // the family numbers each (source, destination)'s flows' UDP source ports from 10000
    std::map<std::pair<uint32_t, uint32_t>, uint16_t> nextPort;
    std::unordered_map<uint32_t, std::vector<std::vector<uint32_t>>> toward;
    for (const tn_hpcc_flow& f : flows)
    {
        auto port = nextPort.emplace(std::make_pair(f.src, f.dst), 10000).first;
        const uint16_t sport = port->second++;
        auto hops = toward.find(f.dst);
        if (hops == toward.end())
        {
            hops = toward.emplace(f.dst, NextHops(topo, f.dst)).first;
        }
        m_paths.emplace_back();
        const uint32_t sip = RoceAddress::FromNodeId(f.src).Get();
        const uint32_t dip = RoceAddress::FromNodeId(f.dst).Get();
        uint32_t node = f.src;
        for (uint32_t step = 0; node != f.dst && step < tn_topology_node_count(topo); ++step)
        {
            const std::vector<uint32_t>& next = hops->second[node];
            if (next.empty())
            {
                break;
            }
            uint32_t pick = 0;
            if (next.size() > 1)
            {
                pick = RoceHpccFamilyEcmpHash(sip, dip, sport, f.dport, node) % next.size();
            }
            const tn_link* link = tn_topology_link(topo, next[pick]);
            // an NPU's port is its NIC's choice (the family's hosts have one)
            if (next.size() > 1 && tn_topology_node_kind(topo, node) == TN_NODE_SWITCH)
            {
                m_paths.back().emplace_back(node, link->src_port);
            }
            node = link->dst;
        }
    }
}

void
RoceHpccFamilyPaths::FlowStart(uint64_t i, const RdmaWriteRequest& request)
{
    const tn_hpcc_flow& f = m_flows[i];
    const uint16_t sport = RdmaNic::LaneSourcePort(f.src, f.dst, request.priority, request.lane);
    for (const auto& [node, port] : m_paths[i])
    {
        m_nodes.Get(node)->GetObject<RoceSwitch>()->SetFlowRoute(f.src,
                                                                 f.dst,
                                                                 sport,
                                                                 request.priority,
                                                                 port);
    }
}

std::vector<std::vector<uint32_t>>
RoceHpccFamilyPaths::NextHops(const tn_topology* topo, uint32_t dst)
{
    const uint32_t n = tn_topology_node_count(topo);
    std::vector<int64_t> dist(n, -1);
    std::vector<uint32_t> reached(n, 0);
    std::vector<uint32_t> queue{dst};
    dist[dst] = 0;
    uint32_t order = 1;
    for (size_t head = 0; head < queue.size(); ++head)
    {
        const uint32_t now = queue[head];
        uint32_t count = 0;
        const uint32_t* out = tn_topology_out_links(topo, now, &count);
        std::vector<uint32_t> neighbours;
        for (uint32_t k = 0; k < count; ++k)
        {
            neighbours.push_back(tn_topology_link(topo, out[k])->dst);
        }
        std::sort(neighbours.begin(), neighbours.end());
        for (uint32_t next : neighbours)
        {
            if (dist[next] < 0)
            {
                dist[next] = dist[now] + 1;
                reached[next] = order++;
                if (tn_topology_node_kind(topo, next) == TN_NODE_SWITCH)
                {
                    queue.push_back(next);
                }
            }
        }
    }
    std::vector<std::vector<uint32_t>> hops(n);
    for (uint32_t v = 0; v < n; ++v)
    {
        uint32_t count = 0;
        const uint32_t* out = tn_topology_out_links(topo, v, &count);
        for (uint32_t k = 0; dist[v] > 0 && k < count; ++k)
        {
            const uint32_t next = tn_topology_link(topo, out[k])->dst;
            if (dist[next] == dist[v] - 1)
            {
                hops[v].push_back(out[k]);
            }
        }
        std::sort(hops[v].begin(), hops[v].end(), [&](uint32_t a, uint32_t b) {
            return reached[tn_topology_link(topo, a)->dst] <
                   reached[tn_topology_link(topo, b)->dst];
        });
    }
    return hops;
}

} // namespace ns3
