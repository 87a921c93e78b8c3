/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Chakra execution traces run by a training job: a text workload and its conversion give the
 * same iteration, point-to-point chains with control dependencies against closed forms, and
 * traces refused at set-up.
 */
#include "tn-test-data.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/scenario-config.h"
#include "ns3/scenario-runner.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-chakra.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <sqlite3.h>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/** What one run gave. */
struct ChakraRun
{
    std::string error;
    bool complete{false};
    std::vector<double> iterationNs; //!< first iteration, per NPU
    std::vector<double> computeNs;   //!< its compute, per NPU
    std::vector<double> exposedNs;   //!< its exposed communication, per NPU
    uint32_t iterations{0};          //!< at NPU 0
    uint64_t collectives{0};
};

/**
 * Run a text workload (chakra false) or PREFIX.<rank>.et traces on spec's NPUs.
 */
ChakraRun
RunChakra(const std::string& input,
          bool chakra,
          const std::string& spec,
          const std::string& mode,
          bool network = true,
          uint32_t iterations = 1,
          const std::string& algorithm = "")
{
    ChakraRun out;
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        out.error = err.message;
        return out;
    }
    RoceHelper roce;
    roce.SetMode(mode);
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    NpuHelper npus;
    npus.SetEndpointAttribute("Engine", StringValue("ace"));
    npus.Install(roce.GetFabric().npus);
    TrainingHelper training;
    // pinned: the figures checked here are the flat ring's (a job's default is auto)
    training.SetAlgorithms("ring");
    training.SetJobAttribute("Network", BooleanValue(network));
    training.SetJobAttribute("Iterations", UintegerValue(iterations));
    for (int k = 0; k < TN_COLL_COUNT && !algorithm.empty(); k++)
    {
        training.SetAlgorithm(tn_collective(k), algorithm);
    }
    Ptr<TrainingJob> job;
    if (chakra ? training.LoadChakra(input, &out.error) : training.Load(input, &out.error))
    {
        job = training.Install(collectives, npus, 0, &out.error);
    }
    if (job)
    {
        job->Start();
        Simulator::Run();
        out.complete = job->IsComplete();
        out.iterations = job->GetIterations(0).size();
        for (uint32_t r = 0; r < npus.GetEndpoints().size(); r++)
        {
            const auto& log = job->GetIterations(r);
            out.iterationNs.push_back(log.empty() ? -1
                                                  : (log[0].end - log[0].start).GetNanoSeconds());
            out.computeNs.push_back(log.empty() ? -1 : log[0].compute.GetNanoSeconds());
            out.exposedNs.push_back(log.empty() ? -1 : log[0].exposed.GetNanoSeconds());
        }
        out.collectives = job->GetCollectiveCount();
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return out;
}

/** Write one file per rank: the given nodes of each rank. \return "" or the error */
std::string
WriteTraces(const std::string& prefix, const std::vector<std::vector<tn_chakra_node_spec>>& ranks)
{
    for (size_t r = 0; r < ranks.size(); r++)
    {
        const std::string path = prefix + "." + std::to_string(r) + ".et";
        FILE* f = std::fopen(path.c_str(), "wb");
        if (!f)
        {
            return "cannot write " + path;
        }
        tn_error err;
        tn_status s = tn_chakra_write_metadata(f, "0.0.4", &err);
        for (const tn_chakra_node_spec& n : ranks[r])
        {
            s = s ? s : tn_chakra_write_node(f, &n, &err);
        }
        std::fclose(f);
        if (s)
        {
            return err.message;
        }
    }
    return "";
}

tn_chakra_node_spec
NodeSpec(uint64_t id, uint32_t type)
{
    tn_chakra_node_spec n;
    tn_chakra_node_spec_init(&n);
    n.id = id;
    n.name = "n";
    n.type = type;
    return n;
}

