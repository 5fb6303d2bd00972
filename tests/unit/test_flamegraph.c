/*
 * Unit tests for report/output/flamegraph.c: XML escaping of hostile names, the
 * layout (merging, --minwidth, --reverse, --inverted) seen through the SVG
 * it writes, the palettes, the caller's colour and details hooks, and
 * determinism.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/output/flamegraph.h"
#include "report/symbols/symbolize.h"

static char *escape(const char *s, size_t max)
{
	struct buf b;
	buf_init(&b);
	flamegraph_xml_escape(&b, s, max);
	return buf_detach(&b);
}

Test(flamegraph, escape_markup)
{
	char *s = escape("</text><script>alert(\"x&y\")</script>']]>", 4096);
	cr_assert_str_eq(s, "&lt;/text&gt;&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&apos;]]&gt;");
	free(s);
}

Test(flamegraph, escape_control_and_invalid_utf8)
{
	char *s = escape("a\x01\x1b[31m\x7f\xff\xc0\xaf\xed\xa0\x80z\n", 4096);
	cr_assert_str_eq(s, "a\\x01\\x1b[31m\\x7f\\xff\\xc0\\xaf\\xed\\xa0\\x80z\\x0a");
	free(s);
}

Test(flamegraph, escape_keeps_valid_utf8)
{
	char *s = escape("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5", 4096);
	cr_assert_str_eq(s, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5");
	free(s);
}

Test(flamegraph, escape_caps_length)
{
	char *s = escape("abcdefgh", 3);
	cr_assert_str_eq(s, "abc...");
	free(s);
}

static char *render_with(const struct profile *p, const struct flamegraph_opts *o)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	cr_assert_eq(flamegraph_write_svg(f, p, o), 0);
	fclose(f);
	return out;
}

static char *render(const struct profile *p, double minwidth)
{
	struct flamegraph_opts o = { .title = "t<1>", .width = 1000, .minwidth = minwidth };
	return render_with(p, &o);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* main;a;b 30, main;a;c 10, main;d 60: the example most tests draw. */
static const char *s1[] = { "main", "a", "b" }, *s2[] = { "main", "a", "c" }, *s3[] = { "main", "d" };
static struct profile_stack abc[] = { { s1, 3, 30, 0 }, { s2, 3, 10, 0 }, { s3, 2, 60, 0 } };
static const struct profile abc_profile = { abc, 3, 100, NULL };

Test(flamegraph, layout_merges_prefixes)
{
	char *svg = render(&abc_profile, 0.1);

	cr_assert_eq(count(svg, "<g class=\"f\""), 6, "all, main, a, b, c, d: %s", svg);
	cr_assert(strstr(svg, "data-d=\"0\" data-x=\"0\" data-s=\"100\"><title>all (100 samples, 100.00%)</title>"));
	cr_assert(strstr(svg, "data-d=\"1\" data-x=\"0\" data-s=\"100\"><title>main (100 samples, 100.00%)</title>"));
	cr_assert(strstr(svg, "data-d=\"2\" data-x=\"0\" data-s=\"40\"><title>a (40 samples, 40.00%)</title>"));
	cr_assert(strstr(svg, "data-d=\"3\" data-x=\"30\" data-s=\"10\"><title>c (10 samples, 10.00%)</title>"));
	cr_assert(strstr(svg, "data-d=\"2\" data-x=\"40\" data-s=\"60\"><title>d (60 samples, 60.00%)</title>"));
	cr_assert_eq(count(svg, "<rect x=\"10.00\" y="), 4, "all, main, a and b start at the left edge: %s", svg);
	/* 980 drawn pixels for 100 samples: c starts 30 samples in */
	cr_assert(strstr(svg, "<title>c (10 samples, 10.00%)</title><rect x=\"304.00\""), "c follows b: %s", svg);
	cr_assert(strstr(svg, "t&lt;1&gt;"));
	free(svg);
}

Test(flamegraph, layout_rows_and_height)
{
	char *svg = render(&abc_profile, 0.1);

	/* four rows of 16 px between 60 px of head and 34 px of foot */
	cr_assert(strstr(svg, "<svg version=\"1.1\" width=\"1000\" height=\"158\""), "%.200s", svg);
	cr_assert(strstr(svg, "<title>all (100 samples, 100.00%)</title><rect x=\"10.00\" y=\"108.0\""));
	cr_assert(strstr(svg, "<title>b (30 samples, 30.00%)</title><rect x=\"10.00\" y=\"60.0\""));
	free(svg);
}

