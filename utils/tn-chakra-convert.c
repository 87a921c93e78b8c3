/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra-convert: an ASTRA-sim 1.0 text workload as Chakra execution traces, one file per
 * rank (tn_chakra_convert), and a check of trace files (--check).
 *
 *   tn-chakra-convert WORKLOAD.txt NPUS PREFIX [--group G]
 *       writes PREFIX.0.et .. PREFIX.<NPUS-1>.et: one iteration of the workload as the
 *       training job runs it (G: the model-parallel group size when the file gives none)
 *   tn-chakra-convert --check PREFIX NPUS
 *       reads PREFIX.0.et .. PREFIX.<NPUS-1>.et, checks them together (tn_chakra_check) and
 *       prints one line per rank: its nodes by kind
 *   tn-chakra-convert --msccl ALGO.xml PREFIX
 *       writes PREFIX.<g>.et for every gpu g of an MSCCL-IR algorithm (tn-msccl.h): a custom
 *       collective for ASTRA-sim's *-implementation-custom keys and the custom:PREFIX
 *       algorithm, as chakra's et_converter --input_type msccl writes it
 * NPUS is at most MAX_NPUS (a typo must not write millions of files); PREFIX must name a
 * file (not empty, not ending in '/': the traces would be hidden ".0.et" files). The ranks are
 * written to PREFIX.<r>.et.part and renamed once every rank converted: a failed conversion
 * leaves no file behind (nor a half set of traces beside an older one).
 * Exit codes: 0 ok; 1 a file cannot be read or written, or a trace is refused; 2 bad
 * arguments. Errors go to stderr as one "tn-chakra-convert: ..." line.
 */
#include "ns3/tn-chakra.h"
#include "ns3/tn-msccl.h"
#include "ns3/tn-workload.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ranks of the largest fabric the module plans (fattree:k=64, 65,536 hosts). */
#define MAX_NPUS 65536u

static const char* usage_text = "usage: tn-chakra-convert WORKLOAD.txt NPUS PREFIX [--group G]\n"
                                "       tn-chakra-convert --check PREFIX NPUS\n"
                                "       tn-chakra-convert --msccl ALGO.xml PREFIX\n";

static int
fail(int code, const char* message)
{
    fprintf(stderr, "tn-chakra-convert: %s\n", message);
    return code;
}

static int
parse_count(const char* text, uint32_t* out)
{
    char* end = NULL;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || !end || *end || end == text || text[0] == '-' || v == 0 || v > UINT32_MAX)
    {
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

/* PREFIX.<rank>.et, with suffix after it (".part" or ""); NULL when out of memory */
static char*
rank_path_suffix(const char* prefix, uint32_t rank, const char* suffix)
{
    size_t n = strlen(prefix) + strlen(suffix) + 16;
    char* path = malloc(n);
    if (path)
    {
        snprintf(path, n, "%s.%u.et%s", prefix, rank, suffix);
    }
    return path;
}

static char*
rank_path(const char* prefix, uint32_t rank)
{
    return rank_path_suffix(prefix, rank, "");
}

/* 0 when NPUS is at most MAX_NPUS, else the error line */
static int
check_npus(uint32_t npus)
{
    if (npus <= MAX_NPUS)
    {
        return 0;
    }
    char message[160];
    snprintf(message,
             sizeof(message),
             "NPUS %u is more than %u (the ranks of the largest fabric: one file each)",
             npus,
             MAX_NPUS);
    return fail(2, message);
}

/* Remove PREFIX.<r>.et.part for r < count (a failed conversion leaves nothing). */
static void
remove_parts(const char* prefix, uint32_t count)
{
    for (uint32_t r = 0; r < count; r++)
    {
        char* part = rank_path_suffix(prefix, r, ".part");
        if (part)
        {
            remove(part);
        }
        free(part);
    }
}

static int
check(const char* prefix, uint32_t npus)
{
    tn_chakra_trace** traces = calloc(npus, sizeof(*traces));
    if (!traces)
    {
        return fail(1, "out of memory");
    }
    tn_error err;
    int code = 0;
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        char* path = rank_path(prefix, r);
        if (!path || tn_chakra_load_file(path, &traces[r], &err))
        {
            code = fail(1, path ? err.message : "out of memory");
        }
        free(path);
    }
    if (!code && tn_chakra_check(traces, npus, &err))
    {
        code = fail(1, err.message);
    }
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        uint32_t kinds[5] = {0, 0, 0, 0, 0};
        uint32_t deps = 0;
        for (uint32_t i = 0; i < tn_chakra_node_count(traces[r]); i++)
        {
            kinds[tn_chakra_node_at(traces[r], i)->kind]++;
            deps += tn_chakra_node_at(traces[r], i)->dep_count;
        }
        printf("%s: %u nodes: %u compute, %u memory, %u send, %u recv, %u collective; %u "
               "dependencies\n",
               tn_chakra_name(traces[r]),
               tn_chakra_node_count(traces[r]),
               kinds[TN_CHAKRA_COMPUTE],
               kinds[TN_CHAKRA_MEMORY],
               kinds[TN_CHAKRA_SEND],
               kinds[TN_CHAKRA_RECV],
               kinds[TN_CHAKRA_COLLECTIVE],
               deps);
    }
    for (uint32_t r = 0; r < npus; r++)
    {
        tn_chakra_destroy(traces[r]);
    }
    free(traces);
    return code;
}

