/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ProgramOptions: the programs' command lines read strictly, in both "--opt=value" and
 * "--opt value" forms; the RNG seed range checked before ns-3's generator aborts on it.
 */
#include "roce-test-util.h"

#include "ns3/attribute-settings.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/program-options.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-helper.h"
#include "ns3/test.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <csignal>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/** What one parse of a command line gave. */
struct Parsed
{
    bool ok{false};
    uint64_t bytes{1};
    uint32_t chunks{1};
    uint64_t bps{1};
    bool flag{false};
    std::string name{"none"};
    std::vector<std::string> given;      //!< declared options the line gave (IsGiven)
    std::vector<std::string> attributes; //!< GetAttributesGiven
};

/** Parse args (without the program name) with a fixed set of options. */
Parsed
ParseArgs(const std::vector<std::string>& args)
{
    Parsed p;
    ProgramOptions options("program-options-test", __FILE__);
    options.AddBytes("bytes", "a size", &p.bytes);
    options.AddCount("chunks", "a count", 1u, 1000u, &p.chunks);
    options.AddRate("rate", "a rate", &p.bps);
    options.AddFlag("flag", "a switch", &p.flag);
    options.AddString("name", "a text", &p.name);
    std::vector<std::string> storage = {"program-options-test"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : storage)
    {
        argv.push_back(&s[0]);
    }
    p.ok = options.Parse(static_cast<int>(argv.size()), argv.data());
    for (const char* name : {"bytes", "chunks", "rate", "flag", "name", "undeclared"})
    {
        if (options.IsGiven(name))
        {
            p.given.emplace_back(name);
        }
    }
    p.attributes = options.GetAttributesGiven();
    return p;
}

} // namespace

/**
 * \ingroup training-net-tests
 * --mode: packet or flow; any other name, and at flow level an option or ns-3 attribute that
 * needs packets, is refused.
 */
class ProgramOptionsModeTestCase : public TestCase
{
  public:
    ProgramOptionsModeTestCase()
        : TestCase("--mode takes packet or flow; flow refuses options that need packets")
    {
    }

  private:
    /** \return Parse's result; *mode gets the level */
    bool Parse(const std::vector<std::string>& args, std::string* mode)
    {
        std::string pcap;
        *mode = "packet";
        ProgramOptions options("program-options-test", __FILE__);
        options.AddString("pcap", "pcap prefix", &pcap);
        options.AddMode(mode, {"pcap"});
        std::vector<std::string> storage = {"program-options-test"};
        storage.insert(storage.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& s : storage)
        {
            argv.push_back(&s[0]);
        }
        return options.Parse(static_cast<int>(argv.size()), argv.data());
    }

    void DoRun() override
    {
        std::string mode;
        NS_TEST_EXPECT_MSG_EQ(Parse({}, &mode), true, "no --mode");
        NS_TEST_EXPECT_MSG_EQ(mode, "packet", "packet by default");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=flow"}, &mode), true, "--mode=flow");
        NS_TEST_EXPECT_MSG_EQ(mode, "flow", "flow level");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode", "flow"}, &mode), true, "--mode flow");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=fluid"}, &mode), false, "not a level");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=flow-symmetric"}, &mode), true, "ranks aggregated");
        NS_TEST_EXPECT_MSG_EQ(mode, "flow-symmetric", "flow level, NPU 0 for all");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=flow-symmetric", "--pcap=x"}, &mode),
                              false,
                              "pcap at flow-symmetric");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=flow", "--pcap=x"}, &mode), false, "pcap at flow");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=packet", "--pcap=x"}, &mode), true, "pcap at packet");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=flow", "--ns3::RdmaNic::AckInterval=4"}, &mode),
                              false,
                              "a packet NIC attribute at flow level");
        NS_TEST_EXPECT_MSG_EQ(Parse({"--mode=flow", "--ns3::RdmaNic::Mtu=4096"}, &mode),
                              true,
                              "the MTU counts at flow level too");
    }
};

/**
 * \ingroup training-net-tests
 * Values in both forms, units, and the inputs ns-3's stream parsing used to truncate.
 */
class ProgramOptionsValuesTestCase : public TestCase
{
  public:
    ProgramOptionsValuesTestCase()
        : TestCase("strict values, --opt value and --opt=value")
    {
    }

