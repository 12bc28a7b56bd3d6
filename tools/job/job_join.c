/* SPDX-License-Identifier: Apache-2.0 */
/* job_join.c - FILE made the report of its whole run, for LD_PRELOAD with
 * one FLOPCOUNT_OUTPUT=FILE (job.h, fc_job_join_parts): the library runs
 * `flopcount run --join-parts FILE PART` at a process's last write
 * (shim/report/destination_join.c), so that `jq .totals FILE` sees every
 * process of the job once they have all ended.
 *
 * Under flock(2) on FILE's directory, the lock the library takes to write
 * FILE itself: the first writer's report at FILE (a single process's, of
 * PART's run) is linked into FILE.parts/PID-START.json, the name its writer
 * switches to once it sees FILE replaced; the parts of the run (PART's run
 * id, or runs that overlapped it) are assembled as `flopcount run` does
 * (job_build.c); the result, with PART's "run", is renamed over FILE. A
 * crash anywhere leaves FILE whole (old or new) and every part in place;
 * `flopcount report FILE` reads a joined FILE as it is, or the parts when
 * one is newer. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirlock.h"
#include "job.h"

#define LOCK_WAIT_MS 30000

int fc_job_write_file(const char *path, const char *text, size_t len, const char *who)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create %s: %s\n", who, tmp, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int bad = done < len || (fsync(fd) != 0 && errno != EINVAL);
    bad |= close(fd) != 0;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* A run id as a JSON string needs no escaping when it is what the library
 * makes (PID.NS) or close to it; anything else is left out of the patch. */
static int plain(const char *s)
{
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              *s == '.' || *s == '-' || *s == '_'))
            return 0;
    return 1;
}

/* FILE, when it is one process's report of the anchor's run, kept in the
 * parts under its writer's name (an existing part of that name is newer:
 * its writer switched to it). -1 after one line on stderr. */
static int keep_first_writer(const char *file, const char *parts, const fc_job_member *anchor,
                             const char *who)
{
    struct stat st;
    if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    fc_job f;
    memset(&f, 0, sizeof f);
    f.who = who;
    int rc = 0;
    if (fc_job_add_file(&f, file) == 0 && f.n == 1 && !f.members[0].rep.has_job &&
        fc_job_same_run(anchor, &f.members[0])) {
        char moved[4300];
        int n = snprintf(moved, sizeof moved, "%s/%ld-%lld.json", parts, f.members[0].rep.pid,
                         (long long)f.members[0].rep.started_unix_ns);
        if (n < 0 || (size_t)n >= sizeof moved || (link(file, moved) != 0 && errno != EEXIST)) {
            fprintf(stderr, "%s: cannot keep %s's report as %s: %s; not joined\n", who, file, moved,
                    strerror(errno));
            rc = -1;
        }
    }
    fc_job_free(&f);
    return rc;
}

static int join_locked(const char *file, const char *part, const char *who)
{
    char parts[4200];
    snprintf(parts, sizeof parts, "%s.parts", file);
    fc_job a;
    memset(&a, 0, sizeof a);
    a.who = who;
    if (fc_job_add_file(&a, part) != 0 || a.n == 0) {
        fc_job_free(&a);
        return -1; /* said */
    }
    const fc_job_member *anchor = &a.members[0];
    fc_job j;
    memset(&j, 0, sizeof j);
    j.who = who;
    int rc = -1;
    char *text = NULL, *out = NULL;
    size_t len = 0, out_len = 0;
    if (keep_first_writer(file, parts, anchor, who) != 0)
        goto done;
    if (fc_job_add_dir(&j, parts, anchor) != 0) {
        fprintf(stderr, "%s: cannot read %s: %s\n", who, parts, strerror(errno));
        goto done;
    }
    if ((text = fc_job_build(&j, &len)) == NULL)
        goto done;
    if (anchor->rep.run_id[0] != '\0' && plain(anchor->rep.run_id)) {
        char patch[256];
        snprintf(patch, sizeof patch, "{\"run\": {\"id\": \"%s\", \"start_unix_ns\": %lld}}",
                 anchor->rep.run_id, (long long)anchor->rep.run_start_unix_ns);
        out = fc_json_patch_top(text, len, patch, strlen(patch), &out_len);
    }
    rc = fc_job_write_file(file, out != NULL ? out : text, out != NULL ? out_len : len, who);
done:
    free(out);
    free(text);
    fc_job_free(&j);
    fc_job_free(&a);
    return rc;
}

int fc_job_join_parts(const char *file, const char *part)
{
    static const char who[] = "flopcount (joining the run's reports)";
    int lock = fc_dirlock_take(file, LOCK_WAIT_MS); /* -1: the join goes on without it */
    int rc = join_locked(file, part, who);
    fc_dirlock_release(lock);
    return rc;
}
