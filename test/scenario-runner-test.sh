#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The scenario runner and the report end to end (ctest scenario/runner):
#   - the quickstart scenario runs, exits 0, records one ok run with its collective, and
#     prints the summary and the database path;
#   - a 4-point sweep (2 algorithms x 2 sizes, given with --set) with -j 2 records 4 ok runs
#     in one database, one per point of the cartesian product;
#   - every bad scenario (unknown key, wrong type, impossible topology, missing workload
#     file, malformed TOML, empty sweep, bad ns-3 attribute value, bad --set, ...) exits 2
#     with one error line naming the file, the line and the key, and records no run;
#   - a run that fails (every queue pair past its retry limit) records why in run.error, in
#     the runner and in every example program that writes a database;
#   - a run far slower than its plan's cost (TIMELY stuck at its floor) is stopped at 1000 x
#     that cost, at least 1 simulated second, with the reason in run.error;
#   - training-net-report draws the quickstart database: valid non-empty PNGs and an HTML
#     page whose every image exists.
# Usage: scenario-runner-test.sh RUNNER MODULE_DIR
set -u
runner=$1
top=$2
report=$top/utils/training-net-report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

q() { sqlite3 "$1" "$2" 2>&1; }

# --- the quickstart -------------------------------------------------------------------
db=$tmp/quick.db
if ! "$runner" "$top/scenarios/quickstart.toml" --db "$db" --test-size > "$tmp/out" 2> "$tmp/err"; then
    fail "quickstart exited non-zero: $(cat "$tmp/err")"
fi
[ "$(q "$db" "SELECT count(*) FROM run WHERE status = 'ok'")" = 1 ] ||
    fail "quickstart: expected one ok run, got: $(q "$db" 'SELECT run_id, status FROM run')"
[ "$(q "$db" "SELECT count(*) FROM collective WHERE algorithm = 'multitree' AND bytes = 262144
              AND end_ns > start_ns AND busbw_Bps > 0")" = 1 ] ||
    fail "quickstart: no finished multitree collective of 256 KiB (the [test] size)"
# The summary's busbw is the database's, to the printed precision.
busbw=$(q "$db" "SELECT printf('%.2f', busbw_Bps / 1e9) FROM collective")
grep -q "multitree .* $busbw " "$tmp/out" || fail "quickstart: summary lacks busbw $busbw: $(cat "$tmp/out")"
grep -q "recorded in $db" "$tmp/out" || fail "quickstart: summary does not name the database"
[ -s "$tmp/err" ] && fail "quickstart: unexpected stderr (progress off a terminal?): $(cat "$tmp/err")"

# --- a 4-point sweep in 2 processes -----------------------------------------------------
sweep=$tmp/sweep.db
if ! "$runner" "$top/scenarios/quickstart.toml" --db "$sweep" -j 2 \
    --set 'collective.algorithm=["multitree", "ring"]' --set 'collective.bytes=["64KiB", 131072]' \
    > "$tmp/out" 2> "$tmp/err"; then
    fail "sweep exited non-zero: $(cat "$tmp/err")"
