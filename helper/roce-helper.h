/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HELPER_H
#define ROCE_HELPER_H

#include "ns3/flow-network.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/pfc-deadlock-watch.h"
#include "ns3/rdma-hpcc.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric.h"
#include "ns3/roce-link-helper.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class RateErrorModel;
class RoceSwitch;

/**
 * \ingroup training-net
 * \brief What RoceHelper::Install built.
 */
struct RoceFabricNodes
{
    NodeContainer nodes;        //!< every topology node, index = topology node id
    NodeContainer npus;         //!< NPU nodes in rank order
    NodeContainer switches;     //!< switch nodes in node id order
    NetDeviceContainer devices; //!< all RoceNetDevices, two per cable (cable order)
};

/**
 * \ingroup training-net
 * \brief Builds a whole RoCE fabric from a C-core topology (tn_topology).
 *
 * Install() creates one ns-3 Node per topology node (in node id order), one RoCE link per
 * cable with the cable's rate and latency (RoceLinkHelper: RoceNetDevice + RoceChannel, ports
 * added to the node's RoceSwitch in cable order, so switch port p = topology port p), a
 * RateErrorModel (packet unit) on the receiving device of every directed link whose
 * error_rate is non-zero, the ECMP next-hop sets of tn_routes toward every NPU on every node
 * with more than one port (one-port hosts need none, RoceSwitch uses their port),
 * and an RdmaNic on every NPU node (local id = topology node id, attached to the node's
 * RoceSwitch). Device, channel and switch attributes come from the inherited RoceLinkHelper
 * setters (DataRate and Delay are overridden per cable); NIC attributes from
 * SetNicAttribute(). Pcap and ascii tracing: the EnablePcap and EnableAscii methods of
 * RoceLinkHelper.
 *
 * Flow level (SetMode("flow")): Install() builds the same nodes, but no device, channel or
 * switch: one FlowNetwork carries the topology's links (routes as the switches would have
 * them), and every NPU node gets a FlowNic (an RdmaTransport, MTU from the NIC attribute
 * Mtu) instead of an RdmaNic. Everything above the transport (executors, Themis, training
 * jobs, the recorder) runs unchanged. GetNic() then aborts; GetTransport() works in both.
 * InstallInternetStack() then puts ns-3's internet stack on the NPUs, so that ns-3's own
 * applications (BulkSendApplication over TCP, OnOffApplication over UDP, PacketSink, a
 * user's own) run beside RDMA on the same fabric:
 * \code
 *   RoceHelper roce;
 *   roce.Install(topo);
 *   Ipv4InterfaceContainer ip = roce.InstallInternetStack();
 *   // ip.GetAddress(r): the address of NPU rank r (11.x.y.1, RoceAddress)
 * \endcode
 */
class RoceHelper : public RoceLinkHelper
{
  public:
    RoceHelper();
    ~RoceHelper() override;

    /**
     * \param name attribute of ns3::RdmaNic (Mtu, CongestionControl, ...)
     * \param value value
     */
    void SetNicAttribute(std::string name, const AttributeValue& value);

    /// Simulation levels (RoceFabric::Mode, whose list names them).
    typedef RoceFabric::Mode Mode;
    static constexpr Mode PACKET = RoceFabric::PACKET;                 //!< RoCE packets
    static constexpr Mode FLOW = RoceFabric::FLOW;                     //!< fluid flows
    static constexpr Mode FLOW_SYMMETRIC = RoceFabric::FLOW_SYMMETRIC; //!< one NPU for all

    /**
     * \param mode the level Install builds
     */
    void SetMode(Mode mode);
    /**
     * \param name a level's name (RoceFabric::GetModeNames)
     * \return false (mode unchanged) for any other name
     */
    bool SetMode(const std::string& name);

    /**
     * In mode flow-symmetric: the NPUs of rank below period run, each for the NPUs of its rank
     * modulo period (FlowNetwork::SymmetricPeriod; 1, the default: NPU 0 for all). Check
     * refuses a period the topology's translations do not have.
     * \param period the number of representative NPUs
     */
    void SetSymmetricPeriod(uint32_t period);

