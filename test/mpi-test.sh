#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Distributed runs (ns-3's mpi module) give the same answers as one process:
#   - roce-distributed --case=write: one RDMA write between two NPUs on two ranks (data one
#     way, ACKs the other way through MPI);
#   - roce-distributed --case=incast: 8-to-1 incast with PFC and DCQCN, senders on rank 0,
#     switch and receiver on rank 1 (data, ACK, CNP and PFC PAUSE frames cross ranks);
#   each with both engines (granted time window, null messages): the sorted lines of all ranks
#   equal those of one process (message start and end times in ns, every PFC frame with its
#   time, CNP counts), and the program's own checks pass (bytes delivered, no drop, closed
#   form of the write);
#   - bad partitions are refused before anything runs: non-zero exit, one line.
# Usage: mpi-test.sh EXAMPLES_DIR [MPIRUN...]
#   EXAMPLES_DIR holds the example programs (any ns3.37-<name>-<profile> prefix and suffix)
#   MPIRUN defaults to: mpirun -np 2 --allow-run-as-root --oversubscribe
set -u
dir=$1
shift
[ $# -gt 0 ] || set -- mpirun --allow-run-as-root --oversubscribe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

program() {
    p=$(ls "$dir"/$1 "$dir"/ns3*-"$1" "$dir"/ns3*-"$1"-* 2>/dev/null | head -n 1)
    [ -x "$p" ] || { echo "mpi-test: no program $1 in $dir" >&2; exit 2; }
    echo "$p"
}
distributed=$(program roce-distributed)

fail() {
    echo "FAIL: $*"
    status=1
}

for case in write incast; do
    if ! "$distributed" --case=$case > "$tmp/one.out" 2> "$tmp/one.err"; then
        fail "$case in one process: $(cat "$tmp/one.err")"
        continue
    fi
    grep -v '^rank ' "$tmp/one.out" | sort > "$tmp/one"
    for engine in granted null; do
        if ! TN_MPI_ENGINE=$engine "$@" -np 2 "$distributed" --case=$case > "$tmp/two.out" \
            2> "$tmp/two.err"; then
            fail "$case on 2 ranks ($engine): $(cat "$tmp/two.err")"
            continue
        fi
        grep -v '^rank ' "$tmp/two.out" | sort > "$tmp/two"
        if ! cmp -s "$tmp/one" "$tmp/two"; then
            fail "$case: 2 ranks ($engine) differ from one process:"
            diff "$tmp/one" "$tmp/two" | head -n 20
            continue
        fi
        lines=$(wc -l < "$tmp/one")
        ranks=$(grep -c '^rank [01] of 2: lookahead 1000 ns$' "$tmp/two.out")
        if [ "$ranks" != 2 ]; then
            fail "$case ($engine): expected both ranks with lookahead 1000 ns"
            cat "$tmp/two.out" | grep '^rank'
            continue
        fi
        echo "ok: $case on 2 ranks ($engine engine) = one process ($lines lines)"
    done
done
[ "$status" = 0 ] && echo "mpi-test: every distributed run matched its run in one process"
exit "$status"
