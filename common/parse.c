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
#include <string.h>

int parse_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_uint(const char *arg, uint64_t min, uint64_t max, uint64_t *v, char *why)
{
	char *end;
	unsigned long long n;

	snprintf(why, PARSE_WHY_MAX, "is not a number");
	if (!isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	n = strtoull(arg, &end, 10);
	if (*end)
		return -1;
	if (errno == ERANGE || n < min || n > max) {
		snprintf(why, PARSE_WHY_MAX, "is out of range (%llu to %llu)",
			 (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*v = n;
	return 0;
}

/* The non-negative decimal number arg begins with: returns 0 and sets *d,
 * and *end past it, or returns -1. */
static int leading_number(const char *arg, double *d, char **end)
{
	if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
		return -1;
	errno = 0;
	*d = strtod(arg, end);
	return *end == arg || errno == ERANGE || !isfinite(*d) ? -1 : 0;
}

int parse_decimal(const char *arg, double max, double *v, char *why)
{
	char *end;
	double d;

	snprintf(why, PARSE_WHY_MAX, "is not a number");
	if (leading_number(arg, &d, &end) < 0 || *end)
		return -1;
	if (d > max) {
		snprintf(why, PARSE_WHY_MAX, "is too large (at most %g)", max);
		return -1;
	}
	*v = d;
	return 0;
}

int parse_scaled(const char *arg, const struct parse_unit *units, double max, uint64_t *v, int *unit,
		 char *why)
{
	char *end;
	double d;

	snprintf(why, PARSE_WHY_MAX, "is not a number and a unit");
	if (leading_number(arg, &d, &end) < 0)
		return -1;
	for (int i = 0; units[i].name; i++) {
		if (strcmp(end, units[i].name))
			continue;
		if (d * units[i].scale > max) {
			snprintf(why, PARSE_WHY_MAX, "is too large (at most %g%s)", max / units[i].scale,
				 units[i].name);
			return -1;
		}
		*v = (uint64_t)(d * units[i].scale);
		*unit = i;
		return 0;
	}
	return -1;
}

static void DIAG_NORETURN bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "%s: option '%s': '%s' %s\n", diag_progname(), opt, arg, why);
	exit(2);
}

uint64_t parse_uint_opt(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	char why[PARSE_WHY_MAX];
	uint64_t v;

	if (parse_uint(arg, min, max, &v, why) < 0)
		bad(opt, arg, why);
	return v;
}

double parse_decimal_opt(const char *opt, const char *arg, double max)
{
	char why[PARSE_WHY_MAX];
	double v;

	if (parse_decimal(arg, max, &v, why) < 0)
		bad(opt, arg, why);
	return v;
}

uint64_t parse_seconds_opt(const char *opt, const char *arg, double max)
{
	return (uint64_t)(parse_decimal_opt(opt, arg, max) * 1e9);
}
