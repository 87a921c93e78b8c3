#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Installs Open MPI (libopenmpi-dev, openmpi-bin) when missing: the in-tree checks build ns-3
# with its mpi module and run distributed tests with mpirun. Only those checks need it, so it
# is not in setup-debian.sh. As root it runs apt-get; otherwise it prints the command and fails.
set -eu
packages="libopenmpi-dev openmpi-bin"
missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "the MPI checks need these Debian packages:$missing" >&2
    echo "install them as root with:" >&2
    echo "  apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || apt-get update
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
