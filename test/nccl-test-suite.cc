/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's model in the simulation (tn-nccl.h): its protocols' wire bytes and latencies reach
 * the executor at packet and flow level, and the cost model's estimate charges the same; NVLS
 * runs at both levels with its bytes and latency.
 */
#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"

#include <algorithm>
#include <string>

namespace ns3
{

namespace
{

/**
 * \ingroup training-net-tests
 * A forced ring all-reduce of 8 KiB (one channel) on an uncongested 8-NPU ring within 3% of
 * NCCL's launch latency plus 2(N-1) hops of max(the protocol's per-hop latency, the link
 * latency) and the protocol's wire bytes of S/N (LL 2x, LL128 128 per 120, Simple 1x) with the RoCE
 * headers, at packet or flow level; the latencies are NCCL's (baseLat 6.6, 14, 8.4 us; NVLink
 * ring hwLat 0.6, 1.9, 3.4 us), written here from its tables.
 */
class NcclProtocolTestCase : public TestCase
{
  public:
    /**
     * \param protocol "ll", "ll128" or "simple"
     * \param mode "packet" or "flow"
     */
    NcclProtocolTestCase(const std::string& protocol, const std::string& mode)
        : TestCase("nccl:ring:" + protocol + " at " + mode +
                   " level within 3% of its launch, hops and wire bytes"),
          m_protocol(protocol),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        const uint64_t bytes = 8 << 10;
        roce_test::Topology t("ring:8,rate=100Gbps,latency=1us");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "topology");
        RoceHelper roce;
        roce.SetMode(m_mode);
        roce.Install(t.topo);
        CollectiveHelper helper;
        helper.Install(t.topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        const std::string algorithm = "nccl:ring:" + m_protocol;
        request.algorithm = algorithm.c_str();
        request.bytes = bytes;
        std::string error;
        Ptr<Collective> c = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_EQ(error, "", "created");
        helper.Start(c);
        Simulator::Run();
        const double duration = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : -1.0;
        const double estimate = c->GetEstimatedTime().GetNanoSeconds();
        const std::string check = c->Check();
        const Collective::Protocol protocol = c->GetProtocol();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(check, "", "executed = planned");
        NS_TEST_EXPECT_MSG_EQ(protocol.name, m_protocol, "the protocol is the collective's");
        NS_TEST_EXPECT_MSG_EQ(protocol.channels, 1u, "one channel at 8 KiB");
        const uint64_t message = bytes / n; // 1024: one packet whatever the protocol
        const bool ll = m_protocol == "ll";
        const bool ll128 = m_protocol == "ll128";
        const uint64_t lines = ll ? message * 2 : ll128 ? (message + 119) / 120 * 128 : message;
        const double wire = lines + RdmaNic::DATA_WIRE_OVERHEAD + RdmaNic::RETH_BYTES + 4;
        const double launch = ll ? 6600 : ll128 ? 14000 : 8400;
        const double hop = ll ? 600 : ll128 ? 1900 : 3400;
        // NCCL's per-hop latency is end to end: a hop costs max(hop, the link's 1 us)
        const double closed = launch + 2.0 * (n - 1) * (std::max(1000.0, hop) + wire * 8e9 / 100e9);
        NS_TEST_EXPECT_MSG_EQ_TOL(duration / closed,
                                  1.0,
                                  0.03,
                                  m_mode << " level " << duration << " ns vs closed form " << closed
                                         << " ns");
        NS_TEST_EXPECT_MSG_EQ_TOL(estimate / closed, 1.0, 0.03, "the cost model's estimate");
    }

    std::string m_protocol;
    std::string m_mode;
};

/**
 * \ingroup training-net-tests
 * NVLS on one DGX-H100, forced, 8 MiB at packet or flow level: the collective records
 * nccl:nvls:simple on 16 channels, runs as planned (every GPU the full sum), and takes NVLS's
 * 25 us launch, the two stages' NVLink paths (2 x 2 x 300 ns) and a GPU link busy for NVLS's
 * S(1 + 1/8) bytes at 0.7004 of its 3600 Gb/s (NCCL's NVLink rate 20.6/25 x its NVLS
 * efficiency 0.85; tn-nccl.h), within
 * 4 % (the RoCE headers); without the wire scale it would take 30 % longer.
 */
class NcclNvlsTestCase : public TestCase
{
  public:
    /// \param mode "packet" or "flow"
    explicit NcclNvlsTestCase(const std::string& mode)
        : TestCase("nccl:nvls on dgx-h100 at " + mode + " level: NVLS's bytes and latency"),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t bytes = 8 << 20;
        roce_test::Topology t("dgx-h100:servers=1");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "topology");
        RoceHelper roce;
        roce.SetMode(m_mode);
        roce.Install(t.topo);
        CollectiveHelper helper;
        helper.Install(t.topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "nccl:nvls";
        request.bytes = bytes;
        std::string error;
        Ptr<Collective> c = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_EQ(error, "", "created");
        helper.Start(c);
        Simulator::Run();
        const double duration = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : -1.0;
        const std::string check = c->Check();
        const std::string algorithm = c->GetAlgorithm();
        const Collective::Protocol protocol = c->GetProtocol();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(check, "", "executed = planned");
        NS_TEST_EXPECT_MSG_EQ(algorithm, "nccl:nvls:simple", "the algorithm recorded");
        NS_TEST_EXPECT_MSG_EQ(protocol.name, "simple", "NVLS runs Simple");
        NS_TEST_EXPECT_MSG_EQ(protocol.channels, 16u, "Hopper's 16 NVLS channels");
        const double closed =
            25000 + 2 * 600 + bytes * (1 + 1.0 / 8) / (20.6 / 25 * 0.85) * 8 / 3600.0;
        NS_TEST_EXPECT_MSG_EQ_TOL(duration / closed,
                                  1.0,
                                  0.04,
                                  m_mode << " level " << duration << " ns vs closed form " << closed
                                         << " ns");
    }

