/*
 * sampler_perf.h: the perf_event source of samples, on Linux.
 *
 * Instead of stopping threads on a clock of its own (sampler_tick.c),
 * the kernel samples each thread of the target while it runs on a CPU:
 * one cpu-clock event per thread at the requested frequency, each with its
 * own ring buffer, drained into the same loop (every sample's state is
 * RUNNING). The struct target stays attached meanwhile, only so that new
 * threads are known at the moment they are cloned and the process's exit
 * is seen; no thread is stopped to be sampled. Implemented in
 * sampler_perf_linux.c.
 */
#ifndef RECORD_SAMPLER_PERF_H
#define RECORD_SAMPLER_PERF_H

#include <sys/types.h>

#include "common/errors.h" /* SAMPLER_PERF_E_* */
#include "record/sampler.h"

/* Whether a cpu-mode event can be opened on process pid (0: on ourselves)
 * at rate_hz. Returns 0, or a negative errno from perf_event_open(2)
 * (-EACCES or -EPERM: refused, see kernel.perf_event_paranoid; -ENOENT,
 * -ENODEV, -ENOSYS: no perf_event support) or SAMPLER_PERF_E_RATE. */
int sampler_perf_probe(pid_t pid, uint32_t rate_hz);
/* A new perf_event source for target t; sampler_source_free() frees it. */
struct sampler_source *sampler_perf_new(struct target *t);
/* After a run: the first error met opening a thread's event (0 if none),
 * and how many threads' events were opened. A thread whose event cannot
 * be opened is left out (counted in TRACE_COUNTER_THREADS_VANISHED if it
 * was gone). */
int sampler_perf_error(const struct sampler_source *src, size_t *opened);

#endif
