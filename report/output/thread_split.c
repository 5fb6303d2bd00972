/*
 * thread_split.c: a directory of per-thread outputs and the page that ties
 * them together.
 *
 * Each thread's profile is built from the whole trace with only its tid
 * selected, so it is exactly what 'folded --tid TID' (with the same other
 * options) prints, and the symbolizer's cache makes every later thread
 * cheaper. The timeline is drawn from the thread table's bins, merging runs
 * of equal slots into one rectangle, so its size grows with the number of
 * state changes, not of samples. The trace's marks and pauses are drawn
 * over the strips, at most one line per pixel and one band per pixel
 * overlap, so a trace with a million marks still makes a page of a few
 * hundred lines. Every name that reaches the page goes through the XML
 * escaper, and the page forbids scripts outright in its
 * Content-Security-Policy, in case one ever did not.
 */
#include "report/output/thread_split.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/output/folded.h"

#define LABEL_W 220   /* the timeline's name column, pixels */
#define STRIP_W 800   /* the strips */
#define ROW_H 18
#define BAR_H 14
#define TOP_H 26      /* the legend above the strips */
#define AXIS_H 30     /* the time axis below */
#define MARK_H 16     /* the marks' names, between legend and strips */
#define LABEL_MAX 28  /* bytes of a name in the timeline */
#define NAME_MAX_BYTES 256
/* A mark label's width per character, pixels: a guess a little wider than
 * the average of 11-pixel sans-serif, since the page cannot measure. */
#define MARK_CHAR_W 7
#define MARK_GAP 4        /* the least space between two mark labels */
#define MARK_TITLE_MAX 8  /* marks a line's tooltip names */

#define COLOR_RUNNING "#3c9a50"
#define COLOR_WAITING "#8fb3de"
#define COLOR_PREEMPTED "#e0a040"
#define COLOR_UNKNOWN "#c8c8c8"
#define COLOR_NONE "#f2f2f2"
#define COLOR_MARK "#c0392b"
#define COLOR_PAUSED "#707070"

int thread_split_open_dir(const char *path, int *dirfd)
{
	struct dirent *de;
	DIR *d = NULL;
	int fd = -1, fd2 = -1, err = 0;

	*dirfd = -1;
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* List through a second descriptor: readdir moves its offset. */
	fd2 = dup(fd);
	if (fd2 < 0 || !(d = fdopendir(fd2))) {
		err = -errno;
		goto out;
	}
	fd2 = -1; /* d owns it */
	errno = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			err = THREAD_SPLIT_E_NOTEMPTY;
			goto out;
		}
	}
	if (errno)
		err = -errno;
out:
	if (d)
		closedir(d);
	if (fd2 >= 0)
		close(fd2);
	if (err < 0 && fd >= 0)
		close(fd);
	else
		*dirfd = fd;
	return err;
}

/* A new file name in dirfd, for writing; never an existing file or a link. */
static int create_at(int dirfd, const char *name, FILE **out)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (!(*out = fdopen(fd, "w"))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return 0;
}

/* Flushes and closes f, which was written with ret as the writer's
 * result: returns ret if it was an error, else what flushing and closing
 * said (a full disk shows only here). */
static int finish(FILE *f, int ret)
{
	int err = 0;

	if (fflush(f) != 0)
		err = -errno;
	else if (ferror(f))
		err = -EIO;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return ret < 0 ? ret : err;
}

static void add_html(struct buf *b, const char *s, size_t max)
{
	flamegraph_xml_escape(b, s ? s : "", max);
}

/* The thread's label: "NAME [TID]", "?" for no name, as thread frames. */
static char *label_of(const struct thread_table_row *r)
{
	return xasprintf("%s [%" PRIu32 "]", r->name && r->name[0] ? r->name : "?", r->tid);
}

