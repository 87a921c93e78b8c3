#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tn-chakra-convert: Resnet50_DataParallel.txt on 4 NPUs as 4 traces, checked together (node
# counts against the text file: 3 kernels per layer, an update per layer with update_delay > 0,
# a weight-gradient all-reduce per layer); refusals are one line naming the file, exit 1; bad
# arguments exit 2; NPUS past 65,536, an empty prefix or a folder are refused and a failed
# conversion leaves no file; --msccl converts an MSCCL-IR all-reduce and refuses a bad step.
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

# --msccl: a 2-GPU all-reduce (each sends its chunk, receives and reduces the other's, then
# gathers): a send, a receive and a reduction per step; a step naming no step leaves no file
msccl() { # DEPS of gpu 1's last step
    printf '<algo coll="allreduce" ngpus="2">\n'
    for g in 0 1; do
        printf '<gpu id="%d" i_chunks="2" o_chunks="0">\n<tb id="0" send="%d" recv="%d" chan="0">\n' $g $((1 - g)) $((1 - g))
        printf '<step s="0" type="s" srcoff="%d" dstoff="%d" cnt="1" depid="-1" deps="-1"/>\n' $g $g
        printf '<step s="1" type="rrc" srcoff="%d" dstoff="%d" cnt="1" depid="-1" deps="-1"/>\n' $((1 - g)) $((1 - g))
        printf '<step s="2" type="s" srcoff="%d" dstoff="%d" cnt="1" depid="-1" deps="-1"/>\n' $((1 - g)) $((1 - g))
        printf '<step s="3" type="r" srcoff="%d" dstoff="%d" cnt="1" depid="%s" deps="%s"/>\n</tb>\n</gpu>\n' $g $g $([ $g = 1 ] && echo "$1" || echo "-1 -1")
    done
    printf '</algo>\n'
}
msccl "-1 -1" > "$tmp/ar2.xml"
"$tool" --msccl "$tmp/ar2.xml" "$tmp/ar2" || fail "--msccl failed"
out=$("$tool" --check "$tmp/ar2" 2) || fail "--msccl check failed: $out"
echo "$out" | grep -qF "$tmp/ar2.1.et: 5 nodes: 1 compute, 0 memory, 2 send, 2 recv, 0 collective; 4 dependencies" ||
    fail "--msccl: $out"
mkdir "$tmp/bounds"
msccl "0 7" > "$tmp/bad.xml"
err=$("$tool" --msccl "$tmp/bad.xml" "$tmp/bounds/x" 2>&1 >/dev/null)
[ $? = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
    echo "$err" | grep -q "bad.xml:[0-9]*: step: depid/deps name no step" || fail "--msccl bad deps: $err"
[ -z "$(ls -A "$tmp/bounds")" ] || fail "a failed --msccl left: $(ls -A "$tmp/bounds")"
sed 's/type="rrc"/type="rrcs"/' "$tmp/ar2.xml" > "$tmp/bad.xml"
err=$("$tool" --msccl "$tmp/bad.xml" "$tmp/bounds/x" 2>&1 >/dev/null)
[ $? = 1 ] && echo "$err" | grep -q "bad.xml:5: step: type: 'rrcs' is not supported" || fail "--msccl rrcs: $err"
echo "tn-chakra-convert: $nodes nodes per rank, refusals and bounds checked"
