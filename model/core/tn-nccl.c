/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's tuning model, protocols and channels (contract in tn-nccl.h). The tables are NCCL's
 * default tuner constants (src/graph/tuning.cc of NVIDIA/nccl, 2.2x): latencies in us,
 * bandwidths in GB/s; rows by algorithm (tree, ring) and columns by protocol (LL, LL128,
 * Simple), or rows by GPU generation and columns by server count (1, 2, more).
 */
#include "tn-nccl.h"

#include <stdio.h>
#include <string.h>

enum
{
    HW_NVLINK = 0,
    HW_PCI = 1,
    HW_NET = 2
};

static const double base_lat[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};

static const double hw_lat[3][2][3] = {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},   /* NVLink */
                                       {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},    /* PCI */
                                       {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}}; /* network */

/* llMaxBws: rows Volta / Ampere / Hopper / Blackwell in one server; across servers row 0
 * (an Intel host; NCCL takes row 1 for AMD hosts) */
static const double ll_max_bw[4][3] = {{39.0, 39.0, 20.4},
                                       {87.7, 22.5, 19.0},
                                       {141.0, 45.0, 35.0},
                                       {282.0, 90.0, 70.0}};
static const double ring_ll128_bw[4][3] = {{20.0, 20.0, 20.0},
                                           {20.0, 20.0, 20.0},
                                           {36.7, 36.7, 36.7},
                                           {40.0, 40.0, 40.0}};
static const double tree_ll128_bw[4][3] = {{20.0, 20.0, 20.0},
                                           {20.0, 20.0, 20.0},
                                           {36.7, 36.7, 29.0},
                                           {55.6, 31.67, 20.0}};
static const double tree_bw[4][3] = {{26.5, 18.5, 10.0},
                                     {24.0, 23.6, 17.8},
                                     {38.7, 41.4, 36.0},
                                     {70.0, 42.8, 24.0}};

