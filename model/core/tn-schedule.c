/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The collective schedule IR (contract in tn-schedule.h).
 */
#include "tn-schedule.h"

#include "tn-array.h"
#include "tn-csr.h"
#include "tn-memory.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tn_edge
{
    uint32_t to;   /* transfer that waits */
    uint32_t from; /* its dep */
} tn_edge;

struct tn_schedule
{
    tn_collective coll;
    uint32_t ranks;
    uint64_t bytes;
    uint32_t root;
    uint32_t chunks;
    uint64_t scratch;
    bool contention_free;
    char* algorithm;

    tn_transfer* transfers;
    uint32_t count;
    size_t capacity; /* of transfers, and of path_first/path_count once they exist */
    uint32_t max_step_plus1;
    uint64_t total_bytes;
    uint32_t local_count; /* local ops among the transfers */

    tn_edge* edges; /* deps as added */
    size_t edge_count;
    size_t edge_capacity;

    /* explicit paths: per transfer (first, count) into path_links */
    uint32_t* path_first; /* NULL until a path is set; sized capacity */
    uint32_t* path_count;
    uint32_t* path_links;
    size_t path_links_count;
    size_t path_links_capacity;

    uint64_t memory_limit; /* bytes by tn_schedule_memory_estimate, 0 = none */

    bool finalized;
    /* finalized: transfer i's deps are dep_ids[dep_index[i] ...] (dep_len[i] of them), its
     * succs likewise; equal rows share their ids (tn-csr.h) */
    uint32_t* dep_index;
    uint32_t* dep_len;
    uint32_t* dep_ids;
    uint32_t* succ_index;
    uint32_t* succ_len;
    uint32_t* succ_ids;
    uint32_t* order;
};

