/*
 * engine.h: what the record session asks of its platform.
 *
 * Each platform has one file that answers: engine_linux.c (perf_event,
 * with ptrace as the fallback) and engine_darwin.c (the Mach task). They
 * say which system and architecture the trace is of, how a refused attach
 * is fixed, which mode and sampler a recording uses (announcing any
 * fallback), and give the source of samples the loop runs. Part of the
 * command body, like session.c: they may print warnings.
 */
#ifndef RECORD_ENGINE_H
#define RECORD_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/loop.h"
#include "record/session.h"
#include "record/target.h"

/* The sampler a recording uses. */
enum engine_sampler {
	ENGINE_SAMPLER_AUTO,    /* the platform's choice */
	ENGINE_SAMPLER_PERF,    /* Linux perf_event */
	ENGINE_SAMPLER_PTRACE,  /* Linux ptrace, stopping each thread per tick */
	ENGINE_SAMPLER_MACH,    /* macOS, suspending the task per tick */
};

/* What engine_choose() decided. */
struct engine_choice {
	int mode;               /* enum trace_mode: WALL or CPU, never UNKNOWN */
	int sampler;            /* enum engine_sampler, never AUTO */
	uint32_t rate_hz;
	int kernel;             /* enum trace_kernel */
	int paranoid;           /* kernel.perf_event_paranoid (Linux), INT_MIN if not read */
	int follow;             /* the processes it starts are recorded too */
};

/* enum trace_os and enum trace_arch of what this build records. */
int engine_os(void);
int engine_arch(void);
/* How a refused attach is fixed, for the error message. */
const char *engine_attach_fix(void);
/* Why these options cannot be used on this platform (a usage error), or
 * NULL if they can. */
const char *engine_usage(const struct session_options *o);
/* -F max: sets *hz to the highest rate the kernel allows (Linux's
 * kernel.perf_event_max_sample_rate) and returns NULL, or returns why this
 * platform has no such rate (a usage error). */
const char *engine_max_rate(uint32_t *hz);
/* Chooses the mode and sampler for process pid (0: a command to launch),
 * before it is touched: o->mode if asked, else the platform's default (cpu
 * where it can, else wall); a fallback is announced. Returns 0, -ESRCH when
 * there is no such process, or -1 when the choice was refused, with the
 * reason and its fix in *why (a static string). */
int engine_choose(const struct session_options *o, pid_t pid, struct engine_choice *c,
		  const char **why);
/* Launches argv or attaches to pid as c samples: traced for a tick
 * source, untraced for perf_event (in wall mode with a warning if pid is
 * traced already, so that its blocked threads cannot be read at the
 * start). Returns as target_launch() and target_attach() do. */
int engine_launch(const struct engine_choice *c, char *const argv[], struct target **out);
int engine_attach(const struct engine_choice *c, pid_t pid, struct target **out);
/* The source of samples for c on target t, launched (before its exec) or
 * attached: 0 with *out set (source_free() frees it), or a
 * negative error with the reason and its fix in *why (a static string). */
int engine_source(const struct engine_choice *c, struct target *t, int launched, struct source **out,
		  const char **why);
/* Raises the recorder to real-time priority rt (0: leaves it at normal
 * priority), for itself only: what it forks or launches runs at the
 * priority it would have had. Returns the enum trace_priority it got. */
int engine_priority(unsigned rt);
/* The fix for a real-time priority refused, for a message. */
const char *engine_priority_fix(void);
/* The summary's word on kernel time: sampled, or why not and the fix. */
const char *engine_kernel_note(const struct engine_choice *c);
/* c's paranoid value as trace_session.kernel_paranoid has it. */
int engine_paranoid(const struct engine_choice *c);

#endif
