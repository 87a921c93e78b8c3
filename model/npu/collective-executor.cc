/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-executor.h"

#include "collective-service.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveExecutor");
NS_OBJECT_ENSURE_REGISTERED(CollectiveExecutor);

TypeId
CollectiveExecutor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveExecutor")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<CollectiveExecutor>()
            .AddAttribute("MaxHeldMessages",
                          "Messages of collectives not created yet (a sender on another MPI "
                          "rank reached them first) this node may hold; more is an error "
                          "naming this attribute.",
                          UintegerValue(1u << 20),
                          MakeUintegerAccessor(&CollectiveExecutor::m_maxHeld),
                          MakeUintegerChecker<uint64_t>(1))
            .AddTraceSource("Sent",
                            "This node posted a transfer (its source data is "
                            "read).",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_sentTrace),
                            "ns3::CollectiveExecutor::TransferTracedCallback")
            .AddTraceSource("Received",
                            "A transfer's last byte arrived at this node.",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_receivedTrace),
                            "ns3::CollectiveExecutor::TransferTracedCallback")
            .AddTraceSource("PartStart",
                            "This node starts its part of a collective.",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_partStartTrace),
                            "ns3::CollectiveExecutor::PartTracedCallback")
            .AddTraceSource("PartEnd",
                            "This node's part of a collective is over.",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_partEndTrace),
                            "ns3::CollectiveExecutor::PartTracedCallback");
    return tid;
}

CollectiveExecutor::CollectiveExecutor()
{
    NS_LOG_FUNCTION(this);
}

CollectiveExecutor::~CollectiveExecutor() = default;

void
CollectiveExecutor::DoDispose()
{
    m_lastEntry = nullptr;
    m_lastCollective = nullptr;
    if (m_nic && m_nic->GetMessageListener() == this)
    {
        m_nic->SetMessageListener(nullptr);
    }
    m_entries.clear();
    m_sources.clear();
    m_held.clear();
    m_nic = nullptr;
    m_service = nullptr;
    m_reductionTime = ReductionTimeCallback();
    Object::DoDispose();
}

void
CollectiveExecutor::SetService(Ptr<CollectiveService> service)
{
    m_service = service;
}

Ptr<CollectiveService>
CollectiveExecutor::GetService() const
{
    return m_service;
}

void
CollectiveExecutor::NotifyNewAggregate()
{
    if (!m_nic)
    {
        Ptr<RdmaTransport> nic = GetObject<RdmaTransport>();
        if (nic)
        {
            m_nic = nic;
            nic->SetMessageListener(this);
            nic->TraceConnectWithoutContext("MessageFailed",
                                            MakeCallback(&CollectiveExecutor::Failed, this));
        }
    }
    Object::NotifyNewAggregate();
}

void
CollectiveExecutor::SetReductionTimeCallback(ReductionTimeCallback cb)
{
    m_reductionTime = cb;
}

void
CollectiveExecutor::SetBytesListener(TransferBytesListener* listener)
{
    m_bytesListener = listener;
}

void
CollectiveExecutor::Add(Ptr<Collective> collective, uint32_t rank)
{
    // internal invariant: CollectiveHelper::Install aggregates the transport first
    NS_ABORT_MSG_IF(!m_nic,
                    "CollectiveExecutor: no RdmaTransport (RdmaNic or FlowNic) on its node "
                    "(aggregate it first)");
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(rank >= collective->GetRanks() ||
                        collective->GetNode(rank) != m_nic->GetLocalId(),
                    "CollectiveExecutor of node " << m_nic->GetLocalId() << " is not rank " << rank
                                                  << " of collective " << collective->GetId());
    Entry entry;
    entry.collective = collective;
    entry.rank = rank;
    bool added = m_entries.emplace(collective->GetId(), std::move(entry)).second;
    // internal invariant: CollectiveService gives each collective a new id
    NS_ABORT_MSG_IF(!added,
                    "CollectiveExecutor: collective id " << collective->GetId() << " added twice");
    if (m_held.count(collective->GetId()))
    {
        // after this event: whoever adds it starts it first (and the probes follow it)
        Ptr<Node> node = GetObject<Node>();
        Simulator::ScheduleWithContext(node ? node->GetId() : Simulator::GetContext(),
                                       Seconds(0),
                                       &CollectiveExecutor::TakeHeld,
                                       this,
                                       collective->GetId());
    }
}

