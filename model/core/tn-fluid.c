/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fluid engine: max-min fair sharing of links by flows (contract in tn-fluid.h).
 */
#include "tn-fluid.h"

#include "tn-array.h"
#include "tn-finish-queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A fill candidate: a link and its share (capacity left over its flows not yet frozen). The
 * fill heap holds one per link, updated in place (links[l].pos), so that it stays as small as
 * the component's links however many flows cross them. */
typedef struct sent
{
    double share;
    uint32_t link;
} sent;

static bool
sent_less(const sent* a, const sent* b)
{
    return a->share != b->share ? a->share < b->share : a->link < b->link;
}

/* growable uint32 list */
typedef struct ulist
{
    uint32_t* v;
    size_t n;
    size_t cap;
} ulist;

static bool
ulist_push(ulist* a, uint32_t x)
{
    if (a->n == a->cap)
    {
        uint32_t* g = tn_array_grow(a->v, &a->cap, a->n + 1, sizeof(uint32_t), 16);
        if (!g)
            return false;
        a->v = g;
    }
    a->v[a->n++] = x;
    return true;
}

/* A flow never runs faster than its slowest link, so a link whose flows' slowest links sum
 * below its capacity is never filled: it cannot freeze a flow, and flows that share only such
 * links do not change each other's rates. The sums are kept in integer units, rounded up per
 * flow, so that starts and ends never drift; a margin of 1e-6 of the capacity covers the
 * filling's floor (1e-9 of a capacity) and its rounding. Bounds stop at BOUND_MAX (1 Pb/s)
 * and a link's room below it, so that a stopped bound never makes a link slack and 2^32
 * listings on one link (its slots are uint32) cannot overflow the sum. */
#define BOUND_UNIT 1e-3 /* bit/ns */
#define BOUND_MARGIN 1e-6
#define BOUND_MAX 1e9

typedef struct flink
{
    double cap;     /* bit/ns */
    ulist on;       /* active flows, in the order they joined */
    uint32_t stamp; /* component stamp */
    uint8_t seeded; /* in seeds */
    uint8_t moved;  /* while filling: in `moved` */
    uint32_t count; /* flows not yet frozen while filling */
    uint32_t pos;   /* while filling: its place in the fill heap, NOPOS when out */
    double left;    /* capacity left while filling */
    double sum;     /* sum of its flows' rates, bit/ns */
    double bits;    /* carried until sum_at */
    double sum_at;
    uint64_t bound; /* its flows' bounds summed, in BOUND_UNITs (a flow once per listing) */
    uint64_t roomy; /* bound below this: the link cannot be a bottleneck (slack) */
} flink;

typedef struct fflow
{
    uint64_t bound; /* its slowest link's capacity, in BOUND_UNITs rounded up */
    double rem;     /* bits left at upd */
    double rate;    /* bit/ns */
    double upd;
    uint32_t tag;
    uint32_t ver;   /* of its current finish entry */
    uint32_t stamp; /* component stamp */
    uint32_t hops;  /* 0: not active */
    uint32_t neck;  /* the link that froze it at its rate (its bottleneck) */
    uint8_t frozen; /* while filling: 0 no, 1 same rate, 2 rate changed */
    uint8_t fresh;  /* started since the last update (no rate yet) */
    uint8_t moved;  /* its rate changed in this update */
} fflow;

struct tn_fluid
{
    flink* links;
    uint32_t link_count;
    fflow* flows;
    size_t flow_cap;
    uint32_t flow_count; /* ids handed out so far */
    uint32_t stride;     /* hop rows: flow i's links at hop_link[i * stride ...] */
    uint32_t* hop_link;
    uint32_t* hop_slot; /* position of the flow in its link's `on` list */
    ulist free_ids;
    uint32_t* seeds; /* links touched since the last update, each once */
    uint32_t seed_count;
    uint32_t* comp_links; /* room for every link */
    uint32_t comp_link_count;
    ulist comp_flows;
    sent* shares; /* the fill heap: room for every link */
    uint32_t share_n;
    uint32_t* moved; /* links whose share changed while freezing one link's flows */
    uint32_t moved_n;
    tn_finish_queue finish;
    uint32_t stamp;
    ulist fresh;      /* flows started since the last update (some may have ended since) */
    bool whole;       /* tn_fluid_set_whole */
    double ended_min; /* smallest rate of the flows ended since the last update */
    uint32_t active;
    uint64_t updates;
    uint64_t visited;
};

