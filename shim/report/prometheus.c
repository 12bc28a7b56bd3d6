/* SPDX-License-Identifier: Apache-2.0 */
/* prometheus.c - the figures of figures.c in the Prometheus text format
 * (version 0.0.4), as a file for node-exporter's textfile collector.
 *
 * The file is written in full into a fixed buffer, then to a temporary
 * file in the same directory (whose name does not end in .prom, so the
 * collector never reads it half-written) and renamed over the real one.
 * No fsync: readers need a whole file, not a durable one, and the writer
 * holds the drain lock. Labels are built once (again in a fork child);
 * label values are escaped as the format asks (backslash, double quote,
 * newline), other control and non-ASCII bytes replaced by '_'. */
#include "prometheus.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/diag.h"
#include "core/options.h"
#include "core/process.h"
#include "core/rank.h"
#include "dtype.h"
#include "figures.h"
#include "prom_attention.h"

#define MIN_SECONDS 0.1
#define JOB_MAX 128 /* bytes of a job id kept */

static int on;
static uint64_t period_ns, next_ns;
static int written; /* this process wrote its file at least once */
static int warned_write, warned_size;
static char file_path[4096 + 128], tmp_path[4096 + 160];
static char job[JOB_MAX + 1];
static char labels[1536]; /* rank="0",local_rank="0",host="...",job="...",pid="..." */
static char buf[16384];
static size_t used;
static int overflow;

/* The job id: FLOPCOUNT_JOB, else the first the launcher or scheduler set
 * (torchrun's default rendezvous id "none" is no id). */
static void load_job(void)
{
    static const char *const vars[] = {"FLOPCOUNT_JOB", "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID",
                                       "FLUX_JOB_ID", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE",
                                       "TORCHELASTIC_RUN_ID"};
    job[0] = '\0';
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v == NULL || *v == '\0' || (strcmp(vars[i], "TORCHELASTIC_RUN_ID") == 0 && strcmp(v, "none") == 0))
            continue;
        snprintf(job, sizeof job, "%s", v);
        return;
    }
}

/* Appends v as a label value (without quotes) to out[*o .. size). */
static void escape_into(char *out, size_t size, size_t *o, const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        char e[3] = {0};
        if (*p == '\\' || *p == '"') {
            e[0] = '\\';
            e[1] = (char)*p;
        } else if (*p == '\n') {
            e[0] = '\\';
            e[1] = 'n';
        } else if (*p < 0x20 || *p >= 0x7f) {
            e[0] = '_';
        } else {
            e[0] = (char)*p;
        }
        size_t n = strlen(e);
        if (*o + n + 1 > size)
            break;
        memcpy(out + *o, e, n);
        *o += n;
    }
    out[*o] = '\0';
}

static void add_label(size_t *o, const char *name, const char *value)
{
    size_t n = strlen(name);
    if (*o + n + 8 > sizeof labels)
        return;
    if (*o > 0)
        labels[(*o)++] = ',';
    memcpy(labels + *o, name, n);
    *o += n;
    labels[(*o)++] = '=';
    labels[(*o)++] = '"';
    escape_into(labels, sizeof labels - 1, o, value);
    labels[(*o)++] = '"';
    labels[*o] = '\0';
}

static void build_names(void)
{
    char rank[24] = "", local[24] = "", pid[24];
    if (fc_rank.rank >= 0)
        snprintf(rank, sizeof rank, "%ld", fc_rank.rank);
    if (fc_rank.local_rank >= 0)
        snprintf(local, sizeof local, "%ld", fc_rank.local_rank);
    snprintf(pid, sizeof pid, "%ld", fc_process_pid());
    size_t o = 0;
    labels[0] = '\0';
    add_label(&o, "rank", rank);
    add_label(&o, "local_rank", local);
    add_label(&o, "host", fc_rank.hostname);
    add_label(&o, "job", job);
    add_label(&o, "pid", pid);
    if (fc_rank.rank >= 0)
        snprintf(file_path, sizeof file_path, "%s/flopcount-rank%ld-pid%s.prom", fc_opt.prometheus,
                 fc_rank.rank, pid);
    else
        snprintf(file_path, sizeof file_path, "%s/flopcount-pid%s.prom", fc_opt.prometheus, pid);
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", file_path);
}

