/* SPDX-License-Identifier: Apache-2.0 */
/* merge.c - 'flopcount merge FILE... | DIR': read every rank's report and
 * print one for the job (merge_analyze.c / merge_steps.c work it out,
 * tools/render/ prints it: text, --json, or --html OUT as a page).
 * Missing and duplicate ranks are said, never dropped quietly. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "html.h"
#include "merge.h"
#include "merge_gpu.h"
#include "render.h"
#include "report_peak.h"
#include "tools.h"

typedef struct args {
    char **paths; /* owned strings */
    size_t n_paths;
    fc_merge_paths files; /* paths after fc_merge_expand_parts (owns them then) */
    fc_peak_opt peak;
    int json, all_ranks, strict;
    const char *html; /* --html OUT: NULL when not given */
} args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flopcount merge FILE... | DIR [--gpu NAME --dtype D | --peak-tflops X]\n"
            "                       [--json] [--all-ranks] [--strict] [--html OUT.html]\n"
            "  FILE... | DIR     the per-rank reports (a DIR: every *.json in it)\n"
            "  --gpu NAME --dtype D   per-GPU peak from the table, for cluster HFU/MFU\n"
            "  --peak-tflops X   per-GPU peak in TFLOP/s\n"
            "  --json            the merged report as JSON (readable by 'flopcount report')\n"
            "  --all-ranks       list every rank in the text, however many\n"
            "  --strict          exit 1 when ranks are missing or duplicated\n"
            "  --html OUT.html   also write the merged job as one self-contained page with\n"
            "                    charts (no script, opens offline)\n");
}

static int add_path(args *a, const char *p)
{
    char **bigger = realloc(a->paths, (a->n_paths + 1) * sizeof *bigger);
    if (bigger == NULL)
        return -1;
    a->paths = bigger;
    if ((a->paths[a->n_paths] = strdup(p)) == NULL)
        return -1;
    a->n_paths++;
    return 0;
}

static int natural_order(const void *x, const void *y)
{
    return strverscmp(*(char *const *)x, *(char *const *)y);
}

/* Every *.json in dir (not the shim's half-written NAME.tmp.PID files),
 * in natural order: rank2.json before rank10.json. */
static int add_dir(args *a, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "flopcount merge: cannot read directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    size_t before = a->n_paths;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0 || e->d_name[0] == '.')
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc = add_path(a, path);
    }
    closedir(d);
    if (rc != 0)
        return -1;
    if (a->n_paths == before) {
        fprintf(stderr, "flopcount merge: no *.json reports in %s\n", dir);
        return -1;
    }
    qsort(a->paths + before, a->n_paths - before, sizeof *a->paths, natural_order);
    return 0;
}

static int parse_args(args *a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int t = fc_peak_opt_take(&a->peak, "merge", argc, argv, &i);
        if (t < 0)
            return -1;
        if (t > 0)
            continue;
        if (strcmp(s, "--json") == 0)
            a->json = 1;
        else if (strcmp(s, "--all-ranks") == 0)
            a->all_ranks = 1;
        else if (strcmp(s, "--strict") == 0)
            a->strict = 1;
        else if (strcmp(s, "--html") == 0 || strncmp(s, "--html=", 7) == 0) {
            a->html = s[6] == '=' ? s + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (a->html == NULL || a->html[0] == '\0') {
                fprintf(stderr, "flopcount merge: --html needs an output file name\n");
                return -1;
            }
        }
        else if (s[0] == '-' && s[1] != '\0') {
            fprintf(stderr, "flopcount merge: unknown option '%s' (try --help)\n", s);
            return -1;
        } else {
            struct stat st;
            if (stat(s, &st) == 0 && S_ISDIR(st.st_mode)) {
                if (add_dir(a, s) != 0)
                    return -1;
            } else if (add_path(a, s) != 0) {
                fprintf(stderr, "flopcount merge: out of memory\n");
                return -1;
            }
        }
    }
    if (a->n_paths == 0) {
        fprintf(stderr, "flopcount merge: no reports given (try --help)\n");
        return -1;
    }
    return 0;
}

