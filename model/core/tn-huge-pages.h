/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-huge-pages: a large simulation's memory in transparent huge pages. A packet-level
 * run at 4,096 GPUs holds 5 GiB of queue pairs, frames and programs and reaches into it
 * at random; with 4 KiB pages most of those reaches also miss the TLB. Linux backs memory
 * with 2 MiB pages on request when /sys/kernel/mm/transparent_hugepage/enabled is
 * "madvise" (Debian's default), and glibc's malloc requests them only when told at
 * start-up (the tunable glibc.malloc.hugetlb=1 of GLIBC_TUNABLES, glibc 2.35 on): a
 * running program cannot turn it on, so the program starts again with it.
 *
 * Contract
 * --------
 *  - tn_huge_pages_tunables decides, from a description of the process (no I/O): it
 *    returns the GLIBC_TUNABLES value to start again with (the old value with
 *    glibc.malloc.hugetlb=1 appended; the caller frees it), or NULL when there is nothing
 *    to gain or the user decided: the kernel's mode is not madvise (always gives huge
 *    pages anyway, never gives none), the C library is not glibc 2.35 or later, the
 *    tunables already name glibc.malloc.hugetlb (so a restarted program never restarts
 *    again), TN_HUGE_PAGES is "0", or valgrind runs the program.
 *  - tn_huge_pages_restart, given a description, sets GLIBC_TUNABLES when
 *    tn_huge_pages_tunables asks for it and executes /proc/self/exe with argv: on success
 *    it does not return. It returns TN_OK when there was nothing to do, and an error when
 *    the execution failed, GLIBC_TUNABLES then as it was (the program may go on with small
 *    pages).
 *  - tn_huge_pages_reexec is tn_huge_pages_restart of this process's own description. Call
 *    it first in main, before anything that must not happen twice (output, files, MPI);
 *    tn_huge_pages_prefer does so and says in one line on stderr why it could not.
 */
#ifndef TN_HUGE_PAGES_H
#define TN_HUGE_PAGES_H

#include "tn-error.h"

#ifdef __cplusplus
extern "C"
{
#endif

    /** What tn_huge_pages_tunables decides from; NULL fields are unknown or unset. */
    typedef struct tn_huge_pages_process
    {
        const char* thp_enabled;  /**< /sys/kernel/mm/transparent_hugepage/enabled */
        const char* libc_version; /**< gnu_get_libc_version(); NULL: not glibc */
        const char* tunables;     /**< GLIBC_TUNABLES */
        const char* opt;          /**< TN_HUGE_PAGES ("0": never) */
        int under_valgrind;       /**< valgrind runs the program */
    } tn_huge_pages_process;

    /**
     * The GLIBC_TUNABLES value to start again with (malloc'd, the caller frees it), or
     * NULL when the program should go on as it is (see the contract).
     */
    char* tn_huge_pages_tunables(const tn_huge_pages_process* process);

    /**
     * Starts the program again with argv and glibc's malloc asking for huge pages when
     * tn_huge_pages_tunables says so of process; returns TN_OK when it did not need to,
     * TN_EIO when setting GLIBC_TUNABLES or executing /proc/self/exe failed (err says why;
     * GLIBC_TUNABLES is then as it was).
     */
    tn_status tn_huge_pages_restart(const tn_huge_pages_process* process,
                                    char* const argv[],
                                    tn_error* err);

    /** tn_huge_pages_restart of this process as it is (its kernel, C library, environment). */
    tn_status tn_huge_pages_reexec(char* const argv[], tn_error* err);

    /**
     * tn_huge_pages_reexec for a program's main: when the restart fails, one line on
     * stderr ("<argv[0]'s name>: note: <why>; going on with small pages") and the program
     * goes on.
     */
    void tn_huge_pages_prefer(char* const argv[]);

#ifdef __cplusplus
}
#endif

#endif /* TN_HUGE_PAGES_H */
