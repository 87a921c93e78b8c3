/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-nic.h"

#include "roce-header.h"
#include "roce-wire.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNic");
NS_OBJECT_ENSURE_REGISTERED(FlowNic);

namespace
{
/// Wire bytes of an ACK frame: the data packet's headers and AETH.
constexpr uint32_t ACK_WIRE_BYTES = RoceWire::DATA_OVERHEAD + RoceAethHeader::SIZE;
} // namespace

TypeId
FlowNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowNic")
            .SetParent<RdmaTransport>()
            .SetGroupName("TrainingNet")
            .AddConstructor<FlowNic>()
            .AddAttribute("Mtu",
                          "Payload bytes per packet: the wire bytes of a message count the "
                          "headers of each packet (as ns3::RdmaNic::Mtu; RoceHelper copies "
                          "that value).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FlowNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(1, 1u << 30))
            .AddTraceSource("MessageComplete",
                            "The sender learns an RDMA WRITE was delivered.",
                            MakeTraceSourceAccessor(&FlowNic::m_messageCompleteTrace),
                            "ns3::RdmaTransport::MessageTracedCallback")
            .AddTraceSource("MessageReceived",
                            "The last byte of an RDMA WRITE arrived (receiver side).",
                            MakeTraceSourceAccessor(&FlowNic::m_messageReceivedTrace),
                            "ns3::RdmaTransport::MessageTracedCallback")
            .AddTraceSource("MessageFailed",
                            "Never fired: flows do not fail (present for RdmaTransport users).",
                            MakeTraceSourceAccessor(&FlowNic::m_messageFailedTrace),
                            "ns3::RdmaTransport::MessageTracedCallback");
    return tid;
}

FlowNic::FlowNic() = default;

FlowNic::~FlowNic() = default;

void
FlowNic::DoDispose()
{
    m_network = nullptr;
    m_qps.clear();
    m_qpIndex.clear();
    m_transit.clear();
    m_freeTransit.clear();
    m_callbacks.clear();
    m_freeCallbacks.clear();
    m_lastCallback = NO_CALLBACK;
    for (TransitEvent* e : m_events)
    {
        e->owner = nullptr; // one still scheduled is dropped by the simulator, unrun or a no-op
        e->Unref();
    }
    m_events.clear();
    m_freeEvents.clear();
    RdmaTransport::DoDispose();
}

void
FlowNic::NotifyNewAggregate()
{
    Ptr<Node> node = GetObject<Node>();
    if (node)
    {
        m_context = node->GetId();
    }
    RdmaTransport::NotifyNewAggregate();
}

void
FlowNic::SetLocalId(uint32_t id)
{
    // internal invariant: RoceHelper::Check refuses fabrics of more than 65536 nodes first
    NS_ABORT_MSG_IF(id > 0xffff, "FlowNic: node id " << id << " > 65535 (as RoCE addresses)");
    m_localId = id;
}

uint32_t
FlowNic::GetLocalId() const
{
    return m_localId;
}

void
FlowNic::Attach(Ptr<FlowNetwork> network)
{
    // internal invariant: an API contract kept by the helpers and programs; no option or file
    // reaches it
    NS_ABORT_MSG_IF(!network, "FlowNic::Attach: no network");
    m_network = network;
    network->SetNic(m_localId, this);
    SetFabric(network);
}

uint64_t
FlowNic::GetLineRate() const
{
    return m_network ? m_network->GetNodeLineRate(m_localId) : 0;
}

uint64_t
FlowNic::GetWireBytes(uint64_t bytes, bool immediate) const
{
    const uint64_t packets = bytes == 0 ? 1 : (bytes - 1) / m_mtu + 1;
    return bytes + packets * RoceWire::DATA_OVERHEAD + RoceWire::RETH_BYTES +
           (immediate ? RoceImmHeader::SIZE : 0);
}