tn_status
tn_fluid_create(uint32_t link_count, const double* capacity, tn_fluid** out, tn_error* err)
{
    if (!out || (link_count > 0 && !capacity))
        return tn_error_set(err, TN_EINVAL, "fluid: no output or no capacities");
    *out = NULL;
    tn_fluid* f = calloc(1, sizeof(*f));
    if (!f || !(f->links = calloc((size_t)link_count + 1, sizeof(flink))) ||
        !(f->seeds = malloc(((size_t)link_count + 1) * sizeof(uint32_t))) ||
        !(f->comp_links = malloc(((size_t)link_count + 1) * sizeof(uint32_t))) ||
        !(f->shares = malloc(((size_t)link_count + 1) * sizeof(sent))) ||
        !(f->moved = malloc(((size_t)link_count + 1) * sizeof(uint32_t))))
    {
        if (f)
        {
            free(f->links);
            free(f->seeds);
            free(f->comp_links);
            free(f->shares);
        }
        free(f);
        return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
    }
    f->link_count = link_count;
    f->ended_min = HUGE_VAL;
    for (uint32_t l = 0; l < link_count; l++)
    {
        f->links[l].cap = capacity[l];
        double roomy = capacity[l] * (1 - BOUND_MARGIN) / BOUND_UNIT;
        f->links[l].roomy = roomy > 0 ? (uint64_t)(roomy < BOUND_MAX ? roomy : BOUND_MAX - 1) : 0;
    }
    *out = f;
    return TN_OK;
}

void
tn_fluid_destroy(tn_fluid* f)
{
    if (!f)
        return;
    for (uint32_t l = 0; l < f->link_count; l++)
        free(f->links[l].on.v);
    free(f->links);
    free(f->flows);
    free(f->hop_link);
    free(f->hop_slot);
    free(f->free_ids.v);
    free(f->fresh.v);
    free(f->seeds);
    free(f->comp_links);
    free(f->comp_flows.v);
    free(f->shares);
    free(f->moved);
    tn_finish_queue_free(&f->finish);
    free(f);
}

/* room for flow ids < need with paths of `hops` links */
static bool
reserve(tn_fluid* f, size_t need, uint32_t hops)
{
    size_t cap = f->flow_cap;
    if (need > cap)
    {
        fflow* g = tn_array_grow(f->flows, &cap, need, sizeof(fflow), 64);
        if (!g)
            return false;
        f->flows = g;
    }
    uint32_t stride = hops > f->stride ? hops : f->stride;
    if (cap == f->flow_cap && stride == f->stride)
        return true;
    if (cap > SIZE_MAX / sizeof(uint32_t) / stride)
        return false;
    uint32_t* links = malloc(cap * stride * sizeof(uint32_t));
    uint32_t* slots = malloc(cap * stride * sizeof(uint32_t));
    if (!links || !slots)
    {
        free(links);
        free(slots);
        return false;
    }
    for (uint32_t i = 0; i < f->flow_count; i++)
    {
        if (f->flows[i].hops == 0)
            continue;
        memcpy(links + (size_t)i * stride,
               f->hop_link + (size_t)i * f->stride,
               f->flows[i].hops * sizeof(uint32_t));
        memcpy(slots + (size_t)i * stride,
               f->hop_slot + (size_t)i * f->stride,
               f->flows[i].hops * sizeof(uint32_t));
    }
    free(f->hop_link);
    free(f->hop_slot);
    f->hop_link = links;
    f->hop_slot = slots;
    f->flow_cap = cap;
    f->stride = stride;
    return true;
}

