/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-topology: graph storage, builder, accessors and dimensions (the unit parsers
 * are in tn-units.c).
 * Generators live in tn-topology-gen.c, the spec parser in tn-topology-spec.c and
 * the HPCC-style file reader/writer in tn-topology-file.c.
 */
#include "tn-topology.h"

#include "tn-shape.h"
#include "tn-text.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Adjacency of one node: out[p] and in[p] are the links on port p. */
typedef struct tn_node_adj
{
    uint32_t* out;
    uint32_t* in;
    uint32_t degree;
    uint32_t cap;
} tn_node_adj;

struct tn_topology
{
    char* name;
    uint32_t node_count;
    uint32_t node_cap;
    uint8_t* kind;      /* per node: tn_node_kind */
    uint32_t* rank;     /* per node: rank or TN_TOPO_NONE */
    tn_node_adj* adj;   /* per node */
    uint32_t* npu_node; /* per rank */
    uint32_t npu_count;
    uint32_t npu_cap;
    tn_link* links;
    uint32_t link_count;
    uint32_t link_cap;
    tn_dim_info* dims;
    uint32_t dim_count;
    int npus_forward; /* -1: automatic (no switch), 0, 1 */
    bool sharp;       /* the fabric's switches reduce (tn_topology_set_sharp) */
    tn_shape shape;   /* the generator's structure; cleared by any node or cable added */
};

tn_link_params
tn_link_params_default(void)
{
    tn_link_params lp = {TN_TOPO_DEFAULT_RATE_BPS, TN_TOPO_DEFAULT_LATENCY_NS};
    return lp;
}

const char*
tn_dim_kind_name(tn_dim_kind kind)
{
    switch (kind)
    {
    case TN_DIM_RING:
        return "ring";
    case TN_DIM_FC:
        return "fc";
    case TN_DIM_SWITCH:
        return "switch";
    case TN_DIM_TORUS:
        return "torus";
    case TN_DIM_MESH:
        return "mesh";
    case TN_DIM_FATTREE:
        return "fattree";
    case TN_DIM_BIGRAPH:
        return "bigraph";
    case TN_DIM_CUSTOM:
        return "custom";
    }
    return "unknown";
}

/* Grow *cap (>= need) by doubling; returns 0 on overflow of the uint32 id space. */
static int
tn_grow_cap(uint32_t cur, uint32_t need, uint32_t* cap)
{
    uint64_t c = cur ? cur : 4;
    while (c < need)
    {
        c *= 2;
    }
    if (c > UINT32_MAX - 1)
    {
        c = UINT32_MAX - 1;
    }
    if (c < need)
    {
        return 0;
    }
    *cap = (uint32_t)c;
    return 1;
}

tn_status
tn_topology_create(tn_topology** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_create: out is NULL");
    }
    *out = NULL;
    tn_topology* t = calloc(1, sizeof(*t));
    if (!t)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_topology_create: out of memory");
    }
    t->npus_forward = -1;
    t->name = malloc(sizeof("custom"));
    if (!t->name)
    {
        free(t);
        return tn_error_set(err, TN_ENOMEM, "tn_topology_create: out of memory");
    }
    memcpy(t->name, "custom", sizeof("custom"));
    *out = t;
    return TN_OK;
}

void
tn_topology_destroy(tn_topology* topo)
{
    if (!topo)
    {
        return;
    }
    for (uint32_t i = 0; i < topo->node_count; i++)
    {
        free(topo->adj[i].out);
        free(topo->adj[i].in);
    }
    free(topo->adj);
    free(topo->kind);
    free(topo->rank);
    free(topo->npu_node);
    free(topo->links);
    free(topo->dims);
    free(topo->name);
    free(topo);
}

