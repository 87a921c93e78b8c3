/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-helper.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/enum.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-udp-port.h"
#include "ns3/string.h"
#include "ns3/study-topology.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveHelper");

CollectiveHelper::CollectiveHelper()
{
    m_serviceFactory.SetTypeId(CollectiveService::GetTypeId());
    m_executorFactory.SetTypeId(CollectiveExecutor::GetTypeId());
    m_nicFactory.SetTypeId(RdmaNic::GetTypeId());
}

CollectiveHelper::~CollectiveHelper()
{
    tn_topology_destroy(m_studyTopo);
}

void
CollectiveHelper::SetServiceAttribute(std::string name, const AttributeValue& value)
{
    SetService(name, value);
}

void
CollectiveHelper::SetExecutorAttribute(std::string name, const AttributeValue& value)
{
    m_executorFactory.Set(name, value);
}

void
CollectiveHelper::SetService(const std::string& name, const AttributeValue& value)
{
    m_serviceFactory.Set(name, value);
    if (m_service)
    {
        m_service->SetAttribute(name, value);
    }
}

Ptr<CollectiveService>
CollectiveHelper::Install(const tn_topology* topo, RoceHelper& roce)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_service, "CollectiveHelper::Install called twice");
    const uint32_t npus = tn_topology_npu_count(topo);
    for (uint32_t r = 0; r < npus; r++)
    {
        const uint32_t node = tn_topology_npu_node(topo, r);
        if (roce.IsLocal(node)) // other MPI ranks install theirs
        {
            roce.GetNode(node)->AggregateObject(m_executorFactory.Create<CollectiveExecutor>());
        }
    }
    // the planner routes as the fabric does, or planned routes would cross the dims in an
    // order the fabric was set to avoid
    m_serviceFactory.Set("RouteOrder", EnumValue(roce.GetRouteOrder()));
    m_service = m_serviceFactory.Create<CollectiveService>();
    m_service->Setup(topo, roce.GetFabric().nodes);
    return m_service;
}

void
CollectiveHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

bool
CollectiveHelper::Install(const NodeContainer& npus, std::string* error)
{
    return Install(npus, "", error);
}

