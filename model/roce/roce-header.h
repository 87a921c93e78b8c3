/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HEADER_H
#define ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"
#include "ns3/ptr.h"
#include "ns3/trailer.h"

#include <cstdint>

/**
 * \file
 * \ingroup training-net
 * RoCEv2 wire headers: IPv4+UDP (one 28-byte header class), InfiniBand BTH, RETH, AETH,
 * CNP padding, ICRC trailer, IEEE 802.1Qbb PFC frame body, and the node-id <-> IPv4 address
 * convention.
 *
 * A RoCEv2 data packet on the wire (what a pcap shows) is
 * Ethernet(14) | IPv4(20) | UDP(8, dst 4791) | BTH(12) | [RETH(16)] | payload | ICRC(4).
 * The Ethernet header is added by RoceNetDevice when the frame starts on the link and removed
 * on receive; everything from IPv4 on is built by the sender (the RDMA NIC) as:
 * \code
 *   Ptr<Packet> p = Create<Packet>(payloadBytes);
 *   RoceBthHeader bth; ... ; RoceRethHeader reth; ...
 *   p->AddHeader(reth);            // first packet of an RDMA WRITE only
 *   p->AddHeader(bth);
 *   p->AddTrailer(RoceIcrcTrailer());
 *   RoceIpUdpHeader ip;            // addresses, DSCP = priority, ECN = ECT(0), UDP src port
 *   ip.SetUdpPayloadSize(p->GetSize());
 *   p->AddHeader(ip);
 * \endcode
 */

namespace ns3
{

class Packet;
class PcapFileWrapper;

/**
 * \ingroup training-net
 * Node id <-> IPv4 address convention of the HPCC family (doc/design.rst, Sources):
 * node n has 11.(n/256).(n%256).1, i.e. 0x0b000001 + ((n/256) << 16) + ((n%256) << 8).
 * Node ids up to 65535 are representable.
 */
class RoceAddress
{
  public:
    /**
     * \param nodeId node (topology) id, < 65536
     * \return its IPv4 address
     */
    static Ipv4Address FromNodeId(uint32_t nodeId);
    /**
     * \param addr an address made by FromNodeId
     * \return the node id
     */
    static uint32_t ToNodeId(Ipv4Address addr);

    /**
     * \param addr host-order IPv4 address made by FromNodeId
     * \return the node id
     */
    static uint32_t ToNodeId(uint32_t addr)
    {
        return ((addr >> 16) & 0xff) * 256 + ((addr >> 8) & 0xff);
    }
};

/**
 * \ingroup training-net
 * IPv4 (20 bytes, no options) followed by UDP (8 bytes) of a RoCEv2 packet, in one header
 * class so that forwarding needs a single Packet::PeekHeader.
 *
 * IPv4: version 4, IHL 5, DSCP (6 bits; values 0..7 are the data priority, any value >= 8
 * means "control class" and selects the strict-priority control queue; the NIC uses
 * DSCP 48 = CS6 for ACK/NACK/CNP), ECN (2 bits: 0 Not-ECT, 2 ECT(0), 1 ECT(1), 3 CE),
 * total length, identification, DF set, TTL (default 64, decremented by every switch hop),
 * protocol 17, a valid header checksum (always computed on Serialize).
 * UDP: source port (flow entropy used by ECMP), destination port (default 4791 = RoCEv2),
 * length, checksum 0 (as RoCEv2 allows).
 *
 * The fabric also peeks it on ordinary IPv4 packets (TCP, UDP, ICMP of ns-3's internet
 * stack): their addresses, DSCP and protocol are where this header reads them, and TCP and
 * UDP ports are the first 4 bytes after IPv4 as here, so ECMP hashes them alike. Such
 * packets are only peeked, never rewritten with this header (IsRoce(), GetQueue()).
 */
class RoceIpUdpHeader : public Header
{
  public:
    static constexpr uint16_t ROCE_UDP_PORT = 4791; //!< IANA RoCEv2 port
    static constexpr uint32_t SIZE = 28;            //!< serialized size in bytes
    static constexpr uint8_t CONTROL_DSCP = 48;     //!< DSCP used for ACK/NACK/CNP (CS6)

    /// ECN codepoints
    enum EcnType : uint8_t
    {
        NOT_ECT = 0, //!< not ECN capable
        ECT1 = 1,    //!< ECT(1)
        ECT0 = 2,    //!< ECT(0)
        CE = 3       //!< congestion experienced
    };

