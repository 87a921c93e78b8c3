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

#include <cstdio>
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
                            " --bytes=" + bytes + " --mode=flow-symmetric --db=" + db + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
    {
        *line = "cannot run " + cmd;
        return 2;
    }
    char buf[1024];
    std::string last;
    while (std::fgets(buf, sizeof(buf), p))
    {
        last = buf;
        if (last.find("flow-symmetric level") != std::string::npos)
        {
            *line = last.substr(last.find_first_not_of(' '));
        }
    }
    const int status = pclose(p);
    std::remove(db.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
    if (code != 0 || line->empty())
    {
        *line = "quickstart failed: " + last;
    }
    if (!line->empty() && line->back() == '\n')
    {
        line->pop_back();
    }
    return code != 0 ? code : line->rfind("quickstart failed", 0) == 0 ? 4 : 0;
}

} // namespace bench
} // namespace ns3

#endif // BENCH_SCALE_QUICKSTART_H
