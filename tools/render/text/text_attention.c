/* SPDX-License-Identifier: Apache-2.0 */
/* text_attention.c - counted fused attention as text, the lines only one
 * run has (attention_view.h): the excess line of "measured", the
 * attention line of "difference". The block after the GEMM totals, which
 * a run and a sum share, is text_run.c's. The figures and phrases are
 * attention_view.c's. */
#include <stdio.h>

#include "render_forms.h"
#include "report_view.h"

void fci_report_attention_text_measured(const fc_report_view *v)
{
    char e[FC_U128_DIGITS];
    if (v->job_xs == 0)
        return;
    printf("  attention xs   %s of them beyond the model convention (the fused backward "
           "recomputes QK^T: 2.5x its forward, the convention counts 2x); left out of MFU\n",
           fc_u128_to_str(v->job_xs, e));
}

void fci_report_attention_text_gap(const fc_report_view *v)
{
    char line[700];
    if (!v->attn_cmp.counted)
        return;
    printf("  attention      %s\n", fc_report_attention_cmp_words(v, line, sizeof line));
}
