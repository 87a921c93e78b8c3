/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs the C core's unit tests (test/core) inside ns-3's test framework, so
 * an ns-3 tree's test.py checks the core too: one TestCase per C suite.
 */
#include "core/tn-test.h"
#include "tn-test-data.h"

#include "ns3/test.h"

#include <string>

namespace ns3
{

/**
 * \ingroup training-net-tests
 * Runs one C suite of test/core and fails with the C checks' messages.
 */
class CoreSuiteTestCase : public TnDataTestCase
{
  public:
    /**
     * \param suite the name of the C suite (a line of test/core/tn-test-list.h)
     */
    explicit CoreSuiteTestCase(const std::string& suite)
        : TnDataTestCase("C core suite " + suite),
          m_suite(suite)
    {
    }

  private:
    static void Collect(void* sink, const char* line)
    {
        auto* text = static_cast<std::string*>(sink);
        text->append(line);
        text->append("\n");
    }

    void DoRun() override
    {
        std::string dataDir = DataDir();
        std::string tempDir = CreateTempDirFilename("");
        std::string failures;
        int failed = tn_test_run_suite(m_suite.c_str(),
                                       nullptr,
                                       dataDir.c_str(),
                                       tempDir.c_str(),
                                       &CoreSuiteTestCase::Collect,
                                       &failures);
        NS_TEST_ASSERT_MSG_EQ(failed, 0, "C core suite " << m_suite << " failed:\n" << failures);
    }

    std::string m_suite;
};

/**
 * \ingroup training-net-tests
 * The C core's unit tests as an ns-3 TestSuite.
 */
class CoreTestSuite : public TestSuite
{
  public:
    CoreTestSuite()
        : TestSuite("training-net-core", UNIT)
    {
        size_t count = 0;
        const tn_test_suite_ref* suites = tn_test_suites(&count);
        for (size_t i = 0; i < count; i++)
        {
            AddTestCase(new CoreSuiteTestCase(suites[i].name), TestCase::QUICK);
        }
    }
};

/// The suite's static instance registers it with the test runner.
static CoreTestSuite g_coreTestSuite;

} // namespace ns3
