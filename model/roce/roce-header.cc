/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-header.h"

#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceIpUdpHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceRethHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceCnpHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceIcrcTrailer);
NS_OBJECT_ENSURE_REGISTERED(RocePfcHeader);

// ---------------------------------------------------------------- RoceAddress

Ipv4Address
RoceAddress::FromNodeId(uint32_t nodeId)
{
    NS_ASSERT_MSG(nodeId < 65536, "RoceAddress: node id " << nodeId << " > 65535");
    return Ipv4Address(0x0b000001u + ((nodeId / 256) << 16) + ((nodeId % 256) << 8));
}

uint32_t
RoceAddress::ToNodeId(Ipv4Address addr)
{
    return ToNodeId(addr.Get());
}

// ---------------------------------------------------------------- RoceIpUdpHeader

namespace
{
/// fold a 32-bit ones' complement sum to 16 bits
inline uint16_t
Fold(uint32_t sum)
{
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(sum);
}

/// store a 16-bit value in network order
inline void
PutU16(uint8_t* b, uint16_t v)
{
    b[0] = static_cast<uint8_t>(v >> 8);
    b[1] = static_cast<uint8_t>(v);
}

/// store a 32-bit value in network order
inline void
PutU32(uint8_t* b, uint32_t v)
{
    b[0] = static_cast<uint8_t>(v >> 24);
    b[1] = static_cast<uint8_t>(v >> 16);
    b[2] = static_cast<uint8_t>(v >> 8);
    b[3] = static_cast<uint8_t>(v);
}
} // namespace

RoceIpUdpHeader::RoceIpUdpHeader()
{
}

TypeId
RoceIpUdpHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIpUdpHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceIpUdpHeader>();
    return tid;
}

TypeId
RoceIpUdpHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceIpUdpHeader::Print(std::ostream& os) const
{
    os << "IPv4 " << Ipv4Address(m_src) << " > " << Ipv4Address(m_dst)
       << " dscp=" << unsigned(m_dscp) << " ecn=" << unsigned(m_ecn) << " ttl=" << unsigned(m_ttl)
       << " id=" << m_id << " len=" << (SIZE + m_udpPayload) << " UDP " << m_sport << " > "
       << m_dport << " len=" << (8 + m_udpPayload);
}

uint32_t
RoceIpUdpHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceIpUdpHeader::Serialize(Buffer::Iterator i) const
{
    // the 28 bytes are assembled locally and written with one Write: each
    // Buffer::Iterator::WriteU8/WriteHtonU16 checks its bounds out of line
    const uint16_t tos = static_cast<uint16_t>((m_dscp << 2) | m_ecn);
    const uint16_t totalLen = static_cast<uint16_t>(SIZE + m_udpPayload);
    const uint16_t udpLen = static_cast<uint16_t>(8 + m_udpPayload);
    uint32_t sum = (0x4500u | tos) + totalLen + m_id + 0x4000u + ((uint32_t(m_ttl) << 8) | 17u) +
                   (m_src >> 16) + (m_src & 0xffff) + (m_dst >> 16) + (m_dst & 0xffff);
    const uint16_t checksum = static_cast<uint16_t>(~Fold(sum));
    uint8_t b[SIZE];
    b[0] = 0x45;
    b[1] = static_cast<uint8_t>(tos);
    PutU16(b + 2, totalLen);
    PutU16(b + 4, m_id);
    PutU16(b + 6, 0x4000); // DF, fragment offset 0
    b[8] = m_ttl;
    b[9] = 17;
    PutU16(b + 10, checksum);
    PutU32(b + 12, m_src);
    PutU32(b + 16, m_dst);
    PutU16(b + 20, m_sport);
    PutU16(b + 22, m_dport);
    PutU16(b + 24, udpLen);
    PutU16(b + 26, 0); // RoCEv2 sends UDP checksum 0
    i.Write(b, SIZE);
}

