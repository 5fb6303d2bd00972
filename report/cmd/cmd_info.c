/*
 * cmd_info.c: 'prof-report info TRACE', everything the trace holds, for a
 * person: the session, every image with its identity and which file serves
 * its symbols (or every path tried and why each was refused), the threads
 * with their name histories, the counters, and what loading found. Its
 * first use is answering "why are my frames hex?" and "what was lost?".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common/buf.h"
#include "common/diag.h"
#include "format/trace_ident.h"
#include "common/hmap.h"
#include "common/json.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/dwarf/dwinfo.h"
#include "report/symbols/locate.h"
#include "report/symbols/symbolize.h"
#include "common/text.h"

/* Prints s made safe for a terminal by text_escape() or text_quote(). */
static void print_text(void (*make)(struct buf *b, const char *s), const char *s)
{
	struct buf b;

	buf_init(&b);
	make(&b, s);
	fputs((char *)b.data, stdout);
	buf_release(&b);
}

/* Whether ticks in kernel mode were sampled, and if not, why, naming
 * what would change it. */
static void print_kernel(const struct trace_session *s)
{
	fputs("kernel time: ", stdout);
	switch (s->kernel) {
	case TRACE_KERNEL_SAMPLED:
		puts("sampled");
		break;
	case TRACE_KERNEL_REFUSED:
		if (s->kernel_paranoid != TRACE_PARANOID_UNKNOWN)
			printf("not sampled: kernel.perf_event_paranoid is %u (needs <= 1, or root or "
			       "CAP_PERFMON)\n", s->kernel_paranoid);
		else
			puts("not sampled: refused by the kernel (needs kernel.perf_event_paranoid "
			     "<= 1, or root or CAP_PERFMON)");
		break;
	case TRACE_KERNEL_NOT_SAMPLED:
		puts("not sampled by this sampler");
		break;
	default:
		puts("unknown");
	}
}

/* The recorder's priority while it sampled (1.3). */
static void print_priority(const struct trace_session *s)
{
	fputs("recorder:   ", stdout);
	switch (s->priority) {
	case TRACE_PRIORITY_REALTIME:
		printf("real-time priority %u\n", s->rt_priority);
		break;
	case TRACE_PRIORITY_REFUSED:
		printf("normal priority (real-time priority %u was refused)\n", s->rt_priority);
		break;
	case TRACE_PRIORITY_NORMAL:
		puts("normal priority");
		break;
	default:
		puts("-");
	}
}

/* The rate asked and the rate achieved: the samples over the CPU time the
 * kernel counted (cpu mode), or over the time the threads were alive (wall
 * mode, which samples every thread at every tick); and what held it back,
 * from the counters of 1.3. */
static void print_rate(const struct trace *t, uint64_t end)
{
	const struct trace_session *s = &t->session;
	const uint64_t *c = t->counters;
	char note[320];
	double secs = 0;

	if (s->mode == TRACE_MODE_CPU) {
		secs = (double)c[TRACE_COUNTER_CPU_NS] / 1e9;
	} else {
		for (size_t i = 0; i < t->nthreads; i++) {
			const struct trace_thread *th = &t->threads[i];
			uint64_t to = th->time_end ? th->time_end : end;

			/* a pause has no samples: its time is left out */
			if (to > th->time_start)
				secs += (double)(to - th->time_start - trace_paused_ns(t, th->time_start, to)) / 1e9;
		}
	}
	printf("rate:       %" PRIu32 " Hz asked", s->rate_hz);
	if (secs > 0)
		printf(", %.0f Hz achieved (%zu samples over %.3f s of %s time)", (double)t->nsamples / secs,
		       t->nsamples, secs, s->mode == TRACE_MODE_CPU ? "CPU" : "thread");
	putchar('\n');
	if (c[TRACE_COUNTER_THROTTLED] || trace_rate_short(s->mode, s->rate_hz, t->nsamples, secs, t->nthreads))
		printf("held back:  %s\n", trace_rate_note(s->sampler, c, s->rate_hz, t->nsamples, secs, note, sizeof(note)));
}

/* Appends what a file of session s is of its recording: "whole
 * recording", "rotated part 2 of recording 00c0ffee00c0ffee", "snapshot
 * 1 (a 2.000 s window) of recording ...". */
static void part_words(struct buf *b, const struct trace_session *s)
{
	if (s->part_kind == TRACE_PART_WHOLE) {
		buf_addstr(b, "whole recording");
		return;
	}
	if (s->part_kind == TRACE_PART_SNAPSHOT)
		buf_addf(b, "snapshot %" PRIu32 " (a %.3f s window)", s->part, (double)s->window_ns / 1e9);
	else
		buf_addf(b, "rotated part %" PRIu32, s->part);
	buf_addf(b, " of recording %016" PRIx64, s->recording);
}

static void print_session(const struct trace *t, const char *path)
{
	const struct trace_session *s = &t->session;
	uint64_t end = trace_end_ns(t);
	char when[64];
	size_t i;

	fputs("trace:      ", stdout);
	if (t->nfiles)
		printf("%zu files as one timeline (files, below)", t->nfiles);
	else
		print_text(text_escape, path);
	if (!t->nfiles && s->part_kind != TRACE_PART_WHOLE) {
		struct buf w;

		buf_init(&w);
		part_words(&w, s);
		printf("\npart:       %s", (char *)w.data);
		buf_release(&w);
	}
	printf("\nformat:     %u.%u\n", t->status.major, t->status.minor);
	fputs("host:       ", stdout);
	print_text(text_escape, s->host && s->host[0] ? s->host : "-");
	printf("\nos:         %s\narch:       %s\nmode:       %s\nsampler:    %s\n",
	       trace_os_name(s->os), trace_arch_name(s->arch), trace_mode_name(s->mode),
	       trace_sampler_name(s->sampler));
	print_kernel(s);
	print_priority(s);
	printf("pid:        %" PRIu32 "\n", s->pid);
	fputs("command:   ", stdout);
	if (!s->argc)
		fputs(" -", stdout);
	for (i = 0; i < s->argc && s->argv; i++) {
		putchar(' ');
		print_text(text_quote, s->argv[i]);
	}
	putchar('\n');

	{
		time_t secs = (time_t)(s->start_realtime_ns / 1000000000u);
		struct tm tm;
		if (gmtime_r(&secs, &tm) && strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm))
			printf("started:    %s.%03uZ\n", when,
			       (unsigned)(s->start_realtime_ns % 1000000000u / 1000000u));
		else
			printf("started:    -\n");
	}
	if (end && t->npauses)
		printf("duration:   %.3f s, %.3f s of it paused%s\n", (double)trace_duration_ns(t) / 1e9,
		       (double)trace_paused_ns(t, 0, UINT64_MAX) / 1e9,
		       t->has_end ? "" : " (to the last sample; no end record)");
	else if (end)
		printf("duration:   %.3f s%s\n", (double)trace_duration_ns(t) / 1e9,
		       t->has_end ? "" : " (to the last sample; no end record)");
	else
		printf("duration:   -\n");
	print_rate(t, end);
	if (t->has_end && t->end.has_exit) {
		int st = t->end.exit_status;
		if (WIFEXITED(st))
			printf("exit:       status %d\n", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			printf("exit:       killed by signal %d%s\n", WTERMSIG(st),
			       WCOREDUMP(st) ? " (core dumped)" : "");
		else
			printf("exit:       wait status 0x%x\n", (unsigned)st);
	}
}

