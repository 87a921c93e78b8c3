/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the system presets (tn-topology-preset.c): each preset's GPUs and rates against its
 * vendor data sheet (written here from the data sheets, not from the code), node, switch and
 * cable counts of each fabric against their closed forms, every link's rate and end, the
 * oversubscribed uplinks, and the spec's errors.
 */
#include "tn-test.h"

#include "ns3/tn-topology.h"

#include <string.h>

/* GB/s per direction of the data sheets to bit/s */
#define GBYTES(x) ((uint64_t)(x)*8000000000ull)
#define GBITS(x) ((uint64_t)(x)*1000000000ull)

/* The data sheets: NVIDIA DGX A100 (NVLink3 600 GB/s total = 300 per direction, 8x
 * ConnectX-6 HDR 200 Gb/s), DGX H100 (NVLink4 900 GB/s total, 8x ConnectX-7 NDR 400 Gb/s),
 * GB200 NVL72 (72 GPUs, NVLink5 1.8 TB/s total per GPU, ConnectX-7 400 Gb/s per GPU). */
static const struct
{
    const char* name;
    uint32_t gpus;
    uint64_t nvlink_bps;
    uint64_t nic_bps;
} datasheet[] = {
    {"dgx-a100", 8, GBYTES(300), GBITS(200)},
    {"dgx-h100", 8, GBYTES(450), GBITS(400)},
    {"gb200-nvl72", 72, GBYTES(900), GBITS(400)},
};

static int
contains(const char* s, const char* part)
{
    return strstr(s, part) != NULL;
}

static void
test_datasheet(tn_test_ctx* ctx)
{
    size_t count = 0;
    while (tn_system_preset_at(count))
    {
        count++;
    }
    TN_CHECK_EQ(ctx, count, sizeof(datasheet) / sizeof(datasheet[0]));
    for (size_t i = 0; i < sizeof(datasheet) / sizeof(datasheet[0]); i++)
    {
        const tn_system_preset* p =
            tn_system_preset_find(datasheet[i].name, strlen(datasheet[i].name));
        TN_REQUIRE_MSG(ctx, p != NULL, "no preset %s", datasheet[i].name);
        TN_CHECK_EQ(ctx, p->gpus, datasheet[i].gpus);
        TN_CHECK_EQ(ctx, p->nvlink_bps, datasheet[i].nvlink_bps);
        TN_CHECK_EQ(ctx, p->nic_bps, datasheet[i].nic_bps);
    }
    TN_CHECK(ctx, tn_system_preset_find("dgx-h10", 7) == NULL);
}

/* rail-optimized: S*G NPUs, S NVSwitches, G leaves, G spines; S*G NVLink and S*G NIC cables,
 * G*G leaf-spine cables at S*nic/(oversub*G). */
static void
check_rail_optimized(tn_test_ctx* ctx,
                     const char* spec,
                     uint32_t s,
                     uint32_t g,
                     double oversub,
                     const tn_system_preset* p)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE_MSG(ctx,
                   tn_topology_from_spec(spec, &t, &err) == TN_OK,
                   "%s: %s",
                   spec,
                   err.message);
    TN_CHECK(ctx, strcmp(tn_topology_name(t), spec) == 0);
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), s * g);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), s + 2 * g);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * (2 * s * g + g * g));
    TN_CHECK(ctx, !tn_topology_npus_forward(t));
    TN_REQUIRE(ctx, tn_topology_dim_count(t) == 2);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->size, g);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 1)->size, s);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 0)->bandwidth_bps, p->nvlink_bps);
    TN_CHECK_EQ(ctx, tn_topology_dim(t, 1)->bandwidth_bps, p->nic_bps);
    const uint32_t npus = s * g;
    for (uint32_t r = 0; r < npus; r++)
    {
        TN_CHECK_EQ(ctx, tn_topology_degree(t, r), 2);
        const uint32_t nv = tn_topology_find_link(t, r, npus + r / g);
        const uint32_t nic = tn_topology_find_link(t, r, npus + s + r % g);
        TN_REQUIRE_MSG(ctx, nv != TN_TOPO_NONE && nic != TN_TOPO_NONE, "rank %u's cables", r);
        TN_CHECK_EQ(ctx, tn_topology_link(t, nv)->rate_bps, p->nvlink_bps);
        TN_CHECK_EQ(ctx, tn_topology_link(t, nic)->rate_bps, p->nic_bps);
    }
    const uint64_t up = (uint64_t)(s * (double)p->nic_bps / (oversub * g));
    for (uint32_t l = 0; l < g; l++)
    {
        const uint32_t leaf = npus + s + l;
        TN_CHECK_EQ(ctx, tn_topology_degree(t, leaf), s + g);
        for (uint32_t q = 0; q < g; q++)
        {
            const uint32_t k = tn_topology_find_link(t, leaf, npus + s + g + q);
            TN_REQUIRE(ctx, k != TN_TOPO_NONE);
            TN_CHECK_EQ(ctx, tn_topology_link(t, k)->rate_bps, up);
        }
    }
    /* a leaf's uplinks carry its NICs' capacity / oversub */
    TN_CHECK_NEAR(ctx, (double)up * g * oversub, (double)s * p->nic_bps, g * oversub);
    tn_topology_destroy(t);
}

