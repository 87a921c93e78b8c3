/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * CollNet Direct all-reduce as planned transfers (tn-nccl.h's contract: the data flow, and
 * why direct transfers between the servers' heads with the protocol's inter_scale carry
 * SHARP's bytes). Per channel (chunk), servers of g GPUs, rank = server x g + i, GPU i the
 * head of slice i: every other GPU of the server sends its slice i to the head (reduce);
 * slice i goes in s parts, part k reduced at server k's head i from every other server's
 * head i, then copied back to them (the switch's reduction and multicast, as one exchange
 * between the rail's heads); then each head sends the total of its slice to the server's
 * other GPUs (copy). Each phase waits only for the sends into its sender that made its
 * data, so the channels overlap.
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>
#include <string.h>

uint64_t
tn_algo_collnet_transfers(uint32_t N, uint32_t g, uint32_t C)
{
    if (g < 1 || N < 2 * g || N % g != 0)
        return 0;
    uint64_t s = N / g;
    /* a chunk: g(g - 1) reduces and as many copies in each server, 2 s(s - 1) per slice */
    uint64_t per = 2 * s * g * (g - 1) + 2 * (uint64_t)g * s * (s - 1);
    return tn_sat_mul(per, C);
}

typedef struct collnet
{
    const tn_topology* topo;
    tn_schedule* s;
    uint32_t g, servers, chunk, width;
    uint32_t* in;  /* per rank: the sends into it (width slots) */
    uint32_t* nin; /* per rank: how many */
} collnet;

/* a send a -> b of [offset, offset + length) at the step after its latest dep; its id
 * joins b's sends in */
static tn_status
collnet_send(collnet* t,
             uint32_t a,
             uint32_t b,
             tn_slice sl,
             tn_op op,
             uint32_t ndeps,
             tn_error* err)
{
    const uint32_t* deps = t->in + (size_t)a * t->width;
    uint32_t step = 0, id;
    for (uint32_t k = 0; k < ndeps; k++)
    {
        uint32_t st = tn_schedule_transfer(t->s, deps[k])->step + 1;
        step = st > step ? st : step;
    }
    tn_status st = tn_algo_add(t->s,
                               a,
                               b,
                               sl.offset,
                               sl.offset,
                               sl.length,
                               op,
                               step,
                               tn_algo_rank_dim(t->topo, a, b),
                               t->chunk,
                               deps,
                               ndeps,
                               &id,
                               err);
    if (!st)
        t->in[(size_t)b * t->width + t->nin[b]++] = id;
    return st;
}

static tn_slice
slice_at(tn_slice region, uint32_t parts, uint32_t i)
{
    tn_slice sl = tn_slice_of(region.length, parts, i);
    sl.offset += region.offset;
    return sl;
}

/* Inside each server, slice i between GPU i (its head) and the others: to the head (the
 * reduction) or from it (the copy back), every send after `after` sends in at its source. */
static tn_status
server_phase(collnet* t, tn_slice region, int to_head, tn_op op, uint32_t after, tn_error* err)
{
    uint32_t g = t->g, N = g * t->servers;
    tn_status st = TN_OK;
    for (uint32_t r = 0; r < N && !st; r++)
        for (uint32_t j = 0; j < g && !st; j++)
            if (j != r % g)
            {
                uint32_t other = r / g * g + j;
                st = collnet_send(t,
                                  to_head ? other : r,
                                  to_head ? r : other,
                                  slice_at(region, g, r % g),
                                  op,
                                  after,
                                  err);
            }
    return st;
}

/* Between the servers' heads i on the switch: part k of slice i to server k's head (the
 * switch's reduction) or from it (its multicast). */
static tn_status
switch_phase(collnet* t, tn_slice region, int to_owner, tn_op op, uint32_t after, tn_error* err)
{
    uint32_t g = t->g, S = t->servers;
    tn_status st = TN_OK;
    for (uint32_t i = 0; i < g && !st; i++)
        for (uint32_t k = 0; k < S && !st; k++)
            for (uint32_t v = 0; v < S && !st; v++)
                if (v != k)
                    st = collnet_send(t,
                                      (to_owner ? v : k) * g + i,
                                      (to_owner ? k : v) * g + i,
                                      slice_at(slice_at(region, g, i), S, k),
                                      op,
                                      after,
                                      err);
    return st;
}

static tn_status
plan_chunk(collnet* t, tn_slice region, tn_error* err)
{
    uint32_t g = t->g, S = t->servers;
    memset(t->nin, 0, (size_t)g * S * sizeof(uint32_t));
    /* each head's server sum (g - 1 sends in), the switch's reduction (S - 1 more), its
     * multicast, then the copy back inside the server */
    tn_status st = server_phase(t, region, 1, TN_OP_REDUCE, 0, err);
    if (!st)
        st = switch_phase(t, region, 1, TN_OP_REDUCE, g - 1, err);
    if (!st)
        st = switch_phase(t, region, 0, TN_OP_COPY, g - 1 + S - 1, err);
    if (!st)
        st = server_phase(t, region, 0, TN_OP_COPY, g - 1 + 2 * (S - 1), err);
    return st;
}

tn_status
tn_algo_collnet_plan(const tn_topology* topo, tn_schedule* s, uint32_t g, tn_error* err)
{
    uint32_t N = tn_schedule_ranks(s), C = tn_schedule_chunks(s);
    uint64_t bytes = tn_schedule_bytes(s);
    if (g < 1 || N % g != 0 || N / g < 2)
        return tn_error_set(err,
                            TN_EINVAL,
                            "collnet: %u ranks are not 2 servers or more of %u GPUs",
                            N,
                            g);
    collnet t;
    memset(&t, 0, sizeof(t));
    t.topo = topo;
    t.s = s;
    t.g = g;
    t.servers = N / g;
    /* a rank's sends in: g - 1 reduces, S - 1 reduces, S - 1 copies, g - 1 copies (non-head
     * GPUs of other slices) */
    t.width = 2 * (g - 1) + 2 * (t.servers - 1) + 1;
    t.in = malloc((size_t)N * t.width * sizeof(uint32_t));
    t.nin = calloc(N, sizeof(uint32_t));
    tn_status st = TN_OK;
    if (!t.in || !t.nin)
        st = tn_error_set(err, TN_ENOMEM, "collnet: out of memory");
    for (uint32_t c = 0; c < C && !st; c++)
    {
        t.chunk = c;
        st = plan_chunk(&t, tn_chunk_region(bytes, C, c), err);
    }
    free(t.in);
    free(t.nin);
    return st;
}
