/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-symmetry: translations of NPU coordinates as network automorphisms (contract in
 * tn-symmetry.h).
 */
#include "tn-symmetry.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct tn_symmetry
{
    const tn_topology* topo;
    uint32_t npus;
    uint32_t dims;
    uint32_t* radix;     /* P_d */
    uint32_t* anchor;    /* per node: a switch's NPU neighbour of smallest rank (node id) */
    int* anchor_dim;     /* per node: the dim of the anchor's link to the switch */
    uint32_t* canonical; /* per link: its orbit's representative */
    uint32_t period;     /* the representatives are the ranks below it (1: rank 0) */
};

static bool
is_npu(const tn_symmetry* s, uint32_t node)
{
    return tn_topology_node_kind(s->topo, node) == TN_NODE_NPU;
}

uint32_t
tn_symmetry_shift_rank(const tn_symmetry* s, uint32_t g, uint32_t x)
{
    uint32_t out = 0, scale = 1;
    for (uint32_t d = 0; d < s->dims; d++)
    {
        const uint32_t p = s->radix[d];
        const uint32_t c = (x % p + g % p) % p;
        out += c * scale;
        scale *= p;
        x /= p;
        g /= p;
    }
    return out;
}

uint32_t
tn_symmetry_translation(const tn_symmetry* s, uint32_t from, uint32_t to)
{
    uint32_t out = 0, scale = 1;
    for (uint32_t d = 0; d < s->dims; d++)
    {
        const uint32_t p = s->radix[d];
        out += (to % p + p - from % p) % p * scale;
        scale *= p;
        from /= p;
        to /= p;
    }
    return out;
}

/* the switch neighbour of NPU node `npu` through a link of dim `dim`, or TN_TOPO_NONE */
static uint32_t
switch_of(const tn_symmetry* s, uint32_t npu, int dim)
{
    uint32_t n = 0;
    const uint32_t* out = tn_topology_out_links(s->topo, npu, &n);
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_link* l = tn_topology_link(s->topo, out[i]);
        if (l->dim == dim && !is_npu(s, l->dst))
        {
            return l->dst;
        }
    }
    return TN_TOPO_NONE;
}

uint32_t
tn_symmetry_node_image(const tn_symmetry* s, uint32_t g, uint32_t node)
{
    if (is_npu(s, node))
    {
        const uint32_t r = tn_topology_node_rank(s->topo, node);
        return tn_topology_npu_node(s->topo, tn_symmetry_shift_rank(s, g, r));
    }
    const uint32_t a = tn_symmetry_node_image(s, g, s->anchor[node]);
    return switch_of(s, a, s->anchor_dim[node]);
}

/* position of link l among the parallel links of its direction (0 for a single cable) */
static uint32_t
parallel_index(const tn_symmetry* s, const tn_link* l, bool from_src)
{
    uint32_t n = 0, k = 0;
    const uint32_t* ids = from_src ? tn_topology_out_links(s->topo, l->src, &n)
                                   : tn_topology_in_links(s->topo, l->dst, &n);
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_link* o = tn_topology_link(s->topo, ids[i]);
        if (o->src == l->src && o->dst == l->dst && o->id < l->id)
        {
            k++;
        }
    }
    return k;
}

/* the k-th link a->b, looked up at a (from_src) or at b; TN_TOPO_NONE if there is none */
static uint32_t
kth_link(const tn_symmetry* s, uint32_t a, uint32_t b, uint32_t k, bool from_src)
{
    uint32_t n = 0;
    const uint32_t* ids =
        from_src ? tn_topology_out_links(s->topo, a, &n) : tn_topology_in_links(s->topo, b, &n);
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_link* o = tn_topology_link(s->topo, ids[i]);
        if (o->src == a && o->dst == b && k-- == 0)
        {
            return o->id;
        }
    }
    return TN_TOPO_NONE;
}

uint32_t
tn_symmetry_link_image(const tn_symmetry* s, uint32_t g, uint32_t link)
{
    const tn_link* l = tn_topology_link(s->topo, link);
    const uint32_t a = tn_symmetry_node_image(s, g, l->src);
    const uint32_t b = tn_symmetry_node_image(s, g, l->dst);
    if (a == TN_TOPO_NONE || b == TN_TOPO_NONE)
    {
        return TN_TOPO_NONE;
    }
    /* looked up from the NPU end: a switch may have thousands of ports, an NPU has few */
    const bool from_src = is_npu(s, l->src);
    return kth_link(s, a, b, parallel_index(s, l, from_src), from_src);
}

uint32_t
tn_symmetry_canonical_link(const tn_symmetry* s, uint32_t link)
{
    return s->canonical[link];
}

