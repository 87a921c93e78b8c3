/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of tn-chakra: a text workload converted and read back (every pass's cycles, bytes,
 * groups and dependencies against the text file), a written trace read back field by field,
 * the traces of a job checked together (matching of collectives and transfers), and one test
 * per malformed input, each asserting the file, the node id and the reason of its message.
 * Built without protobuf-c, only the refusal of every call is checked.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "tn-test.h"

#include "ns3/tn-chakra.h"
#include "ns3/tn-workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
contains(const char* text, const char* part)
{
    return strstr(text, part) != NULL;
}

#ifdef TN_CHAKRA

/* An in-memory file and its bytes. */
typedef struct buffer
{
    char* data;
    size_t len;
    FILE* file;
} buffer;

static void
buffer_open(buffer* b)
{
    b->data = NULL;
    b->len = 0;
    b->file = open_memstream(&b->data, &b->len);
}

static void
buffer_close(buffer* b)
{
    fclose(b->file);
}

static tn_chakra_trace*
parse_buffer(tn_test_ctx* ctx, buffer* b, const char* name, tn_error* err)
{
    tn_chakra_trace* t = NULL;
    tn_status s = tn_chakra_parse((const uint8_t*)b->data, b->len, name, &t, err);
    TN_CHECK(ctx, (s == TN_OK) == (t != NULL));
    return t;
}

/* A node spec in one call. */
static tn_chakra_node_spec
spec_of(uint64_t id, uint32_t type, const uint64_t* deps, uint32_t ndeps)
{
    tn_chakra_node_spec s;
    tn_chakra_node_spec_init(&s);
    s.id = id;
    s.name = "n";
    s.type = type;
    s.data_deps = deps;
    s.data_dep_count = ndeps;
    s.has_num_ops = type == TN_CHAKRA_COMP_NODE;
    s.num_ops = 100 + id;
    s.comm_size = 4096;
    return s;
}

/* ---- conversion ----------------------------------------------------------------------- */

