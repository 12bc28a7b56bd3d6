/* SPDX-License-Identifier: Apache-2.0 */
/* peak.c - 'flopcount peak [--gpu NAME] [--dtype DTYPE] [--json]': one dense
 * peak figure with its source, or the whole table plus the local GPU (driver
 * name, SMs, clock, clock-derived figure) and a CPU estimate. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../analysis/cpupeak.h"
#include "device.h"
#include "../analysis/dtype.h"
#include "../analysis/jsonw.h"
#include "../analysis/parse.h"
#include "../analysis/peak.h"
#include "tools.h"

typedef struct opts {
    const char *gpu;
    const char *dtype_name;
    int dtype; /* FC_DT_UNKNOWN when not given */
    int json;
    const char *cpu_ghz;
    const char *cpu_cores;
} opts;

/* The dtypes the table has columns for, in the order they are shown. */
static const int columns[] = {FC_DT_FP64,     FC_DT_FP64_TENSOR, FC_DT_FP32,     FC_DT_TF32,
                              FC_DT_FP16,     FC_DT_BF16,        FC_DT_FP8_E4M3, FC_DT_FP6_E2M3,
                              FC_DT_FP4_E2M1, FC_DT_INT8};
static const char *const column_names[] = {"fp64", "fp64_tc", "fp32", "tf32", "fp16",
                                           "bf16", "fp8",     "fp6",  "fp4",  "int8"};
#define NCOL ((int)(sizeof columns / sizeof columns[0]))

/* Every dtype a figure can be asked for: the columns and the second FP8
 * and FP6 formats (each at its first format's rate). */
static const int dtypes[] = {FC_DT_FP64,     FC_DT_FP64_TENSOR, FC_DT_FP32,     FC_DT_TF32,
                             FC_DT_FP16,     FC_DT_BF16,        FC_DT_FP8_E4M3, FC_DT_FP8_E5M2,
                             FC_DT_FP6_E2M3, FC_DT_FP6_E3M2,    FC_DT_FP4_E2M1, FC_DT_INT8};
#define NDT ((int)(sizeof dtypes / sizeof dtypes[0]))

/* The table column showing dtype (fp8_e5m2 shares fp8's, fp6_e3m2 fp6's), or -1. */
static int column_of(int dtype)
{
    if (dtype == FC_DT_FP8_E5M2)
        dtype = FC_DT_FP8_E4M3;
    else if (dtype == FC_DT_FP6_E3M2)
        dtype = FC_DT_FP6_E2M3;
    for (int c = 0; c < NCOL; c++)
        if (columns[c] == dtype)
            return c;
    return -1;
}

/* The CPU estimate's dtypes (cpupeak.h), in the order they are shown. */
static const int cpu_dtypes[] = {FC_DT_FP32, FC_DT_FP64, FC_DT_BF16, FC_DT_FP16, FC_DT_INT8};
#define NCPU ((int)(sizeof cpu_dtypes / sizeof cpu_dtypes[0]))

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: flopcount peak [--gpu NAME] [--dtype DTYPE] [--json] [--cpu-ghz GHZ] [--cpu-cores "
        "N]\n"
        "  (no --gpu)       the whole table of dense peaks, the local GPU when a CUDA driver "
        "finds\n"
        "                   one, and a CPU estimate\n"
        "  --gpu NAME       one figure: a driver name (\"NVIDIA H100 80GB HBM3\"), a key "
        "(h100-sxm)\n"
        "                   or a short name (h100, a100, l40s), any case; 'cpu' for the CPU "
        "estimate\n"
        "  --dtype DTYPE    fp64 fp64_tensor fp32 tf32 fp16 bf16 fp8_e4m3 fp8_e5m2 fp6_e2m3\n"
        "                   fp6_e3m2 fp4_e2m1 int8 (fp8, fp6, fp4 for short; default bf16 for\n"
        "                   a GPU, fp32 for the CPU); one the sheet does not give is refused\n"
        "  --json           JSON on stdout; peak_flops in FLOP/s\n"
        "  --cpu-ghz GHZ    clock for the CPU estimate (else FLOPCOUNT_CPU_GHZ, else the "
        "system's)\n"
        "  --cpu-cores N    cores for the CPU estimate (else FLOPCOUNT_CPU_CORES, else physical "
        "cores)\n"
        "All figures are dense: data-sheet figures with 2:4 sparsity are halved.\n");
}

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flopcount peak: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* "--flag VALUE" or "--flag=VALUE"; 1 when argv[*i] is this flag. */
static int take(const char *flag, int argc, char **argv, int *i, const char **out, int *bad)
{
    size_t n = strlen(flag);
    const char *a = argv[*i];
    if (strncmp(a, flag, n) != 0 || (a[n] != '\0' && a[n] != '='))
        return 0;
    if (a[n] == '=') {
        *out = a + n + 1;
    } else if (*i + 1 < argc) {
        *out = argv[++*i];
    } else {
        fail("%s needs a value", flag);
        *bad = 1;
        return 1;
    }
    if (**out == '\0') {
        fail("%s needs a non-empty value", flag);
        *bad = 1;
    }
    return 1;
}

