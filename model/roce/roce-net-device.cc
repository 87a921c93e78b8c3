/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-net-device.h"

#include "roce-channel.h"
#include "roce-header.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/predicate-checker.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstring>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");

namespace
{

/**
 * Fires a trace source of every frame only when a sink is connected: most runs connect none,
 * and the call with its Ptr copies cost about 100 instructions a frame hop.
 * \param trace the source \param args its arguments
 */
template <typename Trace, typename... Args>
inline void
Fire(const Trace& trace, Args&&... args)
{
    if (!trace.IsEmpty())
    {
        trace(std::forward<Args>(args)...);
    }
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

namespace
{
const uint16_t IPV4_ETHERTYPE = 0x0800; //!< IPv4 ethertype
/// 802.1Qbb PFC destination (MAC control multicast)
const Mac48Address PFC_DESTINATION("01:80:c2:00:00:01");
__extension__ typedef __int128 Int128; //!< exact time arithmetic

/**
 * \ingroup training-net
 * DataRate's checker that refuses 0 bit/s, a link that never sends: a user's
 * --ns3::RoceNetDevice::DataRate=0bps is refused by the attribute check in one line instead
 * of reaching SetDataRate's invariant when the device is made.
 */
Ptr<const AttributeChecker>
MakePositiveDataRateChecker()
{
    return MakePredicateChecker<DataRateValue, DataRateChecker>(
        "ns3::DataRateValue",
        [](const DataRateValue& rate) { return rate.Get().GetBitRate() > 0; },
        [] { return std::string("a data rate above 0 bit/s"); });
}

/**
 * \ingroup training-net
 * The Ethernet header of data frames as 14 raw bytes, with ns3::EthernetHeader's TypeId (no
 * preamble): metadata, printing and pcap see an EthernetHeader, without its per-byte field
 * reads and writes or, not derived from it, the construction of its fields at every frame.
 */
class RoceEthernetHeader : public Header
{
  public:
    TypeId GetInstanceTypeId() const override
    {
        return EthernetHeader::GetTypeId();
    }

    /**
     * \param bytes the 14 header bytes (destination, source, ethertype)
     */
    explicit RoceEthernetHeader(const uint8_t* bytes)
    {
        std::memcpy(m_bytes, bytes, RoceNetDevice::ETH_HEADER);
    }

    /**
     * Fill the 14 header bytes.
     * \param dst destination \param src source \param type ethertype \param out 14 bytes
     */
    static void Make(Mac48Address dst, Mac48Address src, uint16_t type, uint8_t* out)
    {
        dst.CopyTo(out);
        src.CopyTo(out + 6);
        out[12] = static_cast<uint8_t>(type >> 8);
        out[13] = static_cast<uint8_t>(type);
    }

    /** \return the ethertype */
    uint16_t GetType() const
    {
        return static_cast<uint16_t>((m_bytes[12] << 8) | m_bytes[13]);
    }

    /** \return the source MAC */
    Mac48Address GetSourceMac() const
    {
        Mac48Address a;
        a.CopyFrom(m_bytes + 6);
        return a;
    }

    void Print(std::ostream& os) const override
    {
        EthernetHeader h(false);
        Mac48Address dst;
        dst.CopyFrom(m_bytes);
        h.SetDestination(dst);
        h.SetSource(GetSourceMac());
        h.SetLengthType(GetType());
        h.Print(os);
    }

    uint32_t GetSerializedSize() const override
    {
        return RoceNetDevice::ETH_HEADER;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.Write(m_bytes, RoceNetDevice::ETH_HEADER);
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        i.Read(m_bytes, RoceNetDevice::ETH_HEADER); // only when bytes are seen: a pcap, a test
        return RoceNetDevice::ETH_HEADER;
    }

  private:
    uint8_t m_bytes[RoceNetDevice::ETH_HEADER]{}; //!< destination, source, ethertype
};
} // namespace

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute("Address",
                          "MAC address of the device",
                          Mac48AddressValue(Mac48Address("ff:ff:ff:ff:ff:ff")),
                          MakeMac48AddressAccessor(&RoceNetDevice::m_address),
                          MakeMac48AddressChecker())
            .AddAttribute(
                "DataRate",
                "Link rate",
                DataRateValue(DataRate("100Gbps")),
                MakeDataRateAccessor(&RoceNetDevice::SetDataRate, &RoceNetDevice::GetDataRate),
                MakePositiveDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest L3 packet (IPv4 header .. ICRC) in bytes; 4096-byte RoCE "
                          "payload + 60 bytes of headers fit in the default",
                          UintegerValue(4200),
                          MakeUintegerAccessor(&RoceNetDevice::SetMtu, &RoceNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>(68))
            .AddAttribute("Framing",
                          "How the link counts a frame's bytes: \"ethernet\" (RoCEv2 on "
                          "Ethernet: + FCS, preamble/SFD and IFG) or \"hpcc-family\" (the HPCC "
                          "family simulators' PPP packets, RoceWire::WireBytes); the frames "
                          "sent and their pcap are the same under both",
                          EnumValue(RoceWire::ETHERNET),
                          MakeEnumAccessor(&RoceNetDevice::m_framing),
                          MakeEnumChecker(RoceWire::ETHERNET,
                                          "ethernet",
                                          RoceWire::HPCC_FAMILY,
                                          "hpcc-family"))
            .AddAttribute("PfcEnableMask",
                          "Bit p set = priority p is lossless (PFC enabled): it is paused by "
                          "received PFC frames and may generate them",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&RoceNetDevice::m_pfcEnableMask),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("PauseQuanta",
                          "Quanta (512 bit times) carried by generated PAUSE frames",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&RoceNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("IpQueueLimit",
                          "Bytes of ordinary IPv4 packets (ns-3's internet stack) the node may "
                          "hold queued on this device; beyond it they are dropped (IpQueueFull)",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&RoceNetDevice::m_ipQueueLimit),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ReceiveErrorModel",
                          "Error model applied to every received frame (incl. PFC)",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A frame starts transmission (full frame)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "An L3 packet was received (Ethernet header removed)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Enqueue",
                            "An L3 packet entered queue (0..7 data, 8 control)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_enqueueTrace),
                            "ns3::RoceNetDevice::QueueTracedCallback")
            .AddTraceSource("Dequeue",
                            "An L3 packet left queue (0..7 data, 8 control, 9 pull source)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_dequeueTrace),
                            "ns3::RoceNetDevice::QueueTracedCallback")
            .AddTraceSource("Drop",
                            "A packet or frame was dropped by the device, with the reason",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_dropTrace),
                            "ns3::RoceNetDevice::DropTracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame was queued for sending (priority, pause, quanta)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcTxTrace),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received (priority, pause, quanta), one call per "
                            "enabled class",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcRxTrace),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PhyTxBegin",
                            "A frame starts on the wire",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEnd",
                            "A frame's last bit left",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_phyTxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxEnd",
                            "A frame was received completely",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_phyRxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Sniffer",
                            "Full frames sent and received (for pcap)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice()
{
    NS_LOG_FUNCTION(this);
}

RoceNetDevice::~RoceNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
RoceNetDevice::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    if (m_address == Mac48Address::GetBroadcast())
    {
        m_address = Mac48Address::Allocate(); // created without the helper
    }
    NetDevice::DoInitialize();
}

void
RoceNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        m_pauseExpiry[p].Cancel();
        m_pauseRefresh[p].Cancel();
    }
    NS_ASSERT_MSG(m_waiting == WaitingOfQueues(), "m_waiting out of step with the queues");
    for (auto& q : m_queues)
    {
        q.clear();
    }
    m_pfcQueue.clear();
    m_waiting = 0;
    m_current = nullptr;
    m_txEndEvent = nullptr; // a waiting transmission end keeps its own reference
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    m_owner = nullptr;
    m_fabricRx = FabricReceiveCallback();
    m_dequeueHook = DequeueHook();
    m_pullSource = nullptr;
    m_callbackSource.pull = PullCallback();
    m_localSend = LocalSendCallback();
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscRxCallback = NetDevice::PromiscReceiveCallback();
    NetDevice::DoDispose();
}