bool
CollectiveHelper::Install(const NodeContainer& npus, const std::string& spec, std::string* error)
{
    if (m_service)
    {
        *error = "CollectiveHelper::Install called twice";
        return false;
    }
    for (uint32_t r = 0; r < npus.GetN(); r++)
    {
        const std::string why = RoceUdpPort::Check(npus.Get(r));
        if (!why.empty())
        {
            *error = "NPU rank " + std::to_string(r) + ": " + why;
            return false;
        }
    }
    // every NPU's addresses (interface 0 is the loopback), its link rate and device MTU
    std::vector<uint64_t> rates(npus.GetN(), 0);
    std::vector<std::vector<Ipv4Address>> addressesOf(npus.GetN());
    uint32_t deviceMtu = UINT32_MAX;
    for (uint32_t r = 0; r < npus.GetN(); r++)
    {
        Ptr<Node> node = npus.Get(r);
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        for (uint32_t i = 0; i < ipv4->GetNInterfaces(); i++)
        {
            for (uint32_t a = 0; a < ipv4->GetNAddresses(i); a++)
            {
                const Ipv4Address local = ipv4->GetAddress(i, a).GetLocal();
                if (!local.IsLocalhost())
                {
                    addressesOf[r].push_back(local);
                }
            }
            Ptr<NetDevice> dev = ipv4->GetNetDevice(i);
            if (dev && dev->GetChannel())
            {
                rates[r] = std::max(rates[r], StudyTopology::GetRate(dev));
                deviceMtu = std::min<uint32_t>(deviceMtu, dev->GetMtu());
            }
        }
        if (addressesOf[r].empty())
        {
            *error = "NPU rank " + std::to_string(r) + " (node " + std::to_string(node->GetId()) +
                     ") has no IPv4 address";
            return false;
        }
        if (rates[r] == 0)
        {
            *error = "NPU rank " + std::to_string(r) + " (node " + std::to_string(node->GetId()) +
                     ") has no link with a DataRate";
            return false;
        }
    }
    std::vector<Ptr<Node>> nodes;
    std::string why;
    tn_topology* topo = StudyTopology::Read(npus, &nodes, &why);
    tn_error err;
    if (!spec.empty())
    {
        tn_topology* named = nullptr;
        if (tn_topology_from_spec(spec.c_str(), &named, &err) != TN_OK)
        {
            *error = "topology spec '" + spec + "': " + err.message;
            tn_topology_destroy(topo);
            return false;
        }
        std::ostringstream mismatch;
        if (tn_topology_npu_count(named) != npus.GetN())
        {
            mismatch << "it has " << tn_topology_npu_count(named) << " NPUs, the study "
                     << npus.GetN();
        }
        else if (topo && (tn_topology_node_count(named) != tn_topology_node_count(topo) ||
                          tn_topology_link_count(named) != tn_topology_link_count(topo)))
        {
            mismatch << "it has " << tn_topology_node_count(named) << " nodes and "
                     << tn_topology_link_count(named) / 2 << " links, the study "
                     << tn_topology_node_count(topo) << " and " << tn_topology_link_count(topo) / 2;
        }
        tn_topology_destroy(topo);
        if (!mismatch.str().empty())
        {
            *error = "topology spec '" + spec + "' does not match the study: " + mismatch.str();
            tn_topology_destroy(named);
            return false;
        }
        topo = named;
        nodes.assign(tn_topology_node_count(named), nullptr);
        for (uint32_t r = 0; r < npus.GetN(); r++)
        {
            nodes[tn_topology_npu_node(named, r)] = npus.Get(r);
        }
    }
    else if (!topo)
    {
        *error = "the study's topology cannot be read: " + why;
        return false;
    }
    tn_routes* routes = nullptr;
    if (tn_routes_create(topo, nullptr, &routes, &err) != TN_OK)
    {
        *error = std::string("the study's topology: ") + err.message;
        tn_topology_destroy(topo);
        return false;
    }
    tn_routes_destroy(routes);
    // the largest RoCE path MTU whose packets (IPv4, UDP, BTH, RETH, ICRC: 60 bytes) fit
    uint32_t pathMtu = 4096;
    while (pathMtu > 256 && pathMtu + 60 > deviceMtu)
    {
        pathMtu /= 2;
    }
    Ptr<RoceUdpAddressBook> book = ns3::Create<RoceUdpAddressBook>();
    for (uint32_t r = 0; r < npus.GetN(); r++)
    {
        book->Add(tn_topology_npu_node(topo, r), addressesOf[r]);
    }
    for (uint32_t r = 0; r < npus.GetN(); r++)
    {
        Ptr<Node> node = npus.Get(r);
        Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
        if (nic->GetMtu() + 60 > deviceMtu)
        {
            nic->SetAttribute("Mtu", UintegerValue(pathMtu));
        }
        nic->SetLocalId(tn_topology_npu_node(topo, r));
        node->AggregateObject(nic);
        CreateObject<RoceUdpPort>()->Setup(node, nic, DataRate(rates[r]), book);
        node->AggregateObject(m_executorFactory.Create<CollectiveExecutor>());
    }
    m_studyTopo = topo;
    NodeContainer byId; // a shared medium's switch has no node
    for (const Ptr<Node>& node : nodes)
    {
        byId.Add(node);
    }
    m_service = m_serviceFactory.Create<CollectiveService>();
    m_service->SetAttribute("Routing", EnumValue(ECMP));
    m_service->Setup(topo, byId);
    return true;
}

Ptr<CollectiveService>
CollectiveHelper::Installed() const
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!m_service, "CollectiveHelper: Install first");
    return m_service;
}

bool
CollectiveHelper::SetRouting(const std::string& name)
{
    RoutingMode mode;
    if (!CollectiveService::ParseRouting(name, &mode))
    {
        return false;
    }
    if (m_studyTopo && mode == PLANNED)
    {
        return false; // ordinary ns-3 nodes route by their own tables
    }
    SetRoutingMode(mode);
    return true;
}

void
CollectiveHelper::SetRoutingMode(RoutingMode mode)
{
    // internal invariant: a study topology is only built with ecmp routing by its programs
    // (p2p-study-*)
    NS_ABORT_MSG_IF(m_studyTopo && mode == PLANNED,
                    "CollectiveHelper: ordinary ns-3 nodes route by their own tables (ecmp only)");
    SetService("Routing", EnumValue(mode));
}

CollectiveHelper::RoutingMode
CollectiveHelper::GetRoutingMode() const
{
    return m_service ? m_service->GetRoutingMode()
                     : m_serviceFactory.Create<CollectiveService>()->GetRoutingMode();
}

std::string
CollectiveHelper::GetRoutingName(RoutingMode mode)
{
    return CollectiveService::GetRoutingName(mode);
}

void
CollectiveHelper::SetPriority(uint8_t priority)
{
    // internal invariant: the Priority attribute's checker takes 0..7 only; this is the C++ API
    NS_ABORT_MSG_IF(priority > 7, "CollectiveHelper::SetPriority: " << +priority << " > 7");
    SetService("Priority", UintegerValue(priority));
}

void
CollectiveHelper::SetVerify(bool verify)
{
    SetService("Verify", BooleanValue(verify));
}

void
CollectiveHelper::SetPlanCache(bool cache)
{
    SetService("PlanCache", BooleanValue(cache));
}

