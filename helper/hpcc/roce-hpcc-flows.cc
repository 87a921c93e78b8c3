/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-flows.h"

#include "ns3/attribute-settings.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/node.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/rdma-dcqcn.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-flow-application.h"
#include "ns3/roce-header.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-hpcc-inputs.h"
#include "ns3/roce-hpcc-output.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <memory>

namespace ns3
{

namespace
{

/// The options Run cannot take, before anything is read: "--option: why".
bool
CheckConfig(const RoceHpccConfig& config, std::string* error)
{
    // the short names only: the family's keys are mapped by them (RoceHpccConfigReader)
    const RdmaCcEntry* cc = RdmaCcRegistry::Find(config.cc);
    if (!cc || config.cc != cc->name)
    {
        *error = "--cc: '" + config.cc + "' is not a congestion control (" +
                 RdmaCcRegistry::ListNames() + ")";
        return false;
    }
    if (config.mtu < 256 || config.mtu > 9000)
    {
        *error = "--mtu: " + std::to_string(config.mtu) + " is not a payload size in 256..9000";
        return false;
    }
    if (config.seed == 0 || config.seed > ProgramOptions::MAX_SEED)
    {
        *error = "--seed: must be in 1.." + std::to_string(ProgramOptions::MAX_SEED) +
                 " (ns-3's MRG32k3a generator)";
        return false;
    }
    if (!(config.stopSeconds >= 0) || config.stopSeconds > RoceHpccConfig::MAX_STOP_SECONDS)
    {
        *error = "--stop: must be in 0 .. 9.2e9 s";
        return false;
    }
    if (!(config.errorRatePerLink >= 0 && config.errorRatePerLink < 1))
    {
        *error = "ERROR_RATE_PER_LINK must be in [0, 1)";
        return false;
    }
    if (!config.family.empty() && config.family != "hpcc" && config.family != "ns3-datacenter")
    {
        *error = "--family: '" + config.family + "' is not hpcc or ns3-datacenter";
        return false;
    }
    if (!config.framing.empty() && config.framing != "ethernet" && config.framing != "hpcc-family")
    {
        *error = "--ns3::RoceNetDevice::Framing: '" + config.framing +
                 "' is not ethernet or hpcc-family";
        return false;
    }
    const std::string where = config.configFile.empty() ? "" : config.configFile + ":";
    return RoceHpccConfigReader::CheckSettings(where, config.settings, error);
}

/// The run's seed, with the process's own given back at the end (tests, sweeps in one process).
class SeedGuard
{
  public:
    SeedGuard()
        : m_seed(RngSeedManager::GetSeed()),
          m_run(RngSeedManager::GetRun())
    {
    }

    ~SeedGuard()
    {
        RngSeedManager::SetSeed(m_seed);
        RngSeedManager::SetRun(m_run);
    }

