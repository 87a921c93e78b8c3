#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails when an include points up the layers (doc/design.rst, "Layers"):
#     model/core <- model/common <- model/roce <- model/npu <- model/stats <- helper
# A file of one layer (its folder and the folders in it, such as model/roce/hpcc) may include
# headers of its own layer and the layers left of it, never one to its right. Each `#include "ns3/x.h"` and `#include "x.h"` of a .c/.cc/.h under those
# folders is resolved to the folder x.h lives in; headers of no folder of the module (ns-3's,
# the system's) are outside the rule, except that the C core includes no "ns3/" header at all
# (it builds without ns-3). examples/, utils/, bench/ and test/ sit on top and may include
# anything.
# Usage: check-include-direction.sh [MODULE_DIR]
#        check-include-direction.sh --self-test   (shows that a back edge fails the check)
set -u
LAYERS="model/core model/common model/roce model/npu model/stats helper"

# check TOP: prints every back edge, exit status 1 when there is one.
check() {
    top=$1
    tmp=$(mktemp)
    # "header-basename layer-index" for every header of a layer
    i=0
    for layer in $LAYERS; do
        [ -d "$top/$layer" ] && find "$top/$layer" -name '*.h' |
            sed "s|.*/||; s|\$| $i $layer|" >> "$tmp"
        i=$((i + 1))
    done
    i=0
    bad=0
    for layer in $LAYERS; do
        if [ -d "$top/$layer" ]; then
            for f in $(find "$top/$layer" \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) | sort); do
                awk -v layer="$i" -v here="$layer" -v file="${f#"$top"/}" '
                    FNR == NR { where[$1] = $2; name[$1] = $3; next }
                    /^[ \t]*#[ \t]*include[ \t]*"/ {
                        h = $0
                        sub(/^[^"]*"/, "", h)
                        sub(/".*/, "", h)
                        ns3 = sub(/^ns3\//, "", h)
                        if (ns3 && here == "model/core") {
                            printf "%s:%d: the C core includes \"ns3/%s\"\n", file, FNR, h
                            bad = 1
                        } else if ((h in where) && where[h] > layer) {
                            printf "%s:%d: includes %s of %s, a layer above %s\n", file, FNR, h, name[h], here
                            bad = 1
                        }
                    }
                    END { exit bad }' "$tmp" "$f" || bad=1
            done
        fi
        i=$((i + 1))
    done
    rm -f "$tmp"
    return $bad
}

# A tree with one include of each allowed kind passes; the same tree with one back edge
# (an NPU model file including a helper header) fails and names the file and line.
self_test() {
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    mkdir -p "$scratch/model/core" "$scratch/model/roce" "$scratch/model/npu" "$scratch/model/stats" "$scratch/helper"
    printf '#include "tn-a.h"\n' > "$scratch/model/core/tn-a.c"
    : > "$scratch/model/core/tn-a.h"
    printf '#include "ns3/tn-a.h"\n#include "ns3/object.h"\n' > "$scratch/model/roce/nic.h"
    printf '#include "nic.h"\n' > "$scratch/model/roce/nic.cc"
    printf '#include "ns3/nic.h"\n#include "service.h"\n' > "$scratch/model/npu/service.cc"
    : > "$scratch/model/npu/service.h"
    printf '#include "ns3/service.h"\n' > "$scratch/model/stats/recorder.cc"
    printf '#include "ns3/recorder.h"\n#include "ns3/service.h"\n' > "$scratch/helper/x-helper.cc"
    : > "$scratch/model/stats/recorder.h"
    : > "$scratch/helper/x-helper.h"
    if ! check "$scratch" > "$scratch/out"; then
        echo "self-test: a tree without back edges was refused:"
        cat "$scratch/out"
        exit 1
    fi
    printf '#include "ns3/x-helper.h"\n' >> "$scratch/model/npu/service.cc"
    if check "$scratch" > "$scratch/out" || ! grep -q '^model/npu/service.cc:3: includes x-helper.h of helper' "$scratch/out"; then
        echo "self-test: the back edge model/npu -> helper was not reported as such:"
        cat "$scratch/out"
        exit 1
    fi
    # a wing in a layer's subfolder is that layer
    sed -i '$d' "$scratch/model/npu/service.cc"
    mkdir -p "$scratch/model/npu/wing"
    printf '#include "ns3/service.h"\n#include "ns3/x-helper.h"\n' > "$scratch/model/npu/wing/w.cc"
    if check "$scratch" > "$scratch/out" || ! grep -q '^model/npu/wing/w.cc:2: includes x-helper.h of helper' "$scratch/out"; then
        echo "self-test: the back edge model/npu/wing -> helper was not reported as such:"
        cat "$scratch/out"
        exit 1
    fi
    rm -r "$scratch/model/npu/wing"
    printf '#include "ns3/nic.h"\n' >> "$scratch/model/core/tn-a.c"
    if check "$scratch" > "$scratch/out" || ! grep -q '^model/core/tn-a.c:2: the C core includes' "$scratch/out"; then
        echo "self-test: an ns3/ include in the C core was not reported:"
        cat "$scratch/out"
        exit 1
    fi
    echo "include-direction self-test: clean tree passes, back edges fail"
}

if [ "${1:-}" = "--self-test" ]; then
    self_test
    exit 0
fi
top=${1:-$(dirname "$0")/..}
if check "$top"; then
    echo "includes point one way: $LAYERS"
    exit 0
fi
echo "includes must point left: $LAYERS (doc/design.rst, Layers)"
exit 1
