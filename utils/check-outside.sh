#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The standalone build configured in a folder outside the checkout, then every ctest there.
# ns-3's test runner looks for test data by walking up from its own folder to one holding
# VERSION and LICENSE; from a build folder outside the checkout it finds none, so the suites
# must find test/data by themselves (test/tn-test-data.h). The check refuses a folder inside
# the checkout (or inside any folder with VERSION and LICENSE): there it would prove nothing.
# Usage: check-outside.sh BUILD_DIR     (BUILD_TYPE and JOBS from the environment)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 1 ] || { echo "usage: check-outside.sh BUILD_DIR" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
jobs=${JOBS:-2}

d=$out
while :; do
    if [ -f "$d/VERSION" ] && [ -f "$d/LICENSE" ]; then
        echo "check-outside: $out is inside $d, which holds VERSION and LICENSE;" \
            "choose a build folder outside the checkout" >&2
        exit 1
    fi
    [ "$d" = / ] && break
    d=$(dirname "$d")
done

# A folder configured from another checkout is configured afresh.
if [ -f "$out/CMakeCache.txt" ] &&
    ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$top" "$out/CMakeCache.txt"; then
    echo "check-outside: $out was configured from another source folder; configuring afresh"
    rm -rf "$out/CMakeCache.txt" "$out/CMakeFiles"
fi

echo "check-outside: the standalone build in $out (source $top)"
cmake -S "$top" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}"
ninja -C "$out" -j"$jobs"
ctest --test-dir "$out" --output-on-failure -j"$jobs"
