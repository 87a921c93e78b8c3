/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Hierarchical multi-dimensional baseline (the fixed-order baseline of Themis,
 * Rashidi et al. ISCA 2022) and the 2D ring (ring2d) on a 2D torus.
 *
 * hierarchical, all-reduce: reduce-scatter along dim 0, then dim 1, ... D-1 (each
 * group of ranks that differ only in dim d splits its current region into P_d
 * contiguous parts with tn_slice_of), then all-gather along D-1 .. 0. Reduce-scatter /
 * all-gather alone must end with rank r owning exactly slice r of the flat rule
 * tn_slice_of(S, N, r); with rank = c0 + P0*(c1 + ...) the union of the slices a group
 * member keeps is contiguous only when the most significant dim goes first, so they run
 * reduce-scatter along D-1 .. 0 (all-gather along 0 .. D-1); with more than one chunk
 * that union is not contiguous and they are refused. Per dim: ring for ring/torus/mesh
 * dims, direct for fc/switch/other dims.
 *
 * ring2d (2 dims, ring on both): the best version of the 2D ring, so that it is a fair
 * baseline. Every chunk's data is split into 4 equal parts that run concurrently:
 * reduce-scatter along x then y (all-gather y then x) and along y then x, each on the
 * rings in coordinate order and on the reversed rings, so that a torus node sends on
 * its +x, -x, +y and -y links at the same time (a one-order, one-direction 2D ring uses
 * one of the four links at a time and is no faster than a unidirectional ring on a
 * Hamiltonian cycle). Dims whose reversed ring would use the same links (mesh lines,
 * switches, 2-NPU axes; ring2d_two_way) run both "directions" forward, and when neither
 * dim has two ways the split is 2 parts (x-first, y-first). Reduce-scatter / all-gather
 * use the same 4 parts on their exact layout: part q of every rank's piece of its slice
 * (tn_chunk_block); a member of the first phase then owns one range per rank of its
 * column, which travels as its own transfer (tn_phase_ring_ranges), so any chunk count
 * works and the transfer count is about 4 N (P_a - 1) P_b per chunk instead of 2 N
 * (P - 1) (all-reduce parts stay one contiguous range per member).
 *
 * Ring groups follow the coordinate order (a cycle of neighbours on ring and torus
 * axes) except on mesh axes, which have no cycle: there the ring is 0, 2, 4, ..., 5,
 * 3, 1 (tn_ring_order_line), so no hop is longer than two cables instead of one hop
 * across the whole line.
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
           bool one_chunk_rs_ag,
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
    if (one_chunk_rs_ag && req->collective != TN_COLL_ALL_REDUCE && req->chunks > 1)
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
    return check_dims("hierarchical", topo, request, ranks, true, err);
}

static tn_status
plan_with(const tn_topology* topo, tn_schedule* s, tn_error* err)
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
        bool ring = k == TN_DIM_RING || k == TN_DIM_TORUS || k == TN_DIM_MESH;
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
    return plan_with(topo, s, err);
}

/* ---- ring2d: the 2D ring with every link of a node busy ---------------------------- */

/*
 * Whether the reversed ring of dim d uses other directed links than the ring itself:
 * ring and torus axes and fc dims of 3 or more NPUs (position k -> k+1 and k -> k-1
 * are different cables). A mesh line's ring (0, 2, 4, ..., 5, 3, 1) already crosses
 * every directed link of the line once per step, a ring over a switch every up- and
 * downlink once, and an axis of 2 NPUs has one cable: reversing those would only share
 * the same links (and add (link, step) conflicts).
 */
static bool
ring2d_two_way(const tn_topology* topo, uint32_t d)
{
    const tn_dim_info* di = tn_topology_dim(topo, d);
    return di->size >= 3 &&
           (di->kind == TN_DIM_RING || di->kind == TN_DIM_TORUS || di->kind == TN_DIM_FC);
}

typedef struct ring2d_ctx
{
    const tn_topology* topo;
    tn_schedule* s;
    uint32_t size[2];  /* P_d */
    uint32_t* pos[2];  /* ring position -> coordinate along dim d (line order on mesh) */
    tn_slice* blk;     /* final block of every rank in the current part (N) */
    tn_slice* table;   /* level 0: the parts by coordinate, table[x * nr + j] (N) */
    tn_slice* parts;   /* the parts by ring position handed to the phase (N) */
    uint32_t* members; /* max P */
    tn_front in, out;
} ring2d_ctx;

/* Rank with coordinate x along dim d and g along the other dim. */
static uint32_t
ring2d_rank(const ring2d_ctx* c, uint32_t d, uint32_t x, uint32_t g)
{
    return d == 0 ? x + c->size[0] * g : g + c->size[0] * x;
}

