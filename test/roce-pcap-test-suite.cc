/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// pcap output of a 3-hop chain (host A - switch S1 - switch S2 - host B): the frames are real
// Ethernet/IPv4/UDP 4791/BTH packets; the test parses them byte by byte and checks that
// Wireshark's dissector (tshark, installed by utils/setup-debian.sh; its absence fails) decodes
// opcodes, destination QP and PSNs. Also checks the ascii trace. And frames RdmaNics wrote
// through a switch, decoded by tshark: opcodes First/Middle/Last, PSN increments, destination
// QP, ECN bits, TTL, IPv4 checksum, AETH on ACKs, CNPs, and the ICRC.

#include "roce-test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/node-container.h"
#include "ns3/pcap-file.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::roce_test;

namespace
{

const uint32_t NPKT = 20;      //!< data packets of the message
const uint32_t QP = 0xabc;     //!< destination QP of the data
const uint32_t ACK_QP = 0x123; //!< destination QP of the ACK and CNP
const uint32_t PSN0 = 100;     //!< first PSN

/** Opcode of data packet k of the message. */
uint8_t
DataOpcode(uint32_t k)
{
    return k == 0 ? RoceBthHeader::RC_WRITE_FIRST
                  : (k + 1 == NPKT ? RoceBthHeader::RC_WRITE_LAST : RoceBthHeader::RC_WRITE_MIDDLE);
}

/** Host B: answers the last packet with an ACK and a CNP. */
struct Responder
{
    Ptr<RoceSwitch> fwd; //!< B's forwarding object
    uint32_t self{0};    //!< B's node id
    uint32_t peer{0};    //!< A's node id
    uint32_t got{0};     //!< packets received

    /** \param p packet \param port port */
    void Receive(Ptr<Packet> p, uint32_t port)
    {
        if (++got != NPKT)
        {
            return;
        }
        // ACK: BTH(0x11) + AETH
        Ptr<Packet> ack = Create<Packet>();
        RoceAethHeader aeth;
        aeth.SetMsn(1);
        ack->AddHeader(aeth);
        RoceBthHeader bth;
        bth.SetOpcode(RoceBthHeader::RC_ACK);
        bth.SetDestQp(ACK_QP);
        bth.SetPsn(PSN0 + NPKT - 1);
        ack->AddHeader(bth);
        ack->AddTrailer(RoceIcrcTrailer());
        RoceIpUdpHeader ip;
        ip.SetSource(RoceAddress::FromNodeId(self));
        ip.SetDestination(RoceAddress::FromNodeId(peer));
        ip.SetDscp(RoceIpUdpHeader::CONTROL_DSCP);
        ip.SetSourcePort(5000);
        ip.SetUdpPayloadSize(static_cast<uint16_t>(ack->GetSize()));
        ack->AddHeader(ip);
        fwd->SendLocal(ack);
        // CNP: BTH(0x81) + 16 reserved bytes
        Ptr<Packet> cnp = Create<Packet>();
        cnp->AddHeader(RoceCnpHeader());
        bth.SetOpcode(RoceBthHeader::CNP);
        bth.SetPsn(0);
        cnp->AddHeader(bth);
        cnp->AddTrailer(RoceIcrcTrailer());
        ip.SetUdpPayloadSize(static_cast<uint16_t>(cnp->GetSize()));
        cnp->AddHeader(ip);
        fwd->SendLocal(cnp);
    }
};

/** One decoded frame. */
struct Frame
{
    uint32_t opcode; //!< BTH opcode
    uint32_t qp;     //!< destination QP
    uint32_t psn;    //!< PSN
};

} // namespace

/**
 * \ingroup training-net-tests
 * 3-hop chain writes pcap files that decode as RoCEv2.
 */
class RocePcapTestCase : public TestCase
{
  public:
    RocePcapTestCase()
        : TestCase("3-hop chain pcap decodes as RoCEv2")
    {
    }

