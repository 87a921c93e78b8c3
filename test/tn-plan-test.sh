#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Tests of the tn-plan command-line tool (utils/tn-plan.c), run by ctest as
# "tn-plan". Expected values come from closed forms, not from earlier runs:
#   - ring all-reduce on ring:N: 2(N-1)N transfers, 2(N-1) steps, verified, no
#     conflicts, and an estimate equal to 2(N-1)(a + S/(N*B)) (doc/design.rst, Reference figures)
#     computed here from the spec's latency a and rate B;
#   - --dump csv: a header and one 12-field row per transfer, ids 0..count-1;
#     --dump json: parses (python3) and holds one object per transfer;
#   - --rank-order: identity on torus:4x4 has conflicts, the automatic order none;
#     a given order is the ring (first transfer order[0] -> order[1]);
#   - errors: message on stderr naming the problem, exit 2 for bad arguments,
#     exit 1 for planning failures.
# Usage: tn-plan-test.sh PATH/TO/tn-plan
set -u
plan=${1:?usage: tn-plan-test.sh PATH/TO/tn-plan}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# check DESCRIPTION COMMAND...: the command must succeed
check() {
    what=$1
    shift
    checks=$((checks + 1))
    "$@" || fail "$what"
}

# run ARGS...: tn-plan with stdout in $tmp/out, stderr in $tmp/err, exit code in $rc
run() {
    "$plan" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
}

# field NAME: the value after the summary label NAME (first line starting with it)
field() {
    awk -v k="$1" 'index($0, k) == 1 { sub("^" k "[ ]*", ""); print; exit }' "$tmp/out"
}

# expect_error CODE PATTERN ARGS...: exit code CODE and PATTERN (grep -E) on stderr
expect_error() {
    code=$1
    pattern=$2
    shift 2
    run "$@"
    checks=$((checks + 1))
    if [ "$rc" != "$code" ]; then
        fail "tn-plan $*: exit $rc, expected $code (stderr: $(cat "$tmp/err"))"
    elif ! grep -Eq -- "$pattern" "$tmp/err"; then
        fail "tn-plan $*: stderr does not match '$pattern': $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        fail "tn-plan $*: printed a summary although it failed"
    fi
}

# near A B: |A - B| <= 1e-6 * |B| + 0.0005 (values printed with 3 decimals)
near() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
                                     exit !(a != "" && d <= 1e-6 * m + 0.0005) }'
}

# ---- a known case: ring all-reduce on a ring, closed form ------------------------
# ring_case N SIZE_ARG BYTES RATE_BPS LATENCY_NS SPEC_SUFFIX
ring_case() {
    n=$1 size=$2 bytes=$3 rate=$4 lat=$5 suffix=$6
    run --topology "ring:$n$suffix" --algorithm ring --size "$size"
    check "ring:$n$suffix: exit $rc" [ "$rc" = 0 ]
    check "ring:$n$suffix: ranks $(field ranks)" [ "$(field ranks)" = "$n" ]
    check "ring:$n$suffix: transfers $(field transfers), expected 2(N-1)N" \
        [ "$(field transfers)" = $((2 * (n - 1) * n)) ]
    check "ring:$n$suffix: steps $(field steps), expected 2(N-1)" \
        [ "$(field steps)" = $((2 * (n - 1))) ]
    check "ring:$n$suffix: verified '$(field verified)'" [ "$(field verified)" = yes ]
    check "ring:$n$suffix: contention '$(field contention)'" \
        sh -c "echo '$(field contention)' | grep -q '; 0 conflicts'"
    # t = 2(N-1)(a + S/(N*B)) in us, B in bytes per ns
    expect=$(awk -v n="$n" -v s="$bytes" -v r="$rate" -v a="$lat" \
        'BEGIN { printf "%.6f", 2 * (n - 1) * (a + s / (n * r / 8e9)) / 1e3 }')
    est=$(field estimate | awk '{ print $1 }')
    check "ring:$n$suffix: estimate $est us, closed form $expect us" near "$est" "$expect"
    closed=$(field "closed form" | awk '{ print $1 }')
    check "ring:$n$suffix: printed closed form $closed us, expected $expect us" \
        near "$closed" "$expect"
}
ring_case 8 8MiB 8388608 128000000000 150 ""
ring_case 8 8MiB 8388608 100000000000 1000 ",rate=100Gbps,latency=1us"
ring_case 5 1000KB 1000000 25000000000 500 ",rate=25Gbps,latency=500ns"

