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
#include "tn-shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR TN_COLL_BIT(TN_COLL_ALL_REDUCE)
#define RS TN_COLL_BIT(TN_COLL_REDUCE_SCATTER)
#define AG TN_COLL_BIT(TN_COLL_ALL_GATHER)
#define A2A TN_COLL_BIT(TN_COLL_ALL_TO_ALL)
#define BC TN_COLL_BIT(TN_COLL_BROADCAST)
#define RD TN_COLL_BIT(TN_COLL_REDUCE)

/* ---- estimates: closed forms of the transfer counts -----------------------------------
 * Checked against the built schedules in test-algo-classic.c (estimate_matches_plans).
 * pairs = N (N - 1); phases = 2 for all-reduce (reduce-scatter then all-gather), else 1. */

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

static uint64_t
pairs_of(uint64_t N)
{
    return tn_sat_mul(N, N > 0 ? N - 1 : 0);
}

static uint64_t
phases_of(const tn_plan_request* req)
{
    return req->collective == TN_COLL_ALL_REDUCE ? 2 : 1;
}

static void
set_size(tn_plan_size* size, uint64_t transfers, uint64_t deps, bool exact)
{
    size->transfers = transfers;
    size->deps = deps;
    size->exact_transfers = exact;
}

/* ring: N - 1 steps of N transfers per phase and chunk; ring-bidir twice (two halves) */
static void
estimate_ring_parts(const tn_plan_request* req,
                    uint64_t N,
                    uint64_t C,
                    uint64_t parts,
                    tn_plan_size* size)
{
    uint64_t t = tn_sat_mul(tn_sat_mul(tn_sat_mul(pairs_of(N), phases_of(req)), C), parts);
    set_size(size, t, tn_sat_mul(t, 2), true);
}

static void
estimate_ring(const tn_topology* topo,
              const tn_plan_request* req,
              uint32_t n,
              uint64_t C,
              tn_plan_size* size)
{
    (void)topo;
    estimate_ring_parts(req, n, C, 1, size);
}

static void
estimate_ring_bidir(const tn_topology* topo,
                    const tn_plan_request* req,
                    uint32_t n,
                    uint64_t C,
                    tn_plan_size* size)
{
    (void)topo;
    estimate_ring_parts(req, n, C, 2, size);
}

static void
estimate_direct(const tn_topology* topo,
                const tn_plan_request* req,
                uint32_t n,
                uint64_t C,
                tn_plan_size* size)
{
    (void)topo;
    uint64_t N = n;
    bool one_to_all = req->collective == TN_COLL_BROADCAST || req->collective == TN_COLL_REDUCE;
    bool ar = req->collective == TN_COLL_ALL_REDUCE;
    uint64_t t =
        tn_sat_mul(one_to_all ? (N > 0 ? N - 1 : 0) : tn_sat_mul(pairs_of(N), phases_of(req)), C);
    /* all-reduce: every all-gather send waits for the N-1 reduces into its sender */
    uint64_t deps = ar ? tn_sat_mul(tn_sat_mul(pairs_of(N), N > 0 ? N - 1 : 0), C) : t;
    set_size(size, t, deps, true);
}

/* one transfer per (rank, chunk of another rank) and phase; zero-length chunks (S < N C)
 * move nowhere. TACOS adds a dep per path link and a reduce's children. */
static void
estimate_pairs(const tn_plan_request* req,
               uint64_t N,
               uint64_t C,
               uint64_t deps_per,
               tn_plan_size* size)
{
    uint64_t t = tn_sat_mul(tn_sat_mul(pairs_of(N), phases_of(req)), C);
    set_size(size, t, tn_sat_mul(t, deps_per), false);
}

static void
estimate_multitree(const tn_topology* topo,
                   const tn_plan_request* req,
                   uint32_t n,
                   uint64_t C,
                   tn_plan_size* size)
{
    (void)topo;
    estimate_pairs(req, n, C, 2, size);
}

static void
estimate_tacos(const tn_topology* topo,
               const tn_plan_request* req,
               uint32_t n,
               uint64_t C,
               tn_plan_size* size)
{
    (void)topo;
    estimate_pairs(req, n, C, 4, size);
}