Test(flamegraph, counts_have_separators)
{
	const char *f[] = { "main" };
	struct profile_stack st[] = { { f, 1, 1234567, 0 } };
	struct profile p = { st, 1, 1234567, NULL };
	char *svg = render(&p, 0.1);

	cr_assert(strstr(svg, "<title>main (1,234,567 samples, 100.00%)</title>"));
	free(svg);
}

Test(flamegraph, labels_fit_their_frames)
{
	const char *l1[] = { "main", "a_rather_long_function_name" }, *l2[] = { "main", "z" };
	struct profile_stack st[] = { { l1, 2, 2, 0 }, { l2, 2, 98, 0 } };
	struct profile p = { st, 2, 100, NULL };
	char *svg = render(&p, 0.1);

	/* 19.6 px hold 1 glyph of 7.08 after the margin: too few for a label */
	cr_assert_null(strstr(svg, "\">a_rather"), "%s", svg);
	free(svg);
	st[0].count = 20;
	st[1].count = 80;
	svg = render(&p, 0.1);
	/* 196 px hold 26 glyphs: 23 and "..." */
	cr_assert(strstr(svg, ">a_rather_long_function_...</text>"), "%s", svg);
	free(svg);
}

Test(flamegraph, minwidth_merges_narrow_siblings)
{
	/* main;wide 9990, then ten stacks of 1 sample (0.098 px each): they
	 * are one frame of 10 samples, 0.98 px */
	const char *names[] = { "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9" };
	const char *fr[11][2], *w[] = { "main", "wide" };
	struct profile_stack st[11];
	struct profile p = { st, 11, 10000, NULL };

	for (int i = 0; i < 10; i++) {
		fr[i][0] = "main";
		fr[i][1] = names[i];
		st[i] = (struct profile_stack){ fr[i], 2, 1, 0 };
	}
	st[10] = (struct profile_stack){ w, 2, 9990, 0 };
	char *svg = render(&p, 0.5);
	cr_assert(strstr(svg, "<g class=\"f m\" data-d=\"2\" data-x=\"0\" data-s=\"10\"><title>[10 frames merged] (10 samples, 0.10%)</title>"), "%s", svg);
	cr_assert_null(strstr(svg, "<title>n0 "));
	cr_assert(strstr(svg, "<title>wide ("));
	free(svg);

	/* wider than the run: nothing is drawn, the time stays in main */
	svg = render(&p, 1.0);
	cr_assert_null(strstr(svg, "frames merged"), "%s", svg);
	cr_assert(strstr(svg, "<title>main (10,000 samples, 100.00%)</title>"));
	free(svg);

	/* 0 draws everything */
	svg = render(&p, 0);
	cr_assert_eq(count(svg, "<g class=\"f\""), 13);
	free(svg);
}

Test(flamegraph, minwidth_bounds_frames_per_row)
{
	/* 20000 stacks main;xNNN;yNNN, one sample each: at 0.1 px and 980 px
	 * no row may hold more than 9800 frames, whatever the stacks */
	enum { N = 20000 };
	static char names[2][N][16];
	static const char *fr[N][3];
	static struct profile_stack st[N];
	struct profile p = { st, N, N, NULL };

	for (int i = 0; i < N; i++) {
		snprintf(names[0][i], 16, "x%04d", i / 100);
		snprintf(names[1][i], 16, "y%05d", i);
		fr[i][0] = "main";
		fr[i][1] = names[0][i];
		fr[i][2] = names[1][i];
		st[i] = (struct profile_stack){ fr[i], 3, 1, 0 };
	}
	char *svg = render(&p, 0.1);
	size_t rows[8] = { 0 };
	for (const char *s = strstr(svg, "data-d=\""); s; s = strstr(s + 1, "data-d=\""))
		rows[atoi(s + 8) & 7]++;
	cr_assert_eq(rows[0], 1);
	cr_assert_eq(rows[1], 1);
	cr_assert_eq(rows[2], 200, "each x is 4.9 px: %zu", rows[2]);
	cr_assert_eq(rows[3], 200, "the y under each x are merged: %zu", rows[3]);
	for (int d = 0; d < 8; d++)
		cr_assert_leq(rows[d], 9800);
	free(svg);
}

