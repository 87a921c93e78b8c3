/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs HPCC-style topology and flow files on the training-net RoCE model (RDMA NICs with
 * DCQCN, PFC switches) and writes the HPCC fct.txt format.
 *
 *   roce-hpcc-flows --config=mix/config.txt [--base-dir=DIR] [--ignore-unknown-keys]
 *   roce-hpcc-flows --topology=topo.txt --flows=flow.txt --fct=fct.txt
 *                   [--pfc=pfc.txt] [--pcap=PREFIX] [--mtu=4096]
 *                   [--cc=dcqcn|hpcc|hpcc-pint|timely|dctcp|none]
 *                   [--seed=1] [--stop=seconds] [--share-qp] [--family-ecmp]
 *                   [--family=hpcc|ns3-datacenter]
 *
 * --config reads an HPCC / SimAI config file (mix/config.txt): its files, payload size, stop
 * time and DCQCN, ECN and buffer keys become ns-3 attributes; the keys the model has no
 * counterpart for are printed with the reason. Options given on the command line win over
 * the config, and so do --ns3::Type::Attribute=value options over the keys mapped to them.
 * Both `--opt=value` and `--opt value` work. See doc/roce-hpcc-migration.rst.
 *
 * Topology file: `N_nodes N_switches N_links` (or `N_nodes N_switches N_ToRs N_links`), a
 * line of switch ids, then `src dst rate delay error_rate` per cable. Flow file: the number
 * of flows, then `src dst priority dst_port size_bytes start_seconds` per flow (node ids);
 * each flow gets its own queue pair (--share-qp: one QP per source, destination, priority).
 * fct.txt: `sip dip sport dport size start_ns fct_ns ideal_fct_ns` per finished flow
 * (addresses in hex, 11.x.y.1 convention); see RoceHpccFlows for the ideal FCT. pfc.txt:
 * `time_ns node port priority pause|resume sent|received` per PFC event.
 */
#include "ns3/roce-hpcc-flows.h"

