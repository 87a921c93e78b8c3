/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Compressed sparse rows whose equal rows share their ids (contract in tn-csr.h).
 */
#include "tn-csr.h"

#include <stdlib.h>
#include <string.h>

static uint64_t
hash_row(const uint32_t* v, uint32_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (uint32_t k = 0; k < n; k++)
    {
        h = (h ^ v[k]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
    }
    return h;
}

bool
tn_csr_share_rows(uint32_t n, uint32_t* index, uint32_t** ids, uint32_t** len_out)
{
    size_t slots = 16;
    while (slots < 2 * (size_t)n)
    {
        slots *= 2;
    }
    uint32_t* len = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* table = malloc(slots * sizeof(uint32_t)); /* a row kept, or UINT32_MAX */
    if (!len || !table)
    {
        free(len);
        free(table);
        return false;
    }
    memset(table, 0xff, slots * sizeof(uint32_t));
    uint32_t* v = *ids;
    uint32_t kept = 0;
    uint32_t next = index[0];
    for (uint32_t i = 0; i < n; i++)
    {
        const uint32_t begin = next;
        next = index[i + 1];
        len[i] = next - begin;
        index[i] = 0;
        if (len[i] == 0)
        {
            continue;
        }
        size_t p = hash_row(v + begin, len[i]) & (slots - 1);
        while (table[p] != UINT32_MAX &&
               (len[table[p]] != len[i] ||
                memcmp(v + index[table[p]], v + begin, len[i] * sizeof(uint32_t)) != 0))
        {
            p = (p + 1) & (slots - 1);
        }
        if (table[p] != UINT32_MAX)
        {
            index[i] = index[table[p]];
            continue;
        }
        memmove(v + kept, v + begin, len[i] * sizeof(uint32_t)); /* kept <= begin */
        index[i] = kept;
        kept += len[i];
        table[p] = i;
    }
    free(table);
    uint32_t* shrunk = realloc(v, (kept ? kept : 1) * sizeof(uint32_t));
    if (shrunk)
    {
        *ids = shrunk;
    }
    *len_out = len;
    return true;
}
