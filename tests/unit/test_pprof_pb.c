/*
 * test_pprof_pb.c: the protobuf encoder, byte for byte at the varint edges
 * (from the encoding's specification), and as protoc --decode_raw, a
 * decoder we did not write, reads a nested message of edge values.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "report/output/pprof_pb.h"

static void expect(const struct buf *b, const char *hex)
{
	char got[512] = "";

	for (size_t i = 0; i < b->len && 2 * i + 2 < sizeof(got); i++)
		snprintf(got + 2 * i, 3, "%02x", b->data[i]);
	cr_assert_str_eq(got, hex);
}

Test(pprof_pb, varint_edges)
{
	static const struct { uint64_t v; const char *hex; } cases[] = {
		{ 0, "" },                 /* proto3: a zero field is left out */
		{ 1, "0801" },
		{ 127, "087f" },
		{ 128, "088001" },
		{ 300, "08ac02" },
		{ 16383, "08ff7f" },
		{ 16384, "08808001" },
		{ UINT32_MAX, "08ffffffff0f" },
		{ UINT64_MAX, "08ffffffffffffffffff01" },
	};
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		buf_reset(&b);
		pprof_pb_uint(&b, 1, cases[i].v);
		expect(&b, cases[i].hex);
	}
	buf_release(&b);
}

Test(pprof_pb, negative_int64_is_ten_bytes)
{
	struct buf b;

	buf_init(&b);
	pprof_pb_int(&b, 2, -1);
	expect(&b, "10ffffffffffffffffff01");
	buf_reset(&b);
	pprof_pb_int(&b, 2, INT64_MIN);
	expect(&b, "1080808080808080808001");
	buf_release(&b);
}

Test(pprof_pb, keys_of_large_field_numbers)
{
	struct buf b;

	buf_init(&b);
	pprof_pb_uint(&b, 15, 1);   /* the last one-byte key */
	pprof_pb_uint(&b, 16, 1);   /* the first two-byte key */
	pprof_pb_bytes(&b, 16, "", 0);
	expect(&b, "7801800101820100");
	buf_release(&b);
}

Test(pprof_pb, bytes_always_and_packed_when_not_empty)
{
	static const uint64_t v[] = { 1, 300, 0 };
	struct buf b;

	buf_init(&b);
	pprof_pb_bytes(&b, 6, "", 0);   /* string_table[0] = "" must be there */
	pprof_pb_bytes(&b, 6, "ab", 2);
	pprof_pb_packed(&b, 1, v, 0);
	pprof_pb_packed(&b, 1, v, 3);
	expect(&b, "320032026162" "0a0401ac0200");
	buf_release(&b);
}

/* Runs protoc --decode_raw on b; returns its output (caller frees), or
 * NULL if protoc is not installed. */
static char *decode_raw(const struct buf *b)
{
	char path[] = "/tmp/test_pprof_pb.XXXXXX", cmd[128];
	struct buf out;
	FILE *p;
	int fd, c;

	if (system("command -v protoc > /dev/null 2>&1") != 0)
		return NULL;
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, b->data, b->len), (ssize_t)b->len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s 2>&1", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	buf_init(&out);
	while ((c = fgetc(p)) != EOF)
		buf_addch(&out, c);
	cr_assert_eq(pclose(p), 0, "protoc failed: %s", out.data);
	unlink(path);
	return buf_detach(&out);
}

Test(pprof_pb, protoc_reads_a_nested_message)
{
	static const uint64_t packed[] = { 3, 270, 86942 };
	struct buf inner, deeper, msg;
	char *text;

	buf_init(&inner);
	buf_init(&deeper);
	buf_init(&msg);
	pprof_pb_uint(&deeper, 1, 127);
	pprof_pb_uint(&deeper, 2, 128);
	pprof_pb_uint(&inner, 1, UINT64_MAX);
	pprof_pb_int(&inner, 2, -2);
	pprof_pb_bytes(&inner, 3, deeper.data, deeper.len);
	pprof_pb_uint(&msg, 1, 150);
	pprof_pb_bytes(&msg, 2, "x", 1);
	pprof_pb_bytes(&msg, 3, inner.data, inner.len);
	pprof_pb_bytes(&msg, 3, inner.data, inner.len);
	pprof_pb_packed(&msg, 4, packed, 3);
	pprof_pb_uint(&msg, 536870911, 1); /* the largest field number */
	text = decode_raw(&msg);
	if (!text)
		cr_skip_test("protoc is not installed (Debian protobuf-compiler)");
	cr_assert_str_eq(text,
			 "1: 150\n"
			 "2: \"x\"\n"
			 "3 {\n  1: 18446744073709551615\n  2: 18446744073709551614\n"
			 "  3 {\n    1: 127\n    2: 128\n  }\n}\n"
			 "3 {\n  1: 18446744073709551615\n  2: 18446744073709551614\n"
			 "  3 {\n    1: 127\n    2: 128\n  }\n}\n"
			 "4: \"\\003\\216\\002\\236\\247\\005\"\n"
			 "536870911: 1\n");
	free(text);
	buf_release(&inner);
	buf_release(&deeper);
	buf_release(&msg);
}
