/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-finish-queue: the fluid engine's queue of flow finish times (private to model/core).
 *
 * Contract: entries (time, tag, id, ver) come out smallest first, by time, then tag, then id
 * (a total order on the entries of live flows; the engine skips stale ones by ver). They go
 * in by batches: tn_finish_queue_add appends to the open batch, tn_finish_queue_seal sorts it
 * into a run, and only sealed entries come out. Every batch of the engine is one update's
 * new finish times, and the steps of a collective end thousands of flows at one time, in tag
 * order or in a radix sort's few passes, and a removal advances a run and re-sifts a
 * heap of the few runs pending, where a binary heap of every entry sifted each entry through
 * its depth twice (10 % of a 1,024-NPU ring2d run's instructions). Add and seal fail only
 * for memory (false) and leave the sealed entries as they were; zero-initialise a queue
 * ({0}) and free it with tn_finish_queue_free.
 */
#ifndef TN_FINISH_QUEUE_H
#define TN_FINISH_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tn_finish
{
    double time;
    uint32_t tag;
    uint32_t id;
    uint32_t ver;
} tn_finish;

/* A sorted run: v[head, n) waits. */
typedef struct tn_finish_run
{
    tn_finish* v;
    size_t head;
    size_t n;
    size_t cap;
} tn_finish_run;

typedef struct tn_finish_queue
{
    tn_finish_run* runs; /* sealed runs and spare ones (their arrays kept) */
    size_t run_count;
    size_t run_cap;
    uint32_t* heap; /* indices of the runs that hold entries, by their first entry */
    size_t heap_n;
    size_t heap_cap;
    uint32_t* spare; /* indices of empty runs */
    size_t spare_n;
    size_t spare_cap;
    tn_finish* scratch; /* the sort's */
    size_t scratch_cap;
    uint32_t open;  /* the batch being added to (a run not in the heap), plus one; 0: none */
    size_t entries; /* sealed entries waiting */
} tn_finish_queue;

/* Appends e to the open batch (opened if none). */
bool tn_finish_queue_add(tn_finish_queue* q, tn_finish e);
/* Sorts the open batch into the queue (nothing if none). */
bool tn_finish_queue_seal(tn_finish_queue* q);
/* The smallest sealed entry, NULL if none. */
const tn_finish* tn_finish_queue_top(const tn_finish_queue* q);
/* Removes the smallest sealed entry (one must wait). */
void tn_finish_queue_pop(tn_finish_queue* q);
/* Keeps only the sealed entries keep() accepts, in their order. */
void tn_finish_queue_filter(tn_finish_queue* q,
                            bool (*keep)(const tn_finish* e, const void* ctx),
                            const void* ctx);
void tn_finish_queue_free(tn_finish_queue* q);

#endif /* TN_FINISH_QUEUE_H */