Test(flamegraph, reverse_puts_leaves_at_the_base)
{
	struct flamegraph_opts o = { .width = 1000, .minwidth = 0.1, .reverse = 1 };
	/* main;a;b 30, main;a;c 10, main;d 60 reversed: b;a;main, c;a;main, d;main */
	char *svg = render_with(&abc_profile, &o);

	cr_assert(strstr(svg, "data-d=\"1\" data-x=\"0\" data-s=\"30\"><title>b ("), "%s", svg);
	cr_assert(strstr(svg, "data-d=\"1\" data-x=\"30\" data-s=\"10\"><title>c ("));
	cr_assert(strstr(svg, "data-d=\"1\" data-x=\"40\" data-s=\"60\"><title>d ("));
	cr_assert(strstr(svg, "data-d=\"2\" data-x=\"0\" data-s=\"30\"><title>a ("));
	cr_assert(strstr(svg, "data-d=\"2\" data-x=\"40\" data-s=\"60\"><title>main ("));
	free(svg);
}

Test(flamegraph, reverse_merges_common_leaves)
{
	/* x;leaf and y;leaf share their leaf once reversed */
	const char *a[] = { "main", "x", "leaf" }, *b[] = { "main", "y", "leaf" };
	struct profile_stack st[] = { { a, 3, 5, 0 }, { b, 3, 7, 0 } };
	struct profile p = { st, 2, 12, NULL };
	struct flamegraph_opts o = { .width = 1000, .minwidth = 0.1, .reverse = 1 };
	char *svg = render_with(&p, &o);

	cr_assert(strstr(svg, "data-d=\"1\" data-x=\"0\" data-s=\"12\"><title>leaf (12 samples"), "%s", svg);
	cr_assert(strstr(svg, "data-d=\"2\" data-x=\"0\" data-s=\"5\"><title>x ("));
	cr_assert(strstr(svg, "data-d=\"2\" data-x=\"5\" data-s=\"7\"><title>y ("));
	cr_assert_eq(count(svg, "<title>main ("), 2);
	free(svg);
}

Test(flamegraph, inverted_grows_down)
{
	struct flamegraph_opts o = { .width = 1000, .minwidth = 0.1, .inverted = 1 };
	char *svg = render_with(&abc_profile, &o);

	cr_assert(strstr(svg, ">Icicle Graph</text>"));
	cr_assert(strstr(svg, "<title>all (100 samples, 100.00%)</title><rect x=\"10.00\" y=\"60.0\""), "%s", svg);
	cr_assert(strstr(svg, "<title>b (30 samples, 30.00%)</title><rect x=\"10.00\" y=\"108.0\""));
	free(svg);
	o.title = "mine";
	svg = render_with(&abc_profile, &o);
	cr_assert(strstr(svg, ">mine</text>") && !strstr(svg, "Icicle"));
	free(svg);
}

Test(flamegraph, hostile_names_stay_text)
{
	const char *f[] = { "</text><script>window.x=1</script>", "]]><script>y()</script><![CDATA[",
			    "\" onload=\"z()", "a;b&c\x01\xff" };
	struct profile_stack st[] = { { f, 4, 1, 0 } };
	struct profile p = { st, 1, 1, NULL };
	struct flamegraph_opts o = { .title = "<script>t()</script>", .subtitle = "]]>\"'&", .width = 1200,
				     .minwidth = 0.1 };
	char *svg = render_with(&p, &o);

	cr_assert_eq(count(svg, "<script"), 1, "only the writer's own script");
	cr_assert_eq(count(svg, "]]>"), 1, "only the writer's own CDATA end");
	cr_assert_eq(count(svg, "onload"), 2, "twice as text, in the title and the label");
	cr_assert_null(strstr(svg, "\" onload"));
	cr_assert(strstr(svg, "<title>&lt;/text&gt;&lt;script&gt;window.x=1&lt;/script&gt; (1 sample, 100.00%)</title>"));
	cr_assert(strstr(svg, "<title>a;b&amp;c\\x01\\xff (1 sample"));
	cr_assert(strstr(svg, ">]]&gt;&quot;&apos;&amp;</text>"));
	/* the script is the last thing: nothing of the data follows it */
	const char *sc = strstr(svg, "<script><![CDATA[");
	cr_assert(sc && !strstr(sc, "&lt;") && !strstr(sc, "window.x"));
	free(svg);
}

