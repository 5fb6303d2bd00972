/*
 * cli_trace.c: the files a prof-report command reads and writes. It loads
 * the trace, prof.trace when none is named (as perf report reads
 * perf.data), or several as one (format/trace_merge.c), refusing a file
 * named twice, and warns in one line per file about what did not read
 * back whole;
 * finds the symbol packs; and opens the output, where "-" is standard
 * output and a lost write is an error. While it loads, symbolizes and
 * folds, a report that takes more than a second says how far it is on a
 * terminal's standard error (common/progress.h), and clears the line
 * before the command writes.
 */
#include "report/cmd/cli_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/progress.h"
#include "common/timing.h"
#include "format/trace_pack.h"
#include "report/symbols/pack.h"

void cli_chunk_names(struct buf *b, uint32_t seq, uint32_t nseq)
{
	if (nseq > 1)
		buf_addf(b, "chunks %" PRIu32 "-%" PRIu32, seq, seq + (nseq - 1));
	else
		buf_addf(b, "chunk %" PRIu32, seq);
}

/* The listed loss of this kind (and damage, for TRACE_LOSS_DAMAGED; -1
 * for any), if it is the only one, or NULL. */
static const struct trace_loss *only_loss(const struct trace_load_status *st, int kind, int damage)
{
	const struct trace_loss *found = NULL;

	for (size_t i = 0; i < st->nlosses; i++) {
		const struct trace_loss *l = &st->losses[i];
		if (l->kind != kind || (damage >= 0 && l->damage != damage))
			continue;
		if (found)
			return NULL;
		found = l;
	}
	return found;
}

/* Appends ", " and then a count of chunks, naming the chunk if it is the
 * only one listed. */
static void add_chunks(struct buf *b, const struct trace_load_status *st, int kind,
		       uint64_t count, const char *what)
{
	const struct trace_loss *l = only_loss(st, kind, -1);

	buf_addstr(b, ", ");
	if (count == 1 && l && l->nseq == 1)
		cli_chunk_names(b, l->seq, 1);
	else
		buf_addf(b, "%" PRIu64 " chunks", count);
	buf_addf(b, " %s", what);
}

void cli_loss_words(struct buf *b, const struct trace_load_status *st, int trace)
{
	const struct trace_loss *cut = only_loss(st, TRACE_LOSS_CUT, -1);
	struct buf w; /* each phrase after ", " */

	buf_init(&w);
	if (st->chunks_missing)
		add_chunks(&w, st, TRACE_LOSS_MISSING, st->chunks_missing, "missing");
	if (st->chunks_damaged)
		add_chunks(&w, st, TRACE_LOSS_DAMAGED, st->chunks_damaged, "damaged");
	else if (st->bytes_damaged)
		buf_addf(&w, ", %" PRIu64 " bytes damaged", st->bytes_damaged);
	if (only_loss(st, TRACE_LOSS_DAMAGED, TRACE_DAMAGE_FOOTER))
		buf_addstr(&w, ", its footer disagrees with its chunks");
	if (cut)
		buf_addf(&w, ", cut short (%" PRIu64 " bytes of chunk %" PRIu32 " lost)", cut->bytes,
			 cut->seq);
	if (trace && st->samples_dropped)
		buf_addf(&w, ", %" PRIu64 " sample%s dropped", st->samples_dropped,
			 st->samples_dropped == 1 ? "" : "s");
	if (only_loss(st, TRACE_LOSS_UNFINISHED, -1))
		buf_addstr(&w, ", not finished cleanly (no footer)");
	if (w.len)
		buf_addstr(b, (char *)w.data + 2);
	buf_release(&w);
}

/* The one warning for a trace (a footer is due) or a pack that did not
 * read back whole: what was lost, in a line. */
static void warn_loss(const char *what, const char *path, const struct trace_load_status *st,
		      int trace)
{
	struct buf b;

	buf_init(&b);
	cli_loss_words(&b, st, trace);
	if (b.len)
		warning("%s'%s' is incomplete: %s", what, path, (char *)b.data);
	buf_release(&b);
}

