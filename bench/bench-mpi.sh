#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Speed of one packet-level run over MPI ranks: one all-reduce on a 1,024-NPU fat-tree (k=16),
# run by roce-distributed --case=collective --timing in one process (the baseline, measured in
# this same run) and under mpirun -np 2 with each engine (granted time windows, null messages).
# Printed per run: the wall time of Simulator::Run on each rank (set-up is left out: every rank
# builds the whole fabric), the events each rank handled, the share of its run time each rank
# spent waiting for the other (bench/mpi-wait.c, preloaded: the engines' blocking MPI calls),
# and the speed-up, one-process run time / slowest rank's run time. The issue's goal: >= 1.6 on
# 2 ranks on 2 cores. Other load on the machine makes every figure worse; run it alone.
# Usage: bench-mpi.sh EXAMPLES_DIR [MPIRUN...]
#   environment: TOPOLOGY (fattree:k=16), ALGORITHM (rhd), BYTES (1048576), ROUTING (planned)
set -eu
dir=$1
shift
[ $# -gt 0 ] || set -- mpirun --allow-run-as-root --oversubscribe
topology=${TOPOLOGY:-fattree:k=16}
algorithm=${ALGORITHM:-rhd}
bytes=${BYTES:-1048576}
routing=${ROUTING:-planned}
here=$(cd "$(dirname "$0")" && pwd)
program=$(ls "$dir"/roce-distributed "$dir"/ns3*-roce-distributed "$dir"/ns3*-roce-distributed-* \
    2>/dev/null | head -n 1)
[ -x "$program" ] || { echo "bench-mpi: no roce-distributed in $dir" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -shared -fPIC -o "$tmp/mpi-wait.so" "$here/mpi-wait.c"
args="--case=collective --timing=1 --topology=$topology --algorithm=$algorithm --bytes=$bytes"
args="$args --routing=$routing"

# run NAME NP ENGINE: its lines in $tmp/NAME.*; NP=1 runs without mpirun
run() {
    name=$1
    np=$2
    engine=$3
    shift 3
    if [ "$np" = 1 ]; then
        # shellcheck disable=SC2086
        "$program" $args --out="$tmp/$name" 2> "$tmp/$name.err" ||
            { cat "$tmp/$name.err" >&2; exit 1; }
    else
        # shellcheck disable=SC2086
        TN_MPI_ENGINE=$engine "$@" -np "$np" -x TN_MPI_ENGINE -x LD_PRELOAD="$tmp/mpi-wait.so" \
            "$program" $args --out="$tmp/$name" 2> "$tmp/$name.err" ||
            { cat "$tmp/$name.err" >&2; exit 1; }
    fi
}

echo "bench-mpi: all-reduce ($algorithm, $bytes bytes, $routing routing) on $topology"
run one 1 none "$@"
timing=$(grep '^timing rank 0 of 1: ' "$tmp/one.0")
base=$(echo "$timing" | sed 's/.*, run \([0-9.e+-]*\) s,.*/\1/')
events1=$(echo "$timing" | sed 's/.*events \([0-9]*\),.*/\1/')
# both engines stop 2% + 1 us after the last event of one process (room for equal-time events
# run in another order): the null-message engine cannot tell when every rank is idle and would
# otherwise step on to its default stop time
last=$(echo "$timing" | sed 's/.*last event \([0-9]*\) ns$/\1/')
stop=$((last + last / 50 + 1000))
args="$args --stop=$stop"
time1=$(sed -n 's/^collective .*: \([0-9]*\) ns, .*/\1/p' "$tmp/one.0")
printf '  1 rank            run %8.2f s  events %10s  simulated %s ns\n' "$base" "$events1" "$time1"
for engine in granted null; do
    run "$engine" 2 "$engine" "$@"
    slowest=0
    total=0
    for rank in 0 1; do
        line=$(grep "^timing rank $rank of 2:" "$tmp/$engine.$rank")
        events=$(echo "$line" | sed 's/.*events \([0-9]*\),.*/\1/')
        secs=$(echo "$line" | sed 's/.*, run \([0-9.e+-]*\) s,.*/\1/')
        wait=$(sed -n "s/^mpi-wait rank $rank: \([0-9.]*\) s waiting in \([0-9]*\) calls$/\1 \2/p" \
            "$tmp/$engine.err")
        share=$(echo "$wait $secs" | awk '{ printf "%.0f", 100 * $1 / $3 }')
        calls=$(echo "$wait" | awk '{ print $2 }')
        printf '  2 ranks %-7s rank %d: run %8.2f s  events %10s  waiting %3s %% (%s calls)\n' \
            "$engine" "$rank" "$secs" "$events" "$share" "$calls"
        slowest=$(echo "$slowest $secs" | awk '{ print ($2 > $1) ? $2 : $1 }')
        total=$((total + events))
    done
    time2=$(sed -n 's/^collective .*: \([0-9]*\) ns, .*/\1/p' "$tmp/$engine.0")
    echo "$base $slowest $total $events1 $time2 $time1" | awk -v e="$engine" '{
        printf "  2 ranks %-7s speed-up %.2fx (goal 1.6x: %s); events %d vs %d in 1 rank; simulated %s ns (1 rank %s ns)\n",
            e, $1 / $2, ($1 / $2 >= 1.6) ? "met" : "not met", $3, $4, $5, $6 }'
done
