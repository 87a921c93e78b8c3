/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "npu-probes.h"

#include "stats-recorder.h"

#include "ns3/collective-executor.h"
#include "ns3/collective.h"
#include "ns3/simulator.h"
#include "ns3/themis-collective.h"
#include "ns3/tn-schedule.h"
#include "ns3/training-job.h"

#include <algorithm>
#include <sstream>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveProbe);
NS_OBJECT_ENSURE_REGISTERED(TrainingJobProbe);

// ---- CollectiveProbe --------------------------------------------------------------------

TypeId
CollectiveProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

CollectiveProbe::CollectiveProbe(StatsRecorder* recorder)
    : StatsProbe(recorder)
{
}

void
CollectiveProbe::DoDispose()
{
    m_collectives.clear();
    m_scheduled.clear();
    StatsProbe::DoDispose();
}

void
CollectiveProbe::AddExecutor(Ptr<CollectiveExecutor> executor)
{
    executor->TraceConnectWithoutContext("PartStart",
                                         MakeCallback(&CollectiveProbe::Partake, this));
}

void
CollectiveProbe::AddCollective(Ptr<Collective> collective)
{
    if (m_collectives.count(collective->GetId()))
    {
        return;
    }
    m_collectives[collective->GetId()].collective = collective;
    collective->TraceConnectWithoutContext("End",
                                           MakeCallback(&CollectiveProbe::CollectiveEnded, this));
    if (m_recorder->RecordsTransfers())
    {
        collective->TraceConnectWithoutContext("TransferReady",
                                               MakeCallback(&CollectiveProbe::TransferReady, this));
        if (m_recorder->IsRankPart())
        {
            collective->TraceConnectWithoutContext(
                "TransferIssued",
                MakeCallback(&CollectiveProbe::TransferIssued, this));
        }
    }
}

void
CollectiveProbe::TransferIssued(const CollectiveTransferRecord& r)
{
    // the receiver's rank writes the row, but has no issue time for it: the sender's part
    // gives it (tn_db_merge_runs joins the two)
    if (!m_recorder->HasNode(r.dstNode))
    {
        TransferReady(r);
    }
}

bool
CollectiveProbe::IsFollowed(uint32_t id) const
{
    return m_collectives.count(id) > 0;
}

void
CollectiveProbe::Partake(Ptr<const Collective> collective, uint32_t)
{
    // The first executor to start its part starts the collective, before any transfer is
    // posted: the collective's traces are connected in time.
    AddCollective(ConstCast<Collective>(collective));
}

void
CollectiveProbe::AddScheduledCollective(Ptr<ThemisCollective> collective)
{
    if (m_scheduled.emplace(collective->GetId(), collective).second)
    {
        collective->TraceConnectWithoutContext(
            "End",
            MakeCallback(&CollectiveProbe::ScheduledEnded, this));
    }
}

void
CollectiveProbe::ScheduledEnded(Ptr<const ThemisCollective> collective)
{
    auto it = m_scheduled.find(collective->GetId());
    if (it != m_scheduled.end())
    {
        WriteScheduled(collective);
        // let it go after this event, which still runs in it
        Simulator::ScheduleNow(&CollectiveProbe::ForgetScheduled, this, collective->GetId());
    }
}

void
CollectiveProbe::ForgetScheduled(uint32_t id)
{
    m_scheduled.erase(id);
}

void
CollectiveProbe::WriteScheduled(Ptr<const ThemisCollective> c)
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
    // a job's operation runs on its own NPUs (a job on part of the topology: its sub-grid)
    row.job = c->GetRanks() > 0 ? m_recorder->GetJobOfNode(c->GetNode(0)) : 0;
    row.bytes = c->GetBytes();
    row.participants = c->GetRanks();
    row.transfers = uint32_t(std::min<uint64_t>(transfers, UINT32_MAX));
    row.start_ns = c->GetStartTime().IsStrictlyNegative() ? -1 : c->GetStartTime().GetNanoSeconds();
    row.end_ns = c->IsComplete() ? (c->GetStartTime() + c->GetDuration()).GetNanoSeconds() : -1;
    row.estimated_ns = 0; // no cost model for run-time scheduling
    row.requested_algorithm = "themis";
    m_recorder->WriteCollective(&row, c->GetCollective());
}

