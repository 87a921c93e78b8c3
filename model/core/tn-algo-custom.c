/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-algo-custom: "custom:PREFIX", a collective whose schedule the user wrote: ASTRA-sim's
 * Collective API traces PREFIX.<rank>.et (tn-algorithm.h has the contract). The traces are
 * the user's input, so the plan is verified here (tn_verify) before anything runs it: a
 * schedule that does not perform its collective is refused, never run.
 */
#include "tn-algorithm-impl.h"
#include "tn-chakra.h"
#include "tn-verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUSTOM_NAME "custom:"

/* One transfer: a send node and the receive it pairs with (tn_chakra_check's matching). */
typedef struct xfer
{
    uint32_t src, send; /* rank, node index */
    uint32_t dst, recv;
    uint32_t step;
    uint32_t dep_start, dep_count;
} xfer;

typedef struct custom
{
    const char* prefix;
    uint32_t ranks;
    tn_chakra_trace** traces;
    uint32_t** xfer_of; /* per rank, per node: its transfer, or TN_TRANSFER_NONE */
    xfer* xfers;
    size_t count;
    tn_ids deps;     /* every transfer's deps, xfers[t].dep_start ... */
    uint32_t** seen; /* per rank, per node: the walk that visited it last */
    uint32_t walk;
    tn_error* err;
} custom;

static const char*
prefix_of(const char* algorithm)
{
    const size_t n = strlen(CUSTOM_NAME);
    return algorithm && strncmp(algorithm, CUSTOM_NAME, n) == 0 && algorithm[n] ? algorithm + n
                                                                                : NULL;
}

tn_status
tn_algo_custom_check(const tn_topology* topo,
                     const tn_plan_request* request,
                     uint32_t ranks,
                     tn_error* err)
{
    (void)topo;
    (void)ranks;
    if (!prefix_of(request->algorithm))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "custom: name the traces: custom:PREFIX (PREFIX.<rank>.et, one per "
                            "rank of the collective, as ASTRA-sim's *-implementation-custom)");
    }
    return TN_OK;
}

void
tn_algo_custom_estimate(const tn_topology* topo,
                        const tn_plan_request* request,
                        uint32_t ranks,
                        uint64_t chunks,
                        tn_plan_size* size)
{
    /* the traces are read when planned: nothing is known of them before */
    (void)topo;
    (void)request;
    (void)ranks;
    (void)chunks;
    size->transfers = 0;
    size->deps = 0;
    size->exact_transfers = false;
}

static char*
rank_path(const char* prefix, uint32_t rank)
{
    const size_t n = strlen(prefix) + 16;
    char* path = malloc(n);
    if (path)
    {
        snprintf(path, n, "%s.%u.et", prefix, rank);
    }
    return path;
}

static tn_status
nomem(custom* c)
{
    return tn_error_set(c->err, TN_ENOMEM, "custom:%s: out of memory", c->prefix);
}

/* Read PREFIX.0.et .. PREFIX.<ranks-1>.et; refuse a set made for more ranks. */
static tn_status
load(custom* c)
{
    for (uint32_t r = 0; r <= c->ranks; r++)
    {
        char* path = rank_path(c->prefix, r);
        if (!path)
        {
            return nomem(c);
        }
        tn_status s = TN_OK;
        if (r == c->ranks)
        {
            FILE* extra = fopen(path, "rb");
            if (extra)
            {
                fclose(extra);
                s = tn_error_set(c->err,
                                 TN_EINVAL,
                                 "custom:%s: %s exists: the traces are for more ranks than the "
                                 "collective's %u (one file per rank of its group)",
                                 c->prefix,
                                 path,
                                 c->ranks);
            }
        }
        else
        {
            s = tn_chakra_load_file(path, &c->traces[r], c->err);
        }
        free(path);
        if (s)
        {
            return s;
        }
    }
    return TN_OK;
}

/* Only sends, receives and the receivers' reductions (COMP_NODE) make a collective; a
   message's bytes are chunks of the collective, all of one count. */
