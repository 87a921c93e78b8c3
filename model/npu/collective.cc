/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Collective");
NS_OBJECT_ENSURE_REGISTERED(Collective);

TypeId
Collective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Collective")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<Collective>()
            .AddTraceSource("Start",
                            "The collective started (its first executor acted).",
                            MakeTraceSourceAccessor(&Collective::m_startTrace),
                            "ns3::Collective::CollectiveTracedCallback")
            .AddTraceSource("End",
                            "Every transfer's data is ready at its receiver.",
                            MakeTraceSourceAccessor(&Collective::m_endTrace),
                            "ns3::Collective::CollectiveTracedCallback")
            .AddTraceSource("TransferIssued",
                            "A transfer was posted by its sender.",
                            MakeTraceSourceAccessor(&Collective::m_issuedTrace),
                            "ns3::Collective::TransferTracedCallback")
            .AddTraceSource("TransferReady",
                            "A transfer's data is ready at its receiver (all times set).",
                            MakeTraceSourceAccessor(&Collective::m_readyTrace),
                            "ns3::Collective::TransferTracedCallback");
    return tid;
}

Collective::Collective()
{
    NS_LOG_FUNCTION(this);
}

Collective::~Collective() = default;

Collective::SharedSchedule
Collective::Share(tn_schedule* schedule)
{
    return SharedSchedule(schedule, [](const tn_schedule* s) {
        tn_schedule_destroy(const_cast<tn_schedule*>(s));
    });
}

void
Collective::DoDispose()
{
    m_done = DoneCallback();
    for (RankRun& r : m_ranks)
    {
        tn_rank_program_free(&r.rp);
    }
    m_ranks.clear();
    Object::DoDispose();
}

Collective::SharedProgram
Collective::ShareProgram(tn_program* program)
{
    return SharedProgram(program, [](const tn_program* p) {
        tn_program_destroy(const_cast<tn_program*>(p));
    });
}

namespace
{
/// A (direction, peer) group of a generated rank's ops
uint64_t
GroupKey(bool send, uint32_t peer)
{
    return (static_cast<uint64_t>(send) << 32) | peer;
}
} // namespace

