/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scale benchmark: wall time and peak memory per size (1k, 4k, 16k NPUs) of a 64 MiB
 * all-reduce, each row beside its baseline measured in the same run.
 *
 * Over 1,000 lines for a reason: one main holds every row's options and their order; the
 * newer rows live in the bench-scale-*.h headers.
 *
 *   bench-scale [--sizes=1024,4096,16384] [--bytes=64MiB] [--baseline-max=4000000]
 *               [--algorithms=ring,ring2d,hierarchical] [--sim=flow,packet]
 *               [--packet-sizes=1024,4096] [--timeout=1800] [--memory-limit=16384]
 *               [--window=64] [--training-sizes=1024] [--llm-sizes=1024]
 *               [--moe-sizes=256] [--moe-model=deepseek-v3-like] [--moe-tokens=256]
 *               [--moe-oversub=1] [--contention=true] [--resnet-sizes=1024]
 *               [--resnet-topology=torus]
 *
 * Plan rows: ring and ring2d on a square torus, hierarchical on the system of 8 GPUs per
 * server at 2880 Gb/s and N/8 servers at 400 Gb/s (hier:switch8@2880Gbps+switch<N/8>@400Gbps).
 *  - "generated": the rank-local programs and the per-step estimate (tn_program_create,
 *    tn_cost_program), no DAG;
 *  - "schedule" (the baseline): the materialised DAG (tn_plan) and its estimate
 *    (tn_cost_estimate), where it still fits: plans of at most --baseline-max transfers
 *    (the issue measured 109 s and 11.8 GB for the 33 M transfers of the 4096-NPU ring).
 * Every measurement runs in its own child process, so its peak resident memory (getrusage
 * maxrss of the child) is its own. The goal for the plans: 16384 NPUs, ring, ring2d
 * and hierarchical, under 10 s and 256 MiB each ("goal" column).
 *
 * Simulation rows (--sim=flow,packet): the same all-reduces run on the fabric (RoceHelper,
 * CollectiveHelper, no database), the simulated time beside the cost model's, and the row's
 * CPU split into set-up and run (Simulator::Run) with the run's CPU per transfer.
 *  - flow "generated" (Program=generated, every rank's whole program held) beside flow
 *    "schedule" (Program=schedule, the baseline, up to --baseline-max transfers), below
 *    16384 NPUs (whole programs take about 9 GB there);
 *  - flow "window" (Program=generated, ProgramWindow=--window ops per stream) beside flow
 *    "generated": memory follows the windows; a window narrower than the program's least
 *    (tn_program_min_window) makes the row fail with the service's one-line refusal;
 *  - flow "symmetric" (--symmetric, ring2d and hierarchical: the flat ring's order is not a
 *    translate from rank to rank): NPU 0 alone runs and stands for every NPU
 *    (FlowNetwork::Symmetric, ECMP routing), beside flow "generated" (or "window" at 16384);
 *    the simulated time is the same to the ns;
 *  - packet, for the sizes in --packet-sizes (hierarchical only beyond 1024 NPUs), beside
 *    the flow row of the same case.
 * Goals: flow level, 16384 NPUs, under 2 GiB, hierarchical under 60 s, ring2d with every NPU
 * simulated ("flow window") under 120 s (issue 41), ring under 300 s; packet level, the
 * 4096-NPU hierarchical all-reduce under 20 minutes of CPU (issue 41 item 6; the packet rows
 * print their CPU time) and 8 GiB. A child past --timeout seconds or --memory-limit MiB
 * (address space) is stopped and its row says so.
 *
 * Training rows (--training-sizes, default 1024): one iteration of --workload (ResNet-50,
 * data parallel) at flow level on the hier system of that size, its all-reduces
 * hierarchical, no database: "training generated" (rank-local programs) beside "training
 * schedule" (every collective's DAG materialised, the baseline). Goals: 1,024 NPUs under
 * 60 s, 16,384 under 10 minutes.
 *
 * LLM, MoE, contention, quickstart and ResNet-50 rows (--llm-sizes, --moe-sizes,
 * --contention, --quickstart-sizes, --resnet-sizes): described at the heads of
 * bench-scale-llm.h, bench-scale-moe.h, bench-scale-contention.h, bench-scale-quickstart.h and
 * bench-scale-resnet.h, which run them; the cost model rows
 * (--cost-sizes=1024, --cost-timeout=600) at the head of bench-scale-cost.h.
 */
#include "bench-scale-contention.h"
#include "bench-scale-cost.h"
#include "bench-scale-llm.h"
#include "bench-scale-moe.h"
#include "bench-scale-quickstart.h"
#include "bench-scale-resnet.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/command-line.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-huge-pages.h"
#include "ns3/tn-program.h"
#include "ns3/tn-topology.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::bench;

namespace
{

/// Limits of a child.
struct ChildLimits
{
    unsigned seconds{0};    //!< wall seconds (alarm), 0 = none
    uint64_t addressMiB{0}; //!< address space, 0 = none
};

/// What one child measured.
struct Measure
{
    bool ok{false};       //!< the child exited 0
    double seconds{0};    //!< wall time of the child
    double cpuSeconds{0}; //!< its user and system CPU time (the machine may be shared)
    double peakMiB{0};    //!< its peak resident memory
    std::string result;   //!< the line it printed (estimate, counts) or its error
};

/// Run `fn` in a child process; its stdout line comes back through a pipe.
template <typename F>
Measure
InChild(const ChildLimits& limits, F fn)
{
    Measure m;
    int fd[2];
    if (pipe(fd) != 0)
    {
        m.result = "pipe failed";
        return m;
    }
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0)
    {
        close(fd[0]);
        if (limits.seconds > 0)
        {
            alarm(limits.seconds);
        }
        if (limits.addressMiB > 0)
        {
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(limits.addressMiB) << 20;
            setrlimit(RLIMIT_AS, &rl);
        }
        std::string line;
        int code = fn(&line);
        if (write(fd[1], line.data(), line.size()) < 0)
        {
            code = 3;
        }
        close(fd[1]);
        _exit(code);
    }
    close(fd[1]);
    char buf[512];
    ssize_t n;
    while ((n = read(fd[0], buf, sizeof(buf))) > 0)
    {
        m.result.append(buf, static_cast<size_t>(n));
    }
    close(fd[0]);
    int status = 0;
    struct rusage ru;
    std::memset(&ru, 0, sizeof(ru));
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
    {
        m.result = "fork failed";
        return m;
    }
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.peakMiB = static_cast<double>(ru.ru_maxrss) / 1024.0;
    m.cpuSeconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                   static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (WIFSIGNALED(status))
    {
        m.result = WTERMSIG(status) == SIGALRM
                       ? "stopped after --timeout=" + std::to_string(limits.seconds) + " s"
                       : "killed by signal " + std::to_string(WTERMSIG(status)) +
                             " (past --memory-limit?)";
    }
    else if (!m.ok && m.result.empty())
    {
        m.result = "failed (exit " + std::to_string(WEXITSTATUS(status)) +
                   "; out of memory under --memory-limit?)";
    }
    return m;
}

/**
 * \return path itself when it opens from the working directory or is absolute; else the same
 * relative path in the source folder this bench was built from (its defaults name files of
 * test/data, relative to the checkout, and the bench may run from any folder)
 */
std::string
FindSourceFile(const std::string& path)
{
    if (path.empty() || path[0] == '/' || access(path.c_str(), R_OK) == 0)
    {
        return path;
    }
#ifdef TN_SOURCE_DIR
    const std::string inSource = std::string(TN_SOURCE_DIR) + "/" + path;
    if (access(inSource.c_str(), R_OK) == 0)
    {
        return inSource;
    }
#endif
    return path;
}

/// One plan case.
struct PlanCase
{
    std::string spec;
    std::string algorithm;
    bool symmetricOnly{false}; //!< only the flow "symmetric" row
};

/// The topology and plan request of a case, the topology owned until the end of the scope.
struct PlanSetup
{
    /// \param c the case \param bytes all-reduce size \param memoryLimit request's memory_limit
    PlanSetup(const PlanCase& c, uint64_t bytes, uint64_t memoryLimit)
    {
        tn_plan_request_init(&req);
        req.algorithm = c.algorithm.c_str();
        req.bytes = bytes;
        req.memory_limit = memoryLimit;
        tn_error err;
        if (tn_topology_from_spec(c.spec.c_str(), &topo, &err) != TN_OK)
        {
            error = err.message;
        }
    }

    ~PlanSetup()
    {
        tn_topology_destroy(topo);
    }

    PlanSetup(const PlanSetup&) = delete;
    PlanSetup& operator=(const PlanSetup&) = delete;

    tn_topology* topo{nullptr}; //!< null when the spec is refused
    tn_plan_request req;        //!< the request (algorithm points into the case)
    std::string error;          //!< why the spec was refused
};

/// The generated path: program and per-step estimate.
int
PlanGenerated(const PlanCase& c, uint64_t bytes, std::string* line)
{
    PlanSetup in(c, bytes, UINT64_MAX);
    if (!in.topo)
    {
        *line = in.error;
        return 1;
    }
    tn_error err;
    tn_program* p = nullptr;
    tn_cost_program_result cost;
    int code = 1;
    if (tn_program_create(in.topo, &in.req, &p, &err) == TN_OK &&
        tn_cost_program(p, nullptr, 0, &cost, &err) == TN_OK)
    {
        bool exact = false;
        const uint64_t transfers = tn_program_transfers(p, &exact);
        char b[160];
        std::snprintf(b,
                      sizeof(b),
                      "%.1f us, %s%llu transfers, per-step model over %u ranks",
                      cost.time_ns / 1e3,
                      exact ? "" : "~",
                      static_cast<unsigned long long>(transfers),
                      cost.evaluated);
        *line = b;
        code = 0;
    }
    else
    {
        *line = err.message;
    }
    tn_program_destroy(p);
    return code;
}

/// The baseline: materialised DAG and its estimate.
int
PlanSchedule(const PlanCase& c, uint64_t bytes, std::string* line)
{
    PlanSetup in(c, bytes, UINT64_MAX);
    if (!in.topo)
    {
        *line = in.error;
        return 1;
    }
    tn_error err;
    tn_schedule* s = nullptr;
    tn_cost_result* cost = nullptr;
    int code = 1;
    if (tn_plan(in.topo, &in.req, &s, &err) == TN_OK &&
        tn_cost_estimate(s, in.topo, nullptr, nullptr, &cost, &err) == TN_OK)
    {
        char b[160];
        std::snprintf(b,
                      sizeof(b),
                      "%.1f us, %u transfers, DAG %s model",
                      cost->time_ns / 1e3,
                      tn_schedule_count(s),
                      cost->model == TN_COST_FLUID ? "fluid" : "list");
        *line = b;
        code = 0;
    }
    else
    {
        *line = err.message;
    }
    tn_cost_result_destroy(cost);
    tn_schedule_destroy(s);
    return code;
}

/**
 * One all-reduce on the fabric at `mode` level ("flow" or "packet"), planned as `program`
 * says (CollectiveService attribute Program), without a database; `symmetric`: NPU 0 runs
 * for all (FlowNetwork::Symmetric, ECMP routing: the tori and hier systems here have unique
 * shortest paths). *line ends "set-up S s, run R s, U us per transfer": CPU times, the run's
 * (Simulator::Run) per transfer, so that a row's time per transfer is the simulation's.
 */
int
Simulate(const PlanCase& c,
         uint64_t bytes,
         const std::string& mode,
         const std::string& program,
         uint32_t window,
         std::string* line,
         bool symmetric = false)
{
    const double cpu0 = ProcessCpuSeconds();
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(c.spec.c_str(), &topo, &err) != TN_OK)
    {
        *line = err.message;
        return 1;
    }
    RoceHelper roce;
    roce.SetMode(mode);
    roce.SetFlowNetworkAttribute("Symmetric", BooleanValue(symmetric));
    roce.Install(topo);
    CollectiveHelper collectives;
    if (symmetric)
    {
        collectives.SetRouting("ecmp");
    }
    collectives.SetServiceAttribute("Program", StringValue(program));
    collectives.SetServiceAttribute("ProgramWindow", UintegerValue(window));
    collectives.Install(topo, roce);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = c.algorithm.c_str();
    req.bytes = bytes;
    std::string error;
    Ptr<Collective> coll = collectives.Create(req, {}, &error);
    int code = 1;
    if (coll)
    {
        collectives.Start(coll);
        const double cpu1 = ProcessCpuSeconds();
        Simulator::Run();
        const double cpu2 = ProcessCpuSeconds();
        const std::string mismatch = coll->Check();
        if (coll->IsComplete() && mismatch.empty())
        {
            const double us = coll->GetDuration().GetNanoSeconds() / 1e3;
            const double estimate = coll->GetEstimatedTime().GetNanoSeconds() / 1e3;
            const uint64_t transfers = coll->GetTransferCount();
            char b[300];
            std::snprintf(b,
                          sizeof(b),
                          "%s level %.1f us (cost model %.1f us, ratio %.4f), %llu transfers, "
                          "set-up %.1f s, run %.1f s, %.2f us per transfer",
                          mode.c_str(),
                          us,
                          estimate,
                          estimate > 0 ? us / estimate : 0.0,
                          static_cast<unsigned long long>(transfers),
                          cpu1 - cpu0,
                          cpu2 - cpu1,
                          transfers > 0 ? (cpu2 - cpu1) * 1e6 / static_cast<double>(transfers)
                                        : 0.0);
            *line = b;
            code = 0;
        }
        else
        {
            *line = "incomplete: " + mismatch;
        }
    }
    else
    {
        *line = error;
    }
    coll = nullptr;
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return code;
}

