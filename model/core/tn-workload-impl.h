/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-workload-impl: the workload's representation, shared by the files of the
 * workload concept (tn-workload.c reads and writes it, tn-workload-group.c derives
 * the groups). Not part of the API: callers use tn-workload.h.
 */
#ifndef TN_WORKLOAD_IMPL_H
#define TN_WORKLOAD_IMPL_H

#include "tn-workload.h"

#include <stddef.h>
#include <stdint.h>

struct tn_workload
{
    char* name;
    tn_parallelism parallelism;
    uint32_t group;       /* model_parallel_NPU_group, 0 if absent */
    uint32_t dlrm_bottom; /* TN_WORKLOAD_NONE if absent */
    /* HYBRID_TRANSFORMER_FWD_IN_BCKWD: the lists of line 1, as given */
    uint32_t* list[2];            /* checkpoints, checkpoint_initiates */
    uint32_t list_count[2];       /* their lengths */
    int list_given[2];            /* the key was on line 1 */
    uint32_t* recompute;          /* per layer: first layer recomputed before its ig, or NONE */
    unsigned char* is_checkpoint; /* per layer */
    uint32_t count;
    size_t cap;
    tn_workload_layer* layers;
};

#endif /* TN_WORKLOAD_IMPL_H */