uint32_t
RoceIpUdpHeader::Deserialize(Buffer::Iterator i)
{
    // seven 32-bit reads (inlined, no per-byte bounds check)
    const uint32_t w0 = i.ReadNtohU32(); // version/IHL, TOS, total length
    const uint32_t w1 = i.ReadNtohU32(); // identification, flags/fragment offset
    const uint32_t w2 = i.ReadNtohU32(); // TTL, protocol, checksum
    m_src = i.ReadNtohU32();
    m_dst = i.ReadNtohU32();
    const uint32_t w5 = i.ReadNtohU32(); // UDP ports
    i.ReadNtohU32(); // UDP length (derived from the IPv4 total length), checksum
    const uint8_t verIhl = static_cast<uint8_t>(w0 >> 24);
    const uint8_t tos = static_cast<uint8_t>(w0 >> 16);
    const uint16_t totalLen = static_cast<uint16_t>(w0);
    m_id = static_cast<uint16_t>(w1 >> 16);
    m_ttl = static_cast<uint8_t>(w2 >> 24);
    const uint8_t proto = static_cast<uint8_t>(w2 >> 16);
    m_sport = static_cast<uint16_t>(w5 >> 16);
    m_dport = static_cast<uint16_t>(w5);
    m_protocol = proto;
    m_dscp = tos >> 2;
    m_ecn = tos & 3;
    m_udpPayload = totalLen >= SIZE ? static_cast<uint16_t>(totalLen - SIZE) : 0;
    uint32_t sum = (w0 >> 16) + (w0 & 0xffff) + (w1 >> 16) + (w1 & 0xffff) + (w2 >> 16) +
                   (w2 & 0xffff) + (m_src >> 16) + (m_src & 0xffff) + (m_dst >> 16) +
                   (m_dst & 0xffff);
    m_checksumOk = Fold(sum) == 0xffff && verIhl == 0x45 && proto == 17;
    return SIZE;
}

uint16_t
RoceIpUdpHeader::Ipv4Checksum(const uint8_t* b)
{
    uint32_t sum = 0;
    for (int k = 0; k < 20; k += 2)
    {
        sum += (uint32_t(b[k]) << 8) | b[k + 1];
    }
    return static_cast<uint16_t>(~Fold(sum));
}

// ---------------------------------------------------------------- RoceBthHeader

RoceBthHeader::RoceBthHeader()
{
}

TypeId
RoceBthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceBthHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceBthHeader>();
    return tid;
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceBthHeader::Print(std::ostream& os) const
{
    os << "BTH opcode=0x" << std::hex << unsigned(m_opcode) << std::dec << " dqp=" << m_destQp
       << " psn=" << m_psn << " ackreq=" << m_ackReq << " pkey=0x" << std::hex << m_pkey
       << std::dec;
    if (m_becn)
    {
        os << " becn=1";
    }
    if (m_telemetry != 0)
    {
        os << " telemetry=" << unsigned(m_telemetry);
    }
}

uint32_t
RoceBthHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceBthHeader::Serialize(Buffer::Iterator i) const
{
    uint8_t b[SIZE];
    b[0] = m_opcode;
    b[1] = static_cast<uint8_t>((m_se ? 0x80 : 0) | (m_mig ? 0x40 : 0) | (m_pad << 4));
    PutU16(b + 2, m_pkey);
    PutU32(b + 4,
           (m_fecn ? 0x80000000u : 0) | (m_becn ? 0x40000000u : 0) |
               (uint32_t(m_telemetry & 3) << 28) | (uint32_t(m_telemetry >> 2) << 27) | m_destQp);
    PutU32(b + 8, (m_ackReq ? 0x80000000u : 0) | m_psn);
    i.Write(b, SIZE);
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator i)
{
    const uint32_t w0 = i.ReadNtohU32();
    m_opcode = static_cast<uint8_t>(w0 >> 24);
    const uint8_t flags = static_cast<uint8_t>(w0 >> 16);
    m_se = flags & 0x80;
    m_mig = flags & 0x40;
    m_pad = (flags >> 4) & 3;
    m_pkey = static_cast<uint16_t>(w0);
    const uint32_t w1 = i.ReadNtohU32();
    m_fecn = w1 & 0x80000000u;
    m_becn = w1 & 0x40000000u;
    m_telemetry = static_cast<uint8_t>(((w1 >> 28) & 3) | (((w1 >> 27) & 1) << 2));
    m_destQp = w1 & 0xffffff;
    const uint32_t w2 = i.ReadNtohU32();
    m_ackReq = w2 & 0x80000000u;
    m_psn = w2 & 0xffffff;
    return SIZE;
}

