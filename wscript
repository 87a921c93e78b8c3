# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
#
# training-net for ns-3 <= 3.35 (waf). CMakeLists.txt (ns-3 >= 3.36 and the
# standalone build) lists the same files in lists of the same names;
# test/check-build-lists.sh fails on any difference.

core_sources = [
    'model/core/tn-algo-dbt.c',
    'model/core/tn-algo-direct.c',
    'model/core/tn-algo-hdrm.c',
    'model/core/tn-algo-hierarchical.c',
    'model/core/tn-algo-multitree.c',
    'model/core/tn-algo-rhd.c',
    'model/core/tn-algo-swing.c',
    'model/core/tn-algo-tacos.c',
    'model/core/tn-algo-ring.c',
    'model/core/tn-algorithm.c',
    'model/core/tn-algo-front.c',
    'model/core/tn-algo-nccl.c',
    'model/core/tn-algo-nvls.c',
    'model/core/tn-algo-collnet.c',
    'model/core/tn-algo-custom.c',
    'model/core/tn-nccl.c',
    'model/core/tn-array.c',
    'model/core/tn-chakra.c',
    'model/core/tn-chakra-build.c',
    'model/core/tn-chakra-check.c',
    'model/core/tn-chakra-file.c',
    'model/core/tn-chakra-write.c',
    'model/core/tn-msccl.c',
    'model/core/tn-cost.c',
    'model/core/tn-cost-bound.c',
    'model/core/tn-cost-program.c',
    'model/core/tn-cost-walk.c',
    'model/core/tn-db.c',
    'model/core/tn-error.c',
    'model/core/tn-finish-queue.c',
    'model/core/tn-fluid.c',
    'model/core/tn-hpcc-files.c',
    'model/core/tn-huge-pages.c',
    'model/core/tn-memory.c',
    'model/core/tn-partition.c',
    'model/core/tn-path.c',
    'model/core/tn-program.c',
    'model/core/tn-program-gen.c',
    'model/core/tn-program-window.c',
    'model/core/tn-rank-order.c',
    'model/core/tn-routing.c',
    'model/core/tn-shape.c',
    'model/core/tn-topology.c',
    'model/core/tn-topology-file.c',
    'model/core/tn-topology-gen.c',
    'model/core/tn-schedule.c',
    'model/core/tn-schedule-layout.c',
    'model/core/tn-csr.c',
    'model/core/tn-signal.c',
    'model/core/tn-symmetry.c',
    'model/core/tn-themis.c',
    'model/core/tn-themis-balancer.c',
    'model/core/tn-topology-spec.c',
    'model/core/tn-topology-preset.c',
    'model/core/tn-tune.c',
    'model/core/tn-text.c',
    'model/core/tn-units.c',
    'model/core/tn-verify.c',
    'model/core/tn-workload-group.c',
    'model/core/tn-llm.c',
    'model/core/tn-llm-gen.c',
    'model/core/tn-simai.c',
    'model/core/tn-simai-gen.c',
    'model/core/tn-astra.c',
    'model/core/tn-astra-json.c',
    'model/core/tn-workload.c',
]
core_headers = [
    'model/core/tn-algorithm.h',
    'model/core/tn-chakra.h',
    'model/core/tn-msccl.h',
    'model/core/tn-llm.h',
    'model/core/tn-simai.h',
    'model/core/tn-astra.h',
    'model/core/tn-cost.h',
    'model/core/tn-db.h',
    'model/core/tn-error.h',
    'model/core/tn-fluid.h',
    'model/core/tn-hpcc-files.h',
    'model/core/tn-huge-pages.h',
    'model/core/tn-memory.h',
    'model/core/tn-partition.h',
    'model/core/tn-path.h',
    'model/core/tn-program.h',
    'model/core/tn-program-window.h',
    'model/core/tn-rank-order.h',
    'model/core/tn-routing.h',
    'model/core/tn-shape.h',
    'model/core/tn-schedule.h',
    'model/core/tn-signal.h',
    'model/core/tn-symmetry.h',
    'model/core/tn-themis.h',
    'model/core/tn-topology.h',
    'model/core/tn-tune.h',
    'model/core/tn-nccl.h',
    'model/core/tn-units.h',
    'model/core/tn-verify.h',
    'model/core/tn-version.h',
    'model/core/tn-workload.h',
]

