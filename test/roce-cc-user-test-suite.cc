/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion controls as ns-3 types: a user's own subclass of RdmaCongestionControl, defined
 * here, chosen by its TypeId name through RdmaNic::CongestionControl with its attribute carried
 * to every queue pair by the NIC's factory; DCQCN's parameters as attributes of its class, and
 * their old RdmaNic paths refused naming the new ones; RdmaNic::RateChangeReschedules (a rate
 * change moves the queue pair's next packet, as the HPCC family's ChangeRate); Fork, how a NIC
 * gives its queue pairs copies of its first control.
 */
#include "roce-nic-test-util.h"
#include "roce-test-util.h"

#include "ns3/attribute-settings.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/rdma-dcqcn.h"
#include "ns3/rdma-dctcp.h"
#include "ns3/rdma-hpcc.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-timely.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::roce_test;

namespace
{

constexpr uint64_t RATE = 100000000000ULL; // 100 Gb/s
constexpr uint64_t LATENCY_NS = 1000;      // 1 us
constexpr uint64_t BYTES = 4 << 20;        // one 4 MiB write

/// A user's congestion control: a fixed pacing rate, Cap.
// snippet: user-cc
class TestRateCapControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestRateCapControl")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<TestRateCapControl>()
                                .AddAttribute("Cap",
                                              "The pacing rate.",
                                              DataRateValue(DataRate(RATE)),
                                              MakeDataRateAccessor(&TestRateCapControl::m_cap),
                                              MakeDataRateChecker());
        return tid;
    }

  protected:
    void DoStart() override
    {
        SetRate(static_cast<double>(m_cap.GetBitRate()));
    }

  private:
    DataRate m_cap;
};

NS_OBJECT_ENSURE_REGISTERED(TestRateCapControl);

// end snippet: user-cc

/// A fabric of two NPUs on one cable, and one write from NPU 0 to NPU 1.
struct OneWrite
{
    RoceHelper helper;
    Completions done;

    /// \return the write's completion time (s), -1 if it did not complete
    double Run()
    {
        tn_topology* topo = MakeChain(1, RATE, LATENCY_NS);
        helper.Install(topo);
        tn_topology_destroy(topo);
        helper.GetNic(0)->PostWrite(1, BYTES, 3, MakeCallback(&Completions::Done, &done));
        Simulator::Run();
        return done.records.size() == 1 ? (done.records[0].end - done.records[0].start).GetSeconds()
                                        : -1;
    }
};

/**
 * \ingroup training-net-tests
 * A subclass of RdmaCongestionControl chosen by its TypeId name: every queue pair runs it
 * with the Cap given through RoceHelper::SetCongestionControl, and a write takes line rate /
 * Cap times as long as without congestion control (the pacing is the whole of the time).
 */
class RoceUserCcTestCase : public TestCase
{
  public:
    RoceUserCcTestCase()
        : TestCase("a user's RdmaCongestionControl subclass, chosen by TypeId name, paces")
    {
    }

