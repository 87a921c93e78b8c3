/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Rank-local programs (contract in tn-program.h): the program object, the rank program
 * builder and the rank-local versions of the ring and direct phases. The generators of
 * the algorithms are in tn-program-gen.c; each follows its materialised twin in
 * tn-algo-*.c step by step, restricted to one rank: the same loops over chunks, phases and
 * steps, the same slices, and a dependency frontier that holds only the rank's own ops.
 */
#include "tn-array.h"
#include "tn-cost.h"
#include "tn-memory.h"
#include "tn-program-impl.h"
#include "tn-rank-order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- program object ---------------------------------------------------------------- */

bool
tn_program_supports(const char* algorithm)
{
    const tn_algorithm* a = tn_algorithm_find(algorithm);
    return a && a->generator != TN_GENERATOR_NONE;
}

uint64_t
tn_program_memory_estimate(uint32_t ranks, uint64_t ops_per_rank, uint32_t samples, uint32_t nodes)
{
    /* ring order and its inverse, per-rank scratch of the widest group (slices) */
    uint64_t shared = tn_sat_mul(ranks, 2 * sizeof(uint32_t) + 2 * sizeof(tn_slice));
    /* one rank program: the op, about 3 deps, the match counters */
    uint64_t program = tn_sat_mul(ops_per_rank, sizeof(tn_program_op) + 4 * sizeof(uint32_t) + 16);
    /* the estimate: routes to the sampled ranks, per-step link loads */
    uint64_t routes = tn_sat_mul(tn_sat_mul(samples, nodes), nodes < 65535 ? 2 : 4);
    return tn_sat_add(tn_sat_add(shared, program), tn_sat_add(routes, UINT64_C(8) << 20));
}

uint32_t
tn_program_cost_ranks(const tn_program* p)
{
    if (p->N <= TN_PROGRAM_COST_SAMPLES)
        return p->N;
    if (p->N <= TN_PROGRAM_COST_EXACT_RANKS &&
        tn_sat_mul(p->N, tn_program_max_ops(p)) <= TN_PROGRAM_COST_EXACT_OPS)
        return p->N;
    return TN_PROGRAM_COST_SAMPLES;
}

tn_status
tn_program_create(const tn_topology* topo,
                  const tn_plan_request* req,
                  tn_program** out,
                  tn_error* err)
{
    if (!out)
        return tn_error_set(err, TN_EINVAL, "program: out is NULL");
    *out = NULL;
    const tn_algorithm* a = NULL;
    uint32_t ranks = 0;
    tn_status st = tn_plan_resolve(topo, req, &a, &ranks, err);
    if (st)
        return st;
    if (a->generator == TN_GENERATOR_NONE)
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: has no rank-local generator (ring, ring-bidir, direct, rhd, dbt, "
                            "ring2d and hierarchical have one); plan it with tn_plan",
                            a->name);
    if (ranks > INT32_MAX)
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: %u ranks; rank programs take at most 2^31-1",
                            a->name,
                            ranks);
    tn_program* p = calloc(1, sizeof(*p));
    if (!p)
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", a->name);
    p->topo = topo;
    p->algo = a;
    p->req = *req;
    p->req.rank_order = NULL;
    p->req.rank_order_count = 0;
    p->coll = req->collective;
    p->N = ranks;
    p->S = req->bytes;
    p->C = tn_algorithm_chunks(a, req->chunks);
    p->root = (p->coll == TN_COLL_BROADCAST || p->coll == TN_COLL_REDUCE) ? req->root : 0;
    p->kind = a->generator;
    st = tn_program_gen_init(p, req, err);
    if (!st)
    {
        uint64_t limit = req->memory_limit;
        if (limit == 0)
            st = tn_memory_default_limit(&limit, err);
        uint32_t nodes = topo ? tn_topology_node_count(topo) : 0;
        uint32_t evaluated = tn_program_cost_ranks(p);
        uint64_t need = tn_program_memory_estimate(p->N, tn_program_max_ops(p), evaluated, nodes);
        /* every rank evaluated: the per-step link loads too */
        if (evaluated > TN_PROGRAM_COST_SAMPLES)
            need = tn_sat_add(need, TN_COST_EXACT_LOADS * sizeof(double));
        if (!st && limit != UINT64_MAX)
        {
            char what[160];
            snprintf(what,
                     sizeof(what),
                     "generated plan: %s %s on %u ranks with %u chunk(s)",
                     a->name,
                     tn_collective_name(p->coll),
                     p->N,
                     p->C);
            st = tn_memory_check(need,
                                 limit,
                                 what,
                                 "plan fewer ranks or chunks, or raise the limit",
                                 err);
        }
    }
    if (st)
    {
        tn_program_destroy(p);
        return st;
    }
    *out = p;
    return TN_OK;
}

