/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-msccl: an MSCCL-IR algorithm (the XML that MSCCLang programs print, msccl-tools) as
 * Chakra traces of a custom collective (tn-algorithm.h's custom, ASTRA-sim's Collective
 * API), one per GPU, as chakra's et_converter --input_type msccl writes them.
 *
 * Contract
 * --------
 * Input: <algo ... coll="allreduce" ngpus="4"> holding <gpu id i_chunks o_chunks> elements,
 * each holding <tb id send recv chan> elements (a thread block: the peer it sends to and the
 * one it receives from, -1 for none, and its channel), each holding <step s type srcoff
 * dstoff cnt depid deps/> elements, s = 0, 1, ... in order. Other attributes are ignored,
 * as are <?...?> and <!--...--> parts. Step types: s (send), r (receive), rrc (receive,
 * reduce, copy), nop; any other (rcs, rrcs, re, cpy, ...) is refused, as chakra's converter
 * refuses it. srcoff must equal dstoff (one chunk index per message, as chakra's).
 *
 * Output, per GPU g (tn_msccl_write): a COMM_SEND_NODE to the thread block's send peer or a
 * COMM_RECV_NODE from its recv peer per step, comm_tag = chan, msg_chunk_idx = srcoff,
 * msg_chunk_cnt = cnt, total_chunk_cnt = the GPU's i_chunks (o_chunks when 0); an rrc also
 * has is_rrc and a COMP_NODE that takes the receive as data. Node ids count from 1 in thread
 * block then step order. Dependencies (data_deps): the step named by depid/deps (the COMP_NODE
 * of an rrc), and the thread block's previous step (past a nop: the nop's own dependency and
 * the step before it).
 *
 * Errors: one TN_EPARSE naming the file, the line and the element or attribute
 * ("ring.xml:12: step: srcoff: missing"). Nothing here keeps global state; the parsed
 * algorithm keeps copies of what it needs (the text may be freed).
 */
#ifndef TN_MSCCL_H
#define TN_MSCCL_H

#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

    typedef struct tn_msccl tn_msccl;

    /** Parse an MSCCL-IR XML text; `path` names it in errors. On failure *out is NULL. */
    tn_status tn_msccl_parse(const char* text,
                             size_t len,
                             const char* path,
                             tn_msccl** out,
                             tn_error* err);

    /** GPUs: ids 0 .. gpus - 1, each once (checked by tn_msccl_parse). */
    uint32_t tn_msccl_gpus(const tn_msccl* m);

    /** The algo element's coll attribute ("allreduce", ...; "" when absent). */
    const char* tn_msccl_collective(const tn_msccl* m);

    /** Write GPU gpu's Chakra trace (metadata, then nodes) to file. Needs protobuf-c. */
    tn_status tn_msccl_write(const tn_msccl* m, uint32_t gpu, FILE* file, tn_error* err);

    /** Free; NULL is ignored. */
    void tn_msccl_destroy(tn_msccl* m);

#ifdef __cplusplus
}
#endif

#endif /* TN_MSCCL_H */
