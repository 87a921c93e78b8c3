/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Themis (contract in tn-themis.h): the plan (orders and the event-driven simulation of
 * the chunk-phases), its schedule, and its registry entry points. The balancer is in
 * tn-themis-balancer.c.
 */
#include "tn-themis.h"

#include "tn-algorithm-impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- plan: orders + event-driven simulation ------------------------------------- */

struct tn_themis_plan
{
    uint32_t chunks;
    uint32_t dims;
    uint32_t phases; /* per chunk */
    uint32_t* order; /* chunks x dims */
    uint8_t* base;   /* chunks */
    double* loads;   /* chunks x dims */
    double* start;   /* chunks x phases */
    double* end;
    uint32_t* slot; /* chunks x phases: slot taken on its dim */
    uint32_t* prev; /* chunks x phases: phase id (c*phases+k) that held the slot before, or NONE */
    uint32_t* seq;  /* start order: seq[i] = phase id started i-th */
    double makespan;
};

void
tn_themis_plan_destroy(tn_themis_plan* p)
{
    if (p)
    {
        free(p->order);
        free(p->base);
        free(p->loads);
        free(p->start);
        free(p->end);
        free(p->slot);
        free(p->prev);
        free(p->seq);
        free(p);
    }
}

uint32_t
tn_themis_plan_chunks(const tn_themis_plan* p)
{
    return p->chunks;
}

uint32_t
tn_themis_plan_dims(const tn_themis_plan* p)
{
    return p->dims;
}

const uint32_t*
tn_themis_plan_order(const tn_themis_plan* p, uint32_t chunk)
{
    return p->order + (size_t)chunk * p->dims;
}

bool
tn_themis_plan_is_baseline(const tn_themis_plan* p, uint32_t chunk)
{
    return p->base[chunk] != 0;
}

const double*
tn_themis_plan_loads(const tn_themis_plan* p, uint32_t chunk)
{
    return p->loads + (size_t)chunk * p->dims;
}

double
tn_themis_plan_phase_start(const tn_themis_plan* p, uint32_t chunk, uint32_t phase)
{
    return p->start[(size_t)chunk * p->phases + phase];
}

double
tn_themis_plan_phase_end(const tn_themis_plan* p, uint32_t chunk, uint32_t phase)
{
    return p->end[(size_t)chunk * p->phases + phase];
}

double
tn_themis_plan_makespan(const tn_themis_plan* p)
{
    return p->makespan;
}

/* Dim algorithm kind: 0 ring, 1 direct over a switch, 2 direct over fc cables */
typedef struct themis_dim
{
    int kind;
    uint32_t size;
    uint64_t stride; /* rank stride of the dim */
    double rate;     /* bytes per ns of one cable of the dim at an NPU */
    double latency;  /* ns of one link */
} themis_dim;

static tn_status
themis_dims(const tn_topology* topo, themis_dim* dims, tn_error* err)
{
    uint32_t nd = tn_topology_dim_count(topo);
    uint64_t stride = 1;
    for (uint32_t d = 0; d < nd; d++)
    {
        const tn_dim_info* di = tn_topology_dim(topo, d);
        dims[d].size = di->size;
        dims[d].stride = stride;
        stride *= di->size;
        switch (di->kind)
        {
        case TN_DIM_RING:
        case TN_DIM_TORUS:
            dims[d].kind = 0;
            break;
        case TN_DIM_SWITCH:
            dims[d].kind = 1;
            break;
        case TN_DIM_FC:
            dims[d].kind = 2;
            break;
        default:
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "themis: dim %u of topology '%s' is a %s dim (needs ring, torus, "
                                "fc or switch dims)",
                                d,
                                tn_topology_name(topo),
                                tn_dim_kind_name(di->kind));
        }
        /* a cable of this dim at NPU rank 0 */
        uint32_t node = tn_topology_npu_node(topo, 0);
        uint32_t cnt = 0;
        const uint32_t* out = tn_topology_out_links(topo, node, &cnt);
        dims[d].rate = 0;
        for (uint32_t i = 0; i < cnt; i++)
        {
            const tn_link* l = tn_topology_link(topo, out[i]);
            if (l->dim == (int)d)
            {
                dims[d].rate = (double)l->rate_bps / 8e9;
                dims[d].latency = (double)l->latency_ns;
                break;
            }
        }
        if (dims[d].size > 1 && dims[d].rate <= 0)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "themis: NPU 0 of topology '%s' has no link in dim %u",
                                tn_topology_name(topo),
                                d);
        }
    }
    return TN_OK;
}