/// "; simulated a/b x" of two MoE rows (their "packet level T us" results).
std::string
SimulatedRatio(const char* what, const Measure& a, const Measure& b)
{
    double ta = 0;
    double tb = 0;
    if (!a.ok || !b.ok || std::sscanf(a.result.c_str(), "packet level %lf", &ta) != 1 ||
        std::sscanf(b.result.c_str(), "packet level %lf", &tb) != 1 || tb <= 0)
    {
        return "";
    }
    char t[80];
    std::snprintf(t, sizeof(t), "; simulated %s %.3f", what, ta / tb);
    return t;
}

/**
 * One training iteration of `workload` at flow level on `spec`, its all-reduces
 * hierarchical and planned as `program` says, without a database.
 */
int
SimulateTraining(const std::string& spec,
                 const std::string& workload,
                 const std::string& program,
                 std::string* line,
                 bool symmetric = false)
{
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        *line = err.message;
        return 1;
    }
    RoceHelper roce;
    roce.SetMode(symmetric ? RoceHelper::FLOW_SYMMETRIC : RoceHelper::FLOW);
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.SetKeepCollectives(false);
    // ResNet-50's buffers are not multiples of the NPUs: parts differ by the remainder's byte
    // (one per level of the hierarchical all-reduce)
    collectives.SetServiceAttribute("SymmetricLengthSlack", UintegerValue(symmetric ? 2 : 0));
    collectives.SetServiceAttribute("Program", StringValue(program));
    collectives.Install(topo, roce);
    NpuHelper npus;
    npus.Install(roce.GetFabric().npus);
    TrainingHelper training;
    training.SetAlgorithm(TN_COLL_ALL_REDUCE, "hierarchical");
    std::string error;
    Ptr<TrainingJob> job;
    if (training.Load(workload, &error))
    {
        job = training.Install(collectives, npus, tn_topology_dim(topo, 0)->size, &error);
    }
    int code = 1;
    if (job)
    {
        job->Start();
        Simulator::Run();
        uint64_t posted = 0;
        for (uint32_t r = 0; r < roce.GetFabric().npus.GetN(); r++)
        {
            // symmetric: every NPU posts what NPU 0 posts
            posted += collectives.GetExecutor(symmetric ? 0 : r)->GetPosted();
        }
        if (job->IsComplete() && !job->GetIterations(0).empty())
        {
            const auto& it = job->GetIterations(0).front();
            char b[200];
            std::snprintf(b,
                          sizeof(b),
                          "flow level iteration %.1f us, %llu collectives, %llu transfers",
                          (it.end - it.start).GetNanoSeconds() / 1e3,
                          static_cast<unsigned long long>(job->GetCollectiveCount()),
                          static_cast<unsigned long long>(posted));
            *line = b;
            code = 0;
        }
        else
        {
            *line = "the iteration did not complete";
        }
    }
    else
    {
        *line = error;
    }
    job = nullptr;
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return code;
}