int fc_prom_init(void)
{
    on = 0;
    if (fc_opt.prometheus[0] == '\0' || !fc_is_enabled())
        return -1;
    if (fc_opt.prometheus_seconds < MIN_SECONDS) {
        fc_warn("FLOPCOUNT_PROMETHEUS_SECONDS=%g is below %g; 15 used", fc_opt.prometheus_seconds,
                MIN_SECONDS);
        fc_opt.prometheus_seconds = 15;
    }
    struct stat st;
    const char *why = NULL;
    if (stat(fc_opt.prometheus, &st) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a directory";
    else if (access(fc_opt.prometheus, W_OK | X_OK) != 0)
        why = strerror(errno);
    if (why != NULL) {
        fc_warn("FLOPCOUNT_PROMETHEUS='%.200s' is not a writable directory (%s); no Prometheus metrics",
                fc_opt.prometheus, why);
        return -1;
    }
    period_ns = (uint64_t)(fc_opt.prometheus_seconds * 1e9);
    next_ns = 0;
    written = 0;
    load_job();
    build_names();
    on = 1;
    return 0;
}

void fc_prom_after_fork_child(void)
{
    if (!on)
        return;
    next_ns = 0;
    written = 0;
    build_names();
}

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + used, sizeof buf - used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf - used)
        overflow = 1;
    else
        used += (size_t)n;
}

/* The shortest decimal form that reads back as v (as the JSON report). */
static const char *num(double v, char *b, size_t size)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(b, size, "%.*g", prec, v);
        double back;
        if (sscanf(b, "%lf", &back) == 1 && back == v)
            break;
    }
    return b;
}

static void metric(const char *name, const char *type, const char *help, const char *extra,
                   const char *value)
{
    put("# HELP %s %s\n# TYPE %s %s\n%s{%s%s} %s\n", name, help, name, type, name, labels, extra, value);
}

/* The dtype mix: the share of each dtype in the training FLOPs (one series
 * per dtype, after one HELP/TYPE as the format asks), the peak each dtype
 * is measured against, and HFU at the mix (figures.h). */
static void format_mix(const fc_figures *f)
{
    char v[64];
    const fc_mix *m = &f->mix;
    fc_u128 all = 0;
    for (int d = 0; d < FC_DT_COUNT; d++)
        all = fc_u128_sat_add(all, f->by_dtype[d]);
    if (all > 0) {
        put("# HELP flopcount_flops_share_ratio Share of each dtype (label dtype: what the GEMM "
            "inputs ran in) in the training GEMM FLOPs so far, evaluation left out.\n"
            "# TYPE flopcount_flops_share_ratio gauge\n");
        for (int d = 0; d < FC_DT_COUNT; d++)
            if (f->by_dtype[d])
                put("flopcount_flops_share_ratio{%s,dtype=\"%s\"} %s\n", labels, fc_dtype_name(d),
                    num(fc_u128_to_double(f->by_dtype[d]) / fc_u128_to_double(all), v, sizeof v));
    }
    if (!f->util_ok)
        return;
    int peaks = 0;
    for (int i = 0; i < m->n; i++)
        peaks += m->t[i].peak > 0;
    if (peaks > 0)
        put("# HELP flopcount_dtype_peak_flops Dense peak FLOP/s of one device for each dtype of "
            "the mix (the figure flopcount_hfu_mix_ratio uses for it).\n"
            "# TYPE flopcount_dtype_peak_flops gauge\n");
    for (int i = 0; i < m->n; i++)
        if (m->t[i].peak > 0)
            put("flopcount_dtype_peak_flops{%s,dtype=\"%s\"} %s\n", labels,
                fc_dtype_name(m->t[i].dtype), num(m->t[i].peak, v, sizeof v));
    if (f->mix_ok)
        metric("flopcount_hfu_mix_ratio", "gauge",
               "HFU at the dtype mix: the time the median steady iteration's FLOPs need at each "
               "dtype's dense peak (shared out by flopcount_flops_share_ratio), summed, over "
               "flopcount_iteration_seconds. Equals flopcount_hfu_ratio when one dtype ran; absent "
               "when a dtype has no published peak.",
               "", num(f->hfu_mix, v, sizeof v));
}

