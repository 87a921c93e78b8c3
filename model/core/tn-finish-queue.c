/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fluid engine's finish times in sorted runs (contract in tn-finish-queue.h).
 */
#include "tn-finish-queue.h"

#include "tn-array.h"

#include <stdlib.h>
#include <string.h>

static bool
finish_less(const tn_finish* a, const tn_finish* b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return a->tag != b->tag ? a->tag < b->tag : a->id < b->id;
}

static int
finish_cmp(const void* a, const void* b)
{
    return finish_less(a, b) ? -1 : finish_less(b, a) ? 1 : 0;
}

static const tn_finish*
first_of(const tn_finish_queue* q, uint32_t run)
{
    const tn_finish_run* r = &q->runs[run];
    return &r->v[r->head];
}

static bool
run_less(const tn_finish_queue* q, uint32_t a, uint32_t b)
{
    return finish_less(first_of(q, a), first_of(q, b));
}

static void
heap_up(tn_finish_queue* q, size_t i)
{
    const uint32_t run = q->heap[i];
    while (i > 0 && run_less(q, run, q->heap[(i - 1) / 2]))
    {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = run;
}

static void
heap_down(tn_finish_queue* q, size_t i)
{
    const uint32_t run = q->heap[i];
    for (;;)
    {
        size_t l = 2 * i + 1, m = l;
        if (l >= q->heap_n)
            break;
        if (l + 1 < q->heap_n && run_less(q, q->heap[l + 1], q->heap[l]))
            m = l + 1;
        if (!run_less(q, q->heap[m], run))
            break;
        q->heap[i] = q->heap[m];
        i = m;
    }
    q->heap[i] = run;
}

/* run becomes empty and spare (room was made for it when it was created) */
static void
give_back(tn_finish_queue* q, uint32_t run)
{
    q->runs[run].head = 0;
    q->runs[run].n = 0;
    q->spare[q->spare_n++] = run;
}

bool
tn_finish_queue_add(tn_finish_queue* q, tn_finish e)
{
    if (q->open == 0 && q->spare_n > 0)
        q->open = q->spare[--q->spare_n] + 1;
    else if (q->open == 0)
    {
        /* a new run: room for it in the runs, the heap and the spares, so that sealing and
         * giving back never allocate */
        const size_t need = q->run_count + 1;
        tn_finish_run* runs = tn_array_grow(q->runs, &q->run_cap, need, sizeof(*runs), 8);
        if (!runs)
            return false;
        q->runs = runs;
        uint32_t* heap = tn_array_grow(q->heap, &q->heap_cap, need, sizeof(*heap), 8);
        if (!heap)
            return false;
        q->heap = heap;
        uint32_t* spare = tn_array_grow(q->spare, &q->spare_cap, need, sizeof(*spare), 8);
        if (!spare)
            return false;
        q->spare = spare;
        q->runs[q->run_count] = (tn_finish_run){0};
        q->open = (uint32_t)++q->run_count;
    }
    tn_finish_run* r = &q->runs[q->open - 1];
    if (r->n == r->cap)
    {
        tn_finish* v = tn_array_grow(r->v, &r->cap, r->n + 1, sizeof(*v), 64);
        if (!v)
            return false;
        r->v = v;
    }
    r->v[r->n++] = e;
    return true;
}

static uint64_t
tag_and_id(const tn_finish* e)
{
    return (uint64_t)e->tag << 32 | e->id;
}

/* A batch of one time, by (tag, id): a least significant digit radix sort over the bytes of
 * that key which differ between its entries (a step's flow slots: two or three bytes) */
static bool
sort_one_time(tn_finish_queue* q, tn_finish_run* r)
{
    tn_finish* scratch = tn_array_grow(q->scratch, &q->scratch_cap, r->n, sizeof(*scratch), 64);
    if (!scratch)
        return false;
    q->scratch = scratch;
    const uint64_t first = tag_and_id(&r->v[0]);
    uint64_t differ = 0;
    for (size_t k = 1; k < r->n; k++)
        differ |= tag_and_id(&r->v[k]) ^ first;
    tn_finish* from = r->v;
    tn_finish* to = scratch;
    for (unsigned shift = 0; shift < 64; shift += 8)
    {
        if (((differ >> shift) & 0xff) == 0)
            continue;
        size_t at[257] = {0};
        for (size_t k = 0; k < r->n; k++)
            at[((tag_and_id(&from[k]) >> shift) & 0xff) + 1]++;
        for (size_t d = 1; d < 257; d++)
            at[d] += at[d - 1];
        for (size_t k = 0; k < r->n; k++)
            to[at[(tag_and_id(&from[k]) >> shift) & 0xff]++] = from[k];
        tn_finish* t = from;
        from = to;
        to = t;
    }
    if (from != r->v)
        memcpy(r->v, from, r->n * sizeof(*r->v));
    return true;
}

bool
tn_finish_queue_seal(tn_finish_queue* q)
{
    if (q->open == 0)
        return true;
    const uint32_t run = q->open - 1;
    q->open = 0;
    tn_finish_run* r = &q->runs[run];
    if (r->n == 0)
    {
        give_back(q, run);
        return true;
    }
    bool sorted = true;
    bool one_time = true;
    for (size_t k = 1; k < r->n; k++)
    {
        sorted = sorted && !finish_less(&r->v[k], &r->v[k - 1]);
        one_time = one_time && r->v[k].time == r->v[0].time;
    }
    if (!sorted && one_time)
    {
        if (!sort_one_time(q, r))
        {
            q->open = run + 1; /* still open, as it was */
            return false;
        }
    }
    else if (!sorted)
        qsort(r->v, r->n, sizeof(*r->v), finish_cmp);
    q->entries += r->n;
    q->heap[q->heap_n++] = run;
    heap_up(q, q->heap_n - 1);
    return true;
}

const tn_finish*
tn_finish_queue_top(const tn_finish_queue* q)
{
    return q->heap_n > 0 ? first_of(q, q->heap[0]) : NULL;
}

void
tn_finish_queue_pop(tn_finish_queue* q)
{
    const uint32_t run = q->heap[0];
    tn_finish_run* r = &q->runs[run];
    q->entries--;
    if (++r->head < r->n)
    {
        heap_down(q, 0);
        return;
    }
    give_back(q, run);
    q->heap[0] = q->heap[--q->heap_n];
    if (q->heap_n > 0)
        heap_down(q, 0);
}

void
tn_finish_queue_filter(tn_finish_queue* q,
                       bool (*keep)(const tn_finish* e, const void* ctx),
                       const void* ctx)
{
    size_t runs = 0;
    q->entries = 0;
    for (size_t h = 0; h < q->heap_n; h++)
    {
        tn_finish_run* r = &q->runs[q->heap[h]];
        size_t kept = 0;
        for (size_t k = r->head; k < r->n; k++)
        {
            if (keep(&r->v[k], ctx))
                r->v[kept++] = r->v[k];
        }
        r->head = 0;
        r->n = kept;
        if (kept == 0)
            give_back(q, q->heap[h]);
        else
        {
            q->entries += kept;
            q->heap[runs++] = q->heap[h];
        }
    }
    q->heap_n = runs;
    for (size_t p = q->heap_n / 2; p-- > 0;)
        heap_down(q, p);
}

void
tn_finish_queue_free(tn_finish_queue* q)
{
    for (size_t k = 0; k < q->run_count; k++)
        free(q->runs[k].v);
    free(q->runs);
    free(q->heap);
    free(q->spare);
    free(q->scratch);
    *q = (tn_finish_queue){0};
}
