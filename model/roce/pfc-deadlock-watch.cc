/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-deadlock-watch.h"

#include "roce-header.h"
#include "roce-net-device.h"
#include "roce-switch.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcDeadlockWatch");

NS_OBJECT_ENSURE_REGISTERED(PfcDeadlockWatch);

TypeId
PfcDeadlockWatch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcDeadlockWatch")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<PfcDeadlockWatch>()
            .AddAttribute("Enabled",
                          "Watch for PFC deadlocks (cycles of ports paused for good).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PfcDeadlockWatch::m_enabled),
                          MakeBooleanChecker())
            .AddAttribute("PauseThreshold",
                          "How long a port must stay paused, holding bytes, before its "
                          "wait-for graph is searched for a cycle (doc/run-not-finishing.rst: "
                          "about 6 times the longest pause measured in healthy runs, 168 us).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&PfcDeadlockWatch::m_threshold),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("StopSimulation",
                          "Stop the simulation when a deadlock is found.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PfcDeadlockWatch::m_stop),
                          MakeBooleanChecker())
            .AddAttribute("MaxFlowsReported",
                          "Flows the message names (the rest are counted).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&PfcDeadlockWatch::m_maxFlows),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Deadlock",
                            "A PFC deadlock was found.",
                            MakeTraceSourceAccessor(&PfcDeadlockWatch::m_deadlockTrace),
                            "ns3::PfcDeadlockWatch::DeadlockTracedCallback");
    return tid;
}

PfcDeadlockWatch::PfcDeadlockWatch()
{
    NS_LOG_FUNCTION(this);
}

PfcDeadlockWatch::~PfcDeadlockWatch()
{
    NS_LOG_FUNCTION(this);
}

void
PfcDeadlockWatch::DoDispose()
{
    m_wake.Cancel();
    m_switches.clear();
    m_index.clear();
    Object::DoDispose();
}

void
PfcDeadlockWatch::Add(Ptr<RoceSwitch> sw, uint32_t nodeId)
{
    NS_LOG_FUNCTION(this << sw << nodeId);
    const uint32_t index = m_switches.size();
    m_switches.push_back(sw);
    m_nodeIds.push_back(nodeId);
    m_index[PeekPointer(sw)] = index;
    sw->TraceConnectWithoutContext(
        "PfcPause",
        MakeBoundCallback(
            +[](PfcDeadlockWatch* w, uint32_t i, uint32_t port, uint8_t prio, bool sent) {
                w->PauseTraced(i, port, prio, sent);
            },
            this,
            index));
}

void
PfcDeadlockWatch::PauseTraced(uint32_t, uint32_t, uint8_t, bool sent)
{
    if (sent || !m_enabled || m_found || m_wake.IsRunning())
    {
        return;
    }
    m_wake = Simulator::Schedule(m_threshold, &PfcDeadlockWatch::Wake, this);
}

void
PfcDeadlockWatch::Wake()
{
    if (Check() || GetPausedPorts() == 0)
    {
        return; // the next pause starts the watch again
    }
    m_wake = Simulator::Schedule(m_threshold / 2, &PfcDeadlockWatch::Wake, this);
}

uint32_t
PfcDeadlockWatch::GetPausedPorts() const
{
    uint32_t n = 0;
    for (const Ptr<RoceSwitch>& sw : m_switches)
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            uint8_t mask = sw->GetPort(p)->GetPausedMask();
            for (; mask; mask &= static_cast<uint8_t>(mask - 1))
            {
                ++n;
            }
        }
    }
    return n;
}

namespace
{
/// A vertex of the wait-for graph: a paused egress queue holding frames.
struct Vertex
{
    uint32_t sw;      //!< switch index
    uint32_t port;    //!< egress port
    uint8_t priority; //!< paused priority
    //! (ingress port, ingress priority) of its frames (sorted, unique): a dateline moves a
    //! frame to another priority than the one its ingress buffer holds it on
    std::vector<std::pair<uint32_t, uint8_t>> tags;
};
} // namespace

