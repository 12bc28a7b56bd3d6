/* SPDX-License-Identifier: Apache-2.0 */
/* render.h - what the verbs show: one renderer an output form (text/,
 * json/, html/ below this folder), each over one run (fc_report_view:
 * 'flopcount report') or a sum of runs (fc_merge: 'flopcount merge', which
 * adds its per-rank tables). A verb chooses the form and where it goes,
 * and nothing else; every key, phrase and table of a form is written in
 * that form's folder. render.c. */
#ifndef FC_RENDER_H
#define FC_RENDER_H

#include "html.h"

struct fc_report_view;
struct fc_merge;

enum fc_render_form { FC_RENDER_TEXT = 0, FC_RENDER_JSON, FC_RENDER_HTML };

typedef struct fc_render_in {
    const struct fc_report_view *one; /* one run, or ... */
    const struct fc_merge *sum;       /* ... a sum of runs (with its per-rank tables) */
    int all_ranks;                    /* text of a sum: list every rank, however many */
    fc_html *page;                    /* HTML: the page, opened (fc_html_open) before any
                                         output; committed when it is a file */
} fc_render_in;

/* Writes in as form: text and JSON to stdout, HTML into in->page. 0, or
 * -1 after one line "WHO: why" on stderr (a failed write of the page;
 * stdout's errors are the caller's to see with its status). */
int fc_render(int form, const fc_render_in *in, const char *who);

#endif