/// Transfers of the materialised plan (closed form), 0 if it cannot be estimated.
uint64_t
ScheduleTransfers(const PlanCase& c, uint64_t bytes)
{
    PlanSetup in(c, bytes, 0);
    if (!in.topo)
    {
        return 0;
    }
    tn_error err;
    tn_plan_size size;
    return tn_plan_estimate(in.topo, &in.req, &size, &err) == TN_OK ? size.transfers : 0;
}

/// The NPU counts of option `--name` (comma separated multiples of 8, or none).
std::vector<uint32_t>
ParseSizes(const std::string& name, const std::string& text)
{
    std::vector<uint32_t> v;
    if (text == "none")
    {
        return v;
    }
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        char* end = nullptr;
        unsigned long x = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || x < 8 || x % 8 != 0)
        {
            std::fprintf(stderr,
                         "bench-scale: --%s: '%s' is not a multiple of 8 NPUs\n",
                         name.c_str(),
                         item.c_str());
            std::exit(2);
        }
        v.push_back(static_cast<uint32_t>(x));
    }
    return v;
}

/// A square torus of n NPUs (or the closest a x b with a*b == n, a >= b).
std::string
TorusOf(uint32_t n)
{
    uint32_t b = static_cast<uint32_t>(std::sqrt(static_cast<double>(n)));
    while (b > 1 && n % b != 0)
    {
        b--;
    }
    return "torus:" + std::to_string(n / b) + "x" + std::to_string(b);
}