/* slot[rank]: 1 + the index in m->ranks of the report kept for that rank,
 * 0 when none yet; grows as ranks come. */
typedef struct seen_set {
    size_t *slot;
    size_t size;
} seen_set;

static size_t *seen_slot(seen_set *s, long rank)
{
    size_t r = (size_t)rank;
    if (r >= s->size) {
        size_t n = s->size ? s->size : 1024;
        while (n <= r)
            n *= 2;
        size_t *b = realloc(s->slot, n * sizeof *b);
        if (b == NULL)
            return NULL;
        memset(b + s->size, 0, (n - s->size) * sizeof *b);
        s->slot = b;
        s->size = n;
    }
    return &s->slot[r];
}

/* Rank of a report: its own; in file order when no report names one. */
static int place_rank(fc_merge *m, fc_report *r, const char *path, size_t i)
{
    if (m->n_ranks > 0 && (r->rank < 0) != (m->n_rankless > 0)) {
        fprintf(stderr, "flopcount merge: %s %s but %s %s; merge the reports of one job\n",
                path, r->rank < 0 ? "names no rank" : "names a rank", m->ranks[0].path,
                r->rank < 0 ? "does" : "does not");
        return -1;
    }
    if (r->rank < 0) {
        m->n_rankless++;
        r->rank = (long)i;
    }
    return 0;
}

typedef struct take_ctx {
    fc_merge *m;
    seen_set seen;
    char **show; /* the name to give report i, when not its path */
} take_ctx;

/* One parsed report into the merge (fc_merge_load_all's callback). */
static int take_one(void *arg, size_t i, const char *path, fc_merge_loaded *got)
{
    take_ctx *t = arg;
    fc_merge *m = t->m;
    fc_report *r = &got->report;
    char err[512];
    if (t->show != NULL && t->show[i] != NULL)
        path = t->show[i];
    if (r->is_merge) {
        fprintf(stderr, "flopcount merge: %s is a merged report; give the per-rank reports\n",
                path);
        return -1;
    }
    if (r->rank < 0 && r->totals.gemm_calls == 0 && r->totals.failed_calls == 0 &&
        !fc_report_attention_any(&r->attn)) {
        /* a launcher (torchrun's agent, mpirun) preloaded along with its ranks */
        fprintf(stderr, "flopcount merge: note: %s names no rank and ran no GEMM (a launcher "
                        "process?); skipped\n", path);
        m->n_skipped++;
        return 0;
    }
    if (place_rank(m, r, path, i - m->n_skipped) != 0)
        return -1;
    size_t *seen = seen_slot(&t->seen, r->rank);
    fc_merge_rank *s = &m->ranks[m->n_ranks];
    if (seen == NULL || fc_merge_add(s, path, r, err, sizeof err) != 0 ||
        fc_merge_infer_rank(s, r) != 0) {
        fprintf(stderr, "flopcount merge: out of memory\n");
        return -1;
    }
    m->n_ranks++;
    fc_merge_rank *kept = *seen ? &m->ranks[*seen - 1] : NULL;
    if (kept != NULL && (kept->gemm_calls || kept->failed_calls || !s->gemm_calls)) {
        s->duplicate = 1; /* the first report of a rank wins ... */
        return 0;
    }
    if (kept != NULL)
        kept->duplicate = 1; /* ... unless it ran no GEMM (a launcher under Slurm) and this did */
    *seen = m->n_ranks;
    if (fc_merge_sum_report(m, r) != 0) {
        fprintf(stderr, "flopcount merge: out of memory\n");
        return -1;
    }
    if (got->gpu_rc != 0 || fc_merge_gpu_add(&got->gpu, err, sizeof err) != 0) {
        fprintf(stderr, "flopcount merge: %s: %s\n", path, got->gpu_rc != 0 ? got->gpu_err : err);
        return -1;
    }
    return 0;
}

