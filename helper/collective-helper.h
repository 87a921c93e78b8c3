/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_HELPER_H
#define COLLECTIVE_HELPER_H

#include "ns3/attribute.h"
#include "ns3/collective-executor.h"
#include "ns3/collective.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RoceHelper;

/**
 * \ingroup training-net
 * \brief Runs collectives planned by the C core on a RoCE fabric built by RoceHelper.
 *
 * \code
 *   RoceHelper roce;
 *   roce.Install(topo);
 *   CollectiveHelper collectives;
 *   collectives.SetRouting("planned");
 *   collectives.Install(topo, roce);
 *   Ptr<Collective> c = collectives.AllReduce(16 << 20, "multitree");
 *   Simulator::Run();   // c->GetDuration(), c->GetEstimatedTime()
 * \endcode
 *
 * Install() aggregates a CollectiveExecutor (attributes: SetExecutorAttribute) to every NPU
 * node. Each collective is planned (tn_plan), verified (tn_verify_schedule, SetVerify),
 * estimated by the cost model (tn_cost_estimate, with the NICs' MTU and per-packet header
 * bytes, so that the estimate counts what the wire carries) and handed to the executors of
 * its group.
 *
 * Routing modes (SetRouting):
 *  - "planned" (default): every transfer's packets take the links its plan names (its
 *    explicit path, or the routed path tn_transfer_links gives), as per-QP path selection
 *    or source routing would on a real fabric: the transfers between two NPUs that take
 *    different paths use different RDMA lanes (queue pairs, so different UDP source ports),
 *    and every node on a lane's path gets a flow route (RoceSwitch::SetFlowRoute) for it.
 *    The plan's cost model and the packet level then see the same links.
 *  - "ecmp": every transfer uses the default QP toward its peer and the switches' ECMP hash.
 *
 * Plans are cached: a request identical to an earlier one (operation, algorithm, bytes, root,
 * chunks, ports, Themis options, seed, ring order, memory limit, group, routing mode and
 * verification) shares its plan, cost estimate and lanes instead of planning, verifying and
 * estimating again, so the iterations of a training job plan each collective once and keep
 * one copy of it (SetPlanCache, GetPlansBuilt).
 *
 * Groups: a collective may run on a subset of the NPUs (a job or process group; several at
 * once, disjoint or sharing links). A group other than all NPUs in rank order is planned
 * without the topology, so only the algorithms that need none (ring, ring-bidir, direct,
 * rhd, dbt) apply, and its cost estimate is 0 (unknown).
 *
 * The topology must outlive the helper and stay unmodified.
 */
class CollectiveHelper
{
  public:
    /// Routing modes.
    enum RoutingMode
    {
        PLANNED, //!< transfers take their planned links
        ECMP     //!< transfers are hashed by the switches
    };

    CollectiveHelper();
    ~CollectiveHelper();
    CollectiveHelper(const CollectiveHelper&) = delete;
    CollectiveHelper& operator=(const CollectiveHelper&) = delete;

    /**
     * \param name "planned" or "ecmp"
     * \return false (and nothing changed) for another name
     */
    bool SetRouting(const std::string& name);
    /** \param mode routing mode */
    void SetRoutingMode(RoutingMode mode);

    /** \return the routing mode */
    RoutingMode GetRoutingMode() const
    {
        return m_mode;
    }

    /** \param mode routing mode \return its name */
    static std::string GetRoutingName(RoutingMode mode);

    /** \param priority traffic class of collective data (default 3, the lossless class) */
    void SetPriority(uint8_t priority);
    /** \param verify run the schedule verifier on every plan (default true) */
    void SetVerify(bool verify);
    /**
     * \param cache share the plan of identical requests (default true); false plans every
     * collective anew and forgets the plans cached so far
     */
    void SetPlanCache(bool cache);

    /**
     * \param keep list every collective created in GetCollectives, which keeps it alive
     * (default true); false lets a collective go when its group is done with it, so that a
     * long run (a training job of many iterations) holds only the collectives in flight
     */
    void SetKeepCollectives(bool keep);

