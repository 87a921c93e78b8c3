/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The RDMA transport of an NPU node in flow-level mode: messages are fluid flows.
 */
#ifndef FLOW_NIC_H
#define FLOW_NIC_H

#include "flow-network.h"
#include "rdma-transport.h"
#include "roce-event-buckets.h"

#include "ns3/event-impl.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief RdmaTransport of flow-level mode: each RDMA WRITE is a flow of a FlowNetwork.
 *
 * Queue pairs are as RdmaNic's: one per (peer, priority, lane), with the same QP number and
 * UDP source port (so the same ECMP path); their messages are sent one after the other. The
 * message at the head of a queue pair is a flow of its wire bytes (payload, plus
 * RoceWire::DATA_OVERHEAD per MTU-sized packet, RETH, immediate data) on the queue pair's
 * path. When its bits have crossed, the next message starts, and the destination's FlowNic
 * reports the message received after the path's latency plus the store and forward of one
 * packet at every hop after the first (as a packet pipeline ends); the sender completes it
 * when the acknowledgement would arrive (the reverse path's latency and one ACK frame per
 * hop). A message of 0 bytes is one packet that takes no share of any link.
 *
 * Not modelled: packets, queues, PFC, ECN, congestion control, losses and retransmissions
 * (a flow never fails; the MessageFailed trace exists and never fires).
 */
