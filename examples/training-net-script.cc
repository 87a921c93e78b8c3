/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The README's scenario script, whole: the standalone build runs it as a test
 * (example/training-net-script) and `make check-intree` / `make check-waf` build it in the ns-3
 * tree's scratch/ folder and run it there. test/doc-snippets-test.py keeps the README's copy
 * equal to the lines between the snippet markers.
 */
// snippet: script
#include "ns3/core-module.h"
#include "ns3/training-net-module.h"

#include <iostream>

using namespace ns3;

// 16 NPUs on a 4x4 torus run a 16 MiB all-reduce, recorded into a results database.
// Errors: the C core (tn_*) reports in a tn_error, the helpers in a std::string;
// StatsHelper::Install takes either, so one tn_error serves this script.
int
main(int argc, char* argv[])
{
    std::string db = "my.db";
    CommandLine cmd;
    cmd.AddValue("db", "results database", db);
    cmd.Parse(argc, argv);

    tn_error err{};
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec("torus:4x4", &topo, &err) != TN_OK)
    {
        std::cerr << err.message << "\n";
        return 1;
    }
    RoceHelper roce;
    roce.Install(topo); // nodes, links, switches, routes, NICs
    CollectiveHelper collectives;
    collectives.Install(topo, roce); // executors + CollectiveService
    StatsHelper stats;
    if (!stats.Install(db, "my-study", "{}", topo, roce, &err))
    {
        std::cerr << err.message << "\n"; // bad path, not a database, another schema
        tn_topology_destroy(topo);
        return 1;
    }
    Ptr<Collective> c = collectives.AllReduce(16 << 20, "multitree");
    Simulator::Run();
    std::cout << c->GetDuration() << " vs cost model " << c->GetEstimatedTime() << "\n";
    // the run's status and simulated time (without it Simulator::Destroy finishes the run)
    stats.Finish(c->IsComplete() ? "ok" : "error", Simulator::Now().GetNanoSeconds());
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return c->IsComplete() ? 0 : 1;
}

// end snippet: script
