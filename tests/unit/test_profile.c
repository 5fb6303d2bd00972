/*
 * test_profile.c: the profile model on a trace built by hand in memory:
 * root, process and thread frames, merging by name, sorting, determinism
 * and the --tid, --thread, --pid, --process, --state, --from/--to,
 * --focus and --exclude filters.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/output/folded.h"
#include "report/model/profile.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

#include "hand_trace.h"

static struct symbolize *sym;
static struct stacks *st;

/* The profile of t under o, symbolized with no debug files. */
static struct profile *build(const struct trace *t, const struct profile_opts *o)
{
	sym = symbolize_new(t, &(struct symbolize_opts){ .debug_root = "" });
	st = stacks_new(t, sym);
	return profile_build(st, o);
}

static void done(struct profile *p)
{
	profile_free(p);
	stacks_free(st);
	symbolize_free(sym);
}

/* The folded text of t under o, and its sample total in *samples (if not
 * NULL). Caller frees. */
static char *folded_n(const struct trace *t, const struct profile_opts *o, uint64_t *samples)
{
	struct profile *p = build(t, o);
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < p->nstacks; i++)
		folded_line(&b, &p->stacks[i]);
	buf_addstr(&b, ""); /* buf_detach() of an untouched buf is unterminated */
	if (samples)
		*samples = p->samples;
	done(p);
	return buf_detach(&b);
}

static char *folded(const struct trace *t, const struct profile_opts *o)
{
	return folded_n(t, o, NULL);
}

Test(profile, all_samples_sorted_root_first)
{
	struct trace t;
	struct profile_opts o = { 0 };
	char *s;

	make_trace(&t);
	s = folded(&t, &o);
	cr_assert_str_eq(s,
		"myprog 1\n"
		"myprog;libfake.so+0x100;[unknown]+0x9000 1\n"
		"myprog;libfake.so+0x100;libfake.so+0x200 3\n"
		"myprog;libfake.so+0x100;libfake.so+0x300 2\n");
	free(s);
}

Test(profile, frame_info_names_image_and_resolution)
{
	struct trace t;
	struct profile_opts o = { 0 };
	struct profile *p;
	const struct profile_frame_info *fi;

	make_trace(&t);
	p = build(&t, &o);
	fi = profile_frame_info(p, "libfake.so+0x200");
	cr_assert_not_null(fi);
	cr_assert_str_eq(fi->image, "libfake.so");
	cr_assert(!fi->resolved);
	cr_assert_eq(fi->lang, SYMBOLIZE_LANG_UNKNOWN);
	fi = profile_frame_info(p, "[unknown]+0x9000");
	cr_assert_not_null(fi);
	cr_assert_null(fi->image);
	/* The root is no symbolized frame, and neither is an absent name. */
	cr_assert_null(profile_frame_info(p, "myprog"));
	cr_assert_null(profile_frame_info(p, "libfake.so+0x999"));
	done(p);
}

Test(profile, deterministic)
{
	struct trace t;
	struct profile_opts o = { .thread_frames = 1 };
	char *a, *b;

	make_trace(&t);
	a = folded(&t, &o);
	b = folded(&t, &o);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
}

Test(profile, root_falls_back_to_pid)
{
	struct trace t;
	char *r;

	make_trace(&t);
	t.session.argc = 0;
	t.session.argv = NULL;
	r = stacks_root_name(&t);
	cr_assert_str_eq(r, "pid 4242");
	free(r);
}

/* Samples in root's stacks, from folded text. */
static unsigned long under_root(const char *folded_text, const char *root)
{
	unsigned long n = 0;
	size_t len = strlen(root);

	for (const char *l = folded_text; *l;) {
		const char *end = strchr(l, '\n'), *count = end;

		if (!end)
			end = count = l + strlen(l);
		while (count > l && count[-1] != ' ')
			count--;
		if (!strncmp(l, root, len) && (l[len] == ';' || l[len] == ' '))
			n += strtoul(count, NULL, 10);
		l = *end ? end + 1 : end;
	}
	return n;
}

/* make_trace()'s with a second process, 4300, child of the first: the
 * worker thread's, which ran sh, then execed other at 500. The arrays
 * are static: one such trace at a time. */
