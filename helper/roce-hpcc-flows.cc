/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-flows.h"

#include "roce-helper.h"

#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-routing.h"
#include "ns3/uinteger.h"

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// Split a line into blank-separated fields.
std::vector<std::string>
SplitFields(const std::string& line)
{
    std::vector<std::string> out;
    std::istringstream is(line);
    std::string f;
    while (is >> f)
    {
        out.push_back(f);
    }
    return out;
}

/// Parse an unsigned integer; the whole field must be digits.
bool
ParseUnsigned(const std::string& s, uint64_t max, uint64_t* v)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || x > max)
    {
        return false;
    }
    *v = x;
    return true;
}

/// Parse a non-negative finite real.
bool
ParseSeconds(const std::string& s, double* v)
{
    if (s.empty())
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(s.c_str(), &end);
    if (errno != 0 || *end != '\0' || !std::isfinite(x) || x < 0 || x > 1e6)
    {
        return false;
    }
    *v = x;
    return true;
}

/// Wire time of a frame in ns, rounded like RoceNetDevice::GetWireTime.
uint64_t
WireNs(uint64_t wireBytes, uint64_t rateBps)
{
    unsigned __int128 steps = static_cast<unsigned __int128>(wireBytes) * 8 * 1000000000ULL;
    return static_cast<uint64_t>((steps + rateBps / 2) / rateBps);
}

/// State of one run, target of the callbacks.
class HpccRun
{
  public:
    HpccRun(const std::vector<RoceHpccFlow>& flows,
            const std::vector<uint64_t>& ideal,
            std::FILE* fct)
        : m_flows(flows),
          m_ideal(ideal),
          m_fct(fct)
    {
    }

    void Start(uint32_t i)
    {
        const RoceHpccFlow& f = m_flows[i];
        Ptr<RdmaNic> nic = m_nodes.Get(f.src)->GetObject<RdmaNic>();
        uint64_t id =
            nic->PostWrite(f.dst, f.bytes, f.priority, MakeCallback(&HpccRun::Done, this));
        m_byMessage[std::make_pair(f.src, id)] = i;
    }

    void Done(const RdmaMessageRecord& rec)
    {
        auto it = m_byMessage.find(std::make_pair(rec.src, rec.id));
        if (it == m_byMessage.end())
        {
            return;
        }
        const RoceHpccFlow& f = m_flows[it->second];
        uint64_t fctNs = static_cast<uint64_t>((rec.end - rec.start).GetNanoSeconds());
        uint64_t ideal = m_ideal[it->second];
        std::fprintf(m_fct,
                     "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                     RoceHpccFlows::NodeIp(f.src),
                     RoceHpccFlows::NodeIp(f.dst),
                     static_cast<unsigned>(rec.udpSourcePort),
                     static_cast<unsigned>(f.dport),
                     f.bytes,
                     f.startNs,
                     fctNs,
                     ideal);
        if (fctNs < ideal)
        {
            ++m_belowIdeal;
        }
        m_byMessage.erase(it);
        if (++m_finished == m_flows.size())
        {
            Simulator::Stop();
        }
    }

    NodeContainer m_nodes;
    const std::vector<RoceHpccFlow>& m_flows;
    const std::vector<uint64_t>& m_ideal;
    std::FILE* m_fct;
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> m_byMessage;
    uint64_t m_finished{0};
    uint64_t m_belowIdeal{0};
};

} // namespace

