/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-signal: SIGINT and SIGTERM as a flag a simulation polls (contract in tn-signal.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "tn-signal.h"

#include <signal.h>
#include <string.h>

/* The one piece of process state of the core: a signal handler can only reach globals. */
static volatile sig_atomic_t g_pending_signal = 0;
static struct sigaction g_old_int;
static struct sigaction g_old_term;
static int g_watch_depth = 0; /* nested watches: the outermost installs and restores */

static void
on_signal(int sig)
{
    g_pending_signal = sig;
}

tn_status
tn_signal_watch(tn_error* err)
{
    if (g_watch_depth > 0)
    {
        /* a watch inside a watch (a recorder inside a worker process): a signal already
         * caught stays pending */
        g_watch_depth++;
        return TN_OK;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; /* a second signal has its default effect */
    g_pending_signal = 0;
    if (sigaction(SIGINT, &sa, &g_old_int) != 0 || sigaction(SIGTERM, &sa, &g_old_term) != 0)
    {
        sigaction(SIGINT, &g_old_int, NULL);
        return tn_error_set(err, TN_EINVAL, "cannot catch SIGINT/SIGTERM");
    }
    g_watch_depth = 1;
    return TN_OK;
}

void
tn_signal_unwatch(void)
{
    if (g_watch_depth > 1)
    {
        g_watch_depth--;
        return;
    }
    if (g_watch_depth == 1)
    {
        sigaction(SIGINT, &g_old_int, NULL);
        sigaction(SIGTERM, &g_old_term, NULL);
        g_watch_depth = 0;
    }
    g_pending_signal = 0;
}

int
tn_signal_pending(void)
{
    return g_pending_signal;
}

int
tn_signal_exit_status(int sig)
{
    return 128 + (sig > 0 && sig < 128 ? sig : SIGINT);
}
