/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-topology-gen: the topology generators (node id layouts in tn-topology.h).
 */
#include "tn-memory.h"
#include "tn-shape.h"
#include "tn-topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Resolve link params (NULL = defaults) and validate them. */
static tn_status
tn_gen_params(const char* gen, const tn_link_params* lp, tn_link_params* out, tn_error* err)
{
    *out = lp ? *lp : tn_link_params_default();
    if (out->rate_bps == 0)
    {
        return tn_error_set(err, TN_EINVAL, "%s: rate must be > 0 bit/s", gen);
    }
    return TN_OK;
}

/* a * b into *out; 0 on overflow. */
static int
tn_mul64(uint64_t a, uint64_t b, uint64_t* out)
{
    if (a != 0 && b > UINT64_MAX / a)
    {
        return 0;
    }
    *out = a * b;
    return 1;
}

/* Create a topology with `npus` NPUs then `switches` switches (ids in that order). */
static tn_status
tn_gen_begin(const char* gen,
             uint64_t npus,
             uint64_t switches,
             uint64_t cables,
             tn_topology** t,
             tn_error* err)
{
    *t = NULL;
    if (npus + switches > UINT32_MAX - 1)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: %llu nodes exceed the node id space",
                            gen,
                            (unsigned long long)(npus + switches));
    }
    if (cables > (UINT32_MAX - 2) / 2)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: %llu cables exceed the link id space",
                            gen,
                            (unsigned long long)cables);
    }
    /* per node: kind, rank, adjacency; per cable: two tn_links (56 bytes) with the link
     * array's doubling slack and four port entries: checked before anything is allocated */
    char what[96];
    snprintf(what,
             sizeof(what),
             "%s: %llu nodes and %llu cables",
             gen,
             (unsigned long long)(npus + switches),
             (unsigned long long)cables);
    tn_status s = tn_memory_check((npus + switches) * 48 + cables * 256,
                                  0,
                                  what,
                                  "choose a smaller topology",
                                  err);
    if (!s)
    {
        s = tn_topology_create(t, err);
    }
    if (!s)
    {
        s = tn_topology_add_nodes(*t, TN_NODE_NPU, (uint32_t)npus, NULL, err);
    }
    if (!s)
    {
        s = tn_topology_add_nodes(*t, TN_NODE_SWITCH, (uint32_t)switches, NULL, err);
    }
    if (s)
    {
        tn_topology_destroy(*t);
        *t = NULL;
    }
    return s;
}

/* Set a printf-formatted name. */
static tn_status tn_gen_name(tn_topology* t, tn_error* err, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static tn_status
tn_gen_name(tn_topology* t, tn_error* err, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n < 0)
    {
        return tn_error_set(err, TN_EINVAL, "topology name: format error");
    }
    char* buf = malloc((size_t)n + 1);
    if (!buf)
    {
        return tn_error_set(err, TN_ENOMEM, "topology name: out of memory");
    }
    va_start(args, format);
    vsnprintf(buf, (size_t)n + 1, format, args);
    va_end(args);
    tn_status s = tn_topology_set_name(t, buf, err);
    free(buf);
    return s;
}

/* Finish: on failure destroy; on success hand over. */
static tn_status
tn_gen_end(tn_status s, tn_topology* t, tn_topology** out)
{
    if (s)
    {
        tn_topology_destroy(t);
        *out = NULL;
        return s;
    }
    *out = t;
    return TN_OK;
}

static tn_status
tn_gen_check_out(const char* gen, tn_topology** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "%s: out is NULL", gen);
    }
    *out = NULL;
    return TN_OK;
}

/* Record a grid shape of `axes` axes (none beyond TN_SHAPE_MAX_AXES: tables then). */
static tn_status
tn_gen_grid(tn_topology* t, uint32_t axes, const tn_dim_info* dims, tn_error* err)
{
    tn_shape g;
    memset(&g, 0, sizeof(g));
    g.kind = TN_SHAPE_GRID;
    if (axes > TN_SHAPE_MAX_AXES)
    {
        return TN_OK;
    }
    g.axes = axes;
    for (uint32_t k = 0; k < axes; k++)
    {
        g.size[k] = dims[k].size;
        g.axis[k] = dims[k].kind == TN_DIM_RING || dims[k].kind == TN_DIM_TORUS ? TN_AXIS_RING
                    : dims[k].kind == TN_DIM_MESH                               ? TN_AXIS_LINE
                    : dims[k].kind == TN_DIM_FC                                 ? TN_AXIS_FC
                                                                                : TN_AXIS_SWITCH;
    }
    return tn_topology_set_shape(t, &g, err);
}

