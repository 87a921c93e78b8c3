/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-flows.h"

#include "roce-helper.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/node.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/program-options.h"
#include "ns3/rdma-nic.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tn-routing.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace ns3
{

namespace
{

/// Split a line into blank-separated fields.
std::vector<std::string>
SplitFields(const std::string& line)
{
    std::vector<std::string> out;
    std::istringstream is(line);
    std::string f;
    while (is >> f)
    {
        out.push_back(f);
    }
    return out;
}

/// Parse an unsigned integer; the whole field must be digits.
bool
ParseUnsigned(const std::string& s, uint64_t max, uint64_t* v)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || x > max)
    {
        return false;
    }
    *v = x;
    return true;
}

/// Parse a finite real in [lo, hi]: digits, '.', exponent; no hex, inf, nan or trailing text.
bool
ParseReal(const std::string& s, double lo, double hi, double* v)
{
    if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(s.c_str(), &end);
    if (errno != 0 || *end != '\0' || !std::isfinite(x) || x < lo || x > hi)
    {
        return false;
    }
    *v = x;
    return true;
}

/// Parse a non-negative finite real.
bool
ParseSeconds(const std::string& s, double* v)
{
    return ParseReal(s, 0, 1e6, v);
}

/// Read a whole text file into lines (CR of CRLF removed).
bool
ReadLines(const std::string& path,
          const char* what,
          std::vector<std::string>* lines,
          std::string* error)
{
    std::ifstream in(path);
    if (!in)
    {
        *error = path + ": cannot open " + what;
        return false;
    }
    std::string line;
    while (std::getline(in, line))
    {
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        lines->push_back(line);
    }
    if (in.bad())
    {
        *error = path + ": read error";
        return false;
    }
    return true;
}

/// "lines A-B" or "line A" (1-based).
std::string
LineRange(size_t first, size_t last)
{
    return first == last ? "line " + std::to_string(first)
                         : "lines " + std::to_string(first) + "-" + std::to_string(last);
}

/// Notice for lines after the announced count (HPCC reads only the announced count).
std::string
TrailingNotice(const std::string& path, size_t first, size_t last, uint64_t count, const char* what)
{
    return path + ": " + LineRange(first, last) + " after the " + std::to_string(count) +
           " announced " + what + " ignored (HPCC reads only the announced count)";
}

/**
 * Wire time in whole ns of wireBytes sent back to back, rounded down: RoceNetDevice carries
 * each frame's rounding error (under half a ns) to the next, so a run of frames takes more
 * than the exact time less 1 ns, that is at least this long.
 */
uint64_t
WireNs(uint64_t wireBytes, uint64_t rateBps)
{
    unsigned __int128 steps = static_cast<unsigned __int128>(wireBytes) * 8 * 1000000000ULL;
    return static_cast<uint64_t>(steps / rateBps);
}

/// Number printed with full precision (for attribute values).
std::string
Exact(double v)
{
    std::ostringstream os;
    os << std::setprecision(17) << v;
    return os.str();
}

/**
 * Sets attribute defaults (Config::SetDefault) for the life of the object and restores the
 * previous ones when it goes: switch MMUs are created by RoceSwitch's constructor with
 * defaults, so a run's switch settings can only be defaults, and they must not leak into the
 * next simulation of the same process.
 */
class ScopedDefaults
{
  public:
    ~ScopedDefaults()
    {
        for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it)
        {
            Config::SetDefaultFailSafe(it->first, *it->second);
        }
    }

    /// \return false if the attribute does not exist or refuses the value
    bool Set(const std::string& typeName, const std::string& attribute, const std::string& value)
    {
        TypeId tid;
        TypeId::AttributeInformation info;
        if (!TypeId::LookupByNameFailSafe(typeName, &tid) ||
            !tid.LookupAttributeByName(attribute, &info))
        {
            return false;
        }
        const std::string name = typeName + "::" + attribute;
        Ptr<const AttributeValue> previous = info.initialValue;
        if (!Config::SetDefaultFailSafe(name, StringValue(value)))
        {
            return false;
        }
        m_saved.emplace_back(name, previous);
        return true;
    }

  private:
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_saved; //!< name, previous
};

/// true if the attribute typeName::attribute exists and accepts value.
bool
IsValidSetting(const std::string& typeName, const std::string& attribute, const std::string& value)
{
    TypeId tid;
    TypeId::AttributeInformation info;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid) ||
        !tid.LookupAttributeByName(attribute, &info))
    {
        return false;
    }
    return info.checker->CreateValidValue(StringValue(value)) != nullptr;
}

/// PCAP sink: writes the frame and remembers nothing else.
void
PcapSink(Ptr<PcapFileWrapper> file, Ptr<const Packet> p)
{
    file->Write(Simulator::Now(), p);
}

/// State of one run, target of the callbacks.
class HpccRun
{
  public:
    HpccRun(const std::vector<RoceHpccFlow>& flows,
            const std::vector<uint64_t>& ideal,
            std::FILE* fct,
            std::FILE* pfc,
            bool sharedQp)
        : m_flows(flows),
          m_ideal(ideal),
          m_fct(fct),
          m_pfc(pfc),
          m_sharedQp(sharedQp)
    {
    }

    /// Key of a (src, dst, priority): node ids are < 65536 (RoCE addresses).
    static uint64_t Key(uint32_t src, uint32_t dst, uint8_t priority)
    {
        return (uint64_t(src) << 24) | (uint64_t(dst) << 3) | priority;
    }

    void Start(uint32_t i)
    {
        const RoceHpccFlow& f = m_flows[i];
        Ptr<RdmaNic> nic = m_nodes.Get(f.src)->GetObject<RdmaNic>();
        RdmaWriteRequest request;
        request.dst = f.dst;
        request.bytes = f.bytes;
        request.priority = f.priority;
        request.lane = 0;
        if (!m_sharedQp)
        {
            // a QP of its own, as the HPCC family gives every flow: the first idle lane
            std::vector<uint32_t>& busy = m_lanes[Key(f.src, f.dst, f.priority)];
            if (busy.empty())
            {
                busy.assign(RdmaQueuePair::MAX_LANES, 0);
            }
            auto idle = std::find(busy.begin(), busy.end(), 0u);
            if (idle == busy.end())
            {
                idle = std::min_element(busy.begin(), busy.end());
                ++m_sharedQpFlows;
            }
            request.lane = static_cast<uint32_t>(idle - busy.begin());
            ++*idle;
        }
        if (!m_started)
        {
            m_started = true;
            m_firstStart = Simulator::Now();
        }
        uint64_t id = nic->Post(request, MakeCallback(&HpccRun::Done, this));
        m_byMessage[std::make_pair(f.src, id)] = i;
    }

