/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "stats-helper.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/collective-executor.h"
#include "ns3/data-rate.h"
#include "ns3/distributed-helper.h"
#include "ns3/flow-network.h"
#include "ns3/log.h"
#include "ns3/network-probes.h"
#include "ns3/node.h"
#include "ns3/npu-helper.h"
#include "ns3/npu-probes.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ideal-fct.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-wire.h"
#include "ns3/simple-ref-count.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-routing.h"
#include "ns3/training-helper.h"
#include "ns3/training-job.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StatsHelper");

namespace
{

/// The device at the other end of a point-to-point channel (null if unconnected).
Ptr<PointToPointNetDevice>
PeerOf(Ptr<PointToPointNetDevice> dev)
{
    Ptr<Channel> channel = dev->GetChannel();
    for (std::size_t i = 0; channel && i < channel->GetNDevices(); ++i)
    {
        if (channel->GetDevice(i) != dev)
        {
            return DynamicCast<PointToPointNetDevice>(channel->GetDevice(i));
        }
    }
    return nullptr;
}

/// A device's port: its index among its node's point-to-point devices (as StatsRecorder).
uint32_t
PortOf(Ptr<PointToPointNetDevice> dev)
{
    uint32_t port = 0;
    Ptr<Node> node = dev->GetNode();
    for (uint32_t d = 0; d < node->GetNDevices() && node->GetDevice(d) != dev; ++d)
    {
        port += DynamicCast<PointToPointNetDevice>(node->GetDevice(d)) ? 1 : 0;
    }
    return port;
}

/// Ideal FCTs of a topology (routes computed once; StatsRecorder memoizes the answers).
class IdealFct : public SimpleRefCount<IdealFct>
{
  public:
    /// \param owner the holder of topo and routes, kept alive; null: the routes are this one's
    IdealFct(const tn_topology* topo, const tn_routes* routes, Ptr<Object> owner, uint32_t mtu)
        : m_topo(topo),
          m_routes(routes),
          m_owner(owner),
          m_mtu(mtu)
    {
    }

    ~IdealFct()
    {
        if (!m_owner)
        {
            tn_routes_destroy(const_cast<tn_routes*>(m_routes));
        }
    }

    static uint64_t Get(Ptr<IdealFct> self, uint32_t src, uint32_t dst, uint64_t bytes)
    {
        if (src == dst || tn_routes_distance(self->m_routes, src, dst) == TN_ROUTES_UNREACHABLE)
        {
            return 0;
        }
        return RoceIdealFctNs(self->m_topo, self->m_routes, src, dst, bytes, self->m_mtu);
    }

  private:
    const tn_topology* m_topo;
    const tn_routes* m_routes;
    Ptr<Object> m_owner;
    uint32_t m_mtu;
};

/// A helper's result in the C core's terms: the message in *error (TN_EDB) when it failed.
Ptr<StatsRecorder>
InCoreTerms(Ptr<StatsRecorder> recorder, const std::string& why, tn_error* error)
{
    if (!recorder)
    {
        tn_error_set(error, TN_EDB, "%s", why.c_str());
    }
    return recorder;
}

} // namespace

StatsHelper::StatsHelper()
{
    m_factory.SetTypeId(StatsRecorder::GetTypeId());
}

StatsHelper::~StatsHelper() = default;

bool
StatsHelper::OpenShared(Ptr<StatsRecorder> recorder, const std::string& path, std::string* error)
{
    if (DistributedHelper::GetEngine() != "granted")
    {
        // every rank sees the same engine: each returns the same error
        *error = path + ": recording a distributed run needs the granted engine "
                        "(TN_MPI_ENGINE=granted, the default): with null messages no rank can "
                        "tell when every rank is idle";
        return false;
    }
    // rank 0 first (it creates the schema of a new file), then the others
    const bool root = DistributedHelper::GetRank() == 0;
    std::string why;
    bool ok = !root || recorder->Open(path, &why);
    if (!DistributedHelper::AllOf(ok))
    {
        *error = root ? why : path + ": rank 0 could not open it";
        return false;
    }
    ok = root || recorder->Open(path, &why);
    if (!DistributedHelper::AllOf(ok))
    {
        *error = ok ? path + ": another rank could not open it" : why;
        return false;
    }
    recorder->SetRankSync(DistributedHelper::GetRank(),
                          MakeCallback(&DistributedHelper::SyncTick),
                          MakeCallback(&DistributedHelper::AllGather));
    return true;
}

