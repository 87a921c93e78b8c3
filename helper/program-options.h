/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PROGRAM_OPTIONS_H
#define PROGRAM_OPTIONS_H

#include "ns3/attribute-settings.h"
#include "ns3/command-line.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief The command line of a training-net program, read strictly.
 *
 * ns-3's CommandLine reads values with a stream, so "8MiB" becomes 8, "1e3" 1, "0x10" 0 and
 * "4 MiB" 4; it prints its whole help for an unknown option, and some of ns-3's attribute
 * parsers abort on malformed text. The programs of this module declare their options here
 * instead. ProgramOptions reads the command line itself: every declared value is the whole
 * text of its argument, converted by the planning core's strict parsers (a number in range,
 * with the units the option allows, no space, sign or trailing text; a list has no empty
 * item); "--ns3::Type::Attribute=value" and the global values (--RngSeed, --RngRun) are
 * checked by AttributeSettings before ns-3 sees them; --help, --PrintHelp, --PrintAttributes
 * and the other ns-3 switches go to ns-3's CommandLine. Anything else (an unknown option, a
 * stray argument, a value missing) is one error line "program: what is wrong", shortened
 * when it quotes long text. Both "--opt=value" and "--opt value" are accepted, and a short
 * name ("-j 2", "-j2") when one is declared.
 *
 * Usage:
 * \code
 *   ProgramOptions options("training-net-quickstart", __FILE__);
 *   options.AddBytes("bytes", "collective size", &bytes);
 *   options.AddCount("chunks", "chunks per transfer", 1, 1 << 20, &chunks);
 *   if (!options.Parse(argc, argv)) return 2; // the message is printed
 * \endcode
 */
class ProgramOptions
{
  public:
    /**
     * \param program name used in error messages
     * \param file the program's source file (CommandLine's usage text)
     */
    ProgramOptions(const std::string& program, const std::string& file);

    /** \param usage text printed before the options by --help */
    void Usage(const std::string& usage);

    /** Free text. */
    void AddString(const std::string& name, const std::string& help, std::string* value);
    /** A byte size with units (tn_units_parse_bytes): 4096, 8MiB, 1.5KiB; <= 2^62. */
    void AddBytes(const std::string& name, const std::string& help, uint64_t* bytes);
    /** A whole number in [min, max]. */
    void AddCount(const std::string& name,
                  const std::string& help,
                  uint64_t min,
                  uint64_t max,
                  uint64_t* value);
    /** A whole number in [min, max] that fits 32 bits. */
    void AddCount(const std::string& name,
                  const std::string& help,
                  uint32_t min,
                  uint32_t max,
                  uint32_t* value);
    /** A data rate with units (tn_units_parse_rate): 100Gbps, 25Gb/s; > 0. */
    void AddRate(const std::string& name, const std::string& help, uint64_t* bps);
    /** A switch: --name, --name=true|false|1|0 (a flag takes no separate value). */
    void AddFlag(const std::string& name, const std::string& help, bool* value);
    /** A comma-separated list of names: no empty item, no space ("ring,multitree"). */
    void AddList(const std::string& name, const std::string& help, std::vector<std::string>* items);
    /** An option that may be given many times: each value is appended, in order. */
    void AddRepeated(const std::string& name,
                     const std::string& help,
                     std::vector<std::string>* values);
    /**
     * The arguments that are not options (a file name), in order.
     * \param name what they are, for --help \param min at least this many \param max at most
     * \param values where they go
     */
    void AddPositional(const std::string& name,
                       const std::string& help,
                       size_t min,
                       size_t max,
                       std::vector<std::string>* values);
    /** \param letter a short name ("-j 2", "-j2") \param name of a declared option */
    void AddShortName(char letter, const std::string& name);

    /**
     * --mode: the simulation level, "packet" (default) or "flow" (RoceHelper::SetMode). Any
     * other name is an error naming --mode. At flow level, each option of `packetOnly` the
     * command line gave, and each --ns3:: attribute that only acts on packets
     * (RoceHelper::NeedsPackets), is refused: it names the option and says it needs packets.
     * \param mode the level (its value is the default)
     * \param packetOnly names (without "--") of the program's options that need packets
     */
    void AddMode(std::string* mode, const std::vector<std::string>& packetOnly = {});

    /**
     * Parse argv. On an error prints "program: --name: what is wrong" on stderr.
     * \return false on any error (exit non-zero); --help exits as CommandLine does
     */
    bool Parse(int argc, char* argv[]);