#include "ns3/program-options.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/tn-topology.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string config;
    std::string baseDir;
    bool ignoreUnknown = false;
    std::string topology;
    std::string flows;
    std::string fct;
    std::string pfc;
    std::string pcap;
    std::string cc;
    RoceHpccConfig cfg;
    uint32_t mtu = cfg.mtu;
    uint32_t seed = cfg.seed;
    std::string stop;
    bool shareQp = false;
    bool familyEcmp = false;
    std::string family;
    ProgramOptions options("roce-hpcc-flows", __FILE__);
    options.AddString("config", "HPCC / SimAI config file (mix/config.txt)", &config);
    options.AddString("base-dir",
                      "folder of the config's relative file names (default: .)",
                      &baseDir);
    options.AddFlag("ignore-unknown-keys",
                    "list and skip config keys the runner does not know",
                    &ignoreUnknown);
    options.AddString("topology", "HPCC-style topology file", &topology);
    options.AddString("flows", "HPCC-style flow file", &flows);
    options.AddString("fct", "output: one line per finished flow", &fct);
    options.AddString("pfc", "output: one line per PFC event", &pfc);
    options.AddString("pcap", "pcap of every device: PREFIX-node-device.pcap", &pcap);
    options.AddString("cc",
                      "congestion control: " + RdmaCcRegistry::ListNames() + " (default dcqcn)",
                      &cc);
    options.AddCount("mtu", "payload bytes per packet", 256u, 9000u, &mtu);
    options.AddCount("seed", "random seed", 1u, uint32_t(ProgramOptions::MAX_SEED), &seed);
    options.AddString("stop",
                      "simulated stop time: seconds, or with a unit (10ms); 0 = until every "
                      "flow finished",
                      &stop);
    options.AddFlag("share-qp", "flows of one (src, dst, priority) share one QP", &shareQp);
    options.AddFlag("family-ecmp",
                    "each flow on the path the HPCC family's ECMP hash gives it (its UDP ports, "
                    "next-hop order and hash), pinned by flow routes",
                    &familyEcmp);
    options.AddString("family",
                      "follow this HPCC family member where the members differ: hpcc "
                      "(alibaba-edu) or ns3-datacenter (inet-tub): its switch buffer layout, "
                      "the family's frame bytes on the wire (ns3::RoceNetDevice::Framing "
                      "hpcc-family), the family's NIC scheduler (ns3::RdmaNic::Scheduler "
                      "family) and its ECMP paths (--family-ecmp)",
                      &family);
    if (!options.Parse(argc, argv))
    {
        return 2;
    }

    auto bad = [](const std::string& what) {
        std::cerr << "roce-hpcc-flows: " << what << "\n";
        return 2;
    };
    if (!config.empty())
    {
        std::string error;
        if (!RoceHpccConfigReader::Read(config, baseDir, ignoreUnknown, &cfg, &error))
        {
            std::cerr << "roce-hpcc-flows: " << error << "\n";
            return 1;
        }
        // --ns3::Type::Attribute on the command line wins over the key mapped to it
        RoceHpccFlows::PreferCommandLine(&cfg, options.GetAttributesGiven());
    }
    else if (!baseDir.empty())
    {
        return bad("--base-dir needs --config");
    }
    const std::pair<const std::string*, std::string*> files[] = {{&topology, &cfg.topologyFile},
                                                                 {&flows, &cfg.flowFile},
                                                                 {&fct, &cfg.fctFile},
                                                                 {&pfc, &cfg.pfcFile}};
    for (const auto& f : files)
    {
        if (!f.first->empty())
        {
            *f.second = *f.first;
        }
    }
    cfg.pcapPrefix = pcap;
    cfg.cc = cc.empty() ? cfg.cc : cc;
    // options given on the command line win over the config's keys
    cfg.mtu = options.IsGiven("mtu") ? mtu : cfg.mtu;
    cfg.seed = options.IsGiven("seed") ? seed : cfg.seed;
    if (!stop.empty())
    {
        uint64_t ns = 0;
        tn_error err;
        // a bare number is seconds (as before); a unit (ms, us, ns) is allowed
        const std::string text =
            stop.find_first_not_of("0123456789.") == std::string::npos ? stop + "s" : stop;
        if (tn_units_parse_time(text.c_str(), SIZE_MAX, "--stop", &ns, &err) != TN_OK ||
            ns > UINT64_C(9200000000) * 1000000000)
        {
            return bad("--stop: '" + stop +
                       "' is not a time ns-3 can simulate (0 .. 9.2e9 s; e.g. 0.01, 10ms)");
        }
        cfg.stopSeconds = double(ns) / 1e9;
    }
    cfg.sharedQp = shareQp;
    cfg.familyEcmp = familyEcmp || !family.empty();
    cfg.family = family;
    const std::vector<std::string>& given = options.GetAttributesGiven();
    if (std::find(given.begin(), given.end(), "ns3::RoceNetDevice::Framing") != given.end())
    {
        // given on the command line, it wins over --family's
        TypeId::AttributeInformation info;
        TypeId::LookupByName("ns3::RoceNetDevice").LookupAttributeByName("Framing", &info);
        cfg.framing = info.initialValue->SerializeToString(info.checker);
    }
    if (cfg.topologyFile.empty() || cfg.flowFile.empty() || cfg.fctFile.empty())
    {
        return bad("a topology, a flow file and an FCT output are required (--config with "
                   "TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE, or --topology, --flows, --fct)");
    }

    if (!config.empty())
    {
        RoceHpccFlows::PrintConfig(config, cfg, stdout);
    }
    for (const auto& n : cfg.notices)
    {
        std::printf("note: %s\n", n.c_str());
    }

    RoceHpccResult res;
    std::string error;
    if (!RoceHpccFlows::Run(cfg, &res, &error))
    {
        if (!config.empty() && baseDir.empty() && error.find(": cannot open") != std::string::npos)
        {
            error += " (the config's relative file names start from the current folder, as in "
                     "HPCC; --base-dir=DIR sets another)";
        }
        std::cout.flush(); // the config lines before the error line (cerr flushes only cout)
        std::fflush(stdout);
        std::cerr << "roce-hpcc-flows: " << error << "\n";
        return 1;
    }
    RoceHpccFlows::PrintSummary(cfg, res, stdout);
    std::fflush(stdout); // the summary before an error line
    const std::string unfinished = RoceHpccFlows::Unfinished(cfg, res);
    if (!unfinished.empty())
    {
        std::cerr << "roce-hpcc-flows: " << unfinished << "\n";
        return 3;
    }
    return 0;
}
