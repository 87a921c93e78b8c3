#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bounded fuzz test of every shipped program (issue 11), run by ctest as "fuzz".

Mutates topology specs, HPCC-style topology files, flow files and command lines
(fixed seed, so a failure reproduces) and runs tn-plan and the ns-3 programs of
the examples folder on them. Every run must end by itself: no signal (crash,
abort, sanitizer report), no run over its time limit, no peak memory over the
cap (RLIMIT_AS, and the peak RSS measured by wait4). Inputs built to be invalid
must also exit non-zero with exactly one error line on stderr, and nothing after
it (stdout and stderr in one file, as a user piping both sees them).

Runs of training-net-run and of the programs that write a results database must
also leave no run 'running' in it, and the database must pass integrity_check; a
database of another program must be refused and left byte for byte. No run may
print a Python traceback: training-net-report is run on a database, damaged copies
of it and junk files (a drawing or one error line).

The signal test (issue 23): a -j 2 sweep of training-net-run is interrupted at
random moments (SIGINT or SIGTERM, to its process group as Ctrl-C does or to its
pid alone, sometimes twice): it must exit 130 (143 for SIGTERM) and leave every
run 'ok' or 'aborted', the database intact.

Issue 38 (fuzz_astra.py): ASTRA-sim 2 input sets mutated and run by astra-sim-compat.

Issue 42 (fuzz_options.py): every option of the programs' --help and every attribute of the
TrainingNet TypeIds with values users mistype: no signal, ok or one error line.

Issue 42 (fuzz_chakra.py): Chakra traces written here (fields, sizes past the caps, late
reduce roots, sub-groups, random dependency graphs in every mode, flow-symmetric included),
NPU memory and rate attributes, run-time schedulers on a symmetric network, the symmetric
length slack and the memory guard of generated collectives in flight; and every NS_ABORT of
model/ and helper/ must be commented as an internal invariant.

Usage: fuzz.py --plan PATH/tn-plan [--examples DIR] [--seed N] [--sanitized]
               [--scale K] [--signals N] [--example-signals N]
