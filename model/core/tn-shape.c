/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-shape: distances of the generated topologies from their node ids.
 */
#include "tn-shape.h"

/* Hops between coordinates a and b of one grid axis of `size` NPUs. */
static uint32_t
tn_axis_distance(tn_axis_kind kind, uint32_t size, uint32_t a, uint32_t b)
{
    if (a == b)
    {
        return 0;
    }
    uint32_t x = a > b ? a - b : b - a;
    switch (kind)
    {
    case TN_AXIS_RING:
        return x < size - x ? x : size - x;
    case TN_AXIS_LINE:
        return x;
    case TN_AXIS_FC:
        return 1;
    case TN_AXIS_SWITCH:
        return 2;
    }
    return 0;
}

bool
tn_shape_counts(const tn_shape* shape, uint32_t* npus, uint32_t* switches)
{
    uint64_t n = 0, s = 0;
    switch (shape ? shape->kind : TN_SHAPE_NONE)
    {
    case TN_SHAPE_NONE:
        return false;
    case TN_SHAPE_GRID:
        if (shape->axes < 1 || shape->axes > TN_SHAPE_MAX_AXES)
        {
            return false;
        }
        n = 1;
        for (uint32_t k = 0; k < shape->axes; k++)
        {
            if (shape->size[k] < 2 || shape->axis[k] > TN_AXIS_SWITCH)
            {
                return false;
            }
            n *= shape->size[k];
            if (n > UINT32_MAX)
            {
                return false;
            }
        }
        for (uint32_t k = 0; k < shape->axes; k++)
        {
            s += shape->axis[k] == TN_AXIS_SWITCH ? n / shape->size[k] : 0;
        }
        break;
    case TN_SHAPE_FATTREE: {
        uint64_t k = shape->a, h = k / 2;
        if (k < 2 || k % 2 || k > 2048)
        {
            return false;
        }
        n = k * k * k / 4;
        s = 2 * k * h + h * h;
        break;
    }
    case TN_SHAPE_LEAFSPINE:
        if (!shape->a || !shape->b || !shape->c)
        {
            return false;
        }
        n = (uint64_t)shape->a * shape->c;
        s = (uint64_t)shape->a + shape->b;
        break;
    case TN_SHAPE_BIGRAPH:
        if (shape->a < 2 || shape->a % 2 || !shape->b)
        {
            return false;
        }
        n = (uint64_t)shape->a * shape->b;
        s = shape->a;
        break;
    default:
        return false;
    }
    if (n + s > UINT32_MAX - 1)
    {
        return false;
    }
    *npus = (uint32_t)n;
    *switches = (uint32_t)s;
    return true;
}

bool
tn_shape_routes_valid(const tn_shape* shape, bool npus_forward)
{
    if (!shape || shape->kind == TN_SHAPE_NONE)
    {
        return false;
    }
    if (shape->kind != TN_SHAPE_GRID || npus_forward)
    {
        return true; /* switched shapes: every host has one cable, transit never shortens */
    }
    return shape->axes == 1 && (shape->axis[0] == TN_AXIS_FC || shape->axis[0] == TN_AXIS_SWITCH);
}

/* Grid: hops from `node` to NPU dst. A switch of axis k reaches every NPU of its group in
 * one hop, so from it only the other axes remain to correct. */
static uint32_t
tn_grid_distance(const tn_shape* g, uint32_t node, uint32_t dst)
{
    uint32_t npus = 1;
    for (uint32_t k = 0; k < g->axes; k++)
    {
        npus *= g->size[k];
    }
    uint32_t skip = TN_SHAPE_MAX_AXES; /* the switch's axis */
    uint32_t group = 0;
    uint32_t hops = 0;
    if (node >= npus)
    {
        uint32_t idx = node - npus;
        for (uint32_t k = 0; k < g->axes && skip == TN_SHAPE_MAX_AXES; k++)
        {
            uint32_t groups = npus / g->size[k];
            if (g->axis[k] != TN_AXIS_SWITCH)
            {
                continue;
            }
            if (idx < groups)
            {
                skip = k;
                group = idx;
            }
            else
            {
                idx -= groups;
            }
        }
        hops = 1;
    }
    for (uint32_t k = 0; k < g->axes; k++)
    {
        uint32_t e = dst % g->size[k];
        dst /= g->size[k];
        if (k == skip)
        {
            continue;
        }
        uint32_t c;
        if (skip == TN_SHAPE_MAX_AXES)
        {
            c = node % g->size[k];
            node /= g->size[k];
        }
        else
        {
            c = group % g->size[k];
            group /= g->size[k];
        }
        hops += tn_axis_distance(g->axis[k], g->size[k], c, e);
    }
    return hops;
}