bool
RoceNetDevice::Attach(Ptr<RoceChannel> ch)
{
    NS_LOG_FUNCTION(this << ch);
    m_channel = ch;
    ch->Attach(this);
    m_linkUp = true;
    m_linkChange();
    return true;
}

void
RoceNetDevice::SetDataRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    // internal invariant: RoceHelper::Check refuses link rates below 1 Gbit/s first, the
    // attribute's checker 0 bit/s
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "RoceNetDevice: DataRate must be > 0");
    m_rate = rate;
    m_stepsPerSecond = Seconds(1).GetTimeStep();
    m_wireCarry = 0;
}

DataRate
RoceNetDevice::GetDataRate() const
{
    return m_rate;
}

void
RoceNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    m_receiveErrorModel = em;
}

Time
RoceNetDevice::GetWireTime(uint32_t l3Bytes) const
{
    const uint64_t bits = uint64_t(l3Bytes + ETH_HEADER + WIRE_OVERHEAD) * 8;
    const Int128 steps = static_cast<Int128>(bits) * m_stepsPerSecond;
    const uint64_t rate = m_rate.GetBitRate();
    return Time(static_cast<int64_t>((steps + rate / 2) / rate));
}

Time
RoceNetDevice::NextFrameTime(uint32_t wireBytes)
{
    // A frame lasts a whole number of time steps. Rounding each one alone (a 1106-byte
    // frame at 100 Gb/s is 88.48 ns) made long transfers 0.5% short; the rounding error is
    // carried to the next frame instead, so any run of frames takes its exact time to within
    // one step, and a frame alone is rounded to the nearest step as before.
    const uint64_t bits = uint64_t(wireBytes) * 8;
    const Int128 rate = m_rate.GetBitRate();
    const Int128 exact = static_cast<Int128>(bits) * m_stepsPerSecond + m_wireCarry;
    const Int128 rounded = exact + rate / 2;
    // the same quotient in 64 bits when it fits (every frame in practice): a 128-bit
    // division costs about 60 instructions more
    const Int128 steps =
        rounded >= 0 && rounded <= static_cast<Int128>(UINT64_MAX)
            ? static_cast<Int128>(static_cast<uint64_t>(rounded) / static_cast<uint64_t>(rate))
            : rounded / rate;
    m_wireCarry = static_cast<int64_t>(exact - steps * rate); // in [-rate/2, rate/2)
    return Time(static_cast<int64_t>(steps));
}

