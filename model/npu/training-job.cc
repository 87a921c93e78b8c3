/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Over 1,000 lines for a reason: a job's passes, collectives, ids and their set-up checks
 * share its per-NPU state (layers reached, collectives created, the slot table that names
 * them across MPI ranks); splitting it would expose that state to another class.
 */
#include "training-job.h"

#include "chakra-runner.h"
#include "collective-executor.h"
#include "collective-service.h"
#include "npu-endpoint.h"
#include "themis-collective.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-algorithm.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJob");
NS_OBJECT_ENSURE_REGISTERED(TrainingJob);

TypeId
TrainingJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingJob")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<TrainingJob>()
            .AddAttribute("Iterations",
                          "Training iterations to run.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_iterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Overlap",
                          "Weight-gradient collectives run while the backward pass goes on "
                          "(false: the NPU waits for each).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TrainingJob::m_overlap),
                          MakeBooleanChecker())
            .AddAttribute("Network",
                          "Run the collectives (false: an infinite network, compute only).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TrainingJob::m_network),
                          MakeBooleanChecker())
            .AddAttribute("OpsPerCycle",
                          "Chakra traces: operations a COMP_NODE's num_ops counts per cycle of "
                          "the NPU's ClockRate.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_opsPerCycle),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Scheduler",
                          "Schedule the all-reduces, reduce-scatters and all-gathers of groups "
                          "of all NPUs at run time: themis-scf, themis-fifo or fixed "
                          "(CollectiveService::CreateScheduled); empty: plan every collective.",
                          StringValue(""),
                          MakeStringAccessor(&TrainingJob::m_scheduler),
                          MakeStringChecker())
            .AddAttribute("ThemisChunks",
                          "Chunks of an operation scheduled at run time.",
                          UintegerValue(TN_THEMIS_DEFAULT_CHUNKS),
                          MakeUintegerAccessor(&TrainingJob::m_themisChunks),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ThemisActive",
                          "Active chunk-phases per dimension of an operation scheduled at run "
                          "time (Themis's A).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_themisActive),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("ScheduledCreated",
                            "An operation scheduled at run time was created (Scheduler), before "
                            "any NPU starts it.",
                            MakeTraceSourceAccessor(&TrainingJob::m_scheduledTrace),
                            "ns3::TrainingJob::ScheduledTracedCallback")
            .AddTraceSource("CollectiveCreated",
                            "A collective of the job was created (by its first member on this "
                            "process, or for a message naming it), before any member here "
                            "starts it.",
                            MakeTraceSourceAccessor(&TrainingJob::m_createdTrace),
                            "ns3::TrainingJob::CollectiveTracedCallback")
            .AddTraceSource("IterationEnd",
                            "An NPU finished an iteration.",
                            MakeTraceSourceAccessor(&TrainingJob::m_iterationTrace),
                            "ns3::TrainingJob::IterationTracedCallback")
            .AddTraceSource("LayerEnd",
                            "An NPU finished one pass (fwd, ig, wg) of one layer.",
                            MakeTraceSourceAccessor(&TrainingJob::m_layerTrace),
                            "ns3::TrainingJob::LayerTracedCallback");
    return tid;
}

TrainingJob::TrainingJob()
{
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        // as NCCL picks its algorithm: the cost model's best per group and size (a flat ring
        // on torus:32x32 moves the bytes of a ring2d in 16 times its transfers)
        m_algorithm[c] = c == TN_COLL_ALL_TO_ALL ? "direct" : "auto";
    }
}

TrainingJob::~TrainingJob() = default;

void
TrainingJob::DoDispose()
{
    m_chakra.reset();
    m_collectives.clear();
    m_scheduledOps.clear();
    m_endpoints.clear();
    m_service = nullptr;
    Object::DoDispose();
}

