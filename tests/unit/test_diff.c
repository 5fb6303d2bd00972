/*
 * test_diff.c: merging runs by name, with the root frame taken as equal,
 * and the base scaled to the new side's total; the tests of functions and
 * what the table and the summary line print of them; a trace cut into
 * slices of as many samples in time order.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "report/stacks.h"
#include "report/symbolize.h"

#include "hand_trace.h"

static const char *a1[] = { "old", "main", "a" }, *b1[] = { "old", "main", "b" },
		  *b2[] = { "new", "main", "b" }, *c2[] = { "new", "main", "c" };

Test(diff, merged_by_name_under_the_new_root)
{
	struct profile_stack bs[] = { { a1, 3, 30 }, { b1, 3, 10 } };
	struct profile_stack ns[] = { { b2, 3, 60 }, { c2, 3, 20 } };
	struct profile base = { bs, 2, 40 }, new = { ns, 2, 80 };
	const struct profile *bp = &base, *np = &new;
	double one = 1;
	struct diff_side bside = { &bp, &one, &one, 1, 1 }, nside = { &np, &one, &one, 1, 1 };
	struct diff d;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	diff_build(&bside, &nside, DIFF_SHARE, &d);
	cr_assert_eq(d.nstacks, 3);
	cr_assert_str_eq(d.stacks[0].frames[2], "a");
	cr_assert_eq(d.stacks[0].base, 30);
	cr_assert_eq(d.stacks[0].new, 0);
	cr_assert_str_eq(d.stacks[1].frames[2], "b");
	cr_assert_eq(d.stacks[1].base, 10);
	cr_assert_eq(d.stacks[1].new, 60);
	cr_assert_eq(d.stacks[2].base, 0);
	/* each stack keeps the count of each run */
	cr_assert_eq(d.stacks[1].runs[0], 10);
	cr_assert_eq(d.stacks[1].runs[1], 60);
	/* 30 of 40 is 60 of 80. */
	cr_assert_eq(diff_scaled_base(&d, 30), 60);
	cr_assert_eq(diff_write_folded(f, &d), 0);
	fclose(f);
	cr_assert_str_eq(out, "new;main;a 60 0\nnew;main;b 20 60\nnew;main;c 0 20\n");
	free(out);
	diff_release(&d);
}

static const char *k1[] = { "old", "main", "a", "[kernel]" }, *k2[] = { "new", "main", "a", "[kernel]" },
		  *a2[] = { "new", "main", "a" };

Test(diff, a_kernel_leaf_counts_to_the_user_stack_under_it)
{
	/* 30 + 10 in the kernel of 40 against 78 + 2 of 80: main;a is all of
	 * both, and [kernel] (25% against 2.5%) is no item of its own */
	struct profile_stack bs[] = { { a1, 3, 30 }, { k1, 4, 10 } };
	struct profile_stack ns[] = { { a2, 3, 78 }, { k2, 4, 2 } };
	struct profile base = { bs, 2, 40 }, new = { ns, 2, 80 };
	const struct profile *bp = &base, *np = &new;
	double one = 1;
	struct diff_side bside = { &bp, &one, &one, 1, 1 }, nside = { &np, &one, &one, 1, 1 };
	struct diff_changes c;
	struct diff d;

	diff_build(&bside, &nside, DIFF_SHARE, &d);
	cr_assert_eq(d.nstacks, 1);
	cr_assert_eq(d.stacks[0].nframes, 3);
	cr_assert_eq(d.stacks[0].base, 40);
	cr_assert_eq(d.stacks[0].new, 80);
	diff_changes(&d, 1, &c);
	cr_assert_eq(c.functions, 2);
	for (size_t i = 0; i < c.n; i++) {
		cr_assert_str_neq(c.v[i].name, "[kernel]");
		cr_assert_eq(c.v[i].r.change, 0);
	}
	diff_changes_release(&c);
	diff_release(&d);
}

static const char *x1[] = { "p", "main", "x" }, *y1[] = { "p", "main", "y" };

/* A profile of x and y samples of main;x and main;y. */
static struct profile *two(struct profile_stack *st, uint64_t x, uint64_t y)
{
	static struct profile ps[8];
	static size_t next;
	struct profile *p = &ps[next++ % 8];

	st[0] = (struct profile_stack){ x1, 3, x };
	st[1] = (struct profile_stack){ y1, 3, y };
	*p = (struct profile){ st, 2, x + y };
	return p;
}

static char *table(const struct profile *const *b, size_t nb, const struct profile *const *n,
		   size_t nn, int check, int *flagged)
{
	double ones[] = { 1, 1, 1, 1 };
	struct diff_side bs = { b, ones, ones, nb, nb }, ns = { n, ones, ones, nn, nn };
	struct diff_table_opts o = { 0, 0, 0 };
	struct diff_changes c;
	struct diff d;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	diff_build(&bs, &ns, DIFF_SHARE, &d);
	diff_changes(&d, 1, &c);
	*flagged = check ? diff_write_summary(f, &c, 0) : diff_write_table(f, &c, &o);
	fclose(f);
	diff_changes_release(&c);
	diff_release(&d);
	return out;
}