FlowNic::QueuePair&
FlowNic::GetQp(uint32_t dst, uint8_t priority, uint32_t lane)
{
    const uint32_t qpn = RoceWire::Qpn(dst, priority, lane);
    // a sorted vector: looked up once per message, added to once per peer and lane
    auto it =
        std::lower_bound(m_qpIndex.begin(), m_qpIndex.end(), std::make_pair(qpn, uint32_t{0}));
    if (it != m_qpIndex.end() && it->first == qpn)
    {
        return m_qps[it->second];
    }
    QueuePair qp;
    qp.qpn = qpn;
    qp.dst = dst;
    qp.lane = lane;
    qp.priority = priority;
    qp.sport = RoceWire::LaneSourcePort(m_localId, dst, priority, lane);
    qp.path = m_network->GetPathId(m_localId, dst, qp.sport, priority);
    m_qpIndex.insert(it, std::make_pair(qpn, static_cast<uint32_t>(m_qps.size())));
    m_qps.push_back(std::move(qp));
    return m_qps.back();
}

uint64_t
FlowNic::Post(const RdmaWriteRequest& request, CompletionCallback done)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!m_network, "FlowNic::Post: not attached to a FlowNetwork");
    // internal invariant: the Priority attributes' checkers take 0..7 only
    NS_ABORT_MSG_IF(request.priority > 7,
                    "FlowNic::Post: priority " << +request.priority << " > 7");
    // internal invariant: collectives never send to their own rank (tn_verify_schedule, the
    // generators)
    NS_ABORT_MSG_IF(request.dst == m_localId, "FlowNic::Post: destination is the local node");
    // internal invariant: RoceHelper gives every NPU a FlowNic
    NS_ABORT_MSG_IF(!m_network->GetNic(request.dst),
                    "FlowNic::Post: node " << request.dst << " has no FlowNic");
    // internal invariant: planned routing assigns at most MAX_LANES lanes per pair (AssignLanes)
    NS_ABORT_MSG_IF(request.lane >= RoceWire::MAX_LANES,
                    "FlowNic::Post: lane " << request.lane << " >= " << RoceWire::MAX_LANES);
    QueuePair& qp = GetQp(request.dst, request.priority, request.lane);
    Queued m;
    m.id = m_nextMsgId++;
    m.bytes = request.bytes;
    m.remoteAddress = request.remoteAddress != 0 ? request.remoteAddress : m.id;
    m.wrId = request.wrId;
    m.start = Simulator::Now().GetTimeStep();
    m.remoteKey = request.remoteKey;
    m.immediate = request.immediate;
    m.hasImmediate = request.hasImmediate;
    m.done = request.toListener ? TO_LISTENER : TakeCallback(done);
    qp.queue.push_back(m);
    const uint32_t index = static_cast<uint32_t>(&qp - m_qps.data());
    if (!qp.sending)
    {
        StartHead(index);
    }
    return m_nextMsgId - 1;
}

void
FlowNic::StartHead(uint32_t index)
{
    // messages without payload take no share of a link: they leave at once, one after the other
    while (!m_qps[index].Empty())
    {
        QueuePair& qp = m_qps[index];
        const Queued& m = qp.queue[qp.head];
        if (m.bytes > 0)
        {
            qp.sending = true;
            const double bits = 8.0 * static_cast<double>(GetWireBytes(m.bytes, m.hasImmediate));
            m_network->Start(qp.path, bits, this, index);
            return;
        }
        HeadSent(index);
    }
    m_qps[index].sending = false;
}

void
FlowNic::FlowEnded(uint64_t token)
{
    const uint32_t index = static_cast<uint32_t>(token);
    HeadSent(index);
    StartHead(index);
}