    void Done(const RdmaMessageRecord& rec)
    {
        auto it = m_byMessage.find(std::make_pair(rec.src, rec.id));
        if (it == m_byMessage.end())
        {
            return;
        }
        const RoceHpccFlow& f = m_flows[it->second];
        if (!m_sharedQp)
        {
            --m_lanes[Key(f.src, f.dst, f.priority)][rec.lane];
        }
        m_byMessage.erase(it);
        if (rec.status != RdmaMessageRecord::SUCCESS)
        {
            ++m_failed; // it has no completion time
            StopWhenAllEnded();
            return;
        }
        uint64_t fctNs = static_cast<uint64_t>((rec.end - rec.start).GetNanoSeconds());
        uint64_t ideal = m_ideal[it->second];
        std::fprintf(m_fct,
                     "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                     RoceHpccFlows::NodeIp(f.src),
                     RoceHpccFlows::NodeIp(f.dst),
                     static_cast<unsigned>(rec.udpSourcePort),
                     static_cast<unsigned>(f.dport),
                     f.bytes,
                     f.startNs,
                     fctNs,
                     ideal);
        if (fctNs < ideal)
        {
            ++m_belowIdeal;
        }
        m_lastEnd = Simulator::Now();
        ++m_finished;
        StopWhenAllEnded();
    }

    void StopWhenAllEnded()
    {
        if (m_finished + m_failed == m_flows.size())
        {
            Simulator::Stop();
        }
    }

    static void Pfc(HpccRun* run,
                    uint32_t node,
                    uint32_t port,
                    uint8_t priority,
                    bool sent,
                    bool pause)
    {
        std::fprintf(run->m_pfc,
                     "%" PRIu64 " %u %u %u %s %s\n",
                     static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()),
                     node,
                     port,
                     static_cast<unsigned>(priority),
                     pause ? "pause" : "resume",
                     sent ? "sent" : "received");
        ++run->m_pfcEvents;
    }

    static void PfcPause(HpccRun* run, uint32_t node, uint32_t port, uint8_t priority, bool sent)
    {
        Pfc(run, node, port, priority, sent, true);
    }

    static void PfcResume(HpccRun* run, uint32_t node, uint32_t port, uint8_t priority, bool sent)
    {
        Pfc(run, node, port, priority, sent, false);
    }

    NodeContainer m_nodes;
    const std::vector<RoceHpccFlow>& m_flows;
    const std::vector<uint64_t>& m_ideal;
    std::FILE* m_fct;
    std::FILE* m_pfc;
    bool m_sharedQp;
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> m_byMessage;
    std::unordered_map<uint64_t, std::vector<uint32_t>> m_lanes; //!< running flows per lane
    uint64_t m_finished{0};
    uint64_t m_failed{0}; //!< flows whose message failed
    uint64_t m_belowIdeal{0};
    uint64_t m_sharedQpFlows{0};
    uint64_t m_pfcEvents{0};
    bool m_started{false};
    Time m_firstStart;
    Time m_lastEnd;
};

} // namespace

bool
RocePcapFiles::Open(const std::string& prefix,
                    const NetDeviceContainer& devices,
                    std::string* error)
{
    PcapHelper pcapHelper;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(devices.Get(i));
        if (!dev)
        {
            continue;
        }
        std::string name = pcapHelper.GetFilenameFromDevice(prefix, dev);
        Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
        file->Open(name, std::ios::out);
        if (file->Fail())
        {
            *error = name + ": cannot open for writing";
            return false;
        }
        file->Init(PcapHelper::DLT_EN10MB);
        if (file->Fail())
        {
            *error = name + ": writing failed";
            return false;
        }
        dev->TraceConnectWithoutContext("Sniffer", MakeBoundCallback(&PcapSink, file));
        m_files.emplace_back(name, file);
    }
    return true;
}

bool
RocePcapFiles::Close(std::string* error)
{
    bool ok = true;
    for (auto& f : m_files)
    {
        f.second->Close();
        if (f.second->Fail() && ok)
        {
            *error = f.first + ": writing failed";
            ok = false;
        }
    }
    return ok;
}

bool
RoceHpccFlows::ParseFlowFile(const std::string& path,
                             const tn_topology* topo,
                             std::vector<RoceHpccFlow>* flows,
                             std::string* error,
                             bool ignoreTrailing,
                             std::string* notice)
{
    std::vector<std::string> text;
    if (!ReadLines(path, "flow file", &text, error))
    {
        return false;
    }
    flows->clear();
    uint32_t nodes = tn_topology_node_count(topo);
    uint32_t lineNo = 0;
    bool haveCount = false;
    uint64_t count = 0;
    auto fail = [&](const std::string& what) {
        *error = path + ":" + std::to_string(lineNo) + ": " + what;
        return false;
    };
    for (const std::string& line : text)
    {
        ++lineNo;
        std::vector<std::string> f = SplitFields(line);
        if (f.empty())
        {
            continue; // blank line
        }
        if (!haveCount)
        {
            if (f.size() != 1)
            {
                return fail("first line must hold the number of flows only, found " +
                            std::to_string(f.size()) + " fields");
            }
            if (!ParseUnsigned(f[0], UINT32_MAX, &count))
            {
                return fail("number of flows '" + f[0] + "' is not a non-negative integer");
            }
            haveCount = true;
            continue;
        }
        if (flows->size() == count)
        {
            if (ignoreTrailing)
            {
                if (notice)
                {
                    *notice = TrailingNotice(path, lineNo, text.size(), count, "flows");
                }
                break;
            }
            return fail("more flow lines than the " + std::to_string(count) + " announced");
        }
        if (f.size() != 6)
        {
            return fail("expected 6 fields 'src dst priority dst_port size_bytes "
                        "start_seconds', found " +
                        std::to_string(f.size()));
        }
        RoceHpccFlow flow;
        flow.line = lineNo;
        uint64_t v;
        const char* names[2] = {"src", "dst"};
        uint32_t ends[2];
        for (int k = 0; k < 2; ++k)
        {
            if (!ParseUnsigned(f[k], UINT32_MAX, &v))
            {
                return fail(std::string(names[k]) + " '" + f[k] + "' is not a node id");
            }
            if (v >= nodes)
            {
                return fail(std::string(names[k]) + " node " + f[k] + " out of range (" +
                            std::to_string(nodes) + " nodes)");
            }
            if (tn_topology_node_kind(topo, static_cast<uint32_t>(v)) != TN_NODE_NPU)
            {
                return fail(std::string(names[k]) + " node " + f[k] + " is a switch");
            }
            ends[k] = static_cast<uint32_t>(v);
        }
        flow.src = ends[0];
        flow.dst = ends[1];
        if (flow.src == flow.dst)
        {
            return fail("src and dst are the same node " + f[0]);
        }
        if (!ParseUnsigned(f[2], 7, &v))
        {
            return fail("priority '" + f[2] + "' is not an integer in 0..7");
        }
        flow.priority = static_cast<uint8_t>(v);
        if (!ParseUnsigned(f[3], 65535, &v))
        {
            return fail("dst_port '" + f[3] + "' is not an integer in 0..65535");
        }
        flow.dport = static_cast<uint16_t>(v);
        if (!ParseUnsigned(f[4], TN_BYTES_MAX, &v))
        {
            return fail("size_bytes '" + f[4] + "' is not an integer in 0..2^62");
        }
        flow.bytes = v;
        double start;
        if (!ParseSeconds(f[5], &start))
        {
            return fail("start_seconds '" + f[5] + "' is not a time in seconds (0..1e6)");
        }
        flow.startNs = static_cast<uint64_t>(std::llround(start * 1e9));
        flows->push_back(flow);
    }
    if (!haveCount)
    {
        lineNo = lineNo == 0 ? 1 : lineNo;
        return fail("empty flow file (no flow count)");
    }
    if (flows->size() != count)
    {
        return fail("file ends after " + std::to_string(flows->size()) + " flows, " +
                    std::to_string(count) + " announced");
    }
    return true;
}

