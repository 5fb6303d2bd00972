/*
 * hand_trace.h: the small trace built by hand in memory that the profile
 * and thread-table tests share. Include it once per test file.
 */
#ifndef TESTS_UNIT_HAND_TRACE_H
#define TESTS_UNIT_HAND_TRACE_H

#include <string.h>

#include "format/trace.h"

/*
 * One image "/nonexistent/libfake.so" at 0x1000-0x2000 with bias 0x1000 and
 * no file behind it, so frames are "libfake.so+0xOFF". Stacks (leaf last):
 *   node 1: 0x1100                 (main)
 *   node 2: 0x1100 -> 0x1200       (main -> a)
 *   node 3: 0x1100 -> 0x1300       (main -> b)
 *   node 4: 0x1100 -> 0x9000       (outside any image)
 */
static struct trace_node nodes[] = {
	{ 0, 0 }, { 0x1100, 0 }, { 0x1200, 1 }, { 0x1300, 1 }, { 0x9000, 1 },
};
static struct trace_name names1[] = { { 0, "main" } };
static struct trace_name names2[] = { { 0, "worker" }, { 500, "re;named" } };
static struct trace_thread threads[] = {
	{ 10, 0, 0, 1, names1, 0 },
	{ 11, 0, 900, 2, names2, 0 },
};
static struct trace_sample samples[] = {
	{ 100, 10, 2, TRACE_STATE_RUNNING, 0, 0 },
	{ 110, 11, 3, TRACE_STATE_SLEEPING, 0, 1 },
	{ 120, 10, 2, TRACE_STATE_RUNNING, 0, 0 },
	{ 130, 11, 2, TRACE_STATE_RUNNING, 0, 1 },
	{ 600, 11, 3, TRACE_STATE_DISK, 0, 1 },
	{ 700, 10, 4, TRACE_STATE_UNKNOWN, TRACE_SAMPLE_TRUNCATED, 0 },
	{ 800, 10, 0, TRACE_STATE_RUNNING, 0, 0 },
};
static char *argv0[] = { "/usr/bin/myprog", "--flag" };
static struct trace_exec exec0 = { 0, 2, argv0 };
static struct trace_process process0 = {
	.id = 1, .pid = 4242, .parent = TRACE_NO_PROCESS, .nexecs = 1, .execs = &exec0,
};

static struct trace_image image = {
	.id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4,
	.ident = { 1, 2, 3, 4 }, .path = "/nonexistent/libfake.so",
	.start = 0x1000, .size = 0x1000, .bias = 0x1000,
};

__attribute__((unused)) static void make_trace(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->session.pid = 4242;
	t->session.argc = 2;
	t->session.argv = argv0;
	t->nprocesses = 1;
	t->processes = &process0;
	t->nimages = 1;
	t->images = &image;
	t->nthreads = 2;
	t->threads = threads;
	t->nnodes = sizeof(nodes) / sizeof(nodes[0]);
	t->nodes = nodes;
	t->nsamples = sizeof(samples) / sizeof(samples[0]);
	t->samples = samples;
}

#endif
