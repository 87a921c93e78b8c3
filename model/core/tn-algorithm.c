/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Algorithm registry, planning entry point and helpers shared by the algorithms
 * (contracts in tn-algorithm.h and tn-algorithm-impl.h).
 */
#include "tn-algorithm.h"

#include "tn-algorithm-impl.h"
#include "tn-array.h"
#include "tn-memory.h"
#include "tn-rank-order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR TN_COLL_BIT(TN_COLL_ALL_REDUCE)
#define RS TN_COLL_BIT(TN_COLL_REDUCE_SCATTER)
#define AG TN_COLL_BIT(TN_COLL_ALL_GATHER)
#define A2A TN_COLL_BIT(TN_COLL_ALL_TO_ALL)
#define BC TN_COLL_BIT(TN_COLL_BROADCAST)
#define RD TN_COLL_BIT(TN_COLL_REDUCE)

/* The registry: ONE line per algorithm. */
static const tn_algorithm tn_algorithm_table[] = {
    {"ring",
     "",
     AR | RS | AG | BC | RD,
     false,
     "unidirectional ring (Patarasuk & Yuan 2009); broadcast/reduce as a pipelined chain",
     NULL,
     tn_algo_ring_plan,
     true},
    {"ring-bidir",
     "bidirectional-ring",
     AR | RS | AG,
     false,
     "bidirectional ring: half the data in each direction",
     NULL,
     tn_algo_ring_bidir_plan,
     true},
    {"direct",
     "",
     AR | RS | AG | A2A | BC | RD,
     false,
     "direct: every rank exchanges with every rank in one step",
     NULL,
     tn_algo_direct_plan,
     false},
    {"rhd",
     "halving-doubling,recursive-halving-doubling",
     AR | RS | AG,
     false,
     "recursive halving-doubling (Thakur, Rabenseifner & Gropp 2005), non-power-of-two by folding",
     NULL,
     tn_algo_rhd_plan,
     false},
    {"dbt",
     "double-binary-tree",
     AR,
     false,
     "double binary tree (Sanders, Speck & Traeff 2009; NCCL 2.4)",
     NULL,
     tn_algo_dbt_plan,
     false},
    {"ring2d",
     "2d-ring",
     AR | RS | AG,
     true,
     "2D ring on a 2D torus: RS along rows then columns, AG in reverse; 4 concurrent parts "
     "(x-first, y-first, both ring directions)",
     tn_algo_ring2d_check,
     tn_algo_ring2d_plan,
     false},
    {"hierarchical",
     "hier",
     AR | RS | AG,
     true,
     "multi-dimensional baseline: RS dim 0..D-1, AG D-1..0, ring or direct per dim",
     tn_algo_hierarchical_check,
     tn_algo_hierarchical_plan,
     false},
    {"multitree",
     "",
     AR | RS | AG,
     true,
     "MultiTree: one contention-free spanning tree per rank, built step by step (Huang et al., "
     "ISCA 2021)",
     tn_algo_multitree_check,
     tn_algo_multitree_plan,
     false},
    {"hdrm",
     "eflops-hdrm",
     AR,
     true,
     "EFLOPS halving-doubling with rank mapping, contention-free on BiGraph (Dong et al., HPCA "
     "2020)",
     tn_algo_hdrm_check,
     tn_algo_hdrm_plan,
     false},
    {"themis",
     "",
     AR,
     true,
     "Themis: per-chunk dimension order by load, event-driven per-dim queues (Rashidi et al., ISCA "
     "2022)",
     tn_algo_themis_check,
     tn_algo_themis_plan,
     false},
    {"swing",
     "",
     AR | RS | AG,
     false,
     "Swing, bandwidth-optimal: recursive halving-doubling with peers r +- (1, -1, 3, -5, 11, "
     "...) on the ring order, power-of-two ranks (De Sensi et al., NSDI 2024)",
     tn_algo_swing_check,
     tn_algo_swing_plan,
     true},
    {"swing-lat",
     "swing-latency",
     AR,
     false,
     "Swing, latency-optimal: log2 p steps, each rank exchanges its whole sum with the peer "
     "r +- (1, -1, 3, -5, ...) on the ring order and reduces it locally, power-of-two ranks "
     "(De Sensi et al., NSDI 2024)",
     tn_algo_swing_check,
     tn_algo_swing_lat_plan,
     true},
    {"swing-torus",
     "swing-multiport",
     AR | RS | AG,
     true,
     "Swing, multiport on a torus or ring of power-of-two dims: 2D concurrent parts, each "
     "cycling the dims from its own first dim, half of them mirrored (De Sensi et al., NSDI 2024)",
     tn_algo_swing_torus_check,
     tn_algo_swing_torus_plan,
     false},
    {"tacos",
     "",
     AR | RS | AG,
     true,
     "TACOS: all-gather by greedy link-chunk matching on a time-expanded network, reduce-scatter "
     "its reverse, any topology (Won et al., MICRO 2024)",
     tn_algo_tacos_check,
     tn_algo_tacos_plan,
     false},
};