--examples: folder of training-net-quickstart, collective-comparison,
training-iteration, themis-comparison, p2p-study-stats, roce-hpcc-flows,
training-net-run, cc-comparison, p2p-study-allreduce, roce-tcp-background and
roce-distributed (its command line, in one process);
missing programs are skipped with a SKIP line (core-only builds). --scale K repeats the mutated cases K times (a longer fuzz run than
ctest's, see doc/limits.rst; default: the environment's TN_FUZZ_SCALE, else 1);
--signals N interrupts N sweeps (default 10); --example-signals N interrupts N runs of the
example programs (default 10). The generators of issue 42 (sampling and time limits, signals to
the examples, the report's inputs, tn-chakra-convert's bounds) are in promises.py.
--sanitized: the sanitizer build (ASan reserves
terabytes of address space, so the cap is only checked on the measured RSS).
Expected failures of the ns-3 programs (owned by other areas, issue 11) are
listed in XFAIL: they are reported, not failed, until fixed; an XFAIL that
passes is reported as XPASS so the list can shrink.
"""
import argparse
import os
import sqlite3
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

import fuzz_astra
import fuzz_chakra
import fuzz_options
import promises

CAP_BYTES = 1 << 30
# A run may use 20 s of CPU (the valid cases below need < 2 s): a hang that computes (a run
# going on for simulated months) hits it however busy the machine is. A run that waits without
# computing is stopped after WALL_LIMIT seconds of wall time, generous so that a machine shared
# by several builds does not fail a run that is only slow to get a core.
# The sanitizer build runs 5-10x slower: a valid plan at the edge of the id space
# (fattree:k=64, 65,536 ranks, a generated ring estimated in 3 s) takes 21 s there, so its
# limit is SANITIZED_CPU_FACTOR times as long.
CPU_LIMIT = 20
SANITIZED_CPU_FACTOR = 3
WALL_LIMIT = 300.0

VALID_SPECS = ["ring:8", "fc:6", "switch:8", "torus:4x4", "mesh:3x3", "torus:2x2x2,ports=2",
               "leafspine:leaves=2,spines=2,hosts=4", "fattree:k=4", "bigraph:4x2",
               "hier:ring4@250Gbps+switch4@200Gbps", "ring:4,rate=10Gbps,latency=1us"]
ALGOS = ["ring", "ring-bidir", "direct", "rhd", "dbt", "ring2d", "hierarchical", "multitree",
         "hdrm", "themis", "nccl", "nccl:tree:ll128"]
COLLS = ["allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "reduce"]
# Values that are invalid wherever a count, size, rate or time is expected.
BAD_NUMBERS = ["-1", "0x10", "1e3", "8MiBx", "", " ", "+3", "18446744073709551616",
               "99999999999999999999999", "nan", "inf", "-0", "1.5.2", "1,2", "\t3", "３"]
HUGE = ["ring:4294967294", "fc:100000", "torus:65536x65536", "fattree:k=64", "fattree:k=4096",
        "switch:4294967294", "bigraph:65536x65536", "mesh:4294967294x2",
        "leafspine:leaves=65536,spines=65536,hosts=65536", "hier:ring65536@1Gbps+fc65536@1Gbps"]

TOPO_FILE = "5 1 4\n4\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n"
FLOW_FILE = "2\n0 1 3 100 10000 0\n2 3 3 100 10000 0.000001\n"

# (program, a substring of the command line) -> why it still fails (issue 11, ns-3 layer)
XFAIL = {
    # (program, a piece of its command line): why it still fails (none left)
}


class Runner:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.failures = []
        self.xfails = []
        self.runs = 0
        self.peak = 0

    def cpu_limit(self):
        return CPU_LIMIT * (SANITIZED_CPU_FACTOR if self.args.sanitized else 1)

    def limit(self):
        if not self.args.sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # SIGXCPU at the limit, SIGKILL a second later
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_limit(), self.cpu_limit() + 1))
        os.setsid()

    def run(self, argv, invalid, label=None, db=None, expect=None, env=None):
        """Run argv; invalid: it must fail with one error line (matching the regular
        expression expect, if given); None: either way, but a failure is one error line;
        db: a results database the run may write, which must then hold no 'running' run;
        env: variables set for this run."""
        self.runs += 1
        env = dict(os.environ, **(env or {}))
        env.setdefault("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] += ":hard_rss_limit_mb=%d:allocator_may_return_null=1:detect_leaks=1" % (
            CAP_BYTES >> 20)
        # stderr to a file and wait4 on the child itself: its own peak RSS, not the
        # largest of every run so far (RUSAGE_CHILDREN)
        errpath = os.path.join(self.tmp, "stderr.txt")
        with open(errpath, "wb") as errfile:
            # an invalid run's stdout goes to the same file, in the order the user sees it
            # (stdout flushed at exit lands after the error line): nothing may follow it
            p = subprocess.Popen(argv, stdout=errfile if invalid else subprocess.DEVNULL,
                                 stderr=errfile,
                                 stdin=subprocess.DEVNULL, cwd=self.tmp, env=env,
                                 preexec_fn=self.limit)
        deadline = time.monotonic() + WALL_LIMIT
        timed_out = False
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                timed_out = True
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
        p.returncode = os.waitstatus_to_exitcode(status)
        with open(errpath, "rb") as errfile:
            err = errfile.read()
        rss = usage.ru_maxrss * 1024
        self.peak = max(self.peak, rss)
        rc = p.returncode
        text = err.decode("utf-8", "replace")
        if invalid is None:
            invalid = rc != 0
        problem = None
        cpu = usage.ru_utime + usage.ru_stime
        if timed_out:
            problem = "ran over %.0f s of wall time" % WALL_LIMIT
        elif rc == -signal.SIGXCPU or (rc == -signal.SIGKILL and cpu >= self.cpu_limit()):
            problem = "ran over %d s of CPU time" % self.cpu_limit()
        elif rc < 0:
            problem = "killed by signal %d" % -rc
        elif "ERROR: AddressSanitizer" in text or "runtime error:" in text:
            problem = "sanitizer report"
        elif "Traceback (most recent call last)" in text:
            problem = "Python traceback"
        elif rss > CAP_BYTES:
            problem = "peak memory %d MiB > %d MiB" % (rss >> 20, CAP_BYTES >> 20)
        elif invalid and rc == 0:
            problem = "invalid input accepted (exit 0)"
        elif invalid:
            # the program's own error lines ("name: ..."); ns-3's messages by the broad rule
            prefix = os.path.basename(argv[0]) + ": "
            errors = [l for l in text.splitlines() if l.startswith(prefix)]
            if not errors:
                errors = [l for l in text.splitlines() if is_error_line(l)]
            lines = [l for l in text.splitlines() if l.strip()]
            if len(errors) != 1:
                problem = "%d error lines, expected 1" % len(errors)
            elif lines[-1] != errors[0]:
                problem = "output after the error line"
            elif expect and not re.search(expect, errors[0]):
                problem = "the error line does not match %r" % expect
        if problem is None and db:
            problem = check_db(db)
        xfail = [why for (prog, needle), why in XFAIL.items()
                 if os.path.basename(argv[0]) == prog and needle in " ".join(argv)]
        if problem is None:
            if xfail:
                print("XPASS %s: %s (remove it from XFAIL)" % (" ".join(argv), xfail[0]))
            return
        shown = " ".join(repr(a) if (" " in a or not a) else a for a in argv)
        line = "%s: %s (exit %s; stderr: %s)" % (shown, problem, rc,
                                                 text.strip().replace("\n", " | ")[:300])
        if xfail:
            self.xfails.append("XFAIL %s [%s]" % (line, xfail[0]))
            return
        self.failures.append(line)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
        return path


def check_db(path):
    """None if the results database at path is intact and holds no 'running' run."""
    if not os.path.exists(path):
        return None
    try:
        con = sqlite3.connect(path, timeout=30)
        try:
            check = con.execute("PRAGMA integrity_check").fetchone()[0]
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
            running = con.execute("SELECT count(*) FROM run WHERE status = 'running'"
                                  ).fetchone()[0] if "run" in tables else 0
        finally:
            con.close()
    except sqlite3.Error as e:
        return "database %s unreadable: %s" % (path, e)
    if check != "ok":
        return "database %s: integrity_check: %s" % (path, check)
    if running:
        return "database %s: %d run(s) left 'running'" % (path, running)
    return None


def is_error_line(line):
    """An error line: "program: message" (ns-3's "msg=..."/"abort" lines count too)."""
    low = line.lower()
    return (": " in line and not line.startswith(" ") and not low.startswith("run '")
            and not low.startswith("usage"))


SIMAI_WORKLOAD = (
    "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 2 vpp: 1 ga: 2 all_gpus: 4 "
    "pp_comm 4096\n2\n"
    "attn -1 1000 ALLREDUCE 1000 2000 ALLGATHER_EP 2000 2000 NONE 0 0\n"
    "mlp -1 1500 REDUCESCATTER 1500 3000 NONE 0 3000 ALLREDUCE_DP_EP 5000 10\n")


def mutate_text(rng, text):
    b = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            del b[min(i, len(b) - 1)]
        elif op == 1:
            b[i:i] = rng.choice([b"9", b"0", b"-", b" ", b"\n", b"x", b"\x00", b"99999999999",
                                 b"e", b".", b"Gbps", b"s"])
        elif op == 2 and b:
            j = min(i, len(b) - 1)
            b[j] = rng.randrange(256)
        elif op == 3:
            b = b[:i]
        elif op == 4 and b:
            b += b[rng.randrange(len(b)):]
        else:
            b = bytes(b).replace(b"100Gbps", rng.choice([b"0Gbps", b"1e300Gbps", b"-1Gbps"]))
            b = bytearray(b)
    return bytes(b)


def invalid_files(rng):
    """Topology files each invalid by construction (and why)."""
    lines = TOPO_FILE.splitlines()
    yield "200000000 0 0\n"
    yield "4000000000 4000000000 0\n"
    yield "5 1 400000000\n4\n0 4 100Gbps 1us 0\n"
    yield "\n".join(lines[:-1]) + "\n"                       # a link line missing
    yield TOPO_FILE + "0 1 100Gbps 1us 0\n"                  # an extra line
    yield TOPO_FILE.replace("0 4 100Gbps", "0 9 100Gbps")    # node out of range
    yield TOPO_FILE.replace("0 4 100Gbps", "4 4 100Gbps")    # self loop
    yield TOPO_FILE.replace("1us 0\n", "1us 2\n", 1)         # error rate > 1
    yield TOPO_FILE.replace("100Gbps", "0Gbps", 1)           # rate 0
    yield TOPO_FILE.replace("1us", "-1us", 1)
    yield TOPO_FILE.replace("5 1 4", "5 1 4 7")
    yield TOPO_FILE.replace("5 1 4", "4294967295 1 4")
    yield "0 0 0\n"
    yield ""


def plan_cases(rng, run, plan):
    base = ["--topology", "ring:8", "--algorithm", "ring", "--size", "1MiB"]
    # valid requests across algorithms and collectives: only "must end well"
    for _ in range(40):
        run.run([plan, "--topology", rng.choice(VALID_SPECS), "--algorithm", rng.choice(ALGOS),
                 "--collective", rng.choice(COLLS), "--size",
                 rng.choice(["0", "1", "4KiB", "1MiB", "3B"]),
                 "--chunks", str(rng.choice([1, 2, 7, 64]))], invalid=False)
    # bad numbers in every numeric option: must fail with one error line
    for opt in ["--size", "--chunks", "--ports", "--root", "--active", "--memory-limit",
                "--verify-max"]:
        for bad in BAD_NUMBERS:
            if opt in ("--root", "--verify-max") and bad == "-0":
                continue
            run.run([plan] + base + [opt, bad], invalid=True)
    for bad in BAD_NUMBERS:
        if bad.strip() == "":
            continue
        run.run([plan, "--topology", "ring:" + bad, "--algorithm", "ring", "--size", "1KiB"],
                invalid=True)
        run.run([plan, "--topology", "torus:4x" + bad, "--algorithm", "ring", "--size", "1KiB"],
                invalid=True)
        run.run([plan, "--topology", "ring:4,latency=" + bad, "--algorithm", "ring", "--size",
                 "1KiB"], invalid=True)
    # huge topologies: refused with a message, within the cap (or planned)
    for spec in HUGE:
        for algo in ["ring", "rhd", "themis"]:
            run.run([plan, "--topology", spec, "--algorithm", algo, "--size", "64KiB"],
                    invalid=False)
    run.run([plan, "--topology", "torus:4x4", "--algorithm", "themis", "--size", "1MiB",
             "--active", "4294967295"], invalid=False)
    # mutated specs
    for _ in range(60):
        spec = mutate_text(rng, rng.choice(VALID_SPECS)).decode("utf-8", "surrogateescape")
        spec = spec.replace("\x00", "")
        run.run([plan, "--topology", spec, "--algorithm", rng.choice(ALGOS), "--size", "64KiB"],
                invalid=False)
    # invalid and mutated topology files
    for k, text in enumerate(invalid_files(rng)):
        path = run.write("bad-%d.txt" % k, text)
        run.run([plan, "--topology", "@" + path, "--algorithm", "ring", "--size", "1KiB"],
                invalid=True)
    for k in range(60):
        path = run.write("mut-%d.txt" % k, mutate_text(rng, TOPO_FILE))
        run.run([plan, "--topology", "@" + path, "--algorithm", rng.choice(ALGOS), "--size",
                 "4KiB"], invalid=False)
    # mutated command lines
    for _ in range(60):
        argv = list(base) + ["--dump", "csv"]
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(argv))
            op = rng.randrange(3)
            if op == 0:
                del argv[i]
            elif op == 1:
                argv.insert(i, rng.choice(["--chunks", "--bogus", "--size", "-", "--", "x"]))
            else:
                argv[i] = mutate_text(rng, argv[i]).decode("utf-8", "replace").replace("\x00", "")
        run.run([plan] + argv, invalid=False)
    # failed writes
    run.run([plan] + base + ["--dump", "json", "--output", "/dev/full"], invalid=True)


