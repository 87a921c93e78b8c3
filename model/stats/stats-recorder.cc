/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "stats-recorder.h"

#include "ns3/boolean.h"
#include "ns3/collective-executor.h"
#include "ns3/collective.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-map.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-item.h"
#include "ns3/queue.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-version.h"
#include "ns3/training-job.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StatsRecorder");

NS_OBJECT_ENSURE_REGISTERED(StatsRecorder);

TypeId
StatsRecorder::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::StatsRecorder")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<StatsRecorder>()
            .AddAttribute("SampleInterval",
                          "Time between two samples of every port (table port_sample).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&StatsRecorder::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("PortSamples",
                          "Record port samples.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordPorts),
                          MakeBooleanChecker())
            .AddAttribute("Flows",
                          "Record one row per RDMA message (table flow).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordFlows),
                          MakeBooleanChecker())
            .AddAttribute("Transfers",
                          "Record one row per executed collective transfer (table transfer).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordTransfers),
                          MakeBooleanChecker())
            .AddAttribute("PfcEvents",
                          "Record PFC PAUSE / RESUME events (table pfc_event).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordPfc),
                          MakeBooleanChecker())
            .AddAttribute("Drops",
                          "Record dropped packets (table drop_event).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordDrops),
                          MakeBooleanChecker())
            .AddAttribute("CatchSignals",
                          "On SIGINT / SIGTERM stop the simulation at the next sample and "
                          "finish the run as 'aborted' (a second signal kills).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_catchSignals),
                          MakeBooleanChecker())
            .AddAttribute("BatchRows",
                          "Rows written per database transaction.",
                          UintegerValue(TN_DB_DEFAULT_BATCH_ROWS),
                          MakeUintegerAccessor(&StatsRecorder::m_batchRows),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("WriterThread",
                          "Write full batches on a thread of their own, so that SQLite's work "
                          "leaves the simulation's thread (tn_db_set_writer_thread). The rows "
                          "and their order are the same either way.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_writerThread),
                          MakeBooleanChecker());
    return tid;
}

StatsRecorder::StatsRecorder()
{
    NS_LOG_FUNCTION(this);
}

StatsRecorder::~StatsRecorder()
{
    if (m_ownDb)
    {
        tn_db_close(m_db);
    }
}

void
StatsRecorder::DoDispose()
{
    m_tick.Cancel();
    if (m_watching)
    {
        tn_db_signal_unwatch();
        m_watching = false;
    }
    m_ports.clear();
    m_collectives.clear();
    m_scheduled.clear();
    Object::DoDispose();
}

