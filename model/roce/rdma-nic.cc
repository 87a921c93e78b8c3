/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic (contract in rdma-nic.h). Over 1,000 lines for a reason: the NIC's transport is one
 * state machine over its queue pairs (posting, the send scheduler across ports, data packets,
 * ACK/NACK, go-back-N timers, failure), and splitting it would spread one queue pair's state
 * over several files. The congestion controls, their parameters included, live
 * in rdma-cc and its subclasses, the queue pair in rdma-queue-pair.
 */
#include "rdma-nic.h"

#include "rdma-cc-registry.h"
#include "rdma-dctcp.h"
#include "rdma-hpcc.h"
#include "rdma-timely.h"
#include "roce-header.h"
#include "roce-net-device.h"
#include "roce-switch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/predicate-checker.h"
#include "ns3/simple-ref-count.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");

NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
constexpr uint64_t PSN_MASK = 0xffffff;
/// Outstanding packets per QP are kept below half the 24-bit PSN space.
constexpr uint64_t MAX_OUTSTANDING = 1ULL << 22;

/**
 * Expand a 24-bit PSN to 64 bits, taking the value closest to a reference.
 * \param wire 24-bit PSN
 * \param ref 64-bit reference
 * \return the 64-bit PSN
 */
inline uint64_t
ExpandPsn(uint32_t wire, uint64_t ref)
{
    int64_t d = static_cast<int64_t>((wire - ref) & PSN_MASK);
    if (d >= static_cast<int64_t>(1 << 23))
    {
        d -= static_cast<int64_t>(1 << 24);
    }
    int64_t r = static_cast<int64_t>(ref) + d;
    return r < 0 ? 0 : static_cast<uint64_t>(r);
}

} // namespace

/**
 * Everything the NIC reads at the front of a received packet, parsed in one PeekHeader:
 * IPv4/UDP, BTH, then RETH or AETH as the opcode says. Receive-only: the bytes are the ones
 * written by RoceIpUdpHeader, RoceBthHeader, RoceRethHeader and RoceAethHeader (Peek does not
 * touch the packet metadata, so this also works with Packet::EnablePrinting). Of IPv4/UDP
 * only the fields the NIC uses are read, and the headers after the BTH are constructed only
 * when the packet has them: each Header costs about 55 instructions to destroy (the ns-3
 * libraries' log checks), and a middle data packet needs the BTH alone.
 */
class RdmaRxHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaRxHeader")
                                .SetParent<Header>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<RdmaRxHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        os << "IPv4 from " << Ipv4Address(source) << " ECN " << unsigned(ecn) << " ";
        bth.Print(os);
    }

    uint32_t GetSerializedSize() const override
    {
        return RoceIpUdpHeader::SIZE + RoceBthHeader::SIZE + (reth ? RoceRethHeader::SIZE : 0) +
               (imm ? RoceImmHeader::SIZE : 0) + (aeth ? RoceAethHeader::SIZE : 0) +
               (telemetry ? telemetry->GetSerializedSize() : 0);
    }

    void Serialize(Buffer::Iterator) const override
    {
        // internal invariant: this file's NIC only peeks it; the IPv4/UDP fields are not all
        // kept, so it cannot be written back
        NS_ABORT_MSG("RdmaRxHeader is read, never written");
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        // of IPv4/UDP the NIC needs the source and the ECN codepoint, read where
        // RoceIpUdpHeader::Deserialize reads them (a whole one costs about 230 instructions)
        i.Next(1);
        ecn = i.ReadU8() & 3;
        i.Next(10);
        source = i.ReadNtohU32();
        i.Next(RoceIpUdpHeader::SIZE - 16);
        bth.Deserialize(i);
        i.Next(RoceBthHeader::SIZE);
        const uint8_t op = bth.GetOpcode();
        reth.reset();
        imm.reset();
        aeth.reset();
        telemetry.reset();
        if (RoceBthHeader::HasReth(op))
        {
            reth.emplace().Deserialize(i);
            i.Next(RoceRethHeader::SIZE);
        }
        if (RoceBthHeader::HasImmediate(op))
        {
            imm.emplace().Deserialize(i);
            i.Next(RoceImmHeader::SIZE);
        }
        if (RoceBthHeader::HasAeth(op))
        {
            aeth.emplace().Deserialize(i);
            i.Next(RoceAethHeader::SIZE);
        }
        const auto mode = static_cast<RoceIntHeader::Mode>(bth.GetTelemetry());
        if (mode != RoceIntHeader::NONE)
        {
            telemetry.emplace(mode).Deserialize(i);
        }
        return GetSerializedSize();
    }

    uint32_t source{0};                     //!< IPv4 source address, host order
    uint8_t ecn{0};                         //!< IPv4 ECN codepoint
    RoceBthHeader bth;                      //!< BTH
    std::optional<RoceRethHeader> reth;     //!< RETH, if the opcode has one
    std::optional<RoceAethHeader> aeth;     //!< AETH, if the opcode has one
    std::optional<RoceImmHeader> imm;       //!< ImmDt, if the opcode has one
    std::optional<RoceIntHeader> telemetry; //!< telemetry, if the BTH says it carries any
};

namespace
{
/**
 * Headroom reservation: added and removed at once when a packet is created (in front of the
 * NIC's headers, by the same AddHeader: RdmaTxHeaders::Add), so that the
 * packet's buffer is allocated once with room in front for all the headers the NIC and the
 * devices add later (ns-3's Buffer reallocates on every AddHeader that does not fit in front,
 * and a freshly created packet usually has no room). The buffer, now larger than the
 * largest header stack, also goes back to ns-3's buffer free list when the packet dies, so
 * later packets start with the room already there. Never on the wire.
 */
class RdmaHeadroomHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 128; //!< >= Ethernet + IPv4/UDP + BTH + RETH (70)

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaHeadroomHeader")
                                .SetParent<Header>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<RdmaHeadroomHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        os << "headroom";
    }

    uint32_t GetSerializedSize() const override
    {
        return SIZE;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        // nothing to write: the bytes are removed before anything reads them
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        return SIZE;
    }

    /** \param p a packet just created: reserve the headroom in front of it */
    static void Reserve(const Ptr<Packet>& p)
    {
        RdmaHeadroomHeader h;
        p->AddHeader(h);
        p->RemoveHeader(h);
    }
};
} // namespace

/**
 * The headers a NIC puts in front of a packet, written in one AddHeader: ns-3's AddHeader
 * costs about 390 instructions whatever the header's size (the buffer, the byte tags and the
 * metadata's type look-up), and a data packet has two to five headers. The bytes are those of
 * the headers added one by one, outermost first. With the packet metadata on
 * (Packet::EnablePrinting, an ASCII trace) the headers are added one by one instead, so that
 * the metadata lists each (Add).
 */
class RdmaTxHeaders : public Header
{
  public:
    static constexpr uint32_t MAX = 6; //!< headers a stack holds

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaTxHeaders")
                                .SetParent<Header>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<RdmaTxHeaders>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        for (uint32_t k = m_n; k-- > 0;)
        {
            m_h[k]->Print(os);
            os << (k > 0 ? " " : "");
        }
    }

    uint32_t GetSerializedSize() const override
    {
        return m_headroom + m_size;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.Next(m_headroom); // cut at once: nothing reads these bytes
        for (uint32_t k = m_n; k-- > 0;)
        {
            m_h[k]->Serialize(i);
            i.Next(m_h[k]->GetSerializedSize());
        }
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        return 0; // written, never read: the receiver reads the headers themselves
    }

    /**
     * \param h the next header towards the front (the innermost first, as AddHeader would
     * take them); it must live until Add
     */
    void Push(const Header& h)
    {
        NS_ASSERT(m_n < MAX);
        m_h[m_n++] = &h;
        m_size += h.GetSerializedSize();
    }

    /**
     * \param p a packet just created: the headers go in front of it, with the headroom of
     * RdmaHeadroomHeader in front of them reserved by the same AddHeader (written and cut)
     * \param itemized whether the packet metadata is on (the headers one by one)
     */
    void Add(const Ptr<Packet>& p, bool itemized)
    {
        if (!itemized)
        {
            m_headroom = m_size < RdmaHeadroomHeader::SIZE ? RdmaHeadroomHeader::SIZE - m_size : 0;
            p->AddHeader(*this);
            p->RemoveAtStart(m_headroom);
            m_headroom = 0;
            return;
        }
        RdmaHeadroomHeader::Reserve(p);
        for (uint32_t k = 0; k < m_n; ++k)
        {
            p->AddHeader(*m_h[k]);
        }
    }

    /**
     * Whether the packet metadata is on. It cannot change once a packet has had a header
     * without it (PacketMetadata::Enable refuses then), so a NIC asks once, when it builds its
     * first packet.
     * \return true if the packet metadata lists a packet's headers
     */
    static bool Itemized()
    {
        Ptr<Packet> probe = Create<Packet>();
        probe->AddHeader(RoceCnpHeader());
        return probe->BeginItem().HasNext();
    }

  private:
    const Header* m_h[MAX]{}; //!< the headers, innermost first
    uint32_t m_n{0};          //!< how many
    uint32_t m_size{0};       //!< their bytes
    uint32_t m_headroom{0};   //!< bytes reserved in front of them while Add writes them
};

