/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ASTRA-sim 2's input sets, run as they are: the flags of ASTRA-sim's binary, with only the
 * program's name changed.
 *
 *   astra-sim-compat --workload-configuration=examples/workload/all_reduce/4npus_1MB/all_reduce
 *                    --system-configuration=Ring_4chunks.json
 *                    --network-configuration=Ring_4npus.yml
 *                    [--remote-memory-configuration=no_memory_expansion.json]
 *                    [--comm-group-configuration=groups.json]
 *                    [--mode=packet|flow|flow-symmetric] [--database=results.db]
 *
 * The network YAML becomes a hier topology (tn-astra.h), the system JSON the NPUs' and the
 * collectives' settings: every key is mapped or ignored with its reason, each printed as a
 * "note:" line. A `*-implementation-custom` key (ASTRA-sim's Collective API) runs its traces
 * as the custom:PREFIX algorithm (tn-algorithm.h), verified when the file is read. The Chakra
 * traces PREFIX.<rank>.et run as TrainingHelper::LoadChakra runs them. Each NPU's end prints as
 * ASTRA-sim prints it ("sys[0] finished, 117780 cycles, exposed communication 117780 cycles.", a
 * cycle being 1 ns as in ASTRA-sim), and the run is appended to the results database.
 * doc/astra-sim-migration.rst is the key-by-key table. A bad file or key is one line naming the
 * file, the line and the key, and exit 2.
 */
#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/program-options.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/string.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-astra.h"
#include "ns3/tn-db.h"
#include "ns3/tn-signal.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// A bad input: the whole error line (file, line, key and what is wrong).
struct InputError
{
    std::string message;
};

std::string
Text(tn_astra_text t)
{
    return std::string(t.s, t.n);
}

/// A flat JSON file (system, comm-group, remote memory) with its entries' messages.
class JsonFile
{
  public:
    explicit JsonFile(const std::string& path)
        : m_path(path)
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
        {
            throw InputError{path + ": cannot open"};
        }
        std::ostringstream text;
        text << in.rdbuf();
        m_text = text.str();
        tn_error err;
        if (tn_astra_json_parse(m_text.data(), m_text.size(), path.c_str(), &m_json, &err) != TN_OK)
        {
            throw InputError{err.message};
        }
    }

    ~JsonFile()
    {
        tn_astra_json_destroy(&m_json);
    }

    JsonFile(const JsonFile&) = delete;
    JsonFile& operator=(const JsonFile&) = delete;

    const tn_astra_json& Json() const
    {
        return m_json;
    }

    /// "sys.json:4: endpoint-delay: "
    std::string Where(const tn_astra_json_entry& e) const
    {
        return m_path + ":" + std::to_string(e.line) + ": " + Text(e.key) + ": ";
    }

    [[noreturn]] void Fail(const tn_astra_json_entry& e, const std::string& why) const
    {
        throw InputError{Where(e) + why};
    }

    /// The entry's one value, a number in [min, max].
    double Number(const tn_astra_json_entry& e, double min, double max) const
    {
        const tn_astra_json_value* v = One(e);
        if (v->kind != TN_ASTRA_JSON_NUMBER)
        {
            Fail(e, "expected a number, got '" + Text(v->text) + "'");
        }
        const double x = std::strtod(Text(v->text).c_str(), nullptr);
        if (!(x >= min && x <= max))
        {
            std::ostringstream why;
            why << Text(v->text) << " is out of range [" << min << ", " << max << "]";
            Fail(e, why.str());
        }
        return x;
    }

    /// A whole number in [min, max].
    uint64_t Count(const tn_astra_json_entry& e, uint64_t min, uint64_t max) const
    {
        const double x = Number(e, double(min), double(max));
        if (x != std::floor(x))
        {
            Fail(e, "expected a whole number, got " + Text(e.values[0].text));
        }
        return uint64_t(x);
    }

    /// 0, 1, true or false.
    bool Flag(const tn_astra_json_entry& e) const
    {
        const tn_astra_json_value* v = One(e);
        const std::string t = Text(v->text);
        if (t == "0" || t == "false" || t == "1" || t == "true")
        {
            return t == "1" || t == "true";
        }
        Fail(e, "expected 0, 1, true or false, got '" + t + "'");
    }

    /// A string among `choices`.
    std::string Choice(const tn_astra_json_entry& e, const std::vector<std::string>& choices) const
    {
        const tn_astra_json_value* v = One(e);
        const std::string t = Text(v->text);
        if (v->kind == TN_ASTRA_JSON_STRING &&
            std::find(choices.begin(), choices.end(), t) != choices.end())
        {
            return t;
        }
        std::string list;
        for (const std::string& c : choices)
        {
            list += (list.empty() ? "" : ", ") + c;
        }
        Fail(e, "'" + t + "' is not one of " + list);
    }

  private:
    const tn_astra_json_value* One(const tn_astra_json_entry& e) const
    {
        if (e.is_list)
        {
            Fail(e, "expected one value, not a list");
        }
        return &e.values[0];
    }

    std::string m_path;
    std::string m_text;
    tn_astra_json m_json{0, nullptr};
};

