/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Packet benchmark: wall time per packet-hop of the RoCE model against ns-3's
 * PointToPointNetDevice, on a chain of H hops carrying the same number of packets of the
 * same size, in the same run.
 *
 *   bench-roce [--hops=4] [--packets=200000] [--mtu=4096] [--cc=dcqcn] [--repeat=3]
 *              [--scheduler=ns3::MapScheduler]
 *
 * (a) ns-3 point-to-point: H+1 nodes, H PointToPointNetDevice links (100 Gb/s, 1 us); the
 *     source sends packets of the RoCE L3 size (payload + 44 bytes) at the line rate; each
 *     intermediate node forwards from its receive callback (no IP stack, as the RoCE model
 *     bypasses it too).
 * (b) RoCE: NPU - switch ... switch - NPU (H links, RoceHelper from a C topology), one RDMA
 *     WRITE of packets x MTU bytes, RdmaNic with DCQCN (or --cc=none), ACK every 4 packets.
 * Figure of merit: wall seconds of Simulator::Run divided by data packets x hops, and the
 * ratio RoCE / point-to-point (goal <= 1.5). The RoCE side also carries its ACKs.
 * (c) the cost of RoceFrameScheduler: (b) again with --scheduler (an ns-3 scheduler that orders
 *     equal-time events only by when they were scheduled) in place of it; events per second of
 *     both and their ratio.
 */
#include "bench-p2p.h"

#include "ns3/command-line.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace ns3;

namespace
{

using bench::LATENCY_NS;
using bench::RATE;
using bench::RunP2p;

/// Counts completions.
struct Done
{
    void Complete(const RdmaMessageRecord& r)
    {
        ++count;
    }

