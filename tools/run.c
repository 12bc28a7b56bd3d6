/* SPDX-License-Identifier: Apache-2.0 */
/* run.c - 'flopcount run [options] -- CMD ARGS...': run a command with the
 * shim preloaded (in front of any LD_PRELOAD it already has) and as NVTX
 * injection library, follow every process under it through a per-run
 * directory they each write their part into, and when the command is done
 * write the one report of the job (tools/job/). Exits with the command's
 * own status (run_wait.c starts it, passes signals on and waits). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../analysis/launcher.h"
#include "../analysis/mkdirs.h"
#include "../analysis/parse.h"
#include "run.h"
#include "tools.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flopcount run [--output FILE] [--quiet] [--log-every N] [--peak-tflops X]\n"
            "                     [--nvtx-step NAME] [--snapshot-seconds S] [--prometheus DIR]\n"
            "                     [--tensorboard DIR] [--kernels] [--hw-flops]\n"
            "                     [--read-device-sizes] [--null-gpu [h100|h200|b200|a100|l40s]]\n"
            "                     -- CMD [ARGS...]\n"
            "  --output FILE      the job's JSON report (default flopcount.json; %%p the command's\n"
            "                     pid, %%r the rank the launcher gave flopcount run, %%h host)\n"
            "  --quiet            no summaries on stderr\n"
            "  --log-every N      one live line on stderr every N training iterations\n"
            "  --peak-tflops X    per-device peak for HFU/MFU when the device is not detected\n"
            "  --nvtx-step NAME   NVTX range name that marks one iteration (default step)\n"
            "  --snapshot-seconds S  each process rewrites its part every S seconds\n"
            "  --prometheus DIR   write Prometheus metrics for node-exporter's textfile collector\n"
            "                     into DIR (every FLOPCOUNT_PROMETHEUS_SECONDS, default 15)\n"
            "  --tensorboard DIR  write TensorBoard scalars (HFU, MFU, TFLOP/s, ...) per\n"
            "                     iteration, one event file per process in DIR/rank<R>/\n"
            "                     (DIR/pid<P>/ without a rank)\n"
            "  (a missing --prometheus or --tensorboard DIR is created)\n"
            "  --kernels          GPU kernel time through CUPTI: busy time, GEMM kernel time\n"
            "                     per shape, attention/communication/other kernels\n"
            "  --hw-flops         hardware-measured FLOPs (CUPTI PM sampling; implies --kernels;\n"
            "                     not yet validated on hardware)\n"
            "  --read-device-sizes  grouped GEMMs whose sizes are in device memory (MoE\n"
            "                     experts): copy the sizes back asynchronously and report\n"
            "                     their exact FLOPs and load spread (docs/moe.md)\n"
            "  --null-gpu [KIND]  run on the null GPU, flopcount's own libcuda.so.1 (no GPU\n"
            "                     needed): one device of KIND (default h100), host memory, no-op\n"
            "                     kernels; the report gives the FLOPs the job would run on it\n"
            "                     (iterations, split, recompute, attention, inferred model), no\n"
            "                     HFU/MFU, and says that value-dependent paths may differ\n"
            "The Python module 'flopcount' (markers, live figures) is put on PYTHONPATH.\n"
            "Every process under CMD that runs GEMMs is counted (children, fork children,\n"
            "exec'd programs, ranks started by a launcher); the report sums them and lists\n"
            "them. SIGTERM, SIGINT and SIGHUP are passed on to CMD; the exit status is CMD's.\n");
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

static int check_positive(const char *v)
{
    double x;
    return fc_parse_double(v, 1e-9, 1e7, &x);
}

/* An output directory (--prometheus, --tensorboard): made when missing
 * (mkdir -p), then it must be writable; else one line with the path and
 * the reason. */
