/* SPDX-License-Identifier: Apache-2.0 */
/* test_footprint_idle.c - a process that runs no GEMM pays next to nothing
 * for the preloaded shim, whatever the options (issue 20): no thread
 * started, libunwind not mapped, the report written, and its peak resident
 * memory within 1 MiB of the same program without the shim - which it
 * could not be if any of the shim's tables (tens of MiB of capacity) were
 * cleared or walked. The control: one GEMM in the same program starts the
 * drainer thread (when it may run on two CPUs) and maps libunwind (call
 * sites on), so the probes do see the shim at work.
 *
 * Not a timing test: peak RSS (ru_maxrss from wait4) of 5 runs each,
 * medians compared. Sanitizer builds (their runtimes reserve and touch
 * memory of their own, and TSan starts a thread) skip the RSS bound and
 * compare thread counts with the bare run's.
 *
 * usage: test_footprint_idle FIXTURE PRELOAD WORK */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define RUNS 5
#define BOUND_KIB 1024

static const char *fixture, *work;
static int failures;

typedef struct result {
    int threads, unwind, cpus;
    long maxrss_kib;
} result;

/* Runs the fixture with the environment strings env (NULL-terminated),
 * stdout into a pipe; 0 with *r filled. */
static int run(char *const *env, const char *arg, result *r)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        unsetenv("LD_PRELOAD");
        for (char *const *e = env; *e != NULL; e++)
            putenv(*e);
        execl(fixture, fixture, arg, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[256] = "";
    ssize_t n = read(fd[0], out, sizeof out - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd[0]);
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0 ||
        sscanf(out, "threads=%d unwind=%d cpus=%d", &r->threads, &r->unwind, &r->cpus) != 3) {
        fprintf(stderr, "fixture failed: '%s'\n", out);
        return -1;
    }
    r->maxrss_kib = ru.ru_maxrss;
    return 0;
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* RUNS runs; the median peak RSS, the last run's other figures. */
static int runs(char *const *env, const char *arg, result *r)
{
    long rss[RUNS];
    for (int i = 0; i < RUNS; i++) {
        if (run(env, arg, r) != 0)
            return -1;
        rss[i] = r->maxrss_kib;
    }
    qsort(rss, RUNS, sizeof rss[0], by_long);
    r->maxrss_kib = rss[RUNS / 2];
    return 0;
}

static void fail(const char *what, const char *why)
{
    fprintf(stderr, "FAIL: %s: %s\n", what, why);
    failures++;
}

static int file_has(const char *path, const char *text)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_footprint_idle FIXTURE PRELOAD WORK\n");
        return 2;
    }
    fixture = argv[1];
    work = argv[3];
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    if (system(cmd) != 0 || mkdir(work, 0755) != 0) {
        fprintf(stderr, "cannot make %s\n", work);
        return 2;
    }
    static char pre[8192], out[8192];
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", argv[2]);
    snprintf(out, sizeof out, "FLOPCOUNT_OUTPUT=%s/idle-%%p.json", work);

    char *bare_env[] = {NULL};
    char *plain_env[] = {pre, NULL};
    char *opts_env[] = {pre, out, "FLOPCOUNT_LOG_EVERY=1", "FLOPCOUNT_SNAPSHOT_SECONDS=0.1",
                        "FLOPCOUNT_CALLSITES=1", NULL};
    struct {
        const char *name;
        char **env;
    } cases[] = {{"no options", plain_env}, {"every option", opts_env}};

    result bare;
    if (runs(bare_env, "idle", &bare) != 0)
        return 1;
    printf("bare: threads %d, peak RSS %ld KiB (median of %d)\n", bare.threads, bare.maxrss_kib, RUNS);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        result r;
        char why[256];
        if (runs(cases[c].env, "idle", &r) != 0) {
            fail(cases[c].name, "the fixture did not run");
            continue;
        }
        printf("%s: threads %d, libunwind %s, peak RSS %ld KiB (%+ld)\n", cases[c].name, r.threads,
               r.unwind ? "mapped" : "not mapped", r.maxrss_kib, r.maxrss_kib - bare.maxrss_kib);
        if (r.threads != bare.threads) {
            snprintf(why, sizeof why, "%d threads, %d without the shim", r.threads, bare.threads);
            fail(cases[c].name, why);
        }
        if (r.unwind)
            fail(cases[c].name, "libunwind mapped before any GEMM");
        if (!SANITIZED && r.maxrss_kib - bare.maxrss_kib > BOUND_KIB) {
            snprintf(why, sizeof why, "peak RSS %ld KiB above the bare run's (bound %d)",
                     r.maxrss_kib - bare.maxrss_kib, BOUND_KIB);
            fail(cases[c].name, why);
        }
    }
    /* the report of a process with no GEMM: there, with zero calls */
    char first[8192] = "";
    DIR *d = opendir(work);
    struct dirent *e;
    while (d != NULL && first[0] == '\0' && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "idle-", 5) == 0 && strstr(e->d_name, ".json") != NULL &&
            strstr(e->d_name, ".tmp") == NULL)
            snprintf(first, sizeof first, "%s/%s", work, e->d_name);
    if (d != NULL)
        closedir(d);
    if (first[0] == '\0')
        fail("every option", "no report written");
    else if (!file_has(first, "\"gemm_calls\": 0,") || !file_has(first, "\"status\": \"complete\""))
        fail("every option", "the report does not say 0 GEMM calls, complete");
    /* the control: one GEMM starts the drainer (on two CPUs or more) and
     * loads libunwind for its call site */
    result g;
    if (run(plain_env, "gemm", &g) != 0) {
        fail("one GEMM", "the fixture did not run");
    } else {
        int want = bare.threads + (g.cpus > 1 ? 1 : 0);
        printf("one GEMM: threads %d (want %d), libunwind %s\n", g.threads, want,
               g.unwind ? "mapped" : "not mapped");
        /* a sanitizer runtime may start a thread of its own with the first */
        if (SANITIZED ? g.threads < want : g.threads != want)
            fail("one GEMM", "the drainer thread is not there: the probe would miss a thread");
        if (!g.unwind && !SANITIZED)
            fail("one GEMM", "libunwind not mapped after a GEMM with call sites on");
    }
    if (failures) {
        fprintf(stderr, "footprint_idle: %d failure(s)\n", failures);
        return 1;
    }
    printf("footprint_idle: all cases passed\n");
    return 0;
}
