/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What generated collectives hold in memory: the memory guard over the collectives in flight,
 * and the windows the service picks by itself when ProgramWindow is left 0.
 */
#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/uinteger.h"

#include <string>
#include <vector>

namespace ns3
{

namespace
{

using roce_test::Topology;

/// A flow-level fabric on `spec` whose collective service generates programs, holding
/// windows of `window` ops per stream (0: the service's default).
struct GeneratedFabric
{
    GeneratedFabric(const std::string& spec, uint32_t window)
        : t(spec)
    {
        if (!t.topo)
        {
            return;
        }
        roce.SetMode("flow");
        roce.Install(t.topo);
        helper.SetServiceAttribute("Program", StringValue("generated"));
        helper.SetServiceAttribute("ProgramWindow", UintegerValue(window));
        helper.Install(t.topo, roce);
    }

    Topology t;              //!< the topology
    RoceHelper roce;         //!< its fabric
    CollectiveHelper helper; //!< its collective service
};

} // namespace

/**
 * \ingroup training-net-tests
 * ProgramWindow left 0: a ring all-reduce on ring:128 whose whole programs pass an eighth of the
 * limit holds windows (fewer ops than its whole programs), and a direct all-reduce created after
 * it keeps its whole programs (a window narrower than them fails its check: its sends may all go
 * at once); both run as planned.
 */
class CollectiveAutoWindowTestCase : public TestCase
{
  public:
    CollectiveAutoWindowTestCase()
        : TestCase("the service's own windows: rings take them, direct keeps whole programs")
    {
    }

  private:
    void DoRun() override
    {
        GeneratedFabric fabric("ring:128,rate=100Gbps,latency=1us", 0);
        NS_TEST_ASSERT_MSG_NE(fabric.t.topo, nullptr, fabric.t.error);
        CollectiveHelper& helper = fabric.helper;
        // either all-reduce on 128 ranks in one chunk: 2 x 127 x 128 transfers, two ops each
        // (508 ops a rank, more than the service's window of 64)
        const uint64_t wholeOps = 2 * 2 * 127 * 128;
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.bytes = 1 << 20;
        request.chunks = 1;
        request.memory_limit = 4 * wholeOps * Collective::HELD_OP_BYTES;
        std::string error;
        request.algorithm = "ring";
        Ptr<Collective> ring = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(ring, nullptr, error);
        NS_TEST_EXPECT_MSG_LT(ring->GetHeldOps(), wholeOps, "the ring holds windows");
        request.algorithm = "direct";
        Ptr<Collective> direct = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(direct, nullptr, error);
        NS_TEST_EXPECT_MSG_EQ(direct->GetHeldOps(), wholeOps, "direct holds its whole programs");
        helper.Start(ring);
        helper.Start(direct);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(ring->Check(), "", "the windowed ring ran as planned");
        NS_TEST_EXPECT_MSG_EQ(direct->Check(), "", "direct ran as planned");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The memory guard counts the generated collectives in flight: with a limit that holds two
 * whole-program ring all-reduces on ring:16 (128 chunks), a third is refused with a message that
 * says what to change; once the two are done (programs freed), one more is accepted. With windows
 * of 4 ops, a collective whose whole programs the limit refuses is accepted.
 */
class CollectiveMemoryGuardTestCase : public TestCase
{
  public:
    CollectiveMemoryGuardTestCase()
        : TestCase("the memory guard counts the generated collectives in flight")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t window : {0u, 4u})
        {
            GeneratedFabric fabric("ring:16,rate=100Gbps,latency=1us", window);
            NS_TEST_ASSERT_MSG_NE(fabric.t.topo, nullptr, fabric.t.error);
            CollectiveHelper& helper = fabric.helper;
            tn_plan_request request;
            tn_plan_request_init(&request);
            request.algorithm = "ring";
            request.bytes = 8 << 20;
            request.chunks = 128;
            // a ring all-reduce on 16 NPUs in 128 chunks: 2 x 15 x 16 transfers per chunk, two
            // ops each (large enough that the planner's own guard, about 9 MiB, passes)
            const uint64_t wholeOps = 2 * 2 * 15 * 16 * 128;
            const uint64_t whole = wholeOps * Collective::HELD_OP_BYTES;
            request.memory_limit = 2 * whole + whole / 2;
            std::string error;
            std::vector<Ptr<Collective>> started;
            if (window == 0)
            {
                for (int i = 0; i < 2; i++)
                {
                    Ptr<Collective> c = helper.Create(request, {}, &error);
                    NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
                    NS_TEST_EXPECT_MSG_EQ(c->GetHeldOps(), wholeOps, "whole programs held");
                    started.push_back(c);
                }
                NS_TEST_EXPECT_MSG_EQ(helper.Create(request, {}, &error),
                                      nullptr,
                                      "a third does not fit beside two");
                NS_TEST_EXPECT_MSG_NE(error.find("2 generated collectives in flight"),
                                      std::string::npos,
                                      error);
                NS_TEST_EXPECT_MSG_NE(error.find("ProgramWindow"), std::string::npos, error);
            }
            else
            {
                // windows: what the whole programs would take is no longer asked for
                request.memory_limit = whole / 2;
                Ptr<Collective> c = helper.Create(request, {}, &error);
                NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
                NS_TEST_EXPECT_MSG_LT(c->GetHeldOps(), wholeOps / 4, "windows hold a few ops");
                started.push_back(c);
            }
            for (auto& c : started)
            {
                helper.Start(c);
            }
            Simulator::Run();
            for (auto& c : started)
            {
                NS_TEST_EXPECT_MSG_EQ(c->Check(), "", "complete");
                NS_TEST_EXPECT_MSG_EQ(c->GetHeldOps(), 0u, "programs freed at the end");
            }
            if (window == 0)
            {
                Ptr<Collective> again = helper.Create(request, {}, &error);
                NS_TEST_EXPECT_MSG_NE(again,
                                      nullptr,
                                      "accepted once the others are done: " << error);
            }
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup training-net-tests
 * What generated collectives hold in memory.
 */
class ProgramMemoryTestSuite : public TestSuite
{
  public:
    ProgramMemoryTestSuite()
        : TestSuite("training-net-program-memory", UNIT)
    {
        AddTestCase(new CollectiveMemoryGuardTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveAutoWindowTestCase, TestCase::QUICK);
    }
};

static ProgramMemoryTestSuite g_programMemoryTestSuite; //!< static instance

} // namespace ns3