tn_status
tn_schedule_create(tn_collective coll,
                   uint32_t ranks,
                   uint64_t bytes,
                   uint32_t root,
                   uint32_t chunks,
                   tn_schedule** out,
                   tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "schedule: out is NULL");
    }
    *out = NULL;
    if ((unsigned)coll >= (unsigned)TN_COLL_COUNT)
    {
        return tn_error_set(err, TN_EINVAL, "schedule: collective %d is not valid", (int)coll);
    }
    if (ranks == 0)
    {
        return tn_error_set(err, TN_EINVAL, "schedule: ranks must be >= 1");
    }
    if (chunks == 0)
    {
        return tn_error_set(err, TN_EINVAL, "schedule: chunks must be >= 1");
    }
    if (root >= ranks)
    {
        return tn_error_set(err, TN_EINVAL, "schedule: root %u >= ranks %u", root, ranks);
    }
    if (coll == TN_COLL_ALL_TO_ALL && bytes > UINT64_MAX / 4)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule: bytes %llu too large for all-to-all",
                            (unsigned long long)bytes);
    }
    tn_schedule* s = calloc(1, sizeof(*s));
    if (!s)
    {
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    s->algorithm = calloc(1, 1);
    if (!s->algorithm)
    {
        free(s);
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    s->coll = coll;
    s->ranks = ranks;
    s->bytes = bytes;
    s->root = root;
    s->chunks = chunks;
    *out = s;
    return TN_OK;
}

static void
free_finalized(tn_schedule* s)
{
    free(s->dep_index);
    free(s->dep_len);
    free(s->dep_ids);
    free(s->succ_index);
    free(s->succ_len);
    free(s->succ_ids);
    free(s->order);
    s->dep_index = s->dep_len = s->dep_ids = NULL;
    s->succ_index = s->succ_len = s->succ_ids = s->order = NULL;
    s->finalized = false;
}

/* Before a change to a finalized schedule: its deps as a list again, rebuilt from the CSR
 * (finalize dropped the list: it held twice the CSR's dep array, for the whole life of a
 * cached plan). The rows are sorted and without repeats, so finalizing again gives the
 * same arrays. */
static tn_status
unfinalize(tn_schedule* s, tn_error* err)
{
    if (!s->finalized)
    {
        return TN_OK;
    }
    size_t m = 0;
    for (uint32_t i = 0; i < s->count; i++)
    {
        m += s->dep_len[i];
    }
    tn_edge* edges = malloc((m ? m : 1) * sizeof(*edges));
    if (!edges)
    {
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    for (uint32_t i = 0, e = 0; i < s->count; i++)
    {
        for (uint32_t k = 0; k < s->dep_len[i]; k++, e++)
        {
            edges[e].to = i;
            edges[e].from = s->dep_ids[s->dep_index[i] + k];
        }
    }
    s->edges = edges;
    s->edge_count = m;
    s->edge_capacity = m ? m : 1;
    free_finalized(s);
    return TN_OK;
}

void
tn_schedule_destroy(tn_schedule* s)
{
    if (!s)
    {
        return;
    }
    free_finalized(s);
    free(s->algorithm);
    free(s->transfers);
    free(s->edges);
    free(s->path_first);
    free(s->path_count);
    free(s->path_links);
    free(s);
}

tn_status
tn_schedule_set_algorithm(tn_schedule* s, const char* name, tn_error* err)
{
    if (!name)
    {
        return tn_error_set(err, TN_EINVAL, "schedule: algorithm name is NULL");
    }
    size_t len = strlen(name);
    char* copy = malloc(len + 1);
    if (!copy)
    {
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    memcpy(copy, name, len + 1);
    free(s->algorithm);
    s->algorithm = copy;
    return TN_OK;
}

void
tn_schedule_set_scratch(tn_schedule* s, uint64_t bytes)
{
    s->scratch = bytes;
}

void
tn_schedule_set_contention_free(tn_schedule* s, bool claims)
{
    s->contention_free = claims;
}

uint64_t
tn_schedule_buffer_size(const tn_schedule* s, uint32_t rank)
{
    uint64_t size = s->bytes;
    if (s->coll == TN_COLL_ALL_TO_ALL && rank < s->ranks)
    {
        size += (uint64_t)s->ranks * tn_slice_of(s->bytes, s->ranks, rank).length;
    }
    return size + s->scratch;
}

uint64_t
tn_schedule_memory_estimate(uint64_t transfers, uint64_t deps, uint64_t path_links)
{
    /* measured peaks of tn-plan (plan, finalize, verify, cost) per item, rounded up */
    const uint64_t per_transfer = 256, per_dep = 32, per_link = 8;
    uint64_t parts[3] = {transfers, deps, path_links};
    uint64_t costs[3] = {per_transfer, per_dep, per_link};
    uint64_t sum = 0;
    for (int i = 0; i < 3; i++)
    {
        if (parts[i] > (UINT64_MAX - sum) / costs[i])
        {
            return UINT64_MAX;
        }
        sum += parts[i] * costs[i];
    }
    return sum;
}

void
tn_schedule_set_memory_limit(tn_schedule* s, uint64_t bytes)
{
    s->memory_limit = bytes;
}

/* The guard behind the planner's estimate: refuse to grow past the memory limit. */
static tn_status
check_growth(const tn_schedule* s, uint64_t transfers, uint64_t deps, uint64_t links, tn_error* err)
{
    if (s->memory_limit == 0)
    {
        return TN_OK;
    }
    uint64_t need = tn_schedule_memory_estimate(transfers, deps, links);
    if (need <= s->memory_limit)
    {
        return TN_OK;
    }
    char what[160];
    snprintf(what,
             sizeof(what),
             "schedule of %u ranks (%llu transfers and %llu deps so far, still growing)",
             s->ranks,
             (unsigned long long)transfers,
             (unsigned long long)deps);
    return tn_memory_check(need,
                           s->memory_limit,
                           what,
                           "plan fewer ranks or chunks, or another algorithm",
                           err);
}

static tn_status
add_edge(tn_schedule* s, uint32_t to, uint32_t from, tn_error* err)
{
    tn_edge* edges =
        tn_array_grow(s->edges, &s->edge_capacity, s->edge_count + 1, sizeof(*edges), 64);
    if (!edges)
    {
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    s->edges = edges;
    s->edges[s->edge_count].to = to;
    s->edges[s->edge_count].from = from;
    s->edge_count++;
    return TN_OK;
}

static bool
range_ok(uint64_t offset, uint64_t length, uint64_t size)
{
    return offset <= size && length <= size - offset;
}

tn_status
tn_schedule_add(tn_schedule* s,
                const tn_transfer_spec* spec,
                const uint32_t* deps,
                uint32_t ndeps,
                uint32_t* id,
                tn_error* err)
{
    if (!s || !spec)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_add: schedule or spec is NULL");
    }
    uint32_t tid = s->count;
    if (tid == UINT32_MAX - 1)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_add: too many transfers");
    }
    if (spec->src >= s->ranks || spec->dst >= s->ranks)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule_add: transfer %u: rank %u->%u out of range (ranks %u)",
                            tid,
                            spec->src,
                            spec->dst,
                            s->ranks);
    }
    bool local = tn_op_is_local(spec->op);
    if (!local && spec->src == spec->dst)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule_add: transfer %u: src == dst == %u",
                            tid,
                            spec->src);
    }
    if (local && (spec->src != spec->dst || (spec->src_offset < spec->dst_offset + spec->length &&
                                             spec->dst_offset < spec->src_offset + spec->length)))
    {
        /* one rank, two disjoint ranges: a local op reads all of its source before its
         * destination changes, which the verifier and every executor assume */
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule_add: transfer %u: %s needs src == dst (%u, %u) and "
                            "disjoint ranges [%llu,+%llu) and [%llu,+%llu)",
                            tid,
                            tn_op_name(spec->op),
                            spec->src,
                            spec->dst,
                            (unsigned long long)spec->src_offset,
                            (unsigned long long)spec->length,
                            (unsigned long long)spec->dst_offset,
                            (unsigned long long)spec->length);
    }
    if (spec->chunk >= s->chunks)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule_add: transfer %u: chunk %u >= chunks %u",
                            tid,
                            spec->chunk,
                            s->chunks);
    }
    if (spec->op != TN_OP_COPY && spec->op != TN_OP_REDUCE && !local)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_add: transfer %u: invalid op", tid);
    }
    if (!range_ok(spec->src_offset, spec->length, tn_schedule_buffer_size(s, spec->src)) ||
        !range_ok(spec->dst_offset, spec->length, tn_schedule_buffer_size(s, spec->dst)))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule_add: transfer %u (%u->%u): range src [%llu,+%llu) or dst "
                            "[%llu,+%llu) outside the buffers (%llu / %llu bytes)",
                            tid,
                            spec->src,
                            spec->dst,
                            (unsigned long long)spec->src_offset,
                            (unsigned long long)spec->length,
                            (unsigned long long)spec->dst_offset,
                            (unsigned long long)spec->length,
                            (unsigned long long)tn_schedule_buffer_size(s, spec->src),
                            (unsigned long long)tn_schedule_buffer_size(s, spec->dst));
    }
    if (ndeps && !deps)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_add: transfer %u: deps is NULL", tid);
    }
    tn_status grown =
        check_growth(s, (uint64_t)s->count + 1, s->edge_count + ndeps, s->path_links_count, err);
    if (!grown)
    {
        grown = unfinalize(s, err);
    }
    if (grown)
    {
        return grown;
    }
    size_t capacity = s->capacity;
    tn_transfer* transfers =
        tn_array_grow(s->transfers, &capacity, (size_t)s->count + 1, sizeof(*transfers), 64);
    if (!transfers)
    {
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    s->transfers = transfers;
    if (capacity != s->capacity && s->path_first)
    {
        /* the per-transfer path arrays follow the transfers' capacity */
        size_t first_capacity = s->capacity;
        size_t count_capacity = s->capacity;
        uint32_t* first =
            tn_array_grow(s->path_first, &first_capacity, capacity, sizeof(*first), 64);
        if (first)
        {
            s->path_first = first;
        }
        uint32_t* count =
            tn_array_grow(s->path_count, &count_capacity, capacity, sizeof(*count), 64);
        if (count)
        {
            s->path_count = count;
        }
        if (!first || !count)
        {
            return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
        }
    }
    s->capacity = capacity;
    size_t edges_before = s->edge_count;
    for (uint32_t i = 0; i < ndeps; i++)
    {
        tn_status st = add_edge(s, tid, deps[i], err);
        if (st)
        {
            s->edge_count = edges_before;
            return st;
        }
    }
    tn_transfer* t = &s->transfers[tid];
    t->id = tid;
    t->src = spec->src;
    t->dst = spec->dst;
    t->src_offset = spec->src_offset;
    t->dst_offset = spec->dst_offset;
    t->length = spec->length;
    t->op = spec->op;
    t->step = spec->step;
    t->dim = spec->dim;
    t->chunk = spec->chunk;
    if (s->path_first)
    {
        s->path_first[tid] = 0;
        s->path_count[tid] = 0;
    }
    s->count++;
    if (spec->step + 1 > s->max_step_plus1 && spec->step != UINT32_MAX)
    {
        s->max_step_plus1 = spec->step + 1;
    }
    s->total_bytes += spec->length;
    s->local_count += local;
    if (id)
    {
        *id = tid;
    }
    return TN_OK;
}

