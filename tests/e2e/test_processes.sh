#!/usr/bin/env bash
# End-to-end: the processes of a recording (format 2.0). A command that
# execs another program is one process with two programs: info lists both
# commands, each read when its exec was handled, and the samples after the
# exec are rooted at the new program's name, in cpu mode, in wall mode and
# with the ptrace sampler; the launch's own exec is not listed twice.
. "$(dirname "$0")/lib.sh"

# exec_case PREFIX OPTIONS...: sh -c 'exec split 0.3' recorded with OPTIONS.
exec_case() {
	local pre=$1 out
	shift
	if ! out=$("$RECORD" "$@" -q -f -o "$TMP/exec.trace" -- sh -c "exec $FIX/split 0.3" 2>&1 > /dev/null); then
		fail "$pre-exec-recorded" "$out"
		return
	fi
	"$REPORT" info "$TMP/exec.trace" > "$TMP/info" 2>&1
	execs=$(sed -n '/^processes:/,/^threads:/p' "$TMP/info" | grep -c '^    exec ')
	if [ "$execs" = 2 ] && grep -q "exec [0-9.]* s: \"sh\" \"-c\"" "$TMP/info" &&
	   grep -q "exec [0-9.]* s: \"$FIX/split\" \"0.3\"" "$TMP/info"; then
		ok "$pre-exec-info-lists-both-programs"
	else
		fail "$pre-exec-info-lists-both-programs" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/info" | tr '\n' '|')"
	fi
	"$REPORT" folded "$TMP/exec.trace" > "$TMP/f" 2>&1
	s=$(share "$TMP/f" '^split;.*;path_[ab];')
	if [ "$s" -ge 90 ]; then
		ok "$pre-exec-rooted-at-new-program (${s}% under split)"
	else
		fail "$pre-exec-rooted-at-new-program" "${s}% under split: $(sort -t' ' -k2 -nr "$TMP/f" | head -3 | tr '\n' '|')"
	fi
}

# The recordings each case is made with, as "NAME OPTIONS...": perf_event
# in both modes where it is allowed, and the ptrace sampler; "samplers"
# has one of each sampler.
setups=() samplers=()
probe=$("$RECORD" -q -f -o "$TMP/probe.trace" -- true 2>&1)
if "$REPORT" info "$TMP/probe.trace" 2> /dev/null | grep -q '^sampler:    perf'; then
	setups+=("cpu --mode cpu" "wall --mode wall")
	samplers+=("perf --sampler perf --mode cpu")
else
	skip "perf-processes" "the perf_event sampler is not allowed here: $probe"
fi
if why=$(ptrace_ok); then
	setups+=("ptrace --sampler ptrace --mode wall")
	samplers+=("ptrace --sampler ptrace --mode wall")
else
	skip "ptrace-processes" "$why"
fi

for setup in "${setups[@]}"; do
	# shellcheck disable=SC2086
	exec_case $setup
done

# --- a process tree: sh -c 'A; A; B', each child computing for 0.6 s. The
# two programs' shares of the running samples within 5 points of perf's
# on the same command, each rooted at its own name, with every sampler;
# info lists sh and its three children, each a child of sh. --no-inherit
# records sh alone.
tree_cmd="$FIX/split 0.6; $FIX/split 0.6; $FIX/shift 0.6 5"