void
CollectiveHelper::SetKeepCollectives(bool keep)
{
    SetService("KeepCollectives", BooleanValue(keep));
}

bool
CollectiveHelper::SetScheduler(const std::string& name)
{
    if (!IsScheduler(name))
    {
        return false;
    }
    SetService("Scheduler", StringValue(name));
    return true;
}

bool
CollectiveHelper::IsScheduler(const std::string& name)
{
    return CollectiveService::IsScheduler(name);
}

std::string
CollectiveHelper::GetScheduler() const
{
    return m_service ? m_service->GetScheduler()
                     : m_serviceFactory.Create<CollectiveService>()->GetScheduler();
}

Ptr<Collective>
CollectiveHelper::Create(const tn_plan_request& request,
                         const std::vector<uint32_t>& group,
                         std::string* error)
{
    return Installed()->Create(request, group, error);
}

void
CollectiveHelper::Start(Ptr<Collective> collective, Time delay)
{
    Installed()->Start(collective, delay);
}

Ptr<Collective>
CollectiveHelper::Run(tn_collective collective,
                      uint64_t bytes,
                      const std::string& algorithm,
                      Collective::DoneCallback done,
                      uint32_t root)
{
    return Installed()->Run(collective, bytes, algorithm, done, root);
}

Ptr<Collective>
CollectiveHelper::AllReduce(uint64_t bytes,
                            const std::string& algorithm,
                            Collective::DoneCallback done)
{
    return Run(TN_COLL_ALL_REDUCE, bytes, algorithm, done);
}

Ptr<Collective>
CollectiveHelper::ReduceScatter(uint64_t bytes,
                                const std::string& algorithm,
                                Collective::DoneCallback done)
{
    return Run(TN_COLL_REDUCE_SCATTER, bytes, algorithm, done);
}

Ptr<Collective>
CollectiveHelper::AllGather(uint64_t bytes,
                            const std::string& algorithm,
                            Collective::DoneCallback done)
{
    return Run(TN_COLL_ALL_GATHER, bytes, algorithm, done);
}

Ptr<Collective>
CollectiveHelper::AllToAll(uint64_t bytes,
                           const std::string& algorithm,
                           Collective::DoneCallback done)
{
    return Run(TN_COLL_ALL_TO_ALL, bytes, algorithm, done);
}

Ptr<Collective>
CollectiveHelper::Broadcast(uint64_t bytes,
                            const std::string& algorithm,
                            uint32_t root,
                            Collective::DoneCallback done)
{
    return Run(TN_COLL_BROADCAST, bytes, algorithm, done, root);
}

Ptr<Collective>
CollectiveHelper::Reduce(uint64_t bytes,
                         const std::string& algorithm,
                         uint32_t root,
                         Collective::DoneCallback done)
{
    return Run(TN_COLL_REDUCE, bytes, algorithm, done, root);
}

Ptr<ThemisCollective>
CollectiveHelper::CreateScheduled(const tn_plan_request& request, std::string* error)
{
    Ptr<CollectiveService> service = Installed();
    return service->CreateScheduled(request, service->GetScheduler(), error);
}

Ptr<ThemisCollective>
CollectiveHelper::CreateScheduled(const tn_plan_request& request,
                                  const std::string& scheduler,
                                  std::string* error)
{
    return Installed()->CreateScheduled(request, scheduler, error);
}

void
CollectiveHelper::Start(Ptr<ThemisCollective> collective, Time delay)
{
    Installed()->Start(collective, delay);
}

Ptr<ThemisCollective>
CollectiveHelper::RunScheduled(tn_collective collective,
                               uint64_t bytes,
                               ThemisCollective::DoneCallback done)
{
    return Installed()->RunScheduled(collective, bytes, done);
}

const std::vector<Ptr<ThemisCollective>>&
CollectiveHelper::GetScheduledCollectives() const
{
    static const std::vector<Ptr<ThemisCollective>> none;
    return m_service ? m_service->GetScheduledCollectives() : none;
}

Ptr<CollectiveExecutor>
CollectiveHelper::GetExecutor(uint32_t rank) const
{
    return Installed()->GetExecutor(rank);
}

const std::vector<Ptr<Collective>>&
CollectiveHelper::GetCollectives() const
{
    static const std::vector<Ptr<Collective>> none;
    return m_service ? m_service->GetCollectives() : none;
}

uint64_t
CollectiveHelper::GetPlansBuilt() const
{
    return m_service ? m_service->GetPlansBuilt() : 0;
}

const tn_routes*
CollectiveHelper::GetRoutes() const
{
    return m_service ? m_service->GetRoutes() : nullptr;
}

uint64_t
CollectiveHelper::GetFlowRoutes() const
{
    return m_service ? m_service->GetFlowRoutes() : 0;
}

} // namespace ns3
