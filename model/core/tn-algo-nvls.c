/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NVLS and NVLS-tree all-reduce as planned transfers (tn-nccl.h's contract: the data flow and
 * why direct transfers with the protocol's intra_scale carry NVLS's bytes). Per channel
 * (chunk) and GPU i of a server, slice i of the chunk: every other GPU j of the server sends
 * its slice i to i (reduce: the switch's load-reduce), then i holds the server's sum; across
 * servers (NVLS-tree) the servers' GPU i reduce it up a binary tree of the servers and
 * broadcast the total down (the tree alternates per channel as the double binary tree's, so
 * a server is inner in one channel's tree and a leaf in the next); then i sends the result
 * to every other GPU of its server (copy: the switch's multicast). Across servers a channel
 * goes as pieces of at most PIECE bytes (NCCL pipelines NVLS-tree in chunks), piece p's
 * sends into GPU i waiting for piece p - 1's, so the pieces flow through the three stages.
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>
#include <string.h>

#define PIECE (1u << 20)
#define PIECES_MAX 8u

static uint32_t
pieces(bool tree, uint64_t bytes)
{
    if (!tree)
        return 1;
    uint64_t p = (bytes + PIECE - 1) / PIECE;
    return p < 1 ? 1 : p > PIECES_MAX ? PIECES_MAX : (uint32_t)p;
}

uint64_t
tn_algo_nvls_transfers(uint32_t N, uint32_t g, bool tree, uint32_t C, uint64_t S)
{
    if (N < 2 || g < 1)
        return 0;
    uint64_t servers = N / g;
    /* a piece: 2 g(g - 1) sends in each server, 2 (servers - 1) per slice between them */
    uint64_t per = servers * 2 * (uint64_t)g * (g - 1) + (tree ? 2 * (servers - 1) * g : 0);
    uint64_t t = 0;
    for (uint32_t c = 0; c < C; c++)
        t = tn_sat_add(t, tn_sat_mul(per, pieces(tree, tn_chunk_region(S, C, c).length)));
    return t;
}

typedef struct nvls
{
    const tn_topology* topo;
    tn_schedule* s;
    uint32_t g, servers, chunk;
    uint32_t* parent; /* per server: its parent in the current tree (UINT32_MAX: root) */
    uint32_t* kids;   /* per server: 2 children (UINT32_MAX: none) */
    uint32_t* prev;   /* per (rank, GPU of its server): the last piece's send (NONE: none) */
    uint32_t* in;     /* per rank: its slice's sends in (g - 1 in the server, 2 kids) */
    uint32_t* nin;
    uint32_t* up;   /* per rank: its send up the tree */
    uint32_t* have; /* per rank: the send after which it holds the total (NONE: its own) */
} nvls;

#define NONE UINT32_MAX

static uint32_t
build(nvls* t, uint32_t lo, uint32_t hi, uint32_t parent, uint32_t shift)
{
    if (lo >= hi)
        return NONE;
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t v = (mid + shift) % t->servers;
    t->parent[v] = parent;
    t->kids[2 * v] = build(t, lo, mid, v, shift);
    t->kids[2 * v + 1] = build(t, mid + 1, hi, v, shift);
    return v;
}

/* add a send a -> b of the piece at its step: one after its latest dep */
static tn_status
nvls_send(nvls* t,
          uint32_t a,
          uint32_t b,
          tn_slice piece,
          tn_op op,
          const uint32_t* deps,
          uint32_t n,
          uint32_t* id,
          tn_error* err)
{
    uint32_t step = 0;
    for (uint32_t k = 0; k < n; k++)
    {
        uint32_t st = tn_schedule_transfer(t->s, deps[k])->step + 1;
        step = st > step ? st : step;
    }
    return tn_algo_add(t->s,
                       a,
                       b,
                       piece.offset,
                       piece.offset,
                       piece.length,
                       op,
                       step,
                       tn_algo_rank_dim(t->topo, a, b),
                       t->chunk,
                       deps,
                       n,
                       id,
                       err);
}

/* the servers' GPU i of server v reduce up (children first) */
static tn_status
tree_up(nvls* t, uint32_t v, uint32_t i, tn_slice piece, tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t r = v * t->g + i;
    for (uint32_t j = 0; j < 2 && !st; j++)
    {
        uint32_t kid = t->kids[2 * v + j];
        if (kid == NONE)
            continue;
        st = tree_up(t, kid, i, piece, err);
        if (!st)
            t->in[(size_t)r * (t->g + 1) + t->nin[r]++] = t->up[kid * t->g + i];
    }
    if (st || t->parent[v] == NONE)
        return st;
    return nvls_send(t,
                     r,
                     t->parent[v] * t->g + i,
                     piece,
                     TN_OP_REDUCE,
                     t->in + (size_t)r * (t->g + 1),
                     t->nin[r],
                     &t->up[r],
                     err);
}

/* broadcast the total down from server v's GPU i */
static tn_status
tree_down(nvls* t, uint32_t v, uint32_t i, tn_slice piece, tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t r = v * t->g + i;
    for (uint32_t j = 0; j < 2 && !st; j++)
    {
        uint32_t kid = t->kids[2 * v + j];
        if (kid == NONE)
            continue;
        uint32_t k = kid * t->g + i;
        const uint32_t* deps = t->have[r] == NONE ? t->in + (size_t)r * (t->g + 1) : &t->have[r];
        uint32_t n = t->have[r] == NONE ? t->nin[r] : 1;
        st = nvls_send(t, r, k, piece, TN_OP_COPY, deps, n, &t->have[k], err);
        if (!st)
            st = tree_down(t, kid, i, piece, err);
    }
    return st;
}

static tn_status
plan_piece(nvls* t, tn_slice piece, uint32_t root, tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t g = t->g, N = g * t->servers;
    for (uint32_t r = 0; r < N; r++)
    {
        t->nin[r] = 0;
        t->have[r] = NONE;
    }
    /* into GPU i of each server: its slice of every other GPU, reduced */
    for (uint32_t r = 0; r < N && !st; r++)
    {
        uint32_t base = r / g * g, i = r % g;
        tn_slice sl = tn_slice_of(piece.length, g, i);
        sl.offset += piece.offset;
        for (uint32_t j = 0; j < g && !st; j++)
        {
            if (j == i)
                continue;
            uint32_t* prev = &t->prev[(size_t)r * g + j];
            uint32_t id;
            st = nvls_send(t, base + j, r, sl, TN_OP_REDUCE, prev, *prev != NONE, &id, err);
            *prev = id;
            t->in[(size_t)r * (g + 1) + t->nin[r]++] = id;
        }
    }
    /* between servers: a tree of the servers per slice */
    for (uint32_t i = 0; i < g && !st && t->servers > 1; i++)
    {
        tn_slice sl = tn_slice_of(piece.length, g, i);
        sl.offset += piece.offset;
        st = tree_up(t, root, i, sl, err);
        if (!st)
            st = tree_down(t, root, i, sl, err);
    }
    /* from GPU i of each server: the total of its slice to every other GPU */
    for (uint32_t r = 0; r < N && !st; r++)
    {
        uint32_t base = r / g * g, i = r % g;
        tn_slice sl = tn_slice_of(piece.length, g, i);
        sl.offset += piece.offset;
        const uint32_t* deps = t->have[r] == NONE ? t->in + (size_t)r * (g + 1) : &t->have[r];
        uint32_t n = t->have[r] == NONE ? t->nin[r] : 1;
        for (uint32_t j = 0; j < g && !st; j++)
        {
            uint32_t id;
            if (j != i)
                st = nvls_send(t, r, base + j, sl, TN_OP_COPY, deps, n, &id, err);
        }
    }
    return st;
}

tn_status
tn_algo_nvls_plan(const tn_topology* topo, tn_schedule* s, uint32_t g, bool tree, tn_error* err)
{
    uint32_t N = tn_schedule_ranks(s), C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    if (N < 2)
        return TN_OK;
    nvls t;
    memset(&t, 0, sizeof(t));
    t.topo = topo;
    t.s = s;
    t.g = tree ? g : N;
    if (t.g < 2 || N % t.g != 0)
        return tn_error_set(err, TN_EINVAL, "nvls: %u ranks are not servers of %u GPUs", N, g);
    t.servers = N / t.g;
    t.parent = malloc((size_t)t.servers * sizeof(uint32_t));
    t.kids = malloc((size_t)t.servers * 2 * sizeof(uint32_t));
    t.prev = malloc((size_t)N * t.g * sizeof(uint32_t));
    t.in = malloc((size_t)N * (t.g + 1) * sizeof(uint32_t));
    t.nin = calloc(N, sizeof(uint32_t));
    t.up = malloc((size_t)N * sizeof(uint32_t));
    t.have = malloc((size_t)N * sizeof(uint32_t));
    tn_status st = TN_OK;
    if (!t.parent || !t.kids || !t.prev || !t.in || !t.nin || !t.up || !t.have)
        st = tn_error_set(err, TN_ENOMEM, "nvls: out of memory");
    for (uint32_t c = 0; c < C && !st; c++)
    {
        tn_slice region = tn_chunk_region(S, C, c);
        uint32_t P = pieces(tree, region.length);
        t.chunk = c;
        uint32_t root = build(&t, 0, t.servers, NONE, c % 2);
        for (size_t k = 0; k < (size_t)N * t.g; k++)
            t.prev[k] = NONE;
        for (uint32_t p = 0; p < P && !st; p++)
        {
            tn_slice piece = tn_slice_of(region.length, P, p);
            piece.offset += region.offset;
            st = plan_piece(&t, piece, root, err);
        }
    }
    free(t.parent);
    free(t.kids);
    free(t.prev);
    free(t.in);
    free(t.nin);
    free(t.up);
    free(t.have);
    return st;
}
