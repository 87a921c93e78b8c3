#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Distributed runs (ns-3's mpi module) give the same answers as one process:
#   - roce-distributed --case=write: one RDMA write between two NPUs on two ranks (data one
#     way, ACKs the other way through MPI);
#   - roce-distributed --case=incast: 8-to-1 incast with PFC and DCQCN, senders on rank 0,
#     switch and receiver on rank 1 (data, ACK, CNP and PFC PAUSE frames cross ranks);
#   each with both engines (granted time window, null messages): the program's own checks
#   pass (bytes delivered, no drop, closed form of the write), and the sorted lines of all
#   ranks equal those of one process (message start and end times in ns, every PFC frame with
#   its time, CNP counts): equal-time frame arrivals run in the order of the key their sender
#   set (RoceFrameScheduler, see doc/distributed.rst), whichever engine;
#   - roce-distributed --case=collective: an all-reduce planned by the C core and run by
#     CollectiveHelper on nodes placed by tn_partition_auto: torus:8x8 MultiTree, fattree:k=8
#     ring with planned and with ECMP routing, torus:4x4 ring2d of 4 MiB, and a torus:4x4
#     direct all-reduce under HPCC-PINT sampling half the ACKs (each queue pair's control
#     draws from the stream RoceHelper::AssignStreams gave its NIC's rank and QPN): every
#     transfer line equal to one process, with both engines;
#   - bad partitions (a node twice, a node left out, another number of ranks, more ranks than
#     nodes) are refused before anything runs: non-zero exit, one error line;
#   - recorded (--db, granted engine): every table of the database equal to one process but
#     the run's wall-clock fields, for fattree:k=4 ring, torus:4x4 ring2d, leaf-spine
#     hierarchical under ECMP, the 8-to-1 incast (ticks every 1,013 ns), and a 2-NPU ring whose
#     transfers outlast StatsRecorder::StallTimeout (no rank calls it stalled);
#   - roce-distributed --case=training: a ResNet-50 iteration with the NPUs of rank 1 slower,
#     so that messages reach rank 1 before its NPUs reach each collective: the same transfer
#     and iteration lines as one process;
#   - the programs as users run them, under mpirun with no other change: training-net-run of a
#     scenario (with its own `partition`, a sweep of 2 points run one after the other in the
#     same ranks), the quickstart and collective-comparison (2 runs) give the same database
#     rows on 2 ranks as in one process, and so does a ResNet-50 iteration on 16 NPUs
#     ([training]); a bad `partition` key and a run-time scheduler (of a collective or of a
#     training job) are refused on every rank with one line;
#   - PortSampling busiest:2 on 2 ranks keeps each rank's 2 busiest ports, with their rows.
# Usage: mpi-test.sh EXAMPLES_DIR [MPIRUN...]
#   EXAMPLES_DIR holds the example programs (any ns3.37-<name>-<profile> prefix and suffix)
#   MPIRUN defaults to: mpirun -np 2 --allow-run-as-root --oversubscribe
set -u
dir=$1
shift
[ $# -gt 0 ] || set -- mpirun --allow-run-as-root --oversubscribe
mpirun=$1
shift
mpiflags="$*"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

program() {
    p=$(ls "$dir"/$1 "$dir"/ns3*-"$1" "$dir"/ns3*-"$1"-* 2>/dev/null | head -n 1)
    [ -x "$p" ] || { echo "mpi-test: no program $1 in $dir" >&2; exit 2; }
    echo "$p"
}
distributed=$(program roce-distributed)
runner=$(program training-net-run)
quickstart=$(program training-net-quickstart)
comparison=$(program collective-comparison)
workloads=$(cd "$(dirname "$0")/data/workloads" && pwd)

fail() {
    echo "FAIL: $*"
    status=1
}

compare() {
    name=$1
    shift
    rm -f "$tmp"/lines.*
    if ! "$distributed" "$@" --out="$tmp/lines" 2> "$tmp/one.err"; then
        fail "$name in one process: $(cat "$tmp/one.err")"
        return
    fi
    cat "$tmp"/lines.* > "$tmp/one.out"
    grep -v '^rank ' "$tmp/one.out" | sort > "$tmp/one"
    for engine in granted null; do
        rm -f "$tmp"/lines.*
        if ! TN_MPI_ENGINE=$engine "$mpirun" $mpiflags -np 2 "$distributed" "$@" \
            --out="$tmp/lines" 2> "$tmp/two.err"; then
            fail "$name on 2 ranks ($engine): $(cat "$tmp/two.err")"
            continue
        fi
        cat "$tmp"/lines.* > "$tmp/two.out"
        grep -v '^rank ' "$tmp/two.out" | sort > "$tmp/two"
        # equal-time frame arrivals run in the order of their keys on every rank
        # (RoceFrameScheduler): every line equal, whichever engine and however the ranks' MPI
        # messages interleave
        if ! cmp -s "$tmp/one" "$tmp/two"; then
            fail "$name: 2 ranks ($engine) differ from one process in" \
                "$(diff "$tmp/one" "$tmp/two" | grep -c '^<') of $(wc -l < "$tmp/one") lines:"
            diff "$tmp/one" "$tmp/two" | head -n 20
            continue
        fi
        if [ "$(grep -c '^rank [01] of 2: lookahead [1-9][0-9]* ns$' "$tmp/two.out")" != 2 ]; then
            fail "$name ($engine): both ranks must report a positive lookahead"
            continue
        fi
        echo "ok: $name on 2 ranks ($engine engine) = one process ($(wc -l < "$tmp/one") lines;" \
            "$(grep '^collective ' "$tmp/one"))"
    done
}
compare write --case=write
compare incast --case=incast
compare "torus:8x8 multitree" --case=collective --topology=torus:8x8 --algorithm=multitree \
    --bytes=262144
compare "fattree:k=8 ring planned" --case=collective --topology=fattree:k=8 --algorithm=ring \
    --routing=planned --bytes=262144
compare "fattree:k=8 ring ecmp" --case=collective --topology=fattree:k=8 --algorithm=ring \
    --routing=ecmp --bytes=262144
compare "torus:4x4 ring2d" --case=collective --topology=torus:4x4 --algorithm=ring2d \
    --bytes=4194304
compare "torus:4x4 direct, HPCC-PINT sampling half the ACKs" --case=collective \
    --topology=torus:4x4 --algorithm=direct --bytes=1048576 \
    --ns3::RdmaNic::CongestionControl=hpcc-pint --ns3::RdmaHpccPint::SampleProbability=0.5

# A training job whose messages reach a rank before its NPUs reach the collective: one ResNet-50
# iteration on fattree:k=4 with NPUs 8-15 (rank 1) 4x slower, so rank 0's NPUs reach every
# weight-gradient all-reduce first and rank 1 creates each collective when a message names it
# (TrainingJob::GetCreatedForMessages); every transfer line and every NPU's iteration equal one
# process's (granted engine)
rm -f "$tmp"/lines.*
if ! "$distributed" --case=training --workload="$workloads/Resnet50_DataParallel.txt" \
    --slow=8-15 --out="$tmp/lines" 2> "$tmp/one.err"; then
    fail "training with slow NPUs in one process: $(cat "$tmp/one.err")"
else
    cat "$tmp"/lines.* > "$tmp/one.out"
    grep -v '^rank ' "$tmp/one.out" | sort > "$tmp/one"
    rm -f "$tmp"/lines.*
    if ! TN_MPI_ENGINE=granted "$mpirun" $mpiflags -np 2 "$distributed" --case=training \
        --workload="$workloads/Resnet50_DataParallel.txt" --slow=8-15 --out="$tmp/lines" \
        2> "$tmp/two.err"; then
        fail "training with slow NPUs on 2 ranks: $(cat "$tmp/two.err")"
    else
        cat "$tmp"/lines.* > "$tmp/two.out"
        grep -v '^rank ' "$tmp/two.out" | sort > "$tmp/two"
        early=$(sed -n 's/^rank 1 of 2: .*, \([0-9]*\) created for a message$/\1/p' "$tmp/two.out")
        iterations=$(grep -c '^iteration ' "$tmp/two")
        if ! cmp -s "$tmp/one" "$tmp/two"; then
            fail "training with slow NPUs: 2 ranks differ from one process:"
            diff "$tmp/one" "$tmp/two" | head -n 20
        elif [ -z "$early" ] || [ "$early" = 0 ] || [ "$iterations" != 16 ]; then
            fail "training with slow NPUs: rank 1 created '$early' collectives for a message," \
                "$iterations iterations (expected some, and 16)"
        else
            echo "ok: training with slow NPUs on 2 ranks (granted engine) = one process" \
                "($(wc -l < "$tmp/one") lines; $(grep '^training ' "$tmp/one"));" \
                "rank 1 created $early collectives for a message"
        fi
    fi
fi

# One results database: every rank records its own nodes into the same file and run (rank 0
# begins it and sets its status; a transfer between ranks is one row of the sender's issue
# time and the receiver's arrival). The run of 2 ranks holds the same rows as the run of one
# process in every table (all of tn-db's schema, model/core/tn-db.c) but the wall-clock
# fields of run (started_at, finished_at, wall_seconds) and run ids.
rows() {
    for table in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND
        name NOT LIKE 'sqlite_%' ORDER BY name"); do
        cols=$(sqlite3 "$1" "SELECT group_concat(name, ', ') FROM pragma_table_info('$table')
            WHERE name NOT IN ('run_id', 'alone_run_id', 'started_at', 'finished_at',
            'wall_seconds')")
        sqlite3 "$1" "SELECT '$table', $cols FROM $table ORDER BY $cols"
    done
}
record() {
    name=$1
    shift
    rm -f "$tmp"/one.db* "$tmp"/two.db*
    if ! "$distributed" "$@" --db="$tmp/one.db" --out="$tmp/lines" 2> "$tmp/one.err"; then
        fail "$name recorded in one process: $(cat "$tmp/one.err")"
        return
    fi
    if ! "$mpirun" $mpiflags -np 2 "$distributed" "$@" --db="$tmp/two.db" --out="$tmp/lines" \
        2> "$tmp/two.err"; then
        fail "$name recorded on 2 ranks: $(cat "$tmp/two.err")"
        return
    fi
    rows "$tmp/one.db" > "$tmp/one.rows"
    rows "$tmp/two.db" > "$tmp/two.rows"
    runs=$(sqlite3 "$tmp/two.db" "SELECT count(*) || ' ' || max(status) FROM run")
    if [ "$runs" != "1 ok" ]; then
        fail "$name on 2 ranks: runs '$runs' (expected one, ok)"
    elif ! cmp -s "$tmp/one.rows" "$tmp/two.rows"; then
        fail "$name: the database of 2 ranks differs from one process:"
        diff "$tmp/one.rows" "$tmp/two.rows" | head -n 20
    else
        echo "ok: $name: the database of 2 ranks = one process ($(cut -d'|' -f1 "$tmp/one.rows" |
            sort | uniq -c | awk '{ printf "%s%s %s", n++ ? ", " : "", $1, $2 }') rows)"
    fi
}
record "fattree:k=4 ring recorded" --case=collective --topology=fattree:k=4 --algorithm=ring \
    --routing=planned --bytes=262144
