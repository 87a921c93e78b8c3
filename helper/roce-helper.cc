/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/distributed-helper.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/flow-nic.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/pfc-deadlock-watch.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/roce-header.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/string.h"
#include "ns3/tn-partition.h"
#include "ns3/tn-routing.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHelper");

RoceHelper::RoceHelper()
{
    m_nicFactory.SetTypeId("ns3::RdmaNic");
    m_flowNetworkFactory.SetTypeId("ns3::FlowNetwork");
}

void
RoceHelper::SetMode(Mode mode)
{
    m_mode = mode;
}

bool
RoceHelper::SetRouting(const std::string& name)
{
    tn_route_order order;
    if (!tn_route_order_parse(name.c_str(), &order))
    {
        return false;
    }
    m_routeOrder = order;
    m_flowNetworkFactory.Set("RouteOrder", EnumValue(order));
    return true;
}

bool
RoceHelper::SetDateline(bool on, uint8_t base, uint8_t dateline)
{
    if (base >= RoceNetDevice::NUM_PRIORITIES || dateline >= RoceNetDevice::NUM_PRIORITIES ||
        base == dateline)
    {
        return false;
    }
    m_dateline = on;
    m_datelineBase = base;
    m_datelinePrio = dateline;
    return true;
}

uint8_t
RoceHelper::DevicePfcMask() const
{
    UintegerValue mask;
    m_deviceFactory.Create<RoceNetDevice>()->GetAttribute("PfcEnableMask", mask);
    return static_cast<uint8_t>(mask.Get());
}

bool
RoceHelper::IsWrapLink(const tn_topology* topo, const tn_link* link)
{
    if (link->dim < 0 || static_cast<uint32_t>(link->dim) >= tn_topology_dim_count(topo))
    {
        return false;
    }
    const tn_dim_info* dim = tn_topology_dim(topo, link->dim);
    const uint32_t a = tn_topology_node_rank(topo, link->src);
    const uint32_t b = tn_topology_node_rank(topo, link->dst);
    // a ring of 2 has no cycle to break
    if ((dim->kind != TN_DIM_TORUS && dim->kind != TN_DIM_RING) || dim->size <= 2 ||
        a == TN_TOPO_NONE || b == TN_TOPO_NONE)
    {
        return false;
    }
    const uint32_t dims = tn_topology_dim_count(topo);
    std::vector<uint32_t> ca(dims);
    std::vector<uint32_t> cb(dims);
    tn_error err;
    if (tn_topology_npu_coords(topo, a, ca.data(), &err) != TN_OK ||
        tn_topology_npu_coords(topo, b, cb.data(), &err) != TN_OK)
    {
        return false;
    }
    const uint32_t x = ca[link->dim];
    const uint32_t y = cb[link->dim];
    return (x == 0 && y == dim->size - 1) || (y == 0 && x == dim->size - 1);
}

bool
RoceHelper::UsesDateline(const tn_topology* topo) const
{
    if (!m_dateline || m_routeOrder != TN_ROUTE_DIMENSION_ORDER ||
        !(DevicePfcMask() & (1u << m_datelineBase)))
    {
        return false;
    }
    const uint32_t links = tn_topology_link_count(topo);
    for (uint32_t l = 0; l < links; ++l)
    {
        if (IsWrapLink(topo, tn_topology_link(topo, l)))
        {
            return true;
        }
    }
    return false;
}

bool
RoceHelper::SetMode(const std::string& name)
{
    return RoceFabric::ParseMode(name, &m_mode);
}

bool
RoceHelper::NeedsPackets(const std::string& attribute)
{
    if (attribute == "ns3::RdmaNic::Mtu" || attribute == "ns3::RoceSwitch::EcmpSeed")
    {
        return false;
    }
    for (const char* type : {"ns3::RdmaNic::",
                             "ns3::RoceSwitch::",
                             "ns3::RoceNetDevice::",
                             "ns3::RoceChannel::",
                             "ns3::RoceSwitchMmu::"})
    {
        if (attribute.rfind(type, 0) == 0)
        {
            return true;
        }
    }
    return false;
}

