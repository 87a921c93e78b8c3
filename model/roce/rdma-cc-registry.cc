/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-registry.h"

namespace ns3
{

const std::vector<RdmaCcEntry>&
RdmaCcRegistry::GetAll()
{
    // none has no class: its queue pairs send at line rate without one
    static const std::vector<RdmaCcEntry> all = {
        {"dcqcn", "ns3::RdmaDcqcnControl", "DCQCN", RdmaNic::CC_DCQCN},
        {"hpcc", "ns3::RdmaHpcc", "HPCC", RdmaNic::CC_HPCC},
        {"hpcc-pint", "ns3::RdmaHpccPint", "HPCC-PINT", RdmaNic::CC_HPCC_PINT},
        {"timely", "ns3::RdmaTimely", "TIMELY", RdmaNic::CC_TIMELY},
        {"dctcp", "ns3::RdmaDctcp", "DCTCP", RdmaNic::CC_DCTCP},
        {"none", "", "none", RdmaNic::CC_NONE},
    };
    return all;
}

const RdmaCcEntry*
RdmaCcRegistry::Find(const std::string& name)
{
    for (const RdmaCcEntry& e : GetAll())
    {
        if (name == e.name || (*e.typeName && name == e.typeName))
        {
            return &e;
        }
    }
    return nullptr;
}

const RdmaCcEntry&
RdmaCcRegistry::Get(RdmaNic::CongestionControlType type)
{
    for (const RdmaCcEntry& e : GetAll())
    {
        if (e.type == type)
        {
            return e;
        }
    }
    return GetAll().back();
}

const RdmaCcEntry*
RdmaCcRegistry::FindByCcMode(uint32_t ccMode)
{
    for (const RdmaCcEntry& e : GetAll())
    {
        if (*e.typeName && static_cast<uint32_t>(e.type) == ccMode)
        {
            return &e;
        }
    }
    return nullptr;
}

std::string
RdmaCcRegistry::ListNames()
{
    std::string list;
    for (const RdmaCcEntry& e : GetAll())
    {
        list += (list.empty() ? "" : ", ") + std::string(e.name);
    }
    return list;
}

std::string
RdmaCcRegistry::ListCcModes()
{
    std::string list;
    for (uint32_t mode = 0; mode <= UINT8_MAX; ++mode)
    {
        if (const RdmaCcEntry* e = FindByCcMode(mode))
        {
            list += (list.empty() ? "" : ", ") + std::to_string(mode) + " " + e->label;
        }
    }
    return list;
}

std::string
RdmaCcRegistry::CcModeName(const std::string& name)
{
    const RdmaCcEntry* e = Find(name);
    if (!e || !*e->typeName)
    {
        return name;
    }
    return "CC_MODE " + std::to_string(static_cast<uint32_t>(e->type)) + " (" + e->label + ")";
}

} // namespace ns3
