/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-workload-group: the communication groups a workload's parallelism implies
 * (contract and sources in tn-workload.h, "Groups").
 */
#include "tn-workload-impl.h"
#include "tn-workload.h"

#include <assert.h>

/* ---- groups ----------------------------------------------------------------------- */

tn_group
tn_parallelism_group(tn_parallelism p, tn_pass pass)
{
    /* rows: fwd, ig, wg (ASTRA-sim 1.0 Workload::decode_involved_dimensions, see the
       header for the mapping of its dimension masks to groups) */
    static const tn_group table[TN_PARALLELISM_COUNT][TN_PASS_COUNT] = {
        /* DATA */ {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_ALL},
        /* HYBRID_TRANSFORMER */ {TN_GROUP_INNER, TN_GROUP_INNER, TN_GROUP_OUTER},
        /* HYBRID_DLRM */ {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_ALL},
        /* MODEL */ {TN_GROUP_ALL, TN_GROUP_ALL, TN_GROUP_NONE},
        /* HYBRID_DATA_MODEL */ {TN_GROUP_INNER, TN_GROUP_INNER, TN_GROUP_OUTER},
        /* HYBRID_MODEL_DATA */ {TN_GROUP_OUTER, TN_GROUP_OUTER, TN_GROUP_INNER},
        /* HYBRID_CUSTOMIZED */ {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_NONE},
        /* MICRO */ {TN_GROUP_NONE, TN_GROUP_NONE, TN_GROUP_ALL},
        /* HYBRID_TRANSFORMER_FWD_IN_BCKWD */ {TN_GROUP_INNER, TN_GROUP_INNER, TN_GROUP_OUTER},
    };
    if ((unsigned)p >= TN_PARALLELISM_COUNT || (unsigned)pass >= TN_PASS_COUNT)
    {
        return TN_GROUP_NONE;
    }
    return table[p][pass];
}

tn_group
tn_workload_layer_group(const tn_workload* wl, uint32_t i, tn_pass pass)
{
    assert(wl && i < wl->count);
    const tn_workload_layer* l = &wl->layers[i];
    if ((unsigned)pass >= TN_PASS_COUNT || l->pass[pass].comm == TN_COMM_NONE)
    {
        return TN_GROUP_NONE;
    }
    if (wl->parallelism == TN_PARALLELISM_HYBRID_DLRM && i == 0)
    {
        return TN_GROUP_ALL;
    }
    return tn_parallelism_group(l->parallelism, pass);
}

tn_status
tn_workload_validate(const tn_workload* wl,
                     uint32_t npus,
                     uint32_t default_group,
                     uint32_t* group,
                     tn_error* err)
{
    if (!wl)
    {
        return tn_error_set(err, TN_EINVAL, "tn_workload_validate: wl is NULL");
    }
    if (npus == 0)
    {
        return tn_error_set(err, TN_EINVAL, "%s: needs at least 1 NPU, got 0", wl->name);
    }
    int needs = 0;
    for (uint32_t i = 0; i < wl->count && !needs; i++)
    {
        for (int p = 0; p < TN_PASS_COUNT; p++)
        {
            tn_group g = tn_workload_layer_group(wl, i, (tn_pass)p);
            needs |= g == TN_GROUP_INNER || g == TN_GROUP_OUTER;
        }
    }
    uint32_t g = 1;
    const char* from = "";
    if (wl->group)
    {
        g = wl->group;
        from = "model_parallel_NPU_group of line 1";
    }
    else if (needs && default_group)
    {
        g = default_group;
        from = "default model-parallel group";
    }
    else if (needs)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: %s needs a model-parallel group size: line 1 has no "
                            "model_parallel_NPU_group and no default was given",
                            wl->name,
                            tn_parallelism_name(wl->parallelism));
    }
    if (g > npus)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: the %s is %u NPUs but only %u NPUs are available",
                            wl->name,
                            from,
                            g,
                            npus);
    }
    if (npus % g != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s: %u NPUs cannot be split into model-parallel groups of %u (%s): "
                            "%u is not a multiple of %u",
                            wl->name,
                            npus,
                            g,
                            from,
                            npus,
                            g);
    }
    if (group)
    {
        *group = g;
    }
    return TN_OK;
}

tn_status
tn_group_members(tn_group g,
                 uint32_t npus,
                 uint32_t group_size,
                 uint32_t rank,
                 uint32_t* first,
                 uint32_t* stride,
                 uint32_t* count,
                 tn_error* err)
{
    if (!first || !stride || !count)
    {
        return tn_error_set(err, TN_EINVAL, "tn_group_members: an output is NULL");
    }
    if (rank >= npus || group_size == 0 || npus % group_size != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "tn_group_members: need rank %u < npus %u and group size %u >= 1 "
                            "dividing npus",
                            rank,
                            npus,
                            group_size);
    }
    switch (g)
    {
    case TN_GROUP_NONE:
        *first = rank, *stride = 1, *count = 1;
        return TN_OK;
    case TN_GROUP_ALL:
        *first = 0, *stride = 1, *count = npus;
        return TN_OK;
    case TN_GROUP_INNER:
        *first = rank - rank % group_size, *stride = 1, *count = group_size;
        return TN_OK;
    case TN_GROUP_OUTER:
        *first = rank % group_size, *stride = group_size, *count = npus / group_size;
        return TN_OK;
    default:
        return tn_error_set(err, TN_EINVAL, "tn_group_members: invalid group %d", (int)g);
    }
}
