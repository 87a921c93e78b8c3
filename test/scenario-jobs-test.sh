#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Several jobs on one fabric ([[job]], ctest scenario/jobs):
#   - two ring all-reduce jobs on disjoint halves of a k=4 fat-tree (full bisection) with
#     planned routing, at flow and packet level: every iteration of each job lasts exactly
#     as long as in its run alone (isolate = true, same database), and no less than the ring's
#     bandwidth bound 2(N-1)/N S / B;
#   - scenarios/two-jobs.toml (interleaved jobs sharing the edge uplinks under ECMP), flow
#     and packet level: both jobs slowed against their runs alone, the ports both may cross
#     in shared_ports with traffic on them, at flow level the bytes of each job per port
#     (job_port.tx_bytes) adding up to the port's and some port carrying both jobs' bytes,
#     NULL at packet level, every iteration, layer, collective and transfer
#     row naming its job, every transfer between NPUs of its own job; run twice, the same rows;
#   - training-net-report draws the jobs' slowdown and the shared ports (with matplotlib);
#   - a SimAI workload and a text workload as jobs of one scenario, on NPUs listed out of
#     order and spread, and an LLM program as a job: they run, each on its own NPUs;
#   - [training] placement = [3, 2, 1, 0]: one run, rank r on NPU 3 - r (a list, not a sweep);
#   - random placement: the same seed gives the same NPUs;
#   - two jobs each with a run-time scheduler (themis-scf) on the halves of a ring x switch
#     system, at flow and packet level: each over its own dims (the sub-collectives of its ring and switch
#     groups), each iteration exactly as alone, no port shared, above the all-reduce's bound;
#   - bad jobs (overlapping NPUs, more NPUs than the topology has, an NPU out of range, an
#     unknown placement, a run-time scheduler on NPUs that are no sub-grid (half a ring, a
#     server and one more NPU), [[job]] beside [training], flow-symmetric)
#     are refused with one line naming the file, line and key, exit 2, and no database.
# Usage: scenario-jobs-test.sh RUNNER MODULE_DIR
set -u
runner=$1
top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
wl=$top/test/data/workloads/microAllReduce.txt

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

q() { sqlite3 "$1" "$2" 2>&1; }