/* The files of a trace merged from several: what each is of its
 * recording, and how each meets the one before it. */

/* How file b, the next in time, meets file a: the time between them
 * (a gap, or an overlap), and the parts of their recording between them
 * that are not here (from, to; 0 if none). */
struct join {
	uint64_t gap, overlap;
	uint32_t missing_from, missing_to;
	int same_recording;
};

static void join_of(const struct trace_file *a, const struct trace_file *b, struct join *j)
{
	const struct trace_session *x = &a->session, *y = &b->session;

	memset(j, 0, sizeof(*j));
	j->gap = b->start > a->end ? b->start - a->end : 0;
	j->overlap = a->end > b->start ? a->end - b->start : 0;
	j->same_recording = x->recording && x->recording == y->recording && x->part_kind == y->part_kind;
	if (j->same_recording && y->part > x->part + 1) {
		j->missing_from = x->part + 1;
		j->missing_to = y->part - 1;
	}
}

/* Appends ": part N of the recording is not here" for j's missing parts. */
static void missing_words(struct buf *b, const struct join *j)
{
	if (j->missing_from == j->missing_to)
		buf_addf(b, ": part %" PRIu32 " of the recording is not here", j->missing_from);
	else
		buf_addf(b, ": parts %" PRIu32 " to %" PRIu32 " of the recording are not here", j->missing_from,
			 j->missing_to);
}

static void print_join(const struct trace *t, size_t i)
{
	const struct trace_file *a = &t->files[i - 1], *b = &t->files[i];
	struct buf w;
	struct join j;

	join_of(a, b, &j);
	if (!j.gap && !j.overlap && !j.missing_from)
		return;
	buf_init(&w);
	buf_addf(&w, "%s %.3f s between '", j.overlap ? "overlap:" : "gap:    ",
		 (double)(j.overlap ? j.overlap : j.gap) / 1e9);
	text_escape(&w, a->path);
	buf_addstr(&w, "' and '");
	text_escape(&w, b->path);
	buf_addch(&w, '\'');
	if (j.missing_from)
		missing_words(&w, &j);
	if (j.overlap && b->samples_overlap)
		buf_addf(&w, ": %" PRIu64 " samples of the later were in the snapshots before it, counted once",
			 b->samples_overlap);
	printf("  %s\n", (char *)w.data);
	buf_release(&w);
}

static void print_files(const struct trace *t)
{
	if (!t->nfiles)
		return;
	printf("\nfiles: %zu, as one timeline in order of their start\n", t->nfiles);
	for (size_t i = 0; i < t->nfiles; i++) {
		const struct trace_file *f = &t->files[i];
		struct buf w;

		if (i)
			print_join(t, i);
		buf_init(&w);
		text_escape(&w, f->path);
		buf_addstr(&w, ": ");
		part_words(&w, &f->session);
		buf_addf(&w, ", %.3f s to %.3f s, %" PRIu64 " samples", trace_since_start_s(t, f->start),
			 trace_since_start_s(t, f->end), f->samples);
		if (f->samples_overlap)
			buf_addf(&w, " (and %" PRIu64 " the snapshots before it held)", f->samples_overlap);
		buf_addstr(&w, ", ");
		if (f->status.complete)
			buf_addstr(&w, "finished cleanly");
		else
			cli_loss_words(&w, &f->status, 1);
		printf("  %s\n", (char *)w.data);
		buf_release(&w);
	}
}

/* Per image: the samples with at least one frame in it, and its frames
 * over all samples, with how many of those have no name. */
struct image_use {
	uint64_t samples, frames, unresolved;
	size_t last;   /* the last stack counted into samples, plus one */
};

static void count_use(struct stacks *st, struct image_use *use)
{
	const struct trace *t = stacks_trace(st);
	struct { uint32_t stack; uint64_t count; } *u = NULL;
	size_t nu = 0, cap = 0, i;
	struct hmap stacks;

	/* Each distinct stack once, weighted. */
	hmap_init(&stacks);
	for (i = 0; i < t->nsamples; i++) {
		int added;
		uint64_t *slot = hmap_put(&stacks, t->samples[i].stack, 0, nu, &added);

		if (added) {
			u = xgrow(u, &cap, nu + 1, sizeof(*u));
			u[nu].stack = t->samples[i].stack;
			u[nu++].count = 0;
		}
		u[*slot].count++;
	}
	for (i = 0; i < nu; i++) {
		const uint32_t *nodes;
		size_t depth = stacks_nodes(st, u[i].stack, &nodes);

		for (size_t d = 0; d < depth; d++) {
			const struct symbolize_frame *fr;
			size_t nf = stacks_frames(st, nodes[d], stacks_leaf(st, nodes, d), &fr);
			struct image_use *iu;

			if (fr[0].image < 0)
				continue;
			iu = &use[fr[0].image];
			iu->frames += u[i].count;
			if (!fr[nf - 1].resolved)
				iu->unresolved += u[i].count;
			if (iu->last != i + 1) {
				iu->last = i + 1;
				iu->samples += u[i].count;
			}
		}
	}
	free(u);
	hmap_release(&stacks);
}

/* An identity as the platform's own tools print it: a build-id in
 * lowercase hex, a UUID as 8-4-4-4-12 uppercase hex, as dwarfdump shows,
 * Go's build ID as the text `go tool buildid` prints (or its end). */
static void format_ident(char *out, const struct trace_image *img)
{
	size_t n = img->ident_len <= TRACE_MAX_IDENT ? img->ident_len : 0, i, o = 0;

	if (img->ident_kind == TRACE_IDENT_GO_BUILD_ID) {
		memcpy(out, img->ident, n);   /* printable ASCII: the recorder checked */
		out[n] = 0;
		return;
	}
	if (img->ident_kind != TRACE_IDENT_MACHO_UUID || n != 16) {
		objfile_hex(out, img->ident, n);
		return;
	}
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		o += (size_t)sprintf(out + o, "%02X", img->ident[i]);
	}
}

