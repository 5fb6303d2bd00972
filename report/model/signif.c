/*
 * signif.c: the statistics of 'prof-report diff', in plain C and libm.
 *
 * Student's t distribution function is the regularized incomplete beta
 * function, I_x(df/2, 1/2) at x = df / (df + t^2) for the two tails,
 * which is evaluated by its continued fraction (modified Lentz) where that
 * converges fast, for x below (a + 1) / (a + b + 2), and through the
 * symmetry I_x(a, b) = 1 - I_(1-x)(b, a) above. The t quantile of an
 * interval is found by bisection on the distribution function, which is
 * monotone: a few dozen halvings reach double precision, and an interval
 * needs one per item.
 */
#include "report/model/signif.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "common/diag.h"

double signif_normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* The continued fraction of I_x(a, b), without its prefactor. */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		double step;

		d = 1 + even * d;
		c = 1 + even / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		d = 1 + odd * d;
		c = 1 + odd / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		step = d * c;
		h *= step;
		if (fabs(step - 1) < 4 * DBL_EPSILON)
			break;
	}
	return h;
}

double signif_beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x > (a + 1) / (a + b + 2))
		return 1 - signif_beta_inc(b, a, 1 - x);
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	return front * beta_fraction(a, b, x) / a;
}

double signif_t_cdf(double t, double df)
{
	double tail;

	if (isinf(df))
		return signif_normal_cdf(t);
	tail = 0.5 * signif_beta_inc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double signif_t_quantile(double p, double df)
{
	double lo = -1e9, hi = 1e9;

	for (int i = 0; i < 200 && lo < hi; i++) {
		double mid = lo / 2 + hi / 2;

		if (mid == lo || mid == hi)
			break;
		if (signif_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return lo / 2 + hi / 2;
}

double signif_detectable(double se, double df, double alpha, size_t m)
{
	/* the upper quantiles from the lower tail, where the far ones are
	 * exact */
	return -(signif_t_quantile(alpha / (2 * (double)m), df) + signif_t_quantile(0.2, df)) * se;
}

static double side_mean(const struct signif_side *s)
{
	double x = 0, e = 0;

	for (size_t i = 0; i < s->n; i++)
		x += s->x[i], e += s->e[i];
	return x / e;
}

/* The variance of a side's value, and its degrees of freedom: the
 * model's at the value m (known: infinite degrees), or the one between
 * the runs about their mean if that is larger. */
static double side_var(int model, const struct signif_side *s, double m, double mean, double *df)
{
	double e = 0, between = 0, model_var, n = (double)s->n;

	for (size_t i = 0; i < s->n; i++)
		e += s->e[i];
	for (size_t i = 0; i < s->n; i++) {
		double w = s->e[i] / e * (s->x[i] / s->e[i] - mean);

		between += w * w;
	}
	model_var = (model == SIGNIF_SHARE ? m * (1 - m) : m) / e;
	between = s->n > 1 ? between * n / (n - 1) : 0;
	*df = between > model_var ? n - 1 : INFINITY;
	return between > model_var ? between : model_var;
}

/* Welch and Satterthwaite's degrees of freedom of the sum of v1 and v2. */
static double welch_df(double v1, double df1, double v2, double df2)
{
	double den = (isinf(df1) ? 0 : v1 * v1 / df1) + (isinf(df2) ? 0 : v2 * v2 / df2);

	return den > 0 ? (v1 + v2) * (v1 + v2) / den : INFINITY;
}

/* The smallest p value that k samples of the item could give, split
 * between exposures eb and en as unevenly as they allow (a share has at
 * most all of a side's samples), in the model's test: the side variances
 * that any run-to-run or paired variance may raise, and the normal that
 * any t widens, only make p larger, so no test of those samples is
 * below it. */
static double least_p(int model, double k, double eb, double en)
{
	double pooled = k / (eb + en), least = 1;
	double v = (model == SIGNIF_SHARE ? pooled * (1 - pooled) : pooled) * (1 / eb + 1 / en);

	for (int side = 0; side < 2 && v > 0; side++) {
		double here = side ? en : eb, there = side ? eb : en;
		double x = model == SIGNIF_SHARE && k > here ? here : k;
		double p = 2 * signif_normal_cdf(-fabs(x / here - (k - x) / there) / sqrt(v));

		if (p < least)
			least = p;
	}
	return least;
}

/* The test of base against new, with the variance of the change at
 * least floor, on floor_df degrees of freedom where that is the larger. */
static void compare(int model, const struct signif_side *base, const struct signif_side *new,
		    double floor, double floor_df, struct signif_result *r)
{
	double xs = 0, es = 0, eb = 0, pooled, vb, vn, dfb, dfn, df, v;

	for (size_t i = 0; i < base->n; i++)
		xs += base->x[i], eb += base->e[i];
	es = eb;
	for (size_t i = 0; i < new->n; i++)
		xs += new->x[i], es += new->e[i];
	pooled = es > 0 ? xs / es : 0;
	r->least_p = least_p(model, xs, eb, es - eb);
	r->base = side_mean(base);
	r->new = side_mean(new);
	r->change = r->new - r->base;

	vb = side_var(model, base, pooled, r->base, &dfb);
	vn = side_var(model, new, pooled, r->new, &dfn);
	v = vb + vn;
	df = welch_df(vb, dfb, vn, dfn);
	if (floor > v)
		v = floor, df = floor_df;
	r->p = v > 0 ? 2 * signif_t_cdf(-fabs(r->change) / sqrt(v), df) : 1;
	if (r->p > 1)
		r->p = 1;
	r->q = r->p;

	vb = side_var(model, base, r->base, r->base, &dfb);
	vn = side_var(model, new, r->new, r->new, &dfn);
	v = vb + vn;
	df = welch_df(vb, dfb, vn, dfn);
	if (floor > v)
		v = floor, df = floor_df;
	r->se = sqrt(v);
	r->df = df;
	v = signif_t_quantile(0.975, df) * r->se;
	r->lo = r->change - v;
	r->hi = r->change + v;
}

void signif_compare(int model, const struct signif_side *base, const struct signif_side *new,
		    struct signif_result *r)
{
	compare(model, base, new, 0, INFINITY, r);
}

void signif_compare_paired(int model, const struct signif_side *base,
			   const struct signif_side *new, struct signif_result *r)
{
	double xb = 0, eb = 0, xn = 0, en = 0, mean = 0, paired = 0, n = (double)base->n;
	struct signif_side b = { &xb, &eb, 1 }, w = { &xn, &en, 1 };

	for (size_t i = 0; i < base->n; i++) {
		xb += base->x[i], eb += base->e[i];
		xn += new->x[i], en += new->e[i];
		mean += new->x[i] / new->e[i] - base->x[i] / base->e[i];
	}
	mean /= n;
	for (size_t i = 0; i < base->n; i++) {
		double d = new->x[i] / new->e[i] - base->x[i] / base->e[i] - mean;

		paired += d * d;
	}
	compare(model, &b, &w, paired / ((n - 1) * n), n - 1, r);
}

static int cmp_p(const void *a, const void *b)
{
	const struct signif_result *x = *(const struct signif_result *const *)a;
	const struct signif_result *y = *(const struct signif_result *const *)b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x < y ? -1 : x > y;
}

size_t signif_adjust(struct signif_result *r, size_t n, double alpha)
{
	struct signif_result **by_p = xcalloc(n + 1, sizeof(*by_p));
	double least = 1;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		r[i].q = 1;
		if (r[i].least_p < alpha)
			by_p[m++] = &r[i];
	}
	qsort(by_p, m, sizeof(*by_p), cmp_p);
	for (size_t k = m; k > 0; k--) {
		double q = by_p[k - 1]->p * (double)m / (double)k;

		if (q < least)
			least = q;
		by_p[k - 1]->q = least;
	}
	free(by_p);
	return m;
}