/* Record a switched shape (fat-tree, leaf-spine, BiGraph) with its parameters. */
static tn_status
tn_gen_switched(tn_topology* t,
                tn_shape_kind kind,
                uint32_t a,
                uint32_t b,
                uint32_t c,
                tn_error* err)
{
    tn_shape sh;
    memset(&sh, 0, sizeof(sh));
    sh.kind = kind;
    sh.a = a;
    sh.b = b;
    sh.c = c;
    return tn_topology_set_shape(t, &sh, err);
}

tn_status
tn_topology_ring(uint32_t n, const tn_link_params* lp, tn_topology** out, tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out("ring", out, err);
    if (s || (s = tn_gen_params("ring", lp, &p, err)))
    {
        return s;
    }
    if (n < 2)
    {
        return tn_error_set(err, TN_EINVAL, "ring: n = %u must be >= 2", n);
    }
    uint64_t bw;
    if (!tn_mul64(p.rate_bps, n == 2 ? 1 : 2, &bw))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "ring: rate %llu bit/s is too large",
                            (unsigned long long)p.rate_bps);
    }
    uint32_t cables = n == 2 ? 1 : n;
    tn_topology* t;
    if ((s = tn_gen_begin("ring", n, 0, cables, &t, err)))
    {
        return s;
    }
    for (uint32_t i = 0; i < cables && !s; i++)
    {
        s = tn_topology_add_link(t, i, (i + 1) % n, p.rate_bps, p.latency_ns, 0, NULL, NULL, err);
    }
    tn_dim_info dim = {TN_DIM_RING, n, bw, p.latency_ns};
    if (!s)
    {
        s = tn_topology_set_dims(t, 1, &dim, err);
    }
    if (!s)
    {
        s = tn_gen_name(t, err, "ring:%u", n);
    }
    if (!s)
    {
        s = tn_gen_grid(t, 1, &dim, err);
    }
    return tn_gen_end(s, t, out);
}

tn_status
tn_topology_fully_connected(uint32_t n, const tn_link_params* lp, tn_topology** out, tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out("fc", out, err);
    if (s || (s = tn_gen_params("fc", lp, &p, err)))
    {
        return s;
    }
    if (n < 2)
    {
        return tn_error_set(err, TN_EINVAL, "fc: n = %u must be >= 2", n);
    }
    uint64_t bw;
    if (!tn_mul64(p.rate_bps, n - 1, &bw))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "fc: rate %llu bit/s is too large",
                            (unsigned long long)p.rate_bps);
    }
    tn_topology* t;
    if ((s = tn_gen_begin("fc", n, 0, (uint64_t)n * (n - 1) / 2, &t, err)))
    {
        return s;
    }
    for (uint32_t i = 0; i < n && !s; i++)
    {
        for (uint32_t j = i + 1; j < n && !s; j++)
        {
            s = tn_topology_add_link(t, i, j, p.rate_bps, p.latency_ns, 0, NULL, NULL, err);
        }
    }
    tn_dim_info dim = {TN_DIM_FC, n, bw, p.latency_ns};
    if (!s)
    {
        s = tn_topology_set_dims(t, 1, &dim, err);
    }
    if (!s)
    {
        s = tn_gen_name(t, err, "fc:%u", n);
    }
    if (!s)
    {
        s = tn_gen_grid(t, 1, &dim, err);
    }
    return tn_gen_end(s, t, out);
}

