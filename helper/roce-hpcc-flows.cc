/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-flows.h"

#include "roce-helper.h"
#include "roce-link-helper.h"

#include "ns3/attribute-settings.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/node.h"
#include "ns3/program-options.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-flow-application.h"
#include "ns3/roce-ideal-fct.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-hpcc-files.h"
#include "ns3/tn-routing.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <unordered_map>

namespace ns3
{

namespace
{

/// Notice for lines after the announced count (HPCC reads only the announced count).
std::string
TrailingNotice(const std::string& path, const tn_hpcc_trailing& t, const char* what)
{
    const std::string lines =
        t.first_line == t.last_line
            ? "line " + std::to_string(t.first_line)
            : "lines " + std::to_string(t.first_line) + "-" + std::to_string(t.last_line);
    return path + ": " + lines + " after the " + std::to_string(t.announced) + " announced " +
           what + " ignored (HPCC reads only the announced count)";
}

/// The output files and figures of one run: target of the applications' and switches' traces.
class HpccOutput
{
  public:
    HpccOutput(const std::vector<tn_hpcc_flow>& flows,
               const std::vector<uint64_t>& ideal,
               std::FILE* fct,
               std::FILE* pfc)
        : m_flows(flows),
          m_ideal(ideal),
          m_fct(fct),
          m_pfc(pfc)
    {
    }

    void FlowStart(uint64_t, const RdmaWriteRequest&)
    {
        if (!m_started)
        {
            m_started = true;
            m_firstStart = Simulator::Now();
        }
    }

    void FlowEnd(uint64_t i, const RdmaMessageRecord& rec)
    {
        if (rec.status != RdmaMessageRecord::SUCCESS)
        {
            ++m_failed; // it has no completion time
            StopWhenAllEnded();
            return;
        }
        const tn_hpcc_flow& f = m_flows[i];
        uint64_t fctNs = static_cast<uint64_t>((rec.end - rec.start).GetNanoSeconds());
        uint64_t ideal = m_ideal[i];
        std::fprintf(m_fct,
                     "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                     RoceHpccFlows::NodeIp(f.src),
                     RoceHpccFlows::NodeIp(f.dst),
                     static_cast<unsigned>(rec.udpSourcePort),
                     static_cast<unsigned>(f.dport),
                     f.bytes,
                     f.start_ns,
                     fctNs,
                     ideal);
        if (fctNs < ideal)
        {
            ++m_belowIdeal;
        }
        m_lastEnd = Simulator::Now();
        ++m_finished;
        StopWhenAllEnded();
    }

    void StopWhenAllEnded()
    {
        if (m_finished + m_failed == m_flows.size())
        {
            Simulator::Stop();
        }
    }

    static void Pfc(HpccOutput* run,
                    uint32_t node,
                    uint32_t port,
                    uint8_t priority,
                    bool sent,
                    bool pause)
    {
        std::fprintf(run->m_pfc,
                     "%" PRIu64 " %u %u %u %s %s\n",
                     static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()),
                     node,
                     port,
                     static_cast<unsigned>(priority),
                     pause ? "pause" : "resume",
                     sent ? "sent" : "received");
        ++run->m_pfcEvents;
    }

    static void PfcPause(HpccOutput* run, uint32_t node, uint32_t port, uint8_t priority, bool sent)
    {
        Pfc(run, node, port, priority, sent, true);
    }

    static void PfcResume(HpccOutput* run,
                          uint32_t node,
                          uint32_t port,
                          uint8_t priority,
                          bool sent)
    {
        Pfc(run, node, port, priority, sent, false);
    }

