/* SPDX-License-Identifier: Apache-2.0 */
/* job_build.c - the job report from its parts (job.h): which process's
 * report is the body, what is summed, the "processes" list and the "job"
 * section, spliced onto the body with job_splice.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flopcount.h"
#include "job.h"
#include "jsonw.h"
#include "merge.h"

enum { LVL_COMPLETE, LVL_INTERRUPTED, LVL_INCOMPLETE };
static const char *const level_name[] = {"complete", "interrupted", "incomplete"};

typedef struct plan {
    fc_job *j;
    size_t n_gemm;       /* members that ran GEMMs */
    size_t n_ranks;      /* members merged as ranks (0: not a merge) */
    fc_job_member *base; /* its text is the body; NULL: merged ranks or no report */
    int sums;            /* totals etc. summed over every member that ran GEMMs */
    int level;           /* the job's status */
    fc_merge all;        /* those sums */
    fc_merge ranks;      /* the merge of the ranks */
} plan;

/* The names of the standard signals, by the macros: glibc's sigabbrev_np
 * came with 2.32, newer than the wheel's glibc floor (2.28). */
#define FC_SIG(name) {name, #name}
static const struct {
    int sig;
    const char *name;
} signal_names[] = {
    FC_SIG(SIGHUP),  FC_SIG(SIGINT),    FC_SIG(SIGQUIT), FC_SIG(SIGILL),   FC_SIG(SIGTRAP),
    FC_SIG(SIGABRT), FC_SIG(SIGBUS),    FC_SIG(SIGFPE),  FC_SIG(SIGKILL),  FC_SIG(SIGUSR1),
    FC_SIG(SIGSEGV), FC_SIG(SIGUSR2),   FC_SIG(SIGPIPE), FC_SIG(SIGALRM),  FC_SIG(SIGTERM),
    FC_SIG(SIGCHLD), FC_SIG(SIGCONT),   FC_SIG(SIGSTOP), FC_SIG(SIGTSTP),  FC_SIG(SIGTTIN),
    FC_SIG(SIGTTOU), FC_SIG(SIGURG),    FC_SIG(SIGXCPU), FC_SIG(SIGXFSZ),  FC_SIG(SIGVTALRM),
    FC_SIG(SIGPROF), FC_SIG(SIGWINCH),  FC_SIG(SIGIO),   FC_SIG(SIGPWR),   FC_SIG(SIGSYS),
#ifdef SIGSTKFLT
    FC_SIG(SIGSTKFLT),
#endif
};

const char *fc_signal_name(int sig, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (signal_names[i].sig == sig) {
            snprintf(buf, size, "%s", signal_names[i].name);
            return buf;
        }
    snprintf(buf, size, "signal %d", sig);
    return buf;
}

static int status_level(const char *status)
{
    if (strcmp(status, "complete") == 0 || strcmp(status, "exec") == 0)
        return LVL_COMPLETE;
    if (strcmp(status, "interrupted") == 0)
        return LVL_INTERRUPTED;
    return LVL_INCOMPLETE; /* "running": the process left only a snapshot */
}

static int has_iterations(const fc_job_member *m)
{
    return m->rep.has_iterations && m->rep.iterations.n_list > 0;
}

/* The better of two candidates for "the process that trained": one with
 * iterations, then more FLOPs in them, then more FLOPs, then not a fork
 * child, then the earlier one. */
static int better(const fc_job_member *a, const fc_job_member *b)
{
    if (b == NULL)
        return 1;
    if (has_iterations(a) != has_iterations(b))
        return has_iterations(a);
    if (a->rep.iterations.flops != b->rep.iterations.flops)
        return a->rep.iterations.flops > b->rep.iterations.flops;
    if (a->rep.totals.gemm_flops != b->rep.totals.gemm_flops)
        return a->rep.totals.gemm_flops > b->rep.totals.gemm_flops;
    return !a->rep.fork_child && b->rep.fork_child;
}

static int member_is_child(const fc_job *j, size_t i)
{
    if (j->child == NULL || j->members[i].rep.pid != j->child->pid)
        return 0;
    for (size_t k = i + 1; k < j->n; k++) /* the last image of the child's pid */
        if (j->members[k].rep.pid == j->child->pid)
            return 0;
    return 1;
}

/* Roles: one base, or one rank per distinct rank; the rest of the GEMM
 * runners are extras. */