void
Collective::SetupProgram(uint32_t id,
                         SharedProgram program,
                         std::vector<uint32_t> nodes,
                         std::unordered_map<uint64_t, uint8_t> pairLanes,
                         uint8_t priority)
{
    NS_ABORT_MSG_IF(m_schedule || m_program, "Collective: set up twice");
    NS_ABORT_MSG_IF(!program || nodes.size() != tn_program_ranks(program.get()),
                    "Collective::SetupProgram: " << nodes.size() << " nodes for the program's "
                                                 << (program ? tn_program_ranks(program.get()) : 0)
                                                 << " ranks");
    m_id = id;
    m_program = std::move(program);
    m_nodes = std::move(nodes);
    m_pairLanes = std::move(pairLanes);
    m_priority = priority;
    const uint32_t ranks = static_cast<uint32_t>(m_nodes.size());
    m_ranks.resize(ranks);
    m_rankPending.assign(ranks, 0);
    for (uint32_t r = 0; r < ranks; r++)
    {
        if (m_nodes[r] >= m_rankOfNode.size())
        {
            m_rankOfNode.resize(static_cast<size_t>(m_nodes[r]) + 1, UINT32_MAX);
        }
        m_rankOfNode[m_nodes[r]] = r;
    }
    tn_error err;
    uint32_t next = 0;
    for (uint32_t r = 0; r < ranks; r++)
    {
        RankRun& run = m_ranks[r];
        NS_ABORT_MSG_IF(tn_program_rank(m_program.get(), r, &run.rp, &err) != TN_OK,
                        "Collective::SetupProgram: rank " << r << ": " << err.message);
        // every rank's program is held for the whole run: no spare capacity
        tn_rank_program_compact(&run.rp);
        const tn_rank_program& rp = run.rp;
        run.ops.assign(rp.count, OpState());
        std::vector<uint32_t> joinPending;
        // one join per distinct dep list (ops with equal lists share dep_start, see
        // tn-program.h): a dep counts down its joins, a join at zero meets one dep of each
        // of its ops, so a frontier shared by many sends is counted once
        std::unordered_map<uint32_t, uint32_t> joinOf; // dep_start -> join
        std::vector<uint32_t> opJoin(rp.count, UINT32_MAX);
        for (uint32_t i = 0; i < rp.count; i++)
        {
            const tn_program_op& o = rp.ops[i];
            if (o.dep_count > 0)
            {
                auto ins = joinOf.emplace(o.dep_start, static_cast<uint32_t>(joinOf.size()));
                if (ins.second)
                {
                    joinPending.push_back(o.dep_count);
                }
                opJoin[i] = ins.first->second;
                run.ops[i].pending = 1;
            }
            if (o.send)
            {
                run.ops[i].transfer = next++;
                m_plannedBytes += o.length;
            }
        }
        // ops by (direction, peer, match): the matches of a group are 0, 1, ... in program
        // order (tn-program.h), so a group is an array indexed by match
        {
            std::unordered_map<uint64_t, uint32_t> sizes;
            for (uint32_t i = 0; i < rp.count; i++)
            {
                ++sizes[GroupKey(rp.ops[i].send, rp.ops[i].peer)];
            }
            run.groupKey.clear();
            for (const auto& g : sizes)
            {
                run.groupKey.push_back(g.first);
            }
            std::sort(run.groupKey.begin(), run.groupKey.end());
            run.groupStart.assign(run.groupKey.size() + 1, 0);
            for (size_t g = 0; g < run.groupKey.size(); g++)
            {
                run.groupStart[g + 1] = run.groupStart[g] + sizes[run.groupKey[g]];
            }
            run.groupOps.assign(rp.count, UINT32_MAX);
            for (uint32_t i = 0; i < rp.count; i++)
            {
                const tn_program_op& o = rp.ops[i];
                const size_t g = FindGroup(run, o.send, o.peer);
                NS_ABORT_MSG_IF(o.match >= run.groupStart[g + 1] - run.groupStart[g] ||
                                    run.groupOps[run.groupStart[g] + o.match] != UINT32_MAX,
                                "Collective::SetupProgram: rank " << r << " op " << i << ": match "
                                                                  << o.match << " out of order");
                run.groupOps[run.groupStart[g] + o.match] = i;
            }
        }
        const uint32_t joins = static_cast<uint32_t>(joinPending.size());
        // CSR: join -> its ops; op -> the joins whose list holds it
        std::vector<uint32_t> joinOpStart(joins + 1, 0);
        std::vector<uint32_t> succStart(rp.count + 1, 0);
        std::vector<uint32_t> listOf(joins, UINT32_MAX); // join -> an op holding its list
        for (uint32_t i = 0; i < rp.count; i++)
        {
            if (opJoin[i] == UINT32_MAX)
            {
                continue;
            }
            ++joinOpStart[opJoin[i] + 1];
            if (listOf[opJoin[i]] == UINT32_MAX)
            {
                listOf[opJoin[i]] = i;
                uint32_t n = 0;
                const uint32_t* d = tn_rank_program_deps(&rp, i, &n);
                for (uint32_t k = 0; k < n; k++)
                {
                    ++succStart[d[k] + 1];
                }
            }
        }
        for (uint32_t j = 0; j < joins; j++)
        {
            joinOpStart[j + 1] += joinOpStart[j];
        }
        for (uint32_t i = 0; i < rp.count; i++)
        {
            succStart[i + 1] += succStart[i];
        }
        run.joinOps.resize(joinOpStart[joins]);
        run.succJoins.resize(succStart[rp.count]);
        std::vector<uint32_t> fill(joinOpStart.begin(), joinOpStart.end() - 1);
        for (uint32_t i = 0; i < rp.count; i++)
        {
            if (opJoin[i] != UINT32_MAX)
            {
                run.joinOps[fill[opJoin[i]]++] = i;
            }
        }
        fill.assign(succStart.begin(), succStart.end() - 1);
        for (uint32_t j = 0; j < joins; j++)
        {
            uint32_t n = 0;
            const uint32_t* d = tn_rank_program_deps(&rp, listOf[j], &n);
            for (uint32_t k = 0; k < n; k++)
            {
                run.succJoins[fill[d[k]]++] = j;
            }
        }
        for (uint32_t i = 0; i < rp.count; i++)
        {
            run.ops[i].succBegin = succStart[i];
            run.ops[i].succEnd = succStart[i + 1];
        }
        run.joins.resize(joins + 1);
        for (uint32_t j = 0; j <= joins; j++)
        {
            run.joins[j].pending = j < joins ? joinPending[j] : 0;
            run.joins[j].opBegin = joinOpStart[j];
        }
        m_rankPending[r] = rp.count;
        m_transferCount += rp.sends;
    }
    m_expectedReady = m_transferCount;
    m_expectedIssued = m_transferCount;
    m_expectedBytes = m_plannedBytes;
    // a send waits for its receiver's clear-to-send when the receive lists deps of its own;
    // the receive gets the transfer's number, so that the receiver never reads the sender's
    for (uint32_t r = 0; r < ranks; r++)
    {
        RankRun& run = m_ranks[r];
        for (uint32_t i = 0; i < run.rp.count; i++)
        {
            const tn_program_op& o = run.rp.ops[i];
            if (!o.send)
            {
                continue;
            }
            const uint32_t j = FindOp(o.peer, false, r, o.match);
            NS_ABORT_MSG_IF(j == UINT32_MAX,
                            "Collective::SetupProgram: rank "
                                << r << "'s send " << i << " has no receive at rank " << o.peer);
            m_ranks[o.peer].ops[j].transfer = run.ops[i].transfer;
            if (m_ranks[o.peer].rp.ops[j].dep_count > 0)
            {
                run.ops[i].needsClear = 1;
                ++run.ops[i].pending;
            }
        }
    }
}

