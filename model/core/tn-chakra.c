/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra: reading Chakra execution traces and checking the traces of a job together
 * (tn-chakra.h). Messages are decoded by protobuf-c from model/core/chakra/tn-chakra.proto.
 */
#include "tn-array.h"
#include "tn-chakra-impl.h"
#include "tn-text.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int
tn_chakra_supported(void)
{
#ifdef TN_CHAKRA
    return 1;
#else
    return 0;
#endif
}

#ifndef TN_CHAKRA
tn_status
tn_chakra_parse_groups(const uint8_t* data,
                       size_t len,
                       const char* name,
                       const tn_chakra_groups* groups,
                       tn_chakra_trace** out,
                       tn_error* err)
{
    (void)groups;
    return tn_chakra_parse(data, len, name, out, err);
}

tn_status
tn_chakra_parse(const uint8_t* data,
                size_t len,
                const char* name,
                tn_chakra_trace** out,
                tn_error* err)
{
    (void)data;
    (void)len;
    if (out)
    {
        *out = NULL;
    }
    return tn_error_set(err,
                        TN_EUNSUPPORTED,
                        "%s: Chakra traces need protobuf-c, and training-net was built without "
                        "it: apt-get install libprotobuf-c-dev, then configure again",
                        name ? name : "<trace>");
}

#else /* TN_CHAKRA */

#include "chakra/tn-chakra.pb-c.h"

#define VALUE(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

/* ---- attributes -------------------------------------------------------------------- */

static const ChakraProtoMsg__AttributeProto*
find_attr(const ChakraProtoMsg__Node* n, const char* name)
{
    for (size_t i = 0; i < n->n_attr; i++)
    {
        if (n->attr[i]->name && strcmp(n->attr[i]->name, name) == 0)
        {
            return n->attr[i];
        }
    }
    return NULL;
}

/* An attribute's non-negative integer value (any integer type); -1 when it has none. */
static int
attr_uint(const ChakraProtoMsg__AttributeProto* a, uint64_t* v)
{
    int64_t s = 0;
    switch (a->value_case)
    {
    case VALUE(UINT32_VAL):
        *v = a->uint32_val;
        return 0;
    case VALUE(UINT64_VAL):
        *v = a->uint64_val;
        return 0;
    case VALUE(INT32_VAL):
        s = a->int32_val;
        break;
    case VALUE(INT64_VAL):
        s = a->int64_val;
        break;
    case VALUE(SINT32_VAL):
        s = a->sint32_val;
        break;
    case VALUE(SINT64_VAL):
        s = a->sint64_val;
        break;
    default:
        return -1;
    }
    if (s < 0)
    {
        return -2;
    }
    *v = (uint64_t)s;
    return 0;
}

typedef struct reader
{
    const char* file;
    tn_error* err;
    tn_arena* store;                /* the trace's: the nodes' names, groups and dependency lists */
    const tn_chakra_groups* groups; /* pg_name's (NULL: none) */
} reader;

/* The integer attribute `key` of node n in *v (at most max); absent: *v = fallback, or an
   error when required. */
static tn_status
get_uint(const reader* r,
         const ChakraProtoMsg__Node* n,
         const char* key,
         int required,
         uint64_t fallback,
         uint64_t max,
         uint64_t* v)
{
    const ChakraProtoMsg__AttributeProto* a = find_attr(n, key);
    if (!a)
    {
        if (required)
        {
            return tn_error_set(r->err,
                                TN_EPARSE,
                                "%s: node %llu: attribute %s is missing",
                                r->file,
                                (unsigned long long)n->id,
                                key);
        }
        *v = fallback;
        return TN_OK;
    }
    int bad = attr_uint(a, v);
    if (bad || *v > max)
    {
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: node %llu: attribute %s is %s",
                            r->file,
                            (unsigned long long)n->id,
                            key,
                            bad == -1 ? "not an integer"
                            : bad == -2 ? "negative"
                                        : "too large");
    }
    return TN_OK;
}

