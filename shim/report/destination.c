/* SPDX-License-Identifier: Apache-2.0 */
/* destination.c - where a process's report goes, so that no process's
 * counts are lost and none replaces another's report.
 *
 * Under 'flopcount run' (FLOPCOUNT_RUN_DIR): every process that ran a GEMM
 * writes DIR/PID-START.json, START being when its image started (exec
 * keeps the pid, so the image before exec and the one after have a part
 * each); one that ran none writes nothing. flopcount run assembles them.
 *
 * With LD_PRELOAD and FLOPCOUNT_OUTPUT=FILE: the first process of the run
 * (the one that found no FLOPCOUNT_RUN_ID) names the run PID.START and
 * passes it on in the environment. The first writer of the run takes FILE
 * (link(2): it never replaces a file another process took meanwhile); any
 * other process of the run that ran GEMMs writes FILE.parts/PID-START.json,
 * which 'flopcount report FILE' and 'flopcount merge' add, saying so. A
 * fork child never takes FILE (its parent will). A FILE written before the
 * run started, and not by it, is stale: the run replaces it. Two runs that
 * overlap in time (two ranks started at once without a common preloaded
 * parent) count as one. A process that ran no GEMM writes FILE only when
 * nobody of the run did (a job without a GEMM still gets its report of 0).
 * With %p in FILE every process has a file of its own, as before.
 *
 * So that FILE itself holds the whole job once every process of it has
 * ended (docs/launchers.md, "Without flopcount run"), a process that wrote
 * its part has the flopcount command join the run into FILE at its last
 * write (destination_join.c); the command moves the first writer's report
 * into FILE.parts/ beside the others and replaces FILE with the job's
 * report, temporary file and rename, under flock(2) on FILE's directory.
 * Writes to FILE itself take that lock too (a few system calls, never in a
 * hook), and the first writer checks FILE is still the file it wrote (its
 * inode): once a join replaced it, its report goes to its part, under the
 * name the command gave the moved copy. */
#include "destination.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/options.h"
#include "core/process.h"
#include "core/rank.h"
#include "dirlock.h"

enum { NOT_YET, OWN_FILE, OWN_PART };

#define LOCK_WAIT_MS 2000 /* a join holds the lock for milliseconds */

static int owned = NOT_YET; /* what this image wrote before: it rewrites the same */
static char owned_path[4096 + 96];
static dev_t owned_dev;     /* OWN_FILE: the file this image last put at FILE */
static ino_t owned_ino;
static char file_path[4096 + 96]; /* FILE, expanded, when a write picked it */
static int picked_file;     /* the write in progress goes to FILE itself */
static int64_t run_start = -1;
static int warned_dir;

/* One FILE for several processes: LD_PRELOAD with FLOPCOUNT_OUTPUT and no
 * %p (flopcount run's per-run directory, and %p, give each its own). */
static int shared_output(void)
{
    return fc_opt.run_dir[0] == '\0' && fc_opt.output[0] != '\0' && strstr(fc_opt.output, "%p") == NULL;
}

/* The coarse clock is the one file times come from, so "written after the
 * run started" compares like with like. */
static int64_t coarse_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void fc_destination_init(void)
{
    if (fc_opt.run_dir[0] != '\0' || fc_opt.output[0] == '\0')
        return;
    if (fc_opt.run_id[0] == '\0') {
        snprintf(fc_opt.run_id, sizeof fc_opt.run_id, "%ld.%lld", fc_process_pid(),
                 (long long)coarse_now());
        setenv("FLOPCOUNT_RUN_ID", fc_opt.run_id, 1);
    }
    const char *dot = strchr(fc_opt.run_id, '.');
    run_start = dot != NULL ? strtoll(dot + 1, NULL, 10) : -1;
    if (shared_output())
        fc_destination_join_init();
}

void fc_destination_after_fork(void)
{
    owned = NOT_YET;
    owned_path[0] = '\0';
    picked_file = 0;
}


const char *fc_destination_run_id(void)
{
    return fc_opt.run_dir[0] == '\0' ? fc_opt.run_id : "";
}

int64_t fc_destination_run_start(void)
{
    return fc_opt.run_dir[0] == '\0' ? run_start : -1;
}

/* Expands %p (pid), %r (rank, 0 without a launcher), %h (host) and %%.
 * Returns -1 when the result does not fit. */
