/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fluid network of flow-level mode: links shared max-min fairly by the flows crossing them.
 */
#ifndef FLOW_NETWORK_H
#define FLOW_NETWORK_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/port-counters.h"
#include "ns3/roce-fabric.h"
#include "ns3/tn-fluid.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-symmetry.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FlowNic;

/**
 * \ingroup training-net
 * \brief The links of a topology carrying fluid flows (flow-level mode).
 *
 * Each directed link of the topology is a capacity (its rate) shared max-min fairly by the
 * flows whose path crosses it: the fluid engine of the C core (tn-fluid.h, which the cost
 * model runs on too). A flow is a number of bits on a path; it holds every link of its path
 * at once at its fair rate and ends when its bits have crossed. Rates change only when a flow
 * starts or ends, and only for the flows connected to it through shared links. All starts
 * and ends of one instant are handled before the rates are recomputed once (one
 * tn_fluid_update), so flows that start together on links nobody else uses cost one
 * recomputation of their own links each and end in one event.
 *
 * Paths follow the switches' forwarding rule (RoceForwarding::NextHop): a flow route
 * (SetFlowRoute) if one matches, else the node's only port, else the ECMP next hops of
 * tn_routes toward the destination (port order) picked by RoceForwarding::EcmpHash of (source
 * address, destination address, UDP source port, RoCEv2 port) with EcmpSeed: the same path a
 * packet of that queue pair takes.
 *
 * No packets, no buffers, no PFC and no congestion control: queues never build, so a flow's
 * time is its bits at its fair rate plus what its user adds (FlowNic: latency, store and
 * forward of the last packet).
 *
 * As a RoceFabric it is the flow level: mode flow, or flow-symmetric with Symmetric.
 *
 * As a PortActivity its keys are the links flows run on (a flow-symmetric network's
 * representatives): a link moved since a watcher's last question if it held a flow then or
 * a flow started on it since; the others carried nothing (a port sampler skips them).
 */
