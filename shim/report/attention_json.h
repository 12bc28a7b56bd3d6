/* SPDX-License-Identifier: Apache-2.0 */
/* attention_json.h - the report's "attention" section (counted fused
 * attention: totals, by source, every shape with its three FLOP figures)
 * and "uncounted" list (kernels and plans seen whose FLOPs are not
 * counted, with the reason), and their lines of the summary. */
#ifndef FC_REPORT_ATTENTION_JSON_H
#define FC_REPORT_ATTENTION_JSON_H

#include "jsonw.h"

/* Both as members of the open top-level object. */
void fc_attention_section_json(fc_jw *w);
/* The summary's lines on fd: one for the counted attention (when any),
 * one per uncounted name (the first few). */
void fc_attention_section_text(int fd);
/* 1 when an attention call (failed ones too) or an uncounted kernel was seen. */
int fc_report_attention_seen(void);

#endif
