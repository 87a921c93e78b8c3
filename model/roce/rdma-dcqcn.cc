/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-dcqcn.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

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

} // namespace ns3
