/* SPDX-License-Identifier: Apache-2.0 */
/* run_sections.c - the HTML sections 'report --html' and 'merge --html'
 * both show, each written once from the run view (render_run.h): the
 * GEMM totals row, the cards of HFU at the dtype mix and of the peak, the
 * dtype mix table, counted fused attention, the top shapes. The charts and
 * tables they draw with are mix_table.c's, attention_table.c's and
 * shapes_table.c's; a verb's own cards and tables stay in its page. */
#include <stdio.h>

#include "pages.h"
#include "render_fmt.h"
#include "render_run.h"

void fci_html_run_gemm_row(fc_html *h, const fci_run *r)
{
    const fc_totals_rec *t = r->totals;
    char e[FC_U128_DIGITS], s[48], w[32], line[512];
    snprintf(line, sizeof line, "%s in %llu calls%s; %llu failed, %llu invalid, %llu unresolved; "
             "wall %s",
             fci_fmt_flop(t->gemm_flops, s, sizeof s), (unsigned long long)t->gemm_calls,
             r->whose, (unsigned long long)t->failed_calls, (unsigned long long)t->invalid_calls,
             (unsigned long long)t->unresolved_calls,
             fci_fmt_seconds(r->wall_seconds, w, sizeof w));
    fci_html_fig_row(h, "GEMM totals", "totals.gemm_flops", fc_u128_to_str(t->gemm_flops, e),
                     line);
}

void fci_html_run_mix_card(fc_html *h, const fci_run *r)
{
    fci_html_mix_card(h, r->keys->hfu_mix, r->mix);
}

void fci_html_run_peak_card(fc_html *h, const fci_run *r)
{
    int peak = r->peak > 0;
    fci_html_card(h, peak ? r->keys->peak_source : NULL, "peak per GPU",
                  peak ? r->peak_desc : "not known", peak ? "" : r->no_peak);
}

/* Shown with iterations whenever the mix says something: its figure with a
 * peak, or why there is none (the text's "HFU at mix" line says it too). */
void fci_html_run_mix_table(fc_html *h, const fci_run *r)
{
    if (r->has_iterations && (r->peak > 0 || r->mix->ok || r->mix->n > 0))
        fci_html_mix_table(h, r->mix, r->seconds);
}

void fci_html_run_attention(fc_html *h, const fci_run *r, const char *comparison)
{
    if (!fc_report_attention_any(r->attn) && !r->attn->launch_note[0])
        return;
    fc_html_attn a = {r->attn,
                      r->totals->gemm_calls,
                      r->totals->gemm_flops,
                      r->totals->counted_flops,
                      r->has_iterations,
                      r->xs,
                      comparison,
                      r->whose};
    fci_html_attention(h, &a);
}

void fci_html_run_shapes(fc_html *h, const fci_run *r)
{
    fci_html_shapes(h, r->shapes, r->n_shapes, r->totals->gemm_flops);
}
