/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The readers of a scenario point's tables (contract in scenario-reader.h): one function per
 * TOML table, each reading its keys with a TableReader and validating them through the objects
 * the runner builds from them (RoceHelper, RdmaNic, NpuEndpoint, the core's planner), so a
 * value the run would refuse is refused here, at its key. ReadPoint calls them in the order of
 * kTables and then reads what runs.
 */
#include "distributed-helper.h"
#include "roce-helper.h"
#include "scenario-reader.h"

#include "ns3/attribute-settings.h"
#include "ns3/npu-endpoint.h"
#include "ns3/port-sampling.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-astra.h"
#include "ns3/tn-chakra.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-simai.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"
#include "ns3/tn-workload.h"
#include "ns3/type-id.h"

#include <algorithm>

namespace ns3
{
namespace scenario
{

namespace
{

/// Top-level keys: name, seed, run, database, routing, mode, verify.
void
ReadTopLevel(PointContext& ctx)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    const ScenarioConfig::Impl& cfg = ctx.cfg;
    TableReader& top = ctx.top;
    p.name = top.String("name", BaseName(cfg.file));
    p.seed = uint32_t(top.Uint("seed", 1, 1, AttributeSettings::MAX_SEED));
    p.run = top.Uint("run", 1, 0, UINT64_MAX >> 1);
    p.database = top.String("database", "results.db");
    if (p.database.empty())
    {
        r.Fail(cfg.root.get("database"), "database", "an empty path");
    }
    p.routing = top.Choice("routing", "planned", {"planned", "ecmp"});
    p.mode =
        top.Choice("mode", RoceFabric::GetModeName(RoceFabric::PACKET), RoceFabric::GetModeNames());
    p.verify = top.Bool("verify", true);
}

/// [topology]: a generator spec or a file, built once per sweep (TopologyCache); then the
/// top-level partition and the fabric's own check of the topology at the point's mode.
void
ReadTopologyTable(PointContext& ctx)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    const ScenarioConfig::Impl& cfg = ctx.cfg;
    TableReader& top = ctx.top;
    TopologyCache* topologies = ctx.topologies;
    // [topology]: a generator spec or a file.
    const toml::table* topoTable = ctx.Table("topology");
    if (!topoTable)
    {
        r.Fail(nullptr, "topology", "missing table [topology] (spec = \"...\" or file = \"...\")");
    }
    TableReader topo(r, topoTable, "topology");
    p.topologySpec = topo.String("spec", "");
    std::string file = topo.String("file", "");
    // a system preset (tn-topology.h) is its spec: read only when given, so the parameters
    // of the other scenarios stay as they were
    bool preset = false;
    for (const char* key : {"preset", "servers", "gpus", "fabric", "sharp"})
    {
        preset |= topoTable && topoTable->contains(key);
    }
    if (preset)
    {
        const std::string name = topo.String("preset", "");
        const uint64_t servers = topo.Uint("servers", 1, 1, 1u << 24);
        const uint64_t gpus = topo.Uint("gpus", 0, 2, 1u << 20);
        const std::string fabric = topo.String("fabric", "rail-optimized");
        const bool sharp = topo.Bool("sharp", false);
        if (name.empty() || !p.topologySpec.empty() || !file.empty())
        {
            r.Fail(topoTable,
                   "topology.preset",
                   name.empty() ? "servers, gpus, fabric and sharp need preset = \"dgx-h100\" (or "
                                  "dgx-a100, gb200-nvl72)"
                                : "give preset, spec or file, one of them");
        }
        p.topologySpec = name + ":servers=" + std::to_string(servers) + ",fabric=" + fabric +
                         (gpus ? ",gpus=" + std::to_string(gpus) : "") + (sharp ? ",sharp=1" : "");
    }
    // an ASTRA-sim network YAML is its hier spec (tn-astra.h): read only when given, as a preset
    const toml::node* astra = topoTable ? r.Resolve(topoTable->get("astra")) : nullptr;
    if (astra)
    {
        const std::string yml = topo.String("astra", "");
        if (preset || !p.topologySpec.empty() || !file.empty())
        {
            r.Fail(astra, "topology.astra", "give astra, preset, spec or file, one of them");
        }
        const std::string path = yml.empty() || yml[0] == '/' ? yml : cfg.baseDir + yml;
        tn_astra_network net;
        tn_error err;
        char spec[512];
        if (tn_astra_network_read(path.c_str(), &net, &err) != TN_OK ||
            tn_astra_network_spec(&net, spec, sizeof(spec), &err) != TN_OK)
        {
            r.Fail(astra, "topology.astra", err.message);
        }
        p.topologySpec = spec;
    }
    topo.Done();
    if (p.topologySpec.empty() == file.empty())
    {
        r.Fail(topoTable,
               "topology",
               p.topologySpec.empty() ? "give spec = \"...\" or file = \"...\""
                                      : "give spec or file, not both");
    }
    if (!file.empty())
    {
        p.topologyFile = file[0] == '/' ? file : cfg.baseDir + file;
    }
    std::string topoError;
    const tn_topology* t = p.topologyFile.empty()
                               ? topologies->Get(p.topologySpec, false, &topoError)
                               : topologies->Get(p.topologyFile, true, &topoError);
    if (!t)
    {
        r.Fail(r.Resolve(topoTable->get(preset                   ? "preset"
                                        : p.topologyFile.empty() ? "spec"
                                                                 : "file")),
               preset                   ? "topology.preset"
               : p.topologyFile.empty() ? "topology.spec"
                                        : "topology.file",
               topoError);
    }
    ctx.t = t;
    // partition: the nodes of each MPI rank. A distributed run needs as many ranks as it
    // has; a run in one process checks it against its own number of ranks and does not use
    // it, so that one scenario runs both ways.
    const uint32_t ranks = ctx.ranks;
    RoceHelper fabric;
    if (const toml::node* n = top.Get("partition"))
    {
        if (!n->is_string())
        {
            r.Fail(n, "partition", "expected a string, got " + TypeName(*n));
        }
        const std::string text = n->as_string()->get();
        const uint32_t named = 1 + uint32_t(std::count(text.begin(), text.end(), ';'));
        const uint32_t partRanks = ranks > 1 ? ranks : named;
        std::vector<uint32_t> partition;
        std::string why =
            RoceHelper::ParsePartition(text, tn_topology_node_count(t), partRanks, &partition);
        if (why.empty())
        {
            RoceHelper placed;
            placed.SetPartition(partition);
            std::vector<uint32_t> checked;
            why = placed.MakePartition(t, partRanks, &checked);
        }
        if (!why.empty())
        {
            // RoceHelper's reasons begin with the word the key already says
            const std::string prefix = "partition: ";
            r.Fail(n,
                   "partition",
                   why.compare(0, prefix.size(), prefix) == 0 ? why.substr(prefix.size()) : why);
        }
        r.Param("partition", ValueJson(*n));
        if (ranks > 1)
        {
            p.partition = partition;
            fabric.SetPartition(partition);
        }
    }
    if (ranks > 1 && RoceFabric::IsFlowMode(p.mode))
    {
        r.Fail(r.Resolve(cfg.root.get("mode")),
               "mode",
               "the flow level runs in one process, not over " + std::to_string(ranks) +
                   " MPI ranks");
    }
    fabric.SetMode(p.mode); // flow-symmetric checks the topology's translations
    if (std::string why = fabric.Check(t); !why.empty())
    {
        r.Fail(r.Resolve(topoTable->get(p.topologyFile.empty() ? "spec" : "file")),
               p.topologyFile.empty() ? "topology.spec" : "topology.file",
               why);
    }
    if (tn_topology_npu_count(t) == 0)
    {
        r.Fail(r.Resolve(topoTable->get(p.topologyFile.empty() ? "spec" : "file")),
               p.topologyFile.empty() ? "topology.spec" : "topology.file",
               "the topology has no NPU");
    }
}

/// [roce]: any ns-3 attribute by its full name, cc, checked on an RdmaNic, routing and dateline.
void
ReadRoceTable(PointContext& ctx)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    // [roce]: any ns-3 attribute by its full name, set as a default before the fabric is built.
    const toml::table* roceTable = ctx.Table("roce");
    TableReader roce(r, roceTable, "roce");
    std::vector<std::pair<std::string, const toml::node*>> roceNodes; //!< key, its value
    for (const auto& kv : roce.All())
    {
        const std::string path = "roce." + kv.first;
        const toml::node* v = roce.Value(kv.first, kv.second);
        if (kv.first == "routing")
        {
            // the fabric's route order by its short name (RoceHelper::SetRouting)
            p.routeOrder = v->is_string() ? v->as_string()->get() : std::string();
            tn_route_order order;
            if (!tn_route_order_parse(p.routeOrder.c_str(), &order))
            {
                r.Fail(v, path, "expected a route order: shortest or dimension-order");
            }
            r.Param(path, ValueJson(*v));
            continue;
        }
        if (kv.first == "dateline")
        {
            // the torus dateline of dimension-order routing (RoceHelper::SetDateline)
            if (!v->is_boolean())
            {
                r.Fail(v, path, "expected true or false");
            }
            p.dateline = v->is_boolean() && v->as_boolean()->get();
            r.Param(path, ValueJson(*v));
            continue;
        }
        if (kv.first == "cc")
        {
            // the congestion control by its short or TypeId name (RdmaNic::CongestionControl)
            const std::string name = v->is_string() ? v->as_string()->get() : std::string();
            TypeId tid;
            if (!v->is_string() || !RdmaCcRegistry::Resolve(name, &tid))
            {
                r.Fail(v,
                       path,
                       "expected a congestion control: " + RdmaCcRegistry::ListNames() +
                           ", or the TypeId name of a subclass of ns3::RdmaCongestionControl");
            }
            if (RoceFabric::IsFlowMode(p.mode))
            {
                r.Fail(v,
                       path,
                       "needs packet level, but mode = \"" + p.mode +
                           "\" (flow level has no congestion control)");
            }
            p.roce.emplace_back("ns3::RdmaNic::CongestionControl", name);
            r.Param(path, ValueJson(*v));
            roceNodes.emplace_back(kv.first, v);
            continue;
        }
        const std::string value = ValueText(*v);
        if (std::string why; !AttributeSettings::CheckDefault(kv.first, value, &why))
        {
            r.Fail(v, path, why);
        }
        if (RoceFabric::IsFlowMode(p.mode) && RoceHelper::NeedsPackets(kv.first))
        {
            r.Fail(v,
                   path,
                   "needs packet level, but mode = \"" + p.mode +
                       "\" (flow level has no packets, "
                       "switch buffers, PFC or congestion control; ns3::RdmaNic::Mtu, "
                       "ns3::FlowNetwork and ns3::FlowNic attributes apply)");
        }
        p.roce.emplace_back(kv.first, value);
        r.Param(path, ValueJson(*v));
        roceNodes.emplace_back(kv.first, v);
    }
    // values each attribute accepts but the NIC or its congestion control cannot work with
    // together (eta outside (0, 1], T_low >= T_high, ...): refused now, at the key the
    // message names
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        for (const auto& kv : p.roce)
        {
            if (kv.first.rfind("ns3::RdmaNic::", 0) == 0)
            {
                nic->SetAttributeFailSafe(kv.first.substr(14), StringValue(kv.second));
            }
        }
        const TypeId ccTid = nic->GetCongestionControl();
        for (const auto& kv : p.roce)
        {
            const size_t sep = kv.first.rfind("::");
            TypeId owner;
            if (ccTid != RdmaCongestionControl::GetTypeId() &&
                TypeId::LookupByNameFailSafe(kv.first.substr(0, sep), &owner) &&
                (ccTid == owner || ccTid.IsChildOf(owner)))
            {
                nic->SetCongestionControlAttribute(kv.first.substr(sep + 2),
                                                   StringValue(kv.second));
            }
        }
        const std::string error = nic->GetConfigError();
        if (!error.empty())
        {
            const toml::node* at = roceNodes.empty() ? nullptr : roceNodes.front().second;
            std::string key = roceNodes.empty() ? "roce" : "roce." + roceNodes.front().first;
            for (const auto& n : roceNodes)
            {
                const std::string attr = n.first.substr(n.first.rfind("::") + 2);
                if (error.find("::" + attr) != std::string::npos ||
                    (n.first == "cc" && error.find("CongestionControl") != std::string::npos))
                {
                    at = n.second;
                    key = "roce." + n.first;
                    break;
                }
            }
            r.Fail(at, key, error);
        }
    }
}

