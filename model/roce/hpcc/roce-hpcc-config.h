/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_CONFIG_H
#define ROCE_HPCC_CONFIG_H

#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief An ns-3 attribute value a config key maps to.
 */
struct RoceHpccSetting
{
    std::string typeName;  //!< ns3::RdmaNic, a congestion control, ns3::RoceSwitchMmu, ...
    std::string attribute; //!< attribute name
    std::string value;     //!< value as ns-3 reads it from a string
    std::string key;       //!< config key it comes from
    uint32_t line{0};      //!< line of the key in the config file
};

/**
 * \ingroup training-net
 * \brief A config key the runner does not use, with the reason.
 */
struct RoceHpccIgnored
{
    std::string key;    //!< the key
    std::string value;  //!< its value as written
    uint32_t line{0};   //!< line in the config file
    std::string reason; //!< why it is ignored
};

/**
 * \ingroup training-net
 * \brief A KMAX_MAP, KMIN_MAP or PMAX_MAP of an HPCC config: value per link rate.
 */
struct RoceHpccRateMap
{
    std::vector<std::pair<uint64_t, double>> entries; //!< (rate bit/s, value)
    uint32_t line{0};                                 //!< line of the key (0 = not given)
};

/**
 * \ingroup training-net
 * \brief Options of an HPCC-style run (RoceHpccFlows::Run, the roce-hpcc-flows example):
 * the command line's, or those of a config file (RoceHpccConfigReader::Read).
 */
struct RoceHpccConfig
{
    /// Largest stop time ns-3 can simulate (64-bit ns, about 292 years).
    static constexpr double MAX_STOP_SECONDS = 9.2e9;

    std::string topologyFile; //!< HPCC-style topology file (3- or 4-number header)
    std::string flowFile;     //!< HPCC-style flow file
    std::string fctFile;      //!< output: one line per finished flow
    std::string pfcFile;      //!< output: one line per PFC event ("" = none)
    std::string pcapPrefix;   //!< pcap of every device, PREFIX-node-device.pcap ("" = none)
    std::string cc{"dcqcn"};  //!< dcqcn, hpcc, hpcc-pint, timely, dctcp or none (CC_MODE)
    uint32_t mtu{4096};       //!< payload bytes per packet (256..9000, any value)
    uint32_t seed{1};         //!< RngSeedManager seed
    double stopSeconds{0};    //!< simulated stop time (0 = until every flow finished)
    bool sharedQp{false};     //!< flows of one (src, dst, priority) share one QP
    /// Each flow takes the path the HPCC family's switches hash it onto (RoceHpccFamilyEcmpHash
    /// at each switch, the family's UDP ports and next-hop order), pinned with flow routes,
    /// instead of this fabric's own ECMP: the same files put the same flows on the same links
    bool familyEcmp{false};
    /// The HPCC family member whose switches the run follows where the members differ ("" =
    /// this model's own; "hpcc": alibaba-edu's; "ns3-datacenter": inet-tub's): the buffer
    /// layout (RoceSwitchMmu::Layout), and the family's ECMP paths (familyEcmp) and frame bytes
    /// (RoceNetDevice::Framing hpcc-family) for both
    std::string family;
    /// How the links count a frame's bytes (RoceNetDevice::Framing): "ethernet" or
    /// "hpcc-family"; "" = the family's with a member (family), else Ethernet's
    std::string framing;

    /// \return whether the links count the family's frame bytes (framing, family)
    bool FamilyFraming() const
    {
        return framing.empty() ? !family.empty() : framing == "hpcc-family";
    }

    /// Lines after the announced links or flows are ignored with a notice, as HPCC reads
    /// only the announced count (set by --config); otherwise they are an error.
    bool ignoreTrailingLines{false};

