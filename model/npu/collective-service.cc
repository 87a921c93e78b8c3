/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Over 1,000 lines for a reason: planning at run time is one concept whose parts share the
 * service's state (topology, routes, plan cache, algorithm auto's decisions, lanes and flow
 * routes, the memory guard of generated collectives); splitting it would expose that state.
 */
#include "collective-service.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-wire.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-memory.h"
#include "ns3/tn-nccl.h"
#include "ns3/tn-program-window.h"
#include "ns3/tn-themis.h"
#include "ns3/tn-verify.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveService");
NS_OBJECT_ENSURE_REGISTERED(CollectiveService);

namespace
{
/**
 * \param fabric the service's fabric \param length the collective's estimate or lower bound
 * \param limit CollectiveService::MaxPacketLevelLength \param what what length is
 * \return "" within the limit or on a flow level, else why
 */
std::string
CheckPacketLength(const Ptr<RoceFabric>& fabric, Time length, Time limit, const std::string& what)
{
    if (!fabric || fabric->GetMode() != RoceFabric::PACKET || length <= limit)
    {
        return "";
    }
    std::ostringstream why;
    why << "the collective would last " << length.GetSeconds() << " simulated seconds (" << what
        << "), more than ns3::CollectiveService::MaxPacketLevelLength (" << limit.GetSeconds()
        << " s): give a smaller size, the flow level, or a longer limit";
    return why.str();
}

/**
 * \param program a generated program \param least set to the narrowest window it can run in
 * without stalling (tn_program_min_window) \param error set when that cannot be computed
 * \return whether it was
 */
bool
LeastWindow(const tn_program* program, uint32_t* least, std::string* error)
{
    tn_error err;
    if (tn_program_min_window(program, least, &err) != TN_OK)
    {
        *error = std::string("program window: ") + err.message;
        return false;
    }
    return true;
}

/**
 * Prints a note (printf's format) on stderr from MPI rank 0 only: every rank plans every
 * collective alike, so its notes are the same on each, and one copy of a note is the run's.
 */
__attribute__((format(printf, 1, 2))) void
PrintNote(const char* format, ...)
{
    if (Simulator::GetSystemId() != 0)
    {
        return;
    }
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
}
} // namespace

TypeId
CollectiveService::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveService")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<CollectiveService>()
            .AddAttribute("Routing",
                          "planned: transfers take their planned links (lanes and flow "
                          "routes); ecmp: the switches hash them.",
                          EnumValue(PLANNED),
                          MakeEnumAccessor(&CollectiveService::m_mode),
                          MakeEnumChecker(PLANNED, "planned", ECMP, "ecmp"))
            .AddAttribute("MaxPacketLevelLength",
                          "Longest a collective may last at packet level, by its plan's "
                          "estimate or a lower bound: past the default a run moves more "
                          "packets than a run gets through (49 TiB on ring:4: 5,152 s, 10^10 "
                          "packets), so it is refused before it starts.",
                          TimeValue(Seconds(1000)),
                          MakeTimeAccessor(&CollectiveService::m_maxPacketLevelLength),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("RouteOrder",
                          "Which shortest paths plans and flow routes take when the service "
                          "routes for itself (packet level): shortest or dimension-order, as "
                          "the fabric's (RoceHelper::SetRouting; CollectiveHelper::Install sets "
                          "it). At flow level the service shares the FlowNetwork's routes.",
                          EnumValue(TN_ROUTE_SHORTEST),
                          MakeEnumAccessor(&CollectiveService::m_routeOrder),
                          MakeEnumChecker(TN_ROUTE_SHORTEST,
                                          "shortest",
                                          TN_ROUTE_DIMENSION_ORDER,
                                          "dimension-order"))
            .AddAttribute(
                "UpDownCheck",
                "Planned routes on switched topologies must be up/down (no hop up "
                "after a hop down), which keeps PFC from closing a cycle: refuse the "
                "collective naming the route, warn on stderr and run it, or off.",
                EnumValue(UP_DOWN_REFUSE),
                MakeEnumAccessor(&CollectiveService::m_upDown),
                MakeEnumChecker(UP_DOWN_REFUSE, "refuse", UP_DOWN_WARN, "warn", UP_DOWN_OFF, "off"))
            .AddAttribute("Program",
                          "auto: rank-local programs where a generator exists and the schedule "
                          "would exceed 1,000,000 transfers or the flow network is symmetric "
                          "(FlowNetwork::Symmetric); generated: wherever a generator exists; "
                          "schedule: the materialised, verified schedule.",
                          EnumValue(PROGRAM_AUTO),
                          MakeEnumAccessor(&CollectiveService::m_program),
                          MakeEnumChecker(PROGRAM_AUTO,
                                          "auto",
                                          PROGRAM_GENERATED,
                                          "generated",
                                          PROGRAM_SCHEDULE,
                                          "schedule"))
            .AddAttribute("SymmetricLengthSlack",
                          "On a symmetric flow network (FlowNetwork::Symmetric): bytes by which "
                          "an op's length may differ from the same op of NPU 0's program, "
                          "translated. 0: NPU 0 runs for all only when the ranks' programs are "
                          "exact translates (the same times as every NPU simulated). A buffer "
                          "the ranks' parts do not divide evenly gives some parts the remainder's "
                          "byte, in an order that depends on the rank: with 1 (or 2 for two "
                          "levels of parts) NPU 0's lengths stand for every rank's, an "
                          "approximation (doc/scale.rst measures it).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveService::m_symmetricSlack),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ProgramWindow",
                          "Generated collectives: ops each rank holds per stream of its "
                          "program, from its first op not done (memory follows the window, "
                          "not the program). A window narrower than the program can run in "
                          "without stalling (tn_program_min_window: a direct all-reduce's "
                          "whole chunk, 5 ops for a ring; a floor: a fabric whose "
                          "acknowledgements lag several steps, a fat-tree, may need twice it) "
                          "is refused with that width. 0: whole "
                          "programs while those in flight fit an eighth of the memory limit, "
                          "then windows of 64 ops (or twice the program's least, if wider), with "
                          "a note on stderr.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveService::m_programWindow),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Priority",
                          "Traffic class of collective data (3: the lossless class).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&CollectiveService::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute(
                "Verify",
                "Run the schedule verifier on every plan (within an eighth of the memory limit: "
                "a plan whose verification passes it runs unverified, noted once).",
                BooleanValue(true),
                MakeBooleanAccessor(&CollectiveService::SetVerify, &CollectiveService::GetVerify),
                MakeBooleanChecker())
            .AddAttribute("PlanCache",
                          "Share the plan of identical requests (false: plan every collective "
                          "anew and forget the plans cached so far).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CollectiveService::SetPlanCache,
                                              &CollectiveService::GetPlanCache),
                          MakeBooleanChecker())
            .AddAttribute("PlanCacheBytes",
                          "Bytes the cached plans may hold (their schedules and lanes); past "
                          "it the plans asked for least recently are dropped, and built again "
                          "if asked for. 0: an eighth of the memory limit (TN_MEMORY_LIMIT, "
                          "else half the machine's memory).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveService::m_planCacheBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("KeepCollectives",
                          "List every collective created, which keeps it alive (false: a "
                          "collective goes when its group is done with it).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CollectiveService::SetKeepCollectives,
                                              &CollectiveService::GetKeepCollectives),
                          MakeBooleanChecker())
            .AddAttribute("Scheduler",
                          "Scheduler of RunScheduled: " + ThemisCollective::ListSchedulerNames() +
                              ".",
                          StringValue("themis-scf"),
                          MakeStringAccessor(&CollectiveService::SetScheduler,
                                             &CollectiveService::GetScheduler),
                          MakeStringChecker());
    return tid;
}

CollectiveService::CollectiveService() = default;

CollectiveService::~CollectiveService()
{
    m_verifier.Wait(); // its jobs read the routes (a service not disposed)
    tn_routes_destroy(m_ownRoutes);
}

void
CollectiveService::DoDispose()
{
    m_executors.clear();
    m_collectives.clear();
    m_scheduled.clear();
    m_verifier.Wait();
    m_deferred.clear();
    m_plans.clear();
    m_droppedPlans.clear();
    m_cachedPlanBytes = 0;
    m_tunedSchedule.reset();
    m_nodes = NodeContainer();
    m_fabric = nullptr;
    Object::DoDispose();
}