static double
themis_phase_time(const themis_dim* dm, double x)
{
    double p = (double)dm->size;
    if (dm->size <= 1)
    {
        return 0.0;
    }
    switch (dm->kind)
    {
    case 0:
        return (p - 1.0) * (dm->latency + x / p / dm->rate);
    case 1:
        return (p - 1.0) * x / p / dm->rate + 2.0 * dm->latency;
    default:
        return x / p / dm->rate + dm->latency;
    }
}

/* dim of phase k of chunk c */
static uint32_t
themis_phase_dim(const tn_themis_plan* p, uint32_t c, uint32_t k, tn_collective coll)
{
    const uint32_t* o = p->order + (size_t)c * p->dims;
    if (coll == TN_COLL_ALL_REDUCE)
    {
        return k < p->dims ? o[k] : o[2 * p->dims - 1 - k];
    }
    return o[k];
}

/* bytes a member handles in phase k of chunk c (input of RS, output of AG) */
static double
themis_phase_bytes(const tn_themis_plan* p,
                   const themis_dim* dims,
                   uint32_t c,
                   uint32_t k,
                   tn_collective coll,
                   double s,
                   double npus)
{
    const uint32_t* o = p->order + (size_t)c * p->dims;
    uint32_t D = p->dims;
    if (coll == TN_COLL_ALL_GATHER)
    {
        double x = s / npus;
        for (uint32_t i = 0; i <= k; i++)
        {
            x *= dims[o[i]].size;
        }
        return x;
    }
    uint32_t depth = (coll == TN_COLL_ALL_REDUCE && k >= D) ? 2 * D - 1 - k : k;
    double x = s;
    for (uint32_t i = 0; i < depth; i++)
    {
        x /= dims[o[i]].size;
    }
    return x;
}

typedef struct themis_sim
{
    uint32_t* queue; /* per dim: pending phase ids (small arrays, linear scan) */
    uint32_t* qlen;
    double* arrival;     /* per phase id */
    double* xbytes;      /* per phase id */
    double* slot_free;   /* D x A: time the slot frees, or -1 when idle */
    uint32_t* slot_last; /* D x A: the phase the slot ran last */
    uint32_t A;          /* active chunk-phases per dim */
} themis_sim;

/* Step 1: each chunk's dimension order from the balancer (p->order), whether it is the
 * baseline one (p->base) and the loads it saw (p->loads). */
static void
themis_orders(tn_themis_plan* p, tn_themis_balancer* b, const tn_plan_request* request)
{
    uint32_t C = p->chunks;
    uint32_t D = p->dims;
    bool ag = request->collective == TN_COLL_ALL_GATHER;
    for (uint32_t c = 0; c < C; c++)
    {
        double s = (double)tn_chunk_region(request->bytes, C, c).length;
        uint32_t* o = p->order + (size_t)c * D;
        tn_themis_balancer_next(b, s, ag, request->themis.baseline, o);
        bool is_base = true;
        for (uint32_t i = 0; i < D; i++)
        {
            is_base = is_base && o[i] == (ag ? D - 1 - i : i);
        }
        p->base[c] = is_base;
        memcpy(p->loads + (size_t)c * D, tn_themis_balancer_loads(b), D * sizeof(double));
    }
}

