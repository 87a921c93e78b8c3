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
 * every run is ok, 1 when one failed, 130 when interrupted by SIGINT (143: SIGTERM), 2 for bad
 * input.
 *
 * Signals. Each point's process is in a process group of its own, so Ctrl-C (SIGINT to the
 * terminal's foreground group) and a signal to the runner's pid reach the runner alone, and it
 * forwards the signal once to every running point: each stops its simulation, writes what it
 * recorded and marks its run 'aborted'. The runner waits for them, prints the summary and
 * exits 130 (143). A second signal kills the points at once (SIGKILL); the runner then closes
 * the runs they left 'running' as 'aborted', with the signal in the run's error text. A point
 * that dies of anything else (a crash) is closed as 'error' the same way: no run is ever left
 * 'running'. If the runner itself is killed, its points get SIGTERM (PR_SET_PDEATHSIG).
 *
 * Under mpirun (an ns-3 with its mpi module, DistributedHelper) the ranks run the scenario's
 * points together, one after the other in their own processes (no fork under MPI; -j does
 * not apply): every rank validates the scenario, rank 0 alone prints, and every rank exits
 * with the same status. A point that is not ok ends the sweep there.
 *   mpirun -np 2 training-net-run scenarios/quickstart.toml
 */
#include "ns3/distributed-helper.h"
#include "ns3/program-options.h"
#include "ns3/scenario-config.h"
#include "ns3/scenario-runner.h"
#include "ns3/tn-db.h"
#include "ns3/tn-huge-pages.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

const char* PROGRAM = "training-net-run";

volatile sig_atomic_t g_signals = 0;     //!< SIGINT and SIGTERM received
volatile sig_atomic_t g_firstSignal = 0; //!< the first of them

void
OnStop(int sig)
{
    if (!g_firstSignal)
    {
        g_firstSignal = sig;
    }
    g_signals = g_signals + 1;
}

void
OnChild(int)
{
    // only wakes sigsuspend
}

/// One point's process; its run id and result come back through a pipe.
struct Child
{
    pid_t pid;
    int fd;
    ScenarioPoint point;
    std::string output;
};

void
WriteAll(int fd, const std::string& text)
{
    size_t done = 0;
    while (done < text.size())
    {
        ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            return;
        }
        done += size_t(n);
    }
}

/**
 * Child side: run the point; write "run ID\n" as soon as its row exists, and at the end
 * "done ID STATUS SIMULATED_NS\tERROR\n"; exit.
 */
[[noreturn]] void
RunChild(const ScenarioPoint& point,
         int fd,
         bool progress,
         uint64_t total,
         pid_t parent,
         const sigset_t& mask)
{
    setpgid(0, 0); // Ctrl-C reaches the runner alone, which forwards it once
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    std::signal(SIGCHLD, SIG_DFL);
    tn_error err{};
    tn_signal_watch(&err); // from the start: a signal aborts the run, never kills it
    sigprocmask(SIG_SETMASK, &mask, nullptr);
    if (getppid() != parent)
    {
        raise(SIGTERM); // the runner died before PR_SET_PDEATHSIG took
    }
    tn_db* db = nullptr;
    ScenarioResult r;
    if (tn_db_open(point.database.c_str(), &db, &err) != TN_OK)
    {
        r.status = "error";
        r.error = std::string("database: ") + err.message;
    }
    else
    {
        ScenarioRunner runner;
        runner.SetRunStartedCallback(
            [fd](int64_t runId) { WriteAll(fd, "run " + std::to_string(runId) + "\n"); });
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
                             "\r\033[K%s%s",
                             head.c_str(),
                             ScenarioRunner::FormatProgress(p).c_str());
                std::fflush(stderr);
            });
        }
        r = runner.Run(point, db);
        tn_db_close(db);
    }
    std::string why = r.error;
    std::replace(why.begin(), why.end(), '\n', ' ');
    WriteAll(fd,
             "done " + std::to_string(r.runId) + " " + r.status + " " +
                 std::to_string(r.simulatedNs) + "\t" + why + "\n");
    close(fd);
    std::fflush(nullptr);
    _exit(r.status == "ok" ? 0 : (r.status == "aborted" ? 130 : 1));
}

