/*
 * test_top.c: the function table on profiles made by hand (self, total,
 * recursion, sorting, limits, the printed form) and on one built from a
 * trace in memory (grouping by image).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/profile.h"
#include "report/symbols/symbolize.h"
#include "report/output/top.h"

/* A profile of the given stacks, each "frame;frame;... COUNT" with the
 * root first; frames point into a copy of the text kept by the caller. */
struct fake {
	struct profile p;
	struct profile_stack st[16];
	const char *frames[16][16];
	char text[16][128];
};

static void fake(struct fake *f, const char *const *stacks)
{
	memset(f, 0, sizeof(*f));
	f->p.stacks = f->st;
	for (size_t i = 0; stacks[i]; i++) {
		char *s = f->text[i], *sp, *tok, *save;

		cr_assert_lt(i, 16);
		snprintf(s, sizeof(f->text[i]), "%s", stacks[i]);
		sp = strrchr(s, ' ');
		cr_assert_not_null(sp);
		*sp = 0;
		f->st[i].count = strtoull(sp + 1, NULL, 10);
		f->st[i].frames = f->frames[i];
		for (tok = strtok_r(s, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
			f->frames[i][f->st[i].nframes++] = tok;
		f->p.samples += f->st[i].count;
		f->p.nstacks++;
	}
}

static const struct top_row *row(const struct top *t, const char *name)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	cr_assert_fail("no row '%s'", name);
	return NULL;
}

/* The rows' names in order, space-separated. Caller frees. */
static char *order(const struct top *t)
{
	size_t n = 1;
	char *s;

	for (size_t i = 0; i < t->nrows; i++)
		n += strlen(t->rows[i].name) + 1;
	s = calloc(1, n);
	for (size_t i = 0; i < t->nrows; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, t->rows[i].name);
	}
	return s;
}

static const char *const basic[] = {
	"prog 1",           /* an empty stack: only the root */
	"prog;main;a 3",
	"prog;main;a;b 1",
	"prog;main;b 2",
	NULL,
};

Test(top, self_is_the_leaf_total_is_anywhere)
{
	struct fake f;
	struct top t;

	fake(&f, basic);
	top_build(&f.p, NULL, &t);
	cr_assert_eq(t.samples, 7);
	cr_assert_eq(t.nrows, 3); /* the root is no function */
	cr_assert_eq(row(&t, "main")->self, 0);
	cr_assert_eq(row(&t, "main")->total, 6);
	cr_assert_eq(row(&t, "a")->self, 3);
	cr_assert_eq(row(&t, "a")->total, 4);
	cr_assert_eq(row(&t, "b")->self, 3);
	cr_assert_eq(row(&t, "b")->total, 3);
	top_release(&t);
}

Test(top, recursion_counts_once_in_total)
{
	static const char *const rec[] = {
		"prog;f;g;f;g;f 2",
		"prog;f 1",
		"prog;h;f;h 4",
		NULL,
	};
	struct fake f;
	struct top t;

	fake(&f, rec);
	top_build(&f.p, NULL, &t);
	cr_assert_eq(row(&t, "f")->self, 3);
	cr_assert_eq(row(&t, "f")->total, 7);
	cr_assert_eq(row(&t, "g")->self, 0);
	cr_assert_eq(row(&t, "g")->total, 2);
	cr_assert_eq(row(&t, "h")->self, 4);
	cr_assert_eq(row(&t, "h")->total, 4);
	for (size_t i = 0; i < t.nrows; i++)
		cr_assert_leq(t.rows[i].total, t.samples);
	top_release(&t);
}

Test(top, sorts_by_self_total_or_name_ties_by_name)
{
	struct fake f;
	struct top t;
	char *s;

	fake(&f, basic);
	top_build(&f.p, &(struct top_opts){ .sort = TOP_SORT_SELF, .skip = 1 }, &t);
	s = order(&t);
	cr_assert_str_eq(s, "a b main"); /* a and b tie on self 3 */
	free(s);
	top_release(&t);
	top_build(&f.p, &(struct top_opts){ .sort = TOP_SORT_TOTAL, .skip = 1 }, &t);
	s = order(&t);
	cr_assert_str_eq(s, "main a b");
	free(s);
	top_release(&t);
	top_build(&f.p, &(struct top_opts){ .sort = TOP_SORT_NAME, .skip = 1 }, &t);
	s = order(&t);
	cr_assert_str_eq(s, "a b main");
	free(s);
	top_release(&t);
}

