/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch.h"

#include "roce-channel.h"
#include "roce-ip-view.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitch");

NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

namespace
{
/// IPv4/UDP and BTH of a packet, read in one PeekHeader.
class RoceIpBthPeek : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceIpBthPeek")
                                .SetParent<Header>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<RoceIpBthPeek>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        bth.Print(os);
    }

    uint32_t GetSerializedSize() const override
    {
        return RoceIpUdpHeader::SIZE + RoceBthHeader::SIZE;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        ip.Serialize(i);
        i.Next(RoceIpUdpHeader::SIZE);
        bth.Serialize(i);
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        ip.Deserialize(i);
        i.Next(RoceIpUdpHeader::SIZE);
        bth.Deserialize(i);
        return GetSerializedSize();
    }

    RoceIpUdpHeader ip; //!< IPv4/UDP
    RoceBthHeader bth;  //!< BTH
};

} // namespace

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitch")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RoceSwitch>()
            .AddAttribute("EcmpSeed",
                          "Seed of the ECMP hash over (src IP, dst IP, UDP sport, UDP dport)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitch::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PintLogBase",
                          "Base of the log coding of HPCC-PINT's utilisation field (must equal "
                          "the senders' ns3::RdmaHpccPint::LogBase; key PINT_LOG_BASE).",
                          DoubleValue(1.05),
                          MakeDoubleAccessor(&RoceSwitch::m_pintLogBase),
                          MakeDoubleChecker<double>(1.000001))
            .AddAttribute("TelemetryBaseRtt",
                          "T of HPCC-PINT's per-port utilisation (the HPCC family: the largest "
                          "base RTT of the topology).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&RoceSwitch::m_telemetryRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("PintSamplesEveryPacket",
                          "HPCC-PINT's dt and previous-packet bytes come from every packet the "
                          "port sends, ACKs included, as in the HPCC family's switches (true), "
                          "or from its data packets only (false); U is updated at data packets "
                          "either way (roce-hpcc-flows --family sets it under CC_MODE 10)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceSwitch::m_pintEveryPacket),
                          MakeBooleanChecker())
            .AddAttribute("Mmu",
                          "The shared-buffer MMU (created with ns3::RoceSwitchMmu defaults)",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitch::m_mmu),
                          MakePointerChecker<RoceSwitchMmu>())
            .AddTraceSource("Drop",
                            "A packet was dropped (packet, ingress port, priority, reason)",
                            MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "ns3::RoceSwitch::DropTracedCallback")
            .AddTraceSource("EcnMark",
                            "A packet was CE-marked (packet, egress port, priority, queue bytes)",
                            MakeTraceSourceAccessor(&RoceSwitch::m_ecnTrace),
                            "ns3::RoceSwitch::EcnMarkTracedCallback")
            .AddTraceSource("PfcPause",
                            "PAUSE sent (state change) or received (every frame): "
                            "(port, priority, sent)",
                            MakeTraceSourceAccessor(&RoceSwitch::m_pfcPauseTrace),
                            "ns3::RoceSwitch::PfcTracedCallback")
            .AddTraceSource("PfcResume",
                            "RESUME sent or received: (port, priority, sent)",
                            MakeTraceSourceAccessor(&RoceSwitch::m_pfcResumeTrace),
                            "ns3::RoceSwitch::PfcTracedCallback");
    return tid;
}

RoceSwitch::RoceSwitch()
{
    NS_LOG_FUNCTION(this);
    m_mmu = CreateObject<RoceSwitchMmu>();
}

RoceSwitch::~RoceSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
RoceSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (const Ptr<RoceNetDevice>& dev : m_ports)
    {
        dev->SetPortOwner(nullptr);
    }
    m_ports.clear();
    ClearRoutes();
    if (m_mmu)
    {
        m_mmu->Dispose();
    }
    m_mmu = nullptr;
    m_localRx = LocalReceiveCallback();
    m_localReceiver = nullptr;
    Object::DoDispose();
}

void
RoceSwitch::NotifyNewAggregate()
{
    Object::NotifyNewAggregate();
}

int64_t
RoceSwitch::AssignStreams(int64_t stream)
{
    return m_mmu->AssignStreams(stream);
}

