/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PROGRAM_OPTIONS_H
#define PROGRAM_OPTIONS_H

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
 * ns-3's CommandLine reads numbers with a stream, so "8MiB" becomes 8, "1e3" 1 and "0x10" 0,
 * and it knows only "--opt=value". The programs of this module declare their options here
 * instead: every value is taken as text by a CommandLine (so --help, --PrintHelp and the
 * --ns3::Type::Attribute=value options keep working) and then converted by the planning
 * core's strict parsers: the whole text must be a number in range, with the units the option
 * allows; anything else is an error that names the option, says what is wrong and the limit.
 * Both "--opt=value" and "--opt value" are accepted.
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
    /** A byte size with units (tn_topology_parse_bytes): 4096, 8MiB, 1.5KiB; <= 2^62. */
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
    /** A data rate with units (tn_topology_parse_rate): 100Gbps, 25Gb/s; > 0. */
    void AddRate(const std::string& name, const std::string& help, uint64_t* bps);
    /** A switch: --name, --name=true|false|1|0 (a flag takes no separate value). */
    void AddFlag(const std::string& name, const std::string& help, bool* value);

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

    /** \return the items of a comma-separated list value, empty ones left out */
    static std::vector<std::string> Split(const std::string& list);

    /** The largest seed ns-3's generator accepts (2^32 - 22853 - 1). */
    static constexpr uint64_t MAX_SEED = 4294944442u;

  private:
    /** One declared option: its text and how to convert it. */
    struct Option
    {
        std::string name;                                              //!< without "--"
        std::string text;                                              //!< as given (or default)
        bool given{false};                                             //!< on the command line
        bool flag{false};                                              //!< takes no separate value
        std::function<bool(const std::string&, std::string*)> convert; //!< text to value
    };

    /** "--opt value" to "--opt=value" for the options that take a value. */
    std::vector<std::string> JoinValues(int argc, char* argv[]) const;
    /** \return the option named so, or nullptr */
    const Option* Find(const std::string& name) const;

    std::string m_program;        //!< for messages
    CommandLine m_cmd;            //!< help, ns-3 attributes and globals
    std::deque<Option> m_options; //!< in declaration order (CommandLine holds references)
    std::vector<std::string> m_attributesGiven; //!< "ns3::Type::Attribute" of --ns3:: options
    std::string* m_mode{nullptr};               //!< AddMode's value
    std::vector<std::string> m_packetOnly;      //!< AddMode's options that need packets
};

} // namespace ns3

#endif // PROGRAM_OPTIONS_H
