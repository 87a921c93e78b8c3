/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The dependency walk of a generated collective across every rank (tn_cost_walk, contract in
 * tn-program-impl.h): the list schedule of the rank programs with the links shared in time,
 * for the algorithms whose steps overlap (tn_cost_program's step sum cannot see a pair away
 * from a step's hot links running ahead, nor a later step's transfers sharing a link with an
 * earlier step's that still run).
 */
#include "tn-array.h"
#include "tn-cost.h"
#include "tn-fluid.h"
#include "tn-program-impl.h"

#include <stdlib.h>
#include <string.h>

/* a transfer posted at `ready` (ties: smaller step, then smaller id, as tn_cost_estimate) */
typedef struct wev
{
    double ready;
    uint32_t step;
    uint32_t id;
} wev;

static bool
wless(const wev* a, const wev* b)
{
    if (a->ready != b->ready)
        return a->ready < b->ready;
    if (a->step != b->step)
        return a->step < b->step;
    return a->id < b->id;
}

static void
wpush(wev* h, uint32_t* n, wev e)
{
    uint32_t i = (*n)++;
    while (i > 0 && wless(&e, &h[(i - 1) / 2]))
    {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static wev
wpop(wev* h, uint32_t* n)
{
    wev top = h[0], last = h[--(*n)];
    uint32_t i = 0;
    for (;;)
    {
        uint32_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && wless(&h[c + 1], &h[c]))
            c++;
        if (!wless(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/* a receive op, found by (rank, peer, match) to pair it with its send */
typedef struct rkey
{
    uint32_t rank, peer, match;
    uint32_t op; /* global op index */
} rkey;

static int
rkey_cmp(const void* a, const void* b)
{
    const rkey* x = a;
    const rkey* y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    return x->match < y->match ? -1 : x->match > y->match;
}

typedef struct wk
{
    uint32_t N;
    tn_rank_program* rps; /* every rank's program */
    uint32_t* base;       /* per rank: its first op's global index (N + 1) */
    uint32_t* xfer;       /* per global op: its transfer (the send's index among sends) */
    uint32_t T;           /* transfers */
    uint32_t* sop;        /* per transfer: its send's global op */
    uint32_t* rop;        /* per transfer: its receive's global op */
    uint32_t* src;        /* per transfer: sender rank */
    uint32_t* pidx;       /* per transfer: first link in paths (T + 1) */
    uint32_t* paths;
    double* lat;      /* per transfer: path latency */
    double* sf;       /* per transfer: store and forward of one packet per hop after the first */
    double* bits;     /* per transfer: wire bits at its path's slowest link (0: latency only) */
    uint32_t* qid;    /* per transfer: its queue pair (sender, receiver) */
    uint32_t* sstart; /* per global op: first successor op in succ (ops + 1) */
    uint32_t* succ;
    uint32_t* pending;
    double* ready;
} wk;

static void
wk_free(wk* w)
{
    for (uint32_t r = 0; w->rps && r < w->N; r++)
        tn_rank_program_free(&w->rps[r]);
    free(w->rps);
    free(w->base);
    free(w->xfer);
    free(w->sop);
    free(w->rop);
    free(w->src);
    free(w->pidx);
    free(w->paths);
    free(w->lat);
    free(w->sf);
    free(w->bits);
    free(w->qid);
    free(w->sstart);
    free(w->succ);
    free(w->pending);
    free(w->ready);
}

/* global op g -> (rank, index in the rank's program) */
static const tn_program_op*
op_at(const wk* w, uint32_t g, uint32_t* rank, uint32_t* k)
{
    uint32_t lo = 0, hi = w->N;
    while (hi - lo > 1) /* the last rank whose base is <= g */
    {
        uint32_t mid = (lo + hi) / 2;
        if (w->base[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    *rank = lo;
    *k = g - w->base[lo];
    return &w->rps[lo].ops[*k];
}

/* Every rank's program, each send paired with its receive (the k-th send of a to b is the
 * k-th receive of b from a), every op's successors (the ops that list it as a dep). */
static tn_status
wk_build(wk* w, const tn_program* p, uint64_t max_ops, bool* fits, tn_error* err)
{
    uint32_t N = w->N;
    w->rps = calloc(N ? N : 1, sizeof(tn_rank_program));
    w->base = malloc(((size_t)N + 1) * sizeof(uint32_t));
    if (!w->rps || !w->base)
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    uint64_t ops = 0, sends = 0, deps = 0;
    for (uint32_t r = 0; r < N; r++)
    {
        tn_status st = tn_program_rank(p, r, &w->rps[r], err);
        if (st)
            return st;
        w->base[r] = (uint32_t)ops;
        ops += w->rps[r].count;
        sends += w->rps[r].sends;
        for (uint32_t k = 0; k < w->rps[r].count; k++)
            deps += w->rps[r].ops[k].dep_count;
        if (ops > max_ops || deps > 4 * max_ops)
            return TN_OK; /* *fits stays false */
    }
    w->base[N] = (uint32_t)ops;
    if (ops != 2 * sends)
        return tn_error_set(err,
                            TN_EINVAL,
                            "cost: walk: %llu ops but %llu sends",
                            (unsigned long long)ops,
                            (unsigned long long)sends);
    uint32_t G = (uint32_t)ops;
    w->T = (uint32_t)sends;
    rkey* keys = malloc((sends ? sends : 1) * sizeof(rkey));
    w->xfer = malloc(((size_t)G + 1) * sizeof(uint32_t));
    w->sop = malloc(((size_t)w->T + 1) * sizeof(uint32_t));
    w->rop = malloc(((size_t)w->T + 1) * sizeof(uint32_t));
    w->src = malloc(((size_t)w->T + 1) * sizeof(uint32_t));
    w->sstart = calloc((size_t)G + 2, sizeof(uint32_t));
    w->succ = malloc(((size_t)deps + 1) * sizeof(uint32_t));
    if (!keys || !w->xfer || !w->sop || !w->rop || !w->src || !w->sstart || !w->succ)
    {
        free(keys);
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    size_t nk = 0;
    uint32_t t = 0;
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t k = 0; k < w->rps[r].count; k++)
        {
            const tn_program_op* o = &w->rps[r].ops[k];
            uint32_t g = w->base[r] + k;
            if (o->send)
            {
                w->xfer[g] = t;
                w->sop[t] = g;
                w->src[t++] = r;
            }
            else
            {
                rkey key = {r, o->peer, o->match, g};
                keys[nk++] = key;
            }
            /* successors: counted here, placed below */
            const uint32_t* d = w->rps[r].deps + o->dep_start;
            for (uint32_t j = 0; j < o->dep_count; j++)
                w->sstart[w->base[r] + d[j] + 2]++;
        }
    qsort(keys, nk, sizeof(rkey), rkey_cmp);
    tn_status st = TN_OK;
    for (uint32_t x = 0; x < w->T && !st; x++)
    {
        uint32_t r, k;
        const tn_program_op* o = op_at(w, w->sop[x], &r, &k);
        rkey want = {o->peer, r, o->match, 0};
        const rkey* hit = bsearch(&want, keys, nk, sizeof(rkey), rkey_cmp);
        if (!hit)
            st = tn_error_set(err,
                              TN_EINVAL,
                              "cost: walk: send %u of rank %u to %u has no receive",
                              o->match,
                              r,
                              o->peer);
        else
        {
            w->rop[x] = hit->op;
            w->xfer[hit->op] = x;
        }
    }
    free(keys);
    if (st)
        return st;
    for (uint32_t g = 0; g < G; g++)
        w->sstart[g + 2] += w->sstart[g + 1];
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t k = 0; k < w->rps[r].count; k++)
        {
            const tn_program_op* o = &w->rps[r].ops[k];
            const uint32_t* d = w->rps[r].deps + o->dep_start;
            for (uint32_t j = 0; j < o->dep_count; j++)
                w->succ[w->sstart[w->base[r] + d[j] + 1]++] = w->base[r] + k;
        }
    *fits = true;
    return TN_OK;
}

/* the queue pairs: one per (sender, receiver), as every transfer of a pair takes one path */
static int
pair_cmp(const void* a, const void* b)
{
    const uint64_t* x = a;
    const uint64_t* y = b;
    return *x < *y ? -1 : *x > *y;
}

/* paths, latencies, wire bits and queue pairs of the transfers */
static tn_status
wk_paths(wk* w, const tn_topology* topo, const tn_cost_options* o, tn_error* err)
{
    uint32_t mtu = o ? o->mtu : 0, ovh = o ? o->packet_overhead : 0;
    uint32_t cap = tn_topology_node_count(topo) + 1;
    tn_routes* routes = NULL;
    tn_status st = tn_routes_create(topo, NULL, &routes, err);
    if (st)
        return st;
    size_t pcap = 0, pn = 0;
    w->pidx = malloc(((size_t)w->T + 1) * sizeof(uint32_t));
    w->lat = malloc(((size_t)w->T + 1) * sizeof(double));
    w->sf = malloc(((size_t)w->T + 1) * sizeof(double));
    w->bits = malloc(((size_t)w->T + 1) * sizeof(double));
    w->qid = malloc(((size_t)w->T + 1) * sizeof(uint32_t));
    uint64_t* pairs = malloc(((size_t)w->T + 1) * sizeof(uint64_t));
    if (!w->pidx || !w->lat || !w->sf || !w->bits || !w->qid || !pairs)
        st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    for (uint32_t x = 0; x < w->T && !st; x++)
    {
        uint32_t r, k;
        const tn_program_op* op = op_at(w, w->sop[x], &r, &k);
        uint32_t* grown = tn_array_grow(w->paths, &pcap, pn + cap, sizeof(uint32_t), 1024);
        if (!grown)
        {
            st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            break;
        }
        w->paths = grown;
        uint32_t len = 0;
        st = tn_routes_path(routes,
                            tn_topology_npu_node(topo, r),
                            tn_topology_npu_node(topo, op->peer),
                            ((uint64_t)r << 32) | op->peer,
                            w->paths + pn,
                            cap,
                            &len,
                            err);
        if (st)
            break;
        w->pidx[x] = (uint32_t)pn;
        double lat = 0, sf = 0, slow = 0;
        for (uint32_t i = 0; i < len; i++)
        {
            const tn_link* l = tn_topology_link(topo, w->paths[pn + i]);
            lat += (double)l->latency_ns;
            if (mtu && i + 1 < len)
                sf += (double)((op->length < mtu ? op->length : mtu) + ovh) * 8e9 /
                      (double)l->rate_bps;
            slow = i == 0 || (double)l->rate_bps < slow ? (double)l->rate_bps : slow;
        }
        uint64_t wire = tn_cost_wire_bytes(mtu, ovh, op->length);
        w->lat[x] = lat;
        w->sf[x] = sf;
        /* the fluid engine's bits: the serialisation at the slowest link, as tn_cost_estimate */
        w->bits[x] = op->length && len ? (double)wire * 8.0 : 0;
        pn += len;
        pairs[x] = ((uint64_t)r << 32) | op->peer;
    }
    if (!st)
    {
        w->pidx[w->T] = (uint32_t)pn;
        /* queue pair ids: the rank of (sender, receiver) among the distinct pairs */
        uint64_t* sorted = malloc(((size_t)w->T + 1) * sizeof(uint64_t));
        if (!sorted)
            st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        else
        {
            memcpy(sorted, pairs, (size_t)w->T * sizeof(uint64_t));
            qsort(sorted, w->T, sizeof(uint64_t), pair_cmp);
            for (uint32_t x = 0; x < w->T; x++)
            {
                const uint64_t* at = bsearch(&pairs[x], sorted, w->T, sizeof(uint64_t), pair_cmp);
                /* the first of equal keys: bsearch may land on any, step back */
                while (at > sorted && at[-1] == pairs[x])
                    at--;
                w->qid[x] = (uint32_t)(at - sorted);
            }
            free(sorted);
        }
    }
    free(pairs);
    tn_routes_destroy(routes);
    return st;
}

/* When the sender of transfer x learns that op d (of its sender or receiver) is done, with
 * completion messages (as tn_cost_estimate): at once for data it received, after the ACK of
 * a send of its own, after the receiver's notification for the rest. */
static double
wk_delay(const wk* w, uint32_t d, uint32_t x, bool completion)
{
    if (!completion)
        return 0;
    uint32_t r, k;
    const tn_program_op* o = op_at(w, d, &r, &k);
    uint32_t dx = w->xfer[d];
    bool sender_side = r == w->src[x];
    if (sender_side)
        return o->send ? w->lat[dx] : 0.0;
    return o->send ? w->lat[dx] + w->lat[x] : w->lat[x];
}

/* the event loop: posts in order of ready time, a queue pair sends one transfer at a time, the
 * sending ones share their links max-min fairly (tn-fluid.h) */
static tn_status
wk_run(wk* w,
       const tn_topology* topo,
       bool completion,
       double budget,
       double* out_ns,
       bool* finished,
       tn_error* err)
{
    uint32_t links = tn_topology_link_count(topo), T = w->T;
    double* cap = malloc(((size_t)links + 1) * sizeof(double));
    uint32_t* fid = malloc(((size_t)T + 1) * sizeof(uint32_t));
    wev* heap = malloc(((size_t)T + 1) * sizeof(wev));
    uint8_t* qbusy = calloc((size_t)T + 1, 1);
    uint32_t* qhead = malloc(((size_t)T + 1) * sizeof(uint32_t));
    uint32_t* qtail = malloc(((size_t)T + 1) * sizeof(uint32_t));
    uint32_t* wnext = malloc(((size_t)T + 1) * sizeof(uint32_t));
    w->pending = malloc(((size_t)T + 1) * sizeof(uint32_t));
    w->ready = calloc((size_t)T + 1, sizeof(double));
    tn_fluid* f = NULL;
    tn_status st = TN_OK;
    if (!cap || !fid || !heap || !qbusy || !qhead || !qtail || !wnext || !w->pending || !w->ready)
        st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    for (uint32_t l = 0; l < links && !st; l++)
        cap[l] = (double)tn_topology_link(topo, l)->rate_bps / 1e9;
    if (!st)
        st = tn_fluid_create(links, cap, &f, err);
    uint32_t hn = 0, ended = 0;
    double total = 0, now = 0;
    for (uint32_t x = 0; x < T && !st; x++)
    {
        uint32_t r, k;
        const tn_program_op* s = op_at(w, w->sop[x], &r, &k);
        const tn_program_op* v = op_at(w, w->rop[x], &r, &k);
        w->pending[x] = s->dep_count + v->dep_count;
        qhead[x] = UINT32_MAX;
        if (w->pending[x] == 0)
        {
            wev e = {0.0, s->step, x};
            wpush(heap, &hn, e);
        }
    }
    *finished = false;
    while (!st)
    {
        double end = 0;
        uint32_t x = 0;
        bool any = tn_fluid_next(f, &end, NULL, &x);
        if (tn_fluid_dirty(f) && (hn == 0 || heap[0].ready > now) && (!any || end > now))
        {
            st = tn_fluid_update(f, now, err);
            /* past the budget, or on the way to it: the refills so far, per transfer done, for
             * every transfer (from a sixteenth of them on: swing on torus:32x32 at 64 MiB
             * visits 26 x and would spend 0.9 s reaching the budget of 8) */
            double visited = (double)tn_fluid_visited(f);
            if (!st && (visited > budget ||
                        (16 * (uint64_t)ended >= T && visited * T > budget * (double)ended)))
                break; /* *finished stays false */
            continue;
        }
        if (hn == 0 && !any)
        {
            *finished = true;
            break;
        }
        bool done = false;
        double fin = 0;
        if (any && (hn == 0 || end <= heap[0].ready))
        {
            now = end;
            tn_fluid_end(f, fid[x], now, now);
            done = true;
            fin = now + w->lat[x] + w->sf[x];
        }
        else
        {
            wev e = wpop(heap, &hn);
            x = e.id;
            now = e.ready;
            if (w->bits[x] == 0)
            {
                done = true;
                fin = now + w->lat[x];
            }
            else if (qbusy[w->qid[x]]) /* behind the transfers posted before it on its pair */
            {
                uint32_t q = w->qid[x];
                wnext[x] = UINT32_MAX;
                if (qhead[q] == UINT32_MAX)
                    qhead[q] = x;
                else
                    wnext[qtail[q]] = x;
                qtail[q] = x;
                continue;
            }
            else
            {
                qbusy[w->qid[x]] = 1;
                st = tn_fluid_start(f,
                                    w->paths + w->pidx[x],
                                    w->pidx[x + 1] - w->pidx[x],
                                    w->bits[x],
                                    now,
                                    x,
                                    &fid[x],
                                    err);
                continue;
            }
        }
        if (!done)
            continue;
        total = fin > total ? fin : total;
        ended++;
        /* release the successors of both of its ops */
        uint32_t ends[2] = {w->sop[x], w->rop[x]};
        for (int e2 = 0; e2 < 2; e2++)
            for (uint32_t j = w->sstart[ends[e2]]; j < w->sstart[ends[e2] + 1]; j++)
            {
                uint32_t y = w->xfer[w->succ[j]];
                double known = fin + wk_delay(w, ends[e2], y, completion);
                w->ready[y] = known > w->ready[y] ? known : w->ready[y];
                if (--w->pending[y] == 0)
                {
                    uint32_t r, k;
                    wev ev = {w->ready[y], op_at(w, w->sop[y], &r, &k)->step, y};
                    wpush(heap, &hn, ev);
                }
            }
        if (w->bits[x] == 0)
            continue;
        /* its queue pair sends the next transfer posted on it */
        uint32_t q = w->qid[x];
        uint32_t nx = qhead[q];
        if (nx == UINT32_MAX)
        {
            qbusy[q] = 0;
            continue;
        }
        qhead[q] = wnext[nx];
        st = tn_fluid_start(f,
                            w->paths + w->pidx[nx],
                            w->pidx[nx + 1] - w->pidx[nx],
                            w->bits[nx],
                            now,
                            nx,
                            &fid[nx],
                            err);
    }
    if (!st && *finished)
        *out_ns = total;
    tn_fluid_destroy(f);
    free(cap);
    free(fid);
    free(heap);
    free(qbusy);
    free(qhead);
    free(qtail);
    free(wnext);
    return st;
}

tn_status
tn_cost_walk(const tn_program* p,
             const tn_cost_options* options,
             double* out_ns,
             bool* answered,
             tn_error* err)
{
    *answered = false;
    const tn_topology* topo = tn_program_topology(p);
    if (!topo)
        return TN_OK;
    wk w;
    memset(&w, 0, sizeof(w));
    w.N = tn_program_ranks(p);
    bool fits = false;
    tn_status st = wk_build(&w, p, TN_COST_WALK_OPS, &fits, err);
    if (!st && fits)
        st = wk_paths(&w, topo, options, err);
    if (!st && fits)
    {
        double budget = TN_COST_WALK_WORK * ((double)w.T + (double)w.pidx[w.T]);
        st = wk_run(&w,
                    topo,
                    options && options->completion_messages,
                    budget,
                    out_ns,
                    answered,
                    err);
    }
    wk_free(&w);
    return st;
}
