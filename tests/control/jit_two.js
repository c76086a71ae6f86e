// Two hot JS functions for the perf map test (t1051): hotA does twice
// the work of hotB per call, and the program measures the time spent in
// each (after a warm-up, so that both run as optimised code), printing
// "hotA NS hotB NS". Usage: node --perf-basic-prof jit_two.js SECONDS
'use strict';

function hotA(n, x) {
	for (let i = 0; i < n; i++)
		x = (x * 1103515245 + 12345) % 2147483648;
	return x;
}

function hotB(n, x) {
	for (let i = 0; i < n; i++)
		x = (x * 1103515245 + 12345) % 2147483648;
	return x;
}

const seconds = Number(process.argv[2] || 2);
const N = 200000;
let x = 1, ta = 0n, tb = 0n;

for (let i = 0; i < 30; i++)		// warm-up: not measured
	x = hotB(N, hotA(2 * N, x));
const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
for (;;) {
	const t0 = process.hrtime.bigint();
	x = hotA(2 * N, x);
	const t1 = process.hrtime.bigint();
	x = hotB(N, x);
	const t2 = process.hrtime.bigint();
	ta += t1 - t0;
	tb += t2 - t1;
	if (t2 >= end)
		break;
}
console.log(`hotA ${ta} hotB ${tb} x ${x}`);
