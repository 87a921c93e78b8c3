#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""NCCL's model against measured clusters: the rows of doc/nccl-validation.rst, re-run.

For every row of the page's table with a command in its command block, runs
training-net-nccl-tests all_reduce -b SIZE -e SIZE --mode=flow --algorithm=nccl COMMAND, reads
the busbw it prints (at 64 KiB and below the time in us: nccl-tests prints busbw with two
decimals, 0.00 to 0.5 GB/s there, so those rows give times; their error is still the busbw's,
measured time / our time - 1) and fails when
  - the error (ours - measured) / measured passes the goal: 10 % at 64 MiB and above, 25 % at
    64 KiB and below (a row between the two has no goal and is refused);
  - a row whose error the page marks "(miss)" comes within the goal: the page says it misses
    and why, so a model that now meets it must update the page;
  - the page's "ours" is more than 0.5 % off the run, or its error more than 0.15 points off:
    the page says what the program prints;
  - a row names no source (the source column is empty);
  - a row the page marks "not run" (a model it lacks) is not refused with one error line naming
    what is not modelled;
  - the database's collective row does not record the choice as nccl:ALGO:PROTO with PROTO its
    protocol column and channels >= 1, or a row whose setup names NVLS (NVLS-tree) ran another
    algorithm;
  - a row whose setup names NVLS (NVLS-tree), run again with 2 GPUs a server, where NCCL turns
    NVLS off: forced, it is not refused with one error line and a non-zero exit; with the
    tuner's choice, the database records NVLS (NVLS-tree) or the run fails.

usage: nccl-validation-test.py PROGRAM PAGE DB
"""
import os
import re
import sqlite3
import subprocess
import sys

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def table(text):
    """Rows of the page's first simple table: dicts by header name."""
    lines = text.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"=+( +=+)+", line)]
    top, head, bottom = borders[0], borders[1], borders[2]
    spans = [m.span() for m in re.finditer(r"=+", lines[top])]

    def cells(line):
        out = []
        for k, (a, b) in enumerate(spans):
            end = len(line) if k == len(spans) - 1 else b
            out.append(line[a:end].strip())
        return out

    names = cells(lines[top + 1])
    assert head == top + 2, "one header line"
    return [dict(zip(names, cells(line))) for line in lines[head + 1:bottom] if line.strip()]


def commands(text):
    """The command block: row name -> its arguments."""
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"   (\S+) +(--\S.*)", line)
        if m:
            out[m.group(1)] = m.group(2).split()
    return out


def size_bytes(size):
    number, unit = size.split()
    return int(number) * UNITS[unit]


def recorded(name, db, want):
    """Failures of the newest collective row of db: the choice, its protocol and channels, and
    the algorithm the setup names (want: "nvls", "nvlstree" or None)."""
    con = sqlite3.connect(db)
    try:
        got = con.execute("SELECT algorithm, protocol, channels FROM collective "
                          "ORDER BY run_id DESC, collective_id DESC LIMIT 1").fetchone()
    finally:
        con.close()
    if got is None:
        return [f"{name}: no collective row in the database"]
    algorithm, protocol, channels = got
    m = re.fullmatch(r"nccl:(ring|tree|nvls|nvlstree|collnet):(ll|ll128|simple)", algorithm or "")
    if not m or m.group(2) != protocol or not channels or channels < 1:
        return [f"{name}: the database records {algorithm}, protocol {protocol}, "
                f"{channels} channels"]
    if want and m.group(1) != want:
        return [f"{name}: the setup is {want}, the database records {algorithm}"]
    return []


