/*
 * cmd_pack.c: 'prof-report pack TRACE', run where the debug files are. It
 * writes the frames of every address the trace's samples use to a symbol
 * pack, TRACE.syms by default, which any later report of TRACE picks up by
 * itself; with --embed it appends them to TRACE, which then carries its own
 * symbols. Several traces make one pack, of the addresses of them all,
 * which -o must name. A new pack file is written beside its name and
 * renamed over it, so a failure leaves the old one; an embedded pack only
 * ever grows, by the
 * addresses it did not hold yet. Each image whose samples the pack cannot
 * name is named on standard error with the reason, and --check makes that
 * a failure. --asm and --sources add, for annotate, the code of the
 * sampled functions and the source lines of the frames; neither is a
 * symbol, so what they miss is said but never fails --check.
 */
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
#include "common/progress.h"
#include "format/trace_pack.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/output/pack_build.h"

/* Whether pack s holds addresses or code of img's identity. */
static int packed(const struct trace_pack *s, const struct trace_image *img)
{
	for (size_t k = 0; k < s->nimages; k++) {
		const struct trace_pack_image *si = &s->images[k];
		if ((si->naddrs || si->ncode) &&
		    trace_ident_same(si->ident_kind, si->ident_len, si->ident, img->ident_kind,
				     img->ident_len, img->ident))
			return 1;
	}
	return 0;
}

/* The bytes of the distinct files that served the images in pack s: what
 * the pack stands in for. */
static uint64_t debug_bytes(const struct trace *t, struct symbolize *sym,
			    const struct trace_pack *s, size_t *nfiles)
{
	uint64_t total = 0;

	*nfiles = 0;
	for (size_t i = 0; i < t->nimages; i++) {
		const struct locate_result *src = symbolize_image_source(sym, i, NULL);
		int dup = 0;
		struct stat st;

		if (!src->found || !packed(s, &t->images[i]))
			continue;
		for (size_t j = 0; j < i && !dup; j++) {
			const struct locate_result *o = symbolize_image_source(sym, j, NULL);
			dup = o->found && !strcmp(o->path, src->path);
		}
		if (!dup && stat(src->path, &st) == 0) {
			total += (uint64_t)st.st_size;
			++*nfiles;
		}
	}
	return total;
}

/* Says on standard error which images with samples the pack holds
 * nothing of, and why; returns how many are missing (no identity, or no
 * file found), which --check fails on: an image whose file names none of
 * its addresses is as well served by the pack as here. */
static size_t left_out(const struct trace *t, struct symbolize *sym,
		       const struct pack_build_stats *st)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];
		const struct locate_result *src;
		char *why;
		int err;

		if (!st->used[i] || st->named[i])
			continue;
		src = symbolize_image_source(sym, i, &err);
		if (trace_code_count(t, img->process, img->start, img->start + img->size)) {
			/* The vDSO: the trace names its functions, and the
			 * addresses left lie outside every one of them. */
			fprintf(stderr, "%s: nothing to pack of image %u '%s' (%zu address%s): the trace "
				"names its functions, and these lie outside them\n", diag_progname(), img->id,
				symbolize_image_label(sym, i), st->used[i], st->used[i] == 1 ? "" : "es");
			continue;
		}
		if (!trace_ident_valid(img->ident_kind, img->ident_len))
			why = xstrdup("the trace records no identity for it, so no pack can serve it");
		else if (err < 0)
			why = xasprintf("%s; 'prof-report info' lists the paths tried, and --symbols DIR "
					"names a directory that holds it", prof_strerror(err));
		else
			why = xasprintf("its file '%s' names none of them", src->path);
		fprintf(stderr, "%s: %s image %u '%s' (%zu address%s): %s\n", diag_progname(),
			err < 0 || !trace_ident_valid(img->ident_kind, img->ident_len) ? "left out" : "nothing to pack of", img->id,
			symbolize_image_label(sym, i), st->used[i], st->used[i] == 1 ? "" : "es", why);
		free(why);
		n += err < 0 || !trace_ident_valid(img->ident_kind, img->ident_len);
	}
	return n;
}