    RoceIpUdpHeader();
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param a source address */
    void SetSource(Ipv4Address a)
    {
        m_src = a.Get();
    }

    /** \return source address */
    Ipv4Address GetSource() const
    {
        return Ipv4Address(m_src);
    }

    /** \param a destination address */
    void SetDestination(Ipv4Address a)
    {
        m_dst = a.Get();
    }

    /** \return destination address */
    Ipv4Address GetDestination() const
    {
        return Ipv4Address(m_dst);
    }

    /** \return source address, host order */
    uint32_t GetSourceRaw() const
    {
        return m_src;
    }

    /** \return destination address, host order */
    uint32_t GetDestinationRaw() const
    {
        return m_dst;
    }

    /** \param dscp 6-bit DSCP (0..7 data priority, >= 8 control class) */
    void SetDscp(uint8_t dscp)
    {
        m_dscp = dscp & 0x3f;
    }

    /** \return DSCP */
    uint8_t GetDscp() const
    {
        return m_dscp;
    }

    /** \param ecn ECN codepoint (EcnType) */
    void SetEcn(uint8_t ecn)
    {
        m_ecn = ecn & 0x3;
    }

    /** \return ECN codepoint */
    uint8_t GetEcn() const
    {
        return m_ecn;
    }

    /** \param ttl time to live */
    void SetTtl(uint8_t ttl)
    {
        m_ttl = ttl;
    }

    /** \return time to live */
    uint8_t GetTtl() const
    {
        return m_ttl;
    }

    /** \param id IPv4 identification */
    void SetIdentification(uint16_t id)
    {
        m_id = id;
    }

    /** \return IPv4 identification */
    uint16_t GetIdentification() const
    {
        return m_id;
    }

    /** \param port UDP source port (flow entropy) */
    void SetSourcePort(uint16_t port)
    {
        m_sport = port;
    }

    /** \return UDP source port */
    uint16_t GetSourcePort() const
    {
        return m_sport;
    }

    /** \param port UDP destination port */
    void SetDestinationPort(uint16_t port)
    {
        m_dport = port;
    }

    /** \return UDP destination port */
    uint16_t GetDestinationPort() const
    {
        return m_dport;
    }

    /**
     * \param bytes number of bytes after the UDP header (BTH .. ICRC); sets IPv4 total length
     * to bytes + 28 and UDP length to bytes + 8
     */
    void SetUdpPayloadSize(uint16_t bytes)
    {
        m_udpPayload = bytes;
    }

    /** \return number of bytes after the UDP header */
    uint16_t GetUdpPayloadSize() const
    {
        return m_udpPayload;
    }

    /** \return true if DSCP selects the control class (>= 8) */
    bool IsControl() const
    {
        return m_dscp >= 8;
    }

    /** \return the IPv4 protocol read by Deserialize (17 = UDP; always 17 when serialized) */
    uint8_t GetProtocol() const
    {
        return m_protocol;
    }

    /** \return true for a RoCEv2 packet (UDP to port 4791); false for other IPv4 traffic */
    bool IsRoce() const
    {
        return m_protocol == 17 && m_dport == ROCE_UDP_PORT;
    }

    /**
     * The queue of a packet: for RoCEv2, DSCP 0..7 is the data priority and DSCP >= 8 the
     * control queue (8); for other IPv4 traffic (TCP, UDP, ICMP of ns-3's internet stack),
     * the IP precedence (DSCP >> 3, the class selector CS0..CS7) is the data priority, so
     * that ordinary traffic never enters the strict-priority control queue.
     * \return 0..7 data priority, 8 control
     */
    uint8_t GetQueue() const
    {
        if (IsRoce())
        {
            return m_dscp >= 8 ? 8 : m_dscp;
        }
        return m_dscp >> 3;
    }

    /** \return true if the IPv4 checksum was valid when deserialized */
    bool IsChecksumOk() const
    {
        return m_checksumOk;
    }

    /**
     * Compute the IPv4 header checksum of 20 serialized header bytes.
     * \param bytes the header with its checksum field as present
     * \return the ones' complement sum (0 if an existing checksum is valid)
     */
    static uint16_t Ipv4Checksum(const uint8_t* bytes);

