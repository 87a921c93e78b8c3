/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "roce-wire.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

namespace ns3
{

class RoceChannel;
class ErrorModel;
class Node;
class RoceNetDevice;

/**
 * \ingroup training-net
 * The owner of a switch port's device (RoceSwitch), which the device calls directly for every
 * frame received and every packet leaving a queue, as FabricReceiveCallback and DequeueHook
 * would: a Callback passes its Ptr arguments by value through three calls, about 150
 * instructions a frame hop.
 */
class RocePortOwner
{
  public:
    virtual ~RocePortOwner() = default;
    /**
     * \param dev the port's device \param p L3 packet without Ethernet header
     * \param port port index
     */
    virtual void PortReceive(RoceNetDevice* dev, const Ptr<Packet>& p, uint32_t port) = 0;
    /**
     * \param dev the port's device \param p the packet leaving \param queue its queue
     * \param ingress ingress tag given at Enqueue
     */
    virtual void PortDequeued(RoceNetDevice* dev,
                              const Ptr<Packet>& p,
                              uint8_t queue,
                              uint32_t ingress) = 0;
};

/**
 * \ingroup training-net
 * The host NIC a port pulls its data packets from (RoceNetDevice::SetPullSource), called
 * directly as the pull callback would be: a frame's start then reads no callback object and no
 * object binding the port between the device and the NIC, each a cache miss at scale.
 */
class RocePullSource
{
  public:
    virtual ~RocePullSource() = default;
    /**
     * \param port the port index given to SetPullSource \param pausedMask priorities paused
     * \return the next packet to send, or null
     */
    virtual Ptr<Packet> PullFrom(uint32_t port, uint8_t pausedMask) = 0;
};

/**
 * \ingroup training-net
 * Full-duplex point-to-point RoCE port with 8 priority data queues, a strict-priority control
 * queue that is never paused, and IEEE 802.1Qbb PFC.
 *
 * Packets inside the node (queues, callbacks) are L3 packets: IPv4+UDP (RoceIpUdpHeader) ..
 * ICRC trailer, without Ethernet header. The device adds the Ethernet header (src = own MAC,
 * dst = peer MAC, type 0x0800) when a frame starts on the link and removes it on receive, so
 * pcap traces (DLT_EN10MB) show complete frames. PFC frames are generated and consumed by the
 * device itself.
 *
 * Transmit order when the link is idle: pending PFC frames, then the control queue, then round
 * robin over the unpaused non-empty data priorities 0..7 plus the optional host pull source
 * (a 9th round-robin member, see SetPullSource). Wire time of a frame of F bytes (Ethernet
 * header .. ICRC) is (F + 4 FCS + 8 preamble/SFD + 12 IFG) * 8 / DataRate under the default
 * Framing ("ethernet"); under "hpcc-family" the same frames are sent (pcap shows them) but
 * each lasts the bytes the HPCC family's simulators put on their links for that packet
 * (RoceWire::WireBytes), so that a comparison with them compares controls, not framing.
 *
 * PFC receive: a PAUSE with quanta q for priority p stops data priority p (and the pull source
 * for p) for q * 512 / DataRate; a later frame replaces the remaining time; q = 0 resumes at
 * once; an expired pause resumes by itself (a lost RESUME never stalls).
 * PFC send: SetPfcPauseState(p, true) sends a PAUSE with PauseQuanta and refreshes it every
 * half pause time while the state stays paused; SetPfcPauseState(p, false) sends XON
 * (quanta 0). Only priorities enabled in PfcEnableMask are paused or generate PFC.
 *
 * Receive: with a fabric callback set (RoceSwitch::AddPort does it) received L3 packets go to
 * it with the port index; otherwise to the standard NetDevice receive callback (protocol
 * 0x0800).
 *
 * Ordinary IPv4 (ns-3's internet stack on an NPU: TCP, UDP, ICMP) goes through Send(): the
 * packet's IP precedence (DSCP >> 3) picks its data priority (RoceIpUdpHeader::GetQueue), it
 * is routed by the node's RoceSwitch when the device is one of its ports (LocalSendCallback)
 * and queued by EnqueueIp on the egress device. A priority that is lossless here (PFC
 * enabled) is refused ("IpOnLossless"): IP traffic has no congestion control the fabric can
 * rely on and would pause the RDMA traffic of that class. The IP packets a node queues on a
 * device are bounded by IpQueueLimit (beyond it "IpQueueFull", as a full NIC ring); received
 * IP packets addressed to the node reach the stack through DeliverUp.
 */
class RoceNetDevice : public NetDevice
{
  public:
    static constexpr uint8_t NUM_PRIORITIES = 8;       //!< data priorities
    static constexpr uint8_t CONTROL_QUEUE = 8;        //!< queue index of the control queue
    static constexpr uint32_t ETH_HEADER = 14;         //!< Ethernet header bytes
    static constexpr uint32_t WIRE_OVERHEAD = 24;      //!< FCS 4 + preamble/SFD 8 + IFG 12
    static constexpr uint32_t NO_INGRESS = 0xffffffff; //!< ingress tag of locally sent packets
    /// Lowest link, injection or memory rate a fabric takes (bit/s): 1 Gbit/s. The NICs'
    /// timers and the samplers tick per simulated second, so a run's events grow as the rate
    /// falls: at 1 bit/s a 1 MiB collective needs 8 million simulated seconds.
    static constexpr uint64_t MIN_DATA_RATE_BPS = UINT64_C(1000000000);
    static constexpr uint32_t LOCAL_IP = 0xfffffffe; //!< ingress tag of the node's IP packets

