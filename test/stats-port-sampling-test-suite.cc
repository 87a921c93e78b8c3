/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StatsRecorder::PortSampling: each mode's port_sample rows are those of the ports its rule
 * names, with the rows the `all` run gives those ports.
 */
#include "roce-test-util.h"

#include "ns3/attribute-settings.h"
#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/flow-network.h"
#include "ns3/port-sampling.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/stats-recorder.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-topology.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sqlite3.h>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

typedef std::pair<uint32_t, uint32_t> Port; //!< (node, port)

/** The rows of a query, every column as text. */
std::vector<std::vector<std::string>>
Query(const std::string& path, const std::string& sql)
{
    std::vector<std::vector<std::string>> rows;
    sqlite3* db = nullptr;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK)
    {
        while (sqlite3_step(stmt) == SQLITE_ROW)
        {
            std::vector<std::string> row;
            for (int c = 0; c < sqlite3_column_count(stmt); ++c)
            {
                const unsigned char* t = sqlite3_column_text(stmt, c);
                row.emplace_back(t ? reinterpret_cast<const char*>(t) : "NULL");
            }
            rows.push_back(row);
        }
    }
    else
    {
        rows.push_back({"query failed: " + sql});
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return rows;
}

/** One recorded flow-level all-reduce. */
struct SampledRun
{
    std::string error;
    std::string status;
    int64_t finishNs{0};
    uint64_t samples{0}; //!< StatsRecorder::GetSamples
    uint64_t reads{0};   //!< StatsRecorder::GetPortReads
};

/**
 * An all-reduce (`algorithm`) at flow level on `spec`, recorded into `path` with `mode`;
 * `symmetric`: flow-symmetric, every port sampled (PortCopies); `movedOnly`: MovedPortsOnly.
 */
SampledRun
RunSampled(const std::string& path,
           const std::string& spec,
           const std::string& mode,
           const std::string& algorithm = "ring",
           bool symmetric = false,
           bool movedOnly = true)
{
    SampledRun out;
    std::remove(path.c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    roce_test::DefaultsGuard guard;
    guard.SetSeed(1, 1);
    guard.SetDefault("ns3::StatsRecorder::PortSampling", StringValue(mode));
    guard.SetDefault("ns3::StatsRecorder::SampleInterval", TimeValue(MicroSeconds(2)));
    guard.SetDefault("ns3::StatsRecorder::MovedPortsOnly", BooleanValue(movedOnly));
    guard.SetDefault("ns3::StatsRecorder::PortCopies", BooleanValue(symmetric));
    tn_topology* topo = nullptr;
    tn_error err{};
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        out.error = err.message;
        return out;
    }
    RoceHelper roce;
    roce.SetMode("flow");
    roce.SetFlowNetworkAttribute("Symmetric", BooleanValue(symmetric));
    roce.Install(topo);
    CollectiveHelper collectives;
    if (symmetric)
    {
        collectives.SetRouting("ecmp");
        collectives.SetServiceAttribute("Program", StringValue("generated"));
    }
    collectives.Install(topo, roce);
    StatsHelper stats;
    Ptr<StatsRecorder> recorder =
        stats.Install(path, "port-sampling-test", "{}", topo, roce, &out.error);
    if (recorder)
    {
        collectives.AllReduce(1 << 20, algorithm);
        Simulator::Run();
        out.finishNs = Simulator::Now().GetNanoSeconds();
        out.status = stats.Finish("ok", uint64_t(out.finishNs));
        out.samples = recorder->GetSamples();
        out.reads = recorder->GetPortReads();
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return out;
}

/** \return the ports with rows, and each one's (row count, tx_bytes sum, rows as text) */
std::map<Port, std::tuple<int64_t, int64_t, std::string>>
Series(const std::string& path)
{
    std::map<Port, std::tuple<int64_t, int64_t, std::string>> series;
    for (const auto& r :
         Query(path,
               "SELECT node_id, port, time_ns, interval_ns, tx_bytes, tx_packets, utilisation "
               "FROM port_sample ORDER BY node_id, port, time_ns"))
    {
        if (r.size() < 7)
        {
            series[{UINT32_MAX, UINT32_MAX}] = {-1, -1, r.empty() ? "" : r[0]};
            continue;
        }
        auto& s = series[{uint32_t(std::stoul(r[0])), uint32_t(std::stoul(r[1]))}];
        std::get<0>(s) += 1;
        std::get<1>(s) += std::stoll(r[4]);
        std::get<2>(s) += r[2] + "," + r[3] + "," + r[4] + "," + r[5] + "," + r[6] + ";";
    }
    return series;
}

/** The out-port of `node` to `peer` (the lowest if several), from the topology's links. */
uint32_t
PortTo(const tn_topology* topo, uint32_t node, uint32_t peer)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        if (link->src == node && link->dst == peer)
        {
            best = std::min(best, link->src_port);
        }
    }
    return best;
}