/*
 * One ring phase along dim d of the current part in every group (the ranks that differ
 * only in dim d; group g = coordinate g on the other dim), on the ring in coordinate
 * order or reversed. Level 0 (the first reduce-scatter and the last all-gather phase):
 * the member with coordinate x owns the blocks of every rank with coordinate x on d,
 * one range per coordinate on the other dim, merged into one range when they are
 * contiguous for every x (all-reduce); ranges empty for every member are dropped.
 * Level 1: every member owns its own block; a group whose blocks are all empty sends
 * nothing. Then the out frontier becomes the in frontier (ranks the phase did not
 * touch keep theirs).
 */
static tn_status
ring2d_phase(ring2d_ctx* c,
             uint32_t d,
             bool level0,
             bool rs,
             bool reverse,
             uint32_t step,
             uint32_t chunk,
             tn_error* err)
{
    uint32_t P = c->size[d], Q = c->size[1 - d];
    uint32_t nr = 1;
    tn_status st = TN_OK;
    if (level0)
    {
        bool contiguous = true;
        for (uint32_t x = 0; x < P && contiguous; x++)
            for (uint32_t y = 1; y < Q && contiguous; y++)
            {
                tn_slice p = c->blk[ring2d_rank(c, d, x, y - 1)];
                contiguous = p.offset + p.length == c->blk[ring2d_rank(c, d, x, y)].offset;
            }
        nr = 0;
        if (contiguous)
        {
            nr = 1;
            for (uint32_t x = 0; x < P; x++)
            {
                tn_slice first = c->blk[ring2d_rank(c, d, x, 0)];
                tn_slice last = c->blk[ring2d_rank(c, d, x, Q - 1)];
                c->table[x].offset = first.offset;
                c->table[x].length = last.offset + last.length - first.offset;
            }
        }
        else
        {
            for (uint32_t y = 0; y < Q; y++)
            {
                bool used = false;
                for (uint32_t x = 0; x < P && !used; x++)
                    used = c->blk[ring2d_rank(c, d, x, y)].length > 0;
                if (!used)
                    continue;
                for (uint32_t x = 0; x < P; x++)
                    c->table[(size_t)x * Q + nr] = c->blk[ring2d_rank(c, d, x, y)];
                nr++;
            }
            /* compact the rows from stride Q to stride nr */
            for (uint32_t x = 1; x < P && nr > 0; x++)
                for (uint32_t j = 0; j < nr; j++)
                    c->table[(size_t)x * nr + j] = c->table[(size_t)x * Q + j];
        }
    }
    for (uint32_t g = 0; g < Q && nr > 0 && !st; g++)
    {
        bool any = false;
        for (uint32_t k = 0; k < P; k++)
        {
            uint32_t x = c->pos[d][reverse ? P - 1 - k : k];
            c->members[k] = ring2d_rank(c, d, x, g);
            for (uint32_t j = 0; j < nr; j++)
            {
                tn_slice r = level0 ? c->table[(size_t)x * nr + j] : c->blk[c->members[k]];
                c->parts[(size_t)k * nr + j] = r;
                any = any || r.length > 0;
            }
        }
        if (!any)
            continue;
        tn_phase ph = {c->topo,
                       c->s,
                       &c->in,
                       &c->out,
                       c->members,
                       P,
                       c->parts,
                       step,
                       chunk,
                       (int32_t)d,
                       false};
        st = tn_phase_ring_ranges(&ph, nr, rs, err);
    }
    if (!st)
        st = tn_front_carry(&c->in, &c->out, err);
    tn_front_swap(&c->in, &c->out);
    tn_front_clear(&c->out);
    return st;
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
    return check_dims("ring2d", topo, request, ranks, false, err);
}

/*
 * The data of every chunk is split into `parts` = 4 parts (2 when neither dim can run
 * its ring both ways, see ring2d_two_way): part q reduce-scatters along dim `first`
 * (x-first for q < parts/2, y-first after), then along the other dim, and all-gathers
 * in reverse; odd q run every two-way dim on the reversed ring. The parts share no
 * bytes and no deps, so they run concurrently: on a torus the four use the +x, -x, +y
 * and -y links of every node at the same time. Final blocks: all-reduce = part q of the
 * chunk region split by the first dim's coordinate, then by the other's; reduce-scatter
 * / all-gather = part q of every rank's piece of its slice (tn_chunk_block), so a
 * level-0 member owns one range per rank of its column.
 */
