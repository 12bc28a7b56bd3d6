/* SPDX-License-Identifier: Apache-2.0 */
/* merge_parts.c - a report given to 'flopcount merge' that has FILE.parts/
 * next to it (LD_PRELOAD with one FLOPCOUNT_OUTPUT and several processes
 * that ran GEMMs): when those processes are ranks, each part joins the
 * merge as a rank's report; otherwise they are one process's job (a fork
 * child, a program exec'd, a script's second training), assembled into one
 * report first (tools/job/), which joins the merge in FILE's place. Either
 * way it is said on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "merge.h"

static int distinct_ranks(const fc_job *j)
{
    long seen[64];
    int n = 0;
    for (size_t i = 0; i < j->n && n < 64; i++) {
        long r = j->members[i].rep.rank;
        if (!j->members[i].ran_gemm || r < 0)
            continue;
        int dup = 0;
        for (int k = 0; k < n; k++)
            dup |= seen[k] == r;
        if (!dup)
            seen[n++] = r;
    }
    return n;
}

/* Replaces entry i by the n paths in add (taken over; shown as they are,
 * not temporary). */
static int splice(fc_merge_paths *p, size_t i, char **add, size_t n)
{
    size_t total = p->n + n - 1;
    char **np = calloc(total, sizeof *np), **ns = calloc(total, sizeof *ns);
    unsigned char *nt = calloc(total, 1);
    if (np == NULL || ns == NULL || nt == NULL) {
        free(np);
        free(ns);
        free(nt);
        return -1;
    }
    memcpy(np, p->paths, i * sizeof *np);
    memcpy(ns, p->show, i * sizeof *ns);
    memcpy(nt, p->temp, i);
    memcpy(np + i, add, n * sizeof *np);
    memcpy(np + i + n, p->paths + i + 1, (p->n - i - 1) * sizeof *np);
    memcpy(ns + i + n, p->show + i + 1, (p->n - i - 1) * sizeof *ns);
    memcpy(nt + i + n, p->temp + i + 1, p->n - i - 1);
    free(p->paths[i]);
    free(p->show[i]);
    free(p->paths);
    free(p->show);
    free(p->temp);
    p->paths = np;
    p->show = ns;
    p->temp = nt;
    p->n = total;
    return 0;
}

/* FILE and its parts of several ranks: each a report of its own. Returns
 * how many entries replace FILE's, or -1. */
static int as_ranks(fc_merge_paths *p, size_t i, const fc_job *j)
{
    char **add = calloc(j->n ? j->n : 1, sizeof *add);
    size_t n = 0;
    for (size_t k = 0; add != NULL && k < j->n; k++)
        if (j->members[k].ran_gemm) {
            if ((add[n] = strdup(j->members[k].path)) == NULL)
                break;
            n++;
        }
    if (add == NULL || n == 0 || splice(p, i, add, n) != 0) {
        for (size_t k = 0; add != NULL && k < n; k++)
            free(add[k]);
        free(add);
        return -1;
    }
    free(add);
    return (int)n;
}

/* FILE and its parts as one process's job: the assembled report, in a
 * temporary file that stands for FILE (shown as FILE). */
static int as_job(fc_merge_paths *p, size_t i, fc_job *j)
{
    size_t len;
    char *text = fc_job_build(j, &len);
    if (text == NULL)
        return -1;
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *tmp = malloc(strlen(dir) + 40);
    int fd = -1;
    if (tmp != NULL) {
        sprintf(tmp, "%s/flopcount-merge-XXXXXX.json", dir);
        fd = mkstemps(tmp, 5);
    }
    int rc = -1;
    if (fd >= 0 && write(fd, text, len) == (ssize_t)len && close(fd) == 0) {
        p->show[i] = p->paths[i];
        p->paths[i] = tmp;
        p->temp[i] = 1;
        rc = 0;
    } else {
        fprintf(stderr, "flopcount merge: cannot write a temporary file in %s\n", dir);
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
    }
    free(text);
    return rc;
}

/* One FILE that has FILE.parts/: 0 (nothing to do, or done), -1. */
static int expand_one(fc_merge_paths *p, size_t *i)
{
    char parts_dir[4200];
    struct stat st;
    if ((size_t)snprintf(parts_dir, sizeof parts_dir, "%s.parts", p->paths[*i]) >= sizeof parts_dir ||
        stat(parts_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0; /* the common case, checked without reading FILE */
    fc_job j;
    memset(&j, 0, sizeof j);
    j.who = "flopcount merge";
    char *file = strdup(p->paths[*i]);
    int parts = file ? fc_job_add_with_parts(&j, file) : -1;
    int rc = 0;
    if (parts > 0 && distinct_ranks(&j) >= 2) {
        fprintf(stderr, "flopcount merge: note: %s: %d more rank report%s of its run in %s.parts/ "
                        "added\n", file, parts, parts == 1 ? "" : "s", file);
        int n = as_ranks(p, *i, &j);
        rc = n > 0 ? 0 : -1;
        if (n > 0)
            *i += (size_t)n - 1;
    } else if (parts > 0) {
        fprintf(stderr, "flopcount merge: note: %s: %d more process%s of its run in %s.parts/: "
                        "taken together as one report\n",
                file, parts, parts == 1 ? "" : "es", file);
        rc = as_job(p, *i, &j);
    }
    fc_job_free(&j);
    free(file);
    return rc; /* parts < 0: FILE unreadable, said again by the loader */
}

int fc_merge_expand_parts(fc_merge_paths *p)
{
    if ((p->show = calloc(p->n ? p->n : 1, sizeof *p->show)) == NULL ||
        (p->temp = calloc(p->n ? p->n : 1, 1)) == NULL)
        return -1;
    for (size_t i = 0; i < p->n; i++)
        if (expand_one(p, &i) != 0)
            return -1;
    return 0;
}

void fc_merge_paths_free(fc_merge_paths *p)
{
    for (size_t i = 0; i < p->n; i++) {
        if (p->temp != NULL && p->temp[i])
            unlink(p->paths[i]);
        free(p->paths[i]);
        if (p->show != NULL)
            free(p->show[i]);
    }
    free(p->paths);
    free(p->show);
    free(p->temp);
    memset(p, 0, sizeof *p);
}