Time
RoceNetDevice::QuantaToTime(uint16_t quanta) const
{
    const Int128 steps = static_cast<Int128>(quanta) * 512 * m_stepsPerSecond;
    const uint64_t rate = m_rate.GetBitRate();
    return Time(static_cast<int64_t>((steps + rate - 1) / rate));
}

Ptr<RoceNetDevice>
RoceNetDevice::GetPeer() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

// ---------------------------------------------------------------- transmit

void
RoceNetDevice::Enqueue(Ptr<Packet> p, uint8_t queue, uint32_t ingressTag, uint8_t heldBy)
{
    NS_LOG_FUNCTION(this << p << unsigned(queue) << ingressTag << unsigned(heldBy));
    NS_ASSERT(queue <= CONTROL_QUEUE);
    NS_ASSERT(heldBy == NUM_PRIORITIES || queue == CONTROL_QUEUE);
    m_queues[queue].push_back(Item{p, ingressTag, heldBy});
    SetWaiting(static_cast<uint16_t>(1u << queue), true);
    m_queueBytes[queue] += p->GetSize();
    Fire(m_enqueueTrace, p, queue);
    if (!m_busy)
    {
        TryTransmit();
    }
}

bool
RoceNetDevice::EnqueueIp(Ptr<Packet> p, uint8_t priority)
{
    NS_LOG_FUNCTION(this << p << unsigned(priority));
    NS_ASSERT(priority < NUM_PRIORITIES);
    if (IsPfcEnabled(priority))
    {
        NS_LOG_WARN("RoceNetDevice: IPv4 packet on lossless priority " << unsigned(priority)
                                                                       << " refused");
        m_dropTrace(p, "IpOnLossless");
        return false;
    }
    if (m_ipQueueBytes + p->GetSize() > m_ipQueueLimit)
    {
        m_dropTrace(p, "IpQueueFull");
        return false;
    }
    m_ipQueueBytes += p->GetSize();
    Enqueue(p, priority, LOCAL_IP);
    return true;
}