void
tn_symmetry_destroy(tn_symmetry* s)
{
    if (!s)
    {
        return;
    }
    free(s->radix);
    free(s->anchor);
    free(s->anchor_dim);
    free(s->canonical);
    free(s);
}

/* anchors of the switches, and one switch per (NPU, dim) */
static tn_status
find_anchors(tn_symmetry* s, tn_error* err)
{
    const tn_topology* t = s->topo;
    const uint32_t nodes = tn_topology_node_count(t);
    for (uint32_t v = 0; v < nodes; v++)
    {
        s->anchor[v] = TN_TOPO_NONE;
    }
    for (uint32_t r = 0; r < s->npus; r++)
    {
        const uint32_t v = tn_topology_npu_node(t, r);
        uint32_t n = 0;
        const uint32_t* out = tn_topology_out_links(t, v, &n);
        for (uint32_t i = 0; i < n; i++)
        {
            const tn_link* l = tn_topology_link(t, out[i]);
            if (is_npu(s, l->dst))
            {
                continue;
            }
            if (switch_of(s, v, l->dim) != l->dst)
            {
                return tn_error_set(err,
                                    TN_EUNSUPPORTED,
                                    "symmetry: NPU %u has two switch neighbours in dim %d "
                                    "(%u and %u)",
                                    r,
                                    l->dim,
                                    switch_of(s, v, l->dim),
                                    l->dst);
            }
            if (s->anchor[l->dst] == TN_TOPO_NONE)
            {
                s->anchor[l->dst] = v;
                s->anchor_dim[l->dst] = l->dim;
            }
        }
    }
    for (uint32_t v = 0; v < nodes; v++)
    {
        if (!is_npu(s, v) && s->anchor[v] == TN_TOPO_NONE)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "symmetry: switch %u has no NPU neighbour (only topologies whose "
                                "every link touches an NPU are symmetric here)",
                                v);
        }
    }
    return TN_OK;
}

/* every link's image under the shift of 1 along dim d exists and looks the same */
static tn_status
check_generator(const tn_symmetry* s, uint32_t d, uint32_t g, bool* seen, tn_error* err)
{
    const tn_topology* t = s->topo;
    const uint32_t nodes = tn_topology_node_count(t);
    memset(seen, 0, nodes * sizeof(*seen));
    for (uint32_t v = 0; v < nodes; v++)
    {
        const uint32_t w = tn_symmetry_node_image(s, g, v);
        if (w == TN_TOPO_NONE || seen[w])
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "symmetry: the shift along dim %u maps node %u %s",
                                d,
                                v,
                                w == TN_TOPO_NONE ? "to no node" : "onto the image of another");
        }
        seen[w] = true;
    }
    const uint32_t links = tn_topology_link_count(t);
    for (uint32_t i = 0; i < links; i++)
    {
        const tn_link* l = tn_topology_link(t, i);
        if (!is_npu(s, l->src) && !is_npu(s, l->dst))
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "symmetry: link %u (switch %u -> switch %u) has no NPU end (only "
                                "topologies whose every link touches an NPU are symmetric here)",
                                i,
                                l->src,
                                l->dst);
        }
        const uint32_t j = tn_symmetry_link_image(s, g, i);
        const tn_link* m = j == TN_TOPO_NONE ? NULL : tn_topology_link(t, j);
        if (!m || m->rate_bps != l->rate_bps || m->latency_ns != l->latency_ns || m->dim != l->dim)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "symmetry: the shift along dim %u maps link %u (node %u -> %u) "
                                "to %s",
                                d,
                                i,
                                l->src,
                                l->dst,
                                m ? "a link of another rate, latency or dim" : "no link");
        }
    }
    return TN_OK;
}

/* the representative moves the link's NPU end (its source when both are NPUs) to its
 * orbit's representative rank */
static void
find_canonical_links(tn_symmetry* s)
{
    const uint32_t links = tn_topology_link_count(s->topo);
    for (uint32_t i = 0; i < links; i++)
    {
        const tn_link* l = tn_topology_link(s->topo, i);
        const uint32_t end = is_npu(s, l->src) ? l->src : l->dst;
        const uint32_t r = tn_topology_node_rank(s->topo, end);
        s->canonical[i] =
            tn_symmetry_link_image(s, tn_symmetry_translation(s, r, r % s->period), i);
    }
}