bool
TrainingJob::Setup(const tn_workload* workload,
                   Ptr<CollectiveService> service,
                   const std::vector<Ptr<NpuEndpoint>>& endpoints,
                   uint32_t modelGroup,
                   std::string* error)
{
    tn_error err;
    if (endpoints.empty() ||
        tn_workload_validate(workload, endpoints.size(), modelGroup, &m_group, &err) != TN_OK)
    {
        *error = endpoints.empty() ? "no NPU endpoints (NpuHelper::Install)" : err.message;
        return false;
    }
    if (!m_scheduler.empty() && !ThemisCollective::IsSchedulerName(m_scheduler))
    {
        *error = "Scheduler '" + m_scheduler + "' is not " + ThemisCollective::ListSchedulerNames();
        return false;
    }
    m_workload = workload;
    m_service = service;
    m_endpoints = endpoints;
    const uint32_t layers = tn_workload_layer_count(workload);
    m_npus.resize(endpoints.size());
    std::vector<Ptr<CollectiveExecutor>> executors;
    for (uint32_t r = 0; r < endpoints.size(); r++)
    {
        Npu& n = m_npus[r];
        n.rank = r;
        n.pendingWg.assign(layers, 0);
        n.pendingUpdates.assign(layers, 0);
        Ptr<Node> node = endpoints[r]->GetObject<Node>();
        m_local.push_back(!node || node->GetSystemId() == Simulator::GetSystemId());
        if (service->IsSymmetric() && r > 0)
        {
            // on a symmetric flow network NPU 0 runs for all (SetupSymmetric)
            m_local.back() = false;
        }
        if (!m_local.back())
        {
            m_nodes.push_back(r); // another MPI rank runs this NPU's loop and records it
            continue;
        }
        Ptr<CollectiveExecutor> exec = endpoints[r]->GetObject<CollectiveExecutor>();
        if (!exec)
        {
            *error = "NPU " + std::to_string(r) +
                     " has no CollectiveExecutor "
                     "(CollectiveHelper::Install)";
            return false;
        }
        m_nodes.push_back(exec->GetNic() ? exec->GetNic()->GetLocalId() : r);
        exec->TraceConnectWithoutContext("PartEnd",
                                         MakeCallback(&TrainingJob::PartEnd, this).Bind(r));
        executors.push_back(exec);
    }
    if (!m_service)
    {
        *error = "no CollectiveService (CollectiveHelper::Install)";
        return false;
    }
    if (m_service->IsSymmetric() && !SetupSymmetric(error))
    {
        return false;
    }
    if (!ReserveIds(error) || !CheckCollectives(error))
    {
        return false;
    }
    for (const Ptr<CollectiveExecutor>& exec : executors)
    {
        exec->AddCollectiveSource(MakeCallback(&TrainingJob::CreateNamed, this));
    }
    return true;
}

bool
TrainingJob::SetupChakra(const std::vector<tn_chakra_trace*>& traces,
                         Ptr<CollectiveService> service,
                         const std::vector<Ptr<NpuEndpoint>>& endpoints,
                         std::string* error)
{
    ChakraRunner::Config config;
    config.iterations = m_iterations;
    config.network = m_network;
    config.opsPerCycle = m_opsPerCycle;
    config.algorithm.resize(TN_SERVES_COUNT);
    for (int serves = 0; serves < TN_SERVES_COUNT; serves++)
    {
        for (int c = 0; c < TN_COLL_COUNT; c++)
        {
            config.algorithm[serves].push_back(
                GetParallelismAlgorithm(tn_chakra_serves(serves), tn_collective(c)));
        }
    }
    config.npuOfRank = m_npuOfRank;
    m_chakra = std::make_unique<ChakraRunner>(traces,
                                              service,
                                              endpoints,
                                              config,
                                              MakeCallback(&TrainingJob::ChakraIterationEnd, this),
                                              MakeCallback(&TrainingJob::ChakraCreated, this),
                                              MakeCallback(&TrainingJob::Fail, this));
    m_chakra->SetStepCallback(MakeCallback(&TrainingJob::ChakraStepEnd, this));
    if (!m_chakra->Setup(error))
    {
        m_chakra.reset();
        return false;
    }
    m_service = service;
    m_endpoints = endpoints;
    m_npus.resize(endpoints.size());
    m_local.assign(endpoints.size(), true);
    for (uint32_t r = 0; r < endpoints.size(); r++)
    {
        m_npus[r].rank = r;
        // on a symmetric flow network the representatives run for all
        // (ChakraRunner::CheckSymmetric)
        m_local[r] = !m_network || !service->IsSymmetric() || r < service->GetSymmetricPeriod();
    }
    return true;
}

void
TrainingJob::Fail(const std::string& error)
{
    NS_LOG_WARN("the job stops: " << error);
    if (m_error.empty())
    {
        m_error = error;
        Simulator::Stop();
    }
}

void
TrainingJob::ChakraStepEnd(const TrainingLayerRecord& record)
{
    m_layerTrace(record);
}

void
TrainingJob::ChakraIterationEnd(const TrainingIterationRecord& record)
{
    Npu& n = m_npus[record.rank];
    n.log.push_back(record);
    n.phase = n.log.size() == m_iterations ? DONE : FORWARD;
    m_iterationTrace(record);
}

void
TrainingJob::ChakraCreated(Ptr<Collective> collective)
{
    ++m_collectivesCreated;
    m_createdTrace(collective);
}

