/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "themis-collective.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tn-themis.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ThemisCollective");
NS_OBJECT_ENSURE_REGISTERED(ThemisCollective);

namespace
{
/// Immediate bit of a START message (READY otherwise); the rest is the record index.
constexpr uint32_t START_BIT = 0x80000000u;
} // namespace

TypeId
ThemisCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ThemisCollective")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<ThemisCollective>()
            .AddAttribute("ControlPriority",
                          "RDMA priority (traffic class) of the READY and START messages; 8 = "
                          "the priority of the collective's data.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&ThemisCollective::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 8))
            .AddAttribute("Lookahead",
                          "A member reports a chunk's next phase ready when it starts the current "
                          "one (true) or when it finished it (false). A started phase always "
                          "ends, so the leader may queue the next one early; the member then "
                          "starts it once the current one is over here.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ThemisCollective::m_lookahead),
                          MakeBooleanChecker())
            .AddTraceSource("PhaseStart",
                            "A group's leader took a slot for a chunk-phase.",
                            MakeTraceSourceAccessor(&ThemisCollective::m_phaseStartTrace),
                            "ns3::ThemisCollective::PhaseTracedCallback")
            .AddTraceSource("PhaseEnd",
                            "A group's leader finished its part of a chunk-phase.",
                            MakeTraceSourceAccessor(&ThemisCollective::m_phaseEndTrace),
                            "ns3::ThemisCollective::PhaseTracedCallback")
            .AddTraceSource("End",
                            "Every NPU finished every chunk.",
                            MakeTraceSourceAccessor(&ThemisCollective::m_endTrace),
                            "ns3::ThemisCollective::EndTracedCallback")
            .AddTraceSource("RankEnd",
                            "One NPU finished every chunk (its part is over).",
                            MakeTraceSourceAccessor(&ThemisCollective::m_rankEndTrace),
                            "ns3::ThemisCollective::RankEndTracedCallback");
    return tid;
}

ThemisCollective::ThemisCollective()
{
    NS_LOG_FUNCTION(this);
}

ThemisCollective::~ThemisCollective() = default;

void
ThemisCollective::DoDispose()
{
    Detach();
    m_subs.clear();
    m_done = DoneCallback();
    Object::DoDispose();
}

bool
ThemisCollective::Setup(uint32_t id,
                        const tn_topology* topo,
                        tn_collective collective,
                        uint64_t bytes,
                        uint32_t chunks,
                        uint32_t active,
                        Policy policy,
                        bool baseline,
                        std::string* error)
{
    std::vector<tn_dim_info> dims(tn_topology_dim_count(topo));
    for (uint32_t d = 0; d < dims.size(); d++)
    {
        dims[d] = *tn_topology_dim(topo, d);
    }
    return Setup(id, dims, collective, bytes, chunks, active, policy, baseline, error);
}

