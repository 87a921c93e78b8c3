/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-registry.h"

#include "rdma-cc.h"

#include "ns3/attribute-settings.h"

namespace ns3
{

const std::vector<RdmaCcEntry>&
RdmaCcRegistry::GetAll()
{
    // none has no class: its queue pairs send at line rate without one
    static const std::vector<RdmaCcEntry> all = {
        {"dcqcn", "ns3::RdmaDcqcnControl", "DCQCN", 1},
        {"hpcc", "ns3::RdmaHpcc", "HPCC", 3},
        {"hpcc-pint", "ns3::RdmaHpccPint", "HPCC-PINT", 10},
        {"timely", "ns3::RdmaTimely", "TIMELY", 7},
        {"dctcp", "ns3::RdmaDctcp", "DCTCP", 8},
        {"none", "", "none", 0},
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

const RdmaCcEntry*
RdmaCcRegistry::FindByTypeId(TypeId tid)
{
    if (tid == RdmaCongestionControl::GetTypeId())
    {
        return &GetAll().back();
    }
    for (const RdmaCcEntry& e : GetAll())
    {
        if (*e.typeName && tid.GetName() == e.typeName)
        {
            return &e;
        }
    }
    return nullptr;
}

bool
RdmaCcRegistry::Resolve(const std::string& name, TypeId* tid)
{
    const RdmaCcEntry* e = Find(name);
    if (e)
    {
        *tid =
            *e->typeName ? TypeId::LookupByName(e->typeName) : RdmaCongestionControl::GetTypeId();
        return true;
    }
    TypeId found;
    if (!TypeId::LookupByNameFailSafe(name, &found) || !found.HasConstructor())
    {
        return false;
    }
    const TypeId base = RdmaCongestionControl::GetTypeId();
    if (found != base && !found.IsChildOf(base))
    {
        return false;
    }
    *tid = found;
    return true;
}

std::string
RdmaCcRegistry::GetName(TypeId tid)
{
    const RdmaCcEntry* e = FindByTypeId(tid);
    return e ? e->name : tid.GetName();
}

const RdmaCcEntry*
RdmaCcRegistry::FindByCcMode(uint32_t ccMode)
{
    for (const RdmaCcEntry& e : GetAll())
    {
        if (*e.typeName && e.ccMode == ccMode)
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
    return "CC_MODE " + std::to_string(e->ccMode) + " (" + e->label + ")";
}

std::string
RdmaCcRegistry::DescribeParameters(const std::string& name)
{
    TypeId tid;
    if (!Resolve(name, &tid))
    {
        return "";
    }
    if (tid == RdmaCongestionControl::GetTypeId())
    {
        return "no congestion control";
    }
    // the class, then each parent up to the base class, with what each declares
    std::string text;
    for (TypeId t = tid; t != Object::GetTypeId(); t = t.GetParent())
    {
        const std::string own = AttributeSettings::DescribeDefaults(t);
        if (t == tid || !own.empty())
        {
            text += (text.empty() ? "" : "; ") + t.GetName() + (own.empty() ? "" : " " + own);
        }
    }
    return text;
}

} // namespace ns3