void
CollectiveService::Setup(const tn_topology* topo, const NodeContainer& nodes)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_topo, "CollectiveService::Setup called twice");
    // internal invariant: CollectiveHelper::Install passes the fabric it built from this topology
    NS_ABORT_MSG_IF(nodes.GetN() != tn_topology_node_count(topo),
                    "CollectiveService: " << nodes.GetN() << " nodes for a topology of "
                                          << tn_topology_node_count(topo));
    m_topo = topo;
    m_nodes = nodes;
    const uint32_t npus = tn_topology_npu_count(topo);
    for (uint32_t r = 0; r < npus; r++)
    {
        Ptr<Node> node = nodes.Get(tn_topology_npu_node(topo, r));
        if (node->GetSystemId() != Simulator::GetSystemId())
        {
            // simulated by another MPI rank: its executor lives there
            m_executors.push_back(nullptr);
            m_distributed = true;
            continue;
        }
        Ptr<CollectiveExecutor> exec = node->GetObject<CollectiveExecutor>();
        // internal invariant: CollectiveHelper::Install aggregates an executor to every NPU first
        NS_ABORT_MSG_IF(!exec || !exec->GetNic(),
                        "CollectiveService: NPU " << r << " has no CollectiveExecutor and "
                                                  << "RdmaTransport");
        exec->SetService(this);
        m_executors.push_back(exec);
    }
    // the fabric the transports send over tells its level; NICs attached by hand to their
    // switches know none: their nodes are then a packet fabric
    for (const auto& exec : m_executors)
    {
        if (exec)
        {
            m_fabric = exec->GetNic()->GetFabric();
            break;
        }
    }
    if (!m_fabric)
    {
        Ptr<RocePacketFabric> packets = CreateObject<RocePacketFabric>();
        packets->SetNodes(std::vector<Ptr<Node>>(nodes.Begin(), nodes.End()));
        m_fabric = packets;
    }
    // a fabric may already hold the routes to every NPU over a copy of this topology (same
    // node and link ids; the flow level's FlowNetwork does): share them
    const tn_topology* held = m_fabric->GetTopology();
    if (m_fabric->GetRoutes() && held &&
        tn_topology_node_count(held) == tn_topology_node_count(topo) &&
        tn_topology_link_count(held) == tn_topology_link_count(topo))
    {
        m_routesFabric = m_fabric;
        m_routes = m_fabric->GetRoutes();
    }
    if (!m_routes)
    {
        tn_error err;
        tn_routes_options routeOptions{};
        routeOptions.order = m_routeOrder;
        if (tn_routes_create(topo, &routeOptions, &m_ownRoutes, &err) != TN_OK)
        {
            NS_FATAL_ERROR("CollectiveService: routes: " << err.message);
        }
        m_routes = m_ownRoutes;
    }
}

void
CollectiveService::ProgramsFreed(uint32_t id)
{
    m_heldOps.erase(id);
}

bool
CollectiveService::MemoryLimit(const tn_plan_request& request, uint64_t* limit, std::string* error)
{
    *limit = request.memory_limit;
    tn_error err;
    if (*limit == 0 && tn_memory_default_limit(limit, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    return true;
}

uint64_t
CollectiveService::HeldBytes(const tn_plan_request& request,
                             uint32_t id,
                             uint64_t ops,
                             bool windows,
                             std::string* what) const
{
    uint64_t held = 0;
    for (const auto& entry : m_heldOps)
    {
        held += entry.second;
    }
    std::ostringstream text;
    text << "collective " << id << " (" << tn_collective_name(request.collective) << " with "
         << (request.algorithm ? request.algorithm : "?") << ", " << ops << " ops of rank programs"
         << (windows ? " in its first windows" : "") << ") with the " << m_heldOps.size()
         << " generated collectives in flight (" << held << " ops)";
    *what = text.str();
    return (held + ops) * Collective::HELD_OP_BYTES;
}

std::string
CollectiveService::CheckHeldOps(const tn_plan_request& request,
                                uint32_t id,
                                uint64_t ops,
                                bool windows)
{
    std::string what;
    const uint64_t bytes = HeldBytes(request, id, ops, windows, &what);
    tn_error err;
    if (tn_memory_check(bytes,
                        request.memory_limit,
                        what.c_str(),
                        windows ? "fewer collectives in flight (overlap), or a smaller "
                                  "CollectiveService::ProgramWindow"
                                : "hold windows of the programs instead "
                                  "(CollectiveService::ProgramWindow, e.g. 64 ops per stream)",
                        &err) != TN_OK)
    {
        return err.message;
    }
    return "";
}

Ptr<CollectiveExecutor>
CollectiveService::GetLocalExecutor() const
{
    for (const auto& exec : m_executors)
    {
        if (exec)
        {
            return exec;
        }
    }
    NS_FATAL_ERROR("CollectiveService: this process simulates no NPU");
    return nullptr;
}

std::string
CollectiveService::GetRoutingName(RoutingMode mode)
{
    return mode == PLANNED ? "planned" : "ecmp";
}

bool
CollectiveService::ParseRouting(const std::string& name, RoutingMode* mode)
{
    if (name != "planned" && name != "ecmp")
    {
        return false;
    }
    *mode = name == "planned" ? PLANNED : ECMP;
    return true;
}

void
CollectiveService::SetRoutingMode(RoutingMode mode)
{
    m_mode = mode;
}

void
CollectiveService::SetPriority(uint8_t priority)
{
    // internal invariant: the Priority attribute's checker takes 0..7 only; this is the C++ API
    NS_ABORT_MSG_IF(priority > 7, "CollectiveService::SetPriority: " << +priority << " > 7");
    m_priority = priority;
}

void
CollectiveService::SetVerify(bool verify)
{
    m_verify = verify;
}

bool
CollectiveService::GetVerify() const
{
    return m_verify;
}

void
CollectiveService::SetPlanCache(bool cache)
{
    m_cachePlans = cache;
    if (!cache)
    {
        m_plans.clear();
        m_droppedPlans.clear();
        m_cachedPlanBytes = 0;
    }
}

bool
CollectiveService::GetPlanCache() const
{
    return m_cachePlans;
}

void
CollectiveService::SetKeepCollectives(bool keep)
{
    m_keepCollectives = keep;
}

bool
CollectiveService::GetKeepCollectives() const
{
    return m_keepCollectives;
}

bool
CollectiveService::SetScheduler(std::string name)
{
    if (!IsScheduler(name))
    {
        return false;
    }
    m_scheduler = name;
    return true;
}

bool
CollectiveService::IsScheduler(const std::string& name)
{
    return ThemisCollective::IsSchedulerName(name);
}

Ptr<CollectiveExecutor>
CollectiveService::GetExecutor(uint32_t rank) const
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(rank >= m_executors.size(), "CollectiveService: no NPU rank " << rank);
    return m_executors[rank];
}

bool
CollectiveService::AssignLanes(const tn_schedule* s,
                               const std::vector<uint32_t>& nodes,
                               bool wholeTopology,
                               std::vector<uint8_t>* lanes,
                               std::string* error)
{
    const uint32_t count = tn_schedule_count(s);
    lanes->assign(count, 0);
    std::vector<uint32_t> path(tn_topology_node_count(m_topo));
    tn_error err;
    for (uint32_t id = 0; id < count; id++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, id);
        if (tn_op_is_local(t->op))
        {
            continue; // no network: no path, lane 0
        }
        const uint32_t srcNode = nodes[t->src];
        const uint32_t dstNode = nodes[t->dst];
        uint32_t len = 0;
        tn_status st =
            wholeTopology
                ? tn_transfer_links(s, id, m_topo, m_routes, path.data(), path.size(), &len, &err)
                : tn_routes_path(m_routes,
                                 srcNode,
                                 dstNode,
                                 tn_transfer_flow_hash(t),
                                 path.data(),
                                 path.size(),
                                 &len,
                                 &err);
        if (st != TN_OK)
        {
            *error = "transfer " + std::to_string(id) + ": " + err.message;
            return false;
        }
        uint8_t lane = 0;
        if (!PathLane(srcNode, dstNode, path, len, &lane, error))
        {
            *error = "transfer " + std::to_string(id) + " " + *error;
            return false;
        }
        (*lanes)[id] = lane;
    }
    return true;
}

std::string
CollectiveService::CheckUpDown(const uint32_t* path, uint32_t len) const
{
    // BiGraph's two switch layers both face NPUs: its shortest paths go between switches of
    // one level, which this order cannot call up or down, so it is not checked
    if (tn_routes_npus_forward(m_routes) ||
        (tn_topology_dim_count(m_topo) > 0 && tn_topology_dim(m_topo, 0)->kind == TN_DIM_BIGRAPH))
    {
        return "";
    }
    const uint32_t turn = tn_routes_up_down_turn(m_routes, path, len);
    if (turn == UINT32_MAX)
    {
        return "";
    }
    std::string nodes = "node " + std::to_string(tn_topology_link(m_topo, path[0])->src);
    for (uint32_t h = 0; h < len; h++)
    {
        nodes += " -> " + std::to_string(tn_topology_link(m_topo, path[h])->dst);
    }
    const uint32_t at = tn_topology_link(m_topo, path[turn])->src;
    return "planned route " + nodes + " is not up/down: it goes up again at node " +
           std::to_string(at) + " (level " + std::to_string(tn_routes_level(m_routes, at)) +
           ") after going down, so its PFC buffers can close a cycle";
}

