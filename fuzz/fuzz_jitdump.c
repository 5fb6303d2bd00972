/*
 * fuzz_jitdump.c: the jitdump reader (record/jitdump.c) on any bytes, fed
 * whole and then in pieces as a file that grows is read (the piece sizes
 * from the input's last byte): every name and file handed back is read
 * byte by byte, and the two parses must give the same code ranges.
 */
#include "fuzz/fuzz.h"

#include <stdlib.h>

#include "common/diag.h"
#include "record/jitdump.h"

struct tally {
	uint64_t n, sum;
};

static int on_code(void *ctx, const struct jitdump_code *c)
{
	struct tally *t = ctx;
	const char *p;

	fuzz_touch_str(c->name);
	fuzz_touch_str(c->file);
	t->n++;
	t->sum += c->start ^ c->size ^ c->line ^ c->time;
	for (p = c->name; *p; p++)
		t->sum = t->sum * 31 + (uint8_t)*p;
	return 0;
}

/* Feeds data in pieces of step bytes more each time, from where the parse
 * stopped, as a reader of a growing file does. */
static void feed(const uint8_t *data, size_t size, size_t step, struct tally *t)
{
	struct jitdump *j = jitdump_new();
	size_t off = 0, end = 0;

	while (end < size) {
		long used;

		end = end + step < size ? end + step : size;
		used = jitdump_feed(j, data + off, end - off, on_code, t);
		if (used < 0)
			break;
		off += (size_t)used;
		if (off > end)
			BUG("jitdump_feed consumed %zu of %zu bytes", off, end);
	}
	jitdump_free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally whole = { 0 }, pieces = { 0 };

	feed(data, size, size ? size : 1, &whole);
	feed(data, size, size ? (size_t)data[size - 1] % 97 + 1 : 1, &pieces);
	if (whole.n != pieces.n || whole.sum != pieces.sum)
		BUG("fed whole, %llu code ranges; in pieces, %llu", (unsigned long long)whole.n,
		    (unsigned long long)pieces.n);
	return 0;
}
