/*
 * test_events.c: the event stream's lines: JSON whatever a string holds,
 * a full reader costing dropped progress and never a wait, a reader gone
 * ending the stream quietly.
 */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/control.h"
#include "record/events.h"
#include "record/loop.h"

static struct events *open_pipe(int *rfd)
{
	int p[2];
	char spec[32];
	struct events *e;

	cr_assert_eq(pipe(p), 0);
	snprintf(spec, sizeof(spec), "fd:%d", p[1]);
	cr_assert_eq(events_open(spec, &e), 0);
	*rfd = p[0];
	return e;
}

static size_t drain(int fd, char *out, size_t cap)
{
	size_t n = 0;
	ssize_t got;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (n < cap - 1 && (got = read(fd, out + n, cap - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = 0;
	return n;
}

/* As prof-json(5) says: a byte outside UTF-8 as the text \xHH, markup's
 * characters as \u00XX. */
Test(events, strings_escaped_as_prof_json_says)
{
	int r;
	struct events *e = open_pipe(&r);
	char out[1024];

	events_warning(e, "warning", "a \"quote\" \\ \n\x01 caf\xc3\xa9 \xff\xc3 \xed\xa0\x80 <b>");
	drain(r, out, sizeof(out));
	cr_assert_str_eq(out, "{\"event\":\"warning\",\"schema\":1,\"code\":\"warning\",\"message\":"
			      "\"a \\\"quote\\\" \\\\ \\n\\u0001 caf\xc3\xa9 \\\\xff\\\\xc3 "
			      "\\\\xed\\\\xa0\\\\x80 \\u003cb\\u003e\"}\n");
	events_free(e);
	close(r);
}

Test(events, ack_of_each_kind)
{
	int r;
	struct events *e = open_pipe(&r);
	struct control_command mark = { .kind = CONTROL_MARK, .word = "mark", .arg = "phase 1" };
	struct control_command bad = { .kind = CONTROL_BAD, .word = "fly", .arg = "unknown command" };
	char out[1024];

	events_ack(e, &mark, NULL);
	events_ack(e, &bad, bad.arg);
	drain(r, out, sizeof(out));
	cr_assert_str_eq(out, "{\"event\":\"ack\",\"schema\":1,\"command\":\"mark\",\"name\":\"phase 1\","
			      "\"ok\":true,\"error\":null}\n"
			      "{\"event\":\"ack\",\"schema\":1,\"command\":\"fly\",\"ok\":false,"
			      "\"error\":\"unknown command\"}\n");
	events_free(e);
	close(r);
}

/* A reader that never reads: progress events are dropped at once, and
 * whole, so what it reads later is whole lines; the end counts them. */
Test(events, full_reader_drops_progress_whole)
{
	int r;
	struct events *e = open_pipe(&r);
	struct loop_stats st = { .samples = 5 };
	struct events_end end = { .why = "stop", .trace = "t" };
	static char out[1 << 20];
	size_t n, lines = 0;

	for (int i = 0; i < 20000; i++)
		events_progress(e, &st);
	n = drain(r, out, sizeof(out));
	cr_assert_gt(n, 0);
	cr_assert_eq(out[n - 1], '\n');
	for (size_t i = 0; i < n; i++)
		lines += out[i] == '\n';
	cr_assert_lt(lines, 20000);
	events_end(e, &end);
	n = drain(r, out, sizeof(out));
	cr_assert(strstr(out, "\"events_dropped\":") && !strstr(out, "\"events_dropped\":0,"), "%s", out);
	events_free(e);
	close(r);
}

Test(events, reader_gone_ends_the_stream)
{
	int r;
	struct events *e = open_pipe(&r);
	struct loop_stats st = { 0 };

	signal(SIGPIPE, SIG_IGN);
	close(r);
	events_progress(e, &st);
	events_error(e, "x", 1);
	events_free(e);
}
