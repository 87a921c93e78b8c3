/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-chakra: writing Chakra execution traces, and a text workload's iteration as one
 * (tn_chakra_write_*, tn_chakra_convert in tn-chakra.h).
 */
#include "tn-chakra.h"

#include <stdlib.h>
#include <string.h>

void
tn_chakra_node_spec_init(tn_chakra_node_spec* spec)
{
    memset(spec, 0, sizeof(*spec));
}

uint32_t
tn_chakra_comm_type_of(tn_collective c)
{
    switch (c)
    {
    case TN_COLL_ALL_REDUCE:
        return 0;
    case TN_COLL_REDUCE:
        return 1;
    case TN_COLL_ALL_GATHER:
        return 2;
    case TN_COLL_BROADCAST:
        return 5;
    case TN_COLL_ALL_TO_ALL:
        return 6;
    case TN_COLL_REDUCE_SCATTER:
        return 7;
    default:
        return 9; /* BARRIER: refused when read */
    }
}

#ifndef TN_CHAKRA

static tn_status
unsupported(tn_error* err)
{
    return tn_error_set(err,
                        TN_EUNSUPPORTED,
                        "Chakra traces need protobuf-c, and training-net was built without it: "
                        "apt-get install libprotobuf-c-dev, then configure again");
}

tn_status
tn_chakra_write_metadata(FILE* file, const char* version, tn_error* err)
{
    (void)file;
    (void)version;
    return unsupported(err);
}

tn_status
tn_chakra_write_node(FILE* file, const tn_chakra_node_spec* spec, tn_error* err)
{
    (void)file;
    (void)spec;
    return unsupported(err);
}

#else /* TN_CHAKRA */

#include "chakra/tn-chakra.pb-c.h"

/* Write a packed message of `size` bytes after its varint length. */
static tn_status
write_framed(FILE* file, const uint8_t* bytes, size_t size, tn_error* err)
{
    uint8_t prefix[10];
    size_t n = 0;
    uint64_t v = size;
    do
    {
        prefix[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    if (fwrite(prefix, 1, n, file) != n || fwrite(bytes, 1, size, file) != size)
    {
        return tn_error_set(err, TN_EIO, "writing a Chakra trace: write error");
    }
    return TN_OK;
}

tn_status
tn_chakra_write_metadata(FILE* file, const char* version, tn_error* err)
{
    if (!file)
    {
        return tn_error_set(err, TN_EINVAL, "tn_chakra_write_metadata: file is NULL");
    }
    ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    meta.version = (char*)(version ? version : "");
    const size_t size = chakra_proto_msg__global_metadata__get_packed_size(&meta);
    uint8_t* bytes = malloc(size ? size : 1);
    if (!bytes)
    {
        return tn_error_set(err, TN_ENOMEM, "writing a Chakra trace: out of memory");
    }
    chakra_proto_msg__global_metadata__pack(&meta, bytes);
    tn_status s = write_framed(file, bytes, size, err);
    free(bytes);
    return s;
}

static void
set_uint(ChakraProtoMsg__AttributeProto* a, const char* name, uint64_t v)
{
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char*)name;
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
    a->uint64_val = v;
}

tn_status
tn_chakra_write_node(FILE* file, const tn_chakra_node_spec* spec, tn_error* err)
{
    if (!file || !spec)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_chakra_write_node: %s is NULL",
                            file ? "spec" : "file");
    }
    ChakraProtoMsg__Node node = CHAKRA_PROTO_MSG__NODE__INIT;
    node.id = spec->id;
    node.name = (char*)(spec->name ? spec->name : "");
    node.type = (ChakraProtoMsg__NodeType)spec->type;
    node.n_data_deps = spec->data_dep_count;
    node.data_deps = (uint64_t*)spec->data_deps;
    node.n_ctrl_deps = spec->ctrl_dep_count;
    node.ctrl_deps = (uint64_t*)spec->ctrl_deps;
    node.duration_micros = spec->duration_micros;

    ChakraProtoMsg__AttributeProto attrs[10];
    ChakraProtoMsg__AttributeProto* list[10];
    ChakraProtoMsg__Uint32List group = CHAKRA_PROTO_MSG__UINT32_LIST__INIT;
    size_t n = 0;
    chakra_proto_msg__attribute_proto__init(&attrs[n]);
    attrs[n].name = "is_cpu_op";
    attrs[n].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
    attrs[n++].bool_val = 0;
    switch (spec->type)
    {
    case TN_CHAKRA_COMP_NODE:
    case TN_CHAKRA_MEM_LOAD_NODE:
    case TN_CHAKRA_MEM_STORE_NODE:
        if (spec->has_num_ops)
        {
            set_uint(&attrs[n++], "num_ops", spec->num_ops);
        }
        if (spec->tensor_size || spec->type != TN_CHAKRA_COMP_NODE)
        {
            set_uint(&attrs[n++], "tensor_size", spec->tensor_size);
        }
        break;
    case TN_CHAKRA_COMM_COLL_NODE:
        set_uint(&attrs[n++], "comm_type", spec->comm_type);
        set_uint(&attrs[n++], "comm_size", spec->comm_size);
        if (spec->group)
        {
            group.n_values = spec->group_count;
            group.values = (uint32_t*)spec->group;
            chakra_proto_msg__attribute_proto__init(&attrs[n]);
            attrs[n].name = "comm_group";
            attrs[n].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_LIST;
            attrs[n++].uint32_list = &group;
        }
        break;
    case TN_CHAKRA_COMM_SEND_NODE:
    case TN_CHAKRA_COMM_RECV_NODE:
        set_uint(&attrs[n++], "comm_src", spec->comm_src);
        set_uint(&attrs[n++], "comm_dst", spec->comm_dst);
        if (spec->comm_size || !spec->chunk_total)
        {
            set_uint(&attrs[n++], "comm_size", spec->comm_size);
        }
        set_uint(&attrs[n++], "comm_tag", spec->comm_tag);
        if (spec->chunk_total)
        {
            set_uint(&attrs[n++], "msg_chunk_idx", spec->chunk_index);
            set_uint(&attrs[n++], "msg_chunk_cnt", spec->chunk_count);
            set_uint(&attrs[n++], "total_chunk_cnt", spec->chunk_total);
        }
        if (spec->reduces)
        {
            chakra_proto_msg__attribute_proto__init(&attrs[n]);
            attrs[n].name = "is_rrc";
            attrs[n].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
            attrs[n++].bool_val = 1;
        }
        break;
    default:
        break;
    }
    for (size_t i = 0; i < n; i++)
    {
        list[i] = &attrs[i];
    }
    node.n_attr = n;
    node.attr = list;
    const size_t size = chakra_proto_msg__node__get_packed_size(&node);
    uint8_t* bytes = malloc(size ? size : 1);
    if (!bytes)
    {
        return tn_error_set(err, TN_ENOMEM, "writing a Chakra trace: out of memory");
    }
    chakra_proto_msg__node__pack(&node, bytes);
    tn_status s = write_framed(file, bytes, size, err);
    free(bytes);
    return s;
}

