/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Alpha-beta cost model of schedules (contract in tn-cost.h).
 */
#include "tn-cost.h"

#include "tn-array.h"
#include "tn-verify.h"

#include <stdlib.h>
#include <string.h>

typedef struct hent
{
    double ready;
    uint32_t step;
    uint32_t id;
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

/* Fill qnext and turn (1 = first of its queue); 0 or TN_ENOMEM. */
static tn_status
step_queues(const tn_schedule* s,
            const uint32_t* path_index,
            const uint32_t* path_ids,
            uint32_t* qnext,
            uint8_t* turn,
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
    for (uint32_t k = 0; k < n; k++)
    {
        bool same =
            k + 1 < n && keys[k + 1].pair == keys[k].pair && keys[k + 1].path == keys[k].path;
        qnext[keys[k].id] = same ? keys[k + 1].id : TN_TRANSFER_NONE;
        turn[keys[k].id] =
            k == 0 || keys[k - 1].pair != keys[k].pair || keys[k - 1].path != keys[k].path;
    }
    free(keys);
    return TN_OK;
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
    if (!tn_schedule_is_finalized(s))
    {
        return tn_error_set(err, TN_EINVAL, "cost: schedule is not finalized");
    }
    uint32_t N = tn_schedule_ranks(s);
    uint32_t n = tn_schedule_count(s);
    uint64_t def_rate = options && options->rate_bps ? options->rate_bps : TN_TOPO_DEFAULT_RATE_BPS;
    uint64_t def_lat = options ? options->latency_ns : TN_TOPO_DEFAULT_LATENCY_NS;
    uint32_t mtu = options ? options->mtu : 0;
    uint32_t overhead = mtu > 0 ? options->packet_overhead : 0;
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
    uint32_t link_count = (uint32_t)link_count64;
    tn_status status = TN_OK;
    tn_routes* own = NULL;
    tn_cost_result* res = calloc(1, sizeof(*res));
    uint32_t* path_index = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t* path_ids = NULL;
    size_t path_cap = 0;
    double* lat = malloc(((size_t)n + 1) * sizeof(double));
    double* ser = malloc(((size_t)n + 1) * sizeof(double));
    double* ready = calloc((size_t)n + 1, sizeof(double));
    uint32_t* pending = malloc(((size_t)n + 1) * sizeof(uint32_t));
    double* link_free = calloc((size_t)link_count + 1, sizeof(double));
    uint32_t* qnext = NULL;
    uint8_t* turn = NULL;
    uint8_t* parked = NULL;
    hent* heap = malloc(((size_t)n + 1) * sizeof(hent));
    uint32_t* buf = NULL;
    uint32_t buf_cap = 0;
    if (!res || !path_index || !lat || !ser || !ready || !pending || !link_free || !heap)
    {
        status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        goto done;
    }
    res->link_count = link_count;
    res->link_bytes = calloc((size_t)link_count + 1, sizeof(uint64_t));
    res->link_busy_ns = calloc((size_t)link_count + 1, sizeof(double));
    if (!res->link_bytes || !res->link_busy_ns)
    {
        status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        goto done;
    }
    if (options && options->keep_transfer_times)
    {
        res->transfer_count = n;
        res->start_ns = calloc((size_t)n + 1, sizeof(double));
        res->end_ns = calloc((size_t)n + 1, sizeof(double));
        if (!res->start_ns || !res->end_ns)
        {
            status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            goto done;
        }
    }
    if (topo && !routes)
    {
        for (uint32_t i = 0; i < n; i++)
        {
            uint32_t np;
            tn_schedule_path(s, i, &np);
            if (np == 0 && tn_schedule_transfer(s, i)->length > 0)
            {
                status = tn_routes_create(topo, NULL, &own, err);
                if (status)
                    goto done;
                routes = own;
                break;
            }
        }
    }
    if (topo)
    {
        buf_cap = tn_topology_node_count(topo) + 1;
        buf = malloc((size_t)buf_cap * sizeof(uint32_t));
        if (!buf)
        {
            status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            goto done;
        }
    }
    /* paths, latency and serialisation time per transfer */
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++)
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
                    goto done;
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
                    goto done;
            }
        }
        else
        {
            len = 1;
            if (!buf)
            {
                buf = malloc(sizeof(uint32_t));
                if (!buf)
                {
                    status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
                    goto done;
                }
                buf_cap = 1;
            }
            buf[0] = t->src * N + t->dst;
        }
        if (used + len > path_cap) /* (zero-length needs no array: NULL is not a failure) */
        {
            uint32_t* grown = tn_array_grow(path_ids, &path_cap, used + len, sizeof(*grown), 1024);
            if (!grown)
            {
                status = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
                goto done;
            }
            path_ids = grown;
        }
        double l = 0;
        uint64_t min_rate = UINT64_MAX;
        for (uint32_t k = 0; k < len; k++)
        {
            path_ids[used + k] = buf[k];
            uint64_t rate = topo ? tn_topology_link(topo, buf[k])->rate_bps : def_rate;
            l += (double)(topo ? tn_topology_link(topo, buf[k])->latency_ns : def_lat);
            if (rate < min_rate)
                min_rate = rate;
        }
        lat[i] = l;
        uint64_t wire = t->length;
        if (mtu > 0 && t->length > 0)
            wire += ((t->length - 1) / mtu + 1) * (uint64_t)overhead;
        ser[i] = (len > 0 && t->length > 0) ? (double)wire * 8e9 / (double)min_rate : 0.0;
        if (t->length > 0)
        {
            used += len;
        }
        res->total_bytes += t->length;
    }
    path_index[n] = (uint32_t)used;
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
        status = step_queues(s, path_index, path_ids, qnext, turn, err);
        if (status)
            goto done;
    }
    /* list scheduling in order of ready time */
    uint32_t hn = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        tn_schedule_deps(s, i, &pending[i]);
        if (pending[i] == 0)
        {
            hent e = {0.0, tn_schedule_transfer(s, i)->step, i};
            hpush(heap, &hn, e);
        }
    }
    double total = 0;
    while (hn > 0)
    {
        hent e = hpop(heap, &hn);
        uint32_t i = e.id;
        if (ordered && !turn[i])
        {
            parked[i] = 1; /* pushed again when its predecessor is posted */
            continue;
        }
        if (ordered && qnext[i] != TN_TRANSFER_NONE)
        {
            uint32_t j = qnext[i];
            turn[j] = 1;
            if (parked[j])
            {
                hent f = {ready[j] > e.ready ? ready[j] : e.ready,
                          tn_schedule_transfer(s, j)->step,
                          j};
                hpush(heap, &hn, f);
            }
        }
        /* each link is its own FIFO server: the transfer enters link k when its head
         * has crossed link k-1 and link k is free; links it has left serve others */
        const tn_transfer* t = tn_schedule_transfer(s, i);
        double start = e.ready;
        double head = e.ready;
        for (uint32_t k = path_index[i]; k < path_index[i + 1]; k++)
        {
            uint32_t l = path_ids[k];
            if (link_free[l] > head)
                head = link_free[l];
            if (k == path_index[i])
                start = head;
            link_free[l] = head + ser[i];
            head += topo ? (double)tn_topology_link(topo, l)->latency_ns : (double)def_lat;
            if (mtu > 0 && k + 1 < path_index[i + 1])
            {
                uint64_t packet = (t->length < mtu ? t->length : mtu) + overhead;
                uint64_t rate = topo ? tn_topology_link(topo, l)->rate_bps : def_rate;
                head += (double)packet * 8e9 / (double)rate;
            }
            res->link_bytes[l] += t->length;
            res->link_busy_ns[l] += ser[i];
            res->link_bytes_sum += t->length;
        }
        double end = path_index[i] == path_index[i + 1] ? start + lat[i] : head + ser[i];
        if (res->start_ns)
        {
            res->start_ns[i] = start;
            res->end_ns[i] = end;
        }
        if (end > total)
            total = end;
        uint32_t ns;
        const uint32_t* succ = tn_schedule_succs(s, i, &ns);
        for (uint32_t k = 0; k < ns; k++)
        {
            uint32_t w = succ[k];
            if (end > ready[w])
                ready[w] = end;
            if (--pending[w] == 0)
            {
                hent f = {ready[w], tn_schedule_transfer(s, w)->step, w};
                hpush(heap, &hn, f);
            }
        }
    }
    res->time_ns = total;
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
    free(pending);
    free(link_free);
    free(qnext);
    free(turn);
    free(parked);
    free(heap);
    free(buf);
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
