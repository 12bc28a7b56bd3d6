/* SPDX-License-Identifier: Apache-2.0 */
/* html.c - escaping, page structure, tables and the output file of the
 * HTML pages (html.h). The CSS is inline; colors are variables redefined
 * for dark mode, and the print rules drop backgrounds and keep sections
 * on one page where they fit. */
#include "html.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FMT_MAX 4096

static const char css[] =
    /* colors: series (time, FLOPs, phases), highlight, warm-up, pauses, waterfall;
     * the dark set on screens only: paper gets the light one */
    ":root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;"
    "--card:#f6f8fa;--grid:#e3e8ee;"
    "--c-time:#4a78b0;--c-flop:#c2410c;--c-fwd:#4a78b0;--c-bwd:#e08a1e;--c-rc:#3f8f3a;"
    "--c-other:#8c8c8c;--c-hi:#c8283c;--c-warm:#a9bdd6;--c-eval:#7a4fb5;"
    "--c-up:#0f8a8a;--c-down:#c8283c;--c-total:#4a78b0;--c-formula:#7d8590;--c-bar:#4a78b0;"
    "--c-odd:#0f8a8a}\n"
    "@media screen and (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;"
    "--muted:#a4adb8;--line:#3d444d;--card:#171d24;--grid:#2b323b;"
    "--c-time:#6ea6e8;--c-flop:#ff9a5c;--c-fwd:#6ea6e8;--c-bwd:#f2b04a;--c-rc:#6fd06a;"
    "--c-other:#a8a8a8;--c-hi:#ff6b7d;--c-warm:#52709a;--c-eval:#b890f0;"
    "--c-up:#3cc8c8;--c-down:#ff6b7d;--c-total:#6ea6e8;--c-formula:#8b949e;--c-bar:#6ea6e8;"
    "--c-odd:#3cc8c8}}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    "main{max-width:1080px;margin:0 auto;padding:20px 24px 48px}\n"
    "header h1{font-size:1.5em;margin:0 0 4px}\n"
    "header p{margin:0;color:var(--muted);overflow-wrap:anywhere}\n"
    "section{margin-top:28px;border-top:1px solid var(--line);padding-top:8px}\n"
    "h2{font-size:1.2em;margin:6px 0 10px}\n"
    "p{margin:6px 0}\n"
    ".note{color:var(--muted);font-size:.92em}\n"
    ".warn{color:var(--c-hi);font-weight:600}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px;"
    "margin:14px 0}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:8px 12px}\n"
    ".card .lbl{font-size:.8em;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}\n"
    ".card .val{font-size:1.55em;font-weight:650;font-variant-numeric:tabular-nums;"
    "overflow-wrap:anywhere}\n"
    ".card .val.long{font-size:1em;font-weight:600;padding:4px 0}\n"
    ".card .dtl{font-size:.8em;color:var(--muted);overflow-wrap:anywhere}\n"
    ".tw{overflow-x:auto;margin:8px 0}\n"
    "table{border-collapse:collapse;font-size:.88em;min-width:50%}\n"
    "caption{text-align:left;color:var(--muted);padding:2px 0 4px;caption-side:top}\n"
    "th,td{padding:3px 10px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}\n"
    "th{font-weight:600;background:var(--card)}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.w{overflow-wrap:anywhere;min-width:14em}\n"
    "tr.total td{font-weight:650}\n"
    "tr.hi td{color:var(--c-hi);font-weight:600}\n"
    "tr.muted td{color:var(--muted)}\n"
    "code{font-size:.92em;overflow-wrap:anywhere}\n"
    "td.bar{width:110px;min-width:80px}\n"
    "#shape-table,#iter-table{font-size:.85em}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:.85em;color:var(--muted);"
    "margin:4px 0}\n"
    ".sw{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;"
    "vertical-align:-1px}\n"
    "svg.chart{display:block;width:100%;height:auto;margin:4px 0;font-size:12px}\n"
    "svg text{fill:var(--muted)}\n"
    "svg text.vl{fill:var(--fg);paint-order:stroke;stroke:var(--bg);stroke-width:3px;"
    "stroke-linejoin:round}\n"
    "svg .ax{stroke:var(--muted);stroke-width:1}\n"
    "svg .gr{stroke:var(--grid);stroke-width:1}\n"
    "svg .ln{fill:none;stroke-width:2}\n"
    "svg .wk{stroke:var(--fg);stroke-width:1;opacity:.55}\n"
    "svg .med{stroke:var(--fg);stroke-width:1;stroke-dasharray:5 4;opacity:.7}\n"
    "svg .mk{stroke:var(--c-eval);stroke-width:2}\n"
    ".s-time{fill:var(--c-time);background:var(--c-time)}\n"
    ".s-flop{stroke:var(--c-flop);fill:var(--c-flop);background:var(--c-flop)}\n"
    "svg .ln.s-flop{fill:none}\n"
    ".s-fwd{fill:var(--c-fwd);background:var(--c-fwd)}\n"
    ".s-bwd{fill:var(--c-bwd);background:var(--c-bwd)}\n"
    ".s-rc{fill:var(--c-rc);background:var(--c-rc)}\n"
    ".s-other{fill:var(--c-other);background:var(--c-other)}\n"
    ".s-hi{fill:var(--c-hi);background:var(--c-hi)}\n"
    ".s-odd{fill:var(--c-odd);background:var(--c-odd)}\n"
    ".s-warm{fill:var(--c-warm);background:var(--c-warm)}\n"
    ".s-eval{fill:var(--c-eval);stroke:var(--c-eval);background:var(--c-eval)}\n"
    ".s-up{fill:var(--c-up);background:var(--c-up)}\n"
    ".s-down{fill:var(--c-down);background:var(--c-down)}\n"
    ".s-total{fill:var(--c-total);background:var(--c-total)}\n"
    ".s-formula{fill:var(--c-formula);background:var(--c-formula)}\n"
    ".s-bar{fill:var(--c-bar);background:var(--c-bar)}\n"
    ".sw.s-med{width:16px;height:0;border-top:2px dashed var(--fg);border-radius:0;"
    "vertical-align:4px;opacity:.7}\n"
    "svg.rowbar{display:block;width:100%;height:12px}\n"
    "svg.rowbar .bg{fill:var(--grid)}\n"
    "footer{margin-top:32px;color:var(--muted);font-size:.8em}\n"
    "@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--card:#fff;--line:#bbb;--grid:#ddd}"
    "body{font-size:11pt;-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    "main{max-width:none;padding:0}svg.chart,.cards,.legend{break-inside:avoid}"
    ".tw{overflow:visible}table{break-inside:auto}tr{break-inside:avoid}"
    "h2{break-after:avoid}}\n";

