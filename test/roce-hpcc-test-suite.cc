/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The HPCC-style flow runner (library side of examples/roce-hpcc-flows.cc): FCT files of the
 * incast and leaf-spine test data, the ideal FCT closed form, input errors with file:line.
 */
#include "tn-test-data.h"

#include "ns3/roce-hpcc-flows.h"
#include "ns3/test.h"
#include "ns3/tn-routing.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/// One parsed fct.txt line.
struct FctLine
{
    uint32_t sip;
    uint32_t dip;
    uint32_t sport;
    uint32_t dport;
    uint64_t size;
    uint64_t startNs;
    uint64_t fctNs;
    uint64_t idealNs;
};

/// Parse an fct file; false if a line does not have the 8 columns.
bool
ReadFct(const std::string& path, std::vector<FctLine>* out)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream is(line);
        FctLine f;
        std::string extra;
        is >> std::hex >> f.sip >> f.dip >> std::dec >> f.sport >> f.dport >> f.size >> f.startNs >>
            f.fctNs >> f.idealNs;
        if (!is || (is >> extra))
        {
            return false;
        }
        out->push_back(f);
    }
    return true;
}

/// Wire time in ns at 100 Gb/s, rounded to nearest like the device.
uint64_t
Wire100G(uint64_t bytes)
{
    return (bytes * 8 + 50) / 100; // bytes * 8 / 100e9 s = bytes * 8 / 100 ns
}

} // namespace

/**
 * \ingroup training-net-tests
 * Runs a topology + flow file pair of test/data and checks the FCT file: one line per flow,
 * 8 columns, addresses by the HPCC convention, FCT >= ideal FCT.
 */
class RoceHpccRunTestCase : public TnDataTestCase
{
  public:
    RoceHpccRunTestCase(std::string topo, std::string flows, uint32_t count, uint32_t mtu)
        : TnDataTestCase("HPCC runner: " + flows + " MTU " + std::to_string(mtu)),
          m_topo(topo),
          m_flows(flows),
          m_count(count),
          m_mtu(mtu)
    {
    }

  private:
    void DoRun() override
    {
        RoceHpccConfig cfg;
        cfg.topologyFile = DataFile(m_topo);
        cfg.flowFile = DataFile(m_flows);
        cfg.fctFile = CreateTempDirFilename("fct-" + m_flows);
        cfg.mtu = m_mtu;
        RoceHpccResult res;
        std::string error;
        bool ok = RoceHpccFlows::Run(cfg, &res, &error);
        NS_TEST_ASSERT_MSG_EQ(ok, true, "run failed: " << error);
        NS_TEST_ASSERT_MSG_EQ(res.flows, m_count, "flows read");
        NS_TEST_ASSERT_MSG_EQ(res.finished, m_count, "every flow finishes");
        NS_TEST_ASSERT_MSG_EQ(res.fctBelowIdeal, 0, "FCT below the ideal");
        NS_TEST_ASSERT_MSG_GT(res.events, 0, "events");
        NS_TEST_ASSERT_MSG_GT(res.dataPacketHops, 0, "packet hops");
        std::vector<FctLine> lines;
        NS_TEST_ASSERT_MSG_EQ(ReadFct(cfg.fctFile, &lines), true, "fct file format");
        NS_TEST_ASSERT_MSG_EQ(lines.size(), m_count, "one line per flow");
        std::vector<bool> seen(m_count, false);
        for (const auto& l : lines)
        {
            NS_TEST_ASSERT_MSG_GT_OR_EQ(l.fctNs, l.idealNs, "FCT >= ideal FCT");
            NS_TEST_ASSERT_MSG_GT(l.idealNs, 0, "ideal FCT");
            NS_TEST_ASSERT_MSG_EQ((l.sip & 0xff0000ff), 0x0b000001, "source address 11.x.y.1");
            uint32_t src = ((l.sip >> 16) & 0xff) * 256 + ((l.sip >> 8) & 0xff);
            NS_TEST_ASSERT_MSG_LT(src, m_count, "source node");
            if (src >= m_count)
            {
                continue; // after a failed check (the runner goes on), seen[src] is out of range
            }
            NS_TEST_ASSERT_MSG_EQ(seen[src], false, "one line per source");
            seen[src] = true;
            NS_TEST_ASSERT_MSG_EQ(l.dport, 100, "dst_port column");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(l.sport, 49152, "UDP source port of the QP");
        }
    }