/// Load the scenario with the command line's changes.
bool
LoadScenario(ScenarioConfig* config,
             const std::string& scenario,
             bool testSize,
             const std::vector<std::string>& sets,
             const std::string& db,
             std::string* error)
{
    bool ok = config->Load(scenario, error) && (!testSize || config->ApplyTestSize(error));
    for (size_t i = 0; ok && i < sets.size(); i++)
    {
        ok = config->Set(sets[i], error);
    }
    if (ok && !db.empty())
    {
        config->SetDatabase(db);
    }
    return ok;
}

/// Apply the command line's --set overrides (again).
bool
LoadSets(ScenarioConfig* config, const std::vector<std::string>& sets, std::string* error)
{
    for (const std::string& set : sets)
    {
        if (!config->Set(set, error))
        {
            return false;
        }
    }
    return true;
}

/// A run the point's process left 'running' (it died) is closed with why.
void
CloseAbandonedRun(const std::string& database,
                  int64_t runId,
                  const std::string& status,
                  const std::string& why)
{
    tn_db* db = nullptr;
    tn_error err{};
    int changed = 0;
    if (tn_db_open(database.c_str(), &db, &err) != TN_OK ||
        tn_db_run_abandon(db, runId, status.c_str(), why.c_str(), &changed, &err) != TN_OK)
    {
        std::cerr << ProgramOptions::ErrorLine(PROGRAM,
                                               "run " + std::to_string(runId) +
                                                   " stays 'running': " + err.message)
                  << std::endl;
    }
    if (db)
    {
        tn_db_close(db);
    }
}

/// Under mpirun: every rank validated the scenario (ValidatedOnEveryRank was called).
bool g_verdictExchanged = false;

/**
 * Under mpirun every rank validates the same scenario. A rank that found it good meets the
 * ranks that did not (they meet it in main) in one exchange: every rank exits with status 2
 * when one found it bad, and the lowest of those prints its line.
 */
void
ValidatedOnEveryRank()
{
    g_verdictExchanged = true;
    DistributedHelper::ExitUnlessAll(true, "", 2);
    DistributedHelper::ReleaseErrors(); // a rank's own trouble in the run is shown
}

/// A run recorded by a point of the sweep.
struct Finished
{
    std::string database;
    int64_t runId;
    std::string label;
};

/**
 * The end of a sweep: each database's summary of its runs (from its views), then the error
 * lines, which nothing follows.
 * \param notRun points of the sweep that did not run
 * \return exitCode, or 1 if it was 0 and a summary failed
 */
int
Report(const std::vector<std::string>& databases,
       const std::vector<Finished>& finished,
       uint64_t notRun,
       std::vector<std::string> failures,
       int exitCode)
{
    std::string error;
    for (const std::string& path : databases)
    {
        std::vector<int64_t> ids;
        std::vector<std::string> labels;
        for (const Finished& f : finished)
        {
            if (f.database == path)
            {
                ids.push_back(f.runId);
                labels.push_back(f.label);
            }
        }
        if (ids.empty())
        {
            continue;
        }
        std::cout << "\n";
        if (!ScenarioRunner::Summarize(path, ids, labels, std::cout, &error))
        {
            failures.push_back(ProgramOptions::ErrorLine(PROGRAM, "summary: " + error));
            exitCode = std::max(exitCode, 1);
        }
        std::cout << "\n" << ids.size() << " run(s) recorded in " << path << std::endl;
    }
    if (notRun > 0)
    {
        failures.push_back(PROGRAM + std::string(": ") + std::to_string(notRun) +
                           " point(s) not run");
    }
    for (const std::string& line : failures)
    {
        std::cerr << line << std::endl;
    }
    return exitCode;
}