void
CollectiveProbe::WriteCollective(Ptr<const Collective> c)
{
    WriteCollective(c,
                    c->IsStarted() ? c->GetStartTime().GetNanoSeconds() : -1,
                    c->IsComplete() ? c->GetEndTime().GetNanoSeconds() : -1);
}

void
CollectiveProbe::WriteCollective(Ptr<const Collective> c, int64_t startNs, int64_t endNs)
{
    NS_ASSERT_MSG(c->GetSchedule() || c->IsGenerated(),
                  "CollectiveProbe: a collective without a plan");
    const std::string op = c->GetCollectiveName();
    const std::string algorithm = c->GetAlgorithm();
    tn_db_collective row{};
    row.collective = c->GetId();
    row.op = op.c_str();
    row.algorithm = algorithm.c_str();
    row.scheduler = c->IsStepOrdered() ? "step-order" : "ready";
    // a job's collectives are among its own NPUs (jobs hold disjoint NPUs)
    row.job = c->GetRanks() > 0 ? m_recorder->GetJobOfNode(c->GetNode(0)) : 0;
    row.bytes = c->GetBytes();
    row.participants = c->GetRanks();
    row.transfers = c->GetTransferCount();
    row.priority = c->GetPriority();
    row.start_ns = startNs;
    row.end_ns = endNs;
    row.estimated_ns = c->GetEstimatedTime().GetNanoSeconds();
    const Collective::Tuning& tuning = c->GetTuning();
    row.requested_algorithm = tuning.requested.empty() ? nullptr : tuning.requested.c_str();
    row.choice_estimated_ns = tuning.choiceEstimate.GetNanoSeconds();
    row.parallelism = c->GetParallelism().c_str();
    row.runner_up = tuning.runnerUp.empty() ? nullptr : tuning.runnerUp.c_str();
    row.runner_up_estimated_ns = tuning.runnerUpEstimate.GetNanoSeconds();
    const Collective::Protocol& protocol = c->GetProtocol();
    row.protocol = protocol.set ? protocol.name.c_str() : nullptr;
    row.channels = protocol.set ? protocol.channels : 0;
    m_recorder->WriteCollective(&row, c->GetOperation());
}

void
CollectiveProbe::CollectiveEnded(Ptr<const Collective> collective)
{
    auto it = m_collectives.find(collective->GetId());
    // a rank's part of a distributed run writes its collectives at Finish, with the other
    // ranks' times (WriteUnfinished)
    if (it != m_collectives.end() && !it->second.written && !m_recorder->IsRankPart())
    {
        it->second.written = true;
        WriteCollective(collective);
        // its row is written: let it go (after this event, which still runs in it)
        Simulator::ScheduleNow(&CollectiveProbe::Forget, this, collective->GetId());
    }
}

void
CollectiveProbe::Forget(uint32_t id)
{
    auto it = m_collectives.find(id);
    if (it != m_collectives.end())
    {
        it->second.collective = nullptr; // the id stays: flows name their collective by it
    }
}