# tree_case PREFIX OPTIONS...
tree_case() {
	local pre=$1 out a b pa pb
	shift
	if ! out=$("$RECORD" "$@" -q -f -o "$TMP/tree.trace" -- sh -c "$tree_cmd" 2>&1 > /dev/null); then
		fail "$pre-tree-recorded" "$out"
		return
	fi
	"$REPORT" info "$TMP/tree.trace" > "$TMP/tree.info" 2>&1
	"$REPORT" folded --state running "$TMP/tree.trace" > "$TMP/tree.folded" 2>&1
	a=$(share "$TMP/tree.folded" '^split;')
	b=$(share "$TMP/tree.folded" '^shift;')
	if grep -q '^processes: 4$' "$TMP/tree.info" && [ "$(grep -c '^    pid ' "$TMP/tree.info")" = 3 ] &&
	   [ "$(grep -c "^      exec [0-9.]* s: \"$FIX/split\" \"0.6\"$" "$TMP/tree.info")" = 2 ]; then
		ok "$pre-tree-info-lists-four-processes"
	else
		fail "$pre-tree-info-lists-four-processes" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/tree.info" | tr '\n' '|')"
	fi
	if [ -n "${perf_a:-}" ] && [ "$a" -ge $((perf_a - 5)) ] && [ "$a" -le $((perf_a + 5)) ] &&
	   [ "$b" -ge $((perf_b - 5)) ] && [ "$b" -le $((perf_b + 5)) ]; then
		ok "$pre-tree-shares-as-perf (split ${a}%, shift ${b}%; perf ${perf_a}%, ${perf_b}%)"
	elif [ -z "${perf_a:-}" ] && [ "$a" -ge 61 ] && [ "$a" -le 72 ] && [ "$b" -ge 28 ] && [ "$b" -le 39 ]; then
		ok "$pre-tree-shares-as-computed (split ${a}%, shift ${b}%; perf cannot record here: $perf_why)"
	else
		fail "$pre-tree-shares" "split ${a}%, shift ${b}%; perf ${perf_a:-none}%, ${perf_b:-none}%: $(sort -t' ' -k2 -nr "$TMP/tree.folded" | head -4 | tr '\n' '|')"
	fi
}

# perf's shares of the same command: its samples by command name.
perf_a= perf_b= perf_why=
if command -v perf > /dev/null 2>&1 &&
   perf_why=$(perf_record -q -g -F 997 -o "$TMP/perf.data" -- sh -c "$tree_cmd" 2>&1 > /dev/null); then
	read -r perf_a perf_b < <(perf script -i "$TMP/perf.data" -F comm 2> /dev/null |
		awk '{ n++ } $1 == "split" { a++ } $1 == "shift" { b++ } END { if (n) printf "%d %d\n", a * 100 / n, b * 100 / n }')
else
	perf_why=${perf_why:-perf is not installed}
fi

for setup in "${setups[@]}"; do
	# shellcheck disable=SC2086
	tree_case $setup
done
for smp in "${samplers[@]}"; do
	# shellcheck disable=SC2086
	set -- $smp
	name=$1
	shift
	"$RECORD" "$@" --no-inherit -q -f -o "$TMP/alone.trace" -- sh -c "$tree_cmd" > /dev/null 2>&1
	"$REPORT" info "$TMP/alone.trace" > "$TMP/alone.info" 2>&1
	"$REPORT" folded "$TMP/alone.trace" > "$TMP/alone.folded" 2>&1
	if grep -q '^processes: 1$' "$TMP/alone.info" && ! grep -q '^split;\|^shift;' "$TMP/alone.folded"; then
		ok "$name-no-inherit-records-the-process-alone ($(awk '{ n += $NF } END { print n + 0 }' "$TMP/alone.folded") samples)"
	else
		fail "$name-no-inherit-records-the-process-alone" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/alone.info" | tr '\n' '|') $(head -3 "$TMP/alone.folded" | tr '\n' '|')"
	fi
done

