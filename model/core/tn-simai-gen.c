/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-simai-gen: the program of every rank generated from a SimAI workload (tn-simai.h has
 * the contract: groups, pipeline transfers and order).
 */
#include "tn-simai.h"

#include <stdlib.h>
#include <string.h>

struct tn_simai_program
{
    uint32_t ranks;
    tn_chakra_trace** traces;
};

/* Pipeline transfers: tags keep forward activations and backward gradients apart. */
enum
{
    TAG_ACTIVATION = 0,
    TAG_GRADIENT = 1
};

typedef struct
{
    const tn_simai_workload* wl;
    const tn_simai_header* h;
    uint32_t t, p, d;
    uint32_t* groups[5]; /* by tn_simai_group: ascending ranks (NULL: one rank, none) */
    uint32_t sizes[5];
    tn_chakra_trace* trace;
    int64_t last; /* the last blocking node; -1 none */
    tn_error* err;
} gen;

/* Append node after `dep` (data, -1 none) and, if after_last, the last blocking node. */
static tn_status
append(gen* g, tn_chakra_node* node, int64_t dep, int after_last, uint32_t* index)
{
    uint32_t deps[2];
    uint32_t n = 0;
    if (dep >= 0)
    {
        deps[n++] = (uint32_t)dep;
    }
    node->data_dep_count = n;
    if (after_last && g->last >= 0 && g->last != dep)
    {
        deps[n++] = (uint32_t)g->last;
    }
    node->deps = deps;
    node->dep_count = n;
    *index = tn_chakra_node_count(g->trace);
    return tn_chakra_add(g->trace, node, g->err);
}

static tn_status
compute(gen* g, const char* name, uint64_t ns, int64_t dep, uint32_t* index)
{
    tn_chakra_node node;
    memset(&node, 0, sizeof(node));
    node.name = name;
    node.type = TN_CHAKRA_COMP_NODE;
    node.kind = TN_CHAKRA_COMPUTE;
    node.has_num_ops = 1; /* cycles at 1 GHz and one op per cycle: nanoseconds */
    node.num_ops = ns;
    return append(g, &node, dep, 1, index);
}

static uint32_t
serves_of(tn_simai_group grp)
{
    return grp == TN_SIMAI_GROUP_TP   ? TN_SERVES_TP
           : grp == TN_SIMAI_GROUP_EP ? TN_SERVES_EP
                                      : TN_SERVES_DP;
}

/* The collective(s) of a pass after node `after`; *end is the last one (or after). */
static tn_status
collectives(gen* g, const char* name, const tn_simai_pass* pass, uint32_t after, int64_t* end)
{
    *end = after;
    if (pass->comm == TN_COMM_NONE || pass->bytes == 0 || !g->groups[pass->group])
    {
        return TN_OK;
    }
    static const tn_collective of[TN_COMM_TYPE_COUNT] = {
        TN_COLL_ALL_REDUCE,
        TN_COLL_ALL_REDUCE,
        TN_COLL_ALL_GATHER,
        TN_COLL_REDUCE_SCATTER,
        TN_COLL_ALL_TO_ALL,
        TN_COLL_ALL_REDUCE,
    };
    for (int k = 0; k < (pass->comm == TN_COMM_ALLREDUCE_ALLTOALL ? 2 : 1); k++)
    {
        tn_chakra_node node;
        memset(&node, 0, sizeof(node));
        node.name = name;
        node.type = TN_CHAKRA_COMM_COLL_NODE;
        node.kind = TN_CHAKRA_COLLECTIVE;
        node.collective = k ? TN_COLL_ALL_TO_ALL : of[pass->comm];
        node.comm_bytes = pass->bytes;
        node.group = g->groups[pass->group];
        node.group_count = g->sizes[pass->group];
        node.serves = serves_of(pass->group);
        uint32_t i;
        tn_status st = append(g, &node, *end, 0, &i);
        if (st != TN_OK)
        {
            return st;
        }
        *end = i;
    }
    return TN_OK;
}