fi
got=$(q "$sweep" "SELECT c.algorithm || ':' || c.bytes FROM run r JOIN collective c USING (run_id)
                   WHERE r.status = 'ok' ORDER BY 1" | tr '\n' ' ')
[ "$got" = "multitree:131072 multitree:65536 ring:131072 ring:65536 " ] ||
    fail "sweep: expected the 4 points of the product, got '$got'"
[ "$(q "$sweep" "SELECT count(DISTINCT json_extract(params_json, '$.sweep')) FROM run")" = 4 ] ||
    fail "sweep: the runs do not record their 4 distinct sweep points"
# Ring all-reduce moves 2(N-1)/N of S per NPU over one link: its busbw cannot beat the link.
q "$sweep" "SELECT busbw_Bps FROM collective WHERE algorithm = 'ring'" | while read -r b; do
    awk -v b="$b" 'BEGIN { exit !(b > 0 && b <= 16e9) }' || echo "ring busbw $b" >> "$tmp/bad"
done
[ -f "$tmp/bad" ] && fail "sweep: ring busbw beyond the 16 GB/s link: $(cat "$tmp/bad")"

# --- a system preset: 2 DGX-H100 on a rail-optimized fabric (tn-topology.h) ------------
pdb=$tmp/preset.db
printf '[topology]\npreset = "dgx-h100"\nservers = 2\nfabric = "rail-optimized"\n[[collective]]\nalgorithm = "ring"\nbytes = "1MiB"\n' > "$tmp/preset.toml"
"$runner" "$tmp/preset.toml" --db "$pdb" --set mode=flow > "$tmp/out" 2> "$tmp/err" ||
    fail "preset: exit non-zero: $(cat "$tmp/err")"
# 16 GPUs, 2 NVSwitches, 8 rail leaves and 8 spines
[ "$(q "$pdb" "SELECT group_concat(kind || ':' || n) FROM (SELECT kind, count(*) AS n FROM node GROUP BY kind ORDER BY kind)")" = "npu:16,switch:18" ] ||
    fail "preset: nodes $(q "$pdb" 'SELECT kind, count(*) FROM node GROUP BY kind')"
q "$pdb" "SELECT params_json FROM run" | grep -q '"topology.preset":"dgx-h100","topology.servers":2' ||
    fail "preset: parameters $(q "$pdb" 'SELECT params_json FROM run')"

# sharp = true: NCCL's tuner runs CollNet on the SHARP fabric and the row records it (1 MiB
# on 2 DGX-H100: 50.4 us against the tree's LL128 59.4 in NCCL's model, doc/core-algorithms.rst)
printf '[topology]\npreset = "dgx-h100"\nservers = 2\nsharp = true\n[[collective]]\nalgorithm = "nccl"\nbytes = "1MiB"\n' > "$tmp/sharp.toml"
"$runner" "$tmp/sharp.toml" --db "$tmp/sharp.db" --set mode=flow > "$tmp/out" 2> "$tmp/err" ||
    fail "sharp: exit non-zero: $(cat "$tmp/err")"
[ "$(q "$tmp/sharp.db" "SELECT algorithm || ',' || protocol FROM collective")" = "nccl:collnet:simple,simple" ] ||
    fail "sharp: recorded $(q "$tmp/sharp.db" 'SELECT algorithm, protocol FROM collective')"

# --- bad scenarios: one error line with file, line and key; exit 2; no run -------------
# case FILE-CONTENT EXPECTED-REGEX [RUNNER-ARGS...]
n=0
bad() {
    n=$((n + 1))
    f=$tmp/bad$n.toml
    printf '%b' "$1" > "$f"
    expect=$2
    shift 2
    bdb=$tmp/bad$n.db
    "$runner" "$f" --db "$bdb" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ "$rc" = 2 ] || fail "bad case $n: exit $rc, expected 2 ($(cat "$tmp/err"))"
    [ "$(wc -l < "$tmp/err")" = 1 ] || fail "bad case $n: expected one error line, got: $(cat "$tmp/err")"
    grep -Eq "$expect" "$tmp/err" || fail "bad case $n: '$(cat "$tmp/err")' does not match '$expect'"
    if [ -f "$bdb" ] && [ "$(q "$bdb" 'SELECT count(*) FROM run')" != 0 ]; then
        fail "bad case $n: run rows were created"
    fi
}
ok='[topology]\nspec = "torus:4x4"\n[[collective]]\nalgorithm = "ring"\nbytes = "1MiB"\n'
bad '[topology]\nspec = "torus:4x4"\nrate = 1\n[[collective]]\nbytes = 1\n' \
    "bad1.toml:3:1: topology.rate: unknown key"
bad '[topology]\nspec = "torus:4x4"\n[[collective]]\nbytes = true\n' \
    "bad2.toml:4:9: collective\[0\].bytes: expected a size .*got a boolean"