/**
 * The ranks of an MPI run simulate the scenario's points together, one after the other, in
 * this process (ScenarioRunner::Run into the database file; DistributedHelper::NextSimulation
 * between points). A point that is not ok ends the sweep: a run stopped early may leave frames
 * between ranks, after which no other simulation can run in these processes.
 * \param databases the points' databases, each once
 * \return the exit status, the same on every rank
 */
int
RunDistributed(const ScenarioConfig& config,
               const std::string& scenario,
               uint64_t total,
               const std::vector<std::string>& databases)
{
    const bool root = DistributedHelper::GetRank() == 0;
    const uint32_t ranks = DistributedHelper::GetSize();
    std::string error;
    tn_error err{};
    tn_signal_watch(&err); // from the start: a signal aborts the run, never kills it
    std::cout << "scenario " << scenario << ": " << total << " run(s), one after the other on "
              << ranks << " MPI rank" << (ranks == 1 ? "" : "s") << std::endl;

    std::vector<Finished> finished;
    std::vector<std::string> failures; // printed last: nothing follows an error line
    int exitCode = 0;
    uint64_t next = 0;
    for (; next < total; next++)
    {
        ScenarioPoint point;
        if (!config.GetPoint(next, &point, &error))
        {
            failures.push_back(ProgramOptions::ErrorLine(PROGRAM, error));
            exitCode = 2;
            break;
        }
        if (next > 0 && !DistributedHelper::NextSimulation())
        {
            failures.push_back(ProgramOptions::ErrorLine(
                PROGRAM,
                "frames between ranks were left on their way: no other point can run"));
            exitCode = 1;
            break;
        }
        ScenarioRunner runner;
        const ScenarioResult r = runner.Run(point, point.database);
        if (r.runId >= 0)
        {
            finished.push_back({point.database, r.runId, point.label});
        }
        if (r.status == "ok")
        {
            continue;
        }
        std::string why = r.error;
        std::replace(why.begin(), why.end(), '\n', ' ');
        failures.push_back(
            ProgramOptions::ErrorLine(PROGRAM,
                                      "point " + std::to_string(point.index) +
                                          (point.label.empty() ? "" : " (" + point.label + ")") +
                                          ": " + r.status + (why.empty() ? "" : ": " + why)));
        const int signal = int(DistributedHelper::MaxAll(tn_signal_pending()));
        exitCode = r.status != "aborted" ? 1 : tn_signal_exit_status(signal);
        next++;
        break;
    }
    if (!root)
    {
        return exitCode;
    }
    return Report(databases, finished, total - next, failures, exitCode);
}

/// The command line.
struct RunOptions
{
    std::vector<std::string> sets; //!< --set KEY=VALUE (and --mode as mode=...)
    std::string scenario;          //!< the scenario file
    std::string dbOverride;        //!< --db
    uint32_t jobs = 1;             //!< -j
    bool testSize = false;         //!< --test-size
    bool checkOnly = false;        //!< --check
    bool quiet = false;            //!< --quiet
};