bool
RoceHpccFlows::ParseFlowFile(const std::string& path,
                             const tn_topology* topo,
                             std::vector<RoceHpccFlow>* flows,
                             std::string* error)
{
    std::ifstream in(path);
    if (!in)
    {
        *error = path + ": cannot open flow file";
        return false;
    }
    flows->clear();
    uint32_t nodes = tn_topology_node_count(topo);
    std::string line;
    uint32_t lineNo = 0;
    bool haveCount = false;
    uint64_t count = 0;
    auto fail = [&](const std::string& what) {
        *error = path + ":" + std::to_string(lineNo) + ": " + what;
        return false;
    };
    while (std::getline(in, line))
    {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        std::vector<std::string> f = SplitFields(line);
        if (f.empty())
        {
            continue; // blank line
        }
        if (!haveCount)
        {
            if (f.size() != 1)
            {
                return fail("first line must hold the number of flows only, found " +
                            std::to_string(f.size()) + " fields");
            }
            if (!ParseUnsigned(f[0], UINT32_MAX, &count))
            {
                return fail("number of flows '" + f[0] + "' is not a non-negative integer");
            }
            haveCount = true;
            continue;
        }
        if (f.size() != 6)
        {
            return fail("expected 6 fields 'src dst priority dst_port size_bytes "
                        "start_seconds', found " +
                        std::to_string(f.size()));
        }
        if (flows->size() == count)
        {
            return fail("more flow lines than the " + std::to_string(count) + " announced");
        }
        RoceHpccFlow flow;
        flow.line = lineNo;
        uint64_t v;
        const char* names[2] = {"src", "dst"};
        uint32_t ends[2];
        for (int k = 0; k < 2; ++k)
        {
            if (!ParseUnsigned(f[k], UINT32_MAX, &v))
            {
                return fail(std::string(names[k]) + " '" + f[k] + "' is not a node id");
            }
            if (v >= nodes)
            {
                return fail(std::string(names[k]) + " node " + f[k] + " out of range (" +
                            std::to_string(nodes) + " nodes)");
            }
            if (tn_topology_node_kind(topo, static_cast<uint32_t>(v)) != TN_NODE_NPU)
            {
                return fail(std::string(names[k]) + " node " + f[k] + " is a switch");
            }
            ends[k] = static_cast<uint32_t>(v);
        }
        flow.src = ends[0];
        flow.dst = ends[1];
        if (flow.src == flow.dst)
        {
            return fail("src and dst are the same node " + f[0]);
        }
        if (!ParseUnsigned(f[2], 7, &v))
        {
            return fail("priority '" + f[2] + "' is not an integer in 0..7");
        }
        flow.priority = static_cast<uint8_t>(v);
        if (!ParseUnsigned(f[3], 65535, &v))
        {
            return fail("dst_port '" + f[3] + "' is not an integer in 0..65535");
        }
        flow.dport = static_cast<uint16_t>(v);
        if (!ParseUnsigned(f[4], UINT64_MAX, &v))
        {
            return fail("size_bytes '" + f[4] + "' is not a non-negative integer");
        }
        flow.bytes = v;
        double start;
        if (!ParseSeconds(f[5], &start))
        {
            return fail("start_seconds '" + f[5] + "' is not a time in seconds (0..1e6)");
        }
        flow.startNs = static_cast<uint64_t>(std::llround(start * 1e9));
        flows->push_back(flow);
    }
    if (!haveCount)
    {
        lineNo = lineNo == 0 ? 1 : lineNo;
        return fail("empty flow file (no flow count)");
    }
    if (flows->size() != count)
    {
        return fail("file ends after " + std::to_string(flows->size()) + " flows, " +
                    std::to_string(count) + " announced");
    }
    return true;
}

