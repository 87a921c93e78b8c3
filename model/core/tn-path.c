/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-path: the links a transfer crosses (contract in tn-path.h).
 */
#include "tn-path.h"

#include <string.h>

uint64_t
tn_transfer_flow_hash(const tn_transfer* t)
{
    return ((uint64_t)t->src << 32) | t->dst;
}

tn_status
tn_transfer_links(const tn_schedule* s,
                  uint32_t id,
                  const tn_topology* topo,
                  const tn_routes* routes,
                  uint32_t* links,
                  uint32_t cap,
                  uint32_t* len,
                  tn_error* err)
{
    const tn_transfer* t = tn_schedule_transfer(s, id);
    uint32_t sn = tn_topology_npu_node(topo, t->src);
    uint32_t dn = tn_topology_npu_node(topo, t->dst);
    if (sn == TN_TOPO_NONE || dn == TN_TOPO_NONE)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "transfer %u: rank %u or %u is not an NPU of the topology (%u NPUs)",
                            id,
                            t->src,
                            t->dst,
                            tn_topology_npu_count(topo));
    }
    if (tn_op_is_local(t->op))
    {
        *len = 0; /* no network */
        return TN_OK;
    }
    uint32_t np;
    const uint32_t* path = tn_schedule_path(s, id, &np);
    if (np > 0)
    {
        uint32_t at = sn;
        uint32_t lc = tn_topology_link_count(topo);
        for (uint32_t k = 0; k < np; k++)
        {
            if (path[k] >= lc || tn_topology_link(topo, path[k])->src != at)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "transfer %u: explicit path link %u (hop %u) does not "
                                    "leave node %u",
                                    id,
                                    path[k],
                                    k,
                                    at);
            }
            at = tn_topology_link(topo, path[k])->dst;
        }
        if (at != dn)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "transfer %u: explicit path ends at node %u, not at node %u of "
                                "rank %u",
                                id,
                                at,
                                dn,
                                t->dst);
        }
        if (np > cap)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "transfer %u: path of %u hops exceeds cap %u",
                                id,
                                np,
                                cap);
        }
        memcpy(links, path, np * sizeof(uint32_t));
        *len = np;
        return TN_OK;
    }
    if (!routes)
    {
        return tn_error_set(err, TN_EINVAL, "transfer %u: no explicit path and no routes", id);
    }
    return tn_routes_path(routes, sn, dn, tn_transfer_flow_hash(t), links, cap, len, err);
}