uint32_t
Collective::GetRankOfNode(uint32_t node) const
{
    return node < m_rankOfNode.size() ? m_rankOfNode[node] : UINT32_MAX;
}

size_t
Collective::FindGroup(const RankRun& run, bool send, uint32_t peer)
{
    const uint64_t key = GroupKey(send, peer);
    auto it = std::lower_bound(run.groupKey.begin(), run.groupKey.end(), key);
    return it == run.groupKey.end() || *it != key ? SIZE_MAX
                                                  : static_cast<size_t>(it - run.groupKey.begin());
}

uint32_t
Collective::FindOp(uint32_t rank, bool send, uint32_t peer, uint32_t match) const
{
    if (rank >= m_ranks.size())
    {
        return UINT32_MAX;
    }
    const RankRun& run = m_ranks[rank];
    const size_t g = FindGroup(run, send, peer);
    if (g == SIZE_MAX || match >= run.groupStart[g + 1] - run.groupStart[g])
    {
        return UINT32_MAX;
    }
    return run.groupOps[run.groupStart[g] + match];
}

uint32_t
Collective::GetPairLane(uint32_t src, uint32_t dst) const
{
    if (m_pairLanes.empty())
    {
        return 0;
    }
    auto it = m_pairLanes.find((static_cast<uint64_t>(src) << 32) | dst);
    return it == m_pairLanes.end() ? 0 : it->second;
}

void
Collective::CompleteOp(uint32_t rank, uint32_t op, std::vector<uint32_t>* ready)
{
    RankRun& r = m_ranks[rank];
    const OpState& state = r.ops[op];
    for (uint32_t k = state.succBegin; k < state.succEnd; k++)
    {
        const uint32_t j = r.succJoins[k];
        NS_ASSERT_MSG(r.joins[j].pending > 0,
                      "collective " << m_id << " rank " << rank << " join " << j
                                    << ": dependency met twice");
        if (--r.joins[j].pending > 0)
        {
            continue;
        }
        for (uint32_t m = r.joins[j].opBegin; m < r.joins[j + 1].opBegin; m++)
        {
            if (MeetOpDependency(rank, r.joinOps[m]))
            {
                ready->push_back(r.joinOps[m]);
            }
        }
    }
}

bool
Collective::MeetOpDependency(uint32_t rank, uint32_t op)
{
    uint32_t& p = m_ranks[rank].ops[op].pending;
    NS_ASSERT_MSG(p > 0,
                  "collective " << m_id << " rank " << rank << " op " << op
                                << ": dependency met twice");
    return --p == 0;
}