static int expand_path(const char *tmpl, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = tmpl; *p; p++) {
        char piece[300];
        const char *add = piece;
        if (*p == '%' && p[1] != '\0') {
            p++;
            switch (*p) {
            case 'p': snprintf(piece, sizeof piece, "%ld", fc_process_pid()); break;
            case 'r': snprintf(piece, sizeof piece, "%ld", fc_rank.rank < 0 ? 0 : fc_rank.rank); break;
            case 'h': add = fc_rank.hostname; break;
            case '%': add = "%"; break;
            default: snprintf(piece, sizeof piece, "%%%c", *p); break;
            }
        } else {
            piece[0] = *p;
            piece[1] = '\0';
        }
        size_t n = strlen(add);
        if (o + n + 1 > size)
            return -1;
        memcpy(out + o, add, n);
        o += n;
    }
    out[o] = '\0';
    return 0;
}

/* DIR/PID-START.json, this image's part. */
static int part_name(const char *dir, char *out, size_t size)
{
    int n = snprintf(out, size, "%s/%ld-%lld.json", dir, fc_process_pid(),
                     (long long)fc_process_start_unix_ns());
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* FILE.parts/PID-START.json, the directory made if need be. */
static int parts_path(const char *file, char *out, size_t size)
{
    char dir[4096 + 16];
    if ((size_t)snprintf(dir, sizeof dir, "%s.parts", file) >= sizeof dir || part_name(dir, out, size))
        return -1;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fc_warn_once(&warned_dir, "cannot create %s: %s; the report of pid %ld is not written", dir,
                     strerror(errno), fc_process_pid());
        return -1;
    }
    return 0;
}

/* FILE is of this run: naming the run, or written after it started (by a
 * run that overlapped this one). File times tick with the coarse clock: a
 * file written in the tick the run started in is judged by its run id. */
static int of_this_run(const char *file, const struct stat *st)
{
    int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    if (run_start >= 0 && mtime > run_start)
        return 1;
    char head[512], want[96];
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 0 || fc_opt.run_id[0] == '\0')
        return 0;
    head[n] = '\0';
    snprintf(want, sizeof want, "\"id\": \"%s\"", fc_opt.run_id);
    return strstr(head, want) != NULL;
}

/* The parent is a shell (a script that exported LD_PRELOAD), not a
 * program that chose the environment of each child it runs (a test
 * harness, a sweep driver: each child a run of its own, as it asked). */
static int parent_is_shell(pid_t parent)
{
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"};
    char p[64], comm[32] = "";
    snprintf(p, sizeof p, "/proc/%ld/comm", (long)parent);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, comm, sizeof comm - 1);
    close(fd);
    if (n <= 0)
        return 0;
    comm[n] = '\0';
    comm[strcspn(comm, "\n")] = '\0';
    for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++)
        if (strcmp(comm, shells[i]) == 0)
            return 1;
    return 0;
}

/* A stale FILE (another run's) about to be replaced: when its writer was a
 * sibling of this process, started by the same parent, and the parent is a
 * shell that runs its children in its own process group (a script: no job
 * control), or a child of this pid before exec, the two were most likely meant as one job whose parent was not
 * preloaded, so the run id did not reach them. Say what is replaced and how
 * to keep both; the file is replaced all the same (a new run's). */
static void note_sibling_replaced(const char *file)
{
    char head[1024];
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 0)
        return;
    head[n] = '\0';
    const char *pid_at = strstr(head, "\"pid\": "), *ppid_at = strstr(head, "\"ppid\": ");
    if (pid_at == NULL || ppid_at == NULL)
        return;
    long pid = strtol(pid_at + 7, NULL, 10), ppid = strtol(ppid_at + 8, NULL, 10);
    pid_t parent = getppid();
    /* or its writer's parent was this pid before exec: a shell runs its
     * script's last command with exec */
    int sibling = ppid == (long)parent && parent > 1 && getpgid(0) == getpgid(parent) &&
                  parent_is_shell(parent);
    if (!sibling && ppid != fc_process_pid())
        return;
    fc_warn("%s: replacing the report of pid %ld, a process of another run started by the same "
            "parent (pid %ld), which is not preloaded; to keep every process of a script in %s, "
            "preload the script itself (LD_PRELOAD=... FLOPCOUNT_OUTPUT=%s bash SCRIPT), run it "
            "under 'flopcount run', or export FLOPCOUNT_RUN_ID=$$.$(date +%%s%%N) in it",
            file, pid, ppid, file, file);
}

