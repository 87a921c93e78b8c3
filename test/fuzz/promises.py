# SPDX-License-Identifier: GPL-2.0-only
"""Generators of fuzz.py for the promises of issue 42 (imported by it, not run alone).

- sampling and time limits: every program that records a run, with a random sample interval
  (1 us .. 1000 s) and no limit, must end 'ok' (a tick that finds the work done is not a run
  gone on too long); with a simulated time limit below the run's length it must end with one
  error line naming the limit and the run 'error';
- signals to the example programs (not only the runner): SIGINT exits 130, SIGTERM 143, with
  "interrupted" as the last line and the run 'aborted' (or, for a signal that comes after the
  run is recorded, the run as recorded and "interrupted after run N was recorded"); each
  interruptible program interrupted just after it printed the line of its last recorded run
  (seed 71's round: the quickstart was killed by the signal, not exit 130);
- the report's inputs: a results database with text in numeric columns, sweeps that are not
  text, params_json that is not an object and no queueing must be drawn (exit 0) with a warning
  naming each row and column it cannot read; a WAL database on a read-only mount is read;
- tn-chakra-convert's bounds and a trace set with more ranks than NPUs.
"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time

INTERVALS = ["1us", "7us", "1ms", "999ms", "1s", "2s", "10s", "1000s"]
LIMITS = ["1ns", "10ns", "100ns"]  # below every valid run below (cc-comparison: 0.5 us)
LIMIT_ERROR = r"simulated time reached"
SAMPLE = "--ns3::StatsRecorder::SampleInterval="
LIMIT = "--ns3::StatsRecorder::SimulatedTimeLimit="


def last_statuses(db, count):
    """The statuses of the last count runs of db, oldest first."""
    con = sqlite3.connect(db, timeout=30)
    try:
        rows = con.execute("SELECT status FROM run ORDER BY run_id DESC LIMIT ?",
                           (count,)).fetchall()
    finally:
        con.close()
    return [r[0] for r in reversed(rows)]


def recording_programs(run, folder, workload):
    """name -> (argv before --db, runs per invocation) of the programs that record runs."""
    wl = run.write("promises-wl.txt", workload)
    small = {
        "training-net-quickstart": (["--topology=ring:4", "--bytes=4KiB"], 1),
        "collective-comparison": (["--topology=ring:4", "--bytes=4KiB",
                                   "--algorithms=ring,direct"], 2),
        "themis-comparison": (["--topology=hier:ring2@100Gbps+switch2@100Gbps", "--bytes=64KiB",
                               "--schedulers=fixed,hierarchical"], 2),
        "cc-comparison": (["--topology=ring:4", "--bytes=4KiB", "--cc=dcqcn"], 1),
        "training-iteration": (["--topology=switch:4", "--workload=" + wl,
                                "--engines=baseline"], 1),
        "p2p-study-allreduce": (["--hosts=4", "--bytes=4KiB"], 1),
    }
    out = {}
    for name, spec in small.items():
        path = os.path.join(folder, name) if folder else ""
        if path and os.access(path, os.X_OK):
            out[name] = (path, spec[0], spec[1])
        else:
            print("SKIP %s: not built here (core-only build or no --examples)" % name)
    return out


def sampling_cases(rng, run, folder, workload, scale):
    """Sample intervals and simulated time limits on every program that records a run."""
    progs = recording_programs(run, folder, workload)
    for name, (path, argv, runs) in sorted(progs.items()):
        for k in range(3 * scale):
            db = os.path.join(run.tmp, "sampling-%s-%d.db" % (name, k))
            interval = INTERVALS[(k + rng.randrange(len(INTERVALS))) % len(INTERVALS)]
            if k == 0:
                interval = "1s"  # the case issue 42 found: 1 s, the least limit of a run
            before = run.failures[:]
            run.run([path] + argv + ["--db=" + db, SAMPLE + interval], invalid=False, db=db)
            if run.failures == before:
                statuses = last_statuses(db, runs)
                if statuses != ["ok"] * runs:
                    run.failures.append("%s %s: runs recorded %s, expected ok" %
                                        (name, SAMPLE + interval, statuses))
        if name == "p2p-study-allreduce":
            continue  # it sets no limit of its own; the attribute's case is below
        for k in range(2 * scale):
            db = os.path.join(run.tmp, "limit-%s-%d.db" % (name, k))
            limit = rng.choice(LIMITS)
            interval = rng.choice(INTERVALS)
            before = run.failures[:]
            run.run([path] + argv + ["--db=" + db, SAMPLE + interval, LIMIT + limit],
                    invalid=True, db=db, expect=LIMIT_ERROR)
            if run.failures == before and "error" not in last_statuses(db, runs):
                run.failures.append("%s %s: no run recorded 'error' (%s)" %
                                    (name, LIMIT + limit, last_statuses(db, runs)))
    path = progs.get("p2p-study-allreduce")
    if path:
        db = os.path.join(run.tmp, "limit-p2p.db")
        run.run([path[0]] + path[1] + ["--db=" + db, LIMIT + "1us"], invalid=True, db=db,
                expect=LIMIT_ERROR)
    themis = progs.get("themis-comparison")
    if themis:
        # one NPU: nothing to reduce, refused at set-up (it printed -nan rows)
        db = os.path.join(run.tmp, "themis-one.db")
        run.run([themis[0], "--topology=leafspine:leaves=1,spines=1,hosts=1", "--db=" + db],
                invalid=True, db=db, expect="at least 2")


LONG = {
    "training-net-quickstart": ["--topology=torus:4x4", "--bytes=64MiB"],
    "training-iteration": ["--topology=switch:8"],
    "themis-comparison": ["--topology=hier:ring4@100Gbps+switch4@100Gbps", "--bytes=256MiB"],
    "collective-comparison": ["--topology=torus:4x4", "--bytes=64MiB", "--algorithms=ring"],
    "cc-comparison": ["--topology=torus:4x4", "--bytes=64MiB", "--cc=dcqcn"],
}


def example_signal_cases(rng, run, folder, tries, check_db):
    """A long run of each recording program interrupted: 130 (SIGINT) or 143 (SIGTERM), the
    last line says it was interrupted, every run 'ok' or 'aborted'."""
    names = [n for n in sorted(LONG)
             if folder and os.access(os.path.join(folder, n), os.X_OK)]
    if not names:
        print("SKIP example signals: no example programs here")
        return
    for k in range(tries):
        name = names[k % len(names)]
        sig = [signal.SIGINT, signal.SIGTERM][(k // len(names) + k) % 2]
        db = os.path.join(run.tmp, "example-signal-%d.db" % k)
        delay = rng.uniform(0.8, 1.6)
        run.runs += 1
        # the programs read their default data from the module folder (training-iteration)
        top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        p = subprocess.Popen([os.path.join(folder, name)] + LONG[name] + ["--db=" + db],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, cwd=top, start_new_session=True)
        time.sleep(delay)
        try:
            os.kill(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            out, _ = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            run.failures.append("%s: %s did not end" % (name, signal.Signals(sig).name))
            continue
        text = out.decode("utf-8", "replace")
        lines = [l for l in text.splitlines() if l.strip()]
        what = "%s, %s at %.2f s" % (name, signal.Signals(sig).name, delay)
        want = 128 + sig
        problem = check_db(db)
        if problem is None and p.returncode != want:
            if p.returncode == 0:
                print("NOTE %s: the run had ended already" % what)
                continue
            problem = "exit %d, expected %d" % (p.returncode, want)
        if problem is None and not (lines and lines[-1].startswith(name + ": interrupted")):
            problem = "the last line is %r, not '%s: interrupted ...'" % (
                lines[-1] if lines else "", name)
        late = lines and re.match(re.escape(name) + r": interrupted after run \d+ was recorded "
                                  r"\(ok\)$", lines[-1])
        if problem is None and last_statuses(db, 1) != (["ok"] if late else ["aborted"]):
            problem = "the run is %s, not %s" % (last_statuses(db, 1), "ok" if late else "aborted")
        if problem:
            run.failures.append("%s: %s (output: %s)" % (
                what, problem, text.strip().replace("\n", " | ")[-300:]))


def late_programs(run, workload):
    """name -> (argv before --db, the line each prints once its last run is recorded) of the
    interruptible programs: a signal at that line comes after the run is recorded."""
    wl = run.write("late-wl.txt", workload)
    return {
        "training-net-quickstart": (["--topology=ring:4", "--bytes=4KiB"],
                                    r"run \d+ recorded in "),
        "collective-comparison": (["--topology=ring:4", "--bytes=4KiB", "--algorithms=ring"],
                                  r"planned\s+ring\s"),
        "themis-comparison": (["--topology=hier:ring2@100Gbps+switch2@100Gbps", "--bytes=64KiB",
                               "--schedulers=hierarchical"], r"hierarchical\s"),
        "cc-comparison": (["--topology=ring:4", "--bytes=4KiB", "--cc=dcqcn"], r"dcqcn\s"),
        "training-iteration": (["--topology=switch:4", "--workload=" + wl,
                                "--engines=baseline"], r"baseline\s"),
        "p2p-study-allreduce": (["--hosts=4", "--bytes=4KiB"], r"\S+ all-reduce of \d+ bytes "),
        "p2p-study-stats": (["--seconds=1"], r"run \d+ recorded in "),
        "roce-tcp-background": (["--topology=switch:4", "--bytes=4KiB", "--loads=0"],
                                r"\s*0\.00\s"),
    }


def late_signal_cases(run, folder, check_db, workload, tries=2):
    """Each interruptible program interrupted (SIGINT) as soon as it prints the line of its last
    recorded run (astra-sim-compat: fuzz_astra, on its input set)."""
    for name, (argv, trigger) in sorted(late_programs(run, workload).items()):
        path = os.path.join(folder, name) if folder else ""
        if not (path and os.access(path, os.X_OK)):
            print("SKIP late signals: no %s here" % name)
            continue
        late_signal_case(run, path, argv, trigger, check_db, tries)


def default_signals():
    """SIGINT and SIGTERM as a terminal's foreground program has them: a fuzz started in the
    background of a shell without job control (nohup, &) ignores SIGINT, and its children
    inherit that; a program that does not catch the signal would then let it pass unseen, and
    the case would test nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def late_signal_case(run, path, argv, trigger, check_db, tries=2, db_option="--db="):
    """The program at path with argv, interrupted (SIGINT) as soon as a line matches trigger
    (printed once its last run is recorded): the run stays 'ok' and the program exits 130 with
    one last line saying so (or 0 if it was gone first); never killed by the signal (seed 71's
    round: the quickstart exited -2), and the run never lost as 'aborted' (the comparison
    programs printed a run's row before they recorded it). Standard output line-buffered
    (stdbuf): the rows are printf's."""
    name = os.path.basename(path)
    path = os.path.abspath(path)  # it runs in run.tmp
    stdbuf = shutil.which("stdbuf")
    if not stdbuf and "recorded in" not in trigger:
        print("SKIP late signals of %s: no stdbuf to see its rows as they come" % name)
        return
    for k in range(tries):
        db = os.path.join(run.tmp, "late-signal-%s-%d.db" % (name, k))
        run.runs += 1
        p = subprocess.Popen(([stdbuf, "-oL"] if stdbuf else []) + [path] + argv +
                             [db_option + db],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, cwd=run.tmp, start_new_session=True,
                             preexec_fn=default_signals)
        out = b""
        sent = False
        for raw in p.stdout:
            out += raw
            if re.match(trigger, raw.decode("utf-8", "replace")):
                try:
                    os.kill(p.pid, signal.SIGINT)
                    sent = True
                except ProcessLookupError:
                    pass
                break
        try:
            rest, _ = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rest, _ = p.communicate()
        text = (out + rest).decode("utf-8", "replace")
        lines = [l for l in text.splitlines() if l.strip()]
        problem = check_db(db)
        want = r"%s: interrupted after run \d+ was recorded \(ok\)$" % re.escape(name)
        if problem is None and not sent and p.returncode == 0:
            problem = "no line matched %r: the case tests nothing" % trigger
        elif problem is None and p.returncode not in (0, 130):
            problem = "exit %d, expected 130 (or 0: it had ended)" % p.returncode
        elif problem is None and p.returncode == 130 and not (lines and
                                                             re.match(want, lines[-1])):
            problem = "the last line is %r" % (lines[-1] if lines else "")
        if problem is None and last_statuses(db, 1) != ["ok"]:
            problem = "the run is %s, not ok" % last_statuses(db, 1)
        if problem:
            run.failures.append("%s, SIGINT after its run was recorded: %s (output: %s)" % (
                name, problem, text.strip().replace("\n", " | ")[-300:]))