# runs whose equal-time frames met local events in another order before the frames carried
# their keys (RoceFrameScheduler): the issue's torus ring2d (248 of 768 transfer rows 5 ns
# apart), hierarchical under ECMP on a leaf-spine, and the incast with PFC and DCQCN recorded
# with a tick every 1,013 ns
record "torus:4x4 ring2d recorded" --case=collective --topology=torus:4x4 --algorithm=ring2d \
    --bytes=4194304
record "leafspine hierarchical ecmp recorded" --case=collective \
    --topology=leafspine:leaves=4,spines=2,hosts=4 --algorithm=hierarchical --routing=ecmp \
    --bytes=1048576
record "incast recorded" --case=incast
# one transfer longer than the stall watch's timeout: each rank's watch sees its bytes move (a
# rank may hold the receiving NIC and no port the data leaves by), so no rank calls it stalled
record "long transfer recorded, no false stall" --case=collective --topology=switch:2 --algorithm=ring \
    --bytes=67108864 --ns3::StatsRecorder::StallTimeout=1ms

# SIGTERM to mpirun (Open MPI passes it to every rank, and kills them 1 s later): every rank
# stops at the same sampling tick and writes what it recorded; one run, 'aborted', holding
# the rows of both ranks' nodes
# (Open MPI's event library may warn "[warn] Epoll MOD(1) on fd N failed" as it tears down
# after the signal: its line, not ours, is left out of the count of error lines)
rm -f "$tmp"/term.db*
"$mpirun" $mpiflags -np 2 "$distributed" --case=collective --topology=fattree:k=8 \
    --algorithm=ring --bytes=67108864 --db="$tmp/term.db" --out="$tmp/lines" \
    > /dev/null 2> "$tmp/term.err" &
