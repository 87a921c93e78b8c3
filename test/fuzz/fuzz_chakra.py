# SPDX-License-Identifier: GPL-2.0-only
"""Fuzz generators of issue 42 for fuzz.py: Chakra traces (fields, sizes, dependencies) run
by training-net-run, and the NPU memory, rate and job attributes that used to reach an
NS_ABORT. Every case must end by itself and, when refused, in one error line (fuzz.Runner);
no run may be left 'running'.

The traces are written here, without protobuf: the few messages of the Chakra schema that
the reader takes (model/core/chakra/tn-chakra.proto) encoded by hand.
"""
import os
import random

# Chakra NodeType and CollectiveCommType values (tn-chakra.proto)
MEM_LOAD, MEM_STORE, COMP, SEND, RECV, COLL = 2, 3, 4, 5, 6, 7
ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER = 0, 1, 2, 5, 6, 7
U64 = (1 << 64) - 1


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire, payload):
    key = varint((number << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def attr(name, value):
    """An AttributeProto: an int as uint64_val (13), a list as uint64_list (14), packed, a str
    as string_val (29)."""
    body = field(1, 2, name.encode())
    if isinstance(value, str):
        body += field(29, 2, value.encode())
    elif isinstance(value, list):
        body += field(14, 2, field(1, 2, b"".join(varint(v) for v in value)))
    else:
        body += field(13, 0, value)
    return body


def node(nid, ntype, attrs=None, data_deps=(), ctrl_deps=(), duration=0):
    body = field(1, 0, nid) + field(2, 2, b"n%d" % nid) + field(3, 0, ntype)
    if ctrl_deps:
        body += field(4, 2, b"".join(varint(d) for d in ctrl_deps))
    if data_deps:
        body += field(5, 2, b"".join(varint(d) for d in data_deps))
    if duration:
        body += field(7, 0, duration)
    for k, v in (attrs or {}).items():
        body += field(10, 2, attr(k, v))
    return body


def trace(nodes):
    meta = field(1, 2, b"0.0.4")
    return b"".join(varint(len(m)) + m for m in [meta] + list(nodes))


def write_traces(run, prefix, ranks):
    """ranks: per rank a list of node messages; returns the prefix's path."""
    path = os.path.join(run.tmp, prefix)
    # a set of fewer ranks than the last one must not leave its extra files behind: a trace
    # set with more files than NPUs is refused
    stale = 0
    while os.path.exists("%s.%d.et" % (path, stale)):
        os.remove("%s.%d.et" % (path, stale))
        stale += 1
    for r, nodes in enumerate(ranks):
        with open("%s.%d.et" % (path, r), "wb") as f:
            f.write(trace(nodes))
    return path


def scenario(run, name, prefix, spec="switch:4", mode="flow", extra=""):
    text = ('mode = "%s"\n[topology]\nspec = "%s"\n[training]\nchakra = "%s"\n%s'
            % (mode, spec, prefix, extra))
    return run.write(name, text)


def collective_rank(comm, size, group=None, before=0, nid=1):
    """One rank: an optional kernel of `before` ops, then the collective after it."""
    nodes = []
    deps = ()
    if before:
        nodes.append(node(nid, COMP, {"num_ops": before}))
        deps = (nid,)
        nid += 1
    attrs = {"comm_type": comm, "comm_size": size}
    if group is not None:
        attrs["comm_group"] = group
    nodes.append(node(nid, COLL, attrs, data_deps=deps))
    return nodes


def random_rank(rng, rank, npus, k):
    """Rank `rank` of a random trace set: a chain and fan of kernels, memory nodes and the
    job's k collectives (the same k at every rank, so they match), in random dependency
    order (always acyclic: a node depends on earlier ids only)."""
    nodes = []
    ids = []
    nid = 10
    sizes = [0, 1, 3, 4096, 65537, 1 << 20]
    for c in range(k):
        for _ in range(rng.randint(0, 2)):
            kind = rng.choice([COMP, COMP, MEM_LOAD, MEM_STORE])
            if kind == COMP:
                attrs = ({"num_ops": rng.choice([0, 1, 999, 10 ** 6])} if rng.random() < 0.7
                         else {})
                if rng.random() < 0.5:
                    attrs["tensor_size"] = rng.choice(sizes)
                dur = rng.choice([0, 1, 5, 1000])
            else:
                attrs = {"tensor_size": rng.choice(sizes)}
                dur = 0
            deps = tuple(rng.sample(ids, min(len(ids), rng.randint(0, 2))))
            nodes.append(node(nid, kind, attrs, data_deps=deps, duration=dur))
            ids.append(nid)
            nid += 1
        comm, size = COLLECTIVES[c % len(COLLECTIVES)]
        deps = tuple(rng.sample(ids, min(len(ids), rng.randint(0, 2))))
        nodes.append(node(nid, COLL, {"comm_type": comm, "comm_size": size}, ctrl_deps=deps))
        ids.append(nid)
        nid += 1
    return nodes


COLLECTIVES = [(ALL_REDUCE, 4096), (ALL_GATHER, 1024), (REDUCE_SCATTER, 8192),
               (BROADCAST, 3000), (REDUCE, 65536), (ALL_TO_ALL, 4000)]


def chakra_cases(rng, run, runner, scale):
    db = os.path.join(run.tmp, "chakra.db")

    def go(prefix_ranks, invalid, expect=None, **kw):
        prefix = write_traces(run, "t", prefix_ranks)
        scen = scenario(run, "chakra.toml", prefix, **kw)
        run.run([runner, scen, "--db", db], invalid=invalid, db=db, expect=expect)

    ar = [collective_rank(ALL_REDUCE, 4096) for _ in range(4)]
    # every mode runs an all-reduce, flow-symmetric too (NPU 0 for all)
    for mode in ["packet", "flow", "flow-symmetric"]:
        go(ar, False, mode=mode)
    go([collective_rank(ALL_REDUCE, 4096) for _ in range(2)], False, spec="switch:2",
       mode="flow-symmetric")
    # a reduce whose root (rank 0) reaches it after the other ranks, at packet and flow level
    late = [collective_rank(REDUCE, 65536, before=50000 if r == 0 else 0) for r in range(4)]
    for mode in ["packet", "flow"]:
        go(late, False, mode=mode)
    late_bc = [collective_rank(BROADCAST, 65536, before=50000 if r == 3 else 0)
               for r in range(4)]
    go(late_bc, False, mode="packet")
    # refused at set-up, naming the node: the plans that cannot be made
    sub = [collective_rank(ALL_REDUCE, 4096, group=[0, 1, 2]) if r < 3 else [] for r in range(4)]
    sub[3] = [node(1, COMP, {"num_ops": 10})]
    for algo in ["swing", "tacos", "multitree"]:
        go(sub, True, expect=r"t\.0\.et: node 1: ",
           extra='algorithm = "%s"\n' % algo, spec="switch:4")
    go(ar, True, expect=r"t\.0\.et: node 1: ", extra='algorithm = "ring2d"\n')
    # flow-symmetric refusals: a sub-group, traces that differ, a send
    go(sub, True, expect=r"t\.\d\.et: node 1: .*Symmetric", mode="flow-symmetric")
    differ = [collective_rank(ALL_REDUCE, 4096, before=10 if r == 2 else 0) for r in range(4)]
    go(differ, True, expect=r"Symmetric", mode="flow-symmetric")
    go([collective_rank(ALL_REDUCE, 4096) for _ in range(8)], True, expect=r"Symmetric",
       mode="flow-symmetric", extra='algorithm = "rhd"\n', spec="ring:8")
    p2p = [[node(1, SEND, {"comm_dst": 1, "comm_size": 64})],
           [node(1, RECV, {"comm_src": 0, "comm_size": 64})]]
    go(p2p, True, expect=r"Symmetric", spec="switch:2", mode="flow-symmetric")
    # values past the caps of a text workload, naming the node (each used to hang or wrap)
    for attrs, dur in [({"num_ops": 1 << 40}, 0), ({"num_ops": U64}, 0), ({}, 1 << 63),
                       ({}, 10 ** 6 + 1), ({"num_ops": 10 ** 9 + 1}, 0)]:
        bad = [[node(7, COMP, attrs, duration=dur)] for _ in range(2)]
        go(bad, True, expect=r"t\.0\.et: node 7: (num_ops|duration_micros)", spec="switch:2")
    for size, why in [(1 << 62, r"simulated seconds"), ((1 << 62) + 1, r"t\.0\.et: node 1: "),
                      (U64, r"t\.0\.et: node 1: ")]:
        big = [collective_rank(ALL_REDUCE, size) for _ in range(2)]
        go(big, True, expect=why, spec="switch:2")
    # the caps themselves run
    go([[node(7, COMP, {"num_ops": 10 ** 9})] for _ in range(2)], False, spec="switch:2")
    go([[node(7, COMP, {}, duration=10 ** 6)] for _ in range(2)], False, spec="switch:2")
    # random traces: fields, sizes and dependencies, in every mode
    for k in range(12 * scale):
        npus = rng.choice([2, 3, 4])
        count = rng.randint(1, 4)
        mode = rng.choice(["packet", "flow", "flow-symmetric"])
        # half the symmetric cases give every rank the same trace: NPU 0 then runs for all
        seed = rng.randrange(1 << 30) if mode == "flow-symmetric" and rng.random() < 0.5 else None
        ranks = [random_rank(rng if seed is None else random.Random(seed), r, npus, count)
                 for r in range(npus)]
        go(ranks, None, spec="switch:%d" % npus, mode=mode,
           extra='algorithm = "%s"\n' % rng.choice(["ring", "direct", "auto", "rhd"]))


def rate_cases(rng, run, runner, scale):
    """NPU memory and rates, job schedulers on a symmetric network, the symmetric slack."""
    db = os.path.join(run.tmp, "rates.db")
    wl = run.write("rates-wl.txt", "DATA\n1\nl0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE "
                                   "4097 10\n")
    base = '[topology]\nspec = "switch:4"\n[training]\nworkload = "%s"\n' % wl
    scen = run.write("rates.toml", base)
    # MemoryBandwidth / BaselineMemoryPerNetworkByte (3.5) below 1 Gbps: refused, naming it
    for rate in ["1Gbps", "2Gbps", "3Gbps", "3499Mbps"]:
        run.run([runner, scen, "--db", db, "--set", "npu.MemoryBandwidth=%s" % rate],
                invalid=True, db=db, expect="MemoryBandwidth")
    for rate in ["3500Mbps", "4Gbps", "100Gbps"]:
        run.run([runner, scen, "--db", db, "--set", "npu.MemoryBandwidth=%s" % rate],
                invalid=False, db=db)
    run.run([runner, scen, "--db", db, "--set", "npu.BaselineMemoryPerNetworkByte=1e12"],
            invalid=True, db=db, expect="MemoryBandwidth")
    for _ in range(4 * scale):
        bw = rng.choice(["1Gbps", "1500Mbps", "3600Mbps", "7Gbps", "1Tbps"])
        per = rng.choice(["0", "0.5", "1", "3.5", "7", "100"])
        run.run([runner, scen, "--db", db, "--set", "npu.MemoryBandwidth=%s" % bw,
                 "--set", "npu.BaselineMemoryPerNetworkByte=%s" % per,
                 "--set", 'npu.Engine="%s"' % rng.choice(["ace", "baseline"])],
                invalid=None, db=db)
    # sizes the reader takes whose run cannot end: refused before the run is recorded
    run.write("rates-big.txt", "DATA\n1\nl0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE "
                               "4611686018427387904 10\n")
    big = run.write("rates-big.toml", base.replace(wl, os.path.join(run.tmp, "rates-big.txt")))
    run.run([runner, big, "--db", db], invalid=True, db=db, expect="simulated seconds")
    coll = run.write("rates-big-coll.toml", 'mode = "flow"\n[topology]\nspec = "switch:2"\n'
                     '[[collective]]\nbytes = 4611686018427387904\n')
    run.run([runner, coll, "--db", db], invalid=True, db=db, expect="simulated seconds")
    # the memory guard of generated collectives in flight, which only the run reaches (80
    # overlapping all-reduces): the run ends 'error' with one line naming the layer
    layers = "".join("l%d -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 1048576 10\n" % i
                     for i in range(80))
    run.write("rates-mem.txt", "DATA\n80\n" + layers)
    mem = run.write("rates-mem.toml", 'mode = "flow"\n[roce]\n'
                    '"ns3::CollectiveService::Program" = "generated"\n'
                    + base.replace(wl, os.path.join(run.tmp, "rates-mem.txt"))
                    .replace("switch:4", "switch:16"))
    # (the service now picks program windows itself past half the limit: a limit it can fit
    # runs, one it cannot is refused with that line, never an abort)
    for limit in ["9MiB", "8200KiB", "12MiB"]:
        run.run([runner, mem, "--db", db], invalid=None, db=db, env={"TN_MEMORY_LIMIT": limit},
                expect=r"layer l\d+ wg: .*memory limit")
    # a run-time scheduler on a symmetric network: refused at set-up
    for sched in ["fixed", "themis-scf", "themis-fifo"]:
        sym = run.write("rates-sym.toml", 'mode = "flow-symmetric"\n' + base.replace(
            "switch:4", "torus:2x2") + 'scheduler = "%s"\n' % sched)
        run.run([runner, sym, "--db", db], invalid=True, db=db, expect="Symmetric")
    # the symmetric slack on generated collectives: they run, and as many bytes as planned
    for slack in [1, 2, 7]:
        sl = run.write("rates-slack.toml", 'mode = "flow-symmetric"\n[roce]\n'
                       '"ns3::CollectiveService::SymmetricLengthSlack" = %d\n' % slack
                       + base.replace("switch:4", "switch:5"))
        run.run([runner, sl, "--db", db], invalid=False, db=db)
        coll = run.write("rates-slack-coll.toml", 'mode = "flow-symmetric"\n[roce]\n'
                         '"ns3::CollectiveService::SymmetricLengthSlack" = %d\n'
                         '[topology]\nspec = "switch:5"\n[[collective]]\nalgorithm = "direct"\n'
                         'bytes = 4097\n' % slack)
        run.run([runner, coll, "--db", db], invalid=False, db=db)


def abort_audit(run, top):
    """Every NS_ABORT of model/ and helper/ is an internal invariant, commented as such in the
    three lines above it (issue 42): the cases above walk the options that used to reach
    some; this keeps the rest marked for what they are."""
    for folder in ["model", "helper"]:
        for base, _, files in os.walk(os.path.join(top, folder)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(base, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
                for i, line in enumerate(lines):
                    if "NS_ABORT" in line and "#define" not in line:
                        above = "\n".join(lines[max(0, i - 3):i]).lower()
                        if "internal invariant" not in above:
                            run.failures.append("%s:%d: NS_ABORT not commented as an internal "
                                                "invariant" % (os.path.relpath(path, top),
                                                               i + 1))
