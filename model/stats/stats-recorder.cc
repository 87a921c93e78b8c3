/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "stats-recorder.h"

#include "cc-probe.h"
#include "network-probes.h"
#include "npu-probes.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/port-counters.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-version.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StatsRecorder");

namespace
{

/// The recorders whose run is open, for the atexit handler (one simulation per process).
std::set<StatsRecorder*>&
OpenRecorders()
{
    static std::set<StatsRecorder*> open;
    return open;
}

/// What run.error says of a run the recorder finished at Simulator::Destroy.
const char* const NOT_CALLED = "finished at Simulator::Destroy: the program did not call "
                               "StatsHelper::Finish (the recorder finished the run itself)";

} // namespace

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
            .AddAttribute("StallTimeout",
                          "End the run as 'stalled' when no work was done (no data frame "
                          "sent, transfer ready, message completed, layer, iteration or "
                          "collective ended) for this simulated time while a collective waits "
                          "for messages (0: never).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&StatsRecorder::m_stallTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("PortSamples",
                          "Record port samples (false: as PortSampling none).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordPorts),
                          MakeBooleanChecker())
            .AddAttribute("PortSampling",
                          "Which ports get port_sample rows: all (every port), none, "
                          "per-dimension (one port per class of link: sender's and receiver's "
                          "tier, dimension, direction; PerDimensionPorts) or busiest:K (the K "
                          "ports that sent the most bytes over the run, all their rows).",
                          StringValue("all"),
                          MakeStringAccessor(&StatsRecorder::SetPortSampling,
                                             &StatsRecorder::GetPortSampling),
                          MakePortSamplingChecker())
            .AddAttribute("PortCopies",
                          "Sample also the ports whose counters are copies of another port's "
                          "(flow-symmetric: the translates of each orbit's representative link).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&StatsRecorder::m_recordPortCopies),
                          MakeBooleanChecker())
            .AddAttribute("MovedPortsOnly",
                          "At a sampling tick, read only the ports that may have moved since "
                          "the last (flow level: the links flows crossed, PortActivity); the "
                          "others are idle, with no row to write. false reads every port: the "
                          "same rows, a tick costing every port.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_movedPortsOnly),
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
            .AddAttribute("CcEvents",
                          "Record congestion-control events of the RDMA NICs (tables cc_sample "
                          "and cc_qp): CNPs, CE marks, ECN echoes, rate cuts, window updates.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&StatsRecorder::m_recordCc),
                          MakeBooleanChecker())
            .AddAttribute("SimulatedTimeLimit",
                          "Simulated time at which the run is stopped and recorded as 'error' "
                          "with the reason (a value that makes it far slower than its plan would "
                          "keep it going for simulated months). 0: the limit the program derives "
                          "from its plan's cost (SetSimulatedTimeLimit), or none.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&StatsRecorder::m_timeLimitSet),
                          MakeTimeChecker(Seconds(0)))
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
    : m_collectiveProbe(CreateObject<CollectiveProbe>(this))
{
    NS_LOG_FUNCTION(this);
}

StatsRecorder::~StatsRecorder()
{
    OpenRecorders().erase(this);
    if (m_ownDb)
    {
        tn_db_close(m_db);
    }
}

void
StatsRecorder::DoDispose()
{
    // disposed before Finish and Simulator::Destroy (an explicit Dispose: the destroy event
    // holds the recorder otherwise)
    Abandon("not finished: the recorder was disposed before StatsHelper::Finish and "
            "Simulator::Destroy");
    m_tick.Cancel();
    if (m_watching)
    {
        tn_signal_unwatch();
        m_watching = false;
    }
    // before the probes go: they hold the sources alive
    UnwatchPorts();
    m_ports.clear();
    m_portsOfNode.clear();
    for (Ptr<StatsProbe>& probe : m_probes)
    {
        probe->Dispose();
    }
    m_probes.clear();
    if (m_collectiveProbe)
    {
        m_collectiveProbe->Dispose();
        m_collectiveProbe = nullptr;
    }
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
    tn_db_set_shared_keys(m_db, IsRankPart()); // the ranks merge the rows of a transfer
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
    TrackRun();
    return true;
}

void
StatsRecorder::TrackRun()
{
    std::set<StatsRecorder*>& open = OpenRecorders(); // constructed before the handler is set,
    static const int atExit = std::atexit(&StatsRecorder::AbandonOpenRuns); // so kept longer
    NS_ASSERT_MSG(atExit == 0, "StatsRecorder: no atexit handler");
    (void)atExit;
    open.insert(this);
    m_pid = getpid();
    // the event holds a reference: a script's recorder lives until Destroy even if its
    // helper does not
    m_destroyEvent =
        Simulator::ScheduleDestroy(&StatsRecorder::FinishAtDestroy, Ptr<StatsRecorder>(this));
    m_destroyPending = true;
}

void
StatsRecorder::AbandonOpenRuns()
{
    const std::set<StatsRecorder*> open = OpenRecorders(); // Abandon erases from it
    for (StatsRecorder* recorder : open)
    {
        if (recorder->m_pid != getpid())
        {
            continue; // a child forked while the run was open: the run is its parent's
        }
        recorder->Abandon("not finished: the process exited before StatsHelper::Finish and "
                          "Simulator::Destroy");
    }
}

void
StatsRecorder::Abandon(const std::string& why)
{
    if (m_runId < 0 || m_finished)
    {
        return;
    }
    m_finished = true;
    m_byItself = true;
    m_finalStatus = "aborted";
    OpenRecorders().erase(this);
    if (m_watching)
    {
        tn_signal_unwatch();
        m_watching = false;
    }
    WriteBusiest(); // the rows spilled so far
    // the writer thread's batch is joined before the buffered rows are written, and each
    // batch is one transaction: what is written is whole
    tn_error err{};
    if (tn_db_flush(m_db, &err) != TN_OK && m_error.empty())
    {
        m_error = err.message;
    }
    m_runError = m_error.empty() ? why : why + "; database: " + m_error;
    if (!m_joined)
    {
        int changed = 0;
        tn_db_run_abandon(m_db, m_runId, "aborted", m_runError.c_str(), &changed, &err);
    }
    if (m_ownDb)
    {
        tn_db_close(m_db); // checkpoints the WAL
        m_db = nullptr;
        m_ownDb = false;
    }
    std::cerr << "StatsRecorder: run " << m_runId << ": " << why << ": recorded as 'aborted'\n";
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
StatsRecorder::AddNode(Ptr<Node> node, uint32_t topoId, int64_t rank, Ptr<StatsProbe> ports)
{
    NS_ASSERT_MSG(m_runId >= 0, "StatsRecorder: BeginRun first");
    // a node of an ns-3 study (internet stack, point-to-point devices) has no RoceSwitch;
    // at flow level `ports` has registered the out-links of the fluid network
    Ptr<RoceSwitchProbe> sw = RoceSwitchProbe::Attach(this, node, topoId);
    NS_ASSERT_MSG(!(sw && ports), "StatsRecorder: node " << topoId << " has a RoceSwitch");
    Ptr<PointToPointPortProbe> p2p =
        sw || ports ? nullptr : PointToPointPortProbe::Attach(this, node, topoId);
    Ptr<RdmaNicProbe> nic = RdmaNicProbe::Attach(this, node);
    Ptr<RdmaCcProbe> cc = RdmaCcProbe::Attach(this, node, topoId);
    uint32_t nPorts = sw ? sw->GetNPorts() : p2p ? p2p->GetNCounterPorts() : 0;
    if (ports)
    {
        auto it = m_portsOfNode.find(topoId); // not a scan of m_ports: 16k nodes x 64k ports
        nPorts += it == m_portsOfNode.end() ? 0 : it->second;
    }
    m_nodes.insert(topoId);
    if (nic && !m_chosenKnown && GetPortSamplingMode().kind == PortSamplingMode::PER_DIMENSION)
    {
        m_npuNodes.insert(topoId);
    }
    tn_db_node row{topoId, nic ? "npu" : (sw || ports ? "switch" : "node"), rank, nPorts};
    tn_error err{};
    if (!m_failed)
    {
        Check(tn_db_add_node(m_db, m_runId, &row, &err), err);
    }
    for (Ptr<StatsProbe> probe : {Ptr<StatsProbe>(sw),
                                  ports,
                                  Ptr<StatsProbe>(p2p),
                                  Ptr<StatsProbe>(nic),
                                  Ptr<StatsProbe>(cc)})
    {
        if (probe)
        {
            m_probes.push_back(probe);
        }
    }
}

int64_t
StatsRecorder::GetIdealFct(uint32_t src, uint32_t dst, uint64_t bytes) const
{
    if (m_idealFct.IsNull())
    {
        return 0;
    }
    if (m_idealMemo.empty())
    {
        m_idealMemo.resize(1024);
    }
    auto slot = [this](uint32_t s, uint32_t d, uint64_t b) {
        uint64_t h =
            ((uint64_t(s) << 32 | d) ^ (b * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
        const std::size_t mask = m_idealMemo.size() - 1;
        std::size_t i = std::size_t(h ^ (h >> 31)) & mask;
        while (m_idealMemo[i].ns >= 0 &&
               !(m_idealMemo[i].src == s && m_idealMemo[i].dst == d && m_idealMemo[i].bytes == b))
        {
            i = (i + 1) & mask;
        }
        return i;
    };
    std::size_t i = slot(src, dst, bytes);
    if (m_idealMemo[i].ns >= 0)
    {
        return m_idealMemo[i].ns;
    }
    const int64_t ns = int64_t(m_idealFct(src, dst, bytes));
    if (2 * (m_idealMemoUsed + 1) > m_idealMemo.size()) // at most half full: short probes
    {
        std::vector<IdealFctEntry> old(m_idealMemo.size() * 2);
        old.swap(m_idealMemo);
        for (const IdealFctEntry& e : old)
        {
            if (e.ns >= 0)
            {
                m_idealMemo[slot(e.src, e.dst, e.bytes)] = e;
            }
        }
        i = slot(src, dst, bytes);
    }
    m_idealMemo[i] = IdealFctEntry{src, dst, bytes, ns};
    ++m_idealMemoUsed;
    return ns;
}

bool
StatsRecorder::IsCollectiveFollowed(uint32_t id) const
{
    return m_collectiveProbe->IsFollowed(id);
}

void
StatsRecorder::AddLink(const tn_db_link& link)
{
    if (!m_chosenKnown && GetPortSamplingMode().kind == PortSamplingMode::PER_DIMENSION)
    {
        m_linkRows.push_back({link.src_node, link.src_port, link.dst_node, link.dim, 0});
    }
    tn_error err{};
    if (!m_failed)
    {
        Check(tn_db_add_link(m_db, m_runId, &link, &err), err);
    }
}

void
StatsRecorder::AddProbe(Ptr<StatsProbe> probe)
{
    NS_ASSERT_MSG(probe, "StatsRecorder: AddProbe of a null probe");
    m_probes.push_back(probe);
}

Ptr<CollectiveProbe>
StatsRecorder::GetCollectiveProbe() const
{
    return m_collectiveProbe;
}

void
StatsRecorder::WriteCollective(tn_db_collective* row, tn_collective kind)
{
    ++m_progress;
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
    m_idealMemo.clear(); // the answers of the callback before
    m_idealMemoUsed = 0;
}

void
StatsRecorder::SetRankSync(uint32_t rank, RankSyncCallback sync, RankGatherCallback gather)
{
    m_rank = rank;
    NS_ASSERT_MSG(!m_started, "StatsRecorder: SetRankSync before Start");
    m_rankSync = sync;
    m_rankGather = gather;
}

std::vector<int64_t>
StatsRecorder::GatherRanks(const std::vector<int64_t>& values) const
{
    return m_rankGather.IsNull() ? values : m_rankGather(values);
}

void
StatsRecorder::GatherCollectives()
{
    NS_ASSERT_MSG(IsRankPart(), "StatsRecorder: GatherCollectives is for a rank's part");
    m_collectiveProbe->WriteRankParts();
}

void
StatsRecorder::JoinRun(int64_t runId)
{
    NS_ASSERT_MSG(m_db, "StatsRecorder: Open or SetDatabase first");
    tn_db_set_batch_rows(m_db, m_batchRows);
    tn_db_set_writer_thread(m_db, m_writerThread);
    tn_db_set_shared_keys(m_db, 1);
    tn_error err{};
    if (tn_db_run_join(m_db, &err) != TN_OK)
    {
        Check(TN_EDB, err); // the first batch would fail the same way: stop now
    }
    m_runId = runId;
    m_joined = true;
    m_wallStart = std::chrono::steady_clock::now();
    TrackRun();
}

bool
StatsRecorder::HasNode(uint32_t node) const
{
    return m_nodes.count(node) > 0;
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
    const PortSamplingMode mode = GetPortSamplingMode();
    m_recordPorts = m_recordPorts && mode.kind != PortSamplingMode::NONE;
    if (mode.kind == PortSamplingMode::PER_DIMENSION && !m_chosenKnown)
    {
        ChoosePortsFromRows();
    }
    m_lastSample = Simulator::Now();
    m_probeSampleNs = m_lastSample.GetNanoSeconds();
    m_progressAt = m_lastSample;
    for (PortState& s : m_ports)
    {
        s.writtenNs = m_lastSample.GetNanoSeconds();
    }
    if (m_recordPorts && m_movedPortsOnly)
    {
        WatchPorts();
    }
    if (m_catchSignals)
    {
        tn_error err{};
        m_watching = tn_signal_watch(&err) == TN_OK;
    }
    ScheduleTick();
}

void
StatsRecorder::ScheduleTick()
{
    // the next sample, or the limit when it comes first: a sample interval longer than the
    // limit must not let the run go on past it (every rank computes the same time)
    const Time now = Simulator::Now();
    const Time limit = GetSimulatedTimeLimit();
    Time next = m_interval;
    if (limit > now && limit - now < next)
    {
        next = limit - now;
    }
    if (m_tick.IsRunning())
    {
        // removed, not cancelled: a cancelled event stays in the queue, and the simulation
        // would not look finished (Simulator::IsFinished) until its time
        Simulator::Remove(m_tick);
    }
    m_tick = Simulator::Schedule(next, &StatsRecorder::Tick, this);
}

void
StatsRecorder::SetSimulatedTimeLimit(Time limit, const std::string& origin)
{
    m_timeLimit = limit;
    m_timeLimitOrigin = origin;
    if (m_started && !m_finished && m_tick.IsRunning() &&
        GetSimulatedTimeLimit() > Simulator::Now() &&
        GetSimulatedTimeLimit() < TimeStep(m_tick.GetTs()))
    {
        ScheduleTick(); // the limit comes before the tick already planned
    }
}

Time
StatsRecorder::GetSimulatedTimeLimit() const
{
    return m_timeLimitSet.IsStrictlyPositive() ? m_timeLimitSet : m_timeLimit;
}

void
StatsRecorder::Tick()
{
    if (m_recordPorts)
    {
        Sample(false);
    }
    const int64_t nowNs = Simulator::Now().GetNanoSeconds();
    for (std::size_t i = 0; i < m_probes.size() && !m_failed && nowNs > m_probeSampleNs; ++i)
    {
        m_probes[i]->Sample(m_probeSampleNs, nowNs);
    }
    m_probeSampleNs = std::max(m_probeSampleNs, nowNs);
    int signal = m_watching ? tn_signal_pending() : 0;
    bool busy = false;
    if (!m_rankSync.IsNull())
    {
        // every rank stops at this tick if one caught a signal, and goes on while one is busy
        signal = m_rankSync(signal, &busy);
    }
    else
    {
        busy = !Simulator::IsFinished();
    }
    if (signal)
    {
        m_signal = signal;
        NS_LOG_WARN("signal " << m_signal << ": stopping the simulation");
        Simulator::Stop();
        return;
    }
    // No other event left: the simulation is over. Before the time limit: a tick that finds
    // the work done (a sample interval longer than the run) is not a run gone on too long.
    if (!busy)
    {
        if (m_recordPorts)
        {
            // the closing sample Finish would take at this instant (the idle stretches): a
            // run finished at Simulator::Destroy cannot read the ports, ns-3 has disposed them
            Sample(true);
        }
        return;
    }
    const Time limit = GetSimulatedTimeLimit();
    const Time now = Simulator::Now();
    if (limit.IsStrictlyPositive() && now >= limit)
    {
        std::ostringstream why;
        why << "simulated time reached " << limit.GetSeconds() << " s, ";
        if (m_timeLimitSet.IsStrictlyPositive())
        {
            why << "the limit ns3::StatsRecorder::SimulatedTimeLimit sets";
        }
        else
        {
            why << "the limit of this run (" << m_timeLimitOrigin
                << "): a value makes it far slower than its plan; raise the limit with "
                << "ns3::StatsRecorder::SimulatedTimeLimit if it is meant to be that slow";
        }
        const std::string pending = DescribePending();
        if (!pending.empty())
        {
            why << "; pending: " << pending;
        }
        m_timeLimitError = why.str();
        NS_LOG_WARN(m_timeLimitError);
        Simulator::Stop();
        return;
    }
    // no work done for StallTimeout while work is pending: a stall, named by its frontier
    if (m_progress != m_progressSeen)
    {
        m_progressSeen = m_progress;
        m_progressAt = now;
    }
    else if (m_stallTimeout.IsStrictlyPositive() && now - m_progressAt >= m_stallTimeout)
    {
        // The clock counts from the latest of the last work done, the oldest wait's beginning
        // (a collective issued after a long compute phase has not waited) and the last data
        // moved (a long transfer finishes nothing for a while); moving m_progressAt there
        // spares these walks until the timeout can pass again.
        std::vector<std::string> waits;
        Time oldest = now;
        const uint64_t pending = m_collectiveProbe->GetFrontier(&waits, 1, &oldest);
        m_progressAt = pending > 0 ? std::max({m_progressAt, oldest, GetLastDataTime()}) : now;
        if (pending > 0 && now - m_progressAt >= m_stallTimeout)
        {
            std::ostringstream why;
            why << "stalled: no work done for " << m_stallTimeout.GetMicroSeconds() / 1e3
                << " ms of simulated time (since " << m_progressAt.GetMicroSeconds() / 1e3
                << " ms; ns3::StatsRecorder::StallTimeout); pending: " << DescribePending();
            m_stallError = why.str();
            NS_LOG_WARN(m_stallError);
            Simulator::Stop();
            return;
        }
    }
    ScheduleTick();
}

Time
StatsRecorder::GetLastDataTime() const
{
    int64_t latest = -1;
    for (const PortState& s : m_ports)
    {
        PortCounterValues c;
        s.counters->ReadPortCounters(s.port, &c);
        latest = std::max(latest, c.dataAtNs);
    }
    for (const Ptr<StatsProbe>& probe : m_probes)
    {
        latest = std::max(latest, probe->GetLastDataTime().GetNanoSeconds());
    }
    return NanoSeconds(latest);
}

void
StatsRecorder::WriteFlow(const tn_db_flow& row)
{
    ++m_progress;
    Add(tn_db_add_flow, row);
}

void
StatsRecorder::WriteTransfer(const tn_db_transfer& row)
{
    ++m_progress;
    tn_db_transfer named = row;
    named.job = named.job ? named.job : GetJobOfNode(row.src_node);
    Add(tn_db_add_transfer, named);
}

void
StatsRecorder::WriteLayer(const tn_db_layer& row)
{
    ++m_progress;
    tn_db_layer named = row;
    named.job = named.job ? named.job : GetJobOfNode(row.node);
    Add(tn_db_add_layer, named);
}

void
StatsRecorder::WriteIteration(const tn_db_iteration& row)
{
    ++m_progress;
    tn_db_iteration named = row;
    named.job = named.job ? named.job : GetJobOfNode(row.node);
    Add(tn_db_add_iteration, named);
}

void
StatsRecorder::SetJobOfNode(uint32_t node, uint32_t job)
{
    m_jobOfNode[node] = job;
}

uint32_t
StatsRecorder::GetJobOfNode(uint32_t node) const
{
    auto it = m_jobOfNode.find(node);
    return it == m_jobOfNode.end() ? 0 : it->second;
}

std::string
StatsRecorder::Finish(const std::string& status, uint64_t simulatedNs, const std::string& error)
{
    NS_ASSERT_MSG(m_runId >= 0, "StatsRecorder: BeginRun first");
    if (m_finished)
    {
        // after Simulator::Destroy, which finished it
        NS_ASSERT_MSG(m_byItself, "StatsRecorder: Finish called twice");
        NS_LOG_WARN("the run was finished at Simulator::Destroy: Finish comes before it");
        return m_finalStatus;
    }
    Ptr<StatsRecorder> self(this); // removing the destroy event drops a reference
    if (m_destroyPending)
    {
        Simulator::Remove(m_destroyEvent);
        m_destroyEvent = EventId(); // it holds the event, which holds this recorder
        m_destroyPending = false;
    }
    // a program that knows no end time (its work did not complete) still says how far it ran
    return Close(status,
                 simulatedNs ? simulatedNs : Simulator::Now().GetNanoSeconds(),
                 error,
                 true);
}

std::string
StatsRecorder::DescribePending() const
{
    const std::size_t shown = 5;
    std::vector<std::string> what;
    const uint64_t waits = m_collectiveProbe->GetFrontier(&what, shown);
    std::ostringstream os;
    for (std::size_t i = 0; i < what.size(); ++i)
    {
        os << (i ? "; " : "") << what[i];
    }
    if (waits > what.size())
    {
        os << " and " << waits - what.size() << " more";
    }
    std::vector<std::string> unfinished;
    m_collectiveProbe->GetUnfinished(&unfinished);
    for (const Ptr<StatsProbe>& probe : m_probes)
    {
        probe->GetUnfinished(&unfinished);
    }
    for (std::size_t i = 0; i < unfinished.size() && i < 3; ++i)
    {
        os << (os.tellp() > 0 ? "; " : "") << unfinished[i];
    }
    if (unfinished.size() > 3)
    {
        os << " and " << unfinished.size() - 3 << " more";
    }
    return os.str();
}

void
StatsRecorder::WatchDeadlocks(Ptr<PfcDeadlockWatch> watch)
{
    watch->TraceConnectWithoutContext("Deadlock",
                                      MakeCallback(&StatsRecorder::DeadlockFound, this));
}

void
StatsRecorder::DeadlockFound(const PfcDeadlock& deadlock)
{
    m_deadlock = deadlock;
}

void
StatsRecorder::FinishAtDestroy()
{
    // the simulator holds the event (and so this recorder) while it runs
    m_destroyEvent = EventId();
    m_destroyPending = false;
    if (m_finished)
    {
        return;
    }
    const uint64_t now = Simulator::Now().GetNanoSeconds();
    if (IsRankPart())
    {
        // the ranks finish together (StatsHelper::Finish); one rank's Destroy cannot
        Abandon("not finished: a distributed run is finished by StatsHelper::Finish on every "
                "rank before Simulator::Destroy");
        return;
    }
    std::vector<std::string> unfinished;
    m_collectiveProbe->GetUnfinished(&unfinished);
    for (const Ptr<StatsProbe>& probe : m_probes)
    {
        probe->GetUnfinished(&unfinished);
    }
    std::ostringstream why;
    for (std::size_t i = 0; i < unfinished.size() && i < 3; ++i)
    {
        why << (i ? ", " : "") << unfinished[i];
    }
    if (unfinished.size() > 3)
    {
        why << " and " << unfinished.size() - 3 << " more";
    }
    why << (unfinished.empty() ? "" : "; ") << NOT_CALLED;
    m_byItself = true;
    const std::string final = Close(unfinished.empty() ? "ok" : "error", now, why.str(), false);
    if (final == "ok")
    {
        // ok runs have no error text; this one says it was not finished by the program
        m_runError = why.str();
        tn_error ignored{};
        tn_db_run_set_error(m_db, m_runId, m_runError.c_str(), &ignored);
    }
    std::cerr << "StatsRecorder: run " << m_runId << ": " << m_runError << ": recorded as '"
              << final << "' at simulated time " << now << " ns\n";
}

std::string
StatsRecorder::Close(const std::string& status,
                     uint64_t simulatedNs,
                     const std::string& error,
                     bool lastSample)
{
    m_finished = true;
    OpenRecorders().erase(this);
    m_tick.Cancel();
    if (lastSample && m_started && m_recordPorts && !m_failed)
    {
        Sample(true); // the last, partial interval: the samples cover the whole run
    }
    WriteBusiest();
    m_collectiveProbe->WriteUnfinished();
    for (std::size_t i = 0; i < m_probes.size() && !m_failed; ++i)
    {
        m_probes[i]->WriteSummary(m_probeSampleNs, Simulator::Now().GetNanoSeconds());
    }
    if (m_watching)
    {
        if (!m_signal)
        {
            m_signal = tn_signal_pending();
        }
        tn_signal_unwatch();
        m_watching = false;
    }
    std::string final = m_failed                      ? "error"
                        : m_signal                    ? "aborted"
                        : !m_deadlock.message.empty() ? "deadlock"
                        : !m_stallError.empty()       ? "stalled"
                        : !m_timeLimitError.empty()   ? "error"
                                                      : status;
    for (std::size_t i = 0; !m_failed && i < m_deadlock.cycle.size(); ++i)
    {
        const PfcDeadlockHop& h = m_deadlock.cycle[i];
        const tn_db_deadlock_hop row{static_cast<uint32_t>(i),
                                     m_deadlock.detected.GetNanoSeconds(),
                                     h.node,
                                     h.port,
                                     h.priority,
                                     h.peerNode,
                                     h.peerPort,
                                     h.pausedSince.GetNanoSeconds(),
                                     h.queueBytes,
                                     h.flows.c_str()};
        tn_error e{};
        if (tn_db_add_deadlock_hop(m_db, m_runId, &row, &e) != TN_OK)
        {
            m_error = e.message;
            m_failed = true;
            final = "error";
        }
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    tn_error err{};
    const tn_status written =
        m_joined ? tn_db_flush(m_db, &err) // the run's status is not ours
                 : tn_db_run_finish(m_db, m_runId, final.c_str(), wall, simulatedNs, &err);
    if (written != TN_OK)
    {
        if (m_error.empty())
        {
            m_error = err.message;
        }
        m_failed = true;
        final = "error";
    }
    if (final != "ok")
    {
        m_runError = m_failed   ? "database: " + m_error
                     : m_signal ? "interrupted by signal " + std::to_string(m_signal)
                     : !m_deadlock.message.empty() ? m_deadlock.message
                     : !m_stallError.empty()       ? m_stallError
                     : !m_timeLimitError.empty()   ? m_timeLimitError
                                                   : error;
        if (!m_runError.empty() && !m_joined)
        {
            tn_error ignored{}; // the run's status is written; its error text is a courtesy
            tn_db_run_set_error(m_db, m_runId, m_runError.c_str(), &ignored);
        }
    }
    m_finalStatus = final;
    return final;
}

} // namespace ns3