tn_status
tn_schedule_add_dep(tn_schedule* s, uint32_t id, uint32_t dep, tn_error* err)
{
    if (id >= s->count)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_add_dep: transfer %u does not exist", id);
    }
    tn_status st = check_growth(s, s->count, s->edge_count + 1, s->path_links_count, err);
    if (!st)
    {
        st = unfinalize(s, err);
    }
    if (!st)
    {
        st = add_edge(s, id, dep, err);
    }
    return st;
}

tn_status
tn_schedule_set_path(tn_schedule* s,
                     uint32_t id,
                     const uint32_t* links,
                     uint32_t nlinks,
                     tn_error* err)
{
    if (id >= s->count)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_set_path: transfer %u does not exist", id);
    }
    if (nlinks && !links)
    {
        return tn_error_set(err, TN_EINVAL, "schedule_set_path: links is NULL");
    }
    if (nlinks && tn_op_is_local(s->transfers[id].op))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule_set_path: transfer %u is a local op (no network, no path)",
                            id);
    }
    if (!s->path_first)
    {
        s->path_first = calloc(s->capacity, sizeof(uint32_t));
        s->path_count = calloc(s->capacity, sizeof(uint32_t));
        if (!s->path_first || !s->path_count)
        {
            free(s->path_first);
            free(s->path_count);
            s->path_first = s->path_count = NULL;
            return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
        }
    }
    tn_status grown = check_growth(s, s->count, s->edge_count, s->path_links_count + nlinks, err);
    if (grown)
    {
        return grown;
    }
    uint32_t* path_links = tn_array_grow(s->path_links,
                                         &s->path_links_capacity,
                                         s->path_links_count + nlinks,
                                         sizeof(*path_links),
                                         256);
    if (!path_links)
    {
        return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
    }
    s->path_links = path_links;
    if (nlinks > 0)
    {
        memcpy(s->path_links + s->path_links_count, links, nlinks * sizeof(uint32_t));
    }
    s->path_first[id] = (uint32_t)s->path_links_count;
    s->path_count[id] = nlinks;
    s->path_links_count += nlinks;
    return TN_OK;
}

