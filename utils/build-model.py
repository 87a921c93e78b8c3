#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What an ns-3 tree would build from this module, evaluated from both build files.

  - wscript and examples/wscript (ns-3 <= 3.35) are executed against a model of the API
    ns-3's waf gives a module (create_ns3_module, create_ns3_module_test_library,
    create_ns3_program, bld(features=...), bld.recurse, task generator env);
  - CMakeLists.txt and examples/CMakeLists.txt (ns-3 >= 3.36) are configured by cmake inside a
    model of an ns-3 tree that defines build_lib, build_lib_example and build_exec, and records
    add_executable, as the tree does for a module in contrib/.

Both are evaluated twice: in a tree with every module, and in one with only the modules of the
trimmed ns-3.35 tree (the optional parts, built with mpi or applications, left out). Both give
the same description: the library (sources, headers, ns-3 modules linked), the test library's
sources and each program (sources, modules linked). Usage:

  build-model.py [MODULE_DIR]          print both descriptions, exit 1 when they differ or when
                                       a rule below is broken

Rules checked besides equality:
  - every .c file gets -std=c11 -Wall -Wextra -Werror in both builds and, in waf, the shared
    library flags (-fPIC) and the tree's optimisation level: waf gives the C sources of ns-3's
    C++-only task generators neither their `cflags` attribute nor CFLAGS_cshlib;
  - waf's NS_TEST_SOURCEDIR (the folder of the last file of the test library's sources) is the
    module's test/ folder, where test/data is;
  - no program links an ns-3 module the library does not depend on: with
    --enable-modules=training-net both ns-3 builds skip such a program without a word.
"""

import os
import subprocess
import sys
import tempfile

CORE_CFLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror']
# The model tree's 'optimized' profile (ns-3.35's waf puts it into CXXFLAGS only).
TREE_CXXFLAGS = ['-O3', '-march=native', '-mtune=native', '-Wall', '-Werror', '-std=c++17']
PROFILE_FLAGS = ['-O3', '-march=native', '-mtune=native']


# --- waf ------------------------------------------------------------------------------------

class Env(object):
    """waf's ConfigSet as modules use it: missing variables are []."""

    def __init__(self, parent=None):
        self.table = {}
        self.parent = parent

    def __getitem__(self, key):
        if key in self.table:
            return self.table[key]
        if self.parent is not None:
            return self.parent[key]
        return []

    def __setitem__(self, key, value):
        self.table[key] = value

    def __getattr__(self, key):
        if key in ('table', 'parent'):
            raise AttributeError(key)
        return self[key]

    def __setattr__(self, key, value):
        if key in ('table', 'parent'):
            object.__setattr__(self, key, value)
        else:
            self[key] = value

    def derive(self):
        return Env(self)

    def append_value(self, key, value):
        if isinstance(value, str):
            value = [value]
        self.table[key] = list(self[key]) + list(value)


class TaskGen(object):
    def __init__(self, bld, kind, name, features, use):
        self.kind = kind
        self.name = name
        self.features = features
        self.use = use
        self.source = []
        self.env = bld.env.derive()
        self.dir = bld.dir
        self.target = name


class Node(object):
    """waf's node of a folder: the wscript asks its own folder's path."""
    def __init__(self, path):
        self._path = path

    def abspath(self):
        return self._path