static void format_figures(const fc_figures *f)
{
    char v[64];
    used = 0;
    overflow = 0;
    metric("flopcount_gemm_flops_total", "counter",
           "GEMM floating-point operations counted (2*m*n*k per real GEMM, 8*m*n*k complex), "
           "every phase: forward, backward, recompute, evaluation.",
           "", fc_u128_to_str(f->totals.flops, v));
    snprintf(v, sizeof v, "%llu", (unsigned long long)f->totals.calls);
    metric("flopcount_gemm_calls_total", "counter", "Successful GEMM calls counted.", "", v);
    if (fc_prom_attention(&f->attn, labels, buf, sizeof buf, &used) != 0)
        overflow = 1;
    snprintf(v, sizeof v, "%llu", (unsigned long long)f->v.count);
    metric("flopcount_iterations_total", "counter",
           "Training iterations finished (flopcount_step() markers, NVTX step ranges, or found in the "
           "GEMM stream).",
           "", v);
    if (f->steady > 0)
        metric("flopcount_iteration_seconds", "gauge",
               "Median wall time of the steady training iterations (all but the first), evaluation "
               "passes left out.",
               "", num(f->median_seconds, v, sizeof v));
    if (f->have_last)
        metric("flopcount_last_iteration_seconds", "gauge",
               "Wall time of the last finished training iteration, evaluation passes left out.", "",
               num(f->last_seconds, v, sizeof v));
    if (f->v.count > 0) {
        metric("flopcount_recompute_ratio", "gauge",
               "Recompute (activation checkpointing) FLOPs over all FLOPs of the finished training "
               "iterations (an estimate when flopcount_split_guessed_iterations > 0).",
               "", num(f->recompute_fraction, v, sizeof v));
        metric("flopcount_split_guessed_iterations", "gauge",
               "Finished training iterations whose forward/backward/recompute split is a guess "
               "(the GEMM stream could not decide; phase markers make it exact): recompute and MFU "
               "rest on it.",
               "", num((double)f->v.unsure, v, sizeof v));
    }
    format_mix(f);
    if (!f->util_ok)
        return;
    metric("flopcount_hfu_ratio", "gauge",
           "Measured hardware FLOPs utilization: median counted FLOPs (GEMMs and fused attention) per "
           "steady iteration over (flopcount_peak_flops x flopcount_iteration_seconds).",
           "", num(f->hfu, v, sizeof v));
    metric("flopcount_mfu_ratio", "gauge",
           "Measured model FLOPs utilization: as flopcount_hfu_ratio with the recompute FLOPs left "
           "out, and fused attention's backward beyond 2x its forward (counted FLOPs less "
           "recompute; no model formula is involved; an estimate when "
           "flopcount_split_guessed_iterations > 0).",
           "", num(f->mfu, v, sizeof v));
    char extra[96];
    snprintf(extra, sizeof extra, ",source=\"%s\",dtype=\"%s\"", f->pc.source, fc_dtype_name(f->pc.dtype));
    metric("flopcount_peak_flops", "gauge",
           "Peak FLOP/s of one device that HFU and MFU are measured against (source: detected "
           "device, CPU estimate or FLOPCOUNT_PEAK_TFLOPS; dtype: the dominant one).",
           extra, num(f->pc.flops, v, sizeof v));
}

static int write_all(int fd)
{
    size_t off = 0;
    while (off < used) {
        ssize_t n = write(fd, buf + off, used - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    return 0;
}

static void write_file(const fc_figures *f)
{
    int saved = errno;
    format_figures(f);
    if (overflow) {
        fc_warn_once(&warned_size, "the Prometheus metrics do not fit their buffer; not written");
        errno = saved;
        return;
    }
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    int bad = fd < 0;
    if (!bad) {
        bad = write_all(fd) != 0;
        bad |= close(fd) != 0;
        bad = bad || rename(tmp_path, file_path) != 0;
    }
    if (bad) {
        fc_warn_once(&warned_write, "cannot write %.300s: %s; Prometheus metrics not updated",
                     fd < 0 ? tmp_path : file_path, strerror(errno));
        if (fd >= 0)
            unlink(tmp_path);
    } else {
        written = 1;
    }
    errno = saved;
}

void fc_prom_tick(void)
{
    if (!on)
        return;
    uint64_t now = fc_now_ns();
    if (now < next_ns)
        return;
    next_ns = now + period_ns;
    static fc_figures f;
    fc_figures_compute(&f, 1);
    write_file(&f);
}

void fc_prom_at_exit(int interrupted)
{
    if (!on)
        return;
    static fc_figures f;
    fc_figures_compute(&f, !interrupted);
    const fc_totals *t = &f.totals;
    if (!written && t->calls + t->failed_calls + t->invalid_calls + t->unresolved_calls == 0)
        return;
    write_file(&f);
}
