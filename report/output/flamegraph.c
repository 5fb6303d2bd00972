/*
 * flamegraph.c: lays a profile out as a flame graph and writes it as an
 * interactive SVG.
 *
 * The profile's stacks arrive sorted root first (with reverse, they are
 * reversed and sorted again here), so the tree is built in one pass: each
 * stack shares a prefix with the one before it, and only the frames after
 * that prefix are new nodes. A node's samples are the sum over the stacks
 * beneath it, and its x is the sum of its earlier siblings' samples. Two
 * walks of the tree follow, pruned the same way (see flamegraph.h on
 * minwidth): the first finds how deep the drawing goes, which sets the
 * height; the second writes the frames. Each frame carries its depth, first
 * sample and samples as attributes, its name and figures in its <title>,
 * and the embedded script (report/output/flamegraph.js) works from those alone,
 * so no byte of the data is ever inside the script.
 */
#include "report/output/flamegraph.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/symbols/symbolize.h"
#include "common/text.h"

#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define FONT_WIDTH 0.59 /* average glyph width, in units of the font size */
#define TEXT_DY 11.5    /* a label's baseline below its frame's top */
#define PAD_X 10
#define PAD_TOP 60      /* room for the title, subtitle and buttons */
#define LEGEND_HEIGHT 20
#define PAD_BOTTOM 34   /* room for the status line */
#define NAME_MAX_BYTES 4096
#define FLUSH_BYTES (1u << 20)
#define NEUTRAL_FILL 0xd8d8d0u

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
};

static size_t add_node(struct layout *l, const char *name, unsigned depth, uint64_t x)
{
	l->nodes = xgrow(l->nodes, &l->cap, l->n + 1, sizeof(*l->nodes));
	l->nodes[l->n] = (struct node){ .name = name, .x = x, .depth = depth };
	return l->n++;
}

/* Builds the tree from stacks sorted frame by frame. path[d] is the node
 * at depth d of the previous stack, last_child[d] the last child of
 * path[d] so far. */
static void build(struct layout *l, const struct profile_stack *stacks, size_t n, uint64_t total)
{
	size_t *path = NULL, pathcap = 0, *last_child = NULL, lccap = 0;
	const struct profile_stack *prev = NULL;

	add_node(l, "all", 0, 0);
	l->nodes[0].samples = total;
	for (size_t i = 0; i < n; i++) {
		const struct profile_stack *st = &stacks[i];
		size_t common = 0;

		if (prev)
			common = profile_common_frames(st, prev);
		path = xgrow(path, &pathcap, st->nframes + 1, sizeof(*path));
		last_child = xgrow(last_child, &lccap, st->nframes + 1, sizeof(*last_child));
		path[0] = 0;
		for (size_t d = common + 1; d <= st->nframes; d++) {
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

static int cmp_stack(const void *a, const void *b)
{
	const struct profile_stack *x = a, *y = b;
	size_t n = x->nframes < y->nframes ? x->nframes : y->nframes;

	for (size_t i = 0; i < n; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);
		if (c)
			return c;
	}
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

/* The stacks leaf first, sorted again. *frames holds every reversed frame
 * array; the caller frees it and the returned array. Reversal maps
 * distinct stacks to distinct stacks, so nothing needs merging here. */
static struct profile_stack *reversed(const struct profile *p, const char ***frames)
{
	struct profile_stack *st = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*st));
	size_t nframes = 0, at = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		nframes += p->stacks[i].nframes;
	*frames = xcalloc(nframes ? nframes : 1, sizeof(**frames));
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		st[i] = (struct profile_stack){ .frames = *frames + at, .nframes = s->nframes, .count = s->count };
		for (size_t k = 0; k < s->nframes; k++)
			(*frames)[at + k] = s->frames[s->nframes - 1 - k];
		at += s->nframes;
	}
	qsort(st, p->nstacks, sizeof(*st), cmp_stack);
	return st;
}