const tn_algorithm*
tn_algorithms(size_t* count)
{
    if (count)
    {
        *count = sizeof(tn_algorithm_table) / sizeof(tn_algorithm_table[0]);
    }
    return tn_algorithm_table;
}

static bool
alias_match(const char* aliases, const char* name)
{
    size_t len = strlen(name);
    const char* p = aliases;
    while (p && *p)
    {
        const char* comma = strchr(p, ',');
        size_t l = comma ? (size_t)(comma - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0)
        {
            return true;
        }
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

const tn_algorithm*
tn_algorithm_find(const char* name)
{
    if (!name)
    {
        return NULL;
    }
    size_t count;
    const tn_algorithm* table = tn_algorithms(&count);
    for (size_t i = 0; i < count; i++)
    {
        if (strcmp(table[i].name, name) == 0 || alias_match(table[i].aliases, name))
        {
            return &table[i];
        }
    }
    return NULL;
}

uint32_t
tn_algorithm_default_chunks(const tn_algorithm* algorithm)
{
    return algorithm && strcmp(algorithm->name, "themis") == 0 ? 64u : 1u;
}

static const char* const themis_policy_names[] =
    {[TN_THEMIS_FIFO] = "fifo", [TN_THEMIS_SCF] = "scf"};
#define THEMIS_POLICY_COUNT (sizeof(themis_policy_names) / sizeof(themis_policy_names[0]))

const char*
tn_themis_policy_name(tn_themis_policy policy)
{
    return (size_t)policy < THEMIS_POLICY_COUNT ? themis_policy_names[policy] : "?";
}

tn_status
tn_themis_policy_parse(const char* name, tn_themis_policy* policy, tn_error* err)
{
    if (!name || !policy)
    {
        return tn_error_set(err, TN_EINVAL, "themis policy: name is NULL");
    }
    for (size_t i = 0; i < THEMIS_POLICY_COUNT; i++)
    {
        if (strcmp(themis_policy_names[i], name) == 0)
        {
            *policy = (tn_themis_policy)i;
            return TN_OK;
        }
    }
    return tn_error_set(err,
                        TN_EINVAL,
                        "themis policy: unknown name '%s' (expected %s or %s)",
                        name,
                        themis_policy_names[TN_THEMIS_FIFO],
                        themis_policy_names[TN_THEMIS_SCF]);
}

void
tn_plan_request_init(tn_plan_request* r)
{
    memset(r, 0, sizeof(*r));
    r->collective = TN_COLL_ALL_REDUCE;
    r->algorithm = "ring";
    r->chunks = 1;
    r->themis.policy = TN_THEMIS_FIFO;
    r->themis.active_chunks_per_dim = 1;
    r->themis.baseline = false;
}

static tn_status
resolve(const tn_topology* topo,
        const tn_plan_request* req,
        const tn_algorithm** algo,
        uint32_t* ranks,
        tn_error* err)
{
    if (!req)
    {
        return tn_error_set(err, TN_EINVAL, "plan: request is NULL");
    }
    const tn_algorithm* a = tn_algorithm_find(req->algorithm);
    if (!a)
    {
        size_t count;
        const tn_algorithm* table = tn_algorithms(&count);
        char names[256];
        size_t used = 0;
        names[0] = 0;
        for (size_t i = 0; i < count && used < sizeof(names); i++)
        {
            used += (size_t)
                snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", table[i].name);
        }
        return tn_error_set(err,
                            TN_EINVAL,
                            "plan: algorithm: unknown name '%s' (known: %s)",
                            req->algorithm ? req->algorithm : "(null)",
                            names);
    }
    if (req->bytes > TN_BYTES_MAX)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: bytes %llu is beyond 2^62 (4.6 EB), more than any study means",
                            a->name,
                            (unsigned long long)req->bytes);
    }
    if ((unsigned)req->collective >= (unsigned)TN_COLL_COUNT)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: collective %d is not valid",
                            a->name,
                            (int)req->collective);
    }
    if (!(a->collectives & TN_COLL_BIT(req->collective)))
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: does not implement %s",
                            a->name,
                            tn_collective_name(req->collective));
    }
    if (a->needs_topology && !topo)
    {
        return tn_error_set(err, TN_EINVAL, "%s: needs a topology", a->name);
    }
    uint32_t n = req->ranks;
    if (topo)
    {
        uint32_t npus = tn_topology_npu_count(topo);
        if (n == 0)
        {
            n = npus;
        }
        else if (n > npus)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "%s: ranks %u > %u NPUs of topology '%s'",
                                a->name,
                                n,
                                npus,
                                tn_topology_name(topo));
        }
    }
    if (n == 0)
    {
        return tn_error_set(err, TN_EINVAL, "%s: ranks must be > 0 (no topology given)", a->name);
    }
    if ((req->collective == TN_COLL_BROADCAST || req->collective == TN_COLL_REDUCE) &&
        req->root >= n)
    {
        return tn_error_set(err, TN_EINVAL, "%s: root %u >= ranks %u", a->name, req->root, n);
    }
    if (req->rank_order || req->rank_order_count)
    {
        if (!a->takes_rank_order)
        {
            return tn_error_set(
                err,
                TN_EUNSUPPORTED,
                "%s: takes no rank order (ring orders are for ring, ring-bidir, swing)",
                a->name);
        }
        tn_status st =
            tn_rank_order_validate(a->name, req->rank_order, req->rank_order_count, n, err);
        if (st)
        {
            return st;
        }
    }
    if (a->check)
    {
        tn_status st = a->check(topo, req, n, err);
        if (st)
        {
            return st;
        }
    }
    *algo = a;
    *ranks = n;
    return TN_OK;
}

