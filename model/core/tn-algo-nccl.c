/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's model in the registry (tn-nccl.h): the choice of NCCL's tuner, planned as NCCL runs
 * it with one chunk per channel: the registry's ring (with one ring order per channel across
 * servers), NCCL's tree, NVLS and NVLS-tree (tn-algo-nvls.c), or CollNet Direct
 * (tn-algo-collnet.c). The protocol's costs are not in
 * the plan: the cost model and the executor take them from tn_nccl_choose.
 */
#include "tn-algorithm-impl.h"
#include "tn-array.h"
#include "tn-nccl.h"

#include <stdlib.h>
#include <string.h>

tn_status
tn_algo_nccl_check(const tn_topology* topo,
                   const tn_plan_request* request,
                   uint32_t ranks,
                   tn_error* err)
{
    tn_nccl_choice choice;
    return tn_nccl_choose(topo, request, ranks, &choice, err);
}

tn_status
tn_algo_nccl_prepare(const tn_topology* topo,
                     const tn_plan_request* request,
                     uint32_t ranks,
                     tn_plan_request* out,
                     tn_error* err)
{
    tn_nccl_choice choice;
    tn_status st = tn_nccl_choose(topo, request, ranks, &choice, err);
    if (st)
    {
        return st;
    }
    *out = *request;
    out->chunks = choice.channels;
    return TN_OK;
}

/*
 * NCCL's rings across servers, one per channel, each crossing between servers on a rail (the
 * same GPU, and so the same leaf, on both sides): channel c enters a server at GPU a = c mod
 * g and leaves it from b = a + 1 (mod g) through a, a+2, ..., a+g-1, a+1; the next server is
 * walked backwards, entered at b and left from a; so with an even number of servers every
 * crossing stays on rail a or b, the wrap included (an odd number wraps over a spine). The C
 * channels spread over the g NICs of a server (2C / g crossings each), as NCCL's rings do,
 * where one ring order would send every channel through one NIC. Needs the ranks to be every
 * NPU of a topology of >= 2 dims, dim 0 the server's GPUs (the presets); *orders NULL
 * otherwise (the registry's ring order then).
 */
static tn_status
rail_orders(const tn_topology* topo, uint32_t N, uint32_t C, uint32_t** orders, tn_error* err)
{
    *orders = NULL;
    if (!topo || tn_topology_dim_count(topo) < 2 || N != tn_topology_npu_count(topo))
        return TN_OK;
    uint32_t g = tn_topology_dim(topo, 0)->size;
    if (g < 2 || N % g != 0 || N / g < 2)
        return TN_OK;
    uint32_t servers = N / g;
    uint32_t* o = malloc((size_t)N * C * sizeof(uint32_t));
    if (!o)
        return tn_error_set(err, TN_ENOMEM, "nccl: out of memory");
    for (uint32_t c = 0; c < C; c++)
    {
        uint32_t a = c % g;
        for (uint32_t sv = 0; sv < servers; sv++)
        {
            uint32_t* at = o + (size_t)c * N + (size_t)sv * g;
            for (uint32_t k = 0; k < g; k++)
            {
                /* forward: a, a+2, ..., a+g-1, a+1 */
                uint32_t f = k == 0 ? 0 : k == g - 1 ? 1 : k + 1;
                at[sv % 2 == 0 ? k : g - 1 - k] = sv * g + (a + f) % g;
            }
        }
    }
    *orders = o;
    return TN_OK;
}

/* ---- NCCL's tree --------------------------------------------------------------------
 * All-reduce as NCCL's tree runs it: inside a server a chain of its GPUs, between servers a
 * binary tree of the servers' chain heads; channel c's chain starts at GPU h = c mod g (its
 * head, whose NIC is on rail h: every tree edge between servers stays on a rail) and the
 * channels alternate between the two trees of the double binary tree (tree 1 is tree 0 with
 * every server shifted by one, as dbt). Each channel's data goes as pieces of NCCL's chunk
 * size (tree_piece_bytes), each piece reduced up (a GPU sends once its chain child and, for a
 * head, its child servers' heads have sent) and broadcast down from the root server's head;
 * a connection (a GPU to its parent, its chain child or a child server's head) holds
 * TREE_SLOTS pieces at a time, as NCCL's buffers do, so the pieces stream through the tree:
 * without that bound every piece of a channel shares the first hop and the tree runs hop by
 * hop. On 4 DGX-H100 the flow level takes 0.91 to 1.05 times NCCL's time from 256 KiB to
 * 128 MiB (with pieces of 512 KiB and no bound: 1.34 times at 16 MiB, 1.21 at 128 MiB). One server,
 * or ranks that are not every NPU of a topology of >= 2 dims: one chain of all ranks (NCCL's tree
 * in one server). */
