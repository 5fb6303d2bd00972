/*
 * codename.h: the names runtimes give the code they compile (in a perf
 * map or a jitdump, kept in the trace's code records), as the report
 * shows them.
 *
 * perf shows such a name as the runtime wrote it. V8's carry a kind, the
 * tier that compiled the code and where the function is:
 *
 *   JS:*fib /home/me/fib.js:3:13        (Node.js 20: JS:, then ~ ^ + or *)
 *   LazyCompile:~fib /home/me/fib.js:3  (older V8: LazyCompile:, Function:,
 *                                        Script:, Eval:)
 *
 * Shown as written, one function is as many names as it had tiers and
 * locations. The report shows the function instead, as a JavaScript
 * profiler does (samply, Chrome's DevTools): the kind and the tier are
 * trimmed, and the location becomes the frame's file and line (shown
 * with --lines; the column is dropped), so "JS:*fib /home/me/fib.js:3:13"
 * is "fib" in fib.js at line 3, and a function with no name (V8 writes
 * none for an anonymous one) is "(anonymous)". CPython 3.12's trampolines,
 * "py::fib:/home/me/fib.py", are "fib" in fib.py. Every other name (V8's
 * Builtin:, Stub: and RegExp: code, the JVM's, .NET's, LuaJIT's) is shown
 * as written.
 */
#ifndef REPORT_CODENAME_H
#define REPORT_CODENAME_H

#include <stddef.h>
#include <stdint.h>

struct codename {
	const char *name;   /* borrowed from the raw name: name_len bytes, or
	                     * "(anonymous)" */
	size_t name_len;
	const char *file;   /* borrowed likewise, file_len bytes; NULL if the
	                     * name gives no location */
	size_t file_len;
	uint32_t line;      /* 0 if it gives none */
	int js;             /* V8's JavaScript, by its kind */
};

/* Reads raw, a runtime's name for a range of code, into *out. */
void codename_parse(const char *raw, struct codename *out);

#endif