void flamegraph_xml_escape(struct buf *b, const char *s, size_t max)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s), i = 0;

	while (i < n && i < max) {
		uint8_t c = p[i];
		size_t len = text_utf8_len(s + i, n - i);

		if (!len || c < 0x20 || c == 0x7f) {
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

/* Three independent fractions in [0, 1] from a string's hash. */
static void hash3(const char *s, double v[3])
{
	uint64_t h = XXH3_64bits(s, strlen(s));

	for (int i = 0; i < 3; i++)
		v[i] = (double)(h >> (16 * i) & 0xffff) / 0xffff;
}

static uint32_t rgb(double r, double g, double b)
{
	return (uint32_t)(r * 255 + 0.5) << 16 | (uint32_t)(g * 255 + 0.5) << 8 | (uint32_t)(b * 255 + 0.5);
}

/* HSL to RGB: h in degrees, s and l in [0, 1]. */
static uint32_t hsl(double h, double s, double l)
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2, r = 0, g = 0, b = 0;

	switch ((int)hp) {
	case 0: r = c; g = x; break;
	case 1: r = x; g = c; break;
	case 2: g = c; b = x; break;
	case 3: g = x; b = c; break;
	case 4: r = x; b = c; break;
	default: r = c; b = x; break;
	}
	return rgb(r + m, g + m, b + m);
}

/* The base hues of the lang palette, and where they vary. Go is Go's own
 * cyan, deeper and greener than C++'s blue; JavaScript is its yellow,
 * other code compiled at run time violet. */
enum { HUE_RUST, HUE_CXX, HUE_C, HUE_GO, HUE_JS, HUE_JIT, HUE_UNRESOLVED };
static const struct lang_hue {
	const char *label;
	double hue, spread, sat, light;
} lang_hues[] = {
	[HUE_RUST] = { "Rust", 22, 14, 0.85, 0.58 },
	[HUE_CXX] = { "C++", 205, 22, 0.60, 0.66 },
	[HUE_C] = { "C", 100, 30, 0.50, 0.56 },
	[HUE_GO] = { "Go", 178, 10, 0.80, 0.42 },
	[HUE_JS] = { "JavaScript", 50, 8, 0.90, 0.55 },
	[HUE_JIT] = { "JIT", 275, 20, 0.50, 0.64 },
	[HUE_UNRESOLVED] = { "unresolved", 0, 0, 0.0, 0.70 },
};

static const struct lang_hue *hue_of(const struct profile_frame_info *info)
{
	if (!info->resolved)
		return &lang_hues[HUE_UNRESOLVED];
	switch (info->lang) {
	case SYMBOLIZE_LANG_RUST:
		return &lang_hues[HUE_RUST];
	case SYMBOLIZE_LANG_CXX:
		return &lang_hues[HUE_CXX];
	case SYMBOLIZE_LANG_GO:
		return &lang_hues[HUE_GO];
	case SYMBOLIZE_LANG_JS:
		return &lang_hues[HUE_JS];
	case SYMBOLIZE_LANG_JIT:
		return &lang_hues[HUE_JIT];
	default:
		return &lang_hues[HUE_C];
	}
}

uint32_t flamegraph_palette_color(int palette, const char *name,
				  const struct profile_frame_info *info)
{
	double v[3], w[3];
	const struct lang_hue *lh;

	hash3(name, v);
	switch (palette) {
	case FLAMEGRAPH_PALETTE_IMAGE:
		if (!info || !info->image)
			return NEUTRAL_FILL;
		hash3(info->image, w);
		return hsl(360 * w[0], 0.45 + 0.25 * w[1] + 0.05 * v[1], 0.58 + 0.12 * v[0]);
	case FLAMEGRAPH_PALETTE_LANG:
		if (!info)
			return NEUTRAL_FILL;
		lh = hue_of(info);
		return hsl(lh->hue + lh->spread * v[0], lh->sat, lh->light + 0.12 * (v[1] - 0.5));
	default:
		/* reds through yellows, as flamegraph.pl's "hot" */
		return rgb((205 + 50 * v[2]) / 255, 230 * v[0] / 255, 55 * v[1] / 255);
	}
}

/* A legend under the title: the caller's, or the lang palette's. */
static int has_legend(const struct flamegraph_opts *o)
{
	return o->nlegend || o->palette == FLAMEGRAPH_PALETTE_LANG;
}

/* One drawn frame: a node, or a run of count narrow siblings merged. */
struct item {
	const struct node *node; /* NULL if merged */
	unsigned depth;
	uint64_t x, samples;
	size_t count;
};

struct walk {
	const struct layout *l;
	double scale, minwidth;
	const char **path;     /* path[d - 1]: the name at depth d on the way down */
	size_t pathcap;
	void (*visit)(struct walk *w, const struct item *it);
	void *arg;
};

/* Visits every drawn frame, depth first, parents before children. A run
 * of adjacent children each narrower than minwidth is one merged item if
 * the run is at least minwidth wide, and nothing if not. */
static void walk(struct walk *w)
{
	size_t *stack = NULL, cap = 0, top = 0;

	stack = xgrow(stack, &cap, 1, sizeof(*stack));
	stack[top++] = 0;
	w->path = xgrow(w->path, &w->pathcap, 1, sizeof(*w->path)); /* never NULL for the hooks */
	while (top) {
		const struct node *nd = &w->l->nodes[stack[--top]];
		struct item run = { .depth = nd->depth + 1 };
		size_t first = top;

		if (nd->depth) {
			w->path = xgrow(w->path, &w->pathcap, nd->depth, sizeof(*w->path));
			w->path[nd->depth - 1] = nd->name;
		}
		w->visit(w, &(struct item){ .node = nd, .depth = nd->depth, .x = nd->x, .samples = nd->samples });
		for (size_t c = nd->first_child;; c = w->l->nodes[c].next_sibling) {
			const struct node *ch = c ? &w->l->nodes[c] : NULL;

			if (ch && (double)ch->samples * w->scale < w->minwidth) {
				if (!run.count++)
					run.x = ch->x;
				run.samples += ch->samples;
				continue;
			}
			if (run.count && (double)run.samples * w->scale >= w->minwidth)
				w->visit(w, &run);
			run.count = run.samples = 0;
			if (!ch)
				break;
			stack = xgrow(stack, &cap, top + 1, sizeof(*stack));
			stack[top++] = c;
		}
		/* reverse the children just pushed, so they are visited left to right */
		for (size_t i = first, j = top; i + 1 < j; i++, j--) {
			size_t t = stack[i];
			stack[i] = stack[j - 1];
			stack[j - 1] = t;
		}
	}
	free(stack);
}

static void find_depth(struct walk *w, const struct item *it)
{
	unsigned *max = w->arg;

	if (it->depth > *max)
		*max = it->depth;
}

struct writer {
	FILE *f;
	struct buf b;
	int err;
	const struct profile *p;
	const struct flamegraph_opts *o;
	unsigned height;
	struct buf extra;
};

static void flush(struct writer *wr)
{
	if (wr->b.len && fwrite(wr->b.data, 1, wr->b.len, wr->f) != wr->b.len)
		wr->err = -EIO;
	buf_reset(&wr->b);
}

/* n with thousands separators, as flamegraph.pl shows sample counts. */
static void add_count(struct buf *b, uint64_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf_addch(b, ',');
		buf_addch(b, digits[i]);
	}
}

