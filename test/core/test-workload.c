/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of tn-workload: the real ASTRA-sim 1.0 files of test/data/workloads/
 * checked field by field against an independent sscanf reading, the groups of
 * each parallelism, validation against an NPU count, one test per malformed case
 * (each asserting the file:line: field K (name) of its message) and a
 * write/parse round trip of generated workloads, activation recomputation. Over 1,000
 * lines for a reason: one test per malformed case of one format, sharing the helpers.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "tn-test.h"

#include "ns3/tn-topology.h"
#include "ns3/tn-workload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
contains(const char* text, const char* part)
{
    return strstr(text, part) != NULL;
}

/* ---- the real files ------------------------------------------------------------- */

static const char* const real_files[] = {
    "MLP_HybridParallel_Data_Model.txt",
    "MLP_ModelParallel.txt",
    "Resnet50_DataParallel.txt",
    "microAllReduce.txt",
    "microAllToAll.txt",
};

/* One layer as read by sscanf (independent of tn-text). */
typedef struct ref_layer
{
    char name[64];
    long long reserved;
    unsigned long long compute[3];
    char comm[3][32];
    unsigned long long bytes[3];
    unsigned long long delay;
} ref_layer;

/* Read a workload file with fgets + sscanf: parallelism, declared count, layers.
   Returns the number of layer lines (at most cap), -1 on I/O trouble. */
static int
ref_read(const char* path, char* parallelism, unsigned* declared, ref_layer* layers, int cap)
{
    FILE* f = fopen(path, "rb");
    if (!f)
    {
        return -1;
    }
    char line[1024];
    int state = 0;
    int n = 0;
    while (fgets(line, sizeof(line), f))
    {
        char first[64];
        if (sscanf(line, "%63s", first) != 1)
        {
            continue; /* blank */
        }
        if (state == 0)
        {
            strcpy(parallelism, first);
            state = 1;
        }
        else if (state == 1)
        {
            *declared = (unsigned)strtoul(first, NULL, 10);
            state = 2;
        }
        else if (n < cap)
        {
            ref_layer* l = &layers[n];
            int got = sscanf(line,
                             "%63s %lld %llu %31s %llu %llu %31s %llu %llu %31s %llu %llu",
                             l->name,
                             &l->reserved,
                             &l->compute[0],
                             l->comm[0],
                             &l->bytes[0],
                             &l->compute[1],
                             l->comm[1],
                             &l->bytes[1],
                             &l->compute[2],
                             l->comm[2],
                             &l->bytes[2],
                             &l->delay);
            if (got != 12)
            {
                fclose(f);
                return -1;
            }
            n++;
        }
    }
    fclose(f);
    return n;
}

static void
test_real_files(tn_test_ctx* ctx)
{
    static ref_layer ref[128];
    for (size_t k = 0; k < sizeof(real_files) / sizeof(real_files[0]); k++)
    {
        char rel[128];
        char path[512];
        snprintf(rel, sizeof(rel), "workloads/%s", real_files[k]);
        tn_test_data_path(ctx, rel, path, sizeof(path));
        tn_error err;
        tn_workload* wl = NULL;
        tn_status s = tn_workload_load_file(path, &wl, &err);
        TN_CHECK_MSG(ctx, s == TN_OK, "%s: %s", real_files[k], s ? err.message : "");
        if (s)
        {
            continue;
        }
        char par[64] = "";
        unsigned declared = 0;
        int n = ref_read(path, par, &declared, ref, 128);
        TN_CHECK_MSG(ctx, n > 0, "%s: sscanf reading failed", real_files[k]);
        TN_CHECK_MSG(ctx,
                     strcmp(tn_parallelism_name(tn_workload_parallelism(wl)), par) == 0,
                     "%s: parallelism %s, file says %s",
                     real_files[k],
                     tn_parallelism_name(tn_workload_parallelism(wl)),
                     par);
        TN_CHECK_EQ(ctx, tn_workload_layer_count(wl), declared);
        TN_CHECK_EQ(ctx, tn_workload_layer_count(wl), n);
        TN_CHECK_EQ(ctx, tn_workload_model_parallel_group(wl), 0);
        TN_CHECK(ctx, strcmp(tn_workload_name(wl), path) == 0);
        int same = 1;
        for (int i = 0; i < n && (uint32_t)i < tn_workload_layer_count(wl); i++)
        {
            const tn_workload_layer* l = tn_workload_layer_at(wl, (uint32_t)i);
            int ok = strcmp(l->name, ref[i].name) == 0 && l->reserved == ref[i].reserved &&
                     l->update_delay == ref[i].delay &&
                     l->parallelism == tn_workload_parallelism(wl) && l->line == (uint32_t)i + 3;
            for (int p = 0; p < TN_PASS_COUNT; p++)
            {
                ok &= l->pass[p].compute_cycles == ref[i].compute[p] &&
                      l->pass[p].comm_bytes == ref[i].bytes[p] &&
                      strcmp(tn_comm_type_name(l->pass[p].comm), ref[i].comm[p]) == 0;
            }
            TN_CHECK_MSG(ctx,
                         ok,
                         "%s: layer %d '%s' differs from sscanf",
                         real_files[k],
                         i,
                         l->name);
            same &= ok;
        }
        TN_CHECK(ctx, same);
        tn_workload_destroy(wl);
    }
}