bool
RoceNetDevice::DeliverUp(Ptr<Packet> p)
{
    NS_LOG_FUNCTION(this << p);
    if (m_rxCallback.IsNull())
    {
        return false;
    }
    m_rxCallback(this, p, IPV4_ETHERTYPE, m_peerKnown ? m_peerAddress : m_address);
    return true;
}

void
RoceNetDevice::Kick()
{
    if (!m_busy)
    {
        TryTransmit();
    }
}

void
RoceNetDevice::TryTransmit()
{
    if (m_busy || !m_linkUp)
    {
        return;
    }
    // asked for now, read when the frame starts: the frame's choice overlaps its miss
    __builtin_prefetch(PeekPointer(m_channel));
    if (m_waiting & PFC_WAITING)
    {
        Ptr<Packet> frame = m_pfcQueue.front();
        m_pfcQueue.pop_front();
        SetWaiting(PFC_WAITING, !m_pfcQueue.empty());
        StartFrame(frame, RoceWire::PfcWireBytes(m_framing, frame->GetSize()), true);
        return;
    }
    uint8_t queue = NUM_PRIORITIES + 1; // none
    // a held head waits for its priority's RESUME and holds the packets behind it (one FIFO,
    // as a NIC's single ACK ring)
    const std::deque<Item>& control = m_queues[CONTROL_QUEUE];
    if (((m_waiting >> CONTROL_QUEUE) & 1) && (control.front().heldBy >= NUM_PRIORITIES ||
                                               !((m_pausedMask >> control.front().heldBy) & 1)))
    {
        queue = CONTROL_QUEUE;
    }
    else
    {
        const uint8_t slots = NUM_PRIORITIES + 1; // 8 data queues + pull source
        const uint32_t eligible = m_waiting & ~static_cast<uint32_t>(m_pausedMask);
        for (uint8_t k = 0; k < slots; ++k)
        {
            uint8_t s = m_rrNext + k;
            if (s >= slots)
            {
                s -= slots;
            }
            if (s < NUM_PRIORITIES)
            {
                if ((eligible >> s) & 1)
                {
                    queue = s;
                    m_rrNext = s + 1 == slots ? 0 : s + 1;
                    break;
                }
            }
            else if (m_pullSource)
            {
                Ptr<Packet> p = m_pullSource->PullFrom(m_pullPort, m_pausedMask);
                if (p)
                {
                    m_rrNext = 0;
                    Fire(m_dequeueTrace, p, NUM_PRIORITIES + 1);
                    m_lastDataTx = Simulator::Now();
                    StartData(p);
                    return;
                }
            }
        }
    }
    if (queue > CONTROL_QUEUE)
    {
        return; // nothing eligible: idle
    }
    Item item = m_queues[queue].front();
    m_queues[queue].pop_front();
    SetWaiting(static_cast<uint16_t>(1u << queue), !m_queues[queue].empty());
    Ptr<Packet> p = item.packet;
    m_queueBytes[queue] -= p->GetSize();
    if (item.tag == LOCAL_IP)
    {
        m_ipQueueBytes -= p->GetSize();
        item.tag = NO_INGRESS; // sent by this node, as the NIC's packets
    }
    Fire(m_dequeueTrace, p, queue);
    if (queue < CONTROL_QUEUE)
    {
        m_lastDataTx = Simulator::Now();
    }
    if (m_owner)
    {
        m_owner->PortDequeued(this, p, queue, item.tag);
    }
    else if (!m_dequeueHook.IsNull())
    {
        m_dequeueHook(this, p, queue, item.tag);
    }
    StartData(p);
}