static int merge_all(fc_merge *m, const args *a)
{
    take_ctx t = {m, {NULL, 0}, a->files.show};
    int rc = 0;
    if ((m->ranks = calloc(a->n_paths, sizeof *m->ranks)) == NULL) {
        fprintf(stderr, "flopcount merge: out of memory\n");
        rc = -1;
    }
    if (rc == 0)
        rc = fc_merge_load_all(a->paths, a->n_paths, take_one, &t);
    free(t.seen.slot);
    if (rc == 0 && m->n_ranks == 0) {
        fprintf(stderr, "flopcount merge: nothing to merge: no report names a rank or ran a GEMM\n");
        rc = -1;
    }
    if (rc == 0 && fc_peak_opt_resolve(&a->peak, "merge",
                                       fc_peak_main_dtype(m->sum.by_dtype, m->sum.n_by_dtype),
                                       &m->peak_flops, m->peak_desc, sizeof m->peak_desc) != 0)
        rc = -1;
    if (rc == 0 && m->peak_flops == 0)
        fc_merge_peak_from_reports(m);
    if (rc == 0)
        fc_mix_source_opts(&m->mix_src, &a->peak); /* the reports' peaks are in already */
    if (rc == 0 && (fc_merge_analyze(m) != 0 || fc_merge_infer(m) != 0)) {
        fprintf(stderr, "flopcount merge: out of memory\n");
        rc = -1;
    }
    return rc;
}

/* One stderr line per problem, whatever the output format. */
static int warn_problems(const fc_merge *m)
{
    char list[256];
    size_t dups = m->n_ranks - m->n_used;
    if (m->n_missing) {
        fc_rank_ranges(m->missing, m->n_missing, list, sizeof list);
        fprintf(stderr, "flopcount merge: warning: %zu of %ld ranks missing: %s\n", m->n_missing,
                m->world_size, list);
    }
    if (dups)
        fprintf(stderr, "flopcount merge: warning: %zu duplicate report%s ignored (see above)\n",
                dups, dups == 1 ? "" : "s");
    if (m->world_disagrees)
        fprintf(stderr, "flopcount merge: warning: the reports name different world sizes\n");
    return m->n_missing || dups || m->world_disagrees;
}

/* Opens the page of --html before any output, so that an unwritable path
 * is one line and nothing else. 1 when open. */
static int open_page(fc_html *page, const char *path)
{
    char err[600];
    if (fc_html_open(page, path, err, sizeof err) == 0)
        return 1;
    fprintf(stderr, "flopcount merge: %s\n", err);
    return 0;
}

int fc_cmd_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    args a = {0};
    fc_merge m = {0};
    int rc = 2;
    /* Each report is a burst of small json-c objects freed together; left to
     * its defaults glibc consolidates them on every large read buffer and
     * gives the heap back, faulting it in again for the next report. */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
    static fc_html page;
    int parsed = parse_args(&a, argc, argv) == 0;
    if (parsed) { /* FILE.parts/ next to a report: its run's other processes */
        a.files.paths = a.paths;
        a.files.n = a.n_paths;
        parsed = fc_merge_expand_parts(&a.files) == 0;
        a.paths = a.files.paths;
        a.n_paths = a.files.n;
    }
    if (parsed && merge_all(&m, &a) == 0 && (a.html == NULL || open_page(&page, a.html))) {
        for (size_t i = m.n_used; i < m.n_ranks; i++)
            fprintf(stderr, "flopcount merge: warning: %s repeats rank %ld; ignored\n",
                    m.ranks[i].path, m.ranks[i].rank);
        int problems = warn_problems(&m);
        fc_render_in in = {.sum = &m, .all_ranks = a.all_ranks, .page = &page};
        rc = fc_render(a.json ? FC_RENDER_JSON : FC_RENDER_TEXT, &in, "flopcount merge") == 0 ? 0
                                                                                              : 2;
        if (a.html != NULL && fc_render(FC_RENDER_HTML, &in, "flopcount merge") != 0)
            rc = 2;
        if (rc == 0 && problems && a.strict)
            rc = 1;
    }
    fc_merge_free(&m);
    fc_merge_gpu_free();
    a.files.paths = a.paths;
    a.files.n = a.n_paths;
    fc_merge_paths_free(&a.files);
    return rc;
}