    const std::vector<tn_hpcc_flow>& m_flows;
    const std::vector<uint64_t>& m_ideal;
    std::FILE* m_fct;
    std::FILE* m_pfc;
    uint64_t m_finished{0};
    uint64_t m_failed{0}; //!< flows whose message failed
    uint64_t m_belowIdeal{0};
    uint64_t m_pfcEvents{0};
    bool m_started{false};
    Time m_firstStart;
    Time m_lastEnd;
};

/**
 * The HPCC family's base RTT of a (source, destination) pair, its pairRtt: 2 x the propagation
 * delay + the wire time of one payload (no headers) on each hop, in whole ns per hop as the
 * family computes it; 0 when the pair has no path.
 */
uint64_t
PathBaseRttNs(const tn_topology* topo,
              const tn_routes* routes,
              uint32_t src,
              uint32_t dst,
              uint32_t mtu)
{
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
    for (uint32_t h = 0; h < len; ++h)
    {
        const tn_link* l = tn_topology_link(topo, path[h]);
        delay += l->latency_ns;
        tx += uint64_t(mtu) * 8 * 1000000000ULL / l->rate_bps;
    }
    return 2 * delay + tx;
}

/**
 * The HPCC family's maxRtt over the flows' paths (PathBaseRttNs). The family takes the largest
 * over all host pairs; the flows' pairs give the same on fabrics where some flow crosses the
 * longest path.
 */
uint64_t
LargestBaseRttNs(const tn_topology* topo,
                 const tn_routes* routes,
                 const std::vector<tn_hpcc_flow>& flows,
                 uint32_t mtu)
{
    uint64_t largest = 0;
    for (const auto& f : flows)
    {
        largest = std::max(largest, PathBaseRttNs(topo, routes, f.src, f.dst, mtu));
    }
    return largest;
}

/// One 32-bit block of MurmurHash3 before it is mixed into the state.
uint32_t
MurmurBlock(uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    return k * 0x1b873593u;
}

/**
 * The HPCC family's paths (RoceHpccConfig::familyEcmp): each flow's hops where a switch has more
 * than one next hop toward the destination, chosen as the family's switches choose them, and
 * the flow routes that pin the flow's queue pair to them when the flow starts (its lane, hence
 * its UDP source port, is known only then).
 */
class FamilyEcmpPaths
{
  public:
    /**
     * \param topo the topology \param flows the flows in file order
     * \param nodes the fabric's nodes (node id order)
     */
    FamilyEcmpPaths(const tn_topology* topo,
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
            paths.emplace_back();
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
                    paths.back().emplace_back(node, link->src_port);
                }
                node = link->dst;
            }
        }
    }

    /** FlowStart of the flows' applications: pins flow `i`'s queue pair on its path. */
    void FlowStart(uint64_t i, const RdmaWriteRequest& request)
    {
        const tn_hpcc_flow& f = m_flows[i];
        const uint16_t sport =
            RdmaNic::LaneSourcePort(f.src, f.dst, request.priority, request.lane);
        for (const auto& [node, port] : paths[i])
        {
            m_nodes.Get(node)->GetObject<RoceSwitch>()->SetFlowRoute(f.src,
                                                                     f.dst,
                                                                     sport,
                                                                     request.priority,
                                                                     port);
        }
    }

    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> paths; //!< per flow, file order

  private:
    /**
     * Next-hop links of every node toward `dst` in the family's order: its breadth-first
     * search from the destination visits neighbours in node id order (its map of neighbours
     * is ordered by node pointer, which follows creation, that is id, order), expands
     * switches only, and lists a node's next hops in the order it reached them.
     */
    static std::vector<std::vector<uint32_t>> NextHops(const tn_topology* topo, uint32_t dst)
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

    std::vector<tn_hpcc_flow> m_flows;
    NodeContainer m_nodes;
};

} // namespace