// ---------------------------------------------------------------- RoceRethHeader

RoceRethHeader::RoceRethHeader()
{
}

TypeId
RoceRethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRethHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceRethHeader>();
    return tid;
}

TypeId
RoceRethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceRethHeader::Print(std::ostream& os) const
{
    os << "RETH va=0x" << std::hex << m_va << " rkey=0x" << m_rkey << std::dec << " len=" << m_len;
}

uint32_t
RoceRethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceRethHeader::Serialize(Buffer::Iterator i) const
{
    uint8_t b[SIZE];
    PutU32(b, static_cast<uint32_t>(m_va >> 32));
    PutU32(b + 4, static_cast<uint32_t>(m_va));
    PutU32(b + 8, m_rkey);
    PutU32(b + 12, m_len);
    i.Write(b, SIZE);
}

uint32_t
RoceRethHeader::Deserialize(Buffer::Iterator i)
{
    const uint64_t hi = i.ReadNtohU32();
    m_va = (hi << 32) | i.ReadNtohU32();
    m_rkey = i.ReadNtohU32();
    m_len = i.ReadNtohU32();
    return SIZE;
}

// ---------------------------------------------------------------- RoceImmHeader

NS_OBJECT_ENSURE_REGISTERED(RoceImmHeader);

TypeId
RoceImmHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceImmHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceImmHeader>();
    return tid;
}

TypeId
RoceImmHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceImmHeader::Print(std::ostream& os) const
{
    os << "ImmDt 0x" << std::hex << m_imm << std::dec;
}

uint32_t
RoceImmHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceImmHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32(m_imm);
}

uint32_t
RoceImmHeader::Deserialize(Buffer::Iterator i)
{
    m_imm = i.ReadNtohU32();
    return SIZE;
}

// ---------------------------------------------------------------- RoceAethHeader

RoceAethHeader::RoceAethHeader()
{
}

TypeId
RoceAethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAethHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceAethHeader>();
    return tid;
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceAethHeader::Print(std::ostream& os) const
{
    os << "AETH syndrome=0x" << std::hex << unsigned(m_syndrome) << std::dec << " msn=" << m_msn;
}

uint32_t
RoceAethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceAethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32((uint32_t(m_syndrome) << 24) | m_msn);
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator i)
{
    const uint32_t w = i.ReadNtohU32();
    m_syndrome = static_cast<uint8_t>(w >> 24);
    m_msn = w & 0xffffff;
    return SIZE;
}

// ---------------------------------------------------------------- RoceIntHeader

namespace
{
constexpr uint64_t
FieldMask(uint32_t bits)
{
    return (UINT64_C(1) << bits) - 1;
}

// hop word, high to low bits: rate code 3, time 24, bytes 20, qlen 17
constexpr uint32_t QLEN_SHIFT = 0;
constexpr uint32_t BYTES_SHIFT = RoceIntHeader::QLEN_BITS;
constexpr uint32_t TIME_SHIFT = BYTES_SHIFT + RoceIntHeader::BYTES_BITS;
constexpr uint32_t RATE_SHIFT = TIME_SHIFT + RoceIntHeader::TIME_BITS;

const uint64_t g_intRates[8] = {UINT64_C(10000000000),
                                UINT64_C(25000000000),
                                UINT64_C(40000000000),
                                UINT64_C(50000000000),
                                UINT64_C(100000000000),
                                UINT64_C(200000000000),
                                UINT64_C(400000000000),
                                UINT64_C(800000000000)};
} // namespace

RoceIntHeader::RoceIntHeader(Mode mode)
    : m_mode(mode)
{
}

TypeId
RoceIntHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIntHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceIntHeader>();
    return tid;
}

TypeId
RoceIntHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceIntHeader::SetMode(Mode mode)
{
    *this = RoceIntHeader(mode);
}

void
RoceIntHeader::InitHops(uint8_t slots, uint8_t multi, bool wideRates)
{
    SetMode(wideRates ? HOPS_WIDE : HOPS);
    m_slots = std::min<uint8_t>(std::max<uint8_t>(slots, 1), MAX_SLOTS);
    m_multi = std::max<uint8_t>(multi, 1);
}

