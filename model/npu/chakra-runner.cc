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
#include "ns3/tn-symmetry.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRunner");

ChakraRunner::ChakraRunner(const std::vector<tn_chakra_trace*>& traces,
                           Ptr<CollectiveService> service,
                           const std::vector<Ptr<NpuEndpoint>>& endpoints,
                           const Config& config,
                           IterationCallback iterationEnd,
                           CreatedCallback created,
                           FailedCallback failed)
    : m_traces(traces),
      m_service(service),
      m_endpoints(endpoints),
      m_config(config),
      m_iterationEnd(iterationEnd),
      m_created(created),
      m_failed(failed)
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
    m_symmetric = m_config.network && m_service->IsSymmetric();
    m_period = m_symmetric ? m_service->GetSymmetricPeriod() : m_endpoints.size();
    // on a symmetric network the representatives' traces may come alone (CheckSymmetric)
    if ((m_symmetric ? tn_chakra_check_present(m_traces.data(), m_traces.size(), &err)
                     : tn_chakra_check(m_traces.data(), m_traces.size(), &err)) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    if (!CheckKernels(error))
    {
        return false;
    }
    const uint32_t n = m_endpoints.size();
    if (m_symmetric && !CheckSymmetric(error))
    {
        return false;
    }
    if (m_config.network && !CheckCommunication(error))
    {
        return false;
    }
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
        if (r >= m_period)
        {
            m_ranks[r].done = true; // its representative stands for it (CheckSymmetric)
            continue;
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

bool
ChakraRunner::CheckKernels(std::string* error) const
{
    // a kernel takes at most what a text workload's compute may, TN_WORKLOAD_MAX_CYCLES at
    // 1 GHz (one second) at its NPU's ClockRate; beyond, ns-3's 64-bit time wraps or the run
    // goes on for simulated hours. Generated programs count FLOPs at a FLOP/s clock.
    for (uint32_t r = 0; r < m_period; r++)
    {
        const tn_chakra_trace* t = m_traces[r];
        const double clock = double(m_endpoints[r]->GetClockRate());
        const double most = double(TN_WORKLOAD_MAX_CYCLES) / 1e9 * clock;
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            if (n->kind != TN_CHAKRA_COMPUTE || !n->has_num_ops)
            {
                continue;
            }
            const uint64_t cycles =
                n->num_ops / m_config.opsPerCycle + (n->num_ops % m_config.opsPerCycle != 0);
            if (double(cycles) > most)
            {
                *error = std::string(tn_chakra_name(t)) + ": node " + std::to_string(n->id) +
                         ": num_ops " + std::to_string(n->num_ops) + " is " +
                         std::to_string(cycles) + " cycles at TrainingJob::OpsPerCycle " +
                         std::to_string(m_config.opsPerCycle) + ", more than a kernel takes (" +
                         std::to_string(uint64_t(most)) + " cycles, one second at the NPU's " +
                         "ClockRate, as a text workload's compute)";
                return false;
            }
        }
    }
    return true;
}

bool
ChakraRunner::CheckSymmetric(std::string* error) const
{
    // the NPUs below the period run for all: every other NPU must do what its representative
    // does, moved by the translation between them (its trace, when given, is checked; the
    // collectives across representative sets are checked by the service when planned)
    const std::string why = "on a symmetric flow network (FlowNetwork::Symmetric) ";
    const uint32_t npus = m_endpoints.size();
    for (uint32_t r = 0; r < npus; r++)
    {
        Ptr<CollectiveExecutor> exec = m_service->GetExecutor(r);
        if (!exec || exec != m_endpoints[r]->GetObject<CollectiveExecutor>())
        {
            *error = why + "the job's NPU " + std::to_string(r) + " must be the topology's NPU " +
                     std::to_string(r);
            return false;
        }
    }
    const tn_symmetry* symmetry = m_service->GetSymmetry();
    std::vector<uint32_t> image(npus);
    for (uint32_t r = m_period; r < npus; r++)
    {
        if (!m_traces[r])
        {
            continue;
        }
        const uint32_t g = tn_symmetry_translation(symmetry, r % m_period, r);
        for (uint32_t x = 0; x < npus; x++)
        {
            image[x] = tn_symmetry_shift_rank(symmetry, g, x);
        }
        tn_error err;
        uint32_t differs = UINT32_MAX;
        if (tn_chakra_compare_translate(m_traces[r % m_period],
                                        m_traces[r],
                                        image.data(),
                                        npus,
                                        &differs,
                                        &err) != TN_OK)
        {
            const std::string where =
                std::string(tn_chakra_name(m_traces[r])) +
                (differs == UINT32_MAX
                     ? ""
                     : ": node " + std::to_string(tn_chakra_node_at(m_traces[r], differs)->id));
            *error = where + ": " + why + "NPU " + std::to_string(r % m_period) + " runs for NPU " +
                     std::to_string(r) + ", so its trace must be NPU " +
                     std::to_string(r % m_period) +
                     "'s moved by the translation between them: " + err.message;
            return false;
        }
    }
    return true;
}

tn_plan_request
ChakraRunner::RequestOf(uint32_t rank, const tn_chakra_node* n, std::vector<uint32_t>* ranks) const
{
    const uint32_t npus = m_endpoints.size();
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.bytes = n->comm_bytes;
    ranks->clear();
    if (n->kind == TN_CHAKRA_COLLECTIVE)
    {
        request.collective = n->collective;
        for (uint32_t m = 0; m < (n->group ? n->group_count : npus); m++)
        {
            ranks->push_back(n->group ? n->group[m] : m);
        }
    }
    else
    {
        // a transfer: a broadcast from the sender in the group {sender, receiver}
        const bool send = n->kind == TN_CHAKRA_SEND;
        request.collective = TN_COLL_BROADCAST;
        *ranks = {send ? rank : n->peer, send ? n->peer : rank};
    }
    request.algorithm =
        m_config.algorithm[n->serves < TN_SERVES_COUNT ? n->serves : 0][request.collective].c_str();
    return request;
}

std::vector<uint32_t>
ChakraRunner::ToNpus(const std::vector<uint32_t>& ranks) const
{
    if (m_config.npuOfRank.empty())
    {
        return ranks;
    }
    std::vector<uint32_t> npus;
    npus.reserve(ranks.size());
    for (uint32_t r : ranks)
    {
        // a group or peer beyond the job's ranks: the service refuses the rank itself
        npus.push_back(r < m_config.npuOfRank.size() ? m_config.npuOfRank[r] : UINT32_MAX);
    }
    return npus;
}

bool
ChakraRunner::CheckCommunication(std::string* error)
{
    // plan every distinct collective and transfer now, as TrainingJob::Setup does for a text
    // workload: an algorithm that does not fit its group, or a symmetric network's refusal,
    // is an error before the run, not when a rank reaches the node
    std::set<std::tuple<int, uint64_t, std::vector<uint32_t>>> checked;
    for (uint32_t r = 0; r < m_period; r++)
    {
        const tn_chakra_trace* t = m_traces[r];
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            if (n->kind != TN_CHAKRA_COLLECTIVE && n->kind != TN_CHAKRA_SEND)
            {
                continue; // a receive is its send's transfer
            }
            std::vector<uint32_t> ranks;
            const tn_plan_request request = RequestOf(r, n, &ranks);
            if (ranks.size() < 2 ||
                !checked.emplace(int(request.collective), request.bytes, ranks).second)
            {
                continue;
            }
            // verified while the next one is planned (AwaitVerifications below)
            if (!m_service->CheckDeferred(request, ToNpus(ranks), error))
            {
                *error = std::string(tn_chakra_name(t)) + ": node " + std::to_string(n->id) + ": " +
                         *error;
                return false;
            }
        }
    }
    return m_service->AwaitVerifications(error);
}

