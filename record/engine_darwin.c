/*
 * engine_darwin.c: how macOS records.
 *
 * Wall mode only: each tick suspends the task and reads every thread
 * (sampler_tick.c over target_darwin.c). cpu mode needs perf_event, which
 * only Linux has, so --mode cpu is bad usage here.
 */
#include "engine.h"
#include "format/trace.h"

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
	if (o->mode == SESSION_MODE_CPU)
		return "option '--mode': cpu mode needs perf_event, which only Linux has; "
		       "use --mode wall, the default on macOS";
	return NULL;
}

int engine_choose(const struct session_options *o, pid_t pid, struct engine_choice *c,
		  const char **why)
{
	(void)o;
	(void)pid;
	(void)why;
	c->mode = TRACE_MODE_WALL;
	c->sampler = ENGINE_SAMPLER_MACH;
	return 0;
}

struct sampler_source *engine_source(const struct engine_choice *c, struct target *t)
{
	(void)c;
	return sampler_tick_new(t);
}

int engine_report(const struct engine_choice *c, const struct sampler_source *src, pid_t pid)
{
	(void)c;
	(void)src;
	(void)pid;
	return 0;
}
