/*
 * engine_linux.c: how Linux records.
 *
 * Both modes sample with perf_event (source_perf_linux.c) on an untraced
 * target, kernel mode too where kernel.perf_event_paranoid or the
 * capabilities allow it; wall mode needs that, for its context-switch
 * samples. Where perf_event is refused (or, for wall mode, kernel
 * sampling), the ptrace sampler stops each thread per tick (source_tick.c
 * over target_linux_ptrace.c), announced with the setting that refused
 * it. The default is cpu mode where perf_event_open is allowed on the
 * process, else wall mode. --sampler forces either sampler.
 */
#include "engine.h"
#include "source_perf.h"
#include "common/diag.h"
#include "format/trace.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

int engine_os(void) { return TRACE_OS_LINUX; }

int engine_arch(void)
{
#if defined(__aarch64__)
	return TRACE_ARCH_ARM64;
#else
	return TRACE_ARCH_X86_64;
#endif
}

const char *engine_attach_fix(void)
{
	return "check kernel.yama.ptrace_scope (sysctl kernel.yama.ptrace_scope=0) "
	       "or run with CAP_SYS_PTRACE, and that no debugger is attached";
}

const char *engine_usage(const struct session_options *o)
{
	if (o->sampler == ENGINE_SAMPLER_PTRACE && o->mode == TRACE_MODE_CPU)
		return "option '--sampler': the ptrace sampler records wall mode only; "
		       "use --mode wall, or --sampler perf for cpu mode";
	return NULL;
}

/* The sysctl at path as an int, or INT_MIN if it cannot be read. */
static int read_sysctl_int(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = INT_MIN;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = INT_MIN;
		fclose(f);
	}
	return v;
}

/* kernel.perf_event_paranoid, or INT_MIN if it cannot be read. */
static int read_paranoid(void)
{
	return read_sysctl_int("/proc/sys/kernel/perf_event_paranoid");
}

const char *engine_max_rate(uint32_t *hz)
{
	int v = read_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate");

	if (v <= 0)
		return "option '-F': 'max' is kernel.perf_event_max_sample_rate, which cannot be "
		       "read here; give a rate in Hz";
	*hz = (uint32_t)v;
	return NULL;
}

/* Why perf_event_open refused, with the fix named. */
static const char *perf_refusal(int r)
{
	static char msg[256];

	if (r == -EACCES || r == -EPERM)
		snprintf(msg, sizeof(msg), "perf_event_open refused: %s; check kernel.perf_event_paranoid "
			 "(sysctl kernel.perf_event_paranoid=2 allows a user's own processes) or run "
			 "with CAP_PERFMON", strerror(-r));
	else if (r == -ENOENT || r == -ENODEV || r == -ENOSYS || r == -EOPNOTSUPP)
		snprintf(msg, sizeof(msg), "perf_event is not available here: %s", prof_strerror(r));
	else
		snprintf(msg, sizeof(msg), "perf_event_open failed: %s", prof_strerror(r));
	return msg;
}

/* Kernel-mode sampling refused: the setting, its value and the fix. */
static const char *kernel_refusal(int paranoid)
{
	static char msg[256];

	if (paranoid == INT_MIN)
		snprintf(msg, sizeof(msg), "kernel.perf_event_paranoid cannot be read");
	else
		snprintf(msg, sizeof(msg), "kernel.perf_event_paranoid is %d", paranoid);
	snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
		 " (sysctl kernel.perf_event_paranoid=1, or run as root or with CAP_PERFMON)");
	return msg;
}