bool
RoceHpccFlows::LoadTopology(const std::string& path,
                            tn_topology** topo,
                            uint32_t* torCount,
                            std::string* error,
                            bool ignoreTrailing,
                            std::string* notice)
{
    *topo = nullptr;
    *torCount = 0;
    std::vector<std::string> lines;
    if (!ReadLines(path, "topology file", &lines, error))
    {
        return false;
    }
    // The core reads the 3-number header; the 4-number variant (N_nodes N_switches N_ToRs
    // N_links) is rewritten to it on the same line, so the core's errors keep their lines.
    size_t header = 0;
    while (header < lines.size() && SplitFields(lines[header]).empty())
    {
        ++header;
    }
    uint64_t counts[4] = {0, 0, 0, 0};
    bool parsed = false;
    if (header < lines.size())
    {
        std::vector<std::string> f = SplitFields(lines[header]);
        parsed = f.size() == 3 || f.size() == 4;
        for (size_t i = 0; parsed && i < f.size(); ++i)
        {
            parsed = ParseUnsigned(f[i], UINT32_MAX - 1, &counts[i]);
        }
        if (parsed && f.size() == 4)
        {
            if (counts[2] > counts[1])
            {
                *error = path + ":" + std::to_string(header + 1) + ": N_ToRs " + f[2] +
                         " is more than N_switches " + f[1];
                return false;
            }
            *torCount = static_cast<uint32_t>(counts[2]);
            lines[header] = f[0] + " " + f[1] + " " + f[3];
            counts[2] = counts[3];
        }
    }
    if (parsed && ignoreTrailing)
    {
        // HPCC reads the switch line and N_links link lines, nothing after them
        size_t i = header + 1;
        uint64_t wanted = counts[2] + (counts[1] > 0 ? 1 : 0);
        while (i < lines.size() && wanted > 0)
        {
            wanted -= SplitFields(lines[i]).empty() ? 0 : 1;
            ++i;
        }
        size_t firstExtra = i;
        while (firstExtra < lines.size() && SplitFields(lines[firstExtra]).empty())
        {
            ++firstExtra;
        }
        if (wanted == 0 && firstExtra < lines.size())
        {
            if (notice)
            {
                *notice = TrailingNotice(path, firstExtra + 1, lines.size(), counts[2], "links");
            }
            lines.resize(i);
        }
    }
    std::string text;
    for (const auto& l : lines)
    {
        text += l;
        text += '\n';
    }
    tn_error err;
    if (tn_topology_load_text(text.c_str(), path.c_str(), topo, &err) != TN_OK)
    {
        *error = err.message;
        *topo = nullptr;
        return false;
    }
    return true;
}

namespace
{

/// Config keys of the HPCC family the model has no counterpart for, with the reason.
struct IgnoredKey
{
    const char* key;    //!< the key
    const char* reason; //!< why it is ignored
};

const IgnoredKey IGNORED_KEYS[] = {
    {"DCTCP_RATE_AI", "DCTCP (CC_MODE 8) is not modelled"},
    {"HAS_WIN", "HPCC's sending window is not modelled: DCQCN paces by rate only"},
    {"GLOBAL_T", "HPCC's sending window is not modelled: DCQCN paces by rate only"},
    {"VAR_WIN", "HPCC's sending window is not modelled: DCQCN paces by rate only"},
    {"FAST_REACT", "HPCC (INT-based congestion control) is not modelled"},
    {"U_TARGET", "HPCC (INT-based congestion control) is not modelled"},
    {"MI_THRESH", "HPCC (INT-based congestion control) is not modelled"},
    {"INT_MULTI", "HPCC (INT-based congestion control) is not modelled"},
    {"MULTI_RATE", "HPCC (INT-based congestion control) is not modelled"},
    {"SAMPLE_FEEDBACK", "HPCC (INT-based congestion control) is not modelled"},
    {"PINT_LOG_BASE", "HPCC-PINT is not modelled"},
    {"PINT_PROB", "HPCC-PINT is not modelled"},
    {"RATE_BOUND", "pacing at the congestion-control rate is always on"},
    {"L2_BACK_TO_ZERO", "retransmission always goes back to the first unacknowledged PSN"},
    {"ENABLE_TRACE", "packet traces: use --pcap=PREFIX (Wireshark) or the results database"},
    {"TRACE_FILE", "packet traces: use --pcap=PREFIX (Wireshark) or the results database"},
    {"TRACE_OUTPUT_FILE", "packet traces: use --pcap=PREFIX (Wireshark) or the results database"},
    {"TRACE_NODE", "packet traces: use --pcap=PREFIX (Wireshark) or the results database"},
    {"QLEN_MON_FILE", "monitors: the results database (StatsHelper) samples every port"},
    {"QLEN_MON_START", "monitors: the results database (StatsHelper) samples every port"},
    {"QLEN_MON_END", "monitors: the results database (StatsHelper) samples every port"},
    {"QLEN_MON_INTERVAL", "monitors: the results database (StatsHelper) samples every port"},
    {"BW_MON_FILE", "monitors: the results database (StatsHelper) samples every port"},
    {"BW_MON_INTERVAL", "monitors: the results database (StatsHelper) samples every port"},
    {"RATE_MON_FILE", "monitors: the results database (StatsHelper) records every flow"},
    {"CNP_MON_FILE", "monitors: the results database (StatsHelper) records every flow"},
    {"QP_MON_INTERVAL", "monitors: the results database (StatsHelper) records every flow"},
    {"MON_START", "monitors: the results database (StatsHelper) samples every port"},
    {"MON_END", "monitors: the results database (StatsHelper) samples every port"},
    {"PAUSE_TIME",
     "PAUSE frames carry ns3::RoceNetDevice::PauseQuanta and are refreshed while congested"},
    {"DATA_RATE", "link rates come from the topology file (as in HPCC)"},
    {"LINK_DELAY", "link delays come from the topology file (as in HPCC)"},
};

/// Keys the runner maps (for the unknown-key check and the duplicate check).
const char* const MAPPED_KEYS[] = {
    "ENABLE_QCN",
    "USE_DYNAMIC_PFC_THRESHOLD",
    "PACKET_PAYLOAD_SIZE",
    "TOPOLOGY_FILE",
    "FLOW_FILE",
    "FCT_OUTPUT_FILE",
    "PFC_OUTPUT_FILE",
    "SIMULATOR_STOP_TIME",
    "CC_MODE",
    "ALPHA_RESUME_INTERVAL",
    "RATE_DECREASE_INTERVAL",
    "CLAMP_TARGET_RATE",
    "RP_TIMER",
    "EWMA_GAIN",
    "FAST_RECOVERY_TIMES",
    "RATE_AI",
    "RATE_HAI",
    "MIN_RATE",
    "ERROR_RATE_PER_LINK",
    "L2_CHUNK_SIZE",
    "L2_ACK_INTERVAL",
    "ACK_HIGH_PRIO",
    "LINK_DOWN",
    "KMAX_MAP",
    "KMIN_MAP",
    "PMAX_MAP",
    "BUFFER_SIZE",
};

/// Largest stop time ns-3 can simulate (64-bit ns, about 292 years).
constexpr double NS3_MAX_SECONDS = 9.2e9;

} // namespace

