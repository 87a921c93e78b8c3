/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cc-probe.h"

#include "stats-recorder.h"

#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCcProbe);

TypeId
RdmaCcProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

RdmaCcProbe::RdmaCcProbe(StatsRecorder* recorder, Ptr<RdmaNic> nic, uint32_t node)
    : StatsProbe(recorder),
      m_nic(nic),
      m_node(node),
      m_control(nic->GetCongestionControlName())
{
}

Ptr<RdmaCcProbe>
RdmaCcProbe::Attach(StatsRecorder* recorder, Ptr<Node> node, uint32_t topoId)
{
    Ptr<RdmaNic> nic = node->GetObject<RdmaNic>();
    if (!nic || !recorder->RecordsCcEvents())
    {
        return nullptr;
    }
    Ptr<RdmaCcProbe> probe = CreateObject<RdmaCcProbe>(recorder, nic, topoId);
    nic->TraceConnectWithoutContext("CnpSent", MakeCallback(&RdmaCcProbe::CnpSent, probe));
    nic->TraceConnectWithoutContext("CnpReceived", MakeCallback(&RdmaCcProbe::CnpReceived, probe));
    nic->TraceConnectWithoutContext("CeReceived", MakeCallback(&RdmaCcProbe::CeReceived, probe));
    nic->TraceConnectWithoutContext("EcnEcho", MakeCallback(&RdmaCcProbe::EcnEcho, probe));
    nic->TraceConnectWithoutContext("RateChange", MakeCallback(&RdmaCcProbe::RateChange, probe));
    nic->TraceConnectWithoutContext("WindowChange",
                                    MakeCallback(&RdmaCcProbe::WindowChange, probe));
    return probe;
}

void
RdmaCcProbe::DoDispose()
{
    m_nic = nullptr;
    m_qps.clear();
    StatsProbe::DoDispose();
}

tn_db_cc_counts
RdmaCcProbe::Counts::ToRow() const
{
    return {cnpsSent,
            cnpsReceived,
            ceReceived,
            ecnEchoes,
            rateCuts,
            rateRaises,
            windowUpdates,
            minRate};
}

bool
RdmaCcProbe::Counts::IsEmpty() const
{
    return cnpsSent == 0 && cnpsReceived == 0 && ceReceived == 0 && ecnEchoes == 0 &&
           rateCuts == 0 && rateRaises == 0 && windowUpdates == 0;
}

RdmaCcProbe::Qp&
RdmaCcProbe::Find(uint32_t qpn)
{
    auto it = m_qps.find(qpn);
    if (it != m_qps.end())
    {
        return it->second;
    }
    Qp& q = m_qps[qpn];
    // the NIC lists a queue pair before its control starts, so even the start's events find it
    Ptr<RdmaQueuePair> qp = m_nic ? m_nic->GetQueuePairByQpn(qpn) : nullptr;
    if (qp)
    {
        q.peer = qp->GetPeer();
        q.priority = qp->GetPriority();
        q.lane = qp->GetLane();
        q.lineRate = qp->GetLineRate();
    }
    return q;
}

void
RdmaCcProbe::CnpSent(uint32_t qpn)
{
    ++m_interval.cnpsSent;
    ++Find(qpn).total.cnpsSent;
}

void
RdmaCcProbe::CnpReceived(uint32_t qpn)
{
    ++m_interval.cnpsReceived;
    ++Find(qpn).total.cnpsReceived;
}

void
RdmaCcProbe::CeReceived(uint32_t qpn)
{
    ++m_interval.ceReceived;
    ++Find(qpn).total.ceReceived;
}

void
RdmaCcProbe::EcnEcho(uint32_t qpn)
{
    ++m_interval.ecnEchoes;
    ++Find(qpn).total.ecnEchoes;
}

void
RdmaCcProbe::RateChange(uint32_t qpn, double bps)
{
    Qp& q = Find(qpn);
    // the trace gives the new rate only: a cut or a raise is against the one before (the
    // line rate, where every control starts)
    const double before = q.rate >= 0 ? q.rate : q.lineRate;
    uint64_t Counts::*kind = bps < before ? &Counts::rateCuts : &Counts::rateRaises;
    ++(m_interval.*kind);
    ++(q.total.*kind);
    q.rate = bps;
    for (Counts* c : {&m_interval, &q.total})
    {
        c->minRate = c->minRate < 0 ? bps : std::min(c->minRate, bps);
    }
}

void
RdmaCcProbe::WindowChange(uint32_t qpn, uint64_t bytes)
{
    Qp& q = Find(qpn);
    ++m_interval.windowUpdates;
    ++q.total.windowUpdates;
    q.window = static_cast<int64_t>(bytes);
}

void
RdmaCcProbe::WriteInterval(int64_t startNs, int64_t endNs)
{
    if (m_interval.IsEmpty())
    {
        return;
    }
    tn_db_cc_sample row{};
    row.time_ns = endNs;
    row.interval_ns = endNs - startNs;
    row.node = m_node;
    row.counts = m_interval.ToRow();
    m_recorder->Add(&tn_db_add_cc_sample, row);
    m_interval = Counts();
}

void
RdmaCcProbe::Sample(int64_t startNs, int64_t endNs)
{
    WriteInterval(startNs, endNs);
}

void
RdmaCcProbe::WriteSummary(int64_t startNs, int64_t endNs)
{
    WriteInterval(startNs, endNs);
    for (const auto& [qpn, q] : m_qps)
    {
        tn_db_cc_qp row{};
        row.node = m_node;
        row.qpn = qpn;
        row.peer_node = q.peer;
        row.priority = q.priority;
        row.lane = q.lane;
        row.control = m_control.c_str();
        row.line_rate_bps = static_cast<uint64_t>(q.lineRate);
        row.counts = q.total.ToRow();
        row.final_rate_bps = q.rate;
        row.final_window_bytes = q.window;
        m_recorder->Add(&tn_db_add_cc_qp, row);
    }
    m_qps.clear(); // written once
    m_nic = nullptr;
}

} // namespace ns3
