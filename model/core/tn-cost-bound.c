/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The lower bound of the per-step estimate without its paths (tn_cost_program_lower_bound,
 * contract in tn-cost.h), which the tuner uses to skip a candidate that cannot be among the
 * first two.
 */
#include "tn-array.h"
#include "tn-cost.h"
#include "tn-program-impl.h"

#include <stdlib.h>
#include <string.h>

tn_status
tn_cost_program_lower_bound(const tn_program* p,
                            const tn_cost_options* options,
                            uint32_t max_ranks,
                            double* bound_ns,
                            tn_error* err)
{
    if (!p || !bound_ns)
        return tn_error_set(err, TN_EINVAL, "cost: NULL argument");
    *bound_ns = 0;
    const tn_topology* topo = tn_program_topology(p);
    uint32_t N = tn_program_ranks(p);
    uint32_t m = max_ranks ? max_ranks : tn_program_cost_ranks(p);
    if (!topo || m < N)
        return TN_OK; /* samples: their mean load is no bound of every rank's */
    uint32_t links = tn_topology_link_count(topo);
    double max_rate = 0, min_lat = -1;
    for (uint32_t l = 0; l < links; l++)
    {
        const tn_link* k = tn_topology_link(topo, l);
        max_rate = (double)k->rate_bps > max_rate ? (double)k->rate_bps : max_rate;
        if (min_lat < 0 || (double)k->latency_ns < min_lat)
            min_lat = (double)k->latency_ns;
    }
    if (links == 0 || max_rate <= 0)
        return TN_OK;
    uint32_t mtu = options ? options->mtu : 0, ovh = options ? options->packet_overhead : 0;
    tn_routes* routes = NULL;
    tn_status st = tn_routes_create(topo, NULL, &routes, err);
    /* per step: the receives' link busy time at the fastest rate, and the fewest hops of
     * its ops (steps are few: 2 (N-1) for a ring) */
    double* busy = NULL;
    uint32_t* hops = NULL;
    size_t cap_b = 0, cap_h = 0;
    uint32_t steps = 0;
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    for (uint32_t r = 0; r < N && !st; r++)
    {
        st = tn_program_rank(p, r, &rp, err);
        uint32_t to = st ? 0 : tn_topology_npu_node(topo, r);
        for (uint32_t k = 0; k < rp.count && !st; k++)
        {
            const tn_program_op* o = &rp.ops[k];
            if (o->step >= steps)
            {
                double* b = tn_array_grow(busy, &cap_b, (size_t)o->step + 1, sizeof(double), 64);
                uint32_t* h =
                    b ? tn_array_grow(hops, &cap_h, (size_t)o->step + 1, sizeof(uint32_t), 64)
                      : NULL;
                if (b)
                    busy = b;
                if (!h)
                {
                    st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
                    break;
                }
                hops = h;
                for (uint32_t s = steps; s <= o->step; s++)
                {
                    busy[s] = 0;
                    hops[s] = UINT32_MAX;
                }
                steps = o->step + 1;
            }
            uint32_t d = tn_routes_distance(routes, tn_topology_npu_node(topo, o->peer), to);
            if (d == TN_ROUTES_UNREACHABLE)
                continue; /* tn_cost_program fails on it: no bound needed */
            hops[o->step] = d < hops[o->step] ? d : hops[o->step];
            if (!o->send && o->length)
                busy[o->step] +=
                    (double)tn_cost_wire_bytes(mtu, ovh, o->length) * d * 8e9 / max_rate;
        }
    }
    /* each step of the estimate lasts at least the mean link load (every rank's receives
     * over every link) and at least one op's latency (its hops at the smallest latency);
     * see tn_cost_program */
    double t = 0;
    for (uint32_t s = 0; s < steps && !st; s++)
    {
        double avg = busy[s] / links;
        double lat = hops[s] == UINT32_MAX ? 0 : (double)hops[s] * min_lat;
        t += avg > lat ? avg : lat;
    }
    if (!st)
        *bound_ns = t;
    tn_rank_program_free(&rp);
    tn_routes_destroy(routes);
    free(busy);
    free(hops);
    return st;
}
