#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tn-chakra-convert: Resnet50_DataParallel.txt on 4 NPUs as 4 traces, checked together (node
# counts against the text file: 3 kernels per layer, an update per layer with update_delay > 0,
# a weight-gradient all-reduce per layer); refusals are one line naming the file, exit 1; bad
# arguments exit 2; NPUS past 65,536, an empty prefix or a folder are refused and a failed
# conversion leaves no file.
# Usage: tn-chakra-convert-test.sh TN_CHAKRA_CONVERT MODULE_DIR
set -u
tool=$1
data=$2/test/data/workloads
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

wl=$data/Resnet50_DataParallel.txt
"$tool" "$wl" 4 "$tmp/r50" || fail "conversion failed"
[ -f "$tmp/r50.3.et" ] && [ ! -f "$tmp/r50.4.et" ] || fail "not exactly 4 files"
layers=$(sed -n 2p "$wl" | tr -d ' \r')
updates=$(awk 'NR > 2 && NF >= 12 && $12 > 0' "$wl" | wc -l)
kernels=$((3 * layers + updates))
nodes=$((kernels + layers))
out=$("$tool" --check "$tmp/r50" 4) || fail "check failed: $out"
expect="$tmp/r50.0.et: $nodes nodes: $kernels compute, 0 memory, 0 send, 0 recv, $layers collective"
echo "$out" | grep -qF "$expect" || fail "expected '$expect' in: $out"
[ "$(echo "$out" | wc -l)" = 4 ] || fail "expected 4 lines: $out"

# a missing rank
err=$("$tool" --check "$tmp/r50" 5 2>&1 >/dev/null)
[ $? = 1 ] && echo "$err" | grep -q "r50.4.et" || fail "missing rank: $err"

# a truncated rank: one line naming the file and where, exit 1
head -c 100 "$tmp/r50.2.et" > "$tmp/cut"
mv "$tmp/cut" "$tmp/r50.2.et"
err=$("$tool" --check "$tmp/r50" 4 2>&1 >/dev/null)
code=$?
[ $code = 1 ] || fail "truncated: exit $code, expected 1"
[ "$(echo "$err" | wc -l)" = 1 ] || fail "truncated: not one line: $err"
echo "$err" | grep -q "r50.2.et: the node after node [0-9]*: byte [0-9]*: truncated message" ||
    fail "truncated: $err"

# a bad count, a workload error
"$tool" "$wl" 0 "$tmp/x" 2>/dev/null
[ $? = 2 ] || fail "NPUS 0 accepted"
"$tool" "$wl" 4 2>/dev/null
[ $? = 2 ] || fail "missing PREFIX accepted"
printf 'DATA\n1\nl -1 x NONE 0 1 NONE 0 1 NONE 0 0\n' > "$tmp/bad.txt"
err=$("$tool" "$tmp/bad.txt" 2 "$tmp/b" 2>&1 >/dev/null)
[ $? = 1 ] && echo "$err" | grep -q "bad.txt:3: field 3" || fail "bad workload: $err"

# bounds (issue 42): NPUS past the largest fabric, an empty prefix or a folder, exit 2 and no
# file written; a conversion refused after its workload was read leaves no PREFIX.0.et
mkdir "$tmp/bounds"
for args in "4294967295 $tmp/bounds/n" "65537 $tmp/bounds/n"; do
    err=$("$tool" "$wl" $args 2>&1 >/dev/null)
    [ $? = 2 ] && echo "$err" | grep -q "NPUS .* is more than 65536" || fail "NPUS $args: $err"
done
err=$("$tool" --check "$tmp/r50" 4294967295 2>&1 >/dev/null)
[ $? = 2 ] && echo "$err" | grep -q "more than 65536" || fail "--check NPUS 2^32-1: $err"
for prefix in "" "$tmp/bounds/"; do
    err=$("$tool" "$wl" 2 "$prefix" 2>&1 >/dev/null)
    [ $? = 2 ] && echo "$err" | grep -q "PREFIX must name a file" || fail "prefix '$prefix': $err"
done
[ -z "$(ls -A "$tmp/bounds")" ] && [ ! -e .0.et ] || fail "a refusal wrote: $(ls -A "$tmp/bounds")"
printf 'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 4096 0\n' \
    > "$tmp/group8.txt"
err=$("$tool" "$tmp/group8.txt" 4 "$tmp/bounds/g" 2>&1 >/dev/null)
[ $? = 1 ] && echo "$err" | grep -q "group" || fail "group 8 on 4 NPUs: $err"
[ -z "$(ls -A "$tmp/bounds")" ] || fail "a failed conversion left: $(ls -A "$tmp/bounds")"
rm -rf "$tmp/bounds"
echo "tn-chakra-convert: $nodes nodes per rank, refusals and bounds checked"