/** The lowest out-port of `node` to a node in [lo, hi). */
uint32_t
PortToRange(const tn_topology* topo, uint32_t node, uint32_t lo, uint32_t hi)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        if (link->src == node && link->dst >= lo && link->dst < hi)
        {
            best = std::min(best, link->src_port);
        }
    }
    return best;
}

/**
 * The ports the per-dimension rule names, written from the generators' layouts (the
 * documented node numbering), not through PerDimensionPorts: a torus:4x4's NPU 0 towards
 * +x (1), -x (3), +y (4), -y (12); a fattree:k=4's host 0 up, edge 16 down and up,
 * aggregation 24 down and up, core 32 down.
 */
std::set<Port>
ExpectedPerDimension(const std::string& spec)
{
    tn_topology* topo = nullptr;
    tn_error err{};
    std::set<Port> ports;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        return ports;
    }
    if (spec == "torus:4x4")
    {
        for (uint32_t peer : {1u, 3u, 4u, 12u})
        {
            ports.insert({0, PortTo(topo, 0, peer)});
        }
    }
    else // fattree:k=4: hosts 0-15, edges 16-23, aggregations 24-31, cores 32-35
    {
        ports.insert({0, PortToRange(topo, 0, 16, 24)});
        ports.insert({16, PortToRange(topo, 16, 0, 16)});
        ports.insert({16, PortToRange(topo, 16, 24, 32)});
        ports.insert({24, PortToRange(topo, 24, 16, 24)});
        ports.insert({24, PortToRange(topo, 24, 32, 36)});
        ports.insert({32, PortToRange(topo, 32, 24, 32)});
    }
    tn_topology_destroy(topo);
    return ports;
}

} // namespace

/**
 * \ingroup training-net-tests
 * The modes read as documented, and the attribute refuses any other text (Config and the
 * strict option reader), with the valid values in the message.
 */
class PortSamplingParseTestCase : public TestCase
{
  public:
    PortSamplingParseTestCase()
        : TestCase("PortSampling reads all, none, per-dimension, busiest:K and refuses the rest")
    {
    }

  private:
    void DoRun() override
    {
        PortSamplingMode m;
        std::string why;
        for (const char* ok : {"all", "none", "per-dimension", "busiest:1", "busiest:64"})
        {
            NS_TEST_EXPECT_MSG_EQ(PortSamplingMode::Parse(ok, &m, &why), true, ok);
            NS_TEST_EXPECT_MSG_EQ(m.ToString(), std::string(ok), "read back");
            std::string refused;
            NS_TEST_EXPECT_MSG_EQ(
                AttributeSettings::CheckDefault("ns3::StatsRecorder::PortSampling", ok, &refused),
                true,
                refused);
        }
        NS_TEST_EXPECT_MSG_EQ(PortSamplingMode::Parse("busiest:4294967295", &m, &why), true, why);
        NS_TEST_EXPECT_MSG_EQ(m.busiest, 4294967295u, "K");
        for (const char* bad : {"",
                                "All",
                                "busiest",
                                "busiest:",
                                "busiest:0",
                                "busiest:-1",
                                "busiest:1e3",
                                "busiest: 4",
                                "busiest:4294967296",
                                "per_dimension",
                                "none "})
        {
            NS_TEST_EXPECT_MSG_EQ(PortSamplingMode::Parse(bad, &m, &why), false, "'" << bad << "'");
            NS_TEST_EXPECT_MSG_EQ(
                Config::SetDefaultFailSafe("ns3::StatsRecorder::PortSampling", StringValue(bad)),
                false,
                "Config refuses '" << bad << "'");
            std::string refused;
            NS_TEST_EXPECT_MSG_EQ(
                AttributeSettings::CheckDefault("ns3::StatsRecorder::PortSampling", bad, &refused),
                false,
                "'" << bad << "'");
            NS_TEST_EXPECT_MSG_NE(refused.find("ns3::StatsRecorder::PortSampling"),
                                  std::string::npos,
                                  refused);
            NS_TEST_EXPECT_MSG_NE(refused.find("busiest:K"), std::string::npos, refused);
        }
        TypeId::AttributeInformation info;
        NS_TEST_ASSERT_MSG_EQ(
            StatsRecorder::GetTypeId().LookupAttributeByName("PortSampling", &info),
            true,
            "the attribute");
        NS_TEST_EXPECT_MSG_EQ(info.initialValue->SerializeToString(info.checker),
                              "all",
                              "the refusals left the default alone");
    }
};