def nvls_off(name, program, size, args, want, db):
    """Failures of a row of NVLS (want: "nvls" or "nvlstree") run with 2 GPUs a server: NCCL
    turns NVLS off there, so the forced algorithm is refused and the tuner never picks it."""
    base = [program, "all_reduce", "-b", str(size), "-e", str(size), "--mode=flow", "--db=" + db]
    base += [a for a in args if not a.startswith(("--ngpus=", "--algorithm="))] + ["--ngpus=2"]
    failures = []
    run = subprocess.run(base + ["--algorithm=nccl:" + want], capture_output=True, text=True)
    lines = [l for l in run.stderr.splitlines() if l.strip()]
    if run.returncode == 0 or len(lines) != 1 or "2 GPUs or fewer" not in lines[0]:
        failures.append(f"{name}: nccl:{want} on 2 GPUs a server: expected one error line "
                        f"saying NCCL turns it off, got exit {run.returncode}: "
                        f"{run.stderr.strip()}")
    run = subprocess.run(base + ["--algorithm=nccl"], capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(f"{name}: nccl on 2 GPUs a server: exit {run.returncode}: "
                        f"{run.stderr.strip()}")
    else:
        failures += [f + " (2 GPUs a server: NCCL turns NVLS off)"
                     for f in recorded(name, db, None)]
        con = sqlite3.connect(db)
        try:
            got = con.execute("SELECT algorithm FROM collective "
                              "ORDER BY run_id DESC, collective_id DESC LIMIT 1").fetchone()
        finally:
            con.close()
        if got and re.fullmatch(r"nccl:nvls(tree)?:.*", got[0] or ""):
            failures.append(f"{name}: on 2 GPUs a server the tuner ran {got[0]}")
    return failures


def main():
    program, page, db = sys.argv[1:4]
    text = open(page, encoding="utf-8").read()
    rows = table(text)
    args = commands(text)
    failures = []
    checked = 0
    if os.path.exists(db):
        os.remove(db)
    for row in rows:
        name = row["row"]
        if name not in args:
            failures.append(f"{name}: no command in the page's command block")
            continue
        if not row.get("source"):
            failures.append(f"{name}: the row names no source")
            continue
        size = size_bytes(row["size"])
        cmd = [program, "all_reduce", "-b", str(size), "-e", str(size), "--mode=flow",
               "--algorithm=nccl", "--db=" + db] + args[name]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if row["error"] == "not run":
            lines = [l for l in run.stderr.splitlines() if l.strip()]
            if run.returncode == 0 or len(lines) != 1 or "not modelled" not in lines[0]:
                failures.append(f"{name}: expected one error line saying what is not modelled, "
                                f"got exit {run.returncode}: {run.stderr.strip()}")
            checked += 1
            continue
        if run.returncode != 0:
            failures.append(f"{name}: exit {run.returncode}: {run.stderr.strip()}")
            continue
        small = size <= 64 << 10
        unit = "us" if small else "GB/s"
        figure = None
        for line in run.stdout.splitlines():
            fields = line.split()
            if fields and fields[0] == str(size):
                figure = float(fields[5] if small else fields[7])
        if figure is None:
            failures.append(f"{name}: no row of {size} bytes in the output")
            continue
        measured = float(row["measured"])
        # busbw is size / time times a factor of the GPUs: its error from times is their ratio
        error = (measured / figure - 1 if small else (figure - measured) / measured) * 100
        goal = 10.0 if size >= 64 << 20 else 25.0 if small else None
        miss = "(miss)" in row["error"]
        if goal is None:
            failures.append(f"{name}: {row['size']} is between 64 KiB and 64 MiB: no goal")
        elif abs(error) > goal and not miss:
            failures.append(f"{name}: {figure:.2f} {unit} against {measured} measured: "
                            f"error {error:+.1f} % passes the goal of {goal:.0f} %")
        elif abs(error) <= goal and miss:
            failures.append(f"{name}: the page marks a miss, the run's error {error:+.1f} % "
                            f"is within the goal of {goal:.0f} %")
        setup = row.get("setup", "")
        want = "nvlstree" if "NVLS-tree" in setup else "nvls" if "NVLS" in setup else None
        failures += recorded(name, db, want)
        if want:
            failures += nvls_off(name, program, size, args[name], want, db)
        page_ours = float(row["ours"])
        if abs(page_ours - figure) > 0.005 * figure:
            failures.append(f"{name}: the page says {page_ours}, the run prints {figure:.2f}")
        page_error = float(row["error"].replace("(miss)", "").replace("%", "").strip())
        if abs(page_error - error) > 0.15:
            failures.append(f"{name}: the page's error {page_error:+.1f} % is not the run's "
                            f"{error:+.1f} %")
        print(f"{name:12} {row['size']:>8} measured {measured:7.2f} ours {figure:7.2f} {unit:4} "
              f"error {error:+5.1f} %{' (miss)' if miss else ''}")
        checked += 1
    if checked == 0:
        failures.append("no row was checked")
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