pid=$!
# under way once port rows are written (at most 60 s), then one more second
i=0
while [ $i -lt 600 ] &&
    [ "$(sqlite3 "$tmp/term.db" "SELECT count(*) FROM port_sample" 2> /dev/null || echo 0)" = 0 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 1
kill -TERM "$pid"
if wait "$pid"; then
    fail "SIGTERM: mpirun exited 0"
else
    got=$(sqlite3 "$tmp/term.db" "SELECT count(*) || ' ' || max(status) || ', ' || max(error)
        FROM run")
    nodes=$(sqlite3 "$tmp/term.db" "SELECT count(*) FROM node")
    sampled=$(sqlite3 "$tmp/term.db" "SELECT count(DISTINCT node_id) FROM port_sample")
    transfers=$(sqlite3 "$tmp/term.db" "SELECT count(*) FROM transfer")
    # fattree:k=8: 128 NPUs and 80 switches, on two ranks
    if [ "$got" != "1 aborted, interrupted by signal 15" ] || [ "$nodes" != 208 ] ||
        [ "$sampled" != 208 ] ||
        [ "$(grep -v '^\[warn\] Epoll' "$tmp/term.err" | grep -c .)" != 1 ]; then
        fail "SIGTERM: run '$got', $nodes nodes, $sampled nodes sampled:"
        cat "$tmp/term.err"
    else
        echo "ok: SIGTERM to mpirun: one run ($got), $nodes nodes and their" \
            "ports of both ranks, $transfers transfers; one error line"
    fi
fi

# refused before anything runs: every rank exits non-zero, one error line
refuse() {
    np=$1
    expect=$2
    shift 2
    if "$mpirun" $mpiflags -np "$np" "$distributed" "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"; then
        fail "$* on $np ranks: accepted"
        return
    fi
    lines=$(grep -c '^error:' "$tmp/bad.err")
    if [ "$lines" != 1 ] || ! grep -q "$expect" "$tmp/bad.err" || [ -s "$tmp/bad.out" ]; then
        fail "$* on $np ranks: expected one line with '$expect', got:"
        cat "$tmp/bad.err" "$tmp/bad.out"
        return
    fi
    echo "ok: refused on $np ranks: $(grep '^error:' "$tmp/bad.err")"
}
refuse 2 "node 1 is named twice" --case=write --partition="0,1;1"
refuse 2 "node 9 is on no rank" --case=incast --partition="0-7;8"
refuse 2 "it names 1 rank, the run has 2" --case=write --partition="0-1"
refuse 3 "3 ranks for 2 nodes" --case=write

# Program windows across ranks. A generated ring on torus:8x8 whose whole programs pass an
# eighth of a 10 MiB memory limit: one process holds windows (the service's own choice), 2 ranks
# hold whole programs (a windowed receiver needs its sender's window, which only the sender's
# process has) with one note (rank 0's: every rank plans alike), and every line is the same; a window the user sets is refused with
# one line on 2 ranks (it was an abort)
windowed="--case=collective --topology=torus:8x8 --algorithm=ring --bytes=1048576"
windowed="$windowed --ns3::CollectiveService::Program=generated"
rm -f "$tmp"/lines.*
# shellcheck disable=SC2086
if ! TN_MEMORY_LIMIT=10MiB "$distributed" $windowed --out="$tmp/lines" 2> "$tmp/one.err"; then
    fail "windowed ring in one process: $(cat "$tmp/one.err")"
elif ! grep -q "hold windows of" "$tmp/one.err"; then
    fail "windowed ring in one process: the service chose no window: $(cat "$tmp/one.err")"
else
    grep -v '^rank ' "$tmp"/lines.* | sort > "$tmp/one"
    rm -f "$tmp"/lines.*
    # shellcheck disable=SC2086
    if ! TN_MEMORY_LIMIT=10MiB "$mpirun" $mpiflags -np 2 -x TN_MEMORY_LIMIT "$distributed" \
        $windowed --out="$tmp/lines" 2> "$tmp/two.err"; then
        fail "windowed ring on 2 ranks: $(cat "$tmp/two.err")"
    elif [ "$(grep -c "across MPI ranks hold whole programs" "$tmp/two.err")" != 1 ]; then
        fail "windowed ring on 2 ranks: not one note on whole programs (rank 0's): $(cat \
            "$tmp/two.err")"
    elif ! cat "$tmp"/lines.* | grep -v '^rank ' | sort | cmp -s - "$tmp/one"; then
        fail "windowed ring: 2 ranks (whole programs) differ from one process (windows)"
    else
        echo "ok: windowed ring: 2 ranks hold whole programs, = one process's windows" \
            "($(wc -l < "$tmp/one") lines)"
    fi
fi
# shellcheck disable=SC2086
refuse 2 "ProgramWindow 64 is not supported across MPI ranks" $windowed \
    --ns3::CollectiveService::ProgramWindow=64
if grep -q "terminate called\|^aborted\.\|Signal: Aborted" "$tmp/bad.err"; then
    fail "ProgramWindow on 2 ranks aborted: $(cat "$tmp/bad.err")"
fi

# The programs users run, under mpirun with no other change.
# same(NAME, PROGRAM ARGS...): the program writes "$tmp/one.db" in one process and
# "$tmp/two.db" on 2 ranks (its arguments name DB for the file); the same rows, the same runs,
# every one ok
same() {
    name=$1
    shift
    rm -f "$tmp"/one.db* "$tmp"/two.db*
    one=$(echo "$*" | sed "s|DB|$tmp/one.db|g")
    two=$(echo "$*" | sed "s|DB|$tmp/two.db|g")
    if ! $one > "$tmp/one.out" 2> "$tmp/one.err"; then
        fail "$name in one process: $(cat "$tmp/one.err")"
        return
    fi
    if ! "$mpirun" $mpiflags -np 2 $two > "$tmp/two.out" 2> "$tmp/two.err"; then
        fail "$name on 2 ranks: $(cat "$tmp/two.err")"
        return
    fi
    rows "$tmp/one.db" > "$tmp/one.rows"
    rows "$tmp/two.db" > "$tmp/two.rows"
    # as many runs as one process, every one ok
    runs=$(sqlite3 "$tmp/two.db" "SELECT count(*) || ' ' || min(status) || ' ' || max(status) FROM run")
    expected="$(sqlite3 "$tmp/one.db" "SELECT count(*) FROM run") ok ok"
    if [ "$runs" != "$expected" ]; then
        fail "$name on 2 ranks: runs '$runs' (expected '$expected')"
    elif ! cmp -s "$tmp/one.rows" "$tmp/two.rows"; then
        fail "$name: the database of 2 ranks differs from one process:"
        diff "$tmp/one.rows" "$tmp/two.rows" | head -n 20
    elif [ -s "$tmp/two.err" ] || [ "$(wc -l < "$tmp/one.out")" != "$(wc -l < "$tmp/two.out")" ]; then
        # rank 0 alone prints: as many lines as one process, no error
        fail "$name on 2 ranks printed other lines than one process:"
        cat "$tmp/two.out" "$tmp/two.err"
    else
        echo "ok: $name: the database of 2 ranks = one process ($(cut -d'|' -f1 "$tmp/one.rows" |
            sort | uniq -c | awk '{ printf "%s%s %s", n++ ? ", " : "", $1, $2 }') rows)"
    fi
}
# fattree:k=4: 16 NPUs (0-15), edge switches 16-23, aggregation 24-31, core 32-35; pods 0-1
# and two core switches on rank 0
cat > "$tmp/scenario.toml" <<SCENARIO
name = "mpi-scenario"
partition = "0-7,16-19,24-27,32-33;8-15,20-23,28-31,34-35"
[topology]
spec = "fattree:k=4"
[[collective]]
algorithm = "ring"
bytes = "256KiB"
[[collective]]
algorithm = "direct"
bytes = "64KiB"
start = "10us"
SCENARIO
# a sweep of 2 points: one process per point in one process's runner, one point after the
# other in the same 2 processes under mpirun (DistributedHelper::NextSimulation)
same "training-net-run scenario (partition key, 2 points)" "$runner" "$tmp/scenario.toml" \
    --set 'collective[0].bytes=["128KiB","256KiB"]' --db DB --quiet
