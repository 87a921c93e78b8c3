/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-topology-preset: real systems (DGX/HGX servers, an NVL72 rack) on a scale-out fabric
 * (contract and sources in tn-topology.h, "System presets").
 */
#include "tn-topology.h"

#include <stdlib.h>
#include <string.h>

/* The figures of the vendors' data sheets (doc/core-topology.rst names each one). Latencies are
 * not on the data sheets: 300 ns per NVLink hop and 1 us per network hop are assumptions,
 * kept until the validation against measured clusters (issue 39) sets them. */
static const tn_system_preset tn_presets[] = {
    {"dgx-a100", 8, 2400000000000ull, 200000000000ull, 300, 1000},
    {"dgx-h100", 8, 3600000000000ull, 400000000000ull, 300, 1000},
    {"gb200-nvl72", 72, 7200000000000ull, 400000000000ull, 300, 1000},
};

const tn_system_preset*
tn_system_preset_at(size_t i)
{
    return i < sizeof(tn_presets) / sizeof(tn_presets[0]) ? &tn_presets[i] : NULL;
}

const tn_system_preset*
tn_system_preset_find(const char* name, size_t len)
{
    for (size_t i = 0; tn_system_preset_at(i); i++)
    {
        if (strlen(tn_presets[i].name) == len && memcmp(tn_presets[i].name, name, len) == 0)
        {
            return &tn_presets[i];
        }
    }
    return NULL;
}

const char*
tn_fabric_name(tn_fabric fabric)
{
    return fabric == TN_FABRIC_RAIL_ONLY ? "rail-only" : "rail-optimized";
}

tn_status
tn_topology_system(const tn_system_preset* preset,
                   uint32_t servers,
                   uint32_t gpus,
                   tn_fabric fabric,
                   double oversub,
                   tn_topology** out,
                   tn_error* err)
{
    if (!out || !preset)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_system: out or preset is NULL");
    }
    *out = NULL;
    gpus = gpus ? gpus : preset->gpus;
    if (gpus < 2 || gpus > preset->gpus)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: gpus = %u must be in [2, %u] (GPUs per server)",
                            preset->name,
                            gpus,
                            preset->gpus);
    }
    if (servers < 1 || (uint64_t)servers * gpus > (1u << 24))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: servers = %u must be in [1, %u]",
                            preset->name,
                            servers,
                            (1u << 24) / gpus);
    }
    if (!(oversub >= 1.0 && oversub <= 1e6))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: oversub = %g must be in [1, 1e6]",
                            preset->name,
                            oversub);
    }
    tn_dim_info dims[2] = {
        {TN_DIM_SWITCH, gpus, preset->nvlink_bps, preset->nvlink_latency_ns},
        {TN_DIM_SWITCH, servers, preset->nic_bps, preset->nic_latency_ns},
    };
    if (servers == 1 || fabric == TN_FABRIC_RAIL_ONLY)
    {
        // one switch per rail and no spine: the hierarchical system of these two dims
        return tn_topology_hierarchical(servers == 1 ? 1 : 2, dims, out, err);
    }
    /* NPUs (rank = gpu + gpus * server), an NVSwitch per server, a leaf per rail (GPU g of
     * every server), then `gpus` spines cabled to every leaf; a leaf's uplinks carry its
     * NICs' capacity / oversub. */
    const uint64_t up =
        (uint64_t)((double)servers * (double)preset->nic_bps / (oversub * (double)gpus));
    if (up == 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: oversub = %g leaves no uplink",
                            preset->name,
                            oversub);
    }
    tn_topology* t = NULL;
    uint32_t first = 0;
    tn_status s = tn_topology_create(&t, err);
    const uint32_t npus = servers * gpus;
    const uint32_t nvswitch = npus, leaf = npus + servers, spine = leaf + gpus;
    if (!s)
        s = tn_topology_add_nodes(t, TN_NODE_NPU, npus, &first, err);
    if (!s)
        s = tn_topology_add_nodes(t, TN_NODE_SWITCH, servers + 2 * gpus, &first, err);
    if (!s)
        s = tn_topology_set_dims(t, 2, dims, err);
    for (uint32_t r = 0; r < npus && !s; r++)
    {
        s = tn_topology_add_link(t,
                                 r,
                                 nvswitch + r / gpus,
                                 dims[0].bandwidth_bps,
                                 dims[0].latency_ns,
                                 0,
                                 NULL,
                                 NULL,
                                 err);
        if (!s)
            s = tn_topology_add_link(t,
                                     r,
                                     leaf + r % gpus,
                                     dims[1].bandwidth_bps,
                                     dims[1].latency_ns,
                                     1,
                                     NULL,
                                     NULL,
                                     err);
    }
    for (uint32_t l = 0; l < gpus && !s; l++)
    {
        for (uint32_t p = 0; p < gpus && !s; p++)
        {
            s = tn_topology_add_link(t,
                                     leaf + l,
                                     spine + p,
                                     up,
                                     dims[1].latency_ns,
                                     1,
                                     NULL,
                                     NULL,
                                     err);
        }
    }
    if (s)
    {
        tn_topology_destroy(t);
        return s;
    }
    // GPUs do not relay between their NVSwitch and their NIC: a rail change crosses a spine
    tn_topology_set_npus_forward(t, false);
    *out = t;
    return TN_OK;
}
