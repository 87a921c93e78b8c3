/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One collective (a planned tn_schedule) running on the RDMA NICs of a group of NPUs.
 */
#ifndef COLLECTIVE_H
#define COLLECTIVE_H

#include "collective-window.h"

#include "ns3/assert.h"
#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-program.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-symmetry.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class Collective;

/**
 * \ingroup training-net
 * \brief What happened to one transfer of a collective (trace sources, Collective::GetRecord).
 *
 * Times: issue = the sender posted the RDMA WRITE (its dependencies were met at the sender);
 * firstByte / lastByte = the first / last packet arrived in order at the receiver's NIC;
 * ready = the data is usable at the receiver (lastByte plus the reduction time for a reduce).
 * Unset times are negative (Time(-1)).
 */
struct CollectiveTransferRecord
{
    uint32_t collective{0}; //!< Collective::GetId()
    uint32_t transfer{0};   //!< transfer id in the schedule
    uint32_t src{0};        //!< source rank of the collective's group
    uint32_t dst{0};        //!< destination rank of the group
    uint32_t srcNode{0};    //!< topology node of the source
    uint32_t dstNode{0};    //!< topology node of the destination
    uint64_t bytes{0};      //!< bytes planned
    uint32_t chunk{0};      //!< chunk index
    uint32_t step{0};       //!< logical step
    int32_t dim{-1};        //!< topology dimension, -1 if none
    bool reduce{false};     //!< reduce (true) or copy at the destination
    uint32_t lane{0};       //!< RDMA lane (QP) used
    Time issue;             //!< posted by the sender
    Time firstByte;         //!< first packet at the receiver
    Time lastByte;          //!< last packet at the receiver
    Time ready;             //!< data usable at the receiver
};

/**
 * \ingroup training-net
 * \brief A collective running on RDMA: the plan, its progress, its traces.
 *
 * A Collective owns a finalized tn_schedule over a group of R ranks (rank r of the group is
 * the NPU at topology node GetNode(r)). CollectiveHelper creates it and hands it to the
 * CollectiveExecutor of every NPU of the group; each executor acts only on events at its own
 * node (ns-3 distributed-simulation ready):
 *  - a transfer is posted by its source's executor when all its dependencies are met there;
 *  - a dependency on a transfer received by this node is met when that data is ready here
 *    (arrived, and reduced for a reduce: the executor's reduction-time hook);
 *  - a dependency on a transfer sent by this node is met when that send completed (ACKed);
 *  - any other dependency is met when a zero-byte notification (an RDMA WRITE with immediate,
 *    sent by the node where the data became ready) arrives here: the schedule asked for an
 *    ordering that only a message can carry, and the message is simulated;
 *  - a local op (tn_op_is_local, src == dst: swing-lat's reduce of a received copy) is
 *    "posted" and arrives at once, without a packet, and is ready after the executor's
 *    reduction time for a local reduce; its record has srcNode == dstNode.
 * Step order: a plan that claims to be contention-free per step (MultiTree, HDRM) means its
 * steps as time slots, so each queue pair (sender, receiver, lane) posts its transfers in
 * (step, id) order: a transfer whose dependencies are met waits until the earlier-step
 * transfers of its queue pair are posted. Otherwise a later-step transfer that happens to be
 * ready first would take the link and delay the earlier step (12% on a 4x4 torus). The cost
 * model applies the same rule (tn_schedule_step_ordered: only when every dependency goes to
 * an earlier step, so it cannot deadlock).
 * The collective ends when every transfer's data is ready at its receiver; the End trace and
 * the completion callback fire then. Executed transfers and delivered bytes (counted from
 * the NIC's receive records) are checked against the plan (Check()).
 *
 * Per-transfer state is a few words per transfer; the schedule is read-only while running.
 *
 * Generated collectives (SetupProgram): instead of a schedule, a rank-local program
 * generator (tn-program.h: ring, ring-bidir, direct, rhd, dbt, ring2d, hierarchical, swing,
 * swing-torus). Each
 * rank's state is its own program (its sends and receives, each with the ops of its own
 * program it waits for) and a few words per op; there is no global DAG and no global
 * transfer id. The rules are those above, rank by rank: a send is posted once the ops it
 * lists are done at its rank (receives ready, sends ACKed) and, when the transfer also
 * waits for data its receiver must have received first (rhd), once the receiver's
 * clear-to-send notification arrived (one zero-byte write with immediate per such
 * transfer, sent when those receives are ready). Data messages carry the transfer's match
 * number (its position among the transfers of its rank pair) as immediate, so the receiver
 * finds its op. Transfer records number the transfers by sender rank, then by the sender's
 * program order; a receive takes its transfer's number and issue time from its send when
 * the data arrives (the send is not acknowledged yet, so it is still in its window).
 *
 * Program windows (SetupProgram's window > 0): a rank's program is cut into streams,
 * stretches of at least `window` ops none of which waits for an op before it (a chunk, a
 * ring2d part, or just the steps of a ring: the order between those comes from the other
 * ranks). An open stream holds a window of `window` ops from its first op not done, renewed
 * once half of it is done (tn_program_rank_advance: only the new ops are generated, from the
 * generator's cursor, which a stream takes from the one before it when it opens), and is let
 * go when done; so memory follows the windows, not the program. Streams with a send that waits for
 * nothing open at the start (they may go at once); the others open when their predecessor has half
 * a window of ops left. A message for an op not in a window yet (its sender is ahead) is kept until
 * the op comes in. The run is the same as with whole programs as long as no op could start
 * while outside a window; an op that comes in later than that is counted (GetWindowHeld)
 * and makes Check() fail, with the advice to widen the window.
 */