tn_status
tn_topology_copy(const tn_topology* src, tn_topology** out, tn_error* err)
{
    if (!src || !out)
        return tn_error_set(err, TN_EINVAL, "tn_topology_copy: src or out is NULL");
    *out = NULL;
    tn_topology* t = NULL;
    tn_status st = tn_topology_create(&t, err);
    if (!st)
        st = tn_topology_set_name(t, src->name, err);
    /* nodes in runs of one kind, so ranks and ids come out as the original's */
    for (uint32_t v = 0; v < src->node_count && !st;)
    {
        uint32_t run = 1;
        while (v + run < src->node_count && src->kind[v + run] == src->kind[v])
            run++;
        st = tn_topology_add_nodes(t, (tn_node_kind)src->kind[v], run, NULL, err);
        v += run;
    }
    /* cables in the original's order, so every link keeps its id */
    for (uint32_t l = 0; l < src->link_count && !st; l++)
    {
        const tn_link* ab = &src->links[l];
        if (ab->reverse < l)
            continue;
        uint32_t a = 0, b = 0;
        st = tn_topology_add_link(t,
                                  ab->src,
                                  ab->dst,
                                  ab->rate_bps,
                                  ab->latency_ns,
                                  ab->dim,
                                  &a,
                                  &b,
                                  err);
        if (!st && (a != l || b != ab->reverse))
            st = tn_error_set(err,
                              TN_EINVAL,
                              "tn_topology_copy: cable %u came out as links %u and %u",
                              l,
                              a,
                              b);
        if (!st)
        {
            t->links[a].error_rate = ab->error_rate;
            t->links[b].error_rate = src->links[b].error_rate;
        }
    }
    if (!st)
        st = tn_topology_set_dims(t, src->dim_count, src->dims, err);
    if (!st)
        st = tn_topology_set_shape(t, &src->shape, err);
    if (st)
    {
        tn_topology_destroy(t);
        return st;
    }
    t->npus_forward = src->npus_forward;
    t->sharp = src->sharp;
    *out = t;
    return TN_OK;
}

tn_status
tn_topology_add_nodes(tn_topology* topo,
                      tn_node_kind kind,
                      uint32_t count,
                      uint32_t* first_id,
                      tn_error* err)
{
    if (!topo)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_add_nodes: topo is NULL");
    }
    topo->shape.kind = TN_SHAPE_NONE;
    if (kind != TN_NODE_NPU && kind != TN_NODE_SWITCH)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_add_nodes: kind %d is not a node kind",
                            (int)kind);
    }
    if ((uint64_t)topo->node_count + count > UINT32_MAX - 1)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_add_nodes: count %u exceeds the node id space",
                            count);
    }
    uint32_t need = topo->node_count + count;
    if (need > topo->node_cap)
    {
        uint32_t cap;
        if (!tn_grow_cap(topo->node_cap, need, &cap))
        {
            return tn_error_set(err, TN_EINVAL, "tn_topology_add_nodes: too many nodes");
        }
        uint8_t* kinds = realloc(topo->kind, (size_t)cap * sizeof(*kinds));
        if (kinds)
        {
            topo->kind = kinds;
        }
        uint32_t* ranks = realloc(topo->rank, (size_t)cap * sizeof(*ranks));
        if (ranks)
        {
            topo->rank = ranks;
        }
        tn_node_adj* adj = realloc(topo->adj, (size_t)cap * sizeof(*adj));
        if (adj)
        {
            topo->adj = adj;
        }
        if (!kinds || !ranks || !adj)
        {
            return tn_error_set(err, TN_ENOMEM, "tn_topology_add_nodes: out of memory");
        }
        topo->node_cap = cap;
    }
    if (kind == TN_NODE_NPU && topo->npu_count + count > topo->npu_cap)
    {
        uint32_t cap;
        if (!tn_grow_cap(topo->npu_cap, topo->npu_count + count, &cap))
        {
            return tn_error_set(err, TN_EINVAL, "tn_topology_add_nodes: too many NPUs");
        }
        uint32_t* npus = realloc(topo->npu_node, (size_t)cap * sizeof(*npus));
        if (!npus)
        {
            return tn_error_set(err, TN_ENOMEM, "tn_topology_add_nodes: out of memory");
        }
        topo->npu_node = npus;
        topo->npu_cap = cap;
    }
    if (first_id)
    {
        *first_id = topo->node_count;
    }
    for (uint32_t i = 0; i < count; i++)
    {
        uint32_t id = topo->node_count++;
        topo->kind[id] = (uint8_t)kind;
        memset(&topo->adj[id], 0, sizeof(topo->adj[id]));
        if (kind == TN_NODE_NPU)
        {
            topo->rank[id] = topo->npu_count;
            topo->npu_node[topo->npu_count++] = id;
        }
        else
        {
            topo->rank[id] = TN_TOPO_NONE;
        }
    }
    return TN_OK;
}

