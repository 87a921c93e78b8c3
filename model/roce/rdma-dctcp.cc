/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-dctcp.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaDctcp");

NS_OBJECT_ENSURE_REGISTERED(RdmaDctcp);

TypeId
RdmaDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaDctcp")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RdmaDctcp>()
            .AddAttribute("G",
                          "Gain of the alpha estimate, in (0, 1] (paper: 1/16).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&RdmaDctcp::m_g),
                          MakeDoubleChecker<double>())
            .AddAttribute("InitialAlpha",
                          "alpha before the first round trip, in [0, 1].",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaDctcp::m_initialAlpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("AdditiveIncrease",
                          "Rate added per round trip without reduction (key DCTCP_RATE_AI; "
                          "the HPCC family's configuration: 1000 Mb/s).",
                          DataRateValue(DataRate("1000Mbps")),
                          MakeDataRateAccessor(&RdmaDctcp::m_ai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Rate floor (key MIN_RATE).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaDctcp::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("BaseRtt",
                          "Window RTT: window = rate x BaseRtt (0: paced by rate only).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaDctcp::m_baseRtt),
                          MakeTimeChecker())
            .AddAttribute("VariableWindow",
                          "With BaseRtt > 0: the window is the current rate x BaseRtt (true, "
                          "the HPCC family's VAR_WIN 1), or the line rate x BaseRtt (false, "
                          "VAR_WIN 0: a fixed window).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaDctcp::m_variableWindow),
                          MakeBooleanChecker());
    return tid;
}

RdmaDctcp::RdmaDctcp()
{
}

RdmaDctcp::~RdmaDctcp()
{
}

Ptr<RdmaCongestionControl>
RdmaDctcp::Fork() const
{
    if (GetInstanceTypeId() != GetTypeId())
    {
        return nullptr;
    }
    return CopyObject<RdmaDctcp>(this);
}

double
RdmaDctcp::GetAlpha()
{
    return m_alpha;
}

std::string
RdmaDctcp::GetConfigError() const
{
    return RdmaConfigCheck()
        .UnitInterval("ns3::RdmaDctcp::G", m_g)
        .That(m_initialAlpha >= 0.0 && m_initialAlpha <= 1.0,
              "ns3::RdmaDctcp::InitialAlpha must be in [0, 1], not " +
                  std::to_string(m_initialAlpha))
        .MinRate("ns3::RdmaDctcp::MinRate", m_minRate)
        .That(!m_baseRtt.IsStrictlyNegative(), "ns3::RdmaDctcp::BaseRtt must be >= 0")
        .GetError();
}

void
RdmaDctcp::DoStart()
{
    m_alpha = m_initialAlpha;
    m_started = false;
    m_cwr = false;
    Apply(GetLineRate());
}

void
RdmaDctcp::Apply(double bps)
{
    SetRate(bps);
    SetWindowFromRtt(m_baseRtt, m_variableWindow);
}

void
RdmaDctcp::SetPathBaseRtt(Time rtt)
{
    if (m_baseRtt.IsStrictlyPositive())
    {
        m_baseRtt = rtt;
    }
}

void
RdmaDctcp::DoOnAck(const RdmaCcFeedback& fb)
{
    const uint64_t newly = fb.ackedPsn > m_lastAcked ? fb.ackedPsn - m_lastAcked : 0;
    m_lastAcked = std::max(m_lastAcked, fb.ackedPsn);
    m_acked += newly;
    if (fb.ecnEcho)
    {
        m_marked += newly;
    }
    bool newRound = false;
    if (!m_started)
    {
        m_started = true;
        m_lastUpdatePsn = fb.nextPsn;
        m_marked = fb.ecnEcho ? newly : 0;
        m_acked = newly;
    }
    else if (fb.ackedPsn > m_lastUpdatePsn)
    {
        newRound = true;
        const double f = m_acked > 0 ? std::min(1.0, double(m_marked) / m_acked) : 0.0;
        m_alpha = (1 - m_g) * m_alpha + m_g * f;
        m_lastUpdatePsn = fb.nextPsn;
        m_marked = 0;
        m_acked = 0;
    }
    if (m_cwr && fb.ackedPsn > m_cwrEnd)
    {
        m_cwr = false;
    }
    if (fb.ecnEcho && !m_cwr)
    {
        m_cwr = true;
        m_cwrEnd = fb.nextPsn;
        Apply(std::max(static_cast<double>(m_minRate.GetBitRate()), GetRate() * (1 - m_alpha / 2)));
        NS_LOG_LOGIC(this << " cut: alpha " << m_alpha << " rate " << GetRate());
    }
    if (!m_cwr && newRound)
    {
        Apply(GetRate() + static_cast<double>(m_ai.GetBitRate()));
    }
}

} // namespace ns3