static void
test_convert_resnet(tn_test_ctx* ctx)
{
    char path[1024];
    tn_error err;
    tn_workload* wl = NULL;
    tn_test_data_path(ctx, "workloads/Resnet50_DataParallel.txt", path, sizeof(path));
    if (!TN_CHECK_MSG(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK, "%s", err.message))
    {
        return;
    }
    const uint32_t npus = 4;
    const uint32_t layers = tn_workload_layer_count(wl);
    tn_chakra_trace* traces[4] = {NULL, NULL, NULL, NULL};
    for (uint32_t r = 0; r < npus; r++)
    {
        buffer b;
        buffer_open(&b);
        TN_CHECK_MSG(ctx,
                     tn_chakra_convert(wl, npus, 0, r, b.file, &err) == TN_OK,
                     "%s",
                     err.message);
        buffer_close(&b);
        traces[r] = parse_buffer(ctx, &b, "resnet.et", &err);
        TN_CHECK_MSG(ctx, traces[r] != NULL, "%s", traces[r] ? "" : err.message);
        free(b.data);
    }
    if (!traces[0] || !traces[3])
    {
        goto done;
    }
    TN_CHECK(ctx, strcmp(tn_chakra_version(traces[0]), "0.0.4") == 0);
    /* expected: per layer 3 kernels, a wg all-reduce when it has bytes or a type, an update
       when update_delay > 0; walk the file's order with an independent count */
    uint32_t expect_nodes = 0;
    uint32_t expect_colls = 0;
    for (uint32_t l = 0; l < layers; l++)
    {
        const tn_workload_layer* layer = tn_workload_layer_at(wl, l);
        expect_nodes += 3 + (layer->update_delay > 0);
        if (tn_workload_layer_group(wl, l, TN_PASS_WG) != TN_GROUP_NONE)
        {
            expect_colls++;
        }
    }
    TN_CHECK_EQ(ctx, tn_chakra_node_count(traces[0]), expect_nodes + expect_colls);
    /* the forward kernels come first, in layer order, each after the previous */
    for (uint32_t l = 0; l < layers; l++)
    {
        const tn_chakra_node* n = tn_chakra_node_at(traces[0], l);
        TN_CHECK_EQ(ctx, n->kind, TN_CHAKRA_COMPUTE);
        TN_CHECK(ctx, n->has_num_ops);
        TN_CHECK_EQ(ctx, n->num_ops, tn_workload_layer_at(wl, l)->pass[TN_PASS_FWD].compute_cycles);
        TN_CHECK_EQ(ctx, n->dep_count, l == 0 ? 0 : 1);
        if (l > 0)
        {
            TN_CHECK_EQ(ctx, n->deps[0], l - 1);
            TN_CHECK_EQ(ctx, n->data_dep_count, 1);
        }
    }
    /* backward: each wg all-reduce of all 4 ranks, comm_size = the file's bytes, after its wg
       kernel; the next ig kernel waits for the wg kernel by a control dependency */
    uint32_t colls = 0;
    uint64_t bytes = 0;
    uint64_t expect_bytes = 0;
    for (uint32_t l = 0; l < layers; l++)
    {
        if (tn_workload_layer_group(wl, l, TN_PASS_WG) != TN_GROUP_NONE)
        {
            expect_bytes += tn_workload_layer_at(wl, l)->pass[TN_PASS_WG].comm_bytes;
        }
    }
    uint32_t ctrl = 0;
    for (uint32_t i = 0; i < tn_chakra_node_count(traces[0]); i++)
    {
        const tn_chakra_node* n = tn_chakra_node_at(traces[0], i);
        ctrl += n->dep_count - n->data_dep_count;
        if (n->kind != TN_CHAKRA_COLLECTIVE)
        {
            continue;
        }
        TN_CHECK_EQ(ctx, n->collective, TN_COLL_ALL_REDUCE);
        TN_CHECK(ctx, n->group == NULL);
        TN_CHECK_EQ(ctx, n->dep_count, 1);
        TN_CHECK_EQ(ctx, tn_chakra_node_at(traces[0], n->deps[0])->kind, TN_CHAKRA_COMPUTE);
        TN_CHECK_EQ(ctx, n->match, 0); /* before tn_chakra_check */
        colls++;
        bytes += n->comm_bytes;
    }
    TN_CHECK_EQ(ctx, colls, expect_colls);
    TN_CHECK_EQ(ctx, bytes, expect_bytes);
    TN_CHECK_EQ(ctx, ctrl, layers - 1);
    TN_CHECK_MSG(ctx, tn_chakra_check(traces, npus, &err) == TN_OK, "%s", err.message);
    /* after the check, the k-th collective of rank 3 has match k */
    uint32_t k = 0;
    for (uint32_t i = 0; i < tn_chakra_node_count(traces[3]); i++)
    {
        const tn_chakra_node* n = tn_chakra_node_at(traces[3], i);
        if (n->kind == TN_CHAKRA_COLLECTIVE)
        {
            TN_CHECK_EQ(ctx, n->match, k);
            k++;
        }
    }
    TN_CHECK_EQ(ctx, k, expect_colls);
done:
    for (uint32_t r = 0; r < npus; r++)
    {
        tn_chakra_destroy(traces[r]);
    }
    tn_workload_destroy(wl);
}

