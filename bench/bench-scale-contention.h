/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-scale's contention rows (bench-scale.cc, file head): the contended cases of
 * doc/scale.rst, where many flows share links and the fluid engine recomputes max-min rates
 * at every instant flows end, run at flow level beside packet level (the baseline). Issue
 * 41's goal: flow level at least 10 times faster on each. Compared by the CPU time of the
 * simulation (Simulator::Run) measured in the child, the machine being shared (wall time
 * follows its load); the set-up (topology, fabric, plan and its cost estimate, alike at
 * both levels, and ns-3's first-use initialisation) is stated apart.
 */
#ifndef BENCH_SCALE_CONTENTION_H
#define BENCH_SCALE_CONTENTION_H

#include "ns3/collective-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

namespace ns3
{
namespace bench
{

/// One contended case: a collective with ECMP routing, or an n-to-1 incast (`incast` > 0).
struct ContentionCase
{
    std::string label;     //!< the algorithm column
    std::string spec;      //!< topology
    tn_collective kind;    //!< the collective (unused by an incast)
    std::string algorithm; //!< planning algorithm (unused by an incast)
    uint64_t bytes;        //!< per rank (the incast: per sender)
    uint32_t incast;       //!< senders of an incast toward the last NPU; 0: a collective
};

/// doc/scale.rst's contended cases (4 MiB, ECMP) and the fattree:k=8 all-to-all.
inline std::vector<ContentionCase>
ContentionCases()
{
    const uint64_t mib = 1 << 20;
    return {
        {"a2a direct", "fattree:k=4", TN_COLL_ALL_TO_ALL, "direct", 4 * mib, 0},
        {"a2a direct", "fattree:k=8", TN_COLL_ALL_TO_ALL, "direct", 1 * mib, 0},
        {"8-to-1 incast", "switch:9,rate=100Gbps,latency=1us", TN_COLL_ALL_REDUCE, "", 4 * mib, 8},
        {"rhd", "bigraph:4x8", TN_COLL_ALL_REDUCE, "rhd", 4 * mib, 0},
    };
}

/// Last arrival of the incast's messages, ns (-1: not all arrived).
class IncastArrivals
{
  public:
    /// a message arrived
    void Received(const RdmaMessageRecord& r)
    {
        m_count++;
        m_last = std::max(m_last, static_cast<double>(r.end.GetNanoSeconds()));
    }

    uint32_t m_count{0}; //!< messages arrived
    double m_last{-1};   //!< last arrival, ns
};

/// CPU time of this process, s.
inline double
ProcessCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

/**
 * One contended case at `mode` level, without a database; *line: "MODE level T us, N
 * transfers, set-up S ms, run R ms, U us per transfer": CPU times, the run's per transfer.
 */
inline int
SimulateContention(const ContentionCase& c, const std::string& mode, std::string* line)
{
    const double cpu0 = ProcessCpuSeconds();
    double cpu1 = cpu0; // the run starts
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(c.spec.c_str(), &topo, &err) != TN_OK)
    {
        *line = err.message;
        return 1;
    }
    RoceHelper roce;
    roce.SetMode(mode);
    roce.Install(topo);
    double ns = -1;
    uint64_t transfers = 0;
    std::string error;
    if (c.incast > 0)
    {
        IncastArrivals arrivals;
        const uint32_t dst = tn_topology_npu_node(topo, c.incast);
        roce.GetTransport(dst)->TraceConnectWithoutContext(
            "MessageReceived",
            MakeCallback(&IncastArrivals::Received, &arrivals));
        for (uint32_t r = 0; r < c.incast; r++)
        {
            RdmaWriteRequest w;
            w.dst = dst;
            w.bytes = c.bytes;
            w.hasImmediate = true;
            roce.GetTransport(r)->Post(w);
        }
        cpu1 = ProcessCpuSeconds();
        Simulator::Run();
        transfers = c.incast;
        ns = arrivals.m_count == c.incast ? arrivals.m_last : -1;
        error = "not every message arrived";
    }
    else
    {
        CollectiveHelper collectives;
        collectives.SetRouting("ecmp");
        collectives.Install(topo, roce);
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.collective = c.kind;
        req.algorithm = c.algorithm.c_str();
        req.bytes = c.bytes;
        Ptr<Collective> coll = collectives.Create(req, {}, &error);
        if (coll)
        {
            collectives.Start(coll);
            cpu1 = ProcessCpuSeconds();
            Simulator::Run();
            error = coll->Check();
            if (coll->IsComplete() && error.empty())
            {
                ns = static_cast<double>(coll->GetDuration().GetNanoSeconds());
                transfers = coll->GetTransferCount();
            }
            else
            {
                error = "incomplete: " + error;
            }
        }
    }
    const double cpu2 = ProcessCpuSeconds();
    Simulator::Destroy();
    tn_topology_destroy(topo);
    if (ns < 0)
    {
        *line = error;
        return 1;
    }
    char b[200];
    std::snprintf(b,
                  sizeof(b),
                  "%s level %.1f us, %llu transfers, set-up %.1f ms, run %.1f ms, %.2f us per "
                  "transfer",
                  mode.c_str(),
                  ns / 1e3,
                  static_cast<unsigned long long>(transfers),
                  (cpu1 - cpu0) * 1e3,
                  (cpu2 - cpu1) * 1e3,
                  (cpu2 - cpu1) * 1e6 / static_cast<double>(transfers));
    *line = b;
    return 0;
}

/// The "run" figure of a SimulateContention line, ms ("" when none).
inline const char*
RunField(const std::string& result)
{
    const size_t at = result.find("run ");
    return at == std::string::npos ? "" : result.c_str() + at + 4;
}

} // namespace bench
} // namespace ns3

#endif /* BENCH_SCALE_CONTENTION_H */
