/* SPDX-License-Identifier: Apache-2.0 */
/* tensorboard.c - the figures of each finished training iteration as
 * TensorBoard scalars (tensorboard.h), so the curves a person watches sit
 * beside the loss with no code change.
 *
 * Each iteration's Event holds (docs/tensorboard.md): flopcount/hfu,
 * flopcount/hfu_dtype_mix (when the peaks of every dtype are known),
 * flopcount/mfu (counted FLOPs less recompute), flopcount/mfu_formula
 * (when the model read off the GEMMs fits the count, as in the live line),
 * flopcount/tflops, flopcount/iteration_seconds,
 * flopcount/recompute_fraction and flopcount/eval_passes, computed from the
 * iteration as the JSON report's list has it and the report's peak
 * (figures.c). The run's figures (the peak, the dtype mix) are recomputed
 * at most once a second and at every flush, not per iteration: they sort
 * every stored iteration.
 *
 * Records go into a fixed buffer and reach the file with one write per
 * tick, so the file always holds whole records up to the last tick: a
 * process killed by SIGKILL leaves a file TensorBoard reads to there. No
 * fsync (a crash of the machine, not of the process, may lose the tail).
 * A failure to create or write the file is said once, with the path and
 * the reason, and switches the writer off; the job runs on. */
#include "tensorboard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/diag.h"
#include "core/options.h"
#include "core/process.h"
#include "core/rank.h"
#include "detect/steps.h"
#include "figures.h"
#include "inferred.h"
#include "mkdirs.h"
#include "ring/ring.h"
#include "tensorboard_record.h"

#define FIGURES_EVERY_NS 1000000000ull
#define MAX_SCALARS 8
#define KEPT_LAST 64 /* fc_steps_iteration keeps the last 64 finished */

static int on;
static int fd = -1;
static int warned;
static char run_dir[4096 + 32], file_path[4096 + 400];
static uint8_t buf[16384];
static size_t used;
static uint64_t written_up_to; /* iterations of written_mode already written */
static int written_mode;
static fc_figures fig; /* the run's figures, as of fig_ns */
static int have_fig;
static uint64_t fig_ns;

int fc_tb_init(void)
{
    on = 0;
    if (fc_opt.tensorboard[0] == '\0' || !fc_is_enabled())
        return -1;
    fc_tb_record_init();
    on = 1;
    return 0;
}

void fc_tb_after_fork_child(void)
{
    if (fd >= 0)
        close(fd); /* the child's copy of the parent's descriptor */
    fd = -1;
    used = 0;
    written_up_to = 0;
    written_mode = 0;
    have_fig = 0;
}

static void turn_off(const char *what, const char *path, int err)
{
    fc_warn_once(&warned, "cannot %s %.300s: %s; no TensorBoard scalars", what, path,
                 strerror(err));
    on = 0;
    if (fd >= 0)
        close(fd);
    fd = -1;
}