uint32_t
RoceSwitch::AddPort(Ptr<RoceNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    const uint32_t idx = m_ports.size();
    m_ports.push_back(dev);
    m_portEcnMarks.push_back(0);
    m_portDrops.push_back(0);
    m_pint.emplace_back();
    m_portDim.push_back(-1);
    m_portWrap.push_back(0);
    dev->SetPortIndex(idx);
    dev->SetPortOwner(this);
    dev->SetLocalSendCallback(MakeCallback(&RoceSwitch::SendLocal, this));
    dev->TraceConnectWithoutContext("PfcRx",
                                    MakeBoundCallback(&RoceSwitch::PfcReceived, this, idx));
    Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(dev->GetChannel());
    uint8_t mask = 0;
    for (uint8_t p = 0; p < RoceNetDevice::NUM_PRIORITIES; ++p)
    {
        mask |= dev->IsPfcEnabled(p) ? static_cast<uint8_t>(1u << p) : 0;
    }
    const uint32_t mmuPort =
        m_mmu->AddPort(dev->GetDataRate(), ch ? ch->GetDelay() : Time(0), mask);
    NS_ASSERT(mmuPort == idx);
    return idx;
}

void
RoceSwitch::SetRoute(uint32_t dstNodeId, const std::vector<uint32_t>& ports)
{
    NS_LOG_FUNCTION(this << dstNodeId);
    // internal invariant: next hops of a validated, connected topology
    NS_ABORT_MSG_IF(ports.empty(), "RoceSwitch::SetRoute: empty next-hop set");
    for (uint32_t p : ports)
    {
        // internal invariant: an index from the caller's own tables, never from user input
        NS_ABORT_MSG_IF(p >= m_ports.size(), "RoceSwitch::SetRoute: no port " << p);
    }
    if (dstNodeId >= m_routeIndex.size())
    {
        m_routeIndex.resize(dstNodeId + 1, 0);
    }
    // installers set destination after destination: consecutive ones mostly share a set
    if (m_lastSet == 0 || m_sets[m_lastSet] != ports)
    {
        auto it = m_setIds.find(ports);
        if (it == m_setIds.end())
        {
            // internal invariant: at most one next-hop set per switch port subset of a fabric of at
            // most 65536 nodes
            NS_ABORT_MSG_IF(m_sets.size() > UINT32_MAX - 1, "RoceSwitch::SetRoute: too many sets");
            it = m_setIds.emplace(ports, static_cast<uint32_t>(m_sets.size())).first;
            m_sets.push_back(ports);
        }
        m_lastSet = it->second;
    }
    m_routeIndex[dstNodeId] = m_lastSet;
}

const std::vector<uint32_t>&
RoceSwitch::GetRoute(uint32_t dstNodeId) const
{
    return m_sets[dstNodeId < m_routeIndex.size() ? m_routeIndex[dstNodeId] : 0];
}

void
RoceSwitch::ClearRoutes()
{
    m_routeIndex.clear();
    m_routeIndex.shrink_to_fit();
    m_sets.assign(1, std::vector<uint32_t>());
    m_setIds.clear();
    m_lastSet = 0;
    m_flowRoutes.clear();
}

std::size_t
RoceSwitch::GetRouteTableBytes() const
{
    std::size_t bytes = m_routeIndex.capacity() * sizeof(uint32_t);
    for (std::size_t i = 1; i < m_sets.size(); ++i) // set 0, "no route", is always there
    {
        const std::vector<uint32_t>& set = m_sets[i];
        // the set and its copy as a lookup key (map node: key, value, 3 pointers and colour)
        bytes += 2 * set.capacity() * sizeof(uint32_t) + sizeof(set);
    }
    bytes += m_setIds.size() * (sizeof(std::vector<uint32_t>) + 4 * sizeof(void*) + 8);
    return bytes;
}

namespace
{
/** Key of a flow route: node ids are below 2^16 (RoceAddress), DSCP below 2^6. */
uint64_t
FlowKey(uint32_t srcNodeId, uint32_t dstNodeId, uint16_t sport, uint8_t priority)
{
    return (static_cast<uint64_t>(srcNodeId & 0xffff) << 40) |
           (static_cast<uint64_t>(dstNodeId & 0xffff) << 24) | (static_cast<uint64_t>(sport) << 8) |
           priority;
}
} // namespace