void
Collective::NotifyOpIssued(uint32_t rank, uint32_t op)
{
    OpState& o = m_ranks[rank].ops[op];
    NS_ASSERT_MSG(!(o.done & 1),
                  "collective " << m_id << " rank " << rank << " op " << op << " posted twice");
    o.done |= 1;
    o.times[0] = Simulator::Now().GetTimeStep();
    ++m_issuedCount;
    if (!m_issuedTrace.IsEmpty())
    {
        m_issuedTrace(GetSendOpRecord(rank, op));
    }
}

bool
Collective::NotifyOpArrived(uint32_t rank, uint32_t op, Time firstByte, uint64_t bytes)
{
    RankRun& r = m_ranks[rank];
    OpState& o = r.ops[op];
    if (o.done & 2)
    {
        ++m_duplicates;
        return false;
    }
    o.done |= 2;
    o.times[0] = firstByte.GetTimeStep();
    o.times[1] = Simulator::Now().GetTimeStep();
    m_deliveredBytes += bytes;
    if (bytes != r.rp.ops[op].length)
    {
        ++m_sizeMismatches;
    }
    return true;
}

void
Collective::NotifyOpReady(uint32_t rank, uint32_t op)
{
    OpState& o = m_ranks[rank].ops[op];
    NS_ASSERT((o.done & 2) && !(o.done & 4));
    o.done |= 4;
    o.times[2] = Simulator::Now().GetTimeStep();
    ++m_readyCount;
    if (!m_readyTrace.IsEmpty())
    {
        m_readyTrace(GetOpRecord(rank, op));
    }
    if (m_readyCount == m_expectedReady)
    {
        m_end = Simulator::Now();
        NS_LOG_INFO("collective " << m_id << " ends after " << (m_end - m_start).As(Time::US));
        m_endTrace(this);
        if (!m_done.IsNull())
        {
            m_done(this);
        }
    }
}

CollectiveTransferRecord
Collective::GetSendOpRecord(uint32_t src, uint32_t op) const
{
    const tn_program_op& o = m_ranks[src].rp.ops[op];
    const uint32_t recv = FindOp(o.peer, false, src, o.match);
    NS_ASSERT(recv != UINT32_MAX);
    return GetOpRecord(o.peer, recv);
}

CollectiveTransferRecord
Collective::GetOpRecord(uint32_t dst, uint32_t op) const
{
    const RankRun& d = m_ranks[dst];
    const tn_program_op& o = d.rp.ops[op];
    const OpState& recv = d.ops[op];
    const uint32_t src = o.peer;
    const uint32_t send = FindOp(src, true, dst, o.match);
    NS_ASSERT(send != UINT32_MAX);
    CollectiveTransferRecord r;
    r.collective = m_id;
    r.transfer = recv.transfer;
    r.src = src;
    r.dst = dst;
    r.srcNode = m_nodes[src];
    r.dstNode = m_nodes[dst];
    r.bytes = o.length;
    r.chunk = o.chunk;
    r.step = o.step;
    r.dim = o.dim;
    r.reduce = o.op == TN_OP_REDUCE;
    r.lane = GetPairLane(src, dst);
    r.issue = TimeStep(m_ranks[src].ops[send].times[0]);
    r.firstByte = TimeStep(recv.times[0]);
    r.lastByte = TimeStep(recv.times[1]);
    r.ready = TimeStep(recv.times[2]);
    return r;
}