/* Model-parallel groups: HYBRID_DATA_MODEL on 8 NPUs with group 2 writes comm_group lists. */
static void
test_convert_groups(tn_test_ctx* ctx)
{
    const char* text = "HYBRID_DATA_MODEL model_parallel_NPU_group: 2\n1\n"
                       "l0 -1 10 ALLGATHER 64 20 ALLREDUCE 128 30 ALLREDUCE 256 5\n";
    tn_error err;
    tn_workload* wl = NULL;
    TN_CHECK_MSG(ctx,
                 tn_workload_parse(text, strlen(text), "g.txt", &wl, &err) == TN_OK,
                 "%s",
                 err.message);
    buffer b;
    buffer_open(&b);
    TN_CHECK(ctx, tn_chakra_convert(wl, 8, 0, 5, b.file, &err) == TN_OK);
    buffer_close(&b);
    tn_chakra_trace* t = parse_buffer(ctx, &b, "g.et", &err);
    free(b.data);
    if (!t)
    {
        tn_workload_destroy(wl);
        return;
    }
    /* fwd kernel, fwd all-gather (inner: ranks 4,5), ig kernel, ig all-reduce (inner),
       wg kernel, wg all-reduce (outer: 1,3,5,7), update */
    TN_CHECK_EQ(ctx, tn_chakra_node_count(t), 7);
    const tn_chakra_node* fwd = tn_chakra_node_at(t, 1);
    TN_CHECK_EQ(ctx, fwd->collective, TN_COLL_ALL_GATHER);
    TN_CHECK_EQ(ctx, fwd->group_count, 2);
    TN_CHECK(ctx, fwd->group && fwd->group[0] == 4 && fwd->group[1] == 5);
    const tn_chakra_node* ig = tn_chakra_node_at(t, 2);
    TN_CHECK_EQ(ctx, ig->deps[0], 1); /* the ig kernel waits for the blocking fwd collective */
    const tn_chakra_node* wg = tn_chakra_node_at(t, 5);
    TN_CHECK_EQ(ctx, wg->group_count, 4);
    TN_CHECK(ctx, wg->group && wg->group[0] == 1 && wg->group[3] == 7);
    TN_CHECK_EQ(ctx, wg->comm_bytes, 256);
    const tn_chakra_node* update = tn_chakra_node_at(t, 6);
    TN_CHECK_EQ(ctx, update->num_ops, 5);
    TN_CHECK_EQ(ctx, update->deps[0], 5);
    tn_chakra_destroy(t);
    tn_workload_destroy(wl);
}

/* ---- written, read back ------------------------------------------------------------------ */

