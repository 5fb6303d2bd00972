/*
 * test_thread_table.c: the per-thread table on a trace built by hand in
 * memory: counts, states (preempted its own), order, grouping by process,
 * lifetimes, the timeline, --focus and --exclude (against the profile's
 * verdict), and the file-name stems of --split.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/profile.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"
#include "report/output/thread_table.h"

#include "hand_trace.h"

static struct symbolize *sym;
static struct stacks *st;

/* The table of t under o, symbolized with no debug files. */
static void build(const struct trace *t, const struct thread_table_opts *o, struct thread_table *tt)
{
	sym = symbolize_new(t, &(struct symbolize_opts){ .debug_root = "" });
	st = stacks_new(t, sym);
	thread_table_build(st, o, tt);
}

static void done(struct thread_table *tt)
{
	thread_table_release(tt);
	stacks_free(st);
	symbolize_free(sym);
}

Test(thread_table, counts_and_order)
{
	struct trace t;
	struct thread_table_opts o = { 0 };
	struct thread_table tt;

	make_trace(&t);
	build(&t, &o, &tt);
	cr_assert_eq(tt.nrows, 2);
	cr_assert_eq(tt.samples, 7);
	cr_assert_eq(tt.rows[0].tid, 10);
	cr_assert_eq(tt.rows[0].samples, 4);
	cr_assert_eq(tt.rows[0].running, 3);
	cr_assert_eq(tt.rows[0].waiting, 0);
	cr_assert_eq(tt.rows[0].first, 100);
	cr_assert_eq(tt.rows[0].last, 800);
	cr_assert_eq(tt.rows[1].tid, 11);
	cr_assert_str_eq(tt.rows[1].name, "re;named");
	cr_assert_eq(tt.rows[1].samples, 3);
	cr_assert_eq(tt.rows[1].running, 1);
	cr_assert_eq(tt.rows[1].waiting, 2);
	cr_assert_eq(tt.rows[1].end, 900);
	done(&tt);
}

Test(thread_table, timeline_bins_by_state)
{
	struct trace t;
	struct thread_table_opts o = { .nbins = 4 };
	struct thread_table tt;

	make_trace(&t);
	build(&t, &o, &tt);
	/* No end record: the span runs to just after the last sample. */
	cr_assert_eq(tt.span_from, 0);
	cr_assert_eq(tt.span_to, 801);
	cr_assert_eq(tt.nbins, 4);
	cr_assert_eq(tt.rows[0].tid, 10);
	cr_assert_eq(tt.rows[0].bins[0].running, 2);
	cr_assert_eq(tt.rows[0].bins[1].running + tt.rows[0].bins[2].running, 0);
	cr_assert_eq(tt.rows[0].bins[3].running, 1);
	cr_assert_eq(tt.rows[0].bins[3].unknown, 1);
	cr_assert_eq(tt.rows[1].bins[0].running, 1);
	cr_assert_eq(tt.rows[1].bins[0].waiting, 1);
	cr_assert_eq(tt.rows[1].bins[2].waiting, 1);
	done(&tt);

	/* A window narrows the span, and a recorded end bounds it. */
	t.has_end = 1;
	t.end.time = 1000;
	o.filter.from = 100;
	build(&t, &o, &tt);
	cr_assert_eq(tt.span_from, 100);
	cr_assert_eq(tt.span_to, 1000);
	done(&tt);
	o.filter.to = 700;
	o.filter.has_to = 1;
	build(&t, &o, &tt);
	cr_assert_eq(tt.span_to, 700);
	done(&tt);
}

Test(thread_table, timeline_slots_hold_two_periods)
{
	struct trace t;
	struct thread_table_opts o = { .nbins = 100 };
	struct thread_table tt;

	make_trace(&t);
	t.session.rate_hz = 10000000; /* a 100 ns period: 8 in the 801 ns span */
	build(&t, &o, &tt);
	cr_assert_eq(tt.nbins, 4);
	done(&tt);
	t.session.rate_hz = 1; /* not one period: one slot */
	build(&t, &o, &tt);
	cr_assert_eq(tt.nbins, 1);
	cr_assert_eq(tt.rows[0].bins[0].running, 3);
	done(&tt);
}

