/*
 * flamegraph.c: lays a profile out as a flame graph and writes it as SVG.
 *
 * The profile's stacks arrive sorted root first, so the tree can be built
 * in one pass: each stack shares a prefix with the one before it, and only
 * the frames after that prefix are new nodes. Each node's samples are the
 * sum over the stacks beneath it, and its x position is the sum of its
 * earlier siblings' samples. Writing is a depth-first walk that skips any
 * node (and so its subtree) narrower than minwidth.
 */
#include "report/flamegraph.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"

#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define FONT_WIDTH 0.59 /* average glyph width, in units of the font size */
#define PAD_X 10
#define PAD_TOP 60      /* room for the title and subtitle */
#define PAD_BOTTOM 34   /* room for the details line */
#define NAME_MAX_BYTES 4096

struct node {
	const char *name;
	uint64_t samples;
	uint64_t x;        /* samples to the left of this node on its row */
	size_t first_child, next_sibling; /* indices; 0 means none */
	unsigned depth;
};

struct layout {
	struct node *nodes;
	size_t n, cap;
	unsigned max_depth;
};

static size_t add_node(struct layout *l, const char *name, unsigned depth, uint64_t x)
{
	l->nodes = xgrow(l->nodes, &l->cap, l->n + 1, sizeof(*l->nodes));
	l->nodes[l->n] = (struct node){ .name = name, .x = x, .depth = depth };
	if (depth > l->max_depth)
		l->max_depth = depth;
	return l->n++;
}

/* Builds the tree. path[d] is the node at depth d of the previous stack. */
static void build(struct layout *l, const struct profile *p)
{
	size_t *path = NULL, pathcap = 0, pathlen = 1, *last_child = NULL, lccap = 0;
	const struct profile_stack *prev = NULL;

	add_node(l, "all", 0, 0);
	l->nodes[0].samples = p->samples;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		size_t common = 0;

		if (prev)
			while (common < st->nframes && common < prev->nframes &&
			       !strcmp(st->frames[common], prev->frames[common]))
				common++;
		pathlen = common + 1;
		path = xgrow(path, &pathcap, st->nframes + 1, sizeof(*path));
		last_child = xgrow(last_child, &lccap, st->nframes + 1, sizeof(*last_child));
		path[0] = 0;
		for (size_t d = pathlen; d <= st->nframes; d++) {
			size_t parent = path[d - 1], sib = l->nodes[parent].first_child ? last_child[d - 1] : 0;
			uint64_t x = sib ? l->nodes[sib].x + l->nodes[sib].samples : l->nodes[parent].x;
			size_t id = add_node(l, st->frames[d - 1], (unsigned)d, x);

			if (sib)
				l->nodes[sib].next_sibling = id;
			else
				l->nodes[parent].first_child = id;
			last_child[d - 1] = id;
			path[d] = id;
		}
		for (size_t d = 1; d <= st->nframes; d++)
			l->nodes[path[d]].samples += st->count;
		prev = st;
	}
	free(path);
	free(last_child);
}

void flamegraph_xml_escape(struct buf *b, const char *s, size_t max)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s), i = 0;

	while (i < n && i < max) {
		uint8_t c = p[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		int valid = len > 0 && i + len <= n;

		for (size_t k = 1; valid && k < len; k++)
			valid = (p[i + k] & 0xc0) == 0x80;
		if (valid && len == 2 && c < 0xc2)
			valid = 0; /* overlong */
		if (valid && len == 3) {
			unsigned cp = (c & 0x0fu) << 12 | (p[i + 1] & 0x3fu) << 6 | (p[i + 2] & 0x3fu);
			valid = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) && cp != 0xfffe && cp != 0xffff;
		}
		if (valid && len == 4) {
			unsigned cp = (c & 0x07u) << 18 | (p[i + 1] & 0x3fu) << 12;
			valid = cp >= 0x10000 && cp <= 0x10ffff;
		}
		if (!valid || c < 0x20 || c == 0x7f) {
			buf_addf(b, "\\x%02x", c);
			i++;
			continue;
		}
		switch (c) {
		case '&': buf_addstr(b, "&amp;"); break;
		case '<': buf_addstr(b, "&lt;"); break;
		case '>': buf_addstr(b, "&gt;"); break;
		case '"': buf_addstr(b, "&quot;"); break;
		case '\'': buf_addstr(b, "&apos;"); break;
		default: buf_add(b, p + i, len);
		}
		i += len;
	}
	if (i < n)
		buf_addstr(b, "...");
}