/* A few fields written out by hand from the files (doc/core-workload.rst quotes conv1). */
static void
test_real_values(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err;
    tn_workload* wl = NULL;
    tn_test_data_path(ctx, "workloads/Resnet50_DataParallel.txt", path, sizeof(path));
    TN_REQUIRE_MSG(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_workload_parallelism(wl), TN_PARALLELISM_DATA);
    TN_CHECK_EQ(ctx, tn_workload_layer_count(wl), 54);
    /* conv1 -1 13003 NONE 0 12864 NONE 0 32291 ALLREDUCE 37632 3229 */
    const tn_workload_layer* l = tn_workload_layer_at(wl, 0);
    TN_CHECK(ctx, strcmp(l->name, "conv1") == 0);
    TN_CHECK_EQ(ctx, l->reserved, -1);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_FWD].compute_cycles, 13003);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_FWD].comm, TN_COMM_NONE);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_IG].compute_cycles, 12864);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_WG].compute_cycles, 32291);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_WG].comm, TN_COMM_ALLREDUCE);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_WG].comm_bytes, 37632);
    TN_CHECK_EQ(ctx, l->update_delay, 3229);
    /* last line, no newline after it: fc1000 ... 9220 ALLREDUCE 8192000 922 */
    l = tn_workload_layer_at(wl, 53);
    TN_CHECK(ctx, strcmp(l->name, "fc1000") == 0);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_WG].comm_bytes, 8192000);
    TN_CHECK_EQ(ctx, l->update_delay, 922);
    TN_CHECK_EQ(ctx, l->line, 56);
    tn_workload_destroy(wl);

    tn_test_data_path(ctx, "workloads/MLP_HybridParallel_Data_Model.txt", path, sizeof(path));
    TN_REQUIRE_MSG(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_workload_parallelism(wl), TN_PARALLELISM_HYBRID_DATA_MODEL);
    TN_CHECK_EQ(ctx, tn_workload_layer_count(wl), 6);
    l = tn_workload_layer_at(wl, 3);
    TN_CHECK(ctx, strcmp(l->name, "layer_64_2_mlp3") == 0);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_FWD].comm, TN_COMM_ALLGATHER);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_FWD].comm_bytes, 147456);
    TN_CHECK_EQ(ctx, l->pass[TN_PASS_IG].comm, TN_COMM_ALLREDUCE);
    TN_CHECK_EQ(ctx, l->update_delay, 1414);
    TN_CHECK_EQ(ctx, tn_workload_layer_at(wl, 5)->update_delay, 998);
    tn_workload_destroy(wl);

    tn_test_data_path(ctx, "workloads/microAllToAll.txt", path, sizeof(path));
    TN_REQUIRE_MSG(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_workload_parallelism(wl), TN_PARALLELISM_MICRO);
    TN_CHECK_EQ(ctx, tn_workload_layer_count(wl), 1);
    TN_CHECK_EQ(ctx, tn_workload_layer_at(wl, 0)->pass[TN_PASS_WG].comm, TN_COMM_ALLTOALL);
    TN_CHECK_EQ(ctx, tn_workload_layer_at(wl, 0)->pass[TN_PASS_WG].comm_bytes, 1048576);
    tn_workload_destroy(wl);
}

/* ---- names, groups, validation -------------------------------------------------- */

static void
test_names(tn_test_ctx* ctx)
{
    tn_error err;
    for (int p = 0; p < TN_PARALLELISM_COUNT; p++)
    {
        tn_parallelism q = TN_PARALLELISM_COUNT;
        TN_CHECK_EQ(ctx,
                    tn_parallelism_parse(tn_parallelism_name((tn_parallelism)p), &q, &err),
                    TN_OK);
        TN_CHECK_EQ(ctx, q, p);
    }
    for (int t = 0; t < TN_COMM_TYPE_COUNT; t++)
    {
        tn_comm_type u = TN_COMM_TYPE_COUNT;
        TN_CHECK_EQ(ctx, tn_comm_type_parse(tn_comm_type_name((tn_comm_type)t), &u, &err), TN_OK);
        TN_CHECK_EQ(ctx, u, t);
    }
    tn_parallelism q;
    TN_CHECK_EQ(ctx, tn_parallelism_parse("data", &q, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "'data'"));
    tn_comm_type u;
    TN_CHECK_EQ(ctx, tn_comm_type_parse("ALL_REDUCE", &u, &err), TN_EINVAL);
    TN_CHECK_EQ(ctx, tn_parallelism_name(TN_PARALLELISM_COUNT)[0], '?');
    TN_CHECK_EQ(ctx, tn_comm_type_name(TN_COMM_TYPE_COUNT)[0], '?');
    TN_CHECK(ctx, strcmp(tn_pass_name(TN_PASS_IG), "ig") == 0);
    TN_CHECK(ctx, strcmp(tn_group_name(TN_GROUP_OUTER), "outer") == 0);

    tn_collective c[2];
    TN_CHECK_EQ(ctx, tn_comm_type_collectives(TN_COMM_NONE, c), 0);
    TN_CHECK_EQ(ctx, tn_comm_type_collectives(TN_COMM_REDUCESCATTER, c), 1);
    TN_CHECK_EQ(ctx, c[0], TN_COLL_REDUCE_SCATTER);
    TN_CHECK_EQ(ctx, tn_comm_type_collectives(TN_COMM_ALLREDUCE_ALLTOALL, c), 2);
    TN_CHECK_EQ(ctx, c[0], TN_COLL_ALL_REDUCE);
    TN_CHECK_EQ(ctx, c[1], TN_COLL_ALL_TO_ALL);
}