static int output_dir(const char *flag, const char *dir)
{
    char where[4096];
    if (dir[0] == '\0') { /* --tensorboard "$UNSET_VARIABLE" */
        fprintf(stderr, "flopcount run: %s: the directory is empty; name one\n", flag);
        return -1;
    }
    if (fc_mkdirs(dir, where, sizeof where) != 0) {
        fprintf(stderr, "flopcount run: %s %s: cannot create the directory (%s: %s)\n", flag, dir,
                where[0] ? where : dir, strerror(errno));
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "flopcount run: %s %s: the directory is not writable: %s\n", flag, dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* --null-gpu's device kinds (nullgpu/device.c). */
static const char *const null_gpu_kinds[] = {"h100", "h200", "b200", "a100", "l40s"};

static int is_null_gpu_kind(const char *v)
{
    for (size_t k = 0; k < sizeof null_gpu_kinds / sizeof null_gpu_kinds[0]; k++)
        if (strcmp(v, null_gpu_kinds[k]) == 0)
            return 1;
    return 0;
}

/* Options up to the command; *cmd its index. -1: said, exit 2; 1: --help. */
static int parse(int argc, char **argv, const char **output, int *cmd, const char **null_gpu)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (strcmp(a, "--quiet") == 0) {
            setenv("FLOPCOUNT_QUIET", "1", 1);
            continue;
        }
        if (strcmp(a, "--read-device-sizes") == 0) {
            setenv("FLOPCOUNT_READ_DEVICE_SIZES", "1", 1);
            continue;
        }
        if (strcmp(a, "--kernels") == 0 || strcmp(a, "--hw-flops") == 0) {
            setenv(a[2] == 'k' ? "FLOPCOUNT_KERNELS" : "FLOPCOUNT_HW_FLOPS", "1", 1);
            continue;
        }
        if (strcmp(a, "--null-gpu") == 0 || strncmp(a, "--null-gpu=", 11) == 0) {
            const char *kind = a[10] == '=' ? a + 11 : "h100";
            if (a[10] != '=' && i + 1 < argc && is_null_gpu_kind(argv[i + 1]))
                kind = argv[++i];
            if (!is_null_gpu_kind(kind)) {
                fprintf(stderr, "flopcount run: --null-gpu: unknown device '%s' (h100, h200, "
                                "b200, a100, l40s)\n", kind);
                return -1;
            }
            *null_gpu = kind;
            continue;
        }
        if (a[0] != '-')
            break; /* the command itself, without "--" */
        static const char *const with_value[] = {"--output", "-o", "--log-every", "--peak-tflops",
                                                 "--snapshot-seconds", "--nvtx-step",
                                                 "--prometheus", "--tensorboard"};
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            known |= strcmp(a, with_value[k]) == 0;
        if (!known) {
            fprintf(stderr, "flopcount run: unknown option '%s' (try --help)\n", a);
            return -1;
        }
        if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0) { /* "--output -- CMD": no file name */
            fprintf(stderr, "flopcount run: %s needs a value\n", a);
            return -1;
        }
        const char *v = argv[++i];
        int bad = 0;
        if (strcmp(a, "--output") == 0 || strcmp(a, "-o") == 0)
            *output = v;
        else if (strcmp(a, "--log-every") == 0)
            bad = set_env_checked("FLOPCOUNT_LOG_EVERY", v, a, check_count);
        else if (strcmp(a, "--peak-tflops") == 0)
            bad = set_env_checked("FLOPCOUNT_PEAK_TFLOPS", v, a, check_positive);
        else if (strcmp(a, "--snapshot-seconds") == 0)
            bad = set_env_checked("FLOPCOUNT_SNAPSHOT_SECONDS", v, a, check_positive);
        else if (strcmp(a, "--prometheus") == 0 || strcmp(a, "--tensorboard") == 0)
            bad = output_dir(a, v) != 0 ||
                  set_env_checked(a[2] == 'p' ? "FLOPCOUNT_PROMETHEUS" : "FLOPCOUNT_TENSORBOARD", v,
                                  a, NULL) != 0;
        else
            bad = set_env_checked("FLOPCOUNT_NVTX_STEP", v, a, NULL);
        if (bad)
            return -1;
    }
    if (i >= argc) {
        fprintf(stderr, "flopcount run: no command given (flopcount run [options] -- CMD ARGS...)\n");
        return -1;
    }
    *cmd = i;
    return 0;
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

/* %p (pid: the command's), %r (the rank the launcher gave flopcount run,
 * 0 without), %h (host), %%. -1 when it does not fit. */
static int expand(const char *tmpl, long pid, char *out, size_t size)
{
    fc_launcher_rank l;
    fc_launcher_rank_from_env(env_get, &l);
    char host[256] = "unknown";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    size_t o = 0;
    for (const char *p = tmpl; *p; p++) {
        char piece[300] = {*p, 0};
        if (*p == '%' && p[1] != '\0') {
            p++;
            if (*p == 'p')
                snprintf(piece, sizeof piece, "%ld", pid);
            else if (*p == 'r')
                snprintf(piece, sizeof piece, "%ld", l.rank < 0 ? 0 : l.rank);
            else if (*p == 'h')
                snprintf(piece, sizeof piece, "%s", host);
            else if (*p != '%')
                snprintf(piece, sizeof piece, "%%%c", *p);
        }
        size_t n = strlen(piece);
        if (o + n + 1 > size)
            return -1;
        memcpy(out + o, piece, n + 1);
        o += n;
    }
    return 0;
}

/* Length of a sanitizer runtime at the start of an LD_PRELOAD list (it
 * must stay first), 0 when there is none. */
