/*
 * test_diff.c: merging runs by name, with the root frame taken as equal,
 * and the base scaled to the new side's total; the tests of functions and
 * what the table and the summary line print of them; a trace cut into
 * slices of as many samples in time order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/diff.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

#include "hand_trace.h"

static const char *a1[] = { "old", "main", "a" }, *b1[] = { "old", "main", "b" },
		  *b2[] = { "new", "main", "b" }, *c2[] = { "new", "main", "c" };

Test(diff, merged_by_name_under_the_new_root)
{
	struct profile_stack bs[] = { { a1, 3, 30, 0 }, { b1, 3, 10, 0 } };
	struct profile_stack ns[] = { { b2, 3, 60, 0 }, { c2, 3, 20, 0 } };
	struct profile base = { bs, 2, 40, NULL }, new = { ns, 2, 80, NULL };
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
	struct profile_stack bs[] = { { a1, 3, 30, 0 }, { k1, 4, 10, 0 } };
	struct profile_stack ns[] = { { a2, 3, 78, 0 }, { k2, 4, 2, 0 } };
	struct profile base = { bs, 2, 40, NULL }, new = { ns, 2, 80, NULL };
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

static const char *xs[] = { "p", "main", "x" }, *ys[] = { "p", "main", "y" };

/* A profile of x and y samples of main;x and main;y. */
static struct profile *two(struct profile_stack *st, uint64_t x, uint64_t y)
{
	static struct profile ps[8];
	static size_t next;
	struct profile *p = &ps[next++ % 8];

	st[0] = (struct profile_stack){ xs, 3, x, 0 };
	st[1] = (struct profile_stack){ ys, 3, y, 0 };
	*p = (struct profile){ st, 2, x + y, NULL };
	return p;
}

/* The table of b against n (or with check, the summary line), at
 * threshold. */
static char *table(const struct profile *const *b, size_t nb, const struct profile *const *n,
		   size_t nn, int check, double threshold, int *flagged)
{
	double ones[] = { 1, 1, 1, 1 };
	struct diff_side bs = { b, ones, ones, nb, nb }, ns = { n, ones, ones, nn, nn };
	struct diff_table_opts o = { 0, 0, threshold };
	struct diff_changes c;
	struct diff d;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	diff_build(&bs, &ns, DIFF_SHARE, &d);
	diff_changes(&d, 1, &c);
	*flagged = check ? diff_write_summary(f, &c, threshold) : diff_write_table(f, &c, &o);
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
	char *out = table(&b, 1, &n, 1, 0, 0, &flagged);

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
	out = table(&b, 1, &n, 1, 1, 0, &flagged);
	cr_assert_eq(flagged, 4);
	cr_assert_str_eq(out, "4 significant changes (q < 0.05): y total +8.00pp [+4.04pp, +11.96pp], "
			      "y self +8.00pp [+4.04pp, +11.96pp], x total -8.00pp [-11.96pp, -4.04pp] "
			      "and 1 more\n");
	free(out);
}

Test(diff, noise_is_one_line_with_the_detectable_change)
{
	/* 750/250 against 740/260: z = 0.51. Four tests (x and y, self and
	 * total; main is all of both), so a lone change needs p < 0.05 / 4,
	 * and the least precise item is at about 25%:
	 * (z(1 - 0.05 / 8) + z(0.8)) sqrt((.75 .25 + .74 .26) / 1000)
	 * = (2.4977 + 0.8416) 0.019491 = 6.51 points. */
	struct profile_stack s1[2], s2[2];
	const struct profile *b = two(s1, 750, 250), *n = two(s2, 740, 260);
	int flagged;
	char *out = table(&b, 1, &n, 1, 0, 0, &flagged);

	cr_assert_eq(flagged, 0);
	cr_assert_str_eq(out, "no significant change (q < 0.05) in the self or total share of 3 functions; "
			      "the smallest change detectable at this sample size is 6.51pp (80% power for "
			      "a lone change among 4 tests)\n");
	free(out);
}

Test(diff, nothing_that_could_change_is_said)
{
	/* one stack, all of both runs: nothing to test */
	struct profile_stack s1[] = { { xs, 3, 300, 0 } }, s2[] = { { xs, 3, 200, 0 } };
	struct profile base = { s1, 1, 300, NULL }, new = { s2, 1, 200, NULL };
	const struct profile *b = &base, *n = &new;
	int flagged;
	char *out = table(&b, 1, &n, 1, 0, 0, &flagged);

	cr_assert_eq(flagged, 0);
	cr_assert_str_eq(out, "no significant change (q < 0.05) in the self or total share of 2 functions; "
			      "no change in them could be significant (too few samples, or all or none of "
			      "every run)\n");
	free(out);
}

Test(diff, changes_below_the_threshold_are_said_not_hidden)
{
	/* 750/250 against 670/330 of 1000: four significant changes of 8
	 * points, all below --threshold 10 (the largest, by a rounding,
	 * y's total). */
	struct profile_stack s1[2], s2[2];
	const struct profile *b = two(s1, 750, 250), *n = two(s2, 670, 330);
	const char *line = "no significant change of 10.00pp or more (q < 0.05) in the self or total share "
			   "of 3 functions; 4 significant changes are below --threshold, the largest y total "
			   "+8.00pp [+4.04pp, +11.96pp]\n";
	int flagged;
	char *out = table(&b, 1, &n, 1, 0, 10, &flagged);

	cr_assert_eq(flagged, 0);
	cr_assert_str_eq(out, line);
	free(out);
	out = table(&b, 1, &n, 1, 1, 10, &flagged);
	cr_assert_eq(flagged, 0);
	cr_assert_str_eq(out, line);
	free(out);
}