/* Says on standard error what --asm and --sources could not store. */
static void extras_left_out(const struct pack_build_stats *st)
{
	if (st->code_missing)
		fprintf(stderr, "%s: no code stored for %zu address%s, whose function no file here "
			"holds or no symbol bounds\n", diag_progname(), st->code_missing,
			st->code_missing == 1 ? "" : "es");
	if (st->sources_missing)
		fprintf(stderr, "%s: no source lines stored of %zu file%s that frames name, e.g. '%s': %s\n",
			diag_progname(), st->sources_missing, st->sources_missing == 1 ? "" : "s",
			st->missing, st->missing_why);
	if (st->sources_capped)
		fprintf(stderr, "%s: source lines stop at the pack's cap of %u bytes; later files' are "
			"left out\n", diag_progname(), TRACE_PACK_MAX_SOURCE);
}

/* Writes s to a new file at path, by way of a temporary file beside it;
 * never over one of the n traces it was made from. */
static void write_file(const char *path, const char *const *traces, size_t n, const struct trace_pack *s,
		       uint64_t *bytes)
{
	struct stat a, b;
	char *tmp;
	int fd, err;

	for (size_t i = 0; i < n; i++)
		if (stat(path, &a) == 0 && stat(traces[i], &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			die("'%s' is the trace itself; name another file with -o%s", path,
			    n > 1 ? "" : ", or use --embed");
	tmp = xasprintf("%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		die_errno("cannot create '%s'", tmp);
	err = trace_pack_write(fd, s, 1, 0, bytes);
	if (err == 0 && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && err == 0)
		err = -errno;
	if (err == 0 && rename(tmp, path) < 0)
		err = -errno;
	if (err < 0) {
		unlink(tmp);
		die("cannot write '%s': %s", path, prof_strerror(err));
	}
	free(tmp);
}

/* Writes s, a pack file, to standard output. */
static void write_stdout(const struct trace_pack *s, uint64_t *bytes)
{
	int err = trace_pack_write(STDOUT_FILENO, s, 1, 0, bytes);

	if (err < 0)
		die("cannot write to standard output: %s", prof_strerror(err));
}

/* Appends s to the trace at path, which must end where an intact chunk
 * ends. */
static void append_to_trace(const char *path, const struct trace *t, const struct trace_pack *s,
			    uint64_t *bytes)
{
	int fd, err;

	if (!t->status.ends_whole)
		die("'%s' ends in a partial or damaged chunk; write the pack to a file of its own with -o",
		    path);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		die_errno("cannot open '%s'", path);
	err = trace_pack_write(fd, s, 0, t->status.next_seq, bytes);
	if (close(fd) < 0 && err == 0)
		err = -errno;
	if (err < 0)
		die("cannot append to '%s': %s", path, prof_strerror(err));
}

int cmd_pack(int argc, char **argv)
{
	struct cli_report r = { 0 };
	const char *output = NULL;
	int embed = 0, check = 0, code = 0, sources = 0, ret = 0;
	struct cli_sources srcs = { 0 };
	const struct opt_option options[] = {
		OPT_STRING('o', "output", "FILE", &output,
			   "write the pack to FILE (default TRACE.syms; '-':\n"
			   "standard output)"),
		OPT_FLAG(0, "embed", &embed,
			 "append the pack to TRACE, which stays a valid trace"),
		OPT_FLAG(0, "check", &check,
			 "exit 1 if an image with samples is left out"),
		OPT_FLAG(0, "asm", &code,
			 "also store the code of each sampled function, for\n"
			 "'annotate --asm'"),
		OPT_FLAG(0, "sources", &sources,
			 "also store the source lines of the frames, with\n"
			 "context (sources may be private)"),
		CLI_SYMBOL_OPTIONS(&r),
		CLI_SOURCE_OPTIONS(&srcs),
		OPT_END,
	};
	const struct opt_command cmd = {
		"pack", "[TRACE...]", 0, -1,
		"Writes a symbol pack: the functions, inline chains, files and lines of\n"
		"every address the samples of TRACE use, for the images whose debug files\n"
		"are found here, so that reports elsewhere need none. Reports of TRACE use\n"
		"TRACE.syms by themselves; --embed makes TRACE carry the pack instead.\n"
		"Several traces make one pack of them all, which -o names.",
		options,
	};
	struct cli_trace ct;
	struct trace_pack *s;
	struct pack *have = NULL;
	struct pack_build_opts bo;
	struct pack_build_stats st;
	struct buf extras;
	uint64_t bytes = 0, dbytes;
	size_t nfiles, nleft;
	char *out = NULL;
	int first;

	first = opt_parse(&cmd, argc, argv);
	if (embed && output)
		opt_usage_error(&cmd, "options '--embed' and '-o' cannot be used together");
	/* One pack covers several traces; which of them would carry it, or
	 * be named for it, is for the user to say. */
	if (embed && argc - first > 1)
		opt_usage_error(&cmd, "option '--embed' takes one trace; for several, write one pack "
			       "with -o FILE and report them with --pack FILE");
	if (!output && argc - first > 1)
		opt_usage_error(&cmd, "several traces make one pack: name it with -o FILE, and report "
			       "them with --pack FILE");
	if (output && cli_output_is_stdout(output) && isatty(STDOUT_FILENO))
		die("not writing a binary symbol pack to a terminal; use -o FILE or a pipe");
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_SYMBOLIZED, &ct);
	if (embed && ct.t->pack) {
		have = pack_new();
		pack_add(have, ct.t->pack, ct.path, 0);
	}
	bo = (struct pack_build_opts){ .have = have, .sym = ct.sym, .code = code, .sources = sources,
				       .source = cli_srcfile(&srcs, NULL), .progress = ct.progress };
	s = pack_build(ct.stacks, &bo, &st);
	dbytes = debug_bytes(ct.t, ct.sym, s, &nfiles);
	progress_end(ct.progress);
	buf_init(&extras);
	if (code)
		buf_addf(&extras, "; the code of %zu function%s (%" PRIu64 " bytes)", st.functions,
			 st.functions == 1 ? "" : "s", st.code_bytes);
	if (sources)
		buf_addf(&extras, "; %zu source line%s of %zu file%s", st.source_lines,
			 st.source_lines == 1 ? "" : "s", st.source_files, st.source_files == 1 ? "" : "s");
	buf_addch(&extras, 0);
	if (embed && !st.addrs && !st.functions && !st.source_lines) {
		fprintf(stderr, "%s: nothing to add: '%s' already holds the symbols of every address that can be named%s\n",
			diag_progname(), ct.path,
			code || sources ? ", and what of their code and sources can be read here" : "");
		goto report;
	}
	if (embed) {
		out = xstrdup(ct.path);
		append_to_trace(out, ct.t, s, &bytes);
	} else if (output && cli_output_is_stdout(output)) {
		out = xstrdup("standard output");
		write_stdout(s, &bytes);
	} else {
		out = output ? xstrdup(output) : xasprintf("%s.syms", ct.path);
		write_file(out, argc > first ? (const char *const *)argv + first : &ct.path,
			   argc > first ? (size_t)(argc - first) : 1, s, &bytes);
	}
	fprintf(stderr,
		"%s: %s '%s': %zu addresses of %zu images in %" PRIu64
		" bytes, for %zu debug files of %" PRIu64 " bytes%s\n",
		diag_progname(), embed ? "appended to" : "wrote", out, st.addrs, st.images, bytes,
		nfiles, dbytes, (char *)extras.data);
report:
	nleft = left_out(ct.t, ct.sym, &st);
	extras_left_out(&st);
	if (check && nleft) {
		error("%zu image%s with samples left out of the pack; make their files available (or name them with --symbols) and pack again",
		      nleft, nleft == 1 ? "" : "s");
		ret = 1;
	}
	free(st.used);
	free(st.named);
	free(st.missing);
	srcfile_free(bo.source);
	buf_release(&extras);
	free(out);
	trace_pack_free(s);
	pack_free(have);
	cli_close(&ct);
	opt_release(&cmd);
	return ret;
}
