#!/usr/bin/env bash
# End-to-end: prof-record's command line, beyond what a recording tests:
# perf record's habits (-g and --call-graph taken with a note, -F max the
# kernel's highest rate, perf's options prof lacks refused with what to do
# instead), the options completion is offered, and the default trace name
# that prof-report reads when none is named.
. "$(dirname "$0")/lib.sh"

# refused NAME HINT ARGS...: exit 2, one line that names the option (the
# first of ARGS, without its "=VALUE") and gives the hint, and no trace
# written.
refused() {
	local name=$1 hint=$2 rc
	shift 2
	(cd "$TMP" && "$RECORD" "$@" -- true > /dev/null 2> "$TMP/err"); rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
		grep -q "^prof-record: unknown option '${1%%=*}': .*$hint" "$TMP/err" && [ ! -e "$TMP/prof.trace" ]; then
		ok "$name"
	else
		fail "$name" "exit $rc: $(cat "$TMP/err")"
	fi
}
refused perf-all-cpus-refused "system-wide profiling is perf's" -a
refused perf-all-cpus-long-refused "system-wide profiling is perf's" --all-cpus
refused perf-event-refused "prof samples cpu-clock; --mode picks cpu or wall" -e cycles
refused perf-event-long-refused "--mode picks cpu or wall" --event=cycles
refused perf-cpu-refused "use perf to profile CPUs" -C 0
refused perf-count-refused "-F sets it" -c 1000
refused perf-stat-refused "prof-report threads" -s
refused perf-branch-refused "not branches" -b

# --list-options, which completion reads: the options -h lists, no more
# (perf's are not offered), with the words of --mode.
want=$("$RECORD" -h | grep -E '^  -' | sed -E 's/^  //; s/  .*//' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' |
	tr -d ' ,' | sort)
got=$("$RECORD" --list-options | awk '{ print $1 }' | sort)
[ -n "$want" ] && [ "$want" = "$got" ] && "$RECORD" --list-options | grep -qx -- '--mode wall|cpu wall cpu' &&
	ok "list-options-as-help" || fail "list-options-as-help" "$(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"

if ! why=$(ptrace_ok); then
	skip "record-cli" "$why"
	exit 0
fi

# -g and --call-graph, with or without perf's mode: recorded, with a note.
for args in "-g" "--call-graph" "--call-graph dwarf" "--call-graph=fp" "-g fp,16"; do
	rm -f "$TMP/g.trace"
	"$RECORD" -q $args -o "$TMP/g.trace" -- true > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc -eq 0 ] && [ -s "$TMP/g.trace" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
		grep -q '^prof-record: note: stacks are always recorded' "$TMP/err"; then
		ok "perf-call-graph-noted ($args)"
	else
		fail "perf-call-graph-noted ($args)" "exit $rc: $(cat "$TMP/err")"
	fi
done
# The word after -g is the command's when it is not a mode.
"$RECORD" -q -g -o "$TMP/g.trace" -f sh -c 'echo ran' > "$TMP/out" 2> /dev/null
grep -qx ran "$TMP/out" && ok "perf-call-graph-leaves-the-command" || fail "perf-call-graph-leaves-the-command" "$(cat "$TMP/out")"

# -F max: the kernel's perf_event_max_sample_rate (at most -F's 100000).
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2> /dev/null)
if [ -n "$max" ]; then
	[ "$max" -gt 100000 ] && max=100000
	"$RECORD" -F max -o "$TMP/max.trace" -- true > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc -eq 0 ] && grep -q " at $max Hz$" "$TMP/err" && ok "rate-max-is-the-kernels ($max Hz)" \
		|| fail "rate-max-is-the-kernels" "exit $rc: $(head -2 "$TMP/err")"
else
	skip "rate-max-is-the-kernels" "kernel.perf_event_max_sample_rate cannot be read"
fi

# The default trace: prof-record writes prof.trace, prof-report reads it.
mkdir "$TMP/here"
(cd "$TMP/here" && "$RECORD" -q -- true && "$REPORT" info > ../info.out 2> ../info.err); rc=$?
[ $rc -eq 0 ] && [ -f "$TMP/here/prof.trace" ] && grep -q '^trace: *prof.trace$' "$TMP/info.out" \
	&& ok "default-trace-recorded-and-read" || fail "default-trace-recorded-and-read" "exit $rc: $(cat "$TMP/info.err")"
exit 0