/* 0 to go on, 1 when --help was printed, 2 on a usage error (printed). */
static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        int bad = 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(argv[i], "--json") == 0)
            o->json = 1;
        else if (!take("--gpu", argc, argv, &i, &o->gpu, &bad) &&
                 !take("--dtype", argc, argv, &i, &o->dtype_name, &bad) &&
                 !take("--cpu-ghz", argc, argv, &i, &o->cpu_ghz, &bad) &&
                 !take("--cpu-cores", argc, argv, &i, &o->cpu_cores, &bad))
            return fail("unknown option '%s' (try 'flopcount peak --help')", argv[i]);
        if (bad)
            return 2;
    }
    if (o->dtype_name != NULL) {
        o->dtype = fc_dtype_from_name(o->dtype_name);
        if (column_of(o->dtype) < 0)
            return fail(
                "unknown dtype '%s' (known: fp64, fp64_tensor, fp32, tf32, fp16, bf16, fp8_e4m3, "
                "fp8_e5m2, fp6_e2m3, fp6_e3m2, fp4_e2m1, int8)",
                o->dtype_name);
    }
    int is_cpu = o->gpu != NULL && strcasecmp(o->gpu, "cpu") == 0;
    if ((o->cpu_ghz || o->cpu_cores) && o->gpu != NULL && !is_cpu)
        return fail("--cpu-ghz and --cpu-cores set the CPU estimate; they do not apply to --gpu %s",
                    o->gpu);
    return 0;
}

static uint64_t whole(double flops)
{
    return flops > 0 ? (uint64_t)llround(flops) : 0;
}

/* "fp64, fp32, fp16" into buf: what the device does have. */
static void supported_list(const fc_peak_device *d, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < NCOL; c++) {
        if (d->tflops[columns[c]] <= 0)
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", fc_dtype_name(columns[c]));
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
    }
}

static void json_record(fc_jw *w, const char *device, const char *name, int dtype, double flops,
                        const char *source)
{
    fc_jw_str(w, "device", device);
    fc_jw_str(w, "name", name);
    fc_jw_str(w, "dtype", fc_dtype_name(dtype));
    fc_jw_u64(w, "peak_flops", whole(flops));
    fc_jw_str(w, "source", source);
}

static int finish(fc_jw *w)
{
    if (fc_jw_finish(w) != 0) {
        perror("flopcount peak: writing stdout");
        return 1;
    }
    return 0;
}

static int one_gpu(const opts *o)
{
    const fc_peak_device *d = fc_peak_find(o->gpu);
    if (d == NULL)
        return fail("unknown GPU '%s'; " FC_PEAK_UNKNOWN_HINT, o->gpu);
    int dt = o->dtype != FC_DT_UNKNOWN ? o->dtype : FC_DT_BF16;
    double flops = fc_peak_flops(d, dt);
    if (flops <= 0) {
        char have[160], why[160];
        supported_list(d, have, sizeof have);
        return fail("%s (%s: it has %s); never another dtype's figure in its place",
                    fc_peak_none_reason(d, dt, why, sizeof why), d->display, have);
    }
    if (o->json) {
        fc_jw w;
        fc_jw_init(&w, 1, 1);
        fc_jw_obj_begin(&w, NULL);
        json_record(&w, d->key, d->display, dt, flops, d->source);
        fc_jw_obj_end(&w);
        return finish(&w);
    }
    printf("%s (%s), %s dense: %g TFLOP/s = %llu FLOP/s\n", d->key, d->display, fc_dtype_name(dt),
           flops / 1e12, (unsigned long long)whole(flops));
    printf("source: %s\n", d->source);
    return 0;
}

/* The CPU estimate with its overrides: flags over environment over the
 * system. 0; -1 when the system does not tell (reason in why); 2 after
 * printing a bad override. */