namespace
{
/// The CongestionControl values: a short name of RdmaCcRegistry, or the TypeId name of
/// ns3::RdmaCongestionControl or a subclass (RdmaCcRegistry::Resolve). Short names are checked
/// by the table alone, since the classes they name may register after the NIC.
Ptr<const AttributeChecker>
MakeCongestionControlChecker()
{
    return MakePredicateChecker<StringValue, StringChecker>(
        "ns3::StringValue",
        [](const StringValue& text) {
            TypeId tid;
            return RdmaCcRegistry::Find(text.Get()) || RdmaCcRegistry::Resolve(text.Get(), &tid);
        },
        [] {
            return RdmaCcRegistry::ListNames() +
                   ", or the TypeId name of a subclass of ns3::RdmaCongestionControl";
        });
}

/// DCQCN's parameters, once attributes of the NIC, and their names on RdmaDcqcnControl: the
/// old paths stay as obsolete attributes, so that ns-3 and AttributeSettings refuse them
/// naming the new one.
const std::pair<const char*, const char*> MOVED_TO_DCQCN[] = {
    {"DcqcnG", "G"},
    {"InitialAlpha", "InitialAlpha"},
    {"AlphaUpdatePeriod", "AlphaUpdatePeriod"},
    {"RateDecreasePeriod", "RateDecreasePeriod"},
    {"RateIncreasePeriod", "RateIncreasePeriod"},
    {"FastRecoveryStages", "FastRecoveryStages"},
    {"AdditiveStages", "AdditiveStages"},
    {"AdditiveIncrease", "AdditiveIncrease"},
    {"HyperIncrease", "HyperIncrease"},
    {"ReferenceRate", "ReferenceRate"},
    {"MinRate", "MinRate"},
    {"ByteCounter", "ByteCounter"},
    {"ClampTargetRate", "ClampTargetRate"},
    {"ClampTargetRateAfterTimeIncrease", "ClampTargetRateAfterTimeIncrease"},
    {"DcqcnWindowRtt", "WindowRtt"},
    {"DcqcnVariableWindow", "VariableWindow"},
    {"CongestionNotification", "CongestionNotification"},
    {"DcqcnRateDecrease", "RateDecrease"},
};

/// \param tid RdmaNic's TypeId \return it with the obsolete DCQCN paths added
TypeId
AddMovedDcqcnAttributes(TypeId tid)
{
    for (const auto& moved : MOVED_TO_DCQCN)
    {
        const std::string to = std::string("ns3::RdmaDcqcnControl::") + moved.second;
        tid.AddAttribute(moved.first,
                         "Moved to " + to + ".",
                         EmptyAttributeValue(),
                         MakeEmptyAttributeAccessor(),
                         MakeEmptyAttributeChecker(),
                         TypeId::OBSOLETE,
                         "moved to " + to);
    }
    return tid;
}
} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid = AddMovedDcqcnAttributes(
        TypeId("ns3::RdmaNic")
            .SetParent<RdmaTransport>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RdmaNic>()
            .AddAttribute(
                "Mtu",
                "Payload bytes per packet, 256..9000: the RoCE path MTUs (256 .. "
                "4096) or any size HPCC-family users set (1000, 4000, 9000 with "
                "jumbo frames; payloads above 4136 bytes need a larger RoceNetDevice::Mtu).",
                UintegerValue(4096),
                MakeUintegerAccessor(&RdmaNic::m_mtu),
                MakeUintegerChecker<uint32_t>(256, 9000))
            .AddAttribute("CongestionControl",
                          "Congestion control of the queue pairs: the TypeId name of "
                          "ns3::RdmaCongestionControl's subclass whose objects the NIC creates, "
                          "one per queue pair (a user's own included), or a short name "
                          "(RdmaCcRegistry): dcqcn (ns3::RdmaDcqcnControl), hpcc "
                          "(ns3::RdmaHpcc), hpcc-pint (ns3::RdmaHpccPint), timely "
                          "(ns3::RdmaTimely), dctcp (ns3::RdmaDctcp) or none "
                          "(ns3::RdmaCongestionControl itself: line rate). Parameters are "
                          "attributes of the class (SetCongestionControlAttribute, or defaults "
                          "such as ns3::RdmaDcqcnControl::G); reads back as the short name when "
                          "there is one.",
                          StringValue("dcqcn"),
                          MakeStringAccessor(&RdmaNic::SetCongestionControlName,
                                             &RdmaNic::GetCongestionControlName),
                          MakeCongestionControlChecker())
            .AddAttribute("AckInterval",
                          "The responder acknowledges every this many in-order packets (and at "
                          "the end of each message).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RateChangeReschedules",
                          "A rate change moves the queue pair's next packet to its last "
                          "packet's start plus that packet's time at the new rate, as the HPCC "
                          "family's RdmaHw::ChangeRate does (a cut waits longer, an increase "
                          "sends sooner; roce-hpcc-flows --config sets it). false: the gap set "
                          "when the last packet left stands until the next one.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_rateChangeReschedules),
                          MakeBooleanChecker())
            .AddAttribute("Scheduler",
                          "How a port picks the queue pair that sends next. ring (default): "
                          "the ready ones in the order they became ready, a paced one joining "
                          "at its time, and an idle port wakes at the earliest pacing time. "
                          "family: as both HPCC family members' NIC (RdmaEgressQueue and "
                          "QbbNetDevice), the first queue pair after the last one served, in the "
                          "order they came, that may send; an idle port wakes at the earliest "
                          "next-send time of its queue pairs with data only if that time is "
                          "ahead (a window-bound or paused one whose time has passed holds the "
                          "others until the port sends or an ACK arrives), and a rate change "
                          "only moves a wake-up already set (roce-hpcc-flows --family sets it).",
                          EnumValue(SCHED_RING),
                          MakeEnumAccessor(&RdmaNic::m_scheduler),
                          MakeEnumChecker(SCHED_RING, "ring", SCHED_FAMILY, "family"))
            .AddAttribute("AckPriority",
                          "Where ACK and NACK queue. control: the strict-priority control "
                          "queue (DSCP 48) on every hop, ahead of all data, never paused. data: "
                          "their QP's data priority (DSCP = the priority) on every hop, behind "
                          "the data of that priority and paused with it by PFC, at the NIC in "
                          "turn with its own data. host-first: the data priority at the "
                          "switches, but the NIC sends them from its control queue, ahead of "
                          "its own data and never paused (the HPCC family's ACK_HIGH_PRIO 1). "
                          "host-first-paused: as host-first, but the NIC's control queue waits "
                          "while the ACK's priority is paused (ACK_HIGH_PRIO 0). CNPs use the "
                          "control queue in all.",
                          EnumValue(ACK_CONTROL),
                          MakeEnumAccessor(&RdmaNic::m_ackPriority),
                          MakeEnumChecker(ACK_CONTROL,
                                          "control",
                                          ACK_DATA,
                                          "data",
                                          ACK_HOST_FIRST,
                                          "host-first",
                                          ACK_HOST_FIRST_PAUSED,
                                          "host-first-paused"))
            .AddAttribute("RetransmitTimeout",
                          "Retransmission timeout of a QP (restarted on progress); on expiry the "
                          "QP goes back to its oldest unacknowledged PSN. It doubles at each "
                          "timeout in a row without progress.",
                          TimeValue(MilliSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RetryLimit",
                          "Retransmission timeouts in a row without progress after which the QP "
                          "fails its messages (status RETRY_EXCEEDED, the others FLUSHED); 7 is "
                          "the largest transport retry count of InfiniBand verbs.",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaNic::m_retryLimit),
                          MakeUintegerChecker<uint32_t>(0, 30))
            .AddAttribute("CnpInterval",
                          "Minimum time between two CNPs of one QP (notification point).",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("InjectionRate",
                          "Cap on the data this NIC injects, all ports and queue pairs together "
                          "(0 = none: each port at its line rate). The NPU endpoint sets it from "
                          "the memory bandwidth its collective engine can use.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaNic::m_injectionRate),
                          MakeDataRateChecker())
            .AddTraceSource("MessageComplete",
                            "An RDMA WRITE was fully acknowledged (sender side).",
                            MakeTraceSourceAccessor(&RdmaNic::m_messageCompleteTrace),
                            "ns3::RdmaTransport::MessageTracedCallback")
            .AddTraceSource("MessageReceived",
                            "The last packet of an RDMA WRITE arrived in order (receiver side).",
                            MakeTraceSourceAccessor(&RdmaNic::m_messageReceivedTrace),
                            "ns3::RdmaTransport::MessageTracedCallback")
            .AddTraceSource("MessageFailed",
                            "A posted message ended with an error status (sender side): the "
                            "retry limit was exceeded, or it was flushed from a failed QP.",
                            MakeTraceSourceAccessor(&RdmaNic::m_messageFailedTrace),
                            "ns3::RdmaTransport::MessageTracedCallback")
            .AddTraceSource("RateChange",
                            "The congestion-control rate of a QP changed.",
                            MakeTraceSourceAccessor(&RdmaNic::m_rateChangeTrace),
                            "ns3::RdmaNic::RateTracedCallback")
            .AddTraceSource("WindowChange",
                            "The congestion-control window of a QP changed (HPCC's on its "
                            "ACKs; DCQCN, DCTCP and TIMELY with their window on), the one "
                            "set when the QP starts included.",
                            MakeTraceSourceAccessor(&RdmaNic::m_windowChangeTrace),
                            "ns3::RdmaNic::WindowTracedCallback")
            .AddTraceSource("CeReceived",
                            "A data packet marked CE (ECN congestion experienced) arrived for "
                            "a QP (responder side), whether or not a CNP answers it.",
                            MakeTraceSourceAccessor(&RdmaNic::m_ceReceivedTrace),
                            "ns3::RdmaNic::QpTracedCallback")
            .AddTraceSource("EcnEcho",
                            "An ACK echoing a CE mark (BECN) arrived for a QP (requester side).",
                            MakeTraceSourceAccessor(&RdmaNic::m_ecnEchoTrace),
                            "ns3::RdmaNic::QpTracedCallback")
            .AddTraceSource("CnpSent",
                            "A CNP was sent for a QP (notification point).",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpSentTrace),
                            "ns3::RdmaNic::QpTracedCallback")
            .AddTraceSource("CnpReceived",
                            "A CNP arrived for a QP (reaction point).",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpReceivedTrace),
                            "ns3::RdmaNic::QpTracedCallback")
            .AddTraceSource("Retransmit",
                            "A data packet was sent again.",
                            MakeTraceSourceAccessor(&RdmaNic::m_retransmitTrace),
                            "ns3::RdmaNic::QpPsnTracedCallback")
            .AddTraceSource("Nack",
                            "A NACK arrived; the QP goes back to the PSN.",
                            MakeTraceSourceAccessor(&RdmaNic::m_nackTrace),
                            "ns3::RdmaNic::QpPsnTracedCallback")
            .AddTraceSource("NackSent",
                            "The responder sent a NACK for the expected PSN.",
                            MakeTraceSourceAccessor(&RdmaNic::m_nackSentTrace),
                            "ns3::RdmaNic::QpPsnTracedCallback")
            .AddTraceSource("Timeout",
                            "The retransmission timer of a QP expired; it goes back to the PSN.",
                            MakeTraceSourceAccessor(&RdmaNic::m_timeoutTrace),
                            "ns3::RdmaNic::QpPsnTracedCallback"));
    return tid;
}

