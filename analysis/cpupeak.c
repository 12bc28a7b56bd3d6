/* SPDX-License-Identifier: Apache-2.0 */
/* cpupeak.c - CPU peak FLOP/s estimate: the pure arithmetic, the parser of
 * /proc/cpuinfo text, and the reader that feeds it from the live system. */
#include "cpupeak.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "parse.h"

/* fp32 FLOP per cycle of the vector units. */
static int fp32_per_cycle(unsigned isa)
{
    if (isa & FC_CPU_AVX512F)
        return 64; /* 2 FMA units x 16 fp32 lanes x 2 FLOP */
    if ((isa & FC_CPU_FMA) && (isa & (FC_CPU_AVX2 | FC_CPU_AVX)))
        return 32; /* 2 FMA units x 8 lanes x 2 */
    if (isa & FC_CPU_AVX)
        return 16; /* one 8-lane add + one 8-lane multiply per cycle */
    return 8;      /* SSE: 4-lane add + 4-lane multiply */
}

int fc_cpu_flop_per_cycle(unsigned isa, int dtype)
{
    switch (dtype) {
    case FC_DT_FP32:
    case FC_DT_COMPLEX64:
        return fp32_per_cycle(isa);
    case FC_DT_FP64:
    case FC_DT_COMPLEX128:
        return fp32_per_cycle(isa) / 2;
    case FC_DT_BF16:
        return (isa & FC_CPU_AMX_BF16) ? 1024 : (isa & FC_CPU_AVX512_BF16) ? 128 : 0;
    case FC_DT_FP16:
        return (isa & FC_CPU_AMX_FP16) ? 1024 : (isa & FC_CPU_AVX512_FP16) ? 128 : 0;
    case FC_DT_INT8:
        if (isa & FC_CPU_AMX_INT8)
            return 2048;
        return (isa & FC_CPU_AVX512_VNNI) ? 256 : (isa & FC_CPU_AVX_VNNI) ? 128 : 0;
    default:
        return 0;
    }
}

const char *fc_cpu_isa_name(unsigned isa)
{
    if (isa & FC_CPU_AVX512F)
        return "AVX-512 (2 FMA units assumed)";
    if ((isa & FC_CPU_FMA) && (isa & (FC_CPU_AVX2 | FC_CPU_AVX)))
        return "AVX2+FMA";
    if (isa & FC_CPU_AVX)
        return "AVX";
    return "SSE";
}

static const char *fp32_assumes(unsigned isa, int fp64)
{
    if (isa & FC_CPU_AVX512F)
        return fp64 ? "AVX-512: 2 FMA units x 8 fp64 lanes x 2 FLOP (2 units assumed: some parts "
                      "have one)"
                    : "AVX-512: 2 FMA units x 16 fp32 lanes x 2 FLOP (2 units assumed: some parts "
                      "have one)";
    if ((isa & FC_CPU_FMA) && (isa & (FC_CPU_AVX2 | FC_CPU_AVX)))
        return fp64 ? "AVX2+FMA: 2 FMA units x 4 fp64 lanes x 2 FLOP"
                    : "AVX2+FMA: 2 FMA units x 8 fp32 lanes x 2 FLOP";
    if (isa & FC_CPU_AVX)
        return fp64 ? "AVX: one 4-lane fp64 add and one multiply per cycle"
                    : "AVX: one 8-lane fp32 add and one multiply per cycle";
    return fp64 ? "SSE: one 2-lane fp64 add and one multiply per cycle"
                : "SSE: one 4-lane fp32 add and one multiply per cycle";
}

