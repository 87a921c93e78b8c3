/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Themis at run time: chunk-phases scheduled across the dimensions of a hierarchical system as
 * their real completions happen at packet level.
 */
#ifndef THEMIS_COLLECTIVE_H
#define THEMIS_COLLECTIVE_H

#include "collective-executor.h"
#include "collective.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/rdma-transport.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief One chunk-phase of a ThemisCollective in one group (trace PhaseEnd, GetPhases).
 *
 * Times are those at the group's leader (the member with coordinate 0 in the phase's dim):
 * ready = the last member reported that the chunk's previous phase is over (the phase then
 * joins the leader's ready queue of its dim), start = the leader took a slot for it and sent
 * the start messages, end = the leader's part of it is over (its slot is free again).
 */
struct ThemisPhaseRecord
{
    uint32_t chunk{0};        //!< chunk index
    uint32_t phase{0};        //!< phase of the chunk (0..2D-1 for all-reduce, 0..D-1 otherwise)
    uint32_t dim{0};          //!< topology dimension
    uint32_t leader{0};       //!< grid rank of the group's leader (GetNpu: its NPU; the group's id)
    bool reduceScatter{true}; //!< reduce-scatter (true) or all-gather phase
    uint64_t bytes{0};        //!< x: the phase's data per member before RS / after AG
    uint64_t sequence{0};     //!< arrival order in the leader's ready queue (FIFO key)
    Time ready{-1};           //!< joined the ready queue
    Time start{-1};           //!< took a slot
    Time end{-1};             //!< leader's part over
    uint32_t collective{0};   //!< id of the sub-collective that ran it (Collective::GetId)
};

/**
 * \ingroup training-net
 * \brief Themis (Rashidi et al., ISCA 2022) scheduled at run time on the collective executors.
 *
 * The collective (all-reduce, reduce-scatter or all-gather of S bytes on all NPUs of a
 * topology with D >= 1 dims, or on a sub-grid of them: a job's NPUs, whose dims
 * tn_topology_subgrid gives, ranks in ascending NPU order) is cut into C chunks; a chunk runs D
 * reduce-scatter phases (and/or D all-gather phases), one per dim, in an order that the Themis
 * balancer (tn_themis_balancer, fed with the topology's per-NPU bandwidth of every dim) chooses
 * when the collective is set up, or in the fixed order 0..D-1 (baseline). Each chunk-phase is one
 * sub-collective per group of its dim (the dim's ring or direct algorithm, planned by the core and
 * run by the executors like any collective).
 *
 * Which chunk-phase a group runs next is decided at run time: every group's leader (the
 * member whose coordinate in that dim is 0) keeps a ready queue and A slots for its dim.
 * A member that started (attribute Lookahead, default) or finished its part of a chunk's
 * phase sends a zero-byte READY message for the chunk's next phase to the leader of its group
 * in the next dim; once all P_d members are ready, the phase joins the queue. A member starts
 * a phase when its START arrived and the chunk's previous phase is over at its node. While a slot
 * is free the leader takes the first phase of its queue (FIFO: earliest ready, then chunk; SCF:
 * smallest x, then earliest, then chunk) and sends a START message to every other member. Members
 * start exactly the phases the leader tells them, so no two members of a group ever wait on each
 * other for different chunks (the deadlock of local decisions), and every started phase's inputs
 * come from started phases (down to phase 0), so it completes. The slot frees when the leader's own
 * part is over. Control messages are RDMA WRITEs with immediate (phase index and kind) whose R_Key
 * carries CONTROL_KEY_BIT; the executor ignores them.
 *
 * Locality: every handler runs in the context of the node it concerns (its NIC received a
 * message, its executor ended its part of a sub-collective), as the executor does.
 */