uint32_t
RoceHpccFamilyEcmpHash(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport, uint32_t seed)
{
    const uint32_t blocks[3] = {sip, dip, uint32_t(sport) | (uint32_t(dport) << 16)};
    uint32_t h = seed;
    for (uint32_t k : blocks)
    {
        h ^= MurmurBlock(k);
        h = (h << 13) | (h >> 19);
        h = h * 5 + 0xe6546b64u;
    }
    h ^= 12; // the key's length in bytes
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

bool
RoceHpccFlows::LoadTopology(const std::string& path,
                            tn_topology** topo,
                            uint32_t* torCount,
                            std::string* error,
                            bool ignoreTrailing,
                            std::string* notice)
{
    tn_hpcc_trailing trailing;
    tn_error err;
    if (tn_hpcc_topology_load(path.c_str(), ignoreTrailing, topo, torCount, &trailing, &err) !=
        TN_OK)
    {
        *error = err.message;
        return false;
    }
    if (trailing.first_line && notice)
    {
        *notice = TrailingNotice(path, trailing, "links");
    }
    return true;
}

bool
RoceHpccFlows::Run(const RoceHpccConfig& config, RoceHpccResult* result, std::string* error)
{
    *result = RoceHpccResult();
    RdmaNic::CongestionControlType ccType;
    if (!RdmaNic::ParseCongestionControl(config.cc, &ccType))
    {
        *error = "--cc: '" + config.cc +
                 "' is not a congestion control (dcqcn, hpcc, hpcc-pint, timely, dctcp, none)";
        return false;
    }
    if (config.mtu < 256 || config.mtu > 9000)
    {
        *error = "--mtu: " + std::to_string(config.mtu) + " is not a payload size in 256..9000";
        return false;
    }
    if (config.seed == 0 || config.seed > ProgramOptions::MAX_SEED)
    {
        *error = "--seed: must be in 1.." + std::to_string(ProgramOptions::MAX_SEED) +
                 " (ns-3's MRG32k3a generator)";
        return false;
    }
    if (!(config.stopSeconds >= 0) || config.stopSeconds > RoceHpccConfig::MAX_STOP_SECONDS)
    {
        *error = "--stop: must be in 0 .. 9.2e9 s";
        return false;
    }
    if (!(config.errorRatePerLink >= 0 && config.errorRatePerLink < 1))
    {
        *error = "ERROR_RATE_PER_LINK must be in [0, 1)";
        return false;
    }
    const std::string where = config.configFile.empty() ? "" : config.configFile + ":";
    if (!RoceHpccConfigReader::CheckSettings(where, config.settings, error))
    {
        return false;
    }
    tn_topology* topo = nullptr;
    std::string notice;
    if (!LoadTopology(config.topologyFile,
                      &topo,
                      &result->torCount,
                      error,
                      config.ignoreTrailingLines,
                      &notice))
    {
        return false;
    }
    if (!notice.empty())
    {
        result->notices.push_back(notice);
        notice.clear();
    }
    tn_hpcc_flows* flowFile = nullptr;
    tn_error err;
    if (tn_hpcc_flows_load(config.flowFile.c_str(),
                           topo,
                           config.ignoreTrailingLines,
                           &flowFile,
                           &err) != TN_OK)
    {
        *error = err.message;
        tn_topology_destroy(topo);
        return false;
    }
    if (flowFile->trailing.first_line)
    {
        result->notices.push_back(TrailingNotice(config.flowFile, flowFile->trailing, "flows"));
    }
    const std::vector<tn_hpcc_flow> flows(flowFile->flow, flowFile->flow + flowFile->count);
    tn_hpcc_flows_destroy(flowFile);

    std::vector<RoceHpccSetting> switchSettings;
    if (!RoceHpccConfigReader::ResolveEcnMaps(config, topo, &switchSettings, error))
    {
        tn_topology_destroy(topo);
        return false;
    }

    // the ideal FCTs need routes toward the flows' destinations only (a fat-tree k=32 has
    // 8192 NPUs: routes toward all of them would take 155 MB and seconds)
    std::vector<uint32_t> destinations;
    for (const auto& f : flows)
    {
        destinations.push_back(f.dst);
    }
    std::sort(destinations.begin(), destinations.end());
    destinations.erase(std::unique(destinations.begin(), destinations.end()), destinations.end());
    tn_routes_options routeOptions{};
    routeOptions.dest_nodes = destinations.data();
    routeOptions.dest_count = static_cast<uint32_t>(destinations.size());
    tn_routes* routes = nullptr;
    if (tn_routes_create(topo, &routeOptions, &routes, &err) != TN_OK)
    {
        *error = config.topologyFile + ": routes: " + err.message;
        tn_topology_destroy(topo);
        return false;
    }
    std::vector<uint64_t> ideal;
    for (const auto& f : flows)
    {
        if (tn_routes_distance(routes, f.src, f.dst) == TN_ROUTES_UNREACHABLE)
        {
            *error = config.flowFile + ":" + std::to_string(f.line) + ": node " +
                     std::to_string(f.dst) + " is unreachable from node " + std::to_string(f.src);
            tn_routes_destroy(routes);
            tn_topology_destroy(topo);
            return false;
        }
        ideal.push_back(RoceIdealFctNs(topo, routes, f.src, f.dst, f.bytes, config.mtu));
    }
    auto cleanup = [&]() {
        tn_routes_destroy(routes);
        tn_topology_destroy(topo);
    };
    std::FILE* fct = std::fopen(config.fctFile.c_str(), "w");
    if (!fct)
    {
        *error = config.fctFile + ": cannot open for writing";
        cleanup();
        return false;
    }
    std::FILE* pfc = nullptr;
    if (!config.pfcFile.empty())
    {
        pfc = std::fopen(config.pfcFile.c_str(), "w");
        if (!pfc)
        {
            *error = config.pfcFile + ": cannot open for writing";
            std::fclose(fct);
            cleanup();
            return false;
        }
    }

    // switch MMUs take their attributes from the defaults when RoceSwitch creates them
    ScopedDefaults defaults;
    bool ok = defaults.Set("ns3::RoceSwitchMmu::Mtu", std::to_string(config.mtu));
    RoceHelper helper;
    helper.SetNicAttribute("Mtu", UintegerValue(config.mtu));
    helper.SetNicAttribute("CongestionControl", StringValue(config.cc));
    // largest L3 packet: payload + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ImmDt 4 + ICRC 4
    helper.SetDeviceAttribute("Mtu", UintegerValue(std::max<uint32_t>(4200, config.mtu + 64)));
    result->ecnSettings = switchSettings;
    std::vector<RoceHpccSetting> all = config.settings;
    all.insert(all.end(), switchSettings.begin(), switchSettings.end());
    for (const auto& st : all)
    {
        if (st.typeName == "ns3::RdmaNic")
        {
            helper.SetNicAttribute(st.attribute, StringValue(st.value));
        }
        else if (st.typeName == "ns3::RoceNetDevice")
        {
            helper.SetDeviceAttribute(st.attribute, StringValue(st.value));
        }
        else if (!st.typeName.empty())
        {
            // switch MMUs, switches and congestion-control objects are created later, from
            // their defaults
            ok = defaults.Set(st.typeName + "::" + st.attribute, st.value) && ok;
        }
    }
    if (!config.baseRttAttribute.empty())
    {
        result->baseRtt = NanoSeconds(LargestBaseRttNs(topo, routes, flows, config.mtu));
        ok = defaults.Set(config.baseRttAttribute,
                          std::to_string(result->baseRtt.GetNanoSeconds()) + "ns") &&
             ok;
    }
    NS_ABORT_MSG_UNLESS(ok, "RoceHpccFlows: switch settings were validated before");

    // the seed is the run's; the process gets its own back (tests, sweeps in one process)
    struct SeedGuard
    {
        uint32_t seed{RngSeedManager::GetSeed()};
        uint64_t run{RngSeedManager::GetRun()};

        ~SeedGuard()
        {
            RngSeedManager::SetSeed(seed);
            RngSeedManager::SetRun(run);
        }
    } seedGuard;

    const std::string fabricError = helper.Check(topo);
    if (!fabricError.empty())
    {
        *error = fabricError; // what Install or the NICs would abort on
        std::fclose(fct);
        if (pfc)
        {
            std::fclose(pfc);
        }
        cleanup();
        return false;
    }
    RngSeedManager::SetSeed(config.seed);
    RngSeedManager::SetRun(1);
    RoceFabricNodes fabric = helper.Install(topo);
    int64_t stream = helper.AssignStreams(0);
    if (config.perPairBaseRtt && !config.baseRttAttribute.empty())
    {
        // GLOBAL_T 0: each pair's QPs take their own path's base RTT
        for (const auto& f : flows)
        {
            const uint64_t rttNs = PathBaseRttNs(topo, routes, f.src, f.dst, config.mtu);
            if (rttNs > 0)
            {
                fabric.nodes.Get(f.src)->GetObject<RdmaNic>()->SetPeerBaseRtt(f.dst,
                                                                              NanoSeconds(rttNs));
            }
        }
    }
    if (config.rateStepsAbsolute)
    {
        // HPCC's RATE_AI and RATE_HAI are steps per flow, the NIC's are per ReferenceRate of
        // link rate: a reference rate equal to the NIC's link rate makes them absolute
        for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
        {
            Ptr<RdmaNic> nic = helper.GetNic(r);
            if (nic->GetNPorts() > 0)
            {
                nic->SetAttribute("ReferenceRate", DataRateValue(nic->GetPort(0)->GetDataRate()));
            }
        }
    }
    if (config.errorRatePerLink > 0)
    {
        // HPCC applies ERROR_RATE_PER_LINK to the links whose own error_rate is 0; the devices
        // are two per cable in cable order (RoceHelper::Install), received at the other end
        uint32_t cable = 0;
        for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
        {
            const tn_link* ab = tn_topology_link(topo, l);
            if (ab->reverse < l)
            {
                continue;
            }
            const tn_link* dirs[2] = {ab, tn_topology_link(topo, ab->reverse)};
            for (int k = 0; k < 2; ++k)
            {
                if (dirs[k]->error_rate == 0)
                {
                    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                    em->SetRate(config.errorRatePerLink);
                    stream += em->AssignStreams(stream);
                    DynamicCast<RoceNetDevice>(fabric.devices.Get(2 * cable + 1 - k))
                        ->SetReceiveErrorModel(em);
                }
            }
            ++cable;
        }
    }

    HpccOutput run(flows, ideal, fct, pfc);
    if (pfc)
    {
        for (uint32_t v = 0; v < fabric.nodes.GetN(); ++v)
        {
            Ptr<RoceSwitch> sw = fabric.nodes.Get(v)->GetObject<RoceSwitch>();
            sw->TraceConnectWithoutContext("PfcPause",
                                           MakeBoundCallback(&HpccOutput::PfcPause, &run, v));
            sw->TraceConnectWithoutContext("PfcResume",
                                           MakeBoundCallback(&HpccOutput::PfcResume, &run, v));
        }
    }
    std::unique_ptr<FamilyEcmpPaths> family;
    if (config.familyEcmp)
    {
        family = std::make_unique<FamilyEcmpPaths>(topo, flows, fabric.nodes);
        result->familyPaths = family->paths;
    }
    // one application per source node, its flows in file order
    std::vector<Ptr<RoceFlowApplication>> apps(fabric.nodes.GetN());
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        const tn_hpcc_flow& f = flows[i];
        Ptr<RoceFlowApplication>& app = apps[f.src];
        if (!app)
        {
            app = CreateObject<RoceFlowApplication>();
            app->SetAttribute("SharedQp", BooleanValue(config.sharedQp));
            app->TraceConnectWithoutContext("FlowStart",
                                            MakeCallback(&HpccOutput::FlowStart, &run));
            app->TraceConnectWithoutContext("FlowEnd", MakeCallback(&HpccOutput::FlowEnd, &run));
            if (family)
            {
                // FlowStart comes before the NIC posts the flow: the pins precede its packets
                app->TraceConnectWithoutContext(
                    "FlowStart",
                    MakeCallback(&FamilyEcmpPaths::FlowStart, family.get()));
            }
            fabric.nodes.Get(f.src)->AddApplication(app);
        }
        RdmaWriteRequest request;
        request.dst = f.dst;
        request.bytes = f.bytes;
        request.priority = f.priority;
        app->AddFlow(i, request, NanoSeconds(f.start_ns));
    }
    RocePcapFiles pcap;
    if (!config.pcapPrefix.empty() && !pcap.Open(config.pcapPrefix, fabric.devices, error))
    {
        std::fclose(fct);
        if (pfc)
        {
            std::fclose(pfc);
        }
        Simulator::Destroy();
        cleanup();
        return false;
    }
    if (config.stopSeconds > 0)
    {
        Simulator::Stop(Seconds(config.stopSeconds));
    }
    auto t0 = std::chrono::steady_clock::now();
    if (!flows.empty())
    {
        Simulator::Run();
    }
    auto t1 = std::chrono::steady_clock::now();

    result->flows = flows.size();
    result->finished = run.m_finished;
    result->failed = run.m_failed;
    result->fctBelowIdeal = run.m_belowIdeal;
    for (const Ptr<RoceFlowApplication>& app : apps)
    {
        result->sharedQpFlows += app ? app->GetSharedQpFlows() : 0;
    }
    result->pfcEvents = run.m_pfcEvents;
    result->wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    result->simTime = Simulator::Now();
    result->events = Simulator::GetEventCount();
    for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = helper.GetNic(r);
        result->retransmittedBytes += nic->GetRetransmittedBytes();
        result->cnpsSent += nic->GetCnpsSent();
        result->queuePairs += nic->GetNQueuePairs();
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQueuePairByIndex(q);
            Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
            ++result->congestionControls[cc ? cc->GetInstanceTypeId().GetName() : "none"];
            result->windows[{nic->GetLocalId(), qp->GetPeer()}] = cc ? cc->GetWindow() : 0;
            uint32_t d = tn_routes_distance(routes, nic->GetLocalId(), qp->GetPeer());
            if (d != TN_ROUTES_UNREACHABLE)
            {
                result->dataPacketHops += qp->GetDataPacketsSent() * d;
            }
        }
    }
    // bottleneck: wire busy time of each directed link over the flows' span
    const Time end = run.m_finished == flows.size() ? run.m_lastEnd : Simulator::Now();
    const double span = (end - run.m_firstStart).GetSeconds();
    std::unordered_map<const Node*, uint32_t> nodeId;
    for (uint32_t v = 0; v < fabric.nodes.GetN(); ++v)
    {
        nodeId[PeekPointer(fabric.nodes.Get(v))] = v;
    }
    for (uint32_t i = 0; span > 0 && i < fabric.devices.GetN(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(fabric.devices.Get(i));
        const double bits =
            8.0 * double(dev->GetTxBytes() + dev->GetTxPackets() * RoceNetDevice::WIRE_OVERHEAD);
        const double u = bits / double(dev->GetDataRate().GetBitRate()) / span;
        if (u > result->bottleneckUtilisation)
        {
            result->bottleneckUtilisation = u;
            result->bottleneckSrc = nodeId[PeekPointer(dev->GetNode())];
            result->bottleneckPort = dev->GetPortIndex();
            result->bottleneckDst = nodeId[PeekPointer(dev->GetPeer()->GetNode())];
        }
    }
    const bool written = !std::ferror(fct);
    const bool closed = std::fclose(fct) == 0;
    bool pfcOk = true;
    if (pfc)
    {
        pfcOk = !std::ferror(pfc);
        pfcOk = std::fclose(pfc) == 0 && pfcOk;
    }
    std::string pcapError;
    const bool pcapOk = pcap.Close(&pcapError);
    Simulator::Destroy();
    cleanup();
    if (!written || !closed)
    {
        *error = config.fctFile + ": writing failed";
        return false;
    }
    if (!pfcOk)
    {
        *error = config.pfcFile + ": writing failed";
        return false;
    }
    if (!pcapOk)
    {
        *error = pcapError;
        return false;
    }
    return true;
}

} // namespace ns3