std::string
StatsHelper::FinishShared(const std::string& status, uint64_t simulatedNs, const std::string& error)
{
    const bool root = DistributedHelper::GetRank() == 0;
    m_recorder->GatherCollectives();
    // the other ranks write their rows first; the run's status, written by rank 0 once they
    // have, is the worst of all ranks: an error anywhere, else a signal anywhere, else ok
    std::string mine = status;
    if (!root)
    {
        mine = m_recorder->Finish(status, simulatedNs, error);
    }
    else if (!m_recorder->GetError().empty())
    {
        mine = "error";
    }
    else if (mine == "ok" && (m_recorder->IsAborted() || tn_signal_pending()))
    {
        mine = "aborted";
    }
    const double worst = DistributedHelper::MaxAll(mine == "ok"        ? 0.0
                                                   : mine == "aborted" ? 1.0
                                                                       : 2.0);
    const std::string all = worst >= 2 ? "error" : worst >= 1 ? "aborted" : "ok";
    std::string final = all;
    if (root)
    {
        final = m_recorder->Finish(all,
                                   simulatedNs,
                                   all == status ? error : "a rank's part of the run is " + all);
    }
    const int64_t code = DistributedHelper::Broadcast(final == "ok"        ? 0
                                                      : final == "aborted" ? 1
                                                                           : 2);
    return code == 0 ? "ok" : code == 1 ? "aborted" : "error";
}

void
StatsHelper::SetRecorderAttribute(std::string name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

namespace
{

/// Add "key":"value" to a JSON object's text unless the key is there.
void
AddParam(std::string* params, const std::string& key, const std::string& value)
{
    if (params->find("\"" + key + "\"") != std::string::npos)
    {
        return;
    }
    const std::size_t brace = params->find('{');
    const std::string item = "\"" + key + "\":\"" + value + "\"";
    if (brace == std::string::npos)
    {
        *params = "{" + item + "}";
        return;
    }
    const bool empty = params->find_first_not_of(" \t\n", brace + 1) == params->find('}');
    params->insert(brace + 1, item + (empty ? "" : ","));
}

} // namespace

Ptr<StatsRecorder>
StatsHelper::Install(const std::string& path,
                     const std::string& name,
                     const std::string& paramsJson,
                     const tn_topology* topo,
                     const RoceHelper& roce,
                     std::string* error)
{
    Ptr<StatsRecorder> recorder = m_factory.Create<StatsRecorder>();
    if (DistributedHelper::GetSize() > 1)
    {
        if (!OpenShared(recorder, path, error))
        {
            return nullptr;
        }
    }
    else if (!recorder->Open(path, error))
    {
        return nullptr;
    }
    if (!Record(recorder, name, paramsJson, topo, roce, error))
    {
        return nullptr;
    }
    return recorder;
}

Ptr<StatsRecorder>
StatsHelper::Install(tn_db* db,
                     const std::string& name,
                     const std::string& paramsJson,
                     const tn_topology* topo,
                     const RoceHelper& roce,
                     std::string* error)
{
    Ptr<StatsRecorder> recorder = m_factory.Create<StatsRecorder>();
    recorder->SetDatabase(db);
    if (!Record(recorder, name, paramsJson, topo, roce, error))
    {
        return nullptr;
    }
    return recorder;
}

Ptr<StatsRecorder>
StatsHelper::Install(const std::string& path,
                     const std::string& name,
                     const std::string& paramsJson,
                     const NodeContainer& nodes,
                     std::string* error)
{
    Ptr<StatsRecorder> recorder = m_factory.Create<StatsRecorder>();
    std::string params = paramsJson;
    AddParam(&params, "port_sampling", recorder->GetPortSampling());
    if (!recorder->Open(path, error) || !recorder->BeginRun(name, params, error))
    {
        return nullptr;
    }
    uint32_t linkId = 0;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<Node> node = nodes.Get(i);
        recorder->AddNode(node, node->GetId(), -1);
        uint32_t port = 0;
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (!dev)
            {
                continue;
            }
            Ptr<PointToPointNetDevice> peer = PeerOf(dev);
            DataRateValue rate;
            dev->GetAttribute("DataRate", rate);
            TimeValue delay;
            dev->GetChannel()->GetAttribute("Delay", delay);
            tn_db_link row{linkId++,
                           node->GetId(),
                           port++,
                           peer ? peer->GetNode()->GetId() : node->GetId(),
                           peer ? PortOf(peer) : 0,
                           rate.Get().GetBitRate(),
                           uint64_t(delay.Get().GetNanoSeconds()),
                           0};
            recorder->AddLink(row);
        }
    }
    recorder->Start();
    m_recorder = recorder;
    return recorder;
}