void
RoceHelper::SetFlowNetworkAttribute(std::string name, const AttributeValue& value)
{
    m_flowNetworkFactory.Set(name, value);
    m_flowNetworkSeedSet = m_flowNetworkSeedSet || name == "EcmpSeed";
}

RoceHelper::~RoceHelper()
{
}

void
RoceHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
RoceHelper::SelectCongestionControl(const std::string& cc)
{
    // internal invariant: names are checked where they enter (the CongestionControl attribute's
    // checker, ScenarioConfig)
    TypeId tid;
    NS_ABORT_MSG_IF(!RdmaCcRegistry::Resolve(cc, &tid),
                    "RoceHelper::SetCongestionControl: unknown congestion control '"
                        << cc << "' (" << RdmaCcRegistry::ListNames() << ")");
    m_nicFactory.Set("CongestionControl", StringValue(cc));
}

void
RoceHelper::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
}

std::string
RoceHelper::Check(const tn_topology* topo) const
{
    std::ostringstream why;
    // only NPUs have addresses: switches may have any id (hier:switch8+switch8192 has 73,736
    // nodes, its 65,536 NPUs first)
    const uint32_t npus = tn_topology_npu_count(topo);
    const uint32_t n = npus ? tn_topology_npu_node(topo, npus - 1) + 1 : 0;
    if (n > MAX_NODES)
    {
        why << "NPU " << npus - 1 << " is node " << n - 1 << "; a RoCE fabric addresses NPUs of "
            << "node ids below " << MAX_NODES
            << " (RoCE addresses 11.x.y.1 carry a 16-bit node id)";
        return why.str();
    }
    const uint32_t links = tn_topology_link_count(topo);
    for (uint32_t l = 0; l < links; ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        if (link->latency_ns > MAX_LATENCY_NS)
        {
            why << "link " << l << " (node " << link->src << " to node " << link->dst
                << "): latency " << link->latency_ns << " ns is more than a RoCE link can have "
                << "(at most " << MAX_LATENCY_NS << " ns, 1 s: queue pairs give up after their "
                << "RetryLimit long before, and the run would go on sampling until the late "
                << "frames land)";
            return why.str();
        }
        if (link->rate_bps < RoceNetDevice::MIN_DATA_RATE_BPS)
        {
            why << "link " << l << " (node " << link->src << " to node " << link->dst << "): rate "
                << link->rate_bps << "bps is below the lowest a RoCE link takes "
                << "(rate at least " << RoceNetDevice::MIN_DATA_RATE_BPS << "bps, 1Gbps: the "
                << "run's timers tick per simulated second, so a slower link only makes it "
                << "last longer)";
            return why.str();
        }
    }
    if (m_mode == FLOW_SYMMETRIC)
    {
        tn_symmetry* symmetry = nullptr;
        // the period the fabric will get, however it was given (SetSymmetricPeriod,
        // SetFlowNetworkAttribute or a default of ns3::FlowNetwork::SymmetricPeriod)
        UintegerValue period;
        m_flowNetworkFactory.Create<FlowNetwork>()->GetAttribute("SymmetricPeriod", period);
        const std::string bad = FlowNetwork::MakeSymmetry(topo, uint32_t(period.Get()), &symmetry);
        tn_symmetry_destroy(symmetry);
        if (!bad.empty())
        {
            return "mode flow-symmetric: " + bad;
        }
    }
    const uint32_t ranks = DistributedHelper::GetSize();
    if (ranks > 1 && m_mode != PACKET)
    {
        return "the flow level runs in one process (" + std::to_string(ranks) + " MPI ranks given)";
    }
    if (ranks > 1 || !m_userPartition.empty())
    {
        std::vector<uint32_t> partition;
        const std::string bad = MakePartition(topo, ranks, &partition);
        if (!bad.empty())
        {
            return bad;
        }
    }
    Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
    for (const auto& a : m_ccAttributes)
    {
        nic->SetCongestionControlAttribute(a.first, *a.second);
    }
    if (nic->GetCongestionControl() == RdmaHpcc::GetTypeId() &&
        HpccIntRates() == RdmaHpcc::INT_RATES_CODES)
    {
        // every forwarding port stamps its rate code into HPCC's INT hops: a rate without a
        // code is refused here, before the first packet is stamped mid-run
        const int64_t l = FindRateWithoutIntCode(topo);
        if (l >= 0)
        {
            const tn_link* link = tn_topology_link(topo, uint32_t(l));
            why << "link " << l << " (node " << link->src << " to node " << link->dst
                << "): HPCC's INT cannot carry the port rate " << link->rate_bps
                << " bit/s in the family's codes (10, 25, 40, 50, 100, 200, 400 and 800 Gb/s; "
                   "ns3::RdmaHpcc::IntRates=wide or auto carries any rate)";
            return why.str();
        }
    }
    return nic->GetConfigError();
}

