/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Swing all-reduce (tn-algo-swing.c): verified schedules on rings, tori and without a
 * topology (reduce-scatter and all-gather alone too, with their counts and bytes); peers against
 * rho(s) = sum (-2)^i; 2 log2(p) steps; bytes per rank against 2 (p-1)/p S; non-power-of-two sizes
 * refused by name; on torus:8x8 fewer hops per byte than recursive halving-doubling (the paper's
 * claim), the cost-model times written to swing-cost.txt in the test temp folder. swing-torus
 * (multiport): the same on tori of power-of-two dims, each transfer along one dim, hops per byte
 * against the closed form.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-rank-order.h"
#include "ns3/tn-verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rho(s) as the paper's sum, independent of the planner's closed form */
static int64_t
rho_sum(uint32_t s)
{
    int64_t sum = 0, term = 1;
    for (uint32_t i = 0; i <= s; i++)
    {
        sum += term;
        term *= -2;
    }
    return sum;
}

static uint32_t
log2u(uint32_t p)
{
    uint32_t L = 0;
    while ((1u << L) < p)
    {
        L++;
    }
    return L;
}

static tn_schedule*
plan(tn_test_ctx* ctx,
     const tn_topology* t,
     const char* algo,
     uint32_t ranks,
     uint64_t S,
     uint32_t C)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.ranks = ranks;
    req.bytes = S;
    req.chunks = C;
    tn_schedule* s = NULL;
    tn_error err;
    err.message[0] = 0;
    if (!TN_CHECK_MSG(ctx,
                      tn_plan(t, &req, &s, &err) == TN_OK,
                      "%s %s N=%u S=%llu C=%u: %s",
                      algo,
                      t ? tn_topology_name(t) : "(none)",
                      ranks,
                      (unsigned long long)S,
                      C,
                      err.message))
    {
        return NULL;
    }
    if (!TN_CHECK_MSG(ctx,
                      tn_verify_schedule(s, t, NULL, &err) == TN_OK,
                      "%s %s N=%u S=%llu C=%u: %s",
                      algo,
                      t ? tn_topology_name(t) : "(none)",
                      ranks,
                      (unsigned long long)S,
                      C,
                      err.message))
    {
        tn_schedule_destroy(s);
        return NULL;
    }
    return s;
}

/* tn_plan_estimate's closed form is the exact transfer count */
static void
check_estimate(tn_test_ctx* ctx,
               const tn_topology* t,
               const char* algo,
               uint32_t ranks,
               uint32_t C,
               uint32_t count)
{
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = algo;
    req.ranks = ranks;
    req.chunks = C;
    tn_plan_size size;
    tn_error err;
    if (TN_CHECK_MSG(ctx, tn_plan_estimate(t, &req, &size, &err) == TN_OK, "%s", err.message))
    {
        TN_CHECK(ctx, size.exact_transfers);
        TN_CHECK_EQ(ctx, size.transfers, count);
    }
}

/* The topology of spec (NULL: none) in *t and algo's verified plan on it; NULL (and *t freed)
 * on failure. */
static tn_schedule*
plan_spec(tn_test_ctx* ctx,
          const char* spec,
          const char* algo,
          uint32_t ranks,
          uint64_t S,
          uint32_t C,
          tn_topology** t)
{
    *t = spec ? tn_test_topology(ctx, spec) : NULL;
    tn_schedule* s = spec && !*t ? NULL : plan(ctx, *t, algo, ranks, S, C);
    if (!s)
    {
        tn_topology_destroy(*t);
        *t = NULL;
    }
    return s;
}

/* Position of every rank on the ring order of t (malloc'd; NULL on failure). */
static uint32_t*
ring_positions(tn_test_ctx* ctx, const tn_topology* t, uint32_t p)
{
    uint32_t* order = malloc(p * sizeof(uint32_t));
    uint32_t* at = malloc(p * sizeof(uint32_t));
    tn_error err;
    if (order && at && TN_CHECK(ctx, tn_ring_order(t, p, order, NULL, &err) == TN_OK))
    {
        for (uint32_t k = 0; k < p; k++)
        {
            at[order[k]] = k;
        }
        free(order);
        return at;
    }
    free(order);
    free(at);
    return NULL;
}

/* The Swing peer of ring position v at step s, from the paper's sum for rho. */
static uint32_t
closed_peer(uint32_t v, uint32_t s, uint32_t p)
{
    int64_t rho = rho_sum(s);
    int64_t q = (v % 2 == 0 ? (int64_t)v + rho : (int64_t)v - rho) % (int64_t)p;
    return (uint32_t)(q < 0 ? q + p : q);
}