  private:
    void DoRun() override
    {
        Parsed a = ParseArgs({"--bytes=8MiB", "--chunks=12", "--rate=25Gbps", "--name=x"});
        NS_TEST_ASSERT_MSG_EQ(a.ok, true, "valid line");
        NS_TEST_EXPECT_MSG_EQ(a.bytes, 8u << 20, "8MiB");
        NS_TEST_EXPECT_MSG_EQ(a.chunks, 12u, "count");
        NS_TEST_EXPECT_MSG_EQ(a.bps, 25000000000ull, "rate");
        NS_TEST_EXPECT_MSG_EQ(a.name, "x", "text");
        Parsed b = ParseArgs({"--bytes", "8MiB", "--chunks", "12", "--flag", "--name", "x"});
        NS_TEST_ASSERT_MSG_EQ(b.ok, true, "separate values");
        NS_TEST_EXPECT_MSG_EQ(b.bytes, 8u << 20, "8MiB, separate");
        NS_TEST_EXPECT_MSG_EQ(b.chunks, 12u, "count, separate");
        NS_TEST_EXPECT_MSG_EQ(b.flag, true, "a flag takes no value: --name is the next option");
        NS_TEST_EXPECT_MSG_EQ(b.name, "x", "text, separate");
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({}).ok, true, "defaults are valid");
        // what a stream reads as a number's prefix
        for (const char* bad : {"8MiBx", "1e3", "0x10", "-1", "1.5B", "4611686018427387905"})
        {
            NS_TEST_EXPECT_MSG_EQ(ParseArgs({std::string("--bytes=") + bad}).ok,
                                  false,
                                  "--bytes=" << bad << " refused");
        }
        for (const char* bad : {"0", "1001", "1e3", "12x", "-1", "+3", "18446744073709551616"})
        {
            NS_TEST_EXPECT_MSG_EQ(ParseArgs({std::string("--chunks=") + bad}).ok,
                                  false,
                                  "--chunks=" << bad << " refused");
        }
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({"--chunks=1000"}).ok, true, "the maximum is allowed");
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({"--rate=0bps"}).ok, false, "zero rate refused");
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({"--rate=fast"}).ok, false, "text rate refused");
        // list values: items in order; an empty item or a space is an error, not skipped
        std::vector<std::string> items;
        std::string why;
        NS_TEST_ASSERT_MSG_EQ(ProgramOptions::Split("--l", "ring,multitree", &items, &why),
                              true,
                              "a list");
        NS_TEST_ASSERT_MSG_EQ(items.size(), 2u, "two items");
        NS_TEST_EXPECT_MSG_EQ(items[0], "ring", "first");
        NS_TEST_EXPECT_MSG_EQ(items[1], "multitree", "second");
        for (const char* bad : {"", ",", "ring,", ",ring", "planned,,ecmp", "ring, dbt", " ring"})
        {
            NS_TEST_EXPECT_MSG_EQ(ProgramOptions::Split("--l", bad, &items, &why),
                                  false,
                                  "'" << bad << "' refused");
        }
        // which options the line gave, in either form, and the ns-3 attributes it set (the
        // guard restores them after this test)
        roce_test::DefaultsGuard guard;
        guard.SetDefault("ns3::RdmaNic::Mtu", UintegerValue(4096));
        guard.SetDefault("ns3::RdmaNic::RetryLimit", UintegerValue(7));
        Parsed g = ParseArgs({"--chunks",
                              "3",
                              "--flag",
                              "--name=y",
                              "--ns3::RdmaNic::Mtu=1024",
                              "--ns3::RdmaNic::RetryLimit",
                              "3"});
        NS_TEST_ASSERT_MSG_EQ(g.ok, true, "valid line");
        NS_TEST_EXPECT_MSG_EQ(g.given.size(), 3u, "chunks, flag, name: not bytes or rate");
        const bool theGivenOnes = g.given.size() == 3 && g.given[0] == "chunks" &&
                                  g.given[1] == "flag" && g.given[2] == "name";
        NS_TEST_EXPECT_MSG_EQ(theGivenOnes, true, "the given ones");
        NS_TEST_ASSERT_MSG_EQ(g.attributes.size(), 2u, "two attributes");
        NS_TEST_EXPECT_MSG_EQ(g.attributes[0], "ns3::RdmaNic::Mtu", "first attribute");
        NS_TEST_EXPECT_MSG_EQ(g.attributes[1], "ns3::RdmaNic::RetryLimit", "second");
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({}).given.size(), 0u, "defaults are not given");
    }
};

/**
 * \ingroup training-net-tests
 * --RngSeed beyond what MRG32k3a takes is an error, not an abort in the generator.
 */
