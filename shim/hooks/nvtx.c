/* SPDX-License-Identifier: Apache-2.0 */
/* nvtx.c - NVTX injection: named by NVTX_INJECTION64_PATH (flopcount run
 * sets it), this library receives the program's NVTX ranges (the exported
 * entry point InitializeInjectionNvtx2 is in public.c and calls
 * fc_nvtx_install). A range named
 * FLOPCOUNT_NVTX_STEP ("step") marks one training iteration, push to pop
 * (or start to end); every other range is ignored. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <stdatomic.h>
#include <string.h>

#include "core/base.h"
#include "core/options.h"
#include "detect/irec.h"
#include "nvtx_install.h"
#include "ring/ring.h"

#define MAX_STARTED 64
#define MAX_STRINGS 256

static FC_TLS int depth;         /* this thread's push/pop nesting */
static FC_TLS uint64_t step_bits; /* bit d: the range at level d is a step */
static _Atomic uint64_t next_id = 1;
static _Atomic uint64_t started[MAX_STARTED]; /* ids of open start/end step ranges */
static const char *registered[MAX_STRINGS];
static char registered_text[MAX_STRINGS][128];
static atomic_int n_registered;

static int is_step(const char *msg)
{
    return msg != NULL && strcmp(msg, fc_opt.nvtx_step) == 0;
}

static const char *message_of(const nvtxEventAttributes_t *a)
{
    if (a == NULL || a->size < 48) /* too old to hold a message */
        return NULL;
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        return a->message.ascii;
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        return (const char *)a->message.registered; /* our own handles: see below */
    return NULL;
}

static int push(const char *msg)
{
    int level = depth++;
    if (level < 64) {
        int step = is_step(msg);
        step_bits = step ? step_bits | 1ull << level : step_bits & ~(1ull << level);
        if (step)
            fc_ring_mark(FC_IREC_NVTX_PUSH);
    }
    return level;
}

static int pop(void)
{
    if (depth == 0)
        return -1;
    int level = --depth;
    if (level < 64 && (step_bits >> level & 1)) {
        step_bits &= ~(1ull << level);
        fc_ring_mark(FC_IREC_NVTX_POP);
    }
    return level;
}

static nvtxRangeId_t start(const char *msg)
{
    nvtxRangeId_t id = atomic_fetch_add(&next_id, 1);
    if (is_step(msg)) {
        for (int i = 0; i < MAX_STARTED; i++) {
            uint64_t expect = 0;
            if (atomic_compare_exchange_strong(&started[i], &expect, id))
                break;
        }
        fc_ring_mark(FC_IREC_NVTX_PUSH);
    }
    return id;
}

static void end(nvtxRangeId_t id)
{
    for (int i = 0; i < MAX_STARTED; i++) {
        uint64_t expect = id;
        if (id != 0 && atomic_compare_exchange_strong(&started[i], &expect, 0)) {
            fc_ring_mark(FC_IREC_NVTX_POP);
            return;
        }
    }
}

static int NVTX_API push_a(const char *msg) { return push(msg); }
static int NVTX_API push_ex(const nvtxEventAttributes_t *a) { return push(message_of(a)); }
static int NVTX_API pop0(void) { return pop(); }
static nvtxRangeId_t NVTX_API start_a(const char *msg) { return start(msg); }
static nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t *a) { return start(message_of(a)); }
static void NVTX_API end0(nvtxRangeId_t id) { end(id); }
static int NVTX_API dom_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    return push(message_of(a));
}
static int NVTX_API dom_pop(nvtxDomainHandle_t d)
{
    (void)d;
    return pop();
}
static nvtxRangeId_t NVTX_API dom_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    return start(message_of(a));
}
static void NVTX_API dom_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    (void)d;
    end(id);
}

/* Registered strings: the handle we hand out is a copy of the text, so a
 * registered message reads like an ASCII one. */
static nvtxStringHandle_t NVTX_API dom_register(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    int i = atomic_fetch_add(&n_registered, 1);
    if (i >= MAX_STRINGS || s == NULL)
        return (nvtxStringHandle_t)"";
    size_t n = strlen(s) < sizeof registered_text[i] - 1 ? strlen(s) : sizeof registered_text[i] - 1;
    memcpy(registered_text[i], s, n);
    registered_text[i][n] = '\0';
    registered[i] = registered_text[i];
    return (nvtxStringHandle_t)registered[i];
}

static void install(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, const int *ids,
                    NvtxFunctionPointer const *fns, int n)
{
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || table == NULL)
        return;
    for (int i = 0; i < n; i++)
        if ((unsigned)ids[i] <= size && table[ids[i]] != NULL)
            *table[ids[i]] = fns[i];
}

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

int fc_nvtx_install(NvtxGetExportTableFunc_t get_table)
{
    const NvtxExportTableCallbacks *cb =
        get_table ? (const NvtxExportTableCallbacks *)get_table(NVTX_ETID_CALLBACKS) : NULL;
    if (cb == NULL || cb->struct_size < sizeof *cb || cb->GetModuleFunctionTable == NULL)
        return 0;
    static const int core_ids[] = {NVTX_CBID_CORE_RangePushA, NVTX_CBID_CORE_RangePushEx,
                                   NVTX_CBID_CORE_RangePop, NVTX_CBID_CORE_RangeStartA,
                                   NVTX_CBID_CORE_RangeStartEx, NVTX_CBID_CORE_RangeEnd};
    NvtxFunctionPointer core_fns[] = {FN(push_a), FN(push_ex), FN(pop0), FN(start_a), FN(start_ex), FN(end0)};
    install(cb, NVTX_CB_MODULE_CORE, core_ids, core_fns, 6);
    static const int core2_ids[] = {NVTX_CBID_CORE2_DomainRangePushEx, NVTX_CBID_CORE2_DomainRangePop,
                                    NVTX_CBID_CORE2_DomainRangeStartEx, NVTX_CBID_CORE2_DomainRangeEnd,
                                    NVTX_CBID_CORE2_DomainRegisterStringA};
    NvtxFunctionPointer core2_fns[] = {FN(dom_push), FN(dom_pop), FN(dom_start), FN(dom_end),
                                       FN(dom_register)};
    install(cb, NVTX_CB_MODULE_CORE2, core2_ids, core2_fns, 5);
    return 1;
}
