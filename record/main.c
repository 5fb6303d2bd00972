/*
 * main.c: the prof-record command line.
 *
 * Parses the options into a struct session_options and hands over to the
 * session (session.c), which does the recording. Bad usage exits 2 with a
 * short usage; -h prints the whole of it.
 */
#include "common/diag.h"
#include "common/parse.h"
#include "format/trace.h"
#include "record/engine.h"
#include "record/session.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: prof-record [-fqv] [-o file] [-F hz] [-d seconds] [-t tid] [--max-depth n]\n"
	"                   [--mode wall|cpu] [--sampler perf|ptrace] [--realtime prio]\n"
	"                   [--no-inherit] [--keep-images] [--image-cache-max mib]\n"
	"                   -- command [arg ...]\n"
	"       prof-record [-fqv] [-o file] [-F hz] [-d seconds] [-t tid] [--max-depth n]\n"
	"                   [--mode wall|cpu] [--sampler perf|ptrace] [--realtime prio]\n"
	"                   [--no-inherit] [--keep-images] [--image-cache-max mib]\n"
	"                   -p pid\n"
	"       prof-record -h | --help\n"
	"       prof-record --version\n"
	"\n"
	"  -o file          write the trace to file (default prof.trace)\n"
	"  -f               overwrite the file if it exists\n"
	"  -F hz            sampling rate (default 997)\n"
	"  -d seconds       stop after this long\n"
	"  -p pid           attach to a running process\n"
	"  -t tid           sample only this thread (repeatable)\n"
	"  --no-inherit     the process alone, not the processes it starts\n"
	"  --max-depth n    stack depth cap (default 1024)\n"
	"  --keep-images    copy every file with samples into the image cache, not\n"
	"                   only those the report could not find at their path\n"
	"  --image-cache-max mib\n"
	"                   the image cache's size cap in MiB (default 2048; 0\n"
	"                   keeps no file); the cache is $PROF_IMAGE_CACHE, else\n"
	"                   ~/.cache/prof/images\n"
	"  -q               quiet: no announcement, status or summary\n"
	"  -v               more detail\n"
	"  --mode wall|cpu  cpu (on-CPU time only, with Linux's perf_event; lowest\n"
	"                   overhead; the default where perf_event is allowed) or\n"
	"                   wall (every thread, blocked ones too; the default\n"
	"                   otherwise, and the only mode on macOS)\n"
	"  --sampler perf|ptrace\n"
	"                   Linux: perf (the kernel's perf_event, nothing stopped;\n"
	"                   the default where allowed) or ptrace (stops each thread\n"
	"                   at each tick; wall mode only)\n"
	"  --realtime prio  the recorder's real-time priority, 1-99 (default 1,\n"
	"                   where allowed), so that a busy target cannot starve\n"
	"                   it; 0 for normal priority\n"
	"  -h, --help       show this help\n"
	"  --version        show the version and the trace format version\n";

static void DIAG_NORETURN usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", diag_progname());
	fprintf(stderr, fmt, arg);
	fputs("\nusage: prof-record [options] -- command [arg ...]\n"
	      "       prof-record [options] -p pid\n"
	      "try 'prof-record --help' for more\n", stderr);
	exit(2);
}

enum {
	OPT_MAX_DEPTH = 256,
	OPT_MODE,
	OPT_SAMPLER,
	OPT_REALTIME,
	OPT_NO_INHERIT,
	OPT_KEEP_IMAGES,
	OPT_IMAGE_CACHE_MAX,
	OPT_VERSION
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "sampler", required_argument, NULL, OPT_SAMPLER },
		{ "realtime", required_argument, NULL, OPT_REALTIME },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "keep-images", no_argument, NULL, OPT_KEEP_IMAGES },
		{ "image-cache-max", required_argument, NULL, OPT_IMAGE_CACHE_MAX },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct session_options o = { .out_path = "prof.trace", .rate_hz = 997, .max_depth = 1024,
				     .rt_priority = 1, .image_cache_max = (uint64_t)2048 << 20 };
	uint32_t *tids = NULL;
	size_t tids_cap = 0;
	const char *bad;
	int c, code;

	diag_set_progname("prof-record");
	opterr = 0;  /* our own messages, in our own voice */
	while ((c = getopt_long(argc, argv, "+:o:fF:d:p:t:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out_path = optarg;
			break;
		case 'f':
			o.force = 1;
			break;
		case 'F':
			o.rate_hz = (uint32_t)parse_uint_opt("-F", optarg, 1, 100000);
			break;
		case 'd':
			o.duration_ns = parse_seconds_opt("-d", optarg, 1e6);
			if (!o.duration_ns)
				usage_error("option '-d': '%s' must be more than zero seconds", optarg);
			break;
		case 'p':
			o.pid = (pid_t)parse_uint_opt("-p", optarg, 1, 0x7fffffff);
			break;
		case 't':
			tids = xgrow(tids, &tids_cap, o.ntids + 1, sizeof(*tids));
			tids[o.ntids++] = (uint32_t)parse_uint_opt("-t", optarg, 1, 0x7fffffff);
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case OPT_MAX_DEPTH:
			o.max_depth = (size_t)parse_uint_opt("--max-depth", optarg, 1, 65536);
			break;
		case OPT_MODE:
			if (strcmp(optarg, "cpu") == 0)
				o.mode = TRACE_MODE_CPU;
			else if (strcmp(optarg, "wall") == 0)
				o.mode = TRACE_MODE_WALL;
			else
				usage_error("option '--mode': '%s' is not wall or cpu", optarg);
			break;
		case OPT_SAMPLER:
			if (strcmp(optarg, "perf") == 0)
				o.sampler = ENGINE_SAMPLER_PERF;
			else if (strcmp(optarg, "ptrace") == 0)
				o.sampler = ENGINE_SAMPLER_PTRACE;
			else
				usage_error("option '--sampler': '%s' is not perf or ptrace", optarg);
			break;
		case OPT_REALTIME:
			o.rt_priority = (unsigned)parse_uint_opt("--realtime", optarg, 0, 99);
			break;
		case OPT_NO_INHERIT:
			o.no_inherit = 1;
			break;
		case OPT_KEEP_IMAGES:
			o.keep_images = 1;
			break;
		case OPT_IMAGE_CACHE_MAX:
			o.image_cache_max = parse_uint_opt("--image-cache-max", optarg, 0, 1u << 24) << 20;
			break;
		case 'h':
			fputs(usage_text, stdout);
			diag_close_stdout();
			return 0;
		case OPT_VERSION:
			printf("prof-record 0.1 (trace format %d.%d)\n", TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
			diag_close_stdout();
			return 0;
		case ':':
			if (optopt && optopt < 256) {
				char opt[3] = { '-', (char)optopt, 0 };
				usage_error("option '%s' needs an argument", opt);
			}
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, 0 };
				usage_error("unknown option '%s'", opt);
			}
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && o.pid)
		usage_error("%s", "give either -p PID or a COMMAND, not both");
	if (optind >= argc && !o.pid)
		usage_error("%s", "give a COMMAND to launch or -p PID to attach to");
	if (optind < argc) {
		o.argv = argv + optind;
		o.argc = (uint32_t)(argc - optind);
	}
	o.tids = tids;
	if ((bad = engine_usage(&o)))
		usage_error("%s", bad);
	code = session_run(&o);
	free(tids);
	return code;
}
