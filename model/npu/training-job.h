/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A training job: an ASTRA-sim workload run for some iterations on the NPUs of a fabric.
 */
#ifndef TRAINING_JOB_H
#define TRAINING_JOB_H

#include "collective.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/tn-chakra.h"
#include "ns3/tn-workload.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

class ChakraRunner;
class CollectiveService;
class NpuEndpoint;
class ThemisCollective;

/**
 * \ingroup training-net
 * \brief What one iteration of a training job took at one NPU (trace IterationEnd).
 */
struct TrainingIterationRecord
{
    uint32_t iteration{0}; //!< iteration index
    uint32_t rank{0};      //!< NPU rank
    uint32_t node{0};      //!< the NPU's topology node
    Time start;            //!< the forward pass started
    Time end;              //!< backward done and every collective of the iteration done
    Time compute;          //!< time of its compute kernels (fwd, ig, wg, updates)
    Time exposed;          //!< time it waited for communication
    /// exposed split by what it waited for (tn_chakra_serves; [0]: not told, as text
    /// workloads and traces read from files are): generated LLM programs (tn-llm.h)
    Time exposedBy[TN_SERVES_COUNT];
    Time bubble;       //!< pipeline bubble: waits for a receive whose send was not reached yet
    bool split{false}; //!< exposedBy and bubble are told: the program tags its nodes
};

/**
 * \ingroup training-net
 * \brief What one pass (fwd, ig or wg) of one layer took at one NPU (trace LayerEnd).
 *
 * The pass starts with its compute kernel and ends when its kernel, its collectives (this
 * NPU's part) and, for wg, the layer's weight update are done. A wait of the NPU (the
 * exposed communication of TrainingIterationRecord) is charged to the pass whose collective
 * or update ended it: summed over an NPU's passes, compute and exposed equal the sums over
 * its iterations (a wait at the start of an iteration for the previous iteration's
 * weight-gradient collective is charged to that wg pass).
 */
struct TrainingLayerRecord
{
    uint32_t iteration{0};     //!< iteration index
    uint32_t layer{0};         //!< layer index in the workload
    uint32_t rank{0};          //!< NPU rank
    uint32_t node{0};          //!< the NPU's topology node
    std::string name;          //!< the layer's name
    tn_pass pass{TN_PASS_FWD}; //!< fwd, ig or wg
    Time start;                //!< its compute kernel started
    Time end;                  //!< kernel, collectives and (wg) update done
    Time compute;              //!< its kernels (wg: with the update kernel)
    Time exposed;              //!< waiting that this pass's collective or update ended
    bool recompute{false};     //!< a forward pass run again in the backward pass
    /// the phase's name when it is no pass of a text workload: a generated program's
    /// schedule step ("forward", "backward"; layer is then the step's index)
    std::string phase;
};

/**
 * \ingroup training-net
 * \brief Runs a training workload (tn-workload.h) on the NPUs of a fabric.
 *
 * Every NPU runs its own loop, acting only on its own events (its kernels ending, its part of
 * a collective ending), and starts its part of each collective when it reaches it:
 *  - forward, layers 0..L-1: wait for the layer's weight-gradient collective of the previous
 *    iteration (and its update), compute fwd, then the forward collective if the pass has
 *    one (blocking);
 *  - backward, layers L-1..0: compute ig, its collective (blocking), compute wg, then its
 *    weight-gradient collective: with Overlap (default) it runs while the backward pass goes
 *    on to earlier layers, else the NPU waits for it; when it ends, the layer's update
 *    (update_delay cycles) is queued as compute;
 *  - activation recomputation (HYBRID_TRANSFORMER_FWD_IN_BCKWD): before the ig pass of a
 *    layer of checkpoint_initiates, the forward passes of the layers from its checkpoint up
 *    to it (tn_workload_recompute_from) run again, compute and blocking collective, as
 *    ASTRA-sim's Forward_In_BackPass does; their records have recompute set.
 * Compute kernels run one at a time per NPU (NpuEndpoint::Compute: cycles at its ClockRate,
 * slowed while a collective runs). The groups of each pass follow the workload's parallelism
 * (tn_workload_layer_group); a group's collective is planned once, by the first member to
 * reach it, with the algorithm set for its kind (SetAlgorithm). With Network false the
 * collectives are skipped (an infinite network). With Scheduler set ("themis-scf",
 * "themis-fifo" or "fixed"), the all-reduces, reduce-scatters and all-gathers of groups of
 * all the job's NPUs are scheduled at run time instead (CollectiveService::CreateScheduled,
 * over the dims of the job's NPUs: the topology's, or the sub-grid of a job on part of it;
 * ThemisChunks chunks, ThemisActive chunk-phases per dimension; trace ScheduledCreated): each
 * NPU starts
 * its part when it reaches the collective and is done at the operation's RankEnd; the other
 * collectives are planned as before. An iteration ends when its backward pass
 * and all its collectives and updates are done; exposed communication is the time the NPU
 * waited for collectives.
 */
