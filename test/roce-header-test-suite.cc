/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Byte-exact serialization of the RoCEv2 wire headers (IPv4+UDP, BTH, RETH, AETH, CNP, ICRC,
// PFC) against hand-written byte patterns in network order, and round trips.

#include "ns3/packet.h"
#include "ns3/roce-header.h"
#include "ns3/roce-ip-view.h"
#include "ns3/roce-wire.h"
#include "ns3/test.h"

#include <algorithm>
#include <vector>

using namespace ns3;

namespace
{

/** \return the bytes of a packet */
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

} // namespace

/**
 * \ingroup training-net-tests
 * RoceIpView reads every field where RoceIpUdpHeader does (RoCE data, the control class, an
 * ordinary UDP packet), and RoceIpRewrite writes the bytes RoceIpUdpHeader writes for the same
 * fields with a new TTL, DSCP and ECN: the switches' rewrite must leave the packets a
 * re-serialized header would (a stale checksum or a misplaced field fails here).
 */
class RoceIpViewTestCase : public TestCase
{
  public:
    RoceIpViewTestCase()
        : TestCase("RoceIpView reads and RoceIpRewrite writes what RoceIpUdpHeader does")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            uint8_t dscp;   //!< DSCP
            uint8_t ecn;    //!< ECN
            uint16_t dport; //!< UDP destination port
        };

        for (const Case& c : {Case{3, RoceIpUdpHeader::ECT0, RoceIpUdpHeader::ROCE_UDP_PORT},
                              Case{RoceIpUdpHeader::CONTROL_DSCP,
                                   RoceIpUdpHeader::NOT_ECT,
                                   RoceIpUdpHeader::ROCE_UDP_PORT},
                              Case{40, RoceIpUdpHeader::ECT1, 53}})
        {
            RoceIpUdpHeader ip;
            ip.SetSource(RoceAddress::FromNodeId(7));
            ip.SetDestination(RoceAddress::FromNodeId(300));
            ip.SetDscp(c.dscp);
            ip.SetEcn(c.ecn);
            ip.SetTtl(17);
            ip.SetIdentification(0xbeef);
            ip.SetSourcePort(0xc123);
            ip.SetDestinationPort(c.dport);
            ip.SetUdpPayloadSize(1040);
            Ptr<Packet> p = Create<Packet>(1040);
            p->AddHeader(ip);
            const RoceIpView view(*p);
            NS_TEST_EXPECT_MSG_EQ(view.GetSourceRaw(), ip.GetSourceRaw(), "source");
            NS_TEST_EXPECT_MSG_EQ(view.GetDestinationRaw(), ip.GetDestinationRaw(), "dest");
            NS_TEST_EXPECT_MSG_EQ(view.GetSourcePort(), ip.GetSourcePort(), "sport");
            NS_TEST_EXPECT_MSG_EQ(view.GetDestinationPort(), ip.GetDestinationPort(), "dport");
            NS_TEST_EXPECT_MSG_EQ(unsigned(view.GetDscp()), unsigned(ip.GetDscp()), "dscp");
            NS_TEST_EXPECT_MSG_EQ(unsigned(view.GetEcn()), unsigned(ip.GetEcn()), "ecn");
            NS_TEST_EXPECT_MSG_EQ(unsigned(view.GetTtl()), 17u, "ttl");
            NS_TEST_EXPECT_MSG_EQ(view.IsRoce(), ip.IsRoce(), "RoCE or not");
            NS_TEST_EXPECT_MSG_EQ(unsigned(view.GetQueue()), unsigned(ip.GetQueue()), "queue");

            // a switch hop: TTL - 1, another DSCP, CE
            RoceIpUdpHeader want = ip;
            want.SetTtl(16);
            want.SetDscp(5);
            want.SetEcn(RoceIpUdpHeader::CE);
            Ptr<Packet> expected = Create<Packet>(1040);
            expected->AddHeader(want);
            p->RemoveAtStart(RoceIpUdpHeader::SIZE);
            p->AddHeader(RoceIpRewrite(view, 16, 5, RoceIpUdpHeader::CE));
            const std::vector<uint8_t> got = Bytes(p);
            NS_TEST_EXPECT_MSG_EQ((got == Bytes(expected)), true, "the bytes a new header writes");
            NS_TEST_EXPECT_MSG_EQ(RoceIpUdpHeader::Ipv4Checksum(got.data()), 0, "checksum valid");
            RoceIpUdpHeader back;
            p->PeekHeader(back);
            NS_TEST_EXPECT_MSG_EQ(back.IsChecksumOk(), true, "read back: checksum");
            NS_TEST_EXPECT_MSG_EQ(unsigned(back.GetTtl()), 16u, "read back: ttl");
            NS_TEST_EXPECT_MSG_EQ(unsigned(back.GetEcn()), unsigned(RoceIpUdpHeader::CE), "ecn");
        }
    }
};