    /**
     * Fabric receive callback: (device, L3 packet without Ethernet header, port index).
     */
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint32_t> FabricReceiveCallback;

    /**
     * Dequeue hook called for every data or control packet leaving a queue (not for pulled
     * packets nor PFC frames), before the Ethernet header is added: (device, packet, queue
     * index 0..8, ingress tag given at Enqueue). The switch uses it to release MMU buffer and to
     * mark ECN; it may modify the packet in place.
     */
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t, uint32_t> DequeueHook;

    /**
     * Pull source (host NIC): called when the link is idle and it is the source's round-robin
     * turn, with a bitmask of data priorities currently paused by PFC (bit p = paused).
     * Returns an L3 packet (RoceIpUdpHeader at front, DSCP = its priority) of an unpaused
     * priority, or 0 if nothing is ready; in that case the source calls Kick() when it has
     * something.
     */
    typedef Callback<Ptr<Packet>, uint8_t> PullCallback;

    /**
     * Local send of an ordinary IPv4 packet handed to Send(): (L3 packet). The RoceSwitch of
     * the node routes it to its egress port (RoceSwitch::SendLocal). Returns false if dropped.
     */
    typedef Callback<bool, Ptr<Packet>> LocalSendCallback;

    /**
     * Drop trace signature.
     * \param packet the dropped packet
     * \param reason why
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, const std::string& reason);
    /**
     * PFC trace signature.
     * \param priority class 0..7
     * \param pause true for PAUSE (quanta > 0), false for RESUME (quanta 0)
     * \param quanta quanta carried
     */
    typedef void (*PfcTracedCallback)(uint8_t priority, bool pause, uint16_t quanta);
    /**
     * Queue trace signature.
     * \param packet the packet
     * \param queue queue index 0..7 data, 8 control
     */
    typedef void (*QueueTracedCallback)(Ptr<const Packet> packet, uint8_t queue);

    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceNetDevice();
    ~RoceNetDevice() override;

    /** \param ch the channel to attach to (RoceChannel::Attach is called) */
    bool Attach(Ptr<RoceChannel> ch);
    /** \param rate link rate */
    void SetDataRate(DataRate rate);
    /** \return link rate */
    DataRate GetDataRate() const;
    /** \param em receive error model (applied to every received frame incl. PFC) */
    void SetReceiveErrorModel(Ptr<ErrorModel> em);

    /**
     * Enqueue an L3 packet (no Ethernet header) on a queue and start transmission if idle.
     * No admission control here (the switch MMU or the NIC decides).
     * \param p packet
     * \param queue 0..7 data priority, CONTROL_QUEUE for control
     * \param ingressTag opaque value handed back to the DequeueHook (ingress port or NO_INGRESS)
     * \param heldBy control queue only: while this packet is at its head, the queue waits as
     *        long as data priority heldBy (0..7) is paused by the peer; NUM_PRIORITIES: never
     */
    void Enqueue(Ptr<Packet> p,
                 uint8_t queue,
                 uint32_t ingressTag = NO_INGRESS,
                 uint8_t heldBy = NUM_PRIORITIES);
    /** Tell an idle device that the pull source may have a packet now. */
    void Kick();