Test(flamegraph, long_names_are_capped)
{
	char *name = malloc(65537);
	memset(name, 'x', 65536);
	name[65536] = 0;
	const char *f[] = { name };
	struct profile_stack st[] = { { f, 1, 1, 0 } };
	struct profile p = { st, 1, 1, NULL };
	char *svg = render(&p, 0.1);

	cr_assert_lt(strlen(svg), 32 * 1024);
	cr_assert(strstr(svg, "xxx... (1 sample"));
	free(svg);
	free(name);
}

Test(flamegraph, empty_and_deep_profiles)
{
	struct profile empty = { NULL, 0, 0, NULL };
	char *svg = render(&empty, 0.1);
	cr_assert(strstr(svg, "<title>all (0 samples, 0.00%)</title>"));
	cr_assert(strstr(svg, "</svg>\n"));
	free(svg);

	enum { DEPTH = 10000 };
	static const char *deep[DEPTH];
	for (int i = 0; i < DEPTH; i++)
		deep[i] = i % 2 ? "recurse" : "again";
	struct profile_stack st[] = { { deep, DEPTH, 3, 0 } };
	struct profile p = { st, 1, 3, NULL };
	svg = render(&p, 0.1);
	cr_assert_eq(count(svg, "<g class=\"f\""), DEPTH + 1);
	cr_assert(strstr(svg, "height=\"160110\""), "%.200s", svg);
	free(svg);
}

Test(flamegraph, deterministic)
{
	char *a = render(&abc_profile, 0.1), *b = render(&abc_profile, 0.1);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
}

static unsigned channel(uint32_t c, int shift) { return c >> shift & 0xff; }

Test(flamegraph, palette_hot)
{
	uint32_t c = flamegraph_palette_color(FLAMEGRAPH_PALETTE_HOT, "main", NULL);

	cr_assert_eq(c, flamegraph_palette_color(FLAMEGRAPH_PALETTE_HOT, "main", NULL), "hashed, not random");
	cr_assert_neq(c, flamegraph_palette_color(FLAMEGRAPH_PALETTE_HOT, "mainx", NULL));
	for (const char *const *n = (const char *const[]){ "a", "b", "main", "std::vector<int>", NULL }; *n; n++) {
		c = flamegraph_palette_color(FLAMEGRAPH_PALETTE_HOT, *n, NULL);
		cr_assert(channel(c, 16) >= 205 && channel(c, 8) <= 230 && channel(c, 0) <= 55, "%s: %06x", *n, c);
	}
}

Test(flamegraph, palette_lang)
{
	struct profile_frame_info rust = { .image = "app", .lang = SYMBOLIZE_LANG_RUST, .resolved = 1 };
	struct profile_frame_info cxx = { .image = "app", .lang = SYMBOLIZE_LANG_CXX, .resolved = 1 };
	struct profile_frame_info c = { .image = "libc.so.6", .lang = SYMBOLIZE_LANG_C, .resolved = 1 };
	struct profile_frame_info other = { .image = "libc.so.6", .lang = SYMBOLIZE_LANG_UNKNOWN, .resolved = 1 };
	struct profile_frame_info unres = { .image = "libc.so.6", .resolved = 0 };
	uint32_t r = flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "f", &rust);
	uint32_t x = flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "f", &cxx);
	uint32_t k = flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "f", &c);
	uint32_t o = flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "f", &other);
	uint32_t u = flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "f", &unres);

	cr_assert(channel(r, 16) > channel(r, 8) && channel(r, 8) > channel(r, 0), "Rust is orange: %06x", r);
	cr_assert(channel(x, 0) > channel(x, 16), "C++ is blue: %06x", x);
	cr_assert(channel(k, 8) > channel(k, 16) && channel(k, 8) > channel(k, 0), "C is green: %06x", k);
	cr_assert_eq(o, k, "an unmangled name is C");
	cr_assert(channel(u, 16) == channel(u, 8) && channel(u, 8) == channel(u, 0), "unresolved is grey: %06x", u);
	cr_assert_eq(flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "root", NULL),
		     flamegraph_palette_color(FLAMEGRAPH_PALETTE_IMAGE, "other root", NULL), "nothing known: neutral");
}