RdmaNic::RdmaNic()
    : m_toListener(MakeCallback(&RdmaNic::NotifyListenerComplete, this))
{
    NS_LOG_FUNCTION(this);
}

RdmaNic::~RdmaNic()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaNic::NotifyNewAggregate()
{
    if (!m_node)
    {
        m_node = GetObject<Node>();
        if (m_node && !m_localIdSet)
        {
            m_localId = m_node->GetId();
        }
    }
    Object::NotifyNewAggregate();
}

void
RdmaNic::DoInitialize()
{
    CheckConfig();
    Object::DoInitialize();
}

void
RdmaNic::CheckConfig()
{
    if (m_configChecked)
    {
        return;
    }
    m_configChecked = true;
    const std::string error = GetConfigError();
    // internal invariant: RoceHelper::Check, NpuHelper::Check and ScenarioConfig check these
    // attributes (and the NPU's derived InjectionRate) before a fabric is built
    NS_ABORT_MSG_IF(!error.empty(), error);
}

std::string
RdmaNic::GetConfigError() const
{
    const std::string error =
        RdmaConfigCheck()
            .That(m_mtu >= 256 && m_mtu <= 9000,
                  "ns3::RdmaNic::Mtu must be in 256..9000, not " + std::to_string(m_mtu))
            .GetError();
    if (!error.empty())
    {
        return error;
    }
    if (m_injectionRate.GetBitRate() != 0 &&
        m_injectionRate.GetBitRate() < RoceNetDevice::MIN_DATA_RATE_BPS)
    {
        return "ns3::RdmaNic::InjectionRate " + std::to_string(m_injectionRate.GetBitRate()) +
               "bps is below the lowest rate a fabric takes (0 for none, or at least " +
               std::to_string(RoceNetDevice::MIN_DATA_RATE_BPS) + "bps)";
    }
    const ObjectFactory* f = GetCcFactory();
    return f ? f->Create<RdmaCongestionControl>()->GetConfigError() : "";
}

void
RdmaNic::SetCongestionControlName(std::string name)
{
    // the attribute's checker let only resolvable names through
    RdmaCcRegistry::Resolve(name, &m_ccTid);
    m_ccFactoryReady = false;
}

std::string
RdmaNic::GetCongestionControlName() const
{
    return RdmaCcRegistry::GetName(m_ccTid);
}

void
RdmaNic::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
    m_ccFactoryReady = false;
}

const ObjectFactory*
RdmaNic::GetCcFactory() const
{
    if (m_ccTid == RdmaCongestionControl::GetTypeId())
    {
        return nullptr; // none: queue pairs at line rate, without an object
    }
    if (!m_ccFactoryReady)
    {
        m_ccPrototype = nullptr;
        m_ccFactory = ObjectFactory();
        m_ccFactory.SetTypeId(m_ccTid);
        for (const auto& a : m_ccAttributes)
        {
            m_ccFactory.Set(a.first, *a.second);
        }
        m_ccFactoryReady = true;
    }
    return &m_ccFactory;
}

Ptr<RdmaCongestionControl>
RdmaNic::CreateCongestionControl() const
{
    const ObjectFactory* f = GetCcFactory();
    if (!f)
    {
        return nullptr;
    }
    if (m_ccPrototype)
    {
        return m_ccPrototype->Fork();
    }
    Ptr<RdmaCongestionControl> cc = f->Create<RdmaCongestionControl>();
    m_ccPrototype = cc->Fork(); // null: this class is built from the factory every time
    return cc;
}

void
RdmaNic::DoDispose()
{
    NS_LOG_FUNCTION(this);
    Simulator::Remove(m_rtoTimer);
    m_rtoTimerSet = false;
    m_rtoHeap = decltype(m_rtoHeap)();
    m_ccPrototype = nullptr;
    m_rtoRunning = 0;
    for (auto& qp : m_qpList)
    {
        qp->Dispose();
    }
    m_qpList.clear();
    m_qps.Clear();
    for (auto& port : m_ports)
    {
        port.wake.Cancel();
        if (port.dev)
        {
            port.dev->SetPullSource(nullptr, 0);
        }
        port.dev = nullptr;
        port.ring.clear();
    }
    m_ports.clear();
    if (m_switch)
    {
        m_switch->SetLocalReceiveCallback(RoceSwitch::LocalReceiveCallback());
    }
    m_switch = nullptr;
    m_node = nullptr;
    RdmaTransport::DoDispose();
}