class ProgramOptionsSeedTestCase : public TestCase
{
  public:
    ProgramOptionsSeedTestCase()
        : TestCase("RngSeed range")
    {
    }

  private:
    void DoRun() override
    {
        roce_test::DefaultsGuard guard; // the seed as the suite found it, even after a failure
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({"--RngSeed=4294944443"}).ok, false, "first bad seed");
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({"--RngSeed", "4294967295"}).ok, false, "largest");
        NS_TEST_EXPECT_MSG_EQ(ParseArgs({"--RngSeed=4294944442"}).ok, true, "largest good seed");
    }
};

/**
 * \ingroup training-net-tests
 * What ns-3's own parsers abort on, or CommandLine answers with its whole help or reads a
 * prefix of, is one refusal (Parse returns false; before, the process aborted, exited or ran
 * with a truncated value).
 */
class ProgramOptionsRefusalsTestCase : public TestCase
{
  public:
    ProgramOptionsRefusalsTestCase()
        : TestCase("values ns-3 would abort on, unknown options, whole-text values")
    {
    }

  private:
    void DoRun() override
    {
        roce_test::DefaultsGuard guard;
        guard.SetDefault("ns3::RdmaNic::Mtu", UintegerValue(4096));
        guard.SetDefault("ns3::RdmaDcqcnControl::MinRate", DataRateValue(DataRate("100Mbps")));
        guard.SetDefault("ns3::RdmaNic::RetransmitTimeout", TimeValue(MilliSeconds(4)));
        for (const char* bad : {"--ns3::RdmaNic::Mtu=1e309",
                                "--ns3::RdmaNic::Mtu=-1",
                                "--ns3::RdmaNic::Mtu=4096x",
                                "--ns3::RdmaDcqcnControl::MinRate=1 Gbps",
                                "--ns3::RdmaDcqcnControl::MinRate=1e30Gbps",
                                "--ns3::RdmaNic::RetransmitTimeout=5xs",
                                "--ns3::RdmaNic::RetransmitTimeout=1e300s",
                                "--ns3::RdmaDcqcnControl::G=nan",
                                "--ns3::DropTailQueue<Packet>::MaxSize=1x",
                                "--ns3::RdmaNic::NoSuchAttribute=1",
                                "--ns3::NoSuchClass::Mtu=1",
                                "--RngSeed=abc",
                                "--RngSeed=1e309",
                                "--RngRun=-1",
                                "--PrintAttributes=NoSuchClass",
                                "--bogus",
                                "--bogus=1",
                                "--",
                                "--=3",
                                "-x",
                                "stray",
                                "--bytes=4 MiB",
                                "--bytes= 4MiB",
                                "--chunks=4 x",
                                "--chunks= 2",
                                "--chunks=+2",
                                "--flag=yes",
                                "--chunks"})
        {
            NS_TEST_EXPECT_MSG_EQ(ParseArgs({bad}).ok, false, bad << " refused");
        }
        // and the same values in the forms that are right
        Parsed ok = ParseArgs({"--ns3::RdmaNic::Mtu=1024",
                               "--ns3::RdmaDcqcnControl::MinRate=1Gbps",
                               "--ns3::RdmaNic::RetransmitTimeout=5ms",
                               "--ns3::DropTailQueue<Packet>::MaxSize=100p",
                               "--RngSeed=3",
                               "--flag=false",
                               "--name=with space"});
        NS_TEST_ASSERT_MSG_EQ(ok.ok, true, "valid values");
        NS_TEST_EXPECT_MSG_EQ(ok.name, "with space", "a text option takes the whole argument");
        UintegerValue mtu;
        GlobalValue::GetValueByName("RngSeed", mtu);
        NS_TEST_EXPECT_MSG_EQ(mtu.Get(), 3u, "the seed was set");
        // one error line, shortened: a 100 KB value is not quoted in full
        const std::string line = ProgramOptions::ErrorLine("p", std::string(100000, 'x'));
        NS_TEST_EXPECT_MSG_EQ((line.size() <= ProgramOptions::MAX_ERROR_LINE), true, "capped");
        const bool shortened = AttributeSettings::Quote(std::string(1000, 'y')).size() < 120;
        NS_TEST_EXPECT_MSG_EQ(shortened, true, "a long value is quoted shortened");
        // repeated options and positional arguments
        std::vector<std::string> sets;
        std::vector<std::string> files;
        uint32_t jobs = 1;
        ProgramOptions options("program-options-test", __FILE__);
        options.AddRepeated("set", "k=v", &sets);
        options.AddCount("jobs", "n", 1u, 8u, &jobs);
        options.AddShortName('j', "jobs");
        options.AddPositional("FILE", "a file", 1, 1, &files);
        std::vector<std::string> storage = {"p", "--set", "a=1", "-j", "3", "f.toml", "--set=b=2"};
        std::vector<char*> argv;
        for (auto& a : storage)
        {
            argv.push_back(&a[0]);
        }
        NS_TEST_ASSERT_MSG_EQ(options.Parse(int(argv.size()), argv.data()), true, "parsed");
        NS_TEST_ASSERT_MSG_EQ(sets.size(), 2u, "two --set");
        NS_TEST_EXPECT_MSG_EQ(sets[0] + " " + sets[1], "a=1 b=2", "in order");
        NS_TEST_EXPECT_MSG_EQ(jobs, 3u, "-j 3");
        NS_TEST_ASSERT_MSG_EQ(files.size(), 1u, "one file");
        NS_TEST_EXPECT_MSG_EQ(files[0], "f.toml", "the file");
    }
};

