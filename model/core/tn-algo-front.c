/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The per-rank dependency frontier and the helpers every phase shares (contracts in
 * tn-algorithm-impl.h).
 */
#include "tn-algorithm-impl.h"
#include "tn-array.h"

#include <stdlib.h>

tn_status
tn_front_init(tn_front* f, uint32_t ranks, tn_error* err)
{
    f->ranks = ranks;
    f->ids = calloc(ranks ? ranks : 1, sizeof(uint32_t*));
    f->count = calloc(ranks ? ranks : 1, sizeof(uint32_t));
    f->cap = calloc(ranks ? ranks : 1, sizeof(size_t));
    if (!f->ids || !f->count || !f->cap)
    {
        tn_front_free(f);
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    }
    return TN_OK;
}

void
tn_front_free(tn_front* f)
{
    if (f->ids)
    {
        for (uint32_t r = 0; r < f->ranks; r++)
        {
            free(f->ids[r]);
        }
    }
    free(f->ids);
    free(f->count);
    free(f->cap);
    f->ids = NULL;
    f->count = NULL;
    f->cap = NULL;
}

void
tn_front_clear(tn_front* f)
{
    for (uint32_t r = 0; r < f->ranks; r++)
    {
        f->count[r] = 0;
    }
}

tn_status
tn_front_push(tn_front* f, uint32_t rank, uint32_t id, tn_error* err)
{
    uint32_t* ids =
        tn_array_grow(f->ids[rank], &f->cap[rank], (size_t)f->count[rank] + 1, sizeof(*ids), 4);
    if (!ids)
    {
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    }
    f->ids[rank] = ids;
    f->ids[rank][f->count[rank]++] = id;
    return TN_OK;
}

tn_status
tn_ids_push_front(tn_ids* d, const tn_front* f, uint32_t rank, tn_error* err)
{
    for (uint32_t k = 0; k < f->count[rank]; k++)
    {
        tn_status st = tn_ids_push(d, f->ids[rank][k], err);
        if (st)
        {
            return st;
        }
    }
    return TN_OK;
}

tn_status
tn_front_carry(const tn_front* in, tn_front* out, tn_error* err)
{
    for (uint32_t r = 0; r < in->ranks; r++)
    {
        if (out->count[r] == 0)
        {
            for (uint32_t k = 0; k < in->count[r]; k++)
            {
                tn_status st = tn_front_push(out, r, in->ids[r][k], err);
                if (st)
                {
                    return st;
                }
            }
        }
    }
    return TN_OK;
}

tn_status
tn_front_copy(const tn_front* in, tn_front* out, tn_error* err)
{
    tn_front_clear(out);
    return tn_front_carry(in, out, err);
}

void
tn_front_swap(tn_front* a, tn_front* b)
{
    tn_front t = *a;
    *a = *b;
    *b = t;
}

/* ---- phase helpers shared by the ring and direct phases -------------------------- */

int32_t
tn_phase_dim(const tn_phase* ph, uint32_t a, uint32_t b)
{
    return ph->dim == TN_DIM_AUTO ? tn_algo_rank_dim(ph->topo, a, b) : ph->dim;
}

tn_status
tn_phase_keep_front(const tn_phase* ph, tn_error* err)
{
    for (uint32_t k = 0; k < ph->count; k++)
    {
        uint32_t r = ph->members[k];
        for (uint32_t i = 0; i < ph->in->count[r]; i++)
        {
            tn_status st = tn_front_push(ph->out, r, ph->in->ids[r][i], err);
            if (st)
            {
                return st;
            }
        }
    }
    return TN_OK;
}
