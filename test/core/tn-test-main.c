/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Standalone runner of the C core's tests:
 *   tn-core-tests                 list the suites
 *   tn-core-tests SUITE [TEST]    run a suite (or one of its tests)
 *   tn-core-tests --all           run every suite
 * Options --data-dir DIR and --temp-dir DIR override the compiled-in folders.
 * Exit status: 0 when every test passed, 1 on a failure, 2 on bad usage.
 */
#include "tn-test.h"

#include <stdio.h>
#include <string.h>

#ifndef TN_TEST_DATA_DIR
#define TN_TEST_DATA_DIR "test/data"
#endif

static void
report_to_stderr(void* sink, const char* line)
{
    (void)sink;
    fprintf(stderr, "%s\n", line);
}

int
main(int argc, char** argv)
{
    const char* data_dir = TN_TEST_DATA_DIR;
    const char* temp_dir = "/tmp";
    const char* positional[2] = {NULL, NULL};
    int npositional = 0;
    int all = 0;
    for (int i = 1; i < argc; i++)
    {
        if (strcmp(argv[i], "--data-dir") == 0 && i + 1 < argc)
            data_dir = argv[++i];
        else if (strcmp(argv[i], "--temp-dir") == 0 && i + 1 < argc)
            temp_dir = argv[++i];
        else if (strcmp(argv[i], "--all") == 0)
            all = 1;
        else if (npositional < 2 && argv[i][0] != '-')
            positional[npositional++] = argv[i];
        else
        {
            fprintf(stderr,
                    "usage: %s [--all | SUITE [TEST]] [--data-dir DIR] [--temp-dir DIR]\n",
                    argv[0]);
            return 2;
        }
    }
    size_t count = 0;
    const tn_test_suite_ref* suites = tn_test_suites(&count);
    if (!all && npositional == 0)
    {
        for (size_t i = 0; i < count; i++)
            printf("%s\n", suites[i].name);
        return 0;
    }
    int failed = 0;
    for (size_t i = 0; i < count; i++)
    {
        if (!all && strcmp(suites[i].name, positional[0]) != 0)
            continue;
        int result = tn_test_run_suite(suites[i].name,
                                       all ? NULL : positional[1],
                                       data_dir,
                                       temp_dir,
                                       report_to_stderr,
                                       NULL);
        if (result < 0)
        {
            fprintf(stderr, "no test '%s' in suite '%s'\n", positional[1], suites[i].name);
            return 2;
        }
        printf("%-24s %s\n", suites[i].name, result ? "FAIL" : "PASS");
        failed += result;
        if (!all)
            return failed ? 1 : 0;
    }
    if (!all)
    {
        fprintf(stderr, "no suite '%s' (run without arguments to list them)\n", positional[0]);
        return 2;
    }
    return failed ? 1 : 0;
}