void
Collective::Setup(uint32_t id,
                  SharedSchedule shared,
                  std::vector<uint32_t> nodes,
                  std::vector<uint8_t> lanes,
                  uint8_t priority)
{
    NS_ABORT_MSG_IF(m_schedule, "Collective::Setup called twice");
    const tn_schedule* schedule = shared.get();
    NS_ABORT_MSG_IF(!schedule || !tn_schedule_is_finalized(schedule),
                    "Collective::Setup: the schedule must be finalized");
    NS_ABORT_MSG_IF(nodes.size() != tn_schedule_ranks(schedule),
                    "Collective::Setup: " << nodes.size() << " nodes for "
                                          << tn_schedule_ranks(schedule) << " ranks");
    const uint32_t count = tn_schedule_count(schedule);
    NS_ABORT_MSG_IF(!lanes.empty() && lanes.size() != count,
                    "Collective::Setup: lanes for " << lanes.size() << " of " << count
                                                    << " transfers");
    m_id = id;
    m_schedule = std::move(shared);
    m_nodes = std::move(nodes);
    m_lanes = std::move(lanes);
    m_priority = priority;
    m_state.resize(count);
    m_transferCount = count;
    m_plannedBytes = tn_schedule_total_bytes(schedule);
    m_expectedReady = count;
    m_expectedIssued = count;
    m_expectedBytes = m_plannedBytes;
    const uint32_t ranks = static_cast<uint32_t>(m_nodes.size());
    m_initialStart.assign(ranks + 1, 0);
    m_rankPending.assign(ranks, 0);
    for (uint32_t t = 0; t < count; t++)
    {
        ++m_rankPending[tn_schedule_transfer(schedule, t)->src];
        ++m_rankPending[tn_schedule_transfer(schedule, t)->dst];
        tn_schedule_deps(schedule, t, &m_state[t].pendingDeps);
        if (m_state[t].pendingDeps == 0)
        {
            ++m_initialStart[tn_schedule_transfer(schedule, t)->src + 1];
        }
    }
    for (uint32_t r = 0; r < ranks; r++)
    {
        m_initialStart[r + 1] += m_initialStart[r];
    }
    m_initialIds.resize(m_initialStart[ranks]);
    std::vector<uint32_t> fill(m_initialStart.begin(), m_initialStart.end() - 1);
    for (uint32_t t = 0; t < count; t++)
    {
        if (m_state[t].pendingDeps == 0)
        {
            m_initialIds[fill[tn_schedule_transfer(schedule, t)->src]++] = t;
        }
    }
    SetupStepOrder();
}

void
Collective::SetupStepOrder()
{
    const tn_schedule* s = m_schedule.get();
    const uint32_t count = tn_schedule_count(s);
    if (!tn_schedule_step_ordered(s))
    {
        return;
    }
    // queues: (src, dst, lane), numbered in order of first appearance
    std::unordered_map<uint64_t, uint32_t> index;
    m_queueOf.resize(count);
    std::vector<uint32_t> sizes;
    for (uint32_t t = 0; t < count; t++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, t);
        uint64_t key = ((static_cast<uint64_t>(x->src) << 32) | x->dst) * 64 + GetLane(t);
        auto it = index.emplace(key, static_cast<uint32_t>(sizes.size())).first;
        if (it->second == sizes.size())
        {
            sizes.push_back(0);
        }
        m_queueOf[t] = it->second;
        sizes[it->second]++;
    }
    m_queueStart.assign(sizes.size() + 1, 0);
    for (size_t q = 0; q < sizes.size(); q++)
    {
        m_queueStart[q + 1] = m_queueStart[q] + sizes[q];
    }
    m_queueIds.resize(count);
    std::vector<uint32_t> at(m_queueStart.begin(), m_queueStart.end() - 1);
    for (uint32_t t = 0; t < count; t++)
    {
        m_queueIds[at[m_queueOf[t]]++] = t;
    }
    for (size_t q = 0; q < sizes.size(); q++)
    {
        std::stable_sort(m_queueIds.begin() + m_queueStart[q],
                         m_queueIds.begin() + m_queueStart[q + 1],
                         [s](uint32_t a, uint32_t b) {
                             return tn_schedule_transfer(s, a)->step <
                                    tn_schedule_transfer(s, b)->step;
                         });
    }
    m_queueNext.assign(m_queueStart.begin(), m_queueStart.end() - 1);
}

void
Collective::Release(uint32_t transfer, std::vector<uint32_t>* post)
{
    if (m_queueOf.empty())
    {
        post->push_back(transfer);
        return;
    }
    const uint32_t q = m_queueOf[transfer];
    uint32_t& next = m_queueNext[q];
    while (next < m_queueStart[q + 1] && m_state[m_queueIds[next]].pendingDeps == 0)
    {
        post->push_back(m_queueIds[next++]);
    }
}