    /**
     * Which shortest paths the fabric routes on, at both levels (switch tables, flow paths;
     * CollectiveHelper::Install gives the planner the same): "shortest" (default, every shortest
     * path, ECMP) or "dimension-order" (dim 0 corrected first, then dim 1, ...: no cycle between
     * the dims of a mesh or torus; tn_routes_options.order).
     * \param name the order's name \return false (order unchanged) for any other name
     */
    bool SetRouting(const std::string& name);

    /**
     * The torus dateline (RoceSwitch::SetDateline): with dimension-order routing on a topology
     * with a torus or ring dim of more than 2 NPUs, at packet level, packets of the base
     * priority that cross a ring's wrap-around cable move to the dateline priority, which
     * Install makes lossless on every port whenever the base priority is. On by default (3 and
     * 4, the collectives' priority and the next); false turns it off.
     * \param on use it \param base the base priority \param dateline the second priority
     * \return false (unchanged) when a priority is above 7 or both are equal
     */
    bool SetDateline(bool on, uint8_t base = 3, uint8_t dateline = 4);

    /**
     * \param topo a topology \return whether Install in packet mode gives it a dateline
     * (SetDateline on, dimension-order routing, a torus or ring dim of more than 2 NPUs, and the
     * base priority lossless)
     */
    bool UsesDateline(const tn_topology* topo) const;

    /**
     * \param topo a topology \param link one of its links \return whether the link's cable
     * wraps around a torus or ring dim of more than 2 NPUs (from coordinate 0 to size - 1)
     */
    static bool IsWrapLink(const tn_topology* topo, const tn_link* link);

    /** \return the order of SetRouting */
    tn_route_order GetRouteOrder() const
    {
        return m_routeOrder;
    }

    /** \return the level */
    Mode GetMode() const
    {
        return m_mode;
    }

    /**
     * \param attribute a full attribute name ("ns3::RoceSwitch::BufferSize")
     * \return true if it only acts on packets (RoCE devices, channels, switches, their MMU,
     * the packet NIC's transport and congestion control), so flow level cannot honour it;
     * ns3::RdmaNic::Mtu (flow level counts the headers of each packet) and
     * ns3::RoceSwitch::EcmpSeed (flows take the packets' ECMP paths) are honoured
     */
    static bool NeedsPackets(const std::string& attribute);

    /**
     * \param name attribute of ns3::FlowNetwork (EcmpSeed)
     * \param value value
     */
    void SetFlowNetworkAttribute(std::string name, const AttributeValue& value);

    /**
     * Select the congestion control of the NICs (RdmaNic::CongestionControl) and set
     * attributes of its class, e.g. SetCongestionControl("hpcc", "TargetUtilization",
     * DoubleValue(0.9)). Aborts on an unknown name or attribute.
     * \param cc a short name (dcqcn, hpcc, hpcc-pint, timely, dctcp, none) or a class's
     * TypeId name (ns3::RdmaHpcc): RdmaCcRegistry
     * \param args attribute name and value pairs (of ns3::RdmaHpcc, ...)
     */
    template <typename... Ts>
    void SetCongestionControl(const std::string& cc, Ts&&... args)
    {
        SelectCongestionControl(cc);
        SetCcAttributes(std::forward<Ts>(args)...);
    }

    /**
     * \param name attribute of the selected congestion control's class
     * \param value value (applied to every NIC installed afterwards)
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Build the fabric of a topology. The topology is only read during the call.
     * Aborts with a message if an NPU has a node id of 65536 or more (RoCE addresses) or if
     * routes cannot be computed.
     * \param topo the topology
     * \return the containers
     */
    RoceFabricNodes Install(const tn_topology* topo);

    /**
     * Place the nodes on MPI ranks by a user-given partition: rankOfNode[v] is the rank (ns-3
     * system id) simulating topology node v (tn_partition_from_lists builds it from lists).
     * Without it, a distributed run (DistributedHelper::GetSize() > 1) uses
     * tn_partition_auto; a run in one process puts every node on rank 0.
     * \param rankOfNode one rank per topology node
     */
    void SetPartition(const std::vector<uint32_t>& rankOfNode);

    /**
     * The partition Install() uses for a topology over `ranks` ranks, checked: every node on
     * one rank below `ranks`, every rank with a node, and no zero-latency cable between two
     * ranks (its delay would be the lookahead).
     * \param topo the topology
     * \param ranks number of ranks
     * \param rankOfNode set to the partition
     * \return "" or the reason it cannot be used
     */
    std::string MakePartition(const tn_topology* topo,
                              uint32_t ranks,
                              std::vector<uint32_t>* rankOfNode) const;

