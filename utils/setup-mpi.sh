#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Installs Open MPI (libopenmpi-dev, openmpi-bin) when missing: the in-tree checks build ns-3
# with its mpi module and run distributed tests with mpirun. Only those checks need it, so it
# is not in setup-debian.sh's default list. As root it runs apt-get; otherwise it prints the
# command and fails.
set -eu
exec sh "$(dirname "$0")/setup-debian.sh" --for "the MPI checks" libopenmpi-dev openmpi-bin
