/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "study-topology.h"

#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace ns3
{

uint64_t
StudyTopology::GetRate(Ptr<NetDevice> device)
{
    DataRateValue rate;
    if (device->GetAttributeFailSafe("DataRate", rate))
    {
        return rate.Get().GetBitRate();
    }
    Ptr<Channel> channel = device->GetChannel();
    if (channel && channel->GetAttributeFailSafe("DataRate", rate))
    {
        return rate.Get().GetBitRate();
    }
    return 0;
}

namespace
{

/** A device named in an error: node, index and type. */
std::string
Describe(Ptr<NetDevice> device)
{
    return "node " + std::to_string(device->GetNode()->GetId()) + " device " +
           std::to_string(device->GetIfIndex()) + " (" + device->GetInstanceTypeId().GetName() +
           ")";
}

} // namespace

tn_topology*
StudyTopology::Read(const NodeContainer& npus, std::vector<Ptr<Node>>* nodes, std::string* error)
{
    tn_error err;
    tn_topology* topo = nullptr;
    if (npus.GetN() == 0)
    {
        *error = "no NPU nodes";
        return nullptr;
    }
    if (tn_topology_create(&topo, &err) != TN_OK)
    {
        *error = err.message;
        return nullptr;
    }
    std::map<uint32_t, uint32_t> ids; // ns-3 node id -> topology node id
    std::deque<Ptr<Node>> pending;
    nodes->clear();
    auto add = [&](Ptr<Node> node, tn_node_kind kind) {
        uint32_t id = 0;
        if (tn_topology_add_node(topo, kind, &id, &err) != TN_OK)
        {
            return false;
        }
        ids[node->GetId()] = id;
        nodes->push_back(node);
        pending.push_back(node);
        return true;
    };
    for (uint32_t r = 0; r < npus.GetN(); ++r)
    {
        if (ids.count(npus.Get(r)->GetId()))
        {
            *error = "node " + std::to_string(npus.Get(r)->GetId()) + " is listed twice";
            tn_topology_destroy(topo);
            return nullptr;
        }
        if (!add(npus.Get(r), TN_NODE_NPU))
        {
            *error = err.message;
            tn_topology_destroy(topo);
            return nullptr;
        }
    }
    std::set<Ptr<Channel>> seen;
    bool ok = true;
    while (ok && !pending.empty())
    {
        Ptr<Node> node = pending.front();
        pending.pop_front();
        for (uint32_t d = 0; ok && d < node->GetNDevices(); ++d)
        {
            Ptr<NetDevice> device = node->GetDevice(d);
            Ptr<Channel> channel = device->GetChannel();
            if (!channel || channel->GetNDevices() < 2 || !seen.insert(channel).second)
            {
                continue;
            }
            TimeValue delay;
            const uint64_t latencyNs =
                channel->GetAttributeFailSafe("Delay", delay) ? delay.Get().GetNanoSeconds() : 0;
            std::vector<Ptr<NetDevice>> ends;
            uint64_t rate = UINT64_MAX;
            for (std::size_t k = 0; k < channel->GetNDevices(); ++k)
            {
                Ptr<NetDevice> end = channel->GetDevice(k);
                const uint64_t r = GetRate(end);
                if (r == 0)
                {
                    *error = Describe(end) + ": no DataRate attribute on it or on its channel (" +
                             channel->GetInstanceTypeId().GetName() +
                             "): the link rate cannot be read";
                    ok = false;
                    break;
                }
                rate = std::min(rate, r);
                ends.push_back(end);
            }
            for (std::size_t k = 0; ok && k < ends.size(); ++k)
            {
                Ptr<Node> n = ends[k]->GetNode();
                ok = ids.count(n->GetId()) || add(n, TN_NODE_SWITCH);
            }
            if (!ok)
            {
                break;
            }
            if (ends.size() == 2)
            {
                ok = tn_topology_add_link(topo,
                                          ids[ends[0]->GetNode()->GetId()],
                                          ids[ends[1]->GetNode()->GetId()],
                                          rate,
                                          latencyNs,
                                          -1,
                                          nullptr,
                                          nullptr,
                                          &err) == TN_OK;
                continue;
            }
            // a shared medium: one switch for the channel, a cable to each node on it
            uint32_t bus = 0;
            ok = tn_topology_add_node(topo, TN_NODE_SWITCH, &bus, &err) == TN_OK;
            nodes->push_back(nullptr);
            for (std::size_t k = 0; ok && k < ends.size(); ++k)
            {
                ok = tn_topology_add_link(topo,
                                          ids[ends[k]->GetNode()->GetId()],
                                          bus,
                                          rate,
                                          latencyNs,
                                          -1,
                                          nullptr,
                                          nullptr,
                                          &err) == TN_OK;
            }
        }
        if (!ok && error->empty())
        {
            *error = err.message;
        }
    }
    if (!ok)
    {
        tn_topology_destroy(topo);
        return nullptr;
    }
    for (uint32_t r = 0; r < npus.GetN(); ++r)
    {
        if (tn_topology_degree(topo, r) == 0)
        {
            *error = "NPU rank " + std::to_string(r) + " (node " +
                     std::to_string(npus.Get(r)->GetId()) + ") has no link to any other node";
            tn_topology_destroy(topo);
            return nullptr;
        }
    }
    return topo;
}

} // namespace ns3
