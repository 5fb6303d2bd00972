/*
 * test_stacks.c: the resolved-stack layer on traces built by hand: the
 * bounded chain walk, a node named by the images of its first sample
 * whatever the filter, the verdict of focus and exclude on leaves and
 * callers (and after another pair is asked for), deep stacks cut to their
 * leaf-most nodes, frames that stay valid for the layer's life, the
 * [kernel] frame of a tick in kernel mode, and stacks that end at the
 * function Go starts them with, whatever a walk found past it.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "format/trace_pack.h"
#include "report/symbols/pack.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

#include "hand_trace.h"

static struct symbolize *sym;
static struct stacks *st;

static void open_layer(const struct trace *t)
{
	sym = symbolize_new(t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "" });
	st = stacks_new(t, sym);
}

static void close_layer(void)
{
	stacks_free(st);
	symbolize_free(sym);
}

/* The indexes of the samples of t that f keeps, as "0 2 5". */
static char *kept(const struct trace *t, const struct stacks_filter *f)
{
	static char out[256];

	out[0] = 0;
	for (size_t i = 0; i < t->nsamples; i++)
		if (stacks_keep(st, f, &t->samples[i]))
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%zu", out[0] ? " " : "", i);
	return out;
}

static void re(regex_t *r, const char *pat)
{
	cr_assert_eq(regcomp(r, pat, REG_EXTENDED | REG_NOSUB), 0);
}

Test(stacks, chain_stops_at_a_parent_not_older)
{
	/* 1 -> root; 2 -> 1; 3 names itself; 4 names a later node; 5 is out
	 * of range as a parent. */
	struct trace_node n[] = { { 0, 0 }, { 0x10, 0 }, { 0x20, 1 }, { 0x30, 3 }, { 0x40, 5 },
				  { 0x50, 99 } };
	struct trace t = { .nodes = n, .nnodes = 6 };
	struct trace_chain c;
	uint32_t node, got[8];
	size_t k;

	for (k = 0, trace_chain_init(&c, &t, 2); trace_chain_next(&c, &node);)
		got[k++] = node;
	cr_assert_eq(k, 2);
	cr_assert_eq(got[0], 2);
	cr_assert_eq(got[1], 1);
	for (uint32_t s = 3; s <= 5; s++) {
		for (k = 0, trace_chain_init(&c, &t, s); trace_chain_next(&c, &node);)
			got[k++] = node;
		cr_assert_eq(k, 1, "stack %u: %zu nodes", s, k);
	}
	trace_chain_init(&c, &t, 6);
	cr_assert(!trace_chain_next(&c, &node), "an id out of range is an empty stack");
	trace_chain_init(&c, &t, 0);
	cr_assert(!trace_chain_next(&c, &node));
}

Test(stacks, a_node_is_named_by_its_first_sample_whatever_the_filter)
{
	/* Two libraries at one address: a.so until 500, then b.so. Node 1 is
	 * first sampled at 100, node 2 only at 600. */
	struct trace_image im[] = {
		{ .id = 1, .path = "/x/a.so", .start = 0x1000, .size = 0x1000, .bias = 0x1000,
		  .time_unloaded = 500 },
		{ .id = 2, .path = "/x/b.so", .start = 0x1000, .size = 0x1000, .bias = 0x1000,
		  .time_loaded = 500 },
	};
	struct trace_node n[] = { { 0, 0 }, { 0x1100, 0 }, { 0x1200, 0 } };
	struct trace_sample s[] = { { 100, 1, 1, TRACE_STATE_RUNNING, 0 , 0 },
				    { 600, 1, 1, TRACE_STATE_RUNNING, 0 , 0 },
				    { 700, 1, 2, TRACE_STATE_RUNNING, 0 , 0 } };
	struct trace t = { .nimages = 2, .images = im, .nnodes = 3, .nodes = n, .nsamples = 3,
			   .samples = s };
	struct stacks_filter late = { .from = 550 };
	const struct symbolize_frame *fr;

	open_layer(&t);
	/* Only the later samples count, yet node 1 is named as at 100. */
	cr_assert_str_eq(kept(&t, &late), "1 2");
	cr_assert_eq(stacks_frames(st, 1, 1, &fr), 1);
	cr_assert_str_eq(fr[0].name, "a.so+0x100");
	cr_assert_str_eq(fr[0].image_label, "a.so");
	cr_assert_eq(stacks_frames(st, 2, 1, &fr), 1);
	cr_assert_str_eq(fr[0].name, "b.so+0x200");
	close_layer();
}