    uint32_t count{0};
};

double
RunRoce(uint32_t hops,
        uint32_t packets,
        uint32_t mtu,
        const std::string& cc,
        const std::string& scheduler,
        uint64_t* dataPackets,
        uint64_t* events)
{
    tn_topology* t = nullptr;
    tn_error err;
    tn_topology_create(&t, &err);
    uint32_t first;
    tn_topology_add_nodes(t, TN_NODE_NPU, 2, &first, &err);
    if (hops > 1)
    {
        tn_topology_add_nodes(t, TN_NODE_SWITCH, hops - 1, &first, &err);
    }
    std::vector<uint32_t> seq{0};
    for (uint32_t s = 0; s + 1 < hops; ++s)
    {
        seq.push_back(2 + s);
    }
    seq.push_back(1);
    for (size_t i = 0; i + 1 < seq.size(); ++i)
    {
        tn_topology_add_link(t, seq[i], seq[i + 1], RATE, LATENCY_NS, -1, nullptr, nullptr, &err);
    }
    RoceHelper helper;
    helper.SetNicAttribute("Mtu", UintegerValue(mtu));
    helper.SetNicAttribute("CongestionControl", StringValue(cc));
    helper.Install(t);
    tn_topology_destroy(t);
    if (!scheduler.empty())
    {
        // the channels installed RoceFrameScheduler; the baseline takes its place
        ObjectFactory factory;
        factory.SetTypeId(scheduler);
        Simulator::SetScheduler(factory);
    }
    Done done;
    helper.GetNic(0)->PostWrite(1,
                                static_cast<uint64_t>(packets) * mtu,
                                3,
                                MakeCallback(&Done::Complete, &done));
    uint64_t ev0 = Simulator::GetEventCount();
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    *events = Simulator::GetEventCount() - ev0;
    *dataPackets = helper.GetNic(0)->GetDataPacketsSent();
    if (done.count != 1)
    {
        std::fprintf(stderr, "bench-roce: the RDMA message did not complete\n");
    }
    Simulator::Destroy();
    return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t hops = 4;
    uint32_t packets = 200000;
    uint32_t mtu = 4096;
    uint32_t repeat = 3;
    std::string cc = "dcqcn";
    std::string model = "both";
    std::string scheduler = "ns3::MapScheduler";
    CommandLine cmd(__FILE__);
    cmd.AddValue("model", "both, p2p or roce (one model alone, e.g. under callgrind)", model);
    cmd.AddValue("hops", "links in the chain (>= 1)", hops);
    cmd.AddValue("packets", "data packets per run", packets);
    cmd.AddValue("mtu", "RoCE payload per packet", mtu);
    cmd.AddValue("cc", "congestion control of the NICs: dcqcn or none", cc);
    cmd.AddValue("repeat", "runs of each model (the best is kept)", repeat);
    cmd.AddValue("scheduler",
                 "ns-3 scheduler the RoCE run is timed with beside RoceFrameScheduler "
                 "(none: no baseline)",
                 scheduler);
    cmd.Parse(argc, argv);
    if (scheduler == "none")
    {
        scheduler.clear();
    }
    if (hops == 0 || packets == 0 || repeat == 0)
    {
        std::fprintf(stderr, "bench-roce: --hops, --packets and --repeat must be > 0\n");
        return 2;
    }
    TypeId schedulerId;
    if (!scheduler.empty() && (!TypeId::LookupByNameFailSafe(scheduler, &schedulerId) ||
                               !schedulerId.IsChildOf(TypeId::LookupByName("ns3::Scheduler"))))
    {
        std::fprintf(stderr,
                     "bench-roce: --scheduler: %s is no ns-3 scheduler\n",
                     scheduler.c_str());
        return 2;
    }
    const uint32_t l3 = mtu + 44; // IPv4 20 + UDP 8 + BTH 12 + ICRC 4, as the RoCE packets
    double bestP2p = 1e30;
    double bestRoce = 1e30;
    double bestBase = 1e30;
    uint64_t eventsBase = 0;
    uint64_t packetsBase = 0;
    uint32_t received = 0;
    uint64_t dataPackets = 0;
    uint64_t events = 0;
    for (uint32_t r = 0; r < repeat; ++r)
    {
        if (model != "roce")
        {
            bestP2p = std::min(bestP2p, RunP2p(hops, packets, l3, &received));
        }
        if (model != "p2p")
        {
            bestRoce =
                std::min(bestRoce, RunRoce(hops, packets, mtu, cc, "", &dataPackets, &events));
            if (!scheduler.empty())
            {
                bestBase =
                    std::min(bestBase,
                             RunRoce(hops, packets, mtu, cc, scheduler, &packetsBase, &eventsBase));
            }
        }
    }
    double hopsP2p = static_cast<double>(received) * hops;
    double hopsRoce = static_cast<double>(dataPackets) * hops;
    double nsP2p = bestP2p / hopsP2p * 1e9;
    double nsRoce = bestRoce / hopsRoce * 1e9;
    std::printf("chain of %u hops, %u packets of %u payload bytes (best of %u runs)\n",
                hops,
                packets,
                mtu,
                repeat);
    std::printf("point-to-point: %.3f s, %u packets delivered, %.1f ns per packet-hop, "
                "%.2f M packet-hops/s\n",
                bestP2p,
                received,
                nsP2p,
                hopsP2p / bestP2p / 1e6);
    std::printf("roce (%s):     %.3f s, %llu data packets, %.1f ns per packet-hop, "
                "%.2f M packet-hops/s, %llu events\n",
                cc.c_str(),
                bestRoce,
                static_cast<unsigned long long>(dataPackets),
                nsRoce,
                hopsRoce / bestRoce / 1e6,
                static_cast<unsigned long long>(events));
    std::printf("ratio roce / point-to-point per packet-hop: %.2f (goal <= 1.5)\n", nsRoce / nsP2p);
    if (model != "p2p" && !scheduler.empty())
    {
        std::printf("roce with %s: %.3f s, %llu events, %.2f M events/s; RoceFrameScheduler "
                    "%.2f M events/s\n",
                    scheduler.c_str(),
                    bestBase,
                    static_cast<unsigned long long>(eventsBase),
                    eventsBase / bestBase / 1e6,
                    events / bestRoce / 1e6);
        std::printf("ratio RoceFrameScheduler / %s per event: %.3f\n",
                    scheduler.c_str(),
                    (bestRoce / events) / (bestBase / eventsBase));
    }
    if (model != "both")
    {
        return 0;
    }
    return received == packets && dataPackets >= packets ? 0 : 1;
}
