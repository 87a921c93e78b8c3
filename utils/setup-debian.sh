#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Installs the Debian packages training-net needs, when missing. As root it
# runs apt-get; otherwise it prints the exact command and fails.
#   setup-debian.sh                          the packages of the build and the tests
#   setup-debian.sh --for WHAT PACKAGE...    other packages, for WHAT (setup-mpi.sh)
set -eu
packages="gcc g++ make cmake ninja-build pkg-config python3 libns3-dev libgsl-dev libsqlite3-dev sqlite3 tshark bzip2 libtomlplusplus-dev libprotobuf-c-dev protobuf-c-compiler python3-matplotlib python3-docutils"
needed_by="training-net"
if [ "${1:-}" = "--for" ]; then
    [ $# -ge 3 ] || { echo "setup-debian.sh: --for WHAT PACKAGE..." >&2; exit 2; }
    needed_by="$2"
    shift 2
    packages="$*"
fi
missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "$needed_by needs these Debian packages:$missing" >&2
    echo "install them as root with:" >&2
    echo "  apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || apt-get update
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
