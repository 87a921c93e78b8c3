/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_INPUTS_H
#define ROCE_HPCC_INPUTS_H

#include "roce-hpcc-config.h"

#include "ns3/tn-hpcc-files.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief What an HPCC-style run reads before it simulates: the topology and flow files
 * (tn-hpcc-files, formats in tn-hpcc-files.h), routes toward the flows' destinations, each
 * flow's ideal FCT (RoceIdealFctNs) and the config's ECN maps at the topology's link rates
 * (RoceHpccConfigReader::ResolveEcnMaps). Every error names file:line.
 */
class RoceHpccInputs
{
  public:
    RoceHpccInputs() = default;
    ~RoceHpccInputs();
    RoceHpccInputs(const RoceHpccInputs&) = delete;
    RoceHpccInputs& operator=(const RoceHpccInputs&) = delete;

    /**
     * Load a topology file with a 3- or 4-number header (tn_hpcc_topology_load).
     * \param path file name
     * \param topo output (caller destroys)
     * \param torCount output: the ToR count of a 4-number header, 0 for 3 numbers
     * \param error "file:line: ..." on failure
     * \param ignoreTrailing lines after the announced links are ignored instead of refused
     * \param notice set when lines were ignored
     * \return true on success
     */
    static bool LoadTopology(const std::string& path,
                             tn_topology** topo,
                             uint32_t* torCount,
                             std::string* error,
                             bool ignoreTrailing = false,
                             std::string* notice = nullptr);

    /**
     * Read config's topology and flow files and resolve what depends on them.
     * \param config the run's options (files, ignoreTrailingLines, mtu, ECN maps)
     * \param error "file:line: ..." on failure (a flow whose destination is unreachable, too)
     * \return true on success
     */
    bool Load(const RoceHpccConfig& config, std::string* error);

    /** \return the topology (after Load) */
    const tn_topology* GetTopology() const
    {
        return m_topo;
    }

    /** \return routes toward the flows' destinations (after Load) */
    const tn_routes* GetRoutes() const
    {
        return m_routes;
    }

    /** \return the flows in file order */
    const std::vector<tn_hpcc_flow>& GetFlows() const
    {
        return m_flows;
    }

    /** \return each flow's ideal FCT in ns, file order */
    const std::vector<uint64_t>& GetIdealFctNs() const
    {
        return m_idealNs;
    }

    /** \return the switch attributes of the config's ECN maps */
    const std::vector<RoceHpccSetting>& GetEcnSettings() const
    {
        return m_ecnSettings;
    }

    /** \return the ToR count of a 4-number topology header (0 = none) */
    uint32_t GetTorCount() const
    {
        return m_torCount;
    }

    /** \return input lines ignored (HPCC reads only what it announces) */
    const std::vector<std::string>& GetNotices() const
    {
        return m_notices;
    }

  private:
    tn_topology* m_topo{nullptr};               //!< GetTopology
    tn_routes* m_routes{nullptr};               //!< GetRoutes
    std::vector<tn_hpcc_flow> m_flows;          //!< GetFlows
    std::vector<uint64_t> m_idealNs;            //!< GetIdealFctNs
    std::vector<RoceHpccSetting> m_ecnSettings; //!< GetEcnSettings
    uint32_t m_torCount{0};                     //!< GetTorCount
    std::vector<std::string> m_notices;         //!< GetNotices
};

} // namespace ns3

#endif // ROCE_HPCC_INPUTS_H