static tn_status
check_nodes(custom* c, uint32_t* total)
{
    *total = 0;
    for (uint32_t r = 0; r < c->ranks; r++)
    {
        const tn_chakra_trace* t = c->traces[r];
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            const char* at = tn_chakra_name(t);
            const unsigned long long id = (unsigned long long)n->id;
            if (n->type != TN_CHAKRA_COMP_NODE && n->kind != TN_CHAKRA_SEND &&
                n->kind != TN_CHAKRA_RECV)
            {
                return tn_error_set(c->err,
                                    TN_EINVAL,
                                    "%s: node %llu: %s is not allowed in a custom collective "
                                    "(COMM_SEND_NODE, COMM_RECV_NODE and COMP_NODE are)",
                                    at,
                                    id,
                                    n->kind == TN_CHAKRA_COLLECTIVE      ? "COMM_COLL_NODE"
                                    : n->type == TN_CHAKRA_MEM_LOAD_NODE ? "MEM_LOAD_NODE"
                                                                         : "MEM_STORE_NODE");
            }
            if (n->type == TN_CHAKRA_COMP_NODE)
            {
                continue;
            }
            if (!n->chunk_total)
            {
                return tn_error_set(c->err,
                                    TN_EINVAL,
                                    "%s: node %llu: msg_chunk_idx, msg_chunk_cnt, total_chunk_cnt: "
                                    "missing (a message of a fixed comm_size does not follow the "
                                    "collective's size; convert the schedule again: "
                                    "tn-chakra-convert --msccl)",
                                    at,
                                    id);
            }
            if (*total && n->chunk_total != *total)
            {
                return tn_error_set(c->err,
                                    TN_EINVAL,
                                    "%s: node %llu: total_chunk_cnt %u differs from the %u of the "
                                    "traces' first message",
                                    at,
                                    id,
                                    n->chunk_total,
                                    *total);
            }
            *total = n->chunk_total;
            if ((uint64_t)n->chunk_index + n->chunk_count > n->chunk_total)
            {
                return tn_error_set(c->err,
                                    TN_EINVAL,
                                    "%s: node %llu: msg_chunk_idx %u + msg_chunk_cnt %u is past "
                                    "total_chunk_cnt %u",
                                    at,
                                    id,
                                    n->chunk_index,
                                    n->chunk_count,
                                    n->chunk_total);
            }
        }
    }
    return TN_OK;
}

/* The receive at rank dst that pairs with send node i of rank src. */
static uint32_t
paired_recv(const custom* c, uint32_t src, const tn_chakra_node* send)
{
    const tn_chakra_trace* t = c->traces[send->peer];
    for (uint32_t j = 0; j < tn_chakra_node_count(t); j++)
    {
        const tn_chakra_node* n = tn_chakra_node_at(t, j);
        if (n->kind == TN_CHAKRA_RECV && n->peer == src && n->tag == send->tag &&
            n->match == send->match)
        {
            return j;
        }
    }
    return TN_TRANSFER_NONE; /* tn_chakra_check paired every send */
}