bool
TrainingJob::ReserveIds(std::string* error)
{
    if (!m_network)
    {
        return true;
    }
    const uint32_t layers = tn_workload_layer_count(m_workload);
    const uint32_t npus = m_npus.size();
    // the forward passes an ig pass runs again (segments of checkpoints do not overlap)
    std::vector<bool> recomputed(layers, false);
    for (uint32_t i = 0; i < layers; i++)
    {
        const uint32_t from = tn_workload_recompute_from(m_workload, i);
        for (uint32_t j = from; from != TN_WORKLOAD_NONE && j < i; j++)
        {
            recomputed[j] = true;
        }
    }
    m_slotIndex.assign(layers * (TN_PASS_COUNT + 1), -1);
    uint64_t perIteration = 0;
    for (uint32_t l = 0; l < layers; l++)
    {
        for (int keyPass = 0; keyPass <= RECOMPUTE_PASS; keyPass++)
        {
            const tn_pass pass = keyPass == RECOMPUTE_PASS ? TN_PASS_FWD : tn_pass(keyPass);
            if (keyPass == RECOMPUTE_PASS && !recomputed[l])
            {
                continue;
            }
            const tn_group group = tn_workload_layer_group(m_workload, l, pass);
            tn_collective kinds[2];
            const uint32_t parts =
                tn_comm_type_collectives(tn_workload_layer_at(m_workload, l)->pass[pass].comm,
                                         kinds);
            uint32_t first = 0;
            uint32_t stride = 1;
            uint32_t count = 1;
            tn_error err;
            if (group == TN_GROUP_NONE || parts == 0 ||
                tn_group_members(group, npus, m_group, 0, &first, &stride, &count, &err) != TN_OK ||
                count < 2)
            {
                continue; // IssuePass creates nothing for it
            }
            IdSlot slot;
            slot.base = static_cast<uint32_t>(perIteration);
            slot.layer = l;
            slot.keyPass = keyPass;
            slot.parts = parts;
            slot.groups = npus / count;
            m_slotIndex[l * (TN_PASS_COUNT + 1) + keyPass] = static_cast<int32_t>(m_slots.size());
            m_slots.push_back(slot);
            perIteration += uint64_t(parts) * slot.groups;
        }
    }
    if (perIteration == 0)
    {
        return true;
    }
    const uint64_t total = perIteration * m_iterations;
    if (total / m_iterations != perIteration || total >= CollectiveExecutor::CONTROL_KEY_BIT ||
        !m_service->ReserveIds(total, &m_firstId, error))
    {
        *error = "the job's " + std::to_string(m_iterations) + " iterations of " +
                 std::to_string(perIteration) +
                 " collectives need more collective ids than an R_Key names (2^30): fewer "
                 "iterations";
        return false;
    }
    m_idsPerIteration = static_cast<uint32_t>(perIteration);
    if (std::find(m_local.begin(), m_local.end(), false) != m_local.end())
    {
        m_idCreated.assign(total, false); // one bit per collective of the run
    }
    return true;
}

uint32_t
TrainingJob::IdOf(uint32_t iteration,
                  uint32_t layer,
                  int keyPass,
                  uint32_t part,
                  uint32_t first,
                  uint32_t stride,
                  uint32_t count) const
{
    const int32_t index = m_slotIndex[layer * (TN_PASS_COUNT + 1) + keyPass];
    NS_ASSERT(index >= 0);
    const IdSlot& slot = m_slots[index];
    // the groups of a pass (tn_group_members): all NPUs (first 0), blocks of `count`
    // consecutive ranks (stride 1, first a multiple of count), or the ranks of equal r % G
    // (stride G, first < G)
    const uint32_t group = stride == 1 ? first / count : first;
    return m_firstId + iteration * m_idsPerIteration + slot.base + part * slot.groups + group;
}

bool
TrainingJob::DecodeId(uint32_t id,
                      uint32_t* iteration,
                      uint32_t* layer,
                      int* pass,
                      uint32_t* part,
                      uint32_t* first) const
{
    if (m_idsPerIteration == 0 || id < m_firstId ||
        id - m_firstId >= uint64_t(m_idsPerIteration) * m_iterations)
    {
        return false;
    }
    const uint32_t offset = id - m_firstId;
    const uint32_t within = offset % m_idsPerIteration;
    auto it = std::upper_bound(m_slots.begin(),
                               m_slots.end(),
                               within,
                               [](uint32_t v, const IdSlot& slot) { return v < slot.base; });
    const IdSlot& slot = *(it - 1);
    *iteration = offset / m_idsPerIteration;
    *layer = slot.layer;
    *pass = slot.keyPass;
    *part = (within - slot.base) / slot.groups;
    const uint32_t group = (within - slot.base) % slot.groups;
    // the first rank of group `group` (IdOf's inverse): blocks start at group x count
    const tn_pass p = slot.keyPass == RECOMPUTE_PASS ? TN_PASS_FWD : tn_pass(slot.keyPass);
    const uint32_t npus = m_npus.size();
    uint32_t f = 0;
    uint32_t stride = 1;
    uint32_t count = 1;
    tn_error err;
    const tn_group g = tn_workload_layer_group(m_workload, slot.layer, p);
    if (tn_group_members(g, npus, m_group, 0, &f, &stride, &count, &err) != TN_OK)
    {
        return false;
    }
    *first = stride == 1 ? group * count : group;
    return true;
}

void
TrainingJob::SetAlgorithm(tn_collective collective, const std::string& algorithm)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(collective >= TN_COLL_COUNT, "TrainingJob::SetAlgorithm: no collective");
    m_algorithm[collective] = algorithm;
    m_algorithmSet[collective] = true;
}