    /**
     * Read a partition written as one list of topology node ids per rank, ranks separated by
     * ';', ids by ',', a range as a-b: "0-3,8;4-7,9" puts nodes 0..3 and 8 on rank 0.
     * \param text the partition
     * \param nodeCount nodes of the topology
     * \param ranks ranks of the run (the text must name exactly this many)
     * \param rankOfNode set to the rank of every node
     * \return "" or the reason (a node named twice or left out, an id that is no node, more
     * ranks than nodes, another number of ranks than the run has)
     */
    static std::string ParsePartition(const std::string& text,
                                      uint32_t nodeCount,
                                      uint32_t ranks,
                                      std::vector<uint32_t>* rankOfNode);

    /**
     * \param id topology node id of the last Install
     * \return true when this process simulates the node (always, when not distributed)
     */
    bool IsLocal(uint32_t id) const;

    /** \return rank of every node of the last Install */
    const std::vector<uint32_t>& GetPartition() const
    {
        return m_rankOfNode;
    }

    /**
     * \return smallest delay of a cable between two ranks in the last Install (the
     * distributed engines' lookahead); zero when no cable is cut
     */
    Time GetLookahead() const
    {
        return m_lookahead;
    }

    /**
     * What Install() or the NICs would abort on, found before anything is built, so a
     * program can refuse with a message and a non-zero exit before it records or simulates:
     * an NPU node id beyond RoCE addresses (65536), a link latency beyond MAX_LATENCY_NS, a link
     * rate below RoceNetDevice::MIN_DATA_RATE_BPS, and
     * NIC attribute values (SetNicAttribute or Config defaults) that cannot work.
     * \param topo the topology
     * \return "" if the fabric can be built, else the reason
     */
    std::string Check(const tn_topology* topo) const;

    /// \return the first link whose source forwards (a switch, or an NPU of a direct topology)
    /// at a rate without an INT rate code, or -1
    static int64_t FindRateWithoutIntCode(const tn_topology* topo);

    /// Bound of the node ids of a fabric's NPUs: RoCE addresses 11.x.y.1 hold a 16-bit node id
    /// (switches have no address: their ids are free).
    static constexpr uint32_t MAX_NODES = 65536;
    /// Longest link latency (ns): 1 s. Longer ones only make queue pairs fail (retry limit:
    /// about 1 s of timeouts by default) and leave frames in flight that keep the run going.
    static constexpr uint64_t MAX_LATENCY_NS = UINT64_C(1000000000);

    /**
     * \param rank NPU rank of the last Install
     * \return its NIC; null when another MPI rank simulates this NPU
     */
    Ptr<RdmaNic> GetNic(uint32_t rank) const;
    /**
     * \param rank NPU rank of the last Install
     * \return its transport (RdmaNic at packet level, FlowNic at flow level)
     */
    Ptr<RdmaTransport> GetTransport(uint32_t rank) const;

    /**
     * \return the fabric of the last Install, as the layers above see it whatever its level
     * (a RocePacketFabric, or the FlowNetwork); every transport installed knows it too
     * (RdmaTransport::GetFabric)
     */
    Ptr<RoceFabric> GetRoceFabric() const
    {
        return m_roceFabric;
    }

    /** \return the fluid network of the last flow-level Install (null at packet level) */
    Ptr<FlowNetwork> GetFlowNetwork() const
    {
        return m_flowNetwork;
    }

    /**
     * \return the PFC deadlock watch of the last packet-level Install (null at flow level):
     * it watches every node of this rank; configure it with Config::SetDefault on
     * ns3::PfcDeadlockWatch (Enabled, PauseThreshold, StopSimulation) before Install
     */
    Ptr<PfcDeadlockWatch> GetDeadlockWatch() const
    {
        return m_deadlockWatch;
    }

    /**
     * \param id topology node id of the last Install
     * \return its ns-3 node
     */
    Ptr<Node> GetNode(uint32_t id) const;

