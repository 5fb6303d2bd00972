/*
 * events.h: prof-record's event stream (--events PATH|fd:N), for the
 * program in charge of a recording.
 *
 * One JSON object a line, each with "event" (its name) and "schema": 1:
 * start, progress, warning, ack, switch, snapshot, end, and error for a
 * failure before the start. man/prof-record.1 (EVENTS) documents every field. The stream is
 * written without blocking: an event that a full reader cannot take now is
 * dropped (and counted), and a reader gone (EPIPE) stops the stream, never
 * the recording. Nothing prints.
 */
#ifndef RECORD_EVENTS_H
#define RECORD_EVENTS_H

#include <stdint.h>

#define EVENTS_SCHEMA 1

struct events;
struct loop_stats;
struct control_command;

/* Opens spec: "fd:N", an inherited descriptor, or a path, created or
 * emptied (a FIFO must have its reader already). Returns 0 and *out,
 * freed with events_free(), or a negative errno (-EINVAL for a bad fd:). */
int events_open(const char *spec, struct events **out);
void events_free(struct events *e);

/* What start says of the recording; strings borrowed for the call. */
struct events_start {
	int pid;
	uint32_t argc;
	char *const *argv;      /* the command, launched or read from the process */
	int launched;
	const char *mode, *sampler, *kernel, *kernel_why;
	uint32_t rate_hz;
	const char *trace;      /* the trace's path */
	uint64_t realtime_ns;   /* CLOCK_REALTIME at the start */
};
void events_start(struct events *e, const struct events_start *s);
/* A progress event from the loop's counters. */
void events_progress(struct events *e, const struct loop_stats *st);
void events_warning(struct events *e, const char *code, const char *msg);
/* The answer to one control command: refused is NULL, or why not. */
void events_ack(struct events *e, const struct control_command *cmd, const char *refused);

/* A file of the recording written: "switch" for a rotated file
 * finished, "snapshot" for a ring's window written; strings borrowed. */
struct events_file {
	const char *event;
	const char *path;
	uint32_t part;          /* its number in the recording; 0 for -o */
	uint64_t from, to;      /* the time it covers (monotonic) */
	uint64_t samples, bytes;
};
void events_file(struct events *e, const struct events_file *f);

/* What end says. */
struct events_end {
	const char *why;        /* "exited", "signaled", "stop", "cancel",
	                         * "duration", "interrupted", "error" */
	int has_exit;           /* "exited"/"signaled": the status told */
	int exit_code;          /* its exit code, or the signal's number */
	uint64_t samples, lost, bytes;
	const char *trace;      /* the trace's path, or NULL when none is kept */
	const char *error;      /* "error": the message, or NULL */
	int running;            /* the target runs on (a stop, a cancel, -d) */
};
void events_end(struct events *e, const struct events_end *end);
/* A failure before the start: the message and prof-record's exit code. */
void events_error(struct events *e, const char *msg, int exit_code);

#endif
