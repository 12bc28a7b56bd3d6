/* SPDX-License-Identifier: Apache-2.0 */
/* flopcount.h - the one public header of flopcount.
 *
 * A program never needs this header: LD_PRELOAD=libflopcount.so counts GEMMs
 * with no code change. It is for programs that want to say where a training
 * iteration starts (sharper than automatic detection) or read the counters.
 * Every function here is safe to call whether or not the library is loaded
 * when used through the weak declarations below, and costs a load and a
 * branch when it is. */
#ifndef FLOPCOUNT_H
#define FLOPCOUNT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLOPCOUNT_VERSION_MAJOR 0
#define FLOPCOUNT_VERSION_MINOR 1
#define FLOPCOUNT_VERSION_PATCH 0
#define FLOPCOUNT_VERSION_STRING "0.1.0"

/* Version of the struct below; it only grows, new fields at the end. */
#define FLOPCOUNT_SNAPSHOT_VERSION 1

/* A copy of the process-wide counters at one moment. FLOP counts are split
 * into two 64-bit halves so the struct stays plain C on every compiler:
 * total = hi * 2^64 + lo. */
typedef struct flopcount_snapshot {
    uint32_t size;    /* sizeof(struct flopcount_snapshot) as the caller knows it */
    uint32_t version; /* FLOPCOUNT_SNAPSHOT_VERSION of the library that filled it */
    uint64_t gemm_calls;
    uint64_t gemm_flops_lo;
    uint64_t gemm_flops_hi;
    uint64_t failed_calls;
    uint64_t invalid_calls;
    uint64_t iterations;  /* training iterations completed so far */
} flopcount_snapshot;

/* Marks the end of one training iteration (call it once per optimizer step,
 * after optimizer.step()). Once called, iterations are counted from markers
 * alone and automatic detection stands aside. */
void flopcount_step(void);

/* Optional phase markers around an evaluation pass: GEMMs in between are
 * reported as evaluation and never start or split a training iteration. */
void flopcount_eval_begin(void);
void flopcount_eval_end(void);

/* Fills *out (out->size must be set by the caller). Returns 0 on success,
 * -1 when out is NULL or out->size is too small for version 1. */
int flopcount_snapshot_get(flopcount_snapshot *out);

/* Writes the report now (to FLOPCOUNT_OUTPUT when set), without waiting for
 * exit. Returns 0 on success, -1 on failure (a flopcount: line says why). */
int flopcount_write_report(void);

/* "0.1.0" */
const char *flopcount_version(void);

#ifdef __cplusplus
}
#endif
#endif /* FLOPCOUNT_H */
