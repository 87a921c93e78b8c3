/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EFLOPS HDRM (Dong et al., "EFLOPS: Algorithm and System Co-design for a
 * High Performance Distributed Training Platform", HPCA 2020): recursive
 * halving-doubling all-reduce whose rank-to-node mapping makes every step
 * contention-free on a BiGraph (doc/core-algorithms.rst).
 *
 * Topology: a BiGraph (tn_topology_bigraph: n switches, m NPUs per switch, NPU
 * id = s*m + position, switch s = node n*m + s, switches 0..n/2-1 upper) with
 * N = n*m a power of two. The structure is checked link by link, so a
 * hand-built BiGraph with the same numbering is accepted too.
 *
 * Mapping (logical rank -> NPU node), literally the pseudo-code:
 *   base0, base1: for i < n/2, (2i, 2i+1) or (2i+1, 2i) when popcount(i) is odd;
 *   virtual group v (port v of every switch): A = base0 + v*n, B = base1 + v*n,
 *   shift = (n/2 - v) mod n/2, (U, L) = (rotate(B, shift), A) if popcount(v)
 *   odd else (rotate(A, shift), B); rank (U+L)[p] sits on node p*m + v.
 *   rotate(X, k) = X[k:] + X[:k].
 *
 * Schedule (all-reduce; L = log2 N): reduce-scatter steps k = 0..L-1 pair rank r
 * with r XOR 2^s, s = L-1-k (largest distance first, so every rank's range stays
 * one contiguous run of logical blocks: block b = tn_chunk_block(..., b) is
 * owned by logical rank b), each sends (reduce) the half its partner keeps;
 * all-gather steps L..2L-1 run s = 0..L-1 and copy the held range to the
 * partner. Each send of r depends on r's previous send and previous receive,
 * which makes every earlier producer an ancestor (tn-verify's rule).
 * Paths are explicit: NPU -> own switch [-> partner's switch over a free one of
 * the parallel upper-lower cables] -> NPU; a pair on two switches of the same
 * half goes through the first lower/upper switch with free cables (never
 * happens with this mapping). Each (directed cable, step) is used once on a
 * non-blocking BiGraph (m/(n/2) cables per switch pair, the generator default),
 * so the schedule claims contention freedom. Chunks: steps shifted by
 * c * 2L. Zero-length blocks give zero-length transfers (sync only).
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct hdrm_geo
{
    uint32_t n; /* switches */
    uint32_t m; /* NPUs per switch */
    uint32_t npus;
} hdrm_geo;

static unsigned
hdrm_popcount(uint32_t x)
{
    unsigned c = 0;
    while (x)
    {
        c += x & 1u;
        x >>= 1;
    }
    return c;
}

/* Check the BiGraph structure; fills geo. */
static tn_status
hdrm_geometry(const tn_topology* topo, hdrm_geo* geo, tn_error* err)
{
    const char* name = tn_topology_name(topo);
    uint32_t npus = tn_topology_npu_count(topo);
    uint32_t n = tn_topology_switch_count(topo);
    bool is_bigraph =
        tn_topology_dim_count(topo) == 1 && tn_topology_dim(topo, 0)->kind == TN_DIM_BIGRAPH;
    if (!is_bigraph || n < 2 || n % 2 != 0 || npus == 0 || npus % n != 0)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "hdrm: needs a BiGraph topology (bigraph:NxM), got '%s'",
                            name);
    }
    uint32_t m = npus / n;
    if ((npus & (npus - 1)) != 0)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "hdrm: N = %u x %u = %u NPUs is not a power of two (topology '%s')",
                            n,
                            m,
                            npus,
                            name);
    }
    for (uint32_t v = 0; v < npus; v++)
    {
        uint32_t cnt = 0;
        const uint32_t* out = tn_topology_out_links(topo, v, &cnt);
        uint32_t sw = npus + v / m;
        if (tn_topology_node_kind(topo, v) != TN_NODE_NPU || cnt != 1 ||
            tn_topology_link(topo, out[0])->dst != sw)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "hdrm: topology '%s' is not numbered as a BiGraph (NPU %u must "
                                "have one cable to switch node %u)",
                                name,
                                v,
                                sw);
        }
    }
    for (uint32_t a = 0; a < n / 2; a++)
    {
        for (uint32_t b = n / 2; b < n; b++)
        {
            if (tn_topology_links_between(topo, npus + a, npus + b, NULL, 0) == 0)
            {
                return tn_error_set(err,
                                    TN_EUNSUPPORTED,
                                    "hdrm: topology '%s': no cable between upper switch %u and "
                                    "lower switch %u",
                                    name,
                                    a,
                                    b);
            }
        }
    }
    geo->n = n;
    geo->m = m;
    geo->npus = npus;
    return TN_OK;
}

