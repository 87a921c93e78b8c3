/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void*
tn_array_grow(void* items, size_t* cap, size_t need, size_t size, size_t initial)
{
    if (need <= *cap)
    {
        return items;
    }
    size_t grown = *cap ? *cap : (initial ? initial : 1);
    while (grown < need)
    {
        if (grown > SIZE_MAX / 2)
        {
            grown = need;
            break;
        }
        grown *= 2;
    }
    if (size && grown > SIZE_MAX / size)
    {
        return NULL;
    }
    void* grown_items = realloc(items, grown * size);
    if (!grown_items)
    {
        return NULL;
    }
    *cap = grown;
    return grown_items;
}

tn_status
tn_ids_push(tn_ids* l, uint32_t id, tn_error* err)
{
    uint32_t* ids = tn_array_grow(l->ids, &l->cap, (size_t)l->n + 1, sizeof(*ids), 16);
    if (!ids)
    {
        return tn_error_set(err, TN_ENOMEM, "id list: out of memory");
    }
    l->ids = ids;
    l->ids[l->n++] = id;
    return TN_OK;
}

tn_status
tn_ids_append(tn_ids* l, const tn_ids* from, tn_error* err)
{
    if (from->n == 0)
    {
        return TN_OK; /* nothing to grow for: tn_array_grow would hand back a NULL block */
    }
    uint32_t* ids = tn_array_grow(l->ids, &l->cap, (size_t)l->n + from->n, sizeof(*ids), 16);
    if (!ids)
    {
        return tn_error_set(err, TN_ENOMEM, "id list: out of memory");
    }
    l->ids = ids;
    memcpy(l->ids + l->n, from->ids, (size_t)from->n * sizeof(*ids));
    l->n += from->n;
    return TN_OK;
}

tn_status
tn_ids_copy(tn_ids* l, const tn_ids* from, tn_error* err)
{
    l->n = 0;
    return tn_ids_append(l, from, err);
}

void
tn_ids_free(tn_ids* l)
{
    free(l->ids);
    l->ids = NULL;
    l->n = 0;
    l->cap = 0;
}

struct tn_arena_chunk
{
    tn_arena_chunk* next;
    max_align_t data[]; /* aligned for any type */
};

void*
tn_arena_alloc(tn_arena* a, size_t bytes)
{
    const size_t align = TN_ARENA_ALIGN;
    const size_t at = (a->used + align - 1) / align * align;
    if (!a->chunks || at > a->cap || bytes > a->cap - at)
    {
        const size_t cap = bytes > TN_ARENA_CHUNK ? bytes : TN_ARENA_CHUNK;
        tn_arena_chunk* c =
            cap <= SIZE_MAX - sizeof(tn_arena_chunk) ? malloc(sizeof(tn_arena_chunk) + cap) : NULL;
        if (!c)
        {
            return NULL;
        }
        c->next = a->chunks;
        a->chunks = c;
        a->used = bytes;
        a->cap = cap;
        return c->data;
    }
    a->used = at + bytes;
    return (char*)a->chunks->data + at;
}

void*
tn_arena_copy(tn_arena* a, const void* src, size_t bytes)
{
    void* p = tn_arena_alloc(a, bytes);
    if (p && bytes)
    {
        memcpy(p, src, bytes);
    }
    return p;
}

void
tn_arena_free(tn_arena* a)
{
    while (a->chunks)
    {
        tn_arena_chunk* next = a->chunks->next;
        free(a->chunks);
        a->chunks = next;
    }
    a->used = 0;
    a->cap = 0;
}
