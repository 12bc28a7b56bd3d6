/* SPDX-License-Identifier: Apache-2.0 */
/* report.c - write what was counted: the JSON report (atomically, where
 * destination.c says) and the short summary on stderr.
 *
 * Nothing here allocates: shapes are copied into a static array and sorted
 * in place, text goes through fixed buffers, so the same code can run from
 * the destructor, from a snapshot timer or after a fatal signal. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/api.h"
#include "core/clock.h"
#include "core/diag.h"
#include "core/options.h"
#include "core/process.h"
#include "core/rank.h"
#include "attention_json.h"
#include "count/attn_table.h"
#include "count/counters.h"
#include "dtype.h"
#include "flopcount.h"
#include "destination.h"
#include "jsonw.h"
#include "nullgpu_note.h"
#include "probe/grouped_log.h"
#include "launch_json.h"
#include "live.h"
#include "prometheus.h"
#include "ring/ring.h"
#include "run_rec.h"
#include "schema_totals.h"
#include "sections.h"

#define MAX_VIEWS (FC_SHAPE_CAPACITY + FC_API_COUNT * FC_DT_COUNT)

static fc_shape_view views[MAX_VIEWS];
static size_t n_views;
static char command[1024];
static int done_at_exit;
static fc_jw json_writer;

void fc_report_after_fork(void)
{
    fc_destination_after_fork();
}

void fc_report_init(void)
{
    fc_destination_init();
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, command, sizeof command - 1);
        close(fd);
        if (n > 0) {
            command[n] = '\0';
            for (ssize_t i = 0; i < n - 1; i++) /* arguments are NUL-separated */
                if (command[i] == '\0')
                    command[i] = ' ';
        }
    }
}

static void collect(const fc_shape_view *v, void *ctx)
{
    (void)ctx;
    if (n_views < MAX_VIEWS)
        views[n_views++] = *v;
}

/* Largest FLOPs first, then most calls: shell sort, no allocation. */
static int before(const fc_shape_view *x, const fc_shape_view *y)
{
    if (x->flops != y->flops)
        return x->flops > y->flops;
    return x->calls + x->failed_calls > y->calls + y->failed_calls;
}

/* The counters with every finished call in them: the rings drained first. */
static void totals(fc_totals *t)
{
    fc_ring_sync();
    fc_counters_totals(t);
}

static void sort_views(void)
{
    n_views = 0;
    fc_ring_sync();
    fc_counters_foreach(collect, NULL);
    for (size_t gap = n_views / 2; gap > 0; gap /= 2)
        for (size_t i = gap; i < n_views; i++) {
            fc_shape_view t = views[i];
            size_t j = i;
            for (; j >= gap && before(&t, &views[j - gap]); j -= gap)
                views[j] = views[j - gap];
            views[j] = t;
        }
}

static void trans_name(char t, char out[2])
{
    out[0] = t;
    out[1] = '\0';
}

static void write_shapes(fc_jw *w)
{
    fc_jw_arr_begin(w, "shapes");
    for (size_t i = 0; i < n_views; i++) {
        const fc_shape_view *v = &views[i];
        char ta[2], tb[2];
        fc_jw_obj_begin(w, NULL);
        fc_jw_str(w, "api", fc_api_name(v->key.api, v->key.flags & FC_API_64));
        if (v->key.m < 0) { /* overflow bucket: more shapes than the table holds */
            fc_jw_bool(w, "overflow", 1);
            fc_jw_str(w, "dtype", fc_dtype_name(v->key.dtype));
        } else {
            fc_jw_i64(w, "m", v->key.m);
            fc_jw_i64(w, "n", v->key.n);
            fc_jw_i64(w, "k", v->key.k);
            fc_jw_i64(w, "batch", v->key.batch);
            trans_name(v->key.transa, ta);
            trans_name(v->key.transb, tb);
            fc_jw_str(w, "transa", ta);
            fc_jw_str(w, "transb", tb);
            fc_jw_str(w, "dtype", fc_dtype_name(v->key.dtype));
            fc_jw_str(w, "out_dtype", fc_dtype_name(v->key.out_dtype));
            if (v->key.compute >= 0)
                fc_jw_str(w, "compute", fc_compute_type_name(v->key.compute));
            else
                fc_jw_null(w, "compute");
        }
        fc_jw_u64(w, "calls", v->calls);
        fc_jw_u128(w, "flops", v->flops);
        fc_jw_u64(w, "failed_calls", v->failed_calls);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
}

static void write_groups(fc_jw *w)
{
    static fc_report_group api[FC_API_COUNT][2], dt[FC_DT_COUNT]; /* names unused */
    memset(api, 0, sizeof api);
    memset(dt, 0, sizeof dt);
    for (size_t i = 0; i < n_views; i++) {
        const fc_shape_view *v = &views[i];
        fc_report_group *a = &api[v->key.api % FC_API_COUNT][(v->key.flags & FC_API_64) ? 1 : 0];
        fc_report_group *d = &dt[v->key.dtype % FC_DT_COUNT];
        a->calls += v->calls;
        a->flops = fc_u128_sat_add(a->flops, v->flops);
        d->calls += v->calls;
        d->flops = fc_u128_sat_add(d->flops, v->flops);
    }
    fc_jw_obj_begin(w, "by_api");
    for (int i = 0; i < FC_API_COUNT; i++)
        for (int b = 0; b < 2; b++)
            if (api[i][b].calls)
                fc_group_json(w, fc_api_name(i, b), &api[i][b]);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "by_dtype");
    for (int i = 0; i < FC_DT_COUNT; i++)
        if (dt[i].calls)
            fc_group_json(w, fc_dtype_name(i), &dt[i]);
    fc_jw_obj_end(w);
}

