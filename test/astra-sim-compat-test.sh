#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# ASTRA-sim 2's input sets run unchanged (ctest example/astra-sim-compat): ASTRA-sim's own
# example files written here as they are (Ring_4npus.yml, Ring_4chunks.json,
# no_memory_expansion.json, HGX-H100-validated.{yml,json}) and others in their format, with
# Chakra traces made by tn-chakra-convert:
#   - one 1 MiB all-reduce on the 4-NPU ring (50 GB/s per link, 500 ns), packet and flow:
#     each sys[N] line's cycles are the database's iteration end and exposed communication,
#     and the exposed time is the ring's closed form 2(N-1) (S/N/B + latency) within 10 %
#     (above it: headers and NIC costs); flow-symmetric prints the same lines as flow;
#   - every implementation name on one dimension runs as its algorithm (ring, oneRing ->
#     ring, doubleBinaryTree -> dbt, direct, oneDirect -> direct, halvingDoubling,
#     oneHalvingDoubling -> rhd), recorded in the collective rows;
#   - a 3D Ring x FullyConnected x Switch system with the four collectives: hierarchical
#     (baseline) or themis (localBWAware) all-reduce, all-to-all direct;
#   - HGX-H100-validated: 936.25 ns rounds to 936 with a note; an empty comm-group file runs,
#     and one whose name holds "empty" is not read (as ASTRA-sim skips it);
#   - roofline-enabled with peak-perf 0.002 TFLOPS halves the compute of 1 GHz cycles;
#   - refusals: one line naming the file, line and key (or the flag), exit 2, no run recorded.
#   - a comm-group file: the traces' pg_name "1" and "2" run on the NPUs it lists, "0" on all
#     (traces with pg_name written by test/fuzz/fuzz_chakra.py); an unknown pg_name, or
#     pg_name without the file, is refused naming the trace, the node and the name;
#   - a scenario's [topology] astra = "Ring_4npus.yml" runs the traces as astra-sim-compat
#     does (the same iteration end), and a bad YAML is refused naming topology.astra;
#   - the Collective API: MSCCL's ring all-reduce (MSCCL-IR written here, converted by
#     tn-chakra-convert --msccl) as all-reduce-implementation-custom prints the built-in
#     ring's sys lines to the ns, at packet and flow level, and follows each collective's
#     size; a schedule that copies where it must reduce, an unpaired send, a missing file,
#     more files than NPUs, a collective node and a value that is not one prefix are refused;
#     a scenario's algorithm = "custom:PREFIX" runs the same iteration;
# Usage: astra-sim-compat-test.sh PROGRAM TN_CHAKRA_CONVERT MODULE_DIR TRAINING_NET_RUN
set -u
prog=$1
convert=$2
top=$3
runner=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
cd "$tmp" || exit 2

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

q() { sqlite3 "$1" "$2" 2>&1; }

# --- ASTRA-sim's example files, as they are ------------------------------------------------
cat > Ring_4npus.yml << 'EOF'
topology: [ Ring ]
npus_count: [ 4 ]
bandwidth: [ 50.0 ]  # GB/s
latency: [ 500.0 ]  # ns
EOF
# ASTRA-sim's example system files share their layout: FILE ACTIVE-CHUNKS LOCAL-MEM-BW TAIL
example_system() {
    cat > "$1" << EOF
{
    "scheduling-policy": "LIFO",
    "endpoint-delay": 10,
    "active-chunks-per-dimension": $2,
    "preferred-dataset-splits": 4,
    "all-reduce-implementation": [
        "ring"
    ],
    "all-gather-implementation": [
        "ring"
    ],
    "reduce-scatter-implementation": [
        "ring"
    ],
    "all-to-all-implementation": [
        "ring"
    ],
    "collective-optimization": "localBWAware",
    "local-mem-bw": $3,
    "boost-mode": 0$4
}
EOF
}
example_system Ring_4chunks.json 1 1600 ',
    "roofline-enabled": 0,
    "peak-perf": 900'