/* STEM.folded and STEM.svg for row r. */
static int write_thread(int dirfd, struct stacks *st, const struct thread_table_row *r,
			const char *stem,
			const struct thread_split_opts *o, char **failed)
{
	struct profile_opts po = o->profile;
	struct flamegraph_opts go = o->graph;
	struct profile *p = NULL;
	struct buf sub, run, wait;
	char *name = NULL, *title = NULL;
	FILE *f = NULL;
	uint32_t tid = r->tid;
	int err;

	buf_init(&sub);
	buf_init(&run);
	buf_init(&wait);
	po.filter.tids = &tid;
	po.filter.ntids = 1;
	p = profile_build(st, &po);

	name = xasprintf("%s.folded", stem);
	if ((err = create_at(dirfd, name, &f)) < 0)
		goto out;
	err = finish(f, folded_write(f, p));
	f = NULL;
	if (err < 0)
		goto out;

	free(name);
	name = xasprintf("%s.svg", stem);
	if ((err = create_at(dirfd, name, &f)) < 0)
		goto out;
	title = label_of(r);
	thread_table_add_share(&run, r->running, r->samples);
	thread_table_add_share(&wait, r->waiting, r->samples);
	buf_addf(&sub, "thread %" PRIu32 ": %" PRIu64 " sample%s, %s running, %s waiting", r->tid,
		 p->samples, p->samples == 1 ? "" : "s", (char *)run.data, (char *)wait.data);
	if (!go.title)
		go.title = title;
	go.subtitle = (char *)sub.data;
	err = finish(f, flamegraph_write_svg(f, p, &go));
	f = NULL;
out:
	if (f)
		fclose(f);
	if (err < 0 && failed && name)
		*failed = xstrdup(name);
	free(name);
	free(title);
	buf_release(&sub);
	buf_release(&run);
	buf_release(&wait);
	profile_free(p);
	return err;
}

enum slot_kind { SLOT_NONE, SLOT_RUNNING, SLOT_WAITING, SLOT_PREEMPTED, SLOT_UNKNOWN };

/* What a slot shows: the state most of its samples had; ties go to
 * running, then waiting, then preempted. */
static int slot_kind(const struct thread_table_bin *b)
{
	if (!b || !(b->running | b->waiting | b->preempted | b->unknown))
		return SLOT_NONE;
	if (b->running >= b->waiting && b->running >= b->preempted && b->running >= b->unknown)
		return SLOT_RUNNING;
	if (b->waiting >= b->preempted && b->waiting >= b->unknown)
		return SLOT_WAITING;
	if (b->preempted >= b->unknown)
		return SLOT_PREEMPTED;
	return SLOT_UNKNOWN;
}

static const char *const slot_color[] = { COLOR_NONE, COLOR_RUNNING, COLOR_WAITING,
					  COLOR_PREEMPTED, COLOR_UNKNOWN };
static const char *const slot_word[] = { "not sampled", "running", "waiting", "preempted",
					 "state unknown" };

/* The time at the start of slot i, in trace time. */
static uint64_t slot_time(const struct thread_table *tt, unsigned i)
{
	return tt->span_from + (uint64_t)((unsigned __int128)(tt->span_to - tt->span_from) * i /
					  tt->nbins);
}

static unsigned slot_x(const struct thread_table *tt, unsigned i)
{
	return LABEL_W + (unsigned)((uint64_t)i * STRIP_W / tt->nbins);
}

/* The x of trace time when, which must be within tt's span. */
static unsigned time_x(const struct thread_table *tt, uint64_t when)
{
	return LABEL_W + (unsigned)((unsigned __int128)(when - tt->span_from) * STRIP_W /
				    (tt->span_to - tt->span_from));
}

static int mark_in_span(const struct thread_table *tt, const struct trace_mark *m)
{
	return m->time >= tt->span_from && m->time <= tt->span_to;
}

/* Pause p cut to tt's span, in *a and *b; returns 0 if nothing is left. */
static int pause_in_span(const struct thread_table *tt, const struct trace_range *p, uint64_t *a,
			 uint64_t *b)
{
	*a = p->start > tt->span_from ? p->start : tt->span_from;
	*b = p->end < tt->span_to ? p->end : tt->span_to;
	return *b > *a;
}

/* The characters a browser shows for escaped text: an entity is one, and
 * so is each UTF-8 sequence. */
static size_t shown_width(const struct buf *b)
{
	const unsigned char *p = b->data;
	size_t n = 0;

	for (size_t i = 0; i < b->len; i++) {
		if (p[i] == '&')
			while (i + 1 < b->len && p[i] != ';')
				i++;
		if ((p[i] & 0xc0) != 0x80)
			n++;
	}
	return n;
}

/* Pauses drawn as one band, since their pixels overlap. */
struct pause_band {
	uint64_t first, last; /* the first one's start, the latest end */
	uint64_t paused;      /* time paused in all, each instant once */
	unsigned x1, x2;
	size_t n;
};

static void add_pause_band(struct buf *b, const struct trace *t, const struct pause_band *band,
			   unsigned y, unsigned h)
{
	buf_addf(b, "<rect class=\"paused\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
		 "fill=\"url(#paused)\"><title>paused ", band->x1, y, band->x2 - band->x1, h);
	thread_table_add_time(b, t, 1, band->first);
	buf_addstr(b, " s to ");
	thread_table_add_time(b, t, 1, band->last);
	buf_addstr(b, " s");
	if (band->n > 1)
		buf_addf(b, ", %zu pauses, %.3f s in all", band->n, (double)band->paused / 1e9);
	buf_addstr(b, "</title></rect>\n");
}