static tn_status
pair(custom* c)
{
    size_t cap = 0;
    for (uint32_t r = 0; r < c->ranks; r++)
    {
        const tn_chakra_trace* t = c->traces[r];
        c->xfer_of[r] = malloc((tn_chakra_node_count(t) + 1) * sizeof(uint32_t));
        c->seen[r] = calloc(tn_chakra_node_count(t) + 1, sizeof(uint32_t));
        if (!c->xfer_of[r] || !c->seen[r])
        {
            return nomem(c);
        }
        memset(c->xfer_of[r], 0xff, (tn_chakra_node_count(t) + 1) * sizeof(uint32_t));
    }
    for (uint32_t r = 0; r < c->ranks; r++)
    {
        const tn_chakra_trace* t = c->traces[r];
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            if (n->kind != TN_CHAKRA_SEND)
            {
                continue;
            }
            const uint32_t j = paired_recv(c, r, n);
            if (j == TN_TRANSFER_NONE || n->peer == r)
            {
                return tn_error_set(c->err,
                                    TN_EINVAL,
                                    "%s: node %llu: a send to its own rank or without its receive",
                                    tn_chakra_name(t),
                                    (unsigned long long)n->id);
            }
            const tn_chakra_node* rn = tn_chakra_node_at(c->traces[n->peer], j);
            if (rn->chunk_count != n->chunk_count)
            {
                return tn_error_set(c->err,
                                    TN_EINVAL,
                                    "%s: node %llu: msg_chunk_cnt %u differs from the %u of its "
                                    "receive, %s node %llu",
                                    tn_chakra_name(t),
                                    (unsigned long long)n->id,
                                    n->chunk_count,
                                    rn->chunk_count,
                                    tn_chakra_name(c->traces[n->peer]),
                                    (unsigned long long)rn->id);
            }
            xfer* grown = tn_array_grow(c->xfers, &cap, c->count + 1, sizeof(xfer), 64);
            if (!grown || c->count >= UINT32_MAX - 1)
            {
                return nomem(c);
            }
            c->xfers = grown;
            xfer x = {r, i, n->peer, j, 0, 0, 0};
            c->xfer_of[r][i] = (uint32_t)c->count;
            c->xfer_of[n->peer][j] = (uint32_t)c->count;
            c->xfers[c->count++] = x;
        }
    }
    return TN_OK;
}

/* The transfers node `from` of rank r waits for: the nearest receives it depends on, through
   sends and compute nodes. A receive's transfer stands for the receives before it (its own
   walk found them), so the walk stops there. A send is not waited for: it was posted (the
   message is on its way, as MSCCL's and training-net's rings send), and waiting for the
   receiver's own sends would make a ring wait for itself. */
static tn_status
walk(custom* c, uint32_t r, uint32_t from, uint32_t self)
{
    const tn_chakra_trace* t = c->traces[r];
    const tn_chakra_node* start = tn_chakra_node_at(t, from);
    uint32_t* stack = malloc((tn_chakra_node_count(t) + 1) * sizeof(uint32_t));
    if (!stack)
    {
        return nomem(c);
    }
    size_t top = 0;
    c->walk++;
    for (uint32_t k = 0; k < start->dep_count; k++)
    {
        if (c->seen[r][start->deps[k]] != c->walk)
        {
            c->seen[r][start->deps[k]] = c->walk;
            stack[top++] = start->deps[k];
        }
    }
    tn_status s = TN_OK;
    while (top && !s)
    {
        const uint32_t i = stack[--top];
        const tn_chakra_node* n = tn_chakra_node_at(t, i);
        const uint32_t x = c->xfer_of[r][i];
        const int go_on = n->kind != TN_CHAKRA_RECV;
        if (!go_on && x != TN_TRANSFER_NONE && x != self)
        {
            s = tn_ids_push(&c->deps, x, c->err);
        }
        for (uint32_t k = 0; go_on && k < n->dep_count; k++)
        {
            if (c->seen[r][n->deps[k]] != c->walk)
            {
                c->seen[r][n->deps[k]] = c->walk;
                stack[top++] = n->deps[k];
            }
        }
    }
    free(stack);
    return s;
}

/* Every transfer's deps: its sender's (what the send waits for) and, with receiver, its
   receiver's too (what the receive waits for). */
static tn_status
dependencies(custom* c, int receiver)
{
    c->deps.n = 0;
    for (size_t x = 0; x < c->count; x++)
    {
        xfer* t = &c->xfers[x];
        t->dep_start = (uint32_t)c->deps.n;
        t->step = 0;
        tn_status s = walk(c, t->src, t->send, (uint32_t)x);
        s = s || !receiver ? s : walk(c, t->dst, t->recv, (uint32_t)x);
        if (s)
        {
            return s;
        }
        t->dep_count = (uint32_t)(c->deps.n - t->dep_start);
    }
    return TN_OK;
}

