/* SPDX-License-Identifier: Apache-2.0 */
/* options.h - the FLOPCOUNT_* environment variables, read once. */
#ifndef FC_OPTIONS_H
#define FC_OPTIONS_H

#include <stdint.h>

typedef struct fc_options {
    int disable;          /* FLOPCOUNT_DISABLE: forward only, count nothing */
    int quiet;            /* FLOPCOUNT_QUIET: no summary on stderr */
    int summary_always;   /* FLOPCOUNT_SUMMARY_ALWAYS: a summary even of a process that ran nothing */
    char output[4096];    /* FLOPCOUNT_OUTPUT: report path template (%p pid, %r rank) */
    uint64_t log_every;   /* FLOPCOUNT_LOG_EVERY: live line every N iterations (0 = off) */
    double peak_tflops;   /* FLOPCOUNT_PEAK_TFLOPS: per-device peak (0 = detect) */
    double snapshot_seconds; /* FLOPCOUNT_SNAPSHOT_SECONDS: periodic report rewrite (0 = off) */
    char nvtx_step[256];  /* FLOPCOUNT_NVTX_STEP: NVTX range name that marks an iteration */
    int log_all_ranks;    /* FLOPCOUNT_LOG_ALL_RANKS: live lines from every rank */
    int callsites;        /* FLOPCOUNT_CALLSITES: unwind to find call sites (default on) */
    int detect_repeat;    /* FLOPCOUNT_DETECT_REPEAT: a repeated segment labelled as the earlier
                           * one (1, default), never (0), or checked against labelling in full
                           * (check: 2) */
    char prometheus[4096]; /* FLOPCOUNT_PROMETHEUS: textfile-collector directory ("" = off) */
    double prometheus_seconds; /* FLOPCOUNT_PROMETHEUS_SECONDS: rewrite period (default 15) */
    char tensorboard[4096]; /* FLOPCOUNT_TENSORBOARD: TensorBoard log directory ("" = off) */
    char cupti[4096];     /* FLOPCOUNT_CUPTI: "" find it, "0" never load it, else its path */
    int kernels;          /* FLOPCOUNT_KERNELS: kernel activity (GPU busy, kernel split) */
    int hw_flops;         /* FLOPCOUNT_HW_FLOPS: hardware FLOP counters (PM sampling) */
    int read_device_sizes; /* FLOPCOUNT_READ_DEVICE_SIZES: grouped GEMMs' sizes copied back
                            * asynchronously from device memory (probe/devsizes.h) */
    char run_dir[4096];   /* FLOPCOUNT_RUN_DIR: set by 'flopcount run': each process writes its part there */
    char run_id[64];      /* FLOPCOUNT_RUN_ID: the run (direct use: its first process's pid.start) */
    char null_gpu[32];    /* FLOPCOUNT_NULL_GPU: the run is on the null GPU of this kind (set by
                           * 'flopcount run --null-gpu'): no HFU/MFU, the report says so */
} fc_options;

extern fc_options fc_opt;

/* Reads the environment into fc_opt; a bad value keeps the default and
 * prints one flopcount: line naming the variable. */
void fc_options_load(void);

/* 0 when FLOPCOUNT_DISABLE switched counting off. */
static inline int fc_is_enabled(void)
{
    return !fc_opt.disable;
}

#endif
