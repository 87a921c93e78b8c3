/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The core's memory guard (contract in tn-memory.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "tn-memory.h"

#include "tn-topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t
tn_memory_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0)
    {
        return 0;
    }
    return (uint64_t)pages * (uint64_t)page;
}

static uint64_t
tn_memory_machine_limit(void)
{
    uint64_t phys = tn_memory_physical();
    return phys ? phys / 2 : UINT64_C(4) << 30;
}

tn_status
tn_memory_default_limit(uint64_t* limit, tn_error* err)
{
    *limit = tn_memory_machine_limit();
    const char* env = getenv("TN_MEMORY_LIMIT");
    if (!env || !*env)
    {
        return TN_OK;
    }
    uint64_t v = 0;
    if (tn_units_parse_bytes(env, SIZE_MAX, "TN_MEMORY_LIMIT", &v, err))
    {
        return TN_EINVAL;
    }
    *limit = v ? v : UINT64_MAX;
    return TN_OK;
}

const char*
tn_memory_format(uint64_t bytes, char* buf, size_t size)
{
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024)
    {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 5)
    {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.2f %s", v, units[u]);
    return buf;
}

tn_status
tn_memory_check(uint64_t need, uint64_t limit, const char* what, const char* change, tn_error* err)
{
    const char* origin = "set by the caller";
    uint64_t fallback = 0;
    tn_error ignored;
    if (tn_memory_default_limit(&fallback, limit == 0 ? err : &ignored) && limit == 0)
    {
        return TN_EINVAL;
    }
    if (limit == 0 || limit == fallback)
    {
        limit = fallback;
        const char* env = getenv("TN_MEMORY_LIMIT");
        origin = env && *env ? "set by TN_MEMORY_LIMIT or --memory-limit"
                             : "half of this machine's memory; raise it with TN_MEMORY_LIMIT "
                               "or --memory-limit";
    }
    if (need <= limit)
    {
        return TN_OK;
    }
    char a[32], b[32];
    return tn_error_set(err,
                        TN_ENOMEM,
                        "%s would take about %s, more than the memory limit %s (%s); %s",
                        what,
                        tn_memory_format(need, a, sizeof(a)),
                        tn_memory_format(limit, b, sizeof(b)),
                        origin,
                        change);
}
