/* SPDX-License-Identifier: Apache-2.0 */
/* report.c - 'flopcount report FILE.json [model flags] [--gpus N]
 * [--gpu NAME --dtype D | --peak-tflops X] [--json] [--html OUT.html]': the
 * measured side of a report (a rank's or a merged one) and, given a model,
 * the analytic formula beside it with the difference explained
 * (report_gap.c); --html also writes the same view as a page (tools/render/). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "job.h"
#include "model_flags.h"
#include "nullgpu_note.h"
#include "parse.h"
#include "render.h"
#include "report_peak.h"
#include "report_view.h"
#include "run_figures.h"
#include "tools.h"
#include "utilization.h"

typedef struct args {
    const char *path;
    fc_model_opts model;
    fc_peak_opt peak;
    int64_t gpus; /* 0: not given */
    int json;
    const char *html; /* --html OUT: NULL when not given */
} args;

static void usage(FILE *f)
{
    fprintf(f, "usage: flopcount report FILE.json [model flags | --config hf.json] [--gpus N]\n"
               "                        [--gpu NAME --dtype D | --peak-tflops X] [--json]\n"
               "                        [--html OUT.html]\n"
               "The measured side of a report (one rank's, or 'flopcount merge --json' output):\n"
               "totals, top shapes, iterations, HFU/MFU when a peak is known; with model flags\n"
               "also the formula's FLOPs and MFU, and the difference explained.\n\n");
    fputs(fc_model_flags_help(), f);
    fprintf(f, "utilization:\n"
               "  --gpus N               GPUs the iteration time covers (default: the\n"
               "                         report's world size, else 1)\n"
               "  --gpu NAME --dtype D   per-GPU peak from the table ('flopcount peak')\n"
               "  --peak-tflops X        per-GPU dense peak in TFLOP/s\n"
               "                         (default: the peak the report carries, if any)\n"
               "output:\n"
               "  --json                 machine-readable, exact integers\n"
               "  --html OUT.html        also write the report as one self-contained page\n"
               "                         with charts (no script, opens offline)\n");
}

static int bad(const char *msg, const char *arg)
{
    fprintf(stderr, "flopcount report: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    return -1;
}

static int take_gpus(args *a, int argc, char **argv, int *i)
{
    const char *v = NULL;
    if (strncmp(argv[*i], "--gpus=", 7) == 0)
        v = argv[*i] + 7;
    else if (*i + 1 < argc)
        v = argv[++*i];
    uint64_t g;
    if (v == NULL || fc_parse_u64(v, 100000000, &g) != 0 || g == 0)
        return bad("--gpus needs a positive integer, not", v ? v : "nothing");
    a->gpus = (int64_t)g;
    return 0;
}

static int parse_args(args *a, int argc, char **argv)
{
    char err[512];
    fc_model_opts_init(&a->model);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int used = fc_model_flag(&a->model, s, i + 1 < argc ? argv[i + 1] : NULL, err, sizeof err);
        if (used < 0)
            return bad(err, NULL);
        if (used > 0) {
            i += used - 1;
            continue;
        }
        int t = fc_peak_opt_take(&a->peak, "report", argc, argv, &i);
        if (t < 0)
            return -1;
        if (t > 0)
            continue;
        if (strcmp(s, "--json") == 0)
            a->json = 1;
        else if (strcmp(s, "--html") == 0 || strncmp(s, "--html=", 7) == 0) {
            a->html = s[6] == '=' ? s + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (a->html == NULL || a->html[0] == '\0')
                return bad("--html needs an output file name", NULL);
        } else if (strcmp(s, "--gpus") == 0 || strncmp(s, "--gpus=", 7) == 0) {
            if (take_gpus(a, argc, argv, &i) != 0)
                return -1;
        } else if (s[0] == '-' && s[1] != '\0')
            return bad("unknown option (try --help):", s);
        else if (a->path != NULL)
            return bad("one report at a time; merge ranks first with 'flopcount merge'. Extra:", s);
        else
            a->path = s;
    }
    if (a->path == NULL)
        return bad("no report given (try --help)", NULL);
    return 0;
}

/* The run's figures (analysis/run/run_figures.h) of the steady
 * iterations, as the shim computes its own; a merged report's list is
 * already the steady steps. */
static int steady_medians(fc_report_view *v)
{
    const fc_report *r = &v->rep;
    size_t from = 0, to = r->iterations.n_list;
    if (!r->is_merge)
        fc_report_steady(r->iterations.list, r->iterations.n_list, &from, &to);
    size_t n = to - from;
    fc_u128 *u = malloc((n ? n : 1) * sizeof *u);
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (u == NULL || t == NULL) {
        free(u);
        free(t);
        return bad("out of memory", NULL);
    }
    fc_fig_medians m;
    fc_fig_medians_of(fc_report_fig_iter, r->iterations.list, from, to, u, t, &m);
    free(u);
    free(t);
    v->n_steady = m.n;
    v->has_iterations = m.n > 0;
    v->n_ambiguous = m.n_unsure_recompute;
    v->n_ambiguous_split = m.n_unsure;
    v->file_flops = m.flops;
    v->file_recompute = m.recompute;
    v->recompute_guessed = m.recompute_guessed;
    v->file_forward = m.forward;
    v->file_xs = m.xs;
    /* the report's own median (the shim's, or the merge's) when it has one:
     * the same figure, by the same definition, as the list's */
    v->seconds = !isnan(r->iterations.median_seconds) ? r->iterations.median_seconds : m.seconds;
    return 0;
}