static void
test_groups(tn_test_ctx* ctx)
{
    struct
    {
        tn_parallelism p;
        tn_group g[3];
    } rows[] = {
        {TN_PARALLELISM_DATA, {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_ALL}},
        {TN_PARALLELISM_MICRO, {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_ALL}},
        {TN_PARALLELISM_HYBRID_DLRM, {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_ALL}},
        {TN_PARALLELISM_MODEL, {TN_GROUP_ALL, TN_GROUP_ALL, TN_GROUP_NONE}},
        {TN_PARALLELISM_HYBRID_TRANSFORMER, {TN_GROUP_INNER, TN_GROUP_INNER, TN_GROUP_OUTER}},
        {TN_PARALLELISM_HYBRID_DATA_MODEL, {TN_GROUP_INNER, TN_GROUP_INNER, TN_GROUP_OUTER}},
        {TN_PARALLELISM_HYBRID_MODEL_DATA, {TN_GROUP_OUTER, TN_GROUP_OUTER, TN_GROUP_INNER}},
        {TN_PARALLELISM_HYBRID_CUSTOMIZED, {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_NONE}},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
    {
        for (int p = 0; p < TN_PASS_COUNT; p++)
        {
            TN_CHECK_MSG(ctx,
                         tn_parallelism_group(rows[i].p, (tn_pass)p) == rows[i].g[p],
                         "%s %s",
                         tn_parallelism_name(rows[i].p),
                         tn_pass_name((tn_pass)p));
        }
    }

    /* per layer: DATA ignores the fwd/ig comm types; NONE never communicates */
    const char* data = "DATA\n1\nl -1 1 ALLREDUCE 8 1 ALLGATHER 8 1 ALLREDUCE 8 1\n";
    tn_error err;
    tn_workload* wl = NULL;
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(data, strlen(data), "d", &wl, &err) == TN_OK,
                   "%s",
                   err.message);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_FWD), TN_GROUP_NONE);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_IG), TN_GROUP_NONE);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_WG), TN_GROUP_ALL);
    tn_workload_destroy(wl);

    const char* model = "MODEL\n1\nl -1 1 ALLGATHER 8 1 ALLREDUCE 8 1 NONE 0 1\n";
    TN_REQUIRE(ctx, tn_workload_parse(model, strlen(model), "m", &wl, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_FWD), TN_GROUP_ALL);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_WG), TN_GROUP_NONE);
    tn_workload_destroy(wl);

    /* DLRM: layer 0 communicates across all NPUs in every pass */
    const char* dlrm = "HYBRID_DLRM 1\n3\n"
                       "emb -1 1 ALLTOALL 64 1 ALLTOALL 64 1 NONE 0 1\n"
                       "bot -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 32 1\n"
                       "top -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 32 1\n";
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(dlrm, strlen(dlrm), "dl", &wl, &err) == TN_OK,
                   "%s",
                   err.message);
    TN_CHECK_EQ(ctx, tn_workload_dlrm_last_bottom_layer(wl), 1);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_FWD), TN_GROUP_ALL);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_IG), TN_GROUP_ALL);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_WG), TN_GROUP_NONE);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 1, TN_PASS_WG), TN_GROUP_ALL);
    tn_workload_destroy(wl);

    /* HYBRID_CUSTOMIZED: the 13th field gives each layer its own row */
    const char* custom = "HYBRID_CUSTOMIZED model_parallel_NPU_group: 4\n2\n"
                         "a -1 1 ALLGATHER 8 1 ALLREDUCE 8 1 ALLREDUCE 8 1 HYBRID_MODEL_DATA\n"
                         "b -1 1 ALLGATHER 8 1 ALLREDUCE 8 1 ALLREDUCE 8 1 DATA\n";
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(custom, strlen(custom), "c", &wl, &err) == TN_OK,
                   "%s",
                   err.message);
    TN_CHECK_EQ(ctx, tn_workload_model_parallel_group(wl), 4);
    TN_CHECK_EQ(ctx, tn_workload_layer_at(wl, 0)->parallelism, TN_PARALLELISM_HYBRID_MODEL_DATA);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_FWD), TN_GROUP_OUTER);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 0, TN_PASS_WG), TN_GROUP_INNER);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 1, TN_PASS_FWD), TN_GROUP_NONE);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 1, TN_PASS_WG), TN_GROUP_ALL);
    tn_workload_destroy(wl);

    /* members on 16 NPUs in groups of 4 */
    uint32_t first, stride, count;
    TN_CHECK_EQ(ctx,
                tn_group_members(TN_GROUP_INNER, 16, 4, 6, &first, &stride, &count, &err),
                TN_OK);
    TN_CHECK(ctx, first == 4 && stride == 1 && count == 4);
    TN_CHECK_EQ(ctx,
                tn_group_members(TN_GROUP_OUTER, 16, 4, 6, &first, &stride, &count, &err),
                TN_OK);
    TN_CHECK(ctx, first == 2 && stride == 4 && count == 4);
    TN_CHECK_EQ(ctx,
                tn_group_members(TN_GROUP_ALL, 16, 4, 6, &first, &stride, &count, &err),
                TN_OK);
    TN_CHECK(ctx, first == 0 && stride == 1 && count == 16);
    TN_CHECK_EQ(ctx,
                tn_group_members(TN_GROUP_NONE, 16, 4, 6, &first, &stride, &count, &err),
                TN_OK);
    TN_CHECK(ctx, first == 6 && count == 1);
    TN_CHECK_EQ(ctx,
                tn_group_members(TN_GROUP_INNER, 16, 3, 6, &first, &stride, &count, &err),
                TN_EINVAL);
    TN_CHECK_EQ(ctx,
                tn_group_members(TN_GROUP_INNER, 16, 4, 16, &first, &stride, &count, &err),
                TN_EINVAL);
}