/// [npu]: NpuEndpoint attributes by their short names, checked on an NpuEndpoint.
void
ReadNpuTable(PointContext& ctx)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    // [npu]: NpuEndpoint attributes by their short names.
    const toml::table* npuTable = ctx.Table("npu");
    TableReader npu(r, npuTable, "npu");
    for (const auto& kv : npu.All())
    {
        const std::string path = "npu." + kv.first;
        const toml::node* v = npu.Value(kv.first, kv.second);
        const std::string value = ValueText(*v);
        CheckAttribute(r, v, path, "ns3::NpuEndpoint", kv.first, value);
        p.npu.emplace_back(kv.first, value);
        r.Param(path, ValueJson(*v));
    }
    // values each attribute accepts but a run cannot finish with (a memory bandwidth of bits
    // per second): refused at the key the message names
    {
        Ptr<NpuEndpoint> endpoint = CreateObject<NpuEndpoint>();
        for (const auto& kv : p.npu)
        {
            endpoint->SetAttributeFailSafe(kv.first, StringValue(kv.second));
        }
        const std::string error = endpoint->GetConfigError();
        if (!error.empty())
        {
            std::string key = "npu";
            const toml::node* at = npuTable;
            for (const auto& kv : npu.All())
            {
                if (error.find("::" + kv.first + " ") != std::string::npos)
                {
                    key = "npu." + kv.first;
                    at = r.Resolve(kv.second);
                }
            }
            r.Fail(at, key, error);
        }
    }
    p.installNpus = npuTable != nullptr;
}

