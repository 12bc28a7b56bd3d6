/* SPDX-License-Identifier: Apache-2.0 */
/* render_fmt.h - formats the 'report' and 'merge' outputs share. */
#ifndef FC_REPORT_FMT_H
#define FC_REPORT_FMT_H

#include <stddef.h>

#include "jsonw.h"
#include "report_read.h"
#include "u128.h"
#include "utilization.h"

/* "1.23 TFLOP" (SI prefixes, for the eye; the exact integer goes beside). */
char *fci_fmt_flop(fc_u128 v, char *buf, size_t size);
/* "41.2%"; "n/a" for NaN. */
char *fci_fmt_pct(double fraction, char *buf, size_t size);
/* "0.123 s"; "n/a" for NaN. */
char *fci_fmt_seconds(double s, char *buf, size_t size);

/* The dtype mix's terms: "fp8_e4m3 75.0% at 1978.9 TFLOP/s, bf16 25.0% at
 * 989.4 TFLOP/s" (a dtype without a peak: "fp4_e2m1 60.0% (no peak)"). */
char *fci_fmt_mix_terms(const fc_mix *m, char *buf, size_t size);
/* One line of text for HFU at the mix: "52.1%   each dtype's FLOPs at its
 * own dense peak: TERMS" or "n/a   REASON (TERMS)". */
char *fci_fmt_mix_line(const fc_mix *m, char *buf, size_t size);

/* One "shapes" entry, in the layout the shim writes (docs/report-schema.md). */
void fci_json_shape(fc_jw *w, const fc_report_shape *s);

#endif