bool
PfcDeadlockWatch::Check()
{
    if (m_found)
    {
        return true;
    }
    const Time now = Simulator::Now();
    std::vector<Vertex> vertices;
    // (switch, ingress port, priority) -> the vertices holding frames that came in there
    std::map<std::tuple<uint32_t, uint32_t, uint8_t>, std::vector<uint32_t>> holders;
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        for (uint32_t p = 0; p < m_switches[s]->GetNPorts(); ++p)
        {
            Ptr<RoceNetDevice> dev = m_switches[s]->GetPort(p);
            for (uint8_t q = 0; q < RoceNetDevice::NUM_PRIORITIES; ++q)
            {
                if (!dev->IsPaused(q) || dev->GetQueueBytes(q) == 0 ||
                    now - dev->GetPausedSince(q) < m_threshold)
                {
                    continue;
                }
                Vertex v{s, p, q, {}};
                dev->VisitQueue(q, [&v, q](Ptr<const Packet>, uint32_t tag) {
                    v.tags.emplace_back(RoceSwitch::TagPort(tag), RoceSwitch::TagPriority(tag, q));
                });
                std::sort(v.tags.begin(), v.tags.end());
                v.tags.erase(std::unique(v.tags.begin(), v.tags.end()), v.tags.end());
                for (const auto& [port, priority] : v.tags)
                {
                    holders[{s, port, priority}].push_back(vertices.size());
                }
                vertices.push_back(std::move(v));
            }
        }
    }
    if (vertices.empty())
    {
        return false;
    }
    // successors of a vertex: the paused egresses of the peer holding frames of its ingress
    auto successors = [&](uint32_t i) -> const std::vector<uint32_t>* {
        static const std::vector<uint32_t> none;
        Ptr<RoceNetDevice> peer = m_switches[vertices[i].sw]->GetPort(vertices[i].port)->GetPeer();
        if (!peer || !peer->GetNode())
        {
            return &none;
        }
        Ptr<RoceSwitch> next = peer->GetNode()->GetObject<RoceSwitch>();
        auto it = next ? m_index.find(PeekPointer(next)) : m_index.end();
        if (it == m_index.end())
        {
            return &none;
        }
        // the peer holds the frames this vertex sends in the ingress buffer of their priority
        auto h = holders.find({it->second, peer->GetPortIndex(), vertices[i].priority});
        return h == holders.end() ? &none : &h->second;
    };

    // iterative depth-first search; a successor on the stack closes a cycle
    enum : uint8_t
    {
        WHITE,
        GREY,
        BLACK
    };

    std::vector<uint8_t> colour(vertices.size(), WHITE);
    std::vector<std::pair<uint32_t, uint32_t>> stack; // (vertex, next successor to try)
    std::vector<uint32_t> loop;
    for (uint32_t root = 0; root < vertices.size() && loop.empty(); ++root)
    {
        if (colour[root] != WHITE)
        {
            continue;
        }
        colour[root] = GREY;
        stack.emplace_back(root, 0);
        while (!stack.empty() && loop.empty())
        {
            auto& [v, k] = stack.back();
            const std::vector<uint32_t>& next = *successors(v);
            if (k == next.size())
            {
                colour[v] = BLACK;
                stack.pop_back();
                continue;
            }
            const uint32_t w = next[k++];
            if (colour[w] == GREY)
            {
                size_t from = stack.size();
                while (stack[from - 1].first != w)
                {
                    --from;
                }
                for (size_t j = from - 1; j < stack.size(); ++j)
                {
                    loop.push_back(stack[j].first);
                }
            }
            else if (colour[w] == WHITE)
            {
                colour[w] = GREY;
                stack.emplace_back(w, 0);
            }
        }
        stack.clear();
    }
    if (loop.empty())
    {
        return false;
    }
    m_found = true;
    m_deadlock.detected = now;
    m_deadlock.since = Time(0);
    for (uint32_t i : loop)
    {
        const Vertex& v = vertices[i];
        Ptr<RoceNetDevice> dev = m_switches[v.sw]->GetPort(v.port);
        Ptr<RoceNetDevice> peer = dev->GetPeer();
        PfcDeadlockHop hop;
        hop.node = m_nodeIds[v.sw];
        hop.port = v.port;
        hop.priority = v.priority;
        const uint32_t peerIndex = m_index[PeekPointer(peer->GetNode()->GetObject<RoceSwitch>())];
        hop.peerNode = m_nodeIds[peerIndex];
        hop.peerPort = peer->GetPortIndex();
        hop.pausedSince = dev->GetPausedSince(v.priority);
        hop.queueBytes = dev->GetQueueBytes(v.priority);
        hop.packets = dev->GetQueuePackets(v.priority);
        m_deadlock.since = std::max(m_deadlock.since, hop.pausedSince);
        m_deadlock.cycle.push_back(hop);
    }
    Describe();
    NS_LOG_WARN(m_deadlock.message);
    m_deadlockTrace(m_deadlock);
    if (m_stop)
    {
        Simulator::Stop();
    }
    return true;
}