tn_status
tn_algo_ring2d_plan(const tn_topology* topo,
                    const tn_plan_request* request,
                    tn_schedule* s,
                    tn_error* err)
{
    (void)request;
    tn_collective coll = tn_schedule_collective(s);
    uint32_t N = tn_schedule_ranks(s);
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    ring2d_ctx c = {topo, s, {0, 0}, {NULL, NULL}, NULL, NULL, NULL, NULL, {0}, {0}};
    bool fin = false, fout = false;
    tn_status st = TN_OK;
    uint32_t maxp = 1;
    for (uint32_t d = 0; d < 2; d++)
    {
        c.size[d] = tn_topology_dim(topo, d)->size;
        maxp = c.size[d] > maxp ? c.size[d] : maxp;
        c.pos[d] = malloc((size_t)c.size[d] * sizeof(uint32_t));
    }
    c.blk = malloc((size_t)N * sizeof(tn_slice));
    c.table = malloc((size_t)N * sizeof(tn_slice));
    c.parts = malloc((size_t)N * sizeof(tn_slice));
    c.members = malloc((size_t)maxp * sizeof(uint32_t));
    if (!c.pos[0] || !c.pos[1] || !c.blk || !c.table || !c.parts || !c.members)
        st = tn_error_set(err, TN_ENOMEM, "ring2d: out of memory");
    if (!st)
    {
        st = tn_front_init(&c.in, N, err);
        fin = !st;
    }
    if (!st)
    {
        st = tn_front_init(&c.out, N, err);
        fout = !st;
    }
    for (uint32_t d = 0; d < 2 && !st; d++)
    {
        if (tn_topology_dim(topo, d)->kind == TN_DIM_MESH)
            tn_ring_order_line(c.size[d], c.pos[d]);
        else
            for (uint32_t k = 0; k < c.size[d]; k++)
                c.pos[d][k] = k;
    }
    bool two_way[2] = {ring2d_two_way(topo, 0), ring2d_two_way(topo, 1)};
    uint32_t nparts = (two_way[0] || two_way[1]) ? 4 : 2;
    bool do_rs = coll != TN_COLL_ALL_GATHER;
    bool do_ag = coll != TN_COLL_REDUCE_SCATTER;
    for (uint32_t ch = 0; ch < C && !st; ch++)
    {
        for (uint32_t q = 0; q < nparts && !st; q++)
        {
            uint32_t a = q / (nparts / 2); /* reduce-scatter dim a first, then b */
            uint32_t b = 1 - a;
            bool rev = nparts == 4 && q % 2 == 1;
            uint64_t total = 0;
            if (coll == TN_COLL_ALL_REDUCE)
            {
                tn_slice reg = tn_chunk_region(S, C, ch);
                tn_slice part = tn_slice_of(reg.length, nparts, q);
                part.offset += reg.offset;
                for (uint32_t x = 0; x < c.size[a]; x++)
                {
                    tn_slice u = tn_slice_of(part.length, c.size[a], x);
                    u.offset += part.offset;
                    for (uint32_t y = 0; y < c.size[b]; y++)
                    {
                        tn_slice v = tn_slice_of(u.length, c.size[b], y);
                        v.offset += u.offset;
                        c.blk[ring2d_rank(&c, a, x, y)] = v;
                    }
                }
                total = part.length;
            }
            else
            {
                for (uint32_t r = 0; r < N; r++)
                {
                    tn_slice piece = tn_chunk_block(coll, S, N, C, ch, r);
                    tn_slice v = tn_slice_of(piece.length, nparts, q);
                    v.offset += piece.offset;
                    c.blk[r] = v;
                    total += v.length;
                }
            }
            if (total == 0)
                continue;
            tn_front_clear(&c.in);
            tn_front_clear(&c.out);
            uint32_t step = 0;
            if (do_rs)
            {
                st = ring2d_phase(&c, a, true, true, rev && two_way[a], step, ch, err);
                step += c.size[a] - 1;
                if (!st)
                    st = ring2d_phase(&c, b, false, true, rev && two_way[b], step, ch, err);
                step += c.size[b] - 1;
            }
            if (do_ag && !st)
            {
                st = ring2d_phase(&c, b, false, false, rev && two_way[b], step, ch, err);
                step += c.size[b] - 1;
                if (!st)
                    st = ring2d_phase(&c, a, true, false, rev && two_way[a], step, ch, err);
            }
        }
    }
    if (fin)
        tn_front_free(&c.in);
    if (fout)
        tn_front_free(&c.out);
    free(c.pos[0]);
    free(c.pos[1]);
    free(c.blk);
    free(c.table);
    free(c.parts);
    free(c.members);
    return st;
}
