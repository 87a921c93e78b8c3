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
#include "ns3/tn-workload.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;
class NpuEndpoint;

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
 *    (update_delay cycles) is queued as compute.
 * Compute kernels run one at a time per NPU (NpuEndpoint::Compute: cycles at its ClockRate,
 * slowed while a collective runs). The groups of each pass follow the workload's parallelism
 * (tn_workload_layer_group); a group's collective is planned once, by the first member to
 * reach it, with the algorithm set for its kind (SetAlgorithm). With Network false the
 * collectives are skipped (an infinite network). An iteration ends when its backward pass
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

    TrainingJob();
    ~TrainingJob() override;

    /**
     * \param workload the workload (must outlive the job)
     * \param collectives the helper installed on the fabric (must outlive the run)
     * \param endpoints the NPU endpoints in rank order
     * \param modelGroup model-parallel group size when the file gives none (0: none)
     * \param error set to the reason when the workload cannot run on these NPUs
     * \return true when set up
     */
    bool Setup(const tn_workload* workload,
               CollectiveHelper* collectives,
               const std::vector<Ptr<NpuEndpoint>>& endpoints,
               uint32_t modelGroup,
               std::string* error);

    /**
     * \param collective a collective kind \param algorithm its algorithm (default ring;
     * direct for all-to-all)
     */
    void SetAlgorithm(tn_collective collective, const std::string& algorithm);

    /** Start every NPU's loop now. */
    void Start();

    /** \return true when every NPU finished every iteration */
    bool IsComplete() const;

    /** \param rank NPU \return its iteration records so far */
    const std::vector<TrainingIterationRecord>& GetIterations(uint32_t rank) const;

    /** \return the collectives created so far */
    uint64_t GetCollectiveCount() const
    {
        return m_collectives.size();
    }

  protected:
    void DoDispose() override;

  private:
    /// Where an NPU is.
    enum Phase
    {
        FORWARD,
        BACKWARD_IG,
        BACKWARD_WG,
        DRAINING,
        DONE
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
        std::deque<uint32_t> updates;             //!< layers whose update kernel is queued
        int32_t runningUpdate{-1};                //!< layer of the update kernel running
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
    void RunKernel(uint32_t rank, uint64_t cycles);
    void KernelDone(uint32_t rank);
    bool IssuePass(uint32_t rank, uint32_t layer, tn_pass pass, bool blocking);
    void PartEnd(uint32_t rank, Ptr<const Collective> c, uint32_t groupRank);
    void Wait(Npu& npu);
    void FinishIteration(Npu& npu);
    void QueueUpdate(Npu& npu, uint32_t layer);

    const tn_workload* m_workload{nullptr};
    CollectiveHelper* m_helper{nullptr};
    std::vector<Ptr<NpuEndpoint>> m_endpoints;
    std::vector<Npu> m_npus;
    std::vector<uint32_t> m_nodes; //!< topology node of each NPU
    uint32_t m_group{1};
    uint32_t m_iterations{1};
    bool m_overlap{true};
    bool m_network{true};
    std::string m_algorithm[TN_COLL_COUNT];
    /// collectives by (iteration, layer, pass, part, group first rank)
    std::map<std::vector<uint32_t>, Ptr<Collective>> m_collectives;

    /// per collective id: what it is for at each member (layer, pass, blocking)
    struct Use
    {
        uint32_t layer;
        tn_pass pass;
        bool blocking;
    };

    std::map<uint32_t, Use> m_uses;
    TracedCallback<const TrainingIterationRecord&> m_iterationTrace;
};

} // namespace ns3

#endif // TRAINING_JOB_H