/* What a rank's trace is made of: a text workload or an MSCCL algorithm. */
typedef struct converter
{
    const tn_workload* wl;
    const tn_msccl* msccl;
    uint32_t npus;
    uint32_t group;
} converter;

/* Write PREFIX.<r>.et for every rank, through .part files renamed once all are written. */
static int
write_ranks(const char* prefix, uint32_t npus, const converter* c)
{
    tn_error err;
    int code = 0;
    uint32_t written = 0; /* PREFIX.<r>.et.part files created */
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        char* path = rank_path_suffix(prefix, r, ".part");
        FILE* file = path ? fopen(path, "wb") : NULL;
        written += file ? 1 : 0;
        if (!file)
        {
            char message[600];
            snprintf(message,
                     sizeof(message),
                     "%s: %s",
                     path ? path : "output",
                     path ? strerror(errno) : "out of memory");
            code = fail(1, message);
        }
        else if (c->wl ? tn_chakra_convert(c->wl, c->npus, c->group, r, file, &err)
                       : tn_msccl_write(c->msccl, r, file, &err))
        {
            code = fail(1, err.message);
        }
        if (file && fclose(file) != 0 && !code)
        {
            code = fail(1, "closing an output file failed");
        }
        free(path);
    }
    for (uint32_t r = 0; r < npus && !code; r++)
    {
        char* part = rank_path_suffix(prefix, r, ".part");
        char* path = rank_path(prefix, r);
        if (!part || !path || rename(part, path) != 0)
        {
            char message[600];
            snprintf(message,
                     sizeof(message),
                     "%s: %s",
                     path ? path : "output",
                     path && part ? strerror(errno) : "out of memory");
            code = fail(1, message);
        }
        free(part);
        free(path);
    }
    if (code)
    {
        remove_parts(prefix, written);
    }
    return code;
}

/* --msccl: every gpu of the algorithm in path. */
static int
convert_msccl(const char* path, const char* prefix)
{
    FILE* in = fopen(path, "rb");
    if (!in)
    {
        char message[600];
        snprintf(message, sizeof(message), "%s: %s", path, strerror(errno));
        return fail(1, message);
    }
    size_t cap = 1 << 16, len = 0;
    char* text = malloc(cap);
    for (size_t got = 1; text && got;)
    {
        if (len == cap)
        {
            char* grown = cap < (1u << 30) ? realloc(text, cap *= 2) : NULL;
            if (!grown)
            {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
        }
        got = fread(text + len, 1, cap - len, in);
        len += got;
    }
    fclose(in);
    if (!text)
    {
        return fail(1, "out of memory (an MSCCL file is at most 1 GiB)");
    }
    tn_error err;
    tn_msccl* m = NULL;
    if (tn_msccl_parse(text, len, path, &m, &err))
    {
        free(text);
        return fail(1, err.message);
    }
    free(text);
    if (check_npus(tn_msccl_gpus(m)))
    {
        tn_msccl_destroy(m);
        return 2;
    }
    const converter c = {NULL, m, tn_msccl_gpus(m), 0};
    const int code = write_ranks(prefix, tn_msccl_gpus(m), &c);
    tn_msccl_destroy(m);
    return code;
}

int
main(int argc, char** argv)
{
    uint32_t npus = 0;
    if (argc == 4 && strcmp(argv[1], "--check") == 0)
    {
        if (!parse_count(argv[3], &npus))
        {
            return fail(2, "NPUS must be a positive integer");
        }
        if (check_npus(npus))
        {
            return 2;
        }
        return check(argv[2], npus);
    }
    const int msccl = argc == 4 && strcmp(argv[1], "--msccl") == 0;
    uint32_t group = 0;
    if (msccl)
    {
        npus = 1; /* the file's gpus, once read */
    }
    else if (argc != 4 && !(argc == 6 && strcmp(argv[4], "--group") == 0))
    {
        fputs(usage_text, stderr);
        return 2;
    }
    if (!msccl && (!parse_count(argv[2], &npus) || (argc == 6 && !parse_count(argv[5], &group))))
    {
        return fail(2,
                    argc == 6 ? "NPUS and --group must be positive integers"
                              : "NPUS must be a positive integer");
    }
    if (check_npus(npus))
    {
        return 2;
    }
    const char* prefix = argv[3];
    const size_t length = strlen(prefix);
    if (length == 0 || prefix[length - 1] == '/')
    {
        return fail(2,
                    "PREFIX must name a file (PREFIX.0.et ...), not be empty or a folder ending "
                    "in '/'");
    }
    if (!tn_chakra_supported())
    {
        tn_error err;
        tn_chakra_write_metadata(stdout, "", &err);
        return fail(1, err.message);
    }
    tn_error err;
    if (msccl)
    {
        return convert_msccl(argv[2], prefix);
    }
    tn_workload* wl = NULL;
    if (tn_workload_load_file(argv[1], &wl, &err))
    {
        return fail(1, err.message);
    }
    const converter c = {wl, NULL, npus, group};
    const int code = write_ranks(prefix, npus, &c);
    tn_workload_destroy(wl);
    return code;
}