void
RoceSwitch::SetFlowRoute(uint32_t srcNodeId,
                         uint32_t dstNodeId,
                         uint16_t sport,
                         uint8_t priority,
                         uint32_t port)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "RoceSwitch::SetFlowRoute: port " << port << " of " << m_ports.size());
    // internal invariant: RoceHelper::Check refuses fabrics of more than 65536 nodes first
    NS_ABORT_MSG_IF(srcNodeId > 0xffff || dstNodeId > 0xffff,
                    "RoceSwitch::SetFlowRoute: node ids above 65535 have no RoCE address");
    m_flowRoutes[FlowKey(srcNodeId, dstNodeId, sport, priority)] = port;
}

uint32_t
RoceSwitch::GetFlowRoute(uint32_t srcNodeId,
                         uint32_t dstNodeId,
                         uint16_t sport,
                         uint8_t priority) const
{
    auto it = m_flowRoutes.find(FlowKey(srcNodeId, dstNodeId, sport, priority));
    return it == m_flowRoutes.end() ? NO_PORT : it->second;
}

uint32_t
RoceSwitch::GetEgressPort(uint32_t srcIp,
                          uint32_t dstIp,
                          uint16_t sport,
                          uint16_t dport,
                          uint8_t priority) const
{
    const uint32_t node = RoceAddress::ToNodeId(dstIp);
    const uint32_t pinned = m_flowRoutes.empty()
                                ? NO_PORT
                                : GetFlowRoute(RoceAddress::ToNodeId(srcIp), node, sport, priority);
    const std::vector<uint32_t>& set = m_sets[node < m_routeIndex.size() ? m_routeIndex[node] : 0];
    return RoceForwarding::NextHop(pinned,
                                   m_ports.size() == 1 ? 0 : NO_PORT,
                                   set.data(),
                                   set.size(),
                                   m_seed,
                                   srcIp,
                                   dstIp,
                                   sport,
                                   dport);
}

void
RoceSwitch::SetDateline(uint8_t base, uint8_t dateline)
{
    // internal invariant: RoceHelper checks the priorities it is given before Install
    NS_ABORT_MSG_IF(base >= RoceNetDevice::NUM_PRIORITIES ||
                        dateline >= RoceNetDevice::NUM_PRIORITIES || base == dateline,
                    "RoceSwitch::SetDateline: priorities " << unsigned(base) << " and "
                                                           << unsigned(dateline));
    m_datelineBase = base;
    m_datelinePrio = dateline;
}

void
RoceSwitch::SetPortDim(uint32_t port, int32_t dim, bool wrap)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "RoceSwitch::SetPortDim: port " << port << " of " << m_ports.size());
    m_portDim[port] = dim;
    m_portWrap[port] = wrap ? 1 : 0;
}

uint8_t
RoceSwitch::DatelinePriority(uint32_t ingress, uint32_t egress, uint8_t priority)
{
    if (!HasDateline() || (priority != m_datelineBase && priority != m_datelinePrio))
    {
        return priority;
    }
    if (m_portWrap[egress])
    {
        // crossing the wrap, also right after a turn: this ring's dateline is passed now
        ++m_datelineCrossings;
        return m_datelinePrio;
    }
    if (priority == m_datelinePrio && m_portDim[egress] != m_portDim[ingress])
    {
        // a new ring: its own dateline is still ahead, and dimension order never comes back
        ++m_datelineReturns;
        return m_datelineBase;
    }
    return priority;
}

void
RoceSwitch::SetLocalAddress(Ipv4Address addr)
{
    m_localAddr = addr.Get();
}

void
RoceSwitch::SetLocalReceiveCallback(LocalReceiveCallback cb)
{
    m_localRx = cb;
    m_localReceiver = nullptr;
}

void
RoceSwitch::SetIpPort(uint32_t port)
{
    // internal invariant: an index from the caller's own tables, never from user input
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "RoceSwitch::SetIpPort: port " << port << " of " << m_ports.size());
    m_ipPort = port;
}

void
RoceSwitch::DoDrop(Ptr<const Packet> p, uint32_t port, uint8_t priority, const char* reason)
{
    NS_LOG_LOGIC("drop " << p << " port " << port << " priority " << unsigned(priority) << " "
                         << reason);
    ++m_drops;
    if (port < m_portDrops.size())
    {
        ++m_portDrops[port];
    }
    m_dropTrace(p, port, priority, std::string(reason));
}