cat > no_memory_expansion.json << 'EOF'
{
    "memory-type": "NO_MEMORY_EXPANSION"
}
EOF
cat > HGX-H100-validated.yml << 'EOF'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 400.0 ]  # GB/s
latency: [ 936.25 ]  # ns
EOF
example_system HGX-H100-validated.json 2 3350 ''

# --- Chakra traces (tn-chakra-convert of ASTRA-sim 1.0 text workloads) ---------------------
# one 1 MiB all-reduce after 15 cycles of compute, then 5 of update (microAllReduce)
printf 'MICRO\n1\nar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n' > ar.txt
# the four collectives
printf 'MICRO\n4\nag -1 5 NONE 0 5 NONE 0 5 ALLGATHER 65536 5\nrs -1 5 NONE 0 5 NONE 0 5 REDUCESCATTER 65536 5\nar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 65536 5\na2a -1 5 NONE 0 5 NONE 0 5 ALLTOALL 65536 5\n' > four.txt
# 100000 cycles of compute, no communication to speak of
printf 'MICRO\n1\nc -1 100000 NONE 0 0 NONE 0 0 ALLREDUCE 1024 0\n' > compute.txt
mkdir ar4 ar8 four8 c4
"$convert" ar.txt 4 ar4/ar > /dev/null && "$convert" ar.txt 8 ar8/ar > /dev/null &&
    "$convert" four.txt 8 four8/four > /dev/null && "$convert" compute.txt 4 c4/c > /dev/null ||
    { echo "FAIL: tn-chakra-convert"; exit 1; }

run() { # db args...: the program's output in out, its errors in err
    db=$1
    shift
    "$prog" "$@" --database="$db" > out 2> err
}

bad() { # expected-message args...
    want=$1
    shift
    "$prog" --database=bad.db "$@" > /dev/null 2> err
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l < err)" = 1 ] && grep -q "^astra-sim-compat: $want" err &&
        [ ! -e bad.db ] || fail "refusal '$want': exit $rc: $(cat err)"
}
good="--workload-configuration=ar4/ar --network-configuration=Ring_4npus.yml"

# --- the ring: sys lines against the database and the closed form --------------------------
for mode in packet flow; do
    run ring-$mode.db --workload-configuration=ar4/ar --system-configuration=Ring_4chunks.json \
        --network-configuration=Ring_4npus.yml \
        --remote-memory-configuration=no_memory_expansion.json --mode=$mode ||
        { fail "ring $mode: exit non-zero: $(cat err)"; continue; }
    cp out ring-$mode.out
    [ "$(grep -c '^sys\[[0-3]\] finished, [0-9]* cycles, exposed communication [0-9]* cycles\.$' out)" = 4 ] ||
        fail "ring $mode: not 4 sys lines: $(cat out)"
    grep -q '^note: Ring_4chunks.json:6: all-reduce-implementation: runs as ring$' out &&
        grep -q '^note: Ring_4chunks.json:3: endpoint-delay: ignored' out &&
        grep -q '^note: no_memory_expansion.json:2: memory-type: NO_MEMORY_EXPANSION' out ||
        fail "ring $mode: notes missing: $(grep note out)"
    # every key of the system file has its note
    for key in scheduling-policy endpoint-delay active-chunks-per-dimension \
        preferred-dataset-splits all-reduce-implementation all-gather-implementation \
        reduce-scatter-implementation all-to-all-implementation collective-optimization \
        local-mem-bw boost-mode roofline-enabled peak-perf; do
        grep -q "^note: Ring_4chunks.json:[0-9]*: $key: " out || fail "ring $mode: no note for $key"
    done
    q ring-$mode.db "SELECT 'sys[' || node_id || '] finished, ' || end_ns || ' cycles, exposed communication ' || exposed_comm_ns || ' cycles.' FROM iteration ORDER BY node_id" > want
    grep '^sys' out | cmp -s - want || fail "ring $mode: sys lines differ from the database: $(cat want)"
    [ "$(q ring-$mode.db "SELECT status FROM run")" = ok ] || fail "ring $mode: run not ok"
    # 2(N-1) steps of S/N bytes at 50 GB/s plus 500 ns each
    exposed=$(sed -n 's/^sys\[0\] finished, [0-9]* cycles, exposed communication \([0-9]*\) cycles\.$/\1/p' out)
    awk -v e="$exposed" 'BEGIN { f = 6 * (1048576 / 4 / 50 + 500); exit !(e >= f && e <= 1.10 * f) }' ||
        fail "ring $mode: exposed $exposed ns, closed form $(awk 'BEGIN { print 6 * (1048576 / 4 / 50 + 500) }') ns"