/// What the input set becomes in training-net.
struct Mapping
{
    tn_astra_network net{};
    std::string spec;
    std::string algorithm[TN_COLL_COUNT]; //!< per collective ("" : the job's default)
    uint64_t memoryBps = 0;               //!< local-mem-bw (0 : NpuEndpoint's default)
    uint64_t clockRate = 1000000000;      //!< ops per second of num_ops (1 GHz: cycles)
    std::vector<std::pair<std::string, std::vector<uint32_t>>> groups; //!< by pg_name
    std::vector<std::string> notes;
};

/// ASTRA-sim's native implementations, and what each runs as on one dimension.
const std::vector<std::string> kImplementations = {"ring",
                                                   "oneRing",
                                                   "doubleBinaryTree",
                                                   "direct",
                                                   "oneDirect",
                                                   "halvingDoubling",
                                                   "oneHalvingDoubling"};

std::string
FlatAlgorithm(const std::string& impl)
{
    if (impl == "ring" || impl == "oneRing")
    {
        return "ring";
    }
    if (impl == "direct" || impl == "oneDirect")
    {
        return "direct";
    }
    if (impl == "doubleBinaryTree")
    {
        return "dbt";
    }
    return "rhd"; // halvingDoubling, oneHalvingDoubling
}

/// The `*-implementation` key of one collective: its training-net algorithm.
void
MapImplementation(const JsonFile& file,
                  const tn_astra_json_entry& e,
                  tn_collective collective,
                  bool localBwAware,
                  Mapping* m)
{
    const uint32_t dims = m->net.dims;
    if (!e.is_list || e.count != dims)
    {
        file.Fail(e,
                  "expected a list of one implementation per dimension (the network has " +
                      std::to_string(dims) + ")");
    }
    std::vector<std::string> impl;
    bool allOne = true;
    bool anyOne = false;
    for (uint32_t d = 0; d < e.count; d++)
    {
        const std::string t = Text(e.values[d].text);
        if (e.values[d].kind != TN_ASTRA_JSON_STRING ||
            std::find(kImplementations.begin(), kImplementations.end(), t) ==
                kImplementations.end())
        {
            file.Fail(e,
                      "'" + t +
                          "' is not one of ring, oneRing, doubleBinaryTree, direct, oneDirect, "
                          "halvingDoubling, oneHalvingDoubling");
        }
        const bool one = t.rfind("one", 0) == 0;
        allOne = allOne && one;
        anyOne = anyOne || one;
        impl.push_back(t);
    }
    if (anyOne && dims > 1 &&
        (!allOne || std::count(impl.begin(), impl.end(), impl[0]) != std::ptrdiff_t(impl.size())))
    {
        file.Fail(e,
                  "a one* implementation spans all dimensions: give it for every dimension "
                  "(training-net runs one flat algorithm over all NPUs)");
    }
    std::string algorithm;
    std::string note;
    if (collective == TN_COLL_ALL_TO_ALL)
    {
        algorithm = "direct";
        note = "all-to-all runs as direct, every NPU to every NPU (training-net's all-to-all)";
    }
    else if (dims == 1 || allOne)
    {
        algorithm = FlatAlgorithm(impl[0]);
        if (algorithm == "dbt" && collective != TN_COLL_ALL_REDUCE)
        {
            file.Fail(e, "doubleBinaryTree runs all-reduce only (training-net's dbt)");
        }
        note = "runs as " + algorithm + (dims > 1 ? " over all NPUs as one dimension" : "");
    }
    else if (localBwAware && collective == TN_COLL_ALL_REDUCE)
    {
        algorithm = "themis";
        note = "with collective-optimization localBWAware, runs as themis (per chunk the "
               "dimension order by load; ring on Ring, direct on FullyConnected and Switch "
               "dimensions)";
    }
    else
    {
        algorithm = "hierarchical";
        note = "runs as hierarchical (dimension by dimension; ring on Ring, direct on "
               "FullyConnected and Switch dimensions, whatever each dimension names)";
    }
    m->algorithm[collective] = algorithm;
    m->notes.push_back(file.Where(e) + note);
}

