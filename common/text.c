/*
 * text.c: terminal-safe rendering of strings that came from a trace, for
 * the human-readable outputs (info, threads), and the UTF-8 check that
 * the XML and JSON writers share. Machine formats have their own escapes
 * (folded.h).
 */
#include "text.h"

static void esc(struct buf *b, const char *s, int quoted)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			buf_addstr(b, "\\x");
			buf_addch(b, hex[*p >> 4]);
			buf_addch(b, hex[*p & 15]);
		} else if (*p == '\\' || (quoted && *p == '"')) {
			buf_addch(b, '\\');
			buf_addch(b, *p);
		} else {
			buf_addch(b, *p);
		}
	}
}

void text_escape(struct buf *b, const char *s)
{
	esc(b, s ? s : "", 0);
}

void text_quote(struct buf *b, const char *s)
{
	buf_addch(b, '"');
	esc(b, s ? s : "", 1);
	buf_addch(b, '"');
}

size_t text_utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = p[0], cp;
	size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if (len == 2 && c < 0xc2)
		return 0; /* overlong */
	if (len == 3) {
		cp = (c & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
		if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
			return 0;
	}
	if (len == 4) {
		cp = (c & 0x07u) << 18 | (p[1] & 0x3fu) << 12;
		if (cp < 0x10000 || cp > 0x10ffff)
			return 0;
	}
	return len;
}
