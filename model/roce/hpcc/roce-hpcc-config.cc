/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc-config.h"

#include "ns3/attribute-settings.h"
#include "ns3/attribute.h"
#include "ns3/rdma-cc-registry.h"
#include "ns3/rdma-cc.h"
#include "ns3/string.h"
#include "ns3/tn-hpcc-files.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>

namespace ns3
{

namespace
{

/// Unsigned integer <= max; the whole field.
bool
ParseUnsigned(const std::string& s, uint64_t max, uint64_t* v)
{
    return tn_hpcc_parse_uint(s.c_str(), max, v);
}

/// Finite real in [lo, hi]; the whole field.
bool
ParseReal(const std::string& s, double lo, double hi, double* v)
{
    return tn_hpcc_parse_real(s.c_str(), lo, hi, v);
}

/// The value an ignored key takes, as the family reads it: a value of the wrong kind is an
/// error even where the key changes nothing, as a typo in it would be in the family's run.
enum IgnoredValue
{
    FLAG,      //!< 0 or 1
    WHOLE,     //!< a non-negative integer (times in ns, intervals)
    WHOLES,    //!< one or more non-negative integers (node ids)
    REAL,      //!< a number >= 0
    FILE_NAME, //!< one word
    RATE,      //!< a data rate above 0
    DELAY,     //!< a time with its unit
};

/// Config keys of the HPCC family the model has no counterpart for, with the reason.
struct IgnoredKey
{
    const char* key;    //!< the key
    IgnoredValue value; //!< what its value must be
    const char* reason; //!< why it is ignored
};

const char TRACES[] = "packet traces: use --pcap=PREFIX (Wireshark) or the results database";
const char PORTS[] = "monitors: the results database (StatsHelper) samples every port";
const char FLOWS[] = "monitors: the results database (StatsHelper) records every flow";
const char ANIM[] = "NetAnim output is not written: use --pcap=PREFIX or the results database";

const IgnoredKey IGNORED_KEYS[] = {
    {"RATE_BOUND", FLAG, "pacing at the congestion-control rate is always on"},
    {"L2_BACK_TO_ZERO", FLAG, "retransmission always goes back to the first unacknowledged PSN"},
    {"ENABLE_TRACE", FLAG, TRACES},
    {"TRACE_FILE", FILE_NAME, TRACES},
    {"TRACE_OUTPUT_FILE", FILE_NAME, TRACES},
    {"TRACE_NODE", WHOLES, TRACES},
    {"QLEN_MON_FILE", FILE_NAME, PORTS},
    {"QLEN_MON_START", WHOLE, PORTS},
    {"QLEN_MON_END", WHOLE, PORTS},
    {"QLEN_MON_INTERVAL", WHOLE, PORTS},
    {"BW_MON_FILE", FILE_NAME, PORTS},
    {"BW_MON_INTERVAL", WHOLE, PORTS},
    {"RATE_MON_FILE", FILE_NAME, FLOWS},
    {"CNP_MON_FILE", FILE_NAME, FLOWS},
    {"QP_MON_INTERVAL", WHOLE, FLOWS},
    // keys of forks that trace each queue pair's rate and window, or animate the topology
    {"ENABLE_CWND_TRACE", FLAG, FLOWS},
    {"CWND_OUTPUT_FILE", FILE_NAME, FLOWS},
    {"ENABLE_ANIM", FLAG, ANIM},
    {"ANIM_OUTPUT_FILE", FILE_NAME, ANIM},
    {"MON_START", WHOLE, PORTS},
    {"MON_END", WHOLE, PORTS},
    {"PAUSE_TIME",
     REAL,
     "PAUSE frames carry ns3::RoceNetDevice::PauseQuanta and are refreshed while congested"},
    {"DATA_RATE", RATE, "link rates come from the topology file (as in HPCC)"},
    {"LINK_DELAY", DELAY, "link delays come from the topology file (as in HPCC)"},
};

/**
 * Check the value of an ignored key for its kind.
 * \param k the key \param args its values \param why set to the problem
 * \return true when the values are of the key's kind
 */
bool
CheckIgnoredValue(const IgnoredKey& k, const std::vector<std::string>& args, std::string* why)
{
    if (k.value != WHOLES && args.size() != 1)
    {
        *why = "expected 1 value, found " + std::to_string(args.size());
        return false;
    }
    if (args.empty())
    {
        *why = "expected one or more node ids, found none";
        return false;
    }
    for (const std::string& a : args)
    {
        uint64_t u;
        double d;
        tn_error ignored;
        const std::string quoted = "'" + a + "' ";
        switch (k.value)
        {
        case FLAG:
            *why = ParseUnsigned(a, 1, &u) ? "" : quoted + "is not 0 or 1";
            break;
        case WHOLE:
        case WHOLES:
            *why = ParseUnsigned(a, UINT64_MAX, &u) ? "" : quoted + "is not a non-negative integer";
            break;
        case REAL:
            *why = ParseReal(a, 0, 1e300, &d) ? "" : quoted + "is not a number >= 0";
            break;
        case FILE_NAME:
            *why = "";
            break;
        case RATE:
            *why = tn_units_parse_rate(a.c_str(), SIZE_MAX, k.key, &u, &ignored) == TN_OK && u > 0
                       ? ""
                       : quoted + "is not a rate above 0 (e.g. 100Gbps)";
            break;
        case DELAY:
            *why = tn_units_parse_time(a.c_str(), SIZE_MAX, k.key, &u, &ignored) == TN_OK
                       ? ""
                       : quoted + "is not a time with its unit (e.g. 0.001ms)";
            break;
        }
        if (!why->empty())
        {
            *why += " (the key is ignored here, but its value must still be of its kind)";
            return false;
        }
    }
    return true;
}

/// PACKET_PAYLOAD_SIZE in the family's simulator when a config does not give it.
const uint32_t FAMILY_PAYLOAD = 1000;

/// What the family's simulator does with EWMA_GAIN when a config does not give it.
const char GAIN_ZERO[] = "1 / 16, an integer division in its C++: 0, so alpha never moves from "
                         "its first value 1 and every cut halves the rate";

/**
 * A key's value in the family's simulator when a config does not give it (the globals its
 * main program starts from), where that differs from the model's own default. The family
 * reads EWMA_GAIN for DCQCN and DCTCP, MULTI_RATE for HPCC.
 */
struct FamilyDefault
{
    const char* key;       //!< the config key
    const char* ccs;       //!< the algorithms (--cc names) it matters for; "" = all
    const char* typeName;  //!< ns-3 type
    const char* attribute; //!< its attribute
    const char* value;     //!< the attribute value
    const char* stated;    //!< the default as the family has it, for the notice
};

const FamilyDefault FAMILY_DEFAULTS[] = {
    {"ACK_HIGH_PRIO",
     "",
     "ns3::RdmaNic",
     "AckPriority",
     "host-first-paused",
     "0 (ACKs in the data's priority at the switches, held by its PAUSE at the host)"},
    {"BUFFER_SIZE", "", "ns3::RoceSwitchMmu", "BufferSize", "16777216", "16 (MB)"},
    {"L2_ACK_INTERVAL",
     "",
     "ns3::RdmaNic",
     "AckInterval",
     "1",
     "0, with which its senders drop every ACK and no flow ends; here an ACK per packet, as "
     "with the 1 of the family's configs"},
    {"ALPHA_RESUME_INTERVAL",
     "dcqcn",
     "ns3::RdmaDcqcnControl",
     "AlphaUpdatePeriod",
     "55000ns",
     "55 (us)"},
    {"FAST_RECOVERY_TIMES", "dcqcn", "ns3::RdmaDcqcnControl", "FastRecoveryStages", "5", "5"},
    {"EWMA_GAIN", "dcqcn", "ns3::RdmaDcqcnControl", "G", "0", GAIN_ZERO},
    {"EWMA_GAIN", "dctcp", "ns3::RdmaDctcp", "G", "0", GAIN_ZERO},
    {"MULTI_RATE", "hpcc", "ns3::RdmaHpcc", "PerHopRate", "true", "1 (a rate per hop)"},
};

/**
 * How the family's code runs an algorithm whatever its keys say, where this model's default
 * differs: its DCQCN has one additive-increase stage before hyper increase and no byte
 * counter, sends no CNP (the receiver flags the ACK of a marked packet) and cuts on a grid of
 * RATE_DECREASE_INTERVAL from the first notification; its HPCC starts the smoothed
 * utilisation at 1, and its HPCC and HPCC-PINT move a queue pair's next packet when they change
 * its rate (its ChangeRate; its DCQCN, TIMELY and DCTCP set the rate alone).
 */
struct FamilyModel
{
    const char* cc;        //!< the --cc name
    const char* typeName;  //!< ns-3 type
    const char* attribute; //!< its attribute
    const char* value;     //!< the attribute value
};

const FamilyModel FAMILY_MODEL[] = {
    {"dcqcn", "ns3::RdmaDcqcnControl", "AdditiveStages", "1"},
    {"dcqcn", "ns3::RdmaDcqcnControl", "ByteCounter", "0"},
    {"dcqcn", "ns3::RdmaDcqcnControl", "CongestionNotification", "ack"},
    {"dcqcn", "ns3::RdmaDcqcnControl", "RateDecrease", "periodic"},
    {"hpcc", "ns3::RdmaHpcc", "InitialUtilization", "1"},
    {"hpcc", "ns3::RdmaNic", "RateChangeReschedules", "true"},
    {"hpcc-pint", "ns3::RdmaNic", "RateChangeReschedules", "true"},
};

/// Whether `cc` is one of the space-separated --cc names `ccs`.
bool
CcListed(const char* ccs, const std::string& cc)
{
    return (" " + std::string(ccs) + " ").find(" " + cc + " ") != std::string::npos;
}

/// A key whose attribute depends on the congestion control CC_MODE selects.
struct CcKey
{
    std::string key;   //!< the key
    std::string value; //!< attribute value (already checked for the key's kind)
    std::string raw;   //!< value as written
    uint32_t line;     //!< line in the config file
};

/// Where a congestion-control key of the HPCC family goes for one algorithm.
struct CcTarget
{
    const char* typeName;  //!< ns-3 type ("" = not read by this algorithm)
    const char* attribute; //!< its attribute
};

/// Where a congestion-control key of the HPCC family goes under some algorithms.
struct CcKeyTarget
{
    const char* key;       //!< the config key
    const char* ccs;       //!< the algorithms (--cc names) that read it, space-separated
    const char* typeName;  //!< ns-3 type
    const char* attribute; //!< its attribute
};

/**
 * The attribute a key of the HPCC family sets under each congestion control, as the family's
 * RdmaHw reads its keys per CC_MODE: DCQCN reads RATE_AI, RATE_HAI, MIN_RATE and EWMA_GAIN;
 * HPCC and HPCC-PINT read RATE_AI as R_AI and their INT keys; TIMELY reads RATE_AI, RATE_HAI
 * and MIN_RATE; DCTCP reads DCTCP_RATE_AI, EWMA_GAIN (its alpha gain) and MIN_RATE.
 * RdmaHpccPint inherits the attributes of RdmaHpcc.
 */
const CcKeyTarget CC_KEY_TARGETS[] = {
    {"RATE_AI", "dcqcn", "ns3::RdmaDcqcnControl", "AdditiveIncrease"},
    {"RATE_AI", "hpcc hpcc-pint", "ns3::RdmaHpcc", "AdditiveIncrease"},
    {"RATE_AI", "timely", "ns3::RdmaTimely", "AdditiveIncrease"},
    {"RATE_HAI", "dcqcn", "ns3::RdmaDcqcnControl", "HyperIncrease"},
    {"RATE_HAI", "timely", "ns3::RdmaTimely", "HyperIncrease"},
    {"MIN_RATE", "dcqcn", "ns3::RdmaDcqcnControl", "MinRate"},
    {"MIN_RATE", "hpcc hpcc-pint", "ns3::RdmaHpcc", "MinRate"},
    {"MIN_RATE", "timely", "ns3::RdmaTimely", "MinRate"},
    {"MIN_RATE", "dctcp", "ns3::RdmaDctcp", "MinRate"},
    {"EWMA_GAIN", "dcqcn", "ns3::RdmaDcqcnControl", "G"},
    {"EWMA_GAIN", "dctcp", "ns3::RdmaDctcp", "G"},
    {"DCTCP_RATE_AI", "dctcp", "ns3::RdmaDctcp", "AdditiveIncrease"},
    {"U_TARGET", "hpcc hpcc-pint", "ns3::RdmaHpcc", "TargetUtilization"},
    {"MI_THRESH", "hpcc hpcc-pint", "ns3::RdmaHpcc", "MaxStage"},
    {"FAST_REACT", "hpcc hpcc-pint", "ns3::RdmaHpcc", "FastReact"},
    {"INT_MULTI", "hpcc", "ns3::RdmaHpcc", "IntMulti"},
    {"MULTI_RATE", "hpcc", "ns3::RdmaHpcc", "PerHopRate"},
    {"SAMPLE_FEEDBACK", "hpcc", "ns3::RdmaHpcc", "SampleFeedback"},
    {"PINT_LOG_BASE", "hpcc-pint", "ns3::RdmaHpccPint", "LogBase"},
    {"PINT_PROB", "hpcc-pint", "ns3::RdmaHpccPint", "SampleProbability"},
};

/// The attribute `key` sets under the congestion control `cc` (CC_KEY_TARGETS; none: "").
CcTarget
TargetOf(const std::string& cc, const std::string& key)
{
    for (const CcKeyTarget& t : CC_KEY_TARGETS)
    {
        if (key == t.key && CcListed(t.ccs, cc))
        {
            return {t.typeName, t.attribute};
        }
    }
    return {"", ""};
}

/// Name of the congestion control in messages (the family's and ours).
std::string
CcModeName(const std::string& cc)
{
    return RdmaCcRegistry::CcModeName(cc);
}

/// Value of a 0/1 window key, or the family's default when the key is absent.
bool
FlagOf(const std::vector<CcKey>& keys, const char* key, bool byDefault, const CcKey** found)
{
    *found = nullptr;
    for (const auto& k : keys)
    {
        *found = k.key == key ? &k : *found;
    }
    return *found ? (*found)->value == "true" : byDefault;
}

/**
 * Give each congestion-control key its attribute under the congestion control the config
 * selects (TargetOf), list the others as ignored, and resolve the window keys as the family
 * does (below).
 */
void
MapCcKeys(const std::vector<CcKey>& keys, uint32_t ccLine, RoceHpccConfig* cfg)
{
    const std::string& cc = cfg->cc;
    const std::string mode = CcModeName(cc);
    for (const FamilyModel& m : FAMILY_MODEL)
    {
        if (cc == m.cc)
        {
            cfg->settings.push_back({m.typeName, m.attribute, m.value, "CC_MODE", ccLine});
        }
    }
    for (const auto& k : keys)
    {
        if (k.key == "HAS_WIN" || k.key == "GLOBAL_T" || k.key == "VAR_WIN")
        {
            continue;
        }
        const CcTarget t = TargetOf(cc, k.key);
        if (!*t.typeName)
        {
            cfg->ignored.push_back({k.key, k.raw, k.line, "not read by " + mode});
            continue;
        }
        cfg->settings.push_back({t.typeName, t.attribute, k.value, k.key, k.line});
        if (k.key == "PINT_LOG_BASE")
        {
            // the switches code the utilisation with the same base
            cfg->settings.push_back({"ns3::RoceSwitch", "PintLogBase", k.value, k.key, k.line});
        }
        cfg->rateStepsAbsolute = cfg->rateStepsAbsolute ||
                                 (cc == "dcqcn" && (k.key == "RATE_AI" || k.key == "RATE_HAI"));
    }
    const CcKey* hasWinKey;
    const CcKey* globalTKey;
    const CcKey* varWinKey;
    // the family's defaults: HAS_WIN 1, GLOBAL_T 1, VAR_WIN 0
    const bool hasWin = FlagOf(keys, "HAS_WIN", true, &hasWinKey);
    const bool globalT = FlagOf(keys, "GLOBAL_T", true, &globalTKey);
    const bool varWin = FlagOf(keys, "VAR_WIN", false, &varWinKey);
    auto ignore = [&](const CcKey* k, const std::string& reason) {
        if (k)
        {
            cfg->ignored.push_back({k->key, k->raw, k->line, reason});
        }
    };
    auto use = [&](const CcKey* k, const std::string& what, const std::string& value) {
        if (k)
        {
            cfg->settings.push_back({"", what, value, k->key, k->line});
        }
    };
    const bool hpcc = cc == "hpcc" || cc == "hpcc-pint";
    // The family gives every queue pair its window whatever CC_MODE says (absent keys take its
    // defaults): HAS_WIN 1 limits the bytes in flight to the BDP of its T, times rate / line
    // rate with VAR_WIN 1; HPCC computes its own window from T. GLOBAL_T 1: one T, the
    // largest base RTT; GLOBAL_T 0: each pair's own.
    std::string rtt;          // attribute the runner sets to T
    std::string variableType; // attribute choosing the window kind ("": HPCC's own)
    if (hpcc)
    {
        rtt = "ns3::RdmaHpcc::BaseRtt";
    }
    else if (hasWin && cc == "dcqcn")
    {
        rtt = "ns3::RdmaDcqcnControl::WindowRtt";
        variableType = "ns3::RdmaDcqcnControl";
    }
    else if (hasWin && cc == "timely")
    {
        rtt = "ns3::RdmaTimely::WindowRtt";
        variableType = "ns3::RdmaTimely";
    }
    else if (hasWin && cc == "dctcp")
    {
        rtt = "ns3::RdmaDctcp::BaseRtt";
        variableType = "ns3::RdmaDctcp";
    }
    if (rtt.empty())
    {
        if (cc == "dctcp")
        {
            cfg->settings.push_back({"ns3::RdmaDctcp",
                                     "BaseRtt",
                                     "0s",
                                     "HAS_WIN",
                                     hasWinKey ? hasWinKey->line : ccLine});
        }
        else
        {
            use(hasWinKey, "window", "none: " + mode + " paces by rate only");
        }
        const std::string why = mode + " without a window (HAS_WIN 0)";
        ignore(globalTKey, why);
        ignore(varWinKey, why);
        return;
    }
    cfg->baseRttAttribute = rtt;
    const CcKey* asks = globalTKey ? globalTKey : hasWinKey;
    cfg->baseRttKey = asks ? asks->key : "CC_MODE";
    cfg->baseRttLine = asks ? asks->line : ccLine;
    cfg->perPairBaseRtt = !globalT;
    use(globalTKey,
        rtt,
        globalT ? "the largest base RTT of the topology's host pairs"
                : "each flow's (source, destination) base RTT (RdmaNic::SetPeerBaseRtt)");
    const std::string window =
        std::string("in-flight bytes <= ") + (varWin ? "rate x " : "line rate x ") + rtt;
    if (variableType.empty())
    {
        // HPCC computes its window from T with one or without HAS_WIN (the family's HPCC
        // divides by that window); VAR_WIN picks its kind, as for the others
        variableType = "ns3::RdmaHpcc";
        if (!hasWin)
        {
            ignore(hasWinKey, mode + " here always limits " + window);
        }
    }
    cfg->settings.push_back({variableType,
                             "VariableWindow",
                             varWin ? "true" : "false",
                             varWinKey ? "VAR_WIN" : "HAS_WIN",
                             varWinKey ? varWinKey->line : (hasWinKey ? hasWinKey->line : ccLine)});
    if (hasWin)
    {
        use(hasWinKey, "window", window);
    }
}

/// One file's reading: the key and line being read, and what later keys and the family's
/// defaults need, shared by the per-key readers below.
struct HpccReading
{
    const std::string& path;       //!< the config file
    const std::string& baseDir;    //!< folder of relative file names
    RoceHpccConfig* cfg;           //!< what is read
    std::string* error;            //!< the error line
    uint32_t lineNo = 0;           //!< line of the key being read
    std::string key;               //!< the key being read
    uint64_t ackBytes = 0;         //!< L2_ACK_INTERVAL
    uint64_t chunkBytes = 0;       //!< L2_CHUNK_SIZE
    uint32_t ackLine = 0;          //!< the later of their lines (0: neither given)
    bool payloadGiven = false;     //!< PACKET_PAYLOAD_SIZE given
    std::vector<CcKey> ccKeys;     //!< keys whose attribute depends on CC_MODE
    uint32_t ccLine = 0;           //!< CC_MODE's line (0: not given)
    std::vector<std::string> args; //!< the values of the key being read
    std::string a;                 //!< its first value ("" when none)
    std::string joined;            //!< its values joined with spaces