    /** \return plans built (planned, verified and estimated) so far; the rest came cached */
    uint64_t GetPlansBuilt() const
    {
        return m_plansBuilt;
    }

    /**
     * \param name attribute of ns3::CollectiveExecutor \param value value
     */
    void SetExecutorAttribute(std::string name, const AttributeValue& value);

    /**
     * Aggregate a CollectiveExecutor to every NPU of the fabric (after RoceHelper::Install of
     * the same topology).
     * \param topo the topology \param roce the helper that built its fabric
     */
    void Install(const tn_topology* topo, RoceHelper& roce);

    /**
     * Plan, verify and estimate a collective and register it with its group's executors;
     * it does not start (Start()).
     * \param request planning request (request.ranks is set from the group)
     * \param group topology NPU ranks of the group in group-rank order (empty: all NPUs)
     * \param error set to the reason when the collective cannot be created
     * \return the collective, or null with *error set
     */
    Ptr<Collective> Create(const tn_plan_request& request,
                           const std::vector<uint32_t>& group,
                           std::string* error);

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

    /** All-reduce on all NPUs (see Run). \return the collective */
    Ptr<Collective> AllReduce(uint64_t bytes,
                              const std::string& algorithm,
                              Collective::DoneCallback done = Collective::DoneCallback());
    /** Reduce-scatter on all NPUs (see Run). \return the collective */
    Ptr<Collective> ReduceScatter(uint64_t bytes,
                                  const std::string& algorithm,
                                  Collective::DoneCallback done = Collective::DoneCallback());
    /** All-gather on all NPUs (see Run). \return the collective */
    Ptr<Collective> AllGather(uint64_t bytes,
                              const std::string& algorithm,
                              Collective::DoneCallback done = Collective::DoneCallback());
    /** All-to-all on all NPUs (see Run). \return the collective */
    Ptr<Collective> AllToAll(uint64_t bytes,
                             const std::string& algorithm,
                             Collective::DoneCallback done = Collective::DoneCallback());
    /** Broadcast from root on all NPUs (see Run). \return the collective */
    Ptr<Collective> Broadcast(uint64_t bytes,
                              const std::string& algorithm,
                              uint32_t root,
                              Collective::DoneCallback done = Collective::DoneCallback());
    /** Reduce to root on all NPUs (see Run). \return the collective */
    Ptr<Collective> Reduce(uint64_t bytes,
                           const std::string& algorithm,
                           uint32_t root,
                           Collective::DoneCallback done = Collective::DoneCallback());

    /**
     * Scheduler of CreateScheduled / RunScheduled (chunk-phases at run time, see
     * ThemisCollective): "themis-scf" (default), "themis-fifo", or "fixed" (every chunk in
     * dim order 0..D-1, FIFO: the hierarchical baseline run by the same machinery).
     * \param name scheduler name
     * \return false (and nothing changed) for another name
     */
    bool SetScheduler(const std::string& name);

    /** \param name a scheduler name \return true for one SetScheduler accepts */
    static bool IsScheduler(const std::string& name);

    /** \return the scheduler name */
    std::string GetScheduler() const
    {
        return m_scheduler;
    }

    /**
     * Set up a collective scheduled at run time on all NPUs (all-reduce, reduce-scatter or
     * all-gather on a topology with dims): one sub-collective per chunk-phase and group
     * (ring on ring/torus dims, direct otherwise), created like Create() does. Uses
     * request.collective, bytes, chunks (0 = 64, the Themis default) and
     * themis.active_chunks_per_dim (0 = 1); policy and order come from SetScheduler.
     * \param request the request \param error set when it cannot be created
     * \return the collective (not started), or null with *error set
     */
    Ptr<ThemisCollective> CreateScheduled(const tn_plan_request& request, std::string* error);
    /**
     * CreateScheduled with another scheduler than SetScheduler's (the helper's stays).
     * \param request the request \param scheduler a name IsScheduler accepts
     * \param error set when it cannot be created \return the collective, or null
     */
    Ptr<ThemisCollective> CreateScheduled(const tn_plan_request& request,
                                          const std::string& scheduler,
                                          std::string* error);