void
FlowNic::HeadSent(uint32_t index)
{
    QueuePair& qp = m_qps[index];
    const Queued q = qp.PopFront();
    Message m;
    m.rec.id = q.id;
    m.rec.src = m_localId;
    m.rec.dst = qp.dst;
    m.rec.priority = qp.priority;
    m.rec.qpn = qp.qpn;
    m.rec.udpSourcePort = qp.sport;
    m.rec.bytes = q.bytes;
    m.rec.lane = qp.lane;
    m.rec.remoteAddress = q.remoteAddress;
    m.rec.remoteKey = q.remoteKey;
    m.rec.hasImmediate = q.hasImmediate;
    m.rec.immediate = q.immediate;
    m.rec.wrId = q.wrId;
    m.rec.start = TimeStep(q.start);
    m.toListener = q.done == TO_LISTENER;
    m.done = m.toListener ? CompletionCallback() : ReleaseCallback(q.done);
    const uint64_t packet = m.rec.bytes == 0
                                ? GetWireBytes(0, m.rec.hasImmediate)
                                : std::min<uint64_t>(m.rec.bytes, m_mtu) + RoceWire::DATA_OVERHEAD;
    const uint64_t key = (packet << 1) | (m.rec.bytes == 0 ? 1 : 0);
    if (qp.delayKey != key)
    {
        // the last byte arrives after every hop's latency and, after the first hop (where the
        // flow was serialised), one packet's store and forward per hop; the ACK comes back the
        // same way
        const FlowNetwork::PathLinks path = m_network->GetPath(qp.path);
        double forward = 0;
        double back = 0;
        for (std::size_t k = 0; k < path.size(); ++k)
        {
            const double rate = static_cast<double>(m_network->GetLinkRate(path[k]));
            const double latency = static_cast<double>(m_network->GetLinkLatencyNs(path[k]));
            forward += latency;
            if (k > 0 || m.rec.bytes == 0)
            {
                forward += static_cast<double>(packet) * 8e9 / rate;
            }
            back += latency + ACK_WIRE_BYTES * 8e9 / rate;
        }
        qp.delayKey = key;
        qp.arrive = NanoSeconds(static_cast<int64_t>(forward + 0.5));
        qp.ack = qp.arrive + NanoSeconds(static_cast<int64_t>(back + 0.5));
    }
    const Time arrive = qp.arrive;
    const Time ack = qp.ack;
    // a symmetric network delivers at the representative of the destination what the
    // translates of this flow bring it
    FlowNic* peer = m_network->GetNic(
        m_network->GetSymmetry() ? m_network->GetRepresentative(m.rec.dst) : m.rec.dst);
    uint32_t slot;
    if (m_freeTransit.empty())
    {
        slot = static_cast<uint32_t>(m_transit.size());
        m_transit.push_back(std::move(m));
    }
    else
    {
        slot = m_freeTransit.back();
        m_freeTransit.pop_back();
        m_transit[slot] = std::move(m);
    }
    // the delivery comes before the ACK (ack > arrive), so the slot outlives both
    Simulator::ScheduleWithContext(peer->m_context, arrive, TakeEvent(peer, slot));
    // the ACK in the context of this event, as Simulator::Schedule would
    Simulator::ScheduleWithContext(Simulator::GetContext(), ack, TakeEvent(nullptr, slot));
}

uint32_t
FlowNic::TakeCallback(const CompletionCallback& done)
{
    if (done.IsNull())
    {
        return NO_CALLBACK;
    }
    // the same callback object as the last post's (its copies share one implementation)
    if (m_lastCallback != NO_CALLBACK && m_callbacks[m_lastCallback].uses > 0 &&
        m_callbacks[m_lastCallback].callback.GetImpl() == done.GetImpl())
    {
        ++m_callbacks[m_lastCallback].uses;
        return m_lastCallback;
    }
    if (m_freeCallbacks.empty())
    {
        m_lastCallback = static_cast<uint32_t>(m_callbacks.size());
        m_callbacks.emplace_back();
    }
    else
    {
        m_lastCallback = m_freeCallbacks.back();
        m_freeCallbacks.pop_back();
    }
    m_callbacks[m_lastCallback].callback = done;
    m_callbacks[m_lastCallback].uses = 1;
    return m_lastCallback;
}

FlowNic::CompletionCallback
FlowNic::ReleaseCallback(uint32_t slot)
{
    if (slot == NO_CALLBACK)
    {
        return CompletionCallback();
    }
    CallbackSlot& held = m_callbacks[slot];
    CompletionCallback done = held.callback;
    if (--held.uses == 0)
    {
        held.callback = CompletionCallback(); // what it binds is not kept alive past its use
        m_freeCallbacks.push_back(slot);
    }
    return done;
}

