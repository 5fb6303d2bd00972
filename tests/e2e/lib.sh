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
# The recorder keeps files in the image cache: the test's own, not $HOME's.
export PROF_IMAGE_CACHE=$TMP/image-cache

# CASE_PREFIX, if set, goes before every case name (a script run again
# another way names its cases apart).
ok()   { echo "  ok    ${CASE_PREFIX:-}$1"; echo "pass ${CASE_PREFIX:-}$1" >> "$RESULTS"; }
fail() { echo "  FAIL  ${CASE_PREFIX:-}$1: $2"; echo "fail ${CASE_PREFIX:-}$1: $2" >> "$RESULTS"; }
skip() { echo "  skip  ${CASE_PREFIX:-}$1: $2"; echo "skip ${CASE_PREFIX:-}$1: $2" >> "$RESULTS"; }
# check NAME COMMAND...: ok if the command succeeds, else fail with its output.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else fail "$name" "$(echo "$out" | tail -5)"; fi
}

# browser_results FILE [PREFIX]: the results a browser test
# (tests/browser/*.mjs) printed to FILE, a line each, "pass NAME", "fail
# NAME: WHY", "skip NAME: WHY" or "note TEXT", each NAME after PREFIX.
browser_results() {
	local kind rest
	while read -r kind rest; do
		case $kind in
		pass) ok "${2:-}${rest%%: *}" ;;
		fail) fail "${2:-}${rest%%: *}" "${rest#*: }" ;;
		skip) skip "${2:-}${rest%%: *}" "${rest#*: }" ;;
		note) echo "  note  $rest" ;;
		esac
	done < "$1"
}

# eslint CASE FILE: FILE (from the top of the tree) passes ESLint, from
# npm (mk/setup.sh), by the rules of mk/eslint.config.mjs; skipped if
# node or ESLint is missing. Needs $PLAYWRIGHT_DIR, where npm put it.
eslint() {
	local bin=$PLAYWRIGHT_DIR/node_modules/.bin/eslint out
	if ! command -v node > /dev/null || [ ! -x "$bin" ]; then
		skip "$1" "node or ESLint is not installed (make check installs ESLint from npm)"
	elif out=$(cd "$TOP" && "$bin" --config mk/eslint.config.mjs "$2" 2>&1); then
		ok "$1"
	else
		fail "$1" "$(echo "$out" | grep -E 'error|warning' | head -3 | tr '\n' '|')"
	fi
}

# perf_record ARGS...: perf record without its BPF side-band thread
# (--no-bpf-event), for the tests that compare with perf: as it ends, perf
# (6.1) waits up to a second for that thread, a second of each run spent
# waiting; it follows BPF programs loaded meanwhile, which no test samples.
perf_record() { perf record --no-bpf-event "$@"; }

# share FOLDED PATTERN: percent (integer) of samples whose stack matches the
# extended regex PATTERN, from folded output.
share() {
	awk -v pat="$2" '{ n = $NF; total += n; line = $0; sub(/ [0-9]+$/, "", line);
	       if (line ~ pat) hit += n }
	     END { if (total == 0) print -1; else printf "%d\n", hit * 100 / total }' "$1"
}

# synth_paths FILE COUNT_A COUNT_B [COUNT_C]: a synthetic trace of one
# thread whose samples take call paths A, B and C (app+0x100, +0x200,
# +0x300 under app+0x50 and app+0x10), counts in hundreds, interleaved as
# a steady program's are (100 rounds of A, B, C); the exact case of
# test_diff.sh and test_json.sh. Needs $BUILD/tests/tools/synth_trace.
synth_paths() {
	local s=() k
	for ((k = 0; k < 100; k++)); do
		s+=(--sample TID=1,STACK=0x1100:0x1050:0x1010 --count $(($2 / 100))
		    --sample TID=1,STACK=0x1200:0x1050:0x1010 --count $(($3 / 100)))
		[ -n "${4:-}" ] && s+=(--sample TID=1,STACK=0x1300:0x1050:0x1010 --count $(($4 / 100)))
	done
	"$BUILD/tests/tools/synth_trace" -o "$1" --os linux --command app \
		--image "KIND=gnu-build-id,IDENT=0102030405,PATH=/nonexistent/app,START=0x1000,SIZE=0x1000,BIAS=0x1000" \
		--thread TID=1,NAME=main "${s[@]}"
}

