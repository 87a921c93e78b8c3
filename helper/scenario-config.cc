/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ScenarioConfig (contract in scenario-config.h). Over 1,000 lines for a reason: this file is
 * the schema of the scenario format. Every table and key is read and checked in one place
 * (ReadPoint alone is some 360 lines), so a key's name, type, range and error message stand
 * together; sweeps and their expansion are the rest.
 */
#include "scenario-config.h"

#include "distributed-helper.h"
#include "roce-helper.h"

#include "ns3/attribute-settings.h"
#include "ns3/attribute.h"
#include "ns3/log.h"
#include "ns3/npu-endpoint.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-chakra.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"
#include "ns3/tn-workload.h"
#include "ns3/training-helper.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioConfig");

namespace
{

/// A validation failure; its text is the whole message.
struct ScenarioError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

std::string
TypeName(const toml::node& n)
{
    switch (n.type())
    {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "a list";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a real number";
    case toml::node_type::boolean:
        return "a boolean";
    default:
        return "a date or time";
    }
}

std::string
JsonString(const std::string& s)
{
    std::string out = "\"";
    for (unsigned char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
            out += static_cast<char>(c);
        }
        else if (c < 0x20)
        {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out += buf;
        }
        else
        {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

/// A plain value as text: what ns-3 attributes and sweep labels show.
std::string
ValueText(const toml::node& n)
{
    if (auto s = n.as_string())
    {
        return s->get();
    }
    if (auto i = n.as_integer())
    {
        return std::to_string(i->get());
    }
    if (auto b = n.as_boolean())
    {
        return b->get() ? "true" : "false";
    }
    if (auto f = n.as_floating_point())
    {
        std::ostringstream out;
        out.precision(17);
        out << f->get();
        return out.str();
    }
    return TypeName(n); // dates and times: no key takes one
}

std::string
ValueJson(const toml::node& n)
{
    if (n.is_string())
    {
        return JsonString(n.as_string()->get());
    }
    if (n.is_integer() || n.is_boolean())
    {
        return ValueText(n);
    }
    if (auto f = n.as_floating_point())
    {
        return std::isfinite(f->get()) ? ValueText(n) : JsonString(ValueText(n));
    }
    return JsonString(ValueText(n));
}

std::string
DirName(const std::string& path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

std::string
BaseName(const std::string& path)
{
    size_t slash = path.rfind('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    size_t dot = base.rfind('.');
    return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

/// A sweep axis: a list of plain values somewhere in the scenario.
struct Axis
{
    std::string path;
    const toml::array* values;
    uint32_t line; //!< 0 for a --set list (those come last)
    uint32_t column;
};

} // namespace

struct ScenarioConfig::Impl
{
    std::string file;    //!< the scenario file, as messages name it
    std::string baseDir; //!< relative paths in the file start here
    toml::table root;
    bool loaded{false};
    std::map<const toml::node*, std::string> origin; //!< nodes that came from --set
    std::string database; //!< SetDatabase: replaces every point's database

    std::string Where(const toml::node* n) const
    {
        if (n)
        {
            auto it = origin.find(n);
            if (it != origin.end())
            {
                return file + ": " + it->second;
            }
            if (n->source().begin.line > 0)
            {
                return file + ":" + std::to_string(n->source().begin.line) + ":" +
                       std::to_string(n->source().begin.column);
            }
        }
        return file;
    }

    void MarkOrigin(const toml::node& n, const std::string& text)
    {
        origin[&n] = text;
        if (auto a = n.as_array())
        {
            for (const toml::node& e : *a)
            {
                MarkOrigin(e, text);
            }
        }
        else if (auto t = n.as_table())
        {
            for (auto&& kv : *t)
            {
                MarkOrigin(kv.second, text);
            }
        }
    }

    void FindAxes(const toml::table& t, const std::string& prefix, std::vector<Axis>* axes) const;
};

void
ScenarioConfig::Impl::FindAxes(const toml::table& t,
                               const std::string& prefix,
                               std::vector<Axis>* axes) const
{
    for (auto&& kv : t)
    {
        const std::string path = prefix + std::string(kv.first.str());
        const toml::node& v = kv.second;
        if (prefix.empty() && path == "test")
        {
            continue; // overrides for --test-size, not part of the run
        }
        if (auto sub = v.as_table())
        {
            FindAxes(*sub, path + ".", axes);
            continue;
        }
        auto arr = v.as_array();
        if (!arr)
        {
            continue;
        }
        if (arr->empty())
        {
            throw ScenarioError(Where(&v) + ": " + path +
                                ": an empty list: a sweep needs at least one value");
        }
        if (arr->is_array_of_tables())
        {
            for (size_t i = 0; i < arr->size(); i++)
            {
                FindAxes(*arr->get(i)->as_table(), path + "[" + std::to_string(i) + "].", axes);
            }
            continue;
        }
        for (const toml::node& e : *arr)
        {
            if (e.is_array() || e.is_table())
            {
                throw ScenarioError(Where(&e) + ": " + path + ": a sweep lists plain values, not " +
                                    TypeName(e));
            }
        }
        auto it = origin.find(&v);
        axes->push_back({path,
                         arr,
                         it != origin.end() ? 0 : v.source().begin.line,
                         it != origin.end() ? 0 : v.source().begin.column});
    }
}

namespace
{

/// Reads one sweep point: every list value resolves to the point's choice.
class PointReader
{
  public:
    PointReader(const ScenarioConfig::Impl& cfg, const std::map<const toml::node*, size_t>& choice)
        : m_cfg(cfg),
          m_choice(choice)
    {
    }

    const toml::node* Resolve(const toml::node* n) const
    {
        if (n && n->is_array() && !n->as_array()->is_array_of_tables())
        {
            auto it = m_choice.find(n);
            if (it != m_choice.end())
            {
                return n->as_array()->get(it->second);
            }
        }
        return n;
    }

    [[noreturn]] void Fail(const toml::node* n,
                           const std::string& path,
                           const std::string& what) const
    {
        throw ScenarioError(m_cfg.Where(n) + ": " + (path.empty() ? "" : path + ": ") + what);
    }

    void Param(const std::string& path, const std::string& json)
    {
        m_params.emplace_back(path, json);
    }

    const ScenarioConfig::Impl& Config() const
    {
        return m_cfg;
    }

    std::string ParamsJson(const ScenarioPoint& p) const
    {
        std::string out = "{\"scenario\":" + JsonString(p.scenarioFile) +
                          ",\"point\":" + std::to_string(p.index) +
                          ",\"sweep\":" + JsonString(p.label);
        for (const auto& kv : m_params)
        {
            out += "," + JsonString(kv.first) + ":" + kv.second;
        }
        return out + "}";
    }

  private:
    const ScenarioConfig::Impl& m_cfg;
    const std::map<const toml::node*, size_t>& m_choice;
    std::vector<std::pair<std::string, std::string>> m_params;
};

/// Typed access to one table of a point; Done() refuses the keys nobody asked for.
class TableReader
{
  public:
    TableReader(PointReader& r, const toml::table* t, std::string path)
        : m_r(r),
          m_t(t),
          m_path(std::move(path))
    {
    }

    std::string Path(const std::string& key) const
    {
        return m_path.empty() ? key : m_path + "." + key;
    }

    /// The value of key (a sweep resolved), or null; key becomes known.
    const toml::node* Get(const std::string& key)
    {
        m_known.push_back(key);
        const toml::node* n = m_t ? m_t->get(key) : nullptr;
        const toml::node* v = m_r.Resolve(n);
        if (v && (v->is_table() || v->is_array()))
        {
            m_r.Fail(v, Path(key), "expected a value, got " + TypeName(*v));
        }
        return v;
    }

    /// A key read elsewhere (a sub-table) is known to Done().
    void Known(const std::string& key)
    {
        m_known.push_back(key);
    }

    std::string String(const std::string& key, const std::string& def)
    {
        const toml::node* n = Get(key);
        if (!n)
        {
            m_r.Param(Path(key), JsonString(def));
            return def;
        }
        if (!n->is_string())
        {
            m_r.Fail(n, Path(key), "expected a string, got " + TypeName(*n));
        }
        m_r.Param(Path(key), ValueJson(*n));
        return n->as_string()->get();
    }

    std::string Choice(const std::string& key,
                       const std::string& def,
                       const std::vector<std::string>& choices)
    {
        const toml::node* n = m_t ? m_r.Resolve(m_t->get(key)) : nullptr;
        std::string v = String(key, def);
        if (std::find(choices.begin(), choices.end(), v) == choices.end())
        {
            std::string list;
            for (const std::string& c : choices)
            {
                list += (list.empty() ? "" : ", ") + c;
            }
            m_r.Fail(n, Path(key), "'" + v + "' is not one of " + list);
        }
        return v;
    }

    uint64_t Uint(const std::string& key, uint64_t def, uint64_t min, uint64_t max)
    {
        const toml::node* n = Get(key);
        if (!n)
        {
            m_r.Param(Path(key), std::to_string(def));
            return def;
        }
        if (!n->is_integer())
        {
            m_r.Fail(n, Path(key), "expected an integer, got " + TypeName(*n));
        }
        int64_t v = n->as_integer()->get();
        if (v < 0 || uint64_t(v) < min || uint64_t(v) > max)
        {
            m_r.Fail(n,
                     Path(key),
                     std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
        }
        m_r.Param(Path(key), std::to_string(v));
        return uint64_t(v);
    }

    bool Bool(const std::string& key, bool def)
    {
        const toml::node* n = Get(key);
        if (!n)
        {
            m_r.Param(Path(key), def ? "true" : "false");
            return def;
        }
        if (!n->is_boolean())
        {
            m_r.Fail(n, Path(key), "expected true or false, got " + TypeName(*n));
        }
        m_r.Param(Path(key), ValueJson(*n));
        return n->as_boolean()->get();
    }

    /// A size: an integer of bytes or a string with a unit ("4MiB"), at most TN_BYTES_MAX.
    uint64_t Bytes(const std::string& key, uint64_t def, bool required)
    {
        const toml::node* n = Get(key);
        uint64_t bytes = def;
        if (!n)
        {
            if (required)
            {
                Missing(key);
            }
        }
        else if (n->is_integer())
        {
            int64_t v = n->as_integer()->get();
            if (v < 0 || uint64_t(v) > TN_BYTES_MAX)
            {
                m_r.Fail(n, Path(key), std::to_string(v) + " bytes is out of range [0, 2^62]");
            }
            bytes = uint64_t(v);
        }
        else if (n->is_string())
        {
            tn_error err{};
            const std::string& s = n->as_string()->get();
            if (tn_topology_parse_bytes(s.c_str(), s.size(), key.c_str(), &bytes, &err) != TN_OK)
            {
                m_r.Fail(n, Path(key), err.message);
            }
        }
        else
        {
            m_r.Fail(n,
                     Path(key),
                     "expected a size (an integer of bytes or a string such as \"4MiB\"), got " +
                         TypeName(*n));
        }
        m_r.Param(Path(key), std::to_string(bytes));
        return bytes;
    }

    /// A time: a string with a unit ("10us"), in ns.
    uint64_t TimeNs(const std::string& key, uint64_t def)
    {
        const toml::node* n = Get(key);
        uint64_t ns = def;
        if (n)
        {
            if (!n->is_string())
            {
                m_r.Fail(n,
                         Path(key),
                         "expected a time with a unit such as \"10us\", got " + TypeName(*n));
            }
            tn_error err{};
            const std::string& s = n->as_string()->get();
            if (tn_topology_parse_time(s.c_str(), s.size(), key.c_str(), &ns, &err) != TN_OK)
            {
                m_r.Fail(n, Path(key), err.message);
            }
            // ns-3 Time is signed 64-bit ns: refuse what it cannot hold.
            if (ns > uint64_t(INT64_MAX) / 2)
            {
                m_r.Fail(n, Path(key), "'" + s + "' is beyond ns-3's time range");
            }
        }
        m_r.Param(Path(key), std::to_string(ns));
        return ns;
    }

    [[noreturn]] void Missing(const std::string& key) const
    {
        const toml::node* where = m_t;
        m_r.Fail(where, Path(key), "missing (required)");
    }

    /// Every key of the table, for the tables whose keys are free ([roce], [npu]).
    std::vector<std::pair<std::string, const toml::node*>> All()
    {
        std::vector<std::pair<std::string, const toml::node*>> out;
        if (m_t)
        {
            for (auto&& kv : *m_t)
            {
                out.emplace_back(std::string(kv.first.str()), &kv.second);
            }
        }
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
            return a.second->source().begin < b.second->source().begin;
        });
        for (auto& kv : out)
        {
            m_known.push_back(kv.first);
        }
        return out;
    }

    /// Fails on a key that no getter asked for (a typo, a key of another table).
    void Done() const
    {
        if (!m_t)
        {
            return;
        }
        for (auto&& kv : *m_t)
        {
            const std::string key(kv.first.str());
            if (std::find(m_known.begin(), m_known.end(), key) != m_known.end())
            {
                continue;
            }
            std::string known;
            for (const std::string& k : m_known)
            {
                known += (known.empty() ? "" : ", ") + k;
            }
            const toml::node* at = &kv.second;
            std::string where = m_r.Config().Where(at);
            if (m_r.Config().origin.count(at) == 0 && kv.first.source().begin.line > 0)
            {
                where = m_r.Config().file + ":" + std::to_string(kv.first.source().begin.line) +
                        ":" + std::to_string(kv.first.source().begin.column);
            }
            throw ScenarioError(where + ": " + Path(key) + ": unknown key (" +
                                (m_path.empty() ? "top level" : "[" + m_path + "]") +
                                " keys: " + known + ")");
        }
    }

  private:
    PointReader& m_r;
    const toml::table* m_t;
    std::string m_path;
    std::vector<std::string> m_known;
};

/// A sub-table of the root: absent is fine, another type is not.
const toml::table*
SubTable(const PointReader& r, const toml::table& root, const std::string& key)
{
    const toml::node* n = root.get(key);
    if (!n)
    {
        return nullptr;
    }
    if (!n->is_table())
    {
        r.Fail(n, key, "expected a table [" + key + "], got " + TypeName(*n));
    }
    return n->as_table();
}

/// An ns-3 attribute value checked by the one validator (AttributeSettings).
void
CheckAttribute(const PointReader& r,
               const toml::node* n,
               const std::string& path,
               const std::string& className,
               const std::string& attribute,
               const std::string& value)
{
    std::string why;
    if (!AttributeSettings::Check(className, attribute, value, &why))
    {
        r.Fail(n, path, why);
    }
}

} // namespace

ScenarioConfig::ScenarioConfig()
    : m_impl(new Impl)
{
}

ScenarioConfig::~ScenarioConfig() = default;

bool
ScenarioConfig::Load(const std::string& path, std::string* error)
{
    NS_LOG_FUNCTION(this << path);
    m_impl->file = path;
    m_impl->baseDir = DirName(path);
    try
    {
        m_impl->root = toml::parse_file(path);
    }
    catch (const toml::parse_error& e)
    {
        const auto& b = e.source().begin;
        std::string desc(e.description());
        if (b.line == 0)
        {
            *error = path + ": " + desc;
        }
        else
        {
            *error = path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                     ": malformed TOML: " + desc;
        }
        return false;
    }
    m_impl->loaded = true;
    return true;
}

bool
ScenarioConfig::LoadText(const std::string& text, const std::string& name, std::string* error)
{
    m_impl->file = name;
    m_impl->baseDir = "";
    try
    {
        m_impl->root = toml::parse(text, name);
    }
    catch (const toml::parse_error& e)
    {
        const auto& b = e.source().begin;
        *error = name + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                 ": malformed TOML: " + std::string(e.description());
        return false;
    }
    m_impl->loaded = true;
    return true;
}

namespace
{

/// "collective[2]" -> ("collective", 2); "collective" -> ("collective", -1).
bool
SplitIndex(const std::string& seg, std::string* name, int64_t* index)
{
    size_t open = seg.find('[');
    if (open == std::string::npos)
    {
        *name = seg;
        *index = -1;
        return !seg.empty();
    }
    if (seg.back() != ']' || open == 0 || open + 2 > seg.size() - 1)
    {
        return false;
    }
    *name = seg.substr(0, open);
    const std::string digits = seg.substr(open + 1, seg.size() - open - 2);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    *index = std::stoll(digits);
    return true;
}

} // namespace

static bool
SetNode(ScenarioConfig::Impl& cfg,
        const std::string& key,
        const toml::node& value,
        const std::string& originText,
        std::string* error)
{
    const std::string where = cfg.file + ": " + originText + ": ";
    size_t dot = key.find('.');
    std::vector<toml::table*> targets;
    std::string leaf;
    if (dot == std::string::npos)
    {
        targets.push_back(&cfg.root);
        leaf = key;
    }
    else
    {
        std::string name;
        int64_t index = -1;
        if (!SplitIndex(key.substr(0, dot), &name, &index))
        {
            *error = where + "'" + key + "' is not a key (table.key or collective[N].key)";
            return false;
        }
        leaf = key.substr(dot + 1);
        toml::node* n = cfg.root.get(name);
        if (name == "collective")
        {
            toml::array* list = n ? n->as_array() : nullptr;
            if (!list || !list->is_array_of_tables() || list->empty())
            {
                *error = where + "the scenario has no [[collective]] to set '" + leaf + "' in";
                return false;
            }
            for (size_t i = 0; i < list->size(); i++)
            {
                if (index < 0 || size_t(index) == i)
                {
                    targets.push_back(list->get(i)->as_table());
                }
            }
            if (targets.empty())
            {
                *error = where + "there is no collective[" + std::to_string(index) + "] (the " +
                         "scenario has " + std::to_string(list->size()) + ")";
                return false;
            }
        }
        else
        {
            if (index >= 0)
            {
                *error = where + "only [[collective]] takes an index";
                return false;
            }
            if (!n)
            {
                cfg.root.insert_or_assign(name, toml::table{});
                n = cfg.root.get(name);
            }
            if (!n->is_table())
            {
                *error = where + "'" + name + "' is not a table";
                return false;
            }
            targets.push_back(n->as_table());
        }
    }
    if (leaf.empty())
    {
        *error = where + "no key after the table name";
        return false;
    }
    for (toml::table* t : targets)
    {
        toml::node* old = t->get(leaf);
        if (old && (old->is_table() || (old->is_array() && old->as_array()->is_array_of_tables())))
        {
            *error = where + "'" + key + "' is a table, set its keys instead";
            return false;
        }
        // Copy through a one-element array: toml++ copies any node kind that way.
        toml::array holder;
        holder.push_back(value);
        t->insert_or_assign(leaf, std::move(*holder.get(0)));
        cfg.MarkOrigin(*t->get(leaf), originText);
    }
    return true;
}

bool
ScenarioConfig::Set(const std::string& assignment, std::string* error)
{
    NS_LOG_FUNCTION(this << assignment);
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        *error = "--set " + AttributeSettings::Quote(assignment) + ": expected KEY=VALUE";
        return false;
    }
    const std::string key = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    // messages name the override; a long one shortened, so an error stays one readable line
    const std::string shown =
        assignment.size() <= AttributeSettings::MAX_QUOTED
            ? assignment
            : assignment.substr(0, AttributeSettings::MAX_QUOTED) + "...(" +
                  std::to_string(assignment.size() - AttributeSettings::MAX_QUOTED) +
                  " more bytes)";
    toml::table parsed;
    bool isToml = false;
    try
    {
        parsed = toml::parse("v = " + text);
        isToml = parsed.size() == 1 && parsed.get("v");
    }
    catch (const toml::parse_error&)
    {
        isToml = false;
    }
    if (isToml)
    {
        return SetNode(*m_impl, key, *parsed.get("v"), "--set " + shown, error);
    }
    toml::value<std::string> s(text);
    return SetNode(*m_impl, key, s, "--set " + shown, error);
}

bool
ScenarioConfig::ApplyTestSize(std::string* error)
{
    toml::node* t = m_impl->root.get("test");
    if (!t)
    {
        *error = m_impl->file + ": --test-size: the scenario has no [test] table";
        return false;
    }
    if (!t->is_table())
    {
        *error = m_impl->Where(t) + ": test: expected a table [test] of \"key\" = value";
        return false;
    }
    // Copy first: SetNode may replace nodes of the root while we iterate.
    std::vector<std::pair<std::string, toml::array>> sets;
    for (auto&& kv : *t->as_table())
    {
        toml::array holder;
        holder.push_back(kv.second);
        sets.emplace_back(std::string(kv.first.str()), std::move(holder));
    }
    for (auto& kv : sets)
    {
        if (kv.first == "test" || kv.first.rfind("test.", 0) == 0)
        {
            *error = m_impl->file + ": [test]: '" + kv.first + "' cannot override [test]";
            return false;
        }
        if (!SetNode(*m_impl, kv.first, *kv.second.get(0), "[test] " + kv.first, error))
        {
            return false;
        }
    }
    return true;
}

uint64_t
ScenarioConfig::CountPoints() const
{
    std::vector<Axis> axes;
    try
    {
        m_impl->FindAxes(m_impl->root, "", &axes);
    }
    catch (const ScenarioError&)
    {
        return 0;
    }
    uint64_t n = 1;
    for (const Axis& a : axes)
    {
        n = n > UINT64_MAX / a.values->size() ? UINT64_MAX : n * a.values->size();
    }
    return n;
}

namespace
{

/// Topologies built while validating, by spec or file, so a sweep builds each once.
class TopologyCache
{
  public:
    ~TopologyCache()
    {
        for (auto& kv : m_topos)
        {
            tn_topology_destroy(kv.second);
        }
    }

    const tn_topology* Get(const std::string& key, bool isFile, std::string* error)
    {
        auto it = m_topos.find(key);
        if (it != m_topos.end())
        {
            return it->second;
        }
        tn_error err{};
        tn_topology* t = nullptr;
        tn_status st = isFile ? tn_topology_load_file(key.c_str(), &t, &err)
                              : tn_topology_from_spec(key.c_str(), &t, &err);
        if (st != TN_OK)
        {
            *error = err.message;
            return nullptr;
        }
        m_topos[key] = t;
        return t;
    }

  private:
    std::map<std::string, tn_topology*> m_topos;
};

/**
 * [training] chakra: this build reads Chakra traces, the run is in one process, and the
 * traces PREFIX.<rank>.et of the topology's NPUs read and check together (tn-chakra.h).
 */
void
CheckChakra(PointReader& r,
            const toml::node* where,
            const std::string& prefix,
            uint32_t npus,
            uint32_t ranks)
{
    if (!tn_chakra_supported())
    {
        r.Fail(where,
               "training.chakra",
               "Chakra traces need protobuf-c, and training-net was built without it "
               "(apt-get install libprotobuf-c-dev, then configure again)");
    }
    if (ranks > 1)
    {
        r.Fail(where,
               "training.chakra",
               "Chakra traces run in one process, not over " + std::to_string(ranks) +
                   " MPI ranks");
    }
    std::vector<tn_chakra_trace*> traces;
    std::string error;
    for (uint32_t k = 0; k < npus && error.empty(); k++)
    {
        const std::string path = prefix + "." + std::to_string(k) + ".et";
        tn_error err{};
        tn_chakra_trace* trace = nullptr;
        if (tn_chakra_load_file(path.c_str(), &trace, &err) != TN_OK)
        {
            error = err.message;
        }
        traces.push_back(trace);
    }
    tn_error err{};
    if (error.empty() && tn_chakra_check(traces.data(), npus, &err) != TN_OK)
    {
        error = err.message;
    }
    if (error.empty())
    {
        error = TrainingHelper::ExtraTraces(prefix, npus);
    }
    for (tn_chakra_trace* trace : traces)
    {
        tn_chakra_destroy(trace);
    }
    if (!error.empty())
    {
        r.Fail(where, "training.chakra", error);
    }
}

ScenarioPoint
ReadPoint(const ScenarioConfig::Impl& cfg,
          const std::map<const toml::node*, size_t>& choice,
          uint32_t index,
          const std::string& label,
          TopologyCache* topologies)
{
    PointReader r(cfg, choice);
    ScenarioPoint p;
    p.index = index;
    p.label = label;
    p.scenarioFile = cfg.file;

    TableReader top(r, &cfg.root, "");
    p.name = top.String("name", BaseName(cfg.file));
    p.seed = uint32_t(top.Uint("seed", 1, 1, AttributeSettings::MAX_SEED));
    p.run = top.Uint("run", 1, 0, UINT64_MAX >> 1);
    p.database = top.String("database", "results.db");
    if (p.database.empty())
    {
        r.Fail(cfg.root.get("database"), "database", "an empty path");
    }
    p.routing = top.Choice("routing", "planned", {"planned", "ecmp"});
    p.mode = top.Choice("mode", "packet", {"packet", "flow", "flow-symmetric"});
    p.verify = top.Bool("verify", true);

    // [topology]: a generator spec or a file.
    const toml::table* topoTable = SubTable(r, cfg.root, "topology");
    top.Known("topology");
    if (!topoTable)
    {
        r.Fail(nullptr, "topology", "missing table [topology] (spec = \"...\" or file = \"...\")");
    }
    TableReader topo(r, topoTable, "topology");
    p.topologySpec = topo.String("spec", "");
    std::string file = topo.String("file", "");
    topo.Done();
    if (p.topologySpec.empty() == file.empty())
    {
        r.Fail(topoTable,
               "topology",
               p.topologySpec.empty() ? "give spec = \"...\" or file = \"...\""
                                      : "give spec or file, not both");
    }
    if (!file.empty())
    {
        p.topologyFile = file[0] == '/' ? file : cfg.baseDir + file;
    }
    std::string topoError;
    const tn_topology* t = p.topologyFile.empty()
                               ? topologies->Get(p.topologySpec, false, &topoError)
                               : topologies->Get(p.topologyFile, true, &topoError);
    if (!t)
    {
        r.Fail(r.Resolve(topoTable->get(p.topologyFile.empty() ? "spec" : "file")),
               p.topologyFile.empty() ? "topology.spec" : "topology.file",
               topoError);
    }
    // partition: the nodes of each MPI rank. A distributed run needs as many ranks as it
    // has; a run in one process checks it against its own number of ranks and does not use
    // it, so that one scenario runs both ways.
    const uint32_t ranks = DistributedHelper::GetSize();
    RoceHelper fabric;
    if (const toml::node* n = top.Get("partition"))
    {
        if (!n->is_string())
        {
            r.Fail(n, "partition", "expected a string, got " + TypeName(*n));
        }
        const std::string text = n->as_string()->get();
        const uint32_t named = 1 + uint32_t(std::count(text.begin(), text.end(), ';'));
        const uint32_t partRanks = ranks > 1 ? ranks : named;
        std::vector<uint32_t> partition;
        std::string why =
            RoceHelper::ParsePartition(text, tn_topology_node_count(t), partRanks, &partition);
        if (why.empty())
        {
            RoceHelper placed;
            placed.SetPartition(partition);
            std::vector<uint32_t> checked;
            why = placed.MakePartition(t, partRanks, &checked);
        }
        if (!why.empty())
        {
            // RoceHelper's reasons begin with the word the key already says
            const std::string prefix = "partition: ";
            r.Fail(n,
                   "partition",
                   why.compare(0, prefix.size(), prefix) == 0 ? why.substr(prefix.size()) : why);
        }
        r.Param("partition", ValueJson(*n));
        if (ranks > 1)
        {
            p.partition = partition;
            fabric.SetPartition(partition);
        }
    }
    if (ranks > 1 && RoceHelper::IsFlowMode(p.mode))
    {
        r.Fail(r.Resolve(cfg.root.get("mode")),
               "mode",
               "the flow level runs in one process, not over " + std::to_string(ranks) +
                   " MPI ranks");
    }
    fabric.SetMode(p.mode); // flow-symmetric checks the topology's translations
    if (std::string why = fabric.Check(t); !why.empty())
    {
        r.Fail(r.Resolve(topoTable->get(p.topologyFile.empty() ? "spec" : "file")),
               p.topologyFile.empty() ? "topology.spec" : "topology.file",
               why);
    }
    if (tn_topology_npu_count(t) == 0)
    {
        r.Fail(r.Resolve(topoTable->get(p.topologyFile.empty() ? "spec" : "file")),
               p.topologyFile.empty() ? "topology.spec" : "topology.file",
               "the topology has no NPU");
    }

    // [roce]: any ns-3 attribute by its full name, set as a default before the fabric is built.
    const toml::table* roceTable = SubTable(r, cfg.root, "roce");
    top.Known("roce");
    TableReader roce(r, roceTable, "roce");
    std::vector<std::pair<std::string, const toml::node*>> roceNodes; //!< key, its value
    for (const auto& kv : roce.All())
    {
        const std::string path = "roce." + kv.first;
        const toml::node* v = r.Resolve(kv.second);
        if (v->is_table() || v->is_array())
        {
            r.Fail(v, path, "expected a value, got " + TypeName(*v));
        }
        if (kv.first == "cc")
        {
            // the congestion control by its short name (RdmaNic::CongestionControl)
            const std::string name = v->is_string() ? v->as_string()->get() : std::string();
            RdmaNic::CongestionControlType type;
            if (!v->is_string() || !RdmaNic::ParseCongestionControl(name, &type))
            {
                r.Fail(v,
                       path,
                       "expected a congestion control: dcqcn, hpcc, hpcc-pint, timely, dctcp or "
                       "none");
            }
            if (RoceHelper::IsFlowMode(p.mode))
            {
                r.Fail(v,
                       path,
                       "needs packet level, but mode = \"" + p.mode +
                           "\" (flow level has no congestion control)");
            }
            p.roce.emplace_back("ns3::RdmaNic::CongestionControl", name);
            r.Param(path, ValueJson(*v));
            roceNodes.emplace_back(kv.first, v);
            continue;
        }
        const std::string value = ValueText(*v);
        if (std::string why; !AttributeSettings::CheckDefault(kv.first, value, &why))
        {
            r.Fail(v, path, why);
        }
        if (RoceHelper::IsFlowMode(p.mode) && RoceHelper::NeedsPackets(kv.first))
        {
            r.Fail(v,
                   path,
                   "needs packet level, but mode = \"" + p.mode +
                       "\" (flow level has no packets, "
                       "switch buffers, PFC or congestion control; ns3::RdmaNic::Mtu, "
                       "ns3::FlowNetwork and ns3::FlowNic attributes apply)");
        }
        p.roce.emplace_back(kv.first, value);
        r.Param(path, ValueJson(*v));
        roceNodes.emplace_back(kv.first, v);
    }
    // values each attribute accepts but the NIC or its congestion control cannot work with
    // together (eta outside (0, 1], T_low >= T_high, ...): refused now, at the key the
    // message names
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        for (const auto& kv : p.roce)
        {
            if (kv.first.rfind("ns3::RdmaNic::", 0) == 0)
            {
                nic->SetAttributeFailSafe(kv.first.substr(14), StringValue(kv.second));
            }
        }
        const std::string ccType =
            RdmaNic::GetCongestionControlTypeName(nic->GetCongestionControl());
        TypeId ccTid;
        for (const auto& kv : p.roce)
        {
            const size_t sep = kv.first.rfind("::");
            TypeId owner;
            if (!ccType.empty() && TypeId::LookupByNameFailSafe(kv.first.substr(0, sep), &owner) &&
                TypeId::LookupByNameFailSafe(ccType, &ccTid) &&
                (ccTid == owner || ccTid.IsChildOf(owner)))
            {
                nic->SetCongestionControlAttribute(kv.first.substr(sep + 2),
                                                   StringValue(kv.second));
            }
        }
        const std::string error = nic->GetConfigError();
        if (!error.empty())
        {
            const toml::node* at = roceNodes.empty() ? nullptr : roceNodes.front().second;
            std::string key = roceNodes.empty() ? "roce" : "roce." + roceNodes.front().first;
            for (const auto& n : roceNodes)
            {
                const std::string attr = n.first.substr(n.first.rfind("::") + 2);
                if (error.find("::" + attr) != std::string::npos ||
                    (n.first == "cc" && error.find("CongestionControl") != std::string::npos))
                {
                    at = n.second;
                    key = "roce." + n.first;
                    break;
                }
            }
            r.Fail(at, key, error);
        }
    }

    // [npu]: NpuEndpoint attributes by their short names.
    const toml::table* npuTable = SubTable(r, cfg.root, "npu");
    top.Known("npu");
    TableReader npu(r, npuTable, "npu");
    for (const auto& kv : npu.All())
    {
        const std::string path = "npu." + kv.first;
        const toml::node* v = r.Resolve(kv.second);
        if (v->is_table() || v->is_array())
        {
            r.Fail(v, path, "expected a value, got " + TypeName(*v));
        }
        const std::string value = ValueText(*v);
        CheckAttribute(r, v, path, "ns3::NpuEndpoint", kv.first, value);
        p.npu.emplace_back(kv.first, value);
        r.Param(path, ValueJson(*v));
    }
    // values each attribute accepts but a run cannot finish with (a memory bandwidth of bits
    // per second): refused at the key the message names
    {
        Ptr<NpuEndpoint> endpoint = CreateObject<NpuEndpoint>();
        for (const auto& kv : p.npu)
        {
            endpoint->SetAttributeFailSafe(kv.first, StringValue(kv.second));
        }
        const std::string error = endpoint->GetConfigError();
        if (!error.empty())
        {
            std::string key = "npu";
            const toml::node* at = npuTable;
            for (const auto& kv : npu.All())
            {
                if (error.find("::" + kv.first + " ") != std::string::npos)
                {
                    key = "npu." + kv.first;
                    at = r.Resolve(kv.second);
                }
            }
            r.Fail(at, key, error);
        }
    }
    p.installNpus = npuTable != nullptr;

    // [sampling]: what the results database records.
    const toml::table* samplingTable = SubTable(r, cfg.root, "sampling");
    top.Known("sampling");
    TableReader sampling(r, samplingTable, "sampling");
    p.sampleIntervalNs = sampling.TimeNs("interval", 10000);
    if (p.sampleIntervalNs == 0)
    {
        r.Fail(r.Resolve(samplingTable->get("interval")), "sampling.interval", "must be > 0");
    }
    p.portSamples = sampling.Bool("port_samples", true);
    p.flows = sampling.Bool("flows", true);
    p.transfers = sampling.Bool("transfers", true);
    p.pfcEvents = sampling.Bool("pfc_events", true);
    p.drops = sampling.Bool("drops", true);
    sampling.Done();

    // What runs: [[collective]] or [training].
    const toml::node* collNode = cfg.root.get("collective");
    top.Known("collective");
    const toml::table* trainingTable = SubTable(r, cfg.root, "training");
    top.Known("training");
    top.Known("test");
    top.Done();
    if (!collNode == !trainingTable)
    {
        r.Fail(collNode,
               collNode ? "collective" : "",
               collNode ? "give [[collective]] or [training], not both"
                        : "nothing to run: add [[collective]] tables or a [training] table");
    }
    if (collNode)
    {
        const toml::array* list = collNode->as_array();
        if (!list || !list->is_array_of_tables())
        {
            r.Fail(collNode,
                   "collective",
                   "expected [[collective]] tables, got " + TypeName(*collNode));
        }
        for (size_t i = 0; i < list->size(); i++)
        {
            const std::string path = "collective[" + std::to_string(i) + "]";
            const toml::table* ct = list->get(i)->as_table();
            TableReader c(r, ct, path);
            ScenarioCollective sc;
            const toml::node* opNode = r.Resolve(ct->get("op"));
            std::string op = c.String("op", "all-reduce");
            tn_error err{};
            if (tn_collective_parse(op.c_str(), &sc.op, &err) != TN_OK)
            {
                r.Fail(opNode, path + ".op", err.message);
            }
            const toml::node* schedNode = r.Resolve(ct->get("scheduler"));
            // the static plan's Themis policies (the core's names), then the run-time ones
            std::vector<std::string> schedulers = {tn_themis_policy_name(TN_THEMIS_FIFO),
                                                   tn_themis_policy_name(TN_THEMIS_SCF)};
            schedulers.insert(schedulers.end(),
                              ThemisCollective::GetSchedulerNames().begin(),
                              ThemisCollective::GetSchedulerNames().end());
            sc.scheduler = c.Choice("scheduler", schedulers[0], schedulers);
            const toml::node* algNode = r.Resolve(ct->get("algorithm"));
            // A run-time scheduler runs Themis chunk-phases: "themis" is the only algorithm.
            sc.algorithm = c.String("algorithm", sc.IsScheduled() ? "themis" : "ring");
            sc.bytes = c.Bytes("bytes", 0, true);
            sc.chunks = uint32_t(c.Uint("chunks", 0, 0, UINT32_MAX - 1));
            sc.root = uint32_t(c.Uint("root", 0, 0, UINT32_MAX - 1));
            const toml::node* baseNode = r.Resolve(ct->get("baseline"));
            sc.baseline = c.Bool("baseline", false);
            sc.active = uint32_t(c.Uint("active", 1, 1, 1u << 20));
            sc.startNs = c.TimeNs("start", 0);
            c.Done();
            if (sc.IsScheduled())
            {
                if (ranks > 1)
                {
                    r.Fail(schedNode,
                           path + ".scheduler",
                           "scheduler '" + sc.scheduler +
                               "' schedules at run time, which runs in one process, not over " +
                               std::to_string(ranks) +
                               " MPI ranks (a rank does not see when another's chunk-phase "
                               "ends)");
                }
                if (sc.algorithm != "themis")
                {
                    r.Fail(algNode,
                           path + ".algorithm",
                           "scheduler '" + sc.scheduler +
                               "' schedules Themis chunk-phases at run time: algorithm must "
                               "be \"themis\" or left out, not '" +
                               sc.algorithm + "'");
                }
                if (sc.baseline)
                {
                    r.Fail(baseNode,
                           path + ".baseline",
                           "the run-time baseline is scheduler = \"fixed\"; baseline = true "
                           "belongs to the static plan (scheduler " +
                               schedulers[0] + " or " + schedulers[1] + ")");
                }
                if (sc.op != TN_COLL_ALL_REDUCE && sc.op != TN_COLL_REDUCE_SCATTER &&
                    sc.op != TN_COLL_ALL_GATHER)
                {
                    r.Fail(schedNode,
                           path + ".scheduler",
                           "scheduler '" + sc.scheduler +
                               "' runs all-reduce, reduce-scatter and all-gather, not " + op);
                }
                if (tn_topology_dim_count(t) == 0)
                {
                    r.Fail(schedNode,
                           path + ".scheduler",
                           "scheduler '" + sc.scheduler +
                               "' needs a topology with dimensions (a hier: system)");
                }
            }
            else
            {
                tn_plan_request request = sc.ToRequest();
                if (tn_tune_plan_check(t, &request, &err) != TN_OK)
                {
                    r.Fail(algNode ? algNode : ct, path + ".algorithm", err.message);
                }
            }
            p.collectives.push_back(sc);
        }
    }
    else
    {
        TableReader tr(r, trainingTable, "training");
        const toml::node* wlNode = r.Resolve(trainingTable->get("workload"));
        const toml::node* chakraNode = r.Resolve(trainingTable->get("chakra"));
        std::string wl = tr.String("workload", "");
        std::string chakra = tr.String("chakra", "");
        if (wl.empty() && chakra.empty())
        {
            tr.Missing("workload");
        }
        if (!wl.empty() && !chakra.empty())
        {
            r.Fail(chakraNode,
                   "training.chakra",
                   "give workload (a text workload) or chakra (Chakra traces), not both");
        }
        if (!chakra.empty())
        {
            p.chakra = chakra[0] == '/' ? chakra : cfg.baseDir + chakra;
        }
        else
        {
            p.workload = wl[0] == '/' ? wl : cfg.baseDir + wl;
        }
        p.iterations = uint32_t(tr.Uint("iterations", 1, 1, UINT32_MAX - 1));
        p.overlap = tr.Bool("overlap", true);
        p.modelGroup = uint32_t(tr.Uint("model_group", 0, 0, UINT32_MAX - 1));
        const toml::node* algNode = r.Resolve(trainingTable->get("algorithm"));
        p.trainingAlgorithm = tr.String("algorithm", "ring");
        const toml::node* schedNode = r.Resolve(trainingTable->get("scheduler"));
        std::vector<std::string> schedulers = {"planned"};
        schedulers.insert(schedulers.end(),
                          ThemisCollective::GetSchedulerNames().begin(),
                          ThemisCollective::GetSchedulerNames().end());
        const std::string scheduler = tr.Choice("scheduler", "planned", schedulers);
        p.trainingScheduler = scheduler == "planned" ? "" : scheduler;
        p.trainingChunks = uint32_t(tr.Uint("chunks", 64, 1, UINT32_MAX - 1));
        p.trainingActive = uint32_t(tr.Uint("active", 1, 1, 1u << 20));
        tr.Done();
        if (!p.trainingScheduler.empty() && ranks > 1)
        {
            r.Fail(schedNode,
                   "training.scheduler",
                   "scheduler '" + scheduler +
                       "' schedules at run time, which runs in one process, not over " +
                       std::to_string(ranks) +
                       " MPI ranks (a rank does not see when another's chunk-phase ends)");
        }
        else if (!p.trainingScheduler.empty() && tn_topology_dim_count(t) == 0)
        {
            r.Fail(schedNode,
                   "training.scheduler",
                   "scheduler '" + scheduler +
                       "' needs a topology with dimensions (a hier: system)");
        }
        tn_error err{};
        if (!p.chakra.empty())
        {
            CheckChakra(r, chakraNode, p.chakra, tn_topology_npu_count(t), ranks);
        }
        else
        {
            tn_workload* w = nullptr;
            if (tn_workload_load_file(p.workload.c_str(), &w, &err) != TN_OK)
            {
                r.Fail(wlNode, "training.workload", err.message);
            }
            tn_workload_destroy(w);
        }
        if (tn_tune_algorithm_check(p.trainingAlgorithm.c_str(), &err) != TN_OK)
        {
            r.Fail(algNode, "training.algorithm", err.message);
        }
        p.installNpus = true;
    }
    p.paramsJson = r.ParamsJson(p);
    return p;
}

} // namespace

namespace
{

/// The sweep axes in file order (toml++ tables are sorted by key), then the --set lists.
std::vector<Axis>
SortedAxes(const ScenarioConfig::Impl& cfg)
{
    std::vector<Axis> axes;
    cfg.FindAxes(cfg.root, "", &axes);
    std::stable_sort(axes.begin(), axes.end(), [](const Axis& a, const Axis& b) {
        uint64_t la = a.line ? a.line : UINT32_MAX;
        uint64_t lb = b.line ? b.line : UINT32_MAX;
        return la != lb ? la < lb : a.column < b.column;
    });
    return axes;
}

/// The number of points, refused past MAX_POINTS (the product may overflow: count by axis).
uint64_t
CountOrRefuse(const ScenarioConfig::Impl& cfg, const std::vector<Axis>& axes)
{
    uint64_t total = 1;
    bool over = false;
    long double product = 1;
    for (const Axis& a : axes)
    {
        product *= a.values->size();
        over = over || total > ScenarioConfig::MAX_POINTS / a.values->size();
        total = over ? total : total * a.values->size();
    }
    if (over)
    {
        char count[64];
        std::snprintf(count, sizeof(count), "%.0Lf", product);
        std::string sizes;
        for (const Axis& a : axes)
        {
            sizes += (sizes.empty() ? "" : " x ") + std::to_string(a.values->size()) + " (" +
                     a.path + ")";
        }
        throw ScenarioError(cfg.file + ": the sweep has " + count + " points (" + sizes +
                            "); at most " + std::to_string(ScenarioConfig::MAX_POINTS) +
                            " are allowed: split it into several scenarios");
    }
    return total;
}

/// Point `index` of the product: the last axis varies fastest.
ScenarioPoint
PointAt(const ScenarioConfig::Impl& cfg,
        const std::vector<Axis>& axes,
        uint64_t index,
        TopologyCache* topologies)
{
    std::map<const toml::node*, size_t> choice;
    std::vector<size_t> idx(axes.size(), 0);
    uint64_t rest = index;
    for (size_t k = axes.size(); k-- > 0;)
    {
        idx[k] = size_t(rest % axes[k].values->size());
        rest /= axes[k].values->size();
    }
    std::string label;
    for (size_t k = 0; k < axes.size(); k++)
    {
        choice[axes[k].values] = idx[k];
        label += (label.empty() ? "" : " ") + axes[k].path + "=" +
                 ValueText(*axes[k].values->get(idx[k]));
    }
    ScenarioPoint p = ReadPoint(cfg, choice, uint32_t(index), label, topologies);
    if (!cfg.database.empty())
    {
        p.database = cfg.database;
    }
    return p;
}

} // namespace

void
ScenarioConfig::SetDatabase(const std::string& path)
{
    m_impl->database = path;
}

bool
ScenarioConfig::Validate(uint64_t* count,
                         std::string* error,
                         std::vector<std::string>* databases) const
{
    *count = 0;
    if (!m_impl->loaded)
    {
        *error = "no scenario loaded";
        return false;
    }
    try
    {
        const std::vector<Axis> axes = SortedAxes(*m_impl);
        const uint64_t total = CountOrRefuse(*m_impl, axes);
        NS_LOG_INFO(m_impl->file << ": " << axes.size() << " sweep axes, " << total << " points");
        TopologyCache topologies;
        for (uint64_t i = 0; i < total; i++)
        {
            const ScenarioPoint p = PointAt(*m_impl, axes, i, &topologies);
            if (databases &&
                std::find(databases->begin(), databases->end(), p.database) == databases->end())
            {
                databases->push_back(p.database);
            }
        }
        *count = total;
    }
    catch (const ScenarioError& e)
    {
        *error = e.what();
        return false;
    }
    return true;
}

bool
ScenarioConfig::GetPoint(uint64_t index, ScenarioPoint* point, std::string* error) const
{
    if (!m_impl->loaded)
    {
        *error = "no scenario loaded";
        return false;
    }
    try
    {
        const std::vector<Axis> axes = SortedAxes(*m_impl);
        if (index >= CountOrRefuse(*m_impl, axes))
        {
            *error = m_impl->file + ": there is no point " + std::to_string(index);
            return false;
        }
        TopologyCache topologies;
        *point = PointAt(*m_impl, axes, index, &topologies);
    }
    catch (const ScenarioError& e)
    {
        *error = e.what();
        return false;
    }
    return true;
}

bool
ScenarioConfig::Expand(std::vector<ScenarioPoint>* points, std::string* error) const
{
    points->clear();
    if (!m_impl->loaded)
    {
        *error = "no scenario loaded";
        return false;
    }
    try
    {
        const std::vector<Axis> axes = SortedAxes(*m_impl);
        const uint64_t total = CountOrRefuse(*m_impl, axes);
        TopologyCache topologies;
        for (uint64_t i = 0; i < total; i++)
        {
            points->push_back(PointAt(*m_impl, axes, i, &topologies));
        }
    }
    catch (const ScenarioError& e)
    {
        points->clear();
        *error = e.what();
        return false;
    }
    return true;
}

} // namespace ns3