Test(top, skips_thread_frames)
{
	static const char *const th[] = {
		"prog;main [1];a 2",
		"prog;worker [2];a;main 1",
		NULL,
	};
	struct fake f;
	struct top t;
	char *s;

	fake(&f, th);
	top_build(&f.p, &(struct top_opts){ .skip = 2 }, &t);
	s = order(&t);
	/* "main" here is the function, not the thread frame "main [1]". */
	cr_assert_str_eq(s, "a main");
	free(s);
	cr_assert_eq(row(&t, "a")->total, 3);
	cr_assert_eq(row(&t, "main")->self, 1);
	top_release(&t);
}

Test(top, lines_are_names_with_their_place)
{
	static const char *const lines[] = {
		"prog;main (m.c:9);f (f.c:3) 2",
		"prog;main (m.c:9);f (f.c:4) 1",
		"prog;main (m.c:10);f (f.c:3) 5",
		NULL,
	};
	struct fake f;
	struct top t;
	char *s;

	fake(&f, lines);
	top_build(&f.p, NULL, &t);
	s = order(&t);
	cr_assert_str_eq(s, "f (f.c:3) f (f.c:4) main (m.c:10) main (m.c:9)");
	free(s);
	cr_assert_eq(row(&t, "f (f.c:3)")->self, 7);
	cr_assert_eq(row(&t, "main (m.c:9)")->total, 3);
	top_release(&t);
}

/* Writes t to a string with top_write(). Caller frees. */
static char *written(const struct top *t, size_t limit, const char *heading, const char *noun)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	cr_assert_not_null(f);
	cr_assert_eq(top_write(f, t, limit, heading, noun), 0);
	cr_assert_eq(fclose(f), 0);
	return s;
}

Test(top, writes_the_table_and_limits_it)
{
	struct fake f;
	struct top t;
	char *s;

	fake(&f, basic);
	top_build(&f.p, NULL, &t);
	s = written(&t, 0, "FUNCTION", "function");
	cr_assert_str_eq(s,
		" SELF%  TOTAL%       SELF      TOTAL  FUNCTION\n"
		" 42.9%   57.1%          3          4  a\n"
		" 42.9%   42.9%          3          3  b\n"
		"  0.0%   85.7%          0          6  main\n"
		"7 samples, 3 functions\n");
	free(s);
	s = written(&t, 2, "FUNCTION", "function");
	cr_assert_str_eq(s,
		" SELF%  TOTAL%       SELF      TOTAL  FUNCTION\n"
		" 42.9%   57.1%          3          4  a\n"
		" 42.9%   42.9%          3          3  b\n"
		"7 samples, 3 functions, 2 shown\n");
	free(s);
	/* A limit past the end shows everything and says nothing of it. */
	s = written(&t, 10, "FUNCTION", "function");
	cr_assert(strstr(s, "7 samples, 3 functions\n"));
	free(s);
	top_release(&t);
}

Test(top, escapes_names_and_handles_no_samples)
{
	static const char *const odd[] = { "prog;a\033[2Jb 1", NULL };
	struct fake f;
	struct top t;
	char *s;

	fake(&f, odd);
	top_build(&f.p, NULL, &t);
	s = written(&t, 0, "FUNCTION", "function");
	cr_assert(strstr(s, "  a\\x1b[2Jb\n"), "%s", s);
	cr_assert(strstr(s, "1 sample, 1 function\n"), "%s", s);
	free(s);
	top_release(&t);

	fake(&f, (const char *const[]){ NULL });
	top_build(&f.p, NULL, &t);
	s = written(&t, 0, "IMAGE", "image");
	cr_assert_str_eq(s, " SELF%  TOTAL%       SELF      TOTAL  IMAGE\n0 samples, 0 images\n");
	free(s);
	top_release(&t);
}

