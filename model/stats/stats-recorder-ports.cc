/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StatsRecorder's ports: which are sampled (attribute PortSampling) and their rows.
 */
#include "stats-recorder.h"

#include "ns3/log.h"
#include "ns3/port-counters.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StatsRecorderPorts");

PortSamplingMode
StatsRecorder::GetPortSamplingMode() const
{
    return m_portMode;
}

void
StatsRecorder::SetPortSampling(std::string text)
{
    std::string why;
    PortSamplingMode::Parse(text, &m_portMode, &why); // the checker let only modes in
}

std::string
StatsRecorder::GetPortSampling() const
{
    return GetPortSamplingMode().ToString();
}

void
StatsRecorder::SetPortTopology(const tn_topology* topo)
{
    if (GetPortSamplingMode().kind != PortSamplingMode::PER_DIMENSION)
    {
        return;
    }
    std::vector<bool> npu(tn_topology_node_count(topo));
    for (uint32_t v = 0; v < npu.size(); ++v)
    {
        npu[v] = tn_topology_node_kind(topo, v) == TN_NODE_NPU;
    }
    const std::vector<std::pair<uint32_t, uint32_t>> ports =
        PerDimensionPorts(PortSamplingLinks(topo), npu);
    m_chosenPorts = std::set<std::pair<uint32_t, uint32_t>>(ports.begin(), ports.end());
    m_chosenKnown = true;
    m_linkRows.clear();
    m_npuNodes.clear();
}

void
StatsRecorder::ChoosePortsFromRows()
{
    uint32_t nodes = 0;
    for (const PortSamplingLink& l : m_linkRows)
    {
        nodes = std::max({nodes, l.node + 1, l.peer + 1});
    }
    for (uint32_t v : m_npuNodes)
    {
        nodes = std::max(nodes, v + 1);
    }
    std::vector<bool> npu(nodes, false);
    for (uint32_t v : m_npuNodes)
    {
        npu[v] = true;
    }
    const std::vector<std::pair<uint32_t, uint32_t>> ports = PerDimensionPorts(m_linkRows, npu);
    m_chosenPorts = std::set<std::pair<uint32_t, uint32_t>>(ports.begin(), ports.end());
    m_chosenKnown = true;
    m_linkRows = std::vector<PortSamplingLink>();
    m_npuNodes.clear();
    for (PortState& s : m_ports)
    {
        s.sampled = m_chosenPorts.count({s.node, s.port}) > 0;
    }
}

void
StatsRecorder::AddPorts(uint32_t node, Ptr<Object> owner, const PortCounters* counters)
{
    const bool perDimension = GetPortSamplingMode().kind == PortSamplingMode::PER_DIMENSION;
    for (uint32_t p = 0; p < counters->GetNCounterPorts(); ++p)
    {
        // a port the rule chose is sampled even when its counters copy another's: its class
        // has no other port sampled
        const bool chosen = perDimension && m_chosenPorts.count({node, p}) > 0;
        if (!m_recordPortCopies && !chosen && counters->IsPortCopy(p))
        {
            continue; // its samples would repeat another port's: 64k NPUs, 1 GiB of them
        }
        PortState s;
        s.owner = owner;
        s.counters = counters;
        s.node = node;
        s.port = p;
        // the others stay for the last data time (a stall is judged on every port)
        s.sampled = !perDimension || !m_chosenKnown || chosen;
        m_ports.push_back(s);
    }
    m_portsOfNode[node] += counters->GetNCounterPorts();
}

