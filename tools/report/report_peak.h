/* SPDX-License-Identifier: Apache-2.0 */
/* report_peak.h - the peak options shared by 'report' and 'merge':
 * --gpu NAME --dtype D (from the peak table) or --peak-tflops X. */
#ifndef FC_REPORT_PEAK_H
#define FC_REPORT_PEAK_H

#include <stddef.h>

#include "dtype.h"
#include "peak.h"
#include "report_read.h"
#include "utilization.h"

typedef struct fc_peak_opt {
    const char *gpu, *dtype, *tflops; /* as given; NULL when not */
} fc_peak_opt;

/* If argv[*i] is a peak option, takes it and its value (advancing *i) and
 * returns 1; returns 0 when it is not one; -1 after printing
 * "flopcount <verb>: ..." when its value is missing. */
int fc_peak_opt_take(fc_peak_opt *o, const char *verb, int argc, char **argv, int *i);

/* The per-GPU peak in FLOP/s, and a phrase saying where it came from
 * ("NVIDIA H100 SXM, bf16 dense: 989.4 TFLOP/s"). *flops = 0 when no option
 * was given. default_dtype (may be NULL) is used when --gpu comes without
 * --dtype. Returns -1 after printing one error line. */
int fc_peak_opt_resolve(const fc_peak_opt *o, const char *verb, const char *default_dtype,
                        double *flops, char *desc, size_t size);

/* The dtype with the most FLOPs (for --gpu without --dtype); NULL when n = 0. */
const char *fc_peak_main_dtype(const fc_report_group *by_dtype, size_t n);

/* ---- the peak of each dtype, for HFU at the dtype mix ----------------
 * --gpu NAME: the table's figure of each dtype; --peak-tflops X: one figure,
 * so only a mix of one dtype; neither: the per-dtype peaks the report (or
 * every rank's report, when they agree) carries in utilization.mix. */
typedef struct fc_mix_source {
    const fc_peak_device *dev; /* --gpu */
    double given;              /* --peak-tflops, FLOP/s; 0 none */
    int reports;               /* reports added */
    double by_dtype[FC_DT_COUNT]; /* from them: the peak; 0 no report has the dtype; -1 two
                                   * reports give two figures; -2 a report has the dtype and no
                                   * peak for it */
    char reason[256];          /* a report's own mix_reason (the first one) */
    int by_hand;               /* a report's peak was given by hand (FLOPCOUNT_PEAK_TFLOPS):
                                * its figure is no dtype's own, so it serves one dtype only */
} fc_mix_source;

/* The options (after fc_peak_opt_resolve accepted them) into s, which
 * starts zeroed; reports added before or after are kept. */
void fc_mix_source_opts(fc_mix_source *s, const fc_peak_opt *o);
/* One report's per-dtype peaks (used only without --gpu/--peak-tflops).
 * A dtype the report trained in but gives no peak for (a null peak, or no
 * utilization at all) is marked -2: another report's figure, possibly
 * another device's, never stands in for it. */
void fc_mix_source_add(fc_mix_source *s, const fc_report *r);
/* s as the peaks of fc_mix_compute (s must outlive the call). */
fc_mix_peaks fc_mix_source_peaks(fc_mix_source *s);
/* The training FLOPs by dtype of a report's iterations.flops_by_dtype into
 * out (FC_DT_COUNT, zeroed first; names this reader does not know go to
 * FC_DT_UNKNOWN, which has no peak). 0 when the report has none. */
int fc_mix_flops_of(const fc_report *r, fc_u128 *out);

#endif