/* Every transfer: its step, its peer by the closed form on the ring order, and the
 * counts and bytes of the closed forms. */
static void
check_swing(tn_test_ctx* ctx, const char* spec, uint32_t ranks, uint64_t S, uint32_t C)
{
    tn_topology* t = NULL;
    tn_schedule* s = plan_spec(ctx, spec, "swing", ranks, S, C, &t);
    if (!s)
    {
        return;
    }
    uint32_t p = tn_schedule_ranks(s), L = log2u(p);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 2ull * L * p * C);
    check_estimate(ctx, t, "swing", ranks, C, tn_schedule_count(s));
    TN_CHECK_EQ(ctx, tn_schedule_steps(s), 2 * L);
    /* each block is sent by 2^s ranks at step s of each phase: (p-1) S per phase */
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 2ull * (p - 1) * S);
    uint32_t* at = ring_positions(ctx, t, p);
    uint64_t* sent = calloc(p, sizeof(uint64_t));
    if (at && sent)
    {
        uint32_t wrong_peer = 0, wrong_op = 0;
        for (uint32_t i = 0; i < tn_schedule_count(s); i++)
        {
            const tn_transfer* x = tn_schedule_transfer(s, i);
            sent[x->src] += x->length;
            /* reduce-scatter steps 0..L-1, all-gather mirrors them */
            uint32_t step = x->step < L ? x->step : 2 * L - 1 - x->step;
            wrong_peer += at[x->dst] != closed_peer(at[x->src], step, p);
            wrong_op += x->op != (x->step < L ? TN_OP_REDUCE : TN_OP_COPY);
        }
        TN_CHECK_MSG(ctx,
                     wrong_peer == 0,
                     "%s: %u transfers off the Swing peers",
                     spec,
                     wrong_peer);
        TN_CHECK_EQ(ctx, wrong_op, 0);
        if (S % ((uint64_t)p * C) == 0)
        {
            for (uint32_t r = 0; r < p; r++)
            {
                TN_CHECK_EQ(ctx, sent[r], 2ull * (p - 1) * (S / p));
            }
        }
    }
    free(at);
    free(sent);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

static void
test_verified(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"ring:8", "ring:16", "torus:4x4", "torus:8x8"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        check_swing(ctx, specs[i], 0, 1u << 20, 1);         /* divides: bytes per rank exact */
        check_swing(ctx, specs[i], 0, 1000003, 1);          /* divides by nothing */
        check_swing(ctx, specs[i], 0, 3, 1);                /* fewer bytes than ranks */
        check_swing(ctx, specs[i], 0, 64ull * 1000 * 3, 3); /* chunks */
    }
    /* without a topology and on a subset of a torus's NPUs */
    for (uint32_t p = 1; p <= 64; p *= 2)
    {
        check_swing(ctx, NULL, p, 4096ull * p, 1);
        check_swing(ctx, NULL, p, 777, 2);
    }
    check_swing(ctx, "torus:4x4", 8, 8000, 1);
}

/* swing-torus: 2D parts of 2 L p transfers per chunk, 2 L steps, each transfer along one
 * dim to the coordinate c + rho(k) or c - rho(k) of a k < log2(P_d), bytes as swing */
