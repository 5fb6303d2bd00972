/*
 * test_rotate.c: the files of a long recording (2.6), written and read
 * back: a recording cut into files by trace_writer_switch(), each a whole
 * trace that restates what was live at its start, and a ring of the last
 * seconds written by trace_writer_snapshot(), under its window and its
 * memory cap, a failed snapshot leaving the ring as it was.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "format/trace.h"
#include "blob.h"

#define MS 1000000ull
#define T0 (5000ull * MS)

static struct trace_session session(int kind)
{
	static char *argv[] = { "./server", "--port", "80" };
	struct trace_session s = { 0 };

	s.os = TRACE_OS_LINUX;
	s.arch = TRACE_ARCH_X86_64;
	s.mode = TRACE_MODE_CPU;
	s.rate_hz = 100;
	s.pid = 700;
	s.start_realtime_ns = 1764710000000000000ull;
	s.start_monotonic_ns = T0;
	s.host = "Linux 6.1.0 x86_64";
	s.argc = 3;
	s.argv = argv;
	s.part_kind = (uint8_t)kind;
	s.recording = 0x1234;
	s.part = kind == TRACE_PART_ROTATED;
	return s;
}

static struct trace *load_fd(int fd)
{
	struct blob b = fd_bytes(fd);
	struct trace *t;
	int r = trace_load_mem(b.p, b.n, &t);

	cr_assert_eq(r, 0, "load: %s", prof_strerror(r));
	free(b.p);
	return t;
}

/* What every recording here starts with: a process, its image, a thread
 * with a name and a code range. */
static void start(struct trace_writer *w)
{
	struct trace_image img = { .id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4,
				   .ident = { 1, 2, 3, 4 }, .arch = TRACE_ARCH_X86_64, .path = "/srv/server",
				   .start = 0x400000, .size = 0x10000 };
	struct trace_code c = { .time = T0, .start = 0x7f0000, .size = 0x100, .name = "jitted" };

	cr_assert_eq(trace_writer_process(w, 1, 700, 0, T0), 0);
	cr_assert_eq(trace_writer_image(w, 1, &img), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 700, T0), 0);
	cr_assert_eq(trace_writer_thread_name(w, 700, T0, "main"), 0);
	cr_assert_eq(trace_writer_code(w, 1, &c), 0);
}

/* A sample every 10 ms from..to (ms since T0) on tid 700, two stacks
 * taking turns; a flush every 100 ms, as the loop does. */
static uint64_t samples(struct trace_writer *w, uint64_t from, uint64_t to)
{
	uint64_t a[2][3] = { { 0x400100, 0x400200, 0x400300 }, { 0x7f0010, 0x400200, 0x400300 } }, n = 0;

	for (uint64_t ms = from; ms < to; ms += 10, n++) {
		cr_assert_eq(trace_writer_sample(w, T0 + ms * MS, 700, TRACE_STATE_RUNNING, 0, a[(ms / 10) % 2], 3), 0);
		if (ms % 100 == 90)
			cr_assert_eq(trace_writer_flush(w), 0);
	}
	return n;
}

static const struct trace_thread *thread(const struct trace *t, uint32_t tid)
{
	const struct trace_thread *th = trace_thread_find(t, tid);

	cr_assert_not_null(th, "thread %u", tid);
	return th;
}

