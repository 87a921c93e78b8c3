/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Symbolic execution of schedules and contention report (contract in tn-verify.h).
 *
 * Over 1,000 lines for a reason: the symbolic executor (interval maps per rank, the
 * ancestor search, the postcondition check) is one algorithm whose private state the
 * contention sweep reuses; splitting it would publish that state in a private header.
 * Transfer paths, which others need too, are in tn-path.c.
 */
#include "tn-verify.h"

#include "tn-array.h"
#include "tn-path.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- contribution sets: refcounted sorted runs [lo, hi) of rank ids -------------- */

typedef struct vset
{
    uint32_t refs;
    uint32_t nruns;
    uint32_t runs[]; /* 2*nruns: lo0, hi0, lo1, hi1, ... */
} vset;

static vset*
vset_alloc(uint32_t nruns)
{
    vset* v = malloc(sizeof(vset) + 2 * (size_t)nruns * sizeof(uint32_t));
    if (v)
    {
        v->refs = 1;
        v->nruns = nruns;
    }
    return v;
}

static vset*
vset_range(uint32_t lo, uint32_t hi)
{
    vset* v = vset_alloc(1);
    if (v)
    {
        v->runs[0] = lo;
        v->runs[1] = hi;
    }
    return v;
}

static vset*
vset_ref(vset* v)
{
    if (v)
    {
        v->refs++;
    }
    return v;
}

static void
vset_unref(vset* v)
{
    if (v && --v->refs == 0)
    {
        free(v);
    }
}

static bool
vset_equal(const vset* a, const vset* b)
{
    if (a == b)
    {
        return true;
    }
    if (!a || !b || a->nruns != b->nruns)
    {
        return false;
    }
    return memcmp(a->runs, b->runs, 2 * (size_t)a->nruns * sizeof(uint32_t)) == 0;
}

/*
 * Union of disjoint sets. Returns the union, or NULL with *overlap set to the first
 * common rank when they intersect (or with *overlap = UINT32_MAX on no memory).
 */
static vset*
vset_union(const vset* a, const vset* b, uint32_t* overlap)
{
    vset* u = vset_alloc(a->nruns + b->nruns);
    if (!u)
    {
        *overlap = UINT32_MAX;
        return NULL;
    }
    uint32_t i = 0, j = 0, n = 0;
    while (i < a->nruns || j < b->nruns)
    {
        uint32_t lo, hi;
        if (j >= b->nruns || (i < a->nruns && a->runs[2 * i] < b->runs[2 * j]))
        {
            lo = a->runs[2 * i];
            hi = a->runs[2 * i + 1];
            i++;
        }
        else
        {
            lo = b->runs[2 * j];
            hi = b->runs[2 * j + 1];
            j++;
        }
        if (n > 0 && lo < u->runs[2 * n - 1])
        {
            *overlap = lo;
            free(u);
            return NULL;
        }
        if (n > 0 && lo == u->runs[2 * n - 1])
        {
            u->runs[2 * n - 1] = hi;
        }
        else
        {
            u->runs[2 * n] = lo;
            u->runs[2 * n + 1] = hi;
            n++;
        }
    }
    u->nruns = n;
    return u;
}

static void
vset_format(const vset* v, char* buf, size_t size)
{
    size_t used = 0;
    if (!v)
    {
        snprintf(buf, size, "no data");
        return;
    }
    used += (size_t)snprintf(buf, size, "{");
    for (uint32_t i = 0; i < v->nruns && used < size; i++)
    {
        uint32_t lo = v->runs[2 * i], hi = v->runs[2 * i + 1] - 1;
        if (i >= 8)
        {
            used += (size_t)snprintf(buf + used, size - used, ",...");
            break;
        }
        if (lo == hi)
        {
            used += (size_t)snprintf(buf + used, size - used, "%s%u", i ? "," : "", lo);
        }
        else
        {
            used += (size_t)snprintf(buf + used, size - used, "%s%u-%u", i ? "," : "", lo, hi);
        }
    }
    if (used < size)
    {
        snprintf(buf + used, size - used, "}");
    }
}

/* ---- interval maps ------------------------------------------------------------------- */

/* 16 bytes: two of them in every segment, and segments are moved when a map is split */
typedef struct idlist
{
    uint32_t* ids;
    uint32_t n;
    uint32_t cap;
} idlist;

static bool
idlist_push(idlist* l, uint32_t id)
{
    if (l->n > 0 && l->ids[l->n - 1] == id)
    {
        return true;
    }
    size_t cap = l->cap;
    uint32_t* ids = tn_array_grow(l->ids, &cap, (size_t)l->n + 1, sizeof(*ids), 4);
    if (!ids)
    {
        return false;
    }
    l->ids = ids;
    /* ids of transfers are 32-bit, so n stays below 2^32: a larger block counts as full */
    l->cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    l->ids[l->n++] = id;
    return true;
}

static bool
idlist_copy(idlist* dst, const idlist* src)
{
    dst->ids = NULL;
    dst->n = dst->cap = 0;
    if (src->n == 0)
    {
        return true;
    }
    dst->ids = malloc((size_t)src->n * sizeof(uint32_t));
    if (!dst->ids)
    {
        return false;
    }
    memcpy(dst->ids, src->ids, (size_t)src->n * sizeof(uint32_t));
    dst->n = dst->cap = src->n;
    return true;
}

typedef struct seg
{
    vset* set;       /* NULL = no data */
    int64_t shift;   /* origin address - current address */
    uint32_t writer; /* last copy writer, TN_TRANSFER_NONE = initial state */
    idlist red;      /* reduces since the last copy */
    idlist rd;       /* readers since the last copy */
} seg;

/*
 * A rank's buffer as segments in address order: starts[i] is where segs[i] begins. The
 * starts are an array of their own so that the binary search of rmap_find reads 8 bytes a
 * probe, not a whole segment (at 1024 NPUs the maps no longer fit the caches).
 */
typedef struct rmap
{
    uint64_t* starts;
    seg* segs;
    uint32_t n;
    size_t cap;
    size_t starts_cap;
    uint64_t end;
} rmap;

/* index of the segment containing off (off < end) */
static uint32_t
rmap_find(const rmap* m, uint64_t off)
{
    uint32_t lo = 0, hi = m->n; /* starts[lo] <= off < starts[hi] */
    while (hi - lo > 1)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->starts[mid] <= off)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    return lo;
}

static uint64_t
seg_end(const rmap* m, uint32_t i)
{
    return i + 1 < m->n ? m->starts[i + 1] : m->end;
}

/* A copy of a segment for a split: the set is shared, the id lists copied. 0 when memory ran
 * out (nothing to free then). */