# ---- dumps -----------------------------------------------------------------------
run --topology ring:8 --algorithm ring --size 8MiB --dump csv --output "$tmp/s.csv"
check "csv dump: exit $rc" [ "$rc" = 0 ]
rows=$(($(wc -l < "$tmp/s.csv") - 1))
check "csv dump: $rows rows, expected 112" [ "$rows" = 112 ]
check "csv dump: header" \
    [ "$(head -n 1 "$tmp/s.csv")" = "id,src,dst,src_offset,dst_offset,length,op,step,dim,chunk,deps,path" ]
bad=$(awk -F, 'NR > 1 && (NF != 12 || $1 != NR - 2 || ($7 != "copy" && $7 != "reduce"))' \
    "$tmp/s.csv" | head -n 3)
check "csv dump: malformed rows: $bad" [ -z "$bad" ]
run --topology torus:4x4 --algorithm multitree --size 1MiB --dump csv --output "$tmp/m.csv"
check "csv dump multitree: exit $rc" [ "$rc" = 0 ]
rows=$(($(wc -l < "$tmp/m.csv") - 1))
check "csv dump multitree: $rows rows, summary says $(field transfers)" [ "$rows" = "$(field transfers)" ]
bad=$(awk -F, 'NR > 1 && (NF != 12 || $12 == "")' "$tmp/m.csv" | head -n 3)
check "csv dump multitree: rows without 12 fields or without a path: $bad" [ -z "$bad" ]

if command -v python3 > /dev/null 2>&1; then
    for case in "ring:8 ring 8MiB" "torus:4x4 multitree 1MiB" "bigraph:4x8 hdrm 1MiB"; do
        set -- $case
        run --topology "$1" --algorithm "$2" --size "$3" --dump json --output "$tmp/s.json"
        check "json dump $case: exit $rc" [ "$rc" = 0 ]
        n=$(field transfers)
        check "json dump $case: parses with $n transfers" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["transfers"]
assert len(t) == int(sys.argv[2]), (len(t), sys.argv[2])
assert [x["id"] for x in t] == list(range(len(t)))
assert all(x["op"] in ("copy", "reduce") and isinstance(x["deps"], list) for x in t)
assert d["algorithm"] == sys.argv[3] and d["bytes"] > 0
' "$tmp/s.json" "$n" "$2"
    done
    # the whole stdout is summary + json: the json part alone parses too
    run --topology ring:4 --algorithm ring --size 4KiB --dump json
    check "json dump to stdout: exit $rc" [ "$rc" = 0 ]
    check "json dump to stdout parses after the summary" sh -c \
        "sed -n '/^{/,\$p' '$tmp/out' | python3 -c 'import json,sys; json.load(sys.stdin)'"
else
    fail "python3 not found: cannot check that --dump json is well formed"
fi

# ---- rank orders -------------------------------------------------------------------
run --topology torus:4x4 --algorithm ring --size 1MiB
check "auto order on torus:4x4: '$(field contention)'" \
    sh -c "echo '$(field contention)' | grep -q '; 0 conflicts'"
run --topology torus:4x4 --algorithm ring --size 1MiB --rank-order identity
check "identity order on torus:4x4: exit $rc" [ "$rc" = 0 ]
conf=$(field contention | sed -n 's/.*; \([0-9]*\) conflicts.*/\1/p')
check "identity order on torus:4x4: conflicts '$conf', expected some" [ "${conf:-0}" -gt 0 ]
order=3,1,4,0,5,9,2,6,8,7,15,10,11,13,12,14
run --topology torus:4x4 --algorithm ring --size 1MiB --rank-order $order --dump csv \
    --output "$tmp/o.csv"
check "given order: exit $rc" [ "$rc" = 0 ]
check "given order: first transfer 3 -> 1" [ "$(sed -n 2p "$tmp/o.csv" | cut -d, -f2,3)" = "3,1" ]
check "given order: verified '$(field verified)'" [ "$(field verified)" = yes ]