/**
 * \ingroup training-net-tests
 * BTH, RETH, AETH, CNP and ICRC: sizes, byte patterns, round trips.
 */
class RoceTransportHeaderTestCase : public TestCase
{
  public:
    RoceTransportHeaderTestCase()
        : TestCase("BTH, RETH, AETH, CNP, ICRC byte patterns and round trips")
    {
    }

  private:
    void DoRun() override
    {
        RoceBthHeader bth;
        bth.SetOpcode(RoceBthHeader::RC_WRITE_FIRST);
        bth.SetDestQp(0x123456);
        bth.SetPsn(0xabcdef);
        bth.SetAckRequest(true);
        NS_TEST_ASSERT_MSG_EQ(bth.GetSerializedSize(), 12u, "BTH is 12 bytes");
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(bth);
        const std::vector<uint8_t> want =
            {0x06, 0x40, 0xff, 0xff, 0x00, 0x12, 0x34, 0x56, 0x80, 0xab, 0xcd, 0xef};
        NS_TEST_ASSERT_MSG_EQ((Bytes(p) == want), true, "BTH bytes");
        RoceBthHeader b2;
        p->RemoveHeader(b2);
        NS_TEST_EXPECT_MSG_EQ(unsigned(b2.GetOpcode()), 0x06u, "opcode");
        NS_TEST_EXPECT_MSG_EQ(b2.GetDestQp(), 0x123456u, "dest QP");
        NS_TEST_EXPECT_MSG_EQ(b2.GetPsn(), 0xabcdefu, "PSN");
        NS_TEST_EXPECT_MSG_EQ(b2.GetAckRequest(), true, "ack req");
        NS_TEST_EXPECT_MSG_EQ(b2.GetPkey(), 0xffff, "pkey");
        NS_TEST_EXPECT_MSG_EQ(b2.GetMigReq(), true, "mig");
        // 24-bit fields are truncated, flags do not leak into QP / PSN
        bth.SetDestQp(0xff000001);
        bth.SetPsn(0x01ffffff);
        bth.SetAckRequest(false);
        bth.SetFecn(true);
        bth.SetSolicitedEvent(true);
        Ptr<Packet> p2 = Create<Packet>();
        p2->AddHeader(bth);
        const std::vector<uint8_t> want2 =
            {0x06, 0xc0, 0xff, 0xff, 0x80, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff};
        NS_TEST_ASSERT_MSG_EQ((Bytes(p2) == want2), true, "BTH flags bytes");
        p2->RemoveHeader(b2);
        NS_TEST_EXPECT_MSG_EQ(b2.GetDestQp(), 1u, "dest QP masked");
        NS_TEST_EXPECT_MSG_EQ(b2.GetFecn(), true, "FECN");
        NS_TEST_EXPECT_MSG_EQ(b2.GetAckRequest(), false, "ack req off");

        RoceRethHeader reth;
        reth.SetVirtualAddress(0x0102030405060708ULL);
        reth.SetRkey(0x11223344);
        reth.SetDmaLength(0x00010000);
        Ptr<Packet> r = Create<Packet>();
        r->AddHeader(reth);
        const std::vector<uint8_t> wantR = {0x01,
                                            0x02,
                                            0x03,
                                            0x04,
                                            0x05,
                                            0x06,
                                            0x07,
                                            0x08,
                                            0x11,
                                            0x22,
                                            0x33,
                                            0x44,
                                            0x00,
                                            0x01,
                                            0x00,
                                            0x00};
        NS_TEST_ASSERT_MSG_EQ(r->GetSize(), 16u, "RETH is 16 bytes");
        NS_TEST_ASSERT_MSG_EQ((Bytes(r) == wantR), true, "RETH bytes");
        RoceRethHeader r2;
        r->RemoveHeader(r2);
        NS_TEST_EXPECT_MSG_EQ(r2.GetVirtualAddress(), 0x0102030405060708ULL, "va");
        NS_TEST_EXPECT_MSG_EQ(r2.GetRkey(), 0x11223344u, "rkey");
        NS_TEST_EXPECT_MSG_EQ(r2.GetDmaLength(), 0x10000u, "len");

        RoceAethHeader aeth;
        aeth.SetSyndrome(RoceAethHeader::SYNDROME_NAK_PSN_SEQ);
        aeth.SetMsn(0x000102);
        Ptr<Packet> a = Create<Packet>();
        a->AddHeader(aeth);
        const std::vector<uint8_t> wantA = {0x60, 0x00, 0x01, 0x02};
        NS_TEST_ASSERT_MSG_EQ(a->GetSize(), 4u, "AETH is 4 bytes");
        NS_TEST_ASSERT_MSG_EQ((Bytes(a) == wantA), true, "AETH bytes");
        RoceAethHeader a2;
        a->RemoveHeader(a2);
        NS_TEST_EXPECT_MSG_EQ(a2.IsNak(), true, "NAK");
        NS_TEST_EXPECT_MSG_EQ(a2.GetMsn(), 0x102u, "MSN");
        RoceAethHeader ack;
        NS_TEST_EXPECT_MSG_EQ(ack.IsNak(), false, "default is ACK");
        NS_TEST_EXPECT_MSG_EQ(unsigned(ack.GetSyndrome()), 0x1fu, "ACK syndrome");

        // CNP = BTH(0x81) + 16 reserved zero bytes, then ICRC
        Ptr<Packet> cnp = Create<Packet>();
        cnp->AddHeader(RoceCnpHeader());
        RoceBthHeader cb;
        cb.SetOpcode(RoceBthHeader::CNP);
        cb.SetDestQp(0xabc);
        cb.SetPsn(0);
        cnp->AddHeader(cb);
        RoceIcrcTrailer icrc;
        icrc.SetIcrc(0xdeadbeef);
        cnp->AddTrailer(icrc);
        const std::vector<uint8_t> bc = Bytes(cnp);
        NS_TEST_ASSERT_MSG_EQ(bc.size(), 32u, "CNP BTH+16+ICRC = 32 bytes");
        NS_TEST_EXPECT_MSG_EQ(unsigned(bc[0]), 0x81u, "CNP opcode");
        NS_TEST_EXPECT_MSG_EQ((unsigned(bc[6]) << 8 | bc[7]), 0xabcu, "CNP dest QP");
        for (int k = 12; k < 28; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(unsigned(bc[k]), 0u, "CNP reserved byte " << k);
        }
        NS_TEST_EXPECT_MSG_EQ(
            (bc[28] == 0xde && bc[29] == 0xad && bc[30] == 0xbe && bc[31] == 0xef),
            true,
            "ICRC at the end in network order");
        RoceIcrcTrailer t2;
        cnp->RemoveTrailer(t2);
        NS_TEST_EXPECT_MSG_EQ(t2.GetIcrc(), 0xdeadbeefu, "ICRC round trip");
        RoceBthHeader cb2;
        cnp->RemoveHeader(cb2);
        RoceCnpHeader pad;
        NS_TEST_EXPECT_MSG_EQ(cnp->RemoveHeader(pad), 16u, "CNP padding");
        NS_TEST_EXPECT_MSG_EQ(cnp->GetSize(), 0u, "all consumed");
        NS_TEST_EXPECT_MSG_EQ(RoceBthHeader::HasReth(RoceBthHeader::RC_WRITE_ONLY), true, "RETH");
        NS_TEST_EXPECT_MSG_EQ(RoceBthHeader::HasReth(RoceBthHeader::RC_WRITE_MIDDLE),
                              false,
                              "no RETH");
        NS_TEST_EXPECT_MSG_EQ(RoceBthHeader::HasAeth(RoceBthHeader::RC_ACK), true, "AETH");
    }
};