bad '[topology]\nspec = "torus:4x0"\n[[collective]]\nbytes = 1\n' \
    "bad3.toml:2:8: topology.spec: torus: .*must be >= 2"
bad '[topology]\nspec = "ring:8"\n[training]\nworkload = "no-such-workload.txt"\n' \
    "bad4.toml:4:12: training.workload: .*no-such-workload.txt.*No such file"
bad '[topology\nspec = "ring:8"\n' "bad5.toml:1:[0-9]+: malformed TOML"
bad '[topology]\nspec = "ring:8"\n[[collective]]\nbytes = []\n' \
    "bad6.toml:4:9: collective\[0\].bytes: an empty list"
bad '[topology]\nspec = "ring:8"\n[roce]\n"ns3::RdmaNic::Mtu" = "abc"\n[[collective]]\nbytes = 1\n' \
    "bad7.toml:4:23: roce.ns3::RdmaNic::Mtu: 'abc' is not a valid value"
bad '[topology]\nspec = "ring:8"\n[roce]\n"ns3::RdmaNic::Mtu" = 100000\n[[collective]]\nbytes = 1\n' \
    "bad8.toml:4:23: roce.ns3::RdmaNic::Mtu: '100000' is not a valid value .*256:9000"
bad '[topology]\nspec = "ring:8"\n[[collective]]\nbytes = 1\nalgorithm = "ring2d"\n' \
    "bad9.toml:5:13: collective\[0\].algorithm: ring2d: needs a 2D torus"
bad "$ok" "bad10.toml: --set seed=0: seed: 0 is out of range" --set seed=0
bad "$ok" "bad11.toml: --set collective.bytes=\[1, \"x\"\]: collective\[0\].bytes: " \
    --set 'collective.bytes=[1, "x"]'
bad "$ok" "bad12.toml: --set npu.Engin=ace: npu.Engin: ns3::NpuEndpoint has no attribute 'Engin'" \
    --set npu.Engin=ace
bad "$ok" "bad13.toml: --set collective.bytes=\[\]: collective\[0\].bytes: an empty list" \
    --set 'collective.bytes=[]'
bad '[topology]\nfile = "no-such-topology.txt"\n[[collective]]\nbytes = 1\n' \
    "bad14.toml:2:8: topology.file: .*no-such-topology.txt"
bad '[topology]\nspec = "ring:8"\n[[collective]]\nbytes = 1\n[training]\nworkload = "x"\n' \
    "bad15.toml:3:1: collective: give \[\[collective\]\], \[training\] or \[\[job\]\], one of them"
bad '[topology]\nspec = "ring:8"\n' "bad16.toml: nothing to run: add \[\[collective\]\]"
bad "$ok" "bad17.toml: --set routing=direct: routing: 'direct' is not one of planned, ecmp" \
    --set routing=direct
bad '[topology]\nspec = "ring:8"\n[[collective]]\nbytes = 1\nstart = "1e300s"\n' \
    "bad18.toml:5:9: collective\[0\].start: "
# A sweep with one bad point fails before any point runs.
bad "$ok" "bad19.toml: --set topology.spec=\[\"torus:4x4\", \"torus:1x4\"\]: topology.spec: torus" \
    --set 'topology.spec=["torus:4x4", "torus:1x4"]'
# Values ns-3's own parsers abort on, refused by the one validator (issue 23).
bad '[topology]\nspec = "ring:8"\n[roce]\n"ns3::RdmaNic::Mtu" = "1e309"\n[[collective]]\nbytes = 1\n' \
    "bad20.toml:4:23: roce.ns3::RdmaNic::Mtu: '1e309' is not a valid value .*whole number"
bad "$ok" "bad21.toml: --set roce.ns3::RdmaDcqcnControl::MinRate=1 Gbps: .*'1 Gbps' is not a valid value" \
    --set 'roce.ns3::RdmaDcqcnControl::MinRate=1 Gbps'
