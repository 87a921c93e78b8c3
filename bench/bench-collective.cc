/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collective benchmark: one collective at scale, end to end, with each phase timed apart.
 *
 *   bench-collective [--topology=torus:32x32] [--algorithm=multitree] [--bytes=16MiB]
 *                    [--routing=planned] [--verify=1] [--p2pPackets=400000]
 *                    [--scheduler=ns3::MapScheduler]
 *
 * Phases: planning (tn_plan), verification (tn_verify_schedule), set-up (RoceHelper and
 * CollectiveHelper: fabric, cost model, lanes and flow routes), simulation (Simulator::Run).
 * Figure of merit: data packet-hops per wall second of the simulation (packets of every
 * transfer times the hops of its path, as planned), as a ratio to ns-3's bare
 * PointToPointNetDevice measured in the same run (bench-p2p.h), and the peak resident memory.
 * Two baselines: one point-to-point link carrying one flow (the per-packet floor of an ns-3
 * device with everything in cache), and as many point-to-point links busy at once as the
 * topology has directed links (the same concurrency as the collective: at 4096 links ns-3's
 * own device runs 3x slower than on one link, since the working set leaves the caches).
 * The goal for a 1024-NPU MultiTree all-reduce of 16 MiB on a 32x32 torus: ratio
 * >= 0.5 and peak memory under 1 GiB. The RoCE side also carries its ACKs.
 * The cost of RoceFrameScheduler: set-up and simulation once more with --scheduler (an ns-3
 * scheduler that orders equal-time events only by when they were scheduled) in its place;
 * events per second of both and their ratio.
 */
#include "bench-p2p.h"

#include "ns3/collective-helper.h"
#include "ns3/command-line.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <vector>

using namespace ns3;

namespace
{

/// Seconds since t0.
double
Since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Peak resident memory in MiB.
double
PeakMiB()
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024.0;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string spec = "torus:32x32";
    std::string algorithm = "multitree";
    std::string routing = "planned";
    std::string bytesText = "16MiB";
    bool verify = true;
    uint32_t p2pPackets = 400000;
    std::string scheduler = "ns3::MapScheduler";
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology spec", spec);
    cmd.AddValue("algorithm", "planning algorithm", algorithm);
    cmd.AddValue("bytes", "all-reduce size: bytes or B, KB, MB, GB, KiB, MiB, GiB", bytesText);
    cmd.AddValue("routing", "planned or ecmp", routing);
    cmd.AddValue("verify", "time the verifier too", verify);
    cmd.AddValue("p2pPackets", "packets of the point-to-point baseline (one hop)", p2pPackets);
    cmd.AddValue("scheduler",
                 "ns-3 scheduler the simulation is run with again in place of RoceFrameScheduler "
                 "(none: no baseline)",
                 scheduler);
    cmd.Parse(argc, argv);
    if (scheduler == "none")
    {
        scheduler.clear();
    }
    TypeId schedulerId;
    if (!scheduler.empty() && (!TypeId::LookupByNameFailSafe(scheduler, &schedulerId) ||
                               !schedulerId.IsChildOf(TypeId::LookupByName("ns3::Scheduler"))))
    {
        std::fprintf(stderr,
                     "bench-collective: --scheduler: %s is no ns-3 scheduler\n",
                     scheduler.c_str());
        return 2;
    }

