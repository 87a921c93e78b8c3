/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Hierarchical multi-dimensional baseline (the fixed-order baseline of Themis,
 * Rashidi et al. ISCA 2022) and the 2D ring (ring2d) on a 2D torus.
 *
 * All-reduce: reduce-scatter along dim 0, then dim 1, ... D-1 (each group of ranks
 * that differ only in dim d splits its current region into P_d contiguous parts
 * with tn_slice_of), then all-gather along D-1 .. 0. Reduce-scatter / all-gather
 * alone must end with rank r owning exactly slice r of the flat rule
 * tn_slice_of(S, N, r); with rank = c0 + P0*(c1 + ...) the union of the slices a
 * group member keeps is contiguous only when the most significant dim goes first,
 * so they run reduce-scatter along D-1 .. 0 (all-gather along 0 .. D-1); with more
 * than one chunk that union is not contiguous and they are refused.
 * Per dim: ring for ring/torus/mesh dims, direct for fc/switch/other dims
 * (hierarchical); ring on both dims (ring2d). Ring groups follow the coordinate
 * order (a cycle of neighbours on ring and torus axes) except on mesh axes, which
 * have no cycle: there the ring is 0, 2, 4, ..., 5, 3, 1 (tn_ring_order_line), so
 * no hop is longer than two cables instead of one hop across the whole line.
 */
#include "tn-algorithm-impl.h"
#include "tn-rank-order.h"

#include <stdlib.h>

static uint32_t
stride_of(const tn_topology* topo, uint32_t d)
{
    uint32_t st = 1;
    for (uint32_t e = 0; e < d; e++)
        st *= tn_topology_dim(topo, e)->size;
    return st;
}

static uint32_t
coord_of(const tn_topology* topo, uint32_t rank, uint32_t d)
{
    return (rank / stride_of(topo, d)) % tn_topology_dim(topo, d)->size;
}

/*
 * Run the hierarchy: rs_order = dims in reduce-scatter order (all-gather reversed);
 * rs[d] / ag[d] = phase functions per dim.
 */
static tn_status
hier_run(const tn_topology* topo,
         tn_schedule* s,
         const uint32_t* rs_order,
         const tn_phase_fn* rs,
         const tn_phase_fn* ag,
         tn_error* err)
{
    tn_collective coll = tn_schedule_collective(s);
    uint32_t N = tn_schedule_ranks(s);
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    uint32_t D = tn_topology_dim_count(topo);
    uint32_t maxp = 1;
    for (uint32_t d = 0; d < D; d++)
        if (tn_topology_dim(topo, d)->size > maxp)
            maxp = tn_topology_dim(topo, d)->size;
    uint32_t* members = malloc((size_t)maxp * sizeof(uint32_t));
    uint32_t* pos = malloc((size_t)maxp * sizeof(uint32_t));
    tn_slice* parts = malloc((size_t)maxp * sizeof(tn_slice));
    tn_front a, b;
    bool fa = false, fb = false;
    tn_status st = TN_OK;
    if (!members || !pos || !parts)
        st = tn_error_set(err, TN_ENOMEM, "hierarchical: out of memory");
    if (!st)
    {
        st = tn_front_init(&a, N, err);
        fa = !st;
    }
    if (!st)
    {
        st = tn_front_init(&b, N, err);
        fb = !st;
    }
    bool do_rs = coll != TN_COLL_ALL_GATHER;
    bool do_ag = coll != TN_COLL_REDUCE_SCATTER;
    for (uint32_t c = 0; c < C && !st; c++)
    {
        tn_front_clear(&a);
        tn_front_clear(&b);
        uint32_t step = 0;
        for (uint32_t pass = 0; pass < 2 && !st; pass++)
        {
            if ((pass == 0 && !do_rs) || (pass == 1 && !do_ag))
                continue;
            for (uint32_t li = 0; li < D && !st; li++)
            {
                uint32_t l = pass == 0 ? li : D - 1 - li; /* level */
                uint32_t d = rs_order[l];
                uint32_t P = tn_topology_dim(topo, d)->size;
                uint32_t sd = stride_of(topo, d);
                uint32_t used_max = 0;
                /* ring position k holds coordinate pos[k]: a mesh line has no cycle,
                 * its ring goes out on the even and back on the odd coordinates */
                if (tn_topology_dim(topo, d)->kind == TN_DIM_MESH)
                    tn_ring_order_line(P, pos);
                else
                    for (uint32_t k = 0; k < P; k++)
                        pos[k] = k;
                for (uint32_t v0 = 0; v0 < N && !st; v0++)
                {
                    if (coord_of(topo, v0, d) != 0)
                        continue;
                    for (uint32_t k = 0; k < P; k++)
                        members[k] = v0 + pos[k] * sd;
                    if (coll == TN_COLL_ALL_REDUCE)
                    {
                        tn_slice reg = tn_chunk_region(S, C, c);
                        for (uint32_t l2 = 0; l2 < l; l2++)
                        {
                            uint32_t d2 = rs_order[l2];
                            tn_slice x = tn_slice_of(reg.length,
                                                     tn_topology_dim(topo, d2)->size,
                                                     coord_of(topo, v0, d2));
                            reg.offset += x.offset;
                            reg.length = x.length;
                        }
                        for (uint32_t k = 0; k < P; k++)
                        {
                            parts[k] = tn_slice_of(reg.length, P, pos[k]);
                            parts[k].offset += reg.offset;
                        }
                    }
                    else
                    {
                        /* ranks sharing the member's coords on dims >= d: [base, base+sd) */
                        for (uint32_t k = 0; k < P; k++)
                        {
                            uint32_t base = (members[k] / sd) * sd;
                            tn_slice first = tn_slice_of(S, N, base);
                            tn_slice last = tn_slice_of(S, N, base + sd - 1);
                            parts[k].offset = first.offset;
                            parts[k].length = last.offset + last.length - first.offset;
                        }
                    }
                    tn_phase ph = {topo, s, &a, &b, members, P, parts, step, c, (int32_t)d, false};
                    uint32_t used = 0;
                    st = (pass == 0 ? rs[d] : ag[d])(&ph, &used, err);
                    if (used > used_max)
                        used_max = used;
                }
                if (!st)
                    st = tn_front_carry(&a, &b, err);
                tn_front_swap(&a, &b);
                tn_front_clear(&b);
                step += used_max;
            }
        }
    }
    if (fa)
        tn_front_free(&a);
    if (fb)
        tn_front_free(&b);
    free(members);
    free(pos);
    free(parts);
    return st;
}