/*
 * Grouping by image needs the frame info of a real profile: two images with
 * no files behind them, so frames are IMAGE+0xOFFSET, and an address in
 * neither.
 *   node 1: 0x1100                      (app)
 *   node 2: 0x1100 -> 0x5100            (app -> lib)
 *   node 3: 0x1100 -> 0x5100 -> 0x1200  (app -> lib -> app)
 *   node 4: 0x1100 -> 0x9000            (app -> nowhere)
 */
static struct trace_node nodes[] = {
	{ 0, 0 }, { 0x1100, 0 }, { 0x5100, 1 }, { 0x1200, 2 }, { 0x9000, 1 },
};
static struct trace_name names[] = { { 0, "main" } };
static struct trace_thread threads[] = { { 10, 0, 0, 1, names, 0 } };
static struct trace_sample samples[] = {
	{ 100, 10, 2, TRACE_STATE_RUNNING, 0 , 0 },
	{ 110, 10, 3, TRACE_STATE_RUNNING, 0 , 0 },
	{ 120, 10, 3, TRACE_STATE_RUNNING, 0 , 0 },
	{ 130, 10, 4, TRACE_STATE_RUNNING, 0 , 0 },
	{ 140, 10, 1, TRACE_STATE_RUNNING, 0 , 0 },
};
static struct trace_image images[] = {
	{ .id = 1, .path = "/nonexistent/app", .start = 0x1000, .size = 0x1000, .bias = 0x1000 },
	{ .id = 2, .path = "/nonexistent/libx.so", .start = 0x5000, .size = 0x1000, .bias = 0x5000 },
};
static char *argv0[] = { "/nonexistent/app" };

Test(top, groups_by_image_once_per_stack)
{
	struct trace tr;
	struct symbolize *sym;
	struct stacks *st;
	struct profile *p;
	struct top t;
	char *s;

	memset(&tr, 0, sizeof(tr));
	tr.session.argc = 1;
	tr.session.argv = argv0;
	tr.nimages = 2;
	tr.images = images;
	tr.nthreads = 1;
	tr.threads = threads;
	tr.nnodes = sizeof(nodes) / sizeof(nodes[0]);
	tr.nodes = nodes;
	tr.nsamples = sizeof(samples) / sizeof(samples[0]);
	tr.samples = samples;
	sym = symbolize_new(&tr, &(struct symbolize_opts){ .debug_root = "",
				   .debuginfod_cache = "" });
	st = stacks_new(&tr, sym);
	p = profile_build(st, &(struct profile_opts){ 0 });
	top_build(p, &(struct top_opts){ .group = TOP_GROUP_IMAGE, .skip = 1 }, &t);
	s = order(&t);
	cr_assert_str_eq(s, "app [anon] libx.so"); /* ties bytewise: "[" < "l" */
	free(s);
	/* app is in every stack, twice in two of them: 5 in total, not 7. */
	cr_assert_eq(row(&t, "app")->self, 3);
	cr_assert_eq(row(&t, "app")->total, 5);
	cr_assert_eq(row(&t, "libx.so")->self, 1);
	cr_assert_eq(row(&t, "libx.so")->total, 3);
	cr_assert_eq(row(&t, "[anon]")->self, 1);
	cr_assert_eq(row(&t, "[anon]")->total, 1);
	top_release(&t);
	profile_free(p);
	stacks_free(st);
	symbolize_free(sym);
}

/*
 * Code no file holds, in a trace in memory: app's main calls into JIT
 * code and anonymous memory.
 *   0x1100 -> 0x9010                     (a code range names it)
 *   0x1100 -> 0x9010 -> 0xa020           (JIT code calls anonymous code)
 *   0x1100 -> 0xa030, 0x1100 -> 0xa040   (two unnamed addresses)
 *   0x1100 -> 0x7010                     (an image of perf_event's "//anon")
 */