void
RoceNetDevice::StartData(Ptr<Packet> p)
{
    const uint32_t wire = RoceWire::WireBytes(m_framing, *p);
    // The Ethernet header is the same bytes on every frame of a cable and nothing in the
    // fabric reads it: it is written only when something sees the frame's bytes (a pcap, a
    // sniffer or frame trace at either end, an error model, a cable to another rank), which
    // saves its AddHeader here (about 390 instructions) and its copy and cut at the peer.
    const RoceNetDevice* peer = m_channel->CarriesBareFrames() && !FrameBytesSeenOnSend()
                                    ? m_channel->PeekPeer(this)
                                    : nullptr;
    const bool ethernet = !peer || peer->FrameBytesSeenOnReceive();
    if (ethernet)
    {
        AddEthernet(p);
    }
    StartFrame(p, wire, ethernet);
}

void
RoceNetDevice::AddEthernet(Ptr<Packet> p)
{
    if (!m_peerKnown || !(m_ethSource == m_address))
    {
        if (!m_peerKnown)
        {
            Ptr<RoceNetDevice> peer = GetPeer();
            if (peer)
            {
                m_peerAddress = peer->m_address;
                m_peerKnown = true;
            }
        }
        m_ethSource = m_address;
        RoceEthernetHeader::Make(m_peerAddress, m_address, IPV4_ETHERTYPE, m_ethHeader);
    }
    p->AddHeader(RoceEthernetHeader(m_ethHeader));
}

void
RoceNetDevice::StartFrame(Ptr<Packet> frame, uint32_t wireBytes, bool ethernet)
{
    NS_LOG_FUNCTION(this << frame << wireBytes << ethernet);
    m_busy = true;
    // only for a PhyTxEnd sink: its drop at the transmission end touched the packet, a cache miss
    m_current = m_phyTxEndTrace.IsEmpty() ? nullptr : frame;
    const uint32_t size = frame->GetSize() + (ethernet ? 0 : ETH_HEADER);
    const Time txTime = NextFrameTime(wireBytes);
    m_txWireBytes += wireBytes;
    m_txBusyTotal += txTime;
    m_txEnd = Simulator::Now() + txTime;
    m_txBytes += size;
    ++m_txPackets;
    Fire(m_macTxTrace, frame);
    Fire(m_snifferTrace, frame);
    Fire(m_phyTxBeginTrace, frame);
    m_channel->TransmitStart(frame, this, txTime, ethernet);
    if (!m_txEndEvent)
    {
        m_txEndEvent = Ptr<EventImpl>(MakeEvent(&RoceNetDevice::TransmitComplete, this), false);
    }
    Simulator::Schedule(txTime, m_txEndEvent);
}

Time
RoceNetDevice::GetTxBusyTime() const
{
    return m_busy ? m_txBusyTotal - (m_txEnd - Simulator::Now()) : m_txBusyTotal;
}

void
RoceNetDevice::TransmitComplete()
{
    NS_LOG_FUNCTION(this);
    m_busy = false;
    if (m_current)
    {
        Fire(m_phyTxEndTrace, m_current);
        m_current = nullptr;
    }
    TryTransmit();
}

// ---------------------------------------------------------------- PFC