static void
test_validate(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err;
    tn_workload* wl = NULL;
    uint32_t g = 0;

    tn_test_data_path(ctx, "workloads/Resnet50_DataParallel.txt", path, sizeof(path));
    TN_REQUIRE(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 0, &g, &err), TN_OK);
    TN_CHECK_EQ(ctx, g, 1);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 5, &g, &err), TN_OK); /* default unused */
    TN_CHECK_EQ(ctx, g, 1);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 0, 0, &g, &err), TN_EINVAL);
    TN_CHECK(ctx, contains(err.message, "Resnet50_DataParallel.txt: needs at least 1 NPU"));
    tn_workload_destroy(wl);

    /* hybrid file without model_parallel_NPU_group: the caller's default decides */
    tn_test_data_path(ctx, "workloads/MLP_HybridParallel_Data_Model.txt", path, sizeof(path));
    TN_REQUIRE(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 0, &g, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "HYBRID_DATA_MODEL needs a model-parallel group size"),
                 "%s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 4, &g, &err), TN_OK);
    TN_CHECK_EQ(ctx, g, 4);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 32, &g, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "32 NPUs but only 16 NPUs are available"),
                 "%s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 3, &g, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, contains(err.message, "16 is not a multiple of 3"), "%s", err.message);
    tn_workload_destroy(wl);

    /* the file's group wins over the default and is checked even for DATA */
    const char* t = "HYBRID_TRANSFORMER\tmodel_parallel_NPU_group: 32\t\n1\n"
                    "l -1 1 ALLREDUCE 8 1 ALLREDUCE 8 1 ALLREDUCE 8 1\n";
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(t, strlen(t), "tr.txt", &wl, &err) == TN_OK,
                   "%s",
                   err.message);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 64, 2, &g, &err), TN_OK);
    TN_CHECK_EQ(ctx, g, 32);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 16, 2, &g, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 contains(err.message,
                          "tr.txt: the model_parallel_NPU_group of line 1 is 32 NPUs but only 16"),
                 "%s",
                 err.message);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 96, 0, &g, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 80, 0, &g, &err), TN_EINVAL);
    tn_workload_destroy(wl);
    const char* d = "DATA model_parallel_NPU_group: 8\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n";
    TN_REQUIRE(ctx, tn_workload_parse(d, strlen(d), "d.txt", &wl, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_workload_validate(wl, 4, 0, &g, &err), TN_EINVAL);
    tn_workload_destroy(wl);
}

/* ---- malformed input: one test per case ---------------------------------------- */

/* Parse text as `name`; expect TN_EPARSE, no workload, and every part in the message. */
static void
expect_error(tn_test_ctx* ctx,
             const char* name,
             const char* text,
             size_t len,
             const char* part1,
             const char* part2)
{
    tn_error err;
    err.message[0] = '\0';
    tn_workload* wl = (tn_workload*)&err; /* must be reset to NULL */
    tn_status s = tn_workload_parse(text, len, name, &wl, &err);
    TN_CHECK_MSG(ctx,
                 s == TN_EPARSE && err.code == TN_EPARSE && wl == NULL &&
                     contains(err.message, part1) && (!part2 || contains(err.message, part2)),
                 "status %d message '%s', expected '%s'%s%s",
                 (int)s,
                 err.message,
                 part1,
                 part2 ? " and " : "",
                 part2 ? part2 : "");
    if (s == TN_OK)
    {
        tn_workload_destroy(wl);
    }
}

#define EXPECT(ctx, text, part1, part2) expect_error(ctx, "w.txt", text, strlen(text), part1, part2)

static void
test_bad_missing_column(tn_test_ctx* ctx)
{
    EXPECT(
        ctx,
        "DATA\n2\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\nl1 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8\n",
        "w.txt:4: field 12 (update_delay): missing",
        "11 fields, expected 12");
    EXPECT(ctx, "DATA\n1\nl0 -1 1 NONE\n", "w.txt:3: field 5 (fwd_comm_bytes): missing", NULL);
    /* HYBRID_CUSTOMIZED needs the 13th field */
    EXPECT(ctx,
           "HYBRID_CUSTOMIZED\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 13 (parallelism): missing",
           NULL);
}

static void
test_bad_extra_column(tn_test_ctx* ctx)
{
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1 junk\n",
           "w.txt:3: field 13: extra field 'junk'",
           "13 fields, expected 12");
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1 MODEL\n",
           "w.txt:3: field 13: extra field 'MODEL'",
           "needs HYBRID_CUSTOMIZED");
    EXPECT(ctx, "DATA\n1 2\n", "w.txt:2: field 2: unexpected '2' after the layer count", NULL);
}

static void
test_bad_parallelism(tn_test_ctx* ctx)
{
    EXPECT(ctx,
           "DATA_PARALLEL\n1\n",
           "w.txt:1: field 1 (parallelism): unknown parallelism 'DATA_PARALLEL'",
           "MICRO or HYBRID_TRANSFORMER_FWD_IN_BCKWD");
    EXPECT(ctx,
           "\n\n  data\n1\n",
           "w.txt:3: field 1 (parallelism): unknown parallelism 'data'",
           NULL);
    EXPECT(ctx,
           "DATA extra\n1\n",
           "w.txt:1: field 2: unexpected 'extra' after DATA",
           "model_parallel_NPU_group: N");
    EXPECT(ctx,
           "MODEL model_parallel_NPU_group:\n1\n",
           "w.txt:1: field 3 (model_parallel_NPU_group): missing value",
           NULL);
    EXPECT(ctx,
           "MODEL model_parallel_NPU_group: 0\n1\n",
           "w.txt:1: field 3 (model_parallel_NPU_group): must be >= 1",
           NULL);
    EXPECT(ctx,
           "MODEL model_parallel_NPU_group: 2 model_parallel_NPU_group: 2\n1\n",
           "w.txt:1: field 4 (model_parallel_NPU_group): given twice",
           NULL);
    EXPECT(ctx,
           "HYBRID_DLRM x\n1\n",
           "w.txt:1: field 2 (LAST_BOTTOM_LAYER): 'x' is not a non-negative integer",
           NULL);
    EXPECT(
        ctx,
        "HYBRID_DLRM 3\n2\na -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nb -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
        "w.txt:1: field 2 (LAST_BOTTOM_LAYER): 3 is not a layer index",
        NULL);
    EXPECT(ctx,
           "HYBRID_CUSTOMIZED\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1 HYBRID_CUSTOMIZED\n",
           "w.txt:3: field 13 (parallelism): 'HYBRID_CUSTOMIZED' is not a layer parallelism",
           NULL);
}