static int
cmp_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a;
    uint32_t y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* the finalized CSRs into s, equal rows shared; false: out of memory (s unchanged) */
static bool
keep_csr(tn_schedule* s,
         uint32_t* dep_index,
         uint32_t** dep_ids,
         uint32_t* succ_index,
         uint32_t** succ_ids)
{
    uint32_t* dep_len = NULL;
    uint32_t* succ_len = NULL;
    if (!tn_csr_share_rows(s->count, dep_index, dep_ids, &dep_len))
    {
        return false;
    }
    if (!tn_csr_share_rows(s->count, succ_index, succ_ids, &succ_len))
    {
        free(dep_len);
        return false;
    }
    s->dep_index = dep_index;
    s->dep_len = dep_len;
    s->dep_ids = *dep_ids;
    s->succ_index = succ_index;
    s->succ_len = succ_len;
    s->succ_ids = *succ_ids;
    return true;
}

tn_status
tn_schedule_finalize(tn_schedule* s, tn_error* err)
{
    if (s->finalized)
    {
        return TN_OK;
    }
    uint32_t n = s->count;
    for (size_t e = 0; e < s->edge_count; e++)
    {
        if (s->edges[e].from >= n)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "schedule: transfer %u depends on transfer %u which does not "
                                "exist (count %u)",
                                s->edges[e].to,
                                s->edges[e].from,
                                n);
        }
        if (s->edges[e].from == s->edges[e].to)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "schedule: transfer %u depends on itself",
                                s->edges[e].to);
        }
    }
    uint32_t* dep_index = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t* dep_ids = malloc((s->edge_count ? s->edge_count : 1) * sizeof(uint32_t));
    uint32_t* succ_index = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t* succ_ids = NULL;
    uint32_t* order = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* indeg = NULL;
    uint32_t* heap = NULL;
    if (!dep_index || !dep_ids || !succ_index || !order)
    {
        goto nomem;
    }
    /* dep CSR (counting sort by `to`), then sort and dedupe each row */
    for (size_t e = 0; e < s->edge_count; e++)
    {
        dep_index[s->edges[e].to + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
    {
        dep_index[i + 1] += dep_index[i];
    }
    {
        uint32_t* fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
        if (!fill)
        {
            goto nomem;
        }
        memcpy(fill, dep_index, ((size_t)n + 1) * sizeof(uint32_t));
        for (size_t e = 0; e < s->edge_count; e++)
        {
            dep_ids[fill[s->edges[e].to]++] = s->edges[e].from;
        }
        free(fill);
    }
    {
        uint32_t w = 0;
        uint32_t start = 0;
        for (uint32_t i = 0; i < n; i++)
        {
            uint32_t end = dep_index[i + 1];
            qsort(dep_ids + start, end - start, sizeof(uint32_t), cmp_u32);
            uint32_t row = w;
            for (uint32_t k = start; k < end; k++)
            {
                if (w == row || dep_ids[w - 1] != dep_ids[k])
                {
                    dep_ids[w++] = dep_ids[k];
                }
            }
            dep_index[i] = row;
            start = end;
        }
        dep_index[n] = w;
    }
    /* successor CSR */
    uint32_t m = dep_index[n];
    succ_ids = malloc((m ? m : 1) * sizeof(uint32_t));
    indeg = malloc(((size_t)n + 1) * sizeof(uint32_t));
    heap = malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!succ_ids || !indeg || !heap)
    {
        goto nomem;
    }
    for (uint32_t k = 0; k < m; k++)
    {
        succ_index[dep_ids[k] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
    {
        succ_index[i + 1] += succ_index[i];
    }
    memcpy(indeg, succ_index, ((size_t)n + 1) * sizeof(uint32_t)); /* used as fill */
    for (uint32_t i = 0; i < n; i++)
    {
        for (uint32_t k = dep_index[i]; k < dep_index[i + 1]; k++)
        {
            succ_ids[indeg[dep_ids[k]]++] = i; /* ascending since i ascends */
        }
    }
    /* Kahn with a min-heap of ready ids */
    uint32_t hn = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        indeg[i] = dep_index[i + 1] - dep_index[i];
        if (indeg[i] == 0)
        {
            heap[hn++] = i; /* ascending: already a heap */
        }
    }
    uint32_t done = 0;
    while (hn > 0)
    {
        uint32_t v = heap[0];
        heap[0] = heap[--hn];
        for (uint32_t i = 0;;)
        {
            uint32_t l = 2 * i + 1, r = l + 1, sm = i;
            if (l < hn && heap[l] < heap[sm])
                sm = l;
            if (r < hn && heap[r] < heap[sm])
                sm = r;
            if (sm == i)
                break;
            uint32_t tmp = heap[i];
            heap[i] = heap[sm];
            heap[sm] = tmp;
            i = sm;
        }
        order[done++] = v;
        for (uint32_t k = succ_index[v]; k < succ_index[v + 1]; k++)
        {
            uint32_t w = succ_ids[k];
            if (--indeg[w] == 0)
            {
                uint32_t i = hn++;
                heap[i] = w;
                while (i > 0 && heap[(i - 1) / 2] > heap[i])
                {
                    uint32_t p = (i - 1) / 2;
                    uint32_t tmp = heap[p];
                    heap[p] = heap[i];
                    heap[i] = tmp;
                    i = p;
                }
            }
        }
    }
    if (done != n)
    {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++)
        {
            if (indeg[i] > 0)
            {
                bad = i;
                break;
            }
        }
        free(dep_index);
        free(dep_ids);
        free(succ_index);
        free(succ_ids);
        free(order);
        free(indeg);
        free(heap);
        return tn_error_set(err,
                            TN_EINVAL,
                            "schedule: dependency cycle: transfer %u is on or after a cycle",
                            bad);
    }
    free(indeg);
    free(heap);
    indeg = heap = NULL;
    if (!keep_csr(s, dep_index, &dep_ids, succ_index, &succ_ids))
    {
        goto nomem;
    }
    s->order = order;
    s->finalized = true;
    free(s->edges); /* the CSR holds them; unfinalize rebuilds the list */
    s->edges = NULL;
    s->edge_count = m;
    s->edge_capacity = 0;
    return TN_OK;

nomem:
    free(dep_index);
    free(dep_ids);
    free(succ_index);
    free(succ_ids);
    free(order);
    free(indeg);
    free(heap);
    return tn_error_set(err, TN_ENOMEM, "schedule: out of memory");
}