/// [sampling]: what the results database records.
void
ReadSamplingTable(PointContext& ctx)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    // [sampling]: what the results database records.
    const toml::table* samplingTable = ctx.Table("sampling");
    TableReader sampling(r, samplingTable, "sampling");
    p.sampleIntervalNs = sampling.TimeNs("interval", 10000);
    if (p.sampleIntervalNs == 0)
    {
        r.Fail(r.Resolve(samplingTable->get("interval")), "sampling.interval", "must be > 0");
    }
    p.portSamples = sampling.Bool("port_samples", true);
    // port_samples = false is ports = "none"; "ports" says which ports, checked as the
    // recorder's attribute checks it
    p.portSampling = sampling.String("ports", p.portSamples ? "all" : "none");
    PortSamplingMode mode;
    std::string why;
    const toml::node* portsNode = r.Resolve(samplingTable ? samplingTable->get("ports") : nullptr);
    if (!PortSamplingMode::Parse(p.portSampling, &mode, &why))
    {
        r.Fail(portsNode, "sampling.ports", why);
    }
    if (!p.portSamples && mode.kind != PortSamplingMode::NONE)
    {
        r.Fail(portsNode,
               "sampling.ports",
               "'" + p.portSampling + "' contradicts port_samples = false (which is \"none\")");
    }
    p.flows = sampling.Bool("flows", true);
    p.transfers = sampling.Bool("transfers", true);
    p.pfcEvents = sampling.Bool("pfc_events", true);
    p.drops = sampling.Bool("drops", true);
    sampling.Done();
}

