/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the core's concept headers split out of others: each header compiles on its
 * own (this file includes nothing else of the core but the schedule and topology the
 * paths need) and keeps its contract: tn-path.h (flow hash closed form, routed and
 * explicit links, errors naming the transfer), tn-units.h (values, rounding, errors
 * naming the key), tn-signal.h (a signal becomes the pending flag, unwatch restores the
 * handler and clears it).
 */
#define _POSIX_C_SOURCE 200809L

#include "tn-test.h"

#include "ns3/tn-path.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-units.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>

static void
test_path(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec("ring:4", &t, &err) == TN_OK);
    tn_routes* routes = NULL;
    TN_REQUIRE(ctx, tn_routes_create(t, NULL, &routes, &err) == TN_OK);
    tn_schedule* s = NULL;
    TN_REQUIRE(ctx, tn_schedule_create(TN_COLL_BROADCAST, 4, 10, 0, 1, &s, &err) == TN_OK);
    tn_transfer_spec sp = {3, 1, 0, 0, 10, TN_OP_COPY, 0, -1, 0};
    TN_REQUIRE(ctx, tn_schedule_add(s, &sp, NULL, 0, NULL, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_schedule_finalize(s, &err) == TN_OK);
    TN_CHECK(ctx, tn_transfer_flow_hash(tn_schedule_transfer(s, 0)) == ((UINT64_C(3) << 32) | 1));
    uint32_t links[8];
    uint32_t len = 0;
    /* routed: two hops around the ring, a chain from NPU 3's node to NPU 1's */
    TN_CHECK_EQ(ctx, tn_transfer_links(s, 0, t, routes, links, 8, &len, &err), TN_OK);
    TN_CHECK_EQ(ctx, len, 2);
    TN_CHECK_EQ(ctx, tn_topology_link(t, links[0])->src, tn_topology_npu_node(t, 3));
    TN_CHECK_EQ(ctx, tn_topology_link(t, links[0])->dst, tn_topology_link(t, links[1])->src);
    TN_CHECK_EQ(ctx, tn_topology_link(t, links[1])->dst, tn_topology_npu_node(t, 1));
    TN_CHECK_EQ(ctx, tn_transfer_links(s, 0, t, routes, links, 1, &len, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_transfer_links(s, 0, t, NULL, links, 8, &len, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "transfer 0: no explicit path and no routes") != NULL,
                 "%s",
                 err.message);
    tn_schedule_destroy(s);
    tn_routes_destroy(routes);
    tn_topology_destroy(t);
}

static void
test_units(tn_test_ctx* ctx)
{
    tn_error err;
    uint64_t v = 0;
    TN_CHECK_EQ(ctx, tn_units_parse_rate("250G", SIZE_MAX, "rate", &v, &err), TN_OK);
    TN_CHECK(ctx, v == UINT64_C(250000000000));
    TN_CHECK_EQ(ctx, tn_units_parse_rate("2GBps", SIZE_MAX, "rate", &v, &err), TN_OK);
    TN_CHECK(ctx, v == UINT64_C(16000000000));
    TN_CHECK_EQ(ctx, tn_units_parse_time("1.5us", SIZE_MAX, "latency", &v, &err), TN_OK);
    TN_CHECK(ctx, v == 1500);
    TN_CHECK_EQ(ctx, tn_units_parse_time("0.0004us", SIZE_MAX, "latency", &v, &err), TN_OK);
    TN_CHECK(ctx, v == 0); /* rounded to whole ns */
    TN_CHECK_EQ(ctx, tn_units_parse_bytes("1.5KiB", SIZE_MAX, "--bytes", &v, &err), TN_OK);
    TN_CHECK(ctx, v == 1536);
    TN_CHECK_EQ(ctx, tn_units_parse_bytes("1.5B", SIZE_MAX, "--bytes", &v, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "--bytes") != NULL, "%s", err.message);
    TN_CHECK_EQ(ctx,
                tn_units_parse_time("99999999999999999999s", SIZE_MAX, "latency", &v, &err),
                TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "latency") != NULL, "%s", err.message);
}

static void
test_signal(tn_test_ctx* ctx)
{
    tn_error err;
    struct sigaction before;
    sigaction(SIGTERM, NULL, &before);
    TN_REQUIRE(ctx, tn_signal_watch(&err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_signal_pending(), 0);
    raise(SIGTERM);
    TN_CHECK_EQ(ctx, tn_signal_pending(), SIGTERM);
    tn_signal_unwatch();
    TN_CHECK_EQ(ctx, tn_signal_pending(), 0);
    struct sigaction after;
    sigaction(SIGTERM, NULL, &after);
    TN_CHECK(ctx, after.sa_handler == before.sa_handler);
    /* the status a shell shows for a process the signal killed: 128 + its number */
    TN_CHECK_EQ(ctx, tn_signal_exit_status(SIGINT), 128 + SIGINT);
    TN_CHECK_EQ(ctx, tn_signal_exit_status(SIGTERM), 128 + SIGTERM);
    TN_CHECK_EQ(ctx, tn_signal_exit_status(SIGTERM), 143);
    TN_CHECK_EQ(ctx, tn_signal_exit_status(0), 130);
}

void
tn_suite_split(tn_test_suite* suite)
{
    tn_test_add(suite, "path", test_path);
    tn_test_add(suite, "units", test_units);
    tn_test_add(suite, "signal", test_signal);
}