Test(stacks, focus_and_exclude_on_leaves_and_callers)
{
	struct trace t;
	struct stacks_filter f = { 0 };
	regex_t leaf, caller, outside, none;

	make_trace(&t);
	open_layer(&t);
	re(&leaf, "0x300$");           /* the leaf of samples 1 and 4 */
	re(&caller, "^libfake\\.so\\+0x100$"); /* the caller of all but 6 */
	re(&outside, "unknown");       /* the leaf of sample 5 */
	re(&none, "nothing");
	cr_assert_str_eq(kept(&t, &f), "0 1 2 3 4 5 6");
	f.focus = &leaf;
	cr_assert_str_eq(kept(&t, &f), "1 4");
	f.focus = &caller;
	cr_assert_str_eq(kept(&t, &f), "0 1 2 3 4 5");
	/* Exclude wins; the empty stack has nothing to match. */
	f.exclude = &outside;
	cr_assert_str_eq(kept(&t, &f), "0 1 2 3 4");
	f.focus = NULL;
	cr_assert_str_eq(kept(&t, &f), "0 1 2 3 4 6");
	f.exclude = &caller;
	cr_assert_str_eq(kept(&t, &f), "6");
	f.exclude = NULL;
	f.focus = &none;
	cr_assert_str_eq(kept(&t, &f), "");
	/* Back to a pair asked for before: the verdicts are its own again. */
	f.focus = &leaf;
	cr_assert_str_eq(kept(&t, &f), "1 4");
	/* With the sample filter: tid 10 only. */
	f.tids = (uint32_t[]){ 10 };
	f.ntids = 1;
	f.focus = &caller;
	cr_assert_str_eq(kept(&t, &f), "0 2 5");
	regfree(&leaf);
	regfree(&caller);
	regfree(&outside);
	regfree(&none);
	close_layer();
}

Test(stacks, a_stack_out_of_the_tree_never_counts)
{
	struct trace t;
	struct trace_sample s[] = { { 100, 10, 2, TRACE_STATE_RUNNING, 0 , 0 },
				    { 110, 10, 40, TRACE_STATE_RUNNING, 0 , 0 } };

	make_trace(&t);
	t.samples = s;
	t.nsamples = 2;
	open_layer(&t);
	cr_assert_str_eq(kept(&t, &(struct stacks_filter){ 0 }), "0");
	close_layer();
}

Test(stacks, deep_stacks_are_cut_to_their_leaf_most_nodes)
{
	size_t depth = STACKS_MAX_DEPTH + 100;
	struct trace_node *n = calloc(depth + 1, sizeof(*n));
	struct trace t = { .nodes = n, .nnodes = depth + 1 };
	const uint32_t *nodes;

	for (size_t i = 1; i <= depth; i++)
		n[i] = (struct trace_node){ .addr = 0x1000 + i, .parent = (uint32_t)i - 1 };
	st = stacks_new(&t, NULL);
	cr_assert_eq(stacks_nodes(st, (uint32_t)depth, &nodes), STACKS_MAX_DEPTH);
	cr_assert_eq(nodes[0], depth);
	cr_assert_eq(nodes[STACKS_MAX_DEPTH - 1], depth - STACKS_MAX_DEPTH + 1);
	cr_assert_eq(stacks_nodes(st, 3, &nodes), 3);
	cr_assert_eq(nodes[2], 1);
	cr_assert_eq(stacks_nodes(st, 0, &nodes), 0);
	stacks_free(st);
	free(n);
}

