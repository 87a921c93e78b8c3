/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-flow-application.h"

#include "rdma-nic.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFlowApplication");

NS_OBJECT_ENSURE_REGISTERED(RoceFlowApplication);

TypeId
RoceFlowApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceFlowApplication")
            .SetParent<Application>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RoceFlowApplication>()
            .AddAttribute("SharedQp",
                          "Flows of one (destination, priority) share one queue pair (lane 0) "
                          "instead of a queue pair each",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceFlowApplication::m_sharedQp),
                          MakeBooleanChecker())
            .AddTraceSource("FlowStart",
                            "A flow was posted to the NIC (flow id, request with its lane)",
                            MakeTraceSourceAccessor(&RoceFlowApplication::m_flowStart),
                            "ns3::RoceFlowApplication::FlowStartTracedCallback")
            .AddTraceSource("FlowEnd",
                            "A flow's message ended (flow id, sender's record; see its status)",
                            MakeTraceSourceAccessor(&RoceFlowApplication::m_flowEnd),
                            "ns3::RoceFlowApplication::FlowEndTracedCallback");
    return tid;
}

RoceFlowApplication::RoceFlowApplication() = default;

RoceFlowApplication::~RoceFlowApplication() = default;

void
RoceFlowApplication::AddFlow(uint64_t flowId, const RdmaWriteRequest& request, Time start)
{
    m_flows.push_back({flowId, request, start});
}

uint64_t
RoceFlowApplication::GetSharedQpFlows() const
{
    return m_sharedQpFlows;
}

void
RoceFlowApplication::StartApplication()
{
    m_nic = GetNode()->GetObject<RdmaNic>();
    // internal invariant: the flow programs install an RdmaNic on every host first
    NS_ABORT_MSG_UNLESS(m_nic || m_flows.empty(),
                        "RoceFlowApplication: node " << GetNode()->GetId() << " has no RdmaNic");
    m_starts.resize(m_flows.size());
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        const Time wait = std::max(m_flows[i].start - Simulator::Now(), Time(0));
        m_starts[i] = Simulator::Schedule(wait, &RoceFlowApplication::Start, this, i);
    }
}

void
RoceFlowApplication::StopApplication()
{
    for (EventId& e : m_starts)
    {
        e.Cancel();
    }
}

void
RoceFlowApplication::DoDispose()
{
    StopApplication();
    m_nic = nullptr;
    Application::DoDispose();
}

void
RoceFlowApplication::Start(uint32_t i)
{
    Flow& f = m_flows[i];
    RdmaWriteRequest request = f.request;
    request.lane = 0;
    if (!m_sharedQp)
    {
        std::vector<uint32_t>& busy = m_lanes[Key(request.dst, request.priority)];
        if (busy.empty())
        {
            busy.assign(RdmaQueuePair::MAX_LANES, 0);
        }
        auto idle = std::find(busy.begin(), busy.end(), 0u);
        if (idle == busy.end())
        {
            idle = std::min_element(busy.begin(), busy.end());
            ++m_sharedQpFlows;
        }
        request.lane = static_cast<uint32_t>(idle - busy.begin());
        ++*idle;
    }
    m_flowStart(f.id, request);
    uint64_t message = m_nic->Post(request, MakeCallback(&RoceFlowApplication::Done, this));
    m_byMessage[message] = i;
}

void
RoceFlowApplication::Done(const RdmaMessageRecord& record)
{
    auto it = m_byMessage.find(record.id);
    if (it == m_byMessage.end())
    {
        return;
    }
    const Flow& f = m_flows[it->second];
    if (!m_sharedQp)
    {
        --m_lanes[Key(record.dst, record.priority)][record.lane];
    }
    m_byMessage.erase(it);
    m_flowEnd(f.id, record);
}

} // namespace ns3
