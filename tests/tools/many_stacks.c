/*
 * many_stacks.c: writes a trace of N distinct stacks, one sample each,
 * through the real trace writer, for the flame graph's scale test: a
 * million stacks do not fit on synth_trace's command line.
 *
 * Stack i is main → run → three frames picked by the digits of i in base
 * F, the smallest base with F³ ≥ N, from pools of F addresses per level.
 * No image covers the addresses, so each shows as "[unknown]+0xADDR": the
 * three levels hold F, F² and N frames of the flame graph, named from 3F
 * addresses. Deterministic: the same N always writes the same bytes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/diag.h"
#include "common/parse.h"
#include "format/trace.h"

#define RATE 1000

static void check(int r, const char *path)
{
	if (r < 0)
		die("cannot write '%s': %s", path, prof_strerror(r));
}

int main(int argc, char **argv)
{
	struct trace_session sess = {
		.os = TRACE_OS_LINUX, .arch = TRACE_ARCH_X86_64, .mode = TRACE_MODE_WALL,
		.rate_hz = RATE, .pid = 1, .host = "synthetic",
		.start_monotonic_ns = 1000000000ull, .start_realtime_ns = 1767225600000000000ull,
	};
	static char name[] = "many_stacks";
	char *words[] = { name };
	struct trace_writer *w = NULL;
	struct trace_end end = { 0 };
	uint64_t n, f = 1, t;
	int fd;

	diag_set_progname("many_stacks");
	if (argc != 4 || strcmp(argv[1], "-o"))
		die("usage: many_stacks -o FILE N");
	n = parse_uint_opt("N", argv[3], 1, 100000000);
	while (f * f * f < n)
		f++;
	sess.argv = words;
	sess.argc = 1;
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno("cannot create '%s'", argv[2]);
	check(trace_writer_new(fd, &sess, &w), argv[2]);
	t = sess.start_monotonic_ns;
	check(trace_writer_process(w, 1, sess.pid, 0, t), argv[2]);
	check(trace_writer_process_exec(w, 1, t, sess.argc, sess.argv), argv[2]);
	check(trace_writer_thread_start(w, 1, 1, t), argv[2]);
	check(trace_writer_thread_name(w, 1, t, "many_stacks"), argv[2]);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = i / (f * f), b = i / f % f, c = i % f;
		/* leaf first */
		uint64_t addrs[] = { 0x400000 + c * 16, 0x300000 + b * 16, 0x200000 + a * 16, 0x102000, 0x101000 };

		t += 1000000000ull / RATE;
		check(trace_writer_sample(w, t, 1, TRACE_STATE_RUNNING, 0, addrs, 5), argv[2]);
		if (i % 100000 == 99999)
			check(trace_writer_flush(w), argv[2]);
	}
	end.time = t + 1000000000ull / RATE;
	check(trace_writer_finish(w, &end), argv[2]);
	trace_writer_free(w);
	if (close(fd) < 0)
		die_errno("cannot write '%s'", argv[2]);
	return 0;
}
