# Standalone build of training-net against an installed ns-3 (Debian's libns3-dev).
#
# Provides what an ns-3 tree provides to a module's CMakeLists.txt, so the
# same file builds in both places:
#   build_lib(LIBNAME ... SOURCE_FILES ... HEADER_FILES ... LIBRARIES_TO_LINK ...
#             TEST_SOURCES ...)
#   build_lib_example(NAME ... SOURCE_FILES ... LIBRARIES_TO_LINK ...)
#   one variable per installed ns-3 module, named like in-tree ("lib" followed
#   by the module name, e.g. for core and network), each an imported target.
# Also: tn_build_core_only() for -DTN_CORE_ONLY=ON, the C core's test runner and
# tools, and one ctest per test suite.
#
# Options:
#   TN_CORE_ONLY        build only the C11 core, its tests and tools (no ns-3)
#   TN_SANITIZE         compile and link everything with ASan + UBSan (ON), or with
#                       ThreadSanitizer (thread: for tn-db's writer thread)
#   TN_USE_NS3_PACKAGE  use find_package(ns3) instead of importing by hand
#                       (Debian's package config needs the 'ns3' package and
#                       accepts exactly 3.37)
#   TN_NS3_LIBDIR       where libns3-<module>.so live (default: the system's)

option(TN_CORE_ONLY "Build only the C11 planning core" OFF)
set(TN_SANITIZE OFF CACHE STRING "ON: AddressSanitizer and UndefinedBehaviorSanitizer; thread: ThreadSanitizer")
option(TN_USE_NS3_PACKAGE "Find ns-3 through its CMake package" OFF)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()

enable_testing()

# ns-3's own warning policy (build-support/macros-and-definitions.cmake) for C++.
add_compile_options(
  "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Werror;-Wno-error=deprecated-declarations>"
)
if(TN_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(TN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined
  )
  add_link_options(-fsanitize=address,undefined)
endif()

# Public headers are used as "ns3/<name>.h", as in an ns-3 tree.
set(TN_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)
file(MAKE_DIRECTORY ${TN_INCLUDE_DIR}/ns3)

function(tn_publish_headers)
  foreach(header ${ARGN})
    get_filename_component(name ${header} NAME)
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${header} ${TN_INCLUDE_DIR}/ns3/${name} SYMBOLIC)
  endforeach()
endfunction()

# The module header, written like ns-3's write_module_header.
function(tn_write_module_header name)
  string(TOUPPER "${name}" upper)
  string(REPLACE "-" "_" upper "${upper}")
  set(contents "#ifdef NS3_MODULE_COMPILATION\n")
  string(APPEND contents "#error \"Do not include ns3 module aggregator headers from other modules; "
                         "these are meant only for end user scripts.\"\n#endif\n")
  string(APPEND contents "#ifndef NS3_MODULE_${upper}\n// Module headers:\n")
  foreach(header ${ARGN})
    get_filename_component(head ${header} NAME)
    string(APPEND contents "#include <ns3/${head}>\n")
  endforeach()
  string(APPEND contents "#endif\n")
  file(CONFIGURE OUTPUT ${TN_INCLUDE_DIR}/ns3/${name}-module.h CONTENT "${contents}")
endfunction()

# One ctest per C suite listed in test/core/tn-test-list.h.
function(tn_add_core_tests runner)
  file(STRINGS ${CMAKE_SOURCE_DIR}/test/core/tn-test-list.h lines REGEX "^TN_TEST_SUITE\\(")
  foreach(line ${lines})
    string(REGEX REPLACE "^TN_TEST_SUITE\\(([A-Za-z0-9_]+)\\).*" "\\1" suite "${line}")
    add_test(NAME core/${suite} COMMAND ${runner} ${suite}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${CMAKE_SOURCE_DIR}/test/core/tn-test-list.h)
endfunction()

