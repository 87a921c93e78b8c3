/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of NCCL's CollNet Direct (tn-nccl.h) on a fabric that reduces (a preset's sharp=1):
 * its graph, bandwidth, latency and channels against NCCL's formulas worked by hand, the
 * tuner's choice for a table of sizes, the refusals without SHARP, and the plan (every rank
 * the full sum; a NIC busy for SHARP's bytes, its slice once each way).
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-nccl.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-verify.h"

#include <string.h>

static tn_topology*
spec(tn_test_ctx* ctx, const char* text)
{
    tn_topology* t = NULL;
    tn_error err;
    TN_CHECK_MSG(ctx, tn_topology_from_spec(text, &t, &err) == TN_OK, "%s: %s", text, err.message);
    return t;
}

/* The graph: 8 heads (one NIC per GPU); bwInter the fastest inter speed a NIC takes (Hopper
 * 48 <= 50 GB/s; before Hopper the generic array's 24 <= 25 GB/s), bwIntra raised while
 * below 2 bwInter (Ampere: 24, 28, 30, 48; Hopper: 48 is the fastest); busBw = 8 bwIntra
 * (x 0.85 on Hopper), algorithm bandwidth busBw / 2; latency 2 (3.7 + (g - 1) 0.4) + 31. */
static void
test_collnet_model(tn_test_ctx* ctx)
{
    tn_topology* h4 = spec(ctx, "dgx-h100:servers=4,sharp=1");
    tn_topology* a2 = spec(ctx, "dgx-a100:servers=2,fabric=rail-only,sharp=1");
    tn_topology* h4g = spec(ctx, "dgx-h100:servers=2,gpus=4,sharp=1");
    tn_topology* plain = spec(ctx, "dgx-h100:servers=4");
    if (!h4 || !a2 || !h4g || !plain)
        return;
    tn_nccl_system sh, sa, sg, sp;
    tn_nccl_system_of(h4, 32, &sh);
    tn_nccl_system_of(a2, 16, &sa);
    tn_nccl_system_of(h4g, 8, &sg);
    tn_nccl_system_of(plain, 32, &sp);
    TN_CHECK(ctx, sh.sharp && sa.sharp && sg.sharp && !sp.sharp);

    const struct
    {
        const tn_nccl_system* sys;
        uint32_t nc;
        double intra, inter, busbw, lat;
    } g[] = {{&sh, 8, 48, 48, 8 * 48 * 0.85, 2 * (3.7 + 7 * 0.4) + 31},
             {&sa, 8, 48, 24, 8 * 48, 2 * (3.7 + 7 * 0.4) + 31},
             {&sg, 4, 48, 48, 4 * 48 * 0.85, 2 * (3.7 + 3 * 0.4) + 31}};

    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
    {
        uint32_t nc;
        double bi, bo;
        tn_nccl_collnet_graph(g[i].sys, &nc, &bi, &bo);
        TN_CHECK_EQ(ctx, nc, g[i].nc);
        TN_CHECK_NEAR(ctx, bi, g[i].intra, 1e-9);
        TN_CHECK_NEAR(ctx, bo, g[i].inter, 1e-9);
        tn_nccl_estimate e =
            tn_nccl_model(g[i].sys, TN_COLL_ALL_REDUCE, TN_NCCL_COLLNET, TN_NCCL_SIMPLE);
        TN_CHECK_NEAR(ctx, e.busbw_GBps, g[i].busbw, 1e-9);
        TN_CHECK_NEAR(ctx, e.bw_GBps, g[i].busbw / 2, 1e-9);
        TN_CHECK_NEAR(ctx, e.lat_us, g[i].lat, 1e-9);
        TN_CHECK_NEAR(ctx,
                      tn_nccl_time_us(g[i].sys,
                                      TN_COLL_ALL_REDUCE,
                                      TN_NCCL_COLLNET,
                                      TN_NCCL_SIMPLE,
                                      1u << 30),
                      g[i].lat + (1u << 30) / (1000.0 * g[i].busbw / 2),
                      1e-6);
    }
    /* Simple all-reduce only, and only where the fabric reduces */
    TN_CHECK(ctx, tn_nccl_model(&sh, TN_COLL_ALL_REDUCE, TN_NCCL_COLLNET, TN_NCCL_LL).bw_GBps == 0);
    TN_CHECK(ctx,
             tn_nccl_model(&sh, TN_COLL_ALL_REDUCE, TN_NCCL_COLLNET, TN_NCCL_LL128).bw_GBps == 0);
    TN_CHECK(ctx,
             tn_nccl_model(&sh, TN_COLL_ALL_GATHER, TN_NCCL_COLLNET, TN_NCCL_SIMPLE).bw_GBps == 0);
    TN_CHECK(ctx,
             tn_nccl_model(&sp, TN_COLL_ALL_REDUCE, TN_NCCL_COLLNET, TN_NCCL_SIMPLE).bw_GBps == 0);

    /* channels (8 heads, 640 threads): 16 while S >= 16 x 640 x 8 x 512 = 41943040; 32 MiB
     * < 13 x 2621440 = 34078720 drops to 12, where 12 x 2621440 = 31457280 <= 32 MiB; 1 MiB
     * goes on (the threshold halved at 12, 6, 3) to 2, where 2 x 640 x 8 x 64 = 655360 <= 1
     * MiB; 64 KiB to 1 */
    const struct
    {
        uint64_t bytes;
        uint32_t channels;
    } ch[] = {{1u << 30, 16},
              {41943040, 16},
              {41943039, 15},
              {32 << 20, 12},
              {1 << 20, 2},
              {64 << 10, 1}};

    for (size_t i = 0; i < sizeof(ch) / sizeof(ch[0]); i++)
        TN_CHECK_MSG(ctx,
                     tn_nccl_channels(&sh, TN_NCCL_COLLNET, TN_NCCL_SIMPLE, ch[i].bytes) ==
                         ch[i].channels,
                     "%llu bytes: %u channels, expected %u",
                     (unsigned long long)ch[i].bytes,
                     tn_nccl_channels(&sh, TN_NCCL_COLLNET, TN_NCCL_SIMPLE, ch[i].bytes),
                     ch[i].channels);
    /* the simulation: a hop between servers carries the plan's bytes x s / (2(s - 1)) = 4/6
     * (SHARP's slice once where the plan's exchange moves 2(s - 1)/s of it); half of the 31 us
     * on each of the two hops between servers (a rail: 2 us of links), 3.7 us a hop inside
     * (NVLink path 0.6 us), the arity's 2 x 7 x 0.4 us as the launch */
    tn_cost_protocol c = tn_nccl_protocol_cost(&sh, TN_NCCL_COLLNET, TN_NCCL_SIMPLE);
    TN_CHECK_EQ(ctx, tn_cost_protocol_wire(&c, 1, 6000), 4000);
    TN_CHECK_EQ(ctx, tn_cost_protocol_wire(&c, 0, 8240), 10000);
    TN_CHECK_NEAR(ctx, tn_cost_protocol_delay_ns(&c, 1, 1), 15500 - 2000, 1e-9);
    TN_CHECK_NEAR(ctx, tn_cost_protocol_delay_ns(&c, 0, 0), 5600 + 3700 - 600, 1e-9);
    c = tn_nccl_protocol_cost(&sa, TN_NCCL_COLLNET, TN_NCCL_SIMPLE);
    TN_CHECK_EQ(ctx, tn_cost_protocol_wire(&c, 1, 6000), 6000); /* 2 servers: 2/2 */
    tn_topology_destroy(h4);
    tn_topology_destroy(a2);
    tn_topology_destroy(h4g);
    tn_topology_destroy(plain);
}

