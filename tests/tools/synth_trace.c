/*
 * synth_trace.c: writes a prof trace from a description on the command
 * line, through the real trace writer, so tests can make traces of
 * processes that cannot be recorded here (macOS ones above all) and point
 * prof-report at debug files built for them.
 *
 * Everything is deterministic: the session starts at a fixed time, thread
 * names are set at that instant, and the k'th sample is taken k periods
 * later (one period is 1/rate seconds), so the same command line always
 * writes the same bytes. Images, threads and samples are written in the
 * order given.
 */
#include "common/diag.h"
#include "common/parse.h"
#include "format/trace.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: synth_trace -o file [--os linux|macos] [--arch x86_64|arm64] [--mode wall|cpu]\n"
	"                   [--sampler tick|perf] [--kernel sampled|refused|not-sampled]\n"
	"                   [--paranoid n] [--pid pid] [--rate hz] [--host text] [--command word]...\n"
	"                   [--image spec]... [--thread spec]...\n"
	"                   [--sample spec [--count n] [--skip n]]... [--mark spec]...\n"
	"                   [--pause spec]... [--code spec]... [--exit code]\n"
	"       synth_trace -h | --help\n"
	"\n"
	"  -o file          write the trace to file (replaced if it exists)\n"
	"  --os os          the recorded system (default macos)\n"
	"  --arch arch      the recorded architecture (default arm64)\n"
	"  --mode mode      the recording mode (default wall)\n"
	"  --sampler name   what took the samples (default unknown)\n"
	"  --kernel what    whether kernel-mode ticks were sampled (default unknown)\n"
	"  --paranoid n     kernel.perf_event_paranoid when recording began, 0 to 254\n"
	"                   (default unknown)\n"
	"  --pid pid        the recorded process id (default 1)\n"
	"  --rate hz        the sampling rate, which also spaces the samples (default 1000)\n"
	"  --host text      the host description (default \"synthetic\")\n"
	"  --command word   append word to the recorded command line (repeatable)\n"
	"  --image spec     an image: ID=n,KIND=uuid|gnu-build-id|none,IDENT=hex,PATH=path,\n"
	"                   START=addr,SIZE=n,BIAS=n,OFFSET=n,ARCH=arch,LOADED=k,UNLOADED=k\n"
	"                   (ID defaults to its position from 1; KIND to uuid on macos and\n"
	"                   gnu-build-id on linux when IDENT is given; dashes in IDENT are\n"
	"                   ignored; LOADED and UNLOADED are at the time of the k'th sample,\n"
	"                   from 1, and by default the image is there throughout)\n"
	"  --thread spec    a thread: TID=n,NAME=name\n"
	"  --sample spec    a sample: TID=n,STATE=running|sleeping|disk|stopped|other|preempted,\n"
	"                   STACK=leaf:caller:...:root,TRUNCATED=0|1,KERNEL=0|1\n"
	"                   (TID must be a --thread)\n"
	"  --count n        take the sample before it n times (default 1)\n"
	"  --skip n         leave n periods without a sample before the sample before it\n"
	"                   (AT, FROM and TO count periods, skipped ones included)\n"
	"  --mark spec      a mark: AT=k,NAME=name,SOURCE=control|app, at the time of the\n"
	"                   k'th sample, from 1 (0, the default: the start); SOURCE\n"
	"                   defaults to control\n"
	"  --pause spec     a pause: FROM=i,TO=k, from the time of the i'th sample to that\n"
	"                   of the k'th, counted as --mark's AT\n"
	"  --code spec      a named code range: START=addr,SIZE=n,NAME=name[,LOADED=k]\n"
	"                   [,SOURCE=perf-map|jitdump|vdso][,FILE=path,LINE=n], loaded at\n"
	"                   the time of the k'th sample (default: from the start)\n"
	"  --exit code      record that the command exited with code\n"
	"  -h, --help       show this help\n"
	"\n"
	"Numbers are decimal or 0x-prefixed hexadecimal. Values cannot contain commas.\n"
	"The session starts at monotonic time 1 s, 2026-01-01T00:00:00Z.\n";

#define START_MONOTONIC_NS 1000000000ull
#define START_REALTIME_NS 1767225600000000000ull
#define MAX_STACK 4096