RdmaHpcc::IntRates
RoceHelper::HpccIntRates() const
{
    Ptr<RdmaHpcc> probe = CreateObject<RdmaHpcc>();
    for (const auto& a : m_ccAttributes)
    {
        probe->SetAttributeFailSafe(a.first, *a.second);
    }
    return probe->GetIntRates();
}

int64_t
RoceHelper::FindRateWithoutIntCode(const tn_topology* topo)
{
    const bool npusForward = tn_topology_npus_forward(topo);
    for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        const bool forwards = npusForward || tn_topology_node_kind(topo, link->src) != TN_NODE_NPU;
        if (forwards && RoceIntHeader::RateCode(link->rate_bps) == RoceIntHeader::NO_RATE_CODE)
        {
            return l;
        }
    }
    return -1;
}

void
RoceHelper::SetPartition(const std::vector<uint32_t>& rankOfNode)
{
    m_userPartition = rankOfNode;
}

std::string
RoceHelper::MakePartition(const tn_topology* topo,
                          uint32_t ranks,
                          std::vector<uint32_t>* rankOfNode) const
{
    const uint32_t n = tn_topology_node_count(topo);
    std::ostringstream why;
    rankOfNode->assign(n, 0);
    if (!m_userPartition.empty())
    {
        if (m_userPartition.size() != n)
        {
            why << "partition: " << m_userPartition.size() << " nodes placed, the topology has "
                << n;
            return why.str();
        }
        std::vector<uint32_t> used(ranks, 0);
        for (uint32_t v = 0; v < n; ++v)
        {
            if (m_userPartition[v] >= ranks)
            {
                why << "partition: node " << v << " is on rank " << m_userPartition[v]
                    << ", but the run has " << ranks << " rank" << (ranks == 1 ? "" : "s");
                return why.str();
            }
            ++used[m_userPartition[v]];
        }
        for (uint32_t r = 0; r < ranks; ++r)
        {
            if (used[r] == 0)
            {
                why << "partition: rank " << r << " of " << ranks << " has no node";
                return why.str();
            }
        }
        *rankOfNode = m_userPartition;
    }
    else if (ranks > 1)
    {
        tn_error err;
        if (ranks > n)
        {
            why << "partition: " << ranks << " ranks for " << n << " nodes (more ranks than nodes)";
            return why.str();
        }
        if (tn_partition_auto(topo, ranks, rankOfNode->data(), &err) != TN_OK)
        {
            return err.message;
        }
    }
    const uint32_t links = tn_topology_link_count(topo);
    for (uint32_t l = 0; l < links; ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        if (link->latency_ns == 0 && (*rankOfNode)[link->src] != (*rankOfNode)[link->dst])
        {
            why << "partition: the cable between node " << link->src << " (rank "
                << (*rankOfNode)[link->src] << ") and node " << link->dst << " (rank "
                << (*rankOfNode)[link->dst] << ") has zero latency; a cable between ranks "
                << "needs a positive latency (the smallest is the lookahead)";
            return why.str();
        }
    }
    return "";
}

