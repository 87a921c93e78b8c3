/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-simai: SimAI / AICB workload files (the grammar of SimAI's Workload::initialize_workload)
 * and their generated programs: the refusals name file, line and token; the groups are
 * SimAI's; every collective has the size its line gives; the pipeline is sends and receives.
 */
#include "tn-test.h"

#include "ns3/tn-simai.h"
#include "ns3/tn-topology.h"

#include <stdio.h>
#include <string.h>

/* 8 ranks: tp 2, pp 2, ep 2 (dp 2), two micro-batches; the MoE line's all-to-all in EP. */
static const char* PIPE = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 2 pp: 2 vpp: 1 "
                          "ga: 2 all_gpus: 8 pp_comm 4096\n"
                          "3\n"
                          "attn -1 100 ALLREDUCE 1000 50 ALLREDUCE 1000 50 NONE 0 0\n"
                          "moe -1 200 ALLTOALL_EP 3000 100 ALLTOALL_EP 3000 100 "
                          "ALLREDUCE_DP_EP 7000 0\n"
                          "mlp -1 300 NONE 0 150 NONE 0 150 ALLREDUCE 5000 10\n";

static void
test_parse(tn_test_ctx* ctx)
{
    tn_simai_workload* wl = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_simai_parse(PIPE, "pipe.txt", &wl, &err) == TN_OK);
    const tn_simai_header* h = tn_simai_header_of(wl);
    TN_CHECK_EQ(ctx, h->tp, 2);
    TN_CHECK_EQ(ctx, h->ep, 2);
    TN_CHECK_EQ(ctx, h->pp, 2);
    TN_CHECK_EQ(ctx, h->ga, 2);
    TN_CHECK_EQ(ctx, h->pp_comm, 4096);
    TN_CHECK_EQ(ctx, tn_simai_layer_count(wl), 3);
    const tn_simai_layer* moe = tn_simai_layer_at(wl, 1);
    TN_CHECK(ctx, strcmp(moe->name, "moe") == 0);
    TN_CHECK_EQ(ctx, moe->pass[TN_SIMAI_FWD].group, TN_SIMAI_GROUP_EP);
    TN_CHECK_EQ(ctx, moe->pass[TN_SIMAI_WG].group, TN_SIMAI_GROUP_DP_EP);
    TN_CHECK_EQ(ctx, tn_simai_layer_at(wl, 0)->pass[TN_SIMAI_FWD].group, TN_SIMAI_GROUP_TP);
    TN_CHECK_EQ(ctx, tn_simai_layer_at(wl, 2)->pass[TN_SIMAI_WG].group, TN_SIMAI_GROUP_DP);
    TN_CHECK_EQ(ctx, tn_simai_layer_at(wl, 2)->pass[TN_SIMAI_FWD].compute_ns, 300);
    TN_CHECK_EQ(ctx, tn_simai_check(wl, 8, &err), TN_OK);
    TN_CHECK_EQ(ctx, tn_simai_check(wl, 16, &err), TN_EPARSE);
    TN_CHECK(ctx, strstr(err.message, "pipe.txt:1: 'all_gpus:' 8") != NULL);
    tn_simai_destroy(wl);

    char path[512];
    tn_test_data_path(ctx, "simai/megatron-gpt-small.txt", path, sizeof(path));
    TN_REQUIRE(ctx, tn_simai_load_file(path, &wl, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_simai_layer_count(wl), 6);
    TN_CHECK_EQ(ctx,
                tn_simai_header_of(wl)->policy,
                TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
    tn_simai_destroy(wl);
}

static void
test_errors(tn_test_ctx* ctx)
{
    const char* line = "l -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n";

    struct
    {
        const char* head;
        const char* body;
        const char* message;
    } bad[] = {
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 ga: 1 all_gpus: 2",
         "1\n",
         "w.txt:1: 'vpp:': is missing"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2 "
         "expert_parallel_npu_group: 1",
         "1\n",
         "w.txt:1: 'expert_parallel_npu_group:': unknown key"},
        {"DATA model_parallel_NPU_group: 2", "1\n", "w.txt:1: 'DATA': a SimAI workload's policy"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 2 vpp: 1 ga: 1 all_gpus: 4",
         "1\n",
         "w.txt:1: 'pp_comm': is missing or 0"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 0 all_gpus: 2",
         "1\n",
         "w.txt:1: '0': must be at least 1"},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 "
         "all_gpus: 2 checkpoints: 1 0 checkpoint_initiates: 0",
         "1\n",
         "w.txt:1: 'checkpoints:': activation recomputation"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2",
         "1\nl -1 1 ALLGATHER_XP 8 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: field 4 (fwd_comm_type) 'ALLGATHER_XP': unknown comm type"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2",
         "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0\n",
         "w.txt:3: 11 fields, a layer line has 12"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2",
         "2\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: 1 layer lines, line 2 declares 2"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2",
         "1\nl -1 1x NONE 0 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: field 3 (fwd_compute) '1x'"},
        {"HYBRID_CUSTOMIZED model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2",
         "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 0 SIDEWAYS\n",
         "w.txt:3: field 13 (policy) 'SIDEWAYS': unknown layer policy"},
        /* a control byte inside a field (the fuzz's mutation): quoted as text, one line */
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 2",
         "1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE\x1d_DP_EP 0 0\n",
         "w.txt:3: field 10 (wg_comm_type) 'ALLREDUCE\\x1d_DP_EP': unknown comm type"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        char text[1024];
        /* the first six cases are about line 1: a good layer line follows */
        snprintf(text, sizeof(text), "%s\n%s%s", bad[i].head, bad[i].body, i < 6 ? line : "");
        tn_simai_workload* wl = NULL;
        tn_error err;
        TN_CHECK_EQ(ctx, tn_simai_parse(text, "w.txt", &wl, &err), TN_EPARSE);
        TN_CHECK(ctx, wl == NULL);
        TN_CHECK_MSG(ctx,
                     strncmp(err.message, bad[i].message, strlen(bad[i].message)) == 0,
                     "case %zu: got '%s', want '%s'",
                     i,
                     err.message,
                     bad[i].message);
    }
}