static void write_frame(struct walk *w, const struct item *it)
{
	struct writer *wr = w->arg;
	const struct flamegraph_opts *o = wr->o;
	struct buf *b = &wr->b;
	uint64_t total = wr->p->samples;
	double x = PAD_X + (double)it->x * w->scale;
	double wd = it->depth ? (double)it->samples * w->scale : (double)(o->width > 2 * PAD_X ? o->width - 2 * PAD_X : 1);
	double y = o->inverted ? PAD_TOP + (has_legend(o) ? LEGEND_HEIGHT : 0) +
				 (double)it->depth * FRAME_HEIGHT
			       : wr->height - PAD_BOTTOM - (double)(it->depth + 1) * FRAME_HEIGHT;
	/* the glyph width is an average: leave a margin for wider fonts */
	size_t fit = wd > 6 ? (size_t)((wd - 6) / (FONT_SIZE * FONT_WIDTH)) : 0;
	const char *name = it->node ? it->node->name : NULL;
	char merged[64];
	uint32_t fill = FLAMEGRAPH_NO_COLOR;

	if (!name) {
		snprintf(merged, sizeof(merged), "[%zu frames merged]", it->count);
		name = merged;
		fill = FLAMEGRAPH_MERGED_FILL;
	} else {
		if (o->color)
			fill = o->color(o->ctx, w->path, it->depth);
		if (fill > 0xffffff)
			fill = flamegraph_palette_color(o->palette, name,
							it->depth && o->frame_info ? o->frame_info(wr->p, name) : NULL);
	}
	buf_addf(b, "<g class=\"f%s\" data-d=\"%u\" data-x=\"%llu\" data-s=\"%llu\"><title>",
		 it->node ? "" : " m", it->depth, (unsigned long long)it->x, (unsigned long long)it->samples);
	flamegraph_xml_escape(b, name, NAME_MAX_BYTES);
	buf_addstr(b, " (");
	add_count(b, it->samples);
	buf_addf(b, " sample%s, %.2f%%)", it->samples == 1 ? "" : "s",
		 total ? 100.0 * (double)it->samples / (double)total : 0.0);
	if (it->node && o->details) {
		buf_reset(&wr->extra);
		o->details(o->ctx, w->path, it->depth, &wr->extra);
		if (wr->extra.len) {
			buf_addch(b, '\n');
			flamegraph_xml_escape(b, (const char *)wr->extra.data, NAME_MAX_BYTES);
		}
	}
	buf_addf(b, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"#%06x\"/>",
		 x, y, wd, FRAME_HEIGHT - 1, (unsigned)fill);
	if (fit >= 3) {
		buf_addf(b, "<text x=\"%.2f\" y=\"%.2f\">", x + 3, y + TEXT_DY);
		/* a name cut to fit ends in "..." */
		flamegraph_xml_escape(b, name, strlen(name) <= fit ? fit : fit - 3);
		buf_addstr(b, "</text>");
	}
	buf_addstr(b, "</g>\n");
	if (b->len > FLUSH_BYTES)
		flush(wr);
}