/* How the recorder read the image's file, and what it found there. */
static void print_source(const struct trace_image *img)
{
	static const char *const how[] = {
		[TRACE_SOURCE_PATH] = "at its path",
		[TRACE_SOURCE_ROOT] = "at its path in the process's root (/proc/PID/root)",
		[TRACE_SOURCE_MAPPED] = "the file mapped (/proc/PID/map_files)",
		[TRACE_SOURCE_MEMORY] = "from the process's memory",
	};

	if (img->source == TRACE_SOURCE_UNKNOWN)
		return;
	fputs("    read:     ", stdout);
	if (img->source < sizeof(how) / sizeof(*how) && how[img->source])
		fputs(how[img->source], stdout);
	else
		fputs("not read", stdout);
	if (img->flags & TRACE_IMAGE_DELETED)
		fputs("; deleted or replaced while it ran", stdout);
	else if (img->flags & TRACE_IMAGE_ELSEWHERE)
		fputs("; its path led the recorder elsewhere (replaced, or another mount namespace)", stdout);
	if (img->why) {
		fputs("; no identity: ", stdout);
		print_text(text_escape, img->why);
	}
	putchar('\n');
}

static void print_share(uint64_t part, uint64_t whole)
{
	if (whole)
		printf("%.1f%%", 100.0 * (double)part / (double)whole);
	else
		fputs("-", stdout);
}

/* Where the file came from, and what a fetch for it found, in words: ""
 * when there is nothing to say. named: the image has DWARF or a pack, and
 * needs no server. */
static void origin_words(struct buf *b, const struct locate_result *src, uint64_t samples,
			 int named, int offline, int fetching)
{
	static const char *const where[] = {
		[LOCATE_ORIGIN_DISK] = "disk",
		[LOCATE_ORIGIN_CACHE] = "the debuginfod cache",
		[LOCATE_ORIGIN_SERVER] = "a debuginfod server",
	};

	if (src->found && src->origin == LOCATE_ORIGIN_SERVER && src->fetched) {
		fetch_describe(src->fetched, b);
		return;
	}
	if (src->found)
		buf_addstr(b, where[src->origin]);
	else if (src->fetched || (samples && !named))
		buf_addstr(b, "no file");
	if (src->fetched) {
		buf_addstr(b, "; debuginfod: ");
		fetch_describe(src->fetched, b);
	} else if (samples && !named && offline) {
		buf_addstr(b, "; not fetched (--offline)");
	} else if (samples && !named && !fetching && !getenv("DEBUGINFOD_URLS")) {
		buf_addstr(b, "; no debuginfod server to fetch its debug file from (DEBUGINFOD_URLS)");
	}
}

static void print_images(struct stacks *st, struct symbolize *sym, int offline)
{
	const struct trace *t = stacks_trace(st);
	char hex[2 * TRACE_MAX_IDENT + 1];
	struct image_use *use = xcalloc(t->nimages + 1, sizeof(*use));
	size_t i, k;

	count_use(st, use);
	printf("\nimages: %zu\n", t->nimages);
	for (i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];
		const struct locate_result *src;
		const struct pack_image *pi;
		int err, dw_err;

		format_ident(hex, img);
		printf("  image %" PRIu32 ": ", img->id);
		print_text(text_escape, img->path && img->path[0] ? img->path : "-");
		printf("\n    ident:    %s ", trace_ident_kind_name(img->ident_kind));
		print_text(text_escape, hex[0] ? hex : "-");
		if (img->ident_kind == TRACE_IDENT_CONTENT && trace_ident_content_sampled(img->ident))
			printf(" (of %" PRIu64 " loadable bytes, %" PRIu64 " MiB sampled)",
			       trace_ident_content_bytes(img->ident), TRACE_IDENT_CONTENT_BOUND >> 20);
		putchar('\n');
		print_source(img);
		printf("    range:    0x%" PRIx64 "-0x%" PRIx64 " (file offset 0x%" PRIx64
		       ", bias 0x%" PRIx64 ", %s)\n",
		       img->start, img->start + img->size, img->file_offset, img->bias,
		       trace_arch_name(img->arch));
		if (img->time_loaded)
			printf("    loaded:   %.3f s\n", trace_since_start_s(t, img->time_loaded));
		else
			printf("    loaded:   at start\n");
		if (img->time_unloaded)
			printf("    unloaded: %.3f s\n", trace_since_start_s(t, img->time_unloaded));
		printf("    samples:  %" PRIu64 " (", use[i].samples);
		print_share(use[i].samples, t->nsamples);
		printf(" of all), %" PRIu64 " frames, ", use[i].frames);
		print_share(use[i].unresolved, use[i].frames);
		printf(" unresolved\n");

		src = symbolize_image_source(sym, i, &err);
		if (!err) {
			fputs("    symbols:  ", stdout);
			print_text(text_escape, src->path);
			if (symbolize_image_dwarf(sym, i, &dw_err))
				printf(" (DWARF, %zu function symbols)\n",
				       symbolize_image_nsymbols(sym, i));
			else if (dw_err)
				printf(" (%zu function symbols; its DWARF is unusable: %s)\n",
				       symbolize_image_nsymbols(sym, i), prof_strerror(dw_err));
			else
				printf(" (%zu function symbols, no DWARF)\n",
				       symbolize_image_nsymbols(sym, i));
		} else if ((pi = symbolize_image_pack(sym, i))) {
			fputs("    symbols:  pack ", stdout);
			print_text(text_escape, pack_image_origin(pi));
			printf(" (%zu addresses; no debug file: %s)\n", pack_image_naddrs(pi),
			       prof_strerror(err));
		} else if ((k = trace_code_count(t, img->process, img->start, img->start + img->size))) {
			printf("    symbols:  the trace's own: %zu function%s the recorder read (no debug file: %s)\n",
			       k, k == 1 ? "" : "s", prof_strerror(err));
		} else {
			printf("    symbols:  none: %s\n", prof_strerror(err));
		}
		if (img->ident_kind == TRACE_IDENT_GNU_BUILD_ID) {
			struct buf b;

			buf_init(&b);
			origin_words(&b, src, use[i].samples,
				     err ? symbolize_image_pack(sym, i) != NULL : symbolize_image_dwarf(sym, i, NULL),
				     offline, symbolize_fetching(sym));
			if (b.len) {
				fputs("    from:     ", stdout);
				print_text(text_escape, (char *)b.data);
				putchar('\n');
			}
			buf_release(&b);
		}
		for (k = 0; k < src->ntries; k++) {
			if (!src->tries[k].why)
				continue;
			fputs("      not used ", stdout);
			print_text(text_escape, src->tries[k].path);
			fputs(": ", stdout);
			print_text(text_escape, src->tries[k].why);
			putchar('\n');
		}
	}
	free(use);
}

/* Process i and, indented under it, its children, in the order seen;
 * depth bounds the walk (a hostile trace's parents may loop). */