static void
test_bad_collective(tn_test_ctx* ctx)
{
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 ALLREDUC 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 7 (ig_comm_type): unknown collective 'ALLREDUC'",
           "REDUCESCATTER");
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 allreduce 8 1\n",
           "w.txt:3: field 10 (wg_comm_type): unknown collective 'allreduce'",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 7 0 1 NONE 0 1 NONE 0 1\n",
           "w.txt:3: field 4 (fwd_comm_type): unknown collective '7'",
           NULL);
}

static void
test_bad_negative(tn_test_ctx* ctx)
{
    EXPECT(ctx,
           "DATA\n1\nl0 -1 -5 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 3 (fwd_compute): '-5' is negative",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE -8 1\n",
           "w.txt:3: field 11 (wg_comm_bytes): '-8' is negative",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 -1\n",
           "w.txt:3: field 12 (update_delay): '-1' is negative",
           NULL);
    EXPECT(ctx, "DATA\n-1\n", "w.txt:2: field 1 (layer count): '-1' is negative", NULL);
    EXPECT(ctx, "DATA\n0\n", "w.txt:2: field 1 (layer count): must be >= 1", NULL);
}

static void
test_bad_non_numeric(tn_test_ctx* ctx)
{
    /* the example of the brief, on line 5 of a file */
    const char* text = "DATA\n3\n"
                       "a -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n"
                       "b -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n"
                       "c -1 1 NONE 0 1 NONE 12x 1 ALLREDUCE 8 1\n";
    expect_error(ctx,
                 "Resnet50.txt",
                 text,
                 strlen(text),
                 "Resnet50.txt:5: field 8 (ig_comm_bytes): '12x' is not a non-negative integer",
                 NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1.5 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 3 (fwd_compute): '1.5' is not a non-negative integer",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 +1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 6 (ig_compute): '+1' is not a non-negative integer",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 x 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 2 (reserved): 'x' is not an integer",
           NULL);
    EXPECT(ctx,
           "DATA\nsix\n",
           "w.txt:2: field 1 (layer count): 'six' is not a non-negative integer",
           NULL);
}

static void
test_bad_overflow(tn_test_ctx* ctx)
{
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 18446744073709551616 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 5 (fwd_comm_bytes): '18446744073709551616' is too large",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 99999999999999999999999 ALLREDUCE 8 1\n",
           "w.txt:3: field 9 (wg_compute): '99999999999999999999999' is too large",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -9223372036854775809 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 2 (reserved): '-9223372036854775809' is out of the signed 64-bit range",
           NULL);
    EXPECT(ctx,
           "DATA\n4294967295\n",
           "w.txt:2: field 1 (layer count): '4294967295' is too large",
           NULL);
    EXPECT(ctx,
           "MODEL model_parallel_NPU_group: 4294967296\n1\n",
           "w.txt:1: field 3 (model_parallel_NPU_group): '4294967296' is too large",
           NULL);

    /* past the limits: a collective a plan cannot take, a compute time past one second */
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 4611686018427387905 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 5 (fwd_comm_bytes): '4611686018427387905' is too large (at most "
           "4611686018427387904)",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 18446744073709551615 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:3: field 3 (fwd_compute): '18446744073709551615' is too large (at most "
           "1000000000)",
           NULL);
    EXPECT(ctx,
           "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1000000001\n",
           "w.txt:3: field 12 (update_delay): '1000000001' is too large (at most 1000000000)",
           NULL);

    /* the extremes themselves are accepted */
    const char* max = "DATA\n1\nl0 -9223372036854775808 1000000000 NONE 4611686018427387904 0 "
                      "NONE 0 0 ALLREDUCE 0 1000000000\n";
    tn_error err;
    tn_workload* wl = NULL;
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(max, strlen(max), "max", &wl, &err) == TN_OK,
                   "%s",
                   err.message);
    TN_CHECK(ctx, tn_workload_layer_at(wl, 0)->reserved == INT64_MIN);
    TN_CHECK(ctx,
             tn_workload_layer_at(wl, 0)->pass[TN_PASS_FWD].compute_cycles ==
                 TN_WORKLOAD_MAX_CYCLES);
    TN_CHECK(ctx, tn_workload_layer_at(wl, 0)->pass[TN_PASS_FWD].comm_bytes == TN_BYTES_MAX);
    TN_CHECK(ctx, tn_workload_layer_at(wl, 0)->update_delay == TN_WORKLOAD_MAX_CYCLES);
    tn_workload_destroy(wl);
}

static void
test_bad_truncated(tn_test_ctx* ctx)
{
    EXPECT(
        ctx,
        "DATA\n3\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\nb -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
        "w.txt:5: field 1 (name): unexpected end of file",
        "line 2 declares 3 layers, the file has 2");
    EXPECT(ctx, "DATA\n", "w.txt:2: field 1 (layer count): missing", NULL);
    /* a huge declared count is never allocated: the error is about the file */
    EXPECT(ctx,
           "DATA\n4294967294\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
           "w.txt:4: field 1 (name): unexpected end of file",
           "declares 4294967294 layers, the file has 1");

    /* the real Resnet50 file cut in the middle of a line, and after a whole line */
    char path[512];
    tn_test_data_path(ctx, "workloads/Resnet50_DataParallel.txt", path, sizeof(path));
    FILE* f = fopen(path, "rb");
    TN_REQUIRE(ctx, f != NULL);
    static char buf[8192];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    TN_REQUIRE(ctx, len > 1000 && len < sizeof(buf));
    /* cut after the 10th line's end: 10 lines, 8 layers of 54 */
    size_t cut = 0;
    for (int lines = 0; cut < len && lines < 10; cut++)
    {
        lines += buf[cut] == '\n';
    }
    expect_error(ctx,
                 "Resnet50.txt",
                 buf,
                 cut,
                 "Resnet50.txt:11: field 1 (name): unexpected end of file",
                 "declares 54 layers, the file has 8");
    /* cut inside line 11: its columns are missing */
    expect_error(ctx, "Resnet50.txt", buf, cut + 20, "Resnet50.txt:11: field ", ": missing");
}