tn_status
tn_topology_switch(uint32_t n, const tn_link_params* lp, tn_topology** out, tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out("switch", out, err);
    if (s || (s = tn_gen_params("switch", lp, &p, err)))
    {
        return s;
    }
    if (n < 2)
    {
        return tn_error_set(err, TN_EINVAL, "switch: n = %u must be >= 2", n);
    }
    tn_topology* t;
    if ((s = tn_gen_begin("switch", n, 1, n, &t, err)))
    {
        return s;
    }
    for (uint32_t i = 0; i < n && !s; i++)
    {
        s = tn_topology_add_link(t, i, n, p.rate_bps, p.latency_ns, 0, NULL, NULL, err);
    }
    tn_dim_info dim = {TN_DIM_SWITCH, n, p.rate_bps, p.latency_ns};
    if (!s)
    {
        s = tn_topology_set_dims(t, 1, &dim, err);
    }
    if (!s)
    {
        s = tn_gen_name(t, err, "switch:%u", n);
    }
    if (!s)
    {
        s = tn_gen_grid(t, 1, &dim, err);
    }
    return tn_gen_end(s, t, out);
}

static tn_status
tn_gen_cube(const char* gen,
            int wrap,
            uint32_t ndims,
            const uint32_t* sizes,
            uint32_t ports,
            const tn_link_params* lp,
            tn_topology** out,
            tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out(gen, out, err);
    if (s || (s = tn_gen_params(gen, lp, &p, err)))
    {
        return s;
    }
    if (ndims < 1)
    {
        return tn_error_set(err, TN_EINVAL, "%s: ndims = %u must be >= 1", gen, ndims);
    }
    if (!sizes)
    {
        return tn_error_set(err, TN_EINVAL, "%s: sizes is NULL", gen);
    }
    if (ports < 1)
    {
        return tn_error_set(err, TN_EINVAL, "%s: ports = %u must be >= 1", gen, ports);
    }
    uint64_t nodes = 1;
    for (uint32_t d = 0; d < ndims; d++)
    {
        if (sizes[d] < 2)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "%s: sizes[%u] = %u must be >= 2",
                                gen,
                                d,
                                sizes[d]);
        }
        nodes *= sizes[d];
        if (nodes > UINT32_MAX - 1)
        {
            return tn_error_set(err, TN_EINVAL, "%s: sizes give more than 2^32-2 nodes", gen);
        }
    }
    uint64_t cables = 0;
    for (uint32_t d = 0; d < ndims; d++)
    {
        uint64_t per_line = (wrap && sizes[d] > 2) ? sizes[d] : sizes[d] - 1;
        cables += nodes / sizes[d] * per_line * ports;
        if (cables > UINT32_MAX)
        {
            break;
        }
    }
    tn_dim_info* dims = malloc((size_t)ndims * sizeof(*dims));
    if (!dims)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", gen);
    }
    for (uint32_t d = 0; d < ndims; d++)
    {
        uint64_t bw;
        if (!tn_mul64(p.rate_bps, (uint64_t)ports * (sizes[d] > 2 ? 2 : 1), &bw))
        {
            free(dims);
            return tn_error_set(err,
                                TN_EINVAL,
                                "%s: rate %llu bit/s x ports is too large",
                                gen,
                                (unsigned long long)p.rate_bps);
        }
        tn_dim_info di = {wrap ? TN_DIM_TORUS : TN_DIM_MESH, sizes[d], bw, p.latency_ns};
        dims[d] = di;
    }
    tn_topology* t;
    if ((s = tn_gen_begin(gen, nodes, 0, cables, &t, err)))
    {
        free(dims);
        return s;
    }
    uint64_t stride = 1;
    for (uint32_t d = 0; d < ndims && !s; d++)
    {
        uint32_t k = sizes[d];
        for (uint64_t v = 0; v < nodes && !s; v++)
        {
            uint32_t c = (uint32_t)(v / stride % k);
            uint64_t w;
            if (c + 1 < k)
            {
                w = v + stride;
            }
            else if (wrap && k > 2)
            {
                w = v - (uint64_t)(k - 1) * stride;
            }
            else
            {
                continue;
            }
            for (uint32_t q = 0; q < ports && !s; q++)
            {
                s = tn_topology_add_link(t,
                                         (uint32_t)v,
                                         (uint32_t)w,
                                         p.rate_bps,
                                         p.latency_ns,
                                         (int)d,
                                         NULL,
                                         NULL,
                                         err);
            }
        }
        stride *= k;
    }
    if (!s)
    {
        s = tn_topology_set_dims(t, ndims, dims, err);
    }
    if (!s)
    {
        s = tn_gen_grid(t, ndims, dims, err);
    }
    free(dims);
    if (!s)
    {
        /* name: gen:AxBxC[,ports=P] */
        size_t cap = 32 + (size_t)ndims * 11;
        char* name = malloc(cap);
        if (!name)
        {
            s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", gen);
        }
        else
        {
            size_t len = (size_t)snprintf(name, cap, "%s:", gen);
            for (uint32_t d = 0; d < ndims; d++)
            {
                len += (size_t)snprintf(name + len, cap - len, d ? "x%u" : "%u", sizes[d]);
            }
            if (ports > 1)
            {
                snprintf(name + len, cap - len, ",ports=%u", ports);
            }
            s = tn_topology_set_name(t, name, err);
            free(name);
        }
    }
    return tn_gen_end(s, t, out);
}

