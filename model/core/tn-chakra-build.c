/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra-build: a trace's accessors and the in-memory builder of generated programs
 * (tn_chakra_create, tn_chakra_add; tn-chakra.h), which work without protobuf-c.
 */
#include "tn-chakra-impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void
tn_chakra_destroy(tn_chakra_trace* trace)
{
    if (!trace)
    {
        return;
    }
    tn_arena_free(&trace->store);
    free(trace->nodes);
    free(trace->name);
    free(trace->version);
    free(trace);
}

const char*
tn_chakra_name(const tn_chakra_trace* trace)
{
    return trace->name;
}

const char*
tn_chakra_version(const tn_chakra_trace* trace)
{
    return trace->version ? trace->version : "";
}

uint32_t
tn_chakra_node_count(const tn_chakra_trace* trace)
{
    return (uint32_t)trace->count;
}

const tn_chakra_node*
tn_chakra_node_at(const tn_chakra_trace* trace, uint32_t i)
{
    assert(i < trace->count);
    return &trace->nodes[i];
}

const char*
tn_chakra_serves_name(uint32_t serves)
{
    static const char* const names[TN_SERVES_COUNT] = {"", "tp", "pp", "dp", "ep"};
    return serves < TN_SERVES_COUNT ? names[serves] : "?";
}

char*
tn_chakra_copy_text(const char* s)
{
    size_t n = strlen(s) + 1;
    char* c = malloc(n);
    if (c)
    {
        memcpy(c, s, n);
    }
    return c;
}

tn_status
tn_chakra_create(const char* name, tn_chakra_trace** out, tn_error* err)
{
    *out = NULL;
    tn_chakra_trace* t = calloc(1, sizeof(*t));
    if (!t || !(t->name = tn_chakra_copy_text(name ? name : "<trace>")) ||
        !(t->version = tn_chakra_copy_text("")))
    {
        tn_chakra_destroy(t);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name ? name : "<trace>");
    }
    *out = t;
    return TN_OK;
}

/* a copy of group in the trace's store, or a recent node's equal one; NULL: no memory */
static const uint32_t*
shared_group(tn_chakra_trace* trace, const uint32_t* group, uint32_t count)
{
    for (uint32_t k = 0; k < RECENT_GROUPS; k++)
    {
        if (trace->recent[k] && trace->recent_count[k] == count &&
            memcmp(trace->recent[k], group, count * sizeof(*group)) == 0)
        {
            return trace->recent[k];
        }
    }
    const uint32_t* copy = tn_arena_copy(&trace->store, group, count * sizeof(*group));
    if (copy)
    {
        trace->recent[trace->recent_next] = copy;
        trace->recent_count[trace->recent_next] = count;
        trace->recent_next = (trace->recent_next + 1) % RECENT_GROUPS;
    }
    return copy;
}

tn_status
tn_chakra_add(tn_chakra_trace* trace, const tn_chakra_node* node, tn_error* err)
{
    for (uint32_t k = 0; k < node->dep_count; k++)
    {
        if (node->deps[k] >= trace->count)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "%s: node %zu: dependency %u is not an earlier node",
                                trace->name,
                                trace->count,
                                node->deps[k]);
        }
    }
    tn_chakra_node* nodes =
        trace->count < UINT32_MAX
            ? tn_array_grow(trace->nodes, &trace->cap, trace->count + 1, sizeof(*nodes), 64)
            : NULL;
    if (!nodes)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", trace->name);
    }
    trace->nodes = nodes;
    tn_chakra_node copy = *node;
    copy.id = trace->count;
    const char* name = node->name ? node->name : "";
    copy.name = tn_arena_copy(&trace->store, name, strlen(name) + 1);
    copy.deps =
        node->dep_count
            ? tn_arena_copy(&trace->store, node->deps, node->dep_count * sizeof(*node->deps))
            : NULL;
    copy.group = node->group_count ? shared_group(trace, node->group, node->group_count) : NULL;
    if (!copy.name || (node->dep_count && !copy.deps) || (node->group_count && !copy.group))
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", trace->name);
    }
    trace->nodes[trace->count++] = copy;
    return TN_OK;
}
