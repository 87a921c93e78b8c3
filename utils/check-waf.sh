#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds training-net inside a waf-era ns-3 tree (ns-3 <= 3.35) as users do (contrib/), and
# runs its test suites through that tree's own test.py and the quickstart through waf.
#   1. the tree is Debian bullseye's source package ns3 (3.31+dfsg-3, the last waf-based ns-3
#      in Debian), fetched through a private apt configuration with a deb-src entry for
#      bullseye main (nothing of the system's apt changes), unpacked and cached under
#      $BUILD/waf, so a second run downloads nothing;
#   2. this module is copied to contrib/training-net (a fresh copy each run);
#   3. ./waf configure -d optimized --enable-modules=training-net --enable-tests
#      --enable-examples --disable-werror (ns-3's own core does not build with GCC 12 and
#      -Werror) --disable-python (no bindings: they need pybindgen and time); the module pulls
#      in only core and network. ./waf build -j2;
#   4. test.py --nowaf (3.31's spelling of --no-build) runs every training-net suite of the
#      tree's test-runner; ./waf --run runs the quickstart, which must write its database.
# Usage: check-waf.sh [BUILD_DIR]     (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-$top/build}" && cd "${1:-$top/build}" && pwd)
cache=$build/waf
version=3.31
jobs=${JOBS:-2}

# The ns-3 tree: the folder of the unpacked source holding waf, wscript and test.py.
find_tree() {
    for d in "$cache/ns-allinone-$version/ns-$version" "$cache/ns-$version"* "$cache/ns3-$version"*; do
        if [ -f "$d/wscript" ] && [ -f "$d/test.py" ] && [ -d "$d/src/core" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

if ! tree=$(find_tree); then
    mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/download"
    cat > "$cache/apt/sources.list" <<SOURCES
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main
SOURCES
    set -- -o Dir::Etc::SourceList="$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt" \
        -o APT::Sandbox::User=root
    echo "check-waf: downloading the ns-$version Debian source package (bullseye)"
    apt-get "$@" update -qq
    if ! (cd "$cache/download" && apt-get "$@" source --download-only ns3); then
        echo "check-waf: the archive did not serve the source package ns3 $version" >&2
        exit 1
    fi
    tarball=$(ls "$cache"/download/ns3_$version*.orig.tar.* | head -n 1)
    echo "check-waf: unpacking $(basename "$tarball")"
    tar -C "$cache" -xf "$tarball"
    tree=$(find_tree) || {
        echo "check-waf: no ns-$version tree (wscript, test.py, src/core) in $tarball" >&2
        exit 1
    }
fi

# waf itself: the tree's ./waf (a packed waf), or, where the Debian repack unpacked it, waflib
# with waf-light beside it.
cd "$tree"
if [ -f waf ]; then
    waf="python3 ./waf"
elif [ -f waf-light ] && [ -d waflib ]; then
    waf="python3 ./waf-light"
else
    echo "check-waf: no waf in $tree (neither ./waf nor waf-light with waflib)" >&2
    exit 1
fi

echo "check-waf: copying training-net to $tree/contrib/training-net"
rm -rf contrib/training-net
mkdir -p contrib/training-net
(cd "$top" && tar --exclude='./build*' --exclude=./.git --exclude='./results.db*' -cf - .) |
    tar -C contrib/training-net -xf -

if [ ! -f build/c4che/_cache.py ] || ! grep -q training-net build/c4che/_cache.py; then
    $waf configure -d optimized --enable-modules=training-net --enable-tests --enable-examples \
        --disable-werror --disable-python
fi
$waf build -j"$jobs"

runner=$(ls build/utils/ns$version-test-runner* | head -n 1)
suites=$(LD_LIBRARY_PATH=$tree/build/lib "$runner" --print-test-name-list | grep '^training-net' || true)
[ -n "$suites" ] || { echo "check-waf: the tree's test-runner has no training-net suite" >&2; exit 1; }
failed=0
for suite in $suites; do
    python3 test.py --nowaf --suite="$suite" || failed=1
done
db=$build/waf-results.db
rm -f "$db"
$waf --run "training-net-quickstart --db=$db" || failed=1
runs=$(sqlite3 "$db" "SELECT count(*) FROM run WHERE status = 'ok'" 2>/dev/null || echo 0)
if [ "$runs" != 1 ]; then
    echo "check-waf: the quickstart wrote no finished run into $db" >&2
    failed=1
fi
[ "$failed" = 0 ] && echo "check-waf: every training-net suite passed in the ns-$version tree"
exit "$failed"