bool
CollectiveService::PathLane(uint32_t srcNode,
                            uint32_t dstNode,
                            const std::vector<uint32_t>& path,
                            uint32_t len,
                            uint8_t* laneOut,
                            std::string* error)
{
    std::vector<std::vector<uint32_t>>& known =
        m_lanePaths[(static_cast<uint64_t>(srcNode) << 32) | dstNode];
    uint32_t lane = 0;
    while (lane < known.size() &&
           !(known[lane].size() == len &&
             std::equal(path.begin(), path.begin() + len, known[lane].begin())))
    {
        lane++;
    }
    if (lane == known.size())
    {
        if (const std::string bad = m_upDown == UP_DOWN_OFF ? "" : CheckUpDown(path.data(), len);
            !bad.empty())
        {
            if (m_upDown == UP_DOWN_REFUSE)
            {
                *error = bad + " (ns3::CollectiveService::UpDownCheck=warn runs it anyway)";
                return false;
            }
            std::fprintf(stderr, "warning: %s\n", bad.c_str());
            ++m_upDownWarnings;
        }
        if (lane >= CollectiveExecutor::NOTIFY_LANE)
        {
            *error = "from node " + std::to_string(srcNode) + " to node " +
                     std::to_string(dstNode) + " needs path number " + std::to_string(lane + 1) +
                     " between them; " + "an NPU pair has at most " +
                     std::to_string(CollectiveExecutor::NOTIFY_LANE) +
                     " data lanes (routing 'ecmp' has no such limit)";
            return false;
        }
        known.emplace_back(path.begin(), path.begin() + len);
        // the sender's NIC may be on another MPI rank: its port from its id alone
        const uint16_t sport = RoceWire::LaneSourcePort(srcNode, dstNode, m_priority, lane);
        for (uint32_t h = 0; h < len; h++)
        {
            const tn_link* link = tn_topology_link(m_topo, path[h]);
            // where the path's link is the node's only route toward dstNode, the fabric takes
            // it without a pin (a tree, a host's single port): pins cost memory per pair and
            // hop, millions of them at 4096 NPUs
            uint32_t only = 0;
            if (tn_routes_next_hops(m_routes, link->src, dstNode, &only, 1) == 1 && only == path[h])
            {
                continue;
            }
            m_fabric->SetFlowRoute(link->src, srcNode, dstNode, sport, m_priority, link->src_port);
            ++m_flowRoutes;
        }
    }
    *laneOut = static_cast<uint8_t>(lane);
    return true;
}

std::shared_ptr<CollectiveService::Plan>
CollectiveService::GetGeneratedPlan(const tn_plan_request& req,
                                    const std::vector<uint32_t>& nodes,
                                    bool wholeTopology,
                                    std::string* error)
{
    tn_error err;
    tn_program* raw = nullptr;
    if (tn_program_create(wholeTopology ? m_topo : nullptr, &req, &raw, &err) != TN_OK)
    {
        *error = std::string("planning: ") + err.message;
        return nullptr;
    }
    auto plan = std::make_shared<Plan>();
    plan->program = Collective::ShareProgram(raw);
    if (wholeTopology)
    {
        tn_cost_options options{};
        options.latency_ns = TN_TOPO_DEFAULT_LATENCY_NS;
        options.mtu = GetLocalExecutor()->GetNic()->GetMtu();
        options.packet_overhead = RoceWire::DATA_OVERHEAD;
        options.completion_messages = 1; // the executor waits for ACKs and notifications
        tn_cost_program_result cost;
        if (tn_cost_program(raw, &options, 0, &cost, &err) != TN_OK)
        {
            *error = std::string("cost model: ") + err.message;
            return nullptr;
        }
        plan->estimate = NanoSeconds(static_cast<int64_t>(cost.time_ns + 0.5));
    }
    if (m_mode != PLANNED || IsSymmetric())
    {
        // symmetric: every path NPU 0 takes must be the only one (CheckSymmetric), so planned
        // routing has no lane to give and nothing to pin
        return plan;
    }
    // every rank pair a program sends on: its routed path's lane (as AssignLanes). The pairs
    // are known only as the ranks are walked (a ring has one peer a rank, direct every rank):
    // their lanes and pinned routes are counted as they grow, against the share of the limit
    // one collective's programs get
    uint64_t limit = 0;
    if (!MemoryLimit(req, &limit, error))
    {
        return nullptr;
    }
    const uint64_t routesBefore = m_flowRoutes;
    const uint64_t pathsBefore = m_lanePaths.size();
    tn_rank_program rp{};
    std::vector<uint32_t> path(tn_topology_node_count(m_topo));
    std::unordered_map<uint64_t, uint8_t> pairLanes;
    for (uint32_t r = 0; r < nodes.size(); r++)
    {
        const uint64_t held =
            (pairLanes.size() + (m_flowRoutes - routesBefore)) * LANE_ENTRY_BYTES +
            (m_lanePaths.size() - pathsBefore) * LANE_PATHS_BYTES;
        if (held > limit / WHOLE_PROGRAM_SHARE)
        {
            char heldText[32];
            char limitText[32];
            *error = std::string("planned routing: the lanes and pinned routes of ") +
                     tn_collective_name(req.collective) + " with " + req.algorithm + " on " +
                     std::to_string(nodes.size()) + " ranks passed " +
                     tn_memory_format(held, heldText, sizeof(heldText)) + " at rank " +
                     std::to_string(r) + " (" + std::to_string(pairLanes.size()) +
                     " rank pairs), more than an eighth of the memory limit " +
                     tn_memory_format(limit, limitText, sizeof(limitText)) +
                     " (TN_MEMORY_LIMIT or --memory-limit): route it by ECMP "
                     "(ns3::CollectiveService::Routing=ecmp) or pick an algorithm with fewer "
                     "peers a rank";
            tn_rank_program_free(&rp);
            return nullptr;
        }
        if (tn_program_rank(raw, r, &rp, &err) != TN_OK)
        {
            *error = std::string("planning: ") + err.message;
            tn_rank_program_free(&rp);
            return nullptr;
        }
        for (uint32_t i = 0; i < rp.count; i++)
        {
            const tn_program_op& o = rp.ops[i];
            const uint64_t key = (static_cast<uint64_t>(r) << 32) | o.peer;
            if (!o.send || pairLanes.count(key))
            {
                continue;
            }
            uint32_t len = 0;
            if (tn_routes_path(m_routes,
                               nodes[r],
                               nodes[o.peer],
                               key, // tn_transfer_flow_hash of the pair's transfers
                               path.data(),
                               path.size(),
                               &len,
                               &err) != TN_OK)
            {
                *error = std::string("planned routing: ") + err.message;
                tn_rank_program_free(&rp);
                return nullptr;
            }
            uint8_t lane = 0;
            if (!PathLane(nodes[r], nodes[o.peer], path, len, &lane, error))
            {
                *error = "planned routing: rank " + std::to_string(r) + " " + *error;
                tn_rank_program_free(&rp);
                return nullptr;
            }
            pairLanes.emplace(key, lane);
        }
    }
    tn_rank_program_free(&rp);
    plan->pairLanes =
        std::make_shared<const std::unordered_map<uint64_t, uint8_t>>(std::move(pairLanes));
    return plan;
}