struct sample_spec {
	uint32_t tid;
	uint8_t state, flags;
	uint64_t *addrs;
	size_t naddrs;
	uint64_t count;
	uint64_t skip;  /* periods left without a sample before it */
};

struct mark_spec {
	uint64_t at;  /* the k'th sample's time */
	char *name;
	int source;
};

struct pause_spec {
	uint64_t from, to;  /* samples whose times it spans, as mark_spec.at */
};

struct thread_spec {
	uint32_t tid;
	char *name;   /* NULL if unnamed */
};

static void DIAG_NORETURN usage_error(const char *fmt, ...) DIAG_PRINTF(1, 2);

static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", diag_progname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nusage: synth_trace -o file [options] [--image spec]... [--thread spec]...\n"
	      "                   [--sample spec [--count n]]...\n"
	      "try 'synth_trace --help' for more\n", stderr);
	exit(2);
}

/* A number in decimal (through parse_uint_opt) or 0x-prefixed hex, at most
 * max, for option opt; bad input is a usage error naming opt. */
static uint64_t parse_number(const char *opt, const char *arg, uint64_t max)
{
	char *end;
	unsigned long long v;

	if (arg[0] != '0' || (arg[1] != 'x' && arg[1] != 'X'))
		return parse_uint_opt(opt, arg, 0, max);
	if (!isxdigit((unsigned char)arg[2]))
		usage_error("option '%s': '%s' is not a number", opt, arg);
	errno = 0;
	v = strtoull(arg + 2, &end, 16);
	if (*end)
		usage_error("option '%s': '%s' is not a number", opt, arg);
	if (errno == ERANGE || v > max)
		usage_error("option '%s': '%s' is out of range (0 to %#llx)", opt, arg,
			    (unsigned long long)max);
	return v;
}

/* The enum value whose name() is word, or a usage error. */
static int parse_name(const char *opt, const char *word, const char *(*name)(int), int first, int last)
{
	for (int v = first; v <= last; v++)
		if (strcmp(word, name(v)) == 0)
			return v;
	usage_error("option '%s': unknown value '%s'", opt, word);
}

/*
 * A spec is KEY=value pairs separated by commas. next_pair() cuts the next
 * one out of *rest (which it modifies) and returns 0 at the end.
 */
static int next_pair(const char *opt, char **rest, char **key, char **value)
{
	char *p = *rest, *comma, *eq;

	if (!p || !*p)
		return 0;
	comma = strchr(p, ',');
	if (comma)
		*comma = 0;
	*rest = comma ? comma + 1 : NULL;
	eq = strchr(p, '=');
	if (!eq || eq == p)
		usage_error("option '%s': '%s' is not KEY=value", opt, p);
	*eq = 0;
	*key = p;
	*value = eq + 1;
	return 1;
}

static size_t parse_ident(const char *arg, uint8_t *out)
{
	size_t n = 0;
	int half = -1;

	for (const char *p = arg; *p; p++) {
		int d;
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p))
			usage_error("option '--image IDENT': '%s' is not hexadecimal", arg);
		d = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
		if (half < 0) {
			half = d;
			continue;
		}
		if (n == TRACE_MAX_IDENT)
			usage_error("option '--image IDENT': '%s' is longer than %d bytes", arg, TRACE_MAX_IDENT);
		out[n++] = (uint8_t)(half << 4 | d);
		half = -1;
	}
	if (half >= 0 || n == 0)
		usage_error("option '--image IDENT': '%s' is not a whole number of bytes", arg);
	return n;
}

/* Fills img from spec; its arch stays 0 (the session's) unless ARCH is
 * given. */