tn_status
tn_topology_add_node(tn_topology* topo, tn_node_kind kind, uint32_t* id, tn_error* err)
{
    return tn_topology_add_nodes(topo, kind, 1, id, err);
}

static int
tn_adj_reserve(tn_node_adj* a)
{
    if (a->degree < a->cap)
    {
        return 1;
    }
    uint32_t cap;
    if (!tn_grow_cap(a->cap, a->degree + 1, &cap))
    {
        return 0;
    }
    uint32_t* out = realloc(a->out, (size_t)cap * sizeof(*out));
    if (!out)
    {
        return 0;
    }
    a->out = out;
    uint32_t* in = realloc(a->in, (size_t)cap * sizeof(*in));
    if (!in)
    {
        return 0;
    }
    a->in = in;
    a->cap = cap;
    return 1;
}

tn_status
tn_topology_add_link(tn_topology* topo,
                     uint32_t a,
                     uint32_t b,
                     uint64_t rate_bps,
                     uint64_t latency_ns,
                     int dim,
                     uint32_t* ab,
                     uint32_t* ba,
                     tn_error* err)
{
    if (!topo)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_add_link: topo is NULL");
    }
    topo->shape.kind = TN_SHAPE_NONE;
    if (a >= topo->node_count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_add_link: node a = %u is not a node (%u nodes)",
                            a,
                            topo->node_count);
    }
    if (b >= topo->node_count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_add_link: node b = %u is not a node (%u nodes)",
                            b,
                            topo->node_count);
    }
    if (a == b)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_add_link: a == b == %u (self loop)", a);
    }
    if (rate_bps == 0)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_add_link: rate_bps must be > 0");
    }
    if (dim < -1)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_add_link: dim %d must be >= -1", dim);
    }
    if (topo->link_count > UINT32_MAX - 3)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_add_link: too many links");
    }
    if (topo->link_count + 2 > topo->link_cap)
    {
        uint32_t cap;
        if (!tn_grow_cap(topo->link_cap, topo->link_count + 2, &cap))
        {
            return tn_error_set(err, TN_EINVAL, "tn_topology_add_link: too many links");
        }
        tn_link* links = realloc(topo->links, (size_t)cap * sizeof(*links));
        if (!links)
        {
            return tn_error_set(err, TN_ENOMEM, "tn_topology_add_link: out of memory");
        }
        topo->links = links;
        topo->link_cap = cap;
    }
    tn_node_adj* aa = &topo->adj[a];
    tn_node_adj* bb = &topo->adj[b];
    if (!tn_adj_reserve(aa) || !tn_adj_reserve(bb))
    {
        return tn_error_set(err, TN_ENOMEM, "tn_topology_add_link: out of memory");
    }
    uint32_t id = topo->link_count;
    uint32_t pa = aa->degree;
    uint32_t pb = bb->degree;
    tn_link fwd = {id, a, b, pa, pb, id + 1, rate_bps, latency_ns, dim, 0.0};
    tn_link rev = {id + 1, b, a, pb, pa, id, rate_bps, latency_ns, dim, 0.0};
    topo->links[id] = fwd;
    topo->links[id + 1] = rev;
    topo->link_count += 2;
    aa->out[pa] = id;
    aa->in[pa] = id + 1;
    aa->degree++;
    bb->out[pb] = id + 1;
    bb->in[pb] = id;
    bb->degree++;
    if (ab)
    {
        *ab = id;
    }
    if (ba)
    {
        *ba = id + 1;
    }
    return TN_OK;
}

tn_status
tn_topology_set_link_error_rate(tn_topology* topo, uint32_t link, double error_rate, tn_error* err)
{
    if (!topo || link >= topo->link_count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_set_link_error_rate: link %u is not a link",
                            link);
    }
    if (!(error_rate >= 0.0 && error_rate <= 1.0))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_set_link_error_rate: error_rate %g is not in [0, 1]",
                            error_rate);
    }
    topo->links[link].error_rate = error_rate;
    return TN_OK;
}

