/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-hpcc.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaHpcc");

NS_OBJECT_ENSURE_REGISTERED(RdmaHpcc);
NS_OBJECT_ENSURE_REGISTERED(RdmaHpccPint);

TypeId
RdmaHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaHpcc")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RdmaHpcc>()
            .AddAttribute("TargetUtilization",
                          "eta: the utilisation HPCC holds the bottleneck at, in (0, 1] (paper: "
                          "0.95; HPCC family key U_TARGET).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RdmaHpcc::m_eta),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxStage",
                          "Additive increase steps in a row before a multiplicative update "
                          "(paper: 5; key MI_THRESH).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaHpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "R_AI = W_AI / T: the additive increase per update (key RATE_AI; "
                          "the HPCC family's configuration: 50 Mb/s).",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&RdmaHpcc::m_ai),
                          MakeDataRateChecker())
            .AddAttribute("FastReact",
                          "React to every ACK between the once-per-RTT updates (key "
                          "FAST_REACT).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaHpcc::m_fastReact),
                          MakeBooleanChecker())
            .AddAttribute("BaseRtt",
                          "T: the base round-trip time of the fabric (window W = R T; the "
                          "queue term and the smoothing of U). The HPCC family uses the largest "
                          "base RTT of the topology (GLOBAL_T 1).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&RdmaHpcc::m_baseRtt),
                          MakeTimeChecker())
            .AddAttribute("MinRate",
                          "Rate floor (key MIN_RATE).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaHpcc::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("IntMaxHops",
                          "Hop slots of the INT header (8 bytes each; the HPCC family: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaHpcc::m_slots),
                          MakeUintegerChecker<uint32_t>(1, RoceIntHeader::MAX_SLOTS))
            .AddAttribute("IntMulti",
                          "Unit multiplier of the INT byte and queue fields (128 m and 80 m "
                          "bytes; key INT_MULTI).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaHpcc::m_multi),
                          MakeUintegerChecker<uint32_t>(1, 255))
            .AddAttribute("PerHopRate",
                          "Keep a rate per hop and send at the smallest (key MULTI_RATE).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaHpcc::m_perHop),
                          MakeBooleanChecker())
            .AddAttribute("SampleFeedback",
                          "Per-ACK reactions skip hops whose queue is empty (key "
                          "SAMPLE_FEEDBACK).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaHpcc::m_sampleFeedback),
                          MakeBooleanChecker())
            .AddAttribute("VariableWindow",
                          "The window scales with the rate: R x T, or the path's BDP x R / line "
                          "rate on a path slower than the NIC (key VAR_WIN 1, the HPCC family's "
                          "HPCC configurations); false: the line rate x T, or that BDP, whatever "
                          "the rate (VAR_WIN 0).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaHpcc::m_variableWindow),
                          MakeBooleanChecker())
            .AddAttribute("InitialUtilization",
                          "The smoothed utilisation U (aggregate and per hop) before the first "
                          "ACK: 0 assumes an idle path; the HPCC family's code starts at 1, so "
                          "its first updates hold the rate back until the samples come in.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&RdmaHpcc::m_initialU),
                          MakeDoubleChecker<double>(0.0, 10.0))
            .AddAttribute("IntRates",
                          "How an INT hop carries its link's rate: codes, the HPCC family's "
                          "3-bit codes of 10, 25, 40, 50, 100, 200, 400 and 800 Gb/s (8 bytes a "
                          "hop; a switch port of another rate is refused); wide, 32 bits of "
                          "Mb/s (12 bytes a hop, any rate); auto (default), codes where every "
                          "switch port's rate has one, else wide (RoceHelper decides at "
                          "Install).",
                          EnumValue(INT_RATES_AUTO),
                          MakeEnumAccessor(&RdmaHpcc::m_intRates),
                          MakeEnumChecker(INT_RATES_AUTO,
                                          "auto",
                                          INT_RATES_CODES,
                                          "codes",
                                          INT_RATES_WIDE,
                                          "wide"));
    return tid;
}

RdmaHpcc::RdmaHpcc()
{
}

RdmaHpcc::~RdmaHpcc()
{
}