  private:
    uint32_t m_seed; //!< the process's seed
    uint64_t m_run;  //!< the process's run
};

/**
 * The fabric's attributes: the run's payload size and congestion control, the config's
 * settings and ECN maps, the base RTT its key asks for. NIC and device attributes go to the
 * helper; switch MMUs, switches and congestion-control objects are created later, from their
 * defaults.
 */
void
ConfigureFabric(const RoceHpccConfig& config,
                const RoceHpccInputs& inputs,
                RoceHelper* helper,
                ScopedDefaults* defaults,
                RoceHpccResult* result)
{
    bool ok = defaults->Set("ns3::RoceSwitchMmu::Mtu", std::to_string(config.mtu));
    helper->SetNicAttribute("Mtu", UintegerValue(config.mtu));
    helper->SetNicAttribute("CongestionControl", StringValue(config.cc));
    // largest L3 packet: payload + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ImmDt 4 + ICRC 4
    helper->SetDeviceAttribute("Mtu", UintegerValue(std::max<uint32_t>(4200, config.mtu + 64)));
    result->ecnSettings = inputs.GetEcnSettings();
    std::vector<RoceHpccSetting> all = config.settings;
    all.insert(all.end(), result->ecnSettings.begin(), result->ecnSettings.end());
    for (const auto& st : all)
    {
        if (st.typeName == "ns3::RdmaNic")
        {
            helper->SetNicAttribute(st.attribute, StringValue(st.value));
        }
        else if (st.typeName == "ns3::RoceNetDevice")
        {
            helper->SetDeviceAttribute(st.attribute, StringValue(st.value));
        }
        else if (!st.typeName.empty())
        {
            ok = defaults->Set(st.typeName + "::" + st.attribute, st.value) && ok;
        }
    }
    if (!config.family.empty())
    {
        ok = defaults->Set("ns3::RoceSwitchMmu::Layout", config.family) && ok;
        // both members' NIC scan and idle wake-up (a config's RdmaNic setting, applied to the
        // NIC factory, wins over this default)
        ok = defaults->Set("ns3::RdmaNic::Scheduler", "family") && ok;
        if (config.cc == "hpcc-pint")
        {
            ok = defaults->Set("ns3::RoceSwitch::PintSamplesEveryPacket", "true") && ok;
        }
    }
    // both members time their packets' own bytes (PPP, no preamble or gap): with a member the
    // comparison then compares the controls, not the framing (RoceHpccConfig::framing)
    ok = defaults->Set("ns3::RoceNetDevice::Framing",
                       config.FamilyFraming() ? "hpcc-family" : "ethernet") &&
         ok;
    if (!config.baseRttAttribute.empty())
    {
        result->baseRtt =
            NanoSeconds(RoceHpccMaxBaseRttNs(inputs.GetTopology(), config.mtu, &result->maxBdp));
        ok = defaults->Set(config.baseRttAttribute,
                           std::to_string(result->baseRtt.GetNanoSeconds()) + "ns") &&
             ok;
    }
    // internal invariant: CheckConfig validated the switch settings before the fabric is built
    NS_ABORT_MSG_UNLESS(ok, "RoceHpccFlows: switch settings were validated before");
}

/**
 * What the HPCC family sets per NIC or link once the fabric is there: each pair's own base
 * RTT (GLOBAL_T 0), the window of pairs whose path is slower than their NIC, absolute rate
 * steps, ERROR_RATE_PER_LINK.
 */
void
ConfigureInstalled(const RoceHpccConfig& config,
                   const RoceHpccInputs& inputs,
                   RoceHelper* helper,
                   const RoceFabricNodes& fabric,
                   int64_t stream,
                   RoceHpccResult* result)
{
    const tn_topology* topo = inputs.GetTopology();
    if (!config.baseRttAttribute.empty())
    {
        for (const auto& f : inputs.GetFlows())
        {
            Ptr<RdmaNic> nic = fabric.nodes.Get(f.src)->GetObject<RdmaNic>();
            uint64_t rttNs = result->baseRtt.GetNanoSeconds();
            uint64_t bdp = result->maxBdp;
            if (config.perPairBaseRtt)
            {
                rttNs = RoceHpccBaseRttNs(topo, inputs.GetRoutes(), f.src, f.dst, config.mtu, &bdp);
            }
            if (rttNs == 0 || nic->GetNPorts() == 0)
            {
                continue;
            }
            // the family's window is T x the path's bottleneck rate (pairBdp, maxBdp with
            // GLOBAL_T 1); the congestion controls take the line rate x T, the same bytes
            // unless a link of the path (GLOBAL_T 1: of the topology's largest BDP) is slower
            // than this NIC's
            const uint64_t lineBps = nic->GetPort(0)->GetDataRate().GetBitRate();
            const bool slower = bdp != RoceHpccFamilyBdp(rttNs, lineBps);
            if (slower)
            {
                ++result->slowPathFlows;
            }
            if (config.perPairBaseRtt || slower)
            {
                nic->SetPeerBaseRtt(f.dst, NanoSeconds(rttNs), slower ? bdp : 0);
            }
        }
    }
    if (config.rateStepsAbsolute)
    {
        // HPCC's RATE_AI and RATE_HAI are steps per flow, the NIC's are per ReferenceRate of
        // link rate: a reference rate equal to the NIC's link rate makes them absolute
        for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
        {
            Ptr<RdmaNic> nic = helper->GetNic(r);
            if (nic->GetNPorts() > 0 &&
                nic->GetCongestionControl().IsChildOf(RdmaDcqcnControl::GetTypeId()))
            {
                nic->SetCongestionControlAttribute("ReferenceRate",
                                                   DataRateValue(nic->GetPort(0)->GetDataRate()));
            }
        }
    }
    if (config.errorRatePerLink > 0)
    {
        // HPCC applies ERROR_RATE_PER_LINK to the links whose own error_rate is 0; the devices
        // are two per cable in cable order (RoceHelper::Install), received at the other end
        uint32_t cable = 0;
        for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
        {
            const tn_link* ab = tn_topology_link(topo, l);
            if (ab->reverse < l)
            {
                continue;
            }
            const tn_link* dirs[2] = {ab, tn_topology_link(topo, ab->reverse)};
            for (int k = 0; k < 2; ++k)
            {
                if (dirs[k]->error_rate == 0)
                {
                    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                    em->SetRate(config.errorRatePerLink);
                    stream += em->AssignStreams(stream);
                    DynamicCast<RoceNetDevice>(fabric.devices.Get(2 * cable + 1 - k))
                        ->SetReceiveErrorModel(em);
                }
            }
            ++cable;
        }
    }
}

/**
 * One RoceFlowApplication per source node, its flows in file order, traced by the output
 * files (and pinned on the family's paths).
 */
std::vector<Ptr<RoceFlowApplication>>
InstallApplications(const RoceHpccConfig& config,
                    const std::vector<tn_hpcc_flow>& flows,
                    const NodeContainer& nodes,
                    RoceHpccOutput* output,
                    RoceHpccFamilyPaths* family)
{
    std::vector<Ptr<RoceFlowApplication>> apps(nodes.GetN());
    // ns3-datacenter reads the flow file in order and starts each flow no earlier than the one
    // before it; alibaba-edu's (and this model) start each at its own time
    const bool inFileOrder = config.family == "ns3-datacenter";
    uint64_t latest = 0;
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        const tn_hpcc_flow& f = flows[i];
        latest = inFileOrder ? std::max<uint64_t>(latest, f.start_ns) : f.start_ns;
        Ptr<RoceFlowApplication>& app = apps[f.src];
        if (!app)
        {
            app = CreateObject<RoceFlowApplication>();
            app->SetAttribute("SharedQp", BooleanValue(config.sharedQp));
            app->TraceConnectWithoutContext("FlowStart",
                                            MakeCallback(&RoceHpccOutput::FlowStart, output));
            app->TraceConnectWithoutContext("FlowEnd",
                                            MakeCallback(&RoceHpccOutput::FlowEnd, output));
            if (family)
            {
                // FlowStart comes before the NIC posts the flow: the pins precede its packets
                app->TraceConnectWithoutContext(
                    "FlowStart",
                    MakeCallback(&RoceHpccFamilyPaths::FlowStart, family));
            }
            nodes.Get(f.src)->AddApplication(app);
        }
        RdmaWriteRequest request;
        request.dst = f.dst;
        request.bytes = f.bytes;
        request.priority = f.priority;
        app->AddFlow(i, request, NanoSeconds(latest));
    }
    return apps;
}

/// The NICs' figures at the end of the run.
void
CollectNicFigures(RoceHelper* helper,
                  const RoceFabricNodes& fabric,
                  const tn_routes* routes,
                  RoceHpccResult* result)
{
    for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = helper->GetNic(r);
        result->retransmittedBytes += nic->GetRetransmittedBytes();
        result->cnpsSent += nic->GetCnpsSent();
        result->ecnEchoes += nic->GetEcnEchoesReceived();
        result->queuePairs += nic->GetNQueuePairs();
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQueuePairByIndex(q);
            Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
            ++result->congestionControls[cc ? cc->GetInstanceTypeId().GetName() : "none"];
            result->windows[{nic->GetLocalId(), qp->GetPeer()}] = cc ? cc->GetWindow() : 0;
            uint32_t d = tn_routes_distance(routes, nic->GetLocalId(), qp->GetPeer());
            if (d != TN_ROUTES_UNREACHABLE)
            {
                result->dataPacketHops += qp->GetDataPacketsSent() * d;
            }
        }
    }
}

} // namespace

