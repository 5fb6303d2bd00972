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
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/output/thread_split.h"
#include "report/output/thread_table.h"

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
		die("cannot create '%s': %s", dir, prof_strerror(err));
	return dirfd;
}

static void split(const struct cli_report *r, const struct cli_graph *g, const char *dir,
		  const struct cli_trace *ct, const struct thread_table *tt, int dirfd)
{
	struct thread_split_opts so = { .profile = cli_profile_opts(r), .graph = cli_graph_opts(g) };
	char *failed = NULL;
	int err;

	err = thread_split_write(dirfd, ct->stacks, tt, &so, &failed);
	if (err < 0 && failed)
		die("cannot write '%s/%s': %s", dir, failed, prof_strerror(err));
	if (err < 0)
		die("cannot split '%s' into '%s': %s", ct->path, dir, prof_strerror(err));
	if (close(dirfd) < 0)
		die_errno("cannot write '%s'", dir);
}

int cmd_threads(int argc, char **argv)
{
	struct cli_report r = { 0 };
	struct cli_graph g = CLI_GRAPH_INIT;
	const char *split_dir = NULL;
	int json = 0;
	const struct opt_option options[] = {
		OPT_STRING(0, "split", "DIR", &split_dir,
			   "also write TID-NAME.folded and TID-NAME.svg for each\n"
			   "thread with samples, and DIR/index.html linking them\n"
			   "with a timeline; DIR is created, or must be empty"),
		OPT_FLAG(0, "json", &json, "write the table as JSON (prof-json(5))"),
		CLI_OPT_COLORS(&g),
		CLI_OPT_THREAD_FRAMES(&r),
		CLI_GRAPH_OPTIONS(&g, "the graphs' title (default \"NAME [TID]\")"),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"threads", "[TRACE...]", 0, -1,
		"Prints one line per thread: tid, name, samples, the share of samples\n"
		"running and waiting, the first and last sample and the thread's start\n"
		"and end, in seconds from the start of the recording. --colors,\n"
		"--thread-frames and the graph options are for the graphs of --split.",
		options,
	};
	struct cli_trace ct;
	struct thread_table tt;
	struct thread_table_opts to;
	int first, dirfd = -1;

	first = opt_parse(&cmd, argc, argv);
	r.names_only = g.colors != FLAMEGRAPH_PALETTE_LANG;
	/* Frames are named only when something looks at them. */
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first),
		 split_dir || r.focus.set || r.exclude.set ? CLI_SYMBOLIZED : CLI_LOADED, &ct);
	if (split_dir)
		dirfd = open_split_dir(split_dir);
	to = (struct thread_table_opts){ .filter = cli_filter(&r), .nbins = split_dir ? SPLIT_BINS : 0 };
	thread_table_build(ct.stacks, &to, &tt);
	if ((json ? thread_table_write_json(stdout, ct.t, &tt) : thread_table_write(stdout, ct.t, &tt)) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	if (split_dir)
		split(&r, &g, split_dir, &ct, &tt, dirfd);
	thread_table_release(&tt);
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
