/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-plan: plan one collective with the training-net C core and print a summary.
 * Over 1,000 lines for a reason: the one command of the core, whose options, ranking,
 * summary and dumps share one request, schedule and exit-code path.
 *
 *   tn-plan --topology torus:8x8 --collective allreduce --algorithm multitree
 *           --size 64MiB [--chunks C] [--ports P] [--root R] [--policy fifo|scf]
 *           [--active A] [--baseline] [--rank-order auto|identity|LIST]
 *           [--no-verify] [--dump csv|json] [--output FILE]
 *           [--program auto|generated|schedule]
 *   tn-plan --list
 *
 * --algorithm auto ranks every algorithm that applies (tn_tune_rank, tn-tune.h) on the path
 * --program takes, prints the ranking (each candidate, its estimate, the chosen one, the
 * skipped ones with their reason), then the summary of the choice.
 * Summary: ranks, steps, transfers, total bytes, local ops (when the schedule has
 * any: swing-lat), max bytes per link, rank order
 * (ring algorithms), verified (tn_verify_schedule), contention report
 * (conflicting (link, step) pairs), estimated time (tn_cost_estimate), for a
 * ring all-reduce the closed form 2(N-1)(a + S/(N*B)) with a and B of NPU 0's
 * first link, and algorithm / bus bandwidth.
 * --dump writes the schedule (one row per transfer with deps and path) as CSV
 * or JSON to --output (default stdout, after the summary).
 * Paths (--program): "schedule" materialises the global DAG of transfers (tn_plan), verifies
 * it and estimates it with tn_cost_estimate; "generated" builds no DAG: the rank-local
 * programs of tn-program.h (ring, ring-bidir, direct, rhd, dbt, ring2d, hierarchical, swing,
 * swing-torus) and
 * the per-step estimate tn_cost_program, which answer for 16384 NPUs in seconds; "auto"
 * (default) takes the schedule up to TN_PLAN_AUTO_TRANSFERS transfers (or when the
 * algorithm has no generator) and the generated path beyond. The summary says which path
 * and which model produced the estimate.
 * Memory: the plan's size is estimated before it is built and refused beyond
 * --memory-limit (tn_plan); the process's data segment is limited to the same
 * size (setrlimit RLIMIT_DATA, not in sanitizer builds), so no input can take
 * the machine's memory. Every failed write (summary, --dump, --output) exits 1.
 * Exit codes: 0 ok; 1 planning failure (the algorithm does not apply to the
 * topology or collective, or planning fails) or verification failure; 2 bad
 * arguments (unknown option, algorithm or collective, bad number or size,
 * missing option, bad topology spec or file, root or rank order out of range,
 * --output not writable). Errors go to stderr as "tn-plan: ..." lines.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "ns3/tn-algorithm.h"
#include "ns3/tn-cost.h"
#include "ns3/tn-memory.h"
#include "ns3/tn-nccl.h"
#include "ns3/tn-program.h"
#include "ns3/tn-rank-order.h"
#include "ns3/tn-themis.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"
#include "ns3/tn-verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const char* usage_text =
    "usage: tn-plan --topology SPEC --algorithm NAME --size BYTES [options]\n"
    "       tn-plan --list\n"
    "options:\n"
    "  --topology SPEC     topology spec (see --list) or @FILE for an HPCC-style file\n"
    "  --collective NAME   allreduce (default), reducescatter, allgather, alltoall,\n"
    "                      broadcast, reduce\n"
    "  --algorithm NAME    registry name (see --list), or auto: every algorithm that\n"
    "                      applies ranked by its estimate (printed), the best planned\n"
    "  --size BYTES        bytes S, units B, KB, MB, GB (1000) or KiB, MiB, GiB (1024)\n"
    "  --chunks C          chunks (default 1; themis 64)\n"
    "  --ports P           MultiTree ports per node (default: the NPU's cables)\n"
    "  --root R            root of broadcast / reduce (default 0)\n"
    "  --policy fifo|scf   Themis intra-dimension policy (default fifo)\n"
    "  --active A          Themis active chunk-phases per dimension (default 1)\n"
    "  --baseline          Themis: fixed dimension order (no load balancing)\n"
    "  --rank-order ORDER  ring, ring-bidir, swing: auto (default: a cycle of\n"
    "                      neighbours, switch-local on switched networks), identity,\n"
    "                      or the ranks in ring order, comma separated (e.g. 0,2,3,1)\n"
    "  --no-verify         skip the verifier\n"
    "  --verify-max T      verify plans of at most T transfers (default 250000; 0 = any):\n"
    "                      the verifier's time grows faster than linearly on some plans\n"
    "  --memory-limit SIZE refuse plans estimated larger than SIZE (default: half of\n"
    "                      physical memory, or TN_MEMORY_LIMIT; 0 = no limit); the\n"
    "                      process is also limited to it (RLIMIT_DATA)\n"
    "  --program PATH      auto (default), generated or schedule: the rank-local\n"
    "                      programs and the per-step estimate (no DAG), or the\n"
    "                      materialised schedule, verified; auto takes the schedule\n"
    "                      up to 1000000 transfers\n"
    "  --dump csv|json     write the schedule (the schedule path)\n"
    "  --output FILE       where --dump writes (default stdout)\n"
    "  --list              list algorithms and topology spec examples\n";

/* At most this many characters of a user's option or value are quoted in a message. */
#define TN_PLAN_QUOTED 80

