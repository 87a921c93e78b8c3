/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-fabric.h"

#include "rdma-transport.h"
#include "roce-switch.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <array>
#include <utility>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceFabric);
NS_OBJECT_ENSURE_REGISTERED(RocePacketFabric);

namespace
{
/// The levels and their names: the one list programs, scenarios and helpers accept.
const std::array<std::pair<RoceFabric::Mode, const char*>, 3> MODES = {{
    {RoceFabric::PACKET, "packet"},
    {RoceFabric::FLOW, "flow"},
    {RoceFabric::FLOW_SYMMETRIC, "flow-symmetric"},
}};
} // namespace

TypeId
RoceFabric::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceFabric").SetParent<Object>().SetGroupName("TrainingNet");
    return tid;
}

std::string
RoceFabric::GetModeName(Mode mode)
{
    for (const auto& m : MODES)
    {
        if (m.first == mode)
        {
            return m.second;
        }
    }
    return MODES[0].second;
}

bool
RoceFabric::ParseMode(const std::string& name, Mode* mode)
{
    for (const auto& m : MODES)
    {
        if (name == m.second)
        {
            *mode = m.first;
            return true;
        }
    }
    return false;
}

std::vector<std::string>
RoceFabric::GetModeNames()
{
    std::vector<std::string> names;
    for (const auto& m : MODES)
    {
        names.emplace_back(m.second);
    }
    return names;
}

std::string
RoceFabric::ListModeNames()
{
    std::string list;
    for (std::size_t i = 0; i < MODES.size(); ++i)
    {
        list += (i == 0 ? "" : ", ");
        list += MODES[i].second;
    }
    return list;
}

bool
RoceFabric::IsFlowMode(const std::string& name)
{
    Mode mode = PACKET;
    return ParseMode(name, &mode) && mode != PACKET;
}

TypeId
RocePacketFabric::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RocePacketFabric")
                            .SetParent<RoceFabric>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RocePacketFabric>();
    return tid;
}

RocePacketFabric::RocePacketFabric() = default;

void
RocePacketFabric::SetNodes(const std::vector<Ptr<Node>>& nodes)
{
    m_nodes = nodes;
}

void
RocePacketFabric::DoDispose()
{
    m_nodes.clear();
    RoceFabric::DoDispose();
}

RoceFabric::Mode
RocePacketFabric::GetMode() const
{
    return PACKET;
}

void
RocePacketFabric::SetFlowRoute(uint32_t node,
                               uint32_t src,
                               uint32_t dst,
                               uint16_t sport,
                               uint8_t priority,
                               uint32_t port)
{
    // internal invariant: routes are planned over the topology these nodes were built from
    NS_ABORT_MSG_IF(node >= m_nodes.size(), "RocePacketFabric: no node " << node);
    Ptr<Node> hop = m_nodes[node];
    if (hop->GetSystemId() != Simulator::GetSystemId())
    {
        return; // its rank pins it
    }
    hop->GetObject<RoceSwitch>()->SetFlowRoute(src, dst, sport, priority, port);
}

const tn_routes*
RocePacketFabric::GetRoutes() const
{
    return nullptr;
}

const tn_topology*
RocePacketFabric::GetTopology() const
{
    return nullptr;
}

const tn_symmetry*
RocePacketFabric::GetSymmetry() const
{
    return nullptr;
}

Ptr<RdmaTransport>
RocePacketFabric::GetTransport(uint32_t node) const
{
    return node < m_nodes.size() ? m_nodes[node]->GetObject<RdmaTransport>() : nullptr;
}

} // namespace ns3
