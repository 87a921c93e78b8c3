/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The collective executor of one NPU: runs its part of every Collective on its RDMA NIC.
 */
#ifndef COLLECTIVE_EXECUTOR_H
#define COLLECTIVE_EXECUTOR_H

#include "collective.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

class CollectiveService;

/**
 * \ingroup training-net
 * \brief Executes this NPU's share of collectives (aggregated to the NPU's node, beside its
 * RdmaNic).
 *
 * Locality: the executor reacts only to events at its node (its sends completing, its NIC
 * receiving, its reductions ending) and posts only its own node's transfers; see
 * Collective for the dependency rules. It talks to the node's RdmaTransport only, so it runs
 * the same on packets (RdmaNic) and on fluid flows (FlowNic). Every data transfer is an RDMA WRITE
 * with immediate: the RETH carries the collective's id (R_Key) and the destination offset (virtual
 * address), the immediate data the transfer id, so the receiver knows what arrived when its
 * last byte arrives, not when the sender hears the ACK. Dependency notifications are
 * zero-byte writes with immediate whose R_Key has the top bit set.
 *
 * Reduction hook: SetReductionTimeCallback gives the time a reduce of n bytes takes at this
 * NPU after its data arrived (default: none, data is ready on arrival). A local op of the
 * schedule (tn_op_is_local: the rank copies or reduces within its own buffer) sends nothing:
 * it is issued when its deps are met and ready then, a local reduce after the reduction time;
 * it fires neither Sent nor Received. The NPU endpoint
 * model (NpuEndpoint) fills it and follows this node's traffic: its sends and receives as
 * the bytes listener (SetBytesListener), its parts through the trace sources PartStart and
 * PartEnd.
 */
/**
 * What this node's NPU counts of each transfer it sends or receives (its memory traffic), told
 * before the Sent and Received traces and without their cost per call (a reference to the
 * collective taken and a list of callbacks walked per transfer and direction, about 250
 * instructions).
 */
class TransferBytesListener
{
  public:
    virtual ~TransferBytesListener() = default;
    /** \param bytes the transfer's bytes \param reduce reduced at its destination */
    virtual void TransferSent(uint64_t bytes, bool reduce) = 0;
    /** \param bytes the transfer's bytes \param reduce reduced at this node */
    virtual void TransferReceived(uint64_t bytes, bool reduce) = 0;
};

