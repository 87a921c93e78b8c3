/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RDMA NIC of an NPU node: reliable-connected queue pairs, RDMA WRITE, go-back-N, DCQCN.
 */
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "rdma-cc.h"
#include "rdma-queue-pair.h"
#include "rdma-transport.h"
#include "roce-switch.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <queue>
#include <unordered_map>
#include <vector>

namespace ns3
{

class Node;
class RoceNetDevice;
class RoceSwitch;
class RoceBthHeader;
class RoceRethHeader;
class RoceImmHeader;
class RoceIntHeader;
class RdmaRxHeader;

/**
 * \ingroup training-net
 * \brief RDMA NIC (RoCEv2, reliable connected) aggregated to an NPU node.
 *
 * The NIC owns one RdmaQueuePair per (peer node, priority), created on first use by either
 * side and reused by every message. PostWrite() queues an RDMA WRITE of any 64-bit size on
 * the QP; messages of a QP go out in order, segmented to the path MTU (RETH on the first
 * packet, ack-request on the last).
 *
 * Transmission: the NIC is the pull source of each of its RoceNetDevices
 * (RoceNetDevice::SetPullSource). When a port is free the device asks for a packet; the NIC
 * serves the QPs bound to that port in round robin, skipping priorities paused by PFC and QPs
 * whose pacing time (last send + wire bytes / rate) has not come (then it wakes the device at
 * the earliest pacing time; Scheduler family scans them as the HPCC family's NICs do instead).
 * ACK, NACK and CNP packets go to the device's control queue; with
 * AckPriority other than control, ACK and NACK carry their QP's data priority, so that the
 * switches queue them behind data of that priority (AckPriorityType).
 *
 * Reliability: the responder acknowledges every AckInterval packets, at the end of every
 * message and when the ack-request bit is set; it sends one NACK (PSN sequence error) at the
 * first gap and discards out-of-order packets (go-back-N); a duplicate is re-acknowledged at
 * once. The requester rewinds to the NACKed PSN, and a per-QP retransmission timer
 * (RetransmitTimeout, restarted on progress) rewinds to the oldest unacknowledged PSN, so a
 * flow never hangs when packets, ACKs or NACKs are lost. As a RoCE NIC's transport retry
 * counter does, the timer doubles at each timeout in a row without progress, and after
 * RetryLimit of them the QP enters the error state: its first unacknowledged message
 * completes with status RETRY_EXCEEDED, the others queued on it and any posted later with
 * FLUSHED (MessageFailed trace, and the completion callback with the record's status). A
 * path that loses everything, or a round trip far beyond RetransmitTimeout, thus ends the
 * message with an error after a bounded number of retransmissions instead of never.
 *
 * Congestion control: each queue pair runs an object of the class the CongestionControl
 * attribute names (an RdmaCongestionControl subclass, DCQCN's RdmaDcqcnControl by default, or
 * none), created by an ObjectFactory that carries the attributes given to
 * SetCongestionControlAttribute. The NIC tells it of every packet sent, ACK, NACK and CNP, and
 * paces the queue pair by its rate and window. The responder sends a CNP when a CE-marked
 * packet arrives, at most once per CnpInterval per QP, when the receiving queue pair's control
 * asks for them (RdmaCongestionControl::RequestsCnp: DCQCN's).
 *
 * Addressing: the NIC's node id (SetLocalId, default the ns-3 node id) is the topology node
 * id; IPv4 addresses follow RoceAddress (11.x.y.1).
 */
class RdmaNic : public RdmaTransport, public RoceLocalReceiver, public RocePullSource
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Where ACK and NACK packets queue (AckPriority). CNPs take the control class in all.
    enum AckPriorityType
    {
        ACK_CONTROL,          //!< control class on every hop (DSCP 48), never paused (default)
        ACK_DATA,             //!< the QP's data priority on every hop, the NIC's included
        ACK_HOST_FIRST,       //!< data priority at switches; the NIC sends them first, unpaused
        ACK_HOST_FIRST_PAUSED //!< as ACK_HOST_FIRST, held while their priority is paused
    };

    /// How a port picks its next queue pair and when an idle one looks again (Scheduler).
    enum SchedulerType
    {
        SCHED_RING,  //!< a ring of ready queue pairs, a wake-up at the earliest pacing time
        SCHED_FAMILY //!< the HPCC family's: a scan after the last one served, its wake-up
    };