void
tn_program_destroy(tn_program* p)
{
    if (!p)
        return;
    tn_program_gen_free(p);
    free(p);
}

const char*
tn_program_algorithm(const tn_program* p)
{
    return p->algo->name;
}

tn_collective
tn_program_collective(const tn_program* p)
{
    return p->coll;
}

uint32_t
tn_program_ranks(const tn_program* p)
{
    return p->N;
}

uint64_t
tn_program_bytes(const tn_program* p)
{
    return p->S;
}

uint32_t
tn_program_chunks(const tn_program* p)
{
    return p->C;
}

uint32_t
tn_program_root(const tn_program* p)
{
    return p->root;
}

const tn_topology*
tn_program_topology(const tn_program* p)
{
    return p->topo;
}

/* ---- rank program builder ---------------------------------------------------------- */

void
tn_rank_program_free(tn_rank_program* rp)
{
    if (!rp)
        return;
    free(rp->ops);
    free(rp->deps);
    free(rp->match_keys);
    free(rp->match_next);
    free(rp->cur_front);
    free(rp->cur_keys);
    free(rp->cur_next);
    memset(rp, 0, sizeof(*rp));
}

void
tn_rank_program_compact(tn_rank_program* rp)
{
    if (!rp)
        return;
    /* a failed shrink keeps the larger block, which is still valid */
    if (rp->count < rp->op_cap)
    {
        tn_program_op* ops = rp->count ? realloc(rp->ops, rp->count * sizeof(*ops)) : NULL;
        if (ops || rp->count == 0)
        {
            free(rp->count ? NULL : rp->ops);
            rp->ops = ops;
            rp->op_cap = rp->count;
        }
    }
    if (rp->dep_total < rp->dep_cap)
    {
        uint32_t* deps = rp->dep_total ? realloc(rp->deps, rp->dep_total * sizeof(*deps)) : NULL;
        if (deps || rp->dep_total == 0)
        {
            free(rp->dep_total ? NULL : rp->deps);
            rp->deps = deps;
            rp->dep_cap = rp->dep_total;
        }
    }
    free(rp->match_keys);
    free(rp->match_next);
    rp->match_keys = NULL;
    rp->match_next = NULL;
    rp->match_cap = 0;
    rp->match_used = 0;
    free(rp->cur_front);
    free(rp->cur_keys);
    free(rp->cur_next);
    rp->cur_front = NULL;
    rp->cur_keys = NULL;
    rp->cur_next = NULL;
    rp->cur_front_n = rp->cur_front_cap = rp->cur_keys_cap = rp->cur_next_cap = 0;
    rp->cur_valid = false;
}

const uint32_t*
tn_rank_program_deps(const tn_rank_program* rp, uint32_t i, uint32_t* count)
{
    *count = rp->ops[i].dep_count;
    return rp->deps + rp->ops[i].dep_start;
}

static int
cmp_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* The match counter of (direction, peer): open addressing over the rank's peers, at most
 * half full, grown by doubling. NULL when out of memory (err set). */
