/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-network.h"

#include "flow-nic.h"
#include "roce-event-buckets.h"
#include "roce-forwarding.h"
#include "roce-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tn-shape.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowNetwork")
            .SetParent<RoceFabric>()
            .SetGroupName("TrainingNet")
            .AddConstructor<FlowNetwork>()
            .AddAttribute("EcmpSeed",
                          "Seed of the ECMP hash (as ns3::RoceSwitch::EcmpSeed: the same "
                          "value gives the same paths as the packet-level switches).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlowNetwork::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "Symmetric",
                "Simulate one NPU for all: every flow started stands for itself and "
                "its translates by every translation of the NPU coordinates (tn-symmetry), "
                "so a link carries the flows of the representative of its orbit and "
                "deliveries go to NPU 0 (doc/scale.rst, \"Ranks aggregated\"). Only NPU "
                "0 may send; the topology's translations must be automorphisms and every "
                "path unique.",
                BooleanValue(false),
                MakeBooleanAccessor(&FlowNetwork::m_symmetric),
                MakeBooleanChecker())
            .AddAttribute(
                "SymmetricPeriod",
                "With Symmetric: the NPUs of rank below it send, each standing for the NPUs "
                "of its rank modulo the period (one data-parallel replica for the others); "
                "1: NPU 0 for all. A product of the first dims' sizes and a divisor of the "
                "next (tn_symmetry_set_period).",
                UintegerValue(1),
                MakeUintegerAccessor(&FlowNetwork::m_period),
                MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RouteOrder",
                          "Which shortest paths flows take (as RoceHelper::SetRouting): "
                          "shortest: any, by ECMP hash; dimension-order: those that correct "
                          "dim 0 first, then dim 1, ... (tn_routes_options.order).",
                          EnumValue(TN_ROUTE_SHORTEST),
                          MakeEnumAccessor(&FlowNetwork::m_order),
                          MakeEnumChecker(TN_ROUTE_SHORTEST,
                                          "shortest",
                                          TN_ROUTE_DIMENSION_ORDER,
                                          "dimension-order"))
            .AddAttribute(
                "EndWindow",
                "An approximation, off by default (0: exact): the flows that end within this "
                "time of the first end of an instant end with it, in one recomputation of the "
                "rates. Where a million flows end one instant at a time (a direct phase on a "
                "fat-tree) each end recomputes the flows left; a window of 1 us makes their "
                "tail one recomputation per window. A flow ended early is delivered early by "
                "at most the window and frees its links early (its bits are counted then), so "
                "times are at most the window per dependent flow shorter than exact "
                "(doc/core-schedule.rst measures it).",
                TimeValue(Seconds(0)),
                MakeTimeAccessor(&FlowNetwork::m_endWindow),
                MakeTimeChecker(Seconds(0)));
    return tid;
}

FlowNetwork::FlowNetwork() = default;

std::string
FlowNetwork::MakeSymmetry(const tn_topology* topo, uint32_t period, tn_symmetry** out)
{
    *out = nullptr;
    tn_error err;
    if (tn_symmetry_create(topo, out, &err) != TN_OK)
    {
        return err.message;
    }
    if (tn_symmetry_set_period(*out, period, &err) != TN_OK)
    {
        tn_symmetry_destroy(*out);
        *out = nullptr;
        return err.message;
    }
    return "";
}

RoceFabric::Mode
FlowNetwork::GetMode() const
{
    return m_symmetric ? FLOW_SYMMETRIC : FLOW;
}

Ptr<RdmaTransport>
FlowNetwork::GetTransport(uint32_t node) const
{
    return Ptr<RdmaTransport>(GetNic(node));
}

FlowNetwork::~FlowNetwork()
{
    tn_fluid_destroy(m_fluid);
    tn_symmetry_destroy(m_symmetry);
    tn_routes_destroy(m_routes);
    tn_topology_destroy(m_topo);
}

void
FlowNetwork::DoDispose()
{
    m_timer.Cancel();
    m_flows.clear();
    m_nics.clear();
    RoceFabric::DoDispose();
}

