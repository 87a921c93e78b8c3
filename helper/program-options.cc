/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "program-options.h"

#include "distributed-helper.h"
#include "roce-helper.h"

#include "ns3/global-value.h"
#include "ns3/tn-error.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-topology.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace ns3
{

namespace
{

/// Options of ns-3's own CommandLine that take no value.
bool
IsNs3Switch(const std::string& name)
{
    return name == "help" || name == "PrintHelp" || name == "PrintGlobals" ||
           name == "PrintGroups" || name == "PrintTypeIds" || name == "version" ||
           name == "PrintVersion";
}

/// Strict whole number in [min, max]: digits only; "what is wrong" in *why.
bool
ParseCount(const std::string& what,
           const std::string& text,
           uint64_t min,
           uint64_t max,
           uint64_t* out,
           std::string* why)
{
    uint64_t v = 0;
    bool tooLarge = false;
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            *why = what + " '" + text +
                   "' is not a whole number (digits only: no sign, unit, fraction or exponent)";
            return false;
        }
        const uint64_t d = static_cast<uint64_t>(c - '0');
        tooLarge = tooLarge || v > (UINT64_MAX - d) / 10;
        v = tooLarge ? v : v * 10 + d;
    }
    if (text.empty())
    {
        *why = what + ": a whole number is needed";
        return false;
    }
    if (tooLarge || v < min || v > max)
    {
        *why = what + " '" + text + "' is out of range: " + std::to_string(min) + " to " +
               std::to_string(max);
        return false;
    }
    *out = v;
    return true;
}

} // namespace

ProgramOptions::ProgramOptions(const std::string& program, const std::string& file)
    : m_program(program),
      m_cmd(file)
{
}

void
ProgramOptions::Usage(const std::string& usage)
{
    m_cmd.Usage(usage);
}

void
ProgramOptions::AddString(const std::string& name, const std::string& help, std::string* value)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.text = *value;
    o.convert = [value](const std::string& text, std::string*) {
        *value = text;
        return true;
    };
    m_cmd.AddValue(name, help, o.text);
}

void
ProgramOptions::AddBytes(const std::string& name, const std::string& help, uint64_t* bytes)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.text = std::to_string(*bytes);
    o.convert = [bytes, name](const std::string& text, std::string* why) {
        tn_error err{};
        const std::string what = "--" + name;
        if (tn_units_parse_bytes(text.c_str(), text.size(), what.c_str(), bytes, &err) != TN_OK)
        {
            *why = err.message;
            return false;
        }
        return true;
    };
    m_cmd.AddValue(name, help + " (bytes, or with a unit: KB, MB, GB, KiB, MiB, GiB)", o.text);
}

void
ProgramOptions::AddCount(const std::string& name,
                         const std::string& help,
                         uint64_t min,
                         uint64_t max,
                         uint64_t* value)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.text = std::to_string(*value);
    o.convert = [value, min, max, name](const std::string& text, std::string* why) {
        return ParseCount("--" + name, text, min, max, value, why);
    };
    m_cmd.AddValue(name, help, o.text);
}

void
ProgramOptions::AddCount(const std::string& name,
                         const std::string& help,
                         uint32_t min,
                         uint32_t max,
                         uint32_t* value)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.text = std::to_string(*value);
    o.convert = [value, min, max, name](const std::string& text, std::string* why) {
        uint64_t v = 0;
        if (!ParseCount("--" + name, text, min, max, &v, why))
        {
            return false;
        }
        *value = static_cast<uint32_t>(v);
        return true;
    };
    m_cmd.AddValue(name, help, o.text);
}

