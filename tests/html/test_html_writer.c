/* SPDX-License-Identifier: Apache-2.0 */
/* test_html_writer.c - the HTML/SVG writer of 'report --html' and 'merge
 * --html': escaping of < & " > ' in every place a name or path lands, the
 * SVG geometry and axes worked out by hand, the output file (atomic, an
 * unwritable path refused), and a report page whose figures read exactly
 * as the text report prints them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "html.h"
#include "pages.h"
#include "render.h"
#include "report_view.h"
#include "svg.h"

/* A page written to memory; the text is NUL-terminated. */
typedef struct mem {
    char *text;
    size_t len;
    FILE *f;
    fc_html h;
} mem;

static void mem_open(mem *m)
{
    memset(m, 0, sizeof *m);
    m->f = open_memstream(&m->text, &m->len);
    assert_non_null(m->f);
    fci_html_init_stream(&m->h, m->f);
}

static char *mem_close(mem *m)
{
    assert_int_equal(m->h.err, 0);
    fclose(m->f);
    return m->text;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_escape(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    fci_html_esc(&m.h, "a<b&c\"d>e'f\x01g\th");
    char *t = mem_close(&m);
    /* each of the five becomes its entity; a control byte is U+FFFD; tab stays */
    assert_string_equal(t, "a&lt;b&amp;c&quot;d&gt;e&#39;f\xef\xbf\xbdg\th");
    free(t);
}

static void test_escape_in_structure(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    fci_html_page_begin(&m.h, "t<1>", "run/<x&y>\"'.json");
    fci_html_section_begin(&m.h, "s\"1", "A & B");
    fci_html_card(&m.h, "k\"<", "l<", "v&", "d>");
    fci_html_table_begin(&m.h, "t'", "c<");
    static const char *const head[] = {"#n<", "w&"};
    fci_html_head_row(&m.h, head, 2);
    fci_html_row_begin(&m.h, "r\"");
    fci_html_td_key(&m.h, "x'", "1<2", 1);
    fci_html_td(&m.h, "a&b", 0);
    fci_html_row_end(&m.h);
    fci_html_table_end(&m.h);
    static const char *const cls[] = {"s-time\""}, *const lbl[] = {"<lbl>"};
    fci_html_legend(&m.h, cls, lbl, 1);
    fc_svg s;
    fci_svg_axis_fit(&s.left, 1, FC_UNIT_PLAIN);
    fci_svg_begin(&s, &m.h, "chart \"<&>'", 1, 300, 0);
    fci_svg_bar(&s, 0, 0, 1, 0, "s-time", "tip <&>\"'");
    fci_svg_end(&s);
    fci_html_section_end(&m.h);
    fci_html_page_end(&m.h);
    char *t = mem_close(&m);
    assert_non_null(strstr(t, "<title>t&lt;1&gt;</title>"));
    assert_non_null(strstr(t, "<p>run/&lt;x&amp;y&gt;&quot;&#39;.json</p>"));
    assert_non_null(strstr(t, "<section id=\"s&quot;1\">"));
    assert_non_null(strstr(t, "<h2>A &amp; B</h2>"));
    assert_non_null(strstr(t, "data-k=\"k&quot;&lt;\">v&amp;</div>"));
    assert_non_null(strstr(t, "<table id=\"t&#39;\"><caption>c&lt;</caption>"));
    assert_non_null(strstr(t, "<th class=\"n\">n&lt;</th><th>w&amp;</th>"));
    assert_non_null(
        strstr(t, "<tr class=\"r&quot;\"><td class=\"n\" data-k=\"x&#39;\">1&lt;2</td>"));
    assert_non_null(strstr(t, "<span class=\"sw s-time&quot;\"></span>&lt;lbl&gt;"));
    assert_non_null(strstr(t, "aria-label=\"chart &quot;&lt;&amp;&gt;&#39;\""));
    assert_non_null(strstr(t, "<title>tip &lt;&amp;&gt;&quot;&#39;</title>"));
    /* nothing raw got through: the only '<' are tags we wrote */
    assert_null(strstr(t, "<x&"));
    assert_null(strstr(t, "<lbl>"));
    assert_int_equal(count(t, "<table"), count(t, "</table>"));
    assert_int_equal(count(t, "<tbody>"), count(t, "</tbody>"));
    free(t);
}

static void test_axis(void **state)
{
    (void)state;
    fc_svg_axis a;
    char l[32];
    /* 1.3 s: raw step 0.26, the first round step above it is 0.5, top 1.5 */
    fci_svg_axis_fit(&a, 1.3, FC_UNIT_SECONDS);
    assert_true(fabs(a.step - 0.5) < 1e-12 && fabs(a.max - 1.5) < 1e-12);
    fci_svg_tick_label(&a, 1.0, l, sizeof l);
    assert_string_equal(l, "1.0 s");
    /* 0.11 s: raw 0.022, step 0.025 (needs three decimals), top 0.125 */
    fci_svg_axis_fit(&a, 0.11, FC_UNIT_SECONDS);
    assert_true(fabs(a.step - 0.025) < 1e-12 && fabs(a.max - 0.125) < 1e-12);
    fci_svg_tick_label(&a, 0.075, l, sizeof l);
    assert_string_equal(l, "0.075 s");
    /* 2.94e9 FLOPs: raw 5.88e8, step 1e9, top 3e9, labelled in G */
    fci_svg_axis_fit(&a, 2.94e9, FC_UNIT_FLOP);
    assert_true(a.step == 1e9 && a.max == 3e9);
    fci_svg_tick_label(&a, 2e9, l, sizeof l);
    assert_string_equal(l, "2 G");
    /* 2^72 FLOPs = 4.72e21: step 1e21, top 5e21, in Z */
    fci_svg_axis_fit(&a, 4722366482869645213696.0, FC_UNIT_FLOP);
    fci_svg_tick_label(&a, 3e21, l, sizeof l);
    assert_string_equal(l, "3 Z");
    /* a fraction of 0.3: step 0.1 -> "30%" */
    fci_svg_axis_fit(&a, 0.3, FC_UNIT_PCT);
    fci_svg_tick_label(&a, 0.2, l, sizeof l);
    assert_string_equal(l, "20%");
    /* nothing to show: 0..1 */
    fci_svg_axis_fit(&a, NAN, FC_UNIT_PLAIN);
    assert_true(a.max == 1 && a.step == 0.2);
}

static void test_bar_geometry(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    fc_svg s;
    fci_svg_axis_fit(&s.left, 1.0, FC_UNIT_SECONDS); /* 0..1, step 0.2 */
    fci_svg_begin(&s, &m.h, "g", 2, 300, 0);
    fci_svg_bar(&s, 1, 0, 0.5, 0, "s-time", NULL);
    fci_svg_end(&s);
    char *t = mem_close(&m);
    /* plot x 76..944 (960 - 16, no right axis), 2 bands of 434 px, 15% padding
     * (65.1 px): band 1 starts at 510, the bar at 575.1, 303.8 wide. y 14..248
     * (300 - 52): 0.5 of 1.0 is 117 px up from 248 -> y 131, height 117. */
    assert_non_null(strstr(t, "<rect class=\"s-time\" x=\"575.10\" y=\"131.00\" width=\"303.80\" "
                              "height=\"117.00\">"));
    assert_non_null(strstr(t, "viewBox=\"0 0 960 300\""));
    free(t);
}

static void test_output_file(void **state)
{
    (void)state;
    fc_html h;
    char err[600], dir[] = "/tmp/fc_html_XXXXXX", path[256], tmp[300];
    assert_non_null(mkdtemp(dir));
    /* a missing directory and a directory as the name: refused with one reason */
    snprintf(path, sizeof path, "%s/no/such/dir/p.html", dir);
    assert_int_equal(fc_html_open(&h, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot write "));
    assert_non_null(strstr(err, "No such file or directory"));
    assert_int_equal(fc_html_open(&h, dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "it is a directory"));
    /* written beside the name, renamed when complete */
    snprintf(path, sizeof path, "%s/p.html", dir);
    assert_int_equal(fc_html_open(&h, path, err, sizeof err), 0);
    fci_html_raw(&h, "<p>x</p>\n");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    struct stat st;
    assert_int_equal(stat(tmp, &st), 0);
    assert_int_not_equal(stat(path, &st), 0);
    assert_int_equal(fci_html_commit(&h, err, sizeof err), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((int)st.st_size, 9);
    assert_int_not_equal(stat(tmp, &st), 0);
    /* a discarded page leaves nothing */
    snprintf(path, sizeof path, "%s/q.html", dir);
    assert_int_equal(fc_html_open(&h, path, err, sizeof err), 0);
    fci_html_discard(&h);
    assert_int_not_equal(stat(path, &st), 0);
    unlink(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A run's view worked out by hand: 4 iterations of the l=2 h=64 a=4 V=96
 * s=32 B=2 model (43,253,760 FLOPs each: forward 14,417,920, backward
 * 28,835,840), the first a 2.0 s warm-up, then 0.5 s each; iteration 3
 * starts 0.2 s after iteration 2 ends. Peak 0.1 TFLOP/s on 1 GPU:
 * HFU = 43253760 / (1e11 x 0.5) = 0.000865 -> "0.087%" (under 0.1%, two
 * significant digits). Totals 4 x 43253760 = 173015040 = "173.02 MFLOP". */
static fc_report_iter iters[4];
static fc_report_shape shape;

static void fill_view(fc_report_view *v)
{
    memset(v, 0, sizeof *v);
    static const double start[4] = {0, 2.0, 2.7, 3.2}, secs[4] = {2.0, 0.5, 0.5, 0.5};
    for (int i = 0; i < 4; i++)
        iters[i] = (fc_report_iter){.index = (uint64_t)i + 1, .start_seconds = start[i],
                                    .seconds = secs[i], .flops = 43253760,
                                    .forward_flops = 14417920, .backward_flops = 28835840,
                                    .calls = 40};
    fc_report *r = &v->rep;
    v->path = "runs/<a&b>\"q\"'s.json";
    static char command[] = "python train.py --tag '<x>' & echo \"done\"";
    r->command = command;
    snprintf(r->hostname, sizeof r->hostname, "host<1>&");
    snprintf(r->status, sizeof r->status, "complete");
    snprintf(r->launcher, sizeof r->launcher, "none");
    r->pid = 42;
    r->rank = r->world_size = -1;
    r->wall_seconds = 4.0;
    r->totals.gemm_calls = 160;
    r->totals.gemm_flops = 173015040;
    r->has_iterations = 1;
    r->iterations.count = 4;
    snprintf(r->iterations.detected_by, sizeof r->iterations.detected_by, "marker");
    r->iterations.median_seconds = 0.5;
    r->iterations.list = iters;
    r->iterations.n_list = 4;
    shape = (fc_report_shape){"sgemm_<&>", 0,      64,     192, 64, 1, 'T',
                              'N',         "fp32", "fp32", "",  16, 0, 25165824};
    r->shapes = &shape;
    r->n_shapes = 1;
    v->has_iterations = 1;
    v->n_steady = 3;
    v->file_flops = v->job_flops = 43253760;
    v->scale = 1;
    v->seconds = 0.5;
    v->gpus = 1;
    v->peak = 1e11;
    snprintf(v->peak_desc, sizeof v->peak_desc, "given: 0.1 TFLOP/s");
    v->hfu = v->mfu = 43253760.0 / (1e11 * 0.5);
    v->formula_mfu = v->formula_hfu = NAN;
}

/* What the text renderer writes of one run, captured. */
static char *text_of(const fc_report_view *v)
{
    fflush(stdout);
    int saved = dup(1);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    dup2(fileno(tmp), 1);
    fc_render_in in = {.one = v};
    assert_int_equal(fc_render(FC_RENDER_TEXT, &in, "test"), 0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long n = ftell(tmp);
    char *t = calloc(1, (size_t)n + 1);
    rewind(tmp);
    assert_int_equal(fread(t, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return t;
}

static void test_report_page_figures(void **state)
{
    (void)state;
    static fc_report_view v;
    fill_view(&v);
    char *text = text_of(&v);
    mem m;
    mem_open(&m);
    fc_render_in in = {.one = &v, .page = &m.h}; /* a stream: written, not committed */
    assert_int_equal(fc_render(FC_RENDER_HTML, &in, "test"), 0);
    char *t = mem_close(&m);
    /* the text report's own lines, worked out above */
    assert_non_null(strstr(text, "  HFU            0.087%   all counted FLOPs"));
    assert_non_null(strstr(text, "  time           0.5000 s (median)"));
    assert_non_null(strstr(text, "173015040 (173.02 MFLOP) in 160 calls"));
    assert_non_null(strstr(text, "one process on host<1>&, pid 42; status complete"));
    /* ... and the same strings on the page, in the cells named for the JSON fields */
    assert_non_null(strstr(t, "data-k=\"measured.hfu\">0.087%<"));
    assert_non_null(strstr(t, "data-k=\"measured.mfu\">0.087%<"));
    assert_non_null(strstr(t, "data-k=\"measured.seconds_per_iteration\">0.5000 s<"));
    assert_non_null(strstr(t, "data-k=\"measured.flops_per_iteration\">43253760<"));
    assert_non_null(strstr(t, "data-k=\"totals.gemm_flops\">173015040<"));
    assert_non_null(strstr(t, "173.02 MFLOP in 160 calls"));
    assert_non_null(strstr(t, "data-k=\"measured.flops_per_iteration~si\">43.25 MFLOP<"));
    /* escaped where the names land: subtitle, command, shape's API */
    assert_non_null(strstr(t, "runs/&lt;a&amp;b&gt;&quot;q&quot;&#39;s.json: one process on "
                              "host&lt;1&gt;&amp;, pid 42"));
    assert_non_null(strstr(t, "python train.py --tag &#39;&lt;x&gt;&#39; &amp; echo "
                              "&quot;done&quot;"));
    assert_non_null(strstr(t, "<td>sgemm_&lt;&amp;&gt;</td><td>TN m=64 n=192 k=64 batch=1</td>"));
    assert_null(strstr(t, "<a&b>"));
    assert_null(strstr(t, "<x>"));
    /* iteration rows: 2.0 s warm-up first (1 s and more: three decimals, as the
     * text); 2.7 - 2.0 - 0.5 = 0.2 s after iteration 2 */
    assert_non_null(strstr(t, "<td class=\"n\">2.000 s</td>"));
    assert_non_null(strstr(t, "warm-up (not in the median)"));
    assert_non_null(strstr(t, "then 0.2000 s in no iteration"));
    /* the shape: 2*64*192*64*16 calls = 25165824 = 14.5% of 173015040 ("25.17 MFLOP") */
    assert_non_null(strstr(t, "<td class=\"n\">25.17 MFLOP</td><td class=\"n\">25165824</td>"
                              "<td class=\"n\">14.5%</td>"));
    /* every section; no model given: the difference section says so */
    static const char *const ids[] = {"headline", "iterations", "phases", "difference", "shapes"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "<section id=\"%s\">", ids[i]);
        assert_non_null(strstr(t, want));
    }
    assert_non_null(strstr(t, "No model given"));
    assert_int_equal(count(t, "<section"), count(t, "</section>"));
    assert_int_equal(count(t, "<svg"), count(t, "</svg>"));
    assert_null(strstr(t, "<script"));
    free(text);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),      cmocka_unit_test(test_escape_in_structure),
        cmocka_unit_test(test_axis),        cmocka_unit_test(test_bar_geometry),
        cmocka_unit_test(test_output_file), cmocka_unit_test(test_report_page_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