static int
bad_arg(const char* option, const char* value, const char* why)
{
    fprintf(stderr,
            "tn-plan: option %.*s%s: %s%s%.*s%s%s (tn-plan --help lists the options)\n",
            TN_PLAN_QUOTED,
            option,
            strlen(option) > TN_PLAN_QUOTED ? "..." : "",
            why,
            value ? " '" : "",
            TN_PLAN_QUOTED,
            value ? value : "",
            value ? "'" : "",
            value && strlen(value) > TN_PLAN_QUOTED ? "..." : "");
    return 2;
}

/* auto: the materialised schedule up to this many transfers, the generated path beyond (the
 * tuner's threshold, so that --algorithm auto ranks the estimates this program prints) */
#define TN_PLAN_AUTO_TRANSFERS TN_TUNE_SCHEDULE_TRANSFERS

static int
parse_u32(const char* s, uint32_t* out)
{
    char* end = NULL;
    errno = 0;
    /* strtoull alone accepts leading space and a sign: " 3", "+3" */
    if (s[0] < '0' || s[0] > '9')
    {
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end != '\0' || v > UINT32_MAX)
    {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* Comma separated ranks: "0,2,3,1" -> malloc'ed array (caller frees). */
static int
parse_order(const char* s, uint32_t** out, uint32_t* count)
{
    size_t n = 1;
    for (const char* c = s; *c; c++)
    {
        n += *c == ',';
    }
    uint32_t* v = malloc(n * sizeof(*v));
    if (v == NULL)
    {
        return -1;
    }
    size_t k = 0;
    const char* p = s;
    while (1)
    {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char tok[16];
        if (len == 0 || len >= sizeof(tok))
        {
            free(v);
            return -1;
        }
        memcpy(tok, p, len);
        tok[len] = 0;
        for (size_t i = 0; i < len; i++)
        {
            if (tok[i] < '0' || tok[i] > '9')
            {
                free(v);
                return -1;
            }
        }
        if (parse_u32(tok, &v[k++]))
        {
            free(v);
            return -1;
        }
        if (!comma)
        {
            break;
        }
        p = comma + 1;
    }
    *out = v;
    *count = (uint32_t)k;
    return 0;
}

static void
list_all(void)
{
    size_t n = 0;
    const tn_algorithm* a = tn_algorithms(&n);
    printf("algorithms:\n");
    for (size_t i = 0; i < n; i++)
    {
        char colls[128] = "";
        for (int c = 0; c < TN_COLL_COUNT; c++)
        {
            if (a[i].collectives & TN_COLL_BIT(c))
            {
                if (colls[0])
                {
                    strcat(colls, ",");
                }
                strcat(colls, tn_collective_name((tn_collective)c));
            }
        }
        printf("  %-14s %s%s%s\n  %-14s   [%s]%s\n",
               a[i].name,
               a[i].description,
               a[i].aliases[0] ? "; aliases: " : "",
               a[i].aliases,
               "",
               colls,
               a[i].needs_topology ? " needs a topology" : "");
    }
    printf("topology spec examples:\n"
           "  ring:8  fc:8  switch:16  torus:8x8  torus:4x4x4,ports=2  mesh:8x8\n"
           "  leafspine:leaves=8,spines=8,hosts=8  fattree:k=4  bigraph:4x8\n"
           "  hier:ring4@250Gbps+switch4@200Gbps+switch8@100Gbps+switch8@50Gbps\n"
           "  common keys: rate=100Gbps latency=150ns; @FILE loads an HPCC-style file\n");
}

static void
dump_csv(FILE* f, const tn_schedule* s)
{
    fprintf(f, "id,src,dst,src_offset,dst_offset,length,op,step,dim,chunk,deps,path\n");
    for (uint32_t i = 0; i < tn_schedule_count(s); i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        fprintf(f,
                "%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%u,%d,%u,",
                t->id,
                t->src,
                t->dst,
                t->src_offset,
                t->dst_offset,
                t->length,
                tn_op_name(t->op),
                t->step,
                t->dim,
                t->chunk);
        uint32_t n = 0;
        const uint32_t* d = tn_schedule_deps(s, i, &n);
        for (uint32_t k = 0; k < n; k++)
        {
            fprintf(f, "%s%u", k ? " " : "", d[k]);
        }
        fputc(',', f);
        const uint32_t* p = tn_schedule_path(s, i, &n);
        for (uint32_t k = 0; k < n; k++)
        {
            fprintf(f, "%s%u", k ? " " : "", p[k]);
        }
        fputc('\n', f);
    }
}

static void
dump_json(FILE* f, const tn_schedule* s)
{
    fprintf(f,
            "{\"collective\":\"%s\",\"algorithm\":\"%s\",\"ranks\":%u,\"bytes\":%" PRIu64
            ",\"chunks\":%u,\"contention_free\":%s,\"transfers\":[\n",
            tn_collective_name(tn_schedule_collective(s)),
            tn_schedule_algorithm(s),
            tn_schedule_ranks(s),
            tn_schedule_bytes(s),
            tn_schedule_chunks(s),
            tn_schedule_contention_free(s) ? "true" : "false");
    for (uint32_t i = 0; i < tn_schedule_count(s); i++)
    {
        const tn_transfer* t = tn_schedule_transfer(s, i);
        fprintf(f,
                "{\"id\":%u,\"src\":%u,\"dst\":%u,\"src_offset\":%" PRIu64
                ",\"dst_offset\":%" PRIu64 ",\"length\":%" PRIu64
                ",\"op\":\"%s\",\"step\":%u,\"dim\":%d,\"chunk\":%u,\"deps\":[",
                t->id,
                t->src,
                t->dst,
                t->src_offset,
                t->dst_offset,
                t->length,
                tn_op_name(t->op),
                t->step,
                t->dim,
                t->chunk);
        uint32_t n = 0;
        const uint32_t* d = tn_schedule_deps(s, i, &n);
        for (uint32_t k = 0; k < n; k++)
        {
            fprintf(f, "%s%u", k ? "," : "", d[k]);
        }
        fprintf(f, "],\"path\":[");
        const uint32_t* p = tn_schedule_path(s, i, &n);
        for (uint32_t k = 0; k < n; k++)
        {
            fprintf(f, "%s%u", k ? "," : "", p[k]);
        }
        fprintf(f, "]}%s\n", i + 1 < tn_schedule_count(s) ? "," : "");
    }
    fprintf(f, "]}\n");
}

static void
human_bytes(uint64_t b, char* buf, size_t size)
{
    if (b >= (1ULL << 30))
        snprintf(buf, size, "%" PRIu64 " B (%.2f GiB)", b, (double)b / (1ULL << 30));
    else if (b >= (1ULL << 20))
        snprintf(buf, size, "%" PRIu64 " B (%.2f MiB)", b, (double)b / (1ULL << 20));
    else if (b >= 1024)
        snprintf(buf, size, "%" PRIu64 " B (%.2f KiB)", b, (double)b / 1024);
    else
        snprintf(buf, size, "%" PRIu64 " B", b);
}

/*
 * The estimate in tn_plan refuses the plans it can foresee; this backstop bounds
 * everything else (routing tables, the verifier) so that an input nobody foresaw
 * fails with "out of memory" instead of taking the machine. The slack covers the
 * program itself and the libc's arenas. Sanitizers reserve terabytes of shadow
 * memory: no limit there.
 */
#if defined(__SANITIZE_ADDRESS__)
#define TN_PLAN_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TN_PLAN_SANITIZED 1
#endif
#endif

static void
limit_memory(uint64_t limit)
{
#ifndef TN_PLAN_SANITIZED
    const uint64_t slack = UINT64_C(64) << 20;
    if (limit < UINT64_MAX - slack)
    {
        struct rlimit rl;
        if (getrlimit(RLIMIT_DATA, &rl) == 0)
        {
            rlim_t want = (rlim_t)(limit + slack);
            if (rl.rlim_max == RLIM_INFINITY || want < rl.rlim_max)
            {
                rl.rlim_cur = want;
                setrlimit(RLIMIT_DATA, &rl); /* best effort: the estimate still applies */
            }
        }
    }
#else
    (void)limit;
#endif
}

/* Whether everything written to f reached it; names the output otherwise. */
static int
check_written(FILE* f, const char* name)
{
    if (fflush(f) != 0 || ferror(f))
    {
        fprintf(stderr, "tn-plan: writing %s failed: %s\n", name, strerror(errno));
        return 1;
    }
    return 0;
}

/* Whether the ring closed form applies: an all-reduce by the algorithm whose rank programs are
 * the one-way ring (its registry entry's generator, not its name) */
static bool
has_ring_closed_form(const tn_plan_request* req, const tn_algorithm* algo)
{
    return req->collective == TN_COLL_ALL_REDUCE && algo->generator == TN_GENERATOR_RING;
}

/* 2(N-1)(a + S/(N*B)) with a and B of NPU 0's first link (ring all-reduce) */
static void
print_ring_closed_form(const tn_topology* topo, uint32_t ranks, uint64_t bytes)
{
    uint32_t nl = 0;
    if (tn_topology_npu_count(topo) == 0)
        return;
    const uint32_t* out = tn_topology_out_links(topo, tn_topology_npu_node(topo, 0), &nl);
    if (nl == 0)
        return;
    const tn_link* l = tn_topology_link(topo, out[0]);
    printf("closed form   %.3f us = 2(N-1)(a + S/(N*B)), a = %" PRIu64 " ns, B = %" PRIu64
           " bit/s (NPU 0's first link)\n",
           tn_cost_ring_allreduce_ns(ranks, bytes, (double)l->latency_ns, l->rate_bps) / 1e3,
           l->latency_ns,
           l->rate_bps);
}

/* --algorithm auto: rank every algorithm that applies (tn_tune_rank) on the path the summary
 * takes, print the ranking, and return the choice in *chosen. */
static int
print_ranking(const tn_topology* topo,
              const tn_plan_request* req,
              const char* path,
              const tn_algorithm** chosen,
              tn_schedule** schedule,
              tn_cost_result** cost)
{
    tn_tune_options options;
    tn_tune_options_init(&options);
    /* the choice ranked on its schedule is the summary's schedule: not planned twice (an
     * NCCL choice is estimated with its protocol below, the ranking without) */
    options.keep_choice = true;
    options.path = strcmp(path, "generated") == 0  ? TN_TUNE_GENERATED
                   : strcmp(path, "schedule") == 0 ? TN_TUNE_SCHEDULE
                                                   : TN_TUNE_AUTO_PATH;
    tn_tune_ranking* ranking = NULL;
    tn_error err;
    if (tn_tune_rank(topo, req, &options, &ranking, &err))
    {
        fprintf(stderr, "tn-plan: planning failed: %s\n", err.message);
        return 1;
    }
    char b1[64];
    human_bytes(req->bytes, b1, sizeof(b1));
    printf("auto          %u of %u algorithms apply to %s of %s; ranked by estimate:\n",
           tn_tune_ranked(ranking),
           tn_tune_count(ranking),
           tn_collective_name(req->collective),
           b1);
    tn_tune_write(ranking, stdout);
    *chosen = tn_algorithm_find(tn_tune_best(ranking)->algorithm);
    tn_tune_take_choice(ranking, schedule, cost);
    if (*schedule && tn_nccl_is_family((*chosen)->name))
    {
        tn_schedule_destroy(*schedule);
        tn_cost_result_destroy(*cost);
        *schedule = NULL;
        *cost = NULL;
    }
    tn_tune_ranking_destroy(ranking);
    return check_written(stdout, "the ranking to stdout");
}

/* The generated path: rank-local programs and the per-step estimate, no DAG. */
static int
plan_generated(const tn_topology* topo,
               const tn_plan_request* req,
               const tn_algorithm* algo,
               const char* why)
{
    tn_error err;
    tn_program* p = NULL;
    if (tn_program_create(topo, req, &p, &err))
    {
        fprintf(stderr, "tn-plan: planning failed: %s\n", err.message);
        return 1;
    }
    tn_cost_program_result cost;
    if (tn_cost_program(p, NULL, 0, &cost, &err))
    {
        fprintf(stderr, "tn-plan: estimate: %s\n", err.message);
        tn_program_destroy(p);
        return 1;
    }
    tn_rank_program rp;
    memset(&rp, 0, sizeof(rp));
    if (tn_program_rank(p, 0, &rp, &err))
    {
        fprintf(stderr, "tn-plan: program of rank 0: %s\n", err.message);
        tn_program_destroy(p);
        return 1;
    }
    uint32_t ranks = tn_program_ranks(p);
    char b1[64];
    printf("topology      %s (%u NPUs, %u switches, %u links)\n",
           tn_topology_name(topo),
           tn_topology_npu_count(topo),
           tn_topology_switch_count(topo),
           tn_topology_link_count(topo));
    human_bytes(req->bytes, b1, sizeof(b1));
    printf("collective    %s, %s, chunks %u\n",
           tn_collective_name(req->collective),
           b1,
           tn_program_chunks(p));
    printf("algorithm     %s\n", algo->name);
    printf("ranks         %u\n", ranks);
    printf("path          generated: rank-local programs, no DAG (%s)\n", why);
    printf("steps         %u\n", cost.steps);
    bool exact = false;
    uint64_t transfers = tn_program_transfers(p, &exact);
    printf("transfers     %s%" PRIu64 "\n", exact ? "" : "about ", transfers);
    printf("rank program  %u ops at rank 0 (%u sends), at most %" PRIu64 " per rank\n",
           rp.count,
           rp.sends,
           tn_program_max_ops(p));
    printf("verified      by construction: every generator equals the verified schedule in "
           "test/core/test-program.c (up to a few hundred NPUs)\n");
    double t = cost.time_ns;
    printf("estimate      %.3f us (per-step model over the programs of %u of %u ranks, %" PRIu64
           " ops: no DAG)\n",
           t / 1e3,
           cost.evaluated,
           ranks,
           cost.ops);
    if (has_ring_closed_form(req, algo))
        print_ring_closed_form(topo, ranks, req->bytes);
    printf("algbw         %.3f GB/s\n", tn_algbw(req->bytes, t) / 1e9);
    printf("busbw         %.3f GB/s\n", tn_busbw(req->collective, ranks, req->bytes, t) / 1e9);
    tn_rank_program_free(&rp);
    tn_program_destroy(p);
    return check_written(stdout, "the summary to stdout");
}

/* What the command line asks for: the request, and the options around it. */
typedef struct
{
    tn_plan_request req;
    const char* topo_spec;
    const char* dump;
    const char* output;
    const char* order_arg; /* parsed once the topology is known (no allocation before) */
    const char* path;      /* --program: auto, generated or schedule */
    bool verify;
    uint32_t verify_max;
    bool have_size;
    bool have_chunks;
} plan_args;

/* What planning holds once the topology is built; plan_run_end releases it. */
typedef struct
{
    tn_topology* topo;
    const tn_algorithm* algo;
    bool tune;
    uint32_t* order; /* the given or identity rank order, or NULL */
    uint32_t order_count;
    FILE* out_file;     /* --output when --dump writes a file */
    tn_schedule* tuned; /* the choice's schedule and estimate, when auto made them */
    tn_cost_result* tuned_cost;
} plan_run;

static void
plan_run_end(plan_run* run)
{
    tn_schedule_destroy(run->tuned);
    tn_cost_result_destroy(run->tuned_cost);
    if (run->out_file)
        fclose(run->out_file);
    free(run->order);
    tn_topology_destroy(run->topo);
}

/* One option that takes a value, already known to be one: stores it in *a, or returns 2 after
 * its error line. */
static int
parse_value_option(const char* opt, const char* val, plan_args* a)
{
    tn_error err;
    if (strcmp(opt, "--topology") == 0)
        a->topo_spec = val;
    else if (strcmp(opt, "--verify-max") == 0)
    {
        if (parse_u32(val, &a->verify_max))
            return bad_arg(opt, val, "must be an integer >= 0 (at most 4294967294)");
    }
    else if (strcmp(opt, "--memory-limit") == 0)
    {
        if (tn_units_parse_bytes(val, SIZE_MAX, "--memory-limit", &a->req.memory_limit, &err))
        {
            fprintf(stderr, "tn-plan: %s\n", err.message);
            return 2;
        }
        a->req.memory_limit = a->req.memory_limit ? a->req.memory_limit : UINT64_MAX;
        /* the topology generators read the core's default limit: the same one */
        setenv("TN_MEMORY_LIMIT", val, 1);
    }
    else if (strcmp(opt, "--collective") == 0)
    {
        if (tn_collective_parse(val, &a->req.collective, &err))
            return bad_arg(opt, val, "unknown collective");
    }
    else if (strcmp(opt, "--algorithm") == 0)
    {
        if (tn_tune_algorithm_check(val, &err) != TN_OK)
            return bad_arg(opt, val, "unknown algorithm (see --list; auto ranks them all)");
        a->req.algorithm = val;
    }
    else if (strcmp(opt, "--size") == 0)
    {
        if (tn_units_parse_bytes(val, SIZE_MAX, "--size", &a->req.bytes, &err))
        {
            fprintf(stderr, "tn-plan: %s\n", err.message);
            return 2;
        }
        a->have_size = true;
    }
    else if (strcmp(opt, "--chunks") == 0)
    {
        if (parse_u32(val, &a->req.chunks) || a->req.chunks == 0)
            return bad_arg(opt, val, "must be an integer >= 1");
        a->have_chunks = true;
    }
    else if (strcmp(opt, "--ports") == 0)
    {
        if (parse_u32(val, &a->req.ports_per_node) || a->req.ports_per_node == 0)
            return bad_arg(opt, val, "must be an integer >= 1");
    }
    else if (strcmp(opt, "--root") == 0)
    {
        if (parse_u32(val, &a->req.root))
            return bad_arg(opt, val, "must be an integer >= 0");
    }
    else if (strcmp(opt, "--policy") == 0)
    {
        if (tn_themis_policy_parse(val, &a->req.themis.policy, &err) != TN_OK)
        {
            char why[64];
            snprintf(why,
                     sizeof(why),
                     "must be %s or %s",
                     tn_themis_policy_name(TN_THEMIS_FIFO),
                     tn_themis_policy_name(TN_THEMIS_SCF));
            return bad_arg(opt, val, why);
        }
    }
    else if (strcmp(opt, "--active") == 0)
    {
        if (parse_u32(val, &a->req.themis.active_chunks_per_dim) ||
            a->req.themis.active_chunks_per_dim == 0)
            return bad_arg(opt, val, "must be an integer >= 1");
    }
    else if (strcmp(opt, "--dump") == 0)
    {
        if (strcmp(val, "csv") != 0 && strcmp(val, "json") != 0)
            return bad_arg(opt, val, "must be csv or json");
        a->dump = val;
    }
    else if (strcmp(opt, "--output") == 0)
        a->output = val;
    else if (strcmp(opt, "--program") == 0)
    {
        if (strcmp(val, "auto") != 0 && strcmp(val, "generated") != 0 &&
            strcmp(val, "schedule") != 0)
            return bad_arg(opt, val, "must be auto, generated or schedule");
        a->path = val;
    }
    else if (strcmp(opt, "--rank-order") == 0)
        a->order_arg = val;
    return 0;
}

/* The command line into *a. Returns 0 to plan; otherwise the exit code, with *done set when
 * --list or --help has been answered (their code is the write's), clear after an error line. */
static int
parse_args(int argc, char** argv, plan_args* a, bool* done)
{
    static const char* with_value[] = {"--verify-max",
                                       "--memory-limit",
                                       "--topology",
                                       "--collective",
                                       "--algorithm",
                                       "--size",
                                       "--chunks",
                                       "--ports",
                                       "--root",
                                       "--policy",
                                       "--active",
                                       "--dump",
                                       "--output",
                                       "--rank-order",
                                       "--program"};
    *done = false;
    for (int i = 1; i < argc; i++)
    {
        const char* opt = argv[i];
        const char* val = i + 1 < argc ? argv[i + 1] : NULL;
        /* --opt=value as well as --opt value */
        char name[32];
        const char* eq = strncmp(opt, "--", 2) == 0 ? strchr(opt, '=') : NULL;
        if (eq)
        {
            size_t n = (size_t)(eq - opt);
            if (n >= sizeof(name))
            {
                return bad_arg(opt, NULL, "unknown option");
            }
            memcpy(name, opt, n);
            name[n] = '\0';
            opt = name;
            val = eq + 1;
            if (strcmp(opt, "--list") == 0 || strcmp(opt, "--help") == 0 ||
                strcmp(opt, "--no-verify") == 0 || strcmp(opt, "--baseline") == 0)
            {
                return bad_arg(opt, NULL, "takes no value");
            }
        }
        if (strcmp(opt, "--list") == 0)
        {
            *done = true;
            list_all();
            return check_written(stdout, "the list to stdout");
        }
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0)
        {
            *done = true;
            printf("%s", usage_text);
            return check_written(stdout, "the usage to stdout");
        }
        if (strcmp(opt, "--no-verify") == 0)
        {
            a->verify = false;
            continue;
        }
        if (strcmp(opt, "--baseline") == 0)
        {
            a->req.themis.baseline = true;
            continue;
        }
        bool known = false;
        for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
        {
            known = known || strcmp(opt, with_value[k]) == 0;
        }
        if (!known)
        {
            return bad_arg(opt, NULL, "unknown option");
        }
        if (val == NULL)
        {
            return bad_arg(opt, NULL, "missing value");
        }
        if (!eq)
        {
            i++;
        }
        int code = parse_value_option(opt, val, a);
        if (code)
            return code;
    }
    return 0;
}

/* The options required, the memory limit applied, the algorithm resolved (run->algo, run->tune)
 * and a given rank order parsed (run->order): 0, or 2 after the error line (run->order freed). */
static int
check_args(plan_args* a, plan_run* run)
{
    tn_error err;
    if (a->topo_spec == NULL)
        return bad_arg("--topology", NULL, "is required");
    if (a->req.memory_limit == 0 && tn_memory_default_limit(&a->req.memory_limit, &err))
    {
        fprintf(stderr, "tn-plan: %s\n", err.message);
        return 2;
    }
    limit_memory(a->req.memory_limit);
    if (a->req.algorithm == NULL)
        return bad_arg("--algorithm", NULL, "is required");
    if (!a->have_size)
        return bad_arg("--size", NULL, "is required");
    run->tune = tn_tune_is_auto(a->req.algorithm);
    run->algo = tn_algorithm_find(a->req.algorithm);
    if (!a->have_chunks) /* the algorithm's default; tuning: each candidate its own */
        a->req.chunks = run->tune ? 0 : tn_algorithm_default_chunks(run->algo);
    const char* order_arg = a->order_arg;
    if (order_arg && strcmp(order_arg, "auto") != 0 && strcmp(order_arg, "identity") != 0 &&
        parse_order(order_arg, &run->order, &run->order_count))
        return bad_arg("--rank-order",
                       order_arg,
                       "must be auto, identity or comma separated ranks");
    if (order_arg && strcmp(order_arg, "auto") != 0 && !run->tune && !run->algo->takes_rank_order)
    {
        free(run->order);
        run->order = NULL;
        return bad_arg("--rank-order",
                       a->req.algorithm,
                       "is only for ring and ring-bidir, not for algorithm");
    }
    return 0;
}

/* Arguments that only the topology can check (exit 2, not a planning failure): the root, the
 * rank order (into a->req), and --output opened. 0, or 2 after the error line. */
static int
check_args_on_topology(plan_args* a, plan_run* run)
{
    tn_error err;
    const char* order_arg = a->order_arg;
    uint32_t npus = tn_topology_npu_count(run->topo);
    if ((a->req.collective == TN_COLL_BROADCAST || a->req.collective == TN_COLL_REDUCE) &&
        a->req.root >= npus)
    {
        char why[96];
        snprintf(why, sizeof(why), "root must be < %u NPUs of the topology, got", npus);
        char val[16];
        snprintf(val, sizeof(val), "%u", a->req.root);
        return bad_arg("--root", val, why);
    }
    if (order_arg && strcmp(order_arg, "identity") == 0)
    {
        run->order = malloc((size_t)(npus ? npus : 1) * sizeof(*run->order));
        for (uint32_t r = 0; run->order && r < npus; r++)
            run->order[r] = r;
        run->order_count = npus;
        if (!run->order)
            return bad_arg("--rank-order", NULL, "out of memory");
    }
    if (run->order)
    {
        a->req.rank_order = run->order;
        a->req.rank_order_count = run->order_count;
        if (tn_rank_order_validate(run->tune ? TN_TUNE_AUTO : run->algo->name,
                                   run->order,
                                   run->order_count,
                                   npus,
                                   &err))
            return bad_arg("--rank-order", NULL, err.message);
    }
    if (a->dump && a->output)
    {
        run->out_file = fopen(a->output, "w");
        if (run->out_file == NULL)
            return bad_arg("--output", a->output, "cannot open for writing");
    }
    return 0;
}

/* The path --program takes: true for the generated one (where the schedule would be large),
 * with the reason in why[size] for the summary. */
static bool
choose_generated(const plan_run* run,
                 const tn_plan_request* req,
                 const char* path,
                 char* why,
                 size_t size)
{
    bool generated = strcmp(path, "generated") == 0;
    snprintf(why, size, generated ? "--program generated" : "--program schedule");
    if (strcmp(path, "auto") == 0)
    {
        tn_plan_size plan_size;
        tn_error err;
        snprintf(why, size, "auto: no generator for %s", run->algo->name);
        if (run->algo->generator != TN_GENERATOR_NONE &&
            tn_plan_estimate(run->topo, req, &plan_size, &err) == TN_OK)
        {
            generated = plan_size.transfers > TN_PLAN_AUTO_TRANSFERS;
            snprintf(why,
                     size,
                     "auto: %s%" PRIu64 " transfers %s %u",
                     plan_size.exact_transfers ? "" : "about ",
                     plan_size.transfers,
                     generated ? ">" : "<=",
                     TN_PLAN_AUTO_TRANSFERS);
        }
    }
    return generated;
}

/* The summary's head: topology, collective, algorithm (and NCCL's choice), the schedule's size. */
static void
print_schedule_head(const tn_topology* topo,
                    const tn_plan_request* req,
                    const tn_schedule* s,
                    const tn_nccl_choice* nccl,
                    const char* why_path)
{
    char b1[64];
    printf("topology      %s (%u NPUs, %u switches, %u links)\n",
           tn_topology_name(topo),
           tn_topology_npu_count(topo),
           tn_topology_switch_count(topo),
           tn_topology_link_count(topo));
    human_bytes(req->bytes, b1, sizeof(b1));
    printf("collective    %s, %s, chunks %u\n",
           tn_collective_name(req->collective),
           b1,
           tn_schedule_chunks(s));
    printf("algorithm     %s\n", tn_schedule_algorithm(s));
    if (nccl)
        printf("nccl          %s, %s, %u channel(s); NCCL's tuning model: %.3f us\n",
               tn_nccl_algo_name(nccl->algo),
               tn_nccl_proto_name(nccl->proto),
               nccl->channels,
               nccl->time_us);
    printf("ranks         %u\n", tn_schedule_ranks(s));
    printf("path          schedule: the global DAG of transfers (%s)\n", why_path);
    printf("steps         %u\n", tn_schedule_steps(s));
    printf("transfers     %u\n", tn_schedule_count(s));
    human_bytes(tn_schedule_total_bytes(s), b1, sizeof(b1));
    printf("total bytes   %s\n", b1);
    if (tn_schedule_local_count(s) > 0) /* in transfers and total bytes, but no network */
    {
        printf("local ops     %u (no network)\n", tn_schedule_local_count(s));
    }
}

/* The ring's order: the given one, or the one the planner takes; nothing when it cannot be
 * found (the plan found it, so only memory is short). */
static void
print_rank_order(const tn_topology* topo, const uint32_t* order, uint32_t ranks)
{
    tn_error err;
    const uint32_t* shown = order;
    uint32_t* found = NULL;
    tn_ring_order_info info = {TN_RING_ORDER_GIVEN, 0};
    if (!shown)
    {
        found = malloc((size_t)ranks * sizeof(*found));
        if (found && tn_ring_order(topo, ranks, found, &info, &err))
        {
            free(found);
            found = NULL;
        }
        shown = found;
    }
    if (shown)
    {
        if (order)
            info.non_adjacent = tn_ring_order_non_adjacent(topo, shown, ranks);
        printf("rank order    %s, %u of %u ring hops between non-adjacent NPUs; starts",
               tn_ring_order_kind_name(info.kind),
               info.non_adjacent,
               ranks);
        for (uint32_t k = 0; k < ranks && k < 8; k++)
            printf("%s%u", k ? "," : " ", shown[k]);
        printf("%s\n", ranks > 8 ? ",..." : "");
    }
    free(found);
}

/* The verifier's line; 1 when the schedule fails it. */
static int
print_verified(const plan_args* a, const tn_schedule* s, const tn_topology* topo)
{
    if (a->verify && a->verify_max != 0 && tn_schedule_count(s) > a->verify_max)
    {
        printf("verified      skipped: %u transfers > --verify-max %u (the verifier's time grows "
               "faster than linearly; raise --verify-max to verify)\n",
               tn_schedule_count(s),
               a->verify_max);
    }
    else if (a->verify)
    {
        tn_error verr;
        tn_status vr = tn_verify_schedule(s, topo, NULL, &verr);
        printf("verified      %s%s%s\n",
               vr == TN_OK ? "yes" : "no",
               vr ? ": " : "",
               vr ? verr.message : "");
        if (vr)
            return 1;
    }
    else
    {
        printf("verified      skipped\n");
    }
    return 0;
}

/* The contention line; 1 with the error in late_error[size] when the report fails. */
static int
print_contention(const tn_schedule* s, const tn_topology* topo, char* late_error, size_t size)
{
    tn_error err;
    int code = 0;
    tn_contention_report* rep = NULL;
    if (tn_verify_contention(s, topo, NULL, &rep, &err) == TN_OK)
    {
        printf("contention    %s; %" PRIu64 " conflicts over %" PRIu64 " (link, step) pairs",
               tn_schedule_contention_free(s) ? "claims contention-free" : "no claim",
               rep->conflicts,
               rep->link_steps_used);
        if (rep->conflicts > 0 && rep->stored > 0)
        {
            const tn_conflict* c = &rep->list[0];
            const tn_link* l = tn_topology_link(topo, c->link);
            printf("; first: link %u (%u->%u) step %u transfers %u and %u",
                   c->link,
                   l->src,
                   l->dst,
                   c->step,
                   c->transfer_a,
                   c->transfer_b);
        }
        printf("\n");
    }
    else
    {
        printf("contention    report failed: %s\n", err.message);
        /* the error line comes last, after the rest of the summary */
        snprintf(late_error, size, "the schedule's paths: %s", err.message);
        code = 1;
    }
    tn_contention_report_destroy(rep);
    return code;
}

/* --dump to --output (or stdout); 1 after the error line when writing the file fails, which
 * also closes it (run->out_file is NULL after). */
static int
write_dump(const plan_args* a, plan_run* run, const tn_schedule* s)
{
    FILE* f = run->out_file ? run->out_file : stdout;
    if (strcmp(a->dump, "csv") == 0)
        dump_csv(f, s);
    else
        dump_json(f, s);
    if (!run->out_file)
        return 0;
    int bad = fflush(run->out_file) != 0 || ferror(run->out_file);
    int saved = errno;
    if (fclose(run->out_file) != 0 && !bad)
    {
        bad = 1;
        saved = errno;
    }
    run->out_file = NULL;
    if (!bad)
        return 0;
    fflush(stdout); /* the summary before the error line, as it was printed */
    fprintf(stderr,
            "tn-plan: option --output: writing '%s' failed: %s\n",
            a->output,
            strerror(saved));
    return 1;
}

/* The schedule path: tn_plan, its estimate, the summary, the verifier and --dump. Returns the
 * exit code; an error found while summarizing is printed last, after the summary. */
static int
plan_schedule(const plan_args* a, plan_run* run, const char* why_path)
{
    const tn_plan_request* req = &a->req;
    tn_topology* topo = run->topo;
    tn_error err;
    tn_schedule* s = run->tuned; /* auto's choice, planned once */
    run->tuned = NULL;
    if (!s && tn_plan(topo, req, &s, &err))
    {
        fprintf(stderr, "tn-plan: planning failed: %s\n", err.message);
        return 1;
    }
    /* the estimate resolves every transfer's path: a topology where some pair has none (a
     * disconnected file) fails here, before any summary is printed */
    tn_cost_result* cost = run->tuned_cost;
    run->tuned_cost = NULL;
    tn_cost_options copt;
    memset(&copt, 0, sizeof(copt));
    copt.latency_ns = TN_TOPO_DEFAULT_LATENCY_NS;
    tn_nccl_choice nccl; /* NCCL's protocol costs what the ns-3 executor charges */
    bool is_nccl = tn_nccl_is_family(req->algorithm) &&
                   tn_nccl_choose(topo, req, tn_schedule_ranks(s), &nccl, &err) == TN_OK;
    copt.protocol = is_nccl ? &nccl.protocol : NULL;
    if (!cost && tn_cost_estimate(s, topo, NULL, &copt, &cost, &err))
    {
        fprintf(stderr, "tn-plan: estimate: %s\n", err.message);
        tn_schedule_destroy(s);
        return 1;
    }
    int exit_code = 0;
    char late_error[sizeof err.message + 64] = ""; /* an error found while summarizing */
    uint32_t ranks = tn_schedule_ranks(s);
    print_schedule_head(topo, req, s, is_nccl ? &nccl : NULL, why_path);
    if (run->algo->takes_rank_order)
        print_rank_order(topo, run->order, ranks);
    if (cost)
    {
        uint64_t maxb = 0;
        char b1[64];
        for (uint32_t l = 0; l < cost->link_count; l++)
            maxb = cost->link_bytes[l] > maxb ? cost->link_bytes[l] : maxb;
        human_bytes(maxb, b1, sizeof(b1));
        printf("max link bytes %s\n", b1);
    }
    exit_code |= print_verified(a, s, topo);
    exit_code |= print_contention(s, topo, late_error, sizeof late_error);
    if (cost)
    {
        double t = cost->time_ns;
        printf("estimate      %.3f us (%s)\n",
               t / 1e3,
               cost->model == TN_COST_FLUID ? "DAG, fluid: links shared max-min fairly"
                                            : "DAG, list: each link a FIFO server");
        if (has_ring_closed_form(req, run->algo))
            print_ring_closed_form(topo, ranks, req->bytes);
        printf("algbw         %.3f GB/s\n", tn_algbw(req->bytes, t) / 1e9);
        printf("busbw         %.3f GB/s\n", tn_busbw(req->collective, ranks, req->bytes, t) / 1e9);
    }
    else
    {
        printf("estimate      failed: %s\n", err.message);
        snprintf(late_error, sizeof late_error, "estimate: %s", err.message);
        exit_code = 1;
    }
    tn_cost_result_destroy(cost);
    if (a->dump)
        exit_code |= write_dump(a, run, s);
    if (check_written(stdout, "the summary to stdout"))
        exit_code = 1;
    else if (late_error[0])
        fprintf(stderr, "tn-plan: %s\n", late_error);
    tn_schedule_destroy(s);
    return exit_code;
}

/* Parse, check against the topology, rank (--algorithm auto), choose the path, plan. */
static int
plan_main(plan_args* a, plan_run* run)
{
    int code = check_args(a, run);
    if (code)
        return code;
    tn_error err;
    tn_status rc = a->topo_spec[0] == '@'
                       ? tn_topology_load_file(a->topo_spec + 1, &run->topo, &err)
                       : tn_topology_from_spec(a->topo_spec, &run->topo, &err);
    if (rc)
        return bad_arg("--topology", NULL, err.message);
    code = check_args_on_topology(a, run);
    if (code)
        return code;
    if (run->tune)
    {
        /* the ranking, then the summary of the choice */
        code =
            print_ranking(run->topo, &a->req, a->path, &run->algo, &run->tuned, &run->tuned_cost);
        if (code)
            return code;
        a->req.algorithm = run->algo->name;
        a->req.chunks = a->req.chunks ? a->req.chunks : tn_algorithm_default_chunks(run->algo);
    }
    char why_path[128];
    bool generated = choose_generated(run, &a->req, a->path, why_path, sizeof(why_path));
    if (generated && a->dump)
        return bad_arg("--dump", a->dump, "writes a materialised schedule: add --program schedule");
    if (generated)
        return plan_generated(run->topo, &a->req, run->algo, why_path);
    return plan_schedule(a, run, why_path);
}

int
main(int argc, char** argv)
{
    plan_args a;
    memset(&a, 0, sizeof(a));
    tn_plan_request_init(&a.req);
    a.req.algorithm = NULL;
    a.verify = true;
    a.verify_max = 250000;
    a.path = "auto";
    bool done = false;
    int code = parse_args(argc, argv, &a, &done);
    if (code || done)
        return code;
    plan_run run;
    memset(&run, 0, sizeof(run));
    code = plan_main(&a, &run);
    plan_run_end(&run);
    return code;
}
