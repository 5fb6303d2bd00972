/*
 * test_merge.c: several trace files as one (format/trace_merge.c), on the
 * synthetic recording of parts.h written by the real writer: whole, cut
 * into rotated parts, as overlapping snapshots, and twice as two
 * recordings. The merge of the parts must be the whole, sample for sample
 * and stack for stack, with no thread, image or process twice.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/buf.h"
#include "format/trace.h"
#include "parts.h"

/* Writes f to a new temporary file and returns its path (caller frees
 * and unlinks). */
static char *write_file(const struct parts_file *f)
{
	char *path = strdup("/tmp/test_merge.XXXXXX");
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(parts_write(fd, f), 0);
	close(fd);
	return path;
}

/* Loads the files fs[0..n) as one with trace_load_many(). */
static struct trace *load_files(const struct parts_file *fs, size_t n, char **paths)
{
	struct trace *t = NULL;
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		paths[i] = write_file(&fs[i]);
	cr_assert_eq(trace_load_many((const char *const *)paths, n, NULL, &t, &bad), 0);
	for (size_t i = 0; i < n; i++)
		unlink(paths[i]);
	return t;
}

static void free_paths(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
}

static struct trace *load_whole(void)
{
	struct parts_file f = parts_whole();
	char *path;
	struct trace *t = load_files(&f, 1, &path);

	free(path);
	cr_assert_eq(t->nfiles, 0, "one file loads as it is");
	return t;
}

/* Appends the samples of t, each its time, tid, thread's start and
 * addresses, a line each, to b: what a merge must keep, node ids aside. */
static void dump_samples(struct buf *b, const struct trace *t)
{
	uint64_t a[16];

	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		size_t n = trace_stack(t, s->stack, a, 16);

		buf_addf(b, "%llu %u %llu:", (unsigned long long)s->time, s->tid,
			 (unsigned long long)t->threads[s->thread].time_start);
		for (size_t k = 0; k < n && k < 16; k++)
			buf_addf(b, " %llx", (unsigned long long)a[k]);
		buf_addch(b, '\n');
	}
}

/* Appends the processes, threads (names too), images, code ranges,
 * marks, counters and end of t to b. */
static void dump_tables(struct buf *b, const struct trace *t)
{
	for (size_t i = 0; i < t->nprocesses; i++) {
		const struct trace_process *p = &t->processes[i];

		buf_addf(b, "process %u %u %u %llu %llu %d %d execs %zu\n", p->id, p->pid, p->parent,
			 (unsigned long long)p->time_start, (unsigned long long)p->time_end, p->has_exit,
			 p->exit_status, p->nexecs);
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		buf_addf(b, "thread %u %llu %llu %u:", th->tid, (unsigned long long)th->time_start,
			 (unsigned long long)th->time_end, th->process);
		for (size_t k = 0; k < th->nnames; k++)
			buf_addf(b, " %s@%llu", th->names[k].name, (unsigned long long)th->names[k].time);
		buf_addch(b, '\n');
	}
	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];

		buf_addf(b, "image %u %s %llx %llx %llu %llu %u\n", img->id, img->path,
			 (unsigned long long)img->start, (unsigned long long)img->size,
			 (unsigned long long)img->time_loaded, (unsigned long long)img->time_unloaded, img->process);
	}
	for (size_t i = 0; i < t->ncode; i++)
		buf_addf(b, "code %s %llx %llu\n", t->code[i].name, (unsigned long long)t->code[i].start,
			 (unsigned long long)t->code[i].time);
	for (size_t i = 0; i < t->nmarks; i++)
		buf_addf(b, "mark %s %llu\n", t->marks[i].name, (unsigned long long)t->marks[i].time);
	for (int c = 0; c < TRACE_COUNTER__COUNT; c++)
		buf_addf(b, "counter %s %llu\n", trace_counter_name(c), (unsigned long long)t->counters[c]);
	buf_addf(b, "start %llu end %d %llu %d %d\n", (unsigned long long)t->session.start_monotonic_ns,
		 t->has_end, (unsigned long long)t->end.time, t->end.has_exit, t->end.exit_status);
}

/* Whether a and b hold the same samples and tables, by cr_assert. */
static void assert_same(const struct trace *a, const struct trace *b)
{
	struct buf x, y;

	buf_init(&x);
	buf_init(&y);
	dump_samples(&x, a);
	dump_samples(&y, b);
	cr_assert_eq(a->nsamples, b->nsamples);
	cr_assert_str_eq((char *)x.data, (char *)y.data);
	buf_reset(&x);
	buf_reset(&y);
	dump_tables(&x, a);
	dump_tables(&y, b);
	cr_assert_str_eq((char *)x.data, (char *)y.data);
	buf_release(&x);
	buf_release(&y);
}

