/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of tn-hpcc-files: flow files read against a topology, both topology headers, lines
 * after the announced counts, config entries, and errors that name file:line.
 */
#include "tn-test.h"

#include "ns3/tn-hpcc-files.h"

#include <string.h>

/* 2 NPUs (0, 1) on switch 2 */
static const char* const TOPO = "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n";

static tn_topology*
topo_of(tn_test_ctx* ctx)
{
    tn_topology* t = NULL;
    tn_error err;
    tn_status s = tn_topology_load_text(TOPO, "t.txt", &t, &err);
    TN_CHECK_MSG(ctx, s == TN_OK, "topology: %s", s ? err.message : "");
    return t;
}

static void
test_flows(tn_test_ctx* ctx)
{
    tn_topology* t = topo_of(ctx);
    TN_REQUIRE(ctx, t != NULL);
    tn_hpcc_flows* f = NULL;
    tn_error err;
    /* blank lines, CRLF, padding zeros; 2.5 us */
    tn_status s = tn_hpcc_flows_load_text("\n2\r\n0 1 3 100 1000 0.0000025\n\n1 0 07 65535 0 1\n",
                                          "f.txt",
                                          t,
                                          0,
                                          &f,
                                          &err);
    TN_REQUIRE_MSG(ctx, s == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, f->count, 2);
    TN_CHECK_EQ(ctx, f->flow[0].src, 0);
    TN_CHECK_EQ(ctx, f->flow[0].dst, 1);
    TN_CHECK_EQ(ctx, f->flow[0].priority, 3);
    TN_CHECK_EQ(ctx, f->flow[0].dport, 100);
    TN_CHECK_EQ(ctx, f->flow[0].bytes, 1000);
    TN_CHECK_EQ(ctx, f->flow[0].start_ns, 2500);
    TN_CHECK_EQ(ctx, f->flow[0].line, 3);
    TN_CHECK_EQ(ctx, f->flow[1].priority, 7);
    TN_CHECK_EQ(ctx, f->flow[1].dport, 65535);
    TN_CHECK_EQ(ctx, f->flow[1].start_ns, 1000000000);
    TN_CHECK_EQ(ctx, f->flow[1].line, 5);
    TN_CHECK_EQ(ctx, f->trailing.first_line, 0);
    tn_hpcc_flows_destroy(f);

    /* lines after the count: an error, or skipped and described */
    const char* extra = "1\n0 1 3 100 1000 0\nnote\n\nmore\n";
    s = tn_hpcc_flows_load_text(extra, "f.txt", t, 0, &f, &err);
    TN_CHECK(ctx, s == TN_EPARSE && f == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "f.txt:3: more flow lines than the 1 announced"),
                 "%s",
                 err.message);
    s = tn_hpcc_flows_load_text(extra, "f.txt", t, 1, &f, &err);
    TN_REQUIRE(ctx, s == TN_OK);
    TN_CHECK_EQ(ctx, f->count, 1);
    TN_CHECK_EQ(ctx, f->trailing.first_line, 3);
    TN_CHECK_EQ(ctx, f->trailing.last_line, 5);
    TN_CHECK_EQ(ctx, f->trailing.announced, 1);
    tn_hpcc_flows_destroy(f);
    tn_topology_destroy(t);
}

static void
expect_flow_error(tn_test_ctx* ctx, const tn_topology* t, const char* text, const char* what)
{
    tn_hpcc_flows* f = NULL;
    tn_error err;
    tn_status s = tn_hpcc_flows_load_text(text, "f.txt", t, 0, &f, &err);
    TN_CHECK_MSG(ctx, s == TN_EPARSE && f == NULL, "'%s' accepted", text);
    TN_CHECK_MSG(ctx,
                 s && strstr(err.message, what),
                 "'%s': '%s' lacks '%s'",
                 text,
                 err.message,
                 what);
}

