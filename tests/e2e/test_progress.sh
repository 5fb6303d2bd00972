#!/usr/bin/env bash
# End-to-end: the status line, on a terminal that script(1) gives the
# programs, and nowhere else.
#
# prof-report shows its phases only once a report has taken
# PROF_PROGRESS_AFTER_MS (a second by default); 0 shows them from the
# start, so a small trace is enough and nothing depends on the time a
# report takes.
# - progress-COMMAND-on-terminal: each command that reads a trace shows
#   "reading trace" on a terminal's standard error, and the last thing
#   it leaves there is the line cleared; what it writes is the same.
# - progress-folded-phases: folded shows reading, folding and
#   symbolizing, with their counts.
# - progress-not-to-a-file: standard error a file, on a terminal or not:
#   nothing of it.
# - progress-waits-for-its-delay: a report done within the delay shows
#   nothing.
# - progress-cleared-before-warning: a warning starts on a line of its
#   own, the status line cleared first.
# - record-status-line-*: prof-record's counters on a terminal, cleared
#   before its summary; none with -q or standard error a file.
. "$(dirname "$0")/lib.sh"

TR=$TOP/testdata/golden/tables.trace

if ! command -v script > /dev/null 2>&1; then
	skip "progress" "no script(1) to give the programs a terminal"
	exit 0
fi

# on_tty TYPESCRIPT COMMAND: runs the shell command with a terminal for
# its standard input, output and error; what reached the terminal goes to
# TYPESCRIPT, without script's own first and last lines.
on_tty() {
	script -qefc "$2" "$1.raw" > /dev/null 2>&1
	local rc=$?
	sed -e '/^Script started on /d' -e '/^Script done on /d' "$1.raw" > "$1"
	return $rc
}
CLEAR=$'\r\033[K'
# status_ok TYPESCRIPT PHASE: the terminal got PHASE's line, and after the
# last line drawn, the line cleared.
status_ok() {
	local s
	s=$(cat "$1")
	[[ $s == *$'\rprof-report: '"$2"* ]] || return 1
	s=${s##*$'\rprof-report: '}
	[[ $s == *"$CLEAR"* ]]
}

export PROF_PROGRESS_AFTER_MS=0

# --- prof-report ---------------------------------------------------------
"$REPORT" folded "$TR" > "$TMP/folded.want" 2> /dev/null
on_tty "$TMP/ts" "'$REPORT' folded '$TR' > '$TMP/folded.out'"
if ! status_ok "$TMP/ts" "reading trace "; then
	fail "progress-folded-on-terminal" "$(cat -v "$TMP/ts" | head -c 600)"
elif ! cmp -s "$TMP/folded.want" "$TMP/folded.out"; then
	fail "progress-folded-on-terminal" "the folded stacks differ on a terminal"
else
	ok "progress-folded-on-terminal"
fi
s=$(cat "$TMP/ts")
if [[ $s == *$'\rprof-report: reading trace 0% (0 B of '*$'\rprof-report: folding 0% (0 of '*" samples)"*$'\rprof-report: symbolizing 0% (0 of '*" stacks)"* ]]; then
	ok "progress-folded-phases"
else
	fail "progress-folded-phases" "$(cat -v "$TMP/ts" | head -c 600)"
fi

# Every other command that reads a trace, its output to a file.
for c in info threads top svg "export --format speedscope" "pack -o $TMP/p.syms" "diff $TR"; do
	name=${c%% *}
	on_tty "$TMP/ts-$name" "'$REPORT' $c '$TR' > '$TMP/$name.out'"
	status_ok "$TMP/ts-$name" "reading trace " && ok "progress-$name-on-terminal" \
		|| fail "progress-$name-on-terminal" "$(cat -v "$TMP/ts-$name" | head -c 600)"
done

# Standard error a file: nothing, whether the rest is a terminal or not.
on_tty "$TMP/ts-file" "'$REPORT' folded '$TR' > /dev/null 2> '$TMP/err-tty'"
"$REPORT" folded "$TR" > /dev/null 2> "$TMP/err-pipe"
if [ -s "$TMP/err-tty" ] || [ -s "$TMP/err-pipe" ] || grep -q 'prof-report' "$TMP/ts-file"; then
	fail "progress-not-to-a-file" "$(cat -v "$TMP/err-tty" "$TMP/err-pipe" "$TMP/ts-file" | head -c 600)"
else
	ok "progress-not-to-a-file"
fi

# A delay the report does not reach: nothing on the terminal.
on_tty "$TMP/ts-late" "PROF_PROGRESS_AFTER_MS=600000 '$REPORT' folded '$TR' > /dev/null"
if grep -q -e 'prof-report' -e $'\033' "$TMP/ts-late"; then
	fail "progress-waits-for-its-delay" "$(cat -v "$TMP/ts-late" | head -c 600)"
else
	ok "progress-waits-for-its-delay"
fi

# A trace cut short warns while it is read: the warning on a line of its
# own.
size=$(wc -c < "$TR")
head -c $((size - 100)) "$TR" > "$TMP/cut.trace"
on_tty "$TMP/ts-cut" "'$REPORT' folded '$TMP/cut.trace' > /dev/null"
s=$(cat "$TMP/ts-cut")
if [[ $s == *"$CLEAR"'prof-report: warning: '*"is incomplete"* ]] &&
   [[ $s != *[!$'\r']$'\033[Kprof-report: warning'* ]]; then
	ok "progress-cleared-before-warning"
else
	fail "progress-cleared-before-warning" "$(cat -v "$TMP/ts-cut" | head -c 600)"
fi

# --- prof-record ---------------------------------------------------------
if ! why=$(ptrace_ok); then
	skip "record-status-line" "$why"
	exit 0
fi
on_tty "$TMP/ts-rec" "'$RECORD' -f -o '$TMP/r.trace' -- sleep 1"
s=$(cat "$TMP/ts-rec")
line=$'\r''prof-record: [0-9.]+s  [0-9]+ samples  [0-9]+ threads  [0-9]+ lost  [0-9.]+ (B|KiB|MiB)'$'\033''\[K'
if [[ $s =~ $line ]] &&
   [[ $s == *"$CLEAR"'prof-record: '*' samples, '*"wrote '$TMP/r.trace'"* ]]; then
	ok "record-status-line-on-terminal"
else
	fail "record-status-line-on-terminal" "$(cat -v "$TMP/ts-rec" | head -c 600)"
fi
on_tty "$TMP/ts-rec-q" "'$RECORD' -q -f -o '$TMP/r.trace' -- sleep 1"
on_tty "$TMP/ts-rec-f" "'$RECORD' -f -o '$TMP/r.trace' -- sleep 1 2> '$TMP/rec-err'"
if grep -q 'samples  ' "$TMP/ts-rec-q" "$TMP/ts-rec-f" "$TMP/rec-err"; then
	fail "record-status-line-nowhere-else" "$(cat -v "$TMP/ts-rec-q" "$TMP/rec-err" | head -c 600)"
else
	ok "record-status-line-nowhere-else"
fi
