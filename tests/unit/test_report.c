/*
 * test_report.c: the subcommands in-process, on traces written with the
 * real trace writer: a small real ELF (the symbols fixture) is the one
 * image, so folded output is symbolized end to end; info explains which
 * file served
 * the image; a trace cut short still reports, with a warning; bad usage
 * exits 2.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf.h"
#include "format/trace.h"
#include "report/cmd/cmds.h"
#include "build_dir.h"
#include "object_file.h"

static char dir[] = "/tmp/test_report.XXXXXX";
static char exe[PATH_MAX + 64], trace_path[96], out_path[96], err_path[96];

#define BIAS 0x555500000000ull
#define T0 1000000000ull

/* Writes a trace of exe: tid 100 "main" runs main->beta->alpha 3 times
 * and waits in main->beta twice; tid 101 "worker" sleeps in main once. */
static void write_trace(const uint8_t *ident, size_t identlen)
{
	char *argv[] = { exe, "x" };
	struct trace_session s = {
		.os = TRACE_OS_LINUX, .arch = TRACE_ARCH_X86_64, .mode = TRACE_MODE_WALL,
		.rate_hz = 100, .pid = 4242, .start_realtime_ns = 1700000000000000000ull,
		.start_monotonic_ns = T0, .host = "test", .argc = 2, .argv = argv,
	};
	struct trace_image img = {
		.id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = identlen,
		.arch = TRACE_ARCH_X86_64, .path = exe, .start = BIAS, .size = 0x10000, .bias = BIAS,
	};
	uint64_t a = nm_addr(exe, "alpha"), b = nm_addr(exe, "beta"), m = nm_addr(exe, "main");
	uint64_t s1[] = { BIAS + a + 1, BIAS + b + 5, BIAS + m + 5 };
	uint64_t s2[] = { BIAS + b + 5, BIAS + m + 5 };
	uint64_t s3[] = { BIAS + m + 1 };
	uint64_t counters[TRACE_COUNTER__COUNT] = { 0 };
	struct trace_end end = { .time = T0 + 900000000, .has_exit = 1 };
	struct trace_writer *w;
	int fd, i;

	memcpy(img.ident, ident, identlen);
	fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(trace_writer_new(fd, &s, &w), 0);
	cr_assert_eq(trace_writer_image(w, 1, &img), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 100, T0), 0);
	cr_assert_eq(trace_writer_thread_name(w, 100, T0, "main"), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 101, T0 + 1000), 0);
	cr_assert_eq(trace_writer_thread_name(w, 101, T0 + 1000, "worker"), 0);
	for (i = 0; i < 3; i++)
		cr_assert_eq(trace_writer_sample(w, T0 + 10000000 * (i + 1), 100,
						 TRACE_STATE_RUNNING, 0, s1, 3), 0);
	for (i = 0; i < 2; i++)
		cr_assert_eq(trace_writer_sample(w, T0 + 50000000 + i, 100, TRACE_STATE_SLEEPING,
						 0, s2, 2), 0);
	cr_assert_eq(trace_writer_sample(w, T0 + 60000000, 101, TRACE_STATE_SLEEPING, 0, s3, 1), 0);
	counters[TRACE_COUNTER_SAMPLES_LOST] = 2;
	cr_assert_eq(trace_writer_counters(w, counters), 0);
	cr_assert_eq(trace_writer_thread_end(w, 101, T0 + 800000000), 0);
	cr_assert_eq(trace_writer_finish(w, &end), 0);
	trace_writer_free(w);
	close(fd);
}

static void setup(void)
{
	struct stat st;
	struct elf_file e;
	const uint8_t *id;
	size_t n;
	void *p;
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	find_build_dir();
	snprintf(exe, sizeof(exe), "%s/testdata/symbols", build_dir);
	snprintf(trace_path, sizeof(trace_path), "%s/t.trace", dir);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(err_path, sizeof(err_path), "%s/err", dir);
	fd = open(exe, O_RDONLY);
	cr_assert_geq(fd, 0, "no fixture %s (make fixtures)", exe);
	fstat(fd, &st);
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_eq(elf_parse(&e, p, st.st_size), 0);
	cr_assert_eq(elf_build_id(&e, &id, &n), 0);
	write_trace(id, n);
	munmap(p, st.st_size);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
	}
}

/* Runs a subcommand with stdout and stderr sent to files; returns its
 * status. stdout is closed by the command itself. */
static int cmd(int (*fn)(int, char **), int argc, char **argv)
{
	int rc;

	cr_assert_not_null(freopen(out_path, "w", stdout));
	cr_assert_not_null(freopen(err_path, "w", stderr));
	rc = fn(argc, argv);
	fflush(stderr);
	return rc;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, n + 1);
	cr_assert_eq(fread(s, 1, n, f), (size_t)n);
	fclose(f);
	return s;
}

