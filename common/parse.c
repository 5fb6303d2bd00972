/*
 * parse.c: the one place where numbers on a command line become values, so
 * every option rejects junk, signs and overflow the same way.
 */
#include "parse.h"
#include "diag.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void DIAG_NORETURN bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "%s: option '%s': '%s' %s\n", diag_progname(), opt, arg, why);
	exit(2);
}

uint64_t parse_uint_opt(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)arg[0]))
		bad(opt, arg, "is not a number");
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end)
		bad(opt, arg, "is not a number");
	if (errno == ERANGE || v < min || v > max) {
		char why[96];
		snprintf(why, sizeof(why), "is out of range (%llu to %llu)",
			 (unsigned long long)min, (unsigned long long)max);
		bad(opt, arg, why);
	}
	return v;
}

double parse_decimal_opt(const char *opt, const char *arg, double max)
{
	char *end;
	double v;

	if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
		bad(opt, arg, "is not a number");
	errno = 0;
	v = strtod(arg, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		bad(opt, arg, "is not a number");
	if (v > max) {
		char why[64];
		snprintf(why, sizeof(why), "is too large (at most %g)", max);
		bad(opt, arg, why);
	}
	return v;
}

uint64_t parse_seconds_opt(const char *opt, const char *arg, double max)
{
	return (uint64_t)(parse_decimal_opt(opt, arg, max) * 1e9);
}
