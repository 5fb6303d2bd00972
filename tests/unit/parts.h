/*
 * parts.h: a synthetic recording written whole, or cut into the files
 * prof-record writes with --switch-output (rotated parts) and --ring
 * (snapshots), through the real trace writer. test_merge.c and the
 * tool tests/tools/parts_trace.c share it. Include it once per program.
 *
 * The recording is one process (pid 4242) that runs 3 s from
 * PARTS_START: ticks every millisecond, every 97th lost; a main thread
 * renamed at 1.5 s; a worker from 0.5 s to 1.95 s; an image loaded at
 * 0.8 s and unloaded at 2.2 s; a named code range from 0.1 s; a mark at
 * 1.2 s; an exit at the end. A file of [from, to) begins by re-stating
 * what was live at from, with its own ids and times, as the recorder
 * does (and the worker once more, with its end, in the file right after
 * it ended), then holds what happened in it: its samples and counters
 * are its own. Everything is a function of its arguments, so a file
 * written twice is the same bytes.
 */
#ifndef TESTS_UNIT_PARTS_H
#define TESTS_UNIT_PARTS_H

#include <stdint.h>
#include <string.h>

#include "format/trace.h"

#define PARTS_START 1000000000ull          /* CLOCK_MONOTONIC at the start */
#define PARTS_REALTIME 1767225600000000000ull
#define PARTS_MS 1000000ull
#define PARTS_TICKS 3000                  /* ticks, a millisecond apart */
#define PARTS_END (PARTS_START + PARTS_TICKS * PARTS_MS)
#define PARTS_PID 4242u
#define PARTS_WORKER 4243u
#define PARTS_MAX_SAMPLE_RATE 25000u

/* Times of the recording, in ms from its start. */
enum {
	PARTS_CODE_MS = 100, PARTS_WORKER_MS = 500, PARTS_DLOPEN_MS = 800, PARTS_MARK_MS = 1200,
	PARTS_RENAME_MS = 1500, PARTS_WORKER_END_MS = 1950, PARTS_DLCLOSE_MS = 2200,
};

static uint64_t parts_at(uint64_t ms)
{
	return PARTS_START + ms * PARTS_MS;
}

/* Whether tick k was lost: it has no sample, and counts as lost. */
static int parts_lost(uint64_t k)
{
	return k % 97 == 96;
}

/* The stack of tick k, leaf first, into a (4 entries); returns its
 * depth, and the thread's tid in *tid. */
static size_t parts_stack(uint64_t k, uint32_t *tid, uint64_t *a)
{
	/* k is also the tick's millisecond */
	if (k >= PARTS_WORKER_MS && k < PARTS_WORKER_END_MS && k % 3 == 2) {
		*tid = PARTS_WORKER;
		a[0] = k % 2 ? 0x401300 : 0x7f0000001200;
		a[1] = 0x401020;
		a[2] = 0x401010;
		return 3;
	}
	*tid = PARTS_PID;
	switch (k % 4) {
	case 0: a[0] = 0x401100; break;
	case 1: a[0] = 0x7f0000001100; break;
	case 2: a[0] = k >= PARTS_DLOPEN_MS && k < PARTS_DLCLOSE_MS ? 0x7f1000000100 : 0x401200; break;
	default: a[0] = k >= PARTS_CODE_MS ? 0x9010 : 0x401200; break;
	}
	a[1] = 0x401050;
	a[2] = 0x401010;
	return 3;
}

static char *parts_argv[] = { "app", "--work" };

static const struct trace_image parts_images[] = {
	{ .id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4, .ident = { 1, 2, 3, 4 },
	  .arch = TRACE_ARCH_X86_64, .path = "/nonexistent/app", .start = 0x400000, .size = 0x10000,
	  .bias = 0x400000 },
	{ .id = 2, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4, .ident = { 5, 6, 7, 8 },
	  .arch = TRACE_ARCH_X86_64, .path = "/nonexistent/libx.so", .start = 0x7f0000000000,
	  .size = 0x10000, .bias = 0x7f0000000000 },
	{ .id = 3, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4, .ident = { 9, 10, 11, 12 },
	  .arch = TRACE_ARCH_X86_64, .path = "/nonexistent/libdl.so", .start = 0x7f1000000000,
	  .size = 0x1000, .bias = 0x7f1000000000 },
};

/* What a file of the recording is: its window [from, to) and its part. */
struct parts_file {
	uint64_t from, to;
	uint8_t kind;            /* enum trace_part_kind */
	uint64_t recording;      /* 0 for a whole one */
	uint32_t part;
	uint64_t window;         /* a snapshot's window, ns */
};

/* The records of [from, to) of the recording, after those of what was
 * live at from, to w. */
