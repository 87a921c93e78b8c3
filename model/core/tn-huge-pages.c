/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A large simulation's memory in transparent huge pages (contract in tn-huge-pages.h).
 */
#define _GNU_SOURCE
#include "tn-huge-pages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

static const char TN_HUGE_PAGES_TUNABLE[] = "glibc.malloc.hugetlb";

/* The kernel's mode is the bracketed word: "always [madvise] never". */
static int
tn_huge_pages_on_request(const char* thp_enabled)
{
    return thp_enabled && strstr(thp_enabled, "[madvise]") != NULL;
}

/* glibc.malloc.hugetlb came with glibc 2.35. */
static int
tn_huge_pages_libc_knows(const char* version)
{
    unsigned major = 0;
    unsigned minor = 0;
    if (!version || sscanf(version, "%u.%u", &major, &minor) != 2)
    {
        return 0;
    }
    return major > 2 || (major == 2 && minor >= 35);
}

char*
tn_huge_pages_tunables(const tn_huge_pages_process* process)
{
    const char* old = process->tunables ? process->tunables : "";
    if (!tn_huge_pages_on_request(process->thp_enabled) ||
        !tn_huge_pages_libc_knows(process->libc_version) ||
        strstr(old, TN_HUGE_PAGES_TUNABLE) != NULL ||
        (process->opt && strcmp(process->opt, "0") == 0) || process->under_valgrind)
    {
        return NULL;
    }
    const char* sep = *old ? ":" : "";
    size_t size = strlen(old) + strlen(sep) + sizeof(TN_HUGE_PAGES_TUNABLE) + 2;
    char* tunables = malloc(size);
    if (tunables)
    {
        snprintf(tunables, size, "%s%s%s=1", old, sep, TN_HUGE_PAGES_TUNABLE);
    }
    return tunables;
}

/* The first line of a small text file, or NULL. */
static char*
tn_huge_pages_read_line(const char* path, char* buf, size_t size)
{
    FILE* f = fopen(path, "r");
    if (!f)
    {
        return NULL;
    }
    char* line = fgets(buf, (int)size, f);
    fclose(f);
    return line;
}

tn_status
tn_huge_pages_restart(const tn_huge_pages_process* process, char* const argv[], tn_error* err)
{
    char* tunables = tn_huge_pages_tunables(process);
    if (!tunables)
    {
        return TN_OK;
    }
    /* the value the program goes on with if it cannot start again: its children would
     * otherwise inherit a tunable the user never set */
    const char* before = getenv("GLIBC_TUNABLES");
    char* old = before ? strdup(before) : NULL;
    if (before && !old)
    {
        free(tunables);
        return tn_error_set(err, TN_EIO, "GLIBC_TUNABLES: out of memory");
    }
    tn_status status;
    if (setenv("GLIBC_TUNABLES", tunables, 1) != 0)
    {
        status = tn_error_set(err, TN_EIO, "GLIBC_TUNABLES: %s", strerror(errno));
    }
    else
    {
        execv("/proc/self/exe", argv);
        status = tn_error_set(err,
                              TN_EIO,
                              "starting again with huge pages (/proc/self/exe): %s",
                              strerror(errno));
    }
    if (old)
    {
        setenv("GLIBC_TUNABLES", old, 1);
    }
    else
    {
        unsetenv("GLIBC_TUNABLES");
    }
    free(old);
    free(tunables);
    return status;
}

tn_status
tn_huge_pages_reexec(char* const argv[], tn_error* err)
{
    char mode[128];
    const char* preload = getenv("LD_PRELOAD");
    tn_huge_pages_process process;
    memset(&process, 0, sizeof(process));
    process.thp_enabled =
        tn_huge_pages_read_line("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof(mode));
#ifdef __GLIBC__
    process.libc_version = gnu_get_libc_version();
#endif
    process.tunables = getenv("GLIBC_TUNABLES");
    process.opt = getenv("TN_HUGE_PAGES");
    process.under_valgrind =
        getenv("VALGRIND_LAUNCHER") != NULL || (preload && strstr(preload, "vgpreload"));
    return tn_huge_pages_restart(&process, argv, err);
}

void
tn_huge_pages_prefer(char* const argv[])
{
    tn_error err;
    if (tn_huge_pages_reexec(argv, &err) != TN_OK)
    {
        const char* slash = argv[0] ? strrchr(argv[0], '/') : NULL;
        const char* name = slash ? slash + 1 : (argv[0] ? argv[0] : "training-net");
        fprintf(stderr, "%s: note: %s; going on with small pages\n", name, err.message);
    }
}