/**
 * \ingroup training-net-tests
 * The busiest-K spill gives back every column of the rows of the chosen ports, in the order
 * they were added (extreme values included), and chooses by total tx_bytes, ties to the lower
 * (node, port).
 */
class PortSampleSpillTestCase : public TestCase
{
  public:
    PortSampleSpillTestCase()
        : TestCase("the busiest-K spill keeps every column and chooses the largest totals")
    {
    }

  private:
    static tn_db_port_sample Row(uint32_t i, uint32_t node, uint32_t port, uint64_t tx)
    {
        tn_db_port_sample r{};
        r.time_ns = i % 2 ? INT64_MAX - i : -int64_t(i);
        r.interval_ns = 1000 + i;
        r.node = node;
        r.port = port;
        r.tx_bytes = tx;
        r.tx_packets = i % 3 ? UINT64_MAX - i : 0;
        r.utilisation = 0.1 * i + 1e-300;
        for (uint32_t q = 0; q <= TN_DB_PRIORITIES; ++q)
        {
            r.queue_bytes[q] = (uint64_t(i) << (q * 7)) + q;
        }
        r.paused_ns = i % 2 ? -int64_t(i) * 12345 : INT64_MIN + i;
        r.ecn_marks = uint64_t(1) << (i % 64);
        r.drops = i;
        return r;
    }