static void parse_image(char *spec, size_t index, uint8_t os, struct trace_image *img)
{
	char *rest = spec, *key, *value;
	int kind = -1;

	memset(img, 0, sizeof(*img));
	img->id = (uint32_t)index + 1;
	img->path = "";
	while (next_pair("--image", &rest, &key, &value)) {
		if (strcmp(key, "ID") == 0) {
			img->id = (uint32_t)parse_number("--image ID", value, UINT32_MAX);
		} else if (strcmp(key, "KIND") == 0) {
			if (strcmp(value, "uuid") == 0)
				kind = TRACE_IDENT_MACHO_UUID;
			else
				kind = parse_name("--image KIND", value, trace_ident_kind_name,
						  TRACE_IDENT_NONE, TRACE_IDENT_MACHO_UUID);
		} else if (strcmp(key, "IDENT") == 0) {
			img->ident_len = (uint8_t)parse_ident(value, img->ident);
		} else if (strcmp(key, "PATH") == 0) {
			img->path = value;
		} else if (strcmp(key, "START") == 0) {
			img->start = parse_number("--image START", value, UINT64_MAX);
		} else if (strcmp(key, "SIZE") == 0) {
			img->size = parse_number("--image SIZE", value, UINT64_MAX);
		} else if (strcmp(key, "BIAS") == 0) {
			img->bias = parse_number("--image BIAS", value, UINT64_MAX);
		} else if (strcmp(key, "OFFSET") == 0) {
			img->file_offset = parse_number("--image OFFSET", value, UINT64_MAX);
		} else if (strcmp(key, "ARCH") == 0) {
			img->arch = (uint8_t)parse_name("--image ARCH", value, trace_arch_name,
							TRACE_ARCH_X86_64, TRACE_ARCH_ARM64);
		} else if (strcmp(key, "LOADED") == 0) {
			/* a sample number until the period is known */
			img->time_loaded = parse_number("--image LOADED", value, UINT32_MAX);
		} else if (strcmp(key, "UNLOADED") == 0) {
			img->time_unloaded = parse_number("--image UNLOADED", value, UINT32_MAX);
		} else {
			usage_error("option '--image': unknown key '%s'", key);
		}
	}
	if (kind < 0)
		kind = !img->ident_len ? TRACE_IDENT_NONE
		       : os == TRACE_OS_MACOS ? TRACE_IDENT_MACHO_UUID : TRACE_IDENT_GNU_BUILD_ID;
	if (kind == TRACE_IDENT_NONE && img->ident_len)
		usage_error("option '--image': IDENT given with KIND=none");
	if (kind != TRACE_IDENT_NONE && !img->ident_len)
		usage_error("option '--image': KIND=%s needs an IDENT", trace_ident_kind_name(kind));
	img->ident_kind = (uint8_t)kind;
}

static void parse_thread(char *spec, struct thread_spec *th)
{
	char *rest = spec, *key, *value;
	int has_tid = 0;

	th->name = NULL;
	while (next_pair("--thread", &rest, &key, &value)) {
		if (strcmp(key, "TID") == 0) {
			th->tid = (uint32_t)parse_number("--thread TID", value, UINT32_MAX);
			has_tid = 1;
		} else if (strcmp(key, "NAME") == 0) {
			th->name = value;
		} else {
			usage_error("option '--thread': unknown key '%s'", key);
		}
	}
	if (!has_tid)
		usage_error("option '--thread': no TID");
}

static void parse_mark(char *spec, struct mark_spec *m)
{
	char *rest = spec, *key, *value;

	*m = (struct mark_spec){ .source = TRACE_MARK_CONTROL };
	while (next_pair("--mark", &rest, &key, &value)) {
		if (strcmp(key, "AT") == 0)
			m->at = parse_number("--mark AT", value, UINT32_MAX);
		else if (strcmp(key, "NAME") == 0)
			m->name = value;
		else if (strcmp(key, "SOURCE") == 0)
			m->source = parse_name("--mark SOURCE", value, trace_mark_source_name,
					       TRACE_MARK_CONTROL, TRACE_MARK_APP);
		else
			usage_error("option '--mark': unknown key '%s'", key);
	}
	if (!m->name)
		usage_error("option '--mark': no NAME");
}

static void parse_code(char *spec, struct trace_code *k)
{
	char *rest = spec, *key, *value;

	*k = (struct trace_code){ .source = TRACE_CODE_PERF_MAP };
	while (next_pair("--code", &rest, &key, &value)) {
		if (strcmp(key, "START") == 0) {
			k->start = parse_number("--code START", value, UINT64_MAX);
		} else if (strcmp(key, "SIZE") == 0) {
			k->size = parse_number("--code SIZE", value, UINT64_MAX);
		} else if (strcmp(key, "NAME") == 0) {
			k->name = value;
		} else if (strcmp(key, "LOADED") == 0) {
			/* a sample number until the period is known */
			k->time = parse_number("--code LOADED", value, UINT32_MAX);
		} else if (strcmp(key, "SOURCE") == 0) {
			k->source = (uint8_t)parse_name("--code SOURCE", value, trace_code_source_name,
							TRACE_CODE_PERF_MAP, TRACE_CODE_VDSO);
		} else if (strcmp(key, "FILE") == 0) {
			k->file = value;
		} else if (strcmp(key, "LINE") == 0) {
			k->line = (uint32_t)parse_number("--code LINE", value, UINT32_MAX);
		} else {
			usage_error("option '--code': unknown key '%s'", key);
		}
	}
	if (!k->name || !k->size)
		usage_error("option '--code': no NAME or SIZE");
}

