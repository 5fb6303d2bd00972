/*
 * diag.h: diagnostics and allocation that cannot fail.
 *
 * Messages look like git's: "prog: message", lowercase, no full stop.
 * A status line on the terminal (common/progress.h) is cleared first.
 * Only programs (main, cmd_*) call die(); library code returns errors.
 */
#ifndef COMMON_DIAG_H
#define COMMON_DIAG_H

#include <stddef.h>
#include <stdarg.h>

#define DIAG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DIAG_NORETURN __attribute__((noreturn))

/* Sets the name that prefixes every message (default "prof"). Borrowed for
 * the life of the program. */
void diag_set_progname(const char *name);
const char *diag_progname(void);

/* Prints "prog: msg" to stderr and exits 1. */
void die(const char *fmt, ...) DIAG_PRINTF(1, 2) DIAG_NORETURN;
/* As die(), with ": strerror(errno)" appended. */
void die_errno(const char *fmt, ...) DIAG_PRINTF(1, 2) DIAG_NORETURN;
/* Prints "prog: msg" to stderr and returns -1. */
int error(const char *fmt, ...) DIAG_PRINTF(1, 2);
/* As error(), with ": strerror(errno)" appended. */
int error_errno(const char *fmt, ...) DIAG_PRINTF(1, 2);
/* Prints "prog: warning: msg" to stderr. */
void warning(const char *fmt, ...) DIAG_PRINTF(1, 2);
/* As warning(), with a stable code ("rate-short") that the hook hears
 * with the message. */
void warning_code(const char *code, const char *fmt, ...) DIAG_PRINTF(2, 3);

/* What hears every error and warning, besides stderr: level, its code
 * ("error" and "warning" for those without one) and the message without
 * the program's name, borrowed for the call. A program that reports to a
 * machine sets one; NULL unsets it. */
enum diag_level { DIAG_ERROR, DIAG_WARNING };
typedef void diag_hook_fn(void *ctx, int level, const char *code, const char *msg);
void diag_set_hook(diag_hook_fn *fn, void *ctx);

/* An internal invariant broke: prints file:line and aborts. */
#define BUG(...) diag_bug(__FILE__, __LINE__, __VA_ARGS__)
void diag_bug(const char *file, int line, const char *fmt, ...) DIAG_PRINTF(3, 4) DIAG_NORETURN;

/* Allocation that dies on out-of-memory. The caller frees. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (of *cap elements of size elem) to hold at least need elements. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a heap string formatted like printf. The caller frees. */
char *xasprintf(const char *fmt, ...) DIAG_PRINTF(1, 2);

/* Flushes and checks stdout, dying with a clear message on a write error
 * (broken pipe, full disk). Call before exiting successfully. */
void diag_close_stdout(void);

#endif
