/*
 * source_tick.c: the source that stops threads on a clock of its own.
 *
 * Timing uses absolute deadlines on CLOCK_MONOTONIC (clock_nanosleep with
 * TIMER_ABSTIME), so the rate does not drift with the time each tick takes.
 * When a tick takes so long that later deadlines have passed, those ticks
 * are not made up: each one is counted as lost, once per thread it would
 * have sampled. On a tick every selected thread is asked to stop first, so
 * that their stop latencies overlap; then each is taken in turn, its
 * registers and stack window read, walked, and let go before its sample
 * is written, so the target pays the least possible. This is wall mode
 * through ptrace on Linux (target_linux_ptrace.c) and through the Mach
 * task on macOS (target_darwin.c).
 */
#include "loop.h"
#include "common/diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Stack pages read beyond the window during one walk: deep stacks would
 * otherwise cost one system call per frame, with the thread stopped. */
#define PAGE_CACHE 8
#define CACHE_PAGE 4096u

struct page_cache {
	struct target *t;
	uint64_t addr[PAGE_CACHE];
	int valid[PAGE_CACHE];
	unsigned next;
	uint8_t data[PAGE_CACHE][CACHE_PAGE];
};

struct tick {
	struct source src;
	struct target *t;
	uint64_t period, next;
	int paused;             /* no ticks until the resume */
	uint32_t *tids;         /* this tick's threads: target_threads() lends */
	size_t tids_cap;
	struct page_cache cache;
};

/* Sleeps until monotonic time deadline, or until a signal has asked to
 * stop. macOS has no clock_nanosleep: there a relative sleep to the
 * deadline, looked at again after each wake-up, does the same. */
static void sleep_until(uint64_t deadline, const volatile sig_atomic_t *stop)
{
#ifdef __APPLE__
	uint64_t now;

	while (!*stop && (now = loop_now()) < deadline) {
		struct timespec ts = { (time_t)((deadline - now) / 1000000000ull),
				       (long)((deadline - now) % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
#else
	struct timespec ts = { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !*stop)
		;
#endif
}

static int cached_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct page_cache *c = ctx;
	uint64_t page = addr & ~(uint64_t)(CACHE_PAGE - 1);
	unsigned slot;

	if (len > CACHE_PAGE - (addr - page))  /* crosses a page: rare */
		return target_read(c->t, addr, buf, len);
	for (slot = 0; slot < PAGE_CACHE; slot++)
		if (c->valid[slot] && c->addr[slot] == page)
			break;
	if (slot == PAGE_CACHE) {
		slot = c->next++ % PAGE_CACHE;
		c->valid[slot] = 0;
		if (target_read(c->t, page, c->data[slot], CACHE_PAGE) < 0)
			return target_read(c->t, addr, buf, len);
		c->addr[slot] = page;
		c->valid[slot] = 1;
	}
	memcpy(buf, c->data[slot] + (addr - page), len);
	return 0;
}

static int sample_thread(struct tick *k, struct loop *s, uint32_t tid)
{
	struct target_stop ts;
	struct loop_regs sr;
	const uint64_t *frames;
	size_t n;
	int stop, r = target_stop_thread(k->t, tid, &ts);
	uint64_t time;

	if (r == -ESRCH) {
		loop_counters(s)[TRACE_COUNTER_THREADS_VANISHED]++;
		return 0;
	}
	/* Registers refused with a thread there to give them: not one
	 * sample lost but every one to come, which the user must hear of. */
	if (r == TARGET_E_REGS) {
		loop_target_failed(s, r);
		return 0;
	}
	if (r < 0) {
		loop_lost(s, 1);
		return 0;
	}
	time = loop_now();
	memset(k->cache.valid, 0, sizeof(k->cache.valid));
	sr = (struct loop_regs){ .tid = tid, .arch = ts.arch, .regs = ts.regs, .window_addr = ts.window_addr,
				    .window = ts.window, .window_len = ts.window_len, .window_whole = 1,
				    .read = cached_read, .read_ctx = &k->cache };
	frames = loop_walk(s, &sr, &n, &stop);
	if (unwind_leaf_scanned(loop_trail(s), n))
		loop_counters(s)[TRACE_COUNTER_LEAF_SCANS]++;
	/* A thread that cannot be let go stays held until the detach at
	 * the end, which the failure brings on at once. */
	r = target_resume_thread(k->t, tid);
	if (r < 0)
		loop_target_failed(s, r);
	return loop_sample(s, time, tid, ts.state, 0, frames, n, stop);
}

static int tick_start(struct source *src, struct loop *s)
{
	struct tick *k = (struct tick *)src;
	uint32_t rate = loop_config(s)->rate_hz;

	k->period = 1000000000ull / (rate ? rate : 1);
	k->next = loop_now();
	return 0;
}

static uint64_t tick_next_due(struct source *src, uint64_t now)
{
	struct tick *k = (struct tick *)src;

	(void)now;
	return k->paused ? UINT64_MAX : k->next;
}

/* A pause stops the clock; the ticks it spans are not lost, but never
 * due: the clock starts again at the resume. */
static void tick_pause(struct source *src, int paused, uint64_t now)
{
	struct tick *k = (struct tick *)src;

	k->paused = paused;
	if (!paused)
		k->next = now;
}

static void tick_wait(struct source *src, uint64_t deadline, const volatile sig_atomic_t *stop)
{
	(void)src;
	sleep_until(deadline, stop);
}

static int tick_take(struct source *src, struct loop *s, uint64_t now)
{
	struct tick *k = (struct tick *)src;
	const uint32_t *live;
	size_t n, sampled = 0;
	int r = 0;

	if (k->paused || now < k->next)
		return 0;
	/* live is borrowed until the next call into the target: copied. */
	n = target_threads(k->t, &live);
	k->tids = xgrow(k->tids, &k->tids_cap, n + 1, sizeof(*k->tids));
	memcpy(k->tids, live, n * sizeof(*k->tids));
	for (size_t i = 0; i < n; i++)
		if (loop_selected(s, k->tids[i]))
			target_interrupt_thread(k->t, k->tids[i]);
	for (size_t i = 0; i < n && r == 0; i++) {
		if (!loop_selected(s, k->tids[i]))
			continue;
		sampled++;
		r = sample_thread(k, s, k->tids[i]);
	}
	/* A late tick still runs (at once); only deadlines a whole period in
	 * the past are given up and counted. */
	now = loop_now();
	k->next += k->period;
	if (now >= k->next + k->period) {
		uint64_t missed = (now - k->next) / k->period;
		loop_lost(s, missed * (sampled ? sampled : 1));
		k->next += missed * k->period;
	}
	return r;
}

static void tick_release(struct source *src)
{
	struct tick *k = (struct tick *)src;
	free(k->tids);
	free(k);
}

static const struct source_ops tick_ops = {
	.start = tick_start,
	.next_due = tick_next_due,
	.wait = tick_wait,
	.take = tick_take,
	.pause = tick_pause,
	.release = tick_release,
};

struct source *source_tick_new(struct target *t)
{
	struct tick *k = xcalloc(1, sizeof(*k));

	k->src.ops = &tick_ops;
	k->src.poll_names = 1;
	k->t = t;
	k->cache.t = t;
	return &k->src;
}