static bool
slack(const flink* k)
{
    return k->bound < k->roomy;
}

static void
seed(tn_fluid* f, uint32_t l)
{
    if (!f->links[l].seeded)
    {
        f->links[l].seeded = 1;
        f->seeds[f->seed_count++] = l;
    }
}

/* link l carries its flows' sum of rates from now on plus delta */
static void
account(tn_fluid* f, uint32_t l, double delta, double now)
{
    flink* k = &f->links[l];
    k->bits += k->sum * (now - k->sum_at);
    k->sum_at = now;
    k->sum += delta;
    if (k->on.n == 0 || k->sum < 0)
        k->sum = 0; /* no drift on an idle link */
}

tn_status
tn_fluid_start(tn_fluid* f,
               const uint32_t* links,
               uint32_t count,
               double bits,
               double now,
               uint32_t tag,
               uint32_t* id,
               tn_error* err)
{
    if (!f || !links || !id || count == 0 || !(bits > 0))
        return tn_error_set(err, TN_EINVAL, "fluid: a flow needs links and bits > 0");
    for (uint32_t k = 0; k < count; k++)
    {
        if (links[k] >= f->link_count)
            return tn_error_set(err,
                                TN_EINVAL,
                                "fluid: link %u out of range (%u links)",
                                links[k],
                                f->link_count);
    }
    /* every allocation first, so that a failure adds nothing */
    bool reuse = f->free_ids.n > 0;
    uint32_t i = reuse ? f->free_ids.v[f->free_ids.n - 1] : f->flow_count;
    if (!reuse && i == UINT32_MAX)
        return tn_error_set(err, TN_ENOMEM, "fluid: too many flows");
    if (!reserve(f, (size_t)i + 1, count))
        return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
    if (!reuse) /* room for every id in free_ids: tn_fluid_end cannot fail */
    {
        uint32_t* g =
            tn_array_grow(f->free_ids.v, &f->free_ids.cap, (size_t)i + 1, sizeof(uint32_t), 64);
        if (!g)
            return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
        f->free_ids.v = g;
    }
    for (uint32_t k = 0; k < count; k++)
    {
        ulist* on = &f->links[links[k]].on;
        uint32_t* g = tn_array_grow(on->v, &on->cap, on->n + count, sizeof(uint32_t), 16);
        if (!g)
            return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
        on->v = g;
    }
    if (f->fresh.n == f->fresh.cap)
    {
        uint32_t* g =
            tn_array_grow(f->fresh.v, &f->fresh.cap, f->fresh.n + 1, sizeof(uint32_t), 64);
        if (!g)
            return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
        f->fresh.v = g;
    }
    f->fresh.v[f->fresh.n++] = i;
    if (reuse)
        f->free_ids.n--;
    else
    {
        f->flow_count++;
        f->flows[i].ver = 0;
        f->flows[i].stamp = 0;
    }
    fflow* fl = &f->flows[i];
    uint32_t* hl = f->hop_link + (size_t)i * f->stride;
    uint32_t* hs = f->hop_slot + (size_t)i * f->stride;
    double slowest = HUGE_VAL;
    for (uint32_t k = 0; k < count; k++)
    {
        if (f->links[links[k]].cap < slowest)
            slowest = f->links[links[k]].cap;
    }
    slowest = ceil(slowest / BOUND_UNIT);
    fl->bound = (uint64_t)(slowest < BOUND_MAX ? slowest : BOUND_MAX);
    for (uint32_t k = 0; k < count; k++)
    {
        flink* link = &f->links[links[k]];
        ulist* on = &link->on;
        hl[k] = links[k];
        hs[k] = (uint32_t)on->n;
        on->v[on->n++] = i;
        link->bound += fl->bound;
        seed(f, links[k]);
    }
    fl->rem = bits;
    fl->rate = 0;
    fl->upd = now;
    fl->tag = tag;
    fl->ver++; /* finish entries of the id's former flow are stale */
    fl->hops = count;
    fl->frozen = 0;
    fl->fresh = 1;
    f->active++;
    *id = i;
    return TN_OK;
}