void
CollectiveExecutor::AddCollectiveSource(CollectiveSourceCallback source)
{
    m_sources.push_back(source);
}

CollectiveExecutor::Entry*
CollectiveExecutor::FindOrCreate(uint32_t id)
{
    Entry* entry = Find(id);
    for (size_t i = 0; !entry && i < m_sources.size(); i++)
    {
        if (m_sources[i](id))
        {
            entry = Find(id);
        }
    }
    return entry;
}

void
CollectiveExecutor::Hold(const RdmaMessageRecord& record, uint32_t id)
{
    m_held[id].push_back(record);
    // internal invariant: in one process every member's part is added when the collective is
    // created, so nothing is held; over MPI ranks TrainingJob creates a collective a message names
    // (CreateNamed)
    NS_ABORT_MSG_IF(++m_heldCount > m_maxHeld,
                    "CollectiveExecutor of node "
                        << m_nic->GetLocalId() << ": more than " << m_maxHeld
                        << " messages held for collectives not created here (the last for "
                        << "collective " << id
                        << "); raise ns3::CollectiveExecutor::MaxHeldMessages");
    NS_LOG_INFO("node " << m_nic->GetLocalId() << ": holds a message of collective " << id
                        << ", not created here yet");
}

void
CollectiveExecutor::TakeHeld(uint32_t id)
{
    auto it = m_held.find(id);
    if (it == m_held.end())
    {
        return;
    }
    std::vector<RdmaMessageRecord> held;
    held.swap(it->second);
    m_held.erase(it);
    m_heldCount -= held.size();
    for (const RdmaMessageRecord& record : held)
    {
        Received(record);
    }
}

CollectiveExecutor::Entry*
CollectiveExecutor::Find(uint32_t id)
{
    // most messages belong to the collective of the previous one
    if (m_lastEntry && m_lastId == id)
    {
        return m_lastEntry;
    }
    auto it = m_entries.find(id);
    m_lastEntry = it == m_entries.end() ? nullptr : &it->second;
    m_lastId = id;
    m_lastCollective = m_lastEntry ? PeekPointer(m_lastEntry->collective) : nullptr;
    m_lastRank = m_lastEntry ? m_lastEntry->rank : 0;
    return m_lastEntry;
}

void
CollectiveExecutor::Start(Ptr<Collective> collective)
{
    Entry* entry = Find(collective->GetId());
    // internal invariant: CollectiveService::Create adds every part this process simulates,
    // and the job or runner starts each once (a translate on a symmetric network never)
    NS_ABORT_MSG_IF(!entry || entry->started,
                    "CollectiveExecutor::Start: collective not added, or started twice");
    entry->started = true;
    collective->NotifyStart();
    m_partStartTrace(collective, entry->rank);
    if (entry->ended)
    {
        // a part that only receives (a reduce's root) got all its data before its rank
        // reached the collective: it ends now, after its start
        PartDone(entry);
        return;
    }
    if (collective->IsGenerated())
    {
        StartProgram(entry);
        return;
    }
    std::vector<uint32_t> waiting;
    waiting.swap(entry->waiting);
    for (uint32_t t : waiting)
    {
        Post(entry, t);
    }
    uint32_t count = 0;
    const uint32_t* initial = collective->GetInitialTransfers(entry->rank, &count);
    for (uint32_t i = 0; i < count; i++)
    {
        Release(entry, initial[i]);
    }
    if (collective->GetRankPending(entry->rank) == 0)
    {
        PartDone(entry); // nothing to do here
    }
}

void
CollectiveExecutor::Release(Entry* entry, uint32_t transfer)
{
    m_releasable.clear();
    entry->collective->Release(transfer, &m_releasable);
    // Post() may not re-enter Release, so the list is stable while posting
    for (uint32_t t : m_releasable)
    {
        if (entry->started)
        {
            Post(entry, t);
        }
        else
        {
            entry->waiting.push_back(t);
        }
    }
}

