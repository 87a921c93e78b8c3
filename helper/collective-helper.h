/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_HELPER_H
#define COLLECTIVE_HELPER_H

#include "ns3/attribute.h"
#include "ns3/collective-executor.h"
#include "ns3/collective-service.h"
#include "ns3/collective.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RoceHelper;

/**
 * \ingroup training-net
 * \brief Installs the collective machinery on a RoCE fabric built by RoceHelper.
 *
 * \code
 *   RoceHelper roce;
 *   roce.Install(topo);
 *   CollectiveHelper collectives;
 *   collectives.SetRouting("planned");
 *   collectives.Install(topo, roce);
 *   Ptr<Collective> c = collectives.AllReduce(16 << 20, "multitree");
 *   Ptr<Collective> d = collectives.AllReduce(4 << 20, "auto"); // the cost model's best
 *   Simulator::Run();   // c->GetDuration(), c->GetEstimatedTime(), d->GetTuning()
 * \endcode
 *
 * Install() aggregates a CollectiveExecutor (attributes: SetExecutorAttribute) to every NPU
 * node and creates the fabric's CollectiveService (attributes: SetServiceAttribute, or the
 * setters below), which plans, verifies, estimates, routes and starts collectives at run
 * time (see CollectiveService for routing modes, the plan cache, groups and lifetimes).
 * GetService() returns it; the other methods forward to it, so that a program holds one
 * object. Setters called after Install change the installed service.
 *
 * The topology must outlive the service and stay unmodified.
 *
 * Ordinary ns-3 nodes: Install(NodeContainer) runs collectives across the hosts of an
 * existing study (PointToPointHelper, CsmaHelper, ... with InternetStackHelper and its own
 * routing). Each NPU gets an RdmaNic (SetNicAttribute) whose packets travel as RoCEv2 over
 * UDP port 4791 through the node's own devices (RoceUdpPort), with the NIC's go-back-N
 * reliability and its congestion control (DCQCN reacts where the devices' queue discs mark
 * ECN). The plan comes from the study's nodes and links (StudyTopology) or from a topology
 * spec the caller names that matches them; the helper owns that topology, so it must outlive
 * the collectives. Packets follow the study's routing, so the routing mode is "ecmp"
 * (SetRouting("planned") is refused after such an Install).
 * \code
 *   InternetStackHelper stack;
 *   stack.Install(nodes);                  // ... links, addresses, routing of the study
 *   CollectiveHelper collectives;
 *   std::string error;
 *   if (!collectives.Install(hosts, &error)) { ... error ... }
 *   Ptr<Collective> c = collectives.AllReduce(1 << 20, "ring");
 * \endcode
 */
class CollectiveHelper
{
  public:
    /// Routing modes (CollectiveService::RoutingMode).
    typedef CollectiveService::RoutingMode RoutingMode;
    /// transfers take their planned links
    static constexpr RoutingMode PLANNED = CollectiveService::PLANNED;
    /// transfers are hashed by the switches
    static constexpr RoutingMode ECMP = CollectiveService::ECMP;

    CollectiveHelper();
    ~CollectiveHelper();
    CollectiveHelper(const CollectiveHelper&) = delete;
    CollectiveHelper& operator=(const CollectiveHelper&) = delete;

    /**
     * \param name attribute of ns3::CollectiveService \param value value
     */
    void SetServiceAttribute(std::string name, const AttributeValue& value);
    /**
     * \param name attribute of ns3::CollectiveExecutor \param value value
     */
    void SetExecutorAttribute(std::string name, const AttributeValue& value);

    /**
     * Aggregate a CollectiveExecutor to every NPU of the fabric (after RoceHelper::Install of
     * the same topology) and create the fabric's CollectiveService.
     * \param topo the topology \param roce the helper that built its fabric
     * \return the service
     */
    Ptr<CollectiveService> Install(const tn_topology* topo, RoceHelper& roce);

    /**
     * Run collectives on ordinary ns-3 nodes (see the class description): reads the study's
     * topology from the nodes and their links, gives every NPU an RdmaNic on a RoceUdpPort
     * and a CollectiveExecutor, and creates the service. The NICs' Mtu is lowered, if need
     * be, to the largest RoCE path MTU (a power of two, 256 .. 4096) whose packets fit the
     * NPUs' device MTU.
     * \param npus NPU nodes in rank order; they must have the internet stack and addresses
     * \param error set to the reason when nothing could be installed: a node without the
     *        internet stack or an IPv4 address, a study whose links cannot be read
     * \return false with *error set (nothing installed)
     */
    bool Install(const NodeContainer& npus, std::string* error);
    /**
     * Install(npus, error) with the topology the plans use named by a spec (tn_topology
     * spec, e.g. "switch:8,rate=10Gbps,latency=2us"); it must have as many NPUs as `npus`
     * and, where the study can be read, as many nodes and links.
     * \param npus NPU nodes in rank order \param spec topology spec
     * \param error set to the reason \return false with *error set (nothing installed)
     */
    bool Install(const NodeContainer& npus, const std::string& spec, std::string* error);

