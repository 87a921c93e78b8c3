/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "port-counters.h"
#include "roce-forwarding.h"
#include "roce-header.h"
#include "roce-net-device.h"
#include "roce-switch-mmu.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * The receiver of the RoCE packets a switch delivers to its node (RdmaNic), called directly
 * as LocalReceiveCallback would be, without a Callback's copies of the packet's Ptr.
 */
class RoceLocalReceiver
{
  public:
    virtual ~RoceLocalReceiver() = default;
    /** \param p L3 packet addressed to the node \param port ingress port */
    virtual void LocalReceive(const Ptr<Packet>& p, uint32_t port) = 0;
};

/**
 * \ingroup training-net
 * Packet forwarding of a RoCE node: aggregated to every node that has RoceNetDevices (switches
 * and, in direct topologies, NPUs). Any number of ports; storage linear in ports and nodes.
 *
 * Routes are compact: each distinct next-hop set is stored once per node, and each
 * destination holds only the 32-bit index of its set (a fat-tree switch has at most ports + 1
 * distinct sets, so a k=32 fat-tree's 1280 switches hold 8192 indices each). A node with one
 * port needs no routes at all: everything it sends leaves through that port, and what it
 * receives for another node is dropped ("NoRoute"), never sent back.
 *
 * Receive path of a port: peek RoceIpUdpHeader; if the destination is the local address
 * (SetLocalAddress; switches have none) the packet goes to the local receive callback (the NIC)
 * untouched, without buffer accounting. Otherwise the egress port is chosen from the ECMP set
 * of the destination node (RoceAddress::ToNodeId) by a hash of (src IP, dst IP, UDP src port,
 * UDP dst port, EcmpSeed); the IPv4 TTL is decremented (a packet whose TTL would reach 0 is
 * dropped with "TtlExpired"); the MMU admits (or drops) the packet on (ingress port,
 * priority = DSCP), PAUSE is requested from the ingress device when the MMU says so, and the
 * packet is queued on the egress device (DSCP >= 8: control queue). At dequeue the buffer is
 * released (RESUME when allowed) and ECN-capable data packets are CE-marked by the MMU's ECN
 * curve on the egress queue bytes, and data packets that carry telemetry (RoceIntHeader) are
 * stamped: HPCC's INT (a hop: time, bytes the port sent on the wire, bytes queued on the port,
 * link rate) or PINT's path utilisation.
 *
 * Local sends (the NIC on this node): SendLocal() routes the same way and queues without MMU
 * accounting; or the NIC installs a pull source on each port device
 * (RoceNetDevice::SetPullSource) and asks GetEgressPort() which port a flow uses.
 *
 * Ordinary IPv4 (not UDP to 4791: ns-3's TCP, UDP, ICMP between NPUs that have the internet
 * stack, see RoceHelper::InstallInternetStack) takes the same path with three differences:
 * its priority is its IP precedence (RoceIpUdpHeader::GetQueue), so it never uses the
 * control queue; its TTL is left alone (the fabric is one IP hop for such traffic) and it is
 * never ECN-marked (only RoCE packets are rewritten); and when it is addressed to this node
 * it goes up the IP stack of the port SetIpPort names (RoceNetDevice::DeliverUp). A port
 * device's Send() of an IPv4 packet comes here (SendLocal). The MMU admits it like RDMA
 * data: on a lossy class it is dropped when the buffer fills and never pauses.
 *
 * Dateline (SetDateline, SetPortDim): on a torus routed in dimension order, the minimal paths
 * of one direction of a ring can still wait on each other in a cycle of PFC buffers. A RoCE
 * packet of the base priority that leaves through a port whose cable wraps around its ring
 * moves to the dateline priority (DSCP rewritten, queued on that priority's egress queue,
 * paused by the peer on that priority); one of the dateline priority that turns into another
 * dim moves back to the base, so each ring starts again below its own dateline. The MMU still
 * accounts a rewritten packet on its ingress (port, priority): the ingress tag carries both
 * (IngressTag). No minimal path crosses a wrap twice, so neither priority's buffers of a
 * ring close a cycle, and dimension order leaves none between dims.
 */
class RoceSwitch : public Object, public PortCounters, public RocePortOwner
{
  public:
    static constexpr uint32_t NO_PORT = RoceForwarding::NONE; //!< "no route"

    /**
     * Local receive callback: (L3 packet starting with RoceIpUdpHeader, ingress port).
     */
    typedef Callback<void, Ptr<Packet>, uint32_t> LocalReceiveCallback;