/* per dim phase: N (P_d - 1) transfers; ring2d runs 4 concurrent parts */
static void
estimate_dims_parts(const tn_topology* topo,
                    const tn_plan_request* req,
                    uint32_t n,
                    uint64_t C,
                    uint64_t parts,
                    tn_plan_size* size)
{
    uint64_t per_phase = tn_sat_mul(n, dim_peers(topo, n));
    uint64_t t = tn_sat_mul(tn_sat_mul(tn_sat_mul(per_phase, phases_of(req)), C), parts);
    set_size(size, t, tn_sat_mul(t, 3), false);
}

static void
estimate_dims(const tn_topology* topo,
              const tn_plan_request* req,
              uint32_t n,
              uint64_t C,
              tn_plan_size* size)
{
    estimate_dims_parts(topo, req, n, C, 1, size);
}

static void
estimate_ring2d(const tn_topology* topo,
                const tn_plan_request* req,
                uint32_t n,
                uint64_t C,
                tn_plan_size* size)
{
    estimate_dims_parts(topo, req, n, C, 4, size);
}

/* per chunk: log2 N steps of N copies and N local reduces, N final local copies */
static void
estimate_swing_lat(const tn_topology* topo,
                   const tn_plan_request* req,
                   uint32_t n,
                   uint64_t C,
                   tn_plan_size* size)
{
    (void)topo;
    (void)req;
    uint64_t t = tn_sat_mul(tn_sat_mul(n, 2 * ceil_log2(n) + 1), C);
    set_size(size, t, tn_sat_mul(t, 2), true);
}

/* all-reduce: 2 log2 N steps of N transfers per chunk and part. Reduce-scatter and
 * all-gather: one transfer per run of consecutive slices a rank sends, at most N - 1 per
 * rank (one per slice), the bound given here. A transfer waits for what its source received
 * before: about log2 N on average. */
static void
estimate_swing_parts(const tn_plan_request* req,
                     uint64_t N,
                     uint64_t C,
                     uint64_t parts,
                     tn_plan_size* size)
{
    bool ar = req->collective == TN_COLL_ALL_REDUCE;
    uint64_t t =
        tn_sat_mul(tn_sat_mul(ar ? tn_sat_mul(N, 2 * ceil_log2(N)) : pairs_of(N), parts), C);
    set_size(size, t, tn_sat_mul(t, ceil_log2(N) + 1), ar);
}

static void
estimate_swing(const tn_topology* topo,
               const tn_plan_request* req,
               uint32_t n,
               uint64_t C,
               tn_plan_size* size)
{
    (void)topo;
    estimate_swing_parts(req, n, C, 1, size);
}

/* swing-torus: 2D concurrent parts */
static void
estimate_swing_torus(const tn_topology* topo,
                     const tn_plan_request* req,
                     uint32_t n,
                     uint64_t C,
                     tn_plan_size* size)
{
    estimate_swing_parts(req, n, C, 2 * (uint64_t)tn_topology_dim_count(topo), size);
}

/* rhd, dbt, hdrm: about log2 N rounds of N transfers per phase */
static void
estimate_log(const tn_topology* topo,
             const tn_plan_request* req,
             uint32_t n,
             uint64_t C,
             tn_plan_size* size)
{
    (void)topo;
    uint64_t t = tn_sat_mul(tn_sat_mul(tn_sat_mul(n, ceil_log2(n) + 2), phases_of(req)), C);
    set_size(size, t, tn_sat_mul(t, 2), false);
}

