/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * scenario-reader: PRIVATE header of the scenario reader (helper/scenario-config.cc, the sweeps
 * and --set; helper/scenario-tables.cc, one reader per table; helper/scenario-jobs.cc, the
 * [[job]] tables). Not installed: toml++ stays out of the installed headers.
 *
 * Contract
 * --------
 *  - A validation failure throws ScenarioError whose text is the whole message, "FILE:LINE:COL:
 *    KEY: why" (PointReader::Fail; Where() names a --set value by its assignment instead).
 *  - PointReader resolves every sweep list to the point's choice and collects the point's
 *    parameters (ParamsJson). TableReader reads one table's keys by type, range and unit, and
 *    Done() refuses a key no getter asked for, listing the table's keys.
 *  - ReadPoint (scenario-tables.cc) reads and checks every table of one point, in a fixed order,
 *    through the objects the runner uses.
 */
#ifndef SCENARIO_READER_H
#define SCENARIO_READER_H

#include "scenario-config.h"

#include "ns3/tn-topology.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <toml++/toml.h>
#include <utility>
#include <vector>

namespace ns3
{
namespace scenario
{

/// A validation failure; its text is the whole message.
struct ScenarioError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/// "a table", "a list", "a string", ...: a node's type in messages.
std::string TypeName(const toml::node& n);
/// s as a JSON string literal.
std::string JsonString(const std::string& s);
/// A plain value as text: what ns-3 attributes and sweep labels show.
std::string ValueText(const toml::node& n);
/// A plain value as JSON (the point's parameters).
std::string ValueJson(const toml::node& n);
/// The folder of a path with its slash ("" for none).
std::string DirName(const std::string& path);
/// The file name of a path without folder and extension.
std::string BaseName(const std::string& path);

/// A sweep axis: a list of plain values somewhere in the scenario.
struct Axis
{
    std::string path;
    const toml::array* values;
    uint32_t line; //!< 0 for a --set list (those come last)
    uint32_t column;
};

} // namespace scenario

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

    void FindAxes(const toml::table& t,
                  const std::string& prefix,
                  std::vector<scenario::Axis>* axes) const;
};

namespace scenario
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
            if (tn_units_parse_bytes(s.c_str(), s.size(), key.c_str(), &bytes, &err) != TN_OK)
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
            if (tn_units_parse_time(s.c_str(), s.size(), key.c_str(), &ns, &err) != TN_OK)
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

    /// The value of a key that All() listed, a sweep resolved; fails unless a plain value.
    const toml::node* Value(const std::string& key, const toml::node* n) const
    {
        const toml::node* v = m_r.Resolve(n);
        if (v->is_table() || v->is_array())
        {
            m_r.Fail(v, Path(key), "expected a value, got " + TypeName(*v));
        }
        return v;
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
const toml::table* SubTable(const PointReader& r, const toml::table& root, const std::string& key);

/// An ns-3 attribute value checked by the one validator (AttributeSettings).
void CheckAttribute(const PointReader& r,
                    const toml::node* n,
                    const std::string& path,
                    const std::string& className,
                    const std::string& attribute,
                    const std::string& value);

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

/// What the readers of one point share: the point they fill and what earlier readers resolved.
struct PointContext
{
    PointReader& r;
    ScenarioPoint& p;
    const ScenarioConfig::Impl& cfg;
    TableReader& top; //!< the top level: a reader marks its table's key known there
    TopologyCache* topologies;
    uint32_t ranks;                //!< MPI ranks of this run (DistributedHelper::GetSize)
    const tn_topology* t{nullptr}; //!< the topology, once [topology] is read
    /// The table the training reader reads: "training", or "job[N]" for one of several jobs
    std::string training{"training"};
    uint32_t npus{0};                 //!< the NPUs the training runs on (0: the topology's)
    std::vector<std::string> jobKeys; //!< a [[job]]'s own keys, known to the training reader

    /// "training.KEY" (or "job[N].KEY"): a key of the table the training reader reads
    std::string Key(const std::string& key) const
    {
        return training + "." + key;
    }

    /// the NPUs the training runs on
    uint32_t Npus() const
    {
        return npus ? npus : tn_topology_npu_count(t);
    }

    /// The root's table `name` (null when absent; another type fails), known to the top level.
    const toml::table* Table(const std::string& name)
    {
        const toml::table* table = SubTable(r, cfg.root, name);
        top.Known(name);
        return table;
    }
};

/// [training] (ctx.training: or a [[job]]'s table): what runs on ctx.Npus() NPUs, its workload
/// read and checked (scenario-tables.cc).
void ReadTrainingTable(PointContext& ctx, const toml::table* trainingTable);

/// [[job]]: several jobs on one fabric, each placed on its NPUs and read by ReadTrainingTable
/// (scenario-jobs.cc); `isolate` is the top level's.
void ReadJobTables(PointContext& ctx, const toml::node* jobNode, const toml::node* isolate);

/// One point of the scenario (a choice for every sweep list), read and checked table by table.
ScenarioPoint ReadPoint(const ScenarioConfig::Impl& cfg,
                        const std::map<const toml::node*, size_t>& choice,
                        uint32_t index,
                        const std::string& label,
                        TopologyCache* topologies);

} // namespace scenario
} // namespace ns3

#endif /* SCENARIO_READER_H */