/**
 * \ingroup training-net-tests
 * RoceHelper::Check finds before anything is built what Install() or the NICs would abort
 * on: too many nodes, a latency beyond ns-3's time range, NIC attributes that cannot work.
 */
class RoceHelperCheckTestCase : public TestCase
{
  public:
    RoceHelperCheckTestCase()
        : TestCase("RoceHelper::Check refuses what would abort later")
    {
    }

  private:
    /** \return Check()'s message for spec ("" if usable), or the spec error */
    std::string CheckSpec(const std::string& spec, const RoceHelper& roce)
    {
        tn_topology* topo = nullptr;
        tn_error err{};
        if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
        {
            return std::string("spec: ") + err.message;
        }
        std::string why = roce.Check(topo);
        tn_topology_destroy(topo);
        return why;
    }

    void DoRun() override
    {
        RoceHelper roce;
        NS_TEST_EXPECT_MSG_EQ(CheckSpec("ring:4", roce), "", "a usable fabric");
        const std::string late = CheckSpec("ring:2,latency=18000000000s", roce);
        NS_TEST_EXPECT_MSG_NE(late.find("at most 1000000000 ns"), std::string::npos, late);
        // a latency past the retry limit's patience: refused, not simulated on and on
        const std::string retry = CheckSpec("ring:4,latency=100000000s", roce);
        NS_TEST_EXPECT_MSG_NE(retry.find("at most 1000000000 ns"), std::string::npos, retry);
        NS_TEST_EXPECT_MSG_EQ(CheckSpec("ring:4,latency=1s", roce), "", "1 s is allowed");
        // a link slower than 1 Gbit/s: refused, not simulated for simulated days
        for (const char* spec :
             {"ring:4,rate=1bps", "ring:4,rate=999999999bps", "hier:ring4@100Gbps+switch2@1Mbps"})
        {
            const std::string slow = CheckSpec(spec, roce);
            NS_TEST_EXPECT_MSG_NE(slow.find("rate at least 1000000000bps"),
                                  std::string::npos,
                                  spec << ": " << slow);
        }
        NS_TEST_EXPECT_MSG_EQ(CheckSpec("ring:4,rate=1Gbps", roce), "", "1 Gbit/s is allowed");
        // only NPUs carry RoCE addresses: an NPU of node id 65536 is refused, switches are not
        const std::string many = CheckSpec("switch:65537", roce);
        NS_TEST_EXPECT_MSG_NE(many.find("NPU 65536 is node 65536; a RoCE fabric addresses NPUs of "
                                        "node ids below 65536"),
                              std::string::npos,
                              many);
        NS_TEST_EXPECT_MSG_EQ(CheckSpec("switch:65536", roce), "", "65536 NPUs fit");
        NS_TEST_EXPECT_MSG_EQ(
            CheckSpec("leafspine:leaves=1,spines=65536,hosts=2,rate=40Tbps", roce),
            "",
            "65539 nodes fit: 65537 of them switches");
        RoceHelper slow;
        slow.SetCongestionControl("dcqcn", "MinRate", DataRateValue(DataRate(0)));
        const std::string rate = CheckSpec("ring:4", slow);
        NS_TEST_EXPECT_MSG_NE(rate.find("MinRate"), std::string::npos, rate);
        RoceHelper trickle;
        trickle.SetNicAttribute("InjectionRate", DataRateValue(DataRate(1)));
        const std::string injection = CheckSpec("ring:4", trickle);
        NS_TEST_EXPECT_MSG_NE(injection.find("InjectionRate 1bps is below"),
                              std::string::npos,
                              injection);
        // Config defaults, as --ns3::RdmaDcqcnControl::ReferenceRate=0bps sets them
        roce_test::DefaultsGuard guard;
        guard.SetDefault("ns3::RdmaDcqcnControl::ReferenceRate", DataRateValue(DataRate(0)));
        const std::string reference = CheckSpec("ring:4", RoceHelper());
        NS_TEST_EXPECT_MSG_NE(reference.find("ReferenceRate"), std::string::npos, reference);
    }
};