static void choose(plan *p)
{
    fc_job *j = p->j;
    long *seen = calloc(j->n ? j->n : 1, sizeof *seen);
    size_t n_seen = 0;
    for (size_t i = 0; i < j->n; i++) {
        fc_job_member *m = &j->members[i];
        m->role = m->ran_gemm ? FC_JOB_EXTRA : FC_JOB_NONE;
        p->n_gemm += m->ran_gemm;
        if (!m->ran_gemm || m->rep.rank < 0 || seen == NULL)
            continue;
        size_t k = 0;
        while (k < n_seen && seen[k] != m->rep.rank)
            k++;
        if (k == n_seen)
            seen[n_seen++] = m->rep.rank;
    }
    if (n_seen >= 2) { /* ranks: the best member of each */
        for (size_t k = 0; k < n_seen; k++) {
            fc_job_member *best = NULL;
            for (size_t i = 0; i < j->n; i++)
                if (j->members[i].ran_gemm && j->members[i].rep.rank == seen[k] &&
                    better(&j->members[i], best))
                    best = &j->members[i];
            best->role = FC_JOB_RANK;
            p->n_ranks++;
        }
    } else {
        for (size_t i = 0; i < j->n; i++)
            if (j->members[i].ran_gemm && better(&j->members[i], p->base))
                p->base = &j->members[i];
        if (p->base == NULL) /* nobody ran a GEMM: the command's own report, if any */
            for (size_t i = 0; i < j->n; i++)
                if (member_is_child(j, i) || (j->child == NULL && p->base == NULL))
                    p->base = &j->members[i];
        if (p->base != NULL)
            p->base->role = FC_JOB_BASE;
    }
    free(seen);
    p->sums = p->n_gemm > (p->n_ranks ? p->n_ranks : 1);
}

static void job_level(plan *p)
{
    const fc_job *j = p->j;
    p->level = LVL_COMPLETE;
    for (size_t i = 0; i < j->n; i++) {
        const fc_job_member *m = &j->members[i];
        int l = status_level(m->rep.status);
        if ((m->ran_gemm || m->role == FC_JOB_BASE) && l > p->level)
            p->level = l;
    }
    if (p->n_ranks && (p->ranks.n_missing || p->ranks.world_disagrees))
        p->level = LVL_INCOMPLETE;
    if (j->child != NULL && p->level < LVL_INTERRUPTED &&
        (WIFSIGNALED(j->child->wait_status) || j->child->forwarded_signal))
        p->level = LVL_INTERRUPTED;
}

/* ---- text from a writer ---- */

typedef int (*fill_fn)(int fd, void *ctx);

