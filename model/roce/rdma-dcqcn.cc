/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaDcqcn");

RdmaDcqcn::RdmaDcqcn(const RdmaDcqcnConfig* config, double lineRateBps, RateCallback onRate)
    : m_cfg(config),
      m_lineRate(lineRateBps),
      m_onRate(onRate),
      m_rate(lineRateBps),
      m_target(lineRateBps),
      m_alpha(config->initialAlpha)
{
}

RdmaDcqcn::~RdmaDcqcn()
{
    Stop();
}

void
RdmaDcqcn::Stop()
{
    m_decreaseEvent.Cancel();
    m_increaseEvent.Cancel();
}

void
RdmaDcqcn::UpdateAlpha()
{
    if (!m_seenCnp)
    {
        return;
    }
    Time now = Simulator::Now();
    int64_t period = m_cfg->alphaPeriod.GetTimeStep();
    int64_t elapsed = (now - m_alphaAnchor).GetTimeStep();
    if (period <= 0 || elapsed < period)
    {
        return;
    }
    int64_t n = elapsed / period;
    double keep = 1.0 - m_cfg->g;
    // first elapsed period: include the CNP flag; the others had no CNP
    m_alpha = keep * m_alpha + (m_cnpInAlphaPeriod ? m_cfg->g : 0.0);
    if (n > 1)
    {
        m_alpha *= std::pow(keep, static_cast<double>(n - 1));
    }
    m_cnpInAlphaPeriod = false;
    m_alphaAnchor += TimeStep(n * period);
}

double
RdmaDcqcn::GetAlpha()
{
    UpdateAlpha();
    return m_alpha;
}

void
RdmaDcqcn::ReceiveCnp()
{
    NS_LOG_FUNCTION(this);
    const Time now = Simulator::Now();
    if (!m_seenCnp)
    {
        m_seenCnp = true;
        m_alpha = m_cfg->initialAlpha;
        m_alphaAnchor = now;
        m_cnpInAlphaPeriod = false;
        m_decreaseAnchor = now;
    }
    else
    {
        UpdateAlpha();
        m_cnpInAlphaPeriod = true;
    }
    if (m_cfg->periodicDecrease)
    {
        m_cnpInDecreasePeriod = true;
        if (!m_decreaseEvent.IsRunning())
        {
            // the next grid point strictly after now: a CNP at a grid point belongs to the
            // period it opens
            const int64_t period = m_cfg->decreasePeriod.GetTimeStep();
            const int64_t k = (now - m_decreaseAnchor).GetTimeStep() / period + 1;
            m_decreaseEvent = Simulator::Schedule(m_decreaseAnchor + TimeStep(k * period) - now,
                                                  &RdmaDcqcn::DecreaseTimerExpired,
                                                  this);
        }
        return;
    }
    if (m_decreaseEvent.IsRunning())
    {
        m_cnpInDecreasePeriod = true;
        return;
    }
    Decrease();
    m_cnpInDecreasePeriod = false;
    m_decreaseEvent =
        Simulator::Schedule(m_cfg->decreasePeriod, &RdmaDcqcn::DecreaseTimerExpired, this);
}

void
RdmaDcqcn::DecreaseTimerExpired()
{
    if (!m_cnpInDecreasePeriod)
    {
        return; // quiet period: the next CNP decreases at once
    }
    m_cnpInDecreasePeriod = false;
    Decrease();
    if (!m_cfg->periodicDecrease)
    {
        m_decreaseEvent =
            Simulator::Schedule(m_cfg->decreasePeriod, &RdmaDcqcn::DecreaseTimerExpired, this);
    }
}

void
RdmaDcqcn::Decrease()
{
    UpdateAlpha();
    if (m_cfg->clampTargetRate || (m_cfg->clampAfterTimeIncrease && m_timerStage > 0))
    {
        m_target = m_rate;
    }
    double rate = std::max(m_cfg->minRateBps, m_rate * (1.0 - m_alpha / 2.0));
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytes = 0;
    ++m_decreases;
    m_increaseEvent.Cancel();
    m_increaseEvent =
        Simulator::Schedule(m_cfg->increasePeriod, &RdmaDcqcn::IncreaseTimerExpired, this);
    NS_LOG_LOGIC(this << " decrease alpha " << m_alpha << " rate " << m_rate << " -> " << rate
                      << " target " << m_target);
    SetRate(rate);
}

void
RdmaDcqcn::IncreaseTimerExpired()
{
    ++m_timerStage;
    Increase();
    if (m_rate < m_lineRate)
    {
        m_increaseEvent =
            Simulator::Schedule(m_cfg->increasePeriod, &RdmaDcqcn::IncreaseTimerExpired, this);
    }
}

