/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-msccl: MSCCL-IR XML to custom-collective Chakra traces (tn-msccl.h). The XML is read as
 * the regular file msccl-tools prints: elements with attributes and no text, so a tag scanner
 * that keeps each element's line gives better messages than a general XML reader would.
 */
#include "tn-msccl.h"

#include "tn-array.h"
#include "tn-chakra.h"
#include "tn-text.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ATTRS 24

typedef struct mstep
{
    int64_t s, srcoff, dstoff, cnt, depid, deps;
    char type[4]; /* "s", "r", "rrc", "nop" */
    unsigned line;
    uint64_t id, comp; /* node ids (comp: the rrc's COMP_NODE) */
} mstep;

typedef struct mtb
{
    int64_t id, send, recv, chan;
    uint32_t first, count; /* its steps */
} mtb;

typedef struct mgpu
{
    int64_t id, chunks;
    uint32_t first, count; /* its thread blocks */
    unsigned line;
} mgpu;

struct tn_msccl
{
    char* path;
    char coll[32];
    mgpu* gpus;
    mtb* tbs;
    mstep* steps;
    size_t ngpus, ntbs, nsteps, gcap, tcap, scap;
};

typedef struct tag
{
    tn_span name;
    tn_span key[MAX_ATTRS], value[MAX_ATTRS];
    size_t count;
    unsigned line;
} tag;

static tn_status
bad(const tn_msccl* m, unsigned line, const char* what, tn_error* err)
{
    return tn_error_set(err, TN_EPARSE, "%s:%u: %s", m->path, line, what);
}

/* The integer attribute key of t; absent: fallback, or an error when required. */
static tn_status
get_int(const tn_msccl* m,
        const tag* t,
        const char* key,
        int required,
        int64_t fallback,
        int64_t* v,
        tn_error* err)
{
    for (size_t i = 0; i < t->count; i++)
    {
        if (tn_span_eq(t->key[i], key))
        {
            tn_span x = t->value[i];
            const int negative = x.n > 1 && x.s[0] == '-';
            uint64_t u = 0;
            if (!tn_span_uint(tn_span_make(x.s + negative, x.n - negative), INT32_MAX, &u))
            {
                return tn_error_set(err,
                                    TN_EPARSE,
                                    "%s:%u: %.*s: %s: '%.*s' is not an integer",
                                    m->path,
                                    t->line,
                                    (int)t->name.n,
                                    t->name.s,
                                    key,
                                    tn_span_shown_width(x, 40),
                                    x.s);
            }
            *v = negative ? -(int64_t)u : (int64_t)u;
            return TN_OK;
        }
    }
    if (required)
    {
        return tn_error_set(err,
                            TN_EPARSE,
                            "%s:%u: %.*s: %s: missing",
                            m->path,
                            t->line,
                            (int)t->name.n,
                            t->name.s,
                            key);
    }
    *v = fallback;
    return TN_OK;
}

static tn_span
get_text(const tag* t, const char* key)
{
    for (size_t i = 0; i < t->count; i++)
    {
        if (tn_span_eq(t->key[i], key))
        {
            return t->value[i];
        }
    }
    return tn_span_make("", 0);
}