/* the tree's correction per power of two of the size, 64 B to 256 MiB */
static const double tree_correction[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

/* NVLS and NVLS-tree (Simple only): nvlsEfficiency per generation (Volta, Ampere: none);
 * hwLatencies: NVLink 25 us for both, the network 20.9 us for NVLS-tree; perChMaxNVLSTreeBws
 * by generation and servers (1, 2, more) */
static const double nvls_efficiency[4] = {0.0, 0.0, 0.85, 0.74};
#define NVLS_NVLINK_LAT_US 25.0
#define NVLS_TREE_NET_LAT_US 20.9
static const double nvls_tree_bw[4][3] = {{26.5, 18.5, 10.0},
                                          {24.0, 23.6, 17.8},
                                          {0.0, 57.7, 45.5},
                                          {0.0, 96.0, 80.0}};
/* the speeds NCCL's graph search tries per channel, GB/s (search.cc: Hopper's and Blackwell's
 * arrays, intra for one server, inter across servers), fastest first */
static const double sm90_intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
static const double sm90_inter[] = {48.0,
                                    45.0,
                                    42.0,
                                    40.0,
                                    30.0,
                                    24.0,
                                    22.0,
                                    20.0,
                                    17.5,
                                    15.0,
                                    12.0,
                                    6.0,
                                    3.0,
                                    2.4,
                                    1.2,
                                    0.24,
                                    0.12};
static const double sm100_intra[] =
    {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
static const double sm100_inter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                     20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
/* the search's inter-server speeds before Hopper (search.cc's generic array), GB/s */
static const double generic_inter[] = {48.0,
                                       30.0,
                                       28.0,
                                       24.0,
                                       20.0,
                                       18.0,
                                       15.0,
                                       12.0,
                                       10.0,
                                       9.0,
                                       7.0,
                                       6.0,
                                       5.0,
                                       4.0,
                                       3.0,
                                       2.4,
                                       1.2,
                                       0.24,
                                       0.12};
/* CollNet Direct (Simple only): hwLatencies NVLink (and PCI) 3.7 us, network 31 us; the
 * arity serialisation 0.4 us a GPU; heads at most NCCL_MAX_DIRECT_ARITY + 1; channels'
 * threads NCCL_MAX_NTHREADS and threshold */
#define COLLNET_INTRA_LAT_US 3.7
#define COLLNET_NET_LAT_US 31.0
#define COLLNET_ARITY_LAT_US 0.4
#define COLLNET_HEADS_MAX 8u
#define COLLNET_THREADS 640u
#define COLLNET_THRESHOLD 512u
/* NVLS's channels (heads) at most: NCCL_MAX_NVLS_ARITY */
#define NVLS_ARITY_MAX 32u
/* NCCL turns NVLS off with 2 GPUs or fewer a server (ncclNvlsInit: gpuCount <= 2, NCCL 2.19
 * to 2.28.3, the version of the tuning model's NVLS; 2.28.7 lowers it to gpuCount < 2) */
#define NVLS_GPUS_MIN 3u

/* the network's post overhead of a ring step across servers (an x86 host), us */
#define NET_OVERHEAD_US 1.0
/* threads of a channel and the bytes per thread below which a channel is dropped */
#define THREADS 512u
#define LL128_THREADS 640u

static const char* const algo_names[] = {"tree", "ring", "nvls", "nvlstree", "collnet"};
static const char* const proto_names[] = {"ll", "ll128", "simple"};

static const struct
{
    const char* preset;
    tn_nccl_arch arch;
} preset_arch[] = {{"dgx-a100", TN_NCCL_AMPERE},
                   {"dgx-h100", TN_NCCL_HOPPER},
                   {"gb200-nvl72", TN_NCCL_BLACKWELL}};

/* NCCL's rate of one NVLink (src/graph/topo.h, SMxx_NVLINK_BW, GB/s) against the link's line
 * rate per direction (NVLink2-4: 25 GB/s, NVLink5: 50 GB/s): 20/25, 20/25, 20.6/25, 40.1/50 */
static const double nvlink_efficiency[4] = {20.0 / 25, 20.0 / 25, 20.6 / 25, 40.1 / 50};

const char*
tn_nccl_algo_name(tn_nccl_algo algo)
{
    return (unsigned)algo < TN_NCCL_ALGO_COUNT ? algo_names[algo] : "?";
}

const char*
tn_nccl_proto_name(tn_nccl_proto proto)
{
    return (unsigned)proto < TN_NCCL_PROTO_COUNT ? proto_names[proto] : "?";
}

bool
tn_nccl_is_family(const char* name)
{
    size_t n = strlen(TN_NCCL_FAMILY);
    return name && strncmp(name, TN_NCCL_FAMILY, n) == 0 && (name[n] == 0 || name[n] == ':');
}

/* index of [word, word+len) in names, or -1 */
static int
word_index(const char* word, size_t len, const char* const* names, int count)
{
    for (int i = 0; i < count; i++)
    {
        if (strlen(names[i]) == len && strncmp(names[i], word, len) == 0)
        {
            return i;
        }
    }
    return -1;
}

tn_status
tn_nccl_parse(const char* name, tn_nccl_force* force, tn_error* err)
{
    force->algo = TN_NCCL_ALGO_COUNT;
    force->proto = TN_NCCL_PROTO_ANY;
    if (!tn_nccl_is_family(name))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "nccl: '%s' is not nccl, nccl:ALGO or nccl:ALGO:PROTO",
                            name ? name : "(null)");
    }
    const char* p = name + strlen(TN_NCCL_FAMILY);
    if (*p == 0)
    {
        return TN_OK;
    }
    p++;
    const char* colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    int a = word_index(p, len, algo_names, TN_NCCL_ALGO_COUNT);
    if (a < 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: unknown algorithm '%.*s' (expected ring, tree, nvls, nvlstree or "
                            "collnet)",
                            name,
                            (int)len,
                            p);
    }
    force->algo = (tn_nccl_algo)a;
    if (!colon)
    {
        return TN_OK;
    }
    p = colon + 1;
    int q = strchr(p, ':') ? -1 : word_index(p, strlen(p), proto_names, TN_NCCL_PROTO_COUNT);
    if (q < 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: unknown protocol '%s' (expected ll, ll128 or simple)",
                            name,
                            p);
    }
    force->proto = (tn_nccl_proto)q;
    return TN_OK;
}