    /**
     * Drop trace signature.
     * \param packet dropped packet
     * \param port ingress port (NO_PORT if not known)
     * \param priority priority
     * \param reason why ("NoRoute", "TtlExpired", "LossyThreshold", "BufferFull",
     *        "HeadroomOverflow", "NoLocalReceiver"; ordinary IPv4 with no stack on the
     *        node: "NoIpStack")
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet,
                                       uint32_t port,
                                       uint8_t priority,
                                       const std::string& reason);
    /**
     * ECN mark trace signature.
     * \param packet marked packet
     * \param port egress port
     * \param priority priority
     * \param queueBytes bytes left in the egress queue
     */
    typedef void (*EcnMarkTracedCallback)(Ptr<const Packet> packet,
                                          uint32_t port,
                                          uint8_t priority,
                                          uint64_t queueBytes);
    /**
     * PFC event trace signature (PfcPause and PfcResume sources).
     * \param port port index
     * \param priority priority
     * \param sent true if this switch sent the frame (it pauses its upstream), false if it
     *        received it (its port is paused)
     */
    typedef void (*PfcTracedCallback)(uint32_t port, uint8_t priority, bool sent);

    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceSwitch();
    ~RoceSwitch() override;

    /**
     * Add a port; installs the device's fabric receive callback and dequeue hook and registers
     * it with the MMU (rate, channel delay, PFC mask). The device must be attached to its
     * channel first.
     * \param dev device (on this node)
     * \return port index (0, 1, ...)
     */
    uint32_t AddPort(Ptr<RoceNetDevice> dev);

    /** \return number of ports */
    uint32_t GetNPorts() const
    {
        return m_ports.size();
    }

    /** \param i port index \return device */
    Ptr<RoceNetDevice> GetPort(uint32_t i) const
    {
        return m_ports[i];
    }

    /**
     * Set the ECMP next-hop set towards a destination node (replaces any previous set). The
     * port order matters (the ECMP hash picks by position); equal sets are stored once.
     * \param dstNodeId destination node id (as in RoceAddress)
     * \param ports egress port indices (non-empty)
     */
    void SetRoute(uint32_t dstNodeId, const std::vector<uint32_t>& ports);
    /**
     * \param dstNodeId node
     * \return the next-hop set (empty if none; a one-port node without routes reports none
     * although it forwards everything through its port)
     */
    const std::vector<uint32_t>& GetRoute(uint32_t dstNodeId) const;
    /** Remove all routes (ECMP sets and flow routes). */
    void ClearRoutes();

    /** \return number of distinct next-hop sets stored (the empty set not counted) */
    std::size_t GetNRouteSets() const
    {
        return m_sets.size() - 1;
    }

    /** \return bytes held by the route table (indices, sets and their lookup) */
    std::size_t GetRouteTableBytes() const;

    /**
     * Pin one flow to an egress port, before the ECMP choice (a policy route, as a
     * controller installs for per-QP path selection or source routing). The flow is
     * (source node, destination node, UDP source port, priority = DSCP).
     * \param srcNodeId source node \param dstNodeId destination node
     * \param sport UDP source port \param priority priority (DSCP) of the flow
     * \param port egress port index (< GetNPorts())
     */
    void SetFlowRoute(uint32_t srcNodeId,
                      uint32_t dstNodeId,
                      uint16_t sport,
                      uint8_t priority,
                      uint32_t port);

    /**
     * \param srcNodeId source node \param dstNodeId destination node
     * \param sport UDP source port \param priority priority
     * \return the pinned port of that flow, or NO_PORT if it has no flow route
     */
    uint32_t GetFlowRoute(uint32_t srcNodeId,
                          uint32_t dstNodeId,
                          uint16_t sport,
                          uint8_t priority) const;

    /** \return number of flow routes */
    std::size_t GetNFlowRoutes() const
    {
        return m_flowRoutes.size();
    }

    /**
     * Egress port of a flow: its flow route if it has one, else the ECMP choice.
     * \param srcIp source (host order) \param dstIp destination (host order)
     * \param sport UDP source port \param dport UDP destination port
     * \param priority priority (DSCP), for flow routes
     * \return egress port index or NO_PORT
     */
    uint32_t GetEgressPort(uint32_t srcIp,
                           uint32_t dstIp,
                           uint16_t sport,
                           uint16_t dport,
                           uint8_t priority = 0) const;

    /** \param h header of the flow \return egress port index or NO_PORT */
    uint32_t GetEgressPort(const RoceIpUdpHeader& h) const
    {
        return GetEgressPort(h.GetSourceRaw(),
                             h.GetDestinationRaw(),
                             h.GetSourcePort(),
                             h.GetDestinationPort(),
                             h.GetDscp());
    }

    /**
     * \param addr address of this node (packets to it are delivered locally). Default: none
     * (pure switch). The helper sets RoceAddress::FromNodeId(id) on NPU nodes.
     */
    void SetLocalAddress(Ipv4Address addr);

    /** \return local address (0.0.0.0 if none) */
    Ipv4Address GetLocalAddress() const
    {
        return Ipv4Address(m_localAddr);
    }

