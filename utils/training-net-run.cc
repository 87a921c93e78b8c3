/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-net-run: runs a scenario file (a scenarios/ file, doc/scenarios.rst).
 *
 *   training-net-run scenarios/quickstart.toml
 *   training-net-run scenarios/multitree.toml -j 2 --set topology.spec=torus:8x8
 *   training-net-run scenarios/themis.toml --test-size --db=/tmp/t.db
 *
 * The whole scenario (every sweep point) is validated before anything is simulated; errors
 * name the file, line and key, and exit 2. Each point runs in its own process (at most -j at
 * once) and appends its run to the results database; progress is shown on a terminal only.
 * At the end a summary of the runs is printed from the database's views. Exit status: 0 when
 * every run is ok, 1 when one failed, 130 when interrupted, 2 for bad input.
 */
#include "ns3/scenario-config.h"
#include "ns3/scenario-runner.h"
#include "ns3/tn-db.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

const char* PROGRAM = "training-net-run";

volatile sig_atomic_t g_stop = 0;

void
OnSignal(int sig)
{
    g_stop = sig;
}

void
Usage(std::ostream& out)
{
    out << "usage: " << PROGRAM << " [options] SCENARIO.toml\n"
        << "  --set KEY=VALUE  override a key (repeatable): seed=3, topology.spec=torus:8x8,\n"
        << "                   collective.bytes=[\"1MiB\",\"4MiB\"] (a list sweeps),\n"
        << "                   roce.ns3::RdmaNic::Mtu=1024\n"
        << "  --mode LEVEL     packet or flow (the scenario's mode key; flow: fluid flows)\n"
        << "  -j, --jobs N     run up to N sweep points at once (processes; default 1)\n"
        << "  --db PATH        results database (overrides the scenario's database)\n"
        << "  --test-size      apply the scenario's [test] overrides (the reduced size)\n"
        << "  --check          validate and list the points; simulate nothing\n"
        << "  --quiet          no progress display (it is shown on a terminal only)\n"
        << "  --help           this text\n";
}

std::string
Duration(double s)
{
    char buf[32];
    if (s < 0)
    {
        return "?";
    }
    if (s < 100)
    {
        std::snprintf(buf, sizeof(buf), "%.1f s", s);
    }
    else if (s < 6000)
    {
        std::snprintf(buf, sizeof(buf), "%.1f min", s / 60);
    }
    else
    {
        std::snprintf(buf, sizeof(buf), "%.1f h", s / 3600);
    }
    return buf;
}

/// One point's run in a child process; its result comes back through a pipe.
struct Child
{
    pid_t pid;
    int fd;
    size_t point;
    std::string output;
};

/// Child side: run the point, write "runId status simulatedNs\terror\n", exit.
[[noreturn]] void
RunChild(const ScenarioPoint& point, int fd, bool progress, size_t total)
{
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    tn_db* db = nullptr;
    tn_error err{};
    ScenarioResult r;
    if (tn_db_open(point.database.c_str(), &db, &err) != TN_OK)
    {
        r.status = "error";
        r.error = std::string("database: ") + err.message;
    }
    else
    {
        ScenarioRunner runner;
        if (progress)
        {
            const std::string head = total > 1 ? "[point " + std::to_string(point.index + 1) + "/" +
                                                     std::to_string(total) + "] "
                                               : "";
            runner.SetProgressCallback([head](const ScenarioProgress& p) {
                if (p.last)
                {
                    std::fprintf(stderr, "\r\033[K");
                    return;
                }
                std::fprintf(stderr,
                             "\r\033[K%ssimulated %.1f us, wall %s, %.2f M events/s, "
                             "remaining %s",
                             head.c_str(),
                             p.simulatedSeconds * 1e6,
                             Duration(p.wallSeconds).c_str(),
                             p.eventsPerSecond / 1e6,
                             p.remainingSeconds < 0 ? "?"
                                                    : ("~" + Duration(p.remainingSeconds)).c_str());
                std::fflush(stderr);
            });
        }
        r = runner.Run(point, db);
        tn_db_close(db);
    }
    std::string line = std::to_string(r.runId) + " " + r.status + " " +
                       std::to_string(r.simulatedNs) + "\t" + r.error + "\n";
    ssize_t ignored = write(fd, line.data(), line.size());
    (void)ignored;
    close(fd);
    std::fflush(nullptr);
    _exit(r.status == "ok" ? 0 : (r.status == "aborted" ? 130 : 1));
}

} // namespace