    std::string m_topo;
    std::string m_flows;
    uint32_t m_count;
    uint32_t m_mtu;
};

/**
 * \ingroup training-net-tests
 * Ideal FCT closed form for a 1 MB flow over 2 hops at 100 Gb/s, 1 us links; a flow alone in
 * the network finishes exactly in its ideal FCT (the model adds no hidden delay).
 */
class RoceHpccIdealTestCase : public TnDataTestCase
{
  public:
    RoceHpccIdealTestCase()
        : TnDataTestCase("HPCC ideal FCT closed form, lone flow at its ideal")
    {
    }

  private:
    void DoRun() override
    {
        std::string topoFile = DataFile("hpcc-incast-topo.txt");
        tn_topology* topo = nullptr;
        tn_error err;
        tn_status status = tn_topology_load_file(topoFile.c_str(), &topo, &err);
        NS_TEST_ASSERT_MSG_EQ(status, TN_OK, err.message);
        if (status != TN_OK)
        {
            return; // the runner goes on after a failed check unless --stop-on-failure
        }
        tn_routes* routes = nullptr;
        status = tn_routes_create(topo, nullptr, &routes, &err);
        NS_TEST_ASSERT_MSG_EQ(status, TN_OK, "routes: " << err.message);
        if (status != TN_OK)
        {
            tn_topology_destroy(topo);
            return;
        }
        RoceHpccFlow f;
        f.src = 0;
        f.dst = 8;
        f.bytes = 1000000;
        uint64_t ideal = RoceHpccFlows::IdealFctNs(topo, routes, f, 4096);
        // 245 packets: first 4096 B (+82 +16 RETH), 243 x 4096 B (+82), last 576 B (+82);
        // 2 hops: all packets through one hop, the first (largest) through the other
        uint64_t first = Wire100G(4096 + 82 + 16);
        uint64_t all = first + 243 * Wire100G(4096 + 82) + Wire100G(576 + 82);
        uint64_t base = 2 * (2 * 1000 + Wire100G(86));
        NS_TEST_ASSERT_MSG_EQ(ideal, base + all + first, "ideal FCT closed form");
        tn_routes_destroy(routes);
        tn_topology_destroy(topo);

        // the same flow alone in a run
        std::string flowFile = CreateTempDirFilename("one-flow.txt");
        {
            std::ofstream out(flowFile);
            out << "1\n0 8 3 100 1000000 0.000001\n";
        }
        RoceHpccConfig cfg;
        cfg.topologyFile = topoFile;
        cfg.flowFile = flowFile;
        cfg.fctFile = CreateTempDirFilename("one-fct.txt");
        RoceHpccResult res;
        std::string error;
        NS_TEST_ASSERT_MSG_EQ(RoceHpccFlows::Run(cfg, &res, &error), true, error);
        std::vector<FctLine> lines;
        NS_TEST_ASSERT_MSG_EQ(ReadFct(cfg.fctFile, &lines), true, "fct format");
        NS_TEST_ASSERT_MSG_EQ(lines.size(), 1, "one line");
        if (lines.size() != 1)
        {
            return;
        }
        NS_TEST_ASSERT_MSG_EQ(lines[0].idealNs, ideal, "ideal in the file");
        NS_TEST_ASSERT_MSG_EQ(lines[0].startNs, 1000, "start_ns");
        NS_TEST_ASSERT_MSG_EQ(lines[0].sip, 0x0b000001u, "sip of node 0");
        NS_TEST_ASSERT_MSG_EQ(lines[0].dip, 0x0b000801u, "dip of node 8");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(lines[0].fctNs, ideal, "FCT >= ideal");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(lines[0].fctNs, ideal + 2, "lone flow at its ideal FCT");
    }
};

/**
 * \ingroup training-net-tests
 * Malformed flow files: every error names file:line and nothing runs.
 */
