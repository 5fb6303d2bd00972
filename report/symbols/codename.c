/*
 * codename.c: runtimes' names for their code, trimmed as the report shows
 * them (codename.h).
 */
#include "report/symbols/codename.h"

#include <string.h>

static const char anonymous[] = "(anonymous)";

static int digit(char c) { return c >= '0' && c <= '9'; }
static int alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The length of the ":LINE" or ":LINE:COLUMN" that s[0..n) ends with, 0
 * if none; *line gets LINE. */
static size_t location_tail(const char *s, size_t n, uint32_t *line)
{
	size_t k = n, end[2], parts = 0;

	while (parts < 2) {
		size_t e = k;

		while (k > 0 && digit(s[k - 1]))
			k--;
		if (k == e || k == 0 || s[k - 1] != ':')
			break;
		end[parts++] = e;
		k--;
	}
	if (!parts) {
		return 0;
	}
	/* k is at the colon before LINE (the first of the parts, read from
	 * the end: the last one read) */
	{
		uint64_t v = 0;
		size_t from = k + 1, to = end[parts - 1];

		for (size_t i = from; i < to && v <= UINT32_MAX; i++)
			v = v * 10 + (uint64_t)(s[i] - '0');
		*line = v <= UINT32_MAX ? (uint32_t)v : 0;
	}
	return n - k;
}

/* Whether s[0..n) starts as a script's location does: a path, a URL or
 * node's "node:", V8's "[eval]" and the like, or nothing (":LINE"). */
static int location_start(const char *s, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	if (s[0] == '/' || s[0] == '[' || s[0] == '<' || s[0] == ':' || s[0] == '.' || s[0] == '\\')
		return 1;
	if (!alpha(s[0]))
		return 0;
	/* a scheme: "file:", "node:", "https:", a drive "C:" */
	while (k < n && (alpha(s[k]) || digit(s[k]) || s[k] == '+' || s[k] == '-' || s[k] == '.'))
		k++;
	return k < n && s[k] == ':';
}

/* V8's JavaScript kinds, older and newer. */
static size_t js_prefix(const char *raw)
{
	static const char *const kinds[] = { "JS:", "LazyCompile:", "Function:", "Script:", "Eval:" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strncmp(raw, kinds[i], strlen(kinds[i])))
			return strlen(kinds[i]);
	return 0;
}

static void v8_name(const char *raw, size_t skip, struct codename *out)
{
	const char *s = raw + skip;
	size_t n = strlen(s), tail, loc = (size_t)-1;
	uint32_t line = 0;

	if (n && strchr("~^+*", s[0])) {
		s++;
		n--;
	}
	out->js = 1;
	tail = location_tail(s, n, &line);
	if (tail) {
		/* The location starts after a space: the first one where a
		 * location could start (a name may hold spaces: "get x"), else
		 * the last. */
		for (size_t k = 0; k < n - tail; k++) {
			if (s[k] != ' ')
				continue;
			if (location_start(s + k + 1, n - k - 1)) {
				loc = k;
				break;
			}
		}
		if (loc == (size_t)-1)
			for (size_t k = n - tail; k-- > 0;)
				if (s[k] == ' ') {
					loc = k;
					break;
				}
	}
	if (loc != (size_t)-1) {
		out->file = s + loc + 1;
		out->file_len = n - tail - loc - 1;
		out->line = line;
		if (!out->file_len) {
			out->file = NULL;
			out->line = 0;
		}
		n = loc;
	}
	while (n && s[n - 1] == ' ')
		n--;
	out->name = n ? s : anonymous;
	out->name_len = n ? n : strlen(anonymous);
}

void codename_parse(const char *raw, struct codename *out)
{
	size_t skip;

	memset(out, 0, sizeof(*out));
	if ((skip = js_prefix(raw))) {
		v8_name(raw, skip, out);
		return;
	}
	if (!strncmp(raw, "py::", 4) && raw[4]) {
		const char *colon = strchr(raw + 4, ':');

		if (colon && colon > raw + 4) {
			out->name = raw + 4;
			out->name_len = (size_t)(colon - raw - 4);
			if (colon[1]) {
				out->file = colon + 1;
				out->file_len = strlen(colon + 1);
			}
			return;
		}
	}
	out->name = raw;
	out->name_len = strlen(raw);
}