static void write_process(fc_jw *w)
{
    fc_jw_obj_begin(w, "process");
    fc_jw_i64(w, "pid", fc_process_pid());
    fc_jw_i64(w, "ppid", (int64_t)getppid());
    fc_jw_i64(w, "started_unix_ns", fc_process_start_unix_ns());
    fc_jw_str(w, "command", command);
    fc_jw_str(w, "hostname", fc_rank.hostname);
    if (fc_rank.rank >= 0) {
        fc_jw_i64(w, "rank", fc_rank.rank);
        fc_jw_i64(w, "local_rank", fc_rank.local_rank);
        fc_jw_i64(w, "world_size", fc_rank.world_size);
    } else {
        fc_jw_null(w, "rank");
        fc_jw_null(w, "local_rank");
        fc_jw_null(w, "world_size");
    }
    fc_jw_str(w, "launcher", fc_rank.launcher);
    fc_jw_bool(w, "fork_child", fc_process_is_fork_child());
    fc_jw_obj_end(w);
}

static void write_json(int fd, const char *status)
{
    fc_totals t;
    totals(&t);
    fc_attn_totals at;
    fc_attn_table_totals(&at);
    sort_views();
    fc_jw *w = &json_writer;
    fc_jw_init(w, fd, 1);
    fc_jw_obj_begin(w, NULL);
    fc_jw_i64(w, "schema", 1);
    fc_jw_obj_begin(w, "tool");
    fc_jw_str(w, "name", "flopcount");
    fc_jw_str(w, "version", FLOPCOUNT_VERSION_STRING);
    fc_jw_obj_end(w);
    if (fc_destination_run_id()[0] != '\0') { /* early: destination.c reads it back */
        fc_jw_obj_begin(w, "run");
        fc_jw_str(w, "id", fc_destination_run_id());
        fc_jw_i64(w, "start_unix_ns", fc_destination_run_start());
        fc_jw_obj_end(w);
    }
    write_process(w);
    fc_jw_str(w, "status", status);
    if (fc_opt.null_gpu[0] != '\0') { /* the run is on the null GPU (nullgpu_note.h) */
        fc_jw_obj_begin(w, "null_gpu");
        fc_jw_str(w, "device", fc_opt.null_gpu);
        fc_jw_str(w, "caveat", FC_NULL_GPU_CAVEAT);
        fc_jw_obj_end(w);
    }
    fc_jw_double(w, "wall_seconds", (double)(fc_now_ns() - fc_process_start_ns()) / 1e9);
    fc_jw_obj_begin(w, "totals"); /* the section's table: analysis/run/schema_totals.h */
    fc_totals_rec tr = {.gemm_calls = t.calls,
                        .gemm_flops = t.flops,
                        .failed_calls = t.failed_calls,
                        .invalid_calls = t.invalid_calls,
                        .unresolved_calls = t.unresolved_calls,
                        .distinct_shapes = t.distinct_shapes,
                        .overflow_calls = t.overflow_calls,
                        .attention_calls = at.calls,
                        .attention_flops = at.executed,
                        .counted_flops = fc_u128_sat_add(t.flops, at.executed)};
    fc_totals_json(w, &tr, FC_TOTALS_SUMS);
    fc_jw_obj_end(w);
    write_groups(w);
    write_shapes(w);
    fc_attention_section_json(w);
    fc_report_launch_json(w);
    /* "running" and "exec" (written before an exec, which may fail) leave
     * the detector's stream open */
    fc_report_sections_json(w, strcmp(status, "running") != 0 && strcmp(status, "exec") != 0,
                            strcmp(status, "interrupted") == 0);
    fc_jw_obj_end(w);
    if (fc_jw_finish(w) != 0)
        fc_warn("writing the report failed: %s", strerror(errno));
}

static int counted_anything(void)
{
    fc_totals t;
    totals(&t);
    return t.calls + t.failed_calls + t.invalid_calls + t.unresolved_calls > 0 ||
           fc_report_attention_seen();
}

int fc_report_counted(void)
{
    return counted_anything();
}