#define TREE_PIECES_MAX 64u

/* NCCL_STEPS: a connection's buffer holds 8 chunks; piece p waits for piece p - 8 */
#define TREE_SLOTS 8u
/* the slot of piece t->p of connection i (per rank: 1 up, 3 down) */
#define SLOT(t, i) ((i)*TREE_SLOTS + (t)->p % TREE_SLOTS)

/* NCCL's tree chunk (enqueue.cc): a step of the protocol's buffer (NCCL_STEPS = 8 steps):
 * Simple 4 MiB / 8; LL 512 threads x 8 lines x 8 steps x 16 B / 8, half of it data; LL128
 * 640 threads x 120 elements x 8 steps x 8 B / 8 = 614,400 B, 15/16 of it data, halved while
 * a channel has fewer than (1 + log2(servers) + ppn / 10) x 64 / ppn chunks (to 128 KiB), then
 * x 16 / ppn (to 32 KiB), so that the tree's depth stays fed. */
static uint64_t
tree_piece_bytes(tn_nccl_proto proto, uint64_t bytes, uint32_t C, uint32_t servers, uint32_t g)
{
    if (proto == TN_NCCL_SIMPLE)
        return (4u << 20) / 8;
    if (proto == TN_NCCL_LL)
        return 512u * 8 * 16 / 2;
    uint64_t chunk = 614400u / 16 * 15;
    uint32_t lg = 0;
    while ((2u << lg) <= servers)
        lg++;
    double ppn = g ? (double)g : 1.0, steps = 1.0 + lg + 0.1 * ppn;
    uint64_t per = C ? bytes / C : bytes;
    while ((double)(per / chunk) < steps * 64 / ppn && chunk > 131072)
        chunk /= 2;
    while ((double)(per / chunk) < steps * 16 / ppn && chunk > 32768)
        chunk /= 2;
    return chunk;
}

/* pieces of a channel of `bytes` bytes */
static uint32_t
tree_pieces(uint64_t bytes, uint64_t piece)
{
    uint64_t p = (bytes + piece - 1) / piece;
    return p < 1 ? 1 : p > TREE_PIECES_MAX ? TREE_PIECES_MAX : (uint32_t)p;
}

/* the servers and GPUs per server NCCL's tree sees (g = ranks, 1 server, when not a preset-
 * like topology of every NPU) */
static void
tree_shape(const tn_topology* topo, uint32_t N, uint32_t* servers, uint32_t* g)
{
    *servers = 1;
    *g = N;
    if (!topo || tn_topology_dim_count(topo) < 2 || N != tn_topology_npu_count(topo))
        return;
    uint32_t d0 = tn_topology_dim(topo, 0)->size;
    if (d0 >= 1 && N % d0 == 0)
    {
        *servers = N / d0;
        *g = d0;
    }
}

typedef struct ntree
{
    const tn_topology* topo;
    tn_schedule* s;
    uint32_t servers, g, chunk, head, p;
    tn_slice piece;
    uint32_t* parent; /* per server: its parent server, UINT32_MAX for the root */
    uint32_t* kids;   /* per server: 2 child servers (UINT32_MAX: none) */
    uint32_t root;
    uint32_t* up;   /* per rank: its send up (TN_TRANSFER_NONE: none yet in the channel) */
    uint32_t* down; /* per rank: its last send down to its 2 child servers' heads and its
                       chain child (TN_TRANSFER_NONE: none yet in the channel) */
    uint32_t* step; /* per rank: the step after its last receive */
} ntree;

