/*
 * timing.h: where a report's time goes, stage by stage.
 *
 * With PROF_REPORT_TIMING set in the environment (to anything but "" or
 * "0"), prof-report ends by printing one line on standard error: the
 * seconds spent in each stage, the total and the peak RSS, as
 *
 *   prof-report: timing: open 0.004 s, locate 0.001 s, ... ; total 0.083 s, peak RSS 24616 KiB
 *
 * Stages nest (a lookup that reads a unit inflates a section): the time
 * is the stage's own, without the stages entered inside it, so the
 * stages add up to the total. Without the variable every call costs one
 * branch. Each thread keeps its own current stage; a stage's time is
 * summed over the threads in it.
 */
#ifndef REPORT_TIMING_H
#define REPORT_TIMING_H

enum timing_stage {
	TIMING_OTHER,      /* option parsing, anything not below */
	TIMING_OPEN,       /* reading and decoding the trace */
	TIMING_LOCATE,     /* finding and opening the file of each image */
	TIMING_SYMBOLS,    /* building symbol tables */
	TIMING_DECOMPRESS, /* inflating compressed debug sections */
	TIMING_INDEX,      /* indexing the DWARF units by address */
	TIMING_UNITS,      /* reading the units lookups fall in: DIEs, lines */
	TIMING_LOOKUP,     /* resolving addresses, with the rest of the above */
	TIMING_PROFILE,    /* filtering, merging and sorting the stacks */
	TIMING_OUTPUT,     /* writing what the command writes */
	TIMING_RELEASE,    /* freeing it all at the end */
	TIMING__N
};

/* Turns timing on if the environment asks for it; prof-report's main()
 * calls it first. The line is printed at exit. */
void timing_init(void);
/* Makes stage the current one of this thread; returns the one it was, for
 * timing_leave(). */
int timing_enter(int stage);
/* Makes prev (what timing_enter() returned) current again. */
void timing_leave(int prev);

#endif
