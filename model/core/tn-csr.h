/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-csr: rows of ids (compressed sparse rows) whose equal rows share their storage (private
 * to model/core). A schedule's dep and succ lists repeat: a hierarchical all-reduce's sends of
 * one rank all wait on the same receives, so one list a send held 17 M ids a plan at 1,024
 * NPUs.
 *
 * Contract: tn_csr_share_rows(n, index, &ids, &len) takes n rows in prefix form (row i is
 * ids[index[i] .. index[i + 1]), index of n + 1 entries) and keeps each distinct row once,
 * in the order rows first appear: index[i] becomes row i's start (0 for an empty row), *len
 * (allocated here, n + 1 entries, the caller's to free) its length, and *ids shrinks to the
 * rows kept (it may move). Rows compare by content (a hash, then memcmp). It returns false
 * when out of memory, leaving index and *ids as they were.
 */
#ifndef TN_CSR_H
#define TN_CSR_H

#include <stdbool.h>
#include <stdint.h>

bool tn_csr_share_rows(uint32_t n, uint32_t* index, uint32_t** ids, uint32_t** len);

#endif /* TN_CSR_H */