  private:
    void DoRun() override
    {
        TypeId tid;
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Resolve("ns3::TestRateCapControl", &tid),
                              true,
                              "a subclass is a congestion control");
        NS_TEST_ASSERT_MSG_EQ(RdmaCcRegistry::Resolve("ns3::RoceSwitch", &tid),
                              false,
                              "another class is not");
        const uint64_t cap = RATE / 4;
        double free = 0;
        {
            OneWrite w;
            w.helper.SetCongestionControl("none");
            free = w.Run();
            Simulator::Destroy();
        }
        OneWrite w;
        // snippet: user-cc-select
        w.helper.SetCongestionControl("ns3::TestRateCapControl",
                                      "Cap",
                                      DataRateValue(DataRate(cap)));
        // end snippet: user-cc-select
        const double capped = w.Run();
        Ptr<RdmaNic> nic = w.helper.GetNic(0);
        StringValue name;
        nic->GetAttribute("CongestionControl", name);
        NS_TEST_EXPECT_MSG_EQ(name.Get(), "ns3::TestRateCapControl", "read back by TypeId name");
        NS_TEST_ASSERT_MSG_EQ(nic->GetNQueuePairs(), 1, "one queue pair");
        Ptr<RdmaCongestionControl> cc = nic->GetQueuePairByIndex(0)->GetCongestionControl();
        NS_TEST_ASSERT_MSG_EQ((DynamicCast<TestRateCapControl>(cc) != nullptr),
                              true,
                              "the queue pair runs the user's class");
        DataRateValue given;
        cc->GetAttribute("Cap", given);
        NS_TEST_EXPECT_MSG_EQ(given.Get().GetBitRate(), cap, "the NIC's factory carried Cap");
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_GT(free, 0, "the write completes at line rate");
        NS_TEST_ASSERT_MSG_GT(capped, 0, "the write completes capped");
        // at least the payload at the cap, and within the headers' 5 % above it
        const double payloadAtCap = BYTES * 8.0 / static_cast<double>(cap);
        NS_TEST_EXPECT_MSG_GT_OR_EQ(capped, payloadAtCap, "no faster than the cap");
        NS_TEST_EXPECT_MSG_LT(capped, payloadAtCap * 1.05, "paced at the cap");
        NS_TEST_EXPECT_MSG_EQ_TOL(capped / free,
                                  static_cast<double>(RATE) / static_cast<double>(cap),
                                  0.04,
                                  "line rate / Cap times the time of no congestion control");
    }
};

/**
 * \ingroup training-net-tests
 * DCQCN's parameters are attributes of ns3::RdmaDcqcnControl: a value given to the NIC
 * reaches each queue pair's control (scaled to its line rate where the step is per
 * ReferenceRate), and each old ns3::RdmaNic path is refused in one message naming the new
 * path, which exists.
 */
class RoceDcqcnAttributesTestCase : public TestCase
{
  public:
    RoceDcqcnAttributesTestCase()
        : TestCase("DCQCN's attributes live on RdmaDcqcnControl; the NIC's old paths are refused")
    {
    }

  private:
    void DoRun() override
    {
        // the old paths: obsolete attributes of the NIC, each naming an attribute of DCQCN's
        const TypeId nic = RdmaNic::GetTypeId();
        const TypeId dcqcn = RdmaDcqcnControl::GetTypeId();
        const std::string prefix = "moved to ns3::RdmaDcqcnControl::";
        uint32_t moved = 0;
        for (uint32_t i = 0; i < nic.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation a = nic.GetAttribute(i);
            if (a.supportLevel != TypeId::OBSOLETE)
            {
                continue;
            }
            ++moved;
            NS_TEST_ASSERT_MSG_EQ(a.supportMsg.compare(0, prefix.size(), prefix), 0, a.name);
            TypeId::AttributeInformation to;
            NS_TEST_EXPECT_MSG_EQ(
                dcqcn.LookupAttributeByName(a.supportMsg.substr(prefix.size()), &to),
                true,
                a.supportMsg);
            std::string why;
            NS_TEST_EXPECT_MSG_EQ(
                AttributeSettings::CheckDefault("ns3::RdmaNic::" + a.name, "1", &why),
                false,
                a.name);
            NS_TEST_EXPECT_MSG_EQ(why,
                                  "ns3::RdmaNic::" + a.name + " is obsolete: " + a.supportMsg,
                                  "one line naming the new path");
        }
        NS_TEST_EXPECT_MSG_EQ(moved, 18, "DCQCN's 18 parameters moved");
        std::string why;
        NS_TEST_EXPECT_MSG_EQ(
            AttributeSettings::CheckDefault("ns3::RdmaDcqcnControl::G", "0.5", &why),
            true,
            why);

        // values given to the NIC reach the queue pair's control
        OneWrite w;
        w.helper.SetCongestionControl("dcqcn",
                                      "RateIncreasePeriod",
                                      TimeValue(MicroSeconds(900)),
                                      "CongestionNotification",
                                      StringValue("ack"));
        NS_TEST_ASSERT_MSG_GT(w.Run(), 0, "the write completes");
        Ptr<RdmaDcqcnControl> cc = DynamicCast<RdmaDcqcnControl>(
            w.helper.GetNic(0)->GetQueuePairByIndex(0)->GetCongestionControl());
        NS_TEST_ASSERT_MSG_EQ((cc != nullptr), true, "dcqcn is RdmaDcqcnControl");
        NS_TEST_EXPECT_MSG_EQ(cc->GetConfig().increasePeriod, MicroSeconds(900), "given");
        NS_TEST_EXPECT_MSG_EQ(cc->GetConfig().notifyByAck, true, "given");
        NS_TEST_EXPECT_MSG_EQ(cc->RequestsCnp(), false, "ACK notification: no CNP");
        // AdditiveIncrease 5 Mb/s per ReferenceRate 25 Gb/s, at 100 Gb/s
        NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetConfig().aiBps, 20e6, 1e-3, "scaled to the line rate");
        Simulator::Destroy();
    }
};

