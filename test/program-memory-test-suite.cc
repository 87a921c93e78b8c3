/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What generated collectives hold in memory: the memory guard over the collectives in flight,
 * and the windows the service picks by itself when ProgramWindow is left 0.
 */
#include "roce-test-util.h"

#include "ns3/collective-executor.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-window.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-program-window.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
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

/// The least window of `algorithm`'s all-reduce on `spec` (tn_program_min_window of the
/// program the service plans), 0 if refused.
uint32_t
LeastWindow(const std::string& spec, const std::string& algorithm)
{
    GeneratedFabric fabric(spec, 0);
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.algorithm = algorithm.c_str();
    request.bytes = 256 << 10;
    std::string error;
    Ptr<Collective> c = fabric.t.topo ? fabric.helper.Create(request, {}, &error) : nullptr;
    uint32_t least = 0;
    tn_error err;
    if (c && tn_program_min_window(c->GetProgram(), &least, &err) != TN_OK)
    {
        least = 0;
    }
    Simulator::Destroy();
    return least;
}

} // namespace

/**
 * \ingroup training-net-tests
 * A window's block (CollectiveWindow::Pack) and its look-up (Find), checked against the
 * program it was built from: G groups of (direction, peer), their ops interleaved in program
 * order, group g's k-th op with match base_g + k. Every op is found at its own program index
 * and no other (match < base, match past the group, a peer not held: none); each OpState
 * starts a cache line and keeps what was packed; the groups sit in the first line when there
 * are at most INLINE_GROUPS of them, else in the block; the arrays lie in the block without
 * overlapping. Packed again narrower (a renewal, the block reused), the same holds.
 */
class CollectiveWindowBlockTestCase : public TestCase
{
  public:
    CollectiveWindowBlockTestCase()
        : TestCase("a window's block: every op found at its index, one line per op state")
    {
    }

  private:
    /// Pack a window of `groups` groups of `perGroup` ops each from program index `first`,
    /// then check it
    void Check(CollectiveWindow& w, uint32_t groups, uint32_t perGroup, uint32_t first)
    {
        const uint32_t n = groups * perGroup;
        auto* ops = static_cast<tn_program_op*>(calloc(n, sizeof(tn_program_op)));
        free(w.rp.ops);
        w.rp.ops = ops;
        w.rp.first = first;
        w.rp.count = n;
        CollectiveWindowArrays a;
        a.ops.resize(n);
        std::vector<uint64_t> keys(groups);
        for (uint32_t i = 0; i < n; i++)
        {
            const uint32_t g = i % groups;
            ops[i].send = g % 2;
            ops[i].peer = 10 + 3 * g;
            ops[i].match = 7 * g + i / groups; // base 7 g
            keys[g] = CollectiveWindow::GroupKey(ops[i].send, ops[i].peer);
            a.ops[i].transfer = 1000 + i;
        }
        // the groups by key, each an array by match
        std::vector<uint32_t> order(groups);
        for (uint32_t g = 0; g < groups; g++)
        {
            order[g] = g;
        }
        std::sort(order.begin(), order.end(), [&keys](uint32_t x, uint32_t y) {
            return keys[x] < keys[y];
        });
        for (uint32_t k = 0; k < groups; k++)
        {
            const uint32_t g = order[k];
            a.groups.push_back({keys[g], k * perGroup, 7 * g});
            for (uint32_t m = 0; m < perGroup; m++)
            {
                a.groupOps.push_back(m * groups + g);
            }
        }
        a.groups.push_back({UINT64_MAX, n, UINT32_MAX});
        a.joins = {{1, 0}, {0, n}};
        for (uint32_t i = 0; i < n; i++)
        {
            a.joinOps.push_back(i);
            a.succJoins.push_back(0);
        }
        w.Pack(a);
        NS_TEST_ASSERT_MSG_EQ(w.count, n, "ops held");
        NS_TEST_EXPECT_MSG_EQ((w.Groups() == w.inlineGroups),
                              (groups <= CollectiveWindow::INLINE_GROUPS),
                              groups << " groups: in the first line when they fit");
        for (uint32_t i = 0; i < n; i++)
        {
            NS_TEST_EXPECT_MSG_EQ(w.Find(ops[i].send, ops[i].peer, ops[i].match),
                                  first + i,
                                  groups << " groups: op " << i);
            NS_TEST_EXPECT_MSG_EQ(reinterpret_cast<uintptr_t>(&w.ops[i]) % 64, 0, "a line each");
            NS_TEST_EXPECT_MSG_EQ(w.ops[i].transfer, 1000 + i, "its state");
        }
        for (uint32_t g = 0; g < groups; g++)
        {
            const bool send = g % 2;
            const uint32_t peer = 10 + 3 * g;
            NS_TEST_EXPECT_MSG_EQ(w.Find(send, peer, 7 * g + perGroup), UINT32_MAX, "past it");
            NS_TEST_EXPECT_MSG_EQ(w.Find(!send, peer, 7 * g), UINT32_MAX, "other direction");
            if (g > 0)
            {
                NS_TEST_EXPECT_MSG_EQ(w.Find(send, peer, 7 * g - 1), UINT32_MAX, "before it");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(w.Find(true, 11, 0), UINT32_MAX, "a peer not held");
        // the arrays in order, inside the block
        auto at = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
        const uintptr_t begin = at(w.block.data());
        const uintptr_t end = at(w.block.data() + w.block.size());
        NS_TEST_EXPECT_MSG_EQ(at(w.ops), begin, "the states first");
        uintptr_t next = at(w.groupOps);
        NS_TEST_EXPECT_MSG_EQ(next, at(w.ops + n), "then the slots by group");
        next += n * sizeof(uint32_t);
        if (groups > CollectiveWindow::INLINE_GROUPS)
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(at(w.group), next, "then the groups");
            next = at(w.group + groups);
        }
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at(w.joins), next, "then the joins");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at(w.joinOps), at(w.joins + 2), "then the slots by join");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at(w.succJoins), at(w.joinOps + n), "then joins by slot");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(at(w.succJoins + n), end, "inside the block");
        NS_TEST_EXPECT_MSG_EQ(w.joins[0].pending, 1u, "the joins packed");
    }

    void DoRun() override
    {
        for (uint32_t groups : {1u, 2u, 3u, 4u, 9u})
        {
            CollectiveWindow w;
            Check(w, groups, 8, 100);
            Check(w, groups, 5, 120); // renewed narrower: the block reused
            Check(w, groups, 16, 200);
        }
    }
};

