# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
#
# training-net for ns-3 <= 3.35 (waf). CMakeLists.txt (ns-3 >= 3.36 and the
# standalone build) lists the same files in lists of the same names;
# test/check-build-lists.sh fails on any difference.

core_sources = [
    'model/core/tn-db.c',
    'model/core/tn-error.c',
    'model/core/tn-routing.c',
    'model/core/tn-topology.c',
    'model/core/tn-topology-file.c',
    'model/core/tn-topology-gen.c',
    'model/core/tn-topology-spec.c',
]
core_headers = [
    'model/core/tn-db.h',
    'model/core/tn-error.h',
    'model/core/tn-routing.h',
    'model/core/tn-topology.h',
    'model/core/tn-version.h',
]

roce_sources = [
]
roce_headers = [
]

helper_sources = [
]
helper_headers = [
]

core_test_sources = [
    'test/core/tn-test.c',
    'test/core/test-db.c',
    'test/core/test-harness.c',
    'test/core/test-routing.c',
    'test/core/test-topology.c',
]

tool_sources = [
]
core_bench_sources = [
]

test_sources = [
    'test/training-net-core-test-suite.cc',
]

# C11 with strict warnings, as in CMakeLists.txt.
core_cflags = ['-std=c11', '-Wall', '-Wextra', '-Werror']


def configure(conf):
    # SQLite as src/stats does it; training-net cannot record results without it.
    conf.check_cfg(package='sqlite3', uselib_store='SQLITE3',
                   args=['--cflags', '--libs'], mandatory=True)


def build(bld):
    module = bld.create_ns3_module('training-net', ['core', 'network', 'internet'])
    module.source = core_sources + roce_sources + helper_sources
    module.use.append('SQLITE3')
    module.cflags = core_cflags

    headers = bld(features='ns3header')
    headers.module = 'training-net'
    headers.source = core_headers + roce_headers + helper_headers

    module_test = bld.create_ns3_module_test_library('training-net')
    module_test.source = test_sources + core_test_sources
    module_test.cflags = core_cflags

    for tool in tool_sources + core_bench_sources:
        name = tool.split('/')[-1].rsplit('.', 1)[0]
        program = bld.create_ns3_program(name, ['training-net'])
        program.source = tool
        program.cflags = core_cflags

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
