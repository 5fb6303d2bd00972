/*
 * control.h: prof-record's control channel (--control PATH|fd:N).
 *
 * A host drives a recording by writing one command per line to a FIFO or
 * to a descriptor it handed down: stop, cancel, pause, resume and
 * "mark NAME". The channel is read without blocking, from the loop's
 * rounds, so a host that writes nothing, writes garbage or goes away never
 * holds the recording up. Library code: nothing prints.
 *
 * The same reader takes the marks a launched program writes itself
 * (control_open_names()): a file whose every line is a mark's name.
 */
#ifndef RECORD_CONTROL_H
#define RECORD_CONTROL_H

#include <stddef.h>

/* The longest line read as a command; a longer one is an error, skipped
 * to its newline without being kept. */
#define CONTROL_LINE_MAX 4096

enum control_kind {
	CONTROL_STOP,    /* finish the trace, as SIGINT does */
	CONTROL_CANCEL,  /* end, and remove the trace */
	CONTROL_PAUSE,
	CONTROL_RESUME,
	CONTROL_MARK,    /* arg: the mark's name */
	CONTROL_SWITCH,  /* go on in the next file (--switch-output) */
	CONTROL_SNAPSHOT, /* write the ring's window (--ring) */
	CONTROL_BAD,     /* not a command: arg says why */
};

struct control_command {
	int kind;        /* enum control_kind */
	const char *word; /* the command's word as given ("stop"), made safe
	                  * to show (at most 32 bytes, control bytes as '?');
	                  * "" for a line too long or empty */
	const char *arg; /* CONTROL_MARK: the name; CONTROL_BAD: why */
};

struct control;

/* The descriptor of spec "fd:N", for --control and --events: N itself,
 * made close-on-exec so that a launched command does not hold the host's
 * pipe open, or for 0, 1 and 2, which the command needs as they are, a
 * close-on-exec copy. Its flags are left as they were: the channel polls
 * before it reads or writes. Returns it, -EINVAL for an N that is not a
 * number, or a negative errno. */
int control_take_fd(const char *spec);

/* Opens spec: "fd:N", an inherited descriptor, or a path, opened for
 * reading without blocking (a FIFO needs no writer yet). Returns 0 and
 * *out, which the caller frees with control_free(), or a negative errno
 * (-EINVAL for an fd: that is not a number). */
int control_open(const char *spec, struct control **out);
/* Opens the file at path for its lines as marks: each is read as
 * CONTROL_MARK with the line as its name (empty lines skipped), and the
 * end of a regular file is only where its writer has got to, so a line
 * counts once its newline is there. Returns as control_open(). */
int control_open_names(const char *path, struct control **out);
/* Reads what the channel holds now, without blocking, and sets *cmd to
 * its next command: returns 1, or 0 if no whole line is waiting. cmd's
 * strings are borrowed until the next call. A channel whose writers have
 * all gone stays open for a new writer (a FIFO) or is done (a pipe); its
 * last line without a newline is taken as a command. */
int control_next(struct control *c, struct control_command *cmd);
/* Whether the channel has ended: a descriptor whose writer closed it. */
int control_closed(const struct control *c);
void control_free(struct control *c);

#endif