void
tn_fluid_end(tn_fluid* f, uint32_t i, double end, double now)
{
    if (!f || i >= f->flow_count || f->flows[i].hops == 0)
        return;
    f->free_ids.v[f->free_ids.n++] = i; /* room made when the id was first handed out */
    fflow* fl = &f->flows[i];
    uint32_t* hl = f->hop_link + (size_t)i * f->stride;
    uint32_t* hs = f->hop_slot + (size_t)i * f->stride;
    if (fl->rate < f->ended_min) /* a fresh flow's 0: every flow of its component again */
        f->ended_min = fl->rate;
    /* events may fall later than the end: the links carried nothing of it since; ended
     * before its end, its bits left are carried now */
    double extra = fl->rate * (now - end);
    for (uint32_t k = 0; k < fl->hops; k++)
    {
        uint32_t l = hl[k];
        ulist* on = &f->links[l].on;
        uint32_t p = hs[k];
        uint32_t last = on->v[--on->n];
        if (p < on->n)
        {
            on->v[p] = last;
            /* the moved flow's entry for this link at the old end; when it is this flow
             * (a link listed twice), only its hops not removed yet: a removed hop keeps its
             * old slot, which may be that end */
            const uint32_t* ml = f->hop_link + (size_t)last * f->stride;
            uint32_t* ms = f->hop_slot + (size_t)last * f->stride;
            for (uint32_t q = last == i ? k + 1 : 0; q < f->flows[last].hops; q++)
            {
                if (ml[q] == l && ms[q] == on->n)
                {
                    ms[q] = p;
                    break;
                }
            }
        }
        seed(f, l);
        f->links[l].bits -= extra;
        f->links[l].bound -= fl->bound;
    }
    for (uint32_t k = 0; k < fl->hops; k++)
        account(f, hl[k], -fl->rate, now);
    fl->rate = 0;
    fl->ver++;
    fl->hops = 0;
    f->active--;
}

void
tn_fluid_set_whole(tn_fluid* f, bool whole)
{
    if (f)
        f->whole = whole;
}

bool
tn_fluid_dirty(const tn_fluid* f)
{
    return f && f->seed_count > 0;
}

static void
mark_link(tn_fluid* f, uint32_t l)
{
    if (f->links[l].stamp != f->stamp)
    {
        f->links[l].stamp = f->stamp;
        f->comp_links[f->comp_link_count++] = l;
    }
}

/* Below which rate flows keep theirs. Progressive filling freezes flows in the order of
 * their rates, so a fill of the component before these starts and ends and one after pop the
 * same links with the same shares, freezing the same flows at the same rates, while the share
 * popped is below every ended flow's rate (removing a flow that is not frozen yet only raises
 * its links' shares, so none of them is popped earlier) and below the first share (capacity
 * over flows) of every link a started flow joins (a link's share only grows while filling, so
 * none of those is popped earlier either). The flows frozen by then are as the new fill would
 * leave them: the recomputation starts from there. The margin covers rounding; core/fluid
 * checks the rates against a plain filling. */
static double
threshold(tn_fluid* f)
{
    double theta = f->ended_min;
    for (size_t q = 0; q < f->fresh.n; q++)
    {
        const fflow* fl = &f->flows[f->fresh.v[q]];
        if (!fl->fresh || fl->hops == 0)
            continue; /* ended since: its rate, 0, is in ended_min */
        const uint32_t* hl = f->hop_link + (size_t)f->fresh.v[q] * f->stride;
        for (uint32_t k = 0; k < fl->hops; k++)
        {
            const flink* m = &f->links[hl[k]];
            if (slack(m))
                continue; /* never filled */
            double first = m->cap / (double)m->on.n;
            if (first < theta)
                theta = first;
        }
    }
    for (size_t q = 0; q < f->fresh.n; q++)
        f->flows[f->fresh.v[q]].fresh = 2; /* this update computes their rates */
    f->fresh.n = 0;
    f->ended_min = HUGE_VAL;
    return f->whole ? -HUGE_VAL : theta * (1 - 1e-9);
}