class FlowNetwork : public RoceFabric, public PortActivity
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// What is told when a flow's bits have crossed.
    class Listener
    {
      public:
        virtual ~Listener() = default;
        /** \param token the token given to Start */
        virtual void FlowEnded(uint64_t token) = 0;
    };

    FlowNetwork();
    ~FlowNetwork() override;

    /**
     * Take the links of a topology (copied: the topology is only read during the call) and
     * compute its routes. Call once, before any flow.
     * \param topo the topology
     */
    void Build(const tn_topology* topo);

    /** \return directed links */
    uint32_t GetNLinks() const
    {
        return m_nLinks;
    }

    /** \param link directed link id \return its rate, bit/s */
    uint64_t GetLinkRate(uint32_t link) const;
    /** \param link directed link id \return its latency */
    uint64_t GetLinkLatencyNs(uint32_t link) const;

    /**
     * The translations a topology has with a period, built and checked: what mode
     * flow-symmetric needs, the one place that builds them (Build, RoceHelper::Check).
     * \param topo the topology (must outlive the result)
     * \param period SymmetricPeriod
     * \param out set to the translations (the caller destroys them) or null
     * \return "" or why the topology has none with that period
     */
    static std::string MakeSymmetry(const tn_topology* topo, uint32_t period, tn_symmetry** out);

    Mode GetMode() const override;
    Ptr<RdmaTransport> GetTransport(uint32_t node) const override;

    /** \return the topology copy (valid while this object lives) */
    const tn_topology* GetTopology() const override
    {
        return m_topo;
    }

    /** \return the translations of a symmetric network (Symmetric), else null */
    const tn_symmetry* GetSymmetry() const override
    {
        return m_symmetry;
    }

    /**
     * \param npu an NPU node \return the node of its representative in a symmetric network:
     * the NPU of its rank modulo SymmetricPeriod, which sends for it (NPU 0 by default)
     */
    uint32_t GetRepresentative(uint32_t npu) const;

    /**
     * \param node a node \param from an NPU node
     * \return the image of node under the translation that takes from to its representative
     * (Symmetric)
     */
    uint32_t MoveToRepresentative(uint32_t node, uint32_t from) const;

    /**
     * \return the routes to every NPU over the topology copy (valid while this object
     * lives): CollectiveService shares them rather than building a second table of NPUs x
     * nodes (256 MiB on a 16,384-NPU torus)
     */
    const tn_routes* GetRoutes() const override
    {
        return m_routes;
    }

    /**
     * \param link directed link id
     * \return bytes that crossed it so far (the integral of its flows' rates)
     */
    double GetLinkTxBytes(uint32_t link) const;

    /**
     * \param link directed link id
     * \return now while a flow crosses it, else when its last flow left it; -1 ns when no
     * flow ever did
     */
    Time GetLinkDataTime(uint32_t link) const;

    /**
     * GetLinkTxBytes and GetLinkDataTime at one reading of the clock (a port sampler's read)
     * \param link directed link id \param bytes set to its bytes so far
     * \param dataAtNs set to GetLinkDataTime in ns
     */
    void GetLinkCounters(uint32_t link, double* bytes, int64_t* dataAtNs) const;

    /**
     * \param link directed link id
     * \return the link whose flows it carries: its orbit's representative on a symmetric
     * network, else itself (the key of its port as a PortActivity)
     */
    uint32_t GetCarrierLink(uint32_t link) const
    {
        return m_symmetry ? tn_symmetry_canonical_link(m_symmetry, link) : link;
    }

    // PortActivity: the keys are links (GetCarrierLink)
    uint32_t WatchPorts() override;
    void TakeMovedPorts(uint32_t watcher, std::vector<uint32_t>* moved) override;
    void UnwatchPorts(uint32_t watcher) override;

    /** \return the PortActivity watchers following the links now */
    uint32_t GetNPortWatchers() const;

    /** \param node a node \return the summed rate of its out-links, bit/s */
    uint64_t GetNodeLineRate(uint32_t node) const;

    /**
     * Pin a flow to an out-link of a node, before the ECMP choice (as RoceSwitch::SetFlowRoute).
     * \param node the node \param src source node \param dst destination node
     * \param sport UDP source port \param priority priority \param port out port of node
     */
    void SetFlowRoute(uint32_t node,
                      uint32_t src,
                      uint32_t dst,
                      uint16_t sport,
                      uint8_t priority,
                      uint32_t port) override;

    /**
     * The path of a queue pair (computed once, then cached).
     * \param src source node \param dst destination node
     * \param sport UDP source port \param priority priority
     * \return a path id for Start and GetPath
     */
    uint32_t GetPathId(uint32_t src, uint32_t dst, uint16_t sport, uint8_t priority);

    /// A path's directed links in order: a view into the network's list of every path's
    /// links, valid until the next GetPathId.
    struct PathLinks
    {
        const uint32_t* links; //!< the first
        uint32_t count;        //!< how many

        const uint32_t* begin() const
        {
            return links;
        }

        const uint32_t* end() const
        {
            return links + count;
        }

        size_t size() const
        {
            return count;
        }

        uint32_t operator[](size_t k) const
        {
            return links[k];
        }
    };

    /** \param path path id \return its directed links in order */
    PathLinks GetPath(uint32_t path) const
    {
        const uint32_t first = m_pathBegin[path];
        return PathLinks{m_pathLinks.data() + first, m_pathBegin[path + 1] - first};
    }

    /**
     * \param node topology node id \param nic the FlowNic of that node (FlowNic::Attach)
     */
    void SetNic(uint32_t node, FlowNic* nic);

    /** \param node topology node id \return its FlowNic, or null */
    FlowNic* GetNic(uint32_t node) const
    {
        return node < m_nics.size() ? m_nics[node] : nullptr;
    }

    /**
     * Start a flow now.
     * \param path path id (non-empty) \param bits bits to carry (> 0)
     * \param listener told when it ends \param token given back to the listener
     */
    void Start(uint32_t path, double bits, Listener* listener, uint64_t token);

    /** \return flows now crossing the network */
    uint64_t GetActiveFlows() const
    {
        return tn_fluid_active(m_fluid);
    }

    /** \return flows started */
    uint64_t GetStartedFlows() const
    {
        return m_started;
    }

    /** \return rate recomputations done */
    uint64_t GetRecomputations() const
    {
        return tn_fluid_updates(m_fluid);
    }

    /** \return flows whose rate was recomputed, summed over all recomputations */
    uint64_t GetFlowsVisited() const
    {
        return tn_fluid_visited(m_fluid);
    }

    /**
     * \param token the token of an active flow
     * \return its current rate, bit/s, or -1 if no active flow has that token
     */
    double GetFlowRate(uint64_t token) const;

    /**
     * Count what the flows of a group of source nodes carry over each link (several jobs on
     * one fabric: the bytes each job sent through a port). A flow counts for the group of the
     * node its first link leaves, with all its bits on every link of its path, when it ends.
     * Not on a symmetric network (a representative's flow stands for others').
     * \param node topology node id \param group its group (>= 1; 0: none, the default)
     */
    void SetNodeGroup(uint32_t node, uint32_t group);

    /** \return the wire bits of the ended flows of each (group, link) (SetNodeGroup) */
    const std::map<std::pair<uint32_t, uint32_t>, double>& GetGroupLinkBits() const
    {
        return m_groupLinkBits;
    }

  protected:
    void DoDispose() override;

  private:
    /// A flow of the engine (its tag is its index in m_flows) and whom to tell at its end.
    struct Flow
    {
        uint32_t id;        //!< engine flow id
        Listener* listener; //!< told at its end; null once ended
        uint64_t token;     //!< for the listener
        uint32_t path;      //!< path id
        double bits;        //!< bits it carries
    };

    double NowNs() const;
    /// Add an ended flow's bits to its source's group on every link of its path.
    void CountGroupBits(const Flow& flow);
    void RequestRecompute();
    void Process();
    void ArmTimer();
    uint32_t NextLink(uint32_t node, uint32_t src, uint32_t dst, uint16_t sport, uint8_t priority);

    tn_topology* m_topo{nullptr};
    tn_routes* m_routes{nullptr};
    tn_symmetry* m_symmetry{nullptr}; //!< Symmetric: the translations
    bool m_stepIsNs{false};           //!< Build saw Time's resolution at ns (NowNs)
    bool m_symmetric{false};
    uint32_t m_period{1};                      //!< SymmetricPeriod
    tn_route_order m_order{TN_ROUTE_SHORTEST}; //!< RouteOrder
    uint32_t m_seed{0};
    Time m_endWindow;           //!< EndWindow
    tn_fluid* m_fluid{nullptr}; //!< the links' sharing
    uint32_t m_nLinks{0};
    std::vector<FlowNic*> m_nics; //!< by node id
    // every path's links in one array, path p's from m_pathBegin[p] to m_pathBegin[p + 1]: a
    // flow's start reads 4 bytes and the links, not a vector's 24 bytes and its own allocation
    // (two misses a flow at 16,384 NPUs)
    std::vector<uint32_t> m_pathLinks;
    std::vector<uint32_t> m_pathBegin{0};
    std::unordered_map<uint64_t, uint32_t> m_pathIndex; //!< queue pair -> path
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint16_t, uint8_t>, uint32_t>
        m_flowRoutes;             //!< (node, src, dst, sport, priority) -> out port
    std::vector<uint32_t> m_hops; //!< scratch

    /// A PortActivity watcher: the links moved since its last question, each once.
    struct LinkWatch
    {
        std::vector<uint32_t> moved; //!< links
        std::vector<uint8_t> listed; //!< listed[link]: in moved
        bool active{false};          //!< between WatchPorts and UnwatchPorts
    };

    std::vector<LinkWatch> m_watches; //!< WatchPorts
    std::vector<Flow> m_flows;
    std::vector<uint32_t> m_freeFlows;
    /// Process's flows ended at this instant, kept between calls (one malloc less per instant)
    std::vector<std::pair<Listener*, uint64_t>> m_told;
    std::vector<uint32_t> m_nodeGroup;                               //!< SetNodeGroup, by node
    std::map<std::pair<uint32_t, uint32_t>, double> m_groupLinkBits; //!< (group, link) -> bits
    EventId m_timer;
    double m_timerAt{-1};
    bool m_recomputePending{false};
    bool m_processing{false};
    uint64_t m_started{0};
};

} // namespace ns3

#endif // FLOW_NETWORK_H