/* The registry: one entry per algorithm, with all its properties. */
static const tn_algorithm tn_algorithm_table[] = {
    {.name = "ring",
     .aliases = "",
     .collectives = AR | RS | AG | BC | RD,
     .description =
         "unidirectional ring (Patarasuk & Yuan 2009); broadcast/reduce as a pipelined chain",
     .plan = tn_algo_ring_plan,
     .takes_rank_order = true,
     .default_chunks = 1,
     .generator = TN_GENERATOR_RING,
     .pipelined = true,
     .estimate = estimate_ring},
    {.name = "ring-bidir",
     .aliases = "bidirectional-ring",
     .collectives = AR | RS | AG,
     .description = "bidirectional ring: half the data in each direction",
     .plan = tn_algo_ring_bidir_plan,
     .takes_rank_order = true,
     .default_chunks = 1,
     .generator = TN_GENERATOR_RING_BIDIR,
     .pipelined = true,
     .estimate = estimate_ring_bidir},
    {.name = "direct",
     .aliases = "",
     .collectives = AR | RS | AG | A2A | BC | RD,
     .description = "direct: every rank exchanges with every rank in one step",
     .plan = tn_algo_direct_plan,
     .default_chunks = 1,
     .generator = TN_GENERATOR_DIRECT,
     .estimate = estimate_direct},
    {.name = "rhd",
     .aliases = "halving-doubling,recursive-halving-doubling",
     .collectives = AR | RS | AG,
     .description = "recursive halving-doubling (Thakur, Rabenseifner & Gropp 2005), "
                    "non-power-of-two by folding",
     .plan = tn_algo_rhd_plan,
     .default_chunks = 1,
     .generator = TN_GENERATOR_RHD,
     .estimate = estimate_log},
    {.name = "dbt",
     .aliases = "double-binary-tree",
     .collectives = AR,
     .description = "double binary tree (Sanders, Speck & Traeff 2009; NCCL 2.4)",
     .plan = tn_algo_dbt_plan,
     .default_chunks = 1,
     .generator = TN_GENERATOR_DBT,
     .estimate = estimate_log},
    {.name = "ring2d",
     .aliases = "2d-ring",
     .collectives = AR | RS | AG,
     .needs_topology = true,
     .description = "2D ring on a 2D torus: RS along rows then columns, AG in reverse; 4 "
                    "concurrent parts (x-first, y-first, both ring directions)",
     .check = tn_algo_ring2d_check,
     .plan = tn_algo_ring2d_plan,
     .default_chunks = 1,
     .generator = TN_GENERATOR_RING2D,
     .pipelined = true,
     .estimate = estimate_ring2d},
    {.name = "hierarchical",
     .aliases = "hier",
     .collectives = AR | RS | AG,
     .needs_topology = true,
     .description = "multi-dimensional baseline: RS dim 0..D-1, AG D-1..0, ring or direct per dim",
     .check = tn_algo_hierarchical_check,
     .plan = tn_algo_hierarchical_plan,
     .default_chunks = 1,
     .generator = TN_GENERATOR_HIERARCHICAL,
     .pipelined = true,
     .estimate = estimate_dims},
    {.name = "multitree",
     .aliases = "",
     .collectives = AR | RS | AG,
     .needs_topology = true,
     .description = "MultiTree: one contention-free spanning tree per rank, built step by step "
                    "(Huang et al., ISCA 2021)",
     .check = tn_algo_multitree_check,
     .plan = tn_algo_multitree_plan,
     .default_chunks = 1,
     .estimate = estimate_multitree},
    {.name = "hdrm",
     .aliases = "eflops-hdrm",
     .collectives = AR,
     .needs_topology = true,
     .description = "EFLOPS halving-doubling with rank mapping, contention-free on BiGraph (Dong "
                    "et al., HPCA 2020)",
     .check = tn_algo_hdrm_check,
     .plan = tn_algo_hdrm_plan,
     .default_chunks = 1,
     .estimate = estimate_log},
    {.name = "themis",
     .aliases = "",
     .collectives = AR,
     .needs_topology = true,
     .description = "Themis: per-chunk dimension order by load, event-driven per-dim queues "
                    "(Rashidi et al., ISCA 2022)",
     .check = tn_algo_themis_check,
     .plan = tn_algo_themis_plan,
     .default_chunks = TN_THEMIS_DEFAULT_CHUNKS,
     .estimate = estimate_dims},
    {.name = "swing",
     .aliases = "",
     .collectives = AR | RS | AG,
     .description = "Swing, bandwidth-optimal: recursive halving-doubling with peers r +- (1, "
                    "-1, 3, -5, 11, ...) on the ring order, power-of-two ranks (De Sensi et al., "
                    "NSDI 2024)",
     .check = tn_algo_swing_check,
     .plan = tn_algo_swing_plan,
     .takes_rank_order = true,
     .default_chunks = 1,
     .generator = TN_GENERATOR_SWING,
     .estimate = estimate_swing},
    {.name = "swing-lat",
     .aliases = "swing-latency",
     .collectives = AR,
     .description = "Swing, latency-optimal: log2 p steps, each rank exchanges its whole sum "
                    "with the peer r +- (1, -1, 3, -5, ...) on the ring order and reduces it "
                    "locally, power-of-two ranks (De Sensi et al., NSDI 2024)",
     .check = tn_algo_swing_check,
     .plan = tn_algo_swing_lat_plan,
     .takes_rank_order = true,
     .default_chunks = 1,
     .estimate = estimate_swing_lat},
    {.name = "swing-torus",
     .aliases = "swing-multiport",
     .collectives = AR | RS | AG,
     .needs_topology = true,
     .description = "Swing, multiport on a torus or ring of power-of-two dims: 2D concurrent "
                    "parts, each cycling the dims from its own first dim, half of them mirrored "
                    "(De Sensi et al., NSDI 2024)",
     .check = tn_algo_swing_torus_check,
     .plan = tn_algo_swing_torus_plan,
     .default_chunks = 1,
     .generator = TN_GENERATOR_SWING_TORUS,
     .estimate = estimate_swing_torus},
    {.name = "tacos",
     .aliases = "",
     .collectives = AR | RS | AG,
     .needs_topology = true,
     .description = "TACOS: all-gather by greedy link-chunk matching on a time-expanded "
                    "network, reduce-scatter its reverse, any topology (Won et al., MICRO 2024)",
     .check = tn_algo_tacos_check,
     .plan = tn_algo_tacos_plan,
     .default_chunks = 1,
     .estimate = estimate_tacos},
    {.name = "nccl",
     .aliases = "",
     .collectives = AR | RS | AG | BC | RD,
     .description = "NCCL's choice of ring or tree, LL, LL128 or Simple and "
                    "channels for the size and system (NCCL's tuning model); nccl:ALGO:PROTO "
                    "forces one",
     .check = tn_algo_nccl_check,
     .plan = tn_algo_nccl_plan,
     .default_chunks = 1,
     .estimate = tn_algo_nccl_estimate,
     .family = true,
     .prepare = tn_algo_nccl_prepare},
    {.name = "custom",
     .aliases = "",
     .collectives = AR | RS | AG | A2A,
     .description = "custom:PREFIX runs the schedule of ASTRA-sim's Collective API traces "
                    "PREFIX.<rank>.et (sends, receives and reductions; chunks of the "
                    "collective's size), verified before it runs",
     .check = tn_algo_custom_check,
     .plan = tn_algo_custom_plan,
     .default_chunks = 1,
     .estimate = tn_algo_custom_estimate,
     .family = true},
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
        size_t len = strlen(table[i].name);
        if (strcmp(table[i].name, name) == 0 || alias_match(table[i].aliases, name) ||
            (table[i].family && strncmp(table[i].name, name, len) == 0 && name[len] == ':'))
        {
            return &table[i];
        }
    }
    return NULL;
}