    /**
     * Start a scheduled collective: each NPU starts its part after `delay`, in its own
     * node's context.
     * \param collective the collective \param delay from now
     */
    void Start(Ptr<ThemisCollective> collective, Time delay = Seconds(0));

    /**
     * Create (64 chunks, A = 4) and start now a scheduled collective; an error is fatal.
     * \param collective operation \param bytes S \param done completion callback
     * \return the collective
     */
    Ptr<ThemisCollective> RunScheduled(
        tn_collective collective,
        uint64_t bytes,
        ThemisCollective::DoneCallback done = ThemisCollective::DoneCallback());

    /**
     * \return every scheduled collective created, in creation order (keeps them alive); with
     * SetKeepCollectives(false) only those not ended
     */
    const std::vector<Ptr<ThemisCollective>>& GetScheduledCollectives() const
    {
        return m_scheduled;
    }

    /** \param rank NPU rank \return its executor */
    Ptr<CollectiveExecutor> GetExecutor(uint32_t rank) const;

    /** \return every collective created, in creation order (none if SetKeepCollectives(false)) */
    const std::vector<Ptr<Collective>>& GetCollectives() const
    {
        return m_collectives;
    }

    /** \return the routes of the installed topology (for cost estimates) */
    const tn_routes* GetRoutes() const
    {
        return m_routes;
    }

    /** \return flow routes installed on the fabric (planned mode) */
    uint64_t GetFlowRoutes() const
    {
        return m_flowRoutes;
    }

  private:
    /// What identical requests share: the schedule, its cost estimate and its lanes.
    struct Plan
    {
        Collective::SharedSchedule schedule; //!< finalized, verified when m_verify
        Time estimate;                       //!< cost model (0: unknown)
        std::vector<uint8_t> lanes;          //!< planned routing's lane of each transfer
    };

    /** \return the plan of request on ranks, cached or built now; null with *error set */
    std::shared_ptr<const Plan> GetPlan(const tn_plan_request& request,
                                        const std::vector<uint32_t>& ranks,
                                        const std::vector<uint32_t>& nodes,
                                        bool wholeTopology,
                                        std::string* error);

    /** Lanes and flow routes of a planned collective. \return false with *error set */
    bool AssignLanes(const tn_schedule* s,
                     const std::vector<uint32_t>& nodes,
                     bool wholeTopology,
                     std::vector<uint8_t>* lanes,
                     std::string* error);

    const tn_topology* m_topo{nullptr};
    RoceHelper* m_roce{nullptr};
    tn_routes* m_routes{nullptr};
    ObjectFactory m_executorFactory;
    std::vector<Ptr<CollectiveExecutor>> m_executors; //!< by NPU rank
    std::vector<Ptr<Collective>> m_collectives;
    std::vector<Ptr<ThemisCollective>> m_scheduled; //!< its NICs' traces point to them
    /// A scheduled collective ended: with SetKeepCollectives(false), let it go (scheduled).
    void ScheduledEnded(Ptr<const ThemisCollective> collective);
    void ForgetScheduled(uint32_t id);
    std::map<uint64_t, std::vector<std::vector<uint32_t>>> m_lanePaths; //!< (src, dst) -> paths
    RoutingMode m_mode{PLANNED};
    std::string m_scheduler{"themis-scf"};
    uint8_t m_priority{3};
    bool m_verify{true};
    bool m_cachePlans{true};
    bool m_keepCollectives{true};
    std::map<std::string, std::shared_ptr<const Plan>> m_plans; //!< by request (PlanKey)
    uint64_t m_plansBuilt{0};
    uint32_t m_nextId{1};
    uint64_t m_flowRoutes{0};
};

} // namespace ns3

#endif // COLLECTIVE_HELPER_H
