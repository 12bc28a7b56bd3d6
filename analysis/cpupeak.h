/* SPDX-License-Identifier: Apache-2.0 */
/* cpupeak.h - an ESTIMATE of a CPU's peak FLOP/s for CPU-BLAS runs:
 * cores x FLOP/cycle for the vector ISA found x clock.
 *
 * It is labelled an estimate everywhere it is shown: the FMA unit count is
 * assumed (two 512-bit units for AVX-512, which not every part has), the
 * clock is the maximum or the one /proc/cpuinfo reports, and turbo under all
 * cores is lower. Overridable (cores, GHz) for that reason. */
#ifndef FC_CPUPEAK_H
#define FC_CPUPEAK_H

#include <stddef.h>

/* Vector ISA bits, from the cpuinfo "flags" line. */
enum {
    FC_CPU_AVX = 1,     /* "avx" */
    FC_CPU_FMA = 2,     /* "fma" */
    FC_CPU_AVX2 = 4,    /* "avx2" */
    FC_CPU_AVX512F = 8, /* "avx512f" */
};

typedef struct fc_cpu_info {
    char model[128]; /* "model name", or "unknown CPU" */
    unsigned isa;    /* FC_CPU_* */
    int logical;     /* online logical CPUs */
    int physical;    /* distinct (physical id, core id) pairs; 0 = unknown */
    int cores;       /* cores used for the estimate */
    const char
        *cores_from; /* "physical cores", "logical CPUs", "FLOPCOUNT_CPU_CORES", "--cpu-cores" */
    double mhz;      /* clock used for the estimate */
    const char *mhz_from; /* "cpuinfo_max_freq", "cpu MHz", "FLOPCOUNT_CPU_GHZ", "--cpu-ghz" */
} fc_cpu_info;

/* FLOP per cycle per core for dtype (fp32, fp64; complex64/complex128 as
 * fp32/fp64): AVX-512 64 fp32 (2 FMA units x 16 lanes x 2), AVX2+FMA 32
 * (2 x 8 x 2), AVX 16 (one 8-lane add and one multiply), SSE 8; fp64 half.
 * 0 for any other dtype. */
int fc_cpu_flop_per_cycle(unsigned isa, int dtype);
/* "AVX-512 (2 FMA units assumed)", "AVX2+FMA", "AVX", "SSE". */
const char *fc_cpu_isa_name(unsigned isa);
/* cores x fc_cpu_flop_per_cycle(isa, dtype) x mhz x 1e6, in FLOP/s; 0 when
 * any input is not positive or the dtype has no figure. Pure. */
double fc_cpu_peak_flops(unsigned isa, int cores, double mhz, int dtype);

/* Fills model, isa, logical (count of "processor" lines), physical and mhz
 * (the largest "cpu MHz") from the text of /proc/cpuinfo. Pure. 0, or -1
 * when the text has no "flags" line. */
int fc_cpu_parse_cpuinfo(const char *text, fc_cpu_info *out);

/* Reads cpuinfo_path (normally /proc/cpuinfo) and, when it opens,
 * maxfreq_path (sysfs cpuinfo_max_freq in kHz; preferred to "cpu MHz",
 * which is the current clock). Sets cores (physical when known, else
 * logical; logical from sysconf when the path is /proc/cpuinfo) and their
 * labels. 0; -1 with a reason in err when the file cannot be read or has
 * no "flags" line; -2 when all is known but the clock (set one with
 * fc_cpu_env_overrides or by hand). */
int fc_cpu_read_from(const char *cpuinfo_path, const char *maxfreq_path, fc_cpu_info *out,
                     char *err, size_t errlen);
/* fc_cpu_read_from("/proc/cpuinfo", "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"). */
int fc_cpu_read(fc_cpu_info *out, char *err, size_t errlen);

/* Applies FLOPCOUNT_CPU_GHZ (0 < GHz <= 20) and FLOPCOUNT_CPU_CORES
 * (1 .. 1048576) when set. -1 with a reason in err on a malformed value
 * (the estimate is then left as read). */
int fc_cpu_env_overrides(fc_cpu_info *c, char *err, size_t errlen);

#endif
