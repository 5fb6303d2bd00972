/*
 * events.c: the event stream, one JSON object a line.
 *
 * Each event is built whole in a buffer and written with one write(2), so
 * a reader never sees half a line from us unless it is too full to take
 * the line at all: the descriptor is non-blocking, an event the pipe
 * cannot take whole is dropped (a progress event is worth nothing late),
 * and only a partial write, which a pipe makes only past its buffer, is
 * finished in a short blocking loop. EPIPE, or any other write error,
 * ends the stream and nothing else; SIGPIPE is the caller's to catch.
 * Strings are escaped as JSON requires, and bytes that are not UTF-8 are
 * written as U+FFFD, so every line parses whatever a name holds.
 */
#include "events.h"
#include "control.h"
#include "loop.h"
#include "common/buf.h"
#include "common/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct events {
	int fd;
	int own;
	int broken;             /* a write failed: no more events */
	uint64_t dropped;       /* events a full reader could not take */
	struct buf b;
};

int events_open(const char *spec, struct events **out)
{
	struct events *e;
	int fd, own = 0, flags;

	*out = NULL;
	if (!strncmp(spec, "fd:", 3)) {
		char *end;
		long n;

		errno = 0;
		n = strtol(spec + 3, &end, 10);
		if (errno || end == spec + 3 || *end || n < 0 || n > 1 << 20)
			return -EINVAL;
		fd = (int)n;
		if (fcntl(fd, F_GETFD) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			return -errno;
	} else {
		fd = open(spec, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		own = 1;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int err = -errno;

		if (own)
			close(fd);
		return err;
	}
	e = xcalloc(1, sizeof(*e));
	e->fd = fd;
	e->own = own;
	buf_init(&e->b);
	*out = e;
	return 0;
}

void events_free(struct events *e)
{
	if (!e)
		return;
	if (e->own)
		close(e->fd);
	buf_release(&e->b);
	free(e);
}

/* The length of the UTF-8 sequence at s (n bytes left), or 0 if it is
 * not one: overlong forms, surrogates and values past U+10FFFF are not. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], need, min, v;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1, min = 0x80, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, min = 0x800, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, min = 0x10000, v = c & 0x07;
	else
		return 0;
	if (n < need + 1)
		return 0;
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	return need + 1;
}

static void put_string(struct buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = strlen((const char *)s);

	buf_addch(b, '"');
	while (n) {
		size_t k = utf8_len(s, n);

		if (!k) {
			buf_addstr(b, "\\ufffd");
			k = 1;
		} else if (*s == '"' || *s == '\\') {
			buf_addch(b, '\\');
			buf_addch(b, *s);
		} else if (*s == '\n' || *s == '\t' || *s == '\r') {
			buf_addch(b, '\\');
			buf_addch(b, *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r');
		} else if (*s < 0x20 || *s == 0x7f) {
			buf_addf(b, "\\u%04x", *s);
		} else {
			buf_add(b, s, k);
		}
		s += k;
		n -= k;
	}
	buf_addch(b, '"');
}

static void begin(struct events *e, const char *name)
{
	buf_reset(&e->b);
	buf_addstr(&e->b, "{\"event\":");
	put_string(&e->b, name);
	buf_addf(&e->b, ",\"schema\":%d", EVENTS_SCHEMA);
}

static void key(struct events *e, const char *k)
{
	buf_addf(&e->b, ",\"%s\":", k);
}

static void key_string(struct events *e, const char *k, const char *v)
{
	key(e, k);
	if (v)
		put_string(&e->b, v);
	else
		buf_addstr(&e->b, "null");
}

static void key_u64(struct events *e, const char *k, uint64_t v)
{
	key(e, k);
	buf_addf(&e->b, "%llu", (unsigned long long)v);
}

/* Writes the event: whole, or not at all if the reader is full, after
 * waiting up to wait_ms for it to make room (start, ack, end and error
 * are worth a wait; progress is not). */
static void send_wait(struct events *e, int wait_ms)
{
	size_t off = 0;
	int tries = 0;

	buf_addch(&e->b, '\n');
	if (e->broken)
		return;
	while (off < e->b.len) {
		ssize_t n = write(e->fd, e->b.data + off, e->b.len - off);

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
	buf_addf(&e->b, ",\"time\":%.3f", (double)s->realtime_ns / 1e9);
	buf_addf(&e->b, ",\"pid\":%d", s->pid);
	key(e, "command");
	buf_addch(&e->b, '[');
	for (uint32_t i = 0; i < s->argc; i++) {
		if (i)
			buf_addch(&e->b, ',');
		put_string(&e->b, s->argv[i]);
	}
	buf_addch(&e->b, ']');
	buf_addf(&e->b, ",\"launched\":%s", s->launched ? "true" : "false");
	key_string(e, "mode", s->mode);
	key_string(e, "sampler", s->sampler);
	key_u64(e, "rate", s->rate_hz);
	key_string(e, "kernel", s->kernel);
	key_string(e, "kernel_why", s->kernel_why);
	key_string(e, "trace", s->trace);
	buf_addch(&e->b, '}');
	send(e);
}

void events_progress(struct events *e, const struct loop_stats *st)
{
	if (!e)
		return;
	begin(e, "progress");
	buf_addf(&e->b, ",\"elapsed\":%.3f", (double)st->elapsed_ns / 1e9);
	key_u64(e, "samples", st->samples);
	key_u64(e, "lost", st->lost);
	key_u64(e, "threads", st->live_threads);
	key_u64(e, "images", st->images);
	key_u64(e, "bytes", st->bytes);
	buf_addch(&e->b, '}');
	send_wait(e, 0);
}

void events_warning(struct events *e, const char *code, const char *msg)
{
	if (!e)
		return;
	begin(e, "warning");
	key_string(e, "code", code);
	key_string(e, "message", msg);
	buf_addch(&e->b, '}');
	send(e);
}

void events_ack(struct events *e, const struct control_command *cmd, const char *refused)
{
	static const char *const names[] = { "stop", "cancel", "pause", "resume", "mark" };

	if (!e)
		return;
	begin(e, "ack");
	key_string(e, "command", cmd->kind < CONTROL_BAD ? names[cmd->kind] : cmd->word);
	if (cmd->kind == CONTROL_MARK)
		key_string(e, "name", cmd->arg);
	buf_addf(&e->b, ",\"ok\":%s", refused ? "false" : "true");
	key_string(e, "error", refused);
	buf_addch(&e->b, '}');
	send(e);
}

void events_end(struct events *e, const struct events_end *end)
{
	if (!e)
		return;
	begin(e, "end");
	key_string(e, "why", end->why);
	if (end->has_exit && !strcmp(end->why, "exited"))
		buf_addf(&e->b, ",\"status\":%d", end->exit_code);
	if (end->has_exit && !strcmp(end->why, "signaled"))
		buf_addf(&e->b, ",\"signal\":%d", end->exit_code);
	if (end->error)
		key_string(e, "error", end->error);
	key_u64(e, "samples", end->samples);
	key_u64(e, "lost", end->lost);
	key_u64(e, "bytes", end->bytes);
	buf_addf(&e->b, ",\"bytes_per_sample\":%.2f",
		 end->samples ? (double)end->bytes / (double)end->samples : 0.0);
	key_u64(e, "events_dropped", e->dropped);
	key_string(e, "trace", end->trace);
	buf_addch(&e->b, '}');
	send(e);
}

void events_error(struct events *e, const char *msg, int exit_code)
{
	if (!e)
		return;
	begin(e, "error");
	key_string(e, "message", msg);
	buf_addf(&e->b, ",\"exit_code\":%d", exit_code);
	buf_addch(&e->b, '}');
	send(e);
}