Test(thread_table, no_timeline_unless_asked)
{
	struct trace t;
	struct thread_table_opts o = { 0 };
	struct thread_table tt;

	make_trace(&t);
	build(&t, &o, &tt);
	cr_assert_eq(tt.nbins, 0);
	cr_assert_null(tt.rows[0].bins);
	done(&tt);
}

/* The samples of tid in the profile under the same focus and exclude. */
static uint64_t profile_samples(uint32_t tid, const regex_t *focus, const regex_t *exclude)
{
	struct profile_opts po = { .filter = { .tids = &tid, .ntids = 1, .focus = focus,
					       .exclude = exclude } };
	struct profile *p = profile_build(st, &po);
	uint64_t n = p->samples;

	profile_free(p);
	return n;
}

/* focus and exclude keep the same samples here as in the profile, for
 * matches on the leaf, on a caller, and on neither. */
Test(thread_table, focus_and_exclude_as_the_profile)
{
	static const char *const pats[] = { "0x100$", "0x200$", "0x300$", "0x9000", "nothing", "." };
	struct trace t;
	struct thread_table tt;
	regex_t re;

	make_trace(&t);
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		cr_assert_eq(regcomp(&re, pats[i], REG_EXTENDED | REG_NOSUB), 0);
		for (int ex = 0; ex < 2; ex++) {
			struct thread_table_opts o = { 0 };
			uint64_t sum = 0;

			if (ex)
				o.filter.exclude = &re;
			else
				o.filter.focus = &re;
			build(&t, &o, &tt);
			for (size_t r = 0; r < tt.nrows; r++) {
				uint64_t want = profile_samples(tt.rows[r].tid, o.filter.focus,
								o.filter.exclude);

				cr_assert_eq(tt.rows[r].samples, want, "'%s' %s tid %u: %llu, profile %llu",
					     pats[i], ex ? "exclude" : "focus", tt.rows[r].tid,
					     (unsigned long long)tt.rows[r].samples,
					     (unsigned long long)want);
				sum += tt.rows[r].samples;
			}
			cr_assert_eq(tt.samples, sum);
			done(&tt);
		}
		regfree(&re);
	}
}

Test(thread_table, focus_on_a_caller)
{
	struct trace t;
	struct thread_table tt;
	regex_t re;
	struct thread_table_opts o = { .filter = { .focus = &re } };

	make_trace(&t);
	cr_assert_eq(regcomp(&re, "^libfake\\.so\\+0x100$", REG_EXTENDED | REG_NOSUB), 0);
	build(&t, &o, &tt);
	/* Every sample but tid 10's empty stack at 800 has main as a caller. */
	cr_assert_eq(tt.samples, 6);
	cr_assert_eq(tt.rows[0].samples, 3);
	cr_assert_eq(tt.rows[0].last, 700);
	done(&tt);
	regfree(&re);
}

Test(thread_table, file_stem_is_safe_and_unique)
{
	static const struct {
		uint32_t tid;
		const char *name, *stem;
	} cases[] = {
		{ 7, "main", "7-main" },
		{ 7, "../../x", "7-.._.._x" },
		{ 7, "a/b", "7-a_b" },
		{ 7, "", "7" },
		{ 7, NULL, "7" },
		{ 7, "..", "7-.." },
		{ 7, "/", "7-_" },
		{ 7, "tokio-rt.w_1", "7-tokio-rt.w_1" },
		{ 7, "sp ace\t\"q\"", "7-sp_ace__q_" },
		{ 7, "caf\xc3\xa9", "7-caf__" },
		{ 7, "<script>", "7-_script_" },
		{ 4294967295u, "x", "4294967295-x" },
	};
	char *s, *a, *b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = thread_table_file_stem(cases[i].tid, cases[i].name);
		cr_assert_str_eq(s, cases[i].stem);
		cr_assert_null(strchr(s, '/'));
		cr_assert_neq(s[0], '.');
		free(s);
	}
	/* Long names are cut. */
	s = thread_table_file_stem(1, "0123456789012345678901234567890123456789012345678901234567890");
	cr_assert_str_eq(s, "1-012345678901234567890123456789012345678901234567");
	free(s);
	/* The tid ends at the first '-', so different tids never meet, even
	 * when a name starts with digits or a dash; and a name that is empty
	 * never gives the stem of one that is not. */
	a = thread_table_file_stem(12, "3-a");
	b = thread_table_file_stem(123, "a");
	cr_assert_str_neq(a, b);
	free(a);
	free(b);
	a = thread_table_file_stem(1, "");
	b = thread_table_file_stem(1, "-");
	cr_assert_str_neq(a, b);
	free(a);
	free(b);
}