/// A control that paces at From until At after its start, then at To.
class TestRateStepControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestRateStepControl")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("TrainingNet")
                                .AddConstructor<TestRateStepControl>()
                                .AddAttribute("From",
                                              "The rate before At.",
                                              DataRateValue(DataRate(RATE)),
                                              MakeDataRateAccessor(&TestRateStepControl::m_from),
                                              MakeDataRateChecker())
                                .AddAttribute("To",
                                              "The rate from At on.",
                                              DataRateValue(DataRate(RATE)),
                                              MakeDataRateAccessor(&TestRateStepControl::m_to),
                                              MakeDataRateChecker())
                                .AddAttribute("At",
                                              "When the rate steps, after the start.",
                                              TimeValue(MicroSeconds(1)),
                                              MakeTimeAccessor(&TestRateStepControl::m_at),
                                              MakeTimeChecker());
        return tid;
    }

  protected:
    void DoStart() override
    {
        SetRate(static_cast<double>(m_from.GetBitRate()));
        Simulator::Schedule(m_at, &TestRateStepControl::Step, this);
    }

  private:
    void Step()
    {
        SetRate(static_cast<double>(m_to.GetBitRate()));
    }

    DataRate m_from;
    DataRate m_to;
    Time m_at;
};

NS_OBJECT_ENSURE_REGISTERED(TestRateStepControl);

/**
 * \ingroup training-net-tests
 * RdmaNic::RateChangeReschedules: four 4096-byte packets paced at one rate that steps to
 * another 1 us after the start, while the second packet waits for its gap (33 us at 1 Gb/s,
 * 3.3 us at 10 Gb/s). With the attribute the waiting packet leaves at the first one's start
 * plus its time at the new rate, so the write ends to the ns as one paced at the new rate
 * throughout (up: 1 to 10 Gb/s; down: 10 to 1 Gb/s); without it the gap set at the first
 * packet stands, one old gap and two new ones: the step up one gap difference later than the
 * new rate throughout, the step down one earlier than the old rate throughout. Every write
 * sends its four packets once (no stale pacing entry sends one twice). With one queue pair the
 * HPCC family's scheduler (RdmaNic::Scheduler family: its scan and its wake-up, set only while
 * the queue pair's time is ahead) paces as the ring does: the same four ends to the ns.
 */
class RoceRateChangeReschedulesTestCase : public TestCase
{
  public:
    RoceRateChangeReschedulesTestCase()
        : TestCase("RdmaNic::RateChangeReschedules: a rate change moves the waiting packet")
    {
    }

  private:
    /// \return the end (s) of a 4-packet write paced at `from`, then `to` from 1 us on
    static double Run(uint64_t from,
                      uint64_t to,
                      bool reschedule,
                      uint64_t* packets,
                      const std::string& scheduler = "ring")
    {
        RoceHelper helper;
        Completions done;
        helper.SetNicAttribute("Mtu", UintegerValue(4096));
        helper.SetNicAttribute("RateChangeReschedules", BooleanValue(reschedule));
        helper.SetNicAttribute("Scheduler", StringValue(scheduler));
        helper.SetCongestionControl("ns3::TestRateStepControl",
                                    "From",
                                    DataRateValue(DataRate(from)),
                                    "To",
                                    DataRateValue(DataRate(to)));
        tn_topology* topo = MakeChain(1, RATE, LATENCY_NS);
        helper.Install(topo);
        tn_topology_destroy(topo);
        helper.GetNic(0)->PostWrite(1, 4 * 4096, 3, MakeCallback(&Completions::Done, &done));
        Simulator::Run();
        *packets = helper.GetNic(0)->GetQueuePairByIndex(0)->GetDataPacketsSent();
        const double end = done.records.size() == 1
                               ? (done.records[0].end - done.records[0].start).GetSeconds()
                               : -1;
        Simulator::Destroy();
        return end;
    }

