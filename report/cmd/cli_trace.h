/*
 * cli_trace.h: the trace a prof-report command opens, and the file it
 * writes.
 *
 * For cmd_* only: these print, and die with a clear message (exit 1) when
 * a trace cannot be loaded or an output cannot be written.
 */
#ifndef REPORT_CLI_TRACE_H
#define REPORT_CLI_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "common/progress.h"
#include "format/trace.h"
#include "report/cmd/cli_options.h"

/* Whether -o path means standard output: no -o, or "-". */
int cli_output_is_stdout(const char *path);
/* The stream for path (-o), created or truncated, or standard output
 * (cli_output_is_stdout()); dies with a clear message if it cannot be
 * created. */
FILE *cli_output_open(const char *path);
/* Closes what cli_output_open(path) returned (standard output through
 * diag_close_stdout()), and dies if anything written was lost. */
void cli_output_close(const char *path, FILE *f);

struct buf;
struct profile;
/* Appends "chunk SEQ" to b, or "chunks SEQ-LAST" for nseq > 1. */
void cli_chunk_names(struct buf *b, uint32_t seq, uint32_t nseq);
/* Appends to b what st says a trace (trace: 1, its samples dropped
 * too) or a pack did not read back whole, as the loading warning says
 * it ("chunk 3 missing, cut short (...)"), or nothing if it read whole. */
void cli_loss_words(struct buf *b, const struct trace_load_status *st, int trace);

/* A trace opened for a subcommand, as far as it asks: loaded, then
 * symbolized, then made into the filtered profile. Loading warns, in one
 * line, when the trace did not read back whole: chunks missing or
 * damaged, cut short, samples dropped, or not finished cleanly. */
enum cli_stage { CLI_LOADED, CLI_SYMBOLIZED, CLI_PROFILED };
struct cli_trace {
	const char *path;      /* as named, or TRACE_DEFAULT_PATH; the first
	                        * of several, whose own are in t->files */
	struct trace *t;
	struct pack *pack;     /* the symbol packs, from CLI_SYMBOLIZED on */
	struct symbolize *sym; /* from CLI_SYMBOLIZED on, else NULL */
	struct stacks *stacks; /* its stacks; frames from CLI_SYMBOLIZED on */
	struct profile *p;     /* at CLI_PROFILED, else NULL */
	struct progress *progress; /* the run's status line, ended (cleared):
	                       * a command that symbolizes after cli_open()
	                       * starts a phase of its own and ends it
	                       * before it writes */
};
/* Opens the n traces at paths as one (trace_load_many(); n 0:
 * TRACE_DEFAULT_PATH, the trace a command reads when none is named,
 * whose absence is an error that names the fix) to the given stage under
 * the options r, or dies with a clear message: a file named twice is bad
 * usage of cmd. The symbol packs are the --pack files, then of each
 * trace the pack it embeds and TRACE.syms if it exists. --from and --to
 * given as marks get the times of the trace's marks in r. On a terminal,
 * a run that takes more than a second shows its phases on standard
 * error, cleared before this returns. cmd may be NULL for n <= 1.
 * Release with cli_close(). */
void cli_open(struct cli_report *r, const struct opt_command *cmd, char *const *paths, size_t n,
	      enum cli_stage stage, struct cli_trace *ct);
void cli_close(struct cli_trace *ct);

/* What a graph's or page's subtitle says was recorded: the command, how
 * long, how many samples p holds, the mode and the rate. A heap string
 * the caller frees. */
char *cli_subtitle(const struct trace *t, const struct profile *p);

#endif