bool
RoceHpccFlows::ParseConfigFile(const std::string& path,
                               const std::string& baseDir,
                               bool ignoreUnknown,
                               RoceHpccConfig* cfg,
                               std::string* error)
{
    std::vector<std::string> text;
    if (!ReadLines(path, "config file", &text, error))
    {
        return false;
    }
    cfg->configFile = path;
    cfg->ignoreTrailingLines = true;
    std::map<std::string, uint32_t> seen;
    uint32_t lineNo = 0;
    std::string key;
    auto fail = [&](const std::string& what) {
        *error = path + ":" + std::to_string(lineNo) + ": " + key + ": " + what;
        return false;
    };
    auto setting = [&](const char* type, const std::string& attribute, const std::string& value) {
        cfg->settings.push_back({type, attribute, value, key, lineNo});
    };
    auto file = [&](const std::string& name) {
        return baseDir.empty() || name.empty() || name[0] == '/' ? name : baseDir + "/" + name;
    };
    // microseconds (HPCC's unit of the DCQCN timers) to an ns-3 time string
    auto micro = [&](const std::string& v, std::string* out) {
        double us;
        if (!ParseReal(v, 0.001, 1e9, &us))
        {
            return false;
        }
        *out = std::to_string(std::llround(us * 1000)) + "ns";
        return true;
    };
    auto rate = [&](const std::string& v, uint64_t* bps) {
        tn_error err;
        return tn_topology_parse_rate(v.c_str(), SIZE_MAX, key.c_str(), bps, &err) == TN_OK;
    };
    uint64_t ackBytes = 0;
    uint64_t chunkBytes = 0;
    uint32_t ackLine = 0;
    bool payloadGiven = false;
    for (const std::string& line : text)
    {
        ++lineNo;
        std::vector<std::string> f = SplitFields(line);
        if (f.empty() || f[0][0] == '#')
        {
            continue;
        }
        key = f[0];
        const std::vector<std::string> args(f.begin() + 1, f.end());
        auto previous = seen.find(key);
        if (previous != seen.end())
        {
            return fail("given twice (first on line " + std::to_string(previous->second) + ")");
        }
        seen[key] = lineNo;
        const IgnoredKey* ignored = nullptr;
        for (const auto& k : IGNORED_KEYS)
        {
            ignored = key == k.key ? &k : ignored;
        }
        std::string joined;
        for (const auto& a : args)
        {
            joined += (joined.empty() ? "" : " ") + a;
        }
        if (ignored)
        {
            cfg->ignored.push_back({key, joined, lineNo, ignored->reason});
            continue;
        }
        bool mapped = false;
        for (const char* k : MAPPED_KEYS)
        {
            mapped = mapped || key == k;
        }
        if (!mapped)
        {
            if (ignoreUnknown)
            {
                cfg->ignored.push_back({key, joined, lineNo, "unknown key"});
                continue;
            }
            return fail("unknown key (known keys: doc/roce-hpcc-migration.rst; "
                        "--ignore-unknown-keys lists and skips such keys)");
        }
        const bool isMap = key == "KMAX_MAP" || key == "KMIN_MAP" || key == "PMAX_MAP";
        const size_t want = key == "LINK_DOWN" ? 3 : 1;
        if (!isMap && args.size() != want)
        {
            return fail("expected " + std::to_string(want) + " value" + (want > 1 ? "s" : "") +
                        ", found " + std::to_string(args.size()));
        }
        const std::string a = args.empty() ? "" : args[0];
        uint64_t u = 0;
        double d = 0;
        std::string s;
        if (key == "ENABLE_QCN" || key == "CLAMP_TARGET_RATE" ||
            key == "USE_DYNAMIC_PFC_THRESHOLD" || key == "ACK_HIGH_PRIO")
        {
            if (!ParseUnsigned(a, 1, &u))
            {
                return fail("'" + a + "' is not 0 or 1");
            }
            if (key == "ENABLE_QCN")
            {
                setting("ns3::RoceSwitchMmu", "EcnEnabled", u ? "true" : "false");
            }
            else if (key == "CLAMP_TARGET_RATE")
            {
                setting("ns3::RdmaNic", "ClampTargetRate", u ? "true" : "false");
            }
            else if (key == "USE_DYNAMIC_PFC_THRESHOLD")
            {
                if (u)
                {
                    setting("", "dynamic PFC threshold", "ns3::RoceSwitchMmu::Alpha x free buffer");
                }
                else
                {
                    cfg->ignored.push_back({key,
                                            a,
                                            lineNo,
                                            "static PFC thresholds are not modelled: the dynamic "
                                            "threshold ns3::RoceSwitchMmu::Alpha x free buffer "
                                            "is used"});
                }
            }
            else if (u)
            {
                setting("", "ACKs", "strict-priority control queue");
            }
            else
            {
                cfg->ignored.push_back(
                    {key, a, lineNo, "ACKs and CNPs always use the strict-priority control queue"});
            }
        }
        else if (key == "PACKET_PAYLOAD_SIZE")
        {
            if (!ParseUnsigned(a, 9000, &u) || u < 256)
            {
                return fail("'" + a + "' is not a payload size in bytes in 256..9000");
            }
            cfg->mtu = static_cast<uint32_t>(u);
            payloadGiven = true;
            setting("", "--mtu", a);
        }
        else if (key == "TOPOLOGY_FILE" || key == "FLOW_FILE" || key == "FCT_OUTPUT_FILE" ||
                 key == "PFC_OUTPUT_FILE")
        {
            std::string& target = key == "TOPOLOGY_FILE"     ? cfg->topologyFile
                                  : key == "FLOW_FILE"       ? cfg->flowFile
                                  : key == "FCT_OUTPUT_FILE" ? cfg->fctFile
                                                             : cfg->pfcFile;
            target = file(a);
            setting("",
                    key == "TOPOLOGY_FILE"     ? "--topology"
                    : key == "FLOW_FILE"       ? "--flows"
                    : key == "FCT_OUTPUT_FILE" ? "--fct"
                                               : "--pfc",
                    target);
        }
        else if (key == "SIMULATOR_STOP_TIME")
        {
            if (!ParseReal(a, 0, 1e300, &d))
            {
                return fail("'" + a + "' is not a time in seconds (>= 0)");
            }
            if (d > NS3_MAX_SECONDS)
            {
                cfg->stopSeconds = 0;
                cfg->notices.push_back(path + ":" + std::to_string(lineNo) +
                                       ": SIMULATOR_STOP_TIME " + a +
                                       " s is beyond ns-3's time range (9.2e9 s): the run "
                                       "ends when every flow has finished");
                setting("", "--stop", "0 (until every flow finished)");
            }
            else
            {
                cfg->stopSeconds = d;
                setting("", "--stop", a);
            }
        }
        else if (key == "CC_MODE")
        {
            if (!ParseUnsigned(a, UINT32_MAX, &u))
            {
                return fail("'" + a + "' is not a CC_MODE number");
            }
            const char* name = u == 3    ? "HPCC"
                               : u == 7  ? "TIMELY"
                               : u == 8  ? "DCTCP"
                               : u == 10 ? "HPCC-PINT"
                                         : nullptr;
            if (u != 1 && !name)
            {
                return fail("'" + a +
                            "' is not a CC_MODE of the HPCC family (1 DCQCN, 3 HPCC, 7 "
                            "TIMELY, 8 DCTCP, 10 HPCC-PINT)");
            }
            cfg->cc = "dcqcn";
            if (name)
            {
                cfg->ignored.push_back({key,
                                        a,
                                        lineNo,
                                        std::string(name) +
                                            " is not modelled: DCQCN runs instead (--cc=dcqcn|none "
                                            "chooses explicitly)"});
            }
            setting("", "--cc", "dcqcn");
            // HPCC's DCQCN: one additive-increase stage before hyper increase, no byte counter
            setting("ns3::RdmaNic", "AdditiveStages", "1");
            setting("ns3::RdmaNic", "ByteCounter", "0");
        }
        else if (key == "ALPHA_RESUME_INTERVAL" || key == "RATE_DECREASE_INTERVAL" ||
                 key == "RP_TIMER")
        {
            if (!micro(a, &s))
            {
                return fail("'" + a + "' is not a time in microseconds (0.001 .. 1e9)");
            }
            setting("ns3::RdmaNic",
                    key == "ALPHA_RESUME_INTERVAL"    ? "AlphaUpdatePeriod"
                    : key == "RATE_DECREASE_INTERVAL" ? "RateDecreasePeriod"
                                                      : "RateIncreasePeriod",
                    s);
        }
        else if (key == "EWMA_GAIN")
        {
            if (!ParseReal(a, 0, 1, &d) || d == 0)
            {
                return fail("'" + a + "' is not a gain in (0, 1]");
            }
            setting("ns3::RdmaNic", "DcqcnG", Exact(d));
        }
        else if (key == "FAST_RECOVERY_TIMES")
        {
            if (!ParseUnsigned(a, UINT32_MAX, &u))
            {
                return fail("'" + a + "' is not a non-negative integer");
            }
            setting("ns3::RdmaNic", "FastRecoveryStages", a);
        }
        else if (key == "RATE_AI" || key == "RATE_HAI" || key == "MIN_RATE")
        {
            if (!rate(a, &u) || u == 0)
            {
                return fail("'" + a + "' is not a rate above 0 (e.g. 50Mb/s, 100Mbps)");
            }
            setting("ns3::RdmaNic",
                    key == "RATE_AI"    ? "AdditiveIncrease"
                    : key == "RATE_HAI" ? "HyperIncrease"
                                        : "MinRate",
                    std::to_string(u) + "bps");
            cfg->rateStepsAbsolute = cfg->rateStepsAbsolute || key != "MIN_RATE";
        }
        else if (key == "ERROR_RATE_PER_LINK")
        {
            if (!ParseReal(a, 0, 1, &d) || d >= 1)
            {
                return fail("'" + a + "' is not an error rate in [0, 1) (1 loses every packet)");
            }
            cfg->errorRatePerLink = d;
            setting("", "error model on links whose error_rate is 0", Exact(d));
        }
        else if (key == "L2_CHUNK_SIZE" || key == "L2_ACK_INTERVAL")
        {
            if (!ParseUnsigned(a, UINT32_MAX, &u))
            {
                return fail("'" + a + "' is not a number of bytes");
            }
            (key == "L2_CHUNK_SIZE" ? chunkBytes : ackBytes) = u;
            ackLine = std::max(ackLine, lineNo);
        }
        else if (key == "LINK_DOWN")
        {
            if (args[0] != "0" || args[1] != "0" || args[2] != "0")
            {
                return fail("'" + joined + "': link failures are not modelled (LINK_DOWN 0 0 0)");
            }
            setting("", "link failures", "none");
        }
        else if (key == "BUFFER_SIZE")
        {
            if (!ParseUnsigned(a, UINT64_C(1) << 32, &u) || u == 0)
            {
                return fail("'" + a + "' is not a buffer size in MB (1 .. 2^32)");
            }
            setting("ns3::RoceSwitchMmu", "BufferSize", std::to_string(u * 1024 * 1024));
        }
        else if (isMap)
        {
            RoceHpccRateMap& m = key == "KMAX_MAP"   ? cfg->kmax
                                 : key == "KMIN_MAP" ? cfg->kmin
                                                     : cfg->pmax;
            if (args.empty() || !ParseUnsigned(args[0], 1000, &u) || u == 0)
            {
                return fail("the first value must be the number of (rate, value) pairs");
            }
            if (args.size() != 1 + 2 * u)
            {
                return fail(args[0] + " pairs announced, " + std::to_string(args.size() - 1) +
                            " values follow");
            }
            m.entries.clear();
            m.line = lineNo;
            setting("", "ECN at each switch-port rate", "resolved against the topology");
            for (uint64_t i = 0; i < u; ++i)
            {
                uint64_t bps;
                const std::string& r = args[1 + 2 * i];
                const std::string& v = args[2 + 2 * i];
                if (!rate(r, &bps) || bps == 0)
                {
                    return fail("'" + r + "' is not a link rate in bit/s");
                }
                const bool ok = key == "PMAX_MAP"
                                    ? ParseReal(v, 0, 1, &d)
                                    : ParseReal(v, 0, 4e9, &d) &&
                                          v.find_first_not_of("0123456789") == std::string::npos;
                if (!ok)
                {
                    return fail("'" + v + "' is not " +
                                (key == "PMAX_MAP" ? "a probability in [0, 1]"
                                                   : "a threshold in KB (integer)"));
                }
                m.entries.emplace_back(bps, d);
            }
        }
    }
    if (ackLine)
    {
        // HPCC acknowledges when the received bytes pass the next multiple of L2_ACK_INTERVAL
        // and at every L2_CHUNK_SIZE boundary: in packets, the smaller of the two, at least 1
        uint64_t bytes = ackBytes == 0     ? chunkBytes
                         : chunkBytes == 0 ? ackBytes
                                           : std::min(ackBytes, chunkBytes);
        uint64_t packets = bytes == 0 ? 1 : std::max<uint64_t>(1, bytes / cfg->mtu);
        key = ackBytes && chunkBytes ? "L2_ACK_INTERVAL+L2_CHUNK_SIZE"
              : ackBytes             ? "L2_ACK_INTERVAL"
                                     : "L2_CHUNK_SIZE";
        lineNo = ackLine;
        if (packets > UINT32_MAX)
        {
            return fail("ACK interval of " + std::to_string(packets) + " packets is too large");
        }
        setting("ns3::RdmaNic", "AckInterval", std::to_string(packets));
    }
    if (!payloadGiven)
    {
        cfg->notices.push_back(path + ": no PACKET_PAYLOAD_SIZE: payload " +
                               std::to_string(cfg->mtu) + " bytes");
    }
    for (const auto& st : cfg->settings)
    {
        if (!st.typeName.empty() && !IsValidSetting(st.typeName, st.attribute, st.value))
        {
            *error = path + ":" + std::to_string(st.line) + ": " + st.key + ": " + st.typeName +
                     "::" + st.attribute + " refuses '" + st.value + "'";
            return false;
        }
    }
    return true;
}