/**
 * \ingroup training-net-tests
 * IPv4+UDP header: bytes, checksum, ECN/DSCP, addresses; PFC frame body; node addressing.
 */
class RoceIpUdpPfcHeaderTestCase : public TestCase
{
  public:
    RoceIpUdpPfcHeaderTestCase()
        : TestCase("IPv4+UDP and PFC byte patterns, checksum, addressing")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(RoceAddress::FromNodeId(0), Ipv4Address("11.0.0.1"), "node 0");
        NS_TEST_EXPECT_MSG_EQ(RoceAddress::FromNodeId(258), Ipv4Address("11.1.2.1"), "node 258");
        NS_TEST_EXPECT_MSG_EQ(RoceAddress::FromNodeId(1).Get(), 0x0b000101u, "node 1 hex");
        for (uint32_t n : {0u, 1u, 255u, 256u, 4095u, 65535u})
        {
            NS_TEST_EXPECT_MSG_EQ(RoceAddress::ToNodeId(RoceAddress::FromNodeId(n)), n, "id " << n);
        }

        RoceIpUdpHeader ip;
        ip.SetSource(RoceAddress::FromNodeId(1));
        ip.SetDestination(RoceAddress::FromNodeId(258));
        ip.SetDscp(3);
        ip.SetEcn(RoceIpUdpHeader::ECT0);
        ip.SetIdentification(0x1234);
        ip.SetSourcePort(0xc001);
        ip.SetUdpPayloadSize(1000);
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(ip);
        std::vector<uint8_t> b = Bytes(p);
        NS_TEST_ASSERT_MSG_EQ(b.size(), 28u, "IPv4+UDP is 28 bytes");
        const std::vector<uint8_t> head =
            {0x45, 0x0e, 0x04, 0x04, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11};
        NS_TEST_EXPECT_MSG_EQ((std::vector<uint8_t>(b.begin(), b.begin() + 10) == head),
                              true,
                              "IPv4 version/tos/len/id/flags/ttl/proto");
        const std::vector<uint8_t> addrs = {0x0b, 0, 1, 1, 0x0b, 1, 2, 1};
        NS_TEST_EXPECT_MSG_EQ((std::vector<uint8_t>(b.begin() + 12, b.begin() + 20) == addrs),
                              true,
                              "addresses");
        const std::vector<uint8_t> udp = {0xc0, 0x01, 0x12, 0xb7, 0x03, 0xf0, 0x00, 0x00};
        NS_TEST_EXPECT_MSG_EQ((std::vector<uint8_t>(b.begin() + 20, b.end()) == udp),
                              true,
                              "UDP sport/dport 4791/len 1008/checksum 0");
        NS_TEST_EXPECT_MSG_EQ(RoceIpUdpHeader::Ipv4Checksum(b.data()),
                              0,
                              "valid IPv4 header checksum");
        // recompute the checksum by hand: zero the field and sum
        std::vector<uint8_t> z(b.begin(), b.begin() + 20);
        z[10] = z[11] = 0;
        const uint16_t ck = RoceIpUdpHeader::Ipv4Checksum(z.data());
        NS_TEST_EXPECT_MSG_EQ(((unsigned(b[10]) << 8) | b[11]), unsigned(ck), "checksum field");

