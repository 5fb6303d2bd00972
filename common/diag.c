/*
 * diag.c: the program's voice on stderr, and allocation that cannot fail.
 *
 * Every message goes through one place so that they all share the git-like
 * "prog: message" shape, starting on a line of its own (a status line of
 * common/progress.h is cleared first), and so that out-of-memory is
 * handled once rather than at every call site.
 */
#include "diag.h"
#include "progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *progname = "prof";

void diag_set_progname(const char *name) { progname = name; }
const char *diag_progname(void) { return progname; }

static diag_hook_fn *hook;
static void *hook_ctx;

void diag_set_hook(diag_hook_fn *fn, void *ctx)
{
	hook = fn;
	hook_ctx = ctx;
}

/* The message goes to stderr, and to the hook as one string. */
static void vreport_code(const char *prefix, const char *code, const char *fmt, va_list ap, int errnum)
{
	va_list copy;

	va_copy(copy, ap);
	progress_clear_shown();
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
	if (hook) {
		char msg[1024];
		int n = vsnprintf(msg, sizeof(msg), fmt, copy);

		if (errnum && n >= 0 && (size_t)n < sizeof(msg))
			snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", strerror(errnum));
		hook(hook_ctx, *prefix ? DIAG_WARNING : DIAG_ERROR, code, msg);
	}
	va_end(copy);
}

static void vreport(const char *prefix, const char *fmt, va_list ap, int errnum)
{
	vreport_code(prefix, *prefix ? "warning" : "error", fmt, ap, errnum);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void die_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, e);
	va_end(ap);
	exit(1);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, e);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void warning_code(const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport_code("warning: ", code, fmt, ap, 0);
	va_end(ap);
}

void diag_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	progress_clear_shown();
	fprintf(stderr, "%s: BUG at %s:%d: ", progname, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void *check(void *p, size_t n)
{
	if (!p && n)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1), n); }
void *xcalloc(size_t nmemb, size_t size)
{
	return check(calloc(nmemb ? nmemb : 1, size ? size : 1), nmemb * size);
}
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1), n); }

void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap;
	if (need <= c)
		return p;
	if (c < 8)
		c = 8;
	while (c < need) {
		if (c > (size_t)-1 / 2 / elem)
			die("out of memory growing an array to %zu elements", need);
		c *= 2;
	}
	*cap = c;
	return xrealloc(p, c * elem);
}

char *xstrdup(const char *s) { return check(strdup(s), strlen(s) + 1); }
char *xstrndup(const char *s, size_t n) { return check(strndup(s, n), n + 1); }

char *xasprintf(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory formatting a string");
	va_end(ap);
	return s;
}

void diag_close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		die_errno("cannot write to standard output");
	if (fclose(stdout) != 0)
		die_errno("cannot write to standard output");
}
