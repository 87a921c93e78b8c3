/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-path: the links a transfer of a schedule crosses on a topology, shared by the
 * contention report (tn-verify.h), the cost model (tn-cost.h) and the ns-3 layer's
 * planned routing.
 *
 * Contract
 * --------
 * A transfer's links are its explicit path (tn_schedule_path) when the algorithm set
 * one, else the routed path (tn_routes_path) between the NPU nodes of its ranks, the
 * ECMP choice made by tn_transfer_flow_hash: one flow per (src, dst) rank pair, so
 * transfers between the same two ranks share a path (one queue pair per peer).
 * An explicit path is checked to be a chain of links from src's node to dst's node.
 * Errors (TN_EINVAL, message naming the transfer): a rank that is not an NPU of the
 * topology, a broken explicit path, a path longer than the caller's buffer, no
 * explicit path and no routes. Nothing is allocated; no state.
 */
#ifndef TN_PATH_H
#define TN_PATH_H

#include "tn-error.h"
#include "tn-routing.h"
#include "tn-schedule.h"
#include "tn-topology.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** ECMP flow hash of a transfer: ((uint64_t)src << 32) | dst (see contract). */
    uint64_t tn_transfer_flow_hash(const tn_transfer* t);

    /**
     * Links of transfer `id` (see contract). Writes up to cap link ids to links and the
     * hop count to *len (0 for a local op, which crosses no link). routes may be NULL
     * only if every transfer queried has an explicit path or is local.
     */
    tn_status tn_transfer_links(const tn_schedule* s,
                                uint32_t id,
                                const tn_topology* topo,
                                const tn_routes* routes,
                                uint32_t* links,
                                uint32_t cap,
                                uint32_t* len,
                                tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_PATH_H */