/// One row of the table.
void
PrintRow(uint32_t n,
         const PlanCase& c,
         const char* path,
         const Measure& m,
         const std::string& goal,
         const std::string& extra)
{
    std::printf("%-6u %-13s %-44s %-16s %9.2f %9.1f  %-7s %s%s\n",
                n,
                c.algorithm.c_str(),
                c.spec.c_str(),
                path,
                m.seconds,
                m.peakMiB,
                goal.c_str(),
                m.result.c_str(),
                extra.c_str());
    std::fflush(stdout);
}

/// "met" or "MISSED" (counted in *failures) for a goal of `seconds` and `mib`.
std::string
Goal(const Measure& m, double seconds, double mib, int* failures)
{
    const bool met = m.ok && m.seconds < seconds && m.peakMiB < mib;
    *failures += met ? 0 : 1;
    return met ? "met" : "MISSED";
}

/// "; a/b: time x, memory y" of a row against its baseline.
std::string
Ratio(const char* what, const Measure& a, const Measure& b)
{
    if (!a.ok || !b.ok || b.seconds <= 0 || b.peakMiB <= 0)
    {
        return "";
    }
    char t[120];
    std::snprintf(t,
                  sizeof(t),
                  "; %s: time %.3f, memory %.3f",
                  what,
                  a.seconds / b.seconds,
                  a.peakMiB / b.peakMiB);
    return t;
}