  private:
    void DoRun() override
    {
        const std::string fileB = CreateTempDirFilename("roce-pcap-b.pcap");
        const std::string prefix = CreateTempDirFilename("roce-pcap");
        const std::string asciiFile = CreateTempDirFilename("roce-ascii.tr");
        uint32_t s1Id = 0;
        uint32_t gotB = 0;
        std::size_t gotA = 0;
        {
            // scope: devices (and the pcap writers their traces hold) die before reading
            Simulate(fileB, prefix, asciiFile, s1Id, gotB, gotA);
        }
        NS_TEST_EXPECT_MSG_EQ(gotB, NPKT, "B got the message");
        NS_TEST_EXPECT_MSG_EQ(gotA, 2u, "A got ACK and CNP");
        Check(fileB, prefix, asciiFile, s1Id);
    }

    /** Build the chain, trace, run. */
    void Simulate(const std::string& fileB,
                  const std::string& prefix,
                  const std::string& asciiFile,
                  uint32_t& s1Id,
                  uint32_t& gotB,
                  std::size_t& gotA)
    {
        NodeContainer n;
        n.Create(4); // A, S1, S2, B
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        link.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer d0 = link.Install(n.Get(0), n.Get(1)); // A0 - S1 port 0
        NetDeviceContainer d1 = link.Install(n.Get(1), n.Get(2)); // S1 port 1 - S2 port 0
        NetDeviceContainer d2 = link.Install(n.Get(2), n.Get(3)); // S2 port 1 - B0
        const uint32_t a = n.Get(0)->GetId();
        const uint32_t b = n.Get(3)->GetId();
        Ptr<RoceSwitch> swA = n.Get(0)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> s1 = n.Get(1)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> s2 = n.Get(2)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> swB = n.Get(3)->GetObject<RoceSwitch>();
        swA->SetLocalAddress(RoceAddress::FromNodeId(a));
        swB->SetLocalAddress(RoceAddress::FromNodeId(b));
        swA->SetRoute(b, {0});
        s1->SetRoute(b, {1});
        s1->SetRoute(a, {0});
        s2->SetRoute(b, {1});
        s2->SetRoute(a, {0});
        swB->SetRoute(a, {0});
        Ptr<TestSink> sinkA = Create<TestSink>();
        swA->SetLocalReceiveCallback(MakeCallback(&TestSink::Receive, sinkA));
        Responder resp;
        resp.fwd = swB;
        resp.self = b;
        resp.peer = a;
        swB->SetLocalReceiveCallback(MakeCallback(&Responder::Receive, &resp));

        link.EnablePcap(fileB, d2.Get(1), false, true);
        link.EnablePcapAll(prefix);
        AsciiTraceHelper ascii;
        link.EnableAsciiAll(ascii.CreateFileStream(asciiFile));

        for (uint32_t k = 0; k < NPKT; ++k)
        {
            swA->SendLocal(BuildPacket(a, b, 0xc000 + 7, 3, DataOpcode(k), QP, PSN0 + k, 1024));
        }
        Simulator::Run();
        Simulator::Destroy();
        s1Id = n.Get(1)->GetId();
        gotB = resp.got;
        gotA = sinkA->rx.size();
    }

