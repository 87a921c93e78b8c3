/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra: the traces of a job checked together, and their communication matched
 * (tn_chakra_check in tn-chakra.h). Needs no protobuf-c: it reads decoded traces.
 */
#include "tn-chakra.h"

#include <stdlib.h>
#include <string.h>

/* One communication node of one rank. */
typedef struct comm_entry
{
    uint32_t rank;
    uint32_t node;
    uint32_t k;
    const tn_chakra_node* n;
    uint32_t src; /* SEND/RECV: the transfer's ends */
    uint32_t dst;
    uint32_t ranks; /* COLLECTIVE: the job's rank count (group NULL: all) */
} comm_entry;

static uint32_t
group_size(const comm_entry* e)
{
    return e->n->group ? e->n->group_count : e->ranks;
}

static uint32_t
group_at(const comm_entry* e, uint32_t i)
{
    return e->n->group ? e->n->group[i] : i;
}

static int
cmp_group(const comm_entry* a, const comm_entry* b)
{
    const uint32_t na = group_size(a);
    const uint32_t nb = group_size(b);
    for (uint32_t i = 0; i < na && i < nb; i++)
    {
        if (group_at(a, i) != group_at(b, i))
        {
            return group_at(a, i) < group_at(b, i) ? -1 : 1;
        }
    }
    return na < nb ? -1 : na > nb;
}

#define CMP(x, y)                                                                                  \
    if ((x) != (y))                                                                                \
    return (x) < (y) ? -1 : 1

static int
cmp_coll(const void* pa, const void* pb)
{
    const comm_entry* a = pa;
    const comm_entry* b = pb;
    int c = cmp_group(a, b);
    if (c)
    {
        return c;
    }
    CMP(a->k, b->k);
    CMP(a->rank, b->rank);
    return 0;
}

static int
cmp_p2p(const void* pa, const void* pb)
{
    const comm_entry* a = pa;
    const comm_entry* b = pb;
    CMP(a->src, b->src);
    CMP(a->dst, b->dst);
    CMP(a->n->tag, b->n->tag);
    CMP(a->k, b->k);
    return 0;
}

static int
cmp_ends(const void* pa, const void* pb)
{
    const comm_entry* a = pa;
    const comm_entry* b = pb;
    CMP(a->src, b->src);
    CMP(a->dst, b->dst);
    CMP(a->n->tag, b->n->tag);
    CMP(a->rank, b->rank);
    CMP(a->node, b->node);
    return 0;
}

static int
cmp_group_order(const void* pa, const void* pb)
{
    const comm_entry* a = pa;
    const comm_entry* b = pb;
    int c = cmp_group(a, b);
    if (c)
    {
        return c;
    }
    CMP(a->rank, b->rank);
    CMP(a->node, b->node);
    return 0;
}

/* Number entries of equal key (cmp) in file order: k = 0, 1, ... per (key, rank). */
static void
number(comm_entry* e, size_t n, int (*same_key)(const void*, const void*))
{
    for (size_t i = 0; i < n; i++)
    {
        const int same = i > 0 && same_key(&e[i - 1], &e[i]) == 0 && e[i - 1].rank == e[i].rank;
        e[i].k = same ? e[i - 1].k + 1 : 0;
    }
}

static int
same_ends(const void* pa, const void* pb)
{
    const comm_entry* a = pa;
    const comm_entry* b = pb;
    return a->src != b->src || a->dst != b->dst || a->n->tag != b->n->tag;
}

static int
same_group(const void* pa, const void* pb)
{
    return cmp_group(pa, pb);
}

static tn_status
node_error(tn_error* err, tn_chakra_trace* const* traces, const comm_entry* e, const char* what)
{
    return tn_error_set(err,
                        TN_EINVAL,
                        "%s: node %llu: %s",
                        tn_chakra_name(traces[e->rank]),
                        (unsigned long long)e->n->id,
                        what);
}