void
CollectiveExecutor::Post(Entry* entry, uint32_t transfer)
{
    Collective* c = PeekPointer(entry->collective);
    const tn_transfer* t = tn_schedule_transfer(c->GetSchedule(), transfer);
    NS_ASSERT(t->src == entry->rank);
    if (tn_op_is_local(t->op))
    {
        PostLocal(entry, transfer);
        return;
    }
    const Collective::Protocol& protocol = c->GetProtocol();
    if (protocol.set)
    {
        // the library's per-hop latency (and its launch before a first transfer)
        uint32_t deps = 0;
        tn_schedule_deps(c->GetSchedule(), transfer, &deps);
        const double delay = tn_cost_protocol_delay_ns(&protocol.cost, t->dim, deps);
        Simulator::Schedule(NanoSeconds(static_cast<int64_t>(delay + 0.5)),
                            &CollectiveExecutor::PostWire,
                            this,
                            entry->collective,
                            transfer);
        return;
    }
    PostWire(entry->collective, transfer);
}

void
CollectiveExecutor::PostWire(Ptr<Collective> collective, uint32_t transfer)
{
    Collective* c = PeekPointer(collective);
    const tn_transfer* t = tn_schedule_transfer(c->GetSchedule(), transfer);
    const Collective::Protocol& protocol = c->GetProtocol();
    RdmaWriteRequest request;
    request.dst = c->GetNode(t->dst);
    request.bytes =
        protocol.set ? tn_cost_protocol_wire(&protocol.cost, t->dim, t->length) : t->length;
    request.priority = c->GetPriority();
    request.lane = c->GetLane(transfer);
    request.remoteAddress = t->dst_offset;
    request.remoteKey = c->GetId();
    request.hasImmediate = true;
    request.immediate = transfer;
    c->NotifyIssued(transfer);
    ++m_posted;
    if (m_bytesListener)
    {
        m_bytesListener->TransferSent(t->length, t->op == TN_OP_REDUCE);
    }
    if (!m_sentTrace.IsEmpty())
    {
        m_sentTrace(c, transfer, t->length, t->op == TN_OP_REDUCE);
    }
    request.toListener = true; // MessageComplete: SendDone
    m_nic->Post(request);
}

void
CollectiveExecutor::PostLocal(Entry* entry, uint32_t transfer)
{
    // no packet and no Sent/Received trace (no network bytes): issued and "arrived" now,
    // ready after the reduction time for a local reduce; an event of its own, since
    // DataReady releases further transfers and Release may not be re-entered
    Collective* c = PeekPointer(entry->collective);
    const tn_transfer* t = tn_schedule_transfer(c->GetSchedule(), transfer);
    c->NotifyIssued(transfer);
    c->NotifyArrived(transfer, Simulator::Now(), t->length);
    Time delay = Seconds(0);
    if (t->op == TN_OP_LOCAL_REDUCE && !m_reductionTime.IsNull())
    {
        delay = Max(m_reductionTime(t->length), Seconds(0));
    }
    Simulator::Schedule(delay, &CollectiveExecutor::DataReady, this, entry, transfer);
}

void
CollectiveExecutor::MessageReceived(const RdmaMessageRecord& record)
{
    Received(record);
}

void
CollectiveExecutor::MessageComplete(const RdmaMessageRecord& record)
{
    SendDone(record);
}

void
CollectiveExecutor::Prefetch(const RdmaMessageRecord& record, bool received, uint32_t stage) const
{
    if (!m_lastCollective || !record.hasImmediate || (record.remoteKey & CONTROL_KEY_BIT) ||
        (record.remoteKey & ~NOTIFY_KEY_BIT) != m_lastId)
    {
        return;
    }
    // a delivery looks its op up by direction (a clear-to-send names a send), a completion
    // its op's stream
    if (stage == 0)
    {
        __builtin_prefetch(m_lastEntry);
    }
    const uint32_t lookup = !received ? 2 : (record.remoteKey & NOTIFY_KEY_BIT) ? 1 : 0;
    const uint64_t key =
        received ? static_cast<uint64_t>(record.src) << 32 | record.immediate : record.wrId;
    m_lastCollective->PrefetchRank(m_lastRank, lookup, key, stage);
}

