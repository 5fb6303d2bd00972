/*
 * test_outer.c: completing walks cut at the stack copy with the outer
 * frames of their thread's earlier complete walks.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "record/outer.h"

/* A complete walk of 14 frames: frame i at sp 0x100 + 0x40 i, in the
 * function at 0x1000 (i + 1), its return address read at sp - 8; the
 * leaf's pc is 0x1010, the others' 0x1000 (i + 1) + 0x22. */
#define DEEP 14

static uint64_t walk_pc[DEEP];
static struct unwind_frame walk_f[DEEP];

static void make_walk(void)
{
	for (int i = 0; i < DEEP; i++) {
		walk_pc[i] = 0x1000 * (uint64_t)(i + 1) + (i ? 0x22 : 0x10);
		walk_f[i] = (struct unwind_frame){ .sp = 0x100 + 0x40 * (uint64_t)i, .func = 0x1000 * (uint64_t)(i + 1),
						   .ra_at = i ? 0x100 + 0x40 * (uint64_t)i - 8 : 0, .exact = !i };
	}
}

/* The stack as the check sees it now: each frame asked for is where the
 * kept walk read it, and holds, unless the test moved on; it records
 * which frames were asked for. */
static int moved_on;
static size_t asked, first_asked;

static int check(void *ctx, const uint64_t *at, const uint64_t *pc, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = pc[i] / 0x1000 - 1;
		cr_assert_eq(at[i], 0x100 + 0x40 * k - 8, "pc %llx at %llx", (unsigned long long)pc[i],
			     (unsigned long long)at[i]);
	}
	asked = n;
	first_asked = pc[0] / 0x1000 - 1;
	return !moved_on;
}

/* A walk of the same thread cut in frame 1's function, at sp 0x150, whose
 * caller's sp (the CFA) is 0x180: frame 2's. */
static const struct unwind_frame cut = { .sp = 0x150, .func = 0x2000, .next_sp = 0x180 };

Test(outer, joins_where_place_and_function_meet)
{
	struct outer *o = outer_new();
	uint64_t pc[32] = { 0x9999, 0x2030 };
	int whole;

	make_walk();
	outer_keep(o, 7, walk_pc, walk_f, DEEP);
	size_t n = outer_join(o, 7, pc, 2, 32, &cut, check, NULL, &whole);
	cr_assert_eq(n, 2 + DEEP - 2);
	cr_assert(whole);
	cr_assert_eq(pc[2], walk_pc[2]);
	cr_assert_eq(pc[n - 1], walk_pc[DEEP - 1]);
	/* The frames just above the junction need not be there now (a
	 * short call returned from since); those past them must. */
	cr_assert_eq(first_asked, 2 + 1 + 8);
	cr_assert_eq(asked, DEEP - 11);
	/* Room for one more frame only: joined, but not whole. */
	cr_assert_eq(outer_join(o, 7, pc, 2, 3, &cut, check, NULL, &whole), 3);
	cr_assert(!whole);
	outer_free(o);
}

Test(outer, refuses_another_function_place_thread_or_stack)
{
	struct outer *o = outer_new();
	uint64_t pc[32] = { 0x9999, 0x2030 };
	struct unwind_frame last = cut;
	int whole;

	make_walk();
	outer_keep(o, 7, walk_pc, walk_f, DEEP);
	cr_assert_eq(outer_join(o, 8, pc, 2, 32, &last, check, NULL, &whole), 2, "another thread's walk");
	last.func = 0x6000;
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &last, check, NULL, &whole), 2, "another function below");
	last.func = cut.func;
	last.next_sp = 0x190;
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &last, check, NULL, &whole), 2, "no frame at that sp");
	last.next_sp = 0;
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &last, check, NULL, &whole), 2, "the caller's sp unknown");
	last = cut;
	last.func = 0;
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &last, check, NULL, &whole), 2, "a frame without CFI");
	moved_on = 1;
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &cut, check, NULL, &whole), 2, "the stack holds them no more");
	moved_on = 0;
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &cut, check, NULL, &whole), 14);
	outer_forget(o, 7);
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &cut, check, NULL, &whole), 2, "the thread ended");
	outer_free(o);
}

/* A thread in a loop calls G and F from the same frame: a walk cut in F
 * meets an older walk that was in F, not the newest, which was in G. */
Test(outer, older_walks_are_tried)
{
	struct outer *o = outer_new();
	uint64_t in_g[DEEP], pc[32] = { 0x2010 };
	struct unwind_frame g_f[DEEP], last = { .sp = 0x150, .func = 0x2000, .exact = 1, .next_sp = 0x180 };
	int whole;

	make_walk();
	/* F's walk: its leaf in 0x2000, called from frame 2's function. */
	memcpy(in_g, walk_pc + 1, sizeof(*in_g) * (DEEP - 1));
	memcpy(g_f, walk_f + 1, sizeof(*g_f) * (DEEP - 1));
	outer_keep(o, 7, in_g, g_f, DEEP - 1);
	/* G's: its leaf in 0x7000 at the same place. */
	in_g[0] = 0x7010;
	g_f[0].func = 0x7000;
	outer_keep(o, 7, in_g, g_f, DEEP - 1);
	cr_assert_eq(outer_join(o, 7, pc, 1, 32, &last, check, NULL, &whole), DEEP - 1);
	cr_assert_eq(pc[1], walk_pc[2]);
	/* Walks that differ only in the leaf's pc take one place: more of
	 * G's leave F's walk among the kept. */
	for (int i = 0; i < 40; i++) {
		in_g[0] = 0x7010 + (uint64_t)i;
		outer_keep(o, 7, in_g, g_f, DEEP - 1);
	}
	cr_assert_eq(outer_join(o, 7, pc, 1, 32, &last, check, NULL, &whole), DEEP - 1);
	outer_free(o);
}

/* Complete walks test the joins the kept ones would make: a thread whose
 * frames above the same frame differ (a recursion that changes course)
 * is joined no more. */
Test(outer, a_thread_whose_outer_frames_change_is_not_joined)
{
	struct outer *o = outer_new();
	uint64_t other[DEEP], pc[32] = { 0x9999, 0x2030 };
	struct unwind_frame other_f[DEEP];
	int whole;

	make_walk();
	outer_keep(o, 7, walk_pc, walk_f, DEEP);
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &cut, check, NULL, &whole), 14);
	/* The same frames up to frame 5, then other functions. */
	memcpy(other, walk_pc, sizeof(other));
	memcpy(other_f, walk_f, sizeof(other_f));
	other[0] = 0x1011;
	for (int i = 6; i < DEEP; i++) {
		other[i] += 0x100000;
		other_f[i].func += 0x100000;
	}
	outer_keep(o, 7, other, other_f, DEEP);
	cr_assert_eq(outer_join(o, 7, pc, 2, 32, &cut, check, NULL, &whole), 2);
	outer_free(o);
}