void
ProgramOptions::AddRate(const std::string& name, const std::string& help, uint64_t* bps)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.text = std::to_string(*bps) + "bps";
    o.convert = [bps, name](const std::string& text, std::string* why) {
        tn_error err{};
        const std::string what = "--" + name;
        if (tn_units_parse_rate(text.c_str(), text.size(), what.c_str(), bps, &err) != TN_OK)
        {
            *why = err.message;
            return false;
        }
        if (*bps == 0)
        {
            *why = what + ": a rate must be > 0";
            return false;
        }
        return true;
    };
    m_cmd.AddValue(name, help + " (a data rate: 100Gbps, 25Gb/s)", o.text);
}

void
ProgramOptions::AddFlag(const std::string& name, const std::string& help, bool* value)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.flag = true;
    o.text = *value ? "true" : "false";
    o.convert = [value, name](const std::string& text, std::string* why) {
        if (text == "true" || text == "1")
        {
            *value = true;
            return true;
        }
        if (text == "false" || text == "0")
        {
            *value = false;
            return true;
        }
        *why = "--" + name + ": " + AttributeSettings::Quote(text) +
               " is not true, false, 1 or 0 (a switch: --" + name + " alone means true)";
        return false;
    };
    m_cmd.AddValue(name, help, o.text);
}

void
ProgramOptions::AddList(const std::string& name,
                        const std::string& help,
                        std::vector<std::string>* items)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    for (const std::string& item : *items)
    {
        o.text += (o.text.empty() ? "" : ",") + item;
    }
    o.convert = [items, name](const std::string& text, std::string* why) {
        return Split("--" + name, text, items, why);
    };
    m_cmd.AddValue(name, help + " (comma-separated)", o.text);
}

void
ProgramOptions::AddRepeated(const std::string& name,
                            const std::string& help,
                            std::vector<std::string>* values)
{
    Option& o = m_options.emplace_back();
    o.name = name;
    o.convert = [values](const std::string& text, std::string*) {
        values->push_back(text);
        return true;
    };
    m_cmd.AddValue(name, help + " (repeatable)", o.text);
}

void
ProgramOptions::AddPositional(const std::string& name,
                              const std::string& help,
                              size_t min,
                              size_t max,
                              std::vector<std::string>* values)
{
    m_positional = values;
    m_positionalMin = min;
    m_positionalMax = max;
    m_positionalName = name;
    (void)help; // the program says what its arguments are in its Usage()
}

void
ProgramOptions::AddShortName(char letter, const std::string& name)
{
    m_shortNames.emplace_back(letter, name);
}

ProgramOptions::Option*
ProgramOptions::Find(const std::string& name)
{
    for (Option& o : m_options)
    {
        if (o.name == name)
        {
            return &o;
        }
    }
    return nullptr;
}

const ProgramOptions::Option*
ProgramOptions::Find(const std::string& name) const
{
    return const_cast<ProgramOptions*>(this)->Find(name);
}

bool
ProgramOptions::ParseOption(const std::vector<std::string>& args,
                            size_t* i,
                            std::vector<std::string>* ns3Args,
                            std::string* error)
{
    const std::string& arg = args[*i];
    const std::string::size_type eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const bool inline_ = eq != std::string::npos;
    if (name.empty())
    {
        *error = "an empty option name in " + AttributeSettings::Quote(arg);
        return false;
    }
    Option* o = Find(name);
    const bool attribute = name.compare(0, 5, "ns3::") == 0;
    const bool ns3Switch = IsNs3Switch(name);
    bool global = false;
    for (auto it = GlobalValue::Begin(); !o && !attribute && it != GlobalValue::End(); ++it)
    {
        global = global || (*it)->GetName() == name;
    }
    if (!o && !attribute && !ns3Switch && !global && name != "PrintAttributes" &&
        name != "PrintGroup")
    {
        *error = "unknown option " + AttributeSettings::Quote("--" + name) +
                 " (--help lists the options)";
        return false;
    }
    if (ns3Switch)
    {
        if (inline_)
        {
            *error = "--" + name + " takes no value";
            return false;
        }
        ns3Args->push_back(arg);
        return true;
    }
    std::string value;
    if (inline_)
    {
        value = arg.substr(eq + 1);
    }
    else if (o && o->flag)
    {
        value = "true";
    }
    else if (*i + 1 < args.size())
    {
        value = args[++*i];
    }
    else
    {
        *error = "--" + name + " needs a value";
        return false;
    }
    if (o)
    {
        o->given = true;
        return o->convert(value, error);
    }
    if (attribute)
    {
        if (!AttributeSettings::CheckDefault(name, value, error))
        {
            *error = "--" + name + ": " + *error;
            return false;
        }
        m_attributesGiven.push_back(name);
    }
    else if (global)
    {
        if (!AttributeSettings::CheckGlobal(name, value, error))
        {
            *error = "--" + name + ": " + *error;
            return false;
        }
    }
    else if (name == "PrintAttributes")
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(value, &tid))
        {
            *error = "--PrintAttributes: no ns-3 class " + AttributeSettings::Quote(value);
            return false;
        }
    }
    ns3Args->push_back("--" + name + "=" + value);
    return true;
}

