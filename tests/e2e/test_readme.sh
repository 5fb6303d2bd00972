#!/usr/bin/env bash
# End-to-end: the source-layout table of HACKING.md matches the tree.
#
# The table is the rows after "| file | role |". Each path it names in
# backquotes (the Makefile, or words with a "/" that are not absolute) is a
# file, a glob ("report/cmd/cmd_*.c") or a folder ("tests/").
# - hacking-layout-names-every-file: every file of the programs' sources
#   (common/, format/, record/, report/, their folders included), every
#   file of mk/ and the Makefile is named, by itself, by a glob or by a
#   folder it is in; a header is also named by its .c file.
# - hacking-layout-names-only-files: everything the table names exists.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
awk '/^\| file \| role \|$/ { on = 1; next } on && !/^\|/ { exit } on' HACKING.md |
	grep -o '`[^`]*`' | tr -d '`' | grep -E '^[A-Za-z][^ ]*/|^Makefile$' | sort -u > "$TMP/named"

# named FILE: whether the table names FILE.
named() {
	local p
	while read -r p; do
		case $p in
		*/) case $1 in "$p"*) return 0 ;; esac ;;
		*) [[ $1 == $p ]] && return 0 ;;
		esac
	done < "$TMP/named"
	return 1
}

missing=""
for f in $(find common format record report mk -type f | sort) Makefile; do
	named "$f" || { [[ $f == *.h ]] && named "${f%.h}.c"; } || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "hacking-layout-names-every-file"
else
	fail "hacking-layout-names-every-file" "not in the layout table of HACKING.md:$missing"
fi

absent=""
while read -r p; do
	# shellcheck disable=SC2086 # a glob of the table, expanded on purpose
	set -- $p
	[ -e "$1" ] || absent="$absent $p"
done < "$TMP/named"
if [ -z "$absent" ]; then
	ok "hacking-layout-names-only-files"
else
	fail "hacking-layout-names-only-files" "named in the layout table of HACKING.md, not in the tree:$absent"
fi