# Private to the core's sources (not installed as ns3/...).
core_private_headers = [
    'model/core/tn-algorithm-impl.h',
    'model/core/tn-workload-impl.h',
    'model/core/tn-program-impl.h',
    'model/core/tn-chakra-impl.h',
    'model/core/tn-array.h',
    'model/core/tn-finish-queue.h',
    'model/core/tn-csr.h',
    'model/core/tn-text.h',
]

# Chakra execution traces: protoc-c's output for model/core/chakra/tn-chakra.proto, kept in the
# tree, built only where libprotobuf-c is installed (configure checks), as in CMakeLists.txt.
chakra_sources = [
    'model/core/chakra/tn-chakra.pb-c.c',
]
chakra_headers = [
    'model/core/chakra/tn-chakra.pb-c.h',
]

# Generic ns-3 utilities every C++ layer may use (nothing of RoCE or collectives).
common_sources = [
    'model/common/attribute-settings.cc',
]
common_headers = [
    'model/common/attribute-settings.h',
    'model/common/predicate-checker.h',
]
roce_sources = [
    'model/roce/flow-network.cc',
    'model/roce/flow-nic.cc',
    'model/roce/rdma-cc.cc',
    'model/roce/rdma-cc-registry.cc',
    'model/roce/rdma-dcqcn.cc',
    'model/roce/rdma-dctcp.cc',
    'model/roce/rdma-hpcc.cc',
    'model/roce/rdma-nic.cc',
    'model/roce/rdma-queue-pair.cc',
    'model/roce/rdma-timely.cc',
    'model/roce/rdma-transport.cc',
    'model/roce/roce-channel.cc',
    'model/roce/roce-fabric.cc',
    'model/roce/roce-event-buckets.cc',
    'model/roce/roce-frame-order.cc',
    'model/roce/roce-flow-application.cc',
    'model/roce/hpcc/roce-hpcc-family.cc',
    'model/roce/hpcc/roce-hpcc-inputs.cc',
    'model/roce/hpcc/roce-hpcc-output.cc',
    'model/roce/roce-header.cc',
    'model/roce/hpcc/roce-hpcc-config.cc',
    'model/roce/hpcc/roce-hpcc-ecn-maps.cc',
    'model/roce/roce-ideal-fct.cc',
    'model/roce/roce-net-device.cc',
    'model/roce/pfc-deadlock-watch.cc',
    'model/roce/roce-switch-mmu.cc',
    'model/roce/roce-switch.cc',
    'model/roce/roce-udp-port.cc',
    'model/roce/roce-wire.cc',
]
roce_headers = [
    'model/roce/flow-network.h',
    'model/roce/flow-nic.h',
    'model/roce/rdma-cc.h',
    'model/roce/rdma-cc-registry.h',
    'model/roce/rdma-dcqcn.h',
    'model/roce/rdma-dctcp.h',
    'model/roce/rdma-hpcc.h',
    'model/roce/rdma-nic.h',
    'model/roce/port-counters.h',
    'model/roce/rdma-queue-pair.h',
    'model/roce/rdma-timely.h',
    'model/roce/rdma-transport.h',
    'model/roce/roce-channel.h',
    'model/roce/roce-fabric.h',
    'model/roce/roce-fifo.h',
    'model/roce/roce-event-buckets.h',
    'model/roce/roce-frame-order.h',
    'model/roce/roce-flow-application.h',
    'model/roce/roce-hash.h',
    'model/roce/hpcc/roce-hpcc-family.h',
    'model/roce/hpcc/roce-hpcc-inputs.h',
    'model/roce/hpcc/roce-hpcc-output.h',
    'model/roce/roce-header.h',
    'model/roce/roce-ip-view.h',
    'model/roce/roce-wire.h',
    'model/roce/hpcc/roce-hpcc-config.h',
    'model/roce/roce-ideal-fct.h',
    'model/roce/roce-net-device.h',
    'model/roce/pfc-deadlock-watch.h',
    'model/roce/roce-switch-mmu.h',
    'model/roce/roce-switch.h',
    'model/roce/roce-forwarding.h',
    'model/roce/roce-udp-port.h',
]

