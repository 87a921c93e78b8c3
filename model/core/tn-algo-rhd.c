/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Recursive halving-doubling (Thakur, Rabenseifner & Gropp, "Optimization of
 * collective communication operations in MPICH", IJHPCA 2005): reduce-scatter by
 * recursive halving (distance p/2 first), all-gather by recursive doubling, all-reduce
 * = both. Any N: with p the largest power of two <= N and e = N - p, ranks 2i+1
 * (i < e) first fold their data into rank 2i, the p remaining ranks run the power of
 * two algorithm (active id i <-> rank 2i for i < e, rank i + e otherwise; id i owns the
 * blocks of its rank(s), a contiguous block range), then 2i hands rank 2i+1 its result.
 */
#include "tn-algorithm-impl.h"

#include <stdlib.h>

typedef struct rhd
{
    const tn_topology* topo;
    tn_schedule* s;
    tn_collective coll;
    uint32_t N, p, e, chunk;
    tn_slice* blocks;
    tn_ids* last; /* per active id: transfers received in the previous step */
    tn_ids* next;
} rhd;

static uint32_t
id_rank(const rhd* h, uint32_t i)
{
    return i < h->e ? 2 * i : i + h->e;
}

static uint32_t
id_lo(const rhd* h, uint32_t i)
{
    return i < h->e ? 2 * i : i + h->e;
}

static uint32_t
id_hi(const rhd* h, uint32_t i)
{
    return i < h->e ? 2 * i + 2 : i + h->e + 1;
}

/* Send blocks [blo, bhi) from rank a to rank b, merging contiguous blocks; ids to out. */
static tn_status
send_blocks(rhd* h,
            uint32_t a,
            uint32_t b,
            uint32_t blo,
            uint32_t bhi,
            tn_op op,
            uint32_t step,
            const tn_ids* deps,
            tn_ids* out,
            tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t k = blo;
    while (k < bhi && !st)
    {
        uint64_t off = h->blocks[k].offset;
        uint64_t end = off + h->blocks[k].length;
        uint32_t j = k + 1;
        while (j < bhi && h->blocks[j].offset == end)
        {
            end += h->blocks[j].length;
            j++;
        }
        uint32_t id;
        st = tn_algo_add(h->s,
                         a,
                         b,
                         off,
                         off,
                         end - off,
                         op,
                         step,
                         tn_algo_rank_dim(h->topo, a, b),
                         h->chunk,
                         deps ? deps->ids : NULL,
                         deps ? deps->n : 0,
                         &id,
                         err);
        if (!st && out)
            st = tn_ids_push(out, id, err);
        k = j;
    }
    return st;
}

static void
rotate(rhd* h)
{
    tn_ids* t = h->last;
    h->last = h->next;
    h->next = t;
    for (uint32_t i = 0; i < h->p; i++)
        h->next[i].n = 0;
}

static tn_status
exchange(rhd* h,
         uint32_t i,
         uint32_t j,
         uint32_t blo,
         uint32_t bhi,
         tn_op op,
         uint32_t step,
         tn_error* err)
{
    tn_ids deps = {NULL, 0, 0};
    tn_status st = TN_OK;
    for (uint32_t k = 0; k < h->last[i].n && !st; k++)
        st = tn_ids_push(&deps, h->last[i].ids[k], err);
    for (uint32_t k = 0; k < h->last[j].n && !st; k++)
        st = tn_ids_push(&deps, h->last[j].ids[k], err);
    if (!st)
        st = send_blocks(h,
                         id_rank(h, i),
                         id_rank(h, j),
                         blo,
                         bhi,
                         op,
                         step,
                         &deps,
                         &h->next[j],
                         err);
    tn_ids_free(&deps);
    return st;
}

static tn_status
rhd_chunk(rhd* h, tn_error* err)
{
    tn_status st = TN_OK;
    uint32_t step = 0;
    bool reduce = h->coll != TN_COLL_ALL_GATHER;
    /* fold */
    if (h->e > 0)
    {
        for (uint32_t i = 0; i < h->e && !st; i++)
        {
            if (reduce)
                st = send_blocks(h,
                                 2 * i + 1,
                                 2 * i,
                                 0,
                                 h->N,
                                 TN_OP_REDUCE,
                                 step,
                                 NULL,
                                 &h->next[i],
                                 err);
            else
                st = send_blocks(h,
                                 2 * i + 1,
                                 2 * i,
                                 2 * i + 1,
                                 2 * i + 2,
                                 TN_OP_COPY,
                                 step,
                                 NULL,
                                 &h->next[i],
                                 err);
        }
        rotate(h);
        step++;
    }
    /* recursive halving */
    if (reduce)
    {
        for (uint32_t mask = h->p / 2; mask >= 1 && !st; mask /= 2)
        {
            for (uint32_t i = 0; i < h->p && !st; i++)
            {
                uint32_t j = i ^ mask;
                uint32_t g = j & ~(mask - 1); /* j's half: ids [g, g+mask) */
                st =
                    exchange(h, i, j, id_lo(h, g), id_hi(h, g + mask - 1), TN_OP_REDUCE, step, err);
            }
            rotate(h);
            step++;
        }
    }
    /* recursive doubling */
    if (h->coll != TN_COLL_REDUCE_SCATTER)
    {
        for (uint32_t mask = 1; mask < h->p && !st; mask *= 2)
        {
            for (uint32_t i = 0; i < h->p && !st; i++)
            {
                uint32_t j = i ^ mask;
                uint32_t g = i & ~(mask - 1); /* i's range: ids [g, g+mask) */
                st = exchange(h, i, j, id_lo(h, g), id_hi(h, g + mask - 1), TN_OP_COPY, step, err);
            }
            rotate(h);
            step++;
        }
    }
    /* unfold */
    for (uint32_t i = 0; i < h->e && !st; i++)
    {
        uint32_t a = 2 * i, b = 2 * i + 1;
        if (h->coll == TN_COLL_REDUCE_SCATTER)
            st = send_blocks(h, a, b, b, b + 1, TN_OP_COPY, step, &h->last[i], NULL, err);
        else if (h->coll == TN_COLL_ALL_REDUCE)
            st = send_blocks(h, a, b, 0, h->N, TN_OP_COPY, step, &h->last[i], NULL, err);
        else
        {
            st = send_blocks(h, a, b, 0, b, TN_OP_COPY, step, &h->last[i], NULL, err);
            if (!st && b + 1 < h->N)
                st = send_blocks(h, a, b, b + 1, h->N, TN_OP_COPY, step, &h->last[i], NULL, err);
        }
    }
    return st;
}

tn_status
tn_algo_rhd_plan(const tn_topology* topo,
                 const tn_plan_request* request,
                 tn_schedule* s,
                 tn_error* err)
{
    (void)request;
    rhd h;
    h.topo = topo;
    h.s = s;
    h.coll = tn_schedule_collective(s);
    h.N = tn_schedule_ranks(s);
    h.p = 1;
    while (h.p * 2 <= h.N)
        h.p *= 2;
    h.e = h.N - h.p;
    uint32_t C = tn_schedule_chunks(s);
    uint64_t S = tn_schedule_bytes(s);
    if (h.N < 2)
        return TN_OK;
    h.blocks = malloc((size_t)h.N * sizeof(tn_slice));
    h.last = calloc(h.p, sizeof(tn_ids));
    h.next = calloc(h.p, sizeof(tn_ids));
    tn_status st = TN_OK;
    if (!h.blocks || !h.last || !h.next)
        st = tn_error_set(err, TN_ENOMEM, "rhd: out of memory");
    for (uint32_t c = 0; c < C && !st; c++)
    {
        h.chunk = c;
        for (uint32_t b = 0; b < h.N; b++)
            h.blocks[b] = tn_chunk_block(h.coll, S, h.N, C, c, b);
        for (uint32_t i = 0; i < h.p; i++)
            h.last[i].n = h.next[i].n = 0;
        st = rhd_chunk(&h, err);
    }
    for (uint32_t i = 0; h.last && h.next && i < h.p; i++)
    {
        tn_ids_free(&h.last[i]);
        tn_ids_free(&h.next[i]);
    }
    free(h.blocks);
    free(h.last);
    free(h.next);
    return st;
}