bool
ThemisCollective::Setup(uint32_t id,
                        const std::vector<tn_dim_info>& grid,
                        tn_collective collective,
                        uint64_t bytes,
                        uint32_t chunks,
                        uint32_t active,
                        Policy policy,
                        bool baseline,
                        std::string* error)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_ranks, "ThemisCollective::Setup called twice");
    // internal invariant: CollectiveService ids stay below 2^30 (CollectiveService::Create)
    NS_ABORT_MSG_IF(id & (CONTROL_KEY_BIT | CollectiveExecutor::NOTIFY_KEY_BIT),
                    "ThemisCollective: id " << id << " too large");
    if (collective != TN_COLL_ALL_REDUCE && collective != TN_COLL_REDUCE_SCATTER &&
        collective != TN_COLL_ALL_GATHER)
    {
        *error = std::string("Themis schedules all-reduce, reduce-scatter and all-gather, not ") +
                 tn_collective_name(collective);
        return false;
    }
    const uint32_t dims = static_cast<uint32_t>(grid.size());
    if (dims == 0)
    {
        *error = "Themis needs a topology with dimensions (a hier: system)";
        return false;
    }
    if (chunks == 0 || active == 0)
    {
        *error = "Themis needs at least one chunk and one active chunk-phase per dim";
        return false;
    }
    uint64_t ranks = 1;
    for (const tn_dim_info& info : grid)
    {
        ranks *= info.size;
    }
    // internal invariant: a grid's dims have sizes >= 1 and multiply to an NPU count (uint32)
    NS_ABORT_MSG_IF(ranks == 0 || ranks > UINT32_MAX, "ThemisCollective: bad grid");
    m_ranks = static_cast<uint32_t>(ranks);
    // chunk-phases are indexed by 31 bits of an immediate
    if (static_cast<uint64_t>(chunks) * 2 * dims * m_ranks >= START_BIT)
    {
        *error = "Themis: " + std::to_string(chunks) + " chunks on " + std::to_string(m_ranks) +
                 " NPUs give more chunk-phases than a control message can name (2^31)";
        return false;
    }
    m_id = id;
    m_collective = collective;
    m_bytes = bytes;
    m_chunks = chunks;
    m_active = active;
    m_policy = policy;
    m_baseline = baseline;
    m_phases = collective == TN_COLL_ALL_REDUCE ? 2 * dims : dims;
    std::vector<uint32_t> sizes(dims);
    std::vector<uint64_t> bandwidth(dims);
    uint32_t stride = 1;
    for (uint32_t d = 0; d < dims; d++)
    {
        const tn_dim_info* info = &grid[d];
        sizes[d] = info->size;
        bandwidth[d] = info->bandwidth_bps;
        m_size.push_back(info->size);
        m_stride.push_back(stride);
        m_groupsOf.push_back(m_ranks / info->size);
        stride *= info->size;
    }
    tn_error err;
    tn_themis_balancer* balancer = nullptr;
    if (tn_themis_balancer_create(dims, sizes.data(), bandwidth.data(), &balancer, &err) != TN_OK)
    {
        *error = std::string("Themis balancer: ") + err.message;
        return false;
    }
    // orders are decided here, before the run, from the bandwidth-based load estimates: they
    // are the same at every NPU without any message; the run-time part is the start order
    m_phaseDim.resize(static_cast<size_t>(chunks) * m_phases);
    m_chunkBytes.resize(chunks);
    std::vector<uint32_t> order(dims);
    const bool allGather = collective == TN_COLL_ALL_GATHER;
    for (uint32_t c = 0; c < chunks; c++)
    {
        uint64_t s = 0;
        if (collective == TN_COLL_ALL_REDUCE)
        {
            s = tn_chunk_region(bytes, chunks, c).length;
        }
        else
        {
            for (uint32_t b = 0; b < m_ranks; b++)
            {
                s += tn_chunk_block(collective, bytes, m_ranks, chunks, c, b).length;
            }
        }
        m_chunkBytes[c] = s;
        tn_themis_balancer_next(balancer,
                                static_cast<double>(s),
                                allGather,
                                baseline,
                                order.data());
        if (baseline && allGather)
        {
            // the baseline all-gather mirrors the reduce-scatter order (tn-themis.h)
            for (uint32_t d = 0; d < dims; d++)
            {
                order[d] = dims - 1 - d;
            }
        }
        for (uint32_t k = 0; k < m_phases; k++)
        {
            uint32_t dim = 0;
            if (collective == TN_COLL_ALL_REDUCE)
            {
                dim = k < dims ? order[k] : order[2 * dims - 1 - k];
            }
            else
            {
                dim = order[k];
            }
            m_phaseDim[c * m_phases + k] = dim;
        }
    }
    tn_themis_balancer_destroy(balancer);
    // records: (chunk, phase) then the leaders of the phase's dim in ascending order
    m_recordStart.resize(static_cast<size_t>(chunks) * m_phases + 1);
    m_recordStart[0] = 0;
    for (uint32_t p = 0; p < chunks * m_phases; p++)
    {
        m_recordStart[p + 1] = m_recordStart[p] + m_groupsOf[m_phaseDim[p]];
    }
    m_records.resize(m_recordStart.back());
    for (uint32_t c = 0; c < chunks; c++)
    {
        for (uint32_t k = 0; k < m_phases; k++)
        {
            const uint32_t dim = GetPhaseDim(c, k);
            for (uint32_t leader : GetLeaders(dim))
            {
                ThemisPhaseRecord& r = m_records[RecordIndex(c, k, leader)];
                r.chunk = c;
                r.phase = k;
                r.dim = dim;
                r.leader = leader;
                r.reduceScatter = IsReduceScatterPhase(k);
                r.bytes = GetPhaseBytes(c, k, leader);
            }
        }
    }
    m_subs.resize(m_records.size());
    m_readyCount.assign(m_records.size(), 0);
    m_memberEnds.assign(m_records.size(), 0);
    m_groups.resize(static_cast<size_t>(dims) * m_ranks);
    m_phasesDone.assign(static_cast<size_t>(m_ranks) * chunks, 0);
    m_rankChunksDone.assign(m_ranks, 0);
    m_startPending.assign(static_cast<size_t>(m_ranks) * chunks, NONE);
    return true;
}