static const char style[] =
	"<style>\n"
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#subtitle { text-anchor: middle; fill: #555; }\n"
	".btn { cursor: pointer; fill: #336; }\n"
	".btn:hover { text-decoration: underline; }\n"
	"#ignorecase.on { font-weight: bold; fill: #000; }\n"
	".f { cursor: pointer; }\n"
	".f rect { rx: 2px; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	".f text { pointer-events: none; }\n"
	".p rect { opacity: 0.6; }\n"
	".hide { display: none; }\n"
	"</style>\n";

/* The script, report/output/flamegraph.js, which make turns into a C string. */
static const char script[] =
#include "report/output/flamegraph.js.h"
	;

static void write_legend(struct buf *b, const struct flamegraph_legend *l, size_t n)
{
	double x = PAD_X;

	buf_addstr(b, "<g id=\"legend\">");
	for (size_t i = 0; i < n; i++) {
		buf_addf(b, "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#%06x\"/>"
			 "<text x=\"%.0f\" y=\"%d\">", x, PAD_TOP - 6, (unsigned)l[i].fill, x + 16, PAD_TOP + 4);
		flamegraph_xml_escape(b, l[i].label, NAME_MAX_BYTES);
		buf_addstr(b, "</text>");
		x += 16 + 7 * (double)strlen(l[i].label) + 22;
	}
	buf_addstr(b, "</g>\n");
}