void
FlowNetwork::Build(const tn_topology* topo)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_topo, "FlowNetwork::Build: called twice");
    m_stepIsNs = Time::GetResolution() == Time::NS;
    tn_error err{};
    // the routes keep a pointer to their topology, which may go before this network
    // internal invariant: only allocation can fail here: a copy of a validated topology
    NS_ABORT_MSG_IF(tn_topology_copy(topo, &m_topo, &err) != TN_OK, "FlowNetwork: " << err.message);
    const uint32_t links = tn_topology_link_count(topo);
    if (m_symmetric)
    {
        const std::string why = MakeSymmetry(m_topo, m_period, &m_symmetry);
        // internal invariant: RoceHelper::Check refuses mode flow-symmetric on a topology
        // without these translations, whatever the period was given by
        NS_ABORT_MSG_IF(!why.empty(),
                        "FlowNetwork::Symmetric: topology " << tn_topology_name(topo) << ": "
                                                            << why);
    }
    // internal invariant: only allocation can fail here: routes of a validated, connected topology
    tn_routes_options routeOptions{};
    routeOptions.order = m_order;
    NS_ABORT_MSG_IF(tn_routes_create(m_topo, &routeOptions, &m_routes, &err) != TN_OK,
                    "FlowNetwork: routes: " << err.message);
    std::vector<double> cap(links);
    for (uint32_t l = 0; l < links; ++l)
    {
        cap[l] = static_cast<double>(tn_topology_link(m_topo, l)->rate_bps) / 1e9; // bit/ns
    }
    // internal invariant: only allocation can fail here: a validated topology's rates are > 0
    NS_ABORT_MSG_IF(tn_fluid_create(links, cap.data(), &m_fluid, &err) != TN_OK,
                    "FlowNetwork: " << err.message);
    m_nLinks = links;
    uint32_t maxDegree = 1;
    for (uint32_t v = 0; v < tn_topology_node_count(m_topo); ++v)
    {
        maxDegree = std::max(maxDegree, tn_topology_degree(m_topo, v));
    }
    m_hops.resize(maxDegree);
    // the events of a flow-level run in buckets of equal time, not ns-3's default map
    RoceEventBuckets::Use();
}

void
FlowNetwork::SetNic(uint32_t node, FlowNic* nic)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!m_topo || node >= tn_topology_node_count(m_topo),
                    "FlowNetwork::SetNic: no node " << node << " (Build first)");
    m_nics.resize(tn_topology_node_count(m_topo), nullptr);
    m_nics[node] = nic;
}

uint64_t
FlowNetwork::GetLinkRate(uint32_t link) const
{
    return tn_topology_link(m_topo, link)->rate_bps;
}

uint64_t
FlowNetwork::GetLinkLatencyNs(uint32_t link) const
{
    return tn_topology_link(m_topo, link)->latency_ns;
}

uint64_t
FlowNetwork::GetNodeLineRate(uint32_t node) const
{
    uint32_t count = 0;
    const uint32_t* out = tn_topology_out_links(m_topo, node, &count);
    uint64_t rate = 0;
    for (uint32_t i = 0; i < count; ++i)
    {
        rate += tn_topology_link(m_topo, out[i])->rate_bps;
    }
    return rate;
}

double
FlowNetwork::NowNs() const
{
    // at the default resolution a time step is a ns: no unit conversion (NowNs is called
    // several times per transfer, and per sampled port)
    const Time now = Simulator::Now();
    return static_cast<double>(m_stepIsNs ? now.GetTimeStep() : now.GetNanoSeconds());
}

uint32_t
FlowNetwork::GetRepresentative(uint32_t npu) const
{
    NS_ASSERT(m_symmetry);
    const uint32_t rank = tn_topology_node_rank(m_topo, npu);
    return tn_topology_npu_node(m_topo, rank % tn_symmetry_period(m_symmetry));
}

uint32_t
FlowNetwork::MoveToRepresentative(uint32_t node, uint32_t from) const
{
    NS_ASSERT(m_symmetry);
    const uint32_t rank = tn_topology_node_rank(m_topo, from);
    const uint32_t g =
        tn_symmetry_translation(m_symmetry, rank, rank % tn_symmetry_period(m_symmetry));
    return tn_symmetry_node_image(m_symmetry, g, node);
}

