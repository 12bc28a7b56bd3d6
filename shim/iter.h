/* iter.h - training iterations, phases and recompute, found from the stream
 * of GEMM calls (and markers, when the program gives them). */
#ifndef FC_ITER_H
#define FC_ITER_H

#include "../analysis/jsonw.h"
#include "shim.h"

void fc_iter_init(void);
void fc_iter_reset_after_fork(void);
/* Every successful counted call, in the order the calls finished. */
void fc_iter_on_call(const fc_gemm *g, fc_u128 flops);
/* Training iterations completed so far. */
uint64_t fc_iter_count(void);
/* Report sections: "iterations", "eval_passes", "recompute", "utilization",
 * "callsites" as members of the open top-level object. */
void fc_iter_report_json(fc_jw *w);
/* Lines of the human summary (fd 2). */
void fc_iter_report_text(int fd);

#endif