Test(stacks, frames_stay_valid_for_the_layers_life)
{
	/* More distinct addresses than one block of the symbolizer holds. */
	size_t count = 20000;
	struct trace_node *n = calloc(count + 1, sizeof(*n));
	struct trace_sample one = { 1, 10, 1, TRACE_STATE_RUNNING, 0 , 0 };
	struct trace t;
	const struct symbolize_frame *first, *fr;

	make_trace(&t);
	for (size_t i = 1; i <= count; i++)
		n[i] = (struct trace_node){ .addr = 0x100000 + i, .parent = 0 };
	t.nodes = n;
	t.nnodes = count + 1;
	t.samples = &one;
	t.nsamples = 1;
	open_layer(&t);
	cr_assert_eq(stacks_frames(st, 1, 1, &first), 1);
	for (uint32_t i = 2; i <= count; i++)
		stacks_frames(st, i, i & 1, &fr);
	cr_assert_str_eq(first->name, "[unknown]+0x100001");
	cr_assert_eq(stacks_frames(st, 1, 1, &fr), 1);
	cr_assert_eq(fr, first, "asked again, the same frames");
	close_layer();
	free(n);
}

Test(stacks, a_tick_in_the_kernel_shows_a_kernel_frame_above_its_leaf)
{
	struct trace_node n[] = { { 0, 0 }, { 0x1100, 0 }, { 0x1200, 1 } };
	struct trace_sample s[] = { { 100, 1, 2, TRACE_STATE_RUNNING, 0 , 0 },
				    { 200, 1, 2, TRACE_STATE_RUNNING, TRACE_SAMPLE_KERNEL , 0 },
				    { 300, 1, 0, TRACE_STATE_RUNNING, TRACE_SAMPLE_KERNEL , 0 },
				    { 400, 1, 2, TRACE_STATE_RUNNING, TRACE_SAMPLE_TRUNCATED , 0 } };
	struct trace t = { .nnodes = 3, .nodes = n, .nsamples = 4, .samples = s };
	const struct symbolize_frame *fr;
	const uint32_t *nodes;
	regex_t k, other;
	struct stacks_filter f = { 0 };

	open_layer(&t);
	cr_assert_eq(stacks_sample_nodes(st, &s[0], &nodes), 2);
	cr_assert_eq(nodes[0], 2);
	cr_assert(stacks_leaf(st, nodes, 0));
	cr_assert(!stacks_leaf(st, nodes, 1));
	cr_assert_eq(stacks_sample_nodes(st, &s[1], &nodes), 3);
	cr_assert_eq(nodes[0], STACKS_NODE_KERNEL);
	cr_assert_eq(nodes[1], 2);
	cr_assert_eq(nodes[2], 1);
	cr_assert(!stacks_leaf(st, nodes, 0));
	cr_assert(stacks_leaf(st, nodes, 1), "the user leaf stays a leaf under [kernel]");
	cr_assert(!stacks_leaf(st, nodes, 2));
	cr_assert_eq(stacks_frames(st, STACKS_NODE_KERNEL, 1, &fr), 1);
	cr_assert_str_eq(fr[0].name, "[kernel]");
	cr_assert_eq(fr[0].image, -1);
	cr_assert_str_eq(fr[0].image_label, "[kernel]");
	cr_assert_eq(stacks_frames(st, STACKS_NODE_KERNEL, 0, &fr), 1);
	cr_assert_str_eq(fr[0].name, "[kernel]");
	/* an empty user stack: [kernel] alone */
	cr_assert_eq(stacks_sample_nodes(st, &s[2], &nodes), 1);
	cr_assert_eq(nodes[0], STACKS_NODE_KERNEL);
	/* the key tells the flag, and only it */
	cr_assert_neq(stacks_sample_key(&s[0]), stacks_sample_key(&s[1]));
	cr_assert_eq(stacks_sample_key(&s[0]), stacks_sample_key(&s[3]));
	cr_assert_neq(stacks_sample_key(&s[1]), stacks_sample_key(&s[2]));
	/* focus and exclude see the frame as shown */
	re(&k, "^\\[kernel\\]$");
	re(&other, "0x1200$");
	f.focus = &k;
	cr_assert_str_eq(kept(&t, &f), "1 2");
	f.focus = NULL;
	f.exclude = &k;
	cr_assert_str_eq(kept(&t, &f), "0 3");
	f.focus = &other;
	cr_assert_str_eq(kept(&t, &f), "0 3");
	regfree(&k);
	regfree(&other);
	close_layer();
}

