/*
 * engine_darwin.c: how macOS records.
 *
 * Wall mode only: each tick suspends the task and reads every thread
 * (source_tick.c over target_darwin.c). cpu mode needs perf_event, which
 * only Linux has, so --mode cpu is bad usage here.
 */
#include "engine.h"
#include "format/trace.h"

#include <limits.h>

int engine_os(void) { return TRACE_OS_MACOS; }

int engine_arch(void)
{
#if defined(__arm64__) || defined(__aarch64__)
	return TRACE_ARCH_ARM64;
#else
	return TRACE_ARCH_X86_64;
#endif
}

const char *engine_attach_fix(void)
{
	return "task_for_pid was refused: sign prof-record with the "
	       "com.apple.security.cs.debugger entitlement (make sign), and profile a program "
	       "that has get-task-allow (debug builds do), or run as root";
}

const char *engine_usage(const struct session_options *o)
{
	if (o->mode == TRACE_MODE_CPU)
		return "option '--mode': cpu mode needs perf_event, which only Linux has; "
		       "use --mode wall, the default on macOS";
	if (o->sampler != ENGINE_SAMPLER_AUTO)
		return "option '--sampler': perf and ptrace are Linux's samplers; "
		       "macOS samples through the Mach task";
	return NULL;
}

const char *engine_max_rate(uint32_t *hz)
{
	(void)hz;
	return "option '-F': 'max' is Linux's kernel.perf_event_max_sample_rate; macOS has "
	       "no such limit, so give a rate in Hz";
}

int engine_choose(const struct session_options *o, pid_t pid, struct engine_choice *c,
		  const char **why)
{
	(void)pid;
	(void)why;
	c->mode = TRACE_MODE_WALL;
	c->sampler = ENGINE_SAMPLER_MACH;
	c->rate_hz = o->rate_hz;
	c->kernel = TRACE_KERNEL_NOT_SAMPLED;
	c->paranoid = INT_MIN;
	c->follow = 0;  /* a child's task port is not had (prof-record.1) */
	return 0;
}

int engine_launch(const struct engine_choice *c, char *const argv[], struct target **out)
{
	return target_launch(argv, c->follow, out);
}

int engine_attach(const struct engine_choice *c, pid_t pid, struct target **out)
{
	return target_attach(pid, c->follow, out);
}

int engine_source(const struct engine_choice *c, struct target *t, int launched, struct source **out,
		  const char **why)
{
	(void)c;
	(void)launched;
	(void)why;
	*out = source_tick_new(t);
	return 0;
}

const char *engine_kernel_note(const struct engine_choice *c)
{
	(void)c;
	return "kernel time not sampled: the Mach sampler sees user mode only";
}

int engine_paranoid(const struct engine_choice *c)
{
	(void)c;
	return TRACE_PARANOID_UNKNOWN;
}

/* The Mach sampler runs at the recorder's normal priority: macOS's
 * real-time class (thread_policy_set, THREAD_TIME_CONSTRAINT_POLICY)
 * is for periodic work of a known length, which sampling a task of
 * unknown size is not. */
int engine_priority(unsigned rt)
{
	(void)rt;
	return TRACE_PRIORITY_NORMAL;
}

const char *engine_priority_fix(void)
{
	return "macOS records at normal priority";
}
