#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds training-net inside a real ns-3.37 tree, as users do (contrib/), and
# runs its test suites through that tree's own test.py.
#   1. the ns-3.37 source comes from Debian's source package (a private apt
#      configuration with a deb-src entry; nothing of the system's apt changes)
#      and is cached under $BUILD/intree, so a second run downloads nothing;
#   2. this module is copied to contrib/training-net (only the files that changed, so a
#      second run rebuilds only them);
#   3. ./ns3 configure --enable-modules=training-net --enable-tests --enable-examples
#      --filter-module-examples-and-tests=training-net --enable-mpi (Open MPI from
#      utils/setup-mpi.sh: the same tree serves check-mpi, so ns-3 is configured and built
#      once; the filter leaves out the tests and examples of the modules this one uses,
#      about 480 s of compiling, mostly internet's, core's and traffic-control's tests);
#      ninja -j2 (./ns3 build would use one job on two cores);
#   4. test.py --no-build runs every training-net suite of the test-runner; the README's script
#      (examples/training-net-script.cc), copied to scratch/ as users put theirs, runs and must
#      leave one run 'ok' that it finished itself (no error text).
# Usage: check-intree.sh [--configure-only] [BUILD_DIR]     (default: build)
#   --configure-only   stop before building (check-mpi.sh builds the programs it needs)
set -eu
configure_only=0
if [ "${1:-}" = --configure-only ]; then
    configure_only=1
    shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-$top/build}" && cd "${1:-$top/build}" && pwd)
cache=$build/intree
tree=$cache/ns-allinone-3.37/ns-3.37
jobs=${JOBS:-2}

if [ ! -x "$tree/ns3" ]; then
    mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/download"
    cat > "$cache/apt/sources.list" <<SOURCES
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
SOURCES
    set -- -o Dir::Etc::SourceList="$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt" \
        -o APT::Sandbox::User=root
    echo "check-intree: downloading the ns-3.37 Debian source package"
    apt-get "$@" update -qq
    (cd "$cache/download" && apt-get "$@" source --download-only ns3)
    tarball=$(ls "$cache"/download/ns3_3.37*.orig.tar.* | head -n 1)
    echo "check-intree: unpacking $(basename "$tarball")"
    tar -C "$cache" -xf "$tarball"
    [ -x "$tree/ns3" ] || { echo "check-intree: no ns-3.37 tree in $tarball" >&2; exit 1; }
fi

echo "check-intree: copying training-net to $tree/contrib/training-net"
# Only files whose content changed are written (and files gone are removed), so the tree's
# ninja rebuilds only what changed since check-mpi or the last check built it.
module=$tree/contrib/training-net
stage=$cache/training-net.copy
rm -rf "$stage"
mkdir -p "$stage" "$module"
(cd "$top" && tar --exclude='./build*' --exclude=./.git --exclude='./results.db*' -cf - .) |
    tar -C "$stage" -xf -
(cd "$module" && find . -type f) | while IFS= read -r f; do
    [ -e "$stage/$f" ] || rm -f "$module/$f"
done
(cd "$stage" && find . -type f) | while IFS= read -r f; do
    if ! cmp -s "$stage/$f" "$module/$f"; then
        mkdir -p "$(dirname "$module/$f")"
        cp "$stage/$f" "$module/$f"
    fi
done
rm -rf "$stage"
# ns-3.37 writes a header's stub (build/include/ns3/NAME.h, one #include of its path) once and
# never again: a stub of this module whose header moved or went is removed, and the module's
# CMakeLists.txt touched, so that ninja configures again and writes the stub anew
stale=0
for stub in "$tree"/build/include/ns3/*.h; do
    [ -f "$stub" ] || continue
    target=$(sed -n 's/^#include "\(.*\)"$/\1/p' "$stub" | head -n 1)
    case $target in
    "$module"/*) [ -e "$target" ] || { rm -f "$stub"; stale=1; } ;;
    esac
done
[ "$stale" = 0 ] || touch "$module/CMakeLists.txt"
# the README's script, where users write theirs (copied only when it changed, as above)
script=$tree/scratch/tn-readme-script.cc
cmp -s "$top/examples/training-net-script.cc" "$script" || cp "$top/examples/training-net-script.cc" "$script"

sh "$top/utils/setup-mpi.sh"
cd "$tree"
# a tree configured before MPI, the filter or the scratch script was asked for is configured
# again (its cache keeps both; scratch/ is listed at configure time)
if [ ! -f cmake-cache/build.ninja ] || ! grep -q '^NS3_MPI:BOOL=ON' cmake-cache/CMakeCache.txt ||
    ! grep -q 'tn-readme-script' cmake-cache/build.ninja ||
    ! grep -q '^NS3_FILTER_MODULE_EXAMPLES_AND_TESTS:STRING=training-net$' \
        cmake-cache/CMakeCache.txt; then
    ./ns3 configure -G Ninja -d release --enable-modules=training-net --enable-tests \
        --enable-examples --filter-module-examples-and-tests=training-net --enable-mpi
fi
[ "$configure_only" = 1 ] && exit 0
ninja -C cmake-cache -j"$jobs"

runner=$(ls build/utils/ns3.37-test-runner* | head -n 1)
suites=$("$runner" --print-test-name-list | grep '^training-net' || true)
[ -n "$suites" ] || { echo "check-intree: the tree's test-runner has no training-net suite" >&2; exit 1; }
failed=0
for suite in $suites; do
    python3 test.py --no-build --suite="$suite" || failed=1
done
./ns3 run --no-build "training-net-quickstart --db=$build/intree-results.db" || failed=1
rm -f "$build/intree-script.db"
./ns3 run --no-build "tn-readme-script --db=$build/intree-script.db" || failed=1
if [ "$(sqlite3 "$build/intree-script.db" "SELECT count(*) FROM run WHERE status = 'ok' AND error IS NULL" 2>/dev/null)" != 1 ]; then
    echo "check-intree: the README's script (scratch/tn-readme-script.cc) finished no run 'ok'" >&2
    failed=1
fi
[ "$failed" = 0 ] && echo "check-intree: every training-net suite passed in the ns-3.37 tree"
exit "$failed"