    /**
     * Queue an ordinary IPv4 packet sent by this node on the data queue of its priority
     * (0..7), unless that priority is lossless here ("IpOnLossless") or the node's IP packets
     * queued on this device would exceed IpQueueLimit ("IpQueueFull").
     * \param p L3 packet (IPv4 header at front)
     * \param priority data priority 0..7
     * \return false if dropped (Drop trace)
     */
    bool EnqueueIp(Ptr<Packet> p, uint8_t priority);
    /**
     * Hand a received IPv4 packet addressed to this node to the protocol stack (the standard
     * NetDevice receive callback, protocol 0x0800).
     * \param p L3 packet (IPv4 header at front)
     * \return false if no stack listens on this device (nothing is done)
     */
    bool DeliverUp(Ptr<Packet> p);

    /** \return bytes of the node's own IP packets queued on this device */
    uint64_t GetIpQueueBytes() const
    {
        return m_ipQueueBytes;
    }

    /**
     * Request (true) or release (false) a PFC pause of the peer for a priority. Sends PAUSE /
     * RESUME frames through the PFC path and refreshes the PAUSE at half its time while paused.
     * No-op if the state does not change or the priority is not PFC-enabled.
     * \param priority 0..7
     * \param pause desired state
     */
    void SetPfcPauseState(uint8_t priority, bool pause);
    /**
     * Send one PFC frame now (tests and special uses).
     * \param priority 0..7
     * \param quanta quanta (0 = resume)
     */
    void SendPfcFrame(uint8_t priority, uint16_t quanta);

    /** \param priority 0..7 \return true if we currently keep the peer paused */
    bool IsPauseRequested(uint8_t priority) const
    {
        return (m_pauseRequestMask >> (priority & 7)) & 1;
    }

    /** \param priority 0..7 \return true if that data priority is paused by the peer */
    bool IsPaused(uint8_t priority) const;

    /** \return bitmask of paused data priorities */
    uint8_t GetPausedMask() const
    {
        return m_pausedMask;
    }

    /** \param priority 0..7 \return true if PFC (lossless) is enabled for it */
    bool IsPfcEnabled(uint8_t priority) const
    {
        return (m_pfcEnableMask >> (priority & 7)) & 1;
    }

    /** \param queue 0..8 \return bytes queued (L3 sizes) */
    uint64_t GetQueueBytes(uint8_t queue) const
    {
        return m_queueBytes[queue];
    }

    /** \param queue 0..8 \return packets queued */
    uint32_t GetQueuePackets(uint8_t queue) const
    {
        return m_queues[queue].size();
    }

    /** \return total time data priority p spent paused so far */
    Time GetPausedTime(uint8_t priority) const;

    /** \param priority 0..7 \return start of the current pause (meaningful while paused) */
    Time GetPausedSince(uint8_t priority) const
    {
        return m_pausedSince[priority & 7];
    }

    /**
     * Visit the packets waiting on a queue, head first (diagnosis: PfcDeadlockWatch reads
     * which ingress port and which flow each waiting frame belongs to).
     * \param queue 0..8 \param visit called with each packet and its ingress tag
     */
    void VisitQueue(uint8_t queue,
                    const std::function<void(Ptr<const Packet>, uint32_t)>& visit) const;

    /** \return bytes sent on the wire so far (frames incl. Ethernet header, excl. FCS) */
    uint64_t GetTxBytes() const
    {
        return m_txBytes;
    }

    /** \return frames sent so far */
    uint64_t GetTxPackets() const
    {
        return m_txPackets;
    }

    /**
     * \return time the transmitter was busy so far, the frame on the wire counted up to now
     * (wire bits sent in an interval = the growth of this over it x the rate, so at most
     * the interval's length: a sampled utilisation never exceeds 1)
     */
    Time GetTxBusyTime() const;

    /**
     * \return when the last data frame started (from a data queue or the pull source; not a
     * PFC or control frame), or -1 ns when none has
     */
    Time GetLastDataTxTime() const
    {
        return m_lastDataTx;
    }

    /** \return true while a frame is being transmitted */
    bool IsBusy() const
    {
        return m_busy;
    }

    /** \param cb fabric receive callback (set by RoceSwitch) */
    void SetFabricReceiveCallback(FabricReceiveCallback cb);