class ThemisCollective : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Queue policies.
    enum Policy
    {
        FIFO, //!< earliest ready first
        SCF   //!< smallest chunk-phase first
    };

    /** Completion callback. */
    typedef Callback<void, Ptr<ThemisCollective>> DoneCallback;

    /**
     * Phase trace signature (PhaseStart, PhaseEnd).
     * \param record the chunk-phase in its group
     */
    typedef void (*PhaseTracedCallback)(const ThemisPhaseRecord& record);
    /**
     * End trace signature.
     * \param collective the Themis collective
     */
    typedef void (*EndTracedCallback)(Ptr<const ThemisCollective> collective);
    /**
     * RankEnd trace signature.
     * \param collective the Themis collective \param rank the grid rank (GetNpu: its NPU)
     * whose every chunk is done
     */
    typedef void (*RankEndTracedCallback)(Ptr<const ThemisCollective> collective, uint32_t rank);

    /// R_Key bit of Themis control messages (the executor ignores them).
    static constexpr uint32_t CONTROL_KEY_BIT = CollectiveExecutor::CONTROL_KEY_BIT;

    ThemisCollective();
    ~ThemisCollective() override;

    /**
     * Plan the chunks: orders from the balancer, groups, phase sizes. Called once.
     * \param id unique id among the Themis collectives of the simulation (< 2^30)
     * \param topo topology (all its NPUs take part; it has dims); read during the call only
     * \param collective all-reduce, reduce-scatter or all-gather
     * \param bytes S (tn-schedule.h meaning)
     * \param chunks C >= 1
     * \param active A >= 1 slots per dim and group
     * \param policy queue policy
     * \param baseline fixed order 0..D-1 (RS; AG mirrors it) instead of the balancer's
     * \param error set when the request cannot be served
     * \return false with *error set
     */
    bool Setup(uint32_t id,
               const tn_topology* topo,
               tn_collective collective,
               uint64_t bytes,
               uint32_t chunks,
               uint32_t active,
               Policy policy,
               bool baseline,
               std::string* error);

    /**
     * Setup on a grid of dims of its own rather than a topology's: the NPUs of part of a
     * topology (tn_topology_subgrid), rank r = the grid's mixed-radix rank (dim 0 fastest).
     * \param id as above \param grid every dim's kind, size and per-NPU bandwidth (the balancer's
     * input) \param collective as above \param bytes as above \param chunks as above
     * \param active as above \param policy as above \param baseline as above
     * \param error set when the request cannot be served
     * \return false with *error set
     */
    bool Setup(uint32_t id,
               const std::vector<tn_dim_info>& grid,
               tn_collective collective,
               uint64_t bytes,
               uint32_t chunks,
               uint32_t active,
               Policy policy,
               bool baseline,
               std::string* error);

    /** \return phases per chunk (2D for all-reduce, D otherwise) */
    uint32_t GetPhasesPerChunk() const
    {
        return m_phases;
    }

    /** \return C */
    uint32_t GetChunks() const
    {
        return m_chunks;
    }

    /** \return D */
    uint32_t GetDims() const
    {
        return static_cast<uint32_t>(m_size.size());
    }

    /** \param chunk c \param phase k \return the dim of phase k of chunk c */
    uint32_t GetPhaseDim(uint32_t chunk, uint32_t phase) const
    {
        return m_phaseDim[chunk * m_phases + phase];
    }

    /** \param phase k \return true for a reduce-scatter phase */
    bool IsReduceScatterPhase(uint32_t phase) const;

    /** \return grid rank of the leader of every group of a dim (ascending) */
    std::vector<uint32_t> GetLeaders(uint32_t dim) const;

    /** \param leader group leader \param dim dim \return grid ranks of the group, by coordinate */
    std::vector<uint32_t> GetGroup(uint32_t leader, uint32_t dim) const;

    /** \param chunk c \param phase k \param leader group leader \return the phase's x */
    uint64_t GetPhaseBytes(uint32_t chunk, uint32_t phase, uint32_t leader) const;

    /**
     * Give the sub-collective of (chunk, phase, group); every one must be set before Start.
     * \param chunk c \param phase k \param leader group leader \param collective created on
     * the group's executors (group rank i = coordinate i), not started
     */
    void SetPhaseCollective(uint32_t chunk,
                            uint32_t phase,
                            uint32_t leader,
                            Ptr<Collective> collective);

    /**
     * Connect to the NPUs (after every SetPhaseCollective).
     * \param executors executor of every rank \param nodes topology node of every rank
     * \param npus topology NPU rank of every rank, ascending (empty: rank r is NPU r)
     */
    void Install(const std::vector<Ptr<CollectiveExecutor>>& executors,
                 const std::vector<uint32_t>& nodes,
                 const std::vector<uint32_t>& npus = {});

    /** Start rank's part (call in its node's context; CollectiveHelper::Start does). */
    void StartRank(uint32_t rank);

    /** \param cb called when the collective ends */
    void SetDoneCallback(DoneCallback cb)
    {
        m_done = cb;
    }

    /** \return id */
    uint32_t GetId() const
    {
        return m_id;
    }

    /** \return the collective */
    tn_collective GetCollective() const
    {
        return m_collective;
    }

    /** \return S */
    uint64_t GetBytes() const
    {
        return m_bytes;
    }

    /** \return number of NPUs */
    uint32_t GetRanks() const
    {
        return m_ranks;
    }

    /** \param rank rank in the grid \return its topology NPU rank (after Install) */
    uint32_t GetNpu(uint32_t rank) const
    {
        return m_npus[rank];
    }

    /** \param npu topology NPU rank \return its rank in the grid, UINT32_MAX if not in it */
    uint32_t GetRankOfNpu(uint32_t npu) const;

    /** \param rank rank in the grid \return its node */
    uint32_t GetNode(uint32_t rank) const
    {
        return m_nodes[rank];
    }

    /** \return the policy */
    Policy GetPolicy() const
    {
        return m_policy;
    }

    /** \return "themis-fifo", "themis-scf" or "fixed" */
    std::string GetSchedulerName() const;

    /**
     * The run-time schedulers by name, the one list every reader of a scheduler name
     * (CollectiveHelper, TrainingJob, scenario files, programs) checks against.
     * \return "themis-scf", "themis-fifo", "fixed"
     */
    static const std::vector<std::string>& GetSchedulerNames();

    /** \param name a name \return true for one of GetSchedulerNames() */
    static bool IsSchedulerName(const std::string& name);

    /** \return the scheduler names as "themis-scf, themis-fifo or fixed" (messages) */
    static std::string ListSchedulerNames();

    /**
     * \param name one of GetSchedulerNames()
     * \param policy its policy (SCF, FIFO; "fixed" runs the baseline, whose policy is FIFO)
     * \param baseline true for "fixed"
     * \return false for a name that is not a scheduler
     */
    static bool ParseSchedulerName(const std::string& name, Policy* policy, bool* baseline);

    /** \return true once every member finished its last phase of every chunk */
    bool IsComplete() const
    {
        return m_complete;
    }

    /** \return start (first member started) */
    Time GetStartTime() const
    {
        return m_start;
    }

    /** \return end - start (negative if not complete) */
    Time GetDuration() const
    {
        return IsComplete() ? m_end - m_start : Time(-1);
    }

    /** \return every (chunk, phase, group) record, by (chunk, phase), then group leader */
    const std::vector<ThemisPhaseRecord>& GetPhases() const
    {
        return m_records;
    }

    /** \return every sub-collective, in the order of GetPhases() */
    const std::vector<Ptr<Collective>>& GetPhaseCollectives() const
    {
        return m_subs;
    }

    /** \return control messages sent (READY and START) */
    uint64_t GetControlMessages() const
    {
        return m_controlMessages;
    }

    /** \return payload bytes delivered by all sub-collectives */
    uint64_t GetDeliveredBytes() const;

    /** \return bytes all sub-collectives planned */
    uint64_t GetPlannedBytes() const;

    /**
     * Every sub-collective executed as planned (Collective::Check) and every chunk-phase
     * started and ended once. \return "" when all hold, else what differs
     */
    std::string Check() const;

  protected:
    void DoDispose() override;

  private:
    /// Leader state of one group (touched only at the leader's node).
    struct Group
    {
        std::vector<uint32_t> queue; //!< records of ready phases not started
        uint32_t active{0};          //!< slots taken
        uint64_t arrivals{0};        //!< FIFO sequence
    };

    uint32_t RecordIndex(uint32_t chunk, uint32_t phase, uint32_t leader) const;
    uint32_t LeaderOf(uint32_t rank, uint32_t dim) const;
    void Ready(uint32_t rank, uint32_t chunk, uint32_t phase);
    void LeaderReady(uint32_t leader, uint32_t record);
    void TryStart(uint32_t leader, uint32_t dim);
    void StartMember(uint32_t rank, uint32_t record);
    void Launch(uint32_t rank, uint32_t record);
    void SendControl(uint32_t from, uint32_t to, uint32_t record, bool start);
    void Received(const RdmaMessageRecord& record);
    void PartEnd(Ptr<const Collective> collective, uint32_t rank);
    /// Disconnect from the NICs and executors (at the end, and in DoDispose).
    void Detach();

    uint32_t m_id{0};
    tn_collective m_collective{TN_COLL_ALL_REDUCE};
    uint64_t m_bytes{0};
    uint32_t m_chunks{0};
    uint32_t m_phases{0};
    uint32_t m_active{1};
    uint8_t m_controlPriority{8}; //!< attribute ControlPriority
    bool m_lookahead{true};       //!< attribute Lookahead
    static constexpr uint32_t NONE = UINT32_MAX;
    std::vector<uint32_t> m_npus;         //!< topology NPU rank of every rank, ascending
    std::vector<uint32_t> m_phasesDone;   //!< per (rank, chunk): phases over at rank
    std::vector<uint32_t> m_startPending; //!< per (rank, chunk): START waiting, or NONE
    uint32_t m_ranks{0};
    Policy m_policy{SCF};
    bool m_baseline{false};
    std::vector<uint32_t> m_size;        //!< P_d
    std::vector<uint32_t> m_stride;      //!< rank stride of dim d
    std::vector<uint32_t> m_groupsOf;    //!< groups per dim (N / P_d)
    std::vector<uint32_t> m_phaseDim;    //!< dim of (chunk, phase)
    std::vector<uint32_t> m_recordStart; //!< first record of (chunk, phase)
    std::vector<uint64_t> m_chunkBytes;
    std::vector<uint32_t> m_nodes; //!< node of every rank
    std::unordered_map<uint32_t, uint32_t> m_rankOfNode;
    std::vector<ThemisPhaseRecord> m_records;
    std::vector<Ptr<Collective>> m_subs;
    std::unordered_map<uint32_t, uint32_t> m_recordOfSub; //!< sub-collective id -> record
    std::vector<uint32_t> m_readyCount;                   //!< per record, at its leader
    std::vector<uint32_t> m_memberEnds;                   //!< per record: members whose part ended
    std::vector<Group> m_groups;                          //!< per (dim, leader): dim * N + leader
    std::vector<Ptr<CollectiveExecutor>> m_executors;
    std::vector<Ptr<RdmaTransport>> m_nics;
    uint64_t m_finished{0}; //!< (member, chunk) pairs whose last phase is over
    uint64_t m_controlMessages{0};
    bool m_started{false};
    bool m_complete{false};
    Time m_start;
    Time m_end{-1};
    DoneCallback m_done;
    TracedCallback<const ThemisPhaseRecord&> m_phaseStartTrace;
    TracedCallback<const ThemisPhaseRecord&> m_phaseEndTrace;
    TracedCallback<Ptr<const ThemisCollective>> m_endTrace;
    TracedCallback<Ptr<const ThemisCollective>, uint32_t> m_rankEndTrace;
    std::vector<uint32_t> m_rankChunksDone; //!< per rank: chunks whose last phase is over
};

} // namespace ns3

#endif // THEMIS_COLLECTIVE_H
