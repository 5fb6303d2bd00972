#!/usr/bin/env bash
# End-to-end: every usage line of --help matches its man page's SYNOPSIS,
# option by option. Both sides go through one parser: the SYNOPSIS as
# mandoc renders it, and the usage lines as the program prints them. Each
# entry ("prog [COMMAND] ...") gives the command it is for and the options
# it names; the sets must be equal per command. prof-report's commands are
# taken from its own --help, so a new command is checked as soon as it is
# listed, and must have a SYNOPSIS entry, a line in --help's usage and
# its own 'COMMAND -h' that agree.
. "$(dirname "$0")/lib.sh"

if ! command -v mandoc > /dev/null 2>&1; then
	skip "synopsis" "mandoc is not installed"
	exit 0
fi

# entries PROG: reads usage text on stdin (the SYNOPSIS section or a usage
# block) and prints one line per command: "COMMAND<TAB>OPTIONS", the
# options sorted, COMMAND "-" for the program itself. An entry starts at a
# line whose first word (after "usage:") is PROG, and lines indented
# further continue it; its commands are the words before the first one
# that starts with "-" or "[" ("info | folded"). "-fqv" is -f -q -v.
entries() {
	awk -v prog="$1" '
	function flush(   n, i, w, cmds, o, j) {
		if (entry == "") return
		n = split(entry, w, / +/)
		cmds = ""
		for (i = 1; i <= n && w[i] !~ /^[-[]/; i++)
			if (w[i] != "" && w[i] != "|") cmds = cmds " " w[i]
		if (cmds == "") cmds = " -"
		n = split(substr(cmds, 2), w, / /)
		for (i = 1; i <= n; i++) print w[i] "\t"
		while (match(entry, /(^|[][ |])--?[A-Za-z][A-Za-z0-9-]*/)) {
			o = substr(entry, RSTART, RLENGTH)
			sub(/^[][ |]/, "", o)
			entry = substr(entry, RSTART + RLENGTH)
			for (i = 1; i <= n; i++)
				if (o ~ /^-[A-Za-z][A-Za-z]+$/)
					for (j = 2; j <= length(o); j++) print w[i] "\t-" substr(o, j, 1)
				else
					print w[i] "\t" o
		}
		entry = ""
	}
	{ sub(/^usage: /, "       ") }
	$1 == prog { flush(); indent = match($0, /[^ ]/); entry = substr($0, indent + length(prog)); next }
	entry != "" && match($0, /[^ ]/) > indent { entry = entry " " $0; next }
	{ flush() }
	END { flush() }' | sort -u | awk -F'\t' '
	$1 != last { if (NR > 1) print last "\t" substr(acc, 2); last = $1; acc = "" }
	$2 != "" { acc = acc " " $2 }
	END { if (NR) print last "\t" substr(acc, 2) }'
}

# synopsis PAGE: the SYNOPSIS section of a man page, as text.
synopsis() {
	mandoc -Tascii -Owidth=300 "$1" | sed 's/.\x08//g' | sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed '1d;$d'
}
# usage CMD...: the usage block of CMD's help: from "usage:" to the first
# blank line.
usage() {
	"$@" 2>&1 | sed -n '/^usage:/,/^$/p'
}
# agree NAME WANT GOT: ok if the two entry lists are equal.
agree() {
	if [ "$2" = "$3" ] && [ -n "$2" ]; then
		ok "$1 ($(echo "$2" | wc -l) entries)"
	else
		fail "$1" "$(diff <(echo "$2") <(echo "$3") | grep '^[<>]' | head -4 | tr '\n' '|')"
	fi
}

man_record=$(synopsis "$TOP/man/prof-record.1" | entries prof-record)
agree "synopsis-prof-record-help" "$man_record" "$(usage "$RECORD" --help | entries prof-record)"

man_report=$(synopsis "$TOP/man/prof-report.1" | entries prof-report)
agree "synopsis-prof-report-help" "$man_report" "$(usage "$REPORT" --help | entries prof-report)"

commands=$("$REPORT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$commands" ] || fail "synopsis-prof-report-commands" "no commands in prof-report --help"
for c in $commands; do
	want=$(echo "$man_report" | awk -F'\t' -v c="$c" '$1 == c')
	got=$(usage "$REPORT" "$c" -h | entries prof-report)
	if [ -z "$want" ]; then
		fail "synopsis-prof-report-$c" "no SYNOPSIS entry for '$c' in prof-report.1"
	else
		agree "synopsis-prof-report-$c" "$want" "$got"
	fi
done