/* The pauses within tt's span, from y to y + h, at least a pixel wide;
 * pauses whose pixels overlap share one band. */
static void add_pauses(struct buf *b, const struct trace *t, const struct thread_table *tt,
		       unsigned y, unsigned h)
{
	struct pause_band band = { 0 };
	uint64_t from, to;

	for (size_t i = 0; i < t->npauses; i++) {
		const struct trace_range *p = &t->pauses[i];
		unsigned x1, x2;

		if (!pause_in_span(tt, p, &from, &to))
			continue;
		x1 = time_x(tt, from);
		x2 = time_x(tt, to);
		if (x2 == x1)
			x2 = x1 + 1;
		if (band.n && x1 < band.x2) {
			/* Pauses that overlap (a hand-made file) count once. */
			if (p->end > band.last) {
				band.paused += p->end - (p->start > band.last ? p->start : band.last);
				band.last = p->end;
			}
			if (x2 > band.x2)
				band.x2 = x2;
			band.n++;
			continue;
		}
		if (band.n)
			add_pause_band(b, t, &band, y, h);
		band = (struct pause_band){ p->start, p->end, p->end - p->start, x1, x2, 1 };
	}
	if (band.n)
		add_pause_band(b, t, &band, y, h);
}

/* One line per pixel that has marks, from y to yend, with the first one's
 * name above it where that does not run into the last name drawn, and the
 * names, times and sources of its marks in its tooltip. */
static void add_marks(struct buf *b, const struct trace *t, const struct thread_table *tt,
		      unsigned y, unsigned yend, unsigned width)
{
	struct buf label;
	long free_from = 0; /* where the next label may start */
	size_t i = 0, j, k;

	buf_init(&label);
	while (i < t->nmarks && !mark_in_span(tt, &t->marks[i]))
		i++;
	for (; i < t->nmarks && mark_in_span(tt, &t->marks[i]); i = j) {
		unsigned x = time_x(tt, t->marks[i].time);
		long w, left;
		int end;

		for (j = i + 1; j < t->nmarks && mark_in_span(tt, &t->marks[j]) &&
				time_x(tt, t->marks[j].time) == x; j++)
			;
		buf_addstr(b, "<g class=\"mark\"><title>");
		for (k = i; k < j && k < i + MARK_TITLE_MAX; k++) {
			const struct trace_mark *m = &t->marks[k];

			if (k > i)
				buf_addch(b, '\n');
			add_html(b, m->name, NAME_MAX_BYTES);
			buf_addstr(b, " at ");
			thread_table_add_time(b, t, 1, m->time);
			buf_addf(b, " s (%s)", trace_mark_source_name(m->source));
		}
		if (j - i > MARK_TITLE_MAX)
			buf_addf(b, "\nand %zu more", j - i - MARK_TITLE_MAX);
		/* The second line is the first made wide and invisible, to hover. */
		buf_addf(b, "</title><line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"%s\"/>"
			 "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"%s\" "
			 "stroke-width=\"7\" stroke-opacity=\"0\"/>",
			 x, y, x, yend, COLOR_MARK, x, y, x, yend, COLOR_MARK);
		buf_reset(&label);
		add_html(&label, t->marks[i].name, LABEL_MAX);
		w = (long)shown_width(&label) * MARK_CHAR_W;
		/* Right of the line, or left of it if that fits and the right
		 * does not. */
		end = x + 3 + w > width && (long)x - 3 - w >= 0;
		left = end ? (long)x - 3 - w : (long)x + 3;
		if (label.len && left >= free_from) {
			buf_addf(b, "<text x=\"%u\" y=\"%u\" font-size=\"11\" fill=\"%s\"%s>",
				 end ? x - 3 : x + 3, y + 10, COLOR_MARK,
				 end ? " text-anchor=\"end\"" : "");
			buf_add(b, label.data, label.len);
			buf_addstr(b, "</text>");
			free_from = left + w + MARK_GAP;
		}
		buf_addstr(b, "</g>\n");
	}
	buf_release(&label);
}

