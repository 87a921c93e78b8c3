/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// PfcDeadlockWatch: a ring of three switches whose planned routes all turn the same way
// deadlocks and is named (its three ring ports, in wait-for order); an incast paused far
// longer than the threshold has no cycle and is left alone. The collective service's up/down
// check names the planned route of that ring that closes the cycle.

#include "roce-test-util.h"

#include "ns3/collective-helper.h"
#include "ns3/collective-service.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/pfc-deadlock-watch.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;
using namespace ns3::roce_test;

namespace
{

/**
 * Switches S0..S(n-1) in a ring (S_i cabled to S_(i+1)), each with one host on its port 2;
 * ringPort[i] is the port of S_i towards S_(i+1). The tests plan the routes.
 */
struct Fabric
{
    std::vector<Ptr<Node>> sw;               //!< switches
    std::vector<Ptr<RoceSwitch>> fwd;        //!< their forwarding
    std::vector<Ptr<Node>> hosts;            //!< hosts, host i on switch i
    std::vector<Ptr<RoceNetDevice>> hostDev; //!< host devices
    std::vector<Ptr<TestSink>> sinks;        //!< host sinks
    std::vector<Ptr<TestSource>> sources;    //!< host sources
    Ptr<PfcDeadlockWatch> watch;             //!< watches every switch
    std::vector<uint32_t> ringPort;          //!< clockwise port of each ring switch

    Fabric(uint32_t n, uint64_t buffer)
    {
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        link.SetChannelAttribute("Delay", StringValue("1us"));
        for (uint32_t i = 0; i < n; ++i)
        {
            sw.push_back(CreateObject<Node>());
            fwd.push_back(link.GetOrInstallSwitch(sw[i]));
            fwd[i]->GetMmu()->SetAttribute("BufferSize", UintegerValue(buffer));
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            link.Install(sw[i], sw[(i + 1) % n]); // port 0 of S_i, port 1 of S_(i+1)
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Node> h = CreateObject<Node>();
            NetDeviceContainer d = link.Install(sw[i], h); // port 2 of S_i
            hosts.push_back(h);
            hostDev.push_back(DynamicCast<RoceNetDevice>(d.Get(1)));
            Ptr<RoceSwitch> hs = h->GetObject<RoceSwitch>();
            hs->SetLocalAddress(RoceAddress::FromNodeId(h->GetId()));
            sinks.push_back(Create<TestSink>());
            hs->SetLocalReceiveCallback(MakeCallback(&TestSink::Receive, sinks.back()));
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            // the port of S_i whose cable leads to S_(i+1)
            for (uint32_t p = 0; p < fwd[i]->GetNPorts(); ++p)
            {
                if (fwd[i]->GetPort(p)->GetPeer()->GetNode() == sw[(i + 1) % n])
                {
                    ringPort.push_back(p);
                    break;
                }
            }
        }
        watch = CreateObject<PfcDeadlockWatch>();
        for (uint32_t i = 0; i < n; ++i)
        {
            watch->Add(fwd[i], sw[i]->GetId());
        }
    }

    /** Host i sends `count` packets at line rate to host (i + hops) mod n. */
    void Send(uint32_t hops, uint32_t count)
    {
        const uint32_t n = hosts.size();
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<TestSource> s = Create<TestSource>();
            s->srcNode = hosts[i]->GetId();
            s->dstNode = hosts[(i + hops) % n]->GetId();
            s->sport = 1000 + i;
            s->payload = 1000;
            s->count = count;
            s->Install(hostDev[i]);
            Simulator::ScheduleNow(&RoceNetDevice::Kick, hostDev[i]);
            sources.push_back(s);
        }
    }
};

} // namespace

/**
 * \ingroup training-net-tests
 * Three switches in a ring, every route clockwise, each host sending two hops on: each ring
 * link carries two flows at line rate, every ring ingress fills, and the three ring ports
 * pause each other for good. The watch names the loop S0:0 -> S1:0 -> S2:0 (each waits for the
 * next), with the flows whose frames sit in it, stops the simulation within a threshold and a
 * wake-up of the cycle closing, and no packet ever reaches a host two hops on after it.
 */