def example_cases(rng, run, folder):
    progs = {}
    for name in ["training-net-quickstart", "collective-comparison", "training-iteration",
                 "roce-hpcc-flows", "themis-comparison", "p2p-study-stats", "training-net-run"]:
        path = os.path.join(folder, name) if folder else ""
        if path and os.access(path, os.X_OK):
            progs[name] = path
        else:
            print("SKIP %s: not built here (core-only build or no --examples)" % name)
    db = ["--db=" + os.path.join(run.tmp, "fuzz.db")]
    q = progs.get("training-net-quickstart")
    if q:
        for bad in ["--bytes=-1", "--bytes=8MiBx", "--bytes=1e3", "--bytes=0x10", "--chunks=0",
                    "--chunks=-1", "--topology=ring:4294967295", "--topology=ring:8,latency=1e300s",
                    "--algorithm=nope", "--collective=sum", "--routing=nope",
                    "--topology=leafspine:leaves=1,spines=65536,hosts=2",
                    # sizes the packet level cannot get through (issue 42's round: a hang)
                    "--bytes=49TiB"]:
            run.run([q, "--topology=ring:4", "--bytes=4KiB"] + db + [bad], invalid=True)
        run.run([q, "--topology=ring:4", "--bytes=4KiB"] + db, invalid=False)
        for _ in range(8):
            spec = mutate_text(rng, rng.choice(VALID_SPECS[:5])).decode("utf-8", "replace")
            run.run([q, "--topology=" + spec.replace("\x00", ""), "--bytes=4KiB"] + db,
                    invalid=False)
    c = progs.get("collective-comparison")
    if c:
        for bad in ["--bytes=-1", "--algorithms=nope", "--routing=nope", "--topology=blob:3"]:
            run.run([c, "--topology=ring:4", "--bytes=4KiB", "--algorithms=ring"] + db + [bad],
                    invalid=True)
    t = progs.get("training-iteration")
    if t:
        for bad in ["--iterations=0", "--memory=0bps", "--engines=nope", "--workload=/nonexistent",
                    "--modelGroup=-1", "--ns3::NpuEndpoint::ClockRate=1",
                    "--ns3::RdmaDcqcnControl::MinRate=1bps"]:
            run.run([t, "--topology=switch:4"] + db + [bad], invalid=True)
        unknown = run.write("workload-unknown.txt", "NOPE\n1\n")
        run.run([t, "--topology=switch:4", "--workload=" + unknown] + db, invalid=True)
        # a SimAI collective of part of the NPUs (a generated program: no estimate) over the
        # packet-level length limit is refused at set-up by its lower bound (it ran for hours)
        huge = run.write("simai-huge.txt",
                         "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 2 ep: 1 pp: 1"
                         " vpp: 1 ga: 1 all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0\n1\n"
                         "mlp_row\t-1\t3500\tREDUCESCATTER\t65536\t1750\tALLGATHER\t65536\t"
                         "1750\tALLREDUCE\t199999999999000\t100\n")
        run.run([t, "--topology=switch:4", "--simai=" + huge] + db, invalid=True,
                expect="MaxPacketLevelLength")
    h = progs.get("themis-comparison")
    if h:
        for bad in ["--schedulers=nope", "--schedulers=fixed,nope", "--topology=blob:3",
                    "--chunks=0", "--bytes=-1", "--bytes=49TiB"]:
            run.run([h, "--topology=hier:ring2@100Gbps+switch2@100Gbps", "--bytes=64KiB",
                     "--schedulers=fixed"] + db + [bad], invalid=True)
        # planned (the estimate) and scheduled at run time (a bound): both refused at packet level
        for sched in ["themis", "fixed"]:
            run.run([h, "--topology=ring:4", "--bytes=49TiB", "--schedulers=" + sched] + db,
                    invalid=True, expect="MaxPacketLevelLength")
    q = progs.get("training-net-quickstart")
    if q:
        # the packet-level length limit is an attribute: lowered, a 1 MiB ring is refused at
        # packet level and runs at flow level
        lowered = ["--topology=ring:4", "--bytes=1MiB",
                   "--ns3::CollectiveService::MaxPacketLevelLength=1us"] + db
        run.run([q, "--mode=packet"] + lowered, invalid=True,
                expect=r"MaxPacketLevelLength \(1e-06 s\)")
        run.run([q, "--mode=flow"] + lowered, invalid=False)
    s = progs.get("p2p-study-stats")
    if s:
        for bad in ["--db=" + os.path.join(run.tmp, "no-such-dir", "x.db"), "--seconds=-1"]:
            run.run([s, "--seconds=1"] + db + [bad], invalid=True)
    r = progs.get("roce-hpcc-flows")
    if r:
        topo = run.write("hpcc-topo.txt", TOPO_FILE)
        flows = run.write("hpcc-flows.txt", FLOW_FILE)
        good = [r, "--topology=" + topo, "--flows=" + flows, "--fct=" + os.path.join(run.tmp, "f")]
        run.run(good, invalid=False)
        for bad in ["--mtu=4096x", "--mtu=100", "--seed=-1", "--seed=4294944443", "--stop=1e300",
                    "--stop=-1", "--cc=nope", "--fct=/dev/full",
                    "--ns3::RdmaDcqcnControl::MinRate=0bps"]:
            run.run(good + [bad], invalid=True)
        # --config values ns-3's own parsers abort on (1e309 for an integer attribute, a
        # non-number): refused by the config reader, one line with file, line and key
        for k, (key, value) in enumerate([("MI_THRESH", "1e309"), ("FAST_RECOVERY_TIMES", "1e309"),
                                          ("FAST_RECOVERY_TIMES", "abc"), ("INT_MULTI", "1e309"),
                                          ("RP_TIMER", "1e309"), ("BUFFER_SIZE", "abc"),
                                          ("RATE_AI", "1e309Mb/s"), ("U_TARGET", "nan")]):
            cfg = run.write("hpcc-cfg-%d.txt" % k, "CC_MODE 3\n%s %s\n" % (key, value))
            run.run(good + ["--config=" + cfg], invalid=True,
                    expect=r"hpcc-cfg-%d\.txt:2: %s: " % (k, key))
        for k, text in enumerate(invalid_files(rng)):
            path = run.write("rbad-%d.txt" % k, text)
            run.run([r, "--topology=" + path, "--flows=" + flows], invalid=True)
        for k in range(10):
            path = run.write("rflows-%d.txt" % k, mutate_text(rng, FLOW_FILE))
            run.run([r, "--topology=" + topo, "--flows=" + path], invalid=False)
        slow = run.write("slow-topo.txt", TOPO_FILE.replace("1us 0\n", "1us 1\n", 1))
        run.run([r, "--topology=" + slow, "--flows=" + flows], invalid=False)
    return progs