/** Write Resnet-50's traces for npus NPUs at prefix. \return "" or the error */
std::string
ConvertResnet(const std::string& file, uint32_t npus, const std::string& prefix)
{
    tn_error err;
    tn_workload* wl = nullptr;
    if (tn_workload_load_file(file.c_str(), &wl, &err) != TN_OK)
    {
        return err.message;
    }
    std::string error;
    for (uint32_t r = 0; r < npus && error.empty(); r++)
    {
        const std::string path = prefix + "." + std::to_string(r) + ".et";
        FILE* f = std::fopen(path.c_str(), "wb");
        if (!f)
        {
            error = "cannot write " + path;
            break;
        }
        if (tn_chakra_convert(wl, npus, 0, r, f, &err) != TN_OK)
        {
            error = err.message;
        }
        std::fclose(f);
    }
    tn_workload_destroy(wl);
    return error;
}

/// \return the first column of the first row of `sql` on the run (bound to ?1), or -1
double
QueryValue(tn_db* db, const std::string& sql, int64_t run)
{
    sqlite3* h = static_cast<sqlite3*>(tn_db_handle(db));
    sqlite3_stmt* st = nullptr;
    double v = -1;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    {
        sqlite3_bind_int64(st, 1, run);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        {
            v = sqlite3_column_double(st, 0);
        }
    }
    sqlite3_finalize(st);
    return v;
}

} // namespace

/**
 * \ingroup training-net-tests
 * Resnet-50 (data parallel, 54 layers) on 16 ACE NPUs, at flow and at packet level: the
 * workload file and its Chakra traces (tn_chakra_convert) give the same iteration, compute and
 * exposed time at every NPU (the traces hold the same kernels, collectives and order). With
 * baseline NPUs, where a kernel started while a collective is active loses a compute share,
 * collectives ending at the same instant may be taken in another order (their ids differ), so
 * another update kernel may lose the share: 187 ns in 15 ms on 8 NPUs.
 */
class ChakraEquivalenceTestCase : public TnDataTestCase
{
  public:
    ChakraEquivalenceTestCase()
        : TnDataTestCase("Resnet-50 on 16 NPUs: text workload and its Chakra traces agree")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = DataFile("workloads/Resnet50_DataParallel.txt");
        const uint32_t npus = 16;
        const std::string prefix = CreateTempDirFilename("r50");
        NS_TEST_ASSERT_MSG_EQ(ConvertResnet(file, npus, prefix), "", "converted");
        const std::string spec = "switch:16,rate=100Gbps,latency=1us";
        for (const char* mode : {"flow", "packet"})
        {
            ChakraRun text = RunChakra(file, false, spec, mode);
            ChakraRun chakra = RunChakra(prefix, true, spec, mode);
            NS_TEST_ASSERT_MSG_EQ(text.error, "", mode);
            NS_TEST_ASSERT_MSG_EQ(chakra.error, "", mode);
            NS_TEST_EXPECT_MSG_EQ(chakra.complete, true, mode << ": traces complete");
            NS_TEST_EXPECT_MSG_EQ(chakra.collectives, text.collectives, mode << ": collectives");
            NS_TEST_EXPECT_MSG_EQ(chakra.collectives, 54u * 1, mode << ": one per layer");
            for (uint32_t r = 0; r < npus; r++)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(chakra.iterationNs[r],
                                          text.iterationNs[r],
                                          1.0,
                                          mode << ": NPU " << r << " iteration");
                NS_TEST_EXPECT_MSG_EQ_TOL(chakra.computeNs[r],
                                          text.computeNs[r],
                                          1.0,
                                          mode << ": NPU " << r << " compute");
                NS_TEST_EXPECT_MSG_EQ_TOL(chakra.exposedNs[r],
                                          text.exposedNs[r],
                                          1.0,
                                          mode << ": NPU " << r << " exposed");
            }
            NS_TEST_EXPECT_MSG_GT(text.exposedNs[0], 0, mode << ": communication is exposed");
        }
    }
};

/**
 * \ingroup training-net-tests
 * A point-to-point chain 0 -> 1 -> 2 -> 3 on a switch at flow level: rank i receives B bytes
 * from i-1, computes C cycles (after the receive by a control dependency only), then sends to
 * i+1. Rank 3's iteration is 4 C + 3 T, T the time of one B-byte transfer, whose closed form
 * at flow level is the serialisation of B bytes and their headers at the link rate plus the
 * two links' latency; without a network the chain is 3 C exactly.
 */