std::string
RoceHelper::ParsePartition(const std::string& text,
                           uint32_t nodeCount,
                           uint32_t ranks,
                           std::vector<uint32_t>* rankOfNode)
{
    std::vector<uint32_t> nodes;
    std::vector<uint32_t> sizes;
    std::string group;
    std::istringstream groups(text);
    while (std::getline(groups, group, ';'))
    {
        uint32_t size = 0;
        std::string item;
        std::istringstream items(group);
        while (std::getline(items, item, ','))
        {
            const std::size_t dash = item.find('-');
            const std::string firstText = item.substr(0, dash);
            const std::string lastText =
                dash == std::string::npos ? firstText : item.substr(dash + 1);
            char* end1 = nullptr;
            char* end2 = nullptr;
            const unsigned long first = std::strtoul(firstText.c_str(), &end1, 10);
            const unsigned long last = std::strtoul(lastText.c_str(), &end2, 10);
            if (firstText.empty() || lastText.empty() || *end1 || *end2 || last < first ||
                last > UINT32_MAX)
            {
                return "partition: rank " + std::to_string(sizes.size()) + ": '" + item +
                       "' is not a node id or a range a-b";
            }
            for (unsigned long v = first; v <= last; ++v)
            {
                nodes.push_back(static_cast<uint32_t>(v));
                ++size;
                if (v >= nodeCount)
                {
                    break; // refused below with the id
                }
            }
        }
        sizes.push_back(size);
    }
    if (sizes.size() != ranks && sizes.size() <= nodeCount)
    {
        return "partition: it names " + std::to_string(sizes.size()) + " rank" +
               (sizes.size() == 1 ? "" : "s") + ", the run has " + std::to_string(ranks);
    }
    rankOfNode->assign(nodeCount, 0);
    tn_error err;
    if (tn_partition_from_lists(nodeCount,
                                sizes.size(),
                                nodes.data(),
                                sizes.data(),
                                rankOfNode->data(),
                                &err) != TN_OK)
    {
        return err.message;
    }
    return "";
}

bool
RoceHelper::IsLocal(uint32_t id) const
{
    return id >= m_rankOfNode.size() || m_rankOfNode[id] == m_localRank;
}

RoceFabricNodes
RoceHelper::Install(const tn_topology* topo)
{
    // internal invariant: an API contract kept by the helpers and programs; no option or file
    // reaches it
    NS_ABORT_MSG_IF(!topo, "RoceHelper::Install: null topology");
    uint32_t n = tn_topology_node_count(topo);
    // internal invariant: the core refuses empty topologies (tn_topology_validate) before a fabric
    // is built
    NS_ABORT_MSG_IF(n == 0, "RoceHelper::Install: empty topology");
    // internal invariant: programs call RoceHelper::Check first, which refuses NPU node ids of
    // MAX_NODES or more
    const uint32_t npus = tn_topology_npu_count(topo);
    NS_ABORT_MSG_IF(npus && tn_topology_npu_node(topo, npus - 1) >= MAX_NODES,
                    "RoceHelper::Install: NPU node ids beyond " << MAX_NODES
                                                                << " (RoCE addresses)");
    const uint32_t ranks = DistributedHelper::GetSize();
    m_localRank = DistributedHelper::GetRank();
    const std::string bad = MakePartition(topo, ranks, &m_rankOfNode);
    // internal invariant: the partition is checked where it enters (ScenarioConfig, ParsePartition)
    // before Install
    NS_ABORT_MSG_IF(!bad.empty(), "RoceHelper::Install: " << bad);
    const TypeId cc = m_nicFactory.Create<RdmaNic>()->GetCongestionControl();
    if ((cc == RdmaHpcc::GetTypeId() || cc.IsChildOf(RdmaHpcc::GetTypeId())) &&
        HpccIntRates() == RdmaHpcc::INT_RATES_AUTO && FindRateWithoutIntCode(topo) >= 0)
    {
        // a port rate outside the family's eight codes: every HPCC hop carries its rate (the
        // NICs get this with the other congestion-control attributes below; only HPCC's class
        // has the attribute)
        m_ccAttributes.emplace_back("IntRates", EnumValue(RdmaHpcc::INT_RATES_WIDE).Copy());
    }
    uint64_t lookahead = 0;
    tn_partition_cut(topo, m_rankOfNode.data(), nullptr, &lookahead);
    m_lookahead = lookahead == UINT64_MAX ? Time(0) : NanoSeconds(lookahead);
    RoceFabricNodes f;
    // every rank holds every node, device and channel (node ids, interface indices and MAC
    // addresses agree on all ranks); only the nodes of this rank get routes and NICs
    for (uint32_t v = 0; v < n; ++v)
    {
        f.nodes.Create(1, m_rankOfNode[v]);
    }
    for (uint32_t v = 0; v < n; ++v)
    {
        if (tn_topology_node_kind(topo, v) == TN_NODE_NPU)
        {
            f.npus.Add(f.nodes.Get(v));
        }
        else
        {
            f.switches.Add(f.nodes.Get(v));
        }
    }
    m_nics.clear();
    m_flowNetwork = nullptr;
    m_deadlockWatch = nullptr;
    if (m_mode != PACKET)
    {
        InstallFlow(topo, f);
        m_roceFabric = m_flowNetwork;
        m_fabric = f;
        return f;
    }
    Ptr<RocePacketFabric> packets = CreateObject<RocePacketFabric>();
    packets->SetNodes(std::vector<Ptr<Node>>(f.nodes.Begin(), f.nodes.End()));
    m_roceFabric = packets;
    // every node gets its forwarding object, also those without cables
    for (uint32_t v = 0; v < n; ++v)
    {
        GetOrInstallSwitch(f.nodes.Get(v));
    }

    InstallCables(topo, f);
    InstallRoutes(topo, f);
    InstallNics(topo, f, packets);
    m_fabric = f;
    return f;
}