SCENARIO = """name = "fuzz"
seed = 1
[topology]
spec = "ring:4"
[roce]
"ns3::RdmaNic::Mtu" = 1024
[sampling]
interval = "10us"
[[collective]]
algorithm = "ring"
bytes = "16KiB"
chunks = 2
[test]
"collective.bytes" = "4KiB"
"""

TRAINING = """[topology]
spec = "switch:4"
[npu]
Engine = "ace"
[training]
workload = "wl.txt"
iterations = 1
"""

WORKLOAD = ("DATA\n2\nl0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 4096 10\n"
            "l1 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 8192 10\n")

# Workloads each invalid by construction: sizes past 2^62, compute times past 10^9 cycles.
BAD_WORKLOADS = [
    WORKLOAD.replace("ALLREDUCE 4096", "ALLREDUCE 4611686018427387905"),
    WORKLOAD.replace("ALLREDUCE 4096", "ALLREDUCE 18446744073709551615"),
    WORKLOAD.replace("l0 -1 1000", "l0 -1 18446744073709551615"),
    WORKLOAD.replace("l0 -1 1000", "l0 -1 9223372036854775808"),
    WORKLOAD.replace("l0 -1 1000", "l0 -1 1000000000000"),
    WORKLOAD.replace("4096 10", "4096 1000000001"),
    WORKLOAD.replace("DATA\n2", "DATA\n3"),
]


