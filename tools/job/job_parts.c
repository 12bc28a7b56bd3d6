/* SPDX-License-Identifier: Apache-2.0 */
/* job_parts.c - the per-process reports ("parts") of a job, read from a
 * directory or from next to a report file, kept verbatim beside their
 * parsed form. With LD_PRELOAD and one output path (no per-run directory),
 * FILE.parts/ may also hold parts of earlier runs: a part belongs to FILE's
 * run when it names the same run, or when the two runs overlapped in time
 * (two ranks started at once by a launcher that was not preloaded); the
 * others are counted as stale and left out. FILE may itself be the run
 * joined by job_join.c, whose members are all in the parts then. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job.h"

#define MAX_PART_BYTES (512u << 20)

static char *slurp(const char *path, size_t *len, int64_t *mtime_ns, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        fclose(f);
        return NULL;
    }
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = cap <= MAX_PART_BYTES ? malloc(cap + 1) : NULL;
    if (buf == NULL) {
        snprintf(err, errlen, cap > MAX_PART_BYTES ? "too large" : "out of memory");
        fclose(f);
        return NULL;
    }
    for (;;) { /* the size may have changed since fstat: read to the end */
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap >= MAX_PART_BYTES)
            break;
        char *b = realloc(buf, cap * 2 + 1);
        if (b == NULL)
            break;
        buf = b;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "read error");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static fc_job_member *grow(fc_job *j)
{
    if (j->n == j->cap) {
        size_t cap = j->cap ? j->cap * 2 : 8;
        fc_job_member *b = realloc(j->members, cap * sizeof *b);
        if (b == NULL)
            return NULL;
        j->members = b;
        j->cap = cap;
    }
    fc_job_member *m = &j->members[j->n];
    memset(m, 0, sizeof *m);
    return m;
}

int fc_job_add_file(fc_job *j, const char *path)
{
    char err[512];
    fc_job_member *m = grow(j);
    if (m == NULL || (m->path = strdup(path)) == NULL)
        return -1;
    m->text = slurp(path, &m->len, &m->mtime_ns, err, sizeof err);
    if (m->text == NULL || fc_report_parse(m->text, m->len, &m->rep, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s: %s; left out\n", j->who, path, m->len || m->text == NULL ? err : "empty file");
        free(m->text);
        free(m->path);
        j->unreadable++;
        return 0;
    }
    const fc_report *r = &m->rep;
    m->ran_gemm = r->totals.gemm_calls + r->totals.failed_calls + r->totals.invalid_calls +
                      r->totals.unresolved_calls > 0 ||
                  fc_report_attention_any(&r->attn); /* counted (or failed) attention calls */
    j->n++;
    return 0;
}

/* Start of a part's run, or of the process itself when it names none. */
static int64_t run_start(const fc_job_member *m)
{
    if (m->rep.run_start_unix_ns >= 0)
        return m->rep.run_start_unix_ns;
    return m->rep.started_unix_ns;
}

int fc_job_same_run(const fc_job_member *a, const fc_job_member *b)
{
    if (a->rep.run_id[0] && strcmp(a->rep.run_id, b->rep.run_id) == 0)
        return 1;
    int64_t sa = run_start(a), sb = run_start(b);
    if (sa < 0 || sb < 0)
        return 1; /* cannot tell: keep it (said nowhere else, so kept) */
    return sa <= b->mtime_ns && sb <= a->mtime_ns; /* the two runs overlapped */
}

static int by_start(const void *x, const void *y)
{
    const fc_job_member *a = x, *b = y;
    int64_t sa = a->rep.started_unix_ns, sb = b->rep.started_unix_ns;
    if (sa != sb)
        return (sa > sb) - (sa < sb);
    if (a->rep.pid != b->rep.pid)
        return (a->rep.pid > b->rep.pid) - (a->rep.pid < b->rep.pid);
    return (a->mtime_ns > b->mtime_ns) - (a->mtime_ns < b->mtime_ns);
}

int fc_job_add_dir(fc_job *j, const char *dir, const fc_job_member *anchor)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    size_t first = j->n;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' || n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        size_t before = j->n;
        rc = fc_job_add_file(j, path);
        if (rc == 0 && anchor != NULL && j->n > before && !fc_job_same_run(anchor, &j->members[before])) {
            j->n--;
            fc_report_free(&j->members[before].rep);
            free(j->members[before].text);
            free(j->members[before].path);
            j->stale_ignored++;
        }
    }
    closedir(d);
    if (j->n - first > 1)
        qsort(j->members + first, j->n - first, sizeof *j->members, by_start);
    snprintf(j->parts, sizeof j->parts, "%s", dir);
    return rc;
}

static void drop(fc_job *j, size_t i)
{
    fc_report_free(&j->members[i].rep);
    free(j->members[i].text);
    free(j->members[i].path);
    memmove(j->members + i, j->members + i + 1, (j->n - i - 1) * sizeof *j->members);
    j->n--;
}

static int same_image(const fc_job_member *a, const fc_job_member *b)
{
    return a->rep.pid == b->rep.pid && a->rep.started_unix_ns == b->rep.started_unix_ns;
}

int fc_job_add_with_parts(fc_job *j, const char *path)
{
    size_t before = j->n;
    if (fc_job_add_file(j, path) != 0)
        return -1;
    if (j->n == before)
        return -1; /* unreadable: said */
    char dir[4096];
    struct stat st;
    if ((size_t)snprintf(dir, sizeof dir, "%s.parts", path) >= sizeof dir ||
        stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    fc_job_member anchor = j->members[before]; /* a copy: the array may move */
    if (fc_job_add_dir(j, dir, &anchor) != 0 && errno != ENOENT) {
        fprintf(stderr, "%s: cannot read %s: %s\n", j->who, dir, strerror(errno));
        return -1;
    }
    if (anchor.rep.has_job) {
        /* FILE is the run joined (job_join.c): read as it is unless a part
         * was written after it (a process still running, or one whose join
         * did not run) or it merged ranks (which 'merge' takes one by
         * one); then the parts are the run */
        int newer = anchor.rep.is_merge;
        for (size_t i = before + 1; i < j->n; i++)
            newer |= j->members[i].mtime_ns > anchor.mtime_ns;
        while (!newer && j->n > before + 1)
            drop(j, j->n - 1);
        if (!newer)
            return 0;
        drop(j, before);
        return (int)(j->n - before - 1);
    }
    /* the first writer's report may also be in the parts, moved there by
     * a join that ended before replacing FILE: once, the later copy */
    for (size_t i = before + 1; i < j->n; i++)
        if (same_image(&j->members[before], &j->members[i])) {
            if (j->members[i].mtime_ns > j->members[before].mtime_ns) {
                fc_job_member t = j->members[before];
                j->members[before] = j->members[i];
                j->members[i] = t;
            }
            drop(j, i);
            break;
        }
    return (int)(j->n - before - 1);
}

void fc_job_free(fc_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        fc_report_free(&j->members[i].rep);
        free(j->members[i].text);
        free(j->members[i].path);
    }
    free(j->members);
    j->members = NULL;
    j->n = j->cap = 0;
}
