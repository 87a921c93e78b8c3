/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-memory: the core's memory guard. Planning a collective can need far more
 * memory than the machine has (a ring all-reduce on a 65536-host fat-tree is 8.6
 * billion transfers); the core estimates such sizes before allocating and refuses
 * beyond a limit, so a bad request fails with a message instead of swapping the
 * machine to a halt or being killed.
 *
 * Contract
 * --------
 *  - The default limit is half of this machine's physical memory (sysconf), or
 *    4 GiB where that is unknown. The environment variable TN_MEMORY_LIMIT (a SIZE
 *    as tn_units_parse_bytes reads it: 8GiB, 500MB, 0 = no limit) replaces it for
 *    every program built on the core; tn_plan_request.memory_limit and tn-plan's
 *    --memory-limit replace it for one plan.
 *  - Sizes are estimates of the memory a structure takes with the working memory
 *    of the verifier and the cost model (tn_schedule_memory_estimate); they are
 *    meant to be within a factor of 2 of the peak.
 *  - Nothing here keeps state: every call reads sysconf and the environment again.
 */
#ifndef TN_MEMORY_H
#define TN_MEMORY_H

#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** Physical memory of this machine in bytes, 0 if unknown. */
    uint64_t tn_memory_physical(void);

    /**
     * The default memory limit in bytes: TN_MEMORY_LIMIT when set (0 = none, returned
     * as UINT64_MAX), else half of tn_memory_physical(), else 4 GiB. A malformed
     * TN_MEMORY_LIMIT is TN_EINVAL naming the variable (*limit is then the default).
     */
    tn_status tn_memory_default_limit(uint64_t* limit, tn_error* err);

    /** "12.50 GiB", "3.00 MiB", "512 B": bytes with a binary unit, for messages. */
    const char* tn_memory_format(uint64_t bytes, char* buf, size_t size);

    /**
     * TN_OK if need <= limit, else TN_ENOMEM with "<what> would take about <need>,
     * more than the memory limit <limit> (<origin>); <change>", where origin says
     * where the limit came from (half of the machine's memory, TN_MEMORY_LIMIT) and
     * how to raise it. limit 0 means the default limit.
     */
    tn_status tn_memory_check(uint64_t need,
                              uint64_t limit,
                              const char* what,
                              const char* change,
                              tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_MEMORY_H */
