/*
 * main.c: the prof-record command line.
 *
 * Parses options, opens the output before touching any process (so a bad
 * path fails early and harmlessly), attaches or launches, hands over to the
 * sampler, then detaches and finishes the trace whatever ended the run. A
 * launched command's exit status becomes ours, the way a shell reports it.
 */
#include "common/diag.h"
#include "common/parse.h"
#include "format/trace.h"
#include "record/perf_sampler.h"
#include "record/sampler.h"
#include "record/target.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: prof-record [-fqv] [-o file] [-F hz] [-d seconds] [-t tid] [--max-depth n]\n"
	"                   [--mode wall|cpu] -- command [arg ...]\n"
	"       prof-record [-fqv] [-o file] [-F hz] [-d seconds] [-t tid] [--max-depth n]\n"
	"                   [--mode wall|cpu] -p pid\n"
	"       prof-record -h | --help\n"
	"       prof-record --version\n"
	"\n"
	"  -o file          write the trace to file (default prof.trace)\n"
	"  -f               overwrite the file if it exists\n"
	"  -F hz            sampling rate (default 997)\n"
	"  -d seconds       stop after this long\n"
	"  -p pid           attach to a running process\n"
	"  -t tid           sample only this thread (repeatable)\n"
	"  --max-depth n    stack depth cap (default 1024)\n"
	"  -q               quiet: no announcement, status or summary\n"
	"  -v               more detail\n"
	"  --mode wall|cpu  cpu (on-CPU time only, with Linux's perf_event; lowest\n"
	"                   overhead; the default where perf_event is allowed) or\n"
	"                   wall (every thread, blocked ones too; the default\n"
	"                   otherwise, and the only mode on macOS)\n"
	"  -h, --help       show this help\n"
	"  --version        show the version and the trace format version\n";

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void DIAG_NORETURN usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", diag_progname());
	fprintf(stderr, fmt, arg);
	fputs("\nusage: prof-record [options] -- command [arg ...]\n"
	      "       prof-record [options] -p pid\n"
	      "try 'prof-record --help' for more\n", stderr);
	exit(2);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void human_bytes(uint64_t n, char *out, size_t len)
{
	if (n < 10240)
		snprintf(out, len, "%llu B", (unsigned long long)n);
	else if (n < 10u << 20)
		snprintf(out, len, "%.1f KiB", n / 1024.0);
	else
		snprintf(out, len, "%.1f MiB", n / 1048576.0);
}

static int status_shown;

static void show_progress(void *ctx, const struct sampler_stats *st)
{
	char size[32];
	(void)ctx;
	human_bytes(st->bytes, size, sizeof(size));
	fprintf(stderr, "\r%s: %.1fs  %llu samples  %llu threads  %llu lost  %s\033[K",
		diag_progname(), st->elapsed_ns / 1e9, (unsigned long long)st->samples,
		(unsigned long long)st->live_threads, (unsigned long long)st->lost, size);
	status_shown = 1;
}

static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Removes a trace that holds nothing worth keeping, but only a regular
 * file: -f may have pointed us at a device. */
static void discard_output(int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

static int open_output(const char *path, int force)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
	int fd = open(path, flags, 0600);
	struct stat st;

	if (fd < 0 && errno == EEXIST)
		die("cannot create '%s': File exists (use -f to overwrite it)", path);
	if (fd < 0)
		die_errno("cannot create '%s'", path);
	/* An overwritten file keeps its old mode: make it private too. Only
	 * a regular file: -f may point at a device such as /dev/null. */
	if (force && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fchmod(fd, 0600) < 0)
		die_errno("cannot change the mode of '%s'", path);
	return fd;
}

/* The modes. AUTO, the default, is cpu where perf_event is allowed, else
 * wall, with the fallback announced. */
enum { MODE_AUTO, MODE_WALL, MODE_CPU };

/*
 * What differs by platform, in one place: the trace's system and
 * architecture, how a refused attach is fixed, and the modes. cpu mode
 * samples with perf_event, which only Linux has; on macOS wall mode
 * (task_suspend2 and thread_get_state) is the only one.
 */
