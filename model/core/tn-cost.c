/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Cost models of schedules, fluid and list (contract in tn-cost.h): both share the event
 * loop over the DAG and the path resolution; the fluid one runs its flows on tn-fluid.
 */
#include "tn-cost.h"

#include "tn-array.h"
#include "tn-fluid.h"
#include "tn-path.h"

#include <stdlib.h>
#include <string.h>

typedef struct hent
{
    double ready;
    uint32_t step;
    uint32_t id;
    uint32_t hop; /* 0: posting; k > 0: the head reaches the k-th link of the path */
} hent;

/* ready time first; among transfers ready at once the earlier step, then the smaller id */
static bool
hless(const hent* a, const hent* b)
{
    if (a->ready != b->ready)
        return a->ready < b->ready;
    return a->step != b->step ? a->step < b->step : a->id < b->id;
}

static void
hpush(hent* h, uint32_t* n, hent e)
{
    uint32_t i = (*n)++;
    h[i] = e;
    while (i > 0 && hless(&h[i], &h[(i - 1) / 2]))
    {
        hent t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static hent
hpop(hent* h, uint32_t* n)
{
    hent top = h[0];
    h[0] = h[--(*n)];
    for (uint32_t i = 0;;)
    {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && hless(&h[l], &h[m]))
            m = l;
        if (r < *n && hless(&h[r], &h[m]))
            m = r;
        if (m == i)
            break;
        hent t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

/* The DAG walk both models share: posts in order of ready time (hent heap), step order
 * queues, and the release of successors when a transfer ends. */
typedef struct walk
{
    const tn_schedule* s;
    hent* heap;
    uint32_t hn;
    double* ready;
    uint32_t* pending;
    const uint32_t* qnext; /* step order only (NULL otherwise) */
    uint8_t* turn;
    uint8_t* parked;
    tn_cost_result* res;
    double total;
    const double* lat; /* per transfer: its path's latency */
    int completion;    /* tn_cost_options.completion_messages */
} walk;

/* every transfer pending on its deps, the ones without deps ready at time 0 */
static void
walk_start(walk* w)
{
    uint32_t n = tn_schedule_count(w->s);
    for (uint32_t i = 0; i < n; i++)
    {
        tn_schedule_deps(w->s, i, &w->pending[i]);
        if (w->pending[i] == 0)
        {
            hent e = {0.0, tn_schedule_transfer(w->s, i)->step, i, 0};
            hpush(w->heap, &w->hn, e);
        }
    }
}

/* e was popped as a posting: false if it must wait for its predecessor in its step-order
 * queue (it is pushed again when that one is posted). */
static bool
walk_post(walk* w, hent e)
{
    uint32_t i = e.id;
    if (!w->qnext)
        return true;
    if (!w->turn[i])
    {
        w->parked[i] = 1;
        return false;
    }
    uint32_t j = w->qnext[i];
    if (j != TN_TRANSFER_NONE)
    {
        w->turn[j] = 1;
        if (w->parked[j])
        {
            hent f = {w->ready[j] > e.ready ? w->ready[j] : e.ready,
                      tn_schedule_transfer(w->s, j)->step,
                      j,
                      0};
            hpush(w->heap, &w->hn, f);
        }
    }
    return true;
}

/* When the sender of transfer t learns that its dependency d is done (completion_messages):
 * at once for data it received, after the ACK of a send of its own, after a notification
 * for the rest. Every dependency of the registered algorithms is a transfer of t's sender or
 * receiver; the latencies of their paths stand for the reverse ones (links come in pairs). */
static double
completion_delay(const walk* w, uint32_t d, uint32_t t)
{
    const tn_transfer* D = tn_schedule_transfer(w->s, d);
    const tn_transfer* T = tn_schedule_transfer(w->s, t);
    if (D->dst == T->src)
        return 0.0;
    if (D->src == T->src)
        return w->lat[d]; /* the ACK of its own send */
    if (D->dst == T->dst)
        return w->lat[t]; /* the receiver's notification */
    if (D->src == T->dst)
        return w->lat[d] + w->lat[t]; /* ACKed at the receiver, then notified */
    return w->lat[t];
}

static void
walk_done(walk* w, uint32_t i, double start, double end)
{
    if (w->res->start_ns)
    {
        w->res->start_ns[i] = start;
        w->res->end_ns[i] = end;
    }
    if (end > w->total)
        w->total = end;
    uint32_t ns;
    const uint32_t* succ = tn_schedule_succs(w->s, i, &ns);
    for (uint32_t q = 0; q < ns; q++)
    {
        uint32_t v = succ[q];
        double known = w->completion ? end + completion_delay(w, i, v) : end;
        if (known > w->ready[v])
            w->ready[v] = known;
        if (--w->pending[v] == 0)
        {
            hent f = {w->ready[v], tn_schedule_transfer(w->s, v)->step, v, 0};
            hpush(w->heap, &w->hn, f);
        }
    }
}

/* per-hop times of the contract */
typedef struct hops
{
    const tn_topology* topo;
    uint64_t def_rate;
    uint64_t def_lat;
    uint32_t mtu;
    uint32_t overhead;
} hops;

static double
hop_latency(const hops* h, uint32_t l)
{
    return (double)(h->topo ? tn_topology_link(h->topo, l)->latency_ns : h->def_lat);
}

/* deps of transfer i of a finalized schedule (a protocol's launch latency is for none) */
static uint32_t
ndeps_of(const tn_schedule* s, uint32_t i)
{
    uint32_t count = 0;
    (void)tn_schedule_deps(s, i, &count);
    return count;
}

/* store and forward of one packet at link l before the head enters the next link */
static double
hop_packet(const hops* h, uint32_t l, uint64_t length)
{
    if (h->mtu == 0)
        return 0.0;
    uint64_t packet = (length < h->mtu ? length : h->mtu) + h->overhead;
    uint64_t rate = h->topo ? tn_topology_link(h->topo, l)->rate_bps : h->def_rate;
    return (double)packet * 8e9 / (double)rate;
}

static double
link_rate(const hops* h, uint32_t l)
{
    return (double)(h->topo ? tn_topology_link(h->topo, l)->rate_bps : h->def_rate);
}

/* the engine's bits for transfer i: its serialisation time at its path's slowest link */
static double
wire_bits(const double* cap,
          const uint32_t* path_index,
          const uint32_t* path_ids,
          const double* ser,
          uint32_t i)
{
    double m = cap[path_ids[path_index[i]]];
    for (uint32_t k = path_index[i] + 1; k < path_index[i + 1]; k++)
        m = cap[path_ids[k]] < m ? cap[path_ids[k]] : m;
    return ser[i] * m;
}

/* The fluid model: a queue pair (qid) sends its posted transfers one at a time; the one it
 * sends is a flow of the fluid engine (tn-fluid.h) on its path and ends when its wire bits
 * have crossed, plus its latency and the store and forward of one packet per hop.
 * Transfers whose path is empty or that carry no bytes cost their latency. */
static tn_status
fluid_run(walk* w,
          const hops* h,
          const uint32_t* path_index,
          const uint32_t* path_ids,
          const uint32_t* qid,
          const double* lat,
          const double* ser,
          uint32_t link_count,
          double budget,
          bool* finished,
          tn_error* err)
{
    uint32_t n = tn_schedule_count(w->s);
    tn_fluid* f = NULL;
    double* cap = malloc(((size_t)link_count + 1) * sizeof(double));
    uint32_t* fid = malloc(((size_t)n + 1) * sizeof(uint32_t)); /* transfer -> flow */
    double* start = calloc((size_t)n + 1, sizeof(double));
    /* per queue pair (qid): sending, and the FIFO of posted messages waiting behind */
    uint8_t* qbusy = calloc((size_t)n + 1, 1);
    uint32_t* qhead = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* qtail = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* wnext = malloc(((size_t)n + 1) * sizeof(uint32_t));
    tn_status status = TN_OK;
    if (!cap || !fid || !start || !qbusy || !qhead || !qtail || !wnext)
    {
        status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        goto done;
    }
    for (uint32_t l = 0; l < link_count; l++)
        cap[l] = link_rate(h, l) / 1e9;
    status = tn_fluid_create(link_count, cap, &f, err);
    if (status)
        goto done;
    /* the budget (TN_COST_FLUID_WORK) counts the flows of every refilled component, as it
     * did before the engine recomputed only the flows whose rates may change: the same
     * plans keep the model they had */
    tn_fluid_set_whole(f, true);
    for (uint32_t q = 0; q < n; q++)
        qhead[q] = TN_TRANSFER_NONE;
    *finished = false;
    double now = 0;
    for (;;)
    {
        double end = 0;
        uint32_t ending = 0;
        bool any = tn_fluid_next(f, &end, NULL, &ending);
        /* rates change once all events of an instant are handled */
        if (tn_fluid_dirty(f) && (w->hn == 0 || w->heap[0].ready > now) && (!any || end > now))
        {
            status = tn_fluid_update(f, now, err);
            if (status)
                goto done;
            if ((double)tn_fluid_visited(f) > budget)
                goto done; /* *finished stays false */
            continue;
        }
        if (w->hn == 0 && !any)
            break;
        uint32_t i;
        if (any && (w->hn == 0 || end <= w->heap[0].ready))
        {
            i = ending;
            now = end;
            tn_fluid_end(f, fid[i], now, now);
            double sf = 0;
            for (uint32_t k = path_index[i]; k + 1 < path_index[i + 1]; k++)
                sf += hop_packet(h, path_ids[k], tn_schedule_transfer(w->s, i)->length);
            walk_done(w, i, start[i], now + lat[i] + sf);
            /* the queue pair sends its next message */
            uint32_t q = qid[i];
            i = qhead[q];
            if (i == TN_TRANSFER_NONE)
            {
                qbusy[q] = 0;
                continue;
            }
            qhead[q] = wnext[i];
        }
        else
        {
            hent e = hpop(w->heap, &w->hn);
            i = e.id;
            now = e.ready;
            if (!walk_post(w, e))
                continue;
            if (path_index[i] == path_index[i + 1] || ser[i] == 0)
            {
                start[i] = now;
                walk_done(w, i, now, now + lat[i]);
                continue;
            }
            uint32_t q = qid[i];
            if (qbusy[q]) /* behind the messages posted before it on its queue pair */
            {
                start[i] = now;
                wnext[i] = TN_TRANSFER_NONE;
                if (qhead[q] == TN_TRANSFER_NONE)
                    qhead[q] = i;
                else
                    wnext[qtail[q]] = i;
                qtail[q] = i;
                continue;
            }
            qbusy[q] = 1;
        }
        start[i] = now;
        status = tn_fluid_start(f,
                                path_ids + path_index[i],
                                path_index[i + 1] - path_index[i],
                                wire_bits(cap, path_index, path_ids, ser, i),
                                now,
                                i,
                                &fid[i],
                                err);
        if (status)
            goto done;
    }
    *finished = true;
done:
    tn_fluid_destroy(f);
    free(cap);
    free(fid);
    free(start);
    free(qbusy);
    free(qhead);
    free(qtail);
    free(wnext);
    return status;
}

void
tn_cost_result_destroy(tn_cost_result* r)
{
    if (r)
    {
        free(r->link_bytes);
        free(r->link_busy_ns);
        free(r->start_ns);
        free(r->end_ns);
        free(r);
    }
}

/* Step order (tn_schedule_step_ordered): transfers are queued per (src, dst, path) and
 * sorted by (step, id); qnext[i] is i's successor in its queue, TN_TRANSFER_NONE at the end. */
typedef struct qkey
{
    uint64_t pair; /* src << 32 | dst */
    uint64_t path; /* FNV-1a of the path's link ids */
    uint32_t step;
    uint32_t id;
} qkey;

static int
qkey_cmp(const void* a, const void* b)
{
    const qkey* x = a;
    const qkey* y = b;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    if (x->path != y->path)
        return x->path < y->path ? -1 : 1;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return x->id < y->id ? -1 : (x->id > y->id);
}

static uint64_t
path_hash(const uint32_t* ids, uint32_t from, uint32_t to)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t k = from; k < to; k++)
        h = (h ^ ids[k]) * 1099511628211ULL;
    return h;
}

/* Fill qnext and turn (1 = first of its queue) unless NULL, and qid (the queue's index)
 * unless NULL; 0 or TN_ENOMEM. */
static tn_status
step_queues(const tn_schedule* s,
            const uint32_t* path_index,
            const uint32_t* path_ids,
            uint32_t* qnext,
            uint8_t* turn,
            uint32_t* qid,
            tn_error* err)
{
    uint32_t n = tn_schedule_count(s);
    qkey* keys = malloc(((size_t)n + 1) * sizeof(qkey));
    if (!keys)
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        keys[i].pair = ((uint64_t)t->src << 32) | t->dst;
        keys[i].path = path_hash(path_ids, path_index[i], path_index[i + 1]);
        keys[i].step = t->step;
        keys[i].id = i;
    }
    qsort(keys, n, sizeof(qkey), qkey_cmp);
    uint32_t queue = 0;
    for (uint32_t k = 0; k < n; k++)
    {
        bool same =
            k + 1 < n && keys[k + 1].pair == keys[k].pair && keys[k + 1].path == keys[k].path;
        bool first = k == 0 || keys[k - 1].pair != keys[k].pair || keys[k - 1].path != keys[k].path;
        if (qnext)
        {
            qnext[keys[k].id] = same ? keys[k + 1].id : TN_TRANSFER_NONE;
            turn[keys[k].id] = first;
        }
        if (qid)
        {
            queue += first && k > 0;
            qid[keys[k].id] = queue;
        }
    }
    free(keys);
    return TN_OK;
}

