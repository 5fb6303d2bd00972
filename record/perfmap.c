/*
 * perfmap.c: perf map lines from bytes (perfmap.h).
 */
#include "perfmap.h"

#include <string.h>

#include "common/parse.h"
#include "common/text.h"

void perfmap_init(struct perfmap *m)
{
	memset(m, 0, sizeof(*m));
}

static int blank(char c) { return c == ' ' || c == '\t'; }

/* A hex number of at most 16 digits at line[*i], an "0x" before it
 * allowed; *i moves past it. Returns 0, or -1 if there is none. */
static int hex_field(const char *line, size_t n, size_t *i, uint64_t *out)
{
	size_t k = *i, digits = 0;
	uint64_t v = 0;

	if (k + 1 < n && line[k] == '0' && (line[k + 1] == 'x' || line[k + 1] == 'X') &&
	    k + 2 < n && parse_hex_digit((unsigned char)line[k + 2]) >= 0)
		k += 2;
	for (; k < n && parse_hex_digit((unsigned char)line[k]) >= 0; k++, digits++) {
		if (digits == 16)
			return -1;
		v = v << 4 | (uint64_t)parse_hex_digit((unsigned char)line[k]);
	}
	if (!digits)
		return -1;
	*i = k;
	*out = v;
	return 0;
}

/* The length of name's first max bytes or fewer that ends at a
 * character's end: a cut never splits a UTF-8 sequence. */
static size_t cut_at(const char *name, size_t n, size_t max)
{
	size_t k = 0;

	while (k < n) {
		size_t c = text_utf8_len(name + k, n - k);

		if (!c)
			c = 1;
		if (k + c > max)
			break;
		k += c;
	}
	return k;
}

int perfmap_line(const char *line, size_t n, struct perfmap_entry *e)
{
	size_t i = 0;

	memset(e, 0, sizeof(*e));
	if (n && line[n - 1] == '\r')
		n--;
	if (memchr(line, 0, n))
		return 0;
	while (i < n && blank(line[i]))
		i++;
	if (hex_field(line, n, &i, &e->start) < 0 || i == n || !blank(line[i]))
		return 0;
	while (i < n && blank(line[i]))
		i++;
	if (hex_field(line, n, &i, &e->size) < 0 || i == n || !blank(line[i]))
		return 0;
	while (i < n && blank(line[i]))
		i++;
	/* the name, without blanks at its end */
	while (n > i && blank(line[n - 1]))
		n--;
	if (i == n || !e->size || e->size > PERFMAP_SIZE_MAX || e->start > UINT64_MAX - e->size)
		return 0;
	e->name = line + i;
	e->name_len = n - i;
	if (e->name_len > PERFMAP_NAME_MAX) {
		e->name_len = cut_at(e->name, e->name_len, PERFMAP_NAME_MAX);
		e->cut = 1;
		if (!e->name_len)
			return 0;
	}
	return 1;
}

size_t perfmap_feed(struct perfmap *m, const char *p, size_t n,
		    int (*cb)(void *ctx, const struct perfmap_entry *e), void *ctx)
{
	size_t used = 0;

	while (used < n) {
		const char *nl = memchr(p + used, '\n', n - used);
		size_t len = nl ? (size_t)(nl - (p + used)) : n - used;
		struct perfmap_entry e;

		if (!nl) {
			/* Half a line, for now; one past the cap is skipped. */
			if (m->skipping || len >= PERFMAP_LINE_MAX) {
				if (!m->skipping) {
					m->lines++;
					m->bad++;
				}
				m->skipping = 1;
				used = n;
			}
			break;
		}
		used += len + 1;
		if (m->skipping) {
			m->skipping = 0;
			continue;
		}
		m->lines++;
		if (len + 1 > PERFMAP_LINE_MAX || !perfmap_line(p + used - len - 1, len, &e)) {
			m->bad++;
			continue;
		}
		m->cut += e.cut != 0;
		if (cb(ctx, &e))
			break;
	}
	return used;
}