const char *fc_cpu_assumes(unsigned isa, int dtype)
{
    switch (dtype) {
    case FC_DT_FP32:
    case FC_DT_COMPLEX64:
        return fp32_assumes(isa, 0);
    case FC_DT_FP64:
    case FC_DT_COMPLEX128:
        return fp32_assumes(isa, 1);
    case FC_DT_BF16:
        if (isa & FC_CPU_AMX_BF16)
            return "AMX-BF16: 1024 FLOP per cycle per core (Intel's figure for the tile unit)";
        if (isa & FC_CPU_AVX512_BF16)
            return "AVX512_BF16: VDPBF16PS, 16 lanes x 2 products x 2 FLOP x 2 units (assumed)";
        return "no bf16 instructions: neither amx_bf16 nor avx512_bf16 in the cpuinfo flags";
    case FC_DT_FP16:
        if (isa & FC_CPU_AMX_FP16)
            return "AMX-FP16: 1024 FLOP per cycle per core (as AMX-BF16)";
        if (isa & FC_CPU_AVX512_FP16)
            return "AVX512_FP16: 2 FMA units x 32 fp16 lanes x 2 FLOP (assumed)";
        return "no fp16 instructions: neither amx_fp16 nor avx512_fp16 in the cpuinfo flags";
    case FC_DT_INT8:
        if (isa & FC_CPU_AMX_INT8)
            return "AMX-INT8: 2048 operations per cycle per core (Intel's figure for the tile "
                   "unit)";
        if (isa & FC_CPU_AVX512_VNNI)
            return "AVX512_VNNI: VPDPBUSD, 16 lanes x 4 products x 2 ops x 2 units (assumed)";
        if (isa & FC_CPU_AVX_VNNI)
            return "AVX-VNNI: VPDPBUSD, 8 lanes x 4 products x 2 ops x 2 units (assumed)";
        return "no int8 dot-product instructions: none of amx_int8, avx512_vnni, avx_vnni in "
               "the cpuinfo flags";
    default:
        return "no CPU estimate for this dtype (the CPU BLAS runs fp32, fp64 and complex)";
    }
}

double fc_cpu_peak_flops(unsigned isa, int cores, double mhz, int dtype)
{
    int per = fc_cpu_flop_per_cycle(isa, dtype);
    if (cores <= 0 || !(mhz > 0) || per <= 0)
        return 0;
    return (double)cores * (double)per * mhz * 1e6;
}

/* "key<spaces/tabs>: value" -> value when the line's key is exactly key. */
static const char *value_of(const char *line, size_t len, const char *key, size_t *vlen)
{
    size_t k = strlen(key);
    if (len < k || strncmp(line, key, k) != 0)
        return NULL;
    size_t i = k;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= len || line[i] != ':')
        return NULL;
    i++;
    while (i < len && line[i] == ' ')
        i++;
    *vlen = len - i;
    return line + i;
}

static int has_flag(const char *v, size_t len, const char *flag)
{
    size_t f = strlen(flag);
    for (size_t i = 0; i + f <= len; i++) {
        int starts = i == 0 || v[i - 1] == ' ';
        int ends = i + f == len || v[i + f] == ' ';
        if (starts && ends && strncmp(v + i, flag, f) == 0)
            return 1;
    }
    return 0;
}

static unsigned isa_of(const char *v, size_t len)
{
    static const struct { const char *flag; unsigned bit; } flags[] = {
        {"avx", FC_CPU_AVX},
        {"fma", FC_CPU_FMA},
        {"avx2", FC_CPU_AVX2},
        {"avx512f", FC_CPU_AVX512F},
        {"avx512_bf16", FC_CPU_AVX512_BF16},
        {"avx512_fp16", FC_CPU_AVX512_FP16},
        {"avx512_vnni", FC_CPU_AVX512_VNNI},
        {"avx_vnni", FC_CPU_AVX_VNNI},
        {"amx_bf16", FC_CPU_AMX_BF16},
        {"amx_int8", FC_CPU_AMX_INT8},
        {"amx_fp16", FC_CPU_AMX_FP16},
    };
    unsigned isa = 0;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (has_flag(v, len, flags[i].flag))
            isa |= flags[i].bit;
    return isa;
}

/* Physical cores = sum of "cpu cores" over distinct "physical id"s. */
typedef struct sockets {
    int n;
    long id[64];
    long cores[64];
} sockets;

static void note_socket(sockets *s, long id, long cores)
{
    for (int i = 0; i < s->n; i++)
        if (s->id[i] == id)
            return;
    if (s->n < 64) {
        s->id[s->n] = id;
        s->cores[s->n] = cores;
        s->n++;
    }
}