/// A `*-implementation-custom` key: the collective runs the traces it names (the registry's
/// custom:PREFIX), planned and verified here once so that a bad set is refused with the key.
void
MapCustom(const JsonFile& file, const tn_astra_json_entry& e, tn_collective collective, Mapping* m)
{
    if (!e.is_list || e.count != 1 || e.values[0].kind != TN_ASTRA_JSON_STRING ||
        e.values[0].text.n == 0)
    {
        file.Fail(e,
                  "expected a list of one trace prefix (PREFIX of PREFIX.<rank>.et; the traces "
                  "span every dimension, as in ASTRA-sim)");
    }
    const std::string algorithm = "custom:" + Text(e.values[0].text);
    uint32_t npus = 1;
    for (uint32_t d = 0; d < m->net.dims; d++)
    {
        npus *= m->net.dim[d].npus;
    }
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = collective;
    request.algorithm = algorithm.c_str();
    request.ranks = npus;
    request.bytes = 1 << 20;
    tn_schedule* plan = nullptr;
    tn_error err;
    if (tn_plan(nullptr, &request, &plan, &err) != TN_OK)
    {
        file.Fail(e, err.message);
    }
    const uint32_t transfers = tn_schedule_count(plan);
    tn_schedule_destroy(plan);
    if (m->algorithm[collective] != "" && m->algorithm[collective] != algorithm)
    {
        m->notes.push_back(file.Where(e) + "replaces " + m->algorithm[collective] +
                           " of the native key");
    }
    m->algorithm[collective] = algorithm;
    m->notes.push_back(file.Where(e) + "runs as " + algorithm + ": " + std::to_string(transfers) +
                       " messages on " + std::to_string(npus) +
                       " NPUs, scaled to each collective's size; verified to perform the " +
                       tn_collective_name(collective));
}

