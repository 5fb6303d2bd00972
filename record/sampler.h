/*
 * sampler.h: the sampling loop of prof-record.
 *
 * sampler_run() drives a struct target and a struct trace_writer: on every
 * tick of an absolute-deadline clock it snapshots each selected thread,
 * unwinds it and records the sample; between ticks it follows thread
 * starts, exits, renames and image changes, and flushes the trace at least
 * once a second. It returns when asked to stop, when the duration is up,
 * when the target exits, or on a write error. It never prints: progress
 * goes to an optional callback.
 */
#ifndef RECORD_SAMPLER_H
#define RECORD_SAMPLER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "record/target.h"

struct images;

struct sampler_stats {
	uint64_t elapsed_ns;
	uint64_t samples;
	uint64_t threads;       /* threads seen */
	uint64_t live_threads;
	uint64_t images;
	uint64_t lost;          /* TRACE_COUNTER_SAMPLES_LOST */
	uint64_t bytes;         /* trace bytes written */
	uint64_t counters[TRACE_COUNTER__COUNT];
};

struct sampler_config {
	uint32_t rate_hz;
	uint64_t duration_ns;   /* 0: until stopped or the target exits */
	size_t max_depth;
	const uint32_t *tids;   /* only these threads, if ntids > 0 (borrowed) */
	size_t ntids;
	const volatile sig_atomic_t *stop;  /* non-zero: finish now */
	/* Called about four times a second, if set. */
	void (*progress)(void *ctx, const struct sampler_stats *st);
	void *progress_ctx;
};

/* Monotonic nanoseconds, the clock of every trace timestamp. */
uint64_t sampler_now(void);

/* How often both recording loops (wall here, cpu in target_linux_perf.c)
 * look at the image map and thread names, report progress, and write the
 * counters and flush the trace (well inside the promised once a second). */
#define SAMPLER_MAINT_NS (100 * 1000000ull)
#define SAMPLER_PROGRESS_NS (250 * 1000000ull)
#define SAMPLER_FLUSH_NS (500 * 1000000ull)

struct sampler_schedule {
	uint64_t next_maint, next_progress, next_flush;
};

/* The first deadlines, counted from start. */
void sampler_schedule_init(struct sampler_schedule *s, uint64_t start);
/* Whether maintenance is due at now; if so the next is scheduled. */
int sampler_maint_due(struct sampler_schedule *s, uint64_t now);
/* Whether a progress report is due at now (never without cfg->progress). */
int sampler_progress_due(struct sampler_schedule *s, const struct sampler_config *cfg,
			 uint64_t now);
/* Writes st's counters and flushes w if a flush is due at now. Returns 0
 * or the negative trace_writer error. */
int sampler_flush_due(struct sampler_schedule *s, struct trace_writer *w,
		      const struct sampler_stats *st, uint64_t now);
/* Code outside every known image usually means a library was mapped since
 * the last look (in cpu mode, its MMAP2 record may be in another thread's
 * buffer): re-reads im's map now, so the image precedes its samples. Not
 * more than once per maintenance interval, kept in *next_refresh, for code
 * that is in no image (JIT, anonymous memory). Returns 0 or the negative
 * trace_writer error. */
int sampler_refresh_images(struct images *im, struct trace_writer *w, const uint64_t *frames,
			   size_t n, uint64_t now, uint64_t *next_refresh);
/* Whether thread tid is to be sampled under cfg (-t; all if none given). */
int sampler_selected(const struct sampler_config *cfg, uint32_t tid);

/* Samples t into w until done; *st holds the totals afterwards. Returns 0,
 * or the negative trace_writer error that ended it. The writer is left
 * unfinished and the target attached: the caller detaches, then finishes. */
int sampler_run(const struct sampler_config *cfg, struct target *t, struct trace_writer *w,
		struct sampler_stats *st);

#endif