/* flow i is recomputed in this update, and its links that can be filled are filled */
static bool
join(tn_fluid* f, uint32_t i)
{
    fflow* fl = &f->flows[i];
    fl->stamp = f->stamp;
    fl->moved = 0;
    if (!ulist_push(&f->comp_flows, i))
        return false;
    const uint32_t* hl = f->hop_link + (size_t)i * f->stride;
    for (uint32_t h = 0; h < fl->hops; h++)
    {
        if (f->whole || !slack(&f->links[hl[h]]))
            mark_link(f, hl[h]);
    }
    return true;
}

/* The flows to recompute first: those of the links touched, but for the flows that keep their
 * rates (below the threshold). With tn_fluid_set_whole, every flow connected to them through
 * shared links, transitively (slack links included), so that the count of visited flows is
 * the whole component's (the cost model's budget); otherwise expand() adds, after each fill,
 * the flows whose rates the fill has made wrong. */
static bool
component(tn_fluid* f)
{
    if (++f->stamp == 0) /* wrapped: forget every old stamp */
    {
        for (uint32_t i = 0; i < f->flow_count; i++)
            f->flows[i].stamp = 0;
        for (uint32_t l = 0; l < f->link_count; l++)
            f->links[l].stamp = 0;
        f->stamp = 1;
    }
    const double theta = threshold(f);
    f->comp_link_count = 0;
    f->comp_flows.n = 0;
    for (uint32_t s = 0; s < f->seed_count; s++)
    {
        f->links[f->seeds[s]].seeded = 0;
        mark_link(f, f->seeds[s]);
    }
    const uint32_t touched = f->seed_count;
    f->seed_count = 0;
    for (uint32_t c = 0; c < f->comp_link_count && (f->whole || c < touched); c++)
    {
        const flink* k = &f->links[f->comp_links[c]];
        for (size_t q = 0; q < k->on.n; q++)
        {
            uint32_t i = k->on.v[q];
            const fflow* fl = &f->flows[i];
            if (fl->stamp == f->stamp || (!fl->fresh && fl->rate < theta))
                continue;
            if (!join(f, i))
                return false;
        }
    }
    return true;
}

/* each link's capacity left over the flows held at their rates, and its flows to fill */
static void
settle(tn_fluid* f)
{
    for (uint32_t c = 0; c < f->comp_link_count; c++)
    {
        flink* k = &f->links[f->comp_links[c]];
        k->left = k->cap;
        k->count = 0;
        for (size_t q = 0; q < k->on.n; q++)
        {
            const fflow* fl = &f->flows[k->on.v[q]];
            if (fl->stamp == f->stamp)
                k->count++;
            else
                k->left -= fl->rate;
        }
    }
}

/* link l is saturated and no flow on it runs faster than `rate` (within rounding) */
static bool
bottleneck(const tn_fluid* f, uint32_t l, double rate)
{
    const flink* k = &f->links[l];
    double sum = 0;
    for (size_t q = 0; q < k->on.n; q++)
    {
        double r = f->flows[k->on.v[q]].rate;
        if (r > rate * (1 + 1e-9))
            return false;
        sum += r;
    }
    return sum >= k->cap * (1 - 1e-9);
}

/* held flow i has lost its neck: another of its links that is one becomes its neck */
static bool
reneck(tn_fluid* f, uint32_t i)
{
    fflow* fl = &f->flows[i];
    const uint32_t* hl = f->hop_link + (size_t)i * f->stride;
    for (uint32_t h = 0; h < fl->hops; h++)
    {
        if (hl[h] != fl->neck && bottleneck(f, hl[h], fl->rate))
        {
            fl->neck = hl[h];
            return true;
        }
    }
    return false;
}

