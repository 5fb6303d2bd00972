/*
 * json.h: the one JSON writer, for every JSON output: prof-report's
 * --json reports and speedscope export, prof-record's --events.
 *
 * A struct json appends to a caller-owned struct buf. Values are written
 * in order, each with a key inside an object or with NULL inside an
 * array (or at the top); the writer adds the commas and lays the document
 * out with two spaces an indent level, one member or element a line (or
 * all on one line), so the output is the same bytes for the same values
 * and diffs well.
 *
 * Strings are written by json_string(), for untrusted names: see there.
 */
#ifndef COMMON_JSON_H
#define COMMON_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"

/* How deep objects and arrays may nest; deeper is a BUG(). */
#define JSON_MAX_DEPTH 16

struct json {
	struct buf *b;           /* borrowed */
	unsigned depth;
	unsigned char count[JSON_MAX_DEPTH]; /* whether a level has a value */
	char close[JSON_MAX_DEPTH];          /* '}' or ']' for each level */
	int line;                /* one line, no spaces (json_init_line) */
};

/* Starts a document in b (appended to what b holds). */
void json_init(struct json *j, struct buf *b);
/* The same, for a document on one line without spaces, as a stream of
 * JSON lines needs (prof-record's --events). */
void json_init_line(struct json *j, struct buf *b);
/* Ends the document with a newline; every object and array must be closed. */
void json_finish(struct json *j);

/* A --json report (prof-json(5)): json_report_begin() starts b and the
 * document, an object with "schema" 1 and "command"; json_report_write()
 * closes the object, writes the document to f and releases b: 0, or
 * -EIO if f failed. */
#define JSON_REPORT_SCHEMA 1
void json_report_begin(struct json *j, struct buf *b, const char *command);
int json_report_write(struct json *j, FILE *f);

/* Opens an object or array, as a member named key, or an element if key
 * is NULL; closes the one last opened. */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);

/* Scalars, as members named key or elements (key NULL). json_str writes
 * null for a NULL s; json_double writes v with digits significant
 * digits ("%.*g"), and null for an infinity or a NaN. */
void json_str(struct json *j, const char *key, const char *s);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v, int digits);
/* v with decimals digits after the point ("%.*f"), null if not finite. */
void json_fixed(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);

/* Appends s to b as a JSON string, in double quotes. Well-formed UTF-8 is
 * kept as it is; '"' and '\' are escaped with a backslash; newline,
 * carriage return and tab as \n, \r and \t; the other control bytes, DEL,
 * and '<', '>' and '&' (so the text is safe inside HTML or XML) as \u00XX.
 * A byte that is not part of well-formed UTF-8 (text_utf8_len()) is
 * written as the four characters \xHH, its value in lowercase hex (in
 * JSON, "\\xHH"), as the text outputs show it. */
void json_string(struct buf *b, const char *s);

#endif