/* Nodes of `kind` serving `serves` in a trace: count, bytes, and the group size of the first. */
static uint32_t
count(const tn_chakra_trace* t, tn_chakra_kind kind, uint32_t serves, uint64_t* bytes, uint32_t* gs)
{
    uint32_t n = 0;
    *bytes = 0;
    *gs = 0;
    for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
    {
        const tn_chakra_node* node = tn_chakra_node_at(t, i);
        if (node->kind == kind && node->serves == serves)
        {
            *gs = n++ ? *gs : node->group_count;
            *bytes += node->comm_bytes;
        }
    }
    return n;
}

static void
test_program(tn_test_ctx* ctx)
{
    tn_simai_workload* wl = NULL;
    tn_simai_program* prog = NULL;
    tn_error err;
    TN_REQUIRE(ctx, tn_simai_parse(PIPE, "pipe.txt", &wl, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_simai_program_create(wl, 8, &prog, &err) == TN_OK);
    const tn_simai_header* h = tn_simai_header_of(wl);
    for (uint32_t r = 0; r < 8; r++)
    {
        const tn_chakra_trace* t = tn_simai_program_traces(prog)[r];
        const uint32_t stage = r / h->tp % h->pp;
        uint64_t bytes;
        uint32_t gs;
        /* TP: attn's fwd and ig all-reduce per micro-batch */
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_COLLECTIVE, TN_SERVES_TP, &bytes, &gs), 2 * h->ga);
        TN_CHECK_EQ(ctx, bytes, 2 * h->ga * 1000);
        TN_CHECK_EQ(ctx, gs, h->tp);
        /* EP: moe's two all-to-alls per micro-batch, in groups of ep */
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_COLLECTIVE, TN_SERVES_EP, &bytes, &gs), 2 * h->ga);
        TN_CHECK_EQ(ctx, bytes, 2 * h->ga * 3000);
        TN_CHECK_EQ(ctx, gs, h->ep);
        /* DP: mlp's all-reduce in DP (2 ranks) once; moe's DP_EP group has one rank: none */
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_COLLECTIVE, TN_SERVES_DP, &bytes, &gs), 1);
        TN_CHECK_EQ(ctx, bytes, 5000);
        TN_CHECK_EQ(ctx, gs, 8 / (h->tp * h->pp));
        /* PP: one send and one receive per micro-batch, forward or backward by stage */
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_SEND, TN_SERVES_PP, &bytes, &gs), h->ga);
        TN_CHECK_EQ(ctx, bytes, h->ga * h->pp_comm);
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_RECV, TN_SERVES_PP, &bytes, &gs), h->ga);
        for (uint32_t i = 0; i < tn_chakra_node_count(t); i++)
        {
            const tn_chakra_node* n = tn_chakra_node_at(t, i);
            if (n->kind == TN_CHAKRA_SEND || n->kind == TN_CHAKRA_RECV)
            {
                TN_CHECK_EQ(ctx, n->peer, r + (stage == 0 ? h->tp : -h->tp));
            }
            if (n->kind == TN_CHAKRA_COLLECTIVE && n->serves == TN_SERVES_EP)
            {
                /* SimAI's EP group with pp 1 is ep consecutive TP groups; here the d that
                   differ by one, the stride T * P */
                TN_CHECK_EQ(ctx, n->group[1] - n->group[0], h->tp * h->pp);
            }
        }
    }
    tn_simai_program_destroy(prog);
    TN_CHECK_EQ(ctx, tn_simai_program_create(wl, 4, &prog, &err), TN_EPARSE);
    tn_simai_destroy(wl);
}