/// The MoE rows of n GPUs (file head); each goal missed adds one to *failures.
void
MoeRows(uint32_t n,
        const std::string& model,
        uint32_t tokens,
        const std::string& oversub,
        const ChildLimits& limits,
        int* failures)
{
    const MoeCase moe = DescribeMoe(n, model, tokens, oversub);
    const PlanCase c{moe.spec, "a2a direct"};
    if (!moe.error.empty())
    {
        std::printf("%-6u %-13s %-44s %-16s %s\n",
                    n,
                    c.algorithm.c_str(),
                    c.spec.c_str(),
                    "moe",
                    moe.error.c_str());
        (*failures)++;
        return;
    }
    std::printf("moe: %s, one MoE layer's dispatch, EP %u: %u tokens (of %u) x h %u x "
                "top-k %u = %llu bytes per rank; bound %.1f us (line rate), planned "
                "paths' busiest link %.1f us\n",
                moe.model.c_str(),
                n,
                moe.tokens,
                moe.seqLen,
                moe.hidden,
                moe.topK,
                static_cast<unsigned long long>(moe.bytes),
                moe.boundUs,
                moe.busiestUs);
    Measure planned =
        InChild(limits, [&](std::string* line) { return SimulateMoe(moe, "planned", line); });
    PrintRow(n, c, "moe planned", planned, Goal(planned, 180.0, 512.0, failures), "");
    Measure ecmp =
        InChild(limits, [&](std::string* line) { return SimulateMoe(moe, "ecmp", line); });
    PrintRow(n,
             c,
             "moe ecmp",
             ecmp,
             Goal(ecmp, 180.0, 512.0, failures),
             SimulatedRatio("ecmp/planned", ecmp, planned) + Ratio("ecmp/planned", ecmp, planned));
}

/// The contention rows (file head): flow level beside packet level, goal a run 10x faster.
void
ContentionRows(const ChildLimits& limits, int* failures)
{
    for (const ContentionCase& k : ContentionCases())
    {
        tn_topology* topo = nullptr;
        tn_error err;
        const uint32_t n = tn_topology_from_spec(k.spec.c_str(), &topo, &err) == TN_OK
                               ? tn_topology_npu_count(topo)
                               : 0;
        tn_topology_destroy(topo);
        const PlanCase c{k.spec, k.label};
        Measure p = InChild(limits, [&](std::string* line) {
            return SimulateContention(k, "packet", line);
        });
        PrintRow(n, c, "contention packet", p, "-", "");
        Measure f =
            InChild(limits, [&](std::string* line) { return SimulateContention(k, "flow", line); });
        double pr = 0;
        double fr = 0;
        const bool both = f.ok && p.ok && std::sscanf(RunField(p.result), "%lf", &pr) == 1 &&
                          std::sscanf(RunField(f.result), "%lf", &fr) == 1 && fr > 0;
        const bool met = both && fr * 10 <= pr;
        *failures += met ? 0 : 1;
        char t[80] = "";
        if (both)
        {
            std::snprintf(t, sizeof(t), "; packet/flow: run %.1fx", pr / fr);
        }
        PrintRow(n, c, "contention flow", f, met ? "met" : "MISSED", t);
    }
}

} // namespace