/* Sends against receives, both sorted by cmp_p2p. */
static tn_status
pair_transfers(tn_chakra_trace* const* traces,
               const comm_entry* sends,
               size_t ns,
               const comm_entry* recvs,
               size_t nr,
               tn_error* err)
{
    size_t i = 0;
    size_t j = 0;
    char what[160];
    while (i < ns || j < nr)
    {
        const int c = i == ns ? 1 : j == nr ? -1 : cmp_p2p(&sends[i], &recvs[j]);
        if (c < 0 && !traces[sends[i].dst])
        {
            i++; /* to an absent rank: its receive is not here to match */
            continue;
        }
        if (c > 0 && !traces[recvs[j].src])
        {
            j++;
            continue;
        }
        if (c != 0)
        {
            const comm_entry* e = c < 0 ? &sends[i] : &recvs[j];
            snprintf(what,
                     sizeof(what),
                     "%s %u -> %u, tag %llu, number %u of these: rank %u has no matching %s",
                     c < 0 ? "send" : "receive",
                     e->src,
                     e->dst,
                     (unsigned long long)e->n->tag,
                     e->k,
                     c < 0 ? e->dst : e->src,
                     c < 0 ? "receive" : "send");
            return node_error(err, traces, e, what);
        }
        if (sends[i].n->comm_bytes != recvs[j].n->comm_bytes)
        {
            snprintf(what,
                     sizeof(what),
                     "receives %llu bytes, its send (rank %u, node %llu) sends %llu",
                     (unsigned long long)recvs[j].n->comm_bytes,
                     sends[i].rank,
                     (unsigned long long)sends[i].n->id,
                     (unsigned long long)sends[i].n->comm_bytes);
            return node_error(err, traces, &recvs[j], what);
        }
        i++;
        j++;
    }
    return TN_OK;
}

/* Runs of equal (group, k), sorted by cmp_coll: exactly the group's ranks, agreeing. */
static tn_status
match_collectives(tn_chakra_trace* const* traces, const comm_entry* c, size_t n, tn_error* err)
{
    char what[200];
    size_t i = 0;
    while (i < n)
    {
        size_t end = i + 1;
        while (end < n && cmp_group(&c[i], &c[end]) == 0 && c[end].k == c[i].k)
        {
            end++;
        }
        const uint32_t size = group_size(&c[i]);
        uint32_t absent = 0;
        for (uint32_t m = 0; m < size; m++)
        {
            absent += !traces[group_at(&c[i], m)];
        }
        for (uint32_t m = 0; m < size && absent == 0; m++)
        {
            const size_t at = i + m;
            if (at >= end || c[at].rank != group_at(&c[i], m))
            {
                snprintf(what,
                         sizeof(what),
                         "collective number %u of its group (%u ranks from rank %u): rank %u has "
                         "no such collective",
                         c[i].k,
                         size,
                         group_at(&c[i], 0),
                         group_at(&c[i], m));
                return node_error(err, traces, &c[i], what);
            }
            if (c[at].n->collective != c[i].n->collective ||
                c[at].n->comm_bytes != c[i].n->comm_bytes)
            {
                snprintf(what,
                         sizeof(what),
                         "%s of %llu bytes, but rank %u's node %llu, the same collective of the "
                         "group, is a %s of %llu bytes",
                         tn_collective_name(c[at].n->collective),
                         (unsigned long long)c[at].n->comm_bytes,
                         c[i].rank,
                         (unsigned long long)c[i].n->id,
                         tn_collective_name(c[i].n->collective),
                         (unsigned long long)c[i].n->comm_bytes);
                return node_error(err, traces, &c[at], what);
            }
        }
        i = end;
    }
    return TN_OK;
}

tn_status
tn_chakra_check(tn_chakra_trace* const* traces, uint32_t ranks, tn_error* err)
{
    for (uint32_t r = 0; traces && r < ranks; r++)
    {
        if (!traces[r])
        {
            return tn_error_set(err, TN_EINVAL, "tn_chakra_check: no trace for rank %u", r);
        }
    }
    return tn_chakra_check_present(traces, ranks, err);
}

