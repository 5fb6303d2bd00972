/*
 * test_buf.c: the growable buffer's promise that its data is a C string
 * from buf_init() on: empty, reset, released, detached and grown, and
 * never shared storage written to or freed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* The buffer reads as the string s, NUL and all. */
static void assert_string(const struct buf *b, const char *s)
{
	cr_assert_not_null(b->data);
	cr_assert_eq(b->len, strlen(s));
	cr_assert_str_eq((const char *)b->data, s);
	cr_assert_eq(b->data[b->len], 0);
}

Test(buf, empty_after_init_is_a_string)
{
	struct buf b;

	buf_init(&b);
	assert_string(&b, "");
	buf_release(&b);
}

/* What callers do with an empty buf: print it, or format with it. */
Test(buf, empty_buf_can_be_printed)
{
	struct buf b;
	char out[16];
	FILE *f = fmemopen(out, sizeof(out), "w");

	cr_assert_not_null(f);
	buf_init(&b);
	cr_assert_geq(fputs((char *)b.data, f), 0);
	fprintf(f, "[%s]", (char *)b.data);
	fclose(f);
	cr_assert_str_eq(out, "[]");
	buf_release(&b);
}

Test(buf, reset_release_and_detach_leave_a_string)
{
	struct buf b;
	char *s;

	buf_init(&b);
	buf_reset(&b); /* with no storage yet */
	assert_string(&b, "");
	buf_addstr(&b, "abc");
	assert_string(&b, "abc");
	buf_reset(&b);
	assert_string(&b, "");
	buf_addf(&b, "%d-%s", 7, "x");
	assert_string(&b, "7-x");
	buf_release(&b);
	assert_string(&b, "");
	buf_release(&b); /* twice: as harmless as once */
	assert_string(&b, "");

	s = buf_detach(&b); /* an empty one: still a heap string of its own */
	cr_assert_str_eq(s, "");
	free(s);
	assert_string(&b, "");
	buf_addch(&b, 'z');
	s = buf_detach(&b);
	cr_assert_str_eq(s, "z");
	free(s);
	assert_string(&b, "");
}

/* Two empty bufs share nothing that one's appends could change. */
Test(buf, empty_bufs_do_not_share_what_is_appended)
{
	struct buf a, b;

	buf_init(&a);
	buf_init(&b);
	buf_addstr(&a, "only a");
	buf_add(&b, "", 0);
	assert_string(&a, "only a");
	assert_string(&b, "");
	buf_grow(&b, 0);
	assert_string(&b, "");
	buf_release(&a);
	buf_release(&b);
	buf_init(&a);
	assert_string(&a, "");
}
