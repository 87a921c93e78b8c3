#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails when a source file of the module is over 1,000 lines without saying why at its top
# (doc/design.rst, Rules): its first 30 lines must hold "Over 1,000 lines for a reason:"
# (comment leaders and line breaks inside the phrase do not matter), followed by the reason.
# Looks at the .c, .cc, .h, .py and .sh files and utils/training-net-report under model/,
# helper/, utils/, examples/, test/ and bench/ (test/data holds inputs, not code).
# KNOWN lists files over the limit whose owners are changing them now; each is printed as
# KNOWN, and once it states its reason (or shrinks) as "remove it from KNOWN".
# Usage: check-file-sizes.sh [MODULE_DIR]
#        check-file-sizes.sh --self-test   (shows that a long file without a reason fails)
set -u
LIMIT=1000
KNOWN=""

# has_reason FILE: the phrase in the first 30 lines, comment leaders and breaks removed
has_reason() {
    head -n 30 "$1" | sed -E 's,^[[:space:]]*(/[*]+|[*]+/?|//+|#+)?[[:space:]]*,,' |
        tr '\n' ' ' | tr -s ' ' | grep -q 'Over 1,000 lines for a reason:'
}

# check TOP: prints each file over the limit without a reason; exit status 1 when there is one
check() {
    top=$1
    bad=0
    for f in $(cd "$top" && find model helper utils examples test bench \
                   -path test/data -prune -o -type f \
                   \( -name '*.c' -o -name '*.cc' -o -name '*.h' -o -name '*.py' -o -name '*.sh' \
                      -o -name training-net-report \) -print 2>/dev/null | sort); do
        lines=$(wc -l < "$top/$f")
        known=0
        for k in $KNOWN; do
            [ "$k" = "$f" ] && known=1
        done
        if [ "$lines" -gt "$LIMIT" ] && ! has_reason "$top/$f"; then
            if [ $known = 1 ]; then
                echo "KNOWN $f: $lines lines, no reason at its top yet"
            else
                echo "$f: $lines lines and no 'Over 1,000 lines for a reason:' in its first 30 lines"
                bad=1
            fi
        elif [ $known = 1 ]; then
            echo "$f: states its reason or is short now: remove it from KNOWN"
            bad=1
        fi
    done
    return $bad
}

self_test() {
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    mkdir -p "$scratch/model/core" "$scratch/test/data" "$scratch/helper"
    long() { # FILE HEADER...: the header lines, then filler past the limit
        f=$1
        shift
        printf '%s\n' "$@" > "$f"
        i=0
        while [ $i -lt $LIMIT ]; do
            echo "int x$i;"
            i=$((i + 1))
        done >> "$f"
    }
    long "$scratch/model/core/tn-a.c" "/*" " * tn-a. Over 1,000" " * lines for a reason: one concept." " */"
    long "$scratch/helper/b.sh" "# Over 1,000 lines for a reason: its cases share one setup."
    long "$scratch/test/data/big.c" "/* test input, not code */"
    echo "int small;" > "$scratch/model/core/tn-b.c"
    if ! check "$scratch" > "$scratch/out"; then
        echo "self-test: files with reasons (or inputs, or short) were refused:"
        cat "$scratch/out"
        exit 1
    fi
    long "$scratch/model/core/tn-c.c" "/* tn-c: over a thousand lines, no reason given */"
    if check "$scratch" > "$scratch/out" || ! grep -q '^model/core/tn-c.c: 1001 lines' "$scratch/out"; then
        echo "self-test: a long file without a reason was not reported:"
        cat "$scratch/out"
        exit 1
    fi
    echo "file-sizes self-test: reasons found across comment lines, a missing one fails"
}

if [ "${1:-}" = "--self-test" ]; then
    self_test
    exit 0
fi
top=${1:-$(dirname "$0")/..}
if check "$top"; then
    echo "every file over $LIMIT lines says why at its top"
    exit 0
fi
echo "a file over $LIMIT lines states why at its top (doc/design.rst, Rules), or is split"
exit 1
