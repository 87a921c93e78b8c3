/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs HPCC-style topology and flow files on the training-net RoCE model (RDMA NICs with
 * DCQCN, PFC switches) and writes the HPCC fct.txt format.
 *
 *   roce-hpcc-flows --topology=topo.txt --flows=flow.txt --fct=fct.txt
 *                   [--cc=dcqcn|none] [--mtu=4096] [--seed=1] [--stop=seconds]
 *
 * Topology file: `N_nodes N_switches N_links`, a line of switch ids, then
 * `src dst rate delay error_rate` per cable. Flow file: the number of flows, then
 * `src dst priority dst_port size_bytes start_seconds` per flow (node ids).
 * fct.txt: `sip dip sport dport size start_ns fct_ns ideal_fct_ns` per finished flow
 * (addresses in hex, 11.x.y.1 convention); see RoceHpccFlows for the ideal FCT.
 * Any other NIC, device or switch attribute can be given on the command line, e.g.
 * --ns3::RdmaNic::AckInterval=1 --ns3::RoceSwitchMmu::BufferSize=16000000.
 */
#include "ns3/roce-hpcc-flows.h"

#include "ns3/command-line.h"

#include <cstdio>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RoceHpccConfig cfg;
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "HPCC-style topology file", cfg.topologyFile);
    cmd.AddValue("flows", "HPCC-style flow file", cfg.flowFile);
    cmd.AddValue("fct", "output: one line per finished flow", cfg.fctFile);
    cmd.AddValue("cc", "congestion control: dcqcn or none", cfg.cc);
    cmd.AddValue("mtu", "path MTU (256, 512, 1024, 2048, 4096)", cfg.mtu);
    cmd.AddValue("seed", "random seed (> 0)", cfg.seed);
    cmd.AddValue("stop",
                 "simulated stop time in seconds (0 = until every flow finished)",
                 cfg.stopSeconds);
    cmd.Parse(argc, argv);
    if (cfg.topologyFile.empty() || cfg.flowFile.empty() || cfg.fctFile.empty())
    {
        std::cerr << "roce-hpcc-flows: --topology, --flows and --fct are required\n";
        return 2;
    }
    // ns-3 time is 64-bit ns: about 292 years; beyond, Seconds() wraps
    if (!(cfg.stopSeconds >= 0) || cfg.stopSeconds > 9.2e9)
    {
        std::cerr << "roce-hpcc-flows: --stop: " << cfg.stopSeconds
                  << " is not a time ns-3 can simulate (0 .. 9.2e9 s)\n";
        return 2;
    }
    RoceHpccResult res;
    std::string error;
    if (!RoceHpccFlows::Run(cfg, &res, &error))
    {
        std::cerr << "roce-hpcc-flows: " << error << "\n";
        return 1;
    }
    double sim = res.simTime.GetSeconds();
    std::printf("flows %llu finished %llu (FCT below ideal: %llu)\n",
                static_cast<unsigned long long>(res.flows),
                static_cast<unsigned long long>(res.finished),
                static_cast<unsigned long long>(res.fctBelowIdeal));
    std::printf("wall time %.3f s, simulated time %.6f s, events %llu, retransmitted bytes %llu\n",
                res.wallSeconds,
                sim,
                static_cast<unsigned long long>(res.events),
                static_cast<unsigned long long>(res.retransmittedBytes));
    std::printf("data packet-hops %llu, %.0f packet-hops per wall second\n",
                static_cast<unsigned long long>(res.dataPacketHops),
                res.wallSeconds > 0 ? res.dataPacketHops / res.wallSeconds : 0.0);
    if (res.finished != res.flows)
    {
        std::cerr << "roce-hpcc-flows: " << res.flows - res.finished << " of " << res.flows
                  << " flows did not finish" << (cfg.stopSeconds > 0 ? " before --stop" : "")
                  << "\n";
        return 3;
    }
    return 0;
}