        RoceIpUdpHeader r;
        p->RemoveHeader(r);
        NS_TEST_EXPECT_MSG_EQ(r.IsChecksumOk(), true, "checksum verified");
        NS_TEST_EXPECT_MSG_EQ(r.GetSource(), RoceAddress::FromNodeId(1), "src");
        NS_TEST_EXPECT_MSG_EQ(r.GetDestination(), RoceAddress::FromNodeId(258), "dst");
        NS_TEST_EXPECT_MSG_EQ(unsigned(r.GetDscp()), 3u, "dscp");
        NS_TEST_EXPECT_MSG_EQ(unsigned(r.GetEcn()), 2u, "ecn");
        NS_TEST_EXPECT_MSG_EQ(r.GetSourcePort(), 0xc001, "sport");
        NS_TEST_EXPECT_MSG_EQ(r.GetDestinationPort(), 4791, "dport");
        NS_TEST_EXPECT_MSG_EQ(r.GetUdpPayloadSize(), 1000, "payload");
        NS_TEST_EXPECT_MSG_EQ(r.IsControl(), false, "data class");

        // CE marking changes the TOS byte and keeps the checksum valid
        r.SetEcn(RoceIpUdpHeader::CE);
        p->AddHeader(r);
        b = Bytes(p);
        NS_TEST_EXPECT_MSG_EQ(unsigned(b[1]), 0x0fu, "CE in TOS");
        NS_TEST_EXPECT_MSG_EQ(RoceIpUdpHeader::Ipv4Checksum(b.data()), 0, "checksum after CE");
        // a corrupted byte is detected
        b[8] = 0x3f;
        Ptr<Packet> bad = Create<Packet>(b.data(), b.size());
        RoceIpUdpHeader rb;
        bad->RemoveHeader(rb);
        NS_TEST_EXPECT_MSG_EQ(rb.IsChecksumOk(), false, "bad checksum detected");
        RoceIpUdpHeader ctl;
        ctl.SetDscp(RoceIpUdpHeader::CONTROL_DSCP);
        NS_TEST_EXPECT_MSG_EQ(ctl.IsControl(), true, "control class");