class Collective : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** Completion callback: the collective that ended. */
    typedef Callback<void, Ptr<Collective>> DoneCallback;

    /**
     * Collective trace signature (Start, End).
     * \param collective the collective
     */
    typedef void (*CollectiveTracedCallback)(Ptr<const Collective> collective);
    /**
     * Transfer trace signature (TransferIssued, TransferReady).
     * \param record the transfer
     */
    typedef void (*TransferTracedCallback)(const CollectiveTransferRecord& record);

    Collective();
    ~Collective() override;

    /// A finalized plan, shared by the collectives that run it (CollectiveHelper's plan cache).
    typedef std::shared_ptr<const tn_schedule> SharedSchedule;

    /**
     * \param schedule a schedule; ownership taken
     * \return it, shared: destroyed with its last user
     */
    static SharedSchedule Share(tn_schedule* schedule);

    /**
     * Take a plan. Called once, by CollectiveHelper, before the collective starts.
     * \param id collective id (unique among the collectives of one simulation, < 2^31)
     * \param schedule finalized schedule (shared: other collectives may run the same plan)
     * \param nodes topology node of each rank of the group (size = schedule ranks)
     * \param lanes lane of each transfer (empty: lane 0 for all)
     * \param priority RDMA priority (traffic class) of the data
     */
    void Setup(uint32_t id,
               SharedSchedule schedule,
               std::vector<uint32_t> nodes,
               std::vector<uint8_t> lanes,
               uint8_t priority);

    /// A rank-local program generator, shared by the collectives that run it.
    typedef std::shared_ptr<const tn_program> SharedProgram;
    /// A generated plan's lane of each ordered rank pair (key src << 32 | dst; missing: lane
    /// 0), shared by the plan and every collective made from it
    typedef std::shared_ptr<const std::unordered_map<uint64_t, uint8_t>> SharedPairLanes;

    /**
     * \param program a program; ownership taken
     * \return it, shared: destroyed with its last user
     */
    static SharedProgram ShareProgram(tn_program* program);

    /**
     * Take a generated plan (instead of Setup): every rank's program is generated now.
     * \param id collective id (as Setup)
     * \param program the generator (its ranks = nodes.size())
     * \param nodes topology node of each rank of the group
     * \param pairLanes lane of the transfers of each ordered rank pair (key src << 32 | dst;
     * missing, or null: lane 0)
     * \param priority RDMA priority of the data
     * \param window ops per stream window (see class doc); 0: every rank's whole program
     */
    void SetupProgram(uint32_t id,
                      SharedProgram program,
                      std::vector<uint32_t> nodes,
                      SharedPairLanes pairLanes,
                      uint8_t priority,
                      uint32_t window = 0);

    /**
     * Simulate some ranks for all: on a symmetric flow network (FlowNetwork::Symmetric), whose
     * translations take every rank's program to the programs of its orbit
     * (tn_symmetry_check_program), the ranks on representative NPUs (below the symmetry's
     * period: NPU 0 by default) alone run; what any other rank does is what its
     * representative does, translated. Call before SetupProgram.
     * \param symmetry the translations (outlives the collective: the flow network's)
     * \param npuOfRank the NPU rank (topology rank) of each rank of the collective
     * \param lengthSlack bytes by which a receive may differ from the translated send that
     * stands for it (CollectiveService::SymmetricLengthSlack): such a message counts as planned
     */
    void SetSymmetry(const tn_symmetry* symmetry,
                     std::vector<uint32_t> npuOfRank,
                     uint64_t lengthSlack = 0);

    /** \param rank a rank \return whether it runs (all do, but in a symmetric collective) */
    bool IsSimulated(uint32_t rank) const
    {
        return !m_symmetry || m_simulated[rank];
    }

    /** \return true for a generated collective (SetupProgram) */
    bool IsGenerated() const
    {
        return m_program != nullptr;
    }

    /** \return the generator of a generated collective (null otherwise) */
    const tn_program* GetProgram() const
    {
        return m_program.get();
    }

    /** \return number of transfers (of all ranks, also those a symmetric run stands for) */
    uint64_t GetTransferCount() const
    {
        return m_symmetry ? m_transferCount * m_nodes.size() / m_simulatedCount : m_transferCount;
    }

    /**
     * \return the ops of its rank programs held now: whole programs, or the open windows;
     * 0 once its programs are freed (every local rank done) and for a scheduled collective
     */
    uint64_t GetHeldOps() const;

    /// Memory of one held op: the program's op, its OpState, and its share of the dep,
    /// join and match indexes (measured about 150 bytes at 4,096 NPUs; rounded up), for
    /// CollectiveService's memory guard.
    static constexpr uint64_t HELD_OP_BYTES = sizeof(tn_program_op) + 128;

    /** \return bytes of all transfers (the schedule's or the programs' sends) */
    uint64_t GetPlannedBytes() const
    {
        return m_plannedBytes;
    }

    /** \return the collective operation */
    tn_collective GetOperation() const;

    /** \return the root (broadcast, reduce; 0 otherwise) */
    uint32_t GetRoot() const;

    /** \return the id (the RETH R_Key of its messages) */
    uint32_t GetId() const
    {
        return m_id;
    }

    /** \return the plan */
    const tn_schedule* GetSchedule() const
    {
        return m_schedule.get();
    }

    /** \return number of ranks of the group */
    uint32_t GetRanks() const
    {
        return static_cast<uint32_t>(m_nodes.size());
    }

    /** \param rank rank of the group \return its topology node */
    uint32_t GetNode(uint32_t rank) const
    {
        return m_nodes[rank];
    }

    /** \return the RDMA priority of its data */
    uint8_t GetPriority() const
    {
        return m_priority;
    }

    /** \param transfer id \return its lane */
    uint32_t GetLane(uint32_t transfer) const
    {
        return m_lanes.empty() ? 0 : m_lanes[transfer];
    }

    /**
     * \param rank rank of the group
     * \param count set to the number of transfers
     * \return ids of the transfers rank sends that have no dependency (ascending)
     */
    const uint32_t* GetInitialTransfers(uint32_t rank, uint32_t* count) const
    {
        *count = m_initialStart[rank + 1] - m_initialStart[rank];
        return m_initialIds.data() + m_initialStart[rank];
    }

    /** \return the collective name ("all-reduce", ...) */
    std::string GetCollectiveName() const;
    /** \return the algorithm name of the plan */
    std::string GetAlgorithm() const;
    /** \return S, the collective's size (see tn-schedule.h) */
    uint64_t GetBytes() const;

    /** \param cb called when the collective ends */
    void SetDoneCallback(DoneCallback cb);

    /**
     * \param cb called with this collective's id when a generated collective frees its
     * programs (every local rank done), for CollectiveService's memory guard
     */
    void SetProgramsFreedCallback(Callback<void, uint32_t> cb)
    {
        m_programsFreed = cb;
    }

    /** \param ns the plan's cost-model estimate (reported beside the simulated time) */
    void SetEstimatedTime(Time ns)
    {
        m_estimate = ns;
    }

    /** \return the cost-model estimate (0 if not set) */
    Time GetEstimatedTime() const
    {
        return m_estimate;
    }

    /**
     * \param parallelism what the collective serves in a training job: "tp", "pp", "dp" or
     * "ep" (generated LLM programs, tn-llm.h); empty when not told
     */
    void SetParallelism(const std::string& parallelism)
    {
        m_parallelism = parallelism;
    }

    /** \return what the collective serves ("" when not told) */
    const std::string& GetParallelism() const
    {
        return m_parallelism;
    }

    /**
     * \param origin where a training job's collective comes from, for the messages of a run
     * that cannot finish ("iteration 0, layer conv1 wg", "trace.3.et node 12 (name)")
     */
    void SetOrigin(const std::string& origin)
    {
        m_origin = origin;
    }

    /** \return SetOrigin's ("" when not told) */
    const std::string& GetOrigin() const
    {
        return m_origin;
    }

    /// What was asked for and, with algorithm "auto", what the tuner (tn-tune.h) decided.
    struct Tuning
    {
        std::string requested; //!< the algorithm asked for ("auto", or the name given)
        Time choiceEstimate;   //!< the tuner's estimate of the choice (0: not tuned)
        std::string runnerUp;  //!< the second of the ranking ("" if none or not tuned)
        Time runnerUpEstimate; //!< its estimate
    };

    /**
     * \param plan kept alive as long as this collective (CollectiveService's plan, so that
     * a plan its cache dropped is taken back, not built again, while a collective of it runs)
     */
    void HoldPlan(std::shared_ptr<const void> plan)
    {
        m_plan = std::move(plan);
    }

    /** \param tuning what CollectiveService asked for and decided */
    void SetTuning(const Tuning& tuning)
    {
        m_tuning = tuning;
    }

    /** \return what was asked for and decided (requested "" if not set) */
    const Tuning& GetTuning() const
    {
        return m_tuning;
    }

    /// A communication library's protocol the collective runs with (NCCL's LL, LL128 or
    /// Simple, tn-nccl.h): the executor posts each transfer's wire bytes after its per-hop
    /// latency (tn_cost_protocol); unset: the data as it is, at once.
    struct Protocol
    {
        bool set{false};         //!< a library's protocol applies
        tn_cost_protocol cost{}; //!< wire lines and latencies
        std::string name;        //!< "ll", "ll128", "simple"
        uint32_t channels{0};    //!< the library's channels (the plan's chunks)
    };

    /** \param protocol the library's protocol (CollectiveService sets it from the plan) */
    void SetProtocol(const Protocol& protocol)
    {
        m_protocol = protocol;
    }

    /** \return the library's protocol (set false: none) */
    const Protocol& GetProtocol() const
    {
        return m_protocol;
    }

    /**
     * Distributed runs: which ranks of the group this process simulates (the others are on
     * other MPI ranks). From then on the collective counts only this process's part: it
     * ends (End trace, completion callback) when every transfer received here is ready, and
     * Check() compares with the transfers sent and received here. MergeRanks() then joins
     * the parts of all processes. Not called: every rank is local.
     * \param local one flag per rank of the group
     */
    void SetLocalRanks(const std::vector<bool>& local);

    /**
     * After the run, the whole collective from the parts of all processes (sums of their
     * counts, the earliest start and the latest end); IsComplete, GetDuration and Check then
     * answer for the whole collective.
     * \param start earliest start over the processes that started it
     * \param end latest end (negative when a part did not end)
     * \param issued transfers issued, all processes
     * \param ready transfers ready, all processes
     * \param delivered bytes delivered, all processes
     */
    void MergeRanks(Time start, Time end, uint64_t issued, uint64_t ready, uint64_t delivered);

    /**
     * \return true when this process's part is done: IsComplete(), or no NPU of the group is
     * simulated here
     */
    bool IsPartComplete() const
    {
        return IsComplete() || (m_expectedReady == 0 && m_expectedIssued == 0);
    }

    /** \return true once every transfer (received by this process's NPUs) is ready */
    bool IsComplete() const
    {
        return m_readyCount == m_expectedReady && m_started;
    }

    /** \return messages of this collective (data or notifications) that failed at a NIC */
    uint64_t GetFailedMessages() const
    {
        return m_failedMessages;
    }

    /** \return true once started */
    bool IsStarted() const
    {
        return m_started;
    }

    /** \return start time */
    Time GetStartTime() const
    {
        return m_start;
    }

    /** \return end time (negative if not complete) */
    Time GetEndTime() const
    {
        return m_end;
    }

    /** \return end - start (negative if not complete) */
    Time GetDuration() const
    {
        return IsComplete() ? m_end - m_start : Time(-1);
    }

    /** \return transfers whose data is ready at the receiver */
    uint64_t GetReadyTransfers() const
    {
        return m_readyCount;
    }

    /** \return transfers posted by their senders */
    uint64_t GetIssuedTransfers() const
    {
        return m_issuedCount;
    }

    /** \return payload bytes the receivers' NICs reported for this collective's transfers */
    uint64_t GetDeliveredBytes() const
    {
        return m_deliveredBytes;
    }

    /** \return zero-byte dependency notifications sent (see class doc) */
    uint64_t GetNotifications() const
    {
        return m_notifications;
    }

    /**
     * Executed against planned: every transfer issued once and ready once, delivered bytes =
     * planned bytes, every receive record's size = its transfer's length.
     * \return "" when all hold, else what differs
     */
    std::string Check() const;

    /** \param transfer id \return its record */
    CollectiveTransferRecord GetRecord(uint32_t transfer) const;

    // ---- used by CollectiveExecutor (each call happens at the node it concerns) ----

    /// A message of this collective failed at its sender's NIC (RdmaNic MessageFailed).
    void NotifyFailed(const RdmaMessageRecord& record, bool notification);
    /// Mark started at now (first executor to start).
    void NotifyStart();
    /**
     * A dependency of a transfer was met at its source.
     * \param transfer id \return true if it was the last one (the transfer may be posted)
     */
    bool MeetDependency(uint32_t transfer);
    /**
     * A transfer's dependencies are all met at its source: the transfers that may be posted
     * now, in order (this one, or none, or more in step order).
     * \param transfer id \param post appended to
     */
    void Release(uint32_t transfer, std::vector<uint32_t>* post);

    /** \return true if queue pairs post in step order (see class doc) */
    bool IsStepOrdered() const
    {
        return !m_queueOf.empty();
    }

    /** \param transfer posted now */
    void NotifyIssued(uint32_t transfer);
    /**
     * \param transfer arrived \param firstByte first packet \param bytes payload reported
     * \return false if this transfer had already arrived (a model error)
     */
    bool NotifyArrived(uint32_t transfer, Time firstByte, uint64_t bytes);
    /** \param transfer data usable now at the receiver */
    void NotifyReady(uint32_t transfer);

    /** A notification was sent. */
    void NotifyNotification()
    {
        ++m_notifications;
    }

    /**
     * One of rank's own events is done (a send completed, or a receive is ready).
     * \param rank rank \return true when rank has nothing left to do in this collective
     */
    bool FinishRankEvent(uint32_t rank);

    /** \param rank rank \return its sends and receives not yet done */
    uint32_t GetRankPending(uint32_t rank) const
    {
        return m_rankPending[rank];
    }

    // ---- generated collectives, used by CollectiveExecutor at the rank's node ----
    // Ops are named by their index in the rank's program; an op named here is in its window.

    /** \param rank rank \param op an op in its window \return the op */
    const tn_program_op& GetOp(uint32_t rank, uint32_t op) const;

    /**
     * An op's name with where it is held, for a message to carry back (a send's work request
     * id): its completion finds the op's stream without a search.
     * \param rank rank \param op an op in its window \return its cookie
     */
    uint64_t GetOpCookie(uint32_t rank, uint32_t op) const;

    /**
     * \param rank rank \param cookie GetOpCookie's of an op of rank \return the op; its
     * stream is the one looked at first next (a hint: a stale one costs a search)
     */
    uint32_t TakeOpCookie(uint32_t rank, uint64_t cookie) const;

    /** \param rank rank \param sends gets the sends that wait for nothing (in order) */
    void GetStartOps(uint32_t rank, std::vector<uint32_t>* sends);

    /** \param node topology node \return its rank in the group (UINT32_MAX if none) */
    uint32_t GetRankOfNode(uint32_t node) const;

    /**
     * \param rank rank \param send direction \param peer other rank \param match the
     * transfer's match number \return the op of rank's program, UINT32_MAX if it is not in
     * a window (not reached yet, gone, or none)
     */
    uint32_t FindOp(uint32_t rank, bool send, uint32_t peer, uint32_t match) const;

    /**
     * A message for an op not in rank's windows (FindOp gave none): kept until the op comes
     * in (the arrived list of CompleteOp), or reported by Check() if it never does.
     * \param rank rank \param clear a clear-to-send (else data) \param peer its sender
     * \param match its match number \param firstByte first byte (data) \param bytes payload
     */
    void DeferMessage(uint32_t rank,
                      bool clear,
                      uint32_t peer,
                      uint32_t match,
                      Time firstByte,
                      uint64_t bytes);

    /**
     * An op of rank is done (a send acknowledged, a receive ready): meet the dependency of
     * every op of rank that waits for it, and move its window on.
     * \param rank rank \param op its op
     * \param ready gets the ops that may go now: sends to post, receives whose
     * clear-to-send may go
     * \param arrived gets receives that came into a window with their data already here
     * (kept by DeferMessage; marked arrived, not yet ready)
     */
    void CompleteOp(uint32_t rank,
                    uint32_t op,
                    std::vector<uint32_t>* ready,
                    std::vector<uint32_t>* arrived);

    /**
     * Asks memory for what a message's handling at rank will read (a hint, changing nothing):
     * stage 0 the rank's state, stage 1 (once that is cached) the stream and window its
     * look-up reads first, stage 2 the op's state and program op when that window holds it.
     * \param rank rank \param lookup 0 a receive's look-up (FindOp), 1 a send's, 2 an op's
     * stream (a send's completion) \param key lookup 0 and 1: the peer's node and the match
     * (peerNode << 32 | match); 2: the op's cookie (GetOpCookie) \param stage the stage
     */
    void PrefetchRank(uint32_t rank, uint32_t lookup, uint64_t key, uint32_t stage) const;

    /** \param rank rank \param op a send whose clear-to-send came \return true if it may go */
    bool ClearOp(uint32_t rank, uint32_t op);
    /** \param rank rank \param op a send posted now */
    void NotifyOpIssued(uint32_t rank, uint32_t op);
    /** \return false if it had arrived already */
    bool NotifyOpArrived(uint32_t rank, uint32_t op, Time firstByte, uint64_t bytes);
    /** \param rank rank \param op a receive whose data is usable now */
    void NotifyOpReady(uint32_t rank, uint32_t op);

    /**
     * \param rank rank \param op a send, or a receive that has arrived \return its transfer's
     * number (records; a receive has its sender's number, looked up in the sender's window when
     * first asked for: ask while the send is held there, at the latest when the receive
     * arrives; UINT32_MAX once it is gone). A receive's record in ReadyTrace has it.
     */
    uint32_t GetOpTransfer(uint32_t rank, uint32_t op) const;

    /** \return ops that came into their window after they could have started (class doc) */
    uint64_t GetWindowHeld() const
    {
        return m_windowHeld;
    }

    /** \return the ops per stream window (0: whole programs) */
    uint32_t GetWindow() const
    {
        return m_window;
    }

    /** \param src sending rank \param dst receiving rank \return the pair's lane */
    uint32_t GetPairLane(uint32_t src, uint32_t dst) const;

    /**
     * \param rank rank \param op an op in its window \return the lane of its pair (sender,
     * receiver): GetPairLane's, looked up when the op came into its window
     */
    uint32_t GetOpLane(uint32_t rank, uint32_t op) const;

  protected:
    void DoDispose() override;

  private:
    using OpState = CollectiveOpState;
    using Join = CollectiveJoin;
    using Group = CollectiveGroup;
    using StreamWindow = CollectiveWindow;

    /// OpState::flags
    enum Flag : uint8_t
    {
        ISSUED = 1,       //!< a send was posted
        ARRIVED = 2,      //!< a receive's data arrived
        READY = 4,        //!< a receive's data is usable
        DONE = 8,         //!< acknowledged (send) or ready (receive)
        RELEASED = 16,    //!< its deps were met and it went to the executor
        NEEDS_CLEAR = 32, //!< a send that waits for its receiver's clear-to-send
        CLEARED = 64,     //!< that clear-to-send arrived
    };

    /// A stream of a rank's program (class doc).
    struct StreamRun
    {
        uint32_t begin{0};               //!< program index of the stream's first op
        uint32_t end{0};                 //!< and of the op after its last
        uint32_t undone{0};              //!< program index of its first op not done
        uint64_t sendsBefore{0};         //!< sends of the rank's program before w->rp.first
        bool startsOpen{false};          //!< it has a send that waits for nothing
        bool open{false};                //!< its window was filled (closed: no ops held)
        std::unique_ptr<StreamWindow> w; //!< its window while it is open and not done
    };

    /// A generated collective's state of one rank: what a message's look-up reads (FindOp,
    /// StreamOf) in its first cache line, the rest after it (88 bytes in any order straddled
    /// two lines of most ranks).
    struct alignas(64) RankRun
    {
        std::vector<StreamRun> streams;  //!< by program index
        std::vector<uint32_t> live;      //!< streams holding a window, ascending (FindOp's list)
        mutable uint32_t lastFound[2]{}; //!< by direction: the stream FindOp found last
                                         //!< (where it looks first)
        mutable uint32_t lastStream{0};  //!< the stream StreamOf found last
        uint32_t count{0};               //!< ops of its program
        uint32_t sends{0};               //!< sends of its program
        uint64_t receivedBytes{0};       //!< bytes of its receives
        uint64_t transferBase{0};        //!< number of its first send's transfer
        /// the windows of lastFound[0], lastFound[1] and lastStream as they were set: only
        /// prefetched (PrefetchRank), never read through (one may be gone)
        mutable const void* windowHint[3]{nullptr, nullptr, nullptr};
    };

    /// Names a message: direction (clear-to-send or data), sender, receiver, match.
    struct MessageKey
    {
        uint64_t pair;       //!< src << 32 | dst
        uint64_t matchClear; //!< match << 1 | clear

        bool operator==(const MessageKey& o) const
        {
            return pair == o.pair && matchClear == o.matchClear;
        }
    };

    /// Hash of a MessageKey.
    struct MessageKeyHash
    {
        size_t operator()(const MessageKey& k) const
        {
            return std::hash<uint64_t>()(k.pair * 0x9E3779B97F4A7C15ULL ^ k.matchClear);
        }
    };

    /// \return the key of the message from src to dst with this match
    static MessageKey Key(bool clear, uint32_t src, uint32_t dst, uint32_t match)
    {
        return {(static_cast<uint64_t>(src) << 32) | dst,
                (static_cast<uint64_t>(match) << 1) | (clear ? 1 : 0)};
    }

    /// A message kept by DeferMessage (data: with its send's number and issue time, taken
    /// then, since the send may leave its window before the receive comes into one).
    struct Deferred
    {
        int64_t firstNs;
        int64_t lastNs;
        uint64_t bytes;
        uint32_t transfer;
        int64_t sentNs;
    };

    /// A receive of rank from peer with match arrives: its send's number and issue time
    /// (UINT32_MAX and -1 if the send is not in this process's windows: another MPI rank)
    void TakeSend(uint32_t rank,
                  uint32_t peer,
                  uint32_t match,
                  uint32_t* transfer,
                  int64_t* sentNs) const;

    /// \return the stream holding program index op of rank
    StreamRun& StreamOf(uint32_t rank, uint32_t op)
    {
        return const_cast<StreamRun&>(static_cast<const Collective*>(this)->StreamOf(rank, op));
    }

    /// \return the stream holding program index op of rank
    const StreamRun& StreamOf(uint32_t rank, uint32_t op) const
    {
        // an op's events ask for it several times in a row (executor, records, completion):
        // the stream found last is checked here, inline (a dozen look-ups per transfer)
        const RankRun& run = m_ranks[rank];
        if (run.lastStream < run.streams.size())
        {
            const StreamRun& s = run.streams[run.lastStream];
            if (s.w && op - s.w->first < s.w->count) // in its window (FindStream asserts)
            {
                return s;
            }
        }
        return FindStream(rank, op);
    }

    /// StreamOf when the stream found last does not hold op
    const StreamRun& FindStream(uint32_t rank, uint32_t op) const;

    /// \return the state of op (in its window) of rank
    OpState& StateOf(uint32_t rank, uint32_t op)
    {
        StreamRun& s = StreamOf(rank, op);
        return s.w->ops[op - s.w->first];
    }

    /// A window could not be generated (out of memory): recorded for Check, the run stopped.
    void WindowFailed(uint32_t rank, uint32_t first, const tn_error& err);
    /// (Re)fill the window of a stream of rank from program index first.
    void FillWindow(uint32_t rank,
                    StreamRun& s,
                    uint32_t first,
                    std::vector<uint32_t>* ready,
                    std::vector<uint32_t>* arrived);
    /// FillWindow's joins, into the scratch: one per distinct dep list of the window's
    /// program rp (from program index first; its states in the scratch), each op's join, and
    /// the CSR both ways (join -> ops, op -> joins of its successors); deps before the window
    /// are done.
    void BuildJoins(const tn_rank_program& rp, uint32_t first);
    /// FillWindow's groups, into the scratch: the window's ops by (direction, peer), each
    /// group an array by match (aborts if the program's matches are not dense per group: an
    /// internal invariant).
    void BuildGroups(uint32_t rank, const tn_rank_program& rp, uint32_t first);
    /// FillWindow's ops new to the window (fresh: their slots): the messages kept for them
    /// taken (an arrived receive into arrived), and, when refilling (ready not null), the ones
    /// that may go into ready.
    void TakeFresh(uint32_t rank,
                   StreamRun& s,
                   uint32_t first,
                   const std::vector<uint32_t>& fresh,
                   std::vector<uint32_t>* ready,
                   std::vector<uint32_t>* arrived);
    /// Every local rank is done: free the programs (a kept collective keeps only its counts).
    void FreePrograms();
    /// An op of the window is handed to the executor if its deps are met.
    bool TryRelease(StreamRun& s, uint32_t slot);

    /// Gives a stream its window and lists it among the rank's live streams.
    static void OpenWindow(RankRun& run, StreamRun& s);
    /// Drops a stream's window and its place among the live streams.
    static void CloseWindow(RankRun& run, StreamRun& s);

    /// Record of a generated transfer, from its receiver (rank, its receive op).
    CollectiveTransferRecord GetOpRecord(uint32_t dst, uint32_t op) const;
    /// Record of a generated transfer, from its sender (rank, its send op): receiver times unset.
    CollectiveTransferRecord GetSendOpRecord(uint32_t src, uint32_t op) const;

    /// Build the step-order queues when the plan asks for them.
    void SetupStepOrder();

    /// Per-transfer state, compact (millions of transfers at 1024 NPUs).
    struct TransferState
    {
        uint32_t pendingDeps{0};
        uint8_t issued{0};
        uint8_t arrived{0};
        uint8_t ready{0};
        int64_t issueNs{-1};
        int64_t firstNs{-1};
        int64_t lastNs{-1};
        int64_t readyNs{-1};
    };

    uint32_t m_id{0};
    SharedSchedule m_schedule;
    SharedProgram m_program;
    std::vector<RankRun> m_ranks; //!< generated: per rank
    uint32_t m_window{0};         //!< generated: ops per window
    std::unordered_map<MessageKey, Deferred, MessageKeyHash> m_deferred; //!< kept messages
    std::unordered_map<MessageKey, bool, MessageKeyHash> m_clearSends;   //!< sends that wait
    uint64_t m_windowHeld{0};
    uint32_t m_ranksBusy{
        0}; //!< generated: local ranks with ops not done (0: programs freed) //!< GetWindowHeld
    std::vector<uint32_t> m_rankOfNode; //!< generated: node -> rank

    /// FillWindow's and BuildJoins' work lists, kept between renewals (a renewal per half
    /// window and stream: their mallocs were a tenth of a renewal)
    /// and the arrays of the window being built, packed into its block at the end
    struct WindowScratch
    {
        CollectiveWindowArrays arrays;
        std::vector<uint32_t> fresh;
        std::vector<uint32_t> listOf;
        std::vector<uint32_t> joinPending;
        std::vector<uint32_t> joinOpStart;
        std::vector<uint32_t> succStart;
        std::vector<uint32_t> fill;
    } m_scratch;

    SharedPairLanes m_pairLanes; //!< generated: (src, dst) -> lane (null: lane 0 for all)
    const tn_symmetry* m_symmetry{nullptr}; //!< SetSymmetry: one rank runs for all
    std::vector<bool> m_simulated;          //!< per rank: on a representative NPU
    uint32_t m_simulatedCount{0};           //!< ranks that run (SetSymmetry)
    /// SetSymmetry: bytes by which a receive's length may differ from its translated send's
    uint64_t m_lengthSlack{0};
    /** \return whether a message of `bytes` is the planned op of `planned` bytes */
    bool IsPlannedLength(uint64_t bytes, uint64_t planned) const;
    std::vector<uint32_t> m_npuOfRank; //!< SetSymmetry
    std::vector<uint32_t> m_rankOfNpu; //!< SetSymmetry
    uint64_t m_transferCount{0};
    uint64_t m_plannedBytes{0};
    std::vector<uint32_t> m_nodes;
    std::vector<uint8_t> m_lanes;
    uint8_t m_priority{3};
    std::vector<TransferState> m_state;
    std::vector<uint32_t> m_rankPending;  //!< per rank: sends + receives not yet done
    std::vector<uint32_t> m_initialStart; //!< CSR by source rank into m_initialIds
    std::vector<uint32_t> m_initialIds;   //!< transfers without dependencies
    std::vector<uint32_t> m_queueOf;      //!< step order: queue of each transfer
    std::vector<uint32_t> m_queueStart;   //!< step order: CSR into m_queueIds
    std::vector<uint32_t> m_queueIds;     //!< step order: transfers by (step, id) per queue
    std::vector<uint32_t> m_queueNext;    //!< step order: next position to post per queue
    uint64_t m_readyCount{0};
    uint64_t m_issuedCount{0};
    uint64_t m_expectedReady{0};  //!< transfers received by local ranks (all, in one process)
    uint64_t m_expectedIssued{0}; //!< transfers sent by local ranks
    uint64_t m_expectedBytes{0};  //!< bytes received by local ranks
    uint64_t m_deliveredBytes{0};
    uint64_t m_notifications{0};
    uint64_t m_sizeMismatches{0};
    uint64_t m_duplicates{0};
    uint64_t m_failedMessages{0}; //!< data or notification messages the NICs failed
    std::string m_firstFailure;   //!< what the first of them was
    std::string m_windowFailure;  //!< why a window could not be generated (empty: none)
    bool m_started{false};
    Time m_start;
    Time m_end{-1};
    std::string m_parallelism; //!< what it serves in a training job ("" : not told)
    std::string m_origin;      //!< SetOrigin
    Time m_estimate;
    Tuning m_tuning;
    std::shared_ptr<const void> m_plan; //!< HoldPlan
    Protocol m_protocol;
    DoneCallback m_done;
    Callback<void, uint32_t> m_programsFreed; //!< SetProgramsFreedCallback
    TracedCallback<Ptr<const Collective>> m_startTrace;
    TracedCallback<Ptr<const Collective>> m_endTrace;
    TracedCallback<const CollectiveTransferRecord&> m_issuedTrace;
    TracedCallback<const CollectiveTransferRecord&> m_readyTrace;
};

} // namespace ns3

#endif // COLLECTIVE_H