Test(stacks, preempted_is_a_state_of_its_own)
{
	cr_assert(stacks_state_match(STACKS_STATE_PREEMPTED, TRACE_STATE_PREEMPTED));
	cr_assert(!stacks_state_match(STACKS_STATE_RUNNING, TRACE_STATE_PREEMPTED));
	cr_assert(!stacks_state_match(STACKS_STATE_IDLE, TRACE_STATE_PREEMPTED));
	cr_assert(stacks_state_match(STACKS_STATE_ALL, TRACE_STATE_PREEMPTED));
	for (int st = TRACE_STATE_SLEEPING; st <= TRACE_STATE_OTHER; st++) {
		cr_assert(stacks_state_match(STACKS_STATE_IDLE, st), "state %d", st);
		cr_assert(!stacks_state_match(STACKS_STATE_PREEMPTED, st), "state %d", st);
	}
	cr_assert(!stacks_state_match(STACKS_STATE_PREEMPTED, TRACE_STATE_UNKNOWN));
	cr_assert(!stacks_state_match(STACKS_STATE_IDLE, TRACE_STATE__COUNT));
	cr_assert(!stacks_state_match(STACKS_STATE_PREEMPTED, TRACE_STATE__COUNT));
}

Test(stacks, go_top_names)
{
	cr_assert(stacks_top_name("runtime.goexit"));
	cr_assert(stacks_top_name("runtime.mstart"));
	cr_assert(stacks_top_name("runtime.mcall"));
	cr_assert(stacks_top_name("runtime.rt0_go"));
	cr_assert(stacks_top_name("runtime.goexit (asm_amd64.s:1594)"), "as --lines shows it");
	cr_assert(!stacks_top_name("runtime.mstart0"));
	cr_assert(!stacks_top_name("runtime.main"), "main's goroutine returns to goexit");
	cr_assert(!stacks_top_name("runtime.systemstack"));
	cr_assert(!stacks_top_name("xruntime.goexit"));
	cr_assert(!stacks_top_name(""));
}

/* A one-frame name for each link-time address of a pack's image, in
 * ascending order. */
static void pack_names(struct trace_pack_image *img, const uint64_t *at, const char *const *name, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		img->strings = xgrow(img->strings, &img->cap_strings, img->nstrings + 1, sizeof(*img->strings));
		img->strings[img->nstrings] = xstrdup(name[i]);
		img->addrs = xgrow(img->addrs, &img->cap_addrs, img->naddrs + 1, sizeof(*img->addrs));
		img->addrs[img->naddrs++] = (struct trace_pack_addr){ at[i], (uint32_t)img->nframes, 1 };
		img->frames = xgrow(img->frames, &img->cap_frames, img->nframes + 1, sizeof(*img->frames));
		img->frames[img->nframes++] = (struct trace_pack_frame){
			.name = (uint32_t)img->nstrings++, .lang = TRACE_PACK_LANG_UNKNOWN };
	}
}

