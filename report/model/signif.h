/*
 * signif.h: whether a change between two sets of runs is more than noise.
 *
 * An item (a function's self or total, a frame of a flame graph) has, in
 * each run, a count x of an exposure e: x samples of e samples (a share,
 * binomial), or x samples in e seconds or in one run (a rate, Poisson).
 * A side is one or more runs (or parts of one run); its value is their x
 * summed over their e summed, the mean of the runs' x / e weighted by e.
 *
 * The variance of a side's value is the larger of what the model gives
 * (binomial or Poisson, at the side's value) and the variance between
 * its runs (with two runs or more: n / (n - 1) times the sum of the
 * squares of each run's weight, e / sum of e, times its x / e less the
 * value; for runs of equal e, their sample variance over their number),
 * so that runs which vary more than sampling noise widen the test
 * instead of passing for a change. The statistic is the change over the
 * root of the two variances, read against Student's t with Welch's
 * degrees of freedom, in which a side whose model variance was the larger
 * counts as known (infinite degrees); with one run a side it is the
 * normal two-proportion (or two-Poisson) z test. The p value takes both
 * variances at the value of the two sides pooled (what they would share
 * if nothing changed); the interval takes each side at its own value.
 * signif_compare_paired() compares two runs cut into slices, paired by
 * position, with the variance of the slices' differences as a floor.
 * signif_adjust() turns the p values of the items compared into
 * Benjamini-Hochberg q values, counting only the items that could be
 * significant.
 */
#ifndef REPORT_SIGNIF_H
#define REPORT_SIGNIF_H

#include <stddef.h>

/* What a count is of. */
enum signif_model {
	SIGNIF_SHARE, /* x samples of e samples: binomial */
	SIGNIF_RATE,  /* x samples per e (seconds, or 1 run): Poisson */
};

/* The runs of one side: x[i] of e[i], for i < n (n >= 1, every e > 0). */
struct signif_side {
	const double *x, *e;
	size_t n;
};

struct signif_result {
	double base, new;   /* each side's value */
	double change;      /* new - base */
	double lo, hi;      /* the change's 95% confidence interval */
	double se;          /* the change's standard error (for the interval) */
	double df;          /* se's degrees of freedom (INFINITY: normal) */
	double p, q;        /* two-sided p value; q after signif_adjust() */
	double least_p;     /* the smallest p value the item's samples could
	                     * give, split between the sides as unevenly as
	                     * their exposures allow (1 if nothing varies:
	                     * 0 or 100% in every run) */
};

/* Compares the item's runs of base and new under model into *r (q is set
 * to p). */
void signif_compare(int model, const struct signif_side *base, const struct signif_side *new,
		    struct signif_result *r);

/* Compares one run a side, each cut into the same number n of slices of
 * about equal samples in time order, paired by position (n >= 2): as
 * signif_compare() on the runs whole, but with the variance of the change
 * the larger of the model's and the variance of the mean of the slices'
 * differences (on n - 1 degrees of freedom), so that noise that is not
 * spread evenly over the runs, such as a start-up that takes longer once,
 * counts; what the two runs do alike at each point of their course
 * cancels. */
void signif_compare_paired(int model, const struct signif_side *base,
			   const struct signif_side *new, struct signif_result *r);

/* Sets the q value of each of the n results from their p values by
 * Benjamini and Hochberg's step-up procedure over the m results whose
 * least_p is below alpha: the smallest, over the ranks k at or above the
 * result's, of p(k) * m / k, at most 1. Returns m. A result whose
 * least_p is not below alpha can never be significant at alpha, and
 * whether it is depends on its samples' total, not on their split, so it
 * is left out of m (Tarone's rule, which Gilbert showed keeps Benjamini
 * and Hochberg's bound) and gets q 1. */
size_t signif_adjust(struct signif_result *r, size_t n, double alpha);

/* The smallest change that the test flags with probability 0.8 when its
 * standard error is se, on df degrees of freedom, and it is the only
 * change among m results adjusted together (m >= 1) and flagged at
 * q < alpha: Benjamini and Hochberg's procedure flags a lone change
 * when its p value is below alpha / m, which a change of
 * (t(1 - alpha / 2m, df) + t(0.8, df)) se reaches with probability 0.8
 * (the usual approximation, which neglects the opposite tail and the
 * noncentral t's skew). */
double signif_detectable(double se, double df, double alpha, size_t m);

/* The normal distribution function, and Student's t distribution function
 * with df degrees of freedom (df > 0; infinite df is the normal). */
double signif_normal_cdf(double z);
double signif_t_cdf(double t, double df);
/* The t with signif_t_cdf(t, df) = p, for 0 < p < 1. */
double signif_t_quantile(double p, double df);

/* The regularized incomplete beta function I_x(a, b), for a, b > 0 and
 * 0 <= x <= 1. */
double signif_beta_inc(double a, double b, double x);

#endif
