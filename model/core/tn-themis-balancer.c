/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-themis-balancer: Themis's dimension load balancer (contract in tn-themis.h): each chunk's
 * dimension order from the loads the chunks before it left. The plan and the schedule that use
 * it are in tn-themis.c.
 */
#include "tn-themis.h"

#include <stdlib.h>
#include <string.h>

struct tn_themis_balancer
{
    uint32_t dims;
    uint32_t* size;
    double* bw; /* bytes per ns */
    double* load;
    uint32_t* sorted;
    uint64_t npus;
};

tn_status
tn_themis_balancer_create(uint32_t ndims,
                          const uint32_t* sizes,
                          const uint64_t* bandwidth_bps,
                          tn_themis_balancer** out,
                          tn_error* err)
{
    *out = NULL;
    if (ndims == 0 || sizes == NULL || bandwidth_bps == NULL)
    {
        return tn_error_set(err, TN_EINVAL, "themis: ndims must be >= 1 with sizes and bandwidths");
    }
    for (uint32_t d = 0; d < ndims; d++)
    {
        if (sizes[d] == 0 || bandwidth_bps[d] == 0)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "themis: dim %u: size %u and bandwidth %llu bit/s must be > 0",
                                d,
                                sizes[d],
                                (unsigned long long)bandwidth_bps[d]);
        }
    }
    tn_themis_balancer* b = calloc(1, sizeof(*b));
    if (b)
    {
        b->size = calloc(ndims, sizeof(*b->size));
        b->bw = calloc(ndims, sizeof(*b->bw));
        b->load = calloc(ndims, sizeof(*b->load));
        b->sorted = calloc(ndims, sizeof(*b->sorted));
    }
    if (!b || !b->size || !b->bw || !b->load || !b->sorted)
    {
        tn_themis_balancer_destroy(b);
        return tn_error_set(err, TN_ENOMEM, "themis: out of memory");
    }
    b->dims = ndims;
    b->npus = 1;
    for (uint32_t d = 0; d < ndims; d++)
    {
        b->size[d] = sizes[d];
        b->bw[d] = (double)bandwidth_bps[d] / 8e9;
        b->npus *= sizes[d];
    }
    *out = b;
    return TN_OK;
}

tn_status
tn_themis_balancer_from_topology(const tn_topology* topo, tn_themis_balancer** out, tn_error* err)
{
    *out = NULL;
    uint32_t nd = topo ? tn_topology_dim_count(topo) : 0;
    if (nd == 0)
    {
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "themis: topology '%s' has no dimensions",
                            topo ? tn_topology_name(topo) : "(none)");
    }
    uint32_t* sizes = calloc(nd, sizeof(*sizes));
    uint64_t* bws = calloc(nd, sizeof(*bws));
    tn_status rc = TN_OK;
    if (!sizes || !bws)
    {
        rc = tn_error_set(err, TN_ENOMEM, "themis: out of memory");
    }
    for (uint32_t d = 0; d < nd && rc == TN_OK; d++)
    {
        sizes[d] = tn_topology_dim(topo, d)->size;
        bws[d] = tn_topology_dim(topo, d)->bandwidth_bps;
    }
    if (rc == TN_OK)
    {
        rc = tn_themis_balancer_create(nd, sizes, bws, out, err);
    }
    free(sizes);
    free(bws);
    return rc;
}

void
tn_themis_balancer_destroy(tn_themis_balancer* b)
{
    if (b)
    {
        free(b->size);
        free(b->bw);
        free(b->load);
        free(b->sorted);
        free(b);
    }
}

void
tn_themis_balancer_reset(tn_themis_balancer* b)
{
    memset(b->load, 0, b->dims * sizeof(*b->load));
}

uint32_t
tn_themis_balancer_dims(const tn_themis_balancer* b)
{
    return b->dims;
}

const double*
tn_themis_balancer_loads(const tn_themis_balancer* b)
{
    return b->load;
}

/* time (ns) of the RS (or AG) traffic of one NPU for x bytes in dim d */
static double
themis_rs_time(const tn_themis_balancer* b, uint32_t d, double x)
{
    double p = (double)b->size[d];
    return x * (p - 1.0) / p / b->bw[d];
}

void
tn_themis_balancer_next(tn_themis_balancer* b,
                        double bytes,
                        bool all_gather,
                        bool baseline,
                        uint32_t* order)
{
    uint32_t D = b->dims;
    /* stable insertion sort of dims by load (ascending, or descending for AG) */
    for (uint32_t i = 0; i < D; i++)
    {
        uint32_t d = i;
        uint32_t j = i;
        while (j > 0 && (all_gather ? b->load[b->sorted[j - 1]] < b->load[d]
                                    : b->load[b->sorted[j - 1]] > b->load[d]))
        {
            b->sorted[j] = b->sorted[j - 1];
            j--;
        }
        b->sorted[j] = d;
    }
    uint32_t first = b->sorted[0];
    uint32_t last = b->sorted[D - 1];
    bool use_base = baseline;
    if (!use_base)
    {
        if (all_gather)
        {
            use_base = b->load[first] - b->load[last] < themis_rs_time(b, last, bytes / 16.0);
        }
        else
        {
            use_base = b->load[last] - b->load[first] < themis_rs_time(b, first, bytes / 16.0);
        }
    }
    for (uint32_t i = 0; i < D; i++)
    {
        order[i] = use_base ? (all_gather ? D - 1 - i : i) : b->sorted[i];
    }
    if (all_gather)
    {
        double x = bytes / (double)b->npus;
        for (uint32_t i = 0; i < D; i++)
        {
            uint32_t d = order[i];
            x *= (double)b->size[d];
            b->load[d] += themis_rs_time(b, d, x);
        }
    }
    else
    {
        double x = bytes;
        for (uint32_t i = 0; i < D; i++)
        {
            uint32_t d = order[i];
            b->load[d] += themis_rs_time(b, d, x);
            x /= (double)b->size[d];
        }
    }
}