TestSuite(report, .init = setup, .fini = teardown);

Test(report, folded_symbolized)
{
	char *argv[] = { "folded", trace_path, NULL };
	char *out;

	cr_assert_eq(cmd(cmd_folded, 2, argv), 0);
	out = slurp(out_path);
	cr_assert_str_eq(out, "symbols;main 1\nsymbols;main;beta 2\nsymbols;main;beta;alpha 3\n");
	free(out);
}

Test(report, folded_filters_and_thread_frames)
{
	char *argv[] = { "folded", "--state", "idle", "--thread-frames", trace_path, NULL };
	char *out;

	cr_assert_eq(cmd(cmd_folded, 5, argv), 0);
	out = slurp(out_path);
	cr_assert_str_eq(out, "symbols;main [100];main;beta 2\nsymbols;worker [101];main 1\n");
	free(out);
}

Test(report, folded_addresses)
{
	char *argv[] = { "folded", "--addresses", "--tid", "101", trace_path, NULL };
	char want[64], *out;

	cr_assert_eq(cmd(cmd_folded, 5, argv), 0);
	out = slurp(out_path);
	snprintf(want, sizeof(want), "symbols;symbols+0x%llx 1\n", (unsigned long long)nm_addr(exe, "main") + 1);
	cr_assert_str_eq(out, want);
	free(out);
}

Test(report, info_names_the_symbol_file)
{
	char *argv[] = { "info", trace_path, NULL };
	char want[PATH_MAX + 128], *out;

	cr_assert_eq(cmd(cmd_info, 2, argv), 0);
	out = slurp(out_path);
	snprintf(want, sizeof(want), "    symbols:  %s (", exe);
	cr_assert_not_null(strstr(out, want), "%s", out);
	cr_assert_not_null(strstr(out, "pid:        4242\n"));
	cr_assert_not_null(strstr(out, "started:    2023-11-14T22:13:20.000Z\n"), "%s", out);
	cr_assert_not_null(strstr(out, "samples:          6\n"));
	cr_assert_not_null(strstr(out, "unique stacks:    3"));
	cr_assert_not_null(strstr(out, "lost samples:     2\n"));
	cr_assert_not_null(strstr(out, "finished cleanly   yes\n"));
	cr_assert_not_null(strstr(out, "exit:       status 0\n"));
	free(out);
}

Test(report, threads_table)
{
	char *argv[] = { "threads", trace_path, NULL };
	char *out;

	cr_assert_eq(cmd(cmd_threads, 2, argv), 0);
	out = slurp(out_path);
	cr_assert_not_null(strstr(out, "     100  main           5    60.0%    40.0%       0.0%      0.010      0.050      0.000          -\n"), "%s", out);
	cr_assert_not_null(strstr(out, "     101  worker         1     0.0%   100.0%       0.0%      0.060      0.060      0.000      0.800\n"), "%s", out);
	cr_assert_not_null(strstr(out, "2 threads, 6 samples\n"));
	free(out);
}

Test(report, cut_trace_still_reports_with_warning)
{
	char *argv[] = { "folded", trace_path, NULL };
	struct stat st;
	char *err;

	cr_assert_eq(stat(trace_path, &st), 0);
	cr_assert_eq(truncate(trace_path, st.st_size - 3), 0);
	cr_assert_eq(cmd(cmd_folded, 2, argv), 0);
	err = slurp(err_path);
	cr_assert_not_null(strstr(err, "warning: "), "%s", err);
	free(err);
}

Test(report, mismatching_build_id_gives_offsets)
{
	uint8_t wrong[20] = { 0xde, 0xad };
	char *argv[] = { "folded", trace_path, NULL };
	char want[64], *out;

	write_trace(wrong, sizeof(wrong));
	cr_assert_eq(cmd(cmd_folded, 2, argv), 0);
	out = slurp(out_path);
	snprintf(want, sizeof(want), "symbols;symbols+0x%llx 1\n", (unsigned long long)nm_addr(exe, "main") + 1);
	cr_assert_not_null(strstr(out, want), "%s", out);
	cr_assert_null(strstr(out, "alpha"));
	free(out);
}

Test(report, bad_usage_exits_2, .exit_code = 2)
{
	char *argv[] = { "folded", "--state", "busy", trace_path, NULL };
	cmd(cmd_folded, 4, argv);
}

Test(report, missing_trace_exits_1, .exit_code = 1)
{
	char *argv[] = { "info", "/nonexistent/x.trace", NULL };
	cmd(cmd_info, 2, argv);
}