# ---- --algorithm auto: the ranking of every algorithm that applies ------------------
# Each ranked line's estimate is the one tn-plan prints for that algorithm alone; the
# lines are in ascending order; the first is the choice, whose summary follows.
for topo in torus:4x4 ring:6; do
    run --topology $topo --algorithm auto --size 1MiB
    check "auto on $topo: exit $rc ($(cat "$tmp/err"))" [ "$rc" = 0 ]
    cp "$tmp/out" "$tmp/auto"
    awk '/^ +[0-9]+ / { print $2, $3 }' "$tmp/auto" > "$tmp/ranked"
    check "auto on $topo: some ranked" [ -s "$tmp/ranked" ]
    check "auto on $topo: ascending" sh -c "sort -s -g -k2 '$tmp/ranked' | cmp -s - '$tmp/ranked'"
    while read -r algo est; do
        run --topology $topo --algorithm "$algo" --size 1MiB --no-verify
        alone=$(field estimate | cut -d' ' -f1)
        check "auto on $topo: $algo ranked at $est us, alone $alone us" [ "$alone" = "$est" ]
    done < "$tmp/ranked"
    chosen=$(head -1 "$tmp/ranked" | cut -d' ' -f1)
    check "auto on $topo: first line chosen" grep -Eq "^ +1 $chosen .* chosen$" "$tmp/auto"
    check "auto on $topo: summary of $chosen" grep -q "^algorithm     $chosen\$" "$tmp/auto"
done
# inapplicable algorithms are skipped with their reason: swing needs 2^k ranks, ring2d a 2D torus
check "auto on ring:6: swing skipped" grep -Eq "^ +- swing +skipped: swing: " "$tmp/auto"
check "auto on ring:6: ring2d skipped" grep -Eq "^ +- ring2d +skipped: ring2d: " "$tmp/auto"
run --topology torus:4x4 --algorithm auto --size 1MiB --program generated
check "auto generated: exit $rc" [ "$rc" = 0 ]
check "auto generated: multitree skipped" \
    grep -Eq "^ +- multitree +skipped: multitree: no rank-local generator" "$tmp/out"
check "auto generated: estimates on programs" grep -Eq "^ +1 .* programs +chosen$" "$tmp/out"
expect_error 1 "auto: no algorithm applies to all-to-all on ring:4: direct: takes no rank order" \
    --topology ring:4 --algorithm auto --size 1MiB --collective alltoall --rank-order 0,1,3,2

# ---- errors -------------------------------------------------------------------------
expect_error 2 "algorithm.*unknown algorithm \\(see --list; auto ranks them all\\) 'nope'" \
    --topology ring:8 --algorithm nope --size 1MB
expect_error 2 "topology.*unknown kind 'blob'" --topology blob:8 --algorithm ring --size 1MB
expect_error 2 "size '12XB': unknown size unit 'XB'" --topology ring:8 --algorithm ring --size 12XB
# --opt=value is the same as --opt value (README: every program takes --opt=value)
run --topology=torus:4x4 --algorithm=ring --size=1MiB
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(field transfers)" = "$(run --topology torus:4x4 --algorithm ring --size 1MiB;
    field transfers)" ] || fail "tn-plan --topology=torus:4x4 ...: exit $rc ($(cat "$tmp/err"))"
expect_error 2 "option --no-verify: takes no value" --topology=ring:4 --algorithm=ring \
    --size=1KiB --no-verify=1
expect_error 2 "--size 'x' is not a number" --topology=ring:4 --algorithm=ring --size=x
expect_error 2 "size '-1' is not a number" --topology ring:8 --algorithm ring --size -1
expect_error 2 "size '' is not a number" --topology ring:8 --algorithm ring --size ""
expect_error 2 "size 'nan' is not a number" --topology ring:8 --algorithm ring --size nan
expect_error 2 "size '1.5B' is not a whole number of bytes" --topology ring:8 --algorithm ring --size 1.5B
expect_error 2 "size '5EB'" --topology ring:8 --algorithm ring --size 5EB
expect_error 2 "size '4194305TiB' is beyond 2\\^62" --topology ring:8 --algorithm ring --size 4194305TiB
expect_error 2 "size.*missing value" --topology ring:8 --algorithm ring --size
expect_error 2 "topology.*is required" --algorithm ring --size 1MB
expect_error 2 "algorithm.*is required" --topology ring:8 --size 1MB
expect_error 2 "size.*is required" --topology ring:8 --algorithm ring
expect_error 2 "unknown option" --topology ring:8 --algorithm ring --size 1MB --bogus
expect_error 2 "collective.*unknown collective" \
    --topology ring:8 --algorithm ring --size 1MB --collective allsum
expect_error 2 "chunks.*>= 1" --topology ring:8 --algorithm ring --size 1MB --chunks 0
expect_error 2 "topology.*cannot|topology.*open" \
    --topology @"$tmp/no-such-file.txt" --algorithm ring --size 1MB