bool
StatsRecorder::Open(const std::string& path, std::string* error)
{
    NS_ASSERT_MSG(!m_db, "StatsRecorder: a database is already set");
    tn_error err{};
    if (tn_db_open(path.c_str(), &m_db, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    m_ownDb = true;
    return true;
}

void
StatsRecorder::SetDatabase(tn_db* db)
{
    NS_ASSERT_MSG(!m_db, "StatsRecorder: a database is already set");
    m_db = db;
    m_ownDb = false;
}

bool
StatsRecorder::BeginRun(const std::string& name, const std::string& paramsJson, std::string* error)
{
    NS_ASSERT_MSG(m_db, "StatsRecorder: Open or SetDatabase first");
    tn_db_set_batch_rows(m_db, m_batchRows);
    tn_db_set_writer_thread(m_db, m_writerThread);
    tn_run_info info{name.c_str(),
                     paramsJson.c_str(),
                     RngSeedManager::GetSeed(),
                     RngSeedManager::GetRun(),
                     TN_NS3_VERSION,
                     TN_VERSION};
    tn_error err{};
    if (tn_db_run_begin(m_db, &info, &m_runId, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    m_wallStart = std::chrono::steady_clock::now();
    return true;
}

bool
StatsRecorder::Check(tn_status status, const tn_error& err)
{
    if (status == TN_OK)
    {
        return true;
    }
    if (!m_failed)
    {
        m_failed = true;
        m_error = err.message;
        NS_LOG_WARN("results database: " << m_error << "; stopping the simulation");
        Simulator::Stop();
    }
    return false;
}

void
StatsRecorder::AddNode(Ptr<Node> node, uint32_t topoId, int64_t rank)
{
    NS_ASSERT_MSG(m_runId >= 0, "StatsRecorder: BeginRun first");
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    Ptr<RdmaTransport> nic = node->GetObject<RdmaTransport>();
    // a node of an ns-3 study (internet stack, point-to-point devices) has no RoceSwitch;
    // at flow level the ports are the out-links of the fluid network
    uint32_t ports = 0;
    if (sw)
    {
        ports = sw->GetNPorts();
    }
    else if (m_fluid)
    {
        ports = AddFlowPorts(topoId);
    }
    else
    {
        ports = AddPointToPointPorts(node, topoId);
    }
    tn_db_node row{topoId, nic ? "npu" : (sw || m_fluid ? "switch" : "node"), rank, ports};
    tn_error err{};
    if (!m_failed)
    {
        Check(tn_db_add_node(m_db, m_runId, &row, &err), err);
    }
    if (sw)
    {
        for (uint32_t p = 0; p < ports; ++p)
        {
            PortState s;
            s.dev = sw->GetPort(p);
            s.sw = sw;
            s.node = topoId;
            s.port = p;
            s.rateBps = s.dev->GetDataRate().GetBitRate();
            m_ports.push_back(s);
            if (m_recordDrops)
            {
                s.dev->TraceConnectWithoutContext(
                    "Drop",
                    MakeBoundCallback(
                        +[](StatsRecorder* r,
                            uint32_t n,
                            uint32_t port,
                            Ptr<const Packet> packet,
                            const std::string& reason) { r->DeviceDrop(n, port, packet, reason); },
                        this,
                        topoId,
                        p));
            }
        }
        if (m_recordPfc)
        {
            sw->TraceConnectWithoutContext(
                "PfcPause",
                MakeBoundCallback(&StatsRecorder::PfcPauseSink, this, topoId));
            sw->TraceConnectWithoutContext(
                "PfcResume",
                MakeBoundCallback(&StatsRecorder::PfcResumeSink, this, topoId));
        }
        if (m_recordDrops)
        {
            sw->TraceConnectWithoutContext("Drop",
                                           MakeBoundCallback(
                                               +[](StatsRecorder* r,
                                                   uint32_t n,
                                                   Ptr<const Packet> packet,
                                                   uint32_t port,
                                                   uint8_t priority,
                                                   const std::string& reason) {
                                                   r->SwitchDrop(n, packet, port, priority, reason);
                                               },
                                               this,
                                               topoId));
        }
    }
    if (nic && m_recordFlows)
    {
        nic->TraceConnectWithoutContext("MessageComplete",
                                        MakeCallback(&StatsRecorder::MessageComplete, this));
    }
}

namespace
{

/**
 * The root queue disc the internet stack's TrafficControlLayer put in front of device d of a
 * node, or null. Found by TypeId name and attribute, so that this module does not link
 * traffic-control: that module's tests need the internet module, which an ns-3 tree built
 * for training-net alone does not have.
 */
Ptr<Object>
RootQueueDisc(Ptr<Node> node, uint32_t d)
{
    TypeId tcId;
    if (!TypeId::LookupByNameFailSafe("ns3::TrafficControlLayer", &tcId))
    {
        return nullptr;
    }
    Ptr<Object> tc = node->GetObject<Object>(tcId);
    if (!tc)
    {
        return nullptr;
    }
    ObjectMapValue roots;
    tc->GetAttribute("RootQueueDiscList", roots);
    return d < roots.GetN() ? roots.Get(d) : nullptr;
}

} // namespace

void
StatsRecorder::SetFlowNetwork(Ptr<FlowNetwork> network, uint32_t mtu)
{
    m_fluid = network;
    m_fluidPacket = mtu + RdmaNic::DATA_WIRE_OVERHEAD;
}

uint32_t
StatsRecorder::AddFlowPorts(uint32_t topoId)
{
    uint32_t count = 0;
    const uint32_t* out = tn_topology_out_links(m_fluid->GetTopology(), topoId, &count);
    for (uint32_t p = 0; p < count; ++p)
    {
        PortState s;
        s.fluid = m_fluid;
        s.link = out[p];
        s.packetWire = m_fluidPacket;
        s.node = topoId;
        s.port = p;
        s.rateBps = static_cast<double>(m_fluid->GetLinkRate(out[p]));
        m_ports.push_back(s);
    }
    return count;
}

uint32_t
StatsRecorder::AddPointToPointPorts(Ptr<Node> node, uint32_t topoId)
{
    uint32_t port = 0;
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
        if (!dev)
        {
            continue;
        }
        const size_t index = m_ports.size();
        PortState s;
        s.p2p = dev;
        s.node = topoId;
        s.port = port++;
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        s.rateBps = rate.Get().GetBitRate();
        Ptr<Object> queueDisc = RootQueueDisc(node, d);
        m_ports.push_back(s);
        // counters by trace: the device keeps none; m_ports only grows, the index stays valid
        dev->TraceConnectWithoutContext("PhyTxBegin",
                                        MakeBoundCallback(
                                            +[](StatsRecorder* r, size_t i, Ptr<const Packet> p) {
                                                PortState& port = r->m_ports[i];
                                                port.p2pTxBytes += p->GetSize();
                                                ++port.p2pTxPackets;
                                                // the device's own frame time
                                                const int64_t ns =
                                                    DataRate(static_cast<uint64_t>(port.rateBps))
                                                        .CalculateBytesTxTime(p->GetSize())
                                                        .GetNanoSeconds();
                                                port.p2pBusyNs += ns;
                                                port.p2pTxEndNs =
                                                    Simulator::Now().GetNanoSeconds() + ns;
                                            },
                                            this,
                                            index));
        auto countDrop = MakeBoundCallback(
            +[](StatsRecorder* r, size_t i, Ptr<const Packet>) { ++r->m_ports[i].p2pDrops; },
            this,
            index);
        // a full device queue is reported once, by MacTxDrop (not also by the queue's Drop)
        for (const char* trace : {"MacTxDrop", "PhyTxDrop", "PhyRxDrop"})
        {
            dev->TraceConnectWithoutContext(trace, countDrop);
        }
        if (queueDisc)
        {
            queueDisc->TraceConnectWithoutContext(
                "Drop",
                MakeBoundCallback(
                    +[](StatsRecorder* r, size_t i, Ptr<const QueueDiscItem>) {
                        ++r->m_ports[i].p2pDrops;
                    },
                    this,
                    index));
            queueDisc->TraceConnectWithoutContext(
                "BytesInQueue",
                MakeBoundCallback(
                    +[](StatsRecorder* r, size_t i, uint32_t, uint32_t bytes) {
                        r->m_ports[i].queueDiscBytes = bytes;
                    },
                    this,
                    index));
        }
    }
    return port;
}

StatsRecorder::PortCounters
StatsRecorder::ReadPort(const PortState& s)
{
    PortCounters c;
    if (s.fluid)
    {
        // the wire bytes the fluid rates carried, as frames of full packets
        const double wire = s.fluid->GetLinkTxBytes(s.link);
        c.txPackets = static_cast<uint64_t>(std::ceil(wire / s.packetWire - 1e-9));
        const double frames = wire - double(c.txPackets) * RoceNetDevice::WIRE_OVERHEAD;
        c.txBytes = frames > 0 ? static_cast<uint64_t>(frames + 0.5) : 0;
        // the transmitter is busy for the wire bits at line rate
        c.busyNs = static_cast<int64_t>(std::llround(wire * 8e9 / s.rateBps));
        return c;
    }
    if (s.p2p)
    {
        c.txBytes = s.p2pTxBytes;
        c.txPackets = s.p2pTxPackets;
        c.queueBytes[0] = s.p2p->GetQueue()->GetNBytes();
        c.queueBytes[0] += s.queueDiscBytes;
        c.drops = s.p2pDrops;
        c.busyNs =
            s.p2pBusyNs - std::max<int64_t>(0, s.p2pTxEndNs - Simulator::Now().GetNanoSeconds());
        return c;
    }
    c.txBytes = s.dev->GetTxBytes();
    c.txPackets = s.dev->GetTxPackets();
    for (uint8_t q = 0; q <= RoceNetDevice::NUM_PRIORITIES; ++q)
    {
        c.queueBytes[q] = s.dev->GetQueueBytes(q);
        if (q < RoceNetDevice::NUM_PRIORITIES)
        {
            c.pausedNs += s.dev->GetPausedTime(q).GetNanoSeconds();
        }
    }
    c.ecnMarks = s.sw->GetPortEcnMarks(s.port);
    c.drops = s.sw->GetPortDrops(s.port);
    c.pausedMask = s.dev->GetPausedMask();
    c.busyNs = s.dev->GetTxBusyTime().GetNanoSeconds();
    return c;
}

void
StatsRecorder::AddLink(const tn_db_link& link)
{
    tn_error err{};
    if (!m_failed)
    {
        Check(tn_db_add_link(m_db, m_runId, &link, &err), err);
    }
}

void
StatsRecorder::AddExecutor(Ptr<CollectiveExecutor> executor)
{
    executor->TraceConnectWithoutContext("PartStart", MakeCallback(&StatsRecorder::Partake, this));
}

void
StatsRecorder::AddCollective(Ptr<Collective> collective)
{
    if (m_collectives.count(collective->GetId()))
    {
        return;
    }
    m_collectives[collective->GetId()].collective = collective;
    collective->TraceConnectWithoutContext("End",
                                           MakeCallback(&StatsRecorder::CollectiveEnded, this));
    if (m_recordTransfers)
    {
        collective->TraceConnectWithoutContext("TransferReady",
                                               MakeCallback(&StatsRecorder::TransferReady, this));
    }
}

void
StatsRecorder::AddScheduledCollective(Ptr<ThemisCollective> collective)
{
    if (m_scheduled.emplace(collective->GetId(), collective).second)
    {
        collective->TraceConnectWithoutContext("End",
                                               MakeCallback(&StatsRecorder::ScheduledEnded, this));
    }
}

void
StatsRecorder::ScheduledEnded(Ptr<const ThemisCollective> collective)
{
    auto it = m_scheduled.find(collective->GetId());
    if (it != m_scheduled.end())
    {
        WriteScheduled(collective);
        // let it go after this event, which still runs in it
        Simulator::ScheduleNow(&StatsRecorder::ForgetScheduled, this, collective->GetId());
    }
}

void
StatsRecorder::ForgetScheduled(uint32_t id)
{
    m_scheduled.erase(id);
}

void
StatsRecorder::WriteScheduled(Ptr<const ThemisCollective> c)
{
    uint64_t transfers = 0;
    for (const Ptr<Collective>& phase : c->GetPhaseCollectives())
    {
        transfers += phase->GetTransferCount();
    }
    const std::string op = tn_collective_name(c->GetCollective());
    const std::string algorithm = c->GetSchedulerName();
    tn_db_collective row{};
    row.collective = c->GetId();
    row.op = op.c_str();
    row.algorithm = algorithm.c_str();
    row.scheduler = "run-time";
    row.bytes = c->GetBytes();
    row.participants = c->GetRanks();
    row.transfers = uint32_t(std::min<uint64_t>(transfers, UINT32_MAX));
    row.start_ns = c->GetStartTime().IsStrictlyNegative() ? -1 : c->GetStartTime().GetNanoSeconds();
    row.end_ns = c->IsComplete() ? (c->GetStartTime() + c->GetDuration()).GetNanoSeconds() : -1;
    row.estimated_ns = 0; // no cost model for run-time scheduling
    AddCollectiveRow(&row, c->GetCollective());
}

void
StatsRecorder::AddCollectiveRow(tn_db_collective* row, tn_collective kind)
{
    if (row->end_ns >= 0)
    {
        const double ns = double(row->end_ns - row->start_ns);
        row->algbw_Bps = tn_algbw(row->bytes, ns);
        row->busbw_Bps = tn_busbw(kind, row->participants, row->bytes, ns);
    }
    tn_error err{};
    if (!m_failed)
    {
        Check(tn_db_add_collective(m_db, m_runId, row, &err), err);
    }
}

void
StatsRecorder::SetIdealFctCallback(IdealFctCallback cb)
{
    m_idealFct = cb;
}

void
StatsRecorder::Partake(Ptr<const Collective> collective, uint32_t)
{
    // The first executor to start its part starts the collective, before any transfer is
    // posted: the collective's traces are connected in time.
    AddCollective(ConstCast<Collective>(collective));
}

void
StatsRecorder::Start()
{
    NS_ASSERT_MSG(m_runId >= 0, "StatsRecorder: BeginRun first");
    if (m_started)
    {
        return;
    }
    m_started = true;
    m_lastSample = Simulator::Now();
    for (PortState& s : m_ports)
    {
        s.writtenNs = m_lastSample.GetNanoSeconds();
    }
    if (m_catchSignals)
    {
        tn_error err{};
        m_watching = tn_db_signal_watch(&err) == TN_OK;
    }
    m_tick = Simulator::Schedule(m_interval, &StatsRecorder::Tick, this);
}

void
StatsRecorder::Tick()
{
    if (m_recordPorts)
    {
        Sample(false);
    }
    if (m_watching && tn_db_signal_pending())
    {
        m_signal = tn_db_signal_pending();
        NS_LOG_WARN("signal " << m_signal << ": stopping the simulation");
        Simulator::Stop();
        return;
    }
    // No other event left: the simulation is over, do not keep it alive.
    if (!Simulator::IsFinished())
    {
        m_tick = Simulator::Schedule(m_interval, &StatsRecorder::Tick, this);
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
    tn_error err{};
    for (PortState& s : m_ports)
    {
        if (s.writtenNs >= nowNs)
        {
            continue; // written at this instant already
        }
        tn_db_port_sample row{};
        row.time_ns = nowNs;
        row.node = s.node;
        row.port = s.port;
        const PortCounters c = ReadPort(s);
        const uint64_t tx = c.txBytes;
        const uint64_t packets = c.txPackets;
        row.tx_bytes = tx - s.txBytes;
        row.tx_packets = packets - s.txPackets;
        uint64_t queued = 0;
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
            continue; // an idle stretch is written as one row when it ends
        }
        if (!idle && s.writtenNs < previousNs && previousNs < nowNs)
        {
            // the idle stretch before this interval, as one row (no gap, no activity)
            tn_db_port_sample quiet{};
            quiet.time_ns = previousNs;
            quiet.interval_ns = previousNs - s.writtenNs;
            quiet.node = s.node;
            quiet.port = s.port;
            ++m_samples;
            if (!m_failed && !Check(tn_db_add_port_sample(m_db, m_runId, &quiet, &err), err))
            {
                return;
            }
            s.writtenNs = previousNs;
        }
        row.interval_ns = nowNs - s.writtenNs;
        // the wire bits sent inside the interval (a frame split at the sampling instants), as
        // the time the transmitter was busy in it: at most 1. Counting frames whole where
        // they start gave 1.02 beside a full interval.
        row.utilisation = row.interval_ns > 0 ? double(busy) / double(row.interval_ns) : 0;
        s.txBytes = tx;
        s.txPackets = packets;
        s.busyNs = c.busyNs;
        s.pausedNs = paused;
        s.ecnMarks = marks;
        s.drops = drops;
        s.writtenNs = nowNs;
        ++m_samples;
        if (!m_failed && !Check(tn_db_add_port_sample(m_db, m_runId, &row, &err), err))
        {
            return;
        }
    }
}

void
StatsRecorder::WriteCollective(Ptr<const Collective> c)
{
    NS_ASSERT_MSG(c->GetSchedule() || c->IsGenerated(),
                  "StatsRecorder: a collective without a plan");
    const std::string op = c->GetCollectiveName();
    const std::string algorithm = c->GetAlgorithm();
    tn_db_collective row{};
    row.collective = c->GetId();
    row.op = op.c_str();
    row.algorithm = algorithm.c_str();
    row.scheduler = c->IsStepOrdered() ? "step-order" : "ready";
    row.bytes = c->GetBytes();
    row.participants = c->GetRanks();
    row.transfers = c->GetTransferCount();
    row.priority = c->GetPriority();
    row.start_ns = c->IsStarted() ? c->GetStartTime().GetNanoSeconds() : -1;
    row.end_ns = c->IsComplete() ? c->GetEndTime().GetNanoSeconds() : -1;
    row.estimated_ns = c->GetEstimatedTime().GetNanoSeconds();
    AddCollectiveRow(&row, c->GetOperation());
}

void
StatsRecorder::CollectiveEnded(Ptr<const Collective> collective)
{
    auto it = m_collectives.find(collective->GetId());
    if (it != m_collectives.end() && !it->second.written)
    {
        it->second.written = true;
        WriteCollective(collective);
        // its row is written: let it go (after this event, which still runs in it)
        Simulator::ScheduleNow(&StatsRecorder::Forget, this, collective->GetId());
    }
}

void
StatsRecorder::Forget(uint32_t id)
{
    auto it = m_collectives.find(id);
    if (it != m_collectives.end())
    {
        it->second.collective = nullptr; // the id stays: flows name their collective by it
    }
}

void
StatsRecorder::TransferReady(const CollectiveTransferRecord& r)
{
    if (m_failed)
    {
        return;
    }
    tn_db_transfer row{};
    row.collective = r.collective;
    row.transfer = r.transfer;
    row.chunk = r.chunk;
    row.step = r.step;
    row.dim = r.dim;
    row.src_rank = r.src;
    row.dst_rank = r.dst;
    row.src_node = r.srcNode;
    row.dst_node = r.dstNode;
    row.bytes = r.bytes;
    row.reduce = r.reduce;
    row.lane = r.lane;
    row.issue_ns = r.issue.GetNanoSeconds();
    row.first_ns = r.firstByte.GetNanoSeconds();
    row.last_ns = r.lastByte.GetNanoSeconds();
    row.ready_ns = r.ready.GetNanoSeconds();
    tn_error err{};
    Check(tn_db_add_transfer(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::AddTrainingJob(Ptr<TrainingJob> job)
{
    job->TraceConnectWithoutContext("IterationEnd",
                                    MakeCallback(&StatsRecorder::IterationEnd, this));
    job->TraceConnectWithoutContext("LayerEnd", MakeCallback(&StatsRecorder::LayerEnd, this));
    // operations the job schedules at run time get their own collective row
    job->TraceConnectWithoutContext("ScheduledCreated",
                                    MakeCallback(&StatsRecorder::AddScheduledCollective, this));
}

void
StatsRecorder::LayerEnd(const TrainingLayerRecord& r)
{
    if (m_failed)
    {
        return;
    }
    tn_db_layer row{};
    row.iteration = r.iteration;
    row.layer = r.layer;
    row.node = r.node;
    row.name = r.name.c_str();
    row.phase = r.recompute ? "fwd-recompute" : tn_pass_name(r.pass);
    row.start_ns = r.start.GetNanoSeconds();
    row.end_ns = r.end.GetNanoSeconds();
    row.compute_ns = r.compute.GetNanoSeconds();
    row.exposed_comm_ns = r.exposed.GetNanoSeconds();
    tn_error err{};
    Check(tn_db_add_layer(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::IterationEnd(const TrainingIterationRecord& r)
{
    if (m_failed)
    {
        return;
    }
    tn_db_iteration row{};
    row.iteration = r.iteration;
    row.node = r.node;
    row.start_ns = r.start.GetNanoSeconds();
    row.end_ns = r.end.GetNanoSeconds();
    row.compute_ns = r.compute.GetNanoSeconds();
    row.exposed_comm_ns = r.exposed.GetNanoSeconds();
    tn_error err{};
    Check(tn_db_add_iteration(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::MessageComplete(const RdmaMessageRecord& r)
{
    if (m_failed)
    {
        return;
    }
    tn_db_flow row{};
    row.src_node = r.src;
    row.message = r.id;
    row.dst_node = r.dst;
    row.qpn = r.qpn;
    row.priority = r.priority;
    row.udp_sport = r.udpSourcePort;
    row.lane = r.lane;
    row.bytes = r.bytes;
    row.start_ns = r.start.GetNanoSeconds();
    row.end_ns = r.end.GetNanoSeconds();
    row.ideal_fct_ns = m_idealFct.IsNull() ? 0 : int64_t(m_idealFct(r.src, r.dst, r.bytes));
    row.retx_bytes = r.retransmittedBytes;
    // collective data carries the collective's id as R_Key (notifications have the top bit)
    row.collective = (r.remoteKey != 0 && !(r.remoteKey & CollectiveExecutor::NOTIFY_KEY_BIT) &&
                      m_collectives.count(r.remoteKey))
                         ? int64_t(r.remoteKey)
                         : -1;
    tn_error err{};
    Check(tn_db_add_flow(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::PfcPauseSink(StatsRecorder* r,
                            uint32_t node,
                            uint32_t port,
                            uint8_t priority,
                            bool sent)
{
    r->Pfc(node, true, port, priority, sent);
}

void
StatsRecorder::PfcResumeSink(StatsRecorder* r,
                             uint32_t node,
                             uint32_t port,
                             uint8_t priority,
                             bool sent)
{
    r->Pfc(node, false, port, priority, sent);
}

void
StatsRecorder::Pfc(uint32_t node, bool pause, uint32_t port, uint8_t priority, bool sent)
{
    if (m_failed)
    {
        return;
    }
    tn_db_pfc_event row{Simulator::Now().GetNanoSeconds(), node, port, priority, pause, sent};
    tn_error err{};
    Check(tn_db_add_pfc_event(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::SwitchDrop(uint32_t node,
                          Ptr<const Packet> packet,
                          uint32_t port,
                          uint8_t priority,
                          const std::string& reason)
{
    if (m_failed)
    {
        return;
    }
    tn_db_drop row{Simulator::Now().GetNanoSeconds(),
                   node,
                   port == RoceSwitch::NO_PORT ? -1 : int64_t(port),
                   priority,
                   "switch",
                   reason.c_str(),
                   packet ? packet->GetSize() : 0};
    tn_error err{};
    Check(tn_db_add_drop(m_db, m_runId, &row, &err), err);
}

void
StatsRecorder::DeviceDrop(uint32_t node,
                          uint32_t port,
                          Ptr<const Packet> packet,
                          const std::string& reason)
{
    if (m_failed)
    {
        return;
    }
    tn_db_drop row{Simulator::Now().GetNanoSeconds(),
                   node,
                   int64_t(port),
                   -1,
                   "device",
                   reason.c_str(),
                   packet ? packet->GetSize() : 0};
    tn_error err{};
    Check(tn_db_add_drop(m_db, m_runId, &row, &err), err);
}

std::string
StatsRecorder::Finish(const std::string& status, uint64_t simulatedNs)
{
    NS_ASSERT_MSG(m_runId >= 0, "StatsRecorder: BeginRun first");
    NS_ASSERT_MSG(!m_finished, "StatsRecorder: Finish called twice");
    m_finished = true;
    m_tick.Cancel();
    if (m_started && m_recordPorts && !m_failed)
    {
        Sample(true); // the last, partial interval: the samples cover the whole run
    }
    for (auto& entry : m_collectives)
    {
        if (!entry.second.written)
        {
            entry.second.written = true;
            WriteCollective(entry.second.collective);
        }
    }
    for (auto& entry : m_scheduled)
    {
        WriteScheduled(entry.second); // did not end
    }
    m_scheduled.clear();
    if (m_watching)
    {
        if (!m_signal)
        {
            m_signal = tn_db_signal_pending();
        }
        tn_db_signal_unwatch();
        m_watching = false;
    }
    std::string final = m_failed ? "error" : m_signal ? "aborted" : status;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    tn_error err{};
    if (tn_db_run_finish(m_db, m_runId, final.c_str(), wall, simulatedNs, &err) != TN_OK)
    {
        if (m_error.empty())
        {
            m_error = err.message;
        }
        m_failed = true;
        return "error";
    }
    return final;
}

} // namespace ns3