    /**
     * Set an attribute of the congestion-control objects this NIC creates (of the class the
     * CongestionControl attribute selects, e.g. "TargetUtilization" of ns3::RdmaHpcc): the
     * NIC's ObjectFactory of them carries it to every queue pair's object; checked by
     * GetConfigError. Attributes not set here take their class's defaults (Config::SetDefault).
     * \param name attribute name \param value value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \return the class of the queue pairs' congestion control (the CongestionControl
     * attribute); ns3::RdmaCongestionControl itself for none
     */
    TypeId GetCongestionControl() const
    {
        return m_ccTid;
    }

    /** \return the CongestionControl attribute: its short name, else its TypeId name */
    std::string GetCongestionControlName() const;

    /// Completion callback of a posted message.
    typedef RdmaQueuePair::CompletionCallback CompletionCallback;
    /**
     * Rate trace signature.
     * \param qpn local QP number
     * \param rateBps new rate in bit/s
     */
    typedef void (*RateTracedCallback)(uint32_t qpn, double rateBps);
    /**
     * Window trace signature (WindowChange).
     * \param qpn local QP number
     * \param bytes new window in payload bytes (0 = none)
     */
    typedef void (*WindowTracedCallback)(uint32_t qpn, uint64_t bytes);
    /**
     * Per-QP event trace signature (CnpSent, CnpReceived, CeReceived, EcnEcho).
     * \param qpn local QP number
     */
    typedef void (*QpTracedCallback)(uint32_t qpn);
    /**
     * Per-QP PSN event trace signature (Retransmit, Nack, NackSent, Timeout).
     * \param qpn local QP number
     * \param psn the PSN concerned (64-bit, not wrapped)
     */
    typedef void (*QpPsnTracedCallback)(uint32_t qpn, uint64_t psn);

    RdmaNic();
    ~RdmaNic() override;

    /**
     * Attach the NIC to the node's forwarding object: the NIC becomes the local address
     * owner (RoceAddress of its id), the local receiver, and the pull source of every port
     * device. Call after all links of the node exist (RoceHelper does it).
     * \param sw the RoceSwitch aggregated to the same node
     */
    void Attach(Ptr<RoceSwitch> sw);

    /** \return number of ports */
    uint32_t GetNPorts() const
    {
        return m_ports.size();
    }

    /** \param i port index \return the device */
    Ptr<RoceNetDevice> GetPort(uint32_t i) const;

    /** \param id topology node id of this NIC (addresses, QP numbers) */
    void SetLocalId(uint32_t id) override;
    /** \return topology node id of this NIC */
    uint32_t GetLocalId() const override;

    /**
     * Post an RDMA WRITE with every field of a work request (lane, RETH address and key,
     * immediate data).
     * \param request the work request
     * \param done called when the last byte is acknowledged (may be null)
     * \return the message id (unique on this NIC, from 1)
     */
    uint64_t Post(const RdmaWriteRequest& request,
                  CompletionCallback done = CompletionCallback()) override;

    /** \return the summed line rate of the ports, bit/s */
    uint64_t GetLineRate() const override;

    /**
     * UDP source port of the QP toward (peer, priority, lane): lane 0 has the port hashed
     * from the QP number, lane k the k-th port after it, so the lanes of a (peer, priority)
     * never share a port.
     * \param peer peer node id \param priority 0..7 \param lane lane
     * \return the port (49152..65535)
     */
    uint16_t GetLaneSourcePort(uint32_t peer, uint8_t priority, uint32_t lane) const;

    /**
     * GetLaneSourcePort of the NIC of node `local`: RoceWire::LaneSourcePort, which FlowNic
     * takes too, so that its flows take the packets' ECMP paths.
     * \param local node id of the NIC \param peer peer node id \param priority 0..7
     * \param lane lane \return the port
     */
    static uint16_t LaneSourcePort(uint32_t local, uint32_t peer, uint8_t priority, uint32_t lane)
    {
        return RoceWire::LaneSourcePort(local, peer, priority, lane);
    }