#ifdef __APPLE__
#define RECORD_OS TRACE_OS_MACOS
#if defined(__arm64__)
#define RECORD_ARCH TRACE_ARCH_ARM64
#else
#define RECORD_ARCH TRACE_ARCH_X86_64
#endif
#define ATTACH_REFUSED_FIX "task_for_pid was refused: sign prof-record with the " \
	"com.apple.security.cs.debugger entitlement (make sign), and profile a program " \
	"that has get-task-allow (debug builds do), or run as root"

/* Wall mode; --mode cpu is bad usage here. */
static int choose_mode(int mode, pid_t pid, uint32_t rate, int fd, const char *out_path)
{
	if (mode == MODE_CPU) {
		discard_output(fd, out_path);
		usage_error("option '--mode': %s", "cpu mode needs perf_event, which only Linux has; "
			    "use --mode wall, the default on macOS");
	}
	return MODE_WALL;
}

static int run_mode(int mode, const struct sampler_config *cfg, struct target *t, struct trace_writer *w,
		    struct sampler_stats *st, pid_t pid, int *exit_code)
{
	return sampler_run(cfg, t, w, st);
}
#else
#define RECORD_OS TRACE_OS_LINUX
#if defined(__aarch64__)
#define RECORD_ARCH TRACE_ARCH_ARM64
#else
#define RECORD_ARCH TRACE_ARCH_X86_64
#endif
#define ATTACH_REFUSED_FIX "check kernel.yama.ptrace_scope (sysctl kernel.yama.ptrace_scope=0) " \
	"or run with CAP_SYS_PTRACE, and that no debugger is attached"

/* Why perf_event_open refused, with the fix named. */
static const char *perf_refusal(int r)
{
	static char msg[256];

	if (r == -EACCES || r == -EPERM)
		snprintf(msg, sizeof(msg), "perf_event_open refused: %s; check kernel.perf_event_paranoid "
			 "(sysctl kernel.perf_event_paranoid=2 allows a user's own processes) or run "
			 "with CAP_PERFMON", strerror(-r));
	else if (r == -ENOENT || r == -ENODEV || r == -ENOSYS || r == -EOPNOTSUPP)
		snprintf(msg, sizeof(msg), "perf_event is not available here: %s", perf_sampler_strerror(r));
	else
		snprintf(msg, sizeof(msg), "perf_event_open failed: %s", perf_sampler_strerror(r));
	return msg;
}

/* Whether perf_event may sample the process (0: the one to be launched),
 * before touching it: cpu mode if so, else wall mode, announced, unless
 * cpu mode was asked for. */
static int choose_mode(int mode, pid_t pid, uint32_t rate, int fd, const char *out_path)
{
	int r;

	if (mode == MODE_WALL)
		return mode;
	r = perf_sampler_probe(pid, rate);
	if (r == -ESRCH) {
		discard_output(fd, out_path);
		die("cannot attach to process %d: no such process", (int)pid);
	}
	if (r < 0 && mode == MODE_CPU) {
		discard_output(fd, out_path);
		if (r == PERF_SAMPLER_E_RATE)
			die("cpu mode: -F %u is above kernel.perf_event_max_sample_rate; "
			    "lower -F or raise the sysctl", rate);
		die("cpu mode: %s; or use --mode wall", perf_refusal(r));
	}
	if (r < 0) {
		warning("%s; falling back to wall mode", perf_refusal(r));
		return MODE_WALL;
	}
	return MODE_CPU;
}

/* Samples in the chosen mode; a cpu-mode refusal met on the way is
 * reported, and *exit_code set to 1 if nothing could be sampled. */
static int run_mode(int mode, const struct sampler_config *cfg, struct target *t, struct trace_writer *w,
		    struct sampler_stats *st, pid_t pid, int *exit_code)
{
	int perf_err = 0, r;

	if (mode != MODE_CPU)
		return sampler_run(cfg, t, w, st);
	r = perf_sampler_run(cfg, t, w, st, &perf_err);
	if (r == 0 && perf_err && !st->threads) {
		error("cpu mode: process %d: %s", (int)pid, perf_refusal(perf_err));
		*exit_code = 1;
	} else if (r == 0 && perf_err) {
		warning("cpu mode: some threads are not sampled: %s", perf_refusal(perf_err));
	}
	return r;
}
#endif