static int
cmp_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a;
    uint32_t y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* ranks (count of them, in the trace's arena) sorted as the node's group; no duplicates. */
static tn_status
set_group(const reader* r,
          const ChakraProtoMsg__Node* n,
          uint32_t* ranks,
          size_t count,
          tn_chakra_node* out)
{
    qsort(ranks, count, sizeof(*ranks), cmp_u32);
    for (size_t i = 1; i < count; i++)
    {
        if (ranks[i] == ranks[i - 1])
        {
            const uint32_t twice = ranks[i];
            return tn_error_set(r->err,
                                TN_EPARSE,
                                "%s: node %llu: comm_group names rank %u twice",
                                r->file,
                                (unsigned long long)n->id,
                                twice);
        }
    }
    out->group = ranks;
    out->group_count = (uint32_t)count;
    return TN_OK;
}

/* pg_name through the comm-group table (none: refused): "" and "0" are all ranks, as in
   ASTRA-sim. */
static tn_status
get_pg_group(const reader* r,
             const ChakraProtoMsg__Node* n,
             const ChakraProtoMsg__AttributeProto* pg,
             tn_chakra_node* out)
{
    const int is_string = pg->value_case == VALUE(STRING_VAL);
    const char* name = is_string ? pg->string_val : "";
    if (r->groups && is_string && (!name[0] || strcmp(name, "0") == 0))
    {
        return TN_OK;
    }
    const int64_t g = name[0] ? tn_chakra_groups_find(r->groups, name) : -1;
    if (g < 0 || r->groups->sizes[g] == 0)
    {
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: node %llu: pg_name '%.60s' %s",
                            r->file,
                            (unsigned long long)n->id,
                            name,
                            r->groups ? "is not a group of the comm-group file"
                                      : "names a process group: give its ranks in a "
                                        "comm_group attribute, or a comm-group file");
    }
    const uint32_t count = r->groups->sizes[g];
    uint32_t* ranks = tn_arena_alloc(r->store, count * sizeof(*ranks));
    if (!ranks)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->file);
    }
    memcpy(ranks, r->groups->ranks[g], count * sizeof(*ranks));
    return set_group(r, n, ranks, count, out);
}

/* comm_group: a list of ranks (any integer list type), sorted; no duplicates. */
static tn_status
get_group(const reader* r, const ChakraProtoMsg__Node* n, tn_chakra_node* out)
{
    const ChakraProtoMsg__AttributeProto* a = find_attr(n, "comm_group");
    if (!a)
    {
        const ChakraProtoMsg__AttributeProto* pg = find_attr(n, "pg_name");
        return pg ? get_pg_group(r, n, pg, out) : TN_OK;
    }
    size_t count = 0;
    switch (a->value_case)
    {
    case VALUE(INT32_LIST):
        count = a->int32_list->n_values;
        break;
    case VALUE(INT64_LIST):
        count = a->int64_list->n_values;
        break;
    case VALUE(UINT32_LIST):
        count = a->uint32_list->n_values;
        break;
    case VALUE(UINT64_LIST):
        count = a->uint64_list->n_values;
        break;
    default:
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: node %llu: comm_group is not a list of integers",
                            r->file,
                            (unsigned long long)n->id);
    }
    if (count == 0 || count > UINT32_MAX)
    {
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: node %llu: comm_group is empty",
                            r->file,
                            (unsigned long long)n->id);
    }
    uint32_t* ranks = tn_arena_alloc(r->store, count * sizeof(*ranks));
    if (!ranks)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->file);
    }
    for (size_t i = 0; i < count; i++)
    {
        int64_t v = a->value_case == VALUE(INT32_LIST) ? a->int32_list->values[i]
                    : a->value_case == VALUE(INT64_LIST) ? a->int64_list->values[i]
                    : a->value_case == VALUE(UINT32_LIST) ? (int64_t)a->uint32_list->values[i]
                    : a->uint64_list->values[i] > UINT32_MAX ? -1
                                                             : (int64_t)a->uint64_list->values[i];
        if (v < 0 || v > UINT32_MAX)
        {
            return tn_error_set(r->err,
                                TN_EPARSE,
                                "%s: node %llu: comm_group: %lld is no rank",
                                r->file,
                                (unsigned long long)n->id,
                                (long long)v);
        }
        ranks[i] = (uint32_t)v;
    }
    return set_group(r, n, ranks, count, out);
}

static const char* const type_names[] = {"INVALID_NODE",
                                         "METADATA_NODE",
                                         "MEM_LOAD_NODE",
                                         "MEM_STORE_NODE",
                                         "COMP_NODE",
                                         "COMM_SEND_NODE",
                                         "COMM_RECV_NODE",
                                         "COMM_COLL_NODE",
                                         "STORAGE_NODE",
                                         "BATCH_NODE",
                                         "CHECKPOINT_NODE"};

