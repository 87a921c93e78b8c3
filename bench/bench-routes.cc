/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabric build benchmark: wall time and peak memory of building a k-ary fat-tree RoCE fabric
 * (RoceHelper::Install: nodes, devices, switches, routes, NICs), then one RDMA WRITE from the
 * first host to the last one (6 hops) to show the fabric forwards.
 *
 *   bench-routes [--k=16,32] [--bytes=1MiB]
 *
 * Each k runs in its own child process, so its peak resident memory (getrusage maxrss of the
 * child) is its own. The goal: k=32 (8192 hosts, 1280 switches, 24576 cables) in
 * under 10 s and 1 GiB.
 */
#include "ns3/command-line.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/tn-topology.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// Wall seconds since `t0`.
double
Since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Counts completions.
struct Done
{
    void Complete(const RdmaMessageRecord&)
    {
        ++count;
        doneNs = Simulator::Now().GetNanoSeconds();
    }

    uint32_t count{0};  //!< completions
    int64_t doneNs{-1}; //!< simulated time of the last completion
};

/// The child: build fat-tree k, send one message, print one line; exit code 0 on success.
int
RunOne(uint32_t k, uint64_t bytes)
{
    const auto t0 = std::chrono::steady_clock::now();
    tn_topology* topo = nullptr;
    tn_error err{};
    tn_link_params lp{};
    lp.rate_bps = 100000000000ull;
    lp.latency_ns = 1000;
    if (tn_topology_fat_tree(k, &lp, &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "bench-routes: fat-tree k=%u: %s\n", k, err.message);
        return 1;
    }
    RoceHelper roce;
    RoceFabricNodes f = roce.Install(topo);
    const double build = Since(t0);
    std::size_t routeBytes = 0;
    for (uint32_t i = 0; i < f.switches.GetN(); ++i)
    {
        routeBytes += f.switches.Get(i)->GetObject<RoceSwitch>()->GetRouteTableBytes();
    }
    const uint32_t hosts = tn_topology_npu_count(topo);
    const uint32_t last = tn_topology_npu_node(topo, hosts - 1);
    Done done;
    roce.GetNic(0)->PostWrite(last, bytes, 3, MakeCallback(&Done::Complete, &done));
    const auto t1 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double run = Since(t1);
    Simulator::Destroy();
    tn_topology_destroy(topo);
    std::printf("fattree k=%-3u hosts %6u switches %5u cables %6u  build %7.2f s  route tables "
                "%7.1f MiB  one %llu-byte WRITE: %s in %.3f s (completes at %lld ns)",
                k,
                hosts,
                f.switches.GetN(),
                f.devices.GetN() / 2,
                build,
                routeBytes / 1048576.0,
                static_cast<unsigned long long>(bytes),
                done.count == 1 ? "done" : "NOT DONE",
                run,
                static_cast<long long>(done.doneNs));
    std::fflush(stdout);
    return done.count == 1 ? 0 : 1;
}

} // namespace

int
main(int argc, char** argv)
{
    std::string ks = "16,32";
    uint64_t bytes = 1 << 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("k", "fat-tree sizes, comma separated (even, >= 2)", ks);
    cmd.AddValue("bytes", "bytes of the one RDMA WRITE", bytes);
    cmd.Parse(argc, argv);
    std::vector<uint32_t> list;
    std::stringstream in(ks);
    std::string item;
    while (std::getline(in, item, ','))
    {
        char* end = nullptr;
        const unsigned long k = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || k < 2 || k % 2 != 0 || k > 64)
        {
            std::fprintf(stderr,
                         "bench-routes: --k: '%s' is not an even number in 2..64\n",
                         item.c_str());
            return 2;
        }
        list.push_back(static_cast<uint32_t>(k));
    }
    std::printf("bench-routes: RoceHelper::Install of a k-ary fat-tree (100 Gb/s, 1 us), "
                "one process per k\n");
    std::fflush(stdout);
    int failures = 0;
    for (uint32_t k : list)
    {
        const auto t0 = std::chrono::steady_clock::now();
        pid_t pid = fork();
        if (pid < 0)
        {
            std::perror("bench-routes: fork");
            return 1;
        }
        if (pid == 0)
        {
            std::_Exit(RunOne(k, bytes));
        }
        int status = 0;

        struct rusage ru
        {
        };

        wait4(pid, &status, 0, &ru);
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        std::printf("  peak memory %7.1f MiB  total %.2f s%s\n",
                    ru.ru_maxrss / 1024.0,
                    Since(t0),
                    ok ? "" : "  FAILED");
        std::fflush(stdout); // before the next fork copies the buffer
        failures += ok ? 0 : 1;
    }
    return failures == 0 ? 0 : 1;
}