static tn_status
check_dims(const char* name,
           const tn_topology* topo,
           const tn_plan_request* req,
           uint32_t ranks,
           tn_error* err)
{
    uint32_t D = tn_topology_dim_count(topo);
    if (D == 0)
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: topology '%s' has no dimensions",
                            name,
                            tn_topology_name(topo));
    if (ranks != tn_topology_npu_count(topo))
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: needs every NPU of the topology (ranks %u, NPUs %u)",
                            name,
                            ranks,
                            tn_topology_npu_count(topo));
    if (req->collective != TN_COLL_ALL_REDUCE && req->chunks > 1)
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: %s with %u chunks: a chunk's slices are not contiguous per group "
                            "(use chunks = 1)",
                            name,
                            tn_collective_name(req->collective),
                            req->chunks);
    return TN_OK;
}

tn_status
tn_algo_hierarchical_check(const tn_topology* topo,
                           const tn_plan_request* request,
                           uint32_t ranks,
                           tn_error* err)
{
    return check_dims("hierarchical", topo, request, ranks, err);
}

static tn_status
plan_with(const tn_topology* topo, tn_schedule* s, bool ring_everywhere, tn_error* err)
{
    uint32_t D = tn_topology_dim_count(topo);
    uint32_t* order = malloc((size_t)D * sizeof(uint32_t));
    tn_phase_fn* rs = malloc((size_t)D * sizeof(tn_phase_fn));
    tn_phase_fn* ag = malloc((size_t)D * sizeof(tn_phase_fn));
    tn_status st = TN_OK;
    if (!order || !rs || !ag)
        st = tn_error_set(err, TN_ENOMEM, "hierarchical: out of memory");
    bool ar = tn_schedule_collective(s) == TN_COLL_ALL_REDUCE;
    for (uint32_t d = 0; d < D && !st; d++)
    {
        order[d] = ar ? d : D - 1 - d;
        tn_dim_kind k = tn_topology_dim(topo, d)->kind;
        bool ring = ring_everywhere || k == TN_DIM_RING || k == TN_DIM_TORUS || k == TN_DIM_MESH;
        rs[d] = ring ? tn_phase_ring_rs : tn_phase_direct_rs;
        ag[d] = ring ? tn_phase_ring_ag : tn_phase_direct_ag;
    }
    if (!st)
        st = hier_run(topo, s, order, rs, ag, err);
    free(order);
    free(rs);
    free(ag);
    return st;
}

tn_status
tn_algo_hierarchical_plan(const tn_topology* topo,
                          const tn_plan_request* request,
                          tn_schedule* s,
                          tn_error* err)
{
    (void)request;
    return plan_with(topo, s, false, err);
}

tn_status
tn_algo_ring2d_check(const tn_topology* topo,
                     const tn_plan_request* request,
                     uint32_t ranks,
                     tn_error* err)
{
    uint32_t D = tn_topology_dim_count(topo);
    if (D != 2)
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "ring2d: needs a 2D torus (topology '%s' has %u dims)",
                            tn_topology_name(topo),
                            D);
    return check_dims("ring2d", topo, request, ranks, err);
}

tn_status
tn_algo_ring2d_plan(const tn_topology* topo,
                    const tn_plan_request* request,
                    tn_schedule* s,
                    tn_error* err)
{
    (void)request;
    return plan_with(topo, s, true, err);
}
