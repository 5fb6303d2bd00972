#!/usr/bin/env bash
# End-to-end: the man pages agree with the programs' own help, option by
# option, and each prof-report command's page documents exactly the
# options the command takes.
#
# - Every usage line of --help matches its man page's SYNOPSIS. Both sides
#   go through one parser: the SYNOPSIS as mandoc renders it, and the usage
#   lines as the programs print them. Each entry ("prog [COMMAND] ...")
#   gives the command it is for, the options it names and the groups of
#   options ("[filter options]") it takes; the sets must be equal per
#   command. prof-report's commands are taken from its own --help, so a new
#   command is checked as soon as it is listed: it must have its own page,
#   man/prof-report-COMMAND.1, whose SYNOPSIS and 'COMMAND -h' agree, and
#   the overview, prof-report.1, must name that page.
# - Expanded with the subsection of prof-report.1 for each group it names
#   ("Filter options"), a command's SYNOPSIS is exactly the option list of
#   its -h, which is printed from the table its parser reads.
# - Each option a command takes on its own is an item of its page's
#   OPTIONS.
. "$(dirname "$0")/lib.sh"

if ! command -v mandoc > /dev/null 2>&1; then
	skip "synopsis" "mandoc is not installed"
	exit 0
fi

# entries PROG: reads usage text on stdin (the SYNOPSIS section or a usage
# block) and prints one line per command: "COMMAND<TAB>OPTIONS", the
# options sorted, groups as "@NAME", COMMAND "-" for the program itself.
# An entry starts at a line whose first word (after "usage:") is PROG, and
# lines indented further continue it; its commands are the words before
# the first one that starts with "-" or "[" ("info | folded"). "-fqv" is
# -f -q -v.
entries() {
	awk -v prog="$1" '
	function flush(   n, i, w, cmds, o, j, rest) {
		if (entry == "") return
		n = split(entry, w, / +/)
		cmds = ""
		for (i = 1; i <= n && w[i] !~ /^[-[]/; i++)
			if (w[i] != "" && w[i] != "|") cmds = cmds " " w[i]
		if (cmds == "") cmds = " -"
		n = split(substr(cmds, 2), w, / /)
		for (i = 1; i <= n; i++) print w[i] "\t"
		rest = entry
		while (match(rest, /\[[a-z]+ options\]/)) {
			o = substr(rest, RSTART + 1, RLENGTH - 10)
			rest = substr(rest, RSTART + RLENGTH)
			for (i = 1; i <= n; i++) print w[i] "\t@" o
		}
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

# render PAGE: the man page as text.
render() {
	mandoc -Tascii -Owidth=300 "$1" | sed 's/.\x08//g'
}
# synopsis PAGE: its SYNOPSIS section.
synopsis() {
	render "$1" | sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed '1d;$d'
}
# items PAGE [own]: every item of its "X options" subsections, as "X<TAB>
# OPTION<TAB>ITEM", ITEM the item's number (the names of one item share
# it); with "own", the items of its OPTIONS section instead, as X
# "command".
items() {
	render "$1" | awk -v own="${2:-}" '
	/^[A-Z]/ || /^   [A-Z]/ { sec = "" }
	own == "" && /^   [A-Z][a-z]+ options$/ { sec = tolower($1); next }
	own != "" && /^OPTIONS$/ { sec = "command"; next }
	sec == "" { next }
	/^     -/ { tag = substr($0, 6); item++
		# a short tag has its text on the same line
		if (match(tag, /   +[^ -]/)) tag = substr(tag, 1, RSTART - 1)
		while (match(tag, /(^|[ ,|])--?[A-Za-z][A-Za-z0-9-]*/)) {
			o = substr(tag, RSTART, RLENGTH); sub(/^[ ,|]/, "", o)
			print sec "\t" o "\t" item; tag = substr(tag, RSTART + RLENGTH)
		} }'
}
# usage CMD...: the usage block of CMD's help: from "usage:" to the first
# blank line.
usage() {
	"$@" 2>&1 | sed -n '/^usage:/,/^$/p'
}
# help_options CMD...: every option in the option lines of CMD's help.
help_options() {
	"$@" 2>&1 | grep -E '^  -' | sed -E 's/^  //; s/  .*//' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,'
}
# agree NAME WANT GOT: ok if the two lists are equal.
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
agree "synopsis-prof-report-help" "$(echo "$man_report" | awk -F'\t' '$1 == "-"')" \
	"$(usage "$REPORT" --help | entries prof-report)"

group_items=$(items "$TOP/man/prof-report.1")
[ -n "$group_items" ] || fail "synopsis-prof-report-groups" "no option subsections in prof-report.1"
overview=$(render "$TOP/man/prof-report.1")
commands=$("$REPORT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$commands" ] || fail "synopsis-prof-report-commands" "no commands in prof-report --help"
for c in $commands; do
	page=$TOP/man/prof-report-$c.1
	if [ ! -f "$page" ]; then
		fail "synopsis-prof-report-$c" "no man/prof-report-$c.1"
		continue
	fi
	if echo "$overview" | grep -q "prof-report-$c(1)"; then
		ok "synopsis-prof-report-$c-listed (prof-report.1 names prof-report-$c(1))"
	else
		fail "synopsis-prof-report-$c-listed" "prof-report.1 does not name prof-report-$c(1)"
	fi
	want=$(synopsis "$page" | entries prof-report | awk -F'\t' -v c="$c" '$1 == c')
	if [ -z "$want" ]; then
		fail "synopsis-prof-report-$c" "no SYNOPSIS entry for '$c' in prof-report-$c.1"
		continue
	fi
	agree "synopsis-prof-report-$c" "$want" "$(usage "$REPORT" "$c" -h | entries prof-report)"
	own_items=$(items "$page" own)
	# The SYNOPSIS with its groups expanded, against -h's option list.
	expanded=$(for w in $(echo "$want" | cut -f2); do
		case $w in
		@*) echo "$group_items" | awk -F'\t' -v g="${w#@}" '$1 == g { print $2 }' ;;
		*) echo "$own_items" | awk -F'\t' -v o="$w" '$2 == o { i = $3 }
			{ n[$3] = n[$3] " " $2 } END { print (i ? n[i] : o) }' | tr ' ' '\n' | sed '/^$/d' ;;
		esac
	done | sort -u)
	agree "synopsis-prof-report-$c-options" "$expanded" \
		"$(help_options "$REPORT" "$c" -h | grep -vx -e -h -e --help | sort -u)"
	# Its own options, each an item of its page's OPTIONS.
	missing="" n=0
	for o in $(echo "$want" | cut -f2 | tr ' ' '\n' | grep '^-'); do
		n=$((n + 1))
		echo "$own_items" | awk -F'\t' -v o="$o" '$2 == o { found = 1 } END { exit !found }' ||
			missing="$missing $o"
	done
	if [ -z "$missing" ]; then
		ok "synopsis-prof-report-$c-documented ($n options of its own)"
	else
		fail "synopsis-prof-report-$c-documented" "not in the OPTIONS of prof-report-$c.1:$missing"
	fi
done

# Every page of a command prof-report no longer has is gone too.
for page in "$TOP"/man/prof-report-*.1; do
	c=${page##*/prof-report-}
	c=${c%.1}
	echo "$commands" | grep -qx "$c" || fail "synopsis-prof-report-$c-page" "man/prof-report-$c.1, but no command '$c'"
done
