/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TACOS (W. Won, M. Elavazhagan, S. Srinivasan, S. Gupta, T. Krishna, "TACOS:
 * Topology-Aware Collective Algorithm Synthesizer for Distributed Machine Learning",
 * MICRO 2024): all-gather synthesized by greedy link-chunk matching on a time-expanded
 * network (TEN); reduce-scatter is the all-gather reversed; all-reduce is reduce-scatter
 * then all-gather.
 *
 * Chunks: every rank's slice is split into C pieces (tn_chunk_block), so N * C chunks are
 * matched together in ONE network (the paper's chunks per NPU); chunk k = owner * C + c.
 * Zero-length chunks (S < N C) are held everywhere from the start and move nowhere.
 *
 * Logical links: a pair (src, dst) of ranks whose route passes through no NPU (routes
 * with switches-only transit): the cables of a torus or mesh, every pair on a switch,
 * fat-tree or BiGraph, both on hierarchical topologies. Its path is the route the pair's
 * flow hash picks (tn_transfer_flow_hash), its delay alpha + chunk / bandwidth: the sum
 * of the path's latencies plus the largest chunk at the path's slowest rate, so
 * heterogeneous links keep their own delays. The paper unrolls switches into
 * point-to-point links; here the physical links of the path are the TEN's resources, so
 * a pair is free when every link of its path is.
 *
 * Synthesis (an event-driven TEN): at t = 0 rank r holds its own chunks. At each event
 * time t the transfers ending at t deliver their chunk; then every logical link whose
 * path is free is visited once, in order of hop count (one-hop links first: the paper's
 * links are point to point) and, within a hop count, in a random order drawn from the
 * request's seed (splitmix64, reshuffled at every event: the paper's random choice, made
 * reproducible); a visited free link is matched to a chunk src holds and dst neither
 * holds nor receives, drawn uniformly from the same generator, and its path links are busy
 * until t + delay. The next event is the earliest end of a transfer in flight. Synthesis
 * ends when every rank holds every chunk; a time with nothing in flight and chunks still
 * missing means the ranks are not connected (TN_EUNSUPPORTED). Event e is step e.
 *
 * Schedule: a match becomes a copy src -> dst of its chunk on its path, depending on the
 * copy that brought the chunk to src (none at its owner) and on the previous transfer on
 * each link of its path unless that one is of the same queue pair (src, dst, path), which
 * the executor posts in step order anyway (a dep would add an ACK's latency per step), so
 * the executor keeps the TEN's order: a transfer starts no later than its TEN time and never
 * shares a link (claims contention freedom; on links with the synthesis's delays the cost
 * model's time is at most the TEN's finish time).
 *  - reduce-scatter: the matches in reverse order, each a reduce dst -> src on the
 *    reversed path at step E - 1 - e, depending on the reduces into dst of the same chunk
 *    (dst's subtree) and on the previous transfer on each link.
 *  - all-reduce: the reduce-scatter, then the all-gather at steps E.., its first copies of
 *    a chunk depending on the reduces into the chunk's owner.
 */
#include "tn-algorithm-impl.h"
#include "tn-array.h"
#include "tn-path.h"
#include "tn-routing.h"

#include <stdlib.h>
#include <string.h>

#define TC_NONE UINT32_MAX

typedef struct tc_pair
{
    uint32_t src, dst;
    uint32_t path_first, path_len;
    double delay_ns;
} tc_pair;

typedef struct tc_match
{
    uint32_t pair;
    uint32_t chunk; /* global chunk id owner * C + c */
    uint32_t step;
    double end_ns;
} tc_match;

typedef struct tacos
{
    const tn_topology* topo;
    tn_schedule* s;
    tn_collective coll;
    uint32_t n, C, K, words;
    uint64_t rng;
    tn_slice* piece; /* per chunk id: its bytes */
    tc_pair* pairs;  /* sorted by hop count */
    uint32_t npairs;
    uint32_t* path; /* links of every pair's path */
    size_t path_count, path_cap;
    uint64_t* holds;    /* n x words */
    uint64_t* incoming; /* n x words */
    double* busy;       /* per physical link: busy until */
    uint32_t* arrival;  /* n x K: match that brought chunk k to rank r */
    tc_match* matches;
    size_t nmatches, matches_cap;
    uint32_t steps;
} tacos;

static uint64_t
tc_next(uint64_t* x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint32_t
tc_below(uint64_t* x, uint32_t bound)
{
    return (uint32_t)(tc_next(x) % bound);
}

static void
tc_free(tacos* w)
{
    free(w->piece);
    free(w->pairs);
    free(w->path);
    free(w->holds);
    free(w->incoming);
    free(w->busy);
    free(w->arrival);
    free(w->matches);
}

static tn_status
tc_oom(tn_error* err)
{
    return tn_error_set(err, TN_ENOMEM, "tacos: out of memory");
}

static int
tc_pair_cmp(const void* a, const void* b)
{
    const tc_pair* x = a;
    const tc_pair* y = b;
    if (x->path_len != y->path_len)
    {
        return x->path_len < y->path_len ? -1 : 1;
    }
    if (x->src != y->src)
    {
        return x->src < y->src ? -1 : 1;
    }
    return x->dst < y->dst ? -1 : (x->dst > y->dst);
}

/* The logical links and their paths and delays. */
static tn_status
tc_pairs(tacos* w, tn_error* err)
{
    const tn_topology* topo = w->topo;
    tn_routes_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.transit = TN_TRANSIT_SWITCHES_ONLY;
    tn_routes* routes = NULL;
    tn_status st = tn_routes_create(topo, &ro, &routes, err);
    if (st)
    {
        return st;
    }
    uint64_t chunk_max = 0;
    for (uint32_t k = 0; k < w->K; k++)
    {
        chunk_max = w->piece[k].length > chunk_max ? w->piece[k].length : chunk_max;
    }
    uint32_t nodes = tn_topology_node_count(topo);
    uint32_t* links = malloc((size_t)(nodes ? nodes : 1) * sizeof(*links));
    size_t cap = 0;
    if (!links)
    {
        tn_routes_destroy(routes);
        return tc_oom(err);
    }
    for (uint32_t a = 0; a < w->n && !st; a++)
    {
        for (uint32_t b = 0; b < w->n && !st; b++)
        {
            if (a == b || tn_routes_distance_rank(routes, a, b) == TN_ROUTES_UNREACHABLE)
            {
                continue;
            }
            tn_transfer probe;
            memset(&probe, 0, sizeof(probe));
            probe.src = a;
            probe.dst = b;
            uint32_t len = 0;
            st = tn_routes_path(routes,
                                tn_topology_npu_node(topo, a),
                                tn_topology_npu_node(topo, b),
                                tn_transfer_flow_hash(&probe),
                                links,
                                nodes,
                                &len,
                                err);
            if (st)
            {
                break;
            }
            tc_pair* grown =
                tn_array_grow(w->pairs, &cap, (size_t)w->npairs + 1, sizeof(*grown), 64);
            uint32_t* gpath =
                tn_array_grow(w->path, &w->path_cap, w->path_count + len, sizeof(*gpath), 256);
            if (grown)
            {
                w->pairs = grown;
            }
            if (gpath)
            {
                w->path = gpath;
            }
            if (!grown || !gpath)
            {
                st = tc_oom(err);
                break;
            }
            tc_pair* p = &w->pairs[w->npairs++];
            p->src = a;
            p->dst = b;
            p->path_first = (uint32_t)w->path_count;
            p->path_len = len;
            uint64_t lat = 0, rate = UINT64_MAX;
            for (uint32_t i = 0; i < len; i++)
            {
                const tn_link* l = tn_topology_link(topo, links[i]);
                lat += l->latency_ns;
                rate = l->rate_bps < rate ? l->rate_bps : rate;
                w->path[w->path_count++] = links[i];
            }
            p->delay_ns = (double)lat + (double)chunk_max * 8e9 / (double)rate;
        }
    }
    free(links);
    tn_routes_destroy(routes);
    if (!st)
    {
        qsort(w->pairs, w->npairs, sizeof(*w->pairs), tc_pair_cmp);
    }
    return st;
}

static bool
tc_free_path(const tacos* w, const tc_pair* p, double t)
{
    for (uint32_t i = 0; i < p->path_len; i++)
    {
        if (w->busy[w->path[p->path_first + i]] > t)
        {
            return false;
        }
    }
    return true;
}

/* A chunk src holds and dst neither holds nor receives, uniformly; TC_NONE if none. */
static uint32_t
tc_pick_chunk(tacos* w, uint32_t src, uint32_t dst)
{
    const uint64_t* hs = w->holds + (size_t)src * w->words;
    const uint64_t* hd = w->holds + (size_t)dst * w->words;
    const uint64_t* in = w->incoming + (size_t)dst * w->words;
    uint32_t total = 0;
    for (uint32_t i = 0; i < w->words; i++)
    {
        total += (uint32_t)__builtin_popcountll(hs[i] & ~hd[i] & ~in[i]);
    }
    if (total == 0)
    {
        return TC_NONE;
    }
    uint32_t r = tc_below(&w->rng, total);
    for (uint32_t i = 0; i < w->words; i++)
    {
        uint64_t m = hs[i] & ~hd[i] & ~in[i];
        uint32_t c = (uint32_t)__builtin_popcountll(m);
        if (r >= c)
        {
            r -= c;
            continue;
        }
        while (r-- > 0)
        {
            m &= m - 1;
        }
        return i * 64 + (uint32_t)__builtin_ctzll(m);
    }
    return TC_NONE;
}

static void
tc_set(uint64_t* bits, uint32_t k)
{
    bits[k / 64] |= 1ULL << (k % 64);
}

static void
tc_clear(uint64_t* bits, uint32_t k)
{
    bits[k / 64] &= ~(1ULL << (k % 64));
}

/* The event-driven TEN (see the file comment). */
static tn_status
tc_synthesize(tacos* w, tn_error* err)
{
    uint64_t missing = 0;
    for (uint32_t k = 0; k < w->K; k++)
    {
        uint32_t owner = k / w->C;
        for (uint32_t r = 0; r < w->n; r++)
        {
            if (r == owner || w->piece[k].length == 0)
            {
                tc_set(w->holds + (size_t)r * w->words, k);
            }
            else
            {
                missing++;
            }
        }
    }
    size_t inflight_cap = 0, ninflight = 0;
    uint32_t* inflight = NULL;
    uint32_t* order = malloc((size_t)(w->npairs ? w->npairs : 1) * sizeof(*order));
    tn_status st = order ? TN_OK : tc_oom(err);
    double t = 0;
    while (!st && missing > 0)
    {
        /* visiting order: hop count, then random within a hop count */
        for (uint32_t i = 0; i < w->npairs; i++)
        {
            order[i] = i;
        }
        for (uint32_t lo = 0; lo < w->npairs;)
        {
            uint32_t hi = lo;
            while (hi < w->npairs && w->pairs[hi].path_len == w->pairs[lo].path_len)
            {
                hi++;
            }
            for (uint32_t i = hi - 1; i > lo; i--)
            {
                uint32_t j = lo + tc_below(&w->rng, i - lo + 1);
                uint32_t x = order[i];
                order[i] = order[j];
                order[j] = x;
            }
            lo = hi;
        }
        for (uint32_t i = 0; i < w->npairs && !st; i++)
        {
            const tc_pair* p = &w->pairs[order[i]];
            if (!tc_free_path(w, p, t))
            {
                continue;
            }
            uint32_t k = tc_pick_chunk(w, p->src, p->dst);
            if (k == TC_NONE)
            {
                continue;
            }
            tc_match* gm =
                tn_array_grow(w->matches, &w->matches_cap, w->nmatches + 1, sizeof(*gm), 1024);
            uint32_t* gi = tn_array_grow(inflight, &inflight_cap, ninflight + 1, sizeof(*gi), 256);
            if (gm)
            {
                w->matches = gm;
            }
            if (gi)
            {
                inflight = gi;
            }
            if (!gm || !gi)
            {
                st = tc_oom(err);
                break;
            }
            tc_match* m = &w->matches[w->nmatches];
            m->pair = order[i];
            m->chunk = k;
            m->step = w->steps;
            m->end_ns = t + p->delay_ns;
            for (uint32_t h = 0; h < p->path_len; h++)
            {
                w->busy[w->path[p->path_first + h]] = m->end_ns;
            }
            tc_set(w->incoming + (size_t)p->dst * w->words, k);
            inflight[ninflight++] = (uint32_t)w->nmatches++;
        }
        if (st)
        {
            break;
        }
        if (ninflight == 0)
        {
            st = tn_error_set(err,
                              TN_EUNSUPPORTED,
                              "tacos: topology '%s' is not connected without NPUs forwarding: "
                              "%llu chunk copies can never arrive",
                              tn_topology_name(w->topo),
                              (unsigned long long)missing);
            break;
        }
        w->steps++;
        double next = w->matches[inflight[0]].end_ns;
        for (size_t i = 1; i < ninflight; i++)
        {
            double e = w->matches[inflight[i]].end_ns;
            next = e < next ? e : next;
        }
        t = next;
        size_t keep = 0;
        for (size_t i = 0; i < ninflight; i++)
        {
            const tc_match* m = &w->matches[inflight[i]];
            if (m->end_ns > t)
            {
                inflight[keep++] = inflight[i];
                continue;
            }
            uint32_t dst = w->pairs[m->pair].dst;
            tc_clear(w->incoming + (size_t)dst * w->words, m->chunk);
            tc_set(w->holds + (size_t)dst * w->words, m->chunk);
            w->arrival[(size_t)dst * w->K + m->chunk] = inflight[i];
            missing--;
        }
        ninflight = keep;
    }
    free(order);
    free(inflight);
    return st;
}

/* Whether transfer id goes src -> dst on this very path: then the executor's queue pair
 * (src, dst, path) posts the two in step order (tn_schedule_step_ordered) and a dep would only
 * add the ACK's latency before the later one may start. */
static bool
tc_same_queue(const tacos* w,
              uint32_t id,
              uint32_t src,
              uint32_t dst,
              const uint32_t* path,
              uint32_t len)
{
    const tn_transfer* x = tn_schedule_transfer(w->s, id);
    uint32_t n = 0;
    const uint32_t* links = tn_schedule_path(w->s, id, &n);
    return x->src == src && x->dst == dst && n == len &&
           memcmp(links, path, len * sizeof(*path)) == 0;
}

/* Add one transfer of match m, on its path (reversed for a reduce), with the deps in d
 * plus the previous transfer on each of its links (last[link]), which it then becomes. */
static tn_status
tc_emit(tacos* w,
        const tc_match* m,
        bool reduce,
        uint32_t step,
        tn_ids* d,
        uint32_t* last,
        uint32_t* rev,
        uint32_t* id,
        tn_error* err)
{
    const tc_pair* p = &w->pairs[m->pair];
    const uint32_t* path = w->path + p->path_first;
    if (reduce)
    {
        for (uint32_t i = 0; i < p->path_len; i++)
        {
            rev[i] = tn_topology_link(w->topo, path[p->path_len - 1 - i])->reverse;
        }
        path = rev;
    }
    uint32_t src = reduce ? p->dst : p->src, dst = reduce ? p->src : p->dst;
    tn_status st = TN_OK;
    for (uint32_t i = 0; i < p->path_len && !st; i++)
    {
        if (last[path[i]] != TC_NONE &&
            !tc_same_queue(w, last[path[i]], src, dst, path, p->path_len))
        {
            st = tn_ids_push(d, last[path[i]], err);
        }
    }
    uint32_t c = m->chunk % w->C;
    tn_slice sl = w->piece[m->chunk];
    if (!st)
    {
        st = tn_algo_add(w->s,
                         src,
                         dst,
                         sl.offset,
                         sl.offset,
                         sl.length,
                         reduce ? TN_OP_REDUCE : TN_OP_COPY,
                         step,
                         tn_topology_link(w->topo, path[0])->dim,
                         c,
                         d->ids,
                         d->n,
                         id,
                         err);
    }
    if (!st)
    {
        st = tn_schedule_set_path(w->s, *id, path, p->path_len, err);
    }
    for (uint32_t i = 0; i < p->path_len && !st; i++)
    {
        last[path[i]] = *id;
    }
    return st;
}

static tn_status
tc_schedule(tacos* w, tn_error* err)
{
    bool do_rs = w->coll != TN_COLL_ALL_GATHER;
    bool do_ag = w->coll != TN_COLL_REDUCE_SCATTER;
    size_t M = w->nmatches;
    uint32_t nlinks = tn_topology_link_count(w->topo);
    uint32_t nodes = tn_topology_node_count(w->topo);
    uint32_t* last = malloc((size_t)(nlinks ? nlinks : 1) * sizeof(*last));
    uint32_t* rev = malloc((size_t)(nodes ? nodes : 1) * sizeof(*rev));
    /* reduces into (rank, chunk): a list threaded through next[] by reduce id */
    uint32_t* head = malloc((size_t)w->n * w->K * sizeof(*head));
    uint32_t* next = malloc((M ? M : 1) * sizeof(*next));
    uint32_t* ag_id = malloc((M ? M : 1) * sizeof(*ag_id));
    tn_ids d = {0};
    tn_status st = (last && rev && head && next && ag_id) ? TN_OK : tc_oom(err);
    if (!st)
    {
        for (uint32_t l = 0; l < nlinks; l++)
        {
            last[l] = TC_NONE;
        }
        for (size_t i = 0; i < (size_t)w->n * w->K; i++)
        {
            head[i] = TC_NONE;
        }
    }
    uint32_t base = 0;
    for (size_t i = M; do_rs && !st && i-- > 0;)
    {
        const tc_match* m = &w->matches[i];
        const tc_pair* p = &w->pairs[m->pair];
        d.n = 0;
        /* reduce ids are 0..M-1 (the schedule starts empty), so next[] is indexed by id */
        for (uint32_t r = head[(size_t)p->dst * w->K + m->chunk]; r != TC_NONE && !st; r = next[r])
        {
            st = tn_ids_push(&d, r, err);
        }
        uint32_t id = 0;
        if (!st)
        {
            st = tc_emit(w, m, true, w->steps - 1 - m->step, &d, last, rev, &id, err);
        }
        if (!st)
        {
            next[id] = head[(size_t)p->src * w->K + m->chunk];
            head[(size_t)p->src * w->K + m->chunk] = id;
        }
    }
    if (do_rs)
    {
        base = w->steps;
    }
    for (size_t i = 0; do_ag && !st && i < M; i++)
    {
        const tc_match* m = &w->matches[i];
        const tc_pair* p = &w->pairs[m->pair];
        d.n = 0;
        uint32_t from = w->arrival[(size_t)p->src * w->K + m->chunk];
        if (from != TC_NONE)
        {
            st = tn_ids_push(&d, ag_id[from], err);
        }
        else
        {
            for (uint32_t r = head[(size_t)p->src * w->K + m->chunk]; r != TC_NONE && !st;
                 r = next[r])
            {
                st = tn_ids_push(&d, r, err);
            }
        }
        if (!st)
        {
            st = tc_emit(w, m, false, base + m->step, &d, last, rev, &ag_id[i], err);
        }
    }
    tn_ids_free(&d);
    free(last);
    free(rev);
    free(head);
    free(next);
    free(ag_id);
    return st;
}

tn_status
tn_algo_tacos_check(const tn_topology* topo,
                    const tn_plan_request* request,
                    uint32_t ranks,
                    tn_error* err)
{
    uint32_t npus = tn_topology_npu_count(topo);
    if (ranks != npus)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "tacos: ranks %u must equal the NPU count %u of topology '%s'",
                            ranks,
                            npus,
                            tn_topology_name(topo));
    }
    uint64_t chunks = (uint64_t)ranks * (request->chunks ? request->chunks : 1);
    if (chunks > 1u << 20)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "tacos: %u ranks x %u chunks = %llu chunks to match, at most 1048576 "
                            "(the synthesis keeps ranks x chunks bits per rank); plan fewer chunks",
                            ranks,
                            request->chunks ? request->chunks : 1,
                            (unsigned long long)chunks);
    }
    return TN_OK;
}

