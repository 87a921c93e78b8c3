/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TN_TEST_DATA_H
#define TN_TEST_DATA_H

// Where the TestSuites find test/data, from any build folder:
//  - the standalone build compiles the folder's absolute path in (TN_TEST_DATA_DIR), since its
//    test-runner may live in a build folder outside the checkout, where ns-3's way (walking up
//    from the runner to a folder holding VERSION and LICENSE) finds nothing;
//  - in an ns-3 tree (CMake or waf) the runner is inside the tree and finds the tree's top
//    folder; the tree's build defines NS_TEST_SOURCEDIR as this module's test/ folder relative
//    to it (waf: the folder of the last file of the test library's sources, so wscript lists a
//    test/*.cc file last).

#include "ns3/test.h"

#include <string>

namespace ns3
{

/**
 * \ingroup training-net-tests
 * A TestCase that reads files of test/data.
 */
class TnDataTestCase : public TestCase
{
  protected:
    /**
     * \param name the test case's name
     */
    explicit TnDataTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * \return the test/data folder (no trailing separator)
     */
    std::string DataDir()
    {
#ifdef TN_TEST_DATA_DIR
        return TN_TEST_DATA_DIR;
#else
        SetDataDir(NS_TEST_SOURCEDIR);
        return CreateDataDirFilename("data");
#endif
    }

    /**
     * \param name a file name relative to test/data
     * \return its path
     */
    std::string DataFile(const std::string& name)
    {
        return DataDir() + "/" + name;
    }
};

} // namespace ns3

#endif /* TN_TEST_DATA_H */