/* The index in q[0 .. qlen) of the phase a free slot takes next: the smallest first under
 * SCF, then the earliest arrival, then the lowest phase id. */
static uint32_t
themis_pick(const themis_sim* sim, const uint32_t* q, uint32_t qlen, tn_themis_policy policy)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < qlen; i++)
    {
        uint32_t x = q[i];
        uint32_t y = q[best];
        bool better;
        if (policy == TN_THEMIS_SCF && sim->xbytes[x] != sim->xbytes[y])
        {
            better = sim->xbytes[x] < sim->xbytes[y];
        }
        else if (sim->arrival[x] != sim->arrival[y])
        {
            better = sim->arrival[x] < sim->arrival[y];
        }
        else
        {
            better = x < y;
        }
        if (better)
        {
            best = i;
        }
    }
    return best;
}

/* Step 2: the event-driven simulation of the chunk-phases over the dims' slots: p->start, end,
 * slot, prev, seq (start order) and makespan. Returns the number of phases started (all of
 * them unless the simulation stalls). */
static size_t
themis_simulate(tn_themis_plan* p,
                const themis_dim* dims,
                const tn_plan_request* request,
                double npus,
                themis_sim* sim)
{
    const tn_collective coll = request->collective;
    const uint32_t C = p->chunks;
    const uint32_t D = p->dims;
    const uint32_t K = p->phases;
    const uint32_t A = sim->A;
    const size_t nph = (size_t)C * K;
    for (size_t i = 0; i < (size_t)D * A; i++)
    {
        sim->slot_free[i] = -1.0;
        sim->slot_last[i] = TN_TRANSFER_NONE;
    }
    for (uint32_t c = 0; c < C; c++)
    {
        double s = (double)tn_chunk_region(request->bytes, C, c).length;
        for (uint32_t k = 0; k < K; k++)
        {
            sim->xbytes[(size_t)c * K + k] = themis_phase_bytes(p, dims, c, k, coll, s, npus);
        }
        uint32_t d = themis_phase_dim(p, c, 0, coll);
        sim->queue[(size_t)d * C + sim->qlen[d]++] = c * K;
        sim->arrival[(size_t)c * K] = 0.0;
    }
    size_t started = 0;
    double now = 0.0;
    while (started < nph)
    {
        /* start what can start at `now` */
        for (uint32_t d = 0; d < D; d++)
        {
            for (uint32_t a = 0; a < A && sim->qlen[d] > 0; a++)
            {
                size_t si = (size_t)d * A + a;
                if (sim->slot_free[si] > now)
                {
                    continue;
                }
                uint32_t* q = sim->queue + (size_t)d * C;
                uint32_t best = themis_pick(sim, q, sim->qlen[d], request->themis.policy);
                uint32_t ph = q[best];
                q[best] = q[--sim->qlen[d]];
                p->start[ph] = now;
                p->end[ph] = now + themis_phase_time(&dims[d], sim->xbytes[ph]);
                p->slot[ph] = a;
                p->prev[ph] = sim->slot_last[si];
                p->seq[started++] = ph;
                sim->slot_last[si] = ph;
                sim->slot_free[si] = p->end[ph];
            }
        }
        /* next event time: the earliest end among running phases not handed on */
        double next = -1.0;
        for (size_t si = 0; si < (size_t)D * A; si++)
        {
            uint32_t ph = sim->slot_last[si];
            if (ph != TN_TRANSFER_NONE && sim->arrival[ph] >= 0 &&
                (next < 0 || sim->slot_free[si] < next))
            {
                next = sim->slot_free[si];
            }
        }
        if (next < 0)
        {
            break; /* nothing running: cannot happen while phases remain */
        }
        now = next;
        /* hand on every phase ending now, in (dim, slot) order */
        for (size_t si = 0; si < (size_t)D * A; si++)
        {
            uint32_t ph = sim->slot_last[si];
            if (ph == TN_TRANSFER_NONE || sim->arrival[ph] < 0 || sim->slot_free[si] != now)
            {
                continue;
            }
            sim->arrival[ph] = -1.0; /* handed on */
            uint32_t c = ph / K;
            uint32_t k = ph % K;
            if (k + 1 < K)
            {
                uint32_t d = themis_phase_dim(p, c, k + 1, coll);
                sim->arrival[ph + 1] = now;
                sim->queue[(size_t)d * C + sim->qlen[d]++] = ph + 1;
            }
        }
    }
    /* account for the phases still running at the end */
    for (size_t i = 0; i < nph; i++)
    {
        if (p->end[i] > p->makespan)
        {
            p->makespan = p->end[i];
        }
    }
    return started;
}