bool
CollectiveService::Prepare(const tn_plan_request& request,
                           const std::vector<uint32_t>& group,
                           Prepared* out,
                           bool deferVerification,
                           std::string* error)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!m_topo, "CollectiveService: Setup first (CollectiveHelper::Install)");
    const uint32_t npus = tn_topology_npu_count(m_topo);
    std::vector<uint32_t>& ranks = out->ranks;
    ranks = group;
    if (ranks.empty())
    {
        for (uint32_t r = 0; r < npus; r++)
        {
            ranks.push_back(r);
        }
    }
    std::vector<bool> seen(npus, false);
    bool wholeTopology = ranks.size() == npus;
    for (uint32_t i = 0; i < ranks.size(); i++)
    {
        if (ranks[i] >= npus || seen[ranks[i]])
        {
            *error = "group: NPU rank " + std::to_string(ranks[i]) +
                     (ranks[i] >= npus
                          ? " does not exist (the topology has " + std::to_string(npus) + " NPUs)"
                          : " is listed twice");
            return false;
        }
        seen[ranks[i]] = true;
        wholeTopology = wholeTopology && ranks[i] == i;
    }
    out->nodes.resize(ranks.size());
    for (uint32_t i = 0; i < ranks.size(); i++)
    {
        out->nodes[i] = tn_topology_npu_node(m_topo, ranks[i]);
    }
    out->resolved = request;
    out->tuning = Collective::Tuning();
    out->tuning.requested = request.algorithm ? request.algorithm : "";
    if (tn_tune_is_auto(request.algorithm))
    {
        const Decision* decision = Tune(request, ranks, wholeTopology, error);
        if (!decision)
        {
            return false;
        }
        out->resolved.algorithm = decision->algorithm->name;
        out->resolved.chunks = out->resolved.chunks
                                   ? out->resolved.chunks
                                   : tn_algorithm_default_chunks(decision->algorithm);
        out->tuning.choiceEstimate = decision->choiceEstimate;
        out->tuning.runnerUp = decision->runnerUp;
        out->tuning.runnerUpEstimate = decision->runnerUpEstimate;
    }
    out->plan = GetPlan(out->resolved, ranks, out->nodes, wholeTopology, deferVerification, error);
    if (!out->plan)
    {
        return false;
    }
    // a plan CheckDeferred cached may still be verified
    if (!deferVerification && out->plan->verification && !Settle(*out->plan->verification, error))
    {
        return false;
    }
    // a generated program of part of the NPUs has no estimate (0): its lower bound instead
    *error = out->plan->estimate.IsStrictlyPositive()
                 ? CheckPacketLength(m_fabric,
                                     out->plan->estimate,
                                     m_maxPacketLevelLength,
                                     "the cost model's estimate of its plan")
                 : CheckLowerBound(request, ranks);
    if (!error->empty())
    {
        return false;
    }
    // a window the program can stall in is refused now, not found stalled at the end
    uint32_t least = 0;
    if (out->plan->program && m_programWindow > 0)
    {
        if (!LeastWindow(out->plan->program.get(), &least, error))
        {
            return false;
        }
        if (m_programWindow < least)
        {
            // the least is a floor, not a bound: tn_program_min_window's model misses a far
            // peer's acknowledgement lagging several steps (the service's own is twice it)
            const uint64_t own = static_cast<uint64_t>(TN_PROGRAM_WINDOW_MARGIN) * least;
            *error = "CollectiveService::ProgramWindow " + std::to_string(m_programWindow) +
                     " is narrower than " + out->resolved.algorithm +
                     "'s program can run in without stalling (" + std::to_string(least) +
                     " ops per stream): set it to " + std::to_string(least) + " or more (" +
                     std::to_string(own) +
                     ", the service's own width, where acknowledgements lag the data by several "
                     "steps, as on fat-trees), or 0";
            return false;
        }
    }
    out->symmetry = GetSymmetry();
    if (out->symmetry)
    {
        if (!out->plan->symmetric)
        {
            out->plan->symmetric =
                CheckSymmetric(*out->plan, out->resolved, out->nodes, out->symmetry);
        }
        *error = *out->plan->symmetric;
        if (!error->empty())
        {
            return false;
        }
        if (IsAmongRepresentatives(out->nodes, out->symmetry))
        {
            out->symmetry = nullptr; // it runs as it is: its translates are other collectives
        }
    }
    return true;
}

std::string
CollectiveService::CheckLowerBound(const tn_plan_request& request,
                                   const std::vector<uint32_t>& npus) const
{
    // every NPU receives (N-1)/N of the bytes at least, at most at its links' summed rate
    const uint32_t members = uint32_t(npus.size());
    uint64_t fastest = 0;
    for (uint32_t npu : npus)
    {
        uint32_t count = 0;
        const uint32_t* out =
            tn_topology_out_links(m_topo, tn_topology_npu_node(m_topo, npu), &count);
        uint64_t sum = 0;
        for (uint32_t k = 0; k < count; k++)
        {
            sum += tn_topology_link(m_topo, out[k])->rate_bps;
        }
        fastest = std::max(fastest, sum);
    }
    if (members < 2 || fastest == 0)
    {
        return "";
    }
    const double seconds = double(request.bytes) * 8.0 * (members - 1) / members / double(fastest);
    return CheckPacketLength(m_fabric,
                             Seconds(std::min(seconds, 9e9)),
                             m_maxPacketLevelLength,
                             "its bytes over an NPU's links, at least");
}

bool
CollectiveService::Check(const tn_plan_request& request,
                         const std::vector<uint32_t>& group,
                         std::string* error)
{
    Prepared prepared;
    return Prepare(request, group, &prepared, false, error);
}

bool
CollectiveService::CheckDeferred(const tn_plan_request& request,
                                 const std::vector<uint32_t>& group,
                                 std::string* error)
{
    Prepared prepared;
    return Prepare(request, group, &prepared, true, error);
}

bool
CollectiveService::AwaitVerifications(std::string* error)
{
    bool ok = true;
    for (const std::shared_ptr<Verification>& v : m_deferred)
    {
        std::string why;
        if (!Settle(*v, &why) && ok)
        {
            *error = why;
            ok = false;
        }
    }
    m_deferred.clear();
    return ok;
}