class RoceDeadlockRingTestCase : public TestCase
{
  public:
    RoceDeadlockRingTestCase()
        : TestCase("3-switch ring of planned routes: the cycle is named and the run stopped")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard guard;
        guard.SetDefault("ns3::PfcDeadlockWatch::PauseThreshold", TimeValue(MicroSeconds(200)));
        Fabric f(3, 300000);
        for (uint32_t i = 0; i < 3; ++i)
        {
            for (uint32_t h = 0; h < 3; ++h)
            {
                f.fwd[i]->SetRoute(f.hosts[h]->GetId(), {h == i ? 2u : f.ringPort[i]});
            }
        }
        f.Send(2, 1000000);
        Simulator::Stop(MilliSeconds(50)); // a guard: the watch must stop it far sooner
        Simulator::Run();
        const Time end = Simulator::Now();
        NS_TEST_ASSERT_MSG_EQ(f.watch->HasDeadlock(), true, "the ring deadlocks and is found");
        const PfcDeadlock& d = f.watch->GetDeadlock();
        NS_TEST_EXPECT_MSG_EQ(end, d.detected, "stopped at the detection");
        NS_TEST_ASSERT_MSG_EQ(d.cycle.size(), 3u, "three ring ports");
        if (d.cycle.size() != 3)
        {
            Simulator::Destroy();
            return;
        }
        // the loop, from whichever hop the search met first: each hop's peer is the next hop
        for (uint32_t k = 0; k < 3; ++k)
        {
            const PfcDeadlockHop& a = d.cycle[k];
            const PfcDeadlockHop& b = d.cycle[(k + 1) % 3];
            const uint32_t i = a.node - f.sw[0]->GetId();
            const uint32_t next = (i + 1) % 3;
            NS_TEST_EXPECT_MSG_EQ(a.port, f.ringPort[i], "a clockwise ring port");
            NS_TEST_EXPECT_MSG_EQ(unsigned(a.priority), 3u, "the lossless priority");
            NS_TEST_EXPECT_MSG_EQ(a.peerNode, b.node, "each hop waits for the next");
            NS_TEST_EXPECT_MSG_EQ(b.node, f.sw[next]->GetId(), "clockwise");
            NS_TEST_EXPECT_MSG_EQ(f.fwd[next]->GetPort(a.peerPort)->GetPeer(),
                                  f.fwd[i]->GetPort(a.port),
                                  "the peer port is the other end of the cable");
            NS_TEST_EXPECT_MSG_GT(a.queueBytes, 0u, "bytes wait there");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(a.pausedSince, d.since, "since: the last pause");
        }
        // the watch wakes a threshold after the first pause, then every half threshold
        NS_TEST_EXPECT_MSG_GT_OR_EQ(d.detected - d.since, MicroSeconds(200), "paused long enough");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(d.detected - d.since, MicroSeconds(300), "found at once");
        // only the flows of the ring: host i -> host i+2, sport 1000 + i (host->switch->switch
        // frames wait on each ring port, two flows per port)
        NS_TEST_ASSERT_MSG_EQ(d.flows.size(), 3u, "three flows in the cycle");
        for (const PfcDeadlockFlow& fl : d.flows)
        {
            const uint32_t i = fl.sport - 1000;
            NS_TEST_EXPECT_MSG_EQ(fl.src, f.hosts[i]->GetId(), "source of the flow");
            NS_TEST_EXPECT_MSG_EQ(fl.dst, f.hosts[(i + 2) % 3]->GetId(), "two hops on");
        }
        NS_TEST_EXPECT_MSG_NE(d.message.find("PFC deadlock"), std::string::npos, "message");
        // nothing moves after the cycle closed: no host received anything in the last 100 us
        for (const Ptr<TestSink>& s : f.sinks)
        {
            NS_TEST_EXPECT_MSG_EQ(s->rx.empty() || s->rx.back().timeNs <
                                                       (end - MicroSeconds(100)).GetNanoSeconds(),
                                  true,
                                  "no delivery once deadlocked");
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The same three switches routed without a cycle (each host sends one hop on, and the hosts
 * two switches apart through the third are not used): pauses of a few hundred us, longer than
 * a short threshold, come and go, and all packets arrive. A long pause alone is no deadlock.
 */
class RoceDeadlockNoCycleTestCase : public TestCase
{
  public:
    RoceDeadlockNoCycleTestCase()
        : TestCase("pauses longer than the threshold without a cycle: no deadlock")
    {
    }

  private:
    void DoRun() override
    {
        DefaultsGuard guard;
        guard.SetDefault("ns3::PfcDeadlockWatch::PauseThreshold", TimeValue(MicroSeconds(5)));
        Fabric f(3, 300000);
        for (uint32_t i = 0; i < 3; ++i)
        {
            for (uint32_t h = 0; h < 3; ++h)
            {
                f.fwd[i]->SetRoute(f.hosts[h]->GetId(), {h == i ? 2u : f.ringPort[i]});
            }
        }
        // an incast on host 1: hosts 0 and 2 send to it (host 2 around S2 -> S0 -> S1)
        const uint32_t count = 3000;
        const uint32_t srcs[2] = {0, 2};
        for (uint32_t i : srcs)
        {
            Ptr<TestSource> s = Create<TestSource>();
            s->srcNode = f.hosts[i]->GetId();
            s->dstNode = f.hosts[1]->GetId();
            s->sport = 1000 + i;
            s->payload = 1000;
            s->count = count;
            s->Install(f.hostDev[i]);
            Simulator::ScheduleNow(&RoceNetDevice::Kick, f.hostDev[i]);
            f.sources.push_back(s);
        }
        Time longest;
        f.fwd[2]->TraceConnectWithoutContext(
            "PfcResume",
            MakeBoundCallback(
                +[](Time* longest, Ptr<RoceSwitch> sw, uint32_t port, uint8_t prio, bool sent) {
                    if (!sent)
                    {
                        *longest = std::max(*longest, sw->GetPort(port)->GetPausedTime(prio));
                    }
                },
                &longest,
                f.fwd[2]));
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(f.watch->HasDeadlock(), false, "no cycle, no deadlock");
        NS_TEST_EXPECT_MSG_EQ(f.sinks[1]->rx.size(), 2u * count, "every packet arrived");
        NS_TEST_EXPECT_MSG_GT(longest, MicroSeconds(5), "paused longer than the threshold");
        Simulator::Destroy();
    }
};

/**
 * \ingroup training-net-tests
 * The up/down check of planned routes (CollectiveService::CheckUpDown) on the ring of three
 * switches, one NPU on each, built as a topology: of the three clockwise two-hop routes, the
 * one that goes down S2 -> S0 (same level, lower id) and up again S0 -> S1 is named, the
 * others pass; a fat-tree's own routes all pass.
 */
class RoceUpDownTestCase : public TestCase
{
  public:
    RoceUpDownTestCase()
        : TestCase("up-down check: the planned route that closes a 3-switch ring is named")
    {
    }

  private:
    void DoRun() override
    {
        tn_error err{};
        tn_topology* t = nullptr;
        NS_TEST_ASSERT_MSG_EQ(tn_topology_create(&t, &err), TN_OK, err.message);
        uint32_t npu[3];
        uint32_t sw[3];
        uint32_t ring[3];
        uint32_t host[3];
        for (auto& n : npu)
        {
            tn_topology_add_node(t, TN_NODE_NPU, &n, &err);
        }
        for (auto& s : sw)
        {
            tn_topology_add_node(t, TN_NODE_SWITCH, &s, &err);
        }
        for (uint32_t i = 0; i < 3; ++i)
        {
            tn_topology_add_link(t,
                                 sw[i],
                                 sw[(i + 1) % 3],
                                 100e9,
                                 1000,
                                 -1,
                                 &ring[i],
                                 nullptr,
                                 &err);
            tn_topology_add_link(t, npu[i], sw[i], 100e9, 1000, -1, &host[i], nullptr, &err);
        }
        RoceHelper roce;
        roce.Install(t);
        CollectiveHelper collectives;
        Ptr<CollectiveService> service = collectives.Install(t, roce);
        for (uint32_t i = 0; i < 3; ++i)
        {
            const uint32_t path[] = {host[i], ring[i], ring[(i + 1) % 3], host[(i + 2) % 3] + 1};
            const std::string bad = service->CheckUpDown(path, 4);
            if (i == 2)
            {
                NS_TEST_EXPECT_MSG_EQ(bad,
                                      "planned route node 2 -> 5 -> 3 -> 4 -> 1 is not up/down: it "
                                      "goes up again at node 3 (level 1) after going down, so its "
                                      "PFC buffers can close a cycle",
                                      "the route of NPU 2, named");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(bad, "", "route of NPU " << i << " is up/down");
            }
        }
        Simulator::Destroy();
        tn_topology_destroy(t);

        // a fat-tree's routes, as planned for a direct all-reduce, all pass: the collective is
        // made
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("fattree:4", &t, &err), TN_OK, err.message);
        RoceHelper tree;
        tree.Install(t);
        CollectiveHelper treeCollectives;
        treeCollectives.Install(t, tree);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "direct";
        request.bytes = 1 << 20;
        std::string error;
        NS_TEST_EXPECT_MSG_NE(treeCollectives.Create(request, {}, &error), nullptr, error);
        Simulator::Destroy();
        tn_topology_destroy(t);
    }
};

/**
 * \ingroup training-net-tests
 * The up/down check through a real install: a leaf-spine (3 leaves of 2 NPUs, one spine) with
 * peer cables L2 - L0 - L1 between leaves, as MLAG pairs have. NPUs of L2 and L1 then have two
 * shortest paths, over the spine (up/down) and over L0 (down to L0, the lowest leaf, and up
 * again to L1). A direct all-reduce planned on it is refused by CollectiveHelper::Create,
 * naming a route through node 6 (L0); with UpDownCheck warn it is created, counts its warnings
 * and completes at packet level; with the peer cables gone nothing is refused.
 */
class RoceUpDownInstallTestCase : public TestCase
{
  public:
    RoceUpDownInstallTestCase()
        : TestCase("up-down check: a leaf-spine with leaf peer cables is refused at install")
    {
    }