/* Steps by longest path (Kahn); a cycle is refused naming a transfer on it. */
static tn_status
steps(custom* c)
{
    uint32_t* pending = calloc(c->count + 1, sizeof(uint32_t));
    uint32_t* order = malloc((c->count + 1) * sizeof(uint32_t));
    if (!pending || !order)
    {
        free(pending);
        free(order);
        return nomem(c);
    }
    for (size_t x = 0; x < c->count; x++)
    {
        pending[x] = c->xfers[x].dep_count;
    }
    /* successors are found by scanning: traces are a collective's few hundred messages */
    size_t done = 0;
    for (size_t x = 0; x < c->count; x++)
    {
        if (!pending[x])
        {
            order[done++] = (uint32_t)x;
        }
    }
    for (size_t k = 0; k < done; k++)
    {
        const uint32_t u = order[k];
        for (size_t x = 0; x < c->count; x++)
        {
            const xfer* t = &c->xfers[x];
            for (uint32_t d = 0; d < t->dep_count; d++)
            {
                if (c->deps.ids[t->dep_start + d] == u)
                {
                    if (c->xfers[x].step < c->xfers[u].step + 1)
                    {
                        c->xfers[x].step = c->xfers[u].step + 1;
                    }
                    if (--pending[x] == 0)
                    {
                        order[done++] = (uint32_t)x;
                    }
                }
            }
        }
    }
    tn_status s = TN_OK;
    for (size_t x = 0; x < c->count && done < c->count; x++)
    {
        if (pending[x])
        {
            const xfer* t = &c->xfers[x];
            s = tn_error_set(c->err,
                             TN_EINVAL,
                             "%s: node %llu: its message to %s node %llu waits for itself "
                             "through the other ranks' sends and receives (a dependency cycle)",
                             tn_chakra_name(c->traces[t->src]),
                             (unsigned long long)tn_chakra_node_at(c->traces[t->src], t->send)->id,
                             tn_chakra_name(c->traces[t->dst]),
                             (unsigned long long)tn_chakra_node_at(c->traces[t->dst], t->recv)->id);
            break;
        }
    }
    free(pending);
    free(order);
    return s;
}

/* Whether a COMP_NODE of the receiver's trace takes the receive as data: MSCCL's
   receive-reduce-copy, when is_rrc is not given. */
static int
reduced_after(const tn_chakra_trace* t, uint32_t recv)
{
    for (uint32_t i = recv + 1; i < tn_chakra_node_count(t); i++)
    {
        const tn_chakra_node* n = tn_chakra_node_at(t, i);
        for (uint32_t k = 0; n->type == TN_CHAKRA_COMP_NODE && k < n->data_dep_count; k++)
        {
            if (n->deps[k] == recv)
            {
                return 1;
            }
        }
    }
    return 0;
}

static tn_slice
chunks_of(uint64_t bytes, const tn_chakra_node* n)
{
    const tn_slice first = tn_slice_of(bytes, n->chunk_total, n->chunk_index);
    const tn_slice last = tn_slice_of(bytes, n->chunk_total, n->chunk_index + n->chunk_count - 1);
    tn_slice s = {first.offset, last.offset + last.length - first.offset};
    return s;
}

static tn_status
add_transfers(custom* c, const tn_topology* topo, tn_schedule* s)
{
    const uint64_t bytes = tn_schedule_bytes(s);
    const int a2a = tn_schedule_collective(s) == TN_COLL_ALL_TO_ALL;
    for (size_t x = 0; x < c->count; x++)
    {
        const xfer* t = &c->xfers[x];
        const tn_chakra_node* send = tn_chakra_node_at(c->traces[t->src], t->send);
        const tn_chakra_node* recv = tn_chakra_node_at(c->traces[t->dst], t->recv);
        const tn_slice from = chunks_of(bytes, send);
        const tn_slice to = chunks_of(bytes, recv);
        const int reduce = recv->reduces || reduced_after(c->traces[t->dst], t->recv);
        uint32_t id;
        tn_status st = tn_algo_add(s,
                                   t->src,
                                   t->dst,
                                   from.offset,
                                   (a2a ? bytes : 0) + to.offset,
                                   from.length,
                                   reduce ? TN_OP_REDUCE : TN_OP_COPY,
                                   t->step,
                                   tn_algo_rank_dim(topo, t->src, t->dst),
                                   0,
                                   c->deps.ids + t->dep_start,
                                   t->dep_count,
                                   &id,
                                   c->err);
        if (st)
        {
            return st;
        }
    }
    return TN_OK;
}