    /**
     * Receive an L3 RoCE packet addressed to this node (IPv4/UDP header at front).
     * \param p the packet (consumed)
     */
    void Receive(Ptr<Packet> p);
    /**
     * Local receive callback of the RoceSwitch.
     * \param p the packet \param inPort ingress port
     */
    void ReceiveFromSwitch(Ptr<Packet> p, uint32_t inPort);
    /** RoceLocalReceiver: as ReceiveFromSwitch \param p the packet \param inPort ingress port */
    void LocalReceive(const Ptr<Packet>& p, uint32_t inPort) override;

    /**
     * \param peer peer node id \param priority 0..7 \param lane lane
     * \return the QP toward (peer, priority, lane) or 0 if none exists yet
     */
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t peer, uint8_t priority, uint32_t lane = 0) const;

    /** \return number of QPs */
    uint32_t GetNQueuePairs() const
    {
        return m_qpList.size();
    }

    /** \param i index in creation order \return the QP */
    Ptr<RdmaQueuePair> GetQueuePairByIndex(uint32_t i) const;

    /** \param qpn a local QP number (as the per-QP traces give it) \return the QP or 0 */
    Ptr<RdmaQueuePair> GetQueuePairByQpn(uint32_t qpn) const;

    /**
     * The base RTT of the path to `peer` (the HPCC family's T per source and destination,
     * GLOBAL_T 0): QPs created toward it afterwards give it to their congestion control
     * (RdmaCongestionControl::SetPathBaseRtt) in place of the algorithm's attribute, and the
     * window at the line rate when the path is slower than the NIC (SetPathBdp: the family's
     * pairBdp or maxBdp, its T x the path's bottleneck rate).
     * \param peer peer node id \param rtt base RTT of the path (> 0)
     * \param bdp window at the line rate, bytes (0: line rate x rtt)
     */
    void SetPeerBaseRtt(uint32_t peer, Time rtt, uint64_t bdp = 0);

    /// streams a NIC reserves for its queue pairs' congestion controls: one per QPN
    static constexpr int64_t QP_STREAMS = int64_t(1) << 32;

    /**
     * Fix the random streams of the queue pairs' congestion controls, which are made at run
     * time (HPCC-PINT samples ACKs): the control of QPN q draws from stream + q, whatever the
     * process made before and whichever NICs it holds (MPI). Controls made already get theirs
     * too. Without a call they take ns-3's automatic streams.
     * \param stream first stream
     * \return streams reserved, QP_STREAMS
     */
    int64_t AssignStreams(int64_t stream);

    /** \return payload bytes retransmitted by all QPs */
    uint64_t GetRetransmittedBytes() const
    {
        return m_retxBytes;
    }

    /** \return data packets sent (incl. retransmissions) */
    uint64_t GetDataPacketsSent() const
    {
        return m_dataSent;
    }

    /** \return CNPs sent */
    uint64_t GetCnpsSent() const
    {
        return m_cnpSent;
    }

    /** \return CNPs received */
    uint64_t GetCnpsReceived() const
    {
        return m_cnpReceived;
    }

    /** \return ACKs received whose BECN bit echoed a CE mark (with CongestionNotification ack,
     * DCQCN's notifications) */
    uint64_t GetEcnEchoesReceived() const
    {
        return m_ecnEchoes;
    }

    /** \return NACKs received */
    uint64_t GetNacksReceived() const
    {
        return m_nackReceived;
    }

    /** \return retransmission timeouts */
    uint64_t GetTimeouts() const
    {
        return m_timeoutCount;
    }

    /**
     * Attribute values the NIC cannot work with (it aborts on them when it starts).
     * \return "" if they are usable, else what is wrong, naming the attribute
     */
    std::string GetConfigError() const;

    /** \return messages that ended with an error status (RETRY_EXCEEDED or FLUSHED) */
    uint64_t GetFailedMessages() const
    {
        return m_failedCount;
    }

    /** \return messages completed (sender side) */
    uint64_t GetCompletedMessages() const override
    {
        return m_completed;
    }

    Time GetLastDataRxTime() const override
    {
        return m_lastDataRx;
    }

    /** \return the path MTU (payload bytes per packet) */
    uint32_t GetMtu() const override
    {
        return m_mtu;
    }

    /// Per-packet header bytes on the wire besides the payload (RoceWire::DATA_OVERHEAD).
    static constexpr uint32_t DATA_WIRE_OVERHEAD = RoceWire::DATA_OVERHEAD;
    /// RETH bytes on the first packet of a message (RoceWire::RETH_BYTES).
    static constexpr uint32_t RETH_BYTES = RoceWire::RETH_BYTES;

  protected:
    void DoDispose() override;
    void DoInitialize() override;
    void NotifyNewAggregate() override;

  private:
    friend class RdmaQueuePair;

    /// Entry of a port's pacing heap, and of the retransmission timers' heap.
    struct Paced
    {
        Time when;         //!< pacing time (timer's heap: when the entry is served)
        uint64_t seq;      //!< insertion order (tie break)
        RdmaQueuePair* qp; //!< the QP

        /** \param o other \return true if this one is served later */
        bool operator>(const Paced& o) const
        {
            return when != o.when ? when > o.when : seq > o.seq;
        }
    };

    /// One port (egress device) and its transmit scheduler.
    struct Port
    {
        Ptr<RoceNetDevice> dev;          //!< device
        double rate{0};                  //!< line rate bit/s
        std::deque<RdmaQueuePair*> ring; //!< QPs ready to send (round robin)
        std::priority_queue<Paced, std::vector<Paced>, std::greater<Paced>> paced; //!< heap
        EventId wake;            //!< wake-up at the earliest pacing time
        Time wakeAt;             //!< time of the scheduled wake-up
        bool wakePending{false}; //!< wake is scheduled
        /// Scheduler family: the queue pairs with data in the order they came (the family's
        /// m_qpGrp) and the last one served (its m_rrlast)
        std::vector<RdmaQueuePair*> group;
        uint32_t rrLast{0}; //!< index in group of the last one served
    };

    /// \return the queue pair (m_qpList owns it), created at its first use
    RdmaQueuePair* GetOrCreateQp(uint32_t peer, uint8_t priority, uint32_t lane);
    /// its control draws from m_ccStream + its QPN (nothing before AssignStreams)
    void AssignQpStream(RdmaQueuePair& qp) const;
    Ptr<Packet> PullFrom(uint32_t port, uint8_t pausedMask) override;
    Ptr<Packet> BuildDataPacket(RdmaQueuePair* qp);
    /** \return whether the packet metadata is on: headers added one by one (RdmaTxHeaders) */
    bool HeadersItemized();
    void Schedule(RdmaQueuePair* qp);
    void WakePort(uint32_t port);
    void KickPort(uint32_t port);
    void FamilyWakeup(uint32_t port);
    RdmaQueuePair* FamilyNext(uint32_t port, uint8_t pausedMask);
    bool WindowBound(const RdmaQueuePair* qp) const;
    void SendControl(RdmaQueuePair* qp, uint8_t opcode, uint64_t psn, uint8_t syndrome);
    void ReceiveData(RdmaQueuePair* qp,
                     const RoceBthHeader& bth,
                     const RoceRethHeader* reth,
                     const RoceImmHeader* imm,
                     const RoceIntHeader* telemetry,
                     uint32_t payload,
                     bool ce,
                     uint32_t peer);
    void ReceiveAck(RdmaQueuePair* qp, const RdmaRxHeader& h);
    /// \return the factory of the CC objects (type and attributes applied), or null for none
    const ObjectFactory* GetCcFactory() const;
    /// \return a new queue pair's congestion control, or null for none
    Ptr<RdmaCongestionControl> CreateCongestionControl() const;
    /// \param name the CongestionControl attribute (checked by its checker)
    void SetCongestionControlName(std::string name);
    void Acknowledge(RdmaQueuePair* qp, uint64_t ackedUpTo);
    /// Starts (or restarts) qp's retransmission timer: it expires CurrentRto from now.
    void ArmRto(RdmaQueuePair* qp);
    /// Stops qp's timer (everything acknowledged); its heap entry goes stale.
    void StopRto(RdmaQueuePair* qp);
    /// Puts qp in the timer heap at `when` and moves the NIC's timer event earlier if needed.
    void PushRto(Time when, RdmaQueuePair* qp);
    /// The NIC's timer event: serves every heap entry that is due.
    void RtoTimerFired();
    /// Schedules the NIC's timer event at the heap's earliest entry, or drops it and the heap
    /// when no queue pair's timer runs.
    void RescheduleRtoTimer();
    /// qp's timer expired without progress: go back to its oldest unacknowledged PSN.
    void RtoExpired(RdmaQueuePair* qp);
    /// \return the QP's current retransmission timeout: RetransmitTimeout * 2^retries
    Time CurrentRto(const RdmaQueuePair* qp) const;
    /// Error state: complete every message of the QP with an error status.
    void FailQp(RdmaQueuePair* qp);
    /// Complete a message that did not succeed (trace and callback).
    void CompleteFailed(RdmaQueuePair::Message& m, RdmaMessageRecord::Status status);
    /// A message posted to a QP in the error state: completed FLUSHED (scheduled by Post).
    void FlushPosted(RdmaQueuePair::Message m);
    void CheckConfig();
    void RateChanged(RdmaQueuePair* qp, double rate);
    /** \param qp the QP \param bytes its congestion control's new window */
    void WindowChanged(RdmaQueuePair* qp, uint64_t bytes);

    Ptr<Node> m_node;
    uint32_t m_localId{0};
    bool m_localIdSet{false};
    std::vector<Port> m_ports;
    Ptr<RoceSwitch> m_switch;

    /**
     * The queue pairs by local QPN (m_qpList owns them): open addressing in one array of
     * (QPN, QP) slots, a power of two at most half full, probed linearly. Every packet
     * received and every message posted looks its queue pair up: one slot's cache line,
     * where a hash map read a bucket and then a node.
     */
    class QpTable
    {
      public:
        /** \param qpn a QPN (> 0) \return its queue pair, or null */
        RdmaQueuePair* Find(uint32_t qpn) const
        {
            if (m_slots.empty())
            {
                return nullptr;
            }
            for (uint32_t i = Home(qpn);; i = (i + 1) & m_mask)
            {
                const Slot& s = m_slots[i];
                if (s.qpn == qpn || s.qpn == 0)
                {
                    return s.qp; // the empty slot's is null
                }
            }
        }

        /** \param qpn a QPN (> 0) not in the table \param qp its queue pair */
        void Insert(uint32_t qpn, RdmaQueuePair* qp)
        {
            if (2 * (m_used + 1) > m_slots.size())
            {
                std::vector<Slot> old(m_slots.size() < 8 ? 16 : 2 * m_slots.size());
                old.swap(m_slots);
                m_mask = static_cast<uint32_t>(m_slots.size() - 1);
                m_used = 0;
                for (const Slot& s : old)
                {
                    if (s.qpn != 0)
                    {
                        Insert(s.qpn, s.qp);
                    }
                }
            }
            uint32_t i = Home(qpn);
            while (m_slots[i].qpn != 0)
            {
                i = (i + 1) & m_mask;
            }
            m_slots[i] = Slot{qpn, qp};
            ++m_used;
        }

        /** forget every queue pair */
        void Clear()
        {
            m_slots.clear();
            m_used = 0;
            m_mask = 0;
        }

      private:
        /** a slot: QPN 0 (no QP has it) is empty */
        struct Slot
        {
            uint32_t qpn{0};            //!< the QPN
            RdmaQueuePair* qp{nullptr}; //!< its queue pair
        };

        /** \param qpn a QPN \return its first slot (Fibonacci hashing: QPNs of one peer
         * differ in their low bits, of peers in the middle ones) */
        uint32_t Home(uint32_t qpn) const
        {
            return static_cast<uint32_t>((qpn * 0x9e3779b97f4a7c15ULL) >> 32) & m_mask;
        }

        std::vector<Slot> m_slots; //!< the slots
        uint32_t m_used{0};        //!< slots in use
        uint32_t m_mask{0};        //!< slots - 1
    };

    QpTable m_qps; //!< by local QPN
    /// SetPeerBaseRtt (base RTT, BDP), by peer
    std::unordered_map<uint32_t, std::pair<Time, uint64_t>> m_peerBaseRtt;
    std::vector<Ptr<RdmaQueuePair>> m_qpList; //!< creation order
    uint64_t m_nextMsgId{1};
    /// the completion of a post toListener: tells the transport's listener (one callback for
    /// all such posts)
    CompletionCallback m_toListener;
    uint64_t m_pacedSeq{0};
    /// The queue pairs' retransmission timers: one event for the NIC at the earliest of a heap
    /// with an entry per queue pair whose timer runs. An event per queue pair put up to two
    /// million timers in the simulator's heap at 4,096 GPUs (a direct phase keeps 511 queue
    /// pairs a NIC busy), each of them taken out and put back at every message, and every other
    /// event's heap operation paid for their depth.
    std::priority_queue<Paced, std::vector<Paced>, std::greater<Paced>> m_rtoHeap;
    uint64_t m_rtoSeq{0};      //!< insertion order of m_rtoHeap (tie break)
    uint32_t m_rtoRunning{0};  //!< queue pairs whose timer runs
    EventId m_rtoTimer;        //!< at m_rtoTimerAt, while m_rtoRunning > 0
    Time m_rtoTimerAt;         //!< time of m_rtoTimer
    bool m_rtoTimerSet{false}; //!< m_rtoTimer is scheduled
    bool m_rtoFiring{false};   //!< in RtoTimerFired: it reschedules the event once at its end
    /// Puts qp in its port's pacing heap at `when` (its earlier entries become stale).
    void PushPaced(Port& pt, Time when, RdmaQueuePair* qp);
    bool m_configChecked{false};

    // attributes
    uint32_t m_mtu;
    TypeId m_ccTid; //!< CongestionControl
    /// attributes for the CC objects (SetCongestionControlAttribute), applied lazily
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_ccAttributes;
    mutable ObjectFactory m_ccFactory;    //!< CC objects of the selected class
    mutable bool m_ccFactoryReady{false}; //!< m_ccFactory built for m_ccTid and m_ccAttributes
    /// a fork of the first control built from m_ccFactory, never started: the next controls
    /// are its forks (RdmaCongestionControl::Fork), so a NIC's controls all take the
    /// attributes its first one had
    mutable Ptr<RdmaCongestionControl> m_ccPrototype;
    int64_t m_ccStream{-1}; //!< AssignStreams' first stream, -1: automatic streams
    uint32_t m_ackInterval;
    bool m_rateChangeReschedules;          //!< RateChangeReschedules
    SchedulerType m_scheduler{SCHED_RING}; //!< Scheduler
    int8_t m_headersItemized{-1};          //!< HeadersItemized: -1 not asked yet, then 0 or 1
    AckPriorityType m_ackPriority;         //!< AckPriority
    Time m_rto;
    Time m_cnpInterval;
    DataRate m_injectionRate;
    Time m_injectNext; //!< earliest time of the next data packet under InjectionRate

    // counters
    uint64_t m_retxBytes{0};
    uint64_t m_dataSent{0};
    uint64_t m_cnpSent{0};
    uint64_t m_cnpReceived{0};
    uint64_t m_ecnEchoes{0}; //!< ACKs with BECN received
    uint64_t m_nackReceived{0};
    uint64_t m_timeoutCount{0};
    uint64_t m_failedCount{0};
    uint32_t m_retryLimit{7};
    uint64_t m_completed{0};
    Time m_lastDataRx{NanoSeconds(-1)}; //!< arrival of the last data packet

    TracedCallback<const RdmaMessageRecord&> m_messageCompleteTrace;
    TracedCallback<const RdmaMessageRecord&> m_messageFailedTrace;
    TracedCallback<const RdmaMessageRecord&> m_messageReceivedTrace;
    TracedCallback<uint32_t, double> m_rateChangeTrace;
    TracedCallback<uint32_t> m_cnpSentTrace;
    TracedCallback<uint32_t> m_cnpReceivedTrace;
    TracedCallback<uint32_t, uint64_t> m_windowChangeTrace;
    TracedCallback<uint32_t> m_ceReceivedTrace;
    TracedCallback<uint32_t> m_ecnEchoTrace;
    TracedCallback<uint32_t, uint64_t> m_retransmitTrace;
    TracedCallback<uint32_t, uint64_t> m_nackTrace;
    TracedCallback<uint32_t, uint64_t> m_nackSentTrace;
    TracedCallback<uint32_t, uint64_t> m_timeoutTrace;
};

} // namespace ns3

#endif // RDMA_NIC_H