void
ChakraRunner::Start()
{
    for (uint32_t r = 0; r < m_period; r++)
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
    r.issuedAt.assign(count, Time());
    r.doneAt.assign(count, Time());
    r.sendReachedAt.clear();
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
            r.doneAt[i] = Simulator::Now();
            for (uint32_t u = m_userStart[rank][i]; u < m_userStart[rank][i + 1]; u++)
            {
                if (--r.waiting[m_users[rank][u]] == 0)
                {
                    r.ready.push_back(m_users[rank][u]);
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
        EndIdle(r, UINT32_MAX);
        EndStep(r);
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
ChakraRunner::Charge(Rank& r, uint32_t n, Time from, Time to)
{
    if (to <= from)
    {
        return;
    }
    const tn_chakra_node* node = tn_chakra_node_at(m_traces[r.current.rank], n);
    const uint32_t serves = node->serves < TN_SERVES_COUNT ? node->serves : 0;
    auto sent = r.sendReachedAt.find(n);
    if (node->kind == TN_CHAKRA_RECV && sent != r.sendReachedAt.end())
    {
        // until the peer reached its send, the stage waited for the peer's compute
        const Time bubbleEnd = std::min(to, std::max(from, sent->second));
        r.current.bubble += bubbleEnd - from;
        r.current.exposedBy[serves] += to - bubbleEnd;
        return;
    }
    r.current.exposedBy[serves] += to - from;
}

void
ChakraRunner::EndIdle(Rank& r, uint32_t kernel)
{
    if (!r.idle)
    {
        return;
    }
    const Time now = Simulator::Now();
    r.current.exposed += now - r.idleSince;
    r.idle = false;
    const tn_chakra_trace* t = m_traces[r.current.rank];
    // walk back the chain of latest dependencies, each taking the wait from its issue on
    auto latest = [&](const tn_chakra_node* n) {
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < n->dep_count; k++)
        {
            if (best == UINT32_MAX || r.doneAt[n->deps[k]] > r.doneAt[best])
            {
                best = n->deps[k];
            }
        }
        return best;
    };
    uint32_t cur = kernel != UINT32_MAX ? latest(tn_chakra_node_at(t, kernel)) : r.lastDone;
    Time until = now;
    uint32_t last = cur;
    while (cur != UINT32_MAX && until > r.idleSince)
    {
        const tn_chakra_node* n = tn_chakra_node_at(t, cur);
        if (n->kind == TN_CHAKRA_COMPUTE || n->kind == TN_CHAKRA_MEMORY)
        {
            break; // a kernel ran then: the wait began after it
        }
        const Time from = std::max(r.idleSince, r.issuedAt[cur]);
        Charge(r, cur, from, std::min(until, r.doneAt[cur]));
        until = std::min(until, from);
        last = cur;
        cur = latest(n);
    }
    if (until > r.idleSince && last != UINT32_MAX)
    {
        Charge(r, last, r.idleSince, until); // what the chain does not explain
    }
    else if (until > r.idleSince)
    {
        r.current.exposedBy[TN_SERVES_NONE] += until - r.idleSince;
    }
}

void
ChakraRunner::Issue(uint32_t rank, uint32_t node)
{
    m_ranks[rank].issuedAt[node] = Simulator::Now();
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
    RequestOf(rank, n, ranks); // the group: a collective's, or a transfer's {sender, receiver}
    std::vector<uint64_t> key{m_ranks[rank].iteration, n->match};
    if (n->kind == TN_CHAKRA_COLLECTIVE)
    {
        key.push_back(0);
        key.insert(key.end(), ranks->begin(), ranks->end());
        return key;
    }
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
        m_ranks[receiver.first].sendReachedAt[receiver.second] = now;
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
        m_ranks[rank].sendReachedAt[node] = sent->second;
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
    const std::vector<uint64_t> key = CommunicationKey(rank, n, &ranks);
    const tn_plan_request request = RequestOf(rank, n, &ranks);
    if (n->kind == TN_CHAKRA_SEND)
    {
        m_sendReached[key] = Simulator::Now();
    }
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
        c = m_service->Create(request, ToNpus(ranks), &error);
        if (!c)
        {
            // planned at set-up (CheckCommunication): what is left is what holds at run
            // time, the memory of the generated collectives in flight
            m_failed(std::string(tn_chakra_name(m_traces[rank])) + ": node " +
                     std::to_string(n->id) + ": " + error);
            return;
        }
        m_collectives[key] = c;
        // on a symmetric network only the representatives' parts end
        const uint32_t running =
            std::count_if(ranks.begin(), ranks.end(), [&](uint32_t m) { return m < m_period; });
        m_members[c->GetId()] = std::make_pair(running, key);
        c->SetParallelism(tn_chakra_serves_name(n->serves));
        c->SetOrigin(std::string(tn_chakra_name(m_traces[rank])) + " node " +
                     std::to_string(n->id) + (n->name ? std::string(" (") + n->name + ")" : ""));
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
    const uint32_t i = *r.kernels.begin();
    EndIdle(r, i);
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
    if (r.step != n->step)
    {
        EndStep(r);
        r.step = n->step;
        r.stepRecord = TrainingLayerRecord();
        r.stepRecord.iteration = r.iteration;
        r.stepRecord.layer = n->step - 1;
        r.stepRecord.rank = r.current.rank;
        r.stepRecord.node = r.current.node;
        // "F3.L12.attn" -> step "F3" (a recomputation opens its backward step: "B3")
        const std::string name = n->name ? n->name : "";
        const bool forward = !name.empty() && name[0] == 'F';
        r.stepRecord.name = (forward ? "F" : "B") + name.substr(1, name.find('.') - 1);
        r.stepRecord.phase = forward ? "forward" : "backward";
        r.stepRecord.pass = forward ? TN_PASS_FWD : TN_PASS_IG;
        r.stepRecord.start = Simulator::Now();
    }
    const Time t =
        m_endpoints[rank]->Compute(cycles,
                                   n->tensor_size,
                                   MakeCallback(&ChakraRunner::KernelDone, this).Bind(rank));
    r.current.compute += t;
    r.stepRecord.compute += t;
    r.stepRecord.end = Simulator::Now() + t;
}

void
ChakraRunner::EndStep(Rank& r)
{
    if (r.step != 0 && !m_stepEnd.IsNull())
    {
        r.stepRecord.exposed = r.stepRecord.end - r.stepRecord.start - r.stepRecord.compute;
        m_stepEnd(r.stepRecord);
    }
    r.step = 0;
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
            m_ranks[rank].sendReachedAt[node] = sent->second;
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