    void DoRun() override
    {
        // ports: index 0 = (5, 1), 1 = (2, 0), 2 = (2, 1), 3 = (9, 9) (no row)
        const std::vector<Port> keys = {{5, 1}, {2, 0}, {2, 1}, {9, 9}};
        const uint32_t portOf[] = {0, 1, 2, 0, 1, 2, 2};
        const uint64_t tx[] = {700, 300, 100, 0, 400, 600, 0};
        // totals: index 0: 700, 1: 700, 2: 700 (a tie), 3: 0
        PortSampleSpill spill;
        std::vector<tn_db_port_sample> added;
        std::string why;
        for (uint32_t i = 0; i < 7; ++i)
        {
            const Port k = keys[portOf[i]];
            added.push_back(Row(i, k.first, k.second, tx[i]));
            NS_TEST_ASSERT_MSG_EQ(spill.Add(portOf[i], added.back(), &why), true, why);
        }
        NS_TEST_EXPECT_MSG_EQ(spill.GetRows(), 7, "rows");
        const std::vector<bool> two = spill.Busiest(2, keys);
        // a three-way tie at 700: the lower (node, port) first, (2, 0) and (2, 1)
        NS_TEST_EXPECT_MSG_EQ((two == std::vector<bool>{false, true, true, false}), true, "ties");
        const std::vector<bool> all = spill.Busiest(10, keys);
        NS_TEST_EXPECT_MSG_EQ((all == std::vector<bool>{true, true, true, true}),
                              true,
                              "K > ports");
        std::vector<tn_db_port_sample> back;
        NS_TEST_ASSERT_MSG_EQ(spill.Replay(
                                  two,
                                  [&back](const tn_db_port_sample& r) {
                                      back.push_back(r);
                                      return true;
                                  },
                                  &why),
                              true,
                              why);
        std::vector<tn_db_port_sample> expected;
        for (uint32_t i = 0; i < 7; ++i)
        {
            if (two[portOf[i]])
            {
                expected.push_back(added[i]);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(back.size(), expected.size(), "the chosen ports' rows");
        for (std::size_t i = 0; i < back.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(std::memcmp(&back[i], &expected[i], sizeof back[i]),
                                  0,
                                  "row " << i << " comes back whole, in order");
        }
    }
};

/**
 * \ingroup training-net-tests
 * The per-dimension rule on the shapes doc/training-net.rst names, the expected ports written
 * from the generators' layouts: a mesh's -x and -y ports are NPU 1's and NPU 3's (NPU 0 has
 * none); a torus dimension of size 2 has one direction; a hier system's ring dimension + and -
 * and its switch dimension NPU to switch and switch to NPU.
 */
class PerDimensionRuleTestCase : public TestCase
{
  public:
    PerDimensionRuleTestCase()
        : TestCase("the per-dimension rule on a mesh, a torus with a dimension of 2, a hier system")
    {
    }

  private:
    void Check(const std::string& spec, const std::vector<std::pair<uint32_t, uint32_t>>& pairs)
    {
        tn_topology* topo = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec(spec.c_str(), &topo, &err), TN_OK, spec);
        std::vector<bool> npu(tn_topology_node_count(topo));
        for (uint32_t v = 0; v < npu.size(); ++v)
        {
            npu[v] = tn_topology_node_kind(topo, v) == TN_NODE_NPU;
        }
        const auto got = PerDimensionPorts(PortSamplingLinks(topo), npu);
        std::vector<Port> expected;
        for (const auto& nodes : pairs)
        {
            expected.emplace_back(nodes.first, PortTo(topo, nodes.first, nodes.second));
        }
        std::sort(expected.begin(), expected.end());
        tn_topology_destroy(topo);
        NS_TEST_EXPECT_MSG_EQ((got == expected), true, spec << ": " << got.size() << " ports");
    }

    void DoRun() override
    {
        // mesh:3x3: +x 0->1, +y 0->3, -x 1->0, -y 3->0
        Check("mesh:3x3", {{0, 1}, {0, 3}, {1, 0}, {3, 0}});
        // torus:2x4: x of size 2 (one direction) 0->1, +y 0->2, -y 0->6
        Check("torus:2x4", {{0, 1}, {0, 2}, {0, 6}});
        // hier: NPUs 0-7 (ring of 4 fastest), switches 8-11 (one per pair differing in dim 1,
        // the pair of NPU 0 first): +ring 0->1, -ring 0->3, NPU 0 -> switch 8, switch 8 -> 0
        Check("hier:ring4@400Gbps+switch2@400Gbps", {{0, 1}, {0, 3}, {0, 8}, {8, 0}});
        // a fattree:k=4 as a list: host 0 up, edge 16 down and up, aggregation 24 down and
        // up, core 32 down (the run test checks the same through the recorder)
        Check("fattree:k=4", {{0, 16}, {16, 0}, {16, 24}, {24, 16}, {24, 32}, {32, 24}});
    }
};

/**
 * \ingroup training-net-tests
 * At flow level on a torus:4x4 and a fattree:k=4: `all` samples every port; `none` writes no
 * row; `per-dimension` exactly the ports the rule names (written from the generators'
 * layouts); `busiest:K` exactly the K largest of the `all` run's per-port tx_bytes totals
 * (ties: lower node, then port). Each mode's rows of a port are the `all` run's rows of it,
 * row for row, and at most one per sampling instant (plus the last): rows <= ports x
 * (floor(end / interval) + 1). The run's parameters name the mode; the same input gives the
 * same rows.
 */
class PortSamplingRunTestCase : public TestCase
{
  public:
    explicit PortSamplingRunTestCase(std::string spec)
        : TestCase("PortSampling's rows on " + spec + " at flow level are the rule's ports"),
          m_spec(std::move(spec))
    {
    }

