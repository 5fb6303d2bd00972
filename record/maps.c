/*
 * maps.c: reading the text of /proc/PID/maps into mapped files.
 *
 * A shared library appears as several lines, one per segment (often with a
 * read-only, an executable and a data part) and sometimes an anonymous
 * .bss tail or a guard gap in between. The profiler wants one image per
 * file, with the lowest address and the file offset mapped there, because
 * that pair plus the ELF program headers gives the load bias that report
 * uses to turn an address back into a link-time address.
 */
#include "maps.h"
#include "common/diag.h"
#include "common/parse.h"

#include <stdlib.h>
#include <string.h>

/* Reads a number in base 16 or 10 from [*p, end); needs at least a digit. */
static int number(const char **p, const char *end, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0, d;

	while (*p < end && (d = parse_hex_digit((unsigned char)**p)) >= 0 && (unsigned)d < base) {
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		v = v * base + (uint64_t)d;
		(*p)++;
		digits++;
	}
	*out = v;
	return digits ? 0 : -1;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

static void spaces(const char **p, const char *end)
{
	while (*p < end && **p == ' ')
		(*p)++;
}

static int parse_line(const char *p, const char *end, struct maps_entry *e)
{
	uint64_t maj, min;

	memset(e, 0, sizeof(*e));
	if (number(&p, end, 16, &e->start) || expect(&p, end, '-') || number(&p, end, 16, &e->end) ||
	    expect(&p, end, ' '))
		return -1;
	if (end - p < 5 || p[4] != ' ')
		return -1;
	memcpy(e->perms, p, 4);
	p += 5;
	if (number(&p, end, 16, &e->offset) || expect(&p, end, ' ') || number(&p, end, 16, &maj) ||
	    expect(&p, end, ':') || number(&p, end, 16, &min) || expect(&p, end, ' ') ||
	    number(&p, end, 10, &e->inode))
		return -1;
	if (e->end < e->start || maj > 0xfff || min > 0xfffff)
		return -1;
	e->dev_major = (unsigned)maj;
	e->dev_minor = (unsigned)min;
	spaces(&p, end);
	e->path = p;
	e->path_len = (size_t)(end - p);
	return 0;
}

int maps_parse(const char *text, size_t len, int (*cb)(void *ctx, const struct maps_entry *e),
	       void *ctx)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct maps_entry e;
		int r;

		if (eol > p) {
			if (parse_line(p, eol, &e) < 0)
				return MAPS_E_PARSE;
			r = cb(ctx, &e);
			if (r)
				return r;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

struct grouping {
	struct maps_group *g;
	size_t n, cap;
	int open;  /* g[n - 1] may still grow */
	uint64_t top;
};

static int same_file(const struct maps_group *g, const struct maps_entry *e)
{
	return g->inode == e->inode && g->dev_major == e->dev_major && g->dev_minor == e->dev_minor &&
	       strlen(g->path) == e->path_len && memcmp(g->path, e->path, e->path_len) == 0;
}

static int on_entry(void *ctx, const struct maps_entry *e)
{
	struct grouping *gr = ctx;
	int is_file = e->path_len > 0 && e->path[0] == '/' && e->inode != 0;
	int is_vdso = e->path_len == 6 && memcmp(e->path, "[vdso]", 6) == 0;
	struct maps_group *g;

	if (e->end >> 56 == 0 && e->end > gr->top)
		gr->top = e->end;
	if (!is_file && !is_vdso) {
		/* Anonymous memory may sit between a file's segments; named
		 * pseudo-files ([heap], [stack]) end the group. */
		if (e->path_len)
			gr->open = 0;
		return 0;
	}
	if (is_file && gr->open && same_file(&gr->g[gr->n - 1], e)) {
		g = &gr->g[gr->n - 1];
		if (e->end > g->end)
			g->end = e->end;
		if (e->perms[2] == 'x')
			g->executable = 1;
		return 0;
	}
	gr->g = xgrow(gr->g, &gr->cap, gr->n + 1, sizeof(*gr->g));
	g = &gr->g[gr->n++];
	g->path = xstrndup(e->path, e->path_len);
	g->inode = e->inode;
	g->dev_major = e->dev_major;
	g->dev_minor = e->dev_minor;
	g->start = e->start;
	g->end = e->end;
	g->vma_end = e->end;
	g->offset = e->offset;
	g->executable = e->perms[2] == 'x';
	gr->open = is_file;
	return 0;
}

int maps_group(const char *text, size_t len, struct maps_group **out, size_t *n, uint64_t *top)
{
	struct grouping gr = { NULL, 0, 0, 0, 0 };
	int r = maps_parse(text, len, on_entry, &gr);

	if (r < 0) {
		maps_groups_free(gr.g, gr.n);
		return r;
	}
	*out = gr.g;
	*n = gr.n;
	*top = gr.top;
	return 0;
}

void maps_groups_free(struct maps_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].path);
	free(g);
}

int maps_elf_bias(const struct elf_file *e, uint64_t map_start, uint64_t map_offset, uint64_t *bias)
{
	/* The kernel maps whole pages, so the mapped offset is the segment's
	 * offset rounded down to a page; try 4 KiB pages, then 64 KiB. */
	static const uint64_t pages[] = { 4096, 65536 };

	for (size_t k = 0; k < sizeof(pages) / sizeof(pages[0]); k++) {
		for (unsigned i = 0; i < e->phnum; i++) {
			struct elf_segment s;
			uint64_t lo;
			if (elf_segment(e, i, &s) < 0 || s.type != ELF_PT_LOAD)
				continue;
			lo = s.offset & ~(pages[k] - 1);
			if (map_offset < lo || map_offset - lo >= (s.filesz > 0 ? s.offset - lo + s.filesz : pages[k]))
				continue;
			/* file offset s.offset is at map_start + (s.offset -
			 * map_offset), and belongs at link address s.vaddr. */
			*bias = map_start + (s.offset - map_offset) - s.vaddr;
			return 0;
		}
	}
	return MAPS_E_NOLOAD;
}