same "training-net-quickstart" "$quickstart" --topology=switch:8 --bytes=1MiB --db=DB

# PortSampling busiest:K over ranks: each rank keeps the K busiest of its own ports (by the
# one-process `all` run's totals, ties: lower node, then port), with their `all` rows; one
# process keeps K in all
sed -e 's/^name = .*/name = "mpi-busiest"/' -e '/^\[\[collective\]\]/,$d' \
    "$tmp/scenario.toml" > "$tmp/busiest.toml"
printf '[[collective]]\nalgorithm = "ring"\nbytes = "256KiB"\n[sampling]\nports = "PORTS"\n' \
    >> "$tmp/busiest.toml"
sed 's/PORTS/all/' "$tmp/busiest.toml" > "$tmp/busiest-all.toml"
sed -i 's/PORTS/busiest:2/' "$tmp/busiest.toml"
rm -f "$tmp"/busiest-*.db
if ! "$runner" "$tmp/busiest-all.toml" --db "$tmp/busiest-one-all.db" --quiet > /dev/null 2>&1 ||
    ! "$runner" "$tmp/busiest.toml" --db "$tmp/busiest-one.db" --quiet > /dev/null 2>&1 ||
    ! "$mpirun" $mpiflags -np 2 "$runner" "$tmp/busiest.toml" --db "$tmp/busiest-two.db" \
        --quiet > /dev/null 2>&1; then
    fail "busiest:2 over ranks: a run failed"
