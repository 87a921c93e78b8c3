/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * bench-plan: planning time and peak memory of MultiTree (torus 8x8, 16x16,
 * 32x32) and Themis (1024-NPU 4D ring/switch/switch/switch 4x4x8x8 with
 * 250/200/100/50 GB/s, 64 chunks), each against a ring all-reduce planned on the
 * same N in the same run (baseline ratio).
 *
 * Each case runs in its own child process (fork) so that its peak resident set
 * (wait4 rusage ru_maxrss) is its own; time = CPU time (CLOCK_PROCESS_CPUTIME_ID)
 * of tn_plan() (topology creation excluded, schedule finalize included; the
 * wall-clock time is printed too). Usage:
 *   bench-plan [--quick]      (--quick: skip the 1024-node cases)
 */
#define _DEFAULT_SOURCE
#include "ns3/tn-algorithm.h"
#include "ns3/tn-topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct bench_case
{
    const char* spec;
    const char* algorithm;
    uint32_t chunks;
} bench_case;

typedef struct bench_result
{
    double seconds; /* CPU time of the planning call */
    double wall;    /* wall-clock time (noisy on a shared machine) */
    long maxrss_kib;
    uint32_t transfers;
    int ok;
} bench_result;

static double
now_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs in the child: plan and write {seconds, transfers} to fd. */
static int
bench_child(const bench_case* c, int fd)
{
    tn_error err;
    tn_topology* t = NULL;
    if (tn_topology_from_spec(c->spec, &t, &err))
    {
        fprintf(stderr, "bench-plan: %s: %s\n", c->spec, err.message);
        return 1;
    }
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = c->algorithm;
    req.bytes = 64ULL << 20;
    req.chunks = c->chunks;
    tn_schedule* s = NULL;
    double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    double t0 = now_s(CLOCK_MONOTONIC);
    tn_status rc = tn_plan(t, &req, &s, &err);
    double dt = now_s(CLOCK_MONOTONIC) - t0;
    double dc = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc)
    {
        fprintf(stderr, "bench-plan: %s on %s: %s\n", c->algorithm, c->spec, err.message);
        tn_topology_destroy(t);
        return 1;
    }
    double msg[3] = {dc, (double)tn_schedule_count(s), dt};
    ssize_t w = write(fd, msg, sizeof(msg));
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
    return w == (ssize_t)sizeof(msg) ? 0 : 1;
}

static bench_result
bench_run(const bench_case* c)
{
    bench_result r = {0, 0, 0, 0, 0};
    int fds[2];
    if (pipe(fds) != 0)
    {
        return r;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
    {
        close(fds[0]);
        _exit(bench_child(c, fds[1]));
    }
    close(fds[1]);
    double msg[3] = {0, 0, 0};
    ssize_t got = pid > 0 ? read(fds[0], msg, sizeof(msg)) : -1;
    close(fds[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0 && got == (ssize_t)sizeof(msg))
    {
        r.ok = 1;
        r.seconds = msg[0];
        r.transfers = (uint32_t)msg[1];
        r.maxrss_kib = ru.ru_maxrss;
        r.wall = msg[2];
    }
    return r;
}

int
main(int argc, char** argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    static const char* sys4d =
        "hier:ring4@2000Gbps+switch4@1600Gbps+switch8@800Gbps+switch8@400Gbps";
    const bench_case cases[][2] = {
        {{"torus:8x8", "multitree", 1}, {"torus:8x8", "ring", 1}},
        {{"torus:16x16", "multitree", 1}, {"torus:16x16", "ring", 1}},
        {{"torus:32x32", "multitree", 1}, {"torus:32x32", "ring", 1}},
        {{sys4d, "themis", 64}, {sys4d, "ring", 1}},
        {{sys4d, "themis", 64}, {sys4d, "hierarchical", 64}},
    };
    printf("%-14s %-12s %-6s %10s %9s %9s %9s | %-12s %9s %9s | %7s %7s\n",
           "topology",
           "algorithm",
           "chunks",
           "transfers",
           "cpu [s]",
           "wall [s]",
           "peak MiB",
           "baseline",
           "cpu [s]",
           "peak MiB",
           "time x",
           "mem x");
    int fails = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        if (quick && (strstr(cases[i][0].spec, "32x32") || strstr(cases[i][0].spec, "hier")))
        {
            continue;
        }
        bench_result a = bench_run(&cases[i][0]);
        bench_result b = bench_run(&cases[i][1]);
        const char* name = strncmp(cases[i][0].spec, "hier", 4) == 0 ? "4D-1024" : cases[i][0].spec;
        if (!a.ok || !b.ok)
        {
            printf("%-14s %-12s FAILED\n", name, cases[i][0].algorithm);
            fails++;
            continue;
        }
        printf("%-14s %-12s %-6u %10u %9.3f %9.3f %9.1f | %-12s %9.3f %9.1f | %7.2f %7.2f\n",
               name,
               cases[i][0].algorithm,
               cases[i][0].chunks,
               a.transfers,
               a.seconds,
               a.wall,
               a.maxrss_kib / 1024.0,
               cases[i][1].algorithm,
               b.seconds,
               b.maxrss_kib / 1024.0,
               b.seconds > 0 ? a.seconds / b.seconds : 0.0,
               b.maxrss_kib > 0 ? (double)a.maxrss_kib / (double)b.maxrss_kib : 0.0);
    }
    return fails ? 1 : 0;
}
