/* SPDX-License-Identifier: Apache-2.0 */
/* devread.h - the drain's side of a grouped call whose group sizes are
 * read from device memory (--read-device-sizes; probe/devsizes.h): its
 * placeholder record (fc_ring_put_devread) becomes one counted GEMM
 * record per group, at the call's own place in the stream, so its FLOPs
 * fall into the iteration and phase (forward, backward, recompute) the
 * call was made in, exactly as a host-sized grouped call's do.
 *
 * Until the copy lands the drain holds the stream at the placeholder
 * (every later record waits; the drainer comes back each tick) - never a
 * wait on the caller's thread. It stops holding when a ring is half full
 * (the program would otherwise lose records to the detector) or the call
 * is older than FC_DEVREAD_HOLD_S; the final report polls up to
 * FC_DEVREAD_FINAL_MS more, for all of them together. A call given up stays uncounted (listed with
 * the read's figures when it lands later) and its iteration is marked as
 * missing records (FC_IREC_LOST: unsure, "lost"). */
#ifndef FC_RING_DEVREAD_H
#define FC_RING_DEVREAD_H

#include "hotpath.h"

#define FC_DEVREAD_HOLD_S 2.0    /* a placeholder older than this is given up */
#define FC_DEVREAD_FINAL_MS 1000 /* the final report's bounded poll, in all */

enum {
    FC_DEVREAD_HOLD = 0, /* not landed: keep the place, come back */
    FC_DEVREAD_GIVE_UP,  /* not landed: give it up now (a ring is filling) */
    FC_DEVREAD_WAIT      /* the final report: poll a bounded time, then give up */
};

/* The placeholder c from ring `ring`, under the drain lock: 1 when it is
 * done with (its groups counted and pushed to the detector, or given up),
 * 0 when the drain must stop here and come back later. */
int fc_devread_feed(const fc_crec *c, int ring, int mode);

#endif