class Bld(object):
    def __init__(self, top):
        self.top = top
        self.path = Node(top)
        self.dir = ''
        self.env = Env()
        self.env.ENABLE_EXAMPLES = True
        self.env.ENABLE_TESTS = True
        self.env.CXXFLAGS = list(TREE_CXXFLAGS)
        self.env.CFLAGS_cshlib = ['-fPIC']
        self.env.CXXFLAGS_cxxshlib = ['-fPIC']
        self.generators = []

    def _add(self, tg):
        self.generators.append(tg)
        return tg

    def create_ns3_module(self, name, dependencies=()):
        return self._add(TaskGen(self, 'library', name, 'cxx cxxshlib ns3module',
                                 ['ns3-' + d for d in dependencies]))

    def create_ns3_module_test_library(self, name):
        return self._add(TaskGen(self, 'test-library', name + '-test',
                                 'cxx cxxshlib ns3module ns3testlib', ['ns3-' + name]))

    def create_ns3_program(self, name, dependencies=('core',)):
        return self._add(TaskGen(self, 'program', name, 'cxx cxxprogram',
                                 ['ns3-' + d for d in dependencies]))

    def __call__(self, **kw):
        features = kw.get('features', '')
        if isinstance(features, list):
            features = ' '.join(features)
        kind = 'headers' if 'ns3header' in features else \
            'program' if 'program' in features else \
            'library' if ('shlib' in features or 'stlib' in features) else 'other'
        tg = self._add(TaskGen(self, kind, kw.get('target', ''), features, []))
        for key, value in kw.items():
            if key != 'features':
                setattr(tg, key, value)
        if kind != 'headers' and isinstance(kw.get('use'), str):
            tg.use = kw['use'].split()
        return tg

    def recurse(self, dirs):
        for d in ([dirs] if isinstance(dirs, str) else dirs):
            saved = self.dir
            self.dir = os.path.normpath(os.path.join(self.dir, d))
            run_wscript(os.path.join(self.top, self.dir, 'wscript'), 'build', self)
            self.dir = saved


def run_wscript(path, function, ctx):
    scope = {'__file__': path, '__name__': 'wscript'}
    with open(path) as f:
        code = compile(f.read(), path, 'exec')
    exec(code, scope)
    scope[function](ctx)


def waf_flags_of_c(tg):
    """The flags waf 2.0 gives a .c file of this generator: ${CFLAGS} of its env, plus the
    `cflags` attribute and CFLAGS_<feature> only when the generator has the 'c' feature
    (ccroot.propagate_uselib_vars handles CFLAGS for 'c' only)."""
    flags = list(tg.env.CFLAGS)
    features = tg.features.split()
    if 'c' in features:
        flags += list(getattr(tg, 'cflags', []))
        for f in features + list(getattr(tg, 'uselib', [])):
            flags += list(tg.env['CFLAGS_' + f])
    return flags


def norm_sources(tg):
    sources = tg.source
    if isinstance(sources, str):
        sources = sources.split()
    return [os.path.normpath(os.path.join(tg.dir, s)) for s in sources]


def norm_dep(dep):
    if dep.startswith('ns3-'):
        return dep[4:]
    return dep.lower()


def waf_model(top, modules):
    bld = Bld(top)
    bld.env.NS3_ENABLED_MODULES = ['ns3-' + m for m in modules]
    run_wscript(os.path.join(top, 'wscript'), 'build', bld)
    desc, problems = [], []
    for tg in bld.generators:
        if tg.kind == 'other':
            problems.append('waf: a task generator the model does not know (features %r)'
                            % tg.features)
            continue
        sources = norm_sources(tg)
        if tg.kind == 'headers':
            desc += ['header %s' % s for s in sources]
            continue
        name = tg.name if tg.kind != 'test-library' else ''
        deps = sorted(norm_dep(d) for d in tg.use)
        if tg.kind == 'library':
            desc.append('library %s links %s' % (name, ' '.join(deps)))
        elif tg.kind == 'program':
            desc.append('program %s links %s' % (name, ' '.join(deps)))
        prefix = {'library': 'library-source', 'test-library': 'test-source',
                  'program': 'program-source %s' % name}[tg.kind]
        desc += ['%s %s' % (prefix, s) for s in sources]
        c_files = [s for s in sources if s.endswith('.c')]
        if c_files:
            flags = waf_flags_of_c(tg)
            need = CORE_CFLAGS + PROFILE_FLAGS
            if 'cxxshlib' in tg.features.split():
                need = need + ['-fPIC']
            missing = [f for f in need if f not in flags]
            if missing:
                problems.append('waf: the C files of %s (%s ...) miss %s (they get: %s)'
                                % (tg.kind, c_files[0], ' '.join(missing),
                                   ' '.join(flags) or 'nothing'))
        if tg.kind == 'test-library' and sources:
            if os.path.dirname(sources[-1]) != 'test':
                problems.append('waf: NS_TEST_SOURCEDIR would be the folder of %s (the last file'
                                ' of the test library), not test/ where test/data is'
                                % sources[-1])
    return sorted(set(desc)), problems


# --- CMake ----------------------------------------------------------------------------------

