/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-array.h"

#include <stdint.h>
#include <stdlib.h>

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