Test(thread_table, preempted_counted_apart_in_rows_and_bins)
{
	struct trace_sample s[] = {
		{ 100, 10, 2, TRACE_STATE_PREEMPTED, 0 , 0 },
		{ 110, 10, 2, TRACE_STATE_PREEMPTED, 0 , 0 },
		{ 120, 10, 2, TRACE_STATE_RUNNING, 0 , 0 },
		{ 700, 10, 2, TRACE_STATE_SLEEPING, 0 , 0 },
	};
	struct trace t;
	struct thread_table_opts o = { .nbins = 2 };
	struct thread_table tt;

	make_trace(&t);
	t.samples = s;
	t.nsamples = 4;
	build(&t, &o, &tt);
	cr_assert_eq(tt.rows[0].tid, 10);
	cr_assert_eq(tt.rows[0].samples, 4);
	cr_assert_eq(tt.rows[0].running, 1);
	cr_assert_eq(tt.rows[0].waiting, 1);
	cr_assert_eq(tt.rows[0].preempted, 2);
	cr_assert_eq(tt.rows[0].bins[0].preempted, 2);
	cr_assert_eq(tt.rows[0].bins[0].running, 1);
	cr_assert_eq(tt.rows[0].bins[0].waiting, 0);
	cr_assert_eq(tt.rows[0].bins[1].waiting, 1);
	cr_assert_eq(tt.rows[0].bins[1].preempted, 0);
	done(&tt);
	o.filter.state = STACKS_STATE_PREEMPTED;
	build(&t, &o, &tt);
	cr_assert_eq(tt.samples, 2);
	cr_assert_eq(tt.rows[0].preempted, 2);
	done(&tt);
}

/* With several processes the rows go process by process, as the trace
 * lists them, under a line for each: tid 10, the busier, is in the
 * second process here. */
Test(thread_table, grouped_by_process)
{
	static char *sh[] = { "/bin/sh" };
	struct trace_exec exec = { 0, 1, sh };
	struct trace_process procs[2];
	struct trace_thread th[2];
	struct thread_table_opts o = { 0 };
	struct thread_table tt;
	struct trace t;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	make_trace(&t);
	procs[0] = t.processes[0];
	procs[1] = (struct trace_process){ .id = 2, .pid = 4300, .parent = 0, .nexecs = 1, .execs = &exec };
	memcpy(th, t.threads, sizeof(th));
	th[0].process = 1;
	t.processes = procs;
	t.nprocesses = 2;
	t.threads = th;
	build(&t, &o, &tt);
	cr_assert_eq(tt.nrows, 2);
	cr_assert_eq(tt.rows[0].tid, 11);
	cr_assert_eq(tt.rows[0].process, 0);
	cr_assert_eq(tt.rows[1].tid, 10);
	cr_assert_eq(tt.rows[1].process, 1);
	f = open_memstream(&text, &len);
	cr_assert_eq(thread_table_write(f, &t, &tt), 0);
	fclose(f);
	cr_assert(strstr(text, "\npid 4242: myprog, 3 samples\n      11  re;named "), "%s", text);
	cr_assert(strstr(text, "\npid 4300: sh, 4 samples\n      10  main "), "%s", text);
	free(text);
	done(&tt);
}
