#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every shipped scenario at its test size (training-net-run --test-size, the [test] table of
# each file) and the key ratio of the paper it reproduces (ctest scenario/papers):
#   quickstart          MultiTree's packet-level time within 5% of its cost model
#   multitree           MultiTree faster than ring on a 4x4 torus; ring within 5% of the
#                       closed form 2(N-1)(a + S/(N B)) with per-packet headers (2%)
#   multitree-switched  MultiTree faster than ring on BiGraph 4x8
#   eflops              HDRM contention-free on BiGraph with planned routing (packet-level
#                       time within 10% of the contention-free cost model), faster than ring,
#                       and slower when ECMP hashes its transfers onto shared links
#   themis              Themis at run time (themis-scf) vs the fixed order run by the same
#                       machinery: not slower on the homogeneous switch system, faster on the
#                       five others
#   ace                 the ACE iteration not slower than the baseline's
#   incast              without congestion control PFC pauses and nothing drops; with DCQCN
#                       ECN marks and less pause time; HPCC's largest queue below DCQCN's
#   gpt3-175b           1F1B's bubble largest at the first stage; every NPU's iteration split
#                       exactly into compute, bubble and exposed TP/PP/DP/EP; TP of b s h
#   gpt3-175b, symmetric  one data-parallel replica for all: its rows flow level's, to the ns
#   moe                 the expert all-to-alls of b s h top-k bytes, their time exposed
# Usage: scenario-papers-test.sh RUNNER MODULE_DIR
set -u
runner=$1
top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

q() { sqlite3 "$1" "$2" 2>&1; }

# check NAME AWK-CONDITION VALUES...: fails with the values when the condition is false.
check() {
    name=$1
    cond=$2
    shift 2
    if ! awk -v a="${1:-}" -v b="${2:-}" -v c="${3:-}" "BEGIN { exit !($cond) }"; then
        fail "$name: ($cond) with a=${1:-} b=${2:-} c=${3:-}"
    else
        echo "ok: $name (a=${1:-} b=${2:-} c=${3:-})"
    fi
}

# run SCENARIO [ARGS...]: runs it at test size into $tmp/SCENARIO.db; every run must be ok.
run() {
    s=$1
    shift
    db=$tmp/$s.db
    if ! "$runner" "$top/scenarios/$s.toml" --test-size --db "$db" -j 2 "$@" > "$tmp/$s.out" 2>&1; then
        fail "$s: the runner failed: $(tail -5 "$tmp/$s.out")"
    fi
    bad=$(q "$db" "SELECT count(*) FROM run WHERE status != 'ok'")
    [ "$bad" = 0 ] || fail "$s: $bad run(s) not ok"
}

# Time (ns) of the collective of the run whose params match a WHERE clause on json p.
t() {
    q "$1" "SELECT c.end_ns - c.start_ns FROM run r JOIN collective c USING (run_id)
            WHERE $2"
}
p() { echo "json_extract(r.params_json, '\$.\"$1\"')"; }

run quickstart
db=$tmp/quickstart.db
check "quickstart: packet level within 5% of the cost model" "a > 0.95 && a < 1.05" \
    "$(q "$db" 'SELECT vs_estimate FROM collective_summary')"

run multitree
db=$tmp/multitree.db
mt=$(t "$db" "$(p 'collective[0].algorithm') = 'multitree'")
ring=$(t "$db" "$(p 'collective[0].algorithm') = 'ring'")
check "multitree: MultiTree faster than ring on torus:4x4" "a > 0 && b / a > 1.5" "$mt" "$ring"
# Ring: 2(N-1) steps of S/N bytes at 16 GB/s plus 150 ns; packets carry 4096 B of payload
# and 82 B of headers, FCS, preamble and gap (doc/roce-fabric.rst).
check "multitree: ring within 2% of 2(N-1)(a + S/(N B))" \
    "b > 0.98 * c && b < 1.02 * c" "$mt" "$ring" \
    "$(awk 'BEGIN { print 2 * 15 * (150 + 1048576 / 16 * (4096 + 82) / 4096 / 16) }')"

run multitree-switched
db=$tmp/multitree-switched.db
mt=$(t "$db" "$(p 'collective[0].algorithm') = 'multitree'")
ring=$(t "$db" "$(p 'collective[0].algorithm') = 'ring'")
check "multitree-switched: MultiTree faster than ring on bigraph:4x8" "a > 0 && a < b" "$mt" "$ring"