uint32_t
tn_algorithm_default_chunks(const tn_algorithm* algorithm)
{
    return algorithm && algorithm->default_chunks ? algorithm->default_chunks : 1u;
}

uint32_t
tn_algorithm_chunks(const tn_algorithm* algorithm, uint32_t chunks)
{
    return chunks ? chunks : tn_algorithm_default_chunks(algorithm);
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

tn_status
tn_plan_resolve(const tn_topology* topo,
                const tn_plan_request* request,
                const tn_algorithm** algorithm,
                uint32_t* ranks,
                tn_error* err)
{
    if (!algorithm || !ranks)
    {
        return tn_error_set(err, TN_EINVAL, "plan: algorithm or ranks is NULL");
    }
    *algorithm = NULL;
    *ranks = 0;
    return resolve(topo, request, algorithm, ranks, err);
}

static tn_status
estimate(const tn_topology* topo,
         const tn_plan_request* req,
         const tn_algorithm* a,
         uint32_t n,
         tn_plan_size* size)
{
    memset(size, 0, sizeof(*size));
    a->estimate(topo, req, n, tn_algorithm_chunks(a, req->chunks), size);
    uint64_t nodes = topo ? tn_topology_node_count(topo) : 0;
    uint64_t npus = topo ? tn_topology_npu_count(topo) : 0;
    /* a generated topology's routes compute their distances (tn-shape.h): O(nodes) */
    bool computed =
        topo && tn_shape_routes_valid(tn_topology_shape(topo), tn_topology_npus_forward(topo));
    size->route_bytes = computed ? tn_sat_mul(nodes, 12)
                                 : tn_sat_mul(tn_sat_mul(npus, nodes), nodes < 65535 ? 2 : 4);
    size->bytes =
        tn_sat_add(tn_schedule_memory_estimate(size->transfers, size->deps, 0), size->route_bytes);
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
             tn_algorithm_chunks(a, req->chunks),
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
    tn_plan_request prepared;
    if (!st && a->prepare)
    {
        st = a->prepare(topo, req, n, &prepared, err);
        req = &prepared;
    }
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
    tn_plan_request prepared;
    if (!st && a->prepare)
    {
        st = a->prepare(topo, req, n, &prepared, err);
        req = &prepared;
    }
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