expect_error 2 "root.*< 8" --topology ring:8 --algorithm ring --size 1MB \
    --collective broadcast --root 8
expect_error 2 "rank-order.*2 entries, expected one per rank \\(8\\)" \
    --topology ring:8 --algorithm ring --size 1MB --rank-order 0,1
expect_error 2 "rank-order.*rank 1 appears twice" \
    --topology ring:4 --algorithm ring --size 1MB --rank-order 0,1,1,2
expect_error 2 "rank-order.*entry 3 is 4, not a rank" \
    --topology ring:4 --algorithm ring --size 1MB --rank-order 0,1,2,4
expect_error 2 "rank-order.*comma separated" \
    --topology ring:4 --algorithm ring --size 1MB --rank-order 0,,1,2
expect_error 2 "rank-order.*only for ring.*'rhd'" \
    --topology ring:8 --algorithm rhd --size 1MB --rank-order identity
expect_error 2 "output.*cannot open" --topology ring:8 --algorithm ring --size 1MB \
    --dump csv --output "$tmp/no-such-dir/x.csv"
# planning failures: the algorithm does not apply
expect_error 1 "planning failed: ring2d: needs a 2D torus" \
    --topology ring:8 --algorithm ring2d --size 1MB
expect_error 1 "planning failed: hdrm:" --topology torus:4x4 --algorithm hdrm --size 1MB
expect_error 1 "planning failed: swing: needs a power-of-two number of ranks, got 12" \
    --topology torus:3x4 --algorithm swing --size 1MB
check "swing on torus:3x4: one error line" [ "$(wc -l < "$tmp/err")" -eq 1 ]
run --topology torus:8x8 --algorithm swing --size 64MiB
check "swing torus:8x8: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "swing torus:8x8: 12 steps ($(field steps))" [ "$(field steps)" = "12" ]
check "swing torus:8x8: verified ($(field verified))" [ "$(field verified)" = "yes" ]
expect_error 1 "planning failed: swing-torus: needs a torus or ring: dim 0 of topology 'mesh:4x4'" \
    --topology mesh:4x4 --algorithm swing-torus --size 1MB
run --topology torus:4x4 --algorithm swing-torus --size 16MiB
check "swing-torus torus:4x4: 8 steps ($(field steps))" [ "$(field steps)" = "8" ]
check "swing-torus torus:4x4: verified ($(field verified))" [ "$(field verified)" = "yes" ]
check "swing-torus torus:4x4: no conflicts ($(field contention))" \
    [ "$(field contention)" = "no claim; 0 conflicts over 512 (link, step) pairs" ]
# swing-lat: log2 p steps, p (log2 p + 1) local ops of the p (2 log2 p + 1) transfers, named
# in the dump
run --topology torus:4x4 --algorithm swing-lat --size 32KiB --dump csv
check "swing-lat torus:4x4: 4 steps ($(field steps))" [ "$(field steps)" = "4" ]
check "swing-lat torus:4x4: verified ($(field verified))" [ "$(field verified)" = "yes" ]
check "swing-lat torus:4x4: 144 transfers ($(field transfers))" [ "$(field transfers)" = "144" ]
check "swing-lat torus:4x4: 80 local ops ($(field 'local ops'))" \
    [ "$(field 'local ops')" = "80 (no network)" ]
check "swing-lat torus:4x4: 64 local reduces in the dump" \
    [ "$(grep -c ',local-reduce,' "$tmp/out")" -eq 64 ]
run --topology torus:4x4 --algorithm swing --size 32KiB
check "swing torus:4x4: no local ops line" [ -z "$(field 'local ops')" ]
# tacos: any topology, all-gather / reduce-scatter / all-reduce
run --topology ring:8 --algorithm tacos --collective allgather --size 8MiB
check "tacos ring:8 all-gather: 4 forced steps ($(field steps))" [ "$(field steps)" = "4" ]
check "tacos ring:8: verified ($(field verified))" [ "$(field verified)" = "yes" ]
run --topology fattree:k=4 --algorithm tacos --size 1MiB
check "tacos fattree:k=4: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "tacos fattree:k=4: 480 transfers ($(field transfers))" [ "$(field transfers)" = "480" ]
check "tacos fattree:k=4: no conflicts ($(field contention))" \
    sh -c "echo '$(field contention)' | grep -q '^claims contention-free; 0 conflicts over'"
expect_error 1 "planning failed: tacos: does not implement all-to-all" \
    --topology torus:4x4 --algorithm tacos --collective alltoall --size 1MiB