  private:
    uint32_t m_src{0};               //!< source address
    uint32_t m_dst{0};               //!< destination address
    uint16_t m_udpPayload{0};        //!< bytes after UDP
    uint16_t m_id{0};                //!< identification
    uint16_t m_sport{0};             //!< UDP source port
    uint16_t m_dport{ROCE_UDP_PORT}; //!< UDP destination port
    uint8_t m_dscp{0};               //!< DSCP
    uint8_t m_ecn{0};                //!< ECN
    uint8_t m_ttl{64};               //!< TTL
    uint8_t m_protocol{17};          //!< IPv4 protocol
    bool m_checksumOk{true};         //!< checksum verified on Deserialize
};

/**
 * \ingroup training-net
 * InfiniBand Base Transport Header (12 bytes):
 * byte 0 opcode; byte 1 SE(1) M(1) PadCnt(2) TVer(4); bytes 2-3 P_Key; byte 4 reserved
 * (FECN/BECN bits 7,6; bits 5,4 say which telemetry header, RoceIntHeader::Mode, follows the
 * transport headers: reserved bits in RoCEv2, used by this model the way the HPCC family's
 * simulators carry INT in their own header); bytes 5-7 destination QP (24 bits); byte 8 AckReq
 * (bit 7) + reserved; bytes 9-11 PSN (24 bits). All in network byte order.
 */
class RoceBthHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 12; //!< serialized size

    /// RC and CNP opcodes used by the model (IBTA vol 1 table 38, RoCEv2 annex A17)
    enum Opcode : uint8_t
    {
        RC_SEND_FIRST = 0x00,
        RC_SEND_MIDDLE = 0x01,
        RC_SEND_LAST = 0x02,
        RC_SEND_ONLY = 0x04,
        RC_WRITE_FIRST = 0x06, //!< carries RETH
        RC_WRITE_MIDDLE = 0x07,
        RC_WRITE_LAST = 0x08,
        RC_WRITE_LAST_IMM = 0x09, //!< carries ImmDt
        RC_WRITE_ONLY = 0x0a,     //!< carries RETH
        RC_WRITE_ONLY_IMM = 0x0b, //!< carries RETH and ImmDt
        RC_ACK = 0x11,            //!< carries AETH (ACK or NACK per syndrome)
        CNP = 0x81                //!< RoCEv2 congestion notification packet
    };

    RoceBthHeader();
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param op opcode */
    void SetOpcode(uint8_t op)
    {
        m_opcode = op;
    }

    /** \return opcode */
    uint8_t GetOpcode() const
    {
        return m_opcode;
    }

    /** \param se solicited event bit */
    void SetSolicitedEvent(bool se)
    {
        m_se = se;
    }

    /** \return solicited event bit */
    bool GetSolicitedEvent() const
    {
        return m_se;
    }

    /** \param m migration request bit (default 1 as in real RoCE NICs) */
    void SetMigReq(bool m)
    {
        m_mig = m;
    }

    /** \return migration bit */
    bool GetMigReq() const
    {
        return m_mig;
    }

    /** \param pad pad count (0..3) */
    void SetPadCount(uint8_t pad)
    {
        m_pad = pad & 3;
    }

    /** \return pad count */
    uint8_t GetPadCount() const
    {
        return m_pad;
    }

    /** \param pkey partition key (default 0xffff) */
    void SetPkey(uint16_t pkey)
    {
        m_pkey = pkey;
    }

    /** \return partition key */
    uint16_t GetPkey() const
    {
        return m_pkey;
    }

    /** \param qp destination QP number (24 bits) */
    void SetDestQp(uint32_t qp)
    {
        m_destQp = qp & 0xffffff;
    }

    /** \return destination QP */
    uint32_t GetDestQp() const
    {
        return m_destQp;
    }

    /** \param a acknowledge-request bit */
    void SetAckRequest(bool a)
    {
        m_ackReq = a;
    }

    /** \return acknowledge-request bit */
    bool GetAckRequest() const
    {
        return m_ackReq;
    }

    /** \param psn packet sequence number (24 bits) */
    void SetPsn(uint32_t psn)
    {
        m_psn = psn & 0xffffff;
    }

    /** \return PSN */
    uint32_t GetPsn() const
    {
        return m_psn;
    }

    /** \param b FECN bit (byte 4 bit 7) */
    void SetFecn(bool b)
    {
        m_fecn = b;
    }