else
    # the scenario's partition: pods 0-1 and core switches 32-33 on rank 0
    per_rank="WITH t AS (SELECT node_id, port, sum(tx_bytes) AS b, CASE WHEN node_id < 8 OR
        node_id BETWEEN 16 AND 19 OR node_id BETWEEN 24 AND 27 OR node_id IN (32, 33) THEN 0
        ELSE 1 END AS r FROM port_sample GROUP BY node_id, port), k AS (SELECT node_id, port,
        row_number() OVER (PARTITION BY r ORDER BY b DESC, node_id, port) AS n FROM t)
        SELECT node_id, port FROM k WHERE n <= 2 ORDER BY node_id, port"
    want=$(sqlite3 "$tmp/busiest-one-all.db" "$per_rank" | tr '\n' ' ')
    ports="SELECT DISTINCT node_id, port FROM port_sample ORDER BY node_id, port"
    two=$(sqlite3 "$tmp/busiest-two.db" "$ports" | tr '\n' ' ')
    one=$(sqlite3 "$tmp/busiest-one.db" "$ports" | wc -l)
    rows="SELECT node_id, port, time_ns, interval_ns, tx_bytes, utilisation FROM port_sample"
    order="ORDER BY node_id, port, time_ns"
    kept=$(echo "$two" | tr ' ' '\n' | grep . | sed 's/|/ AND port = /; s/^/(node_id = /; s/$/)/' |
        paste -sd'|' - | sed 's/|/ OR /g')
    if [ -z "$want" ] || [ "$two" != "$want" ]; then
        fail "busiest:2 over 2 ranks sampled ports '$two', each rank's 2 busiest are '$want'"
    elif [ "$one" != 2 ]; then
        fail "busiest:2 in one process sampled $one ports"
    elif [ "$(sqlite3 "$tmp/busiest-two.db" "$rows $order")" != \
        "$(sqlite3 "$tmp/busiest-one-all.db" "$rows WHERE $kept $order")" ]; then
        fail "busiest:2 over 2 ranks: the rows differ from the all run's rows of its ports"
    else
        echo "ok: busiest:2 on 2 ranks keeps each rank's 2 busiest ports ($two)"
    fi