static int parts_records(struct trace_writer *w, const struct parts_file *f)
{
	struct trace_image dl = parts_images[2];
	struct trace_code code = { .time = parts_at(PARTS_CODE_MS), .start = 0x9000, .size = 0x100,
				   .source = TRACE_CODE_PERF_MAP, .name = "JS:*hot" };
	uint64_t counters[TRACE_COUNTER__COUNT] = { 0 }, a[4];
	uint64_t from = f->from, to = f->to;
	/* whether what happened at ms is re-stated, having happened before
	 * the file */
#define PARTS_LIVE(ms) (parts_at(ms) < from)
	int r = 0;

	dl.time_loaded = parts_at(PARTS_DLOPEN_MS);
	r |= trace_writer_process(w, 1, PARTS_PID, 0, PARTS_START);
	r |= trace_writer_process_exec(w, 1, PARTS_START, 2, parts_argv);
	for (int i = 0; i < 2; i++)
		r |= trace_writer_image(w, 1, &parts_images[i]);
	r |= trace_writer_thread_start(w, 1, PARTS_PID, PARTS_START);
	if (PARTS_LIVE(PARTS_RENAME_MS))
		r |= trace_writer_thread_name(w, PARTS_PID, parts_at(PARTS_RENAME_MS), "app-main");
	else
		r |= trace_writer_thread_name(w, PARTS_PID, PARTS_START, "app");
	if (PARTS_LIVE(PARTS_DLOPEN_MS) && !PARTS_LIVE(PARTS_DLCLOSE_MS))
		r |= trace_writer_image(w, 1, &dl);
	if (PARTS_LIVE(PARTS_CODE_MS))
		r |= trace_writer_code(w, 1, &code);
	/* the worker, live, or ended in the 100 ms before from */
	if (PARTS_LIVE(PARTS_WORKER_MS) && parts_at(PARTS_WORKER_END_MS) + 100 * PARTS_MS > from) {
		r |= trace_writer_thread_start(w, 1, PARTS_WORKER, parts_at(PARTS_WORKER_MS));
		r |= trace_writer_thread_name(w, PARTS_WORKER, parts_at(PARTS_WORKER_MS), "worker");
		if (PARTS_LIVE(PARTS_WORKER_END_MS))
			r |= trace_writer_thread_end(w, PARTS_WORKER, parts_at(PARTS_WORKER_END_MS));
	}
	for (uint64_t k = 0; k < PARTS_TICKS; k++) {
		uint64_t time = parts_at(k);
		uint32_t tid;
		size_t n;

		if (time < from || time >= to)
			continue;
		/* what happened at this millisecond, before its tick */
		if (k == PARTS_CODE_MS)
			r |= trace_writer_code(w, 1, &code);
		if (k == PARTS_WORKER_MS) {
			r |= trace_writer_thread_start(w, 1, PARTS_WORKER, time);
			r |= trace_writer_thread_name(w, PARTS_WORKER, time, "worker");
		}
		if (k == PARTS_DLOPEN_MS)
			r |= trace_writer_image(w, 1, &dl);
		if (k == PARTS_MARK_MS)
			r |= trace_writer_mark(w, time, TRACE_MARK_APP, "phase");
		if (k == PARTS_RENAME_MS)
			r |= trace_writer_thread_name(w, PARTS_PID, time, "app-main");
		if (k == PARTS_WORKER_END_MS)
			r |= trace_writer_thread_end(w, PARTS_WORKER, time);
		if (k == PARTS_DLCLOSE_MS)
			r |= trace_writer_image_unload(w, 3, time);
		if (parts_lost(k)) {
			counters[TRACE_COUNTER_SAMPLES_LOST]++;
			continue;
		}
		n = parts_stack(k, &tid, a);
		counters[TRACE_COUNTER_STOP_END]++;
		r |= trace_writer_sample(w, time, tid, TRACE_STATE_RUNNING, 0, a, n);
	}
	counters[TRACE_COUNTER_MAX_SAMPLE_RATE] = PARTS_MAX_SAMPLE_RATE;
	r |= trace_writer_counters(w, counters);
	if (to >= PARTS_END)
		r |= trace_writer_process_end(w, 1, PARTS_END, TRACE_END_EXITED, 0);
#undef PARTS_LIVE
	return r;
}

/* Writes file f of the recording to fd: 0, or a negative error. */
static int parts_write(int fd, const struct parts_file *f)
{
	struct trace_session s = {
		.os = TRACE_OS_LINUX, .arch = TRACE_ARCH_X86_64, .mode = TRACE_MODE_CPU, .rate_hz = 1000,
		.pid = PARTS_PID, .start_realtime_ns = PARTS_REALTIME + (f->from - PARTS_START),
		.start_monotonic_ns = f->from, .host = "Linux 6.1.0 x86_64", .argc = 2, .argv = parts_argv,
		.sampler = TRACE_SAMPLER_PERF, .part_kind = f->kind, .recording = f->recording,
		.part = f->part, .window_ns = f->window,
	};
	/* the last file has the recording's real end; the others end where
	 * the next begins */
	struct trace_end end = { .time = f->to, .has_exit = f->to >= PARTS_END };
	struct trace_writer *w;
	int r;

	if ((r = trace_writer_new(fd, &s, &w)) < 0)
		return r;
	if ((r = parts_records(w, f)) == 0)
		r = trace_writer_finish(w, &end);
	trace_writer_free(w);
	return r;
}

/* File i (from 0) of the recording id cut into n rotated parts of equal
 * length. */
static struct parts_file parts_rotated(uint64_t id, unsigned i, unsigned n)
{
	return (struct parts_file){
		.from = PARTS_START + i * (PARTS_END - PARTS_START) / n,
		.to = PARTS_START + (i + 1) * (PARTS_END - PARTS_START) / n,
		.kind = TRACE_PART_ROTATED, .recording = id, .part = i + 1,
	};
}

/* Snapshot number part of the recording id, of the window before at_ms
 * (ms from the start), window_ms long (cut at the start). */
static struct parts_file parts_snapshot(uint64_t id, uint32_t part, uint64_t at_ms, uint64_t window_ms)
{
	uint64_t to = parts_at(at_ms);

	return (struct parts_file){
		.from = at_ms > window_ms ? to - window_ms * PARTS_MS : PARTS_START, .to = to,
		.kind = TRACE_PART_SNAPSHOT, .recording = id, .part = part, .window = window_ms * PARTS_MS,
	};
}

/* The whole recording, in one file. */
static struct parts_file parts_whole(void)
{
	return (struct parts_file){ .from = PARTS_START, .to = PARTS_END, .kind = TRACE_PART_WHOLE };
}

#endif