# Checked though not used: the database key under --db, [test] without --test-size.
bad "$ok" "bad22.toml: --set database=1: database: expected a string" --set database=1
bad "${ok}[test]\n\"collective.nosuchkey\" = 1\n" \
    "\[test\] \(--test-size\): .*collective\[0\].nosuchkey: unknown key"
# A sweep past the limit is refused with its count before any point is read.
l300=$(seq -s, 1 300)
bad "$ok" "bad24.toml: the sweep has 27000000 points .*at most 100000" \
    --set "collective.bytes=[$l300]" --set "collective.chunks=[$l300]" --set "seed=[$l300]"
# The command line: whole-text numbers, one line for an unknown option.
bad "$ok" "training-net-run: --jobs ' 2' is not a whole number" -j ' 2'
bad "$ok" "training-net-run: --jobs '\+2' is not a whole number" -j +2
bad "$ok" "training-net-run: unknown option '--bogus'" --bogus
bad "$ok" "training-net-run: unexpected argument" extra.toml
# A long value is quoted shortened: one line of at most 400 characters.
long=$(head -c 100000 /dev/zero | tr '\0' x)
bad "$ok" "training-net-run: .*more bytes" --set "roce.ns3::RdmaNic::Mtu=$long"
[ "$(wc -c < "$tmp/err")" -le 401 ] || fail "a 100 KB value makes a $(wc -c < "$tmp/err")-byte error line"
# Congestion control: an unknown name, and parameters its class accepts one by one but the
# NIC cannot work with, refused at their key before anything runs.
bad '[topology]\nspec = "ring:8"\n[roce]\ncc = "hpc"\n[[collective]]\nbytes = 1\n' \
    "bad30.toml:4:[0-9]+: roce.cc: expected a congestion control: dcqcn, hpcc"
bad '[topology]\nspec = "ring:8"\n[roce]\ncc = "hpcc"\n"ns3::RdmaHpcc::TargetUtilization" = 1.5\n[[collective]]\nbytes = 1\n' \
    "bad31.toml:5:[0-9]+: roce.ns3::RdmaHpcc::TargetUtilization: ns3::RdmaHpcc::TargetUtilization must be in \\(0, 1\\]"
bad '[topology]\nspec = "ring:8"\n[roce]\ncc = "timely"\n"ns3::RdmaTimely::LowThreshold" = "600us"\n[[collective]]\nbytes = 1\n' \
    "bad32.toml:5:[0-9]+: roce.ns3::RdmaTimely::LowThreshold: .*below HighThreshold"

# Rates below 1 Gbit/s (a link, the NIC's injection, the NPU's memory): refused at their key,
# not simulated for simulated days.
bad '[topology]\nspec = "ring:4,rate=1bps"\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:2:8: topology.spec: link 0 .*rate 1bps is below .*rate at least 1000000000bps"
bad '[topology]\nspec = "ring:4"\n[roce]\n"ns3::RdmaNic::InjectionRate" = "1bps"\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:4:[0-9]+: roce.ns3::RdmaNic::InjectionRate: .*1bps is below"
bad '[topology]\nspec = "ring:4"\n[npu]\nMemoryBandwidth = "1bps"\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:4:[0-9]+: npu.MemoryBandwidth: ns3::NpuEndpoint::MemoryBandwidth 1bps is below"
# An NPU clock below 1 MHz, a congestion control's floor below 1 Mbit/s: refused at their key.
bad '[topology]\nspec = "ring:4"\n[npu]\nClockRate = 999999\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:4:13: npu.ClockRate: ns3::NpuEndpoint::ClockRate 999999 Hz is below .*at least 1000000 Hz"
bad '[topology]\nspec = "ring:4"\n[roce]\ncc = "timely"\n"ns3::RdmaTimely::MinRate" = "1bps"\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:5:[0-9]+: roce.ns3::RdmaTimely::MinRate: .*1bps is below .*at least 1000000bps"
bad '[topology]\nspec = "ring:4"\n[roce]\n"ns3::RdmaDcqcnControl::MinRate" = "999kbps"\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:4:[0-9]+: roce.ns3::RdmaDcqcnControl::MinRate: .*999000bps is below"
# DCQCN's parameters moved from the NIC to its class: the old path is refused naming the new one.
bad '[topology]\nspec = "ring:4"\n[roce]\n"ns3::RdmaNic::DcqcnG" = "0.5"\n[[collective]]\nbytes = 1\n' \
    "bad[0-9]+.toml:4:[0-9]+: roce.ns3::RdmaNic::DcqcnG: ns3::RdmaNic::DcqcnG is obsolete: moved to ns3::RdmaDcqcnControl::G\$"