void
CollectiveExecutor::Received(const RdmaMessageRecord& record)
{
    if (!record.hasImmediate || (record.remoteKey & CONTROL_KEY_BIT))
    {
        return; // not a collective's message
    }
    const uint32_t id = record.remoteKey & ~NOTIFY_KEY_BIT;
    // in one process a collective is added to every member when it is created: a message
    // naming none is unknown
    const bool distributed = m_service && m_service->IsDistributed();
    Entry* entry = distributed ? FindOrCreate(id) : Find(id);
    if (!entry && distributed)
    {
        Hold(record, id); // its sender's rank reached it before this one created it
        return;
    }
    if (!entry)
    {
        ++m_unknown;
        NS_LOG_WARN("node " << m_nic->GetLocalId() << ": message with key " << record.remoteKey
                            << " names no collective");
        return;
    }
    if (entry->collective->IsGenerated())
    {
        ReceivedProgram(entry, record);
        return;
    }
    if (record.immediate >= tn_schedule_count(entry->collective->GetSchedule()))
    {
        ++m_unknown;
        NS_LOG_WARN("node " << m_nic->GetLocalId() << ": message with key " << record.remoteKey
                            << " immediate " << record.immediate << " names no transfer");
        return;
    }
    const uint32_t transfer = record.immediate;
    Collective* c = PeekPointer(entry->collective);
    const tn_schedule* s = c->GetSchedule();
    if (record.remoteKey & NOTIFY_KEY_BIT)
    {
        // a transfer received elsewhere is ready: meet the deps of this node's transfers
        const tn_transfer* t = tn_schedule_transfer(s, transfer);
        uint32_t n = 0;
        const uint32_t* succs = tn_schedule_succs(s, transfer, &n);
        for (uint32_t i = 0; i < n; i++)
        {
            const tn_transfer* u = tn_schedule_transfer(s, succs[i]);
            if (u->src == entry->rank && u->src != t->src && u->src != t->dst &&
                c->MeetDependency(succs[i]))
            {
                Release(entry, succs[i]);
            }
        }
        return;
    }
    NS_ASSERT(tn_schedule_transfer(s, transfer)->dst == entry->rank);
    // a library's protocol sent wire bytes: the data they carried arrived
    const tn_transfer* sent = tn_schedule_transfer(s, transfer);
    const Collective::Protocol& protocol = c->GetProtocol();
    const bool wire =
        protocol.set &&
        record.bytes == tn_cost_protocol_wire(&protocol.cost, sent->dim, sent->length);
    if (!c->NotifyArrived(transfer, record.start, wire ? sent->length : record.bytes))
    {
        NS_LOG_WARN("collective " << c->GetId() << " transfer " << transfer << " arrived twice");
        return;
    }
    const tn_transfer* t = tn_schedule_transfer(s, transfer);
    if (m_bytesListener)
    {
        m_bytesListener->TransferReceived(t->length, t->op == TN_OP_REDUCE);
    }
    if (!m_receivedTrace.IsEmpty())
    {
        m_receivedTrace(c, transfer, t->length, t->op == TN_OP_REDUCE);
    }
    if (t->op == TN_OP_REDUCE && !m_reductionTime.IsNull())
    {
        Time delay = m_reductionTime(t->length);
        if (delay.IsStrictlyPositive())
        {
            Simulator::Schedule(delay, &CollectiveExecutor::DataReady, this, entry, transfer);
            return;
        }
    }
    DataReady(entry, transfer);
}

void
CollectiveExecutor::DataReady(Entry* entry, uint32_t transfer)
{
    Collective* c = PeekPointer(entry->collective);
    const tn_schedule* s = c->GetSchedule();
    const tn_transfer* t = tn_schedule_transfer(s, transfer);
    uint32_t n = 0;
    const uint32_t* succs = tn_schedule_succs(s, transfer, &n);
    // nodes to notify, deduplicated: successors are few per transfer
    std::vector<uint32_t>& notify = m_notifyRanks;
    notify.clear();
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_transfer* u = tn_schedule_transfer(s, succs[i]);
        if (u->src == entry->rank)
        {
            if (c->MeetDependency(succs[i]))
            {
                Release(entry, succs[i]);
            }
        }
        else if (u->src != t->src &&
                 std::find(notify.begin(), notify.end(), u->src) == notify.end())
        {
            notify.push_back(u->src);
        }
    }
    for (uint32_t rank : notify)
    {
        RdmaWriteRequest request;
        request.dst = c->GetNode(rank);
        request.bytes = 0;
        request.priority = c->GetPriority();
        request.remoteKey = c->GetId() | NOTIFY_KEY_BIT;
        request.lane = NOTIFY_LANE; // its own queue pair: never behind data
        request.hasImmediate = true;
        request.immediate = transfer;
        c->NotifyNotification();
        m_nic->Post(request);
    }
    c->NotifyReady(transfer);
    if (c->FinishRankEvent(entry->rank))
    {
        PartDone(entry);
    }
}