static void make_two_processes(struct trace *t)
{
	static char *sh[] = { "/bin/sh" }, *other[] = { "/opt/other", "-x" };
	static struct trace_exec execs[2];
	static struct trace_process procs[2];
	static struct trace_thread th[2];

	execs[0] = (struct trace_exec){ 0, 1, sh };
	execs[1] = (struct trace_exec){ 500, 2, other };
	make_trace(t);
	procs[0] = t->processes[0];
	procs[1] = (struct trace_process){ .id = 2, .pid = 4300, .parent = 0, .nexecs = 2, .execs = execs };
	memcpy(th, t->threads, sizeof(th));
	th[1].process = 1;
	t->processes = procs;
	t->nprocesses = 2;
	t->threads = th;
}

/* Each sample is rooted at the program its process ran at its time. */
Test(profile, root_is_the_program_its_process_ran_then)
{
	struct profile_opts o = { 0 };
	struct trace t;
	char *s;

	make_two_processes(&t);
	s = folded(&t, &o);
	cr_assert_eq(under_root(s, "myprog"), 4, "%s", s);
	cr_assert_eq(under_root(s, "sh"), 2, "%s", s);
	cr_assert_eq(under_root(s, "other"), 1, "%s", s);
	free(s);
}

/* Before its first exec a child runs the program its parent forked it
 * in: the worker's process here only execs other at 500. */
Test(profile, before_its_exec_a_child_runs_its_parents_program)
{
	struct profile_opts o = { 0 };
	struct trace t;
	char *s;

	make_two_processes(&t);
	t.processes[1].execs++;
	t.processes[1].nexecs = 1;
	s = folded(&t, &o);
	cr_assert_eq(under_root(s, "myprog"), 6, "%s", s);
	cr_assert_eq(under_root(s, "other"), 1, "%s", s);
	free(s);
}

/* A process frame names the program and the pid, under the root and
 * over the thread frame. */
Test(profile, process_frames_over_thread_frames)
{
	struct profile_opts o = { .process_frames = 1, .thread_frames = 1 };
	struct trace t;
	char *s;

	make_two_processes(&t);
	s = folded(&t, &o);
	cr_assert_eq(under_root(s, "myprog;myprog [4242];main [10]"), 4, "%s", s);
	cr_assert_eq(under_root(s, "sh;sh [4300];worker [11]"), 2, "%s", s);
	cr_assert_eq(under_root(s, "other;other [4300];re\\x3bnamed [11]"), 1, "%s", s);
	free(s);
}

/* --pid keeps a process's samples whatever it ran; --process those whose
 * program, when sampled, has a matching name; the two together both. */
Test(profile, filter_pid_and_process)
{
	uint32_t pids[] = { 4300 }, other_pids[] = { 4242 };
	struct profile_opts o = { .filter = { .pids = pids, .npids = 1 } };
	uint64_t n;
	regex_t re;
	struct trace t;
	char *s;

	make_two_processes(&t);
	s = folded_n(&t, &o, &n);
	cr_assert_eq(n, 3, "%s", s);
	cr_assert_eq(under_root(s, "myprog"), 0, "%s", s);
	free(s);
	cr_assert_eq(regcomp(&re, "^oth", REG_EXTENDED | REG_NOSUB), 0);
	o.filter = (struct stacks_filter){ .process_re = &re };
	s = folded_n(&t, &o, &n);
	cr_assert_eq(n, 1, "%s", s);
	cr_assert_eq(under_root(s, "other"), 1, "%s", s);
	free(s);
	o.filter.pids = other_pids;
	o.filter.npids = 1;
	s = folded_n(&t, &o, &n);
	cr_assert_eq(n, 0, "%s", s);
	free(s);
	regfree(&re);
}

Test(profile, thread_frames_use_name_when_sampled)
{
	struct trace t;
	struct profile_opts o = { .thread_frames = 1 };
	char *s;

	make_trace(&t);
	s = folded(&t, &o);
	cr_assert_str_eq(s,
		"myprog;main [10] 1\n"
		"myprog;main [10];libfake.so+0x100;[unknown]+0x9000 1\n"
		"myprog;main [10];libfake.so+0x100;libfake.so+0x200 2\n"
		"myprog;re\\x3bnamed [11];libfake.so+0x100;libfake.so+0x300 1\n"
		"myprog;worker [11];libfake.so+0x100;libfake.so+0x200 1\n"
		"myprog;worker [11];libfake.so+0x100;libfake.so+0x300 1\n");
	free(s);
}

