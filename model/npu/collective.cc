/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Over 1,000 lines for a reason: one Collective runs both kinds of plan, a materialised
 * schedule (Setup) and generated rank programs in windows (SetupProgram, FillWindow), behind
 * one interface to the executor and one set of records and traces; the two share the
 * record, trace and check code that splitting would duplicate or expose.
 */
#include "collective.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tn-program-window.h"
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
        r.streams.clear();
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

void
Collective::SetupProgram(uint32_t id,
                         SharedProgram program,
                         std::vector<uint32_t> nodes,
                         SharedPairLanes pairLanes,
                         uint8_t priority,
                         uint32_t window)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_schedule || m_program, "Collective: set up twice");
    // internal invariant: CollectiveService passes the program's own group
    NS_ABORT_MSG_IF(!program || nodes.size() != tn_program_ranks(program.get()),
                    "Collective::SetupProgram: " << nodes.size() << " nodes for the program's "
                                                 << (program ? tn_program_ranks(program.get()) : 0)
                                                 << " ranks");
    m_id = id;
    m_program = std::move(program);
    m_nodes = std::move(nodes);
    m_pairLanes = std::move(pairLanes);
    m_priority = priority;
    m_window = window;
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
    tn_rank_program whole{}; // windows: one rank's whole program at a time
    std::vector<uint32_t> minDep;
    for (uint32_t r = 0; r < ranks; r++)
    {
        RankRun& run = m_ranks[r];
        run.transferBase = m_transferCount;
        if (!IsSimulated(r))
        {
            continue; // a translate of the rank that runs: no program, no state
        }
        tn_rank_program* rp = &whole;
        if (window == 0)
        {
            run.streams.resize(1);
            OpenWindow(run, run.streams[0]);
            rp = &run.streams[0].w->rp;
        }
        // internal invariant: the program was generated and verified for these ranks when planned
        NS_ABORT_MSG_IF(tn_program_rank(m_program.get(), r, rp, &err) != TN_OK,
                        "Collective::SetupProgram: rank " << r << ": " << err.message);
        run.count = rp->count;
        run.sends = rp->sends;
        for (uint32_t i = 0; i < rp->count; i++)
        {
            const tn_program_op& o = rp->ops[i];
            (o.send ? m_plannedBytes : run.receivedBytes) += o.length;
            if (!o.send && o.dep_count > 0)
            {
                // the receive has deps of its own: its sender waits for a clear-to-send
                m_clearSends[Key(false, o.peer, r, o.match)] = true;
            }
        }
        if (window == 0)
        {
            // the whole program is held for the whole run: no spare capacity
            tn_rank_program_compact(rp);
            run.streams[0].end = rp->count;
        }
        else
        {
            // i starts a stream when no op from i on waits for an op before i; streams
            // shorter than a window join the next one (they would only cost windows),
            // unless it starts with a send that waits for nothing: that one may go at once,
            // so it must not wait behind the ops of another stream's window
            minDep.assign(static_cast<size_t>(rp->count) + 1, UINT32_MAX);
            for (uint32_t i = rp->count; i-- > 0;)
            {
                uint32_t n = 0;
                const uint32_t* d = tn_rank_program_deps(rp, i, &n);
                minDep[i] = std::min(minDep[i + 1], n > 0 ? d[0] : UINT32_MAX);
            }
            uint64_t sends = 0;
            for (uint32_t i = 0; i < rp->count; i++)
            {
                const bool free = rp->ops[i].send && rp->ops[i].dep_count == 0;
                if (i == 0 || (minDep[i] >= i && (free || i - run.streams.back().begin >= window)))
                {
                    if (!run.streams.empty())
                    {
                        run.streams.back().end = i;
                    }
                    run.streams.emplace_back();
                    run.streams.back().begin = i;
                    run.streams.back().sendsBefore = sends;
                }
                sends += rp->ops[i].send;
                // a send that waits for nothing may go at the start: its stream opens then
                run.streams.back().startsOpen |= rp->ops[i].send && rp->ops[i].dep_count == 0;
            }
            if (!run.streams.empty())
            {
                run.streams.back().end = rp->count;
            }
        }
        m_rankPending[r] = run.count;
        m_ranksBusy += run.count > 0;
        m_transferCount += run.sends;
    }
    tn_rank_program_free(&whole);
    // internal invariant: tn_program_transfers was checked against the 32-bit id space when planned
    // (tn_plan's transfer limit)
    NS_ABORT_MSG_IF(m_transferCount > UINT32_MAX,
                    "Collective::SetupProgram: " << m_transferCount
                                                 << " transfers: more than 2^32 in one collective");
    m_expectedReady = m_transferCount;
    m_expectedIssued = m_transferCount;
    m_expectedBytes = m_plannedBytes;
    if (m_symmetry)
    {
        m_expectedReady = 0;
        m_expectedBytes = 0;
        for (uint32_t r = 0; r < ranks; r++)
        {
            if (IsSimulated(r))
            {
                m_expectedReady += m_ranks[r].count - m_ranks[r].sends;
                m_expectedBytes += m_ranks[r].receivedBytes;
            }
        }
    }
    for (uint32_t r = 0; r < ranks; r++)
    {
        for (StreamRun& s : m_ranks[r].streams)
        {
            s.undone = s.begin;
        }
        for (StreamRun& s : m_ranks[r].streams)
        {
            if ((window == 0 || s.startsOpen || &s == &m_ranks[r].streams[0]) && !s.open)
            {
                FillWindow(r, s, s.begin, nullptr, nullptr);
            }
        }
    }
}