static void attach_failed(pid_t pid, int r)
{
	if (r == -ESRCH)
		die("cannot attach to process %d: no such process", (int)pid);
	if (r == -EPERM)
		die("cannot attach to process %d: %s; %s", (int)pid, strerror(EPERM), ATTACH_REFUSED_FIX);
	die("cannot attach to process %d: %s", (int)pid, target_strerror(r));
}

enum { OPT_MAX_DEPTH = 256, OPT_MODE, OPT_VERSION };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = "prof.trace";
	int force = 0, quiet = 0, verbose = 0, c, fd, r, exit_code = 0;
	uint32_t rate = 997, *tids = NULL;
	uint64_t duration = 0;
	size_t max_depth = 1024, ntids = 0, tids_cap = 0;
	pid_t pid = 0;
	struct target *t = NULL;
	struct trace_writer *w = NULL;
	struct trace_session sess;
	struct sampler_config cfg;
	struct sampler_stats st;
	struct trace_end end;
	struct utsname un;
	struct sigaction sa;
	char **cmd_argv = NULL, *host;
	uint32_t cmd_argc = 0;
	int launched, exec_errno = 0, status = 0, mode = MODE_AUTO;

	diag_set_progname("prof-record");
	opterr = 0;  /* our own messages, in our own voice */
	while ((c = getopt_long(argc, argv, "+:o:fF:d:p:t:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'F':
			rate = (uint32_t)parse_uint_opt("-F", optarg, 1, 100000);
			break;
		case 'd':
			duration = parse_seconds_opt("-d", optarg, 1e6);
			if (!duration)
				usage_error("option '-d': '%s' must be more than zero seconds", optarg);
			break;
		case 'p':
			pid = (pid_t)parse_uint_opt("-p", optarg, 1, 0x7fffffff);
			break;
		case 't':
			tids = xgrow(tids, &tids_cap, ntids + 1, sizeof(*tids));
			tids[ntids++] = (uint32_t)parse_uint_opt("-t", optarg, 1, 0x7fffffff);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case OPT_MAX_DEPTH:
			max_depth = (size_t)parse_uint_opt("--max-depth", optarg, 1, 65536);
			break;
		case OPT_MODE:
			if (strcmp(optarg, "cpu") == 0)
				mode = MODE_CPU;
			else if (strcmp(optarg, "wall") == 0)
				mode = MODE_WALL;
			else
				usage_error("option '--mode': '%s' is not wall or cpu", optarg);
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
	launched = optind < argc;
	if (launched && pid)
		usage_error("%s", "give either -p PID or a COMMAND, not both");
	if (!launched && !pid)
		usage_error("%s", "give a COMMAND to launch or -p PID to attach to");

	fd = open_output(out_path, force);

	mode = choose_mode(mode, launched ? 0 : pid, rate, fd, out_path);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;  /* no SA_RESTART: sleeps end early */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Past RLIMIT_FSIZE, a write then fails with EFBIG, reported as a
	 * full disk is, instead of SIGXFSZ killing us mid-chunk. Caught, not
	 * ignored, so that exec resets it for a launched command. */
	sigaction(SIGXFSZ, &sa, NULL);

	if (launched) {
		r = target_launch(argv + optind, &t);
		if (r < 0) {
			discard_output(fd, out_path);
			if (r == -EPERM)
				die("cannot launch '%s': %s; %s", argv[optind], strerror(EPERM), ATTACH_REFUSED_FIX);
			die("cannot launch '%s': %s", argv[optind], target_strerror(r));
		}
		pid = target_pid(t);
		cmd_argv = argv + optind;
		cmd_argc = (uint32_t)(argc - optind);
	} else {
		r = target_attach(pid, &t);
		if (r < 0) {
			discard_output(fd, out_path);
			attach_failed(pid, r);
		}
		for (size_t i = 0; i < ntids; i++) {
			const uint32_t *live;
			size_t n = target_threads(t, &live), k;
			for (k = 0; k < n && live[k] != tids[i]; k++)
				;
			if (k == n) {
				target_detach(t);
				target_free(t);
				discard_output(fd, out_path);
				die("option '-t': %u is not a thread of process %d", tids[i], (int)pid);
			}
		}
		if (target_cmdline(t, &cmd_argv, &cmd_argc) < 0) {
			cmd_argv = NULL;
			cmd_argc = 0;
		}
	}

	memset(&sess, 0, sizeof(sess));
	sess.os = RECORD_OS;
	sess.arch = RECORD_ARCH;
	sess.mode = mode == MODE_CPU ? TRACE_MODE_CPU : TRACE_MODE_WALL;
	sess.rate_hz = rate;
	sess.pid = (uint32_t)pid;
	sess.start_realtime_ns = realtime_ns();
	sess.start_monotonic_ns = sampler_now();
	host = uname(&un) == 0 ? xasprintf("%s %s %s", un.sysname, un.release, un.machine) : xstrdup("");
	sess.host = host;
	sess.argc = cmd_argc;
	sess.argv = cmd_argv;
	r = trace_writer_new(fd, &sess, &w);
	free(host); /* the session is written; the writer keeps no pointer */
	if (r < 0) {
		target_detach(t);
		target_free(t);
		die("cannot write '%s': %s", out_path, trace_strerror(r));
	}

	if (launched) {
		r = target_launch_exec(t, &exec_errno);
		if (r == TARGET_E_EXEC) {
			error("cannot run '%s': %s", argv[optind], strerror(exec_errno));
			trace_writer_free(w);
			discard_output(fd, out_path);
			close(fd);
			target_free(t);
			return exec_errno == ENOENT ? 127 : 126;
		}
		if (r < 0) {
			target_detach(t);
			die("cannot launch '%s': %s", argv[optind], target_strerror(r));
		}
	}
	if (!quiet)
		fprintf(stderr, "%s: sampling %s %d in %s mode at %u Hz\n", diag_progname(),
			launched ? "command" : "process", (int)pid, mode == MODE_CPU ? "cpu" : "wall",
			rate);

	memset(&cfg, 0, sizeof(cfg));
	cfg.rate_hz = rate;
	cfg.duration_ns = duration;
	cfg.max_depth = max_depth;
	cfg.tids = tids;
	cfg.ntids = ntids;
	cfg.stop = &stop_requested;
	if (!quiet && isatty(STDERR_FILENO))
		cfg.progress = show_progress;
	r = run_mode(mode, &cfg, t, w, &st, pid, &exit_code);

	target_detach(t);
	memset(&end, 0, sizeof(end));
	if (target_exited(t, &status) || (launched && target_wait_exit(t, 300, &status))) {
		end.has_exit = 1;
		end.exit_status = status;
		if (launched && !exit_code)
			exit_code = shell_status(status);
	}
	end.time = sampler_now();
	if (status_shown)
		fputs("\r\033[K", stderr);
	if (r < 0) {
		error("cannot write '%s': %s; the target was detached and what was written is kept",
		      out_path, trace_strerror(r));
		exit_code = 1;
	} else {
		r = trace_writer_finish(w, &end);
		if (r == 0 && close(fd) < 0)
			r = -errno;
		fd = -1;
		if (r < 0) {
			error("cannot write '%s': %s", out_path, trace_strerror(r));
			exit_code = 1;
		}
	}
	if (!quiet) {
		uint64_t bytes = trace_writer_bytes(w);
		fprintf(stderr, "%s: %llu samples, %llu thread%s, %llu images, %llu lost, %.1f bytes/sample, wrote '%s'\n",
			diag_progname(), (unsigned long long)st.samples, (unsigned long long)st.threads,
			st.threads == 1 ? "" : "s", (unsigned long long)st.images, (unsigned long long)st.lost,
			st.samples ? (double)bytes / (double)st.samples : 0.0, out_path);
	}
	if (verbose) {
		fprintf(stderr, "%s: threads vanished mid-sample: %llu\n", diag_progname(),
			(unsigned long long)st.counters[TRACE_COUNTER_THREADS_VANISHED]);
		for (int k = TRACE_COUNTER_STOP_END; k <= TRACE_COUNTER_STOP_DEPTH; k++)
			fprintf(stderr, "%s: unwind %s: %llu\n", diag_progname(), trace_counter_name(k),
				(unsigned long long)st.counters[k]);
		if (end.has_exit)
			fprintf(stderr, "%s: target exit status %d\n", diag_progname(), shell_status(status));
	}
	trace_writer_free(w);
	if (fd >= 0)
		close(fd);
	target_free(t);
	if (!launched && cmd_argv) {
		for (uint32_t i = 0; i < cmd_argc; i++)
			free(cmd_argv[i]);
		free(cmd_argv);
	}
	free(tids);
	return exit_code;
}
