#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A tool starts again with glibc's malloc asking for huge pages (model/core/tn-huge-pages.h),
# run by ctest as "example/huge-pages". The dynamic loader's LD_DEBUG=files log names each
# program it starts: the quickstart starts twice when the kernel gives huge pages on request
# (transparent_hugepage/enabled "madvise") and glibc can ask (2.35 on), once otherwise, once
# with TN_HUGE_PAGES=0, once when GLIBC_TUNABLES already names the tunable (no loop). The
# restarted run records the same database as the one that was not restarted (its arguments
# reached it).
# Usage: huge-pages-test.sh PATH/TO/training-net-quickstart
set -u
quickstart=${1:?usage: huge-pages-test.sh PATH/TO/training-net-quickstart}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# starts DB [ENV...]: how many times the quickstart's program was started for one run
starts() {
    db=$1
    shift
    env "$@" LD_DEBUG=files "$quickstart" --topology=torus:2x2 --algorithm=ring \
        --bytes=64KiB "--db=$tmp/$db" >"$tmp/out" 2>"$tmp/log" || {
        fail "the run with $* failed: $(tail -3 "$tmp/out" "$tmp/log")"
    }
    grep -c "transferring control: $quickstart\$" "$tmp/log"
}

expected=1
mode=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
libc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')
case "$mode" in
*"[madvise]"*)
    case "$libc" in
    2.3[5-9]* | 2.[4-9]* | [3-9].*) expected=2 ;;
    esac
    ;;
esac
echo "transparent huge pages: ${mode:-unknown}; glibc ${libc:-unknown}: expect $expected start(s)"

n=$(starts default.db)
[ "$n" = "$expected" ] || fail "default: $n starts, expected $expected"
n=$(starts off.db TN_HUGE_PAGES=0)
[ "$n" = 1 ] || fail "TN_HUGE_PAGES=0: $n starts, expected 1"
n=$(starts user.db GLIBC_TUNABLES=glibc.malloc.hugetlb=0)
[ "$n" = 1 ] || fail "the user's glibc.malloc.hugetlb: $n starts, expected 1"

# the same run either way: every table but the run row (its wall time and timestamps)
for db in default off; do
    sqlite3 "$tmp/$db.db" .dump | grep -v '^INSERT INTO run ' >"$tmp/$db.sql"
done
if [ ! -s "$tmp/default.sql" ] || ! cmp -s "$tmp/default.sql" "$tmp/off.sql"; then
    fail "the restarted run's database differs from the one that was not restarted"
fi
grep -q "INSERT INTO transfer" "$tmp/default.sql" || fail "no transfer rows recorded"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "huge pages: every check passed"
