/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TIMELY's rate law (issue 45): ns3::RdmaTimely driven by a sequence of RTT samples, each rate
 * against the law of Mittal et al. (SIGCOMM 2015, Algorithm 1) computed here, with the HPCC
 * family's two changes to it (alibaba-edu's RdmaHw::UpdateRateTimely), which RdmaTimely keeps.
 */
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/rdma-timely.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The law's parameters: alpha 0.5 (so the EWMA's history matters), beta 0.8, T_low 50 us,
/// T_high 500 us, MinRTT 20 us, delta 10 Mb/s, hyper step 50 Mb/s after N = 5, floor 100 Mb/s.
const double ALPHA = 0.5;
const double BETA = 0.8;
const double T_LOW_NS = 50000;
const double T_HIGH_NS = 500000;
const double MIN_RTT_NS = 20000;
const double DELTA = 10e6;
const double HYPER = 50e6;
const uint32_t HAI_AFTER = 5;
const double FLOOR = 100e6;
const double LINE = 100e9;

/**
 * Algorithm 1 of the paper, one completion event per call (the first only records the RTT):
 * new_rtt_diff = rtt - prev_rtt; rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff;
 * g = rtt_diff / MinRTT; rtt < T_low: R += delta; rtt > T_high: R *= 1 - beta (1 - T_high /
 * rtt); g <= 0: R += N delta (hyper after N such events in a row); else R *= 1 - beta g.
 * The HPCC family's rdma-hw.cc changes two things, and `family` applies them: its count towards
 * the hyper step is of increases in a row of any branch (T_low's too), and T_low's increase
 * takes the hyper step as well once the count passes N; the rate stays within [MinRate, line
 * rate] (the paper has neither bound, a cut of 1 - beta g < 0 would make it negative).
 */
struct TimelyLaw
{
    bool family;           //!< the family's hyper-increase count and bounds
    double rate{LINE};     //!< bit/s
    double prevRtt{-1};    //!< ns, -1 before the first sample
    double rttDiff{0};     //!< ns
    uint32_t increases{0}; //!< increases in a row (family) or gradient <= 0 events (paper)

    /// \param rtt the completion event's RTT (ns) \return the new rate
    double Update(double rtt)
    {
        if (prevRtt < 0)
        {
            prevRtt = rtt;
            return rate;
        }
        rttDiff = (1 - ALPHA) * rttDiff + ALPHA * (rtt - prevRtt);
        prevRtt = rtt;
        const double g = rttDiff / MIN_RTT_NS;
        if (rtt < T_LOW_NS)
        {
            increases = family ? increases + 1 : 0;
            rate += family && increases > HAI_AFTER ? HYPER : DELTA;
        }
        else if (rtt > T_HIGH_NS)
        {
            increases = 0;
            rate *= 1 - BETA * (1 - T_HIGH_NS / rtt);
        }
        else if (g <= 0)
        {
            ++increases;
            rate += increases > HAI_AFTER ? HYPER : DELTA;
        }
        else
        {
            increases = 0;
            rate *= family ? std::max(0.0, 1 - BETA * g) : 1 - BETA * g;
        }
        if (family)
        {
            rate = std::min(LINE, std::max(FLOOR, rate));
        }
        return rate;
    }
};

/**
 * \ingroup training-net-tests
 * RdmaTimely fed ACKs carrying the timestamps of a sequence of RTTs (one per round trip, the
 * PSNs past the previous update's) that visits every branch: above T_high, the gradient's
 * increase and its hyper step, the gradient's cut and its clamp to MinRate, T_low's increase
 * (and its hyper step, the family's), and an ACK inside a round trip, which must change nothing.
 * After every ACK the rate must be the family's law (TimelyLaw with `family`) to 1e-9; the paper's
 * own law must differ from it where the family's differs (T_low's hyper step, the floor), so
 * the sequence shows which of the two RdmaTimely follows.
 */
class RoceTimelyLawTestCase : public TestCase
{
  public:
    RoceTimelyLawTestCase()
        : TestCase("TIMELY's rate after each RTT sample against its paper's gradient law")
    {
    }

  private:
    /// One ACK: the RTT its timestamp gives at its time, and its PSNs
    struct AckSample
    {
        double rttNs;   //!< the round trip the timestamp makes
        Time at;        //!< when the ACK arrives
        uint64_t acked; //!< acked PSN
        uint64_t next;  //!< next PSN to send
    };

    /// \param cc the control \param ack the ACK it sees now
    void DeliverAck(Ptr<RdmaTimely> cc, AckSample ack)
    {
        RoceIntHeader ih(RoceIntHeader::TIMESTAMP);
        ih.SetTimestamp(uint64_t(ack.at.GetNanoSeconds() - int64_t(ack.rttNs)));
        RdmaCcFeedback fb;
        fb.ackedPsn = ack.acked;
        fb.nextPsn = ack.next;
        fb.telemetry = &ih;
        cc->OnAck(fb);
        m_rates.push_back(cc->GetRate());
    }