static struct trace_node jit_nodes[] = {
	{ 0, 0 }, { 0x1100, 0 }, { 0x9010, 1 }, { 0xa020, 2 }, { 0xa030, 1 }, { 0xa040, 1 }, { 0x7010, 1 },
};
static struct trace_sample jit_samples[] = {
	{ 100, 10, 2, TRACE_STATE_RUNNING, 0, 0 },
	{ 110, 10, 3, TRACE_STATE_RUNNING, 0, 0 },
	{ 120, 10, 4, TRACE_STATE_RUNNING, 0, 0 },
	{ 130, 10, 5, TRACE_STATE_RUNNING, 0, 0 },
	{ 140, 10, 5, TRACE_STATE_RUNNING, 0, 0 },
	{ 150, 10, 6, TRACE_STATE_RUNNING, 0, 0 },
};
static struct trace_image jit_images[] = {
	{ .id = 1, .path = "/nonexistent/app", .start = 0x1000, .size = 0x1000, .bias = 0x1000 },
	{ .id = 2, .path = "//anon", .start = 0x7000, .size = 0x1000 },
};
static struct trace_code jit_code[] = {
	{ 0, 0x9000, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*hot", NULL, 0 },
};

/* By image, code a code range names is [jit] and other code no file holds
 * [anon], an image of anonymous memory too; by function, the unnamed
 * addresses of anonymous memory are one row, [anon], but with addresses
 * asked for, and a frame a code range names keeps its own row. */
Test(top, code_no_file_holds_is_jit_or_anon)
{
	struct trace tr;
	struct symbolize *sym;
	struct stacks *st;
	struct profile *p;
	struct top t;
	char *s;

	memset(&tr, 0, sizeof(tr));
	tr.session.argc = 1;
	tr.session.argv = argv0;
	tr.nimages = 2;
	tr.images = jit_images;
	tr.ncode = 1;
	tr.code = jit_code;
	tr.code_max_size = 0x100;
	tr.nthreads = 1;
	tr.threads = threads;
	tr.nnodes = sizeof(jit_nodes) / sizeof(jit_nodes[0]);
	tr.nodes = jit_nodes;
	tr.nsamples = sizeof(jit_samples) / sizeof(jit_samples[0]);
	tr.samples = jit_samples;
	sym = symbolize_new(&tr, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "" });
	st = stacks_new(&tr, sym);
	p = profile_build(st, &(struct profile_opts){ 0 });

	top_build(p, &(struct top_opts){ .group = TOP_GROUP_IMAGE, .skip = 1 }, &t);
	s = order(&t);
	cr_assert_str_eq(s, "[anon] [jit] app");
	free(s);
	cr_assert_eq(row(&t, "[jit]")->self, 1);
	cr_assert_eq(row(&t, "[jit]")->total, 2);
	cr_assert_eq(row(&t, "[anon]")->self, 5);
	cr_assert_eq(row(&t, "[anon]")->total, 5);
	cr_assert_eq(row(&t, "app")->total, 6);
	top_release(&t);

	top_build(p, &(struct top_opts){ .skip = 1, .merge_anon = 1 }, &t);
	cr_assert_eq(row(&t, TOP_ANON)->self, 5, "0xa020, 0xa030, 0xa040 twice, and the //anon image's");
	cr_assert_eq(row(&t, TOP_ANON)->total, 5);
	/* main's address, the JIT frame (as the code range names it) and
	 * [anon] */
	cr_assert_eq(t.nrows, 3, "%zu rows", t.nrows);
	cr_assert_eq(t.rows[1].self, 1);
	cr_assert_eq(t.rows[1].total, 2);
	cr_assert_str_neq(t.rows[1].name, TOP_ANON);
	top_release(&t);

	/* without merge_anon (diff's tables, top --addresses): each
	 * address its own row */
	top_build(p, &(struct top_opts){ .skip = 1 }, &t);
	cr_assert_eq(t.nrows, 6);
	top_release(&t);
	profile_free(p);
	stacks_free(st);
	symbolize_free(sym);
}