    /** \return FECN */
    bool GetFecn() const
    {
        return m_fecn;
    }

    /** \param b BECN bit (byte 4 bit 6) */
    void SetBecn(bool b)
    {
        m_becn = b;
    }

    /** \return BECN */
    bool GetBecn() const
    {
        return m_becn;
    }

    /** \param mode telemetry header (RoceIntHeader::Mode; HOPS_WIDE sets byte 4 bit 3) */
    void SetTelemetry(uint8_t mode)
    {
        m_telemetry = mode & 7;
    }

    /** \return telemetry header mode (0 = none) */
    uint8_t GetTelemetry() const
    {
        return m_telemetry;
    }

    /**
     * \param op opcode
     * \return true if a packet with this opcode carries a RETH
     */
    static bool HasReth(uint8_t op)
    {
        return op == RC_WRITE_FIRST || op == RC_WRITE_ONLY || op == RC_WRITE_ONLY_IMM;
    }

    /**
     * \param op opcode
     * \return true if a packet with this opcode carries immediate data (ImmDt)
     */
    static bool HasImmediate(uint8_t op)
    {
        return op == 0x03 || op == 0x05 || op == RC_WRITE_LAST_IMM || op == RC_WRITE_ONLY_IMM;
    }

    /**
     * \param op opcode
     * \return true if the opcode ends an RDMA WRITE message
     */
    static bool IsWriteLast(uint8_t op)
    {
        return op == RC_WRITE_LAST || op == RC_WRITE_ONLY || op == RC_WRITE_LAST_IMM ||
               op == RC_WRITE_ONLY_IMM;
    }

    /**
     * \param op opcode
     * \return true if a packet with this opcode carries an AETH
     */
    static bool HasAeth(uint8_t op)
    {
        return op == RC_ACK || (op >= 0x0d && op <= 0x10);
    }

  private:
    uint32_t m_destQp{0};            //!< destination QP
    uint32_t m_psn{0};               //!< PSN
    uint16_t m_pkey{0xffff};         //!< P_Key
    uint8_t m_opcode{RC_WRITE_ONLY}; //!< opcode
    uint8_t m_pad{0};                //!< pad count
    bool m_se{false};                //!< solicited event
    bool m_mig{true};                //!< migreq
    bool m_ackReq{false};            //!< AckReq
    bool m_fecn{false};              //!< FECN
    bool m_becn{false};              //!< BECN
    uint8_t m_telemetry{0};          //!< telemetry header mode (byte 4 bits 5,4, 3)
};

/**
 * \ingroup training-net
 * RDMA Extended Transport Header (16 bytes): virtual address (64), R_Key (32), DMA length (32).
 */
class RoceRethHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 16; //!< serialized size

    RoceRethHeader();
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param v remote virtual address */
    void SetVirtualAddress(uint64_t v)
    {
        m_va = v;
    }

    /** \return remote virtual address */
    uint64_t GetVirtualAddress() const
    {
        return m_va;
    }

    /** \param k remote key */
    void SetRkey(uint32_t k)
    {
        m_rkey = k;
    }

    /** \return remote key */
    uint32_t GetRkey() const
    {
        return m_rkey;
    }

    /** \param len DMA length in bytes (whole message) */
    void SetDmaLength(uint32_t len)
    {
        m_len = len;
    }

    /** \return DMA length */
    uint32_t GetDmaLength() const
    {
        return m_len;
    }

  private:
    uint64_t m_va{0};   //!< virtual address
    uint32_t m_rkey{0}; //!< R_Key
    uint32_t m_len{0};  //!< DMA length
};

/**
 * \ingroup training-net
 * Immediate Data Extended Transport Header (4 bytes), after the RETH if any, on the last
 * packet of an RDMA WRITE with immediate: the responder hands the 32-bit value to its
 * completion (the collective executor uses it to name the transfer that arrived).
 */
class RoceImmHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 4; //!< serialized size

    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param v immediate value */
    void SetImmediate(uint32_t v)
    {
        m_imm = v;
    }

    /** \return immediate value */
    uint32_t GetImmediate() const
    {
        return m_imm;
    }

  private:
    uint32_t m_imm{0}; //!< immediate data
};

