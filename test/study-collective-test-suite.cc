/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collectives on ordinary ns-3 nodes (CollectiveHelper::Install(NodeContainer)): the hosts of
 * a PointToPointHelper star with InternetStackHelper and global routing.
 */
#include "roce-test-util.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/collective-helper.h"
#include "ns3/error-model.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-udp-port.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/tn-topology.h"

#include <string>

namespace ns3
{

namespace
{

const uint32_t HOSTS = 8;
const uint64_t RATE = 10000000000ULL; //!< 10 Gb/s links

/** A star of HOSTS hosts around one router, as an ns-3 user builds it. */
struct Star
{
    /** \param internet install the internet stack on the hosts */
    explicit Star(bool internet = true)
    {
        hosts.Create(HOSTS);
        router.Create(1);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(RATE)));
        p2p.SetChannelAttribute("Delay", StringValue("2us"));
        InternetStackHelper stack;
        stack.Install(router);
        if (internet)
        {
            stack.Install(hosts);
        }
        Ipv4AddressHelper address;
        address.SetBase("10.1.0.0", "255.255.255.0");
        for (uint32_t h = 0; h < HOSTS; h++)
        {
            NetDeviceContainer d = p2p.Install(hosts.Get(h), router.Get(0));
            hostDevices.Add(d.Get(0));
            if (internet)
            {
                address.Assign(d);
                address.NewNetwork();
            }
        }
        if (internet)
        {
            Ipv4GlobalRoutingHelper::PopulateRoutingTables();
        }
    }

    NodeContainer hosts;
    NodeContainer router;
    NetDeviceContainer hostDevices; //!< each host's device
};

/** What one all-reduce across the star gave. */
struct StudyResult
{
    double ns{-1};             //!< duration, -1 if incomplete
    std::string check;         //!< Collective::Check()
    uint64_t retransmitted{0}; //!< payload bytes resent by all NICs
    uint32_t mtu{0};           //!< the NICs' path MTU
    uint32_t nodes{0};         //!< nodes of the topology read
};

/** \return the all-reduce of `bytes` by `algorithm` across the star's hosts */
StudyResult
RunAllReduce(const std::string& algorithm, uint64_t bytes, double errorRate)
{
    StudyResult result;
    Star star;
    if (errorRate > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(errorRate);
        star.hostDevices.Get(3)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    CollectiveHelper helper;
    std::string error;
    NS_ABORT_MSG_IF(!helper.Install(star.hosts, &error), "Install: " << error);
    NS_ABORT_MSG_IF(helper.SetRouting("planned"), "planned routing must be refused");
    Ptr<Collective> c = helper.AllReduce(bytes, algorithm);
    Simulator::Run();
    result.ns = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : -1;
    result.check = c->Check();
    for (uint32_t h = 0; h < HOSTS; h++)
    {
        Ptr<RdmaNic> nic = star.hosts.Get(h)->GetObject<RdmaNic>();
        result.retransmitted += nic->GetRetransmittedBytes();
        result.mtu = nic->GetMtu();
    }
    Simulator::Destroy();
    return result;
}

/** Payload time of an all-reduce of S bytes on N hosts at RATE: 2 (N-1)/N S bytes out of
 * every host, a lower bound of any algorithm on a star. */
double
AllReduceBoundNs(uint64_t bytes)
{
    return 2.0 * (HOSTS - 1) / HOSTS * bytes * 8.0 / RATE * 1e9;
}

} // namespace

/**
 * \ingroup training-net-tests
 * A ring and a MultiTree all-reduce across the 8 hosts of a PointToPoint star complete; every
 * transfer delivered its planned bytes (Collective::Check, on a plan the verifier proved),
 * nothing was lost on the idle star, the NICs use the 1024-byte path MTU that fits the
 * devices' 1500-byte MTU, and no all-reduce beats the payload bound 2 (N-1)/N S / rate.
 */
