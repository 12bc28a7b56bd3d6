/* SPDX-License-Identifier: Apache-2.0 */
/* svg.c - the chart writer of svg.h. Coordinates are viewBox pixels of a
 * 960-wide chart scaled to the page; text is 12 px, whose average glyph
 * width (about 0.6 em in the sans-serif fonts browsers pick) decides how
 * many band labels fit. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WIDTH 960.0
#define FONT_PX 12.0
#define GLYPH_PX (0.6 * FONT_PX)

void fci_svg_axis_fit(fc_svg_axis *a, double max, int unit)
{
    static const double nice[] = {1, 2, 2.5, 5, 10};
    a->unit = unit;
    if (!(max > 0) || !isfinite(max))
        max = unit == FC_UNIT_PCT ? 0.01 : 1;
    double raw = max / 5;
    double mag = pow(10, floor(log10(raw)));
    double step = 10 * mag;
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if (nice[i] * mag >= raw * (1 - 1e-9)) {
            step = nice[i] * mag;
            break;
        }
    a->step = step;
    a->max = ceil(max / step - 1e-9) * step;
}

/* Decimals that tell multiples of step apart (2.5 needs one more). */
static int decimals(double step)
{
    int d = 0;
    while (d < 9 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d))
        d++;
    return d;
}

void fci_svg_tick_label(const fc_svg_axis *a, double v, char *buf, size_t size)
{
    static const char *const si[] = {"", "K", "M", "G", "T", "P", "E", "Z", "Y"};
    if (a->unit == FC_UNIT_SECONDS) {
        snprintf(buf, size, "%.*f s", decimals(a->step), v);
    } else if (a->unit == FC_UNIT_PCT) {
        snprintf(buf, size, "%.*f%%", decimals(a->step * 100), v * 100);
    } else if (a->unit == FC_UNIT_FLOP) {
        int p = 0;
        double scale = 1;
        while (a->max / scale >= 1000 && p < 8) {
            scale *= 1000;
            p++;
        }
        if (v == 0)
            snprintf(buf, size, "0");
        else
            snprintf(buf, size, "%.*f%s%s", decimals(a->step / scale), v / scale, p ? " " : "",
                     si[p]);
    } else {
        snprintf(buf, size, "%.*f", decimals(a->step), v);
    }
}

static double ypos(const fc_svg *s, double v, int right)
{
    const fc_svg_axis *a = right ? &s->right : &s->left;
    double f = a->max > 0 ? v / a->max : 0;
    if (f < 0)
        f = 0;
    if (f > 1.05)
        f = 1.05; /* a value past the axis (should not happen) stays near the plot */
    return s->y1 - f * (s->y1 - s->y0);
}

static double band_w(const fc_svg *s)
{
    return (s->x1 - s->x0) / (double)(s->n ? s->n : 1);
}

static double band_x(const fc_svg *s, size_t i)
{
    return s->x0 + band_w(s) * (double)i;
}

static void tip(fc_html *h, const char *t)
{
    if (t) {
        fci_html_raw(h, "<title>");
        fci_html_esc(h, t);
        fci_html_raw(h, "</title>");
    }
}

void fci_svg_begin(fc_svg *s, fc_html *h, const char *label, size_t n, double height,
                   int right_axis)
{
    s->h = h;
    s->width = WIDTH;
    s->height = height;
    s->n = n;
    s->x0 = 76;
    s->x1 = WIDTH - (right_axis ? 76 : 16);
    s->y0 = 14;
    s->y1 = height - 52;
    if (!right_axis)
        s->right.max = 0;
    fci_html_rawf(h, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
                  s->width, s->height);
    fci_html_esc(h, label);
    fci_html_raw(h, "\" xmlns=\"http://www.w3.org/2000/svg\">");
    tip(h, label);
    fci_html_raw(h, "\n");
}

void fci_svg_end(fc_svg *s)
{
    fci_html_raw(s->h, "</svg>\n");
}