static void
test_bad_extra_lines(tn_test_ctx* ctx)
{
    EXPECT(ctx,
           "DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n\nb -1 1 NONE 0 1 NONE 0 1 ALLREDUCE "
           "8 1\n",
           "w.txt:5: field 1 (name): extra line 'b' after the 1 layers declared on line 2",
           NULL);
    /* trailing blank lines and spaces are fine */
    const char* ok = "DATA\r\n1\r\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\r\n\r\n \t\n";
    tn_error err;
    tn_workload* wl = NULL;
    TN_CHECK_MSG(ctx,
                 tn_workload_parse(ok, strlen(ok), "ok", &wl, &err) == TN_OK,
                 "%s",
                 err.message);
    tn_workload_destroy(wl);
}

static void
test_bad_empty(tn_test_ctx* ctx)
{
    expect_error(ctx,
                 "w.txt",
                 "",
                 0,
                 "w.txt:1: field 1 (parallelism): empty file",
                 "DATA, HYBRID_TRANSFORMER");
    EXPECT(ctx, "\r\n \t\n\n", "w.txt:1: field 1 (parallelism): empty file", NULL);
    expect_error(ctx, "w.txt", NULL, 0, "w.txt:1: field 1 (parallelism): empty file", NULL);
    /* an empty file on disk too */
    char path[512];
    tn_test_temp_path(ctx, "workload-empty.txt", path, sizeof(path));
    FILE* f = fopen(path, "wb");
    TN_REQUIRE(ctx, f != NULL);
    fclose(f);
    tn_error err;
    tn_workload* wl = NULL;
    TN_CHECK_EQ(ctx, tn_workload_load_file(path, &wl, &err), TN_EPARSE);
    TN_CHECK(ctx, wl == NULL && contains(err.message, ":1: field 1 (parallelism): empty file"));
    remove(path);
    TN_CHECK_EQ(ctx, tn_workload_load_file("/nonexistent/w.txt", &wl, &err), TN_EIO);
    TN_CHECK(ctx, contains(err.message, "/nonexistent/w.txt"));
}

static void
test_bad_nul(tn_test_ctx* ctx)
{
    const char text[] = "DATA\n1\na -1 1 NONE\0 0 1 NONE 0 1 ALLREDUCE 8 1\n";
    expect_error(ctx, "w.txt", text, sizeof(text) - 1, "w.txt:3: contains a NUL byte", NULL);
}

/* ---- round trip ------------------------------------------------------------------ */