static void print_process(const struct trace *t, const uint64_t *counts, size_t i, size_t depth)
{
	const struct trace_process *p = &t->processes[i];

	printf("%*spid %" PRIu32 ": %" PRIu64 " samples, started %.3f s", (int)(2 + 2 * depth), "", p->pid,
	       counts[i], trace_since_start_s(t, p->time_start));
	if (p->time_end && p->out_of_reach)
		printf(", out of reach from %.3f s (it ran a program of another user)",
		       trace_since_start_s(t, p->time_end));
	else if (p->time_end)
		printf(", ended %.3f s", trace_since_start_s(t, p->time_end));
	if (p->has_exit && WIFEXITED(p->exit_status))
		printf(", exit status %d", WEXITSTATUS(p->exit_status));
	else if (p->has_exit && WIFSIGNALED(p->exit_status))
		printf(", killed by signal %d", WTERMSIG(p->exit_status));
	putchar('\n');
	for (size_t k = 0; k < p->nexecs; k++) {
		printf("%*sexec %.3f s:", (int)(4 + 2 * depth), "", trace_since_start_s(t, p->execs[k].time));
		for (uint32_t a = 0; a < p->execs[k].argc; a++) {
			putchar(' ');
			print_text(text_quote, p->execs[k].argv[a]);
		}
		putchar('\n');
	}
	if (depth >= t->nprocesses)
		return;
	for (size_t c = 0; c < t->nprocesses; c++)
		if (t->processes[c].parent == i && c != i)
			print_process(t, counts, c, depth + 1);
}

/* The processes as a tree: each whose parent was not recorded at the top. */
static void print_processes(const struct trace *t)
{
	uint64_t *counts = xcalloc(t->nprocesses ? t->nprocesses : 1, sizeof(*counts));

	for (size_t i = 0; i < t->nsamples; i++) {
		uint32_t p = trace_sample_process(t, &t->samples[i]);
		if (p < t->nprocesses)
			counts[p]++;
	}
	printf("\nprocesses: %zu\n", t->nprocesses);
	for (size_t i = 0; i < t->nprocesses; i++)
		if (t->processes[i].parent >= t->nprocesses)
			print_process(t, counts, i, 0);
	free(counts);
}

static void print_threads(const struct trace *t)
{
	struct hmap counts;
	size_t i, k;

	hmap_init(&counts);
	for (i = 0; i < t->nsamples; i++)
		(*hmap_put(&counts, t->samples[i].tid, 0, 0, NULL))++;
	printf("\nthreads: %zu\n", t->nthreads);
	for (i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];
		uint64_t *n = hmap_get(&counts, th->tid, 0);

		printf("  tid %" PRIu32 ": %" PRIu64 " samples, started %.3f s", th->tid,
		       n ? *n : 0, trace_since_start_s(t, th->time_start));
		if (th->time_end)
			printf(", ended %.3f s", trace_since_start_s(t, th->time_end));
		putchar('\n');
		for (k = 0; k < th->nnames; k++) {
			printf("    name %.3f s: ", trace_since_start_s(t, th->names[k].time));
			print_text(text_quote, th->names[k].name);
			putchar('\n');
		}
	}
	hmap_release(&counts);
}

/* The marks, in order of time, with who made them, and when sampling was
 * paused; nothing for a trace without any (every one before 2.3). */
static void print_marks(const struct trace *t)
{
	if (t->npauses) {
		printf("\npauses: %zu, %.3f s\n", t->npauses,
		       (double)trace_paused_ns(t, 0, UINT64_MAX) / 1e9);
		for (size_t i = 0; i < t->npauses; i++)
			printf("  %.3f s to %.3f s\n", trace_since_start_s(t, t->pauses[i].start),
			       trace_since_start_s(t, t->pauses[i].end));
	}
	if (!t->nmarks)
		return;
	printf("\nmarks: %zu\n", t->nmarks);
	for (size_t i = 0; i < t->nmarks; i++) {
		printf("  %.3f s: ", trace_since_start_s(t, t->marks[i].time));
		print_text(text_quote, t->marks[i].name);
		printf(" (%s)\n", trace_mark_source_name(t->marks[i].source));
	}
}

/* When a loss happened, by the samples read around it; a loss after the
 * footer, among the symbols, has none. */
static void add_loss_times(struct buf *b, const struct trace *t, const struct trace_load_status *st,
			   const struct trace_loss *l)
{
	if ((l->held != TRACE_HELD_UNKNOWN && l->held != TRACE_HELD_RECORDS) ||
	    (st->has_footer && l->seq > st->footer_seq))
		return;
	switch (l->has) {
	case TRACE_LOSS_BEFORE | TRACE_LOSS_AFTER:
		buf_addf(b, ": samples between %.3f s and %.3f s lost", trace_since_start_s(t, l->time_before),
			 trace_since_start_s(t, l->time_after));
		break;
	case TRACE_LOSS_BEFORE:
		buf_addf(b, ": samples after %.3f s lost", trace_since_start_s(t, l->time_before));
		break;
	case TRACE_LOSS_AFTER:
		buf_addf(b, ": samples before %.3f s lost", trace_since_start_s(t, l->time_after));
		break;
	}
}

/* What a damaged chunk held, when its header tells and it is not samples. */
static const char *held_name(int held)
{
	switch (held) {
	case TRACE_HELD_FOOTER: return " (the footer)";
	case TRACE_HELD_SYMBOLS: return " (symbols)";
	case TRACE_HELD_OTHER: return " (of an unknown type)";
	default: return "";
	}
}

/* A loss of a file of t that loading found, as st says. */
static void print_loss(const struct trace *t, const struct trace_load_status *st, const struct trace_loss *l)
{
	const uint64_t *f = st->footer;
	struct buf b;

	buf_init(&b);
	switch (l->kind) {
	case TRACE_LOSS_MISSING:
		cli_chunk_names(&b, l->seq, l->nseq);
		buf_addf(&b, " missing at byte %" PRIu64, l->offset);
		add_loss_times(&b, t, st, l);
		break;
	case TRACE_LOSS_CUT:
		cli_chunk_names(&b, l->seq, 1);
		buf_addf(&b, " cut short at byte %" PRIu64 ", where the file ends %" PRIu64
			     " bytes into it",
			 l->offset, l->bytes);
		add_loss_times(&b, t, st, l);
		break;
	case TRACE_LOSS_UNFINISHED:
		buf_addf(&b, "no footer after chunk %" PRIu32
			     ": the recording did not finish cleanly, and what it wrote last may be lost",
			 l->seq - 1);
		break;
	case TRACE_LOSS_DAMAGED:
		if (l->damage == TRACE_DAMAGE_FOOTER) {
			buf_addf(&b, "chunk %" PRIu32 ", the footer, disagrees with the chunks before it: "
				     "it counts %" PRIu64 " chunks, %" PRIu64 " samples and %" PRIu64
				     " stack nodes before byte %" PRIu64,
				 l->seq, f[0], f[1], f[2], f[3]);
			break;
		}
		if (l->nseq) {
			cli_chunk_names(&b, l->seq, l->nseq);
			buf_addf(&b, "%s%s damaged", held_name(l->held),
				 l->open ? " (and any after it)" : "");
		} else {
			buf_addf(&b, "damaged bytes before chunk %" PRIu32, l->seq);
		}
		buf_addf(&b, " at bytes %" PRIu64 "-%" PRIu64 " (%s)", l->offset, l->offset + l->bytes,
			 trace_damage_name(l->damage));
		if (!l->nseq)
			buf_addstr(&b, ": no chunk lost");
		else
			add_loss_times(&b, t, st, l);
		break;
	}
	printf("  %s\n", (char *)b.data);
	buf_release(&b);
}