static void axis_ticks(fc_svg *s, int right)
{
    const fc_svg_axis *a = right ? &s->right : &s->left;
    char lbl[48];
    size_t ticks = (size_t)llround(a->max / a->step);
    for (size_t t = 0; t <= ticks; t++) {
        double v = a->step * (double)t, y = ypos(s, v, right);
        if (!right)
            fci_html_rawf(s->h,
                          "<line class=\"gr\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                          s->x0, s->x1, y, y);
        fci_svg_tick_label(a, v, lbl, sizeof lbl);
        fci_html_rawf(s->h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
                      right ? s->x1 + 6 : s->x0 - 6, y + 4, right ? "start" : "end");
        fci_html_esc(s->h, lbl);
        fci_html_raw(s->h, "</text>\n");
    }
}

static void axis_title(fc_svg *s, const char *title, int right)
{
    if (title == NULL)
        return;
    double x = right ? s->width - 10 : 14, y = (s->y0 + s->y1) / 2;
    fci_html_rawf(s->h,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                  "transform=\"rotate(%d %.1f %.1f)\">",
                  x, y, right ? 90 : -90, x, y);
    fci_html_esc(s->h, title);
    fci_html_raw(s->h, "</text>\n");
}

void fci_svg_axes(fc_svg *s, const char *left_title, const char *right_title)
{
    axis_ticks(s, 0);
    if (s->right.max > 0)
        axis_ticks(s, 1);
    axis_title(s, left_title, 0);
    if (s->right.max > 0)
        axis_title(s, right_title, 1);
    fci_html_rawf(s->h, "<line class=\"ax\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                  s->x0, s->x1, s->y1, s->y1);
}

/* Width of a label's longer line, in viewBox px. */
static double label_px(const char *l)
{
    const char *nl = strchr(l, '\n');
    size_t a = nl ? (size_t)(nl - l) : strlen(l), b = nl ? strlen(nl + 1) : 0;
    return (double)(a > b ? a : b) * GLYPH_PX;
}

void fci_svg_xlabels(fc_svg *s, fc_svg_label_fn fn, void *ctx, const char *title)
{
    char l[128];
    double widest = 0;
    for (size_t i = 0; i < s->n; i++) {
        fn(ctx, i, l, sizeof l);
        double w = label_px(l);
        widest = w > widest ? w : widest;
    }
    size_t every = 1;
    while (every < s->n && band_w(s) * (double)every < widest + 10)
        every++;
    for (size_t i = 0; i < s->n; i += every) {
        fn(ctx, i, l, sizeof l);
        double x = band_x(s, i) + band_w(s) / 2;
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        fci_html_rawf(s->h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, s->y1 + 16);
        fci_html_esc(s->h, l);
        if (nl) {
            fci_html_rawf(s->h, "<tspan x=\"%.1f\" dy=\"14\">", x);
            fci_html_esc(s->h, nl + 1);
            fci_html_raw(s->h, "</tspan>");
        }
        fci_html_raw(s->h, "</text>\n");
    }
    if (title) {
        fci_html_rawf(s->h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                      (s->x0 + s->x1) / 2, s->height - 6);
        fci_html_esc(s->h, title);
        fci_html_raw(s->h, "</text>\n");
    }
}

void fci_svg_bar(fc_svg *s, size_t i, double from, double to, int right, const char *cls,
                 const char *t)
{
    double bw = band_w(s);
    double pad = bw >= 4 ? bw * 0.15 : 0; /* thin bands touch: a gap would hide them */
    double ya = ypos(s, from, right), yb = ypos(s, to, right);
    double top = ya < yb ? ya : yb, hgt = fabs(ya - yb);
    fci_html_rawf(s->h, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">",
                  cls, band_x(s, i) + pad, top, bw - 2 * pad, hgt);
    tip(s->h, t);
    fci_html_raw(s->h, "</rect>\n");
}

void fci_svg_whisker(fc_svg *s, size_t i, double lo, double hi)
{
    double x = band_x(s, i) + band_w(s) / 2;
    fci_html_rawf(s->h, "<line class=\"wk\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>\n", x,
                  x, ypos(s, lo, 0), ypos(s, hi, 0));
}

void fci_svg_line(fc_svg *s, const double *v, size_t n, int right, const char *cls, const char *t)
{
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i])) {
            if (open)
                fci_html_raw(s->h, "\"/>\n");
            open = 0;
            continue;
        }
        double x = band_x(s, i) + band_w(s) / 2, y = ypos(s, v[i], right);
        if (!open)
            fci_html_rawf(s->h, "<polyline class=\"ln %s\" points=\"", cls);
        fci_html_rawf(s->h, "%s%.2f,%.2f", open ? " " : "", x, y);
        open = 1;
    }
    if (open)
        fci_html_raw(s->h, "\"/>\n");
    if (n > 60)
        return;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            fci_html_rawf(s->h, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\">", cls,
                          band_x(s, i) + band_w(s) / 2, ypos(s, v[i], right));
            tip(s->h, t);
            fci_html_raw(s->h, "</circle>\n");
        }
}

void fci_svg_hline(fc_svg *s, double v, int right, const char *cls, const char *label)
{
    double y = ypos(s, v, right);
    fci_html_rawf(s->h, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\">", cls,
                  s->x0, s->x1, y, y);
    tip(s->h, label);
    fci_html_raw(s->h, "</line>\n");
}

void fci_svg_mark(fc_svg *s, size_t i, int after, const char *cls, const char *t)
{
    double x = band_x(s, i) + (after ? band_w(s) : band_w(s) / 2), y = s->y0;
    fci_html_rawf(s->h, "<g class=\"%s\">", cls);
    if (after)
        fci_html_rawf(s->h, "<line class=\"mk\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>",
                      x, x, y, s->y1);
    fci_html_rawf(s->h, "<path d=\"M%.2f %.2fl-6 -9h12z\"/>", x, y);
    tip(s->h, t);
    fci_html_raw(s->h, "</g>\n");
}

void fci_svg_value(fc_svg *s, size_t i, double v, const char *text)
{
    double y = ypos(s, v, 0) - 5;
    if (y < s->y0 + 8)
        y = s->y0 + 8;
    fci_html_rawf(s->h, "<text class=\"vl\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
                  band_x(s, i) + band_w(s) / 2, y);
    fci_html_esc(s->h, text);
    fci_html_raw(s->h, "</text>\n");
}

void fci_svg_rowbar(fc_html *h, double fraction, const char *cls)
{
    if (!(fraction > 0))
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    fci_html_rawf(h,
                  "<svg class=\"rowbar\" viewBox=\"0 0 100 10\" preserveAspectRatio=\"none\" "
                  "aria-hidden=\"true\" xmlns=\"http://www.w3.org/2000/svg\">"
                  "<rect class=\"bg\" width=\"100\" height=\"10\"/>"
                  "<rect class=\"%s\" width=\"%.2f\" height=\"10\"/></svg>",
                  cls, fraction * 100);
}