tn_status
tn_chakra_check_present(tn_chakra_trace* const* traces, uint32_t ranks, tn_error* err)
{
    if (!traces || ranks == 0 || !traces[0])
    {
        return tn_error_set(err, TN_EINVAL, "tn_chakra_check: no traces");
    }
    size_t total = 0;
    for (uint32_t r = 0; r < ranks; r++)
    {
        total += traces[r] ? tn_chakra_node_count(traces[r]) : 0;
    }
    comm_entry* all = malloc((total ? total : 1) * 3 * sizeof(*all));
    if (!all)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_chakra_check: out of memory");
    }
    comm_entry* sends = all;
    comm_entry* recvs = all + total;
    comm_entry* colls = all + 2 * total;
    size_t ns = 0;
    size_t nr = 0;
    size_t nc = 0;
    tn_status s = TN_OK;
    char what[160];
    for (uint32_t r = 0; r < ranks && !s; r++)
    {
        for (uint32_t i = 0; traces[r] && i < tn_chakra_node_count(traces[r]) && !s; i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(traces[r], i);
            comm_entry e = {r, i, 0, n, 0, 0, ranks};
            if (n->kind == TN_CHAKRA_SEND || n->kind == TN_CHAKRA_RECV)
            {
                const int send = n->kind == TN_CHAKRA_SEND;
                e.src = send ? r : n->peer;
                e.dst = send ? n->peer : r;
                if (n->peer >= ranks || n->peer == r)
                {
                    snprintf(what,
                             sizeof(what),
                             "%s %u is %s",
                             send ? "comm_dst" : "comm_src",
                             n->peer,
                             n->peer == r ? "the rank itself" : "no rank of the job");
                    s = node_error(err, traces, &e, what);
                    break;
                }
                if (send)
                {
                    sends[ns++] = e;
                }
                else
                {
                    recvs[nr++] = e;
                }
            }
            else if (n->kind == TN_CHAKRA_COLLECTIVE)
            {
                int member = n->group == NULL;
                for (uint32_t m = 0; n->group && m < n->group_count; m++)
                {
                    member = member || n->group[m] == r;
                    if (n->group[m] >= ranks)
                    {
                        snprintf(what,
                                 sizeof(what),
                                 "comm_group: %u is no rank of the job (%u ranks)",
                                 n->group[m],
                                 ranks);
                        s = node_error(err, traces, &e, what);
                    }
                }
                if (!s && !member)
                {
                    snprintf(what, sizeof(what), "comm_group does not hold the rank %u", r);
                    s = node_error(err, traces, &e, what);
                }
                colls[nc++] = e;
            }
        }
    }
    if (!s)
    {
        qsort(sends, ns, sizeof(*sends), cmp_ends);
        number(sends, ns, same_ends);
        qsort(recvs, nr, sizeof(*recvs), cmp_ends);
        number(recvs, nr, same_ends);
        qsort(colls, nc, sizeof(*colls), cmp_group_order);
        number(colls, nc, same_group);
        for (comm_entry* e = all; e < all + 3 * total; e++)
        {
            if ((e < sends + ns) || (e >= recvs && e < recvs + nr) ||
                (e >= colls && e < colls + nc))
            {
                ((tn_chakra_node*)e->n)->match = e->k;
            }
        }
        qsort(sends, ns, sizeof(*sends), cmp_p2p);
        qsort(recvs, nr, sizeof(*recvs), cmp_p2p);
        s = pair_transfers(traces, sends, ns, recvs, nr, err);
    }
    if (!s)
    {
        qsort(colls, nc, sizeof(*colls), cmp_coll);
        s = match_collectives(traces, colls, nc, err);
    }
    free(all);
    return s;
}