    /**
     * \param owner the switch the device is a port of (0: none), called instead of the
     * fabric receive callback and the dequeue hook; it outlives the device's frames
     */
    void SetPortOwner(RocePortOwner* owner)
    {
        m_owner = owner;
    }

    /** \param cb dequeue hook (set by RoceSwitch) */
    void SetDequeueHook(DequeueHook cb);
    /**
     * A function as the pull source (a test's, or any host's that is not a RocePullSource):
     * the device wraps it in a source of its own, so that a frame's start asks one kind of
     * source. Replaces the pull source; a null callback removes it.
     * \param cb called with the paused priorities, returns the next packet or null
     */
    void SetPullCallback(PullCallback cb);

    /**
     * Pull data packets from source (RdmaNic): it outlives the device's frames. Replaces the
     * pull callback; null removes it.
     * \param source the NIC \param port the port index it is told at each pull
     */
    void SetPullSource(RocePullSource* source, uint32_t port)
    {
        m_pullSource = source;
        m_pullPort = port;
        if (source != &m_callbackSource)
        {
            m_callbackSource.pull = PullCallback();
        }
        Kick();
    }

    /** \param cb local send of IP packets handed to Send() (set by RoceSwitch) */
    void SetLocalSendCallback(LocalSendCallback cb);

    /** \param idx port index on its RoceSwitch */
    void SetPortIndex(uint32_t idx)
    {
        m_portIndex = idx;
    }

    /** \return port index on its RoceSwitch */
    uint32_t GetPortIndex() const
    {
        return m_portIndex;
    }

    /**
     * \return bytes on the wire so far under the device's Framing (Ethernet: GetTxBytes +
     * FCS, preamble and IFG of each frame): what its link time and INT's byte count see
     */
    uint64_t GetTxWireBytes() const
    {
        return m_txWireBytes;
    }

    /** \return how the link counts a frame's bytes (attribute Framing) */
    RoceWire::Framing GetFraming() const
    {
        return m_framing;
    }

    /** \return the device at the other end of the channel (0 if not attached) */
    Ptr<RoceNetDevice> GetPeer() const;
    /**
     * \param l3Bytes L3 packet size (IPv4 .. ICRC)
     * \return time on the wire of the frame at this device's rate
     */
    Time GetWireTime(uint32_t l3Bytes) const;

    /**
     * Called by the channel when a frame arrives.
     * \param frame complete frame incl. Ethernet header, or the IPv4 packet alone when sent
     *        bare (without its Ethernet header: nothing at either end sees the frame's bytes)
     * \param ethernet whether the frame carries its Ethernet header
     */
    void Receive(Ptr<Packet> frame, bool ethernet = true);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;

    bool IsBroadcast() const override
    {
        return false;
    }

    Address GetBroadcast() const override;

    bool IsMulticast() const override
    {
        return false;
    }

    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;

    bool IsPointToPoint() const override
    {
        return true;
    }

    bool IsBridge() const override
    {
        return false;
    }

    /**
     * Send an L3 packet; protocolNumber must be 0x0800. A RoCE packet (RoceIpUdpHeader at
     * front) is queued by its DSCP (0..7 data priority, >= 8 control); any other IPv4 packet
     * (at least 28 bytes: IPv4 + the 8 bytes holding TCP/UDP ports) goes to the local send
     * callback (the node's RoceSwitch routes it), or to EnqueueIp here without one.
     */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;

    bool NeedsArp() const override
    {
        return false;
    }

    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;

    bool SupportsSendFrom() const override
    {
        return false;
    }

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    /// m_waiting's bit of the PFC frames (above the queues' bits)
    static constexpr uint16_t PFC_WAITING = 1u << (CONTROL_QUEUE + 1);

    /// A queued packet and its ingress tag.
    struct Item
    {
        Ptr<Packet> packet; //!< L3 packet
        uint32_t tag;       //!< ingress tag
        uint8_t heldBy;     //!< priority whose pause holds it (NUM_PRIORITIES: none)
    };

    /** \param bit a queue's bit in m_waiting \param waiting whether that queue holds a frame */
    void SetWaiting(uint16_t bit, bool waiting)
    {
        m_waiting = waiting ? (m_waiting | bit) : (m_waiting & static_cast<uint16_t>(~bit));
    }