static void parse_pause(char *spec, struct pause_spec *p)
{
	char *rest = spec, *key, *value;
	int has_to = 0;

	*p = (struct pause_spec){ 0 };
	while (next_pair("--pause", &rest, &key, &value)) {
		if (strcmp(key, "FROM") == 0) {
			p->from = parse_number("--pause FROM", value, UINT32_MAX);
		} else if (strcmp(key, "TO") == 0) {
			p->to = parse_number("--pause TO", value, UINT32_MAX);
			has_to = 1;
		} else {
			usage_error("option '--pause': unknown key '%s'", key);
		}
	}
	if (!has_to || p->to < p->from)
		usage_error("option '--pause': no TO at or after FROM");
}

static void parse_stack(char *arg, struct sample_spec *s)
{
	size_t cap = 0;
	char *p = arg;

	s->addrs = NULL;
	s->naddrs = 0;
	while (*p) {
		char *colon = strchr(p, ':');
		if (colon)
			*colon = 0;
		if (s->naddrs == MAX_STACK)
			usage_error("option '--sample STACK': more than %d frames", MAX_STACK);
		s->addrs = xgrow(s->addrs, &cap, s->naddrs + 1, sizeof(*s->addrs));
		s->addrs[s->naddrs++] = parse_number("--sample STACK", p, UINT64_MAX);
		if (!colon)
			break;
		p = colon + 1;
		if (!*p)
			usage_error("option '--sample STACK': empty frame at the end");
	}
}

static void set_flag(struct sample_spec *s, uint8_t flag, uint64_t on)
{
	if (on)
		s->flags |= flag;
	else
		s->flags &= (uint8_t)~flag;
}

static void parse_sample(char *spec, struct sample_spec *s)
{
	char *rest = spec, *key, *value;
	int has_tid = 0;

	memset(s, 0, sizeof(*s));
	s->state = TRACE_STATE_RUNNING;
	s->count = 1;
	while (next_pair("--sample", &rest, &key, &value)) {
		if (strcmp(key, "TID") == 0) {
			s->tid = (uint32_t)parse_number("--sample TID", value, UINT32_MAX);
			has_tid = 1;
		} else if (strcmp(key, "STATE") == 0) {
			s->state = (uint8_t)parse_name("--sample STATE", value, trace_state_name,
						       TRACE_STATE_RUNNING, TRACE_STATE_PREEMPTED);
		} else if (strcmp(key, "STACK") == 0) {
			free(s->addrs);
			parse_stack(value, s);
		} else if (strcmp(key, "TRUNCATED") == 0) {
			set_flag(s, TRACE_SAMPLE_TRUNCATED, parse_number("--sample TRUNCATED", value, 1));
		} else if (strcmp(key, "KERNEL") == 0) {
			set_flag(s, TRACE_SAMPLE_KERNEL, parse_number("--sample KERNEL", value, 1));
		} else {
			usage_error("option '--sample': unknown key '%s'", key);
		}
	}
	if (!has_tid)
		usage_error("option '--sample': no TID");
}

static void check(int r, const char *path)
{
	if (r < 0)
		die("cannot write '%s': %s", path, prof_strerror(r));
}