  private:
    /**
     * Build the leaf-spine, install the fabric and the collectives, create a direct
     * all-reduce of 256 KiB and run it when created.
     * \param peers with the leaf peer cables \param check UpDownCheck
     * \param error set to Create's refusal \param warnings set to GetUpDownWarnings
     * \return the collective (null when refused)
     */
    Ptr<Collective> Run(bool peers,
                        CollectiveService::UpDownCheck check,
                        std::string* error,
                        uint64_t* warnings)
    {
        tn_error err{};
        tn_topology* t = nullptr;
        tn_topology_create(&t, &err);
        uint32_t npu[6];
        uint32_t leaf[3];
        uint32_t spine = 0;
        for (auto& n : npu)
        {
            tn_topology_add_node(t, TN_NODE_NPU, &n, &err);
        }
        for (auto& l : leaf)
        {
            tn_topology_add_node(t, TN_NODE_SWITCH, &l, &err);
        }
        tn_topology_add_node(t, TN_NODE_SWITCH, &spine, &err);
        for (uint32_t i = 0; i < 6; ++i)
        {
            tn_topology_add_link(t, npu[i], leaf[i / 2], 100e9, 1000, -1, nullptr, nullptr, &err);
        }
        for (uint32_t l : leaf)
        {
            tn_topology_add_link(t, l, spine, 100e9, 1000, -1, nullptr, nullptr, &err);
        }
        if (peers)
        {
            tn_topology_add_link(t, leaf[2], leaf[0], 100e9, 1000, -1, nullptr, nullptr, &err);
            tn_topology_add_link(t, leaf[0], leaf[1], 100e9, 1000, -1, nullptr, nullptr, &err);
        }
        RoceHelper roce;
        roce.Install(t);
        CollectiveHelper collectives;
        collectives.SetServiceAttribute("UpDownCheck", EnumValue(check));
        Ptr<CollectiveService> service = collectives.Install(t, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.algorithm = "direct";
        request.bytes = 256 << 10;
        Ptr<Collective> c = collectives.Create(request, {}, error);
        if (c)
        {
            collectives.Start(c);
            Simulator::Run();
        }
        *warnings = service->GetUpDownWarnings();
        Simulator::Destroy();
        tn_topology_destroy(t);
        return c;
    }

    void DoRun() override
    {
        std::string error;
        uint64_t warnings = 0;
        Ptr<Collective> c = Run(true, CollectiveService::UP_DOWN_REFUSE, &error, &warnings);
        NS_TEST_EXPECT_MSG_EQ(c, nullptr, "a route over the peer cables is refused");
        NS_TEST_EXPECT_MSG_NE(error.find("is not up/down: it goes up again at node 6 (level 1) "
                                         "after going down"),
                              std::string::npos,
                              error);
        NS_TEST_EXPECT_MSG_NE(error.find("UpDownCheck=warn"), std::string::npos, error);

        error.clear();
        c = Run(true, CollectiveService::UP_DOWN_WARN, &error, &warnings);
        NS_TEST_ASSERT_MSG_NE(c, nullptr, "warn runs it: " << error);
        NS_TEST_EXPECT_MSG_GT(warnings, 0, "each new route over L0 warned");
        NS_TEST_EXPECT_MSG_EQ(c->IsComplete(), true, "and it completes");

        c = Run(false, CollectiveService::UP_DOWN_REFUSE, &error, &warnings);
        NS_TEST_ASSERT_MSG_NE(c, nullptr, "without the peer cables: " << error);
        NS_TEST_EXPECT_MSG_EQ(warnings, 0, "nothing to warn of");
        NS_TEST_EXPECT_MSG_EQ(c->IsComplete(), true, "completes");
    }
};

/** Restores every Config default when a test ends, also by a failed assertion. */
struct DatelineConfigGuard
{
    ~DatelineConfigGuard()
    {
        Config::Reset();
    }
};

/**
 * \ingroup training-net-tests
 * The torus dateline (RoceHelper::SetDateline, RoceSwitch::SetDateline) at packet level.
 *  - torus:5, direct all-reduce, dimension order: the only two-hop paths that cross the wrap
 *    cable (0 - 4) at a forwarding node are 3 -> 4 -> 0 and 1 -> 0 -> 4, one chunk each per
 *    phase, so nodes 4 and 0 each move 2 * chunk / MTU packets to priority 4 and forward as
 *    many on priority 3 (0 -> 4 -> 3, 4 -> 0 -> 1: the source's own first hop keeps its
 *    priority); nodes 1 to 3 forward 2 * 2 * chunk / MTU on priority 3 and none on 4.
 *  - torus:8 with 300 kB switch buffers and no congestion control, 16 MiB direct all-reduce:
 *    without the dateline the ring's minimal paths close a PFC cycle (the watch finds it);
 *    with it the run completes.
 *  - torus:4x4: packets that crossed the X wrap and turn into Y move back to priority 3.
 */
class RoceDatelineTestCase : public TestCase
{
  public:
    RoceDatelineTestCase()
        : TestCase("torus dateline: priority 4 past the wrap cable, no PFC cycle in a ring")
    {
    }