/* CollectiveCommType -> collective; -1 if not supported. */
static int
collective_of(uint64_t comm_type)
{
    switch (comm_type)
    {
    case 0:
        return TN_COLL_ALL_REDUCE;
    case 1:
        return TN_COLL_REDUCE;
    case 2:
        return TN_COLL_ALL_GATHER;
    case 5:
        return TN_COLL_BROADCAST;
    case 6:
        return TN_COLL_ALL_TO_ALL;
    case 7:
        return TN_COLL_REDUCE_SCATTER;
    default:
        return -1;
    }
}

/* A custom collective's message (tn-chakra.h): its chunks, all three attributes or none, and
   whether it reduces. */
static tn_status
get_chunks(const reader* r, const ChakraProtoMsg__Node* n, tn_chakra_node* out)
{
    static const char* const keys[3] = {"msg_chunk_idx", "msg_chunk_cnt", "total_chunk_cnt"};
    uint64_t v[3] = {0, 0, 0};
    const int given = find_attr(n, keys[0]) || find_attr(n, keys[1]) || find_attr(n, keys[2]);
    tn_status s = TN_OK;
    for (int k = 0; k < 3 && given && !s; k++)
    {
        s = get_uint(r, n, keys[k], 1, 0, UINT32_MAX, &v[k]);
    }
    if (!s && given && (v[1] == 0 || v[2] == 0))
    {
        s = tn_error_set(r->err,
                         TN_EPARSE,
                         "%s: node %llu: attribute %s is 0",
                         r->file,
                         (unsigned long long)n->id,
                         v[1] == 0 ? keys[1] : keys[2]);
    }
    const ChakraProtoMsg__AttributeProto* rrc = find_attr(n, "is_rrc");
    out->chunk_index = (uint32_t)v[0];
    out->chunk_count = (uint32_t)v[1];
    out->chunk_total = (uint32_t)v[2];
    out->reduces = rrc && rrc->value_case == VALUE(BOOL_VAL) && rrc->bool_val;
    return s;
}

/* Fill out (its name copied) from a decoded node; deps are resolved later. */
static tn_status
read_node(const reader* r, const ChakraProtoMsg__Node* n, tn_chakra_node* out)
{
    memset(out, 0, sizeof(*out));
    out->id = n->id;
    out->type = (uint32_t)n->type;
    out->duration_micros = n->duration_micros;
    const unsigned long long id = (unsigned long long)n->id;
    tn_status s = TN_OK;
    uint64_t v = 0;
    switch ((int)n->type)
    {
    case TN_CHAKRA_COMP_NODE:
        out->kind = TN_CHAKRA_COMPUTE;
        out->has_num_ops = find_attr(n, "num_ops") != NULL;
        s = get_uint(r, n, "num_ops", 0, 0, UINT64_MAX, &out->num_ops);
        s = s ? s : get_uint(r, n, "tensor_size", 0, 0, TN_BYTES_MAX, &out->tensor_size);
        if (!s && !out->has_num_ops && n->duration_micros > TN_CHAKRA_MAX_DURATION_MICROS)
        {
            /* its time: capped as a text workload's compute (TN_WORKLOAD_MAX_CYCLES at
               1 GHz), so that it cannot wrap a 64-bit time in ns or run for hours */
            s = tn_error_set(r->err,
                             TN_EPARSE,
                             "%s: node %llu: duration_micros %llu is more than a kernel takes "
                             "(%llu us, one second, as a text workload's compute)",
                             r->file,
                             id,
                             (unsigned long long)n->duration_micros,
                             (unsigned long long)TN_CHAKRA_MAX_DURATION_MICROS);
        }
        break;
    case TN_CHAKRA_MEM_LOAD_NODE:
    case TN_CHAKRA_MEM_STORE_NODE:
        out->kind = TN_CHAKRA_MEMORY;
        s = get_uint(r, n, "tensor_size", 1, 0, TN_BYTES_MAX, &out->tensor_size);
        break;
    case TN_CHAKRA_COMM_COLL_NODE:
        out->kind = TN_CHAKRA_COLLECTIVE;
        s = get_uint(r, n, "comm_type", 1, 0, UINT64_MAX, &v);
        if (!s && collective_of(v) < 0)
        {
            s = tn_error_set(r->err,
                             TN_EPARSE,
                             "%s: node %llu: comm_type %llu is not supported (ALL_REDUCE, REDUCE, "
                             "ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER are)",
                             r->file,
                             id,
                             (unsigned long long)v);
        }
        out->collective = s ? TN_COLL_ALL_REDUCE : (tn_collective)collective_of(v);
        s = s ? s : get_uint(r, n, "comm_size", 1, 0, TN_BYTES_MAX, &out->comm_bytes);
        s = s ? s : get_group(r, n, out);
        break;
    case TN_CHAKRA_COMM_SEND_NODE:
    case TN_CHAKRA_COMM_RECV_NODE: {
        const int send = (int)n->type == TN_CHAKRA_COMM_SEND_NODE;
        out->kind = send ? TN_CHAKRA_SEND : TN_CHAKRA_RECV;
        s = get_uint(r, n, send ? "comm_dst" : "comm_src", 1, 0, UINT32_MAX, &v);
        out->peer = (uint32_t)v;
        s = s ? s : get_chunks(r, n, out);
        s = s ? s
              : get_uint(r, n, "comm_size", !out->chunk_total, 0, TN_BYTES_MAX, &out->comm_bytes);
        s = s ? s : get_uint(r, n, "comm_tag", 0, 0, UINT64_MAX, &out->tag);
        break;
    }
    default:
        if ((uint32_t)n->type < sizeof(type_names) / sizeof(type_names[0]))
        {
            return tn_error_set(r->err,
                                TN_EPARSE,
                                "%s: node %llu: node type %s is not supported",
                                r->file,
                                id,
                                type_names[n->type]);
        }
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: node %llu: unknown node type %d",
                            r->file,
                            id,
                            (int)n->type);
    }
    if (s)
    {
        out->group = NULL;
        return s;
    }
    size_t deps = n->n_data_deps + n->n_ctrl_deps;
    if (deps > UINT32_MAX)
    {
        return tn_error_set(r->err, TN_EPARSE, "%s: node %llu: too many dependencies", r->file, id);
    }
    const char* name = n->name ? n->name : "";
    out->name = tn_arena_copy(r->store, name, strlen(name) + 1);
    if (!out->name)
    {
        out->group = NULL;
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->file);
    }
    return TN_OK;
}