    /**
     * m_waiting as the queues are now: what SetWaiting must have kept it at (asserted by
     * DoDispose in builds with asserts, so that a new place that pushes or pops a queue
     * without SetWaiting fails a suite; once, not per frame: it reads every queue, which a
     * frame's path must not).
     * \return a bit per non-empty queue, and PFC_WAITING if PFC frames wait
     */
    uint16_t WaitingOfQueues() const
    {
        uint16_t waiting = m_pfcQueue.empty() ? 0 : PFC_WAITING;
        for (uint32_t q = 0; q <= CONTROL_QUEUE; q++)
        {
            waiting |= m_queues[q].empty() ? 0 : static_cast<uint16_t>(1u << q);
        }
        return waiting;
    }

    /** Start sending the next frame if idle. */
    void TryTransmit();
    /**
     * \param frame frame to put on the wire \param wireBytes its bytes on the wire
     * \param ethernet whether it carries its Ethernet header (false: an IPv4 packet sent bare)
     */
    void StartFrame(Ptr<Packet> frame, uint32_t wireBytes, bool ethernet);
    /** \param p L3 packet: send it, with its Ethernet header if anything sees the bytes */
    void StartData(Ptr<Packet> p);

    /** \return whether a sink of this device sees the bytes of the frames it sends */
    bool FrameBytesSeenOnSend() const
    {
        return !m_macTxTrace.IsEmpty() || !m_snifferTrace.IsEmpty() ||
               !m_phyTxBeginTrace.IsEmpty() || !m_phyTxEndTrace.IsEmpty();
    }

    /** \return whether a sink or an error model here sees the bytes of the frames received */
    bool FrameBytesSeenOnReceive() const
    {
        // the drop trace sees a received frame only when the error model drops it
        return m_receiveErrorModel || !m_snifferTrace.IsEmpty() || !m_phyRxEndTrace.IsEmpty();
    }

    /** \param p L3 packet: add the Ethernet header towards the peer */
    void AddEthernet(Ptr<Packet> p);
    /** Transmission of the current frame is over. */
    void TransmitComplete();
    /** \param priority priority whose pause expired */
    void PauseExpired(uint8_t priority);
    /** \param priority priority whose PAUSE refresh timer fired */
    void RefreshPause(uint8_t priority);
    /** \param frame received PFC frame (Ethernet removed) */
    void ReceivePfc(Ptr<Packet> frame);
    /**
     * Wire time of the next frame sent: whole time steps, the rounding error carried to the
     * next frame, so that the frames' times add up to their exact total.
     * \param wireBytes the frame's bytes on the wire \return its time on the wire
     */
    Time NextFrameTime(uint32_t wireBytes);
    /** \param quanta quanta \return pause duration at this rate */
    Time QuantaToTime(uint16_t quanta) const;
    /** \param priority 0..7 \param paused new state */
    void SetPaused(uint8_t priority, bool paused);