static void
test_roundtrip(tn_test_ctx* ctx)
{
    buffer b;
    buffer_open(&b);
    tn_error err;
    TN_CHECK(ctx, tn_chakra_write_metadata(b.file, "0.0.4", &err) == TN_OK);
    const uint64_t d10[] = {10};
    const uint64_t d11[] = {11};
    tn_chakra_node_spec s = spec_of(10, TN_CHAKRA_COMP_NODE, NULL, 0);
    s.tensor_size = 77;
    TN_CHECK(ctx, tn_chakra_write_node(b.file, &s, &err) == TN_OK);
    s = spec_of(11, TN_CHAKRA_COMM_SEND_NODE, d10, 1);
    s.comm_src = 0;
    s.comm_dst = 3;
    s.comm_tag = 9;
    TN_CHECK(ctx, tn_chakra_write_node(b.file, &s, &err) == TN_OK);
    const uint32_t group[] = {0, 2};
    s = spec_of(12, TN_CHAKRA_COMM_COLL_NODE, NULL, 0);
    s.ctrl_deps = d11;
    s.ctrl_dep_count = 1;
    s.comm_type = tn_chakra_comm_type_of(TN_COLL_REDUCE_SCATTER);
    s.group = group;
    s.group_count = 2;
    TN_CHECK(ctx, tn_chakra_write_node(b.file, &s, &err) == TN_OK);
    s = spec_of(13, TN_CHAKRA_MEM_LOAD_NODE, d11, 1);
    s.tensor_size = 1 << 20;
    TN_CHECK(ctx, tn_chakra_write_node(b.file, &s, &err) == TN_OK);
    buffer_close(&b);
    tn_chakra_trace* t = parse_buffer(ctx, &b, "rt.et", &err);
    free(b.data);
    if (!TN_CHECK_MSG(ctx, t != NULL, "%s", err.message))
    {
        return;
    }
    TN_CHECK_EQ(ctx, tn_chakra_node_count(t), 4);
    const tn_chakra_node* c = tn_chakra_node_at(t, 0);
    TN_CHECK(ctx, c->kind == TN_CHAKRA_COMPUTE && c->num_ops == 110 && c->tensor_size == 77);
    const tn_chakra_node* send = tn_chakra_node_at(t, 1);
    TN_CHECK(ctx, send->kind == TN_CHAKRA_SEND && send->peer == 3 && send->tag == 9);
    TN_CHECK(ctx, send->comm_bytes == 4096 && send->dep_count == 1 && send->deps[0] == 0);
    const tn_chakra_node* coll = tn_chakra_node_at(t, 2);
    TN_CHECK(ctx, coll->collective == TN_COLL_REDUCE_SCATTER && coll->group_count == 2);
    TN_CHECK(ctx, coll->dep_count == 1 && coll->data_dep_count == 0 && coll->deps[0] == 1);
    const tn_chakra_node* mem = tn_chakra_node_at(t, 3);
    TN_CHECK(ctx, mem->kind == TN_CHAKRA_MEMORY && mem->tensor_size == (1 << 20));
    TN_CHECK(ctx, strcmp(tn_chakra_name(t), "rt.et") == 0);
    tn_chakra_destroy(t);
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* Parse b and expect a refusal whose message holds every part. */
static void
expect_refused(tn_test_ctx* ctx, buffer* b, const char* const* parts)
{
    tn_error err;
    err.message[0] = '\0';
    tn_chakra_trace* t = parse_buffer(ctx, b, "bad.3.et", &err);
    TN_CHECK(ctx, t == NULL);
    tn_chakra_destroy(t);
    for (const char* const* p = parts; *p; p++)
    {
        TN_CHECK_MSG(ctx, contains(err.message, *p), "'%s' lacks '%s'", err.message, *p);
    }
    TN_CHECK(ctx, strchr(err.message, '\n') == NULL);
    free(b->data);
}

/* A trace of the given nodes. */
static void
write_nodes(buffer* b, const tn_chakra_node_spec* nodes, size_t n)
{
    buffer_open(b);
    tn_error err;
    tn_chakra_write_metadata(b->file, "0.0.4", &err);
    for (size_t i = 0; i < n; i++)
    {
        tn_chakra_write_node(b->file, &nodes[i], &err);
    }
    buffer_close(b);
}

static void
test_bad_truncated(tn_test_ctx* ctx)
{
    const tn_chakra_node_spec nodes[] = {spec_of(1, TN_CHAKRA_COMP_NODE, NULL, 0),
                                         spec_of(2, TN_CHAKRA_COMP_NODE, NULL, 0)};
    buffer b;
    write_nodes(&b, nodes, 2);
    b.len -= 1; /* the last message loses a byte */
    const char* const parts[] = {"bad.3.et", "after node 1", "truncated message", NULL};
    expect_refused(ctx, &b, parts);
    write_nodes(&b, nodes, 2);
    b.len = 0;
    const char* const empty[] = {"bad.3.et", "empty file", NULL};
    expect_refused(ctx, &b, empty);
}

static void
test_bad_wire_type(tn_test_ctx* ctx)
{
    const tn_chakra_node_spec nodes[] = {spec_of(1, TN_CHAKRA_COMP_NODE, NULL, 0)};
    buffer b;
    write_nodes(&b, nodes, 1);
    /* a second node whose field 1 (id, a varint) comes as length-delimited (wire type 2) */
    const char bad[] = {4, (1 << 3) | 2, 2, 'x', 'y'};
    b.data = realloc(b.data, b.len + sizeof(bad));
    memcpy(b.data + b.len, bad, sizeof(bad));
    b.len += sizeof(bad);
    const char* const parts[] = {"bad.3.et", "after node 1", "not a Node message", NULL};
    expect_refused(ctx, &b, parts);
}

static void
test_bad_cycle(tn_test_ctx* ctx)
{
    const uint64_t d5[] = {5};
    const uint64_t d6[] = {6};
    const uint64_t d7[] = {7};
    /* 4 -> 5 -> 6 -> 7 -> 5: node 4 waits on the cycle but is not on it */
    const tn_chakra_node_spec nodes[] = {spec_of(4, TN_CHAKRA_COMP_NODE, d5, 1),
                                         spec_of(5, TN_CHAKRA_COMP_NODE, d6, 1),
                                         spec_of(6, TN_CHAKRA_COMP_NODE, d7, 1),
                                         spec_of(7, TN_CHAKRA_COMP_NODE, d5, 1)};
    buffer b;
    write_nodes(&b, nodes, 4);
    tn_error err;
    tn_chakra_trace* t = parse_buffer(ctx, &b, "cyc.et", &err);
    TN_CHECK(ctx, t == NULL);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "cyc.et: node ") && contains(err.message, "cycle"),
                 "%s",
                 err.message);
    TN_CHECK_MSG(ctx,
                 !contains(err.message, "node 4:"),
                 "%s names a node off the cycle",
                 err.message);
    free(b.data);
    const tn_chakra_node_spec self[] = {spec_of(8, TN_CHAKRA_COMP_NODE, (const uint64_t[]){8}, 1)};
    write_nodes(&b, self, 1);
    const char* const parts[] = {"bad.3.et: node 8:", "cycle", NULL};
    expect_refused(ctx, &b, parts);
}