static void
check_swing_torus(tn_test_ctx* ctx, const char* spec, uint64_t S, uint32_t C, int contention_free)
{
    tn_topology* t = tn_test_topology(ctx, spec);
    if (!t)
    {
        return;
    }
    tn_schedule* s = plan(ctx, t, "swing-torus", 0, S, C);
    if (!s)
    {
        tn_topology_destroy(t);
        return;
    }
    uint32_t p = tn_schedule_ranks(s), L = log2u(p), D = tn_topology_dim_count(t);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), 2ull * D * 2 * L * p * C);
    check_estimate(ctx, t, "swing-torus", 0, C, tn_schedule_count(s));
    TN_CHECK_EQ(ctx, tn_schedule_steps(s), 2 * L);
    TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), 2ull * (p - 1) * S);
    uint64_t* sent = calloc(p, sizeof(uint64_t));
    uint32_t off_dim = 0, off_rho = 0;
    for (uint32_t i = 0; sent && i < tn_schedule_count(s); i++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, i);
        sent[x->src] += x->length;
        if (x->dim < 0)
        {
            off_dim++;
            continue;
        }
        uint32_t stride = 1;
        for (int32_t d = 0; d < x->dim; d++)
        {
            stride *= tn_topology_dim(t, (uint32_t)d)->size;
        }
        int64_t size = tn_topology_dim(t, (uint32_t)x->dim)->size;
        int64_t c = (x->src / stride) % size, q = (x->dst / stride) % size;
        int ok = 0;
        for (uint32_t k = 0; (1ll << k) < size && !ok; k++)
        {
            for (int64_t sign = -1; sign <= 1; sign += 2)
            {
                int64_t rho = sign * rho_sum(k);
                int64_t want = (c % 2 == 0 ? c + rho : c - rho) % size;
                ok |= (want < 0 ? want + size : want) == q;
            }
        }
        off_rho += !ok;
    }
    TN_CHECK_MSG(ctx, off_dim == 0, "%s: %u transfers across several dims", spec, off_dim);
    TN_CHECK_MSG(ctx, off_rho == 0, "%s: %u transfers off the Swing peers", spec, off_rho);
    if (sent && S % (2ull * D * p * C) == 0)
    {
        for (uint32_t r = 0; r < p; r++)
        {
            TN_CHECK_EQ(ctx, sent[r], 2ull * (p - 1) * (S / p));
        }
    }
    free(sent);
    tn_contention_report* rep = NULL;
    tn_error err;
    if (contention_free && TN_CHECK(ctx, tn_verify_contention(s, t, NULL, &rep, &err) == TN_OK))
    {
        TN_CHECK_MSG(ctx,
                     rep->conflicts == 0,
                     "%s: %llu conflicts",
                     spec,
                     (unsigned long long)rep->conflicts);
    }
    tn_contention_report_destroy(rep);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

static void
test_torus_verified(tn_test_ctx* ctx)
{
    static const char* const specs[] =
        {"ring:8", "ring:16", "torus:4x4", "torus:8x8", "torus:4x8", "torus:2x4", "torus:4x4x4"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        check_swing_torus(ctx, specs[i], 1u << 20, 1, 0);
        check_swing_torus(ctx, specs[i], 1000003, 1, 0);
        check_swing_torus(ctx, specs[i], 5, 1, 0);
        check_swing_torus(ctx, specs[i], 3ull << 20, 3, 0);
    }
    /* every step of every part on its own directed links (measured: 4x4 and 4x4x4) */
    check_swing_torus(ctx, "torus:4x4", 1u << 20, 1, 1);
    check_swing_torus(ctx, "torus:4x4x4", 1u << 20, 1, 1);
    static const char* const bad[] = {"torus:3x4", "mesh:4x4", "switch:8"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, bad[i]);
        if (!t)
        {
            continue;
        }
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = "swing-torus";
        tn_error err;
        TN_CHECK_EQ(ctx, tn_plan_check(t, &req, &err), TN_EUNSUPPORTED);
        TN_CHECK_MSG(ctx,
                     strstr(err.message, "swing-torus") != NULL,
                     "%s: '%s'",
                     bad[i],
                     err.message);
        tn_topology_destroy(t);
    }
}

/* the closed form of rho and its first values from the paper */
static void
test_peers(tn_test_ctx* ctx)
{
    static const int64_t first[] = {1, -1, 3, -5, 11, -21, 43};
    for (uint32_t s = 0; s < 7; s++)
    {
        TN_CHECK_EQ(ctx, rho_sum(s), first[s]);
    }
    /* a schedule of 8 ranks without topology: identity order, peers spelled out */
    tn_schedule* s = plan(ctx, NULL, "swing", 8, 8000, 1);
    if (!s)
    {
        return;
    }
    /* step 0: 0<->1, 2<->3, ...; step 1: 0<->7, 2<->1, ...; step 2: 0<->3, 2<->5, ... */
    static const uint32_t peer_of[3][8] = {{1, 0, 3, 2, 5, 4, 7, 6},
                                           {7, 2, 1, 4, 3, 6, 5, 0},
                                           {3, 6, 5, 0, 7, 2, 1, 4}};
    uint32_t checked = 0;
    for (uint32_t i = 0; i < tn_schedule_count(s); i++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, i);
        if (x->step < 3)
        {
            TN_CHECK_EQ(ctx, x->dst, peer_of[x->step][x->src]);
            /* recursive halving: half, a quarter, an eighth of the vector */
            TN_CHECK_EQ(ctx, x->length, 8000u >> (x->step + 1));
            checked++;
        }
    }
    TN_CHECK_EQ(ctx, checked, 24);
    tn_schedule_destroy(s);
}