/* A plan of C chunks over D dims (K phases per chunk) and the simulation's state, A slots per
 * dim; *p is NULL, or incomplete (its arrays or sim's NULL) when memory ran out: the caller
 * checks. */
static void
themis_plan_alloc(uint32_t C, uint32_t D, uint32_t K, tn_themis_plan** out, themis_sim* sim)
{
    size_t nph = (size_t)C * K;
    tn_themis_plan* p = calloc(1, sizeof(*p));
    *out = p;
    if (!p)
    {
        return;
    }
    p->chunks = C;
    p->dims = D;
    p->phases = K;
    p->order = calloc((size_t)C * D, sizeof(*p->order));
    p->base = calloc(C, 1);
    p->loads = calloc((size_t)C * D, sizeof(*p->loads));
    p->start = calloc(nph, sizeof(*p->start));
    p->end = calloc(nph, sizeof(*p->end));
    p->slot = calloc(nph, sizeof(*p->slot));
    p->prev = calloc(nph, sizeof(*p->prev));
    p->seq = calloc(nph, sizeof(*p->seq));
    sim->queue = calloc((size_t)D * C, sizeof(*sim->queue));
    sim->qlen = calloc(D, sizeof(*sim->qlen));
    sim->arrival = calloc(nph, sizeof(*sim->arrival));
    sim->xbytes = calloc(nph, sizeof(*sim->xbytes));
    sim->slot_free = calloc((size_t)D * sim->A, sizeof(*sim->slot_free));
    sim->slot_last = calloc((size_t)D * sim->A, sizeof(*sim->slot_last));
}