void
RoceSwitch::PortReceive(RoceNetDevice* dev, const Ptr<Packet>& p, uint32_t port)
{
    NS_LOG_FUNCTION(this << p << port);
    const RoceIpView ip(*p);
    const bool roce = ip.IsRoce();
    const uint8_t priority = ip.GetQueue();
    if (ip.GetDestinationRaw() == m_localAddr)
    {
        if (!roce)
        {
            if (m_ipPort >= m_ports.size() || !m_ports[m_ipPort]->DeliverUp(p))
            {
                DoDrop(p, port, priority, "NoIpStack");
                return;
            }
            ++m_delivered;
            return;
        }
        if (m_localReceiver)
        {
            ++m_delivered;
            m_localReceiver->LocalReceive(p, port);
            return;
        }
        if (m_localRx.IsNull())
        {
            DoDrop(p, port, priority, "NoLocalReceiver");
            return;
        }
        ++m_delivered;
        m_localRx(p, port);
        return;
    }
    const uint32_t egress = GetEgressPort(ip.GetSourceRaw(),
                                          ip.GetDestinationRaw(),
                                          ip.GetSourcePort(),
                                          ip.GetDestinationPort(),
                                          ip.GetDscp());
    // a host's default route is for what it sends, not for what it receives: sending that
    // back would loop between it and its switch
    if (egress == NO_PORT || (egress == port && m_ports.size() == 1 &&
                              GetRoute(RoceAddress::ToNodeId(ip.GetDestinationRaw())).empty()))
    {
        DoDrop(p, port, priority, "NoRoute");
        return;
    }
    // a router hop: TTL - 1 (the header checksum is recomputed on serialization); the ICRC
    // does not cover the TTL. Other IPv4 traffic is only peeked: this header would rewrite
    // its protocol and ports.
    uint8_t queue = priority;
    if (roce)
    {
        if (ip.GetTtl() <= 1)
        {
            DoDrop(p, port, priority, "TtlExpired");
            return;
        }
        if (priority != RoceNetDevice::CONTROL_QUEUE)
        {
            queue = DatelinePriority(port, egress, priority);
        }
        // the header read above is the one replaced: cut, and its bytes written again
        p->RemoveAtStart(RoceIpUdpHeader::SIZE);
        p->AddHeader(RoceIpRewrite(ip,
                                   ip.GetTtl() - 1,
                                   queue == priority ? ip.GetDscp() : queue,
                                   ip.GetEcn()));
    }
    const uint32_t size = p->GetSize();
    if (priority == RoceNetDevice::CONTROL_QUEUE)
    {
        m_mmu->AdmitControl(size);
    }
    else
    {
        const char* reason = nullptr;
        if (!m_mmu->Admit(port, priority, size, &reason))
        {
            DoDrop(p, port, priority, reason);
            return;
        }
        if (dev->IsPfcEnabled(priority) && !dev->IsPauseRequested(priority) &&
            m_mmu->ShouldPause(port, priority))
        {
            NS_LOG_LOGIC("PAUSE port " << port << " priority " << unsigned(priority));
            dev->SetPfcPauseState(priority, true);
            m_pfcPauseTrace(port, priority, true);
        }
    }
    ++m_forwarded;
    if (roce && queue < RoceNetDevice::NUM_PRIORITIES)
    {
        ++m_forwardedPrio[queue];
    }
    // the MMU holds the packet on its ingress (port, priority) until it leaves the egress queue
    m_ports[egress]->Enqueue(p, queue, IngressTag(port, priority, queue));
}

void
RoceSwitch::PortDequeued(RoceNetDevice* dev, const Ptr<Packet>& p, uint8_t queue, uint32_t ingress)
{
    if (ingress == RoceNetDevice::NO_INGRESS)
    {
        return; // sent by the local NIC
    }
    const uint32_t size = p->GetSize();
    // the family's switches restart PINT's dt and byte term at every packet a port sends
    const auto samplePint = [this, &dev, &p]() {
        if (m_pintEveryPacket)
        {
            PintPort& st = m_pint[dev->GetPortIndex()];
            st.last = Simulator::Now();
            st.size = RoceWire::WireBytes(dev->GetFraming(), *p);
        }
    };
    if (queue == RoceNetDevice::CONTROL_QUEUE)
    {
        m_mmu->ReleaseControl(size);
        samplePint();
        return;
    }
    const uint32_t inPort = TagPort(ingress);
    const uint8_t inPrio = TagPriority(ingress, queue);
    m_mmu->Release(inPort, inPrio, size);
    RoceNetDevice* in = PeekPointer(m_ports[inPort]);
    if (in->IsPauseRequested(inPrio) && m_mmu->ShouldResume(inPort, inPrio))
    {
        NS_LOG_LOGIC("RESUME port " << inPort << " priority " << unsigned(inPrio));
        in->SetPfcPauseState(inPrio, false);
        m_pfcResumeTrace(inPort, inPrio, true);
    }
    const uint64_t qBytes = dev->GetQueueBytes(queue);
    const uint32_t egress = dev->GetPortIndex();
    if (m_mmu->ShouldMarkEcn(egress, qBytes))
    {
        const RoceIpView ip(*p);
        const uint8_t ecn = ip.GetEcn();
        if (ip.IsRoce() && (ecn == RoceIpUdpHeader::ECT0 || ecn == RoceIpUdpHeader::ECT1))
        {
            p->RemoveAtStart(RoceIpUdpHeader::SIZE);
            p->AddHeader(RoceIpRewrite(ip, ip.GetTtl(), ip.GetDscp(), RoceIpUdpHeader::CE));
            ++m_ecnMarks;
            ++m_portEcnMarks[egress];
            m_ecnTrace(p, egress, queue, qBytes);
        }
    }
    StampTelemetry(dev, p, egress);
    samplePint();
}

