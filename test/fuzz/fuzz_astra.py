# SPDX-License-Identifier: GPL-2.0-only
"""Fuzz generator of issue 38 for fuzz.py: ASTRA-sim 2 input sets (the network YAML, the system
JSON, the comm-group and remote-memory JSON) mutated byte by byte and run by astra-sim-compat
on Chakra traces written by fuzz_chakra. Every run must end by itself; a refused one in one
error line naming the file or the flag at fault (fuzz.Runner), leaving no database behind.
"""
import os

import fuzz_chakra

NETWORK = "topology: [ Ring, Switch ]  # per dimension\nnpus_count: [ 2, 2 ]\n" \
          "bandwidth: [ 50.0, 25.0 ]  # GB/s\nlatency: [ 500.0, 936.25 ]  # ns\n"
SYSTEM = """{
    "scheduling-policy": "LIFO",
    "endpoint-delay": 10,
    "active-chunks-per-dimension": 1,
    "preferred-dataset-splits": 4,
    "all-reduce-implementation": ["ring", "direct"],
    "all-gather-implementation": ["oneRing", "oneRing"],
    "reduce-scatter-implementation": ["halvingDoubling", "direct"],
    "all-to-all-implementation": ["direct", "direct"],
    "collective-optimization": "localBWAware",
    "local-mem-bw": 1600,
    "roofline-enabled": 1,
    "peak-perf": 900
}
"""
GROUPS = "{\n    \"1\": [0, 1],\n    \"2\": [3, 2]\n}\n"
REMOTE = '{\n    "memory-type": "NO_MEMORY_EXPANSION"\n}\n'
# what an error line names: one of the files, or a flag
EXPECT = r"^astra-sim-compat: (net\.yml|sys\.json|groups\.json|remote\.json|--)"


def astra_cases(rng, run, prog, mutate, scale):
    """prog: the astra-sim-compat program; mutate(rng, text) -> bytes (fuzz.mutate_text)."""
    if not os.path.exists(prog):
        print("SKIP astra-sim-compat: not built")
        return
    ranks = [fuzz_chakra.collective_rank(c, s, before=100)
             for c, s in [(fuzz_chakra.ALL_REDUCE, 4096)] * 4]
    prefix = fuzz_chakra.write_traces(run, "astra", ranks)
    files = {"net.yml": NETWORK, "sys.json": SYSTEM, "groups.json": GROUPS,
             "remote.json": REMOTE}
    cwd = os.getcwd()
    os.chdir(run.tmp)  # the error lines name the files as given
    try:
        def once(texts, invalid, mode="flow"):
            for name, text in texts.items():
                run.write(name, text)
            db = os.path.join(run.tmp, "astra.db")
            if os.path.exists(db):
                os.remove(db)
            run.run([prog, "--workload-configuration=" + prefix,
                     "--system-configuration=sys.json", "--network-configuration=net.yml",
                     "--comm-group-configuration=groups.json",
                     "--remote-memory-configuration=remote.json", "--mode=" + mode,
                     "--database=" + db], invalid=invalid, expect=EXPECT,
                    db=db if invalid is False else None)
            if invalid and os.path.exists(db):
                run.failures.append("astra-sim-compat: a refused input set left %s" % db)
        for mode in ("packet", "flow", "flow-symmetric"):
            once(files, False, mode)
        for _ in range(40 * scale):
            name = rng.choice(sorted(files))
            mutated = dict(files)
            mutated[name] = mutate(rng, files[name])
            once(mutated, None)
        # each key of the system file with a value of the wrong kind
        for line in SYSTEM.splitlines()[1:-1]:
            key = line.split(":")[0]
            for value in ('"x"', "-1", "[]", "[1, 2, 3]", "true", "1e999"):
                text = "{\n%s: %s\n}\n" % (key, value)
                once(dict(files, **{"sys.json": text}), None)
    finally:
        os.chdir(cwd)