        RocePfcHeader pfc;
        pfc.SetQuanta(3, 0xffff);
        pfc.SetQuanta(5, 0);
        Ptr<Packet> f = Create<Packet>();
        f->AddHeader(pfc);
        std::vector<uint8_t> fb = Bytes(f);
        NS_TEST_ASSERT_MSG_EQ(fb.size(), 46u, "PFC body padded to the minimum frame");
        std::vector<uint8_t> wantF(46, 0);
        wantF[0] = 0x01;
        wantF[1] = 0x01;
        wantF[3] = 0x28; // classes 3 and 5
        wantF[4 + 2 * 3] = 0xff;
        wantF[5 + 2 * 3] = 0xff;
        NS_TEST_EXPECT_MSG_EQ((fb == wantF), true, "PFC bytes");
        RocePfcHeader f2;
        f->RemoveHeader(f2);
        NS_TEST_EXPECT_MSG_EQ(f2.GetOpcode(), 0x0101, "opcode");
        NS_TEST_EXPECT_MSG_EQ(f2.IsEnabled(3), true, "class 3");
        NS_TEST_EXPECT_MSG_EQ(f2.IsEnabled(4), false, "class 4");
        NS_TEST_EXPECT_MSG_EQ(f2.IsEnabled(5), true, "class 5");
        NS_TEST_EXPECT_MSG_EQ(f2.GetQuanta(3), 0xffff, "quanta 3");
        NS_TEST_EXPECT_MSG_EQ(f2.GetQuanta(5), 0, "quanta 5 (XON)");
    }
};