void
RoceNetDevice::SendPfcFrame(uint8_t priority, uint16_t quanta)
{
    NS_LOG_FUNCTION(this << unsigned(priority) << quanta);
    NS_ASSERT(priority < NUM_PRIORITIES);
    Ptr<Packet> frame = Create<Packet>();
    RocePfcHeader pfc;
    pfc.SetQuanta(priority, quanta);
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(PFC_DESTINATION);
    eth.SetLengthType(RocePfcHeader::ETHERTYPE);
    frame->AddHeader(eth);
    m_pfcQueue.push_back(frame);
    SetWaiting(PFC_WAITING, true);
    m_pfcTxTrace(priority, quanta > 0, quanta);
    TryTransmit();
}

void
RoceNetDevice::SetPfcPauseState(uint8_t priority, bool pause)
{
    NS_LOG_FUNCTION(this << unsigned(priority) << pause);
    if (!IsPfcEnabled(priority) || IsPauseRequested(priority) == pause)
    {
        return;
    }
    if (pause)
    {
        m_pauseRequestMask |= static_cast<uint8_t>(1u << priority);
        SendPfcFrame(priority, m_pauseQuanta);
        m_pauseRefresh[priority] = Simulator::Schedule(QuantaToTime(m_pauseQuanta) / 2,
                                                       &RoceNetDevice::RefreshPause,
                                                       this,
                                                       priority);
    }
    else
    {
        m_pauseRequestMask &= static_cast<uint8_t>(~(1u << priority));
        m_pauseRefresh[priority].Cancel();
        SendPfcFrame(priority, 0);
    }
}

void
RoceNetDevice::RefreshPause(uint8_t priority)
{
    NS_LOG_FUNCTION(this << unsigned(priority));
    if (!IsPauseRequested(priority))
    {
        return;
    }
    SendPfcFrame(priority, m_pauseQuanta);
    m_pauseRefresh[priority] = Simulator::Schedule(QuantaToTime(m_pauseQuanta) / 2,
                                                   &RoceNetDevice::RefreshPause,
                                                   this,
                                                   priority);
}

void
RoceNetDevice::ReceivePfc(Ptr<Packet> frame)
{
    RocePfcHeader pfc;
    frame->RemoveHeader(pfc);
    if (pfc.GetOpcode() != RocePfcHeader::OPCODE)
    {
        m_dropTrace(frame, "UnknownMacControl");
        return;
    }
    for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        if (!pfc.IsEnabled(p))
        {
            continue;
        }
        const uint16_t q = pfc.GetQuanta(p);
        m_pfcRxTrace(p, q > 0, q);
        if (!IsPfcEnabled(p))
        {
            continue; // lossy class here: ignore
        }
        m_pauseExpiry[p].Cancel();
        if (q == 0)
        {
            SetPaused(p, false);
        }
        else
        {
            SetPaused(p, true);
            m_pauseExpiry[p] =
                Simulator::Schedule(QuantaToTime(q), &RoceNetDevice::PauseExpired, this, p);
        }
    }
}

void
RoceNetDevice::PauseExpired(uint8_t priority)
{
    NS_LOG_FUNCTION(this << unsigned(priority));
    SetPaused(priority, false);
}

void
RoceNetDevice::SetPaused(uint8_t priority, bool paused)
{
    const uint8_t bit = static_cast<uint8_t>(1u << priority);
    const bool was = m_pausedMask & bit;
    if (was == paused)
    {
        return;
    }
    if (paused)
    {
        m_pausedMask |= bit;
        m_pausedSince[priority] = Simulator::Now();
    }
    else
    {
        m_pausedMask &= static_cast<uint8_t>(~bit);
        m_pausedTotal[priority] += Simulator::Now() - m_pausedSince[priority];
        if (!m_busy)
        {
            TryTransmit();
        }
    }
}

bool
RoceNetDevice::IsPaused(uint8_t priority) const
{
    return (m_pausedMask >> (priority & 7)) & 1;
}

Time
RoceNetDevice::GetPausedTime(uint8_t priority) const
{
    Time t = m_pausedTotal[priority & 7];
    if (IsPaused(priority))
    {
        t += Simulator::Now() - m_pausedSince[priority & 7];
    }
    return t;
}