    /** Parse the traces. */
    void Check(const std::string& fileB,
               const std::string& prefix,
               const std::string& asciiFile,
               uint32_t s1Id)
    {
        // --- parse B's pcap ourselves
        PcapFile pcap;
        pcap.Open(fileB, std::ios::in);
        NS_TEST_ASSERT_MSG_EQ(pcap.Fail(), false, "pcap opens");
        NS_TEST_EXPECT_MSG_EQ(pcap.GetDataLinkType(), 1u, "DLT_EN10MB");
        std::vector<Frame> frames;
        std::vector<uint8_t> buf(65536);
        uint32_t bad = 0;
        while (true)
        {
            uint32_t sec;
            uint32_t usec;
            uint32_t incl;
            uint32_t orig;
            uint32_t rd;
            pcap.Read(buf.data(), buf.size(), sec, usec, incl, orig, rd);
            if (pcap.Eof() || pcap.Fail())
            {
                break;
            }
            const uint8_t* f = buf.data();
            const bool roce = incl >= 58 && f[12] == 0x08 && f[13] == 0x00 && f[14] == 0x45 &&
                              f[23] == 17 && ((f[36] << 8) | f[37]) == 4791;
            const uint32_t ipLen = (f[16] << 8) | f[17];
            if (!roce || ipLen + 14 != incl || RoceIpUdpHeader::Ipv4Checksum(f + 14) != 0)
            {
                ++bad;
                continue;
            }
            frames.push_back(Frame{f[42],
                                   uint32_t(f[47]) << 16 | uint32_t(f[48]) << 8 | f[49],
                                   uint32_t(f[51]) << 16 | uint32_t(f[52]) << 8 | f[53]});
        }
        pcap.Close();
        NS_TEST_EXPECT_MSG_EQ(bad, 0u, "all frames are valid RoCEv2 with IPv4 checksum");
        NS_TEST_ASSERT_MSG_EQ(frames.size(), NPKT + 2, "20 data frames in, ACK + CNP out");
        if (frames.size() != NPKT + 2)
        {
            return;
        }
        for (uint32_t k = 0; k < NPKT; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(frames[k].opcode, unsigned(DataOpcode(k)), "opcode " << k);
            NS_TEST_EXPECT_MSG_EQ(frames[k].qp, QP, "dest QP " << k);
            NS_TEST_EXPECT_MSG_EQ(frames[k].psn, PSN0 + k, "PSN " << k);
        }
        NS_TEST_EXPECT_MSG_EQ(frames[NPKT].opcode, 0x11u, "ACK");
        NS_TEST_EXPECT_MSG_EQ(frames[NPKT + 1].opcode, 0x81u, "CNP");
        NS_TEST_EXPECT_MSG_EQ(frames[NPKT + 1].qp, ACK_QP, "CNP dest QP");

        // --- the other devices' pcaps exist (EnablePcapAll naming prefix-node-device.pcap)
        std::ifstream s1In(prefix + "-" + std::to_string(s1Id) + "-1.pcap");
        NS_TEST_EXPECT_MSG_EQ(s1In.good(), true, "S1 port 1 pcap written");

        // --- ascii trace
        std::ifstream asc(asciiFile);
        std::string line;
        uint32_t enq = 0;
        uint32_t deq = 0;
        uint32_t rcv = 0;
        while (std::getline(asc, line))
        {
            enq += line.rfind("+ ", 0) == 0;
            deq += line.rfind("- ", 0) == 0;
            rcv += line.rfind("r ", 0) == 0;
        }
        // each of the 22 packets is enqueued on 3 devices (A or B, S1, S2)
        NS_TEST_EXPECT_MSG_EQ(enq, 3 * (NPKT + 2), "ascii enqueue lines");
        NS_TEST_EXPECT_MSG_EQ(deq, 3 * (NPKT + 2), "ascii dequeue lines");
        NS_TEST_EXPECT_MSG_EQ(rcv, 3 * (NPKT + 2), "ascii receive lines");

        // --- Wireshark's dissector (UDP 4791 = RoCEv2 by default)
        NS_TEST_ASSERT_MSG_EQ(access("/usr/bin/tshark", X_OK),
                              0,
                              "tshark is missing: run utils/setup-debian.sh");
        const std::string cmd = "/usr/bin/tshark -r '" + fileB +
                                "' -T fields -e infiniband.bth.opcode -e infiniband.bth.destqp "
                                "-e infiniband.bth.psn 2>/dev/null";
        FILE* pipe = popen(cmd.c_str(), "r");
        NS_TEST_ASSERT_MSG_NE(pipe, nullptr, "tshark runs");
        std::vector<Frame> decoded;
        char lineBuf[512];
        while (fgets(lineBuf, sizeof(lineBuf), pipe))
        {
            std::istringstream in(lineBuf);
            std::string op;
            std::string qp;
            std::string psn;
            if (in >> op >> qp >> psn)
            {
                decoded.push_back(Frame{uint32_t(std::strtoul(op.c_str(), nullptr, 0)),
                                        uint32_t(std::strtoul(qp.c_str(), nullptr, 0)),
                                        uint32_t(std::strtoul(psn.c_str(), nullptr, 0))});
            }
        }
        pclose(pipe);
        NS_TEST_ASSERT_MSG_EQ(decoded.size(), NPKT + 2, "tshark decodes every frame as RoCE");
        if (decoded.size() != NPKT + 2)
        {
            return;
        }
        for (uint32_t k = 0; k < NPKT + 2; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(decoded[k].opcode, frames[k].opcode, "tshark opcode " << k);
            NS_TEST_EXPECT_MSG_EQ(decoded[k].qp, frames[k].qp, "tshark dest QP " << k);
            NS_TEST_EXPECT_MSG_EQ(decoded[k].psn, frames[k].psn, "tshark PSN " << k);
        }
        NS_TEST_EXPECT_MSG_EQ(decoded[0].qp, QP, "QP 0xabc");
        NS_TEST_EXPECT_MSG_EQ(decoded[NPKT - 1].psn, PSN0 + NPKT - 1, "last PSN");
    }
};