Ptr<StatsRecorder>
StatsHelper::Install(const std::string& path,
                     const std::string& name,
                     const std::string& paramsJson,
                     const tn_topology* topo,
                     const RoceHelper& roce,
                     tn_error* error)
{
    std::string why;
    return InCoreTerms(Install(path, name, paramsJson, topo, roce, &why), why, error);
}

Ptr<StatsRecorder>
StatsHelper::Install(tn_db* db,
                     const std::string& name,
                     const std::string& paramsJson,
                     const tn_topology* topo,
                     const RoceHelper& roce,
                     tn_error* error)
{
    std::string why;
    return InCoreTerms(Install(db, name, paramsJson, topo, roce, &why), why, error);
}

Ptr<StatsRecorder>
StatsHelper::Install(const std::string& path,
                     const std::string& name,
                     const std::string& paramsJson,
                     const NodeContainer& nodes,
                     tn_error* error)
{
    std::string why;
    return InCoreTerms(Install(path, name, paramsJson, nodes, &why), why, error);
}

bool
StatsHelper::Record(Ptr<StatsRecorder> recorder,
                    const std::string& name,
                    const std::string& paramsJson,
                    const tn_topology* topo,
                    const RoceHelper& roce,
                    std::string* error)
{
    // every run says which level produced it, and which ports it samples
    std::string params = paramsJson;
    AddParam(&params, "mode", RoceFabric::GetModeName(roce.GetMode()));
    AddParam(&params, "port_sampling", recorder->GetPortSampling());
    if (recorder->IsRankPart())
    {
        // one run: rank 0 begins it, the other ranks add their rows to it
        const bool begun = recorder->GetRank() != 0 || recorder->BeginRun(name, params, error);
        const int64_t runId = DistributedHelper::Broadcast(begun ? recorder->GetRunId() : -1);
        if (runId < 0)
        {
            *error = begun ? "rank 0 could not begin the run" : *error;
            return false;
        }
        if (recorder->GetRank() != 0)
        {
            recorder->JoinRun(runId);
        }
    }
    else if (!recorder->BeginRun(name, params, error))
    {
        return false;
    }
    const RoceFabricNodes& fabric = roce.GetFabric();
    // the MTU of the NICs: this process's first NPU (in a distributed run the others' are
    // not built here)
    Ptr<RdmaTransport> transport;
    for (uint32_t r = 0; !transport && r < fabric.npus.GetN(); ++r)
    {
        transport = roce.GetTransport(r);
    }
    // internal invariant: an API contract kept by the helpers and programs; no option or file
    // reaches it
    NS_ABORT_MSG_IF(fabric.nodes.GetN() != tn_topology_node_count(topo),
                    "StatsHelper: the RoceHelper did not install this topology");
    // flow level: a node's ports are the out-links of the fluid network
    Ptr<FlowNetwork> fluid = transport ? roce.GetFlowNetwork() : nullptr;
    m_fluid = fluid;
    m_packetWire = fluid ? transport->GetMtu() + RoceWire::DATA_OVERHEAD : 0;
    m_jobPorts.clear();
    recorder->SetPortTopology(topo); // before AddNode: the ports per-dimension chooses
    for (uint32_t v = 0; v < tn_topology_node_count(topo); ++v)
    {
        if (!roce.IsLocal(v))
        {
            continue; // another rank records it
        }
        const bool npu = tn_topology_node_kind(topo, v) == TN_NODE_NPU;
        Ptr<Node> node = fabric.nodes.Get(v);
        Ptr<StatsProbe> ports =
            fluid && !node->GetObject<RoceSwitch>()
                ? FlowNetworkPortProbe::Attach(PeekPointer(recorder), fluid, transport->GetMtu(), v)
                : nullptr;
        recorder->AddNode(node, v, npu ? int64_t(tn_topology_node_rank(topo, v)) : -1, ports);
        Ptr<CollectiveExecutor> executor = node->GetObject<CollectiveExecutor>();
        if (executor)
        {
            recorder->GetCollectiveProbe()->AddExecutor(executor);
        }
    }
    if (roce.GetDeadlockWatch())
    {
        recorder->WatchDeadlocks(roce.GetDeadlockWatch());
    }
    for (uint32_t i = 0; i < tn_topology_link_count(topo); ++i)
    {
        const tn_link* l = tn_topology_link(topo, i);
        if (!roce.IsLocal(l->src))
        {
            continue; // the rank of its sending node records it
        }
        tn_db_link row{l->id,
                       l->src,
                       l->src_port,
                       l->dst,
                       l->dst_port,
                       l->rate_bps,
                       l->latency_ns,
                       int32_t(l->dim)};
        recorder->AddLink(row);
    }
    BooleanValue flows;
    recorder->GetAttribute("Flows", flows);
    // the flow network's routes where they are the shortest-path ones the ideal FCT takes (one
    // table for a topology file, not two); the IdealFct holds the network, their owner
    const tn_routes* shared =
        fluid && fluid->GetRoutes() && tn_routes_order(fluid->GetRoutes()) == TN_ROUTE_SHORTEST
            ? fluid->GetRoutes()
            : nullptr;
    if (transport && flows.Get() && shared) // the ideal FCT is only for flow rows
    {
        Ptr<IdealFct> ideal =
            Create<IdealFct>(fluid->GetTopology(), shared, fluid, transport->GetMtu());
        recorder->SetIdealFctCallback(MakeBoundCallback(&IdealFct::Get, ideal));
    }
    else if (transport && flows.Get())
    {
        tn_routes* routes = nullptr;
        tn_error err{};
        if (tn_routes_create(topo, nullptr, &routes, &err) == TN_OK)
        {
            Ptr<IdealFct> ideal = Create<IdealFct>(topo, routes, nullptr, transport->GetMtu());
            recorder->SetIdealFctCallback(MakeBoundCallback(&IdealFct::Get, ideal));
        }
        else
        {
            NS_LOG_WARN("no ideal FCT: " << err.message);
        }
    }
    recorder->Start();
    m_recorder = recorder;
    return true;
}