  private:
    /// What a run leaves.
    struct Result
    {
        bool complete{false};                   //!< the collective completed
        bool deadlock{false};                   //!< the watch found a cycle
        std::vector<uint64_t> prio3;            //!< per node: forwarded on priority 3
        std::vector<uint64_t> prio4;            //!< per node: forwarded on priority 4
        std::vector<uint64_t> crossings;        //!< per node: moved to priority 4
        std::vector<uint64_t> returns;          //!< per node: moved back to priority 3
        std::vector<std::vector<uint8_t>> wrap; //!< per node and port: crosses the dateline
        uint32_t mtu{0};                        //!< the NICs' payload per packet
    };

    /**
     * Run a direct all-reduce at packet level with dimension-order routing.
     * \param spec topology \param bytes size \param dateline SetDateline \return the result
     */
    Result Run(const char* spec, uint64_t bytes, bool dateline)
    {
        Result res;
        tn_error err{};
        tn_topology* t = nullptr;
        // not inside NS_ASSERT: a release build (ns-3 trees' -d release) compiles it out
        const tn_status made = tn_topology_from_spec(spec, &t, &err);
        NS_ABORT_MSG_IF(made != TN_OK, "test topology " << spec << ": " << err.message);
        RoceHelper roce;
        roce.SetRouting("dimension-order");
        roce.SetDateline(dateline);
        roce.SetCongestionControl("none");
        RoceFabricNodes f = roce.Install(t);
        CollectiveHelper collectives;
        collectives.Install(t, roce);
        Ptr<Collective> c = collectives.AllReduce(bytes, "direct");
        Simulator::Run();
        res.complete = c && c->IsComplete();
        res.deadlock = roce.GetDeadlockWatch()->HasDeadlock();
        for (uint32_t v = 0; v < f.nodes.GetN(); ++v)
        {
            Ptr<RoceSwitch> sw = f.nodes.Get(v)->GetObject<RoceSwitch>();
            res.prio3.push_back(sw->GetForwardedPackets(3));
            res.prio4.push_back(sw->GetForwardedPackets(4));
            res.crossings.push_back(sw->GetDatelineCrossings());
            res.returns.push_back(sw->GetDatelineReturns());
            res.wrap.emplace_back();
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                // the port is lossless on priority 4 exactly when the dateline is on
                res.wrap.back().push_back(sw->GetPort(p)->IsPfcEnabled(4));
            }
        }
        UintegerValue mtu;
        roce.GetNic(0)->GetAttribute("Mtu", mtu);
        res.mtu = mtu.Get();
        Simulator::Destroy();
        tn_topology_destroy(t);
        return res;
    }