static void
test_bad_node_type(tn_test_ctx* ctx)
{
    tn_chakra_node_spec nodes[] = {spec_of(1, TN_CHAKRA_COMP_NODE, NULL, 0),
                                   spec_of(2, 42, NULL, 0)};
    buffer b;
    write_nodes(&b, nodes, 2);
    const char* const parts[] = {"bad.3.et: node 2:", "unknown node type 42", NULL};
    expect_refused(ctx, &b, parts);
    nodes[1].type = 8;
    write_nodes(&b, nodes, 2);
    const char* const storage[] = {"bad.3.et: node 2:", "STORAGE_NODE is not supported", NULL};
    expect_refused(ctx, &b, storage);
}

static void
test_bad_dependency(tn_test_ctx* ctx)
{
    const uint64_t d99[] = {99};
    tn_chakra_node_spec nodes[] = {spec_of(1, TN_CHAKRA_COMP_NODE, NULL, 0),
                                   spec_of(3, TN_CHAKRA_COMP_NODE, d99, 1)};
    buffer b;
    write_nodes(&b, nodes, 2);
    const char* const parts[] = {"bad.3.et: node 3:", "data dependency 99 names no node", NULL};
    expect_refused(ctx, &b, parts);
    nodes[1].data_deps = NULL;
    nodes[1].data_dep_count = 0;
    nodes[1].ctrl_deps = d99;
    nodes[1].ctrl_dep_count = 1;
    write_nodes(&b, nodes, 2);
    const char* const ctrl[] = {"bad.3.et: node 3:", "control dependency 99", NULL};
    expect_refused(ctx, &b, ctrl);
    nodes[1].id = 1;
    nodes[1].ctrl_dep_count = 0;
    write_nodes(&b, nodes, 2);
    const char* const dup[] = {"bad.3.et: node 1:", "two nodes have this id", NULL};
    expect_refused(ctx, &b, dup);
}

static void
test_bad_attributes(tn_test_ctx* ctx)
{
    tn_chakra_node_spec nodes[] = {spec_of(6, TN_CHAKRA_COMM_COLL_NODE, NULL, 0)};
    nodes[0].comm_type = 9; /* BARRIER */
    buffer b;
    write_nodes(&b, nodes, 1);
    const char* const parts[] = {"bad.3.et: node 6:", "comm_type 9 is not supported", NULL};
    expect_refused(ctx, &b, parts);
    const uint32_t twice[] = {2, 0, 2};
    nodes[0].comm_type = 0;
    nodes[0].group = twice;
    nodes[0].group_count = 3;
    write_nodes(&b, nodes, 1);
    const char* const group[] = {"bad.3.et: node 6:", "comm_group names rank 2 twice", NULL};
    expect_refused(ctx, &b, group);
    /* a metadata message that is not one: field 1 (version, a string) as a varint */
    buffer_open(&b);
    fwrite((const char[]){2, (1 << 3) | 0, 5}, 1, 3, b.file);
    buffer_close(&b);
    const char* const meta[] = {"bad.3.et", "not a GlobalMetadata message", NULL};
    expect_refused(ctx, &b, meta);
}

/* duration_micros of a kernel without num_ops: at most a second (TN_CHAKRA_MAX_DURATION_MICROS,
   a text workload's 10^9 cycles at 1 GHz); 2^63 used to run as 0 ns (issue 42). The cap itself
   reads, and a node with num_ops keeps any duration (it is not its time). */
