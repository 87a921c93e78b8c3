/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-output.h"

#include "ns3/callback.h"
#include "ns3/roce-header.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <cinttypes>
#include <unordered_map>

namespace ns3
{

RoceHpccOutput::RoceHpccOutput(const std::vector<tn_hpcc_flow>& flows,
                               const std::vector<uint64_t>& idealNs)
    : m_flows(flows),
      m_idealNs(idealNs)
{
}

RoceHpccOutput::~RoceHpccOutput()
{
    std::string ignored;
    Close(&ignored);
}

bool
RoceHpccOutput::Open(const std::string& fctPath, const std::string& pfcPath, std::string* error)
{
    m_fctPath = fctPath;
    m_pfcPath = pfcPath;
    m_fct = std::fopen(fctPath.c_str(), "w");
    if (!m_fct)
    {
        *error = fctPath + ": cannot open for writing";
        return false;
    }
    if (!pfcPath.empty())
    {
        m_pfc = std::fopen(pfcPath.c_str(), "w");
        if (!m_pfc)
        {
            *error = pfcPath + ": cannot open for writing";
            std::fclose(m_fct);
            m_fct = nullptr;
            return false;
        }
    }
    return true;
}

void
RoceHpccOutput::ConnectPfc(const NodeContainer& nodes)
{
    for (uint32_t v = 0; m_pfc && v < nodes.GetN(); ++v)
    {
        Ptr<RoceSwitch> sw = nodes.Get(v)->GetObject<RoceSwitch>();
        sw->TraceConnectWithoutContext("PfcPause",
                                       MakeBoundCallback(&RoceHpccOutput::Pfc, this, true, v));
        sw->TraceConnectWithoutContext("PfcResume",
                                       MakeBoundCallback(&RoceHpccOutput::Pfc, this, false, v));
    }
}

void
RoceHpccOutput::FlowStart(uint64_t, const RdmaWriteRequest&)
{
    if (!m_started)
    {
        m_started = true;
        m_firstStart = Simulator::Now();
    }
}

void
RoceHpccOutput::FlowEnd(uint64_t i, const RdmaMessageRecord& rec)
{
    if (rec.status != RdmaMessageRecord::SUCCESS)
    {
        ++m_failed; // it has no completion time
        StopWhenAllEnded();
        return;
    }
    const tn_hpcc_flow& f = m_flows[i];
    const uint64_t fctNs = static_cast<uint64_t>((rec.end - rec.start).GetNanoSeconds());
    const uint64_t ideal = m_idealNs[i];
    std::fprintf(m_fct,
                 "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                 RoceAddress::FromNodeId(f.src).Get(),
                 RoceAddress::FromNodeId(f.dst).Get(),
                 static_cast<unsigned>(rec.udpSourcePort),
                 static_cast<unsigned>(f.dport),
                 f.bytes,
                 static_cast<uint64_t>(rec.start.GetNanoSeconds()), // the family's q->startTime
                 fctNs,
                 ideal);
    if (fctNs < ideal)
    {
        ++m_belowIdeal;
    }
    m_lastEnd = Simulator::Now();
    ++m_finished;
    StopWhenAllEnded();
}

void
RoceHpccOutput::StopWhenAllEnded()
{
    if (m_finished + m_failed == m_flows.size())
    {
        Simulator::Stop();
    }
}

void
RoceHpccOutput::Pfc(RoceHpccOutput* output,
                    bool pause,
                    uint32_t node,
                    uint32_t port,
                    uint8_t priority,
                    bool sent)
{
    std::fprintf(output->m_pfc,
                 "%" PRIu64 " %u %u %u %s %s\n",
                 static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()),
                 node,
                 port,
                 static_cast<unsigned>(priority),
                 pause ? "pause" : "resume",
                 sent ? "sent" : "received");
    ++output->m_pfcEvents;
}

bool
RoceHpccOutput::Close(std::string* error)
{
    bool fctOk = true;
    if (m_fct)
    {
        fctOk = !std::ferror(m_fct);
        fctOk = std::fclose(m_fct) == 0 && fctOk;
        m_fct = nullptr;
    }
    bool pfcOk = true;
    if (m_pfc)
    {
        pfcOk = !std::ferror(m_pfc);
        pfcOk = std::fclose(m_pfc) == 0 && pfcOk;
        m_pfc = nullptr;
    }
    if (!fctOk || !pfcOk)
    {
        *error = (fctOk ? m_pfcPath : m_fctPath) + ": writing failed";
        return false;
    }
    return true;
}

uint64_t
RoceHpccOutput::GetFinished() const
{
    return m_finished;
}

uint64_t
RoceHpccOutput::GetFailed() const
{
    return m_failed;
}

uint64_t
RoceHpccOutput::GetFctBelowIdeal() const
{
    return m_belowIdeal;
}

uint64_t
RoceHpccOutput::GetPfcEvents() const
{
    return m_pfcEvents;
}

Time
RoceHpccOutput::GetSpan() const
{
    if (!m_started)
    {
        return Time(0);
    }
    const Time end = m_finished == m_flows.size() ? m_lastEnd : Simulator::Now();
    return end - m_firstStart;
}

RoceBusiestLink
RoceBusiestLink::Find(const NodeContainer& nodes, const NetDeviceContainer& devices, Time span)
{
    RoceBusiestLink busiest;
    std::unordered_map<const Node*, uint32_t> nodeId;
    for (uint32_t v = 0; v < nodes.GetN(); ++v)
    {
        nodeId[PeekPointer(nodes.Get(v))] = v;
    }
    const double seconds = span.GetSeconds();
    for (uint32_t i = 0; seconds > 0 && i < devices.GetN(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(devices.Get(i));
        const double bits = 8.0 * double(dev->GetTxWireBytes());
        const double u = bits / double(dev->GetDataRate().GetBitRate()) / seconds;
        if (u > busiest.utilisation)
        {
            busiest.utilisation = u;
            busiest.src = nodeId[PeekPointer(dev->GetNode())];
            busiest.port = dev->GetPortIndex();
            busiest.dst = nodeId[PeekPointer(dev->GetPeer()->GetNode())];
        }
    }
    return busiest;
}

} // namespace ns3