/**
 * \ingroup training-net-tests
 * ICRC against a frame captured from a real NIC (a CNP of a Mellanox ConnectX-4 Lx, published
 * with scapy's RoCE tests): the computed value equals the captured bytes; changing a variant
 * field (DSCP/ECN, TTL, IPv4 checksum, UDP checksum, BTH reserved byte) keeps it, changing an
 * invariant one (destination QP, PSN, a payload byte) does not; FillIcrc writes it into a
 * frame and leaves other frames alone.
 */
class RoceIcrcTestCase : public TestCase
{
  public:
    RoceIcrcTestCase()
        : TestCase("ICRC equals a real NIC's, covers only invariant fields")
    {
    }

  private:
    void DoRun() override
    {
        // Ethernet + IPv4 (TOS 0xc2, TTL 64) + UDP 4791 + BTH (CNP 0x81, QP 0x0118) + 16 zero
        // bytes + ICRC 82 fd 00 2a
        std::vector<uint8_t> f = {0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b,
                                  0x32, 0x08, 0x00, 0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00,
                                  0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12,
                                  0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00,
                                  0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a};
        NS_TEST_ASSERT_MSG_EQ(f.size(), 14u + 60u, "frame size");
        const uint32_t captured = f[70] | f[71] << 8 | f[72] << 16 | uint32_t(f[73]) << 24;
        const uint8_t* ip = f.data() + 14;
        NS_TEST_EXPECT_MSG_EQ(RoceIcrcTrailer::ComputeIcrc(ip, 56), captured, "ConnectX-4 ICRC");
        for (uint32_t variant :
             {14u + 1, 14u + 8, 14u + 10, 14u + 11, 14u + 26, 14u + 27, 14u + 32})
        {
            std::vector<uint8_t> g = f;
            g[variant] ^= 0x5a;
            NS_TEST_EXPECT_MSG_EQ(RoceIcrcTrailer::ComputeIcrc(g.data() + 14, 56),
                                  captured,
                                  "variant byte " << variant - 14 << " not covered");
        }
        for (uint32_t invariant : {14u + 35, 14u + 39, 14u + 50, 14u + 12})
        {
            std::vector<uint8_t> g = f;
            g[invariant] ^= 0x01;
            NS_TEST_EXPECT_MSG_NE(RoceIcrcTrailer::ComputeIcrc(g.data() + 14, 56),
                                  captured,
                                  "invariant byte " << invariant - 14 << " covered");
        }
        std::vector<uint8_t> g = f;
        g[70] = g[71] = g[72] = g[73] = 0;
        NS_TEST_EXPECT_MSG_EQ(RoceIcrcTrailer::FillIcrc(g.data(), g.size()), true, "RoCEv2 frame");
        NS_TEST_EXPECT_MSG_EQ((g == f), true, "FillIcrc writes the captured bytes");
        g[37] = 0xab; // UDP destination port 4791 -> 4779: not RoCEv2
        g[70] = 0;
        NS_TEST_EXPECT_MSG_EQ(RoceIcrcTrailer::FillIcrc(g.data(), g.size()), false, "not RoCE");
        NS_TEST_EXPECT_MSG_EQ(unsigned(g[70]), 0u, "left alone");
        g = f;
        g.pop_back(); // IPv4 total length no longer matches the frame
        NS_TEST_EXPECT_MSG_EQ(RoceIcrcTrailer::FillIcrc(g.data(), g.size()), false, "truncated");
    }
};

/**
 * \ingroup training-net-tests
 * Wire header suite.
 */