static void
test_errors(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"ring:6", "torus:3x4", "torus:4x4"};
    static const uint32_t ranks[] = {0, 0, 12};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, specs[i]);
        if (!t)
        {
            continue;
        }
        tn_plan_request req;
        tn_plan_request_init(&req);
        req.algorithm = "swing";
        req.ranks = ranks[i];
        req.bytes = 4096;
        tn_schedule* s = (tn_schedule*)&req;
        tn_error err;
        TN_CHECK_EQ(ctx, tn_plan(t, &req, &s, &err), TN_EUNSUPPORTED);
        TN_CHECK(ctx, s == NULL);
        char n[16];
        snprintf(n, sizeof(n), "%u", ranks[i] ? ranks[i] : tn_topology_npu_count(t));
        TN_CHECK_MSG(ctx,
                     strstr(err.message, "swing") && strstr(err.message, "power-of-two") &&
                         strstr(err.message, n),
                     "%s: message '%s'",
                     specs[i],
                     err.message);
        tn_topology_destroy(t);
    }
    /* the blocks of swing's slots are not the ranks' own slices: all-to-all is refused */
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "swing";
    req.collective = TN_COLL_ALL_TO_ALL;
    req.ranks = 8;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_plan_check(NULL, &req, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strstr(err.message, "swing") != NULL);
}

/* Reduce-scatter and all-gather alone: verified (each rank ends with, or starts from, its own
 * slice), log2 p steps, one op throughout, (p-1) S bytes in all (each slice sent by 2^s
 * ranks at step s), between one transfer per rank and step and one per slice sent, and the
 * estimate a bound on the count. */
static void
test_reduce_scatter_all_gather(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* algo;
        const char* spec;
        uint32_t ranks;
    } cases[] = {{"swing", "ring:8", 0},
                 {"swing", "torus:4x4", 0},
                 {"swing", "torus:8x8", 0},
                 {"swing", "switch:16", 0},
                 {"swing", NULL, 32},
                 {"swing-torus", "ring:8", 0},
                 {"swing-torus", "torus:2x4", 0},
                 {"swing-torus", "torus:4x4", 0},
                 {"swing-torus", "torus:4x4x4", 0}};

    static const uint64_t sizes[][2] = {{1u << 20, 1}, {1000003, 1}, {3, 1}, {3u << 20, 3}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        tn_topology* t = cases[i].spec ? tn_test_topology(ctx, cases[i].spec) : NULL;
        if (cases[i].spec && !t)
        {
            continue;
        }
        for (int rs = 0; rs < 2; rs++)
        {
            for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
            {
                tn_plan_request req;
                tn_plan_request_init(&req);
                req.algorithm = cases[i].algo;
                req.collective = rs ? TN_COLL_REDUCE_SCATTER : TN_COLL_ALL_GATHER;
                req.ranks = cases[i].ranks;
                req.bytes = sizes[k][0];
                req.chunks = (uint32_t)sizes[k][1];
                tn_schedule* s = NULL;
                tn_error err;
                err.message[0] = 0;
                const char* name = cases[i].spec ? cases[i].spec : "(none)";
                if (!TN_CHECK_MSG(ctx,
                                  tn_plan(t, &req, &s, &err) == TN_OK &&
                                      tn_verify_schedule(s, t, NULL, &err) == TN_OK,
                                  "%s %s on %s, S=%llu C=%u: %s",
                                  req.algorithm,
                                  tn_collective_name(req.collective),
                                  name,
                                  (unsigned long long)req.bytes,
                                  req.chunks,
                                  err.message))
                {
                    tn_schedule_destroy(s);
                    continue;
                }
                uint32_t p = tn_schedule_ranks(s), L = log2u(p);
                uint64_t parts = strcmp(req.algorithm, "swing") == 0
                                     ? 1
                                     : 2 * (uint64_t)tn_topology_dim_count(t);
                uint64_t n = tn_schedule_count(s), per = parts * req.chunks;
                TN_CHECK_EQ(ctx, tn_schedule_steps(s), L);
                TN_CHECK_EQ(ctx, tn_schedule_total_bytes(s), (uint64_t)(p - 1) * req.bytes);
                TN_CHECK_MSG(ctx,
                             n >= (uint64_t)L * p * per && n <= (uint64_t)p * (p - 1) * per,
                             "%s on %s: %llu transfers",
                             req.algorithm,
                             name,
                             (unsigned long long)n);
                uint32_t wrong_op = 0;
                for (uint32_t x = 0; x < n; x++)
                {
                    wrong_op += tn_schedule_transfer(s, x)->op != (rs ? TN_OP_REDUCE : TN_OP_COPY);
                }
                TN_CHECK_EQ(ctx, wrong_op, 0);
                tn_plan_size size;
                TN_CHECK(ctx, tn_plan_estimate(t, &req, &size, &err) == TN_OK);
                TN_CHECK(ctx, !size.exact_transfers && size.transfers >= n);
                tn_schedule_destroy(s);
            }
        }
        tn_topology_destroy(t);
    }
}

