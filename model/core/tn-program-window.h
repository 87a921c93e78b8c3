/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-program-window: the narrowest window of a rank-local program (tn-program.h) that its
 * consumer can hold without stalling; tn-program-window.c walks the program to answer it.
 */
#ifndef TN_PROGRAM_WINDOW_H
#define TN_PROGRAM_WINDOW_H

#include "tn-error.h"
#include "tn-program.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /**
     * The narrowest program window (ops per stream) with which the program cannot stall, in
     * *out; every wider window cannot either. The consumer (Collective's program windows,
     * doc/npu-collectives.rst) cuts a rank's program into streams where no later op waits
     * for an op before the cut (always at a send that waits for nothing, otherwise once a
     * stream has `window` ops), holds `window` ops of a stream from its first op not done,
     * renews them once half of them are done, and opens the next stream when its predecessor
     * has window / 2 ops left; an op that could start while outside its window stalls the
     * run (Check() reports it). The model: while an op of step t (tn_program_op.step) is not
     * done, the ops of steps up to t + 1 may start (a send may still wait for its
     * acknowledgement when the data it carried has released the next step, and that step's
     * data arrive: on a loaded fabric a far peer's acknowledgement comes after a near peer's
     * next data), a send that waits for nothing at once, and the ops of later steps wait for
     * step t. The answer is the largest, over the ops u of the ranks, of what holds every op
     * that may start while u is not done (the last at reach R after u): R + 1 + (u's distance
     * from its stream's start) before the window's first renewal, at most max(R + 1, 2 R - 1)
     * after it, and where the consumer may cut a stream d ops after u within R, 2 d (the next
     * stream opens in time) or one more than the ops before the cut (no cut there). The model
     * is not a bound on every fabric: where a far peer's acknowledgement lags several steps
     * behind a near peer's data (fat-trees, hier systems at 64 KiB and 1 MiB), runs at flow
     * level held ops back at the answer (the service's own window takes twice it). Closed
     * forms (test/core/test-program-window.c): direct holds a chunk's whole program (4 (P - 1)
     * ops for an all-reduce of P ranks), the flat ring 5, rhd 6.
     * Cost: O(ops log ops) per rank walked: every rank of up to 64 (rhd, dbt and swing: 1,024,
     * their ranks differ), beyond a sample of the rank classes (the rings, direct, ring2d and
     * hierarchical give every rank the same pattern; rhd's ranks around its extra ones, a
     * chain's around its root); 0.2 s for direct on 16,384 ranks.
     */
    tn_status tn_program_min_window(const tn_program* p, uint32_t* out, tn_error* err);

    /**
     * The ops a consumer's first windows of `window` ops per stream hold over all ranks, as
     * its memory guard counts them before filling them: ranks x min(window, the largest
     * rank's ops, tn_program_max_ops); window 0 holds whole programs, two ops a transfer. An
     * estimate (a rank may open a second stream before its first is done), cheap: no rank is
     * generated.
     */
    uint64_t tn_program_window_ops(const tn_program* p, uint32_t window);

    /**
     * The width a consumer that picks its own window holds: max(floor, margin x least), least
     * from tn_program_min_window, at most UINT32_MAX (CollectiveService's own window: floor 64,
     * margin TN_PROGRAM_WINDOW_MARGIN; a user's window: floor it, margin 1).
     */
    uint32_t tn_program_window_width(uint32_t least, uint32_t floor, uint32_t margin);

    /**
     * A consumer's margin over tn_program_min_window's answer when it picks the window itself
     * (CollectiveService's own: this many times the least): the least is a floor, not a bound
     * (above). Swept at flow level (fat-trees, torus:8x8, a hier system; 64 KiB and 1 MiB):
     * ring-bidir on fattree:k=8 at 1 MiB held 4 ops back at its least, 764, none at 1.5 times
     * it; the flat ring needed 4 times its 5, which a window of 64 covers.
     */
    enum
    {
        TN_PROGRAM_WINDOW_MARGIN = 2
    };

#ifdef __cplusplus
}
#endif

#endif /* TN_PROGRAM_WINDOW_H */