void
StatsHelper::AddTrainingJob(Ptr<TrainingJob> job)
{
    NS_ASSERT_MSG(m_recorder, "StatsHelper: Install first");
    m_recorder->AddProbe(CreateObject<TrainingJobProbe>(PeekPointer(m_recorder),
                                                        job,
                                                        m_recorder->GetCollectiveProbe()));
}

void
StatsHelper::AddJob(const tn_db_job& row,
                    const std::vector<uint32_t>& npus,
                    const tn_topology* topo)
{
    NS_ASSERT_MSG(m_recorder, "StatsHelper: Install first");
    m_recorder->WriteJob(row);
    std::vector<uint32_t> nodes;
    for (uint32_t npu : npus)
    {
        nodes.push_back(tn_topology_npu_node(topo, npu));
        m_recorder->SetJobOfNode(nodes.back(), row.job);
        if (m_fluid)
        {
            m_fluid->SetNodeGroup(nodes.back(), row.job); // its flows' bytes count for the job
        }
    }
    if (npus.size() < 2 || npus.size() > MAX_JOB_PORT_NPUS)
    {
        return;
    }
    tn_routes_options options{};
    options.dest_nodes = nodes.data();
    options.dest_count = uint32_t(nodes.size());
    tn_routes* routes = nullptr;
    tn_error err{};
    if (tn_routes_create(topo, &options, &routes, &err) != TN_OK)
    {
        NS_LOG_WARN("job " << row.job << ": no ports recorded: " << err.message);
        return;
    }
    // the out-links of every shortest path from each NPU of the job to each other one: a walk
    // of the next-hop DAG toward each destination, each node once per destination
    std::vector<bool> used(tn_topology_link_count(topo), false);
    std::vector<uint32_t> hops;
    std::vector<uint32_t> seen(tn_topology_node_count(topo), UINT32_MAX);
    for (uint32_t d = 0; d < nodes.size(); d++)
    {
        std::vector<uint32_t> frontier;
        for (uint32_t s = 0; s < nodes.size(); s++)
        {
            if (s != d && seen[nodes[s]] != d)
            {
                seen[nodes[s]] = d;
                frontier.push_back(nodes[s]);
            }
        }
        while (!frontier.empty())
        {
            const uint32_t v = frontier.back();
            frontier.pop_back();
            hops.resize(tn_topology_degree(topo, v));
            const uint32_t n =
                tn_routes_next_hops(routes, v, nodes[d], hops.data(), uint32_t(hops.size()));
            for (uint32_t k = 0; k < n && k < hops.size(); k++)
            {
                used[hops[k]] = true;
                const uint32_t w = tn_topology_link(topo, hops[k])->dst;
                if (w != nodes[d] && seen[w] != d)
                {
                    seen[w] = d;
                    frontier.push_back(w);
                }
            }
        }
    }
    tn_routes_destroy(routes);
    for (uint32_t l = 0; l < used.size(); l++)
    {
        if (used[l])
        {
            const tn_link* link = tn_topology_link(topo, l);
            m_jobPorts[row.job].insert({link->src, link->src_port});
        }
    }
}