# The C core as a static library, its test runner, tools and benchmarks.
function(tn_add_core_targets)
  add_library(tn-core STATIC ${core_sources})
  target_include_directories(tn-core PUBLIC ${TN_INCLUDE_DIR} ${SQLITE_INCLUDE_DIRS})
  target_link_libraries(tn-core PUBLIC ${TN_CORE_LIBS} m)
  tn_publish_headers(${core_headers})

  # The harness main is not part of the in-tree test library (ns-3 has its
  # own runner), hence not in core_test_sources.
  add_executable(tn-core-tests ${core_test_sources} test/core/tn-test-main.c)
  target_link_libraries(tn-core-tests PRIVATE tn-core)
  target_compile_definitions(tn-core-tests PRIVATE
                             TN_TEST_DATA_DIR="${CMAKE_SOURCE_DIR}/test/data")
  tn_add_core_tests(tn-core-tests)

  foreach(tool ${tool_sources})
    get_filename_component(name ${tool} NAME_WE)
    add_executable(${name} ${tool})
    target_link_libraries(${name} PRIVATE tn-core)
  endforeach()
  foreach(bench ${core_bench_sources})
    get_filename_component(name ${bench} NAME_WE)
    add_executable(${name} ${bench})
    target_link_libraries(${name} PRIVATE tn-core)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
  endforeach()

  add_test(NAME build-lists COMMAND sh ${CMAKE_SOURCE_DIR}/test/check-build-lists.sh
                                    ${CMAKE_SOURCE_DIR})
  # Code shown in doc/*.rst (`.. snippet:` comments) equals the test or example code that runs.
  add_test(NAME doc/snippets COMMAND python3 ${CMAKE_SOURCE_DIR}/test/doc-snippets-test.py
                                     ${CMAKE_SOURCE_DIR})
  # doc/design.rst's map of concepts and README's layout name every header and folder there is.
  add_test(NAME doc/layout COMMAND python3 ${CMAKE_SOURCE_DIR}/test/layout-doc-test.py
                                   ${CMAKE_SOURCE_DIR})
  # The reader of published plots (doc/nccl-validation.rst) reads back a chart it draws.
  add_test(NAME utils/read-plot COMMAND python3 ${CMAKE_SOURCE_DIR}/utils/read-plot.py --self-test)
  # Includes point one way between the layers; the self-test shows a back edge fails.
  add_test(NAME include-direction COMMAND sh ${CMAKE_SOURCE_DIR}/test/check-include-direction.sh
                                          ${CMAKE_SOURCE_DIR})
  add_test(NAME include-direction-self-test
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/check-include-direction.sh --self-test)
  # A file over 1,000 lines says why at its top; the self-test shows a missing reason fails.
  add_test(NAME file-sizes COMMAND sh ${CMAKE_SOURCE_DIR}/test/check-file-sizes.sh
                                   ${CMAKE_SOURCE_DIR})
  add_test(NAME file-sizes-self-test
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/check-file-sizes.sh --self-test)
  # The command-line planner: summaries against closed forms, dumps, exit codes.
  add_test(NAME tn-plan COMMAND sh ${CMAKE_SOURCE_DIR}/test/tn-plan-test.sh
                                $<TARGET_FILE:tn-plan>)
  # Bounded fuzz test of tn-plan and the example programs (issue 11; they are
  # skipped when built core-only).
  set(tn_fuzz_flags "")
  if(TN_SANITIZE)
    set(tn_fuzz_flags --sanitized)
  endif()
  add_test(NAME fuzz COMMAND python3 ${CMAKE_SOURCE_DIR}/test/fuzz/fuzz.py
                             --plan $<TARGET_FILE:tn-plan>
                             --examples ${CMAKE_BINARY_DIR}/examples ${tn_fuzz_flags})
  # about 1 min on an idle machine (25 s of CPU); the headroom is for a machine that several
  # builds share (a run's own limit is its CPU time, not the wall clock)
  set_tests_properties(fuzz PROPERTIES TIMEOUT 1800)
endfunction()

macro(tn_build_core_only)
  tn_add_core_targets()
endmacro()

find_package(SQLite3 REQUIRED)
# tn-db writes its batches on a thread of its own (tn_db_set_writer_thread)
find_package(Threads REQUIRED)
set(TN_CORE_LIBS SQLite::SQLite3 Threads::Threads)

if(TN_CORE_ONLY)
  return()
endif()

# --- ns-3 ---------------------------------------------------------------------
if(TN_USE_NS3_PACKAGE)
  find_package(ns3 REQUIRED)
  foreach(target ${ns3_LIBRARIES})
    string(REGEX REPLACE "^ns3::" "" short ${target})
    set(${short} ${target})
  endforeach()