tn_status
tn_plan_check(const tn_topology* topo, const tn_plan_request* request, tn_error* err)
{
    const tn_algorithm* a;
    uint32_t n;
    return resolve(topo, request, &a, &n, err);
}

static uint64_t
sat_mul(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
ceil_log2(uint64_t n)
{
    uint64_t k = 0;
    while (k < 64 && (UINT64_C(1) << k) < n)
    {
        k++;
    }
    return k;
}

/* sum over the topology's dims of (P_d - 1); N - 1 without dims (one flat group) */
static uint64_t
dim_peers(const tn_topology* topo, uint32_t n)
{
    uint32_t nd = topo ? tn_topology_dim_count(topo) : 0;
    if (nd == 0)
    {
        return n > 0 ? n - 1 : 0;
    }
    uint64_t sum = 0;
    for (uint32_t d = 0; d < nd; d++)
    {
        uint32_t p = tn_topology_dim(topo, d)->size;
        sum += p > 0 ? p - 1 : 0;
    }
    return sum;
}

/* Closed forms of the transfer counts, checked against the built schedules in
 * test-algo-classic.c (estimate_matches_plans). */
static tn_status
estimate(const tn_topology* topo,
         const tn_plan_request* req,
         const tn_algorithm* a,
         uint32_t n,
         tn_plan_size* size)
{
    memset(size, 0, sizeof(*size));
    uint64_t N = n, C = req->chunks ? req->chunks : 1;
    if (strcmp(a->name, "themis") == 0 && req->chunks == 0)
    {
        C = 64;
    }
    tn_collective coll = req->collective;
    bool ar = coll == TN_COLL_ALL_REDUCE;
    bool one_to_all = coll == TN_COLL_BROADCAST || coll == TN_COLL_REDUCE;
    uint64_t pairs = sat_mul(N, N > 0 ? N - 1 : 0);
    uint64_t t = 0, deps = 0;
    bool exact = true;
    if (strcmp(a->name, "ring") == 0 || strcmp(a->name, "ring-bidir") == 0)
    {
        t = sat_mul(sat_mul(pairs, ar ? 2 : 1), C);
        t = sat_mul(t, strcmp(a->name, "ring-bidir") == 0 ? 2 : 1);
        deps = sat_mul(t, 2);
    }
    else if (strcmp(a->name, "direct") == 0)
    {
        t = sat_mul(one_to_all ? (N > 0 ? N - 1 : 0) : sat_mul(pairs, ar ? 2 : 1), C);
        /* all-reduce: every all-gather send waits for the N-1 reduces into its sender */
        deps = ar ? sat_mul(sat_mul(pairs, N > 0 ? N - 1 : 0), C) : t;
    }
    else if (strcmp(a->name, "multitree") == 0 || strcmp(a->name, "tacos") == 0)
    {
        /* one transfer per (rank, chunk of another rank) and phase; zero-length chunks
         * (S < N C) move nowhere. TACOS adds a dep per path link and a reduce's children. */
        t = sat_mul(sat_mul(pairs, ar ? 2 : 1), C);
        deps = sat_mul(t, strcmp(a->name, "tacos") == 0 ? 4 : 2);
        exact = false;
    }
    else if (strcmp(a->name, "themis") == 0 || strcmp(a->name, "hierarchical") == 0 ||
             strcmp(a->name, "ring2d") == 0)
    {
        uint64_t per_phase = sat_mul(N, dim_peers(topo, n));
        t = sat_mul(sat_mul(per_phase, ar ? 2 : 1), C);
        t = sat_mul(t, strcmp(a->name, "ring2d") == 0 ? 4 : 1);
        deps = sat_mul(t, 3);
        exact = false;
    }
    else if (strcmp(a->name, "swing-lat") == 0)
    {
        /* per chunk: log2 N steps of N copies and N local reduces, N final local copies */
        t = sat_mul(sat_mul(N, 2 * ceil_log2(N) + 1), C);
        deps = sat_mul(t, 2);
    }
    else if (strcmp(a->name, "swing") == 0 || strcmp(a->name, "swing-torus") == 0)
    {
        /* all-reduce: 2 log2 N steps of N transfers per chunk; swing-torus: 2D concurrent
         * parts. Reduce-scatter and all-gather: one transfer per run of consecutive slices a
         * rank sends, at most N - 1 per rank (one per slice), the bound given here. */
        uint64_t parts = strcmp(a->name, "swing") == 0 ? 1 : 2 * tn_topology_dim_count(topo);
        t = sat_mul(sat_mul(ar ? sat_mul(N, 2 * ceil_log2(N)) : pairs, parts), C);
        /* a transfer waits for what its source received before: about log2 N on average */
        deps = sat_mul(t, ceil_log2(N) + 1);
        exact = ar;
    }
    else
    {
        /* rhd, dbt, hdrm and anything new: about log2 N rounds of N transfers per phase */
        t = sat_mul(sat_mul(sat_mul(N, ceil_log2(N) + 2), ar ? 2 : 1), C);
        deps = sat_mul(t, 2);
        exact = false;
    }
    uint64_t nodes = topo ? tn_topology_node_count(topo) : 0;
    uint64_t npus = topo ? tn_topology_npu_count(topo) : 0;
    size->transfers = t;
    size->deps = deps;
    size->exact_transfers = exact;
    size->route_bytes = sat_mul(sat_mul(npus, nodes), nodes < 65535 ? 2 : 4);
    size->bytes = sat_add(tn_schedule_memory_estimate(t, deps, 0), size->route_bytes);
    return TN_OK;
}

static tn_status
refuse_large(const tn_plan_request* req,
             const tn_algorithm* a,
             uint32_t n,
             const tn_plan_size* size,
             uint64_t limit,
             tn_error* err)
{
    char what[256], routes[64] = "";
    if (size->route_bytes > size->bytes / 4)
    {
        char b[32];
        snprintf(routes,
                 sizeof(routes),
                 " and its routing tables (%s)",
                 tn_memory_format(size->route_bytes, b, sizeof(b)));
    }
    snprintf(what,
             sizeof(what),
             "plan: %s %s on %u ranks with %u chunk(s) (%s%llu transfers)%s",
             a->name,
             tn_collective_name(req->collective),
             n,
             req->chunks ? req->chunks : (strcmp(a->name, "themis") == 0 ? 64u : 1u),
             size->exact_transfers ? "" : "about ",
             (unsigned long long)size->transfers,
             routes);
    const char* change =
        routes[0] ? "the routing tables hold one entry per (NPU, node) pair: use a topology with "
                    "fewer nodes"
                  : "plan fewer ranks or chunks, or an algorithm with fewer transfers (rhd, dbt "
                    "and hierarchical grow as N log N or N * sum(P_d - 1), ring and direct as N^2)";
    if (size->transfers > UINT32_MAX - 1 && size->exact_transfers)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s needs more transfers than a schedule holds (at most %u); %s",
                            what,
                            UINT32_MAX - 1,
                            change);
    }
    if (limit == UINT64_MAX)
    {
        return TN_OK;
    }
    return tn_memory_check(size->bytes, req->memory_limit, what, change, err);
}

