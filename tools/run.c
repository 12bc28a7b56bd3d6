/* SPDX-License-Identifier: Apache-2.0 */
/* run.c - 'flopcount run [options] -- CMD ARGS...': run a command with the
 * shim preloaded (in front of any LD_PRELOAD it already has), as NVTX
 * injection library too, and exit with the command's own status. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../analysis/parse.h"
#include "tools.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flopcount run [--output FILE] [--quiet] [--log-every N] [--peak-tflops X]\n"
            "                     [--nvtx-step NAME] [--snapshot-seconds S] [--prometheus DIR]\n"
            "                     [--kernels] [--hw-flops]\n"
            "                     -- CMD [ARGS...]\n"
            "  --output FILE      JSON report path (default flopcount.json; %%p pid, %%r rank, %%h host)\n"
            "  --quiet            no summary on stderr\n"
            "  --log-every N      one live line on stderr every N training iterations\n"
            "  --peak-tflops X    per-device peak for HFU/MFU when the device is not detected\n"
            "  --nvtx-step NAME   NVTX range name that marks one iteration (default step)\n"
            "  --snapshot-seconds S  rewrite the report every S seconds while running\n"
            "  --prometheus DIR   write Prometheus metrics for node-exporter's textfile collector\n"
            "                     into DIR (every FLOPCOUNT_PROMETHEUS_SECONDS, default 15)\n"
            "  --kernels          GPU kernel time through CUPTI: busy time, GEMM kernel time\n"
            "                     per shape, attention/communication/other kernels\n"
            "  --hw-flops         hardware-measured FLOPs (CUPTI PM sampling; implies --kernels;\n"
            "                     not yet validated on hardware)\n"
            "The Python module 'flopcount' (markers, live figures) is put on PYTHONPATH.\n");
}

/* The shim next to this executable: BIN/../lib/libflopcount.so, in the
 * build tree and in an installed prefix alike; FLOPCOUNT_LIB overrides. */
static int find_shim(char *out, size_t size)
{
    const char *env = getenv("FLOPCOUNT_LIB");
    if (env != NULL && *env != '\0') {
        if (access(env, R_OK) != 0)
            return -1;
        snprintf(out, size, "%s", env);
        return 0;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, size, "%s/../lib/libflopcount.so", exe) >= size)
        return -1;
    char *real = realpath(out, NULL);
    if (real == NULL)
        return -1;
    snprintf(out, size, "%s", real);
    free(real);
    return 0;
}

static int set_env_checked(const char *name, const char *value, const char *flag,
                           int (*check)(const char *))
{
    if (check != NULL && check(value) != 0) {
        fprintf(stderr, "flopcount run: bad value '%s' for %s\n", value, flag);
        return -1;
    }
    setenv(name, value, 1);
    return 0;
}

static int check_count(const char *v)
{
    uint64_t x;
    return fc_parse_u64(v, 1000000000ull, &x);
}

static int check_dir(const char *v)
{
    struct stat st;
    return stat(v, &st) == 0 && S_ISDIR(st.st_mode) && access(v, W_OK | X_OK) == 0 ? 0 : -1;
}

static int check_positive(const char *v)
{
    double x;
    return fc_parse_double(v, 1e-9, 1e7, &x);
}

int fc_cmd_run(int argc, char **argv)
{
    int i = 1;
    const char *output = NULL;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--quiet") == 0) {
            setenv("FLOPCOUNT_QUIET", "1", 1);
            continue;
        }
        if (strcmp(a, "--kernels") == 0 || strcmp(a, "--hw-flops") == 0) {
            setenv(a[2] == 'k' ? "FLOPCOUNT_KERNELS" : "FLOPCOUNT_HW_FLOPS", "1", 1);
            continue;
        }
        if (a[0] != '-')
            break; /* the command itself, without "--" */
        if (i + 1 >= argc) {
            fprintf(stderr, "flopcount run: %s needs a value\n", a);
            return 2;
        }
        const char *v = argv[++i];
        int bad = 0;
        if (strcmp(a, "--output") == 0 || strcmp(a, "-o") == 0)
            output = v;
        else if (strcmp(a, "--log-every") == 0)
            bad = set_env_checked("FLOPCOUNT_LOG_EVERY", v, a, check_count);
        else if (strcmp(a, "--peak-tflops") == 0)
            bad = set_env_checked("FLOPCOUNT_PEAK_TFLOPS", v, a, check_positive);
        else if (strcmp(a, "--snapshot-seconds") == 0)
            bad = set_env_checked("FLOPCOUNT_SNAPSHOT_SECONDS", v, a, check_positive);
        else if (strcmp(a, "--prometheus") == 0)
            bad = set_env_checked("FLOPCOUNT_PROMETHEUS", v, a, check_dir);
        else if (strcmp(a, "--nvtx-step") == 0)
            bad = set_env_checked("FLOPCOUNT_NVTX_STEP", v, a, NULL);
        else {
            fprintf(stderr, "flopcount run: unknown option '%s' (try --help)\n", a);
            return 2;
        }
        if (bad)
            return 2;
    }
    if (i >= argc) {
        fprintf(stderr, "flopcount run: no command given (flopcount run [options] -- CMD ARGS...)\n");
        return 2;
    }
    char shim[4096];
    if (find_shim(shim, sizeof shim) != 0) {
        fprintf(stderr, "flopcount run: cannot find libflopcount.so next to this program "
                        "(set FLOPCOUNT_LIB to its path)\n");
        return 2;
    }
    const char *old = getenv("LD_PRELOAD");
    char preload[8192];
    if (old != NULL && *old != '\0')
        snprintf(preload, sizeof preload, "%s:%s", shim, old);
    else
        snprintf(preload, sizeof preload, "%s", shim);
    setenv("LD_PRELOAD", preload, 1);
    setenv("NVTX_INJECTION64_PATH", shim, 1);
    fc_run_python_path();
    if (output != NULL)
        setenv("FLOPCOUNT_OUTPUT", output, 1);
    else if (getenv("FLOPCOUNT_OUTPUT") == NULL)
        setenv("FLOPCOUNT_OUTPUT", "flopcount.json", 1);

    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "flopcount run: fork failed: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        execvp(argv[i], argv + i);
        fprintf(stderr, "flopcount run: cannot run '%s': %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C reaches the whole process group; the child decides, we wait. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "flopcount run: waitpid failed: %s\n", strerror(errno));
            return 2;
        }
    }
    const char *out = getenv("FLOPCOUNT_OUTPUT");
    struct stat st;
    if (out != NULL && strchr(out, '%') == NULL && stat(out, &st) == 0 && !getenv("FLOPCOUNT_QUIET"))
        fprintf(stderr, "flopcount: report: %s (read it with 'flopcount report %s')\n", out, out);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}