class RoceHpccErrorTestCase : public TnDataTestCase
{
  public:
    RoceHpccErrorTestCase()
        : TnDataTestCase("HPCC flow file errors name file:line")
    {
    }

  private:
    void Expect(const std::string& name,
                const std::string& text,
                const std::string& where,
                const std::string& what)
    {
        std::string flowFile = CreateTempDirFilename(name);
        {
            std::ofstream out(flowFile);
            out << text;
        }
        RoceHpccConfig cfg;
        cfg.topologyFile = DataFile("hpcc-incast-topo.txt");
        cfg.flowFile = flowFile;
        cfg.fctFile = CreateTempDirFilename(name + ".fct");
        RoceHpccResult res;
        std::string error;
        bool ok = RoceHpccFlows::Run(cfg, &res, &error);
        NS_TEST_EXPECT_MSG_EQ(ok, false, name << " must be refused");
        NS_TEST_EXPECT_MSG_NE(error.find(flowFile + ":" + where + ":"),
                              std::string::npos,
                              name << ": error '" << error << "' lacks file:" << where);
        NS_TEST_EXPECT_MSG_NE(error.find(what),
                              std::string::npos,
                              name << ": error '" << error << "' lacks '" << what << "'");
    }

    void DoRun() override
    {
        Expect("fields.txt", "2\n0 8 3 100 1000 0\n1 8 3 100 1000\n", "3", "expected 6 fields");
        Expect("number.txt", "1\n0 8 3 100 10x0 0\n", "2", "size_bytes");
        Expect("range.txt", "1\n0 99 3 100 1000 0\n", "2", "out of range");
        Expect("switch.txt", "1\n9 8 3 100 1000 0\n", "2", "switch");
        Expect("prio.txt", "1\n0 8 9 100 1000 0\n", "2", "priority");
        Expect("start.txt", "1\n0 8 3 100 1000 -1\n", "2", "start_seconds");
        Expect("fewer.txt", "3\n0 8 3 100 1000 0\n1 8 3 100 1000 0\n", "3", "3 announced");
        Expect("more.txt", "1\n0 8 3 100 1000 0\n1 8 3 100 1000 0\n", "3", "more flow lines");
        Expect("count.txt", "x\n", "1", "number of flows");
        Expect("self.txt", "1\n4 4 3 100 1000 0\n", "2", "same node");

        // a failed write of the fct file is an error, not a silent success (issue 11)
        RoceHpccConfig cfg;
        cfg.topologyFile = DataFile("hpcc-incast-topo.txt");
        cfg.flowFile = DataFile("hpcc-incast-flows.txt");
        cfg.fctFile = "/dev/full";
        RoceHpccResult res;
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(RoceHpccFlows::Run(cfg, &res, &error), false, "/dev/full refused");
        NS_TEST_EXPECT_MSG_NE(error.find("/dev/full: writing failed"), std::string::npos, error);
    }
};

/**
 * \ingroup training-net-tests
 * HPCC-style example test suite.
 */
class RoceHpccTestSuite : public TestSuite
{
  public:
    RoceHpccTestSuite()
        : TestSuite("training-net-roce-hpcc", SYSTEM)
    {
        AddTestCase(new RoceHpccIdealTestCase, TestCase::QUICK);
        AddTestCase(new RoceHpccErrorTestCase, TestCase::QUICK);
        AddTestCase(
            new RoceHpccRunTestCase("hpcc-incast-topo.txt", "hpcc-incast-flows.txt", 8, 4096),
            TestCase::QUICK);
        AddTestCase(new RoceHpccRunTestCase("hpcc-leafspine-topo.txt",
                                            "hpcc-leafspine-flows.txt",
                                            16,
                                            4096),
                    TestCase::QUICK);
        AddTestCase(new RoceHpccRunTestCase("hpcc-leafspine-topo.txt",
                                            "hpcc-leafspine-flows.txt",
                                            16,
                                            1024),
                    TestCase::QUICK);
    }
};

static RoceHpccTestSuite g_roceHpccTestSuite; //!< static instance

} // namespace ns3