/* The paper's claim: Swing's peers are closer on a torus than recursive doubling's, so
 * a byte crosses fewer links. Cost-model times beside ring, rhd and ring2d (doc). */
static void
test_torus_cost(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"torus:4x4", "torus:8x8"};
    static const char* const algos[] =
        {"swing", "rhd", "ring", "ring-bidir", "ring2d", "swing-torus", "multitree"};
    static const uint64_t sizes[] = {32ull << 10, 1ull << 20, 16ull << 20, 64ull << 20};
    char path[512];
    FILE* f = fopen(tn_test_temp_path(ctx, "swing-cost.txt", path, sizeof(path)), "w");
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, specs[i]);
        if (!t)
        {
            continue;
        }
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        {
            double time[7] = {0}, hops[7] = {0};
            for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
            {
                tn_schedule* s = plan(ctx, t, algos[a], 0, sizes[z], 1);
                tn_cost_result* r = NULL;
                tn_error err;
                if (s && TN_CHECK(ctx, tn_cost_estimate(s, t, NULL, NULL, &r, &err) == TN_OK))
                {
                    time[a] = r->time_ns;
                    hops[a] = (double)r->link_bytes_sum / (double)r->total_bytes;
                }
                tn_cost_result_destroy(r);
                tn_schedule_destroy(s);
            }
            if (f)
            {
                fprintf(f,
                        "%s %8llu KiB: swing %.1f us (%.2f hops/byte) rhd %.1f us (%.2f) ring "
                        "%.1f ring-bidir %.1f ring2d %.1f swing-torus %.1f (%.2f) multitree %.1f\n",
                        specs[i],
                        (unsigned long long)(sizes[z] >> 10),
                        time[0] / 1e3,
                        hops[0],
                        time[1] / 1e3,
                        hops[1],
                        time[2] / 1e3,
                        time[3] / 1e3,
                        time[4] / 1e3,
                        time[5] / 1e3,
                        hops[5],
                        time[6] / 1e3);
            }
            /* fewer links per byte and, bandwidth-bound, less time than rhd */
            TN_CHECK_MSG(ctx,
                         hops[0] > 0 && hops[0] < hops[1],
                         "%s: swing %.3f hops per byte, rhd %.3f",
                         specs[i],
                         hops[0],
                         hops[1]);
            /* multiport: one hop per byte on 4x4 (distances 1, 1 per dim); on 8x8 the
             * distance-3 step of each dim carries 1/32 + 1/64 of a part: 69/63 hops */
            TN_CHECK_NEAR(ctx, hops[5], i == 0 ? 1.0 : 69.0 / 63.0, 1e-3);
            TN_CHECK_MSG(ctx,
                         time[5] > 0 && time[5] < time[0],
                         "%s: swing-torus %.0f ns, swing %.0f ns",
                         specs[i],
                         time[5],
                         time[0]);
            if (sizes[z] == (32ull << 10))
            {
                /* 2 log2 p steps against 2 (X-1) + 2 (Y-1): faster than ring2d */
                TN_CHECK_MSG(ctx,
                             time[5] < time[4],
                             "%s: swing-torus %.0f ns, ring2d %.0f ns",
                             specs[i],
                             time[5],
                             time[4]);
            }
            if (i == 0 && sizes[z] == (64ull << 20))
            {
                /* both at the 4-link bound on 4x4 */
                TN_CHECK_NEAR(ctx, time[5] / time[4], 1.0, 0.01);
            }
            if (sizes[z] >= (16ull << 20))
            {
                TN_CHECK_MSG(ctx,
                             time[0] > 0 && time[0] < time[1],
                             "%s %llu: swing %.0f ns, rhd %.0f ns",
                             specs[i],
                             (unsigned long long)sizes[z],
                             time[0],
                             time[1]);
            }
        }
        tn_topology_destroy(t);
    }
    if (f)
    {
        fclose(f);
    }
}

