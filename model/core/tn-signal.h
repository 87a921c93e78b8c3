/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-signal: process signals as a flag a simulation polls.
 *
 * Contract
 * --------
 * tn_signal_watch() makes SIGINT and SIGTERM set a flag (tn_signal_pending())
 * instead of killing the process, so a simulation can stop at its next check, write
 * what it recorded and finish its run as 'aborted'; a second signal of the same kind
 * kills the process as usual (SA_RESETHAND). Watches nest (a worker process watches from
 * its start, its recorder inside that): the outermost one installs the handlers and its
 * tn_signal_unwatch() restores them and clears the flag; a signal caught before an inner
 * watch began stays pending. The flag is process state (a signal handler can
 * reach nothing else): one watcher per process at a time. tn_signal_exit_status maps the
 * signal to the program's exit status (128 + the signal).
 */
#ifndef TN_SIGNAL_H
#define TN_SIGNAL_H

#include "tn-error.h"

#ifdef __cplusplus
extern "C"
{
#endif

    /**
     * Catch SIGINT and SIGTERM: the first one sets the pending flag, a second one of the
     * same kind has its default effect. \return TN_OK or TN_EINVAL with the system's reason
     */
    tn_status tn_signal_watch(tn_error* err);
    /** Restore the handlers tn_signal_watch replaced and clear the flag. */
    void tn_signal_unwatch(void);
    /** \return the signal caught since tn_signal_watch (SIGINT, SIGTERM) or 0 */
    int tn_signal_pending(void);
    /**
     * The exit status of a program a signal stopped, as a shell reports a process the
     * signal killed: 128 + the signal (130 for SIGINT, 143 for SIGTERM); 130 for 0 (an
     * interruption whose signal is not known). Every program of the module exits so.
     */
    int tn_signal_exit_status(int sig);

#ifdef __cplusplus
}
#endif

#endif /* TN_SIGNAL_H */
