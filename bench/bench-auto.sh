#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Algorithm auto (tn-tune.h) against every algorithm, measured at packet level: for each
# topology kind and all-reduce size, collective-comparison runs auto (the tuner's choice) and
# every other algorithm tn-plan --algorithm auto ranks there (the ones that apply), one after
# the other in one process. Printed per cell: the best algorithm measured and its time, auto's
# pick and its time, their ratio, auto against ring, and whether auto is within 5% of the best
# (a hit); at the end the hit rate and the worst ratio to ring. The issue's acceptance: hits in
# at least 90% of the cells, never more than 5% slower than ring.
# Usage: bench-auto.sh BUILD_DIR
#   environment: TOPOLOGIES (the six kinds below), SIZES (32KiB..256MiB by 8x), MODE (packet)
set -eu
build=$1
plan=$build/tn-plan
compare=$build/examples/collective-comparison
[ -x "$plan" ] && [ -x "$compare" ] || { echo "bench-auto: build $build first" >&2; exit 2; }
topologies=${TOPOLOGIES:-"torus:4x4 mesh:4x4 switch:16 fattree:k=4 bigraph:4x4 hier:ring4@200Gbps+switch4@100Gbps"}
sizes=${SIZES:-"32KiB 256KiB 2MiB 16MiB 128MiB 256MiB"}
mode=${MODE:-packet}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-36s %-7s %-13s %11s %-13s %11s %7s %8s %s\n' topology size best "best (us)" auto \
    "auto (us)" ratio "vs ring" hit
cells=0
hits=0
worst_ring=0
for topo in $topologies; do
    for size in $sizes; do
        # the candidates: every algorithm the tuner ranks (not the skipped ones)
        algos=$("$plan" --topology "$topo" --algorithm auto --size "$size" --no-verify |
            awk '/^ +[0-9]+ / { printf "%s%s", sep, $2; sep = "," }')
        start=$(date +%s)
        # an algorithm that does not run as planned (a PFC deadlock, say) makes the program
        # exit 1 after printing its row: the cell goes on without it, and names it
        if ! "$compare" --db="$tmp/bench.db" --topology="$topo" --bytes="$size" --mode="$mode" \
            --algorithms="auto,$algos" > "$tmp/out" 2> "$tmp/err" &&
            ! grep -q 'NOT AS PLANNED' "$tmp/out"; then
            echo "bench-auto: $topo $size: $(cat "$tmp/err")" >&2
            exit 1
        fi
        wall=$(($(date +%s) - start))
        # rows: routing, algorithm (auto:CHOICE for auto), packet us, ...
        awk -v topo="$topo" -v size="$size" -v wall="$wall" '
            $1 == "planned" && /NOT AS PLANNED/ { failed = failed ", " $2 " not as planned"; next }
            $1 == "planned" && $2 ~ /^auto:/ { pick = substr($2, 6); auto = $3 }
            $1 == "planned" && $2 !~ /^auto:/ {
                if (best == "" || $3 < bestus) { best = $2; bestus = $3 }
                if ($2 == "ring") ring = $3
            }
            END {
                if (auto == "") { auto = 1e300; pick = "(failed)" }
                if (auto < bestus) { best = "auto:" pick; bestus = auto }
                ratio = auto / bestus
                vsring = ring > 0 ? auto / ring : 0
                printf "%-36s %-7s %-13s %11.1f %-13s %11.1f %7.3f %8.3f %s (%ss%s)\n", topo, size,
                    best, bestus, pick, auto, ratio, vsring, ratio <= 1.05 ? "hit" : "MISS", wall, failed
            }' "$tmp/out" | tee "$tmp/row"
        cells=$((cells + 1))
        if grep -q ' hit ' "$tmp/row"; then hits=$((hits + 1)); fi
        worst_ring=$(awk -v w="$worst_ring" '{ print ($8 > w ? $8 : w) }' "$tmp/row")
    done
done
awk -v h="$hits" -v c="$cells" -v w="$worst_ring" 'BEGIN {
    printf "hit rate %d of %d cells (%.0f%%, goal >= 90%%); worst auto / ring %.3f (goal <= 1.05)\n",
        h, c, 100 * h / c, w }'