tn_collective
tn_schedule_collective(const tn_schedule* s)
{
    return s->coll;
}

uint32_t
tn_schedule_ranks(const tn_schedule* s)
{
    return s->ranks;
}

uint64_t
tn_schedule_bytes(const tn_schedule* s)
{
    return s->bytes;
}

uint32_t
tn_schedule_root(const tn_schedule* s)
{
    return s->root;
}

uint32_t
tn_schedule_chunks(const tn_schedule* s)
{
    return s->chunks;
}

const char*
tn_schedule_algorithm(const tn_schedule* s)
{
    return s->algorithm;
}

bool
tn_schedule_contention_free(const tn_schedule* s)
{
    return s->contention_free;
}

bool
tn_schedule_step_ordered(const tn_schedule* s)
{
    if (!s->contention_free || !s->finalized)
        return false;
    for (uint32_t t = 0; t < s->count; t++)
        for (uint32_t k = s->dep_index[t]; k < s->dep_index[t] + s->dep_len[t]; k++)
            if (s->transfers[s->dep_ids[k]].step >= s->transfers[t].step)
                return false;
    return true;
}

uint64_t
tn_schedule_scratch(const tn_schedule* s)
{
    return s->scratch;
}

bool
tn_schedule_is_finalized(const tn_schedule* s)
{
    return s->finalized;
}