/* swing-lat: log2 p steps; per chunk and step every rank copies its whole region to its
 * Swing peer (the closed form on the ring order) into scratch slot t and adds its own sum into
 * it with a local reduce; one final local copy per rank and chunk. Counts, bytes per rank
 * (L S over the network) and the estimate against these closed forms. */
static void
check_swing_lat(tn_test_ctx* ctx, const char* spec, uint32_t ranks, uint64_t S, uint32_t C)
{
    tn_topology* t = NULL;
    tn_schedule* s = plan_spec(ctx, spec, "swing-lat", ranks, S, C, &t);
    if (!s)
    {
        return;
    }
    uint32_t p = tn_schedule_ranks(s), L = log2u(p);
    TN_CHECK_EQ(ctx, tn_schedule_steps(s), L);
    TN_CHECK_EQ(ctx, tn_schedule_count(s), (uint64_t)p * (2 * L + 1) * C * (p > 1));
    TN_CHECK_EQ(ctx, tn_schedule_local_count(s), (uint64_t)p * (L + 1) * C * (p > 1));
    TN_CHECK_EQ(ctx, tn_schedule_scratch(s), (uint64_t)L * S);
    if (p > 1)
    {
        check_estimate(ctx, t, "swing-lat", ranks, C, tn_schedule_count(s));
    }
    uint32_t* at = ring_positions(ctx, t, p);
    uint64_t* sent = calloc(p, sizeof(uint64_t));
    if (at && sent)
    {
        uint32_t wrong = 0;
        for (uint32_t i = 0; i < tn_schedule_count(s); i++)
        {
            const tn_transfer* x = tn_schedule_transfer(s, i);
            if (tn_op_is_local(x->op))
            {
                wrong += x->src != x->dst || x->dim != -1;
                continue;
            }
            sent[x->src] += x->length;
            wrong += at[x->dst] != closed_peer(at[x->src], x->step, p) || x->op != TN_OP_COPY ||
                     x->dst_offset < S * (x->step + 1) || x->dst_offset >= S * (x->step + 2);
        }
        TN_CHECK_MSG(ctx, wrong == 0, "%s: %u transfers off swing-lat's plan", spec, wrong);
        for (uint32_t r = 0; r < p && p > 1; r++)
        {
            TN_CHECK_EQ(ctx, sent[r], (uint64_t)L * S);
        }
    }
    free(at);
    free(sent);
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

static void
test_lat_verified(tn_test_ctx* ctx)
{
    static const char* const specs[] = {"ring:8", "ring:16", "torus:4x4", "torus:8x8"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        check_swing_lat(ctx, specs[i], 0, 1u << 20, 1);
        check_swing_lat(ctx, specs[i], 0, 1000003, 1);
        check_swing_lat(ctx, specs[i], 0, 3, 1);                /* fewer bytes than ranks */
        check_swing_lat(ctx, specs[i], 0, 64ull * 1000 * 3, 3); /* chunks */
    }
    for (uint32_t p = 1; p <= 64; p *= 2)
    {
        check_swing_lat(ctx, NULL, p, 4096ull * p, 1);
        check_swing_lat(ctx, NULL, p, 777, 2);
    }
    check_swing_lat(ctx, "torus:4x4", 8, 8000, 1);
    /* the bandwidth-optimal variant's refusals: non-power-of-two ranks, other collectives */
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "swing-lat";
    req.ranks = 12;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_plan_check(NULL, &req, &err), TN_EUNSUPPORTED);
    TN_CHECK(ctx, strstr(err.message, "swing-lat") && strstr(err.message, "power-of-two"));
    req.ranks = 8;
    req.collective = TN_COLL_REDUCE_SCATTER;
    TN_CHECK_EQ(ctx, tn_plan_check(NULL, &req, &err), TN_EUNSUPPORTED);
}