/* Max-min fair rates are the only feasible ones in which every flow has a bottleneck: a
 * saturated link on which no flow runs faster (its neck, where the filling froze it). A fill
 * of some flows with the others held keeps the links feasible and gives each flow filled its
 * neck, unless a held flow on that neck runs faster; a held flow keeps its neck unless a flow
 * filled crosses it and now runs faster there or leaves it unsaturated (another of its links
 * may then be its neck: reneck). Held flows whose necks no flow filled crosses keep them as
 * they were. So the held flows found wrong here are filled with the others, until none is:
 * the rates are then those a filling of the whole component gives (within rounding), having
 * visited only the flows they changed and their neighbours. Every link a fill could change is
 * checked (those marked before it; a flow joining here marks its links for the next). */
static bool
expand(tn_fluid* f, bool* grown)
{
    *grown = false;
    const uint32_t checked = f->comp_link_count;
    for (uint32_t c = 0; c < checked; c++)
    {
        const uint32_t l = f->comp_links[c];
        const flink* k = &f->links[l];
        double sum = 0, top = 0, low = HUGE_VAL;
        for (size_t q = 0; q < k->on.n; q++)
        {
            const fflow* fl = &f->flows[k->on.v[q]];
            sum += fl->rate;
            if (fl->rate > top)
                top = fl->rate;
            if (fl->stamp == f->stamp && fl->neck == l && fl->rate < low)
                low = fl->rate;
        }
        const bool full = sum >= k->cap * (1 - 1e-9);
        for (size_t q = 0; q < k->on.n; q++)
        {
            uint32_t i = k->on.v[q];
            const fflow* fl = &f->flows[i];
            if (fl->stamp == f->stamp)
                continue;
            if (fl->rate > low * (1 + 1e-9) ||
                (fl->neck == l && (!full || fl->rate < top * (1 - 1e-9)) && !reneck(f, i)))
            {
                if (!join(f, i))
                    return false;
                *grown = true;
            }
        }
    }
    return true;
}

#define NOPOS UINT32_MAX

/* the fill heap: entry i moved to place p */
static void
share_place(tn_fluid* f, uint32_t p, sent e)
{
    f->shares[p] = e;
    f->links[e.link].pos = p;
}