    /**
     * Install ns-3's internet stack (InternetStackHelper, unless the node has one) on every
     * NPU of the last Install. Each NPU gets one IPv4 interface, its first port's
     * RoceNetDevice, with its RoCE address (RoceAddress::FromNodeId, 11.x.y.1) in 11.0.0.0/8,
     * so every NPU is on-link to every other and the fabric routes between them: the
     * switches by ECMP (or a flow route where one is set), an NPU with several ports by its
     * RoceSwitch, whatever port it arrives on. The IP precedence (DSCP >> 3) of a packet is
     * its priority; a priority that is lossless (PfcEnableMask) refuses IP packets
     * (RoceNetDevice drop "IpOnLossless"), so leave the RDMA class to RDMA and give IP a
     * lossy one (DSCP 0, the default, is priority 0).
     * \return the interfaces, NPU rank order
     */
    Ipv4InterfaceContainer InstallInternetStack();

    /** \return what the last Install built */
    const RoceFabricNodes& GetFabric() const
    {
        return m_fabric;
    }

    /**
     * Assign fixed random streams to the error models and switches built so far, in the
     * order they were built (cables in link order, then nodes in id order: the same on every
     * MPI rank, which builds every node's forwarding object and every cable's devices), then
     * to the NICs' queue pairs' congestion controls, RdmaNic::QP_STREAMS a NIC by rank. A
     * run that calls it draws the same whatever the process simulated before (ns-3 numbers
     * unassigned streams across simulations); ScenarioRunner calls it for every point.
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

  private:
    /// Flow level: the fluid network and a FlowNic per NPU on the nodes of f.
    void InstallFlow(const tn_topology* topo, RoceFabricNodes& f);
    /// Install's cables at packet level, in link id order (ports numbered as in the
    /// topology), with their error models and, on a dateline topology, the dateline's
    /// lossless priority and the switches' dims.
    void InstallCables(const tn_topology* topo, RoceFabricNodes& f);
    /// Install's ECMP next hops toward every NPU on this rank's nodes with more than one port
    /// (a host's single cable is its default route).
    void InstallRoutes(const tn_topology* topo, const RoceFabricNodes& f);
    /// Install's NICs on this rank's NPUs (null for the others' in m_nics), and the deadlock
    /// watch over this rank's nodes.
    void InstallNics(const tn_topology* topo,
                     const RoceFabricNodes& f,
                     Ptr<RocePacketFabric> packets);

    void SelectCongestionControl(const std::string& cc);

    void SetCcAttributes()
    {
    }

    template <typename... Ts>
    void SetCcAttributes(const std::string& name, const AttributeValue& value, Ts&&... args)
    {
        SetCongestionControlAttribute(name, value);
        SetCcAttributes(std::forward<Ts>(args)...);
    }

    ObjectFactory m_nicFactory; //!< NICs
    /// congestion-control attributes for every NIC
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_ccAttributes;

    /// \return HPCC's IntRates as the NICs will get it (Config defaults, then m_ccAttributes)
    RdmaHpcc::IntRates HpccIntRates() const;
    RoceFabricNodes m_fabric;                       //!< last Install
    std::vector<Ptr<RdmaTransport>> m_nics;         //!< transports by rank
    Mode m_mode{PACKET};                            //!< level of Install
    tn_route_order m_routeOrder{TN_ROUTE_SHORTEST}; //!< SetRouting
    bool m_dateline{true};                          //!< SetDateline
    uint8_t m_datelineBase{3};                      //!< SetDateline base priority
    uint8_t m_datelinePrio{4};                      //!< SetDateline second priority
    /// \return the devices' PfcEnableMask (the device factory's)
    uint8_t DevicePfcMask() const;
    ObjectFactory m_flowNetworkFactory;             //!< flow level
    Ptr<FlowNetwork> m_flowNetwork;                 //!< last flow-level Install
    Ptr<RoceFabric> m_roceFabric;                   //!< last Install (GetRoceFabric)
    Ptr<PfcDeadlockWatch> m_deadlockWatch;          //!< last packet-level Install
    bool m_flowNetworkSeedSet{false};               //!< else the switches' EcmpSeed
    std::vector<Ptr<RateErrorModel>> m_errorModels; //!< error models (for AssignStreams)
    std::vector<uint32_t> m_userPartition;          //!< SetPartition (empty: automatic)
    std::vector<uint32_t> m_rankOfNode;             //!< partition of the last Install
    uint32_t m_localRank{0};                        //!< this process's rank
    Time m_lookahead;                               //!< GetLookahead
};

} // namespace ns3

#endif // ROCE_HELPER_H
