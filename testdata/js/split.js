// split.js: two JavaScript functions whose CPU time divides 3:1, for the
// tests of code compiled at run time (tests/e2e/test_jit.sh).
//
//   node [--perf-basic-prof | --perf-prof] split.js SECONDS
//
// hot and cold are the same loop, each a top-level function of its own,
// called from a driver loop with 3 and 1 million iterations, so that each
// call is long (some milliseconds) and the driver runs a few hundred
// times: too few for V8 to optimise it, and so to inline either function
// into it. Each function is named in its own frames, at lines 12 and 17.
// The driver measures the time each call takes, and prints hot's share:
//
//   split: 412 rounds, hot share 0.752
'use strict';
function hot(n) {
	let s = 0;
	for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003;
	return s;
}
function cold(n) {
	let s = 0;
	for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003;
	return s;
}

const secs = Number(process.argv[2] || 2);
const end = process.hrtime.bigint() + BigInt(Math.round(secs * 1e9));
let inHot = 0n, inCold = 0n, rounds = 0, sink = 0;
for (;;) {
	const t0 = process.hrtime.bigint();
	if (t0 >= end)
		break;
	sink += hot(3000000);
	const t1 = process.hrtime.bigint();
	sink += cold(1000000);
	const t2 = process.hrtime.bigint();
	inHot += t1 - t0;
	inCold += t2 - t1;
	rounds++;
}
const share = Number(inHot) / Number(inHot + inCold);
console.log(`split: ${rounds} rounds, hot share ${share.toFixed(3)} (${sink % 10})`);