void
RoceIntHeader::Print(std::ostream& os) const
{
    switch (m_mode)
    {
    case HOPS:
    case HOPS_WIDE:
        os << "INT hops=" << unsigned(m_nHops) << "/" << unsigned(m_slots)
           << " multi=" << unsigned(m_multi);
        for (uint32_t i = 0; i < std::min(m_nHops, m_slots); ++i)
        {
            os << " [t=" << GetHopTime(i) << " tx=" << GetHopBytes(i)
               << " q=" << GetHopQueueBytes(i) << " rate=" << GetHopRate(i) << "]";
        }
        break;
    case PINT:
        os << "INT pint=" << m_pint;
        break;
    case TIMESTAMP:
        os << "INT ts=" << m_timestamp;
        break;
    default:
        os << "INT none";
    }
}

uint32_t
RoceIntHeader::GetSerializedSize() const
{
    switch (m_mode)
    {
    case HOPS:
        return 2 + HOP_SIZE * m_slots;
    case HOPS_WIDE:
        return 2 + (HOP_SIZE + WIDE_RATE_SIZE) * m_slots;
    case PINT:
        return 2;
    case TIMESTAMP:
        return 8;
    default:
        return 0;
    }
}

void
RoceIntHeader::Serialize(Buffer::Iterator i) const
{
    switch (m_mode)
    {
    case HOPS:
    case HOPS_WIDE:
        i.WriteU8(m_multi);
        i.WriteU8(static_cast<uint8_t>((m_slots << 4) | (m_nHops & 0xf)));
        for (uint32_t k = 0; k < m_slots; ++k)
        {
            i.WriteHtonU64(m_hops[k]);
            if (m_mode == HOPS_WIDE)
            {
                i.WriteHtonU32(m_rateMbps[k]);
            }
        }
        break;
    case PINT:
        i.WriteHtonU16(m_pint);
        break;
    case TIMESTAMP:
        i.WriteHtonU64(m_timestamp);
        break;
    default:
        break;
    }
}

uint32_t
RoceIntHeader::Deserialize(Buffer::Iterator i)
{
    const Mode mode = m_mode;
    SetMode(mode);
    switch (mode)
    {
    case HOPS:
    case HOPS_WIDE: {
        m_multi = i.ReadU8();
        const uint8_t b = i.ReadU8();
        m_slots = b >> 4;
        m_nHops = b & 0xf;
        for (uint32_t k = 0; k < m_slots; ++k)
        {
            m_hops[k] = i.ReadNtohU64();
            if (mode == HOPS_WIDE)
            {
                m_rateMbps[k] = i.ReadNtohU32();
            }
        }
        break;
    }
    case PINT:
        m_pint = i.ReadNtohU16();
        break;
    case TIMESTAMP:
        m_timestamp = i.ReadNtohU64();
        break;
    default:
        break;
    }
    return GetSerializedSize();
}

bool
RoceIntHeader::PushHopRate(uint64_t timeNs, uint64_t txBytes, uint64_t qlenBytes, uint64_t bps)
{
    const uint8_t k = m_nHops;
    if (m_mode == HOPS_WIDE)
    {
        if (k < m_slots)
        {
            m_rateMbps[k] = static_cast<uint32_t>(
                std::min<uint64_t>((bps + 500000) / 1000000, std::numeric_limits<uint32_t>::max()));
        }
        return PushHop(timeNs, txBytes, qlenBytes, 0);
    }
    return PushHop(timeNs, txBytes, qlenBytes, RateCode(bps));
}

bool
RoceIntHeader::PushHop(uint64_t timeNs, uint64_t txBytes, uint64_t qlenBytes, uint8_t rateCode)
{
    const uint8_t k = m_nHops;
    if (m_nHops < 0xf)
    {
        ++m_nHops;
    }
    if (k >= m_slots)
    {
        return false;
    }
    const uint64_t bytes = txBytes / (uint64_t(BYTES_UNIT) * m_multi);
    const uint64_t qlen =
        std::min(qlenBytes / (uint64_t(QLEN_UNIT) * m_multi), FieldMask(QLEN_BITS));
    m_hops[k] = (uint64_t(rateCode & 7) << RATE_SHIFT) |
                ((timeNs & FieldMask(TIME_BITS)) << TIME_SHIFT) |
                ((bytes & FieldMask(BYTES_BITS)) << BYTES_SHIFT) | (qlen << QLEN_SHIFT);
    return true;
}