Ptr<Collective>
CollectiveService::Create(const tn_plan_request& request,
                          const std::vector<uint32_t>& group,
                          std::string* error,
                          uint32_t reservedId)
{
    Prepared prepared;
    if (!Prepare(request, group, &prepared, false, error))
    {
        return nullptr;
    }
    const std::vector<uint32_t>& ranks = prepared.ranks;
    std::vector<uint32_t>& nodes = prepared.nodes;
    const std::shared_ptr<const Plan>& plan = prepared.plan;
    const tn_symmetry* symmetry = prepared.symmetry;
    // ids name collectives in R_Keys whose two top bits mark notifications and control
    // internal invariant: TrainingJob::ReserveIds and the programs' collective counts stay far
    // below 2^30; a C++ loop creating more is a bug of its own
    NS_ABORT_MSG_IF(m_nextId >= CollectiveExecutor::CONTROL_KEY_BIT,
                    "CollectiveService: more than 2^30 collectives");
    // internal invariant: ids come from ReserveIds
    NS_ABORT_MSG_IF(reservedId >= m_nextId,
                    "CollectiveService::Create: id " << reservedId << " was not reserved");
    const uint32_t id = reservedId > 0 ? reservedId : m_nextId;
    // the service's own window is never narrower than the program can run in (a direct
    // program's sends may all go at once: its window holds a chunk's whole program), with a
    // margin over the least (TN_PROGRAM_WINDOW_MARGIN); one that does not fit the limit then is
    // refused below, as the user's would be
    auto serviceWindow = [&](uint32_t* w) {
        uint32_t least = 0;
        if (!LeastWindow(plan->program.get(), &least, error))
        {
            return false;
        }
        *w = tn_program_window_width(least, AUTO_PROGRAM_WINDOW, TN_PROGRAM_WINDOW_MARGIN);
        return true;
    };
    // a windowed receiver takes its transfer's number from its send's op when the data
    // arrives, and only the sender's process holds that op's window: across MPI ranks the
    // programs are held whole
    const bool acrossRanks = IsAcrossRanks(ranks);
    if (plan->program && acrossRanks && m_programWindow > 0)
    {
        *error = "CollectiveService::ProgramWindow " + std::to_string(m_programWindow) +
                 " is not supported across MPI ranks yet (set it to 0: programs held whole)";
        return nullptr;
    }
    uint32_t window = m_programWindow;
    if (plan->program && window == 0 && m_autoWindowNoted && !acrossRanks &&
        !serviceWindow(&window))
    {
        return nullptr;
    }
    if (plan->program && window == 0 && !symmetry)
    {
        // whole programs: every op of every rank (two per transfer) is held from the start;
        // checked against their share of the limit, so that the collectives already in
        // flight, which keep their whole programs, leave room for the windows of the next ones
        uint64_t limit = 0;
        if (!MemoryLimit(request, &limit, error))
        {
            return nullptr;
        }
        std::string what;
        const uint64_t need = HeldBytes(request,
                                        id,
                                        2 * tn_program_transfers(plan->program.get(), nullptr),
                                        false,
                                        &what);
        char needText[32];
        char limitText[32];
        if (acrossRanks && need > limit)
        {
            *error = what + " would take about " +
                     tn_memory_format(need, needText, sizeof(needText)) +
                     ", more than the memory limit " +
                     tn_memory_format(limit, limitText, sizeof(limitText)) +
                     " (TN_MEMORY_LIMIT or --memory-limit), and program windows are not "
                     "supported across MPI ranks";
            return nullptr;
        }
        if (acrossRanks && need > limit / WHOLE_PROGRAM_SHARE)
        {
            if (!m_wholeAcrossRanksNoted)
            {
                m_wholeAcrossRanksNoted = true;
                PrintNote("note: generated collectives across MPI ranks hold whole programs "
                          "(program windows are not supported there): %s takes about %s, more "
                          "than an eighth of the memory limit %s\n",
                          what.c_str(),
                          tn_memory_format(need, needText, sizeof(needText)),
                          tn_memory_format(limit, limitText, sizeof(limitText)));
            }
        }
        else if (need > limit / WHOLE_PROGRAM_SHARE)
        {
            // the user left the window open (0): hold windows from now on rather than
            // refuse, as one would set ProgramWindow by hand; a window that still cannot fit
            // is refused below against the whole limit
            if (!serviceWindow(&window))
            {
                return nullptr;
            }
            if (!m_autoWindowNoted)
            {
                m_autoWindowNoted = true;
                PrintNote("note: generated collectives hold windows of %u ops per stream "
                          "(CollectiveService::ProgramWindow; wider where a program cannot run "
                          "in it without stalling), not whole programs: %s would take about "
                          "%s, more than an eighth of the memory limit %s (TN_MEMORY_LIMIT or "
                          "--memory-limit)\n",
                          AUTO_PROGRAM_WINDOW,
                          what.c_str(),
                          tn_memory_format(need, needText, sizeof(needText)),
                          tn_memory_format(limit, limitText, sizeof(limitText)));
            }
        }
    }
    Ptr<Collective> c = CreateObject<Collective>();
    if (symmetry)
    {
        c->SetSymmetry(symmetry, ranks, m_symmetricSlack);
    }
    if (plan->program && window > 0 && !symmetry)
    {
        // counted before the windows are filled, which takes their memory: a direct phase of
        // 2,047 peers holds thousands of ops a rank in any window (16,384 ranks: 25 GiB)
        *error =
            CheckHeldOps(request, id, tn_program_window_ops(plan->program.get(), window), true);
        if (!error->empty())
        {
            *error += " (counted before its windows are filled; an algorithm with fewer peers "
                      "a rank holds narrower ones)";
            c->Dispose();
            return nullptr;
        }
    }
    if (plan->program)
    {
        c->SetupProgram(id, plan->program, std::move(nodes), plan->pairLanes, m_priority, window);
        // windows: what they hold at the start (they are renewed, not grown); a symmetric
        // collective holds its one rank's
        *error =
            window > 0 || symmetry ? CheckHeldOps(request, id, c->GetHeldOps(), window > 0) : "";
        if (!error->empty())
        {
            c->Dispose();
            return nullptr;
        }
        const uint64_t held = c->GetHeldOps();
        m_heldOps[id] = held;
        c->SetProgramsFreedCallback(MakeCallback(&CollectiveService::ProgramsFreed, this));
    }
    else
    {
        c->Setup(id, plan->schedule, std::move(nodes), plan->lanes, m_priority);
    }
    if (reservedId == 0)
    {
        ++m_nextId;
    }
    c->HoldPlan(plan);
    c->SetEstimatedTime(plan->estimate);
    c->SetTuning(prepared.tuning);
    c->SetProtocol(plan->protocol);
    std::vector<bool> local(ranks.size());
    for (uint32_t i = 0; i < ranks.size(); i++)
    {
        local[i] = m_executors[ranks[i]] != nullptr && c->IsSimulated(i);
        if (local[i])
        {
            m_executors[ranks[i]]->Add(c, i);
        }
    }
    if (m_distributed)
    {
        c->SetLocalRanks(local);
    }
    if (m_keepCollectives)
    {
        m_collectives.push_back(c);
    }
    NS_LOG_INFO("collective " << c->GetId() << ": " << c->GetCollectiveName() << " of "
                              << c->GetBytes() << " bytes with " << c->GetAlgorithm() << " on "
                              << ranks.size() << " NPUs, " << c->GetTransferCount()
                              << (c->IsGenerated() ? " transfers (generated)" : " transfers")
                              << ", estimate " << plan->estimate.As(Time::US));
    return c;
}

std::string
CollectiveService::CheckSymmetric(const Plan& plan,
                                  const tn_plan_request& request,
                                  const std::vector<uint32_t>& nodes,
                                  const tn_symmetry* symmetry) const
{
    const std::string what = "FlowNetwork::Symmetric: algorithm " +
                             std::string(request.algorithm ? request.algorithm : "(default)");
    const bool inside = IsAmongRepresentatives(nodes, symmetry);
    if (!plan.program && !inside)
    {
        return what + " runs as a materialised schedule: the representative NPUs run for all "
                      "only from a rank-local program (CollectiveService::Program generated or "
                      "auto; MultiTree and HDRM have none)";
    }
    tn_error err;
    // every translation up to 1,024 NPUs, beyond the dims' generators and 64 others: the
    // generators are proven translation-equivariant by test/core/test-symmetry.c
    if (!inside && tn_symmetry_check_program(symmetry,
                                             plan.program.get(),
                                             nodes.data(),
                                             1024,
                                             64,
                                             m_symmetricSlack,
                                             &err) != TN_OK)
    {
        return what + ": " + err.message;
    }
    // the flows of the representatives stand for their translates only if each has one
    // path: the ECMP hash of the translates' headers would not pick the translated one among
    // several
    tn_rank_program rp{};
    std::string why;
    std::vector<uint32_t> hops(16);
    const uint32_t period = tn_symmetry_period(symmetry);
    for (uint32_t rank = 0; why.empty() && rank < nodes.size(); rank++)
    {
        if (tn_topology_node_rank(m_topo, nodes[rank]) >= period)
        {
            continue; // a translate of a representative's rank
        }
        // a schedule's sender may reach any other member
        std::vector<uint32_t> peers;
        if (!plan.program)
        {
            for (uint32_t m = 0; m < nodes.size(); m++)
            {
                peers.push_back(m);
            }
        }
        else if (tn_program_rank(plan.program.get(), rank, &rp, &err) != TN_OK)
        {
            why = what + ": " + err.message;
        }
        for (uint32_t i = 0; i < rp.count && plan.program; i++)
        {
            peers.push_back(rp.ops[i].peer);
        }
        for (uint32_t i = 0; why.empty() && i < peers.size(); i++)
        {
            const uint32_t dst = nodes[peers[i]];
            for (uint32_t v = nodes[rank]; why.empty() && v != dst;)
            {
                uint32_t out = 0;
                const uint32_t* links = tn_topology_out_links(m_topo, v, &out);
                const uint32_t c =
                    out == 1 ? 1 : tn_routes_next_hops(m_routes, v, dst, hops.data(), hops.size());
                if (c != 1)
                {
                    why = what + ": node " + std::to_string(v) + " has " + std::to_string(c) +
                          " shortest next hops toward node " + std::to_string(dst) +
                          " (ECMP would not pick translated paths for translated flows)";
                    break;
                }
                v = tn_topology_link(m_topo, out == 1 ? links[0] : hops[0])->dst;
            }
        }
    }
    tn_rank_program_free(&rp);
    return why;
}

bool
CollectiveService::IsAmongRepresentatives(const std::vector<uint32_t>& nodes,
                                          const tn_symmetry* symmetry) const
{
    return std::all_of(nodes.begin(), nodes.end(), [&](uint32_t node) {
        return tn_topology_node_rank(m_topo, node) < tn_symmetry_period(symmetry);
    });
}

bool
CollectiveService::ReserveIds(uint64_t count, uint32_t* first, std::string* error)
{
    if (count >= CollectiveExecutor::CONTROL_KEY_BIT - m_nextId)
    {
        *error = "the collectives need " + std::to_string(count) + " ids from id " +
                 std::to_string(m_nextId) + ": more than the 2^30 an R_Key can name";
        return false;
    }
    *first = m_nextId;
    m_nextId += static_cast<uint32_t>(count);
    return true;
}

namespace
{

/** The cache key of a request on a group: every field that shapes the plan. */
std::string
PlanKey(const tn_plan_request& r,
        const std::vector<uint32_t>& ranks,
        CollectiveService::RoutingMode mode,
        bool verify,
        CollectiveService::ProgramMode program)
{
    std::ostringstream key;
    key << r.collective << '/' << (r.algorithm ? r.algorithm : "") << '/' << r.bytes << '/'
        << r.root << '/' << r.chunks << '/' << r.ports_per_node << '/' << r.themis.policy << '/'
        << r.themis.active_chunks_per_dim << '/' << r.themis.baseline << '/' << r.seed << '/'
        << r.memory_limit << '/' << mode << '/' << verify << '/' << program << "/order";
    for (uint32_t k = 0; r.rank_order && k < r.rank_order_count; k++)
    {
        key << ',' << r.rank_order[k];
    }
    key << "/ranks";
    for (uint32_t rank : ranks)
    {
        key << ',' << rank;
    }
    return key.str();
}

} // namespace

