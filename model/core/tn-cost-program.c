/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The per-step estimate of a generated collective (tn_cost_program, contract in
 * tn-cost.h): no DAG, only the programs of the evaluated ranks.
 */
#include "tn-array.h"
#include "tn-cost.h"
#include "tn-program-impl.h"

#include <stdlib.h>
#include <string.h>

/* one (link, wire bytes) use by an op of the current step */
typedef struct use
{
    uint64_t link; /* link id, or (src << 32 | dst) | 1 << 63 for a private pair link */
    uint64_t bytes;
    uint32_t op;
} use;

static int
cmp_use(const void* a, const void* b)
{
    const use* x = a;
    const use* y = b;
    return x->link < y->link ? -1 : x->link > y->link;
}

typedef struct est
{
    const tn_program* p;
    const tn_topology* topo;
    tn_routes* routes;
    uint64_t rate, lat;
    uint32_t mtu, ovh;
    use* uses;
    size_t nuses, ucap;
    use* sorted; /* the uses by link (counting sort on a topology's links) */
    size_t sorted_cap;
    size_t* counts; /* per topology link + 1: uses before it */
    uint32_t counts_n;
    double* op_base; /* per op of the step: latency + store and forward */
    double* op_ser;  /* per op of the step: slowest shared link */
    size_t ocap;
    uint32_t* path;
    uint32_t pcap;
    double* step_time; /* per step: the slowest over the evaluated ranks */
    double* step_ser;  /* pipelined: per step, the slowest serialisation over the ranks */
    double* step_base; /* pipelined: per step, the sum over ranks of their receive latency */
    uint32_t* step_n;  /* pipelined: per step, the ranks that receive in it */
    double* step_busy; /* per step: link busy time of the evaluated ranks' receives, summed */
    size_t scap5;
    /* completion messages (not pipelined): per step, the longest a sender of the step learns
     * of its deps after their data arrived (the ACK of its own send, the receiver's
     * notification) */
    double* step_wait;
    size_t scap6;
    bool completion;
    /* the longest path latency of a dep list's sends, for the list last asked of the
     * evaluated rank (stamp, start, count): generators share one list among ops (direct's
     * second phase: N - 1 sends on the same N - 1 receives), read once instead of N - 1 times */
    uint32_t acked_stamp, acked_start, acked_count;
    double acked_latency;
    size_t scap, scap2, scap3, scap4;
    /* every rank evaluated: per step and topology link, the busy time of the receives that
     * cross it (steps x links, NULL when not kept), so a step costs its busiest link */
    double* link_busy;
    size_t lcap;
    bool exact;
    bool half_busiest; /* a step costs the mean of its busiest link and the ranks' view */
    bool pipelined;
    uint32_t steps;
    uint32_t nodes;
    uint32_t cache_dest; /* next hops cached toward this node */
    uint32_t* nh_start;  /* per node: first next hop in pool */
    uint32_t* nh_count;  /* per node: next hops, UINT32_MAX = not cached */
    uint32_t* pool;
    size_t pool_n, pool_cap;
    /* the evaluated rank's paths by peer: every op of rank r with peer p (its sends and
     * receives, every step) takes the path from p to r of the pair's hash, so it is walked
     * once per rank (direct's 2 (N-1) ops have N-1 peers, the ring's 4 (N-1) two) */
    uint32_t stamp;       /* 1 + the evaluated rank's index */
    uint32_t* peer_stamp; /* per rank: stamp when its path is in peer_paths */
    uint32_t* peer_start; /* per rank: first link in peer_paths */
    uint32_t* peer_len;   /* per rank: links */
    uint32_t* peer_paths;
    size_t peer_paths_n, peer_paths_cap;
} est;

/* The uses grouped by link in ascending order, each link's in the order they came: a stable
 * sort by link. On a topology its link ids are dense, so a counting sort does it in O(uses +
 * links) (qsort was most of a generated estimate's time: direct on ring:32, 1000 chunks, 73%)
 * when there are at least a quarter as many uses as links; otherwise, and for private pair
 * links (no topology), qsort (glibc's merge sort, stable: the same order). false when out of
 * memory. */
