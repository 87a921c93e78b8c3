/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "program-options.h"

#include "roce-helper.h"

#include "ns3/global-value.h"
#include "ns3/tn-error.h"
#include "ns3/tn-topology.h"
#include "ns3/uinteger.h"

#include <algorithm>
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
        if (tn_topology_parse_bytes(text.c_str(), text.size(), what.c_str(), bytes, &err) != TN_OK)
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
        if (tn_topology_parse_rate(text.c_str(), text.size(), what.c_str(), bps, &err) != TN_OK)
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
    m_cmd.AddValue(name, help, *value); // ns-3 reads --name, --name=true|false|1|0
}

const ProgramOptions::Option*
ProgramOptions::Find(const std::string& name) const
{
    for (const Option& o : m_options)
    {
        if (o.name == name)
        {
            return &o;
        }
    }
    return nullptr;
}

std::vector<std::string>
ProgramOptions::JoinValues(int argc, char* argv[]) const
{
    std::vector<std::string> args;
    for (int i = 0; i < argc; i++)
    {
        std::string arg = argv[i];
        const bool option = i > 0 && arg.size() > 2 && arg.compare(0, 2, "--") == 0 &&
                            arg.find('=') == std::string::npos;
        if (option && i + 1 < argc && std::string(argv[i + 1]).compare(0, 2, "--") != 0)
        {
            const std::string name = arg.substr(2);
            const Option* o = Find(name);
            // declared options and ns-3's attributes and globals take a value
            if ((o && !o->flag) || (!o && !IsNs3Switch(name)))
            {
                arg += "=";
                arg += argv[++i];
            }
        }
        args.push_back(arg);
    }
    return args;
}

void
ProgramOptions::AddMode(std::string* mode, const std::vector<std::string>& packetOnly)
{
    Option& o = m_options.emplace_back();
    o.name = "mode";
    o.text = *mode;
    o.convert = [mode](const std::string& text, std::string* why) {
        RoceHelper probe;
        if (!probe.SetMode(text))
        {
            *why = "--mode: '" + text + "' is not a simulation level (packet, flow)";
            return false;
        }
        *mode = text;
        return true;
    };
    m_cmd.AddValue("mode",
                   "simulation level: packet (RoCE packets, PFC, congestion control) or flow "
                   "(fluid flows, max-min fair links)",
                   o.text);
    m_mode = mode;
    m_packetOnly = packetOnly;
}

bool
ProgramOptions::Parse(int argc, char* argv[])
{
    std::vector<std::string> args = JoinValues(argc, argv);
    for (size_t i = 1; i < args.size(); i++)
    {
        if (args[i].compare(0, 2, "--") != 0)
        {
            continue;
        }
        const std::string name = args[i].substr(2, args[i].find('=') - 2);
        for (Option& o : m_options)
        {
            o.given = o.given || o.name == name;
        }
        if (name.compare(0, 5, "ns3::") == 0)
        {
            m_attributesGiven.push_back(name);
        }
    }
    m_cmd.Parse(args);
    bool ok = true;
    for (Option& o : m_options)
    {
        std::string why;
        if (o.convert && !o.convert(o.text, &why))
        {
            std::cerr << m_program << ": " << why << std::endl;
            ok = false;
        }
    }
    if (ok && m_mode && *m_mode == "flow")
    {
        for (const std::string& name : m_packetOnly)
        {
            if (IsGiven(name))
            {
                std::cerr << m_program << ": --" << name
                          << ": needs packet level, but --mode=flow (flow level has no "
                             "packets, PFC or switch buffers)"
                          << std::endl;
                ok = false;
            }
        }
        for (const std::string& attribute : m_attributesGiven)
        {
            if (RoceHelper::NeedsPackets(attribute))
            {
                std::cerr << m_program << ": --" << attribute
                          << ": needs packet level, but --mode=flow" << std::endl;
                ok = false;
            }
        }
    }
    std::string error;
    if (!CheckSeed(&error))
    {
        std::cerr << m_program << ": " << error << std::endl;
        ok = false;
    }
    return ok;
}

bool
ProgramOptions::IsGiven(const std::string& name) const
{
    const Option* o = Find(name);
    return o && o->given;
}

std::vector<std::string>
ProgramOptions::Split(const std::string& list)
{
    std::vector<std::string> items;
    std::string::size_type start = 0;
    while (start <= list.size())
    {
        const std::string::size_type comma = std::min(list.find(',', start), list.size());
        if (comma > start)
        {
            items.push_back(list.substr(start, comma - start));
        }
        start = comma + 1;
    }
    return items;
}

bool
ProgramOptions::CheckSeed(std::string* error)
{
    UintegerValue seed;
    GlobalValue::GetValueByName("RngSeed", seed);
    if (seed.Get() < 1 || seed.Get() > MAX_SEED)
    {
        *error = "--RngSeed: " + std::to_string(seed.Get()) + " is out of range: 1 to " +
                 std::to_string(MAX_SEED) + " (ns-3's MRG32k3a generator)";
        return false;
    }
    return true;
}

} // namespace ns3
