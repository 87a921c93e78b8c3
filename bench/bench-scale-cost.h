/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-scale's cost model rows (--cost-sizes, default 1024; issue 41 item 5): for each
 * generated algorithm that applies on the square torus, the fat-tree (when N = k^3/4) and the
 * hier system of N NPUs, the per-step estimate of the service (the quickstart's "cost model of
 * the plan": rank-local programs, the service's MTU and headers) beside flow level measured in
 * the same run (flow-symmetric where the programs are translates on the torus, flow with every
 * NPU otherwise), and their error against the goal of 10 %. Then `auto` as a user runs it
 * (the quickstart, --algorithm=auto): its pick against the fastest flow level measured,
 * goal within 5 %. A flow run past --cost-timeout seconds is stopped and its row says so
 * (not counted as a missed goal: nothing measured; auto's row too when its own run is stopped,
 * its pick then unnamed).
 */
#ifndef BENCH_SCALE_COST_H
#define BENCH_SCALE_COST_H

#include "bench-scale-quickstart.h"

#include "ns3/command-line.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ns3
{
namespace bench
{

/// The cost rows' options (--cost-sizes, --cost-timeout).
struct CostOptions
{
    std::string sizes = "1024";
    uint32_t seconds = 600;

    void Add(CommandLine& cmd)
    {
        cmd.AddValue("cost-sizes", "NPU counts of the cost model rows (none: no such rows)", sizes);
        cmd.AddValue("cost-timeout", "seconds each flow run of the cost rows may take", seconds);
    }
};

/// One quickstart run's answer: the simulated and estimated times (us) and the algorithm.
struct CostRun
{
    bool ok = false;
    double simulatedUs = 0;
    double estimateUs = 0;
    std::string algorithm; ///< as the quickstart names it ("ring2d", "rhd (auto; ...)")
    std::string failure;   ///< the last line when it failed
};

/// The quickstart on `spec` at `mode` with Program=generated (or auto's own choice of path
/// when algorithm is "auto"), stopped after `seconds`.
inline CostRun
RunCostCase(const std::string& spec,
            const std::string& algorithm,
            const std::string& bytes,
            const std::string& mode,
            uint32_t seconds)
{
    CostRun r;
    const std::string db = "/tmp/bench-scale-cost-" + std::to_string(getpid()) + ".db";
    const std::string program =
        algorithm == "auto" ? "" : " --ns3::CollectiveService::Program=generated";
    const std::string cmd = "timeout " + std::to_string(seconds) + " " + QuickstartPath() +
                            " --topology=" + spec + " --algorithm=" + algorithm +
                            " --bytes=" + bytes + " --mode=" + mode + " --db=" + db + program;
    const ProgramRun run = RunProgram(cmd, db, [&r](const std::string& line) {
        const size_t with = line.find(") with ");
        if (with != std::string::npos && line.find(" transfers") != std::string::npos)
        {
            r.algorithm = line.substr(with + 7, line.find(':', with) - with - 7);
        }
        const size_t level = line.find(" level ");
        const size_t model = line.find("cost model of the plan ");
        if (level != std::string::npos && model != std::string::npos)
        {
            r.simulatedUs = std::atof(line.c_str() + level + 7);
            r.estimateUs = std::atof(line.c_str() + model + 23);
        }
    });
    // a run stopped by the timeout may still print its line with an incomplete (0) time
    r.ok = run.code == 0 && r.simulatedUs > 0;
    if (!r.ok)
    {
        r.failure = run.code == 124 ? "stopped after " + std::to_string(seconds) + " s" : run.last;
    }
    return r;
}

/// The cost rows of n NPUs (file head); each goal missed adds one to *failures.
inline void
CostRows(uint32_t n,
         const std::string& torus,
         const std::string& bytes,
         uint32_t seconds,
         int* failures)
{
    std::vector<std::string> specs = {torus};
    for (uint32_t k = 4; k * k * k / 4 <= n; k += 2)
    {
        if (k * k * k / 4 == n)
        {
            specs.push_back("fattree:k=" + std::to_string(k));
        }
    }
    specs.push_back(HierOf(n));
    const char* algorithms[] = {"ring",
                                "ring-bidir",
                                "direct",
                                "rhd",
                                "dbt",
                                "ring2d",
                                "hierarchical",
                                "swing",
                                "swing-torus"};
    std::printf("cost model rows: %u NPUs, %s all-reduce, the service's per-step estimate "
                "against flow level (goal: within 10 %%; auto within 5 %% of the fastest)\n",
                n,
                bytes.c_str());
    std::printf("%-6s %-44s %-13s %14s %14s %8s  %-6s %s\n",
                "NPUs",
                "topology",
                "algorithm",
                "estimate us",
                "flow us",
                "error",
                "goal",
                "result");
    for (const std::string& spec : specs)
    {
        double fastest = 0;
        std::string fastestName;
        for (const char* a : algorithms)
        {
            CostRun r;
            std::string mode = "flow";
            if (spec.rfind("torus:", 0) == 0)
            {
                // translates of NPU 0's program: flow level's answer at a fraction of the cost
                mode = "flow-symmetric";
                r = RunCostCase(spec, a, bytes, mode, seconds);
                if (!r.ok && r.failure.find("FlowNetwork::Symmetric") != std::string::npos)
                {
                    mode = "flow";
                    r = RunCostCase(spec, a, bytes, mode, seconds);
                }
            }
            else
            {
                r = RunCostCase(spec, a, bytes, mode, seconds);
            }
            if (!r.ok)
            {
                // an algorithm that does not apply is refused while planning
                const bool applies = r.failure.find("planning:") == std::string::npos;
                if (applies)
                {
                    std::printf("%-6u %-44s %-13s %14s %14s %8s  %-6s %s: %s\n",
                                n,
                                spec.c_str(),
                                a,
                                "-",
                                "-",
                                "-",
                                "10 %",
                                "not measured",
                                r.failure.c_str());
                }
                continue;
            }
            const double error = (r.estimateUs - r.simulatedUs) / r.simulatedUs;
            const bool met = std::fabs(error) <= 0.10;
            *failures += met ? 0 : 1;
            std::printf("%-6u %-44s %-13s %14.3f %14.3f %+7.1f%%  %-6s %s (%s)\n",
                        n,
                        spec.c_str(),
                        a,
                        r.estimateUs,
                        r.simulatedUs,
                        100 * error,
                        "10 %",
                        met ? "met" : "MISSED",
                        mode.c_str());
            if (fastestName.empty() || r.simulatedUs < fastest)
            {
                fastest = r.simulatedUs;
                fastestName = a;
            }
        }
        const bool torusSpec = spec.rfind("torus:", 0) == 0;
        CostRun pick =
            RunCostCase(spec, "auto", bytes, torusSpec ? "flow-symmetric" : "flow", seconds);
        if (!pick.ok && pick.failure.find("FlowNetwork::Symmetric") != std::string::npos)
        {
            pick = RunCostCase(spec, "auto", bytes, "flow", seconds);
        }
        const std::string name = pick.algorithm.substr(0, pick.algorithm.find(' '));
        const double picked = pick.ok ? pick.simulatedUs : 0;
        const bool met = pick.ok && !fastestName.empty() && picked <= fastest * 1.05;
        // a pick whose run was stopped, or nothing measured to compare with: no goal either way
        const bool measured = pick.ok && !fastestName.empty();
        *failures += met || !measured ? 0 : 1;
        std::printf("%-6u %-44s %-13s %14s %14.3f %+7.1f%%  %-6s %s: auto picks %s, fastest "
                    "measured %s (%.3f us)%s\n",
                    n,
                    spec.c_str(),
                    "auto",
                    "-",
                    picked,
                    fastest > 0 && pick.ok ? 100 * (picked - fastest) / fastest : 0.0,
                    "5 %",
                    met        ? "met"
                    : measured ? "MISSED"
                               : "not measured",
                    name.empty() ? "?" : name.c_str(),
                    fastestName.empty() ? "none" : fastestName.c_str(),
                    fastest,
                    pick.ok ? "" : (" (auto's run: " + pick.failure + ")").c_str());
    }
}

} // namespace bench
} // namespace ns3

#endif // BENCH_SCALE_COST_H