tn_status
tn_topology_torus(uint32_t ndims,
                  const uint32_t* sizes,
                  uint32_t ports,
                  const tn_link_params* lp,
                  tn_topology** out,
                  tn_error* err)
{
    return tn_gen_cube("torus", 1, ndims, sizes, ports, lp, out, err);
}

tn_status
tn_topology_mesh(uint32_t ndims,
                 const uint32_t* sizes,
                 uint32_t ports,
                 const tn_link_params* lp,
                 tn_topology** out,
                 tn_error* err)
{
    return tn_gen_cube("mesh", 0, ndims, sizes, ports, lp, out, err);
}

tn_status
tn_topology_leaf_spine(uint32_t leaves,
                       uint32_t spines,
                       uint32_t hosts_per_leaf,
                       double oversub,
                       const tn_link_params* lp,
                       tn_topology** out,
                       tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out("leafspine", out, err);
    if (s || (s = tn_gen_params("leafspine", lp, &p, err)))
    {
        return s;
    }
    if (leaves < 1)
    {
        return tn_error_set(err, TN_EINVAL, "leafspine: leaves = %u must be >= 1", leaves);
    }
    if (spines < 1)
    {
        return tn_error_set(err, TN_EINVAL, "leafspine: spines = %u must be >= 1", spines);
    }
    if (hosts_per_leaf < 1)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "leafspine: hosts (per leaf) = %u must be >= 1",
                            hosts_per_leaf);
    }
    if (!(oversub > 0.0 && oversub < 1e300))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "leafspine: oversub = %g must be a finite number > 0",
                            oversub);
    }
    double up = (double)hosts_per_leaf * (double)p.rate_bps / (oversub * (double)spines);
    if (!(up >= 0.5 && up < 1.8e19))
    {
        return tn_error_set(
            err,
            TN_EINVAL,
            "leafspine: oversub = %g gives a leaf-spine link rate of %g bit/s, out of "
            "range",
            oversub,
            up);
    }
    uint64_t up_rate = (uint64_t)(up + 0.5);
    uint64_t hosts = (uint64_t)leaves * hosts_per_leaf;
    if (hosts > UINT32_MAX)
    {
        return tn_error_set(err, TN_EINVAL, "leafspine: leaves x hosts is too large");
    }
    tn_topology* t;
    if ((s = tn_gen_begin("leafspine",
                          hosts,
                          (uint64_t)leaves + spines,
                          hosts + (uint64_t)leaves * spines,
                          &t,
                          err)))
    {
        return s;
    }
    uint32_t n = (uint32_t)hosts;
    for (uint32_t h = 0; h < n && !s; h++)
    {
        s = tn_topology_add_link(t,
                                 h,
                                 n + h / hosts_per_leaf,
                                 p.rate_bps,
                                 p.latency_ns,
                                 0,
                                 NULL,
                                 NULL,
                                 err);
    }
    for (uint32_t l = 0; l < leaves && !s; l++)
    {
        for (uint32_t sp = 0; sp < spines && !s; sp++)
        {
            s = tn_topology_add_link(t,
                                     n + l,
                                     n + leaves + sp,
                                     up_rate,
                                     p.latency_ns,
                                     0,
                                     NULL,
                                     NULL,
                                     err);
        }
    }
    tn_dim_info dim = {TN_DIM_FATTREE, n, p.rate_bps, p.latency_ns};
    if (!s)
    {
        s = tn_topology_set_dims(t, 1, &dim, err);
    }
    if (!s)
    {
        s = tn_gen_name(t,
                        err,
                        "leafspine:leaves=%u,spines=%u,hosts=%u,oversub=%g",
                        leaves,
                        spines,
                        hosts_per_leaf,
                        oversub);
    }
    if (!s)
    {
        s = tn_gen_switched(t, TN_SHAPE_LEAFSPINE, leaves, spines, hosts_per_leaf, err);
    }
    return tn_gen_end(s, t, out);
}

