#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The mesh direct all-reduce that deadlocks under PFC (doc/run-not-finishing.rst).

collective-comparison --topology=mesh:4x4 --bytes=256MiB --mode=packet --algorithms=direct
once ran 408 s of wall time to a simulated-time limit of 47 ms after its ports had paused for
good at 8 ms. Checked here:
  - it exits 1 and prints "PFC deadlock found at T ms" with T at most MAX_SIMULATED_MS;
  - it ends in at most MAX_WALL_S of wall time (a loose guard: the acceptance is 10 s on an
    idle machine; the runners here are shared);
  - the database: the run is 'deadlock', its error text the printed message, simulated_ns the
    detection time; the deadlock table is a closed loop of real cables (each hop's cable
    leads to the next hop's node: link src_node:src_port -> dst_node:dst_port), every hop
    paused before the detection, holding bytes, with its flows named.

  - every SQL block of doc/run-not-finishing.rst's "Queries" runs on that database and
    returns rows; training-net-report lists the cycle hop by hop (and marks it on the heat map);
  - the same run with the watch off and StatsRecorder::StallTimeout=5ms ends 'stalled' 5 ms
    after its last work done or data frame sent, whichever is later (the port samples show
    data frames up to that instant and control frames only after it), and its message names the dependency frontier (NPUs
    waiting for peers' transfers) and how many waits were left out; a training job's stall
    (training-iteration, the same all-reduce as its only layer's wg) names the layer and pass;
  - a generated (LLM) program: its data-parallel direct all-reduce stalls the same way and the
    frontier names the program's node; its ring at flow level, issued after a compute phase
    longer than StallTimeout, completes (the stall clock starts at the wait, not at the last
    work done), and a stalled run's simulated_ns is where it stopped;
  - a single transfer longer than StallTimeout (a 2-NPU ring of 64 MiB, StallTimeout=1ms) is
    not a stall at packet or flow level: its bytes move;
  - with --route-order=dimension-order the same run completes (exit 0, status ok, no deadlock
    row, the order in the run's params, no later than its estimate), and at flow level it takes
    its estimate (the planner and the fluid network route alike); at packet level without
    congestion control (32 MiB: it ends before PFC pauses) it ends within 3 % of its estimate,
    which is what the plan is without a congestion control's or PFC's losses.

usage: deadlock-test.py COLLECTIVE_COMPARISON DB DOC.rst
"""
import os
import re
import sqlite3
import subprocess
import sys
import time

MAX_SIMULATED_MS = 20.0
MAX_WALL_S = 60.0

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# the largest control frame (ACK, CNP, PFC: 60 B here); a data frame carries a payload of 1 KB+
CONTROL_FRAME_MAX = 100


def data_frames(sql, since_us, after):
    """port-sample rows holding a data frame: in the intervals up to the instant printed as
    `since_us` (microsecond resolution) from 20 us before it (the last frame's start, or its
    arrival at a NIC a wire time later), or (after) in the intervals begun after it"""
    since = since_us * 1000
    where = ("time_ns - interval_ns >= ?" if after else
             "time_ns - interval_ns < ? AND time_ns > %d" % (since - 20000))
    return sql.execute("SELECT count(*) FROM port_sample WHERE %s AND tx_bytes > ? * tx_packets"
                       % where, (since + 1000, CONTROL_FRAME_MAX)).fetchone()[0]


def main():
    program, db = sys.argv[1], sys.argv[2]
    if os.path.exists(db):
        os.remove(db)
    start = time.monotonic()
    run = subprocess.run([program, "--topology=mesh:4x4", "--bytes=256MiB", "--mode=packet",
                          "--algorithms=direct", "--db=" + db],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    wall = time.monotonic() - start
    print(run.stdout, end="")
    print(run.stderr, end="", file=sys.stderr)
    check(run.returncode == 1, "exit status %d, not 1" % run.returncode)
    check(wall <= MAX_WALL_S, "%.1f s of wall time" % wall)
    m = re.search(r"PFC deadlock found at ([0-9.]+) ms: a cycle of (\d+) paused ports", run.stdout)
    check(m is not None, "no 'PFC deadlock found' line")
    if m:
        check(float(m.group(1)) <= MAX_SIMULATED_MS, "found at %s ms" % m.group(1))
    sql = sqlite3.connect(db)
    rows = sql.execute("SELECT status, error, simulated_ns FROM run").fetchall()
    check(len(rows) == 1, "%d runs" % len(rows))
    status, error, simulated = rows[0]
    check(status == "deadlock", "status %s" % status)
    check(error is not None and error in run.stdout, "run.error is not the printed message")
    hops = sql.execute("SELECT hop, detected_ns, node_id, port, priority, peer_node_id, peer_port,"
                       " paused_since_ns, queue_bytes, flows FROM deadlock ORDER BY hop").fetchall()
    check(m is None or len(hops) == int(m.group(2)), "%d hops recorded" % len(hops))
    check(len(hops) >= 2, "a cycle has at least two hops")
    for k, h in enumerate(hops):
        hop, detected, node, port, prio, peer, peer_port, since, queued, flows = h
        nxt = hops[(k + 1) % len(hops)]
        check(hop == k, "hops numbered 0..n-1")
        check(detected == simulated, "simulated_ns %s is not the detection %s" % (simulated, detected))
        check(peer == nxt[2], "hop %d leads to node %d, the next hop is on node %d" % (k, peer, nxt[2]))
        cable = sql.execute("SELECT count(*) FROM link WHERE src_node=? AND src_port=? AND"
                            " dst_node=? AND dst_port=?", (node, port, peer, peer_port)).fetchone()[0]
        check(cable == 1, "hop %d: no cable %d:%d -> %d:%d" % (k, node, port, peer, peer_port))
        check(since < detected, "hop %d paused at %d, not before %d" % (k, since, detected))
        check(queued > 0 and flows, "hop %d holds no bytes or names no flow" % k)
        check(prio == 3, "hop %d: priority %d, not the lossless 3" % (k, prio))
    text = open(sys.argv[3], encoding="utf-8").read()
    queries = re.findall(r"\.\. code-block:: sql\n\n((?:   .*\n|\n)+)", text[text.find("\nQueries\n"):])
    check(len(queries) >= 3, "%d queries in %s" % (len(queries), sys.argv[3]))
    for q in queries:
        sql_text = "\n".join(line[3:] for line in q.splitlines())
        try:
            check(len(sql.execute(sql_text).fetchall()) > 0, "no rows: " + sql_text)
        except sqlite3.Error as e:
            failures.append("%s: %s" % (sql_text, e))
    # the report lists the cycle hop by hop and marks its ports on the run's heat map
    report = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[3]))),
                          "utils", "training-net-report")
    out = db + "-report"
    drawn = subprocess.run([report, db, "-o", out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
    check(drawn.returncode == 0, "report: exit %d, %s" % (drawn.returncode, drawn.stderr))
    page = open(os.path.join(out, "index.html"), encoding="utf-8").read() \
        if drawn.returncode == 0 else ""
    check("PFC deadlock cycle found at %.3f us" % (simulated / 1e3) in page,
          "report: no cycle at the detection time")
    for h in hops:
        check("<td>%d:%d</td><td>%d</td><td>%d:%d</td>" % (h[2], h[3], h[4], h[5], h[6]) in page,
              "report: hop %d (%d:%d waits for %d:%d) not listed" % (h[0], h[2], h[3], h[5], h[6]))
    check(os.path.getsize(os.path.join(out, "heatmap-1.png")) > 0 if drawn.returncode == 0
          else False, "report: no heat map")
    stall_db = db + ".stall"
    if os.path.exists(stall_db):
        os.remove(stall_db)
    run = subprocess.run([program, "--topology=mesh:4x4", "--bytes=256MiB", "--mode=packet",
                          "--algorithms=direct", "--ns3::PfcDeadlockWatch::Enabled=false",
                          "--ns3::StatsRecorder::StallTimeout=5ms", "--db=" + stall_db],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    print(run.stdout, end="")
    check(run.returncode == 1, "stall run: exit status %d, not 1" % run.returncode)
    m = re.search(r"stalled: no work done for 5 ms of simulated time \(since ([0-9.]+) ms", run.stdout)
    check(m is not None, "no 'stalled' line")
    waits = re.findall(r"node (\d+) waits for node (\d+): collective \d+ transfer \d+", run.stdout)
    check(len(waits) == 5, "%d waits named, not the first 5" % len(waits))
    check(re.search(r"and \d+ more", run.stdout) is not None, "no count of the other waits")
    sql = sqlite3.connect(stall_db)
    status, error, simulated = sql.execute("SELECT status, error, simulated_ns FROM run").fetchone()
    check(status == "stalled", "stall run: status %s" % status)
    check(error is not None and error in run.stdout, "stall run: run.error is not the message")
    if m:
        # the recorder ticks every SampleInterval (10 us): the stall is seen within one tick
        stalled_at = (float(m.group(1)) + 5.0) * 1e6
        check(stalled_at <= simulated <= stalled_at + 10000,
              "stalled at %d ns, not 5 ms after %s ms" % (simulated, m.group(1)))
        # 'since': the first tick after the last work done (a transfer ready, a message done)
        # or the last data frame a port sent, whichever is later (the deadlock forms while
        # ports outside its cycle still drain into it)
        last = sql.execute("SELECT max(t) FROM (SELECT max(ready_ns) AS t FROM transfer"
                           " UNION ALL SELECT max(end_ns) FROM flow)").fetchone()[0]
        since_us = round(float(m.group(1)) * 1e3)
        since = since_us * 1e3
        check(last is not None and last <= since + 1000 and
              (since <= last + 10000 or data_frames(sql, since_us, False) > 0),
              "'since' %s ms is neither the tick after the last work done (%s ns) nor the last "
              "data frame" % (m.group(1), last))
        check(data_frames(sql, since_us, True) == 0,
              "data frames sent after 'since' %s ms" % m.group(1))
    # a training job's stall names the layer and pass each pending collective serves
    workload = db + ".workload.txt"
    with open(workload, "w") as f:
        f.write("MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5  ALLREDUCE 268435456 5\n")
    job_db = db + ".job"
    if os.path.exists(job_db):
        os.remove(job_db)
    run = subprocess.run([os.path.join(os.path.dirname(program), "training-iteration"),
                          "--workload=" + workload, "--topology=mesh:4x4", "--algorithm=direct",
                          "--mode=packet", "--engines=baseline",
                          "--ns3::PfcDeadlockWatch::Enabled=false",
                          "--ns3::StatsRecorder::StallTimeout=5ms", "--db=" + job_db],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    check(run.returncode == 1, "training stall: exit status %d, not 1" % run.returncode)
    rows = sqlite3.connect(job_db).execute("SELECT status, error FROM run").fetchall()
    check(len(rows) == 1 and rows[0][0] == "stalled", "training stall: runs %s" % rows)
    check(len(rows) == 1 and re.search(r"waits for node \d+: collective \d+ \(iteration 0, "
                                       r"layer conv1 wg\) transfer", rows[0][1] or "") is not None,
          "training stall: the frontier names no layer and pass: %s" % (rows[0][1] if rows else ""))
    # a generated program: 2 layers of Llama-3-8B's shape, 16 data-parallel replicas
    model = db + ".model.toml"
    with open(model, "w") as f:
        f.write("[model]\nname = \"cut\"\nlayers = 2\nhidden = 4096\nffn_hidden = 14336\n"
                "heads = 32\nkv_heads = 8\nseq_len = 8192\nvocab = 128256\n"
                "bytes_per_element = 2\ngated_ffn = true\n")
    llm_db = db + ".llm"
    llm = [os.path.join(os.path.dirname(program), "training-iteration"), "--model=" + model,
           "--dp=16", "--global_batch=16", "--topology=mesh:4x4",
           "--ns3::StatsRecorder::StallTimeout=5ms", "--db=" + llm_db]
    for mode, algorithm in (("packet", "direct"), ("flow", "ring")):
        if os.path.exists(llm_db):
            os.remove(llm_db)
        run = subprocess.run(llm + ["--mode=" + mode, "--dpAlgorithm=" + algorithm,
                                    "--ns3::PfcDeadlockWatch::Enabled=false"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        rows = sqlite3.connect(llm_db).execute(
            "SELECT status, error, simulated_ns FROM run").fetchall()
        what = "LLM %s %s" % (mode, algorithm)
        if algorithm == "ring":
            check(run.returncode == 0 and rows and rows[0][0] == "ok",
                  "%s: exit %d, runs %s (a false stall?)" % (what, run.returncode, rows))
            continue
        check(run.returncode == 1 and len(rows) == 1 and rows[0][0] == "stalled",
              "%s: exit %d, runs %s" % (what, run.returncode, rows))
        m = re.search(r"since ([0-9.]+) ms.*waits for node \d+: collective \d+ "
                      r"\(llm\.0 node \d+ \(dp\.[a-z.]+\)\) transfer \d+, \d+ bytes, "
                      r"issued at ([0-9.]+) us", rows[0][1] or "") if rows else None
        check(m is not None, "%s: the frontier names no program node: %s" %
              (what, rows[0][1] if rows else ""))
        if m:
            since_us = round(float(m.group(1)) * 1e3)
            since = since_us * 1e3
            issued = float(m.group(2)) * 1e3
            sql = sqlite3.connect(llm_db)
            check(since >= issued - 1e3 and
                  (since - issued <= 1e3 or data_frames(sql, since_us, False) > 0),
                  "%s: the stall clock began at %.0f ns, neither at the wait's issue %.0f ns "
                  "nor at the last data frame" % (what, since, issued))
            check(data_frames(sql, since_us, True) == 0,
                  "%s: data frames sent after the clock began at %.0f ns" % (what, since))
            check(since + 5e6 <= rows[0][2] <= since + 5e6 + 1e4,
                  "%s: simulated_ns %s is not 5 ms after %.0f ns" % (what, rows[0][2], since))
    # one transfer longer than the timeout: its bytes move, no stall
    long_db = db + ".long"
    for mode in ("packet", "flow"):
        if os.path.exists(long_db):
            os.remove(long_db)
        run = subprocess.run([program, "--topology=switch:2", "--bytes=64MiB", "--mode=" + mode,
                              "--algorithms=ring", "--ns3::StatsRecorder::StallTimeout=1ms",
                              "--db=" + long_db],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        sql = sqlite3.connect(long_db)
        status = sql.execute("SELECT status FROM run").fetchall()
        longest = sql.execute("SELECT max(last_byte_ns - issue_ns) FROM transfer").fetchone()[0]
        check(run.returncode == 0 and status == [("ok",)],
              "long transfer, %s: exit %d, runs %s (a false stall?) %s" %
              (mode, run.returncode, status, run.stdout[-300:]))
        check(longest is not None and longest > 2e6,
              "long transfer, %s: the longest transfer took %s ns, not over twice the timeout"
              % (mode, longest))
    dor_db = db + ".dor"
    for mode, extra in (("packet", []), ("flow", []),
                        ("packet", ["--bytes=32MiB", "--ns3::RdmaNic::CongestionControl=none"])):
        if os.path.exists(dor_db):
            os.remove(dor_db)
        run = subprocess.run([program, "--topology=mesh:4x4", "--bytes=256MiB", "--mode=" + mode,
                              "--algorithms=direct", "--route-order=dimension-order",
                              "--db=" + dor_db] + extra,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        print(run.stdout, end="")
        print(run.stderr, end="", file=sys.stderr)
        check(run.returncode == 0, "dimension order, %s: exit status %d" % (mode, run.returncode))
        row = re.search(r"^planned\s+direct\s+([0-9.]+)\s+([0-9.]+)\s", run.stdout, re.M)
        check(row is not None, "dimension order, %s: no result row" % mode)
        sql = sqlite3.connect(dor_db)
        status, params = sql.execute("SELECT status, params_json FROM run").fetchone()
        check(status == "ok", "dimension order, %s: status %s" % (mode, status))
        check('"route_order":"dimension-order"' in params, "dimension order not in " + params)
        check(sql.execute("SELECT count(*) FROM deadlock").fetchone()[0] == 0,
              "dimension order, %s: a deadlock row" % mode)
        if row:
            took, estimate = float(row.group(1)), float(row.group(2))
            check(took >= estimate * 0.999, "%s: %.1f us beats the fluid estimate %.1f us" %
                  (mode, took, estimate))
            if mode == "flow":
                check(abs(took - estimate) <= 1e-3 * estimate,
                      "flow level %.1f us is not its estimate %.1f us" % (took, estimate))
            if extra:
                check(took <= 1.03 * estimate,
                      "packet level without congestion control: %.1f us is not within 3 %% of "
                      "its estimate %.1f us" % (took, estimate))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
