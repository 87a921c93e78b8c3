/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-astra: ASTRA-sim 2's network YAML and flat JSON files, read as ASTRA-sim's examples
 * write them; their hier spec builds the topology they describe; each bad input gets one
 * error naming the file, the line and the key.
 */
#include "tn-test.h"

#include "ns3/tn-astra.h"
#include "ns3/tn-topology.h"

#include <stdio.h>
#include <string.h>

/* ASTRA-sim's examples/network/analytical/HGX-H100-validated.yml, as it is. */
static const char* HGX = "topology: [ Switch ]\n"
                         "npus_count: [ 8 ]\n"
                         "bandwidth: [ 400.0 ]  # GB/s\n"
                         "latency: [ 936.25 ]  # ns\n";

static void
test_network(tn_test_ctx* ctx)
{
    tn_astra_network net;
    tn_error err;
    TN_REQUIRE(ctx, tn_astra_network_parse(HGX, strlen(HGX), "hgx.yml", &net, &err) == TN_OK);
    TN_CHECK_EQ(ctx, net.dims, 1);
    TN_CHECK_EQ(ctx, net.dim[0].kind, TN_ASTRA_SWITCH);
    TN_CHECK_EQ(ctx, net.dim[0].npus, 8);
    TN_CHECK_NEAR(ctx, net.dim[0].bandwidth_gbs, 400.0, 0.0);
    TN_CHECK_NEAR(ctx, net.dim[0].latency_ns, 936.25, 0.0);
    char spec[256];
    TN_REQUIRE(ctx, tn_astra_network_spec(&net, spec, sizeof(spec), &err) == TN_OK);
    /* 400 GB/s = 3.2 x 10^12 bits per second; 936.25 ns rounds to 936 */
    TN_CHECK_MSG(ctx, strcmp(spec, "hier:switch8@3200000000000bps/936ns") == 0, "%s", spec);

    const char* three = "# a 3D system\n\n"
                        "topology: [Ring, FullyConnected, Switch]\r\n"
                        "npus_count: [4, 2, 3]\n"
                        "bandwidth: [50, 25.5, 12.5]\n"
                        "latency: [500, 0, 1000.0]\n";
    TN_REQUIRE(ctx, tn_astra_network_parse(three, strlen(three), "3d.yml", &net, &err) == TN_OK);
    TN_CHECK_EQ(ctx, net.dims, 3);
    TN_CHECK_EQ(ctx, net.dim[1].kind, TN_ASTRA_FULLY_CONNECTED);
    TN_REQUIRE(ctx, tn_astra_network_spec(&net, spec, sizeof(spec), &err) == TN_OK);
    TN_CHECK_MSG(ctx,
                 strcmp(spec,
                        "hier:ring4@800000000000bps/500ns+fc2@204000000000bps/0ns+"
                        "switch3@100000000000bps/1000ns") == 0,
                 "%s",
                 spec);
    tn_topology* t = NULL;
    TN_REQUIRE(ctx, tn_topology_from_spec(spec, &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), 4 * 2 * 3);
    TN_CHECK_EQ(ctx, tn_topology_dim_count(t), 3);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 1)->size, 2);
    tn_topology_destroy(t);
    /* per link: a ring of 2 has one cable, an fc of 4 three */
    const char* links = "topology: [Ring, FullyConnected]\nnpus_count: [2, 4]\n"
                        "bandwidth: [1, 1]\nlatency: [1, 1]\n";
    TN_REQUIRE(ctx, tn_astra_network_parse(links, strlen(links), "l.yml", &net, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_astra_network_spec(&net, spec, sizeof(spec), &err) == TN_OK);
    TN_CHECK_MSG(ctx,
                 strcmp(spec, "hier:ring2@8000000000bps/1ns+fc4@24000000000bps/1ns") == 0,
                 "%s",
                 spec);
    TN_REQUIRE(ctx, tn_topology_from_spec(spec, &t, &err) == TN_OK);
    tn_topology_destroy(t);
    /* 10^9 GB/s on the 999 links of an fc NPU overflows no integer: refused */
    const char* huge = "topology: FullyConnected\nnpus_count: 1000\nbandwidth: 1e9\nlatency: 1\n";
    TN_REQUIRE(ctx, tn_astra_network_parse(huge, strlen(huge), "h.yml", &net, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_astra_network_spec(&net, spec, sizeof(spec), &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, strstr(err.message, "on 999 links") != NULL, "%s", err.message);
    /* a scalar is one dimension */
    const char* scalar = "topology: Ring\nnpus_count: 4\nbandwidth: 50\nlatency: 500\n";
    TN_CHECK_EQ(ctx, tn_astra_network_parse(scalar, strlen(scalar), "s.yml", &net, &err), TN_OK);
    TN_CHECK_EQ(ctx, net.dims, 1);
    TN_CHECK_EQ(ctx, tn_astra_network_spec(&net, spec, 10, &err), TN_EINVAL);
}

static void
test_network_errors(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* text;
        const char* message;
    } bad[] = {
        {"topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\n", "n.yml: latency: missing"},
        {"topology: [Torus]\n", "n.yml:1: topology: 'Torus' is not Ring, FullyConnected or Switch"},
        {"topology: [Ring]\nnpus_count: [1]\n", "n.yml:2: npus_count: '1' is below 2"},
        {"topology: [Ring]\nnpus_count: [-4]\n", "n.yml:2: npus_count: '-4' is negative"},
        {"topology: [Ring]\nbandwidth: [0]\n", "n.yml:2: bandwidth: '0' is not a number of GB/s"},
        {"topology: [Ring]\nlatency: [fast]\n", "n.yml:2: latency: 'fast' is not a number of ns"},
        {"topology: [Ring]\nlinks: [2]\n", "n.yml:2: links: unknown key"},
        {"topology: [Ring]\ntopology: [Ring]\n",
         "n.yml:2: topology: given twice (first on line 1)"},
        {"topology: [Ring, Ring\n", "n.yml:1: topology: a list opened with '[' must close"},
        {"topology: []\n", "n.yml:1: topology: an empty list"},
        {"topology: [Ring,]\n", "n.yml:1: topology: item 1 is empty"},
        {"topology [Ring]\n", "n.yml:1: 'topology [Ring]': expected 'key: value'"},
        {"topology: [Ring]\nnpus_count: [4\r]\n", "n.yml:2: control byte 0x0d (the file is text)"},
        {"topology: [Ring, Ring]\nnpus_count: [4]\nbandwidth: [1, 1]\nlatency: [1, 1]\n",
         "n.yml:2: npus_count: 1 items, topology has 2 dimensions"},
        {"topology: [Ring, Ring, Ring, Ring, Ring, Ring, Ring, Ring, Ring]\n",
         "n.yml:1: topology: more than 8 dimensions"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        tn_astra_network net;
        tn_error err;
        TN_CHECK_EQ(ctx,
                    tn_astra_network_parse(bad[i].text, strlen(bad[i].text), "n.yml", &net, &err),
                    TN_EPARSE);
        TN_CHECK_MSG(ctx,
                     strncmp(err.message, bad[i].message, strlen(bad[i].message)) == 0,
                     "case %zu: got '%s', want '%s'",
                     i,
                     err.message,
                     bad[i].message);
    }
    tn_astra_network net;
    tn_error err;
    TN_CHECK_EQ(ctx, tn_astra_network_read("/nonexistent/n.yml", &net, &err), TN_EIO);
}

/* ASTRA-sim's examples/system/native_collectives/Ring_4chunks.json, as it is. */
static const char* RING_4CHUNKS = "{\n"
                                  "    \"scheduling-policy\": \"LIFO\",\n"
                                  "    \"endpoint-delay\": 10,\n"
                                  "    \"active-chunks-per-dimension\": 1,\n"
                                  "    \"preferred-dataset-splits\": 4,\n"
                                  "    \"all-reduce-implementation\": [\n"
                                  "        \"ring\"\n"
                                  "    ],\n"
                                  "    \"all-gather-implementation\": [\n"
                                  "        \"ring\"\n"
                                  "    ],\n"
                                  "    \"reduce-scatter-implementation\": [\n"
                                  "        \"ring\"\n"
                                  "    ],\n"
                                  "    \"all-to-all-implementation\": [\n"
                                  "        \"ring\"\n"
                                  "    ],\n"
                                  "    \"collective-optimization\": \"localBWAware\",\n"
                                  "    \"local-mem-bw\": 1600,\n"
                                  "    \"boost-mode\": 0,\n"
                                  "    \"roofline-enabled\": 0,\n"
                                  "    \"peak-perf\": 900\n"
                                  "}\n";

static void
test_json(tn_test_ctx* ctx)
{
    tn_astra_json json;
    tn_error err;
    TN_REQUIRE(ctx,
               tn_astra_json_parse(RING_4CHUNKS, strlen(RING_4CHUNKS), "r.json", &json, &err) ==
                   TN_OK);
    TN_REQUIRE(ctx, json.count == 13);
    TN_CHECK(ctx, tn_astra_text_eq(json.entries[0].key, "scheduling-policy"));
    TN_CHECK_EQ(ctx, json.entries[0].line, 2);
    TN_CHECK_EQ(ctx, json.entries[0].values[0].kind, TN_ASTRA_JSON_STRING);
    TN_CHECK(ctx, tn_astra_text_eq(json.entries[0].values[0].text, "LIFO"));
    TN_CHECK(ctx, tn_astra_text_eq(json.entries[4].key, "all-reduce-implementation"));
    TN_CHECK_EQ(ctx, json.entries[4].is_list, 1);
    TN_CHECK_EQ(ctx, json.entries[4].count, 1);
    TN_CHECK_EQ(ctx, json.entries[4].line, 6);
    TN_CHECK(ctx, tn_astra_text_eq(json.entries[12].key, "peak-perf"));
    TN_CHECK_EQ(ctx, json.entries[12].line, 22);
    TN_CHECK_EQ(ctx, json.entries[12].values[0].kind, TN_ASTRA_JSON_NUMBER);
    TN_CHECK(ctx, tn_astra_text_eq(json.entries[12].values[0].text, "900"));
    tn_astra_json_destroy(&json);
    tn_astra_json_destroy(&json); /* a second destroy does nothing */

    /* a comm-group file: lists of ranks; an empty object */
    const char* groups = "{\"0\": [0, 1], \"1\": [2, 3], \"x\": true}";
    TN_REQUIRE(ctx, tn_astra_json_parse(groups, strlen(groups), "g.json", &json, &err) == TN_OK);
    TN_CHECK_EQ(ctx, json.count, 3);
    TN_CHECK_EQ(ctx, json.entries[1].count, 2);
    TN_CHECK(ctx, tn_astra_text_eq(json.entries[1].values[1].text, "3"));
    TN_CHECK_EQ(ctx, json.entries[2].values[0].kind, TN_ASTRA_JSON_BOOL);
    tn_astra_json_destroy(&json);
    TN_REQUIRE(ctx, tn_astra_json_parse(" {}\n", 4, "e.json", &json, &err) == TN_OK);
    TN_CHECK_EQ(ctx, json.count, 0);
    tn_astra_json_destroy(&json);

    static const struct
    {
        const char* text;
        const char* message;
    } bad[] = {
        {"", "j.json:1: expected '{' (the file is one JSON object), got the end of the file"},
        {"[1]", "j.json:1: expected '{'"},
        {"{\"a\": 1,\n\"a\": 2}", "j.json:2: a: given twice (first on line 1)"},
        {"{\"a\": {\"b\": 1}}",
         "j.json:1: a value is a string, number, true, false or a list of "
         "those (no nested object)"},
        {"{\"a\": \"x\\\"y\"}", "j.json:1: a string of ASTRA-sim's files has no escape"},
        {"{\"a\": \"x\ny\"}",
         "j.json:1: a string of ASTRA-sim's files has no escape and no "
         "control byte, got byte 0x0a"},
        {"{\"a\": 1,\n\x01}", "j.json:2: expected a string, got byte 0x01"},
        {"{\"a\": 1 \"b\": 2}", "j.json:1: expected ',' or '}' after a value, got '\"'"},
        {"{\"a\" 1}", "j.json:1: expected ':' after the key"},
        {"{\"a\": [1, 2,\n", "j.json:2: an unterminated list"},
        {"{\"a\": [1, 2\n", "j.json:2: expected ',' or ']' in a list, got the end of the file"},
        {"{\"a\": [1 2]}", "j.json:1: expected ',' or ']' in a list"},
        {"{\"a\": nope}", "j.json:1: expected a string, number, true, false or a list"},
        {"{\"a\": 1}\n}", "j.json:2: nothing may follow the object"},
        {"{\"a\": 1,", "j.json:1: an unterminated object"},
        {"{\"a", "j.json:1: an unterminated string"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        json.count = 99;
        TN_CHECK_EQ(ctx,
                    tn_astra_json_parse(bad[i].text, strlen(bad[i].text), "j.json", &json, &err),
                    TN_EPARSE);
        TN_CHECK_MSG(ctx,
                     strncmp(err.message, bad[i].message, strlen(bad[i].message)) == 0,
                     "case %zu: got '%s', want '%s'",
                     i,
                     err.message,
                     bad[i].message);
        TN_CHECK_EQ(ctx, json.count, 99); /* untouched on failure */
    }
}

/* Every prefix of the good files fails cleanly or parses (no crash, no leak under ASan). */
static void
test_prefixes(tn_test_ctx* ctx)
{
    size_t ok = 0;
    for (size_t n = 0; n <= strlen(RING_4CHUNKS); n++)
    {
        tn_astra_json json;
        tn_error err;
        if (tn_astra_json_parse(RING_4CHUNKS, n, "p.json", &json, &err) == TN_OK)
        {
            ok++;
            tn_astra_json_destroy(&json);
        }
        else
        {
            TN_CHECK_MSG(ctx, strncmp(err.message, "p.json:", 7) == 0, "%s", err.message);
        }
    }
    /* the whole object, with or without its final line break */
    TN_CHECK_EQ(ctx, ok, 2);
    ok = 0;
    for (size_t n = 0; n <= strlen(HGX); n++)
    {
        tn_astra_network net;
        tn_error err;
        if (tn_astra_network_parse(HGX, n, "p.yml", &net, &err) == TN_OK)
        {
            ok++;
        }
        else
        {
            TN_CHECK_MSG(ctx, strncmp(err.message, "p.yml", 5) == 0, "%s", err.message);
        }
    }
    /* from the last line's closing ']' on */
    TN_CHECK_EQ(ctx, ok, strlen("  # ns\n") + 1);
}

void
tn_suite_astra(tn_test_suite* suite)
{
    tn_test_add(suite, "network", test_network);
    tn_test_add(suite, "network-errors", test_network_errors);
    tn_test_add(suite, "json", test_json);
    tn_test_add(suite, "prefixes", test_prefixes);
}