/// A table that shapes the run, and its reader.
struct TableEntry
{
    const char* name;
    void (*read)(PointContext& ctx);
};

/**
 * The tables that shape the run, in the order they are read: an error names the first bad key
 * in this order, and later readers rely on what earlier ones resolved (the topology, the mode).
 * A new table: write its reader above (a TableReader over SubTable(r, cfg.root, name), its keys
 * checked through the objects the runner uses, Done() at the end, top.Known(name)) and add its
 * row here. A table that says what runs goes to ReadWhatRuns instead.
 */
const TableEntry kTables[] = {
    {"topology", ReadTopologyTable},
    {"roce", ReadRoceTable},
    {"npu", ReadNpuTable},
    {"sampling", ReadSamplingTable},
};

/**
 * [training] chakra: this build reads Chakra traces, the run is in one process, and the
 * traces PREFIX.<rank>.et of the topology's NPUs read and check together (tn-chakra.h).
 */
void
CheckChakra(PointReader& r,
            const std::string& key,
            const toml::node* where,
            const std::string& prefix,
            uint32_t npus,
            uint32_t ranks)
{
    if (!tn_chakra_supported())
    {
        r.Fail(where,
               key,
               "Chakra traces need protobuf-c, and training-net was built without it "
               "(apt-get install libprotobuf-c-dev, then configure again)");
    }
    if (ranks > 1)
    {
        r.Fail(where,
               key,
               "Chakra traces run in one process, not over " + std::to_string(ranks) +
                   " MPI ranks");
    }
    std::vector<tn_chakra_trace*> traces;
    std::string error;
    for (uint32_t k = 0; k < npus && error.empty(); k++)
    {
        const std::string path = prefix + "." + std::to_string(k) + ".et";
        tn_error err{};
        tn_chakra_trace* trace = nullptr;
        if (tn_chakra_load_file(path.c_str(), &trace, &err) != TN_OK)
        {
            error = err.message;
        }
        traces.push_back(trace);
    }
    tn_error err{};
    if (error.empty() && tn_chakra_check(traces.data(), npus, &err) != TN_OK)
    {
        error = err.message;
    }
    if (error.empty())
    {
        error = TrainingHelper::ExtraTraces(prefix, npus);
    }
    for (tn_chakra_trace* trace : traces)
    {
        tn_chakra_destroy(trace);
    }
    if (!error.empty())
    {
        r.Fail(where, key, error);
    }
}

/**
 * [training] simai: the run is in one process, and the file reads (tn-simai.h) and fits the
 * topology's NPUs (all_gpus and the group sizes).
 */
void
CheckSimai(PointReader& r,
           const std::string& key,
           const toml::node* where,
           const std::string& path,
           uint32_t npus,
           uint32_t ranks)
{
    if (ranks > 1)
    {
        r.Fail(where,
               key,
               "a SimAI workload runs in one process, not over " + std::to_string(ranks) +
                   " MPI ranks");
    }
    tn_error err{};
    tn_simai_workload* wl = nullptr;
    if (tn_simai_load_file(path.c_str(), &wl, &err) != TN_OK ||
        tn_simai_check(wl, npus, &err) != TN_OK)
    {
        r.Fail(where, key, err.message);
    }
    tn_simai_destroy(wl);
}