static size_t runtime_first(const char *list)
{
    size_t n = strcspn(list, ": ");
    const char *base = list;
    for (size_t i = 0; i < n; i++)
        if (list[i] == '/')
            base = list + i + 1;
    if (strncmp(base, "libasan", 7) == 0 || strncmp(base, "libtsan", 7) == 0 ||
        strncmp(base, "libclang_rt.", 12) == 0)
        return n;
    return 0;
}

/* The environment of the command: the shim preloaded first (after a
 * sanitizer runtime, which must come first), NVTX routed to it, the CUDA
 * driver's injection too (CUPTI then starts inside cuInit, so its launch
 * callbacks see a program that never calls cuBLAS: a statically linked
 * runtime, Triton's driver launches; docs/launch.md) unless a profiler
 * took it or FLOPCOUNT_CUPTI=0 keeps CUPTI out, and where each process
 * writes its part. */
static void set_env(const char *shim, const char *run_dir)
{
    const char *old = getenv("LD_PRELOAD");
    char preload[8192];
    size_t keep = old != NULL ? runtime_first(old) : 0;
    if (keep > 0)
        snprintf(preload, sizeof preload, "%.*s:%s%s", (int)keep, old, shim, old + keep);
    else if (old != NULL && *old != '\0')
        snprintf(preload, sizeof preload, "%s:%s", shim, old);
    else
        snprintf(preload, sizeof preload, "%s", shim);
    setenv("LD_PRELOAD", preload, 1);
    setenv("NVTX_INJECTION64_PATH", shim, 1);
    const char *cupti = getenv("FLOPCOUNT_CUPTI");
    if (getenv("CUDA_INJECTION64_PATH") == NULL && !(cupti != NULL && strcmp(cupti, "0") == 0))
        setenv("CUDA_INJECTION64_PATH", shim, 1);
    fc_run_python_path();
    unsetenv("FLOPCOUNT_RUN_ID"); /* a run this one may be nested in is not ours */
    unsetenv("FLOPCOUNT_OUTPUT"); /* the processes write their parts, flopcount run the report */
    if (run_dir[0] != '\0')
        setenv("FLOPCOUNT_RUN_DIR", run_dir, 1);
    else
        unsetenv("FLOPCOUNT_RUN_DIR"); /* no place to write: no reports, the job runs on */
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        char path[4600];
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
                unlink(path);
        closedir(d);
    }
    rmdir(dir);
}

/* The one report of the job, from the parts in the per-run directory. */
static void job_report(fc_run *r, const char *output)
{
    fc_job j;
    memset(&j, 0, sizeof j);
    j.child = &r->child;
    j.who = "flopcount run";
    size_t len = 0;
    char *text = NULL;
    if (fc_job_add_dir(&j, r->run_dir, NULL) != 0)
        fprintf(stderr, "flopcount run: cannot read %s: %s\n", r->run_dir, strerror(errno));
    else {
        j.parts[0] = '\0'; /* removed once the report is written */
        text = fc_job_build(&j, &len);
    }
    if (text != NULL && fc_job_write_file(output, text, len, "flopcount run") == 0) {
        remove_dir(r->run_dir);
        if (!r->quiet) {
            size_t gemm = 0;
            for (size_t i = 0; i < j.n; i++)
                gemm += j.members[i].ran_gemm;
            if (gemm > 1)
                fprintf(stderr, "flopcount: report: %s (%zu processes ran GEMMs; read it with "
                                "'flopcount report %s')\n", output, gemm, output);
            else
                fprintf(stderr, "flopcount: report: %s (read it with 'flopcount report %s')\n",
                        output, output);
        }
    } else {
        fprintf(stderr, "flopcount run: no job report written; the processes' own reports "
                        "are in %s\n", r->run_dir);
    }
    free(text);
    fc_job_free(&j);
}

/* The null GPU's libcuda.so.1 (found as the shim is: installed in
 * LIBDIR/flopcount/nullgpu/, in the build tree in nullgpu/;
 * FLOPCOUNT_NULLGPU_LIB names it). 0 when found. */
static int find_null_gpu(char *lib, size_t size)
{
    const char *env = getenv("FLOPCOUNT_NULLGPU_LIB");
    if (env != NULL && *env != '\0') {
        snprintf(lib, size, "%s", env);
        return access(lib, R_OK);
    }
    if (fc_run_find_installed("flopcount/nullgpu/libcuda.so.1", 0, lib, size) == 0)
        return 0;
    return fc_run_find_installed("../nullgpu/libcuda.so.1", 0, lib, size);
}

/* --null-gpu KIND: the null GPU's directory first on the library path,
 * its device kind, CUPTI kept out (it cannot run without a real driver),
 * and the shim told, so its report has no HFU/MFU and says why. */