bool
Collective::IsPlannedLength(uint64_t bytes, uint64_t planned) const
{
    // on a symmetric network the message is NPU 0's own send moved by a translation, whose
    // length stands for the translate's within CollectiveService::SymmetricLengthSlack
    return bytes == planned ||
           (m_symmetry && (bytes > planned ? bytes - planned : planned - bytes) <= m_lengthSlack);
}

void
Collective::SetSymmetry(const tn_symmetry* symmetry,
                        std::vector<uint32_t> npuOfRank,
                        uint64_t lengthSlack)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_schedule || m_program, "Collective::SetSymmetry: after SetupProgram");
    m_symmetry = symmetry;
    m_lengthSlack = lengthSlack;
    m_npuOfRank = std::move(npuOfRank);
    m_rankOfNpu.assign(tn_symmetry_npu_count(symmetry), UINT32_MAX);
    for (uint32_t r = 0; r < m_npuOfRank.size(); r++)
    {
        // internal invariant: CollectiveService passes the topology's NPU ranks
        NS_ABORT_MSG_IF(m_npuOfRank[r] >= m_rankOfNpu.size(),
                        "Collective::SetSymmetry: rank " << r << " on NPU " << m_npuOfRank[r]
                                                         << " of " << m_rankOfNpu.size());
        m_rankOfNpu[m_npuOfRank[r]] = r;
    }
    // the ranks on representative NPUs run (tn_symmetry_check_program: each other rank is
    // the translate of one of them)
    const uint32_t period = tn_symmetry_period(symmetry);
    m_simulated.assign(m_npuOfRank.size(), false);
    m_simulatedCount = 0;
    for (uint32_t r = 0; r < m_npuOfRank.size(); r++)
    {
        m_simulated[r] = m_npuOfRank[r] < period;
        m_simulatedCount += m_simulated[r];
    }
}

void
Collective::WindowFailed(uint32_t rank, uint32_t first, const tn_error& err)
{
    std::ostringstream what;
    what << "rank " << rank << " ops from " << first << ": " << err.message;
    m_windowFailure = what.str();
    NS_LOG_WARN("window not filled: " << m_windowFailure << "; stopping the simulation");
    Simulator::Stop();
}

void
Collective::FillWindow(uint32_t rank,
                       StreamRun& s,
                       uint32_t first,
                       std::vector<uint32_t>* ready,
                       std::vector<uint32_t>* arrived)
{
    if (!m_windowFailure.empty())
    {
        return; // the run is stopping: no window is filled any more
    }
    tn_error err;
    if (!s.w)
    {
        OpenWindow(m_ranks[rank], s);
        s.w->rp.first = s.begin;
        // the stream before it holds the generator's cursor, at or before this one's begin:
        // its window resumes from there, not from the rank's first op
        const size_t k = static_cast<size_t>(&s - m_ranks[rank].streams.data());
        const StreamRun* prev = k > 0 ? &m_ranks[rank].streams[k - 1] : nullptr;
        if (m_window > 0 && prev && prev->w &&
            tn_rank_program_copy_cursor(&s.w->rp, &prev->w->rp, &err) != TN_OK)
        {
            WindowFailed(rank, first, err);
            return;
        }
    }
    StreamWindow& w = *s.w;
    // the states held are read from the window's block, which Pack overwrites only at the end
    const uint32_t oldFirst = w.first;
    const uint32_t oldCount = w.ops ? w.count : 0;
    if (m_window > 0)
    {
        for (uint32_t i = oldFirst; i < first && i - oldFirst < oldCount; i++)
        {
            s.sendsBefore += w.prog[i - oldFirst].send;
        }
        // only the ops past the window's end are generated, from the generator's cursor; the
        // program was verified when planned, so only memory can run out here
        if (tn_program_rank_advance(m_program.get(),
                                    rank,
                                    first,
                                    std::min(m_window, s.end - first),
                                    &w.rp,
                                    &err) != TN_OK)
        {
            WindowFailed(rank, first, err);
            return;
        }
    }
    const tn_rank_program& rp = w.rp;
    NS_ASSERT(rp.first == first);
    s.open = true;
    // FillWindow does not nest (TakeFresh only lists what may go), so one scratch serves all
    std::vector<OpState>& ops = m_scratch.arrays.ops;
    ops.resize(rp.count);
    uint32_t sendNo = 0;
    std::vector<uint32_t>& fresh = m_scratch.fresh; // slots new to the window
    fresh.clear();
    // a rank's ops come in runs of one peer: its lane is looked up once per run
    uint64_t lanePair = UINT64_MAX;
    uint8_t lane = 0;
    for (uint32_t i = 0; i < rp.count; i++)
    {
        const tn_program_op& o = rp.ops[i];
        const uint64_t at = static_cast<uint64_t>(first) + i;
        OpState& st = ops[i];
        if (at >= oldFirst && at - oldFirst < oldCount)
        {
            st = w.ops[at - oldFirst];
        }
        else
        {
            st = OpState();
            fresh.push_back(i);
            const uint32_t src = o.send ? rank : o.peer;
            const uint32_t dst = o.send ? o.peer : rank;
            const uint64_t pair = (static_cast<uint64_t>(src) << 32) | dst;
            if (pair != lanePair)
            {
                lanePair = pair;
                lane = static_cast<uint8_t>(GetPairLane(src, dst));
            }
            st.lane = lane;
            if (o.send)
            {
                st.transfer =
                    static_cast<uint32_t>(m_ranks[rank].transferBase + s.sendsBefore + sendNo);
                if (!m_clearSends.empty() && m_clearSends.count(Key(false, rank, o.peer, o.match)))
                {
                    st.flags |= NEEDS_CLEAR;
                }
            }
        }
        sendNo += o.send;
        st.join = UINT32_MAX;
    }
    BuildJoins(rp, first);
    BuildGroups(rank, rp, first);
    w.Pack(m_scratch.arrays);
    TakeFresh(rank, s, first, fresh, ready, arrived);
}