/**
 * \ingroup training-net-tests
 * ProgramWindow left 0: a ring all-reduce on ring:128 whose whole programs pass an eighth of the
 * limit holds windows of 64 ops (its least width, tn_program_min_window, is 5), fewer ops than its
 * whole programs, and a direct all-reduce created after it holds windows of twice its least width,
 * 4 x 127 = 508 ops, a chunk's whole program (its sends may all go at once), so all its ops; both
 * run as planned.
 */
class CollectiveAutoWindowTestCase : public TestCase
{
  public:
    CollectiveAutoWindowTestCase()
        : TestCase("the service's own windows: rings take 64 ops, direct its least, whole chunks")
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
        NS_TEST_EXPECT_MSG_EQ(ring->GetWindow(), 64, "the service's window, wider than 5");
        request.algorithm = "direct";
        Ptr<Collective> direct = helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(direct, nullptr, error);
        NS_TEST_EXPECT_MSG_EQ(direct->GetWindow(), 2 * 4 * 127, "twice direct's least width");
        NS_TEST_EXPECT_MSG_EQ(direct->GetHeldOps(), wholeOps, "so it holds its whole programs");
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
 * Auto passes over a candidate whose programs the run could not hold (tn_tune_options'
 * held_limit: an eighth of the memory limit, windows as the service picks them): on switch:64
 * at 64 KiB direct (and hierarchical, the same there) is the fastest estimate and holds its whole
 * program on every rank even in windows (its least window is the whole program), 64 x 252 ops; with
 * the limit eight times one byte below that the choice is another algorithm, slower by its
 * estimate, and it runs as planned. With the limit eight times that, direct again. Named
 * under a limit below its windows (on 256 ranks), direct is refused before they are filled, and
 * with planned routing before that, when its rank pairs' lanes pass an eighth of the limit.
 */
class CollectiveAutoHeldTestCase : public TestCase
{
  public:
    CollectiveAutoHeldTestCase()
        : TestCase("auto passes over the fastest when the run could not hold its programs")
    {
    }