int
main(int argc, char* argv[])
{
    std::vector<std::string> sets;
    std::string scenario;
    std::string dbOverride;
    long jobs = 1;
    bool testSize = false;
    bool checkOnly = false;
    bool quiet = false;
    for (int i = 1; i < argc; i++)
    {
        std::string arg = argv[i];
        std::string value;
        bool hasValue = false;
        size_t eq = arg.find('=');
        if (arg.rfind("--", 0) == 0 && eq != std::string::npos)
        {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            hasValue = true;
        }
        auto need = [&](const char* name) -> std::string {
            if (hasValue)
            {
                return value;
            }
            if (i + 1 >= argc)
            {
                std::cerr << PROGRAM << ": " << name << " needs a value\n";
                exit(2);
            }
            return argv[++i];
        };
        auto noValue = [&]() {
            if (hasValue)
            {
                std::cerr << PROGRAM << ": " << arg << " takes no value\n";
                exit(2);
            }
        };
        if (arg == "--set")
        {
            sets.push_back(need("--set"));
        }
        else if (arg == "-j" || arg == "--jobs")
        {
            std::string v = need("--jobs");
            char* end = nullptr;
            errno = 0;
            jobs = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || errno || jobs < 1 || jobs > 4096)
            {
                std::cerr << PROGRAM << ": --jobs: '" << v
                          << "' is not a number of processes in [1, 4096]\n";
                return 2;
            }
        }
        else if (arg.rfind("-j", 0) == 0 && arg.size() > 2 && !hasValue)
        {
            char* end = nullptr;
            jobs = std::strtol(arg.c_str() + 2, &end, 10);
            if (*end || jobs < 1 || jobs > 4096)
            {
                std::cerr << PROGRAM << ": -j: '" << arg.substr(2)
                          << "' is not a number of processes in [1, 4096]\n";
                return 2;
            }
        }
        else if (arg == "--db")
        {
            dbOverride = need("--db");
            if (dbOverride.empty())
            {
                std::cerr << PROGRAM << ": --db: an empty path\n";
                return 2;
            }
        }
        else if (arg == "--mode")
        {
            // the scenario's mode key, overridden (checked with the scenario: packet, flow)
            sets.push_back("mode=\"" + need("--mode") + "\"");
        }
        else if (arg == "--test-size")
        {
            noValue();
            testSize = true;
        }
        else if (arg == "--check")
        {
            noValue();
            checkOnly = true;
        }
        else if (arg == "--quiet")
        {
            noValue();
            quiet = true;
        }
        else if (arg == "--help" || arg == "-h")
        {
            Usage(std::cout);
            return 0;
        }
        else if (arg.size() > 1 && arg[0] == '-')
        {
            std::cerr << PROGRAM << ": unknown option '" << argv[i] << "'\n";
            Usage(std::cerr);
            return 2;
        }
        else if (scenario.empty())
        {
            scenario = arg;
        }
        else
        {
            std::cerr << PROGRAM << ": one scenario file at a time ('" << scenario << "', '" << arg
                      << "')\n";
            return 2;
        }
    }
    if (scenario.empty())
    {
        Usage(std::cerr);
        return 2;
    }

    ScenarioConfig config;
    std::string error;
    bool ok = config.Load(scenario, &error) && (!testSize || config.ApplyTestSize(&error));
    for (size_t i = 0; ok && i < sets.size(); i++)
    {
        ok = config.Set(sets[i], &error);
    }
    if (ok && !dbOverride.empty())
    {
        ok = config.Set("database=" + dbOverride, &error);
    }
    std::vector<ScenarioPoint> points;
    if (!ok || !config.Expand(&points, &error))
    {
        std::cerr << PROGRAM << ": " << error << std::endl;
        return 2;
    }
    if (checkOnly)
    {
        std::cout << scenario << ": " << points.size() << " point(s), valid\n";
        for (const ScenarioPoint& p : points)
        {
            std::cout << "  " << p.index << ": " << (p.label.empty() ? "(no sweep)" : p.label)
                      << " -> " << p.database << "\n";
        }
        return 0;
    }
    // Every database is checked (path, file, schema) before anything is simulated.
    std::set<std::string> databases;
    for (const ScenarioPoint& p : points)
    {
        databases.insert(p.database);
    }
    for (const std::string& path : databases)
    {
        tn_db* db = nullptr;
        tn_error err{};
        if (tn_db_open(path.c_str(), &db, &err) != TN_OK)
        {
            std::cerr << PROGRAM << ": " << scenario << ": database: " << err.message << std::endl;
            return 2;
        }
        tn_db_close(db);
    }

    const bool tty = isatty(STDERR_FILENO) && !quiet;
    std::signal(SIGINT, OnSignal);
    std::signal(SIGTERM, OnSignal);
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<Child> running;
    std::vector<int64_t> runIds(points.size(), -1);
    std::vector<std::string> statuses(points.size(), "not run");
    size_t next = 0;
    size_t done = 0;
    int exitCode = 0;
    std::vector<std::string> failures; // error lines, printed last
    const auto wallStart = std::chrono::steady_clock::now();
    std::cout << "scenario " << scenario << ": " << points.size() << " run(s)"
              << (jobs > 1 && points.size() > 1 ? ", " + std::to_string(jobs) + " at a time" : "")
              << std::endl;
    while ((next < points.size() && !g_stop) || !running.empty())
    {
        while (!g_stop && next < points.size() && running.size() < size_t(jobs))
        {
            int fds[2];
            if (pipe(fds) != 0)
            {
                std::cerr << PROGRAM << ": pipe: " << std::strerror(errno) << std::endl;
                g_stop = SIGTERM;
                exitCode = 1;
                break;
            }
            std::fflush(nullptr);
            pid_t pid = fork();
            if (pid < 0)
            {
                std::cerr << PROGRAM << ": fork: " << std::strerror(errno) << std::endl;
                close(fds[0]);
                close(fds[1]);
                g_stop = SIGTERM;
                exitCode = 1;
                break;
            }
            if (pid == 0)
            {
                close(fds[0]);
                for (const Child& c : running)
                {
                    close(c.fd);
                }
                RunChild(points[next], fds[1], tty && jobs == 1, points.size());
            }
            close(fds[1]);
            running.push_back({pid, fds[0], next, ""});
            next++;
        }
        if (running.empty())
        {
            break;
        }
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
        {
            if (errno == EINTR)
            {
                // Forward a signal sent to this process alone; each child marks its run aborted.
                for (const Child& c : running)
                {
                    kill(c.pid, g_stop ? int(g_stop) : SIGTERM);
                }
                continue;
            }
            break;
        }
        for (size_t k = 0; k < running.size(); k++)
        {
            if (running[k].pid != pid)
            {
                continue;
            }
            Child c = running[k];
            running.erase(running.begin() + k);
            char buf[4096];
            ssize_t n;
            while ((n = read(c.fd, buf, sizeof(buf))) > 0)
            {
                c.output.append(buf, size_t(n));
            }
            close(c.fd);
            done++;
            const ScenarioPoint& p = points[c.point];
            long long runId = -1;
            char st[16] = "";
            unsigned long long simNs = 0;
            size_t tab = c.output.find('\t');
            std::string why = tab == std::string::npos ? "" : c.output.substr(tab + 1);
            while (!why.empty() && why.back() == '\n')
            {
                why.pop_back();
            }
            if (std::sscanf(c.output.c_str(), "%lld %15s %llu", &runId, st, &simNs) != 3)
            {
                std::snprintf(st, sizeof(st), "error");
                why = WIFSIGNALED(status)
                          ? std::string("killed by signal ") + std::to_string(WTERMSIG(status))
                          : "no result (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
            }
            runIds[c.point] = runId;
            statuses[c.point] = st;
            if (std::string(st) != "ok")
            {
                if (tty)
                {
                    std::fprintf(stderr, "\r\033[K");
                }
                // error lines come after the summary: nothing follows them
                failures.push_back(PROGRAM + std::string(": point ") + std::to_string(p.index) +
                                   (p.label.empty() ? "" : " (" + p.label + ")") + ": " + st +
                                   (why.empty() ? "" : ": " + why));
                exitCode = std::string(st) == "aborted" ? 130 : std::max(exitCode, 1);
                if (exitCode == 130)
                {
                    g_stop = SIGINT;
                }
            }
            if (tty && jobs > 1)
            {
                double wall =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart)
                        .count();
                double remaining = done ? wall * double(points.size() - done) / double(done) : -1;
                std::fprintf(stderr,
                             "\r\033[K[%zu/%zu runs done, %zu running] wall %s, remaining ~%s",
                             done,
                             points.size(),
                             running.size(),
                             Duration(wall).c_str(),
                             Duration(remaining).c_str());
                std::fflush(stderr);
            }
            break;
        }
    }
    if (tty && jobs > 1)
    {
        std::fprintf(stderr, "\r\033[K");
    }
    if (g_stop && exitCode == 0)
    {
        exitCode = 130;
    }
    // Nothing left to stop: a signal ends the summary as it would any program.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);

    // Summary per database, from its views.
    for (const std::string& path : databases)
    {
        std::vector<int64_t> ids;
        std::vector<std::string> labels;
        for (size_t i = 0; i < points.size(); i++)
        {
            if (points[i].database == path && runIds[i] >= 0)
            {
                ids.push_back(runIds[i]);
                labels.push_back(points[i].label);
            }
        }
        if (ids.empty())
        {
            continue;
        }
        std::cout << "\n";
        if (!ScenarioRunner::Summarize(path, ids, labels, std::cout, &error))
        {
            failures.push_back(PROGRAM + std::string(": summary: ") + error);
            exitCode = std::max(exitCode, 1);
        }
        std::cout << "\n" << ids.size() << " run(s) recorded in " << path << std::endl;
    }
    if (next < points.size())
    {
        failures.push_back(PROGRAM + std::string(": ") + std::to_string(points.size() - next) +
                           " point(s) not run");
    }
    for (const std::string& line : failures)
    {
        std::cerr << line << std::endl;
    }
    return exitCode;
}