tn_status
tn_themis_plan_create(const tn_topology* topo,
                      const tn_plan_request* request,
                      tn_themis_plan** out,
                      tn_error* err)
{
    *out = NULL;
    tn_collective coll = request->collective;
    if (coll != TN_COLL_ALL_REDUCE && coll != TN_COLL_REDUCE_SCATTER && coll != TN_COLL_ALL_GATHER)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "themis: collective '%s' not supported",
                            tn_collective_name(coll));
    }
    tn_themis_balancer* b = NULL;
    tn_status rc = tn_themis_balancer_from_topology(topo, &b, err);
    if (rc)
    {
        return rc;
    }
    uint32_t D = tn_themis_balancer_dims(b);
    themis_dim* dims = calloc(D, sizeof(*dims));
    if (dims == NULL)
    {
        tn_themis_balancer_destroy(b);
        return tn_error_set(err, TN_ENOMEM, "themis: out of memory");
    }
    rc = themis_dims(topo, dims, err);
    uint32_t C = request->chunks ? request->chunks : TN_THEMIS_DEFAULT_CHUNKS;
    uint32_t A = request->themis.active_chunks_per_dim ? request->themis.active_chunks_per_dim : 1;
    /* at most C chunk-phases are ever active in a dim: more slots only cost memory
     * (--active 4294967295 asked for 64 GB of idle slots) */
    A = A < C ? A : C;
    uint32_t K = coll == TN_COLL_ALL_REDUCE ? 2 * D : D;
    tn_themis_plan* p = NULL;
    themis_sim sim;
    memset(&sim, 0, sizeof(sim));
    sim.A = A;
    if (rc == TN_OK)
    {
        themis_plan_alloc(C, D, K, &p, &sim);
    }
    if (rc == TN_OK && (!p || !p->order || !p->base || !p->loads || !p->start || !p->end ||
                        !p->slot || !p->prev || !p->seq || !sim.queue || !sim.qlen ||
                        !sim.arrival || !sim.xbytes || !sim.slot_free || !sim.slot_last))
    {
        rc = tn_error_set(err, TN_ENOMEM, "themis: out of memory (%u chunks)", C);
    }
    if (rc == TN_OK)
    {
        uint64_t npus = 1; /* the balancer's: the product of the dims' sizes */
        for (uint32_t d = 0; d < D; d++)
        {
            npus *= dims[d].size;
        }
        themis_orders(p, b, request);
        if (themis_simulate(p, dims, request, (double)npus, &sim) < (size_t)C * K)
        {
            rc = tn_error_set(err, TN_EINVAL, "themis: internal error: simulation stalled");
        }
    }
    free(sim.queue);
    free(sim.qlen);
    free(sim.arrival);
    free(sim.xbytes);
    free(sim.slot_free);
    free(sim.slot_last);
    free(dims);
    tn_themis_balancer_destroy(b);
    if (rc)
    {
        tn_themis_plan_destroy(p);
        return rc;
    }
    *out = p;
    return TN_OK;
}

/* ---- schedule ----------------------------------------------------------------- */

typedef struct themis_build
{
    tn_schedule* s;
    const tn_topology* topo;
    uint32_t n;
    uint32_t maxp; /* largest dim size - 1 (exit set capacity) */
    uint64_t* off; /* per rank: current range of the chunk being built */
    uint64_t* len;
    uint32_t* exit_ids; /* chunks x n x maxp: last receives of a member in the chunk's last phase */
    uint32_t* exit_cnt; /* chunks x n */
    uint32_t* slot_ids; /* phases x n x maxp: exit sets per phase (only kept for slot deps) */
    uint32_t* slot_cnt;
    uint32_t* members; /* maxp: the dim group being built */
    tn_slice* parts;   /* maxp */
    tn_front in;       /* per rank: entry deps of the phase being built */
    tn_front out;      /* per rank: exit set of the phase being built */
    uint32_t step;
} themis_build;

/* The builder's arrays for plan p over dims (tb->n ranks set); *A is the most slots a dim
 * used. */
static tn_status
themis_build_alloc(themis_build* tb,
                   const tn_themis_plan* p,
                   const themis_dim* dims,
                   uint32_t* A,
                   tn_error* err)
{
    const uint32_t C = p->chunks;
    const uint32_t n = tb->n;
    tb->maxp = 1;
    for (uint32_t d = 0; d < p->dims; d++)
    {
        tb->maxp = dims[d].size - 1 > tb->maxp ? dims[d].size - 1 : tb->maxp;
    }
    tb->maxp++; /* receives + the last send */
    size_t nk = (size_t)C * p->phases;
    tb->off = calloc((size_t)C * n, sizeof(*tb->off));
    tb->len = calloc((size_t)C * n, sizeof(*tb->len));
    tb->exit_ids = calloc((size_t)C * n * tb->maxp, sizeof(*tb->exit_ids));
    tb->exit_cnt = calloc((size_t)C * n, sizeof(*tb->exit_cnt));
    /* slot exit sets: one per (dim, slot); indexed by phase id through p->slot */
    *A = 1;
    for (size_t i = 0; i < nk; i++)
    {
        *A = p->slot[i] + 1 > *A ? p->slot[i] + 1 : *A;
    }
    tb->slot_ids = calloc((size_t)p->dims * *A * n * tb->maxp, sizeof(*tb->slot_ids));
    tb->slot_cnt = calloc((size_t)p->dims * *A * n, sizeof(*tb->slot_cnt));
    tb->members = calloc(tb->maxp, sizeof(*tb->members));
    tb->parts = calloc(tb->maxp, sizeof(*tb->parts));
    if (!tb->off || !tb->len || !tb->exit_ids || !tb->exit_cnt || !tb->slot_ids || !tb->slot_cnt ||
        !tb->members || !tb->parts)
    {
        return tn_error_set(err, TN_ENOMEM, "themis: out of memory for the schedule");
    }
    return TN_OK;
}

