/* SPDX-License-Identifier: Apache-2.0 */
/* svg.h - a small inline-SVG chart writer for the HTML pages: a plot area
 * of n bands along x (iterations, ranks, waterfall steps), a left axis
 * from 0 and an optional right one, each with round ticks and grid lines;
 * bars (stacked or floating), whiskers, a line, marks and labels. Colors
 * come from CSS classes (html.c), so dark mode and print restyle it. */
#ifndef FC_SVG_H
#define FC_SVG_H

#include <stddef.h>

#include "html.h"

enum fc_svg_unit {
    FC_UNIT_PLAIN = 0, /* a count */
    FC_UNIT_SECONDS,   /* "0.25 s" */
    FC_UNIT_FLOP,      /* "2.5 G" (the axis title says FLOP) */
    FC_UNIT_PCT,       /* a fraction shown as "40%" */
};

typedef struct fc_svg_axis {
    double max;  /* top of the axis, a multiple of step; the bottom is 0 */
    double step; /* between ticks */
    int unit;
} fc_svg_axis;

typedef struct fc_svg {
    fc_html *h;
    double width, height;    /* viewBox */
    double x0, x1, y0, y1;   /* plot area: left, right, top, bottom */
    size_t n;                /* bands along x */
    fc_svg_axis left, right; /* right.max == 0: no right axis */
} fc_svg;

/* A round step (1, 2, 2.5 or 5 x 10^k) giving at most about 5 ticks from 0
 * to at least max (max <= 0 or NaN: 0..1). */
void fci_svg_axis_fit(fc_svg_axis *a, double max, int unit);
/* A tick's label: digits enough to tell ticks step apart; FLOP ticks share
 * the SI prefix of the axis top. */
void fci_svg_tick_label(const fc_svg_axis *a, double v, char *buf, size_t size);

/* Opens <svg> for n bands (the axes fitted by the caller before drawing);
 * label is its accessible name. height in px of a 960 px wide chart. */
void fci_svg_begin(fc_svg *s, fc_html *h, const char *label, size_t n, double height,
                   int right_axis);
void fci_svg_end(fc_svg *s);
/* Grid, ticks and titles of both axes, and the x baseline. */
void fci_svg_axes(fc_svg *s, const char *left_title, const char *right_title);
/* The label of band i (may hold one '\n' for a second line). */
typedef void (*fc_svg_label_fn)(void *ctx, size_t i, char *buf, size_t size);
/* Band labels under the axis, thinned to every k-th so none overlap, and
 * a title under them. */
void fci_svg_xlabels(fc_svg *s, fc_svg_label_fn fn, void *ctx, const char *title);

/* Bar in band i from `from` to `to` (data units of the left axis, or of
 * the right one when right); tip (may be NULL) becomes its tooltip. */
void fci_svg_bar(fc_svg *s, size_t i, double from, double to, int right, const char *cls,
                 const char *tip);
/* A min-max whisker in band i (left axis). */
void fci_svg_whisker(fc_svg *s, size_t i, double lo, double hi);
/* A line through the band centres; NaN values break it. Points get dots
 * when there are few. */
void fci_svg_line(fc_svg *s, const double *v, size_t n, int right, const char *cls,
                  const char *tip);
/* A dashed horizontal line at v; label (may be NULL) is its tooltip (the
 * legend names it: text on the plot would cross the data). */
void fci_svg_hline(fc_svg *s, double v, int right, const char *cls, const char *label);
/* A mark above band i with a tooltip: a triangle over its middle (the
 * straggler), or with after set, over its right edge with a line down to
 * the axis (a pause after an iteration). */
void fci_svg_mark(fc_svg *s, size_t i, int after, const char *cls, const char *tip);
/* A value written above (or inside the top of) band i's bar ending at v. */
void fci_svg_value(fc_svg *s, size_t i, double v, const char *text);

/* A horizontal bar filling fraction (0..1) of a table cell. */
void fci_svg_rowbar(fc_html *h, double fraction, const char *cls);

#endif