int fc_report_write(const char *status)
{
    static char path[4096 + 96], tmp[4096 + 160];
    int counted = counted_anything(), claim;
    int rc = fc_destination_pick(counted, path, sizeof path, &claim);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, fc_process_pid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) /* left by an earlier process of this pid */
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    static int warned; /* once: snapshots and the exit would say it again */
    if (fd < 0) {
        fc_warn_once(&warned, "cannot create %s: %s; report not written", tmp, strerror(errno));
        return -1;
    }
    write_json(fd, status);
    /* fsync so a report survives a crash of the machine; not for a process
     * that counted nothing (a shell, a launcher), which would pay the
     * disk's latency for a report of zeros */
    int bad = counted && fsync(fd) != 0 && errno != EINVAL;
    bad |= close(fd) != 0;
    if (bad || json_writer.err) {
        fc_warn_once(&warned, "cannot write %s: %s; report not written", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    rc = fc_destination_commit(tmp, path, sizeof path, claim, counted);
    if (rc == 0)
        fc_destination_written(status);
    return rc;
}

static void say(const char *line)
{
    ssize_t n = write(2, line, strlen(line));
    (void)n;
}

static void summary(int interrupted)
{
    char line[640], h[32], exact[FC_U128_DIGITS];
    fc_totals t;
    totals(&t);
    sort_views();
    fc_u128_si(t.flops, "FLOP", h, sizeof h);
    snprintf(line, sizeof line,
             "flopcount: pid %ld: %llu GEMM calls, %s (%s) in %.3f s; %llu failed, %llu invalid\n",
             fc_process_pid(), (unsigned long long)t.calls, h, fc_u128_to_str(t.flops, exact),
             (double)(fc_now_ns() - fc_process_start_ns()) / 1e9, (unsigned long long)t.failed_calls,
             (unsigned long long)t.invalid_calls);
    say(line);
    size_t shown = n_views < 5 ? n_views : 5;
    for (size_t i = 0; i < shown; i++) {
        const fc_shape_view *v = &views[i];
        fc_u128_si(v->flops, "FLOP", h, sizeof h);
        if (v->key.m < 0)
            snprintf(line, sizeof line, "flopcount:   %-26s (shapes beyond the table) %s %8llu calls %s\n",
                     fc_api_name(v->key.api, 0), fc_dtype_name(v->key.dtype),
                     (unsigned long long)v->calls, h);
        else
            snprintf(line, sizeof line,
                     "flopcount:   %-26s %c%c m=%lld n=%lld k=%lld batch=%lld %s %llu calls %s\n",
                     fc_api_name(v->key.api, v->key.flags & FC_API_64), v->key.transa,
                     v->key.transb, (long long)v->key.m, (long long)v->key.n,
                     (long long)v->key.k, (long long)v->key.batch, fc_dtype_name(v->key.dtype),
                     (unsigned long long)v->calls, h);
        say(line);
    }
    /* the experts' load over the run (per iteration: the JSON report) */
    fc_grouped_span g;
    fc_grouped_log_span(0, UINT64_MAX, &g);
    if (g.calls > 0) {
        snprintf(line, sizeof line,
                 "flopcount: expert load (max group work / mean): max %.3f, mean %.3f over %llu "
                 "grouped calls%s\n",
                 g.max, g.mean, (unsigned long long)g.calls,
                 fc_grouped_log_dropped() > 0 ? " (the first kept)" : "");
        say(line);
    }
    fc_attention_section_text(2);
    fc_report_sections_text(2, interrupted);
}

void fc_report_at_exit(const char *status)
{
    if (__atomic_exchange_n(&done_at_exit, 1, __ATOMIC_ACQ_REL))
        return;
    int counted = counted_anything();
    if (fc_process_is_fork_child() && !counted)
        return; /* a worker that ran no GEMM has nothing to say */
    /* ends the detector's stream: the last iteration gets its live line,
     * the Prometheus file its final figures */
    int collected = fc_ring_collect(1) == 0;
    /* one tick-to-second ratio for everything written from here on */
    fc_clock_freeze();
    if (collected) {
        fc_live_poll();
        fc_prom_at_exit(strcmp(status, "interrupted") == 0);
        fc_ring_release();
    }
    fc_report_write(status);
    if (fc_process_is_fork_child() && fc_opt.run_dir[0] == '\0' && fc_opt.output[0] != '\0' &&
        strstr(fc_opt.output, "%p") == NULL)
        fc_warn("forked child %ld ran GEMMs: its report is in FLOPCOUNT_OUTPUT.parts/, which "
                "'flopcount report' adds (put %%p in FLOPCOUNT_OUTPUT to keep its report apart)",
                fc_process_pid());
    /* a process that ran no GEMM, no launch of interest and no cuDNN plan
     * (a job script's shell, ls, git, nvidia-smi) says nothing: the job's
     * summary comes from the process that ran the work */
    if (!fc_opt.quiet && (counted || fc_opt.summary_always))
        summary(strcmp(status, "interrupted") == 0);
}
