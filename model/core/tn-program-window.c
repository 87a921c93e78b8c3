/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The narrowest program window with which a generated program cannot stall
 * (tn_program_min_window; the model and the consumer's rule are in tn-program-window.h). One walk
 * over a rank's program: it is cut into segments where the consumer always starts a stream
 * that opens at once (a send that waits for nothing, with no later op waiting for an op
 * before it); in a segment, op u's reach is how far past u the ops that may start while u is
 * not done go, and the window must cover that reach from wherever its last renewal left it,
 * and open the next stream in time where the consumer may cut one within the reach.
 */
#include "tn-program-window.h"

#include "tn-program-impl.h"

#include <stdlib.h>
#include <string.h>

static bool
free_send(const tn_program_op* o)
{
    return o->send && o->dep_count == 0;
}

/* keys[0 .. n): an op as its key (a step) << 32 | its index. Sort them and turn each index into
 * the furthest one with a key up to its own. */
static void
furthest_by_key(uint64_t* keys, uint32_t n)
{
    qsort(keys, n, sizeof(*keys), tn_cmp_u64);
    for (uint32_t i = 1; i < n; i++)
        if ((uint32_t)keys[i] < (uint32_t)keys[i - 1])
            keys[i] = (keys[i] & ~(uint64_t)UINT32_MAX) | (uint32_t)keys[i - 1];
}

/* The furthest index among keys[0 .. n) (furthest_by_key) with a key up to limit, or 0. */
static uint32_t
furthest_up_to(const uint64_t* keys, uint32_t n, uint64_t limit)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((keys[mid] >> 32) <= limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 ? (uint32_t)keys[lo - 1] : 0;
}

/* The window segment [b, e) of rp needs. all has room for e - b entries; cut[i]: the consumer
 * may start a stream at op i by length (no op from i on waits for one before). */
static uint64_t
segment_window(const tn_rank_program* rp, uint32_t b, uint32_t e, const uint8_t* cut, uint64_t* all)
{
    /* every op by its step; a send that waits for nothing by 0: it may go at the start,
     * whatever step it has */
    uint32_t na = 0;
    for (uint32_t i = b; i < e; i++)
    {
        const tn_program_op* o = &rp->ops[i];
        all[na++] = (uint64_t)(free_send(o) ? 0 : o->step) << 32 | i;
    }
    furthest_by_key(all, na);
    uint64_t need = 1;
    uint32_t next_cut = e; /* the first op after u where a stream may be cut */
    for (uint32_t u = e; u-- > b;)
    {
        /* while u (step t) is not done, the ops of steps up to t + 1 may start */
        const uint32_t last = furthest_up_to(all, na, (uint64_t)rp->ops[u].step + 1);
        if (last > u)
        {
            /* the window was renewed at f, u - f < W/2 (half of it done renews it), and
             * holds f .. f + W - 1: f + W - 1 >= u + reach. Before the first renewal f is
             * the stream's start (u - f <= lag); after it u - f <= W/2 - 1. The smallest W
             * with W - min(lag, W/2 - 1) >= reach + 1 is the smaller of reach + 1 + lag and
             * 2 reach - 1 (at least reach + 1) */
            const uint64_t reach = last - u, lag = u - b;
            const uint64_t renewed = 2 * reach - 1 > reach + 1 ? 2 * reach - 1 : reach + 1;
            const uint64_t w = reach + 1 + lag < renewed ? reach + 1 + lag : renewed;
            need = w > need ? w : need;
            /* a stream cut at next_cut <= last opens when its predecessor has W/2 ops left:
             * by then u must be within W/2 of the cut; a window wider than the ops from the
             * segment's start to the cut leaves no room for a cut there */
            if (next_cut <= last)
            {
                const uint64_t in_time = 2 * (uint64_t)(next_cut - u);
                const uint64_t no_cut = (uint64_t)(next_cut - b) + 1;
                const uint64_t c = in_time < no_cut ? in_time : no_cut;
                need = c > need ? c : need;
            }
        }
        if (cut[u] && u > b)
            next_cut = u;
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
    uint8_t* cut = malloc((size_t)n);
    uint64_t* all = malloc((size_t)n * sizeof(uint64_t));
    if (!cut || !all)
    {
        free(cut);
        free(all);
        return tn_error_set(err, TN_ENOMEM, "program window: out of memory (%u ops)", n);
    }
    /* the consumer's stream cuts (Collective::SetupProgram): at i when no op from i on waits
     * for an op before i, always at a send that waits for nothing (a segment here), otherwise
     * once the stream has a window of ops */
    uint32_t min_dep = UINT32_MAX;
    for (uint32_t i = n; i-- > 0;)
    {
        uint32_t c = 0;
        const uint32_t* d = tn_rank_program_deps(rp, i, &c);
        min_dep = c > 0 && d[0] < min_dep ? d[0] : min_dep;
        cut[i] = min_dep >= i;
    }
    uint32_t b = 0;
    for (uint32_t i = 1; i <= n; i++)
    {
        if (i < n && !(free_send(&rp->ops[i]) && cut[i]))
            continue;
        const uint64_t w = segment_window(rp, b, i, cut, all);
        *out = w > *out ? w : *out;
        b = i;
    }
    free(cut);
    free(all);
    return TN_OK;
}

/* The ranks whose programs are walked: every rank of a small group, and of rhd, dbt and swing
 * up to 1,024 ranks (their ranks differ: rhd's extra ranks fold into others, dbt's sit at other
 * places in their trees; an rhd rank costs O(N), so all of a large group would cost O(N^2));
 * otherwise ranks 0 to 3, N/2, N-2 and N-1, rhd's ranks around its last extra one and the ring
 * neighbours of the root (a chain's ends and its first members): the rings, direct, ring2d and
 * hierarchical give every rank the same pattern of steps, dependencies and directions, and rhd
 * and swing their ranks of one class. */
#define TN_WINDOW_ALL_RANKS 64
#define TN_WINDOW_ALL_RANKS_UNEVEN 1024

static uint32_t
walked_ranks(const tn_program* p, uint32_t* some, bool* all)
{
    const uint32_t N = p->N;
    const bool uneven = p->kind == TN_GENERATOR_RHD || p->kind == TN_GENERATOR_DBT ||
                        p->kind == TN_GENERATOR_SWING || p->kind == TN_GENERATOR_SWING_TORUS;
    *all = N <= (uneven ? TN_WINDOW_ALL_RANKS_UNEVEN : TN_WINDOW_ALL_RANKS);
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

uint64_t
tn_program_window_ops(const tn_program* p, uint32_t window)
{
    if (window == 0)
    {
        return 2 * tn_program_transfers(p, NULL);
    }
    const uint64_t per_rank = tn_program_max_ops(p);
    return (uint64_t)tn_program_ranks(p) * (per_rank < window ? per_rank : window);
}

uint32_t
tn_program_window_width(uint32_t least, uint32_t floor, uint32_t margin)
{
    uint64_t width = (uint64_t)margin * least;
    width = width > floor ? width : floor;
    return (uint32_t)(width < UINT32_MAX ? width : UINT32_MAX);
}