void
CollectiveExecutor::PartDone(Entry* entry)
{
    if (!entry->started)
    {
        entry->ended = true; // Start ends it: its end follows its start
        return;
    }
    // this node's part is over: tell the endpoint, keep no reference
    Ptr<Collective> c = entry->collective;
    uint32_t rank = entry->rank;
    m_lastEntry = nullptr;
    m_lastCollective = nullptr;
    m_entries.erase(c->GetId());
    m_partEndTrace(c, rank);
}

void
CollectiveExecutor::Failed(const RdmaMessageRecord& record)
{
    Entry* entry = record.hasImmediate ? Find(record.remoteKey & ~NOTIFY_KEY_BIT) : nullptr;
    if (!entry)
    {
        return; // not a collective's message
    }
    // the collective cannot complete: its dependents never run, and Check() says why
    entry->collective->NotifyFailed(record, record.remoteKey & NOTIFY_KEY_BIT);
}

void
CollectiveExecutor::SendDone(const RdmaMessageRecord& record)
{
    if (record.status != RdmaMessageRecord::SUCCESS)
    {
        return; // Failed() has counted it
    }
    // the completion names its transfer as the receiver sees it: R_Key and immediate
    Entry* entry = Find(record.remoteKey);
    NS_ASSERT(entry);
    if (entry->collective->IsGenerated())
    {
        SendDoneProgram(entry, record);
        return;
    }
    const uint32_t transfer = record.immediate;
    Collective* c = PeekPointer(entry->collective);
    const tn_schedule* s = c->GetSchedule();
    uint32_t n = 0;
    const uint32_t* succs = tn_schedule_succs(s, transfer, &n);
    for (uint32_t i = 0; i < n; i++)
    {
        if (tn_schedule_transfer(s, succs[i])->src == entry->rank && c->MeetDependency(succs[i]))
        {
            Release(entry, succs[i]);
        }
    }
    if (c->FinishRankEvent(entry->rank))
    {
        PartDone(entry);
    }
}

// ---- generated collectives -------------------------------------------------------------

void
CollectiveExecutor::StartProgram(Entry* entry)
{
    Collective* c = PeekPointer(entry->collective);
    std::vector<uint32_t> waiting;
    waiting.swap(entry->waiting);
    for (uint32_t op : waiting)
    {
        PostOp(entry, op);
    }
    std::vector<uint32_t> sends;
    c->GetStartOps(entry->rank, &sends);
    for (uint32_t op : sends)
    {
        ReleaseOp(entry, op);
    }
    if (c->GetRankPending(entry->rank) == 0)
    {
        PartDone(entry);
    }
}

void
CollectiveExecutor::ReleaseOp(Entry* entry, uint32_t op)
{
    if (entry->started)
    {
        PostOp(entry, op);
    }
    else
    {
        entry->waiting.push_back(op);
    }
}

void
CollectiveExecutor::PostOp(Entry* entry, uint32_t op)
{
    Collective* c = PeekPointer(entry->collective);
    const tn_program_op o = c->GetOp(entry->rank, op);
    NS_ASSERT(o.send);
    RdmaWriteRequest request;
    request.dst = c->GetNode(o.peer);
    request.bytes = o.length;
    request.priority = c->GetPriority();
    request.lane = c->GetOpLane(entry->rank, op);
    request.remoteAddress = o.dst_offset;
    request.remoteKey = c->GetId();
    request.hasImmediate = true;
    request.immediate = o.match; // the receiver finds its op by (this rank, match)
    request.wrId = c->GetOpCookie(entry->rank, op); // SendDoneProgram's op, without a search
    c->NotifyOpIssued(entry->rank, op);
    ++m_posted;
    if (m_bytesListener)
    {
        m_bytesListener->TransferSent(o.length, o.op == TN_OP_REDUCE);
    }
    if (!m_sentTrace.IsEmpty())
    {
        m_sentTrace(c, c->GetOpTransfer(entry->rank, op), o.length, o.op == TN_OP_REDUCE);
    }
    request.toListener = true; // MessageComplete: SendDone
    m_nic->Post(request);
}