# a disconnected topology: the plan is symbolically right but has no paths (was exit 0)
printf '4 0 2\n\n0 1 100Gbps 1us 0\n2 3 100Gbps 1us 0\n' > "$tmp/disconnected.txt"
expect_error 1 "unreachable" --topology "@$tmp/disconnected.txt" --algorithm ring --size 1MiB
expect_error 1 "planning failed: tacos: topology .* is not connected without NPUs forwarding: 8 chunk copies can never arrive" \
    --topology "@$tmp/disconnected.txt" --algorithm tacos --collective allgather --size 1MiB
expect_error 1 "planning failed: dbt: does not implement all-gather" \
    --topology ring:8 --algorithm dbt --collective allgather --size 1MB

# ---- limits (issue 11) -------------------------------------------------------------
# too large is not malformed: the message gives the limit
expect_error 2 "N '4294967295' is too large \\(at most 4294967294\\)" \
    --topology ring:4294967295 --algorithm ring --size 1MiB
# a 14-byte header must not decide the allocation (was 4.2 GB before failing)
printf '200000000 0 0\n' > "$tmp/big.txt"
expect_error 2 "big.txt:1: N_nodes 200000000 but the file can name at most 0 nodes" \
    --topology "@$tmp/big.txt" --algorithm ring --size 1MiB
# 8.6e9 transfers: refused before building (grew to 9.6 GB)
expect_error 1 "8589803520 transfers.*at most 4294967294.*fewer ranks or chunks" \
    --topology fattree:k=64 --algorithm ring --size 64KiB --program schedule
# 2*63*64 transfers fit 10 MB, not 1 MB: the message says how large and what to change
expect_error 1 "ring all-reduce on 64 ranks with 1 chunk\\(s\\) \\(8064 transfers\\) would take about .* MiB, more than the memory limit 1.00 MiB" \
    --topology ring:64 --algorithm ring --size 1MiB --memory-limit 1MiB
# the topology is checked before it is generated (ring:100000000 took 28 GB)
expect_error 2 "ring: 200000 nodes and 200000 cables would take about 57.98 MiB, more than the memory limit 10.00 MiB" \
    --topology ring:200000 --algorithm rhd --size 1MiB --memory-limit 10MiB
run --topology ring:64 --algorithm ring --size 1MiB --memory-limit 10MiB
check "ring:64 within --memory-limit 10MiB: exit $rc" [ "$rc" = 0 ]
export TN_MEMORY_LIMIT=lots
expect_error 2 "TN_MEMORY_LIMIT" --topology ring:4 --algorithm ring --size 1KiB
unset TN_MEMORY_LIMIT
expect_error 2 "memory-limit.*'x'" --topology ring:4 --algorithm ring --size 1KiB --memory-limit x
# routing tables of 4096 x 4097 entries dominate rhd's 4096 * 14 * 2 transfers: said so (a
# topology file: a generated switch:4096 computes its routes and has no table)
{
    echo "4097 1 4096"
    echo "4096"
    awk 'BEGIN { for (i = 0; i < 4096; i++) print i, 4096, "100Gbps 1us 0" }'
} > "$tmp/star4096.txt"
expect_error 1 "rhd all-reduce on 4096 ranks.*routing tables \\(32.0[0-9] MiB\\).*topology with fewer nodes" \
    --topology "@$tmp/star4096.txt" --algorithm rhd --size 1MiB --memory-limit 40MiB
run --topology switch:4096 --algorithm rhd --size 1MiB --memory-limit 40MiB
check "switch:4096 rhd: planned within 40 MiB, routes without tables: $(field transfers) transfers" \
    [ "$(field transfers)" = 98304 ]
# the MultiTree limit in user terms (was "ranks 65536 > 65535 (N^2 tree state)")
expect_error 1 "multitree: 65536 NPUs, at most 65535" \
    --topology switch:65536 --algorithm multitree --size 1MiB
# Themis slots beyond the chunk count cost nothing (asked 64 GB)
run --topology torus:4x4 --algorithm themis --size 1MiB --active 4294967295
check "themis --active 4294967295: exit $rc ($(cat "$tmp/err"))" [ "$rc" = 0 ]
# big plans are not verified by default, and say so
run --topology ring:512 --algorithm ring --size 1MiB
check "ring:512: 2*511*512 transfers, got $(field transfers)" [ "$(field transfers)" = 523264 ]
check "ring:512: verification skipped with a reason" \
    grep -q "^verified      skipped: 523264 transfers > --verify-max 250000" "$tmp/out"