Test(flamegraph, palette_image)
{
	struct profile_frame_info a = { .image = "libc.so.6", .resolved = 1 };
	struct profile_frame_info b = { .image = "app", .resolved = 1 };
	uint32_t ca = flamegraph_palette_color(FLAMEGRAPH_PALETTE_IMAGE, "f", &a);

	cr_assert_eq(ca, flamegraph_palette_color(FLAMEGRAPH_PALETTE_IMAGE, "f", &a));
	cr_assert_neq(ca, flamegraph_palette_color(FLAMEGRAPH_PALETTE_IMAGE, "f", &b), "the hue follows the image");
}

/* frame_info for the palette tests: "main" is Rust, the rest unresolved */
static const struct profile_frame_info *fake_info(const struct profile *p, const char *name)
{
	static const struct profile_frame_info rust = { .image = "app", .lang = SYMBOLIZE_LANG_RUST, .resolved = 1 };
	static const struct profile_frame_info unres = { .image = "app" };
	(void)p;
	return !strcmp(name, "main") ? &rust : &unres;
}

Test(flamegraph, palettes_in_the_svg)
{
	struct flamegraph_opts o = { .width = 1000, .minwidth = 0.1, .palette = FLAMEGRAPH_PALETTE_LANG,
				     .frame_info = fake_info };
	char *svg = render_with(&abc_profile, &o), fill[32];

	snprintf(fill, sizeof(fill), "fill=\"#%06x\"",
		 flamegraph_palette_color(FLAMEGRAPH_PALETTE_LANG, "main", fake_info(NULL, "main")));
	cr_assert(strstr(strstr(svg, "<title>main ("), fill), "main is drawn %s", fill);
	cr_assert(strstr(svg, "<g id=\"legend\">"));
	free(svg);
}

struct hook_log {
	char seen[512];
};

static uint32_t color_hook(void *ctx, const char *const *path, size_t depth)
{
	struct hook_log *log = ctx;
	size_t n = strlen(log->seen);

	snprintf(log->seen + n, sizeof(log->seen) - n, "%zu:", depth);
	for (size_t i = 0; i < depth; i++) {
		n = strlen(log->seen);
		snprintf(log->seen + n, sizeof(log->seen) - n, "%s%s", i ? "/" : "", path[i]);
	}
	n = strlen(log->seen);
	snprintf(log->seen + n, sizeof(log->seen) - n, " ");
	return depth == 3 && !strcmp(path[2], "c") ? 0x123456 : FLAMEGRAPH_NO_COLOR;
}

static void details_hook(void *ctx, const char *const *path, size_t depth, struct buf *out)
{
	(void)ctx;
	if (depth == 2 && !strcmp(path[1], "d"))
		buf_addstr(out, "grew <by> 5 pp");
}

Test(flamegraph, color_and_details_hooks)
{
	struct hook_log log = { "" };
	struct flamegraph_opts o = { .width = 1000, .minwidth = 0.1, .color = color_hook,
				     .details = details_hook, .ctx = &log };
	char *svg = render_with(&abc_profile, &o);

	cr_assert_str_eq(log.seen, "0: 1:main 2:main/a 3:main/a/b 3:main/a/c 2:main/d ");
	cr_assert(strstr(svg, "<title>c (10 samples, 10.00%)</title><rect x=\"304.00\" y=\"60.0\" width=\"98.00\" height=\"15\" fill=\"#123456\"/>"),
		  "%s", svg);
	cr_assert(strstr(svg, "<title>d (60 samples, 60.00%)\ngrew &lt;by&gt; 5 pp</title>"), "%s", svg);
	cr_assert(strstr(svg, "<title>a (40 samples, 40.00%)</title>"), "no details, no line");
	free(svg);
}

Test(flamegraph, write_error_is_reported)
{
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		cr_skip_test("no /dev/full");
	setvbuf(f, NULL, _IONBF, 0);
	cr_assert_eq(flamegraph_write_svg(f, &abc_profile, &(struct flamegraph_opts){ .width = 1000 }), -EIO);
	fclose(f);
}