/// [[collective]]: collectives planned (or scheduled at run time), each checked by the planner.
void
ReadCollectiveTables(PointContext& ctx, const toml::node* collNode)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    const tn_topology* t = ctx.t;
    const uint32_t ranks = ctx.ranks;
    const toml::array* list = collNode->as_array();
    if (!list || !list->is_array_of_tables())
    {
        r.Fail(collNode,
               "collective",
               "expected [[collective]] tables, got " + TypeName(*collNode));
    }
    for (size_t i = 0; i < list->size(); i++)
    {
        const std::string path = "collective[" + std::to_string(i) + "]";
        const toml::table* ct = list->get(i)->as_table();
        TableReader c(r, ct, path);
        ScenarioCollective sc;
        const toml::node* opNode = r.Resolve(ct->get("op"));
        std::string op = c.String("op", "all-reduce");
        tn_error err{};
        if (tn_collective_parse(op.c_str(), &sc.op, &err) != TN_OK)
        {
            r.Fail(opNode, path + ".op", err.message);
        }
        const toml::node* schedNode = r.Resolve(ct->get("scheduler"));
        // the static plan's Themis policies (the core's names), then the run-time ones
        std::vector<std::string> schedulers = {tn_themis_policy_name(TN_THEMIS_FIFO),
                                               tn_themis_policy_name(TN_THEMIS_SCF)};
        schedulers.insert(schedulers.end(),
                          ThemisCollective::GetSchedulerNames().begin(),
                          ThemisCollective::GetSchedulerNames().end());
        sc.scheduler = c.Choice("scheduler", schedulers[0], schedulers);
        const toml::node* algNode = r.Resolve(ct->get("algorithm"));
        // A run-time scheduler runs Themis chunk-phases: "themis" is the only algorithm.
        sc.algorithm = c.String("algorithm", sc.IsScheduled() ? "themis" : "ring");
        sc.bytes = c.Bytes("bytes", 0, true);
        sc.chunks = uint32_t(c.Uint("chunks", 0, 0, UINT32_MAX - 1));
        sc.root = uint32_t(c.Uint("root", 0, 0, UINT32_MAX - 1));
        const toml::node* baseNode = r.Resolve(ct->get("baseline"));
        sc.baseline = c.Bool("baseline", false);
        sc.active = uint32_t(c.Uint("active", 1, 1, 1u << 20));
        sc.startNs = c.TimeNs("start", 0);
        c.Done();
        if (sc.IsScheduled())
        {
            if (ranks > 1)
            {
                r.Fail(schedNode,
                       path + ".scheduler",
                       "scheduler '" + sc.scheduler +
                           "' schedules at run time, which runs in one process, not over " +
                           std::to_string(ranks) +
                           " MPI ranks (a rank does not see when another's chunk-phase "
                           "ends)");
            }
            if (sc.algorithm != "themis")
            {
                r.Fail(algNode,
                       path + ".algorithm",
                       "scheduler '" + sc.scheduler +
                           "' schedules Themis chunk-phases at run time: algorithm must "
                           "be \"themis\" or left out, not '" +
                           sc.algorithm + "'");
            }
            if (sc.baseline)
            {
                r.Fail(baseNode,
                       path + ".baseline",
                       "the run-time baseline is scheduler = \"fixed\"; baseline = true "
                       "belongs to the static plan (scheduler " +
                           schedulers[0] + " or " + schedulers[1] + ")");
            }
            if (sc.op != TN_COLL_ALL_REDUCE && sc.op != TN_COLL_REDUCE_SCATTER &&
                sc.op != TN_COLL_ALL_GATHER)
            {
                r.Fail(schedNode,
                       path + ".scheduler",
                       "scheduler '" + sc.scheduler +
                           "' runs all-reduce, reduce-scatter and all-gather, not " + op);
            }
            if (tn_topology_dim_count(t) == 0)
            {
                r.Fail(schedNode,
                       path + ".scheduler",
                       "scheduler '" + sc.scheduler +
                           "' needs a topology with dimensions (a hier: system)");
            }
        }
        else
        {
            tn_plan_request request = sc.ToRequest();
            if (tn_tune_plan_check(t, &request, &err) != TN_OK)
            {
                r.Fail(algNode ? algNode : ct, path + ".algorithm", err.message);
            }
        }
        p.collectives.push_back(sc);
    }
}

/**
 * [training] model = ...: an LLM trained with TP, PP, DP and EP (tn-llm.h): the model and GPU
 * read (presets by name, found beside the scenario file), the layout checked against the
 * NPUs; an error names the key.
 */
