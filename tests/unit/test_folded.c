/*
 * test_folded.c: the folded writer's escaping, which is what keeps a hostile
 * name from forging frames or lines.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/output/folded.h"

static char *esc(const char *s)
{
	struct buf b;
	buf_init(&b);
	folded_escape(&b, s);
	return buf_detach(&b);
}

Test(folded, plain_names_and_spaces_unchanged)
{
	char *s = esc("operator new(unsigned long) [clone .cold]");
	cr_assert_str_eq(s, "operator new(unsigned long) [clone .cold]");
	free(s);
	s = esc("h\xc3\xa9llo");
	cr_assert_str_eq(s, "h\xc3\xa9llo");
	free(s);
}

Test(folded, separators_and_controls_escaped)
{
	char *s = esc("a;b\nc\\d\te\x7f" "f\r");
	cr_assert_str_eq(s, "a\\x3bb\\x0ac\\x5cd\\x09e\\x7ff\\x0d");
	cr_assert_null(strchr(s, ';'));
	cr_assert_null(strchr(s, '\n'));
	free(s);
}

Test(folded, line_cannot_be_forged)
{
	const char *frames[] = { "prog", "evil 99\nprog;fake", "leaf;x" };
	struct profile_stack st = { frames, 3, 7, 0 };
	struct buf b;
	char *nl;

	buf_init(&b);
	folded_line(&b, &st);
	cr_assert_str_eq((char *)b.data, "prog;evil 99\\x0aprog\\x3bfake;leaf\\x3bx 7\n");
	nl = strchr((char *)b.data, '\n');
	cr_assert(nl && nl[1] == '\0', "exactly one newline, at the end");
	buf_release(&b);
}

Test(folded, write_in_profile_order)
{
	const char *a[] = { "p", "a" }, *b2[] = { "p", "a", "b" };
	struct profile_stack st[] = { { a, 2, 3, 0 }, { b2, 3, 42, 0 } };
	struct profile p = { st, 2, 45, NULL };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_eq(folded_write(f, &p), 0);
	fclose(f);
	cr_assert_str_eq(out, "p;a 3\np;a;b 42\n");
	free(out);
}
