/*
 * engine_linux.c: how Linux records.
 *
 * cpu mode samples with perf_event (sampler_perf_linux.c); wall mode stops
 * each thread per tick through ptrace (sampler_tick.c over
 * target_linux_ptrace.c). The default is cpu mode where perf_event_open
 * is allowed on the process, else wall mode, announced with the setting
 * that refused it.
 */
#include "engine.h"
#include "sampler_perf.h"
#include "common/diag.h"
#include "format/trace.h"

#include <errno.h>
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
	(void)o;
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

int engine_choose(const struct session_options *o, pid_t pid, struct engine_choice *c,
		  const char **why)
{
	static char msg[512];
	int r;

	c->mode = TRACE_MODE_WALL;
	c->sampler = ENGINE_SAMPLER_PTRACE;
	if (o->mode == SESSION_MODE_WALL)
		return 0;
	r = sampler_perf_probe(pid, o->rate_hz);
	if (r == -ESRCH)
		return r;
	if (r < 0 && o->mode == SESSION_MODE_CPU) {
		if (r == SAMPLER_PERF_E_RATE)
			snprintf(msg, sizeof(msg), "cpu mode: -F %u is above kernel.perf_event_max_sample_rate; "
				 "lower -F or raise the sysctl", o->rate_hz);
		else
			snprintf(msg, sizeof(msg), "cpu mode: %s; or use --mode wall", perf_refusal(r));
		*why = msg;
		return -1;
	}
	if (r < 0) {
		warning("%s; falling back to wall mode", perf_refusal(r));
		return 0;
	}
	c->mode = TRACE_MODE_CPU;
	c->sampler = ENGINE_SAMPLER_PERF;
	return 0;
}

struct sampler_source *engine_source(const struct engine_choice *c, struct target *t)
{
	return c->sampler == ENGINE_SAMPLER_PERF ? sampler_perf_new(t) : sampler_tick_new(t);
}

int engine_report(const struct engine_choice *c, const struct sampler_source *src, pid_t pid)
{
	size_t opened;
	int err;

	if (c->sampler != ENGINE_SAMPLER_PERF)
		return 0;
	err = sampler_perf_error(src, &opened);
	if (err && !opened) {
		error("cpu mode: process %d: %s", (int)pid, perf_refusal(err));
		return 1;
	}
	if (err)
		warning("cpu mode: some threads are not sampled: %s", perf_refusal(err));
	return 0;
}