/* A pipeline send (send = 1) or receive with the rank of stage `stage`. */
static tn_status
transfer(gen* g, int send, uint32_t stage, uint64_t tag, uint32_t* index)
{
    tn_chakra_node node;
    memset(&node, 0, sizeof(node));
    node.name = send ? "pp-send" : "pp-recv";
    node.type = send ? TN_CHAKRA_COMM_SEND_NODE : TN_CHAKRA_COMM_RECV_NODE;
    node.kind = send ? TN_CHAKRA_SEND : TN_CHAKRA_RECV;
    node.comm_bytes = g->h->pp_comm;
    node.peer = tn_simai_rank_of(g->h, g->t, stage, g->d);
    node.tag = tag;
    node.serves = TN_SERVES_PP;
    return append(g, &node, -1, 1, index);
}

static tn_status
forward(gen* g, uint32_t chunk)
{
    const tn_simai_header* h = g->h;
    const uint32_t L = tn_simai_layer_count(g->wl);
    const uint32_t v = chunk * h->pp + g->p;
    const int pipelined = h->pp > 1;
    uint32_t i;
    int64_t dep = -1;
    tn_status st = TN_OK;
    if (pipelined && v > 0)
    {
        st = transfer(g, 0, (v - 1) % h->pp, TAG_ACTIVATION, &i);
        dep = i;
    }
    for (uint32_t l = chunk * L / h->vpp; st == TN_OK && l < (chunk + 1) * L / h->vpp; l++)
    {
        const tn_simai_layer* layer = tn_simai_layer_at(g->wl, l);
        int64_t end;
        st = compute(g, layer->name, layer->pass[TN_SIMAI_FWD].compute_ns, dep, &i);
        dep = -1;
        g->last = i;
        if (st == TN_OK)
        {
            st = collectives(g, layer->name, &layer->pass[TN_SIMAI_FWD], i, &end);
            g->last = end;
        }
    }
    if (st == TN_OK && pipelined && v + 1 < h->pp * h->vpp)
    {
        st = transfer(g, 1, (v + 1) % h->pp, TAG_ACTIVATION, &i);
    }
    return st;
}

static tn_status
backward(gen* g, uint32_t chunk, int last_mb)
{
    const tn_simai_header* h = g->h;
    const uint32_t L = tn_simai_layer_count(g->wl);
    const uint32_t v = chunk * h->pp + g->p;
    const int pipelined = h->pp > 1;
    uint32_t i;
    int64_t dep = -1;
    tn_status st = TN_OK;
    if (pipelined && v + 1 < h->pp * h->vpp)
    {
        st = transfer(g, 0, (v + 1) % h->pp, TAG_GRADIENT, &i);
        dep = i;
    }
    for (uint32_t l = (chunk + 1) * L / h->vpp; st == TN_OK && l-- > chunk * L / h->vpp;)
    {
        const tn_simai_layer* layer = tn_simai_layer_at(g->wl, l);
        int64_t end;
        st = compute(g, layer->name, layer->pass[TN_SIMAI_IG].compute_ns, dep, &i);
        dep = -1;
        g->last = i;
        if (st == TN_OK)
        {
            st = collectives(g, layer->name, &layer->pass[TN_SIMAI_IG], i, &end);
            g->last = end;
        }
        if (st == TN_OK)
        {
            st = compute(g, layer->name, layer->pass[TN_SIMAI_WG].compute_ns, -1, &i);
            g->last = i;
        }
        if (st == TN_OK && last_mb)
        {
            st = collectives(g, layer->name, &layer->pass[TN_SIMAI_WG], i, &end);
            if (st == TN_OK && layer->update_ns > 0)
            {
                tn_chakra_node node;
                memset(&node, 0, sizeof(node));
                node.name = layer->name;
                node.type = TN_CHAKRA_COMP_NODE;
                node.kind = TN_CHAKRA_COMPUTE;
                node.has_num_ops = 1;
                node.num_ops = layer->update_ns;
                node.serves = TN_SERVES_DP;
                st = append(g, &node, end, 0, &i);
            }
        }
    }
    if (st == TN_OK && pipelined && v > 0)
    {
        st = transfer(g, 1, (v - 1) % h->pp, TAG_GRADIENT, &i);
    }
    return st;
}