Test(merge, rotated_parts_are_the_whole)
{
	struct parts_file fs[3] = { parts_rotated(7, 2, 3), parts_rotated(7, 0, 3), parts_rotated(7, 1, 3) };
	char *paths[3];
	struct trace *whole = load_whole(), *t = load_files(fs, 3, paths);

	/* given out of order, laid in order of their start */
	cr_assert_eq(t->nfiles, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(t->files[i].session.part, i + 1);
		cr_assert_eq(t->files[i].start, fs[(i + 1) % 3].from);
		cr_assert_eq(t->files[i].end, fs[(i + 1) % 3].to);
		cr_assert(t->files[i].status.complete);
		cr_assert_eq(t->files[i].samples_overlap, 0);
	}
	cr_assert_eq(t->files[0].samples + t->files[1].samples + t->files[2].samples, whole->nsamples);
	/* one process, two threads, three images, as recorded once */
	cr_assert_eq(t->nprocesses, 1);
	cr_assert_eq(t->nthreads, 2);
	cr_assert_eq(t->nimages, 3);
	cr_assert_eq(t->counters[TRACE_COUNTER_MAX_SAMPLE_RATE], PARTS_MAX_SAMPLE_RATE);
	cr_assert_gt(t->counters[TRACE_COUNTER_SAMPLES_LOST], 0);
	assert_same(whole, t);
	cr_assert(t->status.complete);
	trace_free(t);
	trace_free(whole);
	free_paths(paths, 3);
}

Test(merge, stacks_shared_across_files)
{
	struct parts_file fs[3] = { parts_rotated(7, 0, 3), parts_rotated(7, 1, 3), parts_rotated(7, 2, 3) };
	char *paths[3];
	struct trace *whole = load_whole(), *t = load_files(fs, 3, paths);

	/* each file's tree has the same stacks: kept once */
	cr_assert_eq(t->nnodes, whole->nnodes);
	trace_free(t);
	trace_free(whole);
	free_paths(paths, 3);
}

Test(merge, missing_middle_part_is_a_gap)
{
	struct parts_file fs[2] = { parts_rotated(7, 0, 3), parts_rotated(7, 2, 3) };
	char *paths[2];
	struct trace *t = load_files(fs, 2, paths);
	size_t in_gap = 0;

	cr_assert_eq(t->nfiles, 2);
	cr_assert_eq(t->files[0].session.part, 1);
	cr_assert_eq(t->files[1].session.part, 3);
	cr_assert_eq(t->files[1].start - t->files[0].end, fs[1].from - fs[0].to);
	cr_assert_gt(t->files[1].start, t->files[0].end);
	for (size_t i = 0; i < t->nsamples; i++)
		in_gap += t->samples[i].time >= fs[0].to && t->samples[i].time < fs[1].from;
	cr_assert_eq(in_gap, 0);
	cr_assert_eq(t->nsamples, t->files[0].samples + t->files[1].samples);
	cr_assert_eq(t->nthreads, 2, "the worker, ended before part 3, is re-stated there: once");
	trace_free(t);
	free_paths(paths, 2);
}

Test(merge, overlapping_snapshots_count_samples_once)
{
	/* a 2 s window every second: each overlaps the one before by 1 s */
	struct parts_file fs[3] = { parts_snapshot(9, 1, 1000, 2000), parts_snapshot(9, 2, 2000, 2000),
				    parts_snapshot(9, 3, 3000, 2000) };
	char *paths[3];
	struct trace *whole = load_whole(), *t = load_files(fs, 3, paths);

	cr_assert_gt(t->files[1].samples_overlap, 0);
	cr_assert_gt(t->files[2].samples_overlap, 0);
	cr_assert_eq(t->files[0].samples_overlap, 0);
	for (size_t i = 1; i < t->nsamples; i++)
		cr_assert_gt(t->samples[i].time, t->samples[i - 1].time, "no sample twice");
	/* the windows cover the recording: they are the whole's samples */
	cr_assert_eq(t->nsamples, whole->nsamples);
	{
		struct buf x, y;

		buf_init(&x);
		buf_init(&y);
		dump_samples(&x, whole);
		dump_samples(&y, t);
		cr_assert_str_eq((char *)x.data, (char *)y.data);
		buf_release(&x);
		buf_release(&y);
	}
	trace_free(t);
	trace_free(whole);
	free_paths(paths, 3);
}

Test(merge, rotated_parts_that_meet_overlap_nothing)
{
	/* rotated parts are never cut for overlap, even if their samples'
	 * times cross, as wall mode's may */
	struct parts_file fs[2] = { parts_rotated(7, 0, 2), parts_rotated(7, 1, 2) };
	char *paths[2];
	struct trace *t = load_files(fs, 2, paths);

	cr_assert_eq(t->files[0].samples_overlap + t->files[1].samples_overlap, 0);
	trace_free(t);
	free_paths(paths, 2);
}