static void add_timeline(struct buf *b, const struct trace *t, const struct thread_table *tt)
{
	int has_marks = 0, has_pauses = 0;
	unsigned top, w, h, yaxis, k, i, j;
	uint64_t a, e;
	size_t n;

	for (n = 0; n < t->nmarks && !has_marks; n++)
		has_marks = mark_in_span(tt, &t->marks[n]);
	for (n = 0; n < t->npauses && !has_pauses; n++)
		has_pauses = pause_in_span(tt, &t->pauses[n], &a, &e);
	/* Without marks or pauses the page is as it was before them. */
	top = TOP_H + (has_marks ? MARK_H : 0);
	w = LABEL_W + STRIP_W + 40;
	h = top + (unsigned)tt->nrows * ROW_H + AXIS_H;
	yaxis = top + (unsigned)tt->nrows * ROW_H + 4;
	buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%u\" "
		 "height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"12\">\n",
		 w, h, w, h);
	if (has_pauses)
		buf_addstr(b, "<defs><pattern id=\"paused\" width=\"6\" height=\"6\" "
			      "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
			      "<rect width=\"6\" height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.6\"/>"
			      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"" COLOR_PAUSED "\" "
			      "stroke-width=\"2\"/></pattern></defs>\n");
	for (k = SLOT_RUNNING; k <= SLOT_UNKNOWN; k++)
		buf_addf(b, "<rect x=\"%u\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			 "<text x=\"%u\" y=\"16\">%s</text>\n",
			 LABEL_W + (k - 1) * 120, slot_color[k], LABEL_W + (k - 1) * 120 + 16, slot_word[k]);
	if (has_pauses)
		buf_addf(b, "<rect x=\"%u\" y=\"6\" width=\"12\" height=\"12\" fill=\"url(#paused)\" "
			 "stroke=\"%s\"/><text x=\"%u\" y=\"16\">paused</text>\n",
			 LABEL_W + 4 * 120, COLOR_PAUSED, LABEL_W + 4 * 120 + 16);
	for (size_t r = 0; r < tt->nrows; r++) {
		const struct thread_table_row *row = &tt->rows[r];
		unsigned y = top + (unsigned)r * ROW_H;
		char *label = label_of(row);

		buf_addf(b, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">", LABEL_W - 6, y + 11);
		add_html(b, label, LABEL_MAX);
		buf_addstr(b, "<title>");
		add_html(b, label, NAME_MAX_BYTES);
		buf_addstr(b, "</title></text>\n");
		free(label);
		buf_addf(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"/>\n", LABEL_W,
			 y, STRIP_W, BAR_H, COLOR_NONE);
		for (i = 0; row->bins && i < tt->nbins; i = j) {
			int kind = slot_kind(&row->bins[i]);

			for (j = i + 1; j < tt->nbins && slot_kind(&row->bins[j]) == kind; j++)
				;
			if (kind == SLOT_NONE)
				continue;
			buf_addf(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\">"
				 "<title>%s, ", slot_x(tt, i), y, slot_x(tt, j) - slot_x(tt, i), BAR_H,
				 slot_color[kind], slot_word[kind]);
			thread_table_add_time(b, t, 1, slot_time(tt, i));
			buf_addstr(b, " to ");
			thread_table_add_time(b, t, 1, j < tt->nbins ? slot_time(tt, j) : tt->span_to);
			buf_addstr(b, " s</title></rect>\n");
		}
	}
	if (tt->nrows)
		add_pauses(b, t, tt, top, (unsigned)(tt->nrows - 1) * ROW_H + BAR_H);
	add_marks(b, t, tt, TOP_H + 2, yaxis, w);
	buf_addf(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#666\"/>\n", LABEL_W, yaxis,
		 LABEL_W + STRIP_W, yaxis);
	for (k = 0; k <= 4; k++) {
		unsigned x = LABEL_W + k * STRIP_W / 4;
		uint64_t when = tt->span_from +
				(uint64_t)((unsigned __int128)(tt->span_to - tt->span_from) * k / 4);

		buf_addf(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#666\"/>"
			 "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">", x, yaxis, x, yaxis + 5, x,
			 yaxis + 18);
		thread_table_add_time(b, t, 1, when);
		buf_addstr(b, " s</text>\n");
	}
	buf_addstr(b, "</svg>\n");
}

