/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The narrowest program window with which a generated program cannot stall
 * (tn_program_min_window; the model and the consumer's rule are in tn-program.h). One walk
 * over a rank's program: it is cut into segments where the consumer always starts a stream
 * that opens at once (a send that waits for nothing, with no later op waiting for an op
 * before it); in a segment, op u's reach is how far past u the ops of its own step and the
 * next one go, and the window must cover that reach from wherever the last renewal left it.
 */
#include "tn-program-impl.h"

#include <stdlib.h>
#include <string.h>

/* An op's key: its step, or 0 for a send that waits for nothing (it may go at the start,
 * whatever step the schedule gave it). */
typedef struct step_at
{
    uint32_t key;
    uint32_t index;
} step_at;

static int
cmp_step_at(const void* a, const void* b)
{
    const step_at* x = a;
    const step_at* y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool
free_send(const tn_program_op* o)
{
    return o->send && o->dep_count == 0;
}

/* The window segment [b, e) of rp needs; keys has room for e - b entries. */
static uint64_t
segment_window(const tn_rank_program* rp, uint32_t b, uint32_t e, step_at* keys)
{
    const uint32_t n = e - b;
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_program_op* o = &rp->ops[b + i];
        keys[i].key = free_send(o) ? 0 : o->step;
        keys[i].index = b + i;
    }
    qsort(keys, n, sizeof(*keys), cmp_step_at);
    /* index = the furthest op with a key up to keys[i].key */
    for (uint32_t i = 1; i < n; i++)
        keys[i].index = keys[i].index > keys[i - 1].index ? keys[i].index : keys[i - 1].index;
    uint64_t need = 1;
    for (uint32_t u = b; u < e; u++)
    {
        const uint64_t limit = (uint64_t)rp->ops[u].step + 1;
        /* the last entry with key <= limit */
        uint32_t lo = 0, hi = n;
        while (lo < hi)
        {
            uint32_t mid = lo + (hi - lo) / 2;
            if (keys[mid].key <= limit)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0 || keys[lo - 1].index <= u)
            continue;
        const uint64_t reach = keys[lo - 1].index - u;
        /* a window renewed at f <= u, f > u - W/2, holds up to f + W - 1: W >= reach + 1 +
         * (u - f). Before the first renewal f is the segment's start; after it, W >= 2 reach
         * covers the worst f, and the next stream of a segment cut by length opens within
         * W/2 ops of its predecessor's end */
        const uint64_t lag = u - b;
        const uint64_t w = reach + 1 + lag < 2 * reach ? reach + 1 + lag : 2 * reach;
        need = w > need ? w : need;
    }
    return need;
}

/* The window rank program rp needs (ops of the whole program). */
static tn_status
rank_window(const tn_rank_program* rp, uint64_t* out, tn_error* err)
{
    const uint32_t n = rp->count;
    *out = n > 0 ? 1 : 0;
    if (n == 0)
        return TN_OK;
    uint32_t* min_dep = malloc(((size_t)n + 1) * sizeof(uint32_t));
    step_at* keys = malloc((size_t)n * sizeof(step_at));
    if (!min_dep || !keys)
    {
        free(min_dep);
        free(keys);
        return tn_error_set(err, TN_ENOMEM, "program window: out of memory (%u ops)", n);
    }
    /* the first dep of every op from i on (the consumer's stream cut, Collective::SetupProgram) */
    min_dep[n] = UINT32_MAX;
    for (uint32_t i = n; i-- > 0;)
    {
        uint32_t c = 0;
        const uint32_t* d = tn_rank_program_deps(rp, i, &c);
        min_dep[i] = c > 0 && d[0] < min_dep[i + 1] ? d[0] : min_dep[i + 1];
    }
    uint32_t b = 0;
    for (uint32_t i = 1; i <= n; i++)
    {
        if (i < n && !(free_send(&rp->ops[i]) && min_dep[i] >= i))
            continue;
        const uint64_t w = segment_window(rp, b, i, keys);
        *out = w > *out ? w : *out;
        b = i;
    }
    free(min_dep);
    free(keys);
    return TN_OK;
}

/* The ranks whose programs are walked: all of them up to 1,024 (rhd's, dbt's and swing's ranks
 * differ: rhd's extra ranks fold into the others, dbt's sit at other places in their trees);
 * beyond, ranks 0 to 3, N/2, N-2 and N-1, rhd's ranks around its last extra one and the ring
 * neighbours of the root (a chain's ends and its first members): the rings, direct, ring2d and
 * hierarchical give every rank the same pattern of steps, dependencies and directions, and rhd
 * and swing their ranks of one class. An rhd rank costs O(N) (its blocks), so every rank of a
 * large group would cost O(N^2). */
#define TN_WINDOW_ALL_RANKS 1024

static uint32_t
walked_ranks(const tn_program* p, uint32_t* some, bool* all)
{
    const uint32_t N = p->N;
    *all = N <= TN_WINDOW_ALL_RANKS;
    if (*all)
        return N;
    uint32_t n = 0;
    const uint32_t fixed[] = {0, 1, 2, 3, N / 2, N - 2, N - 1};
    for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
        some[n++] = fixed[k];
    uint32_t pow2 = 1;
    while (pow2 * 2 <= N)
        pow2 *= 2;
    const uint32_t extra = N - pow2;
    for (uint32_t k = 0; k < 3 && extra > 0; k++)
        some[n++] = (2 * extra + N - 1 + k) % N; /* 2e - 1, 2e, 2e + 1 */
    if (p->order)
    {
        const uint32_t at = p->pos_of[p->root];
        for (uint32_t k = 0; k < 5; k++)
            some[n++] = p->order[(at + N - 2 + k) % N];
    }
    return n;
}

tn_status
tn_program_min_window(const tn_program* p, uint32_t* out, tn_error* err)
{
    *out = 0;
    uint32_t some[16];
    bool all = false;
    const uint32_t count = walked_ranks(p, some, &all);
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    uint64_t need = 0;
    tn_status st = TN_OK;
    for (uint32_t i = 0; i < count && !st; i++)
    {
        uint64_t w = 0;
        st = tn_program_rank(p, all ? i : some[i], &rp, err);
        if (!st)
            st = rank_window(&rp, &w, err);
        need = w > need ? w : need;
    }
    tn_rank_program_free(&rp);
    if (st)
        return st;
    /* a window is counted in uint32_t ops (ProgramWindow); a rank's program fits one */
    *out = need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
    return TN_OK;
}
