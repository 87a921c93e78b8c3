#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs an example and checks what it prints and records against invariants, not only its exit
status. One check per example:

  p2p-study-allreduce   the all-reduce line: complete, data as planned, no faster than the
                        payload bound 2(N-1)/N S / host rate, within 25% of the cost model's
                        estimate, retransmissions > 0 when --error-rate > 0; the database: one
                        run 'ok', a node row per host and router, each host port sending at
                        least its 2(N-1)/N S bytes of the ring
  roce-tcp-background   one line per load, in order; load 0: slowdown 1.00 and no TCP; every
                        load: slowdown in [1, 1/(1-load)] (round robin leaves the collective at
                        least the share TCP does not offer), goodput in (0, load x N x link
                        rate] when load > 0; the database: a run 'ok' per load, its collective
                        'ready' with the printed time, no drop on the lossless priority 3
  collective-comparison the time column named by the mode (packet or flow); a line per
                        (routing, algorithm) in order; ratio = time / model, bus bandwidth
                        2(N-1)/N S / time, speed-up = the first algorithm's time / this one's
                        (1.00 on the first line of each routing); the database: a run 'ok' per
                        line whose parameters name the mode, its collective with the printed
                        time; a (routing, algorithm) repeated takes the time it took first
  training-net-nccl-tests  nccl-tests' table: a row per size of the -b/-e/-f sweep, in order,
                        rounded to whole floats (per rank where the buffer is split); count =
                        size / 4 (/ n); algbw = size / time and busbw = nccl-tests' factor x
                        algbw (2(n-1)/n all-reduce, (n-1)/n all-gather, reduce-scatter,
                        all-to-all, 1 otherwise) within the printed rounding; in-place =
                        out-of-place; #wrong 0; the Avg line = the mean busbw; the database: a
                        run 'ok' per size with its bytes and the printed time; a bad option
                        exits 2 with one line on stderr and nothing on stdout
  training-net-script   the README's script: its line "D vs cost model E" with D within 25% of
                        E; the database: one run 'ok' with no error text (Finish, not the
                        recorder at Destroy), simulated_ns at or after the collective's end,
                        the collective row with the printed duration, and every port's samples
                        tiling the run up to simulated_ns (no gap, no overlap)