    /// "file:line: KEY: what" into *error; false
    bool Fail(const std::string& what) const
    {
        *error = path + ":" + std::to_string(lineNo) + ": " + key + ": " + what;
        return false;
    }

    /// a setting of the key being read
    void Setting(const char* type, const std::string& attribute, const std::string& value)
    {
        cfg->settings.push_back({type, attribute, value, key, lineNo});
    }

    /// a rate (e.g. 50Mb/s, 100Mbps) in bit/s
    bool Rate(const std::string& v, uint64_t* bps) const
    {
        tn_error ignored;
        return tn_units_parse_rate(v.c_str(), SIZE_MAX, key.c_str(), bps, &ignored) == TN_OK;
    }
};

/// ENABLE_QCN, CLAMP_TARGET_RATE, USE_DYNAMIC_PFC_THRESHOLD, ACK_HIGH_PRIO: 0 or 1
bool
ReadOnOff(HpccReading& r)
{
    const std::string& a = r.a;
    uint64_t u = 0;
    if (!ParseUnsigned(a, 1, &u))
        return r.Fail("'" + a + "' is not 0 or 1");
    if (r.key == "ENABLE_QCN")
    {
        r.Setting("ns3::RoceSwitchMmu", "EcnEnabled", u ? "true" : "false");
    }
    else if (r.key == "CLAMP_TARGET_RATE")
    {
        r.Setting("ns3::RdmaDcqcnControl", "ClampTargetRate", u ? "true" : "false");
    }
    else if (r.key == "USE_DYNAMIC_PFC_THRESHOLD" && u)
    {
        r.Setting("", "dynamic PFC threshold", "ns3::RoceSwitchMmu::Alpha x free buffer");
    }
    else if (r.key == "USE_DYNAMIC_PFC_THRESHOLD")
    {
        r.cfg->ignored.push_back({r.key,
                                  a,
                                  r.lineNo,
                                  "static PFC thresholds are not modelled: the dynamic "
                                  "threshold ns3::RoceSwitchMmu::Alpha x free buffer "
                                  "is used"});
    }
    else
    {
        // the family's switches queue ACKs by the data's priority whatever the key says;
        // it picks whether that PAUSE stops the host's ACK queue (served before data)
        r.Setting("ns3::RdmaNic", "AckPriority", u ? "host-first" : "host-first-paused");
    }
    return true;
}

/// TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE, PFC_OUTPUT_FILE: relative to baseDir
bool
ReadFileKey(HpccReading& r)
{
    const std::string& a = r.a;
    const std::string& key = r.key;
    std::string& target = key == "TOPOLOGY_FILE"     ? r.cfg->topologyFile
                          : key == "FLOW_FILE"       ? r.cfg->flowFile
                          : key == "FCT_OUTPUT_FILE" ? r.cfg->fctFile
                                                     : r.cfg->pfcFile;
    target = r.baseDir.empty() || a.empty() || a[0] == '/' ? a : r.baseDir + "/" + a;
    r.Setting("",
              key == "TOPOLOGY_FILE"     ? "--topology"
              : key == "FLOW_FILE"       ? "--flows"
              : key == "FCT_OUTPUT_FILE" ? "--fct"
                                         : "--pfc",
              target);
    return true;
}

/// PACKET_PAYLOAD_SIZE, SIMULATOR_STOP_TIME, CC_MODE: the run's options
bool
ReadRunKey(HpccReading& r)
{
    const std::string& a = r.a;
    uint64_t u = 0;
    double d = 0;
    if (r.key == "PACKET_PAYLOAD_SIZE")
    {
        if (!ParseUnsigned(a, 9000, &u) || u < 256)
            return r.Fail("'" + a + "' is not a payload size in bytes in 256..9000");
        r.cfg->mtu = static_cast<uint32_t>(u);
        r.payloadGiven = true;
        r.Setting("", "--mtu", a);
    }
    else if (r.key == "SIMULATOR_STOP_TIME")
    {
        if (!ParseReal(a, 0, 1e300, &d))
            return r.Fail("'" + a + "' is not a time in seconds (>= 0)");
        if (d > RoceHpccConfig::MAX_STOP_SECONDS)
        {
            r.cfg->stopSeconds = 0;
            r.cfg->notices.push_back(r.path + ":" + std::to_string(r.lineNo) +
                                     ": SIMULATOR_STOP_TIME " + a +
                                     " s is beyond ns-3's time range (9.2e9 s): the run "
                                     "ends when every flow has finished");
            r.Setting("", "--stop", "0 (until every flow finished)");
        }
        else
        {
            r.cfg->stopSeconds = d;
            r.Setting("", "--stop", a);
        }
    }
    else
    {
        if (!ParseUnsigned(a, UINT32_MAX, &u))
            return r.Fail("'" + a + "' is not a CC_MODE number");
        const RdmaCcEntry* entry = RdmaCcRegistry::FindByCcMode(u);
        if (!entry)
        {
            return r.Fail("'" + a + "' is not a CC_MODE of the HPCC family (" +
                          RdmaCcRegistry::ListCcModes() + ")");
        }
        r.cfg->cc = entry->name;
        r.ccLine = r.lineNo;
        r.Setting("", "--cc", entry->name);
    }
    return true;
}

/// ALPHA_RESUME_INTERVAL, RATE_DECREASE_INTERVAL, RP_TIMER, FAST_RECOVERY_TIMES: DCQCN's
bool
ReadDcqcnKey(HpccReading& r)
{
    const std::string& a = r.a;
    if (r.key == "FAST_RECOVERY_TIMES")
    {
        uint64_t u = 0;
        if (!ParseUnsigned(a, UINT32_MAX, &u))
            return r.Fail("'" + a + "' is not a non-negative integer");
        r.Setting("ns3::RdmaDcqcnControl", "FastRecoveryStages", a);
        return true;
    }
    // microseconds (HPCC's unit of the DCQCN timers) to an ns-3 time string
    double us;
    if (!ParseReal(a, 0.001, 1e9, &us))
        return r.Fail("'" + a + "' is not a time in microseconds (0.001 .. 1e9)");
    r.Setting("ns3::RdmaDcqcnControl",
              r.key == "ALPHA_RESUME_INTERVAL"    ? "AlphaUpdatePeriod"
              : r.key == "RATE_DECREASE_INTERVAL" ? "RateDecreasePeriod"
                                                  : "RateIncreasePeriod",
              std::to_string(std::llround(us * 1000)) + "ns");
    return true;
}

/// The keys whose attribute depends on CC_MODE (kept in r.ccKeys for MapCcKeys): EWMA_GAIN,
/// U_TARGET, PINT_PROB, PINT_LOG_BASE, MI_THRESH, INT_MULTI, the flags and the rates
bool
ReadCcKey(HpccReading& r)
{
    const std::string& a = r.a;
    const std::string& key = r.key;
    uint64_t u = 0;
    double d = 0;
    if (key == "EWMA_GAIN" || key == "U_TARGET" || key == "PINT_PROB")
    {
        if (!ParseReal(a, 0, 1, &d) || d == 0)
        {
            return r.Fail("'" + a + "' is not " +
                          (key == "PINT_PROB"   ? "a probability"
                           : key == "EWMA_GAIN" ? "a gain"
                                                : "a utilisation") +
                          " in (0, 1]");
        }
        r.ccKeys.push_back({key, RoceHpccConfigReader::FormatExact(d), a, r.lineNo});
    }
    else if (key == "PINT_LOG_BASE")
    {
        if (!ParseReal(a, 0, 1e9, &d) || d <= 1)
            return r.Fail("'" + a + "' is not a log base above 1");
        r.ccKeys.push_back({key, RoceHpccConfigReader::FormatExact(d), a, r.lineNo});
    }
    else if (key == "MI_THRESH" || key == "INT_MULTI")
    {
        const uint64_t max = key == "INT_MULTI" ? 255 : UINT32_MAX;
        if (!ParseUnsigned(a, max, &u) || (key == "INT_MULTI" && u == 0))
        {
            return r.Fail("'" + a + "' is not an integer in " +
                          (key == "INT_MULTI" ? "1..255" : "0..4294967295"));
        }
        r.ccKeys.push_back({key, a, a, r.lineNo});
    }
    else if (key == "FAST_REACT" || key == "MULTI_RATE" || key == "SAMPLE_FEEDBACK" ||
             key == "HAS_WIN" || key == "GLOBAL_T" || key == "VAR_WIN")
    {
        if (!ParseUnsigned(a, 1, &u))
            return r.Fail("'" + a + "' is not 0 or 1");
        r.ccKeys.push_back({key, u ? "true" : "false", a, r.lineNo});
    }
    else // RATE_AI, RATE_HAI, MIN_RATE, DCTCP_RATE_AI
    {
        if (!r.Rate(a, &u) || u == 0)
            return r.Fail("'" + a + "' is not a rate above 0 (e.g. 50Mb/s, 100Mbps)");
        if (key == "MIN_RATE" && u < RdmaConfigCheck::MIN_RATE_FLOOR_BPS)
        {
            return r.Fail("'" + a + "' is below the lowest floor a queue pair takes (at least " +
                          std::to_string(RdmaConfigCheck::MIN_RATE_FLOOR_BPS) + "bps, 1Mb/s)");
        }
        r.ccKeys.push_back({key, std::to_string(u) + "bps", a, r.lineNo});
    }
    return true;
}

/// ERROR_RATE_PER_LINK, L2_CHUNK_SIZE, L2_ACK_INTERVAL, LINK_DOWN, BUFFER_SIZE: the fabric's
bool
ReadFabricKey(HpccReading& r)
{
    const std::string& a = r.a;
    const std::vector<std::string>& args = r.args;
    uint64_t u = 0;
    double d = 0;
    if (r.key == "ERROR_RATE_PER_LINK")
    {
        if (!ParseReal(a, 0, 1, &d) || d >= 1)
            return r.Fail("'" + a + "' is not an error rate in [0, 1) (1 loses every packet)");
        r.cfg->errorRatePerLink = d;
        r.Setting("",
                  "error model on links whose error_rate is 0",
                  RoceHpccConfigReader::FormatExact(d));
    }
    else if (r.key == "L2_CHUNK_SIZE" || r.key == "L2_ACK_INTERVAL")
    {
        if (!ParseUnsigned(a, UINT32_MAX, &u))
            return r.Fail("'" + a + "' is not a number of bytes");
        (r.key == "L2_CHUNK_SIZE" ? r.chunkBytes : r.ackBytes) = u;
        r.ackLine = std::max(r.ackLine, r.lineNo);
    }
    else if (r.key == "LINK_DOWN")
    {
        if (args[0] != "0" || args[1] != "0" || args[2] != "0")
            return r.Fail("'" + r.joined + "': link failures are not modelled (LINK_DOWN 0 0 0)");
        r.Setting("", "link failures", "none");
    }
    else // BUFFER_SIZE
    {
        if (!ParseUnsigned(a, UINT64_C(1) << 32, &u) || u == 0)
            return r.Fail("'" + a + "' is not a buffer size in MB (1 .. 2^32)");
        r.Setting("ns3::RoceSwitchMmu", "BufferSize", std::to_string(u * 1024 * 1024));
    }
    return true;
}

/// KMAX_MAP, KMIN_MAP, PMAX_MAP: a count, then (rate, value) pairs
bool
ReadRateMap(HpccReading& r)
{
    const std::vector<std::string>& args = r.args;
    const std::string& key = r.key;
    RoceHpccRateMap& m = key == "KMAX_MAP"   ? r.cfg->kmax
                         : key == "KMIN_MAP" ? r.cfg->kmin
                                             : r.cfg->pmax;
    uint64_t u = 0;
    if (args.empty() || !ParseUnsigned(args[0], 1000, &u) || u == 0)
        return r.Fail("the first value must be the number of (rate, value) pairs");
    if (args.size() != 1 + 2 * u)
    {
        return r.Fail(args[0] + " pairs announced, " + std::to_string(args.size() - 1) +
                      " values follow");
    }
    m.entries.clear();
    m.line = r.lineNo;
    r.Setting("", "ECN at each switch-port rate", "resolved against the topology");
    for (uint64_t i = 0; i < u; ++i)
    {
        uint64_t bps;
        double d = 0;
        const std::string& rate = args[1 + 2 * i];
        const std::string& v = args[2 + 2 * i];
        if (!r.Rate(rate, &bps) || bps == 0)
            return r.Fail("'" + rate + "' is not a link rate in bit/s");
        const bool ok = key == "PMAX_MAP"
                            ? ParseReal(v, 0, 1, &d)
                            : ParseReal(v, 0, 4e9, &d) &&
                                  v.find_first_not_of("0123456789") == std::string::npos;
        if (!ok)
        {
            return r.Fail(
                "'" + v + "' is not " +
                (key == "PMAX_MAP" ? "a probability in [0, 1]" : "a threshold in KB (integer)"));
        }
        m.entries.emplace_back(bps, d);
    }
    return true;
}

/// A key the runner maps, and its reader.
struct MappedKey
{
    const char* key;              //!< the key
    bool (*read)(HpccReading& r); //!< reads r.args into r.cfg; false after r.Fail
};

/// Keys the runner maps (the others are refused as unknown, or listed as ignored).
const MappedKey MAPPED_KEYS[] = {
    {"ENABLE_QCN", ReadOnOff},
    {"USE_DYNAMIC_PFC_THRESHOLD", ReadOnOff},
    {"CLAMP_TARGET_RATE", ReadOnOff},
    {"ACK_HIGH_PRIO", ReadOnOff},
    {"PACKET_PAYLOAD_SIZE", ReadRunKey},
    {"SIMULATOR_STOP_TIME", ReadRunKey},
    {"CC_MODE", ReadRunKey},
    {"TOPOLOGY_FILE", ReadFileKey},
    {"FLOW_FILE", ReadFileKey},
    {"FCT_OUTPUT_FILE", ReadFileKey},
    {"PFC_OUTPUT_FILE", ReadFileKey},
    {"ALPHA_RESUME_INTERVAL", ReadDcqcnKey},
    {"RATE_DECREASE_INTERVAL", ReadDcqcnKey},
    {"RP_TIMER", ReadDcqcnKey},
    {"FAST_RECOVERY_TIMES", ReadDcqcnKey},
    {"ERROR_RATE_PER_LINK", ReadFabricKey},
    {"L2_CHUNK_SIZE", ReadFabricKey},
    {"L2_ACK_INTERVAL", ReadFabricKey},
    {"LINK_DOWN", ReadFabricKey},
    {"BUFFER_SIZE", ReadFabricKey},
    {"KMAX_MAP", ReadRateMap},
    {"KMIN_MAP", ReadRateMap},
    {"PMAX_MAP", ReadRateMap},
    // read by the congestion control CC_MODE selects (MapCcKeys)
    {"RATE_AI", ReadCcKey},
    {"RATE_HAI", ReadCcKey},
    {"MIN_RATE", ReadCcKey},
    {"EWMA_GAIN", ReadCcKey},
    {"DCTCP_RATE_AI", ReadCcKey},
    {"HAS_WIN", ReadCcKey},
    {"GLOBAL_T", ReadCcKey},
    {"VAR_WIN", ReadCcKey},
    {"FAST_REACT", ReadCcKey},
    {"U_TARGET", ReadCcKey},
    {"MI_THRESH", ReadCcKey},
    {"INT_MULTI", ReadCcKey},
    {"MULTI_RATE", ReadCcKey},
    {"SAMPLE_FEEDBACK", ReadCcKey},
    {"PINT_LOG_BASE", ReadCcKey},
    {"PINT_PROB", ReadCcKey},
};

/// After the last key: the family's defaults of the keys the file does not give, and the ACK
/// interval from L2_ACK_INTERVAL and L2_CHUNK_SIZE
bool
ApplyFamilyDefaults(HpccReading& r, const tn_hpcc_config* entries)
{
    RoceHpccConfig* cfg = r.cfg;
    const std::string& path = r.path;
    // a key the file does not give runs as in the family's simulator
    for (const FamilyDefault& d : FAMILY_DEFAULTS)
    {
        bool given = false;
        for (size_t e = 0; e < entries->count; ++e)
        {
            given = given || d.key == std::string(entries->entry[e].key);
        }
        if (!given && (!*d.ccs || CcListed(d.ccs, cfg->cc)))
        {
            cfg->settings.push_back({d.typeName, d.attribute, d.value, d.key, 0});
            cfg->notices.push_back(path + ": no " + d.key + ": the family's default " + d.stated);
        }
    }
    if (!r.ccLine)
    {
        cfg->notices.push_back(path + ": no CC_MODE: the family's default 1 (DCQCN)");
    }
    if (!r.payloadGiven)
    {
        cfg->mtu = FAMILY_PAYLOAD;
        cfg->notices.push_back(path + ": no PACKET_PAYLOAD_SIZE: the family's default " +
                               std::to_string(FAMILY_PAYLOAD) + " bytes");
    }
    if (r.ackLine)
    {
        // HPCC acknowledges when the received bytes pass the next multiple of L2_ACK_INTERVAL
        // and at every L2_CHUNK_SIZE boundary: in packets, the smaller of the two, at least 1
        uint64_t bytes = r.ackBytes == 0     ? r.chunkBytes
                         : r.chunkBytes == 0 ? r.ackBytes
                                             : std::min(r.ackBytes, r.chunkBytes);
        uint64_t packets = bytes == 0 ? 1 : std::max<uint64_t>(1, bytes / cfg->mtu);
        r.key = r.ackBytes && r.chunkBytes ? "L2_ACK_INTERVAL+L2_CHUNK_SIZE"
                : r.ackBytes               ? "L2_ACK_INTERVAL"
                                           : "L2_CHUNK_SIZE";
        r.lineNo = r.ackLine;
        if (packets > UINT32_MAX)
        {
            return r.Fail("ACK interval of " + std::to_string(packets) + " packets is too large");
        }
        r.Setting("ns3::RdmaNic", "AckInterval", std::to_string(packets));
    }
    return true;
}
} // namespace

bool
RoceHpccConfigReader::Read(const std::string& path,
                           const std::string& baseDir,
                           bool ignoreUnknown,
                           RoceHpccConfig* cfg,
                           std::string* error)
{
    tn_hpcc_config* entries = nullptr;
    tn_error err;
    if (tn_hpcc_config_load(path.c_str(), &entries, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    std::unique_ptr<tn_hpcc_config, void (*)(tn_hpcc_config*)> owner(entries,
                                                                     &tn_hpcc_config_destroy);
    cfg->configFile = path;
    cfg->ignoreTrailingLines = true;
    HpccReading r{path, baseDir, cfg, error};
    for (size_t e = 0; e < entries->count; ++e)
    {
        const tn_hpcc_entry& entry = entries->entry[e];
        r.lineNo = entry.line;
        r.key = entry.key;
        r.args.assign(entry.values, entry.values + entry.value_count);
        r.a = r.args.empty() ? "" : r.args[0];
        r.joined.clear();
        for (const auto& a : r.args)
        {
            r.joined += (r.joined.empty() ? "" : " ") + a;
        }
        const IgnoredKey* ignored = nullptr;
        for (const auto& k : IGNORED_KEYS)
        {
            ignored = r.key == k.key ? &k : ignored;
        }
        if (ignored)
        {
            std::string why;
            if (!CheckIgnoredValue(*ignored, r.args, &why))
            {
                return r.Fail(why);
            }
            cfg->ignored.push_back({r.key, r.joined, r.lineNo, ignored->reason});
            continue;
        }
        const MappedKey* mapped = nullptr;
        for (const MappedKey& k : MAPPED_KEYS)
        {
            mapped = r.key == k.key ? &k : mapped;
        }
        if (!mapped && ignoreUnknown)
        {
            cfg->ignored.push_back({r.key, r.joined, r.lineNo, "unknown key"});
            continue;
        }
        if (!mapped)
        {
            return r.Fail("unknown key (known keys: doc/roce-hpcc-migration.rst; "
                          "--ignore-unknown-keys lists and skips such keys)");
        }
        const size_t want = r.key == "LINK_DOWN" ? 3 : 1;
        if (mapped->read != ReadRateMap && r.args.size() != want)
        {
            return r.Fail("expected " + std::to_string(want) + " value" + (want > 1 ? "s" : "") +
                          ", found " + std::to_string(r.args.size()));
        }
        if (!mapped->read(r))
        {
            return false;
        }
    }
    MapCcKeys(r.ccKeys, r.ccLine, cfg);
    return ApplyFamilyDefaults(r, entries) && CheckSettings(path + ":", cfg->settings, error);
}

std::string
RoceHpccConfigReader::FormatExact(double v)
{
    std::ostringstream os;
    os << std::setprecision(17) << v;
    return os.str();
}

bool
RoceHpccConfigReader::CheckSettings(const std::string& where,
                                    const std::vector<RoceHpccSetting>& settings,
                                    std::string* error)
{
    for (const auto& st : settings)
    {
        // the one validator: it reads the value strictly before ns-3's parser, which may abort
        std::string why;
        if (!st.typeName.empty() &&
            !AttributeSettings::Check(st.typeName, st.attribute, st.value, &why))
        {
            *error = where + std::to_string(st.line) + ": " + st.key + ": " + why;
            return false;
        }
    }
    return true;
}

} // namespace ns3
