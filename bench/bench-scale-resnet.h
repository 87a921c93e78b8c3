/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-scale's ResNet-50 rows (--resnet-sizes, default 1024; none): training-iteration as a
 * user runs it, data parallel at flow level with every NPU simulated, results database
 * included (issue 41 item 3), on the square torus (--resnet-topology=torus, the default) or
 * the hier system of 8 GPUs per server (hier, HierOf; the 16,384-NPU goal's system, where
 * the torus's ring2d and swing all-reduces take far longer):
 *   training-iteration --workload=test/data/workloads/Resnet50_DataParallel.txt
 *       --topology=torus:32x32 --engines=baseline --mode=flow
 * "resnet default" takes no option (the job's all-reduces on auto per group, the service's
 * program windows); "resnet ring" forces --algorithm=ring (the flat ring of the former
 * default). The machine is shared, so the goals are on CPU time (user + sys of the run,
 * printed in the row's line beside its wall time) but for the 1,024-NPU default's 2 minutes,
 * on wall time (its set-up's verifier and its database writer run on threads of their own:
 * its CPU is more than its wall time; the row gives the load): 1,024 NPUs under 2 minutes and
 * 2 GiB by default, under 4 GiB with the ring (its time stated); 16,384 NPUs under 30 minutes.
 */
#ifndef BENCH_SCALE_RESNET_H
#define BENCH_SCALE_RESNET_H

#include "bench-scale-quickstart.h"

#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace ns3
{
namespace bench
{

/**
 * Run ResNet-50's iteration on `spec` at flow level, `options` added (empty: none), database
 * included; *line gets its baseline row and the CPU seconds (or its last line when it fails),
 * *cpuSeconds the run's user + sys.
 * \return its exit status (0: the iteration ran and was recorded)
 */
inline int
RunResnet(const std::string& workload,
          const std::string& spec,
          const std::string& options,
          std::string* line,
          double* cpuSeconds)
{
    const std::string db = "/tmp/bench-scale-resnet-" + std::to_string(getpid()) + ".db";
    const std::string cmd = ExamplePath("training-iteration") + " --workload=" + workload +
                            " --topology=" + spec + " --engines=baseline --mode=flow" +
                            (options.empty() ? "" : " " + options) + " --db=" + db;
    line->clear();
    const ProgramRun run = RunProgram(cmd, db, [line](const std::string& text) {
        if (text.rfind("baseline", 0) == 0)
        {
            // engine, iteration, compute, exposed (us), memory B / net B; one space apart
            line->clear();
            for (char ch : text)
            {
                if (ch != '\n' && (ch != ' ' || (!line->empty() && line->back() != ' ')))
                {
                    line->push_back(ch);
                }
            }
        }
    });
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    *cpuSeconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    const int code = run.code != 0 ? run.code : line->empty() ? 4 : 0;
    if (code != 0)
    {
        *line = "training-iteration failed: " + run.last;
    }
    char cpu[64];
    std::snprintf(cpu, sizeof(cpu), "; CPU %.1f s", *cpuSeconds);
    *line += cpu;
    return code;
}

} // namespace bench
} // namespace ns3

#endif // BENCH_SCALE_RESNET_H