    /** \param cb local receive callback (replaces the local receiver) */
    void SetLocalReceiveCallback(LocalReceiveCallback cb);

    /**
     * \param receiver the local receiver (the NIC), called directly; replaces the local
     * receive callback (0: none). It outlives the switch's packets.
     */
    void SetLocalReceiver(RoceLocalReceiver* receiver)
    {
        m_localReceiver = receiver;
        m_localRx = LocalReceiveCallback();
    }

    /**
     * \param port the port whose device is this node's IPv4 interface: ordinary IP packets
     * addressed to the node go up through it (default 0)
     */
    void SetIpPort(uint32_t port);

    /** \return the port of the node's IPv4 interface */
    uint32_t GetIpPort() const
    {
        return m_ipPort;
    }

    /**
     * Send a locally generated L3 packet (RoceIpUdpHeader at front): route, then queue on the
     * egress device (RoCE: DSCP >= 8 control queue, else data priority DSCP; other IPv4:
     * RoceNetDevice::EnqueueIp on its IP precedence), no MMU accounting.
     * \param p packet
     * \return false if there is no route (the packet is dropped with "NoRoute")
     */
    bool SendLocal(Ptr<Packet> p);

    /**
     * Turn the dateline on (see the class): base-priority RoCE packets leaving through a wrap
     * port move to the dateline priority, and back to the base when they turn into another dim.
     * Both should be lossless on every port (RoceHelper sets that).
     * \param base the base priority (0..7) \param dateline the second priority (0..7, not base)
     */
    void SetDateline(uint8_t base, uint8_t dateline);

    /** \return whether SetDateline turned the dateline on */
    bool HasDateline() const
    {
        return m_datelineBase != m_datelinePrio;
    }

    /**
     * \param port a port \param dim the topology dim its cable belongs to (-1: none)
     * \param wrap whether the cable wraps around its ring (the dateline is crossed there)
     */
    void SetPortDim(uint32_t port, int32_t dim, bool wrap);

    /** \return packets moved to the dateline priority at a wrap port */
    uint64_t GetDatelineCrossings() const
    {
        return m_datelineCrossings;
    }

    /** \return packets moved back to the base priority when turning into another dim */
    uint64_t GetDatelineReturns() const
    {
        return m_datelineReturns;
    }

    /**
     * \param priority 0..7 \return RoCE data packets forwarded (enqueued on an egress port)
     * on that priority, after any dateline rewrite
     */
    uint64_t GetForwardedPackets(uint8_t priority) const
    {
        return priority < m_forwardedPrio.size() ? m_forwardedPrio[priority] : 0;
    }

    /**
     * The ingress tag a forwarded packet is queued with: the ingress port, and its ingress
     * priority when that differs from the egress queue (a dateline rewrite).
     * \param port ingress port (< 2^24) \param priority ingress priority \param queue egress
     * queue \return the tag
     */
    static uint32_t IngressTag(uint32_t port, uint8_t priority, uint8_t queue)
    {
        return priority == queue ? port : (0x80000000u | (uint32_t(priority) << 24) | port);
    }

    /** \param tag an ingress tag of a forwarded packet \return its ingress port */
    static uint32_t TagPort(uint32_t tag)
    {
        return IsRewrittenTag(tag) ? (tag & 0x00ffffffu) : tag;
    }

    /**
     * \param tag an ingress tag of a forwarded packet \param queue the queue it waits in
     * \return the priority it came in with (on which the MMU accounts it)
     */
    static uint8_t TagPriority(uint32_t tag, uint8_t queue)
    {
        return IsRewrittenTag(tag) ? static_cast<uint8_t>((tag >> 24) & 0x7) : queue;
    }

    /** \return the MMU */
    Ptr<RoceSwitchMmu> GetMmu() const
    {
        return m_mmu;
    }

    /** \return packets forwarded (enqueued on an egress port) */
    uint64_t GetForwardedPackets() const
    {
        return m_forwarded;
    }

    /** \return packets delivered locally */
    uint64_t GetDeliveredPackets() const
    {
        return m_delivered;
    }

    /** \return ECN marks so far */
    uint64_t GetEcnMarks() const
    {
        return m_ecnMarks;
    }

    /** \return drops so far (all reasons) */
    uint64_t GetDrops() const
    {
        return m_drops;
    }

    /** \param port egress port \return ECN marks made on that port */
    uint64_t GetPortEcnMarks(uint32_t port) const
    {
        return m_portEcnMarks[port];
    }

    /** \param port ingress port \return packets from that port dropped */
    uint64_t GetPortDrops(uint32_t port) const
    {
        return m_portDrops[port];
    }