/// The system JSON onto the mapping; every key noted or refused.
void
ReadSystem(const std::string& path, Mapping* m)
{
    JsonFile file(path);
    const tn_astra_json& json = file.Json();
    std::vector<std::pair<const tn_astra_json_entry*, tn_collective>> customs;
    bool localBwAware = false;
    bool roofline = false;
    double peakPerf = 0;
    const tn_astra_json_entry* peak = nullptr;
    for (uint32_t i = 0; i < json.count; i++)
    {
        const tn_astra_json_entry& e = json.entries[i];
        if (Text(e.key) == "collective-optimization")
        {
            localBwAware = file.Choice(e, {"baseline", "localBWAware"}) == "localBWAware";
        }
    }
    const std::vector<std::pair<std::string, tn_collective>> ops = {
        {"all-reduce", TN_COLL_ALL_REDUCE},
        {"reduce-scatter", TN_COLL_REDUCE_SCATTER},
        {"all-gather", TN_COLL_ALL_GATHER},
        {"all-to-all", TN_COLL_ALL_TO_ALL}};
    // keys ASTRA-sim reads that have nothing to act on here, with the reason
    const std::vector<std::pair<std::string, std::string>> ignored = {
        {"boost-mode", "ASTRA-sim's shortcut that simulates one NPU per dimension group"},
        {"model-shared-bus", "no shared-bus model; the NPU's memory is local-mem-bw"},
        {"trace-enabled", "ASTRA-sim's own trace output; the database holds the run"},
        {"replay-only", "every node of the traces runs"},
        {"track-local-mem", "ASTRA-sim's local-memory trace; the database holds the run"},
        {"local-mem-trace-filename", "ASTRA-sim's local-memory trace"},
        {"o", "LogGP overhead: the NICs and the fabric model the message costs"},
        {"g", "LogGP gap: the NICs and the fabric model the message costs"},
        {"intra-dimension-scheduling", "a planned collective fixes its order"},
        {"inter-dimension-scheduling", "the algorithm (themis or hierarchical) fixes it"}};
    for (uint32_t i = 0; i < json.count; i++)
    {
        const tn_astra_json_entry& e = json.entries[i];
        const std::string key = Text(e.key);
        const std::string at = file.Where(e);
        auto op = std::find_if(ops.begin(), ops.end(), [&key](const auto& o) {
            return key == o.first + "-implementation";
        });
        auto skip = std::find_if(ignored.begin(), ignored.end(), [&key](const auto& k) {
            return key == k.first;
        });
        auto custom = std::find_if(ops.begin(), ops.end(), [&key](const auto& o) {
            return key == o.first + "-implementation-custom";
        });
        if (op != ops.end())
        {
            MapImplementation(file, e, op->second, localBwAware, m);
        }
        else if (custom != ops.end())
        {
            customs.emplace_back(&e, custom->second);
        }
        else if (key == "collective-optimization")
        {
            m->notes.push_back(at + (localBwAware ? "localBWAware: a multi-dimensional "
                                                    "all-reduce runs as themis"
                                                  : "baseline: dimension by dimension"));
        }
        else if (key == "scheduling-policy")
        {
            const std::string policy = file.Choice(e, {"LIFO", "FIFO"});
            m->notes.push_back(at + "ignored (" + policy +
                               "): an NPU issues its traces' collectives in dependency order "
                               "and each runs as soon as it is issued");
        }
        else if (key == "endpoint-delay")
        {
            file.Number(e, 0, 1e12);
            m->notes.push_back(at + "ignored: the NICs model a message's endpoint costs");
        }
        else if (key == "active-chunks-per-dimension" || key == "preferred-dataset-splits")
        {
            file.Count(e, 1, 1u << 20);
            m->notes.push_back(at +
                               "ignored: each algorithm plans its own chunks (tn-plan "
                               "--list; themis " +
                               std::to_string(TN_THEMIS_DEFAULT_CHUNKS) + ")");
        }
        else if (key == "local-reduction-delay")
        {
            file.Number(e, 0, 1e12);
            m->notes.push_back(at + "ignored: a reduction costs the NPU memory traffic at "
                                    "local-mem-bw (NpuEndpoint's interference model)");
        }
        else if (key == "local-mem-bw")
        {
            // GB/s to bits per second; the lowest rate a fabric takes is 1 Gbps
            const double gbs = file.Number(e, 0.125, 1e9);
            m->memoryBps = uint64_t(std::llround(gbs * 8e9));
            m->notes.push_back(at + "NpuEndpoint MemoryBandwidth " + std::to_string(m->memoryBps) +
                               "bps");
        }
        else if (key == "roofline-enabled")
        {
            roofline = file.Flag(e);
            m->notes.push_back(at + (roofline ? "1: a compute node's num_ops run at peak-perf"
                                              : "0: a compute node's num_ops are cycles at "
                                                "1 GHz (its duration_micros when it has none)"));
        }
        else if (key == "peak-perf")
        {
            peakPerf = file.Number(e, 1e-3, 1e6); // TFLOPS: ClockRate stays below 2^64
            peak = &e;
        }
        else if (skip != ignored.end())
        {
            m->notes.push_back(at + "ignored: " + skip->second);
        }
        else
        {
            file.Fail(e, "unknown key");
        }
    }
    for (const auto& [e, collective] : customs)
    {
        // after the native keys: a custom implementation replaces the native one
        MapCustom(file, *e, collective, m);
    }
    for (const auto& op : ops)
    {
        const std::string key = op.first + "-implementation";
        bool given = false;
        for (uint32_t i = 0; i < json.count; i++)
        {
            given = given || Text(json.entries[i].key) == key ||
                    Text(json.entries[i].key) == key + "-custom";
        }
        if (!given)
        {
            m->notes.push_back(path + ": " + key + ": not given: " +
                               (op.second == TN_COLL_ALL_TO_ALL
                                    ? "direct"
                                    : "auto (the cost model's best per group and size)"));
        }
    }
    if (roofline && !peak)
    {
        throw InputError{path + ": roofline-enabled: needs peak-perf (TFLOPS)"};
    }
    if (roofline)
    {
        // a COMP node's num_ops at the peak rate; ASTRA-sim's memory roof is not applied
        m->clockRate = uint64_t(std::llround(peakPerf * 1e12));
        m->notes.push_back(file.Where(*peak) +
                           "roofline-enabled: a compute node's num_ops run at peak-perf "
                           "(NpuEndpoint ClockRate " +
                           std::to_string(m->clockRate) + "); the memory roof is not applied");
    }
    else if (peak)
    {
        m->notes.push_back(file.Where(*peak) + "ignored: roofline-enabled is 0 (num_ops as "
                                               "cycles at 1 GHz)");
    }
}