static void
test_flow_errors(tn_test_ctx* ctx)
{
    tn_topology* t = topo_of(ctx);
    TN_REQUIRE(ctx, t != NULL);
    expect_flow_error(ctx, t, "", "f.txt:1: empty flow file");
    expect_flow_error(ctx, t, "\n\n", "f.txt:2: empty flow file");
    expect_flow_error(ctx, t, "1 2\n", "f.txt:1: first line must hold the number of flows only");
    expect_flow_error(ctx, t, "x\n", "f.txt:1: number of flows 'x'");
    expect_flow_error(ctx, t, "1\n0 1 3 100 1000\n", "f.txt:2: expected 6 fields");
    expect_flow_error(ctx,
                      t,
                      "1\n0 9 3 100 1000 0\n",
                      "f.txt:2: dst node 9 out of range (3 nodes)");
    expect_flow_error(ctx, t, "1\n2 1 3 100 1000 0\n", "f.txt:2: src node 2 is a switch");
    expect_flow_error(ctx, t, "1\nx 1 3 100 1000 0\n", "f.txt:2: src 'x' is not a node id");
    expect_flow_error(ctx, t, "1\n1 1 3 100 1000 0\n", "f.txt:2: src and dst are the same node 1");
    expect_flow_error(ctx, t, "1\n0 1 8 100 1000 0\n", "f.txt:2: priority '8'");
    expect_flow_error(ctx, t, "1\n0 1 3 65536 1000 0\n", "f.txt:2: dst_port '65536'");
    expect_flow_error(ctx, t, "1\n0 1 3 100 1e3 0\n", "f.txt:2: size_bytes '1e3'");
    expect_flow_error(ctx, t, "1\n0 1 3 100 1000 -1\n", "f.txt:2: start_seconds '-1'");
    expect_flow_error(ctx, t, "1\n0 1 3 100 1000 inf\n", "f.txt:2: start_seconds 'inf'");
    expect_flow_error(ctx, t, "1\n0 1 3 100 1000 2e6\n", "f.txt:2: start_seconds '2e6'");
    expect_flow_error(ctx,
                      t,
                      "3\n0 1 3 100 1000 0\n",
                      "f.txt:2: file ends after 1 flows, 3 announced");
    /* a huge announced count allocates nothing up front */
    expect_flow_error(ctx, t, "4294967295\n0 1 3 100 1000 0\n", "file ends after 1 flows");

    tn_hpcc_flows* f = NULL;
    tn_error err;
    TN_CHECK(ctx, tn_hpcc_flows_load("/nonexistent/flows.txt", t, 0, &f, &err) == TN_EIO);
    TN_CHECK(ctx, strstr(err.message, "/nonexistent/flows.txt: cannot open") != NULL);
    tn_topology_destroy(t);
}

static void
test_topology(tn_test_ctx* ctx)
{
    tn_topology* t = NULL;
    uint32_t tors = 99;
    tn_hpcc_trailing tr;
    tn_error err;
    /* the 4-number header gives the topology of the 3-number one */
    tn_status s = tn_hpcc_topology_load_text("\n3 1 1 2\n2\n0 2 100Gbps 1us 0\n1 2 25Gbps 2us 0\n",
                                             "t4.txt",
                                             0,
                                             &t,
                                             &tors,
                                             &tr,
                                             &err);
    TN_REQUIRE_MSG(ctx, s == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tors, 1);
    TN_CHECK_EQ(ctx, tn_topology_node_count(t), 3);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 4);
    TN_CHECK_EQ(ctx, tn_topology_node_kind(t, 2), TN_NODE_SWITCH);
    TN_CHECK_EQ(ctx, tr.first_line, 0);
    tn_topology_destroy(t);

    s = tn_hpcc_topology_load_text(TOPO, "t3.txt", 0, &t, &tors, &tr, &err);
    TN_REQUIRE_MSG(ctx, s == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tors, 0);
    tn_topology_destroy(t);

    /* N_ToRs above N_switches, with its line */
    s = tn_hpcc_topology_load_text("\n8 4 5 8\n4 5 6 7\n", "bad.txt", 0, &t, &tors, &tr, &err);
    TN_CHECK(ctx, s == TN_EPARSE && t == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "bad.txt:2: N_ToRs 5 is more than N_switches 4"),
                 "%s",
                 err.message);

    /* the core's errors keep the file's line numbers after the header is rewritten */
    s = tn_hpcc_topology_load_text("3 1 1 2\n2\n0 2 100Gbps 1us 0\n1 2 fast 1us 0\n",
                                   "rate.txt",
                                   0,
                                   &t,
                                   &tors,
                                   &tr,
                                   &err);
    TN_CHECK(ctx, s == TN_EPARSE);
    TN_CHECK_MSG(ctx, strstr(err.message, "rate.txt:4:") != NULL, "%s", err.message);

    /* lines after the announced links: an error, or skipped */
    const char* extra = "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n\nnote\nmore\n";
    s = tn_hpcc_topology_load_text(extra, "x.txt", 0, &t, &tors, &tr, &err);
    TN_CHECK(ctx, s == TN_EPARSE && t == NULL);
    s = tn_hpcc_topology_load_text(extra, "x.txt", 1, &t, &tors, &tr, &err);
    TN_REQUIRE_MSG(ctx, s == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tr.first_line, 6);
    TN_CHECK_EQ(ctx, tr.last_line, 7);
    TN_CHECK_EQ(ctx, tr.announced, 2);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 4);
    tn_topology_destroy(t);
}