uint64_t
RoceHpccFlows::IdealFctNs(const tn_topology* topo,
                          const void* routesPtr,
                          const RoceHpccFlow& flow,
                          uint32_t mtu)
{
    const tn_routes* routes = static_cast<const tn_routes*>(routesPtr);
    uint32_t dist = tn_routes_distance(routes, flow.src, flow.dst);
    NS_ABORT_MSG_IF(dist == TN_ROUTES_UNREACHABLE,
                    "no route from " << flow.src << " to " << flow.dst);
    std::vector<uint32_t> path(dist);
    uint32_t len = 0;
    tn_error err;
    if (tn_routes_path(routes, flow.src, flow.dst, 0, path.data(), dist, &len, &err) != TN_OK)
    {
        NS_FATAL_ERROR("ideal FCT: " << err.message);
    }
    const uint64_t overhead = RdmaNic::DATA_WIRE_OVERHEAD;
    const uint64_t packets = flow.bytes == 0 ? 1 : (flow.bytes - 1) / mtu + 1;
    const uint64_t firstPayload = std::min<uint64_t>(flow.bytes, mtu);
    const uint64_t lastPayload = flow.bytes - (packets - 1) * mtu;
    const uint64_t fullPayload = mtu;
    const uint64_t ackWire = 86;
    uint64_t base = 0;
    std::vector<uint64_t> tFirst(len);
    std::vector<uint64_t> tLast(len);
    std::vector<uint64_t> tAll(len);
    for (uint32_t h = 0; h < len; ++h)
    {
        const tn_link* l = tn_topology_link(topo, path[h]);
        const tn_link* back = tn_topology_link(topo, l->reverse);
        base += l->latency_ns + back->latency_ns + WireNs(ackWire, back->rate_bps);
        uint64_t r = l->rate_bps;
        tFirst[h] = WireNs(firstPayload + overhead + RdmaNic::RETH_BYTES, r);
        if (packets == 1)
        {
            tLast[h] = tFirst[h];
            tAll[h] = tFirst[h];
        }
        else
        {
            tLast[h] = WireNs(lastPayload + overhead, r);
            tAll[h] = WireNs(firstPayload + RdmaNic::RETH_BYTES + lastPayload +
                                 (packets - 2) * fullPayload + packets * overhead,
                             r);
        }
    }
    uint64_t pipeline = 0;
    for (uint32_t b = 0; b < len; ++b)
    {
        uint64_t t = tAll[b];
        for (uint32_t h = 0; h < b; ++h)
        {
            t += tFirst[h];
        }
        for (uint32_t h = b + 1; h < len; ++h)
        {
            t += tLast[h];
        }
        pipeline = std::max(pipeline, t);
    }
    return base + pipeline;
}