usage: example-output-test.py EXAMPLE DB PROGRAM [ARGS...]   (the program gets --db=DB)
"""
import os
import re
import sqlite3
import subprocess
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def option(args, name, default):
    for a in args:
        if a.startswith("--" + name + "="):
            return a.split("=", 1)[1]
    return default


def size(text):
    units = {"": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    m = re.fullmatch(r"(\d+)(KiB|MiB|GiB)?", text)
    return int(m.group(1)) * units[m.group(2) or ""]


def p2p_study_allreduce(out, db, args):
    hosts = int(option(args, "hosts", "8"))
    nbytes = size(option(args, "bytes", "4MiB"))
    loss = float(option(args, "error-rate", "0"))
    host_rate = 10e9  # the example's --host-rate default; the test does not change it
    m = re.search(r"all-reduce of (\d+) bytes across (\d+) hosts: (\d+) us \(estimate (\d+) us\), "
                  r"(\d+) bytes retransmitted, path MTU (\d+), data as planned", out)
    check(m is not None, "no complete all-reduce line with 'data as planned' in:\n" + out)
    if not m:
        return
    got_bytes, got_hosts, us, estimate_us, retransmitted = (int(m.group(i)) for i in range(1, 6))
    check(got_bytes == nbytes and got_hosts == hosts, "the line names other bytes or hosts")
    bound_us = 2.0 * (hosts - 1) / hosts * nbytes * 8 / host_rate * 1e6
    check(us >= bound_us, "%d us is below the payload bound %.0f us" % (us, bound_us))
    check(abs(us / estimate_us - 1) <= 0.25, "%d us vs estimate %d us" % (us, estimate_us))
    if loss > 0:
        check(retransmitted > 0, "losses of %g but nothing retransmitted" % loss)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    runs = con.execute("SELECT run_id, status FROM run").fetchall()
    check(len(runs) == 1 and runs[0][1] == "ok", "runs: %s" % runs)
    nodes = con.execute("SELECT count(*) FROM node").fetchone()[0]
    check(nodes == hosts + 2, "%d node rows for %d hosts and 2 routers" % (nodes, hosts))
    share = 2 * (hosts - 1) * nbytes // hosts
    for node, sent in con.execute("SELECT node_id, sum(tx_bytes) FROM port_sample "
                                  "WHERE node_id < ? GROUP BY node_id", (hosts,)):
        check(sent >= share, "host %d sent %d bytes, less than its ring share %d"
              % (node, sent, share))
    hosts_seen = con.execute("SELECT count(DISTINCT node_id) FROM port_sample WHERE node_id < ?",
                             (hosts,)).fetchone()[0]
    check(hosts_seen == hosts, "port samples of %d hosts of %d" % (hosts_seen, hosts))


def roce_tcp_background(out, db, args):
    loads = [float(x) for x in option(args, "loads", "0,0.25,0.5,0.75").split(",")]
    spec = option(args, "topology", "switch:8,rate=100Gbps,latency=1us")
    npus = int(re.match(r"switch:(\d+)", spec).group(1))
    rate = float(re.search(r"rate=(\d+)Gbps", spec).group(1))
    rows = [l.split() for l in out.splitlines()[1:] if l.strip()]
    check(len(rows) == len(loads), "%d result lines for %d loads:\n%s" % (len(rows), len(loads), out))
    if len(rows) != len(loads):
        return
    times = []
    for load, row in zip(loads, rows):
        got_load, us, slowdown, goodput = (float(x) for x in row)
        times.append(us)
        check(abs(got_load - load) < 1e-9, "line %s is not load %g" % (row, load))
        if load == 0:
            check(slowdown == 1.0 and goodput == 0.0, "load 0: %s" % row)
        ceiling = 1 / (1 - load) if load < 1 else float("inf")
        check(1.0 <= slowdown <= ceiling + 0.01,
              "load %g: slowdown %g outside [1, %g]" % (load, slowdown, ceiling))
        if load > 0:
            check(0 < goodput <= load * npus * rate,
                  "load %g: goodput %g Gb/s outside (0, %g]" % (load, goodput, load * npus * rate))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    runs = con.execute("SELECT run_id, status FROM run ORDER BY run_id").fetchall()
    check([s for _, s in runs] == ["ok"] * len(loads), "runs: %s" % runs)
    for (run, _), us in zip(runs, times):
        c = con.execute("SELECT scheduler, duration_ns, transfers, transfers_done FROM "
                        "collective_summary WHERE run_id = ?", (run,)).fetchall()
        check(len(c) == 1 and c[0][0] == "ready" and c[0][2] == c[0][3] and
              abs(c[0][1] / 1e3 - us) < 0.01,
              "run %d: collective %s, printed %g us" % (run, c, us))
    lossless = con.execute("SELECT count(*) FROM drop_event WHERE priority = 3").fetchone()[0]
    check(lossless == 0, "%d drops on the lossless priority 3" % lossless)


def collective_comparison(out, db, args):
    mode = option(args, "mode", "packet")
    routings = option(args, "routing", "planned").split(",")
    algorithms = option(args, "algorithms", "multitree,ring").split(",")
    nbytes = size(option(args, "bytes", "16MiB"))
    lines = out.splitlines()
    m = re.match(r"all-reduce of (\d+) bytes on \S+ \((\d+) NPUs\)", lines[0] if lines else "")
    check(m is not None and int(m.group(1)) == nbytes, "first line: %s" % lines[:1])
    if not m:
        return
    npus = int(m.group(2))
    check(len(lines) > 1 and lines[1].split()[2:4] == [mode, "(us)"],
          "the time column does not name the mode %s: %s" % (mode, lines[1:2]))
    rows = [l.split() for l in lines[2:] if l.strip()]
    expected = [(r, a) for r in routings for a in algorithms]
    check([(r[0], r[1]) for r in rows] == expected, "lines %s, expected %s" % (rows, expected))
    if len(rows) != len(expected):
        return
    times = []
    for i, row in enumerate(rows):
        us, model, ratio, busbw, speedup = (float(x) for x in row[2:7])
        times.append(us)
        reference = times[i - i % len(algorithms)]
        # times are printed to 0.1 us: each derived figure within that rounding, plus half
        # of its own last printed digit
        rel = 0.05 / us + 0.05 / model
        check(abs(ratio - us / model) <= us / model * rel + 0.0005,
              "%s: ratio %g, time/model %g" % (row, ratio, us / model))
        bus = 2.0 * (npus - 1) / npus * nbytes / (us * 1e3)
        check(abs(busbw - bus) <= bus * 0.05 / us + 0.005,
              "%s: busbw %g, expected %g" % (row, busbw, bus))
        check(abs(speedup - reference / us) <= reference / us * (0.05 / us + 0.05 / reference)
              + 0.005, "%s: speed-up %g, expected %g / %g" % (row, speedup, reference, us))
        # a run repeated in the process draws what it drew first (RoceHelper::AssignStreams)
        first = expected.index(expected[i])
        check(times[first] == us, "%s: %g us, the same run before took %g us"
              % (row, us, times[first]))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    runs = con.execute("SELECT run_id, status, params_json FROM run ORDER BY run_id").fetchall()
    check([s for _, s, _ in runs] == ["ok"] * len(rows), "runs: %s" % [s for _, s, _ in runs])
    for (run, _, params), us in zip(runs, times):
        check('"mode":"%s"' % mode in params, "run %d parameters %s lack the mode" % (run, params))
        c = con.execute("SELECT duration_ns FROM collective_summary WHERE run_id = ?",
                        (run,)).fetchall()
        check(len(c) == 1 and abs(c[0][0] / 1e3 - us) < 0.051,
              "run %d: collective %s, printed %g us" % (run, c, us))


def training_net_script(out, db, args):
    m = re.search(r"\+([\d.]+)ns vs cost model \+([\d.]+)ns", out)
    check(m is not None, "no 'D vs cost model E' line in:\n" + out)
    if not m:
        return
    duration, estimate = float(m.group(1)), float(m.group(2))
    check(abs(duration / estimate - 1) <= 0.25, "%g ns vs cost model %g ns" % (duration, estimate))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    runs = con.execute("SELECT run_id, status, error, simulated_ns FROM run").fetchall()
    check(len(runs) == 1 and runs[0][1:3] == ("ok", None), "runs: %s" % runs)
    if len(runs) != 1:
        return
    simulated = runs[0][3]
    c = con.execute("SELECT start_ns, end_ns FROM collective").fetchall()
    check(len(c) == 1 and c[0][1] is not None and c[0][1] - c[0][0] == duration,
          "collective rows %s, printed %g ns" % (c, duration))
    check(len(c) == 1 and simulated is not None and c[0][1] is not None and simulated >= c[0][1],
          "simulated_ns %s before the collective's end %s" % (simulated, c))
    ports = con.execute("SELECT node_id, port, sum(interval_ns), max(time_ns), count(*) "
                        "FROM port_sample GROUP BY node_id, port").fetchall()
    check(len(ports) > 0, "no port samples")
    for node, port, covered, last, rows in ports:
        check(covered == simulated and last == simulated,
              "port %d:%d: %d rows cover %d ns up to %d, the run is %s ns"
              % (node, port, rows, covered, last, simulated))


NCCL_FACTORS = {"all_reduce": lambda n: 2.0 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
                "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
                "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0}


def nccl_size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)", text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def training_net_nccl_tests(out, db, args):
    short = {"-b": "32M", "-e": "32M", "-f": "1", "--op": None}
    words = []
    i = 0
    while i < len(args):
        if args[i] in short:
            short[args[i]] = args[i + 1]
            i += 2
            continue
        if not args[i].startswith("-"):
            words.append(args[i])
        i += 1
    op = words[0] if words else option(args, "op", short["--op"] or "all_reduce")
    lines = out.splitlines()
    m = re.match(r"# nccl-tests (\w+) on \S+: (\d+) ranks", lines[0] if lines else "")
    check(m is not None and m.group(1) == op, "first line: %s" % lines[:1])
    if not m:
        return
    n = int(m.group(2))
    factor = NCCL_FACTORS[op](n)
    unit = 4 * (n if op in ("all_gather", "reduce_scatter", "alltoall") else 1)
    sizes, size, step = [], nccl_size(short["-b"]), int(short["-f"])
    while size <= nccl_size(short["-e"]):
        sizes.append(size // unit * unit)
        size *= step
    rows = [l.split() for l in lines if l.strip() and not l.startswith("#")]
    check([int(r[0]) for r in rows] == sizes, "sizes %s, expected %s" % ([r[0] for r in rows], sizes))
    redop = "sum" if op in ("all_reduce", "reduce_scatter", "reduce") else "none"
    root = "0" if op in ("broadcast", "reduce") else "-1"
    busbws, times = [], []
    for row in rows:
        check(len(row) == 13, "row %s: not 13 columns" % row)
        if len(row) != 13:
            return
        nbytes = int(row[0])
        check(int(row[1]) == nbytes // unit, "%s: count %s, expected %d" % (row, row[1], nbytes // unit))
        check(row[2:5] == ["float", redop, root], "%s: type, redop, root" % row)
        check(row[5:9] == row[9:13], "%s: in-place differs from out-of-place" % row)
        us, algbw, busbw, wrong = float(row[5]), float(row[6]), float(row[7]), int(row[8])
        decimals = len(row[5].split(".")[1]) if "." in row[5] else 0
        alg = nbytes / (us * 1e3)
        # the time is rounded to its printed decimals, algbw and busbw to 0.01
        check(abs(algbw - alg) <= alg * 0.5 * 10 ** -decimals / us + 0.005,
              "%s: algbw %g, size / time %g" % (row, algbw, alg))
        check(abs(busbw - factor * algbw) <= 0.005 * (1 + factor) + 1e-9,
              "%s: busbw %g, %g x algbw %g" % (row, busbw, factor, algbw))
        check(wrong == 0, "%s: #wrong %d" % (row, wrong))
        busbws.append(busbw)
        times.append((us, decimals))
    avg = [l for l in lines if l.startswith("# Avg bus bandwidth")]
    check(len(avg) == 1 and rows and abs(float(avg[0].split(":")[1]) - sum(busbws) / len(rows))
          <= 0.005 + 1e-5 * sum(busbws) / len(rows), "Avg line %s, busbw %s" % (avg, busbws))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    runs = con.execute("SELECT run_id, status, params_json FROM run ORDER BY run_id").fetchall()
    check([s for _, s, _ in runs] == ["ok"] * len(rows), "runs: %s" % runs)
    for (run, _, params), nbytes, (us, decimals) in zip(runs, sizes, times):
        check('"bytes":%d,' % nbytes in params, "run %d parameters %s" % (run, params))
        c = con.execute("SELECT duration_ns FROM collective_summary WHERE run_id = ?",
                        (run,)).fetchall()
        check(len(c) == 1 and abs(c[0][0] / 1e3 - us) <= 0.5 * 10 ** -decimals + 1e-6,
              "run %d: collective %s, printed %g us" % (run, c, us))
    for bad in (["-b", "1X"], ["--op=sendrecv"], ["all_reduce", "--op=all_gather"], ["-q"]):
        options = [a for a in args if a not in words]
        run = subprocess.run([sys.argv[3]] + options + bad + ["--db=" + db + ".bad"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        check(run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
              and run.stderr.startswith("training-net-nccl-tests: "),
              "%s: exit %d, stdout %r, stderr %r" % (bad, run.returncode, run.stdout, run.stderr))


CHECKS = {"training-net-nccl-tests": training_net_nccl_tests, "p2p-study-allreduce": p2p_study_allreduce, "roce-tcp-background": roce_tcp_background,
          "collective-comparison": collective_comparison, "training-net-script": training_net_script}


def main():
    name, db, program, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if os.path.exists(db):
        os.remove(db)
    run = subprocess.run([program] + args + ["--db=" + db], stdout=subprocess.PIPE,
                         universal_newlines=True)
    print(run.stdout, end="")
    check(run.returncode == 0, "%s exited %d" % (name, run.returncode))
    if run.returncode == 0:
        try:
            CHECKS[name](run.stdout, db, args)
        except sqlite3.Error as e:
            failures.append("%s: %s" % (db, e))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