class ChakraPointToPointTestCase : public TnDataTestCase
{
  public:
    ChakraPointToPointTestCase()
        : TnDataTestCase("Chakra send and receive chain with control dependencies: closed form")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t bytes = 1 << 20;
        const uint64_t cycles = 20000; // 20 us at 1 GHz
        std::vector<std::vector<tn_chakra_node_spec>> ranks(4);
        std::vector<uint64_t> deps(8);
        for (uint32_t r = 0; r < 4; r++)
        {
            std::vector<tn_chakra_node_spec>& nodes = ranks[r];
            uint64_t id = 100 * r; // ids need not start at 0 nor be dense
            if (r > 0)
            {
                tn_chakra_node_spec recv = NodeSpec(id, TN_CHAKRA_COMM_RECV_NODE);
                recv.comm_src = r - 1;
                recv.comm_dst = r;
                recv.comm_size = bytes;
                recv.comm_tag = 7;
                nodes.push_back(recv);
                deps[2 * r] = id++;
            }
            if (r < 3)
            {
                tn_chakra_node_spec comp = NodeSpec(id, TN_CHAKRA_COMP_NODE);
                comp.has_num_ops = 1;
                comp.num_ops = cycles;
                if (r > 0)
                {
                    comp.ctrl_deps = &deps[2 * r];
                    comp.ctrl_dep_count = 1;
                }
                nodes.push_back(comp);
                deps[2 * r + 1] = id++;
                tn_chakra_node_spec send = NodeSpec(id++, TN_CHAKRA_COMM_SEND_NODE);
                send.comm_src = r;
                send.comm_dst = r + 1;
                send.comm_size = bytes;
                send.comm_tag = 7;
                send.data_deps = &deps[2 * r + 1];
                send.data_dep_count = 1;
                nodes.push_back(send);
            }
            else
            {
                tn_chakra_node_spec comp = NodeSpec(id, TN_CHAKRA_COMP_NODE);
                comp.has_num_ops = 1;
                comp.num_ops = cycles;
                comp.ctrl_deps = &deps[2 * r];
                comp.ctrl_dep_count = 1;
                nodes.push_back(comp);
            }
        }
        const std::string chain = CreateTempDirFilename("chain");
        NS_TEST_ASSERT_MSG_EQ(WriteTraces(chain, ranks), "", "chain written");
        // one transfer alone: rank 0 sends to 1
        std::vector<std::vector<tn_chakra_node_spec>> one(2);
        tn_chakra_node_spec send = NodeSpec(1, TN_CHAKRA_COMM_SEND_NODE);
        send.comm_dst = 1;
        send.comm_size = bytes;
        one[0].push_back(send);
        tn_chakra_node_spec recv = NodeSpec(1, TN_CHAKRA_COMM_RECV_NODE);
        recv.comm_src = 0;
        recv.comm_size = bytes;
        one[1].push_back(recv);
        const std::string single = CreateTempDirFilename("one");
        NS_TEST_ASSERT_MSG_EQ(WriteTraces(single, one), "", "transfer written");