    void DoRun() override
    {
        // torus:5: a chunk of 8 MTUs per pair and phase
        const uint64_t chunk = 8 * 4096;
        Result r = Run("torus:5", 5 * chunk, true);
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "torus:5 completes");
        NS_TEST_ASSERT_MSG_EQ(r.mtu, 4096, "the packets per chunk below assume the default MTU");
        const uint64_t perPhase = chunk / r.mtu;
        for (uint32_t v = 0; v < 5; ++v)
        {
            const bool atWrap = v == 0 || v == 4;
            const uint64_t crossings = atWrap ? 2 * perPhase : 0;
            const uint64_t prio3 = (atWrap ? 2 : 4) * perPhase;
            NS_TEST_EXPECT_MSG_EQ(r.crossings[v], crossings, "crossings at node " << v);
            NS_TEST_EXPECT_MSG_EQ(r.prio4[v], r.crossings[v], "priority 4 at node " << v);
            NS_TEST_EXPECT_MSG_EQ(r.prio3[v], prio3, "priority 3 at node " << v);
            NS_TEST_EXPECT_MSG_EQ(r.returns[v], 0, "one dim: no turn");
            for (uint8_t lossless : r.wrap[v])
            {
                NS_TEST_EXPECT_MSG_EQ(lossless, 1, "priority 4 is lossless on node " << v);
            }
        }

