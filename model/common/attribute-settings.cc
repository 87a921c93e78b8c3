/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AttributeSettings and ScopedDefaults (contract in attribute-settings.h). Generic ns-3: they know
 * nothing of RoCE or collectives, so they live in model/common, the layer below model/roce,
 * where the HPCC config reader (model/roce) and the helpers (program options, scenario files)
 * all reach them without an include pointing up.
 */
#include "attribute-settings.h"

#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{

namespace
{

bool
HasSpace(const std::string& text)
{
    for (unsigned char c : text)
    {
        if (std::isspace(c) || c == 0)
        {
            return true;
        }
    }
    return false;
}

/// A finite real number that is the whole of `text` (no space, no unit).
bool
ParseReal(const std::string& text, double* value)
{
    if (text.empty() || HasSpace(text))
    {
        return false;
    }
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    *value = std::strtod(begin, &end);
    // hexadecimal, inf and nan are strtod's, not ns-3's
    return end == begin + text.size() && std::isfinite(*value) && errno != ERANGE &&
           text.find_first_of("xXnNiI") == std::string::npos;
}

/// Splits "1.5us" into "1.5" and "us" the way ns-3's Time and DataRate parsers do.
void
SplitUnit(const std::string& text, std::string* number, std::string* unit)
{
    const std::string::size_type n = text.find_first_not_of("+-0123456789.eE");
    *number = text.substr(0, n);
    *unit = n == std::string::npos ? "" : text.substr(n);
}

/// ns of one unit of ns-3's Time parser, or 0 for a unit it does not know.
double
TimeUnitNs(const std::string& unit)
{
    static const std::map<std::string, double> units = {{"", 1e9},
                                                        {"s", 1e9},
                                                        {"ms", 1e6},
                                                        {"us", 1e3},
                                                        {"ns", 1},
                                                        {"ps", 1e-3},
                                                        {"fs", 1e-6},
                                                        {"min", 60e9},
                                                        {"h", 3600e9},
                                                        {"d", 86400e9},
                                                        {"y", 365 * 86400e9}};
    auto it = units.find(unit);
    return it == units.end() ? 0 : it->second;
}

/// bit/s of one unit of ns-3's DataRate parser, or 0 for a unit it does not know.
double
RateUnitBps(const std::string& unit)
{
    if (unit.size() < 3)
    {
        return 0;
    }
    std::string prefix;
    double bits = 0;
    for (const char* suffix : {"bps", "b/s", "Bps", "B/s"})
    {
        const std::string s(suffix);
        if (unit.size() >= s.size() && unit.compare(unit.size() - s.size(), s.size(), s) == 0)
        {
            prefix = unit.substr(0, unit.size() - s.size());
            bits = s[0] == 'b' ? 1 : 8;
            break;
        }
    }
    static const std::map<std::string, double> prefixes = {{"", 1},
                                                           {"k", 1e3},
                                                           {"K", 1e3},
                                                           {"M", 1e6},
                                                           {"G", 1e9},
                                                           {"Ki", 1024.0},
                                                           {"Mi", 1048576.0},
                                                           {"Gi", 1073741824.0}};
    auto it = prefixes.find(prefix);
    return bits == 0 || it == prefixes.end() ? 0 : bits * it->second;
}

/// Tries the checker on the text in a child process: an abort there is a refusal.
bool
ProbeInChild(Ptr<const AttributeChecker> checker, const std::string& value)
{
    static std::map<std::pair<const AttributeChecker*, std::string>, bool> known;
    auto key = std::make_pair(PeekPointer(checker), value);
    auto it = known.find(key);
    if (it != known.end())
    {
        return it->second;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
    {
        return false; // cannot try it safely: refuse
    }
    if (pid == 0)
    {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
        {
            dup2(null, STDERR_FILENO);
            dup2(null, STDOUT_FILENO);
        }
        _exit(checker->CreateValidValue(StringValue(value)) ? 0 : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    known[key] = ok;
    return ok;
}

} // namespace

std::string
AttributeSettings::Quote(const std::string& text)
{
    if (text.size() <= MAX_QUOTED)
    {
        return "'" + text + "'";
    }
    return "'" + text.substr(0, MAX_QUOTED) + "'...(" + std::to_string(text.size() - MAX_QUOTED) +
           " more bytes)";
}

bool
AttributeSettings::CheckValue(Ptr<const AttributeChecker> checker,
                              const std::string& value,
                              std::string* expected)
{
    // some value types are named with the namespace, some without
    std::string type = checker->GetValueTypeName();
    type = type.compare(0, 5, "ns3::") == 0 ? type.substr(5) : type;
    bool textOk = true;
    if (type == "UintegerValue" || type == "IntegerValue")
    {
        const size_t start = type == "IntegerValue" && !value.empty() && value[0] == '-';
        textOk = value.size() > start && value.size() - start <= 20 &&
                 value.find_first_not_of("0123456789", start) == std::string::npos;
        *expected = type == "IntegerValue" ? "an integer" : "a whole number";
    }
    else if (type == "DoubleValue")
    {
        double d = 0;
        textOk = ParseReal(value, &d);
        *expected = "a real number";
    }
    else if (type == "TimeValue")
    {
        std::string number;
        std::string unit;
        SplitUnit(value, &number, &unit);
        double d = 0;
        const double ns = TimeUnitNs(unit);
        // ns-3's Time is a signed 64-bit count of its resolution (ns by default)
        textOk = ParseReal(number, &d) && ns > 0 && std::fabs(d * ns) < 4e18;
        *expected = "a time such as 10us (units s, ms, us, ns, ps, fs, min, h, d, y), within "
                    "ns-3's time range";
    }
    else if (type == "DataRateValue")
    {
        std::string number;
        std::string unit;
        SplitUnit(value, &number, &unit);
        double d = 0;
        const double bps = RateUnitBps(unit);
        textOk = ParseReal(number, &d) && d >= 0 && bps > 0 && d * bps < 1.8e19;
        *expected = "a data rate such as 100Gbps (bps, b/s, Bps, B/s with k, K, M, G, Ki, Mi, "
                    "Gi), below 2^64 bit/s";
    }
    else if (type == "BooleanValue" || type == "StringValue" || type == "EnumValue")
    {
        *expected = checker->GetUnderlyingTypeInformation();
    }
    else
    {
        *expected = checker->GetUnderlyingTypeInformation();
        return !HasSpace(value) && ProbeInChild(checker, value);
    }
    if (!textOk)
    {
        return false;
    }
    if (!checker->CreateValidValue(StringValue(value)))
    {
        // the text reads, the value is out of the attribute's range: say the range
        *expected = checker->GetUnderlyingTypeInformation();
        return false;
    }
    return true;
}

bool
AttributeSettings::Check(const std::string& typeName,
                         const std::string& attribute,
                         const std::string& value,
                         std::string* why)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        *why = "no ns-3 class '" + typeName + "'";
        return false;
    }
    // an obsolete attribute names where it went (its support message); ns-3's lookup would
    // abort on it, so it is found here first
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (uint32_t i = 0; i < t.GetAttributeN(); i++)
        {
            const TypeId::AttributeInformation& a = t.GetAttribute(i);
            if (a.name == attribute && a.supportLevel == TypeId::OBSOLETE)
            {
                *why = typeName + "::" + attribute + " is obsolete: " + a.supportMsg;
                return false;
            }
        }
        if (t.GetParent() == t)
        {
            break;
        }
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attribute, &info))
    {
        std::string names;
        for (uint32_t i = 0; i < tid.GetAttributeN(); i++)
        {
            if (tid.GetAttribute(i).supportLevel != TypeId::OBSOLETE)
            {
                names += (names.empty() ? "" : ", ") + tid.GetAttribute(i).name;
            }
        }
        *why = typeName + " has no attribute " + Quote(attribute) + " (it has: " + names + ")";
        return false;
    }
    if (!(info.flags & TypeId::ATTR_CONSTRUCT))
    {
        *why = typeName + "::" + attribute + " cannot be set as a default";
        return false;
    }
    std::string expected;
    if (!CheckValue(info.checker, value, &expected))
    {
        *why = Quote(value) + " is not a valid value for " + typeName + "::" + attribute +
               " (expected " + expected + ")";
        return false;
    }
    return true;
}