FlowNic::TransitEvent*
FlowNic::TakeEvent(FlowNic* target, uint32_t slot)
{
    TransitEvent* e;
    if (m_freeEvents.empty())
    {
        e = new TransitEvent(); // its first reference is the pool's (m_events)
        e->owner = this;
        m_events.push_back(e);
    }
    else
    {
        e = m_freeEvents.back();
        m_freeEvents.pop_back();
    }
    e->target = target;
    e->slot = slot;
    // what its run reads first: the message's record and the NIC that runs it
    const Message* m = &m_transit[slot];
    e->hints[0] = m;
    e->hints[1] = reinterpret_cast<const uint8_t*>(m) + sizeof(Message) - 1;
    e->hints[2] = target ? target : this;
    e->Ref(); // the simulator's, dropped after the event runs
    return e;
}

void
FlowNic::TransitEvent::Prefetch(uint32_t stage) const
{
    // the event, its message and its NIC are cached by now (RoceEventBuckets): the listener
    // that handles it asks for its own state
    const FlowNic* nic = target ? target : owner;
    if (!owner || !nic->GetMessageListener())
    {
        return;
    }
    if (stage == 0)
    {
        // the NIC's own state now, the collective's in the stages (a prefetch of the queue
        // pairs' paths too, in the later stages, measured slower at 16,384 NPUs)
        nic->PrefetchPost();
    }
    nic->GetMessageListener()->Prefetch(owner->m_transit[slot].rec, target != nullptr, stage);
}

void
FlowNic::PrefetchPost() const
{
    if (!m_qpIndex.empty())
    {
        __builtin_prefetch(m_qpIndex.data());
    }
    // a few lines of queue pairs: an NPU's ring peers' (the send's one is not known yet)
    const char* qps = reinterpret_cast<const char*>(m_qps.data());
    const size_t bytes = std::min<size_t>(m_qps.size(), POST_PREFETCH_QPS) * sizeof(QueuePair);
    for (size_t at = 0; at < bytes; at += 64)
    {
        __builtin_prefetch(qps + at);
    }
    if (!m_freeEvents.empty())
    {
        __builtin_prefetch(&m_freeEvents.back());
    }
}

void
FlowNic::TransitEvent::Notify()
{
    FlowNic* nic = owner;
    if (!nic)
    {
        return; // its NIC was disposed
    }
    FlowNic* to = target;
    const uint32_t s = slot;
    // free again before it runs: what it runs may send (and schedule this event again)
    nic->m_freeEvents.push_back(this);
    if (to)
    {
        to->Deliver(nic, s);
    }
    else
    {
        nic->Complete(s);
    }
}

void
FlowNic::Deliver(FlowNic* sender, uint32_t slot)
{
    RdmaMessageRecord rec = sender->m_transit[slot].rec;
    if (rec.dst != m_localId)
    {
        // Symmetric: the message to rec.dst, moved by the translation that takes rec.dst
        // here, is the message this node gets from the image of its sender
        rec.src = m_network->MoveToRepresentative(rec.src, rec.dst);
        rec.dst = m_localId;
    }
    // as RdmaNic's responder reports it: its own QP toward the sender
    rec.qpn = RoceWire::Qpn(rec.src, rec.priority, rec.lane);
    rec.wrId = 0; // the poster's own
    rec.end = Simulator::Now();
    NotifyListener(rec);
    m_messageReceivedTrace(rec);
}

void
FlowNic::Complete(uint32_t slot)
{
    Message& m = m_transit[slot];
    m.rec.end = Simulator::Now();
    ++m_completed;
    // the callback may post (and so send and park) further messages: work on copies
    const RdmaMessageRecord rec = m.rec;
    CompletionCallback done = std::move(m.done);
    const bool toListener = m.toListener;
    m.done = CompletionCallback();
    m_freeTransit.push_back(slot);
    m_messageCompleteTrace(rec);
    if (toListener)
    {
        NotifyListenerComplete(rec);
    }
    else if (!done.IsNull())
    {
        done(rec);
    }
}

} // namespace ns3