/* tn_verify's message with the trace nodes of the transfer it names. */
static tn_status
refuse_unverified(custom* c, const tn_schedule* s, const char* why)
{
    char where[256] = "";
    const char* at = strstr(why, "transfer ");
    unsigned id = 0;
    if (at && sscanf(at, "transfer %u", &id) == 1 && id < c->count)
    {
        const xfer* t = &c->xfers[id];
        snprintf(where,
                 sizeof(where),
                 " (transfer %u is %s node %llu to %s node %llu)",
                 id,
                 tn_chakra_name(c->traces[t->src]),
                 (unsigned long long)tn_chakra_node_at(c->traces[t->src], t->send)->id,
                 tn_chakra_name(c->traces[t->dst]),
                 (unsigned long long)tn_chakra_node_at(c->traces[t->dst], t->recv)->id);
    }
    char copy[TN_ERROR_MESSAGE_SIZE];
    snprintf(copy, sizeof(copy), "%s", why);
    return tn_error_set(c->err,
                        TN_EVERIFY,
                        "custom:%s: the traces do not perform the %s of %llu bytes on %u ranks: "
                        "%s%s",
                        c->prefix,
                        tn_collective_name(tn_schedule_collective(s)),
                        (unsigned long long)tn_schedule_bytes(s),
                        c->ranks,
                        copy,
                        where);
}

tn_status
tn_algo_custom_plan(const tn_topology* topo,
                    const tn_plan_request* request,
                    tn_schedule* s,
                    tn_error* err)
{
    custom c;
    memset(&c, 0, sizeof(c));
    c.prefix = prefix_of(request->algorithm);
    c.ranks = tn_schedule_ranks(s);
    c.err = err;
    c.traces = calloc(c.ranks, sizeof(*c.traces));
    c.xfer_of = calloc(c.ranks, sizeof(*c.xfer_of));
    c.seen = calloc(c.ranks, sizeof(*c.seen));
    uint32_t total = 0;
    tn_status st = c.traces && c.xfer_of && c.seen ? TN_OK : nomem(&c);
    st = st ? st : load(&c);
    st = st ? st : check_nodes(&c, &total);
    st = st ? st : tn_chakra_check(c.traces, c.ranks, err);
    st = st ? st : pair(&c);
    /* As in ASTRA-sim, a message leaves when its send's dependencies are met, whenever its
       receive is posted; only when the data needs the receiver's order too (a message would
       otherwise overwrite or add into what the receiver has not taken yet) does the
       receiver's side wait as well. */
    tn_schedule* trial = NULL;
    st = st ? st
            : tn_schedule_create(tn_schedule_collective(s),
                                 c.ranks,
                                 tn_schedule_bytes(s),
                                 tn_schedule_root(s),
                                 tn_schedule_chunks(s),
                                 &trial,
                                 err);
    st = st ? st : dependencies(&c, 0);
    st = st ? st : steps(&c);
    st = st ? st : add_transfers(&c, topo, trial);
    st = st ? st : tn_schedule_finalize(trial, err);
    tn_error ignored;
    const int sender_only = !st && tn_verify(trial, &ignored) == TN_OK;
    tn_schedule_destroy(trial);
    st = st || sender_only ? st : dependencies(&c, 1);
    st = st || sender_only ? st : steps(&c);
    st = st ? st : add_transfers(&c, topo, s);
    st = st ? st : tn_schedule_finalize(s, err);
    if (!st && tn_verify(s, err) != TN_OK)
    {
        st = refuse_unverified(&c, s, err->message);
    }
    for (uint32_t r = 0; r < c.ranks; r++)
    {
        tn_chakra_destroy(c.traces ? c.traces[r] : NULL);
        free(c.xfer_of ? c.xfer_of[r] : NULL);
        free(c.seen ? c.seen[r] : NULL);
    }
    free(c.traces);
    free(c.xfer_of);
    free(c.seen);
    free(c.xfers);
    tn_ids_free(&c.deps);
    return st;
}
