/*
 * output.h: the files of one recording.
 *
 * A recording goes to one trace, -o; or, with --switch-output, to files
 * named after -o with a number that sorts in time order (prof.000001.trace,
 * prof.000002.trace, ...), each begun when the time or size is up, or when
 * SIGUSR2 or the control channel's switch asks; or, with --ring, to
 * memory, of which each snapshot (SIGUSR2, the control channel's
 * snapshot, or with --snapshot-on-crash a process dying of a signal)
 * writes the last seconds to the next such file, and the end of the
 * recording writes them to -o. Each file is a whole trace
 * (trace_writer_switch(), trace_writer_snapshot()).
 *
 * Like session.c, whose part it is, it says what goes wrong itself, and
 * what it wrote: a line per file finished, unless quiet.
 */
#ifndef RECORD_OUTPUT_H
#define RECORD_OUTPUT_H

#include <stdint.h>

struct session_options;
struct trace_session;
struct trace_writer;
struct trace_end;
struct events;

/* The default cap of a ring's memory (--ring-size). */
#define OUTPUT_RING_SIZE (64ull << 20)
/* What a window is reckoned to need a sample, at the least, when --ring
 * is checked against --ring-size: a busy thread's stacks compress to
 * about this (the trace's bytes per sample, bench/RESULTS.md). */
#define OUTPUT_RING_SAMPLE_BYTES 4

struct output;

/* Checks that o's files can be written and opens the first: -o (kept
 * empty until the end, with --ring), or the first numbered file. Files
 * of the set that are there already are refused without -f, and removed
 * with it. With --switch-output or --ring, SIGUSR2 is caught from here
 * on. events, if not NULL, hears of each file finished (borrowed).
 * Returns 0, or -1 after saying why. */
int output_open(const struct session_options *o, struct events *events, struct output **out);
/* The recording is about to start: -o, if it existed (-f), is emptied
 * and made private (0600). Returns 0, or -1 after saying why. */
int output_claim(struct output *out);
/* Sets the session's place in its recording and makes the writer. */
int output_writer(struct output *out, struct trace_session *sess, struct trace_writer **w);
/* The loop's book-keeping, every round: whether a switch or snapshot is
 * due (the time or size is up) or asked; if so, once the counters are
 * written, output_tick() does it. That returns 0, or a negative trace
 * error that ends the recording (a file that could not be written). */
int output_due(void *out, const struct trace_writer *w, uint64_t now);
int output_tick(void *out, struct trace_writer *w, uint64_t now);
/* The control channel asks for a switch (switching 1) or a snapshot (0).
 * Returns NULL, or why it is refused. */
const char *output_ask(void *out, int switching);
/* A process of the recording died of signal sig: a snapshot is queued
 * with --snapshot-on-crash. */
void output_crashed(void *out, uint32_t pid, int sig);
/* Ends the recording's files: the current one finished with end, or the
 * ring's last window written to -o. Returns 0 or a negative error,
 * which the caller reports with output_path(). */
int output_finish(struct output *out, struct trace_writer *w, const struct trace_end *end);
/* The file being written now, or last: for messages. */
const char *output_path(const struct output *out);
/* The files written, for the summary: "'prof.trace'", or
 * "4 files, 'prof.000002.trace' to 'prof.000005.trace'". A heap string. */
char *output_files(const struct output *out);
/* What the summary says was written: "1.9 bytes/sample, wrote
 * 'prof.trace'", or "... wrote 4 files, ...", or for a ring "wrote the
 * last 2.1 s (2093 samples) to 'prof.trace'". A heap string. */
char *output_summary(const struct output *out, const struct trace_writer *w);
/* Removes what this run wrote: it never started, or was cancelled. */
void output_discard(struct output *out);
/* Closes what is open and frees out (NULL is fine). */
void output_free(struct output *out);

#endif