void
ProgramOptions::AddMode(std::string* mode, const std::vector<std::string>& packetOnly)
{
    Option& o = m_options.emplace_back();
    o.name = "mode";
    o.text = *mode;
    o.convert = [mode](const std::string& text, std::string* why) {
        RoceFabric::Mode level;
        if (!RoceFabric::ParseMode(text, &level))
        {
            *why = "--mode: '" + text + "' is not a simulation level (" +
                   RoceFabric::ListModeNames() + ")";
            return false;
        }
        *mode = text;
        return true;
    };
    m_cmd.AddValue("mode",
                   "simulation level: packet (RoCE packets, PFC, congestion control), flow "
                   "(fluid flows, max-min fair links) or flow-symmetric (flow, NPU 0 running "
                   "for all NPUs of a symmetric collective)",
                   o.text);
    m_mode = mode;
    m_packetOnly = packetOnly;
}

bool
ProgramOptions::Parse(int argc, char* argv[])
{
    std::vector<std::string> args(argv, argv + argc);
    std::vector<std::string> ns3Args = {args.empty() ? m_program : args[0]};
    std::vector<std::string> positional;
    std::string error;
    bool ok = true;
    for (size_t i = 1; ok && i < args.size(); i++)
    {
        const std::string& arg = args[i];
        if (arg.size() >= 2 && arg.compare(0, 2, "--") == 0)
        {
            ok = ParseOption(args, &i, &ns3Args, &error);
            continue;
        }
        if (arg == "-h")
        {
            ns3Args.push_back("--help");
            continue;
        }
        if (arg.size() >= 2 && arg[0] == '-')
        {
            const Option* o = nullptr;
            for (const auto& s : m_shortNames)
            {
                o = s.first == arg[1] ? Find(s.second) : o;
            }
            if (!o)
            {
                error = "unknown option " + AttributeSettings::Quote(arg) +
                        " (--help lists the options)";
                ok = false;
                continue;
            }
            // "-j2" is "--jobs=2", "-j 2" is "--jobs 2"
            std::vector<std::string> longForm = {"--" + o->name};
            if (arg.size() > 2)
            {
                longForm[0] += "=" + arg.substr(2);
            }
            else if (i + 1 < args.size())
            {
                longForm.push_back(args[++i]);
            }
            size_t k = 0;
            ok = ParseOption(longForm, &k, &ns3Args, &error);
            continue;
        }
        if (!m_positional || positional.size() >= m_positionalMax)
        {
            error = "unexpected argument " + AttributeSettings::Quote(arg) +
                    (m_positional ? " (one " + m_positionalName + " at a time)"
                                  : " (options are --name=value)");
            ok = false;
            continue;
        }
        positional.push_back(arg);
    }
    for (const std::string& a : ns3Args)
    {
        if (a == "--help" || a == "--PrintHelp" || a.compare(0, 7, "--Print") == 0 ||
            a == "--version")
        {
            // ns-3 prints what was asked and exits
            m_cmd.Parse(std::vector<std::string>{ns3Args[0], a});
        }
    }
    if (ok && m_positional && positional.size() < m_positionalMin)
    {
        error = "missing " + m_positionalName + " (--help shows the usage)";
        ok = false;
    }
    if (ok && m_mode && RoceFabric::IsFlowMode(*m_mode))
    {
        for (const std::string& name : m_packetOnly)
        {
            if (ok && IsGiven(name))
            {
                error = "--" + name + ": needs packet level, but --mode=" + *m_mode +
                        " (flow level has no packets, PFC or switch buffers)";
                ok = false;
            }
        }
        for (const std::string& attribute : m_attributesGiven)
        {
            if (ok && RoceHelper::NeedsPackets(attribute))
            {
                error = "--" + attribute + ": needs packet level, but --mode=" + *m_mode;
                ok = false;
            }
        }
    }
    if (!ok)
    {
        std::cerr << ErrorLine(m_program, error) << std::endl;
        return false;
    }
    if (m_positional)
    {
        *m_positional = positional;
    }
    m_cmd.Parse(ns3Args);
    return true;
}