int
main(int argc, char** argv)
{
    tn_huge_pages_prefer(argv); // a large run's memory in huge pages: may start again
    // Rows come minutes apart: a pipe or file sees each as it is printed, not all at the end.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::string sizes = "1024,4096,16384";
    std::string bytesText = "64MiB";
    std::string sims = "flow,packet";
    std::string packetSizes = "1024,4096";
    std::string algorithms = "ring,ring2d,hierarchical";
    // the window CollectiveService holds by itself when whole programs would pass their share
    // of memory (its AUTO_PROGRAM_WINDOW): what a user's 16,384-NPU run holds with no option
    uint32_t window = 64;
    bool whole = true;
    bool symmetric = true;
    std::string trainingSizes = "1024";
    std::string llmSizes = "1024";
    std::string quickstartSizes = "16384,65536";
    std::string resnetSizes = "1024";
    std::string resnetTopology = "torus";
    bool llmFlow = true;
    std::string moeSizes = "256";
    std::string moeModel = "deepseek-v3-like";
    uint32_t moeTokens = 256;
    std::string moeOversub = "1";
    bool contention = true;
    std::string workload = "test/data/workloads/Resnet50_DataParallel.txt";
    uint64_t baselineMax = 4000000;
    ChildLimits limits;
    limits.seconds = 1800;
    limits.addressMiB = 16384;
    CommandLine cmd(__FILE__);
    cmd.AddValue("sizes", "NPU counts, comma separated (multiples of 8; none)", sizes);
    cmd.AddValue("bytes", "all-reduce size", bytesText);
    cmd.AddValue("baseline-max",
                 "largest materialised plan (transfers) measured as the baseline",
                 baselineMax);
    cmd.AddValue("sim", "simulation rows: flow, packet, both (flow,packet) or none", sims);
    cmd.AddValue("packet-sizes",
                 "sizes with packet-level rows (hierarchical only beyond 1024 NPUs)",
                 packetSizes);
    cmd.AddValue("timeout",
                 "wall seconds of one row before it is stopped (0: none)",
                 limits.seconds);
    cmd.AddValue("memory-limit", "address space of one row, MiB (0: none)", limits.addressMiB);
    cmd.AddValue("algorithms", "the cases to run: ring, ring2d, hierarchical", algorithms);
    cmd.AddValue("window",
                 "ops per stream window of the flow \"window\" rows (0: no such rows)",
                 window);
    cmd.AddValue("whole",
                 "run the whole-program flow rows below 16,384 NPUs (false: windows only)",
                 whole);
    cmd.AddValue("symmetric",
                 "run the flow \"symmetric\" rows (NPU 0 for all: FlowNetwork::Symmetric)",
                 symmetric);
    cmd.AddValue("training-sizes",
                 "NPU counts of the training rows (hier systems of 8 GPUs per server; "
                 "none: no such rows)",
                 trainingSizes);
    cmd.AddValue("workload", "ASTRA-sim 1.0 workload of the training rows", workload);
    cmd.AddValue("llm-flow",
                 "run the LLM rows' flow level with every NPU simulated (false: the "
                 "no-network baseline and flow-symmetric only)",
                 llmFlow);
    cmd.AddValue("llm-sizes",
                 "GPU counts of the LLM rows: 1024 (GPT-3 175B), 16384 (Llama-3 405B-like); "
                 "none",
                 llmSizes);
    cmd.AddValue("moe-sizes",
                 "GPU counts of the MoE rows (DGX H100 servers, rail-optimized fabric; none)",
                 moeSizes);
    cmd.AddValue("moe-model", "MoE model preset or file of the MoE rows", moeModel);
    cmd.AddValue("quickstart-sizes",
                 "NPU counts of the quickstart rows (flow-symmetric, database included; none)",
                 quickstartSizes);
    cmd.AddValue("resnet-sizes",
                 "NPU counts of the ResNet-50 rows (training-iteration at flow level, database "
                 "included; none)",
                 resnetSizes);
    cmd.AddValue("resnet-topology",
                 "system of the ResNet-50 rows: torus (the square torus) or hier (servers of 8 "
                 "GPUs, as the training rows)",
                 resnetTopology);
    cmd.AddValue("moe-tokens",
                 "tokens of the MoE rows' micro-batch (0: the model's sequence)",
                 moeTokens);
    cmd.AddValue("moe-oversub",
                 "oversubscription of the MoE rows' leaf uplinks (the preset's oversub)",
                 moeOversub);
    cmd.AddValue("contention",
                 "run the contention rows (flow beside packet level, goal 10x faster)",
                 contention);
    CostOptions cost;
    cost.Add(cmd);
    cmd.Parse(argc, argv);
    workload = FindSourceFile(workload);
    if (resnetTopology != "torus" && resnetTopology != "hier")
    {
        std::fprintf(stderr,
                     "bench-scale: --resnet-topology: '%s' is neither torus nor hier\n",
                     resnetTopology.c_str());
        return 2;
    }
    tn_error err;
    uint64_t bytes = 0;
    if (tn_units_parse_bytes(bytesText.c_str(), SIZE_MAX, "--bytes", &bytes, &err) != TN_OK)
    {
        std::fprintf(stderr, "bench-scale: %s\n", err.message);
        return 2;
    }
    if (sims != "flow" && sims != "packet" && sims != "flow,packet" && sims != "packet,flow" &&
        sims != "none")
    {
        std::fprintf(stderr,
                     "bench-scale: --sim: '%s' is not flow, packet, flow,packet or none\n",
                     sims.c_str());
        return 2;
    }
    const bool flow = sims.find("flow") != std::string::npos;
    const bool packet = sims.find("packet") != std::string::npos;
    const std::vector<uint32_t> packetAt = ParseSizes("packet-sizes", packetSizes);
    std::printf("bench-scale: %s all-reduce; every row in its own process (wall time, peak RSS)\n",
                bytesText.c_str());
    std::printf("plan: generated = rank-local programs + per-step estimate (no DAG); "
                "schedule = materialised DAG + its estimate (baseline, up to %llu transfers)\n",
                static_cast<unsigned long long>(baselineMax));
    std::printf("flow/packet: the all-reduce simulated (no database), generated programs "
                "or the schedule (baseline)\n");
    std::printf("%-6s %-13s %-44s %-16s %9s %9s  %-7s %s\n",
                "NPUs",
                "algorithm",
                "topology",
                "path",
                "time s",
                "peak MiB",
                "goal",
                "result");
    int failures = 0;
    for (uint32_t n : ParseSizes("sizes", sizes))
    {
        std::vector<PlanCase> cases = {
            {TorusOf(n), "ring"},
            {TorusOf(n), "ring2d"},
            {HierOf(n), "hierarchical"},
            // the flat ring's order snakes through a torus, so its ranks are translates only
            // where the ring is the topology's own: N NPUs on one switch
            {"switch:" + std::to_string(n), "ring", true},
        };
        for (const PlanCase& c : cases)
        {
            if (("," + algorithms + ",").find("," + c.algorithm + ",") == std::string::npos)
            {
                continue;
            }
            const bool big = n >= 16384;
            if (c.symmetricOnly)
            {
                if (flow && symmetric)
                {
                    Measure fg;
                    if (!big && whole)
                    {
                        fg = InChild(limits, [&](std::string* line) {
                            return Simulate(c, bytes, "flow", "generated", 0, line);
                        });
                        PrintRow(n, c, "flow generated", fg, "-", "");
                    }
                    Measure fy = InChild(limits, [&](std::string* line) {
                        return Simulate(c, bytes, "flow", "generated", 0, line, true);
                    });
                    PrintRow(n,
                             c,
                             "flow symmetric",
                             fy,
                             big ? Goal(fy, 300.0, 2048.0, &failures) : "-",
                             fg.ok ? Ratio("symmetric/generated", fy, fg) : "");
                }
                continue;
            }
            Measure g =
                InChild(limits, [&](std::string* line) { return PlanGenerated(c, bytes, line); });
            PrintRow(n, c, "plan generated", g, big ? Goal(g, 10.0, 256.0, &failures) : "-", "");
            const uint64_t t = ScheduleTransfers(c, bytes);
            const bool baseline = t > 0 && t <= baselineMax;
            Measure s;
            if (baseline)
            {
                s = InChild(limits,
                            [&](std::string* line) { return PlanSchedule(c, bytes, line); });
                PrintRow(n, c, "plan schedule", s, "-", Ratio("generated/schedule", g, s));
            }
            Measure fg;
            if (flow)
            {
                const double goalSeconds = c.algorithm == "ring"     ? 300.0
                                           : c.algorithm == "ring2d" ? 120.0
                                                                     : 60.0;
                if (!big && whole)
                {
                    fg = InChild(limits, [&](std::string* line) {
                        return Simulate(c, bytes, "flow", "generated", 0, line);
                    });
                    PrintRow(n, c, "flow generated", fg, "-", "");
                }
                if (baseline)
                {
                    Measure fs = InChild(limits, [&](std::string* line) {
                        return Simulate(c, bytes, "flow", "schedule", 0, line);
                    });
                    PrintRow(n, c, "flow schedule", fs, "-", Ratio("generated/schedule", fg, fs));
                }
                if (window > 0)
                {
                    Measure fw = InChild(limits, [&](std::string* line) {
                        return Simulate(c, bytes, "flow", "generated", window, line);
                    });
                    PrintRow(n,
                             c,
                             "flow window",
                             fw,
                             big ? Goal(fw, goalSeconds, 2048.0, &failures) : "-",
                             big ? "" : Ratio("window/generated", fw, fg));
                    if (big)
                    {
                        fg = fw;
                    }
                }
            }
            // the flat ring's order snakes through the torus: its ranks are not translates (the
            // switch case below)
            if (flow && symmetric && c.algorithm != "ring")
            {
                Measure fy = InChild(limits, [&](std::string* line) {
                    return Simulate(c, bytes, "flow", "generated", 0, line, true);
                });
                PrintRow(n,
                         c,
                         "flow symmetric",
                         fy,
                         big ? Goal(fy, 60.0, 2048.0, &failures) : "-",
                         Ratio(big ? "symmetric/window" : "symmetric/generated", fy, fg));
            }
            const bool packetHere =
                std::find(packetAt.begin(), packetAt.end(), n) != packetAt.end() &&
                (n <= 1024 || c.algorithm == "hierarchical");
            if (packet && packetHere)
            {
                Measure p = InChild(limits, [&](std::string* line) {
                    return Simulate(c, bytes, "packet", "auto", 0, line);
                });
                // issue 41 item 6: under 20 minutes (it took 44) and 8 GiB, judged on the
                // child's CPU time: the machine the bench runs on is often shared
                const bool goal = n == 4096 && c.algorithm == "hierarchical";
                Measure cpu = p;
                cpu.seconds = p.cpuSeconds;
                char cpuText[120];
                std::snprintf(cpuText,
                              sizeof(cpuText),
                              "; CPU %.1f s%s",
                              p.cpuSeconds,
                              goal ? " (goal: under 1200 s of CPU and 8192 MiB)" : "");
                PrintRow(n,
                         c,
                         "packet",
                         p,
                         goal ? Goal(cpu, 1200.0, 8192.0, &failures) : "-",
                         cpuText + Ratio("packet/flow", p, fg));
            }
            if (!baseline)
            {
                std::printf("%-6u %-13s %-44s %-16s no baseline: %llu transfers > --baseline-max\n",
                            n,
                            c.algorithm.c_str(),
                            c.spec.c_str(),
                            "schedule",
                            static_cast<unsigned long long>(t));
            }
        }
    }
    for (uint32_t n : ParseSizes("training-sizes", trainingSizes))
    {
        const PlanCase c{HierOf(n), "hierarchical"};
        const double goalSeconds = n >= 16384 ? 600.0 : 60.0;
        // every NPU simulated: 3.6 billion transfers at 16,384 NPUs (hours); the symmetric row
        // stands for it there
        Measure g;
        if (n < 16384 || !symmetric)
        {
            g = InChild(limits, [&](std::string* line) {
                return SimulateTraining(c.spec, workload, "generated", line);
            });
            PrintRow(n, c, "training generated", g, Goal(g, goalSeconds, 1e9, &failures), "");
        }
        if (symmetric)
        {
            Measure y = InChild(limits, [&](std::string* line) {
                return SimulateTraining(c.spec, workload, "generated", line, true);
            });
            PrintRow(n,
                     c,
                     "training symmetric",
                     y,
                     Goal(y, goalSeconds, 1e9, &failures),
                     g.ok ? Ratio("symmetric/generated", y, g) : "");
        }
        if (n < 16384)
        {
            Measure s = InChild(limits, [&](std::string* line) {
                return SimulateTraining(c.spec, workload, "schedule", line);
            });
            PrintRow(n, c, "training schedule", s, "-", Ratio("generated/schedule", g, s));
        }
    }
    for (uint32_t n : ParseSizes("llm-sizes", llmSizes))
    {
        TrainingHelper::LlmSettings settings;
        const bool big = n >= 16384;
        settings.model = big ? "llama3-405b-like" : "gpt3-175b";
        settings.size[TN_LLM_DIM_TP] = 8;
        settings.size[TN_LLM_DIM_PP] = big ? 16 : 8;
        settings.size[TN_LLM_DIM_DP] = n / 8 / settings.size[TN_LLM_DIM_PP];
        settings.globalBatch = big ? 2048 : 1536;
        settings.sequenceParallel = true;
        // dp outermost, so that the replicas are translates (flow-symmetric); on one rail
        // switch per GPU index a stage's peer server is as near in any order
        settings.order = "tp,ep,pp,dp";
        const PlanCase c{"hier:switch8@3600Gbps+switch" + std::to_string(n / 8) + "@400Gbps",
                         settings.model};
        Measure base = InChild(limits, [&](std::string* line) {
            return SimulateLlm(c.spec, settings, false, false, line);
        });
        PrintRow(n, c, "llm no network", base, "-", "");
        Measure m;
        if (llmFlow)
        {
            m = InChild(limits, [&](std::string* line) {
                return SimulateLlm(c.spec, settings, true, false, line);
            });
            PrintRow(n,
                     c,
                     "llm flow",
                     m,
                     Goal(m, big ? 1800.0 : 300.0, big ? 16384.0 : 4096.0, &failures),
                     base.ok ? Ratio("flow/no network", m, base) : "");
        }
        Measure sym = InChild(limits, [&](std::string* line) {
            return SimulateLlm(c.spec, settings, true, true, line);
        });
        PrintRow(n,
                 c,
                 "llm flow symmetric",
                 sym,
                 big ? Goal(sym, 60.0, 16384.0, &failures) : "-",
                 m.ok ? Ratio("symmetric/flow", sym, m) : Ratio("symmetric/no network", sym, base));
    }
    for (uint32_t n : ParseSizes("quickstart-sizes", quickstartSizes))
    {
        for (const PlanCase& c :
             {PlanCase{TorusOf(n), "ring2d"}, PlanCase{HierOf(n), "hierarchical"}})
        {
            Measure q = InChild(limits, [&](std::string* line) {
                return RunQuickstart(c.spec, c.algorithm, bytesText, line);
            });
            PrintRow(n,
                     c,
                     "quickstart db",
                     q,
                     Goal(q,
                          n >= 65536   ? 30.0
                          : n >= 16384 ? 5.0
                                       : 1e9,
                          2048.0,
                          &failures),
                     "");
        }
    }
    for (uint32_t n : ParseSizes("resnet-sizes", resnetSizes))
    {
        // the ring row at 1,024 NPUs only (hours beyond: 537 M transfers at 16,384)
        for (const std::string& option : {std::string(), std::string("--algorithm=ring")})
        {
            if (!option.empty() && n > 1024)
            {
                continue;
            }
            const PlanCase c{resnetTopology == "hier" ? HierOf(n) : TorusOf(n),
                             option.empty() ? "auto" : "ring"};
            double cpu = 0;
            Measure r = InChild(limits, [&](std::string* line) {
                return RunResnet(workload, c.spec, option, line, &cpu);
            });
            // the goals on the run's CPU (the RunResnet line's), the machine being shared; but
            // the 2 minutes of the 1,024-NPU default, a user's wait, on its wall time: its
            // plans are verified and its rows written on threads of their own, so its CPU is
            // more than its wall time on two cores (the row says the load it ran at)
            Measure onCpu = r;
            const size_t at = r.result.rfind("CPU ");
            onCpu.seconds = at == std::string::npos ? 1e9 : std::atof(r.result.c_str() + at + 4);
            const bool onWall = option.empty() && n < 16384;
            double load[1] = {0};
            if (onWall && getloadavg(load, 1) == 1)
            {
                char text[48];
                std::snprintf(text, sizeof(text), "; load %.1f", load[0]);
                r.result += text;
            }
            PrintRow(n,
                     c,
                     option.empty() ? "resnet default" : "resnet ring",
                     r,
                     Goal(onWall ? r : onCpu,
                          n >= 16384       ? 1800.0
                          : option.empty() ? 120.0
                                           : 1e9,
                          n >= 16384       ? 1e9
                          : option.empty() ? 2048.0
                                           : 4096.0,
                          &failures),
                     "");
        }
    }
    for (uint32_t n : ParseSizes("moe-sizes", moeSizes))
    {
        MoeRows(n, moeModel, moeTokens, moeOversub, limits, &failures);
    }
    if (contention)
    {
        ContentionRows(limits, &failures);
    }
    for (uint32_t n : ParseSizes("cost-sizes", cost.sizes))
    {
        CostRows(n, TorusOf(n), bytesText, cost.seconds, &failures);
    }
    if (failures)
    {
        std::printf("bench-scale: %d goal(s) missed\n", failures);
        return 1;
    }
    return 0;
}