static uint32_t
tree_build(ntree* t, uint32_t lo, uint32_t hi, uint32_t parent, uint32_t shift)
{
    if (lo >= hi)
        return UINT32_MAX;
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t v = (mid + shift) % t->servers;
    t->parent[v] = parent;
    t->kids[2 * v] = tree_build(t, lo, mid, v, shift);
    t->kids[2 * v + 1] = tree_build(t, mid + 1, hi, v, shift);
    return v;
}

static uint32_t
chain_rank(const ntree* t, uint32_t server, uint32_t k)
{
    return server * t->g + (t->head + k) % t->g;
}

/* a send from a to b after deps and after the send whose buffer slot it takes (*last: the
 * connection's piece TREE_SLOTS before, TN_TRANSFER_NONE for the first ones; then this one) */
static tn_status
tree_send(ntree* t,
          uint32_t a,
          uint32_t b,
          bool up,
          const uint32_t* deps,
          uint32_t n,
          uint32_t* last,
          tn_error* err)
{
    uint32_t step = t->step[a], d[4];
    memcpy(d, deps, n * sizeof(uint32_t));
    if (*last != TN_TRANSFER_NONE)
        d[n++] = *last;
    tn_status st = tn_algo_add(t->s,
                               a,
                               b,
                               t->piece.offset,
                               t->piece.offset,
                               t->piece.length,
                               up ? TN_OP_REDUCE : TN_OP_COPY,
                               step,
                               tn_algo_rank_dim(t->topo, a, b),
                               t->chunk,
                               d,
                               n,
                               last,
                               err);
    if (!st && t->step[b] < step + 1)
        t->step[b] = step + 1;
    return st;
}

/* reduce the pieces of server v's subtree into v's head (children first) */
static tn_status
tree_up(ntree* t, uint32_t v, tn_error* err)
{
    tn_status st = TN_OK;
    for (uint32_t j = 0; j < 2 && !st; j++)
        if (t->kids[2 * v + j] != UINT32_MAX)
            st = tree_up(t, t->kids[2 * v + j], err);
    for (uint32_t k = t->g - 1; k >= 1 && !st; k--)
    {
        uint32_t a = chain_rank(t, v, k);
        uint32_t deps[1], n = 0;
        if (k + 1 < t->g)
            deps[n++] = t->up[SLOT(t, chain_rank(t, v, k + 1))];
        st = tree_send(t, a, chain_rank(t, v, k - 1), true, deps, n, &t->up[SLOT(t, a)], err);
    }
    if (st || v == t->root)
        return st;
    uint32_t head = chain_rank(t, v, 0), deps[3], n = 0;
    if (t->g > 1)
        deps[n++] = t->up[SLOT(t, chain_rank(t, v, 1))];
    for (uint32_t j = 0; j < 2; j++)
        if (t->kids[2 * v + j] != UINT32_MAX)
            deps[n++] = t->up[SLOT(t, chain_rank(t, t->kids[2 * v + j], 0))];
    return tree_send(t,
                     head,
                     chain_rank(t, t->parent[v], 0),
                     true,
                     deps,
                     n,
                     &t->up[SLOT(t, head)],
                     err);
}

/* broadcast from server v's head (which holds the result once `deps` are done) */
static tn_status
tree_down(ntree* t, uint32_t v, const uint32_t* deps, uint32_t n, tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t head = chain_rank(t, v, 0);
    for (uint32_t j = 0; j < 2 && !st; j++)
    {
        uint32_t kid = t->kids[2 * v + j];
        if (kid == UINT32_MAX)
            continue;
        uint32_t* last = &t->down[SLOT(t, 3 * head + j)];
        st = tree_send(t, head, chain_rank(t, kid, 0), false, deps, n, last, err);
        if (!st)
            st = tree_down(t, kid, last, 1, err);
    }
    const uint32_t* d = deps;
    uint32_t dn = n;
    for (uint32_t k = 0; k + 1 < t->g && !st; k++)
    {
        uint32_t a = chain_rank(t, v, k), *last = &t->down[SLOT(t, 3 * a + 2)];
        st = tree_send(t, a, chain_rank(t, v, k + 1), false, d, dn, last, err);
        d = last;
        dn = 1;
    }
    return st;
}

