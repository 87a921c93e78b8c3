/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// pcap output of a 3-hop chain (host A - switch S1 - switch S2 - host B): the frames are real
// Ethernet/IPv4/UDP 4791/BTH packets; the test parses them byte by byte and, when tshark is
// installed, checks that Wireshark's dissector decodes opcodes, destination QP and PSNs. Also
// checks the ascii trace.

#include "roce-test-util.h"

#include "ns3/node-container.h"
#include "ns3/pcap-file.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
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
        if (access("/usr/bin/tshark", X_OK) != 0)
        {
            std::cerr << "tshark not installed: Wireshark decoding not checked" << std::endl;
            return;
        }
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
    }
};

static RocePcapTestSuite g_rocePcapTestSuite; //!< registers the suite