# The modules of an ns-3 tree, as ${lib<module>} variables.
NS3_MODULES = '''antenna aodv applications bridge buildings config-store core csma csma-layout
    dsdv dsr energy fd-net-device flow-monitor internet internet-apps lr-wpan lte mesh mobility
    mpi netanim network nix-vector-routing olsr point-to-point point-to-point-layout propagation
    sixlowpan spectrum stats tap-bridge topology-read traffic-control uan virtual-net-device
    visualizer wave wifi wimax zigbee'''.split()

# The modules check-waf's trimmed ns-3.35 tree builds (it is configured without MPI and has no
# applications module): the parts built only with mpi or applications are left out.
TRIMMED_MODULES = 'bridge config-store core internet network point-to-point stats traffic-control'.split()

CMAKE_TREE = r'''
cmake_minimum_required(VERSION 3.13)
project(ns3-model NONE)
set(ENABLE_EXAMPLES ON)
set(ENABLE_TESTS ON)
set(SQLite3_LIBRARIES SQLite::SQLite3)
set(TN_MODEL_OUT ${CMAKE_BINARY_DIR}/model.txt)
file(WRITE ${TN_MODEL_OUT} "")
# as a tree: the modules it builds, and a variable per module (contrib/ is added before src/,
# so no module target exists yet)
set(libs_to_build @MODULES@)
foreach(m @MODULES@)
  set(lib${m} lib${m})
endforeach()
# as a tree configured with --enable-mpi sets it
if(libmpi)
  set(ENABLE_MPI ON)
endif()

function(tn_model_deps out)
  set(deps "")
  foreach(lib ${ARGN})
    if(lib STREQUAL "SQLite::SQLite3")
      list(APPEND deps sqlite3)
    else()
      string(REGEX REPLACE "^lib" "" lib "${lib}")
      list(APPEND deps ${lib})
    endif()
  endforeach()
  list(SORT deps)
  list(REMOVE_DUPLICATES deps)
  string(REPLACE ";" " " deps "${deps}")
  set(${out} "${deps}" PARENT_SCOPE)
endfunction()

function(tn_model_sources prefix)
  foreach(f ${ARGN})
    get_filename_component(abs ${f} ABSOLUTE)
    file(RELATIVE_PATH rel ${TN_MODEL_MODULE} ${abs})
    file(APPEND ${TN_MODEL_OUT} "${prefix} ${rel}\n")
    if(f MATCHES "\\.c$")
      get_source_file_property(opts ${f} COMPILE_OPTIONS)
      string(REPLACE ";" " " opts "${opts}")
      file(APPEND ${TN_MODEL_OUT} "cflags ${rel} ${opts}\n")
    endif()
  endforeach()
endfunction()

function(add_executable name)
  file(APPEND ${TN_MODEL_OUT} "add_executable ${name}\n")
endfunction()

function(build_exec)
  cmake_parse_arguments(BEXEC "IGNORE_PCH;STANDALONE"
    "EXECNAME;EXECNAME_PREFIX;EXECUTABLE_DIRECTORY_PATH;INSTALL_DIRECTORY_PATH"
    "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;DEFINITIONS" ${ARGN})
  tn_model_deps(deps ${BEXEC_LIBRARIES_TO_LINK})
  file(APPEND ${TN_MODEL_OUT} "program ${BEXEC_EXECNAME_PREFIX}${BEXEC_EXECNAME} links ${deps}\n")
  tn_model_sources("program-source ${BEXEC_EXECNAME_PREFIX}${BEXEC_EXECNAME}" ${BEXEC_SOURCE_FILES})
endfunction()

function(build_lib_example)
  cmake_parse_arguments(BLIB_EXAMPLE "IGNORE_PCH" "NAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK"
                        ${ARGN})
  # as the tree's: the module's own library is linked first
  build_exec(EXECNAME ${BLIB_EXAMPLE_NAME} SOURCE_FILES ${BLIB_EXAMPLE_SOURCE_FILES}
             LIBRARIES_TO_LINK ${lib${BLIB_LIBNAME}} ${BLIB_EXAMPLE_LIBRARIES_TO_LINK})
endfunction()

function(build_lib)
  cmake_parse_arguments(BLIB "IGNORE_PCH" "LIBNAME"
    "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES;DEPRECATED_HEADER_FILES;MODULE_ENABLED_FEATURES;PRIVATE_HEADER_FILES"
    ${ARGN})
  set(lib${BLIB_LIBNAME} lib${BLIB_LIBNAME})
  set(lib${BLIB_LIBNAME} lib${BLIB_LIBNAME} PARENT_SCOPE)
  tn_model_deps(deps ${BLIB_LIBRARIES_TO_LINK})
  file(APPEND ${TN_MODEL_OUT} "library ${BLIB_LIBNAME} links ${deps}\n")
  tn_model_sources(library-source ${BLIB_SOURCE_FILES})
  tn_model_sources(header ${BLIB_HEADER_FILES})
  tn_model_sources(test-source ${BLIB_TEST_SOURCES})
  if(ENABLE_EXAMPLES)
    foreach(example_folder example;examples)
      if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${example_folder}/CMakeLists.txt)
        add_subdirectory(${example_folder})
      endif()
    endforeach()
  endif()
endfunction()

set(TN_MODEL_MODULE @MODULE@)
add_subdirectory(${TN_MODEL_MODULE} contrib/training-net)
'''