    tn_error err;
    uint64_t bytes = 0;
    if (tn_units_parse_bytes(bytesText.c_str(), SIZE_MAX, "--bytes", &bytes, &err) != TN_OK)
    {
        std::fprintf(stderr, "bench-collective: %s\n", err.message);
        return 2;
    }
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "bench-collective: --topology: %s\n", err.message);
        return 2;
    }
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;

    // planning and verification, timed apart (the helper repeats the plan, unverified)
    auto t0 = std::chrono::steady_clock::now();
    tn_schedule* plan = nullptr;
    if (tn_plan(topo, &request, &plan, &err) != TN_OK)
    {
        std::fprintf(stderr, "bench-collective: planning: %s\n", err.message);
        return 1;
    }
    double planSeconds = Since(t0);
    double verifySeconds = 0;
    if (verify)
    {
        t0 = std::chrono::steady_clock::now();
        if (tn_verify_schedule(plan, topo, nullptr, &err) != TN_OK)
        {
            std::fprintf(stderr, "bench-collective: verification: %s\n", err.message);
            return 1;
        }
        verifySeconds = Since(t0);
    }
    tn_schedule_destroy(plan);

    // set-up and simulation, with RoceFrameScheduler (scheduler empty) or the baseline
    struct Sim
    {
        double setupSeconds, simSeconds, packetHops, simulatedUs, estimateUs, peak;
        uint64_t events;
        uint32_t mtu, links0, transfers;
        std::string check;
    };

    auto simulate = [&](const std::string& scheduler, Sim* out) -> int {
        auto t0 = std::chrono::steady_clock::now();
        RoceHelper roce;
        roce.Install(topo);
        CollectiveHelper collectives;
        if (!collectives.SetRouting(routing))
        {
            std::fprintf(stderr,
                         "bench-collective: --routing: '%s' (planned, ecmp)\n",
                         routing.c_str());
            return 2;
        }
        collectives.SetVerify(false);
        collectives.Install(topo, roce);
        std::string error;
        Ptr<Collective> c = collectives.Create(request, {}, &error);
        if (!c)
        {
            std::fprintf(stderr, "bench-collective: %s\n", error.c_str());
            return 1;
        }
        double setupSeconds = Since(t0);
        if (!scheduler.empty())
        {
            // the channels installed RoceFrameScheduler; the baseline takes its place
            ObjectFactory factory;
            factory.SetTypeId(scheduler);
            Simulator::SetScheduler(factory);
        }

        // data packet-hops of the plan: packets per transfer times its path's hops
        const tn_schedule* s = c->GetSchedule();
        const uint32_t mtu = roce.GetNic(0)->GetMtu();
        const uint32_t links0 = tn_topology_link_count(topo);
        std::vector<uint32_t> path(tn_topology_node_count(topo));
        double packetHops = 0;
        for (uint32_t id = 0; id < tn_schedule_count(s); id++)
        {
            uint32_t len = 0;
            tn_transfer_links(s,
                              id,
                              topo,
                              collectives.GetRoutes(),
                              path.data(),
                              path.size(),
                              &len,
                              &err);
            uint64_t length = tn_schedule_transfer(s, id)->length;
            packetHops += static_cast<double>(length == 0 ? 1 : (length + mtu - 1) / mtu) * len;
        }

        collectives.Start(c);
        uint64_t events0 = Simulator::GetEventCount();
        t0 = std::chrono::steady_clock::now();
        Simulator::Run();
        double simSeconds = Since(t0);
        uint64_t events = Simulator::GetEventCount() - events0;
        std::string check = c->Check();
        double simulatedUs = c->IsComplete() ? c->GetDuration().GetMicroSeconds() : -1;
        double estimateUs = c->GetEstimatedTime().GetMicroSeconds();
        uint32_t transfers = tn_schedule_count(s);
        double peak = PeakMiB();
        Simulator::Destroy();
        *out = Sim{setupSeconds,
                   simSeconds,
                   packetHops,
                   simulatedUs,
                   estimateUs,
                   peak,
                   events,
                   mtu,
                   links0,
                   transfers,
                   check};
        return 0;
    };
    Sim sim;
    int rc = simulate("", &sim);
    Sim base{};
    if (rc == 0 && !scheduler.empty())
    {
        rc = simulate(scheduler, &base);
    }
    if (rc != 0)
    {
        return rc;
    }
    const double setupSeconds = sim.setupSeconds;
    const double simSeconds = sim.simSeconds;
    const double packetHops = sim.packetHops;
    const double simulatedUs = sim.simulatedUs;
    const double estimateUs = sim.estimateUs;
    const double peak = sim.peak;
    const uint64_t events = sim.events;
    const uint32_t mtu = sim.mtu;
    const uint32_t links0 = sim.links0;
    const uint32_t transfers = sim.transfers;
    const std::string check = sim.check;
    tn_topology_destroy(topo);

    uint32_t received = 0;
    double p2pSeconds = bench::RunP2p(1, p2pPackets, mtu + 44, &received);
    double p2pRate = received / p2pSeconds;
    uint64_t receivedMany = 0;
    const uint32_t links = std::max<uint32_t>(1, links0);
    const uint32_t perLink = std::max<uint32_t>(1, p2pPackets / links);
    double manySeconds = bench::RunP2pLinks(links, perLink, mtu + 44, &receivedMany);
    double manyRate = receivedMany / manySeconds;
    double rate = packetHops / simSeconds;

    std::printf("%s all-reduce of %llu bytes on %s, routing %s: %u transfers\n",
                algorithm.c_str(),
                static_cast<unsigned long long>(bytes),
                spec.c_str(),
                routing.c_str(),
                transfers);
    std::printf("  planning      %8.2f s\n", planSeconds);
    std::printf("  verification  %8.2f s%s\n", verifySeconds, verify ? "" : " (skipped)");
    std::printf("  set-up        %8.2f s (fabric, cost model, lanes)\n", setupSeconds);
    std::printf("  simulation    %8.2f s, %llu events, %.0f data packet-hops\n",
                simSeconds,
                static_cast<unsigned long long>(events),
                packetHops);
    std::printf("  simulated %.1f us, cost model %.1f us%s%s\n",
                simulatedUs,
                estimateUs,
                check.empty() ? "" : "; NOT AS PLANNED: ",
                check.c_str());
    std::printf("  packet-hops/s %.3f M; point-to-point, one link: %.3f M, ratio %.2f (goal >= "
                "0.5)\n",
                rate / 1e6,
                p2pRate / 1e6,
                rate / p2pRate);
    std::printf("  point-to-point, %u links at once: %.3f M, ratio %.2f\n",
                links,
                manyRate / 1e6,
                rate / manyRate);
    std::printf("  peak memory %.0f MiB (goal < 1024)\n", peak);
    if (!scheduler.empty())
    {
        std::printf("  RoceFrameScheduler %.3f M events/s; %s %.3f M events/s (%llu events%s); "
                    "ratio per event %.3f\n",
                    events / simSeconds / 1e6,
                    scheduler.c_str(),
                    base.events / base.simSeconds / 1e6,
                    static_cast<unsigned long long>(base.events),
                    base.check.empty() ? "" : ", NOT AS PLANNED",
                    (simSeconds / events) / (base.simSeconds / base.events));
    }
    return check.empty() && received == p2pPackets && receivedMany == uint64_t(links) * perLink ? 0
                                                                                                : 1;
}