    void DoRun() override
    {
        const uint64_t slow = 1000000000ULL; // 1 Gb/s
        const uint64_t fast = 10000000000ULL;
        uint64_t n[6];
        const double atSlow = Run(slow, slow, true, &n[0]);
        const double atFast = Run(fast, fast, true, &n[1]);
        const double upMoved = Run(slow, fast, true, &n[2]);
        const double upKept = Run(slow, fast, false, &n[3]);
        const double downMoved = Run(fast, slow, true, &n[4]);
        const double downKept = Run(fast, slow, false, &n[5]);
        for (uint64_t k : n)
        {
            NS_TEST_EXPECT_MSG_EQ(k, 4, "four data packets, none sent twice");
        }
        NS_TEST_ASSERT_MSG_GT(atFast, 0, "the writes complete");
        // three gaps between four packets: the mean gap at 1 Gb/s less that at 10 Gb/s
        const double gapDiff = (atSlow - atFast) / 3;
        NS_TEST_ASSERT_MSG_GT(gapDiff, 25e-6, "a 4 KiB gap: 33 us at 1 Gb/s, 3.3 at 10");
        NS_TEST_EXPECT_MSG_EQ_TOL(upMoved, atFast, 1e-9, "step up moved: as the new rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(downMoved, atSlow, 1e-9, "step down moved: as the new rate");
        // the kept gap is the first packet's, whose RETH makes it 16 bytes longer than the
        // mean of the three
        const double reth = 16 * 8 * (1.0 / slow - 1.0 / fast) * 2 / 3;
        NS_TEST_EXPECT_MSG_EQ_TOL(upKept, atFast + gapDiff + reth, 1e-9, "step up kept: old gap");
        NS_TEST_EXPECT_MSG_EQ_TOL(downKept,
                                  atSlow - gapDiff - reth,
                                  1e-9,
                                  "step down kept: one old gap");
        const double ring[4] = {upMoved, upKept, downMoved, downKept};
        const bool moved[4] = {true, false, true, false};
        const uint64_t steps[4][2] = {{slow, fast}, {slow, fast}, {fast, slow}, {fast, slow}};
        for (int i = 0; i < 4; ++i)
        {
            uint64_t k = 0;
            const double family = Run(steps[i][0], steps[i][1], moved[i], &k, "family");
            NS_TEST_EXPECT_MSG_EQ(k, 4, "family scheduler: four data packets, none sent twice");
            NS_TEST_EXPECT_MSG_EQ_TOL(family, ring[i], 1e-12, "family scheduler: as the ring");
        }
    }
};

/**
 * \ingroup training-net-tests
 * A class derived from a congestion control's class: Fork must not slice it into its parent.
 */
template <class Base>
class RoceForkSubclass : public Base
{
  public:
    /** \return the TypeId ("ns3::RoceForkSubclass<" and its parent's name) */
    static TypeId GetTypeId()
    {
        // ns-3.35's TypeId takes only a C string
        static const std::string name =
            "ns3::RoceForkSubclass<" + Base::GetTypeId().GetName() + ">";
        static TypeId tid = TypeId(name.c_str())
                                .template SetParent<Base>()
                                .SetGroupName("TrainingNet")
                                .template AddConstructor<RoceForkSubclass<Base>>();
        return tid;
    }
};

/**
 * \ingroup training-net-tests
 * Fork, how a NIC gives each queue pair its control: the copy has every attribute of its
 * original. Every settable attribute of the class and its parents is set away from its default
 * (a copy constructor that forgot a member would leave it at its default or unset), then the
 * fork reads what the original reads; a subclass is not forked (the NIC builds it from its
 * factory), and a NIC's queue pairs get controls with the attributes the NIC was given.
 */
class RoceForkTestCase : public TestCase
{
  public:
    /**
     * \param name the control's name for RoceHelper::SetCongestionControl
     * \param tid its class \param attributes how many settable attributes it has at least
     * \param subclass a registered subclass (not forked)
     * \param nicAttribute a double attribute the NIC's controls are given
     */
    RoceForkTestCase(const std::string& name,
                     TypeId tid,
                     size_t attributes,
                     TypeId subclass,
                     const std::string& nicAttribute)
        : TestCase(name + ": Fork copies every attribute of a control never started"),
          m_name(name),
          m_tid(tid),
          m_attributes(attributes),
          m_subclass(subclass),
          m_nicAttribute(nicAttribute)
    {
    }