/**
 * \ingroup training-net
 * ACK Extended Transport Header (4 bytes): syndrome (8) + MSN (24).
 * Syndrome bits 7..5: 000 ACK (bits 4..0 = credit count, 0x1f = invalid/unlimited),
 * 001 RNR NAK, 011 NAK (bits 4..0: 0 = PSN sequence error, 1 invalid request, 2 remote access,
 * 3 remote operational, 4 invalid RD request).
 */
class RoceAethHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 4;                   //!< serialized size
    static constexpr uint8_t SYNDROME_ACK = 0x1f;         //!< ACK, credits invalid
    static constexpr uint8_t SYNDROME_NAK_PSN_SEQ = 0x60; //!< NAK: PSN sequence error

    RoceAethHeader();
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param s syndrome byte */
    void SetSyndrome(uint8_t s)
    {
        m_syndrome = s;
    }

    /** \return syndrome byte */
    uint8_t GetSyndrome() const
    {
        return m_syndrome;
    }

    /** \return true if the syndrome is a NAK (bits 7..5 = 011) */
    bool IsNak() const
    {
        return (m_syndrome & 0xe0) == 0x60;
    }

    /** \param msn message sequence number (24 bits) */
    void SetMsn(uint32_t msn)
    {
        m_msn = msn & 0xffffff;
    }

    /** \return MSN */
    uint32_t GetMsn() const
    {
        return m_msn;
    }

  private:
    uint32_t m_msn{0};                //!< MSN
    uint8_t m_syndrome{SYNDROME_ACK}; //!< syndrome
};

/**
 * \ingroup training-net
 * In-band telemetry (INT) header: on a data packet it follows the transport headers (BTH, RETH,
 * ImmDt) and precedes the payload; on an ACK it follows the AETH and echoes what the acknowledged
 * data packet collected. The BTH's telemetry bits (RoceBthHeader::SetTelemetry) say which of
 * three layouts it has; their sizes are those the HPCC family's simulators put on the wire:
 *
 * - HOPS (HPCC), 2 + 8 x slots bytes: byte 0 the unit multiplier m (INT_MULTI), byte 1 the
 *   slot count (bits 7..4) and the hops stamped (bits 3..0, counting past the slots when a path
 *   is longer), then one 64-bit word per slot: link rate code (3 bits, RateCode), timestamp
 *   (24 bits, ns, wraps every 16.8 ms), transmitted bytes (20 bits, units of 128 m bytes),
 *   queue length (17 bits, units of 80 m bytes). Deltas between two stamps of a hop are taken
 *   modulo the field width, so the wraps do not matter between ACKs.
 * - PINT, 2 bytes: the largest link utilisation of the path, log-coded (EncodeUtilisation).
 * - TIMESTAMP (TIMELY), 8 bytes: the sender's transmit time in ns.
 */
class RoceIntHeader : public Header
{
  public:
    /// Layout (the BTH's telemetry bits)
    enum Mode : uint8_t
    {
        NONE = 0,
        HOPS = 1,
        PINT = 2,
        TIMESTAMP = 3,
        HOPS_WIDE = 4 //!< HOPS with each hop's rate in 32 bits (Mb/s): any link rate
    };

    static constexpr uint32_t HOP_SIZE = 8;       //!< bytes per hop
    static constexpr uint32_t WIDE_RATE_SIZE = 4; //!< HOPS_WIDE: bytes of a hop's rate
    static constexpr uint32_t MAX_SLOTS = 15;     //!< hop slots a header can hold
    static constexpr uint32_t TIME_BITS = 24;     //!< timestamp width
    static constexpr uint32_t BYTES_BITS = 20;    //!< transmitted-bytes width
    static constexpr uint32_t QLEN_BITS = 17;     //!< queue-length width
    static constexpr uint32_t BYTES_UNIT = 128;   //!< transmitted-bytes unit at m = 1
    static constexpr uint32_t QLEN_UNIT = 80;     //!< queue-length unit at m = 1
    static constexpr uint8_t NO_RATE_CODE = 0xff; //!< RateCode of a rate not in the table

    /** \param mode layout */
    explicit RoceIntHeader(Mode mode = NONE);
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /// The mode must be set first (SetMode, from the BTH's telemetry bits).
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param mode layout (clears the contents) */
    void SetMode(Mode mode);

    /** \return the layout */
    Mode GetMode() const
    {
        return m_mode;
    }

