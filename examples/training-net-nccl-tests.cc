/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * nccl-tests side by side: the table all_reduce_perf and its siblings print, simulated.
 *
 *   training-net-nccl-tests all_reduce -b 8 -e 128M -f 2 --system=dgx-h100 --servers=4
 *   training-net-nccl-tests --op=all_gather -b 1M -e 64M -f 4 --topology=switch:8 --mode=flow
 *
 * The operation is the first word or --op: all_reduce, all_gather, reduce_scatter, broadcast,
 * reduce, alltoall (sendrecv has no collective in the planning core yet: refused). Sizes as
 * nccl-tests sweeps them: -b to -e, times -f (or plus -i when -f is 1), each rounded down to
 * whole floats (and whole floats per rank where nccl-tests splits the buffer per rank).
 * The system is --topology (a topology spec) or --system (a preset of tn-topology.h) with
 * --servers and -g GPUs per server. Size is nccl-tests' size: the buffer the collective
 * reduces, gathers or sends (tn-schedule.h's S). algbw = size / time and busbw = algbw x
 * nccl-tests' factor: 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and
 * all-to-all, 1 for broadcast and reduce (tn_busbw). #wrong is 0 when the collective ran as
 * planned (Collective::Check), else 1 and the reason on stderr. The model has no buffer copy,
 * so the in-place columns repeat the out-of-place run; -n and -w are accepted for
 * compatibility (one simulated iteration is exact: no noise to average away).
 * Every size is one run of the results database (--db), so a sweep is one query:
 *   SELECT run_id, params_json, simulated_ns FROM run WHERE name = 'training-net-nccl-tests'
 */
#include "ns3/collective-helper.h"
#include "ns3/program-options.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-db.h"
#include "ns3/tn-topology.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const char* PROGRAM = "training-net-nccl-tests";

/** One operation of nccl-tests. */
struct Operation
{
    const char* name;   //!< nccl-tests' name (all_reduce_perf without _perf)
    tn_collective coll; //!< the collective it runs
    const char* redop;  //!< the redop column
    bool rooted;        //!< root 0 (else -1)
    bool perRank;       //!< the buffer is split per rank: count = size / 4 / n
};

const Operation OPERATIONS[] = {
    {"all_reduce", TN_COLL_ALL_REDUCE, "sum", false, false},
    {"all_gather", TN_COLL_ALL_GATHER, "none", false, true},
    {"reduce_scatter", TN_COLL_REDUCE_SCATTER, "sum", false, true},
    {"broadcast", TN_COLL_BROADCAST, "none", true, false},
    {"reduce", TN_COLL_REDUCE, "sum", true, false},
    {"alltoall", TN_COLL_ALL_TO_ALL, "none", false, true},
};

/** nccl-tests' time column: fewer decimals as the time grows. */
std::string
FormatTime(double us)
{
    char text[32];
    std::snprintf(text,
                  sizeof(text),
                  us >= 10000.0 ? "%7.0f"
                  : us >= 100.0 ? "%7.1f"
                                : "%7.2f",
                  us);
    return text;
}

/** Closes what main opened, prints the error line and returns the exit status. */
struct Exit
{
    tn_db* db{nullptr};
    tn_topology* topo{nullptr};

    int operator()(int status, const std::string& message = "")
    {
        std::fflush(stdout);
        if (!message.empty())
        {
            std::fprintf(stderr, "%s\n", ProgramOptions::ErrorLine(PROGRAM, message).c_str());
        }
        tn_db_close(db);
        tn_topology_destroy(topo);
        return status;
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    std::vector<std::string> words;
    std::string op;
    std::string spec;
    std::string system;
    std::string fabric = "rail-optimized";
    std::string algorithm = "auto";
    std::string dbPath = "results.db";
    std::string mode = "packet";
    uint64_t minBytes = 32 << 20;
    uint64_t maxBytes = 32 << 20;
    uint64_t stepBytes = 1 << 20;
    uint32_t stepFactor = 1;
    uint32_t gpus = 0;
    uint32_t servers = 1;
    uint32_t iterations = 20;
    uint32_t warmup = 5;
    bool sharp = false;
    ProgramOptions options(PROGRAM, __FILE__);
    options.AddPositional("operation", "all_reduce, all_gather, ... (or --op)", 0, 1, &words);
    options.AddString("op", "the operation, when not given as the first word", &op);
    options.AddBytes("minbytes", "smallest size (-b)", &minBytes);
    options.AddBytes("maxbytes", "largest size (-e)", &maxBytes);
    options.AddCount("stepfactor", "size multiplier (-f; 1: add -i)", 1u, 1u << 20, &stepFactor);
    options.AddBytes("stepbytes", "size increment when -f is 1 (-i)", &stepBytes);
    options.AddCount("ngpus", "GPUs per server of --system (-g; 0: all)", 0u, 1u << 20, &gpus);
    options.AddCount("servers", "servers of --system", 1u, 1u << 20, &servers);
    options.AddCount("iters",
                     "accepted for nccl-tests' -n (one iteration is exact)",
                     1u,
                     UINT32_MAX,
                     &iterations);
    options.AddCount("warmup_iters", "accepted for nccl-tests' -w", 0u, UINT32_MAX, &warmup);
    options.AddString("topology", "topology spec (tn-topology.h), instead of --system", &spec);
    options.AddString("system", "system preset: dgx-a100, dgx-h100, gb200-nvl72", &system);
    options.AddString("fabric", "fabric of the --system preset", &fabric);
    options.AddFlag("sharp",
                    "the --system fabric's switches reduce (SHARP: NCCL's CollNet runs)",
                    &sharp);
    options.AddString("algorithm", "planning algorithm (auto: the tuner's choice)", &algorithm);
    options.AddString("db", "results database (SQLite) to append the runs to", &dbPath);
    options.AddMode(&mode);
    options.AddShortName('b', "minbytes");
    options.AddShortName('e', "maxbytes");
    options.AddShortName('f', "stepfactor");
    options.AddShortName('i', "stepbytes");
    options.AddShortName('g', "ngpus");
    options.AddShortName('n', "iters");
    options.AddShortName('w', "warmup_iters");
    Exit exit;
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    if (!words.empty() && !op.empty())
    {
        return exit(2, "--op: the operation is given twice ('" + words[0] + "' and '" + op + "')");
    }
    op = words.empty() ? (op.empty() ? "all_reduce" : op) : words[0];
    const Operation* operation = nullptr;
    for (const Operation& o : OPERATIONS)
    {
        operation = op == o.name ? &o : operation;
    }
    if (!operation)
    {
        return exit(2,
                    "--op: '" + op +
                        (op == "sendrecv" ? "' has no collective in the planning core yet"
                                          : "' is not all_reduce, all_gather, reduce_scatter, "
                                            "broadcast, reduce or alltoall"));
    }
    if (maxBytes < minBytes)
    {
        return exit(2, "-e: the largest size is below -b");
    }
    if (spec.empty() == system.empty())
    {
        return exit(2, "--topology: give a topology spec or a --system preset (one of them)");
    }
    for (const char* name : {"servers", "ngpus", "fabric", "sharp"})
    {
        if (!spec.empty() && options.IsGiven(name))
        {
            return exit(2,
                        std::string("--") + name + ": describes a --system preset, not --topology");
        }
    }
    if (!system.empty())
    {
        spec = system + ":servers=" + std::to_string(servers) + ",fabric=" + fabric +
               (gpus ? ",gpus=" + std::to_string(gpus) : "") + (sharp ? ",sharp=1" : "");
    }
    tn_error err{};
    if (tn_topology_from_spec(spec.c_str(), &exit.topo, &err) != TN_OK)
    {
        return exit(2, std::string(system.empty() ? "--topology: " : "--system: ") + err.message);
    }
    RoceHelper checker;
    checker.SetMode(mode);
    const std::string fabricError = checker.Check(exit.topo);
    if (!fabricError.empty())
    {
        return exit(2, fabricError);
    }
    const uint32_t n = tn_topology_npu_count(exit.topo);
    const uint64_t unit = 4 * (operation->perRank ? n : 1); // whole floats (per rank)
    std::vector<uint64_t> sizes;
    for (uint64_t size = minBytes;;)
    {
        if (size / unit == 0)
        {
            return exit(2,
                        "-b: " + std::to_string(size) + " bytes is less than " +
                            std::to_string(unit) + " (a float per rank)");
        }
        sizes.push_back(size / unit * unit);
        // the next size; stop before it passes -e (or 64 bits)
        const uint64_t room = maxBytes - size;
        if (stepFactor > 1 ? size > maxBytes / stepFactor : stepBytes > room || room == 0)
        {
            break;
        }
        size = stepFactor > 1 ? size * stepFactor : size + stepBytes;
        if (sizes.size() >= 4096 || (stepFactor == 1 && stepBytes == 0))
        {
            return exit(2, "-f: the sweep from -b to -e has more than 4096 sizes");
        }
    }
    if (tn_db_open(dbPath.c_str(), &exit.db, &err) != TN_OK)
    {
        return exit(1, std::string("--db: ") + err.message);
    }

    std::printf("# nccl-tests %s on %s: %u ranks, %s level, algorithm %s\n",
                operation->name,
                spec.c_str(),
                n,
                mode.c_str(),
                algorithm.c_str());
    std::printf("#\n");
    // nccl-tests' header, its columns aligned with the rows below
    const char* row = "%s%11s %13s %9s %7s %7s %8s %7s %7s %6s %8s %7s %7s %6s\n";
    std::printf("#%74s%29s\n", "out-of-place", "in-place");
    std::printf(row,
                "#",
                "size",
                "count",
                "type",
                "redop",
                "root",
                "time",
                "algbw",
                "busbw",
                "#wrong",
                "time",
                "algbw",
                "busbw",
                "#wrong");
    std::printf(row,
                "#",
                "(B)",
                "(elements)",
                "",
                "",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "");
    double busbwSum = 0;
    int wrongRuns = 0;
    for (const uint64_t size : sizes)
    {
        RoceHelper roce;
        roce.SetMode(mode);
        roce.Install(exit.topo);
        CollectiveHelper collectives;
        collectives.Install(exit.topo, roce);
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.collective = operation->coll;
        request.algorithm = algorithm.c_str();
        request.bytes = size;
        std::string error;
        Ptr<Collective> c = collectives.Create(request, {}, &error);
        if (!c)
        {
            Simulator::Destroy();
            return exit(1, "--algorithm: " + algorithm + ": " + error);
        }
        const std::string params = std::string("{\"op\":\"") + operation->name +
                                   "\",\"topology\":\"" + spec + "\",\"algorithm\":\"" + algorithm +
                                   "\",\"bytes\":" + std::to_string(size) + ",\"mode\":\"" + mode +
                                   "\"}";
        StatsHelper stats; // records the run, the fabric and the collective
        if (!stats.Install(exit.db, PROGRAM, params, exit.topo, roce, &error))
        {
            Simulator::Destroy();
            return exit(1, "--db: " + error);
        }
        stats.LimitSimulatedTime(c->GetEstimatedTime(), "the cost model's estimate of the plan");
        collectives.Start(c);
        Simulator::Run();
        std::string check = stats.GetRecorder()->GetTimeLimitError();
        check = check.empty() ? c->Check() : check;
        check = check.empty() && !c->IsComplete() ? "incomplete" : check;
        const uint64_t ns = c->IsComplete() ? c->GetDuration().GetNanoSeconds() : 0;
        const double us = ns / 1e3;
        const double algbw = tn_algbw(size, double(ns)) / 1e9;
        const double busbw = tn_busbw(operation->coll, n, size, double(ns)) / 1e9;
        const int wrong = check.empty() ? 0 : 1;
        busbwSum += busbw;
        wrongRuns += wrong;
        const std::string time = FormatTime(us);
        std::printf(" %11llu %13llu %9s %7s %7d %8s %7.2f %7.2f %6d %8s %7.2f %7.2f %6d\n",
                    static_cast<unsigned long long>(size),
                    static_cast<unsigned long long>(size / unit),
                    "float",
                    operation->redop,
                    operation->rooted ? 0 : -1,
                    time.c_str(),
                    algbw,
                    busbw,
                    wrong,
                    time.c_str(),
                    algbw,
                    busbw,
                    wrong);
        const std::string recorded =
            stats.Finish(check.empty() ? "ok" : "error",
                         ns,
                         check.empty() ? "" : "the collective did not run as planned: " + check);
        Simulator::Destroy();
        if (recorded == "aborted")
        {
            return exit(130, "interrupted; run recorded as aborted");
        }
        if (!stats.GetRecorder()->GetError().empty())
        {
            return exit(1, "--db: " + stats.GetRecorder()->GetError());
        }
        if (!check.empty())
        {
            std::fflush(stdout);
            std::fprintf(
                stderr,
                "%s\n",
                ProgramOptions::ErrorLine(PROGRAM, std::to_string(size) + " bytes: " + check)
                    .c_str());
        }
    }
    std::printf("# Out of bounds values : %d %s\n", wrongRuns, wrongRuns ? "FAILED" : "OK");
    std::printf("# Avg bus bandwidth    : %g \n", busbwSum / sizes.size());
    std::printf("#\n");
    return exit(wrongRuns ? 1 : 0);
}