/* Entry deps of a member (into tb->in): its exit set in the chunk's previous phase (ex_ids,
 * ex_cnt) and, when the phase has one (has_prev_slot), the exit set of the phase that held the
 * dim slot before (at slot_base); either may be empty. The shared phases in chain mode depend
 * on them for a member's first send and chain its later sends. */
static tn_status
themis_phase_entry(themis_build* tb,
                   const uint32_t* ex_ids,
                   const uint32_t* ex_cnt,
                   size_t slot_base,
                   bool has_prev_slot,
                   tn_error* err)
{
    tn_status rc = TN_OK;
    tn_front_clear(&tb->in);
    tn_front_clear(&tb->out);
    for (uint32_t r = 0; r < tb->n && rc == TN_OK; r++)
    {
        for (uint32_t i = 0; i < ex_cnt[r] && rc == TN_OK; i++)
        {
            rc = tn_front_push(&tb->in, r, ex_ids[(size_t)r * tb->maxp + i], err);
        }
        for (uint32_t i = 0; has_prev_slot && i < tb->slot_cnt[slot_base + r] && rc == TN_OK; i++)
        {
            rc = tn_front_push(&tb->in, r, tb->slot_ids[(slot_base + r) * tb->maxp + i], err);
        }
    }
    return rc;
}

/* Phase k (rs: a reduce-scatter phase) of chunk c in dim d, built group by group (group =
 * ranks with coordinate 0 in dim d) from step on; off and len (per rank) are the chunk's
 * ranges, updated to what each member holds after the phase. */
static tn_status
themis_phase_groups(themis_build* tb,
                    const themis_dim* dm,
                    uint32_t d,
                    uint32_t c,
                    bool rs,
                    uint64_t* off,
                    uint64_t* len,
                    uint32_t step,
                    tn_error* err)
{
    const uint32_t P = dm->size;
    tn_phase_fn fn = dm->kind == 0 ? (rs ? tn_phase_ring_rs : tn_phase_ring_ag)
                                   : (rs ? tn_phase_direct_rs : tn_phase_direct_ag);
    tn_status rc = TN_OK;
    for (uint32_t r0 = 0; r0 < tb->n && rc == TN_OK; r0++)
    {
        if ((r0 / dm->stride) % P != 0)
        {
            continue;
        }
        /* X: in RS all members hold the same range; in AG member j holds part j of X,
         * and X is stored in the extra fields below (xoff of member 0 before RS). */
        uint64_t Xo;
        uint64_t Xl;
        if (rs)
        {
            Xo = off[r0];
            Xl = len[r0];
        }
        else
        {
            /* parts are consecutive: X starts at member 0's part and ends at the end
             * of member P-1's part */
            uint32_t rl = r0 + (uint32_t)((P - 1) * dm->stride);
            Xo = off[r0];
            Xl = off[rl] + len[rl] - Xo;
        }
        for (uint32_t j = 0; j < P; j++)
        {
            tn_slice sl = tn_slice_of(Xl, P, j);
            tb->members[j] = r0 + (uint32_t)(j * dm->stride);
            tb->parts[j].offset = Xo + sl.offset;
            tb->parts[j].length = sl.length;
        }
        tn_phase ph = {tb->topo,
                       tb->s,
                       &tb->in,
                       &tb->out,
                       tb->members,
                       P,
                       tb->parts,
                       step,
                       c,
                       (int32_t)d,
                       true};
        rc = fn(&ph, NULL, err);
        /* new ranges */
        for (uint32_t j = 0; j < P; j++)
        {
            uint32_t r = r0 + (uint32_t)(j * dm->stride);
            if (rs)
            {
                off[r] = tb->parts[j].offset;
                len[r] = tb->parts[j].length;
            }
            else
            {
                off[r] = Xo;
                len[r] = Xl;
            }
        }
    }
    return rc;
}