int engine_choose(const struct session_options *o, pid_t pid, struct engine_choice *c,
		  const char **why)
{
	static char msg[512];
	int r;

	c->mode = o->mode == TRACE_MODE_WALL ? TRACE_MODE_WALL : TRACE_MODE_CPU;
	c->sampler = ENGINE_SAMPLER_PTRACE;
	c->kernel = TRACE_KERNEL_NOT_SAMPLED;
	c->paranoid = read_paranoid();
	c->rate_hz = o->rate_hz;
	c->follow = !o->no_inherit;
	if (o->sampler == ENGINE_SAMPLER_PTRACE) {
		c->mode = TRACE_MODE_WALL;
		return 0;
	}
	r = source_perf_probe(pid, o->rate_hz, 1);
	if (r == 0) {
		c->kernel = TRACE_KERNEL_SAMPLED;
	} else if (r == -EACCES || r == -EPERM) {
		r = source_perf_probe(pid, o->rate_hz, 0);
		c->kernel = TRACE_KERNEL_REFUSED;
	}
	if (r == -ESRCH)
		return r;
	/* Wall mode learns of the time off the CPU from context switches,
	 * which are taken in the kernel: without kernel sampling rights,
	 * the ptrace sampler does it. The kernel's refusal stays the reason
	 * kernel time is not sampled, in the summary and the trace, in this
	 * fallback and the next, where the setting refused perf_event. */
	if (r == 0 && c->mode == TRACE_MODE_WALL && c->kernel != TRACE_KERNEL_SAMPLED) {
		if (o->sampler == ENGINE_SAMPLER_PERF) {
			snprintf(msg, sizeof(msg), "wall mode with perf_event needs kernel sampling, and %s; "
				 "or use --sampler ptrace", kernel_refusal(c->paranoid));
			*why = msg;
			return -1;
		}
		warning_code("fallback-ptrace", "wall mode with perf_event needs kernel sampling, and %s; falling back to the "
			"ptrace sampler, which stops every thread at each tick", kernel_refusal(c->paranoid));
		return 0;
	}
	if (r < 0 && (o->mode == TRACE_MODE_CPU || o->sampler == ENGINE_SAMPLER_PERF)) {
		if (r == SOURCE_PERF_E_RATE)
			snprintf(msg, sizeof(msg), "%s mode: -F %u is above kernel.perf_event_max_sample_rate; "
				 "lower -F or raise the sysctl", trace_mode_name(c->mode), o->rate_hz);
		else
			snprintf(msg, sizeof(msg), "%s mode: %s; or use %s", trace_mode_name(c->mode),
				 perf_refusal(r), o->sampler == ENGINE_SAMPLER_PERF ? "--sampler ptrace"
										     : "--mode wall");
		*why = msg;
		return -1;
	}
	if (r < 0) {
		warning_code("fallback-wall", "%s; falling back to wall mode with the ptrace sampler", perf_refusal(r));
		c->mode = TRACE_MODE_WALL;
		return 0;
	}
	c->sampler = ENGINE_SAMPLER_PERF;
	return 0;
}

int engine_launch(const struct engine_choice *c, char *const argv[], struct target **out)
{
	return c->sampler == ENGINE_SAMPLER_PERF ? target_launch_untraced(argv, out)
						  : target_launch(argv, c->follow, out);
}

/* The process tracing process pid (its TracerPid), or 0: none, or not
 * known. */
static long tracer_of(pid_t pid)
{
	char path[64], line[256];
	long tracer = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

int engine_attach(const struct engine_choice *c, pid_t pid, struct target **out)
{
	long tracer;

	if (c->sampler != ENGINE_SAMPLER_PERF)
		return target_attach(pid, c->follow, out);
	/* Wall mode reads the threads blocked at the start through ptrace,
	 * which a process traced already refuses: said, since a thread that
	 * never runs again is then never sampled. */
	if (c->mode == TRACE_MODE_WALL && (tracer = tracer_of(pid)) > 0)
		warning_code("traced-by-other", "process %d is traced by process %ld, so its threads blocked now cannot be read: "
			"each is sampled from when it next runs", (int)pid, tracer);
	return target_attach_untraced(pid, out);
}

int engine_source(const struct engine_choice *c, struct target *t, int launched, struct source **out,
		  const char **why)
{
	struct source_perf_options po = { .rate_hz = c->rate_hz, .kernel = c->kernel == TRACE_KERNEL_SAMPLED,
					   .launched = launched, .wall = c->mode == TRACE_MODE_WALL,
					   .follow = c->follow };
	int r;

	if (c->sampler != ENGINE_SAMPLER_PERF) {
		*out = source_tick_new(t);
		return 0;
	}
	r = source_perf_new(t, &po, out);
	if (r < 0)
		*why = perf_refusal(r);
	return r;
}

/* SCHED_FIFO, which the kernel lets a task take only with CAP_SYS_NICE or
 * an RLIMIT_RTPRIO of at least rt; SCHED_RESET_ON_FORK gives a launched
 * command the normal policy back. */
int engine_priority(unsigned rt)
{
	struct sched_param sp = { .sched_priority = (int)rt };

	if (!rt)
		return TRACE_PRIORITY_NORMAL;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		return TRACE_PRIORITY_REFUSED;
	return TRACE_PRIORITY_REALTIME;
}

const char *engine_priority_fix(void)
{
	return "run as root or with CAP_SYS_NICE, or raise RLIMIT_RTPRIO (ulimit -r)";
}

const char *engine_kernel_note(const struct engine_choice *c)
{
	static char msg[320];

	switch (c->kernel) {
	case TRACE_KERNEL_SAMPLED:
		return "kernel time sampled, each tick on the user stack that entered the kernel";
	case TRACE_KERNEL_REFUSED:
		snprintf(msg, sizeof(msg), "kernel time not sampled: %s", kernel_refusal(c->paranoid));
		return msg;
	default:
		return "kernel time not sampled: the ptrace sampler sees user mode only";
	}
}

int engine_paranoid(const struct engine_choice *c)
{
	return c->paranoid >= 0 && c->paranoid < TRACE_PARANOID_UNKNOWN ? c->paranoid : TRACE_PARANOID_UNKNOWN;
}
