/*
 * export.h: a trace, filtered and symbolized, as the exporters need it.
 *
 * The profile model (report/model/profile.h) merges stacks by name, which is what
 * folded stacks and flame graphs show. pprof and speedscope keep more: each
 * recorded address as a location in its image, with the frames it became
 * (the inline chain, each with its file and line), every sample with its
 * thread and time. This model keeps that, built once for either format.
 *
 * Every sample that report/model/stacks.h's filter keeps is kept, in recording
 * order, with its stack. A stack is the recorded one, its locations leaf
 * first (cut as the layer cuts them); a location is one distinct
 * (address, image, leaf or return address), numbered in order of first use,
 * so the same trace and options always give the same model. A function is
 * a distinct (name, source file) among the frames, also in order of first
 * use: what pprof calls a function and speedscope a frame.
 */
#ifndef REPORT_EXPORT_H
#define REPORT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/progress.h"
#include "format/trace.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

struct export_location {
	uint64_t addr;            /* the recorded address */
	long image;               /* index into trace->images, or -1 */
	size_t first, nframes;    /* its frames in export.frames, innermost
	                           * first (nframes >= 1) */
};

struct export_function {
	const char *name;         /* borrowed from the symbolizer */
	const char *file;         /* or NULL */
	uint32_t line;            /* of its first frame; 0 if unknown */
};

struct export_stack {
	size_t first, nlocs;      /* its locations in export.stack_locs, leaf
	                           * first (0 for an empty stack) */
};

struct export_sample {
	uint64_t time;            /* ns since the recording started */
	uint32_t tid;
	uint32_t stack;           /* index into export.stacks */
	uint8_t state;            /* enum trace_state */
	const char *thread;       /* the thread's name when sampled, or "";
	                           * borrowed from the trace */
	uint32_t pid;             /* its process's */
	const char *process;      /* the name of the program its process ran
	                           * then (stacks_process_name()); owned by the
	                           * export */
};

struct export {
	struct symbolize_frame *frames;   /* names and files borrowed from the
	                                   * symbolizer */
	uint32_t *frame_funcs;            /* per frame: index into funcs */
	size_t nframes;
	struct export_function *funcs;
	size_t nfuncs;
	struct export_location *locs;
	size_t nlocs;
	uint32_t *stack_locs;             /* indices into locs */
	size_t nstack_locs;
	struct export_stack *stacks;
	size_t nstacks;
	struct export_sample *samples;    /* recording order */
	size_t nsamples;
	char **programs;                  /* the samples' process names */
	size_t nprograms;
	int processes;                    /* the trace has more than one */
};

/* Builds the model of the samples of st's trace that pass f, named by st,
 * which must outlive it, telling pg (NULL: nobody) how far it is, as the
 * phase "symbolizing" in samples. The caller frees it with export_free(). */
struct export *export_build(struct stacks *st, const struct stacks_filter *f, struct progress *pg);
void export_free(struct export *e);

/* The time one sample stands for, 1/rate, in ns (rounded), or 0 if the
 * trace does not know its rate. */
uint64_t export_period(const struct trace *t);

#endif