/* ---- dependencies ------------------------------------------------------------------ */

typedef struct id_index
{
    uint64_t id;
    uint32_t index;
} id_index;

static int
cmp_id(const void* a, const void* b)
{
    uint64_t x = ((const id_index*)a)->id;
    uint64_t y = ((const id_index*)b)->id;
    return x < y ? -1 : x > y;
}

static int64_t
index_of(const id_index* map, size_t n, uint64_t id)
{
    id_index key = {id, 0};
    const id_index* hit = bsearch(&key, map, n, sizeof(*map), cmp_id);
    return hit ? (int64_t)hit->index : -1;
}

/* Resolve a node's dependency ids (data then ctrl) into indexes of the map's nodes. */
static tn_status
resolve(const reader* r,
        const id_index* map,
        size_t n_nodes,
        const ChakraProtoMsg__Node* n,
        tn_chakra_node* node)
{
    const size_t count = n->n_data_deps + n->n_ctrl_deps;
    if (count == 0)
    {
        return TN_OK;
    }
    uint32_t* deps = tn_arena_alloc(r->store, count * sizeof(*deps));
    if (!deps)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->file);
    }
    for (size_t k = 0; k < count; k++)
    {
        const int data = k < n->n_data_deps;
        const uint64_t id = data ? n->data_deps[k] : n->ctrl_deps[k - n->n_data_deps];
        const int64_t index = index_of(map, n_nodes, id);
        if (index < 0)
        {
            return tn_error_set(r->err,
                                TN_EPARSE,
                                "%s: node %llu: %s dependency %llu names no node",
                                r->file,
                                (unsigned long long)n->id,
                                data ? "data" : "control",
                                (unsigned long long)id);
        }
        deps[k] = (uint32_t)index;
    }
    node->deps = deps;
    node->dep_count = (uint32_t)count;
    node->data_dep_count = (uint32_t)n->n_data_deps;
    return TN_OK;
}

