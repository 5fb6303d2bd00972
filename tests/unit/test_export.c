/*
 * test_export.c: the export model on the hand-built trace: every sample
 * kept in recording order with its thread's name then, each recorded stack
 * once with its locations leaf first, each (address, leaf) resolved once,
 * functions by name, the filters, --focus and --exclude as the profile
 * model applies them, and the one [kernel] location of ticks in the
 * kernel.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "report/model/export.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

#include "hand_trace.h"

static struct symbolize *sym;
static struct stacks *st;

static struct export *build(const struct trace *t, const struct stacks_filter *f)
{
	sym = symbolize_new(t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "" });
	st = stacks_new(t, sym);
	return export_build(st, f, NULL);
}

static void done(struct export *e)
{
	export_free(e);
	stacks_free(st);
	symbolize_free(sym);
}

/* The frame names of sample i's stack, leaf first, joined by ' '. */
static const char *stack_names(const struct export *e, size_t i, char *out, size_t n)
{
	const struct export_stack *st = &e->stacks[e->samples[i].stack];

	out[0] = 0;
	for (size_t k = 0; k < st->nlocs; k++) {
		const struct export_location *l = &e->locs[e->stack_locs[st->first + k]];

		for (size_t f = 0; f < l->nframes; f++)
			snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? " " : "",
				 e->funcs[e->frame_funcs[l->first + f]].name);
	}
	return out;
}

Test(export, samples_stacks_locations_functions)
{
	struct trace t;
	struct export *e;
	char s[256];

	make_trace(&t);
	e = build(&t, &(struct stacks_filter){ 0 });
	cr_assert_eq(e->nsamples, 7);
	cr_assert_eq(e->nstacks, 4);      /* recorded stacks 2, 3, 4 and the empty one */
	cr_assert_eq(e->nlocs, 4);        /* 0x1100 as a return address is shared */
	cr_assert_eq(e->nfuncs, 4);
	cr_assert_str_eq(stack_names(e, 0, s, sizeof(s)), "libfake.so+0x200 libfake.so+0x100");
	cr_assert_str_eq(stack_names(e, 1, s, sizeof(s)), "libfake.so+0x300 libfake.so+0x100");
	cr_assert_str_eq(stack_names(e, 5, s, sizeof(s)), "[unknown]+0x9000 libfake.so+0x100");
	cr_assert_str_eq(stack_names(e, 6, s, sizeof(s)), "");
	cr_assert_eq(e->samples[0].stack, e->samples[2].stack);
	cr_assert_eq(e->samples[3].stack, e->samples[0].stack); /* another thread, same stack */
	cr_assert_eq(e->locs[e->stack_locs[e->stacks[0].first]].addr, 0x1200);
	cr_assert_eq(e->locs[e->stack_locs[e->stacks[0].first]].image, 0);
	cr_assert_eq(e->locs[e->stack_locs[e->stacks[e->samples[5].stack].first]].image, -1);
	/* recording order, times since the start, names as they were then */
	cr_assert_eq(e->samples[1].tid, 11);
	cr_assert_eq(e->samples[1].time, 110);
	cr_assert_eq(e->samples[1].state, TRACE_STATE_SLEEPING);
	cr_assert_str_eq(e->samples[1].thread, "worker");
	cr_assert_str_eq(e->samples[4].thread, "re;named");
	done(e);
}