uint32_t
ThemisCollective::GetRankOfNpu(uint32_t npu) const
{
    auto it = std::lower_bound(m_npus.begin(), m_npus.end(), npu);
    return it != m_npus.end() && *it == npu ? static_cast<uint32_t>(it - m_npus.begin()) : NONE;
}

bool
ThemisCollective::IsReduceScatterPhase(uint32_t phase) const
{
    switch (m_collective)
    {
    case TN_COLL_ALL_REDUCE:
        return phase < GetDims();
    case TN_COLL_REDUCE_SCATTER:
        return true;
    default:
        return false;
    }
}

const std::vector<std::string>&
ThemisCollective::GetSchedulerNames()
{
    static const std::vector<std::string> names = {"themis-scf", "themis-fifo", "fixed"};
    return names;
}

bool
ThemisCollective::IsSchedulerName(const std::string& name)
{
    const std::vector<std::string>& names = GetSchedulerNames();
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool
ThemisCollective::ParseSchedulerName(const std::string& name, Policy* policy, bool* baseline)
{
    if (!IsSchedulerName(name))
    {
        return false;
    }
    *policy = name == "themis-scf" ? SCF : FIFO;
    *baseline = name == "fixed";
    return true;
}

std::string
ThemisCollective::ListSchedulerNames()
{
    const std::vector<std::string>& names = GetSchedulerNames();
    std::string list;
    for (size_t i = 0; i < names.size(); i++)
    {
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    return list;
}

std::string
ThemisCollective::GetSchedulerName() const
{
    if (m_baseline)
    {
        return "fixed";
    }
    return m_policy == SCF ? "themis-scf" : "themis-fifo";
}

uint32_t
ThemisCollective::LeaderOf(uint32_t rank, uint32_t dim) const
{
    const uint32_t coord = (rank / m_stride[dim]) % m_size[dim];
    return rank - coord * m_stride[dim];
}

std::vector<uint32_t>
ThemisCollective::GetLeaders(uint32_t dim) const
{
    std::vector<uint32_t> leaders;
    for (uint32_t r = 0; r < m_ranks; r++)
    {
        if (LeaderOf(r, dim) == r)
        {
            leaders.push_back(r);
        }
    }
    return leaders;
}

std::vector<uint32_t>
ThemisCollective::GetGroup(uint32_t leader, uint32_t dim) const
{
    std::vector<uint32_t> group(m_size[dim]);
    for (uint32_t j = 0; j < m_size[dim]; j++)
    {
        group[j] = leader + j * m_stride[dim];
    }
    return group;
}

uint32_t
ThemisCollective::RecordIndex(uint32_t chunk, uint32_t phase, uint32_t leader) const
{
    const uint32_t dim = GetPhaseDim(chunk, phase);
    const uint32_t low = leader % m_stride[dim];
    const uint32_t high = leader / (m_stride[dim] * m_size[dim]);
    return m_recordStart[chunk * m_phases + phase] + high * m_stride[dim] + low;
}

uint64_t
ThemisCollective::GetPhaseBytes(uint32_t chunk, uint32_t phase, uint32_t leader) const
{
    // the reduce-scatter dims in execution order; an all-gather phase mirrors the RS on its
    // dim, so its x is the data held before that RS
    const uint32_t dims = GetDims();
    std::vector<uint32_t> rsOrder(dims);
    for (uint32_t i = 0; i < dims; i++)
    {
        rsOrder[i] = m_collective == TN_COLL_ALL_GATHER
                         ? m_phaseDim[chunk * m_phases + dims - 1 - i]
                         : m_phaseDim[chunk * m_phases + i];
    }
    const uint32_t dim = GetPhaseDim(chunk, phase);
    // members of a group share every coordinate but the group's dim, so any member's (the
    // leader's) slices give the group's sizes
    uint64_t x = m_chunkBytes[chunk];
    for (uint32_t i = 0; i < dims && rsOrder[i] != dim; i++)
    {
        const uint32_t d = rsOrder[i];
        x = tn_slice_of(x, m_size[d], (leader / m_stride[d]) % m_size[d]).length;
    }
    return x;
}

void
ThemisCollective::SetPhaseCollective(uint32_t chunk,
                                     uint32_t phase,
                                     uint32_t leader,
                                     Ptr<Collective> collective)
{
    const uint32_t index = RecordIndex(chunk, phase, leader);
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_subs[index], "ThemisCollective: chunk-phase set twice");
    m_subs[index] = collective;
    m_records[index].collective = collective->GetId();
    m_recordOfSub[collective->GetId()] = index;
}

void
ThemisCollective::Install(const std::vector<Ptr<CollectiveExecutor>>& executors,
                          const std::vector<uint32_t>& nodes,
                          const std::vector<uint32_t>& npus)
{
    // internal invariant: CollectiveService::CreateScheduled passes every NPU of the grid
    NS_ABORT_MSG_IF(executors.size() != m_ranks || nodes.size() != m_ranks ||
                        (!npus.empty() && npus.size() != m_ranks),
                    "ThemisCollective::Install: one executor and node per NPU");
    for (const Ptr<Collective>& c : m_subs)
    {
        // internal invariant: CreateScheduled sets every chunk-phase before Install
        NS_ABORT_MSG_IF(!c, "ThemisCollective::Install: a chunk-phase has no sub-collective");
    }
    m_executors = executors;
    m_nodes = nodes;
    m_npus = npus;
    if (m_npus.empty())
    {
        for (uint32_t r = 0; r < m_ranks; r++)
        {
            m_npus.push_back(r);
        }
    }
    for (uint32_t r = 0; r < m_ranks; r++)
    {
        m_rankOfNode[nodes[r]] = r;
        m_nics.push_back(executors[r]->GetNic());
        m_nics[r]->TraceConnectWithoutContext("MessageReceived",
                                              MakeCallback(&ThemisCollective::Received, this));
        executors[r]->TraceConnectWithoutContext("PartEnd",
                                                 MakeCallback(&ThemisCollective::PartEnd, this));
    }
}

void
ThemisCollective::Detach()
{
    for (uint32_t r = 0; r < m_nics.size(); r++)
    {
        m_nics[r]->TraceDisconnectWithoutContext("MessageReceived",
                                                 MakeCallback(&ThemisCollective::Received, this));
        m_executors[r]->TraceDisconnectWithoutContext(
            "PartEnd",
            MakeCallback(&ThemisCollective::PartEnd, this));
    }
    m_nics.clear();
    m_executors.clear();
}

void
ThemisCollective::StartRank(uint32_t rank)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_nics.empty(), "ThemisCollective: Install before Start");
    if (!m_started)
    {
        m_started = true;
        m_start = Simulator::Now();
    }
    for (uint32_t c = 0; c < m_chunks; c++)
    {
        Ready(rank, c, 0);
    }
}