static void put(fc_html *h, const char *s, size_t n)
{
    if (h->err == 0 && n > 0 && fwrite(s, 1, n, h->f) != n)
        h->err = errno ? errno : EIO;
}

void fci_html_raw(fc_html *h, const char *s)
{
    put(h, s, strlen(s));
}

void fci_html_esc(fc_html *h, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        const char *rep = NULL;
        switch (*s) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            /* control characters other than tab and newline are not valid in HTML text */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                rep = "\xef\xbf\xbd"; /* U+FFFD */
        }
        if (rep) {
            put(h, run, (size_t)(s - run));
            fci_html_raw(h, rep);
            run = s + 1;
        }
    }
    put(h, run, (size_t)(s - run));
}

void fci_html_escf(fc_html *h, const char *fmt, ...)
{
    char buf[FMT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fci_html_esc(h, buf);
}

void fci_html_rawf(fc_html *h, const char *fmt, ...)
{
    char buf[FMT_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(h, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void fci_html_init_stream(fc_html *h, FILE *f)
{
    memset(h, 0, sizeof *h);
    h->f = f;
}

int fc_html_open(fc_html *h, const char *path, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    struct stat st;
    if (path[0] == '\0' || strlen(path) >= sizeof h->path) {
        snprintf(err, errlen, "--html needs a file name");
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a directory", path);
        return -1;
    }
    snprintf(h->path, sizeof h->path, "%s", path);
    snprintf(h->tmp, sizeof h->tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(h->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || (h->f = fdopen(fd, "w")) == NULL) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(h->tmp);
        }
        return -1;
    }
    setvbuf(h->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

int fci_html_commit(fc_html *h, char *err, size_t errlen)
{
    if (h->err == 0 && fflush(h->f) != 0)
        h->err = errno;
    if (fclose(h->f) != 0 && h->err == 0)
        h->err = errno;
    h->f = NULL;
    if (h->err == 0 && rename(h->tmp, h->path) != 0)
        h->err = errno;
    if (h->err != 0) {
        snprintf(err, errlen, "writing %s failed: %s", h->path, strerror(h->err));
        unlink(h->tmp);
        return -1;
    }
    return 0;
}

void fci_html_discard(fc_html *h)
{
    if (h->f != NULL)
        fclose(h->f);
    h->f = NULL;
    if (h->tmp[0])
        unlink(h->tmp);
}

void fci_html_page_begin(fc_html *h, const char *title, const char *subtitle)
{
    fci_html_raw(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
    fci_html_esc(h, title);
    fci_html_raw(h, "</title>\n<style>\n");
    fci_html_raw(h, css);
    fci_html_raw(h, "</style>\n</head>\n<body>\n<main>\n<header>\n<h1>");
    fci_html_esc(h, title);
    fci_html_raw(h, "</h1>\n<p>");
    fci_html_esc(h, subtitle);
    fci_html_raw(h, "</p>\n</header>\n");
}

void fci_html_page_end(fc_html *h)
{
    fci_html_raw(h, "<footer>Written by flopcount. Every chart's figures are in the table "
                    "under it; exact integers are FLOP counts.</footer>\n</main>\n</body>\n"
                    "</html>\n");
}

void fci_html_section_begin(fc_html *h, const char *id, const char *title)
{
    fci_html_raw(h, "<section id=\"");
    fci_html_esc(h, id);
    fci_html_raw(h, "\">\n<h2>");
    fci_html_esc(h, title);
    fci_html_raw(h, "</h2>\n");
}

void fci_html_section_end(fc_html *h)
{
    fci_html_raw(h, "</section>\n");
}

void fci_html_para(fc_html *h, const char *cls, const char *text)
{
    fci_html_raw(h, "<p");
    if (cls) {
        fci_html_raw(h, " class=\"");
        fci_html_esc(h, cls);
        fci_html_raw(h, "\"");
    }
    fci_html_raw(h, ">");
    fci_html_esc(h, text);
    fci_html_raw(h, "</p>\n");
}

static void key_attr(fc_html *h, const char *key)
{
    if (key) {
        fci_html_raw(h, " data-k=\"");
        fci_html_esc(h, key);
        fci_html_raw(h, "\"");
    }
}

void fci_html_cards_begin(fc_html *h)
{
    fci_html_raw(h, "<div class=\"cards\">\n");
}

void fci_html_card(fc_html *h, const char *key, const char *label, const char *value,
                   const char *detail)
{
    fci_html_raw(h, "<div class=\"card\"><div class=\"lbl\">");
    fci_html_esc(h, label);
    /* a phrase rather than a figure (a peak's source) gets the smaller type */
    fci_html_raw(h,
                 strlen(value) > 14 ? "</div><div class=\"val long\"" : "</div><div class=\"val\"");
    key_attr(h, key);
    fci_html_raw(h, ">");
    fci_html_esc(h, value);
    fci_html_raw(h, "</div><div class=\"dtl\">");
    fci_html_esc(h, detail ? detail : "");
    fci_html_raw(h, "</div></div>\n");
}

void fci_html_cards_end(fc_html *h)
{
    fci_html_raw(h, "</div>\n");
}

void fci_html_table_begin(fc_html *h, const char *id, const char *caption)
{
    fci_html_raw(h, "<div class=\"tw\"><table");
    if (id) {
        fci_html_raw(h, " id=\"");
        fci_html_esc(h, id);
        fci_html_raw(h, "\"");
    }
    fci_html_raw(h, ">");
    if (caption) {
        fci_html_raw(h, "<caption>");
        fci_html_esc(h, caption);
        fci_html_raw(h, "</caption>");
    }
    fci_html_raw(h, "\n");
}

void fci_html_table_end(fc_html *h)
{
    fci_html_raw(h, h->in_body ? "</tbody></table></div>\n" : "</table></div>\n");
    h->in_body = 0;
}

void fci_html_row_begin(fc_html *h, const char *cls)
{
    if (cls) {
        fci_html_raw(h, "<tr class=\"");
        fci_html_esc(h, cls);
        fci_html_raw(h, "\">");
    } else {
        fci_html_raw(h, "<tr>");
    }
}

void fci_html_row_end(fc_html *h)
{
    fci_html_raw(h, "</tr>\n");
}

static void cell(fc_html *h, const char *tag, const char *key, const char *text, int num)
{
    fci_html_rawf(h, "<%s%s", tag, num ? " class=\"n\"" : "");
    key_attr(h, key);
    fci_html_raw(h, ">");
    fci_html_esc(h, text);
    fci_html_rawf(h, "</%s>", tag);
}

void fci_html_th(fc_html *h, const char *text, int num)
{
    cell(h, "th", NULL, text, num);
}

void fci_html_td(fc_html *h, const char *text, int num)
{
    cell(h, "td", NULL, text, num);
}

void fci_html_td_key(fc_html *h, const char *key, const char *text, int num)
{
    cell(h, "td", key, text, num);
}

void fci_html_fig_row(fc_html *h, const char *label, const char *key, const char *value,
                      const char *meaning)
{
    fci_html_row_begin(h, NULL);
    fci_html_td(h, label, 0);
    fci_html_td_key(h, key, value, 1);
    fci_html_raw(h, "<td class=\"w\">");
    fci_html_esc(h, meaning);
    fci_html_raw(h, "</td>");
    fci_html_row_end(h);
}

void fci_html_head_row(fc_html *h, const char *const *names, size_t n)
{
    fci_html_raw(h, "<thead>");
    fci_html_row_begin(h, NULL);
    for (size_t i = 0; i < n; i++)
        fci_html_th(h, names[i][0] == '#' ? names[i] + 1 : names[i], names[i][0] == '#');
    fci_html_raw(h, "</tr></thead>\n<tbody>");
    h->in_body = 1;
}

void fci_html_legend(fc_html *h, const char *const *classes, const char *const *labels, size_t n)
{
    fci_html_raw(h, "<div class=\"legend\">");
    for (size_t i = 0; i < n; i++) {
        fci_html_raw(h, "<span><span class=\"sw ");
        fci_html_esc(h, classes[i]);
        fci_html_raw(h, "\"></span>");
        fci_html_esc(h, labels[i]);
        fci_html_raw(h, "</span>");
    }
    fci_html_raw(h, "</div>\n");
}