# --- -p: the children the process starts once attached are recorded too,
# with every sampler; --no-inherit leaves them out.
p_case() {
	local pre=$1 pid
	shift
	sh -c "sleep 0.3; $FIX/split 0.3 > /dev/null; $FIX/shift 0.3 5 > /dev/null" &
	pid=$!
	"$RECORD" "$@" -q -f -o "$TMP/p.trace" -p "$pid" 2> "$TMP/p.err"
	wait "$pid"
	"$REPORT" info "$TMP/p.trace" > "$TMP/p.info" 2>&1
	"$REPORT" folded --state running "$TMP/p.trace" > "$TMP/p.folded" 2>&1
	if [ "$pre" = no-inherit ]; then
		grep -q '^processes: 1$' "$TMP/p.info" && ! grep -q '^split;\|^shift;' "$TMP/p.folded" &&
			ok "attach-no-inherit-leaves-children-out" && return
	elif [ "$(share "$TMP/p.folded" '^split;.*;main;')" -ge 40 ] && [ "$(share "$TMP/p.folded" '^shift;.*;main;')" -ge 40 ]; then
		ok "$pre-attach-records-later-children ($(grep '^processes' "$TMP/p.info"))"
		return
	fi
	fail "$pre-attach-children" "$(cat "$TMP/p.err") $(sed -n '/^processes:/,/^threads:/p' "$TMP/p.info" | tr '\n' '|')"
}
for setup in "${setups[@]}"; do
	# shellcheck disable=SC2086
	p_case $setup