static int cpu_estimate(const opts *o, fc_cpu_info *c, char *why, size_t whylen)
{
    char err[256] = "";
    int rc = fc_cpu_read(c, err, sizeof err);
    if (rc == -1) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    if (fc_cpu_env_overrides(c, err, sizeof err) != 0)
        return fail("%s", err);
    double ghz;
    uint64_t n;
    if (o->cpu_ghz != NULL) {
        if (fc_parse_double(o->cpu_ghz, 1e-3, 20, &ghz) != 0)
            return fail("--cpu-ghz wants a clock in GHz (0 < GHz <= 20), not '%s'", o->cpu_ghz);
        c->mhz = ghz * 1000.0;
        c->mhz_from = "--cpu-ghz";
    }
    if (o->cpu_cores != NULL) {
        if (fc_parse_u64(o->cpu_cores, 1u << 20, &n) != 0 || n == 0)
            return fail("--cpu-cores wants a core count (1 .. 1048576), not '%s'", o->cpu_cores);
        c->cores = (int)n;
        c->cores_from = "--cpu-cores";
    }
    if (!(c->mhz > 0)) {
        snprintf(why, whylen, "%s", err[0] ? err : "no CPU clock known; pass --cpu-ghz");
        return -1;
    }
    return 0;
}

static void cpu_source(const fc_cpu_info *c, int dt, char *buf, size_t size)
{
    snprintf(buf, size, "estimate: %d %s x %d FLOP/cycle (%s) x %g GHz (%s)", c->cores,
             c->cores_from, fc_cpu_flop_per_cycle(c->isa, dt), fc_cpu_assumes(c->isa, dt),
             c->mhz / 1000.0, c->mhz_from);
}

static int one_cpu(const opts *o)
{
    fc_cpu_info c;
    char why[300];
    int rc = cpu_estimate(o, &c, why, sizeof why);
    if (rc == -1)
        return fail("cannot estimate the CPU peak: %s", why);
    if (rc != 0)
        return rc;
    int dt = o->dtype != FC_DT_UNKNOWN ? o->dtype : FC_DT_FP32;
    double flops = fc_cpu_peak_flops(c.isa, c.cores, c.mhz, dt);
    if (flops <= 0)
        return fail("no CPU estimate for %s on %s: %s", fc_dtype_name(dt), c.model,
                    fc_cpu_assumes(c.isa, dt));
    char src[400];
    cpu_source(&c, dt, src, sizeof src);
    if (o->json) {
        fc_jw w;
        fc_jw_init(&w, 1, 1);
        fc_jw_obj_begin(&w, NULL);
        json_record(&w, "cpu", c.model, dt, flops, src);
        fc_jw_bool(&w, "estimate", 1);
        fc_jw_obj_end(&w);
        return finish(&w);
    }
    printf("cpu (%s), %s: %.1f GFLOP/s = %llu FLOP/s -- an ESTIMATE, not a data-sheet figure\n",
           c.model, fc_dtype_name(dt), flops / 1e9, (unsigned long long)whole(flops));
    printf("source: %s\n", src);
    printf("override with --cpu-ghz/--cpu-cores or FLOPCOUNT_CPU_GHZ/FLOPCOUNT_CPU_CORES\n");
    return 0;
}

/* ---- table mode ------------------------------------------------------ */

static void text_table(const opts *o)
{
    printf(
        "Dense peak TFLOP/s per GPU (data-sheet figures with 2:4 sparsity halved; '-' = none)\n\n");
    printf("%-13s", "device");
    int only = o->dtype != FC_DT_UNKNOWN ? column_of(o->dtype) : -1;
    for (int c = 0; c < NCOL; c++)
        if (only < 0 || only == c)
            printf(" %8s", column_names[c]);
    printf("\n");
    for (int i = 0; i < fc_peak_count(); i++) {
        const fc_peak_device *d = fc_peak_get(i);
        printf("%-13s", d->key);
        for (int c = 0; c < NCOL; c++) {
            if (only >= 0 && only != c)
                continue;
            double t = d->tflops[columns[c]];
            if (t > 0)
                printf(" %8g", t);
            else
                printf(" %8s", "-");
        }
        printf("\n");
    }
    printf("\nSources:\n");
    for (int i = 0; i < fc_peak_count(); i++)
        printf("  %-13s %s\n", fc_peak_get(i)->key, fc_peak_get(i)->source);
}