/* node[rank] of the EFLOPS mapping (see file comment). */
static void
hdrm_mapping(uint32_t n, uint32_t m, uint32_t* node, uint32_t* tmp)
{
    uint32_t h = n / 2;
    uint32_t* base0 = tmp;
    uint32_t* base1 = tmp + h;
    uint32_t* ul = tmp + 2 * h; /* U + L, n entries */
    for (uint32_t i = 0; i < h; i++)
    {
        bool even = hdrm_popcount(i) % 2 == 0;
        base0[i] = even ? 2 * i : 2 * i + 1;
        base1[i] = even ? 2 * i + 1 : 2 * i;
    }
    for (uint32_t v = 0; v < m; v++)
    {
        uint32_t shift = (h - v % h) % h;
        bool odd = hdrm_popcount(v) % 2 == 1;
        const uint32_t* rot = odd ? base1 : base0;
        const uint32_t* other = odd ? base0 : base1;
        for (uint32_t i = 0; i < h; i++)
        {
            ul[i] = rot[(i + shift) % h] + v * n;
            ul[h + i] = other[i] + v * n;
        }
        for (uint32_t p = 0; p < n; p++)
        {
            node[ul[p]] = p * m + v;
        }
    }
}

tn_status
tn_algo_hdrm_check(const tn_topology* topo,
                   const tn_plan_request* request,
                   uint32_t ranks,
                   tn_error* err)
{
    if (topo == NULL)
    {
        return tn_error_set(err, TN_EINVAL, "hdrm: needs a BiGraph topology");
    }
    if (request->collective != TN_COLL_ALL_REDUCE)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "hdrm: collective '%s' not supported (all-reduce only)",
                            tn_collective_name(request->collective));
    }
    hdrm_geo geo;
    tn_status rc = hdrm_geometry(topo, &geo, err);
    if (rc)
    {
        return rc;
    }
    if (ranks != geo.npus)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "hdrm: ranks %u must equal the NPU count %u",
                            ranks,
                            geo.npus);
    }
    return TN_OK;
}

typedef struct hdrm_paths
{
    const tn_topology* topo;
    hdrm_geo geo;
    uint32_t* used; /* per directed link: last step + 1 that used it */
    uint32_t* cables;
    uint32_t cable_cap;
} hdrm_paths;

/* A free cable a->b (switch node ids) in step `mark`; TN_TOPO_NONE if none. */
static uint32_t
hdrm_free_cable(hdrm_paths* hp, uint32_t a, uint32_t b, uint32_t mark)
{
    uint32_t cnt = tn_topology_links_between(hp->topo, a, b, hp->cables, hp->cable_cap);
    if (cnt > hp->cable_cap)
    {
        cnt = hp->cable_cap;
    }
    uint32_t first = TN_TOPO_NONE;
    for (uint32_t i = 0; i < cnt; i++)
    {
        if (first == TN_TOPO_NONE)
        {
            first = hp->cables[i];
        }
        if (hp->used[hp->cables[i]] != mark)
        {
            return hp->cables[i];
        }
    }
    return first; /* all busy: share the first one (contention, reported by the verifier) */
}

/* Path between NPU nodes a and b for step `mark` (>= 1); returns the length. */
static uint32_t
hdrm_path(hdrm_paths* hp, uint32_t a, uint32_t b, uint32_t mark, uint32_t* path)
{
    const tn_topology* topo = hp->topo;
    uint32_t n = hp->geo.n;
    uint32_t m = hp->geo.m;
    uint32_t base = hp->geo.npus;
    uint32_t sa = a / m;
    uint32_t sb = b / m;
    uint32_t len = 0;
    path[len++] = tn_topology_out_links(topo, a, NULL)[0];
    if (sa != sb)
    {
        bool ua = sa < n / 2;
        bool ub = sb < n / 2;
        if (ua != ub)
        {
            path[len++] = hdrm_free_cable(hp, base + sa, base + sb, mark);
        }
        else
        {
            /* same half: through the first switch of the other half with free cables */
            uint32_t lo = ua ? n / 2 : 0;
            uint32_t pick = lo;
            for (uint32_t w = lo; w < lo + n / 2; w++)
            {
                uint32_t l1 = hdrm_free_cable(hp, base + sa, base + w, mark);
                uint32_t l2 = hdrm_free_cable(hp, base + w, base + sb, mark);
                if (hp->used[l1] != mark && hp->used[l2] != mark)
                {
                    pick = w;
                    break;
                }
            }
            path[len++] = hdrm_free_cable(hp, base + sa, base + pick, mark);
            path[len++] = hdrm_free_cable(hp, base + pick, base + sb, mark);
        }
    }
    path[len++] = tn_topology_in_links(topo, b, NULL)[0];
    for (uint32_t i = 0; i < len; i++)
    {
        hp->used[path[i]] = mark;
    }
    return len;
}