/**
 * \ingroup training-net-tests
 * RoceWire::WireBytes against the frames' bytes summed here term by term: under the HPCC
 * family's framing a data packet is its payload + PPP 2 + IPv4 20 + UDP 8 + the family's
 * sequence header (sequence 4, priority group 2) + its INT header (HPCC 5 hops x 8 + 2,
 * TIMELY 8, PINT 2, none 0), without BTH, RETH or ICRC; an ACK PPP 2 + IPv4 20 + its header
 * (ports 2 + 2, flags 2, priority group 2, sequence 4) + the echoed INT header, padded to 48;
 * a CNP 2 + 20 + 8; a PFC frame 2 + 20 + 9. Under Ethernet every frame is the L3 packet +
 * Ethernet header 14 + FCS 4 + preamble/SFD 8 + IFG 12. The packets are built as RdmaNic
 * builds them (IPv4+UDP, BTH, RETH on a first packet, immediate data on a last one with it, the
 * INT header, payload, ICRC).
 */
class RoceWireFramingTestCase : public TestCase
{
  public:
    RoceWireFramingTestCase()
        : TestCase("wire bytes per data packet, ACK, CNP and PFC under both framings")
    {
    }

  private:
    /// \param op opcode \param mode INT mode \param payload bytes \return an L3 packet
    static Ptr<Packet> Make(uint8_t op, RoceIntHeader::Mode mode, uint32_t payload)
    {
        Ptr<Packet> p = Create<Packet>(payload + RoceIcrcTrailer::SIZE);
        if (mode != RoceIntHeader::NONE)
        {
            RoceIntHeader tel(mode);
            if (mode == RoceIntHeader::HOPS || mode == RoceIntHeader::HOPS_WIDE)
            {
                tel.InitHops(5, 1, mode == RoceIntHeader::HOPS_WIDE);
            }
            p->AddHeader(tel);
        }
        if (op == RoceBthHeader::RC_ACK)
        {
            p->AddHeader(RoceAethHeader());
        }
        if (op == RoceBthHeader::CNP)
        {
            p->AddHeader(RoceCnpHeader());
        }
        if (RoceBthHeader::HasImmediate(op))
        {
            p->AddHeader(RoceImmHeader());
        }
        if (RoceBthHeader::HasReth(op))
        {
            p->AddHeader(RoceRethHeader());
        }
        RoceBthHeader bth;
        bth.SetOpcode(op);
        bth.SetTelemetry(mode);
        p->AddHeader(bth);
        RoceIpUdpHeader ip;
        ip.SetUdpPayloadSize(static_cast<uint16_t>(p->GetSize()));
        p->AddHeader(ip);
        return p;
    }

