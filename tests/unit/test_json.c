/*
 * test_json.c: the JSON writer: strings, for every kind of byte a
 * hostile symbol or thread name can hold.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/json.h"

static char *json(const char *s)
{
	struct buf b;

	buf_init(&b);
	json_string(&b, s);
	return buf_detach(&b);
}

#define EXPECT(in, out) do { \
	char *got_ = json(in); \
	cr_assert_str_eq(got_, out); \
	free(got_); \
} while (0)

Test(json, plain_and_utf8_unchanged)
{
	EXPECT("", "\"\"");
	EXPECT("std::vector<int>::push_back", "\"std::vector\\u003cint\\u003e::push_back\"");
	EXPECT("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x94\xa5", "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x94\xa5\"");
}

Test(json, quotes_backslashes_and_controls)
{
	EXPECT("a\"b\\c", "\"a\\\"b\\\\c\"");
	EXPECT("\n\r\t\x01\x1f\x7f", "\"\\n\\r\\t\\u0001\\u001f\\u007f\"");
	EXPECT("</script><script>x&y", "\"\\u003c/script\\u003e\\u003cscript\\u003ex\\u0026y\"");
}

Test(json, invalid_utf8_becomes_visible_hex)
{
	/* a stray continuation byte, a cut sequence, an overlong '/', a
	 * surrogate, and a code point past U+10FFFF */
	EXPECT("a\x80" "b", "\"a\\\\x80b\"");
	EXPECT("\xe2\x82", "\"\\\\xe2\\\\x82\"");
	EXPECT("\xc0\xaf", "\"\\\\xc0\\\\xaf\"");
	EXPECT("\xed\xa0\x80", "\"\\\\xed\\\\xa0\\\\x80\"");
	EXPECT("\xf4\x90\x80\x80", "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"");
}

static char *doc_as(void (*init)(struct json *j, struct buf *b), void (*make)(struct json *j))
{
	struct buf b;
	struct json j;

	buf_init(&b);
	init(&j, &b);
	make(&j);
	json_finish(&j);
	return buf_detach(&b);
}

static char *doc(void (*make)(struct json *j))
{
	return doc_as(json_init, make);
}

static void nested(struct json *j)
{
	json_object(j, NULL);
	json_u64(j, "schema", 1);
	json_array(j, "empty");
	json_end(j);
	json_array(j, "values");
	json_i64(j, NULL, -3);
	json_double(j, NULL, 0.25, 6);
	json_double(j, NULL, -0.0, 6);
	json_double(j, NULL, 1.0 / 0.0, 6);
	json_fixed(j, NULL, 2.0005, 2);
	json_fixed(j, NULL, -0.0, 3);
	json_bool(j, NULL, 1);
	json_null(j, NULL);
	json_str(j, NULL, NULL);
	json_object(j, NULL);
	json_str(j, "a\"b", "x");
	json_end(j);
	json_end(j);
	json_end(j);
}

Test(json, commas_indentation_and_scalars)
{
	char *got = doc(nested);

	cr_assert_str_eq(got, "{\n  \"schema\": 1,\n  \"empty\": [],\n  \"values\": [\n"
			      "    -3,\n    0.25,\n    0,\n    null,\n    2.00,\n    0.000,\n    true,\n    null,\n    null,\n"
			      "    {\n      \"a\\\"b\": \"x\"\n    }\n  ]\n}\n");
	free(got);
}

/* One line, no spaces, the same values: a JSON lines stream's shape. */
Test(json, one_line)
{
	char *got = doc_as(json_init_line, nested);

	cr_assert_str_eq(got, "{\"schema\":1,\"empty\":[],\"values\":[-3,0.25,0,null,2.00,0.000,true,"
			      "null,null,{\"a\\\"b\":\"x\"}]}\n");
	free(got);
}
