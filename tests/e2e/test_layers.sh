#!/usr/bin/env bash
# End-to-end: the include direction of the sources.
#
# The programs are built in layers, and a file includes only its own layer
# and the ones below it:
#   common/ < format/ < record/ and report/;
#   inside report/: dwarf/ < symbols/ < model/ < output/ < cmd/ < main.c.
# record/ and report/ never include each other.
# - layers-include-downward: no project include of common/, format/,
#   record/ or report/ points upward or sideways; the offending lines are
#   named.
# - layers-every-source-placed: every source of those folders has a layer
#   (a new folder in report/ must be given one here).
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1

# layer PATH: the layer of a source or header, or nothing if it has none.
layer() {
	case $1 in
	common/*) echo 0 ;;
	format/*) echo 1 ;;
	record/*) echo 2 ;;
	report/dwarf/*) echo 2 ;;
	report/symbols/*) echo 3 ;;
	report/model/*) echo 4 ;;
	report/output/*) echo 5 ;;
	report/cmd/*) echo 6 ;;
	report/main.c) echo 7 ;;
	esac
}

bad="" unplaced=""
for f in common/*.[ch] format/*.[ch] record/*.[ch] report/*.[ch] report/*/*.[ch]; do
	[ -f "$f" ] || continue
	mine=$(layer "$f")
	if [ -z "$mine" ]; then
		unplaced="$unplaced $f"
		continue
	fi
	while IFS=: read -r line inc; do
		theirs=$(layer "$inc")
		[ -n "$theirs" ] || continue
		# record/ and report/ are siblings: neither may include the other.
		case $f:$inc in
		record/*:report/* | report/*:record/*) bad="$bad $f:$line($inc)"; continue ;;
		esac
		[ "$theirs" -le "$mine" ] || bad="$bad $f:$line($inc)"
	done < <(grep -n '^#[[:space:]]*include[[:space:]]*"' "$f" | sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done

if [ -z "$bad" ]; then
	ok "layers-include-downward"
else
	fail "layers-include-downward" "includes upward or sideways:$bad"
fi
if [ -z "$unplaced" ]; then
	ok "layers-every-source-placed"
else
	fail "layers-every-source-placed" "sources without a layer in tests/e2e/test_layers.sh:$unplaced"
fi
