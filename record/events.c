/*
 * events.c: the event stream, one JSON object a line.
 *
 * Each event is built whole in a buffer and written when the reader has
 * room for it, so a reader never sees half a line from us unless it is
 * too full to take the line at all: an event the pipe cannot take whole
 * is dropped (a progress event is worth nothing late), and only a partial
 * write, which a pipe makes only past its buffer, is finished in a short
 * loop. EPIPE, or any other write error, ends the stream and nothing
 * else; SIGPIPE is the caller's to catch.
 * The objects are common/json.c's, on one line: strings escaped as
 * prof-json(5) says, so every line parses whatever a name holds.
 */
#include "events.h"
#include "control.h"
#include "loop.h"
#include "common/buf.h"
#include "common/diag.h"
#include "common/json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct events {
	int fd;                 /* ours: closed here */
	int broken;             /* a write failed: no more events */
	uint64_t dropped;       /* events a full reader could not take */
	struct buf b;
	struct json j;
};

int events_open(const char *spec, struct events **out)
{
	struct events *e;
	int fd;

	*out = NULL;
	if (!strncmp(spec, "fd:", 3))
		fd = control_take_fd(spec);
	else
		fd = open(spec, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return fd == -EINVAL ? fd : -errno;
	e = xcalloc(1, sizeof(*e));
	e->fd = fd;
	buf_init(&e->b);
	*out = e;
	return 0;
}

void events_free(struct events *e)
{
	if (!e)
		return;
	close(e->fd);
	buf_release(&e->b);
	free(e);
}

static void begin(struct events *e, const char *name)
{
	buf_reset(&e->b);
	json_init_line(&e->j, &e->b);
	json_object(&e->j, NULL);
	json_str(&e->j, "event", name);
	json_u64(&e->j, "schema", EVENTS_SCHEMA);
}

/* Seconds, to the millisecond. */
static void key_secs(struct events *e, const char *k, uint64_t ns)
{
	json_fixed(&e->j, k, (double)ns / 1e9, 3);
}

/* Writes what a poll says fd takes now without blocking: at most
 * PIPE_BUF bytes, which a pipe with room takes whole. A host's descriptor
 * keeps its flags (its other holders share them), so it is polled. */
static ssize_t write_now(int fd, const void *p, size_t n)
{
	struct pollfd pf = { .fd = fd, .events = POLLOUT };
	int r = poll(&pf, 1, 0);

	if (r <= 0) {
		if (r == 0)
			errno = EAGAIN;
		return -1;
	}
	return write(fd, p, n < PIPE_BUF ? n : PIPE_BUF);
}

/* Writes the event: whole, or not at all if the reader is full, after
 * waiting up to wait_ms for it to make room (end and error, which come
 * after the sampling, are worth a wait; what comes while it runs, start
 * included, is not, so that a reader who stops reading never holds the
 * recording up: its events are dropped and counted). */
static void send_wait(struct events *e, int wait_ms)
{
	size_t off = 0;
	int tries = 0;

	json_end(&e->j);
	json_finish(&e->j);
	if (e->broken)
		return;
	while (off < e->b.len) {
		ssize_t n = write_now(e->fd, e->b.data + off, e->b.len - off);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!off && tries >= wait_ms) {
				e->dropped++;
				return;
			}
			/* Half a line out: the rest, or the stream ends, in
			 * at most a tenth of a second more. */
			if (off && tries >= wait_ms + 100) {
				e->broken = 1;
				return;
			}
			tries++;
			usleep(1000);
			continue;
		}
		e->broken = 1;
		return;
	}
}

static void send(struct events *e)
{
	send_wait(e, 1000);
}

void events_start(struct events *e, const struct events_start *s)
{
	if (!e)
		return;
	begin(e, "start");
	key_secs(e, "time", s->realtime_ns);
	json_i64(&e->j, "pid", s->pid);
	json_array(&e->j, "command");
	for (uint32_t i = 0; i < s->argc; i++)
		json_str(&e->j, NULL, s->argv[i]);
	json_end(&e->j);
	json_bool(&e->j, "launched", s->launched);
	json_str(&e->j, "mode", s->mode);
	json_str(&e->j, "sampler", s->sampler);
	json_u64(&e->j, "rate", s->rate_hz);
	json_str(&e->j, "kernel", s->kernel);
	json_str(&e->j, "kernel_why", s->kernel_why);
	json_str(&e->j, "trace", s->trace);
	send_wait(e, 0);
}

void events_progress(struct events *e, const struct loop_stats *st)
{
	if (!e)
		return;
	begin(e, "progress");
	key_secs(e, "elapsed", st->elapsed_ns);
	json_u64(&e->j, "samples", st->samples);
	json_u64(&e->j, "lost", st->lost);
	json_u64(&e->j, "threads", st->live_threads);
	json_u64(&e->j, "images", st->images);
	json_u64(&e->j, "bytes", st->bytes);
	send_wait(e, 0);
}

void events_warning(struct events *e, const char *code, const char *msg)
{
	if (!e)
		return;
	begin(e, "warning");
	json_str(&e->j, "code", code);
	json_str(&e->j, "message", msg);
	send_wait(e, 0);
}

void events_file(struct events *e, const struct events_file *f)
{
	char *path;

	if (!e)
		return;
	path = realpath(f->path, NULL);
	begin(e, f->event);
	json_str(&e->j, "trace", path ? path : f->path);
	if (f->part)
		json_u64(&e->j, "part", f->part);
	key_secs(e, "seconds", f->to > f->from ? f->to - f->from : 0);
	json_u64(&e->j, "samples", f->samples);
	json_u64(&e->j, "bytes", f->bytes);
	send_wait(e, 0);
	free(path);
}

void events_ack(struct events *e, const struct control_command *cmd, const char *refused)
{
	static const char *const names[] = { "stop", "cancel", "pause", "resume", "mark", "switch", "snapshot" };

	if (!e)
		return;
	begin(e, "ack");
	json_str(&e->j, "command", cmd->kind < CONTROL_BAD ? names[cmd->kind] : cmd->word);
	if (cmd->kind == CONTROL_MARK)
		json_str(&e->j, "name", cmd->arg);
	json_bool(&e->j, "ok", !refused);
	json_str(&e->j, "error", refused);
	send_wait(e, 0);
}

void events_end(struct events *e, const struct events_end *end)
{
	if (!e)
		return;
	begin(e, "end");
	json_str(&e->j, "why", end->why);
	if (end->has_exit && !strcmp(end->why, "exited"))
		json_i64(&e->j, "status", end->exit_code);
	if (end->has_exit && !strcmp(end->why, "signaled"))
		json_i64(&e->j, "signal", end->exit_code);
	if (end->error)
		json_str(&e->j, "error", end->error);
	json_u64(&e->j, "samples", end->samples);
	json_u64(&e->j, "lost", end->lost);
	json_u64(&e->j, "bytes", end->bytes);
	json_fixed(&e->j, "bytes_per_sample", end->samples ? (double)end->bytes / (double)end->samples : 0.0, 2);
	json_bool(&e->j, "running", end->running);
	json_u64(&e->j, "events_dropped", e->dropped);
	json_str(&e->j, "trace", end->trace);
	send(e);
}

void events_error(struct events *e, const char *msg, int exit_code)
{
	if (!e)
		return;
	begin(e, "error");
	json_str(&e->j, "message", msg);
	json_i64(&e->j, "exit_code", exit_code);
	send(e);
}