void
CollectiveProbe::WriteRankParts()
{
    // (rank, id, start, end) of every collective each rank took part in; the lowest rank of a
    // collective writes its row, from the earliest start and the latest end (none if a rank's
    // part did not end)
    if (m_rankPartsWritten)
    {
        return;
    }
    m_rankPartsWritten = true;
    const int64_t me = m_recorder->GetRank();
    std::vector<int64_t> mine;
    for (const auto& entry : m_collectives)
    {
        const Ptr<Collective>& c = entry.second.collective;
        mine.insert(mine.end(),
                    {me,
                     int64_t(entry.first),
                     c->IsStarted() ? c->GetStartTime().GetNanoSeconds() : -1,
                     c->IsComplete() ? c->GetEndTime().GetNanoSeconds() : -1});
    }
    const std::vector<int64_t> all = m_recorder->GatherRanks(mine);
    for (auto& entry : m_collectives)
    {
        int64_t first = me;
        int64_t start = -1;
        int64_t end = 0;
        for (std::size_t i = 0; i + 3 < all.size(); i += 4)
        {
            if (all[i + 1] != int64_t(entry.first))
            {
                continue;
            }
            first = std::min(first, all[i]);
            if (all[i + 2] >= 0)
            {
                start = start < 0 ? all[i + 2] : std::min(start, all[i + 2]);
            }
            end = all[i + 3] < 0 || end < 0 ? -1 : std::max(end, all[i + 3]);
        }
        entry.second.written = true;
        if (first == me)
        {
            WriteCollective(entry.second.collective, start, start < 0 ? -1 : end);
        }
    }
}

