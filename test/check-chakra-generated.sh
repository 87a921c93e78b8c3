#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails when model/core/chakra/tn-chakra.pb-c.{c,h} are not what protoc-c makes of
# model/core/chakra/tn-chakra.proto (they are kept in the tree so that builds need no protoc-c).
# To regenerate: cd model/core/chakra && protoc-c --c_out=. tn-chakra.proto
# Usage: check-chakra-generated.sh PROTOC_C MODULE_DIR
set -u
protoc=$1
dir=$2/model/core/chakra
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$dir/tn-chakra.proto" "$tmp/" || exit 2
(cd "$tmp" && "$protoc" --c_out=. tn-chakra.proto) || { echo "protoc-c failed"; exit 1; }
status=0
for f in tn-chakra.pb-c.c tn-chakra.pb-c.h; do
    if ! cmp -s "$tmp/$f" "$dir/$f"; then
        echo "model/core/chakra/$f differs from protoc-c's output (regenerate it:" \
             "cd model/core/chakra && protoc-c --c_out=. tn-chakra.proto)"
        status=1
    fi
done
[ $status = 0 ] && echo "model/core/chakra: the generated files match tn-chakra.proto"
exit $status
