# training-net: the README's two commands and their parts.
#   make run     set up, build optimized, run the quickstart scenario (writes results.db)
#   make check   set up, build, run every test: ctest (in a build folder outside the
#                checkout), sanitizers, MPI and in-tree ns-3.37 (one ns-3 tree with
#                --enable-mpi), the ns-3.35 waf tree
# Every target installs missing Debian packages first (as root; otherwise it
# prints the apt-get line and stops).

BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= 2
CMAKE_ARGS ?=
# A build folder outside the checkout (check-outside).
OUTSIDE    ?= $(abspath $(CURDIR)/..)/tn-build
# The trimmed ns-3.35 release tarball of check-waf: set NS3_WAF_TARBALL (environment or
# make variable); the default below is this machine's folder of shared inputs.
NS3_WAF_HOME ?= $(abspath $(CURDIR)/..)/shared
NS3_WAF_TARBALL ?= $(NS3_WAF_HOME)/ns3/ns-3.35-waf-min.tar.xz

.PHONY: all setup configure build run check test check-sanitize check-intree check-mpi check-outside \
        check-waf bench bench-plan \
        bench-roce bench-routes bench-collective bench-stats bench-scale bench-mpi bench-auto format check-format clean

all: build

setup:
	@sh utils/setup-debian.sh

$(BUILD)/build.ninja: | setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: setup $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD) -j$(JOBS)

run: build
	$(BUILD)/examples/training-net-run scenarios/quickstart.toml --db results.db
	@echo "next: sqlite3 results.db 'SELECT * FROM collective_summary'"
	@echo "      utils/training-net-report results.db    (PNGs and results-report/index.html)"

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# The C core and its tests under AddressSanitizer and UndefinedBehaviorSanitizer; the
# results database's tests (tn-db and its writer thread) under ThreadSanitizer.
check-sanitize: setup
	cmake -S . -B $(BUILD)/sanitize -G Ninja -DTN_CORE_ONLY=ON -DTN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	ninja -C $(BUILD)/sanitize -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --test-dir $(BUILD)/sanitize --output-on-failure -j$(JOBS)
	cmake -S . -B $(BUILD)/sanitize-thread -G Ninja -DTN_CORE_ONLY=ON -DTN_SANITIZE=thread \
	    -DCMAKE_BUILD_TYPE=Debug
	ninja -C $(BUILD)/sanitize-thread -j$(JOBS) tn-core-tests
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir $(BUILD)/sanitize-thread \
	    --output-on-failure -R '^core/db$$'

# The module inside a real ns-3.37 tree, tested by that tree's test.py.
check-intree: setup
	JOBS=$(JOBS) sh utils/check-intree.sh $(BUILD)

# The module in the same ns-3.37 tree built with --enable-mpi, and the distributed tests under
# mpirun -np 2 (installs Open MPI as root).
check-mpi: setup
	JOBS=$(JOBS) sh utils/check-mpi.sh $(BUILD)

# The standalone build configured outside the checkout, and its ctest: the tests must find
# their data from any build folder.
check-outside: setup
	JOBS=$(JOBS) BUILD_TYPE=$(BUILD_TYPE) sh utils/check-outside.sh $(OUTSIDE)

# The module inside the ns-3.35 waf tree (unpacked once from NS3_WAF_TARBALL into
# $(BUILD)/waf), tested by that tree's test.py; the quickstart through waf.
check-waf: setup
	JOBS=$(JOBS) NS3_WAF_TARBALL=$(NS3_WAF_TARBALL) sh utils/check-waf.sh $(BUILD)

# The standalone ctest runs once, in the folder outside the checkout (check-outside): the same
# build and tests as `test`, where a test cannot fall back on ns-3's walk up to VERSION and
# LICENSE; building and testing in build/ as well would add about six minutes.
check: check-outside check-sanitize check-mpi check-intree check-waf

bench: bench-plan bench-roce bench-routes bench-stats bench-collective bench-scale

bench-plan: build
	@for b in $(BUILD)/bench/bench-plan*; do [ -x "$$b" ] && "$$b"; done

bench-roce: build
	@for b in $(BUILD)/bench/bench-roce*; do [ -x "$$b" ] && "$$b"; done

# Building the fat-tree k=16 and k=32 fabrics: wall time and peak memory (about 10 s).
bench-routes: build
	$(BUILD)/bench/bench-routes

# The 1024-NPU MultiTree all-reduce of 16 MiB on a 32x32 torus (a few minutes).
bench-collective: build
	$(BUILD)/bench/bench-collective

# Sixteen thousand NPUs: time and peak memory per size (1k, 4k, 16k NPUs) of 64 MiB
# all-reduces, each beside its baseline measured in the same run (a few minutes). Options
# through BENCH_SCALE_ARGS, e.g. the 16,384-NPU ResNet-50 row (about 20 minutes):
#   make bench-scale BENCH_SCALE_ARGS="--resnet-sizes=16384 --resnet-topology=hier"
BENCH_SCALE_ARGS ?=
bench-scale: build
	$(BUILD)/bench/bench-scale $(BENCH_SCALE_ARGS)

# One all-reduce on a 1,024-NPU fat-tree (k=16): one process, then mpirun -np 2 with each MPI
# engine (the ns-3 tree of check-mpi); run time per rank, events, waiting share, speed-up.
bench-mpi: setup
	JOBS=$(JOBS) sh utils/check-mpi.sh --build-only $(BUILD)
	sh bench/bench-mpi.sh $(BUILD)/intree/ns-allinone-3.37/ns-3.37/build/contrib/training-net/examples

# Algorithm auto against every algorithm at packet level: 6 topology kinds x all-reduce sizes
# 32 KiB..256 MiB, the best measured per cell, auto's pick, the hit rate (hours at the largest
# sizes; SIZES="32KiB 256KiB 2MiB" and TOPOLOGIES="..." run a part).
bench-auto: build
	sh bench/bench-auto.sh $(BUILD)

# Recording into the results database: the same run with and without it.
bench-stats: build
	$(BUILD)/bench/bench-stats

SOURCES = $(shell git ls-files '*.c' '*.cc' '*.h' 2>/dev/null || find model helper test examples utils bench -name '*.[ch]' -o -name '*.cc')

format:
	clang-format -i $(SOURCES)

check-format:
	clang-format --dry-run --Werror $(SOURCES)

clean:
	rm -rf $(BUILD)
