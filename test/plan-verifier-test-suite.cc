/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Plans verified on a thread of their own: PlanVerifier's queue, and the service's deferred
 * checks (CollectiveService::CheckDeferred, AwaitVerifications) that a job's set-up uses.
 */
#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/plan-verifier.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

using roce_test::Topology;

/// A broadcast from rank 0 on 4 ranks that forgets rank 3: its postcondition fails.
tn_schedule*
ForgetfulBroadcast()
{
    tn_schedule* s = nullptr;
    tn_error err;
    if (tn_schedule_create(TN_COLL_BROADCAST, 4, 4096, 0, 1, &s, &err) != TN_OK)
    {
        return nullptr;
    }
    for (uint32_t dst : {1u, 2u})
    {
        const tn_transfer_spec t = {0, dst, 0, 0, 4096, TN_OP_COPY, 0, -1, 0};
        if (tn_schedule_add(s, &t, nullptr, 0, nullptr, &err) != TN_OK)
        {
            tn_schedule_destroy(s);
            return nullptr;
        }
    }
    if (tn_schedule_finalize(s, &err) != TN_OK)
    {
        tn_schedule_destroy(s);
        return nullptr;
    }
    return s;
}

} // namespace

/**
 * \ingroup training-net-tests
 * Verifications queued on PlanVerifier's thread give the verdicts tn_verify_schedule_within
 * gives on the caller's: a right all-reduce (ring, rhd, direct on ring:4) TN_OK, a broadcast
 * that forgets a rank the verifier's refusal, rhd under a budget of one segment TN_EUNSUPPORTED;
 * taken in the reverse of their order (a job queued behind others is waited for), and again
 * after the verifier waited for all of them (Wait).
 */
class PlanVerifierQueueTestCase : public TestCase
{
  public:
    PlanVerifierQueueTestCase()
        : TestCase("plans verified on the verifier's thread get the caller's verdicts")
    {
    }

  private:
    void DoRun() override
    {
        Topology t("ring:4,rate=100Gbps,latency=1us");
        NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, t.error);
        tn_routes* routes = nullptr;
        tn_error err;
        NS_TEST_ASSERT_MSG_EQ(tn_routes_create(t.topo, nullptr, &routes, &err), TN_OK, err.message);

        struct Case
        {
            std::shared_ptr<const tn_schedule> schedule;
            uint64_t budget;
            tn_status expected;
        };

        std::vector<Case> cases;
        for (const char* algorithm : {"ring", "rhd", "direct", "rhd"})
        {
            tn_plan_request request;
            tn_plan_request_init(&request);
            request.algorithm = algorithm;
            request.bytes = 1 << 16;
            request.ranks = 4;
            tn_schedule* s = nullptr;
            NS_TEST_ASSERT_MSG_EQ(tn_plan(t.topo, &request, &s, &err), TN_OK, err.message);
            // the last rhd gets a budget of one segment
            const uint64_t budget = cases.size() == 3 ? TN_VERIFY_SEGMENT_BYTES : 0;
            cases.push_back(
                {std::shared_ptr<const tn_schedule>(s, tn_schedule_destroy), budget, TN_OK});
        }
        tn_schedule* bad = ForgetfulBroadcast();
        NS_TEST_ASSERT_MSG_NE(bad, nullptr, "the forgetful broadcast is built");
        cases.insert(cases.begin() + 1,
                     {std::shared_ptr<const tn_schedule>(bad, tn_schedule_destroy), 0, TN_OK});
        // what the caller's thread finds
        for (Case& c : cases)
        {
            c.expected =
                tn_verify_schedule_within(c.schedule.get(), t.topo, routes, c.budget, &err);
        }
        NS_TEST_ASSERT_MSG_EQ(cases[0].expected, TN_OK, "ring is right");
        NS_TEST_ASSERT_MSG_NE(cases[1].expected, TN_OK, "the broadcast is refused");
        NS_TEST_ASSERT_MSG_NE(cases[1].expected, TN_EUNSUPPORTED, "refused, not out of budget");
        NS_TEST_ASSERT_MSG_EQ(cases[4].expected, TN_EUNSUPPORTED, "rhd is past one segment");
        {
            PlanVerifier verifier;
            std::vector<std::shared_ptr<PlanVerifier::Job>> jobs;
            for (const Case& c : cases)
            {
                jobs.push_back(verifier.Start(c.schedule, t.topo, routes, c.budget));
            }
            for (size_t i = cases.size(); i-- > 0;)
            {
                const PlanVerifier::Verdict& v = verifier.Take(jobs[i]);
                NS_TEST_EXPECT_MSG_EQ(v.status, cases[i].expected, "case " << i);
                const bool right = cases[i].expected == TN_OK;
                NS_TEST_EXPECT_MSG_EQ(v.message.empty(),
                                      right,
                                      "a message with each refusal, case " << i);
            }
            verifier.Wait();
            for (size_t i = 0; i < cases.size(); i++)
            {
                NS_TEST_EXPECT_MSG_EQ(verifier.Take(jobs[i]).status,
                                      cases[i].expected,
                                      "case " << i << " after Wait");
            }
            // the queue starts again after it emptied
            auto again = verifier.Start(cases[1].schedule, t.topo, routes, 0);
            NS_TEST_EXPECT_MSG_EQ(verifier.Take(again).status,
                                  cases[1].expected,
                                  "a job after the thread ended");
        }
        tn_routes_destroy(routes);
    }
};