  private:
    /// \return a value of value's type other than it that the checker accepts, or null
    static Ptr<AttributeValue> Other(const AttributeValue& value,
                                     Ptr<const AttributeChecker> checker)
    {
        std::vector<Ptr<AttributeValue>> candidates;
        if (const auto* d = dynamic_cast<const DoubleValue*>(&value))
        {
            candidates = {Create<DoubleValue>(d->Get() * 0.5), Create<DoubleValue>(d->Get() + 1)};
        }
        else if (const auto* t = dynamic_cast<const TimeValue*>(&value))
        {
            candidates = {Create<TimeValue>(t->Get() * 3 + NanoSeconds(7))};
        }
        else if (const auto* r = dynamic_cast<const DataRateValue*>(&value))
        {
            candidates = {Create<DataRateValue>(DataRate(r->Get().GetBitRate() * 3 + 1000))};
        }
        else if (const auto* u = dynamic_cast<const UintegerValue*>(&value))
        {
            candidates = {Create<UintegerValue>(u->Get() + 1), Create<UintegerValue>(u->Get() - 1)};
        }
        else if (const auto* b = dynamic_cast<const BooleanValue*>(&value))
        {
            candidates = {Create<BooleanValue>(!b->Get())};
        }
        else if (const auto* e = dynamic_cast<const EnumValue*>(&value))
        {
            for (int other = 0; other < 8; ++other)
            {
                if (other != e->Get())
                {
                    candidates.push_back(Create<EnumValue>(other));
                }
            }
        }
        for (const auto& c : candidates)
        {
            if (checker->Check(*c) &&
                c->SerializeToString(checker) != value.SerializeToString(checker))
            {
                return c;
            }
        }
        return nullptr;
    }

    /// \return the attribute's value in o, as text
    static std::string Read(Ptr<const Object> o,
                            const std::string& name,
                            Ptr<const AttributeChecker> checker)
    {
        Ptr<AttributeValue> v = checker->Create();
        o->GetAttribute(name, *v);
        return v->SerializeToString(checker);
    }