static void
test_config(tn_test_ctx* ctx)
{
    tn_hpcc_config* c = NULL;
    tn_error err;
    tn_status s =
        tn_hpcc_config_load_text("# comment\nENABLE_QCN 1\n\n  KMAX_MAP 2 25000000000 400 "
                                 "100000000000 1600\r\nLINK_DOWN 0 0 0\nFLAG\n",
                                 "c.txt",
                                 &c,
                                 &err);
    TN_REQUIRE_MSG(ctx, s == TN_OK, "%s", err.message);
    TN_REQUIRE(ctx, c->count == 4);
    TN_CHECK(ctx, strcmp(c->entry[0].key, "ENABLE_QCN") == 0);
    TN_CHECK_EQ(ctx, c->entry[0].line, 2);
    TN_CHECK_EQ(ctx, c->entry[0].value_count, 1);
    TN_CHECK(ctx, strcmp(c->entry[0].values[0], "1") == 0);
    TN_CHECK(ctx, strcmp(c->entry[1].key, "KMAX_MAP") == 0);
    TN_CHECK_EQ(ctx, c->entry[1].line, 4);
    TN_CHECK_EQ(ctx, c->entry[1].value_count, 5);
    TN_CHECK(ctx, strcmp(c->entry[1].values[4], "1600") == 0);
    TN_CHECK_EQ(ctx, c->entry[2].value_count, 3);
    TN_CHECK(ctx, strcmp(c->entry[3].key, "FLAG") == 0);
    TN_CHECK_EQ(ctx, c->entry[3].value_count, 0);
    TN_CHECK_EQ(ctx, c->entry[3].line, 6);
    tn_hpcc_config_destroy(c);

    s = tn_hpcc_config_load_text("RP_TIMER 900\nX 1\nRP_TIMER 300\n", "twice.txt", &c, &err);
    TN_CHECK(ctx, s == TN_EPARSE && c == NULL);
    TN_CHECK_MSG(ctx,
                 strstr(err.message, "twice.txt:3: RP_TIMER: given twice (first on line 1)"),
                 "%s",
                 err.message);

    s = tn_hpcc_config_load_text("", "empty.txt", &c, &err);
    TN_REQUIRE(ctx, s == TN_OK);
    TN_CHECK_EQ(ctx, c->count, 0);
    tn_hpcc_config_destroy(c);
}

static void
test_numbers(tn_test_ctx* ctx)
{
    uint64_t u = 0;
    double d = 0;
    TN_CHECK(ctx, tn_hpcc_parse_uint("0", 1, &u) && u == 0);
    TN_CHECK(ctx, tn_hpcc_parse_uint("0001", 1, &u) && u == 1);
    TN_CHECK(ctx, !tn_hpcc_parse_uint("2", 1, &u));
    TN_CHECK(ctx, !tn_hpcc_parse_uint("-1", 10, &u));
    TN_CHECK(ctx, !tn_hpcc_parse_uint("1x", 10, &u));
    TN_CHECK(ctx, !tn_hpcc_parse_uint("", 10, &u));
    TN_CHECK(ctx, tn_hpcc_parse_real("0.00390625", 0, 1, &d) && d == 0.00390625);
    TN_CHECK(ctx, tn_hpcc_parse_real("4e1", 0, 100, &d) && d == 40);
    TN_CHECK(ctx, !tn_hpcc_parse_real("1.5", 0, 1, &d));
    TN_CHECK(ctx, !tn_hpcc_parse_real("0x1", 0, 10, &d));
    TN_CHECK(ctx, !tn_hpcc_parse_real("nan", 0, 10, &d));
    TN_CHECK(ctx, !tn_hpcc_parse_real(NULL, 0, 10, &d));
}

void
tn_suite_hpcc_files(tn_test_suite* suite)
{
    tn_test_add(suite, "flows", test_flows);
    tn_test_add(suite, "flow_errors", test_flow_errors);
    tn_test_add(suite, "topology", test_topology);
    tn_test_add(suite, "config", test_config);
    tn_test_add(suite, "numbers", test_numbers);
}
