#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails when CMakeLists.txt (ns-3 >= 3.36, standalone) and wscript (ns-3 <= 3.35)
# would build different files, or when a source file on disk is in neither.
#   - every list `set(NAME ...)` of CMakeLists.txt must equal `NAME = [...]` of
#     wscript, file for file, and no list may exist in only one of them;
#   - examples/CMakeLists.txt and examples/wscript build the same programs from
#     the same files;
#   - every .c/.cc under model/ helper/ test/ examples/ utils/ bench/ and every
#     .h under model/ helper/ is named by a build file;
#   - an ns-3 tree builds the same library, tests and programs with either build
#     file, each .c file with the C core's flags, and waf finds test/data: both
#     build files are evaluated against models of ns-3's waf and CMake APIs
#     (utils/build-model.py; its header lists the rules).
# Usage: check-build-lists.sh [MODULE_DIR]
set -u
top=${1:-$(dirname "$0")/..}
cd "$top" || exit 2
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "list-name path" lines of a CMake file: set(name ...) blocks, comments stripped.
cmake_lists() {
    sed 's/#.*//' "$1" | awk '
        /^[ \t]*set\([A-Za-z_]+/ { sub(/^[ \t]*set\(/, ""); name = $1; inlist = 1; $1 = "" }
        inlist { for (i = 1; i <= NF; i++) { t = $i; gsub(/[()]/, "", t)
                     if (t ~ /\.(c|cc|h)$/) print name, t }
                 if ($0 ~ /\)/) inlist = 0 }'
}

# The same from a wscript: name = [ 'path', ... ] blocks.
waf_lists() {
    sed 's/#.*//' "$1" | awk '
        /^[A-Za-z_]+[ \t]*=[ \t]*\[/ { name = $1; inlist = 1 }
        inlist { n = split($0, parts, /[\x27"]/)
                 for (i = 2; i <= n; i += 2) if (parts[i] ~ /\.(c|cc|h)$/) print name, parts[i]
                 if ($0 ~ /\]/) inlist = 0 }'
}

list_names() {
    sed 's/#.*//' "$1" | grep -oE "$2" | sed -E "$3" | sort -u
}

cmake_lists CMakeLists.txt | sort > "$tmp/cmake"
waf_lists wscript | sort > "$tmp/waf"
list_names CMakeLists.txt '^[ 	]*set\([a-z_]*_(sources|headers)' 's/^[ \t]*set\(//' > "$tmp/cmake-names"
list_names wscript '^[a-z_]*_(sources|headers)[ 	]*=' 's/[ \t]*=$//' > "$tmp/waf-names"

# A list defined twice silently loses the first definition (Python) or is confusing (CMake).
for f in CMakeLists.txt wscript; do
    dups=$(sed 's/#.*//' "$f" | grep -oE '^[ 	]*(set\()?[a-z_]*_(sources|headers)([ 	]*=)?' |
        sed -E 's/^[ \t]*(set\()?//; s/[ \t]*=$//' | sort | uniq -d)
    if [ -n "$dups" ]; then
        echo "$f defines these lists more than once:" $dups
        status=1
    fi
done

if ! diff "$tmp/cmake-names" "$tmp/waf-names" > "$tmp/diff"; then
    echo "file lists named in only one build file ('<' CMakeLists.txt, '>' wscript):"
    grep '^[<>]' "$tmp/diff"
    status=1
fi
if ! diff "$tmp/cmake" "$tmp/waf" > "$tmp/diff"; then
    echo "CMakeLists.txt and wscript list different files ('<' only CMakeLists.txt, '>' only wscript):"
    grep '^[<>]' "$tmp/diff"
    status=1
fi

# Examples: program names and their files.
sed 's/#.*//' examples/CMakeLists.txt | tr '\n' ' ' | grep -oE 'NAME [A-Za-z0-9_-]+|[A-Za-z0-9_./-]+\.cc' |
    sed 's/^NAME //' | sort -u > "$tmp/ex-cmake"
sed 's/#.*//' examples/wscript | tr "'" '"' | grep -oE '"[A-Za-z0-9_./-]+"' | tr -d '"' |
    grep -v '^training-net$\|^core$\|^network$\|^internet$\|^point-to-point$\|^applications$\|^stats$' |
    sort -u > "$tmp/ex-waf"
if ! diff "$tmp/ex-cmake" "$tmp/ex-waf" > "$tmp/diff"; then
    echo "examples/CMakeLists.txt and examples/wscript differ ('<' only CMake, '>' only wscript):"
    grep '^[<>]' "$tmp/diff"
    status=1
fi

# Sources on disk that no build file names.
for f in $(find model helper test examples utils bench -name '*.c' -o -name '*.cc' 2>/dev/null) \
    $(find model helper -name '*.h' 2>/dev/null); do
    base=${f#examples/}
    if ! grep -q -- "$f" CMakeLists.txt utils/cmake/standalone.cmake 2>/dev/null &&
        ! grep -q -- "$base" examples/CMakeLists.txt 2>/dev/null &&
        ! grep -q -- "$(basename "$f")" test/CMakeLists.txt bench/CMakeLists.txt 2>/dev/null; then
        echo "$f is not in any build file"
        status=1
    fi
done

# What each build would build in an ns-3 tree, evaluated (python3 and cmake).
if ! python3 utils/build-model.py .; then
    status=1
fi

[ "$status" = 0 ] && echo "build lists agree: $(wc -l < "$tmp/cmake") files in $(wc -l < "$tmp/cmake-names") lists"
exit "$status"