#endif /* TN_CHAKRA */

/* ---- a text workload as a trace ------------------------------------------------------ */

typedef struct converter
{
    FILE* file;
    const tn_workload* wl;
    uint32_t npus;
    uint32_t group;
    uint32_t rank;
    uint64_t next_id;
    uint64_t* after; /* what the next step waits for (ids) */
    uint32_t after_count;
    int after_is_ctrl; /* the next kernel follows in program order only (no data) */
    tn_error* err;
} converter;

static tn_status
compute_node(converter* c, const char* name, uint64_t cycles, uint64_t* id)
{
    tn_chakra_node_spec spec;
    tn_chakra_node_spec_init(&spec);
    spec.id = *id = c->next_id++;
    spec.name = name;
    spec.type = TN_CHAKRA_COMP_NODE;
    spec.has_num_ops = 1;
    spec.num_ops = cycles;
    spec.duration_micros = (cycles + 500) / 1000;
    if (c->after_is_ctrl)
    {
        spec.ctrl_deps = c->after;
        spec.ctrl_dep_count = c->after_count;
    }
    else
    {
        spec.data_deps = c->after;
        spec.data_dep_count = c->after_count;
    }
    return tn_chakra_write_node(c->file, &spec, c->err);
}

/* The collectives of a pass (after its kernel `kernel`), ids in out[0..*n). */
static tn_status
pass_collectives(converter* c,
                 uint32_t layer,
                 tn_pass pass,
                 uint64_t kernel,
                 uint64_t out[2],
                 uint32_t* n)
{
    *n = 0;
    const tn_workload_layer* l = tn_workload_layer_at(c->wl, layer);
    const tn_group g = tn_workload_layer_group(c->wl, layer, pass);
    tn_collective kinds[2];
    const uint32_t parts = tn_comm_type_collectives(l->pass[pass].comm, kinds);
    uint32_t first = 0;
    uint32_t stride = 1;
    uint32_t count = 1;
    tn_status s = tn_group_members(g, c->npus, c->group, c->rank, &first, &stride, &count, c->err);
    if (s || g == TN_GROUP_NONE || parts == 0 || count < 2)
    {
        return s; /* as TrainingJob: nothing to exchange */
    }
    uint32_t* ranks = NULL;
    if (count < c->npus)
    {
        ranks = malloc(count * sizeof(*ranks));
        if (!ranks)
        {
            return tn_error_set(c->err, TN_ENOMEM, "converting to Chakra: out of memory");
        }
        for (uint32_t j = 0; j < count; j++)
        {
            ranks[j] = first + j * stride;
        }
    }
    for (uint32_t k = 0; k < parts && !s; k++)
    {
        char name[256];
        snprintf(name,
                 sizeof(name),
                 "%s.%s.%s",
                 l->name,
                 tn_pass_name(pass),
                 tn_collective_name(kinds[k]));
        tn_chakra_node_spec spec;
        tn_chakra_node_spec_init(&spec);
        spec.id = out[k] = c->next_id++;
        spec.name = name;
        spec.type = TN_CHAKRA_COMM_COLL_NODE;
        spec.data_deps = &kernel;
        spec.data_dep_count = 1;
        spec.comm_type = tn_chakra_comm_type_of(kinds[k]);
        spec.comm_size = l->pass[pass].comm_bytes;
        spec.group = ranks;
        spec.group_count = ranks ? count : 0;
        s = tn_chakra_write_node(c->file, &spec, c->err);
        *n = k + 1;
    }
    free(ranks);
    return s;
}

