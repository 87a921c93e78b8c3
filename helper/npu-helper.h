/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NPU_HELPER_H
#define NPU_HELPER_H

#include "ns3/attribute.h"
#include "ns3/node-container.h"
#include "ns3/npu-endpoint.h"
#include "ns3/object-factory.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Installs NpuEndpoints on NPU nodes.
 *
 * \code
 *   NpuHelper npus;
 *   npus.SetEndpointAttribute("Engine", StringValue("ace"));
 *   npus.Install(roce.GetFabric().npus);   // before or after CollectiveHelper::Install
 * \endcode
 */
class NpuHelper
{
  public:
    NpuHelper();

    /** \param name attribute of ns3::NpuEndpoint \param value value */
    void SetEndpointAttribute(std::string name, const AttributeValue& value);

    /**
     * What the endpoints Install would make cannot run with (NpuEndpoint::GetConfigError of
     * one made from the attributes set here and the Config defaults), found before anything
     * is built or recorded.
     * \return "" if they can run, else the reason
     */
    std::string Check() const;

    /**
     * Aggregate an NpuEndpoint to every node (NPUs in rank order, as RoceFabricNodes::npus).
     * \param npus the NPU nodes
     */
    void Install(const NodeContainer& npus);

    /** \param rank index in the container of the last Install \return its endpoint */
    Ptr<NpuEndpoint> GetEndpoint(uint32_t rank) const;

    /** \return the endpoints of the last Install */
    const std::vector<Ptr<NpuEndpoint>>& GetEndpoints() const
    {
        return m_endpoints;
    }

  private:
    ObjectFactory m_factory;
    std::vector<Ptr<NpuEndpoint>> m_endpoints;
};

} // namespace ns3

#endif // NPU_HELPER_H