def cmake_model(top, modules):
    desc, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'CMakeLists.txt'), 'w') as f:
            f.write(CMAKE_TREE.replace('@MODULES@', ' '.join(modules))
                    .replace('@MODULE@', top))
        run = subprocess.run(['cmake', '-S', tmp, '-B', os.path.join(tmp, 'build')],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
        if run.returncode != 0:
            return [], ['cmake: the model ns-3 tree does not configure:\n' + run.stdout]
        with open(os.path.join(tmp, 'build', 'model.txt')) as f:
            lines = [l.rstrip('\n') for l in f]
    for line in lines:
        if line.startswith('cflags '):
            _, path, opts = (line + ' ').split(' ', 2)
            missing = [f for f in CORE_CFLAGS if f not in opts.split()]
            if missing:
                problems.append('cmake: %s misses %s (COMPILE_OPTIONS: %s)'
                                % (path, ' '.join(missing), opts.strip() or 'none'))
        elif line.startswith('add_executable '):
            problems.append('cmake: %s: an ns-3 tree builds programs with build_lib_example or'
                            ' build_exec; the model does not follow add_executable' % line)
        else:
            desc.append(line.rstrip())
    return sorted(set(desc)), problems


def dropped_programs(desc, label):
    """Programs linking a module the library does not depend on."""
    problems = []
    lib_deps = set()
    for line in desc:
        if line.startswith('library '):
            parts = line.split()
            lib_deps |= set(parts[3:]) | {parts[1]}
    for line in desc:
        if line.startswith('program '):
            parts = line.split()
            extra = sorted(set(parts[3:]) - lib_deps)
            if extra:
                problems.append('%s: program %s links %s, which the library does not depend on:'
                                ' --enable-modules=training-net would skip it silently'
                                % (label, parts[1], ' '.join(extra)))
    return problems


def main():
    top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(os.path.dirname(__file__), '..'))
    problems = []
    for label, modules in (('every module', NS3_MODULES), ('the trimmed tree', TRIMMED_MODULES)):
        waf, waf_problems = waf_model(top, modules)
        cmake, cmake_problems = cmake_model(top, modules)
        problems += ['%s (%s)' % (p, label) for p in
                     waf_problems + cmake_problems + dropped_programs(waf, 'waf') +
                     dropped_programs(cmake, 'cmake')]
        if cmake and waf != cmake:
            only_cmake = sorted(set(cmake) - set(waf))
            only_waf = sorted(set(waf) - set(cmake))
            problems.append('an ns-3 tree with %s would build different things with CMake and'
                            ' waf:\n' % label +
                            ''.join('  < %s (CMake only)\n' % l for l in only_cmake) +
                            ''.join('  > %s (waf only)\n' % l for l in only_waf))
    for p in problems:
        print(p.rstrip())
    if problems:
        return 1
    programs = [l.split()[1] for l in waf if l.startswith('program ')]
    print('an ns-3 tree builds the same with CMake and waf: the library, its tests and %d'
          ' programs (%s)' % (len(programs), ' '.join(programs)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
