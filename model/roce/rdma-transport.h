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

  protected:
    void DoDispose() override;

  private:
    Ptr<RoceFabric> m_fabric; //!< the fabric (a cycle through the nodes: cut in DoDispose)
};

} // namespace ns3

#endif // RDMA_TRANSPORT_H