void
tn_nccl_system_of(const tn_topology* topo, uint32_t ranks, tn_nccl_system* sys)
{
    memset(sys, 0, sizeof(*sys));
    sys->arch = TN_NCCL_HOPPER;
    sys->servers = 1;
    sys->ranks = ranks;
    sys->nvlink = true;
    sys->intra_GBps = 450.0;
    sys->nvlink_efficiency = 1.0;
    sys->channels = TN_NCCL_CHANNELS_DEFAULT;
    if (!topo)
    {
        return;
    }
    sys->sharp = tn_topology_sharp(topo);
    const char* name = tn_topology_name(topo);
    for (size_t i = 0; name && i < sizeof(preset_arch) / sizeof(preset_arch[0]); i++)
    {
        size_t len = strlen(preset_arch[i].preset);
        if (strncmp(name, preset_arch[i].preset, len) == 0 && (name[len] == ':' || !name[len]))
        {
            sys->arch = preset_arch[i].arch;
            sys->nvlink_efficiency = nvlink_efficiency[sys->arch];
            /* third-generation NVSwitches (Hopper) and later reduce and multicast */
            sys->nvls = sys->arch >= TN_NCCL_HOPPER;
        }
    }
    uint32_t nd = tn_topology_dim_count(topo);
    if (nd >= 1)
    {
        const tn_dim_info* d0 = tn_topology_dim(topo, 0);
        sys->intra_GBps = (double)d0->bandwidth_bps / 8e9 * sys->nvlink_efficiency;
        /* a hop of a switch dim crosses two links (NPU, switch, NPU), of a ring or mesh one */
        sys->intra_path_ns = (double)d0->latency_ns * (d0->kind == TN_DIM_SWITCH ? 2 : 1);
        if (nd >= 2 && d0->size > 0 && ranks > d0->size)
        {
            const tn_dim_info* d1 = tn_topology_dim(topo, 1);
            sys->servers = (ranks + d0->size - 1) / d0->size;
            sys->inter_GBps = (double)d1->bandwidth_bps / 8e9 * d0->size;
            sys->inter_path_ns = (double)d1->latency_ns * (d1->kind == TN_DIM_SWITCH ? 2 : 1);
        }
    }
    else if (tn_topology_npu_count(topo) > 0)
    {
        /* one server: the NPU's fastest link is its NVLink */
        uint32_t count = 0;
        const uint32_t* out = tn_topology_out_links(topo, tn_topology_npu_node(topo, 0), &count);
        uint64_t best = 0;
        for (uint32_t k = 0; k < count; k++)
        {
            const tn_link* l = tn_topology_link(topo, out[k]);
            if (l->rate_bps <= best)
                continue;
            best = l->rate_bps;
            bool sw = tn_topology_node_kind(topo, l->dst) == TN_NODE_SWITCH;
            sys->intra_path_ns = (double)l->latency_ns * (sw ? 2 : 1);
        }
        sys->intra_GBps = best ? (double)best / 8e9 : sys->intra_GBps;
    }
}

static int
log2i(uint64_t n)
{
    int l = -1;
    while (n)
    {
        n >>= 1;
        l++;
    }
    return l;
}

static double
min2(double a, double b)
{
    return a < b ? a : b;
}

/* steps of a ring collective of n ranks, and the ones across servers */
static void
ring_steps(const tn_nccl_system* sys, tn_collective coll, double* nsteps, double* inter)
{
    double n = sys->ranks, s = sys->servers;
    bool ar = coll == TN_COLL_ALL_REDUCE;
    bool rsag = coll == TN_COLL_REDUCE_SCATTER || coll == TN_COLL_ALL_GATHER;
    *nsteps = ar ? 2 * (n - 1) : rsag ? n - 1 : n;
    *inter = s <= 1 ? 0 : ar ? 2 * (s - 1) : s - 1;
}

/* the hop latencies of (algo, proto) inside and between servers, us */
static void
hop_lat(const tn_nccl_system* sys, int a, int p, double* intra, double* inter)
{
    *intra = hw_lat[sys->nvlink ? HW_NVLINK : HW_PCI][a][p];
    /* with one GPU per server every latency is the network's, the tree's */
    bool one_per_server = sys->servers > 0 && sys->ranks == sys->servers;
    *inter = hw_lat[HW_NET][one_per_server ? TN_NCCL_TREE : a][p];
    if (a == TN_NCCL_RING && sys->servers > 1)
    {
        double overhead = NET_OVERHEAD_US * (p == TN_NCCL_SIMPLE ? 3 : 1);
        *intra = *intra > overhead ? *intra : overhead;
    }
}

/* GPUs of a server (servers of equal size) */
static uint32_t
per_server(const tn_nccl_system* sys)
{
    uint32_t sv = sys->servers ? sys->servers : 1;
    return sys->ranks % sv == 0 ? sys->ranks / sv : 0;
}