void
RdmaDcqcn::NotifySent(uint64_t bytes)
{
    if (m_cfg->byteCounter == 0 || m_rate >= m_lineRate)
    {
        return;
    }
    m_bytes += bytes;
    while (m_bytes >= m_cfg->byteCounter && m_rate < m_lineRate)
    {
        m_bytes -= m_cfg->byteCounter;
        ++m_byteStage;
        Increase();
    }
}

void
RdmaDcqcn::Increase()
{
    const uint32_t f = m_cfg->fastRecoveryStages;

    enum
    {
        FAST,
        ADDITIVE,
        HYPER
    } phase;

    if (m_cfg->byteCounter == 0)
    {
        if (m_timerStage <= f)
        {
            phase = FAST;
        }
        else if (m_timerStage <= f + m_cfg->additiveStages)
        {
            phase = ADDITIVE;
        }
        else
        {
            phase = HYPER;
        }
    }
    else
    {
        if (std::max(m_timerStage, m_byteStage) <= f)
        {
            phase = FAST;
        }
        else if (std::min(m_timerStage, m_byteStage) > f)
        {
            phase = HYPER;
        }
        else
        {
            phase = ADDITIVE;
        }
    }
    if (phase == ADDITIVE)
    {
        m_target += m_cfg->aiBps;
    }
    else if (phase == HYPER)
    {
        m_target += m_cfg->haiBps;
    }
    m_target = std::min(m_target, m_lineRate);
    double rate = std::min(m_lineRate, (m_rate + m_target) / 2.0);
    NS_LOG_LOGIC(this << " increase T " << m_timerStage << " B " << m_byteStage << " rate "
                      << m_rate << " -> " << rate << " target " << m_target);
    if (m_lineRate - rate < 1.0)
    {
        rate = m_lineRate; // avoid an endless tail of sub-bit/s steps
    }
    SetRate(rate);
    if (m_rate >= m_lineRate)
    {
        m_target = m_lineRate;
        m_increaseEvent.Cancel();
    }
}

void
RdmaDcqcn::SetRate(double rate)
{
    if (rate == m_rate)
    {
        return;
    }
    m_rate = rate;
    if (!m_onRate.IsNull())
    {
        m_onRate(rate);
    }
}

// ---------------------------------------------------------------- RdmaDcqcnControl

NS_OBJECT_ENSURE_REGISTERED(RdmaDcqcnControl);