    void DoRun() override
    {
        const uint32_t ppp = 2;
        const uint32_t ipv4 = 20;
        const uint32_t udp = 8;
        const uint32_t seqTs = 4 + 2;
        const uint32_t qbb = 2 + 2 + 2 + 2 + 4;
        const uint32_t ethernet = 14 + 4 + 8 + 12;

        struct Mode
        {
            RoceIntHeader::Mode mode;
            uint32_t familyInt; // the family's IntHeader in that mode
        };

        const Mode modes[] = {{RoceIntHeader::NONE, 0},
                              {RoceIntHeader::HOPS, 5 * 8 + 2},
                              {RoceIntHeader::HOPS_WIDE, 5 * 8 + 2},
                              {RoceIntHeader::TIMESTAMP, 8},
                              {RoceIntHeader::PINT, 2}};
        const uint8_t dataOps[] = {RoceBthHeader::RC_WRITE_FIRST,
                                   RoceBthHeader::RC_WRITE_MIDDLE,
                                   RoceBthHeader::RC_WRITE_LAST,
                                   RoceBthHeader::RC_WRITE_ONLY,
                                   RoceBthHeader::RC_WRITE_LAST_IMM};
        for (const Mode& m : modes)
        {
            for (uint8_t op : dataOps)
            {
                for (uint32_t payload : {1000u, 4096u, 1u})
                {
                    Ptr<Packet> p = Make(op, m.mode, payload);
                    NS_TEST_EXPECT_MSG_EQ(RoceWire::WireBytes(RoceWire::HPCC_FAMILY, *p),
                                          payload + ppp + ipv4 + udp + seqTs + m.familyInt,
                                          "data, mode " << unsigned(m.mode) << ", opcode "
                                                        << unsigned(op) << ", " << payload);
                    NS_TEST_EXPECT_MSG_EQ(RoceWire::WireBytes(RoceWire::ETHERNET, *p),
                                          p->GetSize() + ethernet,
                                          "Ethernet data");
                }
            }
            Ptr<Packet> ack = Make(RoceBthHeader::RC_ACK, m.mode, 0);
            NS_TEST_EXPECT_MSG_EQ(
                RoceWire::WireBytes(RoceWire::HPCC_FAMILY, *ack),
                std::max(ppp + ipv4 + qbb + m.familyInt, ppp + ipv4 + (60 - 14 - 20)),
                "ACK, mode " << unsigned(m.mode));
            NS_TEST_EXPECT_MSG_EQ(RoceWire::WireBytes(RoceWire::ETHERNET, *ack),
                                  ack->GetSize() + ethernet,
                                  "Ethernet ACK");
        }
        // the HPCC data frame of 1000 bytes and its ACK, as doc/roce-hpcc-migration.rst has them
        NS_TEST_EXPECT_MSG_EQ(
            RoceWire::WireBytes(RoceWire::ETHERNET,
                                *Make(RoceBthHeader::RC_WRITE_MIDDLE, RoceIntHeader::HOPS, 1000)),
            1124u,
            "ours");
        NS_TEST_EXPECT_MSG_EQ(
            RoceWire::WireBytes(RoceWire::HPCC_FAMILY,
                                *Make(RoceBthHeader::RC_ACK, RoceIntHeader::HOPS, 0)),
            76u,
            "the family's HPCC ACK");
        Ptr<Packet> cnp = Make(RoceBthHeader::CNP, RoceIntHeader::NONE, 0);
        NS_TEST_EXPECT_MSG_EQ(RoceWire::WireBytes(RoceWire::HPCC_FAMILY, *cnp),
                              ppp + ipv4 + 8,
                              "CNP");
        RocePfcHeader pfc;
        const uint32_t pfcFrame = 14 + pfc.GetSerializedSize();
        NS_TEST_EXPECT_MSG_EQ(RoceWire::PfcWireBytes(RoceWire::HPCC_FAMILY, pfcFrame),
                              ppp + ipv4 + 9,
                              "PFC");
        NS_TEST_EXPECT_MSG_EQ(RoceWire::PfcWireBytes(RoceWire::ETHERNET, pfcFrame),
                              pfcFrame + 4 + 8 + 12,
                              "Ethernet PFC");
        // ordinary IPv4 (not RoCE's port): PPP in place of Ethernet
        Ptr<Packet> ip = Create<Packet>(100);
        RoceIpUdpHeader h;
        h.SetDestinationPort(5000);
        h.SetUdpPayloadSize(100);
        ip->AddHeader(h);
        NS_TEST_EXPECT_MSG_EQ(RoceWire::WireBytes(RoceWire::HPCC_FAMILY, *ip),
                              100 + ipv4 + udp + ppp,
                              "other IPv4");
    }
};

class RoceHeaderTestSuite : public TestSuite
{
  public:
    RoceHeaderTestSuite()
        : TestSuite("training-net-roce-header", UNIT)
    {
        AddTestCase(new RoceTransportHeaderTestCase, TestCase::QUICK);
        AddTestCase(new RoceIpUdpPfcHeaderTestCase, TestCase::QUICK);
        AddTestCase(new RoceIcrcTestCase, TestCase::QUICK);
        AddTestCase(new RoceWireFramingTestCase, TestCase::QUICK);
        AddTestCase(new RoceIpViewTestCase, TestCase::QUICK);
    }
};

static RoceHeaderTestSuite g_roceHeaderTestSuite; //!< registers the suite
