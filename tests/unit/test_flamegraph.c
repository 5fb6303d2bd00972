/*
 * Unit tests for report/flamegraph.c: XML escaping of hostile names, and
 * the layout seen through the SVG it writes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/flamegraph.h"

static char *escape(const char *s, size_t max)
{
	struct buf b;
	buf_init(&b);
	flamegraph_xml_escape(&b, s, max);
	return buf_detach(&b);
}

Test(flamegraph, escape_markup)
{
	char *s = escape("</text><script>alert(\"x&y\")</script>'", 4096);
	cr_assert_str_eq(s, "&lt;/text&gt;&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&apos;");
	free(s);
}

Test(flamegraph, escape_control_and_invalid_utf8)
{
	char *s = escape("a\x01\x1b[31m\x7f\xff\xc0\xaf\xed\xa0\x80z", 4096);
	cr_assert_str_eq(s, "a\\x01\\x1b[31m\\x7f\\xff\\xc0\\xaf\\xed\\xa0\\x80z");
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

static char *render(const struct profile *p, double minwidth)
{
	struct flamegraph_opts o = { .title = "t<1>", .width = 1000, .minwidth = minwidth };
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	cr_assert_eq(flamegraph_write_svg(f, p, &o), 0);
	fclose(f);
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

Test(flamegraph, layout_merges_prefixes)
{
	const char *s1[] = { "main", "a", "b" }, *s2[] = { "main", "a", "c" }, *s3[] = { "main", "d" };
	struct profile_stack st[] = { { s1, 3, 30 }, { s2, 3, 10 }, { s3, 2, 60 } };
	struct profile p = { st, 3, 100 };
	char *svg = render(&p, 0.1);

	cr_assert_eq(count(svg, "<title>main (100 samples, 100.00%)</title>"), 1);
	cr_assert_eq(count(svg, "<title>a (40 samples, 40.00%)</title>"), 1);
	cr_assert_eq(count(svg, "<title>d (60 samples, 60.00%)</title>"), 1);
	cr_assert_eq(count(svg, "<rect x=\"10.0\" y="), 4, "all, main, a and b start at the left edge: %s", svg);
	cr_assert(strstr(svg, "<title>c (10 samples, 10.00%)</title><rect x=\"304.0\""), "c follows b: %s", svg);
	cr_assert(strstr(svg, "t&lt;1&gt;"));
	free(svg);
}

Test(flamegraph, minwidth_drops_narrow_frames)
{
	const char *s1[] = { "main", "wide" }, *s2[] = { "main", "narrow" };
	struct profile_stack st[] = { { s2, 2, 1 }, { s1, 2, 9999 } };
	struct profile p = { st, 2, 10000 };
	char *svg = render(&p, 1.0);

	cr_assert(strstr(svg, "wide ("));
	cr_assert_null(strstr(svg, "narrow ("), "a frame 0.1 px wide is not drawn");
	free(svg);
}
