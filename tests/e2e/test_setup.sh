#!/usr/bin/env bash
# End-to-end: the set-up asks only for what a goal needs. As a user who is
# not root, whose PATH has none of the test tools (chromium, go, node,
# npm, protoc, perf, strace), a plain make in a clean clone builds both
# programs; without pkg-config it stops with one line that names the
# packages and the command to install them; and the test set, incomplete,
# names what is missing and lets the build go on (mk/setup.sh exits 3).
. "$(dirname "$0")/lib.sh"

case $BUILD in *-san)
	# The clone builds plain whatever this suite's build: the plain suite
	# has run it.
	skip "setup-non-root" "a sanitized build; the plain suite builds the clean clone"
	exit 0 ;;
esac
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	skip "setup-non-root" "needs root and setpriv to build as another user"
	exit 0
fi
if ! git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
	skip "setup-non-root" "the source tree is not a git checkout to clone"
	exit 0
fi

# A PATH of everything on this one but the test tools, and one without
# pkg-config either: the first of each name in PATH's order, all linked
# by one ln into each (an ln for each of some 3000 names took 18 s on a
# loaded machine, and there were two).
mkdir -p "$TMP/bin" "$TMP/bin-nopc"
declare -A seen
links=() links_nopc=()
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for f in "$d"/*; do
		[ -e "$f" ] || continue
		n=${f##*/}
		case $n in chromium | chromium-browser | go | gofmt | node | nodejs | npm | npx | protoc | \
			perf | perf_* | strace) continue ;; esac
		[ -z "${seen[$n]:-}" ] || continue
		seen[$n]=1
		links+=("$f")
		[ "$n" = pkg-config ] || links_nopc+=("$f")
	done
done
ln -s "${links[@]}" "$TMP/bin/" && ln -s "${links_nopc[@]}" "$TMP/bin-nopc/" \
	|| { fail "setup-path" "cannot link the commands of PATH into $TMP"; exit 0; }
git clone -q "$TOP" "$TMP/src" || { fail "setup-clone" "git clone failed"; exit 0; }
chown -R 65534:65534 "$TMP/src"
chmod 755 "$TMP"
# as_nobody PATH COMMAND...: COMMAND in the clone as nobody, with a bare
# environment and that PATH.
as_nobody() {
	local path=$1
	shift
	(cd "$TMP/src" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i HOME="$TMP" PATH="$path" "$@")
}

out=$(as_nobody "$TMP/bin-nopc" make 2>&1); rc=$?
msg=$(echo "$out" | grep '^setup:')
if [ $rc -ne 0 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -q 'pkg-config' &&
   echo "$msg" | grep -q "apt-get install"; then
	ok "setup-missing-library-one-line"
else
	fail "setup-missing-library-one-line" "exit $rc: $(echo "$out" | tail -3 | tr '\n' '|')"
fi

out=$(as_nobody "$TMP/bin" make -j2 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -x "$TMP/src/prof-record" ] && [ -x "$TMP/src/prof-report" ] &&
   "$TMP/src/prof-report" --version > /dev/null; then
	ok "setup-non-root-make-builds-both"
else
	fail "setup-non-root-make-builds-both" "exit $rc: $(echo "$out" | grep -v '^  ' | tail -3 | tr '\n' '|')"
fi

# A set-up that changes (another branch's libraries) rewrites config.mk,
# and the same make reads it again before it links: its flags are never
# the old ones. The old file here names none of prof-report's libraries.
grep -v '^REPORT_LIBS' "$TMP/src/build/config.mk" > "$TMP/old-config.mk"
as_nobody "$TMP/bin" sh -c "cp '$TMP/old-config.mk' build/config.mk && touch -d '1 hour ago' build/config.mk &&
	touch mk/setup.sh"
out=$(as_nobody "$TMP/bin" make -j2 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^REPORT_LIBS' "$TMP/src/build/config.mk" && "$TMP/src/prof-report" --version > /dev/null; then
	ok "setup-changed-config-read-before-linking"
else
	fail "setup-changed-config-read-before-linking" "exit $rc: $(echo "$out" | grep -v '^  ' | tail -3 | tr '\n' '|')"
fi

out=$(as_nobody "$TMP/bin" sh mk/setup.sh test 2>&1); rc=$?
missing=$(echo "$out" | sed -n 's/.*their tests are skipped:\([^(]*\).*/\1/p')
# named PACKAGE...: every one is in the list of what is missing.
named() {
	for p; do echo " $missing " | grep -q " $p " || return 1; done
}
if [ $rc -eq 3 ] && named chromium golang-go nodejs npm protobuf-compiler strace linux-perf; then
	ok "setup-non-root-test-tools-named ($missing)"
else
	fail "setup-non-root-test-tools-named" "exit $rc: $out"
fi
exit 0
