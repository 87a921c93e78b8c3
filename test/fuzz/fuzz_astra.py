# SPDX-License-Identifier: GPL-2.0-only
"""Fuzz generator of issue 38 for fuzz.py: ASTRA-sim 2 input sets (the network YAML, the system
JSON, the comm-group and remote-memory JSON) mutated byte by byte and run by astra-sim-compat
on Chakra traces written by fuzz_chakra, and a custom collective (all-reduce-implementation-
custom: a ring all-reduce's sends, receives and reductions) with one node left out or its
bytes mutated. Every run must end by itself; a refused one in one error line naming the file
or the flag at fault (fuzz.Runner), leaving no database behind.
"""
import os

import fuzz_chakra
import promises

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


def custom_ring(n):
    """A ring all-reduce on n ranks as a custom collective's traces (per rank its node
    messages): reduce-scatter then all-gather, each receive of the reduce-scatter taken as data
    by a COMP_NODE (MSCCL's receive-reduce-copy), every node after the one before."""
    ranks = []
    for r in range(n):
        nodes, prev = [], ()
        for k in range(2 * (n - 1)):
            rs = k < n - 1
            sent = (r - k if rs else r + n - k) % n
            chunk = {"msg_chunk_cnt": 1, "total_chunk_cnt": n, "comm_tag": 0}
            steps = [(fuzz_chakra.SEND, dict(chunk, comm_dst=(r + 1) % n, msg_chunk_idx=sent)),
                     (fuzz_chakra.RECV, dict(chunk, comm_src=(r - 1) % n,
                                             msg_chunk_idx=(sent - 1) % n))]
            if rs:
                steps.append((fuzz_chakra.COMP, {}))
            for kind, attrs in steps:
                nid = len(nodes) + 1
                nodes.append(fuzz_chakra.node(nid, kind, attrs, data_deps=prev))
                prev = (nid,)
        ranks.append(nodes)
    return ranks


def astra_cases(rng, run, prog, mutate, scale, check_db=None):
    """prog: the astra-sim-compat program; mutate(rng, text) -> bytes (fuzz.mutate_text);
    check_db(path) (fuzz.check_db): with it, the run interrupted once it is recorded too."""
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
        if check_db:
            # SIGINT at the last NPU's line, printed once the run is recorded
            for name, text in files.items():
                run.write(name, text)
            promises.late_signal_case(
                run, prog, ["--workload-configuration=" + prefix,
                            "--system-configuration=sys.json", "--network-configuration=net.yml",
                            "--comm-group-configuration=groups.json",
                            "--remote-memory-configuration=remote.json", "--mode=flow"],
                r"sys\[3\] finished", check_db, db_option="--database=")
        for _ in range(40 * scale):
            name = rng.choice(sorted(files))
            mutated = dict(files)
            mutated[name] = mutate(rng, files[name])
            once(mutated, None)
        # a custom all-reduce: runs whole; with a node left out it is refused (a dependency on
        # it, an unpaired message, or a sum never made); with its bytes mutated, either
        ring = custom_ring(4)
        custom = dict(files, **{"sys.json": SYSTEM.replace(
            '"all-reduce-implementation": ["ring", "direct"]',
            '"all-reduce-implementation-custom": ["custom"]')})
        fuzz_chakra.write_traces(run, "custom", ring)
        once(custom, False)
        for _ in range(10 * scale):
            broken = [list(nodes) for nodes in ring]
            r = rng.randrange(len(broken))
            del broken[r][rng.randrange(len(broken[r]))]
            fuzz_chakra.write_traces(run, "custom", broken)
            once(custom, True)
            mangled = [list(nodes) for nodes in ring]
            k = rng.randrange(len(mangled[r]))
            mangled[r][k] = mutate(rng, mangled[r][k].decode("latin-1"))
            fuzz_chakra.write_traces(run, "custom", mangled)
            once(custom, None)
        # each key of the system file with a value of the wrong kind
        for line in SYSTEM.splitlines()[1:-1]:
            key = line.split(":")[0]
            for value in ('"x"', "-1", "[]", "[1, 2, 3]", "true", "1e999"):
                text = "{\n%s: %s\n}\n" % (key, value)
                once(dict(files, **{"sys.json": text}), None)
    finally:
        os.chdir(cwd)