/**
 * Mode flow-symmetric with an LLM: its first data-parallel replica runs for all
 * (TrainingHelper::InstallLlm), which needs dp outermost, no placement list and a topology
 * whose translations by a replica's NPU count are automorphisms.
 */
void
ReadLlmSymmetric(PointContext& ctx,
                 const toml::table* trainingTable,
                 const TrainingHelper::LlmDescription& desc,
                 const toml::node* placement)
{
    PointReader& r = ctx.r;
    const std::string why = "mode flow-symmetric runs one data-parallel replica for all: ";
    const toml::node* model = r.Resolve(trainingTable->get("model"));
    if (desc.layout.order[TN_LLM_DIMS - 1] != TN_LLM_DIM_DP)
    {
        const toml::node* order = r.Resolve(trainingTable->get("order"));
        r.Fail(order ? order : model,
               ctx.Key("order"),
               why + "dp must be the outermost (order = \"tp,ep,pp,dp\")");
    }
    if (placement)
    {
        r.Fail(placement, ctx.Key("placement"), why + "rank r runs on NPU r (no placement list)");
    }
    const uint32_t replica = uint32_t(tn_llm_ranks(&desc.layout) / desc.layout.size[TN_LLM_DIM_DP]);
    RoceHelper fabric;
    fabric.SetMode(RoceHelper::FLOW_SYMMETRIC);
    fabric.SetSymmetricPeriod(replica);
    if (std::string bad = fabric.Check(ctx.t); !bad.empty())
    {
        const toml::node* mode = r.Resolve(ctx.cfg.root.get("mode"));
        r.Fail(mode ? mode : model,
               "mode",
               bad + " (one replica of " + std::to_string(replica) +
                   " NPUs standing for the others)");
    }
    ctx.p.symmetricPeriod = replica;
}

void
ReadLlmKeys(PointContext& ctx, const toml::table* trainingTable, TableReader& tr)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    TrainingHelper::LlmSettings& s = p.llmSettings;
    p.llm = true;
    s.model = tr.String("model", "");
    s.gpu = tr.String("gpu", "h100");
    for (int d = 0; d < TN_LLM_DIMS; d++)
    {
        s.size[d] = uint32_t(tr.Uint(tn_llm_dim_name(d), 1, 1, UINT32_MAX - 1));
    }
    s.vpp = uint32_t(tr.Uint("vpp", 1, 1, UINT32_MAX - 1));
    s.sequenceParallel = tr.Bool("sequence_parallel", false);
    s.microBatch = uint32_t(tr.Uint("micro_batch", 1, 1, UINT32_MAX - 1));
    const uint64_t perReplica = uint64_t(s.microBatch) * s.size[TN_LLM_DIM_DP] *
                                s.size[TN_LLM_DIM_EP] * s.size[TN_LLM_DIM_PP] * s.vpp;
    s.globalBatch = tr.Uint("global_batch", perReplica, 1, UINT64_MAX / 2);
    s.schedule = tr.Choice("schedule", "1f1b", {"1f1b", "interleaved", "gpipe"});
    s.recompute = tr.Choice("recompute", "none", {"none", "selective", "full"});
    s.distributedOptimizer = tr.Bool("distributed_optimizer", false);
    s.order = tr.String("order", "tp,ep,dp,pp");
    tr.Known("placement");
    // a [[job]]'s placement places the job (its npus give rank r its NPU)
    const toml::node* placement =
        ctx.jobKeys.empty() ? r.Resolve(trainingTable->get("placement")) : nullptr;
    const uint32_t npus = ctx.Npus();
    if (placement)
    {
        const toml::array* list = placement->as_array();
        if (!list)
        {
            r.Fail(placement, ctx.Key("placement"), "expected a list of NPU indexes");
        }
        std::vector<bool> taken(npus, false);
        for (const toml::node& item : *list)
        {
            const int64_t npu = item.is_integer() ? item.as_integer()->get() : -1;
            if (npu < 0 || uint64_t(npu) >= npus || taken[npu])
            {
                r.Fail(&item,
                       ctx.Key("placement"),
                       npu < 0 || uint64_t(npu) >= npus
                           ? "expected an NPU index below " + std::to_string(npus)
                           : "NPU " + std::to_string(npu) + " is listed twice");
            }
            taken[npu] = true;
            p.llmPlacement.push_back(uint32_t(npu));
        }
        if (p.llmPlacement.size() != npus)
        {
            r.Fail(placement,
                   ctx.Key("placement"),
                   std::to_string(p.llmPlacement.size()) + " NPUs listed, the system has " +
                       std::to_string(npus));
        }
    }
    TrainingHelper::LlmDescription desc;
    std::string error;
    tn_error err{};
    std::string baseDir = ctx.cfg.baseDir;
    if (!baseDir.empty() && baseDir.back() == '/')
    {
        baseDir.pop_back();
    }
    p.llmBaseDir = baseDir.empty() ? "." : baseDir;
    bool ok = TrainingHelper::DescribeLlm(s, p.llmBaseDir, &desc, &error);
    if (ok && tn_llm_check(&desc.model, &desc.gpu, &desc.training, &desc.layout, npus, &err))
    {
        ok = false;
        error = err.message;
    }
    if (!ok)
    {
        // the message starts with the key at fault ("tp: ...", "model: ...")
        const std::string key = error.substr(0, error.find(':'));
        const toml::node* at = r.Resolve(trainingTable->get(key));
        r.Fail(at ? at : r.Resolve(trainingTable->get("model")),
               ctx.Key(key),
               error.substr(std::min(error.size(), key.size() + 2)));
    }
    if (ok && p.mode == RoceFabric::GetModeName(RoceFabric::FLOW_SYMMETRIC))
    {
        ReadLlmSymmetric(ctx, trainingTable, desc, placement);
    }
    p.installNpus = true;
}

} // namespace