uint32_t
CollectiveService::SizeBucket(uint64_t bytes)
{
    uint32_t bucket = 0;
    while (bytes > 1)
    {
        bytes >>= 1;
        ++bucket;
    }
    return bucket;
}

const CollectiveService::Decision*
CollectiveService::Tune(const tn_plan_request& request,
                        const std::vector<uint32_t>& ranks,
                        bool wholeTopology,
                        std::string* error)
{
    tn_plan_request req = request;
    req.ranks = static_cast<uint32_t>(ranks.size());
    tn_plan_request keyed = req;
    keyed.bytes = SizeBucket(request.bytes);
    const std::string key = PlanKey(keyed, ranks, m_mode, m_verify, m_program);
    auto cached = m_decisions.find(key);
    if (cached != m_decisions.end())
    {
        return &cached->second;
    }
    // the estimates the collective's own plan gets (GetPlan, GetGeneratedPlan)
    tn_cost_options cost{};
    cost.latency_ns = TN_TOPO_DEFAULT_LATENCY_NS;
    cost.mtu = GetLocalExecutor()->GetNic()->GetMtu();
    cost.packet_overhead = RoceWire::DATA_OVERHEAD;
    cost.completion_messages = 1;
    tn_tune_options options;
    tn_tune_options_init(&options);
    options.cost = &cost;
    options.routes = wholeTopology ? m_routes : nullptr;
    options.path = m_program == PROGRAM_GENERATED  ? TN_TUNE_GENERATED
                   : m_program == PROGRAM_SCHEDULE ? TN_TUNE_SCHEDULE
                                                   : TN_TUNE_AUTO_PATH;
    options.schedule_transfers = AUTO_TRANSFERS;
    // only the choice and the runner-up are recorded: a candidate bounded out of them is not
    // estimated (direct on torus:32x32: 1.4 s of a 2.7 s ranking)
    options.first_two = true;
    // the choice's schedule, when ranked on it, is the plan GetPlan builds next
    options.keep_choice = wholeTopology && m_program != PROGRAM_GENERATED;
    // a candidate whose programs the run could not hold is not the choice, however fast: the
    // share of the limit Create gives one collective, windows as Create would pick them (a
    // symmetric run holds one rank's program: no limit)
    if (!GetSymmetry())
    {
        uint64_t limit = 0;
        if (!MemoryLimit(request, &limit, error))
        {
            return nullptr;
        }
        options.held_limit = limit / WHOLE_PROGRAM_SHARE;
        options.held_op_bytes = Collective::HELD_OP_BYTES;
        options.held_window = IsAcrossRanks(ranks)
                                  ? 0
                                  : (m_programWindow > 0 ? m_programWindow : AUTO_PROGRAM_WINDOW);
        options.held_margin = m_programWindow > 0 ? 1 : TN_PROGRAM_WINDOW_MARGIN;
    }
    m_tunedSchedule.reset();
    tn_tune_ranking* ranking = nullptr;
    tn_error err;
    if (tn_tune_rank(wholeTopology ? m_topo : nullptr, &req, &options, &ranking, &err) != TN_OK)
    {
        *error = std::string("planning: ") + err.message +
                 (wholeTopology ? ""
                                : " (a group other than all NPUs is planned without the "
                                  "topology)");
        return nullptr;
    }
    ++m_tuningsRun;
    Decision d;
    const tn_tune_candidate* best = tn_tune_best(ranking);
    const tn_tune_candidate* second = tn_tune_runner_up(ranking);
    d.algorithm = tn_algorithm_find(best->algorithm);
    d.choiceEstimate = NanoSeconds(static_cast<int64_t>(best->estimate_ns + 0.5));
    if (second)
    {
        d.runnerUp = second->algorithm;
        d.runnerUpEstimate = NanoSeconds(static_cast<int64_t>(second->estimate_ns + 0.5));
    }
    tn_schedule* kept = nullptr;
    tn_cost_result* keptCost = nullptr;
    tn_tune_take_choice(ranking, &kept, &keptCost);
    if (kept)
    {
        // the request Prepare resolves the choice to (its name, its default chunks)
        tn_plan_request chosen = request;
        chosen.algorithm = d.algorithm->name;
        chosen.chunks = chosen.chunks ? chosen.chunks : tn_algorithm_default_chunks(d.algorithm);
        m_tunedKey = PlanKey(chosen, ranks, m_mode, m_verify, m_program);
        m_tunedSchedule.reset(kept);
        m_tunedEstimateNs = keptCost->time_ns;
    }
    tn_cost_result_destroy(keptCost);
    NoteHeldSkip(ranking, best);
    NS_LOG_INFO("auto: " << tn_collective_name(req.collective) << " of " << req.bytes
                         << " bytes on " << ranks.size() << " NPUs: " << d.algorithm->name << " ("
                         << d.choiceEstimate.As(Time::US) << "), runner-up "
                         << (second ? d.runnerUp : "none"));
    tn_tune_ranking_destroy(ranking);
    return &m_decisions.emplace(key, d).first->second;
}

bool
CollectiveService::IsAcrossRanks(const std::vector<uint32_t>& ranks) const
{
    return m_distributed && std::any_of(ranks.begin(), ranks.end(), [this](uint32_t npu) {
               return m_executors[npu] == nullptr;
           });
}

void
CollectiveService::NoteHeldSkip(const tn_tune_ranking* ranking, const tn_tune_candidate* best)
{
    for (uint32_t i = 0; i < tn_tune_count(ranking); i++)
    {
        const tn_tune_candidate* c = tn_tune_candidate_at(ranking, i);
        if (c->held_bytes > 0 && c->estimate_ns < best->estimate_ns)
        {
            ++m_heldSkips;
            if (!m_heldSkipNoted)
            {
                m_heldSkipNoted = true;
                PrintNote("note: auto chose %s (estimated %.3f us) over a faster algorithm the "
                          "run could not hold (noted once): %s (TN_MEMORY_LIMIT or "
                          "--memory-limit)\n",
                          best->algorithm,
                          best->estimate_ns / 1e3,
                          c->skipped);
            }
            return;
        }
    }
}

void
CollectiveService::ScheduledEnded(Ptr<const ThemisCollective> collective)
{
    if (!m_keepCollectives)
    {
        Simulator::ScheduleNow(&CollectiveService::ForgetScheduled, this, collective->GetId());
    }
}

void
CollectiveService::ForgetScheduled(uint32_t id)
{
    m_scheduled.erase(
        std::remove_if(m_scheduled.begin(),
                       m_scheduled.end(),
                       [id](const Ptr<ThemisCollective>& c) { return c->GetId() == id; }),
        m_scheduled.end());
}

bool
CollectiveService::VerifySchedule(const tn_plan_request& request,
                                  const Collective::SharedSchedule& schedule,
                                  bool wholeTopology,
                                  bool defer,
                                  std::shared_ptr<Verification>* verification,
                                  std::string* error)
{
    // the verifier's state grows with ranks x pieces a rank holds (P^2 for an all-reduce), so
    // it gets the share of the limit whole programs get; past it the plan runs unverified, as
    // tn-plan leaves large plans (its schedules are verified by the tests at smaller sizes)
    auto v = std::make_shared<Verification>();
    if (!MemoryLimit(request, &v->limit, error))
    {
        return false;
    }
    v->budget = v->limit / WHOLE_PROGRAM_SHARE;
    v->what = std::string(tn_collective_name(request.collective)) + " with " +
              (request.algorithm ? request.algorithm : "?") + " of " +
              std::to_string(request.bytes) + " bytes on " +
              std::to_string(tn_schedule_ranks(schedule.get())) + " ranks (" +
              std::to_string(tn_schedule_count(schedule.get())) + " transfers)";
    v->job = m_verifier.Start(schedule, wholeTopology ? m_topo : nullptr, m_routes, v->budget);
    *verification = v;
    if (defer)
    {
        m_deferred.push_back(v);
        return true;
    }
    return Settle(*v, error);
}

bool
CollectiveService::Settle(Verification& v, std::string* error)
{
    if (!v.settled)
    {
        const PlanVerifier::Verdict& verdict = m_verifier.Take(v.job);
        v.settled = true;
        if (verdict.status == TN_EUNSUPPORTED)
        {
            ++m_plansUnverified;
            if (m_plansUnverified == 1)
            {
                char budgetText[32];
                char limitText[32];
                PrintNote("note: the plan of %s is not verified: the verifier's state passed "
                          "%s, an eighth of the memory limit %s (TN_MEMORY_LIMIT or "
                          "--memory-limit); such plans run unverified "
                          "(CollectiveService::Verify), as their algorithm's schedules are "
                          "verified by the tests at smaller sizes\n",
                          v.what.c_str(),
                          tn_memory_format(v.budget, budgetText, sizeof(budgetText)),
                          tn_memory_format(v.limit, limitText, sizeof(limitText)));
            }
            NS_LOG_INFO("plan not verified: " << verdict.message);
        }
        else if (verdict.status != TN_OK)
        {
            v.error = "verifying the schedule of " + v.what + ": " + verdict.message;
        }
        v.job.reset(); // its schedule is the plan's
    }
    if (!v.error.empty())
    {
        *error = v.error;
        return false;
    }
    return true;
}