TypeId
RdmaDcqcnControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaDcqcnControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RdmaDcqcnControl>()
            .AddAttribute("G",
                          "Alpha gain g.",
                          DoubleValue(RdmaDcqcnDefaults::G),
                          MakeDoubleAccessor(&RdmaDcqcnControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha set on the first CNP of a QP.",
                          DoubleValue(RdmaDcqcnDefaults::INITIAL_ALPHA),
                          MakeDoubleAccessor(&RdmaDcqcnControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AlphaUpdatePeriod",
                          "Alpha update period.",
                          TimeValue(NanoSeconds(RdmaDcqcnDefaults::ALPHA_PERIOD_NS)),
                          MakeTimeAccessor(&RdmaDcqcnControl::m_alphaPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateDecreasePeriod",
                          "Minimum time between two rate decreases of a QP.",
                          TimeValue(NanoSeconds(RdmaDcqcnDefaults::DECREASE_PERIOD_NS)),
                          MakeTimeAccessor(&RdmaDcqcnControl::m_decreasePeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreasePeriod",
                          "Rate increase timer.",
                          TimeValue(NanoSeconds(RdmaDcqcnDefaults::INCREASE_PERIOD_NS)),
                          MakeTimeAccessor(&RdmaDcqcnControl::m_increasePeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FastRecoveryStages",
                          "F: increase events in fast recovery after a decrease.",
                          UintegerValue(RdmaDcqcnDefaults::FAST_RECOVERY_STAGES),
                          MakeUintegerAccessor(&RdmaDcqcnControl::m_fastRecoveryStages),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveStages",
                          "Without byte counter: additive increase events before hyper "
                          "increase.",
                          UintegerValue(RdmaDcqcnDefaults::ADDITIVE_STAGES),
                          MakeUintegerAccessor(&RdmaDcqcnControl::m_additiveStages),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "Additive increase step per ReferenceRate of link rate.",
                          DataRateValue(DataRate(RdmaDcqcnDefaults::AI_BPS)),
                          MakeDataRateAccessor(&RdmaDcqcnControl::m_ai),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncrease",
                          "Hyper increase step per ReferenceRate of link rate.",
                          DataRateValue(DataRate(RdmaDcqcnDefaults::HAI_BPS)),
                          MakeDataRateAccessor(&RdmaDcqcnControl::m_hai),
                          MakeDataRateChecker())
            .AddAttribute("ReferenceRate",
                          "Link rate to which AdditiveIncrease and HyperIncrease refer (steps "
                          "are scaled by the queue pair's line rate / ReferenceRate).",
                          DataRateValue(DataRate(RdmaDcqcnDefaults::REFERENCE_BPS)),
                          MakeDataRateAccessor(&RdmaDcqcnControl::m_referenceRate),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Rate floor.",
                          DataRateValue(DataRate(RdmaDcqcnDefaults::MIN_RATE_BPS)),
                          MakeDataRateAccessor(&RdmaDcqcnControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("ByteCounter",
                          "An increase event every this many bytes sent while rate limited "
                          "(0 = off; ConnectX rpg_byte_reset default: 32767 units of 64 bytes).",
                          UintegerValue(RdmaDcqcnDefaults::BYTE_COUNTER),
                          MakeUintegerAccessor(&RdmaDcqcnControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ClampTargetRate",
                          "Every rate decrease sets the target rate to the current rate "
                          "(ConnectX clamp_tgt_rate, default off).",
                          BooleanValue(RdmaDcqcnDefaults::CLAMP_TARGET_RATE),
                          MakeBooleanAccessor(&RdmaDcqcnControl::m_clampTarget),
                          MakeBooleanChecker())
            .AddAttribute("ClampTargetRateAfterTimeIncrease",
                          "A rate decrease sets the target rate to the current rate if the "
                          "increase timer raised the rate since the previous decrease "
                          "(ConnectX clamp_tgt_rate_after_time_inc, default on).",
                          BooleanValue(RdmaDcqcnDefaults::CLAMP_AFTER_TIME_INCREASE),
                          MakeBooleanAccessor(&RdmaDcqcnControl::m_clampAfterTimeInc),
                          MakeBooleanChecker())
            .AddAttribute("WindowRtt",
                          "Limit a QP's payload bytes in flight to rate x this time (the HPCC "
                          "family's HAS_WIN 1 window, whose T is the topology's largest base "
                          "RTT; 0 = no window, ConnectX paces by rate only).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaDcqcnControl::m_windowRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("VariableWindow",
                          "With WindowRtt > 0: the window is the current rate x WindowRtt (the "
                          "family's VAR_WIN 1); false: the line rate x WindowRtt (VAR_WIN 0).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaDcqcnControl::m_variableWindow),
                          MakeBooleanChecker())
            .AddAttribute("CongestionNotification",
                          "How the receiver reports CE-marked packets. cnp: a CNP (BTH opcode "
                          "0x81) in the control class, at most one per ns3::RdmaNic::"
                          "CnpInterval per QP (RoCEv2). ack: no CNP; an ACK whose BECN bit "
                          "echoes a CE mark since the previous ACK is the notification, and "
                          "it queues where ns3::RdmaNic::AckPriority puts ACKs (the HPCC "
                          "family, whose receiver flags the ACK of a marked packet). A sender "
                          "reacts to CNPs in both.",
                          EnumValue(NOTIFY_CNP),
                          MakeEnumAccessor(&RdmaDcqcnControl::m_notification),
                          MakeEnumChecker(NOTIFY_CNP, "cnp", NOTIFY_ACK, "ack"))
            .AddAttribute(
                "RateDecrease",
                "When the rate is cut. immediate: the first notification after a quiet "
                "RateDecreasePeriod cuts at once, later ones within the period make one cut "
                "at its end (ConnectX). periodic: from a QP's first notification on, every "
                "RateDecreasePeriod in which one arrived ends with a cut, the first period "
                "included (the HPCC family).",
                EnumValue(DECREASE_IMMEDIATE),
                MakeEnumAccessor(&RdmaDcqcnControl::m_decreaseTiming),
                MakeEnumChecker(DECREASE_IMMEDIATE, "immediate", DECREASE_PERIODIC, "periodic"));
    return tid;
}

RdmaDcqcnControl::RdmaDcqcnControl()
{
}

RdmaDcqcnControl::RdmaDcqcnControl(const RdmaDcqcnControl& o)
    : RdmaCongestionControl(o),
      m_g(o.m_g),
      m_initialAlpha(o.m_initialAlpha),
      m_alphaPeriod(o.m_alphaPeriod),
      m_decreasePeriod(o.m_decreasePeriod),
      m_increasePeriod(o.m_increasePeriod),
      m_fastRecoveryStages(o.m_fastRecoveryStages),
      m_additiveStages(o.m_additiveStages),
      m_ai(o.m_ai),
      m_hai(o.m_hai),
      m_referenceRate(o.m_referenceRate),
      m_minRate(o.m_minRate),
      m_byteCounter(o.m_byteCounter),
      m_clampTarget(o.m_clampTarget),
      m_clampAfterTimeInc(o.m_clampAfterTimeInc),
      m_windowRtt(o.m_windowRtt),
      m_variableWindow(o.m_variableWindow),
      m_notification(o.m_notification),
      m_decreaseTiming(o.m_decreaseTiming),
      m_pathRttSet(o.m_pathRttSet),
      m_pathRtt(o.m_pathRtt)
{
    NS_ASSERT_MSG(!o.m_started, "only a control never started is copied");
}

RdmaDcqcnControl::~RdmaDcqcnControl()
{
}

Ptr<RdmaCongestionControl>
RdmaDcqcnControl::Fork() const
{
    if (GetInstanceTypeId() != GetTypeId())
    {
        return nullptr;
    }
    return CopyObject<RdmaDcqcnControl>(this);
}

std::string
RdmaDcqcnControl::GetConfigError() const
{
    return RdmaConfigCheck()
        .That(m_referenceRate.GetBitRate() > 0,
              "ns3::RdmaDcqcnControl::ReferenceRate must be > 0 (DCQCN's increase steps are "
              "given per ReferenceRate)")
        .MinRate("ns3::RdmaDcqcnControl::MinRate", m_minRate)
        .GetError();
}

bool
RdmaDcqcnControl::RequestsCnp() const
{
    return m_notification == NOTIFY_CNP;
}

void
RdmaDcqcnControl::DoStart()
{
    const double lineRate = GetLineRate();
    const double scale = lineRate / static_cast<double>(m_referenceRate.GetBitRate());
    RdmaDcqcnConfig& c = m_config;
    c.g = m_g;
    c.initialAlpha = m_initialAlpha;
    c.alphaPeriod = m_alphaPeriod;
    c.decreasePeriod = m_decreasePeriod;
    c.increasePeriod = m_increasePeriod;
    c.fastRecoveryStages = m_fastRecoveryStages;
    c.additiveStages = m_additiveStages;
    c.aiBps = static_cast<double>(m_ai.GetBitRate()) * scale;
    c.haiBps = static_cast<double>(m_hai.GetBitRate()) * scale;
    c.minRateBps = std::min(static_cast<double>(m_minRate.GetBitRate()), lineRate);
    c.byteCounter = m_byteCounter;
    c.clampTargetRate = m_clampTarget;
    c.clampAfterTimeIncrease = m_clampAfterTimeInc;
    // the path's base RTT replaces the window RTT only where a window is on
    c.windowRtt = m_pathRttSet && m_windowRtt.IsStrictlyPositive() ? m_pathRtt : m_windowRtt;
    c.variableWindow = m_variableWindow;
    c.periodicDecrease = m_decreaseTiming == DECREASE_PERIODIC;
    c.notifyByAck = m_notification == NOTIFY_ACK;
    m_started = true;
    Rate(GetRate());
}

RdmaDcqcn&
RdmaDcqcnControl::StateMachine()
{
    // built at the first congestion notification: until then the machine would sit at line
    // rate with no timer (NotifySent counts nothing at line rate; alpha is the initial one),
    // and most QPs of a large system never see a CNP
    if (!m_dcqcn)
    {
        m_dcqcn = std::make_unique<RdmaDcqcn>(&m_config,
                                              GetLineRate(),
                                              MakeCallback(&RdmaDcqcnControl::Rate, this));
    }
    return *m_dcqcn;
}

void
RdmaDcqcnControl::Rate(double bps)
{
    SetRate(bps);
    SetWindowFromRtt(m_config.windowRtt, m_config.variableWindow);
}

void
RdmaDcqcnControl::SetPathBaseRtt(Time rtt)
{
    m_pathRttSet = true;
    m_pathRtt = rtt;
}

void
RdmaDcqcnControl::DoOnSent(uint64_t psn, uint32_t payloadBytes)
{
    if (m_dcqcn)
    {
        m_dcqcn->NotifySent(payloadBytes);
    }
}

void
RdmaDcqcnControl::DoOnCnp()
{
    StateMachine().ReceiveCnp();
}

void
RdmaDcqcnControl::DoOnAck(const RdmaCcFeedback& fb)
{
    if (m_config.notifyByAck && fb.ecnEcho)
    {
        StateMachine().ReceiveCnp();
    }
}

double
RdmaDcqcnControl::GetAlpha()
{
    if (m_dcqcn)
    {
        return m_dcqcn->GetAlpha();
    }
    return m_started ? m_config.initialAlpha : 0.0;
}

void
RdmaDcqcnControl::Stop()
{
    if (m_dcqcn)
    {
        m_dcqcn->Stop();
    }
}

} // namespace ns3
