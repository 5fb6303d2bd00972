/*
 * test_bytes.c: the bounded cursor: fixed-width reads, LEB128 of the
 * lengths DWARF producers pad to and no value past 64 bits, strings,
 * skips, and a poisoned cursor staying poisoned.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "common/bytes.h"

#define CURSOR(c, ...) \
	static const uint8_t c##_bytes[] = { __VA_ARGS__ }; \
	struct cursor c; \
	cursor_init(&c, c##_bytes, sizeof(c##_bytes))

Test(bytes, uleb_of_every_length_that_fits)
{
	uint64_t v;

	{
		CURSOR(c, 0xac, 0x02);
		cr_assert_eq(cursor_uleb(&c, &v), 0);
		cr_assert_eq(v, 300);
		cr_assert_eq(c.left, 0);
	}
	{
		/* padding: 0 in three bytes, as assemblers reserve room */
		CURSOR(c, 0x80, 0x80, 0x00, 0x05);
		cr_assert_eq(cursor_uleb(&c, &v), 0);
		cr_assert_eq(v, 0);
		cr_assert_eq(c.left, 1);
	}
	{
		CURSOR(c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
		cr_assert_eq(cursor_uleb(&c, &v), 0);
		cr_assert_eq(v, UINT64_MAX);
	}
	{
		/* the same, padded to twelve bytes */
		CURSOR(c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x80, 0x00);
		cr_assert_eq(cursor_uleb(&c, &v), 0);
		cr_assert_eq(v, UINT64_MAX);
		cr_assert_eq(c.left, 0);
	}
}

Test(bytes, uleb_past_64_bits_poisons)
{
	uint64_t v;

	{
		CURSOR(c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02);
		cr_assert_eq(cursor_uleb(&c, &v), -1);
		cr_assert_eq(v, 0);
		cr_assert(!c.ok);
	}
	{
		CURSOR(c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
		cr_assert_eq(cursor_uleb(&c, &v), -1);
	}
	{
		/* cut in the middle, and poisoned after */
		CURSOR(c, 0x80, 0x80);
		cr_assert_eq(cursor_uleb(&c, &v), -1);
		cr_assert_eq(cursor_skip(&c, 0), -1);
	}
}

Test(bytes, sleb_signs_and_padding)
{
	int64_t v;

	{
		CURSOR(c, 0x7f, 0x80, 0x7f, 0xff, 0x7f, 0xc0, 0xbb, 0x78);
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, -1);
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, -128);
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, -1, "-1 padded to two bytes");
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, -123456);
	}
	{
		CURSOR(c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f);
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, INT64_MIN);
	}
	{
		CURSOR(c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00);
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, INT64_MAX);
	}
	{
		/* -1 in twelve bytes: the groups past 64 bits copy the sign */
		CURSOR(c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
		cr_assert_eq(cursor_sleb(&c, &v), 0);
		cr_assert_eq(v, -1);
	}
	{
		/* bit 63 clear, a bit past it set: no int64 */
		CURSOR(c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40);
		cr_assert_eq(cursor_sleb(&c, &v), -1);
	}
	{
		CURSOR(c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
		cr_assert_eq(cursor_sleb(&c, &v), -1);
	}
}

Test(bytes, svarint_is_zigzag)
{
	int64_t v;
	CURSOR(c, 0x00, 0x01, 0x02, 0x03);

	cr_assert_eq(cursor_svarint(&c, &v), 0);
	cr_assert_eq(v, 0);
	cr_assert_eq(cursor_svarint(&c, &v), 0);
	cr_assert_eq(v, -1);
	cr_assert_eq(cursor_svarint(&c, &v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(cursor_svarint(&c, &v), 0);
	cr_assert_eq(v, -2);
}

Test(bytes, strings_fixed_widths_and_skips)
{
	const char *s;
	uint64_t v;
	uint16_t h;
	CURSOR(c, 'a', 'b', 0, 0x01, 0x02, 0x03, 0x04, 0x05, 'x');

	cr_assert_eq(cursor_cstr(&c, &s), 0);
	cr_assert_str_eq(s, "ab");
	cr_assert_eq(cursor_le(&c, 3, &v), 0);
	cr_assert_eq(v, 0x030201);
	cr_assert_eq(cursor_le16(&c, &h), 0);
	cr_assert_eq(h, 0x0504);
	/* no NUL before the end: no string, and the cursor is poisoned */
	cr_assert_eq(cursor_cstr(&c, &s), -1);
	cr_assert_null(s);
	cr_assert_eq(cursor_le(&c, 1, &v), -1);
}

Test(bytes, bounds)
{
	uint64_t v;
	const uint8_t *p;
	size_t n;

	{
		CURSOR(c, 1, 2, 3);
		cr_assert_eq(cursor_skip(&c, 4), -1);
		cr_assert(!c.ok);
	}
	{
		CURSOR(c, 1, 2, 3);
		cr_assert_eq(cursor_le(&c, 9, &v), -1, "no width past 8");
	}
	{
		CURSOR(c, 3, 'a', 'b');
		cr_assert_eq(cursor_bytes(&c, 16, &p, &n), -1, "a length past the end");
	}
	{
		CURSOR(c, 2, 'a', 'b');
		cr_assert_eq(cursor_bytes(&c, 1, &p, &n), -1, "a length past the cap");
	}
	{
		CURSOR(c, 2, 'a', 'b');
		cr_assert_eq(cursor_bytes(&c, 2, &p, &n), 0);
		cr_assert_eq(n, 2);
		cr_assert_eq(p[1], 'b');
	}
}