else()
  # Import every installed module as ns3::lib<module> with its headers and the
  # definitions that turn on NS_LOG and NS_ASSERT in our own code.
  if(NOT TN_NS3_LIBDIR)
    find_library(tn_ns3_core_library NAMES ns3-core ns3.37-core ns3.37-core-default)
    if(NOT tn_ns3_core_library)
      message(FATAL_ERROR "ns-3 not found: install it with 'apt-get install libns3-dev "
                          "libgsl-dev libsqlite3-dev' or set TN_NS3_LIBDIR")
    endif()
    get_filename_component(TN_NS3_LIBDIR ${tn_ns3_core_library} DIRECTORY)
  endif()
  find_path(TN_NS3_INCLUDE_DIR ns3/core-module.h HINTS ${TN_NS3_LIBDIR}/../include
                                                       ${TN_NS3_LIBDIR}/../../include)
  if(NOT TN_NS3_INCLUDE_DIR)
    message(FATAL_ERROR "ns-3 headers (ns3/core-module.h) not found next to ${TN_NS3_LIBDIR}")
  endif()
  file(GLOB tn_ns3_libraries ${TN_NS3_LIBDIR}/libns3*.so)
  foreach(library ${tn_ns3_libraries})
    get_filename_component(name ${library} NAME_WE)
    # libns3-core, libns3.37-core or libns3.37-core-default -> core
    string(REGEX REPLACE "^libns3(\\.[0-9]+)?-" "" module ${name})
    string(REGEX REPLACE "-(default|debug|release|optimized)$" "" module ${module})
    if(NOT TARGET ns3::lib${module})
      add_library(ns3::lib${module} SHARED IMPORTED)
      set_target_properties(ns3::lib${module} PROPERTIES
        IMPORTED_LOCATION ${library}
        INTERFACE_INCLUDE_DIRECTORIES ${TN_NS3_INCLUDE_DIR}
        INTERFACE_COMPILE_DEFINITIONS "NS3_LOG_ENABLE;NS3_ASSERT_ENABLE")
      set(lib${module} ns3::lib${module})
    endif()
  endforeach()
endif()

set(SQLite3_LIBRARIES SQLite::SQLite3)

# MPI parts only when the installed ns-3 has its mpi module (Debian's libns3-dev has not).
set(ENABLE_MPI FALSE)
if(libmpi)
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set_property(TARGET ${libmpi} APPEND PROPERTY INTERFACE_LINK_LIBRARIES MPI::MPI_CXX)
    set(ENABLE_MPI TRUE)
  endif()
endif()

