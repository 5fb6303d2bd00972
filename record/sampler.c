/*
 * sampler.c: the loop that turns ticks into samples.
 *
 * Timing uses absolute deadlines on CLOCK_MONOTONIC (clock_nanosleep with
 * TIMER_ABSTIME), so the rate does not drift with the time each tick takes.
 * When a tick takes so long that later deadlines have passed, those ticks
 * are not made up: each one is counted as lost, once per thread it would
 * have sampled. Each thread is stopped only while its registers and stack
 * are copied and walked, and let go before the sample is written, so the
 * target pays the least possible. Book-keeping that need not run every
 * tick (image map, thread names, counters, flush) runs on coarser clocks.
 */
#include "sampler.h"
#include "images.h"
#include "unwind.h"
#include "common/diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NAME_MAX_BYTES 64

struct tname {
	uint32_t tid;
	char name[NAME_MAX_BYTES];
};

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

struct loop {
	const struct sampler_config *cfg;
	struct target *t;
	struct trace_writer *w;
	struct sampler_stats *st;
	struct images *images;
	struct tname *names;
	size_t nnames, names_cap;
	uint64_t *frames;
	struct page_cache *cache;
	uint64_t next_refresh;
	int exited;
};

uint64_t sampler_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleeps until monotonic time deadline, or until a signal has asked to
 * stop. macOS has no clock_nanosleep: there a relative sleep to the
 * deadline, looked at again after each wake-up, does the same. */
