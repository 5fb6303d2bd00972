/*
 * test_progress.c: the status line on a stream of memory, with a clock
 * the test moves: nothing before the delay, each phase drawn when it
 * starts, redraws paced, the clock read once per 1024th of a phase, the
 * counts and sizes as shown, details escaped and cut, and the line
 * cleared at the end and before every message.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/progress.h"

#define MS 1000000ull

static uint64_t now;
static unsigned long reads;

static uint64_t fake_clock(void)
{
	reads++;
	return now;
}

static char *out;
static size_t outlen, seen;
static FILE *f;
static struct progress p;

/* p on a fresh stream, with the fake clock at 0 and a delay of after ms. */
static void start(uint64_t after)
{
	diag_set_progname("prog");
	out = NULL;
	outlen = seen = 0;
	f = open_memstream(&out, &outlen);
	cr_assert_not_null(f);
	progress_init(&p, f);
	now = 0;
	reads = 0;
	p.clock = fake_clock;
	p.start_ns = 0;
	p.after_ns = after * MS;
}

/* What was written since the last call. */
static char *taken(void)
{
	static char *last;

	fflush(f);
	free(last);
	last = strndup(out + seen, outlen - seen);
	seen = outlen;
	return last;
}

static void stop(void)
{
	progress_release(&p);
	fclose(f);
	free(out);
}

Test(progress, nothing_before_the_delay)
{
	start(1000);
	progress_phase(&p, "folding", "samples", 100);
	for (uint64_t i = 0; i < 100; i++) {
		now = i * 9 * MS;
		progress_update(&p, i);
	}
	cr_assert_str_eq(taken(), "");
	now = 1000 * MS;
	progress_update(&p, 100);
	cr_assert_str_eq(taken(), "\rprog: folding 100% (100 of 100 samples)\033[K");
	stop();
}

Test(progress, each_phase_drawn_when_it_starts)
{
	start(0);
	progress_phase(&p, "reading trace", "bytes", 24u << 20);
	cr_assert_str_eq(taken(), "\rprog: reading trace 0% (0 B of 24.0 MiB)\033[K");
	progress_phase(&p, "symbolizing", NULL, 0);
	cr_assert_str_eq(taken(), "\rprog: symbolizing\033[K");
	stop();
}

Test(progress, redraws_paced)
{
	start(0);
	progress_phase(&p, "folding", "samples", 4);
	taken();
	now = PROGRESS_EVERY_NS - 1;
	progress_update(&p, 1);
	cr_assert_str_eq(taken(), "");
	now = PROGRESS_EVERY_NS;
	progress_update(&p, 2);
	cr_assert_str_eq(taken(), "\rprog: folding 50% (2 of 4 samples)\033[K");
	progress_update(&p, 3);
	cr_assert_str_eq(taken(), "");
	stop();
}

Test(progress, clock_read_once_per_1024th)
{
	const uint64_t total = 10u << 20;

	start(0);
	progress_phase(&p, "folding", "samples", total);
	reads = 0;
	for (uint64_t i = 0; i < total; i++)
		progress_update(&p, i);
	cr_assert_leq(reads, 1025, "%lu reads of the clock", reads);
	cr_assert_geq(reads, 1024, "%lu reads of the clock", reads);
	stop();
}

Test(progress, counts_shown_short)
{
	start(0);
	progress_phase(&p, "folding", "samples", 0);
	taken();
	now = PROGRESS_EVERY_NS;
	progress_update(&p, 12345);
	cr_assert_str_eq(taken(), "\rprog: folding 12.3k samples\033[K");
	progress_phase(&p, "folding", "samples", 2700000);
	taken();
	now += PROGRESS_EVERY_NS;
	progress_update(&p, 1200000);
	cr_assert_str_eq(taken(), "\rprog: folding 44% (1.2M of 2.7M samples)\033[K");
	stop();
}

Test(progress, sizes)
{
	char s[32];

	progress_bytes(812, s, sizeof(s));
	cr_assert_str_eq(s, "812 B");
	progress_bytes(12595, s, sizeof(s));
	cr_assert_str_eq(s, "12.3 KiB");
	progress_bytes(26948403, s, sizeof(s));
	cr_assert_str_eq(s, "25.7 MiB");
}