double
FlowNetwork::GetLinkTxBytes(uint32_t link) const
{
    // every link of an orbit carries what its representative carries
    return tn_fluid_link_bits(m_fluid, GetCarrierLink(link), NowNs()) / 8.0;
}

Time
FlowNetwork::GetLinkDataTime(uint32_t link) const
{
    const double ns = tn_fluid_link_active_at(m_fluid, GetCarrierLink(link), NowNs());
    return NanoSeconds(ns < 0 ? -1 : static_cast<int64_t>(ns));
}

void
FlowNetwork::GetLinkCounters(uint32_t link, double* bytes, int64_t* dataAtNs) const
{
    const uint32_t l = GetCarrierLink(link);
    const double now = NowNs();
    *bytes = tn_fluid_link_bits(m_fluid, l, now) / 8.0;
    const double ns = tn_fluid_link_active_at(m_fluid, l, now);
    *dataAtNs = ns < 0 ? -1 : static_cast<int64_t>(ns);
}

uint32_t
FlowNetwork::WatchPorts()
{
    // an unwatched slot is given again: a recorder watching anew leaves no dead lists behind
    uint32_t id = 0;
    while (id < m_watches.size() && m_watches[id].active)
    {
        ++id;
    }
    if (id == m_watches.size())
    {
        m_watches.emplace_back();
    }
    LinkWatch& w = m_watches[id];
    w.active = true;
    w.moved.clear();
    w.listed.assign(m_nLinks, 0);
    for (uint32_t l = 0; l < m_nLinks; ++l)
    {
        if (tn_fluid_link_flows(m_fluid, l) > 0)
        {
            w.listed[l] = 1;
            w.moved.push_back(l);
        }
    }
    return id;
}

void
FlowNetwork::UnwatchPorts(uint32_t watcher)
{
    if (watcher < m_watches.size() && m_watches[watcher].active)
    {
        LinkWatch& w = m_watches[watcher];
        w.active = false;
        std::vector<uint32_t>().swap(w.moved);
        std::vector<uint8_t>().swap(w.listed);
    }
}

uint32_t
FlowNetwork::GetNPortWatchers() const
{
    return static_cast<uint32_t>(std::count_if(m_watches.begin(),
                                               m_watches.end(),
                                               [](const LinkWatch& w) { return w.active; }));
}

void
FlowNetwork::TakeMovedPorts(uint32_t watcher, std::vector<uint32_t>* moved)
{
    // internal invariant: an id WatchPorts gave, not unwatched since
    NS_ASSERT(watcher < m_watches.size() && m_watches[watcher].active);
    LinkWatch& w = m_watches[watcher];
    moved->swap(w.moved);
    w.moved.clear();
    for (uint32_t l : *moved)
    {
        w.listed[l] = 0;
    }
    // a link still holding a flow moves on until the next question
    for (uint32_t l : *moved)
    {
        if (tn_fluid_link_flows(m_fluid, l) > 0)
        {
            w.listed[l] = 1;
            w.moved.push_back(l);
        }
    }
}

void
FlowNetwork::SetFlowRoute(uint32_t node,
                          uint32_t src,
                          uint32_t dst,
                          uint16_t sport,
                          uint8_t priority,
                          uint32_t port)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(port >= tn_topology_degree(m_topo, node),
                    "FlowNetwork::SetFlowRoute: node " << node << " has no port " << port);
    m_flowRoutes[std::make_tuple(node, src, dst, sport, priority)] = port;
}