bool
ProgramOptions::IsGiven(const std::string& name) const
{
    const Option* o = Find(name);
    return o && o->given;
}

bool
ProgramOptions::Split(const std::string& what,
                      const std::string& list,
                      std::vector<std::string>* items,
                      std::string* error)
{
    items->clear();
    std::string::size_type start = 0;
    while (start <= list.size())
    {
        const std::string::size_type comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        if (item.empty())
        {
            *error = what + ": " + AttributeSettings::Quote(list) + " has an empty item" +
                     (list.empty() ? " (give at least one)" : "");
            return false;
        }
        if (item.find_first_of(" \t\n\r\v\f") != std::string::npos)
        {
            *error = what + ": " + AttributeSettings::Quote(item) + " has a space";
            return false;
        }
        items->push_back(item);
        start = comma + 1;
    }
    return true;
}

std::string
ProgramOptions::ErrorLine(const std::string& program, const std::string& message)
{
    std::string line = program + ": " + message;
    for (char& c : line)
    {
        c = c == '\n' || c == '\r' ? ' ' : c;
    }
    if (line.size() > MAX_ERROR_LINE)
    {
        line = line.substr(0, MAX_ERROR_LINE - 3) + "...";
    }
    return line;
}

bool
ProgramOptions::CheckSeed(std::string* error)
{
    UintegerValue seed;
    GlobalValue::GetValueByName("RngSeed", seed);
    if (!AttributeSettings::CheckGlobal("RngSeed", std::to_string(seed.Get()), error))
    {
        *error = "--RngSeed: " + *error;
        return false;
    }
    return true;
}

void
ProgramOptions::WatchSignals()
{
    tn_error err{};
    // a process that cannot catch signals is killed by them, as it was: no reason to stop
    tn_signal_watch(&err);
}

void
ProgramOptions::Recorded(int64_t runId, const std::string& status)
{
    m_lastRunId = runId;
    m_lastRunStatus = status;
}

int
ProgramOptions::ExitStatus(int status) const
{
    // under mpirun every rank exits with the same status, and rank 0 alone says why
    const int late = int(DistributedHelper::MaxAll(tn_signal_pending()));
    if (!late)
    {
        return status;
    }
    if (status == 0 && DistributedHelper::GetRank() == 0)
    {
        std::fflush(stdout);
        std::cout.flush();
        std::cerr << m_program << ": interrupted";
        if (m_lastRunId >= 0)
        {
            std::cerr << " after run " << m_lastRunId << " was recorded (" << m_lastRunStatus
                      << ")";
        }
        std::cerr << std::endl;
    }
    return tn_signal_exit_status(late);
}

} // namespace ns3