def runner_cases(rng, run, runner, scale):
    """training-net-run: bad command lines and scenarios refused in one line, mutated
    scenarios and workloads ending well, no run left 'running'."""
    scen = run.write("fuzz.toml", SCENARIO)
    run.write("wl.txt", WORKLOAD)
    train = run.write("train.toml", TRAINING)
    db = os.path.join(run.tmp, "run.db")
    base = [runner, scen, "--db", db]
    run.run(base + ["-j", "2", "--set", 'collective.algorithm=["ring", "direct"]'],
            invalid=False, db=db)
    run.run([runner, train, "--db", db], invalid=False, db=db)
    lists = ",".join(str(i + 1) for i in range(300))
    for bad in [["-j", " 2"], ["-j", "+2"], ["-j0"], ["-j", "4097"], ["--jobs=x"], ["-j"],
                ["--bogus"], ["--bogus=1"], ["-x"], ["--"], ["--set"], ["--set", "noequals"],
                ["--db="], [scen], ["--check=maybe"],
                ["--set", "roce.ns3::RdmaNic::Mtu=1e309"],
                ["--set", "roce.ns3::RdmaDcqcnControl::MinRate=1 Gbps"],
                ["--set", "roce.ns3::RdmaNic::RetransmitTimeout=1e300s"],
                ["--set", "roce.ns3::NoSuch::X=1"],
                ["--set", "seed=abc"], ["--set", "seed=4294944443"],
                ["--set", "collective.bytes=4 MiB"], ["--set", 'collective.chunks="4 x"'],
                ["--set", "collective.bytes=4611686018427387905"],
                ["--set", "database=1"], ["--set", 'database=""'],
                ["--set", "test.nosuchkey=1"],
                ["--set", "collective.bytes=[%s]" % lists, "--set", "collective.chunks=[%s]" % lists,
                 "--set", "seed=[%s]" % lists],
                ["--set", "topology.spec=ring:4,latency=100000000s"],
                ["--set", "topology.spec=ring:4,rate=1bps"],
                ["--set", "roce.ns3::RdmaNic::InjectionRate=1bps"],
                ["--set", "npu.MemoryBandwidth=1bps"],
                ["--set", "x" * 100000 + "=1"]]:
        run.run(base + bad, invalid=True, db=db)
    run.run([runner], invalid=True)
    run.run([runner, os.path.join(run.tmp, "no-such.toml")], invalid=True)
    broken = run.write("bad-test.toml", SCENARIO + '"collective.nosuchkey" = 1\n')
    run.run([runner, broken, "--db", db], invalid=True, db=db)
    for k in range(20 * scale):
        path = run.write("mut-%d.toml" % k, mutate_text(rng, SCENARIO))
        run.run([runner, path, "--db", db, "--test-size"], invalid=False, db=db)
    for k, text in enumerate(BAD_WORKLOADS):
        run.write("wl.txt", text)
        run.run([runner, train, "--db", db], invalid=True, db=db)
    for k in range(10 * scale):
        run.write("wl.txt", mutate_text(rng, WORKLOAD))
        run.run([runner, train, "--db", db], invalid=False, db=db)
    run.write("wl.txt", WORKLOAD)