/* What loading a file of t found (st): the counts, then each loss;
 * under "load:", or "load of 'PATH':" for a file of several. */
static void print_load(const struct trace *t, const struct trace_load_status *st, const char *path)
{
	size_t i;

	if (path) {
		fputs("\nload of '", stdout);
		print_text(text_escape, path);
		puts("':");
	} else {
		printf("\nload:\n");
	}
	printf("  file bytes         %" PRIu64 "\n", st->file_bytes);
	printf("  chunks             %" PRIu64 "\n", st->chunks);
	printf("  chunks skipped     %" PRIu64 " (unknown types)\n", st->chunks_skipped);
	printf("  chunks missing     %" PRIu64 "\n", st->chunks_missing);
	printf("  chunks damaged     %" PRIu64 " (%" PRIu64 " bytes)\n", st->chunks_damaged,
	       st->bytes_damaged);
	printf("  bytes cut          %" PRIu64 "\n", st->bytes_cut);
	printf("  samples dropped    %" PRIu64 " (their stacks were lost, or could not be split)\n",
	       st->samples_dropped);
	if (st->has_footer)
		printf("  samples missing    %" PRIu64 " (of the %" PRIu64 " the footer counts)\n",
		       st->samples_missing, st->footer[1]);
	else
		printf("  samples missing    - (no footer to count them)\n");
	printf("  stack nodes split  %" PRIu64 " (their samples saw different images or code)\n",
	       st->nodes_split);
	printf("  finished cleanly   %s\n", st->complete ? "yes" : "no");
	for (i = 0; i < st->nlosses; i++)
		print_loss(t, st, &st->losses[i]);
	if (st->losses_unlisted)
		printf("  and %" PRIu64 " more losses, not listed\n", st->losses_unlisted);
}

struct go_cut {
	const char *name;   /* the outermost function of the stacks cut there */
	uint64_t count;
};

/* The most frequent first, then by name. */
static int cmp_go_cut(const void *a, const void *b)
{
	const struct go_cut *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Where a Go program's stacks end: at the function Go's runtime starts a
 * stack with (stacks_top_name()), or elsewhere, by the outermost function
 * and why a walk stops there. Says nothing of a trace with no such stack. */
static void print_go_roots(struct stacks *st)
{
	static const struct { const char *name, *why; } known[] = {
		{ "runtime.systemstack", "the system stack, whose frame pointer leads no further" },
		{ "runtime.sigtramp", "Go's signal handler, on a stack of its own" },
		{ "runtime.morestack", "growing a goroutine's stack" },
	};
	const struct trace *t = stacks_trace(st);
	struct go_cut *cut = NULL;
	size_t ncut = 0, cap = 0;
	uint64_t whole = 0, total = 0;

	for (size_t i = 0; i < t->nsamples; i++) {
		const uint32_t *nodes;
		const struct symbolize_frame *fr;
		size_t depth = stacks_nodes(st, t->samples[i].stack, &nodes), nf, k;

		if (!depth)
			continue;
		nf = stacks_frames(st, nodes[depth - 1], stacks_leaf(st, nodes, depth - 1), &fr);
		total++;
		if (stacks_top_name(fr[nf - 1].name)) {
			whole++;
			continue;
		}
		for (k = 0; k < ncut && strcmp(cut[k].name, fr[nf - 1].name); k++)
			;
		if (k == ncut) {
			cut = xgrow(cut, &cap, ncut + 1, sizeof(*cut));
			cut[ncut++] = (struct go_cut){ fr[nf - 1].name, 0 };
		}
		cut[k].count++;
	}
	if (whole) {
		printf("go stacks:        %" PRIu64 " of %" PRIu64 " whole (from runtime.goexit, runtime.mstart,\n"
		       "                  runtime.mcall or runtime.rt0_go)\n", whole, total);
		if (ncut)
			qsort(cut, ncut, sizeof(*cut), cmp_go_cut);
		for (size_t a = 0; a < ncut; a++) {
			const char *why = "the walk stopped there";
			for (size_t k = 0; k < sizeof(known) / sizeof(*known); k++)
				if (!strcmp(known[k].name, cut[a].name))
					why = known[k].why;
			fputs("  cut at ", stdout);
			print_text(text_escape, cut[a].name);
			printf(": %" PRIu64 " (%s)\n", cut[a].count, why);
		}
	}
	free(cut);
}

/* --- code no file holds ----------------------------------------------- */

/* Where the samples' stacks are in code that no file holds: their leaves
 * in JIT code (a code range names it) or anonymous memory (nothing does),
 * and the stacks whose outermost frame is there, where a walk stopped in
 * code that keeps no frame pointer, or stale. */
struct unnamed {
	uint64_t stacks;        /* samples with a user stack */
	uint64_t jit, anon;     /* of them, leaves in each region */
	uint64_t stopped;       /* outermost frame in JIT or anonymous code */
	uint64_t code[TRACE_CODE_VDSO + 1]; /* code ranges by source */
	uint64_t walks;         /* the stop-* counters */
	int scans_counted;      /* the trace has the leaf-scans counter (2.4) */
};

/* The region of node as its samples see it (the same for all of them),
 * memoized in region (0xff: not yet). */
static int node_region(const struct trace *t, uint8_t *region, uint32_t node, const struct trace_sample *s)
{
	if (region[node] == 0xff)
		region[node] = (uint8_t)trace_region_at(t, trace_sample_process(t, s), t->nodes[node].addr,
						       s->time, NULL, NULL);
	return region[node];
}

static void count_unnamed(struct stacks *st, struct unnamed *u)
{
	const struct trace *t = stacks_trace(st);
	uint8_t *region = xmalloc(t->nnodes ? t->nnodes : 1);
	struct { size_t first; uint64_t count; } *k = NULL;
	size_t nk = 0, cap = 0;
	struct hmap stacks;

	memset(u, 0, sizeof(*u));
	memset(region, 0xff, t->nnodes ? t->nnodes : 1);
	/* Each distinct stack once, weighted, named by its first sample. */
	hmap_init(&stacks);
	for (size_t i = 0; i < t->nsamples; i++) {
		int added;
		uint64_t *slot = hmap_put(&stacks, t->samples[i].stack, 0, nk, &added);

		if (added) {
			k = xgrow(k, &cap, nk + 1, sizeof(*k));
			k[nk].first = i;
			k[nk++].count = 0;
		}
		k[*slot].count++;
	}
	for (size_t i = 0; i < nk; i++) {
		const struct trace_sample *s = &t->samples[k[i].first];
		const uint32_t *nodes;
		size_t depth = stacks_nodes(st, s->stack, &nodes);
		int leaf, top;

		if (!depth)
			continue;
		u->stacks += k[i].count;
		leaf = node_region(t, region, nodes[0], s);
		top = node_region(t, region, nodes[depth - 1], s);
		if (leaf == TRACE_REGION_JIT)
			u->jit += k[i].count;
		else if (leaf == TRACE_REGION_ANON)
			u->anon += k[i].count;
		if (top != TRACE_REGION_IMAGE)
			u->stopped += k[i].count;
	}
	hmap_release(&stacks);
	free(k);
	for (size_t i = 0; i < t->ncode; i++)
		u->code[t->code[i].source <= TRACE_CODE_VDSO ? t->code[i].source : TRACE_CODE_UNKNOWN]++;
	for (int c = 0; c < TRACE_COUNTER__COUNT; c++)
		if (!strncmp(trace_counter_name(c), "stop-", 5))
			u->walks += t->counters[c];
	u->scans_counted = t->status.major > 2 || (t->status.major == 2 && t->status.minor >= 4);
	free(region);
}

/* What would name code that nothing names: the runtime's own perf map or
 * jitdump, which the recorder reads as it records. */
static const char unnamed_hint[] =
	"run the program so that its runtime writes a perf map (/tmp/perf-PID.map) or a "
	"jitdump (jit-PID.dump), which prof-record reads as it records: node --perf-basic-prof "
	"(a map) or --perf-prof (a jitdump); Java with -XX:+PreserveFramePointer, so that its "
	"frames are walked, and a map written by jcmd PID Compiler.perfmap (JDK 17 and later) "
	"or a jitdump by perf's libperf-jvmti.so loaded into the JVM; .NET with "
	"DOTNET_PerfMapEnabled=1; CPython 3.12 and later with -X perf; wasmtime "
	"--profile=perfmap";

/* Prints text, words apart by single spaces, in lines of at most 78
 * columns, each after the first indented by 18 spaces; the first begins
 * at column 18. */
static void print_wrapped(const char *text)
{
	size_t col = 18;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col > 18 && col + 1 + n > 78) {
			fputs("\n                  ", stdout);
			col = 18;
		} else if (col > 18) {
			putchar(' ');
			col++;
		}
		fwrite(text, 1, n, stdout);
		col += n;
		text += n;
		text += *text == ' ';
	}
	putchar('\n');
}

