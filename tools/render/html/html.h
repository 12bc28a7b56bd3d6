/* SPDX-License-Identifier: Apache-2.0 */
/* html.h - the writer of the self-contained HTML pages of 'flopcount report
 * --html' and 'flopcount merge --html': escaping, the page (inline CSS for
 * light and dark mode and for print), sections, headline figures, tables,
 * and the output file (written beside its path and renamed when complete).
 * No script and nothing fetched: the file opens offline. */
#ifndef FC_HTML_H
#define FC_HTML_H

#include <stdio.h>

typedef struct fc_html {
    FILE *f;
    int err;         /* errno of the first failed write; 0 while fine */
    int in_body;     /* a table's <tbody> is open (after its head row) */
    char path[4096]; /* where the page goes ("" for a stream from a test) */
    char tmp[4160];  /* what is written until the page is complete */
} fc_html;

/* Creates the output beside path (PATH.tmp.PID). Returns 0, or -1 with a
 * one-line reason in err ("cannot write PATH: Permission denied"). */
int fc_html_open(fc_html *h, const char *path, char *err, size_t errlen);
/* Flushes, closes and renames the page into place. Returns 0, or -1 with a
 * reason in err (the partial file is removed). */
int fci_html_commit(fc_html *h, char *err, size_t errlen);
/* Closes and removes an unfinished page. */
void fci_html_discard(fc_html *h);
/* Writes to a stream the caller owns (tests: open_memstream). */
void fci_html_init_stream(fc_html *h, FILE *f);

/* Text, escaped for element content and attribute values: & < > " '. */
void fci_html_esc(fc_html *h, const char *s);
/* printf, then escaped. */
void fci_html_escf(fc_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Markup written as is: only literals and numbers the caller formats. */
void fci_html_raw(fc_html *h, const char *s);
void fci_html_rawf(fc_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <!DOCTYPE html> ... <body><header><h1>title</h1>; subtitle escaped. */
void fci_html_page_begin(fc_html *h, const char *title, const char *subtitle);
void fci_html_page_end(fc_html *h);
/* <section id="ID"><h2>title</h2> ... </section>. */
void fci_html_section_begin(fc_html *h, const char *id, const char *title);
void fci_html_section_end(fc_html *h);
/* <p class="CLS">text</p>, text escaped; cls "note" (muted), "warn". */
void fci_html_para(fc_html *h, const char *cls, const char *text);

/* Headline figures: a row of cards, each a label, a value and a detail.
 * key, when not NULL, becomes data-k="key" on the value (the field of the
 * JSON output that holds the same figure; the browser test reads it). */
void fci_html_cards_begin(fc_html *h);
void fci_html_card(fc_html *h, const char *key, const char *label, const char *value,
                   const char *detail);
void fci_html_cards_end(fc_html *h);

/* Tables: id (may be NULL) names the table for readers and tests. Cells
 * are escaped; num right-aligns (figures); key as for cards. */
void fci_html_table_begin(fc_html *h, const char *id, const char *caption);
void fci_html_table_end(fc_html *h);
void fci_html_row_begin(fc_html *h, const char *cls);
void fci_html_row_end(fc_html *h);
void fci_html_th(fc_html *h, const char *text, int num);
void fci_html_td(fc_html *h, const char *text, int num);
void fci_html_td_key(fc_html *h, const char *key, const char *text, int num);
/* One row of a figures table: label, the figure (a keyed, right-aligned
 * cell), what it means (a wide cell). */
void fci_html_fig_row(fc_html *h, const char *label, const char *key, const char *value,
                      const char *meaning);
/* The head of a table (every table has one, before its rows): a name
 * starting with '#' is a figure column (right-aligned; '#' not shown). */
void fci_html_head_row(fc_html *h, const char *const *names, size_t n);

/* A legend: a swatch of class "sw CLS" and an escaped label per item. */
void fci_html_legend(fc_html *h, const char *const *classes, const char *const *labels, size_t n);

#endif