    // from a config file (RoceHpccConfigReader::Read)
    std::string configFile;                //!< the config file ("" = none)
    std::vector<RoceHpccSetting> settings; //!< attribute values of the config's keys
    std::vector<RoceHpccIgnored> ignored;  //!< keys not used
    std::vector<std::string> notices;      //!< other remarks to print
    RoceHpccRateMap kmin;                  //!< KMIN_MAP (KB = 1000 bytes)
    RoceHpccRateMap kmax;                  //!< KMAX_MAP (KB = 1000 bytes)
    RoceHpccRateMap pmax;                  //!< PMAX_MAP
    bool rateStepsAbsolute{false};         //!< RATE_AI/RATE_HAI are per flow, not per 25G
    double errorRatePerLink{0};            //!< ERROR_RATE_PER_LINK (links with error_rate 0)
    /// Attribute (ns3::Type::Name) the runner sets to the largest base RTT of the
    /// topology's host pairs, the HPCC family's maxRtt ("" = none): RdmaHpcc::BaseRtt (CC_MODE 3,
    /// 10), and with HAS_WIN 1 (the family's default) RdmaDcqcnControl::WindowRtt (1),
    /// RdmaTimely::WindowRtt (7), RdmaDctcp::BaseRtt (8)
    std::string baseRttAttribute;
    std::string baseRttKey;  //!< key that asks for it (messages)
    uint32_t baseRttLine{0}; //!< its line
    /// GLOBAL_T 0: each flow's queue pair takes the base RTT of its own (source,
    /// destination) path (RdmaNic::SetPeerBaseRtt) in place of the largest
    bool perPairBaseRtt{false};
};

/**
 * \ingroup training-net
 * \brief Reads an HPCC / SimAI config file (`KEY value...` per line, as the HPCC project's
 * mix/config.txt; tn_hpcc_config_load splits it) into a RoceHpccConfig: file names, payload
 * size, stop time, and the attribute values of the keys the model has (config->settings);
 * keys the model does not have go to config->ignored with the reason. The keys and what they
 * become are listed in doc/roce-hpcc-migration.rst.
 *
 * Errors name file:line and the key: an unknown key (unless ignoreUnknown), a key given
 * twice, a value that is not a number of the key's kind or out of range, a value an
 * attribute refuses.
 */
class RoceHpccConfigReader
{
  public:
    /**
     * \param path config file
     * \param baseDir folder of relative file names ("" = the current directory, as HPCC)
     * \param ignoreUnknown unknown keys are listed in config->ignored instead of refused
     * \param config output (fields of the keys found are overwritten)
     * \param error "file:line: KEY: what" on failure
     * \return true on success
     */
    static bool Read(const std::string& path,
                     const std::string& baseDir,
                     bool ignoreUnknown,
                     RoceHpccConfig* config,
                     std::string* error);

    /**
     * The ECN maps (KMIN_MAP, KMAX_MAP, PMAX_MAP) at the rates of the topology's switch
     * ports, as RoceSwitchMmu attributes: one threshold per switch when all switch ports
     * have one rate, else one at 25 Gb/s scaled with the rate (EcnScaleWithRate), which
     * needs thresholds proportional to the rate. The three maps go together; KMIN <= KMAX.
     * \param config the config (its maps)
     * \param topo the topology
     * \param settings output: the switch attributes (none if no map is given)
     * \param error "file:line: MAP: what" on failure
     * \return true on success
     */
    static bool ResolveEcnMaps(const RoceHpccConfig& config,
                               const tn_topology* topo,
                               std::vector<RoceHpccSetting>* settings,
                               std::string* error);

    /**
     * \param v a number
     * \return v with 17 significant digits, so that an attribute set from it gets v exactly
     */
    static std::string FormatExact(double v);

    /**
     * Check that every setting with a type names an attribute that accepts its value.
     * \param where "file:" prefix of messages ("" if the settings come from no file)
     * \param settings the settings
     * \param error "file:line: KEY: Type::Attribute refuses 'value'" on failure
     * \return true if all are valid
     */
    static bool CheckSettings(const std::string& where,
                              const std::vector<RoceHpccSetting>& settings,
                              std::string* error);
};

} // namespace ns3

#endif // ROCE_HPCC_CONFIG_H
