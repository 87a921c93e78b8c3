/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Reliable-connected RDMA queue pair: sender (requester) and receiver (responder) state.
 */
#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "rdma-cc.h"
#include "roce-fifo.h"
#include "roce-header.h"
#include "roce-wire.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <memory>

namespace ns3
{

class RdmaNic;

/**
 * \ingroup training-net
 * \brief Record of one RDMA WRITE message, handed to completion callbacks and traces.
 */
struct RdmaMessageRecord
{
    /// How a message ended (as a verbs work completion's status).
    enum Status : uint8_t
    {
        SUCCESS,        //!< acknowledged (sender) / received (responder)
        RETRY_EXCEEDED, //!< RetryLimit timeouts in a row without progress: the QP failed
        FLUSHED,        //!< posted to, or queued behind, a failed message on a failed QP
    };

    uint64_t id{0};                 //!< message id (unique per sending NIC, from 1)
    uint32_t src{0};                //!< source node (topology id)
    uint32_t dst{0};                //!< destination node (topology id)
    uint8_t priority{0};            //!< traffic class 0..7
    uint32_t qpn{0};                //!< local QP number (sender side)
    uint16_t udpSourcePort{0};      //!< UDP source port of the QP (ECMP entropy)
    uint64_t bytes{0};              //!< message size
    Time start;                     //!< time the message was posted
    Time end;                       //!< time the last byte was acknowledged (sender) / received
    uint64_t retransmittedBytes{0}; //!< payload bytes sent again (sender side)
    uint32_t lane{0};               //!< QP lane toward the peer (RdmaWriteRequest::lane)
    uint64_t remoteAddress{0};      //!< RETH virtual address
    uint32_t remoteKey{0};          //!< RETH R_Key
    bool hasImmediate{false};       //!< written with immediate data
    uint32_t immediate{0};          //!< the immediate data (if hasImmediate)
    Status status{SUCCESS};         //!< how it ended (sender side)
    uint64_t wrId{0};               //!< RdmaWriteRequest::wrId (sender side; 0 at the responder)
};

/**
 * \ingroup training-net
 * \brief An RDMA WRITE work request (RdmaNic::Post).
 *
 * The RETH of the first packet carries remoteAddress and remoteKey; with hasImmediate the
 * last packet is a WRITE LAST/ONLY with immediate and carries ImmDt, which the responder
 * reports in its MessageReceived record (as a real RDMA completion with immediate does).
 *
 * Lanes: several queue pairs may join the same two nodes at the same priority, one per
 * lane (0 = the default QP). Messages of one lane stay in order; different lanes have
 * different UDP source ports (RdmaNic::GetLaneSourcePort), so a fabric can send them on
 * different paths (per-QP path selection: RoceSwitch::SetFlowRoute).
 */
struct RdmaWriteRequest
{
    uint32_t dst{0};           //!< destination node (topology id)
    uint64_t bytes{0};         //!< message size (any 64-bit value; 0 sends one empty packet)
    uint8_t priority{3};       //!< traffic class 0..7 (3 = the default lossless class)
    uint32_t lane{0};          //!< QP lane, < RdmaQueuePair::MAX_LANES
    uint64_t remoteAddress{0}; //!< RETH virtual address (0: the message id, as before lanes)
    uint32_t remoteKey{0};     //!< RETH R_Key (memory region at the responder)
    bool hasImmediate{false};  //!< send immediate data
    uint32_t immediate{0};     //!< the immediate data
    uint64_t wrId{0};       //!< the poster's id of the request, given back in its own records (as
                            //!< verbs' wr_id): never sent, the responder does not see it
    bool toListener{false}; //!< its completion goes to the transport's RdmaMessageListener
                            //!< (MessageComplete), not to a callback (one given is not called)
};

/**
 * \ingroup training-net
 * \brief A reliable-connected queue pair of an RdmaNic toward one peer at one priority.
 *
 * One QP exists per (peer node, priority) and is reused by every message to that peer at
 * that priority. QP numbers are deterministic: the QP of node A for (peer B, priority p) has
 * number 1 + 8 B + p, so the sender knows the receiver's QP number without a handshake.
 *
 * Requester: a FIFO of RDMA WRITE messages, consecutive in PSN space (64-bit internally,
 * 24 bits on the wire); segmented to the MTU; go-back-N on NACK or retransmission timeout;
 * paced at the congestion-control rate. Responder: expected PSN, ACK coalescing, a single
 * NACK per gap, re-ACK of duplicates, CNP generation on CE marks.
 */
class RdmaQueuePair : public Object, private RdmaCongestionControl::Listener
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Callback invoked when a message completes.
    typedef Callback<void, const RdmaMessageRecord&> CompletionCallback;

    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /// Lanes per (peer, priority) (RoceWire::MAX_LANES).
    static constexpr uint32_t MAX_LANES = RoceWire::MAX_LANES;