NUMERIC = {
    "collective": ["bytes", "busbw_Bps", "collective_id"],
    "port_sample": ["time_ns", "interval_ns", "utilisation", "paused_ns", "node_id", "port"],
    "flow": ["slowdown"],
    "run": ["simulated_ns", "wall_seconds"],
    "link": ["dim"],
}
PARAMS = ['{"sweep": [1, 2]}', '{"sweep": {"a": 1}}', '{"sweep": 7}', '[1, 2]', '"text"',
          '{"topology": ["a"], "sweep": null}', 'not json', '{"sweep": "\\u0007bell"}']


def report_input_cases(rng, run, report, source, scale):
    """Damaged values in a valid database: drawn, each unreadable one named, exit 0."""
    for k in range(6 * scale):
        path = os.path.join(run.tmp, "report-values-%d.db" % k)
        shutil.copyfile(source, path)
        con = sqlite3.connect(path)
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        named = []
        for _ in range(rng.randint(1, 4)):
            table = rng.choice(sorted(NUMERIC))
            if table not in tables:
                continue
            column = rng.choice(NUMERIC[table])
            text = rng.choice(["fast", "", "1e999x", "\x01", "12 KB", "NaN"])
            con.execute("UPDATE %s SET %s = ? WHERE rowid IN (SELECT rowid FROM %s"
                        " ORDER BY random() LIMIT 1)" % (table, column, table), (text,))
            named.append(column)
        if k % 2 == 0:
            con.execute("UPDATE run SET params_json = ? WHERE run_id = 1",
                        (rng.choice(PARAMS),))
        if k % 3 == 0:
            # no queueing: the heatmap says so
            con.execute("UPDATE port_sample SET q0_bytes = 0, q1_bytes = 0, q2_bytes = 0,"
                        " q3_bytes = 0, q4_bytes = 0, q5_bytes = 0, q6_bytes = 0, q7_bytes = 0")
        con.commit()
        con.close()
        out = os.path.join(run.tmp, "report-values-out-%d" % k)
        run.run([report, path, "-o", out], invalid=None)
    # the two values issue 42 found, each named by its row and column, the rest drawn
    path = os.path.join(run.tmp, "report-named.db")
    shutil.copyfile(source, path)
    con = sqlite3.connect(path)
    con.execute("UPDATE run SET params_json = '{\"sweep\": [\"a\", 1]}' WHERE run_id = 1")
    # a second collective that stays readable: the figure is drawn from it
    con.execute("CREATE TEMP TABLE c2 AS SELECT * FROM collective WHERE run_id = 1")
    con.execute("UPDATE c2 SET collective_id = collective_id + 1000")
    con.execute("INSERT INTO collective SELECT * FROM c2")
    con.execute("UPDATE collective SET busbw_Bps = 'fast' WHERE run_id = 1 AND collective_id = 1")
    con.commit()
    con.close()
    run.runs += 1
    out = os.path.join(run.tmp, "report-named-out")
    p = subprocess.run([report, path, "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    err = p.stderr.decode("utf-8", "replace")
    wanted = [r"run 1, column params_json: .*sweep is a list",
              r"collective row \(run 1, collective 1\), column busbw_Bps: cannot read 'fast'"]
    missing = [w for w in wanted if not re.search(w, err)]
    if p.returncode != 0 or missing or not os.path.exists(os.path.join(out, "busbw.png")):
        run.failures.append("training-net-report on sweep list and text busbw: exit %d, "
                            "missing %s (stderr: %s)" % (p.returncode, missing, err[:300]))
    read_only_case(run, report, source)


def read_only_case(run, report, source):
    """A closed WAL database on a read-only mount (needs mount rights: root or a user
    namespace); it used to be called 'not a training-net database'."""
    folder = os.path.join(run.tmp, "ro-src")
    mount = os.path.join(run.tmp, "ro-mnt")
    os.makedirs(folder, exist_ok=True)
    os.makedirs(mount, exist_ok=True)
    shutil.copyfile(source, os.path.join(folder, "w.db"))
    con = sqlite3.connect(os.path.join(folder, "w.db"))
    wal = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    con.close()
    if wal != "wal" or not shutil.which("unshare"):
        print("SKIP read-only WAL database: no WAL or no unshare")
        return
    script = ('mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 77; '
              'touch "$2/x" 2>/dev/null && exit 77; exec "$3" "$2/w.db" -o "$4"')
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    out = os.path.join(run.tmp, "ro-out")
    run.runs += 1
    p = subprocess.run(prefix + ["sh", "-c", script, "sh", folder, mount, report, out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if p.returncode == 77 or (p.returncode != 0 and b"training-net-report" not in p.stderr):
        print("SKIP read-only WAL database: cannot mount read-only here")
        return
    if p.returncode != 0:
        run.failures.append("training-net-report on a WAL database on a read-only mount: exit "
                            "%d (%s)" % (p.returncode, p.stderr.decode("utf-8", "replace")[:300]))


CHAKRA_SCENARIO = """name = "chakra-extra"
[topology]
spec = "switch:4"
[training]
chakra = "%s"
iterations = 1
"""


def chakra_convert_cases(run, convert, runner, workload):
    """tn-chakra-convert within bounds; a trace set with more ranks than NPUs refused."""
    if not convert or not os.access(convert, os.X_OK):
        print("SKIP tn-chakra-convert: not built here")
        return
    wl = run.write("chakra-wl.txt", workload)
    folder = os.path.join(run.tmp, "chakra-out")
    os.makedirs(folder, exist_ok=True)
    for args in [["4294967295", os.path.join(folder, "n")], ["65537", os.path.join(folder, "n")],
                 ["2", ""], ["2", folder + "/"], ["0", os.path.join(folder, "n")]]:
        run.run([convert, wl] + args, invalid=True)
    if os.listdir(folder):
        run.failures.append("tn-chakra-convert: a refusal wrote %s" % os.listdir(folder)[:5])
    prefix = os.path.join(folder, "eight")
    before = run.failures[:]
    run.run([convert, wl, "8", prefix], invalid=False)
    if run.failures != before or not runner:
        return
    if not os.path.exists(prefix + ".0.et"):
        print("SKIP Chakra trace sets: this build reads no Chakra traces (no protobuf-c)")
        return
    scen = run.write("chakra-extra.toml", CHAKRA_SCENARIO % prefix)
    db = os.path.join(run.tmp, "chakra-extra.db")
    run.run([runner, scen, "--db", db], invalid=True, db=db, expect=r"eight\.4\.et: .*more ranks")