class FlowNic : public RdmaTransport, public FlowNetwork::Listener
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    FlowNic();
    ~FlowNic() override;

    /**
     * Join a fluid network (after SetLocalId): every FlowNic of the network finds this one
     * by its node id.
     * \param network the network
     */
    void Attach(Ptr<FlowNetwork> network);

    /** \return the network */
    Ptr<FlowNetwork> GetNetwork() const
    {
        return m_network;
    }

    void SetLocalId(uint32_t id) override;
    uint32_t GetLocalId() const override;
    uint64_t Post(const RdmaWriteRequest& request,
                  CompletionCallback done = CompletionCallback()) override;
    uint64_t GetLineRate() const override;

    uint32_t GetMtu() const override
    {
        return m_mtu;
    }

    uint64_t GetCompletedMessages() const override
    {
        return m_completed;
    }

    /** \return wire bytes of a message of `bytes` bytes (headers of every packet included) */
    uint64_t GetWireBytes(uint64_t bytes, bool immediate) const;

    /** \param token queue pair index */
    void FlowEnded(uint64_t token) override;

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    struct Message
    {
        RdmaMessageRecord rec;   //!< what the traces report
        CompletionCallback done; //!< sender's callback
        bool toListener{false};  //!< RdmaWriteRequest::toListener
    };

    /// A message posted and not sent yet: the record's fields its queue pair does not give,
    /// its callback by slot. 56 bytes where a Message takes 120: a hierarchical all-reduce
    /// posts every send of a phase at once, so the queues of a training job's overlapping
    /// collectives held about a million messages (968 MB of a 1,024-NPU ResNet-50 iteration's
    /// 2.24 GB peak).
    struct Queued
    {
        uint64_t id;            //!< message id
        uint64_t bytes;         //!< RdmaWriteRequest::bytes
        uint64_t remoteAddress; //!< its RETH address (the id when the request gave 0)
        uint64_t wrId;          //!< RdmaWriteRequest::wrId
        int64_t start;          //!< when it was posted (Time's raw value)
        uint32_t remoteKey;     //!< RdmaWriteRequest::remoteKey
        uint32_t immediate;     //!< RdmaWriteRequest::immediate
        uint32_t done;          //!< its callback's slot in m_callbacks (NO_CALLBACK: none,
                                //!< TO_LISTENER: RdmaWriteRequest::toListener)
        bool hasImmediate;      //!< RdmaWriteRequest::hasImmediate
    };

    static_assert(sizeof(Queued) <= 56, "a queued message stays within 56 bytes");

    static constexpr uint32_t NO_CALLBACK = UINT32_MAX;
    static constexpr uint32_t TO_LISTENER = UINT32_MAX - 1;

    /// A completion callback of queued messages, held once for all that share it (the
    /// collective executor passes one callback to every post).
    struct CallbackSlot
    {
        CompletionCallback callback;
        uint32_t uses{0}; //!< queued messages naming it (0: free)
    };

    struct QueuePair
    {
        uint32_t path;       //!< FlowNetwork path id
        uint32_t qpn;        //!< as RdmaNic's
        uint32_t dst;        //!< the peer node
        uint32_t lane;       //!< the lane toward it
        uint16_t sport;      //!< as RdmaNic's
        uint8_t priority;    //!< its traffic class
        bool sending{false}; //!< the head is a flow
        // the delays of the last packet size sent (a queue pair's messages are mostly of one
        // size): HeadSent sums its path's hops once per size, not once per message
        uint64_t delayKey{UINT64_MAX}; //!< packet bytes << 1 | no payload
        Time arrive;                   //!< last byte's delay after the flow ends
        Time ack;                      //!< and the ACK's
        // a vector and a head index rather than std::deque, which allocates about 600 bytes
        // even while empty: a NIC has a queue pair per peer and lane, hundreds of thousands
        // at 1024 NPUs, most of them idle
        std::vector<Queued> queue;                 //!< posted; queue[head] is sending or next
        uint32_t head{0};                          //!< first message not yet sent
        static constexpr size_t KEPT_CAPACITY = 8; //!< storage a drained queue keeps

        bool Empty() const
        {
            return head == queue.size();
        }

        /// Take the head out; the storage is reused once the queue drains or half of it is
        /// sent, and given back once a queue that grew past a few messages drains (a peer's
        /// burst, e.g. the sends of every all-reduce of a training step, would otherwise be
        /// held by every queue pair to the end)
        Queued PopFront()
        {
            const Queued m = queue[head++];
            if (head == queue.size())
            {
                if (queue.capacity() > KEPT_CAPACITY)
                {
                    std::vector<Queued>().swap(queue);
                }
                else
                {
                    queue.clear();
                }
                head = 0;
            }
            else if (head >= 64 && head * 2 >= queue.size())
            {
                queue.erase(queue.begin(), queue.begin() + head);
                head = 0;
            }
            return m;
        }
    };

    class TransitEvent : public RoceHintedEvent
    {
      public:
        FlowNic* owner{nullptr};  //!< the sending NIC, whose pool it returns to
        FlowNic* target{nullptr}; //!< delivery: the receiving NIC; ACK: nullptr
        uint32_t slot{0};         //!< the message's transit slot at owner

        void Prefetch(uint32_t stage) const override;

      protected:
        void Notify() override;
    };

    /// \return an event of the pool, with a reference for the scheduler
    TransitEvent* TakeEvent(FlowNic* target, uint32_t slot);

    QueuePair& GetQp(uint32_t dst, uint8_t priority, uint32_t lane);
    void StartHead(uint32_t qp);
    /// The head of a queue pair has left: deliver it, complete it, start the next.
    void HeadSent(uint32_t qp);
    /// A message of `sender` (its transit slot) reaches this NIC.
    void Deliver(FlowNic* sender, uint32_t slot);
    /// The ACK of the message in transit slot `slot` is back: complete it, free the slot.
    void Complete(uint32_t slot);

    /// Asks memory for what a post from this NIC reads first (its queue pairs' index, its
    /// first queue pairs and its free events' last): a delivery or completion handled here
    /// mostly posts the next send, to one of a few peers. Only a hint.
    void PrefetchPost() const;
    /// How many queue pairs PrefetchPost asks for (a ring2d NPU's peers)
    static constexpr size_t POST_PREFETCH_QPS = 4;

    Ptr<FlowNetwork> m_network;
    uint32_t m_localId{0};
    uint32_t m_context{0}; //!< ns-3 node id (event context)
    uint32_t m_mtu;
    std::vector<QueuePair> m_qps;
    std::vector<std::pair<uint32_t, uint32_t>> m_qpIndex; //!< (QP number, index), sorted
    // a sent message waits here for its delivery and ACK, so that the two events carry a
    // slot number instead of a copy of the record and callback each
    std::vector<Message> m_transit;
    std::vector<CallbackSlot> m_callbacks; //!< of queued messages, by slot
    std::vector<uint32_t> m_freeCallbacks; //!< slots of m_callbacks not used
    uint32_t m_lastCallback{NO_CALLBACK};  //!< the slot the last post named
    /// \return the slot of `done` for one more queued message (NO_CALLBACK if it is null)
    uint32_t TakeCallback(const CompletionCallback& done);
    /// \return the callback of a message leaving its queue, its slot freed if it was the last
    CompletionCallback ReleaseCallback(uint32_t slot);
    std::vector<uint32_t> m_freeTransit;     //!< free slots of m_transit
    std::vector<TransitEvent*> m_events;     //!< every event of the pool (one reference each)
    std::vector<TransitEvent*> m_freeEvents; //!< the ones not scheduled
    uint64_t m_nextMsgId{1};
    uint64_t m_completed{0};

    TracedCallback<const RdmaMessageRecord&> m_messageCompleteTrace;
    TracedCallback<const RdmaMessageRecord&> m_messageReceivedTrace;
    TracedCallback<const RdmaMessageRecord&> m_messageFailedTrace;
};

} // namespace ns3

#endif // FLOW_NIC_H