static void
test_bad_duration(tn_test_ctx* ctx)
{
    tn_chakra_node_spec nodes[] = {spec_of(7, TN_CHAKRA_COMP_NODE, NULL, 0)};
    nodes[0].has_num_ops = 0;
    const uint64_t over[] = {TN_CHAKRA_MAX_DURATION_MICROS + 1, UINT64_C(1) << 63, UINT64_MAX};
    buffer b;
    for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++)
    {
        nodes[0].duration_micros = over[i];
        write_nodes(&b, nodes, 1);
        const char* const parts[] = {"bad.3.et: node 7:",
                                     "duration_micros",
                                     "more than a kernel",
                                     NULL};
        expect_refused(ctx, &b, parts);
    }
    TN_CHECK(ctx, TN_CHAKRA_MAX_DURATION_MICROS * 1000 == TN_WORKLOAD_MAX_CYCLES);
    nodes[0].duration_micros = TN_CHAKRA_MAX_DURATION_MICROS;
    write_nodes(&b, nodes, 1);
    tn_error err;
    tn_chakra_trace* t = parse_buffer(ctx, &b, "cap.et", &err);
    TN_CHECK_MSG(ctx, t != NULL, "%s", err.message);
    TN_CHECK(ctx, t && tn_chakra_node_at(t, 0)->duration_micros == TN_CHAKRA_MAX_DURATION_MICROS);
    tn_chakra_destroy(t);
    free(b.data);
    nodes[0].has_num_ops = 1;
    nodes[0].num_ops = 5;
    nodes[0].duration_micros = UINT64_MAX;
    write_nodes(&b, nodes, 1);
    t = parse_buffer(ctx, &b, "ops.et", &err);
    TN_CHECK_MSG(ctx, t != NULL, "%s", err.message);
    tn_chakra_destroy(t);
    free(b.data);
}

/* ---- the traces of a job together ----------------------------------------------------------- */

static tn_chakra_trace*
trace_of(tn_test_ctx* ctx, const char* name, const tn_chakra_node_spec* nodes, size_t n)
{
    buffer b;
    write_nodes(&b, nodes, n);
    tn_error err;
    tn_chakra_trace* t = parse_buffer(ctx, &b, name, &err);
    TN_CHECK_MSG(ctx, t != NULL, "%s", t ? "" : err.message);
    free(b.data);
    return t;
}