        const double rateBps = 100e9;
        const double latencyNs = 1000;
        ChakraRun t = RunChakra(single, true, "switch:2,rate=100Gbps,latency=1us", "flow");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "one transfer");
        NS_TEST_EXPECT_MSG_EQ(t.complete, true, "one transfer completes");
        const double transferNs = t.iterationNs[1];
        // B bytes at 100 Gb/s plus up to 10% of headers, and two links' latency
        const double serial = bytes * 8 / rateBps * 1e9;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(transferNs, serial + 2 * latencyNs, "no faster than the wire");
        NS_TEST_EXPECT_MSG_LT(transferNs, 1.1 * serial + 2 * latencyNs + 1000, "headers only");
        // the sender's part ends when the acknowledgement of its last bytes is back
        NS_TEST_EXPECT_MSG_GT_OR_EQ(t.iterationNs[0], transferNs, "the send ends after");
        NS_TEST_EXPECT_MSG_LT(t.iterationNs[0], transferNs + 2 * latencyNs + 100, "by an ack");

        ChakraRun c = RunChakra(chain, true, "switch:4,rate=100Gbps,latency=1us", "flow");
        NS_TEST_ASSERT_MSG_EQ(c.error, "", "chain");
        NS_TEST_EXPECT_MSG_EQ(c.complete, true, "chain completes");
        NS_TEST_EXPECT_MSG_EQ(c.collectives, 3u, "three transfers");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.iterationNs[3],
                                  4 * double(cycles) + 3 * transferNs,
                                  3.0,
                                  "rank 3: 4 C + 3 T");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.computeNs[3], double(cycles), 0.5, "one kernel at rank 3");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.exposedNs[3],
                                  3 * double(cycles) + 3 * transferNs,
                                  3.0,
                                  "rank 3 waits for the rest");

        ChakraRun off =
            RunChakra(chain, true, "switch:4,rate=100Gbps,latency=1us", "flow", false, 2);
        NS_TEST_ASSERT_MSG_EQ(off.error, "", "chain without network");
        NS_TEST_EXPECT_MSG_EQ(off.iterations, 2u, "two iterations");
        // an infinitely fast network: the receives still wait for their sends
        NS_TEST_EXPECT_MSG_EQ_TOL(off.iterationNs[3],
                                  4 * double(cycles),
                                  0.5,
                                  "rank 3 without network: the chain's 4 C");
        NS_TEST_EXPECT_MSG_EQ_TOL(off.iterationNs[0], double(cycles), 0.5, "rank 0: C");
    }
};

/**
 * \ingroup training-net-tests
 * Traces refused when the job is set up: fewer files than NPUs, a send without its receive,
 * one line naming the file and node.
 */
class ChakraRefusalTestCase : public TnDataTestCase
{
  public:
    ChakraRefusalTestCase()
        : TnDataTestCase("Chakra traces that cannot run are refused at set-up")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<std::vector<tn_chakra_node_spec>> ranks(2);
        tn_chakra_node_spec send = NodeSpec(3, TN_CHAKRA_COMM_SEND_NODE);
        send.comm_dst = 1;
        send.comm_size = 64;
        ranks[0].push_back(send);
        ranks[1].push_back(NodeSpec(3, TN_CHAKRA_COMP_NODE));
        const std::string prefix = CreateTempDirFilename("lone");
        NS_TEST_ASSERT_MSG_EQ(WriteTraces(prefix, ranks), "", "written");
        ChakraRun r = RunChakra(prefix, true, "switch:2,rate=100Gbps,latency=1us", "flow");
        NS_TEST_EXPECT_MSG_NE(r.error.find("lone.0.et: node 3: send 0 -> 1"),
                              std::string::npos,
                              r.error);
        NS_TEST_EXPECT_MSG_EQ(r.error.find('\n'), std::string::npos, "one line");
        ChakraRun missing = RunChakra(prefix, true, "switch:4,rate=100Gbps,latency=1us", "flow");
        NS_TEST_EXPECT_MSG_NE(missing.error.find("lone.2.et"), std::string::npos, missing.error);
    }
};

/** Each rank: a kernel of ops[r] cycles (none if 0), then a collective of all NPUs after it. */
std::vector<std::vector<tn_chakra_node_spec>>
KernelThenCollective(const std::vector<uint64_t>& ops, tn_collective kind, uint64_t bytes)
{
    static const uint64_t kernel = 1;
    std::vector<std::vector<tn_chakra_node_spec>> ranks(ops.size());
    for (size_t r = 0; r < ops.size(); r++)
    {
        tn_chakra_node_spec coll = NodeSpec(2, TN_CHAKRA_COMM_COLL_NODE);
        coll.comm_type = tn_chakra_comm_type_of(kind);
        coll.comm_size = bytes;
        if (ops[r] > 0)
        {
            tn_chakra_node_spec comp = NodeSpec(kernel, TN_CHAKRA_COMP_NODE);
            comp.has_num_ops = 1;
            comp.num_ops = ops[r];
            ranks[r].push_back(comp);
            coll.data_deps = &kernel;
            coll.data_dep_count = 1;
        }
        ranks[r].push_back(coll);
    }
    return ranks;
}

