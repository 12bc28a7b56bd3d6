/* SPDX-License-Identifier: Apache-2.0 */
/* mix_table.c - HFU at the dtype mix on both HTML pages: the headline card
 * and a small table, one row per dtype of the training FLOPs (its share
 * with a bar, the dense peak it is measured against, the time its FLOPs
 * need at that peak), in the text report's words and number formats. */
#include <math.h>
#include <stdio.h>

#include "dtype.h"
#include "pages.h"
#include "render_fmt.h"
#include "svg.h"

void fci_html_mix_card(fc_html *h, const char *key, const fc_mix *m)
{
    char v[32], d[320];
    if (m->ok) {
        char shares[160];
        snprintf(d, sizeof d, "each dtype's FLOPs at its own dense peak: %s",
                 fc_mix_shares_text(m, shares, sizeof shares));
    } else {
        snprintf(d, sizeof d, "%s", m->reason);
    }
    fci_html_card(h, m->ok ? key : NULL, "HFU at the dtype mix",
                  fci_fmt_pct(m->ok ? m->hfu : NAN, v, sizeof v), d);
}

static void term_row(fc_html *h, const fc_mix_term *t, double top)
{
    char b[64];
    fci_html_row_begin(h, NULL);
    fci_html_td(h, fc_dtype_name(t->dtype), 0);
    fci_html_td(h, fci_fmt_pct(t->share, b, sizeof b), 1);
    fci_html_raw(h, "<td class=\"bar\">");
    fci_svg_rowbar(h, top > 0 ? t->share / top : 0, "s-bar");
    fci_html_raw(h, "</td>");
    if (t->peak > 0)
        snprintf(b, sizeof b, "%.6g", t->peak / 1e12);
    else
        snprintf(b, sizeof b, "none published");
    fci_html_td(h, b, 1);
    /* at the peak a time is small: three digits, not fci_fmt_seconds' four decimals */
    if (t->peak > 0)
        snprintf(b, sizeof b, "%.3g s", t->seconds);
    else
        snprintf(b, sizeof b, "n/a");
    fci_html_td(h, b, 1);
    fci_html_row_end(h);
}

void fci_html_mix_table(fc_html *h, const fc_mix *m, double seconds)
{
    static const char *const head[] = {"dtype", "#share of FLOPs", "", "#dense peak, TFLOP/s",
                                       "#time at that peak"};
    char cap[256], t2[32], p[16];
    if (m->n == 0) {
        fci_html_para(h, "note", m->reason);
        return;
    }
    if (m->ok)
        snprintf(cap, sizeof cap,
                 "the dtype mix: %.3g s at the peaks, %s measured: HFU at the mix %s",
                 m->ideal_seconds, fci_fmt_seconds(seconds, t2, sizeof t2),
                 fci_fmt_pct(m->hfu, p, sizeof p));
    else
        snprintf(cap, sizeof cap, "the dtype mix: HFU at the mix n/a: %.200s", m->reason);
    fci_html_table_begin(h, "mix-table", cap);
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    for (int i = 0; i < m->n; i++)
        term_row(h, &m->t[i], m->t[0].share);
    fci_html_table_end(h);
}