static char *text_of(fill_fn fill, void *ctx, size_t *len)
{
    FILE *f = tmpfile();
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    long n;
    if (fill(fileno(f), ctx) == 0 && (n = lseek(fileno(f), 0, SEEK_END)) >= 0 &&
        lseek(fileno(f), 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        if (read(fileno(f), buf, (size_t)n) != n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

static int fill_merge(int fd, void *ctx)
{
    return fc_merge_write_json(ctx, fd);
}

/* No process ran a GEMM and none left a report to stand for the job. */
static int fill_zero(int fd, void *ctx)
{
    const fc_job *j = ctx;
    const fc_job_child *c = j->child;
    static fc_jw w;
    fc_jw_init(&w, fd, 1);
    fc_jw_obj_begin(&w, NULL);
    fc_jw_i64(&w, "schema", 1);
    fc_jw_obj_begin(&w, "tool");
    fc_jw_str(&w, "name", "flopcount");
    fc_jw_str(&w, "version", FLOPCOUNT_VERSION_STRING);
    fc_jw_obj_end(&w);
    fc_jw_obj_begin(&w, "process");
    fc_jw_i64(&w, "pid", c->pid);
    fc_jw_i64(&w, "ppid", (int64_t)getpid());
    fc_jw_str(&w, "command", c->command);
    fc_jw_str(&w, "hostname", c->hostname);
    fc_jw_null(&w, "rank");
    fc_jw_null(&w, "local_rank");
    fc_jw_null(&w, "world_size");
    fc_jw_str(&w, "launcher", "none");
    fc_jw_bool(&w, "fork_child", 0);
    fc_jw_obj_end(&w);
    fc_jw_str(&w, "status", "complete");
    fc_jw_double(&w, "wall_seconds", c->wall_seconds);
    fc_jw_obj_begin(&w, "totals"); /* all 0 (analysis/run/schema_totals.h) */
    static const fc_totals_rec zero;
    fc_totals_json(&w, &zero,
                   FC_TOTALS_BIT(attention_calls) | FC_TOTALS_BIT(attention_flops) |
                       FC_TOTALS_BIT(counted_flops) | FC_TOTALS_SUMS);
    fc_jw_obj_end(&w);
    fc_jw_obj_begin(&w, "by_api");
    fc_jw_obj_end(&w);
    fc_jw_obj_begin(&w, "by_dtype");
    fc_jw_obj_end(&w);
    fc_jw_arr_begin(&w, "shapes");
    fc_jw_arr_end(&w);
    fc_jw_null(&w, "utilization");
    fc_jw_str(&w, "utilization_reason", "no process of the job ran a GEMM");
    fc_jw_obj_end(&w);
    return fc_jw_finish(&w);
}

/* ---- the patch: sums, status, processes, job ---- */

static void wait_words(int status, char *buf, size_t size)
{
    char name[32];
    if (WIFEXITED(status))
        snprintf(buf, size, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, size, "signal %d (%s)", WTERMSIG(status),
                 fc_signal_name(WTERMSIG(status), name, sizeof name));
    else
        snprintf(buf, size, "unknown");
}

static void ended_words(const fc_job *j, size_t i, char *buf, size_t size)
{
    const char *s = j->members[i].rep.status;
    if (member_is_child(j, i))
        wait_words(j->child->wait_status, buf, size);
    else if (strcmp(s, "complete") == 0)
        snprintf(buf, size, "exit");
    else if (strcmp(s, "interrupted") == 0)
        snprintf(buf, size, "interrupted (SIGINT or SIGTERM)");
    else if (strcmp(s, "exec") == 0)
        snprintf(buf, size, "exec (a new program replaced it)");
    else if (strcmp(s, "running") == 0)
        snprintf(buf, size, "no final report (killed, or still running)");
    else
        snprintf(buf, size, "%s", s);
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void write_member(fc_jw *w, const fc_job *j, size_t i)
{
    const fc_job_member *m = &j->members[i];
    const fc_report *r = &m->rep;
    char ended[96];
    ended_words(j, i, ended, sizeof ended);
    fc_jw_obj_begin(w, NULL);
    fc_jw_i64(w, "pid", r->pid);
    if (r->ppid >= 0)
        fc_jw_i64(w, "ppid", r->ppid);
    else
        fc_jw_null(w, "ppid");
    fc_jw_str(w, "command", r->command);
    if (r->rank >= 0)
        fc_jw_i64(w, "rank", r->rank);
    else
        fc_jw_null(w, "rank");
    fc_jw_bool(w, "fork_child", r->fork_child);
    fc_jw_str(w, "status", r->status);
    fc_jw_str(w, "ended", ended);
    fc_jw_u64(w, "gemm_calls", r->totals.gemm_calls);
    fc_jw_u128(w, "gemm_flops", r->totals.gemm_flops);
    fc_jw_u64(w, "failed_calls", r->totals.failed_calls);
    if (r->has_iterations)
        fc_jw_u64(w, "iterations", r->iterations.count);
    else
        fc_jw_null(w, "iterations");
    fc_jw_bool(w, "iterations_used",
               (m->role == FC_JOB_BASE || m->role == FC_JOB_RANK) && has_iterations(m));
    fc_jw_str(w, "file", basename_of(m->path));
    fc_jw_obj_end(w);
}

/* The command 'flopcount run' started, when it left no report (it ran no
 * GEMM): what waitpid said. Listed first. */
static void write_child(fc_jw *w, const fc_job_child *c)
{
    char ended[96];
    wait_words(c->wait_status, ended, sizeof ended);
    fc_jw_obj_begin(w, NULL);
    fc_jw_i64(w, "pid", c->pid);
    fc_jw_i64(w, "ppid", (int64_t)getpid());
    fc_jw_str(w, "command", c->command);
    fc_jw_null(w, "rank");
    fc_jw_bool(w, "fork_child", 0);
    fc_jw_null(w, "status");
    fc_jw_str(w, "ended", ended);
    fc_jw_u64(w, "gemm_calls", 0);
    fc_jw_u64(w, "gemm_flops", 0);
    fc_jw_u64(w, "failed_calls", 0);
    fc_jw_null(w, "iterations");
    fc_jw_bool(w, "iterations_used", 0);
    fc_jw_null(w, "file");
    fc_jw_obj_end(w);
}

static void write_sums(fc_jw *w, plan *p)
{
    const fc_job *j = p->j;
    uint64_t overflow = 0;
    for (size_t i = 0; i < j->n; i++)
        if (j->members[i].ran_gemm)
            overflow += j->members[i].rep.totals.overflow_calls;
    size_t distinct = 0;
    for (size_t i = 0; i < p->all.sum.n_shapes; i++)
        distinct += !p->all.sum.shapes[i].overflow;
    fc_jw_obj_begin(w, "totals");
    fc_merge_json_totals(w, &p->all, distinct, (int64_t)overflow,
                         p->n_ranks ? (int64_t)p->ranks.n_used : -1, (int64_t)p->n_gemm);
    fc_jw_obj_end(w);
    fc_merge_json_groups(w, "by_api", p->all.sum.by_api, p->all.sum.n_by_api);
    fc_merge_json_groups(w, "by_dtype", p->all.sum.by_dtype, p->all.sum.n_by_dtype);
    fc_merge_json_shapes(w, &p->all);
    fc_merge_json_attention(w, &p->all); /* "attention" and "uncounted", summed exactly */
}

static void how_words(const plan *p, char *buf, size_t size)
{
    size_t extra = p->n_gemm - (p->n_ranks ? p->n_ranks : (p->base && p->base->ran_gemm));
    if (p->n_ranks)
        snprintf(buf, size, "%zu ranks merged as 'flopcount merge' does", p->n_ranks);
    else if (p->base != NULL && p->base->ran_gemm)
        snprintf(buf, size, "the report of pid %ld%s", p->base->rep.pid,
                 has_iterations(p->base) ? ", the process that trained" : "");
    else
        snprintf(buf, size, "no process of the job ran a GEMM");
    if (extra) {
        size_t o = strlen(buf);
        snprintf(buf + o, size - o, "; totals, by_api, by_dtype, shapes, attention and uncounted summed over %zu "
                                    "processes",
                 p->n_gemm);
    }
}

static void write_job(fc_jw *w, const plan *p)
{
    const fc_job *j = p->j;
    const fc_job_child *c = j->child;
    char words[96], how[256];
    fc_jw_obj_begin(w, "job");
    if (c != NULL) {
        wait_words(c->wait_status, words, sizeof words);
        fc_jw_str(w, "command", c->command);
        fc_jw_i64(w, "pid", c->pid);
        fc_jw_str(w, "ended", words);
        fc_jw_i64(w, "exit_status", c->exit_code);
        if (c->forwarded_signal)
            fc_jw_str(w, "forwarded_signal",
                      fc_signal_name(c->forwarded_signal, words, sizeof words));
        else
            fc_jw_null(w, "forwarded_signal");
    }
    how_words(p, how, sizeof how);
    fc_jw_str(w, "assembled", how);
    fc_jw_u64(w, "processes_with_gemms", p->n_gemm);
    fc_jw_arr_begin(w, "iterations_from");
    for (size_t i = 0; i < j->n; i++) {
        const fc_job_member *m = &j->members[i];
        if ((m->role == FC_JOB_BASE || m->role == FC_JOB_RANK) && has_iterations(m))
            fc_jw_i64(w, NULL, m->rep.pid);
    }
    fc_jw_arr_end(w);
    size_t incomplete = 0;
    for (size_t i = 0; i < j->n; i++)
        incomplete += j->members[i].ran_gemm &&
                      status_level(j->members[i].rep.status) == LVL_INCOMPLETE;
    fc_jw_u64(w, "incomplete", incomplete);
    if (j->parts[0])
        fc_jw_str(w, "parts", j->parts);
    else
        fc_jw_null(w, "parts");
    fc_jw_u64(w, "stale_parts_ignored", j->stale_ignored);
    fc_jw_u64(w, "unreadable_parts", j->unreadable);
    fc_jw_obj_end(w);
}

static int fill_patch(int fd, void *ctx)
{
    plan *p = ctx;
    const fc_job *j = p->j;
    static fc_jw w;
    fc_jw_init(&w, fd, 1);
    fc_jw_obj_begin(&w, NULL);
    if (p->sums)
        write_sums(&w, p);
    const char *base_status = p->base ? p->base->rep.status : "";
    if (p->base == NULL || p->sums || status_level(base_status) < p->level ||
        strcmp(base_status, "running") == 0)
        fc_jw_str(&w, "status", level_name[p->level]);
    fc_jw_arr_begin(&w, "processes");
    int child_listed = 0;
    for (size_t i = 0; i < j->n; i++)
        child_listed |= member_is_child(j, i);
    if (j->child != NULL && !child_listed) /* it started first */
        write_child(&w, j->child);
    for (size_t i = 0; i < j->n; i++)
        write_member(&w, j, i);
    fc_jw_arr_end(&w);
    write_job(&w, p);
    fc_jw_obj_end(&w);
    return fc_jw_finish(&w);
}

/* ---- assembly ---- */

static int by_start(const void *x, const void *y)
{
    const fc_job_member *a = x, *b = y;
    int64_t sa = a->rep.started_unix_ns, sb = b->rep.started_unix_ns;
    if (sa >= 0 && sb >= 0 && sa != sb)
        return (sa > sb) - (sa < sb);
    if (a->rep.pid != b->rep.pid)
        return (a->rep.pid > b->rep.pid) - (a->rep.pid < b->rep.pid);
    return (a->mtime_ns > b->mtime_ns) - (a->mtime_ns < b->mtime_ns);
}

static int sum_and_merge(plan *p)
{
    fc_job *j = p->j;
    char err[256];
    for (size_t i = 0; i < j->n; i++)
        if (j->members[i].ran_gemm && fc_merge_sum_report(&p->all, &j->members[i].rep) != 0)
            return -1;
    fc_run_sum_finish(&p->all.sum);
    fc_merge_attention_done(&p->all);
    if (p->n_ranks == 0)
        return 0;
    if ((p->ranks.ranks = calloc(p->n_ranks, sizeof *p->ranks.ranks)) == NULL)
        return -1;
    for (size_t i = 0; i < j->n; i++) {
        fc_job_member *m = &j->members[i];
        if (m->role != FC_JOB_RANK)
            continue;
        if (fc_merge_add(&p->ranks.ranks[p->ranks.n_ranks], m->path, &m->rep, err, sizeof err) != 0 ||
            fc_merge_infer_rank(&p->ranks.ranks[p->ranks.n_ranks], &m->rep) != 0)
            return -1;
        p->ranks.n_ranks++;
        if (fc_merge_sum_report(&p->ranks, &m->rep) != 0)
            return -1;
    }
    fc_merge_peak_from_reports(&p->ranks);
    return fc_merge_analyze(&p->ranks) != 0 || fc_merge_infer(&p->ranks) != 0 ? -1 : 0;
}

char *fc_job_build(fc_job *j, size_t *len)
{
    plan p;
    memset(&p, 0, sizeof p);
    p.j = j;
    if (j->n > 1)
        qsort(j->members, j->n, sizeof *j->members, by_start);
    if (j->n == 0 && j->child == NULL) {
        fprintf(stderr, "%s: no report to assemble\n", j->who);
        return NULL;
    }
    choose(&p);
    char *out = NULL, *body = NULL, *patch = NULL;
    size_t body_len = 0, patch_len = 0;
    if (sum_and_merge(&p) != 0) {
        fprintf(stderr, "%s: out of memory\n", j->who);
        goto done;
    }
    job_level(&p);
    if (p.n_ranks)
        body = text_of(fill_merge, &p.ranks, &body_len);
    else if (p.base == NULL)
        body = text_of(fill_zero, j, &body_len);
    patch = text_of(fill_patch, &p, &patch_len);
    const char *b = p.base && !p.n_ranks ? p.base->text : body;
    size_t bl = p.base && !p.n_ranks ? p.base->len : body_len;
    if (b != NULL && patch != NULL)
        out = fc_json_patch_top(b, bl, patch, patch_len, len);
    if (out == NULL)
        fprintf(stderr, "%s: cannot assemble the job report (out of memory, or a part "
                        "that is not a JSON object)\n", j->who);
done:
    free(body);
    free(patch);
    fc_merge_free(&p.all);
    fc_merge_free(&p.ranks);
    return out;
}