    /**
     * \param peer node id of the peer \param priority 0..7 \param lane lane 0..MAX_LANES-1
     * \return the QP number of a node's QP toward (peer, priority, lane) (RoceWire::Qpn)
     */
    static uint32_t MakeQpn(uint32_t peer, uint8_t priority, uint32_t lane = 0)
    {
        return RoceWire::Qpn(peer, priority, lane);
    }

    /// \return the lane
    uint32_t GetLane() const
    {
        return m_lane;
    }

    /// \return index of the NIC port the QP sends on
    uint32_t GetPort() const
    {
        return m_port;
    }

    /// \return the local QP number
    uint32_t GetQpn() const
    {
        return m_qpn;
    }

    /// \return the peer's QP number (destination QP of our packets)
    uint32_t GetPeerQpn() const
    {
        return m_peerQpn;
    }

    /// \return peer node id
    uint32_t GetPeer() const
    {
        return m_peer;
    }

    /// \return priority
    uint8_t GetPriority() const
    {
        return m_priority;
    }

    /// \return UDP source port
    uint16_t GetUdpSourcePort() const
    {
        return m_sport;
    }

    /// \return current sending rate in bit/s (line rate without congestion control)
    double GetRate() const;

    /// \return the rate of the NIC port it sends on (bit/s): its congestion control's start
    double GetLineRate() const
    {
        return m_lineRate;
    }

    /// \return DCQCN or DCTCP alpha (0 for the other algorithms and without one)
    double GetAlpha();

    /// \return the congestion control of the QP (null without one)
    Ptr<RdmaCongestionControl> GetCongestionControl() const
    {
        return m_cc;
    }

    /// \return payload bytes sent again (go-back-N and timeouts)
    uint64_t GetRetransmittedBytes() const
    {
        return m_retxBytes;
    }

    /// \return messages posted but not yet completed
    uint64_t GetPendingMessages() const
    {
        return m_messages.size();
    }

    /// \return bytes of payload acknowledged so far
    uint64_t GetAckedBytes() const
    {
        return m_ackedBytes;
    }

    /// \return payload bytes received in order (responder side)
    uint64_t GetReceivedBytes() const
    {
        return m_rcvBytes;
    }

    /// \return data packets sent, retransmissions included
    uint64_t GetDataPacketsSent() const
    {
        return m_dataPackets;
    }

    /// \return number of retransmission timeouts
    uint64_t GetTimeouts() const
    {
        return m_timeouts;
    }

  private:
    friend class RdmaNic;

    /// One posted RDMA WRITE.
    struct Message
    {
        RdmaMessageRecord rec;   //!< the record
        uint64_t firstPsn;       //!< PSN of the first packet
        uint64_t packets;        //!< number of packets
        CompletionCallback done; //!< completion callback
    };

    void DoDispose() override;

    /// \return true if the requester has a packet to send now or later
    bool HasData() const
    {
        return m_sndNxt < m_psnEnd;
    }