uint32_t
RoceIntHeader::GetHopTime(uint32_t i) const
{
    return static_cast<uint32_t>((m_hops[i] >> TIME_SHIFT) & FieldMask(TIME_BITS));
}

uint32_t
RoceIntHeader::GetHopBytes(uint32_t i) const
{
    return static_cast<uint32_t>((m_hops[i] >> BYTES_SHIFT) & FieldMask(BYTES_BITS));
}

uint64_t
RoceIntHeader::GetHopQueueBytes(uint32_t i) const
{
    return ((m_hops[i] >> QLEN_SHIFT) & FieldMask(QLEN_BITS)) * QLEN_UNIT * m_multi;
}

uint64_t
RoceIntHeader::GetHopRate(uint32_t i) const
{
    if (m_mode == HOPS_WIDE)
    {
        return uint64_t(m_rateMbps[i]) * 1000000;
    }
    return g_intRates[(m_hops[i] >> RATE_SHIFT) & 7];
}

uint64_t
RoceIntHeader::GetTimeDelta(uint32_t i, const RoceIntHeader& older) const
{
    return (GetHopTime(i) - older.GetHopTime(i)) & FieldMask(TIME_BITS);
}

uint64_t
RoceIntHeader::GetBytesDelta(uint32_t i, const RoceIntHeader& older) const
{
    return ((GetHopBytes(i) - older.GetHopBytes(i)) & FieldMask(BYTES_BITS)) * BYTES_UNIT * m_multi;
}

uint8_t
RoceIntHeader::RateCode(uint64_t bps)
{
    for (uint8_t c = 0; c < 8; ++c)
    {
        if (g_intRates[c] == bps)
        {
            return c;
        }
    }
    return NO_RATE_CODE;
}

const uint64_t*
RoceIntHeader::RateTable()
{
    return g_intRates;
}

uint16_t
RoceIntHeader::EncodeUtilisation(double u, double base)
{
    if (!(u > 0))
    {
        return 0;
    }
    const double c = 32768.0 + std::round(std::log(u) / std::log(base));
    return static_cast<uint16_t>(std::min(65535.0, std::max(1.0, c)));
}

double
RoceIntHeader::DecodeUtilisation(uint16_t code, double base)
{
    return code == 0 ? 0.0 : std::pow(base, static_cast<double>(code) - 32768.0);
}

// ---------------------------------------------------------------- RoceCnpHeader

TypeId
RoceCnpHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceCnpHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceCnpHeader>();
    return tid;
}

TypeId
RoceCnpHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceCnpHeader::Print(std::ostream& os) const
{
    os << "CNP reserved(16)";
}

uint32_t
RoceCnpHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceCnpHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(0, SIZE);
}

uint32_t
RoceCnpHeader::Deserialize(Buffer::Iterator i)
{
    i.Next(SIZE);
    return SIZE;
}

// ---------------------------------------------------------------- RoceIcrcTrailer

RoceIcrcTrailer::RoceIcrcTrailer()
{
}

TypeId
RoceIcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceIcrcTrailer>();
    return tid;
}

TypeId
RoceIcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceIcrcTrailer::Print(std::ostream& os) const
{
    os << "ICRC=0x" << std::hex << m_icrc << std::dec;
}

namespace
{
/** CRC-32 (IEEE 802.3, reflected) lookup table, built once. */
struct Crc32Table
{
    uint32_t t[256];

    Crc32Table()
    {
        for (uint32_t n = 0; n < 256; ++n)
        {
            uint32_t c = n;
            for (int k = 0; k < 8; ++k)
            {
                c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            }
            t[n] = c;
        }
    }
};

/** \param crc running register \param b bytes \param n count \return updated register */
uint32_t
Crc32Update(uint32_t crc, const uint8_t* b, uint32_t n)
{
    static const Crc32Table table;
    for (uint32_t k = 0; k < n; ++k)
    {
        crc = table.t[(crc ^ b[k]) & 0xff] ^ (crc >> 8);
    }
    return crc;
}
} // namespace