    /**
     * HOPS: empty header with room for some hops.
     * \param slots hop slots (1..MAX_SLOTS) \param multi unit multiplier (1..255)
     * \param wideRates HOPS_WIDE: every hop carries its rate in Mb/s (any rate) instead of
     * a 3-bit code of the eight rates of RateTable()
     */
    void InitHops(uint8_t slots, uint8_t multi, bool wideRates = false);

    /** \return hop slots (HOPS) */
    uint8_t GetSlots() const
    {
        return m_slots;
    }

    /** \return unit multiplier (HOPS) */
    uint8_t GetMulti() const
    {
        return m_multi;
    }

    /** \return hops that stamped the packet (may exceed GetSlots: those hops are missing) */
    uint8_t GetHopCount() const
    {
        return m_nHops;
    }

    /**
     * A switch stamps its egress port (HOPS).
     * \param timeNs now (ns) \param txBytes bytes the port sent so far
     * \param qlenBytes bytes queued on the port \param rateCode RateCode of the port's rate
     * \return false if no slot was left (the hop is counted, not recorded)
     */
    bool PushHop(uint64_t timeNs, uint64_t txBytes, uint64_t qlenBytes, uint8_t rateCode);

    /// PushHop with the port's rate: its Mb/s in HOPS_WIDE, its RateCode in HOPS
    bool PushHopRate(uint64_t timeNs, uint64_t txBytes, uint64_t qlenBytes, uint64_t bps);

    /** \param i hop \return its timestamp field (ns modulo 2^24) */
    uint32_t GetHopTime(uint32_t i) const;
    /** \param i hop \return its transmitted-bytes field (units of 128 m bytes, modulo 2^20) */
    uint32_t GetHopBytes(uint32_t i) const;
    /** \param i hop \return its queue length in bytes (saturated at the field's top) */
    uint64_t GetHopQueueBytes(uint32_t i) const;
    /** \param i hop \return its link rate in bit/s */
    uint64_t GetHopRate(uint32_t i) const;
    /**
     * \param newer later stamp of a hop (this header) \param i hop
     * \param older earlier header \return time between the two stamps (ns)
     */
    uint64_t GetTimeDelta(uint32_t i, const RoceIntHeader& older) const;
    /** \copydoc GetTimeDelta \return bytes sent between the two stamps */
    uint64_t GetBytesDelta(uint32_t i, const RoceIntHeader& older) const;

    /**
     * \param bps a link rate \return its 3-bit code, or NO_RATE_CODE (rates in RateTable())
     */
    static uint8_t RateCode(uint64_t bps);
    /** \return the eight link rates a hop can carry (bit/s), by code */
    static const uint64_t* RateTable();

    /** \param code PINT code */
    void SetPintCode(uint16_t code)
    {
        m_pint = code;
    }

    /** \return PINT code (0 = no hop stamped) */
    uint16_t GetPintCode() const
    {
        return m_pint;
    }

    /**
     * PINT's log coding of a utilisation: 0 for u <= 0, else 32768 + round(log_base(u)),
     * clamped to 1..65535.
     * \param u utilisation \param base log base (> 1) \return the code
     */
    static uint16_t EncodeUtilisation(double u, double base);
    /** \param code code \param base log base \return the utilisation it stands for */
    static double DecodeUtilisation(uint16_t code, double base);

    /** \param ns transmit time (TIMESTAMP) */
    void SetTimestamp(uint64_t ns)
    {
        m_timestamp = ns;
    }

    /** \return transmit time in ns (TIMESTAMP) */
    uint64_t GetTimestamp() const
    {
        return m_timestamp;
    }

  private:
    Mode m_mode;
    uint8_t m_slots{0};
    uint8_t m_multi{1};
    uint8_t m_nHops{0};
    uint64_t m_hops[MAX_SLOTS]{};
    uint32_t m_rateMbps[MAX_SLOTS]{}; //!< HOPS_WIDE: each hop's rate
    uint16_t m_pint{0};
    uint64_t m_timestamp{0};
};

/**
 * \ingroup training-net
 * The 16 reserved bytes that follow the BTH of a RoCEv2 CNP (opcode 0x81). Serialized as zeros.
 */
class RoceCnpHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 16; //!< serialized size

    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
};