Ptr<RdmaCongestionControl>
RdmaHpcc::Fork() const
{
    if (GetInstanceTypeId() != GetTypeId())
    {
        return nullptr;
    }
    return CopyObject<RdmaHpcc>(this);
}

RoceIntHeader::Mode
RdmaHpcc::GetTelemetry() const
{
    return m_intRates == INT_RATES_WIDE ? RoceIntHeader::HOPS_WIDE : RoceIntHeader::HOPS;
}

void
RdmaHpcc::FillTelemetry(RoceIntHeader& h) const
{
    h.InitHops(static_cast<uint8_t>(m_slots),
               static_cast<uint8_t>(m_multi),
               m_intRates == INT_RATES_WIDE);
}

std::string
RdmaHpcc::GetConfigError() const
{
    const std::string type = GetInstanceTypeId().GetName();
    return RdmaConfigCheck()
        .UnitInterval(type + "::TargetUtilization", m_eta)
        .Positive(type + "::BaseRtt", m_baseRtt)
        .MinRate(type + "::MinRate", m_minRate)
        .GetError();
}

void
RdmaHpcc::SetPathBaseRtt(Time rtt)
{
    m_baseRtt = rtt;
}

void
RdmaHpcc::DoStart()
{
    m_curRate = GetLineRate();
    m_started = false;
    m_stage = 0;
    m_u = m_initialU;
    m_hops.clear();
    Apply(GetLineRate());
}

void
RdmaHpcc::Apply(double bps)
{
    SetRate(bps);
    // W = R T (the family's m_win x rate / max_rate with VAR_WIN 1, m_win = line rate x T), or
    // with a path slower than the NIC the family's BDP x R / line rate; VAR_WIN 0: m_win
    SetWindowFromRtt(m_baseRtt, m_variableWindow);
}

double
RdmaHpcc::React(double u, double& curRate, uint32_t& stage, bool commit) const
{
    const double k = u / m_eta;
    double rate;
    uint32_t next;
    if (k >= 1.0 || stage >= m_maxStage)
    {
        rate = k > 0 ? curRate / k + m_ai.GetBitRate() : GetLineRate();
        next = 0;
    }
    else
    {
        rate = curRate + m_ai.GetBitRate();
        next = stage + 1;
    }
    rate = std::min(GetLineRate(), std::max(rate, static_cast<double>(m_minRate.GetBitRate())));
    if (commit)
    {
        curRate = rate;
        stage = next;
    }
    return rate;
}

void
RdmaHpcc::DoOnAck(const RdmaCcFeedback& fb)
{
    if (!fb.telemetry || (fb.telemetry->GetMode() != RoceIntHeader::HOPS &&
                          fb.telemetry->GetMode() != RoceIntHeader::HOPS_WIDE))
    {
        return;
    }
    const RoceIntHeader& ih = *fb.telemetry;
    const uint32_t n = std::min(ih.GetHopCount(), ih.GetSlots());
    if (!m_started || n != std::min(m_last.GetHopCount(), m_last.GetSlots()))
    {
        // first ACK, or the path changed: nothing to compare with yet
        m_started = true;
        m_last = ih;
        m_lastUpdatePsn = fb.nextPsn;
        m_hops.assign(n, HopState{m_initialU, m_curRate, 0});
        return;
    }
    const bool commit = fb.ackedPsn > m_lastUpdatePsn;
    if (!commit && !m_fastReact)
    {
        return;
    }
    const double t = m_baseRtt.GetSeconds();
    const double tNs = static_cast<double>(m_baseRtt.GetNanoSeconds());
    const double bdp = static_cast<double>(GetPathBdp());
    double bestU = -1;
    double bestDt = 0;
    double perHopRate = GetLineRate();
    bool any = false;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_sampleFeedback && !commit && ih.GetHopQueueBytes(i) == 0)
        {
            continue;
        }
        const uint64_t tau = ih.GetTimeDelta(i, m_last);
        if (tau == 0)
        {
            continue;
        }
        const double b = static_cast<double>(ih.GetHopRate(i));
        const double txRate = static_cast<double>(ih.GetBytesDelta(i, m_last)) * 8e9 / tau;
        const double q =
            static_cast<double>(std::min(ih.GetHopQueueBytes(i), m_last.GetHopQueueBytes(i)));
        // the queue in windows at the line rate, scaled to the hop's rate: q 8 / (B T), or
        // q x line rate / (B x the path's BDP) on a slower path (the family's m_win)
        const double u = txRate / b + (bdp > 0 ? q * GetLineRate() / (b * bdp) : q * 8.0 / (b * t));
        const double dt = std::min(static_cast<double>(tau), tNs);
        any = true;
        if (!m_perHop)
        {
            if (u > bestU)
            {
                bestU = u;
                bestDt = dt;
            }
        }
        else
        {
            HopState& h = m_hops[i];
            h.u = (h.u * (tNs - dt) + u * dt) / tNs;
            perHopRate = std::min(perHopRate, React(h.u, h.rate, h.stage, commit));
        }
    }
    m_last = ih;
    if (any)
    {
        if (!m_perHop)
        {
            m_u = (m_u * (tNs - bestDt) + bestU * bestDt) / tNs;
            Apply(React(m_u, m_curRate, m_stage, commit));
        }
        else
        {
            Apply(perHopRate);
        }
    }
    if (commit)
    {
        m_lastUpdatePsn = std::max(m_lastUpdatePsn, fb.nextPsn);
    }
}

