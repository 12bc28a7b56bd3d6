/* SPDX-License-Identifier: Apache-2.0 */
/* init.h - start-up of libflopcount.so (init.c). */
#ifndef FC_INIT_H
#define FC_INIT_H

/* Idempotent; run by the constructor, and lazily by the public entry points
 * (a marker or NVTX call can come from another library's constructor,
 * before ours ran). */
void fc_init(void);

#endif