Test(rotate, each_file_whole_and_restates_what_is_live)
{
	struct trace_session s = session(TRACE_PART_ROTATED);
	struct trace_writer *w;
	uint64_t counters[TRACE_COUNTER__COUNT] = { 0 };
	int fd1 = new_fd(), fd2 = new_fd();
	struct trace *a, *b;

	cr_assert_eq(trace_writer_new(fd1, &s, &w), 0);
	start(w);
	cr_assert_eq(samples(w, 0, 1000), 100);
	counters[TRACE_COUNTER_SAMPLES_LOST] = 3;
	counters[TRACE_COUNTER_MAX_SAMPLE_RATE] = 100000;
	cr_assert_eq(trace_writer_counters(w, counters), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 701, T0 + 500 * MS), 0);
	cr_assert_eq(trace_writer_switch(w, fd2, T0 + 1000 * MS), 0);
	cr_assert_eq(trace_writer_fd(w), fd2);
	cr_assert_eq(samples(w, 1000, 1500), 50);
	counters[TRACE_COUNTER_SAMPLES_LOST] = 5;
	cr_assert_eq(trace_writer_counters(w, counters), 0);
	cr_assert_eq(trace_writer_thread_name(w, 700, T0 + 1200 * MS, "busy"), 0);
	cr_assert_eq(trace_writer_finish(w, &(struct trace_end){ .time = T0 + 1500 * MS }), 0);
	cr_assert_eq(trace_writer_samples(w), 150);
	trace_writer_free(w);

	a = load_fd(fd1);
	b = load_fd(fd2);
	/* each finished, with its own samples and stack table */
	cr_assert(a->status.complete && b->status.complete);
	cr_assert_eq(a->nsamples, 100);
	cr_assert_eq(b->nsamples, 50);
	cr_assert_eq(b->nnodes, a->nnodes, "the second file's stack table is its own");
	cr_assert_eq(trace_end_ns(a), T0 + 1000 * MS, "the first ends at the switch");
	cr_assert_eq(a->session.part, 1);
	cr_assert_eq(b->session.part, 2);
	cr_assert_eq(b->session.part_kind, TRACE_PART_ROTATED);
	cr_assert_eq(b->session.recording, 0x1234);
	cr_assert_eq(b->session.start_monotonic_ns, T0 + 1000 * MS);
	cr_assert_eq(b->session.start_realtime_ns, s.start_realtime_ns + 1000 * MS);
	/* the second restates the process, image, threads and code range,
	 * with their ids and times */
	cr_assert_eq(b->nprocesses, 1);
	cr_assert_eq(b->processes[0].pid, 700);
	cr_assert_eq(b->processes[0].time_start, T0);
	cr_assert_eq(b->nimages, 1);
	cr_assert_str_eq(b->images[0].path, "/srv/server");
	cr_assert_eq(b->images[0].id, 1);
	cr_assert_eq(b->nthreads, 2);
	cr_assert_eq(thread(b, 700)->time_start, T0);
	cr_assert_str_eq(trace_thread_name_at(thread(b, 700), T0 + 1100 * MS), "main");
	cr_assert_str_eq(trace_thread_name_at(thread(b, 700), T0 + 1300 * MS), "busy");
	cr_assert_eq(thread(b, 701)->time_start, T0 + 500 * MS);
	cr_assert_eq(b->ncode, 1);
	cr_assert_str_eq(b->code[0].name, "jitted");
	/* each counts its own, and a value is a value */
	cr_assert_eq(a->counters[TRACE_COUNTER_SAMPLES_LOST], 3);
	cr_assert_eq(b->counters[TRACE_COUNTER_SAMPLES_LOST], 2);
	cr_assert_eq(b->counters[TRACE_COUNTER_MAX_SAMPLE_RATE], 100000);
	trace_free(a);
	trace_free(b);
	close(fd1);
	close(fd2);
}

Test(rotate, what_ended_long_before_is_not_restated)
{
	struct trace_session s = session(TRACE_PART_ROTATED);
	struct trace_writer *w;
	int fd1 = new_fd(), fd2 = new_fd();
	struct trace *b;

	cr_assert_eq(trace_writer_new(fd1, &s, &w), 0);
	start(w);
	cr_assert_eq(trace_writer_thread_start(w, 1, 710, T0), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 711, T0), 0);
	cr_assert_eq(trace_writer_thread_end(w, 710, T0 + 100 * MS), 0);
	samples(w, 0, 5000);
	cr_assert_eq(trace_writer_thread_end(w, 711, T0 + 4500 * MS), 0);
	cr_assert_eq(trace_writer_switch(w, fd2, T0 + 5000 * MS), 0);
	samples(w, 5000, 5100);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	b = load_fd(fd2);
	cr_assert_null(trace_thread_find(b, 710), "ended 4.9 s before the file");
	cr_assert_eq(thread(b, 711)->time_end, T0 + 4500 * MS, "ended 0.5 s before: restated, with its end");
	trace_free(b);
	close(fd1);
	close(fd2);
}

Test(ring, snapshot_holds_the_window_and_the_recording_goes_on)
{
	struct trace_session s = session(TRACE_PART_WHOLE);
	struct trace_writer *w;
	struct trace_ring_stats rs;
	uint64_t counters[TRACE_COUNTER__COUNT] = { 0 };
	int fd1 = new_fd(), fd2 = new_fd();
	struct trace *a, *b;

	cr_assert_eq(trace_writer_new_ring(&s, 2000 * MS, 64 << 20, &w), 0);
	start(w);
	cr_assert_eq(trace_writer_mark(w, T0 + 1000 * MS, TRACE_MARK_CONTROL, "early"), 0);
	samples(w, 0, 3500);
	cr_assert_eq(trace_writer_mark(w, T0 + 3000 * MS, TRACE_MARK_CONTROL, "late"), 0);
	/* as the loop does, the counters before the chunk's flush */
	counters[TRACE_COUNTER_SAMPLES_LOST] = 7;
	cr_assert_eq(trace_writer_counters(w, counters), 0);
	samples(w, 3500, 4000);
	cr_assert_eq(trace_writer_fd(w), -1, "a ring writes nothing until a snapshot");
	cr_assert_eq(trace_writer_snapshot(w, fd1, T0 + 4000 * MS, NULL), 0);
	samples(w, 4000, 6000);
	cr_assert_eq(trace_writer_snapshot(w, fd2, T0 + 6000 * MS, &(struct trace_end){ .time = T0 + 6000 * MS }),
		     0);
	trace_writer_ring_stats(w, &rs);
	cr_assert_eq(rs.snapshots, 2);
	cr_assert_eq(rs.cut, 0);
	trace_writer_free(w);

	a = load_fd(fd1);
	cr_assert(a->status.complete);
	/* the last 2 s, from the start of the 100 ms chunk that covers the
	 * window's start */
	cr_assert_eq(a->nsamples, 200, "%zu samples", a->nsamples);
	cr_assert_eq(a->samples[0].time, T0 + 2000 * MS);
	cr_assert_eq(a->session.start_monotonic_ns, T0 + 2000 * MS);
	cr_assert_eq(a->session.part_kind, TRACE_PART_SNAPSHOT);
	cr_assert_eq(a->session.part, 1);
	cr_assert_eq(a->session.window_ns, 2000 * MS);
	cr_assert_eq(a->nimages, 1);
	cr_assert_str_eq(trace_thread_name_at(thread(a, 700), T0 + 3000 * MS), "main");
	cr_assert_eq(a->ncode, 1);
	cr_assert_eq(a->nmarks, 1, "only the marks in the window");
	cr_assert_str_eq(a->marks[0].name, "late");
	cr_assert_eq(a->counters[TRACE_COUNTER_SAMPLES_LOST], 7);
	cr_assert_eq(a->has_end, 0);

	b = load_fd(fd2);
	cr_assert(b->status.complete);
	cr_assert_eq(b->nsamples, 200);
	cr_assert_eq(b->samples[0].time, T0 + 4000 * MS);
	cr_assert_eq(b->session.part, 2);
	cr_assert_eq(b->nmarks, 0);
	cr_assert_eq(b->counters[TRACE_COUNTER_SAMPLES_LOST], 0, "none lost in its window");
	cr_assert(b->has_end);
	trace_free(a);
	trace_free(b);
	close(fd1);
	close(fd2);
}