void
TrainingJob::SetParallelismAlgorithm(tn_chakra_serves serves, const std::string& algorithm)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(serves == TN_SERVES_NONE || serves >= TN_SERVES_COUNT,
                    "TrainingJob::SetParallelismAlgorithm: no parallelism");
    m_servesAlgorithm[serves] = algorithm;
}

std::string
TrainingJob::GetParallelismAlgorithm(tn_chakra_serves serves, tn_collective collective) const
{
    if (collective == TN_COLL_ALL_TO_ALL || serves == TN_SERVES_NONE)
    {
        return m_algorithm[collective];
    }
    if (!m_servesAlgorithm[serves].empty())
    {
        return m_servesAlgorithm[serves];
    }
    // NCCL runs a data-parallel group's reduce-scatter, all-gather and all-reduce as rings (or
    // trees), never as direct exchanges. auto plans a group other than all NPUs without the
    // topology, where direct looks best; on the fabric its N - 1 flows per NIC starve the
    // pipeline's transfers under max-min sharing (405B-like, DP 16: iteration 11,504 ms
    // against 10,663 ms as a ring), and a direct group of N ranks is one fluid component of
    // N (N - 1) flows, re-shared at every start and end (doc/llm-training.rst, Scale).
    if (serves == TN_SERVES_DP && !m_algorithmSet[collective])
    {
        return "ring";
    }
    return m_algorithm[collective];
}

void
TrainingJob::SetNpuRanks(const std::vector<uint32_t>& npuOfRank)
{
    m_npuOfRank = npuOfRank;
    m_rankOfNpu.clear();
    for (uint32_t r = 0; r < npuOfRank.size(); r++)
    {
        m_rankOfNpu[npuOfRank[r]] = r;
    }
}

uint32_t
TrainingJob::RankOfNpu(uint32_t npu) const
{
    if (m_npuOfRank.empty())
    {
        return npu;
    }
    auto it = m_rankOfNpu.find(npu);
    // internal invariant: a scheduled operation of the job runs on the job's NPUs only
    NS_ABORT_MSG_IF(it == m_rankOfNpu.end(), "TrainingJob: NPU " << npu << " is not the job's");
    return it->second;
}

std::vector<uint32_t>
TrainingJob::AllNpuRanks() const
{
    std::vector<uint32_t> ranks(m_npus.size());
    for (uint32_t r = 0; r < ranks.size(); r++)
    {
        ranks[r] = r;
    }
    return ToNpuRanks(ranks);
}

std::vector<uint32_t>
TrainingJob::ToNpuRanks(const std::vector<uint32_t>& ranks) const
{
    if (m_npuOfRank.empty())
    {
        return ranks;
    }
    std::vector<uint32_t> npus;
    npus.reserve(ranks.size());
    for (uint32_t r : ranks)
    {
        // internal invariant: the job's groups are over its own ranks (tn_group_members)
        NS_ABORT_MSG_IF(r >= m_npuOfRank.size(), "TrainingJob: rank " << r << " has no NPU");
        npus.push_back(m_npuOfRank[r]);
    }
    return npus;
}

void
TrainingJob::Start()
{
    if (m_chakra)
    {
        m_chakra->Start();
        return;
    }
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!m_workload, "TrainingJob: Setup first");
    for (uint32_t r = 0; r < m_npus.size(); r++)
    {
        if (!m_local[r])
        {
            continue;
        }
        Ptr<Node> node = m_endpoints[r]->GetObject<Node>();
        Simulator::ScheduleWithContext(node ? node->GetId() : 0,
                                       Seconds(0),
                                       &TrainingJob::Step,
                                       this,
                                       r);
    }
}

bool
TrainingJob::IsComplete() const
{
    for (const Npu& n : m_npus)
    {
        if (m_local[n.rank] && n.phase != DONE)
        {
            return false;
        }
    }
    return !m_npus.empty();
}

uint64_t
TrainingJob::GetHeldMessages() const
{
    uint64_t held = 0;
    for (uint32_t r = 0; r < m_endpoints.size(); r++)
    {
        Ptr<CollectiveExecutor> exec =
            m_local[r] ? m_endpoints[r]->GetObject<CollectiveExecutor>() : nullptr;
        held += exec ? exec->GetHeldMessages() : 0;
    }
    return held;
}

const std::vector<TrainingIterationRecord>&
TrainingJob::GetIterations(uint32_t rank) const
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(rank >= m_npus.size(), "TrainingJob: no NPU " << rank);
    return m_npus[rank].log;
}

void
TrainingJob::Wait(Npu& n)
{
    if (!n.waiting)
    {
        n.waiting = true;
        n.waitSince = Simulator::Now();
    }
}

TrainingJob::LayerState&
TrainingJob::Layer(Npu& n, const LayerKey& key)
{
    auto it = n.open.find(key);
    if (it == n.open.end())
    {
        LayerState& st = n.open[key];
        st.record.iteration = std::get<0>(key);
        st.record.layer = std::get<1>(key);
        st.record.recompute = std::get<2>(key) == RECOMPUTE_PASS;
        st.record.pass = st.record.recompute ? TN_PASS_FWD : static_cast<tn_pass>(std::get<2>(key));
        st.record.rank = n.rank;
        st.record.node = m_nodes[n.rank];
        st.record.name = tn_workload_layer_at(m_workload, st.record.layer)->name;
        return st;
    }
    return it->second;
}