Test(profile, filter_tid)
{
	struct trace t;
	uint32_t tids[] = { 11 };
	struct profile_opts o = { .filter = { .tids = tids, .ntids = 1 } };
	char *s;

	make_trace(&t);
	s = folded(&t, &o);
	cr_assert_str_eq(s,
		"myprog;libfake.so+0x100;libfake.so+0x200 1\n"
		"myprog;libfake.so+0x100;libfake.so+0x300 2\n");
	free(s);
}

Test(profile, filter_thread_regex_at_sample_time)
{
	struct trace t;
	regex_t re;
	struct profile_opts o = { .filter = { .thread_re = &re } };
	char *s;

	make_trace(&t);
	cr_assert_eq(regcomp(&re, "^re;", REG_EXTENDED | REG_NOSUB), 0);
	s = folded(&t, &o);
	/* Only tid 11's sample at time 600, after its rename. */
	cr_assert_str_eq(s, "myprog;libfake.so+0x100;libfake.so+0x300 1\n");
	free(s);
	regfree(&re);
}

Test(profile, filter_state)
{
	struct trace t;
	struct profile_opts o = { .filter = { .state = STACKS_STATE_IDLE } };
	char *s;

	make_trace(&t);
	s = folded(&t, &o);
	cr_assert_str_eq(s, "myprog;libfake.so+0x100;libfake.so+0x300 2\n");
	free(s);
	o.filter.state = STACKS_STATE_RUNNING;
	s = folded(&t, &o);
	cr_assert_str_eq(s, "myprog 1\nmyprog;libfake.so+0x100;libfake.so+0x200 3\n");
	free(s);
}

Test(profile, same_name_merges_across_addresses)
{
	struct trace t;
	struct trace_node n2[] = { { 0, 0 }, { 0x9000, 0 }, { 0x9000, 0 } };
	struct trace_sample s2[] = { { 1, 10, 1, TRACE_STATE_RUNNING, 0 , 0 },
				     { 2, 10, 2, TRACE_STATE_RUNNING, 0 , 0 } };
	struct profile_opts o = { 0 };
	char *s;

	make_trace(&t);
	t.nodes = n2;
	t.nnodes = 3;
	t.samples = s2;
	t.nsamples = 2;
	s = folded(&t, &o);
	cr_assert_str_eq(s, "myprog;[unknown]+0x9000 2\n");
	free(s);
}

Test(profile, filter_time_window)
{
	struct trace t;
	struct profile_opts o = { .filter = { .from = 500, .to = 750, .has_to = 1 } };
	char *s;

	make_trace(&t);
	s = folded(&t, &o);
	cr_assert_str_eq(s,
		"myprog;libfake.so+0x100;[unknown]+0x9000 1\n"
		"myprog;libfake.so+0x100;libfake.so+0x300 1\n");
	free(s);
}

Test(profile, hostile_parent_chain_is_bounded)
{
	struct trace t;
	/* node 1's parent is itself; node 2's parent is out of range. */
	struct trace_node n2[] = { { 0, 0 }, { 0x9000, 1 }, { 0x9001, 77 } };
	struct trace_sample s2[] = { { 1, 10, 1, TRACE_STATE_RUNNING, 0 , 0 },
				     { 2, 10, 2, TRACE_STATE_RUNNING, 0 , 0 } };
	struct profile_opts o = { 0 };
	struct profile *p;

	make_trace(&t);
	t.nodes = n2;
	t.nnodes = 3;
	t.samples = s2;
	t.nsamples = 2;
	p = build(&t, &o);
	cr_assert_eq(p->nstacks, 2);
	cr_assert_eq(p->samples, 2);
	cr_assert_eq(p->stacks[0].nframes, 2); /* root + [unknown]+0x9000 */
	cr_assert_eq(p->stacks[1].nframes, 2); /* root + [unknown]+0x9001 */
	done(p);
}

static void re(regex_t *r, const char *pat)
{
	cr_assert_eq(regcomp(r, pat, REG_EXTENDED | REG_NOSUB), 0);
}

