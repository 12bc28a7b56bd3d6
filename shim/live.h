/* SPDX-License-Identifier: Apache-2.0 */
/* live.h - the live line: every FLOPCOUNT_LOG_EVERY iterations one line on
 * stderr (rank 0 only unless FLOPCOUNT_LOG_ALL_RANKS=1). */
#ifndef FC_LIVE_H
#define FC_LIVE_H

#include <stdint.h>

#include "steps.h"

/* Called for each finished iteration of the mode being reported (index
 * counts from 1). Prints when index is a multiple of FLOPCOUNT_LOG_EVERY. */
void fc_live_iteration(uint64_t index, const fc_iteration *it);
/* 1 when the counted work ran on a GPU (set by iter.c from the API). */
extern _Atomic int fc_live_gpu_work;

#endif