static void write_head(struct writer *wr, unsigned depth)
{
	const struct flamegraph_opts *o = wr->o;
	struct buf *b = &wr->b;
	unsigned w = o->width, top = PAD_TOP + (has_legend(o) ? LEGEND_HEIGHT : 0);

	wr->height = top + (depth + 1) * FRAME_HEIGHT + PAD_BOTTOM;
	if (!o->embedded)
		buf_addstr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	buf_addf(b, "<svg%s version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		 "xmlns=\"http://www.w3.org/2000/svg\" data-pad=\"%d\" data-fw=\"%.2f\" data-ty=\"%.1f\">\n",
		 o->embedded ? " class=\"flamegraph\"" : "", w, wr->height, w, wr->height, PAD_X,
		 FONT_SIZE * FONT_WIDTH, TEXT_DY);
	buf_addstr(b, style);
	buf_addstr(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f0\"/>\n");
	buf_addf(b, "<text id=\"title\" x=\"%u\" y=\"24\">", w / 2);
	flamegraph_xml_escape(b, o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph",
			      NAME_MAX_BYTES);
	buf_addstr(b, "</text>\n");
	if (o->subtitle) {
		buf_addf(b, "<text id=\"subtitle\" x=\"%u\" y=\"44\">", w / 2);
		flamegraph_xml_escape(b, o->subtitle, NAME_MAX_BYTES);
		buf_addstr(b, "</text>\n");
	}
	buf_addf(b, "<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		 "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		 "<text id=\"ignorecase\" class=\"btn\" x=\"%u\" y=\"24\" text-anchor=\"end\">ic</text>\n"
		 "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		 "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		 PAD_X, w - PAD_X, w > PAD_X + 100 ? w - PAD_X - 100 : 0, PAD_X, wr->height - 12,
		 w - PAD_X, wr->height - 12);
	if (o->nlegend) {
		write_legend(b, o->legend, o->nlegend);
	} else if (o->palette == FLAMEGRAPH_PALETTE_LANG) {
		struct flamegraph_legend l[sizeof(lang_hues) / sizeof(*lang_hues)];

		for (size_t i = 0; i < sizeof(lang_hues) / sizeof(*lang_hues); i++) {
			const struct lang_hue *lh = &lang_hues[i];

			l[i] = (struct flamegraph_legend){ hsl(lh->hue + lh->spread / 2, lh->sat, lh->light),
							   lh->label };
		}
		write_legend(b, l, sizeof(l) / sizeof(*l));
	}
	buf_addstr(b, "<g id=\"frames\">\n");
}

int flamegraph_write_svg(FILE *f, const struct profile *p, const struct flamegraph_opts *o)
{
	struct layout l = { 0 };
	struct writer wr = { .f = f, .p = p, .o = o };
	struct profile_stack *rev = NULL;
	const char **rev_frames = NULL;
	unsigned depth = 0;
	struct walk w = { .l = &l, .minwidth = o->minwidth };

	if (o->reverse) {
		rev = reversed(p, &rev_frames);
		build(&l, rev, p->nstacks, p->samples);
	} else {
		build(&l, p->stacks, p->nstacks, p->samples);
	}
	w.scale = p->samples && o->width > 2 * PAD_X ? (double)(o->width - 2 * PAD_X) / (double)p->samples : 0;

	w.visit = find_depth;
	w.arg = &depth;
	walk(&w);

	buf_init(&wr.b);
	buf_init(&wr.extra);
	write_head(&wr, depth);
	w.visit = write_frame;
	w.arg = &wr;
	walk(&w);
	buf_addstr(&wr.b, "</g>\n");
	if (!o->embedded)
		buf_addf(&wr.b, "<script><![CDATA[\n%s]]></script>\n", script);
	buf_addstr(&wr.b, "</svg>\n");
	flush(&wr);
	if (ferror(f))
		wr.err = -EIO;

	buf_release(&wr.b);
	buf_release(&wr.extra);
	free(w.path);
	free(l.nodes);
	free(rev);
	free(rev_frames);
	return wr.err;
}