  private:
    void DoRun() override
    {
        const std::string base = CreateTempDirFilename("port-sampling");
        const SampledRun all = RunSampled(base + "-all.db", m_spec, "all");
        NS_TEST_ASSERT_MSG_EQ(all.error, "", "install");
        NS_TEST_ASSERT_MSG_EQ(all.status, "ok", "all");
        const auto allSeries = Series(base + "-all.db");
        tn_topology* topo = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec(m_spec.c_str(), &topo, &err), TN_OK, "spec");
        const uint32_t links = tn_topology_link_count(topo);
        tn_topology_destroy(topo);
        NS_TEST_EXPECT_MSG_EQ(allSeries.size(), links, "all: every directed link's port");
        const int64_t interval = 2000;
        auto bound = [&](std::size_t ports) {
            return int64_t(ports) * (all.finishNs / interval + 1);
        };
        int64_t allRows = 0;
        for (const auto& s : allSeries)
        {
            allRows += std::get<0>(s.second);
        }
        NS_TEST_EXPECT_MSG_EQ(int64_t(all.samples), allRows, "GetSamples counts the rows");
        NS_TEST_EXPECT_MSG_GT(allRows, int64_t(links), "the run is sampled more than once");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(allRows, bound(links), "all: rows bound");
        NS_TEST_EXPECT_MSG_NE(Query(base + "-all.db", "SELECT params_json FROM run")[0][0].find(
                                  "\"port_sampling\":\"all\""),
                              std::string::npos,
                              "all: the run's parameters name the mode");

        // none: no row
        const SampledRun none = RunSampled(base + "-none.db", m_spec, "none");
        NS_TEST_ASSERT_MSG_EQ(none.status, "ok", "none");
        NS_TEST_EXPECT_MSG_EQ(Query(base + "-none.db", "SELECT count(*) FROM port_sample")[0][0],
                              "0",
                              "none: no port_sample row");
        NS_TEST_EXPECT_MSG_EQ(none.finishNs, all.finishNs, "sampling does not change the run");

        // per-dimension: the rule's ports, with the all run's rows
        const SampledRun perDim = RunSampled(base + "-dim.db", m_spec, "per-dimension");
        NS_TEST_ASSERT_MSG_EQ(perDim.status, "ok", "per-dimension");
        const auto dimSeries = Series(base + "-dim.db");
        const std::set<Port> expected = ExpectedPerDimension(m_spec);
        NS_TEST_EXPECT_MSG_EQ(expected.size(),
                              (m_spec == "torus:4x4" ? 4u : 6u),
                              "the rule's count");
        std::set<Port> got;
        int64_t dimRows = 0;
        for (const auto& s : dimSeries)
        {
            got.insert(s.first);
            dimRows += std::get<0>(s.second);
            auto it = allSeries.find(s.first);
            NS_TEST_ASSERT_MSG_EQ((it != allSeries.end()), true, "a port of the all run");
            NS_TEST_EXPECT_MSG_EQ(std::get<2>(s.second),
                                  std::get<2>(it->second),
                                  "per-dimension: the all run's rows of the port");
        }
        NS_TEST_EXPECT_MSG_EQ((got == expected), true, "per-dimension: exactly the rule's ports");
        NS_TEST_EXPECT_MSG_EQ(int64_t(perDim.samples), dimRows, "GetSamples counts the rows");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(dimRows, bound(expected.size()), "per-dimension: rows bound");
        NS_TEST_EXPECT_MSG_EQ(perDim.finishNs, all.finishNs, "sampling does not change the run");

        // busiest:K: the K largest totals of the all run
        std::vector<std::pair<int64_t, Port>> totals;
        for (const auto& s : allSeries)
        {
            totals.emplace_back(-std::get<1>(s.second), s.first);
        }
        std::sort(totals.begin(), totals.end());
        for (uint32_t k : {1u, 5u, links + 3})
        {
            const std::string mode = "busiest:" + std::to_string(k);
            const std::string path = base + "-busiest" + std::to_string(k) + ".db";
            const SampledRun busy = RunSampled(path, m_spec, mode);
            NS_TEST_ASSERT_MSG_EQ(busy.status, "ok", mode);
            const auto busySeries = Series(path);
            std::set<Port> want;
            for (std::size_t i = 0; i < std::min<std::size_t>(k, totals.size()); ++i)
            {
                want.insert(totals[i].second);
            }
            std::set<Port> have;
            int64_t rows = 0;
            for (const auto& s : busySeries)
            {
                have.insert(s.first);
                rows += std::get<0>(s.second);
                auto it = allSeries.find(s.first);
                NS_TEST_ASSERT_MSG_EQ((it != allSeries.end()), true, "a port of the all run");
                NS_TEST_EXPECT_MSG_EQ(std::get<2>(s.second),
                                      std::get<2>(it->second),
                                      mode << ": the all run's rows of the port");
            }
            NS_TEST_EXPECT_MSG_EQ((have == want), true, mode << ": the K largest totals");
            NS_TEST_EXPECT_MSG_EQ(int64_t(busy.samples), rows, "GetSamples counts the rows");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(rows, bound(want.size()), mode << ": rows bound");
            NS_TEST_EXPECT_MSG_NE(Query(path, "SELECT params_json FROM run")[0][0].find(
                                      "\"port_sampling\":\"" + mode + "\""),
                                  std::string::npos,
                                  mode << ": the run's parameters name the mode");
        }
        // the K-th and (K+1)-th totals differ, or the tie rule decided: a run that only
        // kept the busiest of one tick would not match on a ring's uneven ports
        NS_TEST_EXPECT_MSG_GT(-totals[0].first, 0, "the busiest port carried bytes");