static void print_unnamed(struct stacks *st)
{
	const struct trace *t = stacks_trace(st);
	struct unnamed u;

	count_unnamed(st, &u);
	if (u.scans_counted)
		printf("leaf scans:       %" PRIu64 " of %" PRIu64 " walks (a leaf's caller found by searching the\n"
		       "                  stack for a return address, as neither its frame pointer\n"
		       "                  nor CFI could give it: such a caller may be stale)\n",
		       t->counters[TRACE_COUNTER_LEAF_SCANS], u.walks);
	else
		printf("leaf scans:       - (not counted before format 2.4)\n");
	printf("stopped in JIT:   %" PRIu64 " of %" PRIu64 " stacks end in code no file holds (their\n"
	       "                  outermost frame is in JIT code or anonymous memory)\n", u.stopped, u.stacks);
	printf("in no image:      %" PRIu64 " of %" PRIu64 " samples (", u.jit + u.anon, u.stacks);
	print_share(u.jit + u.anon, u.stacks);
	printf(") have their leaf in code no\n"
	       "                  file holds\n");
	if (!u.jit && !u.anon && !t->ncode)
		return;
	printf("  JIT code:       %" PRIu64 " (", u.jit);
	print_share(u.jit, u.stacks);
	printf("), named by the trace's %zu code ranges\n"
	       "                  (%" PRIu64 " from perf maps, %" PRIu64 " from jitdumps, %" PRIu64
	       " of the vDSO)\n", t->ncode,
	       u.code[TRACE_CODE_PERF_MAP], u.code[TRACE_CODE_JITDUMP], u.code[TRACE_CODE_VDSO]);
	printf("  anonymous:      %" PRIu64 " (", u.anon);
	print_share(u.anon, u.stacks);
	printf("), which nothing names\n");
	if (u.anon) {
		fputs("  to name it:     ", stdout);
		print_wrapped(unnamed_hint);
	}
}

static void print_counts(struct stacks *st)
{
	const struct trace *t = stacks_trace(st);
	uint64_t truncated = 0, kernel = 0, walks = 0, cut = 0, states[TRACE_STATE__COUNT] = { 0 };
	struct hmap stacks;
	size_t i;
	int c;

	hmap_init(&stacks);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		hmap_put(&stacks, s->stack, 0, 0, NULL);
		if (s->flags & TRACE_SAMPLE_TRUNCATED)
			truncated++;
		if (s->flags & TRACE_SAMPLE_KERNEL)
			kernel++;
		states[s->state < TRACE_STATE__COUNT ? s->state : TRACE_STATE_UNKNOWN]++;
	}
	printf("\nsamples:          %zu\n", t->nsamples);
	printf("unique stacks:    %zu (%zu stack nodes)\n", stacks.count,
	       t->nnodes ? t->nnodes - 1 : 0);
	printf("truncated stacks: %" PRIu64 "\n", truncated);
	for (c = 0; c < TRACE_COUNTER__COUNT; c++)
		if (!strncmp(trace_counter_name(c), "stop-", 5)) {
			walks += t->counters[c];
			if (c != TRACE_COUNTER_STOP_END)
				cut += t->counters[c];
		}
	printf("incomplete walks: %" PRIu64 " of %" PRIu64 " (stopped before the outermost frame: the\n"
	       "                  stop-* counters but stop-end)\n", cut, walks);
	print_unnamed(st);
	print_go_roots(st);
	printf("in the kernel:    %" PRIu64 " (shown with a [kernel] leaf frame)\n", kernel);
	printf("lost samples:     %" PRIu64 "\n", t->counters[TRACE_COUNTER_SAMPLES_LOST]);
	for (c = 0; c < TRACE_STATE__COUNT; c++)
		if (states[c])
			printf("state %-10s %" PRIu64 "\n", trace_state_name(c), states[c]);
	printf("counters (unwind stops are stop-*):\n");
	for (c = 0; c < TRACE_COUNTER__COUNT; c++)
		printf("  %-18s %" PRIu64 "\n", trace_counter_name(c), t->counters[c]);
	if (!t->nfiles)
		print_load(t, &t->status, NULL);
	for (size_t i = 0; i < t->nfiles; i++)
		print_load(t, &t->files[i].status, t->files[i].path);
	hmap_release(&stacks);
}

/* --- info --json (prof-json(5)) ------------------------------------- */

static void json_secs(struct json *j, const char *key, const struct trace *t, uint64_t time)
{
	if (time)
		json_double(j, key, trace_since_start_s(t, time), 12);
	else
		json_null(j, key);
}