run --topology torus:4x4 --algorithm themis --size 1MiB --chunks 300 --verify-max 50000
check "--verify-max 50000 skips themis' 57600 transfers" \
    grep -q "^verified      skipped: 57600 transfers" "$tmp/out"
run --topology torus:4x4 --algorithm themis --size 1MiB --chunks 300 --verify-max 60000
check "--verify-max 60000 verifies 57600 transfers" [ "$(field verified)" = yes ]
# ---- the generated path (rank-local programs, no DAG) ------------------------------
# the ring all-reduce's closed form again, without the schedule
run --topology ring:8 --algorithm ring --size 8MiB --program generated
check "generated ring:8: exit $rc" [ "$rc" = 0 ]
check "generated ring:8: path '$(field path)'" sh -c "echo '$(field path)' | grep -q '^generated'"
check "generated ring:8: transfers $(field transfers)" [ "$(field transfers)" = 112 ]
check "generated ring:8: steps $(field steps)" [ "$(field steps)" = 14 ]
check "generated ring:8: ops of rank 0" grep -q "^rank program  28 ops at rank 0 (14 sends)" "$tmp/out"
expect=$(awk 'BEGIN { printf "%.6f", 14 * (150 + 8388608 / (8 * 16)) / 1e3 }')
est=$(field estimate | awk '{ print $1 }')
check "generated ring:8: estimate $est us, closed form $expect us" near "$est" "$expect"
check "generated ring:8: the estimate names its model" \
    sh -c "echo '$(field estimate)' | grep -q 'per-step model over the programs of 8 of 8 ranks'"
# auto takes the schedule for small plans and the programs for large ones
run --topology torus:4x4 --algorithm ring2d --size 1MiB
check "auto torus:4x4 ring2d: schedule ($(field path))" \
    sh -c "echo '$(field path)' | grep -q '^schedule: .*auto: about [0-9]* transfers <= 1000000'"
run --topology torus:64x64 --algorithm ring --size 64MiB
check "auto torus:64x64 ring: exit $rc" [ "$rc" = 0 ]
check "auto torus:64x64 ring: generated ($(field path))" \
    sh -c "echo '$(field path)' | grep -q '^generated: .*auto: 33546240 transfers > 1000000'"
check "auto torus:64x64 ring: transfers 2N(N-1)" [ "$(field transfers)" = 33546240 ]
run --topology torus:4x4 --algorithm multitree --size 1MiB --program generated
check "multitree has no generator: exit $rc" [ "$rc" = 1 ]
check "multitree has no generator: says so" grep -q "multitree: has no rank-local generator" "$tmp/err"
expect_error 2 "program: must be auto, generated or schedule 'fast'" \
    --topology ring:4 --algorithm ring --size 1KiB --program fast
expect_error 2 "dump.*add --program schedule" \
    --topology ring:4 --algorithm ring --size 1KiB --program generated --dump csv
# the memory guard covers generated plans
expect_error 1 "generated plan: ring all-reduce on 64 ranks with 1 chunk\\(s\\) would take about .* more than the memory limit 1.00 MiB" \
    --topology ring:64 --algorithm ring --size 1MiB --memory-limit 1MiB --program generated

# failed writes exit non-zero with one error line (were exit 0)
for out in "" "--list" "--help"; do
    if [ -n "$out" ]; then
        "$plan" $out > /dev/full 2> "$tmp/err"
    else
        "$plan" --topology ring:4 --algorithm ring --size 1KiB --dump csv > /dev/full 2> "$tmp/err"
    fi
    rc=$?
    check "tn-plan ${out:-summary and dump} > /dev/full: exit $rc" [ "$rc" = 1 ]
    check "tn-plan ${out:-summary and dump} > /dev/full: one error line" \
        [ "$(grep -c 'tn-plan: writing .* failed: No space left on device' "$tmp/err")" = 1 ]
done
run --topology ring:4 --algorithm ring --size 1KiB --dump csv --output /dev/full
check "--output /dev/full: exit $rc" [ "$rc" = 1 ]
check "--output /dev/full: one error line" \
    [ "$(grep -c "output: writing '/dev/full' failed: No space left" "$tmp/err")" = 1 ]

if [ "$failures" -gt 0 ]; then
    echo "tn-plan: $failures of $checks checks failed"
    exit 1
fi
echo "tn-plan: $checks checks passed"
