/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The test-runner of the standalone build: Debian's ns-3 installs the test
 * framework (libns3-core) but no runner program. Same options as ns-3's
 * test-runner (--suite=NAME, --list, --verbose, ...).
 */
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