static bool
sort_uses(est* e)
{
    uint32_t links = e->topo ? tn_topology_link_count(e->topo) : 0;
    if (!e->topo || links / 4 > e->nuses)
    {
        /* few uses on a large fabric: a pass over every link would cost more than the sort
         * (a ring on fattree:k=64, 393,216 links, 2 uses a step) */
        qsort(e->uses, e->nuses, sizeof(use), cmp_use);
        return true;
    }
    if (e->counts_n < links + 1)
    {
        size_t* c = realloc(e->counts, ((size_t)links + 1) * sizeof(size_t));
        if (!c)
            return false;
        e->counts = c;
        e->counts_n = links + 1;
    }
    use* out = tn_array_grow(e->sorted, &e->sorted_cap, e->nuses, sizeof(use), 64);
    if (!out)
        return false;
    e->sorted = out;
    memset(e->counts, 0, ((size_t)links + 1) * sizeof(size_t));
    for (size_t i = 0; i < e->nuses; i++)
        e->counts[e->uses[i].link + 1]++;
    for (uint32_t l = 0; l < links; l++)
        e->counts[l + 1] += e->counts[l];
    for (size_t i = 0; i < e->nuses; i++)
        out[e->counts[e->uses[i].link]++] = e->uses[i];
    /* swap the buffers: the sorted one becomes the uses */
    use* keep = e->uses;
    size_t keep_cap = e->ucap;
    e->uses = e->sorted;
    e->ucap = e->sorted_cap;
    e->sorted = keep;
    e->sorted_cap = keep_cap;
    return true;
}

static uint64_t
wire(const est* e, uint64_t len)
{
    return tn_cost_wire_bytes(e->mtu, e->ovh, len);
}

static double
rate_of(const est* e, uint64_t link)
{
    if (link >> 63)
        return (double)e->rate;
    return (double)tn_topology_link(e->topo, (uint32_t)link)->rate_bps;
}

/* a send takes the reverse of the path its peer's data would take to r (op_path) */
static tn_status
reverse_for_send(est* e, const tn_program_op* o, uint32_t n)
{
    if (o->send)
    {
        for (uint32_t i = 0; i < n / 2; i++)
        {
            uint32_t t = e->path[i];
            e->path[i] = e->path[n - 1 - i];
            e->path[n - 1 - i] = t;
        }
        for (uint32_t i = 0; i < n; i++)
            e->path[i] = tn_topology_link(e->topo, e->path[i])->reverse;
    }
    return TN_OK;
}

/* the links of op o of rank r into e->path (reversed for a send); *n links */
static tn_status
op_path(est* e, uint32_t r, const tn_program_op* o, uint32_t* n, tn_error* err)
{
    uint32_t from = tn_topology_npu_node(e->topo, o->peer);
    uint32_t to = tn_topology_npu_node(e->topo, r);
    /* a send's own path is not routed (only the evaluated ranks are destinations): the
     * path from the peer to r, reversed */
    uint64_t hash = ((uint64_t)o->peer << 32) | r;
    if (e->peer_stamp[o->peer] == e->stamp)
    {
        *n = e->peer_len[o->peer];
        memcpy(e->path, e->peer_paths + e->peer_start[o->peer], *n * sizeof(uint32_t));
        return reverse_for_send(e, o, *n);
    }
    /* tn_routes_path hop by hop, with the next hops toward `to` cached per node (a switch
     * of 2048 ports would scan its ports for every transfer through it) */
    if (e->cache_dest != to)
    {
        e->cache_dest = to;
        e->pool_n = 0;
        memset(e->nh_count, 0xff, e->nodes * sizeof(uint32_t));
    }
    uint32_t v = from, len = 0;
    while (v != to)
    {
        if (e->nh_count[v] == UINT32_MAX)
        {
            uint32_t c = tn_routes_next_hops(e->routes, v, to, NULL, 0);
            uint32_t* pool =
                tn_array_grow(e->pool, &e->pool_cap, e->pool_n + c + 1, sizeof(uint32_t), 256);
            if (!pool)
                return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            e->pool = pool;
            tn_routes_next_hops(e->routes, v, to, e->pool + e->pool_n, c);
            e->nh_start[v] = (uint32_t)e->pool_n;
            e->nh_count[v] = c;
            e->pool_n += c;
        }
        uint32_t c = e->nh_count[v];
        if (c == 0 || len >= e->pcap)
            return tn_error_set(err,
                                TN_EINVAL,
                                "cost: no path from node %u to node %u (rank %u)",
                                from,
                                to,
                                r);
        uint32_t l = e->pool[e->nh_start[v] + tn_routes_hash_pick(hash, v, c)];
        e->path[len++] = l;
        v = tn_topology_link(e->topo, l)->dst;
    }
    *n = len;
    uint32_t* kept = tn_array_grow(e->peer_paths,
                                   &e->peer_paths_cap,
                                   e->peer_paths_n + len + 1,
                                   sizeof(uint32_t),
                                   256);
    if (!kept)
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    e->peer_paths = kept;
    memcpy(kept + e->peer_paths_n, e->path, len * sizeof(uint32_t));
    e->peer_stamp[o->peer] = e->stamp;
    e->peer_start[o->peer] = (uint32_t)e->peer_paths_n;
    e->peer_len[o->peer] = len;
    e->peer_paths_n += len;
    return reverse_for_send(e, o, len);
}