void
TrainingJob::MaybeFinishLayer(Npu& n, const LayerKey& key)
{
    auto it = n.open.find(key);
    if (it == n.open.end())
    {
        return;
    }
    LayerState& st = it->second;
    if (!st.kernelDone || st.parts > 0 || st.updates > 0)
    {
        return;
    }
    st.record.end = Simulator::Now();
    m_layerTrace(st.record);
    n.open.erase(it);
}

void
TrainingJob::PassIssued(Npu& n, const LayerKey& key)
{
    Layer(n, key).kernelDone = true;
    MaybeFinishLayer(n, key);
}

void
TrainingJob::StepReleasedBy(uint32_t rank, LayerKey key)
{
    Npu& n = m_npus[rank];
    n.releaser = key;
    n.hasReleaser = true;
    Step(rank);
    n.hasReleaser = false;
    MaybeFinishLayer(n, key);
}

void
TrainingJob::RunKernel(uint32_t rank, uint64_t cycles, const LayerKey& key)
{
    Npu& n = m_npus[rank];
    n.busy = true;
    Time t = m_endpoints[rank]->Compute(cycles,
                                        0,
                                        MakeCallback(&TrainingJob::KernelDone, this).Bind(rank));
    n.current.compute += t;
    LayerState& st = Layer(n, key);
    if (!st.started)
    {
        st.started = true;
        st.record.start = Simulator::Now();
    }
    st.record.compute += t;
}

void
TrainingJob::RunPassKernel(uint32_t rank, tn_pass pass)
{
    Npu& n = m_npus[rank];
    n.stage = 1;
    RunKernel(rank,
              tn_workload_layer_at(m_workload, n.layer)->pass[pass].compute_cycles,
              LayerKey(n.iteration, n.layer, pass));
}

void
TrainingJob::KernelDone(uint32_t rank)
{
    Npu& n = m_npus[rank];
    n.busy = false;
    if (n.runningUpdate >= 0)
    {
        --n.pendingUpdates[n.runningUpdate];
        n.runningUpdate = -1;
        --Layer(n, n.runningUpdateKey).updates;
        StepReleasedBy(rank, n.runningUpdateKey);
        return;
    }
    Step(rank);
}

bool
TrainingJob::IssuePass(uint32_t rank, uint32_t layer, tn_pass pass, bool blocking, bool recompute)
{
    const int keyPass = recompute ? RECOMPUTE_PASS : static_cast<int>(pass);
    Npu& n = m_npus[rank];
    const tn_workload_layer* l = tn_workload_layer_at(m_workload, layer);
    const tn_group group = tn_workload_layer_group(m_workload, layer, pass);
    tn_collective kinds[2];
    const uint32_t parts = tn_comm_type_collectives(l->pass[pass].comm, kinds);
    if (!m_network || group == TN_GROUP_NONE || parts == 0)
    {
        return false;
    }
    const Members members = GroupOf(layer, pass, rank);
    const uint32_t first = members.first;
    const uint32_t count = members.count;
    if (count < 2)
    {
        return false; // a group of one has nothing to exchange
    }
    bool issued = false;
    for (uint32_t k = 0; k < parts; k++)
    {
        std::vector<uint32_t> key{n.iteration, layer, static_cast<uint32_t>(keyPass), k, first};
        ++Layer(n, LayerKey(n.iteration, layer, keyPass)).parts;
        if (IsScheduled(kinds[k], count))
        {
            // the first member to reach the operation creates it for the group
            tn_plan_request request = RequestOf(layer, pass, k);
            request.chunks = m_themisChunks;
            request.themis.active_chunks_per_dim = m_themisActive;
            std::string error;
            Ptr<ThemisCollective>& op = m_scheduledOps[key];
            if (!op &&
                (op = m_service->CreateScheduled(request, m_scheduler, AllNpuRanks(), &error)))
            {
                op->TraceConnectWithoutContext("RankEnd",
                                               MakeCallback(&TrainingJob::ScheduledRankEnd, this));
                m_uses[op->GetId()] = Use{n.iteration, layer, pass, keyPass, blocking, count, key};
                ++m_scheduledCreated;
                m_scheduledTrace(op);
            }
            if (!op)
            {
                // CheckCollectives took the scheduler's refusals at set-up; what is left
                // depends on the run (the memory of the collectives in flight)
                m_scheduledOps.erase(key);
                Fail(std::string("layer ") + l->name + " " + tn_pass_name(pass) + ": " + error);
                return false;
            }
            // the operation's ranks are the job's NPUs in ascending order, not the job's ranks
            op->StartRank(op->GetRankOfNpu(ToNpuRanks({rank})[0]));
        }
        else
        {
            // the first member here to reach it creates it, unless a message named it first
            auto it = m_collectives.find(key);
            Ptr<Collective> c = it != m_collectives.end()
                                    ? it->second
                                    : CreateCollective(n.iteration, layer, keyPass, k, rank);
            if (!c)
            {
                return false; // Fail stopped the run
            }
            m_endpoints[rank]->GetObject<CollectiveExecutor>()->Start(c);
        }
        if (blocking)
        {
            ++n.waitingFor;
        }
        if (pass == TN_PASS_WG)
        {
            ++n.pendingWg[layer];
        }
        issued = true;
    }
    return issued;
}

