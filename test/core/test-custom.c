/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * custom:PREFIX (tn-algorithm.h) and the MSCCL-IR converter (tn-msccl.h): a ring all-reduce
 * written as MSCCL writes it plans as the ring's closed forms say, scaled by the
 * collective's size; a schedule that does not perform the collective, unpaired messages,
 * node types a collective has no use for and a rank count that does not match are refused
 * naming the file and the node.
 */
#include "tn-test.h"

#include "ns3/tn-algorithm.h"
#include "ns3/tn-chakra.h"
#include "ns3/tn-msccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TN_CHAKRA

#define N 4

/* MSCCL's ring all-reduce on N GPUs, one thread block each: reduce-scatter then all-gather,
   every step after the one before. The steps nops[2k] of gpu nops[2k + 1] (pairs up to a -1)
   do nothing (MSCCL's nop); rrc 0 writes the reduce-scatter's receives as plain receives
   (copies). */
static void
ring_xml(char* out, size_t size, const int* nops, int rrc)
{
    size_t n = (size_t)snprintf(out,
                                size,
                                "<?xml version=\"1.0\"?>\n<algo name=\"ring\" proto=\"Simple\" "
                                "nchannels=\"1\" ngpus=\"%d\" coll=\"allreduce\" inplace=\"1\">\n",
                                N);
    for (int r = 0; r < N; r++)
    {
        n += (size_t)snprintf(out + n,
                              size - n,
                              "  <gpu id=\"%d\" i_chunks=\"%d\" o_chunks=\"0\" s_chunks=\"0\">\n"
                              "    <tb id=\"0\" send=\"%d\" recv=\"%d\" chan=\"0\">\n",
                              r,
                              N,
                              (r + 1) % N,
                              (r + N - 1) % N);
        int s = 0;
        for (int k = 0; k < 2 * (N - 1); k++)
        {
            const int rs = k < N - 1;
            const int j = rs ? k : k - (N - 1);
            const int sent = rs ? (r - j + 2 * N) % N : (r + 1 - j + 2 * N) % N;
            const int got = (sent + N - 1) % N;
            for (int half = 0; half < 2; half++)
            {
                int nop = 0;
                for (const int* p = nops; p && *p >= 0; p += 2)
                {
                    nop = nop || (p[0] == s && p[1] == r);
                }
                n += (size_t)snprintf(out + n,
                                      size - n,
                                      "      <step s=\"%d\" type=\"%s\" srcbuf=\"i\" srcoff=\"%d\" "
                                      "dstbuf=\"i\" dstoff=\"%d\" cnt=\"1\" depid=\"-1\" "
                                      "deps=\"-1\" hasdep=\"0\"/>\n",
                                      s++,
                                      nop         ? "nop"
                                      : half == 0 ? "s"
                                                  : (rs && rrc ? "rrc" : "r"),
                                      half == 0 ? sent : got,
                                      half == 0 ? sent : got);
            }
        }
        n += (size_t)snprintf(out + n, size - n, "    </tb>\n  </gpu>\n");
    }
    snprintf(out + n, size - n, "</algo>\n");
}

typedef struct scratch
{
    char prefix[512];
} scratch;

/* PREFIX in the suite's scratch folder. */
static int
make_scratch(tn_test_ctx* ctx, scratch* s)
{
    return tn_test_temp_path(ctx, "custom-ring", s->prefix, sizeof(s->prefix)) != NULL;
}

static void
remove_scratch(scratch* s, uint32_t files)
{
    char path[560];
    for (uint32_t r = 0; r < files; r++)
    {
        snprintf(path, sizeof(path), "%s.%u.et", s->prefix, r);
        remove(path);
    }
}

/* Convert the XML to PREFIX.<g>.et; TN_OK or the converter's status. */
static tn_status
write_set(const char* xml, const char* prefix, tn_error* err)
{
    tn_msccl* m = NULL;
    tn_status st = tn_msccl_parse(xml, strlen(xml), "ring.xml", &m, err);
    for (uint32_t g = 0; !st && g < tn_msccl_gpus(m); g++)
    {
        char path[560];
        snprintf(path, sizeof(path), "%s.%u.et", prefix, g);
        FILE* f = fopen(path, "wb");
        st = f ? tn_msccl_write(m, g, f, err) : tn_error_set(err, TN_EIO, "%s", path);
        if (f)
        {
            fclose(f);
        }
    }
    tn_msccl_destroy(m);
    return st;
}