/* Kahn's order over the dependencies; on a cycle, names a node on it. */
static tn_status
check_acyclic(const reader* r, const tn_chakra_trace* t)
{
    const size_t n = t->count;
    uint32_t* waiting = calloc(n ? n : 1, sizeof(*waiting));
    uint32_t* users_start = calloc(n + 1, sizeof(*users_start));
    size_t edges = 0;
    for (size_t i = 0; i < n; i++)
    {
        edges += t->nodes[i].dep_count;
    }
    uint32_t* users = malloc((edges ? edges : 1) * sizeof(*users));
    uint32_t* queue = malloc((n ? n : 1) * sizeof(*queue));
    tn_status s = TN_OK;
    if (!waiting || !users_start || !users || !queue)
    {
        s = tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->file);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
    {
        waiting[i] = t->nodes[i].dep_count;
        for (uint32_t k = 0; k < t->nodes[i].dep_count; k++)
        {
            users_start[t->nodes[i].deps[k] + 1]++;
        }
    }
    for (size_t i = 0; i < n; i++)
    {
        users_start[i + 1] += users_start[i];
    }
    {
        uint32_t* fill = queue; /* reused as the fill cursor, then as the queue */
        memcpy(fill, users_start, n * sizeof(*fill));
        for (size_t i = 0; i < n; i++)
        {
            for (uint32_t k = 0; k < t->nodes[i].dep_count; k++)
            {
                users[fill[t->nodes[i].deps[k]]++] = (uint32_t)i;
            }
        }
    }
    size_t head = 0;
    size_t tail = 0;
    for (size_t i = 0; i < n; i++)
    {
        if (waiting[i] == 0)
        {
            queue[tail++] = (uint32_t)i;
        }
    }
    while (head < tail)
    {
        const uint32_t i = queue[head++];
        for (uint32_t u = users_start[i]; u < users_start[i + 1]; u++)
        {
            if (--waiting[users[u]] == 0)
            {
                queue[tail++] = users[u];
            }
        }
    }
    if (tail < n)
    {
        /* walk back from a node left waiting along its waiting dependencies: the walk never
           ends at a ready node, so after n steps it is on a cycle */
        uint32_t at = 0;
        while (waiting[at] == 0)
        {
            at++;
        }
        for (size_t step = 0; step < n; step++)
        {
            const tn_chakra_node* node = &t->nodes[at];
            for (uint32_t k = 0; k < node->dep_count; k++)
            {
                if (waiting[node->deps[k]] > 0)
                {
                    at = node->deps[k];
                    break;
                }
            }
        }
        s = tn_error_set(r->err,
                         TN_EPARSE,
                         "%s: node %llu: dependency cycle (the node depends on itself through "
                         "its dependencies)",
                         r->file,
                         (unsigned long long)t->nodes[at].id);
    }
done:
    free(waiting);
    free(users_start);
    free(users);
    free(queue);
    return s;
}

/* ---- the stream ---------------------------------------------------------------------- */

/* The varint at data[*pos..len) in *v; 0 when the file ends inside it or it is too long. */
static int
read_varint(const uint8_t* data, size_t len, size_t* pos, uint64_t* v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64 && *pos < len; shift += 7)
    {
        const uint8_t b = data[(*pos)++];
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
        {
            *v = x;
            return 1;
        }
    }
    return 0;
}

/* The next message's bytes in [*at, *at + *size); errors say where. */
static tn_status
next_message(const reader* r,
             const uint8_t* data,
             size_t len,
             size_t* pos,
             const char* what,
             size_t* at,
             size_t* size)
{
    const size_t start = *pos;
    uint64_t v = 0;
    if (!read_varint(data, len, pos, &v))
    {
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: %s: byte %zu: truncated length prefix",
                            r->file,
                            what,
                            start);
    }
    if (v > len - *pos)
    {
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s: %s: byte %zu: truncated message (%llu bytes declared, %zu left)",
                            r->file,
                            what,
                            start,
                            (unsigned long long)v,
                            len - *pos);
    }
    *at = *pos;
    *size = (size_t)v;
    *pos += (size_t)v;
    return TN_OK;
}

tn_status
tn_chakra_parse(const uint8_t* data,
                size_t len,
                const char* name,
                tn_chakra_trace** out,
                tn_error* err)
{
    return tn_chakra_parse_groups(data, len, name, NULL, out, err);
}