/* The status line of the run, started by the first cli_open(): a report
 * that takes more than a second shows its phases on a terminal. */
static struct progress progress;
static int progress_started;

/* Loads the n traces at paths as one, or the default one if n is 0, and
 * warns of what each did not read back whole. */
static struct trace *load_trace(char *const *paths, size_t n)
{
	const char *def = TRACE_DEFAULT_PATH;
	const char *const *p = n ? (const char *const *)paths : &def;
	struct trace *t = NULL;
	size_t bad = 0;
	int err, prev = timing_enter(TIMING_OPEN);

	err = trace_load_many(p, n ? n : 1, &progress, &t, &bad);
	timing_leave(prev);
	if (err == -ENOENT && !n)
		die("no trace named, and no '%s' here to read instead: record one with "
		    "'prof-record -- COMMAND', or name the TRACE to read", def);
	if (err == TRACE_E_MACHINES || err == TRACE_E_TWICE)
		die("cannot report the traces as one: %s", prof_strerror(err));
	if (err < 0)
		die("cannot read '%s': %s", p[bad], prof_strerror(err));
	if (!t->nfiles)
		warn_loss("", p[0], &t->status, 1);
	for (size_t i = 0; i < t->nfiles; i++)
		warn_loss("", t->files[i].path, &t->files[i].status, 1);
	return t;
}

/* The index of the first of paths[0..n) that is the same file as an
 * earlier one, whose index *earlier gets, or 0 if there is none. */
static size_t named_twice(char *const *paths, size_t n, size_t *earlier)
{
	struct stat *st = xcalloc(n + 1, sizeof(*st));
	int *have = xcalloc(n + 1, sizeof(*have));
	size_t found = 0;

	for (size_t i = 0; i < n && !found; i++) {
		have[i] = stat(paths[i], &st[i]) == 0;
		for (size_t j = 0; j < i && have[i] && !found; j++) {
			if (have[j] && st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino) {
				found = i;
				*earlier = j;
			}
		}
	}
	free(have);
	free(st);
	return found;
}

/* Refuses, as bad usage, a trace named twice (by one path or two): its
 * samples would count twice. */
static void check_once(const struct opt_command *cmd, char *const *paths, size_t n)
{
	size_t j = 0, i = named_twice(paths, n, &j);

	if (i)
		opt_usage_error(cmd, strcmp(paths[i], paths[j]) ? "'%s' is the same file as '%s'; name each trace once"
				: "'%s' is named twice; name each trace once", paths[i], paths[j]);
}

int cli_output_is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

FILE *cli_output_open(const char *path)
{
	FILE *f;

	if (cli_output_is_stdout(path))
		return stdout;
	if (!(f = fopen(path, "w")))
		die_errno("cannot create '%s'", path);
	return f;
}

void cli_output_close(const char *path, FILE *f)
{
	if (cli_output_is_stdout(path))
		diag_close_stdout();
	else if (fclose(f) != 0)
		die_errno("cannot write '%s'", path);
}

/* Adds the packs of the trace at path: pack, the one it embeds (or
 * NULL), and then path.syms if there is one. */
static void add_trace_packs(struct pack *p, const char *path, struct trace_pack *pack)
{
	struct trace_pack *s;
	char *side = xasprintf("%s.syms", path);
	int err;

	if (pack)
		pack_add(p, pack, path, 0);
	if (access(side, F_OK) == 0) {
		if ((err = trace_pack_load(side, &s)) < 0) {
			warning("not using pack '%s': %s", side, prof_strerror(err));
		} else {
			warn_loss("pack ", side, &s->status, 0);
			pack_add(p, s, side, 1);
		}
	}
	free(side);
}

static struct pack *load_packs(const struct cli_report *r, const char *path, struct trace *t)
{
	struct pack *p = pack_new();
	struct trace_pack *s;
	size_t i;
	int err;