static uint64_t
next_random(uint64_t* s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* A value in [0, max] (max < UINT64_MAX), often at the ends. */
static uint64_t
random_value(uint64_t* s, uint64_t max)
{
    switch (next_random(s) % 4)
    {
    case 0:
        return 0;
    case 1:
        return max - next_random(s) % 3;
    case 2:
        return next_random(s) % 100000;
    default:
        return next_random(s) % (max + 1);
    }
}

/* Append a printf'd piece to buf (size cap); returns the new length. */
static size_t
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    append(char* buf, size_t len, size_t cap, const char* format, ...)
{
    va_list ap;
    va_start(ap, format);
    int k = vsnprintf(buf + len, len < cap ? cap - len : 0, format, ap);
    va_end(ap);
    return len + (k > 0 ? (size_t)k : 0);
}

static int
same_workload(const tn_workload* a, const tn_workload* b)
{
    int ok = tn_workload_parallelism(a) == tn_workload_parallelism(b) &&
             tn_workload_model_parallel_group(a) == tn_workload_model_parallel_group(b) &&
             tn_workload_dlrm_last_bottom_layer(a) == tn_workload_dlrm_last_bottom_layer(b) &&
             tn_workload_layer_count(a) == tn_workload_layer_count(b);
    for (uint32_t i = 0; ok && i < tn_workload_layer_count(a); i++)
    {
        const tn_workload_layer* x = tn_workload_layer_at(a, i);
        const tn_workload_layer* y = tn_workload_layer_at(b, i);
        ok &= strcmp(x->name, y->name) == 0 && x->reserved == y->reserved &&
              x->update_delay == y->update_delay && x->parallelism == y->parallelism;
        for (int p = 0; p < TN_PASS_COUNT; p++)
        {
            ok &= x->pass[p].compute_cycles == y->pass[p].compute_cycles &&
                  x->pass[p].comm == y->pass[p].comm &&
                  x->pass[p].comm_bytes == y->pass[p].comm_bytes;
        }
    }
    return ok;
}

static void
test_roundtrip(tn_test_ctx* ctx)
{
    static char text[1 << 16];
    static char again[1 << 16];
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (int trial = 0; trial < 40; trial++)
    {
        tn_parallelism par = (tn_parallelism)(trial % TN_PARALLELISM_COUNT);
        uint32_t layers = 1 + (uint32_t)(next_random(&seed) % 40);
        uint32_t group = trial % 3 == 0 ? 0 : 1 + (uint32_t)(next_random(&seed) % 64);
        size_t len = 0;
        const size_t cap = sizeof(text);
        /* columns separated by random runs of spaces and tabs, CRLF on odd trials */
        const char* eol = trial % 2 ? "\r\n" : "\n";
        len = append(text, len, cap, "%s", tn_parallelism_name(par));
        uint32_t bottom = TN_WORKLOAD_NONE;
        if (par == TN_PARALLELISM_HYBRID_DLRM && trial % 4 != 0)
        {
            bottom = (uint32_t)(next_random(&seed) % layers);
            len = append(text, len, cap, " %u", bottom);
        }
        if (group)
        {
            len = append(text, len, cap, "\tmodel_parallel_NPU_group: %u\t\t", group);
        }
        len = append(text, len, cap, "%s%u%s", eol, layers, eol);
        for (uint32_t i = 0; i < layers; i++)
        {
            len = append(text,
                         len,
                         cap,
                         "layer_%d_%u %lld",
                         trial,
                         i,
                         (long long)(next_random(&seed) % 7) - 3);
            for (int p = 0; p < TN_PASS_COUNT; p++)
            {
                tn_comm_type t = (tn_comm_type)(next_random(&seed) % TN_COMM_TYPE_COUNT);
                unsigned long long c =
                    (unsigned long long)random_value(&seed, TN_WORKLOAD_MAX_CYCLES);
                unsigned long long b = (unsigned long long)random_value(&seed, TN_BYTES_MAX);
                len = append(text,
                             len,
                             cap,
                             "%s%llu\t%s  %llu",
                             p ? " " : "\t",
                             c,
                             tn_comm_type_name(t),
                             b);
            }
            len = append(text,
                         len,
                         cap,
                         " %llu",
                         (unsigned long long)random_value(&seed, TN_WORKLOAD_MAX_CYCLES));
            if (par == TN_PARALLELISM_HYBRID_CUSTOMIZED)
            {
                tn_parallelism lp =
                    (tn_parallelism)(next_random(&seed) % TN_PARALLELISM_HYBRID_CUSTOMIZED);
                len = append(text, len, cap, " %s", tn_parallelism_name(lp));
            }
            len = append(text, len, cap, "%s", eol);
        }
        TN_REQUIRE(ctx, len < cap);

        tn_error err;
        tn_workload* a = NULL;
        TN_REQUIRE_MSG(ctx,
                       tn_workload_parse(text, len, "gen", &a, &err) == TN_OK,
                       "trial %d: %s",
                       trial,
                       err.message);
        TN_CHECK_EQ(ctx, tn_workload_layer_count(a), layers);
        TN_CHECK_EQ(ctx, tn_workload_model_parallel_group(a), group);
        TN_CHECK_EQ(ctx, tn_workload_dlrm_last_bottom_layer(a), bottom);

        char path[512];
        tn_test_temp_path(ctx, "workload-roundtrip.txt", path, sizeof(path));
        FILE* f = fopen(path, "wb");
        TN_REQUIRE(ctx, f != NULL);
        TN_CHECK_EQ(ctx, tn_workload_write(a, f, &err), TN_OK);
        fclose(f);
        tn_workload* b = NULL;
        TN_REQUIRE_MSG(ctx,
                       tn_workload_load_file(path, &b, &err) == TN_OK,
                       "trial %d: %s",
                       trial,
                       err.message);
        TN_CHECK_MSG(ctx, same_workload(a, b), "trial %d: written workload differs", trial);

        /* writing the re-read workload gives the same bytes */
        f = fopen(path, "rb");
        TN_REQUIRE(ctx, f != NULL);
        size_t n1 = fread(text, 1, sizeof(text), f);
        fclose(f);
        f = fopen(path, "wb");
        TN_REQUIRE(ctx, f != NULL);
        TN_CHECK_EQ(ctx, tn_workload_write(b, f, &err), TN_OK);
        fclose(f);
        f = fopen(path, "rb");
        TN_REQUIRE(ctx, f != NULL);
        size_t n2 = fread(again, 1, sizeof(again), f);
        fclose(f);
        TN_CHECK_MSG(ctx,
                     n1 == n2 && memcmp(text, again, n1) == 0,
                     "trial %d: second write differs",
                     trial);
        remove(path);
        tn_workload_destroy(a);
        tn_workload_destroy(b);
    }

    /* the real files survive a write and re-read too */
    for (size_t k = 0; k < sizeof(real_files) / sizeof(real_files[0]); k++)
    {
        char rel[128];
        char path[512];
        char tmp[512];
        snprintf(rel, sizeof(rel), "workloads/%s", real_files[k]);
        tn_test_data_path(ctx, rel, path, sizeof(path));
        tn_test_temp_path(ctx, "workload-real.txt", tmp, sizeof(tmp));
        tn_error err;
        tn_workload* a = NULL;
        tn_workload* b = NULL;
        TN_REQUIRE(ctx, tn_workload_load_file(path, &a, &err) == TN_OK);
        FILE* f = fopen(tmp, "wb");
        TN_REQUIRE(ctx, f != NULL);
        TN_CHECK_EQ(ctx, tn_workload_write(a, f, &err), TN_OK);
        fclose(f);
        TN_REQUIRE_MSG(ctx, tn_workload_load_file(tmp, &b, &err) == TN_OK, "%s", err.message);
        TN_CHECK_MSG(ctx, same_workload(a, b), "%s: written workload differs", real_files[k]);
        remove(tmp);
        tn_workload_destroy(a);
        tn_workload_destroy(b);
    }
}

/* HYBRID_TRANSFORMER_FWD_IN_BCKWD: the lists of line 1, what each initiating layer
   recomputes (ASTRA-sim's Forward_In_BackPass: from the nearest checkpoint at or below
   it up to the layer below it), a write/parse round trip and the refused cases. */
static void
test_fwd_in_bckwd(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err;
    tn_workload* wl = NULL;
    tn_test_data_path(ctx, "workloads/Transformer_FwdInBckwd_small.txt", path, sizeof(path));
    TN_REQUIRE_MSG(ctx, tn_workload_load_file(path, &wl, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, tn_workload_parallelism(wl), TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
    TN_CHECK_EQ(ctx, tn_workload_model_parallel_group(wl), 2);
    const uint32_t none = TN_WORKLOAD_NONE;
    const uint32_t from[6] = {none, none, 0, none, none, 3};
    const int checkpoint[6] = {1, 0, 0, 1, 0, 0};
    for (uint32_t i = 0; i < 6; i++)
    {
        TN_CHECK_MSG(ctx,
                     tn_workload_recompute_from(wl, i) == from[i],
                     "layer %u recomputes from %u",
                     i,
                     tn_workload_recompute_from(wl, i));
        TN_CHECK_EQ(ctx, tn_workload_is_checkpoint(wl, i), checkpoint[i]);
    }
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 1, TN_PASS_FWD), TN_GROUP_INNER);
    TN_CHECK_EQ(ctx, tn_workload_layer_group(wl, 1, TN_PASS_WG), TN_GROUP_OUTER);
    char* text = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&text, &len);
    TN_REQUIRE(ctx, f != NULL);
    TN_CHECK_EQ(ctx, tn_workload_write(wl, f, &err), TN_OK);
    fclose(f);
    TN_CHECK_MSG(ctx,
                 contains(text,
                          "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
                          "checkpoints: 2 0 3 checkpoint_initiates: 2 5 2\n"),
                 "%s",
                 text);
    tn_workload* back = NULL;
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(text, len, "back", &back, &err) == TN_OK,
                   "%s",
                   err.message);
    for (uint32_t i = 0; i < 6; i++)
    {
        TN_CHECK_EQ(ctx, tn_workload_recompute_from(back, i), from[i]);
    }
    tn_workload_destroy(back);
    free(text);
    tn_workload_destroy(wl);

    /* the ASTRA-sim file's line 1 (22 fields) with its 21 layers */
    char big[8192];
    int at = snprintf(big,
                      sizeof big,
                      "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 4 checkpoints: 2 "
                      "2 11 checkpoint_initiates: 2 19 10\n21\n");
    for (int i = 0; i < 21; i++)
    {
        at += snprintf(big + at, sizeof big - at, "l%d -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n", i);
    }
    TN_REQUIRE_MSG(ctx,
                   tn_workload_parse(big, (size_t)at, "astra.txt", &wl, &err) == TN_OK,
                   "%s",
                   err.message);
    TN_CHECK_EQ(ctx, tn_workload_recompute_from(wl, 19), 11);
    TN_CHECK_EQ(ctx, tn_workload_recompute_from(wl, 10), 2);
    TN_CHECK_EQ(ctx, tn_workload_recompute_from(wl, 11), TN_WORKLOAD_NONE);
    tn_workload_destroy(wl);

    /* refused, each naming line 1 and the key */
    static const struct
    {
        const char* line1;
        const char* message;
    } bad[] = {
        {"checkpoints: 1 0 checkpoint_initiates: 1 9",
         "x.txt:1: checkpoint_initiates: 9 is not "
         "a layer index (the workload has 4 layers)"},
        {"checkpoints: 1 2 checkpoint_initiates: 1 1",
         "x.txt:1: checkpoint_initiates: layer 1 has no checkpoint at or below it"},
        {"checkpoints: 1 2 checkpoint_initiates: 1 2",
         "x.txt:1: checkpoint_initiates: layer 2 is itself a checkpoint"},
        {"checkpoints: 1 0 checkpoint_initiates: 2 3 2",
         "x.txt:1: checkpoint_initiates: layers 2 and 3 both recompute from checkpoint 0"},
        {"checkpoints: 3 0 1", "x.txt:1: field 5 (checkpoints): announces 3 layers, line 1 has 2"},
        {"checkpoints: 1 x", "x.txt:1: field 6 (checkpoints): 'x' is not a non-negative integer"},
        {"checkpoints: 1 0 checkpoints: 1 0", "x.txt:1: field 7 (checkpoints): given twice"},
        {"checkpoints:", "x.txt:1: field 5 (checkpoints): missing value after 'checkpoints:'"},
    };

    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    {
        char t[512];
        int n = snprintf(t,
                         sizeof t,
                         "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 %s\n4\n"
                         "a -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nb -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
                         "c -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nd -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
                         bad[k].line1);
        TN_CHECK_EQ(ctx, tn_workload_parse(t, (size_t)n, "x.txt", &wl, &err), TN_EPARSE);
        TN_CHECK_MSG(ctx,
                     contains(err.message, bad[k].message),
                     "%s: got '%s'",
                     bad[k].line1,
                     err.message);
    }
    /* the lists belong to HYBRID_TRANSFORMER_FWD_IN_BCKWD only */
    const char* other =
        "HYBRID_TRANSFORMER checkpoints: 1 0\n1\na -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n";
    TN_CHECK_EQ(ctx, tn_workload_parse(other, strlen(other), "y.txt", &wl, &err), TN_EPARSE);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "y.txt:1: field 2: unexpected 'checkpoints:'"),
                 "%s",
                 err.message);
}