static tn_status
plan(const char* prefix, uint32_t ranks, uint64_t bytes, tn_schedule** s, tn_error* err)
{
    char name[600];
    snprintf(name, sizeof(name), "custom:%s", prefix);
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = name;
    req.ranks = ranks;
    req.bytes = bytes;
    return tn_plan(NULL, &req, s, err);
}

static int
contains(const char* text, const char* part)
{
    return strstr(text, part) != NULL;
}

static void
test_ring(tn_test_ctx* ctx)
{
    static char xml[16384];
    scratch d;
    TN_REQUIRE(ctx, make_scratch(ctx, &d));
    ring_xml(xml, sizeof(xml), NULL, 1);
    tn_error err;
    TN_REQUIRE_MSG(ctx, write_set(xml, d.prefix, &err) == TN_OK, "%s", err.message);
    const uint64_t sizes[] = {4 << 20, 1002};
    for (size_t k = 0; k < 2; k++)
    {
        tn_schedule* s = NULL;
        TN_REQUIRE_MSG(ctx, plan(d.prefix, N, sizes[k], &s, &err) == TN_OK, "%s", err.message);
        /* the ring's closed forms: 2 N (N - 1) messages of S / N (tn_slice_of), half of them
           reductions, each step after the one before: 2 (N - 1) steps */
        TN_CHECK_EQ(ctx, tn_schedule_count(s), 2 * N * (N - 1));
        uint32_t reduces = 0, last_step = 0;
        uint64_t total = 0;
        for (uint32_t i = 0; i < tn_schedule_count(s); i++)
        {
            const tn_transfer* t = tn_schedule_transfer(s, i);
            const tn_slice slice =
                tn_slice_of(sizes[k], N, (uint32_t)(t->src_offset * N / (sizes[k] ? sizes[k] : 1)));
            TN_CHECK_EQ(ctx, t->length, slice.length);
            TN_CHECK_EQ(ctx, t->dst, (t->src + 1) % N);
            reduces += t->op == TN_OP_REDUCE;
            last_step = t->step > last_step ? t->step : last_step;
            total += t->length;
        }
        TN_CHECK_EQ(ctx, reduces, N * (N - 1));
        TN_CHECK_EQ(ctx, last_step, 2 * (N - 1) - 1);
        /* every rank sends 2 (N - 1) / N of the vector */
        TN_CHECK_EQ(ctx, total, (uint64_t)2 * (N - 1) * sizes[k]);
        TN_CHECK(ctx, strcmp(tn_schedule_algorithm(s), "custom") == 0);
        tn_schedule_destroy(s);
    }
    /* a set for 4 ranks is not a collective of 3 or 5 */
    tn_schedule* s = NULL;
    TN_CHECK_EQ(ctx, plan(d.prefix, N - 1, 1000, &s, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "custom-ring.3.et exists") &&
                     contains(err.message, "more ranks than the collective's 3"),
                 "%s",
                 err.message);
    TN_CHECK(ctx, plan(d.prefix, N + 1, 1000, &s, &err) != TN_OK);
    TN_CHECK_MSG(ctx, contains(err.message, "custom-ring.4.et"), "%s", err.message);
    /* the name without traces */
    tn_plan_request req;
    tn_plan_request_init(&req);
    req.algorithm = "custom";
    req.ranks = N;
    TN_CHECK_EQ(ctx, tn_plan_check(NULL, &req, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx, contains(err.message, "custom:PREFIX"), "%s", err.message);
    remove_scratch(&d, N);
}

static void
test_wrong(tn_test_ctx* ctx)
{
    static char xml[16384];
    scratch d;
    TN_REQUIRE(ctx, make_scratch(ctx, &d));
    tn_error err;
    tn_schedule* s = NULL;
    /* the receives of the reduce-scatter copy instead of reducing: the sums are never made */
    ring_xml(xml, sizeof(xml), NULL, 0);
    TN_REQUIRE_MSG(ctx, write_set(xml, d.prefix, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, plan(d.prefix, N, 4096, &s, &err), TN_EVERIFY);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "do not perform the all-reduce of 4096 bytes on 4 ranks"),
                 "%s",
                 err.message);
    /* the last message of the all-gather left out at both ends (nops): rank 1 misses a
       chunk */
    const int last = 4 * (N - 1) - 1;
    const int both[] = {last, 1, last - 1, 0, -1};
    ring_xml(xml, sizeof(xml), both, 1);
    TN_REQUIRE_MSG(ctx, write_set(xml, d.prefix, &err) == TN_OK, "%s", err.message);
    TN_CHECK_EQ(ctx, plan(d.prefix, N, 4096, &s, &err), TN_EVERIFY);
    TN_CHECK_MSG(ctx, contains(err.message, "final state: rank 1"), "%s", err.message);
    /* only the receive left out: gpu 0's last send has no receive */
    const int recv[] = {last, 1, -1};
    ring_xml(xml, sizeof(xml), recv, 1);
    TN_REQUIRE_MSG(ctx, write_set(xml, d.prefix, &err) == TN_OK, "%s", err.message);
    TN_CHECK(ctx, plan(d.prefix, N, 4096, &s, &err) != TN_OK);
    TN_CHECK_MSG(ctx, contains(err.message, "custom-ring.0.et: node "), "%s", err.message);
    remove_scratch(&d, N);
}