# Algorithm names: one home (tn_tune_algorithm_check), auto among them; unknown ones named.
bad '[topology]\nspec = "ring:4"\n[[collective]]\nbytes = 1\nalgorithm = "rign"\n' \
    "bad[0-9]+.toml:5:13: collective\\[0\\].algorithm: unknown algorithm 'rign' \\(known: ring, .*, auto\\)"
bad "[topology]\\nspec = \"ring:8\"\\n[training]\\nworkload = \"$(cd "$top" && pwd)/test/data/workloads/Resnet50_DataParallel.txt\"\\nalgorithm = \"Auto\"\\n" \
    "bad[0-9]+.toml:5:13: training.algorithm: unknown algorithm 'Auto'"
# a system preset: servers, gpus and fabric need it; its errors name topology.preset
bad '[topology]\nservers = 2\n[[collective]]\nbytes = 1\n' \
    "bad$((n + 1)).toml:1:1: topology.preset: servers, gpus, fabric and sharp need preset"
bad '[topology]\npreset = "dgx-h100"\nspec = "ring:8"\n[[collective]]\nbytes = 1\n' \
    "bad$((n + 1)).toml:1:1: topology.preset: give preset, spec or file, one of them"
bad '[topology]\npreset = "dgx-h100"\ngpus = 9\n[[collective]]\nbytes = 1\n' \
    "bad$((n + 1)).toml:2:10: topology.preset: .*gpus = 9 must be in \\[2, 8\\]"
# sharp = true (the fabric's switches reduce) needs a fabric: 2 servers or more
bad '[topology]\npreset = "dgx-h100"\nsharp = true\n[[collective]]\nbytes = 1\n' \
    "bad$((n + 1)).toml:2:10: topology.preset: .*sharp=1 needs servers >= 2"
# [sampling] ports: a mode StatsRecorder::PortSampling reads, else one line
bad '[topology]\nspec = "ring:8"\n[sampling]\nports = "busiest:0"\n[[collective]]\nbytes = 1\n' \
    "bad$((n + 1)).toml:4:9: sampling.ports: 'busiest:0': K of busiest:K must be a whole number"
bad "$ok" "bad$((n + 1)).toml: --set sampling.ports=some: sampling.ports: 'some' is not all, none, per-dimension or busiest:K" \
    --set sampling.ports=some
# and a mode given runs: per-dimension on torus:4x4 samples NPU 0's four ports
printf '%b' "$ok" > "$tmp/ports.toml"
"$runner" "$tmp/ports.toml" --db "$tmp/ports.db" --set sampling.ports=per-dimension > "$tmp/out" 2> "$tmp/err" ||
    fail "sampling.ports: exit non-zero: $(cat "$tmp/err")"
[ "$(q "$tmp/ports.db" "SELECT group_concat(node_id || ':' || port) FROM (SELECT DISTINCT node_id, port FROM port_sample ORDER BY 1, 2)")" = "0:0,0:1,0:2,0:3" ] ||
    fail "sampling.ports: per-dimension sampled $(q "$tmp/ports.db" 'SELECT DISTINCT node_id, port FROM port_sample')"
