/*
 * perfmap.h: a runtime's perf map (/tmp/perf-PID.map), parsed from bytes.
 *
 * Runtimes that compile code as they run (V8, the JVM's JVMTI libraries, .NET,
 * LuaJIT, wasmtime, CPython 3.12's trampolines) append a line per piece of
 * code to this file, as perf reads it:
 *
 *   START SIZE NAME
 *
 * START and SIZE in hex (an "0x" before either is taken too), one or more
 * spaces or tabs between the fields, NAME the rest of the line (spaces
 * and all, a trailing carriage return dropped). The file grows while the
 * runtime runs, a line at a time, and may be rewritten from its start.
 *
 * This module never touches the OS: it is fed the file's bytes as they
 * are read (record/jit_linux.c reads them) and keeps no more than one
 * line's state between calls, so the reader can take what was appended
 * since its last look. A line is taken only once its newline is there:
 * the last line of a file being written may be half of one. A line longer
 * than PERFMAP_LINE_MAX is skipped to its newline whatever it holds, and
 * a name longer than PERFMAP_NAME_MAX is cut (at a character's start).
 * Malformed lines (a field missing or not hex, a size of 0 or past
 * PERFMAP_SIZE_MAX, a range past 2^64, no name, a NUL byte) are counted
 * and skipped.
 */
#ifndef RECORD_PERFMAP_H
#define RECORD_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

/* The longest line read, newline included; a longer one is skipped. */
#define PERFMAP_LINE_MAX (1u << 20)
/* The bytes of a name kept: a longer one is cut to at most this many. */
#define PERFMAP_NAME_MAX 4096u
/* The largest range taken: no runtime compiles a gigabyte of code at
 * once, and a range that large would make every lookup of an address
 * below it walk back over all the others (trace_code_at()). */
#define PERFMAP_SIZE_MAX (1ull << 30)

/* One line: a range of code and its name, borrowed from the bytes fed
 * (not NUL-terminated: name_len bytes, 1 to PERFMAP_NAME_MAX). */
struct perfmap_entry {
	uint64_t start, size;     /* size > 0, start + size <= 2^64 */
	const char *name;
	size_t name_len;
	int cut;                  /* the name was longer, and cut */
};

/* The state kept between calls: where the parse is in the file. */
struct perfmap {
	int skipping;             /* in a line past PERFMAP_LINE_MAX, to its newline */
	uint64_t lines;           /* whole lines taken, good or bad */
	uint64_t bad;             /* of them, malformed or too long */
	uint64_t cut;             /* names cut to PERFMAP_NAME_MAX */
};

/* Begins a parse at the file's start (after a truncation too). */
void perfmap_init(struct perfmap *m);

/* Parses one line of n bytes (no newline): returns 1 with *e set, or 0
 * if it is malformed. Counts nothing. */
int perfmap_line(const char *line, size_t n, struct perfmap_entry *e);

/* Takes the whole lines of the n bytes at p, the file's bytes from where
 * the last call left off: calls cb for each well-formed one, in order,
 * stopping early if cb returns non-zero. Returns the bytes consumed (each
 * line with its newline; what follows the last newline is left for the
 * next call, as it may be half of a line, unless it is longer than
 * PERFMAP_LINE_MAX, in which case it is consumed and the line skipped to
 * its newline). The caller moves its offset on by that much and feeds
 * the rest again with what follows it. */
size_t perfmap_feed(struct perfmap *m, const char *p, size_t n,
		    int (*cb)(void *ctx, const struct perfmap_entry *e), void *ctx);

#endif
