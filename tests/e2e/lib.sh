# tests/e2e/lib.sh: the harness every end-to-end test sources.
#
# A test script calls ok/fail/skip once per named case. Results are appended
# to $RESULTS (one "pass|fail|skip NAME: detail" line each) for tests/run.sh
# to count. Binaries and fixtures come from the top of the tree and $BUILD.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
FIX=$BUILD/testdata
BIN=${BIN:-}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
RECORD=${BIN%/}/prof-record
REPORT=${BIN%/}/prof-report
RESULTS=${RESULTS:-/dev/null}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/prof-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok()   { echo "  ok    $1"; echo "pass $1" >> "$RESULTS"; }
fail() { echo "  FAIL  $1: $2"; echo "fail $1: $2" >> "$RESULTS"; }
skip() { echo "  skip  $1: $2"; echo "skip $1: $2" >> "$RESULTS"; }
# check NAME COMMAND...: ok if the command succeeds, else fail with its output.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else fail "$name" "$(echo "$out" | tail -5)"; fi
}

# share FOLDED PATTERN: percent (integer) of samples whose stack matches the
# extended regex PATTERN, from folded output.
share() {
	awk -v pat="$2" '{ n = $NF; total += n; line = $0; sub(/ [0-9]+$/, "", line);
	       if (line ~ pat) hit += n }
	     END { if (total == 0) print -1; else printf "%d\n", hit * 100 / total }' "$1"
}

# ptrace_ok: whether this machine lets us trace a child; prints why not.
ptrace_ok() {
	local scope
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	if [ "$scope" -ge 3 ] 2>/dev/null; then echo "ptrace disabled (kernel.yama.ptrace_scope=$scope)"; return 1; fi
	return 0
}