static void sleep_until(uint64_t deadline, const volatile sig_atomic_t *stop)
{
#ifdef __APPLE__
	uint64_t now;

	while (!*stop && (now = sampler_now()) < deadline) {
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

void sampler_schedule_init(struct sampler_schedule *s, uint64_t start)
{
	s->next_maint = start + SAMPLER_MAINT_NS;
	s->next_progress = start + SAMPLER_PROGRESS_NS;
	s->next_flush = start + SAMPLER_FLUSH_NS;
}

int sampler_maint_due(struct sampler_schedule *s, uint64_t now)
{
	if (now < s->next_maint)
		return 0;
	s->next_maint = now + SAMPLER_MAINT_NS;
	return 1;
}

int sampler_progress_due(struct sampler_schedule *s, const struct sampler_config *cfg,
			 uint64_t now)
{
	if (!cfg->progress || now < s->next_progress)
		return 0;
	s->next_progress = now + SAMPLER_PROGRESS_NS;
	return 1;
}

int sampler_flush_due(struct sampler_schedule *s, struct trace_writer *w,
		      const struct sampler_stats *st, uint64_t now)
{
	int r;

	if (now < s->next_flush)
		return 0;
	s->next_flush = now + SAMPLER_FLUSH_NS;
	r = trace_writer_counters(w, st->counters);
	return r ? r : trace_writer_flush(w);
}

int sampler_selected(const struct sampler_config *cfg, uint32_t tid)
{
	if (!cfg->ntids)
		return 1;
	for (size_t i = 0; i < cfg->ntids; i++)
		if (cfg->tids[i] == tid)
			return 1;
	return 0;
}

static struct tname *name_of(struct loop *l, uint32_t tid)
{
	for (size_t i = 0; i < l->nnames; i++)
		if (l->names[i].tid == tid)
			return &l->names[i];
	return NULL;
}

/* Records the thread's name if it is new or changed. */
static int check_name(struct loop *l, uint32_t tid, uint64_t now)
{
	char name[NAME_MAX_BYTES];
	struct tname *n = name_of(l, tid);

	if (target_thread_name(l->t, tid, name, sizeof(name)) < 0)
		return 0;
	if (!n) {
		l->names = xgrow(l->names, &l->names_cap, l->nnames + 1, sizeof(*l->names));
		n = &l->names[l->nnames++];
		n->tid = tid;
		n->name[0] = 0;
	} else if (strcmp(n->name, name) == 0) {
		return 0;
	}
	strcpy(n->name, name);
	return trace_writer_thread_name(l->w, tid, now, name);
}

static void forget_name(struct loop *l, uint32_t tid)
{
	struct tname *n = name_of(l, tid);
	if (n)
		*n = l->names[--l->nnames];
}

static int handle_events(struct loop *l, uint64_t now)
{
	struct target_event ev;
	int r = 0;

	target_poll(l->t);
	while (r == 0 && target_next_event(l->t, &ev)) {
		/* With -t, the other threads are not part of the profile. */
		if ((ev.kind == TARGET_EVENT_THREAD_START || ev.kind == TARGET_EVENT_THREAD_END) &&
		    !sampler_selected(l->cfg, ev.tid))
			continue;
		switch (ev.kind) {
		case TARGET_EVENT_THREAD_START:
			l->st->threads++;
			r = trace_writer_thread_start(l->w, ev.tid, now);
			if (r == 0)
				r = check_name(l, ev.tid, now);
			break;
		case TARGET_EVENT_THREAD_END:
			forget_name(l, ev.tid);
			r = trace_writer_thread_end(l->w, ev.tid, now);
			break;
		case TARGET_EVENT_EXEC:
			r = images_update(l->images, l->w, now);
			if (r == 0 && sampler_selected(l->cfg, ev.tid))
				r = check_name(l, ev.tid, now);
			break;
		case TARGET_EVENT_EXIT:
			l->exited = 1;
			break;
		}
	}
	return r;
}

static int maintain(struct loop *l, uint64_t now)
{
	const uint32_t *tids;
	size_t n = target_threads(l->t, &tids);
	int r = images_update(l->images, l->w, now);

	for (size_t i = 0; i < n && r == 0; i++)
		if (sampler_selected(l->cfg, tids[i]))
			r = check_name(l, tids[i], now);
	return r;
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

int sampler_refresh_images(struct images *im, struct trace_writer *w, const uint64_t *frames,
			   size_t n, uint64_t now, uint64_t *next_refresh)
{
	for (size_t i = 0; i < n; i++) {
		if (images_covers(im, frames[i]))
			continue;
		if (now < *next_refresh)
			return 0;
		*next_refresh = now + SAMPLER_MAINT_NS;
		return images_update(im, w, now);
	}
	return 0;
}

static int sample_thread(struct loop *l, uint32_t tid)
{
	struct target_stop s;
	struct unwind_config uc = { .max_depth = l->cfg->max_depth };
	struct unwind_memory mem = { .read = cached_read, .ctx = l->cache };
	size_t n = 0;
	int stop, r;
	uint64_t time;

	images_unwind_hooks(l->images, &uc);
	r = target_stop_thread(l->t, tid, &s);
	if (r == -ESRCH) {
		l->st->counters[TRACE_COUNTER_THREADS_VANISHED]++;
		return 0;
	}
	if (r < 0) {
		l->st->counters[TRACE_COUNTER_SAMPLES_LOST]++;
		return 0;
	}
	time = sampler_now();
	memset(l->cache->valid, 0, sizeof(l->cache->valid));
	uc.arch = s.arch;
	mem.window = s.window;
	mem.window_addr = s.window_addr;
	mem.window_len = s.window_len;
	stop = unwind_stack(&uc, &s.regs, &mem, l->frames, &n);
	target_resume_thread(l->t, tid);

	l->st->counters[unwind_stop_counter(stop)]++;
	r = sampler_refresh_images(l->images, l->w, l->frames, n, time, &l->next_refresh);
	if (r == 0)
		r = trace_writer_sample(l->w, time, tid, s.state,
				stop == UNWIND_STOP_DEPTH ? TRACE_SAMPLE_TRUNCATED : 0, l->frames, n);
	if (r == 0)
		l->st->samples++;
	return r;
}

static void fill_stats(struct loop *l, uint64_t start, uint64_t now)
{
	const uint32_t *tids;
	l->st->elapsed_ns = now - start;
	l->st->live_threads = target_threads(l->t, &tids);
	l->st->images = images_count(l->images);
	l->st->lost = l->st->counters[TRACE_COUNTER_SAMPLES_LOST];
	l->st->bytes = trace_writer_bytes(l->w);
}

int sampler_run(const struct sampler_config *cfg, struct target *t, struct trace_writer *w,
		struct sampler_stats *st)
{
	struct loop l = { .cfg = cfg, .t = t, .w = w, .st = st };
	uint64_t period = 1000000000ull / (cfg->rate_hz ? cfg->rate_hz : 1);
	uint64_t start = sampler_now(), next = start, now = start;
	struct sampler_schedule sch;
	int r;

	memset(st, 0, sizeof(*st));
	l.images = images_new(t);
	l.cache = xcalloc(1, sizeof(*l.cache));
	l.cache->t = t;
	l.frames = xmalloc((cfg->max_depth ? cfg->max_depth : 1) * sizeof(*l.frames));
	r = images_update(l.images, w, 0);
	if (r == 0)
		r = handle_events(&l, start);
	sampler_schedule_init(&sch, start);

	while (r == 0 && !*cfg->stop && !l.exited) {
		const uint32_t *tids;
		size_t n, sampled = 0;

		if (cfg->duration_ns && next - start >= cfg->duration_ns)
			break;
		sleep_until(next, cfg->stop);
		if (*cfg->stop)
			break;
		now = sampler_now();
		r = handle_events(&l, now);
		if (r || l.exited)
			break;

		n = target_threads(t, &tids);
		/* tids is borrowed until the next call into t: copy it. */
		uint32_t *copy = xmalloc((n + 1) * sizeof(*copy));
		memcpy(copy, tids, n * sizeof(*copy));
		/* Ask every thread to stop first, so their stop latencies
		 * overlap; then take and release them one at a time. */
		for (size_t i = 0; i < n; i++)
			if (sampler_selected(cfg, copy[i]))
				target_interrupt_thread(t, copy[i]);
		for (size_t i = 0; i < n && r == 0; i++) {
			if (!sampler_selected(cfg, copy[i]))
				continue;
			sampled++;
			r = sample_thread(&l, copy[i]);
		}
		free(copy);
		if (r)
			break;

		now = sampler_now();
		/* A late tick still runs (at once); only deadlines a whole
		 * period in the past are given up and counted. */
		next += period;
		if (now >= next + period) {
			uint64_t missed = (now - next) / period;
			st->counters[TRACE_COUNTER_SAMPLES_LOST] += missed * (sampled ? sampled : 1);
			next += missed * period;
		}
		if (sampler_maint_due(&sch, now)) {
			r = handle_events(&l, now);
			if (r == 0)
				r = maintain(&l, now);
		}
		if (r == 0)
			r = sampler_flush_due(&sch, w, st, now);
		if (sampler_progress_due(&sch, cfg, now)) {
			fill_stats(&l, start, now);
			cfg->progress(cfg->progress_ctx, st);
		}
	}
	if (r == 0)
		r = handle_events(&l, sampler_now());
	if (r == 0)
		r = trace_writer_counters(w, st->counters);
	fill_stats(&l, start, sampler_now());
	images_free(l.images);
	free(l.names);
	free(l.frames);
	free(l.cache);
	return r;
}