function(build_lib)
  cmake_parse_arguments(BLIB "IGNORE_PCH" "LIBNAME"
                        "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES;DEPRECATED_HEADER_FILES;MODULE_ENABLED_FEATURES;PRIVATE_HEADER_FILES"
                        ${ARGN})
  set(target ${BLIB_LIBNAME})
  add_library(${target} SHARED ${BLIB_SOURCE_FILES})
  add_library(ns3::lib${BLIB_LIBNAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ns3-${BLIB_LIBNAME})
  target_include_directories(${target} PUBLIC ${TN_INCLUDE_DIR})
  target_link_libraries(${target} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  target_compile_definitions(${target} PRIVATE NS3_MODULE_COMPILATION)
  tn_publish_headers(${BLIB_HEADER_FILES})
  tn_write_module_header(${BLIB_LIBNAME} ${BLIB_HEADER_FILES})
  set(lib${BLIB_LIBNAME} ${target} PARENT_SCOPE)
  set(lib${BLIB_LIBNAME} ${target})

  # Examples, like ns-3's build_lib does it.
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/examples/CMakeLists.txt)
    add_subdirectory(examples)
  endif()

  # ns-3 has no installed test-runner: link a tiny main with the test suites.
  add_executable(test-runner ${BLIB_TEST_SOURCES} ${CMAKE_SOURCE_DIR}/utils/test-runner-main.cc)
  target_link_libraries(test-runner PRIVATE ${target} ${BLIB_LIBRARIES_TO_LINK})
  # The suites find test/data through its absolute path (test/tn-test-data.h): ns-3's way,
  # walking up from the runner to a folder with VERSION and LICENSE, finds nothing when the
  # build folder is outside the checkout.
  target_compile_definitions(test-runner PRIVATE NS_TEST_SOURCEDIR="test"
                                                 TN_TEST_DATA_DIR="${CMAKE_SOURCE_DIR}/test/data")
  set(suites "")
  foreach(source ${BLIB_TEST_SOURCES})
    file(STRINGS ${source} lines REGEX "TestSuite\\(\"training-net[A-Za-z0-9_-]*\"")
    foreach(line ${lines})
      string(REGEX REPLACE ".*TestSuite\\(\"(training-net[A-Za-z0-9_-]*)\".*" "\\1" suite "${line}")
      # every case, the long ones included (TestCase::EXTENSIVE): an ns-3 tree's test.py
      # runs the QUICK ones unless told
      add_test(NAME ns3/${suite} COMMAND test-runner --suite=${suite} --fullness=TAKES_FOREVER
               WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    endforeach()
  endforeach()
  # the collective and NPU suites once more under each congestion control besides DCQCN
  # (no deadlock, no loss on the lossless class, every postcondition): the collective suite
  # alone takes 30-100 s per congestion control, so only with `ctest -C cc -R /cc-`
  foreach(cc hpcc hpcc-pint timely dctcp)
    foreach(suite training-net-collective training-net-npu)
      add_test(NAME ns3/${suite}/cc-${cc} CONFIGURATIONS cc
               COMMAND test-runner --suite=${suite} --fullness=TAKES_FOREVER
               WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
      set_tests_properties(ns3/${suite}/cc-${cc} PROPERTIES
                           ENVIRONMENT "NS_ATTRIBUTE_DEFAULT=ns3::RdmaNic::CongestionControl=${cc}")
    endforeach()
  endforeach()

  tn_add_core_targets()
endfunction()

# Benchmarks of the ns-3 layer: programs in <build>/bench linked with the module.
function(tn_add_benchmarks)
  foreach(bench ${ARGN})
    get_filename_component(name ${bench} NAME_WE)
    add_executable(${name} ${bench})
    target_link_libraries(${name} PRIVATE ${libtraining-net} ${libcore} ${libnetwork}
                                          ${libpoint-to-point})
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
    # relative input paths (test/data) are found from any working directory
    target_compile_definitions(${name} PRIVATE TN_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  endforeach()
endfunction()

# Runs an example as a ctest (example/<name>) with its results in a scratch database.
# tn_add_example_test(program [VARIANT v] [CHECK_OUTPUT] args...): test example/program[-v]
# runs the program with args and a fresh database; with CHECK_OUTPUT, test/example-output-test.py
# runs it and checks what it prints and records against the program's invariants.
function(tn_add_example_test name)
  cmake_parse_arguments(T "CHECK_OUTPUT" "VARIANT" "" ${ARGN})
  set(test ${name})
  if(T_VARIANT)
    set(test ${name}-${T_VARIANT})
  endif()
  set(db ${CMAKE_BINARY_DIR}/example-${test}.db)
  if(T_CHECK_OUTPUT)
    add_test(NAME example/${test}
             COMMAND python3 ${CMAKE_SOURCE_DIR}/test/example-output-test.py ${name} ${db}
                     $<TARGET_FILE:${name}> ${T_UNPARSED_ARGUMENTS})
  else()
    add_test(NAME example/${test} COMMAND sh -c "rm -f '${db}' && \"$0\" \"$@\" --db='${db}'"
                                          $<TARGET_FILE:${name}> ${T_UNPARSED_ARGUMENTS})
  endif()
endfunction()

function(build_lib_example)
  cmake_parse_arguments(BLIB_EXAMPLE "IGNORE_PCH" "NAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK"
                        ${ARGN})
  add_executable(${BLIB_EXAMPLE_NAME} ${BLIB_EXAMPLE_SOURCE_FILES})
  target_link_libraries(${BLIB_EXAMPLE_NAME} PRIVATE ${libtraining-net}
                        ${BLIB_EXAMPLE_LIBRARIES_TO_LINK})
endfunction()