tn_status
tn_topology_set_dims(tn_topology* topo, uint32_t count, const tn_dim_info* dims, tn_error* err)
{
    if (!topo)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_set_dims: topo is NULL");
    }
    if (count > 0 && !dims)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_set_dims: dims is NULL");
    }
    uint64_t product = 1;
    for (uint32_t d = 0; d < count; d++)
    {
        if (dims[d].size == 0)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "tn_topology_set_dims: dims[%u].size must be >= 1",
                                d);
        }
        if ((int)dims[d].kind < (int)TN_DIM_RING || (int)dims[d].kind > (int)TN_DIM_CUSTOM)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "tn_topology_set_dims: dims[%u].kind %d is unknown",
                                d,
                                (int)dims[d].kind);
        }
        product *= dims[d].size;
        if (product > UINT32_MAX)
        {
            break;
        }
    }
    if (count > 0 && product != topo->npu_count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_set_dims: product of dims sizes %llu != npu count %u",
                            (unsigned long long)product,
                            topo->npu_count);
    }
    tn_dim_info* copy = NULL;
    if (count > 0)
    {
        copy = malloc((size_t)count * sizeof(*copy));
        if (!copy)
        {
            return tn_error_set(err, TN_ENOMEM, "tn_topology_set_dims: out of memory");
        }
        memcpy(copy, dims, (size_t)count * sizeof(*copy));
    }
    free(topo->dims);
    topo->dims = copy;
    topo->dim_count = count;
    return TN_OK;
}

tn_status
tn_topology_set_name(tn_topology* topo, const char* name, tn_error* err)
{
    if (!topo || !name)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_set_name: %s is NULL",
                            topo ? "name" : "topo");
    }
    size_t len = strlen(name);
    char* copy = malloc(len + 1);
    if (!copy)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_topology_set_name: out of memory");
    }
    memcpy(copy, name, len + 1);
    free(topo->name);
    topo->name = copy;
    return TN_OK;
}

void
tn_topology_set_npus_forward(tn_topology* topo, bool npus_forward)
{
    if (topo)
    {
        topo->npus_forward = npus_forward ? 1 : 0;
    }
}

void
tn_topology_set_sharp(tn_topology* topo, bool sharp)
{
    if (topo)
    {
        topo->sharp = sharp;
    }
}

bool
tn_topology_sharp(const tn_topology* topo)
{
    return topo && topo->sharp;
}

const tn_shape*
tn_topology_shape(const tn_topology* topo)
{
    return &topo->shape;
}

tn_status
tn_topology_set_shape(tn_topology* topo, const tn_shape* shape, tn_error* err)
{
    if (!topo)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_set_shape: topo is NULL");
    }
    if (!shape || shape->kind == TN_SHAPE_NONE)
    {
        memset(&topo->shape, 0, sizeof(topo->shape));
        return TN_OK;
    }
    uint32_t npus = 0, switches = 0;
    if (!tn_shape_counts(shape, &npus, &switches))
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_set_shape: the shape is not valid");
    }
    if (npus != topo->npu_count || npus + switches != topo->node_count ||
        (npus && topo->npu_node[npus - 1] != npus - 1))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_set_shape: the shape has %u NPUs then %u switches, the "
                            "topology %u NPUs and %u nodes",
                            npus,
                            switches,
                            topo->npu_count,
                            topo->node_count);
    }
    topo->shape = *shape;
    return TN_OK;
}

/* ---- accessors -------------------------------------------------------------------- */

const char*
tn_topology_name(const tn_topology* topo)
{
    return topo->name;
}

uint32_t
tn_topology_node_count(const tn_topology* topo)
{
    return topo->node_count;
}

uint32_t
tn_topology_link_count(const tn_topology* topo)
{
    return topo->link_count;
}

uint32_t
tn_topology_npu_count(const tn_topology* topo)
{
    return topo->npu_count;
}

uint32_t
tn_topology_switch_count(const tn_topology* topo)
{
    return topo->node_count - topo->npu_count;
}

tn_node_kind
tn_topology_node_kind(const tn_topology* topo, uint32_t node)
{
    assert(node < topo->node_count);
    return (tn_node_kind)topo->kind[node];
}

bool
tn_topology_npus_forward(const tn_topology* topo)
{
    if (topo->npus_forward >= 0)
    {
        return topo->npus_forward != 0;
    }
    return topo->npu_count == topo->node_count;
}

uint32_t
tn_topology_npu_node(const tn_topology* topo, uint32_t rank)
{
    return rank < topo->npu_count ? topo->npu_node[rank] : TN_TOPO_NONE;
}