/* The tuner on 4 SHARP servers (times in us, tuning model; CollNet 44 + S / 163200 on
 * dgx-h100, 44 + S / 192000 on dgx-a100): small sizes stay on the tree's LL (1 KiB: 35.3
 * vs CollNet 44.0), CollNet from 64 KiB (44.4 vs tree LL 45.9) to 64 MiB on dgx-h100 (455.2
 * vs NVLS-tree 465.8), NVLS-tree beyond (256 MiB: 1537.4 vs 1688.8); on dgx-a100 (no NVLS)
 * CollNet to the largest (1 GiB: 5636.4 vs ring Simple 10797.8). Without sharp=1 the same
 * sizes never pick it. */
static void
test_collnet_tuner(tn_test_ctx* ctx)
{
    const struct
    {
        const char* spec;
        uint64_t bytes;
        const char* expect;
    } cases[] = {
        {"dgx-h100:servers=4,sharp=1", 1 << 10, "nccl:tree:ll"},
        {"dgx-h100:servers=4,sharp=1", 64 << 10, "nccl:collnet:simple"},   /* 44.4 vs 45.9 */
        {"dgx-h100:servers=4,sharp=1", 1 << 20, "nccl:collnet:simple"},    /* 50.4 vs 76.4 */
        {"dgx-h100:servers=4,sharp=1", 16 << 20, "nccl:collnet:simple"},   /* 146.8 vs 182.1 */
        {"dgx-h100:servers=4,sharp=1", 64 << 20, "nccl:collnet:simple"},   /* 455.2 vs 465.8 */
        {"dgx-h100:servers=4,sharp=1", 256 << 20, "nccl:nvlstree:simple"}, /* 1537.4 vs 1688.8 */
        {"dgx-a100:servers=4,sharp=1", 1 << 10, "nccl:tree:ll"},
        {"dgx-a100:servers=4,sharp=1", 1 << 20, "nccl:collnet:simple"},  /* 49.5 vs 85.8 */
        {"dgx-a100:servers=4,sharp=1", 1u << 30, "nccl:collnet:simple"}, /* 5636.4 vs 10797.8 */
        {"dgx-h100:servers=4", 1 << 20, "nccl:tree:ll128"},
        {"dgx-h100:servers=4", 64 << 20, "nccl:nvlstree:simple"},
        {"dgx-a100:servers=4", 1u << 30, "nccl:ring:simple"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        tn_topology* t = spec(ctx, cases[i].spec);
        if (!t)
            continue;
        tn_plan_request r;
        tn_plan_request_init(&r);
        r.algorithm = "nccl";
        r.bytes = cases[i].bytes;
        tn_nccl_choice c;
        tn_error err;
        if (TN_CHECK_MSG(ctx, tn_nccl_choose(t, &r, 32, &c, &err) == TN_OK, "%s", err.message))
            TN_CHECK_MSG(ctx,
                         strcmp(c.name, cases[i].expect) == 0,
                         "%s, %llu bytes: %s, expected %s",
                         cases[i].spec,
                         (unsigned long long)cases[i].bytes,
                         c.name,
                         cases[i].expect);
        tn_topology_destroy(t);
    }
}

/* Forcing CollNet where it does not run names why; sharp=1 only where a fabric is */
static void
test_collnet_refusals(tn_test_ctx* ctx)
{
    const struct
    {
        const char* spec;
        const char* algo;
        tn_collective coll;
        const char* why;
    } no[] = {
        {"dgx-h100:servers=4", "nccl:collnet", TN_COLL_ALL_REDUCE, "no fabric here offers it"},
        {"dgx-h100:servers=4,sharp=0", "nccl:collnet", TN_COLL_ALL_REDUCE, "(SHARP)"},
        {"dgx-h100:servers=4,sharp=1",
         "nccl:collnet:ll128",
         TN_COLL_ALL_REDUCE,
         "Simple protocol only"},
        {"dgx-h100:servers=4,sharp=1", "nccl:collnet", TN_COLL_ALL_GATHER, "all-reduce only"},
        {"gb200-nvl72:servers=2,sharp=1", "nccl:collnet", TN_COLL_ALL_REDUCE, "up to 8 GPUs"}};

    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
    {
        tn_topology* t = spec(ctx, no[i].spec);
        if (!t)
            continue;
        tn_plan_request r;
        tn_plan_request_init(&r);
        r.algorithm = no[i].algo;
        r.collective = no[i].coll;
        r.bytes = 1 << 20;
        tn_error err;
        TN_CHECK_MSG(ctx,
                     tn_plan_check(t, &r, &err) == TN_EUNSUPPORTED &&
                         strstr(err.message, no[i].why),
                     "%s on %s: %s",
                     no[i].algo,
                     no[i].spec,
                     err.message);
        tn_topology_destroy(t);
    }
    const char* bad[] = {"dgx-h100:servers=1,sharp=1", "dgx-h100:servers=2,sharp=2"};
    const char* why[] = {"sharp=1 needs servers >= 2", "sharp '2' is not 0 or 1"};
    for (size_t i = 0; i < 2; i++)
    {
        tn_topology* t = NULL;
        tn_error err;
        TN_CHECK_MSG(ctx,
                     tn_topology_from_spec(bad[i], &t, &err) == TN_EINVAL &&
                         strstr(err.message, why[i]),
                     "%s: %s",
                     bad[i],
                     err.message);
        tn_topology_destroy(t);
    }
}

/* The plan on 4 SHARP dgx-h100, 1 MiB forced: 2 channels (above), each 2 s g (g + s - 2) =
 * 2 x 4 x 8 x 10 sends; every rank the full sum (tn_verify); the registry's count; sends
 * between servers stay on their rail; a GPU's NIC link busy for SHARP's slice once (1 MiB / 8
 * = 131072 bytes at 400 Gb/s = 2621.44 ns), the plan's 2 x 3/4 of it in 12 sends of 16 KiB
 * at 4/6, each 10922.67 rounded up to 10923 */
static void
test_collnet_plan(tn_test_ctx* ctx)
{
    tn_topology* t = spec(ctx, "dgx-h100:servers=4,sharp=1");
    if (!t)
        return;
    tn_plan_request r;
    tn_plan_request_init(&r);
    r.algorithm = "nccl:collnet";
    r.bytes = 1 << 20;
    tn_schedule* s = NULL;
    tn_error err;
    tn_plan_size size;
    if (TN_CHECK_MSG(ctx, tn_plan(t, &r, &s, &err) == TN_OK, "%s", err.message))
    {
        TN_CHECK(ctx, strcmp(tn_schedule_algorithm(s), "nccl:collnet:simple") == 0);
        TN_CHECK_EQ(ctx, tn_schedule_chunks(s), 2);
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * 2 * 4 * 8 * 10);
        TN_CHECK(ctx, tn_plan_estimate(t, &r, &size, &err) == TN_OK);
        TN_CHECK_EQ(ctx, size.transfers, tn_schedule_count(s));
        TN_CHECK_MSG(ctx, tn_verify_schedule(s, t, NULL, &err) == TN_OK, "%s", err.message);
        uint32_t off_rail = 0;
        for (uint32_t i = 0; i < tn_schedule_count(s); i++)
        {
            const tn_transfer* x = tn_schedule_transfer(s, i);
            off_rail += x->src / 8 != x->dst / 8 && x->src % 8 != x->dst % 8;
        }
        TN_CHECK_EQ(ctx, off_rail, 0);
        tn_nccl_choice c;
        TN_CHECK(ctx, tn_nccl_choose(t, &r, 32, &c, &err) == TN_OK);
        tn_cost_options o;
        memset(&o, 0, sizeof(o));
        o.protocol = &c.protocol;
        tn_cost_result* res = NULL;
        if (TN_CHECK(ctx, tn_cost_estimate(s, t, NULL, &o, &res, &err) == TN_OK))
        {
            for (uint32_t k = 0; k < 32; k++)
            {
                uint32_t count = 0;
                const uint32_t* out = tn_topology_out_links(t, tn_topology_npu_node(t, k), &count);
                for (uint32_t j = 0; j < count; j++)
                {
                    const tn_link* l = tn_topology_link(t, out[j]);
                    if (l->dim != 1)
                        continue;
                    double busy = res->link_busy_ns[out[j]];
                    TN_CHECK_NEAR(ctx, busy, 12 * 10923 * 8 / 400.0, 1e-6);
                    TN_CHECK_NEAR(ctx, busy, (1 << 20) / 8 * 8 / 400.0, 12 * 8 / 400.0);
                }
            }
        }
        tn_cost_result_destroy(res);
    }
    tn_schedule_destroy(s);
    tn_topology_destroy(t);
}

void
tn_nccl_collnet_cases(tn_test_suite* suite)
{
    tn_test_add(suite, "collnet-model", test_collnet_model);
    tn_test_add(suite, "collnet-tuner", test_collnet_tuner);
    tn_test_add(suite, "collnet-refusals", test_collnet_refusals);
    tn_test_add(suite, "collnet-plan", test_collnet_plan);
}