npu_sources = [
    'model/npu/chakra-runner.cc',
    'model/npu/collective-executor.cc',
    'model/npu/collective-service.cc',
    'model/npu/collective-window.cc',
    'model/npu/plan-verifier.cc',
    'model/npu/collective.cc',
    'model/npu/npu-endpoint.cc',
    'model/npu/themis-collective.cc',
    'model/npu/training-job.cc',
]
npu_headers = [
    'model/npu/chakra-runner.h',
    'model/npu/collective-executor.h',
    'model/npu/collective-service.h',
    'model/npu/collective-window.h',
    'model/npu/plan-verifier.h',
    'model/npu/collective.h',
    'model/npu/npu-endpoint.h',
    'model/npu/themis-collective.h',
    'model/npu/training-job.h',
]

stats_sources = [
    'model/stats/cc-probe.cc',
    'model/stats/network-probes.cc',
    'model/stats/npu-probes.cc',
    'model/stats/stats-probe.cc',
    'model/stats/port-sampling.cc',
    'model/stats/stats-recorder-ports.cc',
    'model/stats/stats-recorder.cc',
]
stats_headers = [
    'model/stats/cc-probe.h',
    'model/stats/network-probes.h',
    'model/stats/npu-probes.h',
    'model/stats/stats-probe.h',
    'model/stats/port-sampling.h',
    'model/stats/stats-recorder.h',
]

helper_sources = [
    'helper/collective-helper.cc',
    'helper/distributed-helper.cc',
    'helper/npu-helper.cc',
    'helper/roce-helper.cc',
    'helper/hpcc/roce-hpcc-flows.cc',
    'helper/roce-link-helper.cc',
    'helper/scenario-config.cc',
    'helper/scenario-runner.cc',
    'helper/scenario-tables.cc',
    'helper/scenario-jobs.cc',
    'helper/training-helper.cc',
    'helper/stats-helper.cc',
    'helper/study-topology.cc',
    'helper/program-options.cc',
]
helper_headers = [
    'helper/collective-helper.h',
    'helper/distributed-helper.h',
    'helper/npu-helper.h',
    'helper/roce-helper.h',
    'helper/hpcc/roce-hpcc-flows.h',
    'helper/roce-link-helper.h',
    'helper/scenario-config.h',
    'helper/scenario-runner.h',
    'helper/training-helper.h',
    'helper/stats-helper.h',
    'helper/study-topology.h',
    'helper/program-options.h',
]

# Private to the helper's sources (not installed as ns3/...): toml++ stays out of ns3/.
helper_private_headers = [
    'helper/scenario-reader.h',
]

# MPI (ns-3's mpi module): RoCE links between ranks, built only where the tree has the mpi
# module (./waf configure --enable-mpi), as in CMakeLists.txt.
mpi_sources = [
    'model/roce/roce-remote-channel.cc',
]
mpi_headers = [
    'model/roce/roce-remote-channel.h',
]

# ns-3's applications module: BulkSend, OnOff and PacketSink on the fabric, tested only where
# the tree has the module (the trimmed ns-3.35 tree has none), as in CMakeLists.txt.
applications_test_sources = [
    'test/roce-apps-test-suite.cc',
]