tn_status
tn_topology_fat_tree(uint32_t k, const tn_link_params* lp, tn_topology** out, tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out("fattree", out, err);
    if (s || (s = tn_gen_params("fattree", lp, &p, err)))
    {
        return s;
    }
    if (k < 2 || k % 2 != 0)
    {
        return tn_error_set(err, TN_EINVAL, "fattree: k = %u must be even and >= 2", k);
    }
    if (k > 2048)
    {
        return tn_error_set(err, TN_EINVAL, "fattree: k = %u is too large (k^3/4 hosts)", k);
    }
    uint32_t h = k / 2;
    uint64_t hosts = (uint64_t)k * k * k / 4;
    uint64_t edges = (uint64_t)k * h; /* also aggregation switches */
    uint64_t cores = (uint64_t)h * h;
    tn_topology* t;
    if ((s = tn_gen_begin("fattree", hosts, 2 * edges + cores, hosts * 3, &t, err)))
    {
        return s;
    }
    uint32_t e0 = (uint32_t)hosts;
    uint32_t a0 = (uint32_t)(hosts + edges);
    uint32_t c0 = (uint32_t)(hosts + 2 * edges);
    for (uint32_t x = 0; x < hosts && !s; x++)
    {
        s = tn_topology_add_link(t, x, e0 + x / h, p.rate_bps, p.latency_ns, 0, NULL, NULL, err);
    }
    for (uint32_t pod = 0; pod < k && !s; pod++)
    {
        for (uint32_t i = 0; i < h && !s; i++)
        {
            for (uint32_t j = 0; j < h && !s; j++)
            {
                s = tn_topology_add_link(t,
                                         e0 + pod * h + i,
                                         a0 + pod * h + j,
                                         p.rate_bps,
                                         p.latency_ns,
                                         0,
                                         NULL,
                                         NULL,
                                         err);
            }
        }
    }
    for (uint32_t pod = 0; pod < k && !s; pod++)
    {
        for (uint32_t j = 0; j < h && !s; j++)
        {
            for (uint32_t c = 0; c < h && !s; c++)
            {
                s = tn_topology_add_link(t,
                                         a0 + pod * h + j,
                                         c0 + j * h + c,
                                         p.rate_bps,
                                         p.latency_ns,
                                         0,
                                         NULL,
                                         NULL,
                                         err);
            }
        }
    }
    tn_dim_info dim = {TN_DIM_FATTREE, (uint32_t)hosts, p.rate_bps, p.latency_ns};
    if (!s)
    {
        s = tn_topology_set_dims(t, 1, &dim, err);
    }
    if (!s)
    {
        s = tn_gen_name(t, err, "fattree:k=%u", k);
    }
    if (!s)
    {
        s = tn_gen_switched(t, TN_SHAPE_FATTREE, k, 0, 0, err);
    }
    return tn_gen_end(s, t, out);
}

