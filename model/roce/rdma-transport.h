/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What an NPU node's collectives, Themis and training jobs see of its network: RDMA WRITEs
 * posted and their completion and receive records.
 */
#ifndef RDMA_TRANSPORT_H
#define RDMA_TRANSPORT_H

#include "rdma-queue-pair.h"
#include "roce-fabric.h"

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief The RDMA transport of an NPU node: the interface every layer above the fabric
 * (CollectiveExecutor, ThemisCollective, NpuEndpoint) uses, so that it runs unchanged on
 * packets (RdmaNic) and on fluid flows (FlowNic).
 *
 * Contract of an implementation:
 *  - Post() queues an RDMA WRITE on the queue pair toward (dst, priority, lane); the messages
 *    of one queue pair leave in posting order, each after the previous one's last byte.
 *  - Trace sources of the implementation's TypeId, with these names and the
 *    MessageTracedCallback signature: "MessageReceived" when a message's last byte has
 *    arrived at its destination (fired by the destination's transport, record.end = that
 *    time), "MessageComplete" when the sender knows it was delivered (record.end = then;
 *    the completion callback is called at the same time), "MessageFailed" when it ended with
 *    an error status.
 *  - The record carries the work request's fields (remoteKey, remoteAddress, immediate,
 *    lane), so the receiver knows what arrived.
 */
/**
 * \ingroup training-net
 * \brief The node's RDMA user that hears of every message delivered to the node before the
 * MessageReceived trace, and without its cost per message (a trace walks a list of callbacks,
 * each a heap object holding a std::function: three cache misses a message at 16,384 NPUs).
 * One per transport: the collective executor.
 */
class RdmaMessageListener
{
  public:
    virtual ~RdmaMessageListener() = default;
    /** \param record a message to this node whose last byte arrived (as MessageReceived) */
    virtual void MessageReceived(const RdmaMessageRecord& record) = 0;

    /**
     * A message this node posted with RdmaWriteRequest::toListener is acknowledged, or failed
     * (its status), as a completion callback would hear it; without a callback's cost per
     * message (a heap object and a std::function).
     * \param record the message
     */
    virtual void MessageComplete(const RdmaMessageRecord& record)
    {
    }

    /**
     * A message of this node will be handled soon: ask memory for the state its handling
     * reads, in stages (0, 1, then 2: each may read what the one before asked for). Only a
     * hint: it must not change anything the run reads.
     * \param record the message (its delivery at this node when received, else the
     * completion of one this node sent) \param received delivery or completion
     * \param stage the stage
     */
    virtual void Prefetch(const RdmaMessageRecord& record, bool received, uint32_t stage) const
    {
    }
};

class RdmaTransport : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Completion callback of a posted message.
    typedef RdmaQueuePair::CompletionCallback CompletionCallback;

    /**
     * Message trace signature (MessageComplete, MessageReceived, MessageFailed).
     * \param record the message
     */
    typedef void (*MessageTracedCallback)(const RdmaMessageRecord& record);

    RdmaTransport();
    ~RdmaTransport() override;

    /** \param id topology node id of this transport (addresses, QP numbers) */
    virtual void SetLocalId(uint32_t id) = 0;
    /** \return topology node id of this transport */
    virtual uint32_t GetLocalId() const = 0;

    /**
     * Post an RDMA WRITE with every field of a work request.
     * \param request the work request
     * \param done called when the sender learns the message was delivered (may be null)
     * \return the message id (unique on this transport, from 1)
     */
    virtual uint64_t Post(const RdmaWriteRequest& request,
                          CompletionCallback done = CompletionCallback()) = 0;

    /**
     * Post an RDMA WRITE of lane 0 without RETH fields or immediate data.
     * \param dst destination node id (topology id)
     * \param bytes message size (any 64-bit value; 0 sends one empty packet)
     * \param priority traffic class 0..7
     * \param done called when the message is delivered (may be null)
     * \return the message id
     */
    uint64_t PostWrite(uint32_t dst,
                       uint64_t bytes,
                       uint8_t priority,
                       CompletionCallback done = CompletionCallback());

    /** \return the summed line rate of the node's network ports, bit/s */
    virtual uint64_t GetLineRate() const = 0;

    /** \return the path MTU (payload bytes per packet) */
    virtual uint32_t GetMtu() const = 0;

    /** \return messages completed (sender side) */
    virtual uint64_t GetCompletedMessages() const = 0;

    /**
     * \return when a data packet last arrived, -1 ns when none has or the transport does not
     * tell (a flow-level NIC: its flows arrive whole, the flow network's links tell instead).
     * A stall watch reads it: in a distributed run the receiver's rank may hold no port the
     * data crosses.
     */
    virtual Time GetLastDataRxTime() const
    {
        return NanoSeconds(-1);
    }

    /** \param fabric the fabric this transport sends over (RoceHelper, FlowNic::Attach) */
    void SetFabric(Ptr<RoceFabric> fabric)
    {
        m_fabric = fabric;
    }

    /** \return the fabric this transport sends over; null when none was set (a NIC attached
     * by hand to its switch) */
    Ptr<RoceFabric> GetFabric() const
    {
        return m_fabric;
    }

    /** \param listener hears of every message received, before MessageReceived (null: none) */
    void SetMessageListener(RdmaMessageListener* listener)
    {
        m_messageListener = listener;
    }

    /** \return the listener (null: none) */
    RdmaMessageListener* GetMessageListener() const
    {
        return m_messageListener;
    }

  protected:
    void DoDispose() override;

    /// Tells the listener, if any, of a received message: the NICs call it before their trace.
    void NotifyListener(const RdmaMessageRecord& record)
    {
        if (m_messageListener)
        {
            m_messageListener->MessageReceived(record);
        }
    }

    /// Tells the listener, if any, of the completion of a message posted toListener.
    void NotifyListenerComplete(const RdmaMessageRecord& record)
    {
        if (m_messageListener)
        {
            m_messageListener->MessageComplete(record);
        }
    }

  private:
    RdmaMessageListener* m_messageListener{nullptr}; //!< near the object's start: a delivery
                                                     //!< reads it in the line it is hinted by
    Ptr<RoceFabric> m_fabric; //!< the fabric (a cycle through the nodes: cut in DoDispose)
};

} // namespace ns3

#endif // RDMA_TRANSPORT_H
