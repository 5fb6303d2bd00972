#!/usr/bin/env bash
# End-to-end: 'make install PREFIX=... DESTDIR=...' puts the programs, the
# man pages, the bash completion files and the JSON Schemas where they
# belong, the installed programs run, and man(1) renders every installed page without a warning.
. "$(dirname "$0")/lib.sh"

ROOT=$TMP/root
# A make of its own, outside the one running the tests; the programs under
# test are the ones installed (BIN, with the BUILD they were made in).
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" install PREFIX=/opt/prof \
	DESTDIR="$ROOT" BUILD="${BUILD#"$TOP"/}" BIN="${BIN#"$TOP"/}" > "$TMP/install.log" 2>&1; then
	ok "install-runs"
else
	fail "install-runs" "$(tail -3 "$TMP/install.log")"
	exit 0
fi

P=$ROOT/opt/prof
# Every page of man/: the three of the programs and the trace format, and
# one per prof-report command.
pages=$(cd "$TOP" && ls man/*.[0-9])
for m in man/prof-record.1 man/prof-report.1 man/prof-trace.5 man/prof-report-diff.1; do
	echo "$pages" | grep -qx "$m" || fail "install-pages" "no $m in man/"
done
want=$( (printf '%s\n' "bin/prof-record 755" "bin/prof-report 755" \
	"share/bash-completion/completions/prof-record 644" \
	"share/bash-completion/completions/prof-report 644"
	for m in $pages; do echo "share/man/man${m##*.}/${m#man/} 644"; done
	for s in $(cd "$TOP" && ls schema/*.schema.json); do echo "share/prof/$s 644"; done) | sort)
got=$(cd "$P" && find . -type f -printf '%P %m\n' | sort)
[ "$got" = "$want" ] && ok "install-files (every file, with its mode)" \
	|| fail "install-files" "$(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' '|')"
for m in $pages; do
	cmp -s "$TOP/$m" "$P/share/man/man${m##*.}/${m#man/}" || fail "install-$m" "differs from the source"
done
"$P/bin/prof-report" --version | grep -q '^prof-report (trace format ' && "$P/bin/prof-record" --version > /dev/null \
	&& ok "install-programs-run" || fail "install-programs-run" "$("$P/bin/prof-report" --version 2>&1)"

if ! command -v man > /dev/null 2>&1; then
	skip "install-man-renders" "man is not installed (mk/setup.sh installs man-db)"
	exit 0
fi
for page in "$P"/share/man/man1/*.1 "$P"/share/man/man5/*.5; do
	name=${page##*/}
	MANWIDTH=80 MANPAGER=cat man --warnings -l "$page" > "$TMP/$name.txt" 2> "$TMP/$name.err"
	rc=$?
	title=$(echo "${name%.*}" | tr a-z A-Z)
	if [ $rc -eq 0 ] && [ ! -s "$TMP/$name.err" ] && head -1 "$TMP/$name.txt" | grep -q "^$title(${name##*.})" &&
		grep -q '^NAME' "$TMP/$name.txt" && [ "$(wc -l < "$TMP/$name.txt")" -gt 50 ]; then
		ok "install-man-renders-$name ($(wc -l < "$TMP/$name.txt") lines)"
	else
		fail "install-man-renders-$name" "exit $rc: $(head -3 "$TMP/$name.err" "$TMP/$name.txt" | tr '\n' '|')"
	fi
done
