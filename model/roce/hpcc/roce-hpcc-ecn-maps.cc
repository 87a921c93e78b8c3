/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The config's ECN maps at the topology's switch-port rates (RoceHpccConfigReader).
 */
#include "roce-hpcc-config.h"

#include "ns3/tn-topology.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

bool
RoceHpccConfigReader::ResolveEcnMaps(const RoceHpccConfig& config,
                                     const tn_topology* topo,
                                     std::vector<RoceHpccSetting>* settings,
                                     std::string* error)
{
    settings->clear();
    const std::string where = config.configFile.empty() ? "" : config.configFile + ":";
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
            settings->push_back(
                {"ns3::RoceSwitchMmu", attr, FormatExact(perRate[0]), mapNames[m], maps[m]->line});
            continue;
        }
        if (switchRates.size() == 1)
        {
            settings->push_back(
                {"ns3::RoceSwitchMmu", "EcnScaleWithRate", "false", mapNames[m], maps[m]->line});
            settings->push_back({"ns3::RoceSwitchMmu",
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
                                std::to_string(r0) + " bit/s: " + FormatExact(perRate[0] / 1000) +
                                " KB, " + std::to_string(r) +
                                " bit/s: " + FormatExact(perRate[i] / 1000) +
                                " KB); ns3::RoceSwitchMmu scales one threshold with the rate");
            }
            ++i;
        }
        settings->push_back(
            {"ns3::RoceSwitchMmu", "EcnScaleWithRate", "true", mapNames[m], maps[m]->line});
        settings->push_back({"ns3::RoceSwitchMmu",
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
                *error = where + std::to_string(config.kmin.line) +
                         ": KMIN_MAP: " + FormatExact(kmin) + " KB at " + std::to_string(r) +
                         " bit/s is above KMAX_MAP's " + FormatExact(kmax) + " KB";
                return false;
            }
        }
    }

    return true;
}

} // namespace ns3