        // torus:8, shallow buffers: a cycle without the dateline, none with it
        {
            DatelineConfigGuard guard;
            Config::SetDefault("ns3::RoceSwitchMmu::BufferSize", UintegerValue(300000));
            Result without = Run("torus:8", 16 << 20, false);
            NS_TEST_EXPECT_MSG_EQ(without.deadlock, true, "the ring's PFC buffers close a cycle");
            NS_TEST_EXPECT_MSG_EQ(without.complete, false, "and it stops");
            NS_TEST_EXPECT_MSG_EQ(without.wrap[0][0], 0, "priority 4 stays lossy without it");
            Result with = Run("torus:8", 16 << 20, true);
            NS_TEST_EXPECT_MSG_EQ(with.deadlock, false, "no cycle with the dateline");
            NS_TEST_EXPECT_MSG_EQ(with.complete, true, "it completes");
            NS_TEST_EXPECT_MSG_GT(with.crossings[0] + with.crossings[7], 0, "over the wrap");
        }

        // torus:4x4: what crossed the X wrap and turns into Y goes back to priority 3
        r = Run("torus:4x4", 16 * chunk, true);
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "torus:4x4 completes");
        uint64_t crossings = 0;
        uint64_t returns = 0;
        for (uint32_t v = 0; v < 16; ++v)
        {
            crossings += r.crossings[v];
            returns += r.returns[v];
        }
        NS_TEST_EXPECT_MSG_GT(returns, 0, "turns after the X wrap");
        NS_TEST_EXPECT_MSG_LT(returns, crossings, "a return follows a crossing");
    }
};

/**
 * \ingroup training-net-tests
 * PfcDeadlockWatch tests.
 */
class RoceDeadlockTestSuite : public TestSuite
{
  public:
    RoceDeadlockTestSuite()
        : TestSuite("training-net-roce-deadlock", UNIT)
    {
        AddTestCase(new RoceDeadlockRingTestCase, TestCase::QUICK);
        AddTestCase(new RoceDeadlockNoCycleTestCase, TestCase::QUICK);
        AddTestCase(new RoceUpDownTestCase, TestCase::QUICK);
        AddTestCase(new RoceUpDownInstallTestCase, TestCase::QUICK);
        AddTestCase(new RoceDatelineTestCase, TestCase::QUICK);
    }
};

static RoceDeadlockTestSuite g_roceDeadlockTestSuite; //!< registers the suite
