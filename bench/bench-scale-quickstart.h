/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-scale's quickstart rows (--quickstart-sizes, default 16384,65536): training-net-quickstart
 * as a user runs it, flow-symmetric, results database included, ring2d on the square torus and
 * hierarchical on the hier system. Goals: 16,384 NPUs under 5 s, 65,536 under 30 s, each
 * under 2 GiB.
 */
#ifndef BENCH_SCALE_QUICKSTART_H
#define BENCH_SCALE_QUICKSTART_H

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{
namespace bench
{

/// An example program of this build tree (bench/../examples), from /proc/self/exe.
inline std::string
ExamplePath(const std::string& name)
{
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string("./x");
    dir = dir.substr(0, dir.rfind('/'));
    return dir + "/../examples/" + name;
}

/// The quickstart of this build tree.
inline std::string
QuickstartPath()
{
    return ExamplePath("training-net-quickstart");
}

/**
 * The hier system of n GPUs that the bench's hierarchical rows run on: servers of 8 GPUs on a
 * 2,880 Gb/s switch, the n / 8 servers on one 400 Gb/s switch.
 */
inline std::string
HierOf(uint32_t n)
{
    return "hier:switch8@2880Gbps+switch" + std::to_string(n / 8) + "@400Gbps";
}

/// What a sibling program's run printed and how it ended.
struct ProgramRun
{
    int code = 0;     ///< its exit status; 2: it could not start, 3: it did not exit (a signal)
    std::string last; ///< its last line, without the newline
};

/**
 * Run `cmd` (stderr joined to stdout), pass each line it prints to `onLine` as it comes, then
 * remove the results database `db` and its WAL files (the rows are the run's, not the bench's).
 */
inline ProgramRun
RunProgram(const std::string& cmd,
           const std::string& db,
           const std::function<void(const std::string&)>& onLine)
{
    ProgramRun run;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p)
    {
        run.code = 2;
        run.last = "cannot run " + cmd;
        return run;
    }
    char buf[2048];
    while (std::fgets(buf, sizeof(buf), p))
    {
        run.last = buf;
        onLine(run.last);
    }
    const int status = pclose(p);
    for (const char* suffix : {"", "-wal", "-shm"})
    {
        std::remove((db + suffix).c_str());
    }
    run.code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
    if (!run.last.empty() && run.last.back() == '\n')
    {
        run.last.pop_back();
    }
    return run;
}

/**
 * Run the quickstart on `spec` with `algorithm`, flow-symmetric, `bytes` per rank, database
 * included; *line gets its result line (or its last line when it fails).
 * \return its exit status (0: the run was recorded)
 */
inline int
RunQuickstart(const std::string& spec,
              const std::string& algorithm,
              const std::string& bytes,
              std::string* line)
{
    const std::string db = "/tmp/bench-scale-quickstart-" + std::to_string(getpid()) + ".db";
    const std::string cmd = QuickstartPath() + " --topology=" + spec + " --algorithm=" + algorithm +
                            " --bytes=" + bytes + " --mode=flow-symmetric --db=" + db;
    line->clear();
    const ProgramRun run = RunProgram(cmd, db, [line](const std::string& text) {
        if (text.find("flow-symmetric level") != std::string::npos)
        {
            *line = text.substr(text.find_first_not_of(' '));
        }
    });
    if (!line->empty() && line->back() == '\n')
    {
        line->pop_back();
    }
    if (run.code != 0 || line->empty())
    {
        *line = "quickstart failed: " + run.last;
        return run.code != 0 ? run.code : 4;
    }
    return 0;
}

} // namespace bench
} // namespace ns3

#endif // BENCH_SCALE_QUICKSTART_H