tn_status
tn_plan_estimate(const tn_topology* topo,
                 const tn_plan_request* req,
                 tn_plan_size* size,
                 tn_error* err)
{
    if (!size)
    {
        return tn_error_set(err, TN_EINVAL, "plan_estimate: size is NULL");
    }
    const tn_algorithm* a = NULL;
    uint32_t n = 0;
    tn_status st = resolve(topo, req, &a, &n, err);
    if (st)
    {
        return st;
    }
    return estimate(topo, req, a, n, size);
}

tn_status
tn_plan(const tn_topology* topo, const tn_plan_request* req, tn_schedule** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "plan: out is NULL");
    }
    *out = NULL;
    const tn_algorithm* a = NULL;
    uint32_t n = 0;
    tn_status st = resolve(topo, req, &a, &n, err);
    if (st)
    {
        return st;
    }
    uint32_t root =
        (req->collective == TN_COLL_BROADCAST || req->collective == TN_COLL_REDUCE) ? req->root : 0;
    tn_plan_size size;
    uint64_t limit = req->memory_limit;
    st = estimate(topo, req, a, n, &size);
    if (!st && limit == 0)
    {
        st = tn_memory_default_limit(&limit, err);
    }
    if (!st)
    {
        st = refuse_large(req, a, n, &size, limit, err);
    }
    if (st)
    {
        return st;
    }
    tn_schedule* s = NULL;
    st = tn_schedule_create(req->collective,
                            n,
                            req->bytes,
                            root,
                            req->chunks ? req->chunks : 1,
                            &s,
                            err);
    if (st)
    {
        return st;
    }
    st = tn_schedule_set_algorithm(s, a->name, err);
    tn_schedule_set_memory_limit(s, limit == UINT64_MAX ? 0 : limit);
    if (!st)
    {
        st = a->plan(topo, req, s, err);
    }
    if (!st)
    {
        st = tn_schedule_finalize(s, err);
    }
    if (st)
    {
        tn_schedule_destroy(s);
        return st;
    }
    *out = s;
    return TN_OK;
}