std::shared_ptr<const CollectiveService::Plan>
CollectiveService::GetPlan(const tn_plan_request& request,
                           const std::vector<uint32_t>& ranks,
                           const std::vector<uint32_t>& nodes,
                           bool wholeTopology,
                           bool deferVerification,
                           std::string* error)
{
    const std::string key =
        m_cachePlans ? PlanKey(request, ranks, m_mode, m_verify, m_program) : "";
    if (m_cachePlans)
    {
        auto cached = m_plans.find(key);
        if (cached != m_plans.end())
        {
            cached->second.lastUse = ++m_planUses;
            return cached->second.plan;
        }
        auto dropped = m_droppedPlans.find(key);
        if (dropped != m_droppedPlans.end())
        {
            std::shared_ptr<const Plan> alive = dropped->second.lock();
            m_droppedPlans.erase(dropped);
            if (alive)
            {
                ++m_plansTakenBack;
                CachePlan(key, alive, request);
                return alive;
            }
        }
    }
    tn_plan_request req = request;
    req.ranks = static_cast<uint32_t>(ranks.size());
    tn_error err;
    bool generated = false;
    if (m_program == PROGRAM_GENERATED)
    {
        if (!tn_program_supports(req.algorithm))
        {
            *error = std::string("planning: Program 'generated': ") +
                     (req.algorithm ? req.algorithm : "(null)") +
                     " has no rank-local generator (use Program 'schedule' or 'auto')";
            return nullptr;
        }
        generated = true;
    }
    else if (m_program == PROGRAM_AUTO && tn_program_supports(req.algorithm))
    {
        // NPU 0 runs for all only from a rank-local program
        tn_plan_size size;
        generated =
            IsSymmetric() ||
            (tn_plan_estimate(wholeTopology ? m_topo : nullptr, &req, &size, &err) == TN_OK &&
             size.transfers > AUTO_TRANSFERS);
    }
    if (generated)
    {
        m_tunedSchedule.reset(); // a schedule the programs do without
        std::shared_ptr<Plan> plan = GetGeneratedPlan(req, nodes, wholeTopology, error);
        if (plan)
        {
            ++m_plansBuilt;
            if (m_cachePlans)
            {
                CachePlan(key, plan, req);
            }
        }
        return plan;
    }
    tn_schedule* raw = nullptr;
    double tunedNs = -1;
    if (m_tunedSchedule && wholeTopology &&
        m_tunedKey == PlanKey(request, ranks, m_mode, m_verify, m_program))
    {
        raw = m_tunedSchedule.release();
        tunedNs = m_tunedEstimateNs;
    }
    m_tunedSchedule.reset();
    if (!raw && tn_plan(wholeTopology ? m_topo : nullptr, &req, &raw, &err) != TN_OK)
    {
        *error = std::string("planning: ") + err.message +
                 (wholeTopology ? ""
                                : " (a group other than all NPUs is planned without the "
                                  "topology)");
        return nullptr;
    }
    auto plan = std::make_shared<Plan>();
    plan->schedule = Collective::Share(raw);
    const tn_schedule* schedule = raw;
    if (tn_nccl_is_family(req.algorithm))
    {
        // the protocol of the choice tn_plan planned (its check passed: no error here)
        tn_nccl_choice choice;
        if (tn_nccl_choose(wholeTopology ? m_topo : nullptr, &req, req.ranks, &choice, &err) !=
            TN_OK)
        {
            *error = std::string("planning: ") + err.message;
            return nullptr;
        }
        plan->protocol.set = true;
        plan->protocol.cost = choice.protocol;
        plan->protocol.name = tn_nccl_proto_name(choice.proto);
        plan->protocol.channels = choice.channels;
    }
    if (m_verify && !VerifySchedule(req,
                                    plan->schedule,
                                    wholeTopology,
                                    deferVerification,
                                    &plan->verification,
                                    error))
    {
        return nullptr;
    }
    if (wholeTopology)
    {
        tn_cost_result* cost = nullptr;
        tn_cost_options options{};
        options.latency_ns = TN_TOPO_DEFAULT_LATENCY_NS;
        options.mtu = GetLocalExecutor()->GetNic()->GetMtu();
        options.packet_overhead = RoceWire::DATA_OVERHEAD;
        options.completion_messages = 1; // the executor waits for ACKs and notifications
        options.protocol = plan->protocol.set ? &plan->protocol.cost : nullptr;
        if (tunedNs >= 0 && !plan->protocol.set)
        {
            // the ranking's estimate of this schedule with these options and routes
            plan->estimate = NanoSeconds(static_cast<int64_t>(tunedNs + 0.5));
        }
        else if (tn_cost_estimate(schedule, m_topo, m_routes, &options, &cost, &err) != TN_OK)
        {
            *error = std::string("cost model: ") + err.message;
            return nullptr;
        }
        else
        {
            plan->estimate = NanoSeconds(static_cast<int64_t>(cost->time_ns + 0.5));
            tn_cost_result_destroy(cost);
        }
    }
    if (m_mode == PLANNED && !AssignLanes(schedule, nodes, wholeTopology, &plan->lanes, error))
    {
        *error = "planned routing: " + *error;
        return nullptr;
    }
    ++m_plansBuilt;
    if (m_cachePlans)
    {
        CachePlan(key, plan, req);
    }
    return plan;
}

uint64_t
CollectiveService::PlanBytes(const Plan& plan)
{
    // a generated plan's program holds tables of a few words a rank (a ring's order, swing's
    // peers: 2.7 MB at 16,384 ranks), not its ops; left out beside a schedule's transfers
    uint64_t bytes = sizeof(Plan) + plan.lanes.capacity() +
                     (plan.pairLanes ? plan.pairLanes->size() * LANE_ENTRY_BYTES : 0);
    if (plan.schedule)
    {
        bytes += tn_schedule_held_bytes(plan.schedule.get());
    }
    return bytes;
}

void
CollectiveService::CachePlan(const std::string& key,
                             const std::shared_ptr<const Plan>& plan,
                             const tn_plan_request& request)
{
    uint64_t budget = m_planCacheBytes;
    std::string ignored;
    if (budget == 0)
    {
        // a bad TN_MEMORY_LIMIT was refused before a plan was built; none then keeps none
        budget = MemoryLimit(request, &budget, &ignored) ? budget / PLAN_CACHE_SHARE : 0;
    }
    const uint64_t bytes = PlanBytes(*plan);
    auto same = m_plans.find(key);
    if (same != m_plans.end())
    {
        m_cachedPlanBytes -= same->second.bytes;
        m_plans.erase(same);
    }
    if (bytes > budget)
    {
        NS_LOG_INFO("plan of " << bytes << " bytes not cached: the budget is " << budget);
        m_droppedPlans[key] = plan;
        return;
    }
    while (m_cachedPlanBytes + bytes > budget)
    {
        // a few dozen plans at most: the least recent found by a scan
        auto oldest = m_plans.begin();
        for (auto it = m_plans.begin(); it != m_plans.end(); ++it)
        {
            if (it->second.lastUse < oldest->second.lastUse)
            {
                oldest = it;
            }
        }
        m_cachedPlanBytes -= oldest->second.bytes;
        m_droppedPlans[oldest->first] = oldest->second.plan;
        m_plans.erase(oldest);
        ++m_plansEvicted;
    }
    for (auto it = m_droppedPlans.begin(); it != m_droppedPlans.end();)
    {
        it = it->second.expired() ? m_droppedPlans.erase(it) : std::next(it);
    }
    CachedPlan& cached = m_plans[key];
    cached.plan = plan;
    cached.bytes = bytes;
    cached.lastUse = ++m_planUses;
    m_cachedPlanBytes += bytes;
}

void
CollectiveService::Start(Ptr<Collective> collective, Time delay)
{
    for (uint32_t i = 0; i < collective->GetRanks(); i++)
    {
        const uint32_t node = collective->GetNode(i);
        Ptr<CollectiveExecutor> exec = m_nodes.Get(node)->GetObject<CollectiveExecutor>();
        if (!exec || !collective->IsSimulated(i))
        {
            continue; // another MPI rank starts it, or it is a translate of the one that runs
        }
        Simulator::ScheduleWithContext(node, delay, &CollectiveExecutor::Start, exec, collective);
    }
}

