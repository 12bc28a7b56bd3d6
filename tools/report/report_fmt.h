/* SPDX-License-Identifier: Apache-2.0 */
/* report_fmt.h - formats the 'report' and 'merge' outputs share. */
#ifndef FC_REPORT_FMT_H
#define FC_REPORT_FMT_H

#include <stddef.h>

#include "jsonw.h"
#include "report_read.h"
#include "u128.h"

/* "1.23 TFLOP" (SI prefixes, for the eye; the exact integer goes beside). */
char *fc_fmt_flop(fc_u128 v, char *buf, size_t size);
/* "41.2%"; "n/a" for NaN. */
char *fc_fmt_pct(double fraction, char *buf, size_t size);
/* "0.123 s"; "n/a" for NaN. */
char *fc_fmt_seconds(double s, char *buf, size_t size);

/* One "shapes" entry, in the layout the shim writes (docs/report-schema.md). */
void fc_json_shape(fc_jw *w, const fc_report_shape *s);

#endif