/* Moves every time of t d ns later, as if recorded then. */
static void shift_times(struct trace *t, uint64_t d)
{
	t->session.start_monotonic_ns += d;
	t->session.start_realtime_ns += d;
	for (size_t i = 0; i < t->nprocesses; i++) {
		t->processes[i].time_start += d;
		t->processes[i].time_end += t->processes[i].time_end ? d : 0;
		for (size_t k = 0; k < t->processes[i].nexecs; k++)
			t->processes[i].execs[k].time += d;
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].time_start += d;
		t->threads[i].time_end += t->threads[i].time_end ? d : 0;
		for (size_t k = 0; k < t->threads[i].nnames; k++)
			t->threads[i].names[k].time += d;
	}
	for (size_t i = 0; i < t->nimages; i++) {
		t->images[i].time_loaded += t->images[i].time_loaded ? d : 0;
		t->images[i].time_unloaded += t->images[i].time_unloaded ? d : 0;
	}
	for (size_t i = 0; i < t->ncode; i++)
		t->code[i].time += d;
	for (size_t i = 0; i < t->nmarks; i++)
		t->marks[i].time += d;
	for (size_t i = 0; i < t->nsamples; i++)
		t->samples[i].time += d;
	t->end.time += d;
}

Test(merge, different_recordings_stay_apart)
{
	/* the same program recorded twice, the second 10 s later: its
	 * process has the same trace id and pid, but another first-seen
	 * time, and its images and threads the same ids */
	struct parts_file f = parts_whole();
	char *path = write_file(&f);
	struct trace *parts[2], *t = NULL, *one = NULL;
	const char *names[2] = { "later", "earlier" };
	size_t bad = 9;

	cr_assert_eq(trace_load(path, &parts[0]), 0);
	cr_assert_eq(trace_load(path, &parts[1]), 0);
	cr_assert_eq(trace_load(path, &one), 0);
	shift_times(parts[0], 10 * 1000000000ull);
	cr_assert_eq(trace_merge(parts, names, 2, &t, &bad), 0);
	cr_assert_eq(bad, 9);
	cr_assert_eq(t->nfiles, 2);
	cr_assert_str_eq(t->files[0].path, "earlier", "in order of their start");
	cr_assert_eq(t->nprocesses, 2);
	cr_assert_eq(t->processes[0].pid, t->processes[1].pid);
	cr_assert_neq(t->processes[0].id, t->processes[1].id, "ids stay unique");
	cr_assert_eq(t->nthreads, 2 * one->nthreads);
	cr_assert_eq(t->nimages, 2 * one->nimages);
	for (size_t i = 0; i < t->nimages; i++)
		for (size_t k = 0; k < i; k++)
			cr_assert_neq(t->images[i].id, t->images[k].id, "ids stay unique");
	cr_assert_eq(t->nsamples, 2 * one->nsamples);
	for (size_t i = 0; i < t->nsamples; i++)
		cr_assert_eq(trace_sample_process(t, &t->samples[i]), i < one->nsamples ? 0 : 1);
	cr_assert_eq(t->counters[TRACE_COUNTER_SAMPLES_LOST], 2 * one->counters[TRACE_COUNTER_SAMPLES_LOST],
		     "counts are summed");
	cr_assert_eq(t->counters[TRACE_COUNTER_MAX_SAMPLE_RATE], PARTS_MAX_SAMPLE_RATE, "a value is not");
	unlink(path);
	free(path);
	trace_free(one);
	trace_free(t);
}

Test(merge, one_file_merges_to_itself)
{
	struct parts_file f = parts_rotated(7, 1, 3);
	char *path = write_file(&f);
	struct trace *a = NULL, *b = NULL, *t = NULL;
	const char *names[1] = { path };

	cr_assert_eq(trace_load(path, &a), 0);
	cr_assert_eq(trace_load(path, &b), 0);
	cr_assert_eq(trace_merge(&b, names, 1, &t, NULL), 0);
	assert_same(a, t);
	cr_assert_eq(t->nnodes, a->nnodes);
	cr_assert_eq(t->nfiles, 1);
	cr_assert_eq(t->files[0].samples, a->nsamples);
	cr_assert_eq(t->status.chunks, a->status.chunks);
	cr_assert_eq(t->status.complete, a->status.complete);
	unlink(path);
	free(path);
	trace_free(a);
	trace_free(t);
}

Test(merge, other_machines_and_one_file_twice_refused)
{
	struct parts_file f = parts_rotated(7, 0, 2);
	char *path = write_file(&f);
	struct trace *parts[2] = { NULL, NULL }, *t = NULL;
	const char *names[2] = { "a", "b" };
	size_t bad = 0;

	cr_assert_eq(trace_load(path, &parts[0]), 0);
	cr_assert_eq(trace_load(path, &parts[1]), 0);
	cr_assert_eq(trace_merge(parts, names, 2, &t, &bad), TRACE_E_TWICE);
	cr_assert_eq(bad, 1);
	cr_assert_null(t);
	cr_assert(strstr(prof_strerror(TRACE_E_TWICE), "'a' and 'b'"));

	cr_assert_eq(trace_load(path, &parts[0]), 0);
	cr_assert_eq(trace_load(path, &parts[1]), 0);
	parts[1]->session.arch = TRACE_ARCH_ARM64;
	cr_assert_eq(trace_merge(parts, names, 2, &t, &bad), TRACE_E_MACHINES);
	cr_assert_eq(bad, 1);
	cr_assert(strstr(prof_strerror(TRACE_E_MACHINES), "'b'"));
	unlink(path);
	free(path);
}
