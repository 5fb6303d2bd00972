/*
 * cmd_annotate.c: 'prof-report annotate TRACE', where in a function the
 * time went: its source lines and, with --asm, its instructions, each with
 * its self and total samples, for the hottest functions or those named.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/diag.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/model/annotate.h"
#include "report/output/annotate.h"
#include "report/symbols/srcfile.h"

static void say(const char *msg)
{
	warning("%s", msg);
}

int cmd_annotate(int argc, char **argv)
{
	struct cli_report r = { 0 };
	struct opt_regex function = { 0 };
	struct cli_sources sources = { 0 };
	uint64_t limit = 0, context = 3;
	int instructions = 0, json = 0;
	const struct opt_option options[] = {
		OPT_UINT(0, "limit", "N", &limit, 1, SIZE_MAX,
			 "annotate the N hottest functions (default 5; with\n"
			 "--function, every one that matches)"),
		OPT_REGEX(0, "function", "REGEX", &function,
			  "annotate the functions whose name matches"),
		OPT_FLAG(0, "asm", &instructions,
			 "show each instruction: address, bytes, disassembly"),
		OPT_UINT(0, "context", "N", &context, 0, 1000,
			 "lines shown around each line with samples (default 3)"),
		OPT_FLAG(0, "json", &json, "write the view as JSON (prof-json(5))"),
		CLI_REPORT_OPTIONS(&r),
		CLI_SOURCE_OPTIONS(&sources),
		OPT_END,
	};
	const struct opt_command cmd = {
		"annotate", "[TRACE...]", 0, -1,
		"Prints the source lines of the hottest functions, each with its self and\n"
		"total samples and their shares of the function's samples, and the code\n"
		"inlined at each line under it; with --asm, every instruction too.",
		options,
	};
	struct annotate_write_opts wo = { .note = say };
	const struct annotate_fn **fns;
	struct stacks_filter filter;
	struct annotate a;
	struct cli_trace ct;
	size_t n = 0;
	int first, err;

	first = opt_parse(&cmd, argc, argv);
	/* Every row is a line already: frames are named without one. */
	r.lines = 0;
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_SYMBOLIZED, &ct);
	filter = cli_filter(&r);
	annotate_build(ct.stacks, &filter, ct.progress, &a);
	progress_end(ct.progress);
	fns = xmalloc((a.nfns ? a.nfns : 1) * sizeof(*fns));
	for (size_t i = 0; i < a.nfns; i++)
		if (!function.set || regexec(&function.re, a.fns[i].name, 0, NULL, 0) == 0)
			fns[n++] = &a.fns[i];
	qsort(fns, n, sizeof(*fns), annotate_cmp_hot);
	if (function.set && !n)
		die("no function with samples in '%s' matches '--function'", ct.path);
	if (limit || !function.set)
		n = n < (limit ? limit : 5) ? n : (size_t)(limit ? limit : 5);
	wo.sym = ct.sym;
	wo.source = cli_srcfile(&sources, ct.pack);
	wo.context = (size_t)context;
	wo.instructions = instructions;
	err = json ? annotate_write_json(stdout, &a, fns, n, &wo) : annotate_write(stdout, &a, fns, n, &wo);
	if (err < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	srcfile_free(wo.source);
	free(fns);
	annotate_release(&a);
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