class CollectiveExecutor : public Object, public RdmaMessageListener
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** Reduction time of `bytes` bytes at this NPU. */
    typedef Callback<Time, uint64_t> ReductionTimeCallback;

    /**
     * Node-local transfer trace signature (Sent, Received): what this NPU's memory sees.
     * \param collective the collective \param transfer transfer id
     * \param bytes bytes \param reduce true for a reduce at the destination
     */
    typedef void (*TransferTracedCallback)(Ptr<const Collective> collective,
                                           uint32_t transfer,
                                           uint64_t bytes,
                                           bool reduce);
    /**
     * Node-local collective trace signature (PartStart, PartEnd): this NPU's part of a
     * collective starts (it starts the collective) or is over (its last send completed and
     * its last receive is ready).
     * \param collective the collective \param rank this NPU's rank in it
     */
    typedef void (*PartTracedCallback)(Ptr<const Collective> collective, uint32_t rank);

    /// Bit of the R_Key that marks a dependency notification.
    static constexpr uint32_t NOTIFY_KEY_BIT = 0x80000000u;
    /// Bit of the R_Key of messages of other protocols on the node (Themis control): ignored.
    static constexpr uint32_t CONTROL_KEY_BIT = 0x40000000u;
    /// RDMA lane of dependency notifications (data lanes are below it).
    static constexpr uint32_t NOTIFY_LANE = RdmaQueuePair::MAX_LANES - 1;

    CollectiveExecutor();
    ~CollectiveExecutor() override;

    /** \param cb reduction time hook (null: reductions take no time) */
    void SetReductionTimeCallback(ReductionTimeCallback cb);

    /** \param listener told of every transfer sent and received (null: none) */
    void SetBytesListener(TransferBytesListener* listener);

    /**
     * Take part in a collective as `rank` of its group (before it starts).
     * \param collective the collective \param rank this NPU's rank in its group
     */
    void Add(Ptr<Collective> collective, uint32_t rank);

    /**
     * Start this node's part: post its transfers without dependencies, and those whose
     * dependencies were met by data that arrived before (a node receives, and reduces, what
     * early peers send, but sends nothing of a collective it has not started, as an NPU whose
     * collective kernel is not launched yet). Call at the start time, in this node's context
     * (CollectiveService::Start does, or the node's own training loop).
     * \param collective a collective added before
     */
    void Start(Ptr<Collective> collective);

    /** \return the node's RDMA transport (RdmaNic or FlowNic, found on the node) */
    Ptr<RdmaTransport> GetNic() const
    {
        return m_nic;
    }

    /**
     * \param service the collective service of this node's fabric (CollectiveService::Setup
     * sets it)
     */
    void SetService(Ptr<CollectiveService> service);
    /** \return the collective service of this node's fabric (null before it is set up) */
    Ptr<CollectiveService> GetService() const;

    /** \return transfers this executor posted to its NIC (local ops are not posted) */
    uint64_t GetPosted() const
    {
        return m_posted;
    }

    /** \return collectives this node still takes part in (finished ones are dropped) */
    uint32_t GetActiveCollectives() const
    {
        return static_cast<uint32_t>(m_entries.size());
    }

    /** \return messages received that named no transfer of a collective of this executor */
    uint64_t GetUnknownMessages() const
    {
        return m_unknown;
    }

    /**
     * A source of collectives named by id (a training job): in a distributed run, asked in
     * the order added for a collective this executor does not know when a message names it;
     * returns true when it created the collective (and so added it here).
     */
    typedef Callback<bool, uint32_t> CollectiveSourceCallback;

    /** \param source asked for collectives named by messages before they are added here */
    void AddCollectiveSource(CollectiveSourceCallback source);

    /**
     * \return messages held for collectives not added here yet, which no source created: in
     * a distributed run a sender simulated by another MPI rank may reach a collective before
     * this rank creates it (in one process a collective is added to every member when it is
     * created, and such a message is unknown). Add() takes them in, in the order they came,
     * at the time it is called. Not zero after a run: messages of collectives never created.
     */
    uint64_t GetHeldMessages() const
    {
        return m_heldCount;
    }

    /** \param record a message to this node (RdmaMessageListener: the NIC's delivery) */
    void MessageReceived(const RdmaMessageRecord& record) override;
    /** \param record a message this node posted, acknowledged or failed (RdmaMessageListener:
     * every post of the executor asks for it, RdmaWriteRequest::toListener) */
    void MessageComplete(const RdmaMessageRecord& record) override;
    /**
     * RdmaMessageListener: a message of the collective of the last message will be handled
     * soon: its entry and rank's state (stage 0), its stream and window (stage 1), then its
     * op (stage 2) are asked for (Collective::PrefetchRank; a completion's stream is the one
     * its cookie names).
     */
    void Prefetch(const RdmaMessageRecord& record, bool received, uint32_t stage) const override;

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    Ptr<CollectiveService> m_service; //!< the fabric's service (cycle broken by DoDispose)

    /// A collective this node takes part in.
    struct Entry
    {
        Ptr<Collective> collective;    //!< the collective
        uint32_t rank;                 //!< this node's rank in it
        bool started{false};           //!< this node called Start
        bool ended{false};             //!< its part ended before Start (PartDone)
        std::vector<uint32_t> waiting; //!< transfers ready before Start, in order
    };

    void Received(const RdmaMessageRecord& record);
    void DataReady(Entry* entry, uint32_t transfer);
    void PartDone(Entry* entry);
    void SendDone(const RdmaMessageRecord& record);
    /// A message of this node failed at the NIC (retry limit, flush).
    void Failed(const RdmaMessageRecord& record);
    void Release(Entry* entry, uint32_t transfer);
    void Post(Entry* entry, uint32_t transfer);
    /// Post a transfer to the NIC now (after a library protocol's latency, if any).
    void PostWire(Ptr<Collective> collective, uint32_t transfer);
    /// A local op (tn_op_is_local) of this rank: done here, without the NIC.
    void PostLocal(Entry* entry, uint32_t transfer);
    // generated collectives (Collective::SetupProgram): ops of this rank's program
    void StartProgram(Entry* entry);
    void ReceivedProgram(Entry* entry, const RdmaMessageRecord& record);
    void SendDoneProgram(Entry* entry, const RdmaMessageRecord& record);
    void DataReadyOp(Entry* entry, uint32_t op);
    /// A receive's data is here: trace it, then ready after the reduction time.
    void Arrived(Entry* entry, uint32_t op);
    /// An op of this rank is done: meet the deps of the ops waiting for it.
    void OpDone(Entry* entry, uint32_t op);
    /// A send's deps are all met: post it (or keep it until Start).
    void ReleaseOp(Entry* entry, uint32_t op);
    void PostOp(Entry* entry, uint32_t op);
    /// A receive's own deps are met: tell its sender (clear to send).
    void SendClear(Entry* entry, uint32_t op);
    Entry* Find(uint32_t id);
    /// Find, else ask the collective sources to create it.
    Entry* FindOrCreate(uint32_t id);
    /// Keep a message of a collective not added yet.
    void Hold(const RdmaMessageRecord& record, uint32_t id);
    /// Take in the messages held for a collective added since.
    void TakeHeld(uint32_t id);

    Ptr<RdmaTransport> m_nic;
    ReductionTimeCallback m_reductionTime;
    TransferBytesListener* m_bytesListener{nullptr};
    std::unordered_map<uint32_t, Entry> m_entries; //!< by collective id
    Entry* m_lastEntry{nullptr}; //!< Find's last answer (map nodes do not move; reset on erase)
    uint32_t m_lastId{0};        //!< its collective's id, beside it: a message's Find reads no
                                 //!< other cache line when it hits
    uint32_t m_lastRank{0};      //!< and its rank and collective, for Prefetch (which reads no
    const Collective* m_lastCollective{nullptr}; //!< entry: the entry is a miss of its own)
    uint64_t m_posted{0};
    std::vector<uint32_t> m_ready;   //!< scratch of OpDone: ops whose last dep was met
    std::vector<uint32_t> m_arrived; //!< scratch of OpDone: receives come in arrived
    uint64_t m_unknown{0};
    std::vector<CollectiveSourceCallback> m_sources;
    /// messages of collectives not added yet, by id, in the order they came
    std::unordered_map<uint32_t, std::vector<RdmaMessageRecord>> m_held;
    uint64_t m_heldCount{0};
    uint64_t m_maxHeld{0};               //!< attribute MaxHeldMessages
    std::vector<uint32_t> m_releasable;  //!< scratch of Release
    std::vector<uint32_t> m_notifyRanks; //!< scratch of DataReady
    TracedCallback<Ptr<const Collective>, uint32_t, uint64_t, bool> m_sentTrace;
    TracedCallback<Ptr<const Collective>, uint32_t, uint64_t, bool> m_receivedTrace;
    TracedCallback<Ptr<const Collective>, uint32_t> m_partStartTrace;
    TracedCallback<Ptr<const Collective>, uint32_t> m_partEndTrace;
};

} // namespace ns3

#endif // COLLECTIVE_EXECUTOR_H
