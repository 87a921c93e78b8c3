/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ScenarioConfig (contract in scenario-config.h): loading a scenario file, --set and
 * --test-size, sweeps and their expansion into points. The tables of one point are read in
 * scenario-tables.cc, one reader per table; the reading machinery is in scenario-reader.h.
 */
#include "scenario-config.h"

#include "scenario-reader.h"

#include "ns3/attribute-settings.h"
#include "ns3/attribute.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioConfig");

namespace scenario
{

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

} // namespace scenario

using namespace scenario;

/// A key whose value is a list (a [[job]]'s npus, [training]'s placement), not a sweep of its
/// values: a permutation swept element by element would place every rank on one NPU.
static bool
IsListKey(const std::string& path)
{
    const std::string suffix = "].npus";
    if (path == "training.placement")
    {
        return true;
    }
    return path.rfind("job[", 0) == 0 && path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void
ScenarioConfig::Impl::FindAxes(const toml::table& t,
                               const std::string& prefix,
                               std::vector<scenario::Axis>* axes) const
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
        if (!arr || IsListKey(path))
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
            *error =
                where + "'" + key + "' is not a key (table.key, collective[N].key or job[N].key)";
            return false;
        }
        leaf = key.substr(dot + 1);
        toml::node* n = cfg.root.get(name);
        if (name == "collective" || name == "job")
        {
            toml::array* list = n ? n->as_array() : nullptr;
            if (!list || !list->is_array_of_tables() || list->empty())
            {
                *error = where + "the scenario has no [[" + name + "]] to set '" + leaf + "' in";
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
                *error = where + "there is no " + name + "[" + std::to_string(index) + "] (the " +
                         "scenario has " + std::to_string(list->size()) + ")";
                return false;
            }
        }
        else
        {
            if (index >= 0)
            {
                *error = where + "only [[collective]] and [[job]] take an index";
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