// ---------------------------------------------------------------- RdmaHpccPint

TypeId
RdmaHpccPint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaHpccPint")
            .SetParent<RdmaHpcc>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RdmaHpccPint>()
            .AddAttribute("LogBase",
                          "Base of the log coding of the utilisation; must equal the switches' "
                          "RoceSwitch::PintLogBase (key PINT_LOG_BASE, 1.05).",
                          DoubleValue(1.05),
                          MakeDoubleAccessor(&RdmaHpccPint::m_logBase),
                          MakeDoubleChecker<double>())
            .AddAttribute("SampleProbability",
                          "Fraction of the ACKs the sender reacts to, in (0, 1] (key PINT_PROB).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaHpccPint::m_probability),
                          MakeDoubleChecker<double>());
    return tid;
}

RdmaHpccPint::RdmaHpccPint()
    : m_sample(CreateObject<UniformRandomVariable>())
{
}

RdmaHpccPint::~RdmaHpccPint()
{
}

int64_t
RdmaHpccPint::AssignStreams(int64_t stream)
{
    m_sample->SetStream(stream);
    return 1;
}

RoceIntHeader::Mode
RdmaHpccPint::GetTelemetry() const
{
    return RoceIntHeader::PINT;
}

void
RdmaHpccPint::FillTelemetry(RoceIntHeader& h) const
{
    h.SetPintCode(0);
}

std::string
RdmaHpccPint::GetConfigError() const
{
    const std::string hpcc = RdmaHpcc::GetConfigError();
    return RdmaConfigCheck()
        .That(hpcc.empty(), hpcc)
        .That(m_logBase > 1.0,
              "ns3::RdmaHpccPint::LogBase must be > 1, not " + std::to_string(m_logBase))
        .UnitInterval("ns3::RdmaHpccPint::SampleProbability", m_probability)
        .GetError();
}

void
RdmaHpccPint::DoOnAck(const RdmaCcFeedback& fb)
{
    if (!fb.telemetry || fb.telemetry->GetMode() != RoceIntHeader::PINT)
    {
        return;
    }
    if (m_probability < 1.0 && m_sample->GetValue() >= m_probability)
    {
        return;
    }
    if (!m_started)
    {
        m_started = true;
        m_lastUpdatePsn = fb.nextPsn;
        return;
    }
    const bool commit = fb.ackedPsn > m_lastUpdatePsn;
    if (!commit && !m_fastReact)
    {
        return;
    }
    m_u = RoceIntHeader::DecodeUtilisation(fb.telemetry->GetPintCode(), m_logBase);
    Apply(React(m_u, m_curRate, m_stage, commit));
    if (commit)
    {
        m_lastUpdatePsn = std::max(m_lastUpdatePsn, fb.nextPsn);
    }
}

} // namespace ns3