	for (i = 0; i < r->packs.n; i++) {
		if ((err = trace_pack_load(r->packs.v[i], &s)) < 0)
			die("cannot read pack '%s': %s", r->packs.v[i], prof_strerror(err));
		warn_loss("pack ", r->packs.v[i], &s->status, 0);
		pack_add(p, s, r->packs.v[i], 1);
	}
	if (!t->nfiles)
		add_trace_packs(p, path, t->pack);
	for (i = 0; i < t->nfiles; i++)
		add_trace_packs(p, t->files[i].path, t->files[i].pack);
	return p;
}

/* Sets the times of --from and --to given as marks to those of the
 * trace's marks (of each trace in turn, when a command opens several
 * apart): --from the first mark of its name, --to the first of its name
 * after --from. where names the trace in messages: "'PATH'", or what
 * several files merged are. */
static void resolve_marks(struct cli_report *r, const struct trace *t, const char *where)
{
	uint64_t start = t->session.start_monotonic_ns, from = start + r->from.ns;
	long i;

	if (r->from.mark) {
		if ((i = trace_mark_find(t, r->from.mark, 0)) < 0)
			die("option '--from': no mark '%s' in %s%s", r->from.mark, where,
			    t->nmarks ? "" : ", which has none");
		from = t->marks[i].time;
		r->from.ns = trace_since_start_ns(t, from);
	}
	if (r->to.mark) {
		if ((i = trace_mark_find(t, r->to.mark, r->from.set ? from + 1 : 0)) < 0)
			die("option '--to': no mark '%s'%s in %s%s", r->to.mark,
			    r->from.set ? " after '--from'" : "", where, t->nmarks ? "" : ", which has none");
		r->to.ns = trace_since_start_ns(t, t->marks[i].time);
	}
	if ((r->from.mark || r->to.mark) && r->to.set && r->to.ns <= r->from.ns)
		die("option '--to' must be later than '--from' (%.3f s and %.3f s in %s)",
		    (double)r->to.ns / 1e9, (double)r->from.ns / 1e9, where);
}

void cli_open(struct cli_report *r, const struct opt_command *cmd, char *const *paths, size_t n,
	      enum cli_stage stage, struct cli_trace *ct)
{
	struct symbolize_opts so = cli_symbolize_opts(r);
	struct profile_opts po;
	char *where;

	if (!progress_started) {
		progress_init(&progress, progress_stderr(0));
		progress_started = 1;
	}
	check_once(cmd, paths, n);
	*ct = (struct cli_trace){ .path = n ? paths[0] : TRACE_DEFAULT_PATH, .t = load_trace(paths, n),
				  .progress = &progress };
	where = n > 1 ? xasprintf("the %zu traces", n) : xasprintf("'%s'", ct->path);
	resolve_marks(r, ct->t, where);
	free(where);
	po = cli_profile_opts(r);
	po.progress = &progress;
	so.progress = &progress;
	if (stage >= CLI_SYMBOLIZED) {
		if (!r->addresses)
			so.pack = ct->pack = load_packs(r, ct->path, ct->t);
		ct->sym = symbolize_new(ct->t, &so);
	}
	ct->stacks = stacks_new(ct->t, ct->sym);
	if (stage >= CLI_PROFILED) {
		timing_enter(TIMING_PROFILE);
		ct->p = profile_build(ct->stacks, &po);
	}
	progress_end(&progress);
	timing_enter(TIMING_OUTPUT);
}

void cli_close(struct cli_trace *ct)
{
	timing_enter(TIMING_RELEASE);
	progress_end(ct->progress);
	profile_free(ct->p);
	stacks_free(ct->stacks);
	symbolize_free(ct->sym);
	pack_free(ct->pack);
	trace_free(ct->t);
}

char *cli_subtitle(const struct trace *t, const struct profile *p)
{
	struct buf b;
	uint64_t dur = trace_duration_ns(t);

	buf_init(&b);
	for (uint32_t i = 0; i < t->session.argc && b.len < 200; i++)
		buf_addf(&b, "%s%s", i ? " " : "", t->session.argv[i]);
	if (dur)
		buf_addf(&b, ", %.1f s", (double)dur / 1e9);
	buf_addf(&b, ", %llu samples, %s mode at %u Hz", (unsigned long long)p->samples,
		 trace_mode_name(t->session.mode), t->session.rate_hz);
	return buf_detach(&b);
}
