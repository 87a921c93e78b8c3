#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds training-net inside a waf-era ns-3 tree (ns-3.35, the last release built with waf) as
# users do (contrib/), and runs its test suites through that tree's own test.py and the
# quickstart through waf.
#   1. the tree is a trimmed ns-3.35 release (core, network, stats, mpi, point-to-point,
#      traffic-control, internet, bridge, config-store and the top-level waf files), read from
#      the tarball $NS3_WAF_TARBALL (required; `make check-waf` passes the Makefile's default)
#      and unpacked once under $BUILD/waf; a second run reuses it;
#   2. this module is copied to contrib/training-net (a fresh copy each run);
#   3. ./waf configure -d optimized --enable-modules=training-net --enable-tests
#      --enable-examples --disable-werror (ns-3.35's own core does not build with GCC 12 and
#      -Werror) --disable-python (no bindings: they need pybindgen and time), once per tree;
#      ./waf build -j$JOBS;
#   4. test.py --nowaf (3.35's spelling of --no-build) runs every training-net suite of the
#      tree's test-runner; ./waf --run runs the quickstart, which must write its database, and
#      the README's script (examples/training-net-script.cc, built in scratch/ as users build
#      theirs), which must finish one run 'ok' itself (no error text).
# Each step prints its wall time; the last line gives the total.
# Usage: check-waf.sh [BUILD_DIR]     (default: build; NS3_WAF_TARBALL and JOBS from the
#        environment)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-$top/build}" && cd "${1:-$top/build}" && pwd)
cache=$build/waf
version=3.35
tarball=${NS3_WAF_TARBALL:-}
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "check-waf: NS3_WAF_TARBALL ${tarball:+($tarball) }must name the trimmed ns-$version tarball (ns-$version-waf-min.tar.xz)" >&2
    exit 1
fi
tree=$cache/ns-$version
jobs=${JOBS:-2}
start=$(date +%s)
step=$start

lap() {
    now=$(date +%s)
    echo "check-waf: $1 took $((now - step)) s"
    step=$now
}

if [ ! -f "$tree/wscript" ] || [ ! -f "$tree/test.py" ] || [ ! -d "$tree/src/core" ]; then
    echo "check-waf: unpacking $tarball into $cache"
    rm -rf "$tree"
    mkdir -p "$cache"
    tar -C "$cache" -xf "$tarball"
    if [ ! -f "$tree/wscript" ] || [ ! -f "$tree/test.py" ] || [ ! -d "$tree/src/core" ]; then
        echo "check-waf: $tarball holds no ns-$version/ tree (wscript, test.py, src/core)" >&2
        exit 1
    fi
    lap "unpacking"
fi

cd "$tree"
echo "check-waf: copying training-net to $tree/contrib/training-net"
rm -rf contrib/training-net
mkdir -p contrib/training-net
(cd "$top" && tar --exclude='./build*' --exclude=./.git --exclude='./results.db*' -cf - .) |
    tar -C contrib/training-net -xf -
cp "$top/examples/training-net-script.cc" scratch/tn-readme-script.cc

# configured once per tree: waf's cache lists the module as 'ns3-training-net'
if [ ! -f build/c4che/_cache.py ] || ! grep -q "'ns3-training-net'" build/c4che/_cache.py; then
    python3 ./waf configure -d optimized --enable-modules=training-net --enable-tests \
        --enable-examples --disable-werror --disable-python
    lap "configure"
fi
python3 ./waf build -j"$jobs"
lap "build"

runner=$(ls build/utils/ns$version-test-runner* | head -n 1)
suites=$(LD_LIBRARY_PATH=$tree/build/lib "$runner" --print-test-name-list | grep '^training-net' || true)
[ -n "$suites" ] || { echo "check-waf: the tree's test-runner has no training-net suite" >&2; exit 1; }
failed=0
for suite in $suites; do
    python3 test.py --nowaf --suite="$suite" || failed=1
done
lap "the suites ($(echo "$suites" | wc -w))"
db=$build/waf-results.db
rm -f "$db"
# ./waf --run looks for src/visualizer (pyviz) to set up the program's environment; the
# trimmed tree has none, and an empty folder is no module (it has no wscript)
mkdir -p src/visualizer
python3 ./waf --run "training-net-quickstart --db=$db" || failed=1
runs=$(sqlite3 "$db" "SELECT count(*) FROM run WHERE status = 'ok'" 2>/dev/null || echo 0)
if [ "$runs" != 1 ]; then
    echo "check-waf: the quickstart wrote no finished run into $db" >&2
    failed=1
fi
lap "the quickstart"
rm -f "$build/waf-script.db"
python3 ./waf --run "tn-readme-script --db=$build/waf-script.db" || failed=1
if [ "$(sqlite3 "$build/waf-script.db" "SELECT count(*) FROM run WHERE status = 'ok' AND error IS NULL" 2>/dev/null)" != 1 ]; then
    echo "check-waf: the README's script (scratch/tn-readme-script.cc) finished no run 'ok'" >&2
    failed=1
fi
lap "the README's script"
echo "check-waf: total $(($(date +%s) - start)) s"
[ "$failed" = 0 ] && echo "check-waf: every training-net suite passed in the ns-$version tree"
exit "$failed"