Test(progress, detail_escaped_and_cut)
{
	char long_name[100];

	start(0);
	progress_phase(&p, "symbolizing", "stacks", 10);
	taken();
	now = PROGRESS_EVERY_NS;
	progress_detail(&p, "lib\033[2Jx.so");
	cr_assert_str_eq(taken(), "\rprog: symbolizing 0% (0 of 10 stacks; lib\\x1b[2Jx.so)\033[K");
	/* 46 bytes, then a 3-byte character that would pass 48. */
	memset(long_name, 'a', 46);
	strcpy(long_name + 46, "\xe2\x82\xac.so");
	progress_detail(&p, long_name);
	now += PROGRESS_EVERY_NS;
	progress_update(&p, 10);
	cr_assert_str_eq(taken(), "\rprog: symbolizing 100% (10 of 10 stacks; "
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...)\033[K");
	progress_phase(&p, "symbolizing", NULL, 0);
	taken();
	now += PROGRESS_EVERY_NS;
	progress_detail(&p, "libc.so.6");
	cr_assert_str_eq(taken(), "\rprog: symbolizing (libc.so.6)\033[K");
	stop();
}

Test(progress, end_clears_and_stops)
{
	start(0);
	progress_phase(&p, "folding", "samples", 10);
	taken();
	progress_end(&p);
	cr_assert_str_eq(taken(), "\r\033[K");
	now = 10 * PROGRESS_EVERY_NS;
	progress_update(&p, 5);
	progress_detail(&p, "libc.so.6");
	progress_end(&p);
	cr_assert_str_eq(taken(), "", "nothing drawn, nothing cleared once the phase ended");
	stop();
}

Test(progress, message_clears_the_line_first, .init = cr_redirect_stderr)
{
	start(0);
	progress_phase(&p, "folding", "samples", 10);
	taken();
	warning("a warning");
	cr_assert_str_eq(taken(), "\r\033[K");
	cr_assert_not(p.shown);
	cr_assert_stderr_eq_str("prog: warning: a warning\n");
	/* The phase goes on: its line comes back at the next redraw. */
	now = PROGRESS_EVERY_NS;
	progress_update(&p, 5);
	cr_assert_str_eq(taken(), "\rprog: folding 50% (5 of 10 samples)\033[K");
	stop();
}

Test(progress, show_draws_at_once)
{
	start(1000);
	progress_show(&p, "%.1fs  %d samples", 3.5, 3);
	cr_assert_str_eq(taken(), "\rprog: 3.5s  3 samples\033[K");
	progress_clear(&p);
	cr_assert_str_eq(taken(), "\r\033[K");
	progress_clear(&p);
	cr_assert_str_eq(taken(), "");
	stop();
}

Test(progress, nowhere_and_null_do_nothing)
{
	struct progress q;

	progress_init(&q, NULL);
	progress_phase(&q, "folding", "samples", 10);
	progress_update(&q, 5);
	progress_detail(&q, "x");
	progress_show(&q, "x");
	progress_end(&q);
	progress_release(&q);
	cr_assert_not(q.shown);
	progress_phase(NULL, "folding", "samples", 10);
	progress_update(NULL, 5);
	progress_detail(NULL, "x");
	progress_show(NULL, "x");
	progress_clear(NULL);
	progress_end(NULL);
}

Test(progress, delay_from_the_environment)
{
	struct progress q;

	setenv("PROF_PROGRESS_AFTER_MS", "0", 1);
	progress_init(&q, NULL);
	cr_assert_eq(q.after_ns, 0);
	setenv("PROF_PROGRESS_AFTER_MS", "250", 1);
	progress_init(&q, NULL);
	cr_assert_eq(q.after_ns, 250 * MS);
	setenv("PROF_PROGRESS_AFTER_MS", "soon", 1);
	progress_init(&q, NULL);
	cr_assert_eq(q.after_ns, PROGRESS_AFTER_NS);
	unsetenv("PROF_PROGRESS_AFTER_MS");
	progress_init(&q, NULL);
	cr_assert_eq(q.after_ns, PROGRESS_AFTER_NS);
}
