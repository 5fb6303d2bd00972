#!/usr/bin/env bash
# End-to-end: the README's source-layout table matches the tree.
#
# The table is the rows after "| file | role |". Each path it names in
# backquotes (the Makefile, or words with a "/" that are not absolute) is a
# file, a glob ("report/cmd_*.c") or a folder ("tests/").
# - readme-layout-names-every-file: every file of the programs' sources
#   (common/, format/, record/, report/), every file of mk/ and the
#   Makefile is named, by itself, by a glob or by its folder; a header is
#   also named by its .c file.
# - readme-layout-names-only-files: everything the table names exists.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
awk '/^\| file \| role \|$/ { on = 1; next } on && !/^\|/ { exit } on' README.md |
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
for f in common/* format/* record/* report/* report/*/* mk/* Makefile; do
	[ -f "$f" ] || continue
	named "$f" || { [[ $f == *.h ]] && named "${f%.h}.c"; } || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "readme-layout-names-every-file"
else
	fail "readme-layout-names-every-file" "not in the README's layout table:$missing"
fi

absent=""
while read -r p; do
	# shellcheck disable=SC2086 # a glob of the table, expanded on purpose
	set -- $p
	[ -e "$1" ] || absent="$absent $p"
done < "$TMP/named"
if [ -z "$absent" ]; then
	ok "readme-layout-names-only-files"
else
	fail "readme-layout-names-only-files" "named in the README's layout table, not in the tree:$absent"
fi