class StudyAllReduceTestCase : public TestCase
{
  public:
    StudyAllReduceTestCase()
        : TestCase("ring and MultiTree all-reduce across a PointToPoint star")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t bytes = 1 << 20;
        for (const char* algorithm : {"ring", "multitree"})
        {
            StudyResult r = RunAllReduce(algorithm, bytes, 0);
            NS_TEST_ASSERT_MSG_GT(r.ns, 0, algorithm << " completes");
            NS_TEST_EXPECT_MSG_EQ(r.check, "", algorithm << ": data as the verified plan says");
            NS_TEST_EXPECT_MSG_EQ(r.mtu, 1024, "path MTU under the 1500-byte device MTU");
            NS_TEST_EXPECT_MSG_GT(r.ns, AllReduceBoundNs(bytes), algorithm << " payload bound");
            if (std::string(algorithm) == "ring")
            {
                NS_TEST_EXPECT_MSG_EQ(r.retransmitted, 0, "a ring loses nothing on a star");
            }
        }
    }
};

/**
 * \ingroup training-net-tests
 * With 1% of the packets one host receives lost (RateErrorModel on its device), the ring
 * all-reduce still completes with every byte through the NICs' go-back-N retransmission.
 */
class StudyRetransmissionTestCase : public TestCase
{
  public:
    StudyRetransmissionTestCase()
        : TestCase("an all-reduce completes through retransmission over a lossy link")
    {
    }

  private:
    void DoRun() override
    {
        StudyResult r = RunAllReduce("ring", 1 << 20, 0.01);
        NS_TEST_ASSERT_MSG_GT(r.ns, 0, "completes");
        NS_TEST_EXPECT_MSG_EQ(r.check, "", "every transfer delivered its bytes");
        NS_TEST_EXPECT_MSG_GT(r.retransmitted, 0, "through retransmission");
    }
};

/**
 * \ingroup training-net-tests
 * Bad input gets an error and installs nothing: hosts without the internet stack, a host
 * without any link, a topology spec that does not match the study, a spec that does not
 * parse; a matching spec is accepted.
 */
class StudyErrorsTestCase : public TestCase
{
  public:
    StudyErrorsTestCase()
        : TestCase("nodes without internet, unreadable or mismatching topologies are refused")
    {
    }

  private:
    /** \return true if `text` holds `part` */
    static bool Has(const std::string& text, const std::string& part)
    {
        return text.find(part) != std::string::npos;
    }