static void
share_up(tn_fluid* f, uint32_t i, sent e)
{
    while (i > 0 && sent_less(&e, &f->shares[(i - 1) / 2]))
    {
        share_place(f, i, f->shares[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    share_place(f, i, e);
}

static void
share_down(tn_fluid* f, uint32_t i, sent e)
{
    for (;;)
    {
        uint32_t l = 2 * i + 1, m = i;
        const sent* best = &e;
        if (l < f->share_n && sent_less(&f->shares[l], best))
            best = &f->shares[m = l];
        if (l + 1 < f->share_n && sent_less(&f->shares[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        share_place(f, i, f->shares[m]);
        i = m;
    }
    share_place(f, i, e);
}

static void
share_remove(tn_fluid* f, uint32_t p)
{
    f->links[f->shares[p].link].pos = NOPOS;
    sent last = f->shares[--f->share_n];
    if (p == f->share_n)
        return;
    if (p > 0 && sent_less(&last, &f->shares[(p - 1) / 2]))
        share_up(f, p, last);
    else
        share_down(f, p, last);
}

/* link l's share is left / count again, or it leaves the heap with its last flow */
static void
share_fix(tn_fluid* f, uint32_t l)
{
    flink* k = &f->links[l];
    if (k->count == 0)
    {
        if (k->pos != NOPOS)
            share_remove(f, k->pos);
        return;
    }
    sent e = {k->left / k->count, l};
    if (k->pos == NOPOS)
        share_up(f, f->share_n++, e);
    else if (k->pos > 0 && sent_less(&e, &f->shares[(k->pos - 1) / 2]))
        share_up(f, k->pos, e);
    else
        share_down(f, k->pos, e);
}

/* flow i is frozen at `share` by link l (its neck); the links it crosses in the fill give the
 * share up, and those other than l whose share changes are listed in `moved` when `listed` */
static void
freeze(tn_fluid* f, uint32_t i, uint32_t l, double share, double now, bool listed)
{
    fflow* fl = &f->flows[i];
    fl->frozen = share == fl->rate ? 1 : 2;
    fl->neck = l;
    const uint32_t* hl = f->hop_link + (size_t)i * f->stride;
    if (fl->frozen == 2)
    {
        for (uint32_t k = 0; k < fl->hops; k++)
            account(f, hl[k], share - fl->rate, now);
        fl->rate = share;
        fl->moved = 1;
    }
    for (uint32_t k = 0; k < fl->hops; k++)
    {
        uint32_t m = hl[k];
        flink* other = &f->links[m];
        if (other->stamp != f->stamp)
            continue; /* slack and untouched: out of the fill */
        other->left -= share;
        other->count--;
        if (listed && m != l && !other->moved)
        {
            other->moved = 1;
            f->moved[f->moved_n++] = m;
        }
    }
}

/* A flow alone on every link of the fill it crosses is frozen by the first of them the fill
 * would pop: the smallest share (its left, the flow being its only one; ties: the smaller
 * link), floored as the fill floors it. No other flow of the fill crosses those links, so
 * freezing it first changes no other flow's rate, and its links leave the fill: a step of a
 * collective on a torus or a ring, one flow per link, then needs no heap at all. */
static void
freeze_alone(tn_fluid* f, double now)
{
    for (size_t c = 0; c < f->comp_flows.n; c++)
    {
        const uint32_t i = f->comp_flows.v[c];
        const fflow* fl = &f->flows[i];
        const uint32_t* hl = f->hop_link + (size_t)i * f->stride;
        uint32_t neck = UINT32_MAX;
        for (uint32_t k = 0; k < fl->hops; k++)
        {
            const flink* m = &f->links[hl[k]];
            if (m->stamp != f->stamp)
                continue;
            if (m->count != 1)
            {
                neck = UINT32_MAX;
                break;
            }
            if (neck == UINT32_MAX || m->left < f->links[neck].left ||
                (m->left == f->links[neck].left && hl[k] < neck))
                neck = hl[k];
        }
        if (neck == UINT32_MAX)
            continue;
        const flink* n = &f->links[neck];
        freeze(f, i, neck, n->left > n->cap * 1e-9 ? n->left : n->cap * 1e-9, now, false);
    }
}

/* progressive filling of the component: the link with the smallest fair share (ties: smaller
 * id) freezes its flows at it. The heap holds every link's current share, so it pops what a
 * heap of every (share, link) ever computed would pop once its stale entries are skipped;
 * the links a link's flows cross get their new share once that link is done, since nothing
 * reads the heap meanwhile. */
static void
fill(tn_fluid* f, double now)
{
    for (size_t c = 0; c < f->comp_flows.n; c++)
    {
        fflow* fl = &f->flows[f->comp_flows.v[c]];
        fl->rem -= fl->rate * (now - fl->upd);
        if (fl->rem < 0)
            fl->rem = 0;
        fl->upd = now;
        fl->frozen = 0;
        fl->fresh = 0;
    }
    freeze_alone(f, now);
    f->share_n = 0;
    for (uint32_t c = 0; c < f->comp_link_count; c++)
    {
        uint32_t l = f->comp_links[c];
        flink* k = &f->links[l];
        k->pos = NOPOS;
        if (k->count > 0)
            share_place(f, f->share_n++, (sent){k->left / k->count, l});
    }
    for (uint32_t p = f->share_n / 2; p-- > 0;)
        share_down(f, p, f->shares[p]);
    while (f->share_n > 0)
    {
        sent e = f->shares[0];
        share_remove(f, 0);
        uint32_t l = e.link;
        flink* link = &f->links[l];
        /* shares only grow while filling; the floor keeps rounding from stalling a flow */
        double share = e.share > link->cap * 1e-9 ? e.share : link->cap * 1e-9;
        f->moved_n = 0;
        for (size_t q = 0; q < link->on.n; q++)
        {
            uint32_t i = link->on.v[q];
            const fflow* fl = &f->flows[i];
            if (fl->frozen || fl->stamp != f->stamp)
                continue; /* frozen now, or keeping its rate */
            freeze(f, i, l, share, now, true);
        }
        for (uint32_t c = 0; c < f->moved_n; c++)
        {
            f->links[f->moved[c]].moved = 0;
            share_fix(f, f->moved[c]);
        }
    }
}

/* new finish entries for the flows whose rates changed; the others' stand */
static bool
reschedule(tn_fluid* f, double now)
{
    for (size_t c = 0; c < f->comp_flows.n; c++)
    {
        uint32_t i = f->comp_flows.v[c];
        fflow* fl = &f->flows[i];
        if (!fl->moved)
            continue;
        fl->ver++;
        double t = fl->rate > 0 ? now + fl->rem / fl->rate : now;
        if (!tn_finish_queue_add(&f->finish, (tn_finish){t, fl->tag, i, fl->ver}))
            return false;
    }
    return tn_finish_queue_seal(&f->finish);
}

static bool
stale(const tn_fluid* f, const tn_finish* e)
{
    return e->ver != f->flows[e->id].ver;
}

static bool
live(const tn_finish* e, const void* f)
{
    return !stale(f, e);
}

tn_status
tn_fluid_update(tn_fluid* f, double now, tn_error* err)
{
    if (!f)
        return tn_error_set(err, TN_EINVAL, "fluid: no engine");
    if (f->seed_count == 0)
        return TN_OK;
    f->updates++;
    if (!component(f))
        return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
    for (bool grown = true; grown;)
    {
        settle(f);
        fill(f, now);
        if (f->whole)
            break;
        if (!expand(f, &grown))
            return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
    }
    f->visited += f->comp_flows.n;
    if (!reschedule(f, now))
        return tn_error_set(err, TN_ENOMEM, "fluid: out of memory");
    if (f->finish.entries > 4 * (size_t)f->active + 1024) /* drop stale finish entries */
        tn_finish_queue_filter(&f->finish, live, f);
    return TN_OK;
}

bool
tn_fluid_next(tn_fluid* f, double* time, uint32_t* id, uint32_t* tag)
{
    if (!f)
        return false;
    const tn_finish* e;
    while ((e = tn_finish_queue_top(&f->finish)) && stale(f, e))
        tn_finish_queue_pop(&f->finish);
    if (!e)
        return false;
    if (time)
        *time = e->time;
    if (id)
        *id = e->id;
    if (tag)
        *tag = e->tag;
    return true;
}

double
tn_fluid_rate(const tn_fluid* f, uint32_t id)
{
    return f && id < f->flow_count ? f->flows[id].rate : 0.0;
}

double
tn_fluid_link_bits(const tn_fluid* f, uint32_t link, double now)
{
    if (!f || link >= f->link_count)
        return 0.0;
    const flink* k = &f->links[link];
    return k->bits + k->sum * (now - k->sum_at);
}

double
tn_fluid_link_active_at(const tn_fluid* f, uint32_t link, double now)
{
    if (!f || link >= f->link_count)
        return -1.0;
    const flink* k = &f->links[link];
    if (k->sum > 0)
        return now;
    return k->bits > 0 ? k->sum_at : -1.0; /* the load last changed when it fell to 0 */
}

uint32_t
tn_fluid_link_flows(const tn_fluid* f, uint32_t link)
{
    return f && link < f->link_count ? (uint32_t)f->links[link].on.n : 0;
}

uint32_t
tn_fluid_active(const tn_fluid* f)
{
    return f ? f->active : 0;
}

uint64_t
tn_fluid_updates(const tn_fluid* f)
{
    return f ? f->updates : 0;
}

uint64_t
tn_fluid_visited(const tn_fluid* f)
{
    return f ? f->visited : 0;
}