void
CollectiveProbe::WriteUnfinished()
{
    if (m_recorder->IsRankPart())
    {
        WriteRankParts();
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
}

void
CollectiveProbe::GetUnfinished(std::vector<std::string>* what) const
{
    // a collective is not disposed with the nodes (the executors only drop it): its state is
    // still there at Simulator::Destroy
    for (const auto& entry : m_collectives)
    {
        const Ptr<Collective>& c = entry.second.collective;
        if (!entry.second.written && c && !c->IsComplete())
        {
            std::ostringstream s;
            s << "collective " << entry.first << " (" << c->GetCollectiveName() << ", "
              << c->GetAlgorithm() << ", " << c->GetBytes() << " bytes) did not complete";
            what->push_back(s.str());
        }
    }
    for (const auto& entry : m_scheduled)
    {
        if (!entry.second->IsComplete())
        {
            std::ostringstream s;
            s << "operation " << entry.first << " ("
              << tn_collective_name(entry.second->GetCollective()) << ", "
              << entry.second->GetSchedulerName() << ", " << entry.second->GetBytes()
              << " bytes) did not complete";
            what->push_back(s.str());
        }
    }
}

namespace
{

/// " (ORIGIN)" for a collective a training job told its origin, else ""
std::string
OriginOf(const Ptr<Collective>& c)
{
    return c->GetOrigin().empty() ? "" : " (" + c->GetOrigin() + ")";
}

} // namespace

uint64_t
CollectiveProbe::GetFrontier(std::vector<std::string>* what, std::size_t max, Time* oldest) const
{
    uint64_t n = 0;
    auto began = [oldest, &n](Time at) {
        if (oldest && (n == 0 || at < *oldest))
        {
            *oldest = at;
        }
    };
    for (const auto& entry : m_collectives)
    {
        const Ptr<Collective>& c = entry.second.collective;
        if (entry.second.written || !c || !c->IsStarted() || c->IsComplete())
        {
            continue;
        }
        // generated (no schedule) or symmetric (one rank's states stand for all): named only
        if (c->IsGenerated() || !c->IsSimulated(0) || !c->IsSimulated(1))
        {
            began(c->GetStartTime());
            if (n++ < max)
            {
                what->push_back(
                    "collective " + std::to_string(entry.first) + " (" + c->GetCollectiveName() +
                    (c->GetOrigin().empty() ? "" : ", " + c->GetOrigin()) + "): " + c->Check());
            }
            continue;
        }
        for (uint64_t t = 0; t < c->GetTransferCount(); ++t)
        {
            const CollectiveTransferRecord r = c->GetRecord(static_cast<uint32_t>(t));
            if (r.issue.IsStrictlyNegative() || !r.ready.IsStrictlyNegative())
            {
                continue; // not posted yet (its dependencies wait), or done
            }
            began(r.issue);
            if (n++ >= max)
            {
                continue;
            }
            std::ostringstream s;
            s << "node " << r.dstNode << " waits for node " << r.srcNode << ": collective "
              << entry.first << OriginOf(c) << " transfer " << r.transfer << ", " << r.bytes
              << " bytes, issued at " << r.issue.GetNanoSeconds() / 1e3 << " us, ";
            if (r.lastByte.IsStrictlyNegative())
            {
                s << (r.firstByte.IsStrictlyNegative() ? "no byte yet" : "partly arrived");
            }
            else
            {
                s << "arrived, not ready";
            }
            what->push_back(s.str());
        }
    }
    return n;
}

void
CollectiveProbe::TransferReady(const CollectiveTransferRecord& r)
{
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
    m_recorder->WriteTransfer(row);
}

// ---- TrainingJobProbe -------------------------------------------------------------------

namespace
{

/// The fields a layer row and an iteration row share, from the job's record of either.
template <class Record, class Row>
void
CopyPassTimes(const Record& r, Row* row)
{
    row->iteration = r.iteration;
    row->node = r.node;
    row->start_ns = r.start.GetNanoSeconds();
    row->end_ns = r.end.GetNanoSeconds();
    row->compute_ns = r.compute.GetNanoSeconds();
    row->exposed_comm_ns = r.exposed.GetNanoSeconds();
}

} // namespace

TypeId
TrainingJobProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingJobProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

TrainingJobProbe::TrainingJobProbe(StatsRecorder* recorder,
                                   Ptr<TrainingJob> job,
                                   Ptr<CollectiveProbe> collectives)
    : StatsProbe(recorder),
      m_collectives(collectives),
      m_job(job)
{
    job->TraceConnectWithoutContext("IterationEnd",
                                    MakeCallback(&TrainingJobProbe::IterationEnd, this));
    job->TraceConnectWithoutContext("LayerEnd", MakeCallback(&TrainingJobProbe::LayerEnd, this));
    // followed from their creation: over MPI ranks a message may name a collective before
    // any member on this rank starts it (in one process its creator starts it at once)
    job->TraceConnectWithoutContext("CollectiveCreated",
                                    MakeCallback(&TrainingJobProbe::CollectiveCreated, this));
    // operations the job schedules at run time get their own collective row
    job->TraceConnectWithoutContext("ScheduledCreated",
                                    MakeCallback(&TrainingJobProbe::ScheduledCreated, this));
}

void
TrainingJobProbe::GetUnfinished(std::vector<std::string>* what) const
{
    // IsComplete reads the job's NPUs, which its DoDispose keeps
    if (m_job && !m_job->IsComplete())
    {
        what->push_back("the training job did not complete");
    }
}

void
TrainingJobProbe::DoDispose()
{
    m_collectives = nullptr;
    m_job = nullptr;
    StatsProbe::DoDispose();
}

void
TrainingJobProbe::CollectiveCreated(Ptr<Collective> collective)
{
    m_collectives->AddCollective(collective);
}

void
TrainingJobProbe::ScheduledCreated(Ptr<ThemisCollective> collective)
{
    m_collectives->AddScheduledCollective(collective);
}

void
TrainingJobProbe::LayerEnd(const TrainingLayerRecord& r)
{
    tn_db_layer row{};
    CopyPassTimes(r, &row);
    row.layer = r.layer;
    row.name = r.name.c_str();
    row.phase = !r.phase.empty() ? r.phase.c_str()
                : r.recompute    ? "fwd-recompute"
                                 : tn_pass_name(r.pass);
    m_recorder->WriteLayer(row);
}

void
TrainingJobProbe::IterationEnd(const TrainingIterationRecord& r)
{
    tn_db_iteration row{};
    CopyPassTimes(r, &row);
    row.breakdown = r.split;
    row.breakdown_ns[0] = r.bubble.GetNanoSeconds();
    for (int k = TN_SERVES_TP; k < TN_SERVES_COUNT; k++)
    {
        row.breakdown_ns[k] = r.exposedBy[k].GetNanoSeconds();
    }
    m_recorder->WriteIteration(row);
}

} // namespace ns3