namespace
{

/**
 * ICRC by the bit: CRC-32 (reflected 0xEDB88320) over 8 bytes of 0xFF and the IPv4 packet with
 * its variant fields as ones, one bit at a time; written apart from the model's table code.
 * \param ip IPv4 packet without its ICRC \param len its length \return wire value (LE)
 */
uint32_t
BitwiseIcrc(const uint8_t* ip, uint32_t len)
{
    uint32_t crc = 0xffffffffu;
    auto feed = [&crc](uint8_t byte) {
        crc ^= byte;
        for (int k = 0; k < 8; ++k)
        {
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
    };
    for (int k = 0; k < 8; ++k)
    {
        feed(0xff);
    }
    for (uint32_t k = 0; k < len; ++k)
    {
        const bool variant =
            k == 1 || k == 8 || k == 10 || k == 11 || k == 26 || k == 27 || k == 32;
        feed(variant ? 0xff : ip[k]);
    }
    return ~crc;
}

/** One frame as tshark decodes it (fields empty when absent). */
struct Decoded
{
    std::string src;     //!< ip.src
    uint32_t ttl{0};     //!< ip.ttl
    uint32_t ecn{0};     //!< ip.dsfield.ecn
    uint32_t ipCsum{0};  //!< ip.checksum.status (1 = good)
    int opcode{-1};      //!< infiniband.bth.opcode
    uint32_t qp{0};      //!< infiniband.bth.destqp
    uint32_t psn{0};     //!< infiniband.bth.psn
    bool aeth{false};    //!< infiniband.aeth.msn present
    uint32_t icrc{0};    //!< infiniband.invariant.crc
    bool hasIcrc{false}; //!< tshark showed the ICRC (Wireshark 4.0: not for CNPs)
};

/** \param file pcap \return tshark's decoding of each frame */
std::vector<Decoded>
Tshark(const std::string& file)
{
    const std::string cmd = "/usr/bin/tshark -r '" + file +
                            "' -o ip.check_checksum:TRUE -T fields -E separator=, "
                            "-e ip.src -e ip.ttl -e ip.dsfield.ecn -e ip.checksum.status "
                            "-e infiniband.bth.opcode -e infiniband.bth.destqp "
                            "-e infiniband.bth.psn -e infiniband.aeth.msn "
                            "-e infiniband.invariant.crc 2>/dev/null";
    std::vector<Decoded> out;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe)
    {
        return out;
    }
    char line[1024];
    while (fgets(line, sizeof(line), pipe))
    {
        std::vector<std::string> f;
        std::stringstream in(line);
        std::string item;
        while (std::getline(in, item, ','))
        {
            f.push_back(item);
        }
        if (f.size() < 9)
        {
            continue;
        }
        auto num = [](const std::string& x) {
            return uint32_t(std::strtoul(x.c_str(), nullptr, 0));
        };
        Decoded d;
        d.src = f[0];
        d.ttl = num(f[1]);
        d.ecn = num(f[2]);
        d.ipCsum = num(f[3]);
        d.opcode = f[4].empty() ? -1 : int(num(f[4]));
        d.qp = num(f[5]);
        d.psn = num(f[6]);
        d.aeth = !f[7].empty();
        d.icrc = num(f[8]);
        d.hasIcrc = f[8].find("0x") == 0;
        out.push_back(d);
    }
    pclose(pipe);
    return out;
}

/** \param file pcap \return per RoCEv2 frame: (ICRC in the file read big-endian, bitwise one) */
std::vector<std::pair<uint32_t, uint32_t>>
FileIcrcs(const std::string& file)
{
    std::vector<std::pair<uint32_t, uint32_t>> out;
    PcapFile pcap;
    pcap.Open(file, std::ios::in);
    std::vector<uint8_t> buf(65536);
    while (!pcap.Fail())
    {
        uint32_t sec;
        uint32_t usec;
        uint32_t incl;
        uint32_t orig;
        uint32_t rd;
        pcap.Read(buf.data(), buf.size(), sec, usec, incl, orig, rd);
        if (pcap.Eof() || pcap.Fail())
        {
            break;
        }
        const uint8_t* f = buf.data();
        if (incl < 58 || f[12] != 0x08 || f[13] != 0x00)
        {
            continue; // PFC frames
        }
        const uint8_t* t = f + incl - 4;
        const uint32_t wire = uint32_t(t[0]) << 24 | uint32_t(t[1]) << 16 | t[2] << 8 | t[3];
        const uint32_t le = BitwiseIcrc(f + 14, incl - 14 - 4);
        const uint32_t asWire =
            (le & 0xff) << 24 | (le & 0xff00) << 8 | (le >> 8 & 0xff00) | le >> 24;
        out.emplace_back(wire, asWire);
    }
    pcap.Close();
    return out;
}

/** Restores every Config default when the test ends, also by a failed assertion. */
struct ConfigGuard
{
    ~ConfigGuard()
    {
        Config::Reset();
    }
};

/** counts completions */
struct Completions
{
    uint32_t count{0}; //!< completions

