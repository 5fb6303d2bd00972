/*
 * session.h: one recording, from the options to the finished trace.
 *
 * This is prof-record's command body (record/main.c only parses the
 * options): it opens the output before touching any process, lets the
 * platform's engine (engine.h) choose how to sample, launches or attaches,
 * writes the session, runs the loop (loop.h), then lets the target go
 * and finishes the trace whatever ended the run. Like a prof-report cmd_*
 * file, it reports to the user itself: the announcement, fallbacks,
 * errors that name their fix, and the summary.
 */
#ifndef RECORD_SESSION_H
#define RECORD_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct session_options {
	const char *out_path;
	int force, quiet, verbose;
	uint32_t rate_hz;
	uint64_t duration_ns;       /* 0: until the end */
	size_t max_depth;
	const uint32_t *tids;       /* -t, ntids of them (borrowed) */
	size_t ntids;
	pid_t pid;                  /* -p, or 0 to launch */
	char **argv;                /* the command to launch (borrowed), or NULL */
	uint32_t argc;
	int mode;                   /* --mode: enum trace_mode (format/trace.h);
	                             * TRACE_MODE_UNKNOWN when not asked, for
	                             * the platform's choice (engine.h) */
	int sampler;                /* enum engine_sampler (engine.h) */
	unsigned rt_priority;       /* --realtime: the recorder's real-time
	                             * priority, 0 for normal */
	int no_inherit;             /* --no-inherit: the process alone, not
	                             * the processes it starts */
	int keep_images;            /* --keep-images: every image with samples
	                             * kept in the image cache */
	uint64_t image_cache_max;   /* --image-cache-max, bytes; 0 keeps none */
	const char *control;        /* --control PATH|fd:N, or NULL */
	const char *events;         /* --events PATH|fd:N, or NULL */
	int paused;                 /* --paused: start with sampling paused */
	/* Long recordings (output.h). */
	uint64_t switch_ns;         /* --switch-output TIME, or 0 */
	uint64_t switch_bytes;      /* --switch-output SIZE, or 0 */
	int switch_signal;          /* --switch-output signal */
	uint32_t max_files;         /* --switch-max-files, or 0 for all */
	uint64_t ring_ns;           /* --ring SECONDS, or 0 */
	uint64_t ring_bytes;        /* --ring-size */
	int snapshot_on_crash;      /* --snapshot-on-crash */
};

/* Records as o says. Returns prof-record's exit status: the launched
 * command's (as a shell reports it), else 0, or 1 after an error that was
 * reported (127 or 126 when the command cannot be run). Whatever fails,
 * what was taken is let go, and the output file is kept or removed by the
 * one rule at the top of session_run(). */
int session_run(const struct session_options *o);

#endif