void
PfcDeadlockWatch::Describe()
{
    typedef std::map<std::tuple<uint32_t, uint32_t, uint16_t, uint8_t>, PfcDeadlockFlow> FlowMap;
    // most bytes first, ties in flow order (deterministic)
    auto sorted = [](const FlowMap& map) {
        std::vector<PfcDeadlockFlow> v;
        for (const auto& [key, f] : map)
        {
            v.push_back(f);
        }
        std::stable_sort(
            v.begin(),
            v.end(),
            [](const PfcDeadlockFlow& a, const PfcDeadlockFlow& b) { return a.bytes > b.bytes; });
        return v;
    };
    FlowMap flows;
    for (PfcDeadlockHop& hop : m_deadlock.cycle)
    {
        const uint32_t s =
            std::find(m_nodeIds.begin(), m_nodeIds.end(), hop.node) - m_nodeIds.begin();
        FlowMap here;
        m_switches[s]->GetPort(hop.port)->VisitQueue(
            hop.priority,
            [&here](Ptr<const Packet> p, uint32_t) {
                RoceIpUdpHeader ip;
                p->PeekHeader(ip);
                const auto key = std::make_tuple(RoceAddress::ToNodeId(ip.GetSourceRaw()),
                                                 RoceAddress::ToNodeId(ip.GetDestinationRaw()),
                                                 ip.GetSourcePort(),
                                                 ip.GetDscp());
                PfcDeadlockFlow& f = here[key];
                std::tie(f.src, f.dst, f.sport, f.priority) = key;
                f.bytes += p->GetSize();
                f.packets++;
            });
        std::ostringstream os;
        const std::vector<PfcDeadlockFlow> list = sorted(here);
        for (size_t i = 0; i < list.size(); ++i)
        {
            if (i == m_maxFlows)
            {
                os << ", " << list.size() - i << " more";
                break;
            }
            os << (i ? ", " : "") << list[i].src << "->" << list[i].dst << ":" << list[i].sport
               << " " << list[i].bytes;
        }
        hop.flows = os.str();
        for (const auto& [key, f] : here)
        {
            PfcDeadlockFlow& all = flows[key];
            all.src = f.src;
            all.dst = f.dst;
            all.sport = f.sport;
            all.priority = f.priority;
            all.bytes += f.bytes;
            all.packets += f.packets;
        }
    }
    m_deadlock.flows = sorted(flows);
    std::ostringstream os;
    os << "PFC deadlock found at " << m_deadlock.detected.GetMicroSeconds() / 1e3
       << " ms: a cycle of " << m_deadlock.cycle.size() << " paused ports, closed since "
       << m_deadlock.since.GetMicroSeconds() / 1e3 << " ms:";
    for (const PfcDeadlockHop& hop : m_deadlock.cycle)
    {
        os << " node " << hop.node << ":" << hop.port << " prio " << unsigned(hop.priority)
           << " ->";
    }
    const PfcDeadlockHop& first = m_deadlock.cycle.front();
    os << " node " << first.node << ":" << first.port << "; frames of " << flows.size()
       << " flow(s) wait in it:";
    const size_t shown = std::min<size_t>(m_maxFlows, m_deadlock.flows.size());
    for (size_t i = 0; i < shown; ++i)
    {
        const PfcDeadlockFlow& f = m_deadlock.flows[i];
        os << (i ? ", " : " ") << "node " << f.src << " -> node " << f.dst << " (sport " << f.sport
           << ", " << f.bytes << " B)";
    }
    if (shown < m_deadlock.flows.size())
    {
        os << " and " << m_deadlock.flows.size() - shown << " more";
    }
    m_deadlock.message = os.str();
}

} // namespace ns3