run eflops
db=$tmp/eflops.db
planned="$(p routing) = 'planned' AND $(p 'collective[0].algorithm')"
ecmp="$(p routing) = 'ecmp' AND $(p 'collective[0].algorithm')"
check "eflops: HDRM contention-free with planned routing (time / cost model)" "a > 0.95 && a < 1.10" \
    "$(q "$db" "SELECT s.vs_estimate FROM run r JOIN collective_summary s USING (run_id)
                WHERE $planned = 'hdrm'")"
check "eflops: HDRM faster than ring on BiGraph" "a > 0 && a < b" \
    "$(t "$db" "$planned = 'hdrm'")" "$(t "$db" "$planned = 'ring'")"
check "eflops: HDRM slower with ECMP than with its planned links" "a > 0 && a < b" \
    "$(t "$db" "$planned = 'hdrm'")" "$(t "$db" "$ecmp = 'hdrm'")"

run themis
db=$tmp/themis.db
systems=$(q "$db" "SELECT DISTINCT $(p topology.spec) FROM run r ORDER BY 1")
[ "$(echo "$systems" | wc -l)" = 6 ] || fail "themis: expected 6 systems, got: $systems"
# Time of the whole scheduled operation: its own row (scheduler 'run-time'), not its
# chunk-phase sub-collectives.
ts() {
    q "$db" "SELECT c.end_ns - c.start_ns FROM run r JOIN collective c USING (run_id)
             WHERE c.scheduler = 'run-time' AND $(p topology.spec) = '$1'
             AND c.algorithm = '$2'"
}
echo "$systems" | while read -r spec; do
    base=$(ts "$spec" fixed)
    scf=$(ts "$spec" themis-scf)
    case $spec in
    # The homogeneous system: not slower. No tolerance needed: the fixed order loads dim 0
    # most there (3/4 of the data), the imbalance Themis removes (measured 1.96x).
    *@800Gbps/500ns+switch4@800Gbps/500ns+switch4@800Gbps*) cond="a > 0 && b > 0 && b <= a" ;;
    *) cond="a > 0 && b > 0 && b < a" ;; # heterogeneous dimensions: faster
    esac
    check "themis: themis-scf vs fixed on $spec" "$cond" "$base" "$scf" || true
done > "$tmp/themis.checks"
cat "$tmp/themis.checks"
failures=$((failures + $(grep -c '^FAIL' "$tmp/themis.checks")))
# The summary lists the whole operation, one line per run, not its sub-collectives.
check "themis: the summary lists each run's scheduled operation" "a == 12 && b == 0" \
    "$(grep -c ' all-reduce  *themis-scf\| all-reduce  *fixed ' "$tmp/themis.out")" \
    "$(grep -c 'collectives (SELECT' "$tmp/themis.out")"

run ace
db=$tmp/ace.db
check "ace: ACE iteration not slower than baseline" "b > 0 && b <= a" \
    "$(q "$db" "SELECT simulated_ns FROM run r WHERE $(p npu.Engine) = 'baseline'")" \
    "$(q "$db" "SELECT simulated_ns FROM run r WHERE $(p npu.Engine) = 'ace'")"

run simai
db=$tmp/simai.db
check "simai: SimAI's workload and topology files run, every NPU ends its iteration" "a == 4" \
    "$(q "$db" "SELECT count(*) FROM iteration")"
check "simai: TP and DP collectives, each saying which it serves" "a > 0 && b > 0 && c == 0" \
    "$(q "$db" "SELECT count(*) FROM collective WHERE parallelism = 'tp'")" \
    "$(q "$db" "SELECT count(*) FROM collective WHERE parallelism = 'dp'")" \
    "$(q "$db" "SELECT count(*) FROM collective WHERE parallelism IS NULL OR parallelism = ''")"

run incast
db=$tmp/incast.db
cc="$(p roce.cc)"
pause_none=$(q "$db" "SELECT sum(s.paused_ns) FROM run r JOIN port_sample s USING (run_id) WHERE $cc = 'none'")
pause_dcqcn=$(q "$db" "SELECT coalesce(sum(s.paused_ns), 0) FROM run r JOIN port_sample s USING (run_id)
                       WHERE $cc = 'dcqcn'")
check "incast: PFC pauses without congestion control, less with DCQCN" "a > 0 && b < a" \
    "$pause_none" "$pause_dcqcn"
check "incast: lossless (no drop) in every run" "a == 0" "$(q "$db" 'SELECT count(*) FROM drop_event')"
peak() {
    q "$db" "SELECT max(s.q0_bytes + s.q1_bytes + s.q2_bytes + s.q3_bytes + s.q4_bytes + s.q5_bytes
             + s.q6_bytes + s.q7_bytes) FROM run r JOIN port_sample s USING (run_id) WHERE $cc = '$1'"
}
check "incast: HPCC's largest queue below DCQCN's" "b < a" "$(peak dcqcn)" "$(peak hpcc)"
check "incast: DCQCN's ECN marks at the root's port" "a > 0" \
    "$(q "$db" "SELECT sum(s.ecn_marks) FROM run r JOIN port_sample s USING (run_id) WHERE $cc = 'dcqcn'")"