uint32_t
tn_shape_distance(const tn_shape* shape, uint32_t node, uint32_t dst)
{
    if (node == dst)
    {
        return 0;
    }
    switch (shape->kind)
    {
    case TN_SHAPE_GRID:
        return tn_grid_distance(shape, node, dst);
    case TN_SHAPE_FATTREE: {
        uint32_t k = shape->a, h = k / 2, hosts = (uint32_t)((uint64_t)k * k * k / 4);
        uint32_t e0 = hosts, a0 = hosts + k * h, c0 = a0 + k * h;
        uint32_t edge = dst / h, pod = dst / (h * h);
        uint32_t up = node < hosts ? 1 : 0;
        uint32_t v = node < hosts ? e0 + node / h : node; /* a host's only hop: its edge */
        if (v < a0)
        {
            return up + (v - e0 == edge ? 1 : (v - e0) / h == pod ? 3 : 5);
        }
        return v < c0 ? ((v - a0) / h == pod ? 2 : 4) : 3;
    }
    case TN_SHAPE_LEAFSPINE: {
        uint32_t hosts = shape->a * shape->c;
        uint32_t up = node < hosts ? 1 : 0;
        uint32_t v = node < hosts ? hosts + node / shape->c : node;
        if (v < hosts + shape->a)
        {
            return up + (v - hosts == dst / shape->c ? 1 : 3);
        }
        return 2;
    }
    case TN_SHAPE_BIGRAPH: {
        uint32_t npus = shape->a * shape->b, half = shape->a / 2;
        uint32_t up = node < npus ? 1 : 0;
        uint32_t s = node < npus ? node / shape->b : node - npus;
        uint32_t sd = dst / shape->b;
        return up + (s == sd ? 1 : (s < half) != (sd < half) ? 2 : 3);
    }
    default:
        return 0;
    }
}

uint32_t
tn_shape_switch_port(const tn_shape* shape, uint32_t node, uint32_t dst)
{
    if (shape->kind != TN_SHAPE_GRID)
    {
        return UINT32_MAX;
    }
    uint32_t npus = 1;
    for (uint32_t k = 0; k < shape->axes; k++)
    {
        npus *= shape->size[k];
    }
    if (node < npus)
    {
        return UINT32_MAX;
    }
    uint32_t idx = node - npus;
    for (uint32_t k = 0; k < shape->axes; k++)
    {
        if (shape->axis[k] != TN_AXIS_SWITCH)
        {
            dst /= shape->size[k];
            continue;
        }
        if (idx < npus / shape->size[k])
        {
            return dst % shape->size[k];
        }
        idx -= npus / shape->size[k];
        dst /= shape->size[k];
    }
    return UINT32_MAX;
}

uint32_t
tn_shape_max_npu_distance(const tn_shape* shape)
{
    uint32_t best = 0;
    switch (shape->kind)
    {
    case TN_SHAPE_GRID:
        for (uint32_t k = 0; k < shape->axes; k++)
        {
            uint32_t p = shape->size[k];
            best += shape->axis[k] == TN_AXIS_RING   ? p / 2
                    : shape->axis[k] == TN_AXIS_LINE ? p - 1
                    : shape->axis[k] == TN_AXIS_FC   ? 1
                                                     : 2;
        }
        return best;
    case TN_SHAPE_FATTREE:
        return 6; /* k >= 2: always two pods */
    case TN_SHAPE_LEAFSPINE:
        return shape->a > 1 ? 4 : shape->c > 1 ? 2 : 0;
    case TN_SHAPE_BIGRAPH:
        return shape->a > 2 ? 4 : 3;
    default:
        return 0;
    }
}