/* A pass: its kernel after c->after, then its collectives; c->after becomes what the next
   step waits for (the collectives when blocking, else the kernel). */
static tn_status
pass_nodes(converter* c,
           uint32_t layer,
           tn_pass pass,
           int blocking,
           uint64_t colls[2],
           uint32_t* ncolls,
           uint64_t* kernel)
{
    const tn_workload_layer* l = tn_workload_layer_at(c->wl, layer);
    char name[256];
    snprintf(name, sizeof(name), "%s.%s", l->name, tn_pass_name(pass));
    tn_status s = compute_node(c, name, l->pass[pass].compute_cycles, kernel);
    s = s ? s : pass_collectives(c, layer, pass, *kernel, colls, ncolls);
    if (s)
    {
        return s;
    }
    c->after_is_ctrl = pass == TN_PASS_WG;
    if (blocking && *ncolls > 0)
    {
        memcpy(c->after, colls, *ncolls * sizeof(*colls));
        c->after_count = *ncolls;
    }
    else
    {
        c->after[0] = *kernel;
        c->after_count = 1;
    }
    return TN_OK;
}

tn_status
tn_chakra_convert(const tn_workload* wl,
                  uint32_t npus,
                  uint32_t group,
                  uint32_t rank,
                  FILE* file,
                  tn_error* err)
{
    if (!wl || !file)
    {
        return tn_error_set(err, TN_EINVAL, "tn_chakra_convert: %s is NULL", wl ? "file" : "wl");
    }
    uint32_t g = 0;
    tn_status s = tn_workload_validate(wl, npus, group, &g, err);
    if (s)
    {
        return s;
    }
    if (rank >= npus)
    {
        return tn_error_set(err, TN_EINVAL, "tn_chakra_convert: rank %u of %u NPUs", rank, npus);
    }
    if (tn_workload_parallelism(wl) == TN_PARALLELISM_HYBRID_TRANSFORMER_FWD_IN_BCKWD)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "%s: activation recomputation (%s) is not converted to Chakra",
                            tn_workload_name(wl),
                            tn_parallelism_name(tn_workload_parallelism(wl)));
    }
    uint64_t after[2];
    converter c = {file, wl, npus, g, rank, 0, after, 0, 0, err};
    s = tn_chakra_write_metadata(file, "0.0.4", err);
    const uint32_t layers = tn_workload_layer_count(wl);
    uint64_t colls[2];
    uint32_t n = 0;
    uint64_t kernel = 0;
    for (uint32_t l = 0; l < layers && !s; l++)
    {
        s = pass_nodes(&c, l, TN_PASS_FWD, 1, colls, &n, &kernel);
    }
    for (uint32_t l = layers; l-- > 0 && !s;)
    {
        s = pass_nodes(&c, l, TN_PASS_IG, 1, colls, &n, &kernel);
        s = s ? s : pass_nodes(&c, l, TN_PASS_WG, 0, colls, &n, &kernel);
        const uint64_t delay = tn_workload_layer_at(wl, l)->update_delay;
        if (!s && delay > 0)
        {
            /* the update waits for the weight gradients (the wg collectives, else the wg
               kernel); the backward pass does not wait for it */
            char name[256];
            snprintf(name, sizeof(name), "%s.update", tn_workload_layer_at(wl, l)->name);
            tn_chakra_node_spec spec;
            tn_chakra_node_spec_init(&spec);
            spec.id = c.next_id++;
            spec.name = name;
            spec.type = TN_CHAKRA_COMP_NODE;
            spec.has_num_ops = 1;
            spec.num_ops = delay;
            spec.duration_micros = (delay + 500) / 1000;
            spec.data_deps = n ? colls : &kernel;
            spec.data_dep_count = n ? n : 1;
            s = tn_chakra_write_node(file, &spec, err);
        }
    }
    if (!s && fflush(file) != 0)
    {
        s = tn_error_set(err, TN_EIO, "%s: writing the Chakra trace failed", tn_workload_name(wl));
    }
    return s;
}
