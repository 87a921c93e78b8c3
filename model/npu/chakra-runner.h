/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Chakra execution traces (tn-chakra.h) run on the NPUs of a fabric, for a TrainingJob.
 */
#ifndef CHAKRA_RUNNER_H
#define CHAKRA_RUNNER_H

#include "collective.h"
#include "training-job.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/tn-chakra.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class CollectiveService;
class NpuEndpoint;

/**
 * \ingroup training-net
 * \brief Runs one Chakra trace per NPU (TrainingJob::SetupChakra).
 *
 * Each NPU walks its own graph: a node starts when its data and control dependencies are
 * done.
 *  - COMP_NODE and MEM_*_NODE are kernels on the NPU (NpuEndpoint::Compute, the roofline of
 *    cycles and memory bytes), one at a time: of the ready kernels the first in file order
 *    runs. A COMP_NODE takes ceil(num_ops / OpsPerCycle) cycles and moves tensor_size bytes;
 *    without num_ops it takes duration_micros at the NPU's clock. A memory node moves
 *    tensor_size bytes.
 *  - COMM_COLL_NODE is this NPU's part of a collective of its group (comm_group, else all
 *    NPUs), planned with the algorithm set for its kind by the first member to reach it; the
 *    node is done when the part ends. The k-th collective node of a group at every member is
 *    one collective (tn_chakra_check).
 *  - COMM_SEND_NODE / COMM_RECV_NODE: the k-th send from s to d with a tag and the k-th
 *    receive at d from s with that tag are one transfer, a broadcast from s in the group
 *    {s, d}: the send is done when s's part ends (its data left), the receive when the data
 *    arrived.
 * Without a network (Network false) communication takes no time but still waits for its peers,
 * as on an infinitely fast network: a collective is done at every member once the last member
 * reached it, a send at once, a receive once its send was reached. An iteration ends at an
 * NPU when all its nodes are done; the next iteration runs the graph again (at each NPU on its
 * own: collectives and transfers are told apart by iteration). Exposed time is the time the
 * NPU ran no kernel and had none ready while nodes were left. It is charged to what the NPU
 * waited for (tn_chakra_node.serves, in TrainingIterationRecord::exposedBy), along the chain
 * that ended it: the latest dependency of the kernel that starts takes the wait from its issue
 * to its end, that node's own latest dependency the wait before, and so on (a receive, then
 * the sequence-parallel all-gather it let start, say). A wait for a pipeline receive is a
 * bubble until its send was reached at the peer, and exposed PP communication after.
 * One process only: endpoints on other MPI ranks are refused. On a symmetric flow network
 * (FlowNetwork::Symmetric) the representative NPUs (below FlowNetwork::SymmetricPeriod: NPU 0
 * by default) alone run, each for the NPUs of its rank modulo the period, whose traces must
 * be its own moved by the translation between them (or absent).
 */
class ChakraRunner
{
  public:
    /// What the job asks of the runner.
    struct Config
    {
        uint32_t iterations{1};
        bool network{true};
        uint64_t opsPerCycle{1};
        /// by tn_chakra_serves, then tn_collective (TrainingJob::GetParallelismAlgorithm)
        std::vector<std::vector<std::string>> algorithm;
        /// the topology NPU of each rank (TrainingJob::SetNpuRanks; {}: rank r is NPU r)
        std::vector<uint32_t> npuOfRank;
    };

    /// An iteration ended at an NPU (the job's IterationEnd).
    typedef Callback<void, const TrainingIterationRecord&> IterationCallback;
    /// A collective was created (the job's CollectiveCreated).
    typedef Callback<void, Ptr<Collective>> CreatedCallback;
    /// A collective could not be created at run time (the memory guard): why, naming the node.
    typedef Callback<void, const std::string&> FailedCallback;
    /// A schedule step of a generated program ended at an NPU (the job's LayerEnd).
    typedef Callback<void, const TrainingLayerRecord&> StepCallback;

    /**
     * \param traces one per NPU, in rank order, checked together here (they must outlive the
     * runner) \param service the fabric's collective service \param endpoints the NPUs
     * \param config iterations, network, algorithms \param iterationEnd \param created
     * \param failed called when a collective cannot be created (the node is then not issued)
     */
    ChakraRunner(const std::vector<tn_chakra_trace*>& traces,
                 Ptr<CollectiveService> service,
                 const std::vector<Ptr<NpuEndpoint>>& endpoints,
                 const Config& config,
                 IterationCallback iterationEnd,
                 CreatedCallback created,
                 FailedCallback failed);

    /**
     * Checks the traces together (tn_chakra_check), every kernel's cycles against the text
     * workloads' cap (TN_WORKLOAD_MAX_CYCLES), and plans every distinct collective and
     * transfer (CollectiveService::Check), so that what cannot run is refused here.
     * On a symmetric flow network the representatives run for all: a trace of another NPU,
     * when given (null: absent), must be its representative's moved by the translation
     * between them (tn_chakra_compare_translate), and every collective or transfer must be
     * among representatives or carried onto itself by the translations (the service checks
     * its rank programs).
     * \param error set to why the traces cannot run here \return true when ready
     */
    bool Setup(std::string* error);