/**
 * \ingroup training-net
 * Invariant CRC (4 bytes) at the end of every RoCEv2 packet. In the simulation the trailer
 * holds a fixed value (default 0x00000000, settable; the NIC leaves the 4 bytes zero): the
 * payload bytes are virtual and computing a CRC per packet would cost more than the rest of a
 * hop. The real ICRC is computed where bytes leave the model: the pcap writers
 * (RoceLinkHelper::EnablePcap) fill it in with FillIcrc().
 *
 * The ICRC (IBA annex A17, RoCEv2) is the CRC-32 of Ethernet (reflected polynomial
 * 0xEDB88320, initial value all ones, final complement, stored least significant byte first
 * like the FCS) over 8 bytes of 0xFF standing for the InfiniBand LRH, then the IPv4 header
 * with DSCP/ECN, TTL and header checksum set to all ones, the UDP header with its checksum set
 * to all ones, the BTH with its reserved byte (the one before the destination QP) set to all
 * ones, the other transport headers and the payload: only fields no router changes.
 */
class RoceIcrcTrailer : public Trailer
{
  public:
    static constexpr uint32_t SIZE = 4; //!< serialized size

    /**
     * \param ip a RoCEv2 IPv4 packet from its IPv4 header up to, not including, its ICRC
     * \param len bytes at ip (>= 40: IPv4 + UDP + BTH)
     * \return the ICRC as it is stored on the wire, read as a little-endian 32-bit value
     */
    static uint32_t ComputeIcrc(const uint8_t* ip, uint32_t len);

    /**
     * Fill the ICRC of an Ethernet frame in place, if it is a RoCEv2 frame (ethertype IPv4,
     * IHL 5, UDP to port 4791, IPv4 total length covering the rest of the frame).
     * \param frame the frame bytes (Ethernet header first, no FCS)
     * \param len frame length
     * \return true if it was RoCEv2 and its ICRC was written
     */
    static bool FillIcrc(uint8_t* frame, uint32_t len);

    /**
     * Pcap trace sink that writes a frame with its ICRC filled in (FillIcrc), for a device's
     * Sniffer trace source: bind the file with MakeBoundCallback.
     * \param file pcap file
     * \param frame the frame
     */
    static void PcapSink(Ptr<PcapFileWrapper> file, Ptr<const Packet> frame);

    RoceIcrcTrailer();
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

    /** \param v ICRC value */
    void SetIcrc(uint32_t v)
    {
        m_icrc = v;
    }

    /** \return ICRC value */
    uint32_t GetIcrc() const
    {
        return m_icrc;
    }

  private:
    uint32_t m_icrc{0}; //!< value
};

/**
 * \ingroup training-net
 * Body of an IEEE 802.1Qbb priority flow control frame (after an Ethernet header with
 * destination 01:80:c2:00:00:01 and ethertype 0x8808): opcode 0x0101 (2), class-enable vector
 * (2), 8 x 16-bit quanta (16), then 26 zero pad bytes to the 60-byte minimum frame (46 bytes).
 * One quantum = 512 bit times at the link rate; quanta 0 = XON (resume).
 */
class RocePfcHeader : public Header
{
  public:
    static constexpr uint16_t ETHERTYPE = 0x8808; //!< MAC control
    static constexpr uint16_t OPCODE = 0x0101;    //!< PFC
    static constexpr uint32_t SIZE = 46;          //!< serialized size incl. padding

    RocePfcHeader();
    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * Enable a class and set its quanta.
     * \param priority 0..7
     * \param quanta pause time in quanta (0 = resume)
     */
    void SetQuanta(uint8_t priority, uint16_t quanta);

    /**
     * \param priority 0..7
     * \return the quanta of that class (meaningful if enabled)
     */
    uint16_t GetQuanta(uint8_t priority) const
    {
        return m_quanta[priority & 7];
    }

    /**
     * \param priority 0..7
     * \return true if the class-enable bit of that priority is set
     */
    bool IsEnabled(uint8_t priority) const
    {
        return (m_classEnable >> (priority & 7)) & 1;
    }

    /** \return the class-enable vector */
    uint16_t GetClassEnable() const
    {
        return m_classEnable;
    }

    /** \return opcode read by Deserialize (0x0101 for PFC) */
    uint16_t GetOpcode() const
    {
        return m_opcode;
    }

  private:
    uint16_t m_opcode{OPCODE}; //!< opcode
    uint16_t m_classEnable{0}; //!< class-enable vector
    uint16_t m_quanta[8]{};    //!< per-priority quanta (8 = IEEE 802.1Qbb classes)
};

} // namespace ns3

#endif // ROCE_HEADER_H