/// [training]: a workload (text or Chakra traces) on every NPU, its file read and checked.
void
ReadTrainingTable(PointContext& ctx, const toml::table* trainingTable)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    const ScenarioConfig::Impl& cfg = ctx.cfg;
    const tn_topology* t = ctx.t;
    const uint32_t ranks = ctx.ranks;
    TableReader tr(r, trainingTable, ctx.training);
    for (const std::string& key : ctx.jobKeys)
    {
        tr.Known(key);
    }
    const toml::node* wlNode = r.Resolve(trainingTable->get("workload"));
    const toml::node* chakraNode = r.Resolve(trainingTable->get("chakra"));
    const toml::node* modelNode = r.Resolve(trainingTable->get("model"));
    const toml::node* simaiNode = r.Resolve(trainingTable->get("simai"));
    if (modelNode && (wlNode || chakraNode || simaiNode))
    {
        r.Fail(modelNode,
               ctx.Key("model"),
               "give model (an LLM), workload, chakra or simai, one of them");
    }
    else if (simaiNode && (wlNode || chakraNode))
    {
        r.Fail(simaiNode, ctx.Key("simai"), "give workload, chakra or simai, one of them");
    }
    std::string wl = tr.String("workload", "");
    std::string chakra = tr.String("chakra", "");
    const std::string simai = tr.String("simai", "");
    if (modelNode)
    {
        ReadLlmKeys(ctx, trainingTable, tr);
    }
    else if (wl.empty() && chakra.empty() && simai.empty())
    {
        tr.Missing("workload");
    }
    if (!wl.empty() && !chakra.empty())
    {
        r.Fail(chakraNode,
               ctx.Key("chakra"),
               "give workload (a text workload) or chakra (Chakra traces), not both");
    }
    if (!simai.empty())
    {
        p.simai = simai[0] == '/' ? simai : cfg.baseDir + simai;
    }
    else if (!chakra.empty())
    {
        p.chakra = chakra[0] == '/' ? chakra : cfg.baseDir + chakra;
    }
    else
    {
        p.workload = wl[0] == '/' ? wl : cfg.baseDir + wl;
    }
    p.iterations = uint32_t(tr.Uint("iterations", 1, 1, UINT32_MAX - 1));
    p.overlap = tr.Bool("overlap", true);
    p.modelGroup = uint32_t(tr.Uint("model_group", 0, 0, UINT32_MAX - 1));
    const toml::node* algNode = r.Resolve(trainingTable->get("algorithm"));
    // unset (""), every kind runs auto but a generated program's data-parallel collectives,
    // which run as rings (TrainingJob::GetParallelismAlgorithm)
    p.trainingAlgorithm = tr.String("algorithm", "");
    const toml::node* dpAlgNode = r.Resolve(trainingTable->get("dp_algorithm"));
    p.trainingDpAlgorithm = tr.String("dp_algorithm", "");
    const toml::node* schedNode = r.Resolve(trainingTable->get("scheduler"));
    std::vector<std::string> schedulers = {"planned"};
    schedulers.insert(schedulers.end(),
                      ThemisCollective::GetSchedulerNames().begin(),
                      ThemisCollective::GetSchedulerNames().end());
    const std::string scheduler = tr.Choice("scheduler", "planned", schedulers);
    p.trainingScheduler = scheduler == "planned" ? "" : scheduler;
    p.trainingChunks = uint32_t(tr.Uint("chunks", TN_THEMIS_DEFAULT_CHUNKS, 1, UINT32_MAX - 1));
    p.trainingActive = uint32_t(tr.Uint("active", 1, 1, 1u << 20));
    tr.Done();
    if (!p.trainingScheduler.empty() && ranks > 1)
    {
        r.Fail(schedNode,
               ctx.Key("scheduler"),
               "scheduler '" + scheduler +
                   "' schedules at run time, which runs in one process, not over " +
                   std::to_string(ranks) +
                   " MPI ranks (a rank does not see when another's chunk-phase ends)");
    }
    else if (!p.trainingScheduler.empty() && tn_topology_dim_count(t) == 0)
    {
        r.Fail(schedNode,
               ctx.Key("scheduler"),
               "scheduler '" + scheduler + "' needs a topology with dimensions (a hier: system)");
    }
    tn_error err{};
    if (!p.simai.empty())
    {
        CheckSimai(r, ctx.Key("simai"), simaiNode, p.simai, ctx.Npus(), ranks);
    }
    else if (!p.chakra.empty())
    {
        CheckChakra(r, ctx.Key("chakra"), chakraNode, p.chakra, ctx.Npus(), ranks);
    }
    else if (p.llm && ranks > 1)
    {
        r.Fail(modelNode,
               ctx.Key("model"),
               "an LLM program runs in one process, not over " + std::to_string(ranks) +
                   " MPI ranks");
    }
    else if (!p.llm)
    {
        tn_workload* w = nullptr;
        if (tn_workload_load_file(p.workload.c_str(), &w, &err) != TN_OK)
        {
            r.Fail(wlNode, ctx.Key("workload"), err.message);
        }
        tn_workload_destroy(w);
    }
    if (!p.trainingAlgorithm.empty() &&
        tn_tune_algorithm_check(p.trainingAlgorithm.c_str(), &err) != TN_OK)
    {
        r.Fail(algNode, ctx.Key("algorithm"), err.message);
    }
    if (!p.trainingDpAlgorithm.empty() &&
        tn_tune_algorithm_check(p.trainingDpAlgorithm.c_str(), &err) != TN_OK)
    {
        r.Fail(dpAlgNode, "training.dp_algorithm", err.message);
    }
    p.installNpus = true;
}