static tn_status
nccl_tree_plan(const tn_topology* topo, tn_schedule* s, tn_nccl_proto proto, tn_error* err)
{
    ntree t;
    memset(&t, 0, sizeof(t));
    t.topo = topo;
    t.s = s;
    uint32_t N = tn_schedule_ranks(s), C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    if (N < 2)
        return TN_OK;
    tree_shape(topo, N, &t.servers, &t.g);
    t.parent = malloc((size_t)t.servers * sizeof(uint32_t));
    t.kids = malloc((size_t)t.servers * 2 * sizeof(uint32_t));
    t.up = malloc((size_t)N * TREE_SLOTS * sizeof(uint32_t));
    t.down = malloc((size_t)N * 3 * TREE_SLOTS * sizeof(uint32_t));
    t.step = calloc(N, sizeof(uint32_t));
    tn_status st = TN_OK;
    if (!t.parent || !t.kids || !t.up || !t.down || !t.step)
        st = tn_error_set(err, TN_ENOMEM, "nccl: out of memory");
    uint64_t piece = tree_piece_bytes(proto, S, C, t.servers, t.g);
    for (uint32_t c = 0; c < C && !st; c++)
    {
        tn_slice region = tn_chunk_region(S, C, c);
        uint32_t P = tree_pieces(region.length, piece);
        t.chunk = c;
        t.head = c % t.g;
        for (uint32_t r = 0; r < N * TREE_SLOTS; r++)
            t.up[r] = TN_TRANSFER_NONE;
        for (uint32_t r = 0; r < 3 * N * TREE_SLOTS; r++)
            t.down[r] = TN_TRANSFER_NONE;
        t.root = tree_build(&t, 0, t.servers, UINT32_MAX, c % 2);
        for (uint32_t p = 0; p < P && !st; p++)
        {
            t.p = p;
            t.piece = tn_slice_of(region.length, P, p);
            t.piece.offset += region.offset;
            st = tree_up(&t, t.root, err);
            /* the root head has the sum once its chain child and child servers have sent */
            uint32_t deps[3], n = 0;
            if (!st && t.g > 1)
                deps[n++] = t.up[SLOT(&t, chain_rank(&t, t.root, 1))];
            for (uint32_t j = 0; j < 2 && !st; j++)
                if (t.kids[2 * t.root + j] != UINT32_MAX)
                    deps[n++] = t.up[SLOT(&t, chain_rank(&t, t.kids[2 * t.root + j], 0))];
            if (!st)
                st = tree_down(&t, t.root, deps, n, err);
        }
    }
    free(t.parent);
    free(t.kids);
    free(t.up);
    free(t.down);
    free(t.step);
    return st;
}

