/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * CollectiveService's plan cache: identical requests share one plan, and the plans cached keep
 * within PlanCacheBytes.
 */
#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <string>

namespace ns3
{

namespace
{

using roce_test::Topology;

/// A 4x4 torus with its fabric and collective service, and a multitree all-reduce request.
struct CacheFabric
{
    CacheFabric()
        : t("torus:4x4,rate=100Gbps,latency=1us")
    {
        tn_plan_request_init(&request);
        request.algorithm = "multitree";
        if (t.topo)
        {
            roce.Install(t.topo);
            helper.Install(t.topo, roce);
        }
    }

    Topology t;
    RoceHelper roce;
    CollectiveHelper helper;
    tn_plan_request request;
};

/**
 * \ingroup training-net-tests
 * The plan cache: identical requests share one plan (the same schedule, estimate and lanes)
 * and run as the first did; another size, another group or a disabled cache plan anew.
 */
class CollectivePlanCacheTestCase : public TestCase
{
  public:
    CollectivePlanCacheTestCase()
        : TestCase("identical requests share one plan and run the same")
    {
    }

  private:
    void DoRun() override
    {
        CacheFabric f;
        NS_TEST_ASSERT_MSG_NE(f.t.topo, nullptr, f.t.error);
        CollectiveHelper& helper = f.helper;
        tn_plan_request request = f.request;
        request.bytes = 1 << 20;
        std::string error;
        Ptr<Collective> first = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(first, nullptr, error);
        Ptr<Collective> second = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(second, nullptr, error);
        NS_TEST_EXPECT_MSG_EQ(helper.GetPlansBuilt(), 1u, "planned once");
        NS_TEST_EXPECT_MSG_EQ(first->GetSchedule(), second->GetSchedule(), "one schedule");
        NS_TEST_EXPECT_MSG_NE(first->GetId(), second->GetId(), "two collectives");
        NS_TEST_EXPECT_MSG_EQ(first->GetEstimatedTime(),
                              second->GetEstimatedTime(),
                              "one estimate");
        NS_TEST_EXPECT_MSG_GT(first->GetEstimatedTime(), Seconds(0), "estimated");
        for (uint32_t t = 0; t < tn_schedule_count(first->GetSchedule()); ++t)
        {
            if (first->GetLane(t) != second->GetLane(t))
            {
                NS_TEST_EXPECT_MSG_EQ(second->GetLane(t), first->GetLane(t), "lane " << t);
                break;
            }
        }
        request.bytes = 2 << 20;
        Ptr<Collective> bigger = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(bigger, nullptr, error);
        request.bytes = 1 << 20;
        request.algorithm = "ring";
        Ptr<Collective> group = helper.Create(request, {0, 1, 2, 3}, &error);
        NS_TEST_ASSERT_MSG_NE(group, nullptr, error);
        Ptr<Collective> wholeRing = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(wholeRing, nullptr, error);
        NS_TEST_EXPECT_MSG_EQ(helper.GetPlansBuilt(), 4u, "other size, group, algorithm");
        NS_TEST_EXPECT_MSG_NE(bigger->GetSchedule(), first->GetSchedule(), "another size");
        helper.SetPlanCache(false);
        request.algorithm = "multitree";
        Ptr<Collective> uncached = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(uncached, nullptr, error);
        NS_TEST_EXPECT_MSG_EQ(helper.GetPlansBuilt(), 5u, "no cache: planned again");
        NS_TEST_EXPECT_MSG_NE(uncached->GetSchedule(), first->GetSchedule(), "its own schedule");

        // the shared plan runs the same: the second starts when the first is done
        helper.Start(first);
        Simulator::Run();
        const Time at = Simulator::Now();
        helper.Start(second);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(first->Check(), "", "first");
        NS_TEST_EXPECT_MSG_EQ(second->Check(), "", "second");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(second->GetStartTime(), at, "one after the other");
        NS_TEST_EXPECT_MSG_EQ_TOL(second->GetDuration().GetSeconds(),
                                  first->GetDuration().GetSeconds(),
                                  first->GetDuration().GetSeconds() * 0.01,
                                  "the same plan takes the same time");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The plan cache's budget (PlanCacheBytes): the plans it holds weigh what their schedules and
 * lanes hold; past the budget the plan asked for least recently goes, not the oldest one
 * cached; a plan dropped (or too large to keep) while a collective holds it is taken back on
 * its next request, not built again beside it.
 */
class CollectivePlanCacheBudgetTestCase : public TestCase
{
  public:
    CollectivePlanCacheBudgetTestCase()
        : TestCase("the plan cache keeps within its bytes, dropping the least recent plan")
    {
    }

  private:
    void DoRun() override
    {
        CacheFabric f;
        NS_TEST_ASSERT_MSG_NE(f.t.topo, nullptr, f.t.error);
        CollectiveHelper& helper = f.helper;
        tn_plan_request request = f.request;
        Ptr<CollectiveService> service = helper.GetService();
        std::string error;
        // A, B and C: three sizes, three plans; what each adds to the cache (no budget hit)
        uint64_t bytes[3];
        uint64_t before = service->GetCachedPlanBytes();
        for (uint32_t k = 0; k < 3; ++k)
        {
            request.bytes = uint64_t{k + 1} << 20;
            Ptr<Collective> c = helper.Create(request, {}, &error);
            NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
            bytes[k] = service->GetCachedPlanBytes() - before;
            before = service->GetCachedPlanBytes();
            NS_TEST_EXPECT_MSG_GT_OR_EQ(bytes[k],
                                        tn_schedule_held_bytes(c->GetSchedule()),
                                        "a plan weighs at least its schedule");
        }
        NS_TEST_EXPECT_MSG_EQ(service->GetPlansEvicted(), 0u, "the default budget holds three");
        auto create = [&](uint32_t k) {
            request.bytes = uint64_t{k + 1} << 20;
            Ptr<Collective> c = helper.Create(request, {}, &error);
            NS_TEST_EXPECT_MSG_NE(c, nullptr, error);
            return c;
        };
        auto restart = [&](uint64_t budget) {
            helper.SetPlanCache(false); // forgets the plans cached
            helper.SetPlanCache(true);
            service->SetAttribute("PlanCacheBytes", UintegerValue(budget));
            NS_TEST_EXPECT_MSG_EQ(service->GetCachedPlanBytes(), 0u, "emptied");
        };

        // room for one: A, B, then A again: dropped for B, but its collective holds it, so
        // it is taken back rather than built beside the first
        restart(std::max(bytes[0], bytes[1]));
        uint64_t built = helper.GetPlansBuilt();
        uint64_t evicted = service->GetPlansEvicted();
        uint64_t takenBack = service->GetPlansTakenBack();
        Ptr<Collective> a = create(0);
        create(1);
        Ptr<Collective> again = create(0);
        NS_TEST_EXPECT_MSG_EQ(helper.GetPlansBuilt() - built, 2u, "A and B planned once");
        NS_TEST_EXPECT_MSG_EQ(service->GetPlansEvicted() - evicted, 2u, "A, then B dropped");
        NS_TEST_EXPECT_MSG_EQ(service->GetPlansTakenBack() - takenBack, 1u, "A taken back");
        NS_TEST_EXPECT_MSG_EQ(a->GetSchedule(), again->GetSchedule(), "one plan of A");
        NS_TEST_EXPECT_MSG_EQ(service->GetCachedPlanBytes(), bytes[0], "A alone");

        // room for A and the larger of B and C: A, B, A again (a hit), then C drops B, the
        // least recent (a cache dropping the oldest would drop A, taken back on the next A)
        restart(bytes[0] + std::max(bytes[1], bytes[2]));
        built = helper.GetPlansBuilt();
        evicted = service->GetPlansEvicted();
        takenBack = service->GetPlansTakenBack();
        create(0);
        create(1);
        create(0);
        create(2);
        create(0);
        NS_TEST_EXPECT_MSG_EQ(helper.GetPlansBuilt() - built, 3u, "A, B and C once each");
        NS_TEST_EXPECT_MSG_EQ(service->GetPlansEvicted() - evicted, 1u, "B dropped");
        NS_TEST_EXPECT_MSG_EQ(service->GetPlansTakenBack() - takenBack, 0u, "A never dropped");
        NS_TEST_EXPECT_MSG_EQ(service->GetCachedPlanBytes(), bytes[0] + bytes[2], "A and C");

        // a plan larger than the budget is not kept, but taken back while a collective holds it
        restart(bytes[0] - 1);
        built = helper.GetPlansBuilt();
        takenBack = service->GetPlansTakenBack();
        Ptr<Collective> first = create(0);
        Ptr<Collective> second = create(0);
        NS_TEST_EXPECT_MSG_EQ(helper.GetPlansBuilt() - built, 1u, "planned once");
        NS_TEST_EXPECT_MSG_EQ(service->GetPlansTakenBack() - takenBack, 1u, "taken back");
        NS_TEST_EXPECT_MSG_EQ(first->GetSchedule(), second->GetSchedule(), "one plan");
        NS_TEST_EXPECT_MSG_EQ(service->GetCachedPlanBytes(), 0u, "nothing cached");
        Simulator::Destroy();
    }
};

} // namespace

/**
 * \ingroup training-net-tests
 * The plan cache's suite.
 */
class PlanCacheTestSuite : public TestSuite
{
  public:
    PlanCacheTestSuite()
        : TestSuite("training-net-plan-cache", UNIT)
    {
        AddTestCase(new CollectivePlanCacheTestCase, TestCase::QUICK);
        AddTestCase(new CollectivePlanCacheBudgetTestCase, TestCase::QUICK);
    }
};

static PlanCacheTestSuite g_planCacheTestSuite; //!< static instance

} // namespace ns3
