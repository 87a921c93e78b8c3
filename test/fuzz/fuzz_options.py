# SPDX-License-Identifier: GPL-2.0-only
"""The user-facing options walk of fuzz.py (issue 42; imported by it, not run alone).

Every option a program's --help lists and every attribute of the TrainingNet TypeIds
(--PrintGroup=TrainingNet, then --PrintAttributes) is given values a user may type by mistake
(negative, zero, past 2^64, past a double, not a number, empty), on a small run of the program
(attributes on the quickstart). Each run must end by itself with no signal: ok, or one error
line naming what it refuses (Runner.run with invalid=None). This is the test behind the
acceptance "every NS_ABORT of model/ and helper/ is an internal invariant": no user-facing
value reaches one.
"""
import os
import re
import subprocess

# a small run of each program, the walked option added to it (None: the program is skipped)
BASE = {
    "training-net-quickstart": ["--topology=ring:4", "--bytes=4KiB"],
    "collective-comparison": ["--topology=ring:4", "--bytes=4KiB", "--algorithms=ring"],
    "training-iteration": ["--topology=switch:4"],
    "themis-comparison": ["--topology=hier:ring2@100Gbps+switch2@100Gbps", "--bytes=64KiB",
                          "--schedulers=fixed"],
    "cc-comparison": ["--topology=ring:4", "--bytes=4KiB", "--cc=dcqcn"],
    "p2p-study-allreduce": ["--hosts=4", "--bytes=4KiB"],
    "roce-distributed": ["--case=collective", "--topology=ring:4", "--algorithm=ring",
                         "--bytes=4096"],
}
# options not worth a run each: where the run writes (the database is set by every case)
SKIP = {"db", "out", "pcap", "fct"}
NUMBERS = ["0", "-1", "1", "18446744073709551616", "1e308", "nan", "abc", ""]
BY_KIND = {
    "time": ["0s", "-1ns", "1e300s", "18446744073709551616ns", "1", "abc"],
    "rate": ["0bps", "1bps", "1e30bps", "-1Gbps", "Gbps", "abc"],
    "bool": ["maybe", "2", ""],
    "number": NUMBERS,
    "text": ["", "nope", "-1", "0", "\u00e9"],
}


def kind(default):
    """The kind of an attribute or option from its default, as --help prints it."""
    if re.fullmatch(r"[+-]?[0-9.e+]+(ns|us|ms|s|min|h|d|ps|fs)", default):
        return "time"
    if re.fullmatch(r"[0-9.e+]+(bps|kbps|Mbps|Gbps|Kb/s|Mb/s|Gb/s)", default):
        return "rate"
    if default in ("true", "false"):
        return "bool"
    if re.fullmatch(r"[+-]?[0-9.e+]+", default):
        return "number"
    return "text"


def listing(argv, pattern):
    """The (name, default) pairs that pattern finds in the output of argv."""
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return re.findall(pattern, out.decode("utf-8", "replace"), re.M)


def options_walk(rng, run, folder, scale):
    """Every program option and TrainingNet attribute with values users may mistype."""
    for name, base in sorted(BASE.items()):
        # a database per program: a failure does not leave the next program's runs one
        db = "--db=" + os.path.join(run.tmp, "options-%s.db" % name)
        prog = os.path.join(folder, name) if folder else ""
        if not prog or not os.access(prog, os.X_OK):
            print("SKIP options of %s: not built here" % name)
            continue
        opts = listing([prog, "--help"], r"^    --([A-Za-z][\w-]*):.*?(?:\[(.*)\])?$")
        for opt, default in opts:
            if opt in SKIP or opt.startswith("Print"):
                continue
            for value in rng.sample(BY_KIND[kind(default)], min(scale, 2)):
                run.run([prog] + base + [db, "--%s=%s" % (opt, value)], invalid=None,
                        db=db[5:])
    quick = os.path.join(folder, "training-net-quickstart") if folder else ""
    if not quick or not os.access(quick, os.X_OK):
        return
    db = "--db=" + os.path.join(run.tmp, "options-attributes.db")
    types = listing([quick, "--PrintGroup=TrainingNet"], r"^    (ns3::\w+)$")
    for tid in types:
        attrs = listing([quick, "--PrintAttributes=" + tid],
                        r"^    --(ns3::\w+::\w+)=\[(.*)\]$")
        for attr, default in attrs:
            for value in rng.sample(BY_KIND[kind(default)], min(scale, 2)):
                run.run([quick] + BASE["training-net-quickstart"] +
                        [db, "--%s=%s" % (attr, value)], invalid=None, db=db[5:])