core_test_sources = [
    'test/core/tn-test.c',
    'test/core/test-algo-classic.c',
    'test/core/test-array.c',
    'test/core/test-chakra.c',
    'test/core/test-cost.c',
    'test/core/test-db.c',
    'test/core/test-db-keys.c',
    'test/core/test-db-rows.c',
    'test/core/test-finish-queue.c',
    'test/core/test-fluid.c',
    'test/core/test-harness.c',
    'test/core/test-hdrm.c',
    'test/core/test-swing.c',
    'test/core/test-tacos.c',
    'test/core/test-symmetry.c',
    'test/core/test-hpcc-files.c',
    'test/core/test-limits.c',
    'test/core/test-multitree.c',
    'test/core/test-partition.c',
    'test/core/test-program.c',
    'test/core/test-program-window.c',
    'test/core/test-rank-order.c',
    'test/core/test-routing.c',
    'test/core/test-routing-shape.c',
    'test/core/test-schedule.c',
    'test/core/test-text.c',
    'test/core/test-themis.c',
    'test/core/test-tune.c',
    'test/core/test-tune-held.c',
    'test/core/test-topology.c',
    'test/core/test-topology-preset.c',
    'test/core/test-nccl.c',
    'test/core/test-nccl-collnet.c',
    'test/core/test-verify.c',
    'test/core/test-split.c',
    'test/core/test-workload.c',
    'test/core/test-llm.c',
    'test/core/test-simai.c',
    'test/core/test-astra.c',
    'test/core/test-custom.c',
]

tool_sources = [
    'utils/tn-chakra-convert.c',
    'utils/tn-plan.c',
]
core_bench_sources = [
    'bench/bench-plan.c',
]

# bench-mpi.sh's preloaded timer of MPI waits: built by that script with mpicc, not here
mpi_bench_sources = [
    'bench/mpi-wait.c',
]

bench_sources = [
    'bench/bench-collective.cc',
    'bench/bench-roce.cc',
    'bench/bench-routes.cc',
    'bench/bench-scale.cc',
    'bench/bench-stats.cc',
]

test_sources = [
    'test/chakra-test-suite.cc',
    'test/collective-test-suite.cc',
    'test/nccl-test-suite.cc',
    'test/flow-level-test-suite.cc',
    'test/program-memory-test-suite.cc',
    'test/plan-verifier-test-suite.cc',
    'test/plan-cache-test-suite.cc',
    'test/flow-nic-test-suite.cc',
    'test/flow-symmetric-test-suite.cc',
    'test/collective-records-test-suite.cc',
    'test/llm-test-suite.cc',
    'test/simai-test-suite.cc',
    'test/npu-test-suite.cc',
    'test/program-options-test-suite.cc',
    'test/training-test-suite.cc',
    'test/roce-cc-test-suite.cc',
    'test/roce-cc-user-test-suite.cc',
    'test/roce-timely-test-suite.cc',
    'test/roce-dcqcn-test-suite.cc',
    'test/roce-hpcc-test-suite.cc',
    'test/roce-hpcc-peers-test-suite.cc',
    'test/roce-fifo-test-suite.cc',
    'test/roce-nic-test-suite.cc',
    'test/roce-header-test-suite.cc',
    'test/roce-ip-test-suite.cc',
    'test/roce-pcap-test-suite.cc',
    'test/roce-deadlock-test-suite.cc',
    'test/roce-pfc-test-suite.cc',
    'test/roce-frame-order-test-suite.cc',
    'test/roce-switch-test-suite.cc',
    'test/scenario-test-suite.cc',
    'test/stats-cc-test-suite.cc',
    'test/stats-finish-test-suite.cc',
    'test/stats-port-sampling-test-suite.cc',
    'test/stats-test-suite.cc',
    'test/study-collective-test-suite.cc',
    'test/swing-test-suite.cc',
    'test/tacos-test-suite.cc',
    'test/themis-test-suite.cc',
    'test/training-net-core-test-suite.cc',
    'test/tune-test-suite.cc',
]

# C11 with strict warnings, as in CMakeLists.txt.
core_cflags = ['-std=c11', '-Wall', '-Wextra', '-Werror']