static int
seg_copy(const seg* from, seg* copy)
{
    *copy = *from;
    if (!idlist_copy(&copy->red, &from->red))
    {
        return 0;
    }
    if (!idlist_copy(&copy->rd, &from->rd))
    {
        free(copy->red.ids);
        return 0;
    }
    vset_ref(copy->set);
    return 1;
}

static void
seg_release(seg* g)
{
    vset_unref(g->set);
    free(g->red.ids);
    free(g->rd.ids);
}

/* Make a segment start at off; returns its index (m->n when off >= end); UINT32_MAX = ENOMEM */
static uint32_t
rmap_split(rmap* m, uint64_t off)
{
    if (off >= m->end)
    {
        return m->n;
    }
    uint32_t i = rmap_find(m, off);
    if (m->starts[i] == off)
    {
        return i;
    }
    seg* segs = tn_array_grow(m->segs, &m->cap, (size_t)m->n + 1, sizeof(*segs), 8);
    if (!segs)
    {
        return UINT32_MAX;
    }
    m->segs = segs;
    uint64_t* starts =
        tn_array_grow(m->starts, &m->starts_cap, (size_t)m->n + 1, sizeof(*starts), 8);
    if (!starts)
    {
        return UINT32_MAX;
    }
    m->starts = starts;
    seg copy;
    if (!seg_copy(&m->segs[i], &copy))
    {
        return UINT32_MAX;
    }
    memmove(&m->segs[i + 2], &m->segs[i + 1], (size_t)(m->n - i - 1) * sizeof(seg));
    memmove(&m->starts[i + 2], &m->starts[i + 1], (size_t)(m->n - i - 1) * sizeof(uint64_t));
    m->segs[i + 1] = copy;
    m->starts[i + 1] = off;
    m->n++;
    return i + 1;
}

/*
 * Make a segment start at each of from[0 .. count) + delta (ascending, as a map's starts are)
 * that lies in the map, in one pass: a transfer carries its source's boundaries into its
 * destination all at once, and one split at a time moved the tail of the arrays for each
 * (ring2d's all-gather carries a chunk's sub-chunk boundaries: the cost grew with the square
 * of the segments). The new segments are made before anything moves, so the map is unchanged
 * when memory runs out (0).
 */
static int
rmap_split_many(rmap* m, const uint64_t* from, uint32_t count, uint64_t delta)
{
    uint32_t fresh = 0;
    for (uint32_t j = 0, i = 0; j < count; j++)
    {
        uint64_t off = from[j] + delta;
        if (off >= m->end)
        {
            break;
        }
        i = j == 0 ? rmap_find(m, off) : i;
        while (seg_end(m, i) <= off)
        {
            i++;
        }
        fresh += m->starts[i] != off;
    }
    if (fresh == 0)
    {
        return 1;
    }
    seg* made = malloc((size_t)fresh * sizeof(seg));
    uint64_t* made_at = malloc((size_t)fresh * sizeof(uint64_t));
    seg* segs = made && made_at
                    ? tn_array_grow(m->segs, &m->cap, (size_t)m->n + fresh, sizeof(*segs), 8)
                    : NULL;
    if (segs)
    {
        m->segs = segs;
    }
    uint64_t* starts =
        segs ? tn_array_grow(m->starts, &m->starts_cap, (size_t)m->n + fresh, sizeof(*starts), 8)
             : NULL;
    if (starts)
    {
        m->starts = starts;
    }
    uint32_t k = 0;
    for (uint32_t j = 0, i = 0; starts && j < count && k < fresh; j++)
    {
        uint64_t off = from[j] + delta;
        i = j == 0 ? rmap_find(m, off) : i;
        while (seg_end(m, i) <= off)
        {
            i++;
        }
        if (m->starts[i] != off)
        {
            if (!seg_copy(&m->segs[i], &made[k]))
            {
                break;
            }
            made_at[k++] = off;
        }
    }
    if (k < fresh)
    {
        while (k > 0)
        {
            seg_release(&made[--k]);
        }
        free(made);
        free(made_at);
        return 0;
    }
    /* merge from the back: each new segment follows the old one it was cut from */
    uint32_t w = m->n + fresh, i = m->n;
    while (k > 0)
    {
        w--;
        if (made_at[k - 1] > m->starts[i - 1])
        {
            k--;
            m->segs[w] = made[k];
            m->starts[w] = made_at[k];
        }
        else
        {
            i--;
            m->segs[w] = m->segs[i];
            m->starts[w] = m->starts[i];
        }
    }
    m->n += fresh;
    free(made);
    free(made_at);
    return 1;
}

static void
rmap_free(rmap* m)
{
    for (uint32_t i = 0; i < m->n; i++)
    {
        seg_release(&m->segs[i]);
    }
    free(m->segs);
    free(m->starts);
    m->segs = NULL;
    m->starts = NULL;
    m->n = m->cap = m->starts_cap = 0;
}

/* Set [lo, hi) of map to value (set referenced, shift); writer initial. */
static bool
rmap_assign(rmap* m, uint64_t lo, uint64_t hi, vset* set, int64_t shift)
{
    if (lo >= hi)
    {
        return true;
    }
    uint32_t a = rmap_split(m, lo);
    if (a == UINT32_MAX)
    {
        return false;
    }
    uint32_t b = rmap_split(m, hi);
    if (b == UINT32_MAX)
    {
        return false;
    }
    for (uint32_t i = a; i < b; i++)
    {
        vset_unref(m->segs[i].set);
        m->segs[i].set = vset_ref(set);
        m->segs[i].shift = shift;
    }
    return true;
}

/* ---- verifier state ------------------------------------------------------------------ */

typedef struct vstate
{
    const tn_schedule* s;
    uint32_t ranks;
    rmap* maps;
    uint32_t* pos;   /* topological position of each transfer */
    uint32_t* mark;  /* "needed ancestor" stamp */
    uint32_t* seen;  /* backward search: visited stamp */
    uint32_t* queue; /* backward search queue */
    uint32_t* fseen; /* forward search: visited stamp */
    uint32_t* fqueue;
    uint32_t search; /* stamp of the current search (seen, fseen) */
    uint32_t phase;  /* stamp of the current read or write check (mark) */
    uint32_t* need;  /* needed ancestor ids of the current transfer */
    uint32_t* post1; /* interval labels (two DFS orders) for the reachability cut */
    uint32_t* low1;
    uint32_t* post2;
    uint32_t* low2;
    uint32_t* tparent; /* forest: the dep with the largest topological position */
    uint32_t* tin;     /* forest Euler interval */
    uint32_t* tout;
    uint32_t* level;  /* longest path from a source */
    uint32_t* rlevel; /* longest path to a sink */
    uint32_t nneed;
    size_t need_cap;
    uint64_t segments;     /* the rank maps' segments, all ranks */
    uint64_t max_segments; /* 0 = no budget */
} vstate;