/**
 * \ingroup training-net-tests
 * WatchSignals and ExitStatus: a signal that comes after the last run is recorded ends the
 * program with 128 + the signal and one line naming the run (none after an error line); with
 * no signal the status is the program's own.
 */
class ProgramOptionsSignalsTestCase : public TestCase
{
  public:
    ProgramOptionsSignalsTestCase()
        : TestCase("a signal after the last run: 130 or 143 and one line")
    {
    }

  private:
    /** The handlers as the test found them, and std::cerr, even after a failure. */
    struct Restore
    {
        std::streambuf* cerr{std::cerr.rdbuf()}; //!< std::cerr's buffer

        ~Restore()
        {
            std::cerr.rdbuf(cerr);
            tn_signal_unwatch();
        }
    };

    /**
     * Raise sig under a watch and call ExitStatus.
     * \param sig the signal (0: none) \param runId the run Recorded notes (-1: none)
     * \param status ExitStatus's argument \param line what ExitStatus printed on stderr
     * \return ExitStatus's result
     */
    static int Exit(int sig, int64_t runId, int status, std::string* line)
    {
        Restore restore;
        std::ostringstream err;
        std::cerr.rdbuf(err.rdbuf());
        ProgramOptions options("program-options-test", __FILE__);
        options.WatchSignals();
        if (runId >= 0)
        {
            options.Recorded(runId, "ok");
        }
        if (sig)
        {
            std::raise(sig);
        }
        const int exit = options.ExitStatus(status);
        *line = err.str();
        return exit;
    }

    void DoRun() override
    {
        std::string line;
        NS_TEST_EXPECT_MSG_EQ(Exit(0, 3, 0, &line), 0, "no signal: the program's status");
        NS_TEST_EXPECT_MSG_EQ(line, "", "no signal: no line");
        NS_TEST_EXPECT_MSG_EQ(Exit(0, 3, 1, &line), 1, "no signal: the program's failure");
        NS_TEST_EXPECT_MSG_EQ(Exit(SIGINT, 7, 0, &line), 128 + SIGINT, "SIGINT after run 7");
        NS_TEST_EXPECT_MSG_EQ(line,
                              "program-options-test: interrupted after run 7 was recorded (ok)\n",
                              "the line names the run");
        NS_TEST_EXPECT_MSG_EQ(Exit(SIGTERM, 7, 0, &line), 128 + SIGTERM, "SIGTERM after run 7");
        NS_TEST_EXPECT_MSG_EQ(Exit(SIGINT, -1, 0, &line), 128 + SIGINT, "no run recorded");
        NS_TEST_EXPECT_MSG_EQ(line, "program-options-test: interrupted\n", "no run to name");
        NS_TEST_EXPECT_MSG_EQ(Exit(SIGINT, 7, 1, &line), 128 + SIGINT, "after a failure");
        NS_TEST_EXPECT_MSG_EQ(line, "", "the failure's line stays the last");
        NS_TEST_EXPECT_MSG_EQ(tn_signal_pending(), 0, "the watch is over, the flag clear");
    }
};

/**
 * \ingroup training-net-tests
 * The programs' command-line test suite.
 */
class ProgramOptionsTestSuite : public TestSuite
{
  public:
    ProgramOptionsTestSuite()
        : TestSuite("training-net-program-options", UNIT)
    {
        AddTestCase(new ProgramOptionsValuesTestCase, TestCase::QUICK);
        AddTestCase(new ProgramOptionsSeedTestCase, TestCase::QUICK);
        AddTestCase(new ProgramOptionsModeTestCase, TestCase::QUICK);
        AddTestCase(new ProgramOptionsRefusalsTestCase, TestCase::QUICK);
        AddTestCase(new RoceHelperCheckTestCase, TestCase::QUICK);
        AddTestCase(new ProgramOptionsSignalsTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static ProgramOptionsTestSuite g_programOptionsTestSuite;

} // namespace ns3