uint32_t
RoceHpccFlows::NodeIp(uint32_t node)
{
    return RoceAddress::FromNodeId(node).Get();
}

bool
RoceHpccFlows::Run(const RoceHpccConfig& config, RoceHpccResult* result, std::string* error)
{
    *result = RoceHpccResult();
    if (!CheckConfig(config, error))
    {
        return false;
    }
    RoceHpccInputs inputs;
    const bool loaded = inputs.Load(config, error);
    result->torCount = inputs.GetTorCount();
    result->notices = inputs.GetNotices();
    if (!loaded)
    {
        return false;
    }
    const std::vector<tn_hpcc_flow>& flows = inputs.GetFlows();
    RoceHpccOutput output(flows, inputs.GetIdealFctNs());
    if (!output.Open(config.fctFile, config.pfcFile, error))
    {
        return false;
    }

    ScopedDefaults defaults; // restored when Run returns
    RoceHelper helper;
    ConfigureFabric(config, inputs, &helper, &defaults, result);
    SeedGuard seedGuard;
    const std::string fabricError = helper.Check(inputs.GetTopology());
    if (!fabricError.empty())
    {
        *error = fabricError; // what Install or the NICs would abort on
        return false;
    }
    RngSeedManager::SetSeed(config.seed);
    RngSeedManager::SetRun(1);
    RoceFabricNodes fabric = helper.Install(inputs.GetTopology());
    ConfigureInstalled(config, inputs, &helper, fabric, helper.AssignStreams(0), result);
    output.ConnectPfc(fabric.nodes);
    std::unique_ptr<RoceHpccFamilyPaths> family;
    if (config.familyEcmp)
    {
        family = std::make_unique<RoceHpccFamilyPaths>(inputs.GetTopology(), flows, fabric.nodes);
        result->familyPaths = family->GetPaths();
    }
    std::vector<Ptr<RoceFlowApplication>> apps =
        InstallApplications(config, flows, fabric.nodes, &output, family.get());
    RocePcapFiles pcap;
    if (!config.pcapPrefix.empty() && !pcap.Open(config.pcapPrefix, fabric.devices, error))
    {
        Simulator::Destroy();
        return false;
    }
    if (config.stopSeconds > 0)
    {
        Simulator::Stop(Seconds(config.stopSeconds));
    }
    auto t0 = std::chrono::steady_clock::now();
    if (!flows.empty())
    {
        Simulator::Run();
    }
    auto t1 = std::chrono::steady_clock::now();

    result->flows = flows.size();
    result->finished = output.GetFinished();
    result->failed = output.GetFailed();
    result->fctBelowIdeal = output.GetFctBelowIdeal();
    for (const Ptr<RoceFlowApplication>& app : apps)
    {
        result->sharedQpFlows += app ? app->GetSharedQpFlows() : 0;
    }
    result->pfcEvents = output.GetPfcEvents();
    result->wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    result->simTime = Simulator::Now();
    result->events = Simulator::GetEventCount();
    CollectNicFigures(&helper, fabric, inputs.GetRoutes(), result);
    const RoceBusiestLink busiest =
        RoceBusiestLink::Find(fabric.nodes, fabric.devices, output.GetSpan());
    result->bottleneckUtilisation = busiest.utilisation;
    result->bottleneckSrc = busiest.src;
    result->bottleneckPort = busiest.port;
    result->bottleneckDst = busiest.dst;
    std::string outputError;
    const bool written = output.Close(&outputError);
    std::string pcapError;
    const bool pcapOk = pcap.Close(&pcapError);
    Simulator::Destroy();
    if (!written || !pcapOk)
    {
        *error = written ? pcapError : outputError;
        return false;
    }
    return true;
}