    // What a frame's hop reads and writes here comes first, in as few cache lines as it
    // fits: a fabric has thousands of devices, a frame visits two at each hop, and each line of
    // a device touched is a cache miss. The queues are found through m_waiting, not by looking
    // at each deque (80 bytes each: the scan read ten lines).
    bool m_busy{false};            //!< transmitting
    bool m_linkUp{false};          //!< attached
    uint8_t m_pausedMask{0};       //!< priorities paused by the peer
    uint8_t m_rrNext{0};           //!< next round-robin slot (0..8, 8 = pull source)
    uint8_t m_pfcEnableMask{0x08}; //!< lossless priorities
    uint8_t m_pauseRequestMask{0}; //!< priorities we keep paused at the peer
    uint16_t m_waiting{0};         //!< bit q: m_queues[q] holds a packet; PFC_WAITING: PFC frames
    RoceWire::Framing m_framing{RoceWire::ETHERNET}; //!< Framing
    uint32_t m_portIndex{0};                         //!< switch port index
    Ptr<RoceChannel> m_channel;                      //!< channel
    RocePortOwner* m_owner{nullptr};                 //!< switch of this port
    RocePullSource* m_pullSource{nullptr};           //!< host pull source (SetPullSource)
    uint32_t m_pullPort{0};                          //!< the port index m_pullSource is told
    FabricReceiveCallback m_fabricRx;                //!< switch receive
    /**
     * The transmission end, one event scheduled again at every frame (at most one waits: the
     * device sends one frame at a time) instead of one allocated and freed per frame.
     */
    Ptr<EventImpl> m_txEndEvent;
    Ptr<Packet> m_current;       //!< frame on the wire, for a PhyTxEnd sink
    DataRate m_rate;             //!< link rate
    int64_t m_stepsPerSecond{0}; //!< time steps per second (cached resolution)
    int64_t m_wireCarry{0};      //!< rounding error carried to the next frame, in units of 1 / rate
    uint64_t m_txWireBytes{0};   //!< GetTxWireBytes
    Time m_txBusyTotal;          //!< wire time of every frame started
    Time m_txEnd;                //!< end of the frame on the wire
    uint64_t m_txBytes{0};       //!< frame bytes sent
    uint64_t m_txPackets{0};     //!< frames sent
    Time m_lastDataTx{NanoSeconds(-1)}; //!< start of the last data frame
    // what a peer's StartData asks of this device (FrameBytesSeenOnReceive), side by side
    Ptr<ErrorModel> m_receiveErrorModel;                       //!< receive error model
    TracedCallback<Ptr<const Packet>> m_snifferTrace;          //!< pcap (full frames, tx and rx)
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;         //!< frame received
    TracedCallback<Ptr<const Packet>> m_macTxTrace;            //!< frame handed to the MAC
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;       //!< frame starts
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;         //!< frame ends
    TracedCallback<Ptr<const Packet>, uint8_t> m_enqueueTrace; //!< enqueue
    TracedCallback<Ptr<const Packet>, uint8_t> m_dequeueTrace; //!< dequeue
    TracedCallback<Ptr<const Packet>> m_macRxTrace;            //!< packet received
    uint64_t m_queueBytes[NUM_PRIORITIES + 1]{};               //!< bytes per queue

    Ptr<Node> m_node;                  //!< node
    Mac48Address m_address;            //!< own MAC
    Mac48Address m_peerAddress;        //!< peer MAC (cached at first transmit)
    Mac48Address m_ethSource;          //!< own MAC when m_ethHeader was made
    uint8_t m_ethHeader[ETH_HEADER]{}; //!< bytes of the data frames' Ethernet header
    uint32_t m_ifIndex{0};             //!< interface index
    uint16_t m_mtu{0};                 //!< max L3 packet size
    uint16_t m_pauseQuanta{0xffff};    //!< quanta of generated PAUSE frames
    uint64_t m_ipQueueLimit{0};        //!< IpQueueLimit (bytes)
    uint64_t m_ipQueueBytes{0};        //!< the node's IP packets queued here (bytes)
    bool m_peerKnown{false};           //!< m_peerAddress valid

    std::deque<Item> m_queues[NUM_PRIORITIES + 1]; //!< 8 data queues + control queue
    std::deque<Ptr<Packet>> m_pfcQueue;            //!< PFC frames to send (full frames)
    EventId m_pauseExpiry[NUM_PRIORITIES];         //!< expiry of received pauses
    EventId m_pauseRefresh[NUM_PRIORITIES];        //!< refresh timers of sent pauses
    Time m_pausedSince[NUM_PRIORITIES];            //!< start of the current pause
    Time m_pausedTotal[NUM_PRIORITIES];            //!< accumulated pause time

    DequeueHook m_dequeueHook;                             //!< switch dequeue hook
    LocalSendCallback m_localSend;                         //!< node's router of IP packets
    NetDevice::ReceiveCallback m_rxCallback;               //!< standard receive
    NetDevice::PromiscReceiveCallback m_promiscRxCallback; //!< promiscuous receive
    TracedCallback<> m_linkChange; //!< unused (link always up once attached)

    TracedCallback<Ptr<const Packet>, const std::string&> m_dropTrace; //!< drop
    TracedCallback<uint8_t, bool, uint16_t> m_pfcTxTrace;              //!< PFC sent
    TracedCallback<uint8_t, bool, uint16_t> m_pfcRxTrace;              //!< PFC received

    /// SetPullCallback's function as a RocePullSource (last: only tests' hosts use it)
    class CallbackPullSource : public RocePullSource
    {
      public:
        Ptr<Packet> PullFrom(uint32_t /* port */, uint8_t pausedMask) override
        {
            return pull(pausedMask);
        }

        PullCallback pull; //!< the function (null: not in use)
    };

    CallbackPullSource m_callbackSource; //!< m_pullSource when set by SetPullCallback
};

} // namespace ns3

#endif // ROCE_NET_DEVICE_H