done
run ring-sym.db --workload-configuration=ar4/ar --system-configuration=Ring_4chunks.json \
    --network-configuration=Ring_4npus.yml --mode=flow-symmetric ||
    fail "ring flow-symmetric: exit non-zero: $(cat err)"
[ "$(grep '^sys' out)" = "$(grep '^sys' ring-flow.out)" ] ||
    fail "flow-symmetric: sys lines differ from flow: $(grep '^sys' out)"

# --- every implementation on one dimension ---------------------------------------------------
for pair in ring:ring oneRing:ring doubleBinaryTree:dbt direct:direct oneDirect:direct \
    halvingDoubling:rhd oneHalvingDoubling:rhd; do
    impl=${pair%%:*}
    algo=${pair#*:}
    printf '{\n  "all-reduce-implementation": ["%s"]\n}\n' "$impl" > one.json
    run one-$impl.db --workload-configuration=ar4/ar --system-configuration=one.json \
        --network-configuration=Ring_4npus.yml --mode=flow ||
        { fail "$impl: exit non-zero: $(cat err)"; continue; }
    [ "$(q one-$impl.db "SELECT algorithm FROM collective WHERE op = 'all-reduce'")" = "$algo" ] ||
        fail "$impl: ran $(q one-$impl.db 'SELECT algorithm FROM collective'), not $algo"
    grep -q "^note: one.json:2: all-reduce-implementation: runs as $algo$" out ||
        fail "$impl: no note 'runs as $algo'"
done

# --- 3D: Ring x FullyConnected x Switch, the four collectives --------------------------------
printf 'topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 2, 2, 2 ]\nbandwidth: [ 200.0, 100.0, 50.0 ]  # GB/s\nlatency: [ 50.0, 500.0, 2000.0 ]  # ns\n' > 3d.yml
for opt in baseline:hierarchical localBWAware:themis; do
    cat > 3d.json << EOF
{
    "all-reduce-implementation": ["ring", "direct", "halvingDoubling"],
    "reduce-scatter-implementation": ["ring", "direct", "direct"],
    "all-gather-implementation": ["ring", "ring", "direct"],
    "all-to-all-implementation": ["direct", "direct", "direct"],
    "collective-optimization": "${opt%%:*}"
}
EOF
    run 3d-${opt%%:*}.db --workload-configuration=four8/four --system-configuration=3d.json \
        --network-configuration=3d.yml --mode=flow ||
        { fail "3d ${opt%%:*}: exit non-zero: $(cat err)"; continue; }
    grep -q '^network 3d.yml: hier:ring2@1600000000000bps/50ns+fc2@800000000000bps/500ns+switch2@400000000000bps/2000ns$' out ||
        fail "3d: spec: $(head -1 out)"
    [ "$(q 3d-${opt%%:*}.db "SELECT group_concat(op || '=' || algorithm, ' ') FROM (SELECT DISTINCT op, algorithm FROM collective ORDER BY op)")" = \
        "all-gather=hierarchical all-reduce=${opt#*:} all-to-all=direct reduce-scatter=hierarchical" ] ||
        fail "3d ${opt%%:*}: $(q 3d-${opt%%:*}.db 'SELECT DISTINCT op, algorithm FROM collective')"
    [ "$(grep -c '^sys\[' out)" = 8 ] || fail "3d ${opt%%:*}: not 8 sys lines"
done

# --- HGX-H100, an empty comm-group file --------------------------------------------------------
echo '{}' > groups.json
run hgx.db --workload-configuration=ar8/ar --system-configuration=HGX-H100-validated.json \
    --network-configuration=HGX-H100-validated.yml --comm-group-configuration=groups.json \
    --mode=flow || fail "hgx: exit non-zero: $(cat err)"
grep -q '^note: HGX-H100-validated.yml: latency: dimension 0: 936.25 ns rounds to 936 ns' out &&
    grep -q '^note: groups.json: no groups' out || fail "hgx: notes: $(grep note out)"
[ "$(q hgx.db "SELECT count(*) FROM iteration")" = 8 ] || fail "hgx: not 8 iterations"

# --- a comm-group file: pg_name's groups ------------------------------------------------------
# rank r: an all-reduce of 4096 bytes in pg_name "1" (ranks 0, 1) or "2" (ranks 2, 3), then
# one of 8192 bytes in "0" (all ranks); pg.7: the first names group "7" instead
python3 - "$top/test/fuzz" << 'EOF' || fail "pg traces: python3"
import os, sys
sys.path.insert(0, sys.argv[1])
import fuzz_chakra as c
class Run:
    tmp = os.getcwd()
for prefix, first in (("pg", None), ("pg7", "7")):
    ranks = []
    for r in range(4):
        name = first or ("1" if r < 2 else "2")
        ranks.append([c.node(1, c.COLL, {"comm_type": c.ALL_REDUCE, "comm_size": 4096,
                                         "pg_name": name}),
                      c.node(2, c.COLL, {"comm_type": c.ALL_REDUCE, "comm_size": 8192,
                                         "pg_name": "0"}, data_deps=(1,))])
    c.write_traces(Run, prefix, ranks)
EOF
printf '{\n  "1": [0, 1],\n  "2": [3, 2]\n}\n' > pg.json
run pg.db --workload-configuration=pg --system-configuration=Ring_4chunks.json \
    --network-configuration=Ring_4npus.yml --comm-group-configuration=pg.json --mode=flow ||
    fail "pg: exit non-zero: $(cat err)"
[ "$(q pg.db "SELECT group_concat(bytes || ':' || participants, ' ') FROM (SELECT bytes, participants FROM collective ORDER BY bytes, collective_id)")" = \
    "4096:2 4096:2 8192:4" ] || fail "pg: collectives $(q pg.db 'SELECT bytes, participants FROM collective')"
grep -q '^note: pg.json:3: 2: the collectives of pg_name "2" run on these 2 NPUs$' out ||
    fail "pg: no note for group 2: $(grep pg.json out)"
bad "--workload-configuration: pg7.0.et: node 1: pg_name '7' is not a group of the comm-group file" \
    --workload-configuration=pg7 --network-configuration=Ring_4npus.yml \
    --system-configuration=Ring_4chunks.json --comm-group-configuration=pg.json
bad "--workload-configuration: pg.0.et: node 1: pg_name '1' names a process group" \
    --workload-configuration=pg --network-configuration=Ring_4npus.yml \
    --system-configuration=Ring_4chunks.json
printf '{"x": [0, 1]}\n' > g2.json
bad "g2.json:1: x: a group id is a non-negative integer" $good \
    --system-configuration=Ring_4chunks.json --comm-group-configuration=g2.json
printf '{"1": [0, 4]}\n' > g2.json
bad "g2.json:1: 1: '4' is not an NPU (0 to 3)" $good \
    --system-configuration=Ring_4chunks.json --comm-group-configuration=g2.json
echo 'not even json' > my-empty-groups.json
run empty.db $good --system-configuration=Ring_4chunks.json \
    --comm-group-configuration=my-empty-groups.json || fail "empty: $(cat err)"

# --- a scenario on the network YAML ------------------------------------------------------------
printf 'mode = "flow"\n[topology]\nastra = "Ring_4npus.yml"\n[training]\nchakra = "ar4/ar"\nalgorithm = "ring"\n' > astra.toml
"$runner" astra.toml --db scen.db > /dev/null 2> err || fail "scenario: exit non-zero: $(cat err)"
want=$(q one-ring.db "SELECT end_ns FROM iteration WHERE node_id = 0")
[ -n "$want" ] && [ "$(q scen.db "SELECT end_ns FROM iteration WHERE node_id = 0")" = "$want" ] ||
    fail "scenario: iteration end $(q scen.db 'SELECT end_ns FROM iteration WHERE node_id = 0'), astra-sim-compat $want"
printf 'topology: [ Torus ]\n' > n.yml
printf '[topology]\nastra = "n.yml"\n[training]\nchakra = "ar4/ar"\n' > bad-astra.toml
"$runner" bad-astra.toml --db bad-scen.db > /dev/null 2> err
[ $? = 2 ] && grep -q "^training-net-run: bad-astra.toml:2:9: topology.astra: n.yml:1: topology: 'Torus' is not Ring" err ||
    fail "scenario: bad YAML: $(cat err)"

# --- roofline: num_ops at peak-perf -------------------------------------------------------------
compute() { # the first NPU's finished minus exposed
    sed -n 's/^sys\[0\] finished, \([0-9]*\) cycles, exposed communication \([0-9]*\) cycles\.$/\1 \2/p' out |
        awk '{ print $1 - $2 }'
}
printf '{"all-reduce-implementation": ["ring"], "roofline-enabled": 0, "peak-perf": 0.002}\n' > r0.json
printf '{"all-reduce-implementation": ["ring"], "roofline-enabled": 1, "peak-perf": 0.002}\n' > r1.json
run r0.db --workload-configuration=c4/c --system-configuration=r0.json \
    --network-configuration=Ring_4npus.yml --mode=flow && c0=$(compute) &&
    run r1.db --workload-configuration=c4/c --system-configuration=r1.json \
        --network-configuration=Ring_4npus.yml --mode=flow && c1=$(compute) &&
    [ "$c0" = 100000 ] && [ "$c1" = 50000 ] ||
    fail "roofline: compute $c0 and $c1 ns, want 100000 (1 GHz) and 50000 (2 GHz): $(cat err)"

# --- the Collective API: *-implementation-custom traces ----------------------------------------
# MSCCL's ring all-reduce on N GPUs (MSCCL-IR as MSCCLang prints it): one thread block per GPU
# sending to the next and receiving from the one before, the reduce-scatter's receives
# reducing (rrc; RRC=r: copying, which is not an all-reduce), every step after the one before
msccl_ring() { # N RRC
    awk -v N="$1" -v RRC="$2" 'BEGIN {
        printf "<?xml version=\"1.0\"?>\n<algo name=\"ring\" proto=\"Simple\" nchannels=\"1\" ngpus=\"%d\" coll=\"allreduce\" inplace=\"1\">\n", N
        for (r = 0; r < N; r++) {
            printf "  <gpu id=\"%d\" i_chunks=\"%d\" o_chunks=\"0\" s_chunks=\"0\">\n", r, N
            printf "    <tb id=\"0\" send=\"%d\" recv=\"%d\" chan=\"0\">\n", (r + 1) % N, (r + N - 1) % N
            s = 0
            for (k = 0; k < 2 * (N - 1); k++) {
                c = ((k < N - 1 ? r - k : r + N - k) % N + N) % N
                g = (c + N - 1) % N
                step = "      <step s=\"%d\" type=\"%s\" srcbuf=\"i\" srcoff=\"%d\" dstbuf=\"i\" dstoff=\"%d\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
                printf step, s++, "s", c, c
                printf step, s++, k < N - 1 ? RRC : "r", g, g
            }
            printf "    </tb>\n  </gpu>\n"
        }
        print "</algo>"
    }'
}
msccl_ring 4 rrc > ring4.xml
msccl_ring 4 r > copy4.xml
# gpu 1's last receive left out (a nop): gpu 0's last send has no receive
awk '/<gpu id="1"/ { g = 1 } g && /s="11"/ { sub(/type="r"/, "type=\"nop\""); g = 0 } { print }' \
    ring4.xml > unpaired4.xml