        // the same input, the same rows
        const SampledRun again = RunSampled(base + "-dim2.db", m_spec, "per-dimension");
        NS_TEST_ASSERT_MSG_EQ(again.status, "ok", "again");
        NS_TEST_EXPECT_MSG_EQ((Series(base + "-dim2.db") == dimSeries), true, "deterministic");
    }

    std::string m_spec;
};

/**
 * \ingroup training-net-tests
 * MovedPortsOnly: a sampling tick reads only the ports whose links held or started a flow
 * since the last tick, and writes every row reading every port writes (MovedPortsOnly=false),
 * column for column and in the same order: a port that moved and was not read would lose its
 * row, an idle port read differently would change its idle stretch's row. Each workload has
 * idle ports that move later (a row of tx_bytes 0 ends their idle stretch) and ticks where
 * ports are idle, so the reads are fewer than reading every port; never fewer than the rows
 * that carried bytes (each is one read). On flow-symmetric with PortCopies, a representative's
 * link moves every port of its orbit.
 */
class MovedPortsOnlyTestCase : public TestCase
{
  public:
    MovedPortsOnlyTestCase(std::string spec, std::string algorithm, bool symmetric)
        : TestCase("MovedPortsOnly writes the rows of reading every port: " + spec + " " +
                   algorithm + (symmetric ? " flow-symmetric" : " flow")),
          m_spec(std::move(spec)),
          m_algorithm(std::move(algorithm)),
          m_symmetric(symmetric)
    {
    }

  private:
    void DoRun() override
    {
        const std::string base = CreateTempDirFilename("moved-ports");
        const std::string rows = "SELECT time_ns, interval_ns, node_id, port, tx_bytes, "
                                 "tx_packets, utilisation, paused_ns FROM port_sample "
                                 "ORDER BY rowid";
        for (const char* mode : {"all", "per-dimension", "busiest:3"})
        {
            const SampledRun every =
                RunSampled(base + "-every.db", m_spec, mode, m_algorithm, m_symmetric, false);
            NS_TEST_ASSERT_MSG_EQ(every.error, "", "install");
            NS_TEST_ASSERT_MSG_EQ(every.status, "ok", mode);
            const SampledRun moved =
                RunSampled(base + "-moved.db", m_spec, mode, m_algorithm, m_symmetric, true);
            NS_TEST_ASSERT_MSG_EQ(moved.status, "ok", mode);
            const auto everyRows = Query(base + "-every.db", rows);
            const auto movedRows = Query(base + "-moved.db", rows);
            NS_TEST_EXPECT_MSG_GT(everyRows.size(), 1u, mode << ": rows");
            NS_TEST_EXPECT_MSG_EQ(movedRows.size(), everyRows.size(), mode << ": as many rows");
            for (std::size_t i = 0; i < std::min(movedRows.size(), everyRows.size()); ++i)
            {
                NS_TEST_ASSERT_MSG_EQ((movedRows[i] == everyRows[i]),
                                      true,
                                      mode << ": row " << i << " is the one reading every "
                                           << "port writes");
            }
            NS_TEST_EXPECT_MSG_EQ(moved.finishNs, every.finishNs, "the same run");
            NS_TEST_EXPECT_MSG_EQ(moved.samples, every.samples, "the same rows");
            const int64_t busyRows =
                std::stoll(Query(base + "-moved.db",
                                 "SELECT count(*) FROM port_sample WHERE tx_bytes > 0")[0][0]);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(busyRows,
                                        int64_t(moved.reads),
                                        mode << ": a row that carried bytes is a read");
            NS_TEST_EXPECT_MSG_LT(moved.reads, every.reads, mode << ": idle ports are not read");
            if (std::string(mode) == "all")
            {
                const std::string quiet = Query(base + "-moved.db",
                                                "SELECT count(*) FROM port_sample WHERE "
                                                "tx_bytes = 0 AND time_ns < (SELECT "
                                                "max(time_ns) FROM port_sample)")[0][0];
                NS_TEST_EXPECT_MSG_GT(std::stoll(quiet), 0, "ports idle, then moving");
            }
        }
    }