void
tn_nccl_nvls_graph(const tn_nccl_system* sys,
                   uint32_t* channels,
                   double* bw_intra,
                   double* bw_inter)
{
    *channels = 0;
    *bw_intra = *bw_inter = 0.0;
    uint32_t g = per_server(sys);
    if (!sys->nvls || g < NVLS_GPUS_MIN)
        return;
    uint32_t nc = g < NVLS_ARITY_MAX ? g : NVLS_ARITY_MAX;
    bool bw = sys->arch >= TN_NCCL_BLACKWELL, one = sys->servers <= 1;
    const double* sp = bw ? (one ? sm100_intra : sm100_inter) : (one ? sm90_intra : sm90_inter);
    size_t n = bw ? (one ? sizeof(sm100_intra) : sizeof(sm100_inter)) / sizeof(double)
                  : (one ? sizeof(sm90_intra) : sizeof(sm90_inter)) / sizeof(double);
    double nic = one ? 1e30 : sys->inter_GBps / g;
    size_t i = 0;
    while (i + 1 < n && ((nc + 1) * sp[i] > sys->intra_GBps || sp[i] > nic))
        i++;
    double intra = sp[i], inter = sp[i];
    /* the second pass raises bwInter alone while it is below 2 bwIntra and the NICs take it
     * (one server: nothing else limits it) */
    while (i > 0 && inter < 2 * intra && sp[i - 1] <= nic)
        inter = sp[--i];
    *channels = nc;
    *bw_intra = intra;
    *bw_inter = inter;
}

void
tn_nccl_collnet_graph(const tn_nccl_system* sys,
                      uint32_t* channels,
                      double* bw_intra,
                      double* bw_inter)
{
    *channels = 0;
    *bw_intra = *bw_inter = 0.0;
    uint32_t g = per_server(sys);
    if (!sys->sharp || !sys->nvlink || sys->servers < 2 || g < 1 || g > COLLNET_HEADS_MAX)
        return;
    bool bw = sys->arch >= TN_NCCL_BLACKWELL, hopper = sys->arch == TN_NCCL_HOPPER;
    const double* sp = bw ? sm100_inter : hopper ? sm90_inter : generic_inter;
    size_t n = (bw       ? sizeof(sm100_inter)
                : hopper ? sizeof(sm90_inter)
                         : sizeof(generic_inter)) /
               sizeof(double);
    /* a head's NIC carries its channel's bwInter; its NVLink its own channel and its share
     * of the g - 1 others' (1 / (g - 1) each): 2 bwIntra */
    double nic = sys->inter_GBps / g;
    size_t i = 0;
    while (i + 1 < n && (sp[i] > nic || 2 * sp[i] > sys->intra_GBps))
        i++;
    double inter = sp[i], intra = sp[i];
    while (i > 0 && intra < 2 * inter && 2 * sp[i - 1] <= sys->intra_GBps)
        intra = sp[--i];
    *channels = g; /* one head per NIC, one NIC per GPU on the presets */
    *bw_intra = intra;
    *bw_inter = inter;
}

/* NCCL's NVLS busBw of a channel inside a server: bwIntra x efficiency x (nc - 1)/nc x 2 */
static double
nvls_intra_bw(const tn_nccl_system* sys, uint32_t nc, double bw_intra)
{
    return bw_intra * nvls_efficiency[sys->arch] * (nc - 1) / nc * 2.0;
}

/* NCCL's busBw of NVLS (one server) or NVLS-tree (across servers) on sys: nc channels of
 * min(intraBw, bwInter (x 2 for the tree on two servers), the tree's perChMaxNVLSTreeBw) */
static double
nvls_busbw(const tn_nccl_system* sys, bool tree)
{
    uint32_t nc;
    double bi, bo;
    tn_nccl_nvls_graph(sys, &nc, &bi, &bo);
    if (nc < 2)
        return 0.0;
    int idx2 = sys->servers <= 2 ? (int)sys->servers - 1 : 2;
    double bw = min2(nvls_intra_bw(sys, nc, bi), bo * (sys->servers <= 2 && tree ? 2 : 1));
    if (tree)
        bw = min2(bw, nvls_tree_bw[sys->arch][idx2]);
    return nc * bw;
}