void
RoceHelper::InstallCables(const tn_topology* topo, RoceFabricNodes& f)
{
    // the dateline's priority is lossless wherever the base is: the devices get it for this
    // Install only
    const bool dateline = UsesDateline(topo);
    const uint8_t userMask = DevicePfcMask();
    if (dateline)
    {
        SetDeviceAttribute("PfcEnableMask",
                           UintegerValue(userMask | static_cast<uint8_t>(1u << m_datelinePrio)));
    }
    // cables in link id order: ports are then numbered as in the topology
    uint32_t links = tn_topology_link_count(topo);
    for (uint32_t l = 0; l < links; ++l)
    {
        const tn_link* ab = tn_topology_link(topo, l);
        if (ab->reverse < l)
        {
            continue; // second direction of a cable already built
        }
        const tn_link* ba = tn_topology_link(topo, ab->reverse);
        // internal invariant: the core builds both directions of a cable from one line
        // (tn_topology_add_link)
        NS_ABORT_MSG_IF(ab->rate_bps != ba->rate_bps || ab->latency_ns != ba->latency_ns,
                        "RoceHelper: asymmetric cable " << l);
        SetDeviceAttribute("DataRate", DataRateValue(DataRate(ab->rate_bps)));
        SetChannelAttribute("Delay", TimeValue(NanoSeconds(ab->latency_ns)));
        NetDeviceContainer d = RoceLinkHelper::Install(f.nodes.Get(ab->src), f.nodes.Get(ab->dst));
        Ptr<RoceNetDevice> da = DynamicCast<RoceNetDevice>(d.Get(0));
        Ptr<RoceNetDevice> db = DynamicCast<RoceNetDevice>(d.Get(1));
        // internal invariant: ports are numbered here in the topology's order
        NS_ABORT_MSG_IF(da->GetPortIndex() != ab->src_port || db->GetPortIndex() != ab->dst_port,
                        "RoceHelper: port numbering of cable " << l << " differs from topology");
        // error rate of a directed link: applied where it is received
        const tn_link* dirs[2] = {ab, ba};
        Ptr<RoceNetDevice> rx[2] = {db, da};
        for (int k = 0; k < 2; ++k)
        {
            if (dirs[k]->error_rate > 0)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(dirs[k]->error_rate);
                rx[k]->SetReceiveErrorModel(em);
                m_errorModels.push_back(em);
            }
        }
        f.devices.Add(d);
    }

    if (dateline)
    {
        SetDeviceAttribute("PfcEnableMask", UintegerValue(userMask));
        for (uint32_t l = 0; l < links; ++l)
        {
            const tn_link* link = tn_topology_link(topo, l);
            if (IsLocal(link->src))
            {
                Ptr<RoceSwitch> sw = f.nodes.Get(link->src)->GetObject<RoceSwitch>();
                sw->SetDateline(m_datelineBase, m_datelinePrio);
                sw->SetPortDim(link->src_port, link->dim, IsWrapLink(topo, link));
            }
        }
    }
}

