/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-helper.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-helper.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveHelper");

CollectiveHelper::CollectiveHelper()
{
    m_serviceFactory.SetTypeId(CollectiveService::GetTypeId());
    m_executorFactory.SetTypeId(CollectiveExecutor::GetTypeId());
}

CollectiveHelper::~CollectiveHelper() = default;

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
    m_service = m_serviceFactory.Create<CollectiveService>();
    m_service->Setup(topo, roce.GetFabric().nodes);
    return m_service;
}

Ptr<CollectiveService>
CollectiveHelper::Installed() const
{
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
    SetRoutingMode(mode);
    return true;
}

void
CollectiveHelper::SetRoutingMode(RoutingMode mode)
{
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