void
ThemisCollective::Ready(uint32_t rank, uint32_t chunk, uint32_t phase)
{
    const uint32_t leader = LeaderOf(rank, GetPhaseDim(chunk, phase));
    const uint32_t record = RecordIndex(chunk, phase, leader);
    if (leader == rank)
    {
        LeaderReady(leader, record);
    }
    else
    {
        SendControl(rank, leader, record, false);
    }
}

void
ThemisCollective::SendControl(uint32_t from, uint32_t to, uint32_t record, bool start)
{
    RdmaWriteRequest request;
    request.dst = m_nodes[to];
    request.bytes = 0;
    request.priority = m_controlPriority < 8 ? m_controlPriority : m_subs[record]->GetPriority();
    request.lane = CollectiveExecutor::NOTIFY_LANE; // never behind data
    request.remoteKey = m_id | CONTROL_KEY_BIT;
    request.hasImmediate = true;
    request.immediate = record | (start ? START_BIT : 0);
    ++m_controlMessages;
    m_nics[from]->Post(request);
}

void
ThemisCollective::Received(const RdmaMessageRecord& message)
{
    if (!message.hasImmediate || message.remoteKey != (m_id | CONTROL_KEY_BIT))
    {
        return;
    }
    auto it = m_rankOfNode.find(message.dst);
    NS_ASSERT(it != m_rankOfNode.end());
    const uint32_t rank = it->second;
    const uint32_t record = message.immediate & ~START_BIT;
    // internal invariant: control messages are this collective's own, numbered by it
    NS_ABORT_MSG_IF(record >= m_records.size(),
                    "ThemisCollective " << m_id << ": control message names no chunk-phase");
    if (message.immediate & START_BIT)
    {
        StartMember(rank, record);
    }
    else
    {
        NS_ASSERT(m_records[record].leader == rank);
        LeaderReady(rank, record);
    }
}