/**
 * \ingroup training-net-tests
 * Chakra jobs that used to abort (issue 42), each against a closed form or the same job with
 * every NPU simulated:
 *  - flow-symmetric: NPU 0 runs for all and ends its iteration at the ns of flow level with
 *    every NPU; traces that differ, and a sub-group, are refused at set-up naming the node;
 *  - a reduce whose root reaches it after the data (a 50 us kernel first): the root's part
 *    ends when it starts, so its iteration is its kernel exactly, at packet and flow level;
 *  - collectives planned at set-up: Swing, TACOS or MultiTree on a sub-group and ring2d on a
 *    switch are refused before the run, naming the file and node;
 *  - a kernel past TN_WORKLOAD_MAX_CYCLES (num_ops / OpsPerCycle) or duration_micros past a
 *    second: refused, naming the node; the caps themselves run, as long as they say.
 */
class ChakraAbortsTestCase : public TnDataTestCase
{
  public:
    ChakraAbortsTestCase()
        : TnDataTestCase("Chakra: flow-symmetric, late reduce roots, plans and caps at set-up")
    {
    }

  private:
    void DoRun() override
    {
        const std::string sw = "switch:4,rate=100Gbps,latency=1us";
        const std::string same = CreateTempDirFilename("same");
        NS_TEST_ASSERT_MSG_EQ(
            WriteTraces(
                same,
                KernelThenCollective({20000, 20000, 20000, 20000}, TN_COLL_ALL_REDUCE, 1 << 20)),
            "",
            "written");
        const ChakraRun all = RunChakra(same, true, sw, "flow");
        const ChakraRun one = RunChakra(same, true, sw, "flow-symmetric");
        NS_TEST_ASSERT_MSG_EQ(all.error, "", "every NPU");
        NS_TEST_ASSERT_MSG_EQ(one.error, "", "NPU 0 for all");
        NS_TEST_EXPECT_MSG_EQ(one.complete, true, "flow-symmetric completes");
        NS_TEST_EXPECT_MSG_GT(all.iterationNs[0], 20000.0, "kernel, then the all-reduce");
        NS_TEST_EXPECT_MSG_EQ(one.iterationNs[0], all.iterationNs[0], "the same ns");
        NS_TEST_EXPECT_MSG_EQ(one.iterationNs[1], -1.0, "NPU 1 is not simulated");
        NS_TEST_EXPECT_MSG_EQ(one.collectives, 1u, "one all-reduce");

        const std::string differ = CreateTempDirFilename("differ");
        NS_TEST_ASSERT_MSG_EQ(
            WriteTraces(
                differ,
                KernelThenCollective({20000, 20000, 30000, 20000}, TN_COLL_ALL_REDUCE, 4096)),
            "",
            "written");
        const ChakraRun d = RunChakra(differ, true, sw, "flow-symmetric");
        NS_TEST_EXPECT_MSG_NE(d.error.find("differ.2.et: node 1: on a symmetric flow network"),
                              std::string::npos,
                              d.error);
        NS_TEST_EXPECT_MSG_EQ(RunChakra(differ, true, sw, "flow").error, "", "runs at flow level");

        // the root (rank 0) of a reduce reaches it 50 us late: everything arrived before
        const std::string late = CreateTempDirFilename("late");
        NS_TEST_ASSERT_MSG_EQ(
            WriteTraces(late, KernelThenCollective({50000, 0, 0, 0}, TN_COLL_REDUCE, 65536)),
            "",
            "written");
        for (const char* mode : {"packet", "flow"})
        {
            const ChakraRun r = RunChakra(late, true, sw, mode);
            NS_TEST_ASSERT_MSG_EQ(r.error, "", mode);
            NS_TEST_EXPECT_MSG_EQ(r.complete, true, mode << ": complete");
            NS_TEST_EXPECT_MSG_EQ(r.iterationNs[0], 50000.0, mode << ": the root's kernel alone");
            NS_TEST_EXPECT_MSG_EQ(r.exposedNs[0], 0.0, mode << ": nothing left to wait for");
            NS_TEST_EXPECT_MSG_GT(r.iterationNs[1], 5000.0, mode << ": 64 KiB sent");
            NS_TEST_EXPECT_MSG_LT(r.iterationNs[1], 50000.0, mode << ": before the root");
        }

        // planned at set-up: a sub-group's plan that cannot be made, ring2d on a switch
        const std::string sub = CreateTempDirFilename("sub");
        std::vector<std::vector<tn_chakra_node_spec>> ranks(4);
        const uint32_t group[] = {0, 1, 2};
        for (uint32_t r = 0; r < 3; r++)
        {
            tn_chakra_node_spec coll = NodeSpec(5, TN_CHAKRA_COMM_COLL_NODE);
            coll.comm_type = tn_chakra_comm_type_of(TN_COLL_ALL_REDUCE);
            coll.comm_size = 4096;
            coll.group = group;
            coll.group_count = 3;
            ranks[r].push_back(coll);
        }
        ranks[3].push_back(NodeSpec(5, TN_CHAKRA_COMP_NODE));
        NS_TEST_ASSERT_MSG_EQ(WriteTraces(sub, ranks), "", "written");
        for (const char* algorithm : {"swing", "tacos", "multitree"})
        {
            const ChakraRun r = RunChakra(sub, true, sw, "flow", true, 1, algorithm);
            NS_TEST_EXPECT_MSG_NE(r.error.find("sub.0.et: node 5: "), std::string::npos, r.error);
            NS_TEST_EXPECT_MSG_EQ(r.error.find('\n'), std::string::npos, "one line");
        }
        NS_TEST_EXPECT_MSG_EQ(RunChakra(sub, true, sw, "flow", true, 1, "ring").error,
                              "",
                              "ring runs on the sub-group");
        const ChakraRun ring2d = RunChakra(same, true, sw, "flow", true, 1, "ring2d");
        NS_TEST_EXPECT_MSG_NE(ring2d.error.find("same.0.et: node 2: "),
                              std::string::npos,
                              ring2d.error);

        // caps: one cycle past TN_WORKLOAD_MAX_CYCLES, a second and a microsecond
        const std::string over = CreateTempDirFilename("over");
        NS_TEST_ASSERT_MSG_EQ(
            WriteTraces(
                over,
                KernelThenCollective({TN_WORKLOAD_MAX_CYCLES + 1, 1}, TN_COLL_ALL_REDUCE, 64)),
            "",
            "written");
        const ChakraRun o = RunChakra(over, true, "switch:2", "flow");
        NS_TEST_EXPECT_MSG_NE(o.error.find("over.0.et: node 1: num_ops 1000000001"),
                              std::string::npos,
                              o.error);
        const std::string cap = CreateTempDirFilename("cap");
        NS_TEST_ASSERT_MSG_EQ(
            WriteTraces(cap,
                        KernelThenCollective({TN_WORKLOAD_MAX_CYCLES, 1}, TN_COLL_ALL_REDUCE, 64)),
            "",
            "written");
        const ChakraRun c = RunChakra(cap, true, "switch:2", "flow", false);
        NS_TEST_ASSERT_MSG_EQ(c.error, "", "the cap runs");
        NS_TEST_EXPECT_MSG_EQ(c.iterationNs[0], 1e9, "10^9 cycles at 1 GHz: one second");
        std::vector<std::vector<tn_chakra_node_spec>> slow(2);
        for (uint64_t micros : {TN_CHAKRA_MAX_DURATION_MICROS + 1, UINT64_C(1) << 63})
        {
            for (auto& r : slow)
            {
                r = {NodeSpec(9, TN_CHAKRA_COMP_NODE)};
                r[0].duration_micros = micros;
            }
            const std::string path = CreateTempDirFilename("slow");
            NS_TEST_ASSERT_MSG_EQ(WriteTraces(path, slow), "", "written");
            const ChakraRun s = RunChakra(path, true, "switch:2", "flow");
            NS_TEST_EXPECT_MSG_NE(s.error.find("slow.0.et: node 9: duration_micros"),
                                  std::string::npos,
                                  s.error);
        }
    }
};