    std::string m_mode;
};

/**
 * \ingroup training-net-tests
 * CollNet on 4 DGX-A100 of 2 GPUs on a SHARP fabric (dgx-a100:servers=4,gpus=2,sharp=1),
 * 8 MiB at packet or flow level: the tuner picks nccl:collnet:simple (388.7 us in NCCL's
 * model against ring LL128's 691.5; the database's record), which runs as planned (every
 * GPU the full sum). Its NICs are the bottleneck, kept busy by the 12 channels' pipeline:
 * SHARP's slice S/2 once each way, as the plan's two stages between servers (2 MiB out of a
 * NIC each at 200 Gb/s), after the pipeline's fill (the launch 2 x 0.4 us, the 3.7 us hop
 * and a channel's S/12 / 2 on a GPU's NVLink at NCCL's 0.8 of 2400 Gb/s, half of the 31 us
 * between servers) and before its drain (the last channel's hop back inside the server);
 * within 5 % (the RoCE headers). Without the wire scale between servers (the plan's
 * 2(s - 1)/s = 3/2 of SHARP's bytes) it takes 47 % longer. */
class NcclCollnetTestCase : public TestCase
{
  public:
    /// \param mode "packet" or "flow"
    explicit NcclCollnetTestCase(const std::string& mode)
        : TestCase("nccl picks collnet on a SHARP fabric at " + mode +
                   " level: SHARP's bytes and CollNet's latency"),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t bytes = 8 << 20;
        roce_test::Topology t("dgx-a100:servers=4,gpus=2,sharp=1");
        NS_TEST_ASSERT_MSG_EQ(t.error, "", "topology");
        RoceHelper roce;
        roce.SetMode(m_mode);
        roce.Install(t.topo);
        CollectiveHelper helper;
        helper.Install(t.topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "nccl";
        request.bytes = bytes;
        std::string error;
        Ptr<Collective> c = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_EQ(error, "", "created");
        helper.Start(c);
        Simulator::Run();
        const double duration = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : -1.0;
        const double estimate = c->GetEstimatedTime().GetNanoSeconds();
        const std::string check = c->Check();
        const std::string algorithm = c->GetAlgorithm();
        const Collective::Protocol protocol = c->GetProtocol();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(check, "", "executed = planned");
        NS_TEST_EXPECT_MSG_EQ(algorithm, "nccl:collnet:simple", "the algorithm recorded");
        NS_TEST_EXPECT_MSG_EQ(protocol.name, "simple", "CollNet runs Simple");
        // 16 channels less one while S < nc x 640 x 2 heads x 512: 12 x 655360 <= 8 MiB
        NS_TEST_EXPECT_MSG_EQ(protocol.channels, 12u, "CollNet's channels at 8 MiB");
        const double channel = bytes / 12.0 / 2 / 0.8 * 8 / 2400.0;
        const double nic = bytes / 4.0 * 8 / 200.0;
        const double closed = 800 + 2 * (3700 + channel) + 15500 + 2 * nic;
        NS_TEST_EXPECT_MSG_EQ_TOL(duration / closed,
                                  1.0,
                                  0.05,
                                  m_mode << " level " << duration << " ns vs closed form " << closed
                                         << " ns");
        NS_TEST_EXPECT_MSG_EQ_TOL(estimate / closed, 1.0, 0.05, "the cost model's estimate");
    }

    std::string m_mode;
};

/**
 * \ingroup training-net-tests
 * NCCL's model in the simulation.
 */
class NcclTestSuite : public TestSuite
{
  public:
    NcclTestSuite()
        : TestSuite("training-net-nccl", UNIT)
    {
        for (const char* protocol : {"ll", "ll128", "simple"})
        {
            for (const char* mode : {"packet", "flow"})
            {
                AddTestCase(new NcclProtocolTestCase(protocol, mode), TestCase::QUICK);
            }
        }
        for (const char* mode : {"packet", "flow"})
        {
            AddTestCase(new NcclNvlsTestCase(mode), TestCase::QUICK);
            AddTestCase(new NcclCollnetTestCase(mode), TestCase::QUICK);
        }
    }
};

/// The suite's instance.
NcclTestSuite g_ncclTestSuite;

} // namespace

} // namespace ns3