static int use_null_gpu(const char *kind)
{
    char lib[4096];
    if (find_null_gpu(lib, sizeof lib) != 0) {
        fprintf(stderr, "flopcount run: --null-gpu: cannot find the null GPU's libcuda.so.1 next "
                        "to this program (set FLOPCOUNT_NULLGPU_LIB to its path)\n");
        return -1;
    }
    char *slash = strrchr(lib, '/');
    if (slash != NULL)
        *slash = '\0';
    const char *old = getenv("LD_LIBRARY_PATH");
    size_t size = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *path = malloc(size);
    if (path == NULL)
        return -1;
    snprintf(path, size, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    free(path);
    setenv("FLOPCOUNT_NULLGPU_DEVICE", kind, 1);
    setenv("FLOPCOUNT_NULL_GPU", kind, 1);
    setenv("FLOPCOUNT_CUPTI", "0", 1);
    return 0;
}

/* A report path that exists as something else than a regular file is bad
 * input: refused before anything runs. */
static int check_output(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "flopcount run: %s exists and is not a regular file (a directory, a "
                        "symbolic link?); choose another --output\n", path);
        return -1;
    }
    return 0;
}

/* The folder of --output FILE and those missing above it. */
static void make_output_dir(const char *output)
{
    char dir[4096], where[4096];
    const char *slash = strrchr(output, '/');
    if (slash == NULL || slash == output || (size_t)(slash - output) >= sizeof dir)
        return;
    memcpy(dir, output, (size_t)(slash - output));
    dir[slash - output] = '\0';
    (void)fc_mkdirs(dir, where, sizeof where);
}

int fc_cmd_run(int argc, char **argv)
{
    /* the library's entry under LD_PRELOAD with one FLOPCOUNT_OUTPUT
     * (shim/report/destination_join.c), not for people: not in --help */
    if (argc == 4 && strcmp(argv[1], "--join-parts") == 0)
        return fc_job_join_parts(argv[2], argv[3]) == 0 ? 0 : 1;
    const char *tmpl = NULL;
    int cmd = 0;
    const char *null_gpu = NULL;
    int rc = parse(argc, argv, &tmpl, &cmd, &null_gpu);
    if (rc != 0) {
        if (rc > 0)
            usage(stdout);
        return rc > 0 ? 0 : 2;
    }
    if (tmpl == NULL)
        tmpl = getenv("FLOPCOUNT_OUTPUT") && *getenv("FLOPCOUNT_OUTPUT") ? getenv("FLOPCOUNT_OUTPUT")
                                                                        : "flopcount.json";
    static fc_run r;
    char shim[4096], output[4096];
    if (fc_run_find_shim(shim, sizeof shim) != 0) {
        fprintf(stderr, "flopcount run: cannot find libflopcount.so next to this program "
                        "(set FLOPCOUNT_LIB to its path)\n");
        return 2;
    }
    /* %p is the command's pid, known once it runs: until then (the per-run
     * directory's name) this process's */
    if (expand(tmpl, (long)getpid(), output, sizeof output) != 0 ||
        strlen(output) + 16 > sizeof r.run_dir) {
        fprintf(stderr, "flopcount run: the --output path is too long\n");
        return 2;
    }
    if (strstr(tmpl, "%p") == NULL && check_output(output) != 0)
        return 2;
    r.argv = argv + cmd;
    r.quiet = getenv("FLOPCOUNT_QUIET") != NULL && strcmp(getenv("FLOPCOUNT_QUIET"), "0") != 0;
    snprintf(r.run_dir, sizeof r.run_dir, "%s.parts-XXXXXX", output);
    make_output_dir(output); /* mkdir -p, as --tensorboard; a failure is mkdtemp's to say */
    if (mkdtemp(r.run_dir) == NULL) {
        fprintf(stderr, "flopcount run: cannot create the per-run directory %s: %s; no report "
                        "will be written (the command runs on)\n", r.run_dir, strerror(errno));
        r.run_dir[0] = '\0';
    }
    if (null_gpu != NULL && use_null_gpu(null_gpu) != 0)
        return 2;
    set_env(shim, r.run_dir);
    rc = fc_run_command(&r);
    if (rc != 0) { /* it never ran */
        if (r.run_dir[0])
            remove_dir(r.run_dir);
        return rc == 1 ? r.child.exit_code : 2;
    }
    if (r.run_dir[0] && expand(tmpl, r.child.pid, output, sizeof output) == 0 &&
        check_output(output) == 0)
        job_report(&r, output);
    else if (r.run_dir[0])
        fprintf(stderr, "flopcount run: the processes' own reports are in %s\n", r.run_dir);
    return r.child.exit_code;
}