def configure(conf):
    # SQLite as src/stats does it; training-net cannot record results without it.
    conf.check_cfg(package='sqlite3', uselib_store='SQLITE3',
                   args=['--cflags', '--libs'], mandatory=True)
    # Scenario files (helper/scenario-config.cc): toml++, header-only (libtomlplusplus-dev).
    conf.check_cxx(header_name='toml++/toml.h', cxxflags=['-std=c++17'], mandatory=True,
                   msg='Checking for toml++ (libtomlplusplus-dev)')
    # Chakra execution traces (model/core/tn-chakra.h): optional, like MPI.
    conf.env['TN_CHAKRA'] = bool(conf.check_cfg(
        package='libprotobuf-c', uselib_store='PROTOBUF_C', args=['--cflags', '--libs'],
        mandatory=False, msg='Checking for libprotobuf-c (Chakra traces; optional)'))


def c_flags(task_generator, shared):
    """Flags for the C sources of a task generator made by ns-3's create_ns3_module.

    ns-3's generators have C++ features only ('cxx cxxshlib ns3module'), so waf gives their .c
    files neither a `cflags` attribute nor the CFLAGS_cshlib of its 'c' tool, and ns-3's
    configure puts its profile (-O3 ...) into CXXFLAGS only: the C files would be compiled as a
    bare `gcc -I... -D... file.c` (no -fPIC: the shared library does not link). The generator's
    own env CFLAGS reaches its C compile tasks whatever its features."""
    env = task_generator.env
    flags = []
    if shared and not env.ENABLE_STATIC_NS3:
        flags += env.CFLAGS_cshlib or ['-fPIC']
    # the tree's optimisation and debug level (-O3 in 'optimized', -O0 -ggdb in 'debug')
    flags += [f for f in env.CXXFLAGS if f.startswith(('-O', '-g', '-march=', '-mtune='))]
    env.append_value('CFLAGS', flags + core_cflags)


def build(bld):
    use_mpi = 'ns3-mpi' in bld.env['NS3_ENABLED_MODULES']
    use_applications = 'ns3-applications' in bld.env['NS3_ENABLED_MODULES']
    module = bld.create_ns3_module('training-net',
                                   ['core', 'network', 'point-to-point', 'internet']
                                   + (['mpi'] if use_mpi else [])
                                   + (['applications'] if use_applications else []))
    module.source = core_sources + common_sources + roce_sources + npu_sources + stats_sources + helper_sources
    # The shipped presets are found from any working directory (training-helper.cc).
    defines = ['TN_MODULE_DIR="%s"' % bld.path.abspath()]
    if use_mpi:
        module.source = module.source + mpi_sources
        defines.append('TN_MPI')
    if bld.env['TN_CHAKRA']:
        module.source = module.source + chakra_sources
        module.use.append('PROTOBUF_C')
        defines.append('TN_CHAKRA')
    module.defines = defines
    module.use.append('SQLITE3')
    c_flags(module, shared=True)

    headers = bld(features='ns3header')
    headers.module = 'training-net'
    headers.source = core_headers + common_headers + roce_headers + npu_headers + stats_headers + helper_headers
    if use_mpi:
        headers.source = headers.source + mpi_headers

    # ns-3's waf defines NS_TEST_SOURCEDIR as the folder of the LAST file of this list: it must
    # be a test/*.cc (test/data is found from it), never a test/core/*.c.
    module_test = bld.create_ns3_module_test_library('training-net')
    module_test.source = core_test_sources + test_sources
    if bld.env['TN_CHAKRA']:
        module_test.defines = ['TN_CHAKRA']
        module_test.use.append('PROTOBUF_C')
    if use_applications:
        # before test_sources' last file, which must stay last (NS_TEST_SOURCEDIR)
        module_test.source = core_test_sources + applications_test_sources + test_sources
    c_flags(module_test, shared=True)

    # An ns-3 tree builds the module, its tests and examples; tool_sources, core_bench_sources
    # and bench_sources are programs of the standalone build only, as in CMakeLists.txt (the
    # build-lists test fails when the two builds would build different programs).
    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