/**
 * \ingroup training-net-tests
 * CheckDeferred leaves the verdict to AwaitVerifications: rhd's all-reduce on 64 ranks passes
 * the verifier's share of a limit of 4 x 64^2 segments (program-memory's budget case), so its
 * plan is counted unverified when the verdict is taken, not when the check returns; under a
 * limit 32 times larger the same plan is verified. Create then takes the cached plans (none built
 * again) and both run as planned. With Check (not deferred) the count is there at once.
 */
class DeferredVerificationTestCase : public TestCase
{
  public:
    DeferredVerificationTestCase()
        : TestCase("a deferred check's verdict is taken when the verifications are awaited")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t limit = 4 * 64 * 64 * TN_VERIFY_SEGMENT_BYTES;
        for (bool deferred : {true, false})
        {
            Topology t("switch:64,rate=100Gbps,latency=1us");
            NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, t.error);
            RoceHelper roce;
            roce.SetMode("flow");
            roce.Install(t.topo);
            CollectiveHelper helper;
            helper.SetServiceAttribute("Program", StringValue("schedule"));
            helper.Install(t.topo, roce);
            Ptr<CollectiveService> service = helper.GetService();
            // the same plan under the small limit and under one 32 times larger
            std::vector<tn_plan_request> requests(2);
            for (size_t i = 0; i < requests.size(); i++)
            {
                tn_plan_request_init(&requests[i]);
                requests[i].algorithm = "rhd";
                requests[i].bytes = 1 << 20;
                requests[i].memory_limit = i == 0 ? limit : 32 * limit;
            }
            std::string error;
            for (const tn_plan_request& r : requests)
            {
                const bool ok = deferred ? service->CheckDeferred(r, {}, &error)
                                         : service->Check(r, {}, &error);
                NS_TEST_ASSERT_MSG_EQ(ok, true, error);
            }
            const uint64_t takenAtOnce = deferred ? 0 : 1;
            NS_TEST_EXPECT_MSG_EQ(service->GetPlansUnverified(),
                                  takenAtOnce,
                                  "a deferred verdict is not taken yet");
            NS_TEST_ASSERT_MSG_EQ(service->AwaitVerifications(&error), true, error);
            NS_TEST_EXPECT_MSG_EQ(service->GetPlansUnverified(), 1, "rhd's plan, once");
            const uint64_t built = service->GetPlansBuilt();
            NS_TEST_EXPECT_MSG_EQ(built, 2, "one plan each");
            std::vector<Ptr<Collective>> made;
            for (const tn_plan_request& r : requests)
            {
                Ptr<Collective> c = helper.Create(r, {}, &error);
                NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
                helper.Start(c);
                made.push_back(c);
            }
            NS_TEST_EXPECT_MSG_EQ(service->GetPlansBuilt(), built, "Create took the checked plans");
            NS_TEST_EXPECT_MSG_EQ(service->GetPlansUnverified(), 1, "counted once");
            Simulator::Run();
            for (const Ptr<Collective>& c : made)
            {
                NS_TEST_EXPECT_MSG_EQ(c->Check(), "", "it ran as planned");
            }
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup training-net-tests
 * Plans verified on a thread of their own.
 */
class PlanVerifierTestSuite : public TestSuite
{
  public:
    PlanVerifierTestSuite()
        : TestSuite("training-net-plan-verifier", UNIT)
    {
        AddTestCase(new PlanVerifierQueueTestCase, TestCase::QUICK);
        AddTestCase(new DeferredVerificationTestCase, TestCase::QUICK);
    }
};

static PlanVerifierTestSuite g_planVerifierTestSuite; //!< static instance

} // namespace ns3