# --- disjoint halves, planned routing: each job exactly as alone -----------------------
cat > "$tmp/disjoint.toml" << EOF
routing = "planned"
isolate = true
[topology]
spec = "fattree:k=4,rate=100Gbps,latency=1us"
[sampling]
interval = "10us"
[[job]]
name = "left"
npus = [0, 1, 2, 3, 4, 5, 6, 7]
workload = "$wl"
iterations = 2
algorithm = "ring"
[[job]]
name = "right"
npus = 8
start = "3us"
workload = "$wl"
iterations = 2
algorithm = "ring"
EOF
for mode in flow packet; do
    db=$tmp/disjoint-$mode.db
    "$runner" "$tmp/disjoint.toml" --db "$db" --set mode=$mode > "$tmp/out" 2> "$tmp/err" ||
        fail "disjoint $mode: exit non-zero: $(cat "$tmp/err")"
    [ "$(q "$db" "SELECT count(*) FROM run WHERE status = 'ok'")" = 3 ] ||
        fail "disjoint $mode: expected 3 ok runs (2 alone, 1 together): $(q "$db" 'SELECT * FROM run')"
    [ "$(q "$db" "SELECT npus FROM job WHERE run_id = 3 AND job_id = 2")" = "8,9,10,11,12,13,14,15" ] ||
        fail "disjoint $mode: packed did not take the NPUs left: $(q "$db" 'SELECT * FROM job')"
    # every iteration of each job together equals the same iteration alone, to the ns
    got=$(q "$db" "SELECT count(*) FROM job_iteration s JOIN job j ON j.run_id = s.run_id
                   AND j.job_id = s.job_id JOIN job_iteration a ON a.run_id = j.alone_run_id
                   AND a.job_id = s.job_id AND a.iteration = s.iteration
                   WHERE s.iteration_ns = a.iteration_ns")
    [ "$got" = 4 ] || fail "disjoint $mode: $got of 4 iterations equal alone:
        $(q "$db" 'SELECT * FROM job_iteration')"
    [ "$(q "$db" "SELECT count(*) FROM job_slowdown WHERE run_id = 3 AND slowdown = 1.0")" = 2 ] ||
        fail "disjoint $mode: slowdown not 1: $(q "$db" 'SELECT * FROM job_slowdown')"
    # the ring's bandwidth bound: 2 (N-1)/N S / B, S = 1 MiB, N = 8, B = 12.5 GB/s
    [ "$(q "$db" "SELECT count(*) FROM job_iteration WHERE iteration_ns < 2.0 * 7 / 8 * 1048576 / 12.5")" = 0 ] ||
        fail "disjoint $mode: an iteration beats the ring's bandwidth bound"
done

# --- run-time schedulers per job: Themis over each job's own sub-grid -------------------
# ring4 x switch4: each half (two switch places) is a ring4 x switch2 of its own, and no link
# of one half carries the other's traffic (ring links and switch ports are per NPU), so at
# flow and packet level each job's iterations equal its run alone to the ns. "low" lists its NPUs
# backwards (rank r on NPU 7 - r): the scheduler's ranks are NPUs in ascending order.
cat > "$tmp/themis.toml" << EOF
mode = "flow"
isolate = true
[topology]
spec = "hier:ring4@100Gbps/500ns+switch4@50Gbps/1us"
[[job]]
name = "low"
npus = [7, 6, 5, 4, 3, 2, 1, 0]
workload = "$wl"
iterations = 2
scheduler = "themis-scf"
chunks = 8
[[job]]
name = "high"
npus = 8
start = "3us"
workload = "$wl"
iterations = 2
scheduler = "themis-scf"
chunks = 8
EOF
for mode in flow packet; do
    db=$tmp/themis-$mode.db
    "$runner" "$tmp/themis.toml" --db "$db" --set mode=$mode > "$tmp/out" 2> "$tmp/err" ||
        fail "themis jobs $mode: exit non-zero: $(cat "$tmp/err")"
    [ "$(q "$db" "SELECT count(*) FROM run WHERE status = 'ok'")" = 3 ] ||
        fail "themis jobs $mode: expected 3 ok runs: $(q "$db" 'SELECT * FROM run')"
    got=$(q "$db" "SELECT count(*) FROM job_iteration s JOIN job j ON j.run_id = s.run_id
                   AND j.job_id = s.job_id JOIN job_iteration a ON a.run_id = j.alone_run_id
                   AND a.job_id = s.job_id AND a.iteration = s.iteration
                   WHERE s.iteration_ns = a.iteration_ns")
    [ "$got" = 4 ] || fail "themis jobs $mode: $got of 4 iterations equal alone: $(q "$db" 'SELECT * FROM job_iteration')"
    [ "$(q "$db" "SELECT count(*) FROM shared_ports WHERE run_id = 3")" = 0 ] ||
        fail "themis jobs $mode: the halves share ports: $(q "$db" 'SELECT * FROM shared_ports')"
    # measured at flow level: every byte a port sent is one job's
    [ $mode = packet ] || [ "$(q "$db" "SELECT count(*) FROM (SELECT p.node_id, p.port
                  FROM job_port p JOIN port_summary s ON s.run_id = p.run_id AND s.node_id = p.node_id
                  AND s.port = p.port WHERE p.run_id = 3 GROUP BY p.node_id, p.port
                  HAVING count(*) <> 1 OR sum(p.tx_bytes) <> max(s.tx_bytes))")" = 0 ] ||
        fail "themis jobs $mode: a port's bytes are not its one job's: $(q "$db" 'SELECT * FROM job_port WHERE run_id = 3')"
    # scheduled, over the job's own dims: 8 chunks x 2 dims x (RS, AG) phases, in 2 groups per
    # dim (ring4 x switch2: 2 rings, 4 switch pairs), each phase a collective of its group:
    # per iteration 8 x 2 x (2 + 4) = 96 sub-collectives of 4 or 2 NPUs of the job
    [ "$(q "$db" "SELECT count(*) || ' ' || min(participants) || ' ' || max(participants)
                  FROM collective WHERE run_id = 3 AND job_id = 1 AND scheduler <> 'run-time'")" = "192 2 4" ] ||
        fail "themis jobs $mode: not 2 x 96 phases of the job's dims: $(q "$db" "SELECT count(*), min(participants), max(participants) FROM collective WHERE run_id = 3 AND job_id = 1")"
    [ "$(q "$db" "SELECT count(*) FROM transfer t JOIN node n ON n.run_id = t.run_id
                  AND n.node_id IN (t.src_node, t.dst_node) JOIN job j ON j.run_id = t.run_id
                  AND j.job_id = t.job_id WHERE ',' || j.npus || ',' NOT LIKE '%,' || n.rank || ',%'")" = 0 ] ||
        fail "themis jobs $mode: a transfer leaves its job's NPUs"
    # the scheduled operations themselves (one all-reduce per job and iteration) name their job
    [ "$(q "$db" "SELECT group_concat(job_id || ':' || count, ' ') FROM (SELECT job_id, count(*) AS count
                  FROM collective WHERE run_id = 3 AND scheduler = 'run-time' GROUP BY job_id)")" = "1:2 2:2" ] ||
        fail "themis jobs $mode: the scheduled operations do not name their jobs: $(q "$db" "SELECT * FROM collective WHERE scheduler = 'run-time'")"
    # the all-reduce bound of the job's NPUs: 2 (N-1)/N S over an NPU's 250 Gbit/s (a bidirectional
    # ring of 100 Gbit/s links, a switch port of 50), N = 8, S = 1 MiB
    [ "$(q "$db" "SELECT count(*) FROM job_iteration WHERE iteration_ns < 2.0 * 7 / 8 * 1048576 / 31.25")" = 0 ] ||
        fail "themis jobs $mode: an iteration beats the all-reduce's bandwidth bound"
done

# --- the shipped two-jobs scenario: both slowed under ECMP, shared ports ----------------
for mode in flow packet; do
    db=$tmp/two-$mode.db
    "$runner" "$top/scenarios/two-jobs.toml" --test-size --db "$db" --set mode=$mode \
        > "$tmp/out" 2> "$tmp/err" || fail "two-jobs $mode: exit non-zero: $(cat "$tmp/err")"
    [ "$(q "$db" "SELECT count(*) FROM job_slowdown WHERE alone_run_id IS NOT NULL AND slowdown > 1.05")" = 2 ] ||
        fail "two-jobs $mode: both jobs should be slowed: $(q "$db" 'SELECT * FROM job_slowdown')"
    [ "$(q "$db" "SELECT count(*) FROM shared_ports WHERE run_id = 3 AND jobs = 2 AND tx_bytes > 0")" -gt 0 ] ||
        fail "two-jobs $mode: no shared port carries traffic: $(q "$db" 'SELECT * FROM shared_ports')"
    # the jobs interleave on every edge switch: each edge's uplinks are on both jobs' paths
    [ "$(q "$db" "SELECT count(*) FROM shared_ports p JOIN node n ON n.run_id = p.run_id
                  AND n.node_id = p.peer_node WHERE p.run_id = 3 AND n.kind = 'npu'")" = 0 ] ||
        fail "two-jobs $mode: a port towards an NPU is shared (jobs hold disjoint NPUs)"
    # the bytes of each job per port: measured at flow level (each flow's bytes on every link
    # of its path), where a port's jobs add up to its own tx_bytes less one frame overhead
    # (24 bytes) per job at most (each job's bytes are cut into whole packets apart) and every
    # port that sent anything is some job's; not measured at packet level (NULL)
    if [ $mode = flow ]; then
        [ "$(q "$db" "SELECT count(*) FROM (SELECT s.tx_bytes - sum(p.tx_bytes) AS d
                      FROM job_port p JOIN port_summary s ON s.run_id = p.run_id
                      AND s.node_id = p.node_id AND s.port = p.port WHERE p.run_id = 3
                      GROUP BY p.node_id, p.port) WHERE d < -1 OR d > 25")" = 0 ] ||
            fail "two-jobs $mode: a port's jobs' bytes do not add up to its tx_bytes"
        [ "$(q "$db" "SELECT count(*) FROM port_summary s WHERE s.run_id = 3 AND s.tx_bytes > 0
                      AND NOT EXISTS (SELECT 1 FROM job_port p WHERE p.run_id = 3
                      AND p.node_id = s.node_id AND p.port = s.port AND p.tx_bytes > 0)")" = 0 ] ||
            fail "two-jobs $mode: a port sent bytes of no job"
        [ "$(q "$db" "SELECT count(*) FROM (SELECT node_id, port FROM job_port WHERE run_id = 3
                      AND tx_bytes > 0 GROUP BY node_id, port HAVING count(*) = 2)")" -gt 0 ] ||
            fail "two-jobs $mode: no port carries bytes of both jobs"
    else
        [ "$(q "$db" "SELECT count(*) FROM job_port WHERE tx_bytes IS NOT NULL")" = 0 ] ||
            fail "two-jobs $mode: job bytes per port at packet level are not measured (NULL)"
    fi
    for t in iteration layer collective transfer; do
        [ "$(q "$db" "SELECT count(*) FROM $t WHERE job_id IS NULL")" = 0 ] &&
            [ "$(q "$db" "SELECT count(DISTINCT job_id) FROM $t WHERE run_id = 3")" = 2 ] ||
            fail "two-jobs $mode: $t rows do not all name their job"
    done
    [ "$(q "$db" "SELECT count(*) FROM transfer t JOIN node n ON n.run_id = t.run_id
                  AND n.node_id IN (t.src_node, t.dst_node) JOIN job j ON j.run_id = t.run_id
                  AND j.job_id = t.job_id WHERE ',' || j.npus || ',' NOT LIKE '%,' || n.rank || ',%'")" = 0 ] ||
        fail "two-jobs $mode: a transfer leaves its job's NPUs"
done

# the same scenario again: the same rows
"$runner" "$top/scenarios/two-jobs.toml" --test-size --db "$tmp/again.db" --set mode=flow \
    > /dev/null 2> "$tmp/err" || fail "two-jobs again: exit non-zero: $(cat "$tmp/err")"
for t in job job_port iteration layer collective transfer port_sample; do
    [ "$(q "$tmp/two-flow.db" "SELECT * FROM $t" | md5sum)" = "$(q "$tmp/again.db" "SELECT * FROM $t" | md5sum)" ] ||
        fail "two-jobs: table $t differs between two runs of the same scenario"
done

# the report draws the jobs side by side with their runs alone, and the shared ports
if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
    "$top/utils/training-net-report" "$tmp/two-flow.db" -o "$tmp/report" > /dev/null 2> "$tmp/err" ||
        fail "report: exit non-zero: $(cat "$tmp/err")"
    [ -s "$tmp/report/jobs-3.png" ] && grep -q 'jobs-3.png' "$tmp/report/index.html" ||
        fail "report: no jobs-3.png for the run of two jobs"
    [ -f "$tmp/report/jobs-1.png" ] && fail "report: a run of one job drawn as several"
fi

# --- workloads of other kinds as jobs, NPUs out of order -------------------------------
cat > "$tmp/kinds.toml" << EOF
mode = "flow"
[topology]
spec = "fattree:k=4"
[[job]]
name = "simai"
npus = [9, 3, 12, 6]
simai = "$top/test/data/simai/megatron-gpt-small.txt"
[[job]]
name = "text"
npus = 4
placement = "spread"
workload = "$top/test/data/workloads/MLP_HybridParallel_Data_Model.txt"
model_group = 2
EOF
db=$tmp/kinds.db
"$runner" "$tmp/kinds.toml" --db "$db" > "$tmp/out" 2> "$tmp/err" ||
    fail "kinds: exit non-zero: $(cat "$tmp/err")"
[ "$(q "$db" "SELECT group_concat(npus, ' ') FROM job")" = "9,3,12,6 0,4,8,13" ] ||
    fail "kinds: placements $(q "$db" 'SELECT * FROM job')"
[ "$(q "$db" "SELECT count(DISTINCT job_id) FROM collective")" = 2 ] &&
    [ "$(q "$db" "SELECT count(*) FROM transfer t JOIN node n ON n.run_id = t.run_id
                  AND n.node_id = t.src_node JOIN job j ON j.job_id = t.job_id
                  WHERE ',' || j.npus || ',' NOT LIKE '%,' || n.rank || ',%'")" = 0 ] ||
    fail "kinds: the jobs' collectives are not on their own NPUs"

# an LLM program as a job: its ranks on the job's NPUs (llm_rank), after the listed job
cat > "$tmp/tiny.toml" << EOF
[model]
name = "tiny"
layers = 2
hidden = 256
ffn_hidden = 1024
heads = 4
seq_len = 128
vocab = 1024
bytes_per_element = 2
EOF
cat > "$tmp/llm.toml" << EOF
mode = "flow"
[topology]
spec = "fattree:k=4"
[[job]]
name = "llm"
npus = 4
placement = "spread"
model = "$tmp/tiny.toml"
gpu = "$top/scenarios/gpus/h100.toml"
tp = 2
dp = 2
[[job]]
name = "text"
npus = [1, 2]
workload = "$wl"
EOF
db=$tmp/llm.db
"$runner" "$tmp/llm.toml" --db "$db" > "$tmp/out" 2> "$tmp/err" ||
    fail "llm: exit non-zero: $(cat "$tmp/err")"
# the list first (1, 2), then 4 spread over the 14 NPUs left: every 14/4-th
[ "$(q "$db" "SELECT group_concat(node_id, ',') FROM (SELECT node_id FROM llm_rank ORDER BY rank)")" = "0,5,9,12" ] &&
    [ "$(q "$db" "SELECT npus FROM job WHERE name = 'llm'")" = "0,5,9,12" ] ||
    fail "llm: ranks not on the job's NPUs: $(q "$db" 'SELECT * FROM llm_rank; SELECT * FROM job')"
[ "$(q "$db" "SELECT count(*) FROM collective WHERE job_id = 1")" -gt 0 ] ||
    fail "llm: the program's collectives do not name job 1"

# --- [training] placement: a list of NPUs, never a sweep ------------------------------
cat > "$tmp/placed.toml" << EOF
mode = "flow"
[topology]
spec = "ring:4"
[training]
model = "$tmp/tiny.toml"
gpu = "$top/scenarios/gpus/h100.toml"
tp = 2
dp = 2
placement = [3, 2, 1, 0]
EOF
db=$tmp/placed.db
"$runner" "$tmp/placed.toml" --db "$db" > "$tmp/out" 2> "$tmp/err" ||
    fail "placement: exit non-zero: $(cat "$tmp/err")"
[ "$(q "$db" "SELECT count(*) FROM run")" = "1" ] &&
    [ "$(q "$db" "SELECT group_concat(node_id, ',') FROM (SELECT node_id FROM llm_rank ORDER BY rank)")" = "3,2,1,0" ] ||
    fail "placement: not one run with rank r on NPU 3-r: $(q "$db" 'SELECT * FROM llm_rank')"

# --- random placement: the seed decides ------------------------------------------------
printf 'mode = "flow"\n[topology]\nspec = "fattree:k=4"\n[[job]]\nnpus = 6\nplacement = "random"\nseed = 11\nworkload = "%s"\n' \
    "$wl" > "$tmp/random.toml"
for k in 1 2; do
    "$runner" "$tmp/random.toml" --db "$tmp/random.db" > /dev/null 2> "$tmp/err" ||
        fail "random: exit non-zero: $(cat "$tmp/err")"
done
[ "$(q "$tmp/random.db" "SELECT count(DISTINCT npus) || ' ' || count(*) FROM job")" = "1 2" ] ||
    fail "random: the same seed placed differently: $(q "$tmp/random.db" 'SELECT * FROM job')"

# --- bad jobs: one line with file, line and key; exit 2; no database --------------------
n=0
bad() {
    n=$((n + 1))
    f=$tmp/bad$n.toml
    printf '%b[topology]\nspec = "%s"\n%b' "${3:-}" "${4:-fattree:k=4}" "$1" > "$f"
    "$runner" "$f" --db "$tmp/bad$n.db" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ "$rc" = 2 ] || fail "bad job $n: exit $rc, expected 2 ($(cat "$tmp/err"))"
    [ "$(wc -l < "$tmp/err")" = 1 ] || fail "bad job $n: expected one error line: $(cat "$tmp/err")"
    grep -Eq "$2" "$tmp/err" || fail "bad job $n: '$(cat "$tmp/err")' does not match '$2'"
    [ -f "$tmp/bad$n.db" ] && fail "bad job $n: a database was written"
}
job() { printf '[[job]]\nnpus = %s\n%bworkload = "%s"\n' "$1" "${2:-}" "$wl"; }
bad "$(job '[0, 1, 2]')\n$(job '[5, 2]')" \
    "bad1.toml:7:12: job\[1\].npus: NPU 2 is held by job 'job1' \(jobs hold disjoint NPUs\)"
bad "$(job '[0, 1, 2]')\n$(job 14)" \
    "bad2.toml:7:8: job\[1\].npus: 14 NPUs asked, 13 free of the topology's 16"
bad "$(job 17)" "bad3.toml:4:8: job\[0\].npus: 17 is out of range \[1, 16\]"
bad "$(job '[3, 16]')" "bad4.toml:4:12: job\[0\].npus: expected an NPU index .*below 16"
bad "$(job 4 'placement = "diagonal"\n')" \
    "bad5.toml:5:13: job\[0\].placement: 'diagonal' is not one of packed, spread, random"
bad "$(job '[0, 1, 4, 5]' 'scheduler = "themis-scf"\n')" \
    "bad6.toml:5:13: job\[0\].scheduler: job 'job1': scheduler 'themis-scf' splits collectives over the dimensions of the job's NPUs, and dim 0 is a ring of 4 NPUs of which they hold 2: part of a ring is not one" \
    "" "hier:ring4@100Gbps+switch4@50Gbps"
bad "$(job '[0, 1, 1]')" "bad7.toml:4:15: job\[0\].npus: NPU 1 is listed twice"
bad "[training]\nworkload = \"$wl\"\n$(job 4)" \
    "bad8.toml:5:1: job: give \[\[collective\]\], \[training\] or \[\[job\]\], one of them"
bad "$(job 4)" "bad9.toml:1:11: isolate: expected true or false" "isolate = 1\n"

bad "$(job 4)" "bad10.toml:1:8: mode: flow-symmetric runs one NPU set for all, and a job on some of them breaks that symmetry: not several jobs" \
    'mode = "flow-symmetric"\n' "ring:8"
bad "$(job '[0, 1, 2, 3, 4]' 'scheduler = "fixed"\n')" \
    "bad11.toml:5:13: job\[0\].scheduler: .* and the 5 NPUs are not a sub-grid of the topology's dimensions: they take 4 x 2 places per dim \(8 NPUs in a grid\)" \
    "" "hier:ring4@100Gbps+switch4@50Gbps"

[ "$failures" = 0 ] || exit 1
echo "scenario jobs: all checks passed"
