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
# It also fails when a function under model/, helper/ or utils/ (.c, .cc, .h; not test/ or
# examples/, whose cases may read better whole) is over 200 lines without saying why at its head:
# the comment just above its signature must hold "Over 200 lines for a reason:". A function is
# counted from a "{" at column 0 to the next "}" at column 0, the way .clang-format lays out
# definitions; a namespace, struct, class, enum or union opened at column 0 is not a function.
# Usage: check-file-sizes.sh [MODULE_DIR]
#        check-file-sizes.sh --self-test   (shows that a long file or function without a reason fails)
set -u
LIMIT=1000
FUNC_LIMIT=200
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

# long_functions FILE: prints "FILE:LINE NAME: N lines" for each function over FUNC_LIMIT lines
# whose head (the comment block just above its signature) lacks the phrase
long_functions() {
    awk -v limit="$FUNC_LIMIT" -v file="$2" '
    function is_comment(l) { return l ~ /^[ \t]*(\/\*|\*|\/\/)/ }
    { line[NR] = $0 }
    /^\{/ && start == 0 {
        # the signature: lines above up to a blank, a comment or the previous definition
        i = NR - 1
        while (i > 0 && i > NR - 20 && line[i] !~ /^[ \t]*$/ && !is_comment(line[i]) &&
               line[i] !~ /^(\}|#)/)
            i--
        sig = ""
        for (k = i + 1; k < NR; k++)
            sig = sig " " line[k]
        if (sig ~ /^[ \t]*(namespace|(typedef[ \t]+)?(struct|class|enum|union))([ \t]|$)/ ||
            sig ~ /=[ \t]*$/ || sig ~ /^[ \t]*extern[ \t]+"C"/)
            next
        # the head: the comment lines just above the signature
        head = ""
        for (j = i; j > 0 && is_comment(line[j]); j--)
            head = line[j] " " head
        gsub(/(\/\*+|\*+\/|\/\/+|\*)/, " ", head)
        gsub(/[ \t]+/, " ", head)
        name = sig
        sub(/\(.*/, "", name)
        gsub(/.*[ \t*&]/, "", name)
        start = NR
        next
    }
    /^\}/ && start > 0 {
        n = NR - start + 1
        if (n > limit && index(head, "Over 200 lines for a reason:") == 0)
            printf "%s:%d %s: %d lines\n", file, start, name, n
        start = 0
    }
    ' "$1"
}

# check_functions TOP: prints each function over the limit without a reason; 1 when there is one
check_functions() {
    top=$1
    bad=0
    for f in $(cd "$top" && find model helper utils -type f \
                   \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print 2>/dev/null | sort); do
        out=$(long_functions "$top/$f" "$f")
        if [ -n "$out" ]; then
            echo "$out" | sed "s/\$/ and no 'Over 200 lines for a reason:' at its head/"
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
    body() { # N: N statement lines
        i=0
        while [ $i -lt "$1" ]; do
            echo "    x$i = 0;"
            i=$((i + 1))
        done
    }
    mkdir -p "$scratch/fn/model/core" "$scratch/fn/model/npu" "$scratch/fn/test"
    {
        printf '%s\n' "/* Why it is whole. Over 200" " * lines for a reason: one flat table. */" \
            "static int" "tn_table(int a," "         int b)" "{"
        body 250
        printf '}\n\nstruct tn_big\n{\n'
        body 250
        printf '};\n\n/* a short one */\nint\ntn_short(void)\n{\n'
        body 198
        printf '}\n'
    } > "$scratch/fn/model/core/tn-d.c"
    {
        printf 'namespace ns3\n{\n\n// Over 200 lines for a reason: its steps share one lock.\n'
        printf 'void\nThing::Whole()\n{\n'
        body 230
        printf '}\n\n} // namespace ns3\n'
    } > "$scratch/fn/model/npu/thing.cc"
    { printf 'int\nmain(void)\n{\n'; body 300; printf '}\n'; } > "$scratch/fn/test/long-test.c"
    if ! check_functions "$scratch/fn" > "$scratch/out"; then
        echo "self-test: functions with reasons (or in tests, or short, or structs) were refused:"
        cat "$scratch/out"
        exit 1
    fi
    {
        printf '%s\n' "/* the parser: no reason given */" "tn_status" "tn_parse(const char* s)" "{"
        body 199
        printf '}\n'
    } > "$scratch/fn/model/core/tn-e.c"
    if check_functions "$scratch/fn" > "$scratch/out" ||
        ! grep -q '^model/core/tn-e.c:4 tn_parse: 201 lines' "$scratch/out" ||
        [ "$(wc -l < "$scratch/out")" -ne 1 ]; then
        echo "self-test: a long function without a reason was not reported alone:"
        cat "$scratch/out"
        exit 1
    fi
    echo "file-sizes self-test: reasons found across comment lines, a missing one fails"
    echo "  (files over $LIMIT lines, and functions over $FUNC_LIMIT lines)"
}

if [ "${1:-}" = "--self-test" ]; then
    self_test
    exit 0
fi
top=${1:-$(dirname "$0")/..}
status=0
if check "$top"; then
    echo "every file over $LIMIT lines says why at its top"
else
    echo "a file over $LIMIT lines states why at its top (doc/design.rst, Rules), or is split"
    status=1
fi
if check_functions "$top"; then
    echo "every function over $FUNC_LIMIT lines in model/, helper/ and utils/ says why at its head"
else
    echo "a function over $FUNC_LIMIT lines states why at its head (doc/design.rst, Rules), or is split"
    status=1
fi
exit $status