/* latency and store and forward of op o over e->path[0..n) */
static double
path_base(const est* e, const tn_program_op* o, uint32_t n)
{
    double base = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        const tn_link* l = tn_topology_link(e->topo, e->path[i]);
        base += (double)l->latency_ns;
        if (e->mtu && i + 1 < n)
        {
            uint64_t pk = (o->length < e->mtu ? o->length : e->mtu) + e->ovh;
            base += (double)pk * 8e9 / (double)l->rate_bps;
        }
    }
    return base;
}

/* the latency of op o's path (without store and forward) */
static tn_status
op_latency(est* e, uint32_t r, const tn_program_op* o, double* lat, tn_error* err)
{
    if (!e->topo)
    {
        *lat = (double)e->lat;
        return TN_OK;
    }
    uint32_t n = 0;
    tn_status st = op_path(e, r, o, &n, err);
    *lat = 0;
    for (uint32_t i = 0; i < n && !st; i++)
        *lat += (double)tn_topology_link(e->topo, e->path[i])->latency_ns;
    return st;
}

/* How long after its deps' data arrived the transfer of op k of rp can start, with completion
 * messages (as tn_cost_estimate and the executor): a send learns of data it received at once,
 * of a send of its own after the ACK (that send's path latency); a receive's deps are the
 * receiver's, whose notification takes the op's own path latency, after the ACK for a send
 * of the receiver. rhd on the hier system at 64 KiB: each step waits 304 ns for its own send's
 * ACK (-35 % against flow level without it). */
static tn_status
completion_wait(est* e, const tn_rank_program* rp, uint32_t k, double* wait, tn_error* err)
{
    const tn_program_op* o = &rp->ops[k];
    *wait = 0;
    if (o->dep_count == 0)
        return TN_OK;
    if (e->acked_stamp != e->stamp || e->acked_start != o->dep_start ||
        e->acked_count != o->dep_count)
    {
        uint32_t nd = 0;
        const uint32_t* d = tn_rank_program_deps(rp, k, &nd);
        double most = 0;
        for (uint32_t j = 0; j < nd; j++)
        {
            const tn_program_op* x = &rp->ops[d[j]];
            if (!x->send)
                continue; /* data it received: known at once (to a receiver, after own) */
            double lat = 0;
            tn_status st = op_latency(e, rp->rank, x, &lat, err);
            if (st)
                return st;
            most = lat > most ? lat : most;
        }
        e->acked_stamp = e->stamp;
        e->acked_start = o->dep_start;
        e->acked_count = o->dep_count;
        e->acked_latency = most;
    }
    if (o->send)
    {
        *wait = e->acked_latency;
        return TN_OK;
    }
    double own = 0;
    tn_status st = op_latency(e, rp->rank, o, &own, err);
    *wait = own + e->acked_latency;
    return st;
}