mkdir cc four4
for set in ring4 copy4 unpaired4; do
    "$convert" --msccl $set.xml cc/$set > /dev/null || fail "tn-chakra-convert --msccl $set.xml"
done
"$convert" four.txt 4 four4/four > /dev/null || fail "tn-chakra-convert four.txt 4"
printf '{\n  "all-reduce-implementation-custom": ["cc/ring4"]\n}\n' > custom.json
printf '{\n  "all-reduce-implementation": ["ring"]\n}\n' > native.json
for mode in packet flow; do
    run native-$mode.db --workload-configuration=ar4/ar --system-configuration=native.json \
        --network-configuration=Ring_4npus.yml --mode=$mode && cp out native-$mode.out ||
        fail "native $mode: $(cat err)"
    run custom-$mode.db --workload-configuration=ar4/ar --system-configuration=custom.json \
        --network-configuration=Ring_4npus.yml --mode=$mode ||
        { fail "custom $mode: exit non-zero: $(cat err)"; continue; }
    grep -q '^note: custom.json:2: all-reduce-implementation-custom: runs as custom:cc/ring4: 24 messages on 4 NPUs' out ||
        fail "custom $mode: no note: $(grep note out)"
    [ "$(q custom-$mode.db "SELECT DISTINCT algorithm FROM collective")" = custom ] ||
        fail "custom $mode: ran $(q custom-$mode.db 'SELECT DISTINCT algorithm FROM collective')"
    # the built-in ring's messages and dependencies: its time to the ns, the closed form above
    [ "$(grep '^sys' out)" = "$(grep '^sys' native-$mode.out)" ] ||
        fail "custom $mode: sys lines differ from the built-in ring's: $(grep '^sys' out)"
    # 2(N-1) messages of S/N bytes per NPU, the first N-1 of them reductions
    [ "$(q custom-$mode.db "SELECT count(*) || ' ' || sum(bytes = 262144) || ' ' || sum(reduce) FROM transfer")" = "24 24 12" ] ||
        fail "custom $mode: transfers $(q custom-$mode.db "SELECT count(*), sum(bytes = 262144), sum(reduce) FROM transfer")"