    void DoRun() override
    {
        std::string error;
        {
            Star bare(false);
            CollectiveHelper helper;
            NS_TEST_EXPECT_MSG_EQ(helper.Install(bare.hosts, &error), false, "no internet");
            NS_TEST_EXPECT_MSG_EQ(Has(error, "NPU rank 0: node ") &&
                                      Has(error, "has no internet stack"),
                                  true,
                                  error);
            Simulator::Destroy();
        }
        {
            Star star;
            NodeContainer npus = star.hosts;
            NodeContainer lonely;
            lonely.Create(1);
            InternetStackHelper().Install(lonely);
            npus.Add(lonely);
            CollectiveHelper helper;
            NS_TEST_EXPECT_MSG_EQ(helper.Install(npus, &error), false, "a host without links");
            NS_TEST_EXPECT_MSG_EQ(Has(error, "NPU rank 8"), true, error);
            Simulator::Destroy();
        }
        {
            Star star;
            CollectiveHelper helper;
            NS_TEST_EXPECT_MSG_EQ(helper.Install(star.hosts, "switch:4", &error),
                                  false,
                                  "spec with 4 NPUs");
            NS_TEST_EXPECT_MSG_EQ(Has(error, "does not match the study: it has 4 NPUs"),
                                  true,
                                  error);
            NS_TEST_EXPECT_MSG_EQ(helper.Install(star.hosts, "ring:8", &error),
                                  false,
                                  "a ring is not a star");
            NS_TEST_EXPECT_MSG_EQ(Has(error, "it has 8 nodes and 8 links, the study 9 and 8"),
                                  true,
                                  error);
            NS_TEST_EXPECT_MSG_EQ(helper.Install(star.hosts, "warp:8", &error),
                                  false,
                                  "unknown spec");
            NS_TEST_EXPECT_MSG_EQ(Has(error, "topology spec 'warp:8'"), true, error);
            NS_TEST_EXPECT_MSG_EQ(helper.Install(star.hosts, "switch:8", &error),
                                  true,
                                  "a matching spec: " << error);
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup training-net-tests
 * The NICs' congestion control where the study's devices mark ECN: a ring all-reduce across
 * the star with host 0 on a 1 Gb/s link, so the router queues what host 7 sends it at
 * 10 Gb/s in its default queue disc (FqCoDel, target 10 us). With UseEcn the queue discs mark the
 * NICs' ECT packets, the receivers send CNPs and the senders get them; without it nothing is marked
 * and no CNP is sent. Both complete with every transfer's bytes as planned.
 */
class StudyEcnTestCase : public TestCase
{
  public:
    StudyEcnTestCase()
        : TestCase("ECN-marking queue discs: DCQCN gets CNPs, without marks none")
    {
    }

  private:
    /** \param ecn queue discs mark ECN \param cnps set to CNPs received \return Check() */
    static std::string Run(bool ecn, uint64_t* cnps, bool* complete)
    {
        roce_test::DefaultsGuard defaults;
        defaults.SetDefault("ns3::FqCoDelQueueDisc::UseEcn", BooleanValue(ecn));
        defaults.SetDefault("ns3::FqCoDelQueueDisc::Target", StringValue("10us"));
        defaults.SetDefault("ns3::FqCoDelQueueDisc::Interval", StringValue("100us"));
        Star star;
        // host 0's link at 1 Gb/s: the router queues what host 7 sends it at 10 Gb/s
        Ptr<NetDevice> slow = star.hostDevices.Get(0);
        for (std::size_t i = 0; i < slow->GetChannel()->GetNDevices(); i++)
        {
            slow->GetChannel()->GetDevice(i)->SetAttribute("DataRate", StringValue("1Gbps"));
        }
        CollectiveHelper helper;
        helper.SetNicAttribute("CongestionControl", StringValue("dcqcn"));
        std::string error;
        NS_ABORT_MSG_IF(!helper.Install(star.hosts, &error), "Install: " << error);
        Ptr<Collective> c = helper.AllReduce(1 << 20, "ring");
        Simulator::Run();
        *complete = c->IsComplete();
        const std::string check = c->Check();
        *cnps = 0;
        for (uint32_t h = 0; h < HOSTS; h++)
        {
            *cnps += star.hosts.Get(h)->GetObject<RdmaNic>()->GetCnpsReceived();
        }
        Simulator::Destroy();
        return check;
    }

    void DoRun() override
    {
        uint64_t marked = 0;
        uint64_t unmarked = 0;
        bool complete = false;
        NS_TEST_EXPECT_MSG_EQ(Run(true, &marked, &complete), "", "data as planned with ECN");
        NS_TEST_EXPECT_MSG_EQ(complete, true, "completes with ECN");
        NS_TEST_EXPECT_MSG_GT(marked, 0, "marked packets bring CNPs to the senders");
        NS_TEST_EXPECT_MSG_EQ(Run(false, &unmarked, &complete), "", "data as planned");
        NS_TEST_EXPECT_MSG_EQ(complete, true, "completes without ECN");
        NS_TEST_EXPECT_MSG_EQ(unmarked, 0, "no mark, no CNP");
    }
};

/**
 * \ingroup training-net-tests
 * Collectives on ordinary ns-3 nodes.
 */
class StudyCollectiveTestSuite : public TestSuite
{
  public:
    StudyCollectiveTestSuite()
        : TestSuite("training-net-study-collective", UNIT)
    {
        AddTestCase(new StudyAllReduceTestCase, TestCase::QUICK);
        AddTestCase(new StudyRetransmissionTestCase, TestCase::QUICK);
        AddTestCase(new StudyEcnTestCase, TestCase::QUICK);
        AddTestCase(new StudyErrorsTestCase, TestCase::QUICK);
    }
};

static StudyCollectiveTestSuite g_studyCollectiveTestSuite; //!< the suite

} // namespace ns3