bool
AttributeSettings::CheckDefault(const std::string& fullName,
                                const std::string& value,
                                std::string* why)
{
    const std::string::size_type sep = fullName.rfind("::");
    if (fullName.compare(0, 5, "ns3::") != 0 || sep == std::string::npos || sep < 5 ||
        sep + 2 >= fullName.size())
    {
        *why = Quote(fullName) + " is not a full attribute name such as ns3::RdmaNic::Mtu";
        return false;
    }
    return Check(fullName.substr(0, sep), fullName.substr(sep + 2), value, why);
}

std::string
AttributeSettings::DescribeDefaults(TypeId tid, const std::vector<std::string>& names)
{
    auto describe = [&tid](uint32_t i) -> std::string {
        const TypeId::AttributeInformation info = tid.GetAttribute(i);
        if (info.supportLevel != TypeId::SUPPORTED || !(info.flags & TypeId::ATTR_CONSTRUCT) ||
            !info.initialValue)
        {
            return "";
        }
        return info.name + "=" + info.initialValue->SerializeToString(info.checker);
    };
    std::string text;
    auto append = [&text](const std::string& item) {
        if (!item.empty())
        {
            text += (text.empty() ? "" : " ") + item;
        }
    };
    if (names.empty())
    {
        for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            append(describe(i));
        }
        return text;
    }
    for (const std::string& name : names)
    {
        for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            if (tid.GetAttribute(i).name == name)
            {
                append(describe(i));
            }
        }
    }
    return text;
}