/* The arguments' consistency: a finalized schedule, no more ranks than the topology's NPUs, and
 * the links counted (*link_count: the topology's, or one per ordered rank pair without one). */
static tn_status
cost_check(const tn_schedule* s, const tn_topology* topo, uint32_t* link_count, tn_error* err)
{
    if (!tn_schedule_is_finalized(s))
    {
        return tn_error_set(err, TN_EINVAL, "cost: schedule is not finalized");
    }
    uint32_t N = tn_schedule_ranks(s);
    if (topo && N > tn_topology_npu_count(topo))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "cost: schedule has %u ranks, topology '%s' has %u NPUs",
                            N,
                            tn_topology_name(topo),
                            tn_topology_npu_count(topo));
    }
    uint64_t link_count64 = topo ? tn_topology_link_count(topo) : (uint64_t)N * N;
    if (link_count64 > UINT32_MAX)
    {
        return tn_error_set(err, TN_EINVAL, "cost: too many ranks (%u) without a topology", N);
    }
    *link_count = (uint32_t)link_count64;
    return TN_OK;
}

/* A result for n transfers over link_count links: per-link sums, and per-transfer times when
 * keep_times. */
static tn_status
cost_result_new(uint32_t n,
                uint32_t link_count,
                bool keep_times,
                tn_cost_result** out,
                tn_error* err)
{
    tn_cost_result* res = calloc(1, sizeof(*res));
    if (!res)
    {
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    res->link_count = link_count;
    res->link_bytes = calloc((size_t)link_count + 1, sizeof(uint64_t));
    res->link_busy_ns = calloc((size_t)link_count + 1, sizeof(double));
    if (keep_times)
    {
        res->transfer_count = n;
        res->start_ns = calloc((size_t)n + 1, sizeof(double));
        res->end_ns = calloc((size_t)n + 1, sizeof(double));
    }
    if (!res->link_bytes || !res->link_busy_ns || (keep_times && (!res->start_ns || !res->end_ns)))
    {
        tn_cost_result_destroy(res);
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    *out = res;
    return TN_OK;
}

/* Routes of topo in *own when some network transfer with bytes has no path of its own (the
 * caller's *routes, when given, serve); *own stays NULL otherwise. */
static tn_status
cost_own_routes(const tn_schedule* s,
                const tn_topology* topo,
                const tn_routes* routes,
                tn_routes** own,
                tn_error* err)
{
    if (!topo || routes)
    {
        return TN_OK;
    }
    for (uint32_t i = 0; i < tn_schedule_count(s); i++)
    {
        uint32_t np;
        tn_schedule_path(s, i, &np);
        if (np == 0 && tn_schedule_transfer(s, i)->length > 0 &&
            !tn_op_is_local(tn_schedule_transfer(s, i)->op))
        {
            return tn_routes_create(topo, NULL, own, err);
        }
    }
    return TN_OK;
}

/* Per transfer i: its links path_ids[path_index[i] .. path_index[i + 1]) (*path_ids grown here,
 * *path_cap its capacity), its path's latency lat[i] (the protocol's delay included) and its
 * serialisation time ser[i] at the path's slowest link; res->total_bytes summed. Without a
 * topology each ordered rank pair is one link. */
static tn_status
cost_paths(const tn_schedule* s,
           const hops* h,
           const tn_routes* routes,
           const tn_cost_protocol* protocol,
           uint32_t* path_index,
           uint32_t** path_ids,
           size_t* path_cap,
           double* lat,
           double* ser,
           tn_cost_result* res,
           tn_error* err)
{
    const tn_topology* topo = h->topo;
    uint32_t N = tn_schedule_ranks(s);
    uint32_t n = tn_schedule_count(s);
    uint32_t buf_cap = topo ? tn_topology_node_count(topo) + 1 : 1;
    uint32_t* buf = malloc((size_t)buf_cap * sizeof(uint32_t));
    if (!buf)
    {
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    tn_status status = TN_OK;
    size_t used = 0;
    for (uint32_t i = 0; i < n && !status; i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        uint32_t len = 0;
        path_index[i] = (uint32_t)used;
        if (topo)
        {
            uint32_t np;
            tn_schedule_path(s, i, &np);
            if (np + 1 > buf_cap)
            {
                uint32_t* p = realloc(buf, ((size_t)np + 1) * sizeof(uint32_t));
                if (!p)
                {
                    status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
                    break;
                }
                buf = p;
                buf_cap = np + 1;
            }
            if (t->length == 0 && np == 0 && !routes)
            {
                len = 0; /* sync only, no routes computed: zero latency */
            }
            else
            {
                status = tn_transfer_links(s, i, topo, routes, buf, buf_cap, &len, err);
                if (status)
                    break;
            }
        }
        else if (!tn_op_is_local(t->op))
        {
            len = 1;
            buf[0] = t->src * N + t->dst;
        }
        if (used + len > *path_cap) /* (zero-length needs no array: NULL is not a failure) */
        {
            uint32_t* grown = tn_array_grow(*path_ids, path_cap, used + len, sizeof(*grown), 1024);
            if (!grown)
            {
                status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
                break;
            }
            *path_ids = grown;
        }
        double l = 0;
        uint64_t min_rate = UINT64_MAX;
        for (uint32_t k = 0; k < len; k++)
        {
            (*path_ids)[used + k] = buf[k];
            uint64_t rate = topo ? tn_topology_link(topo, buf[k])->rate_bps : h->def_rate;
            l += (double)(topo ? tn_topology_link(topo, buf[k])->latency_ns : h->def_lat);
            if (rate < min_rate)
                min_rate = rate;
        }
        lat[i] = l + tn_cost_protocol_delay_ns(protocol, t->dim, ndeps_of(s, i));
        uint64_t wire = tn_cost_protocol_wire(protocol, t->dim, t->length);
        if (h->mtu > 0 && t->length > 0)
            wire += ((wire - 1) / h->mtu + 1) * (uint64_t)h->overhead;
        ser[i] = (len > 0 && t->length > 0) ? (double)wire * 8e9 / (double)min_rate : 0.0;
        if (t->length > 0)
        {
            used += len;
        }
        res->total_bytes += t->length;
    }
    path_index[n] = (uint32_t)used;
    free(buf);
    return status;
}

/* The list schedule: every event is a transfer's head reaching the next link of its path
 * (hop 0: posted), handled in time order, so each link serves transfers in the order they
 * arrive at it and never idles while one waits. link_free and start_at are scratch (n + 1
 * and link_count + 1 entries, link_free zero). */
static void
list_run(walk* w,
         const hops* h,
         const uint32_t* path_index,
         const uint32_t* path_ids,
         const double* lat,
         const double* ser,
         double* link_free,
         double* start_at)
{
    const tn_schedule* s = w->s;
    while (w->hn > 0)
    {
        hent e = hpop(w->heap, &w->hn);
        uint32_t i = e.id;
        if (e.hop == 0 && !walk_post(w, e))
            continue;
        if (path_index[i] == path_index[i + 1])
        {
            walk_done(w, i, e.ready, e.ready + lat[i]);
            continue;
        }
        uint32_t k = path_index[i] + (e.hop > 0 ? e.hop - 1 : 0);
        uint32_t l = path_ids[k];
        double head = e.ready > link_free[l] ? e.ready : link_free[l];
        if (k == path_index[i])
            start_at[i] = head;
        link_free[l] = head + ser[i];
        head += hop_latency(h, l);
        if (k + 1 < path_index[i + 1])
        {
            hent f = {head + hop_packet(h, l, tn_schedule_transfer(s, i)->length),
                      e.step,
                      i,
                      k - path_index[i] + 2};
            hpush(w->heap, &w->hn, f);
            continue;
        }
        walk_done(w, i, start_at[i], head + ser[i]);
    }
}

tn_status
tn_cost_estimate(const tn_schedule* s,
                 const tn_topology* topo,
                 const tn_routes* routes,
                 const tn_cost_options* options,
                 tn_cost_result** out,
                 tn_error* err)
{
    if (!s || !out)
    {
        return tn_error_set(err, TN_EINVAL, "cost: schedule or out is NULL");
    }
    *out = NULL;
    uint32_t link_count = 0;
    tn_status status = cost_check(s, topo, &link_count, err);
    if (status)
    {
        return status;
    }
    uint32_t n = tn_schedule_count(s);
    uint64_t def_rate = options && options->rate_bps ? options->rate_bps : TN_TOPO_DEFAULT_RATE_BPS;
    uint64_t def_lat = options ? options->latency_ns : TN_TOPO_DEFAULT_LATENCY_NS;
    uint32_t mtu = options ? options->mtu : 0;
    uint32_t overhead = mtu > 0 ? options->packet_overhead : 0;
    const tn_cost_protocol* protocol = options ? options->protocol : NULL;
    tn_routes* own = NULL;
    tn_cost_result* res = NULL;
    uint32_t* path_index = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t* path_ids = NULL;
    size_t path_cap = 0;
    double* lat = malloc(((size_t)n + 1) * sizeof(double));
    double* ser = malloc(((size_t)n + 1) * sizeof(double));
    double* ready = calloc((size_t)n + 1, sizeof(double));
    double* start_at = calloc((size_t)n + 1, sizeof(double));
    uint32_t* pending = malloc(((size_t)n + 1) * sizeof(uint32_t));
    double* link_free = calloc((size_t)link_count + 1, sizeof(double));
    uint32_t* qnext = NULL;
    uint8_t* turn = NULL;
    uint8_t* parked = NULL;
    uint32_t* qid = NULL;
    hent* heap = malloc(((size_t)n + 1) * sizeof(hent));
    if (!path_index || !lat || !ser || !ready || !pending || !link_free || !heap)
    {
        status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        goto done;
    }
    status = cost_result_new(n, link_count, options && options->keep_transfer_times, &res, err);
    if (status)
        goto done;
    status = cost_own_routes(s, topo, routes, &own, err);
    if (status)
        goto done;
    routes = own ? own : routes;
    /* paths, latency and serialisation time per transfer */
    hops h = {topo, def_rate, def_lat, mtu, overhead};
    status =
        cost_paths(s, &h, routes, protocol, path_index, &path_ids, &path_cap, lat, ser, res, err);
    if (status)
        goto done;
    /* step order: a transfer also waits for its turn in its queue */
    bool ordered = tn_schedule_step_ordered(s);
    if (ordered)
    {
        qnext = malloc(((size_t)n + 1) * sizeof(uint32_t));
        turn = calloc((size_t)n + 1, 1);
        parked = calloc((size_t)n + 1, 1);
        if (!qnext || !turn || !parked)
        {
            status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            goto done;
        }
        status = step_queues(s, path_index, path_ids, qnext, turn, NULL, err);
        if (status)
            goto done;
    }
    bool fluid = !options || options->model == TN_COST_FLUID;
    if (fluid)
    {
        qid = malloc(((size_t)n + 1) * sizeof(uint32_t));
        if (!qid)
        {
            status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            goto done;
        }
        status = step_queues(s, path_index, path_ids, NULL, NULL, qid, err);
        if (status)
            goto done;
    }
    for (uint32_t i = 0; i < n; i++) /* link statistics do not depend on the model */
    {
        for (uint32_t k = path_index[i]; k < path_index[i + 1]; k++)
        {
            uint64_t len = tn_schedule_transfer(s, i)->length;
            res->link_bytes[path_ids[k]] += len;
            res->link_busy_ns[path_ids[k]] += ser[i];
            res->link_bytes_sum += len;
        }
    }
    walk w = {s, heap, 0, ready, pending, qnext, turn, parked, res, 0.0, lat, 0};
    w.completion = options && options->completion_messages;
    walk_start(&w);
    res->model = TN_COST_LIST;
    if (fluid)
    {
        /* where many flows share links at once (all-to-all-like plans on switched
         * fabrics) refilling costs time quadratic in the flows: give up after a budget
         * of flow visits and use the list model, which the result reports */
        double budget = TN_COST_FLUID_WORK * ((double)n + (double)path_index[n]);
        bool finished = false;
        status = fluid_run(&w,
                           &h,
                           path_index,
                           path_ids,
                           qid,
                           lat,
                           ser,
                           link_count,
                           budget,
                           &finished,
                           err);
        if (status)
            goto done;
        if (finished)
            res->model = TN_COST_FLUID;
        else
        {
            memset(ready, 0, ((size_t)n + 1) * sizeof(double));
            if (ordered)
            {
                memset(parked, 0, (size_t)n + 1);
                status = step_queues(s, path_index, path_ids, qnext, turn, NULL, err);
                if (status)
                    goto done;
            }
            w.hn = 0;
            w.total = 0.0;
            walk_start(&w);
        }
    }
    if (res->model == TN_COST_LIST)
        list_run(&w, &h, path_index, path_ids, lat, ser, link_free, start_at);
    res->time_ns = w.total;
    for (uint32_t k = 0; k < link_count; k++)
    {
        if (res->link_busy_ns[k] > res->max_link_busy_ns)
            res->max_link_busy_ns = res->link_busy_ns[k];
    }
    *out = res;
    res = NULL;
done:
    tn_cost_result_destroy(res);
    tn_routes_destroy(own);
    free(path_index);
    free(path_ids);
    free(lat);
    free(ser);
    free(ready);
    free(start_at);
    free(pending);
    free(link_free);
    free(qnext);
    free(turn);
    free(parked);
    free(qid);
    free(heap);
    return status;
}

double
tn_algbw(uint64_t bytes, double time_ns)
{
    return time_ns > 0 ? (double)bytes * 1e9 / time_ns : 0.0;
}

double
tn_busbw(tn_collective coll, uint32_t ranks, uint64_t bytes, double time_ns)
{
    double alg = tn_algbw(bytes, time_ns);
    if (ranks == 0)
        return 0.0;
    double n = (double)ranks;
    switch (coll)
    {
    case TN_COLL_ALL_REDUCE:
        return alg * 2.0 * (n - 1) / n;
    case TN_COLL_REDUCE_SCATTER:
    case TN_COLL_ALL_GATHER:
    case TN_COLL_ALL_TO_ALL:
        return alg * (n - 1) / n;
    default:
        return alg;
    }
}

double
tn_cost_ring_allreduce_ns(uint32_t ranks, uint64_t bytes, double latency_ns, uint64_t rate_bps)
{
    if (ranks < 2)
        return 0.0;
    return 2.0 * (ranks - 1) *
           (latency_ns + (double)bytes * 8e9 / ((double)ranks * (double)rate_bps));
}

double
tn_cost_allreduce_lower_bound_ns(uint32_t ranks, uint64_t bytes, uint64_t injection_bps)
{
    if (ranks < 2)
        return 0.0;
    return 2.0 * (ranks - 1) / (double)ranks * (double)bytes * 8e9 / (double)injection_bps;
}

static bool
intra_hop(const tn_cost_protocol* protocol, int32_t dim)
{
    return dim == 0 || protocol->servers <= 1;
}

uint64_t
tn_cost_protocol_wire(const tn_cost_protocol* protocol, int32_t dim, uint64_t length)
{
    if (!protocol || length == 0)
    {
        return length;
    }
    uint64_t wire = length;
    if (protocol->line_data > 0)
    {
        uint64_t lines = (length - 1) / protocol->line_data + 1;
        wire = tn_sat_mul(lines, protocol->line_bytes);
    }
    bool intra = intra_hop(protocol, dim);
    double e = intra ? protocol->intra_efficiency : 0.0;
    double k = intra ? protocol->intra_scale : protocol->inter_scale;
    bool effic = e > 0 && e<1, scale = k> 0 && k != 1;
    if (effic || scale)
    {
        double scaled = (double)wire * (scale ? k : 1.0) / (effic ? e : 1.0);
        if (scaled >= 1.8e19)
            return UINT64_MAX;
        wire = (uint64_t)scaled;
        wire += (double)wire < scaled ? 1 : 0; /* rounded up */
    }
    return wire;
}

double
tn_cost_protocol_delay_ns(const tn_cost_protocol* protocol, int32_t dim, uint32_t deps)
{
    if (!protocol)
    {
        return 0.0;
    }
    bool intra = intra_hop(protocol, dim);
    double extra = intra ? protocol->intra_hop_ns - protocol->intra_path_ns
                         : protocol->inter_hop_ns - protocol->inter_path_ns;
    return (deps == 0 ? protocol->launch_ns : 0.0) + (extra > 0 ? extra : 0.0);
}