static void text_local(int rc, const fc_device_info *dev, const char *err)
{
    if (rc != 0) {
        printf("\nLocal GPU: none detected (%s)\n", err);
        return;
    }
    const fc_peak_device *d = fc_peak_find(dev->name);
    printf("\nLocal GPU 0 of %d: %s -> %s; %d SMs, compute capability %d.%d, clock %g MHz\n",
           dev->count, dev->name, d ? d->key : "not in the table", dev->sm_count, dev->cc_major,
           dev->cc_minor, dev->clock_khz / 1000.0);
    if (d == NULL) {
        printf("  no peak for it: " FC_PEAK_UNKNOWN_HINT "\n");
        return;
    }
    printf("  fp16 dense, table:       %8.1f TFLOP/s\n", fc_peak_flops(d, FC_DT_FP16) / 1e12);
    double clk = fc_device_clock_peak(dev, d->flop_per_clk_per_sm_fp16);
    if (clk > 0)
        printf("  fp16 dense, from clock:  %8.1f TFLOP/s (%d SMs x %d FLOP/clk/SM x %g GHz; the "
               "driver reports\n"
               "                           the maximum clock, so this is above what sustained "
               "clocks give)\n",
               clk / 1e12, dev->sm_count, d->flop_per_clk_per_sm_fp16, dev->clock_khz / 1e6);
    else
        printf("  fp16 dense, from clock:  unknown (no FLOP/clock/SM figure for %s or no clock)\n",
               d->key);
}

static void text_cpu(int rc, const fc_cpu_info *c, const char *why)
{
    if (rc != 0) {
        printf("\nCPU estimate: unavailable (%s)\n", why);
        return;
    }
    printf("\nCPU (ESTIMATE, not a data sheet): %s: %.1f GFLOP/s fp32, %.1f GFLOP/s fp64\n",
           c->model, fc_cpu_peak_flops(c->isa, c->cores, c->mhz, FC_DT_FP32) / 1e9,
           fc_cpu_peak_flops(c->isa, c->cores, c->mhz, FC_DT_FP64) / 1e9);
    printf("  = %d %s x FLOP/cycle x %g GHz (%s); %d logical CPUs; per dtype:\n", c->cores,
           c->cores_from, c->mhz / 1000.0, c->mhz_from, c->logical);
    for (int i = 0; i < NCPU; i++) {
        int dt = cpu_dtypes[i], per = fc_cpu_flop_per_cycle(c->isa, dt);
        if (per > 0)
            printf("  %-5s %9.1f GFLOP/s  %4d per cycle: %s\n", fc_dtype_name(dt),
                   fc_cpu_peak_flops(c->isa, c->cores, c->mhz, dt) / 1e9, per,
                   fc_cpu_assumes(c->isa, dt));
        else
            printf("  %-5s %9s          none: %s\n", fc_dtype_name(dt), "-",
                   fc_cpu_assumes(c->isa, dt));
    }
}

/* A figure in whole FLOP/s, or null when there is none (0). */
static void flops_or_null(fc_jw *w, const char *key, double flops)
{
    if (flops > 0)
        fc_jw_u64(w, key, whole(flops));
    else
        fc_jw_null(w, key);
}

static void json_local(fc_jw *w, int rc, const fc_device_info *dev, const char *err)
{
    if (rc != 0) {
        fc_jw_null(w, "local");
        fc_jw_str(w, "local_error", err);
        return;
    }
    const fc_peak_device *d = fc_peak_find(dev->name);
    char cc[24];
    snprintf(cc, sizeof cc, "%d.%d", dev->cc_major, dev->cc_minor);
    fc_jw_obj_begin(w, "local");
    fc_jw_str(w, "name", dev->name);
    fc_jw_i64(w, "count", dev->count);
    fc_jw_i64(w, "sm_count", dev->sm_count);
    fc_jw_str(w, "compute_capability", cc);
    fc_jw_double(w, "clock_mhz", dev->clock_khz / 1000.0);
    fc_jw_str(w, "device", d ? d->key : NULL);
    fc_jw_str(w, "dtype", "fp16");
    flops_or_null(w, "table_peak_flops", d ? fc_peak_flops(d, FC_DT_FP16) : 0);
    flops_or_null(w, "clock_derived_peak_flops",
                  d ? fc_device_clock_peak(dev, d->flop_per_clk_per_sm_fp16) : 0);
    fc_jw_obj_end(w);
}

