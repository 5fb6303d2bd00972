/*
 * text.h: showing untrusted strings (paths, thread names, arguments) on a
 * terminal without letting them move the cursor or forge lines.
 */
#ifndef REPORT_TEXT_H
#define REPORT_TEXT_H

#include <stddef.h>

#include "common/buf.h"

/* Appends s to b with control bytes and DEL written as "\xHH" and a
 * backslash as "\\"; everything else as is. */
void text_escape(struct buf *b, const char *s);
/* As text_escape(), in double quotes, with '"' written as "\"". */
void text_quote(struct buf *b, const char *s);

/* The length (1 to 4) of the well-formed UTF-8 sequence that starts at
 * s[0], of the n >= 1 bytes there, or 0 if none does: a stray continuation
 * byte, an overlong form, a surrogate, U+FFFE/U+FFFF or a code point past
 * U+10FFFF. Control bytes are well-formed (length 1). */
size_t text_utf8_len(const char *s, size_t n);

#endif
