/*
 * session.c: one recording, from the options to the finished trace.
 *
 * The output is opened first, so a bad path fails before any process is
 * touched; then the engine chooses the mode and sampler, the command is
 * launched (held before its exec) or the process attached to, the session
 * is written, and the launched command let go. The loop runs until it
 * ends; the target is then let go whatever ended the run, and the trace
 * finished. A launched command's exit status becomes ours, the way a
 * shell reports it. A start that fails leaves the output as it found it
 * (the rule is at session_run).
 */
#include "session.h"
#include "control.h"
#include "engine.h"
#include "events.h"
#include "loop.h"
#include "output.h"
#include "common/diag.h"
#include "common/progress.h"
#include "format/trace_ident.h"
#include "format/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The variable that names the file of the launched program's marks. */
#define APP_MARKS_ENV "PROF_MARKS"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t pipe_broken;

/* The events' reader went away: write(2) says EPIPE, and the stream
 * ends, not the recording. */
static void on_sigpipe(int sig)
{
	(void)sig;
	pipe_broken = 1;
}

/* The event stream, and the last error said, for the end or error event. */
static struct events *events;
static char *events_trace;      /* the trace's absolute path, for events */
static char last_error[1024];

static void diag_heard(void *ctx, int level, const char *code, const char *msg)
{
	(void)ctx;
	if (level == DIAG_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	else
		events_warning(events, code, msg);
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The terminal's status line: prof-record's counters, four times a
 * second, while it records. */
static struct progress status_line;

/* The terminal's status line and the progress event, from the same
 * counters; ctx is the status line when the terminal shows it. */
static void show_progress(void *ctx, const struct loop_stats *st)
{
	char size[32];

	events_progress(events, st);
	if (!ctx)
		return;
	progress_bytes(st->bytes, size, sizeof(size));
	progress_show(ctx, "%.1fs  %llu samples  %llu threads  %llu lost  %s",
		      st->elapsed_ns / 1e9, (unsigned long long)st->samples,
		      (unsigned long long)st->live_threads, (unsigned long long)st->lost, size);
}

static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Prints why the attach to pid failed; returns -1. */
static int attach_failed(pid_t pid, int r)
{
	if (r == -ESRCH)
		return error("cannot attach to process %d: no such process", (int)pid);
	if (r == -EPERM)
		return error("cannot attach to process %d: %s; %s", (int)pid, strerror(EPERM), engine_attach_fix());
	return error("cannot attach to process %d: %s", (int)pid, prof_strerror(r));
}

static void catch_signals(void)
{
	struct sigaction sa;

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
}

/* Attaches to o->pid, checking that every -t names one of its threads.
 * Returns 0, or -1 after saying why, *t then set if the attach itself
 * succeeded (the caller lets it go). */
static int attach(const struct session_options *o, const struct engine_choice *ch, struct target **t)
{
	int r = engine_attach(ch, o->pid, t);

	if (r < 0)
		return attach_failed(o->pid, r);
	for (size_t i = 0; i < o->ntids; i++) {
		const uint32_t *live;
		size_t n = target_threads(*t, &live), k;
		for (k = 0; k < n && live[k] != o->tids[i]; k++)
			;
		if (k == n)
			return error("option '-t': %u is not a thread of process %d", o->tids[i], (int)o->pid);
	}
	return 0;
}

/* Frees a command line read from the process (target_cmdline()). */
static void free_cmdline(char **argv, uint32_t argc)
{
	if (!argv)
		return;
	for (uint32_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

static void summary(const struct session_options *o, const struct engine_choice *ch, int priority,
		    uint64_t began, const struct loop_stats *st, const char *wrote, const struct trace_end *end)
{
	/* The rate achieved: over the CPU time in cpu mode, the threads' time
	 * alive in wall mode. */
	double secs = ch->mode == TRACE_MODE_CPU ? (double)st->counters[TRACE_COUNTER_CPU_NS] / 1e9
						 : (double)st->thread_ns / 1e9;
	double achieved = secs > 0 ? (double)st->samples / secs : 0;
	int sampler = ch->sampler == ENGINE_SAMPLER_PERF ? TRACE_SAMPLER_PERF : TRACE_SAMPLER_TICK;
	char note[320];

	char procs[48] = "";

	if (st->processes > 1)
		snprintf(procs, sizeof(procs), "%llu processes, ", (unsigned long long)st->processes);
	if (!o->quiet)
		fprintf(stderr, "%s: %llu samples, %s%llu thread%s, %llu images, %llu lost, %s; %s\n",
			diag_progname(), (unsigned long long)st->samples, procs, (unsigned long long)st->threads,
			st->threads == 1 ? "" : "s", (unsigned long long)st->images, (unsigned long long)st->lost,
			wrote, engine_kernel_note(ch));
	/* A rate short of the one asked is said, with what held it back. */
	if (trace_rate_short(ch->mode, o->rate_hz, st->samples, secs, st->threads) ||
	    st->counters[TRACE_COUNTER_THROTTLED])
		warning_code("rate-short", "sampled at %.0f Hz of the %u Hz asked: %s", achieved, o->rate_hz,
			trace_rate_note(sampler, st->counters, o->rate_hz, st->samples, secs, note, sizeof(note)));
	/* What following children could not do, and the fix. */
	if (st->out_of_reach)
		warning_code("out-of-reach", "%llu process%s ran a program of another user (set-user-ID), which the kernel does not "
			"let this user sample: recorded until then, as prof-report info shows; run prof-record "
			"as root to follow such programs", (unsigned long long)st->out_of_reach,
			st->out_of_reach == 1 ? "" : "es");
	if (st->unprivileged)
		warning_code("unprivileged", "%llu set-user-ID or set-group-ID program%s ran without %s privileges, as the kernel "
			"runs a program traced by a user who may not trace it privileged, and may have acted "
			"otherwise: run prof-record as root, or use --sampler perf, which leaves a program its "
			"privileges but cannot sample it", (unsigned long long)st->unprivileged,
			st->unprivileged == 1 ? "" : "s", st->unprivileged == 1 ? "its" : "their");
	/* Losses are what a recorder at normal priority risks: said when it
	 * was asked for more and refused. */
	if (priority == TRACE_PRIORITY_REFUSED && st->lost)
		warning_code("priority-refused", "%llu samples lost while the recorder ran at normal priority, real-time priority %u "
			"having been refused: %s (or --realtime 0 to ask for normal priority)",
			(unsigned long long)st->lost, o->rt_priority, engine_priority_fix());

	if (!o->verbose)
		return;
	if (st->first_sample)
		fprintf(stderr, "%s: first sample %.3f s after the start\n", diag_progname(),
			(double)(st->first_sample - began) / 1e9);
	if (achieved)
		fprintf(stderr, "%s: rate: %u Hz asked, %.0f Hz achieved over %.3f s of %s time\n", diag_progname(),
			o->rate_hz, achieved, secs, ch->mode == TRACE_MODE_CPU ? "CPU" : "thread");
	if (priority == TRACE_PRIORITY_REALTIME)
		fprintf(stderr, "%s: recorder priority: real-time %u (SCHED_FIFO)\n", diag_progname(),
			o->rt_priority);
	else
		fprintf(stderr, "%s: recorder priority: normal%s\n", diag_progname(),
			priority == TRACE_PRIORITY_REFUSED ? " (real-time refused)" : "");
	if (ch->mode == TRACE_MODE_WALL && ch->sampler == ENGINE_SAMPLER_PERF)
		fprintf(stderr, "%s: stacks read off the CPU: %llu; intervals given the stack of an earlier one: %llu\n",
			diag_progname(), (unsigned long long)st->counters[TRACE_COUNTER_STACKS_READ],
			(unsigned long long)st->counters[TRACE_COUNTER_STACKS_REUSED]);
	fprintf(stderr, "%s: image files: %llu, each read once; %llu given a content hash, %.1f MiB read for it; "
		"%llu kept in the image cache\n", diag_progname(), (unsigned long long)st->image_files,
		(unsigned long long)st->files_hashed, (double)st->bytes_hashed / (1 << 20),
		(unsigned long long)st->images_kept);
	if (st->jit.maps || st->jit.dumps)
		fprintf(stderr, "%s: code compiled at run time: %llu ranges from %llu perf map%s, %llu from %llu "
			"jitdump%s; skipped: %llu malformed lines, %llu malformed records; names cut: %llu; "
			"jitdumps given up: %llu\n", diag_progname(), (unsigned long long)st->jit.map_ranges,
			(unsigned long long)st->jit.maps, st->jit.maps == 1 ? "" : "s",
			(unsigned long long)st->jit.dump_ranges, (unsigned long long)st->jit.dumps,
			st->jit.dumps == 1 ? "" : "s", (unsigned long long)st->jit.bad_lines,
			(unsigned long long)st->jit.bad_records, (unsigned long long)st->jit.cut,
			(unsigned long long)st->jit.dumps_unreadable);
	fprintf(stderr, "%s: threads vanished mid-sample: %llu\n", diag_progname(),
		(unsigned long long)st->counters[TRACE_COUNTER_THREADS_VANISHED]);
	for (int k = 0; k < TRACE_COUNTER__COUNT; k++)
		if (!strncmp(trace_counter_name(k), "stop-", 5))
			fprintf(stderr, "%s: unwind %s: %llu\n", diag_progname(), trace_counter_name(k),
				(unsigned long long)st->counters[k]);
	fprintf(stderr, "%s: stacks completed with their thread's outer frames: %llu\n", diag_progname(),
		(unsigned long long)st->counters[TRACE_COUNTER_STACKS_JOINED]);
	fprintf(stderr, "%s: leaf-scans (a leaf's caller found by searching the stack): %llu\n", diag_progname(),
		(unsigned long long)st->counters[TRACE_COUNTER_LEAF_SCANS]);
	if (end->has_exit)
		fprintf(stderr, "%s: target exit status %d\n", diag_progname(), shell_status(end->exit_status));
}

/* The refused lines said on stderr: a host that sends garbage gets its
 * first few said, and an error ack for every one. */
#define REFUSED_SAID 10

/* A command of the control channel, acknowledged, and if refused said,
 * and the recording goes on; a line of the app's marks that cannot be
 * one is said once. ctx counts the refusals of each source. */
static void command_heard(void *ctx, int source, const struct control_command *cmd, const char *refused)
{
	unsigned *refusals = ctx;

	if (source == TRACE_MARK_APP) {
		if (refused && !refusals[1]++)
			warning_code("app-mark-refused", "a line of $" APP_MARKS_ENV " is not a mark: %s "
				     "(each line is a name; later ones are not said)", refused);
		return;
	}
	events_ack(events, cmd, refused);
	if (refused && ++refusals[0] <= REFUSED_SAID)
		warning_code("control-refused", "control command '%s' refused: %s%s", cmd->word, refused,
			     refusals[0] == REFUSED_SAID ? " (later refusals are not said here; --events acks each)"
							 : "");
}

/* The file a launched program writes its marks to, one name a line,
 * named in its environment as $PROF_MARKS: created empty in $TMPDIR (or
 * /tmp), readable and writable by this user only, and removed at the
 * end. Without one (an unwritable $TMPDIR), the program runs without
 * $PROF_MARKS, which -v says. Returns the path, or NULL. */
static char *app_marks_open(const struct session_options *o, struct control **out)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd, r;

	path = xasprintf("%s/prof-marks.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	r = fd < 0 ? -errno : control_open_names(path, out);
	if (fd >= 0)
		close(fd);
	if (r == 0 && setenv(APP_MARKS_ENV, path, 1) < 0)
		r = -errno;
	if (r < 0) {
		if (o->verbose)
			fprintf(stderr, "%s: the command runs without $%s: '%s': %s\n", diag_progname(),
				APP_MARKS_ENV, path, strerror(-r));
		if (fd >= 0)
			unlink(path);
		control_free(*out);
		*out = NULL;
		free(path);
		return NULL;
	}
	return path;
}

/* Why the recording ended, as the end event says it. */
static const char *end_why(const struct loop_stats *st, const struct trace_end *end)
{
	switch (st->end) {
	case LOOP_END_STOP: return "stop";
	case LOOP_END_CANCEL: return "cancel";
	case LOOP_END_DURATION: return "duration";
	case LOOP_END_SIGNAL: return "interrupted";
	case LOOP_END_ERROR: return "error";
	default: return end->has_exit && WIFSIGNALED(end->exit_status) ? "signaled" : "exited";
	}
}

/* Whether process pid has ended: gone, or a child of ours that exited
 * (reaped here). */
static int process_ended(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, WNOHANG) == pid)
		return 1;
	return kill(pid, 0) < 0 && errno == ESRCH;
}

static void end_event(const char *trace, pid_t pid, const struct loop_stats *st,
		      const struct trace_end *end, uint64_t bytes, int kept, int failed)
{
	struct events_end ee = {
		.why = failed ? "error" : end_why(st, end),
		.has_exit = end->has_exit,
		.exit_code = !end->has_exit ? 0
			     : WIFSIGNALED(end->exit_status) ? WTERMSIG(end->exit_status)
							      : WEXITSTATUS(end->exit_status),
		.samples = st->samples,
		.lost = st->lost,
		.bytes = bytes,
		.trace = !kept ? NULL : events_trace ? events_trace : trace,
		/* a stop leaves the target running; a zombie counts as ended */
		.running = !end->has_exit && pid > 0 && !process_ended(pid),
	};

	if (!strcmp(ee.why, "error"))
		ee.error = last_error;
	events_end(events, &ee);
}

/* What the end of a recording says of each file it kept in the image
 * cache, or failed to. */
static void image_kept(void *ctx, const char *path, int err)
{
	const struct session_options *o = ctx;

	if (err < 0)
		warning_code("image-not-kept", "cannot keep '%s' in the image cache: %s; a report may not find it", path,
			prof_strerror(err));
	else if (o->verbose)
		fprintf(stderr, "%s: kept '%s'\n", diag_progname(), path);
}

/*
 * What a failure does to the output file, whatever the failure, is decided
 * here once:
 *  - Until the recording starts (the launched command runs its program,
 *    or the attached process's session is written), the file holds no
 *    recording of the target: a failure removes it if this run created
 *    it, and leaves an existing file (-f) as it was, since that is emptied
 *    only when the session is written, just before the command is let
 *    go. So only the session's write and the command's exec, the last
 *    steps before the start, can fail after an existing file was emptied;
 *    it is then removed too.
 *  - From the start on, the file is the recording: whatever ends it (the
 *    target, -d, a signal, a target error, a full disk), the trace is
 *    kept and finished as far as it can be, and a recorder killed
 *    outright leaves its whole chunks (trace_writer.c).
 * Every path leaves through out, which lets go of what was taken.
 */
int session_run(const struct session_options *o)
{
	struct output *out = NULL;
	struct target *t = NULL;
	struct trace_writer *w = NULL;
	struct source *src = NULL;
	struct control *control = NULL, *app_marks = NULL;
	char *app_marks_path = NULL;
	unsigned refusals[2] = { 0, 0 };  /* the control channel's, the app's */
	struct trace_session sess;
	struct engine_choice ch;
	struct loop_config cfg;
	struct loop_stats st;
	struct trace_end end;
	struct utsname un;
	char *cache = NULL, *host, *wrote;
	char **cmdline = NULL;  /* an attached process's, read from it: ours */
	char **cmd_argv = NULL; /* o->argv or cmdline, borrowed */
	uint32_t cmd_argc = 0, cmdline_argc = 0;
	const char *why = NULL;
	int launched = o->argv != NULL, started = 0, exec_errno = 0, status = 0, exit_code = 1, r, priority;
	pid_t pid = o->pid;
	uint64_t began = loop_now();

	if (o->events) {
		struct sigaction sa;

		if ((r = events_open(o->events, &events)) < 0) {
			error("cannot open the event stream '%s': %s", o->events,
			      r == -EINVAL ? "not a descriptor number"
			      : r == -ENXIO ? "a FIFO nobody reads (open it for reading first)" : strerror(-r));
			goto out;
		}
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigpipe;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
		diag_set_hook(diag_heard, NULL);
	}
	/* First: a process of hundreds of busy threads leaves a recorder at
	 * normal priority a sliver of the CPU, even to open its events. */
	priority = engine_priority(o->rt_priority);
	if (output_open(o, events, &out) < 0)
		goto out;
	if (events)
		events_trace = realpath(output_path(out), NULL);
	if (o->control && (r = control_open(o->control, &control)) < 0) {
		error("cannot open the control channel '%s': %s", o->control,
		      r == -EINVAL ? "not a descriptor number" : strerror(-r));
		goto out;
	}
	r = engine_choose(o, launched ? 0 : pid, &ch, &why);
	if (r < 0) {
		if (r == -ESRCH)
			error("cannot attach to process %d: no such process", (int)pid);
		else
			error("%s", why);
		goto out;
	}
	catch_signals();

	if (launched) {
		app_marks_path = app_marks_open(o, &app_marks);
		r = engine_launch(&ch, o->argv, &t);
		if (r < 0) {
			if (r == -EPERM)
				error("cannot launch '%s': %s; %s", o->argv[0], strerror(EPERM), engine_attach_fix());
			else
				error("cannot launch '%s': %s", o->argv[0], prof_strerror(r));
			goto out;
		}
		pid = target_pid(t);
		cmd_argv = o->argv;
		cmd_argc = o->argc;
	} else {
		if (attach(o, &ch, &t) < 0)
			goto out;
		if (target_cmdline(t, &cmdline, &cmdline_argc) < 0) {
			cmdline = NULL;
			cmdline_argc = 0;
		}
		cmd_argv = cmdline;
		cmd_argc = cmdline_argc;
	}

	/* The events of a launched command are opened before it runs. */
	r = engine_source(&ch, t, launched, &src, &why);
	if (r < 0) {
		error("cannot sample %s %d in %s mode: %s", launched ? "command" : "process", (int)pid,
		      trace_mode_name(ch.mode), why);
		goto out;
	}

	memset(&sess, 0, sizeof(sess));
	sess.os = (uint8_t)engine_os();
	sess.arch = (uint8_t)engine_arch();
	sess.mode = (uint8_t)ch.mode;
	sess.rate_hz = o->rate_hz;
	sess.pid = (uint32_t)pid;
	sess.sampler = ch.sampler == ENGINE_SAMPLER_PERF ? TRACE_SAMPLER_PERF : TRACE_SAMPLER_TICK;
	sess.kernel = (uint8_t)ch.kernel;
	sess.kernel_paranoid = (uint8_t)engine_paranoid(&ch);
	sess.priority = (uint8_t)priority;
	sess.rt_priority = (uint8_t)o->rt_priority;
	sess.start_realtime_ns = realtime_ns();
	sess.start_monotonic_ns = loop_now();
	sess.argc = cmd_argc;
	sess.argv = cmd_argv;
	if (output_claim(out) < 0)
		goto out;
	host = uname(&un) == 0 ? xasprintf("%s %s %s", un.sysname, un.release, un.machine) : xstrdup("");
	sess.host = host;
	r = output_writer(out, &sess, &w);
	free(host); /* the session is written; the writer keeps no pointer */
	if (r == 0)
		r = trace_writer_process(w, LOOP_PROCESS, sess.pid, 0, sess.start_monotonic_ns);
	if (r == 0)
		r = trace_writer_process_exec(w, LOOP_PROCESS, sess.start_monotonic_ns, cmd_argc, cmd_argv);
	if (r < 0) {
		error("cannot write '%s': %s", output_path(out), prof_strerror(r));
		goto out;
	}

	if (launched) {
		r = target_launch_exec(t, &exec_errno);
		if (r == TARGET_E_EXEC) {
			error("cannot run '%s': %s", o->argv[0], strerror(exec_errno));
			exit_code = exec_errno == ENOENT ? 127 : 126;
			goto out;
		}
		if (r < 0) {
			error("cannot launch '%s': %s", o->argv[0], prof_strerror(r));
			goto out;
		}
	}
	/* The recording starts: from here the trace is kept. */
	started = 1;
	exit_code = 0;
	if (!o->quiet)
		fprintf(stderr, "%s: sampling %s %d in %s mode at %u Hz\n", diag_progname(),
			launched ? "command" : "process", (int)pid, trace_mode_name(ch.mode), o->rate_hz);
	if (events) {
		struct events_start es = {
			.pid = (int)pid, .argc = cmd_argc, .argv = cmd_argv, .launched = launched,
			.mode = trace_mode_name(ch.mode), .sampler = trace_sampler_name(sess.sampler),
			.kernel = trace_kernel_name(ch.kernel), .kernel_why = engine_kernel_note(&ch),
			.rate_hz = o->rate_hz, .trace = events_trace ? events_trace : output_path(out), .realtime_ns = sess.start_realtime_ns,
		};
		events_start(events, &es);
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.rate_hz = o->rate_hz;
	cfg.duration_ns = o->duration_ns;
	cfg.max_depth = o->max_depth;
	cfg.tids = o->tids;
	cfg.ntids = o->ntids;
	cfg.stop = &stop_requested;
	cfg.launched = launched;
	cache = o->image_cache_max ? trace_ident_cache_dir() : NULL;
	if (cache) {
		cfg.image_cache = cache;
		cfg.image_cache_max = o->image_cache_max;
		cfg.keep_images = o->keep_images;
		cfg.image_kept = image_kept;
		cfg.image_kept_ctx = (void *)o;
	} else if (o->keep_images) {
		warning_code("keep-images-nothing", "--keep-images keeps nothing: %s", o->image_cache_max ? "no image cache (set $PROF_IMAGE_CACHE or $HOME)" : "--image-cache-max is 0");
	}
	progress_init(&status_line, progress_stderr(o->quiet));
	if (status_line.f || events) {
		cfg.progress = show_progress;
		cfg.progress_ctx = status_line.f ? &status_line : NULL;
	}
	cfg.control = control;
	cfg.app_marks = app_marks;
	cfg.command = command_heard;
	cfg.command_ctx = refusals;
	cfg.paused = o->paused;
	cfg.files_due = output_due;
	cfg.files = output_tick;
	cfg.ask = output_ask;
	cfg.crashed = output_crashed;
	cfg.files_ctx = out;
	r = loop_run(&cfg, t, src, w, &st);
	source_free(src);
	src = NULL;

	/* A stop or cancel leaves the target running: no wait for its end. */
	target_detach(t);
	memset(&end, 0, sizeof(end));
	if (target_exited(t, &status) ||
	    (launched && st.end != LOOP_END_STOP && st.end != LOOP_END_CANCEL &&
	     target_wait_exit(t, 300, &status))) {
		end.has_exit = 1;
		end.exit_status = status;
		if (launched)
			exit_code = shell_status(status);
	}
	end.time = loop_now();
	progress_release(&status_line);
	if (st.target_error) {
		error("recording of %s %d stopped: %s", launched ? "command" : "process", (int)pid,
		      prof_strerror(st.target_error));
		exit_code = 1;
	}
	if (r == 0 && st.end == LOOP_END_CANCEL) {
		/* Cancelled: the recording is thrown away, as one that never
		 * started is. */
		char *files = output_files(out);

		output_discard(out);
		if (!o->quiet)
			fprintf(stderr, "%s: cancelled; removed %s\n", diag_progname(), files);
		free(files);
		end_event(NULL, pid, &st, &end, trace_writer_bytes(w), 0, 0);
		goto out;
	}
	if (r < 0) {
		char *files = output_files(out);

		error("cannot write '%s': %s; the target was detached and what was written is kept (%s)",
		      output_path(out), prof_strerror(r), files);
		free(files);
		exit_code = 1;
	} else {
		if (end.has_exit)
			r = trace_writer_process_end(w, LOOP_PROCESS, end.time, TRACE_END_EXITED, end.exit_status);
		if (r == 0)
			r = output_finish(out, w, &end);
		if (r < 0) {
			error("cannot write '%s': %s", output_path(out), prof_strerror(r));
			exit_code = 1;
		}
	}
	wrote = output_summary(out, w);
	summary(o, &ch, priority, began, &st, wrote, &end);
	free(wrote);
	/* the file written last: of a rotated recording, its last part */
	if (events) {
		free(events_trace);
		events_trace = realpath(output_path(out), NULL);
	}
	end_event(output_path(out), pid, &st, &end, trace_writer_bytes(w), 1,
		  exit_code == 1 && (r < 0 || st.target_error));

out:
	if (events && !started)
		events_error(events, last_error, exit_code);
	diag_set_hook(NULL, NULL);
	events_free(events);
	events = NULL;
	free(events_trace);
	events_trace = NULL;
	source_free(src);
	control_free(control);
	control_free(app_marks);
	if (app_marks_path) {
		unlink(app_marks_path);
		unsetenv(APP_MARKS_ENV);
		free(app_marks_path);
	}
	if (t && !started)
		target_detach(t); /* a recording detached it already */
	trace_writer_free(w);
	if (out && !started)
		output_discard(out);
	output_free(out);
	target_free(t);
	free_cmdline(cmdline, cmdline_argc);
	free(cache);
	return exit_code;
}
