/* SPDX-License-Identifier: Apache-2.0 */
/* decode.c - one launch of a kernel of interest: decoded by its family's
 * decoder (fa2.c, memeff.c), or named uncounted (a CUTLASS 3 grouped GEMM
 * with its group count, cutlass_grouped.c, and its sizes read with
 * --read-device-sizes), or marked; and accounted for (launch.h).
 *
 * The parameter size that picks a layout is asked once per kernel, after
 * its first successful launch: cudaFuncGetParamInfo for a stub of the
 * dynamic runtime (the hooks' launches), cuKernelGetParamInfo for a
 * cudaKernel_t, cuFuncGetParamInfo for a CUfunction (CUPTI's callbacks).
 * The driver's queries leave no trace; the runtime's set the thread's last
 * error when they fail, which PyTorch reads after every launch
 * (C10_CUDA_KERNEL_LAUNCH_CHECK): so the runtime is asked only when its
 * last error is clear (cudaPeekAtLastError) and a failed query's error is
 * taken back (cudaGetLastError), leaving the state as it was. Resolved at
 * run time; absent (a runtime before 12.4, no driver): the layouts the name
 * implies, checked field by field. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/options.h"
#include "core/resolve.h"
#include "count/uncounted.h"
#include "cutlass_grouped.h"
#include "decoders.h"
#include "grouped_fill.h"
#include "detect/irec.h"
#include "launch.h"
#include "probe/devsizes.h"
#include "ring/ring.h"

FC_TLS int fc_launch_in_hook;

typedef int (*param_info_fn)(const void *, size_t, size_t *, size_t *);
typedef int (*last_error_fn)(void);

static struct {
    int resolved; /* 0 not yet, 1 done (atomic) */
    param_info_fn rt_info, drv_func_info, drv_kernel_info;
    last_error_fn peek, get;
} q;

static struct {
    uint64_t seen[FC_LP_COUNT], decoded[FC_LP_COUNT], uncounted[FC_LP_COUNT], layout[FC_LP_COUNT];
    uint64_t marks[FC_LP_COUNT], failed[FC_LP_COUNT], captured[FC_LP_COUNT];
    uint64_t sized, unsized, duplicates;
} st;