void
tn_suite_workload(tn_test_suite* suite)
{
    tn_test_add(suite, "real-files", test_real_files);
    tn_test_add(suite, "real-values", test_real_values);
    tn_test_add(suite, "names", test_names);
    tn_test_add(suite, "groups", test_groups);
    tn_test_add(suite, "validate", test_validate);
    tn_test_add(suite, "bad-missing-column", test_bad_missing_column);
    tn_test_add(suite, "bad-extra-column", test_bad_extra_column);
    tn_test_add(suite, "bad-parallelism", test_bad_parallelism);
    tn_test_add(suite, "bad-collective", test_bad_collective);
    tn_test_add(suite, "bad-negative", test_bad_negative);
    tn_test_add(suite, "bad-non-numeric", test_bad_non_numeric);
    tn_test_add(suite, "bad-overflow", test_bad_overflow);
    tn_test_add(suite, "bad-truncated", test_bad_truncated);
    tn_test_add(suite, "bad-extra-lines", test_bad_extra_lines);
    tn_test_add(suite, "bad-empty", test_bad_empty);
    tn_test_add(suite, "bad-nul", test_bad_nul);
    tn_test_add(suite, "roundtrip", test_roundtrip);
    tn_test_add(suite, "fwd-in-bckwd", test_fwd_in_bckwd);
}