/* Read the tag that starts after '<' at *at; *close: a closing tag. */
static tn_status
read_tag(const tn_msccl* m,
         tn_span text,
         size_t* at,
         unsigned* line,
         tag* t,
         int* close,
         tn_error* err)
{
    const char* s = text.s;
    size_t i = *at;
    memset(t, 0, sizeof(*t));
    t->line = *line;
    *close = i < text.n && s[i] == '/';
    i += (size_t)*close;
    const size_t start = i;
    while (i < text.n && (s[i] == '_' || s[i] == '-' || (s[i] >= 'a' && s[i] <= 'z') ||
                          (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
    {
        i++;
    }
    t->name = tn_span_make(s + start, i - start);
    if (!t->name.n)
    {
        return bad(m, *line, "expected an element name after '<'", err);
    }
    for (;;)
    {
        while (i < text.n && tn_text_is_space(s[i]))
        {
            *line += s[i++] == '\n';
        }
        if (i < text.n && (s[i] == '>' || (s[i] == '/' && i + 1 < text.n && s[i + 1] == '>')))
        {
            *at = i + (s[i] == '/' ? 2 : 1);
            return TN_OK;
        }
        const size_t k = i;
        while (i < text.n && s[i] != '=' && s[i] != '>' && !tn_text_is_space(s[i]))
        {
            i++;
        }
        if (i >= text.n || s[i] != '=' || i + 1 >= text.n || s[i + 1] != '"' || i == k)
        {
            return bad(m, *line, "expected name=\"value\" or the end of the element", err);
        }
        const size_t v = i + 2;
        const char* q = memchr(s + v, '"', text.n - v);
        if (!q || t->count == MAX_ATTRS)
        {
            return bad(m, *line, q ? "too many attributes" : "an unterminated value", err);
        }
        t->key[t->count] = tn_span_make(s + k, i - k);
        t->value[t->count++] = tn_span_make(s + v, (size_t)(q - (s + v)));
        i = (size_t)(q - s) + 1;
    }
}

static tn_status
add_gpu(tn_msccl* m, const tag* t, tn_error* err)
{
    mgpu g = {0, 0, (uint32_t)m->ntbs, 0, t->line};
    int64_t in = 0, out = 0;
    tn_status s = get_int(m, t, "id", 1, 0, &g.id, err);
    s = s ? s : get_int(m, t, "i_chunks", 0, 0, &in, err);
    s = s ? s : get_int(m, t, "o_chunks", 0, 0, &out, err);
    g.chunks = in ? in : out;
    if (!s && (g.id < 0 || g.chunks <= 0))
    {
        s = bad(m, t->line, g.id < 0 ? "gpu: id: negative" : "gpu: i_chunks and o_chunks: 0", err);
    }
    mgpu* grown = s ? NULL : tn_array_grow(m->gpus, &m->gcap, m->ngpus + 1, sizeof(mgpu), 8);
    if (!s && !grown)
    {
        s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", m->path);
    }
    if (!s)
    {
        m->gpus = grown;
        m->gpus[m->ngpus++] = g;
    }
    return s;
}

static tn_status
add_tb(tn_msccl* m, const tag* t, tn_error* err)
{
    if (!m->ngpus)
    {
        return bad(m, t->line, "tb: outside a gpu element", err);
    }
    mtb b = {0, 0, 0, 0, (uint32_t)m->nsteps, 0};
    tn_status s = get_int(m, t, "id", 1, 0, &b.id, err);
    s = s ? s : get_int(m, t, "send", 1, 0, &b.send, err);
    s = s ? s : get_int(m, t, "recv", 1, 0, &b.recv, err);
    s = s ? s : get_int(m, t, "chan", 0, 0, &b.chan, err);
    if (!s && b.chan < 0)
    {
        s = bad(m, t->line, "tb: chan: negative", err);
    }
    mtb* grown = s ? NULL : tn_array_grow(m->tbs, &m->tcap, m->ntbs + 1, sizeof(mtb), 16);
    if (!s && !grown)
    {
        s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", m->path);
    }
    if (!s)
    {
        m->tbs = grown;
        m->tbs[m->ntbs++] = b;
        m->gpus[m->ngpus - 1].count++;
    }
    return s;
}

static tn_status
add_step(tn_msccl* m, const tag* t, tn_error* err)
{
    if (!m->ntbs || m->gpus[m->ngpus - 1].count == 0)
    {
        return bad(m, t->line, "step: outside a tb element", err);
    }
    mtb* b = &m->tbs[m->ntbs - 1];
    mstep st;
    memset(&st, 0, sizeof(st));
    st.line = t->line;
    tn_status s = get_int(m, t, "s", 1, 0, &st.s, err);
    s = s ? s : get_int(m, t, "srcoff", 1, 0, &st.srcoff, err);
    s = s ? s : get_int(m, t, "dstoff", 1, 0, &st.dstoff, err);
    s = s ? s : get_int(m, t, "cnt", 1, 0, &st.cnt, err);
    s = s ? s : get_int(m, t, "depid", 0, -1, &st.depid, err);
    s = s ? s : get_int(m, t, "deps", 0, -1, &st.deps, err);
    const tn_span type = get_text(t, "type");
    char why[160] = "";
    if (s)
    {
        return s;
    }
    if (!tn_span_eq(type, "s") && !tn_span_eq(type, "r") && !tn_span_eq(type, "rrc") &&
        !tn_span_eq(type, "nop"))
    {
        snprintf(why,
                 sizeof(why),
                 "step: type: '%.*s' is not supported (s, r, rrc and nop are, as in chakra's "
                 "msccl converter)",
                 tn_span_shown_width(type, 20),
                 type.s);
    }
    else if (st.s != (int64_t)b->count)
    {
        snprintf(why,
                 sizeof(why),
                 "step: s: %lld, expected %u (steps in order from 0)",
                 (long long)st.s,
                 b->count);
    }
    else if (!tn_span_eq(type, "nop") && (st.srcoff != st.dstoff || st.srcoff < 0 || st.cnt <= 0))
    {
        snprintf(why,
                 sizeof(why),
                 st.cnt <= 0 ? "step: cnt: %lld is not a chunk count"
                             : "step: srcoff %lld and dstoff differ or are negative (one chunk "
                               "index per message, as in chakra's msccl converter)",
                 (long long)(st.cnt <= 0 ? st.cnt : st.srcoff));
    }
    else if ((tn_span_eq(type, "s") && b->send < 0) || (type.s[0] == 'r' && b->recv < 0))
    {
        snprintf(why,
                 sizeof(why),
                 "step: its tb has no %s peer",
                 type.s[0] == 's' ? "send" : "recv");
    }
    if (why[0])
    {
        return bad(m, t->line, why, err);
    }
    memcpy(st.type, type.s, type.n);
    mstep* grown = tn_array_grow(m->steps, &m->scap, m->nsteps + 1, sizeof(mstep), 64);
    if (!grown)
    {
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", m->path);
    }
    m->steps = grown;
    m->steps[m->nsteps++] = st;
    b->count++;
    return TN_OK;
}

static tn_status
read_all(tn_msccl* m, tn_span text, tn_error* err)
{
    unsigned line = 1;
    for (size_t i = 0; i < text.n;)
    {
        if (text.s[i] != '<')
        {
            line += text.s[i++] == '\n';
            continue;
        }
        i++;
        if (i < text.n && (text.s[i] == '?' || text.s[i] == '!'))
        {
            const char* end = text.s[i] == '!' && i + 2 < text.n && text.s[i + 1] == '-'
                                  ? strstr(text.s + i, "-->")
                                  : memchr(text.s + i, '>', text.n - i);
            if (!end || end >= text.s + text.n)
            {
                return bad(m, line, "an unterminated <? or <! part", err);
            }
            for (; text.s + i < end; i++)
            {
                line += text.s[i] == '\n';
            }
            continue;
        }
        tag t;
        int close = 0;
        tn_status s = read_tag(m, text, &i, &line, &t, &close, err);
        if (s || close)
        {
            if (s)
            {
                return s;
            }
            continue;
        }
        if (tn_span_eq(t.name, "algo"))
        {
            const tn_span coll = get_text(&t, "coll");
            snprintf(m->coll, sizeof(m->coll), "%.*s", (int)coll.n, coll.s);
        }
        else if (tn_span_eq(t.name, "gpu"))
        {
            s = add_gpu(m, &t, err);
        }
        else if (tn_span_eq(t.name, "tb"))
        {
            s = add_tb(m, &t, err);
        }
        else if (tn_span_eq(t.name, "step"))
        {
            s = add_step(m, &t, err);
        }
        if (s)
        {
            return s;
        }
    }
    return TN_OK;
}

/* Every GPU id 0 .. n-1 once; a thread block's peers among them. */
static tn_status
check_ids(tn_msccl* m, tn_error* err)
{
    if (!m->ngpus)
    {
        return tn_error_set(err, TN_EPARSE, "%s: no gpu element", m->path);
    }
    for (size_t g = 0; g < m->ngpus; g++)
    {
        const mgpu* a = &m->gpus[g];
        char why[128] = "";
        if (a->id >= (int64_t)m->ngpus)
        {
            snprintf(why,
                     sizeof(why),
                     "gpu: id %lld: the file has %zu gpus (ids 0 to %zu)",
                     (long long)a->id,
                     m->ngpus,
                     m->ngpus - 1);
        }
        for (size_t h = 0; h < g && !why[0]; h++)
        {
            if (m->gpus[h].id == a->id)
            {
                snprintf(why, sizeof(why), "gpu: id %lld: given twice", (long long)a->id);
            }
        }
        for (uint32_t k = 0; k < a->count && !why[0]; k++)
        {
            const mtb* b = &m->tbs[a->first + k];
            if (b->send >= (int64_t)m->ngpus || b->recv >= (int64_t)m->ngpus)
            {
                snprintf(why,
                         sizeof(why),
                         "tb %lld: a peer is not a gpu of the file",
                         (long long)b->id);
            }
        }
        if (why[0])
        {
            return bad(m, a->line, why, err);
        }
    }
    return TN_OK;
}

tn_status
tn_msccl_parse(const char* text, size_t len, const char* path, tn_msccl** out, tn_error* err)
{
    *out = NULL;
    tn_msccl* m = calloc(1, sizeof(*m));
    const char* name = path ? path : "<msccl>";
    if (!m || !(m->path = malloc(strlen(name) + 1)))
    {
        free(m);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", name);
    }
    memcpy(m->path, name, strlen(name) + 1);
    tn_status s = read_all(m, tn_span_make(text, len), err);
    s = s ? s : check_ids(m, err);
    if (s)
    {
        tn_msccl_destroy(m);
        return s;
    }
    *out = m;
    return TN_OK;
}

uint32_t
tn_msccl_gpus(const tn_msccl* m)
{
    return (uint32_t)m->ngpus;
}

const char*
tn_msccl_collective(const tn_msccl* m)
{
    return m->coll;
}

void
tn_msccl_destroy(tn_msccl* m)
{
    if (!m)
    {
        return;
    }
    free(m->path);
    free(m->gpus);
    free(m->tbs);
    free(m->steps);
    free(m);
}

/* The step `s` of thread block `id` of gpu g, or NULL. */
static mstep*
step_of(const tn_msccl* m, const mgpu* g, int64_t id, int64_t s)
{
    for (uint32_t k = 0; k < g->count; k++)
    {
        const mtb* b = &m->tbs[g->first + k];
        if (b->id == id && s >= 0 && s < (int64_t)b->count)
        {
            return &m->steps[b->first + (uint32_t)s];
        }
    }
    return NULL;
}

/* The node a later step waits for when it waits for step p: an rrc's reduction. */
static tn_status
push_parent(const tn_msccl* m,
            const mgpu* g,
            const mstep* from,
            int64_t tb,
            int64_t s,
            uint64_t* deps,
            uint32_t* n,
            tn_error* err)
{
    const mstep* p = step_of(m, g, tb, s);
    if (!p || strcmp(p->type, "nop") == 0)
    {
        return bad(m,
                   from->line,
                   p ? "step: depid/deps name a nop step" : "step: depid/deps name no step",
                   err);
    }
    deps[(*n)++] = p->comp ? p->comp : p->id;
    return TN_OK;
}

static tn_status
write_step(const tn_msccl* m, const mgpu* g, const mtb* b, uint32_t k, FILE* file, tn_error* err)
{
    const mstep* st = &m->steps[b->first + k];
    uint64_t deps[64];
    uint32_t n = 0;
    tn_status s =
        st->depid >= 0 ? push_parent(m, g, st, st->depid, st->deps, deps, &n, err) : TN_OK;
    /* the thread block's previous step; a nop passes its own dependency on */
    for (int64_t p = (int64_t)k - 1; p >= 0 && !s && n + 2 < 64; p--)
    {
        const mstep* prev = &m->steps[b->first + (uint32_t)p];
        if (strcmp(prev->type, "nop") != 0)
        {
            s = push_parent(m, g, st, b->id, p, deps, &n, err);
            break;
        }
        if (prev->depid >= 0)
        {
            s = push_parent(m, g, prev, prev->depid, prev->deps, deps, &n, err);
        }
    }
    if (s)
    {
        return s;
    }
    tn_chakra_node_spec spec;
    tn_chakra_node_spec_init(&spec);
    const int send = strcmp(st->type, "s") == 0;
    char name[64];
    snprintf(name,
             sizeof(name),
             "%s_tb%lld_step%lld",
             send ? "COMM_SEND_NODE" : "COMM_RECV_NODE",
             (long long)b->id,
             (long long)st->s);
    spec.id = st->id;
    spec.name = name;
    spec.type = send ? TN_CHAKRA_COMM_SEND_NODE : TN_CHAKRA_COMM_RECV_NODE;
    spec.data_deps = deps;
    spec.data_dep_count = n;
    spec.comm_src = send ? (uint32_t)g->id : (uint32_t)b->recv;
    spec.comm_dst = send ? (uint32_t)b->send : (uint32_t)g->id;
    spec.comm_tag = (uint64_t)b->chan;
    spec.chunk_index = (uint32_t)st->srcoff;
    spec.chunk_count = (uint32_t)st->cnt;
    spec.chunk_total = (uint32_t)g->chunks;
    spec.reduces = st->comp != 0;
    s = tn_chakra_write_node(file, &spec, err);
    if (!s && st->comp)
    {
        tn_chakra_node_spec comp;
        tn_chakra_node_spec_init(&comp);
        snprintf(name,
                 sizeof(name),
                 "COMP_NODE_tb%lld_step%lld",
                 (long long)b->id,
                 (long long)st->s);
        comp.id = st->comp;
        comp.name = name;
        comp.type = TN_CHAKRA_COMP_NODE;
        comp.data_deps = &st->id;
        comp.data_dep_count = 1;
        s = tn_chakra_write_node(file, &comp, err);
    }
    return s;
}

tn_status
tn_msccl_write(const tn_msccl* m, uint32_t gpu, FILE* file, tn_error* err)
{
    mgpu* g = NULL;
    for (size_t i = 0; i < m->ngpus; i++)
    {
        g = m->gpus[i].id == (int64_t)gpu ? &m->gpus[i] : g;
    }
    if (!g)
    {
        return tn_error_set(err, TN_EINVAL, "%s: no gpu %u", m->path, gpu);
    }
    uint64_t next = 1;
    for (uint32_t k = 0; k < g->count; k++)
    {
        const mtb* b = &m->tbs[g->first + k];
        for (uint32_t j = 0; j < b->count; j++)
        {
            mstep* st = &m->steps[b->first + j];
            const int nop = strcmp(st->type, "nop") == 0;
            st->id = nop ? 0 : next++;
            st->comp = strcmp(st->type, "rrc") == 0 ? next++ : 0;
        }
    }
    tn_status s = tn_chakra_write_metadata(file, "0.0.4", err);
    for (uint32_t k = 0; k < g->count && !s; k++)
    {
        const mtb* b = &m->tbs[g->first + k];
        for (uint32_t j = 0; j < b->count && !s; j++)
        {
            if (strcmp(m->steps[b->first + j].type, "nop") != 0)
            {
                s = write_step(m, g, b, j, file, err);
            }
        }
    }
    return s;
}