/* Job figures: a merged report is the job; one rank of W stands for W
 * data-parallel replicas (said in the output); anything else is itself. */
static void job_scale(fc_report_view *v, const args *a)
{
    const fc_report *r = &v->rep;
    long world = r->world_size > 0 ? r->world_size : 1;
    v->scale = (!r->is_merge && r->rank >= 0 && world > 1) ? world : 1;
    v->job_flops = fc_u128_sat_mul(v->file_flops, (fc_u128)v->scale);
    v->job_recompute = fc_u128_sat_mul(v->file_recompute, (fc_u128)v->scale);
    v->job_xs = fc_u128_sat_mul(v->file_xs, (fc_u128)v->scale);
    v->gpus = a->gpus ? a->gpus : world;
    v->gpus_from = a->gpus ? 2 : r->world_size > 0 ? 1 : 0;
}

/* HFU at the dtype mix: the report's training FLOPs by dtype, each at its
 * own peak (--gpu: the table's; --peak-tflops: one dtype only; neither: the
 * report's), over the same FLOPs, time and GPUs as HFU. */
static void measured_mix(fc_report_view *v, const args *a)
{
    static fc_mix_source src;
    fc_u128 by[FC_DT_COUNT];
    memset(&v->mix, 0, sizeof v->mix);
    v->mix.hfu = v->mix.ideal_seconds = NAN;
    if (!v->has_iterations) {
        snprintf(v->mix.reason, sizeof v->mix.reason, "no iterations");
        return;
    }
    if (!fc_mix_flops_of(&v->rep, by)) {
        snprintf(v->mix.reason, sizeof v->mix.reason,
                 "the report has no FLOPs by dtype (written before the dtype mix was)");
        return;
    }
    memset(&src, 0, sizeof src);
    fc_mix_source_opts(&src, &a->peak);
    fc_mix_source_add(&src, &v->rep); /* used only when no option names a peak */
    fc_mix_peaks p = fc_mix_source_peaks(&src);
    fc_mix_compute(by, v->job_flops, v->seconds, v->gpus, &p, &v->mix);
}

static int measured(fc_report_view *v, const args *a)
{
    if (steady_medians(v) != 0)
        return -1;
    job_scale(v, a);
    if (fc_peak_opt_resolve(&a->peak, "report",
                            fc_peak_main_dtype(v->rep.by_dtype, v->rep.n_by_dtype), &v->peak,
                            v->peak_desc, sizeof v->peak_desc) != 0)
        return -1;
    if (v->peak == 0 && v->rep.has_utilization && v->rep.utilization.peak_flops > 0) {
        v->peak = v->rep.utilization.peak_flops;
        snprintf(v->peak_desc, sizeof v->peak_desc, "from the report: %.4g TFLOP/s%s%s%s%s%.64s",
                 v->peak / 1e12, v->rep.utilization.dtype[0] ? " (" : "", v->rep.utilization.dtype,
                 v->rep.utilization.dtype[0] ? ")" : "", v->rep.utilization.device[0] ? ", " : "",
                 v->rep.utilization.device);
    }
    v->hfu = v->mfu = NAN;
    if (v->rep.null_gpu[0] != '\0') { /* host times: no utilization, whatever the peak */
        v->peak = 0;
        snprintf(v->peak_desc, sizeof v->peak_desc, "%s", FC_NULL_GPU_NO_UTILIZATION);
        snprintf(v->mix.reason, sizeof v->mix.reason, "%s", FC_NULL_GPU_NO_UTILIZATION);
        return 0;
    }
    if (v->has_iterations) {
        /* as the shim's own MFU: recompute left out, and attention's
         * backward at the model convention (2x its forward, not the 2.5x
         * the kernels execute) */
        fc_fig_utilization(v->job_flops, v->job_recompute, v->job_xs, v->seconds, v->gpus,
                           v->peak, &v->hfu, &v->mfu);
    }
    measured_mix(v, a);
    return 0;
}

/* The model: read off the report's forward profile, flags over it; or,
 * from a report without one, the flags alone (which must then be whole). */
