/*
 * cmd_threads.c: 'prof-report threads TRACE', a table of the threads with
 * their sample counts, how much of the time they were running rather than
 * waiting, and when they were first and last sampled and alive; with
 * --split DIR, also a folded file and a flame graph per thread and an
 * index.html with a timeline.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/thread_split.h"
#include "report/thread_table.h"

static const char usage[] =
	"usage: prof-report threads [--split DIR] [OPTIONS] TRACE\n"
	"\n"
	"Prints one line per thread: tid, name, samples, the share of samples\n"
	"running and waiting, the first and last sample and the thread's start\n"
	"and end, in seconds from the start of the recording.\n"
	"\n"
	"  --split DIR          also write TID-NAME.folded and TID-NAME.svg for each\n"
	"                       thread with samples, and DIR/index.html linking them\n"
	"                       with a timeline; DIR is created, or must be empty\n"
	"  --title TEXT         the graphs' title (default \"NAME [TID]\")\n"
	"  --width PIXELS       the graphs' width (default 1200)\n"
	"  --minwidth PIXELS    in the graphs, merge frames narrower than this\n"
	"                       (default 0.1)\n"
	CLI_LAYOUT_HELP
	"  --colors PALETTE     hot (default), image or lang\n"
	CLI_COMMON_HELP;

/* Timeline slots across the recording: 4 pixels each on the page. */
#define SPLIT_BINS 200

/* Creates or opens --split's directory before anything is printed, so a
 * directory that cannot be used stops the command early. */
static int open_split_dir(const char *dir)
{
	int dirfd, err;

	err = thread_split_open_dir(dir, &dirfd);
	if (err == THREAD_SPLIT_E_NOTEMPTY)
		die("cannot split into '%s': it is not empty (remove its files, or give a new "
		    "directory)", dir);
	if (err < 0)
		die("cannot create '%s': %s", dir, thread_split_strerror(err));
	return dirfd;
}

static void split(const struct cli_opts *o, const struct cli_trace *ct,
		  const struct thread_table *tt, int dirfd)
{
	struct thread_split_opts so = {
		.profile = { .filter = cli_filter(o), .thread_frames = o->thread_frames,
			     .focus = o->have_focus_re ? &o->focus_re : NULL,
			     .exclude = o->have_exclude_re ? &o->exclude_re : NULL },
		.graph = { .title = o->title, .width = o->width, .minwidth = o->minwidth,
			   .reverse = o->reverse, .inverted = o->inverted,
			   .palette = o->colors == CLI_COLORS_IMAGE ? FLAMEGRAPH_PALETTE_IMAGE
				    : o->colors == CLI_COLORS_LANG ? FLAMEGRAPH_PALETTE_LANG
				    : FLAMEGRAPH_PALETTE_HOT,
			   .frame_info = profile_frame_info },
	};
	char *failed = NULL;
	int err;

	err = thread_split_write(dirfd, ct->t, ct->sym, tt, &so, &failed);
	if (err < 0 && failed)
		die("cannot write '%s/%s': %s", o->split_dir, failed, thread_split_strerror(err));
	if (err < 0)
		die("cannot split '%s' into '%s': %s", ct->path, o->split_dir,
		    thread_split_strerror(err));
	if (close(dirfd) < 0)
		die_errno("cannot write '%s'", o->split_dir);
}

int cmd_threads(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace ct;
	struct thread_table tt;
	struct thread_table_opts to;
	int first, err, dirfd = -1;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	/* Frames are named only when something looks at them. */
	cli_open(&o, argv[first],
		 o.split_dir || o.have_focus_re || o.have_exclude_re ? CLI_SYMBOLIZED : CLI_LOADED, &ct);
	if (o.split_dir)
		dirfd = open_split_dir(o.split_dir);
	to = (struct thread_table_opts){
		.filter = cli_filter(&o),
		.focus = o.have_focus_re ? &o.focus_re : NULL,
		.exclude = o.have_exclude_re ? &o.exclude_re : NULL,
		.sym = ct.sym,
		.nbins = o.split_dir ? SPLIT_BINS : 0,
	};
	if ((err = thread_table_build(ct.t, &to, &tt)) < 0)
		die("cannot read the stacks of '%s': %s", ct.path, locate_strerror(err));
	if (thread_table_write(stdout, ct.t, &tt) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	if (o.split_dir)
		split(&o, &ct, &tt, dirfd);
	thread_table_release(&tt);
	cli_close(&ct);
	cli_release(&o);
	return 0;
}