def signal_cases(rng, run, runner, tries):
    """A -j 2 sweep interrupted at random moments: exit 130 (143), no run left 'running'."""
    scen = run.write("signal.toml", SCENARIO.replace('"16KiB"', '["64MiB", "96MiB"]')
                     .replace("spec = \"ring:4\"", "spec = \"torus:4x4\"")
                     .replace('algorithm = "ring"', 'algorithm = "multitree"')
                     .replace("chunks = 2", "chunks = [1, 2, 4]"))
    for k in range(tries):
        db = os.path.join(run.tmp, "signal-%d.db" % k)
        how = rng.choice(["group", "pid"])
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        twice = k % 3 == 2
        delay = rng.uniform(0.3, 2.5)
        run.runs += 1
        p = subprocess.Popen([runner, scen, "--db", db, "-j", "2", "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, cwd=run.tmp, start_new_session=True)
        time.sleep(delay)
        for _ in range(2 if twice else 1):
            try:
                if how == "group":
                    os.killpg(p.pid, sig)
                else:
                    os.kill(p.pid, sig)
            except ProcessLookupError:
                pass
            time.sleep(0.05)
        try:
            _, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
            run.failures.append("signal %d to %s at %.2f s: the runner did not end" %
                                (sig, how, delay))
            continue
        what = "signal %s to the %s at %.2f s%s" % (signal.Signals(sig).name, how, delay,
                                                   " (twice)" if twice else "")
        want = 130 if sig == signal.SIGINT else 143
        problem = check_db(db)
        statuses = []
        if problem is None and os.path.exists(db):
            con = sqlite3.connect(db)
            statuses = [r[0] for r in con.execute("SELECT status FROM run")]
            con.close()
            if any(st not in ("ok", "aborted") for st in statuses):
                problem = "run statuses %s" % statuses
        if problem is None and p.returncode != want:
            if p.returncode == 0 and statuses and all(st == "ok" for st in statuses):
                print("NOTE %s: the sweep had ended already" % what)
            else:
                problem = "exit %d, expected %d" % (p.returncode, want)
        if problem:
            run.failures.append("%s: %s (stderr: %s)" % (
                what, problem, err.decode("utf-8", "replace").strip().replace("\n", " | ")[:300]))


def more_example_cases(rng, run, progs, scale):
    """Whole-text values, empty list items, ns-3 values that used to abort, unknown options."""
    db = os.path.join(run.tmp, "fuzz.db")
    common = ["--ns3::RdmaNic::Mtu=1e309", "--RngSeed=abc", "--RngSeed=0", "--bogus", "--",
              "stray", "--ns3::RdmaDcqcnControl::MinRate=1 Gbps", "--PrintAttributes=NoSuchClass",
              "--db="]
    q = progs.get("training-net-quickstart")
    if q:
        for bad in common + ["--bytes=4 MiB", "--chunks=4 x", "--chunks= 2", "--bytes=+4",
                             "--topology=ring:4,latency=100000000s", "--routing=planned,ecmp",
                             "--topology=ring:4,rate=1bps", "--topology=ring:4,rate=999Mbps",
                             "--topology=hier:ring2@1bps+switch2@100Gbps"]:
            run.run([q, "--topology=ring:4", "--bytes=4KiB", "--db=" + db, bad], invalid=True,
                    db=db)
    c = progs.get("collective-comparison")
    if c:
        for bad in common + ["--algorithms=,", "--algorithms=ring,", "--routing=planned,,ecmp",
                             "--algorithms=ring, direct", "--bytes=4 MiB"]:
            run.run([c, "--topology=ring:4", "--bytes=4KiB", "--algorithms=ring", "--db=" + db,
                     bad], invalid=True, db=db)
    th = progs.get("themis-comparison")
    if th:
        for bad in common + ["--active=2 junk", "--chunks=4 x", "--bytes=4 MiB", "--schedulers=,",
                             "--schedulers=fixed,,themis"]:
            run.run([th, "--topology=hier:ring4@100Gbps+switch2@100Gbps", "--bytes=64KiB",
                     "--db=" + db, bad], invalid=True, db=db)
    t = progs.get("training-iteration")
    if t:
        wl = run.write("ti-wl.txt", WORKLOAD)
        base = [t, "--topology=switch:4", "--workload=" + wl, "--db=" + db]
        run.run(base, invalid=False, db=db)
        for bad in common + ["--iterations=2 x", "--engines=,", "--engines=baseline,",
                             "--memory=1 Gbps", "--memory=1bps", "--topology=switch:4,rate=1bps"]:
            run.run(base + [bad], invalid=True, db=db)
        for k, text in enumerate(BAD_WORKLOADS):
            path = run.write("ti-bad-%d.txt" % k, text)
            run.run([t, "--topology=switch:4", "--workload=" + path, "--db=" + db],
                    invalid=True, db=db)
        for k in range(10 * scale):
            path = run.write("ti-mut-%d.txt" % k, mutate_text(rng, WORKLOAD))
            run.run([t, "--topology=switch:4", "--workload=" + path, "--db=" + db],
                    invalid=False, db=db)
        # SimAI workloads (tn-simai.h): the file as written, then mutated (read or refused
        # with one line, never a crash), and files for the wrong NPU count
        simai = run.write("ti-simai.txt", SIMAI_WORKLOAD)
        run.run([t, "--topology=switch:4", "--simai=" + simai, "--db=" + db], invalid=False,
                db=db)
        run.run([t, "--topology=switch:8", "--simai=" + simai, "--db=" + db], invalid=True,
                db=db, expect="all_gpus")
        # a control byte in a field (seed 71's round): quoted \xNN in the one error line,
        # which it split before (0x1d ends a line for Python's splitlines and some terminals)
        ctl = run.write("ti-simai-ctl.txt",
                        SIMAI_WORKLOAD.replace("ALLREDUCE_DP_EP", "ALLREDUCE\x1dDP_EP"))
        run.run([t, "--topology=switch:4", "--simai=" + ctl, "--db=" + db], invalid=True, db=db,
                expect=r"ti-simai-ctl\.txt:4: field 10 \(wg_comm_type\) 'ALLREDUCE\\x1dDP_EP'")
        # a run the recorder stops (here a stall at once): one error line naming it, the last
        # thing printed, no later engine (--workload runs two); it printed none before
        stall = ["--ns3::StatsRecorder::StallTimeout=1ns", "--ns3::StatsRecorder::SampleInterval=1ns"]
        for given in ["--simai=" + simai, "--workload=" + wl]:
            run.run([t, "--topology=switch:4", given, "--db=" + db] + stall, invalid=True, db=db,
                    expect="^training-iteration: stalled: ")
        for k in range(10 * scale):
            path = run.write("ti-simai-mut-%d.txt" % k, mutate_text(rng, SIMAI_WORKLOAD))
            run.run([t, "--topology=switch:4", "--simai=" + path, "--db=" + db],
                    invalid=None, db=db)
    for name, path in progs.items():
        if name == "roce-hpcc-flows":
            continue
        for _ in range(4 * scale):
            argv = ["--topology=ring:4", "--bytes=4KiB", "--db=" + db]
            i = rng.randrange(len(argv))
            argv[i] = mutate_text(rng, argv[i]).decode("utf-8", "replace").replace("\x00", "")
            run.run([path] + argv, invalid=False, db=db)
    # a database of another program: refused with one line naming it, left byte for byte
    for k, sql in enumerate(["CREATE TABLE notes (a); INSERT INTO notes VALUES ('keep me')",
                             "PRAGMA user_version = 7",
                             "CREATE TABLE port_summary (run_id INTEGER)"]):
        usual = {"training-net-quickstart": ["--topology=ring:4", "--bytes=4KiB"],
                 "collective-comparison": ["--topology=ring:4", "--bytes=4KiB",
                                           "--algorithms=ring"],
                 "training-iteration": ["--topology=switch:4",
                                        "--workload=" + run.write("fw.txt", WORKLOAD)],
                 "training-net-run": [run.write("foreign.toml", SCENARIO)]}
        for name, path in progs.items():
            if name not in usual:
                continue
            foreign = os.path.join(run.tmp, "foreign-%d.db" % k)
            if not os.path.exists(foreign):
                con = sqlite3.connect(foreign)
                con.executescript(sql)
                con.close()
            with open(foreign, "rb") as f:
                before = f.read()
            argv = [path] + usual[name] + ["--db=" + foreign]
            run.run(argv, invalid=True, expect=r"foreign-%d\.db: " % k)
            with open(foreign, "rb") as f:
                if f.read() != before or os.path.exists(foreign + "-wal"):
                    run.failures.append("%s: the foreign database %s was changed"
                                        % (" ".join(argv), foreign))


def study_cases(run, folder):
    """cc-comparison, p2p-study-allreduce and roce-tcp-background: bad input is refused in one
    line with nothing after it (no table header), and no run is left 'running'."""
    common = ["--bogus", "stray", "--RngSeed=0", "--ns3::RdmaNic::Mtu=1e309", "--bytes=-1",
              "--bytes=4 MiB", "--algorithm=nope",
              "--db=" + os.path.join(run.tmp, "no-such-dir", "x.db")]
    cases = {
        "cc-comparison": (["--topology=ring:4", "--bytes=4KiB", "--cc=dcqcn"],
                          ["--cc=nope", "--cc=dcqcn,", "--collective=sum", "--topology=blob:3",
                           "--topology=ring:4,rate=1bps", "--algorithm=rhd"]),
        "p2p-study-allreduce": (["--hosts=4", "--bytes=4KiB"],
                                ["--hosts=1", "--hosts=2000", "--error-rate=2", "--error-rate=x",
                                 "--host-rate=0bps", "--bottleneck-rate=1 Gbps",
                                 "--host-rate=1bps", "--bottleneck-rate=999Mbps"]),
        "roce-tcp-background": (["--topology=switch:4", "--bytes=4KiB", "--loads=0"],
                                ["--loads=2", "--loads=,", "--loads=", "--topology=blob:3",
                                 "--topology=switch:4,rate=1bps", "--algorithm=rhd,ring"]),
    }
    for name, (base, bad) in cases.items():
        path = os.path.join(folder, name) if folder else ""
        if not (path and os.access(path, os.X_OK)):
            print("SKIP %s: not built here (core-only build or no --examples)" % name)
            continue
        for k, arg in enumerate(common + bad):
            db = os.path.join(run.tmp, "study-%s-%d.db" % (name, k))
            run.run([path] + base + ["--db=" + db, arg], invalid=True, db=db)
    # p2p-study-allreduce builds its study before planning: an algorithm that cannot plan on
    # its hosts (hdrm: a BiGraph) ends the recorded run as 'error' with the reason
    path = os.path.join(folder, "p2p-study-allreduce") if folder else ""
    if path and os.access(path, os.X_OK):
        db = os.path.join(run.tmp, "study-unplannable.db")
        run.run([path, "--hosts=6", "--bytes=4KiB", "--algorithm=hdrm", "--db=" + db],
                invalid=True, db=db, expect="BiGraph")
        con = sqlite3.connect(db)
        rows = con.execute("SELECT status, error FROM run").fetchall()
        con.close()
        if len(rows) != 1 or rows[0][0] != "error" or "BiGraph" not in (rows[0][1] or ""):
            run.failures.append("p2p-study-allreduce --algorithm=hdrm: expected one run 'error' "
                                "naming the BiGraph, got %r" % rows)


def distributed_cases(run, folder):
    """roce-distributed, in one process: a bad command line is one error line naming the
    option, exit 2, nothing printed (its run-time refusals are test/mpi-test.sh's)."""
    path = os.path.join(folder, "roce-distributed") if folder else ""
    if not (path and os.access(path, os.X_OK)):
        print("SKIP roce-distributed: not built here (core-only build or no --examples)")
        return
    nowhere = "--db=" + os.path.join(run.tmp, "no-such-dir", "x.db")
    for bad, expect in [(["--bogus"], "--bogus"), (["--bogus=1"], "--bogus"),
                        (["stray"], "stray"), (["--case=nope"], "--case"),
                        ([nowhere], "--db"), (["--case=incast", "--timing"], "--timing"),
                        (["--case=collective", "--db="], "--db"),
                        (["--bytes=4 MiB"], "MiB"), (["--bytes=-1"], "--bytes"),
                        (["--stop=1e3", "--case=collective"], "--stop")]:
        run.run([path] + bad, invalid=True, expect=re.escape(expect))


def report_cases(rng, run, progs, scale):
    """training-net-report on a results database, damaged copies of it and foreign files:
    a drawing or one error line, never a traceback."""
    report = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "utils",
                          "training-net-report")
    q = progs.get("training-net-quickstart")
    if not q or not os.access(report, os.X_OK):
        print("SKIP training-net-report: no quickstart to make a database, or no report")
        return
    good = os.path.join(run.tmp, "report-src.db")
    run.run([q, "--topology=ring:4", "--bytes=4KiB", "--db=" + good], invalid=False, db=good)
    con = sqlite3.connect(good)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with open(good, "rb") as f:
        data = f.read()
    out = os.path.join(run.tmp, "report-out")
    run.run([report, good, "-o", out], invalid=False)
    for bad in [["--max-runs=0"], ["--run=99"], ["--run=x"], ["-o", "/dev/null/x"]]:
        run.run([report, good] + bad, invalid=True)
    for k in range(5 * scale):
        d = bytearray(data)
        for _ in range(rng.choice([1, 4, 32, 256])):
            i = rng.randrange(len(d))
            d[i] = rng.randrange(256)
        if rng.random() < 0.2:
            d = d[:rng.randrange(len(d))]
        path = run.write("report-bad-%d.db" % k, bytes(d))
        run.run([report, path, "-o", out], invalid=None)
    for k, text in enumerate([b"", b"SQLite format 3\x00" + b"\xff" * 200, b"hello\n"]):
        path = run.write("report-junk-%d.db" % k, text)
        run.run([report, path, "-o", out], invalid=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", required=True)
    ap.add_argument("--examples", default="")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--sanitized", action="store_true")
    # the ctest runs the default round; TN_FUZZ_SCALE (or --scale) the longer ones
    ap.add_argument("--scale", type=int, default=int(os.environ.get("TN_FUZZ_SCALE", "1")))
    ap.add_argument("--signals", type=int, default=10)
    ap.add_argument("--example-signals", type=int, default=10)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tn-fuzz-") as tmp:
        run = Runner(args, tmp)
        for _ in range(args.scale):
            plan_cases(rng, run, os.path.abspath(args.plan))
        progs = example_cases(rng, run, os.path.abspath(args.examples) if args.examples else "")
        more_example_cases(rng, run, progs, args.scale)
        study_cases(run, os.path.abspath(args.examples) if args.examples else "")
        distributed_cases(run, os.path.abspath(args.examples) if args.examples else "")
        report_cases(rng, run, progs, args.scale)
        runner = progs.get("training-net-run")
        fuzz_chakra.abort_audit(run, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", ".."))
        if runner:
            # their own generator: the cases after them draw what they drew before
            rng42 = random.Random(args.seed + 42)
            fuzz_chakra.chakra_cases(rng42, run, runner, args.scale)
            fuzz_chakra.rate_cases(rng42, run, runner, args.scale)
            runner_cases(rng, run, runner, args.scale)
            signal_cases(rng, run, runner, args.signals)
        # issue 42's generators, on their own generator: the cases above stay as they were
        more = random.Random(args.seed + 42)
        examples = os.path.abspath(args.examples) if args.examples else ""
        promises.sampling_cases(more, run, examples, WORKLOAD, args.scale)
        promises.example_signal_cases(more, run, examples, args.example_signals, check_db)
        promises.late_signal_cases(run, examples, check_db, WORKLOAD)
        report = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "utils",
                              "training-net-report")
        source = os.path.join(tmp, "report-src.db")
        if os.path.exists(source) and os.access(report, os.X_OK):
            promises.report_input_cases(more, run, report, source, args.scale)
        if examples:
            # issue 38: ASTRA-sim 2's input sets, on their own generator
            fuzz_astra.astra_cases(random.Random(args.seed + 38), run,
                                   os.path.join(examples, "astra-sim-compat"), mutate_text,
                                   args.scale, check_db)
        # the user-facing options walk, on its own generator
        fuzz_options.options_walk(random.Random(args.seed + 4242), run, examples, args.scale)
        promises.chakra_convert_cases(run, os.path.join(os.path.dirname(
            os.path.abspath(args.plan)), "tn-chakra-convert"), runner, WORKLOAD)
    for x in run.xfails:
        print(x)
    for f in run.failures:
        print("FAIL " + f)
    print("fuzz: %d runs, %d failures, %d expected failures, peak RSS %d MiB, %.1f s (seed %d)"
          % (run.runs, len(run.failures), len(run.xfails), run.peak >> 20,
             time.monotonic() - start, args.seed))
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