# synth_code FILE: a trace of app (0x400000) whose code runs partly where
# no file is: 20 samples, 11 of them with their leaf in no file's code,
# 6 in JIT code that code ranges name (0x9010, named by JS:*hot for the
# first 4 and by JS:*late, loaded over it at the 5th sample, for the
# other 2) and 5 in anonymous memory (0xa010 thrice, 0xa020, and the
# //anon image perf_event reports at 0x7000000); one stack ends in JIT
# code (0x9110, JS:*cold, of a jitdump).
synth_code() {
	"$BUILD/tests/tools/synth_trace" -o "$1" --os linux --arch x86_64 --mode cpu --command /nonexistent/app \
		--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
		--image KIND=none,PATH=//anon,START=0x7000000,SIZE=0x1000 \
		--code 'START=0x9000,SIZE=0x100,NAME=JS:*hot' \
		--code 'START=0x9100,SIZE=0x100,NAME=JS:*cold,SOURCE=jitdump' \
		--code 'START=0x9000,SIZE=0x80,NAME=JS:*late,LOADED=5' \
		--thread TID=1,NAME=main \
		--sample TID=1,STACK=0x9010:0x401010 --count 6 \
		--sample TID=1,STACK=0xa010:0x401010 --count 3 --sample TID=1,STACK=0xa020:0x401010 \
		--sample TID=1,STACK=0x7000010:0x401010 --sample TID=1,STACK=0x401020:0x9110 \
		--sample TID=1,STACK=0x401030:0x401010 --count 8
}

# ptrace_ok [attach]: whether this machine lets prof-record trace a child
# it launches (with attach: also a process that is not its descendant, as
# -p does); prints why not. Yama's kernel.yama.ptrace_scope is 0 (any
# process of ours), 1 (descendants, or anything with CAP_SYS_PTRACE), 2
# (CAP_SYS_PTRACE only) or 3 (none). A seccomp filter or a container can
# refuse ptrace whatever the sysctl, so the last word is a launch by
# prof-record itself: refused for lack of permission, the tests skip with
# its message; failing in any other way, they run and show it.
ptrace_ok() {
	local scope eff cap=0 out
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null || echo 0)
	eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status 2> /dev/null)
	# CAP_SYS_PTRACE is capability 19.
	[ -n "$eff" ] && [ $(((0x$eff >> 19) & 1)) = 1 ] && cap=1
	case $scope in
	0) ;;
	1) if [ "${1:-}" = attach ] && [ $cap = 0 ]; then
		echo "kernel.yama.ptrace_scope=1: without CAP_SYS_PTRACE only descendants can be traced"
		return 1
	   fi ;;
	2) if [ $cap = 0 ]; then
		echo "kernel.yama.ptrace_scope=2: tracing needs CAP_SYS_PTRACE"
		return 1
	   fi ;;
	*) echo "ptrace disabled (kernel.yama.ptrace_scope=$scope)"; return 1 ;;
	esac
	if ! out=$("$RECORD" -q -f --mode wall -o "$TMP/ptrace-probe.trace" -- true 2>&1) &&
	   echo "$out" | grep -q 'Operation not permitted'; then
		echo "ptrace is refused here: $(echo "$out" | head -1)"
		return 1
	fi
	return 0
}

# hue_of NAME SVG: the hue, in whole degrees, of the first frame NAME in
# a flame graph SVG, or -1 (for --colors tests).
hue_of() {
	local fill
	fill=$(grep -o "<title>$1 ([^<]*</title><rect [^>]*fill=\"#[0-9a-f]*\"" "$2" | head -1 | sed 's/.*fill="#//; s/"$//')
	[ ${#fill} = 6 ] || { echo -1; return; }
	awk -v r=$((16#${fill:0:2})) -v g=$((16#${fill:2:2})) -v b=$((16#${fill:4:2})) 'BEGIN {
		max = r; if (g > max) max = g; if (b > max) max = b
		min = r; if (g < min) min = g; if (b < min) min = b
		if (max == min) { print -1; exit }
		if (max == r) h = 60 * (g - b) / (max - min)
		else if (max == g) h = 60 * (2 + (b - r) / (max - min))
		else h = 60 * (4 + (r - g) / (max - min))
		if (h < 0) h += 360
		printf "%d\n", h + 0.5 }'
}