void
RoceHelper::InstallRoutes(const tn_topology* topo, const RoceFabricNodes& f)
{
    const uint32_t n = tn_topology_node_count(topo);
    // ECMP next hops toward every NPU on every node with more than one port (a host's single
    // cable is its default route)
    tn_routes* routes = nullptr;
    tn_error err;
    tn_routes_options routeOptions{};
    routeOptions.order = m_routeOrder;
    if (tn_routes_create(topo, &routeOptions, &routes, &err) != TN_OK)
    {
        NS_FATAL_ERROR("RoceHelper: routes: " << err.message);
    }
    uint32_t nnpu = tn_topology_npu_count(topo);
    std::vector<uint32_t> forwarders; // nodes with more than one port
    std::vector<Ptr<RoceSwitch>> fwd;
    uint32_t maxDegree = 0;
    for (uint32_t v = 0; v < n; ++v)
    {
        const uint32_t degree = tn_topology_degree(topo, v);
        if (degree > 1 && IsLocal(v))
        {
            forwarders.push_back(v);
            fwd.push_back(f.nodes.Get(v)->GetObject<RoceSwitch>());
            maxDegree = std::max(maxDegree, degree);
        }
    }
    std::vector<uint32_t> hops(maxDegree);
    std::vector<uint32_t> ports;
    // destination outer: the distances toward one destination are one row of the route table,
    // which stays in cache while every node looks it up (node outer: k=32 builds 1.5x slower)
    for (uint32_t r = 0; r < nnpu; ++r)
    {
        const uint32_t d = tn_topology_npu_node(topo, r);
        for (std::size_t i = 0; i < forwarders.size(); ++i)
        {
            const uint32_t v = forwarders[i];
            if (d == v)
            {
                continue;
            }
            const uint32_t c = tn_routes_next_hops(routes, v, d, hops.data(), hops.size());
            if (c == 0)
            {
                continue;
            }
            ports.clear();
            for (uint32_t h = 0; h < c; ++h)
            {
                ports.push_back(tn_topology_link(topo, hops[h])->src_port);
            }
            fwd[i]->SetRoute(d, ports);
        }
    }
    tn_routes_destroy(routes);
}

void
RoceHelper::InstallNics(const tn_topology* topo,
                        const RoceFabricNodes& f,
                        Ptr<RocePacketFabric> packets)
{
    const uint32_t n = tn_topology_node_count(topo);
    const uint32_t nnpu = tn_topology_npu_count(topo);
    // NICs on NPUs
    for (uint32_t r = 0; r < nnpu; ++r)
    {
        uint32_t v = tn_topology_npu_node(topo, r);
        if (!IsLocal(v))
        {
            m_nics.push_back(nullptr);
            continue;
        }
        Ptr<Node> node = f.nodes.Get(v);
        Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
        for (const auto& a : m_ccAttributes)
        {
            nic->SetCongestionControlAttribute(a.first, *a.second);
        }
        nic->SetLocalId(v);
        node->AggregateObject(nic);
        nic->Attach(node->GetObject<RoceSwitch>());
        nic->SetFabric(packets);
        m_nics.push_back(nic);
    }
    // the deadlock watch over this rank's nodes (idle until a port is paused)
    m_deadlockWatch = CreateObject<PfcDeadlockWatch>();
    for (uint32_t v = 0; v < n; ++v)
    {
        if (IsLocal(v))
        {
            m_deadlockWatch->Add(f.nodes.Get(v)->GetObject<RoceSwitch>(), v);
        }
    }
}

void
RoceHelper::SetSymmetricPeriod(uint32_t period)
{
    m_flowNetworkFactory.Set("SymmetricPeriod", UintegerValue(period));
}