tn_status
tn_chakra_parse_groups(const uint8_t* data,
                       size_t len,
                       const char* name,
                       const tn_chakra_groups* groups,
                       tn_chakra_trace** out,
                       tn_error* err)
{
    if (!out || (!data && len))
    {
        return tn_error_set(err, TN_EINVAL, "tn_chakra_parse: %s is NULL", out ? "data" : "out");
    }
    *out = NULL;
    reader r = {name ? name : "<trace>", err, NULL, groups};
    tn_chakra_trace* t = calloc(1, sizeof(*t));
    if (!t || !(t->name = tn_chakra_copy_text(r.file)))
    {
        free(t);
        return tn_error_set(err, TN_ENOMEM, "%s: out of memory", r.file);
    }
    r.store = &t->store;
    ChakraProtoMsg__Node** msgs = NULL;
    size_t msg_cap = 0;
    id_index* map = NULL;
    size_t pos = 0;
    size_t at = 0;
    size_t size = 0;
    tn_status s = TN_OK;
    if (len == 0)
    {
        s = tn_error_set(err, TN_EPARSE, "%s: empty file (no GlobalMetadata message)", r.file);
        goto fail;
    }
    if ((s = next_message(&r, data, len, &pos, "GlobalMetadata", &at, &size)))
    {
        goto fail;
    }
    ChakraProtoMsg__GlobalMetadata* meta =
        chakra_proto_msg__global_metadata__unpack(NULL, size, data + at);
    if (!meta)
    {
        s = tn_error_set(err,
                         TN_EPARSE,
                         "%s: byte %zu: the first message is not a GlobalMetadata message "
                         "(wrong wire type or truncated field)",
                         r.file,
                         at);
        goto fail;
    }
    t->version = tn_chakra_copy_text(meta->version ? meta->version : "");
    chakra_proto_msg__global_metadata__free_unpacked(meta, NULL);
    if (!t->version)
    {
        s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", r.file);
        goto fail;
    }
    while (pos < len)
    {
        char what[64];
        if (t->count == 0)
        {
            snprintf(what, sizeof(what), "the first node");
        }
        else
        {
            snprintf(what,
                     sizeof(what),
                     "the node after node %llu",
                     (unsigned long long)t->nodes[t->count - 1].id);
        }
        if ((s = next_message(&r, data, len, &pos, what, &at, &size)))
        {
            goto fail;
        }
        ChakraProtoMsg__Node** m = tn_array_grow(msgs, &msg_cap, t->count + 1, sizeof(*msgs), 64);
        tn_chakra_node* nodes =
            m ? tn_array_grow(t->nodes, &t->cap, t->count + 1, sizeof(*nodes), 64) : NULL;
        if (!m || !nodes || t->count >= UINT32_MAX)
        {
            msgs = m ? m : msgs;
            s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", r.file);
            goto fail;
        }
        msgs = m;
        t->nodes = nodes;
        ChakraProtoMsg__Node* n = chakra_proto_msg__node__unpack(NULL, size, data + at);
        if (!n)
        {
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s: %s: byte %zu: not a Node message (wrong wire type or "
                             "truncated field)",
                             r.file,
                             what,
                             at);
            goto fail;
        }
        msgs[t->count] = n;
        if ((s = read_node(&r, n, &t->nodes[t->count])))
        {
            chakra_proto_msg__node__free_unpacked(n, NULL);
            goto fail;
        }
        t->count++;
    }
    map = malloc((t->count ? t->count : 1) * sizeof(*map));
    if (!map)
    {
        s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", r.file);
        goto fail;
    }
    for (size_t i = 0; i < t->count; i++)
    {
        map[i].id = t->nodes[i].id;
        map[i].index = (uint32_t)i;
    }
    qsort(map, t->count, sizeof(*map), cmp_id);
    for (size_t i = 1; i < t->count; i++)
    {
        if (map[i].id == map[i - 1].id)
        {
            s = tn_error_set(err,
                             TN_EPARSE,
                             "%s: node %llu: two nodes have this id",
                             r.file,
                             (unsigned long long)map[i].id);
            goto fail;
        }
    }
    for (size_t i = 0; i < t->count; i++)
    {
        if ((s = resolve(&r, map, t->count, msgs[i], &t->nodes[i])))
        {
            goto fail;
        }
    }
    if ((s = check_acyclic(&r, t)))
    {
        goto fail;
    }
    for (size_t i = 0; i < t->count; i++)
    {
        chakra_proto_msg__node__free_unpacked(msgs[i], NULL);
    }
    free(msgs);
    free(map);
    *out = t;
    return TN_OK;
fail:
    for (size_t i = 0; i < t->count; i++)
    {
        chakra_proto_msg__node__free_unpacked(msgs[i], NULL);
    }
    free(msgs);
    free(map);
    tn_chakra_destroy(t);
    return s;
}

#endif /* TN_CHAKRA */
