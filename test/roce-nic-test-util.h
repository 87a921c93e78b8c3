/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Shared helpers of the RDMA NIC test suites (header-only, test code only).
 */
#ifndef ROCE_NIC_TEST_UTIL_H
#define ROCE_NIC_TEST_UTIL_H

#include "roce-test-util.h"

#include "ns3/abort.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace roce_test
{

/// Wire bytes of a full data packet with payload p (no RETH).
inline uint64_t
DataWire(uint64_t payload)
{
    return payload + RdmaNic::DATA_WIRE_OVERHEAD;
}

/**
 * Chain NPU0 - S ... S - NPU1 with `hops` links (hops - 1 switches; 1 hop = direct cable).
 * NPU ids 0 and 1, switches 2.. .
 */
inline tn_topology*
MakeChain(uint32_t hops, uint64_t rateBps, uint64_t latencyNs)
{
    tn_topology* t = nullptr;
    tn_error err;
    NS_ABORT_IF(tn_topology_create(&t, &err) != TN_OK);
    uint32_t first;
    NS_ABORT_IF(tn_topology_add_nodes(t, TN_NODE_NPU, 2, &first, &err) != TN_OK);
    if (hops > 1)
    {
        NS_ABORT_IF(tn_topology_add_nodes(t, TN_NODE_SWITCH, hops - 1, &first, &err) != TN_OK);
    }
    std::vector<uint32_t> seq;
    seq.push_back(0);
    for (uint32_t s = 0; s + 1 < hops; ++s)
    {
        seq.push_back(2 + s);
    }
    seq.push_back(1);
    for (size_t i = 0; i + 1 < seq.size(); ++i)
    {
        NS_ABORT_IF(tn_topology_add_link(t,
                                         seq[i],
                                         seq[i + 1],
                                         rateBps,
                                         latencyNs,
                                         -1,
                                         nullptr,
                                         nullptr,
                                         &err) != TN_OK);
    }
    return t;
}

/// Star: NPUs 0..n-1 on one switch (node n).
inline tn_topology*
MakeStar(uint32_t n, uint64_t rateBps, uint64_t latencyNs)
{
    tn_topology* t = nullptr;
    tn_error err;
    tn_link_params lp{rateBps, latencyNs};
    NS_ABORT_IF(tn_topology_switch(n, &lp, &t, &err) != TN_OK);
    return t;
}

/// Sum of PFC PAUSE frames (quanta > 0) sent by every device of a fabric.
class PfcCounter
{
  public:
    void Connect(const RoceFabricNodes& f)
    {
        for (uint32_t i = 0; i < f.devices.GetN(); ++i)
        {
            f.devices.Get(i)->TraceConnectWithoutContext("PfcTx",
                                                         MakeCallback(&PfcCounter::PfcTx, this));
        }
    }

    void PfcTx(uint8_t priority, bool pause, uint16_t quanta)
    {
        if (pause)
        {
            ++pauses;
        }
        else
        {
            ++resumes;
        }
    }

    uint64_t pauses{0};
    uint64_t resumes{0};
};

/// Total drops of all RoceSwitch objects of a fabric.
inline uint64_t
TotalSwitchDrops(const RoceFabricNodes& f)
{
    uint64_t d = 0;
    for (uint32_t i = 0; i < f.nodes.GetN(); ++i)
    {
        Ptr<RoceSwitch> sw = f.nodes.Get(i)->GetObject<RoceSwitch>();
        if (sw)
        {
            d += sw->GetDrops();
        }
    }
    return d;
}

/// Collects completion records.
class Completions
{
  public:
    void Done(const RdmaMessageRecord& r)
    {
        records.push_back(r);
    }

    std::vector<RdmaMessageRecord> records;
};

} // namespace roce_test
} // namespace ns3

#endif // ROCE_NIC_TEST_UTIL_H