void
ThemisCollective::LeaderReady(uint32_t leader, uint32_t record)
{
    ThemisPhaseRecord& r = m_records[record];
    if (++m_readyCount[record] < m_size[r.dim])
    {
        return;
    }
    Group& g = m_groups[r.dim * m_ranks + leader];
    r.ready = Simulator::Now();
    r.sequence = g.arrivals++;
    g.queue.push_back(record);
    TryStart(leader, r.dim);
}

void
ThemisCollective::TryStart(uint32_t leader, uint32_t dim)
{
    Group& g = m_groups[dim * m_ranks + leader];
    while (g.active < m_active && !g.queue.empty())
    {
        auto best = g.queue.begin();
        for (auto it = g.queue.begin() + 1; it != g.queue.end(); ++it)
        {
            const ThemisPhaseRecord& a = m_records[*it];
            const ThemisPhaseRecord& b = m_records[*best];
            // sequence orders arrivals at this leader (chunk order within one instant)
            const bool better = m_policy == SCF ? (a.bytes < b.bytes ||
                                                   (a.bytes == b.bytes && a.sequence < b.sequence))
                                                : a.sequence < b.sequence;
            if (better)
            {
                best = it;
            }
        }
        const uint32_t record = *best;
        g.queue.erase(best);
        ++g.active;
        ThemisPhaseRecord& r = m_records[record];
        r.start = Simulator::Now();
        m_phaseStartTrace(r);
        for (uint32_t member : GetGroup(leader, dim))
        {
            if (member != leader)
            {
                SendControl(leader, member, record, true);
            }
        }
        StartMember(leader, record);
    }
}

void
ThemisCollective::StartMember(uint32_t rank, uint32_t record)
{
    const ThemisPhaseRecord& r = m_records[record];
    const uint32_t slot = rank * m_chunks + r.chunk;
    if (m_phasesDone[slot] < r.phase)
    {
        // committed early (Lookahead): the chunk's previous phase is still running here
        NS_ASSERT(m_startPending[slot] == NONE);
        m_startPending[slot] = record;
        return;
    }
    Launch(rank, record);
}