void
RoceHpccFlows::PreferCommandLine(RoceHpccConfig* config, const std::vector<std::string>& given)
{
    std::vector<RoceHpccSetting> kept;
    for (const auto& st : config->settings)
    {
        const std::string name = st.typeName + "::" + st.attribute;
        if (std::find(given.begin(), given.end(), name) != given.end())
        {
            // line 0: a setting the reader made for a key the file does not have
            const std::string where =
                st.line ? " (line " + std::to_string(st.line) + ")" : " (not in the file)";
            config->notices.push_back(st.key + where + ": --" + name + " on the command line wins");
            continue;
        }
        kept.push_back(st);
    }
    config->settings = kept;
    const std::string& rtt = config->baseRttAttribute;
    if (!rtt.empty() && std::find(given.begin(), given.end(), rtt) != given.end())
    {
        config->notices.push_back(config->baseRttKey + " (line " +
                                  std::to_string(config->baseRttLine) + "): --" + rtt +
                                  " on the command line wins");
        config->baseRttAttribute.clear();
    }
}

void
RoceHpccFlows::PrintConfig(const std::string& path, const RoceHpccConfig& config, std::FILE* out)
{
    size_t mapped = 0;
    std::string last;
    for (const auto& st : config.settings)
    {
        mapped += st.key != last;
        last = st.key;
    }
    std::fprintf(out,
                 "config %s: %zu keys used, %zu ignored\n",
                 path.c_str(),
                 mapped,
                 config.ignored.size());
    for (const auto& st : config.settings)
    {
        std::fprintf(out,
                     "  %-24s -> %s%s%s = %s\n",
                     st.key.c_str(),
                     st.typeName.c_str(),
                     st.typeName.empty() ? "" : "::",
                     st.attribute.c_str(),
                     st.value.c_str());
    }
    for (const auto& ig : config.ignored)
    {
        std::fprintf(out,
                     "ignored %s %s (line %u): %s\n",
                     ig.key.c_str(),
                     ig.value.c_str(),
                     ig.line,
                     ig.reason.c_str());
    }
}