uint32_t
RoceIcrcTrailer::ComputeIcrc(const uint8_t* ip, uint32_t len)
{
    NS_ASSERT_MSG(len >= RoceIpUdpHeader::SIZE + 12, "ComputeIcrc: shorter than IPv4+UDP+BTH");
    // the variant fields as all ones: IPv4 byte 1 (DSCP, ECN), 8 (TTL), 10-11 (checksum), UDP
    // checksum (26-27), BTH reserved byte before the destination QP (32)
    uint8_t head[RoceIpUdpHeader::SIZE + 12];
    std::memcpy(head, ip, sizeof(head));
    head[1] = 0xff;
    head[8] = 0xff;
    head[10] = 0xff;
    head[11] = 0xff;
    head[26] = 0xff;
    head[27] = 0xff;
    head[RoceIpUdpHeader::SIZE + 4] = 0xff;
    static const uint8_t lrh[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t crc = Crc32Update(0xffffffffu, lrh, sizeof(lrh));
    crc = Crc32Update(crc, head, sizeof(head));
    crc = Crc32Update(crc, ip + sizeof(head), len - sizeof(head));
    return ~crc;
}

bool
RoceIcrcTrailer::FillIcrc(uint8_t* frame, uint32_t len)
{
    const uint32_t eth = 14;
    if (len < eth + RoceIpUdpHeader::SIZE + 12 + SIZE || frame[12] != 0x08 || frame[13] != 0x00)
    {
        return false;
    }
    const uint8_t* ip = frame + eth;
    const uint32_t total = (uint32_t(ip[2]) << 8) | ip[3];
    const uint32_t dport = (uint32_t(ip[22]) << 8) | ip[23];
    if (ip[0] != 0x45 || ip[9] != 17 || dport != RoceIpUdpHeader::ROCE_UDP_PORT ||
        total != len - eth)
    {
        return false;
    }
    const uint32_t icrc = ComputeIcrc(ip, total - SIZE);
    uint8_t* out = frame + len - SIZE;
    out[0] = icrc & 0xff;
    out[1] = (icrc >> 8) & 0xff;
    out[2] = (icrc >> 16) & 0xff;
    out[3] = icrc >> 24;
    return true;
}

void
RoceIcrcTrailer::PcapSink(Ptr<PcapFileWrapper> file, Ptr<const Packet> frame)
{
    // frames are at most a few KiB: one buffer per call keeps the sink reentrant
    std::vector<uint8_t> bytes(frame->GetSize());
    frame->CopyData(bytes.data(), bytes.size());
    FillIcrc(bytes.data(), bytes.size());
    file->Write(Simulator::Now(), bytes.data(), bytes.size());
}

uint32_t
RoceIcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
RoceIcrcTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(SIZE);
    end.WriteHtonU32(m_icrc);
}

uint32_t
RoceIcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(SIZE);
    m_icrc = end.ReadNtohU32();
    return SIZE;
}

// ---------------------------------------------------------------- RocePfcHeader

RocePfcHeader::RocePfcHeader()
{
}

TypeId
RocePfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RocePfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RocePfcHeader>();
    return tid;
}

TypeId
RocePfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RocePfcHeader::Print(std::ostream& os) const
{
    os << "PFC opcode=0x" << std::hex << m_opcode << " cev=0x" << m_classEnable << std::dec;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << unsigned(p) << "=" << m_quanta[p];
        }
    }
}

uint32_t
RocePfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RocePfcHeader::SetQuanta(uint8_t priority, uint16_t quanta)
{
    NS_ASSERT(priority < 8);
    m_classEnable |= static_cast<uint16_t>(1u << priority);
    m_quanta[priority] = quanta;
}

void
RocePfcHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_classEnable);
    for (uint16_t q : m_quanta)
    {
        i.WriteHtonU16(q);
    }
    i.WriteU8(0, SIZE - 20);
}

uint32_t
RocePfcHeader::Deserialize(Buffer::Iterator i)
{
    m_opcode = i.ReadNtohU16();
    m_classEnable = i.ReadNtohU16();
    for (uint16_t& q : m_quanta)
    {
        q = i.ReadNtohU16();
    }
    i.Next(SIZE - 20);
    return SIZE;
}

} // namespace ns3