Test(ring, cap_cuts_the_window_and_says_so)
{
	struct trace_session s = session(TRACE_PART_WHOLE);
	struct trace_writer *w;
	struct trace_ring_stats rs;
	uint64_t a[64];
	int fd = new_fd();
	struct trace *t;

	/* stacks of 64 distinct frames each 10 ms: chunks of about 3 KiB a
	 * 100 ms, under a 1 MiB cap that the stack table soon fills */
	cr_assert_eq(trace_writer_new_ring(&s, 3600000 * MS, 1 << 20, &w), 0);
	start(w);
	for (uint64_t ms = 0, k = 1; ms < 60000; ms += 10) {
		for (int i = 0; i < 64; i++)
			a[i] = 0x400000 + (k++ * 16);
		cr_assert_eq(trace_writer_sample(w, T0 + ms * MS, 700, TRACE_STATE_RUNNING, 0, a, 64), 0);
		if (ms % 100 == 90)
			cr_assert_eq(trace_writer_flush(w), 0);
	}
	trace_writer_ring_stats(w, &rs);
	cr_assert_leq(rs.bytes, 1 << 20, "%llu bytes held", (unsigned long long)rs.bytes);
	cr_assert_gt(rs.cut, 0, "the cap let samples of the hour's window go");
	cr_assert_eq(trace_writer_snapshot(w, fd, T0 + 60000 * MS, NULL), 0);
	t = load_fd(fd);
	cr_assert(t->status.complete);
	cr_assert_lt(t->nsamples, 6000);
	cr_assert_eq(t->nsamples, rs.samples);
	trace_free(t);
	trace_writer_free(w);
	close(fd);
}

Test(ring, failed_snapshot_leaves_the_ring_whole)
{
	struct trace_session s = session(TRACE_PART_WHOLE);
	struct trace_writer *w;
	int full = open("/dev/full", O_WRONLY), fd = new_fd();
	struct trace *t;

	cr_assert_geq(full, 0);
	cr_assert_eq(trace_writer_new_ring(&s, 1000 * MS, 64 << 20, &w), 0);
	start(w);
	samples(w, 0, 2000);
	cr_assert_eq(trace_writer_snapshot(w, full, T0 + 2000 * MS, NULL), -ENOSPC);
	samples(w, 2000, 2500);
	cr_assert_eq(trace_writer_snapshot(w, fd, T0 + 2500 * MS, NULL), 0);
	t = load_fd(fd);
	cr_assert(t->status.complete);
	cr_assert_eq(t->nsamples, 100);
	cr_assert_eq(t->session.part, 2, "the failed one had its number");
	trace_free(t);
	trace_writer_free(w);
	close(full);
	close(fd);
}

Test(ring, misuse_refused)
{
	struct trace_session s = session(TRACE_PART_WHOLE);
	struct trace_writer *w;
	int fd = new_fd();

	cr_assert_eq(trace_writer_new_ring(&s, 0, 1 << 20, &w), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_new_ring(&s, MS, 1 << 20, &w), 0);
	cr_assert_eq(trace_writer_switch(w, fd, T0), TRACE_E_USAGE, "a ring is not cut into files");
	cr_assert_eq(trace_writer_finish(w, NULL), TRACE_E_USAGE, "a ring ends with a snapshot");
	trace_writer_free(w);
	cr_assert_eq(trace_writer_new(fd, &s, &w), 0);
	cr_assert_eq(trace_writer_snapshot(w, fd, T0, NULL), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_switch(w, fd, T0), TRACE_E_USAGE, "a whole recording keeps nothing to restate");
	trace_writer_free(w);
	close(fd);
}
