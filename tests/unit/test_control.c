/*
 * test_control.c: the control channel's lines into commands, through a
 * pipe handed over as fd:N and through a FIFO, with what a careless or
 * hostile host sends: a megabyte line, binary garbage, a last line
 * without a newline, a writer that goes away.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/control.h"

static struct control *open_pipe(int *wfd)
{
	int p[2];
	char spec[32];
	struct control *c;

	cr_assert_eq(pipe(p), 0);
	snprintf(spec, sizeof(spec), "fd:%d", p[0]);
	cr_assert_eq(control_open(spec, &c), 0);
	*wfd = p[1];
	return c;
}

static void put(int fd, const char *s, size_t n)
{
	cr_assert_eq(write(fd, s, n), (ssize_t)n);
}

static void expect(struct control *c, int kind, const char *arg)
{
	struct control_command cmd;

	cr_assert_eq(control_next(c, &cmd), 1);
	cr_assert_eq(cmd.kind, kind, "kind %d, not %d (%s)", cmd.kind, kind, cmd.arg ? cmd.arg : "");
	if (arg)
		cr_assert_str_eq(cmd.arg, arg);
}

static void expect_none(struct control *c)
{
	struct control_command cmd;

	cr_assert_eq(control_next(c, &cmd), 0);
}

Test(control, every_command_and_the_rest_refused)
{
	int w;
	struct control *c = open_pipe(&w);
	const char text[] = "stop\ncancel\r\npause\nresume\nmark phase 1 \"x\"\nmark\nmark   \n"
			    "stop now\nSTOP\n\nfly\n";
	struct control_command cmd;

	put(w, text, sizeof(text) - 1);
	expect(c, CONTROL_STOP, NULL);
	expect(c, CONTROL_CANCEL, NULL);
	expect(c, CONTROL_PAUSE, NULL);
	expect(c, CONTROL_RESUME, NULL);
	expect(c, CONTROL_MARK, "phase 1 \"x\"");
	expect(c, CONTROL_BAD, "'mark' needs a NAME");
	expect(c, CONTROL_BAD, "'mark' needs a NAME");
	expect(c, CONTROL_BAD, "this command takes no argument");
	expect(c, CONTROL_BAD, NULL);
	expect(c, CONTROL_BAD, "an empty line");
	cr_assert_eq(control_next(c, &cmd), 1);
	cr_assert_eq(cmd.kind, CONTROL_BAD);
	cr_assert_str_eq(cmd.word, "fly");
	expect_none(c);
	cr_assert(!control_closed(c));
	close(w);
	control_free(c);
}

/* A megabyte line is one error, its bytes thrown away as they come (in
 * pieces, as a pipe gives them), and the command after it is read. */
Test(control, a_megabyte_line_is_one_error)
{
	int w;
	struct control *c = open_pipe(&w);
	size_t total = 1 << 20, sent = 0;
	char chunk[16384];
	int errors = 0, other = 0;
	struct control_command cmd;

	memset(chunk, 'x', sizeof(chunk));
	while (sent < total) {
		put(w, chunk, sizeof(chunk));
		sent += sizeof(chunk);
		while (control_next(c, &cmd))
			errors += cmd.kind == CONTROL_BAD, other += cmd.kind != CONTROL_BAD;
	}
	put(w, "\nmark after\n", 12);
	while (control_next(c, &cmd)) {
		if (cmd.kind == CONTROL_MARK)
			cr_assert_str_eq(cmd.arg, "after");
		errors += cmd.kind == CONTROL_BAD, other += cmd.kind != CONTROL_BAD;
	}
	cr_assert_eq(errors, 1);
	cr_assert_eq(other, 1);
	close(w);
	control_free(c);
}

/* Binary garbage, NUL bytes and all, is refused line by line, with a word
 * safe to show; nothing of it is taken for a command. */
Test(control, binary_garbage_refused)
{
	int w;
	struct control *c = open_pipe(&w);
	unsigned char junk[8192];
	struct control_command cmd;
	unsigned seed = 7;
	int n = 0;

	for (size_t i = 0; i < sizeof(junk); i++) {
		seed = seed * 1103515245u + 12345u;
		junk[i] = (unsigned char)(seed >> 16);
	}
	put(w, (const char *)junk, sizeof(junk));
	put(w, "\nstop\n", 6);
	while (control_next(c, &cmd)) {
		n++;
		for (const char *p = cmd.word; *p; p++)
			cr_assert(*p >= 0x20 && *p < 0x7f);
		if (cmd.kind == CONTROL_STOP)
			break;
		cr_assert_eq(cmd.kind, CONTROL_BAD);
	}
	cr_assert_eq(cmd.kind, CONTROL_STOP);
	cr_assert_gt(n, 1);
	close(w);
	control_free(c);
}

/* A pipe's last line counts without its newline, and then it is closed. */
Test(control, closed_pipe_ends_the_channel)
{
	int w;
	struct control *c = open_pipe(&w);

	put(w, "pause\nresume", 12);
	expect(c, CONTROL_PAUSE, NULL);
	expect_none(c);
	close(w);
	expect(c, CONTROL_RESUME, NULL);
	expect_none(c);
	cr_assert(control_closed(c));
	expect_none(c);
	control_free(c);
}

/* A FIFO opened with no writer reads as empty; one writer after another
 * is heard, the channel open all along. */
Test(control, fifo_outlives_its_writers)
{
	char dir[] = "/tmp/prof-control.XXXXXX", path[64];
	struct control *c;
	int w;

	cr_assert_neq(mkdtemp(dir), NULL);
	snprintf(path, sizeof(path), "%s/c", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(control_open(path, &c), 0);
	expect_none(c);
	for (int round = 0; round < 2; round++) {
		w = open(path, O_WRONLY);
		cr_assert_geq(w, 0);
		put(w, "mark m\n", 7);
		close(w);
		expect(c, CONTROL_MARK, "m");
		expect_none(c);
		cr_assert(!control_closed(c));
	}
	control_free(c);
	unlink(path);
	rmdir(dir);
}

Test(control, bad_specs_refused)
{
	struct control *c;

	cr_assert_eq(control_open("fd:", &c), -EINVAL);
	cr_assert_eq(control_open("fd:x", &c), -EINVAL);
	cr_assert_eq(control_open("fd:999999", &c), -EBADF);
	cr_assert_eq(control_open("/nonexistent/control", &c), -ENOENT);
	cr_assert_null(c);
}

/* The app's marks: a regular file read as it grows, each line a name,
 * a line taken only once its newline is there. */
Test(control, names_from_a_growing_file)
{
	char path[] = "/tmp/test_control.XXXXXX";
	int w = mkstemp(path);
	struct control *c;

	cr_assert_geq(w, 0);
	cr_assert_eq(control_open_names(path, &c), 0);
	expect_none(c);
	put(w, "stop\n\nphase \"1\"\npart", 20);
	expect(c, CONTROL_MARK, "stop");
	expect(c, CONTROL_MARK, "phase \"1\"");
	expect_none(c);
	expect_none(c);
	put(w, "ial\n", 4);
	expect(c, CONTROL_MARK, "partial");
	put(w, "a\0b\n", 4);
	expect(c, CONTROL_BAD, NULL);
	expect_none(c);
	cr_assert(!control_closed(c));
	cr_assert_eq(control_open_names("fd:0", &c), -EINVAL);
	control_free(c);
	close(w);
	unlink(path);
}
