/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-fluid: the fluid engine. Flows cross directed links whose capacities they share max-min
 * fairly (progressive filling); rates change only when flows start or end. The cost model
 * (tn-cost, TN_COST_FLUID) and the flow level of the ns-3 layer (FlowNetwork) both run on it,
 * so that a plan's estimate and a flow-level simulation share one arithmetic.
 *
 * Contract
 * --------
 *  - tn_fluid_create(link_count, capacity) takes the capacity of every link in bit/ns
 *    (copied). A flow is a number of bits on a non-empty list of links (copied at start; a
 *    link may appear more than once, it then counts the flow that many times) and a caller's
 *    tag. While active it holds every link of its list at once at its rate.
 *  - tn_fluid_start and tn_fluid_end change the set of flows at an instant `now`; the rates
 *    stay as they were until tn_fluid_update(now), which sets the max-min fair rates of every
 *    flow: it recomputes the flows of the links touched since the last update whose rates may
 *    change, then the flows those changes make wrong (below); the others keep their rates and
 *    their finish times. Callers batch every start and end of one
 *    instant before one update, so flows of one instant cost one recomputation. Nothing is
 *    recomputed when nothing was touched (tn_fluid_dirty).
 *  - Filling: a link's share is its capacity left over its flows not yet frozen; the link of
 *    the smallest share (ties: smaller link id) freezes its flows at that share (at least
 *    1e-9 of its capacity, so that rounding never stalls a flow), in the order they joined it.
 *    A flow of rate r (bit/ns) with b bits left at time u finishes at u + b / r.
 *  - tn_fluid_next gives the active flow that finishes first (ties: smaller tag) after the
 *    last update, without removing it: the caller ends it with tn_fluid_end. Ending a flow at
 *    `end` <= now takes it off its links at once; link counters stop counting it at `end`.
 *    Ending it before its end (`end` > now: a caller that ends the flows of a short window
 *    together) counts the bits it had left on its links at once, so every bit is carried.
 *  - tn_fluid_link_bits(link, now): bits carried by the link up to now (the integral of its
 *    flows' rates); it changes only while the link holds a flow (tn_fluid_link_flows > 0; a
 *    flow ended later than its bits stopped takes back, at its end, what it counted since).
 *  - Flow ids are the engine's (reused after tn_fluid_end); tags are the caller's and only
 *    order simultaneous finishes. Deterministic: the same calls give the same rates and times.
 *  - Errors: TN_EINVAL for an empty list, a link out of range or bits <= 0; TN_ENOMEM. After
 *    an error the engine is still valid; the failed start added nothing.
 *
 * How it is computed (may change without changing the results above): a stamp marks the
 * flows recomputed and their links; progressive filling freezes flows in the order of their
 * rates, so the flows whose rate is below every ended flow's rate and below the first share
 * (capacity over flows) of every started flow's links are those a new filling would freeze
 * first, at the same rates: they keep them and hold their links' capacity. The touched links'
 * other flows are filled again from the capacity the others leave. Max-min rates are the
 * feasible ones in which every flow has a bottleneck (a saturated link where no flow runs
 * faster: the link that froze it, its neck), so a held flow that this fill leaves without one,
 * or that runs faster than a filled flow on that flow's neck, joins the filling, which is
 * repeated until none does: a recomputation stops where rates stop changing, however far the
 * flows are connected. A link whose flows' slowest links' capacities sum below its own (a
 * slack link: a server's fast switch port under slower rails) is never filled nor checked.
 * With tn_fluid_set_whole every flow connected to the touched links through shared links
 * (slack links too) is filled instead, so that the count of visited flows is the whole
 * component's (the cost model's budget). The filling pops links from a heap holding one
 * (share, link) entry per link, updated in place; a heap of (finish, tag, version) entries is
 * invalidated lazily. core/fluid checks the rates of random instances against a plain
 * progressive filling.
 */
#ifndef TN_FLUID_H
#define TN_FLUID_H

#include "tn-error.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    typedef struct tn_fluid tn_fluid;

    /** capacity[link_count] in bit/ns (> 0 for a link that carries flows). */
    tn_status tn_fluid_create(uint32_t link_count,
                              const double* capacity,
                              tn_fluid** out,
                              tn_error* err);
    void tn_fluid_destroy(tn_fluid* f);

    /** A flow of `bits` on links[count] joins its links at `now`; *id names it. */
    tn_status tn_fluid_start(tn_fluid* f,
                             const uint32_t* links,
                             uint32_t count,
                             double bits,
                             double now,
                             uint32_t tag,
                             uint32_t* id,
                             tn_error* err);

    /** Flow `id` leaves its links at `now`; its bits stopped crossing at `end` (<= now). */
    void tn_fluid_end(tn_fluid* f, uint32_t id, double end, double now);

    /** Recompute every flow connected to the touched links at each update (true), through
     *  slack links too, not only those whose rates may change: the same rates (within
     *  rounding), more work; tn-cost's budget counts that work. */
    void tn_fluid_set_whole(tn_fluid* f, bool whole);

    /** true when flows started or ended since the last update */
    bool tn_fluid_dirty(const tn_fluid* f);

    /** Max-min fair rates at `now` around the links touched since the last update. */
    tn_status tn_fluid_update(tn_fluid* f, double now, tn_error* err);

    /** The active flow that finishes first: false when none. Any pointer may be NULL. */
    bool tn_fluid_next(tn_fluid* f, double* time, uint32_t* id, uint32_t* tag);

    /** rate of active flow `id`, bit/ns */
    double tn_fluid_rate(const tn_fluid* f, uint32_t id);

    /** bits carried by `link` up to `now` (>= the time of the last call that changed rates) */
    double tn_fluid_link_bits(const tn_fluid* f, uint32_t link, double now);

    /**
     * When `link` last carried bits: `now` while a flow crosses it, else the time its last
     * flow left it; -1 when no flow ever did.
     */
    double tn_fluid_link_active_at(const tn_fluid* f, uint32_t link, double now);

    /**
     * Flows on `link` now, started ones whose rate the next update sets included: a link
     * with none carries no bits until a flow starts on it (a sampler skips it).
     */
    uint32_t tn_fluid_link_flows(const tn_fluid* f, uint32_t link);

    /** flows active now */
    uint32_t tn_fluid_active(const tn_fluid* f);

    /** updates that recomputed rates, and flows whose rate they recomputed (summed; with
     *  tn_fluid_set_whole, every flow of the components) */
    uint64_t tn_fluid_updates(const tn_fluid* f);
    uint64_t tn_fluid_visited(const tn_fluid* f);

#ifdef __cplusplus
}
#endif

#endif /* TN_FLUID_H */