tn_status
tn_symmetry_set_period(tn_symmetry* s, uint32_t period, tn_error* err)
{
    /* period = P_0 ... P_(d-1) k with k dividing P_d: the multiples of period then add
     * without a carry out of dim d, so their translations form a group */
    uint32_t below = 1, d = 0;
    while (d < s->dims && period % ((uint64_t)below * s->radix[d]) == 0)
    {
        below *= s->radix[d++];
    }
    if (period == 0 || period > s->npus || period % below != 0 ||
        (d < s->dims && s->radix[d] % (period / below) != 0))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "symmetry: period %u is not a product of the first dims' sizes "
                            "and a divisor of the next (%u NPUs)",
                            period,
                            s->npus);
    }
    s->period = period;
    find_canonical_links(s);
    return TN_OK;
}

uint32_t
tn_symmetry_period(const tn_symmetry* s)
{
    return s->period;
}

uint32_t
tn_symmetry_npu_count(const tn_symmetry* s)
{
    return s->npus;
}

tn_status
tn_symmetry_create(const tn_topology* topo, tn_symmetry** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "symmetry: out is NULL");
    }
    *out = NULL;
    if (!topo)
    {
        return tn_error_set(err, TN_EINVAL, "symmetry: no topology");
    }
    const uint32_t dims = tn_topology_dim_count(topo);
    const uint32_t npus = tn_topology_npu_count(topo);
    if (dims == 0 || npus == 0)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "symmetry: topology %s has no NPU coordinates (dims)",
                            tn_topology_name(topo));
    }
    const uint32_t nodes = tn_topology_node_count(topo);
    const uint32_t links = tn_topology_link_count(topo);
    tn_symmetry* s = calloc(1, sizeof(*s));
    bool* seen = calloc(nodes, sizeof(*seen));
    if (s)
    {
        s->topo = topo;
        s->npus = npus;
        s->dims = dims;
        s->radix = calloc(dims, sizeof(*s->radix));
        s->anchor = calloc(nodes, sizeof(*s->anchor));
        s->anchor_dim = calloc(nodes, sizeof(*s->anchor_dim));
        s->canonical = calloc(links ? links : 1, sizeof(*s->canonical));
    }
    if (!s || !seen || !s->radix || !s->anchor || !s->anchor_dim || !s->canonical)
    {
        free(seen);
        tn_symmetry_destroy(s);
        return tn_error_set(err, TN_ENOMEM, "symmetry: out of memory (%u nodes)", nodes);
    }
    uint32_t scale = 1;
    tn_status st = TN_OK;
    for (uint32_t d = 0; d < dims; d++)
    {
        s->radix[d] = tn_topology_dim(topo, d)->size;
    }
    st = find_anchors(s, err);
    for (uint32_t d = 0; st == TN_OK && d < dims; d++)
    {
        if (s->radix[d] > 1)
        {
            st = check_generator(s, d, scale, seen, err);
        }
        scale *= s->radix[d];
    }
    s->period = 1;
    if (st == TN_OK)
    {
        find_canonical_links(s);
    }
    free(seen);
    if (st != TN_OK)
    {
        tn_symmetry_destroy(s);
        return st;
    }
    *out = s;
    return TN_OK;
}

/* NPU rank of program rank r, or TN_TOPO_NONE */
static uint32_t
npu_of(const tn_symmetry* s, const uint32_t* node_of_rank, uint32_t r)
{
    const uint32_t node = node_of_rank ? node_of_rank[r] : tn_topology_npu_node(s->topo, r);
    return node == TN_TOPO_NONE ? TN_TOPO_NONE : tn_topology_node_rank(s->topo, node);
}

/* compare program b to program a moved by t_g; ranks_of_npu maps NPU ranks back to ranks */
static tn_status
compare(const tn_symmetry* s,
        const uint32_t* node_of_rank,
        const uint32_t* rank_of_npu,
        uint32_t g,
        const tn_rank_program* a,
        const tn_rank_program* b,
        uint64_t slack,
        tn_error* err)
{
    if (a->count != b->count)
    {
        return tn_error_set(
            err,
            TN_EUNSUPPORTED,
            "symmetry: rank %u has %u ops, rank %u (its translate) %u (rank programs are "
            "not translates)",
            a->rank,
            a->count,
            b->rank,
            b->count);
    }
    for (uint32_t i = 0; i < a->count; i++)
    {
        const tn_program_op* x = &a->ops[i];
        const tn_program_op* y = &b->ops[i];
        const uint32_t peer =
            rank_of_npu[tn_symmetry_shift_rank(s, g, npu_of(s, node_of_rank, x->peer))];
        const char* field =
            x->send != y->send     ? "send"
            : x->op != y->op       ? "op"
            : peer != y->peer      ? "peer"
            : x->match != y->match ? "match"
            : (x->length > y->length ? x->length - y->length : y->length - x->length) > slack
                ? "length"
            : x->dep_count != y->dep_count ? "deps"
                                           : NULL;
        for (uint32_t k = 0; !field && k < x->dep_count; k++)
        {
            field = a->deps[x->dep_start + k] != b->deps[y->dep_start + k] ? "deps" : NULL;
        }
        if (field)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "symmetry: op %u of rank %u differs in %s from op %u of rank %u "
                                "moved by the translation (rank programs are not translates)",
                                i,
                                b->rank,
                                field,
                                i,
                                a->rank);
        }
    }
    return TN_OK;
}

