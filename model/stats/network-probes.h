/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NETWORK_PROBES_H
#define NETWORK_PROBES_H

#include "stats-probe.h"

#include "ns3/port-counters.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FlowNetwork;
class Node;
class Packet;
class PointToPointNetDevice;
class QueueDiscItem;
class RdmaTransport;
class RoceSwitch;
struct RdmaMessageRecord;

/**
 * \ingroup training-net
 * \brief Probe of a RoCE node's forwarding object (RoceSwitch): its ports are sampled through
 * the switch's PortCounters; PFC events (PfcPause, PfcResume) and drops (the switch's Drop,
 * each port device's Drop) become rows.
 */
class RoceSwitchProbe : public StatsProbe
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param recorder the recorder \param sw the switch \param node its topology id
     */
    RoceSwitchProbe(StatsRecorder* recorder, Ptr<RoceSwitch> sw, uint32_t node);

    /**
     * \param recorder the recorder \param node a node \param topoId its topology id
     * \return a probe of its RoceSwitch, connected; null if it has none
     */
    static Ptr<RoceSwitchProbe> Attach(StatsRecorder* recorder, Ptr<Node> node, uint32_t topoId);

    /** \return ports of the switch */
    uint32_t GetNPorts() const;

  private:
    void DoDispose() override;
    void PfcPause(uint32_t port, uint8_t priority, bool sent);
    void PfcResume(uint32_t port, uint8_t priority, bool sent);
    void SwitchDrop(Ptr<const Packet> packet,
                    uint32_t port,
                    uint8_t priority,
                    const std::string& reason);
    static void DeviceDrop(RoceSwitchProbe* probe,
                           uint32_t port,
                           Ptr<const Packet> packet,
                           const std::string& reason);

    Ptr<RoceSwitch> m_switch; //!< the switch
    uint32_t m_node;          //!< its topology id
};

/**
 * \ingroup training-net
 * \brief Probe and PortCounters adapter of the PointToPointNetDevices of a node (ns-3's own
 * links, which keep no counters): frame bytes and frames started (PhyTxBegin), the bytes in
 * the device's queue and its root queue disc (queue 0), drops (MacTxDrop, PhyTxDrop,
 * PhyRxDrop and the root queue disc's Drop), the transmitter's busy time (each frame's own
 * time at the device's rate, from PhyTxBegin). No pause, no marks.
 */
class PointToPointPortProbe : public StatsProbe, public PortCounters
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** \param recorder the recorder */
    explicit PointToPointPortProbe(StatsRecorder* recorder);

    /**
     * \param recorder the recorder \param node a node \param topoId its topology id
     * \return a probe of its point-to-point devices (maybe none), its ports registered
     */
    static Ptr<PointToPointPortProbe> Attach(StatsRecorder* recorder,
                                             Ptr<Node> node,
                                             uint32_t topoId);

    uint32_t GetNCounterPorts() const override;
    void ReadPortCounters(uint32_t port, PortCounterValues* values) const override;

  private:
    /// Counters of one device, kept from its traces.
    struct Port
    {
        Ptr<PointToPointNetDevice> dev; //!< the device
        uint64_t rateBps{0};            //!< its rate
        uint64_t queueDiscBytes{0};     //!< bytes in the root queue disc in front of it
        uint64_t txBytes{0};            //!< frame bytes started (PhyTxBegin)
        uint64_t txPackets{0};          //!< frames started
        uint64_t drops{0};              //!< packets dropped by the device or its queue disc
        int64_t busyNs{0};              //!< wire time of the frames started
        int64_t txEndNs{0};             //!< end of the last frame started
        int64_t txStartNs{-1};          //!< start of the last frame started
    };

    void DoDispose() override;
    static void TxBegin(PointToPointPortProbe* probe, uint32_t port, Ptr<const Packet> p);
    static void Drop(PointToPointPortProbe* probe, uint32_t port, Ptr<const Packet> p);
    static void QueueDiscDrop(PointToPointPortProbe* probe,
                              uint32_t port,
                              Ptr<const QueueDiscItem> item);
    static void QueueDiscBytes(PointToPointPortProbe* probe,
                               uint32_t port,
                               uint32_t before,
                               uint32_t bytes);

    std::vector<Port> m_ports; //!< the node's point-to-point devices, in device order
};

/**
 * \ingroup training-net
 * \brief Probe and PortCounters adapter of a node's out-links in a fluid network (flow level):
 * the wire bytes the fluid rates carried, as frames of full packets, the transmitter busy for
 * them at line rate; queue, pause, ECN and drop counters 0.
 */
class FlowNetworkPortProbe : public StatsProbe, public PortCounters
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param recorder the recorder \param network the fluid network
     * \param mtu payload bytes per packet \param node topology node
     */
    FlowNetworkPortProbe(StatsRecorder* recorder,
                         Ptr<FlowNetwork> network,
                         uint32_t mtu,
                         uint32_t node);

    /**
     * \param recorder the recorder \param network the fluid network
     * \param mtu payload bytes per packet \param topoId the node
     * \return a probe of the node's out-links, its ports registered
     */
    static Ptr<FlowNetworkPortProbe> Attach(StatsRecorder* recorder,
                                            Ptr<FlowNetwork> network,
                                            uint32_t mtu,
                                            uint32_t topoId);

    uint32_t GetNCounterPorts() const override;
    void ReadPortCounters(uint32_t port, PortCounterValues* values) const override;
    bool IsPortCopy(uint32_t port) const override;
    /** \return the network, the port's key its carrier link (FlowNetwork::GetCarrierLink) */
    PortActivity* GetPortActivity(uint32_t port, uint32_t* key) const override;

  private:
    void DoDispose() override;

    Ptr<FlowNetwork> m_network;    //!< the network
    uint32_t m_packetWire;         //!< wire bytes of a full packet
    std::vector<uint32_t> m_links; //!< the node's out-links, in port order
    std::vector<double> m_rateBps; //!< their rates, bit/s
};

/**
 * \ingroup training-net
 * \brief Probe of a node's RDMA transport (RdmaNic, or FlowNic at flow level): one flow row
 * per message at its sender's completion (MessageComplete), with the recorder's ideal FCT and
 * the collective it carries.
 */
class RdmaNicProbe : public StatsProbe
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** \param recorder the recorder \param nic the transport */
    RdmaNicProbe(StatsRecorder* recorder, Ptr<RdmaTransport> nic);

    /**
     * \param recorder the recorder \param node a node
     * \return a probe of its RdmaTransport (connected if the recorder records flows); null if
     * none
     */
    static Ptr<RdmaNicProbe> Attach(StatsRecorder* recorder, Ptr<Node> node);

    Time GetLastDataTime() const override;

  private:
    void DoDispose() override;
    void MessageComplete(const RdmaMessageRecord& record);

    Ptr<RdmaTransport> m_nic; //!< the transport
};

} // namespace ns3

#endif // NETWORK_PROBES_H