/* one step of one rank: ops [b, q) of rp (all with the same step) */
static tn_status
eval_step(est* e,
          const tn_rank_program* rp,
          const uint32_t* idx,
          uint32_t b,
          uint32_t q,
          tn_error* err)
{
    uint32_t nops = q - b;
    if (nops > e->ocap)
    {
        free(e->op_base);
        free(e->op_ser);
        e->ocap = (size_t)nops * 2;
        e->op_base = malloc(e->ocap * sizeof(double));
        e->op_ser = malloc(e->ocap * sizeof(double));
        if (!e->op_base || !e->op_ser)
            return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    e->nuses = 0;
    for (uint32_t k = 0; k < nops; k++)
    {
        const tn_program_op* o = &rp->ops[idx[b + k]];
        e->op_base[k] = 0;
        e->op_ser[k] = 0;
        uint32_t n = 0;
        if (e->topo)
        {
            tn_status st = op_path(e, rp->rank, o, &n, err);
            if (st)
                return st;
        }
        else
        {
            n = 1;
        }
        for (uint32_t i = 0; i < n; i++)
        {
            uint64_t link;
            double lat;
            if (e->topo)
            {
                const tn_link* l = tn_topology_link(e->topo, e->path[i]);
                link = l->id;
                lat = (double)l->latency_ns;
            }
            else
            {
                uint32_t src = o->send ? rp->rank : o->peer, dst = o->send ? o->peer : rp->rank;
                link = (UINT64_C(1) << 63) | ((uint64_t)src << 32) | dst;
                lat = (double)e->lat;
            }
            e->op_base[k] += lat;
            if (e->mtu && i + 1 < n)
            {
                uint64_t pk = (o->length < e->mtu ? o->length : e->mtu) + e->ovh;
                e->op_base[k] += (double)pk * 8e9 / rate_of(e, link);
            }
            if (o->length == 0)
                continue;
            use* u = tn_array_grow(e->uses, &e->ucap, e->nuses + 1, sizeof(*u), 64);
            if (!u)
                return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            e->uses = u;
            e->uses[e->nuses].link = link;
            e->uses[e->nuses].bytes = wire(e, o->length);
            e->uses[e->nuses].op = k;
            e->nuses++;
        }
    }
    if (e->nuses > 1 && !sort_uses(e))
        return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    for (size_t i = 0; i < e->nuses;)
    {
        size_t j = i;
        uint64_t load = 0;
        while (j < e->nuses && e->uses[j].link == e->uses[i].link)
            load += e->uses[j++].bytes;
        double t = (double)load * 8e9 / rate_of(e, e->uses[i].link);
        for (size_t k = i; k < j; k++)
            if (t > e->op_ser[e->uses[k].op])
                e->op_ser[e->uses[k].op] = t;
        i = j;
    }
    uint32_t step = rp->ops[idx[b]].step;
    if (step >= e->steps)
    {
        size_t want = (size_t)step + 1;
        double* st = tn_array_grow(e->step_time, &e->scap, want, sizeof(double), 64);
        if (st)
            e->step_time = st;
        double* ss = st ? tn_array_grow(e->step_ser, &e->scap2, want, sizeof(double), 64) : NULL;
        if (ss)
            e->step_ser = ss;
        double* sb = ss ? tn_array_grow(e->step_base, &e->scap3, want, sizeof(double), 64) : NULL;
        if (sb)
            e->step_base = sb;
        uint32_t* sn = sb ? tn_array_grow(e->step_n, &e->scap4, want, sizeof(uint32_t), 64) : NULL;
        if (sn)
            e->step_n = sn;
        double* sy = sn ? tn_array_grow(e->step_busy, &e->scap5, want, sizeof(double), 64) : NULL;
        if (sy)
            e->step_busy = sy;
        double* sw = sy ? tn_array_grow(e->step_wait, &e->scap6, want, sizeof(double), 64) : NULL;
        if (!sw)
            return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        e->step_wait = sw;
        for (uint32_t s = e->steps; s <= step; s++)
        {
            e->step_time[s] = 0;
            e->step_ser[s] = 0;
            e->step_base[s] = 0;
            e->step_n[s] = 0;
            e->step_busy[s] = 0;
            e->step_wait[s] = 0;
        }
        e->steps = step + 1;
    }
    uint32_t links = e->topo ? tn_topology_link_count(e->topo) : 0;
    if (e->exact)
    {
        size_t want = (size_t)e->steps * links;
        if (want > (size_t)TN_COST_EXACT_LOADS)
        {
            /* too many steps for a table of every link: the mean load answers */
            e->exact = false;
        }
        else if (want > e->lcap)
        {
            size_t old = e->lcap;
            double* lb = tn_array_grow(e->link_busy, &e->lcap, want, sizeof(double), 4096);
            if (!lb)
                return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
            e->link_busy = lb;
            memset(lb + old, 0, (e->lcap - old) * sizeof(double));
        }
    }
    for (size_t i = 0; i < e->nuses; i++)
        if (!rp->ops[idx[b + e->uses[i].op]].send)
        {
            double busy = (double)e->uses[i].bytes * 8e9 / rate_of(e, e->uses[i].link);
            e->step_busy[step] += busy;
            if (e->exact)
                e->link_busy[(size_t)step * links + e->uses[i].link] += busy;
        }
    for (uint32_t k = 0; k < nops && e->completion; k++)
    {
        double wait = 0;
        tn_status st = completion_wait(e, rp, idx[b + k], &wait, err);
        if (st)
            return st;
        e->step_wait[step] = wait > e->step_wait[step] ? wait : e->step_wait[step];
    }
    double recv_base = -1;
    for (uint32_t k = 0; k < nops; k++)
    {
        double t = e->op_base[k] + e->op_ser[k];
        if (t > e->step_time[step])
            e->step_time[step] = t;
        if (e->op_ser[k] > e->step_ser[step])
            e->step_ser[step] = e->op_ser[k];
        /* each edge counted once, at its receiver: the sends of a sampled rank would count
         * its out-edge beside its in-edge and bias the mean toward the worse of the two */
        if (rp->ops[idx[b + k]].send)
            continue;
        if (e->pipelined)
        {
            /* each ring a rank receives on in a step is its own pipeline (ring-bidir's two
             * directions, each walking its own edges): the mean is over the edges, where the
             * rank's slowest edge would charge a switch-local ring's boundary rank the
             * crossing of the other direction too (fattree:k=8, 64 KiB: +26 % against flow
             * level) */
            e->step_base[step] += e->op_base[k];
            e->step_n[step]++;
        }
        else if (e->op_base[k] > recv_base)
            recv_base = e->op_base[k];
    }
    if (recv_base >= 0)
    {
        e->step_base[step] += recv_base;
        e->step_n[step]++;
    }
    return TN_OK;
}

/* rp's ops by step, stable, into *idx (a counting sort: O(ops + steps)); the buffers grow */
static tn_status
sort_by_step(const tn_rank_program* rp,
             uint32_t** idx,
             size_t* ocap,
             uint64_t** scount,
             size_t* scap,
             tn_error* err)
{
    if (rp->count > *ocap)
    {
        free(*idx);
        *ocap = rp->count;
        *idx = malloc(*ocap * sizeof(uint32_t));
        if (!*idx)
            return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    uint32_t smax = 0;
    for (uint32_t k = 0; k < rp->count; k++)
        smax = rp->ops[k].step > smax ? rp->ops[k].step : smax;
    if ((size_t)smax + 2 > *scap)
    {
        free(*scount);
        *scap = (size_t)smax + 2;
        *scount = malloc(*scap * sizeof(uint64_t));
        if (!*scount)
            return tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    uint64_t* c = *scount;
    memset(c, 0, ((size_t)smax + 2) * sizeof(uint64_t));
    for (uint32_t k = 0; k < rp->count; k++)
        c[rp->ops[k].step + 1]++;
    for (uint32_t q = 0; q <= smax; q++)
        c[q + 1] += c[q];
    for (uint32_t k = 0; k < rp->count; k++)
        (*idx)[c[rp->ops[k].step]++] = k;
    return TN_OK;
}

/* The longest chain of dependencies through rank program rp (ops by step in idx), where a
 * receive costs edge[k] and follows the rank's own send of the same step to another peer, of
 * the same chunk and dim, in that order of preference (the sender does what this rank does,
 * one edge back: the ring's receive from its predecessor pairs with the send to its
 * successor, not with ring-bidir's send back to the predecessor), or its latest op; a send
 * follows its deps. chain: per op, scratch. */
static double
chain_dp(const tn_rank_program* rp, const uint32_t* idx, const double* edge, double* chain)
{
    double progress = 0;
    for (uint32_t b = 0; b < rp->count;)
    {
        uint32_t step = rp->ops[idx[b]].step;
        uint32_t q = b;
        while (q < rp->count && rp->ops[idx[q]].step == step)
            q++;
        double sends_max = -1, group = progress;
        for (uint32_t k = b; k < q; k++)
        {
            if (!rp->ops[idx[k]].send)
                continue;
            uint32_t nd = 0;
            const uint32_t* d = tn_rank_program_deps(rp, idx[k], &nd);
            double c = 0;
            for (uint32_t j = 0; j < nd; j++)
                c = chain[d[j]] > c ? chain[d[j]] : c;
            chain[idx[k]] = c;
            sends_max = c > sends_max ? c : sends_max;
        }
        for (uint32_t k = b; k < q; k++)
        {
            const tn_program_op* o = &rp->ops[idx[k]];
            if (o->send)
                continue;
            /* a step of many sends (hierarchical's direct levels) takes their latest */
            double pred = sends_max >= 0 ? sends_max : progress;
            if (q - b <= 16)
            {
                int best = -1;
                double same = -1;
                for (uint32_t j = b; j < q; j++)
                {
                    const tn_program_op* x = &rp->ops[idx[j]];
                    if (!x->send)
                        continue;
                    int score =
                        4 * (x->peer != o->peer) + 2 * (x->chunk == o->chunk) + (x->dim == o->dim);
                    if (score > best || (score == best && chain[idx[j]] > same))
                    {
                        best = score;
                        same = chain[idx[j]];
                    }
                }
                pred = same >= 0 ? same : pred;
            }
            uint32_t nd = 0;
            const uint32_t* d = tn_rank_program_deps(rp, idx[k], &nd);
            for (uint32_t j = 0; j < nd; j++)
                pred = chain[d[j]] > pred ? chain[d[j]] : pred;
            chain[idx[k]] = pred + edge[idx[k]];
            group = chain[idx[k]] > group ? chain[idx[k]] : group;
        }
        progress = group > sends_max ? group : sends_max;
        b = q;
    }
    return progress;
}

/* A pipeline's chains of dependencies, every rank evaluated and every step's link loads known
 * (e->link_busy): a receive's edge costs its latency, store and forward and the busiest link
 * of its path in its step (every rank's receives counted). Where every rank's program has the
 * same ops in the same order (the ring, ring-bidir, ring2d, hierarchical on regular systems),
 * the longest chain through that program with each op's edge the mean over the ranks: the
 * chain walks the ring's edges one a step, meeting every edge alike (the ring on the 64-NPU
 * hier system of rails crosses 50 rail edges and 14 NVLink edges), while each pipeline keeps
 * its own pace (ring2d's halves, ring-bidir's directions) until its dependencies join them;
 * otherwise the mean over the ranks of their own longest chains. *out_ns: that time. */
static tn_status
chain_mean(est* e, const uint32_t* ranks, uint32_t m, double* out_ns, tn_error* err)
{
    uint32_t links = tn_topology_link_count(e->topo);
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    uint32_t* idx = NULL;
    size_t ocap = 0, scap = 0, ccap = 0;
    uint64_t* scount = NULL;
    double* chain = NULL;
    double* edge = NULL;
    double* acc = NULL;  /* per op index: the edges summed over the ranks */
    double* peak = NULL; /* per op index: the slowest rank's edge */
    bool* fan = NULL;    /* per op index: its step receives from more than two peers */
    uint32_t count0 = 0;
    bool uniform = true;
    double sum = 0;
    tn_status st = TN_OK;
    for (uint32_t i = 0; i < m && !st; i++)
    {
        uint32_t r = ranks[i];
        st = tn_program_rank(e->p, r, &rp, err);
        if (!st)
            st = sort_by_step(&rp, &idx, &ocap, &scount, &scap, err);
        if (!st && rp.count > ccap)
        {
            free(chain);
            free(edge);
            ccap = rp.count;
            chain = malloc(ccap * sizeof(double));
            edge = malloc(ccap * sizeof(double));
            if (!chain || !edge)
                st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        }
        if (!st && i == 0)
        {
            count0 = rp.count;
            acc = calloc(count0 ? count0 : 1, sizeof(double));
            peak = calloc(count0 ? count0 : 1, sizeof(double));
            fan = calloc(count0 ? count0 : 1, sizeof(bool));
            if (!acc || !peak || !fan)
                st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
        }
        uniform = uniform && rp.count == count0;
        e->stamp = m + 1 + i; /* the paths of pass one are not this pass's */
        e->peer_paths_n = 0;
        /* a step whose receives come from more than two peers (hierarchical's direct levels)
         * is a fan-in, not a pipeline's edge: its receives run side by side and the slowest
         * rank's sets the pace, so it takes the slowest over the ranks, not their mean
         * (hierarchical on fattree:k=8 at 64 KiB, one level of 127 peers: -13 % with the
         * mean, against flow level) */
        for (uint32_t b = 0; b < rp.count && !st && uniform && i == 0;)
        {
            uint32_t q = b, p1 = UINT32_MAX, p2 = UINT32_MAX;
            bool many = false;
            while (q < rp.count && rp.ops[idx[q]].step == rp.ops[idx[b]].step)
            {
                const tn_program_op* o = &rp.ops[idx[q++]];
                if (o->send || o->peer == p1 || o->peer == p2)
                    continue;
                if (p1 == UINT32_MAX)
                    p1 = o->peer;
                else if (p2 == UINT32_MAX)
                    p2 = o->peer;
                else
                    many = true;
            }
            for (uint32_t k = b; k < q; k++)
                fan[idx[k]] = many;
            b = q;
        }
        for (uint32_t k = 0; k < rp.count && !st; k++)
        {
            const tn_program_op* o = &rp.ops[k];
            edge[k] = 0;
            if (o->send)
                continue;
            uint32_t n = 0;
            st = op_path(e, r, o, &n, err);
            if (st)
                break;
            double ser = 0;
            const double* lb = e->link_busy + (size_t)o->step * links;
            for (uint32_t h = 0; h < n && o->length; h++)
                ser = lb[e->path[h]] > ser ? lb[e->path[h]] : ser;
            edge[k] = path_base(e, o, n) + ser;
            if (uniform)
            {
                acc[k] += edge[k];
                peak[k] = edge[k] > peak[k] ? edge[k] : peak[k];
            }
        }
        if (!st)
            sum += chain_dp(&rp, idx, edge, chain);
    }
    if (!st && uniform && m)
    {
        /* the mean rank: rank ranks[0]'s program with every op's edge averaged */
        st = tn_program_rank(e->p, ranks[0], &rp, err);
        if (!st)
            st = sort_by_step(&rp, &idx, &ocap, &scount, &scap, err);
        for (uint32_t k = 0; k < rp.count && !st; k++)
            edge[k] = fan[k] ? peak[k] : acc[k] / m;
        if (!st)
            sum = chain_dp(&rp, idx, edge, chain) * m;
    }
    if (!st)
        *out_ns = m ? sum / m : 0;
    tn_rank_program_free(&rp);
    free(idx);
    free(scount);
    free(chain);
    free(edge);
    free(acc);
    free(peak);
    free(fan);
    return st;
}

tn_status
tn_cost_program(const tn_program* p,
                const tn_cost_options* options,
                uint32_t max_ranks,
                tn_cost_program_result* out,
                tn_error* err)
{
    if (!p || !out)
        return tn_error_set(err, TN_EINVAL, "cost: NULL argument");
    memset(out, 0, sizeof(*out));
    uint32_t N = tn_program_ranks(p);
    uint32_t m = max_ranks ? max_ranks : tn_program_cost_ranks(p);
    if (m > N)
        m = N;
    est e;
    memset(&e, 0, sizeof(e));
    e.p = p;
    e.topo = tn_program_topology(p);
    e.rate = options && options->rate_bps ? options->rate_bps : TN_TOPO_DEFAULT_RATE_BPS;
    e.lat = options ? options->latency_ns : TN_TOPO_DEFAULT_LATENCY_NS;
    e.mtu = options ? options->mtu : 0;
    e.ovh = options ? options->packet_overhead : 0;
    uint32_t* ranks = malloc((size_t)(m ? m : 1) * sizeof(uint32_t));
    uint32_t* dests = malloc((size_t)(m ? m : 1) * sizeof(uint32_t));
    tn_status st = TN_OK;
    if (!ranks || !dests)
        st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    /* one rank of each of m equal blocks, at a place in the block that varies like the
     * golden ratio's multiples (Fibonacci hashing): i * N / m alone are all first of their
     * switch on a fat-tree whose switches hold a divisor of N / m NPUs, and i % (N / m)
     * repeats with the switches' period; either biases the mean over the samples */
    for (uint32_t i = 0; i < m && !st; i++)
    {
        uint64_t block = (uint64_t)(i + 1) * N / m - (uint64_t)i * N / m;
        uint64_t off = (((uint64_t)i * 40503u & 0xffffu) * block) >> 16;
        ranks[i] = (uint32_t)((uint64_t)i * N / m + off);
    }
    e.pipelined = p->algo && p->algo->pipelined;
    e.completion = options && options->completion_messages && !e.pipelined;
    e.exact = e.topo && m == N;
    /* dbt's steps are subtree heights, not phases every rank meets at once: the two trees
     * and the subtrees of one level run partly apart */
    e.half_busiest = p->kind == TN_GENERATOR_DBT;
    if (!st && e.topo)
    {
        for (uint32_t i = 0; i < m; i++)
            dests[i] = tn_topology_npu_node(e.topo, ranks[i]);
        tn_routes_options ro;
        memset(&ro, 0, sizeof(ro));
        ro.dest_nodes = dests;
        ro.dest_count = m;
        st = tn_routes_create(e.topo, &ro, &e.routes, err);
        e.pcap = tn_topology_node_count(e.topo) + 1;
        e.nodes = tn_topology_node_count(e.topo);
        e.cache_dest = UINT32_MAX;
        e.path = malloc((size_t)e.pcap * sizeof(uint32_t));
        e.nh_start = malloc((size_t)e.pcap * sizeof(uint32_t));
        e.nh_count = malloc((size_t)e.pcap * sizeof(uint32_t));
        e.peer_stamp = calloc(N ? N : 1, sizeof(uint32_t));
        e.peer_start = malloc((size_t)(N ? N : 1) * sizeof(uint32_t));
        e.peer_len = malloc((size_t)(N ? N : 1) * sizeof(uint32_t));
        if (!st && (!e.path || !e.nh_start || !e.nh_count || !e.peer_stamp || !e.peer_start ||
                    !e.peer_len))
            st = tn_error_set(err, TN_ENOMEM, "cost: out of memory");
    }
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    uint64_t* scount = NULL;
    size_t scount_cap = 0;
    uint32_t* idx = NULL;
    size_t ocap = 0;
    for (uint32_t i = 0; i < m && !st; i++)
    {
        st = tn_program_rank(p, ranks[i], &rp, err);
        if (st)
            break;
        e.stamp = i + 1;
        e.peer_paths_n = 0;
        out->ops += rp.count;
        st = sort_by_step(&rp, &idx, &ocap, &scount, &scount_cap, err);
        for (uint32_t b = 0; b < rp.count && !st;)
        {
            uint32_t q = b;
            while (q < rp.count && rp.ops[idx[q]].step == rp.ops[idx[b]].step)
                q++;
            st = eval_step(&e, &rp, idx, b, q, err);
            b = q;
        }
    }
    if (!st)
    {
        double t = 0;
        for (uint32_t s = 0; s < e.steps; s++)
        {
            /* a pipeline: the chain of dependencies walks the ring one edge a step and
             * meets every edge alike, so a step costs the mean latency of the receiving
             * edges, but no less than its slowest serialisation (every edge is busy every
             * step, the slowest link sets the pace) */
            double ts = e.pipelined && e.step_n[s] ? e.step_base[s] / e.step_n[s] + e.step_ser[s]
                                                   : e.step_time[s];
            /* the whole fabric's load: the samples' receives stand for every rank's, and no
             * link is less busy than the mean over the links; the per-rank view above misses
             * transfers of other ranks on a link (direct or rhd across a torus) */
            if (e.topo && m)
            {
                uint32_t links = tn_topology_link_count(e.topo);
                double avg = e.step_busy[s] * ((double)N / m) / links;
                ts = avg > ts ? avg : ts;
                /* every rank's receives counted: the step lasts at least as long as its
                 * busiest link is busy, after the mean latency of its receiving edges (rhd's
                 * partners at distance d across a torus dimension load the middle link of
                 * each block with d transfers, the mean over the links a quarter of that) */
                if (e.exact && e.step_n[s])
                {
                    const double* lb = e.link_busy + (size_t)s * links;
                    double busiest = 0;
                    for (uint32_t l = 0; l < links; l++)
                        busiest = lb[l] > busiest ? lb[l] : busiest;
                    busiest += e.step_base[s] / e.step_n[s];
                    /* dbt: the sum of each step's busiest link overstates it (lock step:
                     * +15 to +22 % against flow level on tori and fat-trees, 64 to 1,024
                     * NPUs) as the ranks' own view understates it (-5 to -26 %); their mean
                     * is within 6 % on every case measured (doc/core-schedule.rst) */
                    if (e.half_busiest && busiest > ts)
                        busiest = (busiest + ts) / 2;
                    ts = busiest > ts ? busiest : ts;
                }
            }
            /* the ACKs and notifications the step's senders wait for */
            t += ts + (e.pipelined ? 0 : e.step_wait[s]);
        }
        /* a pipeline with every rank's loads: its chains of dependencies, no shorter than its
         * busiest link's busy time over the whole collective nor the fabric's mean load (the
         * sum of steps above makes every step wait for the slowest edge or dim; the ring on
         * the 64-NPU hier system of rails: +8.9 % against flow level, ring2d +6.7 %) */
        if (e.pipelined && e.exact && e.topo && m)
        {
            double c = 0;
            st = chain_mean(&e, ranks, m, &c, err);
            uint32_t links = tn_topology_link_count(e.topo);
            double avg = 0;
            for (uint32_t s = 0; s < e.steps; s++)
                avg += e.step_busy[s] * ((double)N / m) / links;
            for (uint32_t l = 0; l < links && !st; l++)
            {
                double busy = 0;
                for (uint32_t s = 0; s < e.steps; s++)
                    busy += e.link_busy[(size_t)s * links + l];
                c = busy > c ? busy : c;
            }
            t = avg > c ? avg : c;
        }
        /* steps that overlap in time: rhd's and swing's pairs away from a step's hot links run
         * ahead (rhd on fattree:k=16: +21 % as a step sum against flow level), swing's later
         * steps share links with earlier ones that still run (-18 % on the hier systems), dbt's
         * trees run apart; the walk across every rank sees both (within 1.2 % of flow level) */
        if (!st && e.topo && m == N &&
            (p->kind == TN_GENERATOR_RHD || p->kind == TN_GENERATOR_SWING ||
             p->kind == TN_GENERATOR_DBT || p->kind == TN_GENERATOR_SWING_TORUS))
        {
            double walked = 0;
            bool answered = false;
            st = tn_cost_walk(p, options, &walked, &answered, err);
            if (!st && answered)
                t = walked;
        }
        out->time_ns = t;
        out->evaluated = m;
        out->steps = e.steps;
    }
    tn_rank_program_free(&rp);
    free(scount);
    free(idx);
    free(ranks);
    free(dests);
    tn_routes_destroy(e.routes);
    free(e.path);
    free(e.nh_start);
    free(e.nh_count);
    free(e.peer_stamp);
    free(e.peer_start);
    free(e.peer_len);
    free(e.peer_paths);
    free(e.pool);
    free(e.uses);
    free(e.sorted);
    free(e.counts);
    free(e.op_base);
    free(e.op_ser);
    free(e.step_time);
    free(e.step_ser);
    free(e.step_base);
    free(e.step_n);
    free(e.step_busy);
    free(e.step_wait);
    free(e.link_busy);
    return st;
}