tn_status
tn_algo_hdrm_plan(const tn_topology* topo,
                  const tn_plan_request* request,
                  tn_schedule* s,
                  tn_error* err)
{
    (void)request;
    hdrm_paths hp;
    memset(&hp, 0, sizeof(hp));
    hp.topo = topo;
    tn_status rc = hdrm_geometry(topo, &hp.geo, err);
    if (rc)
    {
        return rc;
    }
    uint32_t N = hp.geo.npus;
    uint32_t L = 0;
    while ((1u << L) < N)
    {
        L++;
    }
    uint32_t chunks = tn_schedule_chunks(s);
    uint64_t bytes = tn_schedule_bytes(s);
    uint32_t* node = calloc(N, sizeof(*node));
    uint32_t* tmp = calloc(2 * (size_t)hp.geo.n, sizeof(*tmp));
    uint32_t* last_send = calloc(N, sizeof(*last_send));
    uint32_t* last_recv = calloc(N, sizeof(*last_recv));
    uint32_t* step_id = calloc(N, sizeof(*step_id));
    hp.used = calloc(tn_topology_link_count(topo), sizeof(*hp.used));
    hp.cable_cap = hp.geo.m + 1;
    hp.cables = calloc(hp.cable_cap, sizeof(*hp.cables));
    if (!node || !tmp || !last_send || !last_recv || !step_id || !hp.used || !hp.cables)
    {
        rc = tn_error_set(err, TN_ENOMEM, "hdrm: out of memory");
        goto done;
    }
    hdrm_mapping(hp.geo.n, hp.geo.m, node, tmp);
    uint32_t path[8];
    for (uint32_t c = 0; c < chunks && rc == TN_OK; c++)
    {
        for (uint32_t r = 0; r < N; r++)
        {
            last_send[r] = TN_TRANSFER_NONE;
            last_recv[r] = TN_TRANSFER_NONE;
        }
        for (uint32_t k = 0; k < 2 * L && rc == TN_OK; k++)
        {
            bool rs = k < L;
            uint32_t sbit = rs ? L - 1 - k : k - L;
            uint32_t step = c * 2 * L + k;
            for (uint32_t r = 0; r < N && rc == TN_OK; r++)
            {
                uint32_t q = r ^ (1u << sbit);
                uint32_t first;
                uint32_t count;
                if (rs)
                {
                    /* r holds blocks [r & ~(2^(s+1)-1), +2^(s+1)); sends q's half */
                    first = (r & ~((2u << sbit) - 1u)) | (q & (1u << sbit));
                    count = 1u << sbit;
                }
                else
                {
                    /* r holds blocks [r & ~(2^s-1), +2^s) and copies them to q */
                    first = r & ~((1u << sbit) - 1u);
                    count = 1u << sbit;
                }
                tn_slice b0 = tn_chunk_block(TN_COLL_ALL_REDUCE, bytes, N, chunks, c, first);
                tn_slice b1 =
                    tn_chunk_block(TN_COLL_ALL_REDUCE, bytes, N, chunks, c, first + count - 1);
                uint64_t len = b1.offset + b1.length - b0.offset;
                uint32_t deps[3];
                uint32_t nd = 0;
                if (last_send[r] != TN_TRANSFER_NONE)
                {
                    deps[nd++] = last_send[r];
                }
                if (last_recv[r] != TN_TRANSFER_NONE)
                {
                    deps[nd++] = last_recv[r];
                }
                if (last_recv[q] != TN_TRANSFER_NONE)
                {
                    deps[nd++] = last_recv[q]; /* receiver ready: q's previous step landed */
                }
                uint32_t src = tn_topology_node_rank(topo, node[r]);
                uint32_t dst = tn_topology_node_rank(topo, node[q]);
                uint32_t plen = hdrm_path(&hp, node[r], node[q], step + 1, path);
                int32_t dim = tn_topology_link(topo, path[0])->dim;
                uint32_t id = 0;
                rc = tn_algo_add(s,
                                 src,
                                 dst,
                                 b0.offset,
                                 b0.offset,
                                 len,
                                 rs ? TN_OP_REDUCE : TN_OP_COPY,
                                 step,
                                 dim,
                                 c,
                                 deps,
                                 nd,
                                 &id,
                                 err);
                if (rc == TN_OK)
                {
                    rc = tn_schedule_set_path(s, id, path, plen, err);
                }
                step_id[r] = id;
            }
            /* update after the whole step: deps refer to the previous step only */
            for (uint32_t r = 0; r < N; r++)
            {
                last_send[r] = step_id[r];
            }
            for (uint32_t r = 0; r < N; r++)
            {
                last_recv[r ^ (1u << sbit)] = step_id[r];
            }
        }
    }
    if (rc == TN_OK)
    {
        tn_schedule_set_contention_free(s, true);
    }
done:
    free(node);
    free(tmp);
    free(last_send);
    free(last_recv);
    free(step_id);
    free(hp.used);
    free(hp.cables);
    return rc;
}