/* The chunk-phases in the plan's start order (p->seq), each after its chunk's previous phase
 * and its dim slot's previous holder; tb->step ends as the steps used. */
static tn_status
themis_build_phases(themis_build* tb,
                    const tn_themis_plan* p,
                    const themis_dim* dims,
                    uint32_t A,
                    tn_error* err)
{
    const uint32_t D = p->dims;
    const uint32_t C = p->chunks;
    const uint32_t K = p->phases;
    const uint32_t n = tb->n;
    const size_t nk = (size_t)C * K;
    tn_status rc = TN_OK;
    for (uint32_t c = 0; c < C; c++)
    {
        tn_slice reg = tn_chunk_region(tn_schedule_bytes(tb->s), C, c);
        for (uint32_t r = 0; r < n; r++)
        {
            tb->off[(size_t)c * n + r] = reg.offset;
            tb->len[(size_t)c * n + r] = reg.length;
        }
    }
    uint32_t step = 0;
    for (size_t si = 0; si < nk && rc == TN_OK; si++)
    {
        uint32_t ph = p->seq[si];
        uint32_t c = ph / K;
        uint32_t k = ph % K;
        uint32_t d = themis_phase_dim(p, c, k, TN_COLL_ALL_REDUCE);
        const themis_dim* dm = &dims[d];
        uint32_t P = dm->size;
        size_t slot_base = ((size_t)d * A + p->slot[ph]) * n;
        uint32_t* ex_ids = tb->exit_ids + (size_t)c * n * tb->maxp;
        uint32_t* ex_cnt = tb->exit_cnt + (size_t)c * n;
        uint32_t steps_here = P <= 1 ? 0 : (dm->kind == 0 ? P - 1 : 1);
        if (P <= 1)
        {
            continue;
        }
        rc =
            themis_phase_entry(tb, ex_ids, ex_cnt, slot_base, p->prev[ph] != TN_TRANSFER_NONE, err);
        if (rc == TN_OK)
        {
            rc = themis_phase_groups(tb,
                                     dm,
                                     d,
                                     c,
                                     k < D,
                                     tb->off + (size_t)c * n,
                                     tb->len + (size_t)c * n,
                                     step,
                                     err);
        }
        if (rc)
        {
            break;
        }
        /* exit sets: a ring member's last receive, a direct member's receives,
         * plus the member's last send (whose ancestors hold the member's own
         * earlier chain) */
        for (uint32_t r = 0; r < n; r++)
        {
            uint32_t cnt = tb->out.count[r];
            memcpy(ex_ids + (size_t)r * tb->maxp, tb->out.ids[r], cnt * sizeof(uint32_t));
            ex_cnt[r] = cnt;
            memcpy(tb->slot_ids + (slot_base + r) * tb->maxp,
                   tb->out.ids[r],
                   cnt * sizeof(uint32_t));
            tb->slot_cnt[slot_base + r] = cnt;
        }
        step += steps_here;
    }
    tb->step = step;
    return rc;
}

