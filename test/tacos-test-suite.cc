/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TACOS (tn-algo-tacos.c) at packet level: within 5% of its cost model where its plan is
 * contention-free (every transfer waits for the previous one on each link of its path), for
 * all-reduce, all-gather and reduce-scatter on a 4x4 torus, all-reduce on a 4x4 mesh and
 * all-gather on a 16-port switch; every run ends with its postcondition checked
 * (Collective::Check). The seed of the scenario is the plan's seed: two seeds, two plans,
 * both within 5%.
 */
#include "planned-collective-test-util.h"
#include "roce-test-util.h"

#include "ns3/test.h"

#include <cstdio>
#include <string>

using namespace ns3;

namespace
{

planned_test::Measured
RunTacos(const char* spec, tn_collective collective, uint64_t bytes, uint64_t seed)
{
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.algorithm = "tacos";
    request.collective = collective;
    request.bytes = bytes;
    request.seed = seed;
    return planned_test::RunPlanned(spec, request);
}

/// Packet level against the cost model on contention-free plans.
class TacosPacketLevelTestCase : public TestCase
{
  public:
    TacosPacketLevelTestCase()
        : TestCase("tacos: packet level within 5% of the cost model")
    {
    }

  private:
    void DoRun() override
    {
        roce_test::DefaultsGuard guard;

        struct Case
        {
            const char* spec;
            tn_collective collective;
            uint64_t bytes;
            uint64_t seed;
        } cases[] = {{"torus:4x4", TN_COLL_ALL_REDUCE, 16 << 20, 0},
                     {"torus:4x4", TN_COLL_ALL_REDUCE, 16 << 20, 5},
                     {"torus:4x4", TN_COLL_ALL_GATHER, 16 << 20, 0},
                     {"torus:4x4", TN_COLL_REDUCE_SCATTER, 16 << 20, 0},
                     {"torus:4x4", TN_COLL_ALL_REDUCE, 256 << 10, 0},
                     {"mesh:4x4", TN_COLL_ALL_REDUCE, 16 << 20, 0},
                     {"switch:16", TN_COLL_ALL_GATHER, 16 << 20, 0}};

        for (const Case& c : cases)
        {
            planned_test::Measured m = RunTacos(c.spec, c.collective, c.bytes, c.seed);
            const std::string what = std::string(c.spec) + " " + tn_collective_name(c.collective) +
                                     " " + std::to_string(c.bytes) + " seed " +
                                     std::to_string(c.seed);
            NS_TEST_EXPECT_MSG_EQ(m.check, "", what << ": executed = planned");
            NS_TEST_EXPECT_MSG_EQ_TOL(m.ns / m.estimatedNs,
                                      1.0,
                                      0.05,
                                      what << ": packet level " << m.ns << " ns, cost model "
                                           << m.estimatedNs << " ns");
            std::printf("tacos %s: packet level %.0f ns, cost model %.0f ns, ratio %.4f\n",
                        what.c_str(),
                        m.ns,
                        m.estimatedNs,
                        m.ns / m.estimatedNs);
        }
    }
};

/// The TACOS suite.
class TacosTestSuite : public TestSuite
{
  public:
    TacosTestSuite()
        : TestSuite("training-net-tacos", UNIT)
    {
        AddTestCase(new TacosPacketLevelTestCase, TestCase::QUICK);
    }
};

TacosTestSuite g_tacosTestSuite; //!< registers the suite

} // namespace