done
# the collective's size scales the schedule: an all-reduce of 65536 bytes, 16384 a message;
# the custom key replaces the native one
printf '{\n  "all-reduce-implementation-custom": ["cc/ring4"],\n  "all-reduce-implementation": ["direct"]\n}\n' > custom2.json
run custom-four.db --workload-configuration=four4/four --system-configuration=custom2.json \
    --network-configuration=Ring_4npus.yml --mode=flow || fail "custom four: $(cat err)"
[ "$(q custom-four.db "SELECT group_concat(DISTINCT t.bytes) FROM transfer t JOIN collective c USING (collective_id) WHERE c.algorithm = 'custom'")" = 16384 ] ||
    fail "custom four: message sizes $(q custom-four.db "SELECT DISTINCT bytes FROM transfer")"
grep -q '^note: custom2.json:2: all-reduce-implementation-custom: replaces direct of the native key' out ||
    fail "custom four: no note on the replaced key: $(grep custom2 out)"
# refused with the key, the file and the node
cbad() { # expected-message value [workload network]
    printf '{\n  "all-reduce-implementation": ["ring"],\n  "all-reduce-implementation-custom": %s\n}\n' "$2" > s.json
    bad "s.json:3: all-reduce-implementation-custom: $1" --workload-configuration="${3:-ar4/ar}" \
        --network-configuration="${4:-Ring_4npus.yml}" --system-configuration=s.json
}
cbad "custom:cc/copy4: the traces do not perform the all-reduce of 1048576 bytes on 4 ranks: final state: rank 0" '["cc/copy4"]'
cbad "cc/unpaired4.0.et: node 14: send 0 -> 1, tag 0, number 5 of these: rank 1 has no matching receive" '["cc/unpaired4"]'
cbad "cc/none.0.et: cannot open" '["cc/none"]'
cbad "cc/ring4.4.et: cannot open" '["cc/ring4"]' ar8/ar HGX-H100-validated.yml
cbad "ar4/ar.0.et: node [0-9]*: COMM_COLL_NODE is not allowed in a custom collective" '["ar4/ar"]'
cbad "expected a list of one trace prefix" '"cc/ring4"'
cbad "expected a list of one trace prefix" '["cc/ring4", "cc/ring4"]'
mkdir c5 && "$convert" --msccl ring4.xml c5/ring4 > /dev/null && cp c5/ring4.0.et c5/ring4.4.et
cbad "custom:c5/ring4: c5/ring4.4.et exists: the traces are for more ranks than the collective's 4" '["c5/ring4"]'
# flow-symmetric runs rank-local programs, which a custom schedule has not
bad "--workload-configuration: ar4/ar.0.et: node [0-9]*: FlowNetwork::Symmetric: algorithm custom:cc/ring4 runs as a materialised schedule" \
    --workload-configuration=ar4/ar --system-configuration=custom.json \
    --network-configuration=Ring_4npus.yml --mode=flow-symmetric