static int formula(fc_report_view *v, const args *a)
{
    char err[512];
    int given = fc_model_opts_given(&a->model);
    v->formula_mfu = v->formula_hfu = NAN;
    if (v->rep.has_profile) {
        if (fc_report_infer(v, &a->model, err, sizeof err) != 0)
            return bad(err, NULL);
        if (!v->has_model && given)
            return bad("the formula needs values neither the stream nor the flags give:",
                       v->formula_reason);
    } else if (v->rep.has_merged_model) { /* the job's model that 'merge' read off the ranks */
        v->model = v->rep.merged_model;
        if (fc_model_opts_overlay(&a->model, &v->model, err, sizeof err) != 0)
            return bad(err, NULL);
        if (fc_model_check(&v->model, err, sizeof err) != 0)
            return bad(err, NULL);
        v->has_model = 1;
        v->model_from = given ? "the ranks' GEMMs (merge) and flags" : "the ranks' GEMMs (merge)";
    } else if (given) {
        if (fc_model_opts_finish(&a->model, &v->model, err, sizeof err) != 0)
            return bad(err, NULL);
        v->has_model = 1;
        v->model_from = "flags";
    } else if (v->rep.merged_model_reason[0]) {
        snprintf(v->formula_reason, sizeof v->formula_reason, "%s", v->rep.merged_model_reason);
    } else {
        snprintf(v->formula_reason, sizeof v->formula_reason,
                 "no model flags, and the report has no forward profile to read one from");
    }
    if (!v->has_model) {
        fc_report_attention_compare(v);
        return 0;
    }
    fc_formula(&v->model, &v->f);
    fc_report_attention_compare(v);
    v->formula_mfu = fc_utilization(v->f.model_flops_per_iteration, v->seconds, v->gpus, v->peak);
    v->formula_hfu =
        fc_utilization(v->f.hardware_flops_per_iteration, v->seconds, v->gpus, v->peak);
    if (v->has_iterations)
        fc_report_gap(v);
    return 0;
}

/* The report, or, when other processes of its run wrote FILE.parts/ next
 * to it (LD_PRELOAD with one FLOPCOUNT_OUTPUT), the job assembled from all
 * of them (tools/job/), said on stderr. */
static int load(fc_report_view *v)
{
    char err[512];
    fc_job j;
    memset(&j, 0, sizeof j);
    j.who = "flopcount report";
    int parts = fc_job_add_with_parts(&j, v->path);
    if (parts <= 0) {
        fc_job_free(&j);
        if (parts < 0)
            return -1; /* said */
        if (fc_report_load(v->path, &v->rep, err, sizeof err) != 0) {
            fprintf(stderr, "flopcount report: %s: %s\n", v->path, err);
            return -1;
        }
        if (fc_report_gpu_load(v->path, &v->gpu, err, sizeof err) != 0) {
            fprintf(stderr, "flopcount report: %s: %s\n", v->path, err);
            fc_report_free(&v->rep);
            return -1;
        }
        return 0;
    }
    size_t len;
    long file_pid = j.members[0].rep.pid; /* the build sorts the members */
    char *text = fc_job_build(&j, &len);
    int rc = -1;
    if (text != NULL && fc_report_parse(text, len, &v->rep, err, sizeof err) != 0) {
        fprintf(stderr, "flopcount report: %s: the assembled job report: %s\n", v->path, err);
    } else if (text != NULL && fc_report_gpu_parse(text, len, &v->gpu, err, sizeof err) != 0) {
        fprintf(stderr, "flopcount report: %s: the assembled job report: %s\n", v->path, err);
        fc_report_free(&v->rep);
    } else if (text != NULL) {
        fprintf(stderr,
                "flopcount report: note: %s holds pid %ld's report; %d more process%s of "
                "its run wrote %s.parts/: reporting the %zu together%s\n",
                v->path, file_pid, parts, parts == 1 ? "" : "es", v->path, j.n,
                j.stale_ignored ? " (parts of other runs left out)" : "");
        rc = 0;
    }
    free(text);
    fc_job_free(&j);
    return rc;
}

int fc_cmd_report(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    args a;
    memset(&a, 0, sizeof a);
    if (parse_args(&a, argc, argv) != 0)
        return 2;
    static fc_report_view v;
    char err[512];
    v.path = a.path;
    if (load(&v) != 0)
        return 2;
    int rc = 2;
    static fc_html page;
    int ready = measured(&v, &a) == 0 && formula(&v, &a) == 0;
    if (ready && a.html != NULL && fc_html_open(&page, a.html, err, sizeof err) != 0)
        ready = bad(err, NULL) == 0; /* one line, no report printed */
    if (ready) { /* the page was opened before any output: a bad path is one line */
        fc_render_in in = {.one = &v, .page = &page};
        rc = fc_render(a.json ? FC_RENDER_JSON : FC_RENDER_TEXT, &in, "flopcount report") == 0 ? 0
                                                                                               : 2;
        if (a.html != NULL && fc_render(FC_RENDER_HTML, &in, "flopcount report") != 0)
            rc = 2;
    }
    fc_report_free(&v.rep);
    fc_report_gpu_free(&v.gpu);
    return rc;
}