tn_status
tn_topology_bigraph(uint32_t n_switches,
                    uint32_t npus_per_switch,
                    uint32_t ports,
                    const tn_link_params* lp,
                    tn_topology** out,
                    tn_error* err)
{
    tn_link_params p;
    tn_status s = tn_gen_check_out("bigraph", out, err);
    if (s || (s = tn_gen_params("bigraph", lp, &p, err)))
    {
        return s;
    }
    if (n_switches < 2 || n_switches % 2 != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "bigraph: switches n = %u must be even and >= 2",
                            n_switches);
    }
    if (npus_per_switch < 1)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "bigraph: NPUs per switch m = %u must be >= 1",
                            npus_per_switch);
    }
    uint64_t npus = (uint64_t)n_switches * npus_per_switch;
    uint64_t half = n_switches / 2;
    if (ports == 0)
    {
        ports = (uint32_t)((2 * (uint64_t)npus_per_switch + n_switches - 1) / n_switches);
        ports = ports ? ports : 1;
    }
    tn_topology* t;
    if ((s = tn_gen_begin("bigraph", npus, n_switches, npus + half * half * ports, &t, err)))
    {
        return s;
    }
    uint32_t s0 = (uint32_t)npus;
    for (uint32_t x = 0; x < npus && !s; x++)
    {
        s = tn_topology_add_link(t,
                                 x,
                                 s0 + x / npus_per_switch,
                                 p.rate_bps,
                                 p.latency_ns,
                                 0,
                                 NULL,
                                 NULL,
                                 err);
    }
    for (uint32_t u = 0; u < half && !s; u++)
    {
        for (uint32_t l = 0; l < half && !s; l++)
        {
            for (uint32_t q = 0; q < ports && !s; q++)
            {
                s = tn_topology_add_link(t,
                                         s0 + u,
                                         s0 + (uint32_t)half + l,
                                         p.rate_bps,
                                         p.latency_ns,
                                         0,
                                         NULL,
                                         NULL,
                                         err);
            }
        }
    }
    tn_dim_info dim = {TN_DIM_BIGRAPH, (uint32_t)npus, p.rate_bps, p.latency_ns};
    if (!s)
    {
        s = tn_topology_set_dims(t, 1, &dim, err);
    }
    if (!s)
    {
        s = tn_gen_name(t, err, "bigraph:%ux%u,ports=%u", n_switches, npus_per_switch, ports);
    }
    if (!s)
    {
        s = tn_gen_switched(t, TN_SHAPE_BIGRAPH, n_switches, npus_per_switch, 0, err);
    }
    return tn_gen_end(s, t, out);
}

