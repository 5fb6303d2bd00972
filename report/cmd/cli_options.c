/*
 * cli_options.c: what the shared option groups of cli_options.h mean to
 * the library modules, so that --tid or --state means the same thing in
 * every command that takes it.
 */
#include "report/cmd/cli_options.h"

#include <stdio.h>

const char *const cli_state_words[] = { "all", "running", "idle", "preempted", NULL };
const char *const cli_color_words[] = { "hot", "image", "lang", NULL };

_Static_assert(STACKS_STATE_ALL == 0 && STACKS_STATE_RUNNING == 1 && STACKS_STATE_IDLE == 2 &&
		       STACKS_STATE_PREEMPTED == 3,
	       "cli_state_words are in enum stacks_state's order");
_Static_assert(FLAMEGRAPH_PALETTE_HOT == 0 && FLAMEGRAPH_PALETTE_IMAGE == 1 &&
		       FLAMEGRAPH_PALETTE_LANG == 2,
	       "cli_color_words are in enum flamegraph_palette's order");

const char *cli_check_filter(const void *report)
{
	const struct cli_report *r = report;

	if (r->to.set && !r->to.mark && !r->from.mark && r->to.ns <= r->from.ns)
		return "option '--to' must be later than '--from'";
	return NULL;
}

struct stacks_filter cli_filter(const struct cli_report *r)
{
	return (struct stacks_filter){
		.tids = r->tids.v,
		.ntids = r->tids.n,
		.thread_re = r->thread.set ? &r->thread.re : NULL,
		.pids = r->pids.v,
		.npids = r->pids.n,
		.process_re = r->process.set ? &r->process.re : NULL,
		.state = r->state,
		.from = r->from.ns,
		.to = r->to.ns,
		.has_to = r->to.set,
		.focus = r->focus.set ? &r->focus.re : NULL,
		.exclude = r->exclude.set ? &r->exclude.re : NULL,
	};
}

struct profile_opts cli_profile_opts(const struct cli_report *r)
{
	return (struct profile_opts){ .filter = cli_filter(r), .thread_frames = r->thread_frames,
				      .process_frames = r->process_frames };
}

struct symbolize_opts cli_symbolize_opts(const struct cli_report *r)
{
	return (struct symbolize_opts){
		.symbol_dirs = r->symbols.v,
		.nsymbol_dirs = r->symbols.n,
		.fetch = !r->offline,
		.addresses = r->addresses,
		.no_inline = r->no_inline,
		.lines = r->lines,
		.signatures = r->signatures,
		.names_only = r->names_only,
	};
}

struct flamegraph_opts cli_graph_opts(const struct cli_graph *g)
{
	return (struct flamegraph_opts){
		.title = g->title, .width = (unsigned)g->width, .minwidth = g->minwidth,
		.reverse = g->reverse, .inverted = g->inverted, .palette = g->colors,
		.frame_info = profile_frame_info,
	};
}

const char *cli_check_sources(const void *sources)
{
	const struct cli_sources *o = sources;
	static char msg[256];

	for (size_t i = 0; i < o->maps.n; i++) {
		const char *why = srcfile_map_check(o->maps.v[i]);

		if (why) {
			snprintf(msg, sizeof(msg), "option '--source-map': '%.160s' is %s", o->maps.v[i], why);
			return msg;
		}
	}
	return NULL;
}

struct srcfile *cli_srcfile(const struct cli_sources *o, struct pack *pack)
{
	struct srcfile_opts so = { .dirs = o->dirs.v, .ndirs = o->dirs.n, .maps = o->maps.v,
				   .nmaps = o->maps.n, .pack = pack };

	return srcfile_new(&so);
}