Test(profile, focus_keeps_whole_stacks_with_a_match)
{
	struct trace t;
	regex_t f;
	struct profile_opts o = { .filter = { .focus = &f } };
	uint64_t n;
	char *s;

	make_trace(&t);
	re(&f, "0x300$");
	s = folded_n(&t, &o, &n);
	/* The caller above the match stays: focus does not trim. */
	cr_assert_str_eq(s, "myprog;libfake.so+0x100;libfake.so+0x300 2\n");
	cr_assert_eq(n, 2);
	free(s);
	regfree(&f);

	/* A caller matches every stack through it, but not the empty one. */
	re(&f, "libfake\\.so\\+0x100");
	s = folded_n(&t, &o, &n);
	cr_assert_str_eq(s,
		"myprog;libfake.so+0x100;[unknown]+0x9000 1\n"
		"myprog;libfake.so+0x100;libfake.so+0x200 3\n"
		"myprog;libfake.so+0x100;libfake.so+0x300 2\n");
	cr_assert_eq(n, 6);
	free(s);
	regfree(&f);
}

Test(profile, exclude_drops_stacks_with_a_match)
{
	struct trace t;
	regex_t x;
	struct profile_opts o = { .filter = { .exclude = &x } };
	uint64_t n;
	char *s;

	make_trace(&t);
	re(&x, "0x[23]00$");
	s = folded_n(&t, &o, &n);
	cr_assert_str_eq(s, "myprog 1\nmyprog;libfake.so+0x100;[unknown]+0x9000 1\n");
	cr_assert_eq(n, 2);
	free(s);
	regfree(&x);
}

Test(profile, exclude_wins_over_focus)
{
	struct trace t;
	regex_t f, x;
	struct profile_opts o = { .filter = { .focus = &f, .exclude = &x } };
	uint64_t n;
	char *s;

	make_trace(&t);
	re(&f, "0x100$");
	re(&x, "0x200$");
	s = folded_n(&t, &o, &n);
	cr_assert_str_eq(s,
		"myprog;libfake.so+0x100;[unknown]+0x9000 1\n"
		"myprog;libfake.so+0x100;libfake.so+0x300 2\n");
	cr_assert_eq(n, 3);
	free(s);
	regfree(&f);
	regfree(&x);
}

Test(profile, focus_ignores_root_and_thread_frames)
{
	struct trace t;
	regex_t f;
	struct profile_opts o = { .filter = { .focus = &f }, .thread_frames = 1 };
	uint64_t n;
	char *s;

	make_trace(&t);
	re(&f, "myprog|worker|main");
	s = folded_n(&t, &o, &n);
	cr_assert_str_eq(s, "");
	cr_assert_eq(n, 0);
	free(s);
	regfree(&f);
}

Test(profile, focus_combines_with_the_sample_filter)
{
	struct trace t;
	regex_t f;
	uint32_t tids[] = { 10 };
	struct profile_opts o = { .filter = { .focus = &f, .tids = tids, .ntids = 1 } };
	uint64_t n;
	char *s;

	make_trace(&t);
	re(&f, "0x[23]00$");
	s = folded_n(&t, &o, &n);
	cr_assert_str_eq(s, "myprog;libfake.so+0x100;libfake.so+0x200 2\n");
	cr_assert_eq(n, 2);
	free(s);
	regfree(&f);
}

/* The sample callback: told each kept sample with its key, and each key
 * mapped to the stack its samples were counted in. */
struct seen {
	size_t keys[64];
	size_t n;
};

static void note_sample(void *ctx, const struct trace_sample *s, size_t key)
{
	struct seen *sn = ctx;

	(void)s;
	cr_assert_lt(sn->n, 64);
	sn->keys[sn->n++] = key;
}

Test(profile, sample_callback_keys_map_to_stacks)
{
	struct trace t;
	struct seen sn = { .n = 0 };
	struct profile_opts o = { .sample = note_sample, .ctx = &sn };
	struct profile *p;
	uint64_t per_stack[8] = { 0 };

	make_trace(&t);
	p = build(&t, &o);
	cr_assert_eq(sn.n, p->samples);
	cr_assert_not_null(p->key_stacks);
	for (size_t i = 0; i < sn.n; i++) {
		cr_assert_lt(p->key_stacks[sn.keys[i]], p->nstacks);
		per_stack[p->key_stacks[sn.keys[i]]]++;
	}
	/* every stack's count is the samples whose key maps to it */
	for (size_t i = 0; i < p->nstacks; i++)
		cr_assert_eq(per_stack[i], p->stacks[i].count, "stack %zu", i);
	done(p);
}

Test(profile, no_callback_no_key_map)
{
	struct trace t;
	struct profile_opts o = { 0 };
	struct profile *p;

	make_trace(&t);
	p = build(&t, &o);
	cr_assert_null(p->key_stacks);
	done(p);
}