    /** sink */
    void Done(const RdmaMessageRecord&)
    {
        ++count;
    }
};

} // namespace

/**
 * \ingroup training-net-tests
 * Frames written by RdmaNics through a switch, decoded by tshark: NPUs 0 and 1 each WRITE
 * 64 KiB (16 packets) to NPU 2 through one switch that marks every packet leaving a non-empty
 * queue, so NPU 2 answers with ACKs and CNPs. On NPU 2's cable: WRITE First/Middle.../Last per
 * QP with PSNs +1 and one destination QP, ECN ECT(0) or CE, TTL 63 (one switch hop), good IPv4
 * checksums. On NPU 0's cable: ACKs carrying an AETH and CNPs, TTL 63. Every ICRC in both
 * files equals a bitwise computation and tshark reads the same value.
 */
class RoceNicPcapTestCase : public TestCase
{
  public:
    RoceNicPcapTestCase()
        : TestCase("RdmaNic frames through a switch: tshark decodes BTH, ECN, AETH, CNP, ICRC")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(access("/usr/bin/tshark", X_OK),
                              0,
                              "tshark is missing: run utils/setup-debian.sh");
        const std::string file0 = CreateTempDirFilename("roce-nic-npu0.pcap");
        const std::string file2 = CreateTempDirFilename("roce-nic-npu2.pcap");
        uint32_t completions = 0;
        {
            ConfigGuard guard;
            Config::SetDefault("ns3::RoceSwitchMmu::EcnKmin", UintegerValue(0));
            Config::SetDefault("ns3::RoceSwitchMmu::EcnKmax", UintegerValue(0));
            Config::SetDefault("ns3::RoceSwitchMmu::EcnScaleWithRate", BooleanValue(false));
            tn_topology* topo = nullptr;
            tn_error err{};
            NS_TEST_ASSERT_MSG_EQ(
                tn_topology_from_spec("switch:3,rate=100Gbps,latency=1us", &topo, &err),
                TN_OK,
                "topology");
            RoceHelper roce;
            RoceFabricNodes f = roce.Install(topo);
            roce.EnablePcap(file0,
                            f.nodes.Get(0)->GetObject<RoceSwitch>()->GetPort(0),
                            false,
                            true);
            roce.EnablePcap(file2,
                            f.nodes.Get(2)->GetObject<RoceSwitch>()->GetPort(0),
                            false,
                            true);
            Completions done;
            for (uint32_t s = 0; s < 2; ++s)
            {
                roce.GetNic(s)->PostWrite(2, 16 * 4096, 3, MakeCallback(&Completions::Done, &done));
            }
            Simulator::Run();
            Simulator::Destroy();
            tn_topology_destroy(topo);
            completions = done.count;
        }
        NS_TEST_EXPECT_MSG_EQ(completions, 2u, "both WRITEs complete");