    /** Start every NPU's graph now. */
    void Start();

    /** \return true when every NPU finished every iteration */
    bool IsComplete() const;

    /** \param step told of each schedule step of generated programs (tn_chakra_node.step) */
    void SetStepCallback(StepCallback step)
    {
        m_stepEnd = step;
    }

    /** \return collectives (and transfers) in flight */
    uint64_t GetHeld() const
    {
        return m_collectives.size();
    }

  private:
    /// One NPU.
    struct Rank
    {
        uint32_t iteration{0};
        std::vector<uint32_t> waiting; //!< per node: dependencies not done
        std::set<uint32_t> kernels;    //!< ready kernels by node index (file order)
        std::deque<uint32_t> ready;    //!< ready nodes not issued yet
        std::deque<uint32_t> finished; //!< done nodes whose users are not told yet
        uint32_t left{0};              //!< nodes of the iteration not done
        bool busy{false};              //!< a kernel runs
        uint32_t running{0};           //!< its node
        bool draining{false};          //!< Drain is on the stack
        bool done{false};              //!< every iteration ended
        bool idle{false};              //!< waits for communication only
        Time idleSince;
        uint32_t lastDone{UINT32_MAX};          //!< the node whose end was taken last
        std::vector<Time> issuedAt;             //!< per node: when it was issued (this iteration)
        std::vector<Time> doneAt;               //!< per node: when it was done
        std::map<uint32_t, Time> sendReachedAt; //!< per receive done: when its send was reached
        uint32_t step{0};               //!< the schedule step of the kernels running (0: none)
        TrainingLayerRecord stepRecord; //!< that step so far
        TrainingIterationRecord current;
    };

    void StartIteration(uint32_t rank);
    void Complete(uint32_t rank, uint32_t node);
    void Drain(uint32_t rank);
    void Issue(uint32_t rank, uint32_t node);
    void IssueCommunication(uint32_t rank, uint32_t node);
    /// What names a communication node's collective or transfer at every member; the group
    /// (a transfer's: {sender, receiver}) in ranks.
    std::vector<uint64_t> CommunicationKey(uint32_t rank,
                                           const tn_chakra_node* n,
                                           std::vector<uint32_t>* ranks) const;
    /// Network false: the node waits for its peers only.
    void Rendezvous(uint32_t rank, uint32_t node);
    void RunKernel(uint32_t rank);
    void KernelDone(uint32_t rank);
    void PartEnd(uint32_t rank, Ptr<const Collective> c, uint32_t groupRank);
    /// The NPU goes on (kernel: the one it starts, else the iteration ends): charge its wait.
    void EndIdle(Rank& r, uint32_t kernel);
    /// Charge [from, to) of a wait to what node n serves (a receive: bubble, then PP).
    void Charge(Rank& r, uint32_t n, Time from, Time to);
    void Forget(std::vector<uint64_t> key);
    /// The step whose kernels ran last is over (its last kernel ended): tell m_stepEnd.
    void EndStep(Rank& r);
    bool CheckKernels(std::string* error) const;
    bool CheckSymmetric(std::string* error) const;
    bool CheckCommunication(std::string* error);
    /// \return the topology NPUs of a group of ranks (Config::npuOfRank)
    std::vector<uint32_t> ToNpus(const std::vector<uint32_t>& ranks) const;
    /** The plan request of communication node n of rank and its group (*ranks). */
    tn_plan_request RequestOf(uint32_t rank,
                              const tn_chakra_node* n,
                              std::vector<uint32_t>* ranks) const;

    std::vector<tn_chakra_trace*> m_traces;
    Ptr<CollectiveService> m_service;
    std::vector<Ptr<NpuEndpoint>> m_endpoints;
    Config m_config;
    IterationCallback m_iterationEnd;
    CreatedCallback m_created;
    FailedCallback m_failed;
    StepCallback m_stepEnd;
    bool m_symmetric{false}; //!< the representatives run for all (CheckSymmetric)
    uint32_t m_period{0};    //!< the NPUs below it run (all but on a symmetric network)
    std::vector<Rank> m_ranks;
    /// per trace: users of each node (CSR: m_userStart[t][i] .. m_userStart[t][i + 1])
    std::vector<std::vector<uint32_t>> m_userStart;
    std::vector<std::vector<uint32_t>> m_users;
    /// collectives and transfers in flight by what names them at every member
    std::map<std::vector<uint64_t>, Ptr<Collective>> m_collectives;
    /// (collective id, rank) -> the node whose part it is
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_parts;
    /// collective id -> (members whose part has not ended, its key)
    std::map<uint32_t, std::pair<uint32_t, std::vector<uint64_t>>> m_members;
    /// transfers whose send was reached: their key -> when (taken by the receive)
    std::map<std::vector<uint64_t>, Time> m_sendReached;
    /// Network false: per key, the (rank, node) that reached it and wait for the rest
    std::map<std::vector<uint64_t>, std::vector<std::pair<uint32_t, uint32_t>>> m_waiting;
};

} // namespace ns3

#endif // CHAKRA_RUNNER_H