void
RdmaNic::SetLocalId(uint32_t id)
{
    // internal invariant: RoceHelper::Check refuses fabrics of more than 65536 nodes first
    NS_ABORT_MSG_IF(id > 0xffff, "RdmaNic: node id " << id << " has no RoCE address (> 65535)");
    m_localId = id;
    m_localIdSet = true;
}

uint32_t
RdmaNic::GetLocalId() const
{
    return m_localId;
}

void
RdmaNic::Attach(Ptr<RoceSwitch> sw)
{
    NS_LOG_FUNCTION(this << sw);
    // internal invariant: an API contract kept by the helpers and programs; no option or file
    // reaches it
    NS_ABORT_MSG_IF(!sw, "RdmaNic::Attach: no RoceSwitch");
    // internal invariant: RoceHelper::Check refuses fabrics of more than 65536 nodes first
    NS_ABORT_MSG_IF(m_localId > 0xffff,
                    "RdmaNic: node id " << m_localId << " has no RoCE address (> 65535)");
    m_switch = sw;
    sw->SetLocalAddress(RoceAddress::FromNodeId(m_localId));
    sw->SetLocalReceiver(this);
    for (uint32_t i = m_ports.size(); i < sw->GetNPorts(); ++i)
    {
        Port port;
        port.dev = sw->GetPort(i);
        port.rate = static_cast<double>(port.dev->GetDataRate().GetBitRate());
        m_ports.push_back(std::move(port));
    }
    // only now: SetPullSource may call PullFrom at once
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        m_ports[i].dev->SetPullSource(this, i);
    }
}

Ptr<RoceNetDevice>
RdmaNic::GetPort(uint32_t i) const
{
    return i < m_ports.size() ? m_ports[i].dev : nullptr;
}

