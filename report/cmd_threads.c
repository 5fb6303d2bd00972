/*
 * cmd_threads.c: 'prof-report threads TRACE', a table of the threads with
 * their sample counts, how much of the time they were running rather than
 * waiting, and when they were first and last sampled and alive.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/text.h"
#include "report/thread_table.h"

static const char usage[] =
	"usage: prof-report threads [OPTIONS] TRACE\n"
	"\n"
	"Prints one line per thread: tid, name, samples, the share of samples\n"
	"running and waiting, the first and last sample and the thread's start\n"
	"and end, in seconds from the start of the recording.\n"
	"\n"
	CLI_COMMON_HELP;

#define NAME_MAX_WIDTH 32

/* Seconds since the recording started, or "-". */
static void add_time(struct buf *b, const struct trace *t, int valid, uint64_t ns)
{
	if (!valid) {
		buf_addstr(b, "-");
		return;
	}
	if (ns >= t->session.start_monotonic_ns)
		buf_addf(b, "%.3f", (double)(ns - t->session.start_monotonic_ns) / 1e9);
	else
		buf_addf(b, "-%.3f", (double)(t->session.start_monotonic_ns - ns) / 1e9);
}

static void add_share(struct buf *b, uint64_t part, uint64_t whole)
{
	if (!whole)
		buf_addstr(b, "-");
	else
		buf_addf(b, "%.1f%%", 100.0 * (double)part / (double)whole);
}

int cmd_threads(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace ct;
	const struct trace *t;
	struct thread_table tt;
	struct profile_filter f;
	struct buf name, cell[6];
	size_t i, w = 4;
	int first, k;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	cli_open(&o, argv[first], CLI_LOADED, &ct);
	t = ct.t;
	f = cli_filter(&o);
	thread_table_build(t, &f, &tt);

	buf_init(&name);
	for (k = 0; k < 6; k++)
		buf_init(&cell[k]);
	for (i = 0; i < tt.nrows; i++) {
		buf_reset(&name);
		text_escape(&name, tt.rows[i].name);
		if (name.len > w)
			w = name.len > NAME_MAX_WIDTH ? NAME_MAX_WIDTH : name.len;
	}
	printf("%8s  %-*s  %8s  %7s  %7s  %9s  %9s  %9s  %9s\n", "TID", (int)w, "NAME",
	       "SAMPLES", "RUNNING", "WAITING", "FIRST", "LAST", "START", "END");
	for (i = 0; i < tt.nrows; i++) {
		const struct thread_table_row *r = &tt.rows[i];

		buf_reset(&name);
		text_escape(&name, r->name);
		if (name.len > w) {
			/* Cut long names, marking the cut. */
			name.len = w - 1;
			buf_addch(&name, '~');
		}
		for (k = 0; k < 6; k++)
			buf_reset(&cell[k]);
		add_share(&cell[0], r->running, r->samples);
		add_share(&cell[1], r->waiting, r->samples);
		add_time(&cell[2], t, r->samples > 0, r->first);
		add_time(&cell[3], t, r->samples > 0, r->last);
		add_time(&cell[4], t, r->known, r->start);
		add_time(&cell[5], t, r->known && r->end, r->end);
		printf("%8" PRIu32 "  %-*s  %8" PRIu64 "  %7s  %7s  %9s  %9s  %9s  %9s\n", r->tid,
		       (int)w, (char *)name.data, r->samples, (char *)cell[0].data,
		       (char *)cell[1].data, (char *)cell[2].data, (char *)cell[3].data,
		       (char *)cell[4].data, (char *)cell[5].data);
	}
	printf("%zu thread%s, %" PRIu64 " sample%s\n", tt.nrows, tt.nrows == 1 ? "" : "s",
	       tt.samples, tt.samples == 1 ? "" : "s");
	diag_close_stdout();
	buf_release(&name);
	for (k = 0; k < 6; k++)
		buf_release(&cell[k]);
	thread_table_release(&tt);
	cli_close(&ct);
	cli_release(&o);
	return 0;
}
