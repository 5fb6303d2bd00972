/*
 * test_outer.c: completing walks cut at the stack copy with the outer
 * frames of their thread's last complete walks.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "record/outer.h"

/* A complete walk of thread 7: leaf in F (0x1000) at sp 0x100, then
 * callers at sps 0x140, 0x180, 0x1c0 (main) and 0x200 (_start). */
static const uint64_t walk_pc[] = { 0x1010, 0x2222, 0x3333, 0x4444, 0x5555 };
static const struct unwind_frame walk_f[] = {
	{ .sp = 0x100, .func = 0x1000, .exact = 1 },
	{ .sp = 0x140, .ra_at = 0x138, .func = 0x2000 },
	{ .sp = 0x180, .ra_at = 0x178, .func = 0x3000 },
	{ .sp = 0x1c0, .ra_at = 0x1b8, .func = 0x4000 },
	{ .sp = 0x200, .ra_at = 0x1f8, .func = 0x5000 },
};

Test(outer, joins_where_place_and_function_meet)
{
	struct outer *o = outer_new();
	uint64_t pc[8] = { 0x9999, 0x1020 };
	/* A walk cut in F, called from the same frame at 0x140 */
	struct unwind_frame last = { .sp = 0x110, .func = 0x1000, .next_sp = 0x140 };
	int whole;

	outer_keep(o, 7, walk_pc, walk_f, 5);
	size_t n = outer_join(o, 7, pc, 2, 8, &last, &whole);
	cr_assert_eq(n, 6);
	cr_assert(whole);
	cr_assert_eq(pc[2], 0x2222);
	cr_assert_eq(pc[5], 0x5555);
	/* Room for one more frame only: joined, but not whole. */
	cr_assert_eq(outer_join(o, 7, pc, 2, 3, &last, &whole), 3);
	cr_assert(!whole);
	outer_free(o);
}

Test(outer, refuses_another_function_place_or_thread)
{
	struct outer *o = outer_new();
	uint64_t pc[8] = { 0x9999, 0x1020 };
	struct unwind_frame last = { .sp = 0x110, .func = 0x1000, .next_sp = 0x140 };
	int whole;

	outer_keep(o, 7, walk_pc, walk_f, 5);
	cr_assert_eq(outer_join(o, 8, pc, 2, 8, &last, &whole), 2, "another thread's walk");
	last.func = 0x6000;
	cr_assert_eq(outer_join(o, 7, pc, 2, 8, &last, &whole), 2, "another function below the frame");
	last.func = 0x1000;
	last.next_sp = 0x150;
	cr_assert_eq(outer_join(o, 7, pc, 2, 8, &last, &whole), 2, "no frame at that sp");
	last.next_sp = 0;
	cr_assert_eq(outer_join(o, 7, pc, 2, 8, &last, &whole), 2, "the caller's sp unknown");
	last.next_sp = 0x140;
	last.func = 0;
	cr_assert_eq(outer_join(o, 7, pc, 2, 8, &last, &whole), 2, "a frame without CFI");
	last.func = 0x1000;
	outer_forget(o, 7);
	cr_assert_eq(outer_join(o, 7, pc, 2, 8, &last, &whole), 2, "the thread ended");
	outer_free(o);
}

/* A thread in a loop calls G and F from the same frame: a walk cut in F
 * meets an older walk that was in F, not the newest, which was in G. */
Test(outer, older_walks_are_tried)
{
	struct outer *o = outer_new();
	uint64_t in_g[5];
	struct unwind_frame g_f[5];
	uint64_t pc[8] = { 0x1020 };
	struct unwind_frame last = { .sp = 0x100, .func = 0x1000, .exact = 1, .next_sp = 0x140 };
	int whole;

	memcpy(in_g, walk_pc, sizeof(in_g));
	memcpy(g_f, walk_f, sizeof(g_f));
	in_g[0] = 0x7010;
	g_f[0].func = 0x7000;
	outer_keep(o, 7, walk_pc, walk_f, 5);
	outer_keep(o, 7, in_g, g_f, 5);
	cr_assert_eq(outer_join(o, 7, pc, 1, 8, &last, &whole), 5);
	cr_assert_eq(pc[1], 0x2222);
	/* Walks that differ only in the leaf's pc take one place: four
	 * more of G's leave F's walk among the kept. */
	for (int i = 0; i < 4; i++) {
		in_g[0] = 0x7010 + (uint64_t)i;
		outer_keep(o, 7, in_g, g_f, 5);
	}
	cr_assert_eq(outer_join(o, 7, pc, 1, 8, &last, &whole), 5);
	outer_free(o);
}
