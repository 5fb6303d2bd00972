/*
 * text.c: terminal-safe rendering of strings that came from a trace, for
 * the human-readable outputs (info, threads). Machine formats have their
 * own escapes (folded.h).
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
