/*
 * perf_sampler.h: cpu mode, sampling with perf_event on Linux.
 *
 * Instead of stopping threads on a clock of our own (sampler.c, wall
 * mode), the kernel samples each thread of the target while it runs on a
 * CPU: one cpu-clock event per thread at the requested frequency, each
 * with its own ring buffer, drained into the same trace as wall mode
 * writes (every sample's state is RUNNING). The struct target stays
 * attached meanwhile, only so that new threads are known at the moment
 * they are cloned and the process's exit is seen; no thread is stopped to
 * be sampled. Implemented in target_linux_perf.c.
 */
#ifndef RECORD_PERF_SAMPLER_H
#define RECORD_PERF_SAMPLER_H

#include <sys/types.h>

#include "record/sampler.h"
#include "record/target.h"

enum perf_sampler_error {
	PERF_SAMPLER_E_RATE = -5100, /* -F is above kernel.perf_event_max_sample_rate */
	PERF_SAMPLER_E_MLOCK,        /* a ring buffer exceeds perf_event_mlock_kb */
};

/* Whether a cpu-mode event can be opened on process pid (0: on ourselves)
 * at rate_hz. Returns 0, or a negative errno from perf_event_open(2)
 * (-EACCES or -EPERM: refused, see kernel.perf_event_paranoid; -ENOENT,
 * -ENODEV, -ENOSYS: no perf_event support) or PERF_SAMPLER_E_RATE. */
int perf_sampler_probe(pid_t pid, uint32_t rate_hz);
/* Describes a negative perf_sampler_* return value. */
const char *perf_sampler_strerror(int err);
/* Samples t into w as sampler_run() does, with the same config, stats and
 * contract: returns 0 or the negative trace_writer error that ended it;
 * the writer is left unfinished and the target attached. A thread whose
 * event cannot be opened is left out (counted in
 * TRACE_COUNTER_THREADS_VANISHED if it was gone), and *perf_err is set to
 * the first such error (else 0). If no thread's event could be opened at
 * the start, it returns 0 at once with st->threads 0 and *perf_err set. */
int perf_sampler_run(const struct sampler_config *cfg, struct target *t, struct trace_writer *w,
		     struct sampler_stats *st, int *perf_err);

#endif