static void parse_line(const char *line, size_t len, fc_cpu_info *out, sockets *s, long *phys,
                       int *flags)
{
    size_t vl;
    const char *v;
    if ((v = value_of(line, len, "processor", &vl)) != NULL) {
        out->logical++;
        *phys = -1;
    } else if ((v = value_of(line, len, "model name", &vl)) != NULL && out->model[0] == '\0') {
        size_t n = vl < sizeof out->model - 1 ? vl : sizeof out->model - 1;
        memcpy(out->model, v, n);
        out->model[n] = '\0';
    } else if ((v = value_of(line, len, "flags", &vl)) != NULL && !*flags) {
        out->isa = isa_of(v, vl);
        *flags = 1;
    } else if ((v = value_of(line, len, "cpu MHz", &vl)) != NULL) {
        double mhz = strtod(v, NULL);
        if (mhz > out->mhz)
            out->mhz = mhz;
    } else if ((v = value_of(line, len, "physical id", &vl)) != NULL) {
        *phys = strtol(v, NULL, 10);
    } else if ((v = value_of(line, len, "cpu cores", &vl)) != NULL && *phys >= 0) {
        note_socket(s, *phys, strtol(v, NULL, 10));
    }
}

int fc_cpu_parse_cpuinfo(const char *text, fc_cpu_info *out)
{
    memset(out, 0, sizeof *out);
    sockets s = {0};
    long phys = -1;
    int flags = 0;
    for (const char *p = text; p != NULL && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        parse_line(p, len, out, &s, &phys, &flags);
        p = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < s.n; i++)
        out->physical += s.cores[i] > 0 ? (int)s.cores[i] : 0;
    if (out->model[0] == '\0')
        snprintf(out->model, sizeof out->model, "unknown CPU");
    if (out->mhz > 0)
        out->mhz_from = "cpu MHz";
    return flags ? 0 : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - 1 - len, f);
        if (len < cap - 1)
            break;
        char *bigger = cap < ((size_t)64 << 20) ? realloc(buf, cap * 2) : NULL;
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

int fc_cpu_read_from(const char *cpuinfo_path, const char *maxfreq_path, fc_cpu_info *out,
                     char *err, size_t errlen)
{
    char *text = slurp(cpuinfo_path);
    if (text == NULL) {
        memset(out, 0, sizeof *out);
        snprintf(err, errlen, "cannot read %s", cpuinfo_path);
        return -1;
    }
    int rc = fc_cpu_parse_cpuinfo(text, out);
    free(text);
    if (rc != 0) {
        snprintf(err, errlen, "%s has no 'flags' line", cpuinfo_path);
        return -1;
    }
    if (strcmp(cpuinfo_path, "/proc/cpuinfo") == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        if (online > 0)
            out->logical = (int)online;
    }
    char *khz = maxfreq_path ? slurp(maxfreq_path) : NULL;
    if (khz != NULL && strtol(khz, NULL, 10) > 0) {
        out->mhz = (double)strtol(khz, NULL, 10) / 1000.0;
        out->mhz_from = "cpuinfo_max_freq";
    }
    free(khz);
    out->cores = out->physical > 0 ? out->physical : out->logical;
    out->cores_from = out->physical > 0 ? "physical cores" : "logical CPUs";
    if (out->mhz <= 0) {
        snprintf(err, errlen, "no CPU clock in %s; set FLOPCOUNT_CPU_GHZ or pass --cpu-ghz",
                 cpuinfo_path);
        return -2;
    }
    return 0;
}

int fc_cpu_read(fc_cpu_info *out, char *err, size_t errlen)
{
    return fc_cpu_read_from(
        "/proc/cpuinfo", "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", out, err, errlen);
}

int fc_cpu_env_overrides(fc_cpu_info *c, char *err, size_t errlen)
{
    const char *ghz = getenv("FLOPCOUNT_CPU_GHZ");
    const char *cores = getenv("FLOPCOUNT_CPU_CORES");
    double g;
    uint64_t n;
    if (ghz != NULL && *ghz != '\0') {
        if (fc_parse_double(ghz, 1e-3, 20, &g) != 0) {
            snprintf(err, errlen, "FLOPCOUNT_CPU_GHZ='%s' is not a clock in GHz (0 < GHz <= 20)",
                     ghz);
            return -1;
        }
        c->mhz = g * 1000.0;
        c->mhz_from = "FLOPCOUNT_CPU_GHZ";
    }
    if (cores != NULL && *cores != '\0') {
        if (fc_parse_u64(cores, 1u << 20, &n) != 0 || n == 0) {
            snprintf(err, errlen, "FLOPCOUNT_CPU_CORES='%s' is not a core count (1 .. 1048576)",
                     cores);
            return -1;
        }
        c->cores = (int)n;
        c->cores_from = "FLOPCOUNT_CPU_CORES";
    }
    return 0;
}