static int
cmp_u32(const void* pa, const void* pb)
{
    const uint32_t a = *(const uint32_t*)pa;
    const uint32_t b = *(const uint32_t*)pb;
    return a < b ? -1 : a > b;
}

/* whether b's group is a's moved by image (groups are ascending; moved, a's is sorted) */
static int
same_moved_group(const tn_chakra_node* a,
                 const tn_chakra_node* b,
                 const uint32_t* image,
                 uint32_t* scratch)
{
    if (!a->group || !b->group)
    {
        return !a->group && !b->group;
    }
    if (a->group_count != b->group_count)
    {
        return 0;
    }
    for (uint32_t m = 0; m < a->group_count; m++)
    {
        scratch[m] = image[a->group[m]];
    }
    qsort(scratch, a->group_count, sizeof(*scratch), cmp_u32);
    return memcmp(scratch, b->group, a->group_count * sizeof(*scratch)) == 0;
}

static const char*
translate_differs(const tn_chakra_node* x,
                  const tn_chakra_node* y,
                  const uint32_t* image,
                  uint32_t ranks,
                  uint32_t* scratch)
{
    if (x->kind != y->kind || x->type != y->type)
    {
        return "type";
    }
    if (x->has_num_ops != y->has_num_ops || x->num_ops != y->num_ops ||
        x->tensor_size != y->tensor_size || x->duration_micros != y->duration_micros)
    {
        return "num_ops, tensor_size or duration_micros";
    }
    if (x->collective != y->collective || x->comm_bytes != y->comm_bytes || x->tag != y->tag)
    {
        return "comm_type, comm_size or comm_tag";
    }
    if ((x->kind == TN_CHAKRA_SEND || x->kind == TN_CHAKRA_RECV) &&
        (x->peer >= ranks || image[x->peer] != y->peer))
    {
        return "its peer";
    }
    if (x->kind == TN_CHAKRA_COLLECTIVE && !same_moved_group(x, y, image, scratch))
    {
        return "comm_group";
    }
    if (x->dep_count != y->dep_count || x->data_dep_count != y->data_dep_count ||
        (x->dep_count && memcmp(x->deps, y->deps, x->dep_count * sizeof(*x->deps)) != 0))
    {
        return "dependencies";
    }
    if (x->serves != y->serves || x->step != y->step)
    {
        return "what it serves or its step";
    }
    return NULL;
}

tn_status
tn_chakra_compare_translate(const tn_chakra_trace* a,
                            const tn_chakra_trace* b,
                            const uint32_t* image,
                            uint32_t ranks,
                            uint32_t* differs,
                            tn_error* err)
{
    const uint32_t count = tn_chakra_node_count(a);
    if (tn_chakra_node_count(b) != count)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s has %u nodes, %s %u (not a translate)",
                            tn_chakra_name(b),
                            tn_chakra_node_count(b),
                            tn_chakra_name(a),
                            count);
    }
    uint32_t* scratch = malloc((size_t)(ranks ? ranks : 1) * sizeof(*scratch));
    if (!scratch)
    {
        return tn_error_set(err, TN_ENOMEM, "tn_chakra_compare_translate: out of memory");
    }
    tn_status s = TN_OK;
    for (uint32_t i = 0; i < count && !s; i++)
    {
        const tn_chakra_node* x = tn_chakra_node_at(a, i);
        const tn_chakra_node* y = tn_chakra_node_at(b, i);
        const char* field = translate_differs(x, y, image, ranks, scratch);
        if (field)
        {
            s = tn_error_set(err,
                             TN_EINVAL,
                             "%s: node %llu: differs in %s from node %llu of %s moved by the "
                             "translation (not a translate)",
                             tn_chakra_name(b),
                             (unsigned long long)y->id,
                             field,
                             (unsigned long long)x->id,
                             tn_chakra_name(a));
            if (differs)
            {
                *differs = i;
            }
        }
    }
    free(scratch);
    return s;
}
