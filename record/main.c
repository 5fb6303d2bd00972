/*
 * main.c: the prof-record command line.
 *
 * Parses the options, by the table below (common/opt.h), into a struct
 * session_options and hands over to the session (session.c), which does
 * the recording. The table also takes the options a perf user's fingers
 * type: -g and --call-graph are accepted with a note, since stacks are
 * always recorded, and perf's options that prof lacks are refused with
 * what to do instead.
 */
#include "common/diag.h"
#include "common/opt.h"
#include "common/parse.h"
#include "format/trace.h"
#include "record/engine.h"
#include "record/output.h"
#include "record/session.h"

#include <stdio.h>
#include <string.h>

/* The rate -F takes at most. */
#define RATE_MAX 100000

/* What --switch-output takes: a time or a size, each with its unit, or
 * "signal". The units up to SWITCH_TIMES are times, in ns; the rest
 * sizes, in bytes. */
#define SWITCH_TIMES 4
static const struct parse_unit switch_units[] = {
	{ "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { NULL, 0 },
};
/* What --ring-size takes. */
static const struct parse_unit size_units[] = {
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { NULL, 0 },
};

/* Sets o's switch from --switch-output's argument, or says why not. */
static void switch_output(const struct opt_command *cmd, const char *arg, struct session_options *o)
{
	char why[PARSE_WHY_MAX];
	uint64_t v;
	int unit;

	if (!strcmp(arg, "signal")) {
		o->switch_signal = 1;
		return;
	}
	if (parse_scaled(arg, switch_units, 1e18, &v, &unit, why) < 0)
		opt_usage_error(cmd, "option '--switch-output': '%s' %s: a time (500ms, 10s, 5m, 1h), a size "
				"(512K, 64M, 1G) or signal", arg, why);
	if (unit < SWITCH_TIMES && v < 100000000u)
		opt_usage_error(cmd, "option '--switch-output': '%s' is shorter than 100ms, which a file of "
				"its own is not worth", arg);
	if (unit >= SWITCH_TIMES && v < (64u << 10))
		opt_usage_error(cmd, "option '--switch-output': '%s' is under 64K, less than a chunk", arg);
	if (unit < SWITCH_TIMES)
		o->switch_ns = v;
	else
		o->switch_bytes = v;
}

static const char *const mode_words[] = { "wall", "cpu", NULL };
static const char *const sampler_words[] = { "perf", "ptrace", NULL };
/* perf record's --call-graph modes, taken and ignored. */
static const char *const call_graph_words[] = { "fp", "dwarf", "lbr", NULL };

_Static_assert(TRACE_MODE_CPU == TRACE_MODE_WALL + 1, "mode_words are wall, cpu");
_Static_assert(ENGINE_SAMPLER_PTRACE == ENGINE_SAMPLER_PERF + 1, "sampler_words are perf, ptrace");

int main(int argc, char **argv)
{
	struct session_options o = { .out_path = TRACE_DEFAULT_PATH, .rate_hz = 997 };
	const char *rate = NULL, *bad, *switch_arg = NULL, *ring_size = NULL;
	int version = 0, call_graph = 0, mode = -1, sampler = -1, first, code;
	uint64_t pid = 0, max_depth = 1024, rt_priority = 1, cache_mib = 2048;
	struct opt_time duration = { 0 }, ring = { 0 };
	uint64_t max_files = 0;
	struct opt_uints tids = { 0 };
	const struct opt_option options[] = {
		OPT_STRING('o', NULL, "FILE", &o.out_path,
			   "write the trace to FILE (default " TRACE_DEFAULT_PATH ")"),
		OPT_FLAG('f', NULL, &o.force, "overwrite the file if it exists"),
		OPT_STRING('F', NULL, "HZ", &rate,
			   "sampling rate (default 997), or max: the kernel's\n"
			   "highest (kernel.perf_event_max_sample_rate, Linux)"),
		{ .kind = OPT_KIND_SECONDS, .short_name = 'd', .arg = "SECONDS", .value = &duration,
		  .min = 1, .max = 1000000, .help = "stop after this long" },
		{ .kind = OPT_KIND_UINT, .short_name = 'p', .arg = "PID", .value = &pid, .min = 1,
		  .max = 0x7fffffff, .attr = OPT_ATTR_OPERAND, .help = "attach to a running process" },
		OPT_UINTS('t', NULL, "TID", &tids, 1, 0x7fffffff, "sample only this thread (repeatable)"),
		OPT_FLAG(0, "no-inherit", &o.no_inherit,
			 "the process alone, not the processes it starts"),
		OPT_UINT(0, "max-depth", "N", &max_depth, 1, 65536, "stack depth cap (default 1024)"),
		OPT_FLAG(0, "keep-images", &o.keep_images,
			 "copy every file with samples into the image cache, not\n"
			 "only those the report could not find at their path"),
		OPT_UINT(0, "image-cache-max", "MIB", &cache_mib, 0, 1u << 24,
			 "the image cache's size cap in MiB (default 2048; 0\n"
			 "keeps no file); the cache is $PROF_IMAGE_CACHE, else\n"
			 "~/.cache/prof/images"),
		OPT_STRING(0, "control", "PATH|fd:N", &o.control,
			   "read commands from a FIFO or an inherited descriptor,\n"
			   "one a line: stop, cancel, pause, resume, mark NAME,\n"
			   "switch, snapshot"),
		OPT_STRING(0, "events", "PATH|fd:N", &o.events,
			   "write events, a JSON object a line, to a file, FIFO or\n"
			   "inherited descriptor: start, progress, warning, ack,\n"
			   "switch, snapshot, end"),
		OPT_FLAG(0, "paused", &o.paused, "start with sampling paused (resume it with --control)"),
		OPT_STRING(0, "switch-output", "WHEN", &switch_arg,
			   "cut the recording into files named after -o with a\n"
			   "number (prof.000001.trace, ...), the next begun after a\n"
			   "time (10s, 5m, 1h), at a size (64M, 1G), or only on\n"
			   "signal; SIGUSR2 begins one at any time"),
		OPT_UINT(0, "switch-max-files", "N", &max_files, 1, 1000000,
			 "keep only the newest N files of --switch-output"),
		OPT_SECONDS(0, "ring", "SECONDS", &ring, 1000000,
			    "a flight recorder: keep the last SECONDS in memory and\n"
			    "write them on SIGUSR2 (or the control channel's\n"
			    "snapshot) to the next numbered file, and at the end\n"
			    "to -o"),
		OPT_STRING(0, "ring-size", "SIZE", &ring_size,
			   "the memory --ring may hold (default 64M)"),
		OPT_FLAG(0, "snapshot-on-crash", &o.snapshot_on_crash,
			 "with --ring, a snapshot when a process of the recording\n"
			 "dies of a signal"),
		OPT_FLAG('q', NULL, &o.quiet, "quiet: no announcement, status or summary"),
		OPT_FLAG('v', NULL, &o.verbose, "more detail"),
		OPT_WORD(0, "mode", "wall|cpu", &mode, mode_words,
			 "cpu (on-CPU time only, with Linux's perf_event; lowest\n"
			 "overhead; the default where perf_event is allowed) or\n"
			 "wall (every thread, blocked ones too; the default\n"
			 "otherwise, and the only mode on macOS)"),
		OPT_WORD(0, "sampler", "perf|ptrace", &sampler, sampler_words,
			 "Linux: perf (the kernel's perf_event, nothing stopped;\n"
			 "the default where allowed) or ptrace (stops each thread\n"
			 "at each tick; wall mode only)"),
		OPT_UINT(0, "realtime", "PRIO", &rt_priority, 0, 99,
			 "the recorder's real-time priority, 1-99 (default 1,\n"
			 "where allowed), so that a busy target cannot starve\n"
			 "it; 0 for normal priority"),
		{ .kind = OPT_KIND_FLAG, .long_name = "version", .value = &version,
		  .attr = OPT_ATTR_ALONE, .help = "show the version and the trace format version" },
		/* perf record's habits */
		OPT_NOTE('g', "call-graph", &call_graph, call_graph_words,
			 "stacks are always recorded; -g and --call-graph are not needed"),
		OPT_REFUSE('a', "all-cpus",
			   "prof records one program and its children; system-wide profiling is perf's"),
		OPT_REFUSE('C', "cpu",
			   "prof records one program and its children, on every CPU; use perf to "
			   "profile CPUs"),
		OPT_REFUSE('e', "event", "prof samples cpu-clock; --mode picks cpu or wall"),
		OPT_REFUSE('c', "count", "prof samples at a rate; -F sets it, in Hz"),
		OPT_REFUSE('s', "stat", "'prof-report threads' counts the samples of each thread"),
		OPT_REFUSE('b', "branch-any", "prof records stacks, not branches; perf records those"),
		OPT_END,
	};
	const struct opt_command cmd = {
		NULL, "-- COMMAND [ARG ...]\n-p PID", 0, OPT_COMMAND_LINE,
		"Runs COMMAND, or attaches to the process PID, and records the stacks of\n"
		"its threads to a trace for prof-report.",
		options,
	};

	diag_set_progname("prof-record");
	first = opt_parse(&cmd, argc, argv);
	if (version) {
		printf("prof-record 0.1 (trace format %d.%d)\n", TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
		diag_close_stdout();
		return 0;
	}
	if (rate && !strcmp(rate, "max")) {
		if ((bad = engine_max_rate(&o.rate_hz)))
			opt_usage_error(&cmd, "%s", bad);
		if (o.rate_hz > RATE_MAX)
			o.rate_hz = RATE_MAX;
	} else if (rate) {
		o.rate_hz = (uint32_t)parse_uint_opt("-F", rate, 1, RATE_MAX);
	}
	if (first < argc && pid)
		opt_usage_error(&cmd, "give either -p PID or a COMMAND, not both");
	if (first >= argc && !pid)
		opt_usage_error(&cmd, "give a COMMAND to launch or -p PID to attach to");
	if (o.paused && !o.control)
		opt_usage_error(&cmd, "option '--paused' needs '--control', to resume");
	if (switch_arg)
		switch_output(&cmd, switch_arg, &o);
	o.max_files = (uint32_t)max_files;
	o.ring_ns = ring.ns;
	o.ring_bytes = OUTPUT_RING_SIZE;
	if (max_files && !switch_arg)
		opt_usage_error(&cmd, "option '--switch-max-files' needs '--switch-output'");
	if (ring.set && switch_arg)
		opt_usage_error(&cmd, "give '--ring' or '--switch-output', not both: a ring writes snapshots, "
				"a rotated recording every file");
	if (ring.set && !ring.ns)
		opt_usage_error(&cmd, "option '--ring': a window of 0 seconds keeps nothing");
	if ((ring_size || o.snapshot_on_crash) && !ring.set)
		opt_usage_error(&cmd, "option '%s' needs '--ring'", ring_size ? "--ring-size" : "--snapshot-on-crash");
	if (ring_size) {
		char why[PARSE_WHY_MAX];
		int unit;

		if (parse_scaled(ring_size, size_units, 1e15, &o.ring_bytes, &unit, why) < 0)
			opt_usage_error(&cmd, "option '--ring-size': '%s' %s: a size (64M, 1G)", ring_size, why);
		if (o.ring_bytes < (1u << 20))
			opt_usage_error(&cmd, "option '--ring-size': '%s' is under 1M", ring_size);
	}
	if (ring.set) {
		/* A window the cap cannot hold even for one busy thread is
		 * refused now, not found out an hour in. */
		double need = (double)ring.ns / 1e9 * o.rate_hz * OUTPUT_RING_SAMPLE_BYTES;

		if (need > (double)o.ring_bytes)
			opt_usage_error(&cmd, "option '--ring': %.0f s at %u Hz needs at least %.0f MiB (%d bytes a "
					"sample of one busy thread), over the %.0f MiB of --ring-size: a shorter "
					"window, a lower -F, or a larger --ring-size", (double)ring.ns / 1e9,
					o.rate_hz, need / 1048576.0, OUTPUT_RING_SAMPLE_BYTES,
					(double)o.ring_bytes / 1048576.0);
	}
	o.pid = (pid_t)pid;
	if (first < argc) {
		o.argv = argv + first;
		o.argc = (uint32_t)(argc - first);
	}
	o.duration_ns = duration.ns;
	o.tids = tids.v;
	o.ntids = tids.n;
	o.max_depth = (size_t)max_depth;
	o.rt_priority = (unsigned)rt_priority;
	o.image_cache_max = cache_mib << 20;
	o.mode = mode < 0 ? TRACE_MODE_UNKNOWN : TRACE_MODE_WALL + mode;
	o.sampler = sampler < 0 ? ENGINE_SAMPLER_AUTO : ENGINE_SAMPLER_PERF + sampler;
	if ((bad = engine_usage(&o)))
		opt_usage_error(&cmd, "%s", bad);
	code = session_run(&o);
	opt_release(&cmd);
	return code;
}