        // --- NPU 2's cable: the data as it left the switch
        std::vector<Decoded> in2 = Tshark(file2);
        std::map<std::string, std::vector<Decoded>> flows; // data per source address
        uint32_t badIp = 0;
        uint32_t ce = 0;
        uint32_t ect = 0;
        for (const Decoded& d : in2)
        {
            if (d.opcode >= 0x06 && d.opcode <= 0x08)
            {
                flows[d.src].push_back(d);
                badIp += (d.ttl == 63 && d.ipCsum == 1) ? 0 : 1;
                ce += d.ecn == 3 ? 1 : 0;
                ect += d.ecn == 2 ? 1 : 0;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 2u, "data of two senders decoded");
        for (const auto& kv : flows)
        {
            const std::vector<Decoded>& v = kv.second;
            NS_TEST_ASSERT_MSG_EQ(v.size(), 16u, "16 packets from " << kv.first);
            uint32_t wrong = 0;
            for (uint32_t k = 0; k < v.size(); ++k)
            {
                const int want = k == 0 ? 0x06 : (k + 1 == v.size() ? 0x08 : 0x07);
                wrong += v[k].opcode == want ? 0 : 1;
                wrong += v[k].qp == v[0].qp ? 0 : 1;
                wrong += v[k].psn == v[0].psn + k ? 0 : 1;
            }
            NS_TEST_EXPECT_MSG_EQ(wrong, 0u, "First, Middle..., Last; one QP; PSN + 1");
        }
        NS_TEST_EXPECT_MSG_NE(flows.begin()->second[0].qp,
                              flows.rbegin()->second[0].qp,
                              "two destination QPs");
        NS_TEST_EXPECT_MSG_EQ(badIp, 0u, "TTL 63 after one switch, IPv4 checksum good");
        NS_TEST_EXPECT_MSG_GT(ce, 0u, "CE-marked packets decoded");
        NS_TEST_EXPECT_MSG_EQ(ce + ect, 32u, "every data packet ECN capable (ECT(0) or CE)");

        // --- NPU 0's cable: ACKs and CNPs NPU 2 wrote, through the switch
        std::vector<Decoded> in0 = Tshark(file0);
        uint32_t acks = 0;
        uint32_t cnps = 0;
        uint32_t badCtl = 0;
        for (const Decoded& d : in0)
        {
            if (d.opcode == 0x11)
            {
                ++acks;
                badCtl += (d.aeth && d.ttl == 63 && d.ipCsum == 1) ? 0 : 1;
            }
            else if (d.opcode == 0x81)
            {
                ++cnps;
                badCtl += (!d.aeth && d.ttl == 63 && d.ipCsum == 1) ? 0 : 1;
            }
        }
        NS_TEST_EXPECT_MSG_GT(acks, 0u, "ACKs decoded");
        NS_TEST_EXPECT_MSG_GT(cnps, 0u, "CNPs decoded");
        NS_TEST_EXPECT_MSG_EQ(badCtl, 0u, "ACKs carry an AETH, CNPs none, TTL 63");

        // --- ICRC: the file's bytes equal a bitwise computation; tshark reads the same value
        for (const std::string& file : {file0, file2})
        {
            std::vector<std::pair<uint32_t, uint32_t>> icrcs = FileIcrcs(file);
            std::vector<Decoded> dec = Tshark(file);
            std::vector<Decoded> tsharkIcrc;
            for (const Decoded& d : dec)
            {
                if (d.opcode >= 0)
                {
                    tsharkIcrc.push_back(d);
                }
            }
            NS_TEST_ASSERT_MSG_EQ(icrcs.size(), tsharkIcrc.size(), "RoCE frames in " << file);
            uint32_t bad = 0;
            uint32_t disagree = 0;
            uint32_t shown = 0;
            for (std::size_t k = 0; k < icrcs.size(); ++k)
            {
                bad += icrcs[k].first == icrcs[k].second ? 0 : 1;
                if (tsharkIcrc[k].hasIcrc)
                {
                    ++shown;
                    disagree += icrcs[k].first == tsharkIcrc[k].icrc ? 0 : 1;
                }
            }
            NS_TEST_EXPECT_MSG_GT(shown, 10u, "ICRCs shown by tshark");
            NS_TEST_EXPECT_MSG_EQ(bad, 0u, "ICRC correct in " << file);
            NS_TEST_EXPECT_MSG_EQ(disagree, 0u, "tshark reads the same ICRC");
        }
    }
};