class TrainingJob : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * Iteration trace signature.
     * \param record the iteration at one NPU
     */
    typedef void (*IterationTracedCallback)(const TrainingIterationRecord& record);

    /**
     * Layer trace signature.
     * \param record one pass of one layer at one NPU
     */
    typedef void (*LayerTracedCallback)(const TrainingLayerRecord& record);

    /**
     * ScheduledCreated trace signature.
     * \param collective an operation scheduled at run time, before any NPU starts it
     */
    typedef void (*ScheduledTracedCallback)(Ptr<ThemisCollective> collective);

    TrainingJob();
    ~TrainingJob() override;

    /**
     * \param workload the workload (must outlive the job)
     * \param service the collective service of the fabric (CollectiveHelper::Install)
     * \param endpoints the NPU endpoints in rank order
     * \param modelGroup model-parallel group size when the file gives none (0: none)
     * \param error set to the reason when the workload cannot run on these NPUs
     * \return true when set up
     */
    bool Setup(const tn_workload* workload,
               Ptr<CollectiveService> service,
               const std::vector<Ptr<NpuEndpoint>>& endpoints,
               uint32_t modelGroup,
               std::string* error);

    /**
     * Run Chakra execution traces instead of a text workload (ChakraRunner: one trace per NPU,
     * nodes on their dependencies; Iterations, Network, OpsPerCycle and the algorithms apply;
     * IterationEnd and CollectiveCreated fire, LayerEnd for the schedule steps of generated
     * programs: phase "forward" or "backward", layer the step's index). Set the algorithms first.
     * \param traces one per NPU in rank order (they must outlive the job; checked together
     * here, which sets their nodes' match) \param service the fabric's collective service
     * \param endpoints the NPU endpoints in rank order
     * \param error set to the reason (file, node id) when they cannot run on these NPUs
     * \return true when set up
     */
    bool SetupChakra(const std::vector<tn_chakra_trace*>& traces,
                     Ptr<CollectiveService> service,
                     const std::vector<Ptr<NpuEndpoint>>& endpoints,
                     std::string* error);

    /**
     * \param collective a collective kind \param algorithm its algorithm (default "auto";
     * direct for all-to-all), or "auto": the cost model's best per group and size bucket
     */
    void SetAlgorithm(tn_collective collective, const std::string& algorithm);

    /**
     * Run the job on some NPUs of the fabric: rank r of the job is the topology's NPU
     * npuOfRank[r], so that its collectives are planned over those NPUs (several jobs share
     * one fabric). Empty (the default): rank r is NPU r. Call before Setup; the endpoints
     * given to Setup must be those NPUs' in the same order.
     * \param npuOfRank the topology NPU rank of each rank of the job
     */
    void SetNpuRanks(const std::vector<uint32_t>& npuOfRank);

    /// \return the job's rank on a topology NPU of the job (SetNpuRanks)
    uint32_t RankOfNpu(uint32_t npu) const;

    /// \return the topology NPU ranks of all the job's ranks, by rank (SetNpuRanks)
    std::vector<uint32_t> AllNpuRanks() const;

    /// \return the topology NPU ranks of a group of the job's ranks (SetNpuRanks)
    std::vector<uint32_t> ToNpuRanks(const std::vector<uint32_t>& ranks) const;

    /**
     * The algorithm of every collective of a generated program (Chakra nodes that say which
     * parallelism they serve: LLM and SimAI programs) serving `serves`, whatever its kind but
     * all-to-all. It wins over SetAlgorithm. Unset, a data-parallel collective runs as "ring"
     * unless SetAlgorithm set its kind (GetParallelismAlgorithm says why).
     * \param serves a tn_chakra_serves other than TN_SERVES_NONE \param algorithm a registry
     * name or "auto"
     */
    void SetParallelismAlgorithm(tn_chakra_serves serves, const std::string& algorithm);

    /**
     * \return the algorithm a generated program's collective of this kind serving `serves`
     * runs with (see SetParallelismAlgorithm)
     */
    std::string GetParallelismAlgorithm(tn_chakra_serves serves, tn_collective collective) const;

    /** Start every NPU's loop now. */
    void Start();

    /** \return true when every NPU finished every iteration */
    bool IsComplete() const;

    /**
     * \return "" or why the job stopped the simulation: a collective that could be planned
     * at set-up but not created when reached (the memory guard of the generated collectives
     * in flight, CollectiveService::ProgramWindow), naming the layer or Chakra node
     */
    const std::string& GetError() const
    {
        return m_error;
    }

    /** \param rank NPU \return its iteration records so far */
    const std::vector<TrainingIterationRecord>& GetIterations(uint32_t rank) const;

    /** \return the collectives created so far */
    uint64_t GetCollectiveCount() const
    {
        return m_collectivesCreated;
    }

    /**
     * \return the collectives the job still holds: those some member has not finished (a
     * collective is let go when its whole group is done, so memory follows what is in flight,
     * not the length of the run)
     */
    uint64_t GetCollectivesHeld() const
    {
        return m_collectives.size() + m_scheduledOps.size();
    }

    /**
     * Collective created trace signature.
     * \param collective a collective of the job, created when its first member on this
     * process reaches it or a message names it (before any member here starts it)
     */
    typedef void (*CollectiveTracedCallback)(Ptr<Collective> collective);

    /**
     * \param id a collective id \param iteration set to the iteration \param layer set to
     * the layer \param pass set to the pass (a recomputed forward pass: TN_PASS_COUNT)
     * \param part set to the part (0, or 1 for the all-to-all of ALLREDUCEALLTOALL)
     * \param first set to the group's first NPU rank
     * \return false when the id is not one the job names
     */
    bool DecodeId(uint32_t id,
                  uint32_t* iteration,
                  uint32_t* layer,
                  int* pass,
                  uint32_t* part,
                  uint32_t* first) const;

    /**
     * \return messages this process's NPUs hold for collectives not created here
     * (CollectiveExecutor::GetHeldMessages); after a run, not zero: messages of collectives
     * never created, so a part that could not end
     */
    uint64_t GetHeldMessages() const;

    /**
     * \return collectives created because a message named them before any NPU of this
     * process reached them (a sender on another MPI rank was ahead)
     */
    uint64_t GetCreatedForMessages() const
    {
        return m_createdForMessages;
    }

    /** \return the operations scheduled at run time so far (Scheduler) */
    uint64_t GetScheduledCount() const
    {
        return m_scheduledCreated;
    }

  protected:
    void DoDispose() override;

  private:
    /// Where an NPU is.
    enum Phase
    {
        FORWARD,
        BACKWARD_IG,
        RECOMPUTE, //!< forward passes run again before an ig pass
        BACKWARD_WG,
        DRAINING,
        DONE
    };

    /// (iteration, layer, pass) of a layer record; pass RECOMPUTE_PASS: a recomputed fwd.
    typedef std::tuple<uint32_t, uint32_t, int> LayerKey;
    /// The pass of a layer key (and collective key) of a recomputed forward pass.
    static constexpr int RECOMPUTE_PASS = TN_PASS_COUNT;

    /// A layer record under way.
    struct LayerState
    {
        TrainingLayerRecord record;
        bool started{false};    //!< its kernel started
        bool kernelDone{false}; //!< its kernel ended (and its collectives were issued)
        uint32_t parts{0};      //!< collective parts not ended
        uint32_t updates{0};    //!< update kernels not ended (wg)
    };

    /// One NPU's loop.
    struct Npu
    {
        uint32_t rank{0};
        uint32_t iteration{0};
        uint32_t layer{0};
        Phase phase{FORWARD};
        bool busy{false};                         //!< a kernel runs
        uint32_t stage{0};                        //!< step within the layer
        uint32_t recomputing{0};                  //!< layer whose fwd runs again (RECOMPUTE)
        bool recomputed{false};                   //!< the current ig layer's recompute is done
        std::deque<LayerKey> updates;             //!< wg passes whose update kernel is queued
        int32_t runningUpdate{-1};                //!< layer of the update kernel running
        LayerKey runningUpdateKey;                //!< its wg pass
        std::map<LayerKey, LayerState> open;      //!< layer records under way
        LayerKey releaser;                        //!< the pass whose end calls Step now
        bool hasReleaser{false};                  //!< releaser is set
        std::vector<uint32_t> pendingWg;          //!< per layer: wg collectives not done
        std::vector<uint32_t> pendingUpdates;     //!< per layer: updates not done
        uint32_t waitingFor{0};                   //!< blocking collectives not done
        Time waitSince;                           //!< when it started waiting
        bool waiting{false};                      //!< waits (collective or wg of a layer)
        bool inIteration{false};                  //!< current holds an iteration under way
        TrainingIterationRecord current;          //!< the iteration under way
        std::vector<TrainingIterationRecord> log; //!< per iteration
    };

    void Step(uint32_t rank);
    void RunKernel(uint32_t rank, uint64_t cycles, const LayerKey& key);
    /// Start the compute kernel of a pass of the NPU's current layer (stage 1 follows).
    void RunPassKernel(uint32_t rank, tn_pass pass);
    /// \return the record of a pass, opened on first use
    LayerState& Layer(Npu& npu, const LayerKey& key);
    /// Emit a pass's record if its kernel, collectives and updates are done.
    void MaybeFinishLayer(Npu& npu, const LayerKey& key);
    /// A pass's kernel ended and its collectives (if any) were issued.
    void PassIssued(Npu& npu, const LayerKey& key);
    /// Step, with the wait it ends charged to the pass key.
    void StepReleasedBy(uint32_t rank, LayerKey key); // a copy: Step may change the NPU's keys
    void KernelDone(uint32_t rank);

    /// Where the collectives of one (layer, pass) sit among an iteration's ids.
    struct IdSlot
    {
        uint32_t base{0};   //!< offset of its first id within an iteration
        uint32_t layer{0};  //!< the layer
        int keyPass{0};     //!< pass of the layer key
        uint32_t parts{0};  //!< collectives per group
        uint32_t groups{0}; //!< groups of the pass
    };

    /// Reserve the ids of every collective the job may create (Setup). \return false, *error
    bool ReserveIds(std::string* error);
    /**
     * Plan now (CollectiveService::Check) every collective the job creates during the run,
     * for the group of NPU 0 of each layer's pass: one that cannot run is refused at Setup,
     * naming its layer, instead of aborting the run when it is reached.
     * \param error why not \return true if every one can be planned
     */
    bool CheckCollectives(std::string* error);
    /// \return the planning request of part `part` of a layer's pass
    tn_plan_request RequestOf(uint32_t layer, tn_pass pass, uint32_t part) const;

    /// A group of a layer's pass (tn_group_members): the job ranks first + j stride, j < count
    struct Members
    {
        uint32_t first{0};  //!< its first rank
        uint32_t stride{1}; //!< between its ranks
        uint32_t count{1};  //!< its ranks
        /// \return its ranks in order
        std::vector<uint32_t> Ranks() const;
    };

    /// \return the group of `rank` in a layer's pass (aborts on an invalid group: Setup checks)
    Members GroupOf(uint32_t layer, tn_pass pass, uint32_t rank) const;
    /// \return true when a collective of this kind over `count` NPUs runs at run time
    /// (Scheduler: chunk-phases) rather than as a plan
    bool IsScheduled(tn_collective kind, uint32_t count) const;
    /// \return the id of a collective of the job
    uint32_t IdOf(uint32_t iteration,
                  uint32_t layer,
                  int keyPass,
                  uint32_t part,
                  uint32_t first,
                  uint32_t stride,
                  uint32_t count) const;
    /// Create the collective `part` of the group of `rank` in a pass (null: fatal error).
    /**
     * On a symmetric flow network NPU 0 runs for all: check that the job can (NPU r is the
     * topology's NPU r, every collective spans all NPUs).
     * \param error why not \return true if it can
     */
    bool SetupSymmetric(std::string* error) const;

    Ptr<Collective> CreateCollective(uint32_t iteration,
                                     uint32_t layer,
                                     int keyPass,
                                     uint32_t part,
                                     uint32_t rank);
    /// A collective source of the executors: create the collective a message names.
    bool CreateNamed(uint32_t id);
    bool IssuePass(uint32_t rank,
                   uint32_t layer,
                   tn_pass pass,
                   bool blocking,
                   bool recompute = false);
    void PartEnd(uint32_t rank, Ptr<const Collective> c, uint32_t groupRank);
    /// A run-time scheduled operation is over at rank (its RankEnd).
    void ScheduledRankEnd(Ptr<const ThemisCollective> c, uint32_t rank);
    /// Rank's part of the collective or operation `id` ended.
    void PartEndOf(uint32_t rank, uint32_t id);
    void Wait(Npu& npu);
    void FinishIteration(Npu& npu);
    void QueueUpdate(Npu& npu, const LayerKey& wg);

    const tn_workload* m_workload{nullptr};
    Ptr<CollectiveService> m_service;
    std::vector<Ptr<NpuEndpoint>> m_endpoints;
    std::vector<Npu> m_npus;
    std::vector<uint32_t> m_nodes; //!< topology node of each NPU (this process's NPUs)
    std::vector<bool> m_local;     //!< NPUs this process simulates (others: other MPI ranks)
    /// Collective ids: m_firstId + iteration x m_idsPerIteration + the (layer, pass) slot's
    /// base + part x groups + the group's index, so that every process names a collective
    /// the same, whichever member reaches it first
    uint32_t m_firstId{0};
    uint32_t m_idsPerIteration{0};
    std::vector<IdSlot> m_slots;      //!< by base
    std::vector<int32_t> m_slotIndex; //!< layer x (TN_PASS_COUNT + 1) + keyPass -> slot, or -1
    TracedCallback<Ptr<Collective>> m_createdTrace;
    /// over MPI ranks, per reserved id: created here once (a late message creates none again)
    std::vector<bool> m_idCreated;
    uint32_t m_group{1};
    uint32_t m_iterations{1};
    bool m_overlap{true};
    bool m_network{true};
    std::string m_algorithm[TN_COLL_COUNT];
    std::vector<uint32_t> m_npuOfRank;                  //!< SetNpuRanks ({}: rank r is NPU r)
    std::unordered_map<uint32_t, uint32_t> m_rankOfNpu; //!< its inverse
    bool m_algorithmSet[TN_COLL_COUNT]{};               //!< SetAlgorithm was called for the kind
    std::string m_servesAlgorithm[TN_SERVES_COUNT];     //!< SetParallelismAlgorithm's ("": unset)
    /// collectives in flight by (iteration, layer, pass, part, group first rank)
    std::map<std::vector<uint32_t>, Ptr<Collective>> m_collectives;
    /// operations scheduled at run time in flight, by the same key
    std::map<std::vector<uint32_t>, Ptr<ThemisCollective>> m_scheduledOps;
    std::string m_scheduler;     //!< "" (plan every collective) or a run-time scheduler
    uint32_t m_themisChunks{64}; //!< chunks of a run-time scheduled operation
    uint32_t m_themisActive{1};  //!< its active chunk-phases per dimension
    TracedCallback<Ptr<ThemisCollective>> m_scheduledTrace;
    uint64_t m_collectivesCreated{0};
    uint64_t m_createdForMessages{0};
    uint64_t m_scheduledCreated{0};

    /// Let go of a collective whose group is done (scheduled: its last end is on the stack).
    void Forget(std::vector<uint32_t> key);

    /// per collective id: what it is for at each member (layer, pass, blocking)
    struct Use
    {
        uint32_t iteration;
        uint32_t layer;
        tn_pass pass;
        int keyPass; //!< pass of its layer key (RECOMPUTE_PASS for a recomputed fwd)
        bool blocking;
        uint32_t membersLeft;      //!< members (of this process) whose part has not ended
        std::vector<uint32_t> key; //!< in m_collectives
    };

    std::map<uint32_t, Use> m_uses;

    /// Chakra traces (SetupChakra): the runner, and its ends of iterations and collectives
    std::unique_ptr<ChakraRunner> m_chakra;
    uint64_t m_opsPerCycle{1};
    void ChakraIterationEnd(const TrainingIterationRecord& record);
    void ChakraStepEnd(const TrainingLayerRecord& record);
    void ChakraCreated(Ptr<Collective> collective);
    /** Record the first error and stop the simulation: the job cannot go on (GetError). */
    void Fail(const std::string& error);
    std::string m_error; //!< GetError
    TracedCallback<const TrainingIterationRecord&> m_iterationTrace;
    TracedCallback<const TrainingLayerRecord&> m_layerTrace;
};

} // namespace ns3

#endif // TRAINING_JOB_H
