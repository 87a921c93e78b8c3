/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-runner.h"

#include "collective-executor.h"
#include "collective-service.h"
#include "npu-endpoint.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRunner");

ChakraRunner::ChakraRunner(const std::vector<tn_chakra_trace*>& traces,
                           Ptr<CollectiveService> service,
                           const std::vector<Ptr<NpuEndpoint>>& endpoints,
                           const Config& config,
                           IterationCallback iterationEnd,
                           CreatedCallback created)
    : m_traces(traces),
      m_service(service),
      m_endpoints(endpoints),
      m_config(config),
      m_iterationEnd(iterationEnd),
      m_created(created)
{
}

bool
ChakraRunner::Setup(std::string* error)
{
    if (m_endpoints.empty())
    {
        *error = "no NPU endpoints (NpuHelper::Install)";
        return false;
    }
    if (m_traces.size() != m_endpoints.size())
    {
        *error = std::to_string(m_traces.size()) + " Chakra traces for " +
                 std::to_string(m_endpoints.size()) + " NPUs: give one trace per NPU";
        return false;
    }
    if (!m_service)
    {
        *error = "no CollectiveService (CollectiveHelper::Install)";
        return false;
    }
    if (m_config.opsPerCycle == 0)
    {
        *error = "OpsPerCycle must be at least 1";
        return false;
    }
    tn_error err;
    if (tn_chakra_check(m_traces.data(), m_traces.size(), &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    const uint32_t n = m_endpoints.size();
    m_ranks.resize(n);
    m_userStart.resize(n);
    m_users.resize(n);
    for (uint32_t r = 0; r < n; r++)
    {
        Ptr<Node> node = m_endpoints[r]->GetObject<Node>();
        if (node && node->GetSystemId() != Simulator::GetSystemId())
        {
            *error = "Chakra traces run in one process: NPU " + std::to_string(r) +
                     " is simulated by another MPI rank";
            return false;
        }
        Ptr<CollectiveExecutor> exec = m_endpoints[r]->GetObject<CollectiveExecutor>();
        if (!exec)
        {
            *error = "NPU " + std::to_string(r) +
                     " has no CollectiveExecutor "
                     "(CollectiveHelper::Install)";
            return false;
        }
        exec->TraceConnectWithoutContext("PartEnd",
                                         MakeCallback(&ChakraRunner::PartEnd, this).Bind(r));
        const tn_chakra_trace* t = m_traces[r];
        const uint32_t count = tn_chakra_node_count(t);
        std::vector<uint32_t>& start = m_userStart[r];
        start.assign(count + 1, 0);
        for (uint32_t i = 0; i < count; i++)
        {
            const tn_chakra_node* node = tn_chakra_node_at(t, i);
            for (uint32_t k = 0; k < node->dep_count; k++)
            {
                start[node->deps[k] + 1]++;
            }
        }
        for (uint32_t i = 0; i < count; i++)
        {
            start[i + 1] += start[i];
        }
        std::vector<uint32_t> fill(start.begin(), start.end() - 1);
        m_users[r].resize(start[count]);
        for (uint32_t i = 0; i < count; i++)
        {
            const tn_chakra_node* node = tn_chakra_node_at(t, i);
            for (uint32_t k = 0; k < node->dep_count; k++)
            {
                m_users[r][fill[node->deps[k]]++] = i;
            }
        }
    }
    return true;
}

void
ChakraRunner::Start()
{
    for (uint32_t r = 0; r < m_ranks.size(); r++)
    {
        Ptr<Node> node = m_endpoints[r]->GetObject<Node>();
        Simulator::ScheduleWithContext(node ? node->GetId() : 0,
                                       Seconds(0),
                                       &ChakraRunner::StartIteration,
                                       this,
                                       r);
    }
}

bool
ChakraRunner::IsComplete() const
{
    for (const Rank& r : m_ranks)
    {
        if (!r.done)
        {
            return false;
        }
    }
    return !m_ranks.empty();
}

void
ChakraRunner::StartIteration(uint32_t rank)
{
    Rank& r = m_ranks[rank];
    const tn_chakra_trace* t = m_traces[rank];
    const uint32_t count = tn_chakra_node_count(t);
    r.current = TrainingIterationRecord();
    r.current.iteration = r.iteration;
    r.current.rank = rank;
    Ptr<CollectiveExecutor> exec = m_endpoints[rank]->GetObject<CollectiveExecutor>();
    r.current.node = exec->GetNic() ? exec->GetNic()->GetLocalId() : rank;
    r.current.start = Simulator::Now();
    r.current.split = false;
    for (uint32_t i = 0; i < count && !r.current.split; i++)
    {
        r.current.split = tn_chakra_node_at(t, i)->serves != TN_SERVES_NONE;
    }
    r.lastDone = UINT32_MAX;
    r.cause = UINT32_MAX;
    r.waiting.resize(count);
    r.left = count;
    for (uint32_t i = 0; i < count; i++)
    {
        r.waiting[i] = tn_chakra_node_at(t, i)->dep_count;
        if (r.waiting[i] == 0)
        {
            r.ready.push_back(i);
        }
    }
    Drain(rank);
}

void
ChakraRunner::Complete(uint32_t rank, uint32_t node)
{
    m_ranks[rank].finished.push_back(node);
    Drain(rank);
}

void
ChakraRunner::Drain(uint32_t rank)
{
    Rank& r = m_ranks[rank];
    if (r.draining)
    {
        return; // the loop below on the stack takes it
    }
    r.draining = true;
    while (!r.finished.empty() || !r.ready.empty())
    {
        if (!r.finished.empty())
        {
            const uint32_t i = r.finished.front();
            r.finished.pop_front();
            --r.left;
            r.lastDone = i;
            for (uint32_t u = m_userStart[rank][i]; u < m_userStart[rank][i + 1]; u++)
            {
                const uint32_t user = m_users[rank][u];
                if (--r.waiting[user] == 0)
                {
                    r.ready.push_back(user);
                    const tn_chakra_kind kind = tn_chakra_node_at(m_traces[rank], user)->kind;
                    if (r.idle && r.cause == UINT32_MAX &&
                        (kind == TN_CHAKRA_COMPUTE || kind == TN_CHAKRA_MEMORY))
                    {
                        r.cause = i; // its end let a kernel go: it ends the wait
                    }
                }
            }
            continue;
        }
        const uint32_t i = r.ready.front();
        r.ready.pop_front();
        Issue(rank, i);
    }
    r.draining = false;
    RunKernel(rank);
    if (r.left > 0 && !r.busy && !r.idle)
    {
        r.idle = true; // only communication is left to wait for
        r.idleSince = Simulator::Now();
    }
    if (r.left == 0 && !r.busy)
    {
        EndIdle(r);
        r.current.end = Simulator::Now();
        NS_LOG_INFO("NPU " << rank << " iteration " << r.iteration << ": "
                           << (r.current.end - r.current.start).As(Time::US));
        const TrainingIterationRecord record = r.current;
        if (++r.iteration == m_config.iterations)
        {
            r.done = true;
        }
        m_iterationEnd(record);
        if (!r.done)
        {
            StartIteration(rank);
        }
    }
}

void
ChakraRunner::EndIdle(Rank& r)
{
    if (!r.idle)
    {
        return;
    }
    const Time now = Simulator::Now();
    r.current.exposed += now - r.idleSince;
    r.idle = false;
    const uint32_t causeNode = r.cause != UINT32_MAX ? r.cause : r.lastDone;
    r.cause = UINT32_MAX;
    const tn_chakra_node* cause =
        causeNode == UINT32_MAX ? nullptr : tn_chakra_node_at(m_traces[r.current.rank], causeNode);
    const uint32_t serves = cause && cause->serves < TN_SERVES_COUNT ? cause->serves : 0;
    if (cause && cause->kind == TN_CHAKRA_RECV)
    {
        // until the peer reached its send, the stage waited for the peer's compute
        const Time bubbleEnd = std::min(now, std::max(r.idleSince, r.lastSendReached));
        r.current.bubble += bubbleEnd - r.idleSince;
        r.current.exposedBy[serves] += now - bubbleEnd;
        return;
    }
    r.current.exposedBy[serves] += now - r.idleSince;
}

void
ChakraRunner::Issue(uint32_t rank, uint32_t node)
{
    const tn_chakra_node* n = tn_chakra_node_at(m_traces[rank], node);
    if (n->kind == TN_CHAKRA_COMPUTE || n->kind == TN_CHAKRA_MEMORY)
    {
        m_ranks[rank].kernels.insert(node);
        return;
    }
    if (!m_config.network)
    {
        Rendezvous(rank, node);
        return;
    }
    IssueCommunication(rank, node);
}

std::vector<uint64_t>
ChakraRunner::CommunicationKey(uint32_t rank,
                               const tn_chakra_node* n,
                               std::vector<uint32_t>* ranks) const
{
    const uint32_t npus = m_ranks.size();
    std::vector<uint64_t> key{m_ranks[rank].iteration, n->match};
    ranks->clear();
    if (n->kind == TN_CHAKRA_COLLECTIVE)
    {
        for (uint32_t m = 0; m < (n->group ? n->group_count : npus); m++)
        {
            ranks->push_back(n->group ? n->group[m] : m);
        }
        key.push_back(0);
        key.insert(key.end(), ranks->begin(), ranks->end());
        return key;
    }
    // a transfer: a broadcast from the sender in the group {sender, receiver}
    const bool send = n->kind == TN_CHAKRA_SEND;
    *ranks = {send ? rank : n->peer, send ? n->peer : rank};
    key.insert(key.end(), {1, (*ranks)[0], (*ranks)[1], n->tag});
    return key;
}

void
ChakraRunner::Rendezvous(uint32_t rank, uint32_t node)
{
    const tn_chakra_node* n = tn_chakra_node_at(m_traces[rank], node);
    std::vector<uint32_t> ranks;
    std::vector<uint64_t> key = CommunicationKey(rank, n, &ranks);
    const Time now = Simulator::Now();
    if (n->kind == TN_CHAKRA_SEND)
    {
        m_ranks[rank].finished.push_back(node);
        auto waiting = m_waiting.find(key);
        if (waiting == m_waiting.end())
        {
            m_sendReached[key] = now;
            return;
        }
        const auto receiver = waiting->second.front();
        m_waiting.erase(waiting);
        m_ranks[receiver.first].lastSendReached = now;
        // a later event, not a nested call: a chain of peers could nest as deep as the ranks
        Simulator::ScheduleNow(&ChakraRunner::Complete, this, receiver.first, receiver.second);
        return;
    }
    if (n->kind == TN_CHAKRA_RECV)
    {
        auto sent = m_sendReached.find(key);
        if (sent == m_sendReached.end())
        {
            m_waiting[key].emplace_back(rank, node);
            return;
        }
        m_ranks[rank].lastSendReached = sent->second;
        m_sendReached.erase(sent);
        m_ranks[rank].finished.push_back(node);
        return;
    }
    std::vector<std::pair<uint32_t, uint32_t>>& arrived = m_waiting[key];
    arrived.emplace_back(rank, node);
    if (arrived.size() < ranks.size())
    {
        return;
    }
    std::vector<std::pair<uint32_t, uint32_t>> members;
    members.swap(arrived);
    m_waiting.erase(key);
    for (const auto& member : members)
    {
        if (member.first == rank)
        {
            m_ranks[rank].finished.push_back(member.second); // Drain on the stack takes it
        }
        else
        {
            Simulator::ScheduleNow(&ChakraRunner::Complete, this, member.first, member.second);
        }
    }
}

void
ChakraRunner::IssueCommunication(uint32_t rank, uint32_t node)
{
    const tn_chakra_node* n = tn_chakra_node_at(m_traces[rank], node);
    std::vector<uint32_t> ranks;
    std::vector<uint64_t> key = CommunicationKey(rank, n, &ranks);
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.bytes = n->comm_bytes;
    request.collective = n->kind == TN_CHAKRA_COLLECTIVE ? n->collective : TN_COLL_BROADCAST;
    if (n->kind == TN_CHAKRA_SEND)
    {
        m_sendReached[key] = Simulator::Now();
    }
    request.algorithm = m_config.algorithm[request.collective].c_str();
    if (ranks.size() < 2)
    {
        m_ranks[rank].finished.push_back(node); // a group of one has nothing to exchange
        return;
    }
    auto it = m_collectives.find(key);
    Ptr<Collective> c;
    if (it != m_collectives.end())
    {
        c = it->second;
    }
    else
    {
        std::string error;
        c = m_service->Create(request, ranks, &error);
        NS_ABORT_MSG_IF(!c,
                        "TrainingJob: " << tn_chakra_name(m_traces[rank]) << ": node " << n->id
                                        << ": " << error);
        m_collectives[key] = c;
        m_members[c->GetId()] = std::make_pair(uint32_t(ranks.size()), key);
        c->SetParallelism(tn_chakra_serves_name(n->serves));
        m_created(c);
    }
    m_parts[std::make_pair(c->GetId(), rank)] = node;
    m_endpoints[rank]->GetObject<CollectiveExecutor>()->Start(c);
}

void
ChakraRunner::RunKernel(uint32_t rank)
{
    Rank& r = m_ranks[rank];
    if (r.busy || r.kernels.empty())
    {
        return;
    }
    EndIdle(r);
    const uint32_t i = *r.kernels.begin();
    r.kernels.erase(r.kernels.begin());
    const tn_chakra_node* n = tn_chakra_node_at(m_traces[rank], i);
    uint64_t cycles = 0;
    if (n->kind == TN_CHAKRA_COMPUTE)
    {
        cycles = n->has_num_ops
                     ? n->num_ops / m_config.opsPerCycle + (n->num_ops % m_config.opsPerCycle != 0)
                     : static_cast<uint64_t>(double(n->duration_micros) * 1e-6 *
                                             m_endpoints[rank]->GetClockRate());
    }
    r.busy = true;
    r.running = i;
    r.current.compute +=
        m_endpoints[rank]->Compute(cycles,
                                   n->tensor_size,
                                   MakeCallback(&ChakraRunner::KernelDone, this).Bind(rank));
}

void
ChakraRunner::KernelDone(uint32_t rank)
{
    Rank& r = m_ranks[rank];
    r.busy = false;
    Complete(rank, r.running);
}

void
ChakraRunner::Forget(std::vector<uint64_t> key)
{
    m_collectives.erase(key);
}

void
ChakraRunner::PartEnd(uint32_t rank, Ptr<const Collective> c, uint32_t groupRank)
{
    auto it = m_parts.find(std::make_pair(c->GetId(), rank));
    if (it == m_parts.end())
    {
        return; // not the runner's
    }
    const uint32_t node = it->second;
    m_parts.erase(it);
    const tn_chakra_node* n = tn_chakra_node_at(m_traces[rank], node);
    if (n->kind == TN_CHAKRA_RECV)
    {
        std::vector<uint32_t> ranks;
        auto sent = m_sendReached.find(CommunicationKey(rank, n, &ranks));
        if (sent != m_sendReached.end())
        {
            m_ranks[rank].lastSendReached = sent->second;
            m_sendReached.erase(sent);
        }
    }
    auto members = m_members.find(c->GetId());
    if (members != m_members.end() && --members->second.first == 0)
    {
        // let go of it once the executor's call that ended the last part returned
        Simulator::ScheduleNow(&ChakraRunner::Forget, this, members->second.second);
        m_members.erase(members);
    }
    Complete(rank, node);
}

} // namespace ns3