    /// Locate m_curMsg for m_sndNxt (after a rewind).
    void SeekSendMessage();
    /// \param rate new congestion-control rate (bit/s)
    void RateChanged(double rate) override;
    /// \param bytes new congestion-control window (0 = none)
    void WindowChanged(uint64_t bytes) override;

    RdmaNic* m_nic{nullptr}; //!< owning NIC (raw: the NIC owns the QP)
    uint32_t m_qpn{0};
    uint32_t m_peerQpn{0};
    uint32_t m_peer{0};
    uint8_t m_priority{0};
    uint32_t m_lane{0};
    uint16_t m_sport{0};
    uint32_t m_port{0};   //!< index of the NIC port used (egress)
    double m_lineRate{0}; //!< bit/s of the egress port

    // requester
    RoceFifo<Message> m_messages; //!< unfinished messages in PSN order
    size_t m_curMsg{0};           //!< index of the message holding m_sndNxt
    uint64_t m_sndUna{0};         //!< oldest unacknowledged PSN
    uint64_t m_sndNxt{0};         //!< next PSN to send
    uint64_t m_sndMax{0};         //!< highest PSN sent + 1
    uint64_t m_psnEnd{0};         //!< PSN after the last posted packet
    Time m_nextSend;              //!< pacing: earliest time of the next packet
    Time m_lastSend;              //!< when the last data packet left (pacing's origin)
    double m_lastWire{0};         //!< wire bytes of the last data packet (0: none yet)
    uint64_t m_pacedLive{0};      //!< seq of the pacing heap entry that is live
    bool m_inPacedHeap{false};    //!< waiting in the pacing heap (not in the ready ring)
    bool m_inFamilyGroup{false};  //!< in its port's list (RdmaNic::Scheduler family)
    Time m_rtoDeadline;           //!< when the retransmission timer really expires
    bool m_rtoRunning{false};     //!< the retransmission timer runs (something unacknowledged)
    bool m_rtoQueued{false};      //!< has an entry in the NIC's timer heap (served, then checked)
    uint32_t m_retries{0};        //!< timeouts in a row without progress (back-off exponent)
    bool m_failed{false};         //!< error state: RetryLimit exceeded, messages flushed
    uint64_t m_retxBytes{0};
    uint64_t m_ackedBytes{0};
    uint64_t m_timeouts{0};
    uint64_t m_dataPackets{0};
    Ptr<RdmaCongestionControl> m_cc; //!< congestion control (null = none)
    bool m_queued{false};            //!< in the NIC's ready ring or pacing heap

    // responder
    uint64_t m_rcvNxt{0};     //!< expected PSN
    uint32_t m_unacked{0};    //!< packets accepted since the last ACK
    bool m_nackSent{false};   //!< NACK already sent for m_rcvNxt
    bool m_cnpSent{false};    //!< a CNP was sent at least once
    Time m_lastCnp;           //!< time of the last CNP sent
    bool m_ceSinceAck{false}; //!< a CE-marked packet arrived since the last ACK (BECN)
    /// telemetry of the last data packet, echoed in ACKs; held only once a packet carried it
    /// (HPCC's), as most QPs never see any and the header takes 216 bytes
    std::unique_ptr<RoceIntHeader> m_rcvTelemetry;
    uint64_t m_rcvBytes{0};
    uint64_t m_rcvMsgId{0};    //!< RETH virtual address of the message being received
    uint32_t m_rcvMsgKey{0};   //!< RETH R_Key of it
    uint64_t m_rcvMsgBytes{0}; //!< bytes of it received so far
    uint64_t m_rcvMsgLen{0};   //!< length announced in RETH
    Time m_rcvMsgStart;        //!< arrival time of its first packet
    uint32_t m_msn{0};         //!< message sequence number (completed messages)
};

} // namespace ns3

#endif // RDMA_QUEUE_PAIR_H
