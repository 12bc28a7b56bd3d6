/* SPDX-License-Identifier: Apache-2.0 */
/* render_forms.h - the entry of each form (internal to tools/render: the
 * verbs go through fc_render, render.h). One run (fc_report_view) or a sum
 * of runs (fc_merge) for each form. */
#ifndef FC_RENDER_FORMS_H
#define FC_RENDER_FORMS_H

#include "html.h"

struct fc_report_view;
struct fc_merge;

/* text/text_report.c, text/text_merge.c: to stdout. */
void fci_text_report(const struct fc_report_view *v);
void fci_text_merge(const struct fc_merge *m, int all_ranks);
/* json/json_report.c, json/json_merge.c: to stdout, a newline after; -1 on
 * a write error. */
int fci_json_report(const struct fc_report_view *v);
int fci_json_merge(const struct fc_merge *m);
/* A sum's rank whose FLOPs are the largest group's (text/text_merge.c;
 * the rank tables of text and page). */
int fci_in_largest_group(const struct fc_merge *m, long rank);
/* html/report_page.c, html/merge_page.c: -1 out of memory. */
int fci_html_report_page(fc_html *h, const struct fc_report_view *v);
int fci_html_merge_page(fc_html *h, const struct fc_merge *m);

#endif