    /**
     * \param name attribute of ns3::RdmaNic for the NICs Install(NodeContainer) creates
     * \param value value
     */
    void SetNicAttribute(std::string name, const AttributeValue& value);

    /** \return the service Install created (null before) */
    Ptr<CollectiveService> GetService() const
    {
        return m_service;
    }

    /**
     * \param name "planned" or "ecmp"
     * \return false (and nothing changed) for another name
     */
    bool SetRouting(const std::string& name);
    /** \param mode routing mode */
    void SetRoutingMode(RoutingMode mode);
    /** \return the routing mode */
    RoutingMode GetRoutingMode() const;
    /** \param mode routing mode \return its name */
    static std::string GetRoutingName(RoutingMode mode);
    /** \param priority traffic class of collective data (default 3, the lossless class) */
    void SetPriority(uint8_t priority);
    /** \param verify run the schedule verifier on every plan (default true) */
    void SetVerify(bool verify);
    /** \param cache CollectiveService attribute PlanCache */
    void SetPlanCache(bool cache);
    /** \param keep CollectiveService attribute KeepCollectives */
    void SetKeepCollectives(bool keep);
    /**
     * \param name scheduler of CreateScheduled / RunScheduled (CollectiveService::SetScheduler)
     * \return false (and nothing changed) for another name
     */
    bool SetScheduler(const std::string& name);
    /** \param name a scheduler name \return true for one SetScheduler accepts */
    static bool IsScheduler(const std::string& name);
    /** \return the scheduler name */
    std::string GetScheduler() const;

    /** CollectiveService::Create. */
    Ptr<Collective> Create(const tn_plan_request& request,
                           const std::vector<uint32_t>& group,
                           std::string* error);
    /** CollectiveService::Start. */
    void Start(Ptr<Collective> collective, Time delay = Seconds(0));
    /** CollectiveService::Run. */
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

    /** CollectiveService::CreateScheduled with the scheduler of SetScheduler. */
    Ptr<ThemisCollective> CreateScheduled(const tn_plan_request& request, std::string* error);
    /** CollectiveService::CreateScheduled (the helper's scheduler stays). */
    Ptr<ThemisCollective> CreateScheduled(const tn_plan_request& request,
                                          const std::string& scheduler,
                                          std::string* error);
    /** CollectiveService::Start. */
    void Start(Ptr<ThemisCollective> collective, Time delay = Seconds(0));
    /** CollectiveService::RunScheduled. */
    Ptr<ThemisCollective> RunScheduled(
        tn_collective collective,
        uint64_t bytes,
        ThemisCollective::DoneCallback done = ThemisCollective::DoneCallback());

    /** \return CollectiveService::GetScheduledCollectives (none before Install) */
    const std::vector<Ptr<ThemisCollective>>& GetScheduledCollectives() const;
    /** \param rank NPU rank \return its executor */
    Ptr<CollectiveExecutor> GetExecutor(uint32_t rank) const;
    /** \return CollectiveService::GetCollectives (none before Install) */
    const std::vector<Ptr<Collective>>& GetCollectives() const;
    /** \return CollectiveService::GetPlansBuilt (0 before Install) */
    uint64_t GetPlansBuilt() const;
    /** \return CollectiveService::GetRoutes (null before Install) */
    const tn_routes* GetRoutes() const;
    /** \return CollectiveService::GetFlowRoutes (0 before Install) */
    uint64_t GetFlowRoutes() const;

  private:
    /** \return the installed service; aborts before Install */
    Ptr<CollectiveService> Installed() const;
    /** Set a service attribute on the factory and, once installed, on the service. */
    void SetService(const std::string& name, const AttributeValue& value);

    ObjectFactory m_serviceFactory;
    ObjectFactory m_executorFactory;
    Ptr<CollectiveService> m_service;
    ObjectFactory m_nicFactory;        //!< NICs of Install(NodeContainer)
    tn_topology* m_studyTopo{nullptr}; //!< owned: read from ordinary nodes or named
};

} // namespace ns3

#endif // COLLECTIVE_HELPER_H
