/* SPDX-License-Identifier: Apache-2.0 */
/* nvtx.c - NVTX injection: named by NVTX_INJECTION64_PATH (flopcount run
 * sets it), this library receives the program's NVTX ranges (the exported
 * entry point InitializeInjectionNvtx2 is in public.c and calls
 * fc_nvtx_install). A range named
 * FLOPCOUNT_NVTX_STEP ("step") marks one training iteration, push to pop
 * (or start to end). Push/pop ranges that name a phase (forward,
 * backward, recompute, and those frameworks emit: phase_of) put the GEMMs
 * inside them in that phase. Every other range is ignored. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <stdatomic.h>
#include <string.h>
#include <strings.h>

#include "core/base.h"
#include "core/options.h"
#include "detect/irec.h"
#include "nvtx_install.h"
#include "ring/ring.h"

#define MAX_STARTED 64
#define MAX_STRINGS 256

static FC_TLS int depth;         /* this thread's push/pop nesting */
static FC_TLS uint64_t step_bits; /* bit d: the range at level d is a step */
static FC_TLS uint8_t level_phase[64]; /* enum fc_phase a range at level d declares */
static FC_TLS uint8_t thread_phase;    /* what the thread's open ranges declare now */
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

static int starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int ends_with(const char *s, const char *p)
{
    size_t n = strlen(s), m = strlen(p);
    return n >= m && strcmp(s + n - m, p) == 0;
}

/* The phase a range's name declares (docs/iterations.md, "NVTX phase
 * ranges"): forward / backward / recompute by name, any case; PyTorch
 * autograd's backward functions (emit_nvtx: "MmBackward0, stashed seq =
 * 12"); TransformerEngine's module backward ("_Linear_backward") and, with
 * NVTE_NVTX_ENABLED=1, its "transformer_engine.<module>.forward|backward
 * ..." ranges. Any other range declares nothing. */
static int phase_of(const char *msg)
{
    if (msg == NULL)
        return FC_PH_NONE;
    if (strcasecmp(msg, "forward") == 0)
        return FC_PH_FWD;
    if (strcasecmp(msg, "backward") == 0)
        return FC_PH_BWD;
    if (strcasecmp(msg, "recompute") == 0)
        return FC_PH_REC;
    if (strstr(msg, "stashed seq") != NULL)
        return FC_PH_BWD;
    if (msg[0] == '_' && ends_with(msg, "_backward"))
        return FC_PH_BWD;
    if (starts_with(msg, "transformer_engine.")) {
        if (strstr(msg, ".backward") != NULL)
            return FC_PH_BWD;
        if (strstr(msg, ".forward") != NULL)
            return FC_PH_FWD;
    }
    return FC_PH_NONE;
}

/* The thread's phase from its open ranges: the innermost one that declares
 * one; a forward inside a backward is a recompute (a checkpointed module
 * run again by the backward). Tells the detector when it changes. */
static void phase_changed(void)
{
    int top = depth < 64 ? depth : 64, ph = FC_PH_NONE;
    for (int d = top - 1; d >= 0 && ph == FC_PH_NONE; d--)
        if (level_phase[d] != FC_PH_NONE) {
            ph = level_phase[d];
            for (int e = d - 1; ph == FC_PH_FWD && e >= 0; e--)
                if (level_phase[e] == FC_PH_BWD || level_phase[e] == FC_PH_REC)
                    ph = FC_PH_REC;
        }
    if (ph != thread_phase) {
        thread_phase = (uint8_t)ph;
        fc_ring_mark_phase(FC_IREC_NVTX_PHASE, ph);
    }
}

static int push(const char *msg)
{
    int level = depth++;
    if (level < 64) {
        int step = is_step(msg);
        step_bits = step ? step_bits | 1ull << level : step_bits & ~(1ull << level);
        if (step)
            fc_ring_mark(FC_IREC_NVTX_PUSH);
        level_phase[level] = (uint8_t)(step ? FC_PH_NONE : phase_of(msg));
        if (level_phase[level] != FC_PH_NONE)
            phase_changed();
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
    if (level < 64 && level_phase[level] != FC_PH_NONE) {
        level_phase[level] = FC_PH_NONE;
        phase_changed();
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