/* A copy of s without dep `drop` of transfer `id`, finalized (NULL on failure). */
static tn_schedule*
without_dep(tn_test_ctx* ctx, const tn_schedule* s, uint32_t id, uint32_t drop)
{
    tn_schedule* c = NULL;
    tn_error err;
    if (!TN_CHECK(ctx,
                  tn_schedule_create(tn_schedule_collective(s),
                                     tn_schedule_ranks(s),
                                     tn_schedule_bytes(s),
                                     0,
                                     tn_schedule_chunks(s),
                                     &c,
                                     &err) == TN_OK))
    {
        return NULL;
    }
    tn_schedule_set_scratch(c, tn_schedule_scratch(s));
    tn_status st = TN_OK;
    for (uint32_t i = 0; i < tn_schedule_count(s) && !st; i++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, i);
        tn_transfer_spec sp =
            {x->src, x->dst, x->src_offset, x->dst_offset, x->length, x->op, x->step, x->dim, 0};
        uint32_t n = 0, kept[4], k = 0;
        const uint32_t* d = tn_schedule_deps(s, i, &n);
        for (uint32_t j = 0; j < n && k < 4; j++)
        {
            if (i != id || d[j] != drop)
            {
                kept[k++] = d[j];
            }
        }
        st = tn_schedule_add(c, &sp, kept, k, NULL, &err);
    }
    st = st ? st : tn_schedule_finalize(c, &err);
    if (!TN_CHECK_MSG(ctx, st == TN_OK, "%s", err.message))
    {
        tn_schedule_destroy(c);
        return NULL;
    }
    return c;
}

/* The verifier's proof covers local ops: a local reduce without its dep on the copy that lands
 * in its slot writes over data it may not have, one without its dep on the sum it adds reads
 * scratch before it is ready, a final copy without the step-0 send overwrites the vector that
 * send may still read. And the IR refuses malformed local ops. */
static void
test_lat_missing_deps(tn_test_ctx* ctx)
{
    tn_schedule* s = plan(ctx, NULL, "swing-lat", 8, 8000, 1);
    if (!s)
    {
        return;
    }
    /* rank 0's local reduce of step 1 and the final copy: the ops of rank 0 among them */
    uint32_t reduce1 = TN_TRANSFER_NONE, final = TN_TRANSFER_NONE;
    for (uint32_t i = 0; i < tn_schedule_count(s); i++)
    {
        const tn_transfer* x = tn_schedule_transfer(s, i);
        if (x->src == 0 && x->op == TN_OP_LOCAL_REDUCE && x->step == 1)
        {
            reduce1 = i;
        }
        if (x->src == 0 && x->op == TN_OP_LOCAL_COPY)
        {
            final = i;
        }
    }
    if (!TN_CHECK(ctx, reduce1 != TN_TRANSFER_NONE && final != TN_TRANSFER_NONE))
    {
        tn_schedule_destroy(s);
        return;
    }
    uint32_t n = 0;
    const uint32_t* d = tn_schedule_deps(s, reduce1, &n);
    TN_CHECK_EQ(ctx, n, 2);
    const uint32_t* f = NULL;
    uint32_t nf = 0;
    f = tn_schedule_deps(s, final, &nf);
    TN_CHECK_EQ(ctx, nf, 2);

    struct
    {
        uint32_t id, drop;
        const char* what;
    } cases[4] = {{reduce1, TN_TRANSFER_NONE, "writes rank 0 [16000,24000)"}, /* slot 1 */
                  {reduce1, TN_TRANSFER_NONE, "reads rank 0 [8000,16000)"},   /* slot 0 */
                  {final, TN_TRANSFER_NONE, "writes rank 0 [0,8000) read"},   /* vector */
                  {final, TN_TRANSFER_NONE, ""}};

    for (uint32_t j = 0; j < n && n == 2; j++)
    {
        /* the copy into the slot (a network op) and the rank's own sum (a local one) */
        bool copy = !tn_op_is_local(tn_schedule_transfer(s, d[j])->op);
        cases[copy ? 0 : 1].drop = d[j];
    }
    for (uint32_t j = 0; j < nf && nf == 2; j++)
    {
        bool send = !tn_op_is_local(tn_schedule_transfer(s, f[j])->op);
        cases[send ? 2 : 3].drop = f[j];
    }
    tn_error err;
    for (int k = 0; k < 3; k++)
    {
        tn_schedule* c = without_dep(ctx, s, cases[k].id, cases[k].drop);
        if (!c)
        {
            continue;
        }
        err.message[0] = 0;
        TN_CHECK_EQ(ctx, tn_verify(c, &err), TN_EVERIFY);
        TN_CHECK_MSG(ctx,
                     strstr(err.message, cases[k].what) && strstr(err.message, "local-") &&
                         strstr(err.message, "not an ancestor"),
                     "case %d: '%s'",
                     k,
                     err.message);
        tn_schedule_destroy(c);
    }
    /* malformed local ops */
    tn_schedule* b = NULL;
    if (TN_CHECK(ctx, tn_schedule_create(TN_COLL_ALL_REDUCE, 2, 100, 0, 1, &b, &err) == TN_OK))
    {
        tn_schedule_set_scratch(b, 100);
        tn_transfer_spec sp = {0, 1, 100, 0, 100, TN_OP_LOCAL_REDUCE, 0, -1, 0};
        TN_CHECK_EQ(ctx, tn_schedule_add(b, &sp, NULL, 0, NULL, &err), TN_EINVAL); /* 0 -> 1 */
        sp.dst = 0;
        sp.dst_offset = 50;
        TN_CHECK_EQ(ctx, tn_schedule_add(b, &sp, NULL, 0, NULL, &err), TN_EINVAL); /* overlap */
        TN_CHECK(ctx, strstr(err.message, "disjoint") != NULL);
        sp.dst_offset = 0;
        uint32_t id = 0, link = 0;
        TN_CHECK_EQ(ctx, tn_schedule_add(b, &sp, NULL, 0, &id, &err), TN_OK);
        TN_CHECK_EQ(ctx, tn_schedule_set_path(b, id, &link, 1, &err), TN_EINVAL); /* no path */
        TN_CHECK_EQ(ctx, tn_schedule_local_count(b), 1);
        tn_schedule_destroy(b);
    }
    tn_schedule_destroy(s);
}