bool
RoceHpccFlows::Run(const RoceHpccConfig& config, RoceHpccResult* result, std::string* error)
{
    *result = RoceHpccResult();
    if (config.cc != "dcqcn" && config.cc != "none")
    {
        *error = "--cc: '" + config.cc + "' is not dcqcn or none";
        return false;
    }
    if (config.mtu < 256 || config.mtu > 9000)
    {
        *error = "--mtu: " + std::to_string(config.mtu) + " is not a payload size in 256..9000";
        return false;
    }
    if (config.seed == 0 || config.seed > ProgramOptions::MAX_SEED)
    {
        *error = "--seed: must be in 1.." + std::to_string(ProgramOptions::MAX_SEED) +
                 " (ns-3's MRG32k3a generator)";
        return false;
    }
    if (!(config.stopSeconds >= 0) || config.stopSeconds > NS3_MAX_SECONDS)
    {
        *error = "--stop: must be in 0 .. 9.2e9 s";
        return false;
    }
    if (!(config.errorRatePerLink >= 0 && config.errorRatePerLink < 1))
    {
        *error = "ERROR_RATE_PER_LINK must be in [0, 1)";
        return false;
    }
    const std::string where = config.configFile.empty() ? "" : config.configFile + ":";
    for (const auto& st : config.settings)
    {
        if (!st.typeName.empty() && !IsValidSetting(st.typeName, st.attribute, st.value))
        {
            *error = where + std::to_string(st.line) + ": " + st.key + ": " + st.typeName +
                     "::" + st.attribute + " refuses '" + st.value + "'";
            return false;
        }
    }
    tn_topology* topo = nullptr;
    std::string notice;
    if (!LoadTopology(config.topologyFile,
                      &topo,
                      &result->torCount,
                      error,
                      config.ignoreTrailingLines,
                      &notice))
    {
        return false;
    }
    if (!notice.empty())
    {
        result->notices.push_back(notice);
        notice.clear();
    }
    std::vector<RoceHpccFlow> flows;
    if (!ParseFlowFile(config.flowFile, topo, &flows, error, config.ignoreTrailingLines, &notice))
    {
        tn_topology_destroy(topo);
        return false;
    }
    if (!notice.empty())
    {
        result->notices.push_back(notice);
    }

    // ECN maps of the config: one value per rate of the topology's switch ports
    std::vector<RoceHpccSetting> switchSettings;
    std::set<uint64_t> switchRates;
    for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
    {
        const tn_link* link = tn_topology_link(topo, l);
        if (tn_topology_node_kind(topo, link->src) != TN_NODE_NPU)
        {
            switchRates.insert(link->rate_bps);
        }
    }
    const RoceHpccRateMap* maps[3] = {&config.kmin, &config.kmax, &config.pmax};
    const char* mapNames[3] = {"KMIN_MAP", "KMAX_MAP", "PMAX_MAP"};
    const bool anyMap = config.kmin.line || config.kmax.line || config.pmax.line;
    for (int m = 0; anyMap && m < 3 && !switchRates.empty(); ++m)
    {
        auto fail = [&](uint32_t line, const std::string& what) {
            *error = where + std::to_string(line) + ": " + mapNames[m] + ": " + what;
            tn_topology_destroy(topo);
            return false;
        };
        if (!maps[m]->line)
        {
            int given = -1;
            for (int k = 0; k < 3; ++k)
            {
                if (maps[k]->line && (given < 0 || maps[k]->line < maps[given]->line))
                {
                    given = k;
                }
            }
            *error = where + std::to_string(maps[given]->line) + ": " + mapNames[given] +
                     ": given without " + mapNames[m] +
                     " (KMIN_MAP, KMAX_MAP and PMAX_MAP go together)";
            tn_topology_destroy(topo);
            return false;
        }
        std::vector<double> perRate;
        for (uint64_t r : switchRates)
        {
            auto it =
                std::find_if(maps[m]->entries.begin(),
                             maps[m]->entries.end(),
                             [r](const std::pair<uint64_t, double>& e) { return e.first == r; });
            if (it == maps[m]->entries.end())
            {
                return fail(maps[m]->line,
                            "no entry for " + std::to_string(r) +
                                " bit/s, a rate of the switch ports of " + config.topologyFile);
            }
            // thresholds in KB (1000 bytes), as HPCC's SwitchMmu::ConfigEcn reads them
            perRate.push_back(m == 2 ? it->second : it->second * 1000);
        }
        const std::string attr = m == 0 ? "EcnKmin" : m == 1 ? "EcnKmax" : "EcnPmax";
        const uint64_t r0 = *switchRates.begin();
        if (m == 2)
        {
            for (double p : perRate)
            {
                if (p != perRate[0])
                {
                    return fail(maps[m]->line,
                                "differs between the rates of the switch ports; "
                                "ns3::RoceSwitchMmu::EcnPmax is one value per switch");
                }
            }
            switchSettings.push_back(
                {"ns3::RoceSwitchMmu", attr, Exact(perRate[0]), mapNames[m], maps[m]->line});
            continue;
        }
        if (switchRates.size() == 1)
        {
            switchSettings.push_back(
                {"ns3::RoceSwitchMmu", "EcnScaleWithRate", "false", mapNames[m], maps[m]->line});
            switchSettings.push_back({"ns3::RoceSwitchMmu",
                                      attr,
                                      std::to_string(std::llround(perRate[0])),
                                      mapNames[m],
                                      maps[m]->line});
            continue;
        }
        // several rates: the MMU scales one threshold (at 25 Gb/s) with the port rate
        const double at25 = perRate[0] * 25e9 / double(r0);
        size_t i = 0;
        for (uint64_t r : switchRates)
        {
            if (std::fabs(perRate[i] * 25e9 / double(r) - at25) > 1e-6 * at25 + 0.5)
            {
                return fail(maps[m]->line,
                            "the thresholds at the switch port rates are not proportional to "
                            "the rate (" +
                                std::to_string(r0) + " bit/s: " + Exact(perRate[0] / 1000) +
                                " KB, " + std::to_string(r) +
                                " bit/s: " + Exact(perRate[i] / 1000) +
                                " KB); ns3::RoceSwitchMmu scales one threshold with the rate");
            }
            ++i;
        }
        switchSettings.push_back(
            {"ns3::RoceSwitchMmu", "EcnScaleWithRate", "true", mapNames[m], maps[m]->line});
        switchSettings.push_back({"ns3::RoceSwitchMmu",
                                  attr,
                                  std::to_string(std::llround(at25)),
                                  mapNames[m],
                                  maps[m]->line});
    }
    if (anyMap && !switchRates.empty())
    {
        for (uint64_t r : switchRates)
        {
            double kmin = 0;
            double kmax = 0;
            for (const auto& e : config.kmin.entries)
            {
                kmin = e.first == r ? e.second : kmin;
            }
            for (const auto& e : config.kmax.entries)
            {
                kmax = e.first == r ? e.second : kmax;
            }
            if (kmin > kmax)
            {
                *error = where + std::to_string(config.kmin.line) + ": KMIN_MAP: " + Exact(kmin) +
                         " KB at " + std::to_string(r) + " bit/s is above KMAX_MAP's " +
                         Exact(kmax) + " KB";
                tn_topology_destroy(topo);
                return false;
            }
        }
    }

    // the ideal FCTs need routes toward the flows' destinations only (a fat-tree k=32 has
    // 8192 NPUs: routes toward all of them would take 155 MB and seconds)
    std::vector<uint32_t> destinations;
    for (const auto& f : flows)
    {
        destinations.push_back(f.dst);
    }
    std::sort(destinations.begin(), destinations.end());
    destinations.erase(std::unique(destinations.begin(), destinations.end()), destinations.end());
    tn_routes_options routeOptions{};
    routeOptions.dest_nodes = destinations.data();
    routeOptions.dest_count = static_cast<uint32_t>(destinations.size());
    tn_routes* routes = nullptr;
    tn_error err;
    if (tn_routes_create(topo, &routeOptions, &routes, &err) != TN_OK)
    {
        *error = config.topologyFile + ": routes: " + err.message;
        tn_topology_destroy(topo);
        return false;
    }
    std::vector<uint64_t> ideal;
    for (const auto& f : flows)
    {
        if (tn_routes_distance(routes, f.src, f.dst) == TN_ROUTES_UNREACHABLE)
        {
            *error = config.flowFile + ":" + std::to_string(f.line) + ": node " +
                     std::to_string(f.dst) + " is unreachable from node " + std::to_string(f.src);
            tn_routes_destroy(routes);
            tn_topology_destroy(topo);
            return false;
        }
        ideal.push_back(IdealFctNs(topo, routes, f, config.mtu));
    }
    auto cleanup = [&]() {
        tn_routes_destroy(routes);
        tn_topology_destroy(topo);
    };
    std::FILE* fct = std::fopen(config.fctFile.c_str(), "w");
    if (!fct)
    {
        *error = config.fctFile + ": cannot open for writing";
        cleanup();
        return false;
    }
    std::FILE* pfc = nullptr;
    if (!config.pfcFile.empty())
    {
        pfc = std::fopen(config.pfcFile.c_str(), "w");
        if (!pfc)
        {
            *error = config.pfcFile + ": cannot open for writing";
            std::fclose(fct);
            cleanup();
            return false;
        }
    }

    // switch MMUs take their attributes from the defaults when RoceSwitch creates them
    ScopedDefaults defaults;
    bool ok = defaults.Set("ns3::RoceSwitchMmu", "Mtu", std::to_string(config.mtu));
    RoceHelper helper;
    helper.SetNicAttribute("Mtu", UintegerValue(config.mtu));
    helper.SetNicAttribute("CongestionControl", StringValue(config.cc));
    // largest L3 packet: payload + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ImmDt 4 + ICRC 4
    helper.SetDeviceAttribute("Mtu", UintegerValue(std::max<uint32_t>(4200, config.mtu + 64)));
    result->ecnSettings = switchSettings;
    std::vector<RoceHpccSetting> all = config.settings;
    all.insert(all.end(), switchSettings.begin(), switchSettings.end());
    for (const auto& st : all)
    {
        if (st.typeName == "ns3::RdmaNic")
        {
            helper.SetNicAttribute(st.attribute, StringValue(st.value));
        }
        else if (st.typeName == "ns3::RoceNetDevice")
        {
            helper.SetDeviceAttribute(st.attribute, StringValue(st.value));
        }
        else if (st.typeName == "ns3::RoceSwitchMmu")
        {
            ok = defaults.Set(st.typeName, st.attribute, st.value) && ok;
        }
    }
    NS_ABORT_MSG_UNLESS(ok, "RoceHpccFlows: switch settings were validated before");

    // the seed is the run's; the process gets its own back (tests, sweeps in one process)
    struct SeedGuard
    {
        uint32_t seed{RngSeedManager::GetSeed()};
        uint64_t run{RngSeedManager::GetRun()};

        ~SeedGuard()
        {
            RngSeedManager::SetSeed(seed);
            RngSeedManager::SetRun(run);
        }
    } seedGuard;

    const std::string fabricError = helper.Check(topo);
    if (!fabricError.empty())
    {
        *error = fabricError; // what Install or the NICs would abort on
        std::fclose(fct);
        if (pfc)
        {
            std::fclose(pfc);
        }
        cleanup();
        return false;
    }
    RngSeedManager::SetSeed(config.seed);
    RngSeedManager::SetRun(1);
    RoceFabricNodes fabric = helper.Install(topo);
    int64_t stream = helper.AssignStreams(0);
    if (config.rateStepsAbsolute)
    {
        // HPCC's RATE_AI and RATE_HAI are steps per flow, the NIC's are per ReferenceRate of
        // link rate: a reference rate equal to the NIC's link rate makes them absolute
        for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
        {
            Ptr<RdmaNic> nic = helper.GetNic(r);
            if (nic->GetNPorts() > 0)
            {
                nic->SetAttribute("ReferenceRate", DataRateValue(nic->GetPort(0)->GetDataRate()));
            }
        }
    }
    if (config.errorRatePerLink > 0)
    {
        // HPCC applies ERROR_RATE_PER_LINK to the links whose own error_rate is 0; the devices
        // are two per cable in cable order (RoceHelper::Install), received at the other end
        uint32_t cable = 0;
        for (uint32_t l = 0; l < tn_topology_link_count(topo); ++l)
        {
            const tn_link* ab = tn_topology_link(topo, l);
            if (ab->reverse < l)
            {
                continue;
            }
            const tn_link* dirs[2] = {ab, tn_topology_link(topo, ab->reverse)};
            for (int k = 0; k < 2; ++k)
            {
                if (dirs[k]->error_rate == 0)
                {
                    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                    em->SetRate(config.errorRatePerLink);
                    stream += em->AssignStreams(stream);
                    DynamicCast<RoceNetDevice>(fabric.devices.Get(2 * cable + 1 - k))
                        ->SetReceiveErrorModel(em);
                }
            }
            ++cable;
        }
    }

    HpccRun run(flows, ideal, fct, pfc, config.sharedQp);
    run.m_nodes = fabric.nodes;
    if (pfc)
    {
        for (uint32_t v = 0; v < fabric.nodes.GetN(); ++v)
        {
            Ptr<RoceSwitch> sw = fabric.nodes.Get(v)->GetObject<RoceSwitch>();
            sw->TraceConnectWithoutContext("PfcPause",
                                           MakeBoundCallback(&HpccRun::PfcPause, &run, v));
            sw->TraceConnectWithoutContext("PfcResume",
                                           MakeBoundCallback(&HpccRun::PfcResume, &run, v));
        }
    }
    RocePcapFiles pcap;
    if (!config.pcapPrefix.empty() && !pcap.Open(config.pcapPrefix, fabric.devices, error))
    {
        std::fclose(fct);
        if (pfc)
        {
            std::fclose(pfc);
        }
        Simulator::Destroy();
        cleanup();
        return false;
    }
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        Simulator::Schedule(NanoSeconds(flows[i].startNs), &HpccRun::Start, &run, i);
    }
    if (config.stopSeconds > 0)
    {
        Simulator::Stop(Seconds(config.stopSeconds));
    }
    auto t0 = std::chrono::steady_clock::now();
    if (!flows.empty())
    {
        Simulator::Run();
    }
    auto t1 = std::chrono::steady_clock::now();

    result->flows = flows.size();
    result->finished = run.m_finished;
    result->failed = run.m_failed;
    result->fctBelowIdeal = run.m_belowIdeal;
    result->sharedQpFlows = run.m_sharedQpFlows;
    result->pfcEvents = run.m_pfcEvents;
    result->wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    result->simTime = Simulator::Now();
    result->events = Simulator::GetEventCount();
    for (uint32_t r = 0; r < fabric.npus.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = helper.GetNic(r);
        result->retransmittedBytes += nic->GetRetransmittedBytes();
        result->queuePairs += nic->GetNQueuePairs();
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQueuePairByIndex(q);
            uint32_t d = tn_routes_distance(routes, nic->GetLocalId(), qp->GetPeer());
            if (d != TN_ROUTES_UNREACHABLE)
            {
                result->dataPacketHops += qp->GetDataPacketsSent() * d;
            }
        }
    }
    // bottleneck: wire busy time of each directed link over the flows' span
    const Time end = run.m_finished == flows.size() ? run.m_lastEnd : Simulator::Now();
    const double span = (end - run.m_firstStart).GetSeconds();
    std::unordered_map<const Node*, uint32_t> nodeId;
    for (uint32_t v = 0; v < fabric.nodes.GetN(); ++v)
    {
        nodeId[PeekPointer(fabric.nodes.Get(v))] = v;
    }
    for (uint32_t i = 0; span > 0 && i < fabric.devices.GetN(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(fabric.devices.Get(i));
        const double bits =
            8.0 * double(dev->GetTxBytes() + dev->GetTxPackets() * RoceNetDevice::WIRE_OVERHEAD);
        const double u = bits / double(dev->GetDataRate().GetBitRate()) / span;
        if (u > result->bottleneckUtilisation)
        {
            result->bottleneckUtilisation = u;
            result->bottleneckSrc = nodeId[PeekPointer(dev->GetNode())];
            result->bottleneckPort = dev->GetPortIndex();
            result->bottleneckDst = nodeId[PeekPointer(dev->GetPeer()->GetNode())];
        }
    }
    const bool written = !std::ferror(fct);
    const bool closed = std::fclose(fct) == 0;
    bool pfcOk = true;
    if (pfc)
    {
        pfcOk = !std::ferror(pfc);
        pfcOk = std::fclose(pfc) == 0 && pfcOk;
    }
    std::string pcapError;
    const bool pcapOk = pcap.Close(&pcapError);
    Simulator::Destroy();
    cleanup();
    if (!written || !closed)
    {
        *error = config.fctFile + ": writing failed";
        return false;
    }
    if (!pfcOk)
    {
        *error = config.pfcFile + ": writing failed";
        return false;
    }
    if (!pcapOk)
    {
        *error = pcapError;
        return false;
    }
    return true;
}

} // namespace ns3
