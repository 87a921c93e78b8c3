/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The C core's test suites, one line each: TN_TEST_SUITE(name) requires a
 * function `void tn_suite_name(tn_test_suite *)` in test/core/. Included
 * several times with different definitions of TN_TEST_SUITE (no guard).
 * CMakeLists.txt reads this file to register one ctest per suite.
 */
TN_TEST_SUITE(harness)
TN_TEST_SUITE(db)
TN_TEST_SUITE(db_keys)
TN_TEST_SUITE(db_rows)
TN_TEST_SUITE(topology)
TN_TEST_SUITE(topology_preset)
TN_TEST_SUITE(routing)
TN_TEST_SUITE(routing_shape)
TN_TEST_SUITE(text)
TN_TEST_SUITE(schedule)
TN_TEST_SUITE(verify)
TN_TEST_SUITE(cost)
TN_TEST_SUITE(fluid)
TN_TEST_SUITE(algo_classic)
TN_TEST_SUITE(multitree)
TN_TEST_SUITE(hdrm)
TN_TEST_SUITE(swing)
TN_TEST_SUITE(tacos)
TN_TEST_SUITE(themis)
TN_TEST_SUITE(array)
TN_TEST_SUITE(rank_order)
TN_TEST_SUITE(workload)
TN_TEST_SUITE(chakra)
TN_TEST_SUITE(limits)
TN_TEST_SUITE(hpcc_files)
TN_TEST_SUITE(split)
TN_TEST_SUITE(program)
TN_TEST_SUITE(program_window)
TN_TEST_SUITE(partition)
TN_TEST_SUITE(tune)
TN_TEST_SUITE(nccl)
TN_TEST_SUITE(symmetry)
TN_TEST_SUITE(llm)
TN_TEST_SUITE(simai)
TN_TEST_SUITE(astra)
TN_TEST_SUITE(custom)