run gpt3-175b
db=$tmp/gpt3-175b.db
# 1F1B: the first stage waits longest for the pipeline (p - 1 steps of fill and drain), the
# last the least; every NPU's iteration is its compute plus its waits, split to the ns
check "gpt3-175b: the first stage's bubble above the last's" "a > b && b >= 0" \
    "$(q "$db" 'SELECT avg(bubble_ns) FROM iteration_breakdown WHERE pp = 0')" \
    "$(q "$db" 'SELECT avg(bubble_ns) FROM iteration_breakdown WHERE pp = 3')"
check "gpt3-175b: iteration = compute + bubble + TP + PP + DP + EP, every NPU" "a == 64 && b == 0" \
    "$(q "$db" 'SELECT count(*) FROM iteration_breakdown')" \
    "$(q "$db" 'SELECT count(*) FROM iteration_breakdown WHERE iteration_ns != compute_ns +
        bubble_ns + exposed_tp_ns + exposed_pp_ns + exposed_dp_ns + exposed_ep_ns')"
# sequence parallelism: TP all-gathers and reduce-scatters of b s h (2048 x 12288 x 2 bytes)
check "gpt3-175b: TP moves b s h per all-gather" "a == 2048 * 12288 * 2" \
    "$(q "$db" "SELECT max(bytes) FROM collective WHERE parallelism = 'tp'")"

# one data-parallel replica for all: dp outermost, flow-symmetric, the replica's rows those of
# flow level with every GPU simulated (the same order, on a fresh database), to the ns
for m in flow flow-symmetric; do
    "$runner" "$top/scenarios/gpt3-175b.toml" --test-size --mode $m --set 'training.order="tp,ep,pp,dp"' \
        --set sampling.port_samples=false --db "$tmp/gpt3-$m.db" --quiet > "$tmp/gpt3-$m.out" 2>&1 ||
        fail "gpt3-175b $m: $(tail -3 "$tmp/gpt3-$m.out")"
done
rows() { q "$1" 'SELECT group_concat(rank || ":" || iteration_ns || ":" || bubble_ns || ":" ||
    exposed_dp_ns, " ") FROM (SELECT * FROM iteration_breakdown WHERE rank < 16 ORDER BY rank)'; }
check "gpt3-175b flow-symmetric: 16 of 64 GPUs run, their rows flow level's" "a == 16 && b == 1" \
    "$(q "$tmp/gpt3-flow-symmetric.db" 'SELECT count(*) FROM iteration')" \
    "$([ -n "$(rows "$tmp/gpt3-flow.db")" ] &&
        [ "$(rows "$tmp/gpt3-flow.db")" = "$(rows "$tmp/gpt3-flow-symmetric.db")" ] && echo 1)"
# Megatron's order (dp inside pp) is refused, naming the key
if "$runner" "$top/scenarios/gpt3-175b.toml" --test-size --mode flow-symmetric --check \
    > "$tmp/gpt3-order.out" 2>&1; then
    fail "gpt3-175b flow-symmetric: Megatron's order accepted"
fi
check "gpt3-175b flow-symmetric: Megatron's order refused naming training.order" "a == 1" \
    "$(grep -c 'training.order.*dp must be the outermost' "$tmp/gpt3-order.out")"

run moe
db=$tmp/moe.db
check "moe: expert all-to-alls of b s h top-k, exposed" "a == 4096 * 4096 * 2 * 2 && b > 0" \
    "$(q "$db" "SELECT max(bytes) FROM collective WHERE parallelism = 'ep'")" \
    "$(q "$db" 'SELECT sum(exposed_ep_ns) FROM iteration_breakdown')"

[ "$failures" = 0 ] && echo "every shipped scenario reproduces its key ratio at test size"
[ "$failures" = 0 ]
