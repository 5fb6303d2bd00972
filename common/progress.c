/*
 * progress.c: the status line, drawn, paced and cleared in one place.
 *
 * prof-record draws its counters itself, four times a second, through
 * progress_show(). prof-report's work comes in phases, and the code doing
 * it says how far it is, often, in loops over millions of items; the line
 * must cost nothing there, so an update is a comparison until the phase
 * has moved on by a 1024th, and only then is the clock read. Nothing is
 * drawn before the delay (a report that ends within a second shows no
 * line), and after it the line is redrawn at most every
 * PROGRESS_EVERY_NS, but at once when a phase starts, so that each phase
 * is seen. There is one standard error, so the line on it is remembered
 * here, for diag.c to clear before a message.
 */
#include "common/progress.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/parse.h"
#include "common/text.h"

/* The most of a detail shown, before it is escaped. */
#define DETAIL_MAX 48

/* The line on the terminal now, if any. */
static struct progress *on_screen;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

FILE *progress_stderr(int quiet)
{
	return !quiet && isatty(STDERR_FILENO) ? stderr : NULL;
}

void progress_init(struct progress *p, FILE *f)
{
	const char *env = getenv("PROF_PROGRESS_AFTER_MS");
	char why[PARSE_WHY_MAX];
	uint64_t ms;

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->clock = monotonic_ns;
	p->after_ns = PROGRESS_AFTER_NS;
	if (env && parse_uint(env, 0, UINT64_MAX / 1000000, &ms, why) == 0)
		p->after_ns = ms * 1000000;
	p->start_ns = p->clock();
}

void progress_release(struct progress *p)
{
	progress_end(p);
}

static void draw(struct progress *p, const char *text)
{
	fprintf(p->f, "\r%s: %s\033[K", diag_progname(), text);
	fflush(p->f);
	p->shown = 1;
	on_screen = p;
}

void progress_show(struct progress *p, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	if (!p || !p->f)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	draw(p, text);
}

void progress_clear(struct progress *p)
{
	if (!p || !p->shown)
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->shown = 0;
	if (on_screen == p)
		on_screen = NULL;
}

void progress_clear_shown(void)
{
	progress_clear(on_screen);
}

void progress_bytes(uint64_t n, char *out, size_t len)
{
	if (n < 10240)
		snprintf(out, len, "%llu B", (unsigned long long)n);
	else if (n < 10u << 20)
		snprintf(out, len, "%.1f KiB", n / 1024.0);
	else
		snprintf(out, len, "%.1f MiB", n / 1048576.0);
}

/* A count as the lines show it: "812", "12.3k", "1.2M". */
static void count(uint64_t n, char *out, size_t len)
{
	if (n < 10000)
		snprintf(out, len, "%llu", (unsigned long long)n);
	else if (n < 1000000)
		snprintf(out, len, "%.1fk", n / 1e3);
	else if (n < 1000000000)
		snprintf(out, len, "%.1fM", n / 1e6);
	else
		snprintf(out, len, "%.1fG", n / 1e9);
}

static void amount(const struct progress *p, uint64_t n, char *out, size_t len)
{
	if (!strcmp(p->unit, "bytes"))
		progress_bytes(n, out, len);
	else
		count(n, out, len);
}

/* "what 45% (12 of 27 unit; detail)", "what 12 unit (detail)" or
 * "what (detail)". */
static void draw_phase(struct progress *p)
{
	const char *unit = p->unit && strcmp(p->unit, "bytes") ? p->unit : "";
	const char *sp = *unit ? " " : "";
	char done[32], total[32];
	struct buf b;

	buf_init(&b);
	buf_addstr(&b, p->what);
	if (p->unit)
		amount(p, p->done, done, sizeof(done));
	if (p->unit && p->total) {
		double pct = p->done >= p->total ? 100 : (double)p->done * 100 / (double)p->total;

		amount(p, p->total, total, sizeof(total));
		buf_addf(&b, " %d%% (%s of %s%s%s", (int)pct, done, total, sp, unit);
		if (p->detail[0])
			buf_addf(&b, "; %s", p->detail);
		buf_addch(&b, ')');
	} else {
		if (p->unit)
			buf_addf(&b, " %s%s%s", done, sp, unit);
		if (p->detail[0])
			buf_addf(&b, " (%s)", p->detail);
	}
	draw(p, (char *)b.data);
	buf_release(&b);
}

/* Draws the phase if the delay has passed and, unless now is set, a
 * redraw is due. */
static void maybe_draw(struct progress *p, int now)
{
	uint64_t t = p->clock();

	if (t - p->start_ns < p->after_ns || (!now && t < p->next_draw_ns))
		return;
	p->next_draw_ns = t + PROGRESS_EVERY_NS;
	draw_phase(p);
}

void progress_phase(struct progress *p, const char *what, const char *unit, uint64_t total)
{
	if (!p || !p->f)
		return;
	p->what = what;
	p->unit = unit;
	p->done = 0;
	p->total = total;
	p->next_check = 0;
	p->detail[0] = 0;
	maybe_draw(p, 1);
}

void progress_update(struct progress *p, uint64_t done)
{
	if (!p || !p->f)
		return;
	p->done = done;
	if (done < p->next_check || !p->what)
		return;
	p->next_check = done + (p->total >= 1024 ? p->total / 1024 : p->total ? 1 : 1024);
	maybe_draw(p, 0);
}

void progress_end(struct progress *p)
{
	if (!p)
		return;
	p->what = NULL;
	p->detail[0] = 0;
	progress_clear(p);
}

void progress_detail(struct progress *p, const char *detail)
{
	char cut[DETAIL_MAX + 1];
	size_t n = 0, k, len;
	struct buf b;

	if (!p || !p->f)
		return;
	p->detail[0] = 0;
	if (!detail || !detail[0] || !p->what)
		return;
	/* Cut at a character, not inside one; a byte that is not UTF-8 ends
	 * it too, as the terminal could not show it. */
	len = strlen(detail);
	while (n < len && (k = text_utf8_len(detail + n, len - n)) > 0 && n + k <= DETAIL_MAX)
		n += k;
	memcpy(cut, detail, n);
	cut[n] = 0;
	buf_init(&b);
	text_escape(&b, cut);
	if (n < len)
		buf_addstr(&b, "...");
	snprintf(p->detail, sizeof(p->detail), "%s", (char *)b.data);
	buf_release(&b);
	maybe_draw(p, 0);
}