void
StatsHelper::AddLlmPlacement(const TrainingHelper& training, const NpuHelper& npus)
{
    NS_ASSERT_MSG(m_recorder, "StatsHelper: Install first");
    const tn_llm_program* program = training.GetLlmProgram();
    if (!program)
    {
        return;
    }
    // the program's placement is over the job's NPUs (SetNpus; all of them by default)
    const std::vector<uint32_t>& npuOfRank = training.GetRankPlacement();
    const std::vector<uint32_t>& jobNpus = training.GetNpus();
    for (uint32_t rank = 0; rank < npuOfRank.size(); rank++)
    {
        uint32_t coord[TN_LLM_DIMS];
        tn_llm_coord(tn_llm_program_layout(program), rank, coord);
        const uint32_t npu = jobNpus.empty() ? npuOfRank[rank] : jobNpus[npuOfRank[rank]];
        Ptr<NpuEndpoint> e = npus.GetEndpoint(npu);
        Ptr<CollectiveExecutor> exec = e->GetObject<CollectiveExecutor>();
        tn_db_llm_rank row{};
        row.node = exec && exec->GetNic() ? exec->GetNic()->GetLocalId() : npu;
        row.rank = rank;
        row.tp = coord[TN_LLM_DIM_TP];
        row.ep = coord[TN_LLM_DIM_EP];
        row.dp = coord[TN_LLM_DIM_DP];
        row.pp = coord[TN_LLM_DIM_PP];
        m_recorder->WriteLlmRank(row);
    }
}