done
[ ${#setups[@]} -gt 0 ] && p_case no-inherit --no-inherit

# --- exports of the tree: pprof labels each sample with its process and
# pid (read by go tool pprof), speedscope names each profile by process
# and thread, and diff compares the programs with process frames.
if [ -s "$TMP/tree.trace" ]; then
	"$REPORT" export --format pprof -o "$TMP/tree.pb.gz" "$TMP/tree.trace"
	if ! command -v go > /dev/null 2>&1; then
		skip "tree-pprof-labels" "go is not installed"
	elif go tool pprof -tags "$TMP/tree.pb.gz" > "$TMP/tags" 2>&1 && grep -q '^ process: ' "$TMP/tags" &&
	     grep -q '(.*%): shift$' "$TMP/tags" && [ "$(sed -n '/^ pid: /,/^$/p' "$TMP/tags" | grep -c '%): [0-9]')" = 4 ]; then
		ok "tree-pprof-labels"
	else
		fail "tree-pprof-labels" "$(head -20 "$TMP/tags" | tr '\n' '|')"
	fi
	"$REPORT" export --format speedscope -o "$TMP/tree.json" "$TMP/tree.trace"
	names=$(grep -Eo '"name":"(split|shift) \[[0-9]+\] / [a-z]+ \[[0-9]+\]"' "$TMP/tree.json" | wc -l)
	if [ "$names" = 3 ]; then
		ok "tree-speedscope-profile-per-process-thread"
	else
		fail "tree-speedscope-profile-per-process-thread" "$names of 3: $(grep -o '"name":"[^"]*"' "$TMP/tree.json" | head -5 | tr '\n' ' ')"
	fi
	if "$REPORT" diff --process-frames "$TMP/tree.trace" "$TMP/exec.trace" > "$TMP/diff" 2>&1 &&
	   grep -q ' total  path_a$' "$TMP/diff" && ! grep -q ' \[[0-9]*\]$' "$TMP/diff"; then
		ok "tree-diff-with-process-frames"
	else
		fail "tree-diff-with-process-frames" "$(head -5 "$TMP/diff" | tr '\n' '|')"
	fi
fi

# --- what bad children get, with each sampler. opts SAMPLER: the options
# that record with it.
opts() { local s; for s in "${samplers[@]}"; do [ "${s%% *}" = "$1" ] && echo "${s#* }"; done; }

# A child that execs a missing file exits 127 as sh's copy: listed, with
# no program of its own, and the rest recorded.
for smp in "${samplers[@]%% *}"; do
	# shellcheck disable=SC2046
	"$RECORD" $(opts "$smp") -q -f -o "$TMP/missing.trace" -- sh -c "$TMP/no-such-program; $FIX/split 0.2" \
		> /dev/null 2> "$TMP/missing.err"
	"$REPORT" info "$TMP/missing.trace" > "$TMP/missing.info" 2>&1
	"$REPORT" folded --process split "$TMP/missing.trace" > "$TMP/missing.folded" 2>&1
	if grep -q '^processes: 3$' "$TMP/missing.info" && [ "$(share "$TMP/missing.folded" '^split;.*;main;')" -ge 80 ] &&
	   { [ "$smp" = perf ] || grep -q '^    pid [0-9]*: .*exit status 127$' "$TMP/missing.info"; }; then
		ok "$smp-child-execs-missing-file"
	else
		fail "$smp-child-execs-missing-file" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/missing.info" | tr '\n' '|')"
	fi
done

# A child that outlives the command: the recording ends with the command,
# and the child runs on, neither stopped nor traced.
for smp in "${samplers[@]%% *}"; do
	# shellcheck disable=SC2046
	"$RECORD" $(opts "$smp") -q -f -o "$TMP/outlive.trace" -- sh -c "$FIX/split 3 > /dev/null & echo \$! > $TMP/outlive.pid; $FIX/split 0.2 > /dev/null" 2> "$TMP/outlive.err"
	left=$(cat "$TMP/outlive.pid" 2> /dev/null)
	state=$(awk '{ print $3 }' "/proc/$left/stat" 2> /dev/null)
	tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$left/status" 2> /dev/null)
	kill "$left" 2> /dev/null
	"$REPORT" info "$TMP/outlive.trace" > "$TMP/outlive.info" 2>&1
	if [ "$state" = R ] && [ "$tracer" = 0 ] && grep -q '^processes: 3$' "$TMP/outlive.info"; then
		ok "$smp-child-outlives-command-runs-on"
	else
		fail "$smp-child-outlives-command-runs-on" "pid ${left:-none}: state ${state:-none}, tracer ${tracer:-none}; $(cat "$TMP/outlive.err") $(sed -n '/^processes:/,/^threads:/p' "$TMP/outlive.info" | tr '\n' '|')"
	fi
done

# The recorder killed mid-way: nothing of the tree is left stopped or
# traced, and the tree finishes its work.
for smp in "${samplers[@]%% *}"; do
	# shellcheck disable=SC2046
	"$RECORD" $(opts "$smp") -q -f -o "$TMP/killed.trace" -- sh -c "$FIX/split 0.6 > /dev/null; $FIX/split 0.6 > /dev/null; echo done > $TMP/killed.done" 2> /dev/null &
	rec=$!
	sleep 0.3
	kids=$(pgrep -P "$rec" | tr '\n' ' ')
	kids="$kids $(for k in $kids; do pgrep -P "$k"; done | tr '\n' ' ')"
	kill -KILL "$rec"
	wait "$rec" 2> /dev/null
	sleep 0.1
	bad=
	for k in $kids; do
		# one read of its status; none if it has ended meanwhile
		read -r st tr < <(awk '/^State:/ { s = $2 } /^TracerPid:/ { t = $2 } END { print s, t }' \
			"/proc/$k/status" 2> /dev/null)
		[ -n "$tr" ] || continue
		{ [ "$st" = t ] || [ "$st" = T ] || [ "$tr" != 0 ]; } && bad="$bad $k:$st:$tr"
	done
	for _ in $(seq 40); do [ -e "$TMP/killed.done" ] && break; sleep 0.05; done
	if [ -n "$kids" ] && [ -z "$bad" ] && [ -e "$TMP/killed.done" ]; then
		ok "$smp-recorder-killed-leaves-tree-free (processes$kids)"
	else
		fail "$smp-recorder-killed-leaves-tree-free" "processes: ${kids:-none}; stopped or traced:${bad:- none}; finished: $([ -e "$TMP/killed.done" ] && echo yes || echo no)"
	fi
	rm -f "$TMP/killed.done"
done

# A pid reused within one recording: two processes of the same pid, each
# with its own program, samples and images.
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	reused=
	for _ in 1 2 3; do
		"$RECORD" -q -f -o "$TMP/reuse.trace" -- sh -c "$FIX/split 0.2 > /dev/null & p=\$!; wait; echo \$((p - 1)) > /proc/sys/kernel/ns_last_pid; $FIX/shift 0.2 5 > /dev/null" 2> /dev/null
		"$REPORT" info "$TMP/reuse.trace" > "$TMP/reuse.info" 2>&1
		pids=$(sed -n '/^processes:/,/^threads:/p' "$TMP/reuse.info" | awk '/^    pid / { print $2 }' | sort | uniq -d)
		[ -n "$pids" ] && { reused=$pids; break; }
	done
	"$REPORT" folded --process-frames "$TMP/reuse.trace" > "$TMP/reuse.folded" 2>&1
	if [ -n "$reused" ] && [ "$(share "$TMP/reuse.folded" "^split;split \\[${reused%:}\\];.*;main;")" -ge 30 ] &&
	   [ "$(share "$TMP/reuse.folded" "^shift;shift \\[${reused%:}\\];.*;main;")" -ge 30 ]; then
		ok "pid-reused-two-processes (pid ${reused%:})"
	elif [ -z "$reused" ]; then
		skip "pid-reused-two-processes" "the system gave the second child another pid three times (other processes forked meanwhile)"
	else
		fail "pid-reused-two-processes" "$(head -5 "$TMP/reuse.folded" | tr '\n' '|')"
	fi
else
	skip "pid-reused-two-processes" "/proc/sys/kernel/ns_last_pid is not writable (needs root)"
fi

# cargo run --release on the Rust fixture: cargo starts the program as
# its child, whose functions are named under its own root.
if ! command -v cargo > /dev/null 2>&1; then
	skip "cargo-run-names-the-program" "cargo is not installed"
else
	mkdir -p "$TMP/crate/src"
	printf '[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n\n[profile.release]\ndebug = true\n' \
		> "$TMP/crate/Cargo.toml"
	cp "$TOP/testdata/rust/shapes.rs" "$TMP/crate/src/main.rs"
	export CARGO_TARGET_DIR="$TMP/crate/target" RUSTFLAGS="-C force-frame-pointers=yes"
	if ! out=$(cd "$TMP/crate" && cargo build --release --offline -q 2>&1); then
		skip "cargo-run-names-the-program" "cargo cannot build the fixture offline here: $(echo "$out" | tail -1)"
	else
		(cd "$TMP/crate" && "$RECORD" -q -f -o "$TMP/cargo.trace" -- cargo run --release --offline -q -- 0.5 > /dev/null 2>&1)
		"$REPORT" folded "$TMP/cargo.trace" > "$TMP/cargo.folded" 2>&1
		s=$(share "$TMP/cargo.folded" '^shapes;.*shapes::geometry::spin')
		if [ "$s" -ge 80 ]; then
			ok "cargo-run-names-the-program (${s}% in shapes::geometry::spin under shapes)"
		else
			fail "cargo-run-names-the-program" "${s}%: $(sort -t' ' -k2 -nr "$TMP/cargo.folded" | head -3 | cut -c1-200 | tr '\n' '|')"
		fi
	fi
	unset CARGO_TARGET_DIR RUSTFLAGS
fi

# A thousand short-lived children: each recorded, and the recorder's peak
# memory grows by less than 4 KiB a child over a hundred children's (what
# grows is the trace's stack tree: each child's libraries load at new
# addresses). Under AddressSanitizer the peak is the sanitizer's (its
# quarantine holds freed blocks back), so the plain suite measures it.
if [ "${BUILD%-san}" != "$BUILD" ]; then
	skip "thousand-children-memory-bounded" "a sanitized build, whose peak memory is AddressSanitizer's; the plain suite measures the recorder's"
elif [ -x /usr/bin/time ]; then
	for n in 100 1000; do
		/usr/bin/time -f %M -o "$TMP/rss.$n" "$RECORD" -q -f -o "$TMP/many.trace" -- sh -c "for i in \$(seq $n); do /bin/true; done" 2> /dev/null
	done
	"$REPORT" info "$TMP/many.trace" > "$TMP/many.info" 2>&1
	r100=$(tail -1 "$TMP/rss.100") r1000=$(tail -1 "$TMP/rss.1000")
	if grep -q '^processes: 100[12]$' "$TMP/many.info" && [ $((r1000 - r100)) -lt $((900 * 4)) ]; then
		ok "thousand-children-memory-bounded (peak ${r100} KiB for 100, ${r1000} KiB for 1000)"
	else
		fail "thousand-children-memory-bounded" "peak ${r100} KiB for 100, ${r1000} KiB for 1000; $(grep '^processes' "$TMP/many.info")"
	fi
else
	skip "thousand-children-memory-bounded" "needs /usr/bin/time (GNU time) to read the recorder's peak memory"
fi

# As root: a fork bomb under another user, bounded by its limit on
# processes (which root itself ignores), recorded to its end with at
# least 30 of its processes (its limit of 40 counts the user's others,
# and a slow sampler may see every fork before a process ends, so no
# more than 40 need come); and a set-user-ID program
# started by a user who may not sample it.
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null 2>&1 || ! command -v prlimit > /dev/null 2>&1; then
	skip "fork-bomb-bounded" "needs root, setpriv and prlimit to run a bomb as another user"
	skip "setuid-child" "needs root and setpriv to make a set-user-ID program and record as another user"
	exit 0
fi
as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
for smp in "${samplers[@]%% *}"; do
	# shellcheck disable=SC2046,SC2016
	timeout 60 "$RECORD" $(opts "$smp") -q -f -o "$TMP/bomb.trace" -- setpriv --reuid 65534 --regid 65534 --clear-groups \
		prlimit --nproc=40 sh -c 'b() { [ $1 -gt 0 ] && { b $(($1 - 1)) & b $(($1 - 1)) & wait; }; sleep 0.1; }; b 7' \
		> /dev/null 2> "$TMP/bomb.err"
	rc=$?
	n=$("$REPORT" info "$TMP/bomb.trace" 2>&1 | awk '/^processes:/ { print $2 }')
	if [ "$rc" != 124 ] && [ "${n:-0}" -ge 30 ] && grep -qi 'fork\|resource' "$TMP/bomb.err"; then
		ok "$smp-fork-bomb-bounded ($n processes recorded, exit $rc)"
	else
		fail "$smp-fork-bomb-bounded" "exit $rc, ${n:-no} processes: $(head -c 300 "$TMP/bomb.err")"
	fi
done

# The set-user-ID program: a copy of split owned by root. Run by nobody,
# the perf_event sampler loses it at its exec (the kernel stops following
# a process its exec made undumpable), says so, and records what follows;
# under ptrace the kernel runs it without its privileges, which is said.
mkdir -m 755 "$TMP/suid"
chmod 755 "$TMP"
cp "$FIX/split" "$TMP/suid/split-suid"
chmod 4755 "$TMP/suid/split-suid"
cp "$FIX/split" "$RECORD" "$TMP/suid/"
chown 65534 "$TMP/suid"
for smp in "${samplers[@]%% *}"; do
	# shellcheck disable=SC2046
	as_nobody "$TMP/suid/prof-record" $(opts "$smp") -q -f -o "$TMP/suid/suid.trace" -- \
		sh -c "$TMP/suid/split-suid 0.3; $TMP/suid/split 0.2" > /dev/null 2> "$TMP/suid.err"
	"$REPORT" info "$TMP/suid/suid.trace" > "$TMP/suid.info" 2>&1
	"$REPORT" folded --process split "$TMP/suid/suid.trace" > "$TMP/suid.folded" 2>&1
	case $smp in
	perf) want='out of reach from' said='ran a program of another user' ;;
	*) want='exit status 0' said='ran without its privileges' ;;
	esac
	if grep -q "$want" "$TMP/suid.info" && grep -q "$said" "$TMP/suid.err" &&
	   [ "$(share "$TMP/suid.folded" ';main;')" -ge 80 ]; then
		ok "$smp-setuid-child-said"
	else
		fail "$smp-setuid-child-said" "$(cat "$TMP/suid.err") $(sed -n '/^processes:/,/^threads:/p' "$TMP/suid.info" | tr '\n' '|')"
	fi
done