    /**
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    // PortCounters: the ports' devices' counters with the switch's marks and drops per port
    uint32_t GetNCounterPorts() const override;
    void ReadPortCounters(uint32_t port, PortCounterValues* values) const override;

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    /** Fabric receive from a port. */
    void PortReceive(RoceNetDevice* dev, const Ptr<Packet>& p, uint32_t port) override;
    /** Dequeue hook of a port. */
    void PortDequeued(RoceNetDevice* dev,
                      const Ptr<Packet>& p,
                      uint8_t queue,
                      uint32_t ingress) override;
    /**
     * Stamp the telemetry of a data packet leaving a port (HOPS: push this hop; PINT: raise
     * the path utilisation to this port's if larger).
     * \param dev egress device \param p the packet \param egress port index
     */
    void StampTelemetry(RoceNetDevice* dev, Ptr<Packet> p, uint32_t egress);
    /**
     * PFC received on a port (re-exported as PfcPause/PfcResume with sent = false).
     * \param sw the switch \param port port \param priority priority
     * \param pause pause or resume \param quanta quanta
     */
    static void PfcReceived(RoceSwitch* sw,
                            uint32_t port,
                            uint8_t priority,
                            bool pause,
                            uint16_t quanta);

    /** \param tag ingress tag \return whether it carries a rewritten ingress priority */
    static bool IsRewrittenTag(uint32_t tag)
    {
        return (tag & 0xf8000000u) == 0x80000000u;
    }

    /**
     * The egress priority of a packet after the dateline rule.
     * Counts the crossings and returns.
     * \param ingress ingress port \param egress egress port
     * \param priority its priority \return the priority it leaves with
     */
    uint8_t DatelinePriority(uint32_t ingress, uint32_t egress, uint8_t priority);
    /** Drop helper. */
    void DoDrop(Ptr<const Packet> p, uint32_t port, uint8_t priority, const char* reason);

    std::vector<Ptr<RoceNetDevice>> m_ports;             //!< ports
    std::vector<uint32_t> m_routeIndex;                  //!< set index per destination node id
    std::vector<std::vector<uint32_t>> m_sets{1};        //!< distinct next-hop sets (0: none)
    std::map<std::vector<uint32_t>, uint32_t> m_setIds;  //!< set -> index, to store each once
    uint32_t m_lastSet{0};                               //!< index of the last set stored
    std::unordered_map<uint64_t, uint32_t> m_flowRoutes; //!< pinned flows (FlowKey)
    Ptr<RoceSwitchMmu> m_mmu;                            //!< MMU
    LocalReceiveCallback m_localRx;                      //!< NIC receive
    RoceLocalReceiver* m_localReceiver{nullptr};         //!< NIC receive, called directly
    uint32_t m_localAddr{0};                             //!< local address (0 = none)
    uint32_t m_ipPort{0};                                //!< port of the IPv4 interface
    uint32_t m_seed{0};                                  //!< EcmpSeed
    uint64_t m_forwarded{0};                             //!< forwarded
    uint64_t m_delivered{0};                             //!< delivered
    uint64_t m_ecnMarks{0};                              //!< marks
    uint64_t m_drops{0};                                 //!< drops
    std::vector<uint64_t> m_portEcnMarks;                //!< marks per egress port
    std::vector<uint64_t> m_portDrops;                   //!< drops per ingress port
    double m_pintLogBase{1.05};                          //!< PintLogBase
    Time m_telemetryRtt;                                 //!< TelemetryBaseRtt
    bool m_pintEveryPacket{false};                       //!< PintSamplesEveryPacket

    /// PINT state of an egress port
    struct PintPort
    {
        double u{0};      //!< smoothed utilisation
        Time last;        //!< time of the previous data packet (PintSamplesEveryPacket: any)
        uint32_t size{0}; //!< its wire bytes
    };

    std::vector<PintPort> m_pint;    //!< per port
    uint8_t m_datelineBase{0};       //!< SetDateline base priority
    uint8_t m_datelinePrio{0};       //!< SetDateline second priority (== base: off)
    std::vector<int32_t> m_portDim;  //!< SetPortDim dim per port
    std::vector<uint8_t> m_portWrap; //!< SetPortDim wrap per port
    uint64_t m_datelineCrossings{0}; //!< moved to the dateline priority
    uint64_t m_datelineReturns{0};   //!< moved back to the base priority
    std::vector<uint64_t> m_forwardedPrio = std::vector<uint64_t>(8, 0); //!< per priority
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t, const std::string&> m_dropTrace; //!< drops
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t, uint64_t> m_ecnTrace;            //!< marks
    TracedCallback<uint32_t, uint8_t, bool> m_pfcPauseTrace;  //!< PAUSE sent/received
    TracedCallback<uint32_t, uint8_t, bool> m_pfcResumeTrace; //!< RESUME sent/received
};

} // namespace ns3

#endif // ROCE_SWITCH_H