static void json_cpu(fc_jw *w, int rc, const fc_cpu_info *c, const char *why)
{
    if (rc != 0) {
        fc_jw_null(w, "cpu");
        fc_jw_str(w, "cpu_error", why);
        return;
    }
    fc_jw_obj_begin(w, "cpu");
    fc_jw_bool(w, "estimate", 1);
    fc_jw_str(w, "name", c->model);
    fc_jw_str(w, "isa", fc_cpu_isa_name(c->isa));
    fc_jw_i64(w, "cores", c->cores);
    fc_jw_str(w, "cores_from", c->cores_from);
    fc_jw_i64(w, "logical_cpus", c->logical);
    fc_jw_double(w, "ghz", c->mhz / 1000.0);
    fc_jw_str(w, "ghz_from", c->mhz_from);
    fc_jw_u64(w, "fp32_peak_flops", whole(fc_cpu_peak_flops(c->isa, c->cores, c->mhz, FC_DT_FP32)));
    fc_jw_u64(w, "fp64_peak_flops", whole(fc_cpu_peak_flops(c->isa, c->cores, c->mhz, FC_DT_FP64)));
    /* per dtype: FLOP/s, null where the CPU has no instruction for it */
    fc_jw_obj_begin(w, "peak_flops");
    for (int i = 0; i < NCPU; i++)
        flops_or_null(w, fc_dtype_name(cpu_dtypes[i]),
                      fc_cpu_peak_flops(c->isa, c->cores, c->mhz, cpu_dtypes[i]));
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "assumes");
    for (int i = 0; i < NCPU; i++)
        fc_jw_str(w, fc_dtype_name(cpu_dtypes[i]), fc_cpu_assumes(c->isa, cpu_dtypes[i]));
    fc_jw_obj_end(w);
    fc_jw_obj_end(w);
}

/* One object per device: every dtype's figure, null where the sources give
 * none, and those dtypes listed as "not_published". */
static void json_devices(fc_jw *w)
{
    fc_jw_arr_begin(w, "devices");
    for (int i = 0; i < fc_peak_count(); i++) {
        const fc_peak_device *d = fc_peak_get(i);
        fc_jw_obj_begin(w, NULL);
        fc_jw_str(w, "device", d->key);
        fc_jw_str(w, "name", d->display);
        fc_jw_obj_begin(w, "peak_flops");
        for (int k = 0; k < NDT; k++)
            flops_or_null(w, fc_dtype_name(dtypes[k]), fc_peak_flops(d, dtypes[k]));
        fc_jw_obj_end(w);
        fc_jw_arr_begin(w, "not_published");
        for (int k = 0; k < NDT; k++)
            if (!(fc_peak_flops(d, dtypes[k]) > 0))
                fc_jw_str(w, NULL, fc_dtype_name(dtypes[k]));
        fc_jw_arr_end(w);
        fc_jw_str(w, "source", d->source);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
}

static int json_table(const opts *o, int drc, const fc_device_info *dev, const char *derr, int crc,
                      const fc_cpu_info *c, const char *why)
{
    fc_jw w;
    fc_jw_init(&w, 1, 1);
    fc_jw_obj_begin(&w, NULL);
    fc_jw_str(&w, "units", "FLOP/s, dense");
    fc_jw_arr_begin(&w, "peaks");
    for (int i = 0; i < fc_peak_count(); i++) {
        const fc_peak_device *d = fc_peak_get(i);
        for (int dt = 1; dt < FC_DT_COUNT; dt++) {
            if (d->tflops[dt] <= 0 || (o->dtype != FC_DT_UNKNOWN && o->dtype != dt))
                continue;
            fc_jw_obj_begin(&w, NULL);
            json_record(&w, d->key, d->display, dt, fc_peak_flops(d, dt), d->source);
            fc_jw_obj_end(&w);
        }
    }
    fc_jw_arr_end(&w);
    json_devices(&w);
    json_local(&w, drc, dev, derr);
    json_cpu(&w, crc, c, why);
    fc_jw_obj_end(&w);
    return finish(&w);
}

static int whole_table(const opts *o)
{
    fc_device_info dev;
    char derr[256];
    int drc = fc_device_detect(0, &dev, derr, sizeof derr);
    fc_cpu_info c;
    char why[300] = "";
    int crc = cpu_estimate(o, &c, why, sizeof why);
    if (crc == 2)
        return crc; /* a bad override: already reported */
    if (o->json)
        return json_table(o, drc, &dev, derr, crc, &c, why);
    text_table(o);
    text_local(drc, &dev, derr);
    text_cpu(crc, &c, why);
    return 0;
}

int fc_cmd_peak(int argc, char **argv)
{
    opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    if (o.gpu == NULL)
        return whole_table(&o);
    if (strcasecmp(o.gpu, "cpu") == 0)
        return one_cpu(&o);
    return one_gpu(&o);
}