/*
 * moe-small.txt, shaped like AICB's MoE example (SimAI's example/workload_analytical.txt):
 * tp 2, ep 2, pp 2, vpp 2, ga 2 on 16 ranks (D 4, DP_EP 2). Per rank: the ALLTOALL_EP line's
 * fwd and ig per micro-batch in EP groups of 2; the two _DP_EP wg lines once in groups of 2;
 * the two bare wg lines once in DP groups of 4; the TP lines per micro-batch. Pipeline: a
 * micro-batch crosses 2 * 2 virtual stages, so a stage sends V times per pass but at the
 * ends: forward sends of the last stage and backward sends of the first are one fewer.
 */
static void
test_moe(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err;
    tn_simai_workload* wl = NULL;
    tn_simai_program* prog = NULL;
    tn_test_data_path(ctx, "simai/moe-small.txt", path, sizeof(path));
    TN_REQUIRE(ctx, tn_simai_load_file(path, &wl, &err) == TN_OK);
    TN_REQUIRE(ctx, tn_simai_program_create(wl, 16, &prog, &err) == TN_OK);
    const tn_simai_header* h = tn_simai_header_of(wl);
    for (uint32_t r = 0; r < 16; r++)
    {
        const tn_chakra_trace* t = tn_simai_program_traces(prog)[r];
        uint64_t bytes;
        uint32_t gs;
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_COLLECTIVE, TN_SERVES_EP, &bytes, &gs), 2 * h->ga);
        TN_CHECK_EQ(ctx, bytes, 2 * h->ga * 8192);
        TN_CHECK_EQ(ctx, gs, 2);
        /* DP: grad_gather 4096 + grad_param_comm 8192 (D 4), the _DP_EP 16384 + 32768 (2) */
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_COLLECTIVE, TN_SERVES_DP, &bytes, &gs), 4);
        TN_CHECK_EQ(ctx, bytes, 4096 + 8192 + 16384 + 32768);
        TN_CHECK_EQ(ctx,
                    gs,
                    2); /* the first issued: moe_grad_norm2's, the backward runs last first */
        /* TP per micro-batch: fwd 5 (embedding, attention x2, mlp AG, ALLTOALL), ig 4
           (embedding_grads, attention_row, mlp AG, ALLTOALL; attention_column's ig is 0 B) */
        TN_CHECK_EQ(ctx, count(t, TN_CHAKRA_COLLECTIVE, TN_SERVES_TP, &bytes, &gs), 9 * h->ga);
        TN_CHECK_EQ(ctx,
                    bytes,
                    h->ga * (4096 + 4096 + 4096 + 1536 + 2048 + 4096 + 4096 + 1536 + 2048));
        TN_CHECK_EQ(ctx,
                    count(t, TN_CHAKRA_SEND, TN_SERVES_PP, &bytes, &gs),
                    h->ga * (2 * h->vpp - 1));
        TN_CHECK_EQ(ctx, bytes, h->ga * (2 * h->vpp - 1) * h->pp_comm);
    }
    tn_simai_program_destroy(prog);
    tn_simai_destroy(wl);
}