/// The command line into *o; false after its error line.
bool
ParseOptions(int argc, char* argv[], RunOptions* o)
{
    std::vector<std::string> files;
    std::string mode;
    ProgramOptions options(PROGRAM, __FILE__);
    options.Usage("training-net-run [options] SCENARIO.toml: runs a scenario file (every sweep "
                  "point in a process of its own) into its results database");
    options.AddRepeated("set",
                        "KEY=VALUE overrides a key: seed=3, topology.spec=torus:8x8, "
                        "collective.bytes=[\"1MiB\",\"4MiB\"] (a list sweeps), "
                        "roce.ns3::RdmaNic::Mtu=1024",
                        &o->sets);
    options.AddString("mode",
                      "packet, flow or flow-symmetric: the scenario's mode key (flow: fluid "
                      "flows; flow-symmetric: NPU 0 simulated for all on a symmetric topology)",
                      &mode);
    options.AddCount("jobs", "run up to N sweep points at once (processes)", 1u, 4096u, &o->jobs);
    options.AddShortName('j', "jobs");
    options.AddString("db", "results database (overrides the scenario's database)", &o->dbOverride);
    options.AddFlag("test-size",
                    "apply the scenario's [test] overrides (the reduced size)",
                    &o->testSize);
    options.AddFlag("check", "validate and list the points; simulate nothing", &o->checkOnly);
    options.AddFlag("quiet", "no progress display (it is shown on a terminal only)", &o->quiet);
    options.AddPositional("SCENARIO.toml", "the scenario file", 1, 1, &files);
    if (!options.Parse(argc, argv))
    {
        return false;
    }
    if (options.IsGiven("mode"))
    {
        // the scenario's mode key, overridden (checked with the scenario: packet, flow,
        // flow-symmetric)
        o->sets.push_back("mode=\"" + mode + "\"");
    }
    if (options.IsGiven("db") && o->dbOverride.empty())
    {
        std::cerr << ProgramOptions::ErrorLine(PROGRAM, "--db: an empty path") << std::endl;
        return false;
    }
    o->scenario = files[0];
    return true;
}

/// The [test] overrides are checked even when not applied: a mistake there shows now, not in
/// the test suite. False after the error line.
bool
CheckTestSize(const RunOptions& o)
{
    ScenarioConfig reduced;
    uint64_t count = 0;
    std::string why;
    if (!reduced.Load(o.scenario, &why) || reduced.CountPoints() == 0)
    {
        return true; // the scenario's own load reported it
    }
    bool hasTest = reduced.ApplyTestSize(&why);
    // the overrides first (one may change [test]), then [test], then the overrides
    // again: they win over [test] as they do under --test-size
    if (hasTest && !(LoadScenario(&reduced, o.scenario, false, o.sets, o.dbOverride, &why) &&
                     reduced.ApplyTestSize(&why) && LoadSets(&reduced, o.sets, &why) &&
                     reduced.Validate(&count, &why)))
    {
        std::cerr << ProgramOptions::ErrorLine(PROGRAM, "[test] (--test-size): " + why)
                  << std::endl;
        return false;
    }
    if (!hasTest && why.find("no [test] table") == std::string::npos)
    {
        std::cerr << ProgramOptions::ErrorLine(PROGRAM, why) << std::endl;
        return false;
    }
    return true;
}

/// Opens (and so creates, with its schema) every database; false after the error line.
bool
OpenDatabases(const std::string& scenario, const std::vector<std::string>& databases)
{
    for (const std::string& path : databases)
    {
        tn_db* db = nullptr;
        tn_error err{};
        if (tn_db_open(path.c_str(), &db, &err) != TN_OK)
        {
            std::cerr << ProgramOptions::ErrorLine(PROGRAM, scenario + ": database: " + err.message)
                      << std::endl;
            return false;
        }
        tn_db_close(db);
    }
    return true;
}

/// --check: the points and their databases; the exit status.
int
ListPoints(const ScenarioConfig& config, const std::string& scenario, uint64_t total)
{
    std::string error;
    std::cout << scenario << ": " << total << " point(s), valid\n";
    for (uint64_t i = 0; i < total; i++)
    {
        ScenarioPoint p;
        if (!config.GetPoint(i, &p, &error))
        {
            std::cerr << ProgramOptions::ErrorLine(PROGRAM, error) << std::endl;
            return 2;
        }
        std::cout << "  " << p.index << ": " << (p.label.empty() ? "(no sweep)" : p.label) << " -> "
                  << p.database << "\n";
    }
    return 0;
}