  private:
    /// auto's collective under `limit`: its algorithm and its tuner's estimate (ns), run;
    /// *skips the service's GetHeldSkips
    std::pair<std::string, int64_t> RunAuto(uint64_t limit, uint64_t* skips)
    {
        GeneratedFabric fabric("switch:64,rate=100Gbps,latency=1us", 0);
        if (!fabric.t.topo)
        {
            return {"no topology: " + fabric.t.error, -1};
        }
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "auto";
        request.bytes = 64 << 10;
        request.memory_limit = limit;
        std::string error;
        Ptr<Collective> c = fabric.helper.Create(request, {}, &error);
        std::pair<std::string, int64_t> out{"refused: " + error, -1};
        *skips = fabric.helper.GetService()->GetHeldSkips();
        if (c)
        {
            out = {c->GetAlgorithm(), c->GetTuning().choiceEstimate.GetNanoSeconds()};
            fabric.helper.Start(c);
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(c->Check(), "", out.first << " ran as planned");
        }
        Simulator::Destroy();
        return out;
    }

    void DoRun() override
    {
        const uint64_t directBytes = 64 * 4 * 63 * Collective::HELD_OP_BYTES;
        // hierarchical on one switch is direct: the same programs, the same estimate
        auto isDirect = [](const std::string& a) { return a == "direct" || a == "hierarchical"; };
        uint64_t freeSkips = 0;
        uint64_t heldSkips = 0;
        const auto free = RunAuto(8 * directBytes, &freeSkips);
        NS_TEST_EXPECT_MSG_EQ(isDirect(free.first), true, free.first << ": the fastest fits");
        NS_TEST_EXPECT_MSG_EQ(freeSkips, 0u, "nothing passed over");
        const auto held = RunAuto(8 * directBytes - 8, &heldSkips);
        NS_TEST_EXPECT_MSG_EQ(heldSkips, 1u, "one choice passed over the fastest (noted)");
        NS_TEST_EXPECT_MSG_EQ(isDirect(held.first), false, held.first << ": direct cannot fit");
        NS_TEST_EXPECT_MSG_EQ(held.first.rfind("refused", 0), std::string::npos, held.first);
        NS_TEST_EXPECT_MSG_GT(held.second, free.second, "the next fastest that fits");
        // direct named under a limit below its windows: refused before they are filled (their
        // memory is taken as they fill)
        // memory of the programs, on 256 ranks, not the planner's (routes and one rank's program)
        GeneratedFabric fabric("switch:256,rate=100Gbps,latency=1us", 0);
        NS_TEST_ASSERT_MSG_NE(fabric.t.topo, nullptr, fabric.t.error);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "direct";
        request.bytes = 64 << 10;
        request.memory_limit = 256 * 4 * 255 * Collective::HELD_OP_BYTES - 8;
        // planned routing first: its rank pairs' lanes and paths (256 x 255 of them, about 11
        // MiB) pass an eighth of that limit before any window is made
        std::string error;
        Ptr<Collective> c = fabric.helper.Create(request, {}, &error);
        NS_TEST_EXPECT_MSG_EQ(c, nullptr, "refused");
        NS_TEST_EXPECT_MSG_NE(error.find("planned routing: the lanes and pinned routes of "
                                         "all-reduce with direct on 256 ranks passed"),
                              std::string::npos,
                              error);
        fabric.helper.GetService()->SetRoutingMode(CollectiveService::ECMP);
        c = fabric.helper.Create(request, {}, &error);
        NS_TEST_EXPECT_MSG_EQ(c, nullptr, "refused");
        NS_TEST_EXPECT_MSG_NE(error.find("(counted before its windows are filled"),
                              std::string::npos,
                              error);
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The service's own window has a margin over the least: ring-bidir's all-reduce of 1 MiB on
 * fattree:k=8 (acknowledgements from far peers lag several steps behind near peers' data) held 4
 * ops back at flow level in windows of its least width, 764; with ProgramWindow left 0 and whole
 * programs past an eighth of the limit the service holds twice that and the run goes as planned.
 * The least set by the user is taken as set; Check() then names the least and twice it.
 */
class CollectiveAutoWindowMarginTestCase : public TestCase
{
  public:
    CollectiveAutoWindowMarginTestCase()
        : TestCase("the service's own window is twice the least: ring-bidir on a fat-tree")
    {
    }

  private:
    void DoRun() override
    {
        GeneratedFabric fabric("fattree:k=8", 0);
        NS_TEST_ASSERT_MSG_NE(fabric.t.topo, nullptr, fabric.t.error);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "ring-bidir";
        request.bytes = 1 << 20;
        request.chunks = 1;
        // two rings (both directions), each 2 x 127 steps of a send and a receive per rank
        const uint64_t wholeOps = 2 * 2 * 2 * 127 * 128;
        request.memory_limit = 4 * wholeOps * Collective::HELD_OP_BYTES;
        std::string error;
        Ptr<Collective> c = fabric.helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
        uint32_t least = 0;
        tn_error err;
        NS_TEST_ASSERT_MSG_EQ(tn_program_min_window(c->GetProgram(), &least, &err),
                              TN_OK,
                              err.message);
        NS_TEST_ASSERT_MSG_GT(least, 64, "a least wider than the service's 64");
        NS_TEST_EXPECT_MSG_EQ(c->GetWindow(), 2 * least, "twice the least");
        fabric.helper.Start(c);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(c->GetWindowHeld(), 0, "nothing held back");
        NS_TEST_EXPECT_MSG_EQ(c->Check(), "", "ran as planned");
        Simulator::Destroy();
        // the least itself, set by the user, is taken as set: the run is held back and Check()
        // names the least and the service's own width
        GeneratedFabric atLeast("fattree:k=8", least);
        c = atLeast.helper.Create(request, {}, &error);
        NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
        atLeast.helper.Start(c);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_GT(c->GetWindowHeld(), 0, "held back at the least");
        const std::string why = c->Check();
        NS_TEST_EXPECT_MSG_NE(why.find("beyond its least, " + std::to_string(least)),
                              std::string::npos,
                              why);
        NS_TEST_EXPECT_MSG_NE(why.find("the service's own is " + std::to_string(2 * least)),
                              std::string::npos,
                              why);
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The verifier's share of the limit: rhd's all-reduce on 64 ranks leaves every rank 64 pieces
 * of their own writers, 64 x 64 segments (512 KiB at TN_VERIFY_SEGMENT_BYTES), so under a limit
 * whose eighth is 256 KiB its plan runs unverified (counted) and as planned, and under one whose
 * eighth is 8 MiB it is verified.
 */
class CollectiveVerifyBudgetTestCase : public TestCase
{
  public:
    CollectiveVerifyBudgetTestCase()
        : TestCase("a plan the verifier cannot hold in an eighth of the limit runs unverified")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t square = 64 * 64 * TN_VERIFY_SEGMENT_BYTES;
        for (uint64_t limit : {4 * square, 128 * square})
        {
            Topology t("switch:64,rate=100Gbps,latency=1us");
            NS_TEST_ASSERT_MSG_NE(t.topo, nullptr, t.error);
            RoceHelper roce;
            roce.SetMode("flow");
            roce.Install(t.topo);
            CollectiveHelper helper;
            helper.SetServiceAttribute("Program", StringValue("schedule"));
            helper.Install(t.topo, roce);
            tn_plan_request request;
            tn_plan_request_init(&request);
            request.algorithm = "rhd";
            request.bytes = 1 << 20;
            request.memory_limit = limit;
            std::string error;
            Ptr<Collective> c = helper.Create(request, {}, &error);
            NS_TEST_ASSERT_MSG_NE(c, nullptr, error);
            const bool over = limit / 8 < square;
            NS_TEST_EXPECT_MSG_EQ(helper.GetService()->GetPlansUnverified(),
                                  over ? 1 : 0,
                                  "unverified only past the verifier's share");
            helper.Start(c);
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(c->Check(), "", "it ran as planned");
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup training-net-tests
 * The memory guard counts the generated collectives in flight: with a limit that holds two
 * whole-program ring all-reduces on ring:16 (128 chunks), a third is refused with a message that
 * says what to change; once the two are done (programs freed), one more is accepted. With windows
 * of 5 ops (the ring's least, tn_program_min_window), a collective whose whole programs the limit
 * refuses is accepted.
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
        for (uint32_t window : {0u, 5u})
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
 * ProgramWindow against the program's least width (tn_program_min_window): for every generator,
 * a window of the least width runs as planned with nothing held back, and one op narrower is
 * refused when the collective is created, with one line naming ProgramWindow and the least
 * width. Below it the run may stall: a direct all-reduce on 8 NPUs (its least, 28 ops, is its
 * whole program) set up by hand with a window of 26 (all but a gather send and the last receive)
 * or of one whole phase (its 7 sends and 7 receives, 14) holds gather sends back, and Check()
 * names the least width.
 */
class CollectiveLeastWindowTestCase : public TestCase
{
  public:
    CollectiveLeastWindowTestCase()
        : TestCase("a program's least window runs, a narrower one is refused or stalls")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"switch:8,rate=100Gbps,latency=1us", "direct"},
            {"torus:4x4,rate=100Gbps,latency=1us", "ring"},
            {"torus:4x4,rate=100Gbps,latency=1us", "ring2d"},
            {"torus:4x4,rate=100Gbps,latency=1us", "ring-bidir"},
            {"hier:ring4@200Gbps+switch4@100Gbps", "hierarchical"},
            {"switch:8,rate=100Gbps,latency=1us", "rhd"},
            {"switch:7,rate=100Gbps,latency=1us", "dbt"},
            {"switch:8,rate=100Gbps,latency=1us", "swing"},
        };
        for (const auto& c : cases)
        {
            const std::string what = c.second + " on " + c.first;
            const uint32_t least = LeastWindow(c.first, c.second);
            NS_TEST_ASSERT_MSG_GT(least, 0, what);
            for (uint32_t window : {least, least - 1})
            {
                if (window == 0)
                {
                    continue; // 0 is whole programs
                }
                GeneratedFabric fabric(c.first, window);
                tn_plan_request request;
                tn_plan_request_init(&request);
                request.algorithm = c.second.c_str();
                request.bytes = 256 << 10;
                std::string error;
                Ptr<Collective> coll = fabric.helper.Create(request, {}, &error);
                if (window < least)
                {
                    NS_TEST_EXPECT_MSG_EQ(coll, nullptr, what << ": window " << window);
                    NS_TEST_EXPECT_MSG_NE(
                        error.find("ProgramWindow " + std::to_string(window) + " is narrower"),
                        std::string::npos,
                        error);
                    NS_TEST_EXPECT_MSG_NE(error.find(std::to_string(least) + " ops per stream"),
                                          std::string::npos,
                                          error);
                    // the least is a floor: the width that holds where ACKs lag is named too
                    NS_TEST_EXPECT_MSG_NE(
                        error.find("(" + std::to_string(2 * least) + ", the service's own width"),
                        std::string::npos,
                        error);
                    NS_TEST_EXPECT_MSG_EQ(error.find('\n'), std::string::npos, "one line");
                    Simulator::Destroy();
                    continue;
                }
                NS_TEST_ASSERT_MSG_NE(coll, nullptr, what << ": " << error);
                fabric.helper.Start(coll);
                Simulator::Run();
                NS_TEST_EXPECT_MSG_EQ(coll->Check(), "", what << ": window " << window);
                NS_TEST_EXPECT_MSG_EQ(coll->GetWindowHeld(), 0, what << ": nothing held back");
                Simulator::Destroy();
            }
        }
        // below the least width, set up by hand (the service refuses it): one op less, and a
        // whole direct phase
        for (uint32_t window : {26u, 14u})
        {
            GeneratedFabric fabric("switch:8,rate=100Gbps,latency=1us", 0);
            tn_plan_request request;
            tn_plan_request_init(&request);
            request.algorithm = "direct";
            request.bytes = 256 << 10;
            tn_program* raw = nullptr;
            tn_error err;
            NS_TEST_ASSERT_MSG_EQ(tn_program_create(fabric.t.topo, &request, &raw, &err),
                                  TN_OK,
                                  err.message);
            uint32_t least = 0;
            NS_TEST_EXPECT_MSG_EQ(tn_program_min_window(raw, &least, &err), TN_OK, err.message);
            NS_TEST_EXPECT_MSG_EQ(least, 28, "all the chunk's ops");
            std::vector<uint32_t> nodes;
            for (uint32_t r = 0; r < 8; r++)
            {
                nodes.push_back(tn_topology_npu_node(fabric.t.topo, r));
            }
            Ptr<Collective> c = CreateObject<Collective>();
            c->SetupProgram(1, Collective::ShareProgram(raw), nodes, {}, 3, window);
            for (uint32_t r = 0; r < 8; r++)
            {
                fabric.helper.GetExecutor(r)->Add(c, r);
            }
            fabric.helper.Start(c);
            Simulator::Run();
            NS_TEST_EXPECT_MSG_GT(c->GetWindowHeld(),
                                  0,
                                  "window " << window << " holds sends back");
            NS_TEST_EXPECT_MSG_NE(c->Check().find("at least 28 for this program"),
                                  std::string::npos,
                                  c->Check());
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
        AddTestCase(new CollectiveWindowBlockTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveMemoryGuardTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveAutoWindowTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveAutoWindowMarginTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveAutoHeldTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveLeastWindowTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveVerifyBudgetTestCase, TestCase::QUICK);
    }
};

static ProgramMemoryTestSuite g_programMemoryTestSuite; //!< static instance

} // namespace ns3