# a scenario names the same traces as its algorithm: the same iteration
printf 'mode = "flow"\n[topology]\nastra = "Ring_4npus.yml"\n[training]\nchakra = "ar4/ar"\nalgorithm = "custom:cc/ring4"\n' > custom.toml
"$runner" custom.toml --db custom-scen.db > /dev/null 2> err || fail "custom scenario: $(cat err)"
[ "$(q custom-scen.db "SELECT end_ns FROM iteration WHERE node_id = 0")" = \
    "$(q custom-flow.db "SELECT end_ns FROM iteration WHERE node_id = 0")" ] ||
    fail "custom scenario: iteration end $(q custom-scen.db 'SELECT end_ns FROM iteration WHERE node_id = 0')"
printf '{\n  "all-gather-implementation-custom": ["cc/ring4"]\n}\n' > s.json
bad "s.json:2: all-gather-implementation-custom: custom:cc/ring4: the traces do not perform the all-gather" \
    $good --system-configuration=s.json

# --- refusals: one line with file, line and key; exit 2; nothing recorded ---------------------
sys() { printf '{\n  "all-reduce-implementation": ["ring"],\n  %s\n}\n' "$1" > s.json; }
sys '"endpoint-dealy": 10'
bad "s.json:3: endpoint-dealy: unknown key" $good --system-configuration=s.json
sys '"all-gather-implementation": ["twoRing"]'
bad "s.json:3: all-gather-implementation: 'twoRing' is not one of ring, oneRing" $good --system-configuration=s.json
sys '"all-gather-implementation": ["doubleBinaryTree"]'
bad "s.json:3: all-gather-implementation: doubleBinaryTree runs all-reduce only" $good --system-configuration=s.json
sys '"all-gather-implementation": ["ring", "ring"]'
bad "s.json:3: all-gather-implementation: expected a list of one implementation per dimension (the network has 1)" $good --system-configuration=s.json
sys '"scheduling-policy": "RANDOM"'
bad "s.json:3: scheduling-policy: 'RANDOM' is not one of LIFO, FIFO" $good --system-configuration=s.json
sys '"local-mem-bw": -5'
bad "s.json:3: local-mem-bw: -5 is out of range" $good --system-configuration=s.json
sys '"roofline-enabled": 1'
bad "s.json: roofline-enabled: needs peak-perf" $good --system-configuration=s.json
sys '"peak-perf": [1, 2]'
bad "s.json:3: peak-perf: expected one value, not a list" $good --system-configuration=s.json
printf '{\n  "a": 1,\n  "a": 2\n}\n' > s.json
bad "s.json:3: a: given twice (first on line 2)" $good --system-configuration=s.json
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\nlinks-count: [ 2 ]\n' > n.yml
bad "n.yml:5: links-count: unknown key" --workload-configuration=ar4/ar --network-configuration=n.yml --system-configuration=Ring_4chunks.json
printf 'topology: [ Torus ]\n' > n.yml
bad "n.yml:1: topology: 'Torus' is not Ring, FullyConnected or Switch" --workload-configuration=ar4/ar --network-configuration=n.yml --system-configuration=Ring_4chunks.json
printf '{"memory-type": "PER_NODE_MEMORY_EXPANSION"}\n' > m.json
bad "m.json:1: memory-type: 'PER_NODE_MEMORY_EXPANSION' is not one of NO_MEMORY_EXPANSION" $good --system-configuration=Ring_4chunks.json --remote-memory-configuration=m.json
bad "--system-configuration: required" $good
bad "--workload-configuration: .*ar8/ar.4.et" --workload-configuration=ar8/ar --network-configuration=Ring_4npus.yml --system-configuration=Ring_4chunks.json

if [ $failures -gt 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "astra-sim-compat: all checks passed"