/// Signals are blocked but while waiting (sigsuspend): none is missed between a check and the
/// wait. *mask is the mask to wait with (the one before).
void
BlockSignals(sigset_t* mask)
{
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGCHLD);
    sigprocmask(SIG_BLOCK, &blocked, mask);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = OnStop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sa.sa_handler = OnChild;
    sigaction(SIGCHLD, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

/// A sweep run in forked processes, at most jobs at once.
struct Sweep
{
    const ScenarioConfig& config; //!< the validated scenario
    uint64_t total;               //!< its points
    uint32_t jobs;                //!< at most this many at once
    bool tty;                     //!< progress shown on stderr
    sigset_t mask;                //!< the signal mask to wait with
    std::vector<Child> running;   //!< the points' processes
    std::vector<Finished> finished;
    std::vector<std::string> failures; //!< error lines, printed last: nothing follows them
    uint64_t next = 0;                 //!< the next point to start
    uint64_t done = 0;                 //!< points ended
    int exitCode = 0;
    bool fatal = false; //!< the runner cannot go on (pipe, fork): it waits for the running ones
    int forwarded = 0;  //!< signals forwarded to the points
    pid_t self = getpid();
    std::chrono::steady_clock::time_point wallStart = std::chrono::steady_clock::now();
};

/// Forwards a signal received since the last call to every running point (SIGKILL from the
/// second on).
void
ForwardSignals(Sweep& w)
{
    if (g_signals <= w.forwarded)
    {
        return;
    }
    if (w.forwarded == 0)
    {
        if (w.tty)
        {
            std::fprintf(stderr, "\r\033[K");
        }
        std::cerr << PROGRAM << ": interrupted (signal " << int(g_firstSignal) << "): stopping "
                  << w.running.size() << " running point(s); a second signal kills them"
                  << std::endl;
    }
    for (const Child& c : w.running)
    {
        kill(c.pid, g_signals >= 2 ? SIGKILL : int(g_firstSignal));
    }
    w.forwarded = g_signals;
}

/// Starts points while there is room (w.jobs) and no signal came; a pipe or fork failure
/// makes the sweep fatal.
void
StartPoints(Sweep& w)
{
    std::string error;
    while (!g_signals && !w.fatal && w.next < w.total && w.running.size() < w.jobs)
    {
        ScenarioPoint point;
        if (!w.config.GetPoint(w.next, &point, &error))
        {
            std::cerr << ProgramOptions::ErrorLine(PROGRAM, error) << std::endl;
            w.exitCode = 1;
            w.fatal = true;
            break;
        }
        int fds[2];
        if (pipe(fds) != 0)
        {
            std::cerr << PROGRAM << ": pipe: " << std::strerror(errno) << std::endl;
            w.exitCode = 1;
            w.fatal = true;
            break;
        }
        std::fflush(nullptr);
        pid_t pid = fork();
        if (pid < 0)
        {
            std::cerr << PROGRAM << ": fork: " << std::strerror(errno) << std::endl;
            close(fds[0]);
            close(fds[1]);
            w.exitCode = 1;
            w.fatal = true;
            break;
        }
        if (pid == 0)
        {
            close(fds[0]);
            for (const Child& c : w.running)
            {
                close(c.fd);
            }
            RunChild(point, fds[1], w.tty && w.jobs == 1, w.total, w.self, w.mask);
        }
        setpgid(pid, pid); // as the child does: whichever runs first
        close(fds[1]);
        w.running.push_back({pid, fds[0], point, ""});
        w.next++;
    }
}

/// What an ended point's process reported ("run ID" lines, then "done ID STATUS SIM_NS\tWHY").
struct PointResult
{
    long long runId = -1;
    std::vector<long long> started; //!< isolate = true: the jobs alone, then together
    char st[16] = "";
    std::string why;
    bool result = false; //!< the "done" line came
};

/// c's output read to its end into *r; c.fd closed.
void
ReadResult(Child& c, PointResult* r)
{
    char buf[4096];
    ssize_t n;
    while ((n = read(c.fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
    {
        c.output.append(buf, size_t(n > 0 ? n : 0));
    }
    close(c.fd);
    unsigned long long simNs = 0;
    size_t pos = 0;
    while (pos < c.output.size())
    {
        size_t end = c.output.find('\n', pos);
        const std::string line =
            c.output.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? c.output.size() : end + 1;
        if (line.compare(0, 4, "run ") == 0)
        {
            r->runId = std::atoll(line.c_str() + 4);
            r->started.push_back(r->runId);
        }
        else if (line.compare(0, 5, "done ") == 0 &&
                 std::sscanf(line.c_str() + 5, "%lld %15s %llu", &r->runId, r->st, &simNs) == 3)
        {
            size_t tab = line.find('\t');
            r->why = tab == std::string::npos ? "" : line.substr(tab + 1);
            r->result = true;
        }
    }
}

/// A point that is not ok: its error line (printed after the summary), the exit code, and a
/// point stopped by a signal sent to it alone stops the sweep too.
void
PointFailed(Sweep& w, const ScenarioPoint& p, const PointResult& r)
{
    if (w.tty)
    {
        std::fprintf(stderr, "\r\033[K");
    }
    // error lines come after the summary: nothing follows them
    w.failures.push_back(ProgramOptions::ErrorLine(
        PROGRAM,
        "point " + std::to_string(p.index) + (p.label.empty() ? "" : " (" + p.label + ")") + ": " +
            r.st + (r.why.empty() ? "" : ": " + r.why)));
    if (std::string(r.st) != "aborted")
    {
        w.exitCode = std::max(w.exitCode, 1);
    }
    else if (!g_signals)
    {
        g_signals = 1;
        g_firstSignal = SIGINT;
        w.forwarded = 1;
        for (const Child& other : w.running)
        {
            kill(other.pid, SIGINT);
        }
    }
}

/// The point whose process pid ended with status: its runs recorded; a process that died is
/// closed here (its run, if it began one).
void
PointEnded(Sweep& w, pid_t pid, int status)
{
    auto it = std::find_if(w.running.begin(), w.running.end(), [pid](const Child& c) {
        return c.pid == pid;
    });
    if (it == w.running.end())
    {
        return;
    }
    Child c = std::move(*it);
    w.running.erase(it);
    PointResult r;
    ReadResult(c, &r);
    w.done++;
    const ScenarioPoint& p = c.point;
    if (!r.result)
    {
        const bool killed = WIFSIGNALED(status);
        const bool interrupted =
            g_signals > 0 && killed &&
            (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == int(g_firstSignal));
        std::snprintf(r.st, sizeof(r.st), "%s", interrupted ? "aborted" : "error");
        r.why = killed ? "killed by signal " + std::to_string(WTERMSIG(status)) +
                             (interrupted && g_signals >= 2 ? " (a second interrupt)" : "")
                       : "exited with status " + std::to_string(WEXITSTATUS(status)) +
                             " without a result";
        if (r.runId >= 0)
        {
            CloseAbandonedRun(p.database, r.runId, r.st, r.why);
        }
    }
    for (long long earlier : r.started)
    {
        if (earlier != r.runId)
        {
            w.finished.push_back(
                {p.database, earlier, (p.label.empty() ? "" : p.label + " ") + "(a job alone)"});
        }
    }
    if (r.runId >= 0)
    {
        w.finished.push_back({p.database, r.runId, p.label});
    }
    if (std::string(r.st) != "ok")
    {
        PointFailed(w, p, r);
    }
    if (w.tty && w.jobs > 1)
    {
        double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - w.wallStart).count();
        double remaining = w.done ? wall * double(w.total - w.done) / double(w.done) : -1;
        std::fprintf(stderr,
                     "\r\033[K[%llu/%llu runs done, %zu running] wall %s, remaining ~%s",
                     (unsigned long long)w.done,
                     (unsigned long long)w.total,
                     w.running.size(),
                     ScenarioRunner::FormatDuration(wall).c_str(),
                     ScenarioRunner::FormatDuration(remaining).c_str());
        std::fflush(stderr);
    }
}

/// The sweep without MPI: every point in a process of its own, at most jobs at once, then the
/// summary; the exit status.
int
RunLocal(const ScenarioConfig& config,
         const std::string& scenario,
         uint64_t total,
         const std::vector<std::string>& databases,
         const RunOptions& o)
{
    Sweep w{config, total, o.jobs, isatty(STDERR_FILENO) && !o.quiet, {}};
    BlockSignals(&w.mask);
    std::cout << "scenario " << scenario << ": " << total << " run(s)"
              << (o.jobs > 1 && total > 1 ? ", " + std::to_string(o.jobs) + " at a time" : "")
              << std::endl;
    while (true)
    {
        ForwardSignals(w);
        StartPoints(w);
        bool reaped = false;
        int status = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        {
            reaped = true;
            PointEnded(w, pid, status);
        }
        if (w.running.empty() && (g_signals || w.next >= total || w.fatal))
        {
            break;
        }
        if (!reaped && g_signals <= w.forwarded)
        {
            sigsuspend(&w.mask); // a child ended or a signal came
        }
    }
    if (w.tty && o.jobs > 1)
    {
        std::fprintf(stderr, "\r\033[K");
    }
    if (g_signals)
    {
        w.exitCode = tn_signal_exit_status(g_firstSignal);
    }
    // Summary per database, from its views (signals stay blocked: it is short).
    return Report(databases, w.finished, total - w.next, w.failures, w.exitCode);
}

} // namespace

/// The runner; under mpirun every rank runs it (main).
static int
Main(int argc, char* argv[])
{
    const bool mpi = DistributedHelper::IsEnabled();
    RunOptions o;
    if (!ParseOptions(argc, argv, &o))
    {
        return 2;
    }
    const std::string& scenario = o.scenario;
    ScenarioConfig config;
    std::string error;
    uint64_t total = 0;
    std::vector<std::string> databases;
    if (!LoadScenario(&config, scenario, o.testSize, o.sets, o.dbOverride, &error) ||
        !config.Validate(&total, &error, &databases))
    {
        std::cerr << ProgramOptions::ErrorLine(PROGRAM, error) << std::endl;
        return 2;
    }
    if (!o.testSize && !CheckTestSize(o))
    {
        return 2;
    }
    if (mpi)
    {
        // rank 0 alone creates a new file's schema
        if (DistributedHelper::GetRank() == 0 && !o.checkOnly &&
            !OpenDatabases(scenario, databases))
        {
            return 2;
        }
        ValidatedOnEveryRank();
    }
    if (o.checkOnly)
    {
        return ListPoints(config, scenario, total);
    }
    if (mpi)
    {
        return RunDistributed(config, scenario, total, databases);
    }
    // Every database is checked (path, file, schema) before anything is simulated.
    if (!OpenDatabases(scenario, databases))
    {
        return 2;
    }
    return RunLocal(config, scenario, total, databases, o);
}

int
main(int argc, char* argv[])
{
    tn_huge_pages_prefer(argv); // a large run's memory in huge pages: may start again
    DistributedHelper::Enable(&argc, &argv);
    if (!DistributedHelper::IsEnabled())
    {
        return Main(argc, argv);
    }
    // Under mpirun: rank 0 prints; the other ranks hold their error lines until the ranks
    // have compared verdicts (ValidatedOnEveryRank).
    std::atexit(&DistributedHelper::Disable);
    DistributedHelper::QuietUnlessRoot();
    DistributedHelper::HoldErrors();
    const int status = Main(argc, argv);
    const std::string held = DistributedHelper::ReleaseErrors();
    if (!g_verdictExchanged && status != 0)
    {
        // bad input seen before the ranks compared verdicts: meet the others there
        DistributedHelper::ExitUnlessAll(false, held, status);
    }
    return status;
}