Test(diff, a_real_change_is_flagged_with_its_interval)
{
	/* 750/250 against 670/330 of 1000: z = 0.08 / sqrt(.71 .29 .002) = 3.94,
	 * p = 8.1e-5; the interval 8 +- 1.96 sqrt((.75 .25 + .67 .33) / 1000)
	 * points, 8 +- 3.96. main is 100% in both: not a test. */
	struct profile_stack s1[2], s2[2];
	const struct profile *b = two(s1, 750, 250), *n = two(s2, 670, 330);
	int flagged;
	char *out = table(&b, 1, &n, 1, 0, &flagged);

	cr_assert_eq(flagged, 4, "%s", out);
	cr_assert(strstr(out, "base: 1 run, 1000 samples; new: 1 run, 1000 samples; by share, "
			      "significant at q < 0.05\n"), "%s", out);
	cr_assert(strstr(out, "grew:\n    CHANGE   95% INTERVAL            BASE       NEW        Q  SIG    "
			      "KIND   FUNCTION\n"
			      "   +8.00pp [+4.04pp, +11.96pp]     25.00%    33.00%  <0.0001  yes    total  y\n"
			      "   +8.00pp [+4.04pp, +11.96pp]     25.00%    33.00%  <0.0001  yes    self   y\n\n"
			      "shrank:\n"), "%s", out);
	cr_assert(strstr(out, "   -8.00pp [-11.96pp, -4.04pp]     75.00%    67.00%  <0.0001  yes    total  x\n"
			      "   -8.00pp [-11.96pp, -4.04pp]     75.00%    67.00%  <0.0001  yes    self   x\n"),
		  "%s", out);
	free(out);
	out = table(&b, 1, &n, 1, 1, &flagged);
	cr_assert_eq(flagged, 4);
	cr_assert_str_eq(out, "4 significant changes (q < 0.05): y total +8.00pp [+4.04pp, +11.96pp], "
			      "y self +8.00pp [+4.04pp, +11.96pp], x total -8.00pp [-11.96pp, -4.04pp] "
			      "and 1 more\n");
	free(out);
}

Test(diff, noise_is_one_line_with_the_detectable_change)
{
	/* 750/250 against 740/260: z = 0.51. The least precise item is at
	 * about 25%: 2.8016 sqrt((.75 .25 + .74 .26) / 1000) = 5.46 points. */
	struct profile_stack s1[2], s2[2];
	const struct profile *b = two(s1, 750, 250), *n = two(s2, 740, 260);
	int flagged;
	char *out = table(&b, 1, &n, 1, 0, &flagged);

	cr_assert_eq(flagged, 0);
	cr_assert_str_eq(out, "no significant change (q < 0.05) in the self or total share of 3 functions; "
			      "the smallest change detectable at this sample size is 5.46pp (80% power at "
			      "alpha 0.05)\n");
	free(out);
}

Test(diff, runs_that_vary_widen_the_test)
{
	/* 75/25 against 67/33 in every run is a change; the same means from
	 * runs that scatter by 10 points are not. */
	struct profile_stack s[6][2];
	const struct profile *steady_b[] = { two(s[0], 750, 250), two(s[1], 750, 250) };
	const struct profile *steady_n[] = { two(s[2], 670, 330), two(s[3], 670, 330) };
	const struct profile *wild_n[] = { two(s[4], 570, 430), two(s[5], 770, 230) };
	int flagged;
	char *out = table(steady_b, 2, steady_n, 2, 1, &flagged);

	cr_assert_eq(flagged, 4, "%s", out);
	free(out);
	out = table(steady_b, 2, wild_n, 2, 1, &flagged);
	cr_assert_eq(flagged, 0, "%s", out);
	free(out);
}

Test(diff, empty_base_scales_to_nothing)
{
	struct profile_stack ns[] = { { c2, 3, 20 } };
	struct profile base = { NULL, 0, 0 }, new = { ns, 1, 20 };
	const struct profile *bp = &base, *np = &new;
	double one = 1;
	struct diff_side bside = { &bp, &one, &one, 1, 1 }, nside = { &np, &one, &one, 1, 1 };
	struct diff d;

	diff_build(&bside, &nside, DIFF_COUNTS, &d);
	cr_assert_eq(d.nstacks, 1);
	cr_assert_eq(diff_scaled_base(&d, 5), 0);
	diff_release(&d);
}

Test(diff, slices_of_as_many_samples_in_time_order)
{
	/* 45 samples of thread 10, 10 ns apart, a then b in turn, given out
	 * of time order: slices of 4 or 5 samples, which add up to the whole;
	 * 19 samples are too few to cut. */
	struct trace_sample many[45];
	struct profile *slices[DIFF_SLICES];
	struct profile_opts o = { 0 };
	struct symbolize *sym;
	struct stacks *st;
	struct trace t;
	uint64_t sum = 0;
	size_t n;

	for (size_t i = 0; i < 45; i++) {
		size_t k = (i * 7) % 45; /* a permutation of 0..44 */

		many[i] = (struct trace_sample){ 1000 + 10 * k, 10, k % 2 ? 3 : 2, TRACE_STATE_RUNNING, 0 };
	}
	make_trace(&t);
	t.samples = many;
	t.nsamples = 45;
	sym = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "" });
	st = stacks_new(&t, sym);
	n = diff_slice(st, &t, &o, slices);
	cr_assert_eq(n, DIFF_SLICES);
	for (size_t k = 0; k < n; k++) {
		cr_assert(slices[k]->samples == 4 || slices[k]->samples == 5, "slice %zu has %llu", k,
			  (unsigned long long)slices[k]->samples);
		sum += slices[k]->samples;
		profile_free(slices[k]);
	}
	cr_assert_eq(sum, 45);
	t.nsamples = 19;
	cr_assert_eq(diff_slice(st, &t, &o, slices), 0);
	stacks_free(st);
	symbolize_free(sym);
}