void
tn_nccl_nvls_wire(const tn_nccl_system* sys, double* efficiency, double* scale)
{
    *efficiency = *scale = 0.0;
    uint32_t n = per_server(sys), N = sys->ranks;
    double busbw = nvls_busbw(sys, sys->servers > 1);
    double line = sys->intra_GBps / (sys->nvlink_efficiency > 0 ? sys->nvlink_efficiency : 1);
    if (busbw <= 0 || line <= 0 || N < 2)
        return;
    *scale = (n + 1.0) / (2.0 * (n - 1.0));
    /* the switch's load-reduce and multicast put S(1 + 1/n) on a GPU's link each way, which
     * runs at NCCL's rate of an NVLink times NCCL's NVLS efficiency: busbw 2(n - 1)/(n + 1)
     * x that rate at every n. NCCL's tuning formula is the same curve, but its graph search
     * rounds a channel's speed down to the search's steps and caps it with bwInter: the
     * tuner keeps that model (its choice), the links do not (it undershoots below 8 GPUs) */
    double e = sys->nvlink_efficiency * nvls_efficiency[sys->arch];
    if (sys->servers > 1)
    {
        /* NVLS-tree: NCCL's algorithm bandwidth busBw x N / (2(N - 1)), N all the ranks, in
         * S / algbw; its per-channel cap is NCCL's figure of what the tree's kernel sustains,
         * which no link of the model bounds (the NICs carry S/n a GPU) */
        double tree = busbw * N / (2.0 * (N - 1.0)) * (n + 1.0) / n / line;
        e = tree < e ? tree : e;
    }
    *efficiency = e < 1 ? e : 1; /* at most the line rate */
}

static uint32_t
nvls_channels(const tn_nccl_system* sys)
{
    if (sys->arch >= TN_NCCL_BLACKWELL)
        return sys->servers <= 1 ? 24 : 32;
    return 16;
}

static bool
enabled(const tn_nccl_system* sys, tn_collective coll, tn_nccl_algo algo, tn_nccl_proto proto)
{
    if ((unsigned)proto >= TN_NCCL_PROTO_COUNT || sys->ranks < 2)
        return false;
    if (algo == TN_NCCL_COLLNET)
    {
        uint32_t nc;
        double bi, bo;
        tn_nccl_collnet_graph(sys, &nc, &bi, &bo);
        return coll == TN_COLL_ALL_REDUCE && proto == TN_NCCL_SIMPLE && nc >= 1;
    }
    if (algo == TN_NCCL_NVLS || algo == TN_NCCL_NVLS_TREE)
    {
        uint32_t nc;
        double bi, bo;
        tn_nccl_nvls_graph(sys, &nc, &bi, &bo);
        return coll == TN_COLL_ALL_REDUCE && proto == TN_NCCL_SIMPLE && nc >= 2 &&
               (algo == TN_NCCL_NVLS) == (sys->servers <= 1);
    }
    if (proto == TN_NCCL_LL128 && !sys->nvlink)
        return false;
    if (algo == TN_NCCL_TREE)
        return coll == TN_COLL_ALL_REDUCE;
    return algo == TN_NCCL_RING && coll != TN_COLL_ALL_TO_ALL;
}

