/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The run-time collective service of one fabric: plans, lanes, flow routes and the lifetime
 * of the collectives that run on it.
 */
#ifndef COLLECTIVE_SERVICE_H
#define COLLECTIVE_SERVICE_H

#include "collective-executor.h"
#include "collective.h"
#include "plan-verifier.h"
#include "themis-collective.h"

#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-fabric.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Plans, verifies, estimates and starts the collectives of one RoCE fabric at run time.
 *
 * One service per fabric. CollectiveHelper::Install creates it (attributes:
 * CollectiveHelper::SetServiceAttribute) after aggregating a CollectiveExecutor to every NPU
 * node, and hands it to every executor (CollectiveExecutor::GetService), so that code running
 * at an NPU's node finds it from the node; a TrainingJob holds it. It is not aggregated to a
 * node: an ns-3 Object joins one aggregate, and the service serves all NPU nodes of the
 * fabric. Executors and service point to each other; Simulator::Destroy (disposing the nodes,
 * hence the executors) breaks the cycle.
 *
 * Each collective is planned (tn_plan), verified (tn_verify_schedule, attribute Verify),
 * estimated by the cost model (tn_cost_estimate, with the NICs' MTU and per-packet header
 * bytes, so that the estimate counts what the wire carries) and handed to the executors of
 * its group.
 *
 * Routing modes (attribute Routing):
 *  - "planned" (default): every transfer's packets take the links its plan names (its
 *    explicit path, or the routed path tn_transfer_links gives), as per-QP path selection
 *    or source routing would on a real fabric: the transfers between two NPUs that take
 *    different paths use different RDMA lanes (queue pairs, so different UDP source ports),
 *    and every node on a lane's path gets a flow route (RoceFabric::SetFlowRoute: a switch's,
 *    or the flow network's) for it. The plan's cost model and the packet level then see the
 *    same links.
 *  - "ecmp": every transfer uses the default QP toward its peer and the switches' ECMP hash.
 *
 * Plans are cached (attribute PlanCache): a request identical to an earlier one (operation,
 * algorithm, bytes, root, chunks, ports, Themis options, seed, ring order, memory limit,
 * group, routing mode and verification) shares its plan, cost estimate and lanes instead of
 * planning, verifying and estimating again, so the iterations of a training job plan each
 * collective once and keep one copy of it (GetPlansBuilt).
 *
 * Groups: a collective may run on a subset of the NPUs (a job or process group; several at
 * once, disjoint or sharing links). A group other than all NPUs in rank order is planned
 * without the topology, so only the algorithms that need none (ring, ring-bidir, direct,
 * rhd, dbt) apply, and its cost estimate is 0 (unknown).
 *
 * Lifetime (attribute KeepCollectives): by default every collective created stays listed
 * (GetCollectives, GetScheduledCollectives), which keeps it alive; without, a collective goes
 * when its group is done with it and a scheduled one when it ends, so a long run holds only
 * the operations in flight.
 *
 * Generated collectives (attribute Program): ring, ring-bidir, direct, rhd, dbt, ring2d,
 * hierarchical, swing and swing-torus have rank-local program generators (tn-program.h); a
 * generated collective
 * keeps every rank's own program instead of the global DAG (Collective::SetupProgram), is
 * estimated by the per-step model (tn_cost_program) and is not verified (each generator is
 * proven equal to its verified schedule by the core's tests). "auto" (default) generates
 * where a generator exists and the schedule would exceed 1,000,000 transfers
 * (tn_plan_estimate), "generated" wherever a generator exists (an error otherwise),
 * "schedule" always materialises. Both run the same transfers with the same dependencies,
 * so a collective takes the same simulated time either way.
 *
 * Algorithm "auto" (tn-tune.h): the tuner ranks every algorithm that applies to the
 * operation, group and size by the cost model, on the path the collective would take
 * (attribute Program: the schedule's DAG estimate, or the rank-local programs' per-step
 * estimate), with the same cost options and routes as the collective's own estimate, and
 * the best one runs; the collective's Tuning holds the choice's and the runner-up's
 * estimates (the database's collective row records them). Decisions are cached per
 * (operation, group, size bucket): every field of the request but the algorithm and the
 * bytes, the group, the routing and program modes, and the bucket of the size, SizeBucket:
 * floor(log2(bytes)), so sizes in [2^k, 2^(k+1)) share the decision made for the first of
 * them (GetTuningsRun counts the rankings made). A group other than all NPUs is ranked
 * without the topology, as it is planned.
 *
 * The topology must outlive the service and stay unmodified.
 */
class CollectiveService : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Routing modes.
    enum RoutingMode
    {
        PLANNED, //!< transfers take their planned links
        ECMP     //!< transfers are hashed by the switches
    };

    /// What a planned route that is not up/down does (attribute UpDownCheck).
    enum UpDownCheck
    {
        UP_DOWN_REFUSE, //!< the collective is refused, the route named
        UP_DOWN_WARN,   //!< a warning on stderr names the route; it runs
        UP_DOWN_OFF     //!< no check
    };

    /// How collectives are planned (attribute Program).
    enum ProgramMode
    {
        PROGRAM_AUTO,      //!< generated beyond AUTO_TRANSFERS where a generator exists
        PROGRAM_GENERATED, //!< rank-local programs wherever a generator exists
        PROGRAM_SCHEDULE   //!< the materialised, verified schedule
    };

    /// auto: the schedule up to this many transfers, the generated programs beyond
    static constexpr uint64_t AUTO_TRANSFERS = TN_TUNE_SCHEDULE_TRANSFERS;

    /**
     * The size bucket of algorithm "auto"'s decision cache.
     * \param bytes S \return floor(log2(bytes)) (0 for 0 and 1)
     */
    static uint32_t SizeBucket(uint64_t bytes);

    /** \return rankings made for algorithm "auto" (decisions taken from the cache not counted) */
    uint64_t GetTuningsRun() const
    {
        return m_tuningsRun;
    }

    CollectiveService();
    ~CollectiveService() override;

    /**
     * Serve a fabric: find the CollectiveExecutor and RdmaTransport of every NPU node and hand the
     * service to the executors. Once, before any other call but the setters.
     * \param topo the topology \param nodes every node of its fabric, index = topology node id
     */
    void Setup(const tn_topology* topo, const NodeContainer& nodes);

    /** \param mode routing mode */
    void SetRoutingMode(RoutingMode mode);

    /** \return the routing mode */
    RoutingMode GetRoutingMode() const
    {
        return m_mode;
    }

    /**
     * \param name "planned" or "ecmp" \param mode set to its mode
     * \return false for another name
     */
    static bool ParseRouting(const std::string& name, RoutingMode* mode);
    /** \param mode routing mode \return its name */
    static std::string GetRoutingName(RoutingMode mode);

    /** \param priority traffic class of collective data (0-7, default 3: lossless) */
    void SetPriority(uint8_t priority);

    /** \return the traffic class of collective data */
    uint8_t GetPriority() const
    {
        return m_priority;
    }

    /** \param verify run the schedule verifier on every plan (default true) */
    void SetVerify(bool verify);
    /** \return whether plans are verified */
    bool GetVerify() const;
    /**
     * \param cache share the plan of identical requests (default true); false plans every
     * collective anew and forgets the plans cached so far
     */
    void SetPlanCache(bool cache);
    /** \return whether plans are cached */
    bool GetPlanCache() const;
    /** \param keep list (and keep alive) every collective created (default true) */
    void SetKeepCollectives(bool keep);
    /** \return whether collectives are kept */
    bool GetKeepCollectives() const;

    /**
     * \param name scheduler of CreateScheduled: "themis-scf" (default), "themis-fifo" or
     * "fixed" (every chunk in dim order 0..D-1, FIFO: the hierarchical baseline)
     * \return false (and nothing changed) for another name
     */
    bool SetScheduler(std::string name);

    /** \return the scheduler name */
    std::string GetScheduler() const
    {
        return m_scheduler;
    }

    /** \param name a scheduler name \return true for one SetScheduler accepts */
    static bool IsScheduler(const std::string& name);

    /**
     * Plan, verify and estimate a collective and register it with its group's executors;
     * it does not start (Start()).
     * \param request planning request (request.ranks is set from the group)
     * \param group topology NPU ranks of the group in group-rank order (empty: all NPUs)
     * \param error set to the reason when the collective cannot be created
     * \param reservedId its id, from a block ReserveIds gave (0: the next id); each reserved id
     * names one collective
     * \return the collective, or null with *error set
     */
    Ptr<Collective> Create(const tn_plan_request& request,
                           const std::vector<uint32_t>& group,
                           std::string* error,
                           uint32_t reservedId = 0);

    /**
     * What Create would refuse before any collective is in flight: the group, the algorithm
     * ("auto"'s ranking), the plan and, on a symmetric flow network, whether NPU 0 can run
     * for all. A creator that makes its collectives during the run (TrainingJob) checks them
     * at set-up, so that bad input is an error before anything runs rather than an abort in
     * the middle. The plan is cached as Create's (PlanCache), so it is built once. Create
     * alone refuses what depends on the collectives in flight (MemoryLimit).
     * \param request planning request \param group as Create's
     * \param error set to Create's message when it would refuse
     * \return true when Create would plan it
     */
    bool Check(const tn_plan_request& request,
               const std::vector<uint32_t>& group,
               std::string* error);

    /**
     * Check, but a plan's verification (Verify) may still run when it returns: on a thread
     * of its own, while the caller checks its next collective (a job's set-up plans each of
     * its distinct collectives; the 1,024-NPU ResNet-50 spent 15 of its 34 s of set-up in the
     * verifier). One verification runs at a time. AwaitVerifications gives the verdicts;
     * Create waits for its plan's.
     * \param request planning request \param group as Create's
     * \param error set to Create's message when it would refuse, the verifier's refusal aside
     * \return true when Create would plan it, unless its verification fails
     */
    bool CheckDeferred(const tn_plan_request& request,
                       const std::vector<uint32_t>& group,
                       std::string* error);

    /**
     * Wait for the verifications CheckDeferred left running, and take their verdicts.
     * \param error set when a plan is wrong: the collective, algorithm, bytes and ranks, and
     * the verifier's message
     * \return false with *error set when one is
     */
    bool AwaitVerifications(std::string* error);

    /**
     * Reserve a block of collective ids for a creator that names its collectives itself
     * (Create's reservedId), so that ids follow what the collectives are for, not the order
     * they are created in: a training job names each by (iteration, layer, pass, group), the
     * same in one process and on every MPI rank, whichever member reaches it first.
     * \param count ids to reserve \param first set to the first of them
     * \param error set when the ids would not fit an R_Key (2^30)
     * \return false with *error set
     */
    bool ReserveIds(uint64_t count, uint32_t* first, std::string* error);

    /**
     * Start a created collective: each NPU of its group starts its part after `delay`, in
     * its own node's context.
     * \param collective the collective \param delay from now
     */
    void Start(Ptr<Collective> collective, Time delay = Seconds(0));

    /**
     * Create and start now a collective on all NPUs; a planning error is fatal (use Create
     * to handle it).
     * \param collective operation \param bytes S (see tn-schedule.h) \param algorithm name
     * \param done completion callback (may be null) \param root broadcast / reduce root
     * \return the collective
     */
    Ptr<Collective> Run(tn_collective collective,
                        uint64_t bytes,
                        const std::string& algorithm,
                        Collective::DoneCallback done = Collective::DoneCallback(),
                        uint32_t root = 0);

    /**
     * Set up a collective scheduled at run time on all NPUs (all-reduce, reduce-scatter or
     * all-gather on a topology with dims): one sub-collective per chunk-phase and group
     * (ring on ring/torus dims, direct otherwise), created like Create() does. Uses
     * request.collective, bytes, chunks (0 = 64, the Themis default) and
     * themis.active_chunks_per_dim (0 = 1).
     * \param request the request \param scheduler a name IsScheduler accepts
     * \param error set when it cannot be created
     * \return the collective (not started), or null with *error set
     */
    Ptr<ThemisCollective> CreateScheduled(const tn_plan_request& request,
                                          const std::string& scheduler,
                                          std::string* error);

    /**
     * CreateScheduled on a group of NPUs (a job on part of the topology): the scheduler splits
     * over the dims of the group's sub-grid (tn_topology_subgrid: a product of coordinates,
     * rings held whole), its rank r on the r-th of the NPUs in ascending order
     * (ThemisCollective::GetNpu, GetRankOfNpu).
     * \param request the request \param scheduler a name IsScheduler accepts
     * \param npus the group's topology NPU ranks (any order; empty: every NPU)
     * \param error set when it cannot be created (a group that is no sub-grid says why)
     * \return the collective (not started), or null with *error set
     */
    Ptr<ThemisCollective> CreateScheduled(const tn_plan_request& request,
                                          const std::string& scheduler,
                                          const std::vector<uint32_t>& npus,
                                          std::string* error);

    /**
     * Whether CreateScheduled would create this collective now, planned without creating
     * anything (a training job's set-up, TrainingJob::Setup): the same refusals and errors.
     * \param request the request \param scheduler its name \param error set to why not
     * \return true when it can be created
     */
    bool CheckScheduled(const tn_plan_request& request,
                        const std::string& scheduler,
                        std::string* error);

    /**
     * Whether CreateScheduled on this group of NPUs would create it now (as above).
     * \param request the request \param scheduler its name \param npus the group's NPUs
     * \param error set to why not \return true when it can be created
     */
    bool CheckScheduled(const tn_plan_request& request,
                        const std::string& scheduler,
                        const std::vector<uint32_t>& npus,
                        std::string* error);

    /**
     * Start a scheduled collective: each NPU starts its part after `delay`, in its own
     * node's context.
     * \param collective the collective \param delay from now
     */
    void Start(Ptr<ThemisCollective> collective, Time delay = Seconds(0));

    /**
     * Create (64 chunks, A = 4, the Scheduler attribute's scheduler) and start now a
     * scheduled collective; an error is fatal.
     * \param collective operation \param bytes S \param done completion callback
     * \return the collective
     */
    Ptr<ThemisCollective> RunScheduled(
        tn_collective collective,
        uint64_t bytes,
        ThemisCollective::DoneCallback done = ThemisCollective::DoneCallback());

    /**
     * \param rank NPU rank
     * \return its executor; null when another MPI rank simulates this NPU
     */
    Ptr<CollectiveExecutor> GetExecutor(uint32_t rank) const;

    /**
     * \return true on a symmetric flow network: the representative NPUs alone run
     * (FlowNetwork::Symmetric)
     */
    bool IsSymmetric() const
    {
        return GetSymmetry() != nullptr;
    }

    /**
     * \return on a symmetric flow network, the representative NPUs' count: NPU ranks below it
     * run, each for the NPUs of its rank modulo it (FlowNetwork::SymmetricPeriod); else 0
     */
    uint32_t GetSymmetricPeriod() const
    {
        return IsSymmetric() ? tn_symmetry_period(GetSymmetry()) : 0;
    }

    /** \return the fabric's translations on a symmetric flow network, else null */
    const tn_symmetry* GetSymmetry() const
    {
        return m_routesFabric ? m_routesFabric->GetSymmetry() : nullptr;
    }

    /** \return true when some NPUs are simulated by other MPI ranks */
    bool IsDistributed() const
    {
        return m_distributed;
    }

    /** \return every collective created, in creation order (none without KeepCollectives) */
    const std::vector<Ptr<Collective>>& GetCollectives() const
    {
        return m_collectives;
    }

    /** \return scheduled collectives created (without KeepCollectives: those not ended) */
    const std::vector<Ptr<ThemisCollective>>& GetScheduledCollectives() const
    {
        return m_scheduled;
    }

    /** \return plans built (planned, verified and estimated) so far; the rest came cached */
    uint64_t GetPlansBuilt() const
    {
        return m_plansBuilt;
    }

    /**
     * \return auto's choices that passed over a faster algorithm whose programs the run could
     * not hold (the first is noted on stderr)
     */
    uint64_t GetHeldSkips() const
    {
        return m_heldSkips;
    }

    /**
     * \return plans the cache dropped to stay within PlanCacheBytes (a request of one of them
     * builds it again)
     */
    uint64_t GetPlansEvicted() const
    {
        return m_plansEvicted;
    }

    /**
     * \return requests of a plan the cache had dropped that took it back from the
     * collectives still holding it, instead of building it again
     */
    uint64_t GetPlansTakenBack() const
    {
        return m_plansTakenBack;
    }

    /** \return bytes the cached plans hold now (PlanBytes of each) */
    uint64_t GetCachedPlanBytes() const
    {
        return m_cachedPlanBytes;
    }

    /**
     * \return plans left unverified because the verifier's state passed its budget (an
     * eighth of the memory limit); noted once on stderr
     */
    uint64_t GetPlansUnverified() const
    {
        return m_plansUnverified;
    }

    /** \return the routes of the topology (for cost estimates) */
    const tn_routes* GetRoutes() const
    {
        return m_routes;
    }

    /** \return flow routes installed on the fabric (planned mode) */
    uint64_t GetFlowRoutes() const
    {
        return m_flowRoutes;
    }

    /** \return planned routes that broke up/down and ran anyway (UpDownCheck warn) */
    uint64_t GetUpDownWarnings() const
    {
        return m_upDownWarnings;
    }

  protected:
    void DoDispose() override;

  private:
    /// A plan's verification, settled once: its verdict read, counted and noted.
    struct Verification
    {
        std::shared_ptr<PlanVerifier::Job> job; //!< running or done
        std::string what;    //!< the plan: "all-reduce with ring on 8 ranks (14 transfers)"
        uint64_t budget{0};  //!< the verifier's budget
        uint64_t limit{0};   //!< the memory limit it is a share of
        bool settled{false}; //!< the verdict was taken (Settle)
        std::string error;   //!< when settled: "" or why the plan is refused
    };

    /// What identical requests share: the schedule, its cost estimate and its lanes.
    struct Plan
    {
        Collective::SharedSchedule schedule;   //!< finalized, verified when m_verify
        Collective::SharedProgram program;     //!< or: the generator (Program attribute)
        Time estimate;                         //!< cost model (0: unknown)
        Collective::Protocol protocol;         //!< a library's protocol (nccl), else unset
        std::vector<uint8_t> lanes;            //!< planned routing's lane of each transfer
        Collective::SharedPairLanes pairLanes; //!< generated: lane per rank pair (or null)
        /// CheckSymmetric's answer, kept with the (cached) plan: every collective created
        /// from it would check the same programs again
        mutable std::optional<std::string> symmetric;
        /// its verification, when Verify (null: none, or done before the plan was cached)
        std::shared_ptr<Verification> verification;
    };

    /// Algorithm "auto"'s decision for a request on a group.
    struct Decision
    {
        const tn_algorithm* algorithm{nullptr}; //!< registry entry chosen, resolved once
        Time choiceEstimate;                    //!< its estimate
        std::string runnerUp;                   //!< the second ("" if none)
        Time runnerUpEstimate;                  //!< its estimate
    };

    /// A request made ready to create: its group's ranks and nodes, the algorithm resolved
    /// ("auto"'s choice) and its plan.
    struct Prepared
    {
        tn_plan_request resolved;             //!< the request, algorithm resolved
        std::vector<uint32_t> ranks;          //!< topology NPU ranks of the group
        std::vector<uint32_t> nodes;          //!< their nodes
        Collective::Tuning tuning;            //!< "auto"'s choice and runner-up
        std::shared_ptr<const Plan> plan;     //!< the plan (cached when PlanCache)
        const tn_symmetry* symmetry{nullptr}; //!< the flow network's, when Symmetric
    };

    /** \return true with *out filled, or false with *error set: Check and Create's
     *  refusals that do not depend on the collectives in flight */
    /**
     * \param request the collective \param npus its NPU ranks
     * \return "" or why a packet-level run refuses it: its bytes over the fastest NPU's links
     * (a lower bound of its length, for collectives without an estimate) last longer than
     * MaxPacketLevelLength
     */
    std::string CheckLowerBound(const tn_plan_request& request,
                                const std::vector<uint32_t>& npus) const;
    bool Prepare(const tn_plan_request& request,
                 const std::vector<uint32_t>& group,
                 Prepared* out,
                 bool deferVerification,
                 std::string* error);

    /** \return the decision for request on ranks, cached or ranked now (tn_tune_rank); null
     *  with *error set when no algorithm applies */
    const Decision* Tune(const tn_plan_request& request,
                         const std::vector<uint32_t>& ranks,
                         bool wholeTopology,
                         std::string* error);
    /** \return whether some of `ranks` are simulated by other MPI ranks (programs are then
     *  held whole: windows are not supported across ranks) */
    bool IsAcrossRanks(const std::vector<uint32_t>& ranks) const;
    /** Note once on stderr that auto's choice `best` passed over a faster candidate of the
     *  ranking that the run could not hold (tn_tune_candidate.held_bytes) */
    void NoteHeldSkip(const tn_tune_ranking* ranking, const tn_tune_candidate* best);

    /**
     * Verify a planned schedule within an eighth of the memory limit (tn_verify_schedule_within)
     * on the verifier's thread; settled now unless deferred.
     * \param verification set to the verification \return false with *error when it is
     * wrong or the limit cannot be read; true when it is proven, too large to verify (counted,
     * noted once), or deferred
     */
    bool VerifySchedule(const tn_plan_request& request,
                        const Collective::SharedSchedule& schedule,
                        bool wholeTopology,
                        bool defer,
                        std::shared_ptr<Verification>* verification,
                        std::string* error);
    /**
     * Take a verification's verdict, waiting for it (once; later calls repeat it).
     * \return false with *error when the plan is wrong
     */
    bool Settle(Verification& verification, std::string* error);
    /** The generated plan of a request (GetPlan's other half). */
    std::shared_ptr<Plan> GetGeneratedPlan(const tn_plan_request& req,
                                           const std::vector<uint32_t>& nodes,
                                           bool wholeTopology,
                                           std::string* error);

  public:
    /**
     * The up/down check of a planned route on a switched topology (tn_routes_up_down_turn;
     * NPUs that forward, as in meshes and tori, and BiGraph, whose two switch layers both face
     * NPUs, are not checked): "" when the route goes no
     * more up once it went down, else a message naming the route's nodes and the node where it
     * turns up again. Setup must have run.
     * \param path the route's link ids \param len their number \return the message or ""
     */
    std::string CheckUpDown(const uint32_t* path, uint32_t len) const;

  private:
    /** Planned routing's lane of the transfers of a node pair on a path, with its flow
     *  routes; a new path passes the up/down check (UpDownCheck) first.
     *  \return false with *error set */
    bool PathLane(uint32_t srcNode,
                  uint32_t dstNode,
                  const std::vector<uint32_t>& path,
                  uint32_t len,
                  uint8_t* lane,
                  std::string* error);

    /** \return the plan of request on ranks, cached or built now; null with *error set */
    std::shared_ptr<const Plan> GetPlan(const tn_plan_request& request,
                                        const std::vector<uint32_t>& ranks,
                                        const std::vector<uint32_t>& nodes,
                                        bool wholeTopology,
                                        bool deferVerification,
                                        std::string* error);

    /** Lanes and flow routes of a planned collective. \return false with *error set */
    bool AssignLanes(const tn_schedule* s,
                     const std::vector<uint32_t>& nodes,
                     bool wholeTopology,
                     std::vector<uint8_t>* lanes,
                     std::string* error);

    /// A scheduled collective ended: without KeepCollectives, let it go (scheduled).
    void ScheduledEnded(Ptr<const ThemisCollective> collective);
    void ForgetScheduled(uint32_t id);

    const tn_topology* m_topo{nullptr};
    NodeContainer m_nodes; //!< by topology node id
    const tn_routes* m_routes{nullptr};
    tn_routes* m_ownRoutes{nullptr}; //!< m_routes when not the fabric's
    Ptr<RoceFabric> m_fabric;        //!< the fabric the transports send over (flow routes)
    Ptr<RoceFabric> m_routesFabric;  //!< the fabric whose routes m_routes are, or null
    /** \return the executor of an NPU this process simulates */
    Ptr<CollectiveExecutor> GetLocalExecutor() const;

    std::vector<Ptr<CollectiveExecutor>> m_executors; //!< by NPU rank (null: another MPI rank)
    bool m_distributed{false};    //!< some NPUs are simulated by other MPI ranks
    uint64_t m_symmetricSlack{0}; //!< SymmetricLengthSlack
    std::vector<Ptr<Collective>> m_collectives;
    std::vector<Ptr<ThemisCollective>> m_scheduled; //!< its NICs' traces point to them
    std::map<uint64_t, std::vector<std::vector<uint32_t>>> m_lanePaths; //!< (src, dst) -> paths
    RoutingMode m_mode{PLANNED};
    tn_route_order m_routeOrder{TN_ROUTE_SHORTEST}; //!< RouteOrder
    Time m_maxPacketLevelLength;                    //!< MaxPacketLevelLength
    UpDownCheck m_upDown{UP_DOWN_REFUSE};           //!< UpDownCheck
    ProgramMode m_program{PROGRAM_AUTO};
    std::string m_scheduler{"themis-scf"};
    uint8_t m_priority{3};
    uint32_t m_programWindow{0}; //!< ops per stream window of generated collectives (0: whole)
    /// the window held when ProgramWindow is 0 and whole programs would pass their share (or
    /// TN_PROGRAM_WINDOW_MARGIN times the program's least, if wider)
    static constexpr uint32_t AUTO_PROGRAM_WINDOW = 64;
    /// whole programs in flight take at most 1/WHOLE_PROGRAM_SHARE of the memory limit:
    /// windows cost no more CPU (a 1,024-NPU ring: the same, a third of the memory) and the
    /// collectives already in flight keep their whole programs, so that the windows of
    /// overlapping ones (Resnet-50's 54 all-reduces) leave the rest of the machine free
    static constexpr uint64_t WHOLE_PROGRAM_SHARE = 8;
    /// memory of one rank pair's lane or one pinned route (a node of an unordered_map of 64-bit
    /// keys, its allocation and its bucket), for the lanes' share of the limit
    static constexpr uint64_t LANE_ENTRY_BYTES = 48;
    /// memory of a node pair's known paths (m_lanePaths: its map node and bucket, the vector
    /// of paths, one path of a few links); with LANE_ENTRY_BYTES, 188 bytes a pair measured
    /// (16,384 NPUs, hierarchical: 6.2 GB peak at 32.9 million pairs)
    static constexpr uint64_t LANE_PATHS_BYTES = 128;
    bool m_autoWindowNoted{false};       //!< windows held since whole programs passed their share
    bool m_wholeAcrossRanksNoted{false}; //!< the note on whole programs across MPI ranks
    bool m_heldSkipNoted{false};         //!< auto passed over a candidate it could not hold
    uint64_t m_heldSkips{0};             //!< GetHeldSkips
    /// Ops held by the generated collectives whose programs are not freed yet, by id (at
    /// their creation: whole programs, or the first windows).
    std::unordered_map<uint32_t, uint64_t> m_heldOps;
    /// A generated collective freed its programs.
    void ProgramsFreed(uint32_t id);
    /** CreateScheduled (check false) and CheckScheduled (check true, nothing installed). */
    Ptr<ThemisCollective> BuildScheduled(const tn_plan_request& request,
                                         const std::string& scheduler,
                                         const std::vector<uint32_t>& npus,
                                         bool check,
                                         std::string* error);
    /**
     * The memory guard of generated collectives: the ops held by the collectives in flight
     * plus `ops` more, at Collective::HELD_OP_BYTES each, against the request's memory limit.
     * \return an empty string, or the error
     */
    /**
     * \param nodes the nodes of a collective's ranks \param symmetry the flow network's
     * \return whether every rank is on a representative NPU (below the symmetry's period):
     * nothing in it stands for another rank
     */
    bool IsAmongRepresentatives(const std::vector<uint32_t>& nodes,
                                const tn_symmetry* symmetry) const;

    /**
     * Whether a collective can run with one rank for all on a symmetric flow network.
     * \return "" if so, else why not (naming FlowNetwork::Symmetric)
     */
    std::string CheckSymmetric(const Plan& plan,
                               const tn_plan_request& request,
                               const std::vector<uint32_t>& nodes,
                               const tn_symmetry* symmetry) const;

    /**
     * The request's memory limit, or the default one when it sets none (tn_memory_default_limit).
     * \return false with *error when the default cannot be read (a bad TN_MEMORY_LIMIT)
     */
    static bool MemoryLimit(const tn_plan_request& request, uint64_t* limit, std::string* error);
    /**
     * The bytes the generated collectives in flight and `ops` more of collective `id` would
     * hold; `what` names them for a message.
     */
    uint64_t HeldBytes(const tn_plan_request& request,
                       uint32_t id,
                       uint64_t ops,
                       bool windows,
                       std::string* what) const;
    /// "" if HeldBytes fits the request's memory limit, else why not (tn_memory_check)
    std::string CheckHeldOps(const tn_plan_request& request,
                             uint32_t id,
                             uint64_t ops,
                             bool windows);
    bool m_verify{true};
    bool m_cachePlans{true};
    bool m_keepCollectives{true};

    /// A cached plan, what it holds and when it was last asked for.
    struct CachedPlan
    {
        std::shared_ptr<const Plan> plan;
        uint64_t bytes{0};   //!< PlanBytes
        uint64_t lastUse{0}; //!< m_planUses at its last look-up (the least recent goes first)
    };

    std::map<std::string, CachedPlan> m_plans; //!< by request (PlanKey)
    /// plans the cache dropped, by request: one still held by its collectives is taken back
    /// rather than built again (a second copy beside the first, and its verification, in the
    /// middle of the run); expired ones are pruned as plans are dropped
    std::map<std::string, std::weak_ptr<const Plan>> m_droppedPlans;
    uint64_t m_planCacheBytes{0};  //!< PlanCacheBytes (0: a share of the limit)
    uint64_t m_cachedPlanBytes{0}; //!< the sum of m_plans' bytes
    uint64_t m_planUses{0};        //!< look-ups and insertions so far
    uint64_t m_plansEvicted{0};    //!< GetPlansEvicted
    uint64_t m_plansTakenBack{0};  //!< GetPlansTakenBack
    /// cached plans take at most 1/PLAN_CACHE_SHARE of the memory limit unless PlanCacheBytes
    /// says otherwise: the share whole programs and the verifier get. A sixteenth dropped the
    /// 16,384-NPU ResNet-50 iteration's plans (15 of about 60 MB) at set-up, to build them
    /// again during the run: 5.0 GiB peak and 1,540 s of CPU against 3.7 GiB and 1,386 s
    static constexpr uint64_t PLAN_CACHE_SHARE = 8;
    /** \return the bytes a plan holds (its schedule, lanes and pair lanes) */
    static uint64_t PlanBytes(const Plan& plan);
    /**
     * Keep `plan` for later requests of `key` within the cache's budget, dropping the plans
     * asked for least recently to make room (a plan larger than the budget is not kept).
     */
    void CachePlan(const std::string& key,
                   const std::shared_ptr<const Plan>& plan,
                   const tn_plan_request& request);
    std::map<std::string, Decision> m_decisions; //!< algorithm "auto"'s, by (PlanKey, bucket)
    /// auto's choice as the ranking planned and estimated it (tn_tune_take_choice), for the
    /// GetPlan of that request (m_tunedKey) that follows: planned once, not twice
    std::unique_ptr<tn_schedule, void (*)(tn_schedule*)> m_tunedSchedule{nullptr,
                                                                         tn_schedule_destroy};
    std::string m_tunedKey;
    double m_tunedEstimateNs{0};
    uint64_t m_tuningsRun{0};
    uint64_t m_plansBuilt{0};
    uint64_t m_plansUnverified{0}; //!< plans the verifier's budget left unverified
    PlanVerifier m_verifier;       //!< verifies plans on a thread of its own
    /// CheckDeferred's verifications not settled yet, in the order they started
    std::vector<std::shared_ptr<Verification>> m_deferred;
    uint32_t m_nextId{1};
    uint64_t m_flowRoutes{0};
    uint64_t m_upDownWarnings{0}; //!< GetUpDownWarnings
};

} // namespace ns3

#endif // COLLECTIVE_SERVICE_H