static void
test_check_job(tn_test_ctx* ctx)
{
    /* rank 0 sends twice to 1 (tag 0), rank 1 receives twice and sends once to 0 */
    tn_chakra_node_spec r0[] = {spec_of(1, TN_CHAKRA_COMM_SEND_NODE, NULL, 0),
                                spec_of(2, TN_CHAKRA_COMM_SEND_NODE, NULL, 0),
                                spec_of(3, TN_CHAKRA_COMM_RECV_NODE, NULL, 0)};
    r0[0].comm_dst = r0[1].comm_dst = 1;
    r0[2].comm_src = 1;
    tn_chakra_node_spec r1[] = {spec_of(1, TN_CHAKRA_COMM_RECV_NODE, NULL, 0),
                                spec_of(2, TN_CHAKRA_COMM_RECV_NODE, NULL, 0),
                                spec_of(3, TN_CHAKRA_COMM_SEND_NODE, NULL, 0)};
    r1[0].comm_src = r1[1].comm_src = 0;
    r1[2].comm_dst = 0;
    tn_chakra_trace* traces[2] = {trace_of(ctx, "p.0.et", r0, 3), trace_of(ctx, "p.1.et", r1, 3)};
    tn_error err;
    if (traces[0] && traces[1])
    {
        TN_CHECK_MSG(ctx, tn_chakra_check(traces, 2, &err) == TN_OK, "%s", err.message);
        TN_CHECK_EQ(ctx, tn_chakra_node_at(traces[0], 1)->match, 1);
        TN_CHECK_EQ(ctx, tn_chakra_node_at(traces[1], 1)->match, 1);
        TN_CHECK_EQ(ctx, tn_chakra_node_at(traces[1], 2)->match, 0);
        /* three ranks: rank 2's file is rank 0's, its sends go to rank 1 that expects none */
        TN_CHECK(ctx, tn_chakra_check(traces, 1, &err) != TN_OK);
        TN_CHECK_MSG(ctx,
                     contains(err.message, "p.0.et: node 1: comm_dst 1 is no rank"),
                     "%s",
                     err.message);
    }
    tn_chakra_destroy(traces[1]);
    r1[1].comm_size = 1000; /* the second receive expects other bytes */
    traces[1] = trace_of(ctx, "p.1.et", r1, 3);
    if (traces[0] && traces[1])
    {
        TN_CHECK(ctx, tn_chakra_check(traces, 2, &err) != TN_OK);
        TN_CHECK_MSG(ctx,
                     contains(err.message, "p.1.et: node 2: receives 1000 bytes"),
                     "%s",
                     err.message);
    }
    tn_chakra_destroy(traces[1]);
    r1[1].comm_size = 4096;
    r1[2].type = TN_CHAKRA_COMP_NODE; /* rank 0's receive has no send */
    traces[1] = trace_of(ctx, "p.1.et", r1, 3);
    if (traces[0] && traces[1])
    {
        TN_CHECK(ctx, tn_chakra_check(traces, 2, &err) != TN_OK);
        TN_CHECK_MSG(ctx,
                     contains(err.message, "p.0.et: node 3: receive 1 -> 0"),
                     "%s",
                     err.message);
    }
    tn_chakra_destroy(traces[0]);
    tn_chakra_destroy(traces[1]);
    /* collectives: an all-reduce of all, then one of group {0, 1} on 3 ranks; rank 1 skips
       the second */
    const uint32_t g01[] = {0, 1};
    tn_chakra_node_spec c[] = {spec_of(1, TN_CHAKRA_COMM_COLL_NODE, NULL, 0),
                               spec_of(2, TN_CHAKRA_COMM_COLL_NODE, NULL, 0)};
    c[1].group = g01;
    c[1].group_count = 2;
    tn_chakra_trace* three[3] = {trace_of(ctx, "c.0.et", c, 2),
                                 trace_of(ctx, "c.1.et", c, 2),
                                 trace_of(ctx, "c.2.et", c, 1)};
    if (three[0] && three[1] && three[2])
    {
        TN_CHECK_MSG(ctx, tn_chakra_check(three, 3, &err) == TN_OK, "%s", err.message);
    }
    tn_chakra_destroy(three[1]);
    three[1] = trace_of(ctx, "c.1.et", c, 1);
    if (three[0] && three[1] && three[2])
    {
        TN_CHECK(ctx, tn_chakra_check(three, 3, &err) != TN_OK);
        TN_CHECK_MSG(ctx,
                     contains(err.message, "c.0.et: node 2: collective number 0") &&
                         contains(err.message, "rank 1 has no such collective"),
                     "%s",
                     err.message);
    }
    tn_chakra_destroy(three[2]);
    three[2] = trace_of(ctx, "c.2.et", c, 2); /* rank 2 is in no group {0, 1} */
    if (three[2])
    {
        TN_CHECK(ctx, tn_chakra_check(three, 3, &err) != TN_OK);
        TN_CHECK_MSG(ctx,
                     contains(err.message, "c.2.et: node 2: comm_group does not hold"),
                     "%s",
                     err.message);
    }
    for (int i = 0; i < 3; i++)
    {
        tn_chakra_destroy(three[i]);
    }
}

#else /* TN_CHAKRA */

static void
test_unsupported(tn_test_ctx* ctx)
{
    tn_error err;
    tn_chakra_trace* t = NULL;
    TN_CHECK(ctx, !tn_chakra_supported());
    TN_CHECK(ctx, tn_chakra_parse((const uint8_t*)"", 0, "x.et", &t, &err) == TN_EUNSUPPORTED);
    TN_CHECK(ctx, t == NULL && contains(err.message, "libprotobuf-c-dev"));
}

#endif /* TN_CHAKRA */

void
tn_suite_chakra(tn_test_suite* suite)
{
#ifdef TN_CHAKRA
    tn_test_add(suite, "convert-resnet", test_convert_resnet);
    tn_test_add(suite, "convert-groups", test_convert_groups);
    tn_test_add(suite, "roundtrip", test_roundtrip);
    tn_test_add(suite, "bad-truncated", test_bad_truncated);
    tn_test_add(suite, "bad-wire-type", test_bad_wire_type);
    tn_test_add(suite, "bad-cycle", test_bad_cycle);
    tn_test_add(suite, "bad-node-type", test_bad_node_type);
    tn_test_add(suite, "bad-dependency", test_bad_dependency);
    tn_test_add(suite, "bad-attributes", test_bad_attributes);
    tn_test_add(suite, "bad-duration", test_bad_duration);
    tn_test_add(suite, "check-job", test_check_job);
#else
    tn_test_add(suite, "unsupported", test_unsupported);
#endif
}
