/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-array: growth of the core's dynamic arrays, the one growable id list and the
 * saturating size arithmetic of the estimates (private to model/core).
 *
 * Contract: tn_array_grow(items, &cap, need, size, initial) returns a block
 * that holds at least `need` elements of `size` bytes. When *cap already
 * covers need it returns `items` unchanged; otherwise it reallocates to a
 * capacity that starts at `initial` and doubles until it covers need, and
 * writes that capacity to *cap. On size overflow or allocation failure it
 * returns NULL and leaves `items` (still valid, still the caller's) and *cap
 * untouched. Capacities are size_t so doubling never wraps: every array of
 * the core can grow until memory, not an integer type, runs out.
 *
 * Typical use:
 *     uint32_t* ids = tn_array_grow(l->ids, &l->cap, l->n + 1, sizeof(*ids), 16);
 *     if (!ids)
 *         return tn_error_set(err, TN_ENOMEM, "...: out of memory");
 *     l->ids = ids;
 */
#ifndef TN_ARRAY_H
#define TN_ARRAY_H

#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>

void* tn_array_grow(void* items, size_t* cap, size_t need, size_t size, size_t initial);

/*
 * tn_ids: a growable list of uint32 ids (transfer ids of a plan's dependencies, op
 * indices of a rank program, flows and links of the cost model). Zero-initialise it
 * ({0}), reset n = 0 to reuse it, free it with tn_ids_free. Push, append and copy fail
 * only with TN_ENOMEM (err may be NULL) and leave the list as it was.
 */
typedef struct tn_ids
{
    uint32_t* ids;
    uint32_t n;
    size_t cap;
} tn_ids;

tn_status tn_ids_push(tn_ids* l, uint32_t id, tn_error* err);
/** Append every id of `from` (which must not be l). */
tn_status tn_ids_append(tn_ids* l, const tn_ids* from, tn_error* err);
/** l := from. */
tn_status tn_ids_copy(tn_ids* l, const tn_ids* from, tn_error* err);
void tn_ids_free(tn_ids* l);

/* Saturating arithmetic for size estimates: a plan too large to count is as large as
 * UINT64_MAX, which every memory limit refuses, rather than a wrapped small number. */
static inline uint64_t
tn_sat_mul(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static inline uint64_t
tn_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * tn_arena: many small blocks freed together (the names, dependency lists and groups of a
 * Chakra trace's nodes: one malloc each cost more than the data). Blocks come from chunks
 * of at least TN_ARENA_CHUNK bytes that never move, so a pointer it gives stays valid until
 * tn_arena_free. Zero-initialise it ({0}). tn_arena_alloc returns `bytes` bytes aligned to
 * TN_ARENA_ALIGN (integers and pointers), or NULL when memory runs out (the arena is
 * unchanged); tn_arena_copy copies `bytes` bytes from src into a new block.
 */
#define TN_ARENA_CHUNK 65536
#define TN_ARENA_ALIGN 8

typedef struct tn_arena_chunk tn_arena_chunk;

typedef struct tn_arena
{
    tn_arena_chunk* chunks; /* the newest first */
    size_t used;            /* bytes used in the newest chunk */
    size_t cap;             /* its bytes */
} tn_arena;

void* tn_arena_alloc(tn_arena* a, size_t bytes);
void* tn_arena_copy(tn_arena* a, const void* src, size_t bytes);
void tn_arena_free(tn_arena* a);

#endif /* TN_ARRAY_H */