/* The ranks of rank (t, p, d)'s group of kind k, ascending; NULL for a group of one. */
static tn_status
make_group(gen* g, tn_simai_group k)
{
    const tn_simai_header* h = g->h;
    const uint32_t D = h->all_gpus / (h->tp * h->pp);
    const uint32_t e = g->d % h->ep;
    const uint32_t x = g->d / h->ep;
    const uint32_t n = k == TN_SIMAI_GROUP_TP   ? h->tp
                       : k == TN_SIMAI_GROUP_DP ? D
                       : k == TN_SIMAI_GROUP_EP ? h->ep
                                                : D / h->ep;
    g->sizes[k] = n;
    if (n < 2)
    {
        return TN_OK;
    }
    uint32_t* r = malloc(n * sizeof(*r));
    if (!r)
    {
        return tn_error_set(g->err, TN_ENOMEM, "simai: out of memory");
    }
    for (uint32_t j = 0; j < n; j++)
    {
        /* each member list grows with j, so it is ascending */
        r[j] = k == TN_SIMAI_GROUP_TP   ? tn_simai_rank_of(h, j, g->p, g->d)
               : k == TN_SIMAI_GROUP_DP ? tn_simai_rank_of(h, g->t, g->p, j)
               : k == TN_SIMAI_GROUP_EP ? tn_simai_rank_of(h, g->t, g->p, j + h->ep * x)
                                        : tn_simai_rank_of(h, g->t, g->p, e + h->ep * j);
    }
    g->groups[k] = r;
    return TN_OK;
}

static tn_status
rank_program(const tn_simai_workload* wl, uint32_t rank, tn_chakra_trace** out, tn_error* err)
{
    gen g;
    memset(&g, 0, sizeof(g));
    g.wl = wl;
    g.h = tn_simai_header_of(wl);
    g.err = err;
    g.last = -1;
    g.t = rank % g.h->tp;
    g.p = rank / g.h->tp % g.h->pp;
    g.d = rank / (g.h->tp * g.h->pp);
    char name[160];
    snprintf(name, sizeof(name), "%s rank %u", tn_simai_name(wl), rank);
    tn_status st = tn_chakra_create(name, &g.trace, err);
    for (int k = TN_SIMAI_GROUP_TP; st == TN_OK && k <= TN_SIMAI_GROUP_DP_EP; k++)
    {
        st = make_group(&g, (tn_simai_group)k);
    }
    for (uint32_t mb = 0; st == TN_OK && mb < g.h->ga; mb++)
    {
        for (uint32_t c = 0; st == TN_OK && c < g.h->vpp; c++)
        {
            st = forward(&g, c);
        }
    }
    for (uint32_t mb = 0; st == TN_OK && mb < g.h->ga; mb++)
    {
        for (uint32_t c = g.h->vpp; st == TN_OK && c-- > 0;)
        {
            st = backward(&g, c, mb + 1 == g.h->ga);
        }
    }
    for (int k = 0; k < 5; k++)
    {
        free(g.groups[k]);
    }
    if (st != TN_OK)
    {
        tn_chakra_destroy(g.trace);
        g.trace = NULL;
    }
    *out = g.trace;
    return st;
}

tn_status
tn_simai_program_create(const tn_simai_workload* wl,
                        uint32_t npus,
                        tn_simai_program** out,
                        tn_error* err)
{
    *out = NULL;
    tn_status st = tn_simai_check(wl, npus, err);
    if (st != TN_OK)
    {
        return st;
    }
    tn_simai_program* prog = calloc(1, sizeof(*prog));
    if (!prog || !(prog->traces = calloc(npus, sizeof(*prog->traces))))
    {
        free(prog);
        return tn_error_set(err, TN_ENOMEM, "simai: out of memory");
    }
    prog->ranks = npus;
    for (uint32_t r = 0; st == TN_OK && r < npus; r++)
    {
        st = rank_program(wl, r, &prog->traces[r], err);
    }
    if (st == TN_OK)
    {
        st = tn_chakra_check(prog->traces, npus, err);
    }
    if (st != TN_OK)
    {
        tn_simai_program_destroy(prog);
        return st;
    }
    *out = prog;
    return TN_OK;
}

void
tn_simai_program_destroy(tn_simai_program* program)
{
    if (program)
    {
        for (uint32_t r = 0; r < program->ranks; r++)
        {
            tn_chakra_destroy(program->traces[r]);
        }
        free(program->traces);
        free(program);
    }
}

uint32_t
tn_simai_program_ranks(const tn_simai_program* program)
{
    return program->ranks;
}

tn_chakra_trace* const*
tn_simai_program_traces(const tn_simai_program* program)
{
    return program->traces;
}