/** The frames a sink saw: their bytes and their Ethernet types. */
struct FrameSink
{
    uint64_t bytes{0};    //!< frame bytes
    uint32_t frames{0};   //!< frames
    uint32_t ethernet{0}; //!< frames whose bytes 12..13 are 0x0800 (IPv4)
    uint32_t pfc{0};      //!< frames whose bytes 12..13 are 0x8808 (PFC)

    /** \param frame a frame the device sent */
    void Sent(Ptr<const Packet> frame)
    {
        uint8_t b[14] = {};
        frame->CopyData(b, sizeof(b));
        bytes += frame->GetSize();
        ++frames;
        ethernet += (b[12] == 0x08 && b[13] == 0x00) ? 1 : 0;
        pfc += (b[12] == 0x88 && b[13] == 0x08) ? 1 : 0;
    }
};

/**
 * \ingroup training-net-tests
 * A frame crosses a cable without its Ethernet bytes when nothing sees them, and counts as the
 * frame it stands for: the same WRITEs through switch:3 with no sink and with a PhyTxBegin sink
 * on every port end the same (time, each device's frames and bytes), and a sink sees every
 * frame with its Ethernet header, the bytes the device counted (the counter adding the 14
 * bytes a bare frame lacks is what keeps the two runs equal).
 */
class RoceBareFrameTestCase : public TestCase
{
  public:
    RoceBareFrameTestCase()
        : TestCase("frames without Ethernet bytes when unseen count and time as with them")
    {
    }

  private:
    /** Per device: frames and bytes sent. */
    struct Run
    {
        std::vector<uint64_t> txBytes;   //!< GetTxBytes of each port device
        std::vector<uint64_t> txPackets; //!< GetTxPackets of each port device
        int64_t end{0};                  //!< end of the simulation (time steps)
        uint32_t completions{0};         //!< WRITEs completed
        std::vector<FrameSink> seen;     //!< what the sinks saw (with sinks)
        std::string error;               //!< why it did not run ("" if it ran)
    };

