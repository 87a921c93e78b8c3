#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# training-net on ns-3's MPI distributed simulator:
#   1. Open MPI (utils/setup-mpi.sh) and the ns-3.37 tree of check-intree.sh, configured with
#      --enable-mpi once for both checks (check-intree.sh --configure-only); only the programs
#      the tests run are built here (check-intree builds the rest of the same tree);
#   2. the distributed tests (test/mpi-test.sh) with
#      mpirun -np 2 --allow-run-as-root --oversubscribe.
# Usage: check-mpi.sh [--build-only] [BUILD_DIR]     (default: build)
#   --build-only   stop after step 1 (make bench-mpi runs the benchmark on this build)
set -eu
build_only=0
if [ "${1:-}" = --build-only ]; then
    build_only=1
    shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-$top/build}" && cd "${1:-$top/build}" && pwd)
tree=$build/intree/ns-allinone-3.37/ns-3.37

sh "$top/utils/setup-mpi.sh"
sh "$top/utils/check-intree.sh" --configure-only "$build"
grep -q '^NS3_MPI:BOOL=ON' "$tree/cmake-cache/CMakeCache.txt" ||
    { echo "check-mpi: the ns-3 tree is not configured with --enable-mpi" >&2; exit 1; }
ninja -C "$tree/cmake-cache" -j"${JOBS:-2}" roce-distributed training-net-run training-net-quickstart \
    collective-comparison
examples=$tree/build/contrib/training-net/examples
[ "$build_only" = 1 ] && exit 0
sh "$top/test/mpi-test.sh" "$examples" mpirun --allow-run-as-root --oversubscribe