tn_nccl_estimate
tn_nccl_model(const tn_nccl_system* sys, tn_collective coll, tn_nccl_algo algo, tn_nccl_proto proto)
{
    tn_nccl_estimate e = {0, 0, 0};
    if (!enabled(sys, coll, algo, proto))
        return e;
    int a = (int)algo, p = (int)proto;
    int arch = (int)sys->arch;
    int idx2 = sys->servers <= 2 ? (int)sys->servers - 1 : 2;
    if (algo == TN_NCCL_NVLS || algo == TN_NCCL_NVLS_TREE)
    {
        e.busbw_GBps = nvls_busbw(sys, algo == TN_NCCL_NVLS_TREE);
        e.bw_GBps = e.busbw_GBps * sys->ranks / (2.0 * (sys->ranks - 1));
        e.lat_us = NVLS_NVLINK_LAT_US +
                   (algo == TN_NCCL_NVLS_TREE ? 2 * log2i(sys->servers) * NVLS_TREE_NET_LAT_US : 0);
        return e;
    }
    if (algo == TN_NCCL_COLLNET)
    {
        uint32_t nc, g = per_server(sys);
        double bi, bo;
        tn_nccl_collnet_graph(sys, &nc, &bi, &bo);
        /* the GPU/NIC ratio's factor: 1 when every GPU has its NIC */
        double factor = (double)g / nc;
        factor -= (factor - 1) / 2;
        e.busbw_GBps = nc * bi / factor * (sys->arch >= TN_NCCL_HOPPER ? 0.85 : 1.0);
        e.bw_GBps = e.busbw_GBps * .5;
        double inter = g == 1 ? hw_lat[HW_NET][TN_NCCL_TREE][TN_NCCL_SIMPLE] : COLLNET_NET_LAT_US;
        e.lat_us =
            2 * ((g > 1 ? 1 : 0) * COLLNET_INTRA_LAT_US + (g - 1) * COLLNET_ARITY_LAT_US) + inter;
        return e;
    }
    double ch = sys->channels;
    double ll_max = ll_max_bw[sys->servers == 1 ? arch : 0][idx2];
    double bus = sys->servers == 1 ? sys->intra_GBps : min2(sys->intra_GBps, sys->inter_GBps);
    if (algo == TN_NCCL_RING && proto == TN_NCCL_LL)
        bus = min2(ll_max, bus * .5);
    if (algo == TN_NCCL_RING && proto == TN_NCCL_LL128)
        bus = min2(bus * 0.92, ch * ring_ll128_bw[arch][idx2]);
    if (algo == TN_NCCL_TREE)
        bus = min2(bus * .92, ch * tree_bw[arch][idx2]);
    if (algo == TN_NCCL_TREE && proto == TN_NCCL_LL)
        bus = min2(bus / 3.8, ll_max);
    if (algo == TN_NCCL_TREE && proto == TN_NCCL_LL128)
        bus = min2(bus * (sys->servers == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   ch * tree_ll128_bw[arch][idx2]);
    double nsteps, ninter;
    ring_steps(sys, coll, &nsteps, &ninter);
    e.busbw_GBps = bus;
    e.bw_GBps = algo == TN_NCCL_RING ? bus * sys->ranks / nsteps : bus * .5;
    double intra, inter;
    hop_lat(sys, a, p, &intra, &inter);
    e.lat_us = base_lat[a][p];
    if (algo == TN_NCCL_RING && (coll == TN_COLL_BROADCAST || coll == TN_COLL_REDUCE))
        e.lat_us += hw_lat[sys->servers == 1 ? (sys->nvlink ? HW_NVLINK : HW_PCI) : HW_NET][a][p];
    else if (algo == TN_NCCL_RING)
        e.lat_us += (nsteps - ninter) * intra + ninter * inter;
    else
        e.lat_us +=
            2 * ((double)(sys->ranks / sys->servers - 1) * intra + log2i(sys->servers) * inter);
    return e;
}

double
tn_nccl_time_us(const tn_nccl_system* sys,
                tn_collective coll,
                tn_nccl_algo algo,
                tn_nccl_proto proto,
                uint64_t bytes)
{
    tn_nccl_estimate e = tn_nccl_model(sys, coll, algo, proto);
    if (e.bw_GBps <= 0)
        return -1.0;
    int log_size = log2i(bytes >> 6);
    if (algo == TN_NCCL_TREE && coll == TN_COLL_ALL_REDUCE && log_size >= 0 && log_size < 23)
        e.bw_GBps *= tree_correction[proto][log_size];
    if (algo == TN_NCCL_NVLS_TREE && sys->arch >= TN_NCCL_BLACKWELL && log_size >= 0 &&
        log_size < 24)
        e.bw_GBps *= tree_correction[proto][log_size];
    if (algo == TN_NCCL_RING && proto == TN_NCCL_SIMPLE && sys->servers > 1 &&
        coll == TN_COLL_ALL_REDUCE && bytes / ((uint64_t)sys->channels * sys->ranks) >= 64)
        e.lat_us *= sys->arch < TN_NCCL_AMPERE ? 1.9 : 1.4;
    return e.lat_us + (double)bytes / (1000.0 * e.bw_GBps);
}

uint32_t
tn_nccl_channels(const tn_nccl_system* sys, tn_nccl_algo algo, tn_nccl_proto proto, uint64_t bytes)
{
    if (algo == TN_NCCL_NVLS || algo == TN_NCCL_NVLS_TREE)
        return nvls_channels(sys);
    if (algo == TN_NCCL_COLLNET)
    {
        /* NCCL's CollNet channel tuning: below 16, 8, 4, 2 channels in turn, the threshold
         * halved at 1.5 x each of them */
        uint64_t nc = sys->channels ? sys->channels : 1, heads, thr = COLLNET_THRESHOLD;
        double bi, bo;
        uint32_t h;
        tn_nccl_collnet_graph(sys, &h, &bi, &bo);
        heads = h ? h : 1;
        bool flag = true;
        for (uint64_t sw = 16; sw >= 1 && flag; sw /= 2)
        {
            while ((flag = bytes < nc * COLLNET_THREADS * heads * thr) && nc > sw)
            {
                if (nc == sw + sw / 2)
                    thr /= 2;
                nc--;
            }
        }
        return (uint32_t)nc;
    }
    uint64_t nc = sys->channels ? sys->channels : 1;
    uint64_t nt = proto == TN_NCCL_LL128 ? LL128_THREADS : THREADS;
    uint64_t threshold = proto == TN_NCCL_SIMPLE ? 64 : 8;
    if (algo == TN_NCCL_RING && proto == TN_NCCL_LL)
        threshold *= sys->ranks;
    while (nc >= 2 && bytes < nc * nt * threshold)
        nc--;
    return (uint32_t)nc;
}

void
tn_nccl_protocol_wire(tn_nccl_proto proto, uint32_t* line_bytes, uint32_t* line_data)
{
    /* LL: a 4-byte flag beside every 4 data bytes; LL128: one 8-byte flag per 128-byte line */
    *line_bytes = proto == TN_NCCL_LL ? 8 : proto == TN_NCCL_LL128 ? 128 : 0;
    *line_data = proto == TN_NCCL_LL ? 4 : proto == TN_NCCL_LL128 ? 120 : 0;
}

tn_cost_protocol
tn_nccl_protocol_cost(const tn_nccl_system* sys, tn_nccl_algo algo, tn_nccl_proto proto)
{
    tn_cost_protocol c;
    memset(&c, 0, sizeof(c));
    tn_nccl_protocol_wire(proto, &c.line_bytes, &c.line_data);
    c.intra_path_ns = sys->intra_path_ns;
    c.inter_path_ns = sys->inter_path_ns;
    c.servers = sys->servers;
    if (algo == TN_NCCL_NVLS || algo == TN_NCCL_NVLS_TREE)
    {
        /* the switch's pass is one operation: its latency once, as the launch */
        c.launch_ns = NVLS_NVLINK_LAT_US * 1000.0;
        c.inter_hop_ns = algo == TN_NCCL_NVLS_TREE ? NVLS_TREE_NET_LAT_US * 1000.0 : 0.0;
        tn_nccl_nvls_wire(sys, &c.intra_efficiency, &c.intra_scale);
        return c;
    }
    if (algo == TN_NCCL_COLLNET)
    {
        /* the switch's pass up and down is one interLat in NCCL's model: half on each hop */
        uint32_t g = per_server(sys);
        c.launch_ns = 2.0 * (g > 0 ? g - 1 : 0) * COLLNET_ARITY_LAT_US * 1000.0;
        c.intra_hop_ns = COLLNET_INTRA_LAT_US * 1000.0;
        c.inter_hop_ns = COLLNET_NET_LAT_US / 2 * 1000.0;
        c.intra_efficiency = sys->nvlink_efficiency;
        c.inter_scale = sys->servers >= 2 ? sys->servers / (2.0 * (sys->servers - 1)) : 0.0;
        return c;
    }
    int a = algo == TN_NCCL_TREE ? 0 : 1;
    double intra, inter;
    hop_lat(sys, a, (int)proto, &intra, &inter);
    c.launch_ns = base_lat[a][proto] * 1000.0;
    c.intra_hop_ns = intra * 1000.0;
    c.inter_hop_ns = inter * 1000.0;
    c.intra_efficiency = sys->nvlink_efficiency;
    return c;
}

/* why a forced CollNet does not run on sys (NULL: it does) */
static const char*
collnet_refusal(const tn_nccl_system* sys, tn_collective coll, tn_nccl_force force)
{
    if (!sys->sharp)
        return "CollNet needs a fabric whose switches reduce (SHARP) and no fabric here "
               "offers it: a preset with sharp=1, e.g. dgx-h100:servers=4,sharp=1";
    if (coll != TN_COLL_ALL_REDUCE)
        return "CollNet is modelled for all-reduce only";
    if (force.proto != TN_NCCL_PROTO_ANY && force.proto != TN_NCCL_SIMPLE)
        return "CollNet runs the Simple protocol only (nccl:collnet:simple)";
    if (sys->servers < 2)
        return "CollNet runs across servers: its ranks fit in one";
    uint32_t g = per_server(sys);
    if (g == 0)
        return "CollNet needs servers of equal size";
    if (g > COLLNET_HEADS_MAX)
        return "CollNet Direct runs up to 8 GPUs a server (NCCL_MAX_DIRECT_ARITY + 1)";
    return NULL;
}

/* why a forced NVLS or NVLS-tree does not run on sys (NULL: it does) */
static const char*
nvls_refusal(const tn_nccl_system* sys, tn_collective coll, tn_nccl_force force)
{
    if (!sys->nvls)
        return sys->arch == TN_NCCL_AMPERE
                   ? "NVLS needs an NVSwitch that reduces and multicasts (Hopper or later); "
                     "dgx-a100's does not"
                   : "NVLS needs an NVSwitch that reduces and multicasts: a dgx-h100 or "
                     "gb200-nvl72 preset (a topology that is not a preset does not say so)";
    if (coll != TN_COLL_ALL_REDUCE)
        return "NVLS is modelled for all-reduce only";
    if (force.proto != TN_NCCL_PROTO_ANY && force.proto != TN_NCCL_SIMPLE)
        return "NVLS runs the Simple protocol only (nccl:nvls:simple)";
    if (per_server(sys) == 0)
        return "NVLS needs servers of equal size";
    if (per_server(sys) < NVLS_GPUS_MIN)
        return "NCCL turns NVLS off with 2 GPUs or fewer a server";
    if (force.algo == TN_NCCL_NVLS && sys->servers > 1)
        return "across servers NCCL runs NVLS only with CollNet (SHARP), not modelled; use "
               "nccl:nvlstree";
    if (force.algo == TN_NCCL_NVLS_TREE && sys->servers <= 1)
        return "NVLS-tree runs across servers; in one server use nccl:nvls";
    return NULL;
}

tn_status
tn_nccl_choose(const tn_topology* topo,
               const tn_plan_request* request,
               uint32_t ranks,
               tn_nccl_choice* choice,
               tn_error* err)
{
    tn_nccl_force force;
    memset(choice, 0, sizeof(*choice));
    tn_status st = tn_nccl_parse(request->algorithm, &force, err);
    if (st)
        return st;
    tn_collective coll = request->collective;
    if (coll == TN_COLL_ALL_TO_ALL)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: NCCL runs all-to-all as point-to-point sends, not a collective "
                            "algorithm; use direct",
                            request->algorithm);
    }
    tn_nccl_system_of(topo, ranks, &choice->system);
    const tn_nccl_system* sys = &choice->system;
    if (force.algo == TN_NCCL_NVLS || force.algo == TN_NCCL_NVLS_TREE)
    {
        const char* why = nvls_refusal(sys, coll, force);
        if (why)
            return tn_error_set(err, TN_EUNSUPPORTED, "%s: %s", request->algorithm, why);
    }
    if (force.algo == TN_NCCL_COLLNET)
    {
        const char* why = collnet_refusal(sys, coll, force);
        if (why)
            return tn_error_set(err, TN_EUNSUPPORTED, "%s: %s", request->algorithm, why);
    }
    double best = -1;
    for (int a = 0; a < TN_NCCL_ALGO_COUNT; a++)
    {
        for (int p = 0; p < TN_NCCL_PROTO_COUNT; p++)
        {
            if ((force.algo != TN_NCCL_ALGO_COUNT && a != (int)force.algo) ||
                (force.proto != TN_NCCL_PROTO_ANY && p != (int)force.proto))
                continue;
            double t =
                tn_nccl_time_us(sys, coll, (tn_nccl_algo)a, (tn_nccl_proto)p, request->bytes);
            if (t >= 0 && (best < 0 || t < best))
            {
                best = t;
                choice->algo = (tn_nccl_algo)a;
                choice->proto = (tn_nccl_proto)p;
            }
        }
    }
    if (best < 0)
    {
        return tn_error_set(
            err,
            TN_EUNSUPPORTED,
            "%s: NCCL does not run %s with it%s",
            request->algorithm,
            tn_collective_name(coll),
            force.proto == TN_NCCL_LL128 && !sys->nvlink
                ? " (LL128 needs NVLink)"
                : (force.algo == TN_NCCL_TREE ? " (the tree is all-reduce only)" : ""));
    }
    choice->time_us = best;
    choice->channels = tn_nccl_channels(sys, choice->algo, choice->proto, request->bytes);
    choice->planner = choice->algo == TN_NCCL_TREE      ? "dbt"
                      : choice->algo == TN_NCCL_RING    ? "ring"
                      : choice->algo == TN_NCCL_COLLNET ? "collnet"
                                                        : "nvls";
    snprintf(choice->name,
             sizeof(choice->name),
             "%s:%s:%s",
             TN_NCCL_FAMILY,
             tn_nccl_algo_name(choice->algo),
             tn_nccl_proto_name(choice->proto));
    choice->protocol = tn_nccl_protocol_cost(sys, choice->algo, choice->proto);
    return TN_OK;
}
