/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-inputs.h"

#include "ns3/roce-ideal-fct.h"

#include <algorithm>

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

} // namespace

RoceHpccInputs::~RoceHpccInputs()
{
    tn_routes_destroy(m_routes);
    tn_topology_destroy(m_topo);
}

bool
RoceHpccInputs::LoadTopology(const std::string& path,
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
RoceHpccInputs::Load(const RoceHpccConfig& config, std::string* error)
{
    std::string notice;
    if (!LoadTopology(config.topologyFile,
                      &m_topo,
                      &m_torCount,
                      error,
                      config.ignoreTrailingLines,
                      &notice))
    {
        return false;
    }
    if (!notice.empty())
    {
        m_notices.push_back(notice);
    }
    tn_hpcc_flows* flowFile = nullptr;
    tn_error err;
    if (tn_hpcc_flows_load(config.flowFile.c_str(),
                           m_topo,
                           config.ignoreTrailingLines,
                           &flowFile,
                           &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    if (flowFile->trailing.first_line)
    {
        m_notices.push_back(TrailingNotice(config.flowFile, flowFile->trailing, "flows"));
    }
    m_flows.assign(flowFile->flow, flowFile->flow + flowFile->count);
    tn_hpcc_flows_destroy(flowFile);

    if (!RoceHpccConfigReader::ResolveEcnMaps(config, m_topo, &m_ecnSettings, error))
    {
        return false;
    }

    // the ideal FCTs need routes toward the flows' destinations only (a fat-tree k=32 has
    // 8192 NPUs: routes toward all of them would take 155 MB and seconds)
    std::vector<uint32_t> destinations;
    for (const auto& f : m_flows)
    {
        destinations.push_back(f.dst);
    }
    std::sort(destinations.begin(), destinations.end());
    destinations.erase(std::unique(destinations.begin(), destinations.end()), destinations.end());
    tn_routes_options routeOptions{};
    routeOptions.dest_nodes = destinations.data();
    routeOptions.dest_count = static_cast<uint32_t>(destinations.size());
    if (tn_routes_create(m_topo, &routeOptions, &m_routes, &err) != TN_OK)
    {
        *error = config.topologyFile + ": routes: " + err.message;
        return false;
    }
    for (const auto& f : m_flows)
    {
        if (tn_routes_distance(m_routes, f.src, f.dst) == TN_ROUTES_UNREACHABLE)
        {
            *error = config.flowFile + ":" + std::to_string(f.line) + ": node " +
                     std::to_string(f.dst) + " is unreachable from node " + std::to_string(f.src);
            return false;
        }
        // a run that counts the family's frame bytes (RoceHpccFlows sets
        // RoceNetDevice::Framing so) has the family's ideal too
        m_idealNs.push_back(
            RoceIdealFctNs(m_topo,
                           m_routes,
                           f.src,
                           f.dst,
                           f.bytes,
                           config.mtu,
                           config.FamilyFraming() ? RoceWire::HPCC_FAMILY : RoceWire::ETHERNET));
    }
    return true;
}

} // namespace ns3