Test(export, filter_focus_exclude)
{
	struct trace t;
	struct export *e;
	regex_t focus, exclude;
	uint32_t tid = 10;

	make_trace(&t);
	cr_assert_eq(regcomp(&focus, "0x300$", REG_EXTENDED | REG_NOSUB), 0);
	cr_assert_eq(regcomp(&exclude, "unknown", REG_EXTENDED | REG_NOSUB), 0);
	e = build(&t, &(struct stacks_filter){ .tids = &tid, .ntids = 1 });
	cr_assert_eq(e->nsamples, 4);
	done(e);
	e = build(&t, &(struct stacks_filter){ .focus = &focus });
	cr_assert_eq(e->nsamples, 2);
	cr_assert_eq(e->samples[0].time, 110);
	cr_assert_eq(e->samples[1].time, 600);
	cr_assert_eq(e->nstacks, 1);
	done(e);
	/* exclude drops the stack through [unknown]; the empty stack stays */
	e = build(&t, &(struct stacks_filter){ .exclude = &exclude });
	cr_assert_eq(e->nsamples, 6);
	cr_assert_eq(e->nstacks, 3);
	done(e);
	regfree(&focus);
	regfree(&exclude);
}

Test(export, period_and_duration)
{
	struct trace t;

	make_trace(&t);
	cr_assert_eq(export_period(&t), 0);
	t.session.rate_hz = 997;
	cr_assert_eq(export_period(&t), 1003009);   /* 1e9 / 997, rounded */
	t.session.rate_hz = 1000;
	cr_assert_eq(export_period(&t), 1000000);
	cr_assert_eq(trace_duration_ns(&t), 800);    /* to the last sample */
	t.has_end = 1;
	t.end.time = 1000;
	cr_assert_eq(trace_duration_ns(&t), 1000);   /* to the end record */
}

Test(export, a_tick_in_the_kernel_is_one_kernel_location_above_the_leaf)
{
	struct trace_sample s[] = {
		{ 100, 10, 2, TRACE_STATE_RUNNING, 0 , 0 },
		{ 110, 10, 2, TRACE_STATE_RUNNING, TRACE_SAMPLE_KERNEL , 0 },
		{ 120, 10, 3, TRACE_STATE_RUNNING, TRACE_SAMPLE_KERNEL , 0 },
		{ 130, 10, 0, TRACE_STATE_RUNNING, TRACE_SAMPLE_KERNEL , 0 },
		{ 140, 10, 2, TRACE_STATE_RUNNING, TRACE_SAMPLE_KERNEL , 0 },
	};
	struct trace t;
	struct export *e;
	const struct export_location *k;
	char out[256];

	make_trace(&t);
	t.samples = s;
	t.nsamples = 5;
	e = build(&t, &(struct stacks_filter){ 0 });
	cr_assert_eq(e->nsamples, 5);
	cr_assert_eq(e->nstacks, 4, "a stack with and without the flag are two");
	cr_assert_eq(e->samples[1].stack, e->samples[4].stack);
	cr_assert_neq(e->samples[0].stack, e->samples[1].stack);
	cr_assert_str_eq(stack_names(e, 0, out, sizeof(out)), "libfake.so+0x200 libfake.so+0x100");
	cr_assert_str_eq(stack_names(e, 1, out, sizeof(out)), "[kernel] libfake.so+0x200 libfake.so+0x100");
	cr_assert_str_eq(stack_names(e, 2, out, sizeof(out)), "[kernel] libfake.so+0x300 libfake.so+0x100");
	cr_assert_str_eq(stack_names(e, 3, out, sizeof(out)), "[kernel]");
	/* one location for every [kernel] frame, of no address or image */
	k = &e->locs[e->stack_locs[e->stacks[e->samples[1].stack].first]];
	cr_assert_eq(e->stack_locs[e->stacks[e->samples[2].stack].first],
		     e->stack_locs[e->stacks[e->samples[1].stack].first]);
	cr_assert_eq(e->stack_locs[e->stacks[e->samples[3].stack].first],
		     e->stack_locs[e->stacks[e->samples[1].stack].first]);
	cr_assert_eq(k->addr, 0);
	cr_assert_eq(k->image, -1);
	cr_assert_eq(k->nframes, 1);
	/* the user leaf under it is looked up as a leaf, as without the flag */
	cr_assert_eq(e->stack_locs[e->stacks[e->samples[1].stack].first + 1],
		     e->stack_locs[e->stacks[e->samples[0].stack].first]);
	done(e);
}