static void
test_refused(tn_test_ctx* ctx)
{
    scratch d;
    TN_REQUIRE(ctx, make_scratch(ctx, &d));
    tn_error err;
    /* a collective node has no place in a collective's schedule */
    for (uint32_t r = 0; r < 2; r++)
    {
        char path[560];
        snprintf(path, sizeof(path), "%s.%u.et", d.prefix, r);
        FILE* f = fopen(path, "wb");
        TN_REQUIRE(ctx, f != NULL);
        TN_CHECK(ctx, tn_chakra_write_metadata(f, "0.0.4", &err) == TN_OK);
        tn_chakra_node_spec spec;
        tn_chakra_node_spec_init(&spec);
        spec.id = 5;
        spec.type = r ? TN_CHAKRA_COMM_COLL_NODE : TN_CHAKRA_COMM_SEND_NODE;
        spec.comm_type = tn_chakra_comm_type_of(TN_COLL_ALL_REDUCE);
        spec.comm_size = 64;
        spec.comm_dst = 1;
        spec.chunk_total = r ? 0 : 2;
        spec.chunk_count = 1;
        TN_CHECK(ctx, tn_chakra_write_node(f, &spec, &err) == TN_OK);
        fclose(f);
    }
    tn_schedule* s = NULL;
    TN_CHECK_EQ(ctx, plan(d.prefix, 2, 64, &s, &err), TN_EINVAL);
    TN_CHECK_MSG(ctx,
                 contains(err.message, "custom-ring.1.et: node 5: COMM_COLL_NODE is not allowed"),
                 "%s",
                 err.message);
    remove_scratch(&d, 2);

    /* MSCCL steps chakra's converter does not take, with the file and line */
    const char* rcs = "<algo coll=\"allreduce\">\n<gpu id=\"0\" i_chunks=\"2\">\n"
                      "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n"
                      "<step s=\"0\" type=\"rcs\" srcoff=\"0\" dstoff=\"0\" cnt=\"1\"/>\n";
    tn_msccl* m = NULL;
    TN_CHECK_EQ(ctx, tn_msccl_parse(rcs, strlen(rcs), "a.xml", &m, &err), TN_EPARSE);
    TN_CHECK_MSG(ctx, contains(err.message, "a.xml:4: step: type: 'rcs'"), "%s", err.message);
    const char* nooff = "<algo>\n<gpu id=\"0\" i_chunks=\"2\">\n<tb id=\"0\" send=\"-1\" "
                        "recv=\"-1\" chan=\"0\">\n<step s=\"0\" type=\"s\" cnt=\"1\"/>\n";
    TN_CHECK_EQ(ctx, tn_msccl_parse(nooff, strlen(nooff), "b.xml", &m, &err), TN_EPARSE);
    TN_CHECK_MSG(ctx, contains(err.message, "b.xml:4: step: srcoff: missing"), "%s", err.message);
    const char* twice = "<algo><gpu id=\"0\" i_chunks=\"1\"/>\n<gpu id=\"0\" i_chunks=\"1\"/>";
    TN_CHECK_EQ(ctx, tn_msccl_parse(twice, strlen(twice), "c.xml", &m, &err), TN_EPARSE);
    TN_CHECK_MSG(ctx, contains(err.message, "c.xml:2: gpu: id 0: given twice"), "%s", err.message);
}

#endif

void
tn_suite_custom(tn_test_suite* suite)
{
#ifdef TN_CHAKRA
    tn_test_add(suite, "ring", test_ring);
    tn_test_add(suite, "wrong", test_wrong);
    tn_test_add(suite, "refused", test_refused);
#else
    (void)suite;
#endif
}
