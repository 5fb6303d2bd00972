/*
 * control.c: the control channel's lines into commands.
 *
 * Each call reads only what is there, polling first (a host's descriptor
 * keeps its flags, which its other holders share): the loop asks between
 * its samples, so a read that waited would stop the recording. Lines are kept up to CONTROL_LINE_MAX bytes; a longer one is
 * answered once, as an error, and its bytes are thrown away as they come
 * up to its newline, so a host that sends a megabyte costs one buffer. A
 * FIFO whose writer closed reads as empty until the next writer opens it;
 * a pipe that closed is done. A regular file of names (the marks a
 * launched program writes) is read as it grows, a line at its newline.
 */
#include "control.h"
#include "common/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORD_SHOWN 32

struct control {
	int fd;                  /* ours: closed here */
	int fifo;                /* a FIFO: its end is not the channel's */
	int names;               /* each line is a mark's name */
	int file;                /* a regular file: its end is where its
	                          * writer has got to, maybe in a line */
	int closed;
	int skipping;            /* in a line too long, up to its newline */
	size_t len;
	char buf[CONTROL_LINE_MAX];
	char line[CONTROL_LINE_MAX + 1];
	char word[WORD_SHOWN + 1];
};

int control_take_fd(const char *spec)
{
	char *end;
	long n;
	int fd;

	errno = 0;
	n = strtol(spec + 3, &end, 10);
	if (strncmp(spec, "fd:", 3) || errno || end == spec + 3 || *end || n < 0 || n > 1 << 20)
		return -EINVAL;
	fd = (int)n;
	if (fcntl(fd, F_GETFD) < 0)
		return -errno;
	if (fd <= STDERR_FILENO)
		fd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	else if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		fd = -1;
	return fd < 0 ? -errno : fd;
}

int control_open(const char *spec, struct control **out)
{
	struct control *c;
	struct stat st;
	int fd, err;

	*out = NULL;
	if (!strncmp(spec, "fd:", 3))
		fd = control_take_fd(spec);
	else
		fd = open(spec, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fd == -EINVAL ? fd : -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->fifo = strncmp(spec, "fd:", 3) && S_ISFIFO(st.st_mode);
	c->file = S_ISREG(st.st_mode);
	*out = c;
	return 0;
}

int control_open_names(const char *path, struct control **out)
{
	int r;

	if (!strncmp(path, "fd:", 3))
		return -EINVAL;
	r = control_open(path, out);
	if (r == 0)
		(*out)->names = 1;
	return r;
}

/* The first word of s, made safe to show in a message or an event. */
static void show_word(struct control *c, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < WORD_SHOWN && s[i] != ' ' && s[i] != '\t'; i++)
		c->word[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	c->word[i] = 0;
}

static int bad(struct control_command *cmd, const char *why)
{
	cmd->kind = CONTROL_BAD;
	cmd->arg = why;
	return 1;
}

/* One line, n bytes without its newline, into a command. */
static int parse_line(struct control *c, const char *s, size_t n, struct control_command *cmd)
{
	static const struct {
		const char *word;
		int kind;
	} words[] = {
		{ "stop", CONTROL_STOP },
		{ "cancel", CONTROL_CANCEL },
		{ "pause", CONTROL_PAUSE },
		{ "resume", CONTROL_RESUME },
		{ "switch", CONTROL_SWITCH },
		{ "snapshot", CONTROL_SNAPSHOT },
	};
	size_t w;

	if (n && s[n - 1] == '\r')
		n--;
	show_word(c, s, n);
	cmd->word = c->word;
	cmd->arg = NULL;
	if (memchr(s, 0, n))
		return bad(cmd, "a NUL byte in the line");
	memcpy(c->line, s, n);
	c->line[n] = 0;
	if (c->names) {
		if (!n)
			return 0;
		cmd->kind = CONTROL_MARK;
		cmd->arg = c->line;
		return 1;
	}
	for (w = 0; w < n && s[w] != ' '; w++)
		;
	if (w == 4 && !memcmp(s, "mark", 4)) {
		const char *name = c->line + w;

		while (*name == ' ')
			name++;
		if (!*name)
			return bad(cmd, "'mark' needs a NAME");
		cmd->kind = CONTROL_MARK;
		cmd->arg = name;
		return 1;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i].word) != w || memcmp(s, words[i].word, w))
			continue;
		if (w != n)
			return bad(cmd, "this command takes no argument");
		cmd->kind = words[i].kind;
		return 1;
	}
	return bad(cmd, n ? "unknown command (stop, cancel, pause, resume, mark NAME, switch or snapshot)" : "an empty line");
}

/* Whether a read of fd would not block; a host's descriptor is left
 * blocking, as its other holders may need it (fd:1), so it is polled
 * first. If not, errno is EAGAIN. */
static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, 0);

	if (r == 0)
		errno = EAGAIN;
	return r > 0;
}

int control_next(struct control *c, struct control_command *cmd)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		ssize_t got;

		if (nl) {
			size_t n = (size_t)(nl - c->buf);
			int r = 0;

			if (!c->skipping)
				r = parse_line(c, c->buf, n, cmd);
			c->skipping = 0;
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			if (r)
				return r;
			continue;
		}
		if (c->len == sizeof(c->buf)) {
			int was = c->skipping;

			c->len = 0;
			c->skipping = 1;
			if (!was) {
				c->word[0] = 0;
				cmd->word = c->word;
				return bad(cmd, "a line longer than 4096 bytes");
			}
		}
		if (c->closed)
			return 0;
		got = readable(c->fd) ? read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len) : -1;
		if (got > 0) {
			c->len += (size_t)got;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if ((got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) || (got == 0 && c->file))
			return 0;
		/* The end of what a writer sent: its last line counts without
		 * its newline. */
		if (got == 0 && c->len && !c->skipping) {
			size_t n = c->len;

			c->len = 0;
			if (!c->fifo)
				c->closed = 1;
			return parse_line(c, c->buf, n, cmd);
		}
		c->len = 0;
		c->skipping = 0;
		if (got < 0 || !c->fifo)
			c->closed = 1;
		return 0;
	}
}

int control_closed(const struct control *c)
{
	return c->closed;
}

void control_free(struct control *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}