/**
 * \ingroup training-net-tests
 * A scenario's [training] chakra: the traces of Resnet-50 on 8 ACE NPUs at flow level record
 * the same iteration rows as its text workload; chakra beside workload, and missing traces, are
 * refused naming the file, line and key.
 */
class ChakraScenarioTestCase : public TnDataTestCase
{
  public:
    ChakraScenarioTestCase()
        : TnDataTestCase("a scenario's [training] chakra records the text workload's iterations")
    {
    }

  private:
    /// \return the points of text, or none with *error set
    static std::vector<ScenarioPoint> Points(const std::string& text, std::string* error)
    {
        ScenarioConfig config;
        std::vector<ScenarioPoint> points;
        if (!config.LoadText(text, "c.toml", error) || !config.Expand(&points, error))
        {
            points.clear();
        }
        return points;
    }

    void DoRun() override
    {
        const std::string file = DataFile("workloads/Resnet50_DataParallel.txt");
        const std::string prefix = CreateTempDirFilename("scenario-r50");
        NS_TEST_ASSERT_MSG_EQ(ConvertResnet(file, 8, prefix), "", "converted");
        const std::string head = "mode = \"flow\"\n[npu]\nEngine = \"ace\"\n[topology]\nspec = "
                                 "\"switch:8,rate=100Gbps,latency=1us\"\n[training]\n";
        const std::string path = CreateTempDirFilename("chakra.db");
        std::remove(path.c_str());
        tn_db* db = nullptr;
        tn_error err{};
        NS_TEST_ASSERT_MSG_EQ(tn_db_open(path.c_str(), &db, &err), TN_OK, err.message);
        double end[2] = {0, 0};
        for (int chakra = 0; chakra < 2; chakra++)
        {
            std::string error;
            std::vector<ScenarioPoint> points =
                Points(head + (chakra ? "chakra = \"" + prefix : "workload = \"" + file) + "\"\n",
                       &error);
            NS_TEST_ASSERT_MSG_EQ(points.size(), 1, error);
            ScenarioRunner runner;
            ScenarioResult r = runner.Run(points[0], db);
            NS_TEST_EXPECT_MSG_EQ(r.status, "ok", r.error);
            NS_TEST_EXPECT_MSG_EQ(QueryValue(db,
                                             "SELECT count(*) FROM iteration WHERE run_id = ?1 "
                                             "AND end_ns IS NOT NULL",
                                             r.runId),
                                  8,
                                  "one iteration row per NPU");
            end[chakra] = QueryValue(db,
                                     "SELECT max(end_ns - start_ns) FROM iteration WHERE "
                                     "run_id = ?1",
                                     r.runId);
        }
        tn_db_close(db);
        NS_TEST_EXPECT_MSG_GT(end[0], 0, "an iteration recorded");
        NS_TEST_EXPECT_MSG_EQ_TOL(end[1], end[0], 1.0, "the same iteration");

        std::string error;
        Points(head + "chakra = \"" + prefix + "\"\nworkload = \"" + file + "\"\n", &error);
        NS_TEST_EXPECT_MSG_EQ(error.rfind("c.toml:7:10: training.chakra: give workload", 0),
                              0,
                              error);
        Points(head + "chakra = \"/nonexistent/x\"\n", &error);
        NS_TEST_EXPECT_MSG_EQ(error.rfind("c.toml:7:10: training.chakra: /nonexistent/x.0.et", 0),
                              0,
                              error);
    }
};

/**
 * \ingroup training-net-tests
 * Chakra traces as workloads of a training job.
 */
class ChakraTestSuite : public TestSuite
{
  public:
    ChakraTestSuite()
        : TestSuite("training-net-chakra", UNIT)
    {
        if (!tn_chakra_supported())
        {
            return; // built without protobuf-c: tn-chakra's core test checks the refusal
        }
        AddTestCase(new ChakraEquivalenceTestCase, TestCase::QUICK);
        AddTestCase(new ChakraPointToPointTestCase, TestCase::QUICK);
        AddTestCase(new ChakraRefusalTestCase, TestCase::QUICK);
        AddTestCase(new ChakraScenarioTestCase, TestCase::QUICK);
        AddTestCase(new ChakraAbortsTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static ChakraTestSuite g_chakraTestSuite;

} // namespace ns3