q "$tmp/ports.db" "SELECT params_json FROM run" | grep -q '"port_sampling":"per-dimension"' ||
    fail "sampling.ports: parameters $(q "$tmp/ports.db" 'SELECT params_json FROM run')"

# --- algorithm = "auto": the tuner's choice runs, its row records choice and runner-up ---
printf '[topology]\nspec = "torus:4x4"\n[[collective]]\nalgorithm = "auto"\nbytes = ["32KiB", "2MiB"]\n' \
    > "$tmp/auto.toml"
if ! "$runner" "$tmp/auto.toml" --db "$tmp/auto.db" > "$tmp/out" 2> "$tmp/err"; then
    fail "auto scenario exited non-zero: $(cat "$tmp/err")"
fi
got=$(q "$tmp/auto.db" "SELECT count(*) FROM collective WHERE requested_algorithm = 'auto'
        AND algorithm != 'auto' AND runner_up IS NOT NULL AND runner_up != algorithm
        AND choice_estimated_ns = estimated_ns AND runner_up_estimated_ns >= estimated_ns
        AND end_ns > start_ns")
[ "$got" = 2 ] || fail "auto scenario: expected 2 rows with choice and runner-up, got $got:
    $(q "$tmp/auto.db" 'SELECT * FROM collective')"

# A database of another program (issue 23): refused with one line naming the file and what
# is foreign, exit 2, and the file left byte for byte as it was.
for foreign in "CREATE TABLE notes (a); INSERT INTO notes VALUES ('keep me')" \
    "PRAGMA user_version = 7; CREATE TABLE notes (a)"; do
    fdb=$tmp/foreign.db
    rm -f "$fdb"
    sqlite3 "$fdb" "$foreign"
    before=$(cksum < "$fdb")
    "$runner" "$top/scenarios/quickstart.toml" --db "$fdb" --test-size > "$tmp/out" 2> "$tmp/err"
    rc=$?
    { [ $rc = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
        grep -Eq "foreign.db: (table 'notes' is not part|PRAGMA user_version is 7)" "$tmp/err"; } ||
        fail "foreign database ($foreign): exit $rc, $(cat "$tmp/err")"
    [ "$(cksum < "$fdb")" = "$before" ] && [ ! -e "$fdb-wal" ] ||
        fail "foreign database ($foreign): the file was changed"
done

# --- a failed run records why (run.error) ---------------------------------------------------
# A 1 ns retransmission timeout with one retry fails every queue pair: each program exits 1
# and its run is 'error' with the reason in run.error (NULL before, except in the runner).
examples=$(dirname "$runner")
retry="--ns3::RdmaNic::RetransmitTimeout=1ns --ns3::RdmaNic::RetryLimit=1"
failed() { # label, database, expected run.error (regular expression); then the command
    label=$1 fdb=$2 expect=$3
    shift 3
    rm -f "$fdb"
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ "$rc" = 1 ] || fail "$label: exit $rc, expected 1 ($(cat "$tmp/err"))"
    got=$(q "$fdb" "SELECT status || ': ' || coalesce(error, 'NULL') FROM run")
    [ -n "$got" ] || fail "$label: no run recorded"
    echo "$got" | while read -r line; do
        echo "$line" | grep -Eq "^error: $expect" || echo "$line"
    done > "$tmp/bad-runs"
    [ -s "$tmp/bad-runs" ] && fail "$label: run not 'error: $expect': $(cat "$tmp/bad-runs")"
}
# shellcheck disable=SC2086
failed quickstart "$tmp/f1.db" "the collective did not run as planned: .*retry limit exceeded" \
    "$examples/training-net-quickstart" --topology=ring:4 --db="$tmp/f1.db" $retry
# shellcheck disable=SC2086
failed collective-comparison "$tmp/f2.db" "the collective did not run as planned: .*retry limit" \
    "$examples/collective-comparison" --topology=ring:4 --algorithms=ring,direct --bytes=65536 \
    --db="$tmp/f2.db" $retry
# shellcheck disable=SC2086
failed themis-comparison "$tmp/f3.db" "(fixed|themis) did not run as planned: .*retry limit" \
    "$examples/themis-comparison" --topology=hier:switch2@100Gbps+switch2@100Gbps --bytes=65536 \
    --chunks=4 --schedulers=fixed,themis --db="$tmp/f3.db" $retry
# shellcheck disable=SC2086
failed training-iteration "$tmp/f4.db" "the training job did not complete" \
    "$examples/training-iteration" --workload="$top/test/data/workloads/microAllReduce.txt" \
    --topology=switch:4 --db="$tmp/f4.db" $retry
# shellcheck disable=SC2086
failed cc-comparison "$tmp/f5.db" "the collective did not run as planned: .*retry limit" \
    "$examples/cc-comparison" --bytes=65536 --db="$tmp/f5.db" $retry
printf '[topology]\nspec = "ring:4"\n[roce]\n"ns3::RdmaNic::RetransmitTimeout" = "1ns"\n"ns3::RdmaNic::RetryLimit" = 1\n[[collective]]\nalgorithm = "ring"\nbytes = 65536\n' > "$tmp/retry.toml"
failed training-net-run "$tmp/f6.db" "collective\[0\] \(ring\) did not run as planned: .*retry limit" \
    "$runner" "$tmp/retry.toml" --db "$tmp/f6.db"

# --- the simulated time limit from the plan's cost -------------------------------------------
# TIMELY whose increase steps are 1 bit/s stays at a 1 Mbit/s floor once cut: the incast's
# all-to-all would take 2.8 simulated seconds against the cost model's 0.69 ms. Every program
# stops it at 1000 x its plan's cost, at least 1 s, with the reason in run.error, exit 1.
slow="--ns3::RdmaTimely::AdditiveIncrease=1bps --ns3::RdmaTimely::HyperIncrease=1bps --ns3::RdmaTimely::MinRate=1Mbps"
limit="simulated time reached 1 s, the limit of this run \(1000 x the cost model's estimate of the plan, [0-9.e-]+ s, at least 1 s\): .*ns3::StatsRecorder::SimulatedTimeLimit"
# shellcheck disable=SC2086
failed "cc-comparison (limit)" "$tmp/l1.db" "$limit" \
    "$examples/cc-comparison" --cc=timely --db="$tmp/l1.db" $slow
[ "$(q "$tmp/l1.db" "SELECT count(*) FROM collective WHERE end_ns IS NULL")" = 1 ] ||
    fail "cc-comparison (limit): the collective stopped at the limit is not recorded unfinished"
printf '[topology]\nspec = "leafspine:leaves=2,spines=1,hosts=4,oversub=4,rate=100Gbps,latency=1us"\n[roce]\ncc = "timely"\n"ns3::RdmaTimely::AdditiveIncrease" = "1bps"\n"ns3::RdmaTimely::HyperIncrease" = "1bps"\n"ns3::RdmaTimely::MinRate" = "1Mbps"\n[[collective]]\nop = "all-to-all"\nalgorithm = "direct"\nbytes = "4MiB"\n' > "$tmp/slow.toml"
failed "training-net-run (limit)" "$tmp/l2.db" "$limit" "$runner" "$tmp/slow.toml" --db "$tmp/l2.db"
grep -q "training-net-run: .*simulated time reached 1 s" "$tmp/err" ||
    fail "training-net-run (limit): no error line names the limit: $(cat "$tmp/err")"
# a limit set by the attribute wins; the quickstart's error line says why it stopped
failed "quickstart (limit)" "$tmp/l3.db" \
    "simulated time reached 0.0001 s, the limit ns3::StatsRecorder::SimulatedTimeLimit sets" \
    "$examples/training-net-quickstart" --db="$tmp/l3.db" --ns3::StatsRecorder::SimulatedTimeLimit=100us
grep -q "^training-net-quickstart: simulated time reached 0.0001 s" "$tmp/err" ||
    fail "quickstart (limit): the error line does not name the limit: $(cat "$tmp/err")"

# a PortSampling option no mode reads: one line naming the option, exit 2, no run
for program in training-net-quickstart training-iteration; do
    "$examples/$program" --db="$tmp/ps.db" --ns3::StatsRecorder::PortSampling=busiest:0 > "$tmp/out" 2> "$tmp/err"
    rc=$?
    { [ $rc = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
        grep -q "^$program: .*'busiest:0' is not a valid value for ns3::StatsRecorder::PortSampling (expected all, none, per-dimension or busiest:K" "$tmp/err"; } ||
        fail "$program --ns3::StatsRecorder::PortSampling=busiest:0: exit $rc, $(cat "$tmp/err")"
    if [ -f "$tmp/ps.db" ] && [ "$(q "$tmp/ps.db" 'SELECT count(*) FROM run')" != 0 ]; then
        fail "$program: a refused PortSampling created a run"
    fi
done

# an ns-3 study (no NPU, no dimension): per-dimension is one port, the lowest node's lowest
"$examples/p2p-study-stats" --seconds=1 --db="$tmp/p2p.db" --ns3::StatsRecorder::PortSampling=per-dimension > "$tmp/out" 2>&1 ||
    fail "p2p-study-stats per-dimension: $(cat "$tmp/out")"
[ "$(q "$tmp/p2p.db" "SELECT group_concat(DISTINCT node_id || ':' || port) FROM port_sample")" = "0:0" ] ||
    fail "p2p-study-stats per-dimension: sampled $(q "$tmp/p2p.db" 'SELECT DISTINCT node_id, port FROM port_sample')"
q "$tmp/p2p.db" "SELECT params_json FROM run" | grep -q '"port_sampling":"per-dimension"' ||
    fail "p2p-study-stats: parameters $(q "$tmp/p2p.db" 'SELECT params_json FROM run')"

# --- the report ---------------------------------------------------------------------------
if ! "$report" "$db" -o "$tmp/report" > "$tmp/out" 2> "$tmp/err"; then
    fail "report exited non-zero: $(cat "$tmp/err")"
fi
[ -f "$tmp/report/index.html" ] || fail "report: no index.html"
images=$(grep -o 'src="[^"]*"' "$tmp/report/index.html" | sed 's/src="//; s/"$//' | sort -u)
[ "$(echo "$images" | grep -c png)" -ge 4 ] || fail "report: expected >= 4 images, page names: $images"
for img in $images; do
    f=$tmp/report/$img
    if [ ! -s "$f" ]; then
        fail "report: $img named by the page is missing or empty"
    elif [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
        fail "report: $img is not a PNG"
    fi
done
"$report" "$tmp/none.db" > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "none.db: no such file" "$tmp/err" || fail "report: a missing database"
# Damaged or foreign files: one line naming what is wrong, never a traceback.
head -c 8192 /dev/urandom > "$tmp/noise.db"
sqlite3 "$tmp/other.db" "CREATE TABLE x (a)"
cp "$db" "$tmp/damaged.db"
python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
for i in range(4096, len(d), 97):
    d[i] = 0xff
open(sys.argv[1], 'wb').write(d)" "$tmp/damaged.db"
for f in noise other damaged; do
    "$report" "$tmp/$f.db" -o "$tmp/r-$f" > /dev/null 2> "$tmp/err"
    rc=$?
    { [ $rc = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
        grep -Eq "$f.db: (not a training-net database|the database is corrupted)" "$tmp/err"; } ||
        fail "report on $f.db: exit $rc, $(cat "$tmp/err")"
done

if [ "$failures" = 0 ]; then
    echo "scenario runner: quickstart, a 4-point sweep with -j 2, $n bad scenarios, the report: ok"
fi
[ "$failures" = 0 ]