void
tn_algo_nccl_estimate(const tn_topology* topo,
                      const tn_plan_request* request,
                      uint32_t ranks,
                      uint64_t chunks,
                      tn_plan_size* size)
{
    tn_nccl_choice choice;
    tn_error err;
    bool ok = tn_nccl_choose(topo, request, ranks, &choice, &err) == TN_OK;
    bool tree = ok && choice.algo == TN_NCCL_TREE;
    uint64_t N = ranks, t = 0;
    if (ok && (choice.algo == TN_NCCL_NVLS || choice.algo == TN_NCCL_NVLS_TREE))
    {
        /* a send waits for at most g + 1 (the sends into its sender) */
        uint32_t servers, g;
        tree_shape(topo, ranks, &servers, &g);
        bool across = choice.algo == TN_NCCL_NVLS_TREE;
        t = tn_algo_nvls_transfers(ranks,
                                   across ? g : ranks,
                                   across,
                                   (uint32_t)chunks,
                                   request->bytes);
        size->transfers = t;
        size->deps = tn_sat_mul(t, (across ? g : ranks) + 1);
        size->exact_transfers = true;
        return;
    }
    if (ok && choice.algo == TN_NCCL_COLLNET)
    {
        /* a send waits for at most g - 1 + 2(s - 1) (the sends into its sender) */
        uint32_t servers, g;
        tree_shape(topo, ranks, &servers, &g);
        t = tn_algo_collnet_transfers(ranks, g, (uint32_t)chunks);
        size->transfers = t;
        size->deps = tn_sat_mul(t, g + 2 * (uint64_t)servers);
        size->exact_transfers = true;
        return;
    }
    if (tree)
    {
        uint32_t servers, g;
        tree_shape(topo, ranks, &servers, &g);
        uint64_t piece =
            tree_piece_bytes(choice.proto, request->bytes, (uint32_t)chunks, servers, g);
        /* per channel and piece: N - 1 sends up, N - 1 down; a send waits for <= 3 and its
         * connection's previous piece */
        for (uint64_t c = 0; c < chunks; c++)
            t = tn_sat_add(
                t,
                tn_sat_mul(
                    tree_pieces(
                        tn_chunk_region(request->bytes, (uint32_t)chunks, (uint32_t)c).length,
                        piece),
                    2 * (N > 0 ? N - 1 : 0)));
        size->deps = tn_sat_mul(t, 4);
    }
    else
    {
        /* the ring's count (tn-algorithm.c): N - 1 steps of N transfers per phase and
         * channel */
        bool ar = request->collective == TN_COLL_ALL_REDUCE;
        t = tn_sat_mul(tn_sat_mul(tn_sat_mul(N, N > 0 ? N - 1 : 0), ar ? 2 : 1), chunks);
        size->deps = tn_sat_mul(t, 2);
    }
    size->transfers = t;
    size->exact_transfers = true;
}

tn_status
tn_algo_nccl_plan(const tn_topology* topo,
                  const tn_plan_request* request,
                  tn_schedule* s,
                  tn_error* err)
{
    tn_nccl_choice choice;
    tn_status st = tn_nccl_choose(topo, request, tn_schedule_ranks(s), &choice, err);
    if (st)
    {
        return st;
    }
    if (choice.algo == TN_NCCL_NVLS || choice.algo == TN_NCCL_NVLS_TREE)
    {
        uint32_t servers, g;
        tree_shape(topo, tn_schedule_ranks(s), &servers, &g);
        if (choice.algo == TN_NCCL_NVLS_TREE && servers < 2)
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "%s: NVLS-tree needs every GPU of the servers",
                                request->algorithm);
        st = tn_algo_nvls_plan(topo, s, g, choice.algo == TN_NCCL_NVLS_TREE, err);
        return st ? st : tn_schedule_set_algorithm(s, choice.name, err);
    }
    if (choice.algo == TN_NCCL_COLLNET)
    {
        uint32_t servers, g;
        tree_shape(topo, tn_schedule_ranks(s), &servers, &g);
        if (servers < 2)
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "%s: CollNet needs every GPU of 2 servers or more",
                                request->algorithm);
        st = tn_algo_collnet_plan(topo, s, g, err);
        return st ? st : tn_schedule_set_algorithm(s, choice.name, err);
    }
    tn_plan_request r = *request;
    r.algorithm = choice.planner;
    tn_collective coll = tn_schedule_collective(s);
    uint32_t* orders = NULL;
    if (choice.algo == TN_NCCL_RING && choice.system.servers > 1 &&
        (coll == TN_COLL_ALL_REDUCE || coll == TN_COLL_REDUCE_SCATTER ||
         coll == TN_COLL_ALL_GATHER))
        st = rail_orders(topo, tn_schedule_ranks(s), tn_schedule_chunks(s), &orders, err);
    if (st)
        return st;
    if (orders)
        st = tn_algo_flat_plan_orders(topo,
                                      s,
                                      orders,
                                      tn_schedule_chunks(s),
                                      tn_phase_ring_rs,
                                      tn_phase_ring_ag,
                                      err);
    else
        st = choice.algo == TN_NCCL_TREE ? nccl_tree_plan(topo, s, choice.proto, err)
                                         : tn_algo_ring_plan(topo, &r, s, err);
    free(orders);
    return st ? st : tn_schedule_set_algorithm(s, choice.name, err);
}