void
RoceHpccFlows::PrintSummary(const RoceHpccConfig& cfg, const RoceHpccResult& res, std::FILE* out)
{
    for (const auto& st : res.ecnSettings)
    {
        std::fprintf(out,
                     "  %-24s -> %s::%s = %s\n",
                     st.key.c_str(),
                     st.typeName.c_str(),
                     st.attribute.c_str(),
                     st.value.c_str());
    }
    if (!cfg.baseRttAttribute.empty())
    {
        std::fprintf(out,
                     "  %-24s -> %s = %s%" PRId64 "ns%s\n",
                     cfg.baseRttKey.c_str(),
                     cfg.baseRttAttribute.c_str(),
                     cfg.perPairBaseRtt ? "each pair's own base RTT (the largest " : "",
                     res.baseRtt.GetNanoSeconds(),
                     cfg.perPairBaseRtt ? ")" : "");
    }
    if (res.slowPathFlows > 0)
    {
        std::fprintf(out,
                     "  window at the path's bottleneck rate: %" PRIu64
                     " flows (a link slower than their NIC; the family's maxBdp %" PRIu64
                     " bytes)\n",
                     res.slowPathFlows,
                     res.maxBdp);
    }
    for (const auto& n : res.notices)
    {
        std::fprintf(out, "note: %s\n", n.c_str());
    }
    if (cfg.familyEcmp)
    {
        uint64_t hops = 0;
        for (const auto& path : res.familyPaths)
        {
            hops += path.size();
        }
        std::fprintf(out,
                     "family ECMP: %llu flows, %llu switch choices pinned\n",
                     static_cast<unsigned long long>(res.familyPaths.size()),
                     static_cast<unsigned long long>(hops));
    }
    if (!cfg.family.empty())
    {
        std::fprintf(out,
                     "family member %s: its switch buffer layout, its frame bytes on the wire, "
                     "its NIC's scheduler\n",
                     cfg.family.c_str());
    }
    for (const auto& c : res.congestionControls)
    {
        std::fprintf(out,
                     "congestion control %s: %llu queue pairs\n",
                     c.first.c_str(),
                     static_cast<unsigned long long>(c.second));
    }
    std::fprintf(out,
                 "flows %llu finished %llu (FCT below ideal: %llu)\n",
                 static_cast<unsigned long long>(res.flows),
                 static_cast<unsigned long long>(res.finished),
                 static_cast<unsigned long long>(res.fctBelowIdeal));
    std::fprintf(out,
                 "queue pairs %llu (flows that shared a busy QP: %llu)%s\n",
                 static_cast<unsigned long long>(res.queuePairs),
                 static_cast<unsigned long long>(res.sharedQpFlows),
                 cfg.sharedQp ? ", --share-qp" : "");
    if (res.torCount > 0)
    {
        std::fprintf(out, "topology header with %u ToR switches\n", res.torCount);
    }
    std::fprintf(out,
                 "bottleneck utilisation %.4f (node %u port %u -> node %u)\n",
                 res.bottleneckUtilisation,
                 res.bottleneckSrc,
                 res.bottleneckPort,
                 res.bottleneckDst);
    std::fprintf(out,
                 "CNPs sent %llu, ACKs echoing a CE mark %llu\n",
                 static_cast<unsigned long long>(res.cnpsSent),
                 static_cast<unsigned long long>(res.ecnEchoes));
    if (!cfg.pfcFile.empty())
    {
        std::fprintf(out,
                     "PFC events %llu in %s\n",
                     static_cast<unsigned long long>(res.pfcEvents),
                     cfg.pfcFile.c_str());
    }
    std::fprintf(out,
                 "wall time %.3f s, simulated time %.6f s, events %llu, retransmitted bytes "
                 "%llu\n",
                 res.wallSeconds,
                 res.simTime.GetSeconds(),
                 static_cast<unsigned long long>(res.events),
                 static_cast<unsigned long long>(res.retransmittedBytes));
    std::fprintf(out,
                 "data packet-hops %llu, %.0f packet-hops per wall second\n",
                 static_cast<unsigned long long>(res.dataPacketHops),
                 res.wallSeconds > 0 ? res.dataPacketHops / res.wallSeconds : 0.0);
}

std::string
RoceHpccFlows::Unfinished(const RoceHpccConfig& config, const RoceHpccResult& result)
{
    if (result.failed > 0)
    {
        return std::to_string(result.failed) + " of " + std::to_string(result.flows) +
               " flows failed: their queue pair exceeded ns3::RdmaNic::RetryLimit "
               "retransmission timeouts (a link that loses everything, or a round trip "
               "beyond ns3::RdmaNic::RetransmitTimeout)";
    }
    if (result.finished != result.flows)
    {
        return std::to_string(result.flows - result.finished) + " of " +
               std::to_string(result.flows) + " flows did not finish" +
               (config.stopSeconds > 0 ? " before --stop" : "");
    }
    return "";
}

} // namespace ns3
