/*
 * json.c: a small streaming JSON writer. It keeps, per open level, only
 * whether a value was written and the bracket that closes it, which is all
 * that commas and indentation need; the caller's order of calls is the
 * document's order, so the same report gives the same bytes. Strings go
 * through one escape, shared with the speedscope export, that keeps
 * hostile names valid JSON.
 */
#include "common/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/diag.h"
#include "common/text.h"

void json_init(struct json *j, struct buf *b)
{
	memset(j, 0, sizeof(*j));
	j->b = b;
}

void json_init_line(struct json *j, struct buf *b)
{
	json_init(j, b);
	j->line = 1;
}

void json_finish(struct json *j)
{
	if (j->depth)
		BUG("json: %u levels left open", j->depth);
	buf_addch(j->b, '\n');
}

void json_report_begin(struct json *j, struct buf *b, const char *command)
{
	buf_init(b);
	json_init(j, b);
	json_object(j, NULL);
	json_u64(j, "schema", JSON_REPORT_SCHEMA);
	json_str(j, "command", command);
}

int json_report_write(struct json *j, FILE *f)
{
	json_end(j);
	json_finish(j);
	fwrite(j->b->data, 1, j->b->len, f);
	buf_release(j->b);
	return ferror(f) ? -EIO : 0;
}

static void indent(struct json *j)
{
	if (j->line)
		return;
	buf_addch(j->b, '\n');
	for (unsigned i = 0; i < j->depth; i++)
		buf_addstr(j->b, "  ");
}

/* What goes before a value: the comma, the line, and the key. */
static void begin_value(struct json *j, const char *key)
{
	if (j->depth) {
		if (j->count[j->depth - 1])
			buf_addch(j->b, ',');
		j->count[j->depth - 1] = 1;
		indent(j);
	}
	if (key) {
		json_string(j->b, key);
		buf_addstr(j->b, j->line ? ":" : ": ");
	}
}

static void open_level(struct json *j, const char *key, char open, char close)
{
	begin_value(j, key);
	if (j->depth >= JSON_MAX_DEPTH)
		BUG("json: nested deeper than %d", JSON_MAX_DEPTH);
	buf_addch(j->b, open);
	j->count[j->depth] = 0;
	j->close[j->depth++] = close;
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, '[', ']');
}

void json_end(struct json *j)
{
	if (!j->depth)
		BUG("json: nothing open to close");
	j->depth--;
	if (j->count[j->depth])   /* an empty level closes on its own line */
		indent(j);
	buf_addch(j->b, j->close[j->depth]);
}

void json_str(struct json *j, const char *key, const char *s)
{
	begin_value(j, key);
	if (s)
		json_string(j->b, s);
	else
		buf_addstr(j->b, "null");
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	begin_value(j, key);
	buf_addf(j->b, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	begin_value(j, key);
	buf_addf(j->b, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v, int digits)
{
	begin_value(j, key);
	if (!isfinite(v))
		buf_addstr(j->b, "null");
	else if (v == 0)
		buf_addch(j->b, '0');  /* never "-0" */
	else
		buf_addf(j->b, "%.*g", digits, v);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	begin_value(j, key);
	if (!isfinite(v))
		buf_addstr(j->b, "null");
	else
		buf_addf(j->b, "%.*f", decimals, v == 0 ? 0.0 : v);
}

void json_bool(struct json *j, const char *key, int v)
{
	begin_value(j, key);
	buf_addstr(j->b, v ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	begin_value(j, key);
	buf_addstr(j->b, "null");
}

void json_string(struct buf *b, const char *s)
{
	size_t n = strlen(s), i = 0;

	buf_addch(b, '"');
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len = text_utf8_len(s + i, n - i);

		if (!len) {
			buf_addf(b, "\\\\x%02x", c);
			i++;
			continue;
		}
		switch (c) {
		case '"': buf_addstr(b, "\\\""); break;
		case '\\': buf_addstr(b, "\\\\"); break;
		case '\n': buf_addstr(b, "\\n"); break;
		case '\r': buf_addstr(b, "\\r"); break;
		case '\t': buf_addstr(b, "\\t"); break;
		case '<': case '>': case '&': case 0x7f:
			buf_addf(b, "\\u%04x", c);
			break;
		default:
			if (c < 0x20)
				buf_addf(b, "\\u%04x", c);
			else
				buf_add(b, s + i, len);
		}
		i += len;
	}
	buf_addch(b, '"');
}