void
ThemisCollective::Launch(uint32_t rank, uint32_t record)
{
    const ThemisPhaseRecord& r = m_records[record];
    if (m_lookahead && r.phase + 1 < m_phases)
    {
        // this phase is started in its group, so it will end here whatever the other slots
        // do: the next one may be queued now and its START overlaps this phase's data
        Ready(rank, r.chunk, r.phase + 1);
    }
    m_executors[rank]->Start(m_subs[record]);
}

void
ThemisCollective::PartEnd(Ptr<const Collective> collective, uint32_t groupRank)
{
    auto it = m_recordOfSub.find(collective->GetId());
    if (it == m_recordOfSub.end())
    {
        return; // another collective of this executor
    }
    const uint32_t record = it->second;
    const uint32_t rank = m_rankOfNode.at(collective->GetNode(groupRank));
    ThemisPhaseRecord& r = m_records[record];
    ++m_memberEnds[record];
    if (rank == r.leader)
    {
        r.end = Simulator::Now();
        m_phaseEndTrace(r);
        Group& g = m_groups[r.dim * m_ranks + rank];
        NS_ASSERT(g.active > 0);
        --g.active;
        TryStart(rank, r.dim);
    }
    const uint32_t slot = rank * m_chunks + r.chunk;
    ++m_phasesDone[slot];
    if (r.phase + 1 < m_phases)
    {
        if (!m_lookahead)
        {
            Ready(rank, r.chunk, r.phase + 1);
        }
        const uint32_t pending = m_startPending[slot];
        if (pending != NONE)
        {
            m_startPending[slot] = NONE;
            Launch(rank, pending);
        }
        return;
    }
    if (++m_rankChunksDone[rank] == m_chunks)
    {
        m_rankEndTrace(this, rank);
    }
    if (++m_finished == static_cast<uint64_t>(m_ranks) * m_chunks)
    {
        m_complete = true;
        m_end = Simulator::Now();
        NS_LOG_INFO("Themis collective " << m_id << " (" << GetSchedulerName() << ") ends after "
                                         << (m_end - m_start).As(Time::US));
        m_endTrace(this);
        if (!m_done.IsNull())
        {
            m_done(this);
        }
        // Every control message has arrived (each phase started after its READY and START):
        // nothing points here any more once the traces are gone, and the operation can be
        // let go. Not now: an executor's PartEnd trace is calling this.
        Simulator::ScheduleNow(&ThemisCollective::Detach, Ptr<ThemisCollective>(this));
    }
}

uint64_t
ThemisCollective::GetDeliveredBytes() const
{
    uint64_t sum = 0;
    for (const Ptr<Collective>& c : m_subs)
    {
        sum += c ? c->GetDeliveredBytes() : 0;
    }
    return sum;
}

uint64_t
ThemisCollective::GetPlannedBytes() const
{
    uint64_t sum = 0;
    for (const Ptr<Collective>& c : m_subs)
    {
        sum += c ? c->GetPlannedBytes() : 0;
    }
    return sum;
}

std::string
ThemisCollective::Check() const
{
    std::ostringstream why;
    uint64_t notStarted = 0;
    uint64_t notEnded = 0;
    for (size_t i = 0; i < m_records.size(); i++)
    {
        const ThemisPhaseRecord& r = m_records[i];
        notStarted += r.start.IsNegative() ? 1 : 0;
        notEnded += r.end.IsNegative() || m_memberEnds[i] != m_size[r.dim] ? 1 : 0;
        const std::string sub = m_subs[i] ? m_subs[i]->Check() : "no sub-collective";
        if (!sub.empty())
        {
            why << "chunk " << r.chunk << " phase " << r.phase << " (dim " << r.dim << ", leader "
                << r.leader << "): " << sub;
            break;
        }
    }
    if (notStarted)
    {
        why << notStarted << " of " << m_records.size() << " chunk-phases never started; ";
    }
    if (notEnded)
    {
        why << notEnded << " of " << m_records.size()
            << " chunk-phases did not end at every member; ";
    }
    if (!m_complete)
    {
        why << "not complete (" << m_finished << " of " << m_ranks * m_chunks
            << " member chunks finished); ";
    }
    return why.str();
}

} // namespace ns3
