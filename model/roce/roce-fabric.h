/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fabric as the layers above it see it, whatever its level: packets (switches) or fluid
 * flows (FlowNetwork). The level's names live here, in one list.
 */
#ifndef ROCE_FABRIC_H
#define ROCE_FABRIC_H

#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-symmetry.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RdmaTransport;

/**
 * \ingroup training-net
 * \brief What a fabric tells the layers above it (CollectiveService and the programs), so
 * that they ask rather than probe the type of a transport: its level, its flow routes, its
 * symmetry, the routes it already holds and the transport of a node.
 *
 * Two levels implement it: RocePacketFabric (RoCE packets through the nodes' RoceSwitch)
 * and FlowNetwork (fluid flows, mode flow or flow-symmetric). An RdmaTransport knows its
 * fabric (RdmaTransport::GetFabric; RoceHelper::Install and FlowNic::Attach set it).
 */
class RoceFabric : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Simulation levels.
    enum Mode
    {
        PACKET = 0,        //!< RoCE packets, switches, PFC, congestion control (default)
        FLOW = 1,          //!< fluid flows shared max-min fairly (FlowNetwork, FlowNic)
        FLOW_SYMMETRIC = 2 //!< FLOW with NPU 0 running for all (FlowNetwork::Symmetric)
    };

    /** \param mode a level \return its name ("packet", "flow", "flow-symmetric") */
    static std::string GetModeName(Mode mode);
    /**
     * \param name a level's name \param mode set to the level when the name is one
     * \return false for a name that is no level
     */
    static bool ParseMode(const std::string& name, Mode* mode);
    /** \return the names of every level, in order ("packet", "flow", "flow-symmetric") */
    static std::vector<std::string> GetModeNames();
    /** \return the names for a message: "packet, flow, flow-symmetric" */
    static std::string ListModeNames();
    /** \param name a level's name \return whether it is a flow level (no packets) */
    static bool IsFlowMode(const std::string& name);

    /** \return the level of this fabric */
    virtual Mode GetMode() const = 0;

    /**
     * Pin the flows of a queue pair to an out-port of a node, before the ECMP choice. A node
     * this process does not simulate (distributed runs) is left to its rank.
     * \param node the node \param src source node \param dst destination node
     * \param sport UDP source port \param priority priority \param port out port of node
     */
    virtual void SetFlowRoute(uint32_t node,
                              uint32_t src,
                              uint32_t dst,
                              uint16_t sport,
                              uint8_t priority,
                              uint32_t port) = 0;

    /**
     * \return the routes to every NPU the fabric holds for its own paths, over GetTopology()
     * (same node and link ids as the installed topology), or null when it keeps none: a user
     * shares them rather than building a second table of NPUs x nodes
     */
    virtual const tn_routes* GetRoutes() const = 0;
    /** \return the topology of GetRoutes(), or null */
    virtual const tn_topology* GetTopology() const = 0;
    /** \return the translations when one NPU runs for all (FLOW_SYMMETRIC), else null */
    virtual const tn_symmetry* GetSymmetry() const = 0;
    /**
     * \param node topology node id
     * \return the RDMA transport of that node, or null (a switch, another rank's node)
     */
    virtual Ptr<RdmaTransport> GetTransport(uint32_t node) const = 0;
};

/**
 * \ingroup training-net
 * \brief The packet level as a RoceFabric: nodes forwarding RoCE packets by their
 * RoceSwitch, transports found on the nodes (RdmaNic). It keeps no routes of its own (the
 * switches hold their ECMP sets).
 */
class RocePacketFabric : public RoceFabric
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RocePacketFabric();

    /** \param nodes every topology node, index = topology node id */
    void SetNodes(const std::vector<Ptr<Node>>& nodes);

    Mode GetMode() const override;
    void SetFlowRoute(uint32_t node,
                      uint32_t src,
                      uint32_t dst,
                      uint16_t sport,
                      uint8_t priority,
                      uint32_t port) override;
    const tn_routes* GetRoutes() const override;
    const tn_topology* GetTopology() const override;
    const tn_symmetry* GetSymmetry() const override;
    Ptr<RdmaTransport> GetTransport(uint32_t node) const override;

  protected:
    void DoDispose() override;

  private:
    std::vector<Ptr<Node>> m_nodes; //!< by topology node id
};

} // namespace ns3

#endif // ROCE_FABRIC_H