/* the i-th translation checked (a multiple of the period): all of them, or the generators
 * (the period and the units of the dims above it) then spread samples; 0 to skip */
static uint32_t
checked_translation(const tn_symmetry* s, bool all, uint32_t i)
{
    const uint32_t order = s->npus / s->period;
    if (all)
    {
        return i * s->period;
    }
    if (i == 0)
    {
        return s->period % s->npus;
    }
    if (i <= s->dims)
    {
        uint32_t unit = 1;
        for (uint32_t d = 0; d + 1 < i; d++)
        {
            unit *= s->radix[d];
        }
        /* units below the period are not in the group; the period's own is i == 0 */
        return unit % s->period == 0 && unit != s->period ? unit % s->npus : 0;
    }
    /* a multiplicative walk: distinct, deterministic, spread over the group */
    return (uint32_t)(((uint64_t)(i - s->dims) * 2654435761u) % order) * s->period;
}

tn_status
tn_symmetry_check_program(const tn_symmetry* s,
                          const tn_program* p,
                          const uint32_t* node_of_rank,
                          uint32_t exhaustive,
                          uint32_t samples,
                          uint64_t length_slack,
                          tn_error* err)
{
    const uint32_t ranks = tn_program_ranks(p);
    uint32_t* rank_of_npu = malloc((size_t)s->npus * sizeof(*rank_of_npu));
    if (!rank_of_npu)
    {
        return tn_error_set(err, TN_ENOMEM, "symmetry: out of memory (%u NPUs)", s->npus);
    }
    for (uint32_t n = 0; n < s->npus; n++)
    {
        rank_of_npu[n] = TN_TOPO_NONE;
    }
    tn_status st = TN_OK;
    for (uint32_t r = 0; st == TN_OK && r < ranks; r++)
    {
        const uint32_t n = npu_of(s, node_of_rank, r);
        if (n == TN_TOPO_NONE || rank_of_npu[n] != TN_TOPO_NONE)
        {
            st = tn_error_set(err,
                              TN_EUNSUPPORTED,
                              "symmetry: rank %u is not on an NPU of its own",
                              r);
            break;
        }
        rank_of_npu[n] = r;
    }
    /* a rank that does not run is stood for by the rank on its orbit's representative */
    uint32_t running = 0;
    for (uint32_t r = 0; st == TN_OK && r < ranks; r++)
    {
        const uint32_t n = npu_of(s, node_of_rank, r);
        if (rank_of_npu[n % s->period] == TN_TOPO_NONE)
        {
            st = tn_error_set(err,
                              TN_EUNSUPPORTED,
                              "symmetry: rank %u is on NPU %u, whose representative NPU %u "
                              "(period %u) is not in the collective",
                              r,
                              n,
                              n % s->period,
                              s->period);
        }
        running += n < s->period;
    }
    tn_rank_program a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    /* every rank runs (a collective inside the representatives): nothing stands for another */
    const uint32_t order = s->npus / s->period;
    const bool all = order <= exhaustive;
    const uint32_t count = running == ranks ? 0 : all ? order : 1 + s->dims + samples;
    for (uint32_t x = 0; st == TN_OK && count > 0 && x < s->period; x++)
    {
        if (rank_of_npu[x] == TN_TOPO_NONE)
        {
            continue;
        }
        st = tn_program_rank(p, rank_of_npu[x], &a, err);
        for (uint32_t k = 0; st == TN_OK && k < count; k++)
        {
            const uint32_t g = checked_translation(s, all, k);
            if (g == 0)
            {
                continue;
            }
            const uint32_t image = rank_of_npu[tn_symmetry_shift_rank(s, g, x)];
            if (image == TN_TOPO_NONE)
            {
                st = tn_error_set(err,
                                  TN_EUNSUPPORTED,
                                  "symmetry: rank %u on NPU %u has a translate on NPU %u outside "
                                  "the collective",
                                  rank_of_npu[x],
                                  x,
                                  tn_symmetry_shift_rank(s, g, x));
                break;
            }
            st = tn_program_rank(p, image, &b, err);
            if (st == TN_OK)
            {
                st = compare(s, node_of_rank, rank_of_npu, g, &a, &b, length_slack, err);
            }
        }
    }
    tn_rank_program_free(&a);
    tn_rank_program_free(&b);
    free(rank_of_npu);
    return st;
}
