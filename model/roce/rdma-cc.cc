/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCongestionControl")
                            .SetParent<Object>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RdmaCongestionControl>();
    return tid;
}

RdmaCongestionControl::RdmaCongestionControl()
{
}

RdmaCongestionControl::~RdmaCongestionControl()
{
}

void
RdmaCongestionControl::Start(double lineRateBps, uint32_t mtu, Listener* listener)
{
    m_lineRate = lineRateBps;
    m_rate = lineRateBps;
    m_mtu = mtu;
    m_window = 0;
    m_listener = listener;
    DoStart();
}

RoceIntHeader::Mode
RdmaCongestionControl::GetTelemetry() const
{
    return RoceIntHeader::NONE;
}

void
RdmaCongestionControl::FillTelemetry(RoceIntHeader& h) const
{
}

double
RdmaCongestionControl::GetAlpha()
{
    return 0.0;
}

std::string
RdmaCongestionControl::GetConfigError() const
{
    return "";
}

int64_t
RdmaCongestionControl::AssignStreams(int64_t /* stream */)
{
    return 0;
}

Ptr<RdmaCongestionControl>
RdmaCongestionControl::Fork() const
{
    return nullptr;
}

RdmaConfigCheck&
RdmaConfigCheck::That(bool holds, const std::string& message)
{
    if (m_error.empty() && !holds)
    {
        m_error = message;
    }
    return *this;
}

RdmaConfigCheck&
RdmaConfigCheck::UnitInterval(const std::string& attribute, double value)
{
    if (m_error.empty() && !(value > 0.0 && value <= 1.0))
    {
        m_error = attribute + " must be in (0, 1], not " + std::to_string(value);
    }
    return *this;
}

RdmaConfigCheck&
RdmaConfigCheck::Positive(const std::string& attribute, Time value)
{
    return That(value.IsStrictlyPositive(), attribute + " must be > 0");
}

RdmaConfigCheck&
RdmaConfigCheck::MinRate(const std::string& attribute, DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        return That(false, attribute + " must be > 0 (a queue pair at rate 0 never sends again)");
    }
    return That(rate.GetBitRate() >= MIN_RATE_FLOOR_BPS,
                attribute + " " + std::to_string(rate.GetBitRate()) +
                    "bps is below the lowest floor a queue pair takes (at least " +
                    std::to_string(MIN_RATE_FLOOR_BPS) +
                    "bps, 1Mbps: a queue pair at its floor waits MTU x 8 / MinRate per frame, "
                    "so a lower floor only makes the run last simulated hours)");
}

const std::string&
RdmaConfigCheck::GetError() const
{
    return m_error;
}

void
RdmaCongestionControl::Stop()
{
}

bool
RdmaCongestionControl::RequestsCnp() const
{
    return false;
}

void
RdmaCongestionControl::DoStart()
{
}

void
RdmaCongestionControl::DoOnSent(uint64_t psn, uint32_t payloadBytes)
{
}

void
RdmaCongestionControl::DoOnAck(const RdmaCcFeedback& fb)
{
}

void
RdmaCongestionControl::DoOnCnp()
{
}

void
RdmaCongestionControl::DoOnNack(uint64_t psn)
{
}

void
RdmaCongestionControl::SetPathBaseRtt(Time rtt)
{
}

void
RdmaCongestionControl::SetWindowFromRtt(Time rtt, bool variable)
{
    if (rtt.IsStrictlyPositive() && m_pathBdp > 0)
    {
        // a path slower than the line rate: the family's window is that path's BDP, and
        // with VAR_WIN 1 the BDP x rate / line rate (its m_win x m_rate / m_max_rate)
        const double bdp = static_cast<double>(m_pathBdp);
        const double bytes = variable ? bdp * m_rate / m_lineRate : bdp;
        SetWindow(std::max<uint64_t>(1, static_cast<uint64_t>(bytes)));
    }
    else if (rtt.IsStrictlyPositive())
    {
        // in ns, as the family's rtt x bw / 1e9 / 8: exact where that is an integer (52000
        // bytes for 4160 ns at 100 Gb/s, where seconds would give 51999)
        const double rate = variable ? m_rate : m_lineRate;
        const double bytes = rate * static_cast<double>(rtt.GetNanoSeconds()) / 8e9;
        SetWindow(std::max<uint64_t>(1, static_cast<uint64_t>(bytes)));
    }
}

void
RdmaCongestionControl::SetWindow(uint64_t bytes)
{
    if (bytes == m_window)
    {
        return;
    }
    m_window = bytes;
    if (m_listener)
    {
        m_listener->WindowChanged(bytes);
    }
}

void
RdmaCongestionControl::SetRate(double bps)
{
    bps = std::min(bps, m_lineRate);
    if (bps == m_rate)
    {
        return;
    }
    m_rate = bps;
    if (m_listener)
    {
        m_listener->RateChanged(bps);
    }
}

} // namespace ns3