/* ids a finalized CSR keeps: rows share them, so the end of the furthest row */
static uint64_t
kept_ids(const tn_schedule* s, const uint32_t* index, const uint32_t* len)
{
    uint64_t end = 0;
    for (uint32_t i = 0; i < s->count; i++)
    {
        const uint64_t e = (uint64_t)index[i] + len[i];
        end = e > end ? e : end;
    }
    return end;
}

uint64_t
tn_schedule_held_bytes(const tn_schedule* s)
{
    uint64_t held = sizeof(*s) + (uint64_t)s->capacity * sizeof(tn_transfer) +
                    (uint64_t)s->edge_capacity * sizeof(tn_edge) +
                    (uint64_t)s->path_links_capacity * sizeof(uint32_t);
    if (s->algorithm)
    {
        held += strlen(s->algorithm) + 1;
    }
    if (s->path_first)
    {
        held += 2 * (uint64_t)s->capacity * sizeof(uint32_t); /* path_first, path_count */
    }
    if (s->finalized)
    {
        /* dep and succ index and len (n + 1 entries each, tn-csr.h), the order, the ids */
        held += (4 * ((uint64_t)s->count + 1) + s->count) * sizeof(uint32_t);
        held += (kept_ids(s, s->dep_index, s->dep_len) + kept_ids(s, s->succ_index, s->succ_len)) *
                sizeof(uint32_t);
    }
    return held;
}

uint32_t
tn_schedule_count(const tn_schedule* s)
{
    return s->count;
}

uint32_t
tn_schedule_steps(const tn_schedule* s)
{
    return s->max_step_plus1;
}

uint64_t
tn_schedule_total_bytes(const tn_schedule* s)
{
    return s->total_bytes;
}

uint32_t
tn_schedule_local_count(const tn_schedule* s)
{
    return s->local_count;
}

const tn_transfer*
tn_schedule_transfer(const tn_schedule* s, uint32_t id)
{
    assert(id < s->count);
    return &s->transfers[id];
}

const uint32_t*
tn_schedule_deps(const tn_schedule* s, uint32_t id, uint32_t* count)
{
    assert(s->finalized && id < s->count);
    if (count)
    {
        *count = s->dep_len[id];
    }
    return s->dep_ids + s->dep_index[id];
}

const uint32_t*
tn_schedule_succs(const tn_schedule* s, uint32_t id, uint32_t* count)
{
    assert(s->finalized && id < s->count);
    if (count)
    {
        *count = s->succ_len[id];
    }
    return s->succ_ids + s->succ_index[id];
}

const uint32_t*
tn_schedule_path(const tn_schedule* s, uint32_t id, uint32_t* count)
{
    assert(id < s->count);
    if (!s->path_first || s->path_count[id] == 0)
    {
        if (count)
        {
            *count = 0;
        }
        return NULL;
    }
    if (count)
    {
        *count = s->path_count[id];
    }
    return s->path_links + s->path_first[id];
}

const uint32_t*
tn_schedule_topo_order(const tn_schedule* s)
{
    assert(s->finalized);
    return s->order;
}