bool
TrainingJob::SetupSymmetric(std::string* error) const
{
    // NPU r of the job must be NPU rank r of the topology (the translations act on those),
    // and every collective must span them all: a group of some NPUs is not moved onto itself
    if (m_service->GetSymmetricPeriod() != 1)
    {
        *error = "FlowNetwork::SymmetricPeriod " + std::to_string(m_service->GetSymmetricPeriod()) +
                 ": a text workload runs with NPU 0 for all (period 1); representative sets "
                 "run generated LLM programs (TrainingHelper::LoadLlm)";
        return false;
    }
    for (uint32_t r = 0; r < m_endpoints.size(); r++)
    {
        Ptr<CollectiveExecutor> exec = m_service->GetExecutor(r);
        if (!exec || exec != m_endpoints[r]->GetObject<CollectiveExecutor>())
        {
            *error = "on a symmetric flow network (FlowNetwork::Symmetric) the job's NPU " +
                     std::to_string(r) + " must be the topology's NPU " + std::to_string(r);
            return false;
        }
    }
    const uint32_t layers = tn_workload_layer_count(m_workload);
    for (uint32_t i = 0; i < layers; i++)
    {
        const tn_workload_layer* l = tn_workload_layer_at(m_workload, i);
        for (int p = 0; p < TN_PASS_COUNT; p++)
        {
            const tn_group g = tn_workload_layer_group(m_workload, i, tn_pass(p));
            if (l->pass[p].comm != TN_COMM_NONE && g != TN_GROUP_NONE && g != TN_GROUP_ALL &&
                m_group < m_npus.size())
            {
                *error = std::string("on a symmetric flow network (FlowNetwork::Symmetric) "
                                     "every collective spans all NPUs; layer ") +
                         l->name + " " + tn_pass_name(tn_pass(p)) + " is over groups of " +
                         std::to_string(m_group) + " (a data-parallel workload is)";
                return false;
            }
        }
    }
    return true;
}

bool
TrainingJob::IsScheduled(tn_collective kind, uint32_t count) const
{
    return !m_scheduler.empty() && count == m_npus.size() &&
           (kind == TN_COLL_ALL_REDUCE || kind == TN_COLL_REDUCE_SCATTER ||
            kind == TN_COLL_ALL_GATHER);
}

tn_plan_request
TrainingJob::RequestOf(uint32_t layer, tn_pass pass, uint32_t part) const
{
    const tn_workload_layer* l = tn_workload_layer_at(m_workload, layer);
    tn_collective kinds[2];
    tn_comm_type_collectives(l->pass[pass].comm, kinds);
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = kinds[part];
    request.algorithm = m_algorithm[kinds[part]].c_str();
    request.bytes = l->pass[pass].comm_bytes;
    return request;
}

std::vector<uint32_t>
TrainingJob::Members::Ranks() const
{
    std::vector<uint32_t> ranks(count);
    for (uint32_t j = 0; j < count; j++)
    {
        ranks[j] = first + j * stride;
    }
    return ranks;
}

TrainingJob::Members
TrainingJob::GroupOf(uint32_t layer, tn_pass pass, uint32_t rank) const
{
    Members m;
    tn_error err;
    if (tn_group_members(tn_workload_layer_group(m_workload, layer, pass),
                         m_npus.size(),
                         m_group,
                         rank,
                         &m.first,
                         &m.stride,
                         &m.count,
                         &err) != TN_OK)
    {
        NS_FATAL_ERROR("TrainingJob: " << err.message);
    }
    return m;
}

bool
TrainingJob::CheckCollectives(std::string* error)
{
    for (const IdSlot& slot : m_slots)
    {
        const tn_pass pass = slot.keyPass == RECOMPUTE_PASS ? TN_PASS_FWD : tn_pass(slot.keyPass);
        const std::vector<uint32_t> ranks = GroupOf(slot.layer, pass, 0).Ranks();
        for (uint32_t part = 0; part < slot.parts; part++)
        {
            tn_plan_request request = RequestOf(slot.layer, pass, part);
            bool ok = true;
            if (IsScheduled(request.collective, ranks.size()))
            {
                // as IssuePass asks for it: a symmetric network or MPI ranks refuse Themis
                request.chunks = m_themisChunks;
                request.themis.active_chunks_per_dim = m_themisActive;
                ok = m_service->CheckScheduled(request, m_scheduler, AllNpuRanks(), error);
            }
            else
            {
                // verified while the next one is planned (AwaitVerifications below)
                ok = m_service->CheckDeferred(request, ToNpuRanks(ranks), error);
            }
            if (!ok)
            {
                *error = std::string("layer ") +
                         tn_workload_layer_at(m_workload, slot.layer)->name + " " +
                         tn_pass_name(pass) + ": " + *error;
                return false;
            }
        }
    }
    return m_service->AwaitVerifications(error);
}