namespace
{

/// What runs: exactly one of [[collective]], [training] and [[job]]. A new kind is one more
/// table here, exclusive with the others, and one more reader.
void
ReadWhatRuns(PointContext& ctx)
{
    PointReader& r = ctx.r;
    const ScenarioConfig::Impl& cfg = ctx.cfg;
    TableReader& top = ctx.top;
    const toml::node* collNode = cfg.root.get("collective");
    top.Known("collective");
    const toml::node* jobNode = cfg.root.get("job");
    top.Known("job");
    top.Known("isolate");
    const toml::table* trainingTable = ctx.Table("training");
    top.Known("test");
    top.Done();
    const int kinds = (collNode ? 1 : 0) + (trainingTable ? 1 : 0) + (jobNode ? 1 : 0);
    if (kinds != 1)
    {
        const toml::node* at = jobNode ? jobNode : collNode;
        r.Fail(at,
               jobNode    ? "job"
               : collNode ? "collective"
                          : "",
               kinds ? "give [[collective]], [training] or [[job]], one of them"
                     : "nothing to run: add [[collective]] tables, a [training] table or [[job]] "
                       "tables");
    }
    if (jobNode)
    {
        ReadJobTables(ctx, jobNode, r.Resolve(cfg.root.get("isolate")));
        return;
    }
    if (const toml::node* isolate = r.Resolve(cfg.root.get("isolate")))
    {
        r.Fail(isolate, "isolate", "runs [[job]] tables alone; this scenario has none");
    }
    if (collNode)
    {
        ReadCollectiveTables(ctx, collNode);
    }
    else
    {
        ReadTrainingTable(ctx, trainingTable);
    }
}

} // namespace

ScenarioPoint
ReadPoint(const ScenarioConfig::Impl& cfg,
          const std::map<const toml::node*, size_t>& choice,
          uint32_t index,
          const std::string& label,
          TopologyCache* topologies)
{
    PointReader r(cfg, choice);
    ScenarioPoint p;
    p.index = index;
    p.label = label;
    p.scenarioFile = cfg.file;
    TableReader top(r, &cfg.root, "");
    PointContext ctx{r, p, cfg, top, topologies, DistributedHelper::GetSize()};
    ReadTopLevel(ctx);
    for (const TableEntry& table : kTables)
    {
        table.read(ctx);
    }
    ReadWhatRuns(ctx);
    p.paramsJson = r.ParamsJson(p);
    return p;
}

} // namespace scenario
} // namespace ns3