/* Cost model against the closed form L (alpha + S/B) where no two transfers share a link
 * (without a topology every pair has its own link; on a switch every step is a matching),
 * local ops free; and on switch:16 with 1 us links at 32 KiB against the bandwidth-optimal
 * swing's 2 L alpha + 2 (p-1)/p S/B, which it beats there (alpha > 0.53 S/B). */
static void
test_lat_cost(tn_test_ctx* ctx)
{
    const uint64_t S = 32 << 10;
    tn_schedule* s = plan(ctx, NULL, "swing-lat", 16, S, 1);
    tn_cost_options opt = {0};
    opt.rate_bps = 100000000000ull;
    opt.latency_ns = 1000;
    tn_cost_result* r = NULL;
    tn_error err;
    if (s && TN_CHECK(ctx, tn_cost_estimate(s, NULL, NULL, &opt, &r, &err) == TN_OK))
    {
        TN_CHECK_NEAR(ctx, r->time_ns, 4 * (1000 + S * 8e9 / 1e11), 1e-6);
        tn_cost_result_destroy(r);
    }
    tn_schedule_destroy(s);
    static const char* const specs[] = {"switch:16", "switch:16,latency=1us"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
    {
        tn_topology* t = tn_test_topology(ctx, specs[i]);
        if (!t)
        {
            continue;
        }
        const tn_link* l = tn_topology_link(t, 0);
        double alpha = 2.0 * (double)l->latency_ns, sb = S * 8e9 / (double)l->rate_bps;
        double time[2] = {0, 0};
        const char* algos[2] = {"swing-lat", "swing"};
        for (int a = 0; a < 2; a++)
        {
            s = plan(ctx, t, algos[a], 0, S, 1);
            if (s && TN_CHECK(ctx, tn_cost_estimate(s, t, NULL, NULL, &r, &err) == TN_OK))
            {
                time[a] = r->time_ns;
                tn_cost_result_destroy(r);
            }
            tn_schedule_destroy(s);
        }
        TN_CHECK_NEAR(ctx, time[0], 4 * (alpha + sb), 1e-6);
        TN_CHECK_NEAR(ctx, time[1], 8 * alpha + 2 * 15.0 / 16 * sb, 1e-6);
        TN_CHECK_MSG(ctx,
                     (time[0] < time[1]) == (alpha > (2.125 / 4) * sb),
                     "%s: swing-lat %.0f ns, swing %.0f ns",
                     specs[i],
                     time[0],
                     time[1]);
        tn_topology_destroy(t);
    }
}

void
tn_suite_swing(tn_test_suite* suite)
{
    tn_test_add(suite, "verified", test_verified);
    tn_test_add(suite, "peers", test_peers);
    tn_test_add(suite, "errors", test_errors);
    tn_test_add(suite, "torus-verified", test_torus_verified);
    tn_test_add(suite, "reduce-scatter-all-gather", test_reduce_scatter_all_gather);
    tn_test_add(suite, "torus-cost", test_torus_cost);
    tn_test_add(suite, "lat-verified", test_lat_verified);
    tn_test_add(suite, "lat-missing-deps", test_lat_missing_deps);
    tn_test_add(suite, "lat-cost", test_lat_cost);
}