fi

# A training job over ranks: one ResNet-50 iteration (data parallel: a weight-gradient
# all-reduce per layer, overlapped with the backward pass) on the 16 NPUs of fattree:k=4,
# nodes placed by tn_partition_auto. Each rank runs its own NPUs' loops; a collective's id
# follows its (iteration, layer, pass, group), and a message that reaches a rank before any
# of its NPUs reached that layer creates the collective there: the same rows as one process,
# iteration and layer rows included
cat > "$tmp/resnet.toml" <<SCENARIO
name = "mpi-resnet50"
[topology]
spec = "fattree:k=4"
[training]
workload = "$workloads/Resnet50_DataParallel.txt"
# the flat ring, as a job's data-parallel collectives run unless set
algorithm = "ring"
SCENARIO
same "training-net-run ResNet-50 iteration on 16 NPUs" "$runner" "$tmp/resnet.toml" --db DB --quiet
collectives=$(sqlite3 "$tmp/two.db" "SELECT count(*) || ' ' || count(DISTINCT collective_id) || ' ' ||
    min(collective_id) || ' ' || max(collective_id) FROM collective WHERE end_ns >= 0")
# one all-reduce per layer with a weight-gradient collective (all 54), ids 1..L by layer
layers=$(awk 'NR > 2 && $10 != "NONE"' "$workloads/Resnet50_DataParallel.txt" | wc -l)
[ "$collectives" = "$layers $layers 1 $layers" ] ||
    fail "ResNet-50 on 2 ranks: collectives '$collectives' (expected $layers $layers 1 $layers)"

# refused on every rank, one line naming what is wrong: refused_line NP EXPECT PROGRAM ARGS...
refused_line() {
    np=$1
    expect=$2
    shift 2
    if "$mpirun" $mpiflags -np "$np" "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"; then
        fail "$* on $np ranks: accepted"
        return
    fi
    prog=$(basename "$1" | sed 's/^ns3[^-]*-//; s/-\(debug\|release\|optimized\|default\)$//')
    lines=$(grep -c "^$prog:" "$tmp/bad.err")
    if [ "$lines" != 1 ] || ! grep -q "$expect" "$tmp/bad.err"; then
        fail "$* on $np ranks: expected one line with '$expect', got:"
        cat "$tmp/bad.err"
        return
    fi
    echo "ok: refused on $np ranks: $(grep "^$prog:" "$tmp/bad.err")"
}
sed 's/^partition = .*/partition = "0-7,16-19,24-27,32-33;7-15,20-23,28-31,34-35"/' \
    "$tmp/scenario.toml" > "$tmp/twice.toml"
refused_line 2 "twice.toml:2:13: partition: node 7 is named twice" "$runner" "$tmp/twice.toml" \
    --db "$tmp/bad.db"
refused_line 2 "partition: it names 3 ranks, the run has 2" "$runner" "$tmp/scenario.toml" \
    --db "$tmp/bad.db" --set 'partition="0-7;8-15,16-23;24-35"'
cat > "$tmp/themis.toml" <<SCENARIO
[topology]
spec = "hier:ring4@200Gbps+switch4@100Gbps"
[[collective]]
scheduler = "themis-scf"
bytes = "1MiB"
SCENARIO
refused_line 2 "themis.toml:4:13: collective\[0\].scheduler: scheduler 'themis-scf' schedules at" \
    "$runner" "$tmp/themis.toml" --db "$tmp/bad.db"
cat > "$tmp/themis-job.toml" <<SCENARIO
[topology]
spec = "hier:ring4@200Gbps+switch4@100Gbps"
[training]
workload = "$workloads/microAllReduce.txt"
scheduler = "themis-scf"
SCENARIO
refused_line 2 "themis-job.toml:5:13: training.scheduler: scheduler 'themis-scf' schedules at" \
    "$runner" "$tmp/themis-job.toml" --db "$tmp/bad.db"
if [ -e "$tmp/bad.db" ]; then
    fail "a refused run wrote $tmp/bad.db"
fi
# collective-comparison: two runs, one after the other in the same 2 processes
same "collective-comparison (2 runs)" "$comparison" --topology=fattree:k=4 \
    --algorithms=ring,dbt --bytes=262144 --db=DB

[ "$status" = 0 ] && echo "mpi-test: every distributed run matched its run in one process"
exit "$status"