enum {
	OPT_OS = 256, OPT_ARCH, OPT_MODE, OPT_SAMPLER, OPT_KERNEL, OPT_PARANOID, OPT_PID, OPT_RATE,
	OPT_HOST, OPT_COMMAND, OPT_IMAGE, OPT_THREAD, OPT_SAMPLE, OPT_COUNT, OPT_EXIT,
	OPT_MARK, OPT_PAUSE, OPT_SKIP, OPT_CODE,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "os", required_argument, NULL, OPT_OS },
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "sampler", required_argument, NULL, OPT_SAMPLER },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "paranoid", required_argument, NULL, OPT_PARANOID },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "command", required_argument, NULL, OPT_COMMAND },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "sample", required_argument, NULL, OPT_SAMPLE },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "exit", required_argument, NULL, OPT_EXIT },
		{ "mark", required_argument, NULL, OPT_MARK },
		{ "pause", required_argument, NULL, OPT_PAUSE },
		{ "code", required_argument, NULL, OPT_CODE },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL;
	struct trace_session sess = { 0 };
	struct trace_image *images = NULL;
	struct thread_spec *threads = NULL;
	struct sample_spec *samples = NULL;
	struct mark_spec *marks = NULL;
	size_t nmarks = 0, marks_cap = 0;
	struct pause_spec *pauses = NULL;
	size_t npauses = 0, pauses_cap = 0;
	struct trace_code *code = NULL;
	size_t ncode = 0, code_cap = 0;
	size_t nimages = 0, images_cap = 0, nthreads = 0, threads_cap = 0;
	size_t nsamples = 0, samples_cap = 0, argv_cap = 0;
	struct trace_writer *w = NULL;
	struct trace_end end = { 0 };
	uint64_t period, t;
	int c, fd;

	diag_set_progname("synth_trace");
	sess.os = TRACE_OS_MACOS;
	sess.arch = TRACE_ARCH_ARM64;
	sess.mode = TRACE_MODE_WALL;
	sess.kernel_paranoid = TRACE_PARANOID_UNKNOWN;
	sess.rate_hz = 1000;
	sess.pid = 1;
	sess.host = "synthetic";
	sess.start_monotonic_ns = START_MONOTONIC_NS;
	sess.start_realtime_ns = START_REALTIME_NS;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			diag_close_stdout();
			return 0;
		case OPT_OS:
			sess.os = (uint8_t)parse_name("--os", optarg, trace_os_name, TRACE_OS_LINUX, TRACE_OS_MACOS);
			break;
		case OPT_ARCH:
			sess.arch = (uint8_t)parse_name("--arch", optarg, trace_arch_name,
							TRACE_ARCH_X86_64, TRACE_ARCH_ARM64);
			break;
		case OPT_MODE:
			sess.mode = (uint8_t)parse_name("--mode", optarg, trace_mode_name,
							TRACE_MODE_WALL, TRACE_MODE_CPU);
			break;
		case OPT_SAMPLER:
			sess.sampler = (uint8_t)parse_name("--sampler", optarg, trace_sampler_name,
							   TRACE_SAMPLER_TICK, TRACE_SAMPLER_PERF);
			break;
		case OPT_KERNEL:
			sess.kernel = (uint8_t)parse_name("--kernel", optarg, trace_kernel_name,
							  TRACE_KERNEL_SAMPLED, TRACE_KERNEL_NOT_SAMPLED);
			break;
		case OPT_PARANOID:
			sess.kernel_paranoid = (uint8_t)parse_uint_opt("--paranoid", optarg, 0,
								       TRACE_PARANOID_UNKNOWN - 1);
			break;
		case OPT_PID:
			sess.pid = (uint32_t)parse_number("--pid", optarg, UINT32_MAX);
			break;
		case OPT_RATE:
			sess.rate_hz = (uint32_t)parse_uint_opt("--rate", optarg, 1, 1000000);
			break;
		case OPT_HOST:
			sess.host = optarg;
			break;
		case OPT_COMMAND:
			sess.argv = xgrow(sess.argv, &argv_cap, sess.argc + 1, sizeof(*sess.argv));
			sess.argv[sess.argc++] = optarg;
			break;
		case OPT_IMAGE:
			images = xgrow(images, &images_cap, nimages + 1, sizeof(*images));
			parse_image(optarg, nimages, sess.os, &images[nimages]);
			nimages++;
			break;
		case OPT_THREAD:
			threads = xgrow(threads, &threads_cap, nthreads + 1, sizeof(*threads));
			parse_thread(optarg, &threads[nthreads++]);
			break;
		case OPT_SAMPLE:
			samples = xgrow(samples, &samples_cap, nsamples + 1, sizeof(*samples));
			parse_sample(optarg, &samples[nsamples++]);
			break;
		case OPT_SKIP:
			if (!nsamples)
				usage_error("option '--skip' must follow a --sample");
			samples[nsamples - 1].skip = parse_number("--skip", optarg, 100000000);
			break;
		case OPT_COUNT:
			if (!nsamples)
				usage_error("option '--count' must follow a --sample");
			samples[nsamples - 1].count = parse_number("--count", optarg, 100000000);
			break;
		case OPT_EXIT:
			end.has_exit = 1;
			end.exit_status = (int32_t)parse_uint_opt("--exit", optarg, 0, 255) << 8;
			break;
		case OPT_MARK:
			marks = xgrow(marks, &marks_cap, nmarks + 1, sizeof(*marks));
			parse_mark(optarg, &marks[nmarks++]);
			break;
		case OPT_PAUSE:
			pauses = xgrow(pauses, &pauses_cap, npauses + 1, sizeof(*pauses));
			parse_pause(optarg, &pauses[npauses++]);
			break;
		case OPT_CODE:
			code = xgrow(code, &code_cap, ncode + 1, sizeof(*code));
			parse_code(optarg, &code[ncode++]);
			break;
		case ':':
			usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!out_path)
		usage_error("no output file (-o)");
	/* An image's arch defaults to the session's, whichever option came
	 * first; ids must be unique. */
	for (size_t i = 0; i < nimages; i++) {
		if (!images[i].arch)
			images[i].arch = sess.arch;
		for (size_t k = 0; k < i; k++)
			if (images[k].id == images[i].id)
				usage_error("option '--image': ID %u given twice", images[i].id);
	}
	for (size_t i = 0; i < nsamples; i++) {
		size_t k = 0;
		while (k < nthreads && threads[k].tid != samples[i].tid)
			k++;
		if (k == nthreads)
			usage_error("option '--sample': TID %u is not a --thread", samples[i].tid);
	}

	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno("cannot create '%s'", out_path);
	check(trace_writer_new(fd, &sess, &w), out_path);
	t = sess.start_monotonic_ns;
	check(trace_writer_process(w, 1, sess.pid, 0, t), out_path);
	check(trace_writer_process_exec(w, 1, t, sess.argc, sess.argv), out_path);
	period = 1000000000ull / sess.rate_hz;
	for (size_t i = 0; i < nimages; i++) {
		struct trace_image *img = &images[i];
		if (img->time_loaded)
			img->time_loaded = t + img->time_loaded * period;
		check(trace_writer_image(w, 1, img), out_path);
		if (img->time_unloaded)
			check(trace_writer_image_unload(w, img->id, t + img->time_unloaded * period),
			      out_path);
	}
	for (size_t i = 0; i < nthreads; i++) {
		check(trace_writer_thread_start(w, 1, threads[i].tid, t), out_path);
		if (threads[i].name)
			check(trace_writer_thread_name(w, threads[i].tid, t, threads[i].name), out_path);
	}
	for (size_t i = 0; i < nmarks; i++)
		check(trace_writer_mark(w, t + marks[i].at * period, marks[i].source, marks[i].name),
		      out_path);
	for (size_t i = 0; i < ncode; i++) {
		if (code[i].time)
			code[i].time = t + code[i].time * period;
		check(trace_writer_code(w, 1, &code[i]), out_path);
	}
	for (size_t i = 0; i < npauses; i++)
		check(trace_writer_pause(w, t + pauses[i].from * period, t + pauses[i].to * period),
		      out_path);
	for (size_t i = 0; i < nsamples; i++) {
		const struct sample_spec *s = &samples[i];
		t += s->skip * period;
		for (uint64_t k = 0; k < s->count; k++) {
			t += period;
			check(trace_writer_sample(w, t, s->tid, s->state, s->flags, s->addrs, s->naddrs),
			      out_path);
		}
	}
	end.time = t + period;
	check(trace_writer_finish(w, &end), out_path);
	trace_writer_free(w);
	if (close(fd) < 0)
		die_errno("cannot write '%s'", out_path);
	for (size_t i = 0; i < nsamples; i++)
		free(samples[i].addrs);
	free(samples);
	free(marks);
	free(pauses);
	free(code);
	free(threads);
	free(images);
	free(sess.argv);
	return 0;
}