uint64_t
RoceHpccFlows::IdealFctNs(const tn_topology* topo,
                          const void* routesPtr,
                          const RoceHpccFlow& flow,
                          uint32_t mtu)
{
    const tn_routes* routes = static_cast<const tn_routes*>(routesPtr);
    uint32_t dist = tn_routes_distance(routes, flow.src, flow.dst);
    NS_ABORT_MSG_IF(dist == TN_ROUTES_UNREACHABLE,
                    "no route from " << flow.src << " to " << flow.dst);
    std::vector<uint32_t> path(dist);
    uint32_t len = 0;
    tn_error err;
    if (tn_routes_path(routes, flow.src, flow.dst, 0, path.data(), dist, &len, &err) != TN_OK)
    {
        NS_FATAL_ERROR("ideal FCT: " << err.message);
    }
    const uint64_t overhead = RdmaNic::DATA_WIRE_OVERHEAD;
    const uint64_t packets = flow.bytes == 0 ? 1 : (flow.bytes - 1) / mtu + 1;
    const uint64_t firstPayload = std::min<uint64_t>(flow.bytes, mtu);
    const uint64_t lastPayload = flow.bytes - (packets - 1) * mtu;
    const uint64_t fullPayload = mtu;
    const uint64_t ackWire = 86;
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
        tFirst[h] = WireNs(firstPayload + overhead + RdmaNic::RETH_BYTES, r);
        if (packets == 1)
        {
            tLast[h] = tFirst[h];
            tAll[h] = tFirst[h];
        }
        else
        {
            tLast[h] = WireNs(lastPayload + overhead, r);
            tAll[h] = tFirst[h] + tLast[h] + (packets - 2) * WireNs(fullPayload + overhead, r);
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

bool
RoceHpccFlows::Run(const RoceHpccConfig& config, RoceHpccResult* result, std::string* error)
{
    *result = RoceHpccResult();
    if (config.cc != "dcqcn" && config.cc != "none")
    {
        *error = "--cc: '" + config.cc + "' is not dcqcn or none";
        return false;
    }
    if (config.mtu != 256 && config.mtu != 512 && config.mtu != 1024 && config.mtu != 2048 &&
        config.mtu != 4096)
    {
        *error = "--mtu: " + std::to_string(config.mtu) + " is not 256, 512, 1024, 2048 or 4096";
        return false;
    }
    if (config.seed == 0)
    {
        *error = "--seed: must be > 0";
        return false;
    }
    if (!(config.stopSeconds >= 0))
    {
        *error = "--stop: must be >= 0";
        return false;
    }
    tn_topology* topo = nullptr;
    tn_error err;
    if (tn_topology_load_file(config.topologyFile.c_str(), &topo, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    std::vector<RoceHpccFlow> flows;
    if (!ParseFlowFile(config.flowFile, topo, &flows, error))
    {
        tn_topology_destroy(topo);
        return false;
    }
    tn_routes* routes = nullptr;
    if (tn_routes_create(topo, nullptr, &routes, &err) != TN_OK)
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
        ideal.push_back(IdealFctNs(topo, routes, f, config.mtu));
    }
    std::FILE* fct = std::fopen(config.fctFile.c_str(), "w");
    if (!fct)
    {
        *error = config.fctFile + ": cannot open for writing";
        tn_routes_destroy(routes);
        tn_topology_destroy(topo);
        return false;
    }

    RngSeedManager::SetSeed(config.seed);
    RngSeedManager::SetRun(1);
    RoceHelper helper;
    helper.SetNicAttribute("Mtu", UintegerValue(config.mtu));
    helper.SetNicAttribute("CongestionControl", StringValue(config.cc));
    RoceFabricNodes fabric = helper.Install(topo);
    helper.AssignStreams(0);

    HpccRun run(flows, ideal, fct);
    run.m_nodes = fabric.nodes;
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        Simulator::Schedule(NanoSeconds(flows[i].startNs), &HpccRun::Start, &run, i);
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
    result->fctBelowIdeal = run.m_belowIdeal;
    result->wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    result->simTime = Simulator::Now();
    result->events = Simulator::GetEventCount();
    for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = helper.GetNic(r);
        result->retransmittedBytes += nic->GetRetransmittedBytes();
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQueuePairByIndex(q);
            uint32_t d = tn_routes_distance(routes, nic->GetLocalId(), qp->GetPeer());
            if (d != TN_ROUTES_UNREACHABLE)
            {
                result->dataPacketHops += qp->GetDataPacketsSent() * d;
            }
        }
    }
    const bool written = !std::ferror(fct);
    const bool closed = std::fclose(fct) == 0;
    Simulator::Destroy();
    tn_routes_destroy(routes);
    tn_topology_destroy(topo);
    if (!written || !closed)
    {
        *error = config.fctFile + ": writing failed";
        return false;
    }
    return true;
}

} // namespace ns3