    /**
     * Watch SIGINT and SIGTERM from now to the program's exit (tn_signal_watch). A signal
     * before a run aborts that run as soon as it starts (its recorder's watch nests in this
     * one); one after the last run is recorded leaves the runs as recorded and ends the
     * program through ExitStatus. The process is never killed midway: without this watch a
     * signal between a recorder's Finish and the exit killed it with no line (exit -2 as
     * Python sees it). A second signal of the same kind kills it, as everywhere.
     */
    void WatchSignals();

    /**
     * Note a run the program recorded, for ExitStatus's line.
     * \param runId its run_id \param status its status as recorded (StatsHelper::Finish)
     */
    void Recorded(int64_t runId, const std::string& status);

    /**
     * The exit status of a program that has done its work.
     * \param status what the program would return (0 when every run went as planned)
     * \return status, unless a signal came after WatchSignals and no run acted on it (it came
     * after the last run was recorded): then 128 + the signal (tn_signal_exit_status) and, if
     * status is 0 (no error line is out already), one line on stderr, stdout flushed first:
     * "program: interrupted after run N was recorded (STATUS)" (the last run Recorded noted;
     * "program: interrupted" when it recorded none). Under mpirun every rank calls it (the
     * status is the same on every rank; rank 0 prints the line)
     */
    int ExitStatus(int status) const;

    /**
     * \param name a declared option, without "--"
     * \return true if the command line gave it (after Parse): a value from a file the
     * program reads may then stand unless the user overrode it
     */
    bool IsGiven(const std::string& name) const;

    /** \return the --ns3::Type::Attribute options the command line gave (after Parse) */
    const std::vector<std::string>& GetAttributesGiven() const
    {
        return m_attributesGiven;
    }

    /**
     * The RNG seed and run as ns-3 takes them (RngSeedManager): seed in [1, 4294944442],
     * since MRG32k3a needs every seed word below its second modulus. Checks the values
     * --RngSeed and --RngRun gave.
     * \param error what is wrong
     * \return false if the seed cannot be used
     */
    static bool CheckSeed(std::string* error);

    /**
     * Split a comma-separated list strictly: no empty item, no space in an item.
     * \param what the option, for the message \param list the text
     * \param items the items \param error what is wrong \return false on an error
     */
    static bool Split(const std::string& what,
                      const std::string& list,
                      std::vector<std::string>* items,
                      std::string* error);

    /**
     * \param program the program \param message what is wrong
     * \return "program: message" on one line, at most MAX_ERROR_LINE characters
     */
    static std::string ErrorLine(const std::string& program, const std::string& message);

    /** An error line is cut at this length (a value can be 100 KB). */
    static constexpr size_t MAX_ERROR_LINE = 400;

    /** The largest seed ns-3's generator accepts (AttributeSettings::MAX_SEED). */
    static constexpr uint64_t MAX_SEED = AttributeSettings::MAX_SEED;

  private:
    /** One declared option: how to convert its text. */
    struct Option
    {
        std::string name;                                              //!< without "--"
        std::string text;                                              //!< for --help
        bool given{false};                                             //!< on the command line
        bool flag{false};                                              //!< takes no separate value
        std::function<bool(const std::string&, std::string*)> convert; //!< text to value
    };

    /** \return the option named so, or nullptr */
    Option* Find(const std::string& name);
    /** \return the option named so, or nullptr */
    const Option* Find(const std::string& name) const;
    /** Read one "--name[=value]" (value from args[*i + 1] when needed) \return false on error */
    bool ParseOption(const std::vector<std::string>& args,
                     size_t* i,
                     std::vector<std::string>* ns3Args,
                     std::string* error);

    std::string m_program;        //!< for messages
    CommandLine m_cmd;            //!< help, ns-3 attributes and globals
    std::deque<Option> m_options; //!< in declaration order (CommandLine holds references)
    std::vector<std::string> m_attributesGiven; //!< "ns3::Type::Attribute" of --ns3:: options
    std::string* m_mode{nullptr};               //!< AddMode's value
    std::vector<std::string> m_packetOnly;      //!< AddMode's options that need packets
    std::vector<std::pair<char, std::string>> m_shortNames; //!< letter, option name
    std::vector<std::string>* m_positional{nullptr};        //!< AddPositional
    size_t m_positionalMin{0};                              //!< AddPositional
    size_t m_positionalMax{0};                              //!< AddPositional
    std::string m_positionalName;                           //!< AddPositional
    int64_t m_lastRunId{-1};                                //!< Recorded's last run
    std::string m_lastRunStatus;                            //!< Recorded's last status
};

} // namespace ns3

#endif // PROGRAM_OPTIONS_H
