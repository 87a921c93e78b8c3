/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-array: growth of the core's dynamic arrays (private to model/core).
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

#include <stddef.h>

void* tn_array_grow(void* items, size_t* cap, size_t need, size_t size, size_t initial);

#endif /* TN_ARRAY_H */
