/*
 * jit_darwin.c: on macOS, no perf map or jitdump is followed (jit.h):
 * the updates record nothing.
 */
#include "jit.h"

#include "common/diag.h"

#include <stdlib.h>

struct jit {
	int unused;
};

struct jit *jit_new(struct target *t, uint32_t process, uint64_t started)
{
	(void)t;
	(void)process;
	(void)started;
	return xcalloc(1, sizeof(struct jit));
}

void jit_add_stats(const struct jit *j, struct jit_stats *st)
{
	(void)j;
	(void)st;
}

void jit_free(struct jit *j)
{
	free(j);
}

int jit_update(struct jit *j, struct images *im, struct trace_writer *w, uint64_t now, int last)
{
	(void)j;
	(void)im;
	(void)w;
	(void)now;
	(void)last;
	return 0;
}
