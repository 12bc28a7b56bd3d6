/* SPDX-License-Identifier: Apache-2.0 */
/* lazymem.h - memory for the shim's tables, obtained when a process first
 * needs it (its first GEMM or marker), never at start-up: anonymous pages
 * reserved without commit charge (MAP_NORESERVE) and resident only once
 * touched, so a table costs what is written into it, not its capacity.
 * Clearing gives the pages back (MADV_DONTNEED): the table reads as zeros
 * again without a byte of it being written - in a fork child, without
 * copying the parent's pages either. Never on the hot path. */
#ifndef FC_LAZYMEM_H
#define FC_LAZYMEM_H

#include <stddef.h>

/* bytes of zeroed memory, page aligned; NULL when the system refuses. */
void *fc_mem_map(size_t bytes);
/* Zeroes bytes from p (a pointer fc_mem_map returned, bytes at most its
 * size); only the whole pages that were touched cost anything. */
void fc_mem_clear(void *p, size_t bytes);
/* Maps bytes into *slot once, whichever thread comes first (the others
 * use that thread's mapping); the mapping or NULL. */
void *fc_mem_map_once(void *_Atomic *slot, size_t bytes);

#endif
