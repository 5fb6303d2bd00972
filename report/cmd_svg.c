/*
 * cmd_svg.c: 'prof-report svg TRACE -o out.svg', the profile as an
 * interactive flame graph. The default subtitle says what was recorded:
 * the command, how long, how many samples, the mode and the rate. The
 * layout (--reverse, --inverted, --width, --minwidth) and the palette
 * (--colors) go to the renderer as they are; the image and lang palettes
 * learn each frame's image and language from the profile.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/flamegraph.h"
#include "report/profile.h"
#include "report/symbolize.h"

static const char usage[] =
	"usage: prof-report svg [-o FILE] [--title TEXT] [--width PIXELS]\n"
	"                   [--minwidth PIXELS] [--reverse] [--inverted]\n"
	"                   [--colors PALETTE] [OPTIONS] TRACE\n"
	"\n"
	"Writes the profile as an interactive SVG flame graph.\n"
	"\n"
	CLI_GRAPH_HELP
	"  --colors PALETTE     hot (default), image (a hue per image) or lang\n"
	"                       (Rust, C++, C, unresolved)\n"
	CLI_COMMON_HELP;

static char *subtitle(const struct trace *t, const struct profile *p)
{
	struct buf b;
	uint64_t dur = t->has_end && t->end.time > t->session.start_monotonic_ns
			       ? t->end.time - t->session.start_monotonic_ns : 0;

	buf_init(&b);
	for (uint32_t i = 0; i < t->session.argc && b.len < 200; i++)
		buf_addf(&b, "%s%s", i ? " " : "", t->session.argv[i]);
	if (dur)
		buf_addf(&b, ", %.1f s", (double)dur / 1e9);
	buf_addf(&b, ", %llu samples, %s mode at %u Hz", (unsigned long long)p->samples,
		 trace_mode_name(t->session.mode), t->session.rate_hz);
	return buf_detach(&b);
}

int cmd_svg(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace ct;
	struct flamegraph_opts fo;
	FILE *out;
	char *sub;
	int first;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	cli_open(&o, argv[first], CLI_PROFILED, &ct);
	sub = subtitle(ct.t, ct.p);
	fo = (struct flamegraph_opts){
		.title = o.title, .subtitle = sub, .width = o.width, .minwidth = o.minwidth,
		.reverse = o.reverse, .inverted = o.inverted,
		.palette = o.colors == CLI_COLORS_IMAGE ? FLAMEGRAPH_PALETTE_IMAGE
			 : o.colors == CLI_COLORS_LANG ? FLAMEGRAPH_PALETTE_LANG : FLAMEGRAPH_PALETTE_HOT,
		.frame_info = profile_frame_info,
	};
	out = cli_output_open(o.output);
	if (flamegraph_write_svg(out, ct.p, &fo) < 0)
		die_errno("cannot write '%s'", o.output ? o.output : "standard output");
	cli_output_close(o.output, out);
	free(sub);
	cli_close(&ct);
	cli_release(&o);
	return 0;
}