bool
StatsRecorder::WritePortRow(uint32_t index, const tn_db_port_sample& row)
{
    if (m_failed)
    {
        return false;
    }
    const PortSamplingMode mode = GetPortSamplingMode();
    if (mode.kind == PortSamplingMode::BUSIEST)
    {
        std::string why;
        if (!m_spill.Add(index, row, &why))
        {
            m_failed = true;
            m_error = why;
            NS_LOG_WARN(m_error << "; stopping the simulation");
            Simulator::Stop();
            return false;
        }
        return true;
    }
    ++m_samples;
    tn_error err{};
    return Check(tn_db_add_port_sample(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::WriteBusiest()
{
    const PortSamplingMode mode = GetPortSamplingMode();
    if (m_busiestWritten || mode.kind != PortSamplingMode::BUSIEST || !m_db || m_runId < 0)
    {
        return;
    }
    m_busiestWritten = true;
    std::vector<std::pair<uint32_t, uint32_t>> keys(m_ports.size());
    for (std::size_t i = 0; i < m_ports.size(); ++i)
    {
        keys[i] = {m_ports[i].node, m_ports[i].port};
    }
    const std::vector<bool> chosen = m_spill.Busiest(mode.busiest, keys);
    if (m_failed)
    {
        return; // the database failed: nothing more is written
    }
    std::string why;
    tn_error err{};
    const bool ok = m_spill.Replay(
        chosen,
        [this, &err, &why](const tn_db_port_sample& row) {
            if (tn_db_add_port_sample(m_db, m_runId, &row, &err) != TN_OK)
            {
                why = err.message;
                return false;
            }
            ++m_samples;
            return true;
        },
        &why);
    if (!ok)
    {
        m_failed = true;
        m_error = why;
    }
}

void
StatsRecorder::UnwatchPorts()
{
    for (PortWatch& w : m_portWatches)
    {
        w.source->UnwatchPorts(w.watcher);
    }
    m_portWatches.clear();
}

void
StatsRecorder::WatchPorts()
{
    UnwatchPorts();
    m_unwatchedPorts.clear();
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> keyed; // (key, entry) per watch
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        const PortState& s = m_ports[i];
        if (!s.sampled)
        {
            continue;
        }
        uint32_t key = 0;
        PortActivity* source = s.counters->GetPortActivity(s.port, &key);
        if (!source)
        {
            m_unwatchedPorts.push_back(i);
            continue;
        }
        std::size_t w = 0;
        while (w < m_portWatches.size() && m_portWatches[w].source != source)
        {
            ++w;
        }
        if (w == m_portWatches.size())
        {
            m_portWatches.emplace_back();
            m_portWatches.back().source = source;
            keyed.emplace_back();
        }
        keyed[w].emplace_back(key, i);
    }
    for (std::size_t w = 0; w < m_portWatches.size(); ++w)
    {
        PortWatch& watch = m_portWatches[w];
        std::sort(keyed[w].begin(), keyed[w].end());
        watch.first.assign(keyed[w].back().first + 2, 0);
        for (const auto& k : keyed[w])
        {
            ++watch.first[k.first + 1];
            watch.ports.push_back(k.second);
        }
        for (std::size_t k = 1; k < watch.first.size(); ++k)
        {
            watch.first[k] += watch.first[k - 1];
        }
        watch.watcher = watch.source->WatchPorts();
    }
    m_watchedUpTo = m_ports.size();
    m_portsWatched = true;
    // what moved before the watch began is not known: the first sample reads every port
    m_fullScan = true;
}

void
StatsRecorder::MarkMovedPorts()
{
    m_visit.resize((m_ports.size() + 63) / 64, 0);
    auto mark = [this](uint32_t i) { m_visit[i / 64] |= uint64_t(1) << (i % 64); };
    for (PortWatch& w : m_portWatches)
    {
        w.source->TakeMovedPorts(w.watcher, &m_movedKeys);
        for (uint32_t key : m_movedKeys)
        {
            if (key + 1 >= w.first.size())
            {
                continue; // no sampled port follows it
            }
            for (uint32_t j = w.first[key]; j < w.first[key + 1]; ++j)
            {
                mark(w.ports[j]);
            }
        }
    }
    for (uint32_t i : m_unwatchedPorts)
    {
        mark(i);
    }
    for (std::size_t i = m_watchedUpTo; i < m_ports.size(); ++i)
    {
        mark(static_cast<uint32_t>(i)); // added after the watch began
    }
}

void
StatsRecorder::Sample(bool last)
{
    const Time now = Simulator::Now();
    const int64_t nowNs = now.GetNanoSeconds();
    const int64_t previousNs = m_lastSample.GetNanoSeconds();
    if (nowNs < previousNs || (nowNs == previousNs && !last))
    {
        return;
    }
    m_lastSample = now;
    if (m_portsWatched)
    {
        // a port no watch lists has the counters of the last sample: idle, no row (the
        // last sample writes idle stretches too, so it reads every port)
        MarkMovedPorts();
        if (!last && !m_fullScan)
        {
            for (std::size_t w = 0; w < m_visit.size(); ++w)
            {
                uint64_t bits = m_visit[w];
                m_visit[w] = 0;
                while (bits)
                {
                    const uint32_t i = uint32_t(w * 64) + uint32_t(__builtin_ctzll(bits));
                    bits &= bits - 1;
                    if (!SamplePort(i, nowNs, previousNs, last))
                    {
                        std::fill(m_visit.begin(), m_visit.end(), 0);
                        return;
                    }
                }
            }
            return;
        }
        std::fill(m_visit.begin(), m_visit.end(), 0);
        m_fullScan = false;
    }
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (!SamplePort(i, nowNs, previousNs, last))
        {
            return;
        }
    }
}

bool
StatsRecorder::SamplePort(uint32_t i, int64_t nowNs, int64_t previousNs, bool last)
{
    PortState& s = m_ports[i];
    if (!s.sampled || s.writtenNs >= nowNs)
    {
        return true; // written at this instant already
    }
    tn_db_port_sample row{};
    row.time_ns = nowNs;
    row.node = s.node;
    row.port = s.port;
    PortCounterValues c;
    s.counters->ReadPortCounters(s.port, &c);
    ++m_portReads;
    const uint64_t tx = c.txBytes;
    const uint64_t packets = c.txPackets;
    row.tx_bytes = tx - s.txBytes;
    row.tx_packets = packets - s.txPackets;
    uint64_t queued = 0;
    static_assert(PortCounterValues::QUEUES == TN_DB_PRIORITIES + 1, "one column per queue");
    for (uint8_t q = 0; q <= TN_DB_PRIORITIES; ++q)
    {
        row.queue_bytes[q] = c.queueBytes[q];
        queued += row.queue_bytes[q];
    }
    const int64_t paused = c.pausedNs;
    row.paused_ns = paused - s.pausedNs;
    const uint64_t marks = c.ecnMarks;
    const uint64_t drops = c.drops;
    row.ecn_marks = marks - s.ecnMarks;
    row.drops = drops - s.drops;
    const int64_t busy = c.busyNs - s.busyNs;
    const bool idle = busy == 0 && queued == 0 && row.paused_ns == 0 && row.ecn_marks == 0 &&
                      row.drops == 0 && c.pausedMask == 0;
    if (idle && !last)
    {
        return true; // an idle stretch is written as one row when it ends
    }
    if (!idle && s.writtenNs < previousNs && previousNs < nowNs)
    {
        // the idle stretch before this interval, as one row (no gap, no activity)
        tn_db_port_sample quiet{};
        quiet.time_ns = previousNs;
        quiet.interval_ns = previousNs - s.writtenNs;
        quiet.node = s.node;
        quiet.port = s.port;
        if (!WritePortRow(i, quiet))
        {
            return false;
        }
        s.writtenNs = previousNs;
    }
    row.interval_ns = nowNs - s.writtenNs;
    // the wire bits sent inside the interval (a frame split at the sampling instants), as
    // the time the transmitter was busy in it: at most 1 (frames counted whole: 1.02)
    row.utilisation = row.interval_ns > 0 ? double(busy) / double(row.interval_ns) : 0;
    s.txBytes = tx;
    s.txPackets = packets;
    s.busyNs = c.busyNs;
    s.pausedNs = paused;
    s.ecnMarks = marks;
    s.drops = drops;
    s.writtenNs = nowNs;
    return WritePortRow(i, row);
}

} // namespace ns3