/// The remote-memory JSON: only no memory expansion.
void
ReadRemoteMemory(const std::string& path, Mapping* m)
{
    JsonFile file(path);
    for (uint32_t i = 0; i < file.Json().count; i++)
    {
        const tn_astra_json_entry& e = file.Json().entries[i];
        if (Text(e.key) != "memory-type")
        {
            file.Fail(e, "unknown key");
        }
        file.Choice(e, {"NO_MEMORY_EXPANSION"});
        m->notes.push_back(file.Where(e) + "NO_MEMORY_EXPANSION: no remote memory (the "
                                           "disaggregated-memory models are not built)");
    }
}

/// The comm-group JSON: {"id": [ranks]}, the groups of the traces' pg_name attributes.
void
ReadCommGroups(const std::string& path, Mapping* m)
{
    if (path.find("empty") != std::string::npos)
    {
        // ASTRA-sim does not open a comm-group file whose name says it is empty
        m->notes.push_back(path + ": not read (its name holds \"empty\", as ASTRA-sim skips "
                                  "it): pg_name \"\" and \"0\" are all ranks");
        return;
    }
    JsonFile file(path);
    uint64_t npus = 1;
    for (uint32_t d = 0; d < m->net.dims; d++)
    {
        npus *= m->net.dim[d].npus;
    }
    for (uint32_t i = 0; i < file.Json().count; i++)
    {
        const tn_astra_json_entry& e = file.Json().entries[i];
        const std::string id = Text(e.key);
        if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos)
        {
            file.Fail(e, "a group id is a non-negative integer (ASTRA-sim's pg_name)");
        }
        if (!e.is_list || e.count == 0)
        {
            file.Fail(e, "expected a list of the group's NPUs");
        }
        std::vector<uint32_t> ranks;
        std::vector<bool> seen(npus, false);
        for (uint32_t k = 0; k < e.count; k++)
        {
            const std::string t = Text(e.values[k].text);
            char* end = nullptr;
            const unsigned long long r = std::strtoull(t.c_str(), &end, 10);
            if (e.values[k].kind != TN_ASTRA_JSON_NUMBER || t.empty() || *end != '\0' ||
                t[0] == '-' || r >= npus)
            {
                file.Fail(e, "'" + t + "' is not an NPU (0 to " + std::to_string(npus - 1) + ")");
            }
            if (seen[r])
            {
                file.Fail(e, "NPU " + t + " is listed twice");
            }
            seen[r] = true;
            ranks.push_back(uint32_t(r));
        }
        // ASTRA-sim reads pg_name "0" as all ranks, whatever group 0 lists
        const bool all = std::stoul(id) == 0;
        m->notes.push_back(file.Where(e) +
                           (all ? "ignored: pg_name \"0\" is all ranks, as in ASTRA-sim"
                                : "the collectives of pg_name \"" + id + "\" run on these " +
                                      std::to_string(ranks.size()) + " NPUs"));
        if (!all)
        {
            m->groups.emplace_back(std::to_string(std::stoul(id)), ranks);
        }
    }
    if (file.Json().count == 0)
    {
        m->notes.push_back(path + ": no groups: pg_name \"\" and \"0\" are all ranks");
    }
}

/// The JSON text of s (the run's params).
std::string
Quoted(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

} // namespace

