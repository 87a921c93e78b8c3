/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The congestion controls a NIC can run, in one table: short name, ns-3 class (TypeId name),
 * and the HPCC family's CC_MODE number (RdmaNic::CongestionControlType).
 */
#ifndef RDMA_CC_REGISTRY_H
#define RDMA_CC_REGISTRY_H

#include "rdma-nic.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief One congestion control of the registry.
 */
struct RdmaCcEntry
{
    const char* name;                    //!< short name (dcqcn, hpcc, ...): an alias
    const char* typeName;                //!< its class's TypeId name ("" for none)
    const char* label;                   //!< its name in the HPCC family's texts (DCQCN)
    RdmaNic::CongestionControlType type; //!< its value, numbered as the family's CC_MODE
};

/**
 * \ingroup training-net
 * \brief The congestion controls by name, class and CC_MODE, in the way ns-3 chooses a
 * TcpCongestionOps or a QueueDisc: RdmaNic::CongestionControl takes the class's TypeId name
 * (ns3::RdmaHpcc) or its short name (hpcc), whose table this is; the CC_MODE reader of the
 * HPCC family, the helpers' and readers' messages and the NIC's attribute checker all read it.
 */
class RdmaCcRegistry
{
  public:
    /** \return every congestion control, in the order messages list them */
    static const std::vector<RdmaCcEntry>& GetAll();
    /**
     * \param name a short name (hpcc) or a TypeId name (ns3::RdmaHpcc)
     * \return its entry, or null
     */
    static const RdmaCcEntry* Find(const std::string& name);
    /** \param type a congestion control \return its entry (none's for an unknown value) */
    static const RdmaCcEntry& Get(RdmaNic::CongestionControlType type);
    /** \param ccMode an HPCC-family CC_MODE number \return its entry, or null */
    static const RdmaCcEntry* FindByCcMode(uint32_t ccMode);
    /** \return the short names for a message: "dcqcn, hpcc, hpcc-pint, timely, dctcp, none" */
    static std::string ListNames();
    /** \return the family's CC_MODE numbers for a message: "1 DCQCN, 3 HPCC, ..." */
    static std::string ListCcModes();
    /** \param name a short name \return "CC_MODE 3 (HPCC)", or name if it has no CC_MODE */
    static std::string CcModeName(const std::string& name);
};

} // namespace ns3

#endif // RDMA_CC_REGISTRY_H