void
CollectiveExecutor::OpDone(Entry* entry, uint32_t op)
{
    Collective* c = PeekPointer(entry->collective);
    // the scratch lists are taken while in use, so a nested OpDone gets its own
    std::vector<uint32_t> ready;
    std::vector<uint32_t> arrived;
    ready.swap(m_ready);
    arrived.swap(m_arrived);
    ready.clear();
    arrived.clear();
    c->CompleteOp(entry->rank, op, &ready, &arrived);
    for (uint32_t u : ready)
    {
        if (c->GetOp(entry->rank, u).send)
        {
            ReleaseOp(entry, u);
        }
        else
        {
            SendClear(entry, u);
        }
    }
    for (uint32_t u : arrived)
    {
        Arrived(entry, u);
    }
    m_ready.swap(ready);
    m_arrived.swap(arrived);
}

void
CollectiveExecutor::SendClear(Entry* entry, uint32_t op)
{
    Collective* c = PeekPointer(entry->collective);
    const tn_program_op& o = c->GetOp(entry->rank, op);
    RdmaWriteRequest request;
    request.dst = c->GetNode(o.peer);
    request.bytes = 0;
    request.priority = c->GetPriority();
    request.remoteKey = c->GetId() | NOTIFY_KEY_BIT;
    request.lane = NOTIFY_LANE; // its own queue pair: never behind data
    request.hasImmediate = true;
    request.immediate = o.match;
    c->NotifyNotification();
    m_nic->Post(request);
}

void
CollectiveExecutor::ReceivedProgram(Entry* entry, const RdmaMessageRecord& record)
{
    Collective* c = PeekPointer(entry->collective);
    const uint32_t peer = c->GetRankOfNode(record.src);
    const bool clear = record.remoteKey & NOTIFY_KEY_BIT;
    // a clear-to-send names this rank's send to the peer, data the peer's send to this rank
    const uint32_t op =
        peer == UINT32_MAX ? UINT32_MAX : c->FindOp(entry->rank, clear, peer, record.immediate);
    if (op == UINT32_MAX)
    {
        if (peer != UINT32_MAX && c->GetWindow() > 0)
        {
            // its sender is ahead of this rank's window: the op comes in later
            c->DeferMessage(entry->rank, clear, peer, record.immediate, record.start, record.bytes);
            return;
        }
        ++m_unknown;
        NS_LOG_WARN("node " << m_nic->GetLocalId() << ": message of collective " << c->GetId()
                            << " from node " << record.src << " match " << record.immediate
                            << " names no op");
        return;
    }
    if (clear)
    {
        if (c->ClearOp(entry->rank, op))
        {
            ReleaseOp(entry, op);
        }
        return;
    }
    if (!c->NotifyOpArrived(entry->rank, op, record.start, record.bytes))
    {
        NS_LOG_WARN("collective " << c->GetId() << " rank " << entry->rank << " op " << op
                                  << " arrived twice");
        return;
    }
    Arrived(entry, op);
}

void
CollectiveExecutor::Arrived(Entry* entry, uint32_t op)
{
    Collective* c = PeekPointer(entry->collective);
    const tn_program_op& o = c->GetOp(entry->rank, op);
    const uint64_t length = o.length;
    const bool reduce = o.op == TN_OP_REDUCE;
    if (m_bytesListener)
    {
        m_bytesListener->TransferReceived(length, reduce);
    }
    if (!m_receivedTrace.IsEmpty())
    {
        m_receivedTrace(c, c->GetOpTransfer(entry->rank, op), length, reduce);
    }
    if (reduce && !m_reductionTime.IsNull())
    {
        Time delay = m_reductionTime(length);
        if (delay.IsStrictlyPositive())
        {
            Simulator::Schedule(delay, &CollectiveExecutor::DataReadyOp, this, entry, op);
            return;
        }
    }
    DataReadyOp(entry, op);
}

void
CollectiveExecutor::DataReadyOp(Entry* entry, uint32_t op)
{
    Collective* c = PeekPointer(entry->collective);
    // ready first: OpDone may move the window past this op
    c->NotifyOpReady(entry->rank, op);
    OpDone(entry, op);
    if (c->FinishRankEvent(entry->rank))
    {
        PartDone(entry);
    }
}

void
CollectiveExecutor::SendDoneProgram(Entry* entry, const RdmaMessageRecord& record)
{
    Collective* c = PeekPointer(entry->collective);
    const uint32_t op = c->TakeOpCookie(entry->rank, record.wrId);
    const tn_program_op& o = c->GetOp(entry->rank, op);
    NS_ASSERT(o.send && c->GetNode(o.peer) == record.dst && o.match == record.immediate);
    OpDone(entry, op);
    if (c->FinishRankEvent(entry->rank))
    {
        PartDone(entry);
    }
}

} // namespace ns3
