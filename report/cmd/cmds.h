/*
 * cmds.h: the prof-report subcommands. Each takes its own argv (argv[0] is
 * the subcommand name), parses its options and returns the exit status:
 * 0 success, 1 runtime error, 2 bad usage (OPT_EXIT_USAGE, common/opt.h),
 * and for diff --check, CMD_EXIT_CHANGED.
 */
#ifndef REPORT_CMDS_H
#define REPORT_CMDS_H

/* diff --check: a change is significant. */
#define CMD_EXIT_CHANGED 3

int cmd_info(int argc, char **argv);
int cmd_folded(int argc, char **argv);
int cmd_threads(int argc, char **argv);
int cmd_svg(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_annotate(int argc, char **argv);

#endif