/* The "hot" palette of flamegraph.pl (reds through yellows), with the
 * shade hashed from the name so the same function has the same colour in
 * every graph. */
static void color(const char *name, unsigned *r, unsigned *g, unsigned *bl)
{
	uint64_t h = XXH3_64bits(name, strlen(name));
	double v1 = (double)(h & 0xffff) / 0xffff, v2 = (double)(h >> 16 & 0xffff) / 0xffff,
	       v3 = (double)(h >> 32 & 0xffff) / 0xffff;

	*r = 205 + (unsigned)(50 * v3);
	*g = (unsigned)(230 * v1);
	*bl = (unsigned)(55 * v2);
}

static void write_frame(struct buf *b, const struct node *nd, double scale,
			unsigned height, uint64_t total)
{
	double x = PAD_X + (double)nd->x * scale, w = (double)nd->samples * scale;
	double y = height - PAD_BOTTOM - (double)(nd->depth + 1) * FRAME_HEIGHT;
	size_t fit = (size_t)(w / (FONT_SIZE * FONT_WIDTH));
	unsigned r, g, bl;

	color(nd->name, &r, &g, &bl);
	buf_addstr(b, "<g><title>");
	flamegraph_xml_escape(b, nd->name, NAME_MAX_BYTES);
	buf_addf(b, " (%llu samples, %.2f%%)</title>", (unsigned long long)nd->samples,
		 total ? 100.0 * (double)nd->samples / (double)total : 0.0);
	buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		 x, y, w, FRAME_HEIGHT - 1, r, g, bl);
	if (fit >= 3) {
		buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_HEIGHT - 4.5);
		/* a name cut to fit ends in "..." */
		flamegraph_xml_escape(b, nd->name, strlen(nd->name) <= fit ? fit : fit - 3);
		buf_addstr(b, "</text>");
	}
	buf_addstr(b, "</g>\n");
}

int flamegraph_write_svg(FILE *f, const struct profile *p, const struct flamegraph_opts *o)
{
	struct layout l = { 0 };
	struct buf b;
	unsigned width = o->width;
	double minwidth = o->minwidth, scale;
	unsigned height;
	size_t *stack = NULL, cap = 0, top = 0;
	int err = 0;

	build(&l, p);
	height = PAD_TOP + (l.max_depth + 1) * FRAME_HEIGHT + PAD_BOTTOM;
	scale = p->samples ? (double)(width - 2 * PAD_X) / (double)p->samples : 0;

	buf_init(&b);
	buf_addf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		 "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		 "xmlns=\"http://www.w3.org/2000/svg\">\n"
		 "<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; } "
		 ".title { font-size: 17px; text-anchor: middle; } .subtitle { text-anchor: middle; fill: #666; }</style>\n"
		 "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n",
		 width, height, width, height, FONT_SIZE);
	buf_addf(&b, "<text class=\"title\" x=\"%u\" y=\"24\">", width / 2);
	flamegraph_xml_escape(&b, o->title ? o->title : "Flame Graph", NAME_MAX_BYTES);
	buf_addstr(&b, "</text>\n");
	if (o->subtitle) {
		buf_addf(&b, "<text class=\"subtitle\" x=\"%u\" y=\"44\">", width / 2);
		flamegraph_xml_escape(&b, o->subtitle, NAME_MAX_BYTES);
		buf_addstr(&b, "</text>\n");
	}

	stack = xgrow(stack, &cap, 1, sizeof(*stack));
	stack[top++] = 0;
	while (top) {
		const struct node *nd = &l.nodes[stack[--top]];

		if ((double)nd->samples * scale < minwidth)
			continue;
		write_frame(&b, nd, scale, height, p->samples);
		/* push children in reverse so they are written left to right */
		size_t first = top;
		for (size_t c = nd->first_child; c; c = l.nodes[c].next_sibling) {
			stack = xgrow(stack, &cap, top + 1, sizeof(*stack));
			stack[top++] = c;
		}
		for (size_t i = first, j = top; i + 1 < j; i++, j--) {
			size_t t = stack[i];
			stack[i] = stack[j - 1];
			stack[j - 1] = t;
		}
		if (b.len > (1u << 20)) {
			if (fwrite(b.data, 1, b.len, f) != b.len)
				err = -EIO;
			buf_reset(&b);
		}
	}
	buf_addstr(&b, "</svg>\n");
	if (fwrite(b.data, 1, b.len, f) != b.len || ferror(f))
		err = -EIO;
	buf_release(&b);
	free(stack);
	free(l.nodes);
	return err;
}