uint32_t
tn_topology_node_rank(const tn_topology* topo, uint32_t node)
{
    return node < topo->node_count ? topo->rank[node] : TN_TOPO_NONE;
}

uint32_t
tn_topology_degree(const tn_topology* topo, uint32_t node)
{
    assert(node < topo->node_count);
    return topo->adj[node].degree;
}

const tn_link*
tn_topology_link(const tn_topology* topo, uint32_t link)
{
    assert(link < topo->link_count);
    return &topo->links[link];
}

const uint32_t*
tn_topology_out_links(const tn_topology* topo, uint32_t node, uint32_t* count)
{
    assert(node < topo->node_count);
    if (count)
    {
        *count = topo->adj[node].degree;
    }
    return topo->adj[node].out;
}

const uint32_t*
tn_topology_in_links(const tn_topology* topo, uint32_t node, uint32_t* count)
{
    assert(node < topo->node_count);
    if (count)
    {
        *count = topo->adj[node].degree;
    }
    return topo->adj[node].in;
}

uint32_t
tn_topology_links_between(const tn_topology* topo,
                          uint32_t a,
                          uint32_t b,
                          uint32_t* ids,
                          uint32_t cap)
{
    if (a >= topo->node_count || b >= topo->node_count)
    {
        return 0;
    }
    /* scan the smaller adjacency */
    const tn_node_adj* aa = &topo->adj[a];
    const tn_node_adj* bb = &topo->adj[b];
    uint32_t n = 0;
    if (aa->degree <= bb->degree)
    {
        for (uint32_t p = 0; p < aa->degree; p++)
        {
            uint32_t l = aa->out[p];
            if (topo->links[l].dst == b)
            {
                if (n < cap)
                {
                    ids[n] = l;
                }
                n++;
            }
        }
    }
    else
    {
        for (uint32_t p = 0; p < bb->degree; p++)
        {
            uint32_t l = bb->in[p];
            if (topo->links[l].src == a)
            {
                if (n < cap)
                {
                    ids[n] = l;
                }
                n++;
            }
        }
    }
    return n;
}

uint32_t
tn_topology_find_link(const tn_topology* topo, uint32_t a, uint32_t b)
{
    uint32_t id = TN_TOPO_NONE;
    if (tn_topology_links_between(topo, a, b, &id, 1) == 0)
    {
        return TN_TOPO_NONE;
    }
    return id;
}

/* ---- dimensions ------------------------------------------------------------------- */

uint32_t
tn_topology_dim_count(const tn_topology* topo)
{
    return topo->dim_count;
}

const tn_dim_info*
tn_topology_dim(const tn_topology* topo, uint32_t d)
{
    assert(d < topo->dim_count);
    return &topo->dims[d];
}

tn_status
tn_topology_npu_coords(const tn_topology* topo, uint32_t rank, uint32_t* coords, tn_error* err)
{
    if (!topo || (!coords && topo->dim_count > 0))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_npu_coords: %s is NULL",
                            topo ? "coords" : "topo");
    }
    if (rank >= topo->npu_count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_topology_npu_coords: rank %u >= npu count %u",
                            rank,
                            topo->npu_count);
    }
    uint32_t r = rank;
    for (uint32_t d = 0; d < topo->dim_count; d++)
    {
        coords[d] = r % topo->dims[d].size;
        r /= topo->dims[d].size;
    }
    return TN_OK;
}

tn_status
tn_topology_coords_rank(const tn_topology* topo,
                        const uint32_t* coords,
                        uint32_t* rank,
                        tn_error* err)
{
    if (!topo || !rank || (!coords && topo->dim_count > 0))
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_coords_rank: NULL argument");
    }
    if (topo->dim_count == 0)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_coords_rank: topology has no dims");
    }
    uint64_t r = 0;
    for (uint32_t i = topo->dim_count; i-- > 0;)
    {
        if (coords[i] >= topo->dims[i].size)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "tn_topology_coords_rank: coords[%u] = %u >= size %u",
                                i,
                                coords[i],
                                topo->dims[i].size);
        }
        r = r * topo->dims[i].size + coords[i];
    }
    *rank = (uint32_t)r;
    return TN_OK;
}