/* SimAI topology files (tn-topology.h): the 6-field header, NVSwitches as intra-server
   switches, and the refusals naming file and line. */
static void
test_topology(tn_test_ctx* ctx)
{
    char path[512];
    tn_error err;
    tn_topology* t = NULL;
    tn_test_data_path(ctx, "simai/topo-2x2.txt", path, sizeof(path));
    TN_REQUIRE(ctx, tn_topology_load_file(path, &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), 4);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), 5);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 20);
    /* GPU 0 and its server's peer share NVSwitch 4 at 2400 Gb/s: the intra-server path */
    uint32_t deg;
    const uint32_t* out = tn_topology_out_links(t, tn_topology_npu_node(t, 0), &deg);
    TN_CHECK_EQ(ctx, deg, 2);
    TN_CHECK_EQ(ctx, tn_topology_link(t, out[0])->rate_bps, UINT64_C(2400000000000));
    tn_topology_destroy(t);

    const char* links = "0 4 2400Gbps 0.000025ms 0\n1 4 2400Gbps 0.000025ms 0\n"
                        "2 5 2400Gbps 0.000025ms 0\n3 5 2400Gbps 0.000025ms 0\n"
                        "0 6 1Gbps 1us 0\n1 6 1Gbps 1us 0\n2 6 1Gbps 1us 0\n3 6 1Gbps 1us 0\n";

    struct
    {
        const char* text;
        const char* message;
    } bad[] = {
        {"7 2 2 1 8 B300\n4 5 6\n", "s.txt:1: gpu_type 'B300' is not A100"},
        {"7 3 2 1 8 H100\n4 5 6\n",
         "s.txt:1: 4 GPUs (nodes - nvswitch_num - switch_num) do "
         "not fill servers of gpus_per_server = 3"},
        {"7 2 2 1 8 H100 x\n4 5 6\n", "s.txt:1: header: extra field 'x'"},
        {"7 2 2 1 2 H100\n4 5 6\n0 4 2400Gbps 0.000025ms 0\n2 4 2400Gbps 0.000025ms 0\n",
         "s.txt:4: link 1: NVSwitch 4 links GPUs of servers 0 and 1"},
        {"7 2 2 1 2 H100\n4 5 6\n0 4 2400Gbps 0.000025ms 0\n4 6 2400Gbps 0.000025ms 0\n",
         "s.txt:4: link 1: NVSwitch 4 links switch 6"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        char text[1024];
        /* the cases of line 1 get the good links; the link cases end early */
        snprintf(text, sizeof(text), "%s%s", bad[i].text, i < 3 ? links : "");
        t = NULL;
        TN_CHECK_EQ(ctx, tn_topology_load_text(text, "s.txt", &t, &err), TN_EPARSE);
        TN_CHECK(ctx, t == NULL);
        TN_CHECK_MSG(ctx,
                     strncmp(err.message, bad[i].message, strlen(bad[i].message)) == 0,
                     "case %zu: got '%s', want '%s'",
                     i,
                     err.message,
                     bad[i].message);
    }
}

void
tn_suite_simai(tn_test_suite* suite)
{
    tn_test_add(suite, "parse", test_parse);
    tn_test_add(suite, "errors", test_errors);
    tn_test_add(suite, "program", test_program);
    tn_test_add(suite, "moe", test_moe);
    tn_test_add(suite, "topology", test_topology);
}
