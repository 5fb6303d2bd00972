/*
 * folded.c: writing a profile as folded stacks.
 *
 * The format has no quoting of its own, so the escape here is what keeps a
 * hostile symbol name (a ';' in a C++ template argument, a newline in a
 * thread name) from splitting or inventing stacks.
 */
#include "report/output/folded.h"

#include <errno.h>
#include <inttypes.h>

void folded_escape(struct buf *b, const char *name)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == ';' || *p == '\\') {
			buf_addch(b, '\\');
			buf_addch(b, 'x');
			buf_addch(b, hex[*p >> 4]);
			buf_addch(b, hex[*p & 15]);
		} else {
			buf_addch(b, *p);
		}
	}
}

void folded_line(struct buf *b, const struct profile_stack *st)
{
	size_t i;

	for (i = 0; i < st->nframes; i++) {
		if (i)
			buf_addch(b, ';');
		folded_escape(b, st->frames[i]);
	}
	buf_addf(b, " %" PRIu64 "\n", st->count);
}

int folded_write(FILE *f, const struct profile *p)
{
	struct buf b;
	size_t i;
	int err = 0;

	buf_init(&b);
	for (i = 0; i < p->nstacks; i++) {
		buf_reset(&b);
		folded_line(&b, &p->stacks[i]);
		if (fwrite(b.data, 1, b.len, f) != b.len) {
			err = -EIO;
			break;
		}
	}
	buf_release(&b);
	if (!err && ferror(f))
		err = -EIO;
	return err;
}
