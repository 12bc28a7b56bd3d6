/* SPDX-License-Identifier: Apache-2.0 */
/* tensorboard.h - FLOPCOUNT_TENSORBOARD=DIR: one TensorBoard event file
 * per process, in a run folder of its own (DIR/rank<R>/, or DIR/pid<P>/
 * without a rank): events.out.tfevents.<unix s>.<host>.<pid>.flopcount,
 * one Event per finished training iteration with the scalars of
 * docs/tensorboard.md, step = the iteration's number. Written by the
 * drainer's tick, never on the GEMM path; the file is created at the first
 * iteration (a process that trains none leaves nothing) and opened once. */
#ifndef FC_TENSORBOARD_H
#define FC_TENSORBOARD_H

/* Reads the option (constructor, after the options and the rank). 0 when
 * event files are to be written, -1 when off. */
int fc_tb_init(void);
/* The drainer's tick (fc_ring_add_tick): the iterations finished since the
 * last call, one write. Holds the drain lock; allocates nothing. */
void fc_tb_tick(void);
/* What is finished and not written yet, written now: at exit after the
 * final report (the stream ended, so the last iteration is in), before
 * exec, and from the SIGINT/SIGTERM handler (may_look 0: no device
 * lookup). Takes the drain lock itself; skipped when it cannot be had. */
void fc_tb_flush(int may_look);
/* A fork child: the parent's file is not its own; it starts one of its
 * own at its first iteration. */
void fc_tb_after_fork_child(void);

#endif