static void add(uint64_t *c)
{
    __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/* The runtime's functions: the next definition after ours, else (a runtime
 * loaded RTLD_LOCAL, as a dependency of a Python extension) the one the
 * object of the stub being asked about binds to. */
static void resolve(const void *stub)
{
    if (__atomic_load_n(&q.resolved, __ATOMIC_ACQUIRE))
        return;
    *(void **)&q.rt_info = fc_resolve_next("cudaFuncGetParamInfo");
    *(void **)&q.peek = fc_resolve_next("cudaPeekAtLastError");
    *(void **)&q.get = fc_resolve_next("cudaGetLastError");
    Dl_info info;
    if (q.rt_info == NULL && stub != NULL && dladdr(stub, &info) && info.dli_fbase != NULL) {
        *(void **)&q.rt_info = fc_resolve_in_object(info.dli_fbase, "cudaFuncGetParamInfo");
        *(void **)&q.peek = fc_resolve_in_object(info.dli_fbase, "cudaPeekAtLastError");
        *(void **)&q.get = fc_resolve_in_object(info.dli_fbase, "cudaGetLastError");
    }
    const char *path = getenv("FLOPCOUNT_LIBCUDA");
    void *drv = fc_resolve_loaded_lib(path && *path ? path : "libcuda.so.1");
    if (drv != NULL) {
        *(void **)&q.drv_func_info = fc_resolve_lib_sym(drv, "cuFuncGetParamInfo", NULL);
        *(void **)&q.drv_kernel_info = fc_resolve_lib_sym(drv, "cuKernelGetParamInfo", NULL);
    }
    __atomic_store_n(&q.resolved, 1, __ATOMIC_RELEASE);
}

/* Parameter i of the kernel: its size, or -1 when it cannot be had. */
static int64_t param_size(const fc_launch_call *c, size_t i)
{
    size_t off = 0, size = 0;
    if (c->function != NULL && q.drv_func_info != NULL)
        return q.drv_func_info(c->function, i, &off, &size) == 0 ? (int64_t)size : -1;
    if (c->kernel != NULL && q.drv_kernel_info != NULL)
        return q.drv_kernel_info(c->kernel, i, &off, &size) == 0 ? (int64_t)size : -1;
    if (c->stub == NULL || q.rt_info == NULL || q.peek == NULL || q.get == NULL ||
        c->path != FC_LP_HOOK || !c->ok || q.peek() != 0)
        return -1;
    if (q.rt_info(c->stub, i, &off, &size) != 0) {
        q.get(); /* our failure, not the program's: taken back */
        return -1;
    }
    return (int64_t)size;
}

/* The kernel's parameter 0 size and parameter count, asked once (at a
 * successful launch: a failed one may mean no device to ask). */
static void sizes(fc_kernel *k, const fc_launch_call *c, int64_t *size, int *nparams)
{
    int32_t s = __atomic_load_n(&k->param0, __ATOMIC_ACQUIRE);
    if (s == 0 && c->ok && (c->function || c->kernel || c->stub)) {
        resolve(c->stub);
        int64_t s0 = param_size(c, 0);
        int32_t np = 0;
        if (s0 > 0)
            np = param_size(c, 1) > 0 ? (param_size(c, 2) > 0 ? 3 : 2) : 1;
        s = s0 > 0 && s0 < (1 << 20) ? (int32_t)s0 : -1;
        __atomic_store_n(&k->nparams, np, __ATOMIC_RELAXED);
        __atomic_store_n(&k->param0, s, __ATOMIC_RELEASE);
    }
    *size = s > 0 ? s : 0;
    *nparams = s > 0 ? __atomic_load_n(&k->nparams, __ATOMIC_RELAXED) : 0;
}

/* The kernel's uncounted id, interned once (with the first detail). */
static uint32_t unc_id(fc_kernel *k, int reason, const char *detail)
{
    uint32_t v = __atomic_load_n(&k->unc_id, __ATOMIC_ACQUIRE);
    if (v != 0)
        return v - 1;
    uint32_t id = fc_uncounted_intern(k->name, k->kclass, reason, detail);
    __atomic_store_n(&k->unc_id, id + 1, __ATOMIC_RELEASE);
    return id;
}

/* The kernel's traits, read off its name at its first launch: the
 * record's copy, or (while another thread is still writing it) a copy of
 * the caller's own in *mine. NULL with why when the name does not parse. */
static const fc_ktraits *traits(fc_kernel *k, fc_ktraits *mine, char *why, size_t n)
{
    uint8_t p = __atomic_load_n(&k->parsed, __ATOMIC_ACQUIRE);
    if (p == 1)
        return &k->traits;
    if (p == 2) {
        snprintf(why, n, "the kernel name does not parse");
        return NULL;
    }
    int memeff = k->family == FC_KF_MEMEFF_FWD || k->family == FC_KF_MEMEFF_BWD;
    int rc = memeff ? fc_memeff_traits(k->family, k->name, mine, why, n)
                    : fc_fa2_traits(k->family, k->name, mine, why, n);
    uint8_t expect = 0;
    if (p == 0 && __atomic_compare_exchange_n(&k->parsed, &expect, 3, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE)) {
        if (rc == 0)
            k->traits = *mine;
        __atomic_store_n(&k->parsed, rc == 0 ? 1 : 2, __ATOMIC_RELEASE);
    }
    return rc == 0 ? mine : NULL;
}

/* The last prepare_grouped_gemm_data this thread launched (PyTorch queues
 * it and its CUTLASS grouped GEMM back to back on the same thread): the
 * GEMM whose problem_shapes pointer is its problem_sizes takes it. */
static FC_TLS struct {
    int valid;
    fc_grouped_fill f;
} last_fill;

/* PyTorch's grouped GEMM setup kernel: decoded and kept for the GEMM it
 * feeds, never listed (it runs no products). One that does not check out
 * is said once on stderr, and the GEMM then has no bound (as before). */
static void grouped_fill(fc_kernel *k, const fc_launch_call *c)
{
    last_fill.valid = 0;
    if (!c->ok)
        return;
    int64_t sz[FC_GROUPED_FILL_NPARAMS];
    int have = c->function || c->kernel || c->stub;
    if (have)
        resolve(c->stub);
    for (int i = 0; have && i < FC_GROUPED_FILL_NPARAMS; i++)
        if ((sz[i] = param_size(c, (size_t)i)) <= 0)
            have = 0;
    int nparams = have ? (param_size(c, FC_GROUPED_FILL_NPARAMS) > 0 ? FC_GROUPED_FILL_NPARAMS + 1
                                                                     : FC_GROUPED_FILL_NPARAMS)
                       : -1;
    char why[256];
    if (fc_grouped_fill_decode(k->name, c->args, nparams, have ? sz : NULL, c->block_x,
                               &last_fill.f, why, sizeof why) == 0) {
        last_fill.valid = 1;
        return;
    }
    uint8_t expect = 0;
    if (__atomic_compare_exchange_n(&k->parsed, &expect, 2, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        fc_warn("flopcount: PyTorch grouped GEMM setup kernel not read (%s): "
                "torch._grouped_mm has no bound", why);
}

/* The bound or exact count of the GEMM g from the fill kernel that wrote
 * its shapes, into detail (at most n bytes) and r. */
static void grouped_from_fill(const fc_cutlass_groups *g, fc_launch_result *r, char *detail,
                              size_t n)
{
    r->offs = NULL;
    r->offs_axis = 0;
    r->host_flops = 0;
    r->host_exact = 0;
    if (!last_fill.valid || last_fill.f.problem_sizes != g->shapes) {
        snprintf(detail, n, "no PyTorch setup kernel wrote them: no bound");
        return;
    }
    const fc_grouped_fill *f = &last_fill.f;
    last_fill.valid = 0;
    if (f->groups != g->groups) {
        snprintf(detail, n, "its setup kernel had %d groups, the GEMM %d: no bound",
                 (int)f->groups, (int)g->groups);
        return;
    }
    uint64_t flops = 0;
    char why[FC_UNCOUNTED_DETAIL];
    int exact = fc_grouped_fill_bound(f, &flops, why, sizeof why);
    snprintf(detail, n, "%s %llu FLOPs from the host values (host_bound)",
             exact ? "exactly" : "at most", (unsigned long long)flops);
    r->host_flops = flops;
    r->host_exact = (uint8_t)exact;
    snprintf(r->host_why, sizeof r->host_why, "%.95s", why);
    r->offs = f->offs;
    r->offs_axis = (uint8_t)f->ragged;
    r->fixed[0] = f->m, r->fixed[1] = f->n, r->fixed[2] = f->k;
}

/* A CUTLASS 3 or 2 grouped launch: its group count and problem-shape array
 * read from its Params (cutlass_grouped.h) and listed uncounted
 * (sizes_in_device_memory, "N groups"), or, when they do not check out,
 * named with why (layout_mismatch). Interned at each launch (a hash and a
 * scan): a few such launches per MoE layer. */
static void cutlass_grouped(fc_kernel *k, const fc_launch_call *c, fc_launch_result *r)
{
    fc_kparams p = {c->param0, c->avail, 0, 0, {c->grid[0], c->grid[1], c->grid[2]}};
    sizes(k, c, &p.size, &p.nparams);
    char why[256];
    fc_cutlass_groups g;
    r->kind = FC_LR_UNCOUNTED;
    int v2 = k->family == FC_KF_CUTLASS2_GROUPED;
    if ((v2 ? fc_cutlass2_grouped_decode(k->name, &p, &g, why, sizeof why)
            : fc_cutlass_grouped_decode(k->name, &p, &g, why, sizeof why)) != 0) {
        r->id = fc_uncounted_intern(k->name, k->kclass, FC_UNC_LAYOUT, why);
        add(&st.layout[c->path & 1]);
        return;
    }
    char detail[2 * FC_UNCOUNTED_DETAIL], bound[FC_UNCOUNTED_DETAIL];
    r->offs = NULL;
    r->offs_axis = 0;
    r->host_flops = 0;
    r->host_exact = 0;
    if (!v2)
        grouped_from_fill(&g, r, bound, sizeof bound);
    /* the first call's bound in the detail (the text lines show it; the
     * JSON's host_bound sums every call's), before the read clause */
    snprintf(detail, sizeof detail,
             "%d groups; every group's m, n, k are in device memory "
             "(%s)%s%s%s",
             (int)g.groups, v2 ? "GemmGrouped problem_sizes" : "GroupProblemShape problem_shapes",
             v2 ? "" : "; ", v2 ? "" : bound,
             fc_opt.read_device_sizes
                 ? (r->offs != NULL ? ", offs read back: counted when the copy lands"
                                    : ", read back: counted when the copy lands")
                 : "");
    r->id = fc_uncounted_intern(k->name, k->kclass, FC_UNC_DEVICE_SIZES, detail);
    if (r->offs_axis != 0 || r->host_flops > 0) /* counted once per launch decoded */
        fc_devsizes_note_host(r->id, r->host_flops, r->host_exact, r->host_why);
    r->groups = g.groups;
    r->shapes = g.shapes;
    r->dtype = g.dtype;
}

/* --read-device-sizes: the problem shapes of a successful grouped launch
 * copied back after it on its stream, and its placeholder in the ring,
 * counted group by group when the copy lands (ring/devread.h). */
static void cutlass_grouped_read(const fc_launch_result *r, const void *stream)
{
    if (!fc_opt.read_device_sizes)
        return;
    fc_devsizes_req q = {.stream = (void *)stream, .m = r->shapes, .interleaved = 1,
                         .groups = r->groups, .unc_id = r->id};
    if (r->offs != NULL && r->offs_axis != 0) { /* offs: the host's copy, real everywhere */
        q.m = r->offs, q.interleaved = 0, q.offs_axis = r->offs_axis;
        memcpy(q.fixed, r->fixed, sizeof q.fixed);
    }
    fc_gemm g = {.api = FC_API_CUTLASS_GROUPED_READ, .compute = -1, .dtype = r->dtype,
                 .out_dtype = r->dtype, .transa = 'N', .transb = 'N'};
    int slot = -1;
    if (fc_devsizes_submit(&q, &slot) == FC_DEVSIZES_QUEUED &&
        fc_ring_put_devread(&g, slot, r->groups) != 0)
        fc_devsizes_give_up(slot); /* read into the entry only */
}

static int marker_of(int family)
{
    (void)family;
    return FC_IREC_OPTIM;
}

void fc_launch_decode(uint32_t rec, const fc_launch_call *c, fc_launch_result *r)
{
    r->kind = FC_LR_NONE;
    r->groups = 0;
    r->shapes = NULL;
    r->offs = NULL;
    r->offs_axis = 0;
    if (rec == 0 || rec > FC_LAUNCH_KERNELS)
        return;
    fc_kernel *k = &fc_launch_kernels[rec - 1];
    if (__atomic_load_n(&k->dead, __ATOMIC_ACQUIRE))
        return;
    switch (fc_kfamily_action(k->family)) {
    case FC_KA_MARK:
        r->kind = FC_LR_MARK;
        r->id = (uint32_t)marker_of(k->family);
        return;
    case FC_KA_OPAQUE:
        if (k->family == FC_KF_GROUPED_FILL) {
            grouped_fill(k, c);
            return;
        }
        if (k->family == FC_KF_CUTLASS_GROUPED || k->family == FC_KF_CUTLASS2_GROUPED) {
            cutlass_grouped(k, c, r);
            return;
        }
        r->kind = FC_LR_UNCOUNTED;
        r->id = unc_id(k, FC_UNC_OPAQUE, fc_kfamily_label(k->family));
        return;
    case FC_KA_DECODE:
        break;
    default:
        return;
    }
    char why[256];
    fc_ktraits mine;
    const fc_ktraits *t = traits(k, &mine, why, sizeof why);
    fc_kparams p = {c->param0, c->avail, 0, 0, {c->grid[0], c->grid[1], c->grid[2]}};
    int rc = -1;
    if (t != NULL) {
        sizes(k, c, &p.size, &p.nparams);
        rc = k->family == FC_KF_MEMEFF_FWD || k->family == FC_KF_MEMEFF_BWD
                 ? fc_memeff_decode(k->family, t, &p, &r->a, why, sizeof why)
                 : fc_fa2_decode(k->family, t, &p, &r->a, why, sizeof why);
    }
    if (rc == 0) {
        r->kind = FC_LR_ATTN;
        add(p.size > 0 ? &st.sized : &st.unsized);
        return;
    }
    r->kind = FC_LR_UNCOUNTED;
    r->id = unc_id(k, FC_UNC_LAYOUT, why);
    add(&st.layout[c->path & 1]);
}

void fc_launch_account(const fc_launch_result *r, const void *stream, int ok, int path)
{
    path &= 1;
    if (r->kind == FC_LR_NONE)
        return;
    add(&st.seen[path]);
    if (!ok)
        add(&st.failed[path]);
    switch (r->kind) {
    case FC_LR_ATTN:
        add(&st.decoded[path]);
        fc_attn_record(&r->a, stream, ok);
        break;
    case FC_LR_UNCOUNTED:
        add(&st.uncounted[path]);
        fc_uncounted_count(r->id, ok);
        if (r->groups > 0 && ok)
            cutlass_grouped_read(r, stream);
        break;
    case FC_LR_MARK:
        add(&st.marks[path]);
        if (ok)
            fc_ring_mark((int)r->id);
        break;
    default:
        break;
    }
}

void fc_launch_note_captured(int path)
{
    add(&st.seen[path & 1]);
    add(&st.captured[path & 1]);
}

void fc_launch_note_duplicate(void)
{
    add(&st.duplicates);
}

void fc_launch_stats_get(fc_launch_stats *out)
{
    memset(out, 0, sizeof *out);
    for (int p = 0; p < FC_LP_COUNT; p++) {
        out->seen[p] = __atomic_load_n(&st.seen[p], __ATOMIC_RELAXED);
        out->decoded[p] = __atomic_load_n(&st.decoded[p], __ATOMIC_RELAXED);
        out->uncounted[p] = __atomic_load_n(&st.uncounted[p], __ATOMIC_RELAXED);
        out->layout[p] = __atomic_load_n(&st.layout[p], __ATOMIC_RELAXED);
        out->marks[p] = __atomic_load_n(&st.marks[p], __ATOMIC_RELAXED);
        out->failed[p] = __atomic_load_n(&st.failed[p], __ATOMIC_RELAXED);
        out->captured[p] = __atomic_load_n(&st.captured[p], __ATOMIC_RELAXED);
    }
    out->sized = __atomic_load_n(&st.sized, __ATOMIC_RELAXED);
    out->unsized = __atomic_load_n(&st.unsized, __ATOMIC_RELAXED);
    out->duplicates = __atomic_load_n(&st.duplicates, __ATOMIC_RELAXED);
}