void
StatsHelper::AddScheduledCollective(Ptr<ThemisCollective> collective)
{
    NS_ASSERT_MSG(m_recorder, "StatsHelper: Install first");
    m_recorder->GetCollectiveProbe()->AddScheduledCollective(collective);
}

void
StatsHelper::LimitSimulatedTime(Time planCost, const std::string& origin)
{
    NS_ASSERT_MSG(m_recorder, "StatsHelper: Install first");
    // within ns-3's 64-bit time
    const double ns = std::min(double(planCost.GetNanoSeconds()) * SIMULATED_TIME_FACTOR, 9e18);
    const Time limit = std::max(Seconds(1), NanoSeconds(int64_t(ns)));
    std::ostringstream why;
    why << SIMULATED_TIME_FACTOR << " x " << origin << ", " << planCost.GetSeconds()
        << " s, at least 1 s";
    m_recorder->SetSimulatedTimeLimit(limit, why.str());
}

std::string
StatsHelper::CheckRunLength(Time planCost, Time interval, const std::string& origin)
{
    const double ticks = planCost.GetSeconds() / std::max(interval.GetSeconds(), 1e-9);
    if (ticks <= double(MAX_SAMPLE_TICKS))
    {
        return "";
    }
    std::ostringstream why;
    why << "the run would last at least " << planCost.GetSeconds() << " simulated seconds ("
        << origin << "), more than " << MAX_SAMPLE_TICKS << " sample intervals of "
        << interval.GetSeconds()
        << " s (StatsRecorder::SampleInterval): give smaller sizes or a longer sampling interval";
    return why.str();
}

Time
StatsHelper::TransferBound(const tn_topology* topo, uint64_t bytes)
{
    uint64_t slowest = UINT64_MAX;
    uint64_t farthest = 0;
    for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        slowest = std::min(slowest, link->rate_bps);
        farthest = std::max(farthest, link->latency_ns);
    }
    if (slowest == UINT64_MAX || slowest == 0)
    {
        return Seconds(0);
    }
    const double ns = 2.0 * double(bytes) * 8e9 / double(slowest) +
                      double(farthest) * tn_topology_node_count(topo);
    return NanoSeconds(int64_t(std::min(ns, 9e18)));
}

void
StatsHelper::WriteJobPorts()
{
    // flow level: the wire bytes each job's ended flows carried per link, as frames of full
    // packets (the rule of FlowNetworkPortProbe, so a port's jobs add up to its tx_bytes
    // within a frame overhead per job); packet level: not measured
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> bytes;
    for (const auto& [job, ports] : m_jobPorts)
    {
        for (const auto& [node, port] : ports)
        {
            bytes[{job, node, port}] = m_fluid ? 0 : -1;
        }
    }
    for (const auto& [groupLink, bits] :
         m_fluid ? m_fluid->GetGroupLinkBits() : std::map<std::pair<uint32_t, uint32_t>, double>())
    {
        const tn_link* link = tn_topology_link(m_fluid->GetTopology(), groupLink.second);
        const double wire = bits / 8.0;
        const double packets = std::ceil(wire / m_packetWire - 1e-9);
        const double frames = wire - packets * RoceNetDevice::WIRE_OVERHEAD;
        bytes[{groupLink.first, link->src, link->src_port}] =
            frames > 0 ? int64_t(frames + 0.5) : 0;
    }
    for (const auto& [key, tx] : bytes)
    {
        m_recorder->WriteJobPort({std::get<0>(key), std::get<1>(key), std::get<2>(key), tx});
    }
    m_jobPorts.clear();
}

std::string
StatsHelper::Finish(const std::string& status, uint64_t simulatedNs, const std::string& error)
{
    NS_ASSERT_MSG(m_recorder, "StatsHelper: Install first");
    WriteJobPorts();
    if (m_recorder->IsRankPart())
    {
        return FinishShared(status, simulatedNs, error);
    }
    return m_recorder->Finish(status, simulatedNs, error);
}

} // namespace ns3