uint32_t
FlowNetwork::NextLink(uint32_t node, uint32_t src, uint32_t dst, uint16_t sport, uint8_t priority)
{
    uint32_t count = 0;
    const uint32_t* out = tn_topology_out_links(m_topo, node, &count);
    uint32_t pinned = RoceForwarding::NONE;
    if (!m_flowRoutes.empty())
    {
        // internal invariant: CollectiveService sets no flow routes on a symmetric network (it
        // routes NPU 0's flows by their unique shortest paths there, see its IsSymmetric)
        NS_ABORT_MSG_IF(m_symmetric,
                        "FlowNetwork::Symmetric: flow routes (planned routing) need not be "
                        "translates of each other; use ECMP routing on a topology with unique "
                        "shortest paths");
        auto it = m_flowRoutes.find(std::make_tuple(node, src, dst, sport, priority));
        if (it != m_flowRoutes.end())
        {
            pinned = out[it->second];
        }
    }
    const uint32_t only = count == 1 ? out[0] : RoceForwarding::NONE;
    uint32_t c = 0;
    if (pinned == RoceForwarding::NONE && only == RoceForwarding::NONE)
    {
        c = tn_routes_next_hops(m_routes, node, dst, m_hops.data(), m_hops.size());
        // internal invariant: CollectiveService::CheckSymmetric refuses a collective with a path
        // of several shortest next hops before it runs
        NS_ABORT_MSG_IF(m_symmetric && c > 1,
                        "FlowNetwork::Symmetric: node "
                            << node << " has " << c << " shortest next hops toward node " << dst
                            << ": the ECMP hash does not choose translated paths for translated "
                               "flows");
    }
    const uint32_t link = RoceForwarding::NextHop(pinned,
                                                  only,
                                                  m_hops.data(),
                                                  c,
                                                  m_seed,
                                                  RoceAddress::FromNodeId(src).Get(),
                                                  RoceAddress::FromNodeId(dst).Get(),
                                                  sport,
                                                  RoceIpUdpHeader::ROCE_UDP_PORT);
    // internal invariant: validated topologies are connected
    NS_ABORT_MSG_IF(link == RoceForwarding::NONE,
                    "FlowNetwork: no route from node " << node << " to node " << dst);
    return link;
}

uint32_t
FlowNetwork::GetPathId(uint32_t src, uint32_t dst, uint16_t sport, uint8_t priority)
{
    const uint64_t key =
        (uint64_t(src) << 35) | (uint64_t(dst) << 19) | (uint64_t(sport) << 3) | (priority & 7);
    auto it = m_pathIndex.find(key);
    if (it != m_pathIndex.end())
    {
        return it->second;
    }
    std::vector<uint32_t> path;
    uint32_t v = src;
    const uint32_t nodes = tn_topology_node_count(m_topo);
    while (v != dst)
    {
        // internal invariant: routes of a validated topology have no loop
        NS_ABORT_MSG_IF(path.size() > nodes,
                        "FlowNetwork: the path from node " << src << " to node " << dst
                                                           << " loops (flow routes?)");
        const uint32_t l = NextLink(v, src, dst, sport, priority);
        path.push_back(l);
        v = tn_topology_link(m_topo, l)->dst;
    }
    if (m_symmetric)
    {
        // internal invariant: on a symmetric network only the representatives' executors are
        // started (CollectiveService, TrainingJob, ChakraRunner)
        NS_ABORT_MSG_IF(src != GetRepresentative(src),
                        "FlowNetwork::Symmetric: node " << src << " sends; only its representative"
                                                        << " (node " << GetRepresentative(src)
                                                        << ") may");
        // the flows of an orbit put as many flows on a link of orbit o as the path has links
        // in o: a representative listed twice counts twice when the links are shared
        for (uint32_t& l : path)
        {
            l = tn_symmetry_canonical_link(m_symmetry, l);
        }
    }
    const uint32_t id = static_cast<uint32_t>(m_pathBegin.size() - 1);
    m_pathLinks.insert(m_pathLinks.end(), path.begin(), path.end());
    m_pathBegin.push_back(static_cast<uint32_t>(m_pathLinks.size()));
    m_pathIndex.emplace(key, id);
    return id;
}