/* ---- helpers --------------------------------------------------------------------- */

int32_t
tn_algo_rank_dim(const tn_topology* topo, uint32_t a, uint32_t b)
{
    if (!topo)
    {
        return -1;
    }
    uint32_t nd = tn_topology_dim_count(topo);
    if (nd == 0)
    {
        return -1;
    }
    int32_t found = -1;
    uint32_t pa = 1;
    for (uint32_t d = 0; d < nd; d++)
    {
        uint32_t size = tn_topology_dim(topo, d)->size;
        uint32_t ca = (a / pa) % size;
        uint32_t cb = (b / pa) % size;
        if (ca != cb)
        {
            if (found >= 0)
            {
                return -1;
            }
            found = (int32_t)d;
        }
        pa *= size;
    }
    return found;
}

tn_status
tn_algo_add(tn_schedule* s,
            uint32_t src,
            uint32_t dst,
            uint64_t src_offset,
            uint64_t dst_offset,
            uint64_t length,
            tn_op op,
            uint32_t step,
            int32_t dim,
            uint32_t chunk,
            const uint32_t* deps,
            uint32_t ndeps,
            uint32_t* id,
            tn_error* err)
{
    tn_transfer_spec spec;
    spec.src = src;
    spec.dst = dst;
    spec.src_offset = src_offset;
    spec.dst_offset = dst_offset;
    spec.length = length;
    spec.op = op;
    spec.step = step;
    spec.dim = dim;
    spec.chunk = chunk;
    return tn_schedule_add(s, &spec, deps, ndeps, id, err);
}