static int
tn_compare_u32(const void* a, const void* b)
{
    const uint32_t x = *(const uint32_t*)a;
    const uint32_t y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

tn_status
tn_topology_subgrid(const tn_topology* topo,
                    const uint32_t* npus,
                    uint32_t count,
                    tn_dim_info* dims,
                    uint32_t* dim_count,
                    uint32_t* order,
                    tn_error* err)
{
    if (!topo || !dims || !dim_count || !order || (!npus && count > 0))
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_subgrid: NULL argument");
    }
    if (topo->dim_count == 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "the topology has no dimensions (a hier: system has them)");
    }
    if (count == 0)
    {
        return tn_error_set(err, TN_EINVAL, "no NPUs");
    }
    const uint32_t d_count = topo->dim_count;
    // held[d * stride + c]: whether the set holds coordinate c of dim d (one row per dim,
    // as wide as the largest dim)
    uint32_t widest = 0;
    for (uint32_t d = 0; d < d_count; d++)
    {
        widest = topo->dims[d].size > widest ? topo->dims[d].size : widest;
    }
    unsigned char* held = calloc((size_t)d_count * widest, 1);
    unsigned char* seen = calloc(topo->npu_count, 1);
    if (!held || !seen)
    {
        free(held);
        free(seen);
        return tn_error_set(err, TN_ENOMEM, "tn_topology_subgrid: out of memory");
    }
    tn_status status = TN_OK;
    for (uint32_t i = 0; i < count && status == TN_OK; i++)
    {
        if (npus[i] >= topo->npu_count || seen[npus[i]])
        {
            status = tn_error_set(err,
                                  TN_EINVAL,
                                  npus[i] >= topo->npu_count ? "NPU %u is not one of the %u"
                                                             : "NPU %u is listed twice (of %u)",
                                  npus[i],
                                  topo->npu_count);
            break;
        }
        seen[npus[i]] = 1;
        uint32_t r = npus[i];
        for (uint32_t d = 0; d < d_count; d++)
        {
            held[(size_t)d * widest + r % topo->dims[d].size] = 1;
            r /= topo->dims[d].size;
        }
    }
    // the set is inside the product of the coordinates it holds, and as large: it is the product
    uint64_t product = 1;
    char shape[128] = "";
    size_t used = 0;
    *dim_count = 0;
    for (uint32_t d = 0; d < d_count && status == TN_OK; d++)
    {
        const tn_dim_info* info = &topo->dims[d];
        uint32_t k = 0;
        for (uint32_t c = 0; c < info->size; c++)
        {
            k += held[(size_t)d * widest + c];
        }
        product *= k;
        if (used < sizeof shape)
        {
            used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%u", d ? " x " : "", k);
        }
        if (k < 2)
        {
            continue; // one coordinate: no collective crosses this dim
        }
        const int axis =
            info->kind == TN_DIM_RING || info->kind == TN_DIM_TORUS || info->kind == TN_DIM_MESH;
        if (axis && k < info->size)
        {
            status = tn_error_set(err,
                                  TN_EINVAL,
                                  "dim %u is a %s of %u NPUs of which they hold %u: part of a "
                                  "%s is not one (hold all of it, or one NPU of it)",
                                  d,
                                  tn_dim_kind_name(info->kind),
                                  info->size,
                                  k,
                                  tn_dim_kind_name(info->kind));
            break;
        }
        tn_dim_info kept = *info;
        kept.size = k;
        if (info->kind == TN_DIM_FC)
        {
            // links to the k-1 peers held, of the P-1 the dim's bandwidth sums
            kept.bandwidth_bps = info->bandwidth_bps / (info->size - 1) * (k - 1);
        }
        dims[(*dim_count)++] = kept;
    }
    if (status == TN_OK && product != count)
    {
        status = tn_error_set(err,
                              TN_EINVAL,
                              "the %u NPUs are not a sub-grid of the topology's dimensions: they "
                              "take %s places per dim (%llu NPUs in a grid)",
                              count,
                              shape,
                              (unsigned long long)product);
    }
    free(held);
    free(seen);
    if (status != TN_OK)
    {
        *dim_count = 0;
        return status;
    }
    // a sub-grid rank and a topology rank are both mixed radix, first dim fastest, and each
    // coordinate maps up monotonically: ascending NPUs are the sub-grid's ranks in order
    memcpy(order, npus, (size_t)count * sizeof *order);
    qsort(order, count, sizeof *order, tn_compare_u32);
    return TN_OK;
}