static uint32_t*
match_counter(tn_rank_program* rp, bool send, uint32_t peer, tn_error* err)
{
    if (2 * (rp->match_used + 1) > rp->match_cap)
    {
        size_t cap = rp->match_cap ? 2 * rp->match_cap : 16;
        uint64_t* keys = malloc(cap * sizeof(*keys));
        uint32_t* next = malloc(cap * sizeof(*next));
        if (!keys || !next)
        {
            free(keys);
            free(next);
            tn_error_set(err, TN_ENOMEM, "program: out of memory");
            return NULL;
        }
        for (size_t i = 0; i < cap; i++)
            keys[i] = UINT64_MAX;
        for (size_t i = 0; i < rp->match_cap; i++)
        {
            if (rp->match_keys[i] == UINT64_MAX)
                continue;
            size_t h =
                (size_t)((rp->match_keys[i] * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (cap - 1);
            while (keys[h] != UINT64_MAX)
                h = (h + 1) & (cap - 1);
            keys[h] = rp->match_keys[i];
            next[h] = rp->match_next[i];
        }
        free(rp->match_keys);
        free(rp->match_next);
        rp->match_keys = keys;
        rp->match_next = next;
        rp->match_cap = cap;
    }
    uint64_t k = ((uint64_t)send << 32) | peer;
    size_t h = (size_t)((k * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (rp->match_cap - 1);
    while (rp->match_keys[h] != UINT64_MAX && rp->match_keys[h] != k)
        h = (h + 1) & (rp->match_cap - 1);
    if (rp->match_keys[h] == UINT64_MAX)
    {
        rp->match_keys[h] = k;
        rp->match_next[h] = 0;
        rp->match_used++;
    }
    return &rp->match_next[h];
}

/* Store op number rp->count (its array has room) with its deps at deps[dep_start ...]. */
static tn_status
emit_op(tn_rank_program* rp,
        const tn_rp_spec* o,
        uint32_t* match,
        size_t dep_start,
        uint32_t dep_count)
{
    tn_program_op* op = &rp->ops[rp->count];
    op->send = o->send ? 1 : 0;
    op->op = o->op;
    op->peer = o->peer;
    op->match = (*match)++;
    op->src_offset = o->src_offset;
    op->dst_offset = o->dst_offset;
    op->length = o->length;
    op->step = o->step;
    op->dim = o->dim;
    op->chunk = o->chunk;
    op->dep_start = (uint32_t)dep_start;
    op->dep_count = dep_count;
    rp->sends += op->send;
    rp->count++;
    return TN_OK;
}

tn_status
tn_rp_emit(tn_rank_program* rp,
           const tn_rp_spec* o,
           const tn_ids* deps_a,
           const tn_ids* deps_b,
           uint32_t* index,
           tn_error* err)
{
    if (rp->next_index == UINT32_MAX - 1)
        return tn_error_set(err, TN_EUNSUPPORTED, "program: more than 2^32-2 ops for one rank");
    if (rp->next_index >= rp->window_end)
        return TN_PROGRAM_WINDOW_FULL;
    uint32_t* match = match_counter(rp, o->send, o->peer, err);
    if (!match)
        return TN_ENOMEM;
    if (index)
        *index = rp->next_index;
    if (rp->next_index++ < rp->first)
    {
        /* before the window: only its index and match count */
        ++*match;
        return TN_OK;
    }
    tn_program_op* ops =
        tn_array_grow(rp->ops, &rp->op_cap, (size_t)rp->count + 1, sizeof(*ops), 64);
    if (!ops)
        return tn_error_set(err, TN_ENOMEM, "program: out of memory");
    rp->ops = ops;
    /* a phase's sends mostly pass the same frontier again: one memcmp against the list
     * stored last (it is sorted and unique, so an equal input is too) instead of a copy, a
     * sort check and the memcmp below, per op */
    if (rp->shared_count > 0 && deps_a && (!deps_b || deps_b->n == 0) &&
        deps_a->n == rp->shared_count &&
        memcmp(rp->deps + rp->shared_start, deps_a->ids, deps_a->n * sizeof(uint32_t)) == 0)
        return emit_op(rp, o, match, rp->shared_start, rp->shared_count);
    size_t nd = (deps_a ? deps_a->n : 0) + (deps_b ? deps_b->n : 0);
    uint32_t* deps =
        tn_array_grow(rp->deps, &rp->dep_cap, rp->dep_total + nd + 1, sizeof(*deps), 64);
    if (!deps)
        return tn_error_set(err, TN_ENOMEM, "program: out of memory");
    rp->deps = deps;
    uint32_t* d = deps + rp->dep_total;
    size_t k = 0;
    for (uint32_t i = 0; deps_a && i < deps_a->n; i++)
        d[k++] = deps_a->ids[i];
    for (uint32_t i = 0; deps_b && i < deps_b->n; i++)
        d[k++] = deps_b->ids[i];
    /* frontiers are mostly ascending already (they append newer ops): sort only when not */
    bool ascending = true;
    for (size_t i = 1; i < k && ascending; i++)
        ascending = d[i - 1] < d[i];
    size_t u = k;
    if (!ascending)
    {
        qsort(d, k, sizeof(*d), cmp_u32);
        u = 0;
        for (size_t i = 0; i < k; i++)
            if (u == 0 || d[u - 1] != d[i])
                d[u++] = d[i];
    }
    /* share the list of the last op that had one when equal: a phase whose sends all wait
     * for the same frontier (a direct reduce-scatter's gather, a hierarchical phase change)
     * would otherwise store that frontier once per send, O(peers^2) per rank */
    size_t start = rp->dep_total;
    if (u > 0 && u == rp->shared_count && memcmp(deps + rp->shared_start, d, u * sizeof(*d)) == 0)
        start = rp->shared_start;
    else if (u > 0)
    {
        rp->shared_start = rp->dep_total;
        rp->shared_count = (uint32_t)u;
        rp->dep_total += u;
    }
    return emit_op(rp, o, match, start, (uint32_t)u);
}

/* Copy n entries of size `size` into *dst (capacity *cap, grown as needed). */
static bool
copy_grow(void** dst, size_t* cap, const void* src, size_t n, size_t size)
{
    if (n > *cap)
    {
        void* d = realloc(*dst, n * size);
        if (!d)
            return false;
        *dst = d;
        *cap = n;
    }
    if (n > 0)
        memcpy(*dst, src, n * size);
    return true;
}

tn_status
tn_rp_cursor_save(tn_rank_program* rp, uint32_t phase, const tn_ids* front, tn_error* err)
{
    void* fr = rp->cur_front;
    void* keys = rp->cur_keys;
    void* next = rp->cur_next;
    bool ok = copy_grow(&fr, &rp->cur_front_cap, front->ids, front->n, sizeof(uint32_t));
    rp->cur_front = fr;
    ok = ok && copy_grow(&keys, &rp->cur_keys_cap, rp->match_keys, rp->match_cap, sizeof(uint64_t));
    rp->cur_keys = keys;
    ok = ok && copy_grow(&next, &rp->cur_next_cap, rp->match_next, rp->match_cap, sizeof(uint32_t));
    rp->cur_next = next;
    if (!ok)
    {
        rp->cur_valid = false;
        return tn_error_set(err, TN_ENOMEM, "program: out of memory");
    }
    rp->cur_front_n = front->n;
    rp->cur_match_cap = rp->match_cap;
    rp->cur_match_used = rp->match_used;
    rp->cur_phase = phase;
    rp->cur_index = rp->next_index;
    rp->cur_valid = true;
    return TN_OK;
}

tn_status
tn_rp_cursor_restore(tn_rank_program* rp, tn_ids* front, tn_error* err)
{
    /* the match table exactly as saved, its size too: the probe order depends on it */
    size_t kc = rp->match_cap, nc = rp->match_cap;
    void* keys = rp->match_keys;
    void* next = rp->match_next;
    bool ok = copy_grow(&keys, &kc, rp->cur_keys, rp->cur_match_cap, sizeof(uint64_t));
    rp->match_keys = keys;
    ok = ok && copy_grow(&next, &nc, rp->cur_next, rp->cur_match_cap, sizeof(uint32_t));
    rp->match_next = next;
    if (!ok)
        return tn_error_set(err, TN_ENOMEM, "program: out of memory");
    rp->match_cap = rp->cur_match_cap;
    rp->match_used = rp->cur_match_used;
    rp->next_index = rp->cur_index;
    front->n = 0;
    for (size_t i = 0; i < rp->cur_front_n; i++)
    {
        tn_status st = tn_ids_push(front, rp->cur_front[i], err);
        if (st)
            return st;
    }
    return TN_OK;
}

tn_status
tn_rp_skip(tn_rank_program* rp, bool send, uint32_t peer, uint32_t count, tn_error* err)
{
    uint32_t* match = match_counter(rp, send, peer, err);
    if (!match)
        return TN_ENOMEM;
    *match += count;
    return TN_OK;
}

int
tn_cmp_u64(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

/* The arguments a window of rank's ops needs. */
static tn_status
check_window_args(const tn_program* p,
                  uint32_t rank,
                  uint32_t max_ops,
                  const tn_rank_program* rp,
                  tn_error* err)
{
    if (!p || !rp)
        return tn_error_set(err, TN_EINVAL, "program: NULL argument");
    if (rank >= p->N)
        return tn_error_set(err, TN_EINVAL, "%s: rank %u >= ranks %u", p->algo->name, rank, p->N);
    if (max_ops == 0)
        return tn_error_set(err, TN_EINVAL, "%s: a window of 0 ops", p->algo->name);
    return TN_OK;
}

tn_status
tn_program_rank_window(const tn_program* p,
                       uint32_t rank,
                       uint32_t first,
                       uint32_t max_ops,
                       tn_rank_program* rp,
                       tn_error* err)
{
    tn_status checked = check_window_args(p, rank, max_ops, rp, err);
    if (checked)
        return checked;
    rp->rank = rank;
    rp->count = 0;
    rp->sends = 0;
    rp->first = first;
    rp->complete = false;
    rp->dep_total = 0;
    rp->shared_start = 0;
    rp->shared_count = 0;
    rp->next_index = 0;
    rp->window_end = max_ops > UINT32_MAX - first ? UINT32_MAX : first + max_ops;
    rp->match_used = 0;
    for (size_t i = 0; i < rp->match_cap; i++)
        rp->match_keys[i] = UINT64_MAX;
    rp->cur_valid = false; /* the run saves it again */
    rp->resumed = false;
    tn_status st = tn_program_gen_rank(p, rank, rp, err);
    if (st == TN_PROGRAM_WINDOW_FULL)
        return TN_OK;
    rp->complete = st == TN_OK;
    return st;
}

/* Drop the first k ops of a window: the deps of the others move down (lists are stored in op
 * order, and an op shares only the list stored just before its own, so one pass keeps each
 * list once), and the list a new op may share is the last kept op's, as in a window that
 * had started at the first kept op. */
static void
drop_front(tn_rank_program* rp, uint32_t k)
{
    size_t nd = 0;
    uint32_t last_old = UINT32_MAX, last_new = 0;
    rp->sends = 0;
    rp->shared_start = 0;
    rp->shared_count = 0;
    for (uint32_t i = k; i < rp->count; i++)
    {
        tn_program_op op = rp->ops[i];
        if (op.dep_count > 0)
        {
            if (op.dep_start != last_old)
            {
                memmove(rp->deps + nd, rp->deps + op.dep_start, op.dep_count * sizeof(uint32_t));
                last_old = op.dep_start;
                last_new = (uint32_t)nd;
                nd += op.dep_count;
            }
            op.dep_start = last_new;
            rp->shared_start = last_new;
            rp->shared_count = op.dep_count;
        }
        else
            op.dep_start = (uint32_t)nd;
        rp->sends += op.send;
        rp->ops[i - k] = op;
    }
    rp->count -= k;
    rp->dep_total = nd;
}

tn_status
tn_program_rank_advance(const tn_program* p,
                        uint32_t rank,
                        uint32_t first,
                        uint32_t max_ops,
                        tn_rank_program* rp,
                        tn_error* err)
{
    tn_status checked = check_window_args(p, rank, max_ops, rp, err);
    if (checked)
        return checked;
    const uint64_t end = (uint64_t)rp->first + rp->count;
    const uint32_t new_end = max_ops > UINT32_MAX - first ? UINT32_MAX : first + max_ops;
    /* another rank's window, a step back, or a narrower window: generate it afresh */
    if ((rp->rank != rank && (rp->count > 0 || rp->cur_valid)) || first < rp->first ||
        new_end < end)
        return tn_program_rank_window(p, rank, first, max_ops, rp, err);
    rp->rank = rank;
    drop_front(rp, (uint32_t)((first < end ? first : end) - rp->first));
    const uint32_t emit_from = first > end ? first : (uint32_t)end;
    rp->first = first;
    rp->resumed = false;
    if (rp->complete || emit_from >= new_end)
        return TN_OK;
    /* the generator counts the ops before emit_from and appends the next ones (its window
     * is [emit_from, new_end) while it runs), from its cursor when it has one before them */
    const bool resume = rp->cur_valid && rp->cur_index <= emit_from;
    rp->first = emit_from;
    rp->window_end = new_end;
    rp->next_index = 0;
    if (!resume)
    {
        rp->match_used = 0;
        for (size_t i = 0; i < rp->match_cap; i++)
            rp->match_keys[i] = UINT64_MAX;
        rp->cur_valid = false;
    }
    rp->resumed = resume;
    tn_status st = tn_program_gen_rank(p, rank, rp, err);
    rp->first = first;
    if (st == TN_PROGRAM_WINDOW_FULL)
        return TN_OK;
    rp->complete = st == TN_OK;
    return st;
}

tn_status
tn_rank_program_copy_cursor(tn_rank_program* dst, const tn_rank_program* src, tn_error* err)
{
    if (!dst || !src || dst == src)
        return tn_error_set(err, TN_EINVAL, "program: bad cursor copy");
    dst->rank = src->rank;
    dst->count = 0;
    dst->sends = 0;
    dst->dep_total = 0;
    dst->shared_start = 0;
    dst->shared_count = 0;
    dst->complete = false;
    dst->resumed = false;
    dst->cur_valid = false;
    dst->first = src->cur_valid ? src->cur_index : 0;
    if (!src->cur_valid)
        return TN_OK;
    void* fr = dst->cur_front;
    void* keys = dst->cur_keys;
    void* next = dst->cur_next;
    bool ok =
        copy_grow(&fr, &dst->cur_front_cap, src->cur_front, src->cur_front_n, sizeof(uint32_t));
    dst->cur_front = fr;
    ok = ok &&
         copy_grow(&keys, &dst->cur_keys_cap, src->cur_keys, src->cur_match_cap, sizeof(uint64_t));
    dst->cur_keys = keys;
    ok = ok &&
         copy_grow(&next, &dst->cur_next_cap, src->cur_next, src->cur_match_cap, sizeof(uint32_t));
    dst->cur_next = next;
    if (!ok)
        return tn_error_set(err, TN_ENOMEM, "program: out of memory");
    dst->cur_front_n = src->cur_front_n;
    dst->cur_match_cap = src->cur_match_cap;
    dst->cur_match_used = src->cur_match_used;
    dst->cur_phase = src->cur_phase;
    dst->cur_index = src->cur_index;
    dst->cur_valid = true;
    return TN_OK;
}

tn_status
tn_program_rank(const tn_program* p, uint32_t rank, tn_rank_program* rp, tn_error* err)
{
    return tn_program_rank_window(p, rank, 0, UINT32_MAX, rp, err);
}

/* ---- rank-local phases ----------------------------------------------------------------- */

int32_t
tn_rphase_dim(const tn_rphase* ph, uint32_t a, uint32_t b)
{
    return ph->dim == TN_DIM_AUTO ? tn_algo_rank_dim(ph->topo, a, b) : ph->dim;
}

/* Twin of ring_one (tn-algo-ring.c) for the member at position ph->k. */
tn_status
tn_rphase_ring(const tn_rphase* ph, uint32_t nr, bool rs, tn_error* err)
{
    uint32_t P = ph->count, k = ph->k;
    tn_status st = ph->chain ? TN_OK : tn_ids_append(ph->out, ph->in, err);
    if (P < 2 || nr == 0 || st)
        return st;
    uint32_t me = ph->members[k];
    uint32_t kp = (k + P - 1) % P;
    uint32_t next = ph->members[(k + 1) % P], prev = ph->members[kp];
    tn_ids* rb = ph->scratch; /* rb[0]: receives of the last step, rb[1]: sends, rb[2]: deps */
    rb[0].n = rb[1].n = 0;
    /* steps wholly before the window (each is nr sends, then nr receives) are not emitted:
     * their matches, indices and frontiers follow in closed form, so a window costs O(steps
     * before it), not O(ops before it) */
    tn_rank_program* rp = ph->rp;
    const uint64_t per = 2 * (uint64_t)nr;
    uint32_t s0 = 0;
    if (rp->first > rp->next_index)
    {
        uint64_t whole = (rp->first - rp->next_index) / per;
        s0 = whole < P - 1 ? (uint32_t)whole : P - 1;
    }
    if (s0 > 0)
    {
        const uint64_t base = rp->next_index;
        st = tn_rp_skip(rp, true, next, (uint32_t)(s0 * (uint64_t)nr), err);
        if (!st)
            st = tn_rp_skip(rp, false, prev, (uint32_t)(s0 * (uint64_t)nr), err);
        rp->next_index = (uint32_t)(base + s0 * per);
        for (uint32_t j = 0; j < nr && !st; j++)
        {
            st = tn_ids_push(&rb[1], (uint32_t)(base + (s0 - 1) * per + j), err);
            if (!st)
                st = tn_ids_push(&rb[0], (uint32_t)(base + (s0 - 1) * per + nr + j), err);
        }
        /* the frontier out: a reduce-scatter's last step's receives, an all-gather's all */
        for (uint32_t s = rs ? P - 2 : 0; s < s0 && !st && !ph->chain; s++)
            for (uint32_t j = 0; j < nr && !st; j++)
                st = tn_ids_push(ph->out, (uint32_t)(base + s * per + nr + j), err);
    }
    for (uint32_t s = s0; s + 1 < P && !st; s++)
    {
        uint32_t sp = rs ? (uint32_t)(((uint64_t)k + 2 * (uint64_t)P - s - 1) % P)
                         : (uint32_t)(((uint64_t)k + P - s) % P);
        uint32_t rpart = rs ? (uint32_t)(((uint64_t)kp + 2 * (uint64_t)P - s - 1) % P)
                            : (uint32_t)(((uint64_t)kp + P - s) % P);
        for (uint32_t j = 0; j < nr && !st; j++)
        {
            const tn_slice part = tn_rphase_part(ph, (size_t)sp * nr + j);
            const tn_slice* r = &part;
            rb[2].n = 0;
            if (s == 0 || (rs && !ph->chain))
                st = tn_ids_append(&rb[2], ph->in, err);
            if (!st && s > 0)
                st = tn_ids_push(&rb[2], rb[0].ids[j], err);
            if (!st && s > 0 && ph->chain)
                st = tn_ids_push(&rb[2], rb[1].ids[j], err);
            tn_rp_spec o = {true,
                            rs ? TN_OP_REDUCE : TN_OP_COPY,
                            next,
                            r->offset,
                            r->offset,
                            r->length,
                            ph->step + s,
                            tn_rphase_dim(ph, me, next),
                            ph->chunk};
            uint32_t id = 0;
            if (!st)
                st = tn_rp_emit(ph->rp, &o, &rb[2], NULL, &id, err);
            if (!st)
                st = s == 0 ? tn_ids_push(&rb[1], id, err) : TN_OK;
            if (!st && s > 0)
                rb[1].ids[j] = id;
        }
        for (uint32_t j = 0; j < nr && !st; j++)
        {
            const tn_slice part = tn_rphase_part(ph, (size_t)rpart * nr + j);
            const tn_slice* r = &part;
            tn_rp_spec o = {false,
                            rs ? TN_OP_REDUCE : TN_OP_COPY,
                            prev,
                            r->offset,
                            r->offset,
                            r->length,
                            ph->step + s,
                            tn_rphase_dim(ph, prev, me),
                            ph->chunk};
            uint32_t id = 0;
            st = tn_rp_emit(ph->rp, &o, NULL, NULL, &id, err);
            if (!st)
                st = s == 0 ? tn_ids_push(&rb[0], id, err) : TN_OK;
            if (!st && s > 0)
                rb[0].ids[j] = id;
            if (!st && !ph->chain && (!rs || s + 2 == P))
                st = tn_ids_push(ph->out, id, err);
        }
    }
    if (!st && ph->chain)
    {
        st = tn_ids_append(ph->out, &rb[0], err);
        if (!st)
            st = tn_ids_append(ph->out, &rb[1], err);
    }
    return st;
}

/* Twin of direct_phase (tn-algo-direct.c) for the member at position ph->k. */
tn_status
tn_rphase_direct(const tn_rphase* ph, bool rs, tn_error* err)
{
    uint32_t P = ph->count, k = ph->k;
    uint32_t me = ph->members[k];
    tn_status st = ph->chain ? TN_OK : tn_ids_append(ph->out, ph->in, err);
    uint32_t last = 0;
    for (uint32_t o = 0; o + 1 < P && !st; o++)
    {
        uint32_t kd = (k + 1 + o) % P;
        uint32_t ks = (k + P - 1 - o) % P;
        uint32_t dst = ph->members[kd], src = ph->members[ks];
        const tn_slice send_part = tn_rphase_part(ph, rs ? kd : k);
        const tn_slice recv_part = tn_rphase_part(ph, rs ? k : ks);
        const tn_slice* sp = &send_part;
        const tn_slice* rpart = &recv_part;
        tn_rp_spec so = {true,
                         rs ? TN_OP_REDUCE : TN_OP_COPY,
                         dst,
                         sp->offset,
                         sp->offset,
                         sp->length,
                         ph->step,
                         tn_rphase_dim(ph, me, dst),
                         ph->chunk};
        st = tn_rp_emit(ph->rp, &so, ph->in, NULL, &last, err);
        tn_rp_spec ro = {false,
                         rs ? TN_OP_REDUCE : TN_OP_COPY,
                         src,
                         rpart->offset,
                         rpart->offset,
                         rpart->length,
                         ph->step,
                         tn_rphase_dim(ph, src, me),
                         ph->chunk};
        uint32_t id = 0;
        if (!st)
            st = tn_rp_emit(ph->rp, &ro, NULL, NULL, &id, err);
        if (!st)
            st = tn_ids_push(ph->out, id, err);
    }
    if (!st && ph->chain && P > 1)
        st = tn_ids_push(ph->out, last, err);
    return st;
}