static void json_session(struct json *j, const struct trace *t, const char *path)
{
	const struct trace_session *s = &t->session;
	char v[32];

	json_str(j, "trace", path);
	snprintf(v, sizeof(v), "%u.%u", t->status.major, t->status.minor);
	json_str(j, "format", v);
	json_str(j, "host", s->host && s->host[0] ? s->host : NULL);
	json_str(j, "os", trace_os_name(s->os));
	json_str(j, "arch", trace_arch_name(s->arch));
	json_str(j, "mode", trace_mode_name(s->mode));
	json_str(j, "sampler", trace_sampler_name(s->sampler));
	json_u64(j, "pid", s->pid);
	json_array(j, "argv");
	for (size_t i = 0; i < s->argc && s->argv; i++)
		json_str(j, NULL, s->argv[i]);
	json_end(j);
	json_u64(j, "rate", s->rate_hz);
	if (trace_end_ns(t))
		json_double(j, "duration", (double)trace_duration_ns(t) / 1e9, 12);
	else
		json_null(j, "duration");
	json_bool(j, "ended", t->has_end);
	if (t->has_end && t->end.has_exit && WIFEXITED(t->end.exit_status)) {
		json_object(j, "exit");
		json_i64(j, "status", WEXITSTATUS(t->end.exit_status));
		json_end(j);
	} else if (t->has_end && t->end.has_exit && WIFSIGNALED(t->end.exit_status)) {
		json_object(j, "exit");
		json_i64(j, "signal", WTERMSIG(t->end.exit_status));
		json_end(j);
	} else {
		json_null(j, "exit");
	}
}

static void json_images(struct json *j, struct stacks *st, struct symbolize *sym)
{
	const struct trace *t = stacks_trace(st);
	char hex[2 * TRACE_MAX_IDENT + 1];
	struct image_use *use = xcalloc(t->nimages + 1, sizeof(*use));

	count_use(st, use);
	json_array(j, "images");
	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];
		const struct locate_result *src;
		const struct pack_image *pi;
		int err, dw_err;

		format_ident(hex, img);
		json_object(j, NULL);
		json_u64(j, "id", img->id);
		json_str(j, "path", img->path && img->path[0] ? img->path : NULL);
		json_str(j, "ident_kind", trace_ident_kind_name(img->ident_kind));
		json_str(j, "ident", hex[0] ? hex : NULL);
		json_u64(j, "start", img->start);
		json_u64(j, "size", img->size);
		json_secs(j, "loaded", t, img->time_loaded);
		json_secs(j, "unloaded", t, img->time_unloaded);
		json_u64(j, "samples", use[i].samples);
		json_u64(j, "frames", use[i].frames);
		json_u64(j, "unresolved", use[i].unresolved);
		src = symbolize_image_source(sym, i, &err);
		json_object(j, "symbols");
		if (!err) {
			json_str(j, "from", "file");
			json_str(j, "path", src->path);
			json_bool(j, "dwarf", symbolize_image_dwarf(sym, i, &dw_err));
			json_str(j, "why", dw_err ? prof_strerror(dw_err) : NULL);
		} else if ((pi = symbolize_image_pack(sym, i))) {
			json_str(j, "from", "pack");
			json_str(j, "path", pack_image_origin(pi));
			json_bool(j, "dwarf", 0);
			json_str(j, "why", prof_strerror(err));
		} else {
			json_str(j, "from", "none");
			json_null(j, "path");
			json_bool(j, "dwarf", 0);
			json_str(j, "why", prof_strerror(err));
		}
		json_str(j, "origin", !src->found ? NULL
				       : src->origin == LOCATE_ORIGIN_SERVER ? "server"
				       : src->origin == LOCATE_ORIGIN_CACHE ? "cache" : "disk");
		if (src->fetched) {
			struct buf b;

			buf_init(&b);
			fetch_describe(src->fetched, &b);
			json_object(j, "fetch");
			json_str(j, "status", fetch_status_name(src->fetched->status));
			json_str(j, "server", src->fetched->server);
			json_str(j, "message", (char *)b.data);
			json_end(j);
			buf_release(&b);
		} else {
			json_null(j, "fetch");
		}
		json_array(j, "refused");
		for (size_t k = 0; k < src->ntries; k++) {
			if (!src->tries[k].why)
				continue;
			json_object(j, NULL);
			json_str(j, "path", src->tries[k].path);
			json_str(j, "why", src->tries[k].why);
			json_end(j);
		}
		json_end(j);
		json_end(j);
		json_end(j);
	}
	json_end(j);
	free(use);
}

/* The samples of each state, as an object of the states that have any. */
static void json_states(struct json *j, const char *key, const uint64_t *states)
{
	json_object(j, key);
	for (int c = 0; c < TRACE_STATE__COUNT; c++)
		if (states[c])
			json_u64(j, trace_state_name(c), states[c]);
	json_end(j);
}

static void json_threads(struct json *j, const struct trace *t)
{
	uint64_t (*states)[TRACE_STATE__COUNT] = xcalloc(t->nthreads + 1, sizeof(*states));
	uint64_t *n = xcalloc(t->nthreads + 1, sizeof(*n));
	struct hmap at;
	size_t i;

	hmap_init(&at);
	for (i = 0; i < t->nthreads; i++)
		hmap_put(&at, t->threads[i].tid, 0, i, NULL);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		uint64_t *k = hmap_get(&at, s->tid, 0);

		if (!k)
			continue;
		n[*k]++;
		states[*k][s->state < TRACE_STATE__COUNT ? s->state : TRACE_STATE_UNKNOWN]++;
	}
	json_array(j, "threads");
	for (i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		json_object(j, NULL);
		json_u64(j, "tid", th->tid);
		json_str(j, "name", th->nnames ? th->names[th->nnames - 1].name : NULL);
		json_u64(j, "samples", n[i]);
		json_states(j, "states", states[i]);
		json_double(j, "start", trace_since_start_s(t, th->time_start), 12);
		json_secs(j, "end", t, th->time_end);
		json_array(j, "names");
		for (size_t k = 0; k < th->nnames; k++) {
			json_object(j, NULL);
			json_double(j, "time", trace_since_start_s(t, th->names[k].time), 12);
			json_str(j, "name", th->names[k].name);
			json_end(j);
		}
		json_end(j);
		json_end(j);
	}
	json_end(j);
	hmap_release(&at);
	free(n);
	free(states);
}

static void json_counts(struct json *j, const struct trace *t)
{
	const struct trace_load_status *st = &t->status;
	uint64_t states[TRACE_STATE__COUNT] = { 0 };

	for (size_t i = 0; i < t->nsamples; i++)
		states[t->samples[i].state < TRACE_STATE__COUNT ? t->samples[i].state : TRACE_STATE_UNKNOWN]++;
	json_states(j, "states", states);
	json_object(j, "counters");
	for (int c = 0; c < TRACE_COUNTER__COUNT; c++)
		json_u64(j, trace_counter_name(c), t->counters[c]);
	json_end(j);
	json_object(j, "load");
	json_bool(j, "complete", st->complete);
	json_u64(j, "chunks", st->chunks);
	json_u64(j, "chunks_missing", st->chunks_missing);
	json_u64(j, "chunks_damaged", st->chunks_damaged);
	json_u64(j, "bytes_cut", st->bytes_cut);
	json_u64(j, "samples_dropped", st->samples_dropped);
	json_end(j);
}