static int
cmp_u64(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a;
    uint64_t y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

/* Build every rank's map with segments at the transfers' boundaries. */
static tn_status
build_maps(vstate* st, tn_error* err)
{
    const tn_schedule* s = st->s;
    uint32_t n = tn_schedule_count(s);
    size_t* cnt = calloc((size_t)st->ranks + 1, sizeof(size_t));
    if (!cnt)
    {
        return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        cnt[t->src + 1] += 2;
        cnt[t->dst + 1] += 2;
    }
    for (uint32_t r = 0; r < st->ranks; r++)
    {
        cnt[r + 1] += cnt[r] + 1; /* +1: offset 0 */
    }
    /* recompute properly: index[r] = start of rank r's boundaries */
    size_t total = cnt[st->ranks];
    uint64_t* b = malloc((total ? total : 1) * sizeof(uint64_t));
    size_t* fill = malloc(((size_t)st->ranks + 1) * sizeof(size_t));
    if (!b || !fill)
    {
        free(cnt);
        free(b);
        free(fill);
        return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    for (uint32_t r = 0; r < st->ranks; r++)
    {
        fill[r] = cnt[r];
        b[fill[r]++] = 0;
    }
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        b[fill[t->src]++] = t->src_offset;
        b[fill[t->src]++] = t->src_offset + t->length;
        b[fill[t->dst]++] = t->dst_offset;
        b[fill[t->dst]++] = t->dst_offset + t->length;
    }
    tn_status status = TN_OK;
    for (uint32_t r = 0; r < st->ranks; r++)
    {
        uint64_t* rb = b + cnt[r];
        size_t k = cnt[r + 1] - cnt[r];
        qsort(rb, k, sizeof(uint64_t), cmp_u64);
        rmap* m = &st->maps[r];
        m->end = tn_schedule_buffer_size(s, r);
        size_t uniq = 0;
        for (size_t j = 0; j < k; j++)
        {
            if (rb[j] < m->end && (uniq == 0 || rb[uniq - 1] != rb[j]))
            {
                rb[uniq++] = rb[j];
            }
        }
        if (uniq == 0)
        {
            rb[uniq++] = 0; /* empty buffer: keep one (empty) segment */
        }
        m->segs = calloc(uniq, sizeof(seg));
        m->starts = malloc(uniq * sizeof(uint64_t));
        if (!m->segs || !m->starts)
        {
            status = tn_error_set(err, TN_ENOMEM, "verify: out of memory");
            break;
        }
        m->cap = m->starts_cap = m->n = (uint32_t)uniq;
        for (size_t j = 0; j < uniq; j++)
        {
            m->starts[j] = rb[j];
            m->segs[j].writer = TN_TRANSFER_NONE;
        }
    }
    free(cnt);
    free(b);
    free(fill);
    return status;
}

/* Precondition of the collective. */
static tn_status
init_state(vstate* st, tn_error* err)
{
    const tn_schedule* s = st->s;
    tn_collective coll = tn_schedule_collective(s);
    uint64_t S = tn_schedule_bytes(s);
    uint32_t N = st->ranks;
    uint32_t root = tn_schedule_root(s);
    for (uint32_t r = 0; r < N; r++)
    {
        vset* one = vset_range(r, r + 1);
        if (!one)
        {
            return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
        }
        bool ok = true;
        switch (coll)
        {
        case TN_COLL_ALL_REDUCE:
        case TN_COLL_REDUCE_SCATTER:
        case TN_COLL_REDUCE:
        case TN_COLL_ALL_TO_ALL:
            ok = rmap_assign(&st->maps[r], 0, S, one, 0);
            break;
        case TN_COLL_ALL_GATHER: {
            tn_slice sl = tn_slice_of(S, N, r);
            ok = rmap_assign(&st->maps[r], sl.offset, sl.offset + sl.length, one, 0);
            break;
        }
        case TN_COLL_BROADCAST:
            if (r == root)
            {
                ok = rmap_assign(&st->maps[r], 0, S, one, 0);
            }
            break;
        default:
            break;
        }
        vset_unref(one);
        if (!ok)
        {
            return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
        }
    }
    return TN_OK;
}

/*
 * Post-order numbers of a DFS over successors (roots and successors in increasing
 * id order, or decreasing when reverse) and low = min post over descendants.
 * If a reaches b then low[a] <= low[b] and post[b] <= post[a].
 */
static bool
label_dag(const tn_schedule* s, bool reverse, uint32_t* post, uint32_t* low)
{
    uint32_t n = tn_schedule_count(s);
    uint32_t* stack = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* next = calloc((size_t)n + 1, sizeof(uint32_t));
    if (!stack || !next)
    {
        free(stack);
        free(next);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
    {
        post[i] = 0;
    }
    uint32_t counter = 0;
    for (uint32_t k = 0; k < n; k++)
    {
        uint32_t root = reverse ? n - 1 - k : k;
        uint32_t nd;
        tn_schedule_deps(s, root, &nd);
        if (nd != 0 || post[root] != 0)
        {
            continue;
        }
        uint32_t top = 0;
        stack[top++] = root;
        post[root] = UINT32_MAX; /* on stack */
        while (top > 0)
        {
            uint32_t v = stack[top - 1];
            uint32_t ns;
            const uint32_t* sv = tn_schedule_succs(s, v, &ns);
            if (next[v] < ns)
            {
                uint32_t idx = next[v]++;
                uint32_t w = sv[reverse ? ns - 1 - idx : idx];
                if (post[w] == 0)
                {
                    post[w] = UINT32_MAX;
                    stack[top++] = w;
                }
            }
            else
            {
                post[v] = ++counter;
                top--;
            }
        }
    }
    const uint32_t* order = tn_schedule_topo_order(s);
    for (uint32_t k = n; k-- > 0;)
    {
        uint32_t v = order[k];
        uint32_t m = post[v];
        uint32_t ns;
        const uint32_t* sv = tn_schedule_succs(s, v, &ns);
        for (uint32_t j = 0; j < ns; j++)
        {
            if (low[sv[j]] < m)
            {
                m = low[sv[j]];
            }
        }
        low[v] = m;
    }
    free(stack);
    free(next);
    return true;
}

/*
 * Spanning forest of the DAG (parent = the latest dep that delivered data to the
 * transfer's source, else the latest dep) and its Euler intervals.
 */
static bool
build_forest(vstate* st)
{
    const tn_schedule* s = st->s;
    uint32_t n = tn_schedule_count(s);
    const uint32_t* order = tn_schedule_topo_order(s);
    uint32_t* first = malloc(((size_t)n + 1) * sizeof(uint32_t)); /* first child */
    uint32_t* sib = malloc(((size_t)n + 1) * sizeof(uint32_t));   /* next sibling */
    uint32_t* stack = malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!first || !sib || !stack)
    {
        free(first);
        free(sib);
        free(stack);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
    {
        first[i] = TN_TRANSFER_NONE;
    }
    for (uint32_t k = 0; k < n; k++)
    {
        uint32_t v = order[k];
        uint32_t nd;
        const uint32_t* dv = tn_schedule_deps(s, v, &nd);
        /* prefer the data lineage: the latest dep that delivered to v's source */
        uint32_t p = TN_TRANSFER_NONE;
        bool p_lineage = false;
        uint32_t vsrc = tn_schedule_transfer(s, v)->src;
        for (uint32_t j = 0; j < nd; j++)
        {
            bool lin = tn_schedule_transfer(s, dv[j])->dst == vsrc;
            if (p == TN_TRANSFER_NONE || (lin && !p_lineage) ||
                (lin == p_lineage && st->pos[dv[j]] > st->pos[p]))
            {
                p = dv[j];
                p_lineage = lin;
            }
        }
        st->tparent[v] = p;
    }
    for (uint32_t k = 0; k < n; k++)
    {
        uint32_t v = order[k];
        uint32_t nd;
        const uint32_t* dv = tn_schedule_deps(s, v, &nd);
        uint32_t l = 0;
        for (uint32_t j = 0; j < nd; j++)
        {
            if (st->level[dv[j]] + 1 > l)
            {
                l = st->level[dv[j]] + 1;
            }
        }
        st->level[v] = l;
    }
    for (uint32_t k = n; k-- > 0;)
    {
        uint32_t v = order[k];
        uint32_t ns;
        const uint32_t* sv = tn_schedule_succs(s, v, &ns);
        uint32_t l = 0;
        for (uint32_t j = 0; j < ns; j++)
        {
            if (st->rlevel[sv[j]] + 1 > l)
            {
                l = st->rlevel[sv[j]] + 1;
            }
        }
        st->rlevel[v] = l;
    }
    for (uint32_t k = n; k-- > 0;)
    {
        uint32_t v = order[k];
        uint32_t p = st->tparent[v];
        if (p != TN_TRANSFER_NONE)
        {
            sib[v] = first[p];
            first[p] = v;
        }
    }
    uint32_t clock = 0;
    for (uint32_t k = 0; k < n; k++)
    {
        uint32_t r = order[k];
        if (st->tparent[r] != TN_TRANSFER_NONE)
        {
            continue;
        }
        uint32_t top = 0;
        stack[top++] = r;
        st->tin[r] = clock++;
        while (top > 0)
        {
            uint32_t v = stack[top - 1];
            uint32_t c = first[v];
            if (c != TN_TRANSFER_NONE)
            {
                first[v] = sib[c]; /* consume the child */
                st->tin[c] = clock++;
                stack[top++] = c;
            }
            else
            {
                st->tout[v] = clock++;
                top--;
            }
        }
    }
    free(first);
    free(sib);
    free(stack);
    return true;
}

/* A fresh stamp for need_push (2 per transfer: ids beyond 2^31 must not wrap into old ones). */
static uint32_t
next_phase(vstate* st)
{
    if (++st->phase == 0)
    {
        memset(st->mark, 0, ((size_t)tn_schedule_count(st->s) + 1) * sizeof(uint32_t));
        st->phase = 1;
    }
    return st->phase;
}

static bool
need_push(vstate* st, uint32_t id, uint32_t stamp)
{
    if (id == TN_TRANSFER_NONE || st->mark[id] == stamp)
    {
        return true;
    }
    st->mark[id] = stamp;
    uint32_t* need =
        tn_array_grow(st->need, &st->need_cap, (size_t)st->nneed + 1, sizeof(*need), 64);
    if (!need)
    {
        return false;
    }
    st->need = need;
    st->need[st->nneed++] = id;
    return true;
}

/* Whether a may reach b (negative cut of the interval labels; exact "no" only). */
static bool
may_reach(const vstate* st, uint32_t a, uint32_t b)
{
    if (a == b)
    {
        return true;
    }
    return st->level[a] < st->level[b] && st->rlevel[a] > st->rlevel[b] &&
           st->pos[a] < st->pos[b] && st->low1[a] <= st->low1[b] && st->post1[b] <= st->post1[a] &&
           st->low2[a] <= st->low2[b] && st->post2[b] <= st->post2[a];
}

/* Whether a is a forest ancestor of b (then a reaches b). */
static bool
forest_ancestor(const vstate* st, uint32_t a, uint32_t b)
{
    return st->tin[a] <= st->tin[b] && st->tout[b] <= st->tout[a];
}

/*
 * Whether w reaches t (exact). Bidirectional breadth-first search: backward from t over
 * deps, forward from w over successors, one level of the smaller frontier at a time,
 * each side entering only transfers that can lie on a w -> t path (may_reach) and
 * stopping at a forest shortcut or where the sides meet. Dependency paths between a
 * writer and its reader are short in every algorithm's schedule, so the search stays
 * near the two ends; the former depth-first search along the forest path wandered into
 * earlier chunks and grew with the chunk count (Themis, 1000 chunks: 40 s -> 1.4 s).
 * If either side runs out of transfers, no path exists: every transfer of a path passes
 * both filters, so an exhausted side has visited the whole path, including the other end.
 */
static bool
reaches(vstate* st, uint32_t w, uint32_t t)
{
    if (w == t || forest_ancestor(st, w, t))
    {
        return true;
    }
    if (!may_reach(st, w, t))
    {
        return false;
    }
    uint32_t n = tn_schedule_count(st->s);
    if (++st->search == 0)
    {
        /* the stamps wrapped: forget every earlier search */
        memset(st->seen, 0, ((size_t)n + 1) * sizeof(uint32_t));
        memset(st->fseen, 0, ((size_t)n + 1) * sizeof(uint32_t));
        st->search = 1;
    }
    uint32_t mark = st->search;
    uint32_t bh = 0, bt = 0, fh = 0, ft = 0;
    st->queue[bt++] = t;
    st->seen[t] = mark;
    st->fqueue[ft++] = w;
    st->fseen[w] = mark;
    while (bh < bt && fh < ft)
    {
        if (bt - bh <= ft - fh)
        {
            for (uint32_t end = bt; bh < end;)
            {
                uint32_t u = st->queue[bh++];
                uint32_t nd;
                const uint32_t* dv = tn_schedule_deps(st->s, u, &nd);
                for (uint32_t k = 0; k < nd; k++)
                {
                    uint32_t d = dv[k];
                    if (st->seen[d] == mark)
                    {
                        continue;
                    }
                    if (st->fseen[d] == mark || forest_ancestor(st, w, d))
                    {
                        return true;
                    }
                    st->seen[d] = mark;
                    if (may_reach(st, w, d))
                    {
                        st->queue[bt++] = d;
                    }
                }
            }
        }
        else
        {
            for (uint32_t end = ft; fh < end;)
            {
                uint32_t u = st->fqueue[fh++];
                uint32_t ns;
                const uint32_t* sv = tn_schedule_succs(st->s, u, &ns);
                for (uint32_t k = 0; k < ns; k++)
                {
                    uint32_t x = sv[k];
                    if (st->fseen[x] == mark)
                    {
                        continue;
                    }
                    if (st->seen[x] == mark || forest_ancestor(st, x, t))
                    {
                        return true;
                    }
                    st->fseen[x] = mark;
                    if (may_reach(st, x, t))
                    {
                        st->fqueue[ft++] = x;
                    }
                }
            }
        }
    }
    return false;
}

/*
 * Check that every id in st->need is an ancestor of t; returns TN_TRANSFER_NONE if so,
 * else the first id (in need order) that is not. Direct deps are found by binary search,
 * the others by reaches().
 */
static uint32_t
check_ancestors(vstate* st, uint32_t t)
{
    uint32_t ndeps;
    const uint32_t* deps = tn_schedule_deps(st->s, t, &ndeps);
    for (uint32_t k = 0; k < st->nneed; k++)
    {
        uint32_t w = st->need[k];
        uint32_t lo = 0, hi = ndeps;
        bool direct = false;
        while (lo < hi)
        {
            uint32_t mid = lo + (hi - lo) / 2;
            if (deps[mid] == w)
            {
                direct = true;
                break;
            }
            if (deps[mid] < w)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!direct && !reaches(st, w, t))
        {
            return w;
        }
    }
    return TN_TRANSFER_NONE;
}

static bool
idlist_has(const idlist* l, uint32_t id)
{
    for (uint32_t i = 0; i < l->n; i++)
    {
        if (l->ids[i] == id)
        {
            return true;
        }
    }
    return false;
}

/* Find the range [lo,hi) of segments in [a,b) of map m where transfer w is a writer/reader. */
static void
locate(const rmap* m,
       uint32_t a,
       uint32_t b,
       uint32_t w,
       uint64_t* lo,
       uint64_t* hi,
       const char** what)
{
    for (uint32_t i = a; i < b; i++)
    {
        const seg* g = &m->segs[i];
        const char* kind = NULL;
        if (g->writer == w)
            kind = "written (copy)";
        else if (idlist_has(&g->red, w))
            kind = "reduced into";
        else if (idlist_has(&g->rd, w))
            kind = "read";
        if (kind)
        {
            *lo = m->starts[i];
            *hi = seg_end(m, i);
            *what = kind;
            return;
        }
    }
    *lo = *hi = 0;
    *what = "touched";
}

#define TFMT "transfer %u (%u->%u step %u %s)"
#define TARGS(t) (t)->id, (t)->src, (t)->dst, (t)->step, tn_op_name((t)->op)

/* Read checks: t's source segments ms->segs[a .. b) all hold data, and their writers and the
 * transfers that reduced into them are t's ancestors. */
static tn_status
check_reads(vstate* st, const tn_transfer* t, rmap* ms, uint32_t a, uint32_t b, tn_error* err)
{
    uint32_t stamp = next_phase(st); /* read checks; the write checks take the next one */
    st->nneed = 0;
    for (uint32_t i = a; i < b; i++)
    {
        seg* g = &ms->segs[i];
        if (!g->set)
        {
            return tn_error_set(err,
                                TN_EVERIFY,
                                TFMT ": rank %u [%" PRIu64 ",%" PRIu64 ") holds no data to send",
                                TARGS(t),
                                t->src,
                                ms->starts[i],
                                seg_end(ms, i));
        }
        if (!need_push(st, g->writer, stamp))
            return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
        for (uint32_t k = 0; k < g->red.n; k++)
        {
            if (!need_push(st, g->red.ids[k], stamp))
                return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
        }
    }
    uint32_t bad = check_ancestors(st, t->id);
    if (bad != TN_TRANSFER_NONE)
    {
        uint64_t lo, hi;
        const char* what;
        locate(ms, a, b, bad, &lo, &hi, &what);
        return tn_error_set(err,
                            TN_EVERIFY,
                            TFMT ": reads rank %u [%" PRIu64 ",%" PRIu64
                                 ") %s by transfer %u which is not an ancestor (missing dep)",
                            TARGS(t),
                            t->src,
                            lo,
                            hi,
                            what,
                            bad);
    }
    return TN_OK;
}

/* Splits the destination md at t's ends and at its source segments' boundaries (ms->segs[*a ..
 * *b)), so that each destination segment has one source segment; *c, *d are the destination's
 * segments, and *a, *b the source's again when a local op's splits moved them. 0 when memory
 * ran out. */
static int
split_destination(const tn_transfer* t,
                  rmap* ms,
                  rmap* md,
                  uint32_t* a,
                  uint32_t* b,
                  uint32_t* c,
                  uint32_t* d)
{
    uint64_t so = t->src_offset, doff = t->dst_offset, len = t->length;
    if (rmap_split(md, doff) == UINT32_MAX || rmap_split(md, doff + len) == UINT32_MAX)
        return 0;
    if (ms != md && *b > *a + 1 &&
        !rmap_split_many(md, ms->starts + *a + 1, *b - *a - 1, doff - so))
    {
        return 0;
    }
    /* a local op splits its own rank's map: find each source boundary by its address */
    for (uint64_t x = so; ms == md && seg_end(ms, rmap_find(ms, x)) < so + len;)
    {
        x = seg_end(ms, rmap_find(ms, x));
        if (rmap_split(md, doff + (x - so)) == UINT32_MAX)
            return 0;
    }
    *c = rmap_find(md, doff);
    *d = doff + len >= md->end ? md->n : rmap_find(md, doff + len);
    if (ms == md)
    {
        /* a local op: the splits above moved the segments of its (disjoint) source */
        *a = rmap_find(ms, so);
        *b = so + len >= ms->end ? ms->n : rmap_find(ms, so + len);
    }
    return 1;
}

/* Write checks: the writers and readers of t's destination segments md->segs[c .. d) (and,
 * unless t reduces, the transfers that reduced into them) are t's ancestors. */
static tn_status
check_writes(vstate* st, const tn_transfer* t, rmap* md, uint32_t c, uint32_t d, tn_error* err)
{
    uint32_t stamp = next_phase(st);
    st->nneed = 0;
    for (uint32_t i = c; i < d; i++)
    {
        seg* g = &md->segs[i];
        int ok = need_push(st, g->writer, stamp);
        for (uint32_t k = 0; ok && k < g->rd.n; k++)
        {
            ok = need_push(st, g->rd.ids[k], stamp);
        }
        for (uint32_t k = 0; ok && !tn_op_is_reduce(t->op) && k < g->red.n; k++)
        {
            ok = need_push(st, g->red.ids[k], stamp);
        }
        if (!ok)
            return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    uint32_t bad = check_ancestors(st, t->id);
    if (bad != TN_TRANSFER_NONE)
    {
        uint64_t lo, hi;
        const char* what;
        locate(md, c, d, bad, &lo, &hi, &what);
        return tn_error_set(err,
                            TN_EVERIFY,
                            TFMT ": writes rank %u [%" PRIu64 ",%" PRIu64
                                 ") %s by transfer %u which is not an ancestor (missing dep)",
                            TARGS(t),
                            t->dst,
                            lo,
                            hi,
                            what,
                            bad);
    }
    return TN_OK;
}

/* The last union a reduction made: the next segment with the same two sets reuses it. */
typedef struct union_memo
{
    vset* a;
    vset* b;
    vset* u;
} union_memo;

/* t reduces source segment gs into destination segment j of md (shift: where gs's data comes
 * from in md's addresses): the destination must hold data of the same origin and no
 * contribution twice. */
static tn_status
reduce_into(const tn_transfer* t,
            const seg* gs,
            rmap* md,
            uint32_t j,
            int64_t shift,
            union_memo* memo,
            tn_error* err)
{
    seg* gd = &md->segs[j];
    char have[96], sent[96];
    if (!gd->set)
    {
        vset_format(gs->set, sent, sizeof(sent));
        return tn_error_set(err,
                            TN_EVERIFY,
                            TFMT ": reduces %s into rank %u [%" PRIu64 ",%" PRIu64
                                 ") which holds no data",
                            TARGS(t),
                            sent,
                            t->dst,
                            md->starts[j],
                            seg_end(md, j));
    }
    if (gd->shift != shift)
    {
        return tn_error_set(err,
                            TN_EVERIFY,
                            TFMT ": reduces into rank %u [%" PRIu64 ",%" PRIu64
                                 ") data of a different origin (shift %" PRId64 " vs %" PRId64
                                 ": wrong offset)",
                            TARGS(t),
                            t->dst,
                            md->starts[j],
                            seg_end(md, j),
                            shift,
                            gd->shift);
    }
    vset* u;
    if (gs->set == memo->a && gd->set == memo->b && memo->u)
    {
        u = vset_ref(memo->u);
    }
    else
    {
        uint32_t overlap = 0;
        u = vset_union(gs->set, gd->set, &overlap);
        if (!u)
        {
            if (overlap == UINT32_MAX)
            {
                return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
            }
            vset_format(gs->set, sent, sizeof(sent));
            vset_format(gd->set, have, sizeof(have));
            return tn_error_set(err,
                                TN_EVERIFY,
                                TFMT ": reduces %s into rank %u [%" PRIu64 ",%" PRIu64
                                     ") which holds %s: contribution of rank %u counted "
                                     "twice",
                                TARGS(t),
                                sent,
                                t->dst,
                                md->starts[j],
                                seg_end(md, j),
                                have,
                                overlap);
        }
        vset_unref(memo->u);
        memo->a = gs->set;
        memo->b = gd->set;
        memo->u = vset_ref(u);
    }
    vset_unref(gd->set);
    gd->set = u;
    if (!idlist_push(&gd->red, t->id))
    {
        return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    return TN_OK;
}

/* Applies t: each destination segment md->segs[c .. d) takes (or reduces in) its source
 * segment of ms->segs[a .. b), and the source segments record t as a reader. */
static tn_status
apply_transfer(const tn_transfer* t,
               rmap* ms,
               rmap* md,
               uint32_t a,
               uint32_t b,
               uint32_t c,
               uint32_t d,
               tn_error* err)
{
    uint64_t so = t->src_offset, doff = t->dst_offset;
    uint32_t i = a;
    union_memo memo = {NULL, NULL, NULL};
    tn_status status = TN_OK;
    for (uint32_t j = c; j < d && !status; j++)
    {
        seg* gd = &md->segs[j];
        uint64_t src_addr = so + (md->starts[j] - doff);
        while (i + 1 < b && ms->starts[i + 1] <= src_addr)
        {
            i++;
        }
        seg* gs = &ms->segs[i];
        int64_t shift = gs->shift + (int64_t)(so - doff);
        if (tn_op_is_reduce(t->op))
        {
            status = reduce_into(t, gs, md, j, shift, &memo, err);
            continue;
        }
        vset_unref(gd->set);
        gd->set = vset_ref(gs->set);
        gd->shift = shift;
        gd->writer = t->id;
        gd->red.n = 0;
        gd->rd.n = 0;
    }
    vset_unref(memo.u);
    if (status)
    {
        return status;
    }
    for (uint32_t k = a; k < b; k++)
    {
        if (!idlist_push(&ms->segs[k].rd, t->id))
            return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    return TN_OK;
}

/* One transfer: its reads and writes checked against the ancestors, then applied. */
static tn_status
exec_transfer(vstate* st, const tn_transfer* t, tn_error* err)
{
    if (t->length == 0)
    {
        return TN_OK;
    }
    rmap* ms = &st->maps[t->src];
    rmap* md = &st->maps[t->dst];
    uint32_t a = rmap_split(ms, t->src_offset);
    uint32_t b = rmap_split(ms, t->src_offset + t->length);
    if (a == UINT32_MAX || b == UINT32_MAX)
    {
        return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    tn_status status = check_reads(st, t, ms, a, b, err);
    if (status)
    {
        return status;
    }
    uint32_t c = 0, d = 0;
    if (!split_destination(t, ms, md, &a, &b, &c, &d))
    {
        return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    status = check_writes(st, t, md, c, d, err);
    if (status == TN_OK)
    {
        status = apply_transfer(t, ms, md, a, b, c, d, err);
    }
    if (status == TN_OK)
    {
        st->nneed = 0;
    }
    return status;
}

/* Compare [lo,hi) of rank r with the expected value. */
static tn_status
expect(vstate* st,
       uint32_t r,
       uint64_t lo,
       uint64_t hi,
       const vset* want,
       int64_t shift,
       tn_error* err)
{
    rmap* m = &st->maps[r];
    if (lo >= hi)
    {
        return TN_OK;
    }
    for (uint32_t i = rmap_find(m, lo); i < m->n && m->starts[i] < hi; i++)
    {
        const seg* g = &m->segs[i];
        uint64_t a = m->starts[i] > lo ? m->starts[i] : lo;
        uint64_t b = seg_end(m, i) < hi ? seg_end(m, i) : hi;
        if (!vset_equal(g->set, want) || (g->set && g->shift != shift))
        {
            char have[128], exp[128];
            vset_format(g->set, have, sizeof(have));
            vset_format(want, exp, sizeof(exp));
            if (g->set && vset_equal(g->set, want))
            {
                return tn_error_set(err,
                                    TN_EVERIFY,
                                    "final state: rank %u [%" PRIu64 ",%" PRIu64
                                    ") holds %s from origin offset shifted by %" PRId64
                                    ", expected shift %" PRId64 " (data at the wrong offset)",
                                    r,
                                    a,
                                    b,
                                    have,
                                    g->shift,
                                    shift);
            }
            return tn_error_set(err,
                                TN_EVERIFY,
                                "final state: rank %u [%" PRIu64 ",%" PRIu64
                                ") holds %s, expected %s",
                                r,
                                a,
                                b,
                                have,
                                exp);
        }
    }
    return TN_OK;
}

static tn_status
check_final(vstate* st, tn_error* err)
{
    const tn_schedule* s = st->s;
    tn_collective coll = tn_schedule_collective(s);
    uint64_t S = tn_schedule_bytes(s);
    uint32_t N = st->ranks;
    uint32_t root = tn_schedule_root(s);
    vset* full = vset_range(0, N);
    if (!full)
    {
        return tn_error_set(err, TN_ENOMEM, "verify: out of memory");
    }
    tn_status status = TN_OK;
    for (uint32_t r = 0; r < N && !status; r++)
    {
        switch (coll)
        {
        case TN_COLL_ALL_REDUCE:
            status = expect(st, r, 0, S, full, 0, err);
            break;
        case TN_COLL_REDUCE_SCATTER: {
            tn_slice sl = tn_slice_of(S, N, r);
            status = expect(st, r, sl.offset, sl.offset + sl.length, full, 0, err);
            break;
        }
        case TN_COLL_REDUCE:
            if (r == root)
            {
                status = expect(st, r, 0, S, full, 0, err);
            }
            break;
        case TN_COLL_BROADCAST: {
            vset* one = vset_range(root, root + 1);
            if (!one)
            {
                status = tn_error_set(err, TN_ENOMEM, "verify: out of memory");
                break;
            }
            status = expect(st, r, 0, S, one, 0, err);
            vset_unref(one);
            break;
        }
        case TN_COLL_ALL_GATHER:
        case TN_COLL_ALL_TO_ALL: {
            for (uint32_t i = 0; i < N && !status; i++)
            {
                vset* one = vset_range(i, i + 1);
                if (!one)
                {
                    status = tn_error_set(err, TN_ENOMEM, "verify: out of memory");
                    break;
                }
                if (coll == TN_COLL_ALL_GATHER)
                {
                    tn_slice sl = tn_slice_of(S, N, i);
                    status = expect(st, r, sl.offset, sl.offset + sl.length, one, 0, err);
                }
                else if (i != r) /* a rank's own block stays in its send vector */
                {
                    tn_slice mine = tn_slice_of(S, N, r);
                    uint64_t at = S + (uint64_t)i * mine.length;
                    status = expect(st,
                                    r,
                                    at,
                                    at + mine.length,
                                    one,
                                    (int64_t)mine.offset - (int64_t)at,
                                    err);
                }
                vset_unref(one);
            }
            break;
        }
        default:
            break;
        }
    }
    vset_unref(full);
    return status;
}

/* The rank maps of the transfer's two ends hold how many segments (one map when they are one). */
static uint64_t
ends_segments(const vstate* st, const tn_transfer* t)
{
    return st->maps[t->src].n + (t->dst != t->src ? st->maps[t->dst].n : 0);
}

static tn_status
verify_within(const tn_schedule* s, uint64_t budget_bytes, tn_error* err)
{
    if (!s)
    {
        return tn_error_set(err, TN_EINVAL, "verify: schedule is NULL");
    }
    if (!tn_schedule_is_finalized(s))
    {
        return tn_error_set(err, TN_EINVAL, "verify: schedule is not finalized");
    }
    vstate st;
    memset(&st, 0, sizeof(st));
    st.s = s;
    st.ranks = tn_schedule_ranks(s);
    uint32_t n = tn_schedule_count(s);
    st.maps = calloc(st.ranks, sizeof(rmap));
    st.pos = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.mark = calloc((size_t)n + 1, sizeof(uint32_t));
    st.seen = calloc((size_t)n + 1, sizeof(uint32_t));
    st.queue = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.fseen = calloc((size_t)n + 1, sizeof(uint32_t));
    st.fqueue = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.post1 = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.low1 = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.post2 = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.low2 = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.tparent = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.tin = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.tout = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.level = malloc(((size_t)n + 1) * sizeof(uint32_t));
    st.rlevel = malloc(((size_t)n + 1) * sizeof(uint32_t));
    tn_status status = TN_OK;
    if (!st.maps || !st.pos || !st.mark || !st.seen || !st.queue || !st.post1 || !st.low1 ||
        !st.post2 || !st.low2 || !st.tparent || !st.tin || !st.tout || !st.fseen || !st.fqueue ||
        !st.level || !st.rlevel || !label_dag(s, false, st.post1, st.low1) ||
        !label_dag(s, true, st.post2, st.low2))
    {
        status = tn_error_set(err, TN_ENOMEM, "verify: out of memory");
        goto out;
    }
    const uint32_t* order = tn_schedule_topo_order(s);
    for (uint32_t k = 0; k < n; k++)
    {
        st.pos[order[k]] = k;
    }
    if (!build_forest(&st))
    {
        status = tn_error_set(err, TN_ENOMEM, "verify: out of memory");
        goto out;
    }
    status = build_maps(&st, err);
    if (status)
        goto out;
    status = init_state(&st, err);
    if (status)
        goto out;
    st.max_segments = budget_bytes / TN_VERIFY_SEGMENT_BYTES;
    for (uint32_t r = 0; r < st.ranks; r++)
    {
        st.segments += st.maps[r].n;
    }
    for (uint32_t k = 0; k < n && !status; k++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, order[k]);
        const uint64_t before = ends_segments(&st, t);
        status = exec_transfer(&st, t, err);
        st.segments = st.segments - before + ends_segments(&st, t);
        if (!status && st.max_segments != 0 && st.segments > st.max_segments)
        {
            status = tn_error_set(err,
                                  TN_EUNSUPPORTED,
                                  "verify: the verifier's state passed its budget of %" PRIu64
                                  " bytes (%" PRIu64 " segments of %u bytes over %u ranks) at "
                                  "transfer %u of %u",
                                  budget_bytes,
                                  st.segments,
                                  (unsigned)TN_VERIFY_SEGMENT_BYTES,
                                  st.ranks,
                                  k + 1,
                                  n);
        }
    }
    if (!status)
    {
        status = check_final(&st, err);
    }
out:
    if (st.maps)
    {
        for (uint32_t r = 0; r < st.ranks; r++)
        {
            rmap_free(&st.maps[r]);
        }
    }
    free(st.maps);
    free(st.pos);
    free(st.mark);
    free(st.seen);
    free(st.queue);
    free(st.need);
    free(st.post1);
    free(st.low1);
    free(st.post2);
    free(st.low2);
    free(st.tparent);
    free(st.tin);
    free(st.tout);
    free(st.fseen);
    free(st.fqueue);
    free(st.level);
    free(st.rlevel);
    return status;
}

tn_status
tn_verify(const tn_schedule* s, tn_error* err)
{
    return verify_within(s, 0, err);
}

/* ---- contention ------------------------------------------------------------ */

typedef struct use
{
    uint32_t step;
    uint32_t link;
    uint32_t id;
} use;

static int
cmp_use(const void* a, const void* b)
{
    const use* x = a;
    const use* y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void
tn_contention_report_destroy(tn_contention_report* report)
{
    if (report)
    {
        free(report->list);
        free(report);
    }
}

tn_status
tn_verify_contention(const tn_schedule* s,
                     const tn_topology* topo,
                     const tn_routes* routes,
                     tn_contention_report** out,
                     tn_error* err)
{
    if (!s || !topo || !out)
    {
        return tn_error_set(err, TN_EINVAL, "verify_contention: schedule, topology or out is NULL");
    }
    *out = NULL;
    if (tn_schedule_ranks(s) > tn_topology_npu_count(topo))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "verify_contention: schedule has %u ranks, topology %u NPUs",
                            tn_schedule_ranks(s),
                            tn_topology_npu_count(topo));
    }
    tn_routes* own = NULL;
    tn_status status = TN_OK;
    if (!routes)
    {
        status = tn_routes_create(topo, NULL, &own, err);
        if (status)
            return status;
        routes = own;
    }
    uint32_t cap = tn_topology_node_count(topo) + 1;
    uint32_t* links = malloc((size_t)cap * sizeof(uint32_t));
    size_t nuse = 0, use_cap = 1024;
    use* uses = malloc(use_cap * sizeof(use));
    tn_contention_report* rep = calloc(1, sizeof(*rep));
    if (!links || !uses || !rep)
    {
        status = tn_error_set(err, TN_ENOMEM, "verify_contention: out of memory");
        goto fail;
    }
    uint32_t n = tn_schedule_count(s);
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        if (t->length == 0)
            continue;
        uint32_t len = 0;
        uint32_t np;
        tn_schedule_path(s, i, &np);
        if (np + 1 > cap)
        {
            uint32_t* p = realloc(links, ((size_t)np + 1) * sizeof(uint32_t));
            if (!p)
            {
                status = tn_error_set(err, TN_ENOMEM, "verify_contention: out of memory");
                goto fail;
            }
            links = p;
            cap = np + 1;
        }
        status = tn_transfer_links(s, i, topo, routes, links, cap, &len, err);
        if (status)
            goto fail;
        for (uint32_t k = 0; k < len; k++)
        {
            if (nuse == use_cap)
            {
                use_cap *= 2;
                use* p = realloc(uses, use_cap * sizeof(use));
                if (!p)
                {
                    status = tn_error_set(err, TN_ENOMEM, "verify_contention: out of memory");
                    goto fail;
                }
                uses = p;
            }
            uses[nuse].step = t->step;
            uses[nuse].link = links[k];
            uses[nuse].id = i;
            nuse++;
        }
    }
    qsort(uses, nuse, sizeof(use), cmp_use);
    size_t list_cap = 0;
    for (size_t k = 0; k < nuse;)
    {
        size_t e = k + 1;
        while (e < nuse && uses[e].step == uses[k].step && uses[e].link == uses[k].link)
        {
            e++;
        }
        rep->link_steps_used++;
        for (size_t j = k + 1; j < e; j++)
        {
            if (uses[j].id == uses[j - 1].id)
                continue; /* same transfer twice on a link (loop): not a conflict */
            tn_conflict* list =
                tn_array_grow(rep->list, &list_cap, rep->stored + 1, sizeof(*list), 16);
            if (!list)
            {
                status = tn_error_set(err, TN_ENOMEM, "verify_contention: out of memory");
                goto fail;
            }
            rep->list = list;
            tn_conflict* c = &rep->list[rep->stored++];
            c->link = uses[k].link;
            c->step = uses[k].step;
            c->transfer_a = uses[k].id;
            c->transfer_b = uses[j].id;
            rep->conflicts++;
        }
        k = e;
    }
    free(links);
    free(uses);
    tn_routes_destroy(own);
    *out = rep;
    return TN_OK;
fail:
    free(links);
    free(uses);
    tn_contention_report_destroy(rep);
    tn_routes_destroy(own);
    return status;
}

tn_status
tn_verify_schedule(const tn_schedule* s,
                   const tn_topology* topo,
                   const tn_routes* routes,
                   tn_error* err)
{
    return tn_verify_schedule_within(s, topo, routes, 0, err);
}

tn_status
tn_verify_schedule_within(const tn_schedule* s,
                          const tn_topology* topo,
                          const tn_routes* routes,
                          uint64_t budget_bytes,
                          tn_error* err)
{
    tn_status status = verify_within(s, budget_bytes, err);
    if (status || !topo || !tn_schedule_contention_free(s))
    {
        return status;
    }
    tn_contention_report* rep = NULL;
    status = tn_verify_contention(s, topo, routes, &rep, err);
    if (status)
    {
        return status;
    }
    if (rep->conflicts > 0)
    {
        const tn_conflict* c = &rep->list[0];
        const tn_link* l = tn_topology_link(topo, c->link);
        status = tn_error_set(err,
                              TN_EVERIFY,
                              "contention: link %u (node %u -> node %u) used in step %u by "
                              "transfers %u and %u (%" PRIu64 " conflicts in total) although "
                              "the schedule claims contention freedom",
                              c->link,
                              l->src,
                              l->dst,
                              c->step,
                              c->transfer_a,
                              c->transfer_b,
                              rep->conflicts);
    }
    tn_contention_report_destroy(rep);
    return status;
}