tn_status
tn_deps_push(tn_deps* d, uint32_t id, tn_error* err)
{
    uint32_t* ids = tn_array_grow(d->ids, &d->cap, (size_t)d->n + 1, sizeof(*ids), 16);
    if (!ids)
    {
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    }
    d->ids = ids;
    d->ids[d->n++] = id;
    return TN_OK;
}

void
tn_deps_free(tn_deps* d)
{
    free(d->ids);
    d->ids = NULL;
    d->n = d->cap = 0;
}

tn_status
tn_front_init(tn_front* f, uint32_t ranks, tn_error* err)
{
    f->ranks = ranks;
    f->ids = calloc(ranks ? ranks : 1, sizeof(uint32_t*));
    f->count = calloc(ranks ? ranks : 1, sizeof(uint32_t));
    f->cap = calloc(ranks ? ranks : 1, sizeof(size_t));
    if (!f->ids || !f->count || !f->cap)
    {
        tn_front_free(f);
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    }
    return TN_OK;
}

void
tn_front_free(tn_front* f)
{
    if (f->ids)
    {
        for (uint32_t r = 0; r < f->ranks; r++)
        {
            free(f->ids[r]);
        }
    }
    free(f->ids);
    free(f->count);
    free(f->cap);
    f->ids = NULL;
    f->count = NULL;
    f->cap = NULL;
}

void
tn_front_clear(tn_front* f)
{
    for (uint32_t r = 0; r < f->ranks; r++)
    {
        f->count[r] = 0;
    }
}

tn_status
tn_front_push(tn_front* f, uint32_t rank, uint32_t id, tn_error* err)
{
    uint32_t* ids =
        tn_array_grow(f->ids[rank], &f->cap[rank], (size_t)f->count[rank] + 1, sizeof(*ids), 4);
    if (!ids)
    {
        return tn_error_set(err, TN_ENOMEM, "plan: out of memory");
    }
    f->ids[rank] = ids;
    f->ids[rank][f->count[rank]++] = id;
    return TN_OK;
}

tn_status
tn_deps_push_front(tn_deps* d, const tn_front* f, uint32_t rank, tn_error* err)
{
    for (uint32_t k = 0; k < f->count[rank]; k++)
    {
        tn_status st = tn_deps_push(d, f->ids[rank][k], err);
        if (st)
        {
            return st;
        }
    }
    return TN_OK;
}

tn_status
tn_front_carry(const tn_front* in, tn_front* out, tn_error* err)
{
    for (uint32_t r = 0; r < in->ranks; r++)
    {
        if (out->count[r] == 0)
        {
            for (uint32_t k = 0; k < in->count[r]; k++)
            {
                tn_status st = tn_front_push(out, r, in->ids[r][k], err);
                if (st)
                {
                    return st;
                }
            }
        }
    }
    return TN_OK;
}

tn_status
tn_front_copy(const tn_front* in, tn_front* out, tn_error* err)
{
    tn_front_clear(out);
    return tn_front_carry(in, out, err);
}

void
tn_front_swap(tn_front* a, tn_front* b)
{
    tn_front t = *a;
    *a = *b;
    *b = t;
}

/* ---- phase helpers shared by the ring and direct phases -------------------------- */

int32_t
tn_phase_dim(const tn_phase* ph, uint32_t a, uint32_t b)
{
    return ph->dim == TN_DIM_AUTO ? tn_algo_rank_dim(ph->topo, a, b) : ph->dim;
}

tn_status
tn_phase_keep_front(const tn_phase* ph, tn_error* err)
{
    for (uint32_t k = 0; k < ph->count; k++)
    {
        uint32_t r = ph->members[k];
        for (uint32_t i = 0; i < ph->in->count[r]; i++)
        {
            tn_status st = tn_front_push(ph->out, r, ph->in->ids[r][i], err);
            if (st)
            {
                return st;
            }
        }
    }
    return TN_OK;
}