int
main(int argc, char* argv[])
{
    const char* program = "astra-sim-compat";
    std::string workload;
    std::string system;
    std::string network;
    std::string remoteMemory;
    std::string commGroups;
    std::string database = "results.db";
    std::string mode = "packet";
    ProgramOptions options(program, __FILE__);
    options.AddString("workload-configuration",
                      "Chakra traces: PREFIX of PREFIX.<rank>.et",
                      &workload);
    options.AddString("system-configuration", "ASTRA-sim system JSON", &system);
    options.AddString("network-configuration", "ASTRA-sim analytical network YAML", &network);
    options.AddString("remote-memory-configuration",
                      "ASTRA-sim remote memory JSON (NO_MEMORY_EXPANSION)",
                      &remoteMemory);
    options.AddString("comm-group-configuration",
                      "ASTRA-sim communicator groups JSON: {\"id\": [NPUs]} for the traces' "
                      "pg_name",
                      &commGroups);
    options.AddString("database", "results database (SQLite) to append the run to", &database);
    options.AddMode(&mode);
    // from here to the exit: a signal aborts the run it comes before, or ends the program
    // after the last run is recorded, never kills it midway
    options.WatchSignals();
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    for (const auto& [flag, value] : {std::make_pair("workload-configuration", &workload),
                                      std::make_pair("system-configuration", &system),
                                      std::make_pair("network-configuration", &network)})
    {
        if (value->empty())
        {
            std::fprintf(stderr, "%s: --%s: required\n", program, flag);
            return 2;
        }
    }
    Mapping m;
    tn_error err;
    try
    {
        if (tn_astra_network_read(network.c_str(), &m.net, &err) != TN_OK)
        {
            throw InputError{err.message};
        }
        char spec[512];
        if (tn_astra_network_spec(&m.net, spec, sizeof(spec), &err) != TN_OK)
        {
            throw InputError{network + ": " + err.message};
        }
        m.spec = spec;
        for (uint32_t d = 0; d < m.net.dims; d++)
        {
            if (m.net.dim[d].latency_ns != std::round(m.net.dim[d].latency_ns))
            {
                std::ostringstream note;
                note << network << ": latency: dimension " << d << ": " << m.net.dim[d].latency_ns
                     << " ns rounds to " << std::llround(m.net.dim[d].latency_ns)
                     << " ns (the fabric's times are whole ns)";
                m.notes.push_back(note.str());
            }
        }
        ReadSystem(system, &m);
        if (!remoteMemory.empty())
        {
            ReadRemoteMemory(remoteMemory, &m);
        }
        if (!commGroups.empty())
        {
            ReadCommGroups(commGroups, &m);
        }
    }
    catch (const InputError& e)
    {
        std::fprintf(stderr, "%s: %s\n", program, e.message.c_str());
        return 2;
    }
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(m.spec.c_str(), &topo, &err) != TN_OK)
    {
        std::fprintf(stderr, "%s: %s: %s\n", program, network.c_str(), err.message);
        return 2;
    }
    RoceHelper check;
    check.SetMode(mode);
    const std::string fabricError = check.Check(topo);
    if (!fabricError.empty())
    {
        std::fprintf(stderr, "%s: %s: %s\n", program, network.c_str(), fabricError.c_str());
        tn_topology_destroy(topo);
        return 2;
    }
    std::printf("network %s: %s\n", network.c_str(), m.spec.c_str());
    for (const std::string& n : m.notes)
    {
        std::printf("note: %s\n", n.c_str());
    }
    RoceHelper roce;
    roce.SetMode(mode);
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.SetKeepCollectives(false);
    collectives.Install(topo, roce);
    NpuHelper npus;
    if (m.memoryBps)
    {
        npus.SetEndpointAttribute("MemoryBandwidth", DataRateValue(DataRate(m.memoryBps)));
    }
    npus.SetEndpointAttribute("ClockRate", UintegerValue(m.clockRate));
    npus.Install(roce.GetFabric().npus);
    TrainingHelper training;
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        if (!m.algorithm[c].empty())
        {
            training.SetAlgorithm(static_cast<tn_collective>(c), m.algorithm[c]);
        }
    }
    training.SetCommGroups(m.groups);
    std::string error;
    Ptr<TrainingJob> job;
    if (training.LoadChakra(workload, &error))
    {
        job = training.Install(collectives, npus, 0, &error);
    }
    if (!job)
    {
        std::fprintf(stderr, "%s: --workload-configuration: %s\n", program, error.c_str());
        Simulator::Destroy();
        tn_topology_destroy(topo);
        return 2;
    }
    // opened once every input is read: a refused input set leaves no database behind
    tn_db* db = nullptr;
    if (tn_db_open(database.c_str(), &db, &err) != TN_OK)
    {
        std::fprintf(stderr, "%s: --database: %s\n", program, err.message);
        Simulator::Destroy();
        tn_topology_destroy(topo);
        return 2;
    }
    std::string params = "{\"workload\":" + Quoted(workload) + ",\"system\":" + Quoted(system) +
                         ",\"network\":" + Quoted(network) + ",\"topology\":" + Quoted(m.spec) +
                         ",\"mode\":" + Quoted(mode);
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        if (!m.algorithm[c].empty())
        {
            params += ",\"algorithm." + std::string(tn_collective_name(tn_collective(c))) +
                      "\":" + Quoted(m.algorithm[c]);
        }
    }
    params += "}";
    StatsHelper stats;
    Ptr<StatsRecorder> recorder = stats.Install(db, program, params, topo, roce, &error);
    if (!recorder)
    {
        std::fprintf(stderr, "%s: --database: %s\n", program, error.c_str());
        tn_db_close(db);
        Simulator::Destroy();
        tn_topology_destroy(topo);
        return 1;
    }
    stats.AddTrainingJob(job);
    stats.LimitSimulatedTime(training.GetCostBound(topo, npus, 1),
                             "the traces' compute and collective bytes");
    job->Start();
    Simulator::Run();
    // each NPU's end and exposed communication (ns); flow-symmetric: NPU 0 ran for the NPUs
    // its collectives' symmetry maps it to
    std::vector<std::pair<uint64_t, uint64_t>> ends(npus.GetEndpoints().size());
    std::vector<bool> ran(ends.size());
    uint64_t endNs = 0;
    for (uint32_t r = 0; r < ends.size(); r++)
    {
        const uint32_t npu = job->GetIterations(r).empty() && mode == "flow-symmetric" ? 0 : r;
        ran[r] = !job->GetIterations(npu).empty();
        for (const TrainingIterationRecord& it : job->GetIterations(npu))
        {
            ends[r].first = std::max<uint64_t>(ends[r].first, it.end.GetNanoSeconds());
            ends[r].second += it.exposed.GetNanoSeconds();
        }
        endNs = std::max(endNs, ends[r].first);
    }
    const bool complete = job->IsComplete();
    const std::string recorded = stats.Finish(complete ? "ok" : "error",
                                              complete ? endNs : 0,
                                              "the traces did not complete");
    options.Recorded(recorder->GetRunId(), recorded);
    // the lines of a recorded run: a signal while they are printed leaves the run as it is
    for (uint32_t r = 0; r < ends.size(); r++)
    {
        if (ran[r])
        {
            // ASTRA-sim's Workload::report line, a cycle being 1 ns
            std::printf("sys[%u] finished, %llu cycles, exposed communication %llu cycles.\n",
                        r,
                        static_cast<unsigned long long>(ends[r].first),
                        static_cast<unsigned long long>(ends[r].second));
        }
    }
    if (!job->GetError().empty())
    {
        std::fflush(stdout);
        std::fprintf(stderr, "%s: %s\n", program, job->GetError().c_str());
    }
    Simulator::Destroy();
    int status = complete ? 0 : 1;
    if (recorded == "aborted")
    {
        std::fflush(stdout);
        std::fprintf(stderr, "%s: interrupted; run recorded as aborted\n", program);
        status = tn_signal_exit_status(recorder->GetSignal());
    }
    else if (recorded == "error" && !recorder->GetStopError().empty())
    {
        std::fflush(stdout);
        std::fprintf(stderr, "%s: %s\n", program, recorder->GetStopError().c_str());
        status = 1;
    }
    tn_db_close(db);
    tn_topology_destroy(topo);
    return options.ExitStatus(status);
}