void
RoceSwitch::StampTelemetry(RoceNetDevice* dev, Ptr<Packet> p, uint32_t egress)
{
    constexpr uint32_t frontBytes = RoceIpUdpHeader::SIZE + RoceBthHeader::SIZE;
    if (p->GetSize() < frontBytes)
    {
        return;
    }
    // most packets carry no telemetry: its mode (BTH byte 4, bits 5, 4 and 3, as
    // RoceBthHeader::Deserialize reads it) is read from the copied byte, without the headers'
    // construction and deserialization
    uint8_t head[RoceIpUdpHeader::SIZE + 5];
    p->CopyData(head, sizeof(head));
    const uint8_t modeByte = head[RoceIpUdpHeader::SIZE + 4];
    const uint8_t peekMode =
        static_cast<uint8_t>(((modeByte >> 4) & 3) | (((modeByte >> 3) & 1) << 2));
    if (peekMode != RoceIntHeader::HOPS && peekMode != RoceIntHeader::HOPS_WIDE &&
        peekMode != RoceIntHeader::PINT)
    {
        return;
    }
    RoceIpBthPeek front;
    p->PeekHeader(front);
    const uint8_t mode = front.bth.GetTelemetry();
    const uint8_t op = front.bth.GetOpcode();
    const bool write =
        op == RoceBthHeader::RC_WRITE_FIRST || op == RoceBthHeader::RC_WRITE_MIDDLE ||
        op == RoceBthHeader::RC_WRITE_LAST || op == RoceBthHeader::RC_WRITE_ONLY ||
        op == RoceBthHeader::RC_WRITE_LAST_IMM || op == RoceBthHeader::RC_WRITE_ONLY_IMM;
    if ((mode != RoceIntHeader::HOPS && mode != RoceIntHeader::HOPS_WIDE &&
         mode != RoceIntHeader::PINT) ||
        !write || front.ip.GetDestinationPort() != RoceIpUdpHeader::ROCE_UDP_PORT)
    {
        return; // no telemetry, an ACK echoing it, or not a RoCE data packet
    }
    const uint32_t need = front.GetSerializedSize() +
                          (RoceBthHeader::HasReth(op) ? RoceRethHeader::SIZE : 0) +
                          (RoceBthHeader::HasImmediate(op) ? RoceImmHeader::SIZE : 0) +
                          (mode == RoceIntHeader::PINT ? 2 : 2 + RoceIntHeader::HOP_SIZE);
    if (p->GetSize() < need)
    {
        return;
    }
    uint64_t qlen = 0;
    for (uint8_t q = 0; q <= RoceNetDevice::CONTROL_QUEUE; ++q)
    {
        qlen += dev->GetQueueBytes(q);
    }
    const Time now = Simulator::Now();
    const uint64_t rate = dev->GetDataRate().GetBitRate();
    // this frame's bytes on the wire, as the port's link counts them (its Framing)
    const uint32_t wire = RoceWire::WireBytes(dev->GetFraming(), *p);
    RoceIpUdpHeader ip;
    RoceBthHeader bth;
    RoceRethHeader reth;
    RoceImmHeader imm;
    RoceIntHeader tel(static_cast<RoceIntHeader::Mode>(mode));
    p->RemoveHeader(ip);
    p->RemoveHeader(bth);
    const bool hasReth = RoceBthHeader::HasReth(op);
    const bool hasImm = RoceBthHeader::HasImmediate(op);
    if (hasReth)
    {
        p->RemoveHeader(reth);
    }
    if (hasImm)
    {
        p->RemoveHeader(imm);
    }
    p->RemoveHeader(tel);
    if (mode == RoceIntHeader::HOPS || mode == RoceIntHeader::HOPS_WIDE)
    {
        // internal invariant: RoceHelper::Check refuses link rates INT cannot carry first
        // (HOPS_WIDE carries any)
        NS_ABORT_MSG_IF(mode == RoceIntHeader::HOPS &&
                            RoceIntHeader::RateCode(rate) == RoceIntHeader::NO_RATE_CODE,
                        "RoceSwitch: INT cannot carry the link rate " << rate << " bit/s of port "
                                                                      << egress);
        // bytes on the wire before this frame (Ethernet: frames sent plus their FCS, preamble
        // and IFG), as the port's link times them
        const uint64_t txBytes = dev->GetTxWireBytes();
        tel.PushHopRate(static_cast<uint64_t>(now.GetNanoSeconds()), txBytes, qlen, rate);
    }
    else
    {
        PintPort& st = m_pint[egress];
        const double t = m_telemetryRtt.GetSeconds();
        const double dt = std::min(t, (now - st.last).GetSeconds());
        const double b = static_cast<double>(rate) / 8.0; // bytes/s
        double u = static_cast<double>(qlen) * dt / (b * t * t) + st.size / (b * t);
        if (st.u > 0)
        {
            u += st.u * (t - dt) / t;
        }
        st.u = u;
        st.last = now;
        st.size = wire;
        const uint16_t code = RoceIntHeader::EncodeUtilisation(u, m_pintLogBase);
        if (code > tel.GetPintCode())
        {
            tel.SetPintCode(code);
        }
    }
    p->AddHeader(tel);
    if (hasImm)
    {
        p->AddHeader(imm);
    }
    if (hasReth)
    {
        p->AddHeader(reth);
    }
    p->AddHeader(bth);
    p->AddHeader(ip);
}

