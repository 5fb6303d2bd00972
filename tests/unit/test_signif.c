/*
 * test_signif.c: the statistics of diff against values known in closed
 * form or from published tables: Student's t (exact for 1 and 2 degrees,
 * tabulated quantiles otherwise), the incomplete beta function (a
 * binomial sum for whole a and b), the two-proportion z test, Welch's
 * test where the runs vary more than sampling does, the least p value
 * samples could give, Benjamini and Hochberg's q values over the results
 * that could be significant, and the smallest change a test detects.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "report/model/signif.h"

#define near(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%.12g is not %.12g", (double)(a), (double)(b))

Test(signif, beta_inc_is_a_binomial_sum_for_whole_parameters)
{
	/* I_x(a, b) = P(Binomial(a + b - 1, x) >= a): 0.5248 for (2, 3, 0.4). */
	near(signif_beta_inc(2, 3, 0.4), 0.5248, 1e-12);
	near(signif_beta_inc(3, 2, 0.6), 1 - 0.5248, 1e-12);
	near(signif_beta_inc(1, 1, 0.3), 0.3, 1e-12);
	near(signif_beta_inc(2, 2, 0), 0, 0);
	near(signif_beta_inc(2, 2, 1), 1, 0);
}

Test(signif, t_cdf_exact_for_one_and_two_degrees)
{
	/* One degree is Cauchy's: 1/2 + atan(t)/pi; two: 1/2 + t/(2 sqrt(2 + t^2)). */
	for (double t = -6; t <= 6; t += 0.75) {
		near(signif_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		near(signif_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
	}
}

Test(signif, t_quantiles_match_the_tables)
{
	near(signif_t_quantile(0.975, 10), 2.228138852, 1e-8);
	near(signif_t_quantile(0.95, 5), 2.015048373, 1e-8);
	near(signif_t_quantile(0.995, 3), 5.840909310, 1e-8);
	near(signif_t_quantile(0.975, 30), 2.042272456, 1e-8);
	near(signif_t_quantile(0.975, INFINITY), 1.959963985, 1e-8);
	near(signif_t_quantile(0.025, 10), -2.228138852, 1e-8);
	near(signif_normal_cdf(1.959963984540054), 0.975, 1e-12);
}

Test(signif, two_proportions_pooled_p_unpooled_interval)
{
	/* 300 of 1000 against 360 of 1000: z = 0.06 / sqrt(.33 .67 (2/1000)). */
	double xb = 300, eb = 1000, xn = 360, en = 1000;
	struct signif_side b = { &xb, &eb, 1 }, n = { &xn, &en, 1 };
	struct signif_result r;

	signif_compare(SIGNIF_SHARE, &b, &n, &r);
	near(r.change, 0.06, 1e-12);
	near(r.p, 0.0043272723659, 1e-10);
	near(r.se, 0.0209857094233, 1e-12);
	near(r.lo, 0.0188687653403, 1e-9);
	near(r.hi, 0.1011312346597, 1e-9);
	cr_assert(isinf(r.df));
}

/* Student's t quantile in closed form for two degrees of freedom. */
static double t2_quantile(double p)
{
	return (2 * p - 1) / sqrt(2 * p * (1 - p));
}

Test(signif, detectable_change_is_the_test_as_run)
{
	/* Normal, one test at 0.05: z(0.975) + z(0.8) standard errors. Among
	 * 10 tests a lone change must reach p < 0.005: z(0.9975) + z(0.8).
	 * With few degrees of freedom, t's quantiles: Cauchy's tan(pi (p -
	 * 1/2)) for one degree, t2_quantile for two. */
	near(signif_detectable(1, INFINITY, 0.05, 1), 1.959963984540054 + 0.8416212335729144, 1e-8);
	near(signif_detectable(2, INFINITY, 0.05, 10), 2 * (2.8070337683438114 + 0.8416212335729144),
	     1e-8);
	near(signif_detectable(1, 1, 0.05, 5), tan(M_PI * (0.5 - 0.005)) + tan(M_PI * 0.3), 1e-7);
	near(signif_detectable(3, 2, 0.05, 2), 3 * (t2_quantile(1 - 0.0125) + t2_quantile(0.8)), 1e-8);
	/* At that change, a normal test among 10 flags with probability 0.8
	 * (the far tail, 1e-14, aside). */
	near(signif_normal_cdf(signif_detectable(1, INFINITY, 0.05, 10) - 2.8070337683438114), 0.8,
	     1e-9);
}

Test(signif, poisson_counts)
{
	/* 100 against 144 samples in runs of equal length: z = 44 / sqrt(244). */
	double xb = 100, xn = 144, one = 1;
	struct signif_side b = { &xb, &one, 1 }, n = { &xn, &one, 1 };
	struct signif_result r;

	signif_compare(SIGNIF_RATE, &b, &n, &r);
	near(r.change, 44, 1e-12);
	near(r.p, 2 * signif_normal_cdf(-44 / sqrt(244)), 1e-12);
	near(r.hi - r.change, 1.959963985 * sqrt(244), 1e-6);
}

Test(signif, welch_when_runs_vary_more_than_sampling)
{
	/* Shares .70 .75 .80 against .60 .65 .70 of a million samples each:
	 * the runs' variance (1/400 each, 1/1200 a mean) is far above the
	 * binomial, t = -0.1 sqrt(600) on Welch's 4 degrees, whose distribution
	 * function is 1/2 + 3/8 u (1 - u^2/12) with u = t / sqrt(1 + t^2/4),
	 * so p = 1 - 0.6 sqrt(2.4). */
	double xb[] = { 700000, 750000, 800000 }, xn[] = { 600000, 650000, 700000 };
	double e[] = { 1e6, 1e6, 1e6 };
	struct signif_side b = { xb, e, 3 }, n = { xn, e, 3 };
	struct signif_result r;

	signif_compare(SIGNIF_SHARE, &b, &n, &r);
	near(r.base, 0.75, 1e-12);
	near(r.new, 0.65, 1e-12);
	near(r.p, 1 - 0.6 * sqrt(2.4), 1e-9);
	/* t(0.975, 4) = 2.776445105 */
	near(r.hi - r.change, 2.776445105 * sqrt(1.0 / 600), 1e-8);
	near(r.df, 4, 1e-12);
}

Test(signif, identical_sides_are_no_change)
{
	double x = 500, e = 1000, all = 1000;
	struct signif_side b = { &x, &e, 1 }, full = { &all, &e, 1 };
	struct signif_result r;

	signif_compare(SIGNIF_SHARE, &b, &b, &r);
	near(r.change, 0, 0);
	near(r.p, 1, 1e-12);
	cr_assert(r.least_p < 1e-100, "least p %g", r.least_p);
	/* 100% in both: no variance, no change, and none could be seen. */
	signif_compare(SIGNIF_SHARE, &full, &full, &r);
	near(r.p, 1, 0);
	near(r.least_p, 1, 0);
}

Test(signif, least_p_of_the_most_uneven_split)
{
	/* 1 against 1 of 1000 samples: at most 2 against 0, whose pooled
	 * z is 0.002 / sqrt(.001 .999 .002) = 1.4149; 4 samples, 2.0020. A
	 * share of 999 against 998 of 1000 splits at most 1000 against 997.
	 * As counts (Poisson), 2 against 1 in runs of equal length: at most
	 * 3 against 0, z = 3 / sqrt(1.5 2). */
	double one = 1, two = 2, x999 = 999, x998 = 998, e = 1000, unit = 1, c2 = 2, c1 = 1;
	struct signif_side a = { &one, &e, 1 }, b = { &two, &e, 1 }, h = { &x999, &e, 1 },
			   l = { &x998, &e, 1 }, ca = { &c2, &unit, 1 }, cb = { &c1, &unit, 1 };
	struct signif_result r;

	signif_compare(SIGNIF_SHARE, &a, &a, &r);
	near(r.least_p, 2 * signif_normal_cdf(-0.002 / sqrt(.001 * .999 * .002)), 1e-12);
	cr_assert(r.least_p > 0.05);
	signif_compare(SIGNIF_SHARE, &b, &b, &r);
	near(r.least_p, 2 * signif_normal_cdf(-0.004 / sqrt(.002 * .998 * .002)), 1e-12);
	cr_assert(r.least_p < 0.05);
	signif_compare(SIGNIF_SHARE, &h, &l, &r);
	near(r.least_p, 2 * signif_normal_cdf(-0.003 / sqrt(.9985 * .0015 * .002)), 1e-12);
	signif_compare(SIGNIF_RATE, &ca, &cb, &r);
	near(r.least_p, 2 * signif_normal_cdf(-3 / sqrt(3.0)), 1e-12);
}

Test(signif, benjamini_hochberg)
{
	struct signif_result r[] = { { .p = 0.01 }, { .p = 0.04 }, { .p = 0.2, .least_p = 0.06 },
				     { .p = 0.03 }, { .p = 0.005 }, { .p = 0.9 } };

	/* Five of the six could be below 0.05, sorted .005 .01 .03 .04 .9:
	 * .025 .025 .05 .05 .9; the one whose least p is 0.06 is not
	 * counted. */
	cr_assert_eq(signif_adjust(r, 6, 0.05), 5);
	near(r[0].q, 0.025, 1e-12);
	near(r[1].q, 0.05, 1e-12);
	near(r[2].q, 1, 0);
	near(r[3].q, 0.05, 1e-12);
	near(r[4].q, 0.025, 1e-12);
	near(r[5].q, 0.9, 1e-12);
}

Test(signif, paired_slices_cancel_a_shared_course_and_count_a_burst)
{
	/* Two runs of 10 slices of 100 samples: an item at 90% in the odd
	 * slices and 10% in the even ones of both runs (a program with
	 * phases) is no change, and its test is the two-proportion one of the
	 * runs whole; a start-up that once took 40 samples of the first slice
	 * (8 in all, against 0) is not significant, where the runs whole,
	 * 992 of 1000 against 1000 of 1000, would be (p = 0.004). */
	double phase[10], burst[10], steady[10], e[10];
	struct signif_side a = { phase, e, 10 }, b = { burst, e, 10 }, c = { steady, e, 10 };
	double xb = 992, xn = 1000, ew = 1000;
	struct signif_side wb = { &xb, &ew, 1 }, wn = { &xn, &ew, 1 };
	struct signif_result r, whole;

	for (int i = 0; i < 10; i++) {
		phase[i] = i % 2 ? 90 : 10;
		burst[i] = i ? 100 : 92;
		steady[i] = 100;
		e[i] = 100;
	}
	signif_compare_paired(SIGNIF_SHARE, &a, &a, &r);
	near(r.change, 0, 1e-15);
	near(r.p, 1, 1e-12);
	signif_compare(SIGNIF_SHARE, &wb, &wn, &whole);
	cr_assert(whole.p < 0.005, "p %g", whole.p);
	signif_compare_paired(SIGNIF_SHARE, &b, &c, &r);
	near(r.change, 0.008, 1e-12);
	/* the differences are 0.08 once and 0 nine times, mean 0.008: their
	 * mean's variance is (0.072^2 + 9 0.008^2) / (9 10) = 0.008^2, so
	 * t = 1 on 9 degrees */
	near(r.p, 2 * signif_t_cdf(-1, 9), 1e-12);
	near(r.df, 9, 0);
	cr_assert(r.p > 0.3, "p %g", r.p);
}