void
FlowNetwork::Start(uint32_t path, double bits, Listener* listener, uint64_t token)
{
    const PathLinks links = GetPath(path);
    NS_ASSERT(links.count > 0 && bits > 0);
    uint32_t f;
    if (m_freeFlows.empty())
    {
        f = static_cast<uint32_t>(m_flows.size());
        m_flows.emplace_back();
    }
    else
    {
        f = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    tn_error err{};
    uint32_t id = 0;
    // f is the tag: flows ending at one instant end in the order of their slots
    // internal invariant: only allocation can fail here: paths are non-empty lists of the
    // topology's links and bits > 0 (asserted above)
    NS_ABORT_MSG_IF(
        tn_fluid_start(m_fluid, links.links, links.count, bits, NowNs(), f, &id, &err) != TN_OK,
        "FlowNetwork: " << err.message);
    m_flows[f] = Flow{id, listener, token, path, bits};
    for (LinkWatch& w : m_watches)
    {
        if (!w.active)
        {
            continue;
        }
        for (uint32_t l : links)
        {
            if (!w.listed[l])
            {
                w.listed[l] = 1;
                w.moved.push_back(l);
            }
        }
    }
    ++m_started;
    RequestRecompute();
}

double
FlowNetwork::GetFlowRate(uint64_t token) const
{
    for (const Flow& flow : m_flows)
    {
        if (flow.listener && flow.token == token)
        {
            return tn_fluid_rate(m_fluid, flow.id) * 1e9;
        }
    }
    return -1;
}

void
FlowNetwork::SetNodeGroup(uint32_t node, uint32_t group)
{
    // internal invariant: node ids of the topology the network was built on
    NS_ABORT_MSG_IF(node >= tn_topology_node_count(m_topo),
                    "FlowNetwork::SetNodeGroup: no node " << node);
    m_nodeGroup.resize(tn_topology_node_count(m_topo), 0);
    m_nodeGroup[node] = group;
}

void
FlowNetwork::CountGroupBits(const Flow& flow)
{
    if (m_nodeGroup.empty())
    {
        return;
    }
    const PathLinks path = GetPath(flow.path);
    const uint32_t group = m_nodeGroup[tn_topology_link(m_topo, path[0])->src];
    for (uint32_t link : path)
    {
        if (group)
        {
            m_groupLinkBits[std::make_pair(group, link)] += flow.bits;
        }
    }
}

void
FlowNetwork::RequestRecompute()
{
    if (m_recomputePending || m_processing)
    {
        return;
    }
    m_recomputePending = true;
    Simulator::ScheduleNow(&FlowNetwork::Process, this);
}

void
FlowNetwork::Process()
{
    m_recomputePending = false;
    m_processing = true;
    const double now = NowNs();
    // every flow whose bits have crossed by now (finish times are rounded up to the ns); they
    // leave their links before any listener hears of it
    // Process does not nest (m_processing), so one list serves every call
    std::vector<std::pair<Listener*, uint64_t>>& told = m_told;
    told.clear();
    double end = 0;
    uint32_t id = 0;
    uint32_t f = 0;
    const double window = 1e-6 + static_cast<double>(m_endWindow.GetNanoSeconds());
    while (tn_fluid_next(m_fluid, &end, &id, &f) && end <= now + window)
    {
        // events fall on whole ns: the links carried nothing of it between its end and now
        tn_fluid_end(m_fluid, id, end, now);
        CountGroupBits(m_flows[f]);
        told.emplace_back(m_flows[f].listener, m_flows[f].token);
        m_flows[f].listener = nullptr;
        m_freeFlows.push_back(f);
    }
    // listeners may start flows (the next message of a queue pair): they join this instant's
    // recomputation
    for (auto& t : told)
    {
        t.first->FlowEnded(t.second);
    }
    tn_error err{};
    // internal invariant: only allocation can fail here
    NS_ABORT_MSG_IF(tn_fluid_update(m_fluid, now, &err) != TN_OK, "FlowNetwork: " << err.message);
    m_processing = false;
    ArmTimer();
}

void
FlowNetwork::ArmTimer()
{
    double next = 0;
    if (!tn_fluid_next(m_fluid, &next, nullptr, nullptr))
    {
        m_timer.Cancel();
        m_timerAt = -1;
        return;
    }
    const double now = NowNs();
    // rounded up to the ns, less what floating point adds to an exact finish
    const double at = std::max(now, std::ceil(next - 1e-6));
    if (m_timer.IsRunning() && m_timerAt == at)
    {
        return;
    }
    m_timer.Cancel();
    m_timerAt = at;
    m_timer = Simulator::Schedule(NanoSeconds(static_cast<int64_t>(at - now)),
                                  &FlowNetwork::Process,
                                  this);
}

} // namespace ns3