Ptr<Collective>
CollectiveService::Run(tn_collective collective,
                       uint64_t bytes,
                       const std::string& algorithm,
                       Collective::DoneCallback done,
                       uint32_t root)
{
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = collective;
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    request.root = root;
    std::string error;
    Ptr<Collective> c = Create(request, {}, &error);
    // internal invariant: Run and RunScheduled are the C++ shortcuts for requests their caller
    // checked (Check); programs use Create and print its error
    NS_ABORT_MSG_IF(!c, "CollectiveService: " << error);
    c->SetDoneCallback(done);
    Start(c);
    return c;
}

bool
CollectiveService::CheckScheduled(const tn_plan_request& request,
                                  const std::string& scheduler,
                                  std::string* error)
{
    return BuildScheduled(request, scheduler, {}, true, error) != nullptr;
}

bool
CollectiveService::CheckScheduled(const tn_plan_request& request,
                                  const std::string& scheduler,
                                  const std::vector<uint32_t>& npus,
                                  std::string* error)
{
    return BuildScheduled(request, scheduler, npus, true, error) != nullptr;
}

Ptr<ThemisCollective>
CollectiveService::CreateScheduled(const tn_plan_request& request,
                                   const std::string& scheduler,
                                   std::string* error)
{
    return BuildScheduled(request, scheduler, {}, false, error);
}

Ptr<ThemisCollective>
CollectiveService::CreateScheduled(const tn_plan_request& request,
                                   const std::string& scheduler,
                                   const std::vector<uint32_t>& npus,
                                   std::string* error)
{
    return BuildScheduled(request, scheduler, npus, false, error);
}

Ptr<ThemisCollective>
CollectiveService::BuildScheduled(const tn_plan_request& request,
                                  const std::string& scheduler,
                                  const std::vector<uint32_t>& npus,
                                  bool check,
                                  std::string* error)
{
    if (m_distributed)
    {
        *error = "run-time schedulers (Themis) do not run over several MPI ranks yet";
        return nullptr;
    }
    if (IsSymmetric())
    {
        *error = "run-time schedulers (Themis) do not run on a symmetric flow network "
                 "(FlowNetwork::Symmetric)";
        return nullptr;
    }
    ThemisCollective::Policy policy = ThemisCollective::SCF;
    bool baseline = false;
    if (!ThemisCollective::ParseSchedulerName(scheduler, &policy, &baseline))
    {
        *error = "Scheduler '" + scheduler + "' is not " + ThemisCollective::ListSchedulerNames();
        return nullptr;
    }
    // internal invariant: CollectiveHelper::Install sets the service up before any use
    NS_ABORT_MSG_IF(!m_topo, "CollectiveService: Setup first (CollectiveHelper::Install)");
    // the grid the scheduler splits over: the topology's dims, or the sub-grid of a group's
    // NPUs (a job on part of the topology); grid rank r runs on NPU order[r]
    std::vector<tn_dim_info> grid(tn_topology_dim_count(m_topo));
    std::vector<uint32_t> order = npus;
    std::sort(order.begin(), order.end());
    bool every = true; // every NPU: the topology's dims as they are, sizes of 1 included
    for (uint32_t r = 0; r < order.size(); r++)
    {
        every = every && order[r] == r;
    }
    if (npus.empty() || (every && order.size() == tn_topology_npu_count(m_topo)))
    {
        order.clear();
        for (uint32_t d = 0; d < grid.size(); d++)
        {
            grid[d] = *tn_topology_dim(m_topo, d);
        }
        for (uint32_t r = 0; r < tn_topology_npu_count(m_topo); r++)
        {
            order.push_back(r);
        }
    }
    else
    {
        order.resize(npus.size());
        uint32_t dims = 0;
        tn_error err;
        if (tn_topology_subgrid(m_topo,
                                npus.data(),
                                uint32_t(npus.size()),
                                grid.data(),
                                &dims,
                                order.data(),
                                &err) != TN_OK)
        {
            *error = std::string("a run-time scheduler splits over dimensions, and ") + err.message;
            return nullptr;
        }
        grid.resize(dims);
    }
    // scheduled at run time, no estimate
    *error = CheckLowerBound(request, order);
    if (!error->empty())
    {
        return nullptr;
    }
    const uint32_t chunks = request.chunks ? request.chunks : TN_THEMIS_DEFAULT_CHUNKS;
    const uint32_t active =
        request.themis.active_chunks_per_dim ? request.themis.active_chunks_per_dim : 1;
    Ptr<ThemisCollective> themis = CreateObject<ThemisCollective>();
    if (!themis->Setup(check ? m_nextId : m_nextId++,
                       grid,
                       request.collective,
                       request.bytes,
                       chunks,
                       active,
                       policy,
                       baseline,
                       error))
    {
        return nullptr;
    }
    for (uint32_t c = 0; c < themis->GetChunks(); c++)
    {
        for (uint32_t k = 0; k < themis->GetPhasesPerChunk(); k++)
        {
            const uint32_t dim = themis->GetPhaseDim(c, k);
            const tn_dim_kind kind = grid[dim].kind;
            // the dim's own algorithm. A ring of more than 2 NPUs runs both directions: the
            // balancer plans with the dim's bandwidth (rate x cables), which a one-way ring
            // would halve (Themis then lost 0.75x on an FC/ring/switch system)
            const bool ring = kind == TN_DIM_RING || kind == TN_DIM_TORUS;
            const char* algorithm = !ring ? "direct" : (grid[dim].size > 2 ? "ring-bidir" : "ring");
            for (uint32_t leader : themis->GetLeaders(dim))
            {
                std::vector<uint32_t> group = themis->GetGroup(leader, dim);
                for (uint32_t& member : group)
                {
                    member = order[member];
                }
                tn_plan_request sub;
                tn_plan_request_init(&sub);
                sub.collective =
                    themis->IsReduceScatterPhase(k) ? TN_COLL_REDUCE_SCATTER : TN_COLL_ALL_GATHER;
                sub.algorithm = algorithm;
                sub.bytes = themis->GetPhaseBytes(c, k, leader);
                sub.memory_limit = request.memory_limit;
                Ptr<Collective> phase;
                if (check ? !Check(sub, group, error) : !(phase = Create(sub, group, error)))
                {
                    *error = "chunk " + std::to_string(c) + " phase " + std::to_string(k) +
                             " (dim " + std::to_string(dim) + ", group of NPU " +
                             std::to_string(order[leader]) + "): " + *error;
                    return nullptr;
                }
                if (!check)
                {
                    themis->SetPhaseCollective(c, k, leader, phase);
                }
            }
        }
    }
    if (check)
    {
        themis->Dispose();
        return themis; // planned, not installed: the caller only asks whether it can be
    }
    std::vector<Ptr<CollectiveExecutor>> executors;
    std::vector<uint32_t> nodes;
    for (uint32_t npu : order)
    {
        executors.push_back(m_executors[npu]);
        nodes.push_back(tn_topology_npu_node(m_topo, npu));
    }
    themis->Install(executors, nodes, order);
    m_scheduled.push_back(themis);
    themis->TraceConnectWithoutContext("End",
                                       MakeCallback(&CollectiveService::ScheduledEnded, this));
    NS_LOG_INFO("Themis collective " << themis->GetId() << ": " << scheduler << ", "
                                     << tn_collective_name(request.collective) << " of "
                                     << request.bytes << " bytes, " << chunks
                                     << " chunks, A = " << active);
    return themis;
}

void
CollectiveService::Start(Ptr<ThemisCollective> collective, Time delay)
{
    for (uint32_t r = 0; r < collective->GetRanks(); r++)
    {
        Simulator::ScheduleWithContext(collective->GetNode(r),
                                       delay,
                                       &ThemisCollective::StartRank,
                                       collective,
                                       r);
    }
}

Ptr<ThemisCollective>
CollectiveService::RunScheduled(tn_collective collective,
                                uint64_t bytes,
                                ThemisCollective::DoneCallback done)
{
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = collective;
    request.bytes = bytes;
    request.chunks = TN_THEMIS_DEFAULT_CHUNKS;
    // with one slot a dim idles for a START message between phases (doc/npu-themis.rst)
    request.themis.active_chunks_per_dim = 4;
    std::string error;
    Ptr<ThemisCollective> c = CreateScheduled(request, m_scheduler, &error);
    // internal invariant: Run and RunScheduled are the C++ shortcuts for requests their caller
    // checked (Check); programs use Create and print its error
    NS_ABORT_MSG_IF(!c, "CollectiveService: " << error);
    c->SetDoneCallback(done);
    Start(c);
    return c;
}

} // namespace ns3
