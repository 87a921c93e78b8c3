/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra-impl: the trace's representation, private to the tn-chakra*.c files: the reader
 * (tn-chakra.c) fills it from a file, the builder (tn-chakra-build.c) node by node.
 */
#ifndef TN_CHAKRA_IMPL_H
#define TN_CHAKRA_IMPL_H

#include "tn-array.h"
#include "tn-chakra.h"

/* groups tn_chakra_add compares a new node's group with: a generated program names the
 * same few groups (its TP, DP, EP groups) on thousands of nodes */
#define RECENT_GROUPS 8

struct tn_chakra_trace
{
    char* name;
    char* version;
    tn_chakra_node* nodes;
    size_t count;
    size_t cap;
    tn_arena store; /* the nodes' names, dependency lists and groups */
    const uint32_t* recent[RECENT_GROUPS];
    uint32_t recent_count[RECENT_GROUPS];
    uint32_t recent_next;
};

/** A NUL-terminated copy of s, or NULL when memory runs out (the trace's name and version). */
char* tn_chakra_copy_text(const char* s);

#endif /* TN_CHAKRA_IMPL_H */