bool
AttributeSettings::CheckGlobal(const std::string& name, const std::string& value, std::string* why)
{
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() != name)
        {
            continue;
        }
        std::string expected;
        if (!CheckValue((*it)->GetChecker(), value, &expected))
        {
            *why =
                Quote(value) + " is not a valid value for " + name + " (expected " + expected + ")";
            return false;
        }
        if (name == "RngSeed" &&
            (value == "0" || std::strtoull(value.c_str(), nullptr, 10) > MAX_SEED))
        {
            *why = Quote(value) + " is out of range: 1 to " + std::to_string(MAX_SEED) +
                   " (ns-3's MRG32k3a generator)";
            return false;
        }
        return true;
    }
    *why = "no ns-3 global value " + Quote(name);
    return false;
}

ScopedDefaults::~ScopedDefaults()
{
    for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it)
    {
        Config::SetDefaultFailSafe(it->first, *it->second);
    }
}

bool
ScopedDefaults::Set(const std::string& fullName, const std::string& value, std::string* why)
{
    std::string ignored;
    if (!AttributeSettings::CheckDefault(fullName, value, why ? why : &ignored))
    {
        return false;
    }
    const std::string::size_type sep = fullName.rfind("::");
    TypeId tid = TypeId::LookupByName(fullName.substr(0, sep));
    TypeId::AttributeInformation info;
    tid.LookupAttributeByName(fullName.substr(sep + 2), &info);
    Ptr<const AttributeValue> previous = info.initialValue;
    if (!Config::SetDefaultFailSafe(fullName, StringValue(value)))
    {
        if (why)
        {
            *why = "ns-3 refused " + fullName + "=" + AttributeSettings::Quote(value);
        }
        return false;
    }
    m_saved.emplace_back(fullName, previous);
    return true;
}

} // namespace ns3
