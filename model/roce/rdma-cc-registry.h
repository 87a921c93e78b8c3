/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The congestion controls a NIC ships with, in one table: short name, ns-3 class (TypeId name),
 * and the HPCC family's CC_MODE number.
 */
#ifndef RDMA_CC_REGISTRY_H
#define RDMA_CC_REGISTRY_H

#include "ns3/type-id.h"

#include <cstdint>
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
    const char* name;     //!< short name (dcqcn, hpcc, ...): an alias
    const char* typeName; //!< its class's TypeId name ("" for none)
    const char* label;    //!< its name in the HPCC family's texts (DCQCN)
    uint32_t ccMode;      //!< the family's CC_MODE number (0 for none, which has none)
};

/**
 * \ingroup training-net
 * \brief The congestion controls by name, class and CC_MODE, in the way ns-3 chooses a
 * TcpCongestionOps or a QueueDisc: RdmaNic::CongestionControl takes a class's TypeId name
 * (ns3::RdmaHpcc, or a user's own subclass of ns3::RdmaCongestionControl) or one of the short
 * names of this table (hpcc); the CC_MODE reader of the HPCC family, the helpers' and readers'
 * messages and the NIC's attribute checker all read it.
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
    /** \param tid a congestion control's class \return its entry, or null (a user's class) */
    static const RdmaCcEntry* FindByTypeId(TypeId tid);
    /**
     * Resolve what RdmaNic::CongestionControl takes: a short name, or the TypeId name of
     * ns3::RdmaCongestionControl or a subclass of it that can be created. The base class
     * itself is none: queue pairs without a congestion control.
     * \param name the name \param tid set to its class (RdmaCongestionControl for none)
     * \return whether the name is a congestion control
     */
    static bool Resolve(const std::string& name, TypeId* tid);
    /** \param tid a congestion control's class \return its short name, else its TypeId name */
    static std::string GetName(TypeId tid);
    /** \param ccMode an HPCC-family CC_MODE number \return its entry, or null */
    static const RdmaCcEntry* FindByCcMode(uint32_t ccMode);
    /** \return the short names for a message: "dcqcn, hpcc, hpcc-pint, timely, dctcp, none" */
    static std::string ListNames();
    /** \return the family's CC_MODE numbers for a message: "1 DCQCN, 3 HPCC, ..." */
    static std::string ListCcModes();
    /** \param name a short name \return "CC_MODE 3 (HPCC)", or name if it has no CC_MODE */
    static std::string CcModeName(const std::string& name);
    /**
     * \param name what RdmaNic::CongestionControl takes (Resolve)
     * \return its class and the parameters a queue pair's control would be made with now
     * ("ns3::RdmaTimely EwmaWeight=0.875 Beta=0.8 ..."; none: "no congestion control"), so
     * that a comparison names what it compares; "" for an unknown name
     */
    static std::string DescribeParameters(const std::string& name);
};

} // namespace ns3

#endif // RDMA_CC_REGISTRY_H