Ptr<Collective>
TrainingJob::CreateCollective(uint32_t iteration,
                              uint32_t layer,
                              int keyPass,
                              uint32_t part,
                              uint32_t rank)
{
    const tn_pass pass = keyPass == RECOMPUTE_PASS ? TN_PASS_FWD : tn_pass(keyPass);
    const tn_workload_layer* l = tn_workload_layer_at(m_workload, layer);
    const tn_plan_request request = RequestOf(layer, pass, part);
    const Members members = GroupOf(layer, pass, rank);
    const std::vector<uint32_t> ranks = members.Ranks();
    uint32_t localMembers = 0;
    for (uint32_t member : ranks)
    {
        localMembers += m_local[member] ? 1 : 0;
    }
    std::string error;
    Ptr<Collective> c = m_service->Create(
        request,
        ToNpuRanks(ranks),
        &error,
        IdOf(iteration, layer, keyPass, part, members.first, members.stride, members.count));
    if (!c)
    {
        // planned at set-up (CheckCollectives): what is left is what holds at run time, the
        // memory guard of the generated collectives in flight
        Fail(std::string("layer ") + l->name + " " + tn_pass_name(pass) + ": " + error);
        return nullptr;
    }
    std::vector<uint32_t> key{iteration,
                              layer,
                              static_cast<uint32_t>(keyPass),
                              part,
                              members.first};
    m_collectives[key] = c;
    c->SetOrigin("iteration " + std::to_string(iteration) + ", layer " + l->name + " " +
                 tn_pass_name(pass) + (keyPass == RECOMPUTE_PASS ? " (recomputed)" : ""));
    const bool blocking = pass != TN_PASS_WG || !m_overlap;
    m_uses[c->GetId()] = Use{iteration, layer, pass, keyPass, blocking, localMembers, key};
    ++m_collectivesCreated;
    if (!m_idCreated.empty())
    {
        m_idCreated[c->GetId() - m_firstId] = true;
    }
    m_createdTrace(c);
    return c;
}

bool
TrainingJob::CreateNamed(uint32_t id)
{
    uint32_t iteration = 0;
    uint32_t layer = 0;
    int keyPass = 0;
    uint32_t part = 0;
    uint32_t first = 0;
    if (!DecodeId(id, &iteration, &layer, &keyPass, &part, &first) ||
        (!m_idCreated.empty() && m_idCreated[id - m_firstId]))
    {
        return false; // not the job's, or created here before (its members here are done)
    }
    if (!CreateCollective(iteration, layer, keyPass, part, first))
    {
        return false; // Fail stopped the run
    }
    ++m_createdForMessages;
    NS_LOG_INFO("collective " << id << " created for a message, before any NPU here reached it");
    return true;
}

void
TrainingJob::PartEnd(uint32_t rank, Ptr<const Collective> c, uint32_t groupRank)
{
    PartEndOf(rank, c->GetId());
}

void
TrainingJob::ScheduledRankEnd(Ptr<const ThemisCollective> c, uint32_t rank)
{
    if (m_uses.find(c->GetId()) == m_uses.end())
    {
        return; // not this job's
    }
    PartEndOf(RankOfNpu(c->GetNpu(rank)), c->GetId());
}

void
TrainingJob::PartEndOf(uint32_t rank, uint32_t id)
{
    auto it = m_uses.find(id);
    if (it == m_uses.end())
    {
        return; // not this job's
    }
    Npu& n = m_npus[rank];
    const Use& use = it->second;
    const LayerKey key(use.iteration, use.layer, use.keyPass);
    --Layer(n, key).parts;
    if (use.blocking)
    {
        --n.waitingFor;
    }
    if (use.pass == TN_PASS_WG && --n.pendingWg[use.layer] == 0)
    {
        QueueUpdate(n, key);
    }
    if (--it->second.membersLeft == 0)
    {
        Simulator::ScheduleNow(&TrainingJob::Forget, this, it->second.key);
        m_uses.erase(it);
    }
    StepReleasedBy(rank, key);
}

void
TrainingJob::Forget(std::vector<uint32_t> key)
{
    m_collectives.erase(key);
    m_scheduledOps.erase(key);
}

void
TrainingJob::QueueUpdate(Npu& n, const LayerKey& wg)
{
    const uint32_t layer = std::get<1>(wg);
    if (tn_workload_layer_at(m_workload, layer)->update_delay > 0)
    {
        ++n.pendingUpdates[layer];
        ++Layer(n, wg).updates;
        n.updates.push_back(wg);
    }
}