void
RoceHelper::InstallFlow(const tn_topology* topo, RoceFabricNodes& f)
{
    m_flowNetwork = m_flowNetworkFactory.Create<FlowNetwork>();
    if (m_mode == FLOW_SYMMETRIC)
    {
        m_flowNetwork->SetAttribute("Symmetric", BooleanValue(true));
    }
    if (!m_flowNetworkSeedSet)
    {
        // the switches' ECMP seed: flows take the paths packets would
        UintegerValue seed;
        m_switchFactory.Create<RoceSwitch>()->GetAttribute("EcmpSeed", seed);
        m_flowNetwork->SetAttribute("EcmpSeed", seed);
    }
    m_flowNetwork->Build(topo);
    const uint32_t mtu = m_nicFactory.Create<RdmaNic>()->GetMtu(); // the NIC attribute
    const uint32_t nnpu = tn_topology_npu_count(topo);
    for (uint32_t r = 0; r < nnpu; ++r)
    {
        const uint32_t v = tn_topology_npu_node(topo, r);
        Ptr<FlowNic> nic = CreateObject<FlowNic>();
        nic->SetAttribute("Mtu", UintegerValue(mtu));
        nic->SetLocalId(v);
        f.nodes.Get(v)->AggregateObject(nic);
        nic->Attach(m_flowNetwork);
        m_nics.push_back(nic);
    }
}

Ipv4InterfaceContainer
RoceHelper::InstallInternetStack()
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_fabric.npus.GetN() == 0, "RoceHelper::InstallInternetStack: Install first");
    // internal invariant: an API contract kept by the helpers and programs; no option or file
    // reaches it
    NS_ABORT_MSG_IF(m_mode != PACKET,
                    "RoceHelper::InstallInternetStack: the flow level carries no packets");
    InternetStackHelper stack;
    Ipv4InterfaceContainer interfaces;
    for (uint32_t r = 0; r < m_fabric.npus.GetN(); ++r)
    {
        Ptr<Node> node = m_fabric.npus.Get(r);
        Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
        // internal invariant: every NPU of a validated topology has a link
        NS_ABORT_MSG_IF(!sw || sw->GetNPorts() == 0,
                        "RoceHelper::InstallInternetStack: NPU rank " << r << " has no port");
        if (!node->GetObject<Ipv4>())
        {
            stack.Install(node);
        }
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        const uint32_t port = 0;
        const int32_t i = ipv4->AddInterface(sw->GetPort(port));
        ipv4->AddAddress(i,
                         Ipv4InterfaceAddress(RoceAddress::FromNodeId(m_nics[r]->GetLocalId()),
                                              Ipv4Mask("255.0.0.0")));
        ipv4->SetUp(i);
        sw->SetIpPort(port);
        interfaces.Add(ipv4, i);
    }
    return interfaces;
}

Ptr<RdmaNic>
RoceHelper::GetNic(uint32_t rank) const
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(rank >= m_nics.size(), "RoceHelper::GetNic: no NPU rank " << rank);
    // internal invariant: an API contract kept by the helpers and programs; no option or file
    // reaches it
    NS_ABORT_MSG_IF(m_mode != PACKET,
                    "RoceHelper::GetNic: flow level has no RdmaNic (use GetTransport)");
    return DynamicCast<RdmaNic>(m_nics[rank]);
}

Ptr<RdmaTransport>
RoceHelper::GetTransport(uint32_t rank) const
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(rank >= m_nics.size(), "RoceHelper::GetTransport: no NPU rank " << rank);
    return m_nics[rank];
}

Ptr<Node>
RoceHelper::GetNode(uint32_t id) const
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(id >= m_fabric.nodes.GetN(), "RoceHelper::GetNode: no node " << id);
    return m_fabric.nodes.Get(id);
}

int64_t
RoceHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& em : m_errorModels)
    {
        used += em->AssignStreams(stream + used);
    }
    for (uint32_t i = 0; i < m_fabric.nodes.GetN(); ++i)
    {
        Ptr<RoceSwitch> sw = m_fabric.nodes.Get(i)->GetObject<RoceSwitch>();
        if (sw)
        {
            used += sw->AssignStreams(stream + used);
        }
    }
    // the NICs' ranges by rank, not by the NICs this process holds (null on other MPI ranks)
    for (size_t rank = 0; rank < m_nics.size(); ++rank)
    {
        Ptr<RdmaNic> nic = DynamicCast<RdmaNic>(m_nics[rank]);
        if (nic)
        {
            nic->AssignStreams(stream + used + static_cast<int64_t>(rank) * RdmaNic::QP_STREAMS);
        }
    }
    return used + static_cast<int64_t>(m_nics.size()) * RdmaNic::QP_STREAMS;
}

} // namespace ns3
