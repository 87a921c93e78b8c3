#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The query cookbook of doc/results-database.rst, run against a real database.

Fills a scratch database with the examples' runs (a collective on a torus, algorithms side by
side, a training iteration, an LLM training iteration, Themis at run time against the fixed
order), then runs every
``.. code-block:: sql`` of the cookbook section: each must run without an SQL error and return
at least one row. The section must hold at least ten queries (issue 7). The congestion-control
rows of the cc-comparison runs must also hold the controls' invariants (cc_invariants).

usage: query-cookbook-test.py DOC.rst EXAMPLES_DIR WORKLOAD SCRATCH_DIR
"""
import os
import re
import sqlite3
import subprocess
import sys


def cookbook_queries(doc_path):
    """The SQL blocks of the 'Query cookbook' section, with the question before each."""
    text = open(doc_path, encoding="utf-8").read()
    start = text.find("Query cookbook\n")
    if start < 0:
        sys.exit(f"{doc_path}: no 'Query cookbook' section")
    section = text[start:]
    queries = []
    question = ""
    lines = section.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^\d+\. ", line):
            question = line
        if line.strip() == ".. code-block:: sql":
            i += 1
            block = []
            while i < len(lines) and (lines[i].startswith("   ") or not lines[i].strip()):
                block.append(lines[i][3:])
                i += 1
            queries.append((question, "\n".join(block).strip()))
            continue
        i += 1
    return queries


def run(cmd, cwd=None):
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=cwd)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stderr}")


def cc_invariants(sql):
    """The congestion-control rows of the cc-comparison runs hold what the controls promise:
    every CNP DCQCN's receivers sent reached its sender, and a DCQCN queue pair cuts its rate
    at most once per CNP; HPCC sends no CNP and moves its windows; under none the marks arrive
    but nothing reacts (no CNP, no rate cut, no window)."""
    failures = []
    per_cc = {}
    for cc, sent, received, cuts, windows, rows in sql.execute(
            "SELECT json_extract(r.params_json, '$.cc'), sum(q.cnps_sent),"
            " sum(q.cnps_received), sum(q.rate_cuts), sum(q.window_updates), count(q.qpn)"
            " FROM run r LEFT JOIN cc_qp q USING (run_id) WHERE r.name = 'cc-comparison'"
            " GROUP BY r.run_id"):
        per_cc[cc] = (sent or 0, received or 0, cuts or 0, windows or 0, rows)
    if sorted(per_cc) != ["dcqcn", "hpcc", "none"]:
        return [f"cc-comparison runs: {sorted(per_cc)}, expected dcqcn, hpcc and none"]
    sent, received, cuts, _, _ = per_cc["dcqcn"]
    if sent != received:
        failures.append(f"dcqcn: {sent} CNPs sent, {received} received")
    over = sql.execute("SELECT count(*) FROM cc_qp WHERE control = 'dcqcn'"
                       " AND rate_cuts > cnps_received").fetchone()[0]
    if over:
        failures.append(f"dcqcn: {over} queue pairs cut their rate more often than told")
    sent, received, _, windows, rows = per_cc["hpcc"]
    if sent or received or windows <= rows:
        failures.append(f"hpcc: {sent}/{received} CNPs, {windows} window updates of {rows} QPs")
    if any(per_cc["none"][:4]):
        failures.append(f"none: CNPs sent/received, rate cuts, windows {per_cc['none'][:4]}")
    mismatch = sql.execute(
        "SELECT count(*) FROM (SELECT run_id, sum(cnps_sent) AS s, sum(rate_cuts) AS c"
        " FROM cc_sample GROUP BY run_id) a JOIN (SELECT run_id, sum(cnps_sent) AS s,"
        " sum(rate_cuts) AS c FROM cc_qp GROUP BY run_id) b USING (run_id)"
        " WHERE a.s != b.s OR a.c != b.c").fetchone()[0]
    if mismatch:
        failures.append(f"cc_sample and cc_qp disagree on CNPs or rate cuts in {mismatch} runs")
    # each run names what it compared: the control's class and parameters as made (the
    # command line's TargetUtilization=0.9 included), and the settings all of them share
    for cc, params, shared in sql.execute(
            "SELECT json_extract(params_json, '$.cc'), json_extract(params_json,"
            " '$.cc_parameters'), json_extract(params_json, '$.shared_parameters')"
            " FROM run WHERE name = 'cc-comparison'"):
        expected = {"dcqcn": "ns3::RdmaDcqcnControl G=", "none": "no congestion control",
                    "hpcc": "ns3::RdmaHpcc TargetUtilization=0.9 "}[cc]
        if not (params or "").startswith(expected):
            failures.append(f"{cc}: parameters {params!r}, expected {expected!r}...")
        if "ns3::RdmaNic Mtu=" not in (shared or "") or "EcnKmin=" not in (shared or ""):
            failures.append(f"{cc}: shared parameters {shared!r}")
    return failures


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    doc, examples, workload, scratch = sys.argv[1:]
    os.makedirs(scratch, exist_ok=True)
    db = os.path.abspath(os.path.join(scratch, "query-cookbook.db"))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    run([os.path.join(examples, "collective-comparison"), f"--db={db}", "--topology=torus:4x4",
         "--algorithms=multitree,ring", "--bytes=256KiB"])
    run([os.path.join(examples, "training-net-quickstart"), f"--db={db}",
         "--topology=switch:8", "--bytes=1MiB"])
    run([os.path.join(examples, "training-iteration"), f"--db={db}", f"--workload={workload}",
         "--topology=switch:4"])
    # a generated LLM program (TP, PP, DP), run from the scratch folder: the shipped presets are
    # found from any working directory (an ns-3 tree's users run from the tree's top)
    run([os.path.join(examples, "training-iteration"), f"--db={db}", "--model=llama3-8b",
         "--tp=2", "--pp=2", "--dp=2", "--global_batch=8", "--mode=flow",
         "--topology=hier:switch2@2880Gbps+switch4@400Gbps"],
        cwd=scratch)
    run([os.path.join(examples, "themis-comparison"), f"--db={db}",
         "--topology=hier:switch2@800Gbps+switch2@400Gbps", "--bytes=256KiB", "--chunks=4",
         "--schedulers=fixed,themis-scf"])
    # congestion controls side by side on the example's oversubscribed leaf-spine
    run([os.path.join(examples, "cc-comparison"), f"--db={db}", "--cc=dcqcn,hpcc,none",
         "--bytes=1MiB", "--ns3::RdmaHpcc::TargetUtilization=0.9"])
    queries = cookbook_queries(doc)
    failures = []
    if len(queries) < 10:
        failures.append(f"the cookbook has {len(queries)} queries, at least 10 expected")
    sql = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    for question, query in queries:
        try:
            rows = sql.execute(query).fetchall()
        except sqlite3.Error as e:
            failures.append(f"{question}\n  SQL error: {e}")
            continue
        if not rows:
            failures.append(f"{question}\n  no rows")
        else:
            print(f"ok ({len(rows)} rows): {question}")
    failures += cc_invariants(sql)
    if sql.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        failures.append("integrity_check failed")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