tn_status
tn_themis_schedule(const tn_topology* topo,
                   const tn_plan_request* request,
                   tn_schedule* s,
                   tn_themis_plan** plan_out,
                   tn_error* err)
{
    if (plan_out)
    {
        *plan_out = NULL;
    }
    if (tn_schedule_collective(s) != TN_COLL_ALL_REDUCE)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "themis: schedule for '%s' not supported (all-reduce only; orders via "
                            "tn_themis_plan_create)",
                            tn_collective_name(tn_schedule_collective(s)));
    }
    tn_plan_request req = *request;
    req.collective = TN_COLL_ALL_REDUCE;
    req.bytes = tn_schedule_bytes(s);
    req.chunks = tn_schedule_chunks(s);
    tn_themis_plan* p = NULL;
    tn_status rc = tn_themis_plan_create(topo, &req, &p, err);
    if (rc)
    {
        return rc;
    }
    uint32_t n = tn_schedule_ranks(s);
    themis_dim* dims = calloc(p->dims, sizeof(*dims));
    themis_build tb;
    memset(&tb, 0, sizeof(tb));
    bool in_ok = false;
    bool out_ok = false;
    tb.s = s;
    tb.topo = topo;
    tb.n = n;
    uint32_t A = 1;
    if (dims == NULL)
    {
        rc = tn_error_set(err, TN_ENOMEM, "themis: out of memory");
    }
    if (rc == TN_OK)
    {
        rc = themis_dims(topo, dims, err);
    }
    if (rc == TN_OK)
    {
        rc = themis_build_alloc(&tb, p, dims, &A, err);
    }
    if (rc == TN_OK)
    {
        rc = tn_front_init(&tb.in, n, err);
        in_ok = rc == TN_OK;
    }
    if (rc == TN_OK)
    {
        rc = tn_front_init(&tb.out, n, err);
        out_ok = rc == TN_OK;
    }
    if (rc == TN_OK)
    {
        rc = themis_build_phases(&tb, p, dims, A, err);
    }
    free(dims);
    free(tb.off);
    free(tb.len);
    free(tb.exit_ids);
    free(tb.exit_cnt);
    free(tb.slot_ids);
    free(tb.slot_cnt);
    free(tb.members);
    free(tb.parts);
    if (in_ok)
    {
        tn_front_free(&tb.in);
    }
    if (out_ok)
    {
        tn_front_free(&tb.out);
    }
    if (rc == TN_OK && plan_out)
    {
        *plan_out = p;
    }
    else
    {
        tn_themis_plan_destroy(p);
    }
    return rc;
}

/* ---- registry entry points ------------------------------------------------------- */

tn_status
tn_algo_themis_check(const tn_topology* topo,
                     const tn_plan_request* request,
                     uint32_t ranks,
                     tn_error* err)
{
    if (topo == NULL)
    {
        return tn_error_set(err, TN_EINVAL, "themis: needs a multi-dimensional topology");
    }
    if (request->collective != TN_COLL_ALL_REDUCE)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "themis: collective '%s' not supported (all-reduce)",
                            tn_collective_name(request->collective));
    }
    if (ranks != tn_topology_npu_count(topo))
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "themis: ranks %u must equal the NPU count %u",
                            ranks,
                            tn_topology_npu_count(topo));
    }
    uint32_t nd = tn_topology_dim_count(topo);
    if (nd == 0)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "themis: topology '%s' has no dimensions",
                            tn_topology_name(topo));
    }
    for (uint32_t d = 0; d < nd; d++)
    {
        tn_dim_kind k = tn_topology_dim(topo, d)->kind;
        if (k != TN_DIM_RING && k != TN_DIM_TORUS && k != TN_DIM_FC && k != TN_DIM_SWITCH)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "themis: dim %u of topology '%s' is a %s dim (needs ring, torus, "
                                "fc or switch dims)",
                                d,
                                tn_topology_name(topo),
                                tn_dim_kind_name(k));
        }
    }
    return TN_OK;
}

tn_status
tn_algo_themis_plan(const tn_topology* topo,
                    const tn_plan_request* request,
                    tn_schedule* s,
                    tn_error* err)
{
    return tn_themis_schedule(topo, request, s, NULL, err);
}
