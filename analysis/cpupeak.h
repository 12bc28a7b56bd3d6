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

/* Vector and matrix ISA bits, from the cpuinfo "flags" line. */
enum {
    FC_CPU_AVX = 1,             /* "avx" */
    FC_CPU_FMA = 2,             /* "fma" */
    FC_CPU_AVX2 = 4,            /* "avx2" */
    FC_CPU_AVX512F = 8,         /* "avx512f" */
    FC_CPU_AVX512_BF16 = 16,    /* "avx512_bf16": VDPBF16PS */
    FC_CPU_AVX512_FP16 = 32,    /* "avx512_fp16": fp16 FMA */
    FC_CPU_AVX512_VNNI = 64,    /* "avx512_vnni": VPDPBUSD, 512-bit */
    FC_CPU_AVX_VNNI = 128,      /* "avx_vnni": VPDPBUSD, 256-bit */
    FC_CPU_AMX_BF16 = 256,      /* "amx_bf16": AMX tiles */
    FC_CPU_AMX_INT8 = 512,      /* "amx_int8" */
    FC_CPU_AMX_FP16 = 1024,     /* "amx_fp16" */
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

/* FLOP (int8: operations) per cycle per core for dtype:
 *   fp32 (and complex64): AVX-512 64 (2 FMA units x 16 lanes x 2), AVX2+FMA
 *     32 (2 x 8 x 2), AVX 16 (one 8-lane add and one multiply), SSE 8;
 *   fp64 (and complex128): half of fp32, the lanes being twice as wide;
 *   bf16: AMX-BF16 1024 (Intel's per-core figure for the tile unit), else
 *     AVX512_BF16 128 (VDPBF16PS: 16 lanes x 2 products x 2 FLOP, 2 units);
 *   fp16: AMX-FP16 1024, else AVX512_FP16 128 (2 units x 32 lanes x 2);
 *   int8: AMX-INT8 2048, else AVX512_VNNI 256 (VPDPBUSD: 16 lanes x 4
 *     products x 2 ops, 2 units), else AVX-VNNI 128 (8 lanes);
 * 0 for any other dtype, or when the CPU has no instruction for it (an
 * emulated bf16 GEMM runs at fp32 speed or below: no figure is given). */
int fc_cpu_flop_per_cycle(unsigned isa, int dtype);
/* "AVX-512 (2 FMA units assumed)", "AVX2+FMA", "AVX", "SSE": the fp32 ISA. */
const char *fc_cpu_isa_name(unsigned isa);
/* What the figure for dtype rests on, one phrase: "AVX2+FMA: 2 FMA units x
 * 8 fp32 lanes x 2 FLOP" ...; for a dtype without a figure, why ("no
 * bf16 instructions: neither amx_bf16 nor avx512_bf16 in the cpuinfo
 * flags"). Never NULL. */
const char *fc_cpu_assumes(unsigned isa, int dtype);
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
