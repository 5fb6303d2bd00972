# tests/e2e/arm64_guest.sh: the half of test_arm64.sh that runs in the
# emulated arm64 machine (busybox sh), in the directory that holds
# prof-record and the static fixtures. Every fixture is recorded in each
# mode given (annotate in cpu mode only): cpu, wall, or ptrace (wall mode
# with --sampler ptrace); the traces, and "NAME EXIT-STATUS SECONDS" lines
# in recorded.txt, are left for the host to report on.
#   sh arm64_guest.sh MODE...
set -u
# What the CPU offers (pointer authentication: paca, pacg).
grep -m1 '^Features' /proc/cpuinfo > cpu-features.txt
: > recorded.txt

# record NAME OPTIONS... -- COMMAND...: one prof-record run, NAME.trace.
# A run that hangs is ended after 30 s (exit status 124), five times the
# longest (split's 6 s), and the others still run.
record() {
	name=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout 30 ./prof-record -q -f -o "$name.trace" "$@" > "$name.out" 2> "$name.err"
	echo "$name $? $(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime)" >> recorded.txt
}

for mode in "$@"; do
	case $mode in
	ptrace) opts="--mode wall --sampler ptrace" ;;
	*) opts="--mode $mode" ;;
	esac
	# split runs longer: its share is held to a bound that narrows with
	# its sample count (test_arm64.sh).
	record "$mode-split" $opts -- ./split 6
	# 1 s each: their checks want 20 samples (the ptrace sampler took
	# 275 to 540 of each in 2 s), and 15 s of the machine's 76 went to
	# the second second of these five in the three modes. threads keeps
	# its 2 s: its check counts the samples of the thread named blocked,
	# and in 1 s the ptrace sampler once had none of them in CI.
	for f in frameless qsort_cmp frameless-pac qsort_cmp-pac qsort_cmp-nofp; do
		record "$mode-$f" $opts -- "./$f" 1
	done
	record "$mode-threads" $opts -- ./threads 2
	record "$mode-deep" $opts --max-depth 300 -- ./deep 1
	record "$mode-sig" $opts -- ./sig 2
	record "$mode-sig-alt" $opts -- ./sig 2 alt
	# annotate once, in cpu mode: the host lists the instructions of its
	# hot function from the trace.
	if [ "$mode" = cpu ]; then
		record "$mode-annotate" $opts -- ./annotate 1
	fi
done