std::string
Collective::GetCollectiveName() const
{
    if (m_program)
    {
        return tn_collective_name(tn_program_collective(m_program.get()));
    }
    return m_schedule ? tn_collective_name(tn_schedule_collective(m_schedule.get())) : "";
}

std::string
Collective::GetAlgorithm() const
{
    if (m_program)
    {
        return tn_program_algorithm(m_program.get());
    }
    return m_schedule ? tn_schedule_algorithm(m_schedule.get()) : "";
}

tn_collective
Collective::GetOperation() const
{
    if (m_program)
    {
        return tn_program_collective(m_program.get());
    }
    return m_schedule ? tn_schedule_collective(m_schedule.get()) : TN_COLL_ALL_REDUCE;
}

uint32_t
Collective::GetRoot() const
{
    if (m_program)
    {
        return tn_program_root(m_program.get());
    }
    return m_schedule ? tn_schedule_root(m_schedule.get()) : 0;
}

uint64_t
Collective::GetBytes() const
{
    if (m_program)
    {
        return tn_program_bytes(m_program.get());
    }
    return m_schedule ? tn_schedule_bytes(m_schedule.get()) : 0;
}

void
Collective::SetDoneCallback(DoneCallback cb)
{
    m_done = cb;
}

void
Collective::NotifyStart()
{
    if (m_started)
    {
        return;
    }
    m_started = true;
    m_start = Simulator::Now();
    NS_LOG_INFO("collective " << m_id << " (" << GetCollectiveName() << ", " << GetAlgorithm()
                              << ", " << m_transferCount << " transfers) starts");
    m_startTrace(this);
    if (m_expectedReady == 0)
    {
        m_end = m_start;
        m_endTrace(this);
        if (!m_done.IsNull())
        {
            m_done(this);
        }
    }
}

bool
Collective::MeetDependency(uint32_t transfer)
{
    TransferState& s = m_state[transfer];
    NS_ASSERT_MSG(s.pendingDeps > 0,
                  "collective " << m_id << " transfer " << transfer << ": dependency met twice");
    return --s.pendingDeps == 0;
}

void
Collective::NotifyIssued(uint32_t transfer)
{
    TransferState& s = m_state[transfer];
    NS_ASSERT_MSG(!s.issued, "collective " << m_id << " transfer " << transfer << " posted twice");
    s.issued = 1;
    s.issueNs = Simulator::Now().GetTimeStep();
    ++m_issuedCount;
    if (!m_issuedTrace.IsEmpty())
    {
        m_issuedTrace(GetRecord(transfer));
    }
}

bool
Collective::NotifyArrived(uint32_t transfer, Time firstByte, uint64_t bytes)
{
    TransferState& s = m_state[transfer];
    if (s.arrived)
    {
        ++m_duplicates;
        return false;
    }
    s.arrived = 1;
    s.firstNs = firstByte.GetTimeStep();
    s.lastNs = Simulator::Now().GetTimeStep();
    m_deliveredBytes += bytes;
    if (bytes != tn_schedule_transfer(m_schedule.get(), transfer)->length)
    {
        ++m_sizeMismatches;
    }
    return true;
}

void
Collective::NotifyReady(uint32_t transfer)
{
    TransferState& s = m_state[transfer];
    NS_ASSERT(s.arrived && !s.ready);
    s.ready = 1;
    s.readyNs = Simulator::Now().GetTimeStep();
    ++m_readyCount;
    if (!m_readyTrace.IsEmpty())
    {
        m_readyTrace(GetRecord(transfer));
    }
    if (m_readyCount == m_expectedReady)
    {
        m_end = Simulator::Now();
        NS_LOG_INFO("collective " << m_id << " ends after " << (m_end - m_start).As(Time::US));
        m_endTrace(this);
        if (!m_done.IsNull())
        {
            m_done(this);
        }
    }
}