/* The marks and the paused intervals; both empty before format 2.3. */
static void json_marks(struct json *j, const struct trace *t)
{
	json_array(j, "marks");
	for (size_t i = 0; i < t->nmarks; i++) {
		json_object(j, NULL);
		json_str(j, "name", t->marks[i].name);
		json_double(j, "time", trace_since_start_s(t, t->marks[i].time), 12);
		json_str(j, "source", trace_mark_source_name(t->marks[i].source));
		json_end(j);
	}
	json_end(j);
	json_double(j, "paused", (double)trace_paused_ns(t, 0, UINT64_MAX) / 1e9, 12);
	json_array(j, "pauses");
	for (size_t i = 0; i < t->npauses; i++) {
		json_object(j, NULL);
		json_double(j, "start", trace_since_start_s(t, t->pauses[i].start), 12);
		json_double(j, "end", trace_since_start_s(t, t->pauses[i].end), 12);
		json_end(j);
	}
	json_end(j);
}

/* Code no file holds (struct unnamed). */
static void json_unnamed(struct json *j, struct stacks *st)
{
	const struct trace *t = stacks_trace(st);
	struct unnamed u;

	count_unnamed(st, &u);
	json_object(j, "unnamed");
	json_u64(j, "stacks", u.stacks);
	json_u64(j, "leaves", u.jit + u.anon);
	json_u64(j, "jit", u.jit);
	json_u64(j, "anon", u.anon);
	json_u64(j, "stopped_in_jit", u.stopped);
	json_object(j, "code_ranges");
	json_u64(j, "perf-map", u.code[TRACE_CODE_PERF_MAP]);
	json_u64(j, "jitdump", u.code[TRACE_CODE_JITDUMP]);
	json_u64(j, "vdso", u.code[TRACE_CODE_VDSO]);
	json_u64(j, "unknown", u.code[TRACE_CODE_UNKNOWN]);
	json_end(j);
	json_u64(j, "walks", u.walks);
	if (u.scans_counted)
		json_u64(j, "leaf_scans", t->counters[TRACE_COUNTER_LEAF_SCANS]);
	else
		json_null(j, "leaf_scans");
	json_str(j, "hint", u.anon ? unnamed_hint : NULL);
	json_end(j);
}

/* What a file of session s is of its recording. */
static void json_part_fields(struct json *j, const struct trace_session *s)
{
	char rec[32];

	json_str(j, "kind", trace_part_kind_name(s->part_kind));
	json_u64(j, "part", s->part);
	snprintf(rec, sizeof(rec), "%016" PRIx64, s->recording);
	json_str(j, "recording", s->recording ? rec : NULL);
	if (s->part_kind == TRACE_PART_SNAPSHOT)
		json_double(j, "window", (double)s->window_ns / 1e9, 12);
	else
		json_null(j, "window");
}

/* The files of a trace merged from several, and how each meets the one
 * before it; neither is there for a trace of one file, which says what
 * it is of its recording if it is not the whole. */
static void json_files(struct json *j, const struct trace *t)
{
	struct buf w;

	if (!t->nfiles && t->session.part_kind != TRACE_PART_WHOLE) {
		json_object(j, "part");
		json_part_fields(j, &t->session);
		json_end(j);
	}
	if (!t->nfiles)
		return;
	buf_init(&w);
	json_array(j, "files");
	for (size_t i = 0; i < t->nfiles; i++) {
		const struct trace_file *f = &t->files[i];

		json_object(j, NULL);
		json_str(j, "path", f->path);
		json_part_fields(j, &f->session);
		json_double(j, "start", trace_since_start_s(t, f->start), 12);
		json_double(j, "end", trace_since_start_s(t, f->end), 12);
		json_u64(j, "samples", f->samples);
		json_u64(j, "overlapped", f->samples_overlap);
		json_bool(j, "complete", f->status.complete);
		buf_reset(&w);
		cli_loss_words(&w, &f->status, 1);
		json_str(j, "lost", w.len ? (char *)w.data : NULL);
		json_end(j);
	}
	json_end(j);
	json_array(j, "gaps");
	for (size_t i = 1; i < t->nfiles; i++) {
		struct join g;

		join_of(&t->files[i - 1], &t->files[i], &g);
		if (!g.gap && !g.overlap && !g.missing_from)
			continue;
		json_object(j, NULL);
		json_str(j, "after", t->files[i - 1].path);
		json_str(j, "before", t->files[i].path);
		json_bool(j, "overlap", g.overlap != 0);
		json_double(j, "seconds", (double)(g.overlap ? g.overlap : g.gap) / 1e9, 12);
		if (g.missing_from) {
			json_object(j, "missing");
			json_u64(j, "from", g.missing_from);
			json_u64(j, "to", g.missing_to);
			json_end(j);
		} else {
			json_null(j, "missing");
		}
		json_end(j);
	}
	json_end(j);
	buf_release(&w);
}

static int write_json(const struct cli_trace *ct)
{
	const struct trace *t = ct->t;
	struct buf b;
	struct json j;

	json_report_begin(&j, &b, "info");
	json_session(&j, t, ct->path);
	json_u64(&j, "samples", t->nsamples);
	json_u64(&j, "lost", t->counters[TRACE_COUNTER_SAMPLES_LOST]);
	json_threads(&j, t);
	json_images(&j, ct->stacks, ct->sym);
	json_marks(&j, t);
	json_counts(&j, t);
	json_unnamed(&j, ct->stacks);
	json_files(&j, t);
	return json_report_write(&j, stdout);
}

int cmd_info(int argc, char **argv)
{
	struct cli_report r = { 0 };
	int json = 0;
	const struct opt_option options[] = {
		OPT_FLAG(0, "json", &json, "write it as JSON (prof-json(5))"),
		CLI_SYMBOL_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"info", "[TRACE...]", 0, -1,
		"Describes the trace: session, images and their debug files, threads,\n"
		"sample and lost counts, unwind stop reasons and what loading found.",
		options,
	};
	struct cli_trace ct;
	int first;

	first = opt_parse(&cmd, argc, argv);
	r.names_only = 1;
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_SYMBOLIZED, &ct);
	if (json) {
		if (write_json(&ct) < 0)
			die_errno("cannot write to standard output");
	} else {
		print_session(ct.t, ct.path);
		print_files(ct.t);
		print_images(ct.stacks, ct.sym, r.offline);
		print_processes(ct.t);
		print_threads(ct.t);
		print_marks(ct.t);
		print_counts(ct.stacks);
	}
	diag_close_stdout();
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