Test(stacks, a_go_stack_ends_at_the_function_that_starts_it)
{
	/* A thread of Go 1.19's: usleep <- sysmon <- mstart, where the walk
	 * went on through the stale frame pointer the thread began with, into
	 * schedule and an address of no image. Sample 1's leaf is mstart
	 * itself; sample 2 is a goroutine's, whole. Return addresses are
	 * looked up at address - 1. */
	static const uint64_t at[] = { 0x100 - 1, 0x100, 0x200 - 1, 0x300, 0x400 - 1, 0x500,
				       0xf00 - 1 };
	static const char *const name[] = { "runtime.mstart", "runtime.mstart", "runtime.sysmon",
					    "runtime.usleep", "runtime.goexit", "main.hot",
					    "runtime.schedule" };
	struct trace_node n[] = { { 0, 0 }, { 0x9000, 0 }, { 0x1f00, 1 }, { 0x1100, 2 },
				  { 0x1200, 3 }, { 0x1300, 4 }, { 0x1100, 2 }, { 0x1400, 0 },
				  { 0x1500, 7 } };
	struct trace_sample s[] = { { 100, 1, 5, TRACE_STATE_RUNNING, 0, 0 },
				    { 110, 1, 6, TRACE_STATE_RUNNING, 0, 0 },
				    { 120, 1, 8, TRACE_STATE_RUNNING, 0, 0 } };
	struct trace t;
	struct trace_pack *tp = trace_pack_new();
	struct pack *pk = pack_new();
	struct stacks_filter f = { 0 };
	const uint32_t *nodes;
	regex_t stale, sysmon;

	make_trace(&t);
	t.nodes = n;
	t.nnodes = sizeof(n) / sizeof(*n);
	t.samples = s;
	t.nsamples = sizeof(s) / sizeof(*s);
	pack_names(trace_pack_add_image(tp, image.ident_kind, image.ident, image.ident_len, image.path),
		   at, name, sizeof(at) / sizeof(*at));
	pack_add(pk, tp, "test", 1);
	sym = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "",
							  .pack = pk });
	st = stacks_new(&t, sym);

	cr_assert_eq(stacks_sample_nodes(st, &s[0], &nodes), 3, "usleep, sysmon, mstart");
	cr_assert_eq(nodes[0], 5);
	cr_assert_eq(nodes[2], 3);
	cr_assert_eq(stacks_nodes(st, 6, &nodes), 1, "a leaf in mstart is the whole stack");
	cr_assert_eq(stacks_nodes(st, 8, &nodes), 2, "main.hot under goexit");
	cr_assert_eq(stacks_nodes(st, 2, &nodes), 2, "no function that starts a stack: all of it");

	/* What lies past the stack's start is not matched either. */
	re(&stale, "schedule|unknown");
	re(&sysmon, "sysmon");
	f.focus = &stale;
	cr_assert_str_eq(kept(&t, &f), "");
	f.focus = NULL;
	f.exclude = &stale;
	cr_assert_str_eq(kept(&t, &f), "0 1 2");
	f.exclude = &sysmon;
	cr_assert_str_eq(kept(&t, &f), "1 2");
	regfree(&stale);
	regfree(&sysmon);
	stacks_free(st);
	symbolize_free(sym);
	pack_free(pk);
}

/* A handler's stack: the leaf in the handler, its return into libc's
 * signal trampoline (0x3c050 past a nop at 0x3c04f, the range the
 * recorder told), then the interrupted code, at its exact pc 0x2000: a
 * function's first instruction, which pc - 1 would put in the function
 * before. */
Test(stacks, a_signal_trampoline_is_named_and_its_caller_is_exact)
{
	struct trace_range tramp = { 0x13c04f, 0x13c060 };
	struct trace_image im[] = {
		{ .id = 1, .path = "/x/libc.so", .start = 0x100000, .size = 0x100000, .bias = 0x100000,
		  .nsignal = 1, .signal = &tramp },
	};
	/* root <- 0x102000 (interrupted) <- 0x13c050 (trampoline) <- 0x105000 (handler) */
	struct trace_node n[] = { { 0, 0 }, { 0x102000, 0 }, { 0x13c050, 1 }, { 0x105000, 2 } };
	struct trace_sample s[] = { { 100, 1, 3, TRACE_STATE_RUNNING, 0, 0 } };
	struct trace t = { .nimages = 1, .images = im, .nnodes = 4, .nodes = n, .nsamples = 1, .samples = s };
	const struct symbolize_frame *fr;
	const uint32_t *nodes;

	open_layer(&t);
	cr_assert_eq(stacks_sample_nodes(st, &s[0], &nodes), 3);
	cr_assert(stacks_leaf(st, nodes, 0));
	cr_assert(!stacks_leaf(st, nodes, 1), "the trampoline is a return address");
	cr_assert(stacks_leaf(st, nodes, 2), "the interrupted code's pc is exact");
	cr_assert_eq(stacks_frames(st, nodes[1], 0, &fr), 1);
	cr_assert_str_eq(fr[0].name, "[signal handler called]");
	cr_assert(fr[0].signal);
	cr_assert(fr[0].resolved);
	cr_assert_eq(fr[0].offset, 0x3c050);
	cr_assert(symbolize_is_signal(sym, 0, 0x13c04f, 100));
	cr_assert(!symbolize_is_signal(sym, 0, 0x13c060, 100));
	cr_assert_eq(stacks_frames(st, nodes[2], 1, &fr), 1);
	cr_assert_str_eq(fr[0].name, "libc.so+0x2000");
	cr_assert(!fr[0].signal);
	close_layer();
}