    std::string m_spec;
    std::string m_algorithm;
    bool m_symmetric;
};

/**
 * \ingroup training-net-tests
 * A recorder follows the flow network's links while it samples only the ports that moved
 * (one PortActivity watcher), none when it reads every port, and lets go of them when it is
 * disposed: the network keeps no watcher of a recorder that is gone.
 */
class PortWatchDisposeTestCase : public TestCase
{
  public:
    PortWatchDisposeTestCase()
        : TestCase("a recorder's port watch ends with the recorder")
    {
    }

  private:
    void DoRun() override
    {
        for (bool movedOnly : {true, false})
        {
            const std::string path = CreateTempDirFilename("port-watch.db");
            std::remove(path.c_str());
            roce_test::DefaultsGuard guard;
            guard.SetDefault("ns3::StatsRecorder::MovedPortsOnly", BooleanValue(movedOnly));
            tn_topology* topo = nullptr;
            tn_error err{};
            NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("torus:4x4", &topo, &err),
                                  TN_OK,
                                  "topology");
            RoceHelper roce;
            roce.SetMode("flow");
            roce.Install(topo);
            CollectiveHelper collectives;
            collectives.Install(topo, roce);
            StatsHelper stats;
            std::string error;
            Ptr<StatsRecorder> recorder =
                stats.Install(path, "port-watch-test", "{}", topo, roce, &error);
            NS_TEST_ASSERT_MSG_EQ(error, "", "install");
            Ptr<FlowNetwork> network = roce.GetFlowNetwork();
            NS_TEST_ASSERT_MSG_NE(network, nullptr, "a flow network");
            collectives.AllReduce(1 << 16, "ring");
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(stats.Finish("ok", Simulator::Now().GetNanoSeconds()),
                                  "ok",
                                  "finished");
            NS_TEST_EXPECT_MSG_EQ(network->GetNPortWatchers(),
                                  movedOnly ? 1u : 0u,
                                  "watchers while the recorder lives");
            recorder->Dispose();
            NS_TEST_EXPECT_MSG_EQ(network->GetNPortWatchers(), 0u, "watchers once it is gone");
            Simulator::Destroy();
            tn_topology_destroy(topo);
        }
    }
};

/**
 * \ingroup training-net-tests
 * \brief StatsRecorder::PortSampling.
 */
class StatsPortSamplingTestSuite : public TestSuite
{
  public:
    StatsPortSamplingTestSuite()
        : TestSuite("training-net-stats-ports", UNIT)
    {
        AddTestCase(new PortSamplingParseTestCase, TestCase::QUICK);
        AddTestCase(new PortSampleSpillTestCase, TestCase::QUICK);
        AddTestCase(new PerDimensionRuleTestCase, TestCase::QUICK);
        AddTestCase(new PortSamplingRunTestCase("torus:4x4"), TestCase::QUICK);
        AddTestCase(new PortSamplingRunTestCase("fattree:k=4"), TestCase::QUICK);
        AddTestCase(new MovedPortsOnlyTestCase("hier:switch4@400Gbps+switch4@100Gbps",
                                               "hierarchical",
                                               false),
                    TestCase::QUICK);
        AddTestCase(new MovedPortsOnlyTestCase("fattree:k=4", "ring", false), TestCase::QUICK);
        AddTestCase(new MovedPortsOnlyTestCase("torus:4x4", "hierarchical", true), TestCase::QUICK);
        AddTestCase(new PortWatchDisposeTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static StatsPortSamplingTestSuite g_statsPortSamplingTestSuite;