/* The differential flame graph of b against n at threshold. */
static char *graph(const struct profile *b, const struct profile *n, double threshold)
{
	double one = 1;
	struct diff_side bs = { &b, &one, &one, 1, 1 }, ns = { &n, &one, &one, 1, 1 };
	struct flamegraph_opts o = { .width = 1000, .minwidth = 0.1 };
	struct diff d;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	diff_build(&bs, &ns, DIFF_SHARE, &d);
	cr_assert_eq(diff_write_svg(f, &d, &o, 0, threshold), 0);
	fclose(f);
	diff_release(&d);
	return out;
}

static int begins(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The fill of the frame whose tooltip begins at title, in svg. */
static char *fill_of(const char *title)
{
	const char *at = strstr(title, "fill=\"#");

	cr_assert(at && at < strstr(title, "</g>"), "no fill in %s", title);
	return strndup(at + 6, 7);
}

Test(diff, graph_marks_a_change_below_the_threshold_small_and_grey)
{
	/* x: 75% against 67% of 1000, significant (q < 0.0001), so blue (as
	 * wide as its larger side, 750 of the 1080 drawn);
	 * with --threshold 10 it is small, as the table says, and grey, as
	 * the legend says. */
	struct profile_stack s1[2], s2[2];
	const struct profile *b = two(s1, 750, 250), *n = two(s2, 670, 330);
	const char *x = "<title>x (750 samples, 69.44%)\nbase 75.00%, new 67.00%: -8.00pp "
			"[-11.96pp, -4.04pp], q &lt;0.0001, ";
	char *out = graph(b, n, 0), *at, *fill;

	cr_assert((at = strstr(out, x)), "%s", out);
	cr_assert(begins(at + strlen(x), "significant</title>"), "%s", at);
	fill = fill_of(at);
	cr_assert_str_eq(fill, "#1e1eff");
	free(fill);
	cr_assert(strstr(out, ">no significant change</text>"), "%s", out);
	free(out);
	out = graph(b, n, 10);
	cr_assert((at = strstr(out, x)), "%s", out);
	cr_assert(begins(at + strlen(x), "small: significant, below --threshold</title>"), "%s", at);
	fill = fill_of(at);
	cr_assert_str_eq(fill, "#dcdcdc");
	free(fill);
	cr_assert(strstr(out, ">no significant change of 10.00pp or more</text>"), "%s", out);
	free(out);
}

static const char *ax[] = { "p", "main", "a", "x" }, *by[] = { "p", "main", "b", "y" },
		  *cz[] = { "p", "main", "c" };

Test(diff, self_and_total_are_one_family)
{
	/* main;a;x, main;b;y and main;c, 500/200/300 against 420/280/300 of
	 * 1000: 8 tests, a and b by their total only (their self is 0, main
	 * is all of both), and x's and a's p1 = 2 P(Z > 0.08 / sqrt(.46 .54
	 * .002)), y's and b's p2 = 2 P(Z > 0.08 / sqrt(.24 .76 .002)), c's 1.
	 * In one family of 8, sorted p2 p2 p2 p1 p1 p1 1 1: q = p2 8/3 and
	 * p1 8/6 (as two families, self's 3 and total's 5, they would be
	 * p2 3 and p1 3/2, p2 5/2 and p1 5/4). */
	struct profile_stack bs[] = { { ax, 4, 500, 0 }, { by, 4, 200, 0 }, { cz, 3, 300, 0 } };
	struct profile_stack ns[] = { { ax, 4, 420, 0 }, { by, 4, 280, 0 }, { cz, 3, 300, 0 } };
	struct profile base = { bs, 3, 1000, NULL }, new = { ns, 3, 1000, NULL };
	const struct profile *bp = &base, *np = &new;
	double one = 1, p1 = 2 * signif_normal_cdf(-0.08 / sqrt(.46 * .54 * .002));
	double p2 = 2 * signif_normal_cdf(-0.08 / sqrt(.24 * .76 * .002));
	struct diff_side bside = { &bp, &one, &one, 1, 1 }, nside = { &np, &one, &one, 1, 1 };
	struct diff_changes c;
	struct diff d;

	diff_build(&bside, &nside, DIFF_SHARE, &d);
	diff_changes(&d, 1, &c);
	cr_assert_eq(c.tests, 8);
	for (size_t i = 0; i < c.n; i++) {
		const struct diff_change *v = &c.v[i];
		char who = v->name[0];

		if (v->r.least_p >= 0.05)
			cr_assert_eq(v->r.q, 1, "%s", v->name);
		else if (who == 'x' || who == 'a')
			cr_assert(fabs(v->r.q - p1 * 8 / 6) < 1e-9 * p1, "%s q %g", v->name, v->r.q);
		else if (who == 'y' || who == 'b')
			cr_assert(fabs(v->r.q - p2 * 8 / 3) < 1e-9 * p2, "%s q %g", v->name, v->r.q);
		else
			cr_assert(v->r.q > 0.9, "%s q %g", v->name, v->r.q);
	}
	diff_changes_release(&c);
	diff_release(&d);
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
	char *out = table(steady_b, 2, steady_n, 2, 1, 0, &flagged);

	cr_assert_eq(flagged, 4, "%s", out);
	free(out);
	out = table(steady_b, 2, wild_n, 2, 1, 0, &flagged);
	cr_assert_eq(flagged, 0, "%s", out);
	free(out);
}

Test(diff, empty_base_scales_to_nothing)
{
	struct profile_stack ns[] = { { c2, 3, 20, 0 } };
	struct profile base = { NULL, 0, 0, NULL }, new = { ns, 1, 20, NULL };
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

		many[i] = (struct trace_sample){ 1000 + 10 * k, 10, k % 2 ? 3 : 2, TRACE_STATE_RUNNING, 0 , 0 };
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
