/*
 * test_thread_table.c: the per-thread table on a trace built by hand in
 * memory: counts, states, order and lifetimes.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "report/profile.h"
#include "report/thread_table.h"

/* Stacks (leaf last): node 1 main, node 2 main -> a, node 3 main -> b. */
static struct trace_node nodes[] = {
	{ 0, 0 }, { 0x1100, 0 }, { 0x1200, 1 }, { 0x1300, 1 }, { 0x9000, 1 },
};
static struct trace_name names1[] = { { 0, "main" } };
static struct trace_name names2[] = { { 0, "worker" }, { 500, "re;named" } };
static struct trace_thread threads[] = {
	{ 10, 0, 0, 1, names1 },
	{ 11, 0, 900, 2, names2 },
};
static struct trace_sample samples[] = {
	{ 100, 10, 2, TRACE_STATE_RUNNING, 0 },
	{ 110, 11, 3, TRACE_STATE_SLEEPING, 0 },
	{ 120, 10, 2, TRACE_STATE_RUNNING, 0 },
	{ 130, 11, 2, TRACE_STATE_RUNNING, 0 },
	{ 600, 11, 3, TRACE_STATE_DISK, 0 },
	{ 700, 10, 4, TRACE_STATE_UNKNOWN, TRACE_SAMPLE_TRUNCATED },
	{ 800, 10, 0, TRACE_STATE_RUNNING, 0 },
};
static char *argv0[] = { "/usr/bin/myprog", "--flag" };

static struct trace_image image = {
	.id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4,
	.ident = { 1, 2, 3, 4 }, .path = "/nonexistent/libfake.so",
	.start = 0x1000, .size = 0x1000, .bias = 0x1000,
};

static void make_trace(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->session.pid = 4242;
	t->session.argc = 2;
	t->session.argv = argv0;
	t->nimages = 1;
	t->images = &image;
	t->nthreads = 2;
	t->threads = threads;
	t->nnodes = sizeof(nodes) / sizeof(nodes[0]);
	t->nodes = nodes;
	t->nsamples = sizeof(samples) / sizeof(samples[0]);
	t->samples = samples;
}

Test(thread_table, counts_and_order)
{
	struct trace t;
	struct thread_table_opts o = { 0 };
	struct thread_table tt;

	make_trace(&t);
	cr_assert_eq(thread_table_build(&t, &o, &tt), 0);
	cr_assert_eq(tt.nrows, 2);
	cr_assert_eq(tt.samples, 7);
	cr_assert_eq(tt.rows[0].tid, 10);
	cr_assert_eq(tt.rows[0].samples, 4);
	cr_assert_eq(tt.rows[0].running, 3);
	cr_assert_eq(tt.rows[0].waiting, 0);
	cr_assert_eq(tt.rows[0].first, 100);
	cr_assert_eq(tt.rows[0].last, 800);
	cr_assert_eq(tt.rows[1].tid, 11);
	cr_assert_str_eq(tt.rows[1].name, "re;named");
	cr_assert_eq(tt.rows[1].samples, 3);
	cr_assert_eq(tt.rows[1].running, 1);
	cr_assert_eq(tt.rows[1].waiting, 2);
	cr_assert_eq(tt.rows[1].end, 900);
	thread_table_release(&tt);
}
