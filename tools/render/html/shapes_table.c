/* SPDX-License-Identifier: Apache-2.0 */
/* shapes_table.c - the "shapes" section both HTML pages share: the GEMM
 * shapes that carry the most FLOPs, one row each with a bar, in the words
 * and number formats of the text report's "top shapes" lines. */
#include <math.h>
#include <stdio.h>

#include "pages.h"
#include "render_fmt.h"
#include "svg.h"

/* Rows shown (the text report prints 5; the page has room for more). */
#define SHAPE_ROWS 10

static void shape_row(fc_html *h, const fc_report_shape *s, double all, double top)
{
    char b[160], e[FC_U128_DIGITS], pct[16];
    fci_html_row_begin(h, NULL);
    fci_html_td(h, s->api, 0);
    if (s->overflow)
        snprintf(b, sizeof b, "(shapes beyond the table)");
    else /* as the text report's "top shapes" line has it */
        snprintf(b, sizeof b, "%c%c m=%lld n=%lld k=%lld batch=%lld", s->transa, s->transb,
                 (long long)s->m, (long long)s->n, (long long)s->k, (long long)s->batch);
    fci_html_td(h, b, 0);
    fci_html_td(h, s->dtype, 0);
    snprintf(b, sizeof b, "%llu", (unsigned long long)s->calls);
    fci_html_td(h, b, 1);
    fci_html_td(h, fci_fmt_flop(s->flops, b, sizeof b), 1);
    fci_html_td(h, fc_u128_to_str(s->flops, e), 1);
    double f = fc_u128_to_double(s->flops);
    fci_html_td(h, fci_fmt_pct(all > 0 ? f / all : NAN, pct, sizeof pct), 1);
    fci_html_raw(h, "<td class=\"bar\">");
    fci_svg_rowbar(h, top > 0 ? f / top : 0, "s-bar");
    fci_html_raw(h, "</td>");
    fci_html_row_end(h);
}

void fci_html_shapes(fc_html *h, const fc_report_shape *shapes, size_t n, fc_u128 total)
{
    static const char *const head[] = {"API",    "shape",  "dtype",  "#calls",
                                       "#FLOPs", "#exact", "#share", ""};
    fci_html_section_begin(h, "shapes", "Top GEMM shapes");
    if (n == 0) {
        fci_html_para(h, "note", "The report lists no shapes.");
        fci_html_section_end(h);
        return;
    }
    char caption[160];
    size_t rows = n < SHAPE_ROWS ? n : SHAPE_ROWS;
    snprintf(caption, sizeof caption,
             "%zu of %zu shapes, most FLOPs first; share of all GEMM FLOPs; bars relative to "
             "the largest",
             rows, n);
    fci_html_table_begin(h, "shape-table", caption);
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    double all = fc_u128_to_double(total), top = fc_u128_to_double(shapes[0].flops);
    for (size_t i = 0; i < rows; i++)
        shape_row(h, &shapes[i], all, top);
    fci_html_table_end(h);
    fci_html_para(h, "note",
                  "The report has no kernel times per shape (the shim times iterations, not "
                  "kernels), so achieved TFLOP/s per shape is not shown.");
    fci_html_section_end(h);
}
