/* SPDX-License-Identifier: Apache-2.0 */
/* live.h - the live line: every FLOPCOUNT_LOG_EVERY iterations one line on
 * stderr (rank 0 only unless FLOPCOUNT_LOG_ALL_RANKS=1). */
#ifndef FC_LIVE_H
#define FC_LIVE_H

/* Prints the line of each iteration finished since the last call whose
 * index is a multiple of FLOPCOUNT_LOG_EVERY. Runs on the drainer thread
 * after a drain (the ring layer's tick), holding the drain lock: a step's
 * line comes within one drain interval of the drain that finished it. */
void fc_live_poll(void);
/* Forgets what was printed (fork child). */
void fc_live_reset(void);

#endif
