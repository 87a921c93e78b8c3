/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "npu-helper.h"

#include "ns3/node.h"

namespace ns3
{

NpuHelper::NpuHelper()
{
    m_factory.SetTypeId(NpuEndpoint::GetTypeId());
}

void
NpuHelper::SetEndpointAttribute(std::string name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

std::string
NpuHelper::Check() const
{
    return m_factory.Create<NpuEndpoint>()->GetConfigError();
}

void
NpuHelper::Install(const NodeContainer& npus)
{
    m_endpoints.clear();
    for (uint32_t i = 0; i < npus.GetN(); i++)
    {
        Ptr<NpuEndpoint> endpoint = m_factory.Create<NpuEndpoint>();
        npus.Get(i)->AggregateObject(endpoint);
        m_endpoints.push_back(endpoint);
    }
}

Ptr<NpuEndpoint>
NpuHelper::GetEndpoint(uint32_t rank) const
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(rank >= m_endpoints.size(), "NpuHelper: no endpoint " << rank);
    return m_endpoints[rank];
}

} // namespace ns3
