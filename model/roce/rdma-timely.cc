/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-timely.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTimely");

NS_OBJECT_ENSURE_REGISTERED(RdmaTimely);

TypeId
RdmaTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaTimely")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RdmaTimely>()
            .AddAttribute("EwmaWeight",
                          "alpha: weight of a new RTT difference in the EWMA (paper: 0.875).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&RdmaTimely::m_alpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "beta: multiplicative decrease factor (paper: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RdmaTimely::m_beta),
                          MakeDoubleChecker<double>())
            .AddAttribute("LowThreshold",
                          "T_low: below this RTT the rate always increases (paper: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaTimely::m_tLow),
                          MakeTimeChecker())
            .AddAttribute("HighThreshold",
                          "T_high: above this RTT the rate always decreases (paper: 500 us).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RdmaTimely::m_tHigh),
                          MakeTimeChecker())
            .AddAttribute("MinRtt",
                          "Minimum RTT normalising the gradient (paper: 20 us).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RdmaTimely::m_minRtt),
                          MakeTimeChecker())
            .AddAttribute("AdditiveIncrease",
                          "delta: additive increase step (paper: 10 Mb/s; key RATE_AI).",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&RdmaTimely::m_ai),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncrease",
                          "Step after HaiThreshold increases in a row (paper: N delta = 50 Mb/s; "
                          "key RATE_HAI).",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&RdmaTimely::m_hai),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "N: increases in a row before hyper increase (paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaTimely::m_haiAfter),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinRate",
                          "Rate floor (key MIN_RATE).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaTimely::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("WindowRtt",
                          "The HPCC family's window on TIMELY (its HAS_WIN 1): at most rate x "
                          "WindowRtt bytes in flight per QP; 0 (default, the paper's TIMELY): "
                          "paced by rate only.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaTimely::m_windowRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("VariableWindow",
                          "With WindowRtt > 0: the window is the current rate x WindowRtt "
                          "(true, VAR_WIN 1) or the line rate x WindowRtt (false, VAR_WIN 0).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaTimely::m_variableWindow),
                          MakeBooleanChecker());
    return tid;
}

RdmaTimely::RdmaTimely()
{
}

RdmaTimely::~RdmaTimely()
{
}

Ptr<RdmaCongestionControl>
RdmaTimely::Fork() const
{
    if (GetInstanceTypeId() != GetTypeId())
    {
        return nullptr;
    }
    return CopyObject<RdmaTimely>(this);
}

RoceIntHeader::Mode
RdmaTimely::GetTelemetry() const
{
    return RoceIntHeader::TIMESTAMP;
}

void
RdmaTimely::FillTelemetry(RoceIntHeader& h) const
{
    h.SetTimestamp(static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()));
}

std::string
RdmaTimely::GetConfigError() const
{
    return RdmaConfigCheck()
        .UnitInterval("ns3::RdmaTimely::EwmaWeight", m_alpha)
        .UnitInterval("ns3::RdmaTimely::Beta", m_beta)
        .That(m_tLow.IsPositive() && m_tLow < m_tHigh,
              "ns3::RdmaTimely::LowThreshold (" + std::to_string(m_tLow.GetNanoSeconds()) +
                  " ns) must be >= 0 and below HighThreshold (" +
                  std::to_string(m_tHigh.GetNanoSeconds()) + " ns)")
        .Positive("ns3::RdmaTimely::MinRtt", m_minRtt)
        .MinRate("ns3::RdmaTimely::MinRate", m_minRate)
        .GetError();
}

void
RdmaTimely::DoStart()
{
    m_started = false;
    m_rttDiff = 0;
    m_incStage = 0;
    SetWindowFromRtt(m_windowRtt, m_variableWindow);
}

void
RdmaTimely::SetPathBaseRtt(Time rtt)
{
    if (m_windowRtt.IsStrictlyPositive())
    {
        m_windowRtt = rtt;
    }
}

void
RdmaTimely::DoOnAck(const RdmaCcFeedback& fb)
{
    if (!fb.telemetry || fb.telemetry->GetMode() != RoceIntHeader::TIMESTAMP)
    {
        return;
    }
    const Time rtt = Simulator::Now() - NanoSeconds(fb.telemetry->GetTimestamp());
    if (!m_started)
    {
        m_started = true;
        m_lastUpdatePsn = fb.nextPsn;
        m_lastRtt = rtt;
        return;
    }
    if (fb.ackedPsn <= m_lastUpdatePsn)
    {
        return; // once per round trip
    }
    m_lastUpdatePsn = fb.nextPsn;
    const double newDiff = static_cast<double>((rtt - m_lastRtt).GetNanoSeconds());
    m_lastRtt = rtt;
    m_rttDiff = (1 - m_alpha) * m_rttDiff + m_alpha * newDiff;
    const double gradient = m_rttDiff / static_cast<double>(m_minRtt.GetNanoSeconds());
    const double rate = GetRate();
    const double floor = static_cast<double>(m_minRate.GetBitRate());
    bool increase;
    double factor = 1.0;
    if (rtt < m_tLow)
    {
        increase = true;
    }
    else if (rtt > m_tHigh)
    {
        increase = false;
        factor = 1 - m_beta * (1 - m_tHigh.GetSeconds() / rtt.GetSeconds());
    }
    else if (gradient <= 0)
    {
        increase = true;
    }
    else
    {
        increase = false;
        factor = std::max(0.0, 1 - m_beta * gradient);
    }
    if (increase)
    {
        ++m_incStage;
        const double step =
            static_cast<double>(m_incStage > m_haiAfter ? m_hai.GetBitRate() : m_ai.GetBitRate());
        SetRate(rate + step);
    }
    else
    {
        m_incStage = 0;
        SetRate(std::max(floor, rate * factor));
    }
    SetWindowFromRtt(m_windowRtt, m_variableWindow);
}

} // namespace ns3