    std::vector<double> m_rates; //!< the rate after each ACK

    void DoRun() override
    {
        Ptr<RdmaTimely> cc = CreateObject<RdmaTimely>();
        cc->SetAttribute("EwmaWeight", DoubleValue(ALPHA));
        cc->SetAttribute("Beta", DoubleValue(BETA));
        cc->SetAttribute("LowThreshold", TimeValue(NanoSeconds(T_LOW_NS)));
        cc->SetAttribute("HighThreshold", TimeValue(NanoSeconds(T_HIGH_NS)));
        cc->SetAttribute("MinRtt", TimeValue(NanoSeconds(MIN_RTT_NS)));
        cc->SetAttribute("AdditiveIncrease", DataRateValue(DataRate(uint64_t(DELTA))));
        cc->SetAttribute("HyperIncrease", DataRateValue(DataRate(uint64_t(HYPER))));
        cc->SetAttribute("HaiThreshold", UintegerValue(HAI_AFTER));
        cc->SetAttribute("MinRate", DataRateValue(DataRate(uint64_t(FLOOR))));
        cc->Start(LINE, 1000, nullptr);
        // RTTs in us; a negative one is an ACK inside the round trip (its RTT the absolute)
        const std::vector<double> rtts = {
            30,                           // the first sample: recorded only
            600,  700,                    // above T_high: the cut 1 - beta (1 - T_high / rtt)
            200,  210, 220, 230, 240,     // the gradient <= 0: five increases of delta
            250,                          // gradient > 0: the cut 1 - beta g
            40,   40,  40,  40,  40,  45, // below T_low: the sixth in a row takes the hyper step
            100,                          // a gradient above 1 / beta: clamped to MinRate
            -900,                         // inside the round trip: ignored
            60,   60,  60,  60,  60,  60, 60, // the gradient <= 0, then its hyper step
        };
        std::vector<double>& ours = m_rates;
        ours.clear();
        uint64_t psn = 0;
        for (size_t i = 0; i < rtts.size(); ++i)
        {
            // an ACK a millisecond apart, its PSNs past the previous update's unless inside
            const bool inside = rtts[i] < 0;
            const uint64_t next = inside ? psn : psn + 100;
            const uint64_t acked = inside ? psn - 10 : psn + 50;
            psn = next;
            const double rttNs = std::fabs(rtts[i]) * 1000;
            const Time at = MilliSeconds(i + 1);
            // a member function, not a lambda: ns-3.35's Simulator::Schedule takes no lambda
            Simulator::Schedule(at,
                                &RoceTimelyLawTestCase::DeliverAck,
                                this,
                                cc,
                                AckSample{rttNs, at, acked, next});
        }
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(ours.size(), rtts.size(), "every ACK was seen");
        TimelyLaw family{true};
        TimelyLaw paper{false};
        uint32_t differ = 0;
        uint32_t cuts = 0;
        uint32_t hypers = 0;
        for (size_t i = 0; i < rtts.size(); ++i)
        {
            const double before = family.rate;
            const double expected = rtts[i] < 0 ? family.rate : family.Update(rtts[i] * 1000);
            const double p = rtts[i] < 0 ? paper.rate : paper.Update(rtts[i] * 1000);
            cuts += expected < before ? 1 : 0;
            hypers += std::fabs(expected - before - HYPER) < 1 ? 1 : 0;
            differ += std::fabs(p - expected) > 1 ? 1 : 0;
            std::cout << GetName() << ": RTT " << rtts[i] << " us: rate " << ours[i] / 1e9
                      << " Gb/s, the law " << expected / 1e9 << " (the paper's " << p / 1e9
                      << ")\n";
            NS_TEST_EXPECT_MSG_EQ_TOL(ours[i],
                                      expected,
                                      1e-9 * expected,
                                      "the rate after sample " << i << " (RTT " << rtts[i]
                                                               << " us)");
        }
        // the sequence exercised what it checks
        NS_TEST_EXPECT_MSG_EQ(cuts, 4u, "two cuts above T_high, two by the gradient");
        NS_TEST_EXPECT_MSG_EQ(hypers, 3u, "hyper steps: T_low's one, the gradient's two");
        NS_TEST_EXPECT_MSG_EQ(ours[15], FLOOR, "the clamp to MinRate");
        NS_TEST_EXPECT_MSG_GT(differ, 0u, "the paper's law differs from the family's here");
    }
};

/**
 * \ingroup training-net-tests
 * TIMELY's law.
 */
class RoceTimelyTestSuite : public TestSuite
{
  public:
    RoceTimelyTestSuite()
        : TestSuite("training-net-roce-timely", UNIT)
    {
        AddTestCase(new RoceTimelyLawTestCase, TestCase::QUICK);
    }
};

/// The suite.
RoceTimelyTestSuite g_roceTimelyTestSuite;

} // namespace
