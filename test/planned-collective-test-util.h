/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PLANNED_COLLECTIVE_TEST_UTIL_H
#define PLANNED_COLLECTIVE_TEST_UTIL_H

// One planned collective at packet level on a fresh RoCE fabric, for the suites that hold an
// algorithm's packet-level time to its cost model (tacos, swing): the run's time, the service's
// estimate, the postcondition and the plan's contention count, read from the schedule that ran.

#include "ns3/collective-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace planned_test
{

/// One packet-level collective.
struct Measured
{
    double ns{-1};         //!< simulated time, -1 if it did not complete
    double estimatedNs{0}; //!< the service's cost-model estimate
    std::string check;     //!< Collective::Check(), or the creation error
    int64_t conflicts{-1}; //!< (directed link, step) conflicts between queue pairs, -1 if not
                           //!< counted
    uint32_t npus{0};      //!< NPUs of the topology
};

/// Runs `request` on the topology `spec` at packet level (default RoCE fabric, planned routing).
inline Measured
RunPlanned(const char* spec, const tn_plan_request& request)
{
    Measured m;
    tn_topology* topo = nullptr;
    tn_error err;
    if (tn_topology_from_spec(spec, &topo, &err) != TN_OK)
    {
        m.check = err.message;
        return m;
    }
    m.npus = tn_topology_npu_count(topo);
    RoceHelper roce;
    roce.Install(topo);
    CollectiveHelper helper;
    helper.Install(topo, roce);
    std::string error;
    Ptr<Collective> c = helper.Create(request, {}, &error);
    if (c)
    {
        tn_contention_report* report = nullptr;
        if (tn_verify_contention(c->GetSchedule(), topo, nullptr, &report, &err) == TN_OK)
        {
            // transfers of one (source, destination) share a queue pair, which posts them in
            // order: not a conflict on the link
            const tn_schedule* s = c->GetSchedule();
            m.conflicts = 0;
            for (uint64_t k = 0; k < report->stored; k++)
            {
                const tn_transfer* a = tn_schedule_transfer(s, report->list[k].transfer_a);
                const tn_transfer* b = tn_schedule_transfer(s, report->list[k].transfer_b);
                m.conflicts += a->src != b->src || a->dst != b->dst;
            }
            tn_contention_report_destroy(report);
        }
        helper.Start(c);
        Simulator::Run();
        m.check = c->Check();
        m.ns = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : -1;
        m.estimatedNs = c->GetEstimatedTime().GetNanoSeconds();
    }
    else
    {
        m.check = error;
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return m;
}

} // namespace planned_test
} // namespace ns3

#endif /* PLANNED_COLLECTIVE_TEST_UTIL_H */