    /** \param sinks connect a PhyTxBegin sink on every port device \return the run */
    Run Simulate(bool sinks)
    {
        Run r;
        tn_topology* topo = nullptr;
        tn_error err{};
        if (tn_topology_from_spec("switch:3,rate=100Gbps,latency=1us", &topo, &err) != TN_OK)
        {
            r.error = err.message;
            return r;
        }
        RoceHelper roce;
        RoceFabricNodes f = roce.Install(topo);
        std::vector<Ptr<RoceNetDevice>> devs;
        for (uint32_t n = 0; n < f.nodes.GetN(); ++n)
        {
            Ptr<RoceSwitch> sw = f.nodes.Get(n)->GetObject<RoceSwitch>();
            for (uint32_t k = 0; sw && k < sw->GetNPorts(); ++k)
            {
                devs.push_back(sw->GetPort(k));
            }
        }
        r.seen.resize(devs.size());
        for (std::size_t k = 0; sinks && k < devs.size(); ++k)
        {
            devs[k]->TraceConnectWithoutContext("PhyTxBegin",
                                                MakeCallback(&FrameSink::Sent, &r.seen[k]));
        }
        Completions done;
        for (uint32_t s = 0; s < 2; ++s)
        {
            roce.GetNic(s)->PostWrite(2, 16 * 4096, 3, MakeCallback(&Completions::Done, &done));
        }
        Simulator::Run();
        r.end = Simulator::Now().GetTimeStep();
        for (const Ptr<RoceNetDevice>& d : devs)
        {
            r.txBytes.push_back(d->GetTxBytes());
            r.txPackets.push_back(d->GetTxPackets());
        }
        Simulator::Destroy();
        tn_topology_destroy(topo);
        r.completions = done.count;
        return r;
    }

    void DoRun() override
    {
        const Run bare = Simulate(false);
        NS_TEST_ASSERT_MSG_EQ(bare.error, "", "topology");
        const Run seen = Simulate(true);
        NS_TEST_ASSERT_MSG_EQ(seen.error, "", "topology");
        NS_TEST_EXPECT_MSG_EQ(bare.completions, 2u, "both WRITEs complete");
        NS_TEST_EXPECT_MSG_EQ(seen.completions, 2u, "both WRITEs complete, seen");
        NS_TEST_EXPECT_MSG_EQ(bare.end, seen.end, "the same end");
        NS_TEST_ASSERT_MSG_EQ(bare.txBytes.size(), seen.txBytes.size(), "the same devices");
        NS_TEST_ASSERT_MSG_GT(seen.txBytes.size(), 0u, "port devices");
        uint32_t differ = 0;
        uint32_t notCounted = 0;
        uint32_t noEthernet = 0;
        uint64_t frames = 0;
        for (std::size_t k = 0; k < bare.txBytes.size(); ++k)
        {
            differ += bare.txBytes[k] == seen.txBytes[k] ? 0 : 1;
            differ += bare.txPackets[k] == seen.txPackets[k] ? 0 : 1;
            notCounted += seen.seen[k].bytes == seen.txBytes[k] ? 0 : 1;
            notCounted += seen.seen[k].frames == seen.txPackets[k] ? 0 : 1;
            noEthernet += seen.seen[k].ethernet + seen.seen[k].pfc == seen.seen[k].frames ? 0 : 1;
            frames += seen.seen[k].ethernet;
        }
        NS_TEST_EXPECT_MSG_EQ(differ, 0u, "each device's frames and bytes, with or without sinks");
        NS_TEST_EXPECT_MSG_EQ(notCounted, 0u, "a sink sees the bytes the device counts");
        NS_TEST_EXPECT_MSG_EQ(noEthernet, 0u, "every frame seen has its Ethernet header");
        NS_TEST_EXPECT_MSG_GT(frames, 64u, "IPv4 frames seen with their Ethernet header");
    }
};

/**
 * \ingroup training-net-tests
 * pcap suite.
 */
class RocePcapTestSuite : public TestSuite
{
  public:
    RocePcapTestSuite()
        : TestSuite("training-net-roce-pcap", SYSTEM)
    {
        AddTestCase(new RocePcapTestCase, TestCase::QUICK);
        AddTestCase(new RoceNicPcapTestCase, TestCase::QUICK);
        AddTestCase(new RoceBareFrameTestCase, TestCase::QUICK);
    }
};

static RocePcapTestSuite g_rocePcapTestSuite; //!< registers the suite