void
Collective::BuildJoins(const tn_rank_program& rp, uint32_t first)
{
    std::vector<OpState>& ops = m_scratch.arrays.ops;
    // one join per distinct dep list (ops with equal lists share dep_start, see
    // tn-program.h): a dep counts down its joins, a join at zero meets one dep of each of
    // its ops, so a frontier shared by many sends is counted once. Deps before the window
    // are done (the window starts at the stream's first op not done).
    // A list is only ever shared with the list stored just before it (tn-program.h), so
    // the ops of one join follow each other among the ops with deps: no map needed.
    std::vector<uint32_t>& listOf = m_scratch.listOf; // join -> a slot holding its list
    std::vector<uint32_t>& joinPending = m_scratch.joinPending;
    listOf.clear();
    joinPending.clear();
    uint32_t lastStart = UINT32_MAX;
    for (uint32_t i = 0; i < rp.count; i++)
    {
        const tn_program_op& o = rp.ops[i];
        if (o.dep_count == 0)
        {
            continue;
        }
        if (listOf.empty() || o.dep_start != lastStart)
        {
            lastStart = o.dep_start;
            listOf.push_back(i);
            uint32_t n = 0;
            const uint32_t* d = tn_rank_program_deps(&rp, i, &n);
            uint32_t pending = 0;
            for (uint32_t k = 0; k < n; k++)
            {
                pending += d[k] >= first && !(ops[d[k] - first].flags & DONE);
            }
            joinPending.push_back(pending);
        }
        ops[i].join = static_cast<uint32_t>(listOf.size() - 1);
    }
    const uint32_t joins = static_cast<uint32_t>(listOf.size());
    // CSR: join -> its slots; slot -> the joins whose list holds it
    std::vector<uint32_t>& joinOpStart = m_scratch.joinOpStart;
    std::vector<uint32_t>& succStart = m_scratch.succStart;
    joinOpStart.assign(joins + 1, 0);
    succStart.assign(rp.count + 1, 0);
    for (uint32_t i = 0; i < rp.count; i++)
    {
        if (ops[i].join != UINT32_MAX)
        {
            ++joinOpStart[ops[i].join + 1];
        }
    }
    for (uint32_t j = 0; j < joins; j++)
    {
        uint32_t n = 0;
        const uint32_t* d = tn_rank_program_deps(&rp, listOf[j], &n);
        for (uint32_t k = 0; k < n; k++)
        {
            if (d[k] >= first)
            {
                ++succStart[d[k] - first + 1];
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
    std::vector<uint32_t>& joinOps = m_scratch.arrays.joinOps;
    std::vector<uint32_t>& succJoins = m_scratch.arrays.succJoins;
    joinOps.resize(joinOpStart[joins]);
    succJoins.resize(succStart[rp.count]);
    std::vector<uint32_t>& fill = m_scratch.fill;
    fill.assign(joinOpStart.begin(), joinOpStart.end() - 1);
    for (uint32_t i = 0; i < rp.count; i++)
    {
        if (ops[i].join != UINT32_MAX)
        {
            joinOps[fill[ops[i].join]++] = i;
        }
    }
    fill.assign(succStart.begin(), succStart.end() - 1);
    for (uint32_t j = 0; j < joins; j++)
    {
        uint32_t n = 0;
        const uint32_t* d = tn_rank_program_deps(&rp, listOf[j], &n);
        for (uint32_t k = 0; k < n; k++)
        {
            if (d[k] >= first)
            {
                succJoins[fill[d[k] - first]++] = j;
            }
        }
    }
    for (uint32_t i = 0; i < rp.count; i++)
    {
        ops[i].succBegin = succStart[i];
        ops[i].succEnd = succStart[i + 1];
    }
    m_scratch.arrays.joins.resize(joins + 1);
    for (uint32_t j = 0; j <= joins; j++)
    {
        m_scratch.arrays.joins[j].pending = j < joins ? joinPending[j] : 0;
        m_scratch.arrays.joins[j].opBegin = joinOpStart[j];
    }
}

void
Collective::BuildGroups(uint32_t rank, const tn_rank_program& rp, uint32_t first)
{
    // ops by (direction, peer, match): the matches of a group are consecutive in program
    // order (tn-program.h), so a group is an array indexed by match - its first match
    std::vector<Group>& groups = m_scratch.arrays.groups;
    groups.clear();
    for (uint32_t i = 0; i < rp.count; i++)
    {
        groups.push_back(
            {CollectiveWindow::GroupKey(rp.ops[i].send, rp.ops[i].peer), 0, UINT32_MAX});
    }
    std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
        return a.key < b.key;
    });
    // distinct keys, each with its ops counted in start, then start made a prefix sum
    size_t u = 0;
    for (size_t k = 0; k < groups.size(); k++)
    {
        if (u == 0 || groups[k].key != groups[u - 1].key)
        {
            groups[u++] = groups[k];
        }
        ++groups[u - 1].start;
    }
    groups.resize(u);
    uint32_t start = 0;
    for (Group& g : groups)
    {
        const uint32_t n = g.start;
        g.start = start;
        start += n;
    }
    groups.push_back({UINT64_MAX, rp.count, UINT32_MAX}); // the end sentinel
    std::vector<uint32_t>& groupOps = m_scratch.arrays.groupOps;
    groupOps.assign(rp.count, UINT32_MAX);
    for (uint32_t i = 0; i < rp.count; i++)
    {
        const tn_program_op& o = rp.ops[i];
        const uint64_t key = CollectiveWindow::GroupKey(o.send, o.peer);
        Group& g = *std::lower_bound(groups.begin(),
                                     groups.end() - 1,
                                     key,
                                     [](const Group& a, uint64_t v) { return a.key < v; });
        if (g.match == UINT32_MAX)
        {
            g.match = o.match;
        }
        const uint64_t k = static_cast<uint64_t>(o.match) - g.match;
        // internal invariant: matches of a generated program are dense per group (tn_program
        // contract)
        NS_ABORT_MSG_IF(o.match < g.match || k >= (&g + 1)->start - g.start ||
                            groupOps[g.start + k] != UINT32_MAX,
                        "Collective::SetupProgram: rank " << rank << " op " << first + i
                                                          << ": match " << o.match
                                                          << " out of order");
        groupOps[g.start + k] = i;
    }
}

void
Collective::TakeFresh(uint32_t rank,
                      StreamRun& s,
                      uint32_t first,
                      const std::vector<uint32_t>& fresh,
                      std::vector<uint32_t>* ready,
                      std::vector<uint32_t>* arrived)
{
    const tn_rank_program& rp = s.w->rp;
    const bool refill = ready != nullptr;
    const int64_t now = Simulator::Now().GetTimeStep();
    // ops new to the window: messages kept for them, and the ones that may go
    for (uint32_t i : fresh)
    {
        const tn_program_op& o = rp.ops[i];
        OpState& st = s.w->ops[i];
        auto kept = m_deferred.find(Key(o.send, o.peer, rank, o.match));
        if (kept != m_deferred.end())
        {
            if (o.send)
            {
                st.flags |= CLEARED;
            }
            else
            {
                st.flags |= ARRIVED;
                st.times[0] = kept->second.firstNs;
                st.times[1] = kept->second.lastNs;
                st.transfer = kept->second.transfer;
                st.sentNs = kept->second.sentNs;
                const bool planned = IsPlannedLength(kept->second.bytes, o.length);
                m_deliveredBytes += planned ? o.length : kept->second.bytes;
                m_sizeMismatches += !planned;
                if (arrived)
                {
                    arrived->push_back(first + i);
                }
                // it arrived before it could be taken: its readiness comes late
                m_windowHeld += kept->second.lastNs < now;
            }
            m_deferred.erase(kept);
        }
        if (!refill)
        {
            continue; // before the start: GetStartOps releases
        }
        if (TryRelease(s, i))
        {
            ready->push_back(first + i);
            // it could go now: if its deps were all done before now, the window held it
            int64_t latest = -1;
            uint32_t n = 0;
            const uint32_t* d = tn_rank_program_deps(&rp, i, &n);
            for (uint32_t k = 0; k < n; k++)
            {
                latest = std::max(latest, d[k] >= first ? s.w->ops[d[k] - first].doneNs : -1);
            }
            m_windowHeld += latest < now;
        }
    }
}

bool
Collective::TryRelease(StreamRun& s, uint32_t slot)
{
    OpState& st = s.w->ops[slot];
    if ((st.flags & RELEASED) || (st.join != UINT32_MAX && s.w->joins[st.join].pending > 0) ||
        ((st.flags & NEEDS_CLEAR) && !(st.flags & CLEARED)))
    {
        return false;
    }
    st.flags |= RELEASED;
    // a receive without deps of its own needs no clear-to-send
    const tn_program_op& o = s.w->prog[slot];
    return o.send || o.dep_count > 0;
}

void
Collective::GetStartOps(uint32_t rank, std::vector<uint32_t>* sends)
{
    for (StreamRun& s : m_ranks[rank].streams)
    {
        for (uint32_t i = 0; s.w && i < s.w->count; i++)
        {
            if (s.w->prog[i].dep_count == 0 && TryRelease(s, i) && s.w->prog[i].send)
            {
                sends->push_back(s.w->first + i);
            }
        }
    }
}

const Collective::StreamRun&
Collective::FindStream(uint32_t rank, uint32_t op) const
{
    const RankRun& run = m_ranks[rank];
    const std::vector<StreamRun>& streams = run.streams;
    const StreamRun* hit = run.lastStream < streams.size() ? &streams[run.lastStream] : nullptr;
    if (!hit || op < hit->begin || op >= hit->end)
    {
        // an op named here is in a window, so in one of the few streams holding one: no
        // search of all the rank's streams (about 127 at 16,384 NPUs and W=32)
        hit = nullptr;
        for (uint32_t k : run.live)
        {
            if (op >= streams[k].begin && op < streams[k].end)
            {
                hit = &streams[k];
                break;
            }
        }
        if (!hit)
        {
            auto it = std::upper_bound(streams.begin(),
                                       streams.end(),
                                       op,
                                       [](uint32_t v, const StreamRun& s) { return v < s.begin; });
            NS_ASSERT(it != streams.begin());
            hit = &*(it - 1);
        }
        run.lastStream = static_cast<uint32_t>(hit - streams.data());
        run.windowHint[2] = hit->w.get();
    }
    const StreamRun& s = *hit;
    NS_ASSERT_MSG(s.w && op >= s.w->first && op - s.w->first < s.w->count,
                  "collective " << m_id << " rank " << rank << " op " << op
                                << " is not in its window");
    return s;
}

const tn_program_op&
Collective::GetOp(uint32_t rank, uint32_t op) const
{
    const StreamRun& s = StreamOf(rank, op);
    return s.w->prog[op - s.w->first];
}

uint64_t
Collective::GetOpCookie(uint32_t rank, uint32_t op) const
{
    const StreamRun& s = StreamOf(rank, op);
    const uint64_t stream = static_cast<uint64_t>(&s - m_ranks[rank].streams.data());
    return stream << 32 | op;
}

uint32_t
Collective::TakeOpCookie(uint32_t rank, uint64_t cookie) const
{
    // a rank's sends complete between its receives, each of which moves lastStream to the
    // receive's stream: without the cookie's stream most completions searched (FindStream)
    const RankRun& run = m_ranks[rank];
    const uint32_t stream = static_cast<uint32_t>(cookie >> 32);
    if (stream < run.streams.size())
    {
        run.lastStream = stream;
        run.windowHint[2] = run.streams[stream].w.get();
    }
    return static_cast<uint32_t>(cookie);
}

uint32_t
Collective::GetRankOfNode(uint32_t node) const
{
    return node < m_rankOfNode.size() ? m_rankOfNode[node] : UINT32_MAX;
}

void
Collective::OpenWindow(RankRun& run, StreamRun& s)
{
    s.w = std::make_unique<StreamWindow>();
    const uint32_t k = static_cast<uint32_t>(&s - run.streams.data());
    run.live.insert(std::lower_bound(run.live.begin(), run.live.end(), k), k);
}

void
Collective::CloseWindow(RankRun& run, StreamRun& s)
{
    s.w.reset();
    const uint32_t k = static_cast<uint32_t>(&s - run.streams.data());
    run.live.erase(std::lower_bound(run.live.begin(), run.live.end(), k));
}

uint32_t
Collective::FindOp(uint32_t rank, bool send, uint32_t peer, uint32_t match) const
{
    if (rank >= m_ranks.size())
    {
        return UINT32_MAX;
    }
    // an op is in at most one window, so the order of the search does not change the answer;
    // messages come stream after stream, so it starts at the last stream found for the
    // direction (sends and receives are looked up in turn). Only the streams holding a window
    // are looked at: a rank of the 16,384-NPU ring2d has about 127 streams at W=32, a few of
    // them open at a time.
    const RankRun& run = m_ranks[rank];
    uint32_t& last = run.lastFound[send ? 1 : 0];
    if (last < run.streams.size() && run.streams[last].w)
    {
        const uint32_t op = run.streams[last].w->Find(send, peer, match);
        if (op != UINT32_MAX)
        {
            run.lastStream = last; // the op's events look its stream up next (StreamOf)
            run.windowHint[2] = run.streams[last].w.get();
            return op;
        }
    }
    for (uint32_t k : run.live)
    {
        if (k == last)
        {
            continue;
        }
        const uint32_t op = run.streams[k].w->Find(send, peer, match);
        if (op != UINT32_MAX)
        {
            last = k;
            run.lastStream = k;
            run.windowHint[send ? 1 : 0] = run.streams[k].w.get();
            run.windowHint[2] = run.windowHint[send ? 1 : 0];
            return op;
        }
    }
    return UINT32_MAX;
}

void
Collective::PrefetchRank(uint32_t rank, uint32_t lookup, uint64_t key, uint32_t stage) const
{
    if (rank >= m_ranks.size() || lookup > 2)
    {
        return;
    }
    const RankRun& run = m_ranks[rank];
    if (stage == 0)
    {
        __builtin_prefetch(&run);
        __builtin_prefetch(reinterpret_cast<const char*>(&run) + 64);
        return;
    }
    const uint32_t k = lookup < 2 ? run.lastFound[lookup] : static_cast<uint32_t>(key >> 32);
    if (stage == 1)
    {
        if (k < run.streams.size())
        {
            __builtin_prefetch(&run.streams[k]);
        }
        // a completion's stream is its cookie's: the hint of lastStream is its window only
        // when the two are one
        const bool hinted = lookup < 2 || k == run.lastStream;
        if (const char* w = hinted ? static_cast<const char*>(run.windowHint[lookup]) : nullptr)
        {
            __builtin_prefetch(w);
            __builtin_prefetch(w + 64);
        }
        return;
    }
    // stage 2: the stream and its window are cached (read through the stream, not the hint)
    const StreamWindow* w = k < run.streams.size() ? run.streams[k].w.get() : nullptr;
    if (!w)
    {
        return;
    }
    uint32_t op = static_cast<uint32_t>(key);
    if (lookup < 2)
    {
        const uint32_t peer = GetRankOfNode(static_cast<uint32_t>(key >> 32));
        op = peer == UINT32_MAX ? UINT32_MAX : w->Find(lookup == 1, peer, op);
    }
    if (op - w->first < w->count)
    {
        __builtin_prefetch(&w->ops[op - w->first]);
        __builtin_prefetch(&w->prog[op - w->first]);
    }
}

uint64_t
Collective::GetHeldOps() const
{
    uint64_t held = 0;
    for (const RankRun& run : m_ranks)
    {
        for (const StreamRun& s : run.streams)
        {
            held += s.w ? s.w->count : 0;
        }
    }
    return held;
}

bool
Collective::FinishRankEvent(uint32_t rank)
{
    NS_ASSERT(m_rankPending[rank] > 0);
    if (--m_rankPending[rank] > 0)
    {
        return false;
    }
    if (m_program && --m_ranksBusy == 0)
    {
        FreePrograms();
    }
    return true;
}

void
Collective::FreePrograms()
{
    // no event names an op any more: a collective kept after its end (CollectiveService's
    // KeepCollectives) holds its counts, not its programs (a training job keeps one per layer)
    for (RankRun& run : m_ranks)
    {
        std::vector<StreamRun>().swap(run.streams);
        std::vector<uint32_t>().swap(run.live);
    }
    m_clearSends.clear();
    if (!m_programsFreed.IsNull())
    {
        m_programsFreed(m_id);
        m_programsFreed = MakeNullCallback<void, uint32_t>();
    }
}

void
Collective::DeferMessage(uint32_t rank,
                         bool clear,
                         uint32_t peer,
                         uint32_t match,
                         Time firstByte,
                         uint64_t bytes)
{
    Deferred d{firstByte.GetTimeStep(), Simulator::Now().GetTimeStep(), bytes, UINT32_MAX, -1};
    if (!clear)
    {
        TakeSend(rank, peer, match, &d.transfer, &d.sentNs);
    }
    if (!m_deferred.emplace(Key(clear, peer, rank, match), d).second)
    {
        ++m_duplicates;
    }
}

uint32_t
Collective::GetPairLane(uint32_t src, uint32_t dst) const
{
    if (!m_pairLanes || m_pairLanes->empty())
    {
        return 0;
    }
    auto it = m_pairLanes->find((static_cast<uint64_t>(src) << 32) | dst);
    return it == m_pairLanes->end() ? 0 : it->second;
}

void
Collective::CompleteOp(uint32_t rank,
                       uint32_t op,
                       std::vector<uint32_t>* ready,
                       std::vector<uint32_t>* arrived)
{
    StreamRun& s = StreamOf(rank, op);
    const uint32_t first = s.w->first;
    OpState& state = s.w->ops[op - first];
    NS_ASSERT_MSG(!(state.flags & DONE),
                  "collective " << m_id << " rank " << rank << " op " << op << " done twice");
    state.flags |= DONE;
    state.doneNs = Simulator::Now().GetTimeStep();
    for (uint32_t k = state.succBegin; k < state.succEnd; k++)
    {
        const uint32_t j = s.w->succJoins[k];
        NS_ASSERT_MSG(s.w->joins[j].pending > 0,
                      "collective " << m_id << " rank " << rank << " join " << j
                                    << ": dependency met twice");
        if (--s.w->joins[j].pending > 0)
        {
            continue;
        }
        for (uint32_t m = s.w->joins[j].opBegin; m < s.w->joins[j + 1].opBegin; m++)
        {
            if (TryRelease(s, s.w->joinOps[m]))
            {
                ready->push_back(first + s.w->joinOps[m]);
            }
        }
    }
    while (s.undone - first < s.w->count && (s.w->ops[s.undone - first].flags & DONE))
    {
        ++s.undone;
    }
    if (s.undone == s.end && m_window > 0)
    {
        // the stream is over: its window goes (no message can name its ops any more)
        CloseWindow(m_ranks[rank], s);
    }
    else if (m_window > 0 && s.w->first + s.w->count < s.end &&
             s.undone - first >= std::max<uint32_t>(1, s.w->count / 2))
    {
        FillWindow(rank, s, s.undone, ready, arrived);
    }
    // half a window from the stream's end, the next stream opens: it needs none of this
    // stream's ops here, but its messages come once they are done at the other ranks
    std::vector<StreamRun>& streams = m_ranks[rank].streams;
    const size_t next = static_cast<size_t>(&s - streams.data()) + 1;
    if (m_window > 0 && next < streams.size() && !streams[next].open &&
        s.end - s.undone <= m_window / 2)
    {
        FillWindow(rank, streams[next], streams[next].begin, ready, arrived);
    }
}

bool
Collective::ClearOp(uint32_t rank, uint32_t op)
{
    StreamRun& s = StreamOf(rank, op);
    s.w->ops[op - s.w->first].flags |= CLEARED;
    return TryRelease(s, op - s.w->first);
}

void
Collective::NotifyOpIssued(uint32_t rank, uint32_t op)
{
    StreamRun& s = StreamOf(rank, op);
    OpState& o = s.w->ops[op - s.w->first];
    NS_ASSERT_MSG(!(o.flags & ISSUED),
                  "collective " << m_id << " rank " << rank << " op " << op << " posted twice");
    o.flags |= ISSUED;
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
    StreamRun& s = StreamOf(rank, op);
    OpState& o = s.w->ops[op - s.w->first];
    if (o.flags & ARRIVED)
    {
        ++m_duplicates;
        return false;
    }
    o.flags |= ARRIVED;
    o.times[0] = firstByte.GetTimeStep();
    o.times[1] = Simulator::Now().GetTimeStep();
    const tn_program_op& p = s.w->prog[op - s.w->first];
    if (!m_readyTrace.IsEmpty())
    {
        // the ready record names the send; otherwise the send is looked up only when asked
        // for (GetOpTransfer): it is in its sender's window, a few cache misses away, which a
        // flow-level run without transfer traces paid for every receive (8 % of a 4,096-NPU
        // ring2d run)
        TakeSend(rank, p.peer, p.match, &o.transfer, &o.sentNs);
    }
    const bool planned = IsPlannedLength(bytes, p.length);
    m_deliveredBytes += planned ? p.length : bytes;
    if (!planned)
    {
        ++m_sizeMismatches;
    }
    return true;
}

void
Collective::TakeSend(uint32_t rank,
                     uint32_t peer,
                     uint32_t match,
                     uint32_t* transfer,
                     int64_t* sentNs) const
{
    uint32_t sender = peer;
    uint32_t receiver = rank;
    if (!IsSimulated(peer))
    {
        // the send of peer to rank, moved by the translation that takes peer to its
        // representative, is the representative's send to the image of rank: it carries the
        // same transfer number and time
        const uint32_t npu = m_npuOfRank[peer];
        const uint32_t rep = npu % tn_symmetry_period(m_symmetry);
        const uint32_t g = tn_symmetry_translation(m_symmetry, npu, rep);
        sender = m_rankOfNpu[rep];
        receiver = m_rankOfNpu[tn_symmetry_shift_rank(m_symmetry, g, m_npuOfRank[rank])];
    }
    const uint32_t send = FindOp(sender, true, receiver, match);
    if (send == UINT32_MAX)
    {
        *transfer = UINT32_MAX;
        *sentNs = -1;
        return;
    }
    const StreamRun& s = StreamOf(sender, send);
    const OpState& o = s.w->ops[send - s.w->first];
    *transfer = o.transfer;
    *sentNs = o.times[0];
}

uint32_t
Collective::GetOpLane(uint32_t rank, uint32_t op) const
{
    const StreamRun& s = StreamOf(rank, op);
    return s.w->ops[op - s.w->first].lane;
}

uint32_t
Collective::GetOpTransfer(uint32_t rank, uint32_t op) const
{
    const StreamRun& s = StreamOf(rank, op);
    OpState& o = s.w->ops[op - s.w->first];
    if (o.transfer == UINT32_MAX && (o.flags & ARRIVED))
    {
        const tn_program_op& p = s.w->prog[op - s.w->first];
        TakeSend(rank, p.peer, p.match, &o.transfer, &o.sentNs);
    }
    return o.transfer;
}

void
Collective::NotifyOpReady(uint32_t rank, uint32_t op)
{
    StreamRun& s = StreamOf(rank, op);
    OpState& o = s.w->ops[op - s.w->first];
    NS_ASSERT((o.flags & ARRIVED) && !(o.flags & READY));
    o.flags |= READY;
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
    const StreamRun& s = StreamOf(src, op);
    const tn_program_op& o = s.w->prog[op - s.w->first];
    CollectiveTransferRecord r;
    r.collective = m_id;
    r.transfer = s.w->ops[op - s.w->first].transfer;
    r.src = src;
    r.dst = o.peer;
    r.srcNode = m_nodes[src];
    r.dstNode = m_nodes[o.peer];
    r.bytes = o.length;
    r.chunk = o.chunk;
    r.step = o.step;
    r.dim = o.dim;
    r.reduce = o.op == TN_OP_REDUCE;
    r.lane = s.w->ops[op - s.w->first].lane;
    r.issue = TimeStep(s.w->ops[op - s.w->first].times[0]);
    r.firstByte = Time(-1);
    r.lastByte = Time(-1);
    r.ready = Time(-1);
    return r;
}

CollectiveTransferRecord
Collective::GetOpRecord(uint32_t dst, uint32_t op) const
{
    const StreamRun& d = StreamOf(dst, op);
    const tn_program_op& o = d.w->prog[op - d.w->first];
    const OpState& recv = d.w->ops[op - d.w->first];
    const uint32_t src = o.peer;
    CollectiveTransferRecord r;
    r.collective = m_id;
    r.src = src;
    r.dst = dst;
    r.srcNode = m_nodes[src];
    r.dstNode = m_nodes[dst];
    r.bytes = o.length;
    r.chunk = o.chunk;
    r.step = o.step;
    r.dim = o.dim;
    r.reduce = o.op == TN_OP_REDUCE;
    r.lane = recv.lane;
    r.transfer = recv.transfer;
    r.issue = recv.sentNs < 0 ? Time(-1) : TimeStep(recv.sentNs);
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
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_schedule, "Collective::Setup called twice");
    const tn_schedule* schedule = shared.get();
    // internal invariant: CollectiveService passes finalized, verified schedules
    NS_ABORT_MSG_IF(!schedule || !tn_schedule_is_finalized(schedule),
                    "Collective::Setup: the schedule must be finalized");
    // internal invariant: CollectiveService passes the schedule's own group
    NS_ABORT_MSG_IF(nodes.size() != tn_schedule_ranks(schedule),
                    "Collective::Setup: " << nodes.size() << " nodes for "
                                          << tn_schedule_ranks(schedule) << " ranks");
    const uint32_t count = tn_schedule_count(schedule);
    // internal invariant: AssignLanes gives one lane per transfer
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
        const tn_transfer* x = tn_schedule_transfer(schedule, t);
        ++m_rankPending[x->src];
        m_rankPending[x->dst] += !tn_op_is_local(x->op); // a local op is one event, its end
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
    // internal invariant: CollectiveService passes one flag per rank
    NS_ABORT_MSG_IF(local.size() != m_nodes.size(),
                    "Collective::SetLocalRanks: " << local.size() << " flags for " << m_nodes.size()
                                                  << " ranks");
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_started, "Collective::SetLocalRanks: already started");
    // a windowed receiver takes its transfer's number from the sender's in-flight entry,
    // which only the sender's process has
    // internal invariant: CollectiveService holds programs whole across MPI ranks and refuses
    // a ProgramWindow there (doc/distributed.rst)
    NS_ABORT_MSG_IF(m_window > 0 && std::find(local.begin(), local.end(), false) != local.end(),
                    "Collective " << m_id
                                  << ": CollectiveService::ProgramWindow > 0 is not supported "
                                     "across MPI ranks yet (set it to 0)");
    m_expectedReady = 0;
    m_expectedIssued = 0;
    m_expectedBytes = 0;
    if (m_program)
    {
        for (uint32_t r = 0; r < m_ranks.size(); r++)
        {
            const RankRun& run = m_ranks[r];
            if (!local[r])
            {
                m_ranksBusy -= run.count > 0; // its ops are done by another process
                continue;
            }
            m_expectedIssued += run.sends;
            m_expectedReady += run.count - run.sends;
            m_expectedBytes += run.receivedBytes;
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
    r.reduce = tn_op_is_reduce(t->op);
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
    if (m_windowHeld)
    {
        // the narrowest window the program cannot stall in, by the model of
        // tn_program_min_window; a run held back at or above it went further than that model
        uint32_t least = 0;
        tn_error err;
        const bool known = tn_program_min_window(m_program.get(), &least, &err) == TN_OK;
        why << m_windowHeld << " ops came into their program window (" << m_window
            << " ops) after they could have started: widen the window "
               "(CollectiveService::ProgramWindow, ";
        if (!known)
        {
            why << "its least width unknown: " << err.message;
        }
        else if (m_window < least)
        {
            why << "at least " << least << " for this program";
        }
        else
        {
            why << "beyond its least, " << least
                << ", which holds two steps of this program at once; the service's own is "
                << static_cast<uint64_t>(TN_PROGRAM_WINDOW_MARGIN) * least;
        }
        why << "; 0: the service's choice, whole programs while they fit an eighth of the "
               "memory limit); ";
    }
    if (!m_deferred.empty())
    {
        why << m_deferred.size() << " messages named an op that never came into a window; ";
    }
    if (!m_windowFailure.empty())
    {
        why << "a program window could not be generated (" << m_windowFailure << "); ";
    }
    return why.str();
}

} // namespace ns3