void
RoceNetDevice::VisitQueue(uint8_t queue,
                          const std::function<void(Ptr<const Packet>, uint32_t)>& visit) const
{
    for (const Item& item : m_queues[queue])
    {
        visit(item.packet, item.tag);
    }
}

// ---------------------------------------------------------------- receive

void
RoceNetDevice::Receive(Ptr<Packet> frame, bool ethernet)
{
    NS_LOG_FUNCTION(this << frame << ethernet);
    // a frame sent bare is an IPv4 packet, and nothing here sees its bytes (StartData)
    uint8_t eth[ETH_HEADER] = {};
    if (ethernet)
    {
        if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
        {
            m_dropTrace(frame, "ErrorModel");
            return;
        }
        Fire(m_snifferTrace, frame);
        Fire(m_phyRxEndTrace, frame);
        // copied and cut, not a header deserialized: about 220 instructions less a frame
        frame->CopyData(eth, ETH_HEADER);
        frame->RemoveAtStart(ETH_HEADER);
        const uint16_t type = static_cast<uint16_t>((eth[12] << 8) | eth[13]);
        if (type == RocePfcHeader::ETHERTYPE)
        {
            ReceivePfc(frame);
            return;
        }
        if (type != IPV4_ETHERTYPE)
        {
            m_dropTrace(frame, "UnknownEthertype");
            return;
        }
    }
    Fire(m_macRxTrace, frame);
    if (m_owner)
    {
        m_owner->PortReceive(this, frame, m_portIndex);
    }
    else if (!m_fabricRx.IsNull())
    {
        m_fabricRx(this, frame, m_portIndex);
    }
    else if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this,
                     frame,
                     IPV4_ETHERTYPE,
                     ethernet ? RoceEthernetHeader(eth).GetSourceMac() : GetPeer()->m_address);
    }
}

void
RoceNetDevice::SetFabricReceiveCallback(FabricReceiveCallback cb)
{
    m_fabricRx = cb;
}

void
RoceNetDevice::SetDequeueHook(DequeueHook cb)
{
    m_dequeueHook = cb;
}

void
RoceNetDevice::SetLocalSendCallback(LocalSendCallback cb)
{
    m_localSend = cb;
}

void
RoceNetDevice::SetPullCallback(PullCallback cb)
{
    const bool set = !cb.IsNull();
    m_callbackSource.pull = cb;
    SetPullSource(set ? &m_callbackSource : nullptr, 0);
}

// ---------------------------------------------------------------- NetDevice

void
RoceNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RoceNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RoceNetDevice::GetChannel() const
{
    return m_channel;
}

void
RoceNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RoceNetDevice::GetAddress() const
{
    return m_address;
}

bool
RoceNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
RoceNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RoceNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChange.ConnectWithoutContext(callback);
}

Address
RoceNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

Address
RoceNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
RoceNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
RoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << dest << protocolNumber);
    if (protocolNumber != IPV4_ETHERTYPE || !m_linkUp)
    {
        m_dropTrace(packet, "NotIpv4");
        return false;
    }
    if (packet->GetSize() < RoceIpUdpHeader::SIZE)
    {
        m_dropTrace(packet, "TooShort"); // no ports to route by
        return false;
    }
    if (packet->GetSize() > m_mtu)
    {
        m_dropTrace(packet, "Mtu");
        return false;
    }
    RoceIpUdpHeader ip;
    packet->PeekHeader(ip);
    if (ip.IsRoce())
    {
        Enqueue(packet, ip.GetQueue(), NO_INGRESS);
        return true;
    }
    if (!m_localSend.IsNull())
    {
        return m_localSend(packet);
    }
    return EnqueueIp(packet, ip.GetQueue());
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
RoceNetDevice::GetNode() const
{
    return m_node;
}

void
RoceNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

void
RoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
RoceNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscRxCallback = cb;
}

} // namespace ns3
