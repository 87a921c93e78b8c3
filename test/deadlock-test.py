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
    returns rows.

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
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