static void
test_rail_optimized(tn_test_ctx* ctx)
{
    const tn_system_preset* h100 = tn_system_preset_find("dgx-h100", 8);
    const tn_system_preset* a100 = tn_system_preset_find("dgx-a100", 8);
    const tn_system_preset* nvl = tn_system_preset_find("gb200-nvl72", 11);
    TN_REQUIRE(ctx, h100 && a100 && nvl);
    check_rail_optimized(ctx, "dgx-h100:servers=4,fabric=rail-optimized", 4, 8, 1.0, h100);
    check_rail_optimized(ctx, "dgx-h100:servers=4", 4, 8, 1.0, h100);
    check_rail_optimized(ctx, "dgx-a100:servers=16,oversub=2", 16, 8, 2.0, a100);
    check_rail_optimized(ctx, "dgx-h100:servers=3,gpus=4,oversub=1.5", 3, 4, 1.5, h100);
    check_rail_optimized(ctx, "gb200-nvl72:servers=2", 2, 72, 1.0, nvl);
}

static void
test_rail_only_and_one_server(tn_test_ctx* ctx)
{
    tn_error err;
    tn_topology* t = NULL;
    TN_REQUIRE(ctx,
               tn_topology_from_spec("dgx-h100:servers=4,fabric=rail-only", &t, &err) == TN_OK);
    /* 4 NVSwitches and 8 rail switches, an NVLink and a NIC cable per GPU, no spine */
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), 32);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), 4 + 8);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * 2 * 32);
    TN_CHECK(ctx, tn_topology_npus_forward(t));
    tn_topology_destroy(t);
    TN_REQUIRE(ctx, tn_topology_from_spec("gb200-nvl72:servers=1", &t, &err) == TN_OK);
    TN_CHECK_EQ(ctx, tn_topology_npu_count(t), 72);
    TN_CHECK_EQ(ctx, tn_topology_switch_count(t), 1);
    TN_CHECK_EQ(ctx, tn_topology_link_count(t), 2 * 72);
    TN_CHECK_EQ(ctx, tn_topology_link(t, 0)->rate_bps, GBYTES(900));
    tn_topology_destroy(t);
}

static void
test_spec_errors(tn_test_ctx* ctx)
{
    static const struct
    {
        const char* spec;
        const char* message;
    } cases[] = {
        {"dgx-h100:servers=4,fabric=clos", "fabric 'clos' is not rail-optimized or rail-only"},
        {"dgx-h100:servers=4,gpus=9", "gpus = 9 must be in [2, 8]"},
        {"dgx-h100:servers=4,gpus=0", "gpus '0' must be >= 2"},
        {"dgx-h100:servers=0", "servers = 0 must be in [1,"},
        {"dgx-h100:servers=4,oversub=0.5", "oversub = 0.5 must be in [1, 1e6]"},
        {"dgx-h100:servers=4,oversub=x", "oversub 'x' is not a number"},
        {"dgx-h100:servers=4,fabric=rail-only,oversub=2", "oversub needs fabric=rail-optimized"},
        {"dgx-h100:servers=4,rate=100Gbps", "unknown key 'rate' for dgx-h100"},
        {"dgx-h100:4", "'4' must be a key=value parameter"},
        {"dgx-h200:servers=4", "unknown kind 'dgx-h200'"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        tn_error err;
        memset(&err, 0, sizeof(err));
        tn_topology* t = NULL;
        TN_CHECK_EQ(ctx, tn_topology_from_spec(cases[i].spec, &t, &err), TN_EINVAL);
        TN_CHECK(ctx, t == NULL);
        TN_CHECK_MSG(ctx,
                     contains(err.message, cases[i].message) &&
                         contains(err.message, cases[i].spec),
                     "%s: '%s' lacks '%s'",
                     cases[i].spec,
                     err.message,
                     cases[i].message);
    }
}

void
tn_suite_topology_preset(tn_test_suite* suite)
{
    tn_test_add(suite, "datasheet", test_datasheet);
    tn_test_add(suite, "rail-optimized", test_rail_optimized);
    tn_test_add(suite, "rail-only-and-one-server", test_rail_only_and_one_server);
    tn_test_add(suite, "spec-errors", test_spec_errors);
}