tn_status
tn_algo_tacos_plan(const tn_topology* topo,
                   const tn_plan_request* request,
                   tn_schedule* s,
                   tn_error* err)
{
    tacos w;
    memset(&w, 0, sizeof(w));
    w.topo = topo;
    w.s = s;
    w.coll = request->collective;
    w.n = tn_schedule_ranks(s);
    w.C = tn_schedule_chunks(s);
    w.K = w.n * w.C;
    w.words = (w.K + 63) / 64;
    w.rng = request->seed;
    size_t nk = (size_t)w.n * w.K;
    uint32_t nlinks = tn_topology_link_count(topo);
    w.piece = malloc((size_t)w.K * sizeof(*w.piece));
    w.holds = calloc((size_t)w.n * w.words, sizeof(*w.holds));
    w.incoming = calloc((size_t)w.n * w.words, sizeof(*w.incoming));
    w.busy = calloc(nlinks ? nlinks : 1, sizeof(*w.busy));
    w.arrival = malloc((nk ? nk : 1) * sizeof(*w.arrival));
    tn_status st = (w.piece && w.holds && w.incoming && w.busy && w.arrival) ? TN_OK : tc_oom(err);
    for (size_t i = 0; !st && i < nk; i++)
    {
        w.arrival[i] = TC_NONE;
    }
    for (uint32_t k = 0; !st && k < w.K; k++)
    {
        w.piece[k] = tn_chunk_block(w.coll, tn_schedule_bytes(s), w.n, w.C, k % w.C, k / w.C);
    }
    if (!st)
    {
        st = tc_pairs(&w, err);
    }
    if (!st)
    {
        st = tc_synthesize(&w, err);
    }
    if (!st)
    {
        st = tc_schedule(&w, err);
    }
    if (!st)
    {
        tn_schedule_set_contention_free(s, true);
    }
    tc_free(&w);
    return st;
}