    void DoRun() override
    {
        ObjectFactory factory;
        factory.SetTypeId(m_tid);
        std::vector<std::pair<std::string, Ptr<const AttributeChecker>>> set;
        for (TypeId tid = m_tid; tid != Object::GetTypeId(); tid = tid.GetParent())
        {
            for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                const TypeId::AttributeInformation info = tid.GetAttribute(i);
                if (!(info.flags & TypeId::ATTR_SET) || !info.accessor->HasGetter())
                {
                    continue;
                }
                Ptr<AttributeValue> other = Other(*info.initialValue, info.checker);
                NS_TEST_ASSERT_MSG_NE(other, nullptr, "a value besides the default: " << info.name);
                factory.Set(info.name, *other);
                set.emplace_back(info.name, info.checker);
            }
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(set.size(), m_attributes, "the class's attributes found");
        Ptr<RdmaCongestionControl> original = factory.Create<RdmaCongestionControl>();
        Ptr<RdmaCongestionControl> fork = original->Fork();
        NS_TEST_ASSERT_MSG_NE(fork, nullptr, "the class forks");
        NS_TEST_ASSERT_MSG_EQ(fork->GetInstanceTypeId(), m_tid, "class");
        ObjectFactory defaults;
        defaults.SetTypeId(m_tid);
        Ptr<RdmaCongestionControl> byDefault = defaults.Create<RdmaCongestionControl>();
        for (const auto& a : set)
        {
            const std::string value = Read(original, a.first, a.second);
            NS_TEST_EXPECT_MSG_NE(value,
                                  Read(byDefault, a.first, a.second),
                                  a.first << ": set away from its default");
            NS_TEST_EXPECT_MSG_EQ(Read(fork, a.first, a.second), value, a.first << ": copied");
        }
        ObjectFactory derivedFactory;
        derivedFactory.SetTypeId(m_subclass);
        Ptr<RdmaCongestionControl> derived = derivedFactory.Create<RdmaCongestionControl>();
        NS_TEST_EXPECT_MSG_EQ(derived->Fork(), nullptr, "a subclass is built, not sliced");

        // a NIC's queue pairs: the first control from the factory, the others its forks
        tn_topology* topo = MakeChain(1, 100000000000ULL, 1000);
        RoceHelper helper;
        helper.SetCongestionControl(m_name, m_nicAttribute, DoubleValue(0.125));
        helper.Install(topo);
        tn_topology_destroy(topo);
        Ptr<RdmaNic> nic = helper.GetNic(0);
        for (uint8_t priority = 1; priority <= 3; ++priority)
        {
            nic->PostWrite(1, 4096, priority);
        }
        Simulator::Run();
        for (uint8_t priority = 1; priority <= 3; ++priority)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQueuePair(1, priority, 0);
            NS_TEST_ASSERT_MSG_NE(qp, nullptr, "a queue pair at priority " << +priority);
            Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
            NS_TEST_ASSERT_MSG_NE(cc, nullptr, "its control");
            NS_TEST_EXPECT_MSG_EQ(cc->GetInstanceTypeId(), m_tid, "the NIC's class");
            DoubleValue value;
            cc->GetAttribute(m_nicAttribute, value);
            NS_TEST_EXPECT_MSG_EQ(value.Get(),
                                  0.125,
                                  "the NIC's " << m_nicAttribute << " at priority " << +priority);
        }
        Simulator::Destroy();
    }

    std::string m_name;         //!< the control's name
    TypeId m_tid;               //!< its class
    size_t m_attributes;        //!< its settable attributes, at least
    TypeId m_subclass;          //!< a subclass
    std::string m_nicAttribute; //!< a double attribute given to the NIC
};

/**
 * \ingroup training-net-tests
 * Congestion controls as ns-3 types.
 */
class RoceCcUserTestSuite : public TestSuite
{
  public:
    RoceCcUserTestSuite()
        : TestSuite("training-net-roce-cc-user", UNIT)
    {
        AddTestCase(new RoceUserCcTestCase, TestCase::QUICK);
        AddTestCase(new RoceDcqcnAttributesTestCase, TestCase::QUICK);
        AddTestCase(new RoceRateChangeReschedulesTestCase, TestCase::QUICK);
        AddTestCase(new RoceForkTestCase("dcqcn",
                                         RdmaDcqcnControl::GetTypeId(),
                                         18,
                                         RoceForkSubclass<RdmaDcqcnControl>::GetTypeId(),
                                         "G"),
                    TestCase::QUICK);
        AddTestCase(new RoceForkTestCase("hpcc",
                                         RdmaHpcc::GetTypeId(),
                                         13,
                                         RdmaHpccPint::GetTypeId(),
                                         "TargetUtilization"),
                    TestCase::QUICK);
        AddTestCase(new RoceForkTestCase("timely",
                                         RdmaTimely::GetTypeId(),
                                         11,
                                         RoceForkSubclass<RdmaTimely>::GetTypeId(),
                                         "Beta"),
                    TestCase::QUICK);
        AddTestCase(new RoceForkTestCase("dctcp",
                                         RdmaDctcp::GetTypeId(),
                                         6,
                                         RoceForkSubclass<RdmaDctcp>::GetTypeId(),
                                         "G"),
                    TestCase::QUICK);
    }
};

/// The suite's instance.
RoceCcUserTestSuite g_roceCcUserTestSuite;

} // namespace