static const char page_head[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n"
	"<head>\n"
	"<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"style-src 'unsafe-inline'; img-src 'self'\">\n";

static const char page_style[] =
	"<style>\n"
	"body { font-family: sans-serif; margin: 1em 2em; }\n"
	"table { border-collapse: collapse; margin-top: 1em; }\n"
	"th, td { padding: 2px 10px; text-align: right; border-bottom: 1px solid #ddd; }\n"
	"th.name, td.name { text-align: left; }\n"
	"</style>\n"
	"</head>\n"
	"<body>\n";

static void add_index(struct buf *b, const struct trace *t, const struct thread_table *tt,
		      char *const *stems)
{
	char *root = stacks_root_name(t);
	struct buf cmd;

	buf_init(&cmd);
	for (uint32_t i = 0; i < t->session.argc && cmd.len < 200; i++)
		buf_addf(&cmd, "%s%s", i ? " " : "", t->session.argv[i] ? t->session.argv[i] : "");
	buf_addstr(b, page_head);
	buf_addstr(b, "<title>Threads of ");
	add_html(b, root, NAME_MAX_BYTES);
	buf_addstr(b, "</title>\n");
	buf_addstr(b, page_style);
	buf_addstr(b, "<h1>Threads of ");
	add_html(b, root, NAME_MAX_BYTES);
	buf_addstr(b, "</h1>\n<p>");
	if (cmd.len) {
		buf_addstr(b, "<code>");
		add_html(b, (char *)cmd.data, NAME_MAX_BYTES);
		buf_addstr(b, "</code>: ");
	}
	buf_addf(b, "%zu thread%s, %" PRIu64 " sample%s, ", tt->nrows, tt->nrows == 1 ? "" : "s",
		 tt->samples, tt->samples == 1 ? "" : "s");
	thread_table_add_time(b, t, 1, tt->span_from);
	buf_addstr(b, " to ");
	thread_table_add_time(b, t, 1, tt->span_to);
	buf_addstr(b, " s</p>\n");
	add_timeline(b, t, tt);
	buf_addstr(b, "<table>\n<tr><th>TID</th><th class=\"name\">NAME</th><th>SAMPLES</th>"
		      "<th>RUNNING</th><th>WAITING</th><th>PREEMPTED</th><th>FIRST</th><th>LAST</th>"
		      "<th class=\"name\">FILES</th></tr>\n");
	for (size_t i = 0; i < tt->nrows; i++) {
		const struct thread_table_row *r = &tt->rows[i];

		buf_addf(b, "<tr><td>%" PRIu32 "</td><td class=\"name\">", r->tid);
		add_html(b, r->name, NAME_MAX_BYTES);
		buf_addf(b, "</td><td>%" PRIu64 "</td><td>", r->samples);
		thread_table_add_share(b, r->running, r->samples);
		buf_addstr(b, "</td><td>");
		thread_table_add_share(b, r->waiting, r->samples);
		buf_addstr(b, "</td><td>");
		thread_table_add_share(b, r->preempted, r->samples);
		buf_addstr(b, "</td><td>");
		thread_table_add_time(b, t, r->samples > 0, r->first);
		buf_addstr(b, "</td><td>");
		thread_table_add_time(b, t, r->samples > 0, r->last);
		buf_addstr(b, "</td><td class=\"name\">");
		if (stems[i]) {
			/* Stems are [A-Za-z0-9._-] only: safe in a URL as is. */
			buf_addf(b, "<a href=\"%s.svg\">flame graph</a> <a href=\"%s.folded\">folded</a>",
				 stems[i], stems[i]);
		} else {
			buf_addstr(b, "no samples");
		}
		buf_addstr(b, "</td></tr>\n");
	}
	buf_addstr(b, "</table>\n</body>\n</html>\n");
	buf_release(&cmd);
	free(root);
}

int thread_split_write(int dirfd, struct stacks *st, const struct thread_table *tt,
		       const struct thread_split_opts *o, char **failed)
{
	const struct trace *t = stacks_trace(st);
	char **stems = xcalloc(tt->nrows ? tt->nrows : 1, sizeof(*stems));
	struct buf page;
	FILE *f;
	size_t i;
	int err = 0;

	buf_init(&page);
	if (failed)
		*failed = NULL;
	if (!tt->nbins)
		BUG("thread_split_write: a thread table without a timeline");
	for (i = 0; i < tt->nrows; i++) {
		if (!tt->rows[i].samples)
			continue;
		stems[i] = thread_table_file_stem(tt->rows[i].tid, tt->rows[i].name);
		if ((err = write_thread(dirfd, st, &tt->rows[i], stems[i], o, failed)) < 0)
			goto out;
	}
	add_index(&page, t, tt, stems);
	if ((err = create_at(dirfd, "index.html", &f)) == 0)
		err = finish(f, fwrite(page.data, 1, page.len, f) == page.len ? 0 : -EIO);
	if (err < 0 && failed)
		*failed = xstrdup("index.html");
out:
	for (i = 0; i < tt->nrows; i++)
		free(stems[i]);
	free(stems);
	buf_release(&page);
	return err;
}
