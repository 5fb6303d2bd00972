/*
 * text.h: showing untrusted strings (paths, thread names, arguments) on a
 * terminal without letting them move the cursor or forge lines.
 */
#ifndef REPORT_TEXT_H
#define REPORT_TEXT_H

#include "common/buf.h"

/* Appends s to b with control bytes and DEL written as "\xHH" and a
 * backslash as "\\"; everything else as is. */
void text_escape(struct buf *b, const char *s);
/* As text_escape(), in double quotes, with '"' written as "\"". */
void text_quote(struct buf *b, const char *s);

#endif
