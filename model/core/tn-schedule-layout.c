/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The collectives' buffer layout (slices, chunks, all-to-all blocks) and names (contract in
 * tn-schedule.h), apart from the schedule IR that uses them.
 */
#include "tn-schedule.h"

#include <string.h>

tn_slice
tn_slice_of(uint64_t size, uint32_t parts, uint32_t index)
{
    tn_slice sl = {0, 0};
    if (parts == 0)
    {
        return sl;
    }
    uint64_t base = size / parts;
    uint64_t extra = size % parts;
    sl.length = base + (index < extra ? 1 : 0);
    sl.offset = (uint64_t)index * base + (index < extra ? index : extra);
    return sl;
}

tn_slice
tn_chunk_region(uint64_t bytes, uint32_t chunks, uint32_t chunk)
{
    return tn_slice_of(bytes, chunks ? chunks : 1, chunk);
}

tn_slice
tn_chunk_block(tn_collective coll,
               uint64_t bytes,
               uint32_t ranks,
               uint32_t chunks,
               uint32_t chunk,
               uint32_t block)
{
    tn_slice out;
    if (chunks == 0)
    {
        chunks = 1;
    }
    if (coll == TN_COLL_REDUCE_SCATTER || coll == TN_COLL_ALL_GATHER || coll == TN_COLL_ALL_TO_ALL)
    {
        tn_slice sl = tn_slice_of(bytes, ranks, block);
        out = tn_slice_of(sl.length, chunks, chunk);
        out.offset += sl.offset;
    }
    else
    {
        tn_slice region = tn_slice_of(bytes, chunks, chunk);
        out = tn_slice_of(region.length, ranks, block);
        out.offset += region.offset;
    }
    return out;
}

uint64_t
tn_alltoall_recv_offset(uint64_t bytes,
                        uint32_t ranks,
                        uint32_t chunks,
                        uint32_t chunk,
                        uint32_t src,
                        uint32_t dst)
{
    uint64_t len = tn_slice_of(bytes, ranks, dst).length;
    return bytes + (uint64_t)src * len + tn_slice_of(len, chunks ? chunks : 1, chunk).offset;
}

const char*
tn_op_name(tn_op op)
{
    static const char* const names[] = {"copy", "reduce", "local-copy", "local-reduce"};
    return (unsigned)op < 4 ? names[op] : "?";
}

const char*
tn_collective_name(tn_collective coll)
{
    switch (coll)
    {
    case TN_COLL_ALL_REDUCE:
        return "all-reduce";
    case TN_COLL_REDUCE_SCATTER:
        return "reduce-scatter";
    case TN_COLL_ALL_GATHER:
        return "all-gather";
    case TN_COLL_ALL_TO_ALL:
        return "all-to-all";
    case TN_COLL_BROADCAST:
        return "broadcast";
    case TN_COLL_REDUCE:
        return "reduce";
    default:
        return "?";
    }
}

tn_status
tn_collective_parse(const char* name, tn_collective* coll, tn_error* err)
{
    static const struct
    {
        const char* name;
        tn_collective coll;
    } names[] = {
        {"all-reduce", TN_COLL_ALL_REDUCE},
        {"allreduce", TN_COLL_ALL_REDUCE},
        {"ALLREDUCE", TN_COLL_ALL_REDUCE},
        {"reduce-scatter", TN_COLL_REDUCE_SCATTER},
        {"reducescatter", TN_COLL_REDUCE_SCATTER},
        {"REDUCESCATTER", TN_COLL_REDUCE_SCATTER},
        {"all-gather", TN_COLL_ALL_GATHER},
        {"allgather", TN_COLL_ALL_GATHER},
        {"ALLGATHER", TN_COLL_ALL_GATHER},
        {"all-to-all", TN_COLL_ALL_TO_ALL},
        {"alltoall", TN_COLL_ALL_TO_ALL},
        {"ALLTOALL", TN_COLL_ALL_TO_ALL},
        {"broadcast", TN_COLL_BROADCAST},
        {"BROADCAST", TN_COLL_BROADCAST},
        {"reduce", TN_COLL_REDUCE},
        {"REDUCE", TN_COLL_REDUCE},
    };

    if (!name || !coll)
    {
        return tn_error_set(err, TN_EINVAL, "collective: name is NULL");
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    {
        if (strcmp(names[i].name, name) == 0)
        {
            *coll = names[i].coll;
            return TN_OK;
        }
    }
    return tn_error_set(err,
                        TN_EINVAL,
                        "collective: unknown name '%s' (expected all-reduce, reduce-scatter, "
                        "all-gather, all-to-all, broadcast or reduce)",
                        name);
}