tn_status
tn_topology_hierarchical(uint32_t ndims, const tn_dim_info* dims, tn_topology** out, tn_error* err)
{
    tn_status s = tn_gen_check_out("hier", out, err);
    if (s)
    {
        return s;
    }
    if (ndims < 1)
    {
        return tn_error_set(err, TN_EINVAL, "hier: ndims = %u must be >= 1", ndims);
    }
    if (!dims)
    {
        return tn_error_set(err, TN_EINVAL, "hier: dims is NULL");
    }
    uint64_t npus = 1;
    for (uint32_t d = 0; d < ndims; d++)
    {
        const tn_dim_info* di = &dims[d];
        if (di->kind != TN_DIM_RING && di->kind != TN_DIM_FC && di->kind != TN_DIM_SWITCH)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "hier: dims[%u].kind %s must be ring, fc or switch",
                                d,
                                tn_dim_kind_name(di->kind));
        }
        if (di->size < 2)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "hier: dims[%u].size = %u must be >= 2",
                                d,
                                di->size);
        }
        if (di->bandwidth_bps == 0)
        {
            return tn_error_set(err, TN_EINVAL, "hier: dims[%u].bandwidth = 0 must be > 0", d);
        }
        uint64_t nlinks = di->kind == TN_DIM_RING ? (di->size == 2 ? 1 : 2)
                          : di->kind == TN_DIM_FC ? di->size - 1
                                                  : 1;
        if (di->bandwidth_bps % nlinks != 0)
        {
            return tn_error_set(
                err,
                TN_EINVAL,
                "hier: dims[%u].bandwidth = %llu bit/s is not divisible by the %llu "
                "links per NPU of this %s dim of size %u",
                d,
                (unsigned long long)di->bandwidth_bps,
                (unsigned long long)nlinks,
                tn_dim_kind_name(di->kind),
                di->size);
        }
        npus *= di->size;
        if (npus > UINT32_MAX - 1)
        {
            return tn_error_set(err, TN_EINVAL, "hier: the product of the dims sizes is too large");
        }
    }
    uint64_t switches = 0;
    uint64_t cables = 0;
    for (uint32_t d = 0; d < ndims; d++)
    {
        uint32_t P = dims[d].size;
        switch (dims[d].kind)
        {
        case TN_DIM_RING:
            cables += npus / P * (P == 2 ? 1 : P);
            break;
        case TN_DIM_FC:
            cables += npus / P * ((uint64_t)P * (P - 1) / 2);
            break;
        default:
            switches += npus / P;
            cables += npus;
            break;
        }
        if (cables > UINT32_MAX)
        {
            break;
        }
    }
    tn_topology* t;
    if ((s = tn_gen_begin("hier", npus, switches, cables, &t, err)))
    {
        return s;
    }
    uint32_t n = (uint32_t)npus;
    uint64_t stride = 1;
    uint64_t sw_base = n;
    for (uint32_t d = 0; d < ndims && !s; d++)
    {
        uint32_t P = dims[d].size;
        uint64_t lat = dims[d].latency_ns;
        for (uint64_t r = 0; r < n && !s; r++)
        {
            uint32_t c = (uint32_t)(r / stride % P);
            switch (dims[d].kind)
            {
            case TN_DIM_RING: {
                uint64_t rate = dims[d].bandwidth_bps / (P == 2 ? 1 : 2);
                uint64_t w;
                if (c + 1 < P)
                {
                    w = r + stride;
                }
                else if (P > 2)
                {
                    w = r - (uint64_t)(P - 1) * stride;
                }
                else
                {
                    break;
                }
                s = tn_topology_add_link(t,
                                         (uint32_t)r,
                                         (uint32_t)w,
                                         rate,
                                         lat,
                                         (int)d,
                                         NULL,
                                         NULL,
                                         err);
                break;
            }
            case TN_DIM_FC: {
                uint64_t rate = dims[d].bandwidth_bps / (P - 1);
                for (uint32_t c2 = c + 1; c2 < P && !s; c2++)
                {
                    s = tn_topology_add_link(t,
                                             (uint32_t)r,
                                             (uint32_t)(r + (c2 - c) * stride),
                                             rate,
                                             lat,
                                             (int)d,
                                             NULL,
                                             NULL,
                                             err);
                }
                break;
            }
            default: {
                uint64_t g = r % stride + r / (stride * P) * stride;
                s = tn_topology_add_link(t,
                                         (uint32_t)r,
                                         (uint32_t)(sw_base + g),
                                         dims[d].bandwidth_bps,
                                         lat,
                                         (int)d,
                                         NULL,
                                         NULL,
                                         err);
                break;
            }
            }
        }
        if (dims[d].kind == TN_DIM_SWITCH)
        {
            sw_base += n / P;
        }
        stride *= P;
    }
    if (!s)
    {
        s = tn_topology_set_dims(t, ndims, dims, err);
    }
    if (!s)
    {
        size_t cap = 16 + (size_t)ndims * 64;
        char* name = malloc(cap);
        if (!name)
        {
            s = tn_error_set(err, TN_ENOMEM, "hier: out of memory");
        }
        else
        {
            size_t len = (size_t)snprintf(name, cap, "hier:");
            for (uint32_t d = 0; d < ndims; d++)
            {
                len += (size_t)snprintf(name + len,
                                        cap - len,
                                        "%s%s%u@%llubps/%lluns",
                                        d ? "+" : "",
                                        tn_dim_kind_name(dims[d].kind),
                                        dims[d].size,
                                        (unsigned long long)dims[d].bandwidth_bps,
                                        (unsigned long long)dims[d].latency_ns);
            }
            s = tn_topology_set_name(t, name, err);
            free(name);
        }
    }
    if (!s)
    {
        tn_topology_set_npus_forward(t, !(ndims == 1 && dims[0].kind == TN_DIM_SWITCH));
        s = tn_gen_grid(t, ndims, dims, err);
    }
    return tn_gen_end(s, t, out);
}