void
RoceSwitch::PfcReceived(RoceSwitch* sw, uint32_t port, uint8_t priority, bool pause, uint16_t)
{
    if (pause)
    {
        sw->m_pfcPauseTrace(port, priority, false);
    }
    else
    {
        sw->m_pfcResumeTrace(port, priority, false);
    }
}

bool
RoceSwitch::SendLocal(Ptr<Packet> p)
{
    NS_LOG_FUNCTION(this << p);
    RoceIpUdpHeader ip;
    p->PeekHeader(ip);
    const uint8_t queue = ip.GetQueue();
    const uint32_t egress = GetEgressPort(ip);
    if (egress == NO_PORT)
    {
        DoDrop(p, NO_PORT, queue, "NoRoute");
        return false;
    }
    if (!ip.IsRoce())
    {
        return m_ports[egress]->EnqueueIp(p, queue);
    }
    m_ports[egress]->Enqueue(p, queue, RoceNetDevice::NO_INGRESS);
    return true;
}

uint32_t
RoceSwitch::GetNCounterPorts() const
{
    return GetNPorts();
}

void
RoceSwitch::ReadPortCounters(uint32_t port, PortCounterValues* c) const
{
    static_assert(PortCounterValues::QUEUES == RoceNetDevice::NUM_PRIORITIES + 1,
                  "a queue per priority and the control queue");
    Ptr<RoceNetDevice> dev = GetPort(port);
    *c = PortCounterValues();
    c->txBytes = dev->GetTxBytes();
    c->txPackets = dev->GetTxPackets();
    for (uint8_t q = 0; q <= RoceNetDevice::NUM_PRIORITIES; ++q)
    {
        c->queueBytes[q] = dev->GetQueueBytes(q);
        if (q < RoceNetDevice::NUM_PRIORITIES)
        {
            c->pausedNs += dev->GetPausedTime(q).GetNanoSeconds();
        }
    }
    c->ecnMarks = GetPortEcnMarks(port);
    c->drops = GetPortDrops(port);
    c->pausedMask = dev->GetPausedMask();
    c->busyNs = dev->GetTxBusyTime().GetNanoSeconds();
    c->dataAtNs = dev->GetLastDataTxTime().GetNanoSeconds();
}

} // namespace ns3