int fc_destination_pick(int counted, char *path, size_t size, int *claim)
{
    *claim = 0;
    picked_file = 0;
    if (owned != NOT_YET) { /* rewrite what this image wrote before */
        snprintf(path, size, "%s", owned_path);
        picked_file = owned == OWN_FILE && shared_output();
        return 0;
    }
    if (fc_opt.run_dir[0] != '\0') {
        if (!counted)
            return 1;
        if (part_name(fc_opt.run_dir, path, size) != 0) {
            fc_warn("FLOPCOUNT_RUN_DIR is too long; report not written");
            return -1;
        }
        return 0;
    }
    if (fc_opt.output[0] == '\0')
        return 1;
    int per_pid = strstr(fc_opt.output, "%p") != NULL;
    if (!counted && (fc_process_is_fork_child() ||
                     (fc_rank.rank < 0 && strstr(fc_opt.output, "%r") != NULL)))
        return 1; /* a worker, or a launcher that would take rank 0's name */
    if (expand_path(fc_opt.output, path, size) != 0) {
        fc_warn("FLOPCOUNT_OUTPUT is too long; report not written");
        return -1;
    }
    struct stat st;
    snprintf(file_path, sizeof file_path, "%s", path);
    picked_file = !per_pid;
    if (lstat(path, &st) != 0) { /* nobody wrote it: take it */
        *claim = !(fc_process_is_fork_child() && !per_pid);
        if (*claim)
            return 0;
    } else if (!S_ISREG(st.st_mode)) {
        fc_warn("%s exists and is not a regular file (a symbolic link?); report not written", path);
        picked_file = 0;
        return -1;
    } else if (!of_this_run(path, &st) && !(fc_process_is_fork_child() && !per_pid)) {
        if (!per_pid)
            note_sibling_replaced(path);
        return 0; /* stale: left by an earlier run, replaced */
    }
    picked_file = 0;
    if (!counted)
        return 1; /* another process of the run has it: never replaced by nothing */
    char file[4096 + 96];
    snprintf(file, sizeof file, "%s", path);
    return parts_path(file, path, size) == 0 ? 0 : -1;
}

/* This image's FILE, as it last wrote it, is still FILE's content. */
static int still_own(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && st.st_dev == owned_dev && st.st_ino == owned_ino;
}

static void remember_own(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        owned_dev = st.st_dev;
        owned_ino = st.st_ino;
    }
}

static int commit_locked(const char *tmp, char *path, size_t size, int claim, int counted);

int fc_destination_commit(const char *tmp, char *path, size_t size, int claim, int counted)
{
    int lock = picked_file ? fc_dirlock_take(path, LOCK_WAIT_MS) : -1;
    if (picked_file && owned == OWN_FILE && !still_own(path)) {
        /* a join replaced FILE: this image's report lives in its part now */
        if (parts_path(file_path, owned_path, sizeof owned_path) != 0) {
            fc_dirlock_release(lock);
            unlink(tmp);
            return -1;
        }
        owned = OWN_PART;
        snprintf(path, size, "%s", owned_path);
        picked_file = 0;
    }
    int rc = commit_locked(tmp, path, size, claim, counted);
    fc_dirlock_release(lock);
    return rc;
}

static int commit_locked(const char *tmp, char *path, size_t size, int claim, int counted)
{
    if (claim) {
        if (link(tmp, path) == 0) {
            unlink(tmp);
            owned = OWN_FILE;
            snprintf(owned_path, sizeof owned_path, "%s", path);
            remember_own(path);
            return 0;
        }
        if (errno != EEXIST || !counted) { /* taken meanwhile by a process with counts */
            if (errno != EEXIST)
                fc_warn("cannot write %s: %s; report not written", path, strerror(errno));
            unlink(tmp);
            return errno == EEXIST ? 0 : -1;
        }
        char file[4096 + 96];
        snprintf(file, sizeof file, "%s", path);
        if (parts_path(file, path, size) != 0) {
            unlink(tmp);
            return -1;
        }
    }
    if (rename(tmp, path) != 0) {
        fc_warn("cannot write %s: %s; report not written", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (owned == NOT_YET) {
        owned = fc_opt.run_dir[0] != '\0' || strstr(path, ".parts/") != NULL ? OWN_PART : OWN_FILE;
        snprintf(owned_path, sizeof owned_path, "%s", path);
    }
    if (owned == OWN_FILE)
        remember_own(path);
    return 0;
}

void fc_destination_written(const char *status)
{
    /* a snapshot ("running") leaves the join to the last write */
    if (shared_output() && owned == OWN_PART && strcmp(status, "running") != 0)
        fc_destination_join(file_path, owned_path);
}