void
Collective::SetLocalRanks(const std::vector<bool>& local)
{
    NS_ABORT_MSG_IF(local.size() != m_nodes.size(),
                    "Collective::SetLocalRanks: " << local.size() << " flags for " << m_nodes.size()
                                                  << " ranks");
    NS_ABORT_MSG_IF(m_started, "Collective::SetLocalRanks: already started");
    m_expectedReady = 0;
    m_expectedIssued = 0;
    m_expectedBytes = 0;
    if (m_program)
    {
        for (uint32_t r = 0; r < m_ranks.size(); r++)
        {
            if (!local[r])
            {
                continue;
            }
            const tn_rank_program& rp = m_ranks[r].rp;
            m_expectedIssued += rp.sends;
            for (uint32_t i = 0; i < rp.count; i++)
            {
                if (!rp.ops[i].send)
                {
                    ++m_expectedReady;
                    m_expectedBytes += rp.ops[i].length;
                }
            }
        }
        return;
    }
    const tn_schedule* s = m_schedule.get();
    for (uint32_t t = 0; t < m_state.size(); t++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, t);
        if (local[x->src])
        {
            ++m_expectedIssued;
        }
        if (local[x->dst])
        {
            ++m_expectedReady;
            m_expectedBytes += x->length;
        }
    }
}

void
Collective::MergeRanks(Time start, Time end, uint64_t issued, uint64_t ready, uint64_t delivered)
{
    m_expectedReady = m_transferCount;
    m_expectedIssued = m_transferCount;
    m_expectedBytes = m_plannedBytes;
    m_started = true;
    m_start = start;
    m_issuedCount = issued;
    m_readyCount = ready;
    m_deliveredBytes = delivered;
    m_end = ready == m_expectedReady ? end : Time(-1);
}

CollectiveTransferRecord
Collective::GetRecord(uint32_t transfer) const
{
    const tn_transfer* t = tn_schedule_transfer(m_schedule.get(), transfer);
    const TransferState& s = m_state[transfer];
    CollectiveTransferRecord r;
    r.collective = m_id;
    r.transfer = transfer;
    r.src = t->src;
    r.dst = t->dst;
    r.srcNode = m_nodes[t->src];
    r.dstNode = m_nodes[t->dst];
    r.bytes = t->length;
    r.chunk = t->chunk;
    r.step = t->step;
    r.dim = t->dim;
    r.reduce = t->op == TN_OP_REDUCE;
    r.lane = GetLane(transfer);
    r.issue = TimeStep(s.issueNs);
    r.firstByte = TimeStep(s.firstNs);
    r.lastByte = TimeStep(s.lastNs);
    r.ready = TimeStep(s.readyNs);
    return r;
}

void
Collective::NotifyFailed(const RdmaMessageRecord& record, bool notification)
{
    if (m_failedMessages++ == 0)
    {
        std::ostringstream what;
        what << (notification ? "notification of transfer " : "transfer ") << record.immediate
             << " from node " << record.src << " to node " << record.dst << ", "
             << (record.status == RdmaMessageRecord::RETRY_EXCEEDED
                     ? "retry limit exceeded (ns3::RdmaNic::RetryLimit, RetransmitTimeout)"
                     : "flushed from a failed queue pair")
             << " at " << record.end.GetSeconds() << " s";
        m_firstFailure = what.str();
    }
}

std::string
Collective::Check() const
{
    std::ostringstream why;
    const uint64_t planned = m_expectedBytes;
    if (m_issuedCount != m_expectedIssued)
    {
        why << "issued " << m_issuedCount << " of " << m_expectedIssued << " transfers; ";
    }
    if (m_readyCount != m_expectedReady)
    {
        why << "ready " << m_readyCount << " of " << m_expectedReady << " transfers; ";
    }
    if (m_deliveredBytes != planned)
    {
        why << "delivered " << m_deliveredBytes << " of " << planned << " bytes; ";
    }
    if (m_sizeMismatches)
    {
        why << m_sizeMismatches << " transfers arrived with another size than planned; ";
    }
    if (m_duplicates)
    {
        why << m_duplicates << " transfers arrived twice; ";
    }
    if (m_failedMessages)
    {
        why << m_failedMessages << " messages failed at their NIC (first: " << m_firstFailure
            << "); ";
    }
    return why.str();
}

} // namespace ns3