static int write_all(const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The file, created at the first record: the run folder made, then
 * events.out.tfevents.<unix s>.<host>.<pid>.flopcount (another suffix if
 * an image of the same pid took that name in the same second), and the
 * file_version record every event file starts with. */
static int open_file(void)
{
    if (fc_rank.rank >= 0)
        snprintf(run_dir, sizeof run_dir, "%s/rank%ld", fc_opt.tensorboard, fc_rank.rank);
    else
        snprintf(run_dir, sizeof run_dir, "%s/pid%ld", fc_opt.tensorboard, fc_process_pid());
    char failed[sizeof run_dir];
    if (fc_mkdirs(run_dir, failed, sizeof failed) != 0) {
        int e = errno;
        fc_warn_once(&warned,
                     "cannot create the directory %.300s (%.300s: %s); no TensorBoard scalars",
                     run_dir, failed, strerror(e));
        on = 0;
        return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (int k = 0; k < 10 && fd < 0; k++) {
        char extra[16] = "";
        if (k > 0)
            snprintf(extra, sizeof extra, ".%d", k);
        snprintf(file_path, sizeof file_path, "%s/events.out.tfevents.%lld.%s.%ld%s.flopcount",
                 run_dir, (long long)now.tv_sec, fc_rank.hostname, fc_process_pid(), extra);
        fd = open(file_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        turn_off("create", file_path, errno);
        return -1;
    }
    uint8_t head[64];
    size_t n = 0; /* stamped with the process's start: where "relative" time begins */
    fc_tb_append_version(head, sizeof head, &n, (double)fc_process_start_unix_ns() / 1e9);
    if (write_all(head, n) != 0) {
        turn_off("write", file_path, errno);
        return -1;
    }
    return 0;
}

static void flush_buffer(void)
{
    if (used == 0 || !on)
        return;
    int saved = errno;
    if ((fd >= 0 || open_file() == 0) && write_all(buf, used) != 0)
        turn_off("write", file_path, errno);
    used = 0;
    errno = saved;
}

/* The scalars of iteration it (docs/tensorboard.md gives each formula):
 * their number, into v. */
static size_t scalars_of(const fc_iteration *it, fc_tb_scalar *v)
{
    size_t n = 0;
    double secs = fc_iteration_seconds(it);
    fc_u128 all = fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec));
    double hw = fc_u128_to_double(all);
    double peak = fig.util_ok ? fig.pc.flops : 0;
    if (secs > 0 && peak > 0) {
        v[n++] = (fc_tb_scalar){"flopcount/hfu", (float)(hw / (peak * secs))};
        /* this iteration's FLOPs at the run's dtype shares: its HFU times
         * the run's ratio of HFU at the mix to HFU (one dtype: 1) */
        if (fig.mix_ok && fig.hfu > 0)
            v[n++] = (fc_tb_scalar){"flopcount/hfu_dtype_mix",
                                    (float)(hw / (peak * secs) * (fig.hfu_mix / fig.hfu))};
        double h, m; /* the run's expression (run_figures.h), of this iteration */
        fc_fig_utilization(all, it->rec, it->xs, secs, 1, peak, &h, &m);
        v[n++] = (fc_tb_scalar){"flopcount/mfu", (float)m};
        fc_u128 model;
        if (fc_inferred_iteration_model(it, &model) == 0)
            v[n++] = (fc_tb_scalar){"flopcount/mfu_formula",
                                    (float)(fc_u128_to_double(model) / (peak * secs))};
    }
    if (secs > 0) {
        v[n++] = (fc_tb_scalar){"flopcount/tflops", (float)(hw / secs / 1e12)};
        v[n++] = (fc_tb_scalar){"flopcount/iteration_seconds", (float)secs};
    }
    if (all > 0)
        v[n++] = (fc_tb_scalar){"flopcount/recompute_fraction",
                                (float)(fc_u128_to_double(it->rec) / hw)};
    v[n++] = (fc_tb_scalar){"flopcount/eval_passes", (float)it->evals};
    return n;
}

/* The iterations finished and not written yet, into the buffer and the
 * file. The caller holds the drain lock. */
static void write_new(int may_look, int refresh)
{
    int mode = fc_steps_mode();
    fc_steps_view v;
    fc_steps_get(mode, &v);
    if (mode != written_mode) { /* markers took over from automatic detection: their own count */
        written_mode = mode;
        written_up_to = 0;
    }
    if (v.count <= written_up_to)
        return;
    uint64_t now = fc_now_ns();
    if (!have_fig || refresh || now - fig_ns >= FIGURES_EVERY_NS) {
        fc_figures_compute(&fig, may_look);
        have_fig = 1;
        fig_ns = now;
    }
    double start = (double)fc_process_start_unix_ns() / 1e9;
    uint64_t first = written_up_to + 1;
    if (v.count > written_up_to + KEPT_LAST)
        first = v.count - (KEPT_LAST - 1);
    for (uint64_t i = first; i <= v.count && on; i++) {
        fc_iteration it;
        if (fc_steps_iteration(mode, i, &it) != 0)
            continue;
        fc_tb_scalar s[MAX_SCALARS];
        size_t n = scalars_of(&it, s);
        double wall = start + fc_ticks_since_start(it.t1);
        if (fc_tb_append_scalars(buf, sizeof buf, &used, wall, (int64_t)i, s, n) != 0) {
            flush_buffer();
            fc_tb_append_scalars(buf, sizeof buf, &used, wall, (int64_t)i, s, n);
        }
    }
    written_up_to = v.count;
    flush_buffer();
}

void fc_tb_tick(void)
{
    if (on)
        write_new(1, 0);
}

void fc_tb_flush(int may_look)
{
    /* a process that ran no GEMM and no marker has no iteration (and its
     * detector is not even set up) */
    if (!on || !fc_ring_active() || fc_ring_collect(0) != 0)
        return;
    write_new(may_look, 1);
    fc_ring_release();
}