uint16_t
RdmaNic::GetLaneSourcePort(uint32_t peer, uint8_t priority, uint32_t lane) const
{
    return RoceWire::LaneSourcePort(m_localId, peer, priority, lane);
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePair(uint32_t peer, uint8_t priority, uint32_t lane) const
{
    return m_qps.Find(RdmaQueuePair::MakeQpn(peer, priority & 7, lane));
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePairByIndex(uint32_t i) const
{
    return i < m_qpList.size() ? m_qpList[i] : nullptr;
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePairByQpn(uint32_t qpn) const
{
    return m_qps.Find(qpn);
}

void
RdmaNic::SetPeerBaseRtt(uint32_t peer, Time rtt, uint64_t bdp)
{
    // internal invariant: base RTTs come from links of at least 1 ns latency
    NS_ABORT_MSG_UNLESS(rtt.IsStrictlyPositive(),
                        "RdmaNic::SetPeerBaseRtt: the base RTT to node " << peer << " must be > 0");
    m_peerBaseRtt[peer] = {rtt, bdp};
}

int64_t
RdmaNic::AssignStreams(int64_t stream)
{
    m_ccStream = stream;
    for (const auto& qp : m_qpList)
    {
        AssignQpStream(*qp);
    }
    return QP_STREAMS;
}

void
RdmaNic::AssignQpStream(RdmaQueuePair& qp) const
{
    if (qp.m_cc && m_ccStream >= 0)
    {
        qp.m_cc->AssignStreams(m_ccStream + qp.m_qpn);
    }
}

RdmaQueuePair*
RdmaNic::GetOrCreateQp(uint32_t peer, uint8_t priority, uint32_t lane)
{
    uint32_t qpn = RdmaQueuePair::MakeQpn(peer, priority, lane);
    RdmaQueuePair* found = m_qps.Find(qpn);
    if (found)
    {
        return found;
    }
    CheckConfig();
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(!m_switch, "RdmaNic of node " << m_localId << " is not attached (Attach)");
    Ptr<RdmaQueuePair> qp = CreateObject<RdmaQueuePair>();
    qp->m_nic = this;
    qp->m_qpn = qpn;
    qp->m_peer = peer;
    qp->m_priority = priority;
    qp->m_lane = lane;
    qp->m_peerQpn = RdmaQueuePair::MakeQpn(m_localId, priority, lane);
    qp->m_sport = GetLaneSourcePort(peer, priority, lane);
    uint32_t port = m_switch->GetEgressPort(RoceAddress::FromNodeId(m_localId).Get(),
                                            RoceAddress::FromNodeId(peer).Get(),
                                            qp->m_sport,
                                            RoceIpUdpHeader::ROCE_UDP_PORT,
                                            priority);
    // internal invariant: validated topologies are connected
    NS_ABORT_MSG_IF(port == RoceSwitch::NO_PORT || port >= m_ports.size(),
                    "RdmaNic of node " << m_localId << ": no route to node " << peer);
    qp->m_port = port;
    qp->m_lineRate = m_ports[port].rate;
    qp->m_cc = CreateCongestionControl();
    AssignQpStream(*qp);
    auto pathRtt = m_peerBaseRtt.find(peer);
    if (qp->m_cc && pathRtt != m_peerBaseRtt.end())
    {
        qp->m_cc->SetPathBaseRtt(pathRtt->second.first);
        qp->m_cc->SetPathBdp(pathRtt->second.second);
    }
    // listed before its control starts: a RateChange or WindowChange sink of the start finds it
    m_qps.Insert(qpn, PeekPointer(qp));
    m_qpList.push_back(qp);
    if (qp->m_cc)
    {
        qp->m_cc->Start(qp->m_lineRate, m_mtu, PeekPointer(qp));
    }
    NS_LOG_INFO("node " << m_localId << " new QP " << qpn << " peer " << peer << " prio "
                        << +priority << " port " << port << " sport " << qp->m_sport);
    return PeekPointer(qp);
}

uint64_t
RdmaNic::GetLineRate() const
{
    double rate = 0;
    for (const Port& p : m_ports)
    {
        rate += p.rate;
    }
    return static_cast<uint64_t>(rate);
}

uint64_t
RdmaNic::Post(const RdmaWriteRequest& request, CompletionCallback done)
{
    const uint32_t dst = request.dst;
    const uint64_t bytes = request.bytes;
    const uint8_t priority = request.priority;
    NS_LOG_FUNCTION(this << dst << bytes << +priority << request.lane);
    // internal invariant: the Priority attributes' checkers take 0..7 only
    NS_ABORT_MSG_IF(priority > 7, "RdmaNic::PostWrite: priority " << +priority << " > 7");
    // internal invariant: collectives never send to their own rank (tn_verify_schedule, the
    // generators)
    NS_ABORT_MSG_IF(dst == m_localId, "RdmaNic::PostWrite: destination is the local node");
    // internal invariant: RoceHelper::Check refuses fabrics of more than 65536 nodes first
    NS_ABORT_MSG_IF(dst > 0xffff, "RdmaNic::PostWrite: node " << dst << " has no address");
    // internal invariant: planned routing assigns at most MAX_LANES lanes per pair (AssignLanes)
    NS_ABORT_MSG_IF(request.lane >= RdmaQueuePair::MAX_LANES,
                    "RdmaNic::PostWrite: lane " << request.lane
                                                << " >= " << RdmaQueuePair::MAX_LANES);
    RdmaQueuePair* qp = GetOrCreateQp(dst, priority, request.lane);
    RdmaQueuePair::Message m;
    m.rec.id = m_nextMsgId++;
    m.rec.src = m_localId;
    m.rec.dst = dst;
    m.rec.priority = priority;
    m.rec.qpn = qp->m_qpn;
    m.rec.udpSourcePort = qp->m_sport;
    m.rec.bytes = bytes;
    m.rec.lane = request.lane;
    m.rec.remoteAddress = request.remoteAddress != 0 ? request.remoteAddress : m.rec.id;
    m.rec.remoteKey = request.remoteKey;
    m.rec.hasImmediate = request.hasImmediate;
    m.rec.immediate = request.immediate;
    m.rec.wrId = request.wrId;
    m.rec.start = Simulator::Now();
    m.firstPsn = qp->m_psnEnd;
    m.packets = bytes == 0 ? 1 : (bytes - 1) / m_mtu + 1;
    m.done = request.toListener ? m_toListener : done;
    if (qp->m_failed)
    {
        // as verbs flush a work request posted to a QP in the error state, a moment later
        Simulator::ScheduleNow(&RdmaNic::FlushPosted, this, m);
        return m.rec.id;
    }
    qp->m_psnEnd += m.packets;
    qp->m_messages.push_back(std::move(m));
    Schedule(qp);
    return m_nextMsgId - 1;
}

void
RdmaNic::Schedule(RdmaQueuePair* qp)
{
    if (m_scheduler == SCHED_FAMILY)
    {
        // the family's queue pairs wait in one list that its NIC scans at every chance
        if (qp->HasData())
        {
            if (!qp->m_inFamilyGroup)
            {
                qp->m_inFamilyGroup = true;
                m_ports[qp->m_port].group.push_back(qp);
            }
            m_ports[qp->m_port].dev->Kick(); // its TriggerTransmit
        }
        return;
    }
    if (qp->m_queued || !qp->HasData())
    {
        return;
    }
    qp->m_queued = true;
    Port& pt = m_ports[qp->m_port];
    Time now = Simulator::Now();
    if (qp->m_nextSend > now)
    {
        PushPaced(pt, qp->m_nextSend, qp);
        WakePort(qp->m_port);
    }
    else
    {
        pt.ring.push_back(qp);
        pt.dev->Kick();
    }
}

void
RdmaNic::PushPaced(Port& pt, Time when, RdmaQueuePair* qp)
{
    qp->m_pacedLive = m_pacedSeq;
    qp->m_inPacedHeap = true;
    pt.paced.push(Paced{when, m_pacedSeq++, qp});
}

void
RdmaNic::WakePort(uint32_t port)
{
    Port& pt = m_ports[port];
    if (pt.paced.empty() || m_scheduler == SCHED_FAMILY)
    {
        return; // family: only an idle port sets its wake-up (FamilyWakeup)
    }
    Time when = pt.paced.top().when;
    if (pt.wakePending)
    {
        if (pt.wakeAt <= when)
        {
            return;
        }
        pt.wake.Cancel();
    }
    pt.wakeAt = when;
    pt.wakePending = true;
    pt.wake = Simulator::Schedule(when - Simulator::Now(), &RdmaNic::KickPort, this, port);
}

void
RdmaNic::KickPort(uint32_t port)
{
    m_ports[port].wakePending = false;
    m_ports[port].dev->Kick();
}

void
RdmaNic::FamilyWakeup(uint32_t port)
{
    Port& pt = m_ports[port];
    if (pt.wakePending)
    {
        return; // the family keeps a wake-up already set, earlier or later
    }
    // the family's QbbNetDevice takes the earliest next-send time of every queue pair with data
    // left, window-bound and paused ones too, and sets no wake-up when that time has passed: the
    // paced queue pairs then wait for the port's next send or the NIC's next received packet
    const Time now = Simulator::Now();
    Time when = Time::Max();
    for (const RdmaQueuePair* qp : pt.group)
    {
        if (qp->HasData() && !qp->m_failed)
        {
            when = std::min(when, qp->m_nextSend);
        }
    }
    if (when == Time::Max() || when <= now)
    {
        return;
    }
    pt.wakeAt = when;
    pt.wakePending = true;
    pt.wake = Simulator::Schedule(when - now, &RdmaNic::KickPort, this, port);
}

Ptr<Packet>
RdmaNic::PullFrom(uint32_t port, uint8_t pausedMask)
{
    Port& pt = m_ports[port];
    Time now = Simulator::Now();
    if (m_scheduler == SCHED_FAMILY)
    {
        RdmaQueuePair* qp = m_injectNext > now ? nullptr : FamilyNext(port, pausedMask);
        if (!qp)
        {
            if (m_injectNext > now)
            {
                pt.wake.Cancel();
                pt.wakeAt = m_injectNext;
                pt.wakePending = true;
                pt.wake = Simulator::Schedule(m_injectNext - now, &RdmaNic::KickPort, this, port);
            }
            else
            {
                FamilyWakeup(port);
            }
            return nullptr;
        }
        Ptr<Packet> p = BuildDataPacket(qp);
        if (m_injectionRate.GetBitRate() > 0)
        {
            const double wire = RoceWire::WireBytes(pt.dev->GetFraming(), *p);
            m_injectNext =
                now + Seconds(wire * 8.0 / static_cast<double>(m_injectionRate.GetBitRate()));
        }
        return p;
    }
    while (!pt.paced.empty() && pt.paced.top().when <= now)
    {
        const Paced& e = pt.paced.top();
        if (e.seq == e.qp->m_pacedLive) // an entry a rate change moved earlier is stale
        {
            e.qp->m_inPacedHeap = false;
            pt.ring.push_back(e.qp);
        }
        pt.paced.pop();
    }
    size_t n = pt.ring.size();
    for (size_t i = 0; i < n; ++i)
    {
        RdmaQueuePair* qp = pt.ring.front();
        pt.ring.pop_front();
        if (!qp->HasData())
        {
            qp->m_queued = false;
            continue;
        }
        if ((pausedMask >> qp->m_priority) & 1)
        {
            pt.ring.push_back(qp);
            continue;
        }
        if (qp->m_nextSend > now)
        {
            PushPaced(pt, qp->m_nextSend, qp);
            continue;
        }
        if (m_injectNext > now)
        {
            PushPaced(pt, m_injectNext, qp); // the NIC-wide cap
            continue;
        }
        if (WindowBound(qp))
        {
            qp->m_queued = false; // resumes on the next ACK
            continue;
        }
        Ptr<Packet> p = BuildDataPacket(qp);
        if (m_injectionRate.GetBitRate() > 0)
        {
            const double wire = RoceWire::WireBytes(pt.dev->GetFraming(), *p);
            m_injectNext =
                now + Seconds(wire * 8.0 / static_cast<double>(m_injectionRate.GetBitRate()));
        }
        if (qp->HasData())
        {
            if (qp->m_nextSend > now)
            {
                PushPaced(pt, qp->m_nextSend, qp);
            }
            else
            {
                pt.ring.push_back(qp);
            }
        }
        else
        {
            qp->m_queued = false;
        }
        WakePort(port);
        return p;
    }
    WakePort(port);
    return nullptr;
}

bool
RdmaNic::WindowBound(const RdmaQueuePair* qp) const
{
    return qp->m_sndNxt - qp->m_sndUna >= MAX_OUTSTANDING ||
           (qp->m_cc && qp->m_cc->GetWindow() > 0 &&
            (qp->m_sndNxt - qp->m_sndUna) * m_mtu >= qp->m_cc->GetWindow());
}

RdmaQueuePair*
RdmaNic::FamilyNext(uint32_t port, uint8_t pausedMask)
{
    // the family's RdmaEgressQueue::GetNextQindex: the first queue pair after the last one
    // served, in the order they came, that has data, is neither paused nor window-bound and
    // whose time has come; finished ones (all acknowledged) leave the list, the index of the
    // last one served kept as it is
    Port& pt = m_ports[port];
    const Time now = Simulator::Now();
    std::vector<RdmaQueuePair*>& g = pt.group;
    const size_t n = g.size();
    size_t res = SIZE_MAX;
    size_t firstDone = SIZE_MAX;
    auto done = [](const RdmaQueuePair* qp) {
        return !qp->HasData() && (qp->m_sndUna >= qp->m_psnEnd || qp->m_failed);
    };
    for (size_t k = 1; k <= n; ++k)
    {
        const size_t idx = (k + pt.rrLast) % n;
        RdmaQueuePair* qp = g[idx];
        if (!((pausedMask >> qp->m_priority) & 1) && qp->HasData() && !qp->m_failed &&
            !WindowBound(qp))
        {
            if (qp->m_nextSend > now)
            {
                continue;
            }
            res = idx;
            break;
        }
        else if (done(qp))
        {
            firstDone = std::min(firstDone, idx);
        }
    }
    if (firstDone != SIZE_MAX)
    {
        g[firstDone]->m_inFamilyGroup = false;
        size_t next = firstDone;
        for (size_t i = firstDone + 1; i < n; ++i)
        {
            if (done(g[i]))
            {
                g[i]->m_inFamilyGroup = false;
                continue;
            }
            if (i == res)
            {
                res = next;
            }
            g[next++] = g[i];
        }
        g.resize(next);
    }
    if (res == SIZE_MAX)
    {
        return nullptr;
    }
    pt.rrLast = static_cast<uint32_t>(res);
    return g[res];
}

bool
RdmaNic::HeadersItemized()
{
    if (m_headersItemized < 0)
    {
        m_headersItemized = RdmaTxHeaders::Itemized() ? 1 : 0;
    }
    return m_headersItemized == 1;
}

Ptr<Packet>
RdmaNic::BuildDataPacket(RdmaQueuePair* qp)
{
    NS_ASSERT(qp->m_curMsg < qp->m_messages.size());
    RdmaQueuePair::Message& m = qp->m_messages[qp->m_curMsg];
    uint64_t psn = qp->m_sndNxt;
    uint64_t idx = psn - m.firstPsn;
    NS_ASSERT(idx < m.packets);
    uint64_t offset = idx * m_mtu;
    uint32_t len = m.rec.bytes == 0
                       ? 0
                       : static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.rec.bytes - offset));
    bool first = idx == 0;
    bool last = idx + 1 == m.packets;
    const bool imm = last && m.rec.hasImmediate;
    uint8_t opcode =
        first ? (last ? (imm ? RoceBthHeader::RC_WRITE_ONLY_IMM : RoceBthHeader::RC_WRITE_ONLY)
                      : RoceBthHeader::RC_WRITE_FIRST)
              : (last ? (imm ? RoceBthHeader::RC_WRITE_LAST_IMM : RoceBthHeader::RC_WRITE_LAST)
                      : RoceBthHeader::RC_WRITE_MIDDLE);

    // the 4 ICRC bytes are the zero bytes after the payload: the same bytes as
    // RoceIcrcTrailer's default value, without the cost of a trailer
    Ptr<Packet> p = Create<Packet>(len + RoceIcrcTrailer::SIZE);
    const RoceIntHeader::Mode telemetry = qp->m_cc ? qp->m_cc->GetTelemetry() : RoceIntHeader::NONE;
    RdmaTxHeaders headers;
    std::optional<RoceIntHeader> tel;
    if (telemetry != RoceIntHeader::NONE)
    {
        qp->m_cc->FillTelemetry(tel.emplace(telemetry));
        headers.Push(*tel);
    }
    std::optional<RoceImmHeader> immDt;
    if (imm)
    {
        immDt.emplace().SetImmediate(m.rec.immediate);
        headers.Push(*immDt);
    }
    std::optional<RoceRethHeader> reth;
    if (first)
    {
        reth.emplace().SetVirtualAddress(m.rec.remoteAddress);
        reth->SetRkey(m.rec.remoteKey);
        reth->SetDmaLength(static_cast<uint32_t>(
            std::min<uint64_t>(m.rec.bytes, std::numeric_limits<uint32_t>::max())));
        headers.Push(*reth);
    }
    RoceBthHeader bth;
    bth.SetOpcode(opcode);
    bth.SetDestQp(qp->m_peerQpn);
    bth.SetPsn(static_cast<uint32_t>(psn & PSN_MASK));
    bth.SetAckRequest(last);
    bth.SetTelemetry(telemetry);
    headers.Push(bth);
    RoceIpUdpHeader ip;
    ip.SetSource(RoceAddress::FromNodeId(m_localId));
    ip.SetDestination(RoceAddress::FromNodeId(qp->m_peer));
    ip.SetSourcePort(qp->m_sport);
    ip.SetDscp(qp->m_priority);
    ip.SetEcn(RoceIpUdpHeader::ECT0);
    ip.SetIdentification(static_cast<uint16_t>(psn));
    ip.SetUdpPayloadSize(static_cast<uint16_t>(p->GetSize() + headers.GetSerializedSize()));
    headers.Push(ip);
    headers.Add(p, HeadersItemized());

    const bool wasIdle = qp->m_sndUna >= qp->m_sndMax; // nothing outstanding before this one
    if (psn < qp->m_sndMax)
    {
        qp->m_retxBytes += len;
        m.rec.retransmittedBytes += len;
        m_retxBytes += len;
        m_retransmitTrace(qp->m_qpn, psn);
    }
    ++qp->m_sndNxt;
    if (last)
    {
        ++qp->m_curMsg;
    }
    qp->m_sndMax = std::max(qp->m_sndMax, qp->m_sndNxt);
    ++m_dataSent;
    ++qp->m_dataPackets;

    Time now = Simulator::Now();
    double rate = qp->GetRate();
    const double wire = RoceWire::WireBytes(m_ports[qp->m_port].dev->GetFraming(), *p);
    qp->m_lastSend = now;
    qp->m_lastWire = wire;
    if (rate < qp->m_lineRate)
    {
        qp->m_nextSend = now + Seconds(wire * 8.0 / rate);
    }
    else
    {
        qp->m_nextSend = now;
    }
    if (qp->m_cc)
    {
        qp->m_cc->OnSent(psn, len);
    }
    if (!qp->m_rtoRunning)
    {
        ArmRto(qp);
    }
    else if (wasIdle)
    {
        qp->m_rtoDeadline = now + CurrentRto(qp); // the timer of an idle QP starts again
    }
    return p;
}

Time
RdmaNic::CurrentRto(const RdmaQueuePair* qp) const
{
    // RetryLimit <= 30 bounds the exponent; saturate rather than leave ns-3's time range
    const int64_t base = m_rto.GetTimeStep();
    const uint32_t shift = std::min<uint32_t>(qp->m_retries, 62);
    if (base > (std::numeric_limits<int64_t>::max() >> 2) >> shift)
    {
        return Time::From(std::numeric_limits<int64_t>::max() >> 2);
    }
    return Time::From(base << shift);
}

void
RdmaNic::ArmRto(RdmaQueuePair* qp)
{
    qp->m_rtoDeadline = Simulator::Now() + CurrentRto(qp);
    if (!qp->m_rtoRunning)
    {
        qp->m_rtoRunning = true;
        ++m_rtoRunning;
    }
    if (!qp->m_rtoQueued)
    {
        PushRto(qp->m_rtoDeadline, qp);
    }
}

void
RdmaNic::StopRto(RdmaQueuePair* qp)
{
    // the heap entry stays (taking it out of the middle of a heap costs more than meeting it
    // at its time); RescheduleRtoTimer drops the event and the stale entries when the last
    // timer of the NIC stops, so that an idle fabric's simulation ends
    qp->m_rtoRunning = false;
    --m_rtoRunning;
    if (m_rtoRunning == 0 && !m_rtoFiring)
    {
        RescheduleRtoTimer();
    }
}

void
RdmaNic::PushRto(Time when, RdmaQueuePair* qp)
{
    qp->m_rtoQueued = true;
    m_rtoHeap.push(Paced{when, m_rtoSeq++, qp});
    if (!m_rtoFiring && (!m_rtoTimerSet || when < m_rtoTimerAt))
    {
        RescheduleRtoTimer();
    }
}

void
RdmaNic::RescheduleRtoTimer()
{
    if (m_rtoRunning == 0)
    {
        if (m_rtoTimerSet)
        {
            Simulator::Remove(m_rtoTimer);
            m_rtoTimerSet = false;
        }
        while (!m_rtoHeap.empty())
        {
            m_rtoHeap.top().qp->m_rtoQueued = false;
            m_rtoHeap.pop();
        }
        return;
    }
    const Time first = m_rtoHeap.top().when;
    if (m_rtoTimerSet)
    {
        if (m_rtoTimerAt == first)
        {
            return;
        }
        Simulator::Remove(m_rtoTimer);
    }
    m_rtoTimerSet = true;
    m_rtoTimerAt = first;
    m_rtoTimer = Simulator::Schedule(first - Simulator::Now(), &RdmaNic::RtoTimerFired, this);
}

void
RdmaNic::RtoTimerFired()
{
    const Time now = Simulator::Now();
    m_rtoTimerSet = false;
    m_rtoFiring = true;
    while (!m_rtoHeap.empty() && m_rtoHeap.top().when <= now)
    {
        RdmaQueuePair* qp = m_rtoHeap.top().qp;
        m_rtoHeap.pop();
        qp->m_rtoQueued = false;
        if (!qp->m_rtoRunning)
        {
            continue; // stopped since it was queued
        }
        if (now < qp->m_rtoDeadline)
        {
            // progress was made since the timer was armed: wait for the real deadline
            PushRto(qp->m_rtoDeadline, qp);
            continue;
        }
        qp->m_rtoRunning = false;
        --m_rtoRunning;
        RtoExpired(qp);
    }
    m_rtoFiring = false;
    RescheduleRtoTimer();
}

void
RdmaNic::RtoExpired(RdmaQueuePair* qp)
{
    if (qp->m_sndUna >= qp->m_sndMax)
    {
        return; // nothing outstanding
    }
    NS_LOG_INFO("node " << m_localId << " QP " << qp->m_qpn << " timeout at PSN " << qp->m_sndUna);
    ++qp->m_timeouts;
    ++m_timeoutCount;
    m_timeoutTrace(qp->m_qpn, qp->m_sndUna);
    if (qp->m_retries >= m_retryLimit)
    {
        FailQp(qp);
        return;
    }
    ++qp->m_retries;
    qp->m_sndNxt = qp->m_sndUna;
    qp->SeekSendMessage();
    ArmRto(qp);
    Schedule(qp);
}

void
RdmaNic::SendControl(RdmaQueuePair* qp, uint8_t opcode, uint64_t psn, uint8_t syndrome)
{
    // ICRC as 4 zero bytes
    Ptr<Packet> p = Create<Packet>(RoceIcrcTrailer::SIZE);
    RdmaTxHeaders headers;
    const RoceCnpHeader cnp;
    if (opcode == RoceBthHeader::CNP)
    {
        headers.Push(cnp);
    }
    RoceBthHeader bth;
    RoceAethHeader aeth;
    if (opcode != RoceBthHeader::CNP)
    {
        if (syndrome == RoceAethHeader::SYNDROME_ACK)
        {
            // the ACK echoes the telemetry of the packet it answers and any CE mark since
            // the previous ACK (BECN)
            if (qp->m_rcvTelemetry && qp->m_rcvTelemetry->GetMode() != RoceIntHeader::NONE)
            {
                headers.Push(*qp->m_rcvTelemetry);
                bth.SetTelemetry(qp->m_rcvTelemetry->GetMode());
            }
            bth.SetBecn(qp->m_ceSinceAck);
            qp->m_ceSinceAck = false;
        }
        aeth.SetSyndrome(syndrome);
        aeth.SetMsn(qp->m_msn);
        headers.Push(aeth);
    }
    bth.SetOpcode(opcode);
    bth.SetDestQp(qp->m_peerQpn);
    bth.SetPsn(static_cast<uint32_t>(psn & PSN_MASK));
    headers.Push(bth);
    RoceIpUdpHeader ip;
    ip.SetSource(RoceAddress::FromNodeId(m_localId));
    ip.SetDestination(RoceAddress::FromNodeId(qp->m_peer));
    ip.SetSourcePort(qp->m_sport);
    // the switches queue a packet by its DSCP: an ACK or NACK in the data's class waits
    // behind that class's data on every hop and is lossless with it (PFC), where the control
    // class passes ahead of all data. At this NIC the control queue still sends it before the
    // NIC's own data unless AckPriority is data (a NIC with one ACK ring served first).
    const bool control = m_ackPriority == ACK_CONTROL || opcode == RoceBthHeader::CNP;
    ip.SetDscp(control ? RoceIpUdpHeader::CONTROL_DSCP : qp->m_priority);
    ip.SetEcn(RoceIpUdpHeader::NOT_ECT);
    ip.SetUdpPayloadSize(static_cast<uint16_t>(p->GetSize() + headers.GetSerializedSize()));
    headers.Push(ip);
    headers.Add(p, HeadersItemized());
    const Ptr<RoceNetDevice>& dev = m_ports[qp->m_port].dev;
    if (!control && m_ackPriority == ACK_DATA)
    {
        dev->Enqueue(p, qp->m_priority);
    }
    else
    {
        dev->Enqueue(p,
                     RoceNetDevice::CONTROL_QUEUE,
                     RoceNetDevice::NO_INGRESS,
                     !control && m_ackPriority == ACK_HOST_FIRST_PAUSED
                         ? qp->m_priority
                         : RoceNetDevice::NUM_PRIORITIES);
    }
}

void
RdmaNic::ReceiveFromSwitch(Ptr<Packet> p, uint32_t inPort)
{
    Receive(p);
}

void
RdmaNic::LocalReceive(const Ptr<Packet>& p, uint32_t inPort)
{
    Receive(p);
}

void
RdmaNic::Receive(Ptr<Packet> p)
{
    RdmaRxHeader h;
    uint32_t headerBytes = p->PeekHeader(h);
    const RoceBthHeader& bth = h.bth;
    uint32_t qpn = bth.GetDestQp();
    uint32_t peer = RoceAddress::ToNodeId(h.source);
    const uint32_t lane = qpn == 0 ? 0 : (qpn - 1) >> 19;
    if (qpn == 0 || (((qpn - 1) >> 3) & 0xffff) != peer || lane >= RdmaQueuePair::MAX_LANES)
    {
        NS_LOG_WARN("node " << m_localId << ": packet for unknown QP " << qpn << " from node "
                            << peer);
        return;
    }
    uint8_t priority = static_cast<uint8_t>((qpn - 1) & 7);
    RdmaQueuePair* qp = GetOrCreateQp(peer, priority, lane);
    uint8_t op = bth.GetOpcode();
    switch (op)
    {
    case RoceBthHeader::RC_ACK:
        ReceiveAck(qp, h);
        break;
    case RoceBthHeader::CNP:
        ++m_cnpReceived;
        m_cnpReceivedTrace(qp->m_qpn);
        if (qp->m_cc)
        {
            qp->m_cc->OnCnp();
        }
        break;
    case RoceBthHeader::RC_WRITE_FIRST:
    case RoceBthHeader::RC_WRITE_MIDDLE:
    case RoceBthHeader::RC_WRITE_LAST:
    case RoceBthHeader::RC_WRITE_ONLY:
    case RoceBthHeader::RC_WRITE_LAST_IMM:
    case RoceBthHeader::RC_WRITE_ONLY_IMM:
        ReceiveData(qp,
                    bth,
                    h.reth ? &*h.reth : nullptr,
                    h.imm ? &*h.imm : nullptr,
                    h.telemetry ? &*h.telemetry : nullptr,
                    p->GetSize() - headerBytes - RoceIcrcTrailer::SIZE,
                    h.ecn == RoceIpUdpHeader::CE,
                    peer);
        break;
    default:
        NS_LOG_WARN("node " << m_localId << ": unsupported opcode " << +op);
        break;
    }
}

void
RdmaNic::ReceiveData(RdmaQueuePair* qp,
                     const RoceBthHeader& bth,
                     const RoceRethHeader* reth,
                     const RoceImmHeader* imm,
                     const RoceIntHeader* telemetry,
                     uint32_t payload,
                     bool ce,
                     uint32_t peer)
{
    Time now = Simulator::Now();
    m_lastDataRx = now;
    if (telemetry)
    {
        if (!qp->m_rcvTelemetry)
        {
            qp->m_rcvTelemetry = std::make_unique<RoceIntHeader>();
        }
        *qp->m_rcvTelemetry = *telemetry;
    }
    qp->m_ceSinceAck = qp->m_ceSinceAck || ce;
    if (ce)
    {
        m_ceReceivedTrace(qp->m_qpn);
    }
    if (ce && qp->m_cc && qp->m_cc->RequestsCnp() &&
        (!qp->m_cnpSent || now - qp->m_lastCnp >= m_cnpInterval))
    {
        qp->m_cnpSent = true;
        qp->m_lastCnp = now;
        ++m_cnpSent;
        SendControl(qp, RoceBthHeader::CNP, 0, 0);
        m_cnpSentTrace(qp->m_qpn);
    }
    uint64_t psn = ExpandPsn(bth.GetPsn(), qp->m_rcvNxt);
    if (psn == qp->m_rcvNxt)
    {
        uint8_t op = bth.GetOpcode();
        if (reth)
        {
            qp->m_rcvMsgId = reth->GetVirtualAddress();
            qp->m_rcvMsgKey = reth->GetRkey();
            qp->m_rcvMsgLen = reth->GetDmaLength();
            qp->m_rcvMsgBytes = 0;
            qp->m_rcvMsgStart = now;
        }
        qp->m_rcvMsgBytes += payload;
        qp->m_rcvBytes += payload;
        ++qp->m_rcvNxt;
        qp->m_nackSent = false;
        ++qp->m_unacked;
        bool last = RoceBthHeader::IsWriteLast(op);
        if (last)
        {
            ++qp->m_msn;
        }
        // a packet with telemetry is answered at once: its stamps go back in the ACK
        if (last || bth.GetAckRequest() || qp->m_unacked >= m_ackInterval || telemetry)
        {
            qp->m_unacked = 0;
            SendControl(qp, RoceBthHeader::RC_ACK, qp->m_rcvNxt - 1, RoceAethHeader::SYNDROME_ACK);
        }
        if (last)
        {
            RdmaMessageRecord rec;
            rec.id = qp->m_rcvMsgId;
            rec.src = peer;
            rec.dst = m_localId;
            rec.priority = qp->m_priority;
            rec.qpn = qp->m_qpn;
            rec.udpSourcePort = qp->m_sport;
            rec.bytes = qp->m_rcvMsgBytes;
            rec.start = qp->m_rcvMsgStart;
            rec.end = now;
            rec.lane = qp->m_lane;
            rec.remoteAddress = qp->m_rcvMsgId;
            rec.remoteKey = qp->m_rcvMsgKey;
            rec.hasImmediate = imm != nullptr;
            rec.immediate = imm ? imm->GetImmediate() : 0;
            NotifyListener(rec);
            m_messageReceivedTrace(rec);
        }
    }
    else if (psn > qp->m_rcvNxt)
    {
        if (!qp->m_nackSent)
        {
            qp->m_nackSent = true;
            SendControl(qp,
                        RoceBthHeader::RC_ACK,
                        qp->m_rcvNxt,
                        RoceAethHeader::SYNDROME_NAK_PSN_SEQ);
            m_nackSentTrace(qp->m_qpn, qp->m_rcvNxt);
        }
    }
    else if (qp->m_rcvNxt > 0)
    {
        // duplicate: acknowledge again what we have
        qp->m_unacked = 0;
        SendControl(qp, RoceBthHeader::RC_ACK, qp->m_rcvNxt - 1, RoceAethHeader::SYNDROME_ACK);
    }
}

void
RdmaNic::ReceiveAck(RdmaQueuePair* qp, const RdmaRxHeader& h)
{
    if (qp->m_failed)
    {
        return; // late ACKs of failed messages
    }
    uint64_t psn = ExpandPsn(h.bth.GetPsn(), qp->m_sndUna);
    if (h.aeth && h.aeth->IsNak())
    {
        ++m_nackReceived;
        m_nackTrace(qp->m_qpn, psn);
        if (qp->m_cc)
        {
            qp->m_cc->OnNack(psn);
        }
        if (psn > qp->m_sndUna)
        {
            Acknowledge(qp, psn);
        }
        if (psn >= qp->m_sndUna && psn < qp->m_sndNxt)
        {
            NS_LOG_INFO("node " << m_localId << " QP " << qp->m_qpn << " NACK: back to PSN " << psn
                                << " from " << qp->m_sndNxt);
            qp->m_sndNxt = psn;
            qp->m_curMsg = 0;
            qp->SeekSendMessage();
            Schedule(qp);
        }
    }
    else
    {
        if (h.bth.GetBecn())
        {
            ++m_ecnEchoes;
            m_ecnEchoTrace(qp->m_qpn);
        }
        if (qp->m_cc)
        {
            RdmaCcFeedback fb;
            fb.ackedPsn = std::min(psn + 1, qp->m_sndMax);
            fb.nextPsn = qp->m_sndMax;
            fb.ecnEcho = h.bth.GetBecn();
            fb.telemetry = h.telemetry ? &*h.telemetry : nullptr;
            qp->m_cc->OnAck(fb);
        }
        if (psn + 1 > qp->m_sndUna)
        {
            Acknowledge(qp, psn + 1);
        }
    }
    if (m_scheduler == SCHED_FAMILY)
    {
        m_ports[qp->m_port].dev->Kick(); // the family's TriggerTransmit on every ACK
    }
}

void
RdmaNic::Acknowledge(RdmaQueuePair* qp, uint64_t upTo)
{
    upTo = std::min(upTo, qp->m_sndMax);
    if (upTo <= qp->m_sndUna)
    {
        return;
    }
    qp->m_sndUna = upTo;
    Time now = Simulator::Now();
    std::vector<RdmaQueuePair::Message> done;
    while (!qp->m_messages.empty() &&
           qp->m_messages.front().firstPsn + qp->m_messages.front().packets <= upTo)
    {
        done.push_back(std::move(qp->m_messages.front()));
        qp->m_messages.pop_front();
        if (qp->m_curMsg > 0)
        {
            --qp->m_curMsg;
        }
    }
    if (qp->m_sndNxt < qp->m_sndUna)
    {
        qp->m_sndNxt = qp->m_sndUna;
        qp->SeekSendMessage();
    }
    qp->m_retries = 0; // progress: the back-off starts again
    if (qp->m_sndUna < qp->m_sndMax)
    {
        qp->m_rtoDeadline = now + m_rto; // progress: restart the timer (lazily)
    }
    else if (qp->m_rtoRunning)
    {
        StopRto(qp); // all acknowledged: the next packet sent arms it again
    }
    if (!qp->m_queued && qp->HasData())
    {
        Schedule(qp); // e.g. the outstanding limit was reached
    }
    for (auto& m : done)
    {
        m.rec.end = now;
        qp->m_ackedBytes += m.rec.bytes;
        ++m_completed;
        m_messageCompleteTrace(m.rec);
        if (!m.done.IsNull())
        {
            m.done(m.rec);
        }
    }
}

void
RdmaNic::FailQp(RdmaQueuePair* qp)
{
    NS_LOG_WARN("node " << m_localId << " QP " << qp->m_qpn << " to node " << qp->m_peer << ": "
                        << qp->m_retries + 1
                        << " retransmission timeouts without progress (RetryLimit " << m_retryLimit
                        << "), the QP fails its messages");
    qp->m_failed = true;
    // nothing left to send: the ring and the pacing heap drop the QP when they meet it
    qp->m_sndUna = qp->m_sndNxt = qp->m_sndMax = qp->m_psnEnd;
    qp->m_curMsg = 0;
    std::vector<RdmaQueuePair::Message> messages = qp->m_messages.TakeAll();
    bool first = true;
    for (auto& m : messages)
    {
        CompleteFailed(m, first ? RdmaMessageRecord::RETRY_EXCEEDED : RdmaMessageRecord::FLUSHED);
        first = false;
    }
}

void
RdmaNic::FlushPosted(RdmaQueuePair::Message m)
{
    CompleteFailed(m, RdmaMessageRecord::FLUSHED);
}

void
RdmaNic::CompleteFailed(RdmaQueuePair::Message& m, RdmaMessageRecord::Status status)
{
    m.rec.status = status;
    m.rec.end = Simulator::Now();
    ++m_failedCount;
    m_messageFailedTrace(m.rec);
    if (!m.done.IsNull())
    {
        m.done(m.rec);
    }
}

void
RdmaNic::RateChanged(RdmaQueuePair* qp, double rate)
{
    m_rateChangeTrace(qp->m_qpn, rate);
    if (!m_rateChangeReschedules || qp->m_lastWire <= 0)
    {
        return;
    }
    // the family's nextAvail + (new gap - old gap) telescopes to the last start + the gap at
    // the newest rate; at the line rate the device's serialisation is the gap
    const Time before = qp->m_nextSend;
    qp->m_nextSend = rate < qp->m_lineRate ? qp->m_lastSend + Seconds(qp->m_lastWire * 8.0 / rate)
                                           : qp->m_lastSend;
    const Time now = Simulator::Now();
    if (qp->m_inPacedHeap && qp->m_nextSend < before)
    {
        // waiting in the pacing heap for a later time: wake it at the new one
        Port& pt = m_ports[qp->m_port];
        PushPaced(pt, std::max(qp->m_nextSend, now), qp);
        WakePort(qp->m_port);
    }
    Port& pt = m_ports[qp->m_port];
    if (m_scheduler == SCHED_FAMILY && pt.wakePending && qp->m_nextSend < pt.wakeAt)
    {
        // the family's QbbNetDevice::UpdateNextAvail moves a wake-up already set, no other
        pt.wake.Cancel();
        pt.wakeAt = std::max(qp->m_nextSend, now);
        pt.wake = Simulator::Schedule(pt.wakeAt - now, &RdmaNic::KickPort, this, qp->m_port);
    }
}

void
RdmaNic::WindowChanged(RdmaQueuePair* qp, uint64_t bytes)
{
    m_windowChangeTrace(qp->m_qpn, bytes);
}

} // namespace ns3
