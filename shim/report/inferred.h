/* SPDX-License-Identifier: Apache-2.0 */
/* inferred.h - the model read off the forward profile, in the live line and
 * the exit summary (inferred.c). Callers hold the drain lock. */
#ifndef FC_REPORT_INFERRED_H
#define FC_REPORT_INFERRED_H

#include <stddef.h>

#include "detect/steps.h"
#include "figures.h"
#include "infer_grouped.h"

/* The formula's model FLOPs of iteration it when the model inferred from
 * a steady profile fits its count exactly: 0 with *model set, else -1
 * (the TensorBoard scalar; fc_inferred_live's figure). */
int fc_inferred_iteration_model(const fc_iteration *it, fc_u128 *model);
/* " formula MFU 38.0%" for the live line of iteration it (secs long, peak
 * FLOP/s per device) when the model inferred from a steady profile fits
 * the count exactly; "" otherwise. */
void fc_inferred_live(const fc_iteration *it, double secs, double peak, char *out, size_t size);
/* The summary's line: the inferred model and the formula MFU over the
 * steady iterations, or why there is none. */
void fc_inferred_text(int fd, const fc_figures *x);
/* The experts read off the grouped calls of the current forward profile
 * (analysis/infer_grouped.h); NULL when it has none. */
const fc_moe_grouped *fc_inferred_moe(void);

#endif