void
TrainingJob::FinishIteration(Npu& n)
{
    n.current.end = Simulator::Now();
    n.inIteration = false;
    n.log.push_back(n.current);
    m_iterationTrace(n.current);
    NS_LOG_INFO("NPU " << n.rank << " iteration " << n.current.iteration << ": "
                       << (n.current.end - n.current.start).As(Time::US) << ", exposed "
                       << n.current.exposed.As(Time::US));
    ++n.iteration;
    n.phase = n.iteration == m_iterations ? DONE : FORWARD;
    n.layer = 0;
    n.stage = 0;
}

void
TrainingJob::Step(uint32_t rank)
{
    Npu& n = m_npus[rank];
    if (n.busy)
    {
        return;
    }
    if (n.waiting)
    {
        const Time waited = Simulator::Now() - n.waitSince;
        n.current.exposed += waited;
        if (n.hasReleaser)
        {
            Layer(n, n.releaser).record.exposed += waited;
        }
        n.waiting = false;
    }
    const uint32_t layers = tn_workload_layer_count(m_workload);
    while (!n.busy && !n.waiting && n.phase != DONE)
    {
        if (!n.updates.empty())
        {
            n.runningUpdateKey = n.updates.front();
            n.runningUpdate = static_cast<int32_t>(std::get<1>(n.runningUpdateKey));
            n.updates.pop_front();
            RunKernel(rank,
                      tn_workload_layer_at(m_workload, n.runningUpdate)->update_delay,
                      n.runningUpdateKey);
            return;
        }
        if (n.waitingFor > 0)
        {
            Wait(n);
            return;
        }
        switch (n.phase)
        {
        case FORWARD:
            if (!n.inIteration)
            {
                n.inIteration = true;
                n.current = TrainingIterationRecord();
                n.current.iteration = n.iteration;
                n.current.rank = rank;
                n.current.node = m_nodes[rank];
                n.current.start = Simulator::Now();
            }
            if (n.stage == 0)
            {
                if (n.pendingWg[n.layer] > 0 || n.pendingUpdates[n.layer] > 0)
                {
                    Wait(n);
                    return;
                }
                RunPassKernel(rank, TN_PASS_FWD);
                return;
            }
            n.stage = 0;
            IssuePass(rank, n.layer, TN_PASS_FWD, true);
            PassIssued(n, LayerKey(n.iteration, n.layer, TN_PASS_FWD));
            if (++n.layer == layers)
            {
                n.phase = BACKWARD_IG;
                n.layer = layers - 1;
            }
            break;
        case BACKWARD_IG:
            if (n.stage == 0 && !n.recomputed &&
                tn_workload_recompute_from(m_workload, n.layer) != TN_WORKLOAD_NONE)
            {
                n.phase = RECOMPUTE;
                n.recomputing = tn_workload_recompute_from(m_workload, n.layer);
                break;
            }
            if (n.stage == 0)
            {
                RunPassKernel(rank, TN_PASS_IG);
                return;
            }
            n.stage = 0;
            n.recomputed = false;
            IssuePass(rank, n.layer, TN_PASS_IG, true);
            PassIssued(n, LayerKey(n.iteration, n.layer, TN_PASS_IG));
            n.phase = BACKWARD_WG;
            break;
        case RECOMPUTE: {
            const LayerKey key(n.iteration, n.recomputing, RECOMPUTE_PASS);
            if (n.stage == 0)
            {
                n.stage = 1;
                RunKernel(rank,
                          tn_workload_layer_at(m_workload, n.recomputing)
                              ->pass[TN_PASS_FWD]
                              .compute_cycles,
                          key);
                return;
            }
            n.stage = 0;
            IssuePass(rank, n.recomputing, TN_PASS_FWD, true, true);
            PassIssued(n, key);
            if (++n.recomputing == n.layer)
            {
                n.recomputed = true;
                n.phase = BACKWARD_IG;
            }
            break;
        }
        case BACKWARD_WG:
            if (n.stage == 0)
            {
                RunPassKernel(rank, TN_PASS_WG);
                return;
            }
            n.stage = 0;
            if (!IssuePass(rank, n.layer, TN_PASS_WG, !m_overlap))
            {
                // no collective: the weights update at once
                QueueUpdate(n, LayerKey(n.iteration, n.layer, TN_PASS_WG));
            }
            PassIssued(n, LayerKey(n.iteration, n.layer, TN_PASS_WG));
            if (n.layer == 0)
            {
                n.phase = DRAINING;
            }
            else
            {
                --n.layer;
                n.phase = BACKWARD_IG;
            }
            break;
        case DRAINING: {
            bool pending = false;
            for (uint32_t i = 0; i < layers; i++)
            {
                pending = pending || n.pendingWg[i] > 0 || n.pendingUpdates[i] > 0;
            }
            if (pending)
            {
                Wait(n);
                return;
            }
            FinishIteration(n);
            break;
        }
        case DONE:
            break;
        }
    }
}

} // namespace ns3
