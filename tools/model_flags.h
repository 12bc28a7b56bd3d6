/* SPDX-License-Identifier: Apache-2.0 */
/* model_flags.h - the model and utilization flags shared by the verbs that
 * compute formula FLOPs ('flopcount formula', 'flopcount report').
 *
 * Flags may come in any order, but a --config file is the base and every
 * model flag given overrides it, so flags are collected first and applied
 * by fc_model_opts_finish. Typical loop:
 *
 *   fc_model_opts mo; fc_model_opts_init(&mo);
 *   for (i = 1; i < argc; i++) {
 *       int used = fc_model_flag(&mo, argv[i], i + 1 < argc ? argv[i + 1] : NULL, err, n);
 *       if (used < 0) fail(err);
 *       if (used > 0) { i += used - 1; continue; }
 *       ... the verb's own flags ...
 *   }
 *   if (fc_model_opts_finish(&mo, &model, err, n) != 0) fail(err);
 */
#ifndef FC_MODEL_FLAGS_H
#define FC_MODEL_FLAGS_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/formula.h"

typedef struct fc_model_opts {
    fc_model flags;      /* values from the command line */
    uint64_t set;        /* one bit per flag given (internal) */
    const char *config;  /* --config FILE, or NULL */
} fc_model_opts;

void fc_model_opts_init(fc_model_opts *o);

/* Offers one argument. value is the next argument (NULL if none); a flag
 * written --flag=value carries its own. Returns 0 when flag is not a model
 * flag, 1 when it used flag alone (a switch or --flag=value), 2 when it
 * also used value, -1 on a missing or bad value with a one-line reason in
 * err (no "flopcount verb:" prefix). */
int fc_model_flag(fc_model_opts *o, const char *flag, const char *value, char *err, size_t n);

/* 1 when any model flag or --config was given. */
int fc_model_opts_given(const fc_model_opts *o);

/* Reads --config (if any), lays the flags over it, checks the result
 * (fc_model_check). 0, or -1 with a one-line reason in err. */
int fc_model_opts_finish(const fc_model_opts *o, fc_model *out, char *err, size_t n);

/* Reads --config (if any) and lays the flags over it, without checking
 * that the model is complete; *given (when not NULL) gets a bit
 * FC_IK_BIT(enum fc_ik) per value set (a config sets the architecture's). 0, or
 * -1 with a one-line reason (an unreadable config). */
int fc_model_opts_collect(const fc_model_opts *o, fc_model *out, uint64_t *given, char *err, size_t n);

/* Lays --config (its architecture) and the flags over a complete model
 * *base (from a merged report); no check. 0, or -1 on a bad --config. */
int fc_model_opts_overlay(const fc_model_opts *o, fc_model *base, char *err, size_t n);

/* Usage lines for the model flags, for a verb's --help. */
const char *fc_model_flags_help(void);

/* --iter-time, --gpus, --gpu, --dtype, --peak-tflops. */
typedef struct fc_util_opts {
    double iter_time;    /* seconds; 0: not given */
    int64_t gpus;        /* 0: not given */
    const char *gpu;     /* device name for the peak table */
    const char *dtype;   /* with --gpu */
    double peak_tflops;  /* 0: not given */
} fc_util_opts;

void fc_util_opts_init(fc_util_opts *u);
/* As fc_model_flag, for the utilization flags. */
int fc_util_flag(fc_util_opts *u, const char *flag, const char *value, char *err, size_t n);
/* Checks the combination. Returns 0 with *peak_flops = 0 when no time was
 * given, 0 with the per-GPU peak in FLOP/s when it was, -1 with a reason
 * (missing --gpus, unknown GPU, dtype the GPU lacks, ...). */
int fc_util_opts_peak(const fc_util_opts *u, double *peak_flops, char *err, size_t n);
const char *fc_util_flags_help(void);

#endif
